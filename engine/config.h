/* One training configuration: model, GPU, parallelism, precision, batch.
 * A plain value; the plan evaluator reads it and never changes it. */
#ifndef TPLAN_CONFIG_H
#define TPLAN_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "finetune.h"
#include "hardware.h"
#include "model.h"
#include "precision.h"
#include "recipe.h"

typedef enum {
    TPLAN_RECOMPUTE_NONE,
    TPLAN_RECOMPUTE_SELECTIVE, /* attention core only (Korthikanti 2022) */
    TPLAN_RECOMPUTE_FULL       /* keep each layer's input only */
} tplan_recompute;

typedef enum { TPLAN_ATTN_EAGER, TPLAN_ATTN_FLASH } tplan_attention;

/* Pipeline schedules (docs/MODEL.md section 13.5): Megatron's 1F1B and
 * its interleaved form (vpp > 1; Narayanan et al. 2021), zero bubble
 * ZB-H1 (Qi et al. 2024) and DeepSeek's DualPipe (DeepSeek-V3 report
 * section 3.2.1). */
typedef enum {
    TPLAN_PP_1F1B,
    TPLAN_PP_INTERLEAVED,
    TPLAN_PP_ZB_H1,
    TPLAN_PP_DUALPIPE
} tplan_pp_schedule;
/* The attention kernel a framework's efficiency terms were fitted under
 * (issue 34): ANY, none recorded; else the attention kernel + 1. */
typedef enum {
    TPLAN_FIT_ATTN_ANY,
    TPLAN_FIT_ATTN_EAGER,
    TPLAN_FIT_ATTN_FLASH
} tplan_fit_attention;
/* Megatron-Core's recompute_modules (megatron/core/transformer/
 * transformer_config.py; docs/MODEL.md section 3.9), as bits: each drops
 * the tensors its module would keep and runs its forward again. */
enum {
    TPLAN_RC_CORE_ATTN = 1u << 0,      /* the attention core (selective) */
    TPLAN_RC_MOE_ACT = 1u << 1,        /* the routed experts' activation */
    TPLAN_RC_LAYERNORM = 1u << 2,      /* the two block norms' outputs */
    TPLAN_RC_MLA_UP_PROJ = 1u << 3,    /* MLA's up projections and RoPE */
    TPLAN_RC_MLP = 1u << 4,            /* the dense layers' MLP */
    TPLAN_RC_MOE = 1u << 5,            /* the whole MoE layer */
    TPLAN_RC_SHARED_EXPERTS = 1u << 6, /* the shared experts */
    TPLAN_RC_ALL = 0x7fu
};
#define TPLAN_RC_NMODULES 7

/* How a framework saves activations (docs/MODEL.md section 3). */
typedef enum {
    TPLAN_PROFILE_TORCH,     /* PyTorch eager, CUDA autocast rules (default) */
    TPLAN_PROFILE_MEGATRON,  /* Korthikanti et al. 2022 accounting */
    TPLAN_PROFILE_TORCH_CPU, /* PyTorch eager as measured on CPU */
    TPLAN_PROFILE_COUNT
} tplan_profile;

typedef enum {
    TPLAN_WARMUP_AUTO, /* none given: the guides' rule by scale factor */
    TPLAN_WARMUP_STEPS,
    TPLAN_WARMUP_TOKENS,
    TPLAN_WARMUP_EPOCHS,
    TPLAN_WARMUP_FRACTION /* of all steps */
} tplan_warmup_unit;

#define TPLAN_MAX_RAMP 8

/* One phase of a batch-size ramp: this global batch (tokens) until
 * `until_tokens` have been trained on (0 in the last phase: to the end). */
typedef struct tplan_ramp_phase {
    double batch_tokens;
    double until_tokens;
} tplan_ramp_phase;

/* Bytes of a framework's name, with its terminator. */
#define TPLAN_FRAMEWORK_NAME_LEN 32

typedef struct tplan_config {
    tplan_model model; /* copied */
    tplan_gpu gpu;     /* copied */
    int64_t gpus;
    int64_t gpus_per_node; /* 0: the GPU's typical server */
    int64_t tp, pp, vpp;   /* vpp: virtual stages per device, 1 = none */
    bool sp;               /* Megatron sequence parallelism */
    /* Megatron-Core's account_for_embedding_in_pipeline_split and
     * account_for_loss_in_pipeline_split: the embedding and the loss each
     * count as a layer when the layers are split over pipeline stages */
    bool pp_embed_loss;
    int zero;              /* ZeRO stage 0..3 over the data-parallel group */
    bool fp32_grads;       /* keep gradients in fp32 (Megatron's main_grad) */
    bool fused_loss; /* fused cross-entropy (flash-attn, Liger, Megatron) */
    tplan_precision precision;
    tplan_optimizer optimizer;
    tplan_recompute recompute;
    /* TPLAN_RC_* bits (0: none); a list implies selective recomputation
     * of exactly those modules (tplan_config_rc_modules) */
    unsigned recompute_modules;
    /* DeepSeek-V3's fp8 activation caching (report section 3.3.2): the
     * MoE SwiGLU inputs in fp8, the attention-output linear's input in
     * E5M6, per-tile scales; needs precision fp8 */
    bool fp8_activations;
    tplan_attention attention;
    tplan_profile profile;
    int64_t seq;
    int64_t micro_batch;     /* 0: the largest that fits */
    int64_t accum;           /* micro-batches per step per pipeline; 0: pp when
                                pipelining (1F1B's minimum), else 1 */
    double reserve_fraction; /* of capacity kept free for fragmentation */
    double context_bytes;    /* CUDA context and library workspaces */
    /* time model; 0 means the GPU's default */
    double link_bytes_per_s; /* intra-node, per GPU, one direction */
    double nic_bytes_per_s;  /* inter-node, per GPU, one direction */
    double overlap;    /* share of data-parallel traffic that can run under
                          compute (0..1) */
    double efficiency; /* fraction of peak for matmuls and attention, 0 =
                          the GPU's efficiency model */
    /* run budget, cost and energy */
    double tokens;          /* training tokens; 0: see tplan_run_eval */
    double epochs;          /* with dataset_samples, an alternative budget */
    double dataset_samples; /* samples (sequences, images) per epoch */
    double price_usd_per_h; /* 0: the GPU catalog's */
    double pue;             /* data-centre power usage effectiveness */
    double power_util;      /* average draw as a fraction of TDP */
    double grid_kg_per_kwh; /* CO2e intensity of the electricity */
    /* batch recipe: a target global batch (0 = micro * dp * accum) */
    int64_t global_batch;       /* samples per optimizer step */
    double global_batch_tokens; /* or tokens per step (rounded to samples) */
    /* learning rate: a reference LR tuned at a reference batch */
    double lr;            /* 0: no LR recipe (unless deepseek/gpt3) */
    double lr_base_batch; /* samples; 0: the plan's own global batch */
    tplan_lr_rule lr_rule;
    bool lr_rule_set;    /* false: sqrt for adaptive optimizers, linear
                            for SGD */
    double lr_threshold; /* linear-sqrt switch, samples; 0: default */
    double lr_cap;       /* 0: none */
    double weight_decay; /* at the reference batch; scaled by sqrt(k) */
    double warmup;
    tplan_warmup_unit warmup_unit;
    tplan_schedule schedule;
    double lr_floor;  /* final LR as a fraction of the peak */
    double wsd_decay; /* share of steps the WSD decay takes */
    /* critical batch: the gradient noise scale B_noise in tokens, or a
     * target loss in nats for Kaplan's B_crit(L); 0: unknown */
    double b_noise_tokens;
    double target_loss;
    tplan_ramp_phase ramp[TPLAN_MAX_RAMP];
    int n_ramp;
    bool finetune;     /* fine-tuning, not pre-training (advice only) */
    bool loss_scaling; /* fp16 with a loss scaler (default true) */
    /* fine-tuning on few GPUs (docs/MODEL.md section 12) */
    int64_t lora_rank;     /* LoRA adapters of this rank; 0: full training */
    unsigned lora_targets; /* TPLAN_LORA_* bits (default all-linear) */
    double lora_dropout;   /* dropout on the adapters' input */
    bool dora;             /* DoRA: a magnitude vector per adapted linear */
    tplan_base_precision base_precision; /* frozen weights (needs LoRA) */
    bool double_quant;     /* nested quantization of 4-bit statistics */
    tplan_offload offload_optimizer; /* master copy, states, fp32 grads */
    tplan_offload offload_params;    /* 16-bit weights (needs ZeRO-3) */
    double host_memory_bytes; /* per node; 0: the GPU's default */
    double pcie_bytes_per_s;  /* host <-> GPU, per GPU, one way; 0: default */
    double nvme_bytes_per_s;  /* per node; 0: default */
    /* mixtures of experts and long context (docs/MODEL.md section 13) */
    int64_t ep; /* expert parallelism: experts split over ep ranks of the
                   data x context-parallel group (1: none) */
    int64_t cp; /* context parallelism: the sequence split over cp ranks
                   (1: none); gpus = tp * cp * pp * dp */
    double capacity_factor; /* tokens an expert takes, over the average;
                               beyond them tokens drop (0: dropless) */
    double moe_imbalance;   /* tokens on the busiest expert rank over the
                               average, dropless (1: perfect balance; 0:
                               the model's router's default,
                               tplan_config_moe_imbalance) */
    double moe_overlap;     /* share of expert all-to-all hidden under
                               compute (0..1); under dualpipe at least
                               the schedule's paired share */
    /* pipeline schedules and MoE at scale (issue 34) */
    tplan_pp_schedule pp_schedule; /* 1f1b with vpp > 1 runs interleaved */
    double comm_sm_share; /* share of the GPU's SMs the overlapped
                             all-to-all takes from compute (dualpipe);
                             < 0: the default (tplan_config_comm_sms) */
    /* expert-tensor parallelism and uneven pipeline stages (issue 37) */
    int64_t etp; /* Megatron-Core's expert_tensor_parallel_size: each
                    routed expert's weights split over etp ranks (0: tp,
                    its default; tplan_config_etp) */
    int64_t pp_first_layers; /* Megatron's
                                --decoder-first-pipeline-num-layers and */
    int64_t pp_last_layers;  /* --decoder-last-pipeline-num-layers: the
                                first and last stages' layers, the rest
                                even over the middle stages (0: unset) */
    /* the framework whose values the config took ("": none), and the
     * framework terms (docs/MODEL.md section 14) */
    char framework[TPLAN_FRAMEWORK_NAME_LEN];
    double eff_scale;    /* matmul and attention efficiency multiplier */
    double dp_bw_eff;    /* share of the modelled bandwidth data-parallel
                            collectives reach (ZeRO 0-2) */
    double zero3_bw_eff; /* the same for ZeRO-3's gathers and scatters */
    /* measured step time over predicted, 10th and 90th percentile of the
     * framework's reference runs, less 1 (section 14.3) */
    double time_band_lo, time_band_hi;
    /* caching-allocator memory beyond the allocated bytes, as a share of
     * them (section 4.3); the memory band as shares of total_bytes below
     * and above it (section 14.4) */
    double alloc_frac;
    double mem_band_lo, mem_band_hi;
    /* what a stack allocates besides the tensors of the model (section
     * 4.6): NCCL's buffers per communicator the GPU joins, DDP's gradient
     * buckets beside .grad (gradient_as_bucket_view off), DeepSpeed's
     * ZeRO-1/2 reduce bucket in elements, the optimizer step's
     * temporaries as a multiple of the second moment's bytes (torch's
     * foreach Adam: 1), and the ZeRO-3 layer-sized 16-bit sets live at
     * once (DeepSpeed's estimator 2, FSDP's backward prefetch 3) */
    double nccl_bytes;
    double nccl_a2a_bytes; /* per expert-parallel all-to-all peer */
    /* NVLink SHARP: per channel and per GPU of a communicator in the node,
     * where the GPU's system has NVLS (tplan_gpu.nvls_channels) */
    double nccl_nvls_bytes;
    bool grad_bucket_copy;
    double reduce_bucket;
    double optim_temp;
    double gather_sets;
    /* fused RMSNorm kernels (Apex, Transformer Engine, Liger, torch's
     * _fused_rms_norm): the norm input and rstd saved, no fp32 copy */
    bool fused_norm;
    /* the loop frees the gradients after each step
     * (optimizer.zero_grad(set_to_none=True)) */
    bool set_to_none;
    /* count two of the GPU family's BLAS workspaces (tplan_gpu.blas_ws_mib,
     * memory.c) on top of context_bytes: the frameworks' contexts leave
     * them out, the default 1000 MiB includes them */
    bool blas_ws;
    /* the share of `overlap` data-parallel traffic gets under ZeRO 0-2
     * (section 14): DeepSpeed overlaps only ZeRO-3's (overlap_comm) */
    double zero12_overlap;
    /* host memory's allowance for pinned buffers, a factor on the bytes
     * offloaded to the host (DeepSpeed's estimators'
     * additional_buffer_factor 1.5; 1: the bytes alone) */
    double host_buffer_factor;
    /* activation offloading and FSDP2's sharding choices (issue 37,
     * items 2 and 3; docs/MODEL.md section 12.10): the share of the
     * layers' saved activations moved to pinned host memory in forward
     * and back in backward (0: none, 1: all but the resident layers);
     * the group of data x context-parallel ranks ZeRO shards over,
     * replicated across the others (HSDP; 0: the whole group); and
     * whether ZeRO-3 frees gathered weights after the forward (FSDP2's
     * reshard_after_forward, default true) */
    double offload_activations;
    int64_t zero_shard_group;
    bool reshard_after_forward;
    /* the share of tensor-parallel traffic hidden under the GEMMs */
    double tp_overlap;
    /* era terms and fp8 recipes (issue 34): the attention kernel the
     * framework's efficiency was fitted under (it sets `attention` too,
     * which later fields override; another kernel is warned about), the
     * fp8 scaling recipe (tplan_fp8_recipe_ratio, hardware.c), and
     * whether fp8_ratio was given (the plan's, a framework's or an
     * axis's), which then replaces the recipe's fitted ratio */
    tplan_fit_attention fit_attention;
    tplan_fp8_recipe fp8_recipe;
    bool fp8_ratio_set;
    /* the ranges a calibrated framework's runs covered, [min, max] each
     * (0: no range): plans outside them are warned about (section 15) */
    struct {
        double params[2], gpus[2], seq[2];
        /* the fit's left-out median |error| of step time and peak memory
         * (0: none recorded; issue 34) */
        double time_err, mem_err;
    } calib;
} tplan_config;

/* Defaults: one GPU, no parallelism, mixed-bf16 AdamW, no recomputation,
 * flash attention, torch profile, accumulation 1, 10% reserve, 1000 MiB of
 * context, overlap 0.9, PUE 1.1, power at TDP, 0.429 kg CO2e/kWh. seq is
 * left 0 for the caller; model and gpu are untouched. */
void tplan_config_init(tplan_config *c);

/* Check fields and their relations (tp divides heads, pp divides layers,
 * tp*pp divides gpus...). The message names the first bad field. */
int tplan_config_validate(const tplan_config *c, tplan_err *err);

/* The same, without checking the model and GPU themselves (callers that
 * validated them once: sweeps). */
int tplan_config_validate_layout(const tplan_config *c, tplan_err *err);

/* tplan_config_validate_layout without a message, for sweeps. On a
 * refusal *deps names the inputs (NULL-terminated, as `tplan fields`
 * names them) the broken rule reads: every configuration that agrees with
 * c on them breaks it too. NULL where a rule reads more than a list says
 * (accum, derived from the batch) or checks a single value's range. */
int tplan_config_layout_deps(const tplan_config *c, const char *const **deps);

/* The layout rules that read one input, re-checked alone
 * (tplan_config_recheck): a sweep whose configuration differs from one
 * that passed every rule only in such inputs passes every rule where
 * those that read them pass (engine/layout_memo.c). */
typedef enum tplan_recheck {
    TPLAN_RECHECK_NONE = 0, /* no such list: check the whole layout */
    TPLAN_RECHECK_RECOMPUTE,
    TPLAN_RECHECK_PRECISION,
    TPLAN_RECHECK_ZERO,
    TPLAN_RECHECK_MICRO_BATCH
} tplan_recheck;

/* Do the rules of tplan_config_layout_deps (and the rest it checks) that
 * read the input `what` names all pass for c? false where one may not
 * (check the whole layout then, for its message) or for
 * TPLAN_RECHECK_NONE. */
bool tplan_config_recheck(const tplan_config *c, tplan_recheck what);

/* Data-parallel degree gpus / (tp * cp * pp) of a valid config. */
int64_t tplan_config_dp(const tplan_config *c);
/* The ranks ZeRO shards over: zero_shard_group, or 0 given, the data x
 * context-parallel group (dp * cp); and how many replicas of each shard
 * there are, dp * cp / that group (HSDP; 1 under plain ZeRO). */
int64_t tplan_config_zero_group(const tplan_config *c);
int64_t tplan_config_zero_replicas(const tplan_config *c);

/* The layers [*lo, *hi) of pipeline stage i (0 .. pp - 1): with q =
 * floor(L/p) and r = L mod p the first r stages hold q + 1 and the others
 * q; with pp_embed_loss (L + 2)/p units a stage, the embedding the first
 * unit and the loss the last (docs/MODEL.md section 13.1). */
void tplan_config_stage_range(const tplan_config *c, int64_t i, int64_t *lo,
                              int64_t *hi);

/* Layers on the fullest pipeline stage: ceil(layers / pp), or (L + 2)/p
 * with pp_embed_loss and more than two stages, or the most of the first,
 * a middle and the last stage with pp_first_layers/pp_last_layers. */
int64_t tplan_config_stage_layers(const tplan_config *c);

/* Each stage's layers, first to last, as runs of n equal stages of k
 * layers written kxn, comma-separated ("4x1,8x6,4x1": never a bare
 * number, which a spreadsheet would read as one), into buf (truncated to
 * len; "" for a generic model). */
void tplan_stage_layers_format(const tplan_config *c, char *buf, size_t len);

/* The index of that stage (the lowest of equals). */
int64_t tplan_config_fullest_stage(const tplan_config *c);

/* Does the config give its own first or last stage's layers? */
bool tplan_config_uneven_stages(const tplan_config *c);

/* Expert-tensor-parallel degree in effect: etp, or tp when unset
 * (Megatron-LM arguments.py, validate_args: expert_tensor_parallel_size
 * defaults to tensor_model_parallel_size). */
int64_t tplan_config_etp(const tplan_config *c);

/* Expert-data-parallel degree of a valid config: gpus / (pp x etp x ep)
 * (Megatron-Core parallel_state.py, initialize_model_parallel: the expert
 * grid etp-ep-edp-pp spans the world as the dense one does). */
int64_t tplan_config_edp(const tplan_config *c);

/* moe_imbalance in effect: the given value, else by the model's router
 * (aux_free_router): 1.04 loss-free, 1.52 with an auxiliary loss
 * (Wang et al. 2024, arXiv 2408.15664, Table 2; docs/MODEL.md 13.3). */
double tplan_config_moe_imbalance(const tplan_config *c);

/* Tokens on the busiest expert rank over the average: the capacity
 * factor when tokens drop, else moe_imbalance; 1 without expert
 * parallelism (one rank runs every expert). */
double tplan_config_moe_load(const tplan_config *c);

/* The recompute modules in effect: the list when one is given; else
 * core_attn under recompute selective (Megatron-Core's default list);
 * else none (full recomputation keeps only layer inputs anyway). */
unsigned tplan_config_rc_modules(const tplan_config *c);

/* "layernorm,mla_up_proj" into TPLAN_RC_* bits ("none" or "": 0); false
 * on an unknown name. The names in bit order: tplan_rc_module_names. */
bool tplan_recompute_modules_parse(const char *text, unsigned *mask);
void tplan_recompute_modules_format(unsigned mask, char *buf, size_t len);
extern const char *const tplan_rc_module_names[TPLAN_RC_NMODULES + 1];

/* "2000" or "2000steps", "375Mtokens", "5epochs", "1%" (0: none). */
int tplan_warmup_parse(const char *text, double *value, tplan_warmup_unit *unit,
                       tplan_err *err);

/* "4M:252M,8M:2.87T,16M": batch tokens until tokens trained, phase by
 * phase (the last runs to the end). Fills ramp[0..*n). */
int tplan_ramp_parse(const char *text, tplan_ramp_phase *ramp, int *n,
                     tplan_err *err);

/* A finite number in plain decimal (digits, a point, an exponent) with,
 * when suffix is set, one trailing K/M/B/T for 10^3..10^12 (G = B); false
 * for anything else (strtod alone would take hex, inf and nan). */
bool tplan_number_parse(const char *text, bool suffix, double *out);

/* tplan_number_parse with a suffix allowed ("4M", "2.87T"). */
bool tplan_amount_parse(const char *text, double *out);

/* GPUs per node: the config's, else the GPU's typical server. */
int64_t tplan_config_gpus_per_node(const tplan_config *c);

/* The GPUs in one node of a parallel group of n ranks, stride apart in
 * Megatron's rank order (tp-cp-ep-dp-pp): at least 1, at most n. */
int64_t tplan_config_group_in_node(const tplan_config *c, int64_t n,
                                   int64_t stride);

/* Megatron's interleaved schedule runs whole rounds of pp micro-batches,
 * DualPipe an even number of at least 2 pp: does accumulating accum keep
 * to them (any accum for other schedules; 0, automatic, does)? */
bool tplan_config_whole_rounds(const tplan_config *c, int64_t accum);

/* The schedule a config runs: pp_schedule, with 1f1b and vpp > 1 read
 * as interleaved (what vpp meant before pp_schedule existed). */
tplan_pp_schedule tplan_config_pp_schedule(const tplan_config *c);

/* The micro-batches of a step that DualPipe runs as overlapped
 * forward-backward pairs on its busiest rank, over all (0 for other
 * schedules; docs/MODEL.md section 13.5). */
double tplan_config_paired_share(const tplan_config *c, double accum);

/* The share of SMs communication takes under dualpipe: comm_sm_share, or
 * by default 20/132 with expert parallelism (DeepSeek-V3 section 3.2.2),
 * 0 without; 0 under other schedules. */
double tplan_config_comm_sms(const tplan_config *c);

/* The host side, given or defaulted (docs/MODEL.md section 12.5): host
 * memory of a node as the job uses it (the GPU's instance share times the
 * job's GPUs on a node), PCIe per GPU one way, NVMe per node. */
double tplan_config_host_memory(const tplan_config *c);
/* The fp8 matmul efficiency ratio the plan uses: fp8_ratio where given
 * (fp8_ratio_set), else the fp8 recipe's on the GPU's architecture
 * (tplan_fp8_recipe_ratio), else the GPU's own; 0 reads as 1. */
double tplan_config_fp8_ratio(const tplan_config *c);
double tplan_config_pcie(const tplan_config *c);
double tplan_config_nvme(const tplan_config *c);
/* The job's GPUs on one node: min(gpus, gpus per node). */
int64_t tplan_config_gpus_on_node(const tplan_config *c);

const char *tplan_recompute_name(tplan_recompute r);
const char *tplan_attention_name(tplan_attention a);
const char *tplan_profile_name(tplan_profile p);
const char *tplan_pp_schedule_name(tplan_pp_schedule s);
int tplan_recompute_parse(const char *s, tplan_recompute *out, tplan_err *err);
int tplan_attention_parse(const char *s, tplan_attention *out, tplan_err *err);
int tplan_profile_parse(const char *s, tplan_profile *out, tplan_err *err);

/* The named-choice fields of a config, for front ends that read them as
 * text (CLI options, Lua fields, sweep axes): one parser for all. */
typedef enum {
    TPLAN_ENUM_PRECISION,
    TPLAN_ENUM_OPTIMIZER,
    TPLAN_ENUM_RECOMPUTE,
    TPLAN_ENUM_ATTENTION,
    TPLAN_ENUM_PROFILE,
    TPLAN_ENUM_LR_RULE,
    TPLAN_ENUM_SCHEDULE
} tplan_enum_kind;

/* Parse s as a value of kind into *out (the enum's code). */
int tplan_enum_parse(tplan_enum_kind kind, const char *s, int *out,
                     tplan_err *err);

#endif
