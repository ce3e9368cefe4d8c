#!/usr/bin/env bash
# Screenshots of every chart kind of tplan's HTML reports, for docs/img/
# (docs/report.md shows them). Each figure of a calc report, the README's
# sweep's report and an MoE sweep's report is cut into a page of its own (the report's head, so the same
# style) and rendered by headless Chromium.
# Usage: scripts/report_screenshots.sh [TPLAN] [OUTDIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tplan=$(realpath "${1:-$root/build/cli/tplan}")
out=$(realpath "${2:-$root/docs/img}")
browser=$(command -v chromium || command -v chromium-browser)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

"$tplan" calc --model llama3-8b --gpu h100-sxm --gpus 8 --zero 1 \
    --recompute full --tokens 15T --lr 3e-4 --report calc.html >/dev/null
# the README's sweep, as the README has it
python3 - "$root/README.md" >sweep.lua <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
print(re.search(r"```lua\n(-- sweep\.lua:.*?)```", text, re.S).group(1))
PY
"$tplan" run sweep.lua --db s.db >/dev/null 2>&1
"$tplan" report s.db -o sweep.html
# an MoE sweep: which TP, PP, EP, ZeRO stage and micro-batch
"$tplan" run "$root/examples/mixtral_layout.lua" --db moe.db >/dev/null 2>&1
"$tplan" report moe.db -o moe.html

# one page per figure (and one for the ranked table), named by its kind
python3 - calc.html sweep.html moe.html <<'PY'
import re, sys
for src, prefix in ((sys.argv[1], ""), (sys.argv[2], "sweep-"), (sys.argv[3], "moe-")):
    page = open(src, encoding="utf-8").read()
    head = page[:page.index("<h1>")]
    for m in re.finditer(r'<figure class="chart" data-chart="([^"]+)">.*?</figure>', page, re.S):
        kind = m.group(1)
        if prefix and not kind.startswith(("kept-", "best-by-")):
            continue  # the best plan's charts: the calc report has them
        if prefix == "moe-" and kind == "kept-cost-vs-time":
            kind = "moe-" + kind
        elif prefix and kind.startswith("best-by-"):
            kind = prefix + kind
        elif prefix == "moe-":
            continue
        open(f"{kind}.page.html", "w", encoding="utf-8").write(
            head + m.group(0) + "</body></html>\n")
    t = re.search(r'<div class="wide"><table data-table="ranked">.*?</table></div>', page, re.S)
    if t and prefix == "sweep-":
        rows = t.group(0).split("</tr>")
        open("ranked-table.page.html", "w", encoding="utf-8").write(
            head + "</tr>".join(rows[:12]) + "</tbody></table></div></body></html>\n")
PY
for p in *.page.html; do
    name=${p%.page.html}
    h=640
    case $name in *breakdown) h=520 ;; ranked-table) h=420 ;; *best-by-*) h=470 ;; esac
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --window-size=1000,$h --screenshot="$out/$name.png" "file://$tmp/$p" >/dev/null 2>&1
    echo "$out/$name.png"
done
# the dark scheme, once
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --force-dark-mode --blink-settings=preferredColorScheme=0 --window-size=1000,640 \
    --screenshot="$out/memory-vs-micro-batch-dark.png" \
    "file://$tmp/memory-vs-micro-batch.page.html" >/dev/null 2>&1
echo "$out/memory-vs-micro-batch-dark.png"
