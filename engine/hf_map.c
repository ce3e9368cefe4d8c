/* A Hugging Face config.json's keys -> tplan_model (hf_map.h), over a
 * lookup the caller gives: db/hf_config.c's over jansson for calc
 * --model-config, the browser page's over JSON.parse (web/tplan_web.c).
 * One mapping for both, no JSON library here. The defaults and layer
 * layouts per model_type are the transformers library's configuration
 * and modelling classes (configuration_<type>.py, modeling_<type>.py);
 * docs/MODEL.md section 1.7 lists them with the published totals the
 * tests check. */
#include "hf_map.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Rotary models have no position table: the default sequence is the
 * context, capped at this (a 131,072-token default would surprise). */
#define ROTARY_DEFAULT_SEQ 8192

typedef struct hf_type {
    const char *type;
    /* the keys of the shape fields (GPT-2 has its own names) */
    const char *k_hidden, *k_layers, *k_heads, *k_ffn, *k_pos;
    int64_t def_head_dim; /* head_dim when absent; 0: hidden/heads */
    int64_t def_pos;      /* max_position_embeddings when absent */
    tplan_arch arch;
    tplan_mlp mlp; /* gated (SwiGLU, GeGLU) or not */
    tplan_norm norm;
    tplan_pos pos;
    bool def_tied;    /* tie_word_embeddings when absent */
    bool bias;        /* every linear carries a bias */
    bool qkv_bias;    /* q, k and v carry biases (Qwen2) */
    bool qk_norm;     /* per-head q and k RMSNorms (Qwen3, Gemma 3) */
    int block_norms;  /* norms per block */
    bool ffn_4h;      /* a null FFN width means 4h (GPT-2's n_inner) */
    bool llama_bias;  /* attention_bias / mlp_bias flags (Llama family) */
} hf_type;

/* clang-format off */
static const hf_type types[] = {
    /* LlamaConfig: head_dim None = h/a, max_position_embeddings 2048,
     * untied, attention_bias and mlp_bias False */
    {"llama", "hidden_size", "num_hidden_layers", "num_attention_heads",
     "intermediate_size", "max_position_embeddings", 0, 2048,
     TPLAN_ARCH_DECODER, TPLAN_MLP_SWIGLU, TPLAN_NORM_RMSNORM, TPLAN_POS_ROTARY,
     false, false, false, false, 2, false, true},
    /* MistralConfig: as Llama, 4096 * 32 positions, no biases */
    {"mistral", "hidden_size", "num_hidden_layers", "num_attention_heads",
     "intermediate_size", "max_position_embeddings", 0, 131072,
     TPLAN_ARCH_DECODER, TPLAN_MLP_SWIGLU, TPLAN_NORM_RMSNORM, TPLAN_POS_ROTARY,
     false, false, false, false, 2, false, false},
    /* Qwen2Config: 32768 positions, untied; Qwen2Attention: q, k, v
     * biases, o without */
    {"qwen2", "hidden_size", "num_hidden_layers", "num_attention_heads",
     "intermediate_size", "max_position_embeddings", 0, 32768,
     TPLAN_ARCH_DECODER, TPLAN_MLP_SWIGLU, TPLAN_NORM_RMSNORM, TPLAN_POS_ROTARY,
     false, false, true, false, 2, false, false},
    /* Qwen3Config: head_dim 128, 32768 positions, untied, attention_bias
     * False; Qwen3Attention: q_norm, k_norm over head_dim */
    {"qwen3", "hidden_size", "num_hidden_layers", "num_attention_heads",
     "intermediate_size", "max_position_embeddings", 128, 32768,
     TPLAN_ARCH_DECODER, TPLAN_MLP_SWIGLU, TPLAN_NORM_RMSNORM, TPLAN_POS_ROTARY,
     false, false, false, true, 2, false, true},
    /* GemmaConfig: head_dim 256, 8192 positions, tie_word_embeddings
     * True by default, GeGLU */
    {"gemma", "hidden_size", "num_hidden_layers", "num_attention_heads",
     "intermediate_size", "max_position_embeddings", 256, 8192,
     TPLAN_ARCH_DECODER, TPLAN_MLP_SWIGLU, TPLAN_NORM_RMSNORM, TPLAN_POS_ROTARY,
     true, false, false, false, 2, false, false},
    /* Gemma2Config: as Gemma with pre- and post-norms (4 per block) */
    {"gemma2", "hidden_size", "num_hidden_layers", "num_attention_heads",
     "intermediate_size", "max_position_embeddings", 256, 8192,
     TPLAN_ARCH_DECODER, TPLAN_MLP_SWIGLU, TPLAN_NORM_RMSNORM, TPLAN_POS_ROTARY,
     true, false, false, false, 4, false, false},
    /* Gemma3TextConfig: as Gemma 2 plus q and k norms, 131072 positions */
    {"gemma3_text", "hidden_size", "num_hidden_layers", "num_attention_heads",
     "intermediate_size", "max_position_embeddings", 256, 131072,
     TPLAN_ARCH_DECODER, TPLAN_MLP_SWIGLU, TPLAN_NORM_RMSNORM, TPLAN_POS_ROTARY,
     true, false, false, true, 4, false, false},
    /* MixtralConfig: MistralConfig's shape, 4096 * 32 positions, untied,
     * every layer a mixture of experts of intermediate_size (read_moe) */
    {"mixtral", "hidden_size", "num_hidden_layers", "num_attention_heads",
     "intermediate_size", "max_position_embeddings", 0, 131072,
     TPLAN_ARCH_DECODER, TPLAN_MLP_SWIGLU, TPLAN_NORM_RMSNORM, TPLAN_POS_ROTARY,
     false, false, false, false, 2, false, false},
    /* Qwen2MoeConfig: Qwen2's attention (q, k, v biases), 32768
     * positions; experts, a gated shared expert (read_moe) */
    {"qwen2_moe", "hidden_size", "num_hidden_layers", "num_attention_heads",
     "intermediate_size", "max_position_embeddings", 0, 32768,
     TPLAN_ARCH_DECODER, TPLAN_MLP_SWIGLU, TPLAN_NORM_RMSNORM, TPLAN_POS_ROTARY,
     false, false, true, false, 2, false, false},
    /* Qwen3MoeConfig: Qwen3's attention (q and k norms) but no head_dim
     * field: absent means h/a (Qwen3Attention's getattr); 32768 positions */
    {"qwen3_moe", "hidden_size", "num_hidden_layers", "num_attention_heads",
     "intermediate_size", "max_position_embeddings", 0, 32768,
     TPLAN_ARCH_DECODER, TPLAN_MLP_SWIGLU, TPLAN_NORM_RMSNORM, TPLAN_POS_ROTARY,
     false, false, false, true, 2, false, false},
    /* DeepseekV2Config / DeepseekV3Config: latent attention, dense first
     * layers, shared and routed experts (read_moe, read_mla); untied;
     * 2048 and 4096 positions by default */
    {"deepseek_v2", "hidden_size", "num_hidden_layers", "num_attention_heads",
     "intermediate_size", "max_position_embeddings", 0, 2048,
     TPLAN_ARCH_DECODER, TPLAN_MLP_SWIGLU, TPLAN_NORM_RMSNORM, TPLAN_POS_ROTARY,
     false, false, false, false, 2, false, false},
    {"deepseek_v3", "hidden_size", "num_hidden_layers", "num_attention_heads",
     "intermediate_size", "max_position_embeddings", 0, 4096,
     TPLAN_ARCH_DECODER, TPLAN_MLP_SWIGLU, TPLAN_NORM_RMSNORM, TPLAN_POS_ROTARY,
     false, false, false, false, 2, false, false},
    /* Phi3Config: fused qkv_proj and gate_up_proj (the same parameters as
     * separate ones), 4096 positions, untied */
    {"phi3", "hidden_size", "num_hidden_layers", "num_attention_heads",
     "intermediate_size", "max_position_embeddings", 0, 4096,
     TPLAN_ARCH_DECODER, TPLAN_MLP_SWIGLU, TPLAN_NORM_RMSNORM, TPLAN_POS_ROTARY,
     false, false, false, false, 2, false, false},
    /* GPT2Config: n_embd, n_layer, n_head, n_inner (None = 4h),
     * n_positions 1024; biases, tied, learned positions */
    {"gpt2", "n_embd", "n_layer", "n_head", "n_inner", "n_positions", 0, 1024,
     TPLAN_ARCH_DECODER, TPLAN_MLP_GELU, TPLAN_NORM_LAYERNORM,
     TPLAN_POS_LEARNED, true, true, false, false, 2, true, false},
    /* GPTNeoXConfig: rotary, LayerNorm, biased query_key_value, dense and
     * MLP, untied embed_out, 2048 positions */
    {"gpt_neox", "hidden_size", "num_hidden_layers", "num_attention_heads",
     "intermediate_size", "max_position_embeddings", 0, 2048,
     TPLAN_ARCH_DECODER, TPLAN_MLP_GELU, TPLAN_NORM_LAYERNORM, TPLAN_POS_ROTARY,
     false, true, false, false, 2, false, false},
    /* BertConfig: 512 positions, type_vocab_size 2; counted as
     * BertForPreTraining, as the bert presets */
    {"bert", "hidden_size", "num_hidden_layers", "num_attention_heads",
     "intermediate_size", "max_position_embeddings", 0, 512,
     TPLAN_ARCH_ENCODER, TPLAN_MLP_GELU, TPLAN_NORM_LAYERNORM,
     TPLAN_POS_LEARNED, true, true, false, false, 2, false, false},
};
/* clang-format on */

enum { TYPE_COUNT = sizeof types / sizeof types[0] };

/* model types known to be mixtures of experts we do not read yet */
static const char *const moe_types[] = {
    "llama4",    "gpt_oss",     "olmoe",     "dbrx",        "jamba",
    "phimoe",    "granitemoe",  "jetmoe",    "deepseek_v32"};

const char *tplan_hf_config_types(void)
{
    return "llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, "
           "gemma, gemma2, gemma3 (text), gemma3_text, phi3, deepseek_v2, "
           "deepseek_v3, gpt2, gpt_neox, bert";
}

typedef struct reader {
    const char *path;
    const tplan_hf_keys *k;
    const void *obj; /* the object read: the root or text_config */
    tplan_err *err;
} reader;

/* key's value in r's object */
static tplan_hv get(const reader *r, const char *key)
{
    tplan_hv v;

    memset(&v, 0, sizeof v);
    r->k->get(r->k->ctx, r->obj, key, &v);
    return v;
}

static bool is_null(tplan_hv v)
{
    return v.kind == TPLAN_HV_ABSENT || v.kind == TPLAN_HV_NULL;
}

static int fail(const reader *r, const char *field, const char *what)
{
    return tplan_err_set(r->err, TPLAN_EINVAL, "model_config",
                         "model_config: %.200s: %s %s", r->path, field, what);
}

static const char *type_name(tplan_hv v)
{
    switch (v.kind) {
    case TPLAN_HV_OBJECT:
        return "an object";
    case TPLAN_HV_ARRAY:
        return "an array";
    case TPLAN_HV_STRING:
        return "a string";
    case TPLAN_HV_REAL:
        return "a real number";
    case TPLAN_HV_TRUE:
    case TPLAN_HV_FALSE:
        return "a boolean";
    default:
        return "null";
    }
}

/* An integer field in [min, max], or absent/null: def (def < 0: the
 * field is required). */
static int get_range(const reader *r, const char *key, int64_t def,
                     int64_t min, int64_t max, int64_t *out)
{
    tplan_hv v = get(r, key);

    if (is_null(v)) {
        if (def < 0)
            return tplan_err_set(r->err, TPLAN_EINVAL, "model_config",
                                 "model_config: %.200s: %s is missing (a "
                                 "shape field has no default here)",
                                 r->path, key);
        *out = def;
        return TPLAN_OK;
    }
    if (v.kind != TPLAN_HV_INT)
        return tplan_err_set(r->err, TPLAN_EINVAL, "model_config",
                             "model_config: %.200s: %s must be an integer "
                             "(got %s)",
                             r->path, key, type_name(v));
    if (v.i < min || v.i > max)
        return tplan_err_set(r->err, TPLAN_EINVAL, "model_config",
                             "model_config: %.200s: %s must be in [%lld, "
                             "%lld] (%s=%lld)",
                             r->path, key, (long long)min, (long long)max,
                             key, (long long)v.i);
    *out = v.i;
    return TPLAN_OK;
}

/* A positive integer (a size). */
static int get_int(const reader *r, const char *key, int64_t def,
                   int64_t max, int64_t *out)
{
    return get_range(r, key, def, 1, max, out);
}

static int get_bool(const reader *r, const char *key, bool def, bool *out)
{
    tplan_hv v = get(r, key);

    if (is_null(v)) {
        *out = def;
        return TPLAN_OK;
    }
    if (v.kind != TPLAN_HV_TRUE && v.kind != TPLAN_HV_FALSE)
        return fail(r, key, "must be true or false");
    *out = v.kind == TPLAN_HV_TRUE;
    return TPLAN_OK;
}

/* A count that may be 0 (absent or null: def). */
static int get_count(const reader *r, const char *key, int64_t def,
                     int64_t max, int64_t *out)
{
    return get_range(r, key, def, 0, max, out);
}

/* A field that must be absent, null, empty or equal to `want` (what we
 * model); anything else is named. */
static int need_plain(const reader *r, const char *key, int64_t want,
                      const char *why)
{
    tplan_hv v = get(r, key);

    if (is_null(v) || (v.kind == TPLAN_HV_ARRAY && v.n == 0) ||
        (v.kind == TPLAN_HV_INT && v.i == want) ||
        (v.kind == TPLAN_HV_FALSE && want == 0))
        return TPLAN_OK;
    return fail(r, key, why);
}

/* Mixture-of-experts fields (transformers' configuration_<type>.py and
 * modeling_<type>.py; docs/MODEL.md section 1.8). */
static int read_moe(const reader *r, const char *mt, tplan_model *m)
{
    bool deepseek = strncmp(mt, "deepseek_", 9) == 0;
    bool qwen = strcmp(mt, "qwen2_moe") == 0 || strcmp(mt, "qwen3_moe") == 0;
    bool v3;
    tplan_hv tm;
    int64_t shared = 0, step = 1, n_shared = 0;
    int rc;

    /* num_key_value_heads when absent: MixtralConfig 8, Qwen2MoeConfig
     * 16, Qwen3MoeConfig 4 (not the heads, as for the others) */
    if (is_null(get(r, "num_key_value_heads"))) {
        int64_t kv = strcmp(mt, "mixtral") == 0     ? 8
                     : strcmp(mt, "qwen2_moe") == 0 ? 16
                     : strcmp(mt, "qwen3_moe") == 0 ? 4
                                                    : 0;

        if (kv > 0 && kv <= m->heads)
            m->kv_heads = kv;
    }
    if (strcmp(mt, "mixtral") == 0) {
        /* MixtralConfig: num_local_experts 8, num_experts_per_tok 2; the
         * experts are intermediate_size wide */
        if ((rc = get_int(r, "num_local_experts", 8, 100000, &m->experts)))
            return rc;
        return get_int(r, "num_experts_per_tok", 2, 100000, &m->top_k);
    }
    if (qwen) {
        /* Qwen2MoeConfig: 60 experts, top 4, experts 1408 wide, a shared
         * expert of 5632 behind a sigmoid gate; Qwen3MoeConfig: 128, top
         * 8, 768, no shared expert. A layer is MoE when (i + 1) %
         * decoder_sparse_step == 0 and i is not in mlp_only_layers. */
        bool q2 = strcmp(mt, "qwen2_moe") == 0;

        if ((rc = get_int(r, "num_experts", q2 ? 60 : 128, 100000,
                          &m->experts)) ||
            (rc = get_int(r, "num_experts_per_tok", q2 ? 4 : 8, 100000,
                          &m->top_k)) ||
            (rc = get_int(r, "moe_intermediate_size", q2 ? 1408 : 768,
                          10000000, &m->expert_ffn)) ||
            (rc = get_int(r, "decoder_sparse_step", 1, 100000, &step)) ||
            (rc = need_plain(r, "mlp_only_layers", 0,
                             "lists dense layers: not modelled (give "
                             "--moe-every or --moe-first-dense instead)")))
            return rc;
        m->moe_every = step > 1 ? step : 0;
        if (q2) {
            if ((rc = get_count(r, "shared_expert_intermediate_size", 5632,
                                10000000, &shared)))
                return rc;
            m->shared_experts = shared > 0 ? 1 : 0;
            m->shared_ffn = shared;
            m->shared_gate = shared > 0;
        }
        return TPLAN_OK;
    }
    if (!deepseek)
        return TPLAN_OK;
    v3 = strcmp(mt, "deepseek_v3") == 0;
    /* DeepseekV2Config: 64 routed of 1407 (moe_intermediate_size), 2
     * shared, first_k_dense_replace 0; DeepseekV3Config: 256 of 2048, 1
     * shared, 3 dense layers. transformers makes layer i MoE when i >=
     * first_k_dense_replace (DeepSeek's code also asks i % moe_layer_freq
     * == 0: every released config has 1). The shared experts are one MLP
     * n_shared_experts * moe_intermediate_size wide. */

    if ((rc = get_int(r, "n_routed_experts", v3 ? 256 : 64, 100000,
                      &m->experts)) ||
        (rc = get_int(r, "num_experts_per_tok", v3 ? 8 : -1, 100000,
                      &m->top_k)) ||
        (rc = get_int(r, "moe_intermediate_size", v3 ? 2048 : 1407, 10000000,
                      &m->expert_ffn)) ||
        (rc = get_count(r, "n_shared_experts", v3 ? 1 : 2, 1000, &n_shared)) ||
        (rc = get_count(r, "first_k_dense_replace", v3 ? 3 : 0, 100000,
                        &m->moe_first_dense)) ||
        (rc = need_plain(r, "moe_layer_freq", 1,
                         "other than 1 is not modelled")))
        return rc;
    /* DeepSeek-V3's node-limited routing: experts fall into n_group
     * groups, one per node in its deployment, and a token picks experts
     * in topk_group of them (report sections 2.1.2 and 3.2.2: M = 4).
     * V2's groups are devices (device-limited routing, M = 3): not read. */
    if (v3 && (rc = get_count(r, "topk_group", 4, 100000, &m->moe_max_nodes)))
        return rc;
    /* DeepseekV3Config's topk_method "noaux_tc" is the auxiliary-loss-free
     * router (a bias on the scores, report section 2.1.2); V2's
     * "greedy" and "group_limited_greedy" train with balance losses. */
    tm = get(r, "topk_method");
    if (!is_null(tm) && tm.kind != TPLAN_HV_STRING)
        return fail(r, "topk_method", "must be a string");
    m->aux_free_router =
        tm.kind == TPLAN_HV_STRING ? strcmp(tm.s, "noaux_tc") == 0 : v3;
    /* DeepseekV3Config's num_nextn_predict_layers: the multi-token
     * prediction modules (report section 2.2, D = 1), which transformers
     * does not build; V2 has none */
    if (v3 && (rc = get_count(r, "num_nextn_predict_layers", 1, 100,
                              &m->mtp_layers)))
        return rc;
    m->shared_experts = n_shared > 0 ? 1 : 0;
    m->shared_ffn = n_shared * m->expert_ffn;
    return TPLAN_OK;
}

/* DeepSeek's latent attention (DeepseekV2Attention): q_lora_rank null
 * means a full q projection (V2-Lite); the key-value heads are the query
 * heads (num_key_value_heads plays no part in the shapes). */
static int read_mla(const reader *r, const char *mt, tplan_model *m)
{
    int rc;

    if (strncmp(mt, "deepseek_", 9) != 0)
        return TPLAN_OK;
    if ((rc = get_count(r, "q_lora_rank", 1536, 1000000, &m->q_lora_rank)) ||
        (rc = get_int(r, "kv_lora_rank", 512, 1000000, &m->kv_lora_rank)) ||
        (rc = get_int(r, "qk_rope_head_dim", 64, 100000, &m->qk_rope_dim)) ||
        (rc = get_int(r, "qk_nope_head_dim", 128, 100000, &m->qk_nope_dim)) ||
        (rc = get_int(r, "v_head_dim", 128, 100000, &m->v_head_dim)) ||
        (rc = need_plain(r, "attention_bias", 0,
                         "true is not modelled with latent attention")))
        return rc;
    /* an explicit null q_lora_rank is V2-Lite's full projection */
    if (get(r, "q_lora_rank").kind == TPLAN_HV_NULL)
        m->q_lora_rank = 0;
    m->kv_heads = m->heads;
    m->head_dim = 0;
    return TPLAN_OK;
}

/* Sliding windows and soft-capping: Mistral's sliding_window (default
 * 4096, null for none), Mixtral's (default null), Gemma 2's (4096 on every
 * other layer, attn_logit_softcapping 50) and Gemma 3's (sliding_window
 * with one global layer in sliding_window_pattern, default 6). Qwen's
 * use_sliding_window is off in every released config. */
static int read_window(const reader *r, const char *mt, tplan_model *m)
{
    tplan_hv cap = get(r, "attn_logit_softcapping");
    int64_t def = 0, pattern = 0;
    bool use = false;
    int rc;

    if (strcmp(mt, "mistral") == 0 || strcmp(mt, "gemma2") == 0 ||
        strcmp(mt, "gemma3_text") == 0)
        def = 4096;
    if (strncmp(mt, "qwen", 4) == 0) {
        if ((rc = get_bool(r, "use_sliding_window", false, &use)))
            return rc;
        if (use)
            return fail(r, "use_sliding_window",
                        "true is not modelled (Qwen's window layers)");
        return TPLAN_OK;
    }
    if (def == 0 && strcmp(mt, "mixtral") != 0)
        return TPLAN_OK;
    if ((rc = get_count(r, "sliding_window", def, 100000000, &m->window)))
        return rc;
    if (get(r, "sliding_window").kind == TPLAN_HV_NULL)
        m->window = 0;
    if (strcmp(mt, "gemma2") == 0)
        m->global_every = 2;
    if (strcmp(mt, "gemma3_text") == 0) {
        if ((rc = get_int(r, "sliding_window_pattern", 6, 100000, &pattern)))
            return rc;
        m->global_every = pattern;
    }
    if (strcmp(mt, "gemma2") == 0)
        m->softcap = cap.kind != TPLAN_HV_NULL;
    else
        m->softcap = !is_null(cap);
    return TPLAN_OK;
}

static const hf_type *find_type(const char *t)
{
    for (int i = 0; i < TYPE_COUNT; i++)
        if (strcmp(types[i].type, t) == 0)
            return &types[i];
    return NULL;
}

/* The shape of one supported type from r->obj into *m. */
static int read_shape(const reader *r, const hf_type *t, tplan_model *m)
{
    int64_t kv = 0, hd = 0, pos = 0, type_vocab = 2;
    bool tied = t->def_tied, attn_bias = false, mlp_bias = false;
    int rc;

    m->arch = t->arch;
    m->mlp = t->mlp;
    m->norm = t->norm;
    m->pos = t->pos;
    m->bias = t->bias;
    m->qkv_bias = t->qkv_bias;
    m->qk_norm = t->qk_norm;
    m->block_norms = t->block_norms;
    m->dropout = 0.0; /* fine-tuning and pre-training recipes run p = 0 */
    if ((rc = get_int(r, t->k_hidden, -1, 1000000, &m->hidden)) ||
        (rc = get_int(r, t->k_layers, -1, 100000, &m->layers)) ||
        (rc = get_int(r, t->k_heads, -1, 100000, &m->heads)) ||
        (rc = get_int(r, "vocab_size", -1, 100000000, &m->vocab)) ||
        (rc = get_int(r, t->k_ffn, t->ffn_4h ? 0 : -1, 10000000, &m->ffn)) ||
        (rc = get_int(r, t->k_pos, t->def_pos, 100000000, &pos)) ||
        (rc = get_int(r, "num_key_value_heads", 0, 100000, &kv)) ||
        (rc = get_int(r, "head_dim", t->def_head_dim, 100000, &hd)) ||
        (rc = get_bool(r, "tie_word_embeddings", t->def_tied, &tied)))
        return rc;
    if (m->ffn == 0)
        m->ffn = 4 * m->hidden;
    m->kv_heads = kv ? kv : m->heads;
    /* head_dim only when it differs from h/a: the same model either way */
    m->head_dim = hd && hd * m->heads != m->hidden ? hd : 0;
    m->tied = tied;
    if (t->pos == TPLAN_POS_LEARNED)
        m->max_seq = pos;
    else
        m->max_seq = pos < ROTARY_DEFAULT_SEQ ? pos : ROTARY_DEFAULT_SEQ;
    if (t->llama_bias) {
        if ((rc = get_bool(r, "attention_bias", false, &attn_bias)) ||
            (rc = get_bool(r, "mlp_bias", false, &mlp_bias)))
            return rc;
        if (attn_bias != mlp_bias)
            return fail(r, attn_bias ? "attention_bias" : "mlp_bias",
                        "true with the other false is not modelled (biases "
                        "go on every linear or on none)");
        m->bias = attn_bias;
    }
    /* transformers' ACT2FN["gelu_new"] is NewGELUActivation, a Python
     * formula that saves more than the fused kernel (activations.c); GPT-2
     * names it activation_function (default "gelu_new"), the others
     * hidden_act ("gelu", "gelu_pytorch_tanh": fused kernels) */
    if (m->mlp == TPLAN_MLP_GELU) {
        const char *key =
            get(r, "activation_function").kind != TPLAN_HV_ABSENT
                ? "activation_function"
                : "hidden_act";
        tplan_hv a = get(r, key);

        if (!is_null(a) && a.kind != TPLAN_HV_STRING)
            return fail(r, key, "must be a string (an activation's name)");
        m->gelu_python =
            strcmp(a.kind == TPLAN_HV_STRING          ? a.s
                   : strcmp(t->type, "gpt2") == 0 ? "gelu_new"
                                                  : "",
                   "gelu_new") == 0;
    }
    if (t->arch == TPLAN_ARCH_ENCODER) {
        if ((rc = get_int(r, "type_vocab_size", 2, 1000000, &type_vocab)))
            return rc;
        /* BertForPreTraining (docs/MODEL.md section 1.3): token types and
         * the embedding LayerNorm; pooler, MLM transform, its norm, the MLM
         * bias and the next-sentence head */
        m->extra_params = type_vocab * m->hidden + 2 * m->hidden;
        m->head_extra_params = 2 * (m->hidden * m->hidden + m->hidden) +
                               2 * m->hidden + m->vocab + 2 * m->hidden + 2;
    }
    return TPLAN_OK;
}

/* The model's name: the directory holding config.json ("Llama-3-8B/"),
 * else the file's name without ".json". */
static void name_from_path(const char *path, char *out, size_t cap)
{
    const char *end = path + strlen(path), *slash, *start;
    size_t n;

    slash = strrchr(path, '/');
    if (slash && strcmp(slash + 1, "config.json") == 0) {
        end = slash;
        start = end;
        while (start > path && start[-1] != '/')
            start--;
    } else {
        start = slash ? slash + 1 : path;
        n = strlen(start);
        if (n > 5 && strcmp(start + n - 5, ".json") == 0)
            end = start + n - 5;
    }
    n = (size_t)(end - start);
    if (n == 0 || n >= cap)
        snprintf(out, cap, "config");
    else
        snprintf(out, cap, "%.*s", (int)n, start);
    /* a name goes into tables, CSV and reports on one line: control
     * characters of a directory's name become '?', as in error messages */
    for (char *p = out; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
}

int tplan_hf_map(const tplan_hf_keys *k, tplan_hv root, const char *path,
                 tplan_model *out, tplan_err *err)
{
    tplan_hv v, text;
    char mt[128];
    const hf_type *t;
    reader r = {path, k, root.obj, err};
    int rc;

    if (root.kind != TPLAN_HV_OBJECT)
        return tplan_err_set(err, TPLAN_EINVAL, "model_config",
                             "model_config: %.200s: not a JSON object", path);
    /* copied: a lookup's string lives until its next call */
    v = get(&r, "model_type");
    if (v.kind != TPLAN_HV_STRING)
        return fail(&r, "model_type", "is missing (a Hugging Face config.json "
                                      "names its model_type)");
    snprintf(mt, sizeof mt, "%s", v.s);
    /* Gemma 3's multimodal config nests the language model's */
    text = get(&r, "text_config");
    if (strcmp(mt, "gemma3") == 0 && text.kind == TPLAN_HV_OBJECT) {
        r.obj = text.obj;
        snprintf(mt, sizeof mt, "gemma3_text");
    }
    t = find_type(mt);
    if (!t) {
        bool moe = false;

        for (size_t i = 0; i < sizeof moe_types / sizeof moe_types[0]; i++)
            moe = moe || strcmp(moe_types[i], mt) == 0;
        return tplan_err_set(err, TPLAN_EINVAL, "model_config",
                             "model_config: %.200s: model_type %.64s %s "
                             "(supported: %s)",
                             path, mt,
                             moe ? "is a mixture of experts, not modelled yet"
                                 : "is not supported",
                             tplan_hf_config_types());
    }
    tplan_model_init(out);
    name_from_path(path, out->name, sizeof out->name);
    if ((rc = read_shape(&r, t, out)) || (rc = read_moe(&r, mt, out)) ||
        (rc = read_mla(&r, mt, out)) || (rc = read_window(&r, mt, out)))
        return rc;
    out->source = "Hugging Face config.json (--model-config)";
    return tplan_model_validate(out, err);
}
