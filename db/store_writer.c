/* Plan rows into SQLite on a writer thread.
 *
 * tplan_store_plan turns a plan into cells (the plan field table) in the
 * caller's thread and hands full blocks of rows to one writer thread,
 * which owns the connection until the sweep ends: it inserts each block
 * with one INSERT ... SELECT from an eponymous virtual table over the
 * block (no per-value bind calls) and commits every BATCH_ROWS rows. The
 * caller evaluates the next plans while SQLite encodes and writes the
 * last ones. Anything else that touches the connection stops the writer
 * first (tplan_store_writer_stop), so one thread uses it at a time.
 *
 * Measured with bench_store (docs/benchmarks.md): the thread and the virtual table
 * each took a share of the writer's time off the caller's path; without
 * a thread (pthread_create failed) blocks are written in the caller. */
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "store_int.h"

/* Rows per transaction: large enough that commits (an fsync each) cost
 * little, small enough that a kill loses at most one batch. */
#define BATCH_ROWS 50000

/* Rows per block, blocks in flight, and a block's text arena: every row
 * finds at least TPLAN_ROW_TEXT bytes free (names and warnings average
 * ~200 bytes a row, so the arena rarely ends a block early). */
#define BLOCK_ROWS 512
#define NBLOCKS    4
#define BLOCK_TEXT (BLOCK_ROWS * 512 + TPLAN_ROW_TEXT)

/* Insert columns ahead of the plan fields: sweep_id, rank, config_index,
 * pareto, score, key1..key4. */
#define LEAD_COLS 9

/* A block keeps each value in 8 bytes and its tplan_cell_type in one
 * byte apart: the caller's thread writes these and the writer thread
 * reads them, so fewer bytes is fewer cache lines crossing between the
 * two cores (32-byte tplan_cells made the caller's side 3x slower). */
typedef union cell_value {
    int64_t i;
    double r;
    const char *s;
} cell_value;

typedef struct row_block {
    int rows;
    size_t text_used;
    cell_value *vals;     /* BLOCK_ROWS rows of ncols values */
    unsigned char *types; /* their types */
    char *text;           /* BLOCK_TEXT bytes: the rows' strings */
} row_block;

struct tplan_writer {
    tplan_store *s;
    pthread_t thread;
    bool threaded;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    row_block blocks[NBLOCKS];
    int head;   /* oldest submitted block (the writer's next) */
    int queued; /* submitted, not yet written */
    int fill;   /* the block the caller fills */
    bool stop, discard;
    /* set under mu; read without it by tplan_store_plan */
    atomic_bool failed;
    tplan_err err; /* the first failure */
};

static int ncols(void)
{
    return LEAD_COLS + tplan_field_count();
}

/* ---- tplan_rows: the block being written, as a virtual table ------- */

typedef struct rows_vtab {
    sqlite3_vtab base;
    tplan_store *s;
} rows_vtab;

typedef struct rows_cursor {
    sqlite3_vtab_cursor base;
    const row_block *b;
    int row, ncols;
} rows_cursor;

static int rows_connect(sqlite3 *db, void *aux, int argc,
                        const char *const *argv, sqlite3_vtab **vtab,
                        char **msg)
{
    char sql[4096];
    size_t n = (size_t)snprintf(sql, sizeof sql, "CREATE TABLE x(c0");
    rows_vtab *v;
    int rc;

    (void)argc;
    (void)argv;
    (void)msg;
    for (int i = 1; i < ncols(); i++)
        n += (size_t)snprintf(sql + n, sizeof sql - n, ", c%d", i);
    snprintf(sql + n, sizeof sql - n, ")");
    if ((rc = sqlite3_declare_vtab(db, sql)) != SQLITE_OK)
        return rc;
    /* usable from top-level SQL only: no trigger or view reaches it */
    sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
    if (!(v = sqlite3_malloc(sizeof *v)))
        return SQLITE_NOMEM;
    memset(v, 0, sizeof *v);
    v->s = aux;
    *vtab = &v->base;
    return SQLITE_OK;
}

static int rows_disconnect(sqlite3_vtab *v)
{
    sqlite3_free(v);
    return SQLITE_OK;
}

static int rows_best_index(sqlite3_vtab *v, sqlite3_index_info *info)
{
    (void)v;
    info->estimatedCost = BLOCK_ROWS;
    info->estimatedRows = BLOCK_ROWS;
    return SQLITE_OK;
}

static int rows_open(sqlite3_vtab *v, sqlite3_vtab_cursor **cur)
{
    rows_cursor *c = sqlite3_malloc(sizeof *c);

    (void)v;
    if (!c)
        return SQLITE_NOMEM;
    memset(c, 0, sizeof *c);
    *cur = &c->base;
    return SQLITE_OK;
}

static int rows_close(sqlite3_vtab_cursor *cur)
{
    sqlite3_free(cur);
    return SQLITE_OK;
}

static int rows_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxs,
                       int argc, sqlite3_value **argv)
{
    rows_cursor *c = (rows_cursor *)cur;
    const rows_vtab *v = (const rows_vtab *)cur->pVtab;

    (void)idx;
    (void)idxs;
    (void)argc;
    (void)argv;
    c->b = v->s->writing;
    c->row = 0;
    c->ncols = ncols();
    return SQLITE_OK;
}

static int rows_next(sqlite3_vtab_cursor *cur)
{
    ((rows_cursor *)cur)->row++;
    return SQLITE_OK;
}

static int rows_eof(sqlite3_vtab_cursor *cur)
{
    const rows_cursor *c = (const rows_cursor *)cur;

    return !c->b || c->row >= c->b->rows;
}

static int rows_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i)
{
    const rows_cursor *c = (const rows_cursor *)cur;
    size_t k = (size_t)c->row * (size_t)c->ncols + (size_t)i;
    const cell_value *x = &c->b->vals[k];

    switch (c->b->types[k]) {
    case TPLAN_CELL_INT:
        sqlite3_result_int64(ctx, x->i);
        break;
    case TPLAN_CELL_REAL:
        sqlite3_result_double(ctx, x->r);
        break;
    case TPLAN_CELL_TEXT: /* the block outlives the step */
        sqlite3_result_text(ctx, x->s, -1, SQLITE_STATIC);
        break;
    default:
        sqlite3_result_null(ctx);
        break;
    }
    return SQLITE_OK;
}

static int rows_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
    *rowid = ((const rows_cursor *)cur)->row;
    return SQLITE_OK;
}

/* Eponymous-only (no xCreate): it exists in the writing connection
 * alone, as "tplan_rows", and never in a file. */
static const sqlite3_module rows_module = {
    .iVersion = 0,
    .xConnect = rows_connect,
    .xBestIndex = rows_best_index,
    .xDisconnect = rows_disconnect,
    .xOpen = rows_open,
    .xClose = rows_close,
    .xFilter = rows_filter,
    .xNext = rows_next,
    .xEof = rows_eof,
    .xColumn = rows_column,
    .xRowid = rows_rowid,
};

/* "INSERT INTO plans (sweep_id, ..., warnings) " and then tail. */
static void insert_sql(char *sql, size_t len, const char *tail)
{
    size_t n = (size_t)snprintf(sql, len,
                                "INSERT INTO plans (sweep_id, rank, "
                                "config_index, pareto, score, key1, key2, "
                                "key3, key4");

    for (int i = 0; i < tplan_field_count(); i++)
        n +=
            (size_t)snprintf(sql + n, len - n, ", %s", tplan_field_at(i)->name);
    snprintf(sql + n, len - n, ") %s", tail);
}

int tplan_store_writer_prepare(tplan_store *s, tplan_err *err)
{
    char sql[4096];

    if (sqlite3_create_module(s->db, "tplan_rows", &rows_module, s) !=
        SQLITE_OK)
        return tplan_store_db_error(err, s, "cannot prepare plans in");
    insert_sql(sql, sizeof sql, "SELECT * FROM tplan_rows");
    if (sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
                           &s->insert, NULL) != SQLITE_OK)
        return tplan_store_db_error(err, s, "cannot prepare plans in");
    return TPLAN_OK;
}

sqlite3_stmt *tplan_store_values_insert(tplan_store *s, tplan_err *err)
{
    /* ", ?" per column: room for the field table's most fields (a
     * 512-byte list cut off the 170th column: "incomplete input") */
    char sql[8192], values[16 + 3 * (LEAD_COLS + TPLAN_MAX_FIELDS)];
    size_t n = (size_t)snprintf(values, sizeof values, "VALUES (?");

    if (s->insert_values)
        return s->insert_values;
    if (tplan_store_writer_stop(s, true, err))
        return NULL;
    for (int i = 1; i < ncols(); i++)
        n += (size_t)snprintf(values + n, sizeof values - n, ", ?");
    snprintf(values + n, sizeof values - n, ")");
    insert_sql(sql, sizeof sql, values);
    if (sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
                           &s->insert_values, NULL) != SQLITE_OK) {
        tplan_store_db_error(err, s, "cannot prepare plans in");
        return NULL;
    }
    return s->insert_values;
}

/* ---- writing blocks ------------------------------------------------ */

/* Insert one block in the open transaction (begun when none is), and
 * commit when the batch is full unless a caller holds the transaction. */
static int write_block(tplan_store *s, const row_block *b, tplan_err *err)
{
    int rc;

    if (!s->in_tx) {
        if ((rc = tplan_store_exec(s, "BEGIN IMMEDIATE", err)))
            return rc;
        s->in_tx = true;
        s->batch = 0;
    }
    s->writing = b;
    rc = sqlite3_step(s->insert);
    sqlite3_reset(s->insert);
    s->writing = NULL;
    if (rc != SQLITE_DONE)
        return tplan_store_db_error(err, s, "cannot write a plan to");
    s->batch += b->rows;
    if (s->batch >= BATCH_ROWS && !s->hold_tx && !s->sweep_tx) {
        if ((rc = tplan_store_exec(s, "COMMIT", err)))
            return rc;
        s->in_tx = false;
    }
    return TPLAN_OK;
}

static void *writer_main(void *arg)
{
    struct tplan_writer *w = arg;

    pthread_mutex_lock(&w->mu);
    for (;;) {
        row_block *b;
        bool skip;
        tplan_err err;
        int rc = TPLAN_OK;

        while (w->queued == 0 && !w->stop)
            pthread_cond_wait(&w->cv, &w->mu);
        if (w->queued == 0)
            break;
        b = &w->blocks[w->head];
        skip = w->discard || w->failed;
        pthread_mutex_unlock(&w->mu);
        if (!skip)
            rc = write_block(w->s, b, &err);
        pthread_mutex_lock(&w->mu);
        if (rc && !w->failed) {
            w->err = err; /* before failed: tplan_store_plan reads it after */
            w->failed = true;
        }
        b->rows = 0;
        b->text_used = 0;
        w->head = (w->head + 1) % NBLOCKS;
        w->queued--;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

static void writer_free(struct tplan_writer *w)
{
    for (int i = 0; i < NBLOCKS; i++) {
        free(w->blocks[i].vals);
        free(w->blocks[i].types);
        free(w->blocks[i].text);
    }
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
}

static int writer_start(tplan_store *s, tplan_err *err)
{
    struct tplan_writer *w = calloc(1, sizeof *w);
    sigset_t all, old;

    if (!w)
        return tplan_err_set(err, TPLAN_ENOMEM, "db", "out of memory");
    w->s = s;
    atomic_init(&w->failed, false);
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    for (int i = 0; i < NBLOCKS; i++) {
        row_block *b = &w->blocks[i];

        b->vals = malloc(sizeof *b->vals * (size_t)ncols() * BLOCK_ROWS);
        b->types = malloc((size_t)ncols() * BLOCK_ROWS);
        b->text = malloc(BLOCK_TEXT);
        if (!b->vals || !b->types || !b->text) {
            writer_free(w);
            return tplan_err_set(err, TPLAN_ENOMEM, "db", "out of memory");
        }
    }
    /* signals stay with the caller's thread (the run's stop handlers) */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    w->threaded = pthread_create(&w->thread, NULL, writer_main, w) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    s->w = w;
    return TPLAN_OK;
}

/* Hand the filled block over and take the next free one. */
static int submit(tplan_store *s, tplan_err *err)
{
    struct tplan_writer *w = s->w;
    int rc = TPLAN_OK;

    if (!w->threaded) { /* no thread: write here */
        row_block *b = &w->blocks[w->fill];

        rc = w->failed ? w->err.code : write_block(s, b, &w->err);
        w->failed = rc != TPLAN_OK;
        b->rows = 0;
        b->text_used = 0;
        if (rc)
            *err = w->err;
        return rc;
    }
    pthread_mutex_lock(&w->mu);
    if (!w->failed) {
        w->queued++;
        w->fill = (w->fill + 1) % NBLOCKS;
        pthread_cond_broadcast(&w->cv);
        while (w->queued == NBLOCKS && !w->failed)
            pthread_cond_wait(&w->cv, &w->mu);
    }
    if (w->failed) {
        *err = w->err;
        rc = w->err.code;
    }
    pthread_mutex_unlock(&w->mu);
    return rc;
}

int tplan_store_writer_stop(tplan_store *s, bool keep, tplan_err *err)
{
    struct tplan_writer *w = s->w;
    int rc = TPLAN_OK;

    if (!w)
        return TPLAN_OK;
    if (keep && w->blocks[w->fill].rows > 0)
        rc = submit(s, err);
    if (w->threaded) {
        pthread_mutex_lock(&w->mu);
        w->stop = true;
        w->discard = !keep;
        pthread_cond_broadcast(&w->cv);
        pthread_mutex_unlock(&w->mu);
        pthread_join(w->thread, NULL);
    }
    if (rc == TPLAN_OK && w->failed) {
        if (err)
            *err = w->err;
        rc = w->err.code;
    }
    s->w = NULL;
    writer_free(w);
    return keep ? rc : TPLAN_OK;
}

static void put_int(cell_value *v, unsigned char *t, int64_t i)
{
    v->i = i;
    *t = TPLAN_CELL_INT;
}

static void put_real(cell_value *v, unsigned char *t, double r)
{
    v->r = r;
    *t = isnan(r) ? TPLAN_CELL_NULL : TPLAN_CELL_REAL;
}

int tplan_store_plan(tplan_store *s, int64_t sweep_id, int64_t rank,
                     int64_t index, bool pareto, double score,
                     const double *keys, int nkeys, const tplan_plan *p,
                     tplan_err *err)
{
    char buf[TPLAN_MAX_WARNINGS * TPLAN_WARNING_LEN];
    int nf = tplan_field_count();
    row_block *b;
    cell_value *v;
    unsigned char *t;
    char *text;
    size_t used = 0;

    if (!s->w && writer_start(s, err))
        return TPLAN_ENOMEM;
    if (s->w->failed) { /* a caller going on after an error */
        if (err)
            *err = s->w->err;
        return s->w->err.code;
    }
    b = &s->w->blocks[s->w->fill];
    v = &b->vals[(size_t)b->rows * (size_t)ncols()];
    t = &b->types[(size_t)b->rows * (size_t)ncols()];
    text = b->text + b->text_used;
    put_int(&v[0], &t[0], sweep_id);
    put_int(&v[1], &t[1], rank);
    if (rank <= 0)
        t[1] = TPLAN_CELL_NULL;
    put_int(&v[2], &t[2], index);
    put_int(&v[3], &t[3], pareto);
    put_real(&v[4], &t[4], score);
    for (int k = 0; k < 4; k++)
        put_real(&v[5 + k], &t[5 + k], k < nkeys ? keys[k] : (double)NAN);
    for (int i = 0; i < nf; i++) {
        tplan_value f = tplan_field_get(i, p, buf, sizeof buf);
        int k = LEAD_COLS + i;

        switch (tplan_field_at(i)->type) {
        case TPLAN_FT_INT:
        case TPLAN_FT_BOOL:
            put_int(&v[k], &t[k], f.i);
            break;
        case TPLAN_FT_REAL:
            put_real(&v[k], &t[k], f.r);
            break;
        default: {
            /* copied: the plan and buf change before the block is written */
            size_t len;

            if (!f.s) { /* no value */
                t[k] = TPLAN_CELL_NULL;
                break;
            }
            len = strlen(f.s);

            if (used + len + 1 > TPLAN_ROW_TEXT)
                len = used + 1 < TPLAN_ROW_TEXT ? TPLAN_ROW_TEXT - used - 1 : 0;
            memcpy(text + used, f.s, len);
            text[used + len] = '\0';
            v[k].s = text + used;
            t[k] = TPLAN_CELL_TEXT;
            used += len + 1;
            break;
        }
        }
    }
    b->rows++;
    b->text_used += used;
    if (b->rows == BLOCK_ROWS || b->text_used + TPLAN_ROW_TEXT > BLOCK_TEXT)
        return submit(s, err);
    return TPLAN_OK;
}
