#!/usr/bin/env bash
# HTML reports (`tplan calc --report`, `tplan report DB`): every chart kind
# there, every value checked equal to the plan's JSON and the database's
# rows (tests/report_check.py), the page self-contained; then the same
# pages rendered by headless Chromium: the DOM it built passes the same
# checks, its screenshot is not blank, and it logged no console message.
# Bad input: a clear error, a non-zero exit, no file touched.
# Usage: test_report.sh TPLAN TESTS_DIR. Exit 77 (skip) without python3 or
# chromium, which `scripts/setup.sh --test` installs.
set -uo pipefail
tplan=$(realpath "$1")
dir=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "SKIP: no chromium"; exit 77; }

check() { # MODE PAGE JSON
    if out=$(python3 "$dir/report_check.py" "$@"); then ok; else bad "$out"; fi
}

# Render PAGE with Chromium: its DOM to PAGE.dom, a screenshot to
# PAGE.png, its log to PAGE.log.
render() {
    local page=$1 url="file://$tmp/$1"
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
        --hide-scrollbars --enable-logging=stderr --v=0 \
        --dump-dom "$url" >"$page.dom" 2>"$page.log" ||
        bad "chromium --dump-dom $page failed: $(tail -3 "$page.log")"
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
        --hide-scrollbars --window-size=1000,3000 \
        --screenshot="$tmp/$page.png" "$url" >/dev/null 2>&1 ||
        bad "chromium --screenshot $page failed"
    # a console message from the page: an error or a blocked resource
    if grep -q 'CONSOLE' "$page.log"; then
        bad "$page: console messages: $(grep CONSOLE "$page.log" | head -3)"
    else ok; fi
    if python3 - "$tmp/$page.png" <<'PY'; then ok; else bad "$page.png is blank"; fi
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", data[pos + 8:pos + 18])
    if kind == b"IDAT":
        idat += data[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(idat)
# distinct byte values over the image (filters included): a blank page
# has a handful, a chart page hundreds
sys.exit(0 if len(set(raw)) > 64 and w > 0 else 1)
PY
}

# ---- calc --report ---------------------------------------------------------
calc=(calc --model llama3-8b --gpu h100-sxm --gpus 8 --zero 1 --recompute full
      --tokens 15T --lr 3e-4)
if "$tplan" "${calc[@]}" --report calc.html >calc.txt 2>calc.err &&
   "$tplan" "${calc[@]}" --json >plan.json; then ok
else bad "calc --report: $(cat calc.err)"; fi
grep -q "^memory per GPU" calc.txt && ok || bad "calc --report still prints the table"
check calc calc.html plan.json
render calc.html
check calc calc.html.dom plan.json
# a plan that does not fit, untimed (a generic model): what there is
if "$tplan" calc --params 7B --act-bytes 1e6 --gpu l40s --report generic.html >/dev/null 2>generic.err &&
   grep -q 'data-chart="memory-breakdown"' generic.html &&
   ! grep -q 'data-chart="step-time-breakdown"' generic.html; then ok
else bad "generic model report: $(cat generic.err)"; fi

# a QLoRA plan's report names the method, the base and the epoch (issue
# 35), and draws no fp32 or fp8 line for its frozen 4-bit base
if "$tplan" calc --model llama3-8b --qlora --gpu rtx4090 --dataset 10000 --epochs 3 \
    --report qlora.html >/dev/null 2>qlora.err &&
    grep -q '<h2>Fine-tune</h2>' qlora.html &&
    grep -q '<p>QLoRA: LoRA rank 64 on all-linear: .*base nf4 with double quantization; 3 epochs of 10000 samples, .* h per epoch.</p>' qlora.html &&
    ! grep -q 'data-series="fp32"\|data-series="fp8"' qlora.html &&
    grep -q 'data-series="fp32"' calc.html; then ok
else bad "QLoRA report header: $(cat qlora.err; grep -A1 'Fine-tune' qlora.html | head -3)"; fi

# fits WIDTH PAGE: no table of PAGE is wider than its box in a WIDTH-px
# window (issue 33: the ranked table clipped columns at 1400 px). A copy
# of the page gets a script that marks each table's overflow; Chromium
# runs it and dumps the DOM.
fits() {
    local width=$1 page=$2
    sed 's#</body>#<script>for (const d of document.querySelectorAll(".wide")) d.setAttribute("data-over", d.scrollWidth - d.clientWidth);</script></body>#' \
        "$page" >"w_$page"
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --window-size="$width",900 --dump-dom "file://$tmp/w_$page" >"w_$page.dom" 2>/dev/null
    local over
    over=$(grep -o 'data-over="[0-9-]*"' "w_$page.dom" | grep -v 'data-over="0"' | grep -v 'data-over="-')
    [ -n "$(grep -o 'data-over=' "w_$page.dom")" ] && [ -z "$over" ] && ok ||
        bad "$page at $width px: a table overflows its box ($over)"
}

# geometry PAGE [CHART...]: PAGE as Chromium lays it out passes
# tests/report_geometry.py (issue 35): marks span 40% of each plot where
# the data vary, no two texts of a chart meet, no tick in exponent
# notation, and each CHART named is there. A copy of the page gets
# tests/report_geometry.js, which writes the boxes into the DOM.
geometry() {
    local page=$1
    shift
    python3 - "$page" "$dir/report_geometry.js" "g_$page" <<'PY'
import sys
page, js, out = sys.argv[1:4]
s = open(page, encoding="utf-8").read()
s = s.replace("</body>", "<script>" + open(js, encoding="utf-8").read() + "</script></body>")
open(out, "w", encoding="utf-8").write(s)
PY
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --window-size=1000,900 --dump-dom "file://$tmp/g_$page" >"g_$page.dom" 2>/dev/null
    if out=$(python3 "$dir/report_geometry.py" "g_$page.dom" "$@"); then ok; else bad "$out"; fi
}
geometry calc.html
geometry qlora.html
geometry generic.html

# ---- tplan report DB -------------------------------------------------------
cat >sweep.lua <<'LUA'
tplan.sweep{
  name = "report-test", model = "llama3-8b", gpu = "h100-sxm", tokens = 1e12, lr = 3e-4,
  axes = {gpus = {8, 16, 32, 64}, zero = {1, 3}, precision = {"mixed-bf16", "fp8"},
          recompute = {"none", "full"}},
  rank = {"cost_usd", "time_h"}, keep = 30,
}
LUA
if "$tplan" run sweep.lua --db s.db >/dev/null 2>run.err &&
   "$tplan" report s.db -o s.html 2>report.err &&
   "$tplan" query s.db "SELECT rank, gpus, fits, total_bytes, step_time_s, cost_usd, time_h, tokens_per_s,
       weights_bytes, grads_bytes, optimizer_bytes, activations_bytes, overhead_bytes
       FROM plans ORDER BY rank IS NULL, rank" --json >rows.json; then ok
else bad "tplan report: $(cat run.err report.err 2>/dev/null)"; fi
check sweep s.html rows.json
render s.html
check sweep s.html.dom rows.json
# a chart per swept axis, its marks the database's best plan at each value
check bestby s.html s.db
geometry s.html best-by-gpus best-by-zero best-by-precision best-by-recompute
# by name and by id: the same page
if "$tplan" report s.db --sweep report-test -o byname.html &&
   "$tplan" report s.db --sweep 1 -o byid.html && cmp -s byname.html byid.html; then ok
else bad "--sweep NAME and --sweep ID differ"; fi
# an MoE sweep's table (its ep column among the axes) fits a 1400-px page,
# and so does this one's
if "$tplan" run "$dir/lua/mixtral_sweep.lua" --db mx.db >/dev/null 2>&1 &&
   "$tplan" report mx.db -o mx.html 2>/dev/null; then ok; else bad "report of the Mixtral sweep"; fi
fits 1400 mx.html
fits 1400 s.html
# where no plan fits, the report says so and names the closest, never "best"
printf 'tplan.sweep{name = "none", model = "llama2-70b", gpu = "a100-80g", gpus = 1, tokens = 1e9, axes = {micro_batch = {1, 2}}, rank = {"time_h"}}\n' >none.lua
if "$tplan" run none.lua --db none.db >/dev/null 2>&1 && "$tplan" report none.db -o none.html 2>/dev/null &&
   grep -q "<h2>No plan fits: the closest</h2>" none.html && ! grep -q "<h2>The best plan</h2>" none.html &&
   grep -q "needs [0-9.]* GiB per GPU where 71.3 GiB is usable" none.html; then ok
else bad "a report where no plan fits: $(grep -o '<h2>[^<]*</h2>' none.html | head -3)"; fi

# ---- does the best plan stay best? (issue 33) -------------------------------
# the Mixtral sweep: EP 1 first at moe_imbalance 1.52 (its aux-loss router's default), an EP 4 plan at 1.0
cat >mix.lua <<'LUA'
tplan.sweep{
  name = "mixtral", model = "mixtral-8x7b", gpu = "h100-sxm", gpus = 64,
  seq = 4096, global_batch = 512, tokens = 1e12, precision = "mixed-bf16",
  axes = {tp = {1,2,4,8}, pp = {1,2,4}, ep = {1,2,4,8}, zero = {1,3}, micro_batch = {1,2,4}},
  rank = {"time_h"}, keep = 20, limits = {fits = true},
}
LUA
if "$tplan" run mix.lua --db mix.db >/dev/null 2>run.err &&
   "$tplan" report mix.db -o mix.html 2>report.err; then ok
else bad "mixtral report: $(cat run.err report.err 2>/dev/null)"; fi
grep -q "Does the best plan stay best?" mix.html && ok || bad "no robustness section"
# issue 35's must-show: the Mixtral sweep's report has a best-by chart for
# each of its five axes and passes the geometry checks in Chromium
check bestby mix.html mix.db
geometry mix.html best-by-ep best-by-tp best-by-pp best-by-zero best-by-micro_batch
flip=$(grep -o '<li data-field="moe_imbalance" data-value="1">[^<]*</li>' mix.html)
case "$flip" in
*"EP 1 first at moe_imbalance 1.52; at 1, "*"EP 4 first (-"*"% time_h)"*) ok ;;
*) bad "the moe_imbalance flip reads '$flip'" ;;
esac
# a sweep that sets every assumption it could rest on: nothing to flip (the
# report tells a set value from a default only by its differing, so these
# differ)
cat >set.lua <<'LUA'
tplan.sweep{
  name = "set", model = "llama3-8b", gpu = "h100-sxm", gpus = 8, tokens = 1e12,
  seq = 2048, zero = 3, framework = "megatron", tp_overlap = 0.5, alloc_frac = 0.05,
  gather_sets = 2.5,
  axes = {tp = {1, 2}, micro_batch = {1, 2}}, rank = {"time_h"}, keep = 4,
}
LUA
if "$tplan" run set.lua --db set.db >/dev/null 2>run.err &&
   "$tplan" report set.db -o set.html 2>report.err; then ok
else bad "set report: $(cat run.err report.err 2>/dev/null)"; fi
grep -q '<li data-field=' set.html && bad "a flip on an assumption the sweep set" || ok
grep -q "The first plan stays first" set.html && ok || bad "no 'stays first' line"

# ---- bad input --------------------------------------------------------------
expect() { # WANT_RC WANT_TEXT CMD...: exit status and the message
    local want=$1 text=$2
    shift 2
    "$@" >out.txt 2>err.txt
    local rc=$?
    if [ "$rc" = "$want" ] && grep -qF -- "$text" err.txt; then ok
    else bad "$* -> rc $rc, stderr '$(cat err.txt)', want $want and '$text'"; fi
}
sum=$(sha256sum s.db)
expect 2 "usage: tplan report DB" "$tplan" report s.db
expect 2 "is the database itself" "$tplan" report s.db -o s.db
[ "$(sha256sum s.db)" = "$sum" ] && ok || bad "report -o DB changed the database"
expect 1 "no sweep nosuch" "$tplan" report s.db --sweep nosuch -o x.html
expect 1 "is not a tplan result database" "$tplan" report sweep.lua -o x.html
expect 2 "unknown option --bogus" "$tplan" report s.db --bogus -o x.html
echo "my notes" >notes.txt
expect 1 "notes.txt exists and is not a tplan report" "$tplan" report s.db -o notes.txt
expect 1 "notes.txt exists and is not a tplan report" "$tplan" "${calc[@]}" --report notes.txt
[ "$(cat notes.txt)" = "my notes" ] && ok || bad "a report replaced notes.txt"
expect 1 "report: " "$tplan" report s.db -o "$tmp/no/such/dir/r.html"
expect 2 "--report: an empty file name" "$tplan" "${calc[@]}" --report=
# a link is followed as --csv follows one (issue 36): the report it names
# is replaced and the link stays
ln -s s.html link.html
"$tplan" report s.db -o link.html 2>err.txt && [ -L link.html ] && [ -s s.html ] && ok ||
    bad "report -o through a link: $(cat err.txt)"
[ -z "$(ls -A "$tmp" | grep 'tplan-report')" ] && ok || bad "temporary files left: $(ls -A "$tmp" | grep 'tplan-report')"
# a name near the 255-byte limit works (the temporary's is short)
long=$(printf 'r%.0s' $(seq 1 250)).html
if "$tplan" report s.db -o "$long" 2>err.txt && [ -s "$long" ]; then ok; else bad "a 255-byte name: $(cat err.txt)"; fi
# the plan at seq 1 and a huge micro-batch (65536: even, so the GPU
# scaling keeps its global batch): its own point and the
# largest that fits are on the charts
if "$tplan" calc --model gpt2 --gpu a100-80g --seq 1 --micro-batch 65536 --lr 1e-3 --report tiny.html >/dev/null &&
   "$tplan" calc --model gpt2 --gpu a100-80g --seq 1 --micro-batch 65536 --lr 1e-3 --json >tiny.json; then ok; else bad "calc seq 1"; fi
check calc tiny.html tiny.json
# a GPU count the batch rules refuse leaves the scaling charts standing
if "$tplan" calc --model llama3-70b --gpu h100-sxm --gpus 64 --tp 8 --pp 4 --vpp 2 --framework megatron \
      --lr 1e-4 --seq 4096 --recompute selective --report vpp.html >/dev/null &&
   grep -q 'data-chart="throughput-vs-gpus"' vpp.html && grep -q 'data-chart="cost-vs-time"' vpp.html; then ok
else bad "one refused GPU count dropped the scaling charts"; fi
[ ! -e x.html ] && ok || bad "a failed report left x.html"

# axes fitted to the data (issue 35): kept plans within less than a decade
# of cost and time are drawn on linear axes with 1-2-5 ticks around them,
# not on whole decades (868-1,028 hours on 100-10,000)
cat >narrow.lua <<'LUA'
tplan.sweep{name = "narrow", model = "llama3-8b", gpu = "h100-sxm", tokens = 1e12,
  axes = {gpus = {64, 128}, zero = {1, 3}, micro_batch = {1, 2}},
  rank = {"cost_usd", "time_h"}, keep = 20}
LUA
if "$tplan" run narrow.lua --db narrow.db >/dev/null 2>&1 && "$tplan" report narrow.db -o narrow.html 2>/dev/null &&
   python3 - narrow.html <<'PY'; then ok; else bad "narrow sweep: its cost-vs-time axes are not fitted to the data"; fi
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
fig = re.search(r'data-chart="kept-cost-vs-time">.*?</figure>', page, re.S).group(0)
ticks = re.findall(r'class="tick"[^>]*>([^<]*)<', fig)
def val(t):
    t = t.lstrip("$")
    m = {"K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}.get(t[-1:], 1)
    return float(t.rstrip("KMBT")) * m
vals = [val(t) for t in ticks]
decades = [v for v in vals if v > 0 and abs(v - 10 ** round(__import__("math").log10(v))) < 1e-9 * v]
# linear axes: most ticks are not powers of ten
sys.exit(0 if len(vals) >= 6 and len(decades) < len(vals) / 2 else 1)
PY
geometry narrow.html best-by-gpus best-by-zero best-by-micro_batch
# no tick label in exponent notation in any page made above (issue 35:
# money read 1e+06), and the pages carry a print stylesheet
for page in *.html; do
    if grep -o 'class="tick"[^>]*>[^<]*<' "$page" | grep -q '[0-9]e[-+][0-9]'; then
        bad "$page: a tick label in exponent notation: $(grep -o 'class="tick"[^>]*>[^<]*<' "$page" | grep '[0-9]e[-+]' | head -2)"
    else ok; fi
done
grep -q '@media print{' calc.html && ok || bad "calc.html has no print stylesheet"
# series are labelled in words, not field names (issue 35)
! grep -q '<text class="label"[^>]*>\(tokens_per_s\|total_bytes\|activations_bytes\)<' calc.html &&
    grep -q '<text class="label"[^>]*>total memory<' calc.html && ok ||
    bad "calc.html labels its series with field names"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
