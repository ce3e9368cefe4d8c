#!/usr/bin/env bash
# The browser page in headless Chromium: 50 random valid configurations
# (fixed seed) typed into the page's own form give a #tplan-result equal
# to the whole object `tplan calc --json` prints, and a URL holding the options; bad
# values show calc's message under the field it names; a bad pasted
# config.json one line under its box; the lists are the engine's; the
# grid's axes are kept in the URL; labels, keyboard, typing and the
# layout at 390 and 1400 px (tests/web/layout_check.js); the page loads
# from file:// with networking off. Skips (77) without emcc, node or
# chromium. Usage: tests/test_web_page.sh BUILD_DIR
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
for t in emcc node chromium; do
    command -v $t >/dev/null || { echo "skip: no $t (scripts/setup.sh --test)"; exit 77; }
done
[ -f "$build/web/tplan.html" ] || cmake --build "$build" --target web
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
node "$src/tests/web/page_compare.js" gen 50 39 "$build/cli/tplan" > "$tmp/valid"
{
    cat "$tmp/valid"
    echo 'model=llama3-8b&zero=9'
    echo 'model=no-such-model&gpus=8'
    echo 'model=llama3-8b&gpus=0'
    echo 'model=llama3-8b&gpu=h100-sxm&gpus=8&seq=abc'
    echo 'model=llama3-8b&precision=fp7'
} > "$tmp/queries"
{
    cat "$build/web/tplan.html"
    printf '<script>window.TPLAN_QUERIES = %s;\n' \
        "$(node -e 'console.log(JSON.stringify(require("fs").readFileSync(0,"utf8").trim().split("\n")))' < "$tmp/queries")"
    cat "$src/tests/web/page_check.js"
    echo '</script>'
} > "$tmp/page.html"
# A page's DOM once READY holds (tests/web/headless.js: waits in real
# time, up to 90 s, for the wasm to compile and the page to answer; no
# network: an unroutable proxy, so any fetch the page tried would fail).
# Usage: dump URL READY OUT [chromium flags...]
dump() {
    local url=$1 ready=$2 out=$3
    shift 3
    timeout 150 node "$src/tests/web/headless.js" "$url" "$ready" "$out" 90 \
        --proxy-server=127.0.0.1:9 --proxy-bypass-list='<-loopback>' "$@"
}
dump "file://$tmp/page.html" 'document.getElementById("tplan-test-out")' "$tmp/dom.html"
node -e '
const s = require("fs").readFileSync(process.argv[1], "utf8");
const m = s.match(/<pre id="tplan-test-out">([^<]*)<\/pre>/);
if (!m) { console.error("FAIL: the page produced no results (did it load?)"); process.exit(1); }
const t = m[1].replace(/&quot;/g, "\"").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
require("fs").writeFileSync(process.argv[2], t);' "$tmp/dom.html" "$tmp/out.json"
node "$src/tests/web/page_compare.js" check "$tmp/out.json" "$build/cli/tplan"

# accessibility and layout (tests/web/layout_check.js) at a phone's width
# and a desktop's: labels, keyboard reach, error boxes beside their inputs
# and typing that changes the result at both; at 390 px nothing wider
# than the window (no horizontal scrolling), at 1400 px the form and the
# results side by side
{
    cat "$build/web/tplan.html"
    printf '<script>\n'
    cat "$src/tests/web/layout_check.js"
    echo '</script>'
} > "$tmp/layout.html"
# the two widths as iframes in one page, which collects what each posts
cat > "$tmp/layouts.html" <<'HTML'
<!DOCTYPE html><html><body>
<iframe src="layout.html?model=llama3-8b&amp;gpus=8" style="width:390px;height:900px;border:0"></iframe>
<iframe src="layout.html?model=llama3-8b&amp;gpus=8" style="width:1400px;height:900px;border:0"></iframe>
<script>
var got = {};
addEventListener('message', function (e) {
  var f = JSON.parse(e.data);
  got[f.width] = f;
  if (Object.keys(got).length < 2) return;
  var p = document.createElement('pre');
  p.id = 'tplan-layout-out';
  p.textContent = JSON.stringify(got);
  document.body.appendChild(p);
});
</script></body></html>
HTML
dump "file://$tmp/layouts.html" 'document.getElementById("tplan-layout-out")' \
    "$tmp/layouts-dom.html" --hide-scrollbars --window-size=1850,1000
node "$src/tests/web/layout_judge.js" "$tmp/layouts-dom.html"

# tplan calc --web-link: the link it prints opens this plan in the page
# (the page beside the binary: build/web/tplan.html in the build tree)
args=(--model llama3-8b --gpu a100-80g --gpus 16 --tp 2 --zero 1 --lora-targets q,v --lora-rank 8)
link=$("$build/cli/tplan" calc "${args[@]}" --web-link)
query=${link#*\?}
case $link in
    "file://$build/web/tplan.html?"*) ;;
    *) echo "FAIL: --web-link printed $link"; exit 1 ;;
esac
dump "$link" '/"fields": \{/.test(document.getElementById("tplan-result").textContent)' \
    "$tmp/link.html"
node -e '
const fs = require("fs");
const s = fs.readFileSync(process.argv[1], "utf8");
const m = s.match(/<script type="application\/json" id="tplan-result">([^<]*)<\/script>/);
const r = JSON.parse(m[1]);
const q = decodeURIComponent(process.argv[2]).replace(/\+/g, " ");
fs.writeFileSync(process.argv[3], JSON.stringify([{ q: process.argv[2], result: r, shown: null, url: process.argv[2] }]));
' "$tmp/link.html" "$query" "$tmp/link.json"
node "$src/tests/web/page_compare.js" check "$tmp/link.json" "$build/cli/tplan"
