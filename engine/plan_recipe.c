/* The recipe part of a plan: learning rate, warmup and schedule for the
 * achieved global batch, the critical batch, and batch-size ramps. */
#include "flops.h"
#include "engine_int.h"
#include "plan.h"

#include <math.h>

/* The guides' usual switch from linear to square-root scaling: "linear
 * scaling up to batch 2,048" (the Choosing guide, docs/MODEL.md section
 * 6.2). In samples. */
#define LINEAR_SQRT_THRESHOLD 2048.0

static bool adaptive(tplan_optimizer o)
{
    return o != TPLAN_OPT_SGD && o != TPLAN_OPT_SGD_MOMENTUM;
}

/* Default warmup when none is given: Goyal et al. 2017's 5 epochs when the
 * budget is in epochs; else 1% of the steps, where published LLM runs sit
 * (BERT 1%, Kaplan et al. 2020 1.2%, DeepSeek LLM 0.94%, Llama 3 0.67%).
 * The guides' table says whether warmup is needed, not how long. */
#define AUTO_WARMUP_EPOCHS   5.0
#define AUTO_WARMUP_FRACTION 0.01

/* Warmup steps from the config's unit. */
static int warmup_steps(const tplan_config *c, const tplan_plan *p,
                        int64_t *out, tplan_err *err)
{
    double w = c->warmup, steps = (double)p->run.steps;

    switch (c->warmup_unit) {
    case TPLAN_WARMUP_STEPS:
        *out = (int64_t)ceil(w);
        break;
    case TPLAN_WARMUP_TOKENS:
        *out = (int64_t)ceil(w / (double)p->tokens_per_step);
        break;
    case TPLAN_WARMUP_EPOCHS:
        if (!(c->dataset_samples > 0))
            return tplan_err_set(err, TPLAN_EINVAL, "warmup",
                                 "warmup in epochs needs the dataset size "
                                 "(warmup=%g epochs)",
                                 w);
        *out = (int64_t)ceil(w * c->dataset_samples / (double)p->global_batch);
        break;
    case TPLAN_WARMUP_FRACTION:
        if (!p->run.has_budget)
            return tplan_err_set(err, TPLAN_EINVAL, "warmup",
                                 "warmup as a fraction needs a training "
                                 "budget (warmup=%g%%)",
                                 w * 100.0);
        *out = (int64_t)ceil(w * steps);
        break;
    default:
        if (c->epochs > 0 && c->dataset_samples > 0)
            *out = (int64_t)ceil(fmin(AUTO_WARMUP_EPOCHS, c->epochs / 10.0) *
                                 c->dataset_samples / (double)p->global_batch);
        else
            *out = p->run.has_budget
                       ? (int64_t)ceil(AUTO_WARMUP_FRACTION * steps)
                       : 0;
        break;
    }
    if (p->run.has_budget && *out > p->run.steps)
        return tplan_err_set(err, TPLAN_EINVAL, "warmup",
                             "warmup is longer than training "
                             "(warmup_steps=%lld, steps=%lld)",
                             (long long)*out, (long long)p->run.steps);
    return TPLAN_OK;
}

int tplan_plan_lr(const tplan_config *c, tplan_plan *p, tplan_err *err)
{
    tplan_lr *lr = &p->lr;
    double b = (double)p->global_batch;
    double thr = c->lr_threshold > 0 ? c->lr_threshold : LINEAR_SQRT_THRESHOLD;
    bool derived = c->lr_rule_set && (c->lr_rule == TPLAN_LR_DEEPSEEK ||
                                      c->lr_rule == TPLAN_LR_GPT3);
    int rc;

    if (!(c->lr > 0) && !derived)
        return TPLAN_OK;
    lr->set = true;
    /* Default rule: linear for SGD (Goyal et al. 2017), square root for
     * adaptive optimizers (Malladi et al. 2022, "On the SDEs and Scaling
     * Rules for Adaptive Gradient Algorithms"). */
    lr->rule = c->lr_rule_set           ? c->lr_rule
               : adaptive(c->optimizer) ? TPLAN_LR_SQRT
                                        : TPLAN_LR_LINEAR;
    lr->base_batch = c->lr_base_batch > 0 ? c->lr_base_batch : b;
    lr->scale = b / lr->base_batch;
    if (lr->rule == TPLAN_LR_DEEPSEEK) {
        /* DeepSeek's C = M D: non-embedding FLOPs per token (model FLOPs
         * less the vocabulary projection) times the training tokens. */
        tplan_flops f;
        double m;

        /* M = 72 L d^2 + 12 L d s for their models: attention counted in
         * full (non-causal), as DeepSeek does. */
        tplan_flops_eval(&c->model, c->seq, 1.0, TPLAN_RECOMPUTE_NONE,
                         c->attention, false, &f);
        m = f.per_token -
            (c->model.arch == TPLAN_ARCH_GENERIC
                 ? 0.0
                 : 6.0 * (double)c->model.hidden * (double)c->model.vocab);
        lr->base = lr->peak = tplan_deepseek_lr(fmax(m * p->run.tokens, 1.0));
        lr->suggested_batch_tokens =
            tplan_deepseek_batch_tokens(fmax(m * p->run.tokens, 1.0));
        lr->base_batch = b;
        lr->scale = 1.0;
    } else if (lr->rule == TPLAN_LR_GPT3) {
        tplan_gpt3_recipe((double)p->params, &lr->suggested_batch_tokens,
                          &lr->base);
        lr->peak = lr->base;
        lr->base_batch = b;
        lr->scale = 1.0;
    } else {
        lr->base = c->lr;
        lr->peak = tplan_lr_scale(lr->rule, c->lr, lr->base_batch, b, thr);
    }
    if (c->lr_cap > 0 && lr->peak > c->lr_cap)
        lr->peak = c->lr_cap;
    /* The Tradeoffs guide: weight decay ~ sqrt(batch); Goyal and GPT-3
     * keep it fixed (docs/MODEL.md section 6.5). */
    lr->weight_decay = c->weight_decay * sqrt(lr->scale);
    lr->schedule.kind = c->schedule;
    lr->schedule.peak = lr->peak;
    lr->schedule.floor = c->lr_floor * lr->peak;
    lr->schedule.decay_fraction = c->wsd_decay;
    lr->schedule.total_steps = p->run.has_budget ? p->run.steps : 0;
    if ((rc = warmup_steps(c, p, &lr->schedule.warmup_steps, err)))
        return rc;
    return TPLAN_OK;
}

void tplan_plan_critical(const tplan_config *c, tplan_plan *p)
{
    double bc = c->b_noise_tokens;

    if (!(bc > 0) && c->target_loss > 0)
        bc = tplan_kaplan_critical_batch_tokens(c->target_loss);
    if (!(bc > 0))
        return;
    p->critical.set = true;
    p->critical.batch_tokens = bc;
    p->critical.steps_factor =
        tplan_steps_factor((double)p->tokens_per_step, bc);
    p->critical.data_factor = tplan_data_factor((double)p->tokens_per_step, bc);
}

/* A batch-size ramp (Llama 3: 4M tokens, then 8M, then 16M): each phase is
 * planned at its own global batch, its steps and time summed into the run.
 * The plan's other figures are the last phase's. */
int tplan_plan_ramp(const tplan_config *c, tplan_plan *p, tplan_err *err)
{
    tplan_config w;
    double done = 0.0, steps = 0.0, hours = 0.0;
    int rc;

    /* before the copy: a config is kilobytes and sweeps call this for
     * every plan */
    if (c->n_ramp == 0 || !p->run.has_budget)
        return TPLAN_OK;
    w = *c;
    w.n_ramp = 0;
    w.global_batch = 0;
    for (int i = 0; i < c->n_ramp && done < p->run.tokens; i++) {
        tplan_plan phase;
        double until = c->ramp[i].until_tokens > 0 && i < c->n_ramp - 1
                           ? fmin(c->ramp[i].until_tokens, p->run.tokens)
                           : p->run.tokens;
        double n;

        w.global_batch_tokens = c->ramp[i].batch_tokens;
        w.micro_batch = c->micro_batch;
        w.accum = 0; /* each phase's batch sets its accumulation */
        if ((rc = tplan_plan_eval_ex(&w, &phase, TPLAN_EVAL_FIGURES, err)))
            return rc;
        n = ceil((until - done) / (double)phase.tokens_per_step);
        steps += n;
        hours += n * phase.perf.step_time_s / 3600.0;
        done += n * (double)phase.tokens_per_step;
        if (!phase.mem.fits)
            tplan_plan_warn(p,
                            "ramp phase %d (%.3g tokens per step) does not "
                            "fit in memory",
                            i + 1, (double)phase.tokens_per_step);
    }
    p->run.steps = (int64_t)steps;
    /* without FLOPs the phases have no time: time, cost and energy stay
     * unknown (NaN), never the zero a sum of nothing would give */
    if (!p->perf.timed)
        return TPLAN_OK;
    p->run.time_h = hours;
    p->run.gpu_hours = hours * (double)c->gpus;
    p->run.cost_usd =
        tplan_cost_usd(hours, (double)c->gpus, p->run.price_usd_per_h);
    p->run.energy_kwh = tplan_energy_kwh(hours, (double)c->gpus, c->gpu.tdp_w,
                                         c->power_util, c->pue);
    p->run.co2_kg = p->run.energy_kwh * c->grid_kg_per_kwh;
    return TPLAN_OK;
}
