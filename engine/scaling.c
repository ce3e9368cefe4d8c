/* GPU-count comparisons at a fixed global batch. */
#include "scaling.h"

#include "batch.h"

#include <math.h>

int tplan_scaling_eval(const tplan_config *base, const int64_t *gpus, int n,
                       tplan_scaling_row *rows, tplan_err *err)
{
    tplan_config c = *base;
    tplan_plan *ref;
    int64_t b, global;
    int rc, k, smallest = -1;

    if ((rc = tplan_plan_eval(base, &rows[0].plan, err)))
        return rc;
    if (!rows[0].plan.perf.timed)
        return tplan_err_set(err, TPLAN_EINVAL, "gpus",
                             "comparing GPU counts needs a timed plan (give "
                             "the model's FLOPs per sample)");
    b = rows[0].plan.micro_batch;
    global = rows[0].plan.global_batch;
    c.global_batch = 0;
    c.global_batch_tokens = 0;
    c.n_ramp = 0;
    for (k = 0; k < n; k++) {
        int64_t dp, bk = b, exact[1];

        if (gpus[k] < 1 || gpus[k] % (c.tp * c.pp))
            return tplan_err_set(err, TPLAN_EINVAL, "gpus",
                                 "each GPU count must be a multiple of "
                                 "tp*pp=%lld (gpus=%lld)",
                                 (long long)(c.tp * c.pp), (long long)gpus[k]);
        c.gpus = gpus[k];
        dp = gpus[k] / (c.tp * c.pp);
        /* Keep the global batch: a smaller micro-batch that still splits
         * it exactly when this many GPUs outgrow the base micro-batch. */
        if (bk * dp > global && tplan_batch_exact(global, dp, b, exact, 1))
            bk = exact[0];
        c.micro_batch = bk;
        c.accum = tplan_batch_accum(global, dp, bk);
        if ((rc = tplan_plan_eval(&c, &rows[k].plan, err)))
            return rc;
        rows[k].exact_batch = rows[k].plan.global_batch == global;
        if (rows[k].exact_batch && (smallest < 0 || gpus[k] < gpus[smallest]))
            smallest = k;
    }
    /* Speedup and efficiency compare runs of the same global batch only,
     * against the smallest such count. */
    for (k = 0; k < n; k++) {
        const tplan_plan *p = &rows[k].plan;

        rows[k].speedup = rows[k].efficiency = (double)NAN;
        if (smallest < 0 || !rows[k].exact_batch)
            continue;
        ref = &rows[smallest].plan;
        rows[k].speedup = p->perf.tokens_per_s / ref->perf.tokens_per_s;
        rows[k].efficiency =
            rows[k].speedup * (double)ref->config.gpus / (double)p->config.gpus;
    }
    rows[0].reference = smallest;
    return TPLAN_OK;
}

int tplan_batch_compare(const tplan_config *base, const int64_t *batches, int n,
                        tplan_batch_row *rows, tplan_err *err)
{
    tplan_config c = *base;
    tplan_plan *ref = &rows[0].plan;
    double d, b0, bc = 0.0, emin;
    int fastest = -1, cheapest = -1, rc;

    if ((rc = tplan_plan_eval(base, ref, err)))
        return rc;
    if (!ref->run.has_budget)
        return tplan_err_set(err, TPLAN_EINVAL, "tokens",
                             "comparing batches needs a training budget "
                             "(give tokens, or epochs and a dataset)");
    d = ref->run.tokens;
    b0 = (double)ref->tokens_per_step;
    if (ref->critical.set)
        bc = ref->critical.batch_tokens;
    emin = bc > 0 ? d / (1.0 + b0 / bc) : d;
    c.global_batch_tokens = 0;
    c.n_ramp = 0;
    c.accum = 0; /* each batch sets its own accumulation */
    for (int k = 0; k < n; k++) {
        tplan_batch_row *r = &rows[k];
        double bt;

        c.global_batch = batches[k];
        if ((rc = tplan_plan_eval(&c, &r->plan, err)))
            return rc;
        bt = (double)r->plan.tokens_per_step;
        r->tokens_to_target = bc > 0 ? emin * (1.0 + bt / bc) : d;
        r->steps_to_target = ceil(r->tokens_to_target / bt);
        r->time_h = r->steps_to_target * r->plan.perf.step_time_s / 3600.0;
        r->cost_usd = tplan_cost_usd(r->time_h, (double)c.gpus,
                                     r->plan.run.price_usd_per_h);
        r->fastest = r->cheapest = false;
        if (!r->plan.mem.fits || !r->plan.perf.timed)
            continue;
        if (fastest < 0 || r->time_h < rows[fastest].time_h)
            fastest = k;
        if (cheapest < 0 || r->cost_usd < rows[cheapest].cost_usd)
            cheapest = k;
    }
    if (fastest >= 0)
        rows[fastest].fastest = true;
    if (cheapest >= 0)
        rows[cheapest].cheapest = true;
    return TPLAN_OK;
}
