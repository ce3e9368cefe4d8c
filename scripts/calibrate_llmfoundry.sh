#!/usr/bin/env bash
# Calibration check (a report, not a test): split llm-foundry's published
# throughput rows (tests/data/throughput_llmfoundry_half.json) into two
# halves, alternating rows within each GPU type; `tplan calibrate` a
# profile on one half, per GPU type (one cluster, as a user calibrates)
# and over all of them, and predict the other half with and without it.
# Prints the held-out median |error| of tokens/s before and after (the
# median of an even count the mean of the middle two), and the share of
# held-out runs inside the step-time band before and after.
# Usage: scripts/calibrate_llmfoundry.sh [--keep DIR] [--set SET]
# [--base BASE]  (DIR keeps the MEASURED.csv halves and profiles; SET one
# of all, a100-40g, a100-80g, h100-sxm; BASE fsdp or megatron: only those
# rows). Needs jq. The rows map to plans as in
# scripts/accuracy_llmfoundry.sh; the base frameworks are fsdp and megatron.
set -euo pipefail
cd "$(dirname "$0")/.."
data=tests/data/throughput_llmfoundry_half.json
dir=$(mktemp -d)
keep="" only_set="" only_base=""
while [ $# -gt 0 ]; do
    case $1 in
    --keep) keep=${2:?--keep DIR}; mkdir -p "$keep"; shift 2 ;;
    --set) only_set=${2:?--set SET}; shift 2 ;;
    --base) only_base=${2:?--base BASE}; shift 2 ;;
    *) echo "calibrate: unknown option $1" >&2; exit 2 ;;
    esac
done
trap 'rm -rf "$dir"' EXIT
report=calibrate
. scripts/report_common.sh

cols=run,layers,hidden,heads,ffn,vocab,pos,bias,norm,tied,dropout,seq,gpu,gpus,gpus_per_node,zero,precision,micro_batch,accum,recompute,attention,measured_tokens_per_s
jq -r '.[] | select(.kind == "throughput") | .config as $c | [
    .id, $c.layers_yaml, $c.d_model_yaml, $c.heads_yaml, $c.ffn, $c.vocab,
    "rotary", "false", "layernorm", "true", 0, $c.seq_len,
    ({"a100_40gb": "a100-40g", "a100_80gb": "a100-80g", "h100_80gb": "h100-sxm"}[$c.gpu]),
    $c.GPUs, 8, (if $c.fsdp_sharding == "SHARD_GRAD_OP" then 2 else 3 end),
    ({"amp_bf16": "amp-bf16", "bf16": "bf16", "amp_fp8": "fp8"}[$c.precision]),
    $c.micro_batch, $c.grad_accum,
    (if $c.activation_checkpointing then "full" else "none" end), "flash",
    .value.tokens_per_s] | @csv' "$data" | tr -d '"' >"$dir/all.csv"

# alternate rows within each GPU type: even ones fit, odd ones test
awk -F, -v d="$dir" -v h="$cols" '
BEGIN { print h > (d "/fit.csv"); print h > (d "/test.csv") }
{ n[$13]++; f = (n[$13] % 2) ? "/fit.csv" : "/test.csv"; print > (d f)
  g = d "/" $13; if (!(g in seen)) { seen[g] = 1; print h > (g "-fit.csv"); print h > (g "-test.csv") }
  print > (g ((n[$13] % 2) ? "-fit.csv" : "-test.csv")) }' "$dir/all.csv"

# measured and predicted tokens/s of each test row under calc options
# "$@", and the tokens/s at the step band's slow and fast ends
predict() {
    local csv=$1; shift
    tail -n +2 "$csv" | while IFS=, read -r id layers hidden heads ffn vocab pos bias norm tied dropout seq gpu gpus gpn zero prec mb ga rec att meas; do
        p=$("$tplan" calc --layers "$layers" --hidden "$hidden" --heads "$heads" \
            --ffn "$ffn" --vocab "$vocab" --pos "$pos" --no-bias --norm "$norm" --tied \
            --dropout "$dropout" --seq "$seq" --gpu "$gpu" --gpus "$gpus" \
            --gpus-per-node "$gpn" --zero "$zero" --precision "$prec" \
            --micro-batch "$mb" --accum "$ga" --recompute "$rec" --attention "$att" \
            "$@" --json | jq -r '.perf | "\(.tokens_per_s) \(.tokens_per_s * .step_time_s / .step_time_s_hi) \(.tokens_per_s * .step_time_s / .step_time_s_lo)"')
        echo "$meas $p"
    done
}

median_err() {
    awk '{ e = ($2 - $1) / $1; if (e < 0) e = -e; v[NR] = e }
    END { n = NR; for (i = 2; i <= n; i++) { x = v[i]; j = i - 1
            while (j > 0 && v[j] > x) { v[j+1] = v[j]; j-- } v[j+1] = x }
          printf "%.2f", ((n % 2) ? v[(n+1)/2] : (v[n/2] + v[n/2+1]) / 2) * 100 }'
}

# the share of rows whose measured tokens/s lies inside the band, in %
coverage() {
    awk '{ n++; if ($1 >= $3 && $1 <= $4) in_band++ }
    END { printf "%.0f", n ? in_band / n * 100 : 0 }'
}

# From fsdp, whose GPU efficiency constants (engine/hardware.c) were
# fitted to these very rows, and from megatron, fitted to Narayanan et
# al.'s Table 1 instead: a profile that never saw llm-foundry, as a
# user's cluster is to tplan's defaults.
for base in fsdp megatron; do
[ -z "$only_base" ] || [ "$only_base" = "$base" ] || continue
printf '%-10s %5s %5s %14s %14s %8s %13s\n' "fit on" "fit" "test" "before ($base)" "after" "change" "in band b/a"
for set in all a100-40g a100-80g h100-sxm; do
    [ -z "$only_set" ] || [ "$only_set" = "$set" ] || continue
    if [ "$set" = all ]; then fit=$dir/fit.csv test=$dir/test.csv
    else fit=$dir/$set-fit.csv test=$dir/$set-test.csv; fi
    [ -f "$fit" ] || continue
    nf=$(($(wc -l <"$fit") - 1)) nt=$(($(wc -l <"$test") - 1))
    "$tplan" calibrate "$fit" --framework "$base" --name "cal-$set" -o "$dir/prof-$base.csv" >"$dir/$set-$base.log"
    predict "$test" --framework "$base" >"$dir/$set-$base-before.txt"
    predict "$test" --framework-file "$dir/prof-$base.csv" --framework "cal-$set" >"$dir/$set-$base-after.txt"
    before=$(median_err <"$dir/$set-$base-before.txt")
    after=$(median_err <"$dir/$set-$base-after.txt")
    printf '%-10s %5d %5d %13s%% %13s%% %+7.0f%% %5s%% %5s%%\n' "$set" "$nf" "$nt" "$before" "$after" \
        "$(awk -v b="$before" -v a="$after" 'BEGIN { print (a - b) / b * 100 }')" \
        "$(coverage <"$dir/$set-$base-before.txt")" "$(coverage <"$dir/$set-$base-after.txt")"
done
done
if [ -n "$keep" ]; then cp "$dir"/*.csv "$dir"/*.log "$keep"/; fi
