#!/usr/bin/env bash
# CSV plans open cleanly in a spreadsheet: LibreOffice Calc (headless)
# imports a `tplan run --csv` file and a `tplan export` file, and every
# cell must come out where it was, text as text, numbers as the same
# numbers, empty as empty (tests/spreadsheet_check.py). Names with a comma
# and a quote, multi-warning text, plans without a budget (empty cells)
# and 17-digit numbers are all in the sweep.
# Usage: test_spreadsheet.sh TPLAN_BINARY TESTS_DIR
# Exits 77 (ctest: skipped) when soffice or python3 is missing;
# scripts/setup.sh --test installs both.
set -u
# shellcheck source=tests/harness.sh
. "$(dirname "$0")/harness.sh"
cd "$tmp"

for tool in soffice python3; do
    if ! command -v $tool >/dev/null; then
        echo "skipped: $tool not installed (scripts/setup.sh --test installs it)"
        exit 77
    fi
done

cat >sheet.lua <<'LUA'
local m = tplan.model{preset = "llama3-8b", name = 'my "8b", v2'}
for _, budget in ipairs{1e12, false} do
  tplan.sweep{name = budget and "with, budget" or "no budget", model = m,
    gpu = "a100-80g", tokens = budget or nil,
    axes = {gpus = {1, 8, 64}, zero = {0, 3}, seq = {2048, 8192},
            recompute = {"none", "full"}, micro_batch = {1, 2, "max"}},
    rank = {"total_bytes"}, keep = "all", advice = true}
end
LUA
"$tplan" run sheet.lua --csv plans.csv --db plans.db >/dev/null 2>err || bad "run: $(cat err)"
"$tplan" export plans.db --csv export.csv --sweep "with, budget" 2>err || bad "export: $(cat err)"
# the sweep has what the check is for
for f in plans export; do
    grep -q '"my ""8b"", v2"' $f.csv && ok || bad "no quoted model name in $f.csv"
    grep -q ' | would fit with' $f.csv && ok || bad "no multi-warning text in $f.csv"
    # 72 configurations less the 12 with zero 3 on one GPU (equivalent to
    # zero 0 there), and the header
    [ "$(wc -l <$f.csv)" -ge 61 ] && ok || bad "$f.csv has $(wc -l <$f.csv) lines"
done
grep -q ',,,' plans.csv && ok || bad "no empty cells in plans.csv"

"$tplan" fields --json >fields.json && ok || bad "tplan fields --json"

# soffice keeps its profile in a directory of its own (no clash with a
# user's running LibreOffice, nothing left in HOME)
for f in plans export; do
    soffice -env:UserInstallation=file://"$tmp"/lo-profile --headless \
        --infilter="CSV:44,34,76,1" --convert-to fods --outdir "$tmp" "$f.csv" \
        >soffice.out 2>&1
    if [ -s "$f.fods" ]; then
        ok
        python3 "$dir/spreadsheet_check.py" "$f.csv" "$f.fods" fields.json >check.out 2>&1 &&
            ok || bad "$f.csv in LibreOffice: $(cat check.out)"
        tail -n 1 check.out
    else
        bad "soffice wrote no $f.fods: $(cat soffice.out)"
    fi
done
finish
