#!/usr/bin/env bash
# The browser page's engine (web/tplan_web.c as wasm) against the CLI:
# for each configuration the wasm's result equals the whole object `tplan calc
# --json` prints, and a bad value gives calc's message. Skips (77) without
# emscripten or node. Usage: tests/test_web.sh BUILD_DIR
set -euo pipefail
build=${1:-build}
src=$(cd "$(dirname "$0")/.." && pwd)
command -v emcc >/dev/null && command -v node >/dev/null || {
    echo "skip: no emcc or node (scripts/setup.sh --test)"; exit 77; }
# always: a page built from an older engine would not match calc
cmake --build "$build" --target web >/dev/null
node "$src/tests/web/compare.js" "$build/web/tplan_web.js" "$build/cli/tplan" <<'Q'
model=llama3-8b&gpu=h100-sxm&gpus=8&zero=3&micro-batch=2
model=llama3-8b&gpu=a100-80gb&gpus=16&tp=2&pp=2&seq=4096&global-batch=256
model=llama3-70b&gpu=h100-sxm&gpus=64&tp=8&pp=2&zero=1&recompute=full
model=llama3-8b&gpu=h100-sxm&gpus=1&precision=bf16&micro-batch=1&seq=8192
model=llama3-8b&gpu=h100-sxm&gpus=8&zero=9
model=llama3-8b&gpu=no-such-gpu&gpus=8
Q
