/* Fitting framework terms to measured runs (calibrate.h, docs/MODEL.md
 * section 15). */
#include "calibrate.h"

#include <math.h>
#include <string.h>

#include "fields.h"
#include "plan.h"

/* The candidates, in the order they are kept: the compute efficiency
 * first (every timed run depends on it), then the collectives, then the
 * shape of the efficiency curve; for memory the allocator's share (it
 * grows with the run) before the fixed context. */
static const char *const time_terms[] = {
    "eff_scale", "zero3_bw_eff", "dp_bw_eff", "overlap", "eff_h0",
    "eff_tok0",  "fp8_ratio",    "attn_eff",  NULL};
static const char *const memory_terms[] = {"alloc_frac", "context_mib", NULL};

/* A change that moves no prediction by this much tells the runs nothing. */
#define MIN_SENSITIVITY 0.002
/* One term per this many measured runs. */
#define RUNS_PER_TERM 3
/* A term at 0 moves in steps of this share of its range. */
#define LINEAR_STEP 0.1

/* A term's value at the optimiser's coordinate u: a multiple of its start
 * (exp u) when the start is positive, else a step from it, in range. */
static double term_value(const tplan_calib_term *t, double u)
{
    double v = t->start > 0.0
                   ? t->start * exp(u)
                   : t->start + u * LINEAR_STEP * fmin(t->hi - t->lo, 1.0);

    return fmin(fmax(v, t->lo), t->hi);
}

int tplan_calib_predict(const tplan_calib_run *r, const tplan_calib_term *t,
                        int k, const double *x, double *step_s, double *peak,
                        tplan_err *err)
{
    tplan_config c = r->c;
    tplan_plan p;
    int rc;

    for (int i = 0; i < k; i++)
        tplan_field_apply(t[i].field, x ? x[i] : t[i].start, &c);
    if ((rc = tplan_plan_eval_ex(&c, &p, TPLAN_EVAL_FIGURES, err)))
        return rc;
    *step_s =
        isnan(r->step_s) || !p.perf.timed ? (double)NAN : p.perf.step_time_s;
    *peak = isnan(r->peak_bytes) ? (double)NAN : (double)p.mem.total_bytes;
    return TPLAN_OK;
}

/* The value of input id in run r's plan. */
static int start_value(const tplan_calib_run *r, int id, double *v,
                       tplan_err *err)
{
    tplan_plan p;
    char buf[64];
    int rc;

    if ((rc = tplan_plan_eval_ex(&r->c, &p, TPLAN_EVAL_FIGURES, err)))
        return rc;
    *v = tplan_field_get(id, &p, buf, sizeof buf).r;
    return TPLAN_OK;
}

/* How much setting term t to v moves the runs' predictions of its kind,
 * at most, relative. */
static int sensitivity(const tplan_calib_run *runs, int n,
                       const tplan_calib_term *t, double v, double *out,
                       tplan_err *err)
{
    tplan_calib_term moved = *t;
    int rc;

    moved.start = v;
    *out = 0.0;
    for (int i = 0; i < n; i++) {
        double s0, p0, s1, p1, a, b;

        if ((rc = tplan_calib_predict(&runs[i], t, 1, NULL, &s0, &p0, err)) ||
            (rc =
                 tplan_calib_predict(&runs[i], &moved, 1, NULL, &s1, &p1, err)))
            return rc;
        a = t->memory ? p0 : s0;
        b = t->memory ? p1 : s1;
        if (!isnan(a) && a > 0.0)
            *out = fmax(*out, fabs(b / a - 1.0));
    }
    return TPLAN_OK;
}

static int pick(const tplan_calib_run *runs, int n, const char *const *names,
                bool memory, int room, tplan_calib_term *t, int k,
                tplan_err *err)
{
    int measured = 0, took = 0, rc;

    for (int i = 0; i < n; i++)
        measured += !isnan(memory ? runs[i].peak_bytes : runs[i].step_s);
    for (int j = 0; names[j] && took < measured / RUNS_PER_TERM &&
                    k < TPLAN_CALIB_MAX_TERMS && took < room;
         j++) {
        int id = tplan_field_find_input(names[j]);
        const tplan_field *f = tplan_field_at(id);
        tplan_calib_term c = {id, memory, 0.0, 0.0, f->min, f->max};
        double v = 0.0, s;
        bool same = true, have = false;

        /* one start for every run: a term the GPU sets (eff_h0 ...) is
         * fitted only when the runs share it */
        for (int i = 0; i < n && same; i++) {
            if (isnan(memory ? runs[i].peak_bytes : runs[i].step_s))
                continue;
            if ((rc = start_value(&runs[i], id, &v, err)))
                return -1;
            same = !have || v == c.start;
            c.start = v;
            have = true;
        }
        if (!same || !have)
            continue;
        c.value = c.start;
        /* move it a quarter of the way along its range or by a quarter */
        v = c.start > 0.0 ? fmin(c.start * 1.25, c.hi) > c.start
                                ? fmin(c.start * 1.25, c.hi)
                                : c.start * 0.75
                          : c.lo + 0.25 * fmin(c.hi - c.lo, 1.0);
        if ((rc = sensitivity(runs, n, &c, v, &s, err)))
            return -1;
        if (s < MIN_SENSITIVITY)
            continue;
        t[k++] = c;
        took++;
    }
    return k;
}

int tplan_calib_terms(const tplan_calib_run *runs, int n, tplan_calib_term *t,
                      tplan_err *err)
{
    int k = pick(runs, n, time_terms, false, TPLAN_CALIB_MAX_TERMS, t, 0, err);

    if (k < 0)
        return -1;
    return pick(runs, n, memory_terms, true, TPLAN_CALIB_MAX_TERMS, t, k, err);
}

/* The fit's state: the runs and the terms of one kind. */
typedef struct problem {
    const tplan_calib_run *runs;
    int n, folds, fold;
    const tplan_calib_term *t; /* every term */
    int k;
    const int *idx; /* the terms of this kind */
    int m;
    bool memory;
    double *x; /* every term's value */
    tplan_err *err;
    int rc;
} problem;

/* Sum of squared relative errors at coordinates u of this kind's terms. */
static double objective(problem *pr, const double *u)
{
    double sum = 0.0;

    for (int j = 0; j < pr->m; j++)
        pr->x[pr->idx[j]] = term_value(&pr->t[pr->idx[j]], u[j]);
    for (int i = 0; i < pr->n; i++) {
        double s, p, pred, meas;

        if (pr->folds > 0 && i % pr->folds == pr->fold)
            continue;
        meas = pr->memory ? pr->runs[i].peak_bytes : pr->runs[i].step_s;
        if (isnan(meas))
            continue;
        if (pr->rc == TPLAN_OK)
            pr->rc = tplan_calib_predict(&pr->runs[i], pr->t, pr->k, pr->x, &s,
                                         &p, pr->err);
        if (pr->rc)
            return HUGE_VAL;
        pred = pr->memory ? p : s;
        if (!isnan(pred))
            sum += (pred / meas - 1.0) * (pred / meas - 1.0);
    }
    return sum;
}

#define NM_MAX          TPLAN_CALIB_MAX_TERMS
#define NM_ITER_PER_DIM 200
#define NM_TOL          1e-12

/* Nelder and Mead (1965), with the usual coefficients: reflect 1,
 * expand 2, contract 1/2, shrink 1/2. Minimises over u[0..m-1] from 0. */
static void nelder_mead(problem *pr, double *best)
{
    double s[NM_MAX + 1][NM_MAX], f[NM_MAX + 1];
    double c[NM_MAX], r[NM_MAX], e[NM_MAX], fr, fe, fc;
    int m = pr->m;

    for (int i = 0; i <= m; i++) {
        for (int j = 0; j < m; j++)
            s[i][j] = i == j + 1 ? 0.2 : 0.0;
        f[i] = objective(pr, s[i]);
    }
    for (int it = 0; it < NM_ITER_PER_DIM * m && pr->rc == TPLAN_OK; it++) {
        int hi = 0, lo = 0, nh = 0;

        for (int i = 1; i <= m; i++) {
            if (f[i] > f[hi])
                hi = i;
            if (f[i] < f[lo])
                lo = i;
        }
        nh = lo;
        for (int i = 0; i <= m; i++)
            if (i != hi && f[i] > f[nh])
                nh = i;
        if (f[hi] - f[lo] <= NM_TOL * (fabs(f[lo]) + NM_TOL))
            break;
        for (int j = 0; j < m; j++) {
            c[j] = 0.0;
            for (int i = 0; i <= m; i++)
                if (i != hi)
                    c[j] += s[i][j] / m;
            r[j] = c[j] + (c[j] - s[hi][j]);
        }
        fr = objective(pr, r);
        if (fr < f[lo]) {
            for (int j = 0; j < m; j++)
                e[j] = c[j] + 2.0 * (c[j] - s[hi][j]);
            fe = objective(pr, e);
            memcpy(s[hi], fe < fr ? e : r, sizeof(double) * (size_t)m);
            f[hi] = fe < fr ? fe : fr;
        } else if (fr < f[nh]) {
            memcpy(s[hi], r, sizeof(double) * (size_t)m);
            f[hi] = fr;
        } else {
            bool outside = fr < f[hi];

            for (int j = 0; j < m; j++)
                e[j] = c[j] + 0.5 * ((outside ? r[j] : s[hi][j]) - c[j]);
            fc = objective(pr, e);
            if (fc < (outside ? fr : f[hi])) {
                memcpy(s[hi], e, sizeof(double) * (size_t)m);
                f[hi] = fc;
            } else {
                for (int i = 0; i <= m; i++) {
                    if (i == lo)
                        continue;
                    for (int j = 0; j < m; j++)
                        s[i][j] = s[lo][j] + 0.5 * (s[i][j] - s[lo][j]);
                    f[i] = objective(pr, s[i]);
                }
            }
        }
    }
    {
        int lo = 0;

        for (int i = 1; i <= m; i++)
            if (f[i] < f[lo])
                lo = i;
        memcpy(best, s[lo], sizeof(double) * (size_t)m);
    }
}

int tplan_calib_fit(const tplan_calib_run *runs, int n, int folds, int fold,
                    const tplan_calib_term *t, int k, double *x, tplan_err *err)
{
    for (int i = 0; i < k; i++)
        x[i] = t[i].start;
    for (int kind = 0; kind < 2; kind++) {
        int idx[TPLAN_CALIB_MAX_TERMS], m = 0;
        double u[NM_MAX];
        problem pr;

        for (int i = 0; i < k; i++)
            if (t[i].memory == (kind == 1))
                idx[m++] = i;
        if (m == 0)
            continue;
        pr = (problem){runs, n, folds,     fold, t,   k,
                       idx,  m, kind == 1, x,    err, TPLAN_OK};
        nelder_mead(&pr, u);
        if (pr.rc)
            return pr.rc;
        for (int j = 0; j < m; j++)
            x[idx[j]] = term_value(&t[idx[j]], u[j]);
    }
    return TPLAN_OK;
}
