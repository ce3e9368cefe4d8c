/* LoRA adapter shapes and frozen-weight storage (docs/MODEL.md sections
 * 12.1-12.2). */
#include "finetune.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "names.h"

/* bitsandbytes 4-bit storage (QLoRA, Dettmers et al. 2023, section 3;
 * bitsandbytes functional.quantize_4bit): two 4-bit values per byte and one
 * fp32 absmax per block of 64. With nested quantization the absmaxes are
 * themselves quantized to 8 bits in blocks of 256 after subtracting their
 * mean: one byte per block of 64, one fp32 absmax per 256 of those and one
 * fp32 offset per tensor (the paper's 8/64 + 32/(64*256) = 0.127 bits per
 * parameter instead of 32/64 = 0.5). */
#define Q4_BLOCK  64.0
#define DQ_BLOCK  256.0
#define FP32      4.0

static const char *const base_names[TPLAN_BASE_COUNT] = {
    "auto", "bf16", "fp16", "int8", "nf4", "fp4"};
static const char *const offload_names[TPLAN_OFFLOAD_COUNT] = {"none", "cpu",
                                                               "nvme"};
/* target bits in order, with PEFT's module names for the Llama family */
static const char *const target_names[TPLAN_LORA_NTARGETS] = {
    "q",    "k",      "v",              "o",      "gate", "up",
    "down", "mla",    "router", "shared_experts", "experts"};

int tplan_layer_linears(const tplan_model *m, bool moe, int64_t tp, int64_t etp,
                        int64_t ep, tplan_linear out[TPLAN_LORA_NLINEAR])
{
    double t = (double)tp, h = (double)m->hidden, f = (double)m->ffn;
    double k = (double)m->kv_heads, kvd = (double)tplan_model_kv_dim(m);
    double qd = (double)tplan_model_q_dim(m);
    /* past k ranks each keeps one kv head's K and V (memory.c) */
    double kv_out = t > k ? kvd / k : kvd / t;
    bool swiglu = m->mlp == TPLAN_MLP_SWIGLU;
    int n = 0;

#define LINX(bit, fi, fo, di, dout, row, cnt, ex)                              \
    out[n++] = (tplan_linear){bit, di, dout, fi, fo, row, cnt, ex}
#define LIN(bit, fi, fo, di, dout, row)                                        \
    LINX(bit, fi, fo, di, dout, row, 1.0, false)
    if (tplan_model_mla(m)) {
        /* DeepSeek-V3's attention (transformers modeling_deepseek_v3.py,
         * DeepseekV3Attention): the down projections whole on every rank,
         * the up projections and o split by head (memory.c) */
        double a = (double)m->heads, ql = (double)m->q_lora_rank;
        double kl = (double)m->kv_lora_rank;
        double qo = a * (double)tplan_model_qk_head_dim(m);
        double kvo = a * (double)(m->qk_nope_dim + m->v_head_dim);
        double vo = a * (double)m->v_head_dim;

        if (ql > 0) {
            LIN(TPLAN_LORA_MLA, h, ql, h, ql, false);
            LIN(TPLAN_LORA_MLA, ql, qo, ql, qo / t, false);
        } else {
            LIN(TPLAN_LORA_MLA, h, qo, h, qo / t, false);
        }
        LIN(TPLAN_LORA_MLA, h, kl + (double)m->qk_rope_dim, h,
            kl + (double)m->qk_rope_dim, false);
        LIN(TPLAN_LORA_MLA, kl, kvo, kl, kvo / t, false);
        LIN(TPLAN_LORA_O, vo, h, vo / t, h, true);
    } else {
        LIN(TPLAN_LORA_Q, h, qd, h, qd / t, false);
        LIN(TPLAN_LORA_K, h, kvd, h, kv_out, false);
        LIN(TPLAN_LORA_V, h, kvd, h, kv_out, false);
        LIN(TPLAN_LORA_O, qd, h, qd / t, h, true);
    }
    if (!moe) {
        if (swiglu)
            LIN(TPLAN_LORA_GATE, h, f, h, f / t, false);
        LIN(TPLAN_LORA_UP, h, f, h, f / t, false);
        LIN(TPLAN_LORA_DOWN, f, h, f / t, h, true);
    } else {
        double e = (double)m->experts, fe = (double)tplan_model_expert_ffn(m);
        double fs = (double)(m->shared_experts * tplan_model_shared_ffn(m));
        double per = e / (double)ep, te = (double)etp;

        /* the router: Linear(h, experts), whole on every rank */
        LIN(TPLAN_LORA_ROUTER, h, e, h, e, false);
        /* the shared experts as one MLP of their summed width
         * (DeepseekV3MoE.shared_experts), split like a dense MLP */
        if (m->shared_experts > 0) {
            if (swiglu)
                LIN(TPLAN_LORA_SHARED, h, fs, h, fs / t, false);
            LIN(TPLAN_LORA_SHARED, h, fs, h, fs / t, false);
            LIN(TPLAN_LORA_SHARED, fs, h, fs / t, h, true);
            /* Qwen2-MoE's shared_expert_gate, Linear(h, 1) */
            if (m->shared_gate)
                LIN(TPLAN_LORA_SHARED, h, 1.0, h, 1.0, false);
        }
        /* each routed expert its own linears (Mixtral's w1, w3, w2):
         * experts / ep of them on a rank, split over etp (Megatron's
         * expert tensor parallelism, tp unless given) */
        if (swiglu)
            LINX(TPLAN_LORA_EXPERTS, h, fe, h, fe / te, false, per, true);
        LINX(TPLAN_LORA_EXPERTS, h, fe, h, fe / te, false, per, true);
        LINX(TPLAN_LORA_EXPERTS, fe, h, fe / te, h, true, per, true);
    }
#undef LIN
#undef LINX
    return n;
}

int tplan_block_linears(const tplan_model *m, int64_t tp,
                        tplan_linear out[TPLAN_LORA_NLINEAR])
{
    return tplan_layer_linears(m, false, tp, tp, 1, out);
}

double tplan_lora_linear_params(const tplan_linear *l, int64_t rank,
                                bool dora)
{
    /* A: in -> r, B: r -> out (PEFT LoraLayer.update_layer, no bias); a
     * rank holds the split side's share and all of the other. DoRA:
     * PEFT's lora_magnitude_vector, one per output feature
     * (peft/tuners/lora/dora.py, DoraLinearLayer.update_layer) */
    return l->count * ((double)rank * (l->in + l->out) + (dora ? l->out : 0.0));
}

double tplan_lora_layer_params(const tplan_model *m, bool moe, int64_t rank,
                               unsigned targets, bool dora, int64_t tp,
                               int64_t ep, double *experts)
{
    tplan_linear lin[TPLAN_LORA_NLINEAR];
    int n;
    double sum = 0.0, ex = 0.0;

    if (experts)
        *experts = 0.0;
    if (rank <= 0 || m->arch == TPLAN_ARCH_GENERIC)
        return 0.0;
    n = tplan_layer_linears(m, moe, tp, tp, ep, lin);
    for (int i = 0; i < n; i++) {
        double p;

        if (!(lin[i].target & targets))
            continue;
        p = tplan_lora_linear_params(&lin[i], rank, dora);
        sum += p;
        if (lin[i].expert)
            ex += p;
    }
    if (experts)
        *experts = ex;
    return sum;
}

double tplan_lora_block_params(const tplan_model *m, int64_t rank,
                               unsigned targets, int64_t tp)
{
    return tplan_lora_layer_params(m, false, rank, targets, false, tp, 1,
                                   NULL);
}

/* Dense and mixture-of-experts layers of the main stack */
static void layer_counts(const tplan_model *m, double *dense, double *moe)
{
    int64_t nm = tplan_model_moe(m) ? tplan_model_moe_layers(m, 0, m->layers)
                                    : 0;

    *moe = (double)nm;
    *dense = (double)(m->layers - nm);
}

int64_t tplan_lora_params(const tplan_model *m, int64_t rank,
                          unsigned targets, bool dora)
{
    double nd, nm;

    layer_counts(m, &nd, &nm);
    return llround(
        nd * tplan_lora_layer_params(m, false, rank, targets, dora, 1, 1,
                                     NULL) +
        (nm > 0 ? nm * tplan_lora_layer_params(m, true, rank, targets, dora,
                                               1, 1, NULL)
                : 0.0));
}

double tplan_lora_active_params(const tplan_model *m, int64_t rank,
                                unsigned targets, bool dora)
{
    double nd, nm, ex = 0.0, all = 0.0;

    layer_counts(m, &nd, &nm);
    if (nm > 0)
        all = tplan_lora_layer_params(m, true, rank, targets, dora, 1, 1, &ex);
    return nd * tplan_lora_layer_params(m, false, rank, targets, dora, 1, 1,
                                        NULL) +
           nm * (all - ex +
                 (m->experts > 0
                      ? ex * (double)m->top_k / (double)m->experts
                      : 0.0));
}

bool tplan_lora_targets_fit(const tplan_model *m, unsigned targets,
                            const char **why)
{
    bool mla = tplan_model_mla(m), moe = tplan_model_moe(m);
    double nd, nm;

    *why = NULL;
    if (targets != TPLAN_LORA_ALL) {
        if (mla && (targets & (TPLAN_LORA_Q | TPLAN_LORA_K | TPLAN_LORA_V)) &&
            !(targets & TPLAN_LORA_MLA))
            *why = "latent attention has no q, k, v projections (use mla: "
                   "q_a, q_b, kv_a, kv_b)";
        else if (!mla && (targets & TPLAN_LORA_MLA) &&
                 !(targets & (TPLAN_LORA_Q | TPLAN_LORA_K | TPLAN_LORA_V)))
            *why = "mla: the model has no latent attention";
        else if (!moe && (targets & (TPLAN_LORA_EXPERTS | TPLAN_LORA_ROUTER |
                                     TPLAN_LORA_SHARED)))
            *why = "experts, shared_experts, router: the model has no "
                   "mixture-of-experts layers";
        else if (moe && (targets & TPLAN_LORA_SHARED) && !m->shared_experts)
            *why = "shared_experts: the model has no shared experts";
        if (*why)
            return false;
    }
    layer_counts(m, &nd, &nm);
    if (tplan_lora_layer_params(m, false, 1, targets, false, 1, 1, NULL) *
                nd +
            (nm > 0 ? tplan_lora_layer_params(m, true, 1, targets, false, 1,
                                              1, NULL) *
                          nm
                    : 0.0) <=
        0.0) {
        *why = moe ? "no linear of the model is selected (an MoE layer's "
                     "MLP is experts, shared_experts and router)"
                   : "no linear of the model is selected";
        return false;
    }
    return true;
}

bool tplan_base_quantized(tplan_base_precision base)
{
    return base == TPLAN_BASE_INT8 || base == TPLAN_BASE_NF4 ||
           base == TPLAN_BASE_FP4;
}

double tplan_base_matrix_bytes(tplan_base_precision base, bool dq, double n,
                               double rows)
{
    double blocks;

    switch (base) {
    case TPLAN_BASE_INT8:
        /* LLM.int8() (Dettmers et al. 2022; bitsandbytes Int8Params): one
         * int8 per element and an fp32 absmax per output row (SCB) */
        return n + FP32 * rows;
    case TPLAN_BASE_NF4:
    case TPLAN_BASE_FP4:
        blocks = ceil(n / Q4_BLOCK);
        if (!dq)
            return ceil(n / 2.0) + FP32 * blocks;
        return ceil(n / 2.0) + blocks + FP32 * ceil(blocks / DQ_BLOCK) + FP32;
    default:
        return 2.0 * n;
    }
}

double tplan_base_elem_bytes(tplan_base_precision base, bool dq)
{
    if (!tplan_base_quantized(base))
        return 0.0;
    if (base == TPLAN_BASE_INT8)
        return 1.0;
    return 0.5 + (dq ? 1.0 / Q4_BLOCK + FP32 / (Q4_BLOCK * DQ_BLOCK)
                     : FP32 / Q4_BLOCK);
}

bool tplan_lora_targets_parse(const char *text, unsigned *mask)
{
    unsigned m = 0;
    const char *p = text;

    if (!text || !*text)
        return false;
    for (;;) {
        size_t len = strcspn(p, ",");
        int i = tplan_name_index(target_names, TPLAN_LORA_NTARGETS, p, len);
        bool known = i >= 0;

        if (len == 0)
            return false;
        if (known)
            m |= 1u << i;
        if (len == 4 && strncmp(p, "attn", 4) == 0) {
            m |= TPLAN_LORA_ATTN;
            known = true;
        } else if (len == 3 && strncmp(p, "mlp", 3) == 0) {
            m |= TPLAN_LORA_MLP;
            known = true;
        } else if (len == 10 && strncmp(p, "all-linear", 10) == 0) {
            m |= TPLAN_LORA_ALL;
            known = true;
        }
        if (!known)
            return false;
        if (!p[len])
            break;
        p += len + 1;
    }
    *mask = m;
    return true;
}

void tplan_lora_targets_format(unsigned mask, char *buf, size_t len)
{
    const char *alias[2] = {NULL, NULL};
    size_t used = 0;

    if (!len)
        return;
    mask &= TPLAN_LORA_ALL;
    if (mask == TPLAN_LORA_ALL) {
        snprintf(buf, len, "all-linear");
        return;
    }
    /* q, k, v, o is the whole attention of a standard-attention model */
    if ((mask & TPLAN_LORA_ATTN) == TPLAN_LORA_ATTN ||
        (mask & TPLAN_LORA_ATTN) == (TPLAN_LORA_ATTN & ~TPLAN_LORA_MLA)) {
        alias[0] = "attn";
        mask &= ~TPLAN_LORA_ATTN;
    }
    if ((mask & TPLAN_LORA_MLP) == TPLAN_LORA_MLP) {
        alias[1] = "mlp";
        mask &= ~TPLAN_LORA_MLP;
    }
    buf[0] = '\0';
    for (int i = 0; i < 2; i++)
        if (alias[i] && used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                     used ? "," : "", alias[i]);
    if (mask && used + 1 < len) {
        if (used)
            buf[used++] = ',';
        tplan_names_join(mask, target_names, TPLAN_LORA_NTARGETS, buf + used,
                         len - used);
    }
}

const char *tplan_base_precision_name(tplan_base_precision b)
{
    return (unsigned)b < TPLAN_BASE_COUNT ? base_names[b] : "?";
}

const char *tplan_offload_name(tplan_offload o)
{
    return (unsigned)o < TPLAN_OFFLOAD_COUNT ? offload_names[o] : "?";
}
