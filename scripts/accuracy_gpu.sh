#!/usr/bin/env bash
# Accuracy report (not a test): tplan against the training steps measured
# on a GPU (tests/data/gpu/*.csv, made by tests/data/gpu/measure_torch.py:
# HF transformers models, a plain loop as the Trainer runs it). Each run is
# planned with `tplan calc --framework hf` on its model's config.json.
# Usage: scripts/accuracy_gpu.sh [--rows] [DATA.csv ...] [-- extra calc
# options]. Without --rows it prints per file the median, 90th percentile
# and worst error of the peak memory (the device memory outside the
# allocator plus its reserved peak, against total_bytes), of the allocated
# peak (max_memory_allocated against total_bytes less the allocator's share
# and the context, the BLAS workspaces kept: they come from the allocator),
# and of the step time; how many measured peaks fall inside the memory
# band; and every run that ran out of memory or ran at tplan's largest
# micro-batch, with tplan's verdict. --rows prints "kind, file:run,
# measured, predicted, band low, band high" lines (tab-separated) for
# scripts/accuracy.sh, kind gpu-mem, gpu-alloc or gpu-step.
set -euo pipefail
here=$PWD
cd "$(dirname "$0")/.."
files=()
rows=false
extra=()
. scripts/report_common.sh
while [ $# -gt 0 ]; do
    case $1 in
        --rows) rows=true ;;
        --) shift; extra=("$@"); break ;;
        # a path as the caller gave it, from where they stand
        *) case $1 in /*) files+=("$1") ;; *) files+=("$here/$1") ;; esac ;;
    esac
    shift
done
[ ${#files[@]} -gt 0 ] || files=(tests/data/gpu/h200_torch.csv tests/data/gpu/h200_validate.csv
    tests/data/gpu/h100_validate2.csv)

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# the summary keys runs by file name: two files of one name would pool
dup=$(for f in "${files[@]}"; do basename "$f" .csv; done | sort | uniq -d | head -n 1)
[ -z "$dup" ] || { echo "accuracy: two files named $dup.csv: rename one" >&2; exit 1; }
need="run model_config precision recompute attention seq micro_batch dropout
    lora_rank oom measured_step_time_s measured_peak_bytes alloc_peak_bytes
    gpu_name gpu_total_bytes"
for f in "${files[@]}"; do
    [ -r "$f" ] || { echo "accuracy: cannot read $f" >&2; exit 1; }
    for col in $need; do
        head -n 1 "$f" | tr ',' '\n' | grep -qx "$col" ||
            { echo "accuracy: $f: no $col column (measure_torch.py writes it)" >&2; exit 1; }
    done
    [ "$(tail -n +2 "$f" | grep -c .)" -gt 0 ] || { echo "accuracy: $f: no runs" >&2; exit 1; }
    # the columns by name (h200_torch.csv predates the accum column)
    # empty cells (an OOM run's measurements) become "-": read's tab
    # splitting would merge them
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { for (i = 1; i <= NF; i++) if ($i == "") $i = "-" }
        { printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
            $c["run"], $c["model_config"], $c["precision"], $c["recompute"],
            $c["attention"], $c["seq"], $c["micro_batch"],
            ("accum" in c) ? $c["accum"] : 1, $c["dropout"], $c["lora_rank"],
            $c["oom"], $c["measured_step_time_s"], $c["measured_peak_bytes"],
            $c["alloc_peak_bytes"], $c["gpu_name"], $c["gpu_total_bytes"] }' "$f" |
    while IFS=$'\t' read -r run cfg prec rc attn seq mb accum drop lora oom step peak alloc name total; do
        case $name in
            *GH200*) gpu=gh200 ;; *H200*) gpu=h200 ;; *H100*NVL*) gpu=h100-nvl ;;
            *H100*PCIe*) gpu=h100-pcie ;; *H100*) gpu=h100-sxm ;;
            *) echo "accuracy: $f: $run: GPU '$name' not mapped to the catalog" >&2; exit 1 ;;
        esac
        # a run that ran has its three measurements
        if [ "$oom" != 1 ] && ! awk -v a="$step" -v b="$peak" -v c="$alloc" \
            'BEGIN { exit !(a + 0 > 0 && b + 0 > 0 && c + 0 > 0) }'; then
            echo "accuracy: $f: $run: measured_step_time_s, measured_peak_bytes and alloc_peak_bytes must be above 0 for a run that ran" >&2
            exit 1
        fi
        lo=(); [ "$lora" != 0 ] && lo=(--lora-rank "$lora" --base-precision bf16)
        out=$("$tplan" calc --model-config "$cfg" --gpu "$gpu" --framework hf \
            --precision "$prec" --recompute "$rc" --attention "$attn" --seq "$seq" \
            --micro-batch "$mb" --accum "$accum" --dropout "$drop" "${lo[@]}" \
            "${extra[@]}" --json) || { echo "accuracy: $f: $run: tplan failed" >&2; exit 1; }
        # the catalog's GPU must be the one measured: its memory within 1%
        jq -e --argjson t "$total" '(.memory.capacity_bytes / $t - 1) | fabs < 0.01' \
            <<<"$out" >/dev/null ||
            { echo "accuracy: $f: $run: '$name' has $total bytes, not the memory of catalog GPU $gpu" >&2; exit 1; }
        jq -r --arg f "$(basename "$f" .csv)" --arg run "$run" --arg oom "$oom" \
            --arg step "$step" --arg peak "$peak" --arg alloc "$alloc" '
            .memory as $m | .perf as $p |
            if $oom == "1" then
                ["gpu-oom", "\($f):\($run)", "oom", $m.total_bytes, $m.capacity_bytes, $m.total_bytes_lo, $m.total_bytes_hi]
            else
                ["gpu-mem", "\($f):\($run)", $peak, $m.total_bytes, $m.total_bytes_lo, $m.total_bytes_hi],
                ["gpu-alloc", "\($f):\($run)", $alloc,
                 $m.total_bytes - $m.alloc_bytes - $m.context_bytes + $m.blas_ws_bytes, "", ""],
                ["gpu-step", "\($f):\($run)", $step, $p.step_time_s, $p.step_time_s_lo, $p.step_time_s_hi],
                ["gpu-fit", "\($f):\($run)", "ran", $m.total_bytes, $m.capacity_bytes, $m.total_bytes_lo, $m.total_bytes_hi]
            end | @tsv' <<<"$out"
    done >>"$tmp"
done

if $rows; then
    grep -v '^gpu-oom\|^gpu-fit' "$tmp"
    exit 0
fi
for f in "${files[@]}"; do
    b=$(basename "$f" .csv)
    echo "$b (tplan calc --framework hf; error = predicted / measured - 1)"
    for kind in gpu-mem gpu-alloc gpu-step; do
        awk -F'\t' -v k="$kind" -v b="$b" '
        $1 == k && index($2, b ":") == 1 {
            e = ($4 - $3) / $3; n++; a[n] = e < 0 ? -e : e; id[n] = $2; sum += e
            if ($5 != "") { nb++; if ($3 >= $5 && $3 <= $6) inb++ } }
        END {
            if (n == 0) exit
            w = 1; for (i = 1; i <= n; i++) { s[i] = a[i]; if (a[i] > a[w]) w = i }
            for (i = 2; i <= n; i++) { v = s[i]; j = i - 1; while (j > 0 && s[j] > v) { s[j+1] = s[j]; j-- } s[j+1] = v }
            med = (n % 2) ? s[(n+1)/2] : (s[n/2] + s[n/2+1]) / 2
            q = int(0.9 * n); if (q < 0.9 * n) q++
            name = k == "gpu-mem" ? "peak memory" : k == "gpu-alloc" ? "allocated peak" : "step time"
            printf "  %-15s %3d runs  median %5.1f%%  p90 %5.1f%%  worst %5.1f%%  mean %+5.1f%%  in band %s  worst: %s\n",
                name, n, med * 100, s[q] * 100, a[w] * 100, sum / n * 100,
                nb ? (inb + 0) "/" nb : "-", substr(id[w], length(b) + 2)
        }' "$tmp"
    done
    # the verdicts where it matters, against the whole GPU (no reserve):
    # every run that ran out of memory and every run past 85% of the
    # capacity, with the confidence the band gives (memory.fit_confidence's
    # rule at reserve 0)
    awk -F'\t' -v b="$b" '
        ($1 == "gpu-oom" || ($1 == "gpu-fit" && $4 > 0.85 * $5)) && index($2, b ":") == 1 {
            c = $7 <= $5 ? "yes" : $4 <= $5 ? "likely" : $6 <= $5 ? "unlikely" : "no"
            printf "  %-44s %-4s predicted %6.2f GiB of %6.2f: %s (confidence: %s)\n", substr($2, length(b) + 2),
                $3 == "oom" ? "OOM" : "ran", $4 / 1073741824, $5 / 1073741824,
                $4 <= $5 ? "fits" : "does not fit", c
        }' "$tmp"
done
