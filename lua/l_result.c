/* The result of tplan.sweep ("tplan.result"): the kept plans and the
 * Pareto front as sweep indexes, evaluated again in full when a script
 * reads them (top, each, pareto) or writes them (csv, save: db/save.c). */
#include "l_tplan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "l_util.h"
#include "robust.h"
#include "save.h"

static void result_close(lt_result *r)
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

lt_result *lt_result_new(lua_State *L)
{
    lt_result *r = lua_newuserdatauv(L, sizeof *r, 0); /* ... r */

    memset(r, 0, sizeof *r);
    luaL_setmetatable(L, TPLAN_RESULT_MT);
    return r;
}

lt_result *lt_check_result(lua_State *L, int idx)
{
    lt_result *r = luaL_checkudata(L, idx, TPLAN_RESULT_MT);

    if (!r->spec)
        luaL_error(L, "tplan.result is closed");
    return r;
}

tplan_sweep_result lt_result_view(const lt_result *r)
{
    tplan_sweep_result v;

    memset(&v, 0, sizeof v);
    v.spec = r->spec;
    v.kept = r->items;
    v.n_kept = r->n;
    v.front = r->front;
    v.n_front = r->n_front;
    v.stats = r->stats;
    v.has_score = r->has_score;
    v.threads = r->threads;
    v.streamed = r->streamed;
    return v;
}



/* Push the full plan of a kept entry. */
static void push_entry(lua_State *L, const lt_result *r, const tplan_ranked *e)
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

/* Name the sweep's axes of two or more values in the list at the top,
 * as its field "axes" (tplan.print_table shows each of them). */
static void set_axes(lua_State *L, const tplan_sweep_spec *s)
{
    int n = 0;

    lua_createtable(L, s->n_axes, 0); /* ... list axes */
    for (int i = 0; i < s->n_axes; i++) {
        if (s->axes[i].n < 2)
            continue;
        lua_pushstring(L, tplan_field_at(s->axes[i].id)->name);
        lua_rawseti(L, -2, ++n);
    }
    lua_setfield(L, -2, "axes"); /* ... list */
}

static int r_count(lua_State *L)
{
    lua_pushinteger(L, lt_check_result(L, 1)->n);
    return 1;
}

static int r_top(lua_State *L)
{
    lt_result *r = lt_check_result(L, 1);
    lua_Integer n = luaL_optinteger(L, 2, 10);

    if (n < 0)
        return luaL_error(L, "tplan.result:top: n must be >= 0 (n=%I)",
                          (LUAI_UACINT)n);
    if (n > r->n)
        n = r->n;
    lua_createtable(L, (int)n, 1); /* r n t */
    set_axes(L, r->spec);
    for (lua_Integer i = 0; i < n; i++) {
        push_entry(L, r, &r->items[i]); /* r n t p */
        lua_rawseti(L, -2, i + 1);      /* r n t */
    }
    return 1;
}

static int r_each_next(lua_State *L)
{
    lt_result *r = lt_check_result(L, lua_upvalueindex(1));
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
    lt_check_result(L, 1);
    lua_pushvalue(L, 1);                 /* r r */
    lua_pushinteger(L, 0);               /* r r 0 */
    lua_pushcclosure(L, r_each_next, 2); /* r f */
    return 1;
}

/* A streamed sweep's plans are in the run's outputs, not in the result:
 * writing the result would store only the best of them. */
static int streamed_error(lua_State *L, const lt_result *r, const char *fn)
{
    return lu_error(L, fn,
                    "sweep '%s' streamed its %lld plans into the run's "
                    "--db/--csv as it walked; the result holds only the "
                    "best %lld (res:top, res:each, res:pareto())",
                    r->name, (long long)r->stats.kept, (long long)r->n);
}

/* The Pareto front: the sweep's (pareto = true) with no argument, or over
 * other objectives among the kept plans. */
static int r_pareto(lua_State *L)
{
    lt_result *r = lt_check_result(L, 1);
    tplan_objective obj[TPLAN_MAX_OBJECTIVES];
    tplan_front f = {NULL, 0, 0, 0, false};
    tplan_config *c;
    tplan_plan *p;
    tplan_err err;
    int nobj;

    if (r->streamed && !lua_isnoneornil(L, 2))
        return streamed_error(L, r, "tplan.result:pareto");
    if (lua_isnoneornil(L, 2)) {
        if (!r->spec->pareto)
            return luaL_error(L, "tplan.result:pareto: give objectives, or "
                                 "sweep with pareto = true");
        lua_createtable(L, (int)r->n_front, 1);
        set_axes(L, r->spec);
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
        tplan_ranked_set(&rk, r->items[i].index, obj, nobj, p,
                         r->items[i].score, !r->spec->mix_unfit);
        tplan_front_push(&f, &rk);
    }
    tplan_ranked_sort(f.items, f.n, nobj);
    lua_createtable(L, f.n, 1);
    set_axes(L, r->spec);
    for (int i = 0; i < f.n; i++) {
        tplan_ranked e = f.items[i];

        e.score = (double)NAN;
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
    lt_result *r = lt_check_result(L, 1);
    const tplan_sweep_stats *s = &r->stats;

    lua_createtable(L, 0, 11);
    lua_pushstring(L, r->name);
    lua_setfield(L, -2, "name");
    lua_pushinteger(L, s->space);
    lua_setfield(L, -2, "space");
    lua_pushinteger(L, s->visited);
    lua_setfield(L, -2, "visited");
    lua_pushinteger(L, s->invalid);
    lua_setfield(L, -2, "invalid");
    lua_pushinteger(L, s->skipped);
    lua_setfield(L, -2, "skipped");
    lua_pushinteger(L, s->evaluated);
    lua_setfield(L, -2, "evaluated");
    lua_pushinteger(L, s->reused);
    lua_setfield(L, -2, "staged");
    lua_pushinteger(L, s->unfit_untimed);
    lua_setfield(L, -2, "unfit_untimed");
    lua_pushinteger(L, s->passed);
    lua_setfield(L, -2, "passed");
    lua_pushinteger(L, r->streamed ? s->kept : r->n);
    lua_setfield(L, -2, "kept");
    lua_pushboolean(L, r->streamed);
    lua_setfield(L, -2, "streamed");
    lua_pushinteger(L, s->kept_unfit);
    lua_setfield(L, -2, "kept_unfit");
    lua_pushnumber(L, s->seconds);
    lua_setfield(L, -2, "seconds");
    lua_pushnumber(L, s->seconds > 0 ? (double)s->evaluated / s->seconds : 0.0);
    lua_setfield(L, -2, "evals_per_s");
    lua_pushboolean(L, s->interrupted);
    lua_setfield(L, -2, "interrupted");
    lua_pushboolean(L, s->front_truncated);
    lua_setfield(L, -2, "front_truncated");
    lua_createtable(L, 0, TPLAN_DROP_COUNT); /* ... stats dropped */
    for (int d = 0; d < TPLAN_DROP_COUNT; d++) {
        lua_pushinteger(L, s->dropped[d]);
        lua_setfield(L, -2, tplan_drop_name((tplan_drop)d));
    }
    lua_setfield(L, -2, "dropped"); /* ... stats */
    return 1;
}

/* res:csv(path): every kept plan, best first, in a file of its own. */
static int r_csv(lua_State *L)
{
    const char *path = luaL_checkstring(L, 2);
    lt_result *r = lt_check_result(L, 1);
    tplan_sweep_result view = lt_result_view(r);
    tplan_save_watch watch = lt_save_watch(L, path);
    tplan_csv *w;
    tplan_err err;

    if (r->streamed)
        return streamed_error(L, r, "tplan.result:csv");
    if (lt_may_write(L, path, &err) || !(w = tplan_csv_open(path, &err)))
        return lu_engine_error(L, "tplan.result:csv", &err);
    if (tplan_save_csv(w, r->name, &view, &watch, &err)) {
        tplan_csv_abort(w);
        return lu_engine_error(L, "tplan.result:csv", &err);
    }
    if (tplan_csv_close(w, &err))
        return lu_engine_error(L, "tplan.result:csv", &err);
    lua_pushinteger(L, r->n);
    return 1;
}

/* res:save(path): the sweep, its kept plans and its front into a result
 * database (created when new); returns the plan rows written. */
static int r_save(lua_State *L)
{
    const char *path = luaL_checkstring(L, 2);
    lt_result *r = lt_check_result(L, 1);
    tplan_sweep_result view = lt_result_view(r);
    tplan_save_watch watch = lt_save_watch(L, path);
    tplan_store *db;
    tplan_err err;
    int64_t rows;
    int rc;

    if (r->streamed)
        return streamed_error(L, r, "tplan.result:save");
    if (lt_may_write(L, path, &err) || !(db = tplan_store_open(path, &err)))
        return lu_engine_error(L, "tplan.result:save", &err);
    rc = tplan_save_db(db, &r->meta, &view, &watch, &rows, &err);
    tplan_store_close(db);
    if (rc)
        return lu_engine_error(L, "tplan.result:save", &err);
    lua_pushinteger(L, rows);
    return 1;
}

/* Push kept plan k (0-based) evaluated with assumption a at v (a NULL:
 * as the sweep has it). */
static void push_kept_at(lua_State *L, const lt_result *r,
                         const tplan_config *cfg, int k,
                         const tplan_assumption *a, double v)
{
    tplan_config *c = lua_newuserdatauv(L, sizeof *c, 0); /* ... c */
    tplan_plan *p = lua_newuserdatauv(L, sizeof *p, 0);   /* ... c p */
    tplan_err err;

    *c = cfg[k];
    if (a)
        tplan_field_apply(tplan_assumption_field(a), v, c);
    if (tplan_plan_eval(c, p, &err))
        luaL_error(L, "tplan.result:robustness: %s", err.msg);
    lt_push_plan(L, p, r->items[k].index, r->items[k].score,
                 r->has_score); /* ... c p t */
    lua_pushinteger(L, k + 1);  /* ... c p t rank */
    lua_setfield(L, -2, "rank"); /* ... c p t */
    lua_replace(L, -3);          /* ... t p */
    lua_pop(L, 1);               /* ... t */
}

/* res:robustness([{top = N}]): does the first plan stay first with each
 * assumption the sweep left at its default (not an axis, not set by the
 * script or its framework) at the low and the high end of its range, and
 * is the runner-up within the first's step-time band? The ranking: a
 * plan that fits first, then the sweep's objectives, then the index
 * (engine/robust.h). */
static int r_robustness(lua_State *L)
{
    static const char *const fields[] = {"top", NULL};
    const char *what = "tplan.result:robustness";
    lt_result *r = lt_check_result(L, 1);
    int64_t top = r->n;
    tplan_config *cfg;
    int64_t *idx;
    bool *fixed;
    tplan_robust_in in;
    tplan_robust_out *out;
    tplan_err err;

    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        lu_check_fields(L, 2, what, fields);
        lu_int(L, 2, what, "top", 1, TPLAN_MAX_KEEP, &top);
    }
    lua_settop(L, 2);
    if (top > r->n)
        top = r->n;
    /* every buffer a userdata: a raise below frees them */
    cfg = lua_newuserdatauv(L, sizeof *cfg * (size_t)(top ? top : 1), 0);
    idx = lua_newuserdatauv(L, sizeof *idx * (size_t)(top ? top : 1), 0);
    fixed = lua_newuserdatauv(L, (size_t)tplan_field_count(), 0);
    out = lua_newuserdatauv(L, sizeof *out, 0); /* r o cfg idx fixed out */
    for (int id = 0; id < tplan_field_count(); id++)
        fixed[id] = r->spec->given[id];
    for (int i = 0; i < r->spec->n_axes; i++)
        fixed[r->spec->axes[i].id] = true;
    for (int64_t i = 0; i < top; i++) {
        idx[i] = r->items[i].index;
        if (tplan_sweep_config_at(r->spec, idx[i], &cfg[i], &err))
            return lu_engine_error(L, what, &err);
    }
    in.configs = cfg;
    in.index = idx;
    in.n = (int)top;
    in.rank = r->spec->rank;
    in.n_rank = r->spec->n_rank;
    in.fixed = fixed;
    in.mix_unfit = r->spec->mix_unfit; /* ranked as res:top ranks */
    if (tplan_robustness(&in, out, &err))
        return lu_engine_error(L, what, &err);
    lua_createtable(L, 0, 6); /* ... res */
    lua_pushboolean(L, out->n_flips == 0);
    lua_setfield(L, -2, "holds");
    if (out->first >= 0) {
        push_kept_at(L, r, cfg, out->first, NULL, 0.0); /* ... res p */
        lua_setfield(L, -2, "first");                    /* ... res */
    }
    lua_createtable(L, out->n_flips, 0); /* ... res flips */
    for (int i = 0; i < out->n_flips; i++) {
        const tplan_robust_flip *f = &out->flips[i];

        lua_createtable(L, 0, 5); /* ... res flips f */
        lua_pushstring(L, f->a->name);
        lua_setfield(L, -2, "field");
        lua_pushnumber(L, f->value);
        lua_setfield(L, -2, "value");
        lua_pushnumber(L, f->base);
        lua_setfield(L, -2, "default");
        lua_pushnumber(L, f->delta);
        lua_setfield(L, -2, "delta");
        lua_pushboolean(L, f->first_fits);
        lua_setfield(L, -2, "first_fits");
        push_kept_at(L, r, cfg, f->top, f->a, f->value); /* ... f p */
        lua_setfield(L, -2, "top");                      /* ... res flips f */
        lua_rawseti(L, -2, i + 1);                       /* ... res flips */
    }
    lua_setfield(L, -2, "flips");          /* ... res */
    lua_createtable(L, out->n_checked, 0); /* ... res checked */
    for (int i = 0; i < out->n_checked; i++) {
        const tplan_assumption *a = out->checked[i];

        lua_createtable(L, 0, 4); /* ... res checked c */
        lua_pushstring(L, a->name);
        lua_setfield(L, -2, "field");
        lua_pushnumber(L, a->lo);
        lua_setfield(L, -2, "lo");
        lua_pushnumber(L, a->hi);
        lua_setfield(L, -2, "hi");
        lua_pushstring(L, a->source);
        lua_setfield(L, -2, "source");
        lua_rawseti(L, -2, i + 1); /* ... res checked */
    }
    lua_setfield(L, -2, "checked"); /* ... res */
    lua_createtable(L, 0, 3);       /* ... res band */
    lua_pushboolean(L, out->band_checked);
    lua_setfield(L, -2, "checked");
    lua_pushboolean(L, out->band_tie);
    lua_setfield(L, -2, "tie");
    if (out->second >= 0) {
        push_kept_at(L, r, cfg, out->second, NULL, 0.0); /* ... band p */
        lua_setfield(L, -2, "second");                    /* ... res band */
    }
    lua_setfield(L, -2, "band"); /* ... res */
    lua_pushinteger(L, out->evaluations);
    lua_setfield(L, -2, "evaluations");
    return 1;
}

static int r_tostring(lua_State *L)
{
    lt_result *r = luaL_checkudata(L, 1, TPLAN_RESULT_MT);

    lua_pushfstring(L, "tplan.result(%s: %I kept of %I evaluated)", r->name,
                    (lua_Integer)r->n, (lua_Integer)r->stats.evaluated);
    return 1;
}

void lt_open_result(lua_State *L)
{
    static const luaL_Reg methods[] = {{"count", r_count}, {"top", r_top},
                                       {"each", r_each},   {"pareto", r_pareto},
                                       {"stats", r_stats}, {"csv", r_csv},
                                       {"save", r_save},
                                       {"robustness", r_robustness},
                                       {NULL, NULL}};
    static const luaL_Reg meta[] = {{"__gc", result_gc},
                                    {"__close", result_gc},
                                    {"__tostring", r_tostring},
                                    {NULL, NULL}};

    luaL_newmetatable(L, TPLAN_RESULT_MT); /* mod mt */
    luaL_setfuncs(L, meta, 0);
    luaL_newlib(L, methods);        /* mod mt methods */
    lua_setfield(L, -2, "__index"); /* mod mt */
    lua_pop(L, 1);                  /* mod */
}
