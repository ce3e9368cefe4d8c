/* A training config from a Lua table of named fields: the input names of
 * the engine's field table (engine/fields.c; `tplan fields`), the same
 * names as `tplan calc`'s options with '_' for '-'. Values are read and
 * checked by the table, so a bad one gets the message calc gives. */
#include "l_tplan.h"

#include <string.h>

#include "fields.h"
#include "l_util.h"

/* The words a message shows for a value of the wrong Lua type. */
static const char *why_type(const tplan_field *f)
{
    switch (f->kind) {
    case TPLAN_FK_INT:
        return "not an integer";
    case TPLAN_FK_REAL:
        return "not a number";
    case TPLAN_FK_BOOL:
        return "not a boolean";
    case TPLAN_FK_ENUM:
        return "not a name";
    default:
        return "not text";
    }
}

/* Raise the field's message for the value at the stack top. */
static int bad_type(lua_State *L, const char *what, int id)
{
    tplan_err err;
    const char *shown = lua_type(L, -1) == LUA_TBOOLEAN
                            ? (lua_toboolean(L, -1) ? "true" : "false")
                        : lua_type(L, -1) == LUA_TNUMBER
                            ? lua_tostring(L, -1) /* as the script wrote it */
                            : luaL_typename(L, -1);

    tplan_field_error(id, shown, why_type(tplan_field_at(id)), &err);
    return lu_engine_error(L, what, &err);
}

double lt_field_value(lua_State *L, int id, const char *what)
{
    const tplan_field *f = tplan_field_at(id);
    tplan_err err;
    double v = 0;

    switch (lua_type(L, -1)) {
    case LUA_TSTRING:
        if (tplan_field_parse(id, lua_tostring(L, -1), &v, &err))
            lu_engine_error(L, what, &err);
        return v;
    case LUA_TNUMBER:
        if (f->kind == TPLAN_FK_BOOL)
            return bad_type(L, what, id);
        v = lua_tonumber(L, -1);
        if (tplan_field_check(id, v, &err))
            lu_engine_error(L, what, &err);
        return v;
    case LUA_TBOOLEAN:
        if (f->kind != TPLAN_FK_BOOL)
            return bad_type(L, what, id);
        return lua_toboolean(L, -1);
    default:
        return bad_type(L, what, id);
    }
}

void lt_field_set(lua_State *L, int id, const char *what, tplan_config *c)
{
    const tplan_field *f = tplan_field_at(id);
    tplan_err err;
    int rc = TPLAN_OK;

    if (f->kind != TPLAN_FK_TEXT) {
        tplan_field_apply(id, lt_field_value(L, id, what), c);
        return;
    }
    if (lua_type(L, -1) == LUA_TSTRING)
        rc = tplan_field_set_text(id, lua_tostring(L, -1), c, &err);
    else if (lua_type(L, -1) == LUA_TNUMBER)
        rc = tplan_field_set_number(id, lua_tonumber(L, -1), c, &err);
    else
        bad_type(L, what, id);
    if (rc)
        lu_engine_error(L, what, &err);
}

static bool is_input(const char *key)
{
    return tplan_field_find_input(key) >= 0;
}

/* The i-th input's Lua name (NULL past the last). */
static const char *input_at(int i)
{
    for (int id = 0; id < tplan_field_count(); id++) {
        const tplan_field *f = tplan_field_at(id);

        if ((f->flags & TPLAN_FIELD_IN) && f->input && i-- == 0)
            return f->input;
    }
    return NULL;
}

void lt_check_config_fields(lua_State *L, int idx, const char *what,
                            const char *const *extra)
{
    /* the caller's own keys and the config's that are not fields:
     * pp_layers, a per-stage list (pp_layers below) */
    const char *all[64];
    int n = 0;

    for (; extra && extra[n] && n < 62; n++)
        all[n] = extra[n];
    all[n++] = "pp_layers";
    all[n] = NULL;
    lu_check_fields_by(L, idx, what, all, is_input, input_at,
                       " (tplan fields lists them)");
}

/* pp_layers = {3, 4, ..., 4, 2}: each pipeline stage's layers, first to
 * last (issue 37). Megatron-Core splits a decoder unevenly only at its
 * ends (--decoder-first-pipeline-num-layers, --decoder-last-...: the
 * middle stages even, transformer_config.py), so a list is that split
 * written out: it sets pp, pp_first_layers and pp_last_layers, and a list
 * whose middle stages differ is refused rather than rounded. */
static void pp_layers(lua_State *L, int idx, const char *what,
                      tplan_config *c)
{
    int64_t v[4096], sum = 0;
    lua_Integer n;

    if (lua_getfield(L, idx, "pp_layers") == LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    if (!lua_istable(L, -1))
        lu_error(L, what, "field 'pp_layers' must be a list of each stage's "
                          "layers (got %s)",
                 luaL_typename(L, -1));
    n = (lua_Integer)lua_rawlen(L, -1);
    if (n < 2 || n > 4096)
        lu_error(L, what, "pp_layers: a list of 2 to 4096 stages' layers "
                          "(got %lld)",
                 (long long)n);
    for (lua_Integer i = 1; i <= n; i++) {
        int ok;
        lua_Integer x;

        lua_rawgeti(L, -1, i);
        x = lua_tointegerx(L, -1, &ok);
        if (!ok || x < 1 || x > 10000000)
            lu_error(L, what, "pp_layers[%lld] must be a whole number of "
                              "layers, 1 or more (got %s)",
                     (long long)i, luaL_tolstring(L, -1, NULL));
        v[i - 1] = x;
        sum += x;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    for (lua_Integer i = 2; i < n - 1; i++)
        if (v[i] != v[1])
            lu_error(L, what,
                     "pp_layers: the middle stages must hold the same "
                     "layers, as Megatron's uneven split does (stage %lld "
                     "holds %lld, stage 2 %lld); only the first and last "
                     "may differ",
                     (long long)i + 1, (long long)v[i], (long long)v[1]);
    if (c->model.arch != TPLAN_ARCH_GENERIC && c->model.layers > 0 &&
        sum != c->model.layers)
        lu_error(L, what, "pp_layers: the stages hold %lld layers, the "
                          "model has %lld",
                 (long long)sum, (long long)c->model.layers);
    c->pp = (int64_t)n;
    c->pp_first_layers = v[0];
    c->pp_last_layers = v[n - 1];
}

/* model and gpu: a userdata, or a preset / catalog name. */
static void model_and_gpu(lua_State *L, int idx, const char *what,
                          tplan_config *c, bool need_model, bool need_gpu)
{
    tplan_err err;

    lua_getfield(L, idx, "model"); /* ... m */
    if (lua_type(L, -1) == LUA_TSTRING) {
        if (lt_model_lookup(L, lua_tostring(L, -1), &c->model, &err))
            lu_engine_error(L, what, &err);
    } else if (luaL_testudata(L, -1, TPLAN_MODEL_MT)) {
        c->model = *(tplan_model *)lua_touserdata(L, -1);
    } else if (!lua_isnil(L, -1) || need_model) {
        lu_error(L, what,
                 "field 'model' must be a tplan.model or a preset "
                 "name (got %s)",
                 luaL_typename(L, -1));
    }
    lua_pop(L, 1);               /* ... */
    lua_getfield(L, idx, "gpu"); /* ... g */
    if (lua_type(L, -1) == LUA_TSTRING) {
        if (lt_gpu_lookup(L, lua_tostring(L, -1), &c->gpu, &err))
            lu_engine_error(L, what, &err);
    } else if (luaL_testudata(L, -1, TPLAN_GPU_MT)) {
        c->gpu = *(tplan_gpu *)lua_touserdata(L, -1);
    } else if (!lua_isnil(L, -1) || need_gpu) {
        lu_error(L, what,
                 "field 'gpu' must be a tplan.gpu or a GPU name (got "
                 "%s)",
                 luaL_typename(L, -1));
    }
    lua_pop(L, 1); /* ... */
}

void lt_parse_config(lua_State *L, int idx, const char *what, tplan_config *c,
                     bool need_model, bool need_gpu)
{
    idx = lua_absindex(L, idx);
    model_and_gpu(L, idx, what, c, need_model, need_gpu);
    if (!need_gpu && c->gpu.memory_bytes == 0)
        tplan_gpu_lookup("h100-sxm", &c->gpu, NULL); /* as tplan calc */
    tplan_config_init(c);
    c->seq = tplan_model_default_seq(&c->model);
    /* the framework first: the fields given override its values */
    if (lua_getfield(L, idx, "framework") != LUA_TNIL) { /* ... f */
        tplan_framework f;
        tplan_err err;

        if (lua_type(L, -1) != LUA_TSTRING)
            lu_error(L, what, "field 'framework' must be a framework name "
                              "(got %s)",
                     luaL_typename(L, -1));
        if (lt_framework_lookup(L, lua_tostring(L, -1), &f, &err))
            lu_engine_error(L, what, &err);
        tplan_framework_apply(&f, c);
    }
    lua_pop(L, 1); /* ... */
    /* every other input, in the table's order */
    for (int id = 0; id < tplan_field_count(); id++) {
        const tplan_field *f = tplan_field_at(id);

        if (!(f->flags & TPLAN_FIELD_IN) || f->kind == TPLAN_FK_NAME)
            continue;
        if (lua_getfield(L, idx, f->input) != LUA_TNIL) /* ... v */
            lt_field_set(L, id, what, c);
        lua_pop(L, 1); /* ... */
    }
    /* a per-stage list, over the pp fields it sets */
    {
        int top = lua_gettop(L);
        bool list = lua_getfield(L, idx, "pp_layers") != LUA_TNIL;
        bool pp = lua_getfield(L, idx, "pp") != LUA_TNIL ||
                  lua_getfield(L, idx, "pp_first_layers") != LUA_TNIL ||
                  lua_getfield(L, idx, "pp_last_layers") != LUA_TNIL;

        lua_settop(L, top); /* ... */
        if (list && pp)
            lu_error(L, what, "give pp_layers or pp, pp_first_layers and "
                              "pp_last_layers, not both");
    }
    pp_layers(L, idx, what, c);
    /* one global batch target: the field setters keep the last one */
    lua_getfield(L, idx, "global_batch");        /* ... a */
    lua_getfield(L, idx, "global_batch_tokens"); /* ... a b */
    if (!lua_isnil(L, -1) && !lua_isnil(L, -2))
        lu_error(L, what, "give global_batch or global_batch_tokens, not both");
    lua_pop(L, 2); /* ... */
    tplan_fields_finish(c);
}

static void set_str(lua_State *L, const char *key, const char *v)
{
    if (!v)
        return;
    lua_pushstring(L, v);   /* ... t v */
    lua_setfield(L, -2, key); /* ... t */
}

/* tplan.fields(): the field table as a list of plain tables with the keys
 * of `tplan fields --json` (absent where that has null). */
static int l_fields(lua_State *L)
{
    static const char *const types[] = {"int", "real", "text", "bool"};
    int n = tplan_field_count();

    lua_createtable(L, n, 0); /* list */
    for (int id = 0; id < n; id++) {
        const tplan_field *f = tplan_field_at(id);
        bool in = f->flags & TPLAN_FIELD_IN;

        lua_createtable(L, 0, 13); /* list t */
        set_str(L, "name", f->name);
        set_str(L, "type", types[f->type]);
        set_str(L, "unit", f->unit);
        lua_pushboolean(L, in);
        lua_setfield(L, -2, "input");
        lua_pushboolean(L, f->flags & TPLAN_FIELD_OUT);
        lua_setfield(L, -2, "output");
        lua_pushboolean(L, f->flags & TPLAN_FIELD_AXIS);
        lua_setfield(L, -2, "axis");
        if (in) {
            set_str(L, "flag", f->flag);
            set_str(L, "lua", f->input);
            set_str(L, "default", f->def);
        }
        if (f->kind == TPLAN_FK_ENUM || f->kind == TPLAN_FK_SET) {
            lua_newtable(L); /* list t values */
            for (int i = 0; f->values[i]; i++) {
                lua_pushstring(L, f->values[i]);
                lua_rawseti(L, -2, i + 1);
            }
            lua_setfield(L, -2, "values"); /* list t */
        }
        if (f->kind == TPLAN_FK_INT || f->kind == TPLAN_FK_REAL) {
            lua_pushnumber(L, f->min);
            lua_setfield(L, -2, "min");
            lua_pushnumber(L, f->max);
            lua_setfield(L, -2, "max");
        }
        set_str(L, "doc", f->doc);
        lua_rawseti(L, -2, id + 1); /* list */
    }
    return 1;
}

void lt_open_fields(lua_State *L)
{
    lua_pushcfunction(L, l_fields); /* mod f */
    lua_setfield(L, -2, "fields");  /* mod */
}
