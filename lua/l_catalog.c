/* Custom catalogs from CSV: tplan.gpus.load(path), tplan.models.load(path),
 * tplan.frameworks.load(path) (framework_csv.h reads those).
 * The header names constructor fields (tplan.gpu's, tplan.model's); each
 * record goes through the same constructor, so a file is exactly as strict
 * as a script, and an error names the file, the line and the column. Loaded
 * entries are found by name wherever a GPU or model name is taken. */
#include "l_tplan.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "csv_in.h"
#include "framework_csv.h"
#include "l_util.h"
#include "paths.h"
#include "model_fields.h"

static const char GPUS_KEY[] = "tplan.custom_gpus";
static const char MODELS_KEY[] = "tplan.custom_models";
static const char FRAMEWORKS_KEY[] = "tplan.custom_frameworks";

/* The registry table of loaded entries (name -> userdata), pushed. */
static void custom_table(lua_State *L, const char *key)
{
    luaL_getsubtable(L, LUA_REGISTRYINDEX, key);
}

int lt_gpu_lookup(lua_State *L, const char *name, tplan_gpu *out,
                  tplan_err *err)
{
    custom_table(L, GPUS_KEY);
    if (lua_getfield(L, -1, name) == LUA_TUSERDATA) {
        *out = *(tplan_gpu *)lua_touserdata(L, -1);
        lua_pop(L, 2);
        return TPLAN_OK;
    }
    lua_pop(L, 2);
    return tplan_gpu_lookup(name, out, err);
}

int lt_model_lookup(lua_State *L, const char *name, tplan_model *out,
                    tplan_err *err)
{
    custom_table(L, MODELS_KEY);
    if (lua_getfield(L, -1, name) == LUA_TUSERDATA) {
        *out = *(tplan_model *)lua_touserdata(L, -1);
        lua_pop(L, 2);
        return TPLAN_OK;
    }
    lua_pop(L, 2);
    return tplan_model_preset(name, out, err);
}

typedef struct loader {
    lua_State *L;
    const char *path;
    bool gpus;
    int header;  /* stack index: the column names */
    int results; /* stack index: the list returned */
    int names;   /* stack index: the names registered so far */
} loader;

static bool allowed(const char *const *fields, const char *name)
{
    for (int i = 0; fields[i]; i++)
        if (strcmp(fields[i], name) == 0)
            return true;
    return false;
}

/* One record: the header is checked; a data record becomes a table and
 * goes through the constructor under pcall (no Lua error may cross the
 * CSV reader's C frames). */
static int record(loader *ld, int64_t line, bool header, int n,
                  const char *const *f, tplan_err *err)
{
    lua_State *L = ld->L;
    const char *what = ld->gpus ? "GPU" : "model";
    const char *name = NULL;
    tplan_err lookup;
    union {
        tplan_gpu g;
        tplan_model m;
    } tmp;

    if (header) {
        bool has_name = false;

        for (int i = 0; i < n; i++) {
            if (!allowed(ld->gpus ? lt_gpu_fields : lt_model_fields, f[i]) &&
                (ld->gpus || tplan_model_field_find(f[i]) < 0))
                return tplan_err_set(err, TPLAN_EINVAL, "csv",
                                     "%s:%lld: unknown column '%s' (column "
                                     "%d); columns are the fields of "
                                     "tplan.%s",
                                     ld->path, (long long)line, f[i], i + 1,
                                     ld->gpus ? "gpu" : "model");
            for (int j = 0; j < i; j++)
                if (strcmp(f[j], f[i]) == 0)
                    return tplan_err_set(err, TPLAN_EINVAL, "csv",
                                         "%s:%lld: duplicate column '%s' "
                                         "(columns %d and %d)",
                                         ld->path, (long long)line, f[i], j + 1,
                                         i + 1);
            has_name = has_name || strcmp(f[i], "name") == 0;
            lua_pushstring(L, f[i]);
            lua_rawseti(L, ld->header, i + 1);
        }
        if (!has_name)
            return tplan_err_set(err, TPLAN_EINVAL, "csv",
                                 "%s:%lld: a 'name' column is required",
                                 ld->path, (long long)line);
        return TPLAN_OK;
    }
    lua_pushcfunction(L, ld->gpus ? lt_gpu_new : lt_model_new); /* ... f */
    lua_createtable(L, 0, n);                                   /* f t */
    for (int i = 0; i < n; i++) {
        if (f[i][0] == '\0') /* an empty cell: the field is not given */
            continue;
        if (lua_rawgeti(L, ld->header, i + 1) != LUA_TSTRING) /* f t k */
            return tplan_err_set(err, TPLAN_EINVAL, "csv",
                                 "%s:%lld: no header for column %d", ld->path,
                                 (long long)line, i + 1);
        if (strcmp(lua_tostring(L, -1), "name") == 0)
            name = f[i];
        if (lua_stringtonumber(L, f[i]) == 0) { /* f t k [v] */
            if (strcmp(f[i], "true") == 0 || strcmp(f[i], "false") == 0)
                lua_pushboolean(L, f[i][0] == 't');
            else
                lua_pushstring(L, f[i]);
        }
        lua_rawset(L, -3); /* f t */
    }
    if (!name)
        return tplan_err_set(err, TPLAN_EINVAL, "csv",
                             "%s:%lld: the %s needs a name", ld->path,
                             (long long)line, what);
    if ((ld->gpus ? tplan_gpu_lookup(name, &tmp.g, &lookup)
                  : tplan_model_preset(name, &tmp.m, &lookup)) == TPLAN_OK)
        return tplan_err_set(err, TPLAN_EINVAL, "csv",
                             "%s:%lld: column name: '%s' is a built-in %s; "
                             "give a new name (base/preset starts from it)",
                             ld->path, (long long)line, name, what);
    custom_table(L, ld->gpus ? GPUS_KEY : MODELS_KEY); /* f t reg */
    if (lua_getfield(L, -1, name) != LUA_TNIL)         /* f t reg x */
        return tplan_err_set(err, TPLAN_EINVAL, "csv",
                             "%s:%lld: column name: a %s named '%s' is "
                             "loaded already",
                             ld->path, (long long)line, what, name);
    lua_pop(L, 2);                         /* f t */
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) { /* ud | msg */
        tplan_err_set(err, TPLAN_EINVAL, "csv", "%s:%lld: %s", ld->path,
                      (long long)line,
                      lua_tostring(L, -1) ? lua_tostring(L, -1) : "error");
        lua_pop(L, 1);
        return TPLAN_EINVAL;
    }
    custom_table(L, ld->gpus ? GPUS_KEY : MODELS_KEY); /* ud reg */
    lua_pushvalue(L, -2);                              /* ud reg ud */
    lua_setfield(L, -2, name);                         /* ud reg */
    lua_pop(L, 1);                                     /* ud */
    lua_pushstring(L, name); /* the key, to take back on a later error */
    lua_rawseti(L, ld->names, (lua_Integer)luaL_len(L, ld->names) + 1);
    lua_rawseti(L, ld->results, (lua_Integer)luaL_len(L, ld->results) + 1);
    return TPLAN_OK;
}

typedef struct rec_args {
    loader *ld;
    int64_t line;
    bool header;
    int n;
    const char *const *f;
    tplan_err *err;
    int rc;
} rec_args;

/* record() under lua_pcall: a Lua error (out of memory) must not jump
 * over the CSV reader's C frames, which own its buffers and the file.
 * The loader's tables come in as arguments 2..4 of this frame. */
static int record_protected(lua_State *L)
{
    rec_args *a = lua_touserdata(L, 1);
    loader here = *a->ld;

    here.header = 2;
    here.results = 3;
    here.names = 4;
    a->rc = record(&here, a->line, a->header, a->n, a->f, a->err);
    return 0;
}

static int on_record(void *ud, int64_t line, bool header, int n,
                     const char *const *f, tplan_err *err)
{
    loader *ld = ud;
    lua_State *L = ld->L;
    rec_args a = {ld, line, header, n, f, err, TPLAN_OK};

    lua_pushcfunction(L, record_protected);
    lua_pushlightuserdata(L, &a);
    lua_pushvalue(L, ld->header);
    lua_pushvalue(L, ld->results);
    lua_pushvalue(L, ld->names);
    if (lua_pcall(L, 4, 0, 0) != LUA_OK) {
        tplan_err_set(err, TPLAN_ENOMEM, "csv", "%s:%lld: %s", ld->path,
                      (long long)line,
                      lua_tostring(L, -1) ? lua_tostring(L, -1) : "error");
        lua_pop(L, 1);
        return TPLAN_ENOMEM;
    }
    return a.rc;
}

/* The files the script read (catalogs, modules, config.json, files it
 * opened: lt_track_inputs): a list of paths in the registry. */
static const char INPUTS_KEY[] = "tplan.inputs";

bool lt_catalog_loaded(lua_State *L, const char *path)
{
    bool found = false;

    luaL_getsubtable(L, LUA_REGISTRYINDEX, INPUTS_KEY);
    for (lua_Integer i = 1; !found && i <= luaL_len(L, -1); i++) {
        found = lua_rawgeti(L, -1, i) == LUA_TSTRING &&
                tplan_same_file(path, lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return found;
}

int lt_may_read(lua_State *L, const char *path, tplan_err *err)
{
    const lt_state *st = lt_get_state(L);
    int rc = st->o.may_read ? st->o.may_read(st->o.ud, path, err) : TPLAN_OK;

    if (rc == TPLAN_OK) {
        luaL_getsubtable(L, LUA_REGISTRYINDEX, INPUTS_KEY);
        lua_pushstring(L, path);
        lua_rawseti(L, -2, luaL_len(L, -2) + 1);
        lua_pop(L, 1);
    }
    return rc;
}

/* Load path's entries and register them; push the list of them. On an
 * error push nothing, register nothing and say why in err. */
static int load_file(lua_State *L, const char *path, bool gpus,
                     tplan_err *err)
{
    loader ld = {L, path, gpus, 0, 0, 0};
    int top = lua_gettop(L);

    lua_newtable(L); /* path header */
    ld.header = lua_gettop(L);
    lua_newtable(L); /* path header results */
    ld.results = lua_gettop(L);
    lua_newtable(L); /* path header results names */
    ld.names = lua_gettop(L);
    if (tplan_csv_read(path, on_record, &ld, err)) {
        /* a failed file registers nothing */
        custom_table(L, gpus ? GPUS_KEY : MODELS_KEY);
        for (lua_Integer i = 1; i <= luaL_len(L, ld.names); i++) {
            lua_rawgeti(L, ld.names, i); /* ... reg name */
            lua_pushnil(L);
            lua_rawset(L, -3);
        }
        lua_settop(L, top);
        return err->code;
    }
    lua_pushvalue(L, ld.results);
    lua_replace(L, top + 1);
    lua_settop(L, top + 1);
    return TPLAN_OK;
}

static int load(lua_State *L, bool gpus)
{
    const char *path = luaL_checkstring(L, 1);
    const char *what = gpus ? "tplan.gpus.load" : "tplan.models.load";
    tplan_err err;

    if (lt_may_read(L, path, &err) || load_file(L, path, gpus, &err))
        return lu_error(L, what, "%s", err.msg);
    return 1;
}

/* ---- tplan calc --gpu-file / --model-file ---------------------------- */

typedef struct find_args {
    const char *path, *name;
    bool gpus;
    void *out; /* tplan_gpu or tplan_model */
    tplan_err *err;
    int rc;
} find_args;

static int find_protected(lua_State *L)
{
    find_args *a = lua_touserdata(L, 1);
    tplan_err miss;

    luaL_requiref(L, "tplan", luaopen_tplan, 0);
    if ((a->rc = load_file(L, a->path, a->gpus, a->err)))
        return 0;
    if (a->gpus ? lt_gpu_lookup(L, a->name, a->out, &miss)
                : lt_model_lookup(L, a->name, a->out, &miss))
        a->rc = tplan_err_set(a->err, TPLAN_EINVAL, a->gpus ? "gpu" : "model",
                              "%s: %s: neither in %s nor built in (`tplan "
                              "%s` lists those)",
                              a->gpus ? "gpu" : "model", a->name, a->path,
                              a->gpus ? "gpus" : "models");
    return 0;
}

int tplan_catalog_find(const char *path, bool gpus, const char *name,
                       void *out, tplan_err *err)
{
    find_args a = {path, name, gpus, out, err, TPLAN_OK};
    lua_State *L = luaL_newstate();

    if (!L)
        return tplan_err_set(err, TPLAN_ENOMEM, "catalog", "out of memory");
    lua_pushcfunction(L, find_protected);
    lua_pushlightuserdata(L, &a);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK)
        a.rc = tplan_err_set(err, TPLAN_ENOMEM, "catalog", "%s: %s", path,
                             lua_tostring(L, -1) ? lua_tostring(L, -1)
                                                 : "error");
    lua_close(L);
    return a.rc;
}

static int gpus_load(lua_State *L)
{
    return load(L, true);
}

static int models_load(lua_State *L)
{
    return load(L, false);
}

/* ---- frameworks ------------------------------------------------------ */

/* Loaded frameworks are keyed by their lowercase name: names match
 * ignoring case, as in a file. */
static void lower_key(const char *name, char *key, size_t len)
{
    size_t i;

    for (i = 0; name[i] && i + 1 < len; i++)
        key[i] = (char)tolower((unsigned char)name[i]);
    key[i] = '\0';
}

int lt_framework_lookup(lua_State *L, const char *name, tplan_framework *out,
                        tplan_err *err)
{
    char key[TPLAN_FRAMEWORK_NAME_LEN];

    /* a name too long for a framework is no loaded one (its cut key
     * could match another) */
    if (strlen(name) >= sizeof key)
        return tplan_framework_lookup(name, out, err);
    lower_key(name, key, sizeof key);
    custom_table(L, FRAMEWORKS_KEY);
    if (lua_getfield(L, -1, key) == LUA_TUSERDATA) {
        *out = *(tplan_framework *)lua_touserdata(L, -1);
        lua_pop(L, 2);
        return TPLAN_OK;
    }
    lua_pop(L, 2);
    return tplan_framework_lookup(name, out, err);
}

/* Frameworks of a file, gathered in C memory while the reader runs (no
 * Lua error may cross its frames: it holds the file and buffers), then
 * registered together: a bad file registers none. */
typedef struct fw_list {
    tplan_framework *f;
    int n, cap;
} fw_list;

static int collect_framework(void *ud, const tplan_framework *f,
                             tplan_err *err)
{
    fw_list *l = ud;

    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 8;
        tplan_framework *g = realloc(l->f, (size_t)cap * sizeof *g);

        if (!g)
            return tplan_err_set(err, TPLAN_ENOMEM, "framework_file",
                                 "not enough memory for the frameworks");
        l->f = g;
        l->cap = cap;
    }
    l->f[l->n++] = *f;
    return TPLAN_OK;
}

/* Register the gathered frameworks and push the list of their names;
 * under lua_pcall, so that the C list is freed whatever happens. */
static int register_frameworks(lua_State *L)
{
    const fw_list *l = lua_touserdata(L, 1);

    custom_table(L, FRAMEWORKS_KEY); /* l reg */
    lua_createtable(L, l->n, 0);     /* l reg names */
    for (int i = 0; i < l->n; i++) {
        char key[TPLAN_FRAMEWORK_NAME_LEN];
        tplan_framework *u;

        lower_key(l->f[i].name, key, sizeof key);
        u = lua_newuserdatauv(L, sizeof *u, 0); /* ... names u */
        *u = l->f[i];
        lua_setfield(L, -3, key);               /* ... names */
        lua_pushstring(L, l->f[i].name);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int frameworks_load(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    fw_list l = {NULL, 0, 0};
    tplan_err err;
    int rc;

    if (lt_may_read(L, path, &err))
        return lu_error(L, "tplan.frameworks.load", "%s", err.msg);
    if (tplan_framework_csv_read(path, collect_framework, &l, &err)) {
        free(l.f);
        return lu_error(L, "tplan.frameworks.load", "%s", err.msg);
    }
    lua_pushcfunction(L, register_frameworks);
    lua_pushlightuserdata(L, &l);
    rc = lua_pcall(L, 1, 1, 0);
    free(l.f);
    if (rc != LUA_OK)
        return lua_error(L);
    return 1; /* the names loaded */
}

void lt_open_catalogs(lua_State *L)
{
    lua_createtable(L, 0, 1); /* mod gpus */
    lua_pushcfunction(L, gpus_load);
    lua_setfield(L, -2, "load");
    lua_setfield(L, -2, "gpus");
    lua_createtable(L, 0, 1); /* mod models */
    lua_pushcfunction(L, models_load);
    lua_setfield(L, -2, "load");
    lua_setfield(L, -2, "models");
    lua_createtable(L, 0, 1); /* mod frameworks */
    lua_pushcfunction(L, frameworks_load);
    lua_setfield(L, -2, "load");
    lua_setfield(L, -2, "frameworks");
}
