/* The built-in framework profiles and the building of custom ones. Each
 * value's source is beside it; docs/MODEL.md section 14 has the fits. */
#include "framework.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "fields.h"
#include "names.h"

/* A built-in: its fields as tplan calc reads them. */
typedef struct builtin {
    const char *name;
    const char *source;
    const char *set[TPLAN_FRAMEWORK_MAX_SETTINGS][2];
} builtin;

/* Memory terms every built-in shares. NCCL: 688 MB per communicator of
 * more than two GPUs, measured on 4 A100s with NVLink after a 4 MB
 * all-reduce in each group (NVIDIA/nccl#964; 544 MB for groups of two,
 * counted at the same figure), read as MiB (nvidia-smi's unit). */
#define NCCL_MIB "688"
/* An expert-parallel all-to-all connects every peer of the expert group
 * over P2P with up to 32 channels per pair: NCCL's own memory on each of
 * 8 H100s in one node went from 1.06 to 4.34 GB at the first
 * all_to_all_single (NVIDIA/nccl#1685, PyTorch's memory excluded):
 * 3.28 GB over 7 peers, read as GiB as nccl#964's MB are read as MiB,
 * 480 MiB per peer in the node (memory.c counts those only). For
 * Megatron's alltoall token dispatcher; its allgather dispatcher opens
 * no P2P connections and DeepEP's keeps NVSHMEM buffers instead. */
#define NCCL_A2A_MIB "480"
/* NVLink SHARP (NVLS) on NVSwitch systems (memory.c): NCCL allocates
 * nChannels x 2 x buffSize per head, a head per GPU of the communicator in
 * the node (up to 32), with buffSize = NVLS_CHUNKSIZE 128 KiB x NCCL_STEPS
 * 8 = 1 MiB (NVIDIA/nccl src/transport/nvls.cc: nvlsPerRankSize =
 * nChannels * 2 * buffSize, nvlsTotalSize = nvlsPerRankSize * nHeads;
 * device.h NCCL_STEPS 8): 2 MiB per channel and head, 256 MiB for 16
 * channels over 8 H100s. That is NCCL 2.22 and later (PyTorch 2.7 ships
 * 2.26). 2.18-2.21 took 4 MiB buffers plus 2 MiB per channel and head
 * over the communicator's channels: a log on 8 H200s shows 24 channels,
 * 288 MiB per head, 2.25 GiB per GPU (vllm-project/vllm#9699:
 * nvlsPerRankSize 301989888, nvlsTotalSize 2415919104). */
#define NCCL_NVLS_MIB "2"
/* The CUDA context of a stack on CUDA 11.7 or later, which loads kernels
 * lazily (PyTorch sets CUDA_MODULE_LOADING=LAZY from 1.13, pytorch PR
 * #86509: 287 MB lazy against 667 MB eager). Right after start-up that
 * is 300-430 MB (pytorch#107667, #109888; 426 MiB with torch 2.10 and
 * CUDA 13.0, unslothai/unsloth-zoo PR #1053), but a training step loads
 * more (cuBLAS, attention, optimizer kernels): measured after the steps
 * of 97 runs on an H200 with torch 2.11 and CUDA 13.0, the device memory
 * outside the caching allocator is 767-783 MiB, median 777
 * (tests/data/gpu/h200_torch.csv, nonalloc_bytes; 685 MiB after the
 * first matmul; 767-773 MiB on the held-out runs, on the H200 and on an
 * H100, h200_validate.csv and h100_validate2.csv). PyTorch's two cuBLAS
 * workspaces come from the caching allocator and are added by GPU family
 * (blas_ws, hardware.c and memory.c: 2 x 32 MiB on Hopper, 841 in all
 * there), NCCL apart (nccl_mib). */
#define CONTEXT_MIB "777"

/* tplan's time defaults, fitted to llm-foundry's FSDP runs, and their band
 * (config.c: the 10th and 90th percentiles of the error over them) */
#define FSDP_TIME                                                            \
    {"eff_scale", "1"}, {"dp_bw_eff", "1"}, {"zero3_bw_eff", "1"},           \
        {"time_band_lo", "0.0757"}, {"time_band_hi", "0.0889"}, FSDP_ERA
/* The era of that fit (issue 34): llm-foundry's rows are laid out with
 * flash attention (scripts/accuracy_llmfoundry.sh --attention flash,
 * scripts/calibrate_efficiency.py the same), so the fit holds flash's
 * attention efficiency; eager under these terms is warned about. Its fp8
 * is llm-foundry's H100 amp_fp8 rows (Transformer Engine, 2023-24): the
 * H100 family's fp8_ratio 0.65 fitted with the rest of the family
 * (docs/MODEL.md section 8.2), not the 2024-26 NeMo stacks' ratios that
 * fp8_recipe now picks without a framework (hardware.c). */
#define FSDP_ERA {"fit_attention", "flash"}, {"fp8_ratio", "0.65"}
/* What a current stack (CUDA 12, lazy loading) allocates besides the
 * model's tensors: NCCL's buffers, the CUDA context and the BLAS
 * workspace (above) */
#define CURRENT_STACK_MEMORY                                                 \
    {"nccl_mib", NCCL_MIB}, {"nccl_a2a_mib", NCCL_A2A_MIB},                  \
        {"nccl_nvls_mib", NCCL_NVLS_MIB}, {"context_mib", CONTEXT_MIB},      \
        {"blas_ws", "true"}

/* DeepSpeed's memory estimators size host memory for offloading at 1.5x
 * the offloaded bytes, an allowance for pinned buffers
 * (deepspeed/runtime/zero/stage3.py estimate_zero3_model_states_mem_needs
 * and stage_1_and_2.py estimate_zero2_model_states_mem_needs:
 * additional_buffer_factor=1.5 on cpu_mem; DeepSpeed edaa722, 2026-08) */
#define HOST_BUFFERS {"host_buffer_factor", "1.5"}

static const builtin builtins[] = {
    /* tplan's time defaults are fitted to llm-foundry's FSDP runs
     * (scripts/calibrate_efficiency.py on
     * tests/data/throughput_llmfoundry_half.json), which compute the loss
     * fused: MPT's default loss_fn is flash-attn's fused cross-entropy
     * (llm-foundry modeling_mpt.py: ComposerMPTCausalLM loss_fn="fused_crossentropy")
     * (scripts/accuracy_llmfoundry.sh runs them with --fused-loss). */
    {"fsdp",
     "PyTorch FSDP as llm-foundry runs it: tplan's time defaults, fitted "
     "to llm-foundry's published FSDP throughput, and its fused loss",
     {{"profile", "torch"},
      {"fused_loss", "true"},
      FSDP_TIME,
      CURRENT_STACK_MEMORY,
      /* the loop frees the gradients: torch's zero_grad(set_to_none=True),
       * its default from 2.0 (torch.optim.Optimizer.zero_grad) */
      {"set_to_none", "true"},
      /* No allocator share: llm-foundry's published FSDP runs all ran,
       * and with hf's 0.103 six of the 108 would not fit their GPUs
       * (up to 113%; one at 103% with none). Near its capacity the
       * caching allocator frees what it caches and retries before it
       * fails, so a run there holds less than the median share (on the
       * H200, 3.7% for Qwen3-0.6B at 139.7 of 139.8 GiB). */
      /* composer's FSDPConfig (llm-foundry's trainer) defaults to
       * backward_prefetch 'BACKWARD_POST', "only holding the next set of
       * parameters and current set of gradients" (torch FSDP docs): the
       * default 2 sets. torch's own default, BACKWARD_PRE, holds 3. */
      {"gather_sets", "2"},
      /* composer's DecoupledAdamW (llm-foundry's decoupled_adamw) steps
       * one tensor at a time (composer/optim/decoupled_weight_decay.py:
       * denom = exp_avg_sq.sqrt() ... per parameter): no list of
       * temporaries */
      {"optim_temp", "0"}}},
    /* transformers' ForCausalLMLoss (loss/loss_utils.py) upcasts the
     * logits with logits.float() before cross_entropy: an unfused loss
     * holding fp32 logits and their log-softmax. */
    {"hf",
     "Hugging Face Trainer/accelerate: fsdp's values, but the unfused "
     "fp32 loss of transformers' ForCausalLMLoss (logits.float())",
     {{"profile", "torch"},
      {"fused_loss", "false"},
      /* no runs of its own: FSDP's band */
      FSDP_TIME,
      CURRENT_STACK_MEMORY,
      /* the Trainer calls model.zero_grad() (set_to_none by default) */
      {"set_to_none", "true"},
      /* PyTorch's caching allocator with its default settings, measured
       * on one H200 (torch 2.11, transformers 5.17;
       * tests/data/gpu/h200_torch.csv, measure_torch.py there): reserved
       * beyond allocated at the peak, max_memory_reserved /
       * max_memory_allocated - 1, median 0.103 over 97 runs (10th
       * percentile 0.034, 90th 0.244; GPT-2 0.130, Llama-3.2-1B 0.087).
       * Those runs' measured peak (the memory outside the allocator plus
       * the reserved peak) against tplan's total with these terms,
       * measured / predicted - 1 over all 97: 10th percentile -0.0608,
       * 90th +0.1181, the band (docs/MODEL.md 4.2, 4.7, 14.4). */
      {"alloc_frac", "0.103"},
      {"mem_band_lo", "0.0608"},
      {"mem_band_hi", "0.1181"},
      /* accelerate's DistributedDataParallelKwargs has
       * gradient_as_bucket_view = False and the Trainer does not set it:
       * DDP's buckets hold a copy of the gradients */
      {"grad_bucket_copy", "true"},
      /* transformers' TrainingArguments: default_optim is
       * "adamw_torch_fused" from torch 2.8 (foreach "adamw_torch"
       * before: set optim_temp 1 for older stacks) */
      {"optim_temp", "0"}}},
    /* Korthikanti et al. 2022's activation accounting. eff_scale and
     * eff_tok0 fitted together by least squares on the relative error of
     * the 24 published Megatron-LM runs on A100s tplan lays out:
     * Narayanan et al. 2021 Table 1 (10 GPT runs, 32-3072 GPUs; micro-
     * batch 1 assumed, scripts/accuracy_megatron.sh) and Table 2's six
     * PTD-P rows (scripts/accuracy_table2.sh), Korthikanti et al. 2022
     * Table 5 (8 runs, 8-512 GPUs, micro-batch 4 and 1,
     * tests/data/korthikanti_table5.tsv, scripts/accuracy_korthikanti.sh),
     * with data-parallel traffic not overlapped (below); the error of each
     * paper's own figure (TFLOP/s per GPU, iteration time), over eff_tok0
     * 0/64/128/256/384/512/768 and eff_scale 0.90-1.20 by 0.01: rms
     * 5.01% (0, 0.92), 5.03% (64, 0.95), 5.09% (128), 5.34% (256),
     * 6.07% (512, the A100's own, 1.12). The micro-batch term: Korthikanti's
     * 22B at micro-batch 4 runs at the TFLOP/s per GPU of Narayanan's
     * 18.4B (same width, t = 8) where the A100 curve's eff_tok0 512
     * (fitted to FSDP runs) made it 15% faster; 0-64 fit alike, 64 is
     * kept so that micro-batches of a few hundred tokens still lose
     * efficiency (an assumption, no row has one). Before (eff_scale 1.11
     * fitted to Table 1 alone): Table 5 held out, median 8.5%, worst
     * 12.9% (the 22B rows 12% fast, 1T 10-12% slow); over the 24 rows
     * rms 6.08% -> 5.03%, median 4.3% -> 4.5%, worst 12.9% -> 10.0% (1T
     * selective, slow). */
    {"megatron",
     "Megatron-LM/NeMo: Korthikanti et al. 2022 activations; compute "
     "efficiency fitted to Narayanan et al. 2021 and Korthikanti et al. "
     "2022",
     {{"profile", "megatron"},
      {"eff_scale", "0.95"},
      {"eff_tok0", "64"},
      /* Megatron-LM's DistributedDataParallelConfig: overlap_grad_reduce
       * and overlap_param_gather default to False (megatron/core/
       * distributed/distributed_data_parallel_config.py); PTD-P (2021)
       * all-reduced after the pipeline flush */
      {"overlap", "0"},
      {"dp_bw_eff", "1"},
      {"zero3_bw_eff", "1"},
      /* its era (issue 34): the 24 rows ran Megatron-LM's unfused
       * attention (2021-22, before FlashAttention; Korthikanti et al.
       * 2022 section 5 recompute its softmax), laid out --attention eager
       * (scripts/accuracy_megatron.sh, accuracy_korthikanti.sh,
       * accuracy_table2.sh): eager is its default, flash is warned about
       * (flash's speed-up would stack on the fit: Table 1 at a median
       * of 10.7% under flash, 4.6% eager, 2026-11-28) */
      {"fit_attention", "eager"},
      /* the 24 rows: predicted over published TFLOP/s less 1, 10th and
       * 90th percentile (nearest rank, 3 and 22 of 24: -0.06838,
       * +0.061003), rounded outwards */
      {"time_band_lo", "0.0684"},
      {"time_band_hi", "0.0611"},
      CURRENT_STACK_MEMORY,
      /* Megatron-LM steps with Transformer Engine's or Apex's
       * FusedAdam (megatron/core/optimizer) and normalises with their
       * fused kernels */
      {"optim_temp", "0"},
      {"fused_norm", "true"}}},
    /* Megatron-LM as Narayanan et al. 2021 ran it (issue 34): the 2021
     * kernels, unfused attention (before FlashAttention), a 2021 CUDA
     * stack. eff_scale and eff_tok0 fitted by least squares on the
     * relative error of that paper's 16 Megatron rows, Table 1 (10) and
     * Table 2's PTD-P rows (6), laid out eager, over eff_tok0 64
     * (eff_scale 0.90-1.05) and 512, the A100's (1.00-1.20), by 0.01
     * (scripts/fit_era.sh): 1.10 at 512, rms 3.67%, median 3.45%, worst
     * 7.40% (64's best, 0.93: rms 4.46%). Korthikanti et al. 2022's rows
     * are megatron's (above), not this era's. */
    {"megatron-2021",
     "Megatron-LM as Narayanan et al. 2021 measured it: unfused (eager) "
     "attention, efficiency fitted to that paper's Table 1 and PTD-P rows",
     {{"profile", "megatron"},
      {"eff_scale", "1.10"},
      {"eff_tok0", "512"},
      {"fit_attention", "eager"},
      /* PTD-P all-reduced after the pipeline flush (as megatron) */
      {"overlap", "0"},
      {"dp_bw_eff", "1"},
      {"zero3_bw_eff", "1"},
      /* the 16 rows: predicted over published less 1, 10th and 90th
       * percentile (nearest rank, 2 and 15 of 16: -0.048122, +0.041379;
       * smallest and largest -0.073954, +0.055524), rounded outwards */
      {"time_band_lo", "0.0482"},
      {"time_band_hi", "0.0414"},
      /* a 2021 stack (as deepspeed): tplan's default 1000 MiB context
       * (before CUDA 11.7's lazy loading) and no NVLS buffers */
      {"nccl_mib", NCCL_MIB},
      {"optim_temp", "0"},
      {"fused_norm", "true"}}},
    /* NVIDIA's NeMo / Megatron-Bridge performance recipes: Megatron-LM
     * with Transformer Engine's TP communication overlap (userbuffers;
     * Megatron-Bridge scripts/performance/configs/llama/
     * llama3_llm_pretrain.py, llama3_70b_pretrain_config_h100 sets
     * comm_overlap.tp_comm_overlap_cfg) and newer fp8 kernels. tp_overlap
     * 1 (up to the compute: an assumption, the overlap is built to hide
     * it all); fp8_ratio fitted by least squares on the relative error of
     * the 11 published DGX-H100 fp8 rows tplan can lay out
     * (tests/data/nemo_h100_pretrain.tsv, scripts/accuracy_nemo.sh) over
     * 0.92-0.97 by 0.01: 0.94, rms 5.7%, median 3.2%, with eff_scale
     * 1.11 and the GPU's eff_tok0 (megatron's values before Korthikanti
     * et al.'s rows joined its fit; kept: fp8_ratio, at most 1, was
     * fitted with them, and these 2024-26 stacks run faster than the
     * 2021-22 ones). megatron's values predict the rows 27-40% slow. In
     * sample, fp8 only: no bf16 row of the same runs is published; its
     * bf16 figures are unchecked. */
    {"nemo",
     "NeMo/Megatron-Bridge performance recipes: megatron with TP "
     "communication overlapped and fp8 efficiency fitted to NVIDIA's "
     "published DGX-H100 fp8 runs",
     {{"profile", "megatron"},
      {"eff_scale", "1.11"},
      {"overlap", "0"},
      {"tp_overlap", "1"},
      /* fp8_ratio: the recipe's (hardware.c FP8_HOPPER_TENSOR, the 0.94
       * fitted here, now per recipe); its rows ran flash attention
       * (scripts/accuracy_nemo.sh --attention flash; Transformer Engine's
       * fused attention) */
      {"fit_attention", "flash"},
      /* every published row tplan lays out, the four Llama 3.1 405B
       * rows held out of the fp8_ratio fit included (they need
       * pp_embed_loss): predicted over published tokens/s less 1, 10th
       * and 90th percentile (nearest rank, 2 and 14 of 15: -0.046382,
       * +0.118229), rounded outwards. From the 11 fitted rows alone it
       * was -4.64% .. +6.12%, which held 1 of the 405B rows. */
      {"time_band_lo", "0.0464"},
      {"time_band_hi", "0.1183"},
      CURRENT_STACK_MEMORY,
      {"optim_temp", "0"},
      {"fused_norm", "true"}}},
    /* Narayanan et al. 2021 Table 2: DeepSpeed ZeRO-3 without model
     * parallelism, GPT 175B (batch 1536) on 384/768/1536 A100s at
     * 144/88/44 TFLOP/s per GPU and 530B (batch 2560/2240) on
     * 640/1120/2240 at 138/98/48. The step time stops falling past 768
     * GPUs (66.7 s for 175B, 180 s for 530B): the ZeRO-3 traffic per GPU,
     * the same at any GPU count, bounds it. Fitted by least squares on
     * the six rows' relative error over a grid (eff_scale 0.70-0.82 by
     * 0.01, zero3_bw_eff 0.076-0.094 by 0.002; scripts/accuracy_table2.sh
     * --rows): 0.75 and 0.086, every row within 6.4%. The
     * only published DeepSpeed ZeRO-3 scaling measurement found; newer
     * DeepSpeed releases may do better: calibrate. */
    {"deepspeed",
     "DeepSpeed ZeRO as Narayanan et al. 2021 Table 2 measured it (2021): "
     "ZeRO-3 gathers at a tenth of NCCL's bus bandwidth",
     {{"profile", "torch"},
      {"eff_scale", "0.75"},
      {"dp_bw_eff", "1"},
      {"zero3_bw_eff", "0.086"},
      /* Table 2's runs laid out with eager attention (2021:
       * scripts/accuracy_table2.sh --attention eager) */
      {"fit_attention", "eager"},
      /* the six rows' smallest and largest error (-0.06430, +0.05324),
       * rounded outwards */
      {"time_band_lo", "0.0643"},
      {"time_band_hi", "0.0533"},
      {"nccl_mib", NCCL_MIB},
      {"nccl_a2a_mib", NCCL_A2A_MIB},
      /* a 2021 stack, before CUDA 11.7's lazy loading: a context over
       * 1000 MB (pytorch#107667), tplan's default 1000 MiB; and no NVLS
       * buffers (nccl_nvls_mib 0), which need CUDA 12.1's multicast
       * (NCCL src/transport/nvls.cc) */
      /* ZeRO-1/2's reduce bucket, reduce_bucket_size = 5e8 elements
       * (deepspeed/runtime/zero/config.py), allocated whole
       * (stage_1_and_2.py) */
      {"reduce_bucket", "5e8"},
      /* overlap_comm is on for ZeRO-3 only (deepspeed/runtime/zero/
       * config.py: overlap_comm = stage == ZeroStageEnum.weights): ZeRO
       * 0-2 reduce their gradients in the open */
      {"zero12_overlap", "0"},
      /* DeepSpeed's FusedAdam: no list of temporaries */
      {"optim_temp", "0"},
      HOST_BUFFERS}},
    /* DeepSpeed since 2023 runs ZeRO-3 at FSDP's pace: measured on the same
     * model and GPUs, granite-7b-base (Llama-2 7B's shape) on 4 A100s
     * gave 3094.5 tokens/s per device against FSDP's 3158.7 (0.98x;
     * huggingface/blog deepspeed-to-fsdp-and-back.md, 2024-06), Falcon-7B
     * on 8 A100-40GBs 2.86 s a step against 2.93 s (1.02x;
     * deepspeedai/DeepSpeed#3901, 2023-07), Llama-3-70B on 32 H100s 1.05-
     * 1.08x FSDP over micro-batches 1-4 and sequences 512-2048 (read from
     * the charts of deepspeedai/DeepSpeedExamples benchmarks/deepcompile,
     * 2025-04). Nothing like the 2021 collapse (deepspeed above): FSDP's
     * time constants, and its band (no runs of its own to fit one). Held
     * out: the granite row, 3094.5 measured, 3285 predicted (+6.2%,
     * inside the band; docs/MODEL.md section 14). Through accelerate or
     * the Trainer, with transformers' unfused loss. */
    {"deepspeed-2025",
     "DeepSpeed ZeRO as 2023-2025 comparisons measured it: ZeRO-3 at "
     "FSDP's pace (0.98-1.08x), transformers' unfused loss",
     {{"profile", "torch"},
      {"fused_loss", "false"},
      FSDP_TIME,
      CURRENT_STACK_MEMORY,
      /* as deepspeed above: the reduce bucket, overlap_comm for ZeRO-3
       * only, FusedAdam */
      {"reduce_bucket", "5e8"},
      {"zero12_overlap", "0"},
      {"optim_temp", "0"},
      HOST_BUFFERS}},
};

enum { N_BUILTIN = sizeof builtins / sizeof builtins[0] };

/* What a framework may set: how the stack saves activations, computes
 * the loss, keeps gradients and runs its kernels and collectives, and how
 * well tplan knows it. Not the job (budget, batch, learning rate,
 * parallelism): those are the plan's, and flags that go in pairs with
 * them would be checked against a value the user did not give. */
static const char *const terms[] = {
    "profile",   "fused_loss", "fp32_grads",   "overlap",      "efficiency",
    "eff_max",   "eff_h0",     "eff_tok0",     "attn_eff",     "fp8_ratio",
    "eff_tp",    "eff_scale",  "dp_bw_eff",    "zero3_bw_eff", "time_band_lo",
    "time_band_hi", "context_mib", "reserve", "alloc_frac", "mem_band_lo",
    "mem_band_hi", "calib_params_min", "calib_params_max", "calib_gpus_min",
    "calib_gpus_max", "calib_seq_min", "calib_seq_max", "nccl_mib",
    "grad_bucket_copy", "reduce_bucket", "optim_temp", "gather_sets",
    "fused_norm", "zero12_overlap", "tp_overlap", "nccl_a2a_mib",
    "nccl_nvls_mib", "blas_ws", "set_to_none",
    /* a calibration's left-out error (issue 34, item 6) */
    "calib_time_err", "calib_mem_err",
    /* era terms (issue 34) */
    "fit_attention",
    /* DeepSpeed's pinned-buffer allowance (issue 37, item 6) */
    "host_buffer_factor", NULL};

int tplan_framework_count(void)
{
    return N_BUILTIN;
}

const char *tplan_framework_name_at(int i)
{
    return i >= 0 && i < N_BUILTIN ? builtins[i].name : NULL;
}

int tplan_framework_init(tplan_framework *f, const char *name,
                         tplan_err *err)
{
    size_t n = strlen(name);

    memset(f, 0, sizeof *f);
    if (n == 0 || n >= sizeof f->name)
        return tplan_err_set(err, TPLAN_EINVAL, "framework",
                             "framework: '%.64s': a name of 1 to %d bytes",
                             name, (int)sizeof f->name - 1);
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)name[i]) && !strchr("-_.", name[i]))
            return tplan_err_set(err, TPLAN_EINVAL, "framework",
                                 "framework: '%s': letters, digits, '-', "
                                 "'_' and '.' only",
                                 name);
    memcpy(f->name, name, n + 1);
    return TPLAN_OK;
}

int tplan_framework_term(const char *field, tplan_err *err)
{
    int id = tplan_field_find_input(field), i;
    const tplan_field *fd = id >= 0 ? tplan_field_at(id) : NULL;

    if (!fd || !(fd->flags & TPLAN_FIELD_IN)) {
        tplan_err_set(err, TPLAN_ENOTFOUND, "framework",
                      "%.64s: not a plan input (tplan fields lists them)",
                      field);
        return -1;
    }
    for (i = 0; terms[i] && strcmp(terms[i], field) != 0; i++)
        ;
    if (!terms[i]) {
        tplan_err_set(err, TPLAN_EINVAL, "framework",
                      "%s: not a framework term (valid: profile, fused_loss, "
                      "fp32_grads, overlap, efficiency, eff_*, dp_bw_eff, "
                      "zero3_bw_eff, time_band_*, context_mib, reserve, "
                      "alloc_frac, mem_band_*, calib_*, nccl_mib, "
                      "grad_bucket_copy, reduce_bucket, optim_temp, "
                      "gather_sets, fused_norm, zero12_overlap, "
                      "tp_overlap, nccl_a2a_mib, nccl_nvls_mib, blas_ws, "
                      "set_to_none, fit_attention)",
                      field);
        return -1;
    }
    return id;
}

bool tplan_framework_builtin(const char *name)
{
    for (int i = 0; i < N_BUILTIN; i++)
        if (strcasecmp(name, builtins[i].name) == 0)
            return true;
    return false;
}

int tplan_framework_set(tplan_framework *f, const char *field,
                        const char *text, tplan_err *err)
{
    int id, rc, i;
    double v;
    tplan_err e;

    if ((id = tplan_framework_term(field, &e)) < 0)
        return tplan_err_set(err, e.code, "framework", "framework %s: %s",
                             f->name, e.msg);
    if ((rc = tplan_field_parse(id, text, &v, err)))
        return rc;
    for (i = 0; i < f->n && f->set[i].field != id; i++)
        ;
    if (i == TPLAN_FRAMEWORK_MAX_SETTINGS)
        return tplan_err_set(err, TPLAN_EINVAL, "framework",
                             "framework %s: more than %d fields", f->name,
                             TPLAN_FRAMEWORK_MAX_SETTINGS);
    f->set[i].field = id;
    f->set[i].value = v;
    if (i == f->n)
        f->n++;
    return TPLAN_OK;
}

int tplan_framework_lookup(const char *name, tplan_framework *out,
                           tplan_err *err)
{
    const char *names[N_BUILTIN];
    const builtin *b;
    int rc, i;

    if (!name[0])
        return tplan_err_set(err, TPLAN_EINVAL, "framework",
                             "framework: an empty name (`tplan frameworks` "
                             "lists them)");
    for (i = 0; i < N_BUILTIN; i++)
        names[i] = builtins[i].name;
    i = tplan_name_lookup(name, names, N_BUILTIN, NULL, 0, "framework",
                          "framework", "frameworks", err);
    if (i < 0)
        return TPLAN_ENOTFOUND;
    b = &builtins[i];
    if ((rc = tplan_framework_init(out, b->name, err)))
        return rc;
    snprintf(out->source, sizeof out->source, "%s", b->source);
    for (int k = 0; k < TPLAN_FRAMEWORK_MAX_SETTINGS && b->set[k][0]; k++)
        if ((rc = tplan_framework_set(out, b->set[k][0], b->set[k][1], err)))
            return rc;
    return TPLAN_OK;
}

void tplan_framework_apply(const tplan_framework *f, tplan_config *c)
{
    for (int i = 0; i < f->n; i++)
        tplan_field_apply(f->set[i].field, f->set[i].value, c);
    snprintf(c->framework, sizeof c->framework, "%s", f->name);
}
