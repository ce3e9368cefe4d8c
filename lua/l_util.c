/* Strict named arguments and error raising for the Lua binding. */
#include "l_util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "names.h"

int lu_error(lua_State *L, const char *what, const char *fmt, ...)
{
    char msg[640];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return luaL_error(L, "%s: %s", what, msg);
}

int lu_engine_error(lua_State *L, const char *what, const tplan_err *err)
{
    return lu_error(L, what, "%s", err->msg);
}

void lu_check_fields(lua_State *L, int idx, const char *what,
                     const char *const *allowed)
{
    lu_check_fields_by(L, idx, what, allowed, NULL, NULL, "");
}

/* Raise "unknown field 'k'" with the closest known names: allowed's, then
 * also_at's. */
static void unknown_field(lua_State *L, const char *what, const char *k,
                          const char *const *allowed,
                          const char *(*also_at)(int i), const char *hint)
{
    const char *names[512];
    char mean[200];
    int n = 0;

    for (int i = 0; allowed && allowed[i] && n < 512; i++)
        names[n++] = allowed[i];
    for (int i = 0; also_at && n < 512 && (names[n] = also_at(i)); i++)
        n++;
    tplan_name_hint(k, names, n, "", mean, sizeof mean);
    lu_error(L, what, "unknown field '%s'%s%s%s", k, mean[0] ? ": " : "",
             mean, hint);
}

void lu_check_fields_by(lua_State *L, int idx, const char *what,
                        const char *const *allowed,
                        bool (*also)(const char *key),
                        const char *(*also_at)(int i), const char *hint)
{
    idx = lua_absindex(L, idx);
    lua_pushnil(L);            /* ... nil */
    while (lua_next(L, idx)) { /* ... key value */
        const char *k;
        bool ok = false;

        if (lua_type(L, -2) != LUA_TSTRING)
            lu_error(L, what, "fields are named: got a %s key",
                     luaL_typename(L, -2));
        k = lua_tostring(L, -2);
        ok = also && also(k);
        for (int i = 0; allowed && allowed[i] && !ok; i++)
            ok = strcmp(k, allowed[i]) == 0;
        if (!ok)
            unknown_field(L, what, k, allowed, also_at, hint);
        lua_pop(L, 1); /* ... key */
    }
}

/* Push the field; false (and nothing pushed) when it is nil. */
static bool get(lua_State *L, int idx, const char *field)
{
    if (lua_getfield(L, idx, field) == LUA_TNIL) { /* ... v */
        lua_pop(L, 1);                             /* ... */
        return false;
    }
    return true;
}

bool lu_int(lua_State *L, int idx, const char *what, const char *field,
            int64_t min, int64_t max, int64_t *out)
{
    lua_Integer v;
    int isint;

    if (!get(L, idx, field))
        return false;
    if (lua_type(L, -1) != LUA_TNUMBER)
        lu_error(L, what, "field '%s' must be an integer (got %s)", field,
                 luaL_typename(L, -1));
    v = lua_tointegerx(L, -1, &isint);
    if (!isint) {
        double d = lua_tonumber(L, -1);

        if (d == floor(d)) /* whole, but past 64-bit integers */
            lu_error(L, what, "%s must be in [%lld, %lld] (%s=%.14g)", field,
                     (long long)min, (long long)max, field, d);
        lu_error(L, what, "field '%s' must be an integer (%s=%.14g)", field,
                 field, d);
    }
    if (v < min || v > max)
        lu_error(L, what, "%s must be in [%lld, %lld] (%s=%lld)", field,
                 (long long)min, (long long)max, field, (long long)v);
    lua_pop(L, 1);
    *out = v;
    return true;
}

bool lu_num(lua_State *L, int idx, const char *what, const char *field,
            double min, double max, double *out)
{
    double v;

    if (!get(L, idx, field))
        return false;
    if (lua_type(L, -1) != LUA_TNUMBER)
        lu_error(L, what, "field '%s' must be a number (got %s)", field,
                 luaL_typename(L, -1));
    v = lua_tonumber(L, -1);
    if (!(v >= min && v <= max))
        lu_error(L, what, "%s must be in [%g, %g] (%s=%g)", field, min, max,
                 field, v);
    lua_pop(L, 1);
    *out = v;
    return true;
}

bool lu_bool(lua_State *L, int idx, const char *what, const char *field,
             bool *out)
{
    if (!get(L, idx, field))
        return false;
    if (lua_type(L, -1) != LUA_TBOOLEAN)
        lu_error(L, what, "field '%s' must be a boolean (got %s)", field,
                 luaL_typename(L, -1));
    *out = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return true;
}

bool lu_str(lua_State *L, int idx, const char *what, const char *field,
            const char **out)
{
    if (!get(L, idx, field))
        return false;
    if (lua_type(L, -1) != LUA_TSTRING)
        lu_error(L, what, "field '%s' must be a string (got %s)", field,
                 luaL_typename(L, -1));
    *out = lua_tostring(L, -1);
    lua_pop(L, 1); /* the table still holds the string */
    return true;
}
