#!/usr/bin/env bash
# tplan against the training steps measured on GPUs (tests/data/gpu, made
# by tests/data/gpu/measure_torch.py; docs/MODEL.md section 4.7), through
# scripts/accuracy_gpu.sh. Tolerances, and why:
# - the allocated peak (max_memory_allocated, no allocator share): per
#   file, median error at most 1% and 90th percentile at most 6%. PyTorch's
#   allocations are deterministic for a given version, and tplan counts the
#   covered paths to the byte (medians 0.0-0.2%); 6% covers the backward's
#   end under full recomputation, where a rebuilt layer meets the gradients
#   (worst held-out run 5.9%), and the two fp32 Llama runs (attention path
#   not known, 6-16%) sit above the 90th percentile;
# - every run that ran out of memory is predicted not to fit the GPU, and
#   at most two that ran are predicted over it, each by under 7% (the
#   allocator's median share near capacity, docs/MODEL.md 4.2);
# - the memory band (hf) holds at least 80% of the held-out measured peaks
#   (issue 17's bar; 47 of 57 when written);
# - every held-out run has the figure recorded for it before it ran.
# Usage: test_gpu_data.sh TPLAN DIR
set -u
# shellcheck source=tests/harness.sh
. "$(dirname "$0")/harness.sh"
command -v jq >/dev/null || { bad "jq is not installed"; finish; exit 1; }
root=$(dirname "$dir")
cd "$root" || exit 1
export TPLAN="$tplan"
rows=$tmp/rows
if scripts/accuracy_gpu.sh --rows >"$rows" 2>"$tmp/err"; then ok; else bad "accuracy_gpu.sh --rows: $(cat "$tmp/err")"; fi
full=$tmp/full
if scripts/accuracy_gpu.sh >"$full" 2>"$tmp/err"; then ok; else bad "accuracy_gpu.sh: $(cat "$tmp/err")"; fi

for f in h200_torch h200_validate h100_validate2; do
    read -r n med p90 <<<"$(awk -F'\t' -v f="$f" '
        $1 == "gpu-alloc" && index($2, f ":") == 1 { e = ($4 - $3) / $3; a[++n] = e < 0 ? -e : e }
        END { for (i = 2; i <= n; i++) { v = a[i]; j = i - 1; while (j > 0 && a[j] > v) { a[j+1] = a[j]; j-- } a[j+1] = v }
              k = int(0.9 * n); if (k < 0.9 * n) k++
              printf "%d %.4f %.4f\n", n, (n % 2) ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2, a[k] }' "$rows")"
    if [ "$n" -ge 19 ] && awk -v m="$med" -v p="$p90" 'BEGIN { exit !(m <= 0.01 && p <= 0.06) }'; then ok
    else bad "$f: allocated peak over $n runs: median $med, p90 $p90 (want <= 0.01, <= 0.06)"; fi
done

# the verdicts, against the whole GPU
ooms=$(grep -c ' OOM  predicted' "$full")
ooms_over=$(grep ' OOM  predicted' "$full" | grep -c 'does not fit')
[ "$ooms" -ge 5 ] && [ "$ooms" = "$ooms_over" ] && ok || bad "of $ooms runs out of memory, $ooms_over predicted not to fit"
misses=$(grep ' ran  predicted' "$full" | grep 'does not fit' |
    awk '{ for (i = 1; i <= NF; i++) if ($i == "predicted") { p = $(i+1); c = $(i+4) } ; sub(":", "", c); print p / c }')
nm=$(printf '%s\n' "$misses" | grep -c .)
if [ "$nm" -le 2 ] && printf '%s\n' "$misses" | awk 'NF && $1 >= 1.07 { exit 1 }'; then ok
else bad "runs that ran predicted over the GPU: $(echo $misses) (want at most 2, each under 1.07)"; fi

# the band on the held-out runs
read -r inb nb <<<"$(awk -F'\t' '$1 == "gpu-mem" && $2 !~ /^h200_torch:/ { n++; if ($3 >= $5 && $3 <= $6) k++ } END { print k + 0, n + 0 }' "$rows")"
[ "$nb" -ge 57 ] && [ $((inb * 5)) -ge $((nb * 4)) ] && ok || bad "held-out peaks in the band: $inb of $nb (want >= 80%)"

# each held-out run has its figure recorded before it ran
for pair in h200_validate:h200_validate_predicted h100_validate2:h100_validate2_predicted; do
    csv=tests/data/gpu/${pair%%:*}.csv tsv=tests/data/gpu/${pair##*:}.tsv
    missing=$(tail -n +2 "$csv" | cut -d, -f1 | while read -r run; do
        grep -q "^$run	" "$tsv" || echo "$run"; done)
    [ -z "$missing" ] && ok || bad "$csv: no recorded figure for $missing"
done
finish
