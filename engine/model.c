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

void tplan_model_params(const tplan_model *m, tplan_param_count *out)
{
    int64_t h = m->hidden, f = m->ffn, qd, kvd;
    int64_t b = m->bias ? 1 : 0, qb = m->bias || m->qkv_bias ? 1 : 0;

    memset(out, 0, sizeof *out);
    if (m->arch == TPLAN_ARCH_GENERIC) {
        out->total = m->generic_params;
        out->embed = m->generic_params;
        return;
    }
    qd = tplan_model_q_dim(m);
    kvd = tplan_model_kv_dim(m);
    /* docs/MODEL.md section 1: QKV h*(qd + 2kd), output qd*h, biases
     * (on q, k and v alone in Qwen2). qd = h unless head_dim says. */
    out->layer_attn = h * (qd + 2 * kvd) + qd * h + qb * (qd + 2 * kvd) + b * h;
    if (m->mlp == TPLAN_MLP_SWIGLU)
        out->layer_mlp = 3 * h * f + b * (2 * f + h);
    else
        out->layer_mlp = 2 * h * f + b * (f + h);
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
    out->total = out->per_layer * m->layers + out->embed + out->pos +
                 out->final_norm + out->head + out->head_extra;
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
