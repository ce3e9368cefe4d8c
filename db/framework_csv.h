/* Framework profiles from a CSV file: a header naming `name`, optionally
 * `source`, and plan inputs by their Lua names (`tplan fields`); one
 * framework per row. An empty cell leaves the field as it is. Strict:
 * errors name the file, the line and the field. Knows the engine's
 * framework type and libcsv (through csv_in). */
#ifndef TPLAN_FRAMEWORK_CSV_H
#define TPLAN_FRAMEWORK_CSV_H

#include "err.h"
#include "framework.h"

/* Called with each framework, in file order; non-zero stops. */
typedef int (*tplan_framework_fn)(void *ud, const tplan_framework *f,
                                  tplan_err *err);

int tplan_framework_csv_read(const char *path, tplan_framework_fn fn,
                             void *ud, tplan_err *err);

/* The framework of that name (as names are matched: any case) in path;
 * one missing from the file is TPLAN_ENOTFOUND with field "framework". */
int tplan_framework_csv_find(const char *path, const char *name,
                             tplan_framework *out, tplan_err *err);

/* Write frameworks fw[0..n-1] to path: name, source, then every field
 * any of them sets (first use first), an empty cell where one does not.
 * Written under a temporary name and renamed into place (csv_out.h). */
int tplan_framework_csv_write(const char *path, const tplan_framework *fw,
                              int n, tplan_err *err);

#endif
