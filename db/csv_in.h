/* Strict CSV reading (RFC 4180, libcsv in strict mode) for custom
 * catalogs: a header row, then records with as many fields. Errors name
 * the file and the physical line. A UTF-8 byte-order mark (spreadsheets
 * write one) is skipped. Knows libcsv; nothing of Lua. */
#ifndef TPLAN_CSV_IN_H
#define TPLAN_CSV_IN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "err.h"

/* Called for the header (the first record that is not a blank line) and
 * each record after it, with the physical line the record ends on;
 * non-zero stops. */
typedef int (*tplan_csv_record_fn)(void *ud, int64_t line, bool header, int n,
                                   const char *const *fields, tplan_err *err);

int tplan_csv_read(const char *path, tplan_csv_record_fn fn, void *ud,
                   tplan_err *err);

/* Lines longer than this are refused as they are read (a catalog row is
 * short; /dev/zero is not a catalog). */
#define TPLAN_CSV_MAX_LINE (1 << 20)

/* A flag a signal handler sets: reading stops at the next line with
 * TPLAN_EINTR ("interrupted while reading F"). NULL: never. */
void tplan_csv_set_stop(volatile sig_atomic_t *stop);

#endif
