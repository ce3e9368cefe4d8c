/* tplan.plan (one evaluation as a plain table), the plan view hooks see,
 * and tplan.lr_at. Field names come from the engine's field table. */
#include "l_tplan.h"

#include <math.h>
#include <string.h>

#include "l_util.h"
#include "fields.h"

/* Push field id of p (nil for a missing REAL). */
static void push_field(lua_State *L, int id, const tplan_plan *p)
{
    char buf[TPLAN_MAX_WARNINGS * TPLAN_WARNING_LEN];
    tplan_value v = tplan_field_get(id, p, buf, sizeof buf);

    switch (tplan_field_at(id)->type) {
    case TPLAN_FT_INT:
        lua_pushinteger(L, v.i);
        break;
    case TPLAN_FT_BOOL:
        lua_pushboolean(L, (int)v.i);
        break;
    case TPLAN_FT_REAL:
        if (isnan(v.r))
            lua_pushnil(L);
        else
            lua_pushnumber(L, v.r);
        break;
    default:
        lua_pushstring(L, v.s);
        break;
    }
}

static void push_schedule(lua_State *L, const tplan_lr_schedule *s)
{
    lua_createtable(L, 0, 6); /* ... t */
    lua_pushstring(L, tplan_schedule_name(s->kind));
    lua_setfield(L, -2, "kind");
    lua_pushnumber(L, s->peak);
    lua_setfield(L, -2, "peak");
    lua_pushnumber(L, s->floor);
    lua_setfield(L, -2, "floor");
    lua_pushinteger(L, s->warmup_steps);
    lua_setfield(L, -2, "warmup_steps");
    lua_pushinteger(L, s->total_steps);
    lua_setfield(L, -2, "total_steps");
    lua_pushnumber(L, s->decay_fraction);
    lua_setfield(L, -2, "decay_fraction");
}

void lt_push_plan(lua_State *L, const tplan_plan *p, int64_t index,
                  double score, bool has_score)
{
    int n = tplan_field_count();
    int warnings = tplan_field_find("warnings");

    lua_createtable(L, 0, n + 4); /* ... t */
    for (int id = 0; id < n; id++) {
        if (id == warnings)
            continue;
        push_field(L, id, p);                          /* ... t v */
        lua_setfield(L, -2, tplan_field_at(id)->name); /* ... t */
    }
    lua_createtable(L, p->n_warnings, 0); /* ... t w */
    for (int i = 0; i < p->n_warnings; i++) {
        lua_pushstring(L, p->warnings[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "warnings"); /* ... t */
    if (p->lr.set) {
        push_schedule(L, &p->lr.schedule); /* ... t s */
        lua_setfield(L, -2, "lr");         /* ... t */
    }
    if (index >= 0) {
        lua_pushinteger(L, index);
        lua_setfield(L, -2, "index");
    }
    if (has_score) {
        lua_pushnumber(L, score);
        lua_setfield(L, -2, "score");
    }
}

static int l_plan(lua_State *L)
{
    tplan_config *c;
    tplan_plan *p;
    tplan_err err;

    luaL_checktype(L, 1, LUA_TTABLE);
    lt_check_config_fields(L, 1, "tplan.plan", NULL);
    /* scratch space as userdata: reclaimed even if parsing raises */
    c = lua_newuserdatauv(L, sizeof *c, 0); /* t c */
    p = lua_newuserdatauv(L, sizeof *p, 0); /* t c p */
    memset(c, 0, sizeof *c);
    lt_parse_config(L, 1, "tplan.plan", c, true, false);
    if (tplan_plan_eval(c, p, &err))
        return lu_engine_error(L, "tplan.plan", &err);
    lt_push_plan(L, p, -1, 0.0, false); /* t c p plan */
    return 1;
}

/* ---- the view a where/score hook sees --------------------------------- */

/* A view borrows the plan being evaluated; it is valid only during the
 * hook (p:table() takes a snapshot to keep). */
typedef struct view {
    const tplan_plan *p; /* figures only */
    int64_t index;
    const tplan_sweep_spec *spec;
    bool have_full;
    tplan_config c;
    tplan_plan full; /* p with its warnings, when asked for */
} view;

/* The plan with its warnings: re-evaluated in full once per plan. */
static const tplan_plan *view_full(lua_State *L, view *v)
{
    tplan_err err;

    if (!v->spec)
        return v->p;
    if (!v->have_full) {
        if (tplan_sweep_config_at(v->spec, v->index, &v->c, &err) ||
            tplan_plan_eval(&v->c, &v->full, &err))
            luaL_error(L, "tplan.sweep: %s", err.msg);
        v->have_full = true;
    }
    return &v->full;
}

static int view_index(lua_State *L)
{
    view *v = luaL_checkudata(L, 1, TPLAN_VIEW_MT);
    int id;

    /* upvalue 1: field name -> id */
    lua_pushvalue(L, 2);                                     /* v k k */
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNUMBER) { /* v k id */
        const char *k = lua_tostring(L, 2);

        if (k && strcmp(k, "index") == 0) {
            lua_pushinteger(L, v->index);
            return 1;
        }
        if (k && strcmp(k, "table") == 0) {
            lua_pushvalue(L, lua_upvalueindex(2)); /* the method */
            return 1;
        }
        if (k && strcmp(k, "lr") == 0 && v->p) {
            if (v->p->lr.set)
                push_schedule(L, &v->p->lr.schedule);
            else
                lua_pushnil(L);
            return 1;
        }
        return luaL_error(L, "a plan has no field '%s'",
                          k ? k : luaL_typename(L, 2));
    }
    if (!v->p)
        return luaL_error(L, "a plan view is valid only inside its hook "
                             "(use p:table() to keep one)");
    id = (int)lua_tointeger(L, -1);
    if (strcmp(tplan_field_at(id)->name, "warnings") == 0) {
        const tplan_plan *f = view_full(L, v);

        lua_createtable(L, f->n_warnings, 0);
        for (int i = 0; i < f->n_warnings; i++) {
            lua_pushstring(L, f->warnings[i]);
            lua_rawseti(L, -2, i + 1);
        }
        return 1;
    }
    push_field(L, id, v->p);
    return 1;
}

static int view_table(lua_State *L)
{
    view *v = luaL_checkudata(L, 1, TPLAN_VIEW_MT);

    if (!v->p)
        return luaL_error(L, "a plan view is valid only inside its hook");
    lt_push_plan(L, view_full(L, v), v->index, 0.0, false);
    return 1;
}

void lt_push_view(lua_State *L)
{
    view *v = lua_newuserdatauv(L, sizeof *v, 0);

    memset(v, 0, sizeof *v);
    v->index = -1;
    luaL_setmetatable(L, TPLAN_VIEW_MT);
}

void lt_view_set(lua_State *L, int idx, const tplan_sweep_spec *spec,
                 const tplan_plan *p, int64_t index)
{
    view *v = lua_touserdata(L, idx);

    v->p = p;
    v->spec = spec;
    v->index = index;
    v->have_full = false;
}

/* ---- tplan.lr_at ------------------------------------------------------ */

static int l_lr_at(lua_State *L)
{
    static const char *const fields[] = {
        "kind",        "peak",           "floor", "warmup_steps",
        "total_steps", "decay_fraction", NULL};
    tplan_lr_schedule s = {TPLAN_SCHED_COSINE, 0, 0, 0, 0, 0.1};
    lua_Integer step = luaL_checkinteger(L, 2);
    const char *kind;
    tplan_err err;
    int64_t v;

    luaL_checktype(L, 1, LUA_TTABLE);
    lu_check_fields(L, 1, "tplan.lr_at", fields);
    if (lu_str(L, 1, "tplan.lr_at", "kind", &kind) &&
        tplan_schedule_parse(kind, &s.kind, &err))
        return lu_engine_error(L, "tplan.lr_at", &err);
    if (!lu_num(L, 1, "tplan.lr_at", "peak", 0, 100, &s.peak))
        return lu_error(L, "tplan.lr_at", "field 'peak' is required");
    lu_num(L, 1, "tplan.lr_at", "floor", 0, 100, &s.floor);
    if (lu_int(L, 1, "tplan.lr_at", "warmup_steps", 0, (int64_t)1e15, &v))
        s.warmup_steps = v;
    if (lu_int(L, 1, "tplan.lr_at", "total_steps", 0, (int64_t)1e15, &v))
        s.total_steps = v;
    lu_num(L, 1, "tplan.lr_at", "decay_fraction", 0, 1, &s.decay_fraction);
    lua_pushnumber(L, tplan_lr_at(&s, step));
    return 1;
}

void lt_open_plan(lua_State *L)
{
    int n = tplan_field_count();

    lua_pushcfunction(L, l_plan); /* mod f */
    lua_setfield(L, -2, "plan");  /* mod */
    lua_pushcfunction(L, l_lr_at);
    lua_setfield(L, -2, "lr_at");
    luaL_newmetatable(L, TPLAN_VIEW_MT); /* mod mt */
    lua_createtable(L, 0, n);            /* mod mt names */
    for (int id = 0; id < n; id++) {
        lua_pushinteger(L, id);
        lua_setfield(L, -2, tplan_field_at(id)->name);
    }
    lua_pushcfunction(L, view_table);   /* mod mt names f */
    lua_pushcclosure(L, view_index, 2); /* mod mt idx */
    lua_setfield(L, -2, "__index");     /* mod mt */
    lua_pop(L, 1);                      /* mod */
}
