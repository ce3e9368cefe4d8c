/* realpath (X/Open): --safe resolves links before it checks a path */
#define _XOPEN_SOURCE 700
/* Script limits. */
#include "script_limits.h"

#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

void *limits_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    mem_cap *m = ud;
    size_t old = ptr ? osize : 0;
    void *p;

    if (nsize == 0) {
        free(ptr);
        m->used -= old;
        return NULL;
    }
    if (m->cap && nsize > old && m->used + (nsize - old) > m->cap) {
        m->hit = true;
        return NULL;
    }
    if (!(p = realloc(ptr, nsize)))
        return NULL;
    m->used = m->used - old + nsize;
    return p;
}

/* What --safe takes away, in Lua: processes (os.execute, io.popen), native
 * code (package.loadlib, the C searchers), the debug library, binary
 * chunks (load/loadfile/dofile read text only), and every way to write or
 * remove a file (io.open for reading only, io.output to stdout only,
 * os.remove, os.rename, os.tmpname). tplan's own writers honour --safe
 * too: only the --csv and --db files named on the command line. */
static const char sandbox[] =
    "local proc_path = ...\n"
    "local open, load, loadfile, error = io.open, load, loadfile, error\n"
    "-- /proc and /sys (another process's environment), links resolved\n"
    "local function guard(what, path, level)\n"
    "  if type(path) == 'string' and proc_path(path) then\n"
    "    error('--safe: ' .. what .. ' may not read ' .. path .. ' (/proc "
    "and /sys hold other processes\\' secrets)', level)\n"
    "  end\n"
    "end\n"
    "local function deny(name)\n"
    "  return function() error('--safe: ' .. name .. ' is not allowed', 2) "
    "end\n"
    "end\n"
    "for _, f in ipairs{'execute', 'remove', 'rename', 'tmpname', 'getenv'} "
    "do\n"
    "  os[f] = deny('os.' .. f)\n"
    "end\n"
    "io.popen, io.tmpfile = deny('io.popen'), deny('io.tmpfile')\n"
    "-- require's Lua searcher, text chunks only (bytecode can crash Lua)\n"
    "package.searchers[2] = function(name)\n"
    "  local path, err = package.searchpath(name, package.path)\n"
    "  if not path then return '\\n\\t' .. err end\n"
    "  guard('require', path, 3)\n"
    "  local f, e = loadfile(path, 't')\n"
    "  if not f then error('--safe: ' .. path .. ': ' .. e, 3) end\n"
    "  return f, path\n"
    "end\n"
    "package.loadlib, package.cpath = deny('package.loadlib'), ''\n"
    "package.searchers[4], package.searchers[3] = nil, nil\n"
    "debug, package.loaded.debug = nil, nil\n"
    "io.open = function(path, mode)\n"
    "  mode = mode or 'r'\n"
    "  if mode ~= 'r' and mode ~= 'rb' then\n"
    "    error(\"--safe: io.open may only read (mode '\" .. tostring(mode) "
    ".. \"')\", 2)\n"
    "  end\n"
    "  guard('io.open', path, 3)\n"
    "  return open(path, mode)\n"
    "end\n"
    "local lines, input = io.lines, io.input\n"
    "io.lines = function(path, ...)\n"
    "  guard('io.lines', path, 3)\n"
    "  return lines(path, ...)\n"
    "end\n"
    "io.input = function(f)\n"
    "  guard('io.input', f, 3)\n"
    "  return input(f)\n"
    "end\n"
    "local output = io.output\n"
    "io.output = function(f)\n"
    "  if f ~= nil then error('--safe: io.output cannot open files', 2) end\n"
    "  return output()\n"
    "end\n"
    "_G.load = function(chunk, name, mode, env)\n"
    "  return load(chunk, name, 't', env)\n"
    "end\n"
    "_G.loadfile = function(path, mode, env)\n"
    "  guard('loadfile', path, 3)\n"
    "  return loadfile(path, 't', env)\n"
    "end\n"
    "_G.dofile = function(path)\n"
    "  guard('dofile', path, 3)\n"
    "  local f = assert(loadfile(path, 't'))\n"
    "  return f()\n"
    "end\n";

bool limits_proc_path(const char *path)
{
    char *real = realpath(path, NULL);
    const char *p = real ? real : path;
    bool in = strncmp(p, "/proc", 5) == 0 && (p[5] == '/' || !p[5]);

    in = in || (strncmp(p, "/sys", 4) == 0 && (p[4] == '/' || !p[4]));
    free(real);
    return in;
}

static int l_proc_path(lua_State *L)
{
    lua_pushboolean(L, limits_proc_path(luaL_checkstring(L, 1)));
    return 1;
}

int limits_sandbox(lua_State *L)
{
    if (luaL_loadbuffer(L, sandbox, sizeof sandbox - 1, "=--safe") != LUA_OK)
        return 1;
    lua_pushcfunction(L, l_proc_path);
    return lua_pcall(L, 1, 0, 0) != LUA_OK;
}

extern char **environ;

void limits_blank_environment(void)
{
    /* the strings /proc/self/environ shows are these very bytes */
    for (char **e = environ; e && *e; e++)
        memset(*e, 0, strlen(*e));
    environ = NULL;
}
