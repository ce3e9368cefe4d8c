#!/usr/bin/env bash
# Does Llama 3.1 8B fit? The reference guide's case (docs/MODEL.md section 4.4):
# full fp32 training with Adam needs 16 bytes per parameter of model states,
# 119 GiB for 8B parameters, so one 80 GB A100 cannot hold it at any batch size.
# tplan says why and what would make it fit; ZeRO-3 over 8 GPUs shards the
# states to 16N/8 and leaves room for activations.
set -euo pipefail
tplan=${TPLAN:-$(dirname "$0")/../build/cli/tplan}

echo "== one A100-80GB, fp32 + Adam =="
"$tplan" calc --model llama3-8b --gpu a100-80g --precision fp32 --optimizer adam --seq 2048

echo
echo "== eight A100-80GB with ZeRO-3: the largest micro-batch that fits =="
"$tplan" calc --model llama3-8b --gpu a100-80g --precision fp32 --optimizer adam --seq 2048 \
    --gpus 8 --zero 3

echo
echo "== mixed bf16 at seq 8192, ZeRO-1, selective recomputation on 8 H100s =="
echo "   (with flash attention there is no s^2 tensor left for selective to drop)"
"$tplan" calc --model llama3-8b --gpu h100-sxm --gpus 8 --zero 1 --recompute selective --seq 8192

echo
echo "== the same with full activation checkpointing, as the advice above says =="
"$tplan" calc --model llama3-8b --gpu h100-sxm --gpus 8 --zero 1 --recompute full --seq 8192
