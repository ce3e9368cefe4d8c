/* libFuzzer target: CSV catalogs (tplan.gpus.load, tplan.models.load,
 * tplan.frameworks.load):
 * the strict libcsv reader and the constructors behind it. The input is
 * the file; errors are expected, crashes and sanitizer reports are not. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "tplan_lua.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    FILE *f;
    lua_State *L;

    snprintf(path, sizeof path, "/tmp/tplan_fuzz_catalog_%d.csv",
             (int)getpid());
    if (!(f = fopen(path, "wb")))
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    if (!(L = luaL_newstate()))
        return 0;
    luaL_openlibs(L);
    luaL_requiref(L, "tplan", luaopen_tplan, 1);
    lua_pop(L, 1);
    for (int kind = 0; kind < 3; kind++) {
        static const char *const kinds[] = {"gpus", "models", "frameworks"};

        lua_getglobal(L, "pcall");
        lua_getglobal(L, "tplan");
        lua_getfield(L, -1, kinds[kind]);
        lua_getfield(L, -1, "load");
        lua_remove(L, -2);
        lua_remove(L, -2);
        lua_pushstring(L, path);
        lua_call(L, 2, LUA_MULTRET);
        lua_settop(L, 0);
    }
    lua_close(L);
    unlink(path);
    return 0;
}
