#!/usr/bin/env python3
"""Check the geometry of a report's charts as Chromium laid them out.

  report_geometry.py PAGE.dom [CHART ...]

PAGE.dom is Chromium's --dump-dom of a report copy with
tests/report_geometry.js appended. For every chart (issue 35):
- where the data vary (two values or more, at least 5% apart), the marks
  span at least 40% of the plot's width and of its height: axes fitted to
  the data, not to whole decades around them;
- no two text elements of the chart intersect (tick labels, series and
  point labels, legends, axis titles);
- no tick label is in exponent notation.
Each CHART named on the command line must be there. Prints one line per
failure; exits 1 on any.
"""
import html
import json
import re
import sys

SPAN = 0.40    # issue 35: marks span at least 40% of the plot
VARY = 0.05    # data "vary" when their values are 5% of the largest apart
OVERLAP = 1.0  # px: boxes that share less than this in x or y only touch


def varies(values):
    vals = set(values)
    if len(vals) < 2:
        return False
    try:
        nums = [float(v) for v in vals]
    except ValueError:
        return True  # categories (precisions): distinct is varying
    lo, hi = min(nums), max(nums)
    return hi - lo >= VARY * max(abs(lo), abs(hi))


def meet(a, b):
    return (min(a[2], b[2]) - max(a[0], b[0]) > OVERLAP and
            min(a[3], b[3]) - max(a[1], b[1]) > OVERLAP)


def main():
    page = open(sys.argv[1], encoding="utf-8").read()
    m = re.search(r'<pre id="geometry">(.*?)</pre>', page, re.S)
    if not m:
        print(f"{sys.argv[1]}: no geometry (did the script run?)")
        return 1
    charts = json.loads(html.unescape(m.group(1)))
    fails = []
    seen = set()
    for c in charts:
        name = c["chart"]
        seen.add(name)
        if c.get("panel") is not None:
            name += f" (panel {c['panel'] + 1})"
        f = c["frame"]
        fw, fh = f[2] - f[0], f[3] - f[1]
        if varies(c["xs"]) and c["x"]:
            share = (c["x"][1] - c["x"][0]) / fw
            if share < SPAN:
                fails.append(f"{name}: marks span {share:.0%} of the plot's width")
        if varies(c["ys"]) and c["y"]:
            share = (c["y"][1] - c["y"][0]) / fh
            if share < SPAN:
                fails.append(f"{name}: marks span {share:.0%} of the plot's height")
        t = c["texts"]
        for i in range(len(t)):
            if t[i]["cls"] == "tick" and re.search(r"\de[-+]?\d", t[i]["text"]):
                fails.append(f"{name}: tick label {t[i]['text']!r} in exponent notation")
            for j in range(i + 1, len(t)):
                if meet(t[i]["box"], t[j]["box"]):
                    fails.append(f"{name}: {t[i]['text']!r} and {t[j]['text']!r} overlap")
    for want in sys.argv[2:]:
        if want not in seen:
            fails.append(f"no {want} chart (charts: {', '.join(sorted(seen))})")
    for line in fails:
        print(f"{sys.argv[1]}: {line}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
