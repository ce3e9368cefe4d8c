#!/usr/bin/env bash
# Accuracy report (not a test): every reference comparison in tests/data,
# and the published figures docs/accuracy.md compares with, through the real
# `tplan calc`. Per source it prints the rows, the median, 90th percentile
# and worst relative error |predicted - reference| / reference, and the
# mean signed error (positive: tplan predicts more). CI prints it.
#
# Sources:
#   activations  tests/data/torch_cpu_gpt2.csv: saved tensors of one GPT-2
#                layer measured on CPU PyTorch (the rows torch-cpu covers:
#                CPU dropout; the fused tanh GELU and transformers'
#                gelu_new, --gelu-python), bytes per micro-batch
#   act-llama    tests/data/torch_cpu_llama.csv: the same for HF Llama's
#                eager layer (RMSNorm, rotary, GQA, SwiGLU), every row
#   act-bert     tests/data/torch_cpu_bert.csv: the same for HF BERT's
#                eager layer, the rows with CPU dropout (under bf16
#                autocast tplan is short by 4as^2b: docs/MODEL.md 3.7)
#   llm-foundry  tests/data/throughput_llmfoundry_half.json: tokens/s of
#                MosaicML's published MPT table (scripts/accuracy_llmfoundry.sh)
#   megatron     Narayanan et al. 2021 Table 1: TFLOP/s per GPU
#                (scripts/accuracy_megatron.sh), without a framework and
#                with --framework megatron (fitted to these rows) and
#                megatron-2021 (the era profile, fitted to that paper's
#                rows), each with the attention kernel it was fitted under
#   korthikanti  Korthikanti et al. 2022 Table 5: iteration times
#                (scripts/accuracy_korthikanti.sh), without a framework and
#                with --framework megatron (fitted to them with Table 1)
#   table2       Narayanan et al. 2021 Table 2: DeepSpeed ZeRO-3 and PTD-P
#                rows (scripts/accuracy_table2.sh), without a framework
#                (fsdp, tplan's defaults) and with deepspeed / megatron
#   zero3-2024   tests/data/deepspeed_fsdp_2024.tsv: tokens/s per GPU of
#                DeepSpeed ZeRO-3 and FSDP on one 7B model and 4 A100s,
#                without a framework and under the stack that ran each
#                (deepspeed-2025, fsdp; held out)
#   gpu-*        tests/data/gpu/h200_torch.csv: HF training steps measured
#                on one H200 (scripts/accuracy_gpu.sh, --framework hf): the
#                peak (mem), allocated peak (alloc) and step time (step);
#                the hf/fsdp memory terms were set from these runs
#   gpu-*-ho     tests/data/gpu/h200_validate.csv: the same, held out
#                (tplan's figures recorded before they ran)
#   params       tests/data/hf/totals.tsv: parameter counts of Hugging Face
#                configs against the checkpoints' published totals
#   active       tests/data/hf/active.tsv: MoE active parameters against the
#                vendors' rounded figures
#   deepseek-v3  GPU-hours of DeepSeek-V3's pre-training (arXiv 2412.19437,
#                2,664K H800 GPU-hours) as the report states the run:
#                DualPipe, blockwise fp8, norm and MLA up-projection
#                recomputation, fp8 caching (docs/accuracy.md)
#   frontier     tests/data/frontier_runs.tsv: published frontier runs
#                (DeepSeek-V3, Llama 3 405B, Megatron-Bridge MoE runs on H100
#                and B200; scripts/accuracy_frontier.sh), each row's own
#                figure (GPU-hours, MFU or tokens/s per GPU); rows tplan
#                refuses are named below the table
# Usage: scripts/accuracy.sh [-- extra tplan calc options for every row]
set -euo pipefail
cd "$(dirname "$0")/.."
tplan=${TPLAN:-build/cli/tplan}
# installed (share/tplan/scripts): the tplan in the prefix's bin/
[ -n "${TPLAN:-}" ] || [ -x "$tplan" ] || tplan=../../bin/tplan
export TPLAN=$tplan
[ "${1:-}" = "--" ] && shift
extra=("$@")
command -v jq >/dev/null || { echo "accuracy: needs jq (scripts/setup.sh --test installs it)" >&2; exit 1; }
[ -x "$tplan" ] || { echo "accuracy: no $tplan: build first (scripts/build.sh)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rows=$tmp/rows # source, id, reference, predicted[, band low, band high]

# --- activations: one layer's saved tensors ------------------------------
# columns: style,precision,h,a,s,b,V,tied,ckpt,dropout_p,dropout_impl,gelu,
# n_kv,ffn,layer_bytes,...
tail -n +2 tests/data/torch_cpu_gpt2.csv |
while IFS=, read -r _ prec h a s b v _ ckpt p impl gelu kv ffn layer _; do
    [ "$impl" = torch ] || continue
    gp=()
    case $gelu in tanh) ;; hf_gelu_new) gp=(--gelu-python) ;; *) continue ;; esac
    case $prec in
        fp32) pr=fp32 ;; bf16) pr=amp-bf16 ;; bf16_pure) pr=bf16 ;;
        *) echo "accuracy: activations: unknown precision $prec" >&2; exit 1 ;;
    esac
    r=none; [ "$ckpt" != none ] && r=full
    pred=$("$tplan" calc --layers 1 --hidden "$h" --heads "$a" --kv-heads "$kv" \
        --ffn "$ffn" --vocab "$v" --seq "$s" --dropout "$p" --precision "$pr" \
        --recompute "$r" --profile torch-cpu --attention eager --micro-batch "$b" "${gp[@]}" \
        --gpu h100-sxm "${extra[@]}" --json |
        jq -r --argjson b "$b" '.memory.activations_per_layer_sample_bytes * $b') ||
        { echo "accuracy: activations: tplan failed (h=$h s=$s)" >&2; exit 1; }
    printf 'activations\t%s-%s-h%s-a%s-s%s-b%s-V%s-p%s-%s\t%s\t%s\n' \
        "$prec" "$ckpt" "$h" "$a" "$s" "$b" "$v" "$p" "$gelu" "$layer" "$pred"
done >>"$rows"
# the Llama and BERT files: the same first 23 columns
for style in llama bert; do
    tail -n +2 "tests/data/torch_cpu_$style.csv" |
    while IFS=, read -r _ prec h a s b v _ ckpt p impl _ kv ffn layer _; do
        [ "$impl" = torch ] || continue
        case $prec in
            fp32) pr=fp32 ;; bf16) pr=amp-bf16 ;; bf16_pure) pr=bf16 ;;
            *) echo "accuracy: act-$style: unknown precision $prec" >&2; exit 1 ;;
        esac
        case $style in
            llama) arch=(--mlp swiglu --norm rmsnorm --pos rotary --untied --no-bias) ;;
            bert) arch=(--model bert-base) ;;
        esac
        r=none; [ "$ckpt" != none ] && r=full
        pred=$("$tplan" calc "${arch[@]}" --layers 1 --hidden "$h" --heads "$a" \
            --kv-heads "$kv" --ffn "$ffn" --vocab "$v" --seq "$s" --max-seq "$s" \
            --dropout "$p" --precision "$pr" --recompute "$r" --profile torch-cpu \
            --attention eager --micro-batch "$b" --gpu h100-sxm "${extra[@]}" --json |
            jq -r --argjson b "$b" '.memory.activations_per_layer_sample_bytes * $b') ||
            { echo "accuracy: act-$style: tplan failed (h=$h s=$s)" >&2; exit 1; }
        printf 'act-%s\t%s-%s-h%s-a%s-kv%s-s%s-b%s-p%s\t%s\t%s\n' "$style" \
            "$prec" "$ckpt" "$h" "$a" "$kv" "$s" "$b" "$p" "$layer" "$pred"
    done
done >>"$rows"

# --- throughput -----------------------------------------------------------
scripts/accuracy_llmfoundry.sh --rows -- "${extra[@]}" >"$tmp/foundry"
# the same runs' memory under the stack that ran them (llm-foundry's FSDP)
scripts/accuracy_llmfoundry.sh --rows -- --framework fsdp "${extra[@]}" >"$tmp/foundry_fw"
awk -F'\t' '{ printf "llm-foundry\t%s\t%s\t%s\t%s\t%s\n", $1, $2, $3, $6, $7 }' "$tmp/foundry" >>"$rows"
scripts/accuracy_megatron.sh --rows -- "${extra[@]}" |
    awk -F'\t' '{ printf "megatron\t%s\t%s\t%s\t%s\t%s\n", $1, $2, $3, $4, $5 }' >>"$rows"
scripts/accuracy_megatron.sh --rows -- --framework megatron "${extra[@]}" |
    awk -F'\t' '{ printf "megatron+fw\t%s\t%s\t%s\t%s\t%s\n", $1, $2, $3, $4, $5 }' >>"$rows"
scripts/accuracy_megatron.sh --rows -- --framework megatron-2021 "${extra[@]}" |
    awk -F'\t' '{ printf "megatron-2021\t%s\t%s\t%s\t%s\t%s\n", $1, $2, $3, $4, $5 }' >>"$rows"
scripts/accuracy_korthikanti.sh --rows -- "${extra[@]}" |
    awk -F'\t' '{ printf "korthikanti\t%s\t%s\t%s\t%s\t%s\n", $1, $2, $3, $4, $5 }' >>"$rows"
scripts/accuracy_korthikanti.sh --rows -- --framework megatron "${extra[@]}" |
    awk -F'\t' '{ printf "korthikanti+fw\t%s\t%s\t%s\t%s\t%s\n", $1, $2, $3, $4, $5 }' >>"$rows"
scripts/accuracy_table2.sh --rows -- --framework fsdp "${extra[@]}" |
    awk -F'\t' '{ split($1, k, "-"); printf "table2-%s\t%s\t%s\t%s\t%s\t%s\n", k[1], $1, $2, $3, $4, $5 }' >>"$rows"
scripts/accuracy_table2.sh --rows -- "${extra[@]}" |
    awk -F'\t' '{ split($1, k, "-"); printf "table2-%s+fw\t%s\t%s\t%s\t%s\t%s\n", k[1], $1, $2, $3, $4, $5 }' >>"$rows"
# NVIDIA's published NeMo/Megatron-Bridge fp8 runs on DGX-H100, under the
# megatron framework (not fitted to them: held out) and under nemo (fitted)
scripts/accuracy_nemo.sh --rows -- "${extra[@]}" 2>/dev/null |
    awk -F'\t' '{ printf "nemo-h100\t%s\t%s\t%s\t%s\t%s\n", $1, $2, $3, $4, $5 }' >>"$rows"
scripts/accuracy_nemo.sh --rows -- --framework nemo "${extra[@]}" 2>/dev/null |
    awk -F'\t' '{ printf "nemo-h100+fw\t%s\t%s\t%s\t%s\t%s\n", $1, $2, $3, $4, $5 }' >>"$rows"
# NVIDIA's BERT-large pre-training on DGX-1 V100: FP32 (tplan's fp32
# curve is fitted to these rows) and mixed fp16 (not fitted to them)
scripts/accuracy_bert.sh --rows -- "${extra[@]}" |
    awk -F'\t' '{ printf "%s\t%s\t%s\t%s\t%s\t%s\n", ($1 ~ /-fp32-/ ? "bert-v100-fp32" : "bert-v100-fp16"), $1, $2, $3, $4, $5 }' >>"$rows"
# DeepSpeed ZeRO-3 and FSDP on the same 7B model and 4 A100s (2024): under
# no framework and under the stack that ran each (deepspeed-2025, fsdp;
# held out: neither profile was fitted to them)
grep -v '^#' tests/data/deepspeed_fsdp_2024.tsv |
while IFS=$'\t' read -r run model gpu gpus zero prec mb seq rc stack meas; do
    [ "$stack" = deepspeed ] && stack=deepspeed-2025
    for fw in "" "$stack"; do
        "$tplan" calc --model "$model" --gpu "$gpu" --gpus "$gpus" --zero "$zero" \
            --precision "$prec" --micro-batch "$mb" --seq "$seq" --recompute "$rc" \
            ${fw:+--framework "$fw"} "${extra[@]}" --json |
            jq -r --arg src "zero3-2024${fw:++fw}" --arg run "$run" --arg m "$meas" --argjson g "$gpus" \
                '.perf as $p | ($p.tokens_per_s / $g) as $t |
                 [$src, $run, $m, $t, $t * $p.step_time_s / $p.step_time_s_hi, $t * $p.step_time_s / $p.step_time_s_lo] | @tsv' ||
            { echo "accuracy: zero3-2024: $run: tplan failed" >&2; exit 1; }
    done
done >>"$rows"

# --- measured GPU steps (tests/data/gpu) ------------------------------------
# h200_torch: the runs the hf/fsdp memory terms were set from; h200_validate:
# held out (tplan's figures recorded before they ran)
scripts/accuracy_gpu.sh --rows tests/data/gpu/h200_torch.csv -- "${extra[@]}" >>"$rows"
scripts/accuracy_gpu.sh --rows tests/data/gpu/h200_validate.csv tests/data/gpu/h100_validate2.csv -- "${extra[@]}" |
    awk -F'\t' -v OFS='\t' '{ $1 = $1 "-ho"; print }' >>"$rows"

# --- parameter counts -----------------------------------------------------
while IFS=$'\t' read -r cfg total _; do
    case $cfg in \#* | "") continue ;; esac
    pred=$("$tplan" calc --model-config "tests/data/hf/$cfg" --gpu h100-sxm --json | jq -r '.model.params')
    printf 'params\t%s\t%s\t%s\n' "$cfg" "$total" "$pred"
done <tests/data/hf/totals.tsv >>"$rows"
while IFS=$'\t' read -r cfg active _; do
    case $cfg in \#* | "") continue ;; esac
    pred=$("$tplan" calc --model-config "tests/data/hf/$cfg" --gpu h100-sxm --json | jq -r '.model.active_params')
    printf 'active\t%s\t%s\t%s\n' "$cfg" "$active" "$pred"
done <tests/data/hf/active.tsv >>"$rows"

# --- a whole run ------------------------------------------------------------
pred=$("$tplan" calc --model deepseek-v3 --gpu h800 --gpus 2048 --pp 16 --ep 64 \
    --precision fp8 --zero 1 --global-batch 15360 --micro-batch 1 --tokens 14.8T \
    --profile megatron --fp8-recipe blockwise --pp-schedule dualpipe \
    --recompute-modules layernorm,mla_up_proj --fp8-activations --pp-embed-loss \
    "${extra[@]}" --json | jq -r '.run.gpu_hours')
printf 'deepseek-v3\tpre-training GPU-hours\t2664000\t%s\n' "$pred" >>"$rows"

# --- published frontier runs (held out: recorded before any tuning) --------
scripts/accuracy_frontier.sh --rows -- "${extra[@]}" 2>"$tmp/frontier_refused" |
    awk -F'\t' '{ printf "frontier\t%s\t%s\t%s\t%s\t%s\n", $1, $2, $3, $4, $5 }' >>"$rows" ||
    { cat "$tmp/frontier_refused" >&2; exit 1; }

# --- the report -------------------------------------------------------------
printf '%-16s %5s %9s %9s %9s %9s %7s  %s\n' source rows median p90 worst "mean+-" "in band" "worst row"
for src in activations act-llama act-bert llm-foundry megatron megatron+fw megatron-2021 korthikanti korthikanti+fw table2-zero3 table2-zero3+fw \
    table2-ptdp table2-ptdp+fw nemo-h100 nemo-h100+fw bert-v100-fp32 bert-v100-fp16 \
    zero3-2024 zero3-2024+fw gpu-mem gpu-alloc gpu-step gpu-mem-ho gpu-alloc-ho gpu-step-ho \
    params active deepseek-v3 frontier; do
    awk -F'\t' -v src="$src" '
    $1 == src { e = ($4 - $3) / $3; n++; a[n] = e < 0 ? -e : e; id[n] = $2; sum += e
                if ($5 != "") { nb++; if ($3 >= $5 && $3 <= $6) inb++ } }
    END {
      if (n == 0) { printf "accuracy: no rows for %s\n", src > "/dev/stderr"; exit 1 }
      w = 1; for (i = 1; i <= n; i++) { s[i] = a[i]; if (a[i] > a[w]) w = i }
      for (i = 2; i <= n; i++) { v = s[i]; j = i - 1; while (j > 0 && s[j] > v) { s[j+1] = s[j]; j-- } s[j+1] = v }
      med = (n % 2) ? s[(n+1)/2] : (s[n/2] + s[n/2+1]) / 2
      k = int(0.9 * n); if (k < 0.9 * n) k++     # nearest rank
      band = nb ? sprintf("%d/%d", inb, nb) : "-"
      printf "%-16s %5d %8.2f%% %8.2f%% %8.2f%% %+8.2f%% %7s  %s\n", src, n, med * 100, s[k] * 100, a[w] * 100, sum / n * 100, band, id[w]
    }' "$rows"
done
for f in foundry foundry_fw; do
    awk -F'\t' -v fw="$([ $f = foundry_fw ] && echo ' (--framework fsdp)')" '
    { n++; if ($4 == "true") fit++; if ($5 > 1) over++ }
    END { printf "llm-foundry memory%s: every row ran; tplan fits %d of %d inside its 10%% reserve, %d over capacity\n", fw, fit, n, over }' "$tmp/$f"
done
if [ -s "$tmp/frontier_refused" ]; then
    echo "frontier runs tplan refuses (scripts/accuracy_frontier.sh):"
    sed 's/^frontier: /  /' "$tmp/frontier_refused"
fi
# the fit verdicts at the edge of the measured GPU's memory
echo "measured GPU runs at the edge of memory (scripts/accuracy_gpu.sh):"
scripts/accuracy_gpu.sh -- "${extra[@]}" | grep -E ' (ran|OOM) +predicted' | sort -u
