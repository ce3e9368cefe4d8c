#!/usr/bin/env bash
# Accuracy report (not a test): predict the pre-training throughput of
# NVIDIA's BERT-large runs on DGX-1 V100 in FP32 and mixed precision
# (tests/data/bert_v100_nvidia.tsv, DeepLearningExamples' PyTorch BERT
# README, pytorch:19.07 container, LAMB; the page in each row) with
# `tplan calc --model bert-large`. The table gives GPUs, micro-batch per
# GPU and sequence length; assumed: eager attention (no fused kernel in
# that container), accumulation to the repository's per-GPU batch (8192
# sequences at 128 tokens, 4096 at 512: global 65536 and 32768 on 8
# GPUs); the FP32 runs without TF32 (a V100 has none).
# Usage: scripts/accuracy_bert.sh [--rows] [-- extra calc options];
# --rows prints "id, published, predicted, slow end, fast end" for
# scripts/accuracy.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
data=tests/data/bert_v100_nvidia.tsv
. scripts/report_common.sh
report_args "$@"
tail -n +2 "$data" | while IFS=$'\t' read -r sys gpu n prec seq mb meas src; do
    [ "$prec" = fp32 ] && p=fp32 || p=mixed-fp16
    per_gpu=$([ "$seq" = 128 ] && echo 8192 || echo 4096)
    id="$sys-${n}gpu-$prec-s$seq-b$mb"
    out=$("$tplan" calc --model bert-large --gpu "$gpu" --gpus "$n" --precision "$p" \
        --seq "$seq" --micro-batch "$mb" --accum $((per_gpu / mb)) --attention eager \
        "${extra[@]}" --json)
    read -r pred lo hi < <(jq -r --argjson s "$seq" '[.perf.tokens_per_s / $s,
        .perf.tokens_per_s / $s * .perf.step_time_s / .perf.step_time_s_hi,
        .perf.tokens_per_s / $s * .perf.step_time_s / .perf.step_time_s_lo] | @tsv' <<<"$out")
    if $rows; then
        printf '%s\t%s\t%s\t%s\t%s\n' "$id" "$meas" "$pred" "$lo" "$hi"
    else
        awk -v id="$id" -v m="$meas" -v p="$pred" 'BEGIN { printf "  %-32s published %8.2f  predicted %8.2f seq/s  %+6.1f%%\n", id, m, p, (p - m) / m * 100 }'
    fi
done
