/* Sweep iteration: index <-> config, pruning, constraints, hooks, ranking
 * and threads. Work buffers are allocated before the walk and freed after;
 * the walk itself allocates nothing. */
#include "sweep.h"
#include "engine_int.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "activations.h"
#include "fields.h"
#include "layout_memo.h"

/* Indexes a thread takes at a time; small enough to balance, large enough
 * to keep the shared counter cold. */
#define CHUNK 4096
/* A Pareto front per thread holds at most this many plans. */
#define FRONT_CAP 65536
/* Spaces beyond this are refused: counts and indexes stay exact int64. */
#define MAX_SPACE 1e18

/* The axes of the first sweeps, in their order: indexes of a space over
 * these stay what they were. Axes added since follow in the field
 * table's order. */
static const char *const axis_first[] = {
    "model",        "gpu",          "gpus",      "gpus_per_node", "tp",
    "pp",           "vpp",       "sp",            "zero",
    "precision",    "optimizer", "recompute",     "attention",
    "profile",      "seq",       "micro_batch",   "accum",
    "global_batch", "global_batch_tokens",        "overlap",
    "nic_gbps",     "price",     "lr",            NULL};

const char *tplan_axis_name(tplan_axis_id a)
{
    const tplan_field *f = tplan_field_at(a);

    return f && f->input ? f->input : "?";
}

int tplan_axis_order(tplan_axis_id a)
{
    const char *name = tplan_axis_name(a);

    for (int i = 0; axis_first[i]; i++)
        if (strcmp(axis_first[i], name) == 0)
            return i;
    return 1000 + a;
}

int tplan_axis_parse(const char *name, tplan_axis_id *out, tplan_err *err)
{
    int id = tplan_field_find_input(name);

    if (id < 0 || !(tplan_field_at(id)->flags & TPLAN_FIELD_AXIS))
        return tplan_err_set(err, TPLAN_ENOTFOUND, "axes",
                             "axes.%.64s: %s (tplan fields lists the axes)",
                             name,
                             id < 0 ? "not a plan field"
                                    : "a sweep cannot vary this field");
    *out = id;
    return TPLAN_OK;
}

int tplan_axis_check(tplan_axis_id a, double v, tplan_err *err)
{
    const tplan_field *f = tplan_field_at(a);

    if (f && (f->flags & TPLAN_FIELD_MAX) && v == 0)
        return TPLAN_OK; /* max: the largest that fits */
    if (f && f->kind == TPLAN_FK_ENUM) {
        int n = 0;

        while (f->values[n])
            n++;
        if (v == floor(v) && v >= 0 && v < n)
            return TPLAN_OK;
    }
    return tplan_field_check(a, v, err);
}

int64_t tplan_sweep_size(const tplan_sweep_spec *s)
{
    double n = 1.0;

    for (int i = 0; i < s->n_axes; i++)
        n *= (double)s->axes[i].n;
    return n > MAX_SPACE ? -1 : (int64_t)n;
}

/* Inputs held inside the model or GPU struct (fields.c applies them
 * there): an axis that replaces the struct must set them again. */
static const char *const struct_fields[] = {
    "dropout", "batch_norm", "eff_max", "eff_h0", "eff_tok0", "attn_eff",
    "fp8_ratio", "eff_tp", NULL};

static bool in_struct(int id)
{
    const char *name = tplan_axis_name(id);

    for (int i = 0; struct_fields[i]; i++)
        if (strcmp(struct_fields[i], name) == 0)
            return true;
    return false;
}

/* The base's value of a struct-held input. */
static double struct_value(const tplan_config *c, const char *name)
{
    if (strcmp(name, "dropout") == 0)
        return c->model.dropout;
    if (strcmp(name, "batch_norm") == 0)
        return c->model.batch_norm ? 1.0 : 0.0;
    if (strcmp(name, "eff_max") == 0)
        return c->gpu.eff_max;
    if (strcmp(name, "eff_h0") == 0)
        return c->gpu.eff_h0;
    if (strcmp(name, "eff_tok0") == 0)
        return c->gpu.eff_tok0;
    if (strcmp(name, "attn_eff") == 0)
        return c->gpu.attn_eff;
    if (strcmp(name, "fp8_ratio") == 0)
        return c->gpu.fp8_ratio;
    return c->gpu.eff_tp;
}

void tplan_sweep_keep(tplan_sweep_spec *s, int field_id)
{
    int i;

    if (field_id >= 0 && field_id < TPLAN_MAX_FIELDS)
        s->given[field_id] = true;
    if (!in_struct(field_id))
        return;
    for (i = 0; i < s->n_kept && s->kept_field[i] != field_id; i++)
        ;
    if (i == (int)(sizeof s->kept_field / sizeof s->kept_field[0]))
        return; /* more than there are struct-held inputs: cannot be */
    s->kept_field[i] = field_id;
    s->kept_value[i] = struct_value(&s->base, tplan_axis_name(field_id));
    if (i == s->n_kept)
        s->n_kept++;
}

/* After a model or gpu axis put its struct in place: the base's kept
 * inputs, then the struct-held axes at their current digits. */
static void reapply_struct(const tplan_sweep_spec *s, const int *digit,
                           tplan_config *c)
{
    for (int i = 0; i < s->n_kept; i++)
        tplan_field_apply(s->kept_field[i], s->kept_value[i], c);
    for (int i = 0; i < s->n_axes; i++)
        if (in_struct(s->axes[i].id))
            tplan_field_apply(s->axes[i].id, s->axes[i].values[digit[i]], c);
}

static bool replaces_struct(tplan_axis_id id)
{
    return id == TPLAN_FIELD_ID_GPU || id == TPLAN_FIELD_ID_MODEL;
}

static void apply(const tplan_sweep_spec *s, tplan_axis_id id, double v,
                  tplan_config *c)
{
    /* values passed tplan_sweep_validate: the gpu and model axes' are
     * indexes */
    if (id == TPLAN_FIELD_ID_GPU) {
        c->gpu = s->gpus[(int)v];
    } else if (id == TPLAN_FIELD_ID_MODEL) {
        c->model = s->models[(int)v];
        if (s->seq_from_model)
            c->seq = tplan_model_default_seq(&c->model);
    } else {
        tplan_field_apply(id, v, c);
    }
}

/* Walking indexes in order, a worker keeps the mixed-radix digits of the
 * current index and re-applies only the axes whose digit changed: the
 * divisions of a full decode cost more than a whole plan evaluation's
 * arithmetic. odometer_set decodes once (per chunk). */
static void odometer_set(const tplan_sweep_spec *s, int64_t index, int *digit,
                         tplan_config *c)
{
    bool replaced = false;

    for (int i = s->n_axes - 1; i >= 0; i--) {
        const tplan_axis *a = &s->axes[i];

        digit[i] = (int)(index % a->n);
        apply(s, a->id, a->values[digit[i]], c);
        replaced = replaced || replaces_struct(a->id);
        index /= a->n;
    }
    if (replaced)
        reapply_struct(s, digit, c);
}

void tplan_sweep_axes_text(const tplan_sweep_spec *s, int64_t index,
                           char *buf, size_t len)
{
    int digit[TPLAN_MAX_AXES];
    size_t n = 0;

    for (int i = s->n_axes - 1; i >= 0; i--) {
        digit[i] = (int)(index % s->axes[i].n);
        index /= s->axes[i].n;
    }
    if (len > 0)
        buf[0] = '\0';
    for (int i = 0; i < s->n_axes && n < len; i++) {
        const tplan_axis *a = &s->axes[i];
        double v = a->values[digit[i]];
        const char *name;

        if (a->id == TPLAN_FIELD_ID_MODEL)
            name = s->models[(int)v].name;
        else if (a->id == TPLAN_FIELD_ID_GPU)
            name = s->gpus[(int)v].name;
        else
            name = tplan_field_value_name(a->id, v);

        if (a->n < 2)
            continue;
        n += (size_t)(name ? snprintf(buf + n, len - n, "%s%s %s",
                                      n ? ", " : "",
                                      tplan_field_at(a->id)->name, name)
                           : snprintf(buf + n, len - n, "%s%s %g",
                                      n ? ", " : "",
                                      tplan_field_at(a->id)->name, v));
    }
}

/* Set every axis field of c for index. Fields no axis touches keep
 * their values, so a worker copies the base once and applies axes only. */
static void apply_axes(const tplan_sweep_spec *s, int64_t index,
                       tplan_config *c)
{
    int digit[TPLAN_MAX_AXES];

    odometer_set(s, index, digit, c);
}

/* What a change of axis a reaches (fields.h): the gpu and model axes
 * replace whole structs, which everything reads. */
static tplan_reach axis_reach(const tplan_axis *a)
{
    return replaces_struct(a->id) ? TPLAN_REACH_ALL
                                  : tplan_field_reach(a->id);
}

/* What a change of walk axis k does, looked up once a run (walk_init)
 * rather than at every step: the bit of its reach class (1 << axis_reach;
 * 0 for an axis of one value, which never changes) and whether it
 * replaces the model or GPU struct. */
typedef struct axis_step {
    unsigned reach_bit;
    bool replaces;
} axis_step;

static void axis_steps_init(const tplan_sweep_spec *s, axis_step *st)
{
    for (int i = 0; i < s->n_axes; i++) {
        st[i].reach_bit = s->axes[i].n > 1 ? 1u << axis_reach(&s->axes[i]) : 0;
        st[i].replaces = replaces_struct(s->axes[i].id);
    }
}

/* Set axis a's field to v (apply, without its tests for the struct
 * axes where st says there are none) */
static void apply_step(const tplan_sweep_spec *s, const tplan_axis *a,
                       const axis_step *st, double v, tplan_config *c)
{
    if (st->replaces)
        apply(s, a->id, v, c);
    else
        tplan_field_apply(a->id, v, c);
}

/* Advance by step indexes (the shard count); carries ripple left.
 * Returns the reach classes of the axes it changed, bit 1 << reach each
 * (0: none; the lowest set bit is what the change reaches). With stride
 * (a walk by reach class, one shard), *index follows the digits: the
 * canonical index, each changed digit's difference times its stride (the
 * same sum canonical_index makes, a change at a time). */
static unsigned odometer_step(const tplan_sweep_spec *s, const axis_step *st,
                              int64_t step, int *digit, tplan_config *c,
                              const int64_t *stride, int64_t *index)
{
    bool replaced = false;
    unsigned reach = 0;

    if (step == 1) { /* one shard: no division */
        const int last = s->n_axes - 1;

        /* most steps: the innermost axis moves alone (digit + 1 < n, so
         * the axis has values to move through: its reach_bit is set) */
        if (last >= 0 && digit[last] + 1 < s->axes[last].n) {
            const tplan_axis *a = &s->axes[last];

            digit[last]++;
            if (stride)
                *index += stride[last];
            apply_step(s, a, &st[last], a->values[digit[last]], c);
            if (st[last].replaces)
                reapply_struct(s, digit, c);
            return st[last].reach_bit;
        }
        for (int i = last; i >= 0; i--) {
            const tplan_axis *a = &s->axes[i];
            bool carry = ++digit[i] == a->n;

            if (carry)
                digit[i] = 0;
            if (stride)
                *index += carry ? -(int64_t)(a->n - 1) * stride[i]
                                : stride[i];
            if (st[i].reach_bit) {
                apply_step(s, a, &st[i], a->values[digit[i]], c);
                replaced = replaced || st[i].replaces;
                reach |= st[i].reach_bit;
            }
            if (!carry)
                break;
        }
    } else {
        for (int i = s->n_axes - 1; i >= 0 && step > 0; i--) {
            const tplan_axis *a = &s->axes[i];
            int64_t v = digit[i] + step;

            step = v / a->n;
            if ((int)(v % a->n) != digit[i]) {
                if (stride)
                    *index += ((int64_t)(v % a->n) - digit[i]) * stride[i];
                digit[i] = (int)(v % a->n);
                apply_step(s, a, &st[i], a->values[digit[i]], c);
                replaced = replaced || st[i].replaces;
                reach |= st[i].reach_bit;
            }
        }
    }
    if (replaced)
        reapply_struct(s, digit, c);
    return reach;
}

int tplan_sweep_config_at(const tplan_sweep_spec *s, int64_t index,
                          tplan_config *out, tplan_err *err)
{
    int64_t size = tplan_sweep_size(s);

    if (index < 0 || index >= size)
        return tplan_err_set(err, TPLAN_EINVAL, "index",
                             "index out of the sweep (index=%lld, size=%lld)",
                             (long long)index, (long long)size);
    *out = s->base;
    apply_axes(s, index, out);
    return TPLAN_OK;
}

int tplan_sweep_validate(const tplan_sweep_spec *s, tplan_err *err)
{
    int rc;

    /* the model and GPUs once here: the walk trusts them */
    if ((rc = tplan_model_validate(&s->base.model, err)) ||
        (rc = tplan_gpu_validate(&s->base.gpu, err)))
        return rc;
    if (s->n_gpus < 0 || s->n_gpus > TPLAN_MAX_SWEEP_GPUS)
        return tplan_err_set(err, TPLAN_EINVAL, "gpu",
                             "a sweep takes at most %d GPUs (gpus=%d)",
                             TPLAN_MAX_SWEEP_GPUS, s->n_gpus);
    for (int i = 0; i < s->n_gpus; i++)
        if ((rc = tplan_gpu_validate(&s->gpus[i], err)))
            return rc;
    if (s->n_models < 0 || s->n_models > TPLAN_MAX_SWEEP_MODELS)
        return tplan_err_set(err, TPLAN_EINVAL, "model",
                             "a sweep takes at most %d models (models=%d)",
                             TPLAN_MAX_SWEEP_MODELS, s->n_models);
    for (int i = 0; i < s->n_models; i++)
        if ((rc = tplan_model_validate(&s->models[i], err)))
            return rc;
    if (s->n_axes < 0 || s->n_axes > TPLAN_MAX_AXES)
        return tplan_err_set(err, TPLAN_EINVAL, "axes",
                             "a sweep has at most %d axes (axes=%d)",
                             TPLAN_MAX_AXES, s->n_axes);
    for (int i = 0; i < s->n_axes; i++) {
        const tplan_axis *a = &s->axes[i];

        if (a->n < 1 || a->n > TPLAN_MAX_AXIS_VALUES)
            return tplan_err_set(err, TPLAN_EINVAL, "axes",
                                 "axes.%s needs 1 to %d values (values=%d)",
                                 tplan_axis_name(a->id), TPLAN_MAX_AXIS_VALUES,
                                 a->n);
        if (!tplan_field_at(a->id) ||
            !(tplan_field_at(a->id)->flags & TPLAN_FIELD_AXIS))
            return tplan_err_set(err, TPLAN_EINVAL, "axes",
                                 "axis %d is not a field a sweep can vary",
                                 a->id);
        for (int k = 0; k < a->n; k++) {
            int n = a->id == TPLAN_FIELD_ID_GPU     ? s->n_gpus
                    : a->id == TPLAN_FIELD_ID_MODEL ? s->n_models
                                                    : -1;

            if (n < 0) {
                if ((rc = tplan_axis_check(a->id, a->values[k], err)))
                    return rc;
            } else if (!(a->values[k] >= 0 && a->values[k] < n)) {
                return tplan_err_set(err, TPLAN_EINVAL, "axes",
                                     "axes.%s has a bad value (value=%g)",
                                     tplan_axis_name(a->id), a->values[k]);
            }
        }
        for (int j = 0; j < i; j++)
            if (s->axes[j].id == a->id)
                return tplan_err_set(err, TPLAN_EINVAL, "axes",
                                     "axes.%s is given twice",
                                     tplan_axis_name(a->id));
    }
    {
        bool gb = false, gbt = false;

        for (int i = 0; i < s->n_axes; i++) {
            gb = gb || s->axes[i].id == tplan_field_find("global_batch");
            gbt = gbt || s->axes[i].id == tplan_field_find("global_batch_tokens");
        }
        if (gb && gbt)
            return tplan_err_set(err, TPLAN_EINVAL, "axes",
                                 "axes.global_batch and "
                                 "axes.global_batch_tokens both set the "
                                 "global batch: vary one");
    }
    if (tplan_sweep_size(s) < 0)
        return tplan_err_set(err, TPLAN_EINVAL, "axes",
                             "the sweep space exceeds 1e18 configurations");
    if (s->n_rank < 1 || s->n_rank > TPLAN_MAX_OBJECTIVES)
        return tplan_err_set(err, TPLAN_EINVAL, "rank",
                             "rank needs 1 to %d objectives (rank=%d)",
                             TPLAN_MAX_OBJECTIVES, s->n_rank);
    if (s->keep_mode == TPLAN_KEEP_TOP &&
        (s->keep < 1 || s->keep > TPLAN_MAX_KEEP))
        return tplan_err_set(err, TPLAN_EINVAL, "keep",
                             "keep must be 1 to %d, \"fits\" or \"all\" "
                             "(keep=%lld)",
                             TPLAN_MAX_KEEP, (long long)s->keep);
    return TPLAN_OK;
}

static const char *const drop_names[TPLAN_DROP_COUNT] = {
    "equivalent", "fits",         "min_headroom", "min_global_batch",
    "max_global_batch", "max_cost_usd", "max_time_h",
    "max_gpu_hours", "min_mfu",     "where"};

const char *tplan_drop_name(tplan_drop d)
{
    return d >= 0 && d < TPLAN_DROP_COUNT ? drop_names[d] : "?";
}

/* Does w set any constraint? (passes() is skipped when not) */
static bool constrained(const tplan_constraints *w)
{
    return w->fits || w->min_headroom > 0 || w->min_global_batch > 0 ||
           w->max_global_batch > 0 || w->max_cost_usd > 0 ||
           w->max_time_h > 0 || w->max_gpu_hours > 0 || w->min_mfu > 0;
}

/* Declarative constraints: the first one p fails, or TPLAN_DROP_COUNT when
 * it passes them all. */
static tplan_drop passes(const tplan_constraints *w, const tplan_plan *p)
{
    double cap = (double)p->mem.capacity_bytes;

    if (w->fits && !p->mem.fits)
        return TPLAN_DROP_FITS;
    if (w->min_headroom > 0 &&
        cap - (double)p->mem.total_bytes < w->min_headroom * cap)
        return TPLAN_DROP_MIN_HEADROOM;
    if (w->min_global_batch > 0 && p->global_batch < w->min_global_batch)
        return TPLAN_DROP_MIN_GLOBAL_BATCH;
    if (w->max_global_batch > 0 && p->global_batch > w->max_global_batch)
        return TPLAN_DROP_MAX_GLOBAL_BATCH;
    if (w->max_cost_usd > 0 &&
        !(p->run.has_budget && p->run.cost_usd <= w->max_cost_usd))
        return TPLAN_DROP_MAX_COST_USD;
    if (w->max_time_h > 0 &&
        !(p->run.has_budget && p->run.time_h <= w->max_time_h))
        return TPLAN_DROP_MAX_TIME_H;
    if (w->max_gpu_hours > 0 &&
        !(p->run.has_budget && p->run.gpu_hours <= w->max_gpu_hours))
        return TPLAN_DROP_MAX_GPU_HOURS;
    if (w->min_mfu > 0 && p->perf.mfu < w->min_mfu)
        return TPLAN_DROP_MIN_MFU;
    return TPLAN_DROP_COUNT;
}

void tplan_sweep_reasons(const tplan_sweep_spec *s, int64_t shard,
                         int64_t shards, int64_t max, tplan_reason *out,
                         int cap, int *n)
{
    int64_t size = tplan_sweep_size(s);
    int64_t local = size > shard ? (size - shard + shards - 1) / shards : 0;
    int64_t step = local > max && max > 0 ? local / max : 1;
    tplan_plan *p = malloc(sizeof *p);
    tplan_config c;
    tplan_err err;

    *n = 0;
    if (!p)
        return;
    for (int64_t j = 0; j < local; j += step) {
        int k;

        if (tplan_sweep_config_at(s, shard + j * shards, &c, &err) ==
                TPLAN_OK &&
            tplan_plan_eval_ex(&c, p, TPLAN_EVAL_FIGURES, &err) == TPLAN_OK)
            continue;
        for (k = 0; k < *n && strcmp(out[k].field, err.field) != 0; k++)
            ;
        if (k == *n) {
            if (*n == cap)
                continue;
            snprintf(out[k].field, sizeof out[k].field, "%s", err.field);
            snprintf(out[k].example, sizeof out[k].example, "%s", err.msg);
            out[k].count = 0;
            (*n)++;
        }
        out[k].count++;
        /* most first: bubble the grown entry up */
        for (; k > 0 && out[k].count > out[k - 1].count; k--) {
            tplan_reason t = out[k];

            out[k] = out[k - 1];
            out[k - 1] = t;
        }
    }
    free(p);
}

/* Where the axes that can make equivalent configurations are: an axis
 * index (-1: none, or equivalents are kept) and the digit to keep. */
typedef struct equivalence {
    int zero_ax, zero_keep; /* the smallest stage */
    int rec_ax, rec_keep;   /* the smallest recompute value */
    int rec_none;           /* the digit of `none`, -1 when absent */
} equivalence;

static int axis_min_digit(const tplan_axis *a)
{
    int best = 0;

    for (int i = 1; i < a->n; i++)
        if (a->values[i] < a->values[best])
            best = i;
    return best;
}

static void equivalence_init(const tplan_sweep_spec *s, equivalence *eq)
{
    eq->zero_ax = eq->rec_ax = eq->rec_none = -1;
    eq->zero_keep = eq->rec_keep = 0;
    for (int i = 0; i < s->n_axes && !s->keep_equivalents; i++) {
        const tplan_axis *a = &s->axes[i];

        if (a->id == tplan_field_find_input("zero")) {
            eq->zero_ax = i;
            eq->zero_keep = axis_min_digit(a);
        } else if (a->id == tplan_field_find_input("recompute")) {
            eq->rec_ax = i;
            eq->rec_keep = axis_min_digit(a);
            for (int k = 0; k < a->n; k++)
                if (a->values[k] == (double)TPLAN_RECOMPUTE_NONE)
                    eq->rec_none = k;
        }
    }
}

/* Does another configuration of the space give p's plan? (c is p's
 * configuration, digit its axis digits.) The kept twin differs only in
 * the axis named, so it is in the space, valid alike, and in whichever
 * shard its index falls. tests/test_sweep.c checks that the twins'
 * plans agree in every output field. */
static bool equivalent(const equivalence *eq, const int *digit,
                       const tplan_config *c, const tplan_plan *p)
{
    /* offloaded parameters need ZeRO-3 and gather layers even at dp = 1 */
    if (eq->zero_ax >= 0 && p->dp == 1 && digit[eq->zero_ax] != eq->zero_keep &&
        c->offload_params == TPLAN_OFFLOAD_NONE)
        return true;
    if (eq->rec_ax < 0)
        return false;
    if (c->model.arch == TPLAN_ARCH_GENERIC)
        return digit[eq->rec_ax] != eq->rec_keep;
    return c->attention == TPLAN_ATTN_FLASH &&
           c->recompute == TPLAN_RECOMPUTE_SELECTIVE && eq->rec_none >= 0;
}

/* Shared state of one run's workers. */
typedef struct shared {
    tplan_sweep_run *run;
    /* the order the workers walk the axes in: the spec's own, or a copy
     * with the axes by reach class (walk_init); stride[k] is walk axis
     * k's step of the canonical index */
    const tplan_sweep_spec *walk;
    tplan_sweep_spec *walk_own;
    int64_t stride[TPLAN_MAX_AXES];
    axis_step steps[TPLAN_MAX_AXES]; /* the walk's axes' (axis_steps_init) */
    /* reuse_flags of each set of reach classes a step can change (bit 1 <<
     * reach each), worked out once a run rather than at every index */
    unsigned reuse_of[1u << (TPLAN_REACH_RUN + 1)];
    equivalence eq;
    int64_t local_n; /* indexes of this shard */
    atomic_llong next;
    atomic_llong done;
    atomic_int failed;
    pthread_mutex_t sink_lock;
    tplan_err err; /* the first failure */
    bool constrained; /* the spec's where sets a constraint */
    /* keep = N with no constraint, where expression, hook or front: a
     * plan evaluated goes straight to the ranking */
    bool plain_top;
} shared;

/* The canonical index of the walk's digits. */
static int64_t canonical_index(const shared *sh, const int *digit)
{
    int64_t index = 0;

    for (int k = 0; k < sh->walk->n_axes; k++)
        index += digit[k] * sh->stride[k];
    return index;
}

/* Each worker on cache lines of its own: the counters are written for
 * every configuration, and two workers sharing a line slow each other. */
typedef struct worker {
    _Alignas(64) shared *sh;
    tplan_topk top;
    tplan_front front;
    /* keep = "fits"/"all" without a sink: this worker's kept plans, in
     * its indexes' order until it sorts them at the end (no lock) */
    tplan_ranked *kept;
    int64_t n_kept, cap_kept;
    tplan_plan *full; /* with a sink: the plan handed to it */
    void *prep;       /* the sink_prep's slot */
    tplan_sweep_stats stats;
    bool main;
    bool layout_bad; /* the last configuration visited broke a layout rule
                        or the batch solve refused it */
    int bad_stands;  /* the lowest reach (fields.h) of a change its
                        refusal stands for: a layout's stands for a new
                        target batch, the batch solve's does not */
    const char *const *bad_reads;  /* what that rule reads (NULL: unknown) */
    tplan_layout_memo layout; /* the layout rules' last pass (visit) */
    const char *const *skip_reads; /* the rule skip_at was found for */
    int skip_at; /* the innermost axis skip_reads names (-1: none) */
    /* equivalent()'s answer for the last configuration evaluated: it
     * reads only whole-plan (TPLAN_REACH_ALL) inputs, so it stands for a
     * staged evaluation, whose premise is that only cheaper classes
     * changed since that one; a full evaluation asks again */
    bool eq_last;
    /* fit_first()'s answer, asked again after each plan visit offers to
     * the ranking (plain_top: nothing else changes the heap) until it is
     * yes, which it stays for the rest of the run; read at every
     * evaluation (issue 38) */
    unsigned fit_flag;
    pthread_t thread;
} worker;

static bool stopped(const shared *sh)
{
    return atomic_load(&sh->failed) || (sh->run->stop && *sh->run->stop);
}

static void fail(shared *sh, const tplan_err *e)
{
    int expect = 0;

    if (atomic_compare_exchange_strong(&sh->failed, &expect, 1))
        sh->err = *e;
}

/* Double a worker's buffer of kept plans; false when memory is short. */
static bool grow_kept(worker *w)
{
    int64_t cap = w->cap_kept ? w->cap_kept * 2 : 4096;
    tplan_ranked *k;

    if ((uint64_t)cap > SIZE_MAX / sizeof *k)
        return false;
    k = realloc(w->kept, sizeof *k * (size_t)cap);
    if (!k)
        return false;
    w->kept = k;
    w->cap_kept = cap;
    return true;
}

/* A keep = N sweep with nothing but the ranking to pass (plain_top),
 * fitting plans first, whose worker's top N all fit: a plan that does
 * not fit is turned away on that alone (tplan_topk_offer), so its time
 * is not worked out (issue 38). Once full of fitting plans, a heap stays
 * so: the flag never turns off again within a run. */
static unsigned fit_first(const shared *sh, const worker *w)
{
    return sh->plain_top && !sh->run->spec->mix_unfit &&
                   tplan_topk_full_of_fitting(&w->top)
               ? TPLAN_EVAL_FIT_FIRST
               : 0;
}

/* What visit asks of every evaluation, besides the reuse and fit_first
 * flags */
#define VISIT_FLAGS                                                            \
    (TPLAN_EVAL_FIGURES | TPLAN_EVAL_TRUSTED_PARTS | TPLAN_EVAL_LAYOUT_CHECKED)

/* One index: evaluate, constrain, hook, rank. */
static bool visit(worker *w, int64_t index, const int *digit, tplan_plan *p,
                  tplan_config *c, tplan_act_cache *cache, unsigned reuse)
{
    shared *sh = w->sh;
    const tplan_sweep_run *r = sh->run;
    const tplan_sweep_spec *s = r->spec;
    tplan_ranked rk;
    tplan_err e;
    tplan_drop drop;
    double score = 0.0;

    /* stats.visited and stats.evaluated: counted by work() a chunk at
     * a time */
    w->layout_bad = false;
    /* c is the index's config (work() sets it); a layout the rules refuse
     * is told apart from a plan that fails later (work() skips the
     * layout's time- and run-class neighbours) */
    if (!reuse && tplan_layout_memo_check(&w->layout, sh->walk, digit, c,
                                          cache, &w->bad_reads) != TPLAN_OK) {
        w->layout_bad = true;
        w->bad_stands = TPLAN_REACH_BATCH;
        w->stats.invalid++;
        return false;
    }
    if (tplan_plan_eval_cached(c, cache, p, VISIT_FLAGS | reuse | w->fit_flag,
                               NULL) != TPLAN_OK) {
        /* the batch solve reads no time- or run-class input: its
         * refusal stands for those neighbours as a layout's does */
        w->layout_bad =
            (!reuse || reuse == TPLAN_EVAL_REUSE_BATCH) && p->batch_refused;
        w->bad_stands = TPLAN_REACH_TIME;
        w->bad_reads = NULL;
        w->stats.invalid++;
        return false;
    }
    w->stats.reused += reuse != 0;
    w->stats.unfit_untimed += p->time_skipped;
    if (!reuse)
        w->eq_last = equivalent(&sh->eq, digit, c, p);
    if (w->eq_last) {
        w->stats.dropped[TPLAN_DROP_EQUIVALENT]++;
        return true;
    }
    if (sh->plain_top) { /* what the tests below would do, without them */
        w->stats.passed++;
        tplan_topk_offer(&w->top, index, s->rank, s->n_rank, p, (double)NAN,
                         !s->mix_unfit);
        if (!w->fit_flag)
            w->fit_flag = fit_first(sh, w);
        return true;
    }
    if (sh->constrained &&
        (drop = passes(&s->where, p)) != TPLAN_DROP_COUNT) {
        w->stats.dropped[drop]++;
        return true;
    }
    if (s->filter.n > 0 && !tplan_expr_eval(&s->filter, p)) {
        w->stats.dropped[TPLAN_DROP_WHERE]++;
        return true;
    }
    if (r->hook) {
        int keep = r->hook(r->hook_ud, index, p, &score, &e);

        if (keep < 0) {
            fail(sh, &e);
            return true;
        }
        if (!keep) {
            w->stats.dropped[TPLAN_DROP_WHERE]++;
            return true;
        }
    }
    w->stats.passed++;
    tplan_ranked_set(&rk, index, s->rank, s->n_rank, p,
                     r->hook ? score : (double)NAN, !s->mix_unfit);
    if (s->pareto && !r->no_front)
        tplan_front_push(&w->front, &rk);
    if (s->keep_mode == TPLAN_KEEP_TOP) {
        tplan_topk_push(&w->top, &rk);
        return true;
    }
    if (s->keep_mode == TPLAN_KEEP_FITS && !p->mem.fits) {
        w->stats.dropped[TPLAN_DROP_FITS]++; /* keep = "fits" */
        return true;
    }
    w->stats.kept++;
    w->stats.kept_unfit += !p->mem.fits;
    if ((r->sink || r->count_only) && r->top_also > 0)
        tplan_topk_push(&w->top, &rk);
    if (r->count_only && !r->sink)
        return true;
    if (!r->sink) {
        if (w->n_kept == w->cap_kept && !grow_kept(w)) {
            tplan_err_set(&e, TPLAN_ENOMEM, "keep",
                          "out of memory keeping %lld plans",
                          (long long)w->n_kept + 1);
            fail(sh, &e);
            return true;
        }
        w->kept[w->n_kept++] = rk;
        return true;
    }
    /* the warnings, on this worker's core, outside the lock, with the
     * worker's activation cache (issue 38: without it the rebuilt
     * activation tables were 37% of a streamed row's cost) */
    if (!r->sink_figures &&
        tplan_plan_eval_cached(c, cache, w->full,
                               tplan_sweep_write_flags(s) |
                                   TPLAN_EVAL_TRUSTED_PARTS |
                                   TPLAN_EVAL_LAYOUT_CHECKED,
                               &e) != TPLAN_OK) {
        fail(sh, &e);
        return true;
    }
    if (r->sink_prep &&
        r->sink_prep(r->sink_ud, index, r->sink_figures ? p : w->full,
                     rk.score, &w->prep)) {
        tplan_err_set(&e, TPLAN_ESTOP, "sink", "the result sink failed");
        fail(sh, &e);
        return true;
    }
    pthread_mutex_lock(&sh->sink_lock);
    if (r->sink(r->sink_ud, index, r->sink_figures ? p : w->full, rk.score,
                w->prep)) {
        tplan_err_set(&e, TPLAN_ESTOP, "sink", "the result sink failed");
        fail(sh, &e);
    }
    pthread_mutex_unlock(&sh->sink_lock);
    return true;
}

/* After the configuration at digit broke a layout rule: every index up
 * to the next change of an axis the rule reads breaks it too (config.h,
 * tplan_config_layout_deps). Passes them at once, at most max: moves the
 * digits inside to their last values without applying them (the next
 * odometer_step carries through each and applies it) and returns how
 * many indexes it passed; with fewer than that left in the chunk it
 * passes max and leaves the digits (the next chunk decodes its own). */
static int64_t skip_refused(worker *w, const tplan_sweep_spec *s, int *digit,
                            int64_t max)
{
    int64_t left = 0, stride = 1;

    if (!w->bad_reads)
        return 0;
    if (w->bad_reads != w->skip_reads) {
        w->skip_reads = w->bad_reads;
        w->skip_at = -1;
        for (const char *const *d = w->bad_reads; *d; d++) {
            int id = tplan_field_find_input(*d);

            for (int i = s->n_axes - 1; i > w->skip_at; i--)
                if (s->axes[i].id == id && s->axes[i].n > 1) {
                    w->skip_at = i;
                    break;
                }
        }
    }
    for (int i = s->n_axes - 1; i > w->skip_at; i--) {
        left += (int64_t)(s->axes[i].n - 1 - digit[i]) * stride;
        stride *= s->axes[i].n;
    }
    if (left > max)
        return max;
    for (int i = s->n_axes - 1; i > w->skip_at; i--)
        digit[i] = s->axes[i].n - 1;
    return left;
}

/* A plain_top sweep's step of the innermost axis, the NIC's speed, alone,
 * after a plan that such a step leaves as it is (tplan_plan_eval_nic):
 * what visit does at the axis's next max values (max >= 1, all in the
 * chunk; index, the first one's, and a step apart), without their
 * evaluations, which would each return the same plan: the same counts,
 * and the same plan offered at each index until the ranking turns one
 * away (then it would turn away the rest: tplan_topk_offer_in). It
 * stops after an index whose offer turns fit_first's answer on: the
 * next one's flags differ (FIT_FIRST; only a plan that fits turns it
 * on, and one that fits stands under either flags: a stop to be safe,
 * not needed). Returns the indexes passed, >= 1 (issue 38: a third of
 * the NIC changes of the bench's space, plans that do not fit or do not
 * cross nodes). */
__attribute__((noinline)) static int64_t
nic_stands(worker *w, const tplan_plan *p, int64_t index, int64_t step,
           int64_t max)
{
    const tplan_sweep_spec *s = w->sh->run->spec;
    int64_t n = max;

    if (!w->eq_last) {
        for (int64_t k = 0; k < max; k++) {
            if (!tplan_topk_offer_in(&w->top, index + k * step, s->rank,
                                     s->n_rank, p, (double)NAN,
                                     !s->mix_unfit))
                break; /* and so would the rest be: n = max */
            if (!w->fit_flag && (w->fit_flag = fit_first(w->sh, w))) {
                n = k + 1;
                break;
            }
        }
        w->stats.passed += n;
    } else {
        w->stats.dropped[TPLAN_DROP_EQUIVALENT] += n;
    }
    w->stats.reused += n;
    w->stats.unfit_untimed += n * p->time_skipped;
    return n;
}

/* The NIC axis as work() walks it: its values as tplan_field_apply
 * stores them and their double (NULL: apply at each step), the
 * canonical index's step between two, and the reuse flags of a step of
 * it alone (TPLAN_EVAL_NIC_ONLY among them) */
typedef struct nic_axis {
    const tplan_axis *axis;
    const double *vals;
    double *slot;
    int64_t step;
    unsigned reuse;
} nic_axis;

/* A plain_top sweep's steps of the innermost axis, the NIC's speed,
 * alone, after a plan visited at the value before (digit - 1): what
 * visit does at index and the axis's next values, max in all (all in
 * the chunk), in a loop of their own (issue 38: the walk's and visit's
 * per-index tests and stores were a third of such a step's cost). A
 * plan the step leaves as it is passes the rest at once (nic_stands).
 * Returns the indexes passed (>= 1); the field holds the last one's
 * value. A staged evaluation that fails is counted as visit counts it,
 * and ends the loop with *have false (the next index is evaluated in
 * full). noinline, as nic_stands: out of work()'s loop, whose other
 * kinds of step it would slow (registers). */
__attribute__((noinline)) static int64_t
nic_walk(worker *w, tplan_plan *p, tplan_act_cache *cache, const nic_axis *ax,
         int digit, int64_t index, int64_t max, bool *have)
{
    const tplan_sweep_spec *s = w->sh->run->spec;
    const bool fits_first = !s->mix_unfit;
    tplan_config *c = &p->config;

    const bool eq = w->eq_last; /* equivalent()'s answer stands (visit) */
    int64_t k, done = 0, untimed = 0; /* evaluated here, not timed */
    int64_t n = max;

    for (k = 0; k < max; k++) {
        const unsigned flags = VISIT_FLAGS | ax->reuse | w->fit_flag;
        bool stands;
        int rc;

        if (k > 0) { /* index + k's value (the caller set index's) */
            if (ax->slot)
                *ax->slot = ax->vals[digit + k];
            else
                tplan_field_apply(ax->axis->id, ax->axis->values[digit + k],
                                  c);
        }
        rc = tplan_plan_eval_nic(p, cache, flags, &stands, NULL);
        if (stands) {
            n = k + nic_stands(w, p, index + k * ax->step, ax->step, max - k);
            break;
        }
        if (rc != TPLAN_OK) {
            /* visit's refusal after a staged step that is not the batch's:
             * no layout's, and nothing it stands for */
            w->layout_bad = false;
            w->bad_stands = TPLAN_REACH_TIME;
            w->bad_reads = NULL;
            w->stats.invalid++;
            *have = false;
            n = k + 1;
            break;
        }
        done++;
        untimed += p->time_skipped;
        if (eq)
            continue;
        tplan_topk_offer_in(&w->top, index + k * ax->step, s->rank,
                            s->n_rank, p, (double)NAN, fits_first);
        if (!w->fit_flag)
            w->fit_flag = fit_first(w->sh, w);
    }
    /* visit's counts of the indexes evaluated here, at once */
    w->stats.reused += done;
    w->stats.unfit_untimed += untimed;
    if (eq)
        w->stats.dropped[TPLAN_DROP_EQUIVALENT] += done;
    else
        w->stats.passed += done;
    return n;
}

/* The lowest reach among odometer_step's classes (TPLAN_REACH_RUN + 1:
 * none changed) */
static int lowest_reach(unsigned moved)
{
    return moved ? __builtin_ctz(moved) : TPLAN_REACH_RUN + 1;
}

/* What a staged evaluation keeps after changes of these reach classes
 * (plan.h): a batch change keeps the time too where nothing else but the
 * run's figures moved with it (TPLAN_EVAL_BATCH_ONLY) */
static unsigned reuse_flags(unsigned moved)
{
    switch (lowest_reach(moved)) {
    case TPLAN_REACH_BATCH:
        return TPLAN_EVAL_REUSE_BATCH |
               (moved & (1u << TPLAN_REACH_TIME | 1u << TPLAN_REACH_COMM)
                    ? 0
                    : TPLAN_EVAL_BATCH_ONLY);
    case TPLAN_REACH_TIME:
        return TPLAN_EVAL_REUSE_MEMORY;
    case TPLAN_REACH_COMM:
        return TPLAN_EVAL_REUSE_COMPUTE |
               (moved & 1u << TPLAN_REACH_RUN ? 0 : TPLAN_EVAL_COMM_ONLY);
    case TPLAN_REACH_RUN:
        return TPLAN_EVAL_REUSE_TIME;
    default:
        return 0;
    }
}

static void *work(void *arg)
{
    worker *w = arg;
    shared *sh = w->sh;
    const tplan_sweep_run *r = sh->run;
    /* a plan is large: one per worker, reused for every index */
    tplan_plan *p = malloc(sizeof *p);
    tplan_act_cache *cache = calloc(1, sizeof *cache);
    int64_t since_progress = 0;

    if (!p || !cache) {
        tplan_err e;

        tplan_err_set(&e, TPLAN_ENOMEM, "sweep", "out of memory");
        fail(sh, &e);
        free(p);
        free(cache);
        return NULL;
    }
    /* The index's config is the plan's own: an evaluation leaves
     * p->config as it was asked (plan.c), so the odometer changes only
     * the axes' fields, and a staged re-evaluation copies no config. */
    tplan_config *c = &p->config;
    const tplan_sweep_spec *walk = sh->walk;
    /* the spec's options, read once here rather than at every index (a
     * visit is a call the compiler cannot see through) */
    const bool canonical = walk == r->spec, staged = !r->spec->unstaged;
    const bool one_shard = r->shards == 1;
    const int64_t *stride = canonical ? NULL : sh->stride;
    const int64_t shard = r->shard, shards = r->shards;
    int digit[TPLAN_MAX_AXES];
    /* the innermost walk axis, read once (issue 38: odometer_step's
     * commonest step, moving it alone, inline below) */
    const int last = walk->n_axes - 1;
    const tplan_axis *inner = last >= 0 ? &walk->axes[last] : NULL;
    const bool inner_plain = one_shard && inner && !sh->steps[last].replaces;
    const unsigned inner_bit = last >= 0 ? sh->steps[last].reach_bit : 0;
    const int64_t inner_stride = stride && last >= 0 ? stride[last] : 0;
    /* a step of that axis alone where it is the NIC's speed changes no
     * other field: TPLAN_EVAL_NIC_ONLY (plan.h) with its reuse flags */
    const unsigned inner_nic =
        inner_plain && inner->id == tplan_field_find_input("nic_gbps")
            ? TPLAN_EVAL_NIC_ONLY
            : 0;
    /* where that axis's field is one double that tplan_field_apply sets
     * from the value alone (fields.h, tplan_field_double_at): the
     * values as apply stores them, worked out here by apply itself, and
     * the double they go to (NULL: apply at each step) */
    const long inner_at = inner_plain ? tplan_field_double_at(inner->id) : -1;
    double *inner_vals =
        inner_at >= 0 ? malloc(sizeof *inner_vals * (size_t)inner->n) : NULL;
    double *const inner_slot =
        inner_vals ? (double *)(void *)((char *)c + inner_at) : NULL;
    unsigned moved;   /* the reach classes the last step changed */
    unsigned nic = 0; /* inner_nic where the last step was that one */
    int64_t cidx = 0; /* walking by reach: the digits' canonical index */
    bool have = false;
    /* the NIC axis for nic_walk, a step of it alone's reuse flags (what
     * the loop's reuse is then: reuse_of[inner_bit] | inner_nic) */
    const nic_axis nic_ax = {inner, inner_vals, inner_slot,
                             canonical ? 1 : inner_stride,
                             sh->reuse_of[inner_bit] | inner_nic};

    for (int k = 0; inner_vals && k < inner->n; k++) {
        tplan_field_apply(inner->id, inner->values[k], c);
        inner_vals[k] = *inner_slot;
    }
    *c = r->spec->base;
    while (!stopped(sh)) {
        int64_t from = atomic_fetch_add(&sh->next, CHUNK), to, j;

        if (from >= sh->local_n)
            break;
        to = from + CHUNK < sh->local_n ? from + CHUNK : sh->local_n;
        odometer_set(walk, shard + from * shards, digit, c);
        cidx = canonical ? 0 : canonical_index(sh, digit);
        /* staged: p holds the figures of the configuration before, which
         * differs from this one in the axes odometer_step changed; where
         * those reach only the time or the run, the rest is kept */
        moved = 1u << TPLAN_REACH_ALL;
        nic = 0;
        w->layout_bad = false;
        for (j = from; j < to && !atomic_load(&sh->failed); j++) {
            /* have: the plan in p is the last index's (visit evaluated
             * it), so the step's changes are all since its evaluation */
            unsigned reuse = staged && have ? sh->reuse_of[moved] | nic : 0;

            /* a NIC step (reuse: after a plan visited, have): the
             * axis's values up to the chunk's end in nic_walk's loop,
             * the digits, index and field at the last it passed */
            if ((reuse & TPLAN_EVAL_NIC_ONLY) && sh->plain_top) {
                int64_t left = inner->n - digit[last], n;

                n = nic_walk(w, p, cache, &nic_ax, digit[last],
                             canonical ? j : cidx,
                             left < to - j ? left : to - j, &have);
                j += n - 1;
                digit[last] += (int)(n - 1);
                cidx += (n - 1) * inner_stride;
                if (inner_slot)
                    *inner_slot = inner_vals[digit[last]];
                else
                    tplan_field_apply(inner->id, inner->values[digit[last]], c);
            } else if (w->layout_bad &&
                       lowest_reach(moved) >= w->bad_stands && staged) {
                /* batch-, time- and run-class fields are only
                 * range-checked by the layout rules: a layout they
                 * refused stays refused */
                w->stats.invalid++;
            } else {
                have = visit(w, canonical ? shard + j * shards : cidx, digit, p,
                             c, cache, reuse);
                /* a refused layout's whole sub-space at once (one shard:
                 * consecutive indexes are this worker's) */
                if (w->layout_bad && one_shard && staged) {
                    int64_t n = skip_refused(w, walk, digit, to - j - 1);

                    w->stats.invalid += n;
                    w->stats.skipped += n;
                    j += n;
                    if (!canonical) /* the digits moved at once */
                        cidx = canonical_index(sh, digit);
                }
            }
            /* odometer_step's step of the innermost axis alone, where it
             * replaces no struct: the same digits, index and field */
            if (inner_plain && digit[last] + 1 < inner->n) {
                digit[last]++;
                cidx += inner_stride;
                if (inner_slot)
                    *inner_slot = inner_vals[digit[last]];
                else
                    tplan_field_apply(inner->id, inner->values[digit[last]], c);
                moved = inner_bit;
                nic = inner_nic;
            } else {
                moved = odometer_step(walk, sh->steps, shards, digit, c, stride,
                                      &cidx);
                nic = 0;
            }
        }
        /* every index the loop passed was visited: evaluated, refused
         * or skipped (visit, skip_refused) */
        w->stats.visited += j - from;
        atomic_fetch_add(&sh->done, to - from);
        since_progress += to - from;
        if (w->main && r->progress && since_progress >= (1 << 16)) {
            r->progress(r->progress_ud, atomic_load(&sh->done), sh->local_n);
            since_progress = 0;
        }
    }
    /* what was visited and not refused was evaluated (visit) */
    w->stats.evaluated = w->stats.visited - w->stats.invalid;
    /* each worker ranks its own kept plans, on its own core */
    tplan_ranked_sort(w->kept, w->n_kept, r->spec->n_rank);
    free(inner_vals);
    free(p);
    free(cache);
    return NULL;
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* keep = "fits"/"all": the workers' sorted buffers, one after another in
 * the first one's storage, merged into one ranking. */
/* Merge worker w's ranked buffer into the ranked all[0..n) (room for n
 * + w->n_kept), from the back: the larger end of either goes last, so
 * all's own entries move only onto slots already free. w's buffer is
 * consumed from its end and shrunk as it goes, so the two never hold much
 * more than the whole between them. */
#define SHRINK_EVERY 65536

static void merge_from_back(tplan_ranked *all, int64_t n, worker *w, int nobj)
{
    int64_t i = n - 1, j = w->n_kept - 1, k = n + w->n_kept - 1, since = 0;

    while (j >= 0) {
        if (i >= 0 && tplan_ranked_before(&w->kept[j], &all[i], nobj))
            all[k--] = all[i--];
        else {
            all[k--] = w->kept[j--];
            /* give back what is consumed (a failed shrink keeps it) */
            if (++since == SHRINK_EVERY && j >= 0) {
                tplan_ranked *t =
                    realloc(w->kept, sizeof *t * (size_t)(j + 1));

                if (t)
                    w->kept = t;
                since = 0;
            }
        }
    }
    free(w->kept);
    w->kept = NULL;
    w->n_kept = 0;
}

/* keep = "fits"/"all": the workers' ranked buffers merged into the first
 * one's storage, grown to hold them all: about the whole's size at the
 * peak (the buffers and a second copy would be twice). */
static int gather_kept(tplan_sweep_run *r, worker *ws, int nw, tplan_err *err)
{
    int64_t total = 0, n;
    tplan_ranked *all = ws[0].kept;

    for (int i = 0; i < nw; i++)
        total += ws[i].n_kept;
    if (total == 0)
        return TPLAN_OK; /* nothing kept: no buffer to merge */
    if (total > ws[0].cap_kept) {
        if ((uint64_t)total > SIZE_MAX / sizeof *all ||
            !(all = realloc(ws[0].kept, sizeof *all * (size_t)total)))
            return tplan_err_set(err, TPLAN_ENOMEM, "keep",
                                 "out of memory keeping %lld plans",
                                 (long long)total);
    }
    ws[0].kept = NULL; /* now the run's */
    n = ws[0].n_kept;
    for (int i = 1; i < nw; i++) {
        int64_t add = ws[i].n_kept;

        if (add > 0)
            merge_from_back(all, n, &ws[i], r->spec->n_rank);
        n += add;
    }
    r->kept = all;
    r->n_kept = total;
    return TPLAN_OK;
}

/* How many ranked entries the run's top holds: keep = N's, or the best
 * top_also of a streamed sweep's kept plans. */
static int64_t top_cap(const tplan_sweep_run *r)
{
    if (r->spec->keep_mode == TPLAN_KEEP_TOP)
        return r->spec->keep;
    return r->sink || r->count_only ? r->top_also : 0;
}

/* Merge the workers' tops and fronts into the run's results. */
static int merge(tplan_sweep_run *r, worker *ws, int nw, tplan_err *err)
{
    const tplan_sweep_spec *s = r->spec;
    int64_t cap = top_cap(r);
    tplan_topk top = {NULL, (int)cap, 0, s->n_rank};
    tplan_front front = {NULL, FRONT_CAP, 0, s->n_rank, false};
    bool pareto = s->pareto && !r->no_front;

    if (cap > 0 && !(top.items = malloc(sizeof *top.items * (size_t)cap)))
        goto nomem;
    if (pareto && !(front.items = malloc(sizeof *front.items * FRONT_CAP)))
        goto nomem;
    for (int i = 0; i < nw; i++) {
        for (int k = 0; k < ws[i].top.n; k++)
            tplan_topk_push(&top, &ws[i].top.items[k]);
        for (int k = 0; k < ws[i].front.n; k++)
            tplan_front_push(&front, &ws[i].front.items[k]);
        front.truncated = front.truncated || ws[i].front.truncated;
    }
    tplan_topk_sort(&top);
    r->top = top.items;
    r->n_top = top.n;
    if (s->keep_mode == TPLAN_KEEP_TOP) {
        r->stats.kept = top.n;
        for (int i = 0; i < top.n; i++)
            r->stats.kept_unfit += !top.items[i].fits;
    }
    if (pareto) {
        tplan_ranked_sort(front.items, front.n, s->n_rank);
        r->front = front.items;
        r->n_front = front.n;
        r->stats.front_truncated = front.truncated;
    }
    return TPLAN_OK;
nomem:
    free(top.items);
    free(front.items);
    return tplan_err_set(err, TPLAN_ENOMEM, "keep",
                         "out of memory keeping %lld plans", (long long)cap);
}

/* The walk order (issue 38 item 2). A staged evaluation re-uses the
 * configuration before's figures when only cheap axes changed (a time-,
 * communication- or run-class field), so the walk goes fastest over those:
 * the axes are ordered by what a change of theirs reaches, the whole plan
 * outermost, the run's figures innermost, in their canonical order
 * within a class. The index stays the canonical one (the mixed radix of
 * the spec's order, which indexes, ties, shards, merges and stored rows
 * use), computed from the walk's digits. A shard takes every Nth
 * canonical index and walks them in that order; a sweep asked to
 * (canonical_walk) or not staged walks the spec's order. False: the
 * spec's own order is already the walk's. */
static int axis_class(const tplan_axis *a)
{
    return a->n < 2 ? -1 : (int)axis_reach(a);
}

static bool walk_init(const tplan_sweep_run *r, shared *sh, tplan_err *err)
{
    const tplan_sweep_spec *s = r->spec;
    int perm[TPLAN_MAX_AXES], n = s->n_axes;
    int64_t canon[TPLAN_MAX_AXES], st = 1;
    bool moved = false;

    sh->walk = s;
    for (int i = n - 1; i >= 0; i--) {
        canon[i] = st;
        sh->stride[i] = st;
        st *= s->axes[i].n;
    }
    if (r->shards > 1 || s->unstaged || s->canonical_walk)
        return false;
    /* a stable insertion sort by class: n is at most TPLAN_MAX_AXES; an
     * axis of one value stays where it is (it never changes) */
    for (int i = 0; i < n; i++) {
        int k = i;

        perm[i] = i;
        while (k > 0 && axis_class(&s->axes[i]) >= 0 &&
               axis_class(&s->axes[perm[k - 1]]) > axis_class(&s->axes[i])) {
            perm[k] = perm[k - 1];
            k--;
        }
        perm[k] = i;
    }
    for (int i = 0; i < n; i++)
        moved = moved || perm[i] != i;
    if (!moved)
        return false;
    if (!(sh->walk_own = malloc(sizeof *sh->walk_own))) {
        tplan_err_set(err, TPLAN_ENOMEM, "sweep", "out of memory");
        return true;
    }
    *sh->walk_own = *s;
    for (int k = 0; k < n; k++) {
        sh->walk_own->axes[k] = s->axes[perm[k]];
        sh->stride[k] = canon[perm[k]];
    }
    sh->walk = sh->walk_own;
    return false;
}

int tplan_sweep_exec(tplan_sweep_run *r, tplan_err *err)
{
    const tplan_sweep_spec *s = r->spec;
    bool pareto = s->pareto && !r->no_front;
    int nw = r->hook ? 1 : (r->threads < 1 ? 1 : r->threads), started;
    int64_t space, keep;
    worker *ws = NULL;
    shared sh;
    double t0 = now_s();
    int rc;

    memset(&r->stats, 0, sizeof r->stats);
    r->top = r->front = r->kept = NULL;
    r->n_top = r->n_front = 0;
    r->n_kept = 0;
    if ((rc = tplan_sweep_validate(s, err)))
        return rc;
    if (r->shards < 1 || r->shard < 0 || r->shard >= r->shards)
        return tplan_err_set(err, TPLAN_EINVAL, "shard",
                             "shard must be K/N with 0 <= K < N (shard=%lld/"
                             "%lld)",
                             (long long)r->shard, (long long)r->shards);
    if (nw > TPLAN_MAX_THREADS)
        nw = TPLAN_MAX_THREADS;
    space = tplan_sweep_size(s);
    keep = top_cap(r);
    if (keep < 0 || keep > TPLAN_MAX_KEEP)
        return tplan_err_set(err, TPLAN_EINVAL, "keep",
                             "top_also must be 0 to %d (got %lld)",
                             TPLAN_MAX_KEEP, (long long)keep);
    memset(&sh, 0, sizeof sh);
    sh.run = r;
    if (walk_init(r, &sh, err))
        return TPLAN_ENOMEM;
    axis_steps_init(sh.walk, sh.steps);
    for (unsigned m = 0; m < sizeof sh.reuse_of / sizeof *sh.reuse_of; m++)
        sh.reuse_of[m] = reuse_flags(m);
    /* the equivalence reads digits: the walk's */
    equivalence_init(sh.walk, &sh.eq);
    sh.constrained = constrained(&r->spec->where);
    sh.plain_top = !sh.constrained && s->filter.n == 0 && !r->hook && !pareto &&
                   s->keep_mode == TPLAN_KEEP_TOP;
    sh.local_n =
        space > r->shard ? (space - r->shard + r->shards - 1) / r->shards : 0;
    /* a worker's heap never holds more than the shard's configurations */
    if (keep > sh.local_n)
        keep = sh.local_n;
    atomic_init(&sh.next, 0);
    atomic_init(&sh.done, 0);
    atomic_init(&sh.failed, 0);
    pthread_mutex_init(&sh.sink_lock, NULL);
    if ((ws = aligned_alloc(64, (size_t)nw * sizeof *ws)))
        memset(ws, 0, (size_t)nw * sizeof *ws);
    if (!ws)
        goto nomem;
    for (int i = 0; i < nw; i++) {
        ws[i].sh = &sh;
        ws[i].main = i == 0;
        ws[i].top.cap = (int)keep;
        ws[i].top.nobj = s->n_rank;
        ws[i].front.cap = pareto ? FRONT_CAP : 0;
        ws[i].front.nobj = s->n_rank;
        if (keep > 0 &&
            !(ws[i].top.items = malloc(sizeof(tplan_ranked) * (size_t)keep)))
            goto nomem;
        if (pareto &&
            !(ws[i].front.items = malloc(sizeof(tplan_ranked) * FRONT_CAP)))
            goto nomem;
        if (r->sink && !r->sink_figures &&
            !(ws[i].full = malloc(sizeof *ws[i].full)))
            goto nomem;
    }
    started = nw;
    for (int i = 1; i < nw; i++)
        if (pthread_create(&ws[i].thread, NULL, work, &ws[i])) {
            started = i; /* run with the threads that started */
            break;
        }
    work(&ws[0]);
    for (int i = 1; i < started; i++)
        pthread_join(ws[i].thread, NULL);

    r->stats.space = space;
    for (int i = 0; i < started; i++) {
        r->stats.visited += ws[i].stats.visited;
        r->stats.invalid += ws[i].stats.invalid;
        r->stats.skipped += ws[i].stats.skipped;
        r->stats.evaluated += ws[i].stats.evaluated;
        r->stats.reused += ws[i].stats.reused;
        r->stats.unfit_untimed += ws[i].stats.unfit_untimed;
        r->stats.passed += ws[i].stats.passed;
        r->stats.kept += ws[i].stats.kept;
        r->stats.kept_unfit += ws[i].stats.kept_unfit;
        for (int d = 0; d < TPLAN_DROP_COUNT; d++)
            r->stats.dropped[d] += ws[i].stats.dropped[d];
    }
    r->stats.interrupted = r->stop && *r->stop;
    rc = atomic_load(&sh.failed) ? sh.err.code : TPLAN_OK;
    if (rc && err)
        *err = sh.err;
    if (rc == TPLAN_OK)
        rc = merge(r, ws, started, err);
    if (rc == TPLAN_OK && s->keep_mode != TPLAN_KEEP_TOP && !r->sink &&
        !r->count_only)
        rc = gather_kept(r, ws, started, err);
    r->stats.seconds = now_s() - t0;
    for (int i = 0; i < nw; i++) {
        free(ws[i].top.items);
        free(ws[i].front.items);
        free(ws[i].kept);
        free(ws[i].full);
        if (ws[i].prep && r->sink_prep_free)
            r->sink_prep_free(ws[i].prep);
    }
    free(ws);
    free(sh.walk_own);
    pthread_mutex_destroy(&sh.sink_lock);
    return rc;
nomem:
    if (ws)
        for (int i = 0; i < nw; i++) {
            free(ws[i].top.items);
            free(ws[i].front.items);
            free(ws[i].full);
        }
    free(ws);
    free(sh.walk_own);
    pthread_mutex_destroy(&sh.sink_lock);
    return tplan_err_set(err, TPLAN_ENOMEM, "keep",
                         "out of memory for a sweep keeping %lld plans on %d "
                         "threads",
                         (long long)keep, nw);
}

void tplan_sweep_run_free(tplan_sweep_run *r)
{
    if (!r)
        return;
    free(r->top);
    free(r->front);
    free(r->kept);
    r->top = r->front = r->kept = NULL;
    r->n_top = r->n_front = 0;
    r->n_kept = 0;
}
