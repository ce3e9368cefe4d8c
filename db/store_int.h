/* The result store's insides, shared by store.c and merge.c only. */
#ifndef TPLAN_STORE_INT_H
#define TPLAN_STORE_INT_H

#include <sqlite3.h>

#include "fields.h"
#include "store.h"

struct tplan_store {
    sqlite3 *db;
    /* INSERT INTO plans (sweep_id, rank, config_index, pareto, score,
     * key1..4, then the plan fields) SELECT * FROM tplan_rows: the block
     * in `writing` (store_writer.c) */
    sqlite3_stmt *insert;
    sqlite3_stmt *insert_values; /* the same columns from ?1..?N (merge) */
    const struct row_block *writing;
    struct tplan_writer *w; /* the writer thread while a sweep's rows flow */
    bool in_tx;
    bool read_only; /* queries may not write (not even VACUUM INTO) */
    int version;    /* the file's schema (PRAGMA user_version) */
    /* per plan field: the file's plans table lacks its column (a file of
     * an older schema, read as it is: NULL for it) */
    unsigned char missing[TPLAN_MAX_FIELDS];
    bool sweep_spec; /* the sweeps table has axes and fits_first */
    bool hold_tx;   /* a caller's transaction (merge): never commit inside */
    bool sweep_tx;  /* a sweep's own (sweep_begin to finish): never commit
                       inside either */
    int64_t batch;
    /* a writer's deadline for lock waits in the open transaction
     * (monotonic seconds; 0: none yet), see busy_wait in store.c */
    double busy_deadline_s;
    char path[512];
};

/* The text room each row has for its names and warnings. */
#define TPLAN_ROW_TEXT 16384

/* Not while the writer thread runs (it uses them itself). */
int tplan_store_exec(tplan_store *s, const char *sql, tplan_err *err);
int tplan_store_db_error(tplan_err *err, tplan_store *s, const char *doing);

/* store_writer.c: register tplan_rows and prepare s->insert; stop the
 * writer thread, writing what is queued (keep) or dropping it, and give
 * back its first error (when keeping). Without a writer: nothing. */
int tplan_store_writer_prepare(tplan_store *s, tplan_err *err);
int tplan_store_writer_stop(tplan_store *s, bool keep, tplan_err *err);

/* INSERT INTO plans (the writer's columns) VALUES (?1...), prepared once
 * per store; NULL with err set when it cannot be. */
sqlite3_stmt *tplan_store_values_insert(tplan_store *s, tplan_err *err);

#endif
