/* Advice the reference guides give, carried on each plan as a warning
 * that cites its source (docs/MODEL.md section 6.11; the guides' titles in
 * section 9.3). Where a paper disagrees, the warning says what the
 * paper found. */
#include "plan.h"
#include "engine_int.h"

#include <math.h>

/* Tradeoffs guide, pitfall 7: "Keep accumulation <= 16x" (docs/MODEL.md). */
#define MAX_ACCUM 16
/* The Batch Size Optimizer guide: batch-norm statistics get noisy "less than
 * 16" samples per micro-batch. */
#define MIN_BN_MICRO_BATCH 16
/* The Tradeoffs guide's pitfall 10 and the Choosing guide's FAQ:
 * fine-tune with batches of 16-64 (docs/MODEL.md section 6.11). */
#define MAX_FINETUNE_BATCH 64
/* The Summary guide: the linear rule "breaks above 2048-8192"; Goyal
 * et al. 2017 found it stable up to 8k on ImageNet. */
#define LINEAR_RULE_LIMIT 8192

/* GPipe (Huang et al. 2019, section 2.3): "the bubble overhead [is]
 * negligible when M >= 4 x K" micro-batches and partitions; with
 * m >= 4p the bubble (p-1)/(v m) stays under a quarter (docs/MODEL.md
 * section 6.11). */
#define MAX_BUBBLE 0.25

/* Fine-tuning learning rates (docs/MODEL.md section 12.9): QLoRA's
 * scripts use 2e-4 for 7B/13B and 1e-4 for 33B/65B (qlora.py,
 * scripts/finetune_guanaco_*.sh); Stanford Alpaca fully fine-tunes LLaMA-7B
 * at 2e-5 and 13B at 1e-5. LoRA's best rates run "between 5e-5 and 5e-4",
 * about 10x full fine-tuning's (Biderman et al. 2024). */
#define QLORA_LR_SMALL      2e-4
#define QLORA_LR_LARGE      1e-4
#define QLORA_LARGE_PARAMS  30e9 /* 33B and up */
#define ALPACA_LR_SMALL     2e-5
#define ALPACA_LR_LARGE     1e-5
#define ALPACA_LARGE_PARAMS 10e9 /* 13B and up */
#define LORA_LR_LOW         5e-5
#define LORA_LR_HIGH        1e-3
#define FULL_FT_LR_HIGH     1e-4

double tplan_finetune_lr(const tplan_config *c, int64_t params,
                         const char **source)
{
    if (c->lora_rank > 0) {
        *source = "QLoRA's scripts (Dettmers et al. 2023): 2e-4 to 13B, "
                  "1e-4 from 33B, constant, 3% warmup";
        return (double)params >= QLORA_LARGE_PARAMS ? QLORA_LR_LARGE
                                                    : QLORA_LR_SMALL;
    }
    *source = "Stanford Alpaca: LLaMA-7B at 2e-5, 13B at 1e-5, cosine, 3% "
              "warmup";
    return (double)params >= ALPACA_LARGE_PARAMS ? ALPACA_LR_LARGE
                                                 : ALPACA_LR_SMALL;
}

/* The guides' warmup table (the Tradeoffs guide): 2x no, 4x
 * maybe, 8x yes, 16x and up critical. */
static const char *warmup_need(double k)
{
    if (k >= 16)
        return "critical";
    if (k >= 8)
        return "yes";
    if (k >= 4)
        return "maybe";
    return "no";
}

/* One calibrated range: the value outside [lo, hi] (0 ends: none). */
static void calib_check(tplan_plan *p, const char *fw, const char *what,
                        double v, const double r[2])
{
    if (r[0] > 0.0 && v < r[0])
        tplan_plan_warn(p,
                        "%s %.4g is below the %.4g of framework %s's "
                        "calibration runs: its fitted values are "
                        "extrapolated",
                        what, v, r[0], fw);
    else if (r[1] > 0.0 && v > r[1])
        tplan_plan_warn(p,
                        "%s %.4g is above the %.4g of framework %s's "
                        "calibration runs: its fitted values are "
                        "extrapolated",
                        what, v, r[1], fw);
}

void tplan_plan_advice(const tplan_config *c, tplan_plan *p)
{
    const tplan_memory *m = &p->mem;
    double cap = (double)m->capacity_bytes;

    /* tplan calibrate records the range of the runs it fitted */
    calib_check(p, c->framework[0] ? c->framework : "(none)", "params",
                (double)p->params, c->calib.params);
    calib_check(p, c->framework[0] ? c->framework : "(none)", "gpus",
                (double)c->gpus, c->calib.gpus);
    calib_check(p, c->framework[0] ? c->framework : "(none)", "seq",
                (double)c->seq, c->calib.seq);
    /* issue 34: a profile (a calibration, an eff_scale) that drives the
     * matmuls to the GPU's peak; published large runs reach about half
     * of it (Narayanan et al. 2021: 52% on A100) and the model's
     * efficiency saturates at 100% (engine/perf.c). --efficiency fixes
     * it by hand: not warned. */
    if (p->perf.timed && c->efficiency <= 0 && p->perf.matmul_eff >= 0.95)
        tplan_plan_warn(p,
                        "matmuls at %.0f%% of the GPU's peak (eff_scale "
                        "%.4g of framework %s): no training run sustains "
                        "that; the profile's efficiency is not to be "
                        "trusted",
                        p->perf.matmul_eff * 100.0, c->eff_scale,
                        c->framework[0] ? c->framework : "(none)");
    /* era terms (issue 34): a framework fitted under one attention kernel
     * and run under the other stacks that kernel's speed-up (or loss) on
     * its fitted efficiency */
    if (c->fit_attention != TPLAN_FIT_ATTN_ANY &&
        (int)c->attention != (int)c->fit_attention - 1)
        tplan_plan_warn(p,
                        "framework %s was fitted under %s attention; with "
                        "%s its efficiency is extrapolated (attention=%s "
                        "uses the fit's kernel)",
                        c->framework[0] ? c->framework : "(none)",
                        tplan_attention_name(
                            (tplan_attention)(c->fit_attention - 1)),
                        tplan_attention_name(c->attention),
                        tplan_attention_name(
                            (tplan_attention)(c->fit_attention - 1)));
    if (p->target_global_batch > 0 && !p->batch_exact)
        tplan_plan_warn(p,
                        "global batch %lld misses the target %lld: no "
                        "micro-batch that fits splits it over dp=%lld "
                        "exactly",
                        (long long)p->global_batch,
                        (long long)p->target_global_batch, (long long)p->dp);
    if (c->pp > 1 && p->perf.timed && p->perf.bubble_fraction > MAX_BUBBLE)
        tplan_plan_warn(p,
                        "pipeline bubble %.0f%% of the step (%s with "
                        "pp=%lld, vpp=%lld, %lld micro-batches): GPipe "
                        "(Huang et al. 2019) finds it negligible from 4 x pp "
                        "micro-batches; raise accum or the global batch",
                        p->perf.bubble_fraction * 100.0,
                        tplan_config_pp_schedule(c) == TPLAN_PP_1F1B ||
                                tplan_config_pp_schedule(c) ==
                                    TPLAN_PP_INTERLEAVED
                            ? "(p-1)/(v m)"
                            : tplan_pp_schedule_name(
                                  tplan_config_pp_schedule(c)),
                        (long long)c->pp, (long long)c->vpp,
                        (long long)p->accum);
    /* Switch Transformers (Fedus et al. 2022, section 2.2): an expert
     * takes capacity_factor x its even share of the tokens; the overflow
     * is dropped and passes the layer through the residual connection.
     * The busiest experts get moe_imbalance x their share (tplan's
     * assumption, docs/MODEL.md section 13.3), so they drop 1 - cf/imb of
     * theirs; under cf < 1 even balanced routing drops 1 - cf of all. */
    if (tplan_model_moe(&c->model) && c->capacity_factor > 0.0 &&
        c->capacity_factor < fmax(tplan_config_moe_imbalance(c), 1.0))
        tplan_plan_warn(p,
                        "capacity_factor %g drops tokens: experts at "
                        "%gx their share (moe_imbalance) lose %.0f%% of "
                        "theirs%s (Switch Transformers, Fedus et al. 2022, "
                        "section 2.2); the quality cost is not modelled "
                        "and FLOPs count every routed token",
                        c->capacity_factor, fmax(tplan_config_moe_imbalance(c), 1.0),
                        (1.0 - c->capacity_factor /
                                   fmax(tplan_config_moe_imbalance(c), 1.0)) *
                            100.0,
                        c->capacity_factor < 1.0
                            ? ", and balanced routing loses some too"
                            : "");
    /* With pipelining the micro-batches fill the pipeline: many are the
     * point (Narayanan 2021), not a workaround for memory. */
    if (c->pp == 1 && p->accum > MAX_ACCUM)
        tplan_plan_warn(p,
                        "accum=%lld > 16: the guides advise at most 16 "
                        "(batch_size_memory_tradeoffs.txt, pitfall 7); the "
                        "gradients are not stale (Goyal et al. 2017), but "
                        "steps get long: more GPUs would shorten them",
                        (long long)p->accum);
    if (c->model.batch_norm && p->micro_batch < MIN_BN_MICRO_BATCH)
        tplan_plan_warn(p,
                        "micro-batch %lld < 16 with batch norm: its "
                        "statistics get noisy; use SyncBatchNorm or "
                        "GroupNorm (batch_size_optimizer.txt; Goyal et al. "
                        "2017 keep 32 per GPU)",
                        (long long)p->micro_batch);
    if (p->lr.set && p->lr.schedule.warmup_steps == 0 && p->lr.scale >= 4.0)
        tplan_plan_warn(p,
                        "LR scaled %.3gx with no warmup: warmup needed? %s "
                        "(batch_size_memory_tradeoffs.txt table); Goyal et "
                        "al. 2017 lost 1.1 points without it at 32x",
                        p->lr.scale, warmup_need(p->lr.scale));
    if (p->lr.set && p->lr.rule == TPLAN_LR_LINEAR &&
        p->global_batch > LINEAR_RULE_LIMIT)
        tplan_plan_warn(p,
                        "linear LR scaling at %lld samples: it breaks above "
                        "2048-8192 (batch_size_summary.txt; Goyal et al. "
                        "2017: error rises past 8k); consider sqrt or "
                        "linear-sqrt",
                        (long long)p->global_batch);
    if (p->critical.set &&
        (double)p->tokens_per_step > p->critical.batch_tokens)
        tplan_plan_warn(p,
                        "global batch %.3g tokens is past the critical batch "
                        "%.3g: %.2fx the minimum data for %.2fx the minimum "
                        "steps (McCandlish et al. 2018; "
                        "batch_size_optimizer.txt)",
                        (double)p->tokens_per_step, p->critical.batch_tokens,
                        p->critical.data_factor, p->critical.steps_factor);
    if (c->finetune && p->global_batch > MAX_FINETUNE_BATCH)
        tplan_plan_warn(p,
                        "fine-tuning with a global batch of %lld: the guides "
                        "advise 16-64 and a small LR "
                        "(batch_size_memory_tradeoffs.txt, pitfall 10; BERT "
                        "fine-tunes at 16-32)",
                        (long long)p->global_batch);
    if (c->finetune && p->lr.set && c->lora_rank > 0 &&
        (p->lr.peak < LORA_LR_LOW || p->lr.peak > LORA_LR_HIGH))
        tplan_plan_warn(p,
                        "LoRA at a peak LR of %.3g: adapters train best "
                        "between 5e-5 and 5e-4, about 10x full fine-tuning's "
                        "rate (Biderman et al. 2024); QLoRA used 2e-4 (1e-4 "
                        "from 33B)",
                        p->lr.peak);
    if (c->finetune && p->lr.set && c->lora_rank == 0 &&
        p->lr.peak > FULL_FT_LR_HIGH)
        tplan_plan_warn(p,
                        "full fine-tuning at a peak LR of %.3g: Alpaca "
                        "fine-tunes LLaMA at 1e-5 to 2e-5; rates this high "
                        "are LoRA's (Biderman et al. 2024)",
                        p->lr.peak);
    if (!c->loss_scaling && (c->precision == TPLAN_PREC_AMP_FP16 ||
                             c->precision == TPLAN_PREC_MIXED_FP16))
        tplan_plan_warn(p, "fp16 without loss scaling: gradients under 6e-8 "
                           "underflow to zero; use a loss scaler or bf16 "
                           "(batch_size_optimizer.txt)");
    if (m->fits && cap - (double)m->total_bytes < 0.10 * cap)
        tplan_plan_warn(p,
                        "headroom %.1f%% of GPU memory: the guides keep 10%% "
                        "free for fragmentation and buffers "
                        "(gpu_workshop_max_batch.txt)",
                        (cap - (double)m->total_bytes) / cap * 100.0);
}
