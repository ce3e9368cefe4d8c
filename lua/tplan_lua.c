/* The module table and the per-state run options. */
#include "l_tplan.h"

#include <string.h>

#include "helpers_lua.h"

static const char STATE_KEY[] = "tplan.state";

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
    lt_track_inputs(L);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE); /* preload */
    lua_pushcfunction(L, luaopen_tplan);
    lua_setfield(L, -2, "tplan");
    lua_pop(L, 1);
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
