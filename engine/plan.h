/* One evaluation: a config in, a plan out. A plan is a plain value holding
 * the config and every derived figure, named with its unit. Allocates
 * nothing; knows nothing of I/O. */
#ifndef TPLAN_PLAN_H
#define TPLAN_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "err.h"
#include "memory.h"
#include "perf.h"
#include "run.h"

#define TPLAN_MAX_WARNINGS 16
#define TPLAN_WARNING_LEN  TPLAN_ADVICE_LEN

/* The learning-rate recipe of a plan (absent unless asked for). */
typedef struct tplan_lr {
    bool set;
    tplan_lr_rule rule;
    double base;       /* the reference LR (deepseek/gpt3: derived) */
    double base_batch; /* samples it was tuned at */
    double scale;      /* k = global batch / base batch */
    double peak;
    double weight_decay; /* scaled by sqrt(k); 0 when none given */
    tplan_lr_schedule schedule;
    double suggested_batch_tokens; /* deepseek/gpt3: their batch */
} tplan_lr;

/* Where the batch stands against the critical batch (McCandlish 2018). */
typedef struct tplan_critical {
    bool set;
    double batch_tokens; /* B_crit, the noise scale, in tokens */
    double steps_factor; /* S / S_min = 1 + B_crit/B */
    double data_factor;  /* E / E_min = 1 + B/B_crit */
} tplan_critical;

typedef struct tplan_plan {
    tplan_config config; /* copied; micro_batch as asked (0 = max) */
    int64_t params;      /* whole model */
    int64_t trainable_params; /* whole model: all, or the adapters' */
    int64_t active_params;    /* whole model: what one token uses (MoE) */
    int64_t mtp_params;       /* the multi-token prediction modules' own
                                 (not in params, trainable_params or
                                 active_params: the main model's) */
    int64_t dp;
    tplan_memory mem;
    /* batch */
    int64_t micro_batch; /* evaluated */
    int64_t max_micro_batch;
    int64_t accum;
    int64_t global_batch;        /* samples per optimizer step */
    int64_t tokens_per_step;     /* global_batch * seq */
    int64_t target_global_batch; /* asked for, samples; 0: none */
    bool batch_exact;            /* the target was met exactly */
    int64_t solved_micro_batch;  /* the config's micro_batch after the
                                    batch solve (re-evaluation) */
    /* the evaluation failed in the batch solve, which reads no time- or
     * run-class input: sweeps refuse those neighbours without a look */
    bool batch_refused;
    /* TPLAN_EVAL_FIT_FIRST stopped before the time: perf, run, lr and
     * critical are not this plan's */
    bool time_skipped;
    tplan_perf perf;
    tplan_run run;
    tplan_lr lr;
    tplan_critical critical;
    int n_warnings;
    char warnings[TPLAN_MAX_WARNINGS][TPLAN_WARNING_LEN];
} tplan_plan;

/* Validate c and evaluate it into *out. On error *out is unspecified and
 * err names the field. */
int tplan_plan_eval(const tplan_config *c, tplan_plan *out, tplan_err *err);

/* Evaluation flags. FIGURES skips the advice and warnings (no text, no
 * re-evaluation of what would fit): every number is the same. Sweeps use
 * it and re-evaluate the plans they keep in full (but for a sink that
 * asks for the figures, sweep.h's sink_figures). */
enum {
    TPLAN_EVAL_FULL = 0,
    TPLAN_EVAL_FIGURES = 1,
    /* the model and GPU were validated already (a sweep checks them once
     * before its walk): skip checking them again */
    TPLAN_EVAL_TRUSTED_PARTS = 2,
    /* Staged evaluation (sweeps): out already holds the figures-only plan
     * of a config that differs from the one given only in fields of the
     * time class (REUSE_MEMORY: efficiency terms, bands), the
     * communication class (REUSE_COMPUTE: overlap, bandwidths) or the run
     * class (REUSE_TIME: price, PUE, power, grid and the LR recipe;
     * tplan_field_reach says which). The parameters, memory and batch (and
     * with REUSE_TIME the step time) are kept and the rest evaluated as a
     * full evaluation would: the same figures, bit for bit. The caller
     * guarantees the premise; with FULL advice it is ignored. */
    TPLAN_EVAL_REUSE_MEMORY = 4,
    TPLAN_EVAL_REUSE_TIME = 8,
    /* as REUSE_MEMORY, keeping the compute part of the time too: only
     * communication-class fields changed (tplan_perf_eval_comm) */
    TPLAN_EVAL_REUSE_COMPUTE = 32,
    /* the caller checked tplan_config_validate_layout already (sweeps,
     * to tell layouts that are invalid from plans that fail later) */
    TPLAN_EVAL_LAYOUT_CHECKED = 16,
    /* warnings without the search for a change that would fit
     * (plan_remedy.c, ~20 us a plan that does not fit): such a plan keeps
     * its diagnosis. What keep = "fits"/"all" sweeps write, unless their
     * spec asks for advice (sweep.h, tplan_sweep_write_flags): millions of
     * rows; tplan calc on one gives its remedies. */
    TPLAN_EVAL_NO_REMEDY = 64,
    /* Staged evaluation (sweeps): out holds the figures-only plan of a
     * config that differs from the one given only in its target global
     * batch (global_batch, global_batch_tokens: TPLAN_REACH_BATCH). The
     * parameters and dp are kept, the batch solved again, and the memory
     * kept where the micro-batch was given and the new accumulation
     * leaves every stage's in-flight micro-batches as they were
     * (tplan_memory_same_accum); the rest is evaluated in full. As with the
     * other REUSE flags the caller (a sweep, whose axis values were
     * range-checked) guarantees the premise: the config is not
     * validated again. */
    TPLAN_EVAL_REUSE_BATCH = 128,
    /* with REUSE_BATCH: besides batch-class fields only run-class ones
     * changed, so the time holds where the solve leaves the memory's
     * figures the time reads as they were (plan.c, perf_inputs) */
    TPLAN_EVAL_BATCH_ONLY = 256,
    /* with REUSE_COMPUTE: no run-class field changed beside, so where
     * tplan_perf_eval_comm says the time cannot have moved the whole plan
     * is as it was and is kept */
    TPLAN_EVAL_COMM_ONLY = 512,
    /* figures only: a plan that does not fit stops after its memory, its
     * batch and the recipe's checks (ramp, LR), with no time, run or
     * critical batch (plan->time_skipped). A sweep ranking fitting plans
     * first asks for it once its top N are all plans that fit: one that
     * does not is turned away on that alone (issue 38). The time's own
     * range checks are not run for it either. In a batch-staged
     * evaluation (REUSE_BATCH) its memory may stop after the fit
     * verdict too (tplan_memory.partial: only fits, host_fits,
     * micro_batch, max_micro_batch and out_of_range are its own);
     * whatever times the plan later evaluates its memory again. */
    TPLAN_EVAL_FIT_FIRST = 1024,
    /* with COMM_ONLY and REUSE_COMPUTE: of all the config's fields only
     * the NIC's speed (nic_bytes_per_s) changed since the plan in out was
     * evaluated, so the other communication-class fields are as its time
     * last read them (tplan_perf_eval_nic). A hint: a path that does not
     * use it gives the same plan (issue 38: a sweep's NIC axis) */
    TPLAN_EVAL_NIC_ONLY = 2048
};

int tplan_plan_eval_ex(const tplan_config *c, tplan_plan *out, unsigned flags,
                       tplan_err *err);

/* Advice for a plan that does not fit (docs/MODEL.md section 4.5): the
 * changes a practitioner would try, in order, each evaluated. */
#define TPLAN_MAX_CHANGES  8
#define TPLAN_MAX_REMEDIES 12

/* One field set to a value: a number, or a name for named choices. */
typedef struct tplan_change {
    const char *field; /* contract name (tplan fields), static */
    double num;
    const char *name; /* NULL: num is the value (1/0 for booleans) */
} tplan_change;

typedef struct tplan_remedy {
    int n;
    tplan_change change[TPLAN_MAX_CHANGES];
    bool fits; /* false: only the last remedy, "nothing tried fits" */
    int64_t total_bytes, micro_batch, max_micro_batch;
    bool timed;
    double step_time_s;
    /* Figures that compare across changes of micro-batch, sequence and
     * GPU count (a step's seconds do not): the whole job's tokens per
     * second (when timed), and the run's wall clock in hours (when timed
     * and has_budget; per_epoch: for one epoch of the dataset). */
    double tokens_per_s, time_h;
    bool has_budget, per_epoch;
    char why[160];
} tplan_remedy;

/* The remedies of plan p, evaluated from c (p's config as evaluated), in
 * the order they are printed; 0 when p fits. */
int tplan_plan_remedies(const tplan_config *c, const tplan_plan *p,
                        tplan_remedy *out, int cap);

/* The learning rate the sources fine-tune with, for a fine-tune given no
 * LR (docs/MODEL.md section 12.9): QLoRA's 2e-4 (1e-4 from 33B) for
 * adapters, Alpaca's 2e-5 (1e-5 from 13B) for full fine-tuning; warmup
 * 3% of the steps in both. *source names them. */
double tplan_finetune_lr(const tplan_config *c, int64_t params,
                         const char **source);

/* "recompute=full, micro_batch=2, accum=8" */
void tplan_remedy_text(const tplan_remedy *r, char *buf, size_t len);

#endif
