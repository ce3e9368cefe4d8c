/* CSV plan files (RFC 4180): one header row with the plan field names,
 * numbers written so they read back exactly, text quoted only when it must
 * be. A file is written under a temporary name and renamed into place on
 * close, so a reader never sees a half-written file under the final name.
 * Knows the engine's types and libcsv; nothing of Lua. */
#ifndef TPLAN_CSV_OUT_H
#define TPLAN_CSV_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "fmt_real.h" /* tplan_fmt_real, tplan_fmt_field (text/) */
#include "plan.h"

typedef struct tplan_csv tplan_csv;

/* Start a plan file at path: header "sweep,rank,<plan fields>". A path
 * of "-" writes to standard output as rows come. */
tplan_csv *tplan_csv_open(const char *path, tplan_err *err);

/* Start a file with no header, for any columns: cells go in one by one,
 * tplan_csv_end_row ends each row (the header is a row of text cells). */
tplan_csv *tplan_csv_create(const char *path, tplan_err *err);
void tplan_csv_text(tplan_csv *w, const char *s);
void tplan_csv_int(tplan_csv *w, int64_t v);
void tplan_csv_real(tplan_csv *w, double v); /* NaN: an empty cell */
void tplan_csv_null(tplan_csv *w);
int tplan_csv_end_row(tplan_csv *w, tplan_err *err);

/* One plan: the sweep's name, its rank (1 = best; 0: none, an empty
 * cell) and its fields. */
int tplan_csv_row(tplan_csv *w, const char *sweep, int64_t rank,
                  const tplan_plan *p, tplan_err *err);

/* A plan's row as text, apart from any file: what tplan_csv_row writes,
 * formatted on any thread into a buffer of its own (issue 38: the sweep's
 * threads format the rows, one writes them in order). */
typedef struct tplan_csv_rowbuf {
    char *s;
    size_t n, cap;
    int col;  /* cells in the row so far */
    bool bad; /* memory ran short */
} tplan_csv_rowbuf;
/* The row, CRLF included, into b (reused: b->n is reset); TPLAN_OK or
 * TPLAN_ENOMEM. */
int tplan_csv_format_row(tplan_csv_rowbuf *b, const char *sweep, int64_t rank,
                         const tplan_plan *p);
void tplan_csv_rowbuf_free(tplan_csv_rowbuf *b);
/* Bytes as they are (formatted rows) into the file. */
int tplan_csv_put(tplan_csv *w, const char *s, size_t n, tplan_err *err);

/* Flush, sync and rename into place; frees w whatever happens. */
int tplan_csv_close(tplan_csv *w, tplan_err *err);

/* The temporary file w writes (NULL for standard output): a signal
 * handler that must end the process removes it. */
const char *tplan_csv_tmp_path(const tplan_csv *w);

/* Drop the temporary file; frees w. Accepts NULL. */
void tplan_csv_abort(tplan_csv *w);

#endif
