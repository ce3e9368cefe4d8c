#!/usr/bin/env bash
# Accuracy report (not a test): predict the tokens/s per GPU of NVIDIA's
# published NeMo / Megatron-Bridge pre-training runs on DGX-H100
# (tests/data/nemo_h100_pretrain.tsv: dense models, bf16 and fp8, with the
# page each row comes from) under `--framework megatron` (`-- --framework
# nemo` for the profile fitted to them). The tables give
# the layout (GPUs, TP, PP, CP, VP), micro- and global batch and sequence;
# what they leave out is assumed: sequence parallelism with TP > 1 (the
# NeMo recipes' default), no recomputation, flash (fused) attention;
# Llama 3.1 405B's pipeline split counts the embedding and the loss as
# layers (--pp-embed-loss).
# Usage: scripts/accuracy_nemo.sh [--rows] [DATA.tsv] [-- extra calc
# options]; --rows prints "id, published, predicted, predicted at the step
# band's slow and fast ends" (tab-separated) for scripts/accuracy.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
data=tests/data/nemo_h100_pretrain.tsv
. scripts/report_common.sh
report_args --data "$@"
[ -r "$data" ] || { echo "accuracy: cannot read $data" >&2; exit 1; }
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

# The table's model names as tplan's presets (others are skipped, named).
preset() {
    case $(tr 'A-Z' 'a-z' <<<"$1" | tr -d ' _-') in
        llama38b | llama3.18b | llama318b) echo llama3-8b ;;
        llama370b | llama3.170b | llama3170b) echo llama3-70b ;;
        llama3405b | llama3.1405b | llama31405b) echo llama3.1-405b ;;
        gpt3175b | gpt175b) echo gpt3-175b ;;
        *) echo "" ;;
    esac
}

# empty cells as "-" (read would merge consecutive tabs); "n/a" the same
tail -n +2 "$data" | awk -F'\t' -v OFS='\t' '{ for (i = 1; i <= NF; i++) if ($i == "" || $i == "n/a") $i = "-"; print }' |
while IFS=$'\t' read -r release model gpus gbs mbs seq tp pp cp vp prec tps tflops url; do
    m=$(preset "$model")
    if [ -z "$m" ]; then echo "accuracy: $model: no preset, skipped" >&2; continue; fi
    case $prec in
        bf16*) p=mixed-bf16 ;;
        fp8*) p=fp8 ;;
        *) echo "accuracy: $model $release: precision not stated, skipped" >&2; continue ;;
    esac
    sp=()
    [ "$tp" != "-" ] && [ "$tp" -gt 1 ] && sp=(--sp)
    # Megatron-Bridge's Llama 3.1 405B recipes count the embedding and the
    # loss as pipeline layers (llama3.py: account_for_embedding_ and
    # account_for_loss_in_pipeline_split True): 126 + 2 layers over PP x VP
    [ "$m" = llama3.1-405b ] && sp+=(--pp-embed-loss)
    vpp=$vp cpv=$cp
    [ "$vpp" = "-" ] && vpp=1
    [ "$cpv" = "-" ] && cpv=1
    id="${model// /}-${gpus}x-${prec%% *}-${release}"
    out=$("$tplan" calc --model "$m" --gpu h100-sxm --gpus "$gpus" --tp "${tp:-1}" \
        --pp "${pp:-1}" --cp "$cpv" --vpp "$vpp" "${sp[@]}" --seq "$seq" \
        --micro-batch "$mbs" --global-batch "$gbs" --precision "$p" \
        --recompute none --attention flash --framework megatron "${extra[@]}" \
        --json 2>"$tmp") || { echo "accuracy: $id: skipped: $(cat "$tmp")" >&2; continue; }
    jq -r --arg id "$id" --arg pub "$tps" \
        '"\($id)\t\($pub)\t\(.perf.tokens_per_s / .parallel.gpus)\t\(.perf.tokens_per_s * .perf.step_time_s / .perf.step_time_s_hi / .parallel.gpus)\t\(.perf.tokens_per_s * .perf.step_time_s / .perf.step_time_s_lo / .parallel.gpus)"' <<<"$out"
done | if $rows; then cat; else awk -F'\t' '
{ e = ($3 - $2) / $2; a = e < 0 ? -e : e; err[NR] = a; n++; sum += e
  kind = ($1 ~ /-fp8-/) ? "fp8" : "bf16"; ks[kind] += e; kn[kind]++
  printf "  %-40s published %7.0f  predicted %8.0f tokens/s per GPU  %+6.1f%%\n", $1, $2, $3, e * 100 }
END {
  if (n == 0) { print "accuracy: no rows" > "/dev/stderr"; exit 1 }
  for (i = 2; i <= n; i++) { v = err[i]; j = i - 1; while (j > 0 && err[j] > v) { err[j+1] = err[j]; j-- } err[j+1] = v }
  printf "NeMo DGX-H100 rows: %d; median |error| %.1f%%; mean signed error %+.1f%%", n,
         ((n % 2) ? err[(n+1)/2] : (err[n/2] + err[n/2+1]) / 2) * 100, sum / n * 100
  for (k in kn) printf "; %s mean %+.1f%% (%d)", k, ks[k] / kn[k] * 100, kn[k]
  printf "\n"
}'
fi
