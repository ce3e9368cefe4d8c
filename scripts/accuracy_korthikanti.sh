#!/usr/bin/env bash
# Accuracy report (not a test): predict the iteration time of every row of
# Korthikanti et al. 2022 Table 5 (tests/data/korthikanti_table5.tsv):
# GPT models of 22B-1T parameters on 8-512 A100-80GBs with tensor and
# pipeline parallelism, full recomputation, or selective recomputation with
# sequence parallelism. Assumed: eager attention (the paper's Megatron-LM
# has no flash attention), Megatron's activations (--profile megatron).
# Usage: scripts/accuracy_korthikanti.sh [--rows] [-- extra calc options];
# --rows prints "id, published s, predicted s, band low, band high"
# (tab-separated) for scripts/accuracy.sh instead of the report.
set -euo pipefail
cd "$(dirname "$0")/.."
data=tests/data/korthikanti_table5.tsv
. scripts/report_common.sh
report_args "$@"

grep -v '^#' "$data" | tail -n +2 |
while IFS=$'\t' read -r model heads hidden layers tp pp vpp gpus batch mb mode pub; do
    if [ "$mode" = full ]; then rec=(--recompute full); else rec=(--recompute selective --sp); fi
    dp=$((gpus / (tp * pp)))
    out=$("$tplan" calc --layers "$layers" --hidden "$hidden" --heads "$heads" --vocab 51200 \
        --seq 2048 --gpu a100-80g --gpus "$gpus" --tp "$tp" --pp "$pp" --vpp "$vpp" \
        --micro-batch "$mb" --accum $((batch / (dp * mb))) "${rec[@]}" --attention eager \
        --profile megatron --precision mixed-fp16 "${extra[@]}" --json) ||
        { echo "accuracy: $model $mode: tplan failed" >&2; exit 1; }
    jq -r --arg id "$model-$mode" --arg pub "$pub" \
        '"\($id)\t\($pub)\t\(.perf.step_time_s)\t\(.perf.step_time_s_lo)\t\(.perf.step_time_s_hi)"' <<<"$out"
done | if $rows; then cat; else awk -F'\t' '
{ e = ($3 - $2) / $2; a = e < 0 ? -e : e; err[NR] = a; n++; sum += e
  printf "  %-14s published %6.2f s  predicted %7.2f s  %+6.1f%%\n", $1, $2, $3, e * 100 }
END {
  if (n == 0) exit 1
  for (i = 2; i <= n; i++) { v = err[i]; j = i - 1; while (j > 0 && err[j] > v) { err[j+1] = err[j]; j-- } err[j+1] = v }
  printf "Korthikanti et al. 2022 Table 5 rows: %d; median |error| %.1f%%; mean signed error %+.1f%%\n",
         n, ((n % 2) ? err[(n+1)/2] : (err[n/2] + err[n/2+1]) / 2) * 100, sum / n * 100
}'
fi
