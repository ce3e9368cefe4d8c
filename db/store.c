/* The SQLite result store. */
#include "store.h"

#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "async_vfs.h"
#include "paths.h"
#include "fields.h"
#include "schema_sql.h"
#include "store_int.h"

/* How long a connection waits for another process's lock: a read-only
 * one per statement (sqlite3_busy_timeout), a writer inside its write
 * transaction per transaction; a writer before it holds the write lock
 * waits without a limit (busy_wait). */
#define BUSY_MS 10000

/* The kind of an SQLite failure. */
static int sqlite_kind(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return TPLAN_EBUSY;
    case SQLITE_NOMEM:
        return TPLAN_ENOMEM;
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PERM:
        return TPLAN_EIO;
    case SQLITE_INTERRUPT:
        return TPLAN_EINTR;
    default: /* corrupt, not a database, constraint: the file's content */
        return TPLAN_EINVAL;
    }
}

int tplan_store_db_error(tplan_err *err, tplan_store *s, const char *doing)
{
    return tplan_err_set(err, s->db ? sqlite_kind(sqlite3_errcode(s->db))
                                    : TPLAN_EIO,
                         "db", "%s %s: %s", doing, s->path,
                         s->db ? sqlite3_errmsg(s->db) : "failed");
}

int tplan_store_exec(tplan_store *s, const char *sql, tplan_err *err)
{
    char *msg = NULL;

    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        int kind = sqlite_kind(sqlite3_errcode(s->db));

        tplan_err_set(err, kind, "db", "%s: %s", s->path,
                      msg ? msg : sqlite3_errmsg(s->db));
        sqlite3_free(msg);
        return kind;
    }
    return TPLAN_OK;
}

void tplan_store_close(tplan_store *s)
{
    if (!s)
        return;
    tplan_store_abort(s);
    sqlite3_finalize(s->insert);
    sqlite3_finalize(s->insert_values);
    sqlite3_close_v2(s->db);
    free(s);
}

/* Check what the file is: 0 tplan of our schema, 1 empty (new), or an
 * error naming the problem. */
static int check(tplan_store *s, int *empty, tplan_err *err)
{
    /* one statement, so one snapshot: another process may be creating
     * the schema between separate reads */
    static const char sql[] =
        "SELECT (SELECT application_id FROM pragma_application_id), "
        "(SELECT user_version FROM pragma_user_version), "
        "(SELECT count(*) FROM sqlite_master)";
    int64_t app = -1, ver = -1, objects = -1;
    sqlite3_stmt *st;
    /* a busy file fails the prepare (reading the schema) or the step */
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);

    if (rc == SQLITE_OK) {
        if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            app = sqlite3_column_int64(st, 0);
            ver = sqlite3_column_int64(st, 1);
            objects = sqlite3_column_int64(st, 2);
        }
        sqlite3_finalize(st);
    }

    if ((rc & 0xff) == SQLITE_BUSY)
        return tplan_err_set(err, TPLAN_EBUSY, "db",
                             "%s is locked by another connection (waited "
                             "%d s): %s",
                             s->path, BUSY_MS / 1000, sqlite3_errstr(rc));
    if (app < 0 || ver < 0 || objects < 0)
        return tplan_err_set(err, TPLAN_EINVAL, "db",
                             "%s is not a tplan result database: %s", s->path,
                             sqlite3_errmsg(s->db));
    *empty = app == 0 && objects == 0;
    if (*empty)
        return TPLAN_OK;
    if (app != TPLAN_APPLICATION_ID)
        return tplan_err_set(err, TPLAN_EINVAL, "db",
                             "%s is not a tplan result database "
                             "(application_id=%lld)",
                             s->path, (long long)app);
    if (ver < TPLAN_SCHEMA_OLDEST || ver > TPLAN_SCHEMA_VERSION)
        return tplan_err_set(err, TPLAN_EINVAL, "db",
                             "%s has result schema %lld; this tplan reads "
                             "schemas %d to %d",
                             s->path, (long long)ver, TPLAN_SCHEMA_OLDEST,
                             TPLAN_SCHEMA_VERSION);
    s->version = (int)ver;
    return TPLAN_OK;
}

static double monotonic_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile sig_atomic_t *stop_flag;

void tplan_store_heap_limit(int64_t bytes)
{
    sqlite3_hard_heap_limit64(bytes);
}

void tplan_store_set_stop(volatile sig_atomic_t *stop)
{
    stop_flag = stop;
}

/* SQLite's progress handler on every connection: a statement stops with
 * SQLITE_INTERRUPT (TPLAN_EINTR) once the stop flag is set, so a long
 * export query or merge ends at the next 1000 VM steps (each a few
 * nanoseconds to microseconds) and its transaction rolls back. */
static int stop_requested(void *arg)
{
    (void)arg;
    return stop_flag && *stop_flag;
}

/* A writer's busy handler. Inside its own write transaction (a spill or
 * the COMMIT waiting for readers to leave) BUSY_MS in all for the
 * transaction, not for each lock request in it. With a small page cache
 * every INSERT may spill and ask for the exclusive lock; with a
 * per-request timeout (SQLite's own) a reader holding a read transaction
 * open stalled a run for as long as it held it, and the pending lock the
 * writer keeps meanwhile shut out every new reader. Now the transaction's
 * COMMIT fails after BUSY_MS with "database is locked" and the locks go.
 * Outside one (opening the file, BEGIN IMMEDIATE) the writer holds no
 * lock while it waits (SQLite drops its shared lock between tries), so
 * it waits without a limit for another writer's sweep to commit, however
 * long that sweep writes: two runs sharing a --db both land (issue 36).
 * Only a stop (SIGINT/SIGTERM, tplan_store_set_stop) ends that wait.
 * The delays are SQLite's own default handler's. */
static int busy_wait(void *arg, int n)
{
    static const int delay_ms[] = {1,  2,  5,  10, 15, 20,
                                   25, 25, 25, 50, 50, 100};
    tplan_store *s = arg;
    double now = monotonic_s(), left_ms;
    int ms = delay_ms[n < 12 ? n : 11];
    struct timespec ts;
    int txn = sqlite3_txn_state(s->db, NULL);

    if (stop_flag && *stop_flag)
        return 0;
    /* No transaction (opening the file, BEGIN IMMEDIATE): no lock held,
     * no deadline. A read transaction that wants the write lock (an
     * autocommit write) holds a shared lock another writer may wait on,
     * so it gets its own BUSY_MS (a wait forever there could block that
     * writer's COMMIT); spills and COMMIT inside a write transaction
     * share the transaction's. (Not sqlite3_get_autocommit: it already
     * reads 1 during COMMIT.) */
    if (txn == SQLITE_TXN_NONE) {
        s->busy_deadline_s = 0;
    } else {
        if (s->busy_deadline_s == 0 || (n == 0 && txn != SQLITE_TXN_WRITE))
            s->busy_deadline_s = now + BUSY_MS / 1000.0;
        left_ms = (s->busy_deadline_s - now) * 1000;
        if (left_ms <= 0)
            return 0;
        if (ms > left_ms)
            ms = (int)left_ms + 1;
    }
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (long)(ms % 1000) * 1000000L;
    nanosleep(&ts, NULL);
    return 1;
}

/* a transaction ended (the rollback hook): the next one waits afresh */
static void tx_ended(void *arg)
{
    ((tplan_store *)arg)->busy_deadline_s = 0;
}

/* the commit hook: the same, and the commit goes on (0) */
static int tx_committed(void *arg)
{
    tx_ended(arg);
    return 0;
}

static tplan_store *open_db(const char *path, int flags, const char *vfs,
                            tplan_err *err)
{
    tplan_store *s = calloc(1, sizeof *s);

    if (!s) {
        tplan_err_set(err, TPLAN_ENOMEM, "db", "out of memory");
        return NULL;
    }
    snprintf(s->path, sizeof s->path, "%s", path);
    /* SQLite takes these as an in-memory or URI database: a result that
     * vanishes at exit, or options in a name */
    if (!path[0] || strcmp(path, ":memory:") == 0 ||
        strncmp(path, "file:", 5) == 0) {
        tplan_err_set(err, TPLAN_EINVAL, "db",
                      "'%s': %s: give the path of a database file", path,
                      !path[0] ? "an empty name"
                      : path[0] == ':' ? "SQLite's in-memory database"
                                       : "a URI, not a file name");
        free(s);
        return NULL;
    }
    /* one thread per connection: no SQLite mutexes */
    if (sqlite3_open_v2(path, &s->db, flags | SQLITE_OPEN_NOMUTEX, vfs) !=
        SQLITE_OK) {
        tplan_store_db_error(err, s, "cannot open");
        tplan_store_close(s);
        return NULL;
    }
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_progress_handler(s->db, 1000, stop_requested, NULL);
    if (flags & SQLITE_OPEN_READWRITE) {
        sqlite3_busy_handler(s->db, busy_wait, s);
        sqlite3_commit_hook(s->db, tx_committed, s);
        sqlite3_rollback_hook(s->db, tx_ended, s);
    } else {
        sqlite3_busy_timeout(s->db, BUSY_MS);
    }
    return s;
}

/* Read-only connections: no pragma that sets anything (only the
 * read-only ones may take an argument: table_info('plans')...), no ATTACH
 * or DETACH. Writes are refused by sqlite3_stmt_readonly as well. */
static int read_only_auth(void *ud, int action, const char *a, const char *b,
                          const char *db, const char *trigger)
{
    static const char *const readers[] = {
        "table_info",      "table_xinfo", "index_list",
        "index_info",      "index_xinfo", "foreign_key_list",
        "integrity_check", "quick_check", NULL};

    (void)ud;
    (void)db;
    (void)trigger;
    if (action == SQLITE_ATTACH || action == SQLITE_DETACH)
        return SQLITE_DENY;
    if (action == SQLITE_PRAGMA && b != NULL) {
        for (int i = 0; readers[i]; i++)
            if (a && sqlite3_stricmp(a, readers[i]) == 0)
                return SQLITE_OK;
        return SQLITE_DENY;
    }
    return SQLITE_OK;
}

/* A run killed in the middle of a commit leaves a hot journal beside the
 * file: the last transaction, to be rolled back before anyone reads. A
 * read-only connection cannot (SQLITE_READONLY_ROLLBACK), so open it once
 * read-write, which rolls the journal back, as any SQLite writer would. */
static int roll_back_journal(const char *path, tplan_err *err)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);

    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", NULL, NULL,
                          NULL);
    sqlite3_close_v2(db);
    if (rc != SQLITE_OK)
        return tplan_err_set(err, TPLAN_EINVAL, "db",
                             "%s has an unfinished write from a run that "
                             "was stopped (%s-journal): tplan needs write "
                             "access to roll it back",
                             path, path);
    return TPLAN_OK;
}

/* Which plan fields the file's plans table lacks (s->missing). */
static int read_columns(tplan_store *s, tplan_err *err)
{
    sqlite3_stmt *st;
    int rc;

    for (int i = 0; i < tplan_field_count(); i++)
        s->missing[i] = 1;
    if (sqlite3_prepare_v2(s->db, "SELECT name FROM pragma_table_info('plans')",
                           -1, &st, NULL) != SQLITE_OK)
        return tplan_store_db_error(err, s, "cannot read the columns of");
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int id = tplan_field_find((const char *)sqlite3_column_text(st, 0));

        if (id >= 0)
            s->missing[id] = 0;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return tplan_store_db_error(err, s, "cannot read the columns of");
    s->sweep_spec = false;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT count(*) FROM pragma_table_info('sweeps') "
                           "WHERE name IN ('axes', 'fits_first')",
                           -1, &st, NULL) != SQLITE_OK)
        return tplan_store_db_error(err, s, "cannot read the columns of");
    if ((rc = sqlite3_step(st)) == SQLITE_ROW)
        s->sweep_spec = sqlite3_column_int(st, 0) == 2;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return tplan_store_db_error(err, s, "cannot read the columns of");
    return TPLAN_OK;
}

const char *tplan_store_sweep_spec_cols(const tplan_store *s)
{
    return s->sweep_spec ? "axes, fits_first"
                         : "NULL AS axes, NULL AS fits_first";
}

double tplan_cell_number(const tplan_cell *c)
{
    return c->type == TPLAN_CELL_INT    ? (double)c->i
           : c->type == TPLAN_CELL_REAL ? c->r
                                        : (double)NAN;
}

int64_t tplan_store_host_bytes(const tplan_cell *c)
{
    return c->type == TPLAN_CELL_REAL
               ? llround(c->r * 1024.0 * 1024.0 * 1024.0)
               : 0;
}

bool tplan_list_next(const char **p, char *name, size_t len)
{
    const char *end;
    size_t n;

    if (!*p || !**p)
        return false;
    end = strchr(*p, ',');
    n = end ? (size_t)(end - *p) : strlen(*p);
    snprintf(name, len, "%.*s", (int)n, *p);
    *p += n + (end ? 1 : 0);
    return true;
}

bool tplan_list_has(const char *list, const char *name)
{
    char item[128];

    while (tplan_list_next(&list, item, sizeof item))
        if (strcmp(item, name) == 0)
            return true;
    return false;
}

bool tplan_store_plan_select(tplan_store *s, const char *prefix,
                             const char *first, char *out, size_t len)
{
    size_t n = strlen(out);

    /* pass 0: the fields first names, in the table's order; pass 1: the
     * others */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < tplan_field_count() && n < len; i++) {
            const char *name = tplan_field_at(i)->name;

            if (tplan_list_has(first, name) != (pass == 0))
                continue;
            if (!s->missing[i])
                n += (size_t)snprintf(out + n, len - n, ", %s%s", prefix,
                                      name);
            else
                n += (size_t)snprintf(out + n, len - n, ", NULL AS %s",
                                      name);
        }
    return n < len;
}

/* The plans table's definition, from the field table. */
static int create_plans(tplan_store *s, tplan_err *err)
{
    char sql[8192];
    size_t n = (size_t)snprintf(sql, sizeof sql,
                                "CREATE TABLE plans (sweep_id REFERENCES "
                                "sweeps(id), rank, config_index, pareto, "
                                "score, key1, key2, key3, key4");

    for (int i = 0; i < tplan_field_count() && n < sizeof sql; i++)
        n += (size_t)snprintf(sql + n, sizeof sql - n, ", %s",
                              tplan_field_at(i)->name);
    if (n + 2 >= sizeof sql)
        return tplan_err_set(err, TPLAN_EINVAL, "db",
                             "the plans table is too wide to create");
    memcpy(sql + n, ")", 2);
    return tplan_store_exec(s, sql, err);
}

/* A file opened for writing gains a plans column for every field it
 * lacks (a schema 1 file: the inputs; a file of an older build: the
 * fields added since), at the table's end, and the sweeps columns of
 * schema 3, and says schema 3, in one transaction: a file is either
 * upgraded whole or untouched. */
static int upgrade(tplan_store *s, tplan_err *err)
{
    char sql[160], pragma[64];
    bool need = s->version < TPLAN_SCHEMA_VERSION;
    int rc;

    if ((rc = read_columns(s, err)))
        return rc;
    for (int i = 0; i < tplan_field_count(); i++)
        need = need || s->missing[i];
    need = need || !s->sweep_spec;
    if (!need)
        return TPLAN_OK;
    if ((rc = tplan_store_exec(s, "BEGIN IMMEDIATE", err)))
        return rc;
    if ((rc = read_columns(s, err))) /* again, under the write lock */
        goto fail;
    for (int i = 0; i < tplan_field_count(); i++) {
        if (!s->missing[i])
            continue;
        snprintf(sql, sizeof sql, "ALTER TABLE plans ADD COLUMN %s",
                 tplan_field_at(i)->name);
        if ((rc = tplan_store_exec(s, sql, err)))
            goto fail;
    }
    if (!s->sweep_spec &&
        ((rc = tplan_store_exec(s, "ALTER TABLE sweeps ADD COLUMN axes",
                                err)) ||
         (rc = tplan_store_exec(s, "ALTER TABLE sweeps ADD COLUMN fits_first",
                                err))))
        goto fail;
    snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d",
             TPLAN_SCHEMA_VERSION);
    if ((rc = tplan_store_exec(s, pragma, err)) ||
        (rc = tplan_store_exec(s, "COMMIT", err)))
        goto fail;
    s->version = TPLAN_SCHEMA_VERSION;
    return read_columns(s, err);
fail:
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

tplan_store *tplan_store_open_ro(const char *path, tplan_err *err)
{
    tplan_store *s = open_db(path, SQLITE_OPEN_READONLY, NULL, err);
    int empty, rc;

    if (!s)
        return NULL;
    s->read_only = true;
    sqlite3_set_authorizer(s->db, read_only_auth, NULL);
    rc = check(s, &empty, err);
    if (rc && sqlite3_extended_errcode(s->db) == SQLITE_READONLY_ROLLBACK) {
        tplan_store_close(s);
        if (roll_back_journal(path, err) ||
            !(s = open_db(path, SQLITE_OPEN_READONLY, NULL, err)))
            return NULL;
        s->read_only = true;
        sqlite3_set_authorizer(s->db, read_only_auth, NULL);
        rc = check(s, &empty, err);
    }
    if (rc) {
        tplan_store_close(s);
        return NULL;
    }
    if (empty) {
        tplan_err_set(err, TPLAN_EINVAL, "db",
                      "%s is not a tplan result database (it is empty)", path);
        tplan_store_close(s);
        return NULL;
    }
    if (read_columns(s, err)) {
        tplan_store_close(s);
        return NULL;
    }
    return s;
}

tplan_store *tplan_store_open(const char *path, tplan_err *err)
{
    tplan_store *s;

    /* a database is a file it rewrites in place: the process's own
     * streams (/dev/stdout >> log) are refused, not written (issue 36) */
    if (tplan_path_fd(path) >= 0) {
        tplan_err_set(err, TPLAN_EINVAL, "db",
                      "%.200s is one of this process's streams: a "
                      "database must be a file (--csv writes to a stream)",
                      path);
        return NULL;
    }
    /* SQLite writes NAME-journal beside it: a name that leaves no room
     * for the suffix made a file and then failed with "unable to open
     * database file" (issue 36); NAME_MAX is 255 on Linux file systems */
    {
        const char *base = strrchr(path, '/');
        size_t n = strlen(base ? base + 1 : path);

        if (n + strlen("-journal") > 255) {
            tplan_err_set(err, TPLAN_EINVAL, "db",
                          "%.40s...: a name of %zu bytes leaves no room for "
                          "SQLite's journal beside it (NAME-journal, 255 "
                          "bytes at most): give a name of at most 247 bytes",
                          base ? base + 1 : path, n);
            return NULL;
        }
    }
    /* pages are written on an I/O thread (async_vfs.c) */
    s = open_db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                             tplan_async_vfs(), err);
    /* A small page cache (4 MiB: 64 pages of 64 KiB, the I/O queue's
     * size): SQLite then spills the pages a batch fills while it goes,
     * and the I/O thread writes them while the writer encodes the next
     * rows. With a cache that held a whole 50,000-row batch (64 MiB)
     * every page was written in one burst at COMMIT, with the writer
     * waiting on it (bench_store, interleaved runs: +8% on a quiet host,
     * +30% on a loaded one; docs/benchmarks.md). New pages are spilled first and
     * need no journal sync, so spilling adds no fsync. */
    static const char tune[] = "PRAGMA cache_size = -4096";
    int empty;
    char pragma[96];

    if (!s)
        return NULL;
    /* SQLite opens a file it cannot write read-only without a word: say
     * so now, not after the sweep */
    if (sqlite3_db_readonly(s->db, "main") == 1) {
        tplan_err_set(err, TPLAN_EIO, "db",
                      "cannot write to %s: the file or its file system is "
                      "read-only",
                      path);
        goto fail;
    }
    if (check(s, &empty, err))
        goto fail;
    if (empty) {
        /* the schema and the marks in one transaction: a file is either
         * a complete empty tplan database or untouched. Checked again
         * under the write lock: two runs may create one file at once
         * (shards sharing a --db), and the second must find the first's
         * schema instead of failing on it. */
        snprintf(pragma, sizeof pragma,
                 "PRAGMA application_id = %d; PRAGMA user_version = %d;",
                 TPLAN_APPLICATION_ID, TPLAN_SCHEMA_VERSION);
        /* 64 KiB pages for a new file (SQLite's largest): a million
         * plan rows write ~2x faster than with 4 KiB pages, fewer pages
         * to encode and write (bench_store, docs/benchmarks.md); tiny databases grow
         * to a few hundred KiB. Ignored when another run created it. */
        if (tplan_store_exec(s, "PRAGMA page_size = 65536", err))
            goto fail;

        if (tplan_store_exec(s, "BEGIN IMMEDIATE", err))
            goto fail;
        if (check(s, &empty, err)) {
            sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
            goto fail;
        }
        if ((empty && (create_plans(s, err) ||
                       tplan_store_exec(s, (const char *)schema_sql, err) ||
                       tplan_store_exec(s, pragma, err))) ||
            tplan_store_exec(s, "COMMIT", err)) {
            sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
            goto fail;
        }
    }
    if (empty)
        s->version = TPLAN_SCHEMA_VERSION; /* made just now */
    if (upgrade(s, err) || tplan_store_exec(s, tune, err) ||
        tplan_store_writer_prepare(s, err))
        goto fail;
    return s;
fail:
    tplan_store_close(s);
    return NULL;
}

int tplan_store_sweep_begin(tplan_store *s, const tplan_sweep_meta *m,
                            int64_t *id, tplan_err *err)
{
    static const char sql[] =
        "INSERT INTO sweeps (name, script, script_sha256, args, "
        "engine_version, sweep_key, ordinal, shard, shards, rank_by, keep, "
        "space, axes, fits_first, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, "
        "?, ?, ?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))";
    sqlite3_stmt *st;
    int rc;

    if ((rc = tplan_store_writer_stop(s, true, err)))
        return rc;
    /* the sweep row and every plan row in one transaction, committed by
     * tplan_store_sweep_finish: a write that fails, is interrupted or is
     * killed leaves the file as it was (a killed one by its journal,
     * rolled back by the next open) */
    if (!s->in_tx) {
        if ((rc = tplan_store_exec(s, "BEGIN IMMEDIATE", err)))
            return rc;
        s->in_tx = s->sweep_tx = true;
    }
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return tplan_store_db_error(err, s, "cannot write to");
    sqlite3_bind_text(st, 1, m->name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, m->script, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, m->script_sha256, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, m->args, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 5, TPLAN_VERSION, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, m->sweep_key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 7, m->ordinal);
    sqlite3_bind_int64(st, 8, m->shard);
    sqlite3_bind_int64(st, 9, m->shards);
    sqlite3_bind_text(st, 10, m->rank_by, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 11, m->keep, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 12, m->space);
    sqlite3_bind_text(st, 13, m->axes, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 14, !m->mix_unfit);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return tplan_store_db_error(err, s, "cannot write to");
    *id = sqlite3_last_insert_rowid(s->db);
    return TPLAN_OK;
}

int tplan_store_sweep_finish(tplan_store *s, int64_t id,
                             const tplan_sweep_stats *stt, int64_t kept,
                             tplan_err *err)
{
    static const char sql[] =
        "UPDATE sweeps SET visited = ?, invalid = ?, evaluated = ?, "
        "passed = ?, kept = ?, interrupted = ?, completed = ?, "
        "finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?";
    sqlite3_stmt *st;
    int rc;

    if ((rc = tplan_store_writer_stop(s, true, err)))
        return rc;
    if (!s->in_tx) {
        if ((rc = tplan_store_exec(s, "BEGIN IMMEDIATE", err)))
            return rc;
        s->in_tx = true;
    }
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return tplan_store_db_error(err, s, "cannot write to");
    sqlite3_bind_int64(st, 1, stt->visited);
    sqlite3_bind_int64(st, 2, stt->invalid);
    sqlite3_bind_int64(st, 3, stt->evaluated);
    sqlite3_bind_int64(st, 4, stt->passed);
    sqlite3_bind_int64(st, 5, kept);
    sqlite3_bind_int(st, 6, stt->interrupted);
    sqlite3_bind_int(st, 7, !stt->interrupted);
    sqlite3_bind_int64(st, 8, id);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return tplan_store_db_error(err, s, "cannot write to");
    if (s->hold_tx)
        return TPLAN_OK; /* the caller's transaction (merge) */
    if ((rc = tplan_store_exec(s, "COMMIT", err)))
        return rc;
    s->in_tx = s->sweep_tx = false;
    return TPLAN_OK;
}

void tplan_store_abort(tplan_store *s)
{
    if (s)
        tplan_store_writer_stop(s, false, NULL);
    if (s && s->in_tx) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        /* After a failed write (a full disk) SQLite's pager is in its
         * error state and leaves the journal: the next read transaction
         * rolls it back (SQLite's pager.c, PAGER_ERROR). Start one now,
         * so the file is left without a hot journal whenever the disk
         * lets the rollback write. */
        sqlite3_exec(s->db, "SELECT count(*) FROM sqlite_master", NULL, NULL,
                     NULL);
        s->in_tx = false;
    }
    if (s)
        s->sweep_tx = false;
}

/* A text value with NUL bytes inside (SQL can make one: char(0)) would be
 * cut at the first: each NUL is shown as the two characters \0 in a copy
 * that lives until the row's callback returns. */
static int show_nul(tplan_cell *c, int bytes, char **copy, tplan_err *err)
{
    size_t n = bytes > 0 ? (size_t)bytes : 0, k = 0;

    if (!memchr(c->s, 0, n))
        return TPLAN_OK;
    if (!(*copy = malloc(2 * n + 1)))
        return tplan_err_set(err, TPLAN_ENOMEM, "sql", "out of memory");
    for (size_t i = 0; i < n; i++) {
        if (c->s[i]) {
            (*copy)[k++] = c->s[i];
        } else {
            (*copy)[k++] = '\\';
            (*copy)[k++] = '0';
        }
    }
    (*copy)[k] = '\0';
    c->s = *copy;
    return TPLAN_OK;
}

int tplan_store_query(tplan_store *s, const char *sql, const tplan_cell *params,
                      int nparams, tplan_row_fn fn, void *ud, tplan_err *err)
{
    sqlite3_stmt *st;
    const char *tail = NULL;
    const char **names = NULL;
    tplan_cell *row = NULL;
    char **shown = NULL; /* copies of text with NUL bytes, per column */
    int n, rc = TPLAN_OK, step;

    if ((rc = tplan_store_writer_stop(s, true, err)))
        return rc;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, &tail) != SQLITE_OK)
        return tplan_err_set(err, TPLAN_EINVAL, "sql", "%s",
                             sqlite3_errmsg(s->db));
    if (!st)
        return tplan_err_set(err, TPLAN_EINVAL, "sql", "empty SQL statement");
    while (tail && (*tail == ' ' || *tail == '\n' || *tail == '\t' ||
                    *tail == '\r' || *tail == ';'))
        tail++;
    if (tail && *tail) {
        sqlite3_finalize(st);
        return tplan_err_set(err, TPLAN_EINVAL, "sql",
                             "one SQL statement at a time (more after: "
                             "%.40s)",
                             tail);
    }
    if (s->read_only && !sqlite3_stmt_readonly(st)) {
        sqlite3_finalize(st);
        return tplan_err_set(err, TPLAN_EINVAL, "sql",
                             "the database is open read-only: this statement "
                             "would write");
    }
    if (nparams != sqlite3_bind_parameter_count(st)) {
        int want = sqlite3_bind_parameter_count(st);

        sqlite3_finalize(st);
        return tplan_err_set(err, TPLAN_EINVAL, "sql",
                             "the statement takes %d parameters, %d given",
                             want, nparams);
    }
    for (int i = 0; i < nparams; i++) {
        const tplan_cell *c = &params[i];

        if (c->type == TPLAN_CELL_INT)
            sqlite3_bind_int64(st, i + 1, c->i);
        else if (c->type == TPLAN_CELL_REAL)
            sqlite3_bind_double(st, i + 1, c->r);
        else if (c->type == TPLAN_CELL_TEXT)
            sqlite3_bind_text(st, i + 1, c->s, -1, SQLITE_TRANSIENT);
        else
            sqlite3_bind_null(st, i + 1);
    }
    n = sqlite3_column_count(st);
    names = malloc(sizeof *names * (size_t)(n ? n : 1));
    row = malloc(sizeof *row * (size_t)(n ? n : 1));
    shown = calloc((size_t)(n ? n : 1), sizeof *shown);
    if (!names || !row || !shown) {
        rc = tplan_err_set(err, TPLAN_ENOMEM, "sql", "out of memory");
        goto done;
    }
    for (int i = 0; i < n; i++)
        names[i] = sqlite3_column_name(st, i);
    if ((rc = fn(ud, n, names, NULL)))
        goto done;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        for (int i = 0; i < n; i++) {
            tplan_cell *c = &row[i];

            switch (sqlite3_column_type(st, i)) {
            case SQLITE_INTEGER:
                c->type = TPLAN_CELL_INT;
                c->i = sqlite3_column_int64(st, i);
                break;
            case SQLITE_FLOAT:
                c->type = TPLAN_CELL_REAL;
                c->r = sqlite3_column_double(st, i);
                break;
            case SQLITE_NULL:
                c->type = TPLAN_CELL_NULL;
                break;
            default: /* text; blobs shown as text */
                c->type = TPLAN_CELL_TEXT;
                c->s = (const char *)sqlite3_column_text(st, i);
                if (!c->s)
                    c->s = "";
                else if ((rc = show_nul(c, sqlite3_column_bytes(st, i),
                                        &shown[i], err)))
                    goto done;
                break;
            }
        }
        rc = fn(ud, n, names, row);
        for (int i = 0; i < n; i++) {
            free(shown[i]);
            shown[i] = NULL;
        }
        if (rc)
            goto done;
    }
    if (step != SQLITE_DONE)
        rc = tplan_err_set(err, TPLAN_EINVAL, "sql", "%s",
                           sqlite3_errmsg(s->db));
done:
    for (int i = 0; shown && i < n; i++)
        free(shown[i]);
    free(shown);
    free(names);
    free(row);
    sqlite3_finalize(st);
    return rc;
}
