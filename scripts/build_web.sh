#!/bin/sh
# Build the browser page: the engine and web/tplan_web.c compiled to
# WebAssembly by Debian's emscripten (`scripts/setup.sh --test` installs
# it), the wasm embedded as base64 (-sSINGLE_FILE) so the page opens from
# file:// with no server. Usage: scripts/build_web.sh SRC_DIR OUT_DIR
set -eu
src=$1
out=$2
mkdir -p "$out"
# emscripten finds its acorn optimizer through NODE_PATH (Debian 12)
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
# Debian ships a frozen, prebuilt cache; a writable copy under the build
# dir when the system one cannot be written (emcc takes a lock in it)
if [ -z "${EM_CACHE:-}" ] && [ ! -w /usr/share/emscripten/cache ]; then
    if [ ! -d "$out/em-cache" ]; then
        cp -r /usr/share/emscripten/cache "$out/em-cache"
    fi
    export EM_CACHE="$out/em-cache"
fi
engine=$(sed -n '/add_library(tplan_engine/,/)/p' "$src/engine/CMakeLists.txt" |
    tr ' ()' '\n\n\n' | grep '\.c$' | sed "s|^|$src/engine/|")
# text/: numbers, the JSON writer and calc's object, shared with the CLI
text_src=$(sed -n '/add_library(tplan_text/,/)/p' "$src/text/CMakeLists.txt" |
    tr ' ()' '\n\n\n' | grep '\.c$' | sed "s|^|$src/text/|")
# shellcheck disable=SC2086 # the file lists, one word each
emcc -std=c11 -O2 -Wall -Wextra -Wpedantic -Wshadow -Werror \
    -D_POSIX_C_SOURCE=200809L -fno-math-errno -fno-trapping-math \
    -I"$src/engine" -I"$src/text" -I"$src/web" \
    $engine $text_src "$src/web/tplan_web.c" \
    -sMODULARIZE=1 -sEXPORT_NAME=tplanModule -sSINGLE_FILE=1 \
    -sALLOW_MEMORY_GROWTH=1 -sENVIRONMENT=web,node \
    -sEXPORTED_FUNCTIONS=_tplan_web_calc,_tplan_web_calc_config,_tplan_web_lists,_tplan_web_free,_malloc,_free \
    -sEXPORTED_RUNTIME_METHODS=ccall,cwrap,UTF8ToString \
    -o "$out/tplan_web.js"
# one HTML file: the page with the module inlined
awk -v js="$out/tplan_web.js" -v form="$src/web/form.html.in" '
    /@TPLAN_WEB_JS@/ { while ((getline l < js) > 0) print l; next }
    /@TPLAN_WEB_FORM@/ { while ((getline l < form) > 0) print l; next }
    { print }' "$src/web/tplan.html.in" > "$out/tplan.html.tmp"
mv "$out/tplan.html.tmp" "$out/tplan.html"
