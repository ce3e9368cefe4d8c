/* The robustness of a ranking to its assumptions. Each plan is evaluated
 * again for figures only (no warnings or advice: the keys and the fit are
 * the same numbers), one at a time into one buffer. */
#include "robust.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "plan.h"

/* What a re-ranking reads of a plan, and what says it moved. */
typedef struct figs {
    tplan_ranked r;
    double step_time_s, step_lo, step_hi;
    int64_t total_bytes;
} figs;

/* The first of f[0..n) but skip in the ranking order (rank.h). */
static int best(const figs *f, int n, int skip, int nobj)
{
    int k = -1;

    for (int i = 0; i < n; i++)
        if (i != skip &&
            (k < 0 || tplan_ranked_before(&f[i].r, &f[k].r, nobj)))
            k = i;
    return k;
}

static int eval_one(const tplan_robust_in *in, const tplan_config *c, int i,
                    tplan_plan *p, figs *f, tplan_err *err)
{
    int rc = tplan_plan_eval_ex(c, p, TPLAN_EVAL_FIGURES, err);

    if (rc)
        return rc;
    memset(f, 0, sizeof *f);
    tplan_ranked_set(&f->r, in->index ? in->index[i] : i, in->rank,
                     in->n_rank, p, (double)NAN, !in->mix_unfit);
    f->step_time_s = p->perf.step_time_s;
    f->step_lo = p->perf.step_time_s_lo;
    f->step_hi = p->perf.step_time_s_hi;
    f->total_bytes = p->mem.total_bytes;
    return TPLAN_OK;
}

static bool moved(const figs *a, const figs *b)
{
    return tplan_figures_moved(a->step_time_s, a->total_bytes, a->r.fits,
                               b->step_time_s, b->total_bytes, b->r.fits);
}

/* The first objective's value (unsigned) of an entry. */
static double first_value(const tplan_robust_in *in, const tplan_ranked *r)
{
    return in->rank[0].maximize ? -r->key[0] : r->key[0];
}

/* Does metric m scale with the step time (+1), against it (-1), or not
 * (0)? The run's time, GPU-hours, cost and energy are steps x step time;
 * throughput and MFU are work over it. */
static int with_step(tplan_metric m)
{
    switch (m) {
    case TPLAN_M_COST_USD:
    case TPLAN_M_TIME_H:
    case TPLAN_M_GPU_HOURS:
    case TPLAN_M_ENERGY_KWH:
    case TPLAN_M_STEP_TIME_S:
        return 1;
    case TPLAN_M_TOKENS_PER_S:
    case TPLAN_M_MFU:
        return -1;
    default:
        return 0;
    }
}

/* The first objective's range over the plan's step-time band. */
static void band(const tplan_robust_in *in, const figs *f, double *lo,
                 double *hi)
{
    double v = first_value(in, &f->r), s = f->step_time_s;

    if (with_step(in->rank[0].metric) > 0) {
        *lo = v * f->step_lo / s;
        *hi = v * f->step_hi / s;
    } else {
        *lo = v * s / f->step_hi;
        *hi = v * s / f->step_lo;
    }
}

int tplan_robustness(const tplan_robust_in *in, tplan_robust_out *out,
                     tplan_err *err)
{
    int n = in->n, rc = TPLAN_OK;
    figs *base = NULL, *alt = NULL;
    tplan_plan *p = NULL;
    tplan_config *c = NULL;

    memset(out, 0, sizeof *out);
    out->first = out->second = -1;
    for (int k = 0; k < in->n_rank; k++)
        if (in->rank[k].metric == TPLAN_M_SCORE)
            return tplan_err_set(err, TPLAN_EINVAL, "rank",
                                 "robustness: a score objective cannot be "
                                 "evaluated again (the score is the "
                                 "script's hook's)");
    if (n <= 0)
        return TPLAN_OK;
    base = malloc((size_t)n * sizeof *base);
    alt = malloc((size_t)n * sizeof *alt);
    p = malloc(sizeof *p);
    c = malloc(sizeof *c);
    if (!base || !alt || !p || !c) {
        rc = tplan_err_set(err, TPLAN_ENOMEM, "robustness", "out of memory");
        goto done;
    }
    for (int i = 0; i < n; i++, out->evaluations++)
        if ((rc = eval_one(in, &in->configs[i], i, p, &base[i], err)))
            goto done;
    out->first = best(base, n, -1, in->n_rank);
    out->second = best(base, n, out->first, in->n_rank);
    out->first_fits = base[out->first].r.fits;
    if (out->second >= 0 && with_step(in->rank[0].metric) &&
        base[out->first].step_time_s > 0 &&
        base[out->second].step_time_s > 0 &&
        base[out->first].r.fits == base[out->second].r.fits) {
        double a_lo, a_hi, b_lo, b_hi;

        band(in, &base[out->first], &a_lo, &a_hi);
        band(in, &base[out->second], &b_lo, &b_hi);
        out->band_checked = true;
        out->band_tie = b_lo <= a_hi && a_lo <= b_hi;
    }
    for (int k = 0; k < tplan_assumption_count(); k++) {
        const tplan_assumption *a = tplan_assumption_at(k);
        int id = tplan_assumption_field(a);
        bool any = false;

        if (id < 0 || (in->fixed && in->fixed[id]))
            continue;
        for (int side = 0; side < 2; side++) {
            double x = side ? a->hi : a->lo;
            bool differs = false;
            int top;

            for (int i = 0; i < n && !differs; i++)
                differs = tplan_assumption_value(a, &in->configs[i]) != x;
            if (!differs)
                continue;
            for (int i = 0; i < n; i++, out->evaluations++) {
                *c = in->configs[i];
                tplan_field_apply(id, x, c);
                if ((rc = eval_one(in, c, i, p, &alt[i], err)))
                    goto done;
                any = any || moved(&base[i], &alt[i]);
            }
            top = best(alt, n, -1, in->n_rank);
            if (top != out->first && out->n_flips < 2 * TPLAN_MAX_ASSUMPTIONS) {
                tplan_robust_flip *f = &out->flips[out->n_flips++];
                double was = first_value(in, &alt[out->first].r);

                f->a = a;
                f->value = x;
                f->base = tplan_assumption_value(a, &in->configs[out->first]);
                f->top = top;
                f->first_fits = alt[out->first].r.fits;
                f->delta = was != 0 ? first_value(in, &alt[top].r) / was - 1
                                    : (double)NAN;
            }
        }
        if (any)
            out->checked[out->n_checked++] = a;
    }
done:
    free(base);
    free(alt);
    free(p);
    free(c);
    return rc;
}
