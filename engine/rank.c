/* Ranking: metrics, lexicographic keys, top-K heap, Pareto front. */
#include "rank.h"

#include <math.h>
#include <string.h>

static const struct {
    const char *name;
    bool maximize;
} metrics[TPLAN_M_COUNT] = {
    [TPLAN_M_COST_USD] = {"cost_usd", false},
    [TPLAN_M_TIME_H] = {"time_h", false},
    [TPLAN_M_GPU_HOURS] = {"gpu_hours", false},
    [TPLAN_M_ENERGY_KWH] = {"energy_kwh", false},
    [TPLAN_M_STEP_TIME_S] = {"step_time_s", false},
    [TPLAN_M_TOKENS_PER_S] = {"tokens_per_s", true},
    [TPLAN_M_MFU] = {"mfu", true},
    [TPLAN_M_TOTAL_BYTES] = {"total_bytes", false},
    [TPLAN_M_HEADROOM_BYTES] = {"headroom_bytes", true},
    [TPLAN_M_GPUS] = {"gpus", false},
    [TPLAN_M_MICRO_BATCH] = {"micro_batch", true},
    [TPLAN_M_GLOBAL_BATCH] = {"global_batch", false},
    [TPLAN_M_SCORE] = {"score", true},
};

const char *tplan_metric_name(tplan_metric m)
{
    return m >= 0 && m < TPLAN_M_COUNT ? metrics[m].name : "?";
}

int tplan_metric_parse(const char *name, tplan_metric *out, bool *maximize,
                       tplan_err *err)
{
    for (int i = 0; i < TPLAN_M_COUNT; i++) {
        if (strcmp(name, metrics[i].name) == 0) {
            *out = (tplan_metric)i;
            *maximize = metrics[i].maximize;
            return TPLAN_OK;
        }
    }
    return tplan_err_set(err, TPLAN_ENOTFOUND, "rank",
                         "unknown objective (rank=%.64s); expected cost_usd, "
                         "time_h, gpu_hours, energy_kwh, step_time_s, "
                         "tokens_per_s, mfu, total_bytes, headroom_bytes, "
                         "gpus, micro_batch, global_batch or score",
                         name);
}

/* A run figure for ranking: unknown (no budget, no step time) ranks
 * last. */
static double run_figure(const tplan_plan *p, double v)
{
    return p->run.has_budget && !isnan(v) ? v : (double)INFINITY;
}

/* tplan_metric_value's body: inline in rank_key, whose callers (a
 * sweep's offer of every plan) it would otherwise cost a call each */
static inline double metric_value(tplan_metric m, const tplan_plan *p,
                                  double score)
{
    switch (m) {
    case TPLAN_M_COST_USD:
        return run_figure(p, p->run.cost_usd);
    case TPLAN_M_TIME_H:
        return run_figure(p, p->run.time_h);
    case TPLAN_M_GPU_HOURS:
        return run_figure(p, p->run.gpu_hours);
    case TPLAN_M_ENERGY_KWH:
        return run_figure(p, p->run.energy_kwh);
    case TPLAN_M_STEP_TIME_S:
        return p->perf.timed ? p->perf.step_time_s : (double)INFINITY;
    case TPLAN_M_TOKENS_PER_S:
        return p->perf.timed ? p->perf.tokens_per_s : 0.0;
    case TPLAN_M_MFU:
        return p->perf.mfu;
    case TPLAN_M_TOTAL_BYTES:
        return (double)p->mem.total_bytes;
    case TPLAN_M_HEADROOM_BYTES:
        return (double)(p->mem.usable_bytes - p->mem.total_bytes);
    case TPLAN_M_GPUS:
        return (double)p->config.gpus;
    case TPLAN_M_MICRO_BATCH:
        return (double)p->micro_batch;
    case TPLAN_M_GLOBAL_BATCH:
        return (double)p->global_batch;
    default:
        return score;
    }
}

double tplan_metric_value(tplan_metric m, const tplan_plan *p, double score)
{
    return metric_value(m, p, score);
}

/* One objective's key: smaller ranks first; NaN sorts last whatever the
 * direction */
static double rank_key(const tplan_objective *o, const tplan_plan *p,
                       double score)
{
    double v = metric_value(o->metric, p, score);

    return v != v ? (double)INFINITY : o->maximize ? -v : v;
}

void tplan_rank_keys(const tplan_objective *obj, int n, const tplan_plan *p,
                     double score, double *key)
{
    for (int i = 0; i < n; i++)
        key[i] = rank_key(&obj[i], p, score);
    for (int i = n; i < TPLAN_MAX_OBJECTIVES; i++)
        key[i] = 0.0; /* unused: equal in every entry */
}

/* last and over sit in what was the padding after fits: kept entries
 * cost what they did (lua-api.md gives 56 bytes an entry) */
_Static_assert(sizeof(tplan_ranked) == 56, "tplan_ranked grew");

float tplan_rank_over(int64_t total_bytes, int64_t usable_bytes,
                      int64_t host_bytes, int64_t host_capacity_bytes)
{
    double gpu = usable_bytes > 0 ? (double)total_bytes / (double)usable_bytes
                                  : (double)INFINITY;
    double host = host_capacity_bytes > 0
                      ? (double)host_bytes / (double)host_capacity_bytes
                      : 0.0;

    return (float)(gpu > host ? gpu : host);
}

void tplan_ranked_standing(tplan_ranked *r, bool fits_first, float over)
{
    r->last = fits_first && !r->fits;
    /* NaN would break the order's totality */
    r->over = r->last ? (over == over ? over : (float)INFINITY) : 0.0f;
}

void tplan_ranked_set(tplan_ranked *r, int64_t index,
                      const tplan_objective *obj, int nobj,
                      const tplan_plan *p, double score, bool fits_first)
{
    memset(r, 0, sizeof *r);
    r->index = index;
    r->score = score;
    r->fits = p->mem.fits;
    /* tplan_rank_keys's, the unused keys zero already */
    for (int i = 0; i < nobj; i++)
        r->key[i] = rank_key(&obj[i], p, score);
    /* a plan that fits, or any under a mixed ranking, stands as the
     * memset left it (last false, over 0: tplan_ranked_standing's); the
     * two divisions of its distance from fitting only for the others */
    if (fits_first && !r->fits)
        tplan_ranked_standing(
            r, fits_first,
            tplan_rank_over(p->mem.total_bytes, p->mem.usable_bytes,
                            p->mem.host_bytes, p->mem.host_capacity_bytes));
}

int tplan_ranked_cmp(const tplan_ranked *a, const tplan_ranked *b, int nobj)
{
    if (a->last != b->last)
        return a->last ? 1 : -1;
    if (a->over != b->over)
        return a->over < b->over ? -1 : 1;
    for (int i = 0; i < nobj; i++) {
        if (a->key[i] < b->key[i])
            return -1;
        if (a->key[i] > b->key[i])
            return 1;
    }
    return (a->index > b->index) - (a->index < b->index);
}

bool tplan_ranked_before(const tplan_ranked *a, const tplan_ranked *b, int nobj)
{
    return tplan_ranked_cmp(a, b, nobj) < 0;
}

/* Max-heap by "before": the root is the worst kept entry. */
static void sift_down(tplan_topk *t, int i)
{
    for (;;) {
        int l = 2 * i + 1, r = l + 1, w = i;
        tplan_ranked tmp;

        if (l < t->n &&
            tplan_ranked_before(&t->items[w], &t->items[l], t->nobj))
            w = l;
        if (r < t->n &&
            tplan_ranked_before(&t->items[w], &t->items[r], t->nobj))
            w = r;
        if (w == i)
            return;
        tmp = t->items[i];
        t->items[i] = t->items[w];
        t->items[w] = tmp;
        i = w;
    }
}

bool tplan_topk_push(tplan_topk *t, const tplan_ranked *r)
{
    if (t->cap <= 0)
        return false;
    if (t->n < t->cap) {
        int i = t->n++;

        t->items[i] = *r;
        while (i > 0) {
            int up = (i - 1) / 2;
            tplan_ranked tmp;

            if (!tplan_ranked_before(&t->items[up], &t->items[i], t->nobj))
                break;
            tmp = t->items[up];
            t->items[up] = t->items[i];
            t->items[i] = tmp;
            i = up;
        }
        return true;
    }
    if (!tplan_ranked_before(r, &t->items[0], t->nobj))
        return false;
    t->items[0] = *r;
    sift_down(t, 0);
    return true;
}

/* tplan_topk_offer's and tplan_topk_offer_in's body: two entries, so
 * that a sweep's visit, the one caller of the first, has it inlined */
static inline bool offer(tplan_topk *t, int64_t index,
                         const tplan_objective *obj, int nobj,
                         const tplan_plan *p, double score, bool fits_first)
{
    tplan_ranked r;

    if (t->cap <= 0)
        return false;
    if (t->n == t->cap) {
        /* tplan_ranked_cmp's order: a plan that does not fit goes after
         * every one that does; between two that fit (over 0 both) the
         * first key decides where it differs. A tie goes on to the full
         * comparison. */
        const tplan_ranked *worst = &t->items[0];
        bool last = fits_first && !p->mem.fits;

        if (last && !worst->last)
            return false;
        if (!last && !worst->last && nobj > 0 &&
            rank_key(&obj[0], p, score) > worst->key[0])
            return false;
    }
    tplan_ranked_set(&r, index, obj, nobj, p, score, fits_first);
    return tplan_topk_push(t, &r);
}

void tplan_topk_offer(tplan_topk *t, int64_t index, const tplan_objective *obj,
                      int nobj, const tplan_plan *p, double score,
                      bool fits_first)
{
    offer(t, index, obj, nobj, p, score, fits_first);
}

bool tplan_topk_offer_in(tplan_topk *t, int64_t index,
                         const tplan_objective *obj, int nobj,
                         const tplan_plan *p, double score, bool fits_first)
{
    return offer(t, index, obj, nobj, p, score, fits_first);
}

bool tplan_topk_full_of_fitting(const tplan_topk *t)
{
    return t->cap > 0 && t->n == t->cap && !t->items[0].last;
}

void tplan_topk_sort(tplan_topk *t)
{
    /* A heap sort in place keeps this free of globals and thread-safe. */
    int n = t->n;

    for (int end = n - 1; end > 0; end--) {
        tplan_ranked tmp = t->items[0];

        t->items[0] = t->items[end];
        t->items[end] = tmp;
        t->n = end;
        sift_down(t, 0);
    }
    t->n = n;
}

/* Records holding a tplan_ranked at offset, sorted by introsort: a
 * quicksort (median of three, sequential scans that suit large arrays)
 * that turns to a heap sort below 2 log2(n) levels, so O(n log n) at
 * worst, in place, with no globals (the byte-wise heap sort this
 * replaces took 18 s for 10M plans). The order is total (ties go by
 * index), so the result does not depend on the algorithm. */
typedef struct records {
    unsigned char *base;
    size_t size, offset;
    int nobj;
} records;

static const tplan_ranked *rec(const records *r, int64_t i)
{
    return (const tplan_ranked *)(r->base + (size_t)i * r->size + r->offset);
}

static bool rec_before(const records *r, int64_t i, int64_t j)
{
    return tplan_ranked_before(rec(r, i), rec(r, j), r->nobj);
}

static void rec_swap(const records *r, int64_t i, int64_t j)
{
    unsigned char *a = r->base + (size_t)i * r->size;
    unsigned char *b = r->base + (size_t)j * r->size;
    unsigned char t[256];

    for (size_t left = r->size; left > 0;) {
        size_t k = left < sizeof t ? left : sizeof t;

        memcpy(t, a, k);
        memcpy(a, b, k);
        memcpy(b, t, k);
        a += k;
        b += k;
        left -= k;
    }
}

/* Heap sort of [lo, hi): a max-heap by the ranking order. */
static void rec_sift(const records *r, int64_t lo, int64_t i, int64_t n)
{
    for (;;) {
        int64_t l = 2 * i + 1, w = i;

        if (l < n && rec_before(r, lo + w, lo + l))
            w = l;
        if (l + 1 < n && rec_before(r, lo + w, lo + l + 1))
            w = l + 1;
        if (w == i)
            return;
        rec_swap(r, lo + i, lo + w);
        i = w;
    }
}

static void rec_heapsort(const records *r, int64_t lo, int64_t hi)
{
    int64_t n = hi - lo;

    for (int64_t i = n / 2 - 1; i >= 0; i--)
        rec_sift(r, lo, i, n);
    for (int64_t end = n - 1; end > 0; end--) {
        rec_swap(r, lo, lo + end);
        rec_sift(r, lo, 0, end);
    }
}

static void rec_introsort(const records *r, int64_t lo, int64_t hi,
                          int depth)
{
    while (hi - lo > 16) {
        int64_t mid = lo + (hi - lo) / 2, i = lo, j = hi;

        if (depth-- == 0) {
            rec_heapsort(r, lo, hi);
            return;
        }
        /* the median of lo, mid and hi - 1 as the pivot, at lo */
        if (rec_before(r, mid, lo))
            rec_swap(r, mid, lo);
        if (rec_before(r, hi - 1, lo))
            rec_swap(r, hi - 1, lo);
        if (rec_before(r, hi - 1, mid))
            rec_swap(r, hi - 1, mid);
        rec_swap(r, mid, lo);
        for (;;) {
            do
                i++;
            while (i < hi && rec_before(r, i, lo));
            do
                j--;
            while (rec_before(r, lo, j));
            if (i >= j)
                break;
            rec_swap(r, i, j);
        }
        rec_swap(r, lo, j);
        /* the smaller side by recursion, the larger by the loop */
        if (j - lo < hi - j - 1) {
            rec_introsort(r, lo, j, depth);
            lo = j + 1;
        } else {
            rec_introsort(r, j + 1, hi, depth);
            hi = j;
        }
    }
    for (int64_t k = lo + 1; k < hi; k++)
        for (int64_t m = k; m > lo && rec_before(r, m, m - 1); m--)
            rec_swap(r, m, m - 1);
}

void tplan_ranked_sort_records(void *base, int64_t n, size_t size,
                               size_t offset, int nobj)
{
    records r = {base, size, offset, nobj};
    int depth = 0;

    for (int64_t k = n; k > 1; k >>= 1)
        depth += 2;
    if (n > 1)
        rec_introsort(&r, 0, n, depth);
}

void tplan_ranked_sort(tplan_ranked *a, int64_t n, int nobj)
{
    tplan_ranked_sort_records(a, n, sizeof *a, 0, nobj);
}

/* a dominates b: no worse in every objective, better in one. */
static bool dominates(const tplan_ranked *a, const tplan_ranked *b, int nobj)
{
    bool better = false;

    if (a->last != b->last)
        return b->last;
    for (int i = 0; i < nobj; i++) {
        if (a->key[i] > b->key[i])
            return false;
        if (a->key[i] < b->key[i])
            better = true;
    }
    return better;
}

void tplan_front_push(tplan_front *f, const tplan_ranked *r)
{
    int w = 0;

    for (int i = 0; i < f->n; i++) {
        if (dominates(&f->items[i], r, f->nobj))
            return;
        /* equal keys: keep the lower index only */
        if (!dominates(r, &f->items[i], f->nobj) &&
            memcmp(f->items[i].key, r->key, sizeof(double) * f->nobj) == 0) {
            if (f->items[i].index < r->index)
                return;
            continue; /* r replaces it */
        }
    }
    for (int i = 0; i < f->n; i++) {
        bool same =
            memcmp(f->items[i].key, r->key, sizeof(double) * f->nobj) == 0;

        if (!dominates(r, &f->items[i], f->nobj) && !same)
            f->items[w++] = f->items[i];
    }
    f->n = w;
    if (f->n >= f->cap) {
        f->truncated = true;
        return;
    }
    f->items[f->n++] = *r;
}
