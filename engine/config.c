/* Defaults, validation and names for a training configuration. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inline_math.h"
#include "names.h"

/* Default CUDA context + cuBLAS/cuDNN workspaces per GPU. docs/MODEL.md
 * section 4: measured 300 MB to over 1 GB (BERT-large on V100: 1343 MB);
 * calculators use 650 MB or 1000 MiB. We take 1000 MiB, the conservative
 * common choice; --context-mib overrides it. */
#define CUDA_CONTEXT_BYTES (1000.0 * 1024 * 1024)

/* Reference guides (docs/MODEL.md section 4.2): keep 10% for CUDA
 * fragmentation and temporary buffers. */
#define DEFAULT_RESERVE 0.10

/* Share of data-parallel/ZeRO traffic that can overlap compute (DDP
 * buckets, FSDP prefetch). Fitted to llm-foundry's multi-node rows, where
 * per-GPU throughput stays within a few percent from 8 to 512 GPUs. */
#define DEFAULT_OVERLAP 0.9

/* Patterson et al. 2021, "Carbon Emissions and Large Neural Network
 * Training": hyperscale data-centre PUE 1.10 and the U.S. average grid
 * 0.429 kg CO2e/kWh used for GPT-3. Power at TDP, as Meta's Llama 2/3
 * model cards count it. */
#define DEFAULT_PUE             1.10
#define DEFAULT_GRID_KG_PER_KWH 0.429
#define DEFAULT_POWER_UTIL      1.0

/* GPT-3 (Brown et al. 2020, appendix B): cosine decay to 10% of the peak.
 * WSD (Hu et al. 2024, MiniCPM): the decay takes about 10% of training. */
/* One NVMe drive per node: DeepSpeed's DeepNVMe tutorial measures 3.69
 * GB/s read and 3.18 GB/s write through its aio handle on one workstation
 * drive (docs/_tutorials/deepnvme.md); we take 3.4, about their mean.
 * Give --nvme-gbs for a RAID of drives. */
#define DEFAULT_NVME_BYTES_PER_S 3.4e9

/* Tokens on the busiest expert-parallel rank over the average when no
 * token is dropped, by the model's router when --moe-imbalance is not
 * given (moe_imbalance 0). Wang et al. 2024 ("Auxiliary-Loss-Free Load
 * Balancing Strategy for Mixture-of-Experts", arXiv 2408.15664, Table 2)
 * report MaxVio_global = max expert load / mean load - 1 over the
 * validation set: 0.04 for the loss-free router (1B and 3B models) and
 * 0.72 (1B) and 0.52 (3B) for the auxiliary-loss router. An assumption:
 * tplan's load is per expert-parallel rank (E/ep experts, whose mean load
 * is at most the busiest expert's) per step (a batch, which balances
 * worse than the whole set); we take the two to cancel and use 1 +
 * MaxVio_global, the 3B figure for the loss router. --moe-imbalance 1 is
 * perfect balance. docs/MODEL.md section 13.3. */
#define MOE_IMBALANCE_AUX_FREE 1.04
#define MOE_IMBALANCE_AUX_LOSS 1.52

/* DeepSeek-V3 report section 3.2.2: 20 of the H800's 132 SMs
 * carry DualPipe's all-to-all (IB sends, IB-to-NVLink forwarding, NVLink
 * receives), the rest compute. Taken as a share of any GPU's SMs, an
 * assumption (the catalog has no SM counts). */
#define DUALPIPE_COMM_SMS (20.0 / 132.0)
/* The step-time band without a framework is fsdp's: over the 108 runs of
 * llm-foundry's published table (tests/data/throughput_llmfoundry_half.json,
 * scripts/accuracy_llmfoundry.sh --rows) predicted over measured tokens/s
 * less 1 has its 10th percentile at -0.07562 and its 90th at +0.08888
 * (nearest rank), rounded outwards: the measured step time lies in
 * step x (1 - 0.0757) .. step x (1 + 0.0889) for 88 of 108 runs
 * (time_band_lo is the low end's distance below the step). In
 * sample: the efficiency defaults were fitted to the same runs.
 * docs/MODEL.md section 14.3. */
#define DEFAULT_TIME_BAND_LO 0.0757
#define DEFAULT_TIME_BAND_HI 0.0889
/* The memory band without a calibration: what tplan's own terms are known
 * to within. The activation inventory matches the bytes torch saves for
 * backward within 1% (tests/test_activations.c on
 * tests/data/torch_cpu_gpt2.csv, docs/MODEL.md section 3.7) and model
 * states are counted exactly; tests/data holds no measured GPU peak, so
 * the allocator, NCCL buffers and transient peaks are not in this band
 * (the reserve stands for them) until `tplan calibrate` fits them to
 * measured peaks. docs/MODEL.md section 14.4. */
#define DEFAULT_MEM_BAND_LO 0.01
#define DEFAULT_MEM_BAND_HI 0.01

#define DEFAULT_LR_FLOOR  0.1
#define DEFAULT_WSD_DECAY 0.1

void tplan_config_init(tplan_config *c)
{
    tplan_model m = c->model;
    tplan_gpu g = c->gpu;

    memset(c, 0, sizeof *c);
    c->model = m;
    c->gpu = g;
    c->gpus = 1;
    c->tp = 1;
    c->pp = 1;
    c->vpp = 1;
    c->pp_schedule = TPLAN_PP_1F1B;
    c->comm_sm_share = -1.0; /* the default: tplan_config_comm_sms */
    c->precision = TPLAN_PREC_MIXED_BF16;
    c->optimizer = TPLAN_OPT_ADAMW;
    c->recompute = TPLAN_RECOMPUTE_NONE;
    c->attention = TPLAN_ATTN_FLASH;
    c->profile = TPLAN_PROFILE_TORCH;
    c->accum = 0; /* auto: pp with pipelining (1F1B's minimum), else 1 */
    c->reserve_fraction = DEFAULT_RESERVE;
    c->context_bytes = CUDA_CONTEXT_BYTES;
    /* torch.optim's default on CUDA is the foreach implementation, which
     * "uses ~ sizeof(params) more peak memory than the for-loop version
     * due to the intermediates being a tensorlist" (torch/optim/
     * optimizer.py, _foreach_doc): Adam's _foreach_sqrt of exp_avg_sq */
    c->optim_temp = 1.0;
    /* DeepSpeed's estimate_zero3_model_states_mem_needs: the largest
     * layer's 16-bit weights and gradients */
    c->gather_sets = 2.0;
    c->zero12_overlap = 1.0;
    c->host_buffer_factor = 1.0;
    c->reshard_after_forward = true; /* FSDP2's default */
    c->overlap = DEFAULT_OVERLAP;
    c->pue = DEFAULT_PUE;
    c->power_util = DEFAULT_POWER_UTIL;
    c->grid_kg_per_kwh = DEFAULT_GRID_KG_PER_KWH;
    c->schedule = TPLAN_SCHED_COSINE;
    c->lr_floor = DEFAULT_LR_FLOOR;
    c->wsd_decay = DEFAULT_WSD_DECAY;
    c->loss_scaling = true;
    c->lora_targets = TPLAN_LORA_ALL; /* QLoRA: every linear of a block */
    c->ep = 1;
    c->cp = 1;
    c->moe_imbalance = 0.0; /* by the model's router */
    /* no framework: the fitted model as it is (docs/MODEL.md section 14) */
    c->eff_scale = 1.0;
    c->dp_bw_eff = 1.0;
    c->zero3_bw_eff = 1.0;
    c->time_band_lo = DEFAULT_TIME_BAND_LO;
    c->time_band_hi = DEFAULT_TIME_BAND_HI;
    c->mem_band_lo = DEFAULT_MEM_BAND_LO;
    c->mem_band_hi = DEFAULT_MEM_BAND_HI;
}

/* A real in [lo, hi]; NaN fails. */
static int need_range(const char *field, double v, double lo, double hi,
                      tplan_err *err)
{
    if (!(v >= lo && v <= hi))
        return tplan_err_set(err, TPLAN_EINVAL, field,
                             "%s must be in [%g, %g] (%s=%g)", field, lo, hi,
                             field, v);
    return TPLAN_OK;
}

static int validate_run(const tplan_config *c, tplan_err *err)
{
    int rc;

    if ((rc = need_range("link_bytes_per_s", c->link_bytes_per_s, 0, 1e15,
                         err)) ||
        (rc =
             need_range("nic_bytes_per_s", c->nic_bytes_per_s, 0, 1e15, err)) ||
        (rc = need_range("overlap", c->overlap, 0, 1, err)) ||
        (rc = need_range("efficiency", c->efficiency, 0, 1, err)) ||
        (rc = need_range("tokens", c->tokens, 0, 1e18, err)) ||
        (rc = need_range("epochs", c->epochs, 0, 1e9, err)) ||
        (rc =
             need_range("dataset_samples", c->dataset_samples, 0, 1e18, err)) ||
        (rc = need_range("price", c->price_usd_per_h, 0, 1e6, err)) ||
        (rc = need_range("pue", c->pue, 1, 10, err)) ||
        (rc = need_range("power_util", c->power_util, 0, 2, err)) ||
        (rc = need_range("grid", c->grid_kg_per_kwh, 0, 10, err)))
        return rc;
    /* a fine-tune given only its dataset is planned per epoch */
    if ((c->epochs > 0) != (c->dataset_samples > 0) &&
        !(c->finetune && c->dataset_samples > 0))
        return tplan_err_set(err, TPLAN_EINVAL, "epochs",
                             "epochs and dataset_samples go together "
                             "(epochs=%g, dataset_samples=%g)",
                             c->epochs, c->dataset_samples);
    if (c->epochs * c->dataset_samples * (double)c->seq > 1e18)
        return tplan_err_set(err, TPLAN_EINVAL, "epochs",
                             "epochs x dataset x seq exceeds 1e18 tokens "
                             "(epochs=%g, dataset_samples=%g, seq=%lld)",
                             c->epochs, c->dataset_samples, (long long)c->seq);
    if (c->tokens > 0 && c->epochs > 0)
        return tplan_err_set(err, TPLAN_EINVAL, "tokens",
                             "give a token budget or epochs, not both "
                             "(tokens=%g, epochs=%g)",
                             c->tokens, c->epochs);
    return TPLAN_OK;
}

/* A count in [1, max]. The caps keep every product of counts the engine
 * forms (tp*pp, micro_batch*dp*accum*seq in double) far from overflow. */
static int need_count(const char *field, int64_t v, int64_t max, tplan_err *err)
{
    if (v < 1)
        return tplan_err_set(err, TPLAN_EINVAL, field,
                             "%s must be a positive integer (%s=%lld)", field,
                             field, (long long)v);
    if (v > max)
        return tplan_err_set(err, TPLAN_EINVAL, field,
                             "%s must be at most %lld (%s=%lld)", field,
                             (long long)max, field, (long long)v);
    return TPLAN_OK;
}

static int validate_recipe(const tplan_config *c, tplan_err *err)
{
    int rc;

    if (c->global_batch < 0 || c->global_batch > 1000000000)
        return tplan_err_set(err, TPLAN_EINVAL, "global_batch",
                             "global_batch must be in [1, 1e9] samples "
                             "(global_batch=%lld)",
                             (long long)c->global_batch);
    if ((rc = need_range("global_batch_tokens", c->global_batch_tokens, 0, 1e15,
                         err)) ||
        (rc = need_range("lr", c->lr, 0, 100, err)) ||
        (rc = need_range("lr_base_batch", c->lr_base_batch, 0, 1e12, err)) ||
        (rc = need_range("lr_threshold", c->lr_threshold, 0, 1e12, err)) ||
        (rc = need_range("lr_cap", c->lr_cap, 0, 100, err)) ||
        (rc = need_range("weight_decay", c->weight_decay, 0, 100, err)) ||
        (rc = need_range("warmup", c->warmup, 0, 1e15, err)) ||
        (rc = need_range("lr_floor", c->lr_floor, 0, 1, err)) ||
        (rc = need_range("wsd_decay", c->wsd_decay, 0, 1, err)) ||
        (rc = need_range("b_noise_tokens", c->b_noise_tokens, 0, 1e15, err)) ||
        (rc = need_range("target_loss", c->target_loss, 0, 100, err)))
        return rc;
    if (c->global_batch > 0 && c->global_batch_tokens > 0)
        return tplan_err_set(err, TPLAN_EINVAL, "global_batch",
                             "give a global batch in samples or in tokens, "
                             "not both (global_batch=%lld, "
                             "global_batch_tokens=%g)",
                             (long long)c->global_batch,
                             c->global_batch_tokens);
    if (c->warmup_unit == TPLAN_WARMUP_FRACTION && !(c->warmup < 1.0))
        return tplan_err_set(err, TPLAN_EINVAL, "warmup",
                             "warmup as a fraction must be below 100%% "
                             "(warmup=%g%%)",
                             c->warmup * 100.0);
    if ((unsigned)c->lr_rule >= TPLAN_LR_RULE_COUNT ||
        (unsigned)c->schedule >= TPLAN_SCHED_COUNT ||
        (unsigned)c->warmup_unit > TPLAN_WARMUP_FRACTION)
        return tplan_err_set(err, TPLAN_EINVAL, "lr_rule",
                             "unknown lr rule, schedule or warmup unit");
    if (c->n_ramp < 0 || c->n_ramp > TPLAN_MAX_RAMP)
        return tplan_err_set(err, TPLAN_EINVAL, "ramp",
                             "a batch ramp has 1 to %d phases (phases=%d)",
                             TPLAN_MAX_RAMP, c->n_ramp);
    for (int i = 0; i < c->n_ramp; i++) {
        const tplan_ramp_phase *r = &c->ramp[i];

        if (!(r->batch_tokens >= 1 && r->batch_tokens <= 1e15))
            return tplan_err_set(err, TPLAN_EINVAL, "ramp",
                                 "ramp phase %d needs a batch of at least "
                                 "one token (batch=%g)",
                                 i + 1, r->batch_tokens);
        if (i < c->n_ramp - 1 &&
            !(r->until_tokens > (i > 0 ? c->ramp[i - 1].until_tokens : 0)))
            return tplan_err_set(err, TPLAN_EINVAL, "ramp",
                                 "ramp phase %d must end after the one "
                                 "before (until=%g tokens)",
                                 i + 1, r->until_tokens);
    }
    return TPLAN_OK;
}

/* Rules that tplan_config_recheck runs alone too: each in one place,
 * read by both. */
static bool reshard_without_zero3(const tplan_config *c)
{
    return !c->reshard_after_forward && c->zero != 3;
}

static bool offload_params_without_zero3(const tplan_config *c)
{
    return c->offload_params != TPLAN_OFFLOAD_NONE && c->zero != 3;
}

static bool rc_modules_with_full(const tplan_config *c)
{
    return c->recompute_modules && c->recompute == TPLAN_RECOMPUTE_FULL;
}

/* precision in range */
static bool fp8_activations_without_fp8(const tplan_config *c)
{
    return c->fp8_activations &&
           tplan_precision_get(c->precision)->act != TPLAN_ACT_FP8;
}

/* precision in range */
static bool fp8_recipe_unsupported(const tplan_config *c)
{
    return tplan_precision_get(c->precision)->compute == TPLAN_DTYPE_FP8 &&
           c->gpu.peak_flops[TPLAN_DTYPE_FP8] > 0 &&
           tplan_fp8_recipe_ratio(&c->gpu, c->fp8_recipe) < 0;
}

/* Activation offloading and FSDP2's choices (docs/MODEL.md section
 * 12.10). HSDP's shard group must divide the data x context-parallel
 * group (torch DeviceMesh: replicate x shard = the data-parallel ranks),
 * and under expert parallelism the replicas must divide the
 * expert-data-parallel group too, whose experts shard over what is left.
 * A shard group or reshard_after_forward off means nothing where ZeRO
 * shards nothing, or does not shard weights: refused, not ignored. */
static int validate_sharding(const tplan_config *c, tplan_err *err)
{
    int64_t n = tplan_config_dp(c) * c->cp, g = c->zero_shard_group;

    if (!(c->offload_activations >= 0.0 && c->offload_activations <= 1.0))
        return tplan_err_set(err, TPLAN_EINVAL, "offload_activations",
                             "offload_activations must be in [0, 1] or all "
                             "(offload_activations=%g)",
                             c->offload_activations);
    if (c->offload_activations > 0.0 && c->model.arch == TPLAN_ARCH_GENERIC)
        return tplan_err_set(err, TPLAN_EINVAL, "offload_activations",
                             "offload_activations needs a transformer's "
                             "layers, not a generic model "
                             "(offload_activations=%g)",
                             c->offload_activations);
    if (g < 0 || g > 10000000)
        return tplan_err_set(err, TPLAN_EINVAL, "zero_shard_group",
                             "zero_shard_group must be 0 (the whole "
                             "data-parallel group) or a positive integer "
                             "(zero_shard_group=%lld)",
                             (long long)g);
    if (g > 0 && n % g)
        return tplan_err_set(err, TPLAN_EINVAL, "zero_shard_group",
                             "zero_shard_group must divide the data-parallel "
                             "group dp x cp (zero_shard_group=%lld, dp=%lld, "
                             "cp=%lld)",
                             (long long)g, (long long)tplan_config_dp(c),
                             (long long)c->cp);
    if (g > 0 && g < n && c->zero == 0)
        return tplan_err_set(err, TPLAN_EINVAL, "zero_shard_group",
                             "zero_shard_group shards ZeRO's states: it "
                             "needs zero 1, 2 or 3 (zero_shard_group=%lld, "
                             "zero=0)",
                             (long long)g);
    /* the expert-data-parallel group: gpus / (pp x etp x ep), dp x cp /
     * ep where etp = tp */
    if (g > 0 && g < n && c->model.arch != TPLAN_ARCH_GENERIC &&
        tplan_model_moe(&c->model) && tplan_config_edp(c) % (n / g))
        return tplan_err_set(err, TPLAN_EINVAL, "zero_shard_group",
                             "zero_shard_group: its %lld replicas must divide "
                             "the expert-data-parallel group gpus / (pp x "
                             "etp x ep) = %lld (zero_shard_group=%lld, "
                             "ep=%lld)",
                             (long long)(n / g),
                             (long long)tplan_config_edp(c), (long long)g,
                             (long long)c->ep);
    if (reshard_without_zero3(c))
        return tplan_err_set(err, TPLAN_EINVAL, "reshard_after_forward",
                             "reshard_after_forward=false keeps ZeRO-3's "
                             "gathered weights: it needs zero 3 (zero=%d)",
                             c->zero);
    return TPLAN_OK;
}

/* Adapters, quantized bases and offload (docs/MODEL.md 2.5-2.7). */
static int validate_finetune(const tplan_config *c, tplan_err *err)
{
    const tplan_model *m = &c->model;
    int rc;

    if ((rc = need_range("lora_rank", (double)c->lora_rank, 0, 65536, err)) ||
        (rc = need_range("lora_dropout", c->lora_dropout, 0, 0.99, err)) ||
        (rc = need_range("host_memory", c->host_memory_bytes, 0, 1e18,
                         err)) ||
        (rc = need_range("pcie_gbs", c->pcie_bytes_per_s, 0, 1e15, err)) ||
        (rc = need_range("nvme_gbs", c->nvme_bytes_per_s, 0, 1e15, err)))
        return rc;
    if ((unsigned)c->base_precision >= TPLAN_BASE_COUNT ||
        (unsigned)c->offload_optimizer >= TPLAN_OFFLOAD_COUNT ||
        (unsigned)c->offload_params >= TPLAN_OFFLOAD_COUNT)
        return tplan_err_set(err, TPLAN_EINVAL, "base_precision",
                             "unknown base precision or offload value");
    if (c->lora_targets == 0 || (c->lora_targets & ~TPLAN_LORA_ALL))
        return tplan_err_set(err, TPLAN_EINVAL, "lora_targets",
                             "lora_targets must name some of q, k, v, o, "
                             "gate, up, down, mla, router, shared_experts, "
                             "experts (mask=%u)",
                             c->lora_targets);
    if (c->lora_rank > 0 && m->arch == TPLAN_ARCH_GENERIC)
        return tplan_err_set(err, TPLAN_EINVAL, "lora_rank",
                             "lora_rank needs a transformer's shapes, not a "
                             "generic model (lora_rank=%lld)",
                             (long long)c->lora_rank);
    if (c->lora_rank > 0 && m->mlp != TPLAN_MLP_SWIGLU &&
        c->lora_targets == TPLAN_LORA_GATE)
        return tplan_err_set(err, TPLAN_EINVAL, "lora_targets",
                             "lora_targets: gate: a GELU MLP has no gate "
                             "(model %s)",
                             m->name);
    if (c->lora_rank > 0 && m->arch != TPLAN_ARCH_GENERIC) {
        const char *why;
        char names[160];

        if (!tplan_lora_targets_fit(m, c->lora_targets, &why)) {
            tplan_lora_targets_format(c->lora_targets, names, sizeof names);
            return tplan_err_set(err, TPLAN_EINVAL, "lora_targets",
                                 "lora_targets: %s (model %s, "
                                 "lora_targets=%s)",
                                 why, m->name, names);
        }
    }
    if (c->dora && c->lora_rank == 0)
        return tplan_err_set(err, TPLAN_EINVAL, "dora",
                             "dora decomposes LoRA adapters: it needs "
                             "lora_rank > 0");
    if (c->base_precision != TPLAN_BASE_AUTO && c->lora_rank == 0)
        return tplan_err_set(err, TPLAN_EINVAL, "base_precision",
                             "base_precision: %s: a stored base is frozen, "
                             "so it needs adapters (give lora_rank > 0)",
                             tplan_base_precision_name(c->base_precision));
    if (c->double_quant && c->base_precision != TPLAN_BASE_NF4 &&
        c->base_precision != TPLAN_BASE_FP4)
        return tplan_err_set(err, TPLAN_EINVAL, "double_quant",
                             "double_quant quantizes 4-bit statistics: it "
                             "needs base_precision nf4 or fp4 (got %s)",
                             tplan_base_precision_name(c->base_precision));
    /* ZeRO-Infinity offloads parameters in stage 3 only; FSDP's CPU
     * offload shards them as stage 3 does */
    if (offload_params_without_zero3(c))
        return tplan_err_set(err, TPLAN_EINVAL, "offload_params",
                             "offload_params: %s: parameters are offloaded "
                             "by ZeRO-3 (FSDP full shard): give zero = 3 "
                             "(zero=%d)",
                             tplan_offload_name(c->offload_params), c->zero);
    return validate_sharding(c, err);
}

/* The run and recipe fields, checked after the layout: a sweep prunes
 * most invalid layouts before reaching them. */
static int validate_rest(const tplan_config *c, tplan_err *err)
{
    int rc;

    if ((rc = validate_run(c, err)) || (rc = validate_recipe(c, err)) ||
        (rc = validate_finetune(c, err)))
        return rc;
    return TPLAN_OK;
}

int tplan_config_validate(const tplan_config *c, tplan_err *err)
{
    int rc;

    if ((rc = tplan_model_validate(&c->model, err)) ||
        (rc = tplan_gpu_validate(&c->gpu, err)))
        return rc;
    return tplan_config_validate_layout(c, err);
}

/* Recompute modules and fp8 caching (docs/MODEL.md section 3.9).
 * Megatron-Core takes recompute_modules only with recompute_granularity
 * selective, and raises ValueError for mla_up_proj without
 * multi_latent_attention (transformer_config.py __post_init__); tplan
 * does the same. fp8 caching needs an fp8 recipe: it is DeepSeek-V3's
 * storage of fp8 GEMM inputs (report section 3.3.2). */
static int validate_rc_modules(const tplan_config *c, tplan_err *err)
{
    char names[128];

    if (c->recompute_modules & ~TPLAN_RC_ALL)
        return tplan_err_set(err, TPLAN_EINVAL, "recompute_modules",
                             "unknown recompute_modules bits "
                             "(recompute_modules=%#x)",
                             c->recompute_modules);
    /* the names for the messages, formatted only for one */
    if (rc_modules_with_full(c)) {
        tplan_recompute_modules_format(c->recompute_modules, names,
                                       sizeof names);
        return tplan_err_set(err, TPLAN_EINVAL, "recompute_modules",
                             "recompute_modules needs recompute none or "
                             "selective, not full (recompute_modules=%s)",
                             names);
    }
    if ((c->recompute_modules & TPLAN_RC_MLA_UP_PROJ) &&
        !tplan_model_mla(&c->model)) {
        tplan_recompute_modules_format(c->recompute_modules, names,
                                       sizeof names);
        return tplan_err_set(err, TPLAN_EINVAL, "recompute_modules",
                             "mla_up_proj needs latent attention "
                             "(kv_lora_rank > 0) (recompute_modules=%s)",
                             names);
    }
    if (fp8_activations_without_fp8(c))
        return tplan_err_set(err, TPLAN_EINVAL, "fp8_activations",
                             "fp8_activations needs precision fp8 "
                             "(precision=%s)",
                             tplan_precision_get(c->precision)->name);
    return TPLAN_OK;
}

/* Expert and context parallelism (Megatron-LM's rules: arguments.py and
 * parallel_state.py). Experts split over ep ranks carved from the data x
 * context-parallel group (expert tensor parallelism = tp); the sequence
 * splits into 2 cp chunks for a balanced causal mask. */
static int validate_moe_cp(const tplan_config *c, tplan_err *err)
{
    const tplan_model *m = &c->model;
    int64_t dpcp = c->gpus / (c->tp * c->pp), etp = tplan_config_etp(c);
    int rc;

    if ((rc = validate_rc_modules(c, err)))
        return rc;
    if ((rc = need_range("capacity_factor", c->capacity_factor, 0.0, 1000.0,
                         err)) ||
        (c->moe_imbalance != 0.0 &&
         (rc = need_range("moe_imbalance", c->moe_imbalance, 1.0, 1000.0,
                          err))) ||
        (rc = need_range("moe_overlap", c->moe_overlap, 0.0, 1.0, err)) ||
        (c->comm_sm_share >= 0.0 &&
         (rc = need_range("comm_sm_share", c->comm_sm_share, 0.0, 0.9,
                          err))) ||
        (rc = need_range("eff_scale", c->eff_scale, 0.01, 10.0, err)) ||
        (rc = need_range("dp_bw_eff", c->dp_bw_eff, 0.001, 1.0, err)) ||
        (rc = need_range("zero3_bw_eff", c->zero3_bw_eff, 0.001, 1.0, err)) ||
        (rc = need_range("time_band_lo", c->time_band_lo, 0.0, 0.99, err)) ||
        (rc = need_range("time_band_hi", c->time_band_hi, 0.0, 10.0, err)) ||
        (rc = need_range("alloc_frac", c->alloc_frac, 0.0, 1.0, err)) ||
        (rc = need_range("mem_band_lo", c->mem_band_lo, 0.0, 0.99, err)) ||
        (rc = need_range("mem_band_hi", c->mem_band_hi, 0.0, 10.0, err)) ||
        (rc = need_range("nccl_mib", c->nccl_bytes / (1024.0 * 1024.0), 0.0,
                         1e6, err)) ||
        (rc = need_range("nccl_a2a_mib", c->nccl_a2a_bytes / (1024.0 * 1024.0),
                         0.0, 1e6, err)) ||
        (rc =
             need_range("nccl_nvls_mib", c->nccl_nvls_bytes / (1024.0 * 1024.0),
                        0.0, 1e6, err)) ||
        (rc = need_range("reduce_bucket", c->reduce_bucket, 0.0, 1e13, err)) ||
        (rc = need_range("optim_temp", c->optim_temp, 0.0, 10.0, err)) ||
        (rc = need_range("gather_sets", c->gather_sets, 0.0, 100.0, err)) ||
        (rc = need_range("zero12_overlap", c->zero12_overlap, 0.0, 1.0, err)) ||
        (rc = need_range("host_buffer_factor", c->host_buffer_factor, 1.0,
                         16.0, err)) ||
        (rc = need_range("tp_overlap", c->tp_overlap, 0.0, 1.0, err)))
        return rc;
    {
        static const char *const names[3] = {"calib_params", "calib_gpus",
                                             "calib_seq"};
        const double *r[3] = {c->calib.params, c->calib.gpus, c->calib.seq};

        for (int i = 0; i < 3; i++)
            if (r[i][0] > 0.0 && r[i][1] > 0.0 && r[i][0] > r[i][1])
                return tplan_err_set(err, TPLAN_EINVAL, names[i],
                                     "%s_min: %g is above %s_max %g",
                                     names[i], r[i][0], names[i], r[i][1]);
    }
    if (c->ep > 1 && !tplan_model_moe(m))
        return tplan_err_set(err, TPLAN_EINVAL, "ep",
                             "ep needs a mixture-of-experts model (ep=%lld, "
                             "experts=0)",
                             (long long)c->ep);
    if (tplan_model_moe(m) && m->experts % c->ep)
        return tplan_err_set(err, TPLAN_EINVAL, "ep",
                             "ep must divide experts (experts=%lld, ep=%lld)",
                             (long long)m->experts, (long long)c->ep);
    if (c->etp < 0 || c->etp > 100000)
        return tplan_err_set(err, TPLAN_EINVAL, "etp",
                             "etp must be a positive integer (etp=%lld)",
                             (long long)c->etp);
    if (etp == c->tp && dpcp % c->ep)
        return tplan_err_set(err, TPLAN_EINVAL, "ep",
                             "ep must divide dp*cp (dp*cp=%lld, ep=%lld)",
                             (long long)dpcp, (long long)c->ep);
    /* expert-tensor parallelism apart from tp (Megatron-Core): only
     * experts have it to give (an assumption: Megatron ignores it on a
     * dense model, tplan refuses a degree that would change nothing), the
     * expert grid etp x ep x edp x pp must cover the GPUs
     * (parallel_state.py, initialize_model_parallel: "world_size is not
     * divisible by expert_tensor_model_pipeline_parallel size") and each
     * expert's FFN splits over etp as a dense one over tp */
    /* Megatron-Core refuses, in training, a mixture of experts under
     * tensor parallelism without sequence parallelism (moe_layer.py,
     * MoELayer: "During training, performance may degrade if MoE and
     * tensor parallelism are enabled without also enabling sequence
     * parallelism", a ValueError): a plan on a Megatron-based stack (the
     * megatron profile: the megatron, megatron-2021 and nemo frameworks)
     * is refused as that stack would refuse it. Other stacks have no
     * such rule. */
    if (c->profile == TPLAN_PROFILE_MEGATRON && tplan_model_moe(m) &&
        c->tp > 1 && !c->sp)
        return tplan_err_set(err, TPLAN_EINVAL, "sp",
                             "a mixture of experts with tp > 1 needs "
                             "sequence parallelism on a Megatron stack "
                             "(sp=false, tp=%lld, profile=megatron): "
                             "give --sp",
                             (long long)c->tp);
    if (etp != c->tp && !tplan_model_moe(m))
        return tplan_err_set(err, TPLAN_EINVAL, "etp",
                             "etp needs a mixture-of-experts model "
                             "(etp=%lld, tp=%lld, experts=0)",
                             (long long)etp, (long long)c->tp);
    if (etp != c->tp && (c->gpus / c->pp) % (etp * c->ep))
        return tplan_err_set(err, TPLAN_EINVAL, "etp",
                             "etp*ep must divide gpus/pp (gpus=%lld, "
                             "pp=%lld, etp=%lld, ep=%lld)",
                             (long long)c->gpus, (long long)c->pp,
                             (long long)etp, (long long)c->ep);
    if (etp != c->tp && tplan_model_expert_ffn(m) % etp)
        return tplan_err_set(err, TPLAN_EINVAL, "etp",
                             "etp must divide the experts' ffn "
                             "(expert_ffn=%lld, etp=%lld)",
                             (long long)tplan_model_expert_ffn(m),
                             (long long)etp);
    /* a recipe the GPU cannot run, where the plan computes in fp8 */
    if (fp8_recipe_unsupported(c))
        return tplan_err_set(err, TPLAN_EINVAL, "fp8_recipe",
                             "fp8_recipe: %s: needs a Blackwell GPU (b200, "
                             "gb200; gpu=%s): use tensorwise, delayed or "
                             "blockwise",
                             tplan_fp8_recipe_name(c->fp8_recipe),
                             c->gpu.name);
    if (c->cp > 1 && c->attention != TPLAN_ATTN_FLASH)
        return tplan_err_set(err, TPLAN_EINVAL, "cp",
                             "context parallelism needs flash attention "
                             "(cp=%lld, attention=eager)",
                             (long long)c->cp);
    if (c->cp > 1 && c->seq % (2 * c->cp))
        return tplan_err_set(err, TPLAN_EINVAL, "cp",
                             "2*cp must divide seq (seq=%lld, cp=%lld)",
                             (long long)c->seq, (long long)c->cp);
    return TPLAN_OK;
}

/* What a layout rule reads, by input name (NULL-terminated), for
 * tplan_config_layout_deps: the model's shape comes only from the model
 * input (no other input sets heads, layers or positions), seq from seq or
 * the model. Every rule after the generic-model return reads the model:
 * a generic model never reaches it. */
static const char *const reads_split[] = {"gpus", "tp", "pp", "cp", NULL};
static const char *const reads_generic[] = {"model", "tp", "pp",
                                            "cp",    "ep", NULL};
static const char *const reads_heads[] = {"model", "tp", NULL};
static const char *const reads_sp[] = {"model", "sp", "tp", NULL};
static const char *const reads_depth[] = {"model", "pp", NULL};
static const char *const reads_vpp[] = {"model", "vpp", "pp", NULL};
static const char *const reads_sched[] = {"pp_schedule", "vpp", "pp", NULL};
static const char *const reads_embed[] = {"pp_embed_loss", "model", "pp", NULL};
static const char *const reads_chunks[] = {"vpp", "pp", "pp_embed_loss",
                                           "model", NULL};
static const char *const reads_seq[] = {"model", "seq", NULL};
static const char *const reads_uneven[] = {
    "pp_first_layers", "pp_last_layers", "pp", "vpp",
    "pp_embed_loss",   "model",          NULL};

/* A refusal by a rule that reads only what d names. */
static int refused(const char *const **deps, const char *const *d, int rc)
{
    if (deps)
        *deps = d;
    return rc;
}

/* Uneven pipeline stages, by Megatron-Core's rules
 * (transformer_config.py, TransformerConfig.__post_init__, "Uneven PP"):
 * not with the embedding or the loss counted in the split, each given
 * stage's layers positive and a multiple of vpp, as many middle layers
 * as middle stages allow (none for none), an even division over them and
 * of each middle stage's layers over vpp. */
static int check_uneven(const tplan_config *c, tplan_err *err,
                        const char *const **deps)
{
    int64_t f = c->pp_first_layers, l = c->pp_last_layers;
    int64_t L = c->model.layers, mid, rest;

    if (f < 0 || f > 10000000)
        return tplan_err_set(err, TPLAN_EINVAL, "pp_first_layers",
                             "pp_first_layers must be a positive integer "
                             "(pp_first_layers=%lld)",
                             (long long)f);
    if (l < 0 || l > 10000000)
        return tplan_err_set(err, TPLAN_EINVAL, "pp_last_layers",
                             "pp_last_layers must be a positive integer "
                             "(pp_last_layers=%lld)",
                             (long long)l);
    if (!tplan_config_uneven_stages(c))
        return TPLAN_OK;
    if (c->pp < 2)
        return refused(
            deps, reads_uneven,
            tplan_err_set(err, TPLAN_EINVAL,
                          f > 0 ? "pp_first_layers" : "pp_last_layers",
                          "%s needs pipeline parallelism "
                          "(%s=%lld, pp=%lld)",
                          f > 0 ? "pp_first_layers" : "pp_last_layers",
                          f > 0 ? "pp_first_layers" : "pp_last_layers",
                          (long long)(f > 0 ? f : l), (long long)c->pp));
    if (c->pp_embed_loss)
        return refused(deps, reads_uneven,
                       tplan_err_set(err, TPLAN_EINVAL, "pp_embed_loss",
                                     "pp_first_layers and pp_last_layers "
                                     "cannot go with pp_embed_loss "
                                     "(pp_first_layers=%lld, "
                                     "pp_last_layers=%lld)",
                                     (long long)f, (long long)l));
    if (c->vpp > 1 && (f % c->vpp || l % c->vpp))
        return refused(deps, reads_uneven,
                       tplan_err_set(err, TPLAN_EINVAL, "vpp",
                                     "vpp must divide pp_first_layers and "
                                     "pp_last_layers (pp_first_layers=%lld, "
                                     "pp_last_layers=%lld, vpp=%lld)",
                                     (long long)f, (long long)l,
                                     (long long)c->vpp));
    mid = c->pp - (f > 0) - (l > 0);
    rest = L - f - l;
    if (rest < 0 || (rest > 0) != (mid > 0))
        return refused(
            deps, reads_uneven,
            tplan_err_set(err, TPLAN_EINVAL, "pp",
                          "the first and last stages leave %lld layers "
                          "for %lld middle stages (layers=%lld, "
                          "pp_first_layers=%lld, pp_last_layers=%lld, "
                          "pp=%lld)",
                          (long long)rest, (long long)mid, (long long)L,
                          (long long)f, (long long)l, (long long)c->pp));
    if (mid > 0 && rest % mid)
        return refused(
            deps, reads_uneven,
            tplan_err_set(err, TPLAN_EINVAL, "pp",
                          "the middle stages must divide the middle layers "
                          "(layers - first - last = %lld, middle stages = "
                          "%lld, pp=%lld)",
                          (long long)rest, (long long)mid, (long long)c->pp));
    if (mid > 0 && c->vpp > 1 && (rest / mid) % c->vpp)
        return refused(
            deps, reads_uneven,
            tplan_err_set(err, TPLAN_EINVAL, "vpp",
                          "vpp must divide each middle stage's layers "
                          "(%lld, vpp=%lld)",
                          (long long)(rest / mid), (long long)c->vpp));
    return TPLAN_OK;
}

static int check_layout(const tplan_config *c, tplan_err *err,
                        const char *const **deps)
{
    const tplan_model *m = &c->model;
    int rc;

    if (deps)
        *deps = NULL;

    if ((rc = need_count("gpus", c->gpus, 10000000, err)) ||
        (rc = need_count("tp", c->tp, 10000000, err)) ||
        (rc = need_count("pp", c->pp, 10000000, err)) ||
        (rc = need_count("vpp", c->vpp, 100000, err)) ||
        (rc = need_count("seq", c->seq, 100000000, err)) ||
        (c->accum != 0 && (rc = need_count("accum", c->accum, 100000000, err))))
        return rc;
    if (c->micro_batch > 100000000)
        return tplan_err_set(err, TPLAN_EINVAL, "micro_batch",
                             "micro_batch must be at most 100000000 "
                             "(micro_batch=%lld)",
                             (long long)c->micro_batch);
    if (c->gpus_per_node < 0)
        return tplan_err_set(err, TPLAN_EINVAL, "gpus_per_node",
                             "gpus_per_node must be a positive integer "
                             "(gpus_per_node=%lld)",
                             (long long)c->gpus_per_node);
    if (c->micro_batch < 0)
        return tplan_err_set(err, TPLAN_EINVAL, "micro_batch",
                             "micro_batch must be a positive integer or max "
                             "(micro_batch=%lld)",
                             (long long)c->micro_batch);
    if (c->zero < 0 || c->zero > 3)
        return tplan_err_set(err, TPLAN_EINVAL, "zero",
                             "zero must be 0, 1, 2 or 3 (zero=%d)", c->zero);
    if ((unsigned)c->precision >= TPLAN_PREC_COUNT)
        return tplan_err_set(err, TPLAN_EINVAL, "precision",
                             "unknown precision (precision=%d)",
                             (int)c->precision);
    if ((unsigned)c->optimizer >= TPLAN_OPT_COUNT)
        return tplan_err_set(err, TPLAN_EINVAL, "optimizer",
                             "unknown optimizer (optimizer=%d)",
                             (int)c->optimizer);
    if ((unsigned)c->profile >= TPLAN_PROFILE_COUNT ||
        (unsigned)c->recompute > TPLAN_RECOMPUTE_FULL ||
        (unsigned)c->attention > TPLAN_ATTN_FLASH ||
        (unsigned)c->fit_attention > TPLAN_FIT_ATTN_FLASH ||
        (unsigned)c->fp8_recipe >= TPLAN_FP8_RECIPE_COUNT)
        return tplan_err_set(err, TPLAN_EINVAL, "config",
                             "unknown profile, recompute, attention, "
                             "fit_attention or fp8_recipe value");
    if (!(c->reserve_fraction >= 0.0 && c->reserve_fraction < 1.0))
        return tplan_err_set(err, TPLAN_EINVAL, "reserve",
                             "reserve must be in [0, 1) (reserve=%g)",
                             c->reserve_fraction);
    if (!(c->context_bytes >= 0.0 && c->context_bytes < 1e15))
        return tplan_err_set(err, TPLAN_EINVAL, "context",
                             "context bytes must be >= 0 (context=%g)",
                             c->context_bytes);
    if ((rc = need_count("ep", c->ep, 100000, err)) ||
        (rc = need_count("cp", c->cp, 100000, err)))
        return rc;
    if (c->cp == 1 && c->gpus % (c->tp * c->pp))
        return refused(
            deps, reads_split,
            tplan_err_set(err, TPLAN_EINVAL, "gpus",
                          "tp*pp must divide gpus (gpus=%lld, tp=%lld, "
                          "pp=%lld)",
                          (long long)c->gpus, (long long)c->tp,
                          (long long)c->pp));
    if (c->cp > 1 && (c->gpus % c->cp || c->gpus / c->cp % (c->tp * c->pp)))
        return refused(
            deps, reads_split,
            tplan_err_set(err, TPLAN_EINVAL, "gpus",
                          "tp*cp*pp must divide gpus (gpus=%lld, tp=%lld, "
                          "cp=%lld, pp=%lld)",
                          (long long)c->gpus, (long long)c->tp,
                          (long long)c->cp, (long long)c->pp));
    if (m->arch == TPLAN_ARCH_GENERIC) {
        if (c->tp != 1 || c->pp != 1 || c->cp != 1 || c->ep != 1)
            return refused(
                deps, reads_generic,
                tplan_err_set(err, TPLAN_EINVAL, "tp",
                              "generic models support data parallelism "
                              "only (tp=%lld, pp=%lld, cp=%lld, ep=%lld)",
                              (long long)c->tp, (long long)c->pp,
                              (long long)c->cp, (long long)c->ep));
        /* nor an expert-tensor degree: a generic model has no experts */
        if (tplan_config_etp(c) != 1)
            return tplan_err_set(err, TPLAN_EINVAL, "etp",
                                 "etp needs a mixture-of-experts model "
                                 "(etp=%lld, generic model)",
                                 (long long)tplan_config_etp(c));
        return validate_rest(c, err);
    }
    if ((rc = validate_moe_cp(c, err)))
        return rc;
    if (m->heads % c->tp)
        return refused(
            deps, reads_heads,
            tplan_err_set(err, TPLAN_EINVAL, "tp",
                          "tp must divide heads (heads=%lld, tp=%lld)",
                          (long long)m->heads, (long long)c->tp));
    /* Megatron splits kv heads over tp, or replicates them when tp is a
     * multiple of their count (num_query_groups % tp == 0 otherwise). */
    if (m->kv_heads % c->tp && c->tp % m->kv_heads)
        return refused(
            deps, reads_heads,
            tplan_err_set(err, TPLAN_EINVAL, "tp",
                          "tp must divide kv_heads or be a multiple of it "
                          "(kv_heads=%lld, tp=%lld)",
                          (long long)m->kv_heads, (long long)c->tp));
    if (c->sp && c->tp < 2)
        return refused(
            deps, reads_sp,
            tplan_err_set(err, TPLAN_EINVAL, "sp",
                          "sp needs tensor parallelism (sp=true, tp=%lld)",
                          (long long)c->tp));
    /* Megatron-LM splits unevenly too (--decoder-first-pipeline-num-layers,
     * --decoder-last-pipeline-num-layers): DeepSeek-V3 ran 61 layers on 16
     * stages. The fullest stage is evaluated. */
    if (c->pp > m->layers)
        return refused(deps, reads_depth,
                       tplan_err_set(err, TPLAN_EINVAL, "pp",
                                     "pp must be at most layers (layers=%lld, "
                                     "pp=%lld)",
                                     (long long)m->layers, (long long)c->pp));
    if (c->vpp > 1 && c->pp < 2)
        return refused(
            deps, reads_vpp,
            tplan_err_set(err, TPLAN_EINVAL, "vpp",
                          "vpp needs pipeline parallelism (vpp=%lld, "
                          "pp=%lld)",
                          (long long)c->vpp, (long long)c->pp));
    /* vpp > 1 is the interleaved schedule (1f1b given or defaulted reads
     * as it); interleaved needs virtual stages, the others have none */
    if ((unsigned)c->pp_schedule > TPLAN_PP_DUALPIPE)
        return tplan_err_set(err, TPLAN_EINVAL, "pp_schedule",
                             "unknown pp_schedule (pp_schedule=%d)",
                             (int)c->pp_schedule);
    if (c->pp_schedule == TPLAN_PP_INTERLEAVED && c->vpp < 2)
        return refused(
            deps, reads_sched,
            tplan_err_set(err, TPLAN_EINVAL, "pp_schedule",
                          "pp_schedule interleaved needs vpp >= 2 "
                          "(pp_schedule=interleaved, vpp=%lld)",
                          (long long)c->vpp));
    if ((c->pp_schedule == TPLAN_PP_ZB_H1 ||
         c->pp_schedule == TPLAN_PP_DUALPIPE) &&
        c->vpp > 1)
        return refused(
            deps, reads_sched,
            tplan_err_set(err, TPLAN_EINVAL, "pp_schedule",
                          "vpp > 1 is the interleaved schedule, not %s "
                          "(pp_schedule=%s, vpp=%lld)",
                          tplan_pp_schedule_name(c->pp_schedule),
                          tplan_pp_schedule_name(c->pp_schedule),
                          (long long)c->vpp));
    /* DualPipe runs two directions over mirrored rank pairs: an even
     * number of ranks (deepseek-ai/DualPipe dualpipe.py: assert
     * num_ranks % 2 == 0) */
    if (c->pp_schedule == TPLAN_PP_DUALPIPE && c->pp % 2)
        return refused(
            deps, reads_sched,
            tplan_err_set(err, TPLAN_EINVAL, "pp",
                          "pp_schedule dualpipe needs an even pp "
                          "(pp=%lld)",
                          (long long)c->pp));
    /* Megatron's interleaved schedule needs whole rounds of micro-batches
     * (number of micro-batches divisible by the pipeline size); DualPipe
     * an even count of at least 2 pp (dualpipe.py: num_chunks % 2 == 0
     * and num_chunks >= num_ranks * 2) */
    if (!tplan_config_whole_rounds(c, c->accum))
        return tplan_err_set(
            err, TPLAN_EINVAL, "accum",
            c->pp_schedule == TPLAN_PP_DUALPIPE
                ? "dualpipe needs an even accum of at least 2 x pp "
                  "(accum=%lld, pp=%lld)"
                : "interleaving needs accum to be a multiple of pp "
                  "(accum=%lld, pp=%lld, vpp=%lld)",
            (long long)c->accum, (long long)c->pp, (long long)c->vpp);
    if ((rc = check_uneven(c, err, deps)))
        return rc;
    /* counting the embedding and the loss as layers, Megatron-Core splits
     * layers + 2 evenly (transformer_config.py asserts the division);
     * MTP modules count as units too, before the loss (its
     * pipeline_model_parallel_layout's "m" units, e.g. DeepSeek-V3's
     * 61 layers + embedding + MTP + loss = 64 over 16 stages) */
    if (c->pp_embed_loss && c->pp > 1 &&
        (m->layers + 2 + m->mtp_layers) % c->pp)
        return refused(
            deps, reads_embed,
            m->mtp_layers > 0
                ? tplan_err_set(err, TPLAN_EINVAL, "pp",
                                "with pp_embed_loss pp must divide layers + "
                                "2 + mtp_layers (layers=%lld, "
                                "mtp_layers=%lld, pp=%lld)",
                                (long long)m->layers,
                                (long long)m->mtp_layers, (long long)c->pp)
                : tplan_err_set(err, TPLAN_EINVAL, "pp",
                                "with pp_embed_loss pp must divide layers + 2 "
                                "(layers=%lld, pp=%lld)",
                                (long long)m->layers, (long long)c->pp));
    if (c->vpp > 1 && !tplan_config_uneven_stages(c) &&
        (m->layers + (c->pp_embed_loss ? 2 : 0)) % (c->pp * c->vpp))
        return refused(
            deps, reads_chunks,
            tplan_err_set(err, TPLAN_EINVAL, "vpp",
                          c->pp_embed_loss
                              ? "pp*vpp must divide layers + 2 (layers=%lld, "
                                "pp=%lld, vpp=%lld, pp_embed_loss)"
                              : "pp*vpp must divide layers (layers=%lld, "
                                "pp=%lld, vpp=%lld)",
                          (long long)m->layers, (long long)c->pp,
                          (long long)c->vpp));
    if (m->pos == TPLAN_POS_LEARNED && c->seq > m->max_seq)
        return refused(
            deps, reads_seq,
            tplan_err_set(err, TPLAN_EINVAL, "seq",
                          "seq exceeds the model's learned positions "
                          "(seq=%lld, max_seq=%lld)",
                          (long long)c->seq, (long long)m->max_seq));
    return validate_rest(c, err);
}

int tplan_config_validate_layout(const tplan_config *c, tplan_err *err)
{
    return check_layout(c, err, NULL);
}

int tplan_config_layout_deps(const tplan_config *c, const char *const **deps)
{
    return check_layout(c, NULL, deps);
}

/* Every rule above that reads the input (keep in step with them: a rule
 * added that reads one of these inputs is added here too). Stricter
 * than the rules where that is simpler (a zero_shard_group with zero 0,
 * a generic model's recompute or precision, which its rules do not
 * read): false sends the caller to check_layout, for the message. */
bool tplan_config_recheck(const tplan_config *c, tplan_recheck what)
{
    switch (what) {
    case TPLAN_RECHECK_RECOMPUTE: /* check_layout's enums,
                                     validate_rc_modules */
        return (unsigned)c->recompute <= TPLAN_RECOMPUTE_FULL &&
               !rc_modules_with_full(c);
    case TPLAN_RECHECK_PRECISION: /* check_layout's enums,
                                     validate_rc_modules, validate_moe_cp */
        return (unsigned)c->precision < TPLAN_PREC_COUNT &&
               !fp8_activations_without_fp8(c) && !fp8_recipe_unsupported(c);
    case TPLAN_RECHECK_ZERO: /* check_layout, validate_sharding,
                                validate_finetune */
        return c->zero >= 0 && c->zero <= 3 &&
               !(c->zero == 0 && c->zero_shard_group > 0) &&
               !reshard_without_zero3(c) && !offload_params_without_zero3(c);
    case TPLAN_RECHECK_MICRO_BATCH: /* check_layout's two */
        return c->micro_batch >= 0 && c->micro_batch <= 100000000;
    default:
        return false;
    }
}

int64_t tplan_config_dp(const tplan_config *c)
{
    return c->gpus / (c->tp * c->cp * c->pp);
}

int64_t tplan_config_zero_group(const tplan_config *c)
{
    int64_t n = tplan_config_dp(c) * c->cp;

    /* a group that does not divide the whole is refused by validation;
     * hardening for a config that skipped it: the whole group */
    return c->zero_shard_group > 0 && c->zero_shard_group <= n &&
                   n % c->zero_shard_group == 0
               ? c->zero_shard_group
               : n;
}

int64_t tplan_config_zero_replicas(const tplan_config *c)
{
    return tplan_config_dp(c) * c->cp / tplan_config_zero_group(c);
}

/* A split other than the even one: the embedding and the loss counted
 * (pp_embed_loss) or the first and last stages given (uneven). Out of
 * line: the even split's callers (perf.c, a few a plan) then save no
 * registers for it (issue 38). */
static bool odd_split(const tplan_config *c)
{
    return c->pp > 1 && (c->pp_embed_loss || tplan_config_uneven_stages(c));
}

static void odd_stage_range(const tplan_config *c, int64_t i, int64_t *lo,
                            int64_t *hi);

void tplan_config_stage_range(const tplan_config *c, int64_t i, int64_t *lo,
                              int64_t *hi)
{
    int64_t L = c->model.layers, q = L / c->pp, r = L % c->pp;

    if (odd_split(c)) {
        odd_stage_range(c, i, lo, hi);
        return;
    }
    *lo = i * q + (i < r ? i : r);
    *hi = *lo + q + (i < r ? 1 : 0);
}

__attribute__((noinline)) static void
odd_stage_range(const tplan_config *c, int64_t i, int64_t *lo, int64_t *hi)
{
    int64_t L = c->model.layers;

    if (c->pp_embed_loss && c->pp > 1) {
        /* units 0 (the embedding) and, after the layers, the MTP modules
         * and the loss, (L + 2 + mtp)/p a stage (validation checks the
         * division): the last stage gives up a layer per MTP module */
        int64_t u = (L + 2 + c->model.mtp_layers) / c->pp;

        *lo = i * u > 0 ? i * u - 1 : 0;
        if (*lo > L)
            *lo = L;
        /* the last stage ends at L whatever the division (hardening: a
         * config that skipped validation loses no layer) */
        *hi = i == c->pp - 1 ? L : (i + 1) * u - 1;
        if (*hi > L)
            *hi = L;
    } else if (tplan_config_uneven_stages(c) && c->pp > 1) {
        /* Megatron-Core's uneven split (transformer_layer.py,
         * get_transformer_layer_offset): the first and last stages hold
         * what they are given, the middle ones (L - f - l)/(p - given)
         * each (validation checks the division) */
        int64_t f = c->pp_first_layers, l = c->pp_last_layers;
        int64_t mid = c->pp - (f > 0) - (l > 0);
        int64_t per = mid > 0 ? (L - f - l) / mid : 0;

        if (i == 0 && f > 0) {
            *lo = 0;
            *hi = f;
        } else if (i == c->pp - 1 && l > 0) {
            *lo = L - l;
            *hi = L;
        } else {
            *lo = f + (i - (f > 0)) * per;
            /* the last stage ends at L whatever the division, as above */
            *hi = i == c->pp - 1 ? L : *lo + per;
        }
        if (*lo < 0)
            *lo = 0;
        if (*hi > L)
            *hi = L;
        if (*lo > *hi)
            *lo = *hi;
    }
}

void tplan_stage_layers_format(const tplan_config *c, char *buf, size_t len)
{
    size_t used = 0;

    if (!len)
        return;
    buf[0] = '\0';
    if (c->model.arch == TPLAN_ARCH_GENERIC || c->pp < 1)
        return;
    for (int64_t i = 0; i < c->pp;) {
        int64_t lo, hi, k, j = i + 1;
        int n;

        tplan_config_stage_range(c, i, &lo, &hi);
        k = hi - lo;
        /* the stages after i with as many layers */
        for (; j < c->pp; j++) {
            int64_t lo2, hi2;

            tplan_config_stage_range(c, j, &lo2, &hi2);
            if (hi2 - lo2 != k)
                break;
        }
        /* always kxn, a run of one too: a bare "32" would read as a
         * number in a spreadsheet (tests/test_spreadsheet.sh) */
        n = snprintf(buf + used, len - used, "%s%lldx%lld", i ? "," : "",
                     (long long)k, (long long)(j - i));
        if (n < 0 || (size_t)n >= len - used)
            return; /* truncated: snprintf left it terminated */
        used += (size_t)n;
        i = j;
    }
}

bool tplan_config_uneven_stages(const tplan_config *c)
{
    return c->pp_first_layers > 0 || c->pp_last_layers > 0;
}

static int64_t uneven_fullest_stage(const tplan_config *c);

int64_t tplan_config_fullest_stage(const tplan_config *c)
{
    /* the first stage holds the most, but with pp_embed_loss a middle
     * one does (the first is a layer short) when there is one */
    if (!tplan_config_uneven_stages(c) || c->pp < 2)
        return c->pp_embed_loss && c->pp > 2 ? 1 : 0;
    return uneven_fullest_stage(c);
}

/* Out of line, as odd_stage_range */
__attribute__((noinline)) static int64_t
uneven_fullest_stage(const tplan_config *c)
{
    int64_t best = 0, most = -1;

    /* uneven: the first, a middle one (all alike) and the last */
    const int64_t cand[3] = {0, c->pp > 2 ? 1 : 0, c->pp - 1};

    for (int k = 0; k < 3; k++) {
        int64_t i = cand[k], lo, hi;

        tplan_config_stage_range(c, i, &lo, &hi);
        if (hi - lo > most) {
            most = hi - lo;
            best = i;
        }
    }
    return best;
}

int64_t tplan_config_etp(const tplan_config *c)
{
    return c->etp > 0 ? c->etp : c->tp;
}

int64_t tplan_config_edp(const tplan_config *c)
{
    return c->gpus / (c->pp * tplan_config_etp(c) * c->ep);
}

int64_t tplan_config_stage_layers(const tplan_config *c)
{
    int64_t lo, hi;

    tplan_config_stage_range(c, tplan_config_fullest_stage(c), &lo, &hi);
    return hi - lo;
}

double tplan_config_moe_imbalance(const tplan_config *c)
{
    if (c->moe_imbalance != 0.0)
        return c->moe_imbalance;
    return c->model.aux_free_router ? MOE_IMBALANCE_AUX_FREE
                                    : MOE_IMBALANCE_AUX_LOSS;
}

double tplan_config_moe_load(const tplan_config *c)
{
    /* one rank holding every expert sees exactly top_k tokens per token */
    if (c->ep <= 1)
        return 1.0;
    return c->capacity_factor > 0.0 ? c->capacity_factor
                                    : tplan_config_moe_imbalance(c);
}

int64_t tplan_config_gpus_per_node(const tplan_config *c)
{
    if (c->gpus_per_node > 0)
        return c->gpus_per_node;
    return c->gpu.gpus_per_node > 0 ? c->gpu.gpus_per_node : 8;
}

static const char *const recompute_names[] = {"none", "selective", "full"};

/* Megatron-Core's names (transformer_config.py recompute_modules), in
 * TPLAN_RC_* bit order */
const char *const tplan_rc_module_names[TPLAN_RC_NMODULES + 1] = {
    "core_attn", "moe_act", "layernorm",      "mla_up_proj",
    "mlp",       "moe",     "shared_experts", NULL};

unsigned tplan_config_rc_modules(const tplan_config *c)
{
    if (c->recompute == TPLAN_RECOMPUTE_FULL)
        return 0;
    if (c->recompute_modules)
        return c->recompute_modules;
    return c->recompute == TPLAN_RECOMPUTE_SELECTIVE ? TPLAN_RC_CORE_ATTN : 0;
}

bool tplan_recompute_modules_parse(const char *text, unsigned *mask)
{
    unsigned m = 0;
    const char *p = text;

    if (!text)
        return false;
    if (!*text || strcmp(text, "none") == 0) {
        *mask = 0;
        return true;
    }
    for (;;) {
        size_t len = strcspn(p, ",");
        int i = tplan_name_index(tplan_rc_module_names, TPLAN_RC_NMODULES,
                                 p, len);

        if (i < 0)
            return false;
        m |= 1u << i;
        if (!p[len])
            break;
        p += len + 1;
    }
    *mask = m;
    return true;
}

void tplan_recompute_modules_format(unsigned mask, char *buf, size_t len)
{
    if (len && !(mask & TPLAN_RC_ALL)) {
        snprintf(buf, len, "none");
        return;
    }
    tplan_names_join(mask, tplan_rc_module_names, TPLAN_RC_NMODULES, buf,
                     len);
}
static const char *const attention_names[] = {"eager", "flash"};
static const char *const profile_names[] = {"torch", "megatron", "torch-cpu"};

const char *tplan_pp_schedule_name(tplan_pp_schedule s)
{
    static const char *const names[] = {"1f1b", "interleaved", "zb-h1",
                                        "dualpipe"};

    return (unsigned)s <= TPLAN_PP_DUALPIPE ? names[s] : "?";
}

const char *tplan_recompute_name(tplan_recompute r)
{
    return recompute_names[r];
}

const char *tplan_attention_name(tplan_attention a)
{
    return attention_names[a];
}

const char *tplan_profile_name(tplan_profile p)
{
    return profile_names[p];
}

static int parse_name(const char *s, const char *const *names, int n, int *out)
{
    for (int i = 0; i < n; i++) {
        if (strcmp(s, names[i]) == 0) {
            *out = i;
            return 1;
        }
    }
    return 0;
}

int tplan_recompute_parse(const char *s, tplan_recompute *out, tplan_err *err)
{
    int v;

    if (!parse_name(s, recompute_names, 3, &v))
        return tplan_err_set(err, TPLAN_ENOTFOUND, "recompute",
                             "unknown recompute (recompute=%.64s); expected "
                             "none, selective or full",
                             s);
    *out = (tplan_recompute)v;
    return TPLAN_OK;
}

int tplan_attention_parse(const char *s, tplan_attention *out, tplan_err *err)
{
    int v;

    if (!parse_name(s, attention_names, 2, &v))
        return tplan_err_set(err, TPLAN_ENOTFOUND, "attention",
                             "unknown attention (attention=%.64s); expected "
                             "eager or flash",
                             s);
    *out = (tplan_attention)v;
    return TPLAN_OK;
}

int tplan_profile_parse(const char *s, tplan_profile *out, tplan_err *err)
{
    int v;

    if (!parse_name(s, profile_names, TPLAN_PROFILE_COUNT, &v))
        return tplan_err_set(err, TPLAN_ENOTFOUND, "profile",
                             "unknown profile (profile=%.64s); expected torch, "
                             "megatron or torch-cpu",
                             s);
    *out = (tplan_profile)v;
    return TPLAN_OK;
}

bool tplan_number_parse(const char *text, bool suffix, double *out)
{
    static const char units[] = "kKmMbBgGtT";
    static const double scale[] = {1e3, 1e3, 1e6, 1e6,  1e9,
                                   1e9, 1e9, 1e9, 1e12, 1e12};
    char *end;
    double v;

    if (!text[0] || !strchr("0123456789.+-", text[0]))
        return false;
    for (const char *p = text; *p; p++)
        if (!strchr("0123456789.eE+-", *p) && !(suffix && p[1] == '\0'))
            return false;
    v = strtod(text, &end);
    if (end == text)
        return false;
    if (*end) {
        const char *u = suffix && end[1] == '\0' ? strchr(units, *end) : NULL;

        if (!u)
            return false;
        v *= scale[u - units];
    }
    *out = v;
    return isfinite(v);
}

bool tplan_amount_parse(const char *text, double *out)
{
    return tplan_number_parse(text, true, out);
}

int tplan_warmup_parse(const char *text, double *value, tplan_warmup_unit *unit,
                       tplan_err *err)
{
    static const struct {
        const char *suffix;
        tplan_warmup_unit unit;
    } units[] = {{"steps", TPLAN_WARMUP_STEPS},
                 {"tokens", TPLAN_WARMUP_TOKENS},
                 {"epochs", TPLAN_WARMUP_EPOCHS},
                 {"%", TPLAN_WARMUP_FRACTION}};
    char num[64];
    size_t n = strlen(text);
    double v = 0.0;

    *unit = TPLAN_WARMUP_STEPS;
    if (n >= sizeof num)
        goto bad;
    snprintf(num, sizeof num, "%s", text);
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        size_t k = strlen(units[i].suffix);

        if (n > k && strcmp(text + n - k, units[i].suffix) == 0) {
            num[n - k] = '\0';
            *unit = units[i].unit;
            break;
        }
    }
    if (strcmp(num, "0") != 0 &&
        !(tplan_amount_parse(num, &v) && v > 0 && v <= 1e15))
        goto bad;
    if (*unit == TPLAN_WARMUP_FRACTION) {
        if (v >= 100.0)
            return tplan_err_set(err, TPLAN_EINVAL, "warmup",
                                 "warmup must be below 100%% of training "
                                 "(warmup=%.64s)",
                                 text);
        v /= 100.0;
    }
    *value = v;
    return TPLAN_OK;
bad:
    return tplan_err_set(err, TPLAN_EINVAL, "warmup",
                         "warmup must be a number in (0, 1e+15] with an "
                         "optional unit steps, tokens, epochs or %% "
                         "(warmup=%.64s)",
                         text);
}

int tplan_ramp_parse(const char *text, tplan_ramp_phase *ramp, int *n,
                     tplan_err *err)
{
    char buf[512];
    char *save = NULL;

    *n = 0;
    if (strlen(text) >= sizeof buf)
        return tplan_err_set(err, TPLAN_EINVAL, "batch_ramp",
                             "batch_ramp is too long");
    snprintf(buf, sizeof buf, "%s", text);
    for (char *ph = strtok_r(buf, ",", &save); ph;
         ph = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(ph, ':');
        tplan_ramp_phase *r;

        if (*n >= TPLAN_MAX_RAMP)
            return tplan_err_set(err, TPLAN_EINVAL, "batch_ramp",
                                 "batch_ramp takes at most %d phases "
                                 "(batch_ramp=%.64s)",
                                 TPLAN_MAX_RAMP, text);
        r = &ramp[*n];
        if (colon)
            *colon = '\0';
        r->until_tokens = 0;
        if (!tplan_amount_parse(ph, &r->batch_tokens) ||
            !(r->batch_tokens > 0) ||
            (colon && (!tplan_amount_parse(colon + 1, &r->until_tokens) ||
                       !(r->until_tokens > 0))))
            return tplan_err_set(err, TPLAN_EINVAL, "batch_ramp",
                                 "batch_ramp phases are BATCH:UNTIL in "
                                 "tokens, like 4M:252M,8M (batch_ramp=%.64s)",
                                 text);
        (*n)++;
    }
    if (*n == 0)
        return tplan_err_set(err, TPLAN_EINVAL, "batch_ramp",
                             "batch_ramp needs phases like 4M:252M,8M "
                             "(batch_ramp=%.64s)",
                             text);
    return TPLAN_OK;
}

int tplan_enum_parse(tplan_enum_kind kind, const char *s, int *out,
                     tplan_err *err)
{
    int rc;

    switch (kind) {
#define PARSE(k, type, fn)                                                     \
    case k: {                                                                  \
        type v;                                                                \
        if ((rc = fn(s, &v, err)) == TPLAN_OK)                                 \
            *out = (int)v;                                                     \
        return rc;                                                             \
    }
        PARSE(TPLAN_ENUM_PRECISION, tplan_precision, tplan_precision_parse)
        PARSE(TPLAN_ENUM_OPTIMIZER, tplan_optimizer, tplan_optimizer_parse)
        PARSE(TPLAN_ENUM_RECOMPUTE, tplan_recompute, tplan_recompute_parse)
        PARSE(TPLAN_ENUM_ATTENTION, tplan_attention, tplan_attention_parse)
        PARSE(TPLAN_ENUM_PROFILE, tplan_profile, tplan_profile_parse)
        PARSE(TPLAN_ENUM_LR_RULE, tplan_lr_rule, tplan_lr_rule_parse)
        PARSE(TPLAN_ENUM_SCHEDULE, tplan_schedule, tplan_schedule_parse)
#undef PARSE
    }
    return tplan_err_set(err, TPLAN_EINVAL, "config", "unknown field kind");
}

int64_t tplan_config_group_in_node(const tplan_config *c, int64_t n,
                                   int64_t stride)
{
    int64_t k = tplan_config_gpus_per_node(c) / stride;

    return k < 1 ? 1 : k < n ? k : n;
}

bool tplan_config_whole_rounds(const tplan_config *c, int64_t accum)
{
    if (c->pp_schedule == TPLAN_PP_DUALPIPE)
        return accum == 0 || (accum % 2 == 0 && accum >= 2 * c->pp);
    return c->vpp <= 1 || accum % c->pp == 0;
}

tplan_pp_schedule tplan_config_pp_schedule(const tplan_config *c)
{
    return c->vpp > 1 ? TPLAN_PP_INTERLEAVED : c->pp_schedule;
}

/* deepseek-ai/DualPipe dualpipe.py, step(): a rank at distance h from
 * the nearer end runs 2 (m/2 - p + h + 1) overlapped pairs in its main
 * step and p/2 - h - 1 more in step 5, of m forwards and m backwards:
 * m - 3p/2 + h + 1 pairs, fewest on the end ranks (h = 0). */
double tplan_config_paired_share(const tplan_config *c, double accum)
{
    double p = (double)c->pp, m = accum > 0 ? accum : 2.0 * p;

    if (tplan_config_pp_schedule(c) != TPLAN_PP_DUALPIPE || c->pp < 2)
        return 0.0;
    return tp_fmax(0.0, (m - 1.5 * p + 1.0) / m);
}

double tplan_config_comm_sms(const tplan_config *c)
{
    if (tplan_config_pp_schedule(c) != TPLAN_PP_DUALPIPE)
        return 0.0;
    if (c->comm_sm_share >= 0.0)
        return c->comm_sm_share;
    return c->ep > 1 ? DUALPIPE_COMM_SMS : 0.0;
}

int64_t tplan_config_gpus_on_node(const tplan_config *c)
{
    int64_t gpn = tplan_config_gpus_per_node(c);

    return c->gpus < gpn ? c->gpus : gpn;
}

double tplan_config_fp8_ratio(const tplan_config *c)
{
    double r;

    if (c->fp8_ratio_set)
        return c->gpu.fp8_ratio;
    r = tplan_fp8_recipe_ratio(&c->gpu, c->fp8_recipe);
    return r >= 0.0 ? r : c->gpu.fp8_ratio;
}

double tplan_config_host_memory(const tplan_config *c)
{
    tplan_host h;

    if (c->host_memory_bytes > 0)
        return c->host_memory_bytes;
    tplan_gpu_host(&c->gpu, &h);
    return h.memory_bytes_per_gpu * (double)tplan_config_gpus_on_node(c);
}

double tplan_config_pcie(const tplan_config *c)
{
    tplan_host h;

    if (c->pcie_bytes_per_s > 0)
        return c->pcie_bytes_per_s;
    tplan_gpu_host(&c->gpu, &h);
    return h.pcie_bytes_per_s;
}

double tplan_config_nvme(const tplan_config *c)
{
    return c->nvme_bytes_per_s > 0 ? c->nvme_bytes_per_s
                                   : DEFAULT_NVME_BYTES_PER_S;
}
