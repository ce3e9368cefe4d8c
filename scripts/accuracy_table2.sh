#!/usr/bin/env bash
# Accuracy report (not a test): predict the TFLOP/s per GPU of every row of
# Narayanan et al. 2021 ("Efficient Large-Scale Language Model Training on
# GPU Clusters Using Megatron-LM"), Table 2: GPT 174.6B and 529.6B on
# A100s, DeepSpeed ZeRO-3 without model parallelism (micro-batch 4/2/1 as
# the GPUs double at a fixed batch) against PTD-P (tensor 8 x pipeline 12
# or 35, micro-batch 1). Vocabulary 51,200, sequence 2048, full
# recomputation, fp16 mixed precision, as in Table 1
# (scripts/accuracy_megatron.sh). ZeRO-3 rows run with --framework
# deepspeed, PTD-P rows with --framework megatron, unless FLAGS name
# another. Usage: scripts/accuracy_table2.sh [--rows] [-- extra calc
# options]; --rows prints "id, published, predicted, predicted at the step
# band's slow and fast ends" lines.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/report_common.sh
report_args "$@"
fw_given=false
for a in "${extra[@]}"; do case $a in --framework | --framework=*) fw_given=true ;; esac; done

# scheme, billions, layers, hidden, heads, tp, pp, GPUs, batch, micro-batch,
# published TFLOP/s per GPU
table='zero3 174.6 96 12288 96 1 1 384 1536 4 144
zero3 174.6 96 12288 96 1 1 768 1536 2 88
zero3 174.6 96 12288 96 1 1 1536 1536 1 44
zero3 529.6 105 20480 128 1 1 640 2560 4 138
zero3 529.6 105 20480 128 1 1 1120 2240 2 98
zero3 529.6 105 20480 128 1 1 2240 2240 1 48
ptdp 174.6 96 12288 96 8 12 384 1536 1 153
ptdp 174.6 96 12288 96 8 12 768 1536 1 149
ptdp 174.6 96 12288 96 8 12 1536 1536 1 141
ptdp 529.6 105 20480 128 8 35 560 2240 1 171
ptdp 529.6 105 20480 128 8 35 1120 2240 1 167
ptdp 529.6 105 20480 128 8 35 2240 2240 1 159'

echo "$table" | while read -r scheme billions layers hidden heads tp pp gpus batch mb published; do
    dp=$((gpus / (tp * pp)))
    z=1 fw=(--framework megatron)
    [ "$scheme" = zero3 ] && { z=3; fw=(--framework deepspeed); }
    $fw_given && fw=()
    out=$("$tplan" calc --layers "$layers" --hidden "$hidden" --heads "$heads" --vocab 51200 \
        --seq 2048 --gpu a100-80g --gpus "$gpus" --tp "$tp" --pp "$pp" --zero "$z" \
        --micro-batch "$mb" --accum $((batch / (dp * mb))) --recompute full \
        --attention eager --precision mixed-fp16 "${fw[@]}" "${extra[@]}" --json) ||
        { echo "accuracy: ${scheme} ${billions}B ${gpus}: tplan failed" >&2; exit 1; }
    jq -r --arg id "${scheme}-${billions}B-${gpus}" --arg pub "$published" \
        '"\($id)\t\($pub)\t\(.perf.hw_flops_per_step / .perf.step_time_s / .parallel.gpus / 1e12)\t\(.perf.hw_flops_per_step / .perf.step_time_s_hi / .parallel.gpus / 1e12)\t\(.perf.hw_flops_per_step / .perf.step_time_s_lo / .parallel.gpus / 1e12)"' <<<"$out"
done | if $rows; then cat; else awk -F'\t' '
{ e = ($3 - $2) / $2; a = e < 0 ? -e : e; err[NR] = a; n++; sum += e; if (a > worst) worst = a
  printf "  %-20s published %4d  predicted %6.1f TFLOP/s per GPU  %+6.1f%%\n", $1, $2, $3, e * 100 }
END {
  if (n == 0) exit 1
  for (i = 2; i <= n; i++) { v = err[i]; j = i - 1; while (j > 0 && err[j] > v) { err[j+1] = err[j]; j-- } err[j+1] = v }
  printf "Narayanan et al. 2021 Table 2 rows: %d; median |error| %.1f%%; worst %.1f%%; mean signed error %+.1f%%\n",
         n, ((n % 2) ? err[(n+1)/2] : (err[n/2] + err[n/2+1]) / 2) * 100, worst * 100, sum / n * 100
}'; fi
