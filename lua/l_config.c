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
    lu_check_fields_by(L, idx, what, extra, is_input, input_at,
                       " (tplan fields lists them)");
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
