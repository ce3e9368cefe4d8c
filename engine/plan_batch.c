/* Meeting a target global batch: the largest micro-batch that fits and
 * divides it, and the accumulation that follows (the GPU workshop guide:
 * b_max 4, 8 GPUs, target 256 -> accumulate 8; docs/MODEL.md section 6.1). */
#include "batch.h"
#include "engine_int.h"
#include "plan.h"

/* Evaluate w's memory at micro-batch b and accumulation k; true if it
 * fits. */
/* Exact splits tried, largest micro-batch first: a few fit or none will
 * (memory grows with the micro-batch), so the rest are not worth trying. */
#define BATCH_CANDIDATES 64

static bool try_split(tplan_config *w, tplan_act_cache *cache, int64_t b,
                      int64_t k, tplan_memory *m)
{
    w->micro_batch = b;
    w->accum = k;
    tplan_memory_eval_cached(w, cache, m);
    return m->fits;
}

/* A target global batch g with the accumulation given: micro-batch x dp
 * x accum must equal g (the micro-batch, when not given, is what makes it
 * so); an inconsistent triple names its three numbers. */
static int given_split(tplan_config *w, tplan_act_cache *cache, tplan_plan *p,
                       int64_t g, int64_t dp, int64_t accum, tplan_err *err)
{
    int64_t b = w->micro_batch;

    if (b == 0) {
        if (g % (dp * accum))
            return tplan_err_set(err, TPLAN_EINVAL, "global_batch",
                                 "global_batch %lld is not a multiple of dp x "
                                 "accum = %lld x %lld: give a micro_batch, or "
                                 "drop accum",
                                 (long long)g, (long long)dp,
                                 (long long)accum);
        b = g / (dp * accum);
    } else if (b * dp * accum != g) {
        return tplan_err_set(err, TPLAN_EINVAL, "global_batch",
                             "micro_batch x dp x accum = %lld x %lld x %lld = "
                             "%lld, not the global batch %lld",
                             (long long)b, (long long)dp, (long long)accum,
                             (long long)(b * dp * accum), (long long)g);
    }
    try_split(w, cache, b, accum, &p->mem);
    p->batch_exact = true;
    return TPLAN_OK;
}

/* The accumulation that comes closest to g at micro-batch b. Megatron's
 * interleaved schedule takes whole rounds of micro-batches
 * (tplan_config_whole_rounds; the layout rules refuse a given accum that
 * breaks it): with vpp > 1 the search passes over exact splits that break
 * it, and a global batch it cannot meet exactly is rounded to the nearest
 * whole number of rounds, pp micro-batches each. */
static int64_t closest_accum(const tplan_config *w, int64_t g, int64_t dp,
                             int64_t b)
{
    /* DualPipe: an even count, at least 2 pp (tplan_config_whole_rounds) */
    if (w->pp_schedule == TPLAN_PP_DUALPIPE) {
        int64_t k = tplan_batch_accum(g, dp * 2, b) * 2;

        return k < 2 * w->pp ? 2 * w->pp : k;
    }
    return w->vpp <= 1 ? tplan_batch_accum(g, dp, b)
                       : tplan_batch_accum(g, dp * w->pp, b) * w->pp;
}

/* The accumulation a pipeline runs at least: 1F1B's pp (fewer never
 * fill it), DualPipe's 2 pp; 1 without pipelining. */
static int64_t least_accum(const tplan_config *w)
{
    if (w->pp <= 1)
        return 1;
    return w->pp_schedule == TPLAN_PP_DUALPIPE ? 2 * w->pp : w->pp;
}

/* The memory kept from the plan before (kept_accum > 0) still holds at
 * micro-batch b, given (not 0: the largest that fits), and accumulation
 * k. */
static bool still_holds(const tplan_config *w, const tplan_act_cache *cache,
                        const tplan_plan *p, int64_t b, int64_t kept_accum,
                        int64_t k)
{
    /* the reserve, a batch-class field, moves the fit: the memo knows
     * the usable bytes the kept memory was evaluated in (stage_mem.h;
     * without one, the memory is evaluated again); a memory whose fill
     * stopped after its verdict (tplan_memory.partial) is no whole one
     * to keep */
    return kept_accum > 0 && b > 0 && p->mem.micro_batch == b &&
           tplan_memory_same_accum(w, kept_accum, k) && cache &&
           cache->stages.valid && !p->mem.partial &&
           cache->stages.usable ==
               (double)w->gpu.memory_bytes * (1.0 - w->reserve_fraction);
}

int tplan_plan_batch(tplan_config *w, tplan_act_cache *cache, tplan_plan *p,
                     int64_t kept_accum, tplan_err *err)
{
    int64_t dp = tplan_config_dp(w), g = w->global_batch, b, bmax, n, k;
    int64_t cand[BATCH_CANDIDATES], accum = w->accum; /* 0: not given */
    int nc;

    if (w->accum == 0)
        w->accum = least_accum(w);
    if (g == 0 && w->global_batch_tokens > 0) {
        double samples = w->global_batch_tokens / (double)w->seq;

        g = samples < 1.0 ? 1 : (int64_t)(samples + 0.5);
    }
    p->target_global_batch = g;
    if (g == 0) {
        if (!still_holds(w, cache, p, w->micro_batch, kept_accum, w->accum))
            tplan_memory_eval_cached(w, cache, &p->mem);
        p->batch_exact = true;
        return TPLAN_OK;
    }
    if (accum > 0) /* a triple, as DeepSpeed takes one: it must agree */
        return given_split(w, cache, p, g, dp, accum, err);
    if (w->micro_batch > 0) {
        b = w->micro_batch;
        if (g < b * dp)
            return tplan_err_set(err, TPLAN_EINVAL, "global_batch",
                                 "global_batch is below micro_batch x dp "
                                 "(global_batch=%lld, micro_batch=%lld, "
                                 "dp=%lld)",
                                 (long long)g, (long long)b, (long long)dp);
        k = closest_accum(w, g, dp, b);
        if (still_holds(w, cache, p, b, kept_accum, k))
            w->accum = k; /* micro_batch is b already */
        else
            try_split(w, cache, b, k, &p->mem);
        p->batch_exact = b * dp * w->accum == g;
        return TPLAN_OK;
    }
    if (g < dp)
        return tplan_err_set(err, TPLAN_EINVAL, "global_batch",
                             "global_batch is below one sample per "
                             "data-parallel GPU (global_batch=%lld, dp=%lld)",
                             (long long)g, (long long)dp);
    /* The largest micro-batch alone (in-flight micro-batches as the final
     * accumulation will have them: at least pp) bounds the search. */
    w->accum = least_accum(w);
    tplan_memory_eval_cached(w, cache, &p->mem);
    bmax = p->mem.max_micro_batch;
    n = g / dp;
    if (bmax > n)
        bmax = n;
    nc = tplan_batch_exact(g, dp, bmax, cand, BATCH_CANDIDATES);
    for (int i = 0; i < nc && i < BATCH_CANDIDATES; i++) {
        if (tplan_config_whole_rounds(w, n / cand[i]) &&
            try_split(w, cache, cand[i], n / cand[i], &p->mem)) {
            p->batch_exact = true;
            return TPLAN_OK;
        }
    }
    /* No exact split fits: the closest global batch, largest micro-batch
     * first, halving until one fits. */
    for (b = bmax; b >= 1; b /= 2) {
        int64_t bk = b;

        k = closest_accum(w, g, dp, b);
        /* whole rounds are coarse (b dp pp samples): with their count
         * set, the micro-batch up to b that comes closest */
        if (w->vpp > 1) {
            bk = tplan_batch_accum(g, dp * k, 1);
            bk = bk > b ? b : bk;
        }
        if (try_split(w, cache, bk, k, &p->mem)) {
            p->batch_exact = bk * dp * k == g;
            return TPLAN_OK;
        }
    }
    /* Not even one sample fits: report the plan at micro-batch 1. */
    try_split(w, cache, 1, closest_accum(w, g, dp, 1), &p->mem);
    p->batch_exact = dp * w->accum == g;
    return TPLAN_OK;
}
