#!/usr/bin/env python3
"""Compare a tplan CSV file with the sheet LibreOffice Calc made of it.

Usage: spreadsheet_check.py PLANS.csv PLANS.fods

The .fods (flat OpenDocument) is what `soffice --headless --convert-to fods`
wrote after importing the CSV. Each cell must land where it was (no split
or merged cells: quoting survived), text columns must be text cells with
the same characters, empty cells empty, and every other cell a number cell
with the CSV's value. Calc keeps doubles but writes them to ODF with 15
significant digits (seen in its own .fods, .xlsx and CSV output), so a
number matches when it agrees to 15 significant digits: a relative
difference of at most 5e-15, checked as 1e-14. (That the CSV's numbers
read back exactly is tests/test_store.c's check, with strict libcsv.)
Prints one line per mismatch (at most 20) and a tally; exit 1 on any.
"""
import csv
import json
import sys
import xml.etree.ElementTree as ET

NS = {
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
}
# The text columns: "sweep" and every field `tplan fields --json` types
# as text (argv[3]: that JSON), so a new text field is checked as text.
TEXT_COLUMNS = {"sweep"}
REL_TOL = 1e-14


def q(prefix, name):
    return "{%s}%s" % (NS[prefix], name)


def cell_text(cell):
    """A cell's text as Calc holds it: paragraphs joined by newlines,
    <text:s c="N"/> as N spaces, <text:line-break/> as a newline."""
    paras = []
    for p in cell.findall("text:p", NS):
        out = [p.text or ""]
        for child in p:
            if child.tag == q("text", "s"):
                out.append(" " * int(child.get(q("text", "c"), "1")))
            elif child.tag == q("text", "line-break"):
                out.append("\n")
            else:
                out.append("".join(child.itertext()))
            out.append(child.tail or "")
        paras.append("".join(out))
    return "\n".join(paras)


def sheet_rows(path):
    """Rows of the first table as lists of (type, value) cells, repeated
    cells expanded and the trailing empty cells of each row dropped."""
    table = ET.parse(path).find(".//table:table", NS)
    rows = []
    for row in table.iter(q("table", "table-row")):
        cells = []
        for cell in row:
            if cell.tag not in (q("table", "table-cell"),
                                q("table", "covered-table-cell")):
                continue
            kind = cell.get(q("office", "value-type"))
            if kind is None:
                value = None
            elif kind == "string":
                value = cell_text(cell)
            else:
                value = cell.get(q("office", "value"))
            n = int(cell.get(q("table", "number-columns-repeated"), "1"))
            cells.extend([(kind, value)] * n)
        while cells and cells[-1][0] is None:
            cells.pop()
        rows.append(cells)
    while rows and not rows[-1]:
        rows.pop()
    return rows


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: spreadsheet_check.py PLANS.csv PLANS.fods "
                 "FIELDS.json")
    with open(sys.argv[3], encoding="utf-8") as f:
        TEXT_COLUMNS.update(x["name"] for x in json.load(f)
                            if x["type"] == "text")
    with open(sys.argv[1], newline="", encoding="utf-8") as f:
        want = list(csv.reader(f, strict=True))
    got = sheet_rows(sys.argv[2])
    header = want[0]
    problems = []
    checked = 0

    if len(got) != len(want):
        problems.append("%d rows in the CSV, %d in the sheet"
                        % (len(want), len(got)))
    for r, (wrow, grow) in enumerate(zip(want, got), start=1):
        grow = grow + [(None, None)] * (len(wrow) - len(grow))
        if len(grow) != len(wrow):
            problems.append("row %d: %d cells in the CSV, %d in the sheet"
                            % (r, len(wrow), len(grow)))
            continue
        for c, (w, (kind, value)) in enumerate(zip(wrow, grow)):
            where = "row %d column %s" % (r, header[c])
            checked += 1
            if w == "":
                if kind is not None:
                    problems.append("%s: empty in the CSV, %s %r in the sheet"
                                    % (where, kind, value))
            elif r == 1 or header[c] in TEXT_COLUMNS:
                if kind != "string" or value != w:
                    problems.append("%s: text %r became %s %r"
                                    % (where, w, kind, value))
            elif kind != "float":
                problems.append("%s: number %r became %s %r"
                                % (where, w, kind, value))
            else:
                try:
                    x, y = float(w), float(value)
                except ValueError:
                    x, y = float("nan"), 0.0
                if not abs(x - y) <= REL_TOL * max(abs(x), abs(y)):
                    problems.append("%s: %r read as %r" % (where, w, value))
    for p in problems[:20]:
        print("FAIL: " + p)
    print("%d cells checked, %d mismatches" % (checked, len(problems)))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
