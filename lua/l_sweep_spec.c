/* tplan.sweep's spec: the base config, axes, limits, objectives and
 * keep, read from the sweep's table. Values go through the field table
 * (one message per bad value, as tplan.plan and tplan calc give). */
#include "l_tplan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "l_util.h"
#include "sweep.h"

/* The sweep's own fields beside the config's. */
static const char *const sweep_fields_extra[] = {
    "name", "axes", "limits", "where",   "score",
    "rank", "keep", "pareto", "keep_equivalents", "threads", "staged",
    "ranked", "fits_first", "advice", "walk", NULL};

/* ---- spec parsing ----------------------------------------------------- */

static void check_sweep_fields(lua_State *L, int idx)
{
    lt_check_config_fields(L, idx, "tplan.sweep", sweep_fields_extra);
}

static int add_gpu(lua_State *L, tplan_sweep_spec *s, const tplan_gpu *g)
{
    for (int i = 0; i < s->n_gpus; i++) {
        const tplan_gpu *o = &s->gpus[i];

        if (strcmp(o->name, g->name) != 0)
            continue;
        /* plans name their GPU: two GPUs of one name would be mixed up */
        if (!tplan_gpu_same(o, g))
            lu_error(L, "tplan.sweep",
                     "axes.gpu has two different GPUs named '%s': give "
                     "each a name of its own",
                     g->name);
        return i;
    }
    if (s->n_gpus >= TPLAN_MAX_SWEEP_GPUS)
        lu_error(L, "tplan.sweep", "axes.gpu takes at most %d GPUs",
                 TPLAN_MAX_SWEEP_GPUS);
    s->gpus[s->n_gpus] = *g;
    return s->n_gpus++;
}

/* Models on the model axis: plans name their model, so two models of one
 * name must be one model. */
static bool same_model(const tplan_model *a, const tplan_model *b)
{
    tplan_param_count pa, pb;

    tplan_model_params(a, &pa);
    tplan_model_params(b, &pb);
    return a->arch == b->arch && a->layers == b->layers &&
           a->hidden == b->hidden && a->heads == b->heads &&
           a->kv_heads == b->kv_heads && a->ffn == b->ffn &&
           a->vocab == b->vocab && a->max_seq == b->max_seq &&
           a->experts == b->experts && a->top_k == b->top_k &&
           pa.total == pb.total && pa.active == pb.active &&
           a->generic_params == b->generic_params &&
           a->generic_act_bytes_fp32 == b->generic_act_bytes_fp32;
}

static int add_model(lua_State *L, tplan_sweep_spec *s, const tplan_model *m)
{
    for (int i = 0; i < s->n_models; i++) {
        if (strcmp(s->models[i].name, m->name) != 0)
            continue;
        if (!same_model(&s->models[i], m))
            lu_error(L, "tplan.sweep",
                     "axes.model has two different models named '%s': "
                     "give each a name of its own",
                     m->name);
        return i;
    }
    if (s->n_models >= TPLAN_MAX_SWEEP_MODELS)
        lu_error(L, "tplan.sweep", "axes.model takes at most %d models",
                 TPLAN_MAX_SWEEP_MODELS);
    s->models[s->n_models] = *m;
    return s->n_models++;
}

static double model_value(lua_State *L, tplan_sweep_spec *s)
{
    tplan_err err;
    tplan_model m;

    if (lua_type(L, -1) == LUA_TSTRING) {
        if (lt_model_lookup(L, lua_tostring(L, -1), &m, &err))
            lu_engine_error(L, "tplan.sweep", &err);
    } else if (luaL_testudata(L, -1, TPLAN_MODEL_MT)) {
        m = *(tplan_model *)lua_touserdata(L, -1);
    } else {
        lu_error(L, "tplan.sweep",
                 "axes.model takes preset names or tplan.model values "
                 "(got %s)",
                 luaL_typename(L, -1));
    }
    return add_model(L, s, &m);
}

/* One axis value at the stack top, as the engine's number: the field's
 * value as tplan.plan and tplan calc read it (one message for a bad one),
 * or the gpu's index into s->gpus, the model's into s->models. */
static double axis_value(lua_State *L, tplan_sweep_spec *s, tplan_axis_id id)
{
    tplan_err err;
    tplan_gpu g;

    if (id == TPLAN_FIELD_ID_MODEL)
        return model_value(L, s);
    if (id != TPLAN_FIELD_ID_GPU)
        return lt_field_value(L, id, "tplan.sweep");
    if (lua_type(L, -1) == LUA_TSTRING) {
        if (lt_gpu_lookup(L, lua_tostring(L, -1), &g, &err))
            lu_engine_error(L, "tplan.sweep", &err);
    } else if (luaL_testudata(L, -1, TPLAN_GPU_MT)) {
        g = *(tplan_gpu *)lua_touserdata(L, -1);
    } else {
        lu_error(L, "tplan.sweep",
                 "axes.gpu takes GPU names or tplan.gpu values (got %s)",
                 luaL_typename(L, -1));
    }
    return add_gpu(L, s, &g);
}

static int axis_cmp(const void *a, const void *b)
{
    int x = tplan_axis_order(*(const tplan_axis_id *)a);
    int y = tplan_axis_order(*(const tplan_axis_id *)b);

    return (x > y) - (x < y);
}

/* axes = { name = value or {values...}, ... }: ordered by the engine's
 * axis order, whatever the table's, so indexes are reproducible. */
static void parse_axes(lua_State *L, int idx, tplan_sweep_spec *s)
{
    tplan_axis_id ids[TPLAN_MAX_AXES];
    int n = 0;
    tplan_err err;

    if (lua_getfield(L, idx, "axes") == LUA_TNIL) { /* ... axes */
        lua_pop(L, 1);
        return;
    }
    if (!lua_istable(L, -1))
        lu_error(L, "tplan.sweep", "field 'axes' must be a table (got %s)",
                 luaL_typename(L, -1));
    lua_pushnil(L);           /* ... axes k */
    while (lua_next(L, -2)) { /* ... axes k v */
        if (lua_type(L, -2) != LUA_TSTRING)
            lu_error(L, "tplan.sweep", "axes are named by plan fields");
        if (n >= TPLAN_MAX_AXES)
            lu_error(L, "tplan.sweep", "a sweep has at most %d axes",
                     TPLAN_MAX_AXES);
        if (tplan_axis_parse(lua_tostring(L, -2), &ids[n], &err))
            lu_engine_error(L, "tplan.sweep", &err);
        n++;
        lua_pop(L, 1); /* ... axes k */
    }
    /* the engine's axis order, whatever the table's: indexes reproduce */
    qsort(ids, (size_t)n, sizeof ids[0], axis_cmp);
    for (int a = 0; a < n; a++) {
        tplan_axis *ax = &s->axes[s->n_axes++];

        ax->id = ids[a];
        ax->n = 0;
        lua_getfield(L, -1, tplan_axis_name(ax->id)); /* ... axes v */
        if (lua_istable(L, -1) && !luaL_testudata(L, -1, TPLAN_GPU_MT) &&
            !luaL_testudata(L, -1, TPLAN_MODEL_MT)) {
            lua_Integer len = luaL_len(L, -1);

            if (len < 1 || len > TPLAN_MAX_AXIS_VALUES)
                lu_error(L, "tplan.sweep",
                         "axes.%s needs 1 to %d values (got %lld)",
                         tplan_axis_name(ax->id), TPLAN_MAX_AXIS_VALUES,
                         (long long)len);
            for (lua_Integer k = 1; k <= len; k++) {
                lua_geti(L, -1, k); /* ... axes v x */
                ax->values[ax->n++] = axis_value(L, s, ax->id);
                lua_pop(L, 1); /* ... axes v */
            }
        } else {
            ax->values[ax->n++] = axis_value(L, s, ax->id);
        }
        lua_pop(L, 1); /* ... axes */
    }
    lua_pop(L, 1); /* ... */
}

static void parse_limits(lua_State *L, int idx, tplan_constraints *w)
{
    static const char *const fields[] = {"fits",
                                         "min_headroom",
                                         "min_global_batch",
                                         "max_global_batch",
                                         "max_cost_usd",
                                         "max_time_h",
                                         "max_gpu_hours",
                                         "min_mfu",
                                         NULL};
    const char *what = "tplan.sweep limits";

    if (lua_getfield(L, idx, "limits") == LUA_TNIL) { /* ... l */
        lua_pop(L, 1);
        return;
    }
    if (!lua_istable(L, -1))
        lu_error(L, "tplan.sweep", "field 'limits' must be a table (got %s)",
                 luaL_typename(L, -1));
    lu_check_fields(L, -1, what, fields);
    lu_bool(L, -1, what, "fits", &w->fits);
    lu_num(L, -1, what, "min_headroom", 0, 0.99, &w->min_headroom);
    lu_int(L, -1, what, "min_global_batch", 1, (int64_t)1e12,
           &w->min_global_batch);
    lu_int(L, -1, what, "max_global_batch", 1, (int64_t)1e12,
           &w->max_global_batch);
    lu_num(L, -1, what, "max_cost_usd", 1e-9, 1e18, &w->max_cost_usd);
    lu_num(L, -1, what, "max_time_h", 1e-9, 1e12, &w->max_time_h);
    lu_num(L, -1, what, "max_gpu_hours", 1e-9, 1e15, &w->max_gpu_hours);
    lu_num(L, -1, what, "min_mfu", 1e-9, 1, &w->min_mfu);
    lua_pop(L, 1); /* ... */
}

static void parse_rank(lua_State *L, int idx, tplan_sweep_spec *s,
                       bool has_score)
{
    tplan_err err;
    bool max;

    if (lua_getfield(L, idx, "rank") == LUA_TNIL) { /* ... r */
        lua_pop(L, 1);
        s->n_rank = 1;
        s->rank[0].metric = has_score ? TPLAN_M_SCORE : TPLAN_M_COST_USD;
        s->rank[0].maximize = has_score;
        return;
    }
    if (lua_type(L, -1) == LUA_TSTRING) {
        lua_createtable(L, 1, 0); /* ... r t */
        lua_insert(L, -2);        /* ... t r */
        lua_rawseti(L, -2, 1);    /* ... t */
    }
    if (!lua_istable(L, -1))
        lu_error(L, "tplan.sweep",
                 "field 'rank' must be a list of objectives "
                 "(got %s)",
                 luaL_typename(L, -1));
    s->n_rank = (int)luaL_len(L, -1);
    if (s->n_rank < 1 || s->n_rank > TPLAN_MAX_OBJECTIVES)
        lu_error(L, "tplan.sweep", "rank takes 1 to %d objectives (got %d)",
                 TPLAN_MAX_OBJECTIVES, s->n_rank);
    for (int i = 0; i < s->n_rank; i++) {
        lua_geti(L, -1, i + 1); /* ... r name */
        if (lua_type(L, -1) != LUA_TSTRING)
            lu_error(L, "tplan.sweep", "rank takes objective names (got %s)",
                     luaL_typename(L, -1));
        if (tplan_metric_parse(lua_tostring(L, -1), &s->rank[i].metric, &max,
                               &err))
            lu_engine_error(L, "tplan.sweep", &err);
        if (s->rank[i].metric == TPLAN_M_SCORE && !has_score)
            lu_error(L, "tplan.sweep", "rank 'score' needs a score function");
        s->rank[i].maximize = max;
        lua_pop(L, 1); /* ... r */
    }
    lua_pop(L, 1); /* ... */
}

static void parse_keep(lua_State *L, int idx, tplan_sweep_spec *s)
{
    s->keep_mode = TPLAN_KEEP_TOP;
    s->keep = 1000;
    if (lua_getfield(L, idx, "keep") == LUA_TSTRING) { /* ... k */
        const char *k = lua_tostring(L, -1);

        if (strcmp(k, "fits") == 0)
            s->keep_mode = TPLAN_KEEP_FITS;
        else if (strcmp(k, "all") == 0)
            s->keep_mode = TPLAN_KEEP_ALL;
        else
            lu_error(L, "tplan.sweep",
                     "keep must be a number, \"fits\" or "
                     "\"all\" (keep=%s)",
                     k);
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1); /* ... */
    lu_int(L, idx, "tplan.sweep", "keep", 1, TPLAN_MAX_KEEP, &s->keep);
}

/* The inputs the spec gave, and those its framework set: the model and
 * gpu axes keep the ones that live in those structs (dropout, eff_max). */
static void keep_given(lua_State *L, int idx, tplan_sweep_spec *s)
{
    tplan_framework f;
    tplan_err err;

    for (int id = 0; id < tplan_field_count(); id++) {
        const tplan_field *fd = tplan_field_at(id);

        if (!(fd->flags & TPLAN_FIELD_IN) || !fd->input)
            continue;
        if (lua_getfield(L, idx, fd->input) != LUA_TNIL)
            tplan_sweep_keep(s, id);
        lua_pop(L, 1);
    }
    if (lua_getfield(L, idx, "framework") == LUA_TSTRING &&
        lt_framework_lookup(L, lua_tostring(L, -1), &f, &err) == TPLAN_OK)
        for (int i = 0; i < f.n; i++)
            tplan_sweep_keep(s, f.set[i].field);
    lua_pop(L, 1);
}

/* Does the spec have axes.model? */
static bool model_axis(lua_State *L, int idx)
{
    bool has = false;

    if (lua_getfield(L, idx, "axes") == LUA_TTABLE) {     /* ... axes */
        has = lua_getfield(L, -1, "model") != LUA_TNIL; /* ... axes m */
        lua_pop(L, 1);
    }
    lua_pop(L, 1); /* ... */
    return has;
}

void lt_sweep_spec(lua_State *L, int idx, tplan_sweep_spec *s, bool has_score)
{
    idx = lua_absindex(L, idx);
    check_sweep_fields(L, idx);
    /* the base's gpu defaults as tplan.plan's does; a gpu axis overrides
     * it. A model axis stands for the model field. */
    lt_parse_config(L, idx, "tplan.sweep", &s->base, !model_axis(L, idx),
                    false);
    keep_given(L, idx, s);
    parse_axes(L, idx, s);
    for (int i = 0; i < s->n_axes; i++) {
        const tplan_axis *a = &s->axes[i];
        bool seq_given;

        if (a->id != TPLAN_FIELD_ID_MODEL)
            continue;
        lua_getfield(L, idx, "model");
        if (!lua_isnil(L, -1))
            lu_error(L, "tplan.sweep",
                     "give model or axes.model, not both");
        lua_pop(L, 1);
        /* each model trains at its own default sequence unless one is
         * given; the base starts at the axis's first model */
        lua_getfield(L, idx, "seq");
        seq_given = !lua_isnil(L, -1);
        lua_pop(L, 1);
        for (int j = 0; j < s->n_axes; j++)
            seq_given = seq_given || s->axes[j].id == tplan_field_find("seq");
        s->seq_from_model = !seq_given;
        s->base.model = s->models[(int)a->values[0]];
        if (s->seq_from_model)
            s->base.seq = tplan_model_default_seq(&s->base.model);
    }
    parse_limits(L, idx, &s->where);
    parse_rank(L, idx, s, has_score);
    parse_keep(L, idx, s);
    lu_bool(L, idx, "tplan.sweep", "pareto", &s->pareto);
    lu_bool(L, idx, "tplan.sweep", "keep_equivalents", &s->keep_equivalents);
    /* advice = true: written plans that do not fit carry the search for a
     * change that would fit, under keep = "fits"/"all" too (sweep.h) */
    lu_bool(L, idx, "tplan.sweep", "advice", &s->advice);
    {
        bool fits_first = true;

        /* fits_first = false ranks plans that do not fit among those that
         * do, by the objectives alone: only when a script asks by name */
        lu_bool(L, idx, "tplan.sweep", "fits_first", &fits_first);
        s->mix_unfit = !fits_first;
    }
    {
        bool staged = true;

        /* staged = false evaluates every plan in full (benchmarks) */
        lu_bool(L, idx, "tplan.sweep", "staged", &staged);
        s->unstaged = !staged;
    }
    /* walk = "canonical" walks the axes in the index's order instead of
     * by reach class (the same results; benchmarks and tests compare) */
    lua_getfield(L, idx, "walk");
    if (!lua_isnil(L, -1)) {
        const char *w = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1)
                                                       : NULL;

        if (!w || (strcmp(w, "canonical") != 0 && strcmp(w, "reach") != 0))
            luaL_error(L, "tplan.sweep: walk must be \"reach\" or "
                          "\"canonical\" (got %s)",
                       w ? w : luaL_typename(L, -1));
        s->canonical_walk = strcmp(w, "canonical") == 0;
    }
    lua_pop(L, 1);
}
