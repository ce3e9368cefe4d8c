/* HTML reports (`tplan calc --report F`, `tplan report DB -o F`): one
 * self-contained file, inline SVG and CSS, no script, no network. The
 * document is written to a temporary file beside the target and renamed
 * over it only when complete; the target may not be an input, a symbolic
 * link or a file that is not an earlier report. */
#ifndef TPLAN_CLI_REPORT_H
#define TPLAN_CLI_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "err.h"
#include "plan.h"

typedef struct report {
    FILE *f;
    char path[4096], tmp[4096 + 32];
} report;

/* Open path's temporary and write the head of the document. */
int report_open(report *r, const char *path, const char *title,
                const char *subtitle, tplan_err *err);
/* A section heading with an optional paragraph under it. */
void report_section(report *r, const char *heading, const char *text);
/* Finish the document and put it in place; on any write error the
 * temporary is removed and the target left as it was. */
int report_close(report *r, tplan_err *err);
/* Remove the temporary (an error before the end). */
void report_abort(report *r);

/* Every chart of one plan (c validated, p its full evaluation): memory
 * breakdown against the capacity, memory against micro-batch, the largest
 * micro-batch against sequence length, the step-time breakdown, cost
 * against time and throughput against GPU count, the LR schedule, and the
 * plan's figures as a table. */
void report_plan(report *r, const tplan_config *c, const tplan_plan *p);

/* Mark the non-dominated points of (t, cost), both minimised: no other
 * point is as fast and as cheap and better in one (of equal points, the
 * first). NaN points are not on the front; at most INT_MAX points. A
 * point that fits (fits[i]; NULL: all do) dominates every one that does
 * not, as in the sweeps' fronts: once one fits, the front holds only
 * points that fit. */
void report_pareto(int64_t n, const double *t, const double *cost,
                   const bool *fits, bool *front);

/* A table (data-table="kind"): a caption and column heads, then rows of cells.
 * Each cell carries data-field (its column's field) and, for numbers,
 * data-value (exact); shown is the text to print (NULL: the number as %.4g). */
void report_table_begin(report *r, const char *kind, const char *caption, int n,
                        const char *const *heads);
void report_row_begin(report *r);
void report_cell_num(report *r, const char *field, double v, const char *shown);
void report_cell_text(report *r, const char *field, const char *s);
void report_row_end(report *r);
void report_table_end(report *r);

#endif
