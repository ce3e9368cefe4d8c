#!/bin/sh
# The browser page's screenshots for docs/web.md and the README: a plan
# that does not fit (with the advice), at 1400 px and at 390 px (a phone).
# Headless Chromium's windows are at least 500 px wide, so the phone's is
# the page in a 390 px iframe, cut to 390 px (ImageMagick's convert).
# Usage: scripts/web_screenshots.sh [BUILD_DIR] [OUTDIR]
set -eu
build=$(cd "${1:-build}" && pwd)
out=${2:-docs/img}
page="$build/web/tplan.html"
[ -f "$page" ] || { echo "no $page (cmake --build build --target web)" >&2; exit 1; }
q='model=llama3-8b&gpu=h100-sxm&gpus=8&zero=3&seq=8192&tokens=1e11&price=3.9'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
shot() { # WIDTH HEIGHT URL PNG
    timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --proxy-server=127.0.0.1:9 --proxy-bypass-list='<-loopback>' \
        --virtual-time-budget=10000 --window-size="$1,$2" \
        --screenshot="$4" "$3" >/dev/null 2>&1
}
shot 1400 1500 "file://$page?$q" "$out/web-1400.png"
printf '<!DOCTYPE html><html><body style="margin:0">
<iframe src="file://%s?%s" style="width:390px;height:1500px;border:0;display:block"></iframe>
</body></html>\n' "$page" "$(echo "$q" | sed 's/&/\&amp;/g')" > "$tmp/phone.html"
shot 500 1500 "file://$tmp/phone.html" "$tmp/phone.png"
# Debian's ImageMagick (a convert earlier in PATH may be another program)
im=convert
[ -x /usr/bin/convert ] && im=/usr/bin/convert
"$im" "$tmp/phone.png" -crop 390x1500+0+0 +repage "$out/web-390.png"
echo "wrote $out/web-1400.png and $out/web-390.png"
