/* The engine's internals: what its files share and no caller outside
 * engine/ may use (a sweep's memo, the parts of one plan evaluation). */
#ifndef TPLAN_ENGINE_INT_H
#define TPLAN_ENGINE_INT_H

#include "activations.h"
#include "plan.h"

/* tplan_memory_eval with an activation memo (NULL: none); a memo never
 * changes a result, only how fast it comes. */
void tplan_memory_eval_cached(const tplan_config *c, tplan_act_cache *cache,
                              tplan_memory *out);

/* Is c the config of cache's states memo (stage_mem.h), but for the
 * fields its key leaves out? Records the answer for the memory
 * evaluations that follow (tplan_states_memo.probe: the caller clears
 * it before c changes in any other field than micro_batch and accum)
 * and, on a hit, gives the key's model's counts in *pc. */
bool tplan_states_probe(const tplan_config *c, tplan_act_cache *cache,
                        tplan_param_count *pc);

/* c's model's counts: the params memo's where a probe that missed found
 * that memo holding c's model (tplan_states_memo.model_same), else
 * looked up (tplan_model_params_cached; cache may be NULL). */
void tplan_states_params(const tplan_config *c, tplan_act_cache *cache,
                         tplan_param_count *pc);

/* tplan_plan_eval_ex with a memo the caller owns (one per sweep worker). */
int tplan_plan_eval_cached(const tplan_config *c, tplan_act_cache *cache,
                           tplan_plan *out, unsigned flags, tplan_err *err);

/* tplan_plan_eval_cached(&p->config, cache, p, flags, err) where flags
 * are a sweep's staged ones after a change of the NIC's speed alone
 * (TPLAN_EVAL_NIC_ONLY with REUSE_COMPUTE, COMM_ONLY and FIGURES, no
 * REUSE_TIME: that premise, not checked): the same result and plan.
 * *stands: the plan was left as it was, with TPLAN_OK, and would be
 * by the same step again (comm_staged_ok with no group across nodes or
 * no time; comm_unfit_stands): nothing was evaluated. */
int tplan_plan_eval_nic(tplan_plan *p, tplan_act_cache *cache, unsigned flags,
                        bool *stands, tplan_err *err);

/* Would accumulations a and b (0: automatic) leave every pipeline stage
 * of c holding the same micro-batches in flight? Nothing else in the
 * memory reads the accumulation (memory.c). */
bool tplan_memory_same_accum(const tplan_config *c, int64_t a, int64_t b);

/* Parts of a plan evaluation, in order (plan_batch.c, plan_recipe.c,
 * plan_advice.c). w is the working config: the target global batch is
 * resolved into its micro_batch and accum. kept_accum > 0: p->mem holds
 * the memory of w as it is but for its target, evaluated at the
 * micro-batch w gives and that accumulation (TPLAN_EVAL_REUSE_BATCH);
 * where the accumulation solved (the one the micro-batch given and the
 * target make, or with no target the automatic one) leaves it the same,
 * it is kept. */
int tplan_plan_batch(tplan_config *w, tplan_act_cache *cache, tplan_plan *p,
                     int64_t kept_accum, tplan_err *err);
int tplan_plan_ramp(const tplan_config *c, tplan_plan *p, tplan_err *err);
int tplan_plan_lr(const tplan_config *c, tplan_plan *p, tplan_err *err);
void tplan_plan_critical(const tplan_config *c, tplan_plan *p);
void tplan_plan_advice(const tplan_config *c, tplan_plan *p);
/* Why p does not fit and what would make it fit, as warnings. */
void tplan_plan_fit_advice(const tplan_config *c, tplan_plan *p, bool search);

/* Append a warning (dropped silently past TPLAN_MAX_WARNINGS). */
void tplan_plan_warn(tplan_plan *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
