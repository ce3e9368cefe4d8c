#!/usr/bin/env bash
# Accuracy report (not a test): predict the achieved TFLOP/s per GPU of every
# row of Narayanan et al. 2021 ("Efficient Large-Scale Language Model Training
# on GPU Clusters Using Megatron-LM"), Table 1: GPT models of 1.7B-1T
# parameters on 32-3072 A100s with tensor and pipeline parallelism, full
# recomputation, vocabulary 51,200, sequence 2048. Their TFLOP/s count
# Eq. 3's FLOPs (recomputation included): tplan's hardware FLOPs with eager
# attention are exactly those. The paper does not give the micro-batch;
# this assumes 1. With a framework among the options the attention kernel
# is the framework's (its fit_attention: eager for megatron and
# megatron-2021), as a user who names only the framework gets it. Usage: scripts/accuracy_megatron.sh [--rows] [-- extra calc
# options]; --rows prints "id, published, predicted, predicted at the step
# band's slow and fast ends" lines (tab-separated) for scripts/accuracy.sh
# instead of the report.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/report_common.sh
report_args "$@"
attn=(--attention eager)
for a in "${extra[@]}"; do case $a in --framework | --framework=*) attn=() ;; esac; done

# billions, heads, hidden, layers, tp, pp, GPUs, batch, published TFLOP/s per GPU
table='1.7 24 2304 24 1 1 32 512 137
3.6 32 3072 30 2 1 64 512 138
7.5 32 4096 36 4 1 128 512 142
18.4 48 6144 40 8 1 256 1024 135
39.1 64 8192 48 8 2 512 1536 138
76.1 80 10240 60 8 4 1024 1792 140
145.6 96 12288 80 8 8 1536 2304 148
310.1 128 16384 96 8 16 1920 2160 155
529.6 128 20480 105 8 35 2520 2520 163
1008 160 25600 128 8 64 3072 3072 163'

echo "$table" | while read -r billions heads hidden layers tp pp gpus batch published; do
    dp=$((gpus / (tp * pp)))
    out=$("$tplan" calc --layers "$layers" --hidden "$hidden" --heads "$heads" --vocab 51200 \
        --seq 2048 --gpu a100-80g --gpus "$gpus" --tp "$tp" --pp "$pp" --micro-batch 1 \
        --accum $((batch / dp)) --recompute full "${attn[@]}" --profile megatron \
        --precision mixed-fp16 "${extra[@]}" --json) || { echo "accuracy: ${billions}B: tplan failed" >&2; exit 1; }
    jq -r --arg b "$billions" --arg pub "$published" \
        '"\($b)\t\($pub)\t\(.perf.hw_flops_per_step / .perf.step_time_s / .parallel.gpus / 1e12)\t\(.perf.hw_flops_per_step / .perf.step_time_s_hi / .parallel.gpus / 1e12)\t\(.perf.hw_flops_per_step / .perf.step_time_s_lo / .parallel.gpus / 1e12)"' <<<"$out"
done | if $rows; then awk -F'\t' '{ printf "%sB\t%s\t%s\t%s\t%s\n", $1, $2, $3, $4, $5 }'; else awk -F'\t' '
{ e = ($3 - $2) / $2; a = e < 0 ? -e : e; err[NR] = a; n++; sum += e
  printf "  %7sB  published %4d  predicted %6.1f TFLOP/s per GPU  %+6.1f%%\n", $1, $2, $3, e * 100 }
END {
  if (n == 0) exit 1
  for (i = 2; i <= n; i++) { v = err[i]; j = i - 1; while (j > 0 && err[j] > v) { err[j+1] = err[j]; j-- } err[j+1] = v }
  printf "Narayanan et al. 2021 Table 1 rows: %d; median |error| %.1f%%; mean signed error %+.1f%%\n",
         n, ((n % 2) ? err[(n+1)/2] : (err[n/2] + err[n/2+1]) / 2) * 100, sum / n * 100
}'
fi
