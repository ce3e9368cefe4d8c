/* Full evaluations of chosen configurations of a sweep, on threads: the
 * kept plans, evaluated again with their warnings (and the fit advice,
 * where asked) before they are written (res:save, res:csv, --db, --csv).
 * Plans are independent, so the result is the same for any number of
 * threads. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "engine_int.h"
#include "sweep.h"

typedef struct eval_job {
    const tplan_sweep_spec *spec;
    const int64_t *idx;
    tplan_plan *out;
    int64_t n;
    unsigned flags;
    tplan_sweep_then then;
    void *then_ud;
    atomic_llong next;
    pthread_mutex_t lock;
    int64_t err_at; /* the lowest failing item, n when none */
    tplan_err err;
} eval_job;

/* Items are taken a few at a time: a full evaluation is microseconds.
 */
#define TAKE             8

/* Activation caches kept from one call to the next: a sweep's plans are
 * written a chunk at a time, in rank order, and a cache that started
 * cold with every chunk missed most of the time. An entry is a function
 * of its key alone (activations.h), so any call may reuse any cache. */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static tplan_act_cache *pool[TPLAN_MAX_THREADS];
static int pool_n;

static tplan_act_cache *cache_take(void)
{
    tplan_act_cache *c = NULL;

    pthread_mutex_lock(&pool_lock);
    if (pool_n > 0)
        c = pool[--pool_n];
    pthread_mutex_unlock(&pool_lock);
    return c ? c : calloc(1, sizeof *c);
}

static void cache_give(tplan_act_cache *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&pool_lock);
    if (pool_n < TPLAN_MAX_THREADS) {
        pool[pool_n++] = c;
        c = NULL;
    }
    pthread_mutex_unlock(&pool_lock);
    free(c);
}

static void *eval_work(void *arg)
{
    eval_job *j = arg;
    tplan_config c;
    tplan_err e;
    /* kept plans share models, sequences and layouts: the activation
     * tables are built once, not for every plan (issue 38: rebuilt they
     * were a third of a written row's cost); bit-identical either way, and
     * without memory for it the plans are evaluated without */
    tplan_act_cache *cache = cache_take();

    for (;;) {
        int64_t from = atomic_fetch_add(&j->next, TAKE);

        if (from >= j->n)
            break;
        for (int64_t i = from; i < from + TAKE && i < j->n; i++) {
            if (tplan_sweep_config_at(j->spec, j->idx[i], &c, &e) == TPLAN_OK &&
                tplan_plan_eval_cached(&c, cache, &j->out[i], j->flags, &e) ==
                    TPLAN_OK &&
                (!j->then || j->then(j->then_ud, i, &j->out[i], &e) == 0))
                continue;
            pthread_mutex_lock(&j->lock);
            if (i < j->err_at) {
                j->err_at = i;
                j->err = e;
            }
            pthread_mutex_unlock(&j->lock);
        }
    }
    cache_give(cache);
    return NULL;
}

unsigned tplan_sweep_write_flags(const tplan_sweep_spec *s)
{
    return s->advice || s->keep_mode == TPLAN_KEEP_TOP ? TPLAN_EVAL_FULL
                                                       : TPLAN_EVAL_NO_REMEDY;
}

int tplan_sweep_eval_at(const tplan_sweep_spec *s, const int64_t *idx,
                        int64_t n, tplan_plan *out, int threads,
                        unsigned flags, tplan_err *err)
{
    return tplan_sweep_eval_at_then(s, idx, n, out, threads, flags, NULL,
                                    NULL, err);
}

int tplan_sweep_eval_at_then(const tplan_sweep_spec *s, const int64_t *idx,
                             int64_t n, tplan_plan *out, int threads,
                             unsigned flags, tplan_sweep_then then, void *ud,
                             tplan_err *err)
{
    pthread_t th[TPLAN_MAX_THREADS];
    int started = 0;
    eval_job j;

    if (threads > TPLAN_MAX_THREADS)
        threads = TPLAN_MAX_THREADS;
    if (threads > n / TAKE)
        threads = (int)(n / TAKE);
    j.spec = s;
    j.idx = idx;
    j.out = out;
    j.n = n;
    j.flags = flags;
    j.then = then;
    j.then_ud = ud;
    atomic_init(&j.next, 0);
    pthread_mutex_init(&j.lock, NULL);
    j.err_at = n;
    if (threads > 1) {
        /* the helpers leave signals to the caller's thread */
        sigset_t all, old;

        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        while (started < threads - 1 &&
               pthread_create(&th[started], NULL, eval_work, &j) == 0)
            started++;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    eval_work(&j); /* the caller works too; alone if no thread started */
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    pthread_mutex_destroy(&j.lock);
    if (j.err_at < n) {
        if (err)
            *err = j.err;
        return j.err.code ? j.err.code : TPLAN_EINVAL;
    }
    return TPLAN_OK;
}
