/* tplan.sweep and its result object ("tplan.result"): parse the spec,
 * run the engine's sweep with optional where/score hooks, and hand the
 * kept plans back as snapshots. Plans are stored as sweep indexes and
 * re-evaluated in full when a script asks for them. */
#include "l_tplan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "l_util.h"
#include "sha256.h"
#include "sweep.h"

typedef struct entry {
    int64_t index;
    double score;
    double key[TPLAN_MAX_OBJECTIVES];
} entry;

typedef struct result {
    tplan_sweep_spec *spec; /* owned */
    entry *items;           /* owned: kept plans, best first */
    int64_t n, cap;
    entry *front; /* owned: the Pareto front, when asked for */
    int64_t n_front;
    tplan_sweep_stats stats;
    char name[64];
    bool has_score;
    /* provenance for result databases */
    int64_t ordinal, shard, shards;
    char rank_by[128], keep[24];
    char key[65]; /* sweep_key: shards of one sweep share it */
    int threads;  /* the sweep's: its kept plans are evaluated again on them */
} result;

static const char *const sweep_fields_extra[] = {
    "name", "axes", "limits", "where",   "score",
    "rank", "keep", "pareto", "threads", NULL};

static void result_close(result *r)
{
    free(r->spec);
    free(r->items);
    free(r->front);
    r->spec = NULL;
    r->items = r->front = NULL;
    r->n = r->cap = r->n_front = 0;
}

static int result_gc(lua_State *L)
{
    result_close(luaL_checkudata(L, 1, TPLAN_RESULT_MT));
    return 0;
}

static result *check_result(lua_State *L, int idx)
{
    result *r = luaL_checkudata(L, idx, TPLAN_RESULT_MT);

    if (!r->spec)
        luaL_error(L, "tplan.result is closed");
    return r;
}

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
        if (o->memory_bytes != g->memory_bytes ||
            o->price_usd_per_h != g->price_usd_per_h ||
            o->mem_bw_bytes_per_s != g->mem_bw_bytes_per_s ||
            o->link_bytes_per_s != g->link_bytes_per_s ||
            o->nic_bytes_per_s != g->nic_bytes_per_s || o->tdp_w != g->tdp_w ||
            o->eff_max != g->eff_max ||
            memcmp(o->peak_flops, g->peak_flops, sizeof o->peak_flops) != 0)
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

/* One axis value at the stack top, as the engine's number: the field's
 * value as tplan.plan and tplan calc read it (one message for a bad one),
 * or the gpu's index into s->gpus. */
static double axis_value(lua_State *L, tplan_sweep_spec *s, tplan_axis_id id)
{
    tplan_err err;
    tplan_gpu g;

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
        if (lua_istable(L, -1) && !luaL_testudata(L, -1, TPLAN_GPU_MT)) {
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
    lu_int(L, idx, "tplan.sweep", "keep", 1, 10000000, &s->keep);
}

/* ---- hooks and sink --------------------------------------------------- */

typedef struct hook_state {
    lua_State *L;
    int where, score, view; /* absolute stack indexes; 0: none */
    result *res;            /* for the sink */
} hook_state;

/* Call f(view) and leave its result on the stack; -1 on a Lua error. */
static int call_hook(hook_state *h, int f, tplan_err *err)
{
    lua_State *L = h->L;

    lua_pushvalue(L, f);                   /* ... f */
    lua_pushvalue(L, h->view);             /* ... f v */
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) { /* ... r|msg */
        if (lua_type(L, -1) == LUA_TSTRING) {
            tplan_err_set(err, TPLAN_ESTOP, "where", "%s", lua_tostring(L, -1));
        } else { /* no message of its own: say where the sweep is */
            luaL_where(L, 1);
            tplan_err_set(err, TPLAN_ESTOP, "where",
                          "%stplan.sweep: a hook raised a %s value",
                          lua_tostring(L, -1), luaL_typename(L, -2));
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
        return -1;
    }
    return 0;
}

static int hook(void *ud, int64_t index, const tplan_plan *p, double *score,
                tplan_err *err)
{
    hook_state *h = ud;
    lua_State *L = h->L;
    int keep = 1;

    lt_view_set(L, h->view, h->res->spec, p, index);
    if (h->where) {
        if (call_hook(h, h->where, err)) {
            keep = -1;
            goto out;
        }
        keep = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    if (keep && h->score) {
        if (call_hook(h, h->score, err)) {
            keep = -1;
            goto out;
        }
        if (lua_type(L, -1) != LUA_TNUMBER) {
            luaL_where(L, 1); /* ... v where: the tplan.sweep call */
            tplan_err_set(err, TPLAN_ESTOP, "score",
                          "%stplan.sweep: score must return a number (got "
                          "%s)",
                          lua_tostring(L, -1), luaL_typename(L, -2));
            lua_pop(L, 2);
            keep = -1;
            goto out;
        }
        *score = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
out:
    /* the plan is the engine's buffer: a view kept past here must not
     * reach it, whatever happened */
    lt_view_set(L, h->view, NULL, NULL, -1);
    return keep;
}

static int sink(void *ud, int64_t index, const tplan_plan *p, double score)
{
    hook_state *h = ud;
    result *r = h->res;
    entry *e;

    if (r->n == r->cap) {
        int64_t cap = r->cap ? r->cap * 2 : 1024;
        entry *grown = realloc(r->items, sizeof *grown * (size_t)cap);

        if (!grown)
            return 1;
        r->items = grown;
        r->cap = cap;
    }
    e = &r->items[r->n++];
    e->index = index;
    e->score = score;
    memset(e->key, 0, sizeof e->key);
    tplan_rank_keys(r->spec->rank, r->spec->n_rank, p, score, e->key);
    return 0;
}

static void copy_ranked(entry *dst, const tplan_ranked *src, int n,
                        const tplan_sweep_spec *s)
{
    for (int i = 0; i < n; i++) {
        dst[i].index = src[i].index;
        memset(dst[i].key, 0, sizeof dst[i].key);
        memcpy(dst[i].key, src[i].key, sizeof(double) * (size_t)s->n_rank);
        dst[i].score = src[i].score;
    }
}

/* Best first: keys, then index (the engine's order). Unused keys are
 * zero in every entry, so comparing all of them is the engine's order. */
static int entry_cmp(const void *pa, const void *pb)
{
    const entry *a = pa, *b = pb;

    for (int i = 0; i < TPLAN_MAX_OBJECTIVES; i++) {
        if (a->key[i] < b->key[i])
            return -1;
        if (a->key[i] > b->key[i])
            return 1;
    }
    return (a->index > b->index) - (a->index < b->index);
}

/* Provenance: the objectives and keep as text, and the sweep key, a
 * SHA-256 over what defines the space and its ranking within the run
 * (script bytes, arguments, the sweep's name and number in the script,
 * the space size, objectives and keep). Shards of one sweep agree on it;
 * tplan merge refuses rows whose keys differ. */
static void describe(result *r, const lt_state *st)
{
    const tplan_sweep_spec *s = r->spec;
    tplan_sha256 h;
    char buf[128];
    size_t n = 0;

    r->rank_by[0] = '\0';
    for (int i = 0; i < s->n_rank; i++)
        n += (size_t)snprintf(r->rank_by + n, sizeof r->rank_by - n, "%s%s",
                              i ? "," : "",
                              tplan_metric_name(s->rank[i].metric));
    if (s->keep_mode == TPLAN_KEEP_TOP)
        snprintf(r->keep, sizeof r->keep, "%lld", (long long)s->keep);
    else
        snprintf(r->keep, sizeof r->keep, "%s",
                 s->keep_mode == TPLAN_KEEP_FITS ? "fits" : "all");
    r->ordinal = st->sweeps;
    r->shard = st->o.shard;
    r->shards = st->o.shards;
    tplan_sha256_init(&h);
    tplan_sha256_update(&h, "tplan-sweep-1", 14);
    if (st->o.script_sha256)
        tplan_sha256_update(&h, st->o.script_sha256,
                            strlen(st->o.script_sha256) + 1);
    if (st->o.args)
        tplan_sha256_update(&h, st->o.args, strlen(st->o.args) + 1);
    tplan_sha256_update(&h, r->name, strlen(r->name) + 1);
    snprintf(buf, sizeof buf, "%lld/%lld/%d/%d", (long long)r->ordinal,
             (long long)r->stats.space, (int)s->pareto, (int)r->has_score);
    tplan_sha256_update(&h, buf, strlen(buf) + 1);
    tplan_sha256_update(&h, r->rank_by, strlen(r->rank_by) + 1);
    tplan_sha256_update(&h, r->keep, strlen(r->keep) + 1);
    tplan_sha256_hex(&h, r->key);
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
static int64_t *sorted_indexes(const entry *e, int64_t n)
{
    int64_t *ix = n > 0 ? malloc(sizeof *ix * (size_t)n) : NULL;

    if (!ix)
        return NULL;
    for (int64_t i = 0; i < n; i++)
        ix[i] = e[i].index;
    qsort(ix, (size_t)n, sizeof *ix, index_cmp);
    return ix;
}

/* Kept plans are evaluated again in full before they are written, a
 * chunk at a time on the sweep's threads (tplan_sweep_eval_at), then
 * written in order. 256 plans of ~5 KiB: 1.4 MiB, malloc'd (not the Lua
 * state's memory). */
#define SAVE_CHUNK 256

typedef struct save_chunk {
    int64_t n;
    const entry *e[SAVE_CHUNK];
    int64_t rank[SAVE_CHUNK]; /* 0: a front plan that was not kept */
    bool on_front[SAVE_CHUNK];
    int64_t idx[SAVE_CHUNK];
    tplan_plan plans[SAVE_CHUNK];
} save_chunk;

static save_chunk *chunk_new(void)
{
    save_chunk *ch = malloc(sizeof *ch);

    if (ch)
        ch->n = 0;
    return ch;
}

static int save_chunk_flush(const result *r, save_chunk *ch, tplan_store *db,
                            int64_t id, int64_t *rows, tplan_err *err)
{
    int rc = tplan_sweep_eval_at(r->spec, ch->idx, ch->n, ch->plans, r->threads,
                                 err);

    for (int64_t k = 0; k < ch->n && rc == TPLAN_OK; k++) {
        const entry *e = ch->e[k];

        rc = tplan_store_plan(db, id, ch->rank[k], e->index, ch->on_front[k],
                              r->has_score ? e->score : (double)NAN, e->key,
                              r->spec->n_rank, &ch->plans[k], err);
        if (rc == TPLAN_OK)
            ++*rows;
    }
    ch->n = 0;
    return rc;
}

int lt_result_save(lua_State *L, int idx, tplan_store *db, int64_t *rows,
                   tplan_err *err)
{
    result *r = check_result(L, idx);
    const lt_state *st = lt_get_state(L);
    tplan_sweep_meta m;
    int64_t id, *front = NULL, *kept = NULL;
    save_chunk *ch = chunk_new();
    int rc;

    memset(&m, 0, sizeof m);
    m.name = r->name;
    m.script = st->o.script;
    m.script_sha256 = st->o.script_sha256;
    m.args = st->o.args;
    m.sweep_key = r->key;
    m.rank_by = r->rank_by;
    m.keep = r->keep;
    m.ordinal = r->ordinal;
    m.shard = r->shard;
    m.shards = r->shards;
    m.space = r->stats.space;
    *rows = 0;
    if (!ch ||
        (r->n_front > 0 && !(front = sorted_indexes(r->front, r->n_front))) ||
        (r->n > 0 && !(kept = sorted_indexes(r->items, r->n)))) {
        free(front);
        free(ch);
        return tplan_err_set(err, TPLAN_ENOMEM, "db", "out of memory");
    }
    rc = tplan_store_sweep_begin(db, &m, &id, err);
    for (int64_t pass = 0; pass < 2 && rc == TPLAN_OK; pass++) {
        /* kept plans by rank, then front plans that were not kept */
        const entry *set = pass == 0 ? r->items : r->front;
        int64_t n = pass == 0 ? r->n : r->n_front;

        for (int64_t i = 0; i < n && rc == TPLAN_OK; i++) {
            const entry *e = &set[i];
            bool on_front = has_index(front, r->n_front, e->index);

            if (pass == 1 && has_index(kept, r->n, e->index))
                continue;
            ch->e[ch->n] = e;
            ch->rank[ch->n] = pass == 0 ? i + 1 : 0;
            ch->on_front[ch->n] = on_front;
            ch->idx[ch->n] = e->index;
            if (++ch->n == SAVE_CHUNK)
                rc = save_chunk_flush(r, ch, db, id, rows, err);
        }
    }
    if (rc == TPLAN_OK)
        rc = save_chunk_flush(r, ch, db, id, rows, err);
    if (rc == TPLAN_OK)
        rc = tplan_store_sweep_finish(db, id, &r->stats, r->n, err);
    if (rc)
        tplan_store_abort(db);
    free(front);
    free(kept);
    free(ch);
    return rc;
}

/* Under --safe a script writes only the files named on the command
 * line (and res:csv/res:save to those would clobber the run's own
 * output): every other path is refused. */
static void safe_output(lua_State *L, const char *what, const char *path,
                        const char *allowed)
{
    if (lt_get_state(L)->o.safe)
        lu_error(L, what,
                 "--safe: a script may not write files (%s); name outputs "
                 "with tplan run --csv/--db",
                 allowed && strcmp(path, allowed) == 0 ? "that is the run's "
                                                         "own output"
                                                       : path);
}

/* res:save(path): the sweep, its kept plans and its front into a result
 * database (created when new); returns the plan rows written. */
static int r_save(lua_State *L)
{
    const char *path = luaL_checkstring(L, 2);
    tplan_store *db;
    tplan_err err;
    int64_t rows;

    safe_output(L, "tplan.result:save", path, lt_get_state(L)->o.db_path);
    check_result(L, 1);
    if (!(db = tplan_store_open(path, &err)))
        return lu_engine_error(L, "tplan.result:save", &err);
    if (lt_result_save(L, 1, db, &rows, &err)) {
        tplan_store_close(db);
        return lu_engine_error(L, "tplan.result:save", &err);
    }
    tplan_store_close(db);
    lua_pushinteger(L, rows);
    return 1;
}

/* ---- tplan.sweep ------------------------------------------------------- */

static int l_sweep(lua_State *L)
{
    result *r;
    tplan_sweep_spec *s;
    tplan_sweep_run run;
    hook_state h = {L, 0, 0, 0, NULL};
    lt_state *st = lt_get_state(L);
    tplan_lua_options o = st->o;
    const char *name = "sweep";
    tplan_err err;
    int64_t threads = o.threads;
    int rc;

    luaL_checktype(L, 1, LUA_TTABLE);
    check_sweep_fields(L, 1);
    r = lua_newuserdatauv(L, sizeof *r, 0); /* t r */
    memset(r, 0, sizeof *r);
    luaL_setmetatable(L, TPLAN_RESULT_MT);
    if (!(r->spec = s = calloc(1, sizeof *s)))
        return luaL_error(L, "tplan.sweep: out of memory");
    lu_str(L, 1, "tplan.sweep", "name", &name);
    if (strlen(name) >= sizeof r->name)
        return lu_error(L, "tplan.sweep", "name is longer than %d bytes",
                        (int)sizeof r->name - 1);
    snprintf(r->name, sizeof r->name, "%s", name);
    /* the base's gpu defaults as tplan.plan's does; a gpu axis
     * overrides it */
    lt_parse_config(L, 1, "tplan.sweep", &s->base, true, false);
    parse_axes(L, 1, s);
    parse_limits(L, 1, &s->where);
    lua_getfield(L, 1, "where"); /* t r where */
    lua_getfield(L, 1, "score"); /* t r where score */
    if (!lua_isnil(L, -2) && !lua_isfunction(L, -2))
        return lu_error(L, "tplan.sweep", "field 'where' must be a function");
    if (!lua_isnil(L, -1) && !lua_isfunction(L, -1))
        return lu_error(L, "tplan.sweep", "field 'score' must be a function");
    h.where = lua_isnil(L, -2) ? 0 : lua_absindex(L, -2);
    h.score = lua_isnil(L, -1) ? 0 : lua_absindex(L, -1);
    r->has_score = h.score != 0;
    lt_push_view(L); /* t r where score view */
    h.view = lua_absindex(L, -1);
    h.res = r;
    parse_rank(L, 1, s, r->has_score);
    parse_keep(L, 1, s);
    lu_bool(L, 1, "tplan.sweep", "pareto", &s->pareto);
    lu_int(L, 1, "tplan.sweep", "threads", 1, 256, &threads);
    if (tplan_sweep_validate(s, &err))
        return lu_engine_error(L, "tplan.sweep", &err);
    {
        /* the size and the expected time, said before a long walk: rates
         * from tests/bench/sweep_bench.lua on 2 cores (evaluations per
         * second per thread without hooks; one thread with a hook) */
        double space = (double)tplan_sweep_size(s) / (double)o.shards;
        double rate = (h.where || h.score) ? 1.5e6 : 2.5e6 * (double)threads;
        double secs = space / rate;

        if (space > TPLAN_SWEEP_CONFIRM && !o.yes)
            return lu_error(L, "tplan.sweep",
                            "sweep '%s' has %.3g configurations (about "
                            "%.2g hours here); run with --yes to go ahead, "
                            "or narrow the axes",
                            name, space, secs / 3600.0);
        if (space >= 1e8)
            fprintf(stderr,
                    "tplan: sweep '%s': %.3g configurations, about %.0f s\n",
                    name, space, secs);
    }

    memset(&run, 0, sizeof run);
    run.spec = s;
    run.threads = (int)threads;
    run.shard = o.shard;
    run.shards = o.shards;
    run.stop = o.stop;
    run.progress = o.progress;
    run.progress_ud = o.progress_ud;
    if (h.where || h.score) {
        run.hook = hook;
        run.hook_ud = &h;
    }
    run.sink = sink;
    run.sink_ud = &h;
    rc = tplan_sweep_exec(&run, &err);
    r->stats = run.stats;
    r->threads = (int)threads;
    if (o.progress)
        o.progress(o.progress_ud, -1, run.stats.space); /* finished */
    if (rc) {
        tplan_sweep_run_free(&run);
        if (rc != TPLAN_ESTOP)
            return lu_engine_error(L, "tplan.sweep", &err);
        /* a hook's message already says where */
        lua_pushstring(L, err.msg);
        return lua_error(L);
    }
    if (s->keep_mode == TPLAN_KEEP_TOP) {
        r->items =
            malloc(sizeof *r->items * (size_t)(run.n_top ? run.n_top : 1));
        if (!r->items) {
            tplan_sweep_run_free(&run);
            return luaL_error(L, "tplan.sweep: out of memory");
        }
        copy_ranked(r->items, run.top, run.n_top, s);
        r->n = r->cap = run.n_top;
    } else if (r->n > 1) {
        qsort(r->items, (size_t)r->n, sizeof *r->items, entry_cmp);
    }
    if (s->pareto && run.n_front > 0) {
        r->front = malloc(sizeof *r->front * (size_t)run.n_front);
        if (r->front) {
            copy_ranked(r->front, run.front, run.n_front, s);
            r->n_front = run.n_front;
        }
    }
    tplan_sweep_run_free(&run);
    lua_settop(L, 2); /* t r */
    st->sweeps++;
    if (r->stats.interrupted)
        st->interrupted = 1;
    describe(r, st);
    if (o.csv_path) {
        if (st->csv_failed)
            return lu_error(L, "--csv", "the file failed earlier in this run");
        if (!st->csv && !(st->csv = tplan_csv_open(o.csv_path, &err)))
            return lu_engine_error(L, "--csv", &err);
        if (lt_result_csv(L, 2, st->csv, &err)) {
            /* said once, here: the file is dropped, not half-kept */
            tplan_csv_abort(st->csv);
            st->csv = NULL;
            st->csv_failed = 1;
            return lu_engine_error(L, "--csv", &err);
        }
    }
    if (o.db_path) {
        int64_t rows;

        if (!st->db && !(st->db = tplan_store_open(o.db_path, &err)))
            return lu_engine_error(L, "--db", &err);
        if (lt_result_save(L, 2, st->db, &rows, &err))
            return lu_engine_error(L, "--db", &err);
    }
    return 1;
}

/* ---- result methods ----------------------------------------------------- */

/* Push the full plan of a kept entry. */
static void push_entry(lua_State *L, const result *r, const entry *e)
{
    tplan_config *c = lua_newuserdatauv(L, sizeof *c, 0); /* ... c */
    tplan_plan *p = lua_newuserdatauv(L, sizeof *p, 0);   /* ... c p */
    tplan_err err;

    if (tplan_sweep_config_at(r->spec, e->index, c, &err) ||
        tplan_plan_eval(c, p, &err))
        luaL_error(L, "tplan.result: %s", err.msg);
    lt_push_plan(L, p, e->index, e->score, r->has_score); /* ... c p t */
    lua_replace(L, -3);                                   /* ... t p */
    lua_pop(L, 1);                                        /* ... t */
}

static int r_count(lua_State *L)
{
    lua_pushinteger(L, check_result(L, 1)->n);
    return 1;
}

static int r_top(lua_State *L)
{
    result *r = check_result(L, 1);
    lua_Integer n = luaL_optinteger(L, 2, 10);

    if (n < 0)
        return luaL_error(L, "tplan.result:top: n must be >= 0 (n=%I)",
                          (LUAI_UACINT)n);
    if (n > r->n)
        n = r->n;
    lua_createtable(L, (int)n, 0); /* r n t */
    for (lua_Integer i = 0; i < n; i++) {
        push_entry(L, r, &r->items[i]); /* r n t p */
        lua_rawseti(L, -2, i + 1);      /* r n t */
    }
    return 1;
}

static int r_each_next(lua_State *L)
{
    result *r = check_result(L, lua_upvalueindex(1));
    lua_Integer i = lua_tointeger(L, lua_upvalueindex(2));

    if (i >= r->n)
        return 0;
    lua_pushinteger(L, i + 1);
    lua_replace(L, lua_upvalueindex(2));
    push_entry(L, r, &r->items[i]);
    return 1;
}

static int r_each(lua_State *L)
{
    check_result(L, 1);
    lua_pushvalue(L, 1);                 /* r r */
    lua_pushinteger(L, 0);               /* r r 0 */
    lua_pushcclosure(L, r_each_next, 2); /* r f */
    return 1;
}

/* The Pareto front: the sweep's (pareto = true) with no argument, or over
 * other objectives among the kept plans. */
static int r_pareto(lua_State *L)
{
    result *r = check_result(L, 1);
    tplan_objective obj[TPLAN_MAX_OBJECTIVES];
    tplan_front f = {NULL, 0, 0, 0, false};
    tplan_config *c;
    tplan_plan *p;
    tplan_err err;
    int nobj;

    if (lua_isnoneornil(L, 2)) {
        if (!r->spec->pareto)
            return luaL_error(L, "tplan.result:pareto: give objectives, or "
                                 "sweep with pareto = true");
        lua_createtable(L, (int)r->n_front, 0);
        for (int64_t i = 0; i < r->n_front; i++) {
            push_entry(L, r, &r->front[i]);
            lua_rawseti(L, -2, i + 1);
        }
        return 1;
    }
    luaL_checktype(L, 2, LUA_TTABLE);
    nobj = (int)luaL_len(L, 2);
    if (nobj < 2 || nobj > TPLAN_MAX_OBJECTIVES)
        return luaL_error(L, "tplan.result:pareto: give 2 to %d objectives",
                          TPLAN_MAX_OBJECTIVES);
    for (int i = 0; i < nobj; i++) {
        if (lua_geti(L, 2, i + 1) != LUA_TSTRING)
            return luaL_error(L,
                              "tplan.result:pareto: objective %d must be "
                              "a name (got %s)",
                              i + 1, luaL_typename(L, -1));
        if (tplan_metric_parse(lua_tostring(L, -1), &obj[i].metric,
                               &obj[i].maximize, &err))
            return luaL_error(L, "tplan.result:pareto: %s", err.msg);
        lua_pop(L, 1);
    }
    c = lua_newuserdatauv(L, sizeof *c, 0);
    p = lua_newuserdatauv(L, sizeof *p, 0);
    f.items = lua_newuserdatauv(
        L, sizeof(tplan_ranked) * (size_t)(r->n ? r->n : 1), 0);
    f.cap = (int)r->n;
    f.nobj = nobj;
    for (int64_t i = 0; i < r->n; i++) {
        tplan_ranked rk;

        if (tplan_sweep_config_at(r->spec, r->items[i].index, c, &err) ||
            tplan_plan_eval_ex(c, p, TPLAN_EVAL_FIGURES, &err))
            return luaL_error(L, "tplan.result:pareto: %s", err.msg);
        rk.index = r->items[i].index;
        rk.score = r->items[i].score;
        tplan_rank_keys(obj, nobj, p, r->items[i].score, rk.key);
        tplan_front_push(&f, &rk);
    }
    tplan_ranked_sort(f.items, f.n, nobj);
    lua_createtable(L, f.n, 0);
    for (int i = 0; i < f.n; i++) {
        entry e = {f.items[i].index, (double)NAN, {0}};

        for (int64_t k = 0; k < r->n; k++)
            if (r->items[k].index == e.index)
                e.score = r->items[k].score;
        push_entry(L, r, &e);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int r_stats(lua_State *L)
{
    result *r = check_result(L, 1);
    const tplan_sweep_stats *s = &r->stats;

    lua_createtable(L, 0, 10);
    lua_pushstring(L, r->name);
    lua_setfield(L, -2, "name");
    lua_pushinteger(L, s->space);
    lua_setfield(L, -2, "space");
    lua_pushinteger(L, s->visited);
    lua_setfield(L, -2, "visited");
    lua_pushinteger(L, s->invalid);
    lua_setfield(L, -2, "invalid");
    lua_pushinteger(L, s->evaluated);
    lua_setfield(L, -2, "evaluated");
    lua_pushinteger(L, s->passed);
    lua_setfield(L, -2, "passed");
    lua_pushinteger(L, r->n);
    lua_setfield(L, -2, "kept");
    lua_pushnumber(L, s->seconds);
    lua_setfield(L, -2, "seconds");
    lua_pushnumber(L, s->seconds > 0 ? (double)s->evaluated / s->seconds : 0.0);
    lua_setfield(L, -2, "evals_per_s");
    lua_pushboolean(L, s->interrupted);
    lua_setfield(L, -2, "interrupted");
    lua_pushboolean(L, s->front_truncated);
    lua_setfield(L, -2, "front_truncated");
    return 1;
}

int lt_result_csv(lua_State *L, int idx, tplan_csv *w, tplan_err *err)
{
    result *r = check_result(L, idx);
    save_chunk *ch = chunk_new();
    int rc = TPLAN_OK;

    if (!ch)
        return tplan_err_set(err, TPLAN_ENOMEM, "csv", "out of memory");
    for (int64_t i = 0; i < r->n && rc == TPLAN_OK; i += SAVE_CHUNK) {
        int64_t n = r->n - i < SAVE_CHUNK ? r->n - i : SAVE_CHUNK;

        for (int64_t k = 0; k < n; k++)
            ch->idx[k] = r->items[i + k].index;
        rc = tplan_sweep_eval_at(r->spec, ch->idx, n, ch->plans, r->threads,
                                 err);
        for (int64_t k = 0; k < n && rc == TPLAN_OK; k++)
            rc = tplan_csv_row(w, r->name, i + k + 1, &ch->plans[k], err);
    }
    free(ch);
    return rc;
}

/* res:csv(path): every kept plan, best first, in a file of its own. */
static int r_csv(lua_State *L)
{
    const char *path = luaL_checkstring(L, 2);
    tplan_csv *w;
    tplan_err err;

    safe_output(L, "tplan.result:csv", path, lt_get_state(L)->o.csv_path);
    check_result(L, 1);
    if (!(w = tplan_csv_open(path, &err)))
        return lu_engine_error(L, "tplan.result:csv", &err);
    if (lt_result_csv(L, 1, w, &err)) {
        tplan_csv_abort(w);
        return lu_engine_error(L, "tplan.result:csv", &err);
    }
    if (tplan_csv_close(w, &err))
        return lu_engine_error(L, "tplan.result:csv", &err);
    lua_pushinteger(L, check_result(L, 1)->n);
    return 1;
}

static int r_tostring(lua_State *L)
{
    result *r = luaL_checkudata(L, 1, TPLAN_RESULT_MT);

    lua_pushfstring(L, "tplan.result(%s: %I kept of %I evaluated)", r->name,
                    (lua_Integer)r->n, (lua_Integer)r->stats.evaluated);
    return 1;
}

void lt_open_sweep(lua_State *L)
{
    static const luaL_Reg methods[] = {{"count", r_count}, {"top", r_top},
                                       {"each", r_each},   {"pareto", r_pareto},
                                       {"stats", r_stats}, {"csv", r_csv},
                                       {"save", r_save},   {NULL, NULL}};
    static const luaL_Reg meta[] = {{"__gc", result_gc},
                                    {"__close", result_gc},
                                    {"__tostring", r_tostring},
                                    {NULL, NULL}};

    luaL_newmetatable(L, TPLAN_RESULT_MT); /* mod mt */
    luaL_setfuncs(L, meta, 0);
    luaL_newlib(L, methods);        /* mod mt methods */
    lua_setfield(L, -2, "__index"); /* mod mt */
    lua_pop(L, 1);                  /* mod */
    lua_pushcfunction(L, l_sweep);
    lua_setfield(L, -2, "sweep");
}
