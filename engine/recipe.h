/* Training recipes around the batch: learning-rate scaling rules,
 * compute-optimal LR and batch, warmup, schedules evaluated at any step,
 * and the critical batch (docs/MODEL.md section 6). Pure arithmetic; knows
 * nothing of GPUs, memory or I/O. */
#ifndef TPLAN_RECIPE_H
#define TPLAN_RECIPE_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"

typedef enum {
    TPLAN_LR_NONE,        /* keep the reference LR */
    TPLAN_LR_LINEAR,      /* lr * k (Goyal et al. 2017) */
    TPLAN_LR_SQRT,        /* lr * sqrt(k) (Krizhevsky 2014; Hoffer 2017) */
    TPLAN_LR_LINEAR_SQRT, /* linear up to a threshold batch, sqrt beyond */
    TPLAN_LR_DEEPSEEK,    /* compute-optimal (DeepSeek LLM 2024) */
    TPLAN_LR_GPT3,        /* GPT-3's table by model size (Brown 2020) */
    TPLAN_LR_RULE_COUNT
} tplan_lr_rule;

typedef enum {
    TPLAN_SCHED_CONSTANT,
    TPLAN_SCHED_LINEAR,
    TPLAN_SCHED_COSINE,
    TPLAN_SCHED_WSD, /* warmup-stable-decay */
    TPLAN_SCHED_INVSQRT,
    TPLAN_SCHED_COUNT
} tplan_schedule;

/* A schedule over optimizer steps 0..total_steps-1: linear warmup from 0
 * to peak over warmup_steps (lr = peak * step / warmup_steps), then the
 * kind's shape down to floor at total_steps. */
typedef struct tplan_lr_schedule {
    tplan_schedule kind;
    double peak;
    double floor;
    int64_t warmup_steps;
    int64_t total_steps;
    double decay_fraction; /* wsd: share of all steps spent decaying */
} tplan_lr_schedule;

/* The learning rate at a step (steps past total_steps keep the last). */
double tplan_lr_at(const tplan_lr_schedule *s, int64_t step);

/* Scale base_lr, tuned at base_batch, to batch (same unit: samples or
 * tokens). threshold: where LINEAR_SQRT switches from linear to sqrt. Only
 * NONE, LINEAR, SQRT and LINEAR_SQRT. */
double tplan_lr_scale(tplan_lr_rule r, double base_lr, double base_batch,
                      double batch, double threshold);

/* DeepSeek LLM (2024) compute-optimal hyperparameters for a compute
 * budget C in FLOPs: batch in tokens and peak learning rate. */
double tplan_deepseek_batch_tokens(double compute_flops);
double tplan_deepseek_lr(double compute_flops);

/* GPT-3 (Brown et al. 2020, Table 2.1): batch in tokens and learning rate
 * for a model of `params`, interpolated log-linearly between the table's
 * sizes and clamped at its ends. */
void tplan_gpt3_recipe(double params, double *batch_tokens, double *lr);

/* Kaplan et al. 2020: critical batch in tokens at a loss in nats,
 * B_crit(L) = B* / L^(1/alpha_B). */
double tplan_kaplan_critical_batch_tokens(double loss_nats);

/* McCandlish et al. 2018: with noise scale B_noise, training at batch B
 * takes S = S_min (1 + B_noise/B) steps and E = E_min (1 + B/B_noise)
 * samples. Returns S/S_min and E/E_min. */
double tplan_steps_factor(double batch, double b_noise);
double tplan_data_factor(double batch, double b_noise);

const char *tplan_lr_rule_name(tplan_lr_rule r);
const char *tplan_schedule_name(tplan_schedule s);
int tplan_lr_rule_parse(const char *s, tplan_lr_rule *out, tplan_err *err);
int tplan_schedule_parse(const char *s, tplan_schedule *out, tplan_err *err);

#endif
