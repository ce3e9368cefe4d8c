#!/usr/bin/env bash
# Accuracy report (not a test): predict tokens/s for every row of MosaicML
# llm-foundry's published throughput table (the half in
# tests/data/throughput_llmfoundry_half.json) with `tplan calc`, and
# print the median absolute relative error and the five worst rows.
# Usage: scripts/accuracy_llmfoundry.sh [--rows] [DATA.json] [-- extra tplan
# calc options]; --rows prints "id, measured, predicted, fits,
# total/capacity, predicted at the step band's slow and fast ends" lines
# (tab-separated) for scripts/accuracy.sh instead of the report.
# Needs jq. Rows map as: MPT (ALiBi, no biases, LayerNorm, tied, GELU 4h,
# vocab 50368) -> a custom model with no position table; FULL_SHARD ->
# zero 3, SHARD_GRAD_OP -> zero 2; amp_bf16 -> amp-bf16, pure bf16 -> bf16,
# amp_fp8 -> fp8; activation checkpointing -> recompute full; flash
# attention; fused cross-entropy (MPT's default loss_fn, flash-attn's).
set -euo pipefail
cd "$(dirname "$0")/.."
data=tests/data/throughput_llmfoundry_half.json
. scripts/report_common.sh
report_args --data "$@"
[ -r "$data" ] || { echo "accuracy: cannot read $data" >&2; exit 1; }

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
jq -r '.[] | select(.kind == "throughput") | .config as $c | [
    .id, $c.layers_yaml, $c.d_model_yaml, $c.heads_yaml, $c.ffn, $c.vocab,
    $c.seq_len, $c.gpu, $c.GPUs, $c.fsdp_sharding, $c.precision,
    $c.micro_batch, $c.grad_accum, $c.activation_checkpointing,
    .value.tokens_per_s, .value.MFU_pct] | @tsv' "$data" |
while IFS=$'\t' read -r id layers hidden heads ffn vocab seq gpu gpus shard prec mb ga ckpt meas mfu; do
    case $gpu in
        a100_40gb) g=a100-40g ;; a100_80gb) g=a100-80g ;; h100_80gb) g=h100-sxm ;;
        *) echo "accuracy: $id: unknown gpu $gpu" >&2; continue ;;
    esac
    case $prec in
        amp_bf16) p=amp-bf16 ;; bf16) p=bf16 ;; amp_fp8) p=fp8 ;;
        *) echo "accuracy: $id: unknown precision $prec" >&2; continue ;;
    esac
    z=3; [ "$shard" = SHARD_GRAD_OP ] && z=2
    r=none; [ "$ckpt" = true ] && r=full
    out=$("$tplan" calc --layers "$layers" --hidden "$hidden" --heads "$heads" \
        --ffn "$ffn" --vocab "$vocab" --pos rotary --no-bias --norm layernorm --tied \
        --dropout 0 --seq "$seq" --gpu "$g" --gpus "$gpus" --gpus-per-node 8 \
        --zero "$z" --precision "$p" --micro-batch "$mb" --accum "$ga" \
        --recompute "$r" --attention flash --fused-loss "${extra[@]}" --json) ||
        { echo "accuracy: $id: tplan failed" >&2; exit 1; }
    pred=$(jq -r '.perf.tokens_per_s' <<<"$out")
    band=$(jq -r '"\(.perf.tokens_per_s * .perf.step_time_s / .perf.step_time_s_hi)\t\(.perf.tokens_per_s * .perf.step_time_s / .perf.step_time_s_lo)"' <<<"$out")
    fits=$(jq -r '.memory.fits' <<<"$out")
    ratio=$(jq -r '.memory.total_bytes / .memory.capacity_bytes' <<<"$out")
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$meas" "$pred" "$fits" "$ratio" "$band" >>"$tmp"
done

if $rows; then
    cat "$tmp"
    exit 0
fi
awk -F'\t' '
{ e = ($3 - $2) / $2; a = e < 0 ? -e : e; err[NR] = a; line[NR] = $0; sgn[NR] = e
  n++; if ($4 == "true") fit++; r[NR] = $5; if ($5 > 1.0) over++; if ($5 > rmax) rmax = $5 }
END {
  if (n == 0) { print "accuracy: no rows"; exit 1 }
  # median of |error|
  for (i = 1; i <= n; i++) s[i] = err[i]
  for (i = 2; i <= n; i++) { v = s[i]; j = i - 1; while (j > 0 && s[j] > v) { s[j+1] = s[j]; j-- } s[j+1] = v }
  med = (n % 2) ? s[(n+1)/2] : (s[n/2] + s[n/2+1]) / 2
  within = 0; for (i = 1; i <= n; i++) if (err[i] <= 0.15) within++
  bias = 0; for (i = 1; i <= n; i++) bias += sgn[i]
  printf "llm-foundry rows: %d\n", n
  printf "median |error| of tokens/s: %.1f%%\n", med * 100
  printf "rows within 15%%: %d of %d; mean signed error %+.1f%%\n", within, n, bias / n * 100
  for (i = 1; i <= n; i++) q[i] = r[i]
  for (i = 2; i <= n; i++) { v = q[i]; j = i - 1; while (j > 0 && q[j] > v) { q[j+1] = q[j]; j-- } q[j+1] = v }
  printf "memory (every row ran): %d of %d fit inside the 10%% reserve; predicted total/capacity median %.0f%%, max %.0f%%, %d rows over 100%%\n", fit, n, ((n % 2) ? q[(n+1)/2] : (q[n/2] + q[n/2+1]) / 2) * 100, rmax * 100, over + 0
  print "five worst rows:"
  for (k = 1; k <= 5 && k <= n; k++) {
    best = 0
    for (i = 1; i <= n; i++) if (!(i in used) && (best == 0 || err[i] > err[best])) best = i
    used[best] = 1; split(line[best], f, "\t")
    printf "  %-52s measured %9.0f  predicted %9.0f  %+6.1f%%\n", f[1], f[2], f[3], sgn[best] * 100
  }
}' "$tmp"
