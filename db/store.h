/* Result databases (SQLite): open or create a file with tplan's schema
 * (db/schema.sql, compiled in), write sweeps and their plans in batched
 * transactions through prepared statements, and run read-only queries.
 * Knows the engine's types and SQLite; nothing of Lua. */
#ifndef TPLAN_STORE_H
#define TPLAN_STORE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "plan.h"
#include "sweep.h"

/* Schema 2 added a column for every input field, schema 3 the sweeps'
 * axes and fits_first; older files are read as they are (NULL for the
 * columns they lack) and upgraded when a writer opens them. */
#define TPLAN_SCHEMA_VERSION 3
#define TPLAN_SCHEMA_OLDEST  1
#define TPLAN_APPLICATION_ID 0x74706c6e /* "tpln" */

typedef struct tplan_store tplan_store;

/* What identifies and describes a sweep row. Strings may be NULL where
 * the schema allows it. */
typedef struct tplan_sweep_meta {
    const char *name;
    const char *script, *script_sha256, *args;
    const char *sweep_key; /* shards of one sweep share it */
    const char *rank_by;   /* "cost_usd,time_h" */
    const char *keep;      /* "1000", "fits" or "all" */
    const char *axes;      /* "tp,pp,ep": the inputs varied; NULL: unknown */
    bool mix_unfit;        /* fits_first = false (stored as fits_first 0) */
    int64_t ordinal, shard, shards, space;
} tplan_sweep_meta;

/* Open path for writing, creating it with the schema when it is new or
 * empty. An existing file must be a tplan database of this schema or an
 * older one: anything else is refused, untouched. */
tplan_store *tplan_store_open(const char *path, tplan_err *err);

/* Open an existing tplan database read-only (query, export, merge). */
tplan_store *tplan_store_open_ro(const char *path, tplan_err *err);

void tplan_store_close(tplan_store *db);

/* Append to out (len bytes, NUL-terminated) ", PREFIXcol" for every plan
 * field, in the field table's order (those named in the comma-separated
 * first, if any, before the others), or ", NULL AS col" for a column the
 * file lacks (a schema 1 file read as it is). False when out is too
 * small or the file's columns cannot be read. */
bool tplan_store_plan_select(tplan_store *db, const char *prefix,
                             const char *first, char *out, size_t len);

/* Comma-separated lists of names (a sweep row's axes: "tp,pp,ep").
 * tplan_list_next copies the next name at *p into name (len bytes, cut
 * to fit) and moves *p past it; false at the end (or p NULL).
 * tplan_list_has: is name one of list's (NULL: none)? */
bool tplan_list_next(const char **p, char *name, size_t len);
bool tplan_list_has(const char *list, const char *name);

/* The sweeps columns of schema 3 for a SELECT list: "axes, fits_first",
 * or "NULL AS axes, NULL AS fits_first" for an older file read as it
 * is. Static. */
const char *tplan_store_sweep_spec_cols(const tplan_store *db);

/* Begin a sweep: its row (completed = 0) in a transaction that holds
 * every plan row after it until tplan_store_sweep_finish commits them
 * all, so a sweep is in the file whole or not at all (inside a caller's
 * transaction, merge's, it joins that one). *id is its id. */
int tplan_store_sweep_begin(tplan_store *db, const tplan_sweep_meta *m,
                            int64_t *id, tplan_err *err);

/* Add one plan row to the open transaction (a batch committed every
 * 50,000 rows outside a sweep). rank 0: none (a Pareto-only row); score
 * NaN: none. */
int tplan_store_plan(tplan_store *db, int64_t sweep_id, int64_t rank,
                     int64_t index, bool pareto, double score,
                     const double *keys, int nkeys, const tplan_plan *p,
                     tplan_err *err);

/* Record the counts, mark the sweep completed (unless interrupted) and
 * commit the sweep's transaction. */
int tplan_store_sweep_finish(tplan_store *db, int64_t id,
                             const tplan_sweep_stats *st, int64_t kept,
                             tplan_err *err);

/* Roll back the open transaction: a sweep being written leaves nothing. */
void tplan_store_abort(tplan_store *db);

/* One result cell of a query. */
typedef enum {
    TPLAN_CELL_NULL,
    TPLAN_CELL_INT,
    TPLAN_CELL_REAL,
    TPLAN_CELL_TEXT
} tplan_cell_type;

typedef struct tplan_cell {
    tplan_cell_type type;
    int64_t i;
    double r;
    const char *s; /* valid during the callback */
} tplan_cell;

/* A cell's number: an integer's or a real's value, NaN for text or
 * NULL. */
double tplan_cell_number(const tplan_cell *c);

/* The host memory a row's host_memory_gib cell says, in bytes (0: none),
 * as the engine has it (memory.c: llround of the GiB figure): what a
 * ranking read from rows compares (merge, query, the report). */
int64_t tplan_store_host_bytes(const tplan_cell *host_memory_gib);

/* Called once with the column names (row NULL), then once per row;
 * non-zero stops the query (and is returned). */
typedef int (*tplan_row_fn)(void *ud, int ncols, const char *const *names,
                            const tplan_cell *row);

/* Run one SQL statement with optional bound parameters (?1...), calling
 * fn for the header and each row. SQLite's message on a bad statement. */
int tplan_store_query(tplan_store *db, const char *sql,
                      const tplan_cell *params, int nparams, tplan_row_fn fn,
                      void *ud, tplan_err *err);

/* A flag a signal handler sets (export, merge): once it is non-zero every
 * statement stops (TPLAN_EINTR, its transaction rolled back) and a writer
 * waiting for another writer's lock (which it does without a time limit)
 * gives up. NULL: none (tplan run, whose first signal stops the sweep and
 * still saves its plans). */
void tplan_store_set_stop(volatile sig_atomic_t *stop);

/* Cap the memory SQLite itself allocates in this process (every
 * connection: a query's strings and blobs are built in SQLite's heap
 * before a caller sees them); past it a statement fails with "out of
 * memory". 0: no cap. */
void tplan_store_heap_limit(int64_t bytes);

#endif
