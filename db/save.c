/* A finished sweep into a result database or a CSV file. */
#include "save.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "sha256.h"

void tplan_sweep_describe(const tplan_sweep_result *r, tplan_sweep_meta *m,
                          tplan_sweep_desc *d)
{
    const tplan_sweep_spec *s = r->spec;
    tplan_sha256 h;
    char buf[128];
    size_t n = 0;

    d->rank_by[0] = '\0';
    for (int i = 0; i < s->n_rank; i++)
        n += (size_t)snprintf(d->rank_by + n, sizeof d->rank_by - n, "%s%s",
                              i ? "," : "",
                              tplan_metric_name(s->rank[i].metric));
    d->axes[0] = '\0';
    n = 0;
    for (int i = 0; i < s->n_axes && n < sizeof d->axes; i++)
        if (s->axes[i].n > 1)
            n += (size_t)snprintf(d->axes + n, sizeof d->axes - n, "%s%s",
                                  n ? "," : "",
                                  tplan_field_at(s->axes[i].id)->name);
    if (s->keep_mode == TPLAN_KEEP_TOP)
        snprintf(d->keep, sizeof d->keep, "%lld", (long long)s->keep);
    else
        snprintf(d->keep, sizeof d->keep, "%s",
                 s->keep_mode == TPLAN_KEEP_FITS ? "fits" : "all");
    tplan_sha256_init(&h);
    tplan_sha256_update(&h, "tplan-sweep-1", 14);
    if (m->script_sha256)
        tplan_sha256_update(&h, m->script_sha256,
                            strlen(m->script_sha256) + 1);
    if (m->args)
        tplan_sha256_update(&h, m->args, strlen(m->args) + 1);
    tplan_sha256_update(&h, m->name, strlen(m->name) + 1);
    snprintf(buf, sizeof buf, "%lld/%lld/%d/%d", (long long)m->ordinal,
             (long long)r->stats.space, (int)s->pareto, (int)r->has_score);
    tplan_sha256_update(&h, buf, strlen(buf) + 1);
    tplan_sha256_update(&h, d->rank_by, strlen(d->rank_by) + 1);
    tplan_sha256_update(&h, d->keep, strlen(d->keep) + 1);
    if (s->mix_unfit) /* a fits-first sweep's key is as before */
        tplan_sha256_update(&h, "mix_unfit", 10);
    tplan_sha256_hex(&h, d->key);
    m->rank_by = d->rank_by;
    m->keep = d->keep;
    m->axes = d->axes;
    m->mix_unfit = s->mix_unfit;
    m->sweep_key = d->key;
    m->space = r->stats.space;
}

static int index_cmp(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

    return (a > b) - (a < b);
}

static bool has_index(const int64_t *sorted, int64_t n, int64_t index)
{
    return n > 0 && bsearch(&index, sorted, (size_t)n, sizeof *sorted,
                            index_cmp) != NULL;
}

/* Indexes of n entries, sorted (NULL when n is 0 or memory is short). */
static int64_t *sorted_indexes(const tplan_ranked *e, int64_t n)
{
    int64_t *ix = n > 0 ? malloc(sizeof *ix * (size_t)n) : NULL;

    if (!ix)
        return NULL;
    for (int64_t i = 0; i < n; i++)
        ix[i] = e[i].index;
    qsort(ix, (size_t)n, sizeof *ix, index_cmp);
    return ix;
}

/* Plans evaluated again a chunk at a time: 256 plans of ~5 KiB, 1.4 MiB,
 * malloc'd (never the Lua state's memory). */
#define SAVE_CHUNK 256

typedef struct save_chunk {
    int64_t n;
    const tplan_ranked *e[SAVE_CHUNK];
    int64_t rank[SAVE_CHUNK]; /* 0: a front plan that was not kept */
    bool on_front[SAVE_CHUNK];
    int64_t idx[SAVE_CHUNK];
    tplan_plan plans[SAVE_CHUNK];
} save_chunk;

/* Ask the watch (if any) whether to go on; done < 0: the write ended. */
static int watch_poll(const tplan_save_watch *w, int64_t done, int64_t total,
                      const char *field, tplan_err *err)
{
    if (!w || !w->poll)
        return TPLAN_OK;
    if (w->poll(w->ud, w->path, done, total) && done >= 0)
        return tplan_err_set(err, TPLAN_EINTR, field,
                             "%.200s: interrupted while writing; the file "
                             "is left as it was",
                             w->path ? w->path : "");
    return TPLAN_OK;
}

static int flush(const tplan_sweep_result *r, save_chunk *ch, tplan_store *db,
                 int64_t id, int64_t *rows, tplan_err *err)
{
    int rc = tplan_sweep_eval_at(r->spec, ch->idx, ch->n, ch->plans,
                                 r->threads, tplan_sweep_write_flags(r->spec),
                                 err);

    for (int64_t k = 0; k < ch->n && rc == TPLAN_OK; k++) {
        const tplan_ranked *e = ch->e[k];

        rc = tplan_store_plan(db, id, ch->rank[k], e->index, ch->on_front[k],
                              r->has_score ? e->score : (double)NAN, e->key,
                              r->spec->n_rank, &ch->plans[k], err);
        if (rc == TPLAN_OK)
            ++*rows;
    }
    ch->n = 0;
    return rc;
}

int tplan_save_db(tplan_store *db, const tplan_sweep_meta *m,
                  const tplan_sweep_result *r, const tplan_save_watch *watch,
                  int64_t *rows, tplan_err *err)
{
    save_chunk *ch = malloc(sizeof *ch);
    int64_t id, *front = NULL, *kept = NULL;
    int64_t total = r->n_kept + r->n_front; /* at most */
    int rc;

    *rows = 0;
    if (!ch ||
        (r->n_front > 0 && !(front = sorted_indexes(r->front, r->n_front))) ||
        (r->n_kept > 0 && !(kept = sorted_indexes(r->kept, r->n_kept)))) {
        free(front);
        free(ch);
        return tplan_err_set(err, TPLAN_ENOMEM, "db", "out of memory");
    }
    ch->n = 0;
    rc = watch_poll(watch, 0, total, "db", err);
    if (rc == TPLAN_OK)
        rc = tplan_store_sweep_begin(db, m, &id, err);
    for (int pass = 0; pass < 2 && rc == TPLAN_OK; pass++) {
        /* kept plans by rank, then front plans that were not kept */
        const tplan_ranked *set = pass == 0 ? r->kept : r->front;
        int64_t n = pass == 0 ? r->n_kept : r->n_front;

        for (int64_t i = 0; i < n && rc == TPLAN_OK; i++) {
            const tplan_ranked *e = &set[i];

            if (pass == 1 && has_index(kept, r->n_kept, e->index))
                continue;
            ch->e[ch->n] = e;
            ch->rank[ch->n] = pass == 0 ? i + 1 : 0;
            ch->on_front[ch->n] = has_index(front, r->n_front, e->index);
            ch->idx[ch->n] = e->index;
            if (++ch->n == SAVE_CHUNK &&
                (rc = flush(r, ch, db, id, rows, err)) == TPLAN_OK)
                rc = watch_poll(watch, *rows, total, "db", err);
        }
    }
    if (rc == TPLAN_OK)
        rc = flush(r, ch, db, id, rows, err);
    if (rc == TPLAN_OK)
        rc = tplan_store_sweep_finish(db, id, &r->stats, r->n_kept, err);
    watch_poll(watch, -1, total, "db", NULL);
    if (rc) {
        tplan_store_abort(db);
        *rows = 0;
    }
    free(front);
    free(kept);
    free(ch);
    return rc;
}

/* A chunk's rows as text, formatted on the threads that evaluated them
 * (tplan_sweep_eval_at_then) and written in order by the caller's. */
typedef struct csv_chunk {
    const char *name;
    int64_t first_rank; /* of row 0 */
    tplan_csv_rowbuf text[SAVE_CHUNK];
} csv_chunk;

static int format_row(void *ud, int64_t i, const tplan_plan *p,
                      tplan_err *err)
{
    csv_chunk *cc = ud;

    if (tplan_csv_format_row(&cc->text[i], cc->name, cc->first_rank + i, p))
        return tplan_err_set(err, TPLAN_ENOMEM, "csv", "out of memory");
    return TPLAN_OK;
}

/* A chunk's rows written in order on a thread of its own, while the
 * sweep's threads evaluate and format the next chunk (issue 38: the
 * threads waited for each chunk's write). */
typedef struct csv_write_job {
    pthread_t thread_id;
    tplan_csv *w;
    const csv_chunk *cc;
    int64_t n;
    int rc;
    tplan_err err;
} csv_write_job;

static void *write_rows(void *arg)
{
    csv_write_job *j = arg;

    j->rc = TPLAN_OK;
    for (int64_t k = 0; k < j->n && j->rc == TPLAN_OK; k++)
        j->rc = tplan_csv_put(j->w, j->cc->text[k].s, j->cc->text[k].n,
                              &j->err);
    return NULL;
}

/* Wait for the job's thread (if one runs) and take its status. */
static int write_wait(csv_write_job *j, bool *running, tplan_err *err)
{
    if (!*running)
        return TPLAN_OK;
    pthread_join(j->thread_id, NULL);
    *running = false;
    if (j->rc && err)
        *err = j->err;
    return j->rc;
}

int tplan_save_csv(tplan_csv *w, const char *name, const tplan_sweep_result *r,
                   const tplan_save_watch *watch, tplan_err *err)
{
    save_chunk *ch = malloc(sizeof *ch);
    csv_chunk *cc = calloc(2, sizeof *cc); /* one formats, one is written */
    csv_write_job job = {0};
    bool running = false;
    int cur = 0, rc;

    if (!ch || !cc) {
        free(ch);
        free(cc);
        return tplan_err_set(err, TPLAN_ENOMEM, "csv", "out of memory");
    }
    rc = watch_poll(watch, 0, r->n_kept, "csv", err);
    for (int64_t i = 0; i < r->n_kept && rc == TPLAN_OK; i += SAVE_CHUNK) {
        int64_t n = r->n_kept - i < SAVE_CHUNK ? r->n_kept - i : SAVE_CHUNK;

        for (int64_t k = 0; k < n; k++)
            ch->idx[k] = r->kept[i + k].index;
        cc[cur].name = name;
        cc[cur].first_rank = i + 1;
        rc = tplan_sweep_eval_at_then(r->spec, ch->idx, n, ch->plans,
                                      r->threads,
                                      tplan_sweep_write_flags(r->spec),
                                      format_row, &cc[cur], err);
        /* the chunk before written: this one's turn */
        if (write_wait(&job, &running, rc ? NULL : err) && rc == TPLAN_OK)
            rc = job.rc;
        if (rc == TPLAN_OK) {
            job.w = w;
            job.cc = &cc[cur];
            job.n = n;
            if (pthread_create(&job.thread_id, NULL, write_rows, &job) == 0)
                running = true;
            else { /* no thread: written here */
                write_rows(&job);
                if ((rc = job.rc) && err)
                    *err = job.err;
            }
            cur ^= 1;
        }
        if (rc == TPLAN_OK)
            rc = watch_poll(watch, i + n, r->n_kept, "csv", err);
    }
    if (write_wait(&job, &running, rc ? NULL : err) && rc == TPLAN_OK)
        rc = job.rc;
    watch_poll(watch, -1, r->n_kept, "csv", NULL);
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < SAVE_CHUNK; k++)
            tplan_csv_rowbuf_free(&cc[c].text[k]);
    free(cc);
    free(ch);
    return rc;
}
