/* Sweeps: a base config, axes over plan fields, declarative constraints and
 * objectives. Configurations are numbered in a fixed mixed-radix order (the
 * last axis varies fastest), so index <-> config is exact and any split of
 * the work (threads, shards) ranks the same. The engine allocates its work
 * buffers before iterating and nothing while iterating; threads (pthreads)
 * run when no caller hook is given. Knows nothing of Lua or I/O. */
#ifndef TPLAN_SWEEP_H
#define TPLAN_SWEEP_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "err.h"
#include "expr.h"
#include "fields.h"
#include "plan.h"
#include "rank.h"

/* An axis varies one input field: the field's id (fields.h). Its values
 * are the field's values as tplan_field_apply takes them (enum codes, 0/1,
 * numbers in the input's unit); the gpu axis's index spec->gpus, the model
 * axis's spec->models. */
typedef int tplan_axis_id;

#define TPLAN_MAX_AXES        16
#define TPLAN_MAX_AXIS_VALUES 256
#define TPLAN_MAX_SWEEP_GPUS  32
#define TPLAN_MAX_SWEEP_MODELS 32
/* The most plans keep = N may ask for. */
#define TPLAN_MAX_KEEP 10000000
/* Threads a sweep (and the evaluation of its kept plans) may use. */
#define TPLAN_MAX_THREADS 256

typedef struct tplan_axis {
    tplan_axis_id id;
    int n;
    double values[TPLAN_MAX_AXIS_VALUES];
} tplan_axis;

/* Declarative constraints, checked in C before any hook. 0: none. */
typedef struct tplan_constraints {
    bool fits;
    double min_headroom; /* fraction of capacity left free */
    int64_t min_global_batch, max_global_batch; /* samples */
    double max_cost_usd, max_time_h, max_gpu_hours, min_mfu;
} tplan_constraints;

typedef enum {
    TPLAN_KEEP_TOP,  /* the best `keep` plans */
    TPLAN_KEEP_FITS, /* every plan that passes (and fits) */
    TPLAN_KEEP_ALL   /* every valid plan */
} tplan_keep_mode;

typedef struct tplan_sweep_spec {
    tplan_config base; /* copied */
    tplan_axis axes[TPLAN_MAX_AXES];
    int n_axes;
    tplan_gpu gpus[TPLAN_MAX_SWEEP_GPUS]; /* for the gpu axis */
    int n_gpus;
    tplan_model models[TPLAN_MAX_SWEEP_MODELS]; /* for the model axis */
    int n_models;
    /* the model axis also sets seq to each model's default (no seq was
     * given and no axis varies it) */
    bool seq_from_model;
    /* inputs the base set that live in the model or GPU (dropout, eff_max
     * ...): the model and gpu axes re-apply them to the struct they put
     * in place (tplan_sweep_keep) */
    int n_kept;
    int kept_field[16];
    double kept_value[16];
    /* every input the base set (given, or by its framework), by field id:
     * an assumption set there is not "left at its default"
     * (tplan_sweep_keep marks it; robust.h) */
    bool given[TPLAN_MAX_FIELDS];
    tplan_constraints where;
    /* a `where` expression over plan fields, checked after the limits in
     * the worker threads (n 0: none); a plan it does not pass counts as
     * TPLAN_DROP_WHERE */
    tplan_expr filter;
    tplan_objective rank[TPLAN_MAX_OBJECTIVES];
    int n_rank;
    tplan_keep_mode keep_mode;
    int64_t keep; /* TPLAN_KEEP_TOP: how many */
    bool pareto;  /* also keep the Pareto front over the objectives */
    /* rank plans that do not fit among those that do, by the objectives
     * alone (a script's fits_first = false); by default every ranking
     * puts them after the plans that fit (rank.h, tplan_ranked) */
    bool mix_unfit;
    /* rank configurations that give the same plan each (see
     * TPLAN_DROP_EQUIVALENT); false: keep one, set the others aside */
    bool keep_equivalents;
    /* evaluate every configuration in full instead of re-using the
     * memory (and time) of the one before when only time- (run-) class
     * axes changed; the figures are the same bits either way (tests and
     * benchmarks compare the two) */
    bool unstaged;
    /* walk the axes in their canonical order (the index's), not by reach
     * class; the results are the same either way (tests and benchmarks
     * compare the two; issue 38) */
    bool canonical_walk;
    /* issue 38: the kept plans a sweep writes (res:save, res:csv, --db,
     * --csv) carry the fit advice's search ("would fit with ...", ~20 us
     * a plan that does not fit) only when asked (a script's advice =
     * true) or when the sweep keeps its top N, the plans it shows; a
     * keep = "fits"/"all" sweep stores millions of rows nobody reads the
     * advice of, and `tplan calc` on a row gives it */
    bool advice;
} tplan_sweep_spec;

/* A caller's hook on plans that passed the constraints: return 1 to keep,
 * 0 to drop, -1 to stop with an error (message in err). *score is the
 * TPLAN_M_SCORE value (unchanged when there is no score). */
typedef int (*tplan_sweep_hook)(void *ud, int64_t index, const tplan_plan *p,
                                double *score, tplan_err *err);

/* Streaming sink for TPLAN_KEEP_FITS / ALL: called, in index order within
 * each thread's share, with each kept plan evaluated in full, warnings
 * included but the search for a change that would fit only where the
 * spec asks (tplan_sweep_write_flags); non-zero stops the sweep. prep:
 * what the run's sink_prep made of this plan (NULL without one). */
typedef int (*tplan_sweep_sink)(void *ud, int64_t index, const tplan_plan *p,
                                double score, void *prep);

/* Work on a plan before the sink takes it, on the worker's thread and
 * outside the sink's lock (issue 38: a CSV row's text, which formatted
 * under the lock held the walk to one core). *slot is the worker's own
 * (NULL at first; the hook may allocate into it and reuse it; the run
 * frees it with sink_prep_free); it is handed to the sink as prep.
 * Non-zero stops the sweep. */
typedef int (*tplan_sweep_prep)(void *ud, int64_t index, const tplan_plan *p,
                                double score, void **slot);

/* Why a valid plan was not kept: another configuration of the space gives
 * the same plan, the first limit it failed, or the hook. Equivalent
 * configurations (docs/MODEL.md section 11): ZeRO stages at dp = 1
 * (nothing to shard over: the one with the smallest stage in the zero
 * axis is kept), selective recomputation under flash attention (flash
 * already recomputes what selective would: `none` is kept when the axis
 * has it), and every recompute value of a generic model (not modelled:
 * the smallest is kept). */
typedef enum {
    TPLAN_DROP_EQUIVALENT,
    TPLAN_DROP_FITS,
    TPLAN_DROP_MIN_HEADROOM,
    TPLAN_DROP_MIN_GLOBAL_BATCH,
    TPLAN_DROP_MAX_GLOBAL_BATCH,
    TPLAN_DROP_MAX_COST_USD,
    TPLAN_DROP_MAX_TIME_H,
    TPLAN_DROP_MAX_GPU_HOURS,
    TPLAN_DROP_MIN_MFU,
    TPLAN_DROP_WHERE, /* the where expression or the caller's hook said no */
    TPLAN_DROP_COUNT
} tplan_drop;

/* The limit's name ("fits", "max_cost_usd", "where"...). */
const char *tplan_drop_name(tplan_drop d);

typedef struct tplan_sweep_stats {
    int64_t space;     /* configurations in the space */
    int64_t visited;   /* indexes walked (this shard's) */
    int64_t invalid;   /* pruned: divisibility and other rules */
    int64_t skipped;   /* of invalid: passed with a refused layout's
                        * sub-space, without a look */
    int64_t evaluated; /* full plan evaluations */
    int64_t reused;    /* of evaluated: staged, part of the plan before
                        * kept (plan.h's TPLAN_EVAL_REUSE_*) */
    int64_t unfit_untimed; /* of evaluated: plans that do not fit, not
                            * timed because the top N all fit already
                            * (TPLAN_EVAL_FIT_FIRST; keep = N sweeps) */
    int64_t passed;    /* through the constraints and hook */
    int64_t dropped[TPLAN_DROP_COUNT]; /* valid plans each limit dropped */
    int64_t kept;
    int64_t kept_unfit; /* kept plans that do not fit in memory */
    double seconds;
    bool interrupted;
    bool front_truncated;
} tplan_sweep_stats;

typedef struct tplan_sweep_run {
    const tplan_sweep_spec *spec; /* borrowed */
    int threads;                  /* ignored (1) when hook is set */
    int64_t shard, shards;        /* evaluate index % shards == shard */
    tplan_sweep_hook hook;        /* optional */
    void *hook_ud;
    /* KEEP_FITS / KEEP_ALL: called with each kept plan under a lock;
     * without one, the workers keep ranked entries in buffers of their
     * own (no lock) and the run returns them ranked in kept */
    tplan_sweep_sink sink;
    void *sink_ud;
    tplan_sweep_prep sink_prep; /* optional; gets sink_ud */
    void (*sink_prep_free)(void *slot);
    /* with a sink or count_only: also keep the best top_also plans of
     * those kept in top (a streamed sweep's ranks), at most
     * TPLAN_MAX_KEEP */
    int top_also;
    /* KEEP_FITS / KEEP_ALL without a sink: keep no plan, only count them
     * (and top_also, the front): a streamed sweep's first walk */
    bool count_only;
    /* skip the spec's Pareto front (a streamed sweep's second walk has
     * the first's) */
    bool no_front;
    /* hand the sink each plan as the walk evaluated it: figures only,
     * staged where the walk staged it, not evaluated again with its
     * warnings (tests compare staged and full evaluation through it) */
    bool sink_figures;
    volatile sig_atomic_t *stop; /* optional: set to stop cleanly */
    /* optional progress: called from the calling thread about every
     * 2^16 indexes with the indexes done so far */
    void (*progress)(void *ud, int64_t done, int64_t total);
    void *progress_ud;
    /* results (owned by the run; see tplan_sweep_run_free) */
    tplan_ranked *top; /* best first */
    int n_top;
    tplan_ranked *front; /* Pareto front, best first by the objectives */
    int n_front;
    tplan_ranked *kept; /* KEEP_FITS / KEEP_ALL without a sink, best first */
    int64_t n_kept;
    tplan_sweep_stats stats;
} tplan_sweep_run;

/* A finished sweep as writers see it: the spec, the plans kept (best
 * first) and the Pareto front, as ranked entries whose indexes name
 * configurations of the spec. Every pointer is borrowed. */
typedef struct tplan_sweep_result {
    const tplan_sweep_spec *spec;
    const tplan_ranked *kept;
    int64_t n_kept;
    const tplan_ranked *front;
    int64_t n_front;
    tplan_sweep_stats stats;
    bool has_score; /* entries carry a score hook's value */
    int threads;    /* kept plans are evaluated again on this many */
    /* the plans went to the run's outputs as the sweep walked
     * (stream.h): kept holds only the best of them */
    bool streamed;
} tplan_sweep_result;

/* Configurations in the space (product of axis sizes; 1 with no axes). */
int64_t tplan_sweep_size(const tplan_sweep_spec *s);

/* The config at an index. */
int tplan_sweep_config_at(const tplan_sweep_spec *s, int64_t index,
                          tplan_config *out, tplan_err *err);

/* The axes of two or more values at an index, as "tp 2, ep 4, zero 3"
 * (field names; enum and bool values by name, GPUs and models by theirs)
 * into buf of len bytes: what tells a kept plan apart from the others.
 * Empty when the sweep varies nothing. */
void tplan_sweep_axes_text(const tplan_sweep_spec *s, int64_t index,
                           char *buf, size_t len);

/* Evaluate with their warnings (plan.h's flags: TPLAN_EVAL_FULL, or
 * TPLAN_EVAL_NO_REMEDY) the configurations of s at idx[0..n) into
 * out[0..n), on up to threads threads, the caller's one of them, each with
 * an activation cache of its own. The same plans for any number of
 * threads; on errors, the error of the first failing item. */
int tplan_sweep_eval_at(const tplan_sweep_spec *s, const int64_t *idx,
                        int64_t n, tplan_plan *out, int threads,
                        unsigned flags, tplan_err *err);

/* As tplan_sweep_eval_at, then then(ud, i, &out[i], err) on the thread
 * that evaluated out[i], right after: what a writer does with each plan
 * (a CSV row's text) spread over the threads. A non-zero return fails
 * the call as an evaluation error would. then may be NULL. */
typedef int (*tplan_sweep_then)(void *ud, int64_t i, const tplan_plan *p,
                                tplan_err *err);
int tplan_sweep_eval_at_then(const tplan_sweep_spec *s, const int64_t *idx,
                             int64_t n, tplan_plan *out, int threads,
                             unsigned flags, tplan_sweep_then then, void *ud,
                             tplan_err *err);

/* The flags a sweep's written plans are evaluated with (the advice field
 * above): TPLAN_EVAL_FULL or TPLAN_EVAL_NO_REMEDY. */
unsigned tplan_sweep_write_flags(const tplan_sweep_spec *s);

/* Why configurations are invalid, for a sweep that found none valid: up to
 * max configurations of the shard, spread over it, evaluated with their
 * messages and tallied by the field each names. out[0..*n) is sorted by
 * count, most first, each with one message as an example. */
typedef struct tplan_reason {
    char field[32];
    int64_t count;
    char example[512]; /* as tplan_err.msg */
} tplan_reason;

void tplan_sweep_reasons(const tplan_sweep_spec *s, int64_t shard,
                         int64_t shards, int64_t max, tplan_reason *out,
                         int cap, int *n);

/* Check a spec: axis values, objectives, keep. */
int tplan_sweep_validate(const tplan_sweep_spec *s, tplan_err *err);

/* The base set input field id (given, or by its framework): mark it
 * given, and when it lives in the model or GPU struct, keep its base value
 * across the model and gpu axes. */
void tplan_sweep_keep(tplan_sweep_spec *s, int field_id);

/* Run a sweep. Returns TPLAN_OK (also when interrupted: stats say so), or
 * an error from the hook or the sink, or TPLAN_ENOMEM. */
int tplan_sweep_exec(tplan_sweep_run *r, tplan_err *err);

/* Free the run's results; accepts a zeroed run. */
void tplan_sweep_run_free(tplan_sweep_run *r);

/* The axis's name (its field's input name). */
const char *tplan_axis_name(tplan_axis_id a);
/* The axis an input name varies: the fields with TPLAN_FIELD_AXIS. */
int tplan_axis_parse(const char *name, tplan_axis_id *out, tplan_err *err);
/* Where an axis stands in a spec's axes (ascending; the last varies
 * fastest): a fixed order, so a script's table order does not change
 * configuration indexes. */
int tplan_axis_order(tplan_axis_id a);
/* Check one value of axis a (not the gpu axis: an index, checked by
 * tplan_sweep_validate); the same message as every input of the field. */
int tplan_axis_check(tplan_axis_id a, double v, tplan_err *err);

#endif
