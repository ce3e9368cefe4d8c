#!/usr/bin/env bash
# Accuracy report (not a test): published frontier training runs (DeepSeek-V3,
# Llama 3 405B, NVIDIA's Megatron-Bridge MoE runs on H100 and B200; see
# tests/data/frontier_runs.tsv and its provenance in tests/data/README.md)
# through `tplan calc --json`, each with the exact flags its row gives. Per
# row: the published figure, tplan's, the relative error
# (predicted - published) / published, and whether tplan says the plan fits;
# a row tplan refuses is printed with tplan's message and left out of the
# summary. The summary: rows predicted and refused, the median |error| (the
# mean of the middle two for an even count), the worst row, and how many of
# the predicted plans fit. docs/accuracy.md ("Frontier runs") keeps the
# figures recorded before any tuning to these rows.
#
# A row's later_flags (flags only a later tplan understands, such as a
# pipeline schedule) are appended to its flags; --recorded leaves them out,
# which reproduces the recorded figures.
# Usage: scripts/accuracy_frontier.sh [--rows] [--recorded] [DATA.tsv]
#        [-- extra calc options for every row]
# --rows prints "id, published, predicted, predicted at the step band's two
# ends" (tab-separated) for the predicted rows, for scripts/accuracy.sh, and
# names the refused rows on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
report=frontier
data=tests/data/frontier_runs.tsv
. scripts/report_common.sh
recorded=false
args=()
while [ $# -gt 0 ]; do
    case $1 in
        --recorded) recorded=true ;;
        --) args+=("$@"); break ;;
        *) args+=("$1") ;;
    esac
    shift
done
report_args --data "${args[@]}"
[ -r "$data" ] || { echo "frontier: cannot read $data" >&2; exit 1; }
[ -x "$tplan" ] || { echo "frontier: no $tplan: build first (scripts/build.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the input columns and the calc flag each must appear as in `flags`
cols=(model gpu gpus tp pp vpp cp ep zero precision seq global_batch micro_batch)
flag_of() { case $1 in global_batch) echo --global-batch ;; micro_batch) echo --micro-batch ;; *) echo "--$1" ;; esac; }

# comments and the header out; empty cells as "-" (read merges tabs)
grep -v '^#' "$data" | tail -n +2 |
    awk -F'\t' -v OFS='\t' '{ for (i = 1; i <= NF; i++) if ($i == "") $i = "-"; print }' >"$tmp/rows"
[ -s "$tmp/rows" ] || { echo "frontier: no rows in $data" >&2; exit 1; }

: >"$tmp/out"
while IFS=$'\t' read -r id _ model gpu gpus tp pp vpp cp ep zero precision seq gb mb pub kind flags later _; do
    declare -A v=([model]=$model [gpu]=$gpu [gpus]=$gpus [tp]=$tp [pp]=$pp [vpp]=$vpp [cp]=$cp
        [ep]=$ep [zero]=$zero [precision]=$precision [seq]=$seq [global_batch]=$gb [micro_batch]=$mb)
    for c in "${cols[@]}"; do
        val=${v[$c]}
        [ "$val" = "-" ] && continue
        [ "$c" = model ] && [ "$val" = custom ] && continue
        case " $flags " in
            *" $(flag_of "$c") $val "*) ;;
            *) echo "frontier: $id: column $c is $val but its flags lack $(flag_of "$c") $val" >&2; exit 1 ;;
        esac
    done
    case $kind in
        gpu_hours) q='.run.gpu_hours' ;;
        mfu) q='.perf.mfu' ;;
        tokens_per_s_per_gpu) q='.perf.tokens_per_s / .parallel.gpus' ;;
        *) echo "frontier: $id: unknown kind '$kind' (gpu_hours, mfu, tokens_per_s_per_gpu)" >&2; exit 1 ;;
    esac
    [[ $pub =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "frontier: $id: published '$pub' is not a number" >&2; exit 1; }
    read -r -a fl <<<"$flags"
    lf=()
    if ! $recorded && [ "$later" != "-" ]; then read -r -a lf <<<"$later"; fi
    if "$tplan" calc "${fl[@]}" "${lf[@]}" "${extra[@]}" --json >"$tmp/calc" 2>"$tmp/err" </dev/null; then
        # the step band scales a throughput or MFU by step/step_hi .. step/step_lo,
        # GPU-hours by step_lo/step .. step_hi/step
        jq -r --arg id "$id" --arg kind "$kind" --arg pub "$pub" "
            ($q) as \$p | .perf as \$t |
            (if \$kind == \"gpu_hours\" then [\$p * \$t.step_time_s_lo / \$t.step_time_s, \$p * \$t.step_time_s_hi / \$t.step_time_s]
             else [\$p * \$t.step_time_s / \$t.step_time_s_hi, \$p * \$t.step_time_s / \$t.step_time_s_lo] end) as \$b |
            [\"ok\", \$id, \$kind, \$pub, \$p, (if .memory.fits then \"yes\" else \"no\" end), \$b[0], \$b[1]] | @tsv" \
            <"$tmp/calc" >>"$tmp/out" || { echo "frontier: $id: cannot read tplan's JSON" >&2; exit 1; }
    else
        printf 'refused\t%s\t%s\t%s\t%s\n' "$id" "$kind" "$pub" "$(head -n1 "$tmp/err" | sed 's/^tplan: //')" >>"$tmp/out"
    fi
    unset v
done <"$tmp/rows"

if $rows; then
    awk -F'\t' -v OFS='\t' '$1 == "ok" { print $2, $4, $5, $7, $8 }' "$tmp/out"
    awk -F'\t' '$1 == "refused" { printf "frontier: %s: refused: %s\n", $2, $5 }' "$tmp/out" >&2
    exit 0
fi
echo "frontier runs ($data)$($recorded && echo ', later_flags left out'):"
awk -F'\t' '
function human(k, x) { return k == "mfu" ? sprintf("%.1f%%", x * 100) : (x >= 1e6 ? sprintf("%.3gM", x / 1e6) : sprintf("%.0f", x)) }
BEGIN { unit["gpu_hours"] = "GPU-hours"; unit["mfu"] = "MFU"; unit["tokens_per_s_per_gpu"] = "tokens/s/GPU"
        printf "  %-30s %-13s %10s %10s %8s  %s\n", "run", "figure", "published", "predicted", "error", "fits" }
$1 == "refused" { nr++; printf "  %-30s %-13s %10s %10s %8s  %s\n", $2, unit[$3], human($3, $4), "-", "-", "refused: " $5; next }
{ e = ($5 - $4) / $4; n++; a[n] = e < 0 ? -e : e; id[n] = $2; if ($6 == "yes") fit++
  printf "  %-30s %-13s %10s %10s %+7.1f%%  %s\n", $2, unit[$3], human($3, $4), human($3, $5), e * 100, $6 }
END {
  if (n == 0) { printf "frontier: %d rows, all refused\n", nr; exit }
  w = 1; for (i = 1; i <= n; i++) { s[i] = a[i]; if (a[i] > a[w]) w = i }
  for (i = 2; i <= n; i++) { x = s[i]; j = i - 1; while (j > 0 && s[j] > x) { s[j+1] = s[j]; j-- } s[j+1] = x }
  med = (n % 2) ? s[(n+1)/2] : (s[n/2] + s[n/2+1]) / 2
  printf "frontier: %d of %d rows predicted (%d refused); median |error| %.1f%%, worst %.1f%% (%s); %d of %d plans fit\n",
         n, n + nr, nr, med * 100, a[w] * 100, id[w], fit, n
}' "$tmp/out"
