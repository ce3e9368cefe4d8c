/* The module table and the per-state run options. */
#include "l_tplan.h"

#include <string.h>

#include "helpers_lua.h"

static const char STATE_KEY[] = "tplan.state";

static int state_gc(lua_State *L)
{
    lt_state *st = lua_touserdata(L, 1);

    tplan_csv_abort(st->csv); /* never finished: not renamed into place */
    st->csv = NULL;
    tplan_store_close(st->db);
    st->db = NULL;
    return 0;
}

lt_state *lt_get_state(lua_State *L)
{
    lt_state *st;

    if (lua_getfield(L, LUA_REGISTRYINDEX, STATE_KEY) == LUA_TUSERDATA) {
        st = lua_touserdata(L, -1);
        lua_pop(L, 1);
        return st;
    }
    lua_pop(L, 1);
    st = lua_newuserdatauv(L, sizeof *st, 0); /* st */
    memset(st, 0, sizeof *st);
    st->o.threads = 1;
    st->o.shards = 1;
    lua_createtable(L, 0, 1); /* st mt */
    lua_pushcfunction(L, state_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);                       /* st */
    lua_setfield(L, LUA_REGISTRYINDEX, STATE_KEY); /* */
    return st;
}

void tplan_lua_setup(lua_State *L, const tplan_lua_options *o)
{
    lt_state *st = lt_get_state(L);

    st->o = *o;
    if (st->o.threads < 1)
        st->o.threads = 1;
    if (st->o.shards < 1) {
        st->o.shard = 0;
        st->o.shards = 1;
    }
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE); /* preload */
    lua_pushcfunction(L, luaopen_tplan);
    lua_setfield(L, -2, "tplan");
    lua_pop(L, 1);
}

int tplan_lua_open_outputs(lua_State *L, tplan_err *err)
{
    lt_state *st = lt_get_state(L);

    if (st->o.csv_path && !st->csv &&
        !(st->csv = tplan_csv_open(st->o.csv_path, err)))
        return err->code;
    if (st->o.db_path && !st->db &&
        !(st->db = tplan_store_open(st->o.db_path, err)))
        return err->code;
    return TPLAN_OK;
}

int tplan_lua_finish(lua_State *L, tplan_err *err)
{
    lt_state *st = lt_get_state(L);
    tplan_csv *w;

    tplan_store_close(st->db); /* every sweep committed as it ended */
    st->db = NULL;
    if (!st->o.csv_path || st->csv_failed)
        return TPLAN_OK;
    w = st->csv;
    st->csv = NULL;
    if (!w && !(w = tplan_csv_open(st->o.csv_path, err)))
        return err->code; /* no sweep ran: still a header-only file */
    return tplan_csv_close(w, err);
}

int64_t tplan_lua_sweeps(lua_State *L, int *interrupted)
{
    lt_state *st = lt_get_state(L);

    if (interrupted)
        *interrupted = st->interrupted;
    return st->sweeps;
}

int luaopen_tplan(lua_State *L)
{
    lt_get_state(L);
    lua_newtable(L); /* mod */
    lua_pushstring(L, TPLAN_VERSION);
    lua_setfield(L, -2, "version");
    lt_open_models(L);
    lt_open_plan(L);
    lt_open_sweep(L);
    lt_open_db(L);
    lt_open_catalogs(L);
    lt_open_fields(L);
    /* the Lua helpers add themselves to the module table */
    if (luaL_loadbuffer(L, (const char *)helpers_lua, sizeof helpers_lua - 1,
                        "=tplan/helpers.lua") != LUA_OK)
        return lua_error(L);
    lua_pushvalue(L, -2); /* mod chunk mod */
    lua_call(L, 1, 0);    /* mod */
    return 1;
}
