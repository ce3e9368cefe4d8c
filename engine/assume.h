/* Modelling assumptions: the plan inputs a user would not know to set
 * (load imbalance, efficiency scale, overlaps, allocator and stack
 * memory), each with a plausible range and its source (docs/MODEL.md
 * section 16), and which of them a plan's figures depend on. Knows
 * nothing of I/O. */
#ifndef TPLAN_ASSUME_H
#define TPLAN_ASSUME_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "err.h"

/* The most assumptions the table holds (callers size arrays by it). */
#define TPLAN_MAX_ASSUMPTIONS 16

typedef struct tplan_assumption {
    const char *name;   /* the input field's contract name (fields.h) */
    double lo, hi;      /* plausible range, in the input's unit */
    const char *source; /* one line: where the range comes from, static */
} tplan_assumption;

int tplan_assumption_count(void);
/* The i-th assumption (0 .. count-1), or NULL. Borrowed, static. */
const tplan_assumption *tplan_assumption_at(int i);
/* The assumption on input field id, or NULL when the field is none. */
const tplan_assumption *tplan_assumption_of(int field);
/* The input field id of a (fields.h). */
int tplan_assumption_field(const tplan_assumption *a);

/* The value config c has for assumption a's field, in the input's unit
 * (what tplan_field_apply takes). */
double tplan_assumption_value(const tplan_assumption *a, const tplan_config *c);

/* Did a figure a plan is read by move between two evaluations: the step
 * time (NaN, untimed, equals NaN), the memory per GPU or the fit? The
 * one test of "depends on" (tplan_assumptions_used) and "moved a plan"
 * (robust.h). */
bool tplan_figures_moved(double step_a, int64_t bytes_a, bool fits_a,
                         double step_b, int64_t bytes_b, bool fits_b);

/* One assumption a plan's figures depend on. */
typedef struct tplan_assumed {
    const tplan_assumption *a; /* borrowed, static */
    double value;              /* the plan's value of it */
} tplan_assumed;

/* The assumptions c's figures depend on: those whose field is not in
 * given (an array of tplan_field_count() flags, true: set by the user or
 * a framework; NULL: none given) and that move the plan's step time,
 * memory per GPU or fit when set to the low or high end of the range
 * (2 evaluations each, figures only). Up to cap go to out[0..*n), in
 * the table's order. Errors: c does not evaluate (err names why). */
int tplan_assumptions_used(const tplan_config *c, const bool *given,
                           tplan_assumed *out, int cap, int *n,
                           tplan_err *err);

#endif
