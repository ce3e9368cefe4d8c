/* Does the first plan stay first? A sweep's kept plans evaluated again
 * with each assumption (assume.h) at the low and the high end of its
 * range and ranked again; and whether the runner-up's step-time band
 * overlaps the first's. Knows nothing of I/O. */
#ifndef TPLAN_ROBUST_H
#define TPLAN_ROBUST_H

#include <stdbool.h>
#include <stdint.h>

#include "assume.h"
#include "config.h"
#include "err.h"
#include "rank.h"

/* What to test. Every pointer is borrowed for the call. */
typedef struct tplan_robust_in {
    const tplan_config *configs; /* n configurations, the kept plans */
    const int64_t *index; /* n: their sweep indexes (ties); NULL: 0..n-1 */
    int n;
    const tplan_objective *rank; /* the sweep's objectives (no score) */
    int n_rank;
    /* tplan_field_count() flags, true: a field not to vary (set by the
     * script or a framework, or swept as an axis); NULL: none */
    const bool *fixed;
    /* rank plans that do not fit among those that do (the sweep's
     * fits_first = false); by default after them, as every ranking */
    bool mix_unfit;
} tplan_robust_in;

/* Another plan ranks first with one assumption at one end of its range. */
typedef struct tplan_robust_flip {
    const tplan_assumption *a; /* borrowed, static */
    double value;              /* the end of the range it was set to */
    double base;               /* the first plan's value of it */
    int top;                   /* the plan first there: 0 .. n-1 */
    bool first_fits;           /* the first plan still fits there */
    /* that plan's first objective over the first plan's, both at value,
     * less 1 (-0.04: 4% less time) */
    double delta;
} tplan_robust_flip;

typedef struct tplan_robust_out {
    int first; /* the first plan at the plans' own values: 0 .. n-1; -1 when
                  n is 0 */
    int second; /* the runner-up, -1 when none */
    bool first_fits; /* the first plan fits at the plans' own values */
    tplan_robust_flip flips[2 * TPLAN_MAX_ASSUMPTIONS];
    int n_flips;
    /* the assumptions varied that moved a figure of some plan, and the
     * ends of the range tried */
    const tplan_assumption *checked[TPLAN_MAX_ASSUMPTIONS];
    int n_checked;
    /* the first objective moves with the step time (time_h, cost_usd,
     * tokens_per_s...) and the runner-up's step-time band overlaps the
     * first's (both fit, or neither): the model cannot tell them apart
     * within its measured error (docs/MODEL.md 14.3) */
    bool band_checked, band_tie;
    int64_t evaluations; /* plan evaluations made */
} tplan_robust_out;

/* Rank in->configs as every ranking does (tplan_ranked_cmp: a plan that
 * fits before one that does not unless mix_unfit, then the objectives'
 * keys lexicographically, then the index), then again with each assumption not fixed at its low and high
 * end (n x 2 evaluations each, figures only). An assumption whose ends
 * leave every plan's step time, memory and fit as they were is not
 * checked. Errors: a score objective (a script's hook cannot be run
 * again), a configuration that does not evaluate, no memory. */
int tplan_robustness(const tplan_robust_in *in, tplan_robust_out *out,
                     tplan_err *err);

#endif
