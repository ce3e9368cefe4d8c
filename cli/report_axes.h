/* A sweep report's charts by axis value (issue 35: "which EP?" at one
 * glance): for each axis the sweep varied, the best plan at each of its
 * values, its time and its memory against the usable line. */
#ifndef TPLAN_CLI_REPORT_AXES_H
#define TPLAN_CLI_REPORT_AXES_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "report.h"
#include "store.h"

/* One figure (data-chart="best-by-AXIS") for each axis in the comma list
 * axes with two values or more among the sweep's stored plans. Best: the
 * first by the sweep's rank that fits; where none fits at a value, the
 * plan needing least memory, drawn open. */
int report_best_by_axes(report *r, tplan_store *db, int64_t sweep,
                        const char *axes, const char *rank_by, tplan_err *err);

/* A short name of an axis value for a label: "tp2", "ep4", "zero1",
 * "mb2", "64 GPUs", a text value as it is ("fp8"), other numbers as
 * "name=value". */
void report_axis_tag(char *buf, size_t len, const char *axis,
                     const tplan_cell *v);

#endif
