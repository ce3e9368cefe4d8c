/* Fitting framework terms to measured runs (calibrate.h, docs/MODEL.md
 * section 15). */
#include "calibrate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "model.h"
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
                bool memory, tplan_calib_term *t, int k, tplan_err *err)
{
    int measured = 0, took = 0, rc;

    for (int i = 0; i < n; i++)
        measured += !isnan(memory ? runs[i].peak_bytes : runs[i].step_s);
    for (int j = 0; names[j] && took < measured / RUNS_PER_TERM &&
                    k < TPLAN_CALIB_MAX_TERMS;
         j++) {
        int id = tplan_field_find_input(names[j]);
        const tplan_field *f = tplan_field_at(id);
        tplan_calib_term c = {id, memory, 0.0, f->min, f->max};
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
    int k = pick(runs, n, time_terms, false, t, 0, err);

    if (k < 0)
        return -1;
    return pick(runs, n, memory_terms, true, t, k, err);
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

/* The cross-validated error of fitting terms t[0..k): each fold's runs
 * predicted by the terms fitted without them, their squared relative
 * errors summed (the fit's own objective, on runs it did not see), for the
 * runs that measured this kind. k 0: the base profile's error. (The
 * median absolute error instead picked terms that held-out llm-foundry
 * runs then missed by more: scripts/calibrate_llmfoundry.sh, A100-80GB
 * +20%.) */
static int cv_error(const tplan_calib_run *runs, int n, int folds,
                    const tplan_calib_term *t, int k, bool memory,
                    double *out, tplan_err *err)
{
    double x[TPLAN_CALIB_MAX_TERMS];
    int rc;

    *out = 0.0;
    for (int f = 0; f < folds; f++) {
        if (k > 0 && (rc = tplan_calib_fit(runs, n, folds, f, t, k, x, err)))
            return rc;
        for (int i = f; i < n; i += folds) {
            double meas = memory ? runs[i].peak_bytes : runs[i].step_s, s, p,
                   pred;

            if (isnan(meas))
                continue;
            if ((rc = tplan_calib_predict(&runs[i], t, k, k > 0 ? x : NULL, &s,
                                          &p, err)))
                return rc;
            pred = memory ? p : s;
            if (!isnan(pred))
                *out += (pred / meas - 1.0) * (pred / meas - 1.0);
        }
    }
    return TPLAN_OK;
}

/* Keep, in the candidates' order, each term that lowers the
 * cross-validated error of its kind by more than 1% of it: a term the
 * runs cannot pin down fits their noise, and a profile with it predicts
 * new runs worse than the base (it did on held-out llm-foundry runs:
 * scripts/calibrate_llmfoundry.sh). Returns how many are kept, in
 * t[0..). */
static int select_terms(const tplan_calib_run *runs, int n, int folds,
                        tplan_calib_term *t, int k, tplan_err *err)
{
    tplan_calib_term kept[TPLAN_CALIB_MAX_TERMS];
    int m = 0, rc;

    for (int kind = 0; kind < 2; kind++) {
        double best;

        if ((rc = cv_error(runs, n, folds, kept, m, kind == 1, &best, err)))
            return -1;
        for (int i = 0; i < k; i++) {
            double e;
            int base = m;

            if (t[i].memory != (kind == 1))
                continue;
            kept[m++] = t[i];
            if ((rc = cv_error(runs, n, folds, kept, m, kind == 1, &e, err)))
                return -1;
            /* and by more than rounding: 1e-9 is a relative error of
             * 3e-5 on one run */
            if (e < best * 0.99 - 1e-9)
                best = e;
            else
                m = base;
        }
    }
    memcpy(t, kept, sizeof *t * (size_t)m);
    return m;
}

/* v to four significant digits, as the double nearest that decimal */
static double round4(double v)
{
    char buf[32];

    snprintf(buf, sizeof buf, "%.4g", v);
    return strtod(buf, NULL);
}

/* Four significant digits: the runs do not know the terms better; a term
 * driven to its bound (overlap 0) is the bound. */
static void settle(const tplan_calib_term *t, int k, double *x)
{
    for (int i = 0; i < k; i++) {
        double eps = 1e-6 * fmax(1.0, fabs(t[i].start));

        if (fabs(x[i] - t[i].lo) < eps)
            x[i] = t[i].lo;
        else if (fabs(x[i] - t[i].hi) < eps)
            x[i] = t[i].hi;
        else if (x[i] != 0.0)
            x[i] = round4(x[i]);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* The nearest-rank q-quantile of v[0..n-1] (sorted in place). */
static double quantile(double *v, int n, double q)
{
    int k = (int)ceil(q * n);

    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[k < 1 ? 0 : k > n ? n - 1 : k - 1];
}

double tplan_calib_median(const tplan_calib_error *e, int n, int which)
{
    double *v = n > 0 ? malloc(sizeof *v * (size_t)n) : NULL, m;

    if (!v)
        return (double)NAN;
    for (int i = 0; i < n; i++)
        v[i] = fabs(which == 0   ? e[i].before
                    : which == 1 ? e[i].after
                                 : e[i].left_out);
    m = quantile(v, n, 0.5);
    free(v);
    return m;
}

/* The band from measured over left-out predicted less 1 (section 14.3):
 * minus its 10th percentile below, its 90th above, rounded outwards to
 * four decimals and kept in the fields' ranges. */
static int band(const tplan_calib_error *e, int n, double out[2])
{
    double *r = malloc(sizeof *r * (size_t)(n ? n : 1));

    out[0] = out[1] = (double)NAN;
    if (!r)
        return TPLAN_ENOMEM;
    for (int i = 0; i < n; i++)
        r[i] = 1.0 / (1.0 + e[i].left_out) - 1.0;
    if (n > 0) {
        out[0] = fmin(ceil(fmax(0.0, -quantile(r, n, 0.1)) * 1e4) / 1e4, 0.99);
        out[1] = fmin(ceil(fmax(0.0, quantile(r, n, 0.9)) * 1e4) / 1e4, 10.0);
    }
    free(r);
    return TPLAN_OK;
}

/* Each measured run's errors of one kind; xl[f * k ..] holds fold f's fit. */
static int errors(const tplan_calib_run *runs, int n,
                  const tplan_calib_result *res, const double *xl, bool memory,
                  tplan_calib_error *out, int *m, tplan_err *err)
{
    *m = 0;
    for (int i = 0; i < n; i++) {
        const tplan_calib_run *run = &runs[i];
        double meas = memory ? run->peak_bytes : run->step_s, v[3], s, p;
        const double *xs[3] = {NULL, res->x, xl + (i % res->folds) * res->k};
        int rc;

        if (isnan(meas))
            continue;
        for (int j = 0; j < 3; j++) {
            if ((rc = tplan_calib_predict(run, res->t, res->k, xs[j], &s, &p,
                                          err)))
                return rc;
            v[j] = (memory ? p : s) / meas - 1.0;
        }
        out[*m] = (tplan_calib_error){i, v[0], v[1], v[2]};
        (*m)++;
    }
    return TPLAN_OK;
}

/* Grow the range r[0..1] (NaN: empty) to hold v. */
static void widen(double r[2], double v)
{
    r[0] = isnan(r[0]) || v < r[0] ? v : r[0];
    r[1] = isnan(r[1]) || v > r[1] ? v : r[1];
}

void tplan_calib_result_free(tplan_calib_result *res)
{
    free(res->time);
    free(res->memory);
    res->time = res->memory = NULL;
}

int tplan_calibrate(const tplan_calib_run *runs, int n, tplan_calib_result *res,
                    tplan_err *err)
{
    double *xl = NULL;
    int rc;

    memset(res, 0, sizeof *res);
    if (n < TPLAN_CALIB_MIN_RUNS)
        return tplan_err_set(err, TPLAN_EINVAL, "runs",
                             "%d run%s: calibration needs at least %d", n,
                             n == 1 ? "" : "s", TPLAN_CALIB_MIN_RUNS);
    if ((res->k = tplan_calib_terms(runs, n, res->t, err)) < 0)
        return err->code;
    if (res->k == 0)
        return tplan_err_set(err, TPLAN_EINVAL, "runs",
                             "no framework term changes these runs' "
                             "predictions by 0.2%%: nothing to fit");
    res->folds = n <= TPLAN_CALIB_MAX_LOO ? n : 10;
    res->candidates = res->k;
    if ((res->k = select_terms(runs, n, res->folds, res->t, res->k, err)) < 0)
        return err->code;
    if (res->k > 0 &&
        (rc = tplan_calib_fit(runs, n, 0, 0, res->t, res->k, res->x, err)))
        return rc;
    settle(res->t, res->k, res->x);
    res->time = malloc(sizeof *res->time * (size_t)n);
    res->memory = malloc(sizeof *res->memory * (size_t)n);
    xl = malloc(sizeof *xl * (size_t)(res->folds * res->k + 1));
    if (!res->time || !res->memory || !xl) {
        rc = tplan_err_set(err, TPLAN_ENOMEM, "runs", "out of memory");
        goto done;
    }
    for (int f = 0; f < res->folds && res->k > 0; f++)
        if ((rc = tplan_calib_fit(runs, n, res->folds, f, res->t, res->k,
                                  xl + f * res->k, err)))
            goto done;
    if ((rc = errors(runs, n, res, xl, false, res->time, &res->n_time, err)) ||
        (rc = errors(runs, n, res, xl, true, res->memory, &res->n_memory,
                     err)) ||
        (rc = band(res->time, res->n_time, res->time_band)) ||
        (rc = band(res->memory, res->n_memory, res->mem_band))) {
        if (rc == TPLAN_ENOMEM)
            tplan_err_set(err, TPLAN_ENOMEM, "runs", "out of memory");
        goto done;
    }
    for (int j = 0; j < 2; j++)
        res->params[j] = res->gpus[j] = res->seq[j] = (double)NAN;
    for (int i = 0; i < n; i++) {
        tplan_param_count pc;

        tplan_model_params(&runs[i].c.model, &pc);
        widen(res->params, (double)pc.total);
        widen(res->gpus, (double)runs[i].c.gpus);
        widen(res->seq, (double)runs[i].c.seq);
    }
done:
    free(xl);
    if (rc)
        tplan_calib_result_free(res);
    return rc;
}
