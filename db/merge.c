/* tplan merge. Sweep rows are grouped by sweep_key; a group must hold
 * shards 0..N-1 of one N exactly once, all completed. Its kept plans are
 * re-ranked on the stored keys (key1..key4, the engine's own comparison,
 * ties by configuration index) and cut to `keep`; its Pareto front is the
 * front of the shards' fronts (a plan dominated anywhere is dominated in
 * the union). Every check runs before anything is written, and the
 * writes go in one transaction. */
#include "merge.h"

#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fields.h"
#include "paths.h"
#include "rank.h"
#include "store.h"
#include "store_int.h"

typedef struct shard_row {
    int input;
    int64_t id, shard, shards, ordinal, space;
    int64_t visited, invalid, evaluated, passed;
    int completed, interrupted;
    char name[128], key[65], rank_by[128], keep[24], axes[640];
    bool mix_unfit; /* fits_first 0 (NULL, an older row: fits first) */
    char script[512], sha[65], args[1024];
    char started[40], finished[40];
    int group; /* index into groups */
} shard_row;

typedef struct cand {
    tplan_ranked r;
    int input;
    int64_t sweep_id;
    bool ranked, pareto;
} cand;

typedef struct merge_ctx {
    tplan_store **in;
    int n_in;
    const char *const *paths;
    shard_row *rows;
    int n_rows, cap_rows;
    cand *cands;
    int64_t n_cands, cap_cands;
    int current_input;
    int64_t current_sweep;
    bool keep_all, keep_fits; /* the current sweep's keep */
    bool mix_unfit;           /* and its fits_first = false */
    int64_t set_aside; /* rows of reruns left out */
    tplan_err *err;
} merge_ctx;

static void copy_text(char *dst, size_t len, const tplan_cell *c)
{
    snprintf(dst, len, "%s", c->type == TPLAN_CELL_TEXT ? c->s : "");
}

static int64_t cell_int(const tplan_cell *c)
{
    return c->type == TPLAN_CELL_INT ? c->i : 0;
}

static int read_sweep(void *ud, int ncols, const char *const *names,
                      const tplan_cell *c)
{
    merge_ctx *m = ud;
    shard_row *r;

    (void)ncols;
    (void)names;
    if (!c)
        return 0;
    if (m->n_rows == m->cap_rows) {
        int cap = m->cap_rows ? m->cap_rows * 2 : 16;
        shard_row *g = realloc(m->rows, sizeof *g * (size_t)cap);

        if (!g)
            return tplan_err_set(m->err, TPLAN_ENOMEM, "merge",
                                 "out of memory");
        m->rows = g;
        m->cap_rows = cap;
    }
    r = &m->rows[m->n_rows++];
    memset(r, 0, sizeof *r);
    r->input = m->current_input;
    r->id = cell_int(&c[0]);
    copy_text(r->name, sizeof r->name, &c[1]);
    copy_text(r->key, sizeof r->key, &c[2]);
    r->ordinal = cell_int(&c[3]);
    r->shard = cell_int(&c[4]);
    r->shards = cell_int(&c[5]);
    copy_text(r->rank_by, sizeof r->rank_by, &c[6]);
    copy_text(r->keep, sizeof r->keep, &c[7]);
    r->space = cell_int(&c[8]);
    r->visited = cell_int(&c[9]);
    r->invalid = cell_int(&c[10]);
    r->evaluated = cell_int(&c[11]);
    r->passed = cell_int(&c[12]);
    r->completed = (int)cell_int(&c[13]);
    r->interrupted = (int)cell_int(&c[14]);
    copy_text(r->script, sizeof r->script, &c[15]);
    copy_text(r->sha, sizeof r->sha, &c[16]);
    copy_text(r->args, sizeof r->args, &c[17]);
    copy_text(r->started, sizeof r->started, &c[18]);
    copy_text(r->finished, sizeof r->finished, &c[19]);
    copy_text(r->axes, sizeof r->axes, &c[20]);
    r->mix_unfit = c[21].type == TPLAN_CELL_INT && c[21].i == 0;
    return 0;
}

static int read_cand(void *ud, int ncols, const char *const *names,
                     const tplan_cell *c)
{
    merge_ctx *m = ud;
    cand *k;

    (void)ncols;
    (void)names;
    if (!c)
        return 0;
    if (m->n_cands == m->cap_cands) {
        int64_t cap = m->cap_cands ? m->cap_cands * 2 : 1024;
        cand *g = realloc(m->cands, sizeof *g * (size_t)cap);

        if (!g)
            return tplan_err_set(m->err, TPLAN_ENOMEM, "merge",
                                 "out of memory");
        m->cands = g;
        m->cap_cands = cap;
    }
    k = &m->cands[m->n_cands++];
    memset(k, 0, sizeof *k);
    k->r.index = cell_int(&c[0]);
    for (int i = 0; i < 4; i++)
        k->r.key[i] = c[1 + i].type == TPLAN_CELL_REAL  ? c[1 + i].r
                      : c[1 + i].type == TPLAN_CELL_INT ? (double)c[1 + i].i
                                                        : (double)NAN;
    /* a kept plan has a rank, or was streamed past the ranked ones
     * (stream.h): under keep = "all" every row is kept, under "fits"
     * every row that fits; the rest are front plans that were not kept */
    k->ranked = c[5].type != TPLAN_CELL_NULL || m->keep_all ||
                (m->keep_fits && cell_int(&c[7]) != 0);
    k->pareto = cell_int(&c[6]) != 0;
    /* the standing the engine gave it (rank.c), from the same figures */
    k->r.fits = cell_int(&c[7]) != 0;
    tplan_ranked_standing(
        &k->r, !m->mix_unfit,
        tplan_rank_over(cell_int(&c[8]), cell_int(&c[9]), cell_int(&c[10]),
                        tplan_store_host_bytes(&c[11])));
    k->input = m->current_input;
    k->sweep_id = m->current_sweep;
    return 0;
}

/* The SELECT of an input's sweep rows (read_sweep's columns). */
static const char *sweeps_sql(const tplan_store *in, char *sql, size_t len)
{
    snprintf(sql, len,
             "SELECT id, name, sweep_key, ordinal, shard, shards, rank_by, "
             "keep, space, visited, invalid, evaluated, passed, completed, "
             "interrupted, script, script_sha256, args, started_at, "
             "finished_at, %s FROM sweeps ORDER BY id",
             tplan_store_sweep_spec_cols(in));
    return sql;
}

/* The SELECT of an input's candidates: what the ranking reads (NULL for
 * a column an older file lacks). */
static void cand_sql(const tplan_store *in, char *sql, size_t len)
{
    static const char *const cols[] = {"fits", "total_bytes", "usable_bytes",
                                       "host_bytes", "host_memory_gib"};
    size_t n = (size_t)snprintf(sql, len, "SELECT config_index, key1, key2, "
                                          "key3, key4, rank, pareto");

    for (int i = 0; i < 5 && n < len; i++) {
        int id = tplan_field_find(cols[i]);

        n += (size_t)snprintf(sql + n, len - n, ", %s",
                              id >= 0 && !in->missing[id] ? cols[i] : "NULL");
    }
    if (n < len)
        snprintf(sql + n, len - n, " FROM plans WHERE sweep_id = ?1");
}

/* ---- checks ---------------------------------------------------------------
 */

/* A shard run again into the same file (after a kill, or a whole script
 * run twice) leaves more than one row for a (sweep key, shard): the
 * completed one wins, the latest among those; the others are set aside
 * (group -2) and counted. Rows from different files are not deduplicated:
 * the same shard in two inputs is an error. */
static void set_aside_reruns(merge_ctx *m)
{
    for (int i = 0; i < m->n_rows; i++) {
        shard_row *r = &m->rows[i];

        for (int j = 0; j < m->n_rows && r->group != -2; j++) {
            const shard_row *o = &m->rows[j];

            if (j == i || o->group == -2 || o->input != r->input ||
                o->shard != r->shard || o->shards != r->shards ||
                strcmp(o->key, r->key) != 0)
                continue;
            /* r loses to o: o completed and r not, or both alike and o
             * later */
            if ((o->completed && !r->completed) ||
                (o->completed == r->completed && o->id > r->id)) {
                r->group = -2;
                m->set_aside++;
            }
        }
    }
}

static int group_rows(merge_ctx *m, int *n_groups, tplan_err *err)
{
    int g = 0;

    for (int i = 0; i < m->n_rows; i++)
        m->rows[i].group = -1;
    set_aside_reruns(m);
    for (int i = 0; i < m->n_rows; i++) {
        shard_row *r = &m->rows[i];

        if (r->group != -1)
            continue;
        r->group = g;
        for (int j = i + 1; j < m->n_rows; j++)
            if (m->rows[j].group == -1 && strcmp(m->rows[j].key, r->key) == 0)
                m->rows[j].group = g;
        g++;
    }
    *n_groups = g;
    for (int k = 0; k < g; k++) {
        const shard_row *first = NULL;
        int64_t have = 0;
        unsigned char *seen;

        for (int i = 0; i < m->n_rows; i++) {
            const shard_row *r = &m->rows[i];

            if (r->group != k)
                continue;
            if (!first)
                first = r;
            if (!r->completed)
                return tplan_err_set(err, TPLAN_EINVAL, "merge",
                                     "sweep '%s' (shard %lld/%lld) in %s did "
                                     "not complete; rerun that shard",
                                     r->name, (long long)r->shard,
                                     (long long)r->shards, m->paths[r->input]);
            if (r->shards != first->shards)
                return tplan_err_set(err, TPLAN_EINVAL, "merge",
                                     "sweep '%s' was split %lld ways in %s "
                                     "and %lld ways in %s",
                                     r->name, (long long)first->shards,
                                     m->paths[first->input],
                                     (long long)r->shards, m->paths[r->input]);
        }
        if (!(seen = calloc((size_t)first->shards, 1)))
            return tplan_err_set(err, TPLAN_ENOMEM, "merge", "out of memory");
        for (int i = 0; i < m->n_rows; i++) {
            const shard_row *r = &m->rows[i];

            if (r->group != k)
                continue;
            if (r->shard < 0 || r->shard >= r->shards || seen[r->shard]) {
                free(seen);
                return tplan_err_set(err, TPLAN_EINVAL, "merge",
                                     "shard %lld/%lld of sweep '%s' appears "
                                     "twice (again in %s)",
                                     (long long)r->shard, (long long)r->shards,
                                     r->name, m->paths[r->input]);
            }
            seen[r->shard] = 1;
            have++;
        }
        free(seen);
        if (have != first->shards) {
            /* the usual cause: shards of different sweeps */
            for (int i = 0; i < m->n_rows; i++) {
                const shard_row *r = &m->rows[i];

                if (r->group != k && strcmp(r->name, first->name) == 0 &&
                    r->ordinal == first->ordinal)
                    return tplan_err_set(
                        err, TPLAN_EINVAL, "merge",
                        "shards of different sweeps: '%s' in %s and in %s "
                        "differ in script, arguments or space",
                        first->name, m->paths[first->input],
                        m->paths[r->input]);
            }
            return tplan_err_set(err, TPLAN_EINVAL, "merge",
                                 "sweep '%s' has %lld of its %lld shards",
                                 first->name, (long long)have,
                                 (long long)first->shards);
        }
    }
    return TPLAN_OK;
}

/* ---- re-ranking ------------------------------------------------------------
 */

static int nobj_of(const char *rank_by)
{
    int n = 1;

    for (const char *p = rank_by; *p; p++)
        n += *p == ',';
    return n > TPLAN_MAX_OBJECTIVES ? TPLAN_MAX_OBJECTIVES : n;
}

typedef struct pick {
    int64_t index;
    int64_t rank; /* 0: none */
    bool pareto;
} pick;

static int pick_cmp(const void *pa, const void *pb)
{
    int64_t a = ((const pick *)pa)->index, b = ((const pick *)pb)->index;

    return (a > b) - (a < b);
}

typedef struct copy_ctx {
    tplan_store *out;
    int64_t sweep_id;
    const pick *picks;
    int64_t n_picks;
    int64_t written;
    tplan_err *err;
} copy_ctx;

/* One input row (rank, config_index, pareto, score, key1..4, fields):
 * written when picked, with its new rank and front flag. */
static int copy_row(void *ud, int ncols, const char *const *names,
                    const tplan_cell *c)
{
    copy_ctx *x = ud;
    sqlite3_stmt *st;
    pick key, *p;

    (void)names;
    if (!c)
        return 0;
    if (!(st = tplan_store_values_insert(x->out, x->err)))
        return TPLAN_EINVAL;
    key.index = cell_int(&c[1]);
    p = bsearch(&key, x->picks, (size_t)x->n_picks, sizeof *p, pick_cmp);
    if (!p)
        return 0;
    sqlite3_bind_int64(st, 1, x->sweep_id);
    if (p->rank > 0)
        sqlite3_bind_int64(st, 2, p->rank);
    else
        sqlite3_bind_null(st, 2);
    sqlite3_bind_int64(st, 3, p->index);
    sqlite3_bind_int(st, 4, p->pareto);
    for (int i = 3; i < ncols; i++) {
        const tplan_cell *v = &c[i];
        int col = i + 2;

        if (v->type == TPLAN_CELL_INT)
            sqlite3_bind_int64(st, col, v->i);
        else if (v->type == TPLAN_CELL_REAL)
            sqlite3_bind_double(st, col, v->r);
        else if (v->type == TPLAN_CELL_TEXT)
            sqlite3_bind_text(st, col, v->s, -1, SQLITE_TRANSIENT);
        else
            sqlite3_bind_null(st, col);
    }
    if (sqlite3_step(st) != SQLITE_DONE) {
        sqlite3_reset(st);
        return tplan_store_db_error(x->err, x->out, "cannot write to");
    }
    sqlite3_reset(st);
    x->written++;
    return 0;
}

/* The SELECT of an input's plan rows in the insert's column order (NULL
 * for the columns a schema 1 input lacks). */
static void select_rows_sql(tplan_store *in, char *sql, size_t len)
{
    size_t n = (size_t)snprintf(sql, len,
                                "SELECT rank, config_index, pareto, score, "
                                "key1, key2, key3, key4");

    sql[n < len ? n : len - 1] = '\0';
    tplan_store_plan_select(in, "", NULL, sql, len);
    n = strlen(sql);
    snprintf(sql + n, len - n, " FROM plans WHERE sweep_id = ?1");
}

static int ignore_rows(void *ud, int ncols, const char *const *names,
                       const tplan_cell *row)
{
    (void)ud;
    (void)ncols;
    (void)names;
    (void)row;
    return 0;
}

/* the first column of the one row, as an integer, into *ud */
static int count_rows(void *ud, int ncols, const char *const *names,
                      const tplan_cell *row)
{
    (void)names;
    if (row && ncols > 0)
        *(int64_t *)ud = row[0].i;
    return 0;
}

static int merge_group(merge_ctx *m, tplan_store *out, int group,
                       tplan_merge_report *rep, tplan_err *err)
{
    const shard_row *first = NULL;
    tplan_sweep_stats total;
    tplan_sweep_meta meta;
    tplan_front front;
    tplan_ranked *fbuf = NULL;
    pick *picks = NULL;
    int64_t n_picks = 0, keep = -1, kept = 0, sweep_id;
    char sql[8192], started[40] = "", finished[40] = "";
    int nobj, rc = TPLAN_OK;

    memset(&total, 0, sizeof total);
    m->n_cands = 0;
    /* a sweep merged into out before (the same sweep_key, started and
     * finished at the same times, completed) is skipped, not doubled */
    for (int i = 0; i < m->n_rows; i++) {
        const shard_row *r = &m->rows[i];

        if (r->group != group)
            continue;
        if (!started[0] || strcmp(r->started, started) < 0)
            snprintf(started, sizeof started, "%s", r->started);
        if (strcmp(r->finished, finished) > 0)
            snprintf(finished, sizeof finished, "%s", r->finished);
        if (!first)
            first = r;
    }
    if (first) {
        tplan_cell same[3] = {{TPLAN_CELL_TEXT, 0, 0, first->key},
                              {TPLAN_CELL_TEXT, 0, 0, started},
                              {TPLAN_CELL_TEXT, 0, 0, finished}};
        int64_t found = 0;

        if ((rc = tplan_store_query(out,
                                    "SELECT count(*) FROM sweeps WHERE "
                                    "sweep_key = ?1 AND started_at = ?2 AND "
                                    "finished_at = ?3 AND completed = 1",
                                    same, 3, count_rows, &found, err)))
            return rc;
        if (found > 0) {
            rep->duplicates++;
            return TPLAN_OK;
        }
    }
    first = NULL;
    for (int i = 0; i < m->n_rows; i++) {
        const shard_row *r = &m->rows[i];
        tplan_cell id = {TPLAN_CELL_INT, r->id, 0, NULL};

        if (r->group != group)
            continue;
        if (!first)
            first = r;
        total.visited += r->visited;
        total.invalid += r->invalid;
        total.evaluated += r->evaluated;
        total.passed += r->passed;
        if (!started[0] || strcmp(r->started, started) < 0)
            snprintf(started, sizeof started, "%s", r->started);
        if (strcmp(r->finished, finished) > 0)
            snprintf(finished, sizeof finished, "%s", r->finished);
        m->current_input = r->input;
        m->current_sweep = r->id;
        m->keep_all = strcmp(r->keep, "all") == 0;
        m->keep_fits = strcmp(r->keep, "fits") == 0;
        m->mix_unfit = r->mix_unfit;
        cand_sql(m->in[r->input], sql, sizeof sql);
        if ((rc = tplan_store_query(m->in[r->input], sql, &id, 1, read_cand,
                                    m, err)))
            return rc;
    }
    total.space = first->space;
    nobj = nobj_of(first->rank_by);
    if (strcmp(first->keep, "fits") != 0 && strcmp(first->keep, "all") != 0)
        keep = strtoll(first->keep, NULL, 10);
    /* the front of the fronts */
    fbuf = malloc(sizeof *fbuf * (size_t)(m->n_cands ? m->n_cands : 1));
    picks = malloc(sizeof *picks * (size_t)(m->n_cands ? m->n_cands : 1));
    if (!fbuf || !picks) {
        rc = tplan_err_set(err, TPLAN_ENOMEM, "merge", "out of memory");
        goto done;
    }
    front.items = fbuf;
    front.cap = (int)(m->n_cands < 2147483647 ? m->n_cands : 2147483647);
    front.n = 0;
    front.nobj = nobj;
    front.truncated = false;
    for (int64_t i = 0; i < m->n_cands; i++)
        if (m->cands[i].pareto)
            tplan_front_push(&front, &m->cands[i].r);
    /* the ranking: the engine's order */
    tplan_ranked_sort_records(m->cands, m->n_cands, sizeof *m->cands,
                              offsetof(cand, r), nobj);
    for (int64_t i = 0; i < m->n_cands; i++) {
        const cand *c = &m->cands[i];
        bool on_front = false;

        for (int f = 0; f < front.n && !on_front; f++)
            on_front = front.items[f].index == c->r.index;
        if (c->ranked && (keep < 0 || kept < keep)) {
            picks[n_picks].index = c->r.index;
            picks[n_picks].rank = ++kept;
            picks[n_picks++].pareto = on_front;
        } else if (on_front) {
            picks[n_picks].index = c->r.index;
            picks[n_picks].rank = 0;
            picks[n_picks++].pareto = true;
        }
    }
    if (n_picks > 1)
        qsort(picks, (size_t)n_picks, sizeof *picks, pick_cmp);

    memset(&meta, 0, sizeof meta);
    meta.name = first->name;
    meta.script = first->script;
    meta.script_sha256 = first->sha;
    meta.args = first->args;
    meta.sweep_key = first->key;
    meta.rank_by = first->rank_by;
    meta.keep = first->keep;
    meta.axes = first->axes[0] ? first->axes : NULL;
    meta.mix_unfit = first->mix_unfit;
    meta.ordinal = first->ordinal;
    meta.shard = 0;
    meta.shards = 1;
    meta.space = first->space;
    if ((rc = tplan_store_sweep_begin(out, &meta, &sweep_id, err)))
        goto done;
    for (int i = 0; i < m->n_rows && rc == TPLAN_OK; i++) {
        const shard_row *r = &m->rows[i];
        tplan_cell id = {TPLAN_CELL_INT, r->id, 0, NULL};
        copy_ctx x = {out, sweep_id, picks, n_picks, 0, err};

        if (r->group != group)
            continue;
        select_rows_sql(m->in[r->input], sql, sizeof sql);
        rc = tplan_store_query(m->in[r->input], sql, &id, 1, copy_row, &x, err);
        rep->plans += x.written;
    }
    if (rc == TPLAN_OK) {
        tplan_cell times[3] = {{TPLAN_CELL_TEXT, 0, 0, started},
                               {TPLAN_CELL_TEXT, 0, 0, finished},
                               {TPLAN_CELL_INT, sweep_id, 0, NULL}};

        total.interrupted = false;
        rc = tplan_store_sweep_finish(out, sweep_id, &total, kept, err);
        /* the merged sweep ran when its shards did */
        if (rc == TPLAN_OK)
            rc = tplan_store_query(out,
                                   "UPDATE sweeps SET started_at = ?1, "
                                   "finished_at = ?2 WHERE id = ?3",
                                   times, 3, ignore_rows, NULL, err);
    }
    rep->sweeps++;
done:
    free(fbuf);
    free(picks);
    return rc;
}

int tplan_merge(const char *out_path, const char *const *paths, int n,
                tplan_merge_report *rep, tplan_err *err)
{
    merge_ctx m;
    tplan_store *out = NULL;
    char sweeps[512];
    int rc = TPLAN_OK, n_groups = 0;
    bool created = false;

    memset(rep, 0, sizeof *rep);
    memset(&m, 0, sizeof m);
    m.paths = paths;
    m.err = err;
    if (n < 1)
        return tplan_err_set(err, TPLAN_EINVAL, "merge",
                             "give at least one input database");
    if (!(m.in = calloc((size_t)n, sizeof *m.in)))
        return tplan_err_set(err, TPLAN_ENOMEM, "merge", "out of memory");
    for (int i = 0; i < n && rc == TPLAN_OK; i++) {
        if (tplan_same_file(paths[i], out_path)) {
            rc = tplan_err_set(err, TPLAN_EINVAL, "merge",
                               "the output %s is also an input", out_path);
            break;
        }
        if (!(m.in[i] = tplan_store_open_ro(paths[i], err))) {
            rc = err->code;
            break;
        }
        m.n_in = i + 1;
        m.current_input = i;
        rc = tplan_store_query(
            m.in[i],
            sweeps_sql(m.in[i], sweeps, sizeof sweeps), NULL, 0, read_sweep,
            &m, err);
    }
    rep->shards = m.n_rows;
    if (rc == TPLAN_OK && m.n_rows == 0)
        rc = tplan_err_set(err, TPLAN_EINVAL, "merge",
                           "the inputs hold no sweeps");
    if (rc == TPLAN_OK)
        rc = group_rows(&m, &n_groups, err);
    rep->reruns = m.set_aside;
    /* A new OUT is removed when the merge fails: "nothing is written".
     * It is made here, exclusively, so that what is removed is the file
     * this merge made, never one another run made meanwhile (a --db
     * run's or another merge's); an empty file is a new database to
     * SQLite, 0644 its default mode (SQLITE_DEFAULT_FILE_PERMISSIONS). */
    if (rc == TPLAN_OK) {
        int fd = open(out_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                      0644);

        if (fd >= 0) {
            created = true;
            close(fd);
        }
        if (!(out = tplan_store_open(out_path, err)))
            rc = err->code;
    }
    /* one transaction: a failed merge leaves out as it was */
    if (rc == TPLAN_OK &&
        (rc = tplan_store_exec(out, "BEGIN IMMEDIATE", err)) == TPLAN_OK)
        out->in_tx = out->hold_tx = true;
    for (int g = 0; g < n_groups && rc == TPLAN_OK; g++)
        rc = merge_group(&m, out, g, rep, err);
    if (out && rc == TPLAN_OK && out->in_tx &&
        (rc = tplan_store_exec(out, "COMMIT", err)) == TPLAN_OK)
        out->in_tx = out->hold_tx = false;
    tplan_store_close(out); /* rolls back what is open */
    /* also when the open itself failed: an interrupt after the new
     * file's schema was committed, in the statements after it, left OUT
     * holding an empty schema */
    if (rc != TPLAN_OK && created)
        unlink(out_path);
    for (int i = 0; i < m.n_in; i++)
        tplan_store_close(m.in[i]);
    free(m.in);
    free(m.rows);
    free(m.cands);
    return rc;
}
