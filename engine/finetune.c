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
static const char *const target_names[TPLAN_LORA_NLINEAR] = {
    "q", "k", "v", "o", "gate", "up", "down"};

int tplan_block_linears(const tplan_model *m, int64_t tp,
                        tplan_linear out[TPLAN_LORA_NLINEAR])
{
    double t = (double)tp, h = (double)m->hidden, f = (double)m->ffn;
    double k = (double)m->kv_heads, kvd = (double)tplan_model_kv_dim(m);
    double qd = (double)tplan_model_q_dim(m);
    /* past k ranks each keeps one kv head's K and V (memory.c) */
    double kv_out = t > k ? kvd / k : kvd / t;
    int n = 0;

#define LIN(bit, fi, fo, di, dout, row)                                        \
    out[n++] = (tplan_linear){bit, di, dout, fi, fo, row}
    LIN(TPLAN_LORA_Q, h, qd, h, qd / t, false);
    LIN(TPLAN_LORA_K, h, kvd, h, kv_out, false);
    LIN(TPLAN_LORA_V, h, kvd, h, kv_out, false);
    LIN(TPLAN_LORA_O, qd, h, qd / t, h, true);
    if (m->mlp == TPLAN_MLP_SWIGLU)
        LIN(TPLAN_LORA_GATE, h, f, h, f / t, false);
    LIN(TPLAN_LORA_UP, h, f, h, f / t, false);
    LIN(TPLAN_LORA_DOWN, f, h, f / t, h, true);
#undef LIN
    return n;
}

double tplan_lora_block_params(const tplan_model *m, int64_t rank,
                               unsigned targets, int64_t tp)
{
    tplan_linear lin[TPLAN_LORA_NLINEAR];
    int n = tplan_block_linears(m, tp, lin);
    double r = (double)rank, sum = 0.0;

    if (rank <= 0 || m->arch == TPLAN_ARCH_GENERIC)
        return 0.0;
    for (int i = 0; i < n; i++)
        if (lin[i].target & targets)
            /* A: in -> r, B: r -> out (PEFT LoraLayer.update_layer, no
             * bias); a rank holds the split side's share and all of the
             * other */
            sum += r * (lin[i].in + lin[i].out);
    return sum;
}

int64_t tplan_lora_params(const tplan_model *m, int64_t rank,
                          unsigned targets)
{
    return llround(tplan_lora_block_params(m, rank, targets, 1) *
                   (double)m->layers);
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
        int i = tplan_name_index(target_names, TPLAN_LORA_NLINEAR, p, len);
        bool known = i >= 0;

        if (len == 0)
            return false;
        if (known)
            m |= 1u << i;
        if (len == 4 && strncmp(p, "attn", 4) == 0) {
            m |= TPLAN_LORA_ATTN;
            known = true;
        } else if (len == 3 && strncmp(p, "mlp", 3) == 0) {
            m |= TPLAN_LORA_GATE | TPLAN_LORA_UP | TPLAN_LORA_DOWN;
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
    if (!len)
        return;
    if ((mask & TPLAN_LORA_ALL) == TPLAN_LORA_ALL) {
        snprintf(buf, len, "all-linear");
        return;
    }
    if ((mask & TPLAN_LORA_ALL) == TPLAN_LORA_ATTN) {
        snprintf(buf, len, "attn");
        return;
    }
    tplan_names_join(mask, target_names, TPLAN_LORA_NLINEAR, buf, len);
}

const char *tplan_base_precision_name(tplan_base_precision b)
{
    return (unsigned)b < TPLAN_BASE_COUNT ? base_names[b] : "?";
}

const char *tplan_offload_name(tplan_offload o)
{
    return (unsigned)o < TPLAN_OFFLOAD_COUNT ? offload_names[o] : "?";
}
