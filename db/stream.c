/* Streaming a sweep's kept plans into the run's outputs (stream.h). */
#include "stream.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A ranked plan by configuration index: what the sink looks up. */
typedef struct ranked_at {
    int64_t index;
    int64_t rank; /* 1 = best; 0: on the front only */
} ranked_at;

struct tplan_stream {
    tplan_store *db;
    tplan_csv *csv;
    int64_t id; /* the sweep's row in db */
    char name[256];
    const tplan_sweep_spec *spec;
    bool has_score;
    ranked_at *top; /* the best plans, sorted by index */
    int n_top;
    tplan_ranked *front; /* the front, sorted by index */
    int n_front;
    int64_t rows, csv_rows;
    bool failed;
    tplan_err err; /* the first write failure */
};

static int by_index(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

    return (a > b) - (a < b);
}

static void stream_free(tplan_stream *st)
{
    if (!st)
        return;
    free(st->top);
    free(st->front);
    free(st);
}

tplan_stream *tplan_stream_begin(tplan_store *db, tplan_csv *csv,
                                 const tplan_sweep_meta *m,
                                 const tplan_sweep_result *first,
                                 tplan_err *err)
{
    tplan_stream *st = calloc(1, sizeof *st);
    int n_top = (int)first->n_kept; /* the first walk's best, up to ranked */
    int n_front = (int)first->n_front;

    if (!st || (n_top > 0 && !(st->top = malloc(sizeof *st->top * n_top))) ||
        (n_front > 0 &&
         !(st->front = malloc(sizeof *st->front * (size_t)n_front)))) {
        stream_free(st);
        tplan_err_set(err, TPLAN_ENOMEM, "stream", "out of memory");
        return NULL;
    }
    st->db = db;
    st->csv = csv;
    st->spec = first->spec;
    st->has_score = first->has_score;
    snprintf(st->name, sizeof st->name, "%s", m->name);
    for (int i = 0; i < n_top; i++)
        st->top[i] = (ranked_at){first->kept[i].index, i + 1};
    if (n_top > 1)
        qsort(st->top, (size_t)n_top, sizeof *st->top, by_index);
    st->n_top = n_top;
    if (n_front > 0)
        memcpy(st->front, first->front, sizeof *st->front * (size_t)n_front);
    if (n_front > 1)
        qsort(st->front, (size_t)n_front, sizeof *st->front, by_index);
    st->n_front = n_front;
    if (db && tplan_store_sweep_begin(db, m, &st->id, err)) {
        tplan_store_abort(db);
        stream_free(st);
        return NULL;
    }
    return st;
}

/* The plan's rank among the first walk's best (0: none). */
static int64_t rank_of(const tplan_stream *st, int64_t index)
{
    const ranked_at *r = st->n_top ? bsearch(&index, st->top,
                                             (size_t)st->n_top,
                                             sizeof *st->top, by_index)
                                   : NULL;

    return r ? r->rank : 0;
}

int tplan_stream_prep(void *ud, int64_t index, const tplan_plan *p,
                      double score, void **slot)
{
    tplan_stream *st = ud;
    tplan_csv_rowbuf *b = *slot;

    (void)score;
    if (!st->csv)
        return 0;
    if (!b && !(*slot = b = calloc(1, sizeof *b)))
        return 1;
    b->n = 0;
    /* out of memory: the sink formats the row itself (b->bad) */
    (void)tplan_csv_format_row(b, st->name, rank_of(st, index), p);
    return 0;
}

void tplan_stream_prep_free(void *slot)
{
    tplan_csv_rowbuf_free(slot);
    free(slot);
}

int tplan_stream_sink(void *ud, int64_t index, const tplan_plan *p,
                      double score, void *prep)
{
    tplan_stream *st = ud;
    const tplan_csv_rowbuf *b = prep;
    bool pareto = st->n_front && bsearch(&index, st->front,
                                         (size_t)st->n_front,
                                         sizeof *st->front, by_index);
    int64_t rank = rank_of(st, index);
    double key[TPLAN_MAX_OBJECTIVES];
    int rc = TPLAN_OK;

    if (st->failed)
        return 1;
    tplan_rank_keys(st->spec->rank, st->spec->n_rank, p, score, key);
    if (st->db)
        rc = tplan_store_plan(st->db, st->id, rank, index, pareto,
                              st->has_score ? score : (double)NAN, key,
                              st->spec->n_rank, p, &st->err);
    if (rc == TPLAN_OK && st->csv &&
        (rc = b && !b->bad && b->n > 0
                  ? tplan_csv_put(st->csv, b->s, b->n, &st->err)
                  : tplan_csv_row(st->csv, st->name, rank, p, &st->err)) ==
            TPLAN_OK)
        st->csv_rows++;
    if (rc) {
        st->failed = true;
        return 1;
    }
    st->rows++;
    return 0;
}

/* keep = "fits": the front's plans that do not fit were not kept; the
 * database stores them unranked, as tplan_save_db does. */
static int front_rest(tplan_stream *st, tplan_err *err)
{
    tplan_plan *p;
    int rc = TPLAN_OK;

    if (!st->db || st->spec->keep_mode != TPLAN_KEEP_FITS)
        return TPLAN_OK;
    if (!(p = malloc(sizeof *p)))
        return tplan_err_set(err, TPLAN_ENOMEM, "stream", "out of memory");
    for (int i = 0; i < st->n_front && rc == TPLAN_OK; i++) {
        const tplan_ranked *e = &st->front[i];

        if (e->fits)
            continue;
        rc = tplan_sweep_eval_at(st->spec, &e->index, 1, p, 1,
                                 tplan_sweep_write_flags(st->spec), err);
        if (rc == TPLAN_OK)
            rc = tplan_store_plan(st->db, st->id, 0, e->index, true,
                                  st->has_score ? e->score : (double)NAN,
                                  e->key, st->spec->n_rank, p, err);
        if (rc == TPLAN_OK)
            st->rows++;
    }
    free(p);
    return rc;
}

int tplan_stream_end(tplan_stream *st, const tplan_sweep_stats *stats,
                     bool failed, int64_t *rows, int64_t *csv_rows,
                     tplan_err *err)
{
    int rc = TPLAN_OK;

    *csv_rows = st->csv_rows;
    if (st->failed) {
        if (err)
            *err = st->err;
        rc = st->err.code ? st->err.code : TPLAN_EIO;
    } else if (failed) {
        rc = TPLAN_ESTOP; /* the walk's error is the caller's to say */
    }
    if (rc == TPLAN_OK)
        rc = front_rest(st, err);
    if (rc == TPLAN_OK && st->db)
        rc = tplan_store_sweep_finish(st->db, st->id, stats, stats->kept,
                                      err);
    if (rc && st->db)
        tplan_store_abort(st->db);
    *rows = rc == TPLAN_OK ? st->rows : 0;
    stream_free(st);
    return rc;
}
