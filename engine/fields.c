/* The plan field table: one row per field, the parsing and checking of
 * inputs, the setting of a config and the reading of a plan. Ranges are
 * the engine's (config.c validates the same bounds); sources of defaults
 * are in config.c and docs/MODEL.md. */
#include "fields.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

enum {
    F_MODEL,
    F_GPU,
    F_GPUS,
    F_TP,
    F_PP,
    F_DP,
    F_VPP,
    F_SP,
    F_ZERO,
    F_PRECISION,
    F_OPTIMIZER,
    F_RECOMPUTE,
    F_ATTENTION,
    F_PROFILE,
    F_SEQ,
    F_MICRO_BATCH,
    F_ACCUM,
    F_GLOBAL_BATCH,
    F_TOKENS_PER_STEP,
    F_PARAMS,
    F_WEIGHTS_BYTES,
    F_GRADS_BYTES,
    F_OPTIMIZER_BYTES,
    F_ACTIVATIONS_BYTES,
    F_OVERHEAD_BYTES,
    F_TOTAL_BYTES,
    F_CAPACITY_BYTES,
    F_USABLE_BYTES,
    F_HEADROOM_BYTES,
    F_FITS,
    F_MAX_MICRO_BATCH,
    F_FLOPS_PER_STEP,
    F_STEP_TIME_S,
    F_TOKENS_PER_S,
    F_SAMPLES_PER_S,
    F_MFU,
    F_HFU,
    F_STEPS,
    F_TIME_H,
    F_GPU_HOURS,
    F_COST_USD,
    F_ENERGY_KWH,
    F_CO2_KG,
    F_LR_PEAK,
    F_WARMUP_STEPS,
    F_WARNINGS,
    /* inputs that became columns after the first schema: appended, so
     * older databases gain them at their end (db/store.c) */
    F_GPUS_PER_NODE,
    F_FP32_GRADS,
    F_FUSED_LOSS,
    F_DROPOUT,
    F_BATCH_NORM,
    F_GLOBAL_BATCH_TOKENS,
    F_RESERVE,
    F_CONTEXT_MIB,
    F_TOKENS,
    F_EPOCHS,
    F_DATASET,
    F_PRICE,
    F_NIC_GBPS,
    F_LINK_GBS,
    F_OVERLAP,
    F_EFFICIENCY,
    F_EFF_MAX,
    F_EFF_H0,
    F_EFF_TOK0,
    F_ATTN_EFF,
    F_FP8_RATIO,
    F_EFF_TP,
    F_PUE,
    F_POWER_UTIL,
    F_GRID,
    F_LR,
    F_LR_BASE_BATCH,
    F_LR_RULE,
    F_LR_THRESHOLD,
    F_LR_CAP,
    F_LR_FLOOR,
    F_WEIGHT_DECAY,
    F_WARMUP,
    F_SCHEDULE,
    F_WSD_DECAY,
    F_CRITICAL_BATCH_TOKENS,
    F_TARGET_LOSS,
    F_BATCH_RAMP,
    F_FINETUNE,
    F_LOSS_SCALING,
    /* fine-tuning (issue 15): appended as the block above */
    F_LORA_RANK,
    F_LORA_TARGETS,
    F_LORA_DROPOUT,
    F_BASE_PRECISION,
    F_DOUBLE_QUANT,
    F_OFFLOAD_OPTIMIZER,
    F_OFFLOAD_PARAMS,
    F_HOST_MEMORY,
    F_PCIE_GBS,
    F_NVME_GBS,
    F_TRAINABLE_PARAMS,
    F_HOST_BYTES,
    F_NVME_BYTES,
    F_OFFLOAD_TIME_S,
    F_DEQUANT_TIME_S,
    /* mixtures of experts and long context (issue 16): appended */
    F_EP,
    F_CP,
    F_CAPACITY_FACTOR,
    F_MOE_IMBALANCE,
    F_MOE_OVERLAP,
    F_ACTIVE_PARAMS,
    F_EP_TIME_S,
    F_CP_TIME_S,
    /* framework profiles (issue 17): appended */
    F_FRAMEWORK,
    F_EFF_SCALE,
    F_DP_BW_EFF,
    F_ZERO3_BW_EFF,
    F_TIME_BAND_LO,
    F_TIME_BAND_HI,
    F_STEP_TIME_S_LO,
    F_STEP_TIME_S_HI,
    /* memory bands, the allocator and calibrated ranges (issue 17) */
    F_ALLOC_FRAC,
    F_MEM_BAND_LO,
    F_MEM_BAND_HI,
    F_CALIB_PARAMS_MIN,
    F_CALIB_PARAMS_MAX,
    F_CALIB_GPUS_MIN,
    F_CALIB_GPUS_MAX,
    F_CALIB_SEQ_MIN,
    F_CALIB_SEQ_MAX,
    F_ALLOC_BYTES,
    F_TOTAL_BYTES_LO,
    F_TOTAL_BYTES_HI,
    F_FIT_CONFIDENCE,
    /* what real runs allocate besides the model's tensors (issue 17) */
    F_NCCL_MIB,
    F_GRAD_BUCKET_COPY,
    F_REDUCE_BUCKET,
    F_OPTIM_TEMP,
    F_GATHER_SETS,
    F_FUSED_NORM,
    F_NCCL_BYTES,
    F_BUCKET_BYTES,
    F_STEP_TEMP_BYTES,
    F_TRANSIENT_BYTES,
    F_COMMUNICATORS,
    F_ZERO12_OVERLAP,
    F_TP_OVERLAP,
    F_NCCL_A2A_MIB,
    F_PP_EMBED_LOSS,
    F_NCCL_NVLS_MIB,
    F_NVLS_BYTES,
    F_BLAS_WS,
    F_BLAS_WS_BYTES,
    F_SET_TO_NONE,
    F_OFF_PEAK_BYTES,
    /* pipeline schedules and MoE at scale (issue 34) */
    F_PP_SCHEDULE,
    F_COMM_SM_SHARE,
    /* calibration that never makes things worse (issue 34, item 6): the
     * left-out error a calibrated profile's fit left */
    F_CALIB_TIME_ERR,
    F_CALIB_MEM_ERR,
    /* era profiles and fp8 recipes (issue 34) */
    F_FIT_ATTENTION,
    F_FP8_RECIPE,
    /* recomputation modules, fp8 caching, MTP, routers (issue 34) */
    F_RECOMPUTE_MODULES,
    F_FP8_ACTIVATIONS,
    /* LoRA on mixtures of experts and latent attention, DeepSpeed's
     * pinned-buffer allowance (issue 37, items 1 and 6) */
    F_DORA,
    F_HOST_BUFFER_FACTOR,
    /* expert-tensor parallelism and uneven pipeline stages (issue 37,
     * items 4 and 5) */
    F_ETP,
    F_PP_FIRST_LAYERS,
    F_PP_LAST_LAYERS,
    F_PP_STAGE_LAYERS,
    F_SLOWEST_STAGE,
    /* activation offloading, FSDP2/HSDP sharding and reshard after
     * forward (issue 37, items 2 and 3) */
    F_OFFLOAD_ACTIVATIONS,
    F_ZERO_SHARD_GROUP,
    F_RESHARD_AFTER_FORWARD,
    F_ZERO_REPLICAS,
    F_ACT_OFFLOAD_BYTES,
    F_ACT_OFFLOAD_TIME_S,
    F_COUNT
};

_Static_assert((int)F_MODEL == (int)TPLAN_FIELD_ID_MODEL &&
                   (int)F_GPU == (int)TPLAN_FIELD_ID_GPU,
               "fields.h names the model and gpu ids");

_Static_assert(F_COUNT <= TPLAN_MAX_FIELDS, "TPLAN_MAX_FIELDS");

/* Names of the enum fields, in the engine's code order (tests/test_fields.c
 * checks them against each module's own names). */
static const char *const precision_names[] = {
    "fp32", "amp-bf16", "amp-fp16", "mixed-bf16", "mixed-fp16",
    "bf16", "fp8",      NULL};
static const char *const optimizer_names[] = {
    "adamw",      "adam",    "sgd",     "sgd-momentum", "adafactor", "lion",
    "adamw-8bit", "adagrad", "rmsprop", "adafactor-unfactored",
    "paged-adamw-8bit", "paged-adamw-32bit", NULL};
static const char *const recompute_names[] = {"none", "selective", "full",
                                              NULL};
static const char *const attention_names[] = {"eager", "flash", NULL};
/* tplan_fit_attention's order: any, then the attention kernels + 1 */
static const char *const fit_attention_names[] = {"any", "eager", "flash",
                                                  NULL};
/* tplan_fp8_recipe's order (hardware.h) */
static const char *const fp8_recipe_names[] = {"tensorwise", "delayed",
                                               "blockwise", "mxfp8", NULL};
static const char *const profile_names[] = {"torch", "megatron", "torch-cpu",
                                            NULL};
static const char *const lr_rule_names[] = {
    "none", "linear", "sqrt", "linear-sqrt", "deepseek", "gpt3", NULL};
static const char *const schedule_names[] = {
    "constant", "linear", "cosine", "wsd", "inverse-sqrt", NULL};
static const char *const pp_schedule_names[] = {"1f1b", "interleaved",
                                                "zb-h1", "dualpipe", NULL};
static const char *const base_names[] = {"auto", "bf16", "fp16", "int8",
                                         "nf4",  "fp4",  NULL};
static const char *const offload_names[] = {"none", "cpu", "nvme", NULL};
/* SET fields: the names, joined by commas (aliases in the doc) */
static const char *const target_names[] = {
    "q",      "k",      "v",    "o",   "gate",       "up",
    "down",   "mla",    "router", "shared_experts", "experts", "attn",
    "mlp",    "all-linear", NULL};
static const char *const rc_module_names[] = {
    "core_attn", "moe_act", "layernorm",      "mla_up_proj",
    "mlp",       "moe",     "shared_experts", NULL};
/* NAME and TEXT fields: the accepted forms, in words */
static const char *const model_forms[] = {
    "a preset (tplan models), a catalog model or a custom model", NULL};
static const char *const gpu_forms[] = {
    "a GPU of the catalog (tplan gpus) or a custom GPU", NULL};
static const char *const framework_forms[] = {
    "a framework (tplan frameworks) or one loaded from a CSV", NULL};
static const char *const warmup_forms[] = {
    "N or Nsteps, Ntokens, Nepochs, or P% below 100% (N up to 1e15)", NULL};
static const char *const ramp_forms[] = {
    "BATCH:UNTIL phases in tokens, last without UNTIL, like 4M:252M,8M "
    "(at most 8)",
    NULL};

#define OUT TPLAN_FIELD_OUT
#define IN  (TPLAN_FIELD_IN | TPLAN_FIELD_OUT)
#define AX  (TPLAN_FIELD_IN | TPLAN_FIELD_OUT | TPLAN_FIELD_AXIS)
#define SFX TPLAN_FIELD_SUFFIX

/* Outputs only: name, type, unit, doc. */
#define O(id, nm, ty, un, dc)                                                  \
    [id] = {nm, TPLAN_FT_##ty, TPLAN_FK_NONE, OUT, un, NULL, NULL, 0, 0,      \
            NULL, NULL, dc}
/* Inputs: name, output type, input kind, flags, unit, calc flag, input
 * name, range, enum names, default, doc. */
#define I(id, nm, ty, kd, fl, un, flag, in, lo, hi, vals, df, dc)              \
    [id] = {nm, TPLAN_FT_##ty, TPLAN_FK_##kd, fl, un, flag, in, lo, hi, vals,  \
            df, dc}

static const tplan_field fields[F_COUNT] = {
    I(F_MODEL, "model", TEXT, NAME, AX, "", "--model", "model", 0, 0,
      model_forms,
      "none: required", "the model to train"),
    I(F_GPU, "gpu", TEXT, NAME, AX, "", "--gpu", "gpu", 0, 0, gpu_forms,
      "h100-sxm", "the GPU type"),
    I(F_GPUS, "gpus", INT, INT, AX, "GPUs", "--gpus", "gpus", 1, 1e7, NULL,
      "1", "GPUs in the job"),
    I(F_TP, "tp", INT, INT, AX, "", "--tp", "tp", 1, 1e7, NULL, "1",
      "tensor-parallel degree"),
    I(F_PP, "pp", INT, INT, AX, "", "--pp", "pp", 1, 1e7, NULL, "1",
      "pipeline-parallel degree"),
    O(F_DP, "dp", INT, "", "data-parallel degree gpus / (tp * cp * pp)"),
    I(F_VPP, "vpp", INT, INT, AX, "", "--vpp", "vpp", 1, 1e5, NULL, "1",
      "virtual pipeline stages per device (interleaving)"),
    I(F_SP, "sp", BOOL, BOOL, AX | TPLAN_FIELD_FLAG, "", "--sp", "sp", 0, 1,
      NULL, "false", "Megatron sequence parallelism (needs tp >= 2)"),
    I(F_ZERO, "zero", INT, INT, AX, "", "--zero", "zero", 0, 3, NULL, "0",
      "ZeRO stage over the data-parallel group"),
    I(F_PRECISION, "precision", TEXT, ENUM, AX, "", "--precision",
      "precision", 0, 0, precision_names, "mixed-bf16",
      "training precision recipe"),
    I(F_OPTIMIZER, "optimizer", TEXT, ENUM, AX, "", "--optimizer",
      "optimizer", 0, 0, optimizer_names, "adamw", "optimizer"),
    I(F_RECOMPUTE, "recompute", TEXT, ENUM, AX, "", "--recompute",
      "recompute", 0, 0, recompute_names, "none", "activation recomputation"),
    I(F_ATTENTION, "attention", TEXT, ENUM, AX, "", "--attention",
      "attention", 0, 0, attention_names, "flash",
      "attention kernel: eager keeps the score matrix"),
    I(F_PROFILE, "profile", TEXT, ENUM, AX, "", "--profile", "profile", 0, 0,
      profile_names, "torch", "how the framework saves activations"),
    I(F_SEQ, "seq", INT, INT, AX, "tokens", "--seq", "seq", 1, 1e8, NULL,
      "the model's context", "sequence length"),
    I(F_MICRO_BATCH, "micro_batch", INT, INT, AX | TPLAN_FIELD_MAX,
      "samples", "--micro-batch", "micro_batch", 1, 1e8, NULL,
      "max (the largest that fits)",
      "micro-batch per GPU, as evaluated (input: a count or max)"),
    I(F_ACCUM, "accum", INT, INT, AX, "", "--accum", "accum", 1, 1e8, NULL,
      "1, or pp when pipelining",
      "micro-batches per optimizer step per pipeline, as evaluated"),
    I(F_GLOBAL_BATCH, "global_batch", INT, INT, AX | SFX, "samples",
      "--global-batch", "global_batch", 1, 1e9, NULL,
      "micro_batch x dp x accum", "samples per optimizer step, as evaluated"),
    O(F_TOKENS_PER_STEP, "tokens_per_step", INT, "tokens",
      "global_batch x seq"),
    O(F_PARAMS, "params", INT, "", "parameters of the whole model"),
    O(F_WEIGHTS_BYTES, "weights_bytes", INT, "bytes",
      "weights per GPU, working copies included"),
    O(F_GRADS_BYTES, "grads_bytes", INT, "bytes", "gradients per GPU"),
    O(F_OPTIMIZER_BYTES, "optimizer_bytes", INT, "bytes",
      "master weights and optimizer states per GPU"),
    O(F_ACTIVATIONS_BYTES, "activations_bytes", INT, "bytes",
      "activations kept for backward per GPU"),
    O(F_OVERHEAD_BYTES, "overhead_bytes", INT, "bytes",
      "CUDA context and ZeRO-3 gathered layers per GPU"),
    O(F_TOTAL_BYTES, "total_bytes", INT, "bytes", "memory per GPU"),
    O(F_CAPACITY_BYTES, "capacity_bytes", INT, "bytes",
      "GPU memory as the runtime reports it"),
    O(F_USABLE_BYTES, "usable_bytes", INT, "bytes",
      "capacity less the reserve"),
    O(F_HEADROOM_BYTES, "headroom_bytes", INT, "bytes",
      "usable less total (negative: does not fit)"),
    O(F_FITS, "fits", BOOL, "", "total fits in usable memory"),
    O(F_MAX_MICRO_BATCH, "max_micro_batch", INT, "samples",
      "largest micro-batch that fits (0: none)"),
    O(F_FLOPS_PER_STEP, "flops_per_step", REAL, "FLOP",
      "model FLOPs of one step, whole job"),
    O(F_STEP_TIME_S, "step_time_s", REAL, "s", "time per optimizer step"),
    O(F_TOKENS_PER_S, "tokens_per_s", REAL, "tokens/s",
      "throughput, whole job"),
    O(F_SAMPLES_PER_S, "samples_per_s", REAL, "samples/s",
      "throughput, whole job"),
    O(F_MFU, "mfu", REAL, "", "model FLOPs utilisation"),
    O(F_HFU, "hfu", REAL, "", "hardware FLOPs utilisation (recompute)"),
    O(F_STEPS, "steps", REAL, "", "optimizer steps of the budget"),
    O(F_TIME_H, "time_h", REAL, "h", "wall-clock time of the run"),
    O(F_GPU_HOURS, "gpu_hours", REAL, "GPU-h", "GPU-hours of the run"),
    O(F_COST_USD, "cost_usd", REAL, "USD", "cost of the run"),
    O(F_ENERGY_KWH, "energy_kwh", REAL, "kWh", "energy of the run, PUE in"),
    O(F_CO2_KG, "co2_kg", REAL, "kg", "CO2e of the run's energy"),
    O(F_LR_PEAK, "lr_peak", REAL, "", "peak learning rate"),
    O(F_WARMUP_STEPS, "warmup_steps", REAL, "steps", "warmup in steps"),
    O(F_WARNINGS, "warnings", TEXT, "", "warnings joined by ' | '"),
    I(F_GPUS_PER_NODE, "gpus_per_node", INT, INT, AX, "GPUs",
      "--gpus-per-node", "gpus_per_node", 1, 1e5, NULL,
      "the GPU's typical server", "GPUs per node"),
    I(F_FP32_GRADS, "fp32_grads", BOOL, BOOL, AX | TPLAN_FIELD_FLAG, "",
      "--fp32-grads", "fp32_grads", 0, 1, NULL, "false",
      "keep gradients in fp32 (Megatron's main_grad)"),
    I(F_FUSED_LOSS, "fused_loss", BOOL, BOOL, AX | TPLAN_FIELD_FLAG, "",
      "--fused-loss", "fused_loss", 0, 1, NULL, "false",
      "fused cross-entropy: no fp32 logits or log-softmax"),
    I(F_DROPOUT, "dropout", REAL, REAL, AX, "", "--dropout", "dropout", 0,
      0.99, NULL, "the model's (GPT-2/BERT 0.1, Llama 0)",
      "dropout probability"),
    I(F_BATCH_NORM, "batch_norm", BOOL, BOOL, AX | TPLAN_FIELD_FLAG, "",
      "--batch-norm", "batch_norm", 0, 1, NULL, "the model's",
      "the model uses batch norm (advice on small micro-batches)"),
    I(F_GLOBAL_BATCH_TOKENS, "global_batch_tokens", REAL, REAL, AX | SFX,
      "tokens", "--global-batch-tokens", "global_batch_tokens", 1, 1e15,
      NULL, "none", "target tokens per step (rounded to samples)"),
    I(F_RESERVE, "reserve", REAL, REAL, AX, "", "--reserve", "reserve", 0,
      0.99, NULL, "0.1", "share of GPU memory kept free"),
    I(F_CONTEXT_MIB, "context_mib", REAL, REAL, AX, "MiB", "--context-mib",
      "context_mib", 0, 1e7, NULL, "1000",
      "CUDA context and library workspaces per GPU"),
    I(F_TOKENS, "tokens", REAL, REAL, AX | SFX, "tokens", "--tokens",
      "tokens", 1, 1e18, NULL, "20 per parameter",
      "training budget (output: the budget used)"),
    I(F_EPOCHS, "epochs", REAL, REAL, AX, "", "--epochs", "epochs", 1e-9,
      1e9, NULL, "none", "epochs over the dataset (with dataset)"),
    I(F_DATASET, "dataset", REAL, REAL, AX | SFX, "samples", "--dataset",
      "dataset", 1, 1e18, NULL, "none", "samples per epoch"),
    I(F_PRICE, "price_usd_per_h", REAL, REAL, AX, "USD/GPU-h", "--price",
      "price", 1e-9, 1e6, NULL, "the catalog's",
      "price per GPU-hour (output: the price used)"),
    I(F_NIC_GBPS, "nic_gbps", REAL, REAL, AX, "Gb/s", "--nic-gbps",
      "nic_gbps", 0.1, 8e6, NULL, "the GPU's",
      "inter-node network per GPU (output: the one used)"),
    I(F_LINK_GBS, "link_gbs", REAL, REAL, AX, "GB/s", "--link-gbs",
      "link_gbs", 0.1, 1e6, NULL, "the GPU's",
      "intra-node link per GPU, one way (output: the one used)"),
    I(F_OVERLAP, "overlap", REAL, REAL, AX, "", "--overlap", "overlap", 0, 1,
      NULL, "0.9", "share of data-parallel traffic hidden under compute"),
    I(F_EFFICIENCY, "efficiency", REAL, REAL, AX, "", "--efficiency",
      "efficiency", 0.01, 1, NULL, "the GPU's efficiency model",
      "fraction of peak for matmuls (output: the one used)"),
    I(F_EFF_MAX, "eff_max", REAL, REAL, AX, "", "--eff-max", "eff_max", 0.01,
      1, NULL, "the GPU's", "efficiency model: best matmul efficiency"),
    I(F_EFF_H0, "eff_h0", REAL, REAL, AX, "", "--eff-h0", "eff_h0", 0, 1e8,
      NULL, "the GPU's", "efficiency model: hidden size at half the gap"),
    I(F_EFF_TOK0, "eff_tok0", REAL, REAL, AX, "tokens", "--eff-tok0",
      "eff_tok0", 0, 1e11, NULL, "the GPU's",
      "efficiency model: tokens per micro-batch at half the gap"),
    I(F_ATTN_EFF, "attn_eff", REAL, REAL, AX, "", "--attn-eff", "attn_eff",
      0.01, 1, NULL, "the GPU's", "efficiency model: attention efficiency"),
    I(F_FP8_RATIO, "fp8_ratio", REAL, REAL, AX, "", "--fp8-ratio",
      "fp8_ratio", 0, 1, NULL,
      "fp8_recipe's, fitted for Hopper and Blackwell; else the GPU's",
      "efficiency model: fp8 efficiency relative to 16-bit (0: the same)"),
    I(F_EFF_TP, "eff_tp", REAL, REAL, AX, "", "--eff-tp", "eff_tp", 0, 0.5,
      NULL, "the GPU's", "efficiency model: loss per doubling of tp"),
    I(F_PUE, "pue", REAL, REAL, AX, "", "--pue", "pue", 1, 10, NULL, "1.1",
      "data-centre power usage effectiveness"),
    I(F_POWER_UTIL, "power_util", REAL, REAL, AX, "", "--power-util",
      "power_util", 0.01, 2, NULL, "1", "average draw as a fraction of TDP"),
    I(F_GRID, "grid", REAL, REAL, AX, "kg/kWh", "--grid", "grid", 0, 10, NULL,
      "0.429", "CO2e intensity of the electricity"),
    /* "lr_base": a plan table's "lr" is its LR schedule (docs/lua-api.md) */
    I(F_LR, "lr_base", REAL, REAL, AX, "", "--lr", "lr", 1e-12, 100, NULL,
      "none", "reference learning rate (output: the base LR used)"),
    I(F_LR_BASE_BATCH, "lr_base_batch", REAL, REAL, AX | SFX, "samples",
      "--lr-base-batch", "lr_base_batch", 1, 1e12, NULL,
      "the plan's global batch", "batch the reference LR was tuned at"),
    I(F_LR_RULE, "lr_rule", TEXT, ENUM, AX, "", "--lr-rule", "lr_rule", 0, 0,
      lr_rule_names, "sqrt (adaptive), linear (SGD)",
      "how the LR scales with the batch"),
    I(F_LR_THRESHOLD, "lr_threshold", REAL, REAL, AX | SFX, "samples",
      "--lr-threshold", "lr_threshold", 1, 1e12, NULL, "the rule's",
      "linear-sqrt: batch where sqrt takes over"),
    I(F_LR_CAP, "lr_cap", REAL, REAL, AX, "", "--lr-cap", "lr_cap", 1e-12,
      100, NULL, "none", "largest peak LR"),
    I(F_LR_FLOOR, "lr_floor", REAL, REAL, AX, "", "--lr-floor", "lr_floor", 0,
      1, NULL, "0.1", "final LR as a fraction of the peak"),
    I(F_WEIGHT_DECAY, "weight_decay", REAL, REAL, AX, "", "--weight-decay",
      "weight_decay", 0, 100, NULL, "none",
      "weight decay at the reference batch"),
    I(F_WARMUP, "warmup", TEXT, TEXT, IN, "", "--warmup", "warmup", 0, 0,
      warmup_forms, "the guides' rule by scale factor", "LR warmup"),
    I(F_SCHEDULE, "schedule", TEXT, ENUM, AX, "", "--schedule", "schedule", 0,
      0, schedule_names, "cosine", "LR schedule after warmup"),
    I(F_WSD_DECAY, "wsd_decay", REAL, REAL, AX, "", "--wsd-decay",
      "wsd_decay", 0, 1, NULL, "0.1", "share of steps the WSD decay takes"),
    I(F_CRITICAL_BATCH_TOKENS, "critical_batch_tokens", REAL, REAL, AX | SFX,
      "tokens", "--critical-batch-tokens", "critical_batch_tokens", 1, 1e15,
      NULL, "none", "gradient noise scale B_noise"),
    I(F_TARGET_LOSS, "target_loss", REAL, REAL, AX, "nats", "--target-loss",
      "target_loss", 1e-6, 100, NULL, "none",
      "loss for Kaplan's critical batch"),
    I(F_BATCH_RAMP, "batch_ramp", TEXT, TEXT, IN, "", "--batch-ramp",
      "batch_ramp", 0, 0, ramp_forms, "none",
      "global batch ramp, phase by phase"),
    I(F_FINETUNE, "finetune", BOOL, BOOL, AX | TPLAN_FIELD_FLAG, "",
      "--finetune", "finetune", 0, 1, NULL, "false",
      "fine-tuning, not pre-training (advice)"),
    I(F_LOSS_SCALING, "loss_scaling", BOOL, BOOL, AX | TPLAN_FIELD_FLAG, "",
      "--no-loss-scaling", "loss_scaling", 0, 1, NULL, "true",
      "fp16 with a loss scaler (the flag turns it off)"),
    I(F_LORA_RANK, "lora_rank", INT, INT, AX, "", "--lora-rank", "lora_rank",
      0, 65536, NULL, "0 (full training)",
      "LoRA adapter rank; the base weights are frozen"),
    I(F_LORA_TARGETS, "lora_targets", TEXT, SET, AX, "", "--lora-targets",
      "lora_targets", 1, TPLAN_LORA_ALL, target_names, "all-linear",
      "linears that get adapters, joined by commas"),
    I(F_LORA_DROPOUT, "lora_dropout", REAL, REAL, AX, "", "--lora-dropout",
      "lora_dropout", 0, 0.99, NULL, "0",
      "dropout on the adapters' input"),
    I(F_DORA, "dora", BOOL, BOOL, AX | TPLAN_FIELD_FLAG, "", "--dora", "dora",
      0, 1, NULL, "false",
      "DoRA: adapters plus a trainable magnitude per output feature"),
    I(F_HOST_BUFFER_FACTOR, "host_buffer_factor", REAL, REAL, AX, "",
      "--host-buffer-factor", "host_buffer_factor", 1, 16, NULL,
      "1 (deepspeed profiles: 1.5)",
      "framework: host memory's pinned-buffer allowance, a factor on "
      "offloaded bytes (DeepSpeed's estimators: 1.5)"),
    I(F_BASE_PRECISION, "base_precision", TEXT, ENUM, AX, "",
      "--base-precision", "base_precision", 0, 0, base_names,
      "auto (as the recipe stores weights)",
      "storage of the frozen base weights (int8, nf4, fp4: bitsandbytes)"),
    I(F_DOUBLE_QUANT, "double_quant", BOOL, BOOL, AX | TPLAN_FIELD_FLAG, "",
      "--double-quant", "double_quant", 0, 1, NULL, "false",
      "quantize the 4-bit block statistics too (QLoRA)"),
    I(F_OFFLOAD_OPTIMIZER, "offload_optimizer", TEXT, ENUM, AX, "",
      "--offload-optimizer", "offload_optimizer", 0, 0, offload_names, "none",
      "master weights, optimizer states and fp32 grads off the GPU"),
    I(F_OFFLOAD_PARAMS, "offload_params", TEXT, ENUM, AX, "",
      "--offload-params", "offload_params", 0, 0, offload_names, "none",
      "16-bit weights off the GPU (needs zero 3)"),
    I(F_HOST_MEMORY, "host_memory_gib", REAL, REAL, AX, "GiB",
      "--host-memory", "host_memory", 0.001, 1e9, NULL,
      "the GPU's cloud instance's",
      "host memory per node (output: the one used)"),
    I(F_PCIE_GBS, "pcie_gbs", REAL, REAL, AX, "GB/s", "--pcie-gbs",
      "pcie_gbs", 0.01, 1e5, NULL, "the GPU's PCIe generation",
      "host <-> GPU copies per GPU, one way (output: the one used)"),
    I(F_NVME_GBS, "nvme_gbs", REAL, REAL, AX, "GB/s", "--nvme-gbs",
      "nvme_gbs", 0.01, 1e5, NULL, "3.4",
      "NVMe read/write per node (output: the one used)"),
    O(F_TRAINABLE_PARAMS, "trainable_params", INT, "",
      "parameters that train (all, or the adapters')"),
    O(F_HOST_BYTES, "host_bytes", INT, "bytes",
      "host memory per node: offloaded and paged states"),
    O(F_NVME_BYTES, "nvme_bytes", INT, "bytes", "NVMe per node: offloaded"),
    O(F_OFFLOAD_TIME_S, "offload_time_s", REAL, "s",
      "host/NVMe traffic and CPU optimizer step not hidden, per step"),
    O(F_DEQUANT_TIME_S, "dequant_time_s", REAL, "s",
      "dequantizing a quantized base, per step"),
    I(F_EP, "ep", INT, INT, AX, "", "--ep", "ep", 1, 1e5, NULL, "1",
      "expert-parallel degree (divides experts and dp x cp)"),
    I(F_CP, "cp", INT, INT, AX, "", "--cp", "cp", 1, 1e5, NULL, "1",
      "context-parallel degree: the sequence split over cp GPUs"),
    I(F_CAPACITY_FACTOR, "capacity_factor", REAL, REAL, AX, "",
      "--capacity-factor", "capacity_factor", 0, 1000, NULL,
      "0 (dropless)", "tokens an expert takes over the average; more drop"),
    I(F_MOE_IMBALANCE, "moe_imbalance", REAL, REAL, AX, "",
      "--moe-imbalance", "moe_imbalance", 0, 1000, NULL,
      "0 (by router: 1.04 aux-free, 1.52 aux-loss)",
      "tokens on the busiest expert rank over the average (dropless)"),
    I(F_MOE_OVERLAP, "moe_overlap", REAL, REAL, AX, "", "--moe-overlap",
      "moe_overlap", 0, 1, NULL, "0",
      "share of expert all-to-all hidden under compute"),
    O(F_ACTIVE_PARAMS, "active_params", INT, "",
      "parameters one token uses (MoE: top_k experts; else params)"),
    O(F_EP_TIME_S, "ep_time_s", REAL, "s",
      "expert all-to-all not hidden under compute, per step"),
    O(F_CP_TIME_S, "cp_time_s", REAL, "s",
      "context-parallel K/V exchange not hidden, per step"),
    I(F_FRAMEWORK, "framework", TEXT, NAME, IN, "", "--framework",
      "framework", 0, 0, framework_forms, "none",
      "the training stack whose values the plan takes (fields override)"),
    I(F_EFF_SCALE, "eff_scale", REAL, REAL, AX, "", "--eff-scale",
      "eff_scale", 0.01, 10, NULL, "1",
      "framework: matmul and attention efficiency multiplier"),
    I(F_DP_BW_EFF, "dp_bw_eff", REAL, REAL, AX, "", "--dp-bw-eff",
      "dp_bw_eff", 0.001, 1, NULL, "1",
      "framework: share of the data-parallel bandwidth reached (ZeRO 0-2)"),
    I(F_ZERO3_BW_EFF, "zero3_bw_eff", REAL, REAL, AX, "", "--zero3-bw-eff",
      "zero3_bw_eff", 0.001, 1, NULL, "1",
      "framework: share of the bandwidth ZeRO-3 gathers reach"),
    I(F_TIME_BAND_LO, "time_band_lo", REAL, REAL, AX, "", "--time-band-lo",
      "time_band_lo", 0, 0.99, NULL, "0.0757",
      "framework: minus the 10th percentile of measured/predicted step - 1 "
      "(under 10 runs, the smallest)"),
    I(F_TIME_BAND_HI, "time_band_hi", REAL, REAL, AX, "", "--time-band-hi",
      "time_band_hi", 0, 10, NULL, "0.0889",
      "framework: the 90th percentile of measured/predicted step - 1 "
      "(under 10 runs, the largest)"),
    O(F_STEP_TIME_S_LO, "step_time_s_lo", REAL, "s",
      "step time, low end of the framework's band (time_band_lo)"),
    O(F_STEP_TIME_S_HI, "step_time_s_hi", REAL, "s",
      "step time, high end of the framework's band (time_band_hi)"),
    I(F_ALLOC_FRAC, "alloc_frac", REAL, REAL, AX, "", "--alloc-frac",
      "alloc_frac", 0, 1, NULL, "0",
      "framework: allocator memory beyond what is allocated, a share of it"),
    I(F_MEM_BAND_LO, "mem_band_lo", REAL, REAL, AX, "", "--mem-band-lo",
      "mem_band_lo", 0, 0.99, NULL, "0.01",
      "framework: how far below total_bytes a measured peak may fall"),
    I(F_MEM_BAND_HI, "mem_band_hi", REAL, REAL, AX, "", "--mem-band-hi",
      "mem_band_hi", 0, 10, NULL, "0.01",
      "framework: how far above total_bytes a measured peak may rise"),
    I(F_CALIB_PARAMS_MIN, "calib_params_min", REAL, REAL, AX | SFX, "",
      "--calib-params-min", "calib_params_min", 0, 1e15, NULL, "0 (none)",
      "framework: smallest model its calibration runs trained"),
    I(F_CALIB_PARAMS_MAX, "calib_params_max", REAL, REAL, AX | SFX, "",
      "--calib-params-max", "calib_params_max", 0, 1e15, NULL, "0 (none)",
      "framework: largest model its calibration runs trained"),
    I(F_CALIB_GPUS_MIN, "calib_gpus_min", REAL, REAL, AX, "",
      "--calib-gpus-min", "calib_gpus_min", 0, 1e8, NULL, "0 (none)",
      "framework: fewest GPUs of its calibration runs"),
    I(F_CALIB_GPUS_MAX, "calib_gpus_max", REAL, REAL, AX, "",
      "--calib-gpus-max", "calib_gpus_max", 0, 1e8, NULL, "0 (none)",
      "framework: most GPUs of its calibration runs"),
    I(F_CALIB_SEQ_MIN, "calib_seq_min", REAL, REAL, AX, "tokens",
      "--calib-seq-min", "calib_seq_min", 0, 1e9, NULL, "0 (none)",
      "framework: shortest sequence of its calibration runs"),
    I(F_CALIB_SEQ_MAX, "calib_seq_max", REAL, REAL, AX, "tokens",
      "--calib-seq-max", "calib_seq_max", 0, 1e9, NULL, "0 (none)",
      "framework: longest sequence of its calibration runs"),
    O(F_ALLOC_BYTES, "alloc_bytes", INT, "bytes",
      "of overhead_bytes: allocator memory beyond the allocated (alloc_frac)"),
    O(F_TOTAL_BYTES_LO, "total_bytes_lo", INT, "bytes",
      "memory per GPU, low end of the framework's band"),
    O(F_TOTAL_BYTES_HI, "total_bytes_hi", INT, "bytes",
      "memory per GPU, high end of the framework's band"),
    O(F_FIT_CONFIDENCE, "fit_confidence", TEXT, "",
      "yes, likely, unlikely or no: where the band lies against usable"),
    I(F_NCCL_MIB, "nccl_mib", REAL, REAL, AX, "MiB", "--nccl-mib",
      "nccl_mib", 0, 1e6, NULL, "0",
      "framework: NCCL buffers per communicator the GPU joins"),
    I(F_GRAD_BUCKET_COPY, "grad_bucket_copy", BOOL, BOOL,
      AX | TPLAN_FIELD_FLAG, "", "--grad-bucket-copy", "grad_bucket_copy",
      0, 1, NULL, "false",
      "framework: DDP's gradient buckets beside .grad (ZeRO 0, dp > 1)"),
    I(F_REDUCE_BUCKET, "reduce_bucket", REAL, REAL, AX | SFX, "elements",
      "--reduce-bucket", "reduce_bucket", 0, 1e13, NULL, "0",
      "framework: DeepSpeed's ZeRO-1/2 gradient reduce bucket"),
    I(F_OPTIM_TEMP, "optim_temp", REAL, REAL, AX, "", "--optim-temp",
      "optim_temp", 0, 10, NULL, "1 (torch's foreach Adam)",
      "framework: Adam step temporaries, in second-moment sizes"),
    I(F_GATHER_SETS, "gather_sets", REAL, REAL, AX, "", "--gather-sets",
      "gather_sets", 0, 100, NULL, "2",
      "framework: ZeRO-3 layer-sized 16-bit sets live at once"),
    I(F_FUSED_NORM, "fused_norm", BOOL, BOOL, AX | TPLAN_FIELD_FLAG, "",
      "--fused-norm", "fused_norm", 0, 1, NULL, "false",
      "framework: fused RMSNorm kernels (no fp32 copy of the input)"),
    O(F_NCCL_BYTES, "nccl_bytes", INT, "bytes",
      "of overhead_bytes: NCCL buffers (nccl_mib x communicators, "
      "nccl_a2a_mib x expert peers, NVLS: nccl_nvls_mib x channels x "
      "GPUs in the node, per communicator)"),
    O(F_BUCKET_BYTES, "bucket_bytes", INT, "bytes",
      "of overhead_bytes: gradient communication buckets"),
    O(F_STEP_TEMP_BYTES, "step_temp_bytes", INT, "bytes",
      "the optimizer step's temporaries (after the activations are freed)"),
    O(F_TRANSIENT_BYTES, "transient_bytes", INT, "bytes",
      "of overhead_bytes: what the optimizer step's peak adds"),
    O(F_COMMUNICATORS, "communicators", INT, "",
      "NCCL communicators a GPU joins (groups of more than one GPU)"),
    I(F_ZERO12_OVERLAP, "zero12_overlap", REAL, REAL, AX, "",
      "--zero12-overlap", "zero12_overlap", 0, 1, NULL, "1",
      "framework: share of overlap ZeRO 0-2 data-parallel traffic gets"),
    I(F_TP_OVERLAP, "tp_overlap", REAL, REAL, AX, "", "--tp-overlap",
      "tp_overlap", 0, 1, NULL, "0",
      "framework: share of TP traffic hidden under the GEMMs"),
    I(F_NCCL_A2A_MIB, "nccl_a2a_mib", REAL, REAL, AX, "MiB",
      "--nccl-a2a-mib", "nccl_a2a_mib", 0, 1e6, NULL, "0",
      "framework: NCCL buffers per expert-parallel all-to-all peer (MoE)"),
    I(F_PP_EMBED_LOSS, "pp_embed_loss", BOOL, BOOL, AX | TPLAN_FIELD_FLAG, "",
      "--pp-embed-loss", "pp_embed_loss", 0, 1, NULL, "false",
      "the embedding and the loss count as a layer each in the pipeline "
      "split (Megatron's account_for_*_in_pipeline_split)"),
    I(F_NCCL_NVLS_MIB, "nccl_nvls_mib", REAL, REAL, AX, "MiB",
      "--nccl-nvls-mib", "nccl_nvls_mib", 0, 1e6, NULL, "0",
      "framework: NCCL NVLink SHARP buffers per channel and per GPU of a "
      "communicator in the node (NVSwitch systems; 0 = NVLS off)"),
    O(F_NVLS_BYTES, "nvls_bytes", INT, "bytes",
      "of nccl_bytes: NVLink SHARP buffers (nccl_nvls_mib x channels x "
      "GPUs in the node, per communicator)"),
    I(F_BLAS_WS, "blas_ws", BOOL, BOOL, AX | TPLAN_FIELD_FLAG, "",
      "--blas-ws", "blas_ws", 0, 1, NULL, "false",
      "framework: add PyTorch's two cuBLAS/hipBLAS workspaces (forward "
      "and backward threads; blas_ws_mib each in tplan gpus --json) to "
      "context_mib, which then leaves them out (the default 1000 has them)"),
    O(F_BLAS_WS_BYTES, "blas_ws_bytes", INT, "bytes",
      "of overhead_bytes, with the CUDA context: the BLAS workspaces "
      "(blas_ws)"),
    I(F_SET_TO_NONE, "set_to_none", BOOL, BOOL, AX | TPLAN_FIELD_FLAG, "",
      "--set-to-none", "set_to_none", 0, 1, NULL, "false",
      "framework: gradients freed after each step (torch's "
      "zero_grad(set_to_none=True)): with accum 1 the forward holds none"),
    O(F_OFF_PEAK_BYTES, "off_peak_bytes", INT, "bytes",
      "of the parts, not live at the peak (set_to_none: the gradients, or "
      "the activations and autocast copies); total = parts - this"),
    I(F_PP_SCHEDULE, "pp_schedule", TEXT, ENUM, AX, "", "--pp-schedule",
      "pp_schedule", 0, 0, pp_schedule_names, "1f1b (interleaved with vpp > 1)",
      "pipeline schedule: its bubble, activations in flight, parameter "
      "copies and hidden traffic (output: the one run)"),
    I(F_COMM_SM_SHARE, "comm_sm_share", REAL, REAL, AX, "",
      "--comm-sm-share", "comm_sm_share", 0, 0.9, NULL,
      "20/132 under dualpipe with ep > 1 (DeepSeek-V3), else 0",
      "share of SMs dualpipe's overlapped all-to-all takes from compute "
      "(output: the one used)"),
    I(F_CALIB_TIME_ERR, "calib_time_err", REAL, REAL, AX, "",
      "--calib-time-err", "calib_time_err", 0, 10, NULL, "0 (none)",
      "framework: median |error| of its calibration runs' step times, each "
      "predicted by a fit without it (left out)"),
    I(F_CALIB_MEM_ERR, "calib_mem_err", REAL, REAL, AX, "",
      "--calib-mem-err", "calib_mem_err", 0, 10, NULL, "0 (none)",
      "framework: median |error| of its calibration runs' peak memory, each "
      "predicted by a fit without it (left out)"),
    I(F_FIT_ATTENTION, "fit_attention", TEXT, ENUM, AX, "",
      "--fit-attention", "fit_attention", 0, 0, fit_attention_names, "any",
      "framework: the attention kernel its efficiency was fitted under; "
      "sets attention (a later attention overrides; another kernel is "
      "warned about)"),
    I(F_FP8_RECIPE, "fp8_recipe", TEXT, ENUM, AX, "", "--fp8-recipe",
      "fp8_recipe", 0, 0, fp8_recipe_names, "tensorwise",
      "fp8 scaling recipe; picks the fitted fp8_ratio of the GPU's "
      "architecture (mxfp8: Blackwell only)"),
    I(F_RECOMPUTE_MODULES, "recompute_modules", TEXT, SET, AX, "",
      "--recompute-modules", "recompute_modules", 0, TPLAN_RC_ALL,
      rc_module_names, "none",
      "Megatron-Core's recompute_modules, comma list (none: recompute "
      "decides); implies recompute selective of exactly these"),
    I(F_FP8_ACTIVATIONS, "fp8_activations", BOOL, BOOL,
      AX | TPLAN_FIELD_FLAG, "", "--fp8-activations", "fp8_activations", 0,
      1, NULL, "false",
      "DeepSeek-V3's fp8 activation caching: MoE SwiGLU inputs in fp8, "
      "attention-output linear input in E5M6, 1x128 tile scales (needs "
      "precision fp8)"),
    I(F_ETP, "etp", INT, INT, AX, "", "--etp", "etp", 1, 1e5, NULL, "tp",
      "expert-tensor-parallel degree: each routed expert's weights split "
      "over etp ranks (Megatron-Core's expert_tensor_parallel_size; "
      "etp x ep divides gpus / pp)"),
    I(F_PP_FIRST_LAYERS, "pp_first_layers", INT, INT, AX, "layers",
      "--pp-first-layers", "pp_first_layers", 0, 1e7, NULL, "0 (even)",
      "layers on the first pipeline stage, the rest even over the middle "
      "ones (Megatron's decoder_first_pipeline_num_layers; 0: unset)"),
    I(F_PP_LAST_LAYERS, "pp_last_layers", INT, INT, AX, "layers",
      "--pp-last-layers", "pp_last_layers", 0, 1e7, NULL, "0 (even)",
      "layers on the last pipeline stage (Megatron's "
      "decoder_last_pipeline_num_layers; 0: unset)"),
    O(F_PP_STAGE_LAYERS, "pp_stage_layers", TEXT, "layers",
      "each pipeline stage's layers, first to last: runs of n equal stages "
      "of k layers as kxn, comma-separated (4x1,8x6,4x1)"),
    O(F_SLOWEST_STAGE, "slowest_stage", INT, "",
      "the pipeline stage (0 .. pp - 1) whose compute sets the step's "
      "pace (memory's fullest stage is stage_index in calc --json)"),
    I(F_OFFLOAD_ACTIVATIONS, "offload_activations", REAL, REAL, AX, "",
      "--offload-activations", "offload_activations", 0, 1, NULL, "0",
      "share of the layers' saved activations kept in pinned host memory "
      "from forward to backward over PCIe (all: 1; one layer stays and "
      "one is staged: torchtune, Megatron-Core)"),
    I(F_ZERO_SHARD_GROUP, "zero_shard_group", INT, INT, AX, "GPUs",
      "--zero-shard-group", "zero_shard_group", 0, 1e7, NULL,
      "0 (the whole data-parallel group: plain ZeRO)",
      "HSDP: ZeRO shards over groups of this many data-parallel ranks, "
      "replicated across the groups (zero_replicas)"),
    I(F_RESHARD_AFTER_FORWARD, "reshard_after_forward", BOOL, BOOL,
      AX | TPLAN_FIELD_FLAG, "", "--no-reshard", "reshard_after_forward", 0,
      1, NULL, "true",
      "ZeRO-3 frees gathered weights after forward (FSDP2's "
      "reshard_after_forward; the flag keeps them to backward: one "
      "all-gather less, the unsharded weights held)"),
    O(F_ZERO_REPLICAS, "zero_replicas", INT, "",
      "HSDP: replicas of each ZeRO shard, dp x cp / zero_shard_group"),
    O(F_ACT_OFFLOAD_BYTES, "act_offload_bytes", INT, "bytes",
      "activations in host memory per GPU at the peak (offload_activations)"),
    O(F_ACT_OFFLOAD_TIME_S, "act_offload_time_s", REAL, "s",
      "of offload_time_s: activation copies not hidden under compute, per "
      "step"),
};

#undef O
#undef I

int tplan_field_count(void)
{
    return F_COUNT;
}

const tplan_field *tplan_field_at(int id)
{
    return id >= 0 && id < F_COUNT ? &fields[id] : NULL;
}

int tplan_field_find(const char *name)
{
    for (int i = 0; i < F_COUNT; i++)
        if (strcmp(fields[i].name, name) == 0)
            return i;
    return -1;
}

int tplan_field_find_input(const char *name)
{
    for (int i = 0; i < F_COUNT; i++)
        if (fields[i].input && strcmp(fields[i].input, name) == 0)
            return i;
    return -1;
}

int tplan_field_find_flag(const char *flag)
{
    for (int i = 0; i < F_COUNT; i++)
        if (fields[i].flag && strcmp(fields[i].flag, flag) == 0)
            return i;
    return -1;
}

/* ---- messages ---------------------------------------------------------- */

/* A bound as people write it: whole numbers in full, others short. */
static void fmt_bound(double v, char *buf, size_t len)
{
    if (v == floor(v) && fabs(v) < 1e15)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%g", v);
}

void tplan_field_valid(int id, char *buf, size_t len)
{
    const tplan_field *f = tplan_field_at(id);
    char lo[32], hi[32];
    size_t n = 0;

    if (!len)
        return;
    buf[0] = '\0';
    if (!f)
        return;
    switch (f->kind) {
    case TPLAN_FK_INT:
    case TPLAN_FK_REAL:
        fmt_bound(f->min, lo, sizeof lo);
        fmt_bound(f->max, hi, sizeof hi);
        snprintf(buf, len, "%s %s %s to %s%s",
                 f->kind == TPLAN_FK_INT ? "an integer" : "a number", "from",
                 lo, hi,
                 f->flags & TPLAN_FIELD_MAX     ? ", or max"
                 : id == F_OFFLOAD_ACTIVATIONS ? ", or all"
                                               : "");
        break;
    case TPLAN_FK_BOOL:
        snprintf(buf, len, "true, false");
        break;
    case TPLAN_FK_SET:
        n = (size_t)snprintf(buf, len, "some of ");
        __attribute__((fallthrough));
    case TPLAN_FK_ENUM:
    case TPLAN_FK_TEXT:
    case TPLAN_FK_NAME:
        for (int i = 0; f->values[i] && n < len; i++)
            n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
                                  f->values[i]);
        break;
    default:
        snprintf(buf, len, "%s", f->doc);
        break;
    }
}

int tplan_field_error(int id, const char *value, const char *why,
                      tplan_err *err)
{
    const tplan_field *f = tplan_field_at(id);
    char valid[200];

    tplan_field_valid(id, valid, sizeof valid);
    return tplan_err_set(err, TPLAN_EINVAL, f ? f->input : "field",
                         "%s: %.64s: %s (valid: %s)", f ? f->input : "field",
                         value, why, valid);
}

/* A number as a message shows it: integers in full, else the shortest
 * form that reads back exactly (0.1, not 0.10000000000000001). */
static void fmt_value(double v, char *buf, size_t len)
{
    if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(buf, len, "%.0f", v);
        return;
    }
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, len, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* ---- inputs ------------------------------------------------------------ */

/* The range and integer checks shared by text and numbers; shown is the
 * value as the user gave it. */
static int check_shown(int id, double v, const char *shown, tplan_err *err)
{
    const tplan_field *f = &fields[id];

    switch (f->kind) {
    case TPLAN_FK_INT:
        if (!isfinite(v) || v != floor(v))
            return tplan_field_error(id, shown, "not an integer", err);
        __attribute__((fallthrough));
    case TPLAN_FK_REAL:
        if (!(v >= f->min && v <= f->max))
            return tplan_field_error(id, shown, "out of range", err);
        return TPLAN_OK;
    case TPLAN_FK_BOOL:
        if (v != 0 && v != 1)
            return tplan_field_error(id, shown, "not a boolean", err);
        return TPLAN_OK;
    case TPLAN_FK_ENUM:
        return tplan_field_error(id, shown, "not a name", err);
    case TPLAN_FK_SET: /* a mask of the names */
        if (v == floor(v) && v >= f->min && v <= f->max &&
            ((unsigned)v & ~(unsigned)f->max) == 0)
            return TPLAN_OK;
        return tplan_field_error(id, shown, "not a set of names", err);
    default:
        return tplan_field_error(id, shown, "not a value of this field", err);
    }
}

int tplan_field_check(int id, double v, tplan_err *err)
{
    char shown[40];

    if (id < 0 || id >= F_COUNT || !(fields[id].flags & TPLAN_FIELD_IN))
        return tplan_err_set(err, TPLAN_EINVAL, "field",
                             "field %d is not an input", id);
    fmt_value(v, shown, sizeof shown);
    return check_shown(id, v, shown, err);
}

int tplan_field_parse(int id, const char *text, double *v, tplan_err *err)
{
    const tplan_field *f = tplan_field_at(id);

    if (!f || !(f->flags & TPLAN_FIELD_IN))
        return tplan_err_set(err, TPLAN_EINVAL, "field",
                             "field %d is not an input", id);
    switch (f->kind) {
    case TPLAN_FK_INT:
    case TPLAN_FK_REAL:
        if ((f->flags & TPLAN_FIELD_MAX) && strcmp(text, "max") == 0) {
            *v = 0;
            return TPLAN_OK;
        }
        if (id == F_OFFLOAD_ACTIVATIONS && strcmp(text, "all") == 0) {
            *v = 1;
            return TPLAN_OK;
        }
        if (!tplan_number_parse(text, f->flags & TPLAN_FIELD_SUFFIX, v))
            return tplan_field_error(id, text,
                                     f->kind == TPLAN_FK_INT ? "not an integer"
                                                             : "not a number",
                                     err);
        return check_shown(id, *v, text, err);
    case TPLAN_FK_BOOL:
        if (strcmp(text, "true") == 0 || strcmp(text, "1") == 0)
            *v = 1;
        else if (strcmp(text, "false") == 0 || strcmp(text, "0") == 0)
            *v = 0;
        else
            return tplan_field_error(id, text, "not a boolean", err);
        return TPLAN_OK;
    case TPLAN_FK_ENUM:
        for (int i = 0; f->values[i]; i++) {
            if (strcmp(text, f->values[i]) == 0) {
                *v = i;
                return TPLAN_OK;
            }
        }
        return tplan_field_error(id, text, "unknown name", err);
    case TPLAN_FK_SET: {
        unsigned mask;

        if (!(id == F_RECOMPUTE_MODULES
                  ? tplan_recompute_modules_parse(text, &mask)
                  : tplan_lora_targets_parse(text, &mask)))
            return tplan_field_error(id, text, "unknown name", err);
        *v = mask;
        return TPLAN_OK;
    }
    default:
        return tplan_field_error(id, text, "not a single value", err);
    }
}

/* An integer or enum field's value: parse or check passed it, so it is
 * in range. Converted in the cases that read it, not before the switch:
 * a sweep applies a number field (nic_gbps, pue) at almost every step. */
static int64_t ival(double v)
{
    return v >= -1e15 && v <= 1e15 ? (int64_t)v : 0;
}

/* offsetof a double member of tplan_config (a compile error for any
 * other type) */
#define DOUBLE_AT(member)                                                      \
    _Generic(((tplan_config *)0)->member,                                     \
        double: (long)offsetof(tplan_config, member))

long tplan_field_double_at(int id)
{
    /* tplan_field_apply's cases that write one double and nothing else */
    switch (id) {
    case F_RESERVE:
        return DOUBLE_AT(reserve_fraction);
    case F_TOKENS:
        return DOUBLE_AT(tokens);
    case F_PRICE:
        return DOUBLE_AT(price_usd_per_h);
    case F_NIC_GBPS:
        return DOUBLE_AT(nic_bytes_per_s);
    case F_LINK_GBS:
        return DOUBLE_AT(link_bytes_per_s);
    case F_OVERLAP:
        return DOUBLE_AT(overlap);
    case F_EFFICIENCY:
        return DOUBLE_AT(efficiency);
    case F_PUE:
        return DOUBLE_AT(pue);
    case F_POWER_UTIL:
        return DOUBLE_AT(power_util);
    case F_GRID:
        return DOUBLE_AT(grid_kg_per_kwh);
    case F_DP_BW_EFF:
        return DOUBLE_AT(dp_bw_eff);
    case F_ZERO3_BW_EFF:
        return DOUBLE_AT(zero3_bw_eff);
    case F_ZERO12_OVERLAP:
        return DOUBLE_AT(zero12_overlap);
    case F_TP_OVERLAP:
        return DOUBLE_AT(tp_overlap);
    default:
        return -1;
    }
}

bool tplan_field_writes_alone(int id)
{
    switch (id) {
    case F_MODEL:  /* the model struct, and seq (seq_from_model) */
    case F_GPU:    /* the gpu struct */
    case F_SEQ:    /* set by a model axis too */
    case F_GLOBAL_BATCH:        /* one target: clears the other */
    case F_GLOBAL_BATCH_TOKENS:
    case F_FIT_ATTENTION: /* sets attention too */
    case F_ATTENTION:
    case F_DROPOUT: /* held in the model or gpu struct */
    case F_BATCH_NORM:
    case F_EFF_MAX:
    case F_EFF_H0:
    case F_EFF_TOK0:
    case F_ATTN_EFF:
    case F_FP8_RATIO:
    case F_EFF_TP:
        return false;
    default:
        return id >= 0 && id < F_COUNT;
    }
}

tplan_recheck tplan_field_recheck(int id)
{
    switch (id) {
    case F_RECOMPUTE:
        return TPLAN_RECHECK_RECOMPUTE;
    case F_PRECISION:
        return TPLAN_RECHECK_PRECISION;
    case F_ZERO:
        return TPLAN_RECHECK_ZERO;
    case F_MICRO_BATCH:
        return TPLAN_RECHECK_MICRO_BATCH;
    default:
        return TPLAN_RECHECK_NONE;
    }
}

bool tplan_field_states_free(int id)
{
    /* keep in step with memory.c, states_same */
    return id == F_RECOMPUTE || id == F_RECOMPUTE_MODULES ||
           id == F_MICRO_BATCH || id == F_ACCUM;
}

void tplan_field_apply(int id, double v, tplan_config *c)
{
    switch (id) {
    case F_GPUS:
        c->gpus = ival(v);
        break;
    case F_TP:
        c->tp = ival(v);
        break;
    case F_PP:
        c->pp = ival(v);
        break;
    case F_VPP:
        c->vpp = ival(v);
        break;
    case F_SP:
        c->sp = ival(v) != 0;
        break;
    case F_ZERO:
        c->zero = (int)ival(v);
        break;
    case F_PRECISION:
        c->precision = (tplan_precision)ival(v);
        break;
    case F_OPTIMIZER:
        c->optimizer = (tplan_optimizer)ival(v);
        break;
    case F_RECOMPUTE:
        c->recompute = (tplan_recompute)ival(v);
        break;
    case F_ATTENTION:
        c->attention = (tplan_attention)ival(v);
        break;
    case F_PROFILE:
        c->profile = (tplan_profile)ival(v);
        break;
    case F_SEQ:
        c->seq = ival(v);
        break;
    case F_MICRO_BATCH:
        c->micro_batch = ival(v);
        break;
    case F_ACCUM:
        c->accum = ival(v);
        break;
    case F_GLOBAL_BATCH: /* one target: the last one set */
        c->global_batch = ival(v);
        c->global_batch_tokens = 0;
        break;
    case F_GLOBAL_BATCH_TOKENS:
        c->global_batch_tokens = v;
        c->global_batch = 0;
        break;
    case F_GPUS_PER_NODE:
        c->gpus_per_node = ival(v);
        break;
    case F_FP32_GRADS:
        c->fp32_grads = ival(v) != 0;
        break;
    case F_FUSED_LOSS:
        c->fused_loss = ival(v) != 0;
        break;
    case F_DROPOUT:
        c->model.dropout = v;
        break;
    case F_BATCH_NORM:
        c->model.batch_norm = ival(v) != 0;
        break;
    case F_RESERVE:
        c->reserve_fraction = v;
        break;
    case F_CONTEXT_MIB:
        c->context_bytes = v * 1024.0 * 1024.0;
        break;
    case F_TOKENS:
        c->tokens = v;
        break;
    case F_EPOCHS:
        c->epochs = v;
        break;
    case F_DATASET:
        c->dataset_samples = v;
        break;
    case F_PRICE:
        c->price_usd_per_h = v;
        break;
    case F_NIC_GBPS:
        c->nic_bytes_per_s = v * 1e9 / 8.0;
        break;
    case F_LINK_GBS:
        c->link_bytes_per_s = v * 1e9;
        break;
    case F_OVERLAP:
        c->overlap = v;
        break;
    case F_EFFICIENCY:
        c->efficiency = v;
        break;
    case F_EFF_MAX:
        c->gpu.eff_max = v;
        break;
    case F_EFF_H0:
        c->gpu.eff_h0 = v;
        break;
    case F_EFF_TOK0:
        c->gpu.eff_tok0 = v;
        break;
    case F_ATTN_EFF:
        c->gpu.attn_eff = v;
        break;
    case F_FP8_RATIO:
        c->gpu.fp8_ratio = v;
        c->fp8_ratio_set = true;
        break;
    case F_FIT_ATTENTION:
        c->fit_attention = (tplan_fit_attention)ival(v);
        if (c->fit_attention != TPLAN_FIT_ATTN_ANY)
            c->attention = (tplan_attention)(ival(v) - 1);
        break;
    case F_FP8_RECIPE:
        c->fp8_recipe = (tplan_fp8_recipe)ival(v);
        break;
    case F_EFF_TP:
        c->gpu.eff_tp = v;
        break;
    case F_PUE:
        c->pue = v;
        break;
    case F_POWER_UTIL:
        c->power_util = v;
        break;
    case F_GRID:
        c->grid_kg_per_kwh = v;
        break;
    case F_LR:
        c->lr = v;
        break;
    case F_LR_BASE_BATCH:
        c->lr_base_batch = v;
        break;
    case F_LR_RULE:
        c->lr_rule = (tplan_lr_rule)ival(v);
        c->lr_rule_set = true;
        break;
    case F_LR_THRESHOLD:
        c->lr_threshold = v;
        break;
    case F_LR_CAP:
        c->lr_cap = v;
        break;
    case F_LR_FLOOR:
        c->lr_floor = v;
        break;
    case F_WEIGHT_DECAY:
        c->weight_decay = v;
        break;
    case F_SCHEDULE:
        c->schedule = (tplan_schedule)ival(v);
        break;
    case F_WSD_DECAY:
        c->wsd_decay = v;
        break;
    case F_CRITICAL_BATCH_TOKENS:
        c->b_noise_tokens = v;
        break;
    case F_TARGET_LOSS:
        c->target_loss = v;
        break;
    case F_FINETUNE:
        c->finetune = ival(v) != 0;
        break;
    case F_LOSS_SCALING:
        c->loss_scaling = ival(v) != 0;
        break;
    case F_LORA_RANK:
        c->lora_rank = ival(v);
        break;
    case F_LORA_TARGETS:
        c->lora_targets = (unsigned)ival(v);
        break;
    case F_LORA_DROPOUT:
        c->lora_dropout = v;
        break;
    case F_DORA:
        c->dora = ival(v) != 0;
        break;
    case F_HOST_BUFFER_FACTOR:
        c->host_buffer_factor = v;
        break;
    case F_OFFLOAD_ACTIVATIONS:
        c->offload_activations = v;
        break;
    case F_ZERO_SHARD_GROUP:
        c->zero_shard_group = ival(v);
        break;
    case F_RESHARD_AFTER_FORWARD:
        c->reshard_after_forward = ival(v) != 0;
        break;
    case F_BASE_PRECISION:
        c->base_precision = (tplan_base_precision)ival(v);
        break;
    case F_DOUBLE_QUANT:
        c->double_quant = ival(v) != 0;
        break;
    case F_OFFLOAD_OPTIMIZER:
        c->offload_optimizer = (tplan_offload)ival(v);
        break;
    case F_OFFLOAD_PARAMS:
        c->offload_params = (tplan_offload)ival(v);
        break;
    case F_HOST_MEMORY:
        c->host_memory_bytes = v * 1024.0 * 1024.0 * 1024.0;
        break;
    case F_PCIE_GBS:
        c->pcie_bytes_per_s = v * 1e9;
        break;
    case F_NVME_GBS:
        c->nvme_bytes_per_s = v * 1e9;
        break;
    case F_EP:
        c->ep = ival(v);
        break;
    case F_CP:
        c->cp = ival(v);
        break;
    case F_CAPACITY_FACTOR:
        c->capacity_factor = v;
        break;
    case F_MOE_IMBALANCE:
        c->moe_imbalance = v;
        break;
    case F_MOE_OVERLAP:
        c->moe_overlap = v;
        break;
    case F_EFF_SCALE:
        c->eff_scale = v;
        break;
    case F_DP_BW_EFF:
        c->dp_bw_eff = v;
        break;
    case F_ZERO3_BW_EFF:
        c->zero3_bw_eff = v;
        break;
    case F_TIME_BAND_LO:
        c->time_band_lo = v;
        break;
    case F_TIME_BAND_HI:
        c->time_band_hi = v;
        break;
    case F_ALLOC_FRAC:
        c->alloc_frac = v;
        break;
    case F_NCCL_MIB:
        c->nccl_bytes = v * 1024.0 * 1024.0;
        break;
    case F_NCCL_A2A_MIB:
        c->nccl_a2a_bytes = v * 1024.0 * 1024.0;
        break;
    case F_NCCL_NVLS_MIB:
        c->nccl_nvls_bytes = v * 1024.0 * 1024.0;
        break;
    case F_PP_EMBED_LOSS:
        c->pp_embed_loss = ival(v) != 0;
        break;
    case F_GRAD_BUCKET_COPY:
        c->grad_bucket_copy = ival(v) != 0;
        break;
    case F_REDUCE_BUCKET:
        c->reduce_bucket = v;
        break;
    case F_OPTIM_TEMP:
        c->optim_temp = v;
        break;
    case F_GATHER_SETS:
        c->gather_sets = v;
        break;
    case F_FUSED_NORM:
        c->fused_norm = ival(v) != 0;
        break;
    case F_BLAS_WS:
        c->blas_ws = ival(v) != 0;
        break;
    case F_SET_TO_NONE:
        c->set_to_none = ival(v) != 0;
        break;
    case F_PP_SCHEDULE:
        c->pp_schedule = (tplan_pp_schedule)ival(v);
        break;
    case F_COMM_SM_SHARE:
        c->comm_sm_share = v;
        break;
    case F_RECOMPUTE_MODULES:
        c->recompute_modules = (unsigned)ival(v);
        break;
    case F_FP8_ACTIVATIONS:
        c->fp8_activations = ival(v) != 0;
        break;
    case F_ETP:
        c->etp = ival(v);
        break;
    case F_PP_FIRST_LAYERS:
        c->pp_first_layers = ival(v);
        break;
    case F_PP_LAST_LAYERS:
        c->pp_last_layers = ival(v);
        break;
    case F_ZERO12_OVERLAP:
        c->zero12_overlap = v;
        break;
    case F_TP_OVERLAP:
        c->tp_overlap = v;
        break;
    case F_MEM_BAND_LO:
        c->mem_band_lo = v;
        break;
    case F_MEM_BAND_HI:
        c->mem_band_hi = v;
        break;
    case F_CALIB_PARAMS_MIN:
        c->calib.params[0] = v;
        break;
    case F_CALIB_PARAMS_MAX:
        c->calib.params[1] = v;
        break;
    case F_CALIB_GPUS_MIN:
        c->calib.gpus[0] = v;
        break;
    case F_CALIB_GPUS_MAX:
        c->calib.gpus[1] = v;
        break;
    case F_CALIB_SEQ_MIN:
        c->calib.seq[0] = v;
        break;
    case F_CALIB_SEQ_MAX:
        c->calib.seq[1] = v;
        break;
    case F_CALIB_TIME_ERR:
        c->calib.time_err = v;
        break;
    case F_CALIB_MEM_ERR:
        c->calib.mem_err = v;
        break;
    default: /* names and text are set elsewhere */
        break;
    }
}

int tplan_field_set_text(int id, const char *text, tplan_config *c,
                         tplan_err *err)
{
    const tplan_field *f = tplan_field_at(id);
    double v;
    int rc;

    if (f && id == F_WARMUP) {
        if (tplan_warmup_parse(text, &c->warmup, &c->warmup_unit, NULL))
            return tplan_field_error(id, text, "not a warmup", err);
        return TPLAN_OK;
    }
    if (f && id == F_BATCH_RAMP) {
        if (tplan_ramp_parse(text, c->ramp, &c->n_ramp, NULL))
            return tplan_field_error(id, text, "not a batch ramp", err);
        return TPLAN_OK;
    }
    if (f && f->kind == TPLAN_FK_NAME)
        return tplan_field_error(id, text, "names are looked up by the caller",
                                 err);
    if ((rc = tplan_field_parse(id, text, &v, err)))
        return rc;
    tplan_field_apply(id, v, c);
    return TPLAN_OK;
}

int tplan_field_set_number(int id, double v, tplan_config *c, tplan_err *err)
{
    const tplan_field *f = tplan_field_at(id);
    int rc;

    if (f && f->kind == TPLAN_FK_TEXT) {
        char text[40];

        fmt_value(v, text, sizeof text);
        return tplan_field_set_text(id, text, c, err);
    }
    if ((rc = tplan_field_check(id, v, err)))
        return rc;
    tplan_field_apply(id, v, c);
    return TPLAN_OK;
}

void tplan_fields_finish(tplan_config *c)
{
    if (c->n_ramp && c->global_batch == 0 && c->global_batch_tokens == 0)
        c->global_batch_tokens = c->ramp[c->n_ramp - 1].batch_tokens;
}

/* ---- outputs ----------------------------------------------------------- */

static tplan_value vi(int64_t i)
{
    tplan_value v = {i, 0.0, NULL};

    return v;
}

static tplan_value vr(double r)
{
    tplan_value v = {0, r, NULL};

    return v;
}

static tplan_value vs(const char *s)
{
    tplan_value v = {0, 0.0, s};

    return v;
}

/* An input given as 0 = none: NaN then. */
static tplan_value opt(double x)
{
    return vr(x > 0 ? x : (double)NAN);
}

/* A run figure, or NaN (no value) without a budget. */
static tplan_value run(const tplan_plan *p, double x)
{
    return vr(p->run.has_budget ? x : (double)NAN);
}

/* A figure of the time model, NaN for an untimed (generic) model. */
static tplan_value timed(const tplan_plan *p, double x)
{
    return vr(p->perf.timed ? x : (double)NAN);
}

/* The warmup as it was given: "2000steps", "375Mtokens" written in full,
 * "5epochs", "1%"; NULL when none was given. */
static tplan_value warmup_text(const tplan_config *c, char *buf, size_t len)
{
    static const char *const unit[] = {"", "steps", "tokens", "epochs", "%"};
    double v = c->warmup_unit == TPLAN_WARMUP_FRACTION ? c->warmup * 100.0
                                                       : c->warmup;

    if (c->warmup_unit == TPLAN_WARMUP_AUTO || !len)
        return vs(NULL);
    snprintf(buf, len, "%.17g%s", v, unit[c->warmup_unit]);
    return vs(buf);
}

/* The ramp as BATCH:UNTIL phases; NULL when none. */
static tplan_value ramp_text(const tplan_config *c, char *buf, size_t len)
{
    size_t n = 0;

    if (!c->n_ramp || !len)
        return vs(NULL);
    buf[0] = '\0';
    for (int i = 0; i < c->n_ramp && n < len; i++) {
        const tplan_ramp_phase *r = &c->ramp[i];

        n += (size_t)snprintf(buf + n, len - n, "%s%.17g", i ? "," : "",
                              r->batch_tokens);
        if (n < len && r->until_tokens > 0)
            n += (size_t)snprintf(buf + n, len - n, ":%.17g", r->until_tokens);
    }
    return vs(buf);
}

static tplan_value warnings_text(const tplan_plan *p, char *buf, size_t len)
{
    size_t n = 0;

    if (len)
        buf[0] = '\0';
    /* one text: the warnings joined by " | " */
    for (int i = 0; i < p->n_warnings && len; i++) {
        size_t w = strlen(p->warnings[i]);

        if (n + w + 4 >= len)
            break;
        if (i) {
            memcpy(buf + n, " | ", 3);
            n += 3;
        }
        memcpy(buf + n, p->warnings[i], w);
        n += w;
        buf[n] = '\0';
    }
    return vs(buf);
}

/* Outputs of the layout and recipe (the first half of the table). */
static tplan_value get_config(int id, const tplan_plan *p)
{
    const tplan_config *c = &p->config;

    switch (id) {
    case F_MODEL:
        return vs(c->model.name);
    case F_GPU:
        return vs(c->gpu.name);
    case F_GPUS:
        return vi(c->gpus);
    case F_TP:
        return vi(c->tp);
    case F_PP:
        return vi(c->pp);
    case F_DP:
        return vi(p->dp);
    case F_VPP:
        return vi(c->vpp);
    case F_SP:
        return vi(c->sp);
    case F_ZERO:
        return vi(c->zero);
    case F_PRECISION:
        return vs(precision_names[c->precision]);
    case F_OPTIMIZER:
        return vs(optimizer_names[c->optimizer]);
    case F_RECOMPUTE:
        return vs(recompute_names[c->recompute]);
    case F_ATTENTION:
        return vs(attention_names[c->attention]);
    case F_PROFILE:
        return vs(profile_names[c->profile]);
    case F_SEQ:
        return vi(c->seq);
    case F_GPUS_PER_NODE:
        return vi(tplan_config_gpus_per_node(c));
    case F_FP32_GRADS:
        return vi(c->fp32_grads);
    case F_FUSED_LOSS:
        return vi(c->fused_loss);
    case F_DROPOUT:
        return vr(c->model.dropout);
    case F_BATCH_NORM:
        return vi(c->model.batch_norm);
    case F_GLOBAL_BATCH_TOKENS:
        return opt(c->global_batch_tokens);
    case F_RESERVE:
        return vr(c->reserve_fraction);
    case F_CONTEXT_MIB:
        return vr(c->context_bytes / (1024.0 * 1024.0));
    case F_EPOCHS:
        return opt(c->epochs);
    case F_DATASET:
        return opt(c->dataset_samples);
    case F_NIC_GBPS:
        return vr((c->nic_bytes_per_s > 0 ? c->nic_bytes_per_s
                                          : c->gpu.nic_bytes_per_s) *
                  8.0 / 1e9);
    case F_LINK_GBS:
        return vr((c->link_bytes_per_s > 0 ? c->link_bytes_per_s
                                           : c->gpu.link_bytes_per_s) /
                  1e9);
    case F_OVERLAP:
        return vr(c->overlap);
    case F_EFF_MAX:
        return vr(c->gpu.eff_max);
    case F_EFF_H0:
        return vr(c->gpu.eff_h0);
    case F_EFF_TOK0:
        return vr(c->gpu.eff_tok0);
    case F_ATTN_EFF:
        return vr(c->gpu.attn_eff);
    case F_FP8_RATIO:
        return vr(tplan_config_fp8_ratio(c));
    case F_FIT_ATTENTION:
        return vs(fit_attention_names[c->fit_attention]);
    case F_FP8_RECIPE:
        return vs(fp8_recipe_names[c->fp8_recipe]);
    case F_EFF_TP:
        return vr(c->gpu.eff_tp);
    case F_PUE:
        return vr(c->pue);
    case F_POWER_UTIL:
        return vr(c->power_util);
    case F_GRID:
        return vr(c->grid_kg_per_kwh);
    case F_LR_THRESHOLD:
        return opt(c->lr_threshold);
    case F_LR_CAP:
        return opt(c->lr_cap);
    case F_LR_FLOOR:
        return vr(c->lr_floor);
    case F_WEIGHT_DECAY:
        return opt(c->weight_decay);
    case F_SCHEDULE:
        return vs(schedule_names[c->schedule]);
    case F_WSD_DECAY:
        return vr(c->wsd_decay);
    case F_CRITICAL_BATCH_TOKENS:
        return opt(c->b_noise_tokens);
    case F_TARGET_LOSS:
        return opt(c->target_loss);
    case F_FINETUNE:
        return vi(c->finetune);
    case F_LOSS_SCALING:
        return vi(c->loss_scaling);
    case F_LORA_RANK:
        return vi(c->lora_rank);
    case F_LORA_DROPOUT:
        return vr(c->lora_dropout);
    case F_DORA:
        return vi(c->dora);
    case F_HOST_BUFFER_FACTOR:
        return vr(c->host_buffer_factor);
    case F_OFFLOAD_ACTIVATIONS:
        return vr(c->offload_activations);
    case F_ZERO_SHARD_GROUP:
        /* as given: a stored plan rebuilt at another GPU count (a
         * report's scaling rows) keeps plain ZeRO plain */
        return vi(c->zero_shard_group);
    case F_ZERO_REPLICAS:
        return vi(tplan_config_zero_replicas(c));
    case F_RESHARD_AFTER_FORWARD:
        return vi(c->reshard_after_forward);
    case F_BASE_PRECISION:
        return vs(base_names[c->base_precision]);
    case F_DOUBLE_QUANT:
        return vi(c->double_quant);
    case F_OFFLOAD_OPTIMIZER:
        return vs(offload_names[c->offload_optimizer]);
    case F_OFFLOAD_PARAMS:
        return vs(offload_names[c->offload_params]);
    case F_HOST_MEMORY:
        return vr(tplan_config_host_memory(c) / (1024.0 * 1024.0 * 1024.0));
    case F_PCIE_GBS:
        return vr(tplan_config_pcie(c) / 1e9);
    case F_NVME_GBS:
        return vr(tplan_config_nvme(c) / 1e9);
    case F_EP:
        return vi(c->ep);
    case F_CP:
        return vi(c->cp);
    case F_CAPACITY_FACTOR:
        return vr(c->capacity_factor);
    case F_MOE_IMBALANCE:
        /* an MoE plan reads back the load it ran with (0 given: the
         * router's default), so a stored plan names it */
        return vr(tplan_model_moe(&c->model) ? tplan_config_moe_imbalance(c)
                                             : c->moe_imbalance);
    case F_MOE_OVERLAP:
        return vr(c->moe_overlap);
    case F_FRAMEWORK:
        return vs(c->framework[0] ? c->framework : NULL);
    case F_EFF_SCALE:
        return vr(c->eff_scale);
    case F_DP_BW_EFF:
        return vr(c->dp_bw_eff);
    case F_ZERO3_BW_EFF:
        return vr(c->zero3_bw_eff);
    case F_TIME_BAND_LO:
        return vr(c->time_band_lo);
    case F_TIME_BAND_HI:
        return vr(c->time_band_hi);
    case F_ALLOC_FRAC:
        return vr(c->alloc_frac);
    case F_NCCL_MIB:
        return vr(c->nccl_bytes / (1024.0 * 1024.0));
    case F_NCCL_A2A_MIB:
        return vr(c->nccl_a2a_bytes / (1024.0 * 1024.0));
    case F_NCCL_NVLS_MIB:
        return vr(c->nccl_nvls_bytes / (1024.0 * 1024.0));
    case F_PP_EMBED_LOSS:
        return vi(c->pp_embed_loss);
    case F_GRAD_BUCKET_COPY:
        return vi(c->grad_bucket_copy);
    case F_REDUCE_BUCKET:
        return vr(c->reduce_bucket);
    case F_OPTIM_TEMP:
        return vr(c->optim_temp);
    case F_GATHER_SETS:
        return vr(c->gather_sets);
    case F_FUSED_NORM:
        return vi(c->fused_norm);
    case F_BLAS_WS:
        return vi(c->blas_ws);
    case F_SET_TO_NONE:
        return vi(c->set_to_none);
    case F_PP_SCHEDULE:
        return vs(pp_schedule_names[tplan_config_pp_schedule(c)]);
    case F_COMM_SM_SHARE:
        return vr(tplan_config_comm_sms(c));
    case F_FP8_ACTIVATIONS:
        return vi(c->fp8_activations);
    case F_ETP:
        return vi(tplan_config_etp(c));
    case F_PP_FIRST_LAYERS:
        return vi(c->pp_first_layers);
    case F_PP_LAST_LAYERS:
        return vi(c->pp_last_layers);
    case F_ZERO12_OVERLAP:
        return vr(c->zero12_overlap);
    case F_TP_OVERLAP:
        return vr(c->tp_overlap);
    case F_MEM_BAND_LO:
        return vr(c->mem_band_lo);
    case F_MEM_BAND_HI:
        return vr(c->mem_band_hi);
    case F_CALIB_PARAMS_MIN:
        return vr(c->calib.params[0]);
    case F_CALIB_PARAMS_MAX:
        return vr(c->calib.params[1]);
    case F_CALIB_GPUS_MIN:
        return vr(c->calib.gpus[0]);
    case F_CALIB_GPUS_MAX:
        return vr(c->calib.gpus[1]);
    case F_CALIB_SEQ_MIN:
        return vr(c->calib.seq[0]);
    case F_CALIB_SEQ_MAX:
        return vr(c->calib.seq[1]);
    case F_CALIB_TIME_ERR:
        return vr(c->calib.time_err);
    case F_CALIB_MEM_ERR:
        return vr(c->calib.mem_err);
    default:
        return vi(0);
    }
}

tplan_value tplan_field_get(int id, const tplan_plan *p, char *buf, size_t len)
{
    const tplan_memory *m = &p->mem;
    const tplan_perf *f = &p->perf;

    switch (id) {
    case F_MICRO_BATCH:
        return vi(p->micro_batch);
    case F_ACCUM:
        return vi(p->accum);
    case F_GLOBAL_BATCH:
        return vi(p->global_batch);
    case F_TOKENS_PER_STEP:
        return vi(p->tokens_per_step);
    case F_PARAMS:
        return vi(p->params);
    case F_WEIGHTS_BYTES:
        return vi(m->weights_bytes);
    case F_GRADS_BYTES:
        return vi(m->grads_bytes);
    case F_OPTIMIZER_BYTES:
        return vi(m->optimizer_bytes);
    case F_ACTIVATIONS_BYTES:
        return vi(m->activations_bytes);
    case F_OVERHEAD_BYTES:
        return vi(m->overhead_bytes);
    case F_TOTAL_BYTES:
        return vi(m->total_bytes);
    case F_TOTAL_BYTES_LO:
        return vi(m->total_bytes_lo);
    case F_TOTAL_BYTES_HI:
        return vi(m->total_bytes_hi);
    case F_ALLOC_BYTES:
        return vi(m->alloc_bytes);
    case F_NCCL_BYTES:
        return vi(m->nccl_bytes);
    case F_BUCKET_BYTES:
        return vi(m->bucket_bytes);
    case F_STEP_TEMP_BYTES:
        return vi(m->step_temp_bytes);
    case F_TRANSIENT_BYTES:
        return vi(m->transient_bytes);
    case F_COMMUNICATORS:
        return vi(m->communicators);
    case F_NVLS_BYTES:
        return vi(m->nvls_bytes);
    case F_BLAS_WS_BYTES:
        return vi(m->blas_ws_bytes);
    case F_OFF_PEAK_BYTES:
        return vi(m->off_peak_bytes);
    case F_FIT_CONFIDENCE:
        return vs(tplan_fit_confidence_name(m->fit_confidence));
    case F_CAPACITY_BYTES:
        return vi(m->capacity_bytes);
    case F_USABLE_BYTES:
        return vi(m->usable_bytes);
    case F_HEADROOM_BYTES:
        return vi(m->usable_bytes - m->total_bytes);
    case F_FITS:
        return vi(m->fits);
    case F_MAX_MICRO_BATCH:
        return vi(p->max_micro_batch);
    case F_FLOPS_PER_STEP:
        return timed(p, f->flops_per_step);
    case F_STEP_TIME_S:
        return timed(p, f->step_time_s);
    case F_STEP_TIME_S_LO:
        return timed(p, f->step_time_s_lo);
    case F_STEP_TIME_S_HI:
        return timed(p, f->step_time_s_hi);
    case F_TOKENS_PER_S:
        return timed(p, f->tokens_per_s);
    case F_SAMPLES_PER_S:
        return timed(p, f->samples_per_s);
    case F_MFU:
        return timed(p, f->mfu);
    case F_HFU:
        return timed(p, f->hfu);
    case F_EFFICIENCY:
        return timed(p, f->matmul_eff);
    case F_STEPS:
        return run(p, (double)p->run.steps);
    case F_TIME_H:
        return run(p, p->run.time_h);
    case F_GPU_HOURS:
        return run(p, p->run.gpu_hours);
    case F_COST_USD:
        return run(p, p->run.cost_usd);
    case F_ENERGY_KWH:
        return run(p, p->run.energy_kwh);
    case F_CO2_KG:
        return run(p, p->run.co2_kg);
    case F_TOKENS:
        return run(p, p->run.tokens);
    case F_PRICE:
        return vr(p->run.price_usd_per_h);
    case F_LR_PEAK:
        return vr(p->lr.set ? p->lr.peak : (double)NAN);
    case F_WARMUP_STEPS:
        return vr(p->lr.set ? (double)p->lr.schedule.warmup_steps
                            : (double)NAN);
    case F_LR:
        return vr(p->lr.set ? p->lr.base : (double)NAN);
    case F_LR_BASE_BATCH:
        return vr(p->lr.set ? p->lr.base_batch : (double)NAN);
    case F_LR_RULE:
        return vs(p->lr.set ? lr_rule_names[p->lr.rule] : NULL);
    case F_WARMUP:
        return warmup_text(&p->config, buf, len);
    case F_BATCH_RAMP:
        return ramp_text(&p->config, buf, len);
    case F_WARNINGS:
        return warnings_text(p, buf, len);
    case F_LORA_TARGETS:
        if (len)
            tplan_lora_targets_format(p->config.lora_targets, buf, len);
        return vs(len ? buf : NULL);
    case F_RECOMPUTE_MODULES:
        if (len)
            tplan_recompute_modules_format(p->config.recompute_modules, buf,
                                           len);
        return vs(len ? buf : NULL);
    case F_PP_STAGE_LAYERS:
        if (len)
            tplan_stage_layers_format(&p->config, buf, len);
        return vs(len ? buf : NULL);
    case F_SLOWEST_STAGE:
        return vi(f->slowest_stage);
    case F_TRAINABLE_PARAMS:
        return vi(p->trainable_params);
    case F_HOST_BYTES:
        return vi(m->host_bytes);
    case F_NVME_BYTES:
        return vi(m->nvme_bytes);
    case F_OFFLOAD_TIME_S:
        return timed(p, f->offload_s);
    case F_DEQUANT_TIME_S:
        return timed(p, f->dequant_s);
    case F_ACTIVE_PARAMS:
        return vi(p->active_params);
    case F_EP_TIME_S:
        return timed(p, f->ep_exposed_s);
    case F_CP_TIME_S:
        return timed(p, f->cp_exposed_s);
    case F_ACT_OFFLOAD_BYTES:
        return vi(m->act_offload_bytes);
    case F_ACT_OFFLOAD_TIME_S:
        return timed(p, f->act_offload_s);
    default:
        return get_config(id, p);
    }
}

const char *tplan_field_value_name(int id, double v)
{
    const tplan_field *f = tplan_field_at(id);

    if (f && f->kind == TPLAN_FK_ENUM && v >= 0.0)
        return f->values[(int)v];
    if (f && f->kind == TPLAN_FK_BOOL)
        return v != 0.0 ? "true" : "false";
    return NULL;
}

tplan_reach tplan_field_reach(int id)
{
    switch (id) {
    /* read by perf.c and what follows it only; nothing in memory, the
     * batch solve or the layout rules reads them (tests/test_sweep.c
     * checks staged sweeps against full evaluations, bit for bit) */
    case F_EFFICIENCY:
    case F_EFF_MAX:
    case F_EFF_H0:
    case F_EFF_TOK0:
    case F_ATTN_EFF:
    case F_FP8_RATIO:
    case F_EFF_TP:
    case F_EFF_SCALE:
    case F_TIME_BAND_LO:
    case F_TIME_BAND_HI:
    case F_MOE_OVERLAP:
    case F_COMM_SM_SHARE:
        return TPLAN_REACH_TIME;
    /* read only by perf.c's communication part (comm_and_total) */
    case F_OVERLAP:
    case F_NIC_GBPS:
    case F_LINK_GBS:
    case F_DP_BW_EFF:
    case F_ZERO3_BW_EFF:
    case F_ZERO12_OVERLAP:
    case F_TP_OVERLAP:
        return TPLAN_REACH_COMM;
    /* read first by the batch solve (plan_batch.c), never by the
     * layout rules or the model's parameters. The micro-batch too (issue
     * 38): the layout rules only range-check it, which a sweep does when
     * it takes an axis's values, and the solve evaluates the memory
     * again at a new one; the parameters and the layout's validity are
     * kept */
    case F_MICRO_BATCH:
    case F_GLOBAL_BATCH:
    case F_GLOBAL_BATCH_TOKENS:
    /* the memory reserve: read only by the memory's fit (the usable
     * bytes, the largest micro-batch and the verdict, memory.c), which
     * the solve evaluates again when it changed (issue 38: a pue/reserve
     * space re-evaluated everything at each reserve) */
    case F_RESERVE:
        return TPLAN_REACH_BATCH;
    /* read by run.c only, or by the LR recipe and the critical batch
     * (plan_recipe.c: tplan_plan_lr, tplan_plan_critical), which the
     * evaluation's tail runs after the time; the advice reads some, but
     * kept plans are evaluated again in full */
    case F_PRICE:
    case F_PUE:
    case F_POWER_UTIL:
    case F_GRID:
    case F_LR:
    case F_LR_BASE_BATCH:
    case F_LR_RULE:
    case F_LR_THRESHOLD:
    case F_LR_CAP:
    case F_LR_FLOOR:
    case F_WEIGHT_DECAY:
    case F_SCHEDULE:
    case F_WSD_DECAY:
    case F_CRITICAL_BATCH_TOKENS:
    case F_TARGET_LOSS:
        return TPLAN_REACH_RUN;
    default:
        return TPLAN_REACH_ALL;
    }
}
