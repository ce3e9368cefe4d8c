/* tplan.sweep: the spec (l_sweep_spec.c), the where/score hooks, the
 * engine's walk, and a result object (l_result.c) holding the kept plans
 * as sweep indexes. What the run does with each sweep (--csv, --db) and
 * whether it may start (--yes) is the CLI's, through tplan_lua_options. */
#include "l_tplan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "l_util.h"
#include "save.h"
#include "stream.h"
#include "sweep.h"


typedef struct hook_state {
    lua_State *L;
    int where, score, view; /* absolute stack indexes; 0: none */
    lt_result *res;         /* the spec the hooks' view reads */
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

/* A copy of n ranked entries (NULL when n is 0 or memory is short). */
static tplan_ranked *copy_ranked(const tplan_ranked *src, int n)
{
    tplan_ranked *dst = n > 0 ? malloc(sizeof *dst * (size_t)n) : NULL;

    if (dst)
        memcpy(dst, src, sizeof *dst * (size_t)n);
    return dst;
}

static void run_init(tplan_sweep_run *run, const lt_result *r,
                     hook_state *h, const lt_state *st)
{
    memset(run, 0, sizeof *run);
    run->spec = r->spec;
    run->threads = r->threads;
    run->shard = st->o.shard;
    run->shards = st->o.shards;
    run->stop = st->o.stop;
    run->progress = st->o.progress;
    run->progress_ud = st->o.progress_ud;
    if (h->where || h->score) {
        run->hook = hook;
        run->hook_ud = h;
    }
}

/* The sweep row's provenance, as the run and its writers see it. */
static void set_meta(lua_State *L, lt_result *r, int64_t ordinal)
{
    const lt_state *st = lt_get_state(L);
    tplan_sweep_result view;

    r->meta.name = r->name;
    r->meta.script = st->o.script;
    r->meta.script_sha256 = st->o.script_sha256;
    r->meta.args = st->o.args;
    r->meta.ordinal = ordinal;
    r->meta.shard = st->o.shard;
    r->meta.shards = st->o.shards;
    view = lt_result_view(r);
    tplan_sweep_describe(&view, &r->meta, &r->desc);
}

/* The second walk of a streamed sweep: every kept plan into the run's
 * sink, with its warnings; r keeps the first walk's best plans and front
 * (and the front's truncation), and takes this walk's counts. Sets
 * r->streamed once the walk ran, and *outputs when err is the run's
 * outputs' (said under their option) rather than the walk's. */
static int stream(lua_State *L, lt_result *r, hook_state *h, bool *outputs,
                  tplan_err *err)
{
    const lt_state *st = lt_get_state(L);
    tplan_sweep_result first;
    tplan_sweep_run run;
    tplan_err e2;
    tplan_sweep_stats one = r->stats;
    int rc, rc2;

    set_meta(L, r, st->sweeps + 1);
    first = lt_result_view(r);
    run_init(&run, r, h, st);
    if (st->o.progress) /* the bar starts again for the second walk */
        st->o.progress(st->o.progress_ud, -1, r->stats.space);
    if ((rc = st->o.stream_begin(st->o.ud, &r->meta, &first, &run, err))) {
        *outputs = true;
        return rc;
    }
    if (!run.sink) /* the contract: a sink or an error */
        return tplan_err_set(err, TPLAN_EINVAL, "stream",
                             "the run gave no sink to stream into");
    run.no_front = true; /* the first walk's stands */
    rc = tplan_sweep_exec(&run, err);
    r->stats = run.stats;
    r->stats.front_truncated = one.front_truncated;
    r->stats.seconds += one.seconds;
    tplan_sweep_run_free(&run);
    /* a where or score function that answers otherwise the second time
     * would give rows the first walk's ranks for other plans */
    if (rc == TPLAN_OK && !r->stats.interrupted &&
        (r->stats.passed != one.passed || r->stats.kept != one.kept))
        rc = tplan_err_set(err, TPLAN_EINVAL, "where",
                           "sweep '%s': the second walk kept %lld plans, "
                           "the first %lld: a streamed sweep's where and "
                           "score functions must give the same answer for "
                           "the same plan",
                           r->name, (long long)r->stats.kept,
                           (long long)one.kept);
    r->streamed = true;
    first = lt_result_view(r);
    memset(&e2, 0, sizeof e2);
    rc2 = st->o.stream_end(st->o.ud, &first, rc != TPLAN_OK, &e2);
    /* the writer's own failure says more than the walk's "sink failed" */
    if (rc2 && (rc == TPLAN_OK || rc2 != TPLAN_ESTOP)) {
        *err = e2;
        rc = rc2;
        *outputs = true;
    }
    return rc;
}

/* A streamed sweep's first walk was stopped: the result is the plans it
 * ranked, and says so in its counts. */
static void keep_first(lt_result *r)
{
    r->stats.interrupted = true;
    r->stats.kept = r->n;
    r->stats.kept_unfit = 0;
    for (int64_t i = 0; i < r->n; i++)
        r->stats.kept_unfit += !r->items[i].fits;
}

/* Walk the space with the hooks at h (none: on the run's threads). Under
 * a run that streams (stream_begin), keep = "fits"/"all" walks twice: a
 * first walk keeps only the best r->ranked plans (the sweep's `ranked`,
 * default TPLAN_STREAM_RANKED) and the front; when those are all it
 * kept, they are the result, as one walk would give; otherwise a second
 * walk streams every kept plan. A stop during the first walk (or before
 * the second) keeps the best plans it ranked. *outputs: see stream(). */
static int walk(lua_State *L, lt_result *r, hook_state *h, bool *outputs,
                tplan_err *err)
{
    const lt_state *st = lt_get_state(L);
    bool two = st->o.stream_begin && st->o.stream_end &&
               r->spec->keep_mode != TPLAN_KEEP_TOP;
    tplan_sweep_run run;
    int rc;

    run_init(&run, r, h, st);
    run.count_only = two;
    run.top_also = two ? r->ranked : 0;
    rc = tplan_sweep_exec(&run, err);
    r->stats = run.stats;
    if (rc == TPLAN_OK && (r->spec->keep_mode == TPLAN_KEEP_TOP || two)) {
        r->items = copy_ranked(run.top, run.n_top);
        r->n = r->cap = r->items ? run.n_top : 0;
        if (run.n_top > 0 && !r->items)
            rc = tplan_err_set(err, TPLAN_ENOMEM, "keep", "out of memory");
    } else if (rc == TPLAN_OK) {
        /* keep = "fits"/"all": ranked by the engine; the result takes
         * them over */
        r->items = run.kept;
        r->n = r->cap = run.n_kept;
        run.kept = NULL;
        run.n_kept = 0;
    }
    if (rc == TPLAN_OK && r->spec->pareto && run.n_front > 0) {
        r->front = copy_ranked(run.front, run.n_front);
        r->n_front = r->front ? run.n_front : 0;
    }
    tplan_sweep_run_free(&run);
    if (rc == TPLAN_OK && two && r->stats.kept > r->n) {
        if (r->stats.interrupted || (st->o.stop && *st->o.stop))
            keep_first(r);
        else
            rc = stream(L, r, h, outputs, err);
    }
    if (st->o.progress)
        st->o.progress(st->o.progress_ud, -1, r->stats.space); /* done */
    return rc;
}

/* A sweep that kept nothing says why, as an error: the most common
 * reasons configurations were invalid (a sample of them evaluated again
 * with their messages), or the limits that dropped the valid plans. */
static int nothing_kept(lua_State *L, const lt_state *st, const lt_result *r)
{
    const tplan_sweep_stats *t = &r->stats;
    char why[480];
    size_t n = 0;

    why[0] = '\0';
    if (t->evaluated == 0) {
        tplan_reason rs[4];
        int nr;

        tplan_sweep_reasons(r->spec, st->o.shard, st->o.shards, 100000, rs, 4,
                            &nr);
        for (int i = 0; i < nr && i < 3 && n < sizeof why; i++)
            n += (size_t)snprintf(why + n, sizeof why - n, "%s%lld x %.130s",
                                  i ? "; " : "", (long long)rs[i].count,
                                  rs[i].example);
        return lu_error(L, "tplan.sweep",
                        "sweep '%s': none of its %lld configurations is "
                        "valid (%s%s)",
                        r->name, (long long)t->visited, why,
                        t->visited > 100000 ? ", counts from a sample" : "");
    }
    for (int d = 0; d < TPLAN_DROP_COUNT && n < sizeof why; d++)
        if (t->dropped[d] > 0)
            n += (size_t)snprintf(why + n, sizeof why - n, "%s%lld by %s",
                                  n ? ", " : "", (long long)t->dropped[d],
                                  tplan_drop_name((tplan_drop)d));
    return lu_error(L, "tplan.sweep",
                    "sweep '%s': none of its %lld valid plans passes the "
                    "limits (%s); loosen limits, where or keep",
                    r->name, (long long)t->evaluated, why);
}

/* tplan.sweep{...}: parse, ask the run whether to go ahead, walk, hand
 * the result to the run (--csv, --db) and to the script. */
static int l_sweep(lua_State *L)
{
    lt_state *st = lt_get_state(L);
    hook_state h = {L, 0, 0, 0, NULL};
    const char *name = "sweep";
    tplan_sweep_result view;
    int64_t threads = st->o.threads, ranked = TPLAN_STREAM_RANKED;
    bool outputs = false;
    lt_result *r;
    tplan_err err;
    int rc;

    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    r = lt_result_new(L); /* t r */
    if (!(r->spec = calloc(1, sizeof *r->spec)))
        return luaL_error(L, "tplan.sweep: out of memory");
    lu_str(L, 1, "tplan.sweep", "name", &name);
    if (strlen(name) >= sizeof r->name)
        return lu_error(L, "tplan.sweep", "name is longer than %d bytes",
                        (int)sizeof r->name - 1);
    /* copied now: the name's string may go before the sweep ends */
    snprintf(r->name, sizeof r->name, "%s", name);
    lua_getfield(L, 1, "where"); /* t r where */
    lua_getfield(L, 1, "score"); /* t r where score */
    if (!lua_isnil(L, -2) && !lua_isfunction(L, -2) &&
        lua_type(L, -2) != LUA_TSTRING)
        return lu_error(L, "tplan.sweep",
                        "field 'where' must be an expression (a string) or "
                        "a function");
    if (!lua_isnil(L, -1) && !lua_isfunction(L, -1))
        return lu_error(L, "tplan.sweep", "field 'score' must be a function");
    /* a string is compiled and checked in C, on every thread */
    h.where = lua_isfunction(L, -2) ? lua_absindex(L, -2) : 0;
    h.score = lua_isnil(L, -1) ? 0 : lua_absindex(L, -1);
    r->has_score = h.score != 0;
    lt_push_view(L); /* t r where score view */
    h.view = lua_absindex(L, -1);
    h.res = r;
    lt_sweep_spec(L, 1, r->spec, r->has_score);
    if (lua_type(L, 3) == LUA_TSTRING &&
        tplan_expr_compile(lua_tostring(L, 3), &r->spec->filter, &err))
        return lu_engine_error(L, "tplan.sweep", &err);
    lu_int(L, 1, "tplan.sweep", "threads", 1, TPLAN_MAX_THREADS, &threads);
    r->threads = (int)threads;
    lu_int(L, 1, "tplan.sweep", "ranked", 1, TPLAN_MAX_KEEP, &ranked);
    r->ranked = (int)ranked;
    if (tplan_sweep_validate(r->spec, &err))
        return lu_engine_error(L, "tplan.sweep", &err);
    if (st->o.before_sweep &&
        st->o.before_sweep(st->o.ud, r->name,
                           (double)tplan_sweep_size(r->spec) /
                               (double)st->o.shards,
                           h.where || h.score, r->threads,
                           r->spec->keep_mode != TPLAN_KEEP_TOP, &err))
        return lu_engine_error(L, "tplan.sweep", &err);
    if (st->o.sweeping)
        *st->o.sweeping = 1;
    rc = walk(L, r, &h, &outputs, &err);
    if (st->o.sweeping)
        *st->o.sweeping = 0;
    if (rc) {
        if (outputs) /* the run's outputs said it, under their option */
            return lu_engine_error(L, err.field, &err);
        if (rc != TPLAN_ESTOP)
            return lu_engine_error(L, "tplan.sweep", &err);
        lua_pushstring(L, err.msg); /* a hook's message says where */
        return lua_error(L);
    }
    lua_settop(L, 2); /* t r */
    if (r->n == 0 && r->n_front == 0 && !r->stats.interrupted &&
        r->stats.visited > 0)
        return nothing_kept(L, st, r);
    st->sweeps++;
    if (r->stats.interrupted)
        st->interrupted = 1;
    set_meta(L, r, st->sweeps);
    view = lt_result_view(r);
    if (st->o.after_sweep && st->o.after_sweep(st->o.ud, &r->meta, &view, &err))
        return lu_engine_error(L, err.field, &err);
    return 1;
}

int lt_may_write(lua_State *L, const char *path, tplan_err *err)
{
    const lt_state *st = lt_get_state(L);

    if (lt_catalog_loaded(L, path))
        return tplan_err_set(err, TPLAN_EUSAGE, "catalog",
                             "%.200s is a file this script read: "
                             "refusing to write over it",
                             path);
    return st->o.may_write ? st->o.may_write(st->o.ud, path, err) : TPLAN_OK;
}

tplan_save_watch lt_save_watch(lua_State *L, const char *path)
{
    tplan_save_watch w = lt_get_state(L)->o.watch;

    w.path = path;
    return w;
}

void lt_open_sweep(lua_State *L)
{
    lt_open_result(L);
    lua_pushcfunction(L, l_sweep);
    lua_setfield(L, -2, "sweep");
}
