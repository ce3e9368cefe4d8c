/* Architecture validation, exact parameter counts and presets. */
#include "model.h"

#include <stdio.h>
#include <string.h>

void tplan_model_init(tplan_model *m)
{
    memset(m, 0, sizeof *m);
    m->arch = TPLAN_ARCH_DECODER;
    m->mlp = TPLAN_MLP_GELU;
    m->norm = TPLAN_NORM_LAYERNORM;
    m->pos = TPLAN_POS_LEARNED;
    m->bias = true;
    m->tied = true;
}

/* A size in [1, max]: the caps (beyond any real model) keep every product
 * of sizes far from int64 overflow. */
static int check_positive(const char *field, int64_t v, int64_t max,
                          tplan_err *err)
{
    if (v <= 0)
        return tplan_err_set(err, TPLAN_EINVAL, field,
                             "%s must be a positive integer (%s=%lld)", field,
                             field, (long long)v);
    if (v > max)
        return tplan_err_set(err, TPLAN_EINVAL, field,
                             "%s must be at most %lld (%s=%lld)", field,
                             (long long)max, field, (long long)v);
    return TPLAN_OK;
}

/* A count in [0, max] (0: the field is off or defaulted). */
static int check_count(const char *field, int64_t v, int64_t max,
                       tplan_err *err)
{
    if (v < 0 || v > max)
        return tplan_err_set(err, TPLAN_EINVAL, field,
                             "%s must be in [0, %lld] (%s=%lld)", field,
                             (long long)max, field, (long long)v);
    return TPLAN_OK;
}

static int moe_validate(const tplan_model *m, tplan_err *err)
{
    int rc;

    if ((rc = check_count("experts", m->experts, 100000, err)) ||
        (rc = check_count("top_k", m->top_k, 100000, err)) ||
        (rc = check_count("expert_ffn", m->expert_ffn, 10000000, err)) ||
        (rc = check_count("shared_experts", m->shared_experts, 1000, err)) ||
        (rc = check_count("shared_ffn", m->shared_ffn, 10000000, err)) ||
        (rc = check_count("moe_first_dense", m->moe_first_dense, m->layers,
                          err)) ||
        (rc = check_count("moe_every", m->moe_every, m->layers, err)) ||
        (rc = check_count("moe_max_nodes", m->moe_max_nodes, 100000, err)))
        return rc;
    if (m->experts == 0) {
        if (m->top_k || m->expert_ffn || m->shared_experts || m->shared_ffn ||
            m->moe_first_dense || m->moe_every || m->shared_gate ||
            m->moe_max_nodes || m->aux_free_router)
            return tplan_err_set(err, TPLAN_EINVAL, "experts",
                                 "top_k, expert_ffn, shared experts, "
                                 "moe_max_nodes, aux_free_router and the MoE "
                                 "layer pattern "
                                 "need experts > 0 "
                                 "(experts=0)");
        return TPLAN_OK;
    }
    if (m->top_k < 1 || m->top_k > m->experts)
        return tplan_err_set(err, TPLAN_EINVAL, "top_k",
                             "top_k must be in [1, experts] (top_k=%lld, "
                             "experts=%lld)",
                             (long long)m->top_k, (long long)m->experts);
    if (m->shared_gate && m->shared_experts == 0)
        return tplan_err_set(err, TPLAN_EINVAL, "shared_gate",
                             "shared_gate needs shared_experts > 0 "
                             "(shared_experts=0)");
    if (tplan_model_moe_layers(m, 0, m->layers) == 0)
        return tplan_err_set(err, TPLAN_EINVAL, "moe_first_dense",
                             "no layer is a mixture of experts "
                             "(layers=%lld, moe_first_dense=%lld, "
                             "moe_every=%lld)",
                             (long long)m->layers,
                             (long long)m->moe_first_dense,
                             (long long)m->moe_every);
    return TPLAN_OK;
}

static int mla_validate(const tplan_model *m, tplan_err *err)
{
    int rc;

    if ((rc = check_count("q_lora_rank", m->q_lora_rank, 1000000, err)) ||
        (rc = check_count("kv_lora_rank", m->kv_lora_rank, 1000000, err)) ||
        (rc = check_count("qk_rope_dim", m->qk_rope_dim, 100000, err)) ||
        (rc = check_count("qk_nope_dim", m->qk_nope_dim, 100000, err)) ||
        (rc = check_count("v_head_dim", m->v_head_dim, 100000, err)))
        return rc;
    if (m->kv_lora_rank == 0) {
        if (m->q_lora_rank || m->qk_rope_dim || m->qk_nope_dim ||
            m->v_head_dim)
            return tplan_err_set(err, TPLAN_EINVAL, "kv_lora_rank",
                                 "the latent attention dimensions need "
                                 "kv_lora_rank > 0 (kv_lora_rank=0)");
        return TPLAN_OK;
    }
    if (m->qk_nope_dim + m->qk_rope_dim == 0 || m->v_head_dim == 0)
        return tplan_err_set(err, TPLAN_EINVAL, "v_head_dim",
                             "latent attention needs qk_nope_dim + "
                             "qk_rope_dim > 0 and v_head_dim > 0 "
                             "(qk_nope_dim=%lld, qk_rope_dim=%lld, "
                             "v_head_dim=%lld)",
                             (long long)m->qk_nope_dim,
                             (long long)m->qk_rope_dim,
                             (long long)m->v_head_dim);
    if (m->kv_heads != m->heads)
        return tplan_err_set(err, TPLAN_EINVAL, "kv_heads",
                             "latent attention has a key and value per head: "
                             "kv_heads must equal heads (heads=%lld, "
                             "kv_heads=%lld)",
                             (long long)m->heads, (long long)m->kv_heads);
    if (m->bias || m->qkv_bias || m->qk_norm)
        return tplan_err_set(err, TPLAN_EINVAL, "kv_lora_rank",
                             "latent attention with biases or q/k norms is "
                             "not modelled (kv_lora_rank=%lld)",
                             (long long)m->kv_lora_rank);
    return TPLAN_OK;
}

int tplan_model_validate(const tplan_model *m, tplan_err *err)
{
    int rc;

    if (m->dropout < 0.0 || m->dropout >= 1.0 || m->dropout != m->dropout)
        return tplan_err_set(err, TPLAN_EINVAL, "dropout",
                             "dropout must be in [0, 1) (dropout=%g)",
                             m->dropout);
    if (m->arch == TPLAN_ARCH_GENERIC) {
        if ((rc = check_positive("params", m->generic_params, 1000000000000000,
                                 err)))
            return rc;
        if (!(m->generic_act_bytes_fp32 >= 0.0))
            return tplan_err_set(err, TPLAN_EINVAL, "act_bytes_per_sample",
                                 "act_bytes_per_sample must be >= 0 "
                                 "(act_bytes_per_sample=%g)",
                                 m->generic_act_bytes_fp32);
        if (!(m->generic_flops_per_sample >= 0.0) ||
            m->generic_flops_per_sample > 1e18)
            return tplan_err_set(err, TPLAN_EINVAL, "flops_per_sample",
                                 "flops_per_sample must be >= 0 "
                                 "(flops_per_sample=%g)",
                                 m->generic_flops_per_sample);
        if (m->generic_largest_layer_params < 0 ||
            m->generic_largest_layer_params > m->generic_params)
            return tplan_err_set(err, TPLAN_EINVAL, "largest_layer_params",
                                 "largest_layer_params must be in [0, params] "
                                 "(largest_layer_params=%lld)",
                                 (long long)m->generic_largest_layer_params);
        return TPLAN_OK;
    }
    if ((rc = check_positive("layers", m->layers, 100000, err)) ||
        (rc = check_positive("hidden", m->hidden, 1000000, err)) ||
        (rc = check_positive("heads", m->heads, 100000, err)) ||
        (rc = check_positive("kv_heads", m->kv_heads, 100000, err)) ||
        (rc = check_positive("ffn", m->ffn, 10000000, err)) ||
        (rc = check_positive("vocab", m->vocab, 100000000, err)) ||
        (rc = check_positive("max_seq", m->max_seq, 100000000, err)))
        return rc;
    if (m->head_dim < 0 || m->head_dim > 100000)
        return tplan_err_set(err, TPLAN_EINVAL, "head_dim",
                             "head_dim must be in [0, 100000], 0 meaning "
                             "hidden/heads (head_dim=%lld)",
                             (long long)m->head_dim);
    if (m->block_norms != 0 && m->block_norms != 2 && m->block_norms != 4)
        return tplan_err_set(err, TPLAN_EINVAL, "block_norms",
                             "block_norms must be 2 or 4 (block_norms=%lld)",
                             (long long)m->block_norms);
    if (!m->head_dim && m->hidden % m->heads)
        return tplan_err_set(err, TPLAN_EINVAL, "heads",
                             "heads must divide hidden (hidden=%lld, "
                             "heads=%lld)",
                             (long long)m->hidden, (long long)m->heads);
    if (m->heads % m->kv_heads)
        return tplan_err_set(err, TPLAN_EINVAL, "kv_heads",
                             "kv_heads must divide heads (heads=%lld, "
                             "kv_heads=%lld)",
                             (long long)m->heads, (long long)m->kv_heads);
    if ((rc = moe_validate(m, err)) || (rc = mla_validate(m, err)))
        return rc;
    /* multi-token prediction predicts the next tokens: a decoder's */
    if (m->mtp_layers < 0 || m->mtp_layers > 100 ||
        (m->mtp_layers > 0 && m->arch != TPLAN_ARCH_DECODER))
        return tplan_err_set(err, TPLAN_EINVAL, "mtp_layers",
                             "mtp_layers must be in [0, 100], and 0 unless "
                             "the model is a decoder (mtp_layers=%lld)",
                             (long long)m->mtp_layers);
    if (m->window < 0 || m->window > 100000000 || m->global_every < 0 ||
        m->global_every > m->layers)
        return tplan_err_set(err, TPLAN_EINVAL, "window",
                             "window must be in [0, 1e8] and global_every in "
                             "[0, layers] (window=%lld, global_every=%lld)",
                             (long long)m->window, (long long)m->global_every);
    if (m->extra_params < 0 || m->extra_params > 1000000000000000 ||
        m->head_extra_params < 0 || m->head_extra_params > 1000000000000000)
        return tplan_err_set(err, TPLAN_EINVAL, "extra_params",
                             "extra_params must be in [0, 1e15] "
                             "(extra_params=%lld, head_extra_params=%lld)",
                             (long long)m->extra_params,
                             (long long)m->head_extra_params);
    return TPLAN_OK;
}

int64_t tplan_model_head_dim(const tplan_model *m)
{
    return m->head_dim > 0 ? m->head_dim : m->hidden / m->heads;
}

int64_t tplan_model_q_dim(const tplan_model *m)
{
    return m->heads * tplan_model_head_dim(m);
}

int64_t tplan_model_kv_dim(const tplan_model *m)
{
    return m->kv_heads * tplan_model_head_dim(m);
}

int64_t tplan_model_block_norms(const tplan_model *m)
{
    return m->block_norms > 0 ? m->block_norms : 2;
}

bool tplan_model_mla(const tplan_model *m)
{
    return m->kv_lora_rank > 0;
}

bool tplan_model_moe(const tplan_model *m)
{
    return m->experts > 0 && m->arch != TPLAN_ARCH_GENERIC;
}

int64_t tplan_model_qk_head_dim(const tplan_model *m)
{
    return tplan_model_mla(m) ? m->qk_nope_dim + m->qk_rope_dim
                              : tplan_model_head_dim(m);
}

int64_t tplan_model_v_head_dim(const tplan_model *m)
{
    return tplan_model_mla(m) ? m->v_head_dim : tplan_model_head_dim(m);
}

int64_t tplan_model_kv_elems(const tplan_model *m)
{
    if (tplan_model_mla(m))
        return m->heads * (tplan_model_qk_head_dim(m) + m->v_head_dim);
    return 2 * tplan_model_kv_dim(m);
}

/* Layer i is MoE when i >= moe_first_dense and (i + 1) % moe_every == 0
 * (transformers Qwen2MoeDecoderLayer: (layer_idx + 1) %
 * decoder_sparse_step == 0; DeepseekV3DecoderLayer: layer_idx >=
 * first_k_dense_replace; both every layer at step 1). */
int64_t tplan_model_default_seq(const tplan_model *m)
{
    return m->arch == TPLAN_ARCH_GENERIC ? 1 : m->max_seq;
}

int64_t tplan_model_moe_layers(const tplan_model *m, int64_t lo, int64_t hi)
{
    int64_t every = m->moe_every > 0 ? m->moe_every : 1, n;

    if (!tplan_model_moe(m))
        return 0;
    if (lo < m->moe_first_dense)
        lo = m->moe_first_dense;
    if (hi <= lo)
        return 0;
    /* multiples of `every` among lo+1 .. hi */
    n = hi / every - lo / every;
    return n;
}

int64_t tplan_model_expert_ffn(const tplan_model *m)
{
    return m->expert_ffn > 0 ? m->expert_ffn : m->ffn;
}

int64_t tplan_model_shared_ffn(const tplan_model *m)
{
    return m->shared_ffn > 0 ? m->shared_ffn : tplan_model_expert_ffn(m);
}

int64_t tplan_model_mlp_params(const tplan_model *m, int64_t f)
{
    int64_t h = m->hidden, b = m->bias ? 1 : 0;

    if (m->mlp == TPLAN_MLP_SWIGLU)
        return 3 * h * f + b * (2 * f + h);
    return 2 * h * f + b * (f + h);
}

int64_t tplan_model_attn_params(const tplan_model *m)
{
    int64_t h = m->hidden, a = m->heads, qd, kvd;
    int64_t b = m->bias ? 1 : 0, qb = m->bias || m->qkv_bias ? 1 : 0;

    if (tplan_model_mla(m)) {
        /* DeepSeek-V2/V3 attention (transformers DeepseekV3Attention, no
         * biases): q_a_proj h x q_lora, q_a_layernorm, q_b_proj q_lora x
         * a(dn + dr) (or q_proj h x a(dn + dr) without q_lora);
         * kv_a_proj_with_mqa h x (kv_lora + dr), kv_a_layernorm,
         * kv_b_proj kv_lora x a(dn + dv); o_proj a dv x h. */
        int64_t ql = m->q_lora_rank, kl = m->kv_lora_rank;
        int64_t dqk = tplan_model_qk_head_dim(m), dv = m->v_head_dim;
        int64_t q = ql > 0 ? h * ql + ql + ql * a * dqk : h * a * dqk;

        return q + h * (kl + m->qk_rope_dim) + kl +
               kl * a * (m->qk_nope_dim + dv) + a * dv * h;
    }
    qd = tplan_model_q_dim(m);
    kvd = tplan_model_kv_dim(m);
    /* docs/MODEL.md section 1: QKV h*(qd + 2kd), output qd*h, biases
     * (on q, k and v alone in Qwen2). qd = h unless head_dim says. */
    return h * (qd + 2 * kvd) + qd * h + qb * (qd + 2 * kvd) + b * h;
}

int64_t tplan_model_attn_matmul(const tplan_model *m)
{
    int64_t h = m->hidden, a = m->heads, qd, kvd;

    if (tplan_model_mla(m)) {
        int64_t ql = m->q_lora_rank, kl = m->kv_lora_rank;
        int64_t dqk = tplan_model_qk_head_dim(m), dv = m->v_head_dim;

        return (ql > 0 ? h * ql + ql * a * dqk : h * a * dqk) +
               h * (kl + m->qk_rope_dim) + kl * a * (m->qk_nope_dim + dv) +
               a * dv * h;
    }
    qd = tplan_model_q_dim(m);
    kvd = tplan_model_kv_dim(m);
    return h * (qd + 2 * kvd) + qd * h;
}

/* The MoE parts of one layer (docs/MODEL.md section 1.8). */
static void moe_params(const tplan_model *m, tplan_param_count *out)
{
    int64_t h = m->hidden;

    out->moe_layers = tplan_model_moe_layers(m, 0, m->layers);
    out->dense_layers = m->layers - out->moe_layers;
    if (!out->moe_layers)
        return;
    /* router: nn.Linear(h, experts, bias=False) in every HF MoE type
     * (DeepSeek-V3's e_score_correction_bias is a buffer, not a
     * parameter: it has no gradient or optimizer state) */
    out->layer_router = h * m->experts;
    out->layer_expert = tplan_model_mlp_params(m, tplan_model_expert_ffn(m));
    out->layer_shared =
        m->shared_experts *
            tplan_model_mlp_params(m, tplan_model_shared_ffn(m)) +
        (m->shared_gate ? h : 0); /* Qwen2-MoE shared_expert_gate h -> 1 */
    out->moe_layer = out->layer_attn + out->layer_norm + out->layer_router +
                     out->layer_shared + m->experts * out->layer_expert;
    out->expert_total = out->moe_layers * m->experts * out->layer_expert;
}

void tplan_model_params(const tplan_model *m, tplan_param_count *out)
{
    int64_t h = m->hidden;

    memset(out, 0, sizeof *out);
    if (m->arch == TPLAN_ARCH_GENERIC) {
        out->total = m->generic_params;
        out->embed = m->generic_params;
        out->active = out->total;
        return;
    }
    out->layer_attn = tplan_model_attn_params(m);
    out->layer_mlp = tplan_model_mlp_params(m, m->ffn);
    out->layer_norm = tplan_model_block_norms(m) *
                      (m->norm == TPLAN_NORM_RMSNORM ? h : 2 * h);
    /* q and k norms: one scale of the head width each, shared by the
     * heads (HF Qwen3Attention q_norm/k_norm) */
    if (m->qk_norm)
        out->layer_norm += 2 * tplan_model_head_dim(m);
    out->per_layer = out->layer_attn + out->layer_mlp + out->layer_norm;
    out->embed = m->vocab * h + m->extra_params;
    out->head_extra = m->head_extra_params;
    out->pos = m->pos == TPLAN_POS_LEARNED ? m->max_seq * h : 0;
    /* Post-LN encoders (BERT) have no final norm: their embedding norm is
     * in extra_params. */
    if (m->arch == TPLAN_ARCH_ENCODER)
        out->final_norm = 0;
    else
        out->final_norm = m->norm == TPLAN_NORM_RMSNORM ? h : 2 * h;
    out->head = m->tied ? 0 : m->vocab * h;
    moe_params(m, out);
    out->dense_layers = m->layers - out->moe_layers;
    out->total = out->per_layer * out->dense_layers +
                 out->moe_layer * out->moe_layers + out->embed + out->pos +
                 out->final_norm + out->head + out->head_extra;
    out->active = out->total - out->moe_layers * (m->experts - m->top_k) *
                                   out->layer_expert;
    /* DeepSeek-V3 section 2.2 (Eq. 21): each MTP module concatenates
     * RMSNorm(h) and RMSNorm(Emb(t)), projects 2h -> h (M_k, no bias) and
     * runs one transformer block; the released checkpoint's module also
     * has the head's own RMSNorm (model.layers.61.shared_head.norm beside
     * enorm, hnorm, eh_proj): 3 norms of h. The embedding and the output
     * head are the main model's, shared (section 2.2). */
    if (m->mtp_layers > 0) {
        bool moe = tplan_model_mtp_moe(m);
        int64_t block = moe ? out->moe_layer : out->per_layer;

        out->mtp = m->mtp_layers * (block + 2 * h * h + 3 * h);
        out->mtp_expert =
            moe ? m->mtp_layers * m->experts * out->layer_expert : 0;
    }
}

bool tplan_model_mtp_moe(const tplan_model *m)
{
    return m->layers > 0 &&
           tplan_model_moe_layers(m, m->layers - 1, m->layers) > 0;
}

double tplan_megatron_params(double layers, double hidden, double vocab,
                             double seq)
{
    /* Narayanan et al. 2021, "Efficient Large-Scale Language Model Training
     * on GPU Clusters Using Megatron-LM", Eq. 2. */
    return 12.0 * layers * hidden * hidden *
           (1.0 + 13.0 / (12.0 * hidden) +
            (vocab + seq) / (12.0 * layers * hidden));
}

const char *tplan_mlp_name(tplan_mlp v)
{
    return v == TPLAN_MLP_SWIGLU ? "swiglu" : "gelu";
}

const char *tplan_norm_name(tplan_norm v)
{
    return v == TPLAN_NORM_RMSNORM ? "rmsnorm" : "layernorm";
}

const char *tplan_pos_name(tplan_pos v)
{
    return v == TPLAN_POS_ROTARY ? "rotary" : "learned";
}

const char *tplan_arch_name(tplan_arch v)
{
    switch (v) {
    case TPLAN_ARCH_ENCODER:
        return "encoder";
    case TPLAN_ARCH_GENERIC:
        return "generic";
    default:
        return "decoder";
    }
}
