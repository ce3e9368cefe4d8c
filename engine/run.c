/* Steps, time, GPU-hours, cost, energy and CO2 of a run. */
#include "run.h"

#include <math.h>

#include "inline_math.h"

/* Hoffmann et al. 2022 ("Chinchilla"): compute-optimal training uses about
 * 20 tokens per parameter. */
#define TOKENS_PER_PARAM 20.0

double tplan_cost_usd(double hours, double gpus, double price_usd_per_h)
{
    return hours * gpus * price_usd_per_h;
}

double tplan_energy_kwh(double hours, double gpus, double tdp_w,
                        double power_util, double pue)
{
    return gpus * tdp_w * power_util * hours * pue / 1000.0;
}

/* The budget: what the run's figures are of, from the config, the
 * parameters and the tokens a step consumes. Reads no time-, comm- or
 * run-class field (engine/fields.c, tplan_field_reach), so it stands
 * across a sweep's staged re-evaluations (plan.c, reeval). Clears the
 * rest of *out for tplan_run_time. */
void tplan_run_budget(const tplan_config *c, int64_t params,
                      int64_t tokens_per_step, tplan_run *out)
{
    *out = (tplan_run){0};
    if (c->tokens > 0) {
        out->tokens = c->tokens;
    } else if (c->epochs > 0) {
        out->tokens = c->epochs * c->dataset_samples * (double)c->seq;
    } else if (c->finetune && c->dataset_samples > 0) {
        out->tokens = c->dataset_samples * (double)c->seq;
        out->per_epoch = true;
    } else if (c->model.arch != TPLAN_ARCH_GENERIC && !c->finetune) {
        /* a fine-tune's budget is its data: never the pre-training rule */
        out->tokens = TOKENS_PER_PARAM * (double)params;
        out->default_budget = true;
    } else {
        return;
    }
    out->has_budget = true;
    out->steps = (int64_t)tp_ceil(out->tokens / (double)tokens_per_step);
}

/* What the budget's steps cost at perf's step time and out's price:
 * the wall clock, GPU-hours, cost, energy and CO2 */
static void steps_cost(const tplan_config *c, const tplan_perf *perf,
                       double gpus, tplan_run *out)
{
    out->time_h = (double)out->steps * perf->step_time_s / 3600.0;
    out->gpu_hours = out->time_h * gpus;
    out->cost_usd = tplan_cost_usd(out->time_h, gpus, out->price_usd_per_h);
    out->energy_kwh = tplan_energy_kwh(out->time_h, gpus, c->gpu.tdp_w,
                                       c->power_util, c->pue);
    out->co2_kg = out->energy_kwh * c->grid_kg_per_kwh;
}

/* What the budget's steps cost: the price, wall clock, GPU-hours, cost,
 * energy and CO2. Writes every field tplan_run_budget does not. */
void tplan_run_time(const tplan_config *c, const tplan_perf *perf,
                    tplan_run *out)
{
    double gpus = (double)c->gpus;

    out->price_usd_per_h =
        c->price_usd_per_h > 0 ? c->price_usd_per_h : c->gpu.price_usd_per_h;
    if (!out->has_budget) {
        out->time_h = out->gpu_hours = out->cost_usd = 0.0;
        out->energy_kwh = out->co2_kg = 0.0;
        return;
    }
    /* a model without FLOPs has no step time: its time, cost and energy
     * are unknown (NaN: null in every output), never a free run */
    if (!perf->timed) {
        out->time_h = out->gpu_hours = out->cost_usd = (double)NAN;
        out->energy_kwh = out->co2_kg = (double)NAN;
        return;
    }
    steps_cost(c, perf, gpus, out);
}

void tplan_run_retime(const tplan_config *c, const tplan_perf *perf,
                      tplan_run *out)
{
    /* the price (run-class fields, the GPU's) and, without a budget, the
     * zeros stand; a time before and now (the premise): no NaNs */
    if (out->has_budget)
        steps_cost(c, perf, (double)c->gpus, out);
}

void tplan_run_eval(const tplan_config *c, const tplan_perf *perf,
                    int64_t params, int64_t tokens_per_step, tplan_run *out)
{
    tplan_run_budget(c, params, tokens_per_step, out);
    tplan_run_time(c, perf, out);
}
