/* Objectives over plans: named metrics with a direction, a lexicographic
 * order with ties broken by configuration index (so any split of a sweep
 * ranks the same), a bounded top-K heap and a Pareto front. Allocates
 * nothing: callers own the buffers. */
#ifndef TPLAN_RANK_H
#define TPLAN_RANK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "plan.h"

typedef enum {
    TPLAN_M_COST_USD,
    TPLAN_M_TIME_H,
    TPLAN_M_GPU_HOURS,
    TPLAN_M_ENERGY_KWH,
    TPLAN_M_STEP_TIME_S,
    TPLAN_M_TOKENS_PER_S,
    TPLAN_M_MFU,
    TPLAN_M_TOTAL_BYTES,
    TPLAN_M_HEADROOM_BYTES,
    TPLAN_M_GPUS,
    TPLAN_M_MICRO_BATCH,
    TPLAN_M_GLOBAL_BATCH,
    TPLAN_M_SCORE, /* a Lua score hook's value */
    TPLAN_M_COUNT
} tplan_metric;

#define TPLAN_MAX_OBJECTIVES 4

typedef struct tplan_objective {
    tplan_metric metric;
    bool maximize;
} tplan_objective;

/* What a ranking keeps of a plan: its index in the sweep and its keys,
 * already signed so that smaller is better. A plan that does not fit
 * ranks after every plan that does (`last`), whatever its keys, unless
 * the ranking mixes them (a sweep's fits_first = false); among
 * themselves such plans go closest to fitting first (`over`), then by
 * the keys. Both live in what was padding: an entry is 56 bytes still. */
typedef struct tplan_ranked {
    int64_t index;
    double key[TPLAN_MAX_OBJECTIVES];
    double score; /* the score hook's value (NaN: none), carried along */
    bool fits;    /* the plan fits in memory */
    bool last;    /* does not fit, under a fits-first ranking */
    float over;   /* last: memory needed over memory there (> 1), else 0 */
} tplan_ranked;

/* The metric's value in a plan (score: the caller's). */
double tplan_metric_value(tplan_metric m, const tplan_plan *p, double score);
/* Parse a metric name (the plan field, "score"); maximize says whether
 * bigger is better by default (tokens_per_s, mfu, headroom...). */
int tplan_metric_parse(const char *name, tplan_metric *out, bool *maximize,
                       tplan_err *err);
const char *tplan_metric_name(tplan_metric m);

/* Keys of a plan under objectives (signed: smaller is better) into
 * key[TPLAN_MAX_OBJECTIVES]; the keys past n are 0. */
void tplan_rank_keys(const tplan_objective *obj, int n, const tplan_plan *p,
                     double score, double *key);

/* How far from fitting a plan is: the larger of its GPU memory over the
 * usable and its host memory over the host's (0 where the host's is
 * unknown). From the figures the result database stores as columns, so
 * merging shards computes the same value. */
float tplan_rank_over(int64_t total_bytes, int64_t usable_bytes,
                      int64_t host_bytes, int64_t host_capacity_bytes);

/* The whole entry of plan p at index: zeroed (padding too: entries
 * compare as bytes), keys, score, fits, and with fits_first the
 * standing of a plan that does not fit (last, over). */
void tplan_ranked_set(tplan_ranked *r, int64_t index,
                      const tplan_objective *obj, int nobj,
                      const tplan_plan *p, double score, bool fits_first);

/* Set last and over of an entry from its fit and figures (merge reads
 * them from a database's columns). */
void tplan_ranked_standing(tplan_ranked *r, bool fits_first, float over);

/* The ranking order, the one comparator every ranking uses (top-K, the
 * Pareto front's order, sweeps' keep = "fits"/"all", merge, Lua): plans
 * that fit before those that do not (`last`; the latter closest to
 * fitting first, by `over`), then the first nobj keys lexicographically
 * (smaller first; keys are never NaN: tplan_rank_keys makes a missing
 * value +inf, last), then the configuration index (lower first), so
 * equal plans rank the same however a sweep was split. Negative, zero or
 * positive as a is before, equal to or after b. */
int tplan_ranked_cmp(const tplan_ranked *a, const tplan_ranked *b, int nobj);

/* tplan_ranked_cmp(a, b, nobj) < 0. */
bool tplan_ranked_before(const tplan_ranked *a, const tplan_ranked *b,
                         int nobj);

/* A bounded max-heap keeping the best cap entries seen. */
typedef struct tplan_topk {
    tplan_ranked *items; /* borrowed, cap entries */
    int cap, n, nobj;
} tplan_topk;

/* Push r; false where the heap turned it away (full, and r ranks after
 * its worst; or no room at all) and is as it was. */
bool tplan_topk_push(tplan_topk *t, const tplan_ranked *r);
/* tplan_ranked_set (nobj must be t->nobj) then tplan_topk_push, with the
 * same result; a plan that ranks after a full heap's worst on its
 * standing or its first key is turned away before its entry is made (a
 * sweep's keep = N offers every plan, and turns most away).
 * tplan_topk_offer_in also says whether the plan went in: turned away,
 * the heap is full (or has no room) and the same plan at a later index
 * would be turned away too, as the worst of a full heap only gets
 * better (sweep.c, nic_stands). */
void tplan_topk_offer(tplan_topk *t, int64_t index, const tplan_objective *obj,
                      int nobj, const tplan_plan *p, double score,
                      bool fits_first);
bool tplan_topk_offer_in(tplan_topk *t, int64_t index,
                         const tplan_objective *obj, int nobj,
                         const tplan_plan *p, double score, bool fits_first);
/* The heap is full and its worst entry fits: under fits-first ranking a
 * plan that does not fit can no longer get in (tplan_topk_offer turns it
 * away on its standing alone). */
bool tplan_topk_full_of_fitting(const tplan_topk *t);
/* Sort the kept entries best first (in place). */
void tplan_topk_sort(tplan_topk *t);

/* Sort n ranked entries best first (in place, introsort: no globals, no
 * allocation). */
void tplan_ranked_sort(tplan_ranked *a, int64_t n, int nobj);


/* The same for n records of size bytes that each hold a tplan_ranked at
 * offset (merge's candidates). */
void tplan_ranked_sort_records(void *base, int64_t n, size_t size,
                               size_t offset, int nobj);

/* A Pareto front (non-dominated set, all objectives minimised after
 * signing; a plan that fits dominates every `last` one, so once any plan
 * fits the front holds only plans that fit). */
typedef struct tplan_front {
    tplan_ranked *items; /* borrowed, cap entries */
    int cap, n, nobj;
    bool truncated; /* a non-dominated plan was dropped for lack of room */
} tplan_front;

void tplan_front_push(tplan_front *f, const tplan_ranked *r);

#endif
