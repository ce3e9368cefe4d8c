#!/usr/bin/env bash
# The browser page's engine (web/tplan_web.c as wasm) against the CLI:
# for each configuration the wasm's result equals the whole object `tplan calc
# --json` prints, and a bad value gives calc's message; a pasted config.json
# (every tests/data/hf file) equals calc --model-config's. Skips (77) without
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
# a pasted config.json: every config calc reads, and four it refuses, give
# calc --model-config's whole object or its message (tests/web/config_compare.js)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo '{"model_type": "olmoe", "hidden_size": 2048}' > "$tmp/moe.json"
echo '{"model_type": "llama", "num_hidden_layers": 2}' > "$tmp/nohidden.json"
echo '{"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12, "vocab_size": 50257, "activation_function": 7}' > "$tmp/act.json"
echo '[1, 2]' > "$tmp/array.json"
node "$src/tests/web/config_compare.js" "$build/web/tplan_web.js" "$build/cli/tplan" \
    'gpu=h100-sxm&gpus=8&zero=1' "$src"/tests/data/hf/*.json "$tmp"/*.json
