/* Activation inventories: the megatron profile against Korthikanti et al.
 * 2022 (docs/MODEL.md section 3), the torch-cpu and torch profiles against the
 * measured PyTorch rows in tests/data/torch_cpu_gpt2.csv. */
#include "tplan_test.h"

#include <stdlib.h>

#include "activations.h"

#define MIB (1024.0 * 1024.0)

#ifndef TPLAN_TEST_DATA
#define TPLAN_TEST_DATA "tests/data"
#endif

/* A GPT-3-style model: GELU, f = 4h, LayerNorm, learned positions,
 * dropout 0.1 (what Korthikanti assumes). */
static void gpt_model(tplan_model *m, int64_t h, int64_t a)
{
    tplan_model_init(m);
    m->layers = 96;
    m->hidden = h;
    m->heads = a;
    m->kv_heads = a;
    m->ffn = 4 * h;
    m->vocab = 51200;
    m->max_seq = 1 << 20;
    m->dropout = 0.1;
}

static double megatron_layer(const tplan_model *m, int64_t t, bool sp,
                             tplan_recompute r, int64_t s, int64_t b)
{
    tplan_act_ctx ctx = {.profile = TPLAN_PROFILE_MEGATRON,
                         .cls = TPLAN_ACT_PURE16,
                         .recompute = r,
                         .attention = TPLAN_ATTN_EAGER,
                         .dropout = m->dropout > 0,
                         .tp = t,
                         .sp = sp};
    tplan_act_bytes act;

    tplan_act_per_sample(m, &ctx, s, &act);
    return act.layer * (double)b;
}

/* Every row of Korthikanti's Table 2 for several shapes, to the byte. */
static void test_megatron_table(void **state)
{
    static const struct {
        int64_t h, a, s, b, t;
    } shapes[] = {
        {12288, 96, 2048, 1, 8},
        {4096, 32, 4096, 2, 4},
        {2304, 24, 2048, 4, 2},
        {8192, 64, 1024, 3, 8},
    };

    (void)state;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        tplan_model m;
        double s = (double)shapes[i].s, b = (double)shapes[i].b;
        double h = (double)shapes[i].h, a = (double)shapes[i].a;
        double t = (double)shapes[i].t, sbh = s * b * h;
        int64_t S = shapes[i].s, B = shapes[i].b, T = shapes[i].t;

        gpt_model(&m, shapes[i].h, shapes[i].a);
        assert_near(megatron_layer(&m, 1, false, TPLAN_RECOMPUTE_NONE, S, B),
                    sbh * (34 + 5 * a * s / h), 0.5);
        assert_near(megatron_layer(&m, T, false, TPLAN_RECOMPUTE_NONE, S, B),
                    sbh * (10 + 24 / t + 5 * a * s / (h * t)), 0.5);
        assert_near(megatron_layer(&m, T, true, TPLAN_RECOMPUTE_NONE, S, B),
                    sbh / t * (34 + 5 * a * s / h), 0.5);
        assert_near(
            megatron_layer(&m, T, false, TPLAN_RECOMPUTE_SELECTIVE, S, B),
            sbh * (10 + 24 / t), 0.5);
        assert_near(
            megatron_layer(&m, T, true, TPLAN_RECOMPUTE_SELECTIVE, S, B),
            34 * sbh / t, 0.5);
        assert_near(megatron_layer(&m, T, false, TPLAN_RECOMPUTE_FULL, S, B),
                    2 * sbh, 0.5);
    }
}

/* The 175B derived figures (docs/MODEL.md section 3): per layer TP 552 MiB,
 * TP+SP 342 MiB, TP+SP+selective 102 MiB, full 48 MiB (rounded MiB). */
static void test_megatron_175b(void **state)
{
    tplan_model m;

    (void)state;
    gpt_model(&m, 12288, 96);
    assert_near(
        round(megatron_layer(&m, 8, false, TPLAN_RECOMPUTE_NONE, 2048, 1) /
              MIB),
        552, 0);
    assert_near(
        round(megatron_layer(&m, 8, true, TPLAN_RECOMPUTE_NONE, 2048, 1) / MIB),
        342, 0);
    assert_near(
        round(megatron_layer(&m, 8, true, TPLAN_RECOMPUTE_SELECTIVE, 2048, 1) /
              MIB),
        102, 0);
    assert_near(
        round(megatron_layer(&m, 8, false, TPLAN_RECOMPUTE_FULL, 2048, 1) /
              MIB),
        48, 0);
}

/* Megatron's general-f form with SP + selective: sbh(18 + 4f/h)/t. */
static void test_megatron_ffn_width(void **state)
{
    tplan_model m;

    (void)state;
    gpt_model(&m, 4096, 32);
    m.ffn = 11008;
    assert_near(megatron_layer(&m, 4, true, TPLAN_RECOMPUTE_SELECTIVE, 2048, 1),
                2048.0 * 4096 * (18 + 4.0 * 11008 / 4096) / 4, 0.5);
}

/* One parsed CSV row. */
typedef struct csv_row {
    char precision[16], ckpt[16], impl[16], gelu[16];
    int64_t h, a, s, b, v, kv, ffn;
    double p, layer_bytes, embed_bytes, head_bytes, loss_bytes, rope_bytes;
} csv_row;

#define GPT2_CSV TPLAN_TEST_DATA "/torch_cpu_gpt2.csv"
#define LLAMA_CSV TPLAN_TEST_DATA "/torch_cpu_llama.csv"
#define BERT_CSV TPLAN_TEST_DATA "/torch_cpu_bert.csv"

/* The files have no quoted fields: split on commas. Their first 23
 * columns are those of torch_cpu_gpt2.csv; torch_cpu_llama.csv adds
 * norm, pos, mlp and rope_bytes (column 27), torch_cpu_bert.csv norm, pos
 * and mlp. */
static int read_rows(const char *path, csv_row *rows, int cap)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    int n = 0;

    if (!f) {
        print_error("cannot open %s\n", path);
        return -1;
    }
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return -1;
    }
    while (n < cap && fgets(line, sizeof line, f)) {
        char *fld[32];
        int k = 0;

        for (char *p = strtok(line, ",\n"); p && k < 32;
             p = strtok(NULL, ",\n"))
            fld[k++] = p;
        if (k < 23)
            continue;
        csv_row *r = &rows[n++];

        snprintf(r->precision, sizeof r->precision, "%s", fld[1]);
        r->h = atoll(fld[2]);
        r->a = atoll(fld[3]);
        r->s = atoll(fld[4]);
        r->b = atoll(fld[5]);
        r->v = atoll(fld[6]);
        snprintf(r->ckpt, sizeof r->ckpt, "%s", fld[8]);
        r->p = atof(fld[9]);
        snprintf(r->impl, sizeof r->impl, "%s", fld[10]);
        snprintf(r->gelu, sizeof r->gelu, "%s", fld[11]);
        r->kv = atoll(fld[12]);
        r->ffn = atoll(fld[13]);
        r->layer_bytes = atof(fld[14]);
        r->embed_bytes = atof(fld[19]);
        r->head_bytes = atof(fld[20]);
        r->loss_bytes = atof(fld[21]);
        r->rope_bytes = k > 26 ? atof(fld[26]) : 0.0;
    }
    fclose(f);
    return n;
}

static tplan_act_class row_class(const csv_row *r)
{
    if (strcmp(r->precision, "fp32") == 0)
        return TPLAN_ACT_FP32;
    if (strcmp(r->precision, "bf16") == 0)
        return TPLAN_ACT_AMP;
    return TPLAN_ACT_PURE16;
}

typedef enum { STYLE_GPT2, STYLE_LLAMA, STYLE_BERT } csv_style;

static void predict_style(const csv_row *r, csv_style style,
                          tplan_profile prof, tplan_act_bytes *o)
{
    tplan_model m;
    tplan_act_ctx ctx = {0};

    tplan_model_init(&m);
    if (style == STYLE_LLAMA) {
        m.mlp = TPLAN_MLP_SWIGLU;
        m.norm = TPLAN_NORM_RMSNORM;
        m.pos = TPLAN_POS_ROTARY;
        m.bias = false;
        m.tied = false;
    } else if (style == STYLE_BERT) {
        m.arch = TPLAN_ARCH_ENCODER;
    }
    m.layers = 1;
    m.hidden = r->h;
    m.heads = r->a;
    m.kv_heads = r->kv;
    m.ffn = r->ffn;
    m.vocab = r->v;
    m.max_seq = r->s;
    m.dropout = r->p;
    m.gelu_python = strcmp(r->gelu, "hf_gelu_new") == 0;
    ctx.profile = prof;
    ctx.cls = row_class(r);
    ctx.recompute = strcmp(r->ckpt, "none") == 0 ? TPLAN_RECOMPUTE_NONE
                                                 : TPLAN_RECOMPUTE_FULL;
    ctx.attention = TPLAN_ATTN_EAGER;
    ctx.dropout = r->p > 0;
    ctx.tp = 1;
    ctx.sp = false;
    ctx.fused_loss = false;
    tplan_act_per_sample(&m, &ctx, r->s, o);
}

static void predict(const csv_row *r, tplan_profile prof, tplan_act_bytes *o)
{
    predict_style(r, STYLE_GPT2, prof, o);
}

/* torch-cpu covers every row measured with CPU dropout (impl "torch"),
 * with the fused tanh GELU or transformers' gelu_new (a Python formula,
 * the model's gelu_python): layer bytes within 1% (the inventory leaves
 * out 0-dim scalars of 2-4 bytes; everything else is exact), and the head
 * and loss tensors within 1%. docs/accuracy.md lists the rows it does not
 * cover. */
static void test_torch_cpu_rows(void **state)
{
    static csv_row rows[256];
    int n = read_rows(GPT2_CSV, rows, 256), covered = 0, expected = 0;

    (void)state;
    assert_true(n == 196);
    for (int i = 0; i < n; i++) {
        const csv_row *r = &rows[i];
        tplan_act_bytes o;

        if (strcmp(r->impl, "torch") ||
            (strcmp(r->gelu, "tanh") && strcmp(r->gelu, "hf_gelu_new")))
            continue;
        expected++;
        predict(r, TPLAN_PROFILE_TORCH_CPU, &o);
        assert_rel(o.layer * (double)r->b, r->layer_bytes, 0.01);
        assert_rel(o.last * (double)r->b, r->head_bytes + r->loss_bytes, 0.01);
        covered++;
    }
    assert_int_equal(covered, expected);
    assert_int_equal(covered, 156);
}

/* The GPU profile applies CUDA's rules; where CUDA and this CPU run agree
 * (no autocast, or a model cast to bf16, with 1-byte "native" dropout
 * masks), it must match the measurement: fp32 exactly up to scalars, pure
 * bf16 up to the fp32 layer-norm statistics CUDA keeps (8sb bytes). */
static void test_torch_native_rows(void **state)
{
    static csv_row rows[256];
    int n = read_rows(GPT2_CSV, rows, 256), covered = 0;

    (void)state;
    for (int i = 0; i < n; i++) {
        const csv_row *r = &rows[i];
        tplan_act_bytes o;

        if (strcmp(r->impl, "native") || strcmp(r->precision, "bf16") == 0)
            continue;
        predict(r, TPLAN_PROFILE_TORCH, &o);
        assert_rel(o.layer * (double)r->b, r->layer_bytes, 0.01);
        covered++;
    }
    assert_int_equal(covered, 28);
}

/* CUDA autocast differs from CPU autocast exactly as docs/MODEL.md section
 * 3.4 says: with 1-byte masks (CPU "native" rows), the fp32 softmax adds
 * 2as^2b. */
static void test_torch_cuda_autocast_softmax(void **state)
{
    static csv_row rows[256];
    int n = read_rows(GPT2_CSV, rows, 256), checked = 0;

    (void)state;
    for (int i = 0; i < n; i++) {
        const csv_row *r = &rows[i];
        tplan_act_bytes o;
        double extra;

        if (strcmp(r->impl, "native") || strcmp(r->precision, "bf16") ||
            strcmp(r->ckpt, "none"))
            continue;
        predict(r, TPLAN_PROFILE_TORCH, &o);
        extra = 2.0 * (double)(r->a * r->s * r->s * r->b);
        assert_rel(o.layer * (double)r->b, r->layer_bytes + extra, 0.001);
        checked++;
    }
    assert_int_equal(checked, 12);
}

/* Each layer and head row of the Llama and BERT files carries one 0-dim
 * scalar that no inventory counts (the float64 scale factor of the
 * attention scores, 8 bytes; the loss's 4-byte total weight): the
 * checks below allow 8 bytes a layer and 4 a loss, nothing more. */
#define SCALAR_SLACK 8.5

/* HF Llama eager (tests/data/torch_cpu_llama.csv, torch 1.13 on CPU): every
 * layer row to the byte, in fp32, bf16 autocast and pure bf16, with and
 * without checkpointing, kv heads 1 to 8. The embedding keeps the token
 * ids; the rotary cos and sin, computed once per step and shared by all
 * layers (2·s·d elements per micro-batch, whatever b), are left out. The
 * head is the final RMSNorm, the lm_head's input and the loss;
 * transformers' ForCausalLMLoss upcasts the logits (logits.float()), so in
 * pure bf16 the log-softmax is fp32, 2 bytes per logit more than the
 * torch-cpu rule, which follows the GPT-2 rows (measured without the
 * upcast): that difference is asserted exactly. */
static void test_torch_cpu_llama_rows(void **state)
{
    static csv_row rows[128];
    int n = read_rows(LLAMA_CSV, rows, 128);

    (void)state;
    assert_int_equal(n, 39);
    for (int i = 0; i < n; i++) {
        const csv_row *r = &rows[i];
        double b = (double)r->b, sbv = (double)(r->s * r->b * r->v);
        double upcast = strcmp(r->precision, "bf16_pure") == 0 ? 2 * sbv : 0;
        tplan_act_bytes o;

        predict_style(r, STYLE_LLAMA, TPLAN_PROFILE_TORCH_CPU, &o);
        assert_near(o.layer * b, r->layer_bytes, SCALAR_SLACK);
        assert_near(o.first * b, r->embed_bytes - r->rope_bytes, 0.5);
        assert_near(o.last * b + upcast, r->head_bytes + r->loss_bytes, 4.5);
    }
}

/* The same rows under the GPU profile: CUDA autocast changes nothing in HF
 * Llama's layer (RMSNorm works on an explicit fp32 copy, the softmax is
 * asked for in fp32, no dropout at p = 0), so the one difference is the
 * torch version: 1.13's mean saves its input, x² of each RMSNorm (fp32,
 * 8·sbh a layer); torch 2.2 and later do not (pytorch/pytorch PR
 * #109935), and `torch` models those. */
static void test_torch_llama_rows(void **state)
{
    static csv_row rows[128];
    int n = read_rows(LLAMA_CSV, rows, 128), checked = 0;

    (void)state;
    for (int i = 0; i < n; i++) {
        const csv_row *r = &rows[i];
        double sbh = (double)(r->s * r->b * r->h);
        tplan_act_bytes o;

        if (strcmp(r->ckpt, "none"))
            continue;
        predict_style(r, STYLE_LLAMA, TPLAN_PROFILE_TORCH, &o);
        assert_near(o.layer * (double)r->b + 8 * sbh, r->layer_bytes,
                    SCALAR_SLACK);
        checked++;
    }
    assert_int_equal(checked, 27);
}

/* HF BERT eager (tests/data/torch_cpu_bert.csv), CPU dropout rows. fp32
 * and pure bf16 to the byte. Under CPU bf16 autocast the extended
 * attention mask, made in the model's dtype (fp32), promotes the 16-bit
 * scores to fp32 before the softmax, so the softmax output, the dropout
 * mask (CPU F.dropout: the input's dtype) and the probabilities are fp32
 * and attn@V saves a 16-bit copy: 4·a·s²·b more than torch-cpu's rules,
 * which follow GPT-2's code (its causal mask keeps the scores' dtype).
 * That structural difference is asserted exactly rather than modelled.
 * The embedding: ids, LayerNorm input and statistics, dropout mask; the
 * position and token-type id buffers (8·s bytes each per micro-batch)
 * are left out. The MLM head: under autocast torch 1.13 on CPU refuses
 * layer_norm on a bf16 input with fp32 weights, so the script casts it to
 * fp32 as CUDA autocast's fp32 list does: 2·sbh more than torch-cpu's
 * 16-bit rule for that input. */
static void test_torch_cpu_bert_rows(void **state)
{
    static csv_row rows[128];
    int n = read_rows(BERT_CSV, rows, 128), covered = 0;

    (void)state;
    assert_int_equal(n, 27);
    for (int i = 0; i < n; i++) {
        const csv_row *r = &rows[i];
        double b = (double)r->b, s = (double)r->s;
        bool amp = strcmp(r->precision, "bf16") == 0;
        double core = amp && !strcmp(r->ckpt, "none")
                          ? 4.0 * (double)(r->a * r->s * r->s * r->b)
                          : 0.0;
        double sbh = (double)(r->s * r->b * r->h);
        tplan_act_bytes o;

        if (strcmp(r->impl, "torch"))
            continue;
        predict_style(r, STYLE_BERT, TPLAN_PROFILE_TORCH_CPU, &o);
        assert_near(o.layer * b + core, r->layer_bytes, SCALAR_SLACK);
        assert_near(o.first * b + 16 * s, r->embed_bytes, 0.5);
        assert_near(o.last * b + (amp ? 2 * sbh : 0.0),
                    r->head_bytes + r->loss_bytes, 4.5);
        covered++;
    }
    assert_int_equal(covered, 21);
}

/* BERT with 1-byte masks (the "native" rows) under the GPU profile: the
 * CUDA rules hold on CPU here, fp32 and bf16 autocast to the byte (under
 * autocast the fp32 mask gives the fp32 softmax CUDA's list gives), pure
 * bf16 up to the layer-norm statistics CUDA keeps in fp32 (8·sb). */
static void test_torch_bert_native_rows(void **state)
{
    static csv_row rows[128];
    int n = read_rows(BERT_CSV, rows, 128), checked = 0;

    (void)state;
    for (int i = 0; i < n; i++) {
        const csv_row *r = &rows[i];
        double ln16 = strcmp(r->precision, "bf16_pure") == 0
                          ? 8.0 * (double)(r->s * r->b)
                          : 0.0;
        tplan_act_bytes o;

        if (strcmp(r->impl, "native"))
            continue;
        predict_style(r, STYLE_BERT, TPLAN_PROFILE_TORCH, &o);
        assert_near(o.layer * (double)r->b - ln16, r->layer_bytes,
                    SCALAR_SLACK);
        checked++;
    }
    assert_int_equal(checked, 6);
}

/* Flash removes every s^2 term and keeps a 4-byte log-sum-exp per head. */
static void test_flash_has_no_s2(void **state)
{
    tplan_model m;
    tplan_act_ctx ctx = {.profile = TPLAN_PROFILE_TORCH,
                         .cls = TPLAN_ACT_AMP,
                         .recompute = TPLAN_RECOMPUTE_NONE,
                         .attention = TPLAN_ATTN_FLASH,
                         .dropout = true,
                         .tp = 1};
    tplan_act_bytes a1, a2;

    (void)state;
    gpt_model(&m, 1024, 16);
    tplan_act_per_sample(&m, &ctx, 1024, &a1);
    tplan_act_per_sample(&m, &ctx, 2048, &a2);
    assert_near(a2.layer, 2.0 * a1.layer, 1e-6);
    /* CUDA autocast, GELU, p > 0: 22sbh + 4sbf + 4asb + 16sb per sample. */
    assert_near(a1.layer, 1024.0 * (22 * 1024 + 4 * 4096 + 4 * 16 + 16), 0.5);
}

static tplan_act_bytes per_sample(const char *preset, tplan_profile prof,
                                  tplan_act_class cls, tplan_attention attn,
                                  int64_t seq)
{
    tplan_model m;
    tplan_act_ctx ctx = {.profile = prof,
                         .cls = cls,
                         .recompute = TPLAN_RECOMPUTE_NONE,
                         .attention = attn,
                         .tp = 1};
    tplan_act_bytes o;

    assert_int_equal(tplan_model_preset(preset, &m, NULL), TPLAN_OK);
    ctx.dropout = m.dropout > 0;
    tplan_act_per_sample(&m, &ctx, seq, &o);
    return o;
}

/* HF Llama eager under autocast (derived from the autograd rules, see
 * activations.c): RMSNorm keeps its fp32 input, rstd and x*rstd and each of
 * the five Linears after the norms saves its own 16-bit copy; q, k, v with
 * k and v expanded to all heads by repeat_kv, an fp32 softmax and its
 * 16-bit copy, SwiGLU's four f-wide tensors:
 * 34sbh + 8sbf + 6as^2b + 8sb per layer, whatever the kv heads. */
static void test_llama_eager_autocast(void **state)
{
    double s = 2048, h = 4096, f = 14336, a = 32, V = 128256;
    tplan_act_bytes o = per_sample("llama3-8b", TPLAN_PROFILE_TORCH,
                                   TPLAN_ACT_AMP, TPLAN_ATTN_EAGER, 2048);

    (void)state;
    assert_near(o.layer, s * (34 * h + 8 * f + 6 * a * s + 8), 0.5);
    /* the head: final RMSNorm (fp32 x, rstd, x*rstd), the lm_head's 16-bit
     * input, the fp32 log-softmax and the fp32 gradients into and out of
     * it at the loss's backward (12 bytes per logit), int64 targets */
    assert_near(o.last, s * (4 * h + 4 + 4 * h + 2 * h + 12 * V + 8), 0.5);
    /* a fused cross-entropy keeps the 16-bit logits and one fp32
     * log-sum-exp per token instead */
    {
        tplan_model m;
        tplan_act_ctx ctx = {.profile = TPLAN_PROFILE_TORCH,
                             .cls = TPLAN_ACT_AMP,
                             .attention = TPLAN_ATTN_EAGER,
                             .tp = 1,
                             .fused_loss = true};
        tplan_act_bytes fused;

        tplan_model_preset("llama3-8b", &m, NULL);
        tplan_act_per_sample(&m, &ctx, 2048, &fused);
        assert_near(fused.last, o.last - s * 10 * V + 4 * s, 0.5);
    }
    /* flash keeps K and V at the 8 kv heads and a log-sum-exp instead */
    o = per_sample("llama3-8b", TPLAN_PROFILE_TORCH, TPLAN_ACT_AMP,
                   TPLAN_ATTN_FLASH, 2048);
    assert_near(o.layer, s * (34 * h - 4 * h + 4 * 8 * 128 + 8 * f + 4 * a + 8),
                0.5);
}

/* Gemma 2 9B under the same rules: q, k and v expanded, and the attention
 * output are a*d = 4096 wide, not h = 3584, and the two post-norms keep
 * their fp32 inputs, rstd and x*rstd as the pre-norms do; the
 * soft-capped scores keep their 16-bit tanh output (2as^2b):
 * (34 - 8)sbh + 8 s b a d + 16sbh + 8sbf + 8as^2b + 16sb per layer. */
static void test_gemma2_head_dim_and_post_norms(void **state)
{
    double s = 2048, h = 3584, qd = 16 * 256, f = 14336, a = 16;
    tplan_act_bytes o = per_sample("gemma2-9b", TPLAN_PROFILE_TORCH,
                                   TPLAN_ACT_AMP, TPLAN_ATTN_EAGER, 2048);

    (void)state;
    assert_near(o.layer, s * (42 * h + 8 * qd + 8 * f + 8 * a * s + 16), 0.5);
}

/* BERT is post-LN with no final norm: its head is the MLM transform (dense,
 * GELU, LayerNorm) and its embedding has a LayerNorm. CUDA autocast. */
static void test_bert_head_and_embedding(void **state)
{
    double s = 512, h = 768, V = 30522;
    tplan_act_bytes o = per_sample("bert-base", TPLAN_PROFILE_TORCH,
                                   TPLAN_ACT_AMP, TPLAN_ATTN_FLASH, 512);

    (void)state;
    /* input ids, embedding norm input (fp32) and stats, 1-byte mask */
    assert_near(o.first, s * (8 + 4 * h + 8 + h), 0.5);
    /* transform input 2sbh, GELU input 2sbh, norm input in fp32 (layer_norm
     * is on the CUDA fp32 list) 4sbh and stats 8sb, decoder input 2sbh,
     * the loss 12sbV (log-softmax, its gradients in and out), targets 8sb */
    assert_near(o.last, s * (2 * h + 2 * h + 4 * h + 8 + 2 * h + 12 * V + 8),
                0.5);
}

/* HF's per-head q and k norms (Qwen3): the fp32 input, x*rstd back in the
 * input's dtype (weight * x.to(input_dtype)) and one fp32 rstd per head of
 * q. Under autocast q and k leave their projections in 16 bits, so x*rstd
 * is 2 bytes there, where a block norm on the fp32 residual keeps 4
 * (measured on an H200: tests/data/gpu/h200_validate.csv, Qwen3-0.6B). */
static void test_qk_norm_dtypes(void **state)
{
    static const struct {
        tplan_act_class cls;
        double in, xr;
    } want[] = {
        {TPLAN_ACT_FP32, 4, 4},
        {TPLAN_ACT_AMP, 4, 2},
        {TPLAN_ACT_PURE16, 4, 2},
    };
    double s = 1024, qd = 32 * 128, kvd = 8 * 128, a = 32;

    (void)state;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        tplan_model m;
        tplan_act_ctx ctx = {.profile = TPLAN_PROFILE_TORCH,
                             .cls = want[i].cls,
                             .attention = TPLAN_ATTN_FLASH,
                             .tp = 1};
        tplan_act_bytes plain, normed;

        tplan_model_preset("llama3-8b", &m, NULL);
        tplan_act_per_sample(&m, &ctx, (int64_t)s, &plain);
        m.qk_norm = true;
        tplan_act_per_sample(&m, &ctx, (int64_t)s, &normed);
        assert_near(normed.layer - plain.layer,
                    s * ((qd + kvd) * (want[i].in + want[i].xr) + 4 * a),
                    0.5);
    }
}

/* Recompute modules in the torch profile (docs/MODEL.md section 3.9),
 * Llama 3 8B, pure bf16, flash, eager RMSNorm: layernorm drops each of
 * the two norms' fp32 input copy (4 bytes), x*rstd and output (2 bytes
 * each: the residual dtype) and fp32 rstd per token, and keeps the input
 * as the checkpoint holds it (2 bytes): 2 x (4 + 2 + 2 - 2) = 12 bytes
 * per s h, 8 per token. moe_act and mla_up_proj change nothing on a
 * dense GQA model; mlp drops the SwiGLU rows: gate, up, silu out and
 * their product, 4 s f at 2 bytes. */
static void test_torch_rc_modules(void **state)
{
    tplan_model m;
    tplan_act_ctx ctx = {0};
    tplan_act_bytes base, x;
    double s = 4096, h = 4096, f = 14336;

    (void)state;
    assert_int_equal(tplan_model_preset("llama3-8b", &m, NULL), TPLAN_OK);
    ctx.profile = TPLAN_PROFILE_TORCH;
    ctx.cls = TPLAN_ACT_PURE16;
    ctx.recompute = TPLAN_RECOMPUTE_NONE;
    ctx.attention = TPLAN_ATTN_FLASH;
    ctx.tp = 1;
    ctx.moe_load = 1.0;
    tplan_act_per_sample(&m, &ctx, 4096, &base);
    ctx.rc_modules = TPLAN_RC_LAYERNORM;
    tplan_act_per_sample(&m, &ctx, 4096, &x);
    assert_near(base.layer - x.layer, 12 * s * h + 8 * s, 1.0);
    assert_near(base.last, x.last, 1e-6); /* the final norm is not theirs */
    ctx.rc_modules = TPLAN_RC_MOE_ACT | TPLAN_RC_SHARED_EXPERTS;
    tplan_act_per_sample(&m, &ctx, 4096, &x);
    assert_near(base.layer, x.layer, 1e-6);
    ctx.rc_modules = TPLAN_RC_MLP;
    tplan_act_per_sample(&m, &ctx, 4096, &x);
    assert_near(base.layer - x.layer, 4 * s * f * 2, 1.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_megatron_table),
        cmocka_unit_test(test_megatron_175b),
        cmocka_unit_test(test_megatron_ffn_width),
        cmocka_unit_test(test_torch_cpu_rows),
        cmocka_unit_test(test_torch_native_rows),
        cmocka_unit_test(test_torch_cuda_autocast_softmax),
        cmocka_unit_test(test_torch_cpu_llama_rows),
        cmocka_unit_test(test_torch_llama_rows),
        cmocka_unit_test(test_torch_cpu_bert_rows),
        cmocka_unit_test(test_torch_bert_native_rows),
        cmocka_unit_test(test_flash_has_no_s2),
        cmocka_unit_test(test_llama_eager_autocast),
        cmocka_unit_test(test_bert_head_and_embedding),
        cmocka_unit_test(test_qk_norm_dtypes),
        cmocka_unit_test(test_gemma2_head_dim_and_post_norms),
        cmocka_unit_test(test_torch_rc_modules),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
