#!/usr/bin/env bash
# What the training stack allocates besides the model's tensors
# (docs/MODEL.md section 4.6): the same GPT-2 XL run on 8 A100-40GB under a
# plain PyTorch loop (torch.optim.AdamW's default foreach step), the
# Hugging Face Trainer (DDP keeps a copy of the gradients in its buckets),
# DeepSpeed ZeRO-2 (a 5e8-element reduce bucket) and FSDP as llm-foundry
# runs it. Each framework also counts NCCL's buffers per communicator.
set -euo pipefail
tplan=${TPLAN:-$(dirname "$0")/../build/cli/tplan}
run=(calc --model gpt2-xl --gpu a100-40g --gpus 8 --seq 1024 --micro-batch 4 --recompute full)

for fw in "" hf "deepspeed --zero 2" "fsdp --zero 3"; do
    echo "== ${fw:-no framework (a plain PyTorch loop)} =="
    # shellcheck disable=SC2086
    "$tplan" "${run[@]}" ${fw:+--framework $fw} --json |
        jq -r '.memory | "  total \(.total_bytes / 1073741824 * 100 | round / 100) GiB: context \(.context_bytes / 1048576 | round) MiB, NCCL \(.nccl_bytes / 1048576 | round) MiB on \(.communicators) communicator(s), gradient buckets \(.bucket_bytes / 1048576 | round) MiB, optimizer step temporaries \(.step_temp_bytes / 1048576 | round) MiB (\(.transient_bytes / 1048576 | round) MiB over the activations)"'
done

echo
echo "== a plain PyTorch loop whose foreach step does not fit, and the advice =="
"$tplan" calc --model gpt2-xl --gpu v100-32g --precision fp32 --seq 1024 --recompute full |
    grep -m3 '^warning'
