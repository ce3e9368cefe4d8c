/* Config in, plan out: validation, memory, batch figures and warnings. */
#include "plan.h"
#include "engine_int.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

void tplan_plan_warn(tplan_plan *p, const char *fmt, ...)
{
    va_list ap;

    if (p->n_warnings >= TPLAN_MAX_WARNINGS)
        return;
    va_start(ap, fmt);
    vsnprintf(p->warnings[p->n_warnings], TPLAN_WARNING_LEN, fmt, ap);
    va_end(ap);
    p->n_warnings++;
}

int tplan_plan_eval(const tplan_config *c, tplan_plan *out, tplan_err *err)
{
    return tplan_plan_eval_ex(c, out, TPLAN_EVAL_FULL, err);
}

/* eval() clears what follows the config */
_Static_assert(offsetof(tplan_plan, config) == 0,
               "tplan_plan starts with its config");
/* reeval() clears lr, critical and n_warnings one by one: nothing else
 * lies between the run and the warning texts */
_Static_assert(offsetof(tplan_plan, lr) < offsetof(tplan_plan, run) +
                                              sizeof(tplan_run) + 8 &&
                   offsetof(tplan_plan, critical) <
                       offsetof(tplan_plan, lr) + sizeof(tplan_lr) + 8 &&
                   offsetof(tplan_plan, n_warnings) <
                       offsetof(tplan_plan, critical) +
                           sizeof(tplan_critical) + 8 &&
                   offsetof(tplan_plan, warnings) <
                       offsetof(tplan_plan, n_warnings) + sizeof(int) + 8,
               "tplan_plan: lr, critical, n_warnings, then the warnings");

/* eval()'s mark in a plan's memory: not evaluated yet (a GPU's memory
 * is positive, a memory out of range all zero) */
#define MEM_UNWRITTEN (-1)

_Static_assert(offsetof(tplan_plan, mem) < offsetof(tplan_plan, micro_batch) &&
                   offsetof(tplan_plan, micro_batch) <
                       offsetof(tplan_plan, perf) &&
                   offsetof(tplan_plan, perf) < offsetof(tplan_plan, run),
               "tplan_plan: the memory, the batch, then the time");

/* a kept time layout's shape is copied whole over the plan's (eval) */
_Static_assert(offsetof(tplan_perf, knobs) ==
                   offsetof(tplan_perf, shape) + sizeof(tplan_comm_shape),
               "tplan_perf: the shape, then the knobs");

#define REUSE                                                                  \
    (TPLAN_EVAL_REUSE_MEMORY | TPLAN_EVAL_REUSE_TIME | TPLAN_EVAL_REUSE_COMPUTE)

static int eval(const tplan_config *asked, tplan_act_cache *cache,
                tplan_plan *out, unsigned flags, tplan_err *err);

/* Only the target batch changed since the plan in out (a sweep's staged
 * evaluation, TPLAN_EVAL_REUSE_BATCH): eval() keeps what it can. */
static bool batch_staged(unsigned flags)
{
    return (flags & TPLAN_EVAL_REUSE_BATCH) && (flags & TPLAN_EVAL_FIGURES);
}
static int reeval(const tplan_config *asked, tplan_plan *out, unsigned flags,
                  tplan_err *err);
static int tail(const tplan_config *asked, tplan_plan *out, unsigned flags,
                bool keep_time, bool keep_budget,
                const tplan_perf_layout *kept, tplan_err *err);

static int time_checks(const tplan_plan *out, tplan_err *err);

/* tail()'s memory evaluated again where it stopped after its fit verdict
 * (tplan_memory.partial): out of tail's way (noinline, cold: no sweep
 * gets here, issue 38) */
static __attribute__((noinline, cold)) void memory_whole(const tplan_config *c,
                                                        tplan_plan *out)
{
    tplan_memory_eval(c, &out->mem);
}

/* A comm-staged evaluation (TPLAN_EVAL_COMM_ONLY with REUSE_COMPUTE)
 * that reeval() and tail() would run to the same end: a plan timed
 * before (not time_skipped), no ramp, and a time this one keeps
 * (FIT_FIRST skips none that fits). */
static bool comm_staged_ok(const tplan_plan *out, unsigned flags)
{
    return out->config.n_ramp == 0 && !out->time_skipped &&
           (out->mem.fits || !(flags & TPLAN_EVAL_FIT_FIRST));
}

/* What reeval() and tail() do after only communication-class fields
 * changed, and nothing of the run class (issue 38: a NIC axis, the most
 * evaluations of a sweep over one): the communication and the totals
 * again (tplan_perf_eval_comm), the run's time part (the budget stands,
 * as in reeval), and the time's range checks. The rest stands as it
 * was: the LR and the critical batch read only run-class fields (fields.c,
 * TPLAN_REACH_RUN), the budget and the batch, so tail() would write them
 * again with the same values (and the LR's checks passed for the plan
 * before, on the same inputs); a figures-only plan without a ramp has
 * no warnings (only the ramp warns before the advice). */
static int comm_staged(tplan_plan *out, unsigned flags, tplan_err *err)
{
    tplan_config *c = &out->config;
    int64_t micro_batch = c->micro_batch, accum = c->accum;
    int rc = TPLAN_OK;

    /* the solved batch while the time is worked out, as in reeval */
    c->micro_batch = out->solved_micro_batch;
    c->accum = out->accum;
    if ((flags & TPLAN_EVAL_NIC_ONLY)
            ? tplan_perf_eval_nic(c, &out->mem, &out->perf)
            : tplan_perf_eval_comm(c, &out->mem, &out->perf)) {
        /* the run's price and budget stand (no run-class change), and
         * the plan was timed before (comm_staged_ok) and now */
        tplan_run_retime(c, &out->perf, &out->run);
        rc = time_checks(out, err);
    }
    c->micro_batch = micro_batch;
    c->accum = accum;
    return rc;
}

/* A comm-staged evaluation (as comm_staged_ok's) after a plan that did
 * not fit and stopped after its memory (time_skipped, FIT_FIRST), with
 * no ramp and no LR to check: reeval() and tail() would keep the memory,
 * which still does not fit, skip the time again and run no recipe check,
 * clearing what is clear already (no LR, critical batch or warning),
 * so the plan stands as it is (issue 38: a NIC axis over plans that do
 * not fit, a third of the bench's). */
static bool comm_unfit_stands(const tplan_plan *out, unsigned flags)
{
    const tplan_config *c = &out->config;

    return out->time_skipped && (flags & TPLAN_EVAL_FIT_FIRST) &&
           !out->mem.fits && c->n_ramp == 0 && !(c->lr > 0) &&
           !c->lr_rule_set && !out->lr.set && !out->critical.set &&
           out->n_warnings == 0;
}

static int eval_cached(const tplan_config *asked, tplan_act_cache *cache,
                       tplan_plan *out, unsigned flags, tplan_err *err);

int tplan_plan_eval_nic(tplan_plan *p, tplan_act_cache *cache, unsigned flags,
                        bool *stands, tplan_err *err)
{
    /* tplan_plan_eval_cached's first test holds (the premise) */
    *stands = false;
    if (comm_staged_ok(p, flags)) {
        /* comm_staged's tplan_perf_eval_nic would return at once for a
         * plan untimed or with no group across nodes, and comm_staged
         * TPLAN_OK */
        if (!p->perf.timed || !p->perf.nic.inter) {
            *stands = true;
            return TPLAN_OK;
        }
        return comm_staged(p, flags, err);
    }
    if (comm_unfit_stands(p, flags)) {
        *stands = true;
        return TPLAN_OK;
    }
    return eval_cached(&p->config, cache, p, flags, err);
}

int tplan_plan_eval_ex(const tplan_config *asked, tplan_plan *out,
                       unsigned flags, tplan_err *err)
{
    return tplan_plan_eval_cached(asked, NULL, out, flags, err);
}

int tplan_plan_eval_cached(const tplan_config *asked, tplan_act_cache *cache,
                           tplan_plan *out, unsigned flags, tplan_err *err)
{
    /* The commonest staged evaluation of all (a NIC axis): only
     * communication-class fields changed, of the plan's own config. Tested
     * first, apart from eval_cached's locals (issue 38: its entry and
     * exit alone cost a fifth as much as this path) */
    if ((flags & (TPLAN_EVAL_REUSE_COMPUTE | TPLAN_EVAL_COMM_ONLY |
                  TPLAN_EVAL_FIGURES | TPLAN_EVAL_REUSE_TIME)) ==
            (TPLAN_EVAL_REUSE_COMPUTE | TPLAN_EVAL_COMM_ONLY |
             TPLAN_EVAL_FIGURES) &&
        &out->config == asked) {
        if (comm_staged_ok(out, flags))
            return comm_staged(out, flags, err);
        if (comm_unfit_stands(out, flags))
            return TPLAN_OK;
    }
    return eval_cached(asked, cache, out, flags, err);
}

/* Every other evaluation (noinline: its locals stay out of the path
 * above) */
__attribute__((noinline)) static int
eval_cached(const tplan_config *asked, tplan_act_cache *cache,
            tplan_plan *out, unsigned flags, tplan_err *err)
{
    int64_t micro_batch = asked->micro_batch, accum = asked->accum;
    bool staged = (flags & REUSE) && (flags & TPLAN_EVAL_FIGURES);
    bool kept = batch_staged(flags);
    bool trusted = flags & TPLAN_EVAL_TRUSTED_PARTS;
    tplan_config copy;
    int rc = TPLAN_OK;

    /* Most of a sweep's evaluations: a staged one of the plan's own
     * config, figures only, no ramp. What the general path below does
     * for it, without its tests (not validated, no copy: reeval). */
    if (staged && &out->config == asked && asked->n_ramp == 0) {
        rc = reeval(asked, out, flags, err);
        out->config.micro_batch = micro_batch;
        out->config.accum = accum;
        return rc;
    }
    /* a staged change leaves the layout as valid as it was (those fields
     * are only range-checked, when the sweep takes them) */
    if (!staged && !kept && !(trusted && (flags & TPLAN_EVAL_LAYOUT_CHECKED)))
        rc = trusted ? tplan_config_validate_layout(asked, err)
                     : tplan_config_validate(asked, err);
    if (rc)
        return rc;
    if (&out->config == asked) {
        /* re-evaluating a plan in place: eval() resolves the batch in
         * out->config, and the ramp and the fit advice read the config
         * asked for, so they get a copy. Figures alone without a ramp
         * read only out->config (tplan_plan_ramp returns before it reads
         * the copy, the advice is not run): no copy, and a sweep's worker
         * evaluates its plan's config in place. */
        if (!(flags & TPLAN_EVAL_FIGURES) || asked->n_ramp > 0) {
            copy = *asked;
            asked = &copy;
        }
    } else if (!staged) { /* reeval copies it itself */
        out->config = *asked;
    }
    rc = staged ? reeval(asked, out, flags, err)
                : eval(asked, cache, out, flags, err);
    /* the plan's config is the one asked for (micro_batch 0 = max) */
    out->config.micro_batch = micro_batch;
    out->config.accum = accum;
    return rc;
}

/* What tplan_perf_eval reads of the memory and the batch (perf.c: its
 * mem-> reads, and the accumulation; keep the two in step): a
 * batch-staged evaluation with no time-class change beside it
 * (TPLAN_EVAL_BATCH_ONLY) whose solve leaves them as they were keeps the
 * time, as a change of the reserve alone does (issue 38). Its other
 * inputs are config fields no batch-class field is among. */
typedef struct perf_inputs {
    int64_t accum, micro_batch, layers_on_stage, params_on_device;
    int64_t trainable_on_device, experts_on_device, weights_bytes;
    int64_t grads_bytes, optimizer_bytes, offload_state_bytes;
    int64_t offload_weight_bytes, paged_spill_bytes;
    double act_offload_mb_bytes, quant_elems;
} perf_inputs;

static void perf_inputs_of(const tplan_plan *p, int64_t accum, perf_inputs *in)
{
    const tplan_memory *m = &p->mem;

    *in = (perf_inputs){accum,
                        m->micro_batch,
                        m->layers_on_stage,
                        m->params_on_device,
                        m->trainable_on_device,
                        m->experts_on_device,
                        m->weights_bytes,
                        m->grads_bytes,
                        m->optimizer_bytes,
                        m->offload_state_bytes,
                        m->offload_weight_bytes,
                        m->paged_spill_bytes,
                        m->act_offload_mb_bytes,
                        m->quant_elems};
}

static bool perf_inputs_same(const perf_inputs *a, const perf_inputs *b)
{
    /* field by field: no padding compared, and the doubles by value */
    return a->accum == b->accum && a->micro_batch == b->micro_batch &&
           a->layers_on_stage == b->layers_on_stage &&
           a->params_on_device == b->params_on_device &&
           a->trainable_on_device == b->trainable_on_device &&
           a->experts_on_device == b->experts_on_device &&
           a->weights_bytes == b->weights_bytes &&
           a->grads_bytes == b->grads_bytes &&
           a->optimizer_bytes == b->optimizer_bytes &&
           a->offload_state_bytes == b->offload_state_bytes &&
           a->offload_weight_bytes == b->offload_weight_bytes &&
           a->paged_spill_bytes == b->paged_spill_bytes &&
           a->act_offload_mb_bytes == b->act_offload_mb_bytes &&
           a->quant_elems == b->quant_elems;
}

static int eval_body(const tplan_config *asked, tplan_act_cache *cache,
                     tplan_plan *out, unsigned flags, tplan_err *err);

/* What a full evaluation's body leaves to eval(): the memory of a plan
 * refused before its first memory evaluation, the time's figures where
 * tplan_perf_eval did not run (a refusal, a plan out of range or a time
 * skipped; it leaves its memo valid where it ran, and cleared the
 * figures where it leaves it invalid: a generic model without FLOPs;
 * eval_body's memset clears the memo), both cleared as eval_body's
 * memset would have; and a time worked out from the layout alone for
 * the states memo's key (tplan_act_cache.layout_key), kept for the key's
 * next full evaluation (tplan_perf_layout). */
static __attribute__((noinline)) void full_done(tplan_act_cache *cache,
                                                 tplan_plan *out);

static int eval(const tplan_config *asked, tplan_act_cache *cache,
                tplan_plan *out, unsigned flags, tplan_err *err)
{
    int rc = eval_body(asked, cache, out, flags, err);

    if (!batch_staged(flags))
        full_done(cache, out);
    return rc;
}

/* eval()'s part after a full evaluation (noinline: out of the
 * batch-staged one's way, issue 38) */
static __attribute__((noinline)) void full_done(tplan_act_cache *cache,
                                                 tplan_plan *out)
{
    if (out->mem.capacity_bytes == MEM_UNWRITTEN)
        memset(&out->mem, 0, sizeof out->mem);
    if (!out->perf.memo.valid) {
        memset(&out->perf, 0,
               cache && cache->layout_used ? offsetof(tplan_perf, knobs)
                                           : offsetof(tplan_perf, shape));
    } else if (cache && cache->layout_key) {
        cache->layout.shape = out->perf.shape;
        cache->layout.log2_tp = out->perf.memo.log2_tp;
        cache->layout_gen = cache->states.gen;
        cache->layout_set = true;
    }
}

/* The evaluation, working in out->config: the batch solve resolves its
 * micro_batch and accum there (one config copy per evaluation, not two;
 * sweeps make millions). Those two are the only fields of out->config an
 * evaluation may write, and tplan_plan_eval_cached puts them back: a
 * sweep's worker evaluates its plan's config in place and changes only
 * the axes' fields between plans (sweep.c work()). */
static int eval_body(const tplan_config *asked, tplan_act_cache *cache,
                     tplan_plan *out, unsigned flags, tplan_err *err)
{
    tplan_param_count pc;
    tplan_config *work = &out->config;
    const tplan_config *c = work;
    /* only the target changed (REUSE_BATCH): the parameters, dp and
     * memory before it stay, the memory for the batch solve to judge */
    int64_t kept_accum = 0;
    perf_inputs before, after;
    bool keep_time = false, timed = false, may_keep = false;
    bool clear_run = false; /* the run is the plan's before, to clear */
    bool defer = false; /* the memory may stop after its verdict */
    const tplan_perf_layout *kept = NULL; /* the key's time layout */
    int rc;

    if (batch_staged(flags)) {
        /* the time before is the previous plan's, unless it was skipped.
         * A micro-batch asked for that is not the one timed moves the
         * time (perf_inputs' micro_batch: the solve evaluates the memory
         * at the one asked for), so nothing is kept to compare then */
        timed = !out->time_skipped;
        kept_accum = out->accum;
        /* a plan that does not fit is not timed (tail): its memory may
         * stop after its fit verdict (stage_mem.h, defer; issue 38) */
        defer = (flags & TPLAN_EVAL_FIT_FIRST) != 0;
        may_keep = (flags & TPLAN_EVAL_BATCH_ONLY) &&
                   (c->micro_batch == 0 ||
                    c->micro_batch == out->mem.micro_batch);
        if (may_keep)
            perf_inputs_of(out, out->accum, &before);
        /* the time stays until the solve says whether it holds */
        memset((char *)out + offsetof(tplan_plan, micro_batch), 0,
               offsetof(tplan_plan, perf) - offsetof(tplan_plan, micro_batch));
        /* what follows the time as eval()'s memset leaves it, as
         * reeval() clears it (issue 38: the run, the LR and the critical
         * batch are most of the plan after the memory): tail writes the
         * whole run (tplan_run_eval) or, skipping the time, none of it,
         * which clears it below, as does a refusal; the LR and the
         * critical batch are all zero unless their .set says otherwise */
        if (out->lr.set)
            memset(&out->lr, 0, sizeof out->lr);
        if (out->critical.set)
            memset(&out->critical, 0, sizeof out->critical);
        out->n_warnings = 0;
        clear_run = true;
    } else {
        /* the states memo's key (a sweep's recompute axis): its counts,
         * and the answer for the memory's stages (issue 38: one compare
         * of the config, not one of the model and one of the config),
         * and the key's time layout if one is kept (tplan_perf_layout:
         * the solve leaves a hit as it is) */
        if (!cache || !tplan_states_probe(c, cache, &pc))
            tplan_states_params(c, cache, &pc);
        else if (cache->layout_set && cache->layout_gen == cache->states.gen)
            kept = &cache->layout;
        if (cache)
            cache->layout_used = kept != NULL;
        /* Everything after the config but the warning texts (4 KiB
         * nobody reads before a warning is added), the memory and the
         * time's figures: the batch solve writes the whole memory at its
         * first evaluation, before which it reads none of it (a refusal
         * before that leaves the sentinel), and tplan_perf_eval clears
         * the figures itself; with a kept layout it copies the whole
         * shape too (eval() clears what it did not reach as this would
         * have). Issue 38: these were most of the bytes cleared at each
         * full evaluation. */
        memset((char *)out + sizeof out->config, 0,
               offsetof(tplan_plan, mem) - sizeof out->config);
        memset((char *)out + offsetof(tplan_plan, mem) + sizeof out->mem, 0,
               offsetof(tplan_plan, perf) - offsetof(tplan_plan, mem) -
                   sizeof out->mem);
        if (kept)
            memset((char *)out + offsetof(tplan_plan, perf.knobs), 0,
                   offsetof(tplan_plan, warnings) -
                       offsetof(tplan_plan, perf.knobs));
        else
            memset((char *)out + offsetof(tplan_plan, perf.shape), 0,
                   offsetof(tplan_plan, warnings) -
                       offsetof(tplan_plan, perf.shape));
        out->mem.capacity_bytes = MEM_UNWRITTEN;
        out->params = pc.total;
        out->active_params = pc.active;
        out->mtp_params = pc.mtp;
        out->trainable_params =
            c->lora_rank > 0
                ? tplan_lora_params(&c->model, c->lora_rank, c->lora_targets,
                                    c->dora)
                : pc.total;
        out->dp = tplan_config_dp(c);
    }
    /* the memory stages hold while only batch-class fields change
     * (stage_mem.h): kept for a batch-staged evaluation of the plan that
     * filled them, dropped otherwise */
    if (cache) {
        if (!batch_staged(flags) || cache->stages.plan != out)
            cache->stages.valid = false;
        cache->stages.plan = out;
        cache->stages.armed = true;
        cache->stages.defer = defer;
    }
    rc = tplan_plan_batch(work, cache, out, kept_accum, err);
    if (cache) {
        /* the config is the states memo's key (but for the fields it
         * leaves out): a full evaluation's probe (none in a batch-staged
         * one), answered hit or refilled by the memory (the memory of a
         * DualPipe layout does not use the memo, and leaves a miss); then
         * the time's layout part of the key's last full evaluation
         * stands: it reads none of the fields the key leaves out
         * (tplan_perf_layout). Else eval() keeps this one's. */
        cache->stages.armed = false;
        if (cache->states.probe) { /* a full evaluation's */
            cache->layout_key =
                !kept && cache->states.probe == TPLAN_STATES_HIT;
            /* the key is this config's (but for what it leaves out):
             * the ticket of the layout rules' pass for it, if any */
            cache->states.key_ticket =
                cache->states.probe == TPLAN_STATES_HIT
                    ? cache->states.probe_ticket
                    : 0;
            cache->states.probe = TPLAN_STATES_UNKNOWN;
            cache->states.model_same = false;
        }
    }
    /* a refusal, an out-of-range plan or a time skipped: no run (as
     * eval()'s memset leaves it); tail writes all of it otherwise */
    if (clear_run &&
        (rc || out->mem.out_of_range ||
         ((flags & TPLAN_EVAL_FIT_FIRST) && !out->mem.fits)))
        memset(&out->run, 0, sizeof out->run);
    if (rc) {
        out->batch_refused = true;
        return rc;
    }
    if (out->mem.out_of_range)
        return tplan_err_set(err, TPLAN_EINVAL, "memory",
                             "per-GPU memory out of range (over 1e18 bytes): "
                             "check seq, micro_batch and the model's sizes "
                             "(seq=%lld, micro_batch=%lld)",
                             (long long)c->seq, (long long)c->micro_batch);
    if ((double)out->mem.micro_batch * (double)out->dp * (double)c->accum *
            (double)c->seq >
        1e18) {
        if (clear_run)
            memset(&out->run, 0, sizeof out->run);
        return tplan_err_set(err, TPLAN_EINVAL, "accum",
                             "tokens per step out of range (micro_batch=%lld, "
                             "dp=%lld, accum=%lld, seq=%lld)",
                             (long long)out->mem.micro_batch,
                             (long long)out->dp, (long long)c->accum,
                             (long long)c->seq);
    }
    out->micro_batch = out->mem.micro_batch;
    out->max_micro_batch = out->mem.max_micro_batch;
    out->accum = c->accum;
    out->solved_micro_batch = c->micro_batch;
    out->global_batch = out->micro_batch * out->dp * out->accum;
    out->tokens_per_step = out->global_batch * c->seq;
    if (may_keep && timed) {
        perf_inputs_of(out, c->accum, &after);
        keep_time = perf_inputs_same(&before, &after);
    }
    return tail(asked, out, flags, keep_time, false, kept, err);
}

/* A re-evaluation after a time- or run-class change (plan.h): the
 * stages kept stay where they are, what follows them is cleared as eval()
 * clears it and evaluated by the same code. */
static int reeval(const tplan_config *asked, tplan_plan *out, unsigned flags,
                  tplan_err *err)
{
    /* a time skipped before (TPLAN_EVAL_FIT_FIRST) is none to keep (in a
     * sweep the plan's communication and run neighbours do not fit
     * either and are skipped too; any other caller is kept right) */
    bool skipped = out->time_skipped;
    bool keep_time = (flags & TPLAN_EVAL_REUSE_TIME) && !skipped;
    bool keep_compute = (flags & TPLAN_EVAL_REUSE_COMPUTE) && !skipped;
    tplan_config *work = &out->config;

    if (work != asked)
        *work = *asked;
    work->micro_batch = out->solved_micro_batch;
    work->accum = out->accum;
    /* only communication-class fields moved and the time cannot have:
     * every figure stands (issue 38: a NIC axis over single-node layouts) */
    if (keep_compute && !keep_time &&
        !tplan_perf_eval_comm(&out->config, &out->mem, &out->perf) &&
        (flags & TPLAN_EVAL_COMM_ONLY))
        return TPLAN_OK;
    /* What follows the run's figures (lr, critical, n_warnings) as
     * eval()'s memset leaves them, without it (issue 38: 26 instructions
     * a staged evaluation). tail rewrites the run itself (its time part,
     * or all of it with a ramp), and the time is kept or tplan_perf_eval
     * clears it. The LR and the critical batch are all zero unless their
     * .set says otherwise: eval() cleared them, this clears a set one,
     * and tplan_plan_lr / tplan_plan_critical write set before any other
     * field of theirs; tail fills them again where their inputs are set.
     * A ramp warns even for figures only: the count starts again. */
    if (out->lr.set)
        memset(&out->lr, 0, sizeof out->lr);
    if (out->critical.set)
        memset(&out->critical, 0, sizeof out->critical);
    out->n_warnings = 0;
    /* The run's budget stands: it reads no time-, comm- or run-class
     * field, and the parameters and tokens per step are kept (run.h).
     * Not with a ramp, which rewrites the run's steps (tplan_plan_ramp),
     * nor after a skipped time, which left no run. */
    return tail(asked, out, flags, keep_time || keep_compute,
                asked->n_ramp == 0 && !skipped, NULL, err);
}

/* The recipe's stages that can refuse a plan, only where an input of
 * theirs is set (issue 38: a sweep runs this for every plan, and most set
 * none; each returns at once without them): a ramp's phases, an LR or a
 * rule that derives one. The critical batch (a noise scale or a target
 * loss) refuses none and follows the time. */
static int recipe_checks(const tplan_config *asked, tplan_plan *out,
                         tplan_err *err)
{
    const tplan_config *c = &out->config;
    int rc;

    if (asked->n_ramp > 0 && (rc = tplan_plan_ramp(asked, out, err)))
        return rc;
    if ((c->lr > 0 || c->lr_rule_set) && (rc = tplan_plan_lr(c, out, err)))
        return rc;
    return TPLAN_OK;
}

/* Time, run, batch ramp, learning rate, the range checks and, unless only
 * figures were asked for, the warnings. */
static int tail(const tplan_config *asked, tplan_plan *out, unsigned flags,
                bool keep_time, bool keep_budget,
                const tplan_perf_layout *kept, tplan_err *err)
{
    const tplan_config *c = &out->config;
    bool skip = (flags & TPLAN_EVAL_FIT_FIRST) && (flags & TPLAN_EVAL_FIGURES) &&
                !out->mem.fits;
    int rc;

    /* a plan that does not fit, where the caller needs no more of it:
     * the recipe's checks, which can refuse it, and no time */
    out->time_skipped = skip;
    if (skip)
        return recipe_checks(asked, out, err);
    /* a memory that stopped after its fit verdict (tplan_memory.partial:
     * a staged evaluation after a plan FIT_FIRST did not time, asked
     * without it), in full first */
    if (out->mem.partial)
        memory_whole(c, out);
    /* a batch- or time-staged evaluation: out->perf holds the time of
     * the same layout (plan.h), whose model and layout parts stay */
    if (!keep_time && (flags & TPLAN_EVAL_FIGURES) &&
        (flags & (TPLAN_EVAL_REUSE_BATCH | TPLAN_EVAL_REUSE_MEMORY)))
        tplan_perf_eval_staged(c, &out->mem, &out->perf);
    else if (!keep_time)
        tplan_perf_eval_kept(c, &out->mem, &out->perf, kept);
    /* keep_budget: out->run holds the budget of the same parameters and
     * tokens per step (a staged re-evaluation, reeval) */
    if (keep_budget)
        tplan_run_time(c, &out->perf, &out->run);
    else
        tplan_run_eval(c, &out->perf, out->params, out->tokens_per_step,
                       &out->run);
    if ((rc = recipe_checks(asked, out, err)))
        return rc;
    if (c->b_noise_tokens > 0 || c->target_loss > 0)
        tplan_plan_critical(c, out);
    if ((rc = time_checks(out, err)))
        return rc;
    if (flags & TPLAN_EVAL_FIGURES)
        return TPLAN_OK;
    tplan_plan_fit_advice(asked, out, !(flags & TPLAN_EVAL_NO_REMEDY));
    if (!out->perf.timed)
        tplan_plan_warn(out, "no FLOPs per sample given "
                             "(flops_per_sample=0): time and cost are not "
                             "modelled");
    if (out->perf.dtype_fallback)
        tplan_plan_warn(
            out, "%s has no %s units: timed at the %s rate", c->gpu.name,
            tplan_dtype_name(tplan_precision_get(c->precision)->compute),
            tplan_dtype_name(out->perf.dtype));
    if (c->pp > 1 && c->accum < c->pp)
        tplan_plan_warn(
            out,
            "accum=%lld < pp=%lld: the pipeline never fills (bubble "
            "%.0f%% of compute) and the first stage holds fewer "
            "micro-batches than a real 1F1B run",
            (long long)c->accum, (long long)c->pp,
            out->perf.bubble_fraction * 100.0);
    if (c->pp > 1 && c->zero >= 2)
        tplan_plan_warn(out,
                        "zero=%d with pp=%lld: DeepSpeed and Megatron "
                        "allow only ZeRO 0/1 with pipelining (FSDP2 "
                        "with torchtitan allows it)",
                        c->zero, (long long)c->pp);
    if (c->profile == TPLAN_PROFILE_MEGATRON &&
        (c->precision == TPLAN_PREC_AMP_BF16 ||
         c->precision == TPLAN_PREC_AMP_FP16))
        tplan_plan_warn(out,
                        "profile megatron with %s: Megatron does not use "
                        "autocast; mixed-bf16 is its recipe",
                        tplan_precision_get(c->precision)->name);
    if (c->model.arch == TPLAN_ARCH_GENERIC &&
        c->model.generic_act_bytes_fp32 <= 0)
        tplan_plan_warn(out, "no activation bytes per sample given "
                             "(act_bytes_per_sample=0): memory does not grow "
                             "with the micro-batch");
    if (c->model.arch == TPLAN_ARCH_GENERIC &&
        c->recompute != TPLAN_RECOMPUTE_NONE)
        tplan_plan_warn(out,
                        "recompute is not modelled for generic models "
                        "(recompute=%s ignored)",
                        tplan_recompute_name(c->recompute));
    tplan_plan_advice(c, out);
    return TPLAN_OK;
}

/* Every figure must be a number: a step beyond a year per step means
 * the efficiency or bandwidth knobs are far outside reality. */
static int time_checks(const tplan_plan *out, tplan_err *err)
{
    if (out->perf.timed && !(out->perf.step_time_s < 3.2e7))
        return tplan_err_set(err, TPLAN_EINVAL, "efficiency",
                             "step time out of range (%g s): check the "
                             "efficiency and bandwidth settings",
                             out->perf.step_time_s);
    if (out->run.has_budget && out->perf.timed &&
        !(out->run.time_h < 1e12 && out->run.cost_usd < 1e18))
        return tplan_err_set(err, TPLAN_EINVAL, "tokens",
                             "training time out of range (%g h): check the "
                             "budget (tokens=%g)",
                             out->run.time_h, out->run.tokens);
    return TPLAN_OK;
}
