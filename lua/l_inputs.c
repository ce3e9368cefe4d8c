/* The files a script reads, remembered (issue 36): no output of the run
 * may be one of them, and res:csv/res:save may not write over one. A run
 * that wrote its --csv over the module it had required lost the module;
 * now the read is refused with one line naming the file, before any
 * sweep, and the file stays as it was. */
#include "l_tplan.h"

#include "l_util.h"

/* input(what, path): nil when path may be read (and it is remembered),
 * else the reason. */
static int l_input(lua_State *L)
{
    const char *what = luaL_checkstring(L, 1);
    const char *path = luaL_checkstring(L, 2);
    tplan_err err;

    if (lt_may_read(L, path, &err) == TPLAN_OK)
        return 0;
    lua_pushfstring(L, "%s: %s", what, err.msg);
    return 1;
}

/* Each reader wrapped around the one in place (--safe's, when it runs):
 * the path checked first, then the reader called as it was. A path that
 * is not a string is the reader's to refuse. */
static const char wrap[] =
    "local input = ...\n"
    "local function check(what, path, level)\n"
    "  if type(path) == 'string' then\n"
    "    local why = input(what, path)\n"
    "    if why then error(why, level) end\n"
    "  end\n"
    "end\n"
    "local open, lines, inp = io.open, io.lines, io.input\n"
    "local loadfile, dofile = loadfile, dofile\n"
    "local searchpath, lua_searcher = package.searchpath, package.searchers[2]\n"
    "io.open = function(path, mode, ...)\n"
    "  if mode == nil or (type(mode) == 'string' and mode:find('r', 1, true)) "
    "then\n"
    "    check('io.open', path, 3)\n"
    "  end\n"
    "  return open(path, mode, ...)\n"
    "end\n"
    "io.lines = function(path, ...)\n"
    "  check('io.lines', path, 3)\n"
    "  return lines(path, ...)\n"
    "end\n"
    "io.input = function(f, ...)\n"
    "  check('io.input', f, 3)\n"
    "  return inp(f, ...)\n"
    "end\n"
    "_G.loadfile = function(path, ...)\n"
    "  check('loadfile', path, 3)\n"
    "  return loadfile(path, ...)\n"
    "end\n"
    "_G.dofile = function(path, ...)\n"
    "  check('dofile', path, 3)\n"
    "  return dofile(path, ...)\n"
    "end\n"
    "if lua_searcher then\n"
    "  package.searchers[2] = function(name, ...)\n"
    "    if type(name) == 'string' then\n"
    "      local path = searchpath(name, package.path)\n"
    "      if path then check('require', path, 4) end\n"
    "    end\n"
    "    return lua_searcher(name, ...)\n"
    "  end\n"
    "end\n";

void lt_track_inputs(lua_State *L)
{
    if (luaL_loadbuffer(L, wrap, sizeof wrap - 1, "=tplan") != LUA_OK)
        lua_error(L); /* out of memory: the set-up's protected call */
    lua_pushcfunction(L, l_input);
    lua_call(L, 1, 0);
}
