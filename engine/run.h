/* A whole training run from one step: steps for a token (or epoch) budget,
 * wall-clock time, GPU-hours, cost, energy and CO2 (docs/MODEL.md
 * sections 5 and 7).
 * Knows nothing of I/O. */
#ifndef TPLAN_RUN_H
#define TPLAN_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "perf.h"

typedef struct tplan_run {
    bool has_budget; /* false: no budget given to a generic model or a
                        fine-tune (per-step figures only) */
    double tokens;   /* the budget, in tokens (samples * seq) */
    int64_t steps;   /* optimizer steps to consume it (rounded up) */
    double time_h;   /* wall clock */
    double gpu_hours;
    double price_usd_per_h;
    double cost_usd;
    double energy_kwh;
    double co2_kg;
    bool default_budget; /* the budget is the 20-tokens-per-parameter default */
    bool per_epoch;      /* a fine-tune given its dataset, not its epochs:
                            the figures are for one epoch */
} tplan_run;

/* Evaluate the run of a validated config timed by *perf whose steps
 * consume tokens_per_step tokens. Without a budget, transformers train on
 * 20 tokens per parameter (Hoffmann et al. 2022, compute-optimal), except
 * a fine-tune (--finetune), whose budget comes from its data only. */
void tplan_run_eval(const tplan_config *c, const tplan_perf *perf,
                    int64_t params, int64_t tokens_per_step, tplan_run *out);

/* tplan_run_eval in two parts. The budget (has_budget, tokens, steps,
 * default_budget, per_epoch) reads only the config's budget fields, the
 * sequence, the model and tokens_per_step; the time part (the price and
 * what the steps cost) reads *perf and the run-class fields, and writes
 * every field the budget part does not. A staged re-evaluation keeps
 * the budget and calls tplan_run_time alone. */
void tplan_run_budget(const tplan_config *c, int64_t params,
                      int64_t tokens_per_step, tplan_run *out);
void tplan_run_time(const tplan_config *c, const tplan_perf *perf,
                    tplan_run *out);
/* tplan_run_time where *out is the same plan's run, written by
 * tplan_run_time, and since then only its step time moved (perf timed
 * then and now; no run-class field, GPU or budget changed: a staged
 * communication change, plan.c comm_staged): what the steps cost again,
 * the price and a missing budget's zeros as they stand. */
void tplan_run_retime(const tplan_config *c, const tplan_perf *perf,
                      tplan_run *out);

/* The cost path on its own: hours x GPUs x price, and the energy of it. */
double tplan_cost_usd(double hours, double gpus, double price_usd_per_h);
double tplan_energy_kwh(double hours, double gpus, double tdp_w,
                        double power_util, double pue);

#endif
