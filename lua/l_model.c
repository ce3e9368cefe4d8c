/* tplan.model and tplan.gpu: engine model specs and GPUs as userdata
 * ("tplan.model", "tplan.gpu") with read-only fields. */
#include "l_tplan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hf_config.h"
#include "l_util.h"
#include "model_fields.h"

/* ---- models -------------------------------------------------------- */

const char *const lt_model_fields[] = {"preset",
                                       "name",
                                       "layers",
                                       "hidden",
                                       "heads",
                                       "kv_heads",
                                       "ffn",
                                       "vocab",
                                       "max_seq",
                                       "mlp",
                                       "norm",
                                       "pos",
                                       "tied",
                                       "bias",
                                       "dropout",
                                       "params",
                                       "act_bytes_per_sample",
                                       "flops_per_sample",
                                       "largest_layer_params",
                                       "batch_norm",
                                       "head_dim",
                                       "qkv_bias",
                                       "block_norms",
                                       "qk_norm",
                                       "config",
                                       NULL};

/* Custom transformers without a position table limit (rotary) or with a
 * learned one (max_seq) take this default sequence limit. */
#define CUSTOM_MAX_SEQ 8192

static int choice(lua_State *L, int idx, const char *field, const char *a,
                  const char *b, int cur)
{
    const char *s;

    if (!lu_str(L, idx, "tplan.model", field, &s))
        return cur;
    if (strcmp(s, a) == 0)
        return 0;
    if (strcmp(s, b) == 0)
        return 1;
    return lu_error(L, "tplan.model", "%s must be '%s' or '%s' (%s=%s)", field,
                    a, b, field, s);
}

/* A field of the model-field table (model_fields.h). */
static bool is_model_field(const char *key)
{
    return tplan_model_field_find(key) >= 0;
}

static const char *model_field_at(int i)
{
    return i < tplan_model_field_count() ? tplan_model_field_at(i)->name
                                         : NULL;
}

static void model_from_table(lua_State *L, int idx, tplan_model *m)
{
    static const char *const shape[] = {
        "layers", "hidden", "heads",    "kv_heads", "ffn",         "vocab",
        "max_seq", "mlp",   "norm",     "pos",      "tied",        "bias",
        "head_dim", "qkv_bias", "block_norms", "qk_norm", NULL};
    const char *s, *preset = NULL, *config = NULL;
    int64_t v;
    tplan_err err;
    bool generic, set_ffn;

    lu_check_fields_by(L, idx, "tplan.model", lt_model_fields, is_model_field,
                       model_field_at, "");
    lua_getfield(L, idx, "params"); /* ... params */
    generic = !lua_isnil(L, -1);
    lua_pop(L, 1); /* ... */
    lu_str(L, idx, "tplan.model", "preset", &preset);
    lu_str(L, idx, "tplan.model", "config", &config);
    tplan_model_init(m);
    if (generic && preset)
        lu_error(L, "tplan.model",
                 "give a preset or params, not both "
                 "(preset=%s)",
                 preset);
    if (config && (preset || generic))
        lu_error(L, "tplan.model",
                 "give one of config, preset and params (config=%s)", config);
    if (generic) {
        for (int i = 0; shape[i]; i++) {
            lua_getfield(L, idx, shape[i]); /* ... v */
            if (!lua_isnil(L, -1))
                lu_error(L, "tplan.model",
                         "'%s' describes a transformer, but 'params' makes a "
                         "generic model",
                         shape[i]);
            lua_pop(L, 1); /* ... */
        }
        m->arch = TPLAN_ARCH_GENERIC;
        snprintf(m->name, sizeof m->name, "generic");
        lu_int(L, idx, "tplan.model", "params", 1, (int64_t)1e15,
               &m->generic_params);
        lu_num(L, idx, "tplan.model", "act_bytes_per_sample", 0, 1e15,
               &m->generic_act_bytes_fp32);
        lu_num(L, idx, "tplan.model", "flops_per_sample", 0, 1e18,
               &m->generic_flops_per_sample);
        lu_int(L, idx, "tplan.model", "largest_layer_params", 0, (int64_t)1e15,
               &m->generic_largest_layer_params);
    } else if (config) {
        /* a Hugging Face config.json; fields given too override it. It
         * is an input as a catalog is (issue 36): not one of the run's
         * outputs, not /proc or /sys under --safe */
        if (lt_may_read(L, config, &err) ||
            tplan_hf_config_load(config, m, &err))
            lu_engine_error(L, "tplan.model", &err);
        preset = m->name;
    } else if (preset) {
        if (lt_model_lookup(L, preset, m, &err))
            lu_engine_error(L, "tplan.model", &err);
    } else {
        snprintf(m->name, sizeof m->name, "custom");
        m->vocab = 50257; /* GPT-2's tokenizer, as `tplan calc` */
        m->max_seq = CUSTOM_MAX_SEQ;
    }
    if (!generic) {
        lu_int(L, idx, "tplan.model", "layers", 1, 100000, &m->layers);
        lu_int(L, idx, "tplan.model", "hidden", 1, 1000000, &m->hidden);
        if (lu_int(L, idx, "tplan.model", "heads", 1, 100000, &v)) {
            m->heads = v;
            if (!preset)
                m->kv_heads = v;
        }
        lu_int(L, idx, "tplan.model", "kv_heads", 1, 100000, &m->kv_heads);
        lu_int(L, idx, "tplan.model", "vocab", 1, 100000000, &m->vocab);
        lu_int(L, idx, "tplan.model", "max_seq", 1, 100000000, &m->max_seq);
        m->mlp =
            (tplan_mlp)choice(L, idx, "mlp", "gelu", "swiglu", (int)m->mlp);
        m->norm = (tplan_norm)choice(L, idx, "norm", "layernorm", "rmsnorm",
                                     (int)m->norm);
        m->pos =
            (tplan_pos)choice(L, idx, "pos", "learned", "rotary", (int)m->pos);
        lu_bool(L, idx, "tplan.model", "tied", &m->tied);
        lu_bool(L, idx, "tplan.model", "bias", &m->bias);
        lu_bool(L, idx, "tplan.model", "qkv_bias", &m->qkv_bias);
        lu_bool(L, idx, "tplan.model", "qk_norm", &m->qk_norm);
        lu_int(L, idx, "tplan.model", "head_dim", 0, 100000, &m->head_dim);
        lu_int(L, idx, "tplan.model", "block_norms", 2, 4, &m->block_norms);
        for (int i = 0; i < tplan_model_field_count(); i++) {
            const tplan_model_field *f = tplan_model_field_at(i);
            bool b;

            if (f->is_bool ? lu_bool(L, idx, "tplan.model", f->name, &b)
                           : lu_int(L, idx, "tplan.model", f->name, 0, f->max,
                                    &v))
                if (tplan_model_field_set(m, i, f->is_bool ? b : v, &err))
                    lu_engine_error(L, "tplan.model", &err);
        }
        set_ffn = lu_int(L, idx, "tplan.model", "ffn", 1, 10000000, &m->ffn);
        if (!set_ffn && !preset && m->hidden > 0) {
            /* the same defaults as `tplan calc`: 4h, SwiGLU 8h/3 to 256 */
            m->ffn = 4 * m->hidden;
            if (m->mlp == TPLAN_MLP_SWIGLU)
                m->ffn = (8 * m->hidden / 3 + 255) / 256 * 256;
        }
        if (!preset && (m->layers == 0 || m->hidden == 0 || m->heads == 0))
            lu_error(L, "tplan.model",
                     "a custom model needs layers, hidden and heads (or a "
                     "preset, or params)");
    }
    lu_num(L, idx, "tplan.model", "dropout", 0, 0.99, &m->dropout);
    lu_bool(L, idx, "tplan.model", "batch_norm", &m->batch_norm);
    if (lu_str(L, idx, "tplan.model", "name", &s)) {
        if (strlen(s) >= sizeof m->name) /* names go into plans: whole */
            lu_error(L, "tplan.model", "name is longer than %d bytes (%s)",
                     (int)sizeof m->name - 1, s);
        snprintf(m->name, sizeof m->name, "%s", s);
    }
    if (tplan_model_validate(m, &err))
        lu_engine_error(L, "tplan.model", &err);
}

int lt_model_new(lua_State *L)
{
    /* Create the userdata before anything can raise (liolib's pattern). */
    tplan_model *m = lua_newuserdatauv(L, sizeof *m, 0); /* arg ud */
    tplan_err err;

    memset(m, 0, sizeof *m);
    luaL_setmetatable(L, TPLAN_MODEL_MT);
    if (lua_type(L, 1) == LUA_TSTRING) {
        if (lt_model_lookup(L, lua_tostring(L, 1), m, &err))
            return lu_engine_error(L, "tplan.model", &err);
    } else if (lua_type(L, 1) == LUA_TTABLE) {
        model_from_table(L, 1, m);
    } else {
        return lu_error(L, "tplan.model",
                        "expects a preset name or a table of fields (got %s)",
                        luaL_typename(L, 1));
    }
    return 1;
}

/* A field name's position in a NULL-terminated list, through the name ->
 * position table the __index closure holds (upvalue 1); -1: none. */
static int field_pos(lua_State *L, const char *what)
{
    int pos;

    luaL_checkstring(L, 2);
    lua_pushvalue(L, 2); /* ... k */
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNUMBER) /* ... pos|nil */
        return luaL_error(L, "%s has no field '%s'", what, lua_tostring(L, 2));
    pos = (int)lua_tointeger(L, -1);
    lua_pop(L, 1); /* ... */
    return pos;
}

/* Positions in lt_model_fields. */
enum {
    MF_PRESET,
    MF_NAME,
    MF_LAYERS,
    MF_HIDDEN,
    MF_HEADS,
    MF_KV_HEADS,
    MF_FFN,
    MF_VOCAB,
    MF_MAX_SEQ,
    MF_MLP,
    MF_NORM,
    MF_POS,
    MF_TIED,
    MF_BIAS,
    MF_DROPOUT,
    MF_PARAMS,
    MF_ACT_BYTES,
    MF_FLOPS,
    MF_LARGEST_LAYER,
    MF_BATCH_NORM,
    MF_HEAD_DIM,
    MF_QKV_BIAS,
    MF_BLOCK_NORMS,
    MF_QK_NORM,
    MF_CONFIG,
    MF_TABLE = 1000 /* + the index in model_fields.h */
};

/* Every field a model was made with reads back (the preset's name for
 * "preset"), and "arch"; "config" is read once, at construction, and
 * reads back nil (the model holds the shape, not the file's path). */
static int model_index(lua_State *L)
{
    const tplan_model *m = luaL_checkudata(L, 1, TPLAN_MODEL_MT);
    tplan_param_count pc;

    int pos;

    if (lua_type(L, 2) == LUA_TSTRING && strcmp(lua_tostring(L, 2), "arch") == 0) {
        lua_pushstring(L, tplan_arch_name(m->arch));
        return 1;
    }
    /* parameters one token uses (all but the unchosen experts); read-only */
    if (lua_type(L, 2) == LUA_TSTRING &&
        strcmp(lua_tostring(L, 2), "active_params") == 0) {
        tplan_model_params(m, &pc);
        lua_pushinteger(L, pc.active);
        return 1;
    }
    pos = field_pos(L, "tplan.model");
    if (pos >= MF_TABLE) {
        int64_t v = tplan_model_field_get(m, pos - MF_TABLE);

        if (tplan_model_field_at(pos - MF_TABLE)->is_bool)
            lua_pushboolean(L, v != 0);
        else
            lua_pushinteger(L, v);
        return 1;
    }
    switch (pos) {
    case MF_PRESET:
    case MF_NAME:
        lua_pushstring(L, m->name);
        break;
    case MF_LAYERS:
        lua_pushinteger(L, m->layers);
        break;
    case MF_HIDDEN:
        lua_pushinteger(L, m->hidden);
        break;
    case MF_HEADS:
        lua_pushinteger(L, m->heads);
        break;
    case MF_KV_HEADS:
        lua_pushinteger(L, m->kv_heads);
        break;
    case MF_FFN:
        lua_pushinteger(L, m->ffn);
        break;
    case MF_VOCAB:
        lua_pushinteger(L, m->vocab);
        break;
    case MF_MAX_SEQ:
        lua_pushinteger(L, m->max_seq);
        break;
    case MF_MLP:
        lua_pushstring(L, tplan_mlp_name(m->mlp));
        break;
    case MF_NORM:
        lua_pushstring(L, tplan_norm_name(m->norm));
        break;
    case MF_POS:
        lua_pushstring(L, tplan_pos_name(m->pos));
        break;
    case MF_TIED:
        lua_pushboolean(L, m->tied);
        break;
    case MF_BIAS:
        lua_pushboolean(L, m->bias);
        break;
    case MF_DROPOUT:
        lua_pushnumber(L, m->dropout);
        break;
    case MF_PARAMS:
        tplan_model_params(m, &pc);
        lua_pushinteger(L, pc.total);
        break;
    case MF_ACT_BYTES: /* generic models only: nil for transformers */
        if (m->arch == TPLAN_ARCH_GENERIC)
            lua_pushnumber(L, m->generic_act_bytes_fp32);
        else
            lua_pushnil(L);
        break;
    case MF_FLOPS:
        if (m->arch == TPLAN_ARCH_GENERIC)
            lua_pushnumber(L, m->generic_flops_per_sample);
        else
            lua_pushnil(L);
        break;
    case MF_LARGEST_LAYER:
        if (m->arch == TPLAN_ARCH_GENERIC)
            lua_pushinteger(L, m->generic_largest_layer_params);
        else
            lua_pushnil(L);
        break;
    case MF_HEAD_DIM: /* transformers: the width in use; generic: nil */
        if (m->arch == TPLAN_ARCH_GENERIC)
            lua_pushnil(L);
        else
            lua_pushinteger(L, tplan_model_head_dim(m));
        break;
    case MF_BLOCK_NORMS:
        if (m->arch == TPLAN_ARCH_GENERIC)
            lua_pushnil(L);
        else
            lua_pushinteger(L, tplan_model_block_norms(m));
        break;
    case MF_QKV_BIAS:
        lua_pushboolean(L, m->qkv_bias || m->bias);
        break;
    case MF_QK_NORM:
        lua_pushboolean(L, m->qk_norm);
        break;
    case MF_CONFIG: /* an input only: the model keeps what it read */
        lua_pushnil(L);
        break;
    default:
        lua_pushboolean(L, m->batch_norm);
        break;
    }
    return 1;
}

static int model_tostring(lua_State *L)
{
    const tplan_model *m = luaL_checkudata(L, 1, TPLAN_MODEL_MT);
    tplan_param_count pc;

    tplan_model_params(m, &pc);
    lua_pushfstring(L, "tplan.model(%s, %f B params)", m->name,
                    (double)pc.total / 1e9);
    return 1;
}

/* ---- GPUs ------------------------------------------------------------ */

const char *const lt_gpu_fields[] = {
    "base",       "name",       "memory_bytes",  "memory_gib", "mem_bw",
    "fp32_flops", "tf32_flops", "bf16_flops",    "fp16_flops", "fp8_flops",
    "link_gbs",   "nic_gbps",   "gpus_per_node", "tdp_w",      "price",
    "eff_max",    "eff_h0",     "eff_tok0",      "attn_eff",   "fp8_ratio",
    "eff_tp",     "nvls_channels", "blas_ws_mib", NULL};

static void gpu_from_table(lua_State *L, int idx, tplan_gpu *g)
{
    static const char *const flops[TPLAN_DTYPE_COUNT] = {
        "fp32_flops", "tf32_flops", "bf16_flops", "fp16_flops", "fp8_flops"};
    const char *base = NULL, *name = NULL;
    tplan_err err;
    double gib, x;
    int64_t n;

    lu_check_fields(L, idx, "tplan.gpu", lt_gpu_fields);
    lu_str(L, idx, "tplan.gpu", "base", &base);
    /* A GPU from scratch starts from the A100-80GB's bandwidths,
     * efficiency model and power (documented); memory, peaks and price
     * are the caller's. */
    if (lt_gpu_lookup(L, base ? base : "a100-80g", g, &err))
        lu_engine_error(L, "tplan.gpu", &err);
    if (!base) {
        g->memory_bytes = 0;
        memset(g->peak_flops, 0, sizeof g->peak_flops);
        g->price_usd_per_h = 0;
        g->price_source = "none given";
        g->source = "user";
    }
    if (lu_str(L, idx, "tplan.gpu", "name", &name)) {
        if (strlen(name) >= sizeof g->name) /* names go into plans: whole */
            lu_error(L, "tplan.gpu", "name is longer than %d bytes (%s)",
                     (int)sizeof g->name - 1, name);
        snprintf(g->name, sizeof g->name, "%s", name);
    } else if (!base)
        lu_error(L, "tplan.gpu", "a GPU needs a name (or a base)");
    lu_int(L, idx, "tplan.gpu", "memory_bytes", 1, (int64_t)1e15,
           &g->memory_bytes);
    if (lu_num(L, idx, "tplan.gpu", "memory_gib", 0.001, 1e6, &gib))
        g->memory_bytes = (int64_t)(gib * 1024 * 1024 * 1024);
    lu_num(L, idx, "tplan.gpu", "mem_bw", 1e6, 1e15, &g->mem_bw_bytes_per_s);
    for (int d = 0; d < TPLAN_DTYPE_COUNT; d++)
        lu_num(L, idx, "tplan.gpu", flops[d], 0, 1e18, &g->peak_flops[d]);
    if (lu_num(L, idx, "tplan.gpu", "link_gbs", 0.1, 1e6, &x))
        g->link_bytes_per_s = x * 1e9;
    if (lu_num(L, idx, "tplan.gpu", "nic_gbps", 0.1, 1e7, &x))
        g->nic_bytes_per_s = x * 1e9 / 8.0;
    if (lu_int(L, idx, "tplan.gpu", "gpus_per_node", 1, 100000, &n))
        g->gpus_per_node = (int)n;
    lu_num(L, idx, "tplan.gpu", "tdp_w", 0, 1e6, &g->tdp_w);
    if (lu_num(L, idx, "tplan.gpu", "price", 0, 1e6, &g->price_usd_per_h))
        g->price_source = "user";
    lu_num(L, idx, "tplan.gpu", "eff_max", 0.01, 1, &g->eff_max);
    lu_num(L, idx, "tplan.gpu", "eff_h0", 0, 1e8, &g->eff_h0);
    lu_num(L, idx, "tplan.gpu", "eff_tok0", 0, 1e11, &g->eff_tok0);
    lu_num(L, idx, "tplan.gpu", "attn_eff", 0.01, 1, &g->attn_eff);
    lu_num(L, idx, "tplan.gpu", "fp8_ratio", 0, 1, &g->fp8_ratio);
    lu_num(L, idx, "tplan.gpu", "eff_tp", 0, 0.5, &g->eff_tp);
    /* NVLink SHARP channels of its server (engine/hardware.c; 0: none) */
    if (lu_int(L, idx, "tplan.gpu", "nvls_channels", 0, 64, &n))
        g->nvls_channels = (int)n;
    /* the BLAS workspace PyTorch gives it (engine/hardware.c; a GPU from
     * scratch has the A100's, PyTorch's default off Hopper) */
    lu_num(L, idx, "tplan.gpu", "blas_ws_mib", 0, 4096, &g->blas_ws_mib);
    if (tplan_gpu_validate(g, &err))
        lu_engine_error(L, "tplan.gpu", &err);
}

int lt_gpu_new(lua_State *L)
{
    tplan_gpu *g = lua_newuserdatauv(L, sizeof *g, 0); /* arg ud */
    tplan_err err;

    memset(g, 0, sizeof *g);
    luaL_setmetatable(L, TPLAN_GPU_MT);
    if (lua_type(L, 1) == LUA_TSTRING) {
        if (lt_gpu_lookup(L, lua_tostring(L, 1), g, &err))
            return lu_engine_error(L, "tplan.gpu", &err);
    } else if (lua_type(L, 1) == LUA_TTABLE) {
        gpu_from_table(L, 1, g);
    } else {
        return lu_error(L, "tplan.gpu",
                        "expects a GPU name or a table of fields (got %s)",
                        luaL_typename(L, 1));
    }
    return 1;
}

/* Positions in lt_gpu_fields. */
enum {
    GF_BASE,
    GF_NAME,
    GF_MEMORY_BYTES,
    GF_MEMORY_GIB,
    GF_MEM_BW,
    GF_FP32_FLOPS, /* .. GF_FP8_FLOPS: the dtypes in order */
    GF_FP8_FLOPS = GF_FP32_FLOPS + TPLAN_DTYPE_COUNT - 1,
    GF_LINK_GBS,
    GF_NIC_GBPS,
    GF_GPUS_PER_NODE,
    GF_TDP_W,
    GF_PRICE,
    GF_EFF_MAX,
    GF_EFF_H0,
    GF_EFF_TOK0,
    GF_ATTN_EFF,
    GF_FP8_RATIO,
    GF_EFF_TP,
    GF_NVLS_CHANNELS,
    GF_BLAS_WS_MIB
};

/* Every field a GPU was made with reads back ("base": its name). */
static int gpu_index(lua_State *L)
{
    const tplan_gpu *g = luaL_checkudata(L, 1, TPLAN_GPU_MT);
    int pos = field_pos(L, "tplan.gpu");

    if (pos >= GF_FP32_FLOPS && pos <= GF_FP8_FLOPS) {
        lua_pushnumber(L, g->peak_flops[pos - GF_FP32_FLOPS]);
        return 1;
    }
    switch (pos) {
    case GF_BASE:
    case GF_NAME:
        lua_pushstring(L, g->name);
        break;
    case GF_MEMORY_BYTES:
        lua_pushinteger(L, g->memory_bytes);
        break;
    case GF_MEMORY_GIB:
        lua_pushnumber(L, (double)g->memory_bytes / (1024.0 * 1024 * 1024));
        break;
    case GF_MEM_BW:
        lua_pushnumber(L, g->mem_bw_bytes_per_s);
        break;
    case GF_LINK_GBS:
        lua_pushnumber(L, g->link_bytes_per_s / 1e9);
        break;
    case GF_NIC_GBPS:
        lua_pushnumber(L, g->nic_bytes_per_s * 8.0 / 1e9);
        break;
    case GF_GPUS_PER_NODE:
        lua_pushinteger(L, g->gpus_per_node);
        break;
    case GF_TDP_W:
        lua_pushnumber(L, g->tdp_w);
        break;
    case GF_PRICE:
        lua_pushnumber(L, g->price_usd_per_h);
        break;
    case GF_EFF_MAX:
        lua_pushnumber(L, g->eff_max);
        break;
    case GF_EFF_H0:
        lua_pushnumber(L, g->eff_h0);
        break;
    case GF_EFF_TOK0:
        lua_pushnumber(L, g->eff_tok0);
        break;
    case GF_ATTN_EFF:
        lua_pushnumber(L, g->attn_eff);
        break;
    case GF_FP8_RATIO:
        lua_pushnumber(L, g->fp8_ratio);
        break;
    case GF_NVLS_CHANNELS:
        lua_pushinteger(L, g->nvls_channels);
        break;
    case GF_BLAS_WS_MIB:
        lua_pushnumber(L, g->blas_ws_mib);
        break;
    default:
        lua_pushnumber(L, g->eff_tp);
        break;
    }
    return 1;
}

static int gpu_tostring(lua_State *L)
{
    const tplan_gpu *g = luaL_checkudata(L, 1, TPLAN_GPU_MT);

    lua_pushfstring(L, "tplan.gpu(%s, %f GiB)", g->name,
                    (double)g->memory_bytes / (1024.0 * 1024 * 1024));
    return 1;
}

/* A metatable whose __index is f with the name -> position table of
 * fields (NULL-terminated) as its upvalue. */
static void new_type(lua_State *L, const char *mt, lua_CFunction f,
                     lua_CFunction tostring, const char *const *fields)
{
    luaL_newmetatable(L, mt); /* mod mt */
    lua_newtable(L);          /* mod mt names */
    for (int i = 0; fields[i]; i++) {
        lua_pushinteger(L, i);
        lua_setfield(L, -2, fields[i]);
    }
    for (int i = 0; fields == lt_model_fields && i < tplan_model_field_count();
         i++) {
        lua_pushinteger(L, MF_TABLE + i);
        lua_setfield(L, -2, tplan_model_field_at(i)->name);
    }
    lua_pushcclosure(L, f, 1);      /* mod mt index */
    lua_setfield(L, -2, "__index"); /* mod mt */
    lua_pushcfunction(L, tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pop(L, 1); /* mod */
}

void lt_open_models(lua_State *L)
{
    /* the positions the index functions switch on */
    _Static_assert(MF_BATCH_NORM == 19, "lt_model_fields order");
    _Static_assert(GF_BLAS_WS_MIB == 22, "lt_gpu_fields order");
    new_type(L, TPLAN_MODEL_MT, model_index, model_tostring, lt_model_fields);
    new_type(L, TPLAN_GPU_MT, gpu_index, gpu_tostring, lt_gpu_fields);
    lua_pushcfunction(L, lt_model_new);
    lua_setfield(L, -2, "model");
    lua_pushcfunction(L, lt_gpu_new);
    lua_setfield(L, -2, "gpu");
}
