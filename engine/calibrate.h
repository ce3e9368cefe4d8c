/* Calibration: fit a framework's efficiency and overhead terms to runs a
 * user measured (docs/MODEL.md section 15). A robust loss (soft-L1 on
 * log(predicted / measured)), step time and peak memory fitted apart (no
 * time term moves memory and no memory term moves a run's time at its
 * given micro-batch): each term scanned over its range, then Nelder-Mead;
 * terms chosen by cross-validated forward selection over every candidate
 * the runs move. Knows nothing of I/O. */
#ifndef TPLAN_CALIBRATE_H
#define TPLAN_CALIBRATE_H

#include <stdbool.h>

#include "config.h"
#include "err.h"

/* One measured run: its plan, with the base framework applied, and what
 * was measured (NaN: not measured). */
typedef struct tplan_calib_run {
    tplan_config c;
    double step_s;     /* measured step time */
    double peak_bytes; /* measured peak GPU memory, context included */
} tplan_calib_run;

#define TPLAN_CALIB_MAX_TERMS 8

typedef struct tplan_calib_term {
    int field;    /* an input (fields.h), a framework term */
    bool memory;  /* fitted to peaks (else to step times) */
    double start; /* the base's value, in the field's input unit */
    double lo, hi;
} tplan_calib_term;

/* The fewest runs a fit takes: with fewer, least squares has nothing to
 * average over and leave-one-out nothing to leave. */
#define TPLAN_CALIB_MIN_RUNS 3

/* The candidate terms, into t (at most TPLAN_CALIB_MAX_TERMS): those
 * the runs share a start value of, where moving the term a quarter or to
 * either end of its scan moves some run's prediction by 0.2%. Which are
 * fitted is tplan_calibrate's cross-validated choice (at most one per
 * three runs measured, time and memory counted apart). Returns how many;
 * -1 with err set when a run does not evaluate. */
int tplan_calib_terms(const tplan_calib_run *runs, int n, tplan_calib_term *t,
                      tplan_err *err);

/* Predictions of run r with the terms at values x (t[i].start where x is
 * NULL): its step time and peak (NaN where r has no measurement of it).
 */
int tplan_calib_predict(const tplan_calib_run *r, const tplan_calib_term *t,
                        int k, const double *x, double *step_s, double *peak,
                        tplan_err *err);

/* Fit the terms, starting from their start values, to every run but
 * those of fold `fold` of `folds` (run i is in fold i % folds; folds 0:
 * every run); the result goes into x[0..k-1]. */
int tplan_calib_fit(const tplan_calib_run *runs, int n, int folds, int fold,
                    const tplan_calib_term *t, int k, double *x,
                    tplan_err *err);

/* One run's error of one kind, predicted over measured less 1: with the
 * base's terms, with the fit, and left out of the fit (predicted by a fit
 * without it, or without its fold). */
typedef struct tplan_calib_error {
    int run; /* index into the runs */
    double before, after, left_out;
} tplan_calib_error;

/* Up to this many runs each is left out alone; beyond, ten folds (run i
 * in fold i mod 10), to bound the work to eleven fits. */
#define TPLAN_CALIB_MAX_LOO 50

/* A whole calibration (docs/MODEL.md section 15). */
typedef struct tplan_calib_result {
    int k;                               /* terms fitted */
    int candidates; /* terms the runs move; those that did not lower the
                       cross-validated error were left at the base's */
    tplan_calib_term t[TPLAN_CALIB_MAX_TERMS];
    double x[TPLAN_CALIB_MAX_TERMS];     /* their values, four digits */
    int folds;                           /* n: leave-one-out; else 10 */
    tplan_calib_error *time, *memory;    /* per measured run */
    int n_time, n_memory;
    /* bands from the left-out errors as section 14.3 makes them (minus
     * the 10th percentile of measured / predicted - 1, and the 90th);
     * NaN where no run measured that kind */
    double time_band[2], mem_band[2];
    /* the runs' range: smallest and largest model, GPU count, sequence */
    double params[2], gpus[2], seq[2];
    /* the cross-validated median |error| of step time [0] and peak
     * memory [1] (NaN where no run measured it), with the base's terms
     * [.][0] and with those kept [.][1] (issue 34) */
    double cv_median[2][2];
} tplan_calib_result;

/* Pick the terms, fit them, settle them to four significant digits (a
 * value at a bound is the bound), fit again per fold, and fill res. Fewer
 * than TPLAN_CALIB_MIN_RUNS runs, or runs that move no term, are
 * TPLAN_EINVAL with the reason. Free res with tplan_calib_result_free. */
int tplan_calibrate(const tplan_calib_run *runs, int n,
                    tplan_calib_result *res, tplan_err *err);
void tplan_calib_result_free(tplan_calib_result *res);

/* Refuse a calibration no profile should come from (issue 34): a term
 * fitted to a non-finite value, context_mib below 100 MiB, a run
 * predicted as a non-finite number, a left-out median error above the
 * base's or above 50%, a run's matmuls at 95% of peak or more. TPLAN_OK,
 * or TPLAN_EINVAL with the one-line reason in err. */
int tplan_calib_verdict(const tplan_calib_run *runs, int n,
                        const tplan_calib_result *res, tplan_err *err);

/* The median of |error| over e[0..n-1]: of before, after or left_out
 * (which 0, 1, 2); for an even n the mean of the middle two. NaN when n
 * is 0. */
double tplan_calib_median(const tplan_calib_error *e, int n, int which);

#endif
