/* Mixtures of experts, latent attention, windows, expert and context
 * parallelism (docs/MODEL.md sections 1.8 and 13): each figure below is
 * worked by hand from the shapes, not read back from the engine. */
#include "tplan_test.h"

#include "activations.h"
#include "flops.h"
#include "memory.h"
#include "model_fields.h"

/* DeepSeek-V3's parts (facts from the HF config, section 1.8): MLA per
 * layer q_a 7168x1536 + norm 1536 + q_b 1536x128x192 + kv_a 7168x576 +
 * norm 512 + kv_b 512x128x256 + o 128x128x7168 = 187,107,328; one
 * routed expert 3 x 7168 x 2048 = 44,040,192; router 7168 x 256. */
static void test_deepseek_parts(void **state)
{
    tplan_model m;
    tplan_param_count pc;

    (void)state;
    assert_int_equal(tplan_model_preset("deepseek-v3", &m, NULL), TPLAN_OK);
    tplan_model_params(&m, &pc);
    assert_int_equal(pc.layer_attn, 187107328);
    assert_int_equal(pc.layer_expert, 44040192);
    assert_int_equal(pc.layer_router, 7168 * 256);
    assert_int_equal(pc.layer_shared, 44040192);
    assert_int_equal(pc.moe_layers, 58);
    assert_int_equal(pc.dense_layers, 3);
    assert_int_equal(pc.layer_mlp, 3LL * 7168 * 18432);
    /* 671B (report section 4.2) */
    assert_int_equal(pc.total, 671026404352LL);
    /* active: all but 248 of 256 routed experts in 58 layers */
    assert_int_equal(pc.active, pc.total - 58LL * 248 * 44040192);
}

/* Mixtral 8x7B: per layer attention 4096 x 6144 + 4096 x 4096, 8
 * experts of 3 x 4096 x 14336, router 4096 x 8, two norms; untied. */
static void test_mixtral_by_hand(void **state)
{
    tplan_model m;
    tplan_param_count pc;
    int64_t layer = 4096LL * 6144 + 4096LL * 4096 + 8 * 3LL * 4096 * 14336 +
                    4096 * 8 + 2 * 4096;

    (void)state;
    assert_int_equal(tplan_model_preset("mixtral-8x7b", &m, NULL), TPLAN_OK);
    tplan_model_params(&m, &pc);
    assert_int_equal(pc.total, 32 * layer + 2LL * 32000 * 4096 + 4096);
    assert_int_equal(pc.total, 46702792704LL); /* HF safetensors */
    assert_int_equal(pc.active, pc.total - 32 * 6 * 3LL * 4096 * 14336);
}

/* Which layers are MoE: after moe_first_dense, every moe_every-th
 * (transformers: (i + 1) % decoder_sparse_step == 0). */
static void test_moe_layer_pattern(void **state)
{
    tplan_model m;
    tplan_err err;

    (void)state;
    assert_int_equal(tplan_model_preset("mixtral-8x7b", &m, NULL), TPLAN_OK);
    m.moe_every = 2; /* layers 1, 3, 5, ... */
    assert_int_equal(tplan_model_moe_layers(&m, 0, 32), 16);
    assert_int_equal(tplan_model_moe_layers(&m, 0, 4), 2);
    m.moe_first_dense = 3; /* then 3, 5, 7, ... */
    assert_int_equal(tplan_model_moe_layers(&m, 0, 32), 15);
    assert_int_equal(tplan_model_moe_layers(&m, 0, 3), 0);
    m.moe_first_dense = 32;
    assert_int_equal(tplan_model_validate(&m, &err), TPLAN_EINVAL);
    assert_string_equal(err.msg, "no layer is a mixture of experts "
                                 "(layers=32, moe_first_dense=32, "
                                 "moe_every=2)");
    m.moe_first_dense = 0;
    m.top_k = 9;
    assert_int_equal(tplan_model_validate(&m, &err), TPLAN_EINVAL);
    assert_string_equal(err.msg, "top_k must be in [1, experts] (top_k=9, "
                                 "experts=8)");
    /* the field table refuses what the model cannot hold */
    assert_int_equal(tplan_model_field_set(
                         &m, tplan_model_field_find("experts"), -1, &err),
                     TPLAN_EINVAL);
    assert_string_equal(err.msg, "experts must be in [0, 100000] (experts=-1)");
}

static void moe_cfg(tplan_config *c, int64_t gpus, int64_t ep)
{
    config_for(c, "mixtral-8x7b", "h100-sxm");
    c->gpus = gpus;
    c->ep = ep;
    c->seq = 4096;
    c->micro_batch = 1;
}

/* Memory per GPU falls with EP as the expert share predicts: routed
 * experts are 32 x 8 x 3 x 4096 x 14336 parameters; ep 8 keeps 1/8 of
 * them, the rest of the model stays whole. */
static void test_memory_falls_with_ep(void **state)
{
    tplan_config c;
    tplan_plan a, b;
    double experts = 32.0 * 8 * 3 * 4096 * 14336;

    (void)state;
    moe_cfg(&c, 8, 1);
    eval_ok(&c, &a);
    moe_cfg(&c, 8, 8);
    eval_ok(&c, &b);
    assert_int_equal(a.mem.experts_on_device, (int64_t)experts);
    assert_int_equal(b.mem.experts_on_device, (int64_t)(experts / 8));
    assert_int_equal(a.mem.params_on_device - b.mem.params_on_device,
                     (int64_t)(experts * 7 / 8));
    /* mixed-bf16: 2 bytes of weights, 2 of gradients, 12 of fp32 master
     * copy and Adam moments per parameter, none sharded (zero 0) */
    assert_near(a.mem.weights_bytes - b.mem.weights_bytes, experts * 7 / 8 * 2,
                2.0);
    assert_near(a.mem.optimizer_bytes - b.mem.optimizer_bytes,
                experts * 7 / 8 * 12, 2.0);
    /* ZeRO-1 shards the dense states over dp = 8, the experts' over the
     * expert-data-parallel group dp / ep = 1: the experts' states stay */
    moe_cfg(&c, 8, 8);
    c.zero = 1;
    eval_ok(&c, &b);
    {
        double dense = (double)(b.mem.params_on_device - (int64_t)(experts / 8));

        assert_near(b.mem.optimizer_bytes, dense * 12 / 8 + experts / 8 * 12,
                    4.0);
    }
}

/* EP validity (Megatron-LM: experts % ep == 0; world % (etp ep pp) ==
 * 0, etp = tp, i.e. ep divides dp x cp). */
static void test_ep_rules(void **state)
{
    tplan_config c;
    tplan_err err;

    (void)state;
    moe_cfg(&c, 8, 3);
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_EINVAL);
    assert_string_equal(err.msg, "ep must divide experts (experts=8, ep=3)");
    moe_cfg(&c, 8, 8);
    c.tp = 2;
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_EINVAL);
    assert_string_equal(err.msg, "ep must divide dp*cp (dp*cp=4, ep=8)");
    c.cp = 2;
    c.gpus = 32;
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_OK);
    config_for(&c, "llama3-8b", "h100-sxm");
    c.gpus = 8;
    c.ep = 2;
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_EINVAL);
    assert_string_equal(err.msg, "ep needs a mixture-of-experts model (ep=2, "
                                 "experts=0)");
}

/* Expert-tensor parallelism (issue 37): ETP 1 against TP 8 on 16 GPUs at
 * ep 2. Each GPU holds 8 / 2 = 4 experts a layer, whole at etp 1, an
 * eighth of each at etp 8 (the default, = tp): the routed experts'
 * weights per GPU differ 8 times and nothing else the GPU holds moves
 * (attention, router and embeddings split over tp as before). */
static void test_etp(void **state)
{
    tplan_config c;
    tplan_plan one, eight, dflt;
    tplan_err err;
    double experts = 32.0 * 8 * 3 * 4096 * 14336;

    (void)state;
    moe_cfg(&c, 16, 2);
    c.tp = 8;
    c.sp = true;
    eval_ok(&c, &dflt);
    c.etp = 8;
    eval_ok(&c, &eight);
    c.etp = 1;
    eval_ok(&c, &one);
    assert_int_equal(one.mem.experts_on_device, (int64_t)(experts / 2));
    assert_int_equal(eight.mem.experts_on_device, (int64_t)(experts / 16));
    assert_int_equal(one.mem.experts_on_device,
                     8 * eight.mem.experts_on_device);
    assert_int_equal(one.mem.params_on_device - one.mem.experts_on_device,
                     eight.mem.params_on_device - eight.mem.experts_on_device);
    /* etp 8 is the default: the same plan, bit for bit */
    assert_true(dflt.mem.total_bytes == eight.mem.total_bytes);
    assert_true(dflt.perf.step_time_s == eight.perf.step_time_s);
    /* the expert-data-parallel group: gpus / (pp etp ep) = 8 at etp 1 */
    c.etp = 1;
    assert_int_equal(tplan_config_edp(&c), 8);
    c.etp = 0;
    assert_int_equal(tplan_config_etp(&c), 8);
    assert_int_equal(tplan_config_edp(&c), 1);
    /* Megatron-Core's rules: etp x ep divides gpus / pp ... */
    c.ep = 8;
    c.etp = 4;
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_EINVAL);
    assert_string_equal(err.msg, "etp*ep must divide gpus/pp (gpus=16, "
                                 "pp=1, etp=4, ep=8)");
    /* ... which lets ep exceed dp x cp = 2 once etp is 2 */
    c.etp = 2;
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_OK);
    /* the experts' FFN splits over etp (14336 = 2^11 x 7) */
    c.ep = 1;
    c.etp = 7;
    c.gpus = 56;
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_OK);
    c.etp = 3;
    c.gpus = 24;
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_EINVAL);
    assert_string_equal(err.field, "etp");
    /* only experts have an expert-tensor degree to give */
    config_for(&c, "llama3-8b", "h100-sxm");
    c.gpus = 8;
    c.tp = 2;
    c.etp = 1;
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_EINVAL);
    assert_string_equal(err.msg, "etp needs a mixture-of-experts model "
                                 "(etp=1, tp=2, experts=0)");
    c.etp = 2; /* etp = tp reads back as given: no refusal */
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_OK);
}

/* Routed activations under etp: the FFN-wide rows keep their bytes, the
 * hidden-wide ones scale by etp / tp (the dispatcher gathers tokens over
 * the etp group), so etp 1 against tp 8 keeps fewer bytes, and etp 16 on
 * tp 8 more. */
static void test_etp_activations(void **state)
{
    tplan_config c;
    tplan_plan a, b, d;

    (void)state;
    moe_cfg(&c, 16, 1);
    c.tp = 8;
    c.sp = true;
    eval_ok(&c, &d);
    c.etp = 1;
    eval_ok(&c, &a);
    c.etp = 16;
    eval_ok(&c, &b);
    assert_true(a.mem.activations_bytes < d.mem.activations_bytes);
    assert_true(b.mem.activations_bytes > d.mem.activations_bytes);
    /* the etp group's collectives: none at etp 1 on an MoE layer's MLP
     * half, more over 16 GPUs than over 8 */
    assert_true(a.perf.tp_comm_s < d.perf.tp_comm_s);
    assert_true(b.perf.tp_comm_s > d.perf.tp_comm_s);
}

/* Activations fall with CP: a rank keeps the activations of seq/cp
 * tokens of each sequence, plus the ring's two K/V chunks in flight
 * (2 chunks x 2 x k x d x s/cp x 2 bytes). */
static void test_activations_fall_with_cp(void **state)
{
    tplan_config c;
    tplan_plan one, four;
    double kv = 2.0 * 8 * 128; /* Llama 3 8B: K and V of 8 heads of 128 */

    (void)state;
    config_for(&c, "llama3-8b", "h100-sxm");
    c.gpus = 8;
    c.micro_batch = 1;
    c.seq = 2048;
    eval_ok(&c, &one);
    c.seq = 8192;
    c.cp = 4;
    eval_ok(&c, &four);
    assert_near(four.mem.act_per_sample_bytes,
                one.mem.act_per_sample_bytes + 2.0 * kv * 2048 * 2, 1.0);
    assert_int_equal(four.dp, 2);
    /* the rules: 2 cp divides seq; flash attention */
    c.seq = 8190;
    {
        tplan_err err;

        assert_int_equal(tplan_config_validate(&c, &err), TPLAN_EINVAL);
        assert_string_equal(err.msg,
                            "2*cp must divide seq (seq=8190, cp=4)");
        c.seq = 8192;
        c.attention = TPLAN_ATTN_EAGER;
        assert_int_equal(tplan_config_validate(&c, &err), TPLAN_EINVAL);
        assert_string_equal(err.msg, "context parallelism needs flash "
                                     "attention (cp=4, attention=eager)");
    }
}

/* FLOPs from active parameters: Mixtral's forward per token is 2 FLOPs
 * per weight of attention, router and top_k experts in every layer, the
 * head, and the causal attention core 2 s a d (half of QK^T and AV). */
static void test_active_flops(void **state)
{
    tplan_model m;
    tplan_flops fl;
    double s = 4096, attn = 4096.0 * 6144 + 4096.0 * 4096;
    double mm = 32 * (attn + 4096.0 * 8 + 2 * 3 * 4096.0 * 14336);
    double core = 32 * 2.0 * s * 32 * (128 + 128) / 2.0;

    (void)state;
    assert_int_equal(tplan_model_preset("mixtral-8x7b", &m, NULL), TPLAN_OK);
    tplan_flops_eval(&m, 4096, 1.0, TPLAN_RECOMPUTE_NONE, TPLAN_ATTN_FLASH,
                     true, &fl);
    assert_near(fl.per_token, 3.0 * (2.0 * mm + core + 2.0 * 4096 * 32000),
                1.0);
    assert_near(fl.expert_hw, 3.0 * 2.0 * 32 * 2 * 3 * 4096.0 * 14336 * s,
                1e3);
}

/* A sliding window w < s: query i sees min(i, w) keys, on average
 * w - w (w - 1) / (2 s); Gemma 2 windows every other layer. */
static void test_window_flops(void **state)
{
    tplan_model m, full;
    tplan_flops a, b;
    double s = 8192, w = 4096, L = 42, a_d = 16 * 256;
    double core_full = 2.0 * s * a_d * 2 * L / 2.0; /* per token, causal */
    double keys = w - w * (w - 1) / (2 * s);
    double core_win = 2.0 * s * a_d * 2 *
                      (L / 2 * 0.5 + L / 2 * keys / s); /* 21 of 42 windowed */

    (void)state;
    assert_int_equal(tplan_model_preset("gemma2-9b", &m, NULL), TPLAN_OK);
    full = m;
    full.window = 0;
    m.window = 4096;
    m.global_every = 2;
    tplan_flops_eval(&m, 8192, 1.0, TPLAN_RECOMPUTE_NONE, TPLAN_ATTN_FLASH,
                     true, &a);
    tplan_flops_eval(&full, 8192, 1.0, TPLAN_RECOMPUTE_NONE, TPLAN_ATTN_FLASH,
                     true, &b);
    assert_near(b.per_token - a.per_token, 3.0 * (core_full - core_win), 1.0);
    /* no effect at s <= w */
    tplan_flops_eval(&m, 4096, 1.0, TPLAN_RECOMPUTE_NONE, TPLAN_ATTN_FLASH,
                     true, &a);
    tplan_flops_eval(&full, 4096, 1.0, TPLAN_RECOMPUTE_NONE, TPLAN_ATTN_FLASH,
                     true, &b);
    assert_near(a.per_token, b.per_token, 0.0);
}

/* An MoE layer's saved tensors: the dense layer's minus its MLP rows,
 * the experts' MLP rows per routed token (top_k x load), the router's
 * fp32 scores over the experts and int64 choices, the permuted input per
 * routed token, and for the routing weights' product the weights (fp32,
 * one per routed token: Megatron-Core applies them in the activation) in
 * the megatron profile, the experts' outputs (2 bytes an element: the
 * product after fc2 keeps them) in the torch profile. Mixed-bf16,
 * SwiGLU, flash, no dropout: the megatron MLP rows are the gate+up output
 * (2f, 2 bytes) and the SwiGLU output (f, 2 bytes). */
static void test_moe_activations(void **state)
{
    tplan_model m;
    tplan_act_ctx ctx = {0};
    tplan_act_bytes act;
    double s = 4096, h = 4096, f = 14336, routed = 2 * 1.25;

    (void)state;
    assert_int_equal(tplan_model_preset("mixtral-8x7b", &m, NULL), TPLAN_OK);
    ctx.profile = TPLAN_PROFILE_MEGATRON;
    ctx.cls = TPLAN_ACT_AMP;
    ctx.recompute = TPLAN_RECOMPUTE_NONE;
    ctx.attention = TPLAN_ATTN_FLASH;
    ctx.tp = 1;
    ctx.moe_load = 1.25;
    tplan_act_per_sample(&m, &ctx, 4096, &act);
    assert_near(act.moe_layer - act.layer,
                (routed - 1.0) * s * f * 3 * 2 /* expert MLP rows */
                    + s * 8 * 4                /* router scores, fp32 */
                    + routed * s * h * 2       /* permuted input */
                    + routed * s * 4,          /* routing weights, fp32 */
                1.0);
}

/* Recompute modules on DeepSeek-V3 (docs/MODEL.md section 3.9), megatron
 * profile, fp8, flash, t = 1, balanced load: s = 4096, h = 7168, a = 128,
 * q d_qk = 128 + 64, v d = 128, expert and shared width 2048, top 8.
 * layernorm drops the two norm outputs (fp8 matmul inputs, 1 byte);
 * mla_up_proj drops q (s a d_qk) and k, v (s a (d_qk + d_v)) at 2 bytes;
 * moe_act drops the routed experts' SwiGLU output (1 byte, top_k per
 * token). Korthikanti et al. 2022's terms, with MLA's shapes. */
static void ds_ctx(tplan_act_ctx *ctx)
{
    *ctx = (tplan_act_ctx){0};
    ctx->profile = TPLAN_PROFILE_MEGATRON;
    ctx->cls = TPLAN_ACT_FP8;
    ctx->recompute = TPLAN_RECOMPUTE_NONE;
    ctx->attention = TPLAN_ATTN_FLASH;
    ctx->tp = 1;
    ctx->moe_load = 1.0;
}

static void test_rc_modules_deepseek(void **state)
{
    tplan_model m;
    tplan_act_ctx ctx;
    tplan_act_bytes base, x;
    double s = 4096, h = 7168, a = 128, fe = 2048, f = 18432;

    (void)state;
    assert_int_equal(tplan_model_preset("deepseek-v3", &m, NULL), TPLAN_OK);
    ds_ctx(&ctx);
    tplan_act_per_sample(&m, &ctx, 4096, &base);
    ctx.rc_modules = TPLAN_RC_LAYERNORM;
    tplan_act_per_sample(&m, &ctx, 4096, &x);
    assert_near(base.layer - x.layer, 2 * s * h * 1, 1.0);
    assert_near(base.moe_layer - x.moe_layer, 2 * s * h * 1, 1.0);
    ctx.rc_modules = TPLAN_RC_MLA_UP_PROJ;
    tplan_act_per_sample(&m, &ctx, 4096, &x);
    assert_near(base.layer - x.layer,
                (s * a * 192 + s * a * (192 + 128)) * 2, 1.0);
    ctx.rc_modules = TPLAN_RC_MOE_ACT;
    tplan_act_per_sample(&m, &ctx, 4096, &x);
    assert_near(base.layer - x.layer, 0.0, 1e-6); /* dense layers keep it */
    assert_near(base.moe_layer - x.moe_layer, 8 * s * fe * 1, 1.0);
    /* moe: the MoE layer keeps its input only, so it is the dense layer
     * less its MLP rows (gate+up 2f at 2 bytes, SwiGLU output f at 1) */
    ctx.rc_modules = TPLAN_RC_MOE;
    tplan_act_per_sample(&m, &ctx, 4096, &x);
    assert_near(x.moe_layer, base.layer - (2 * s * f * 2 + s * f * 1), 1.0);
    /* shared_experts: the shared expert's rows (2 fe at 2, fe at 1) */
    ctx.rc_modules = TPLAN_RC_SHARED_EXPERTS;
    tplan_act_per_sample(&m, &ctx, 4096, &x);
    assert_near(base.moe_layer - x.moe_layer, 2 * s * fe * 2 + s * fe, 1.0);
    /* core_attn alone is today's selective */
    ctx.rc_modules = TPLAN_RC_CORE_ATTN;
    tplan_act_per_sample(&m, &ctx, 4096, &x);
    ctx.rc_modules = 0;
    ctx.recompute = TPLAN_RECOMPUTE_SELECTIVE;
    tplan_act_per_sample(&m, &ctx, 4096, &base);
    assert_near(x.layer, base.layer, 1e-6);
}

/* fp8 caching (DeepSeek-V3 report section 3.3.2) on the dense layer:
 * the three fp8 matmul inputs (qkv input h, fc1 input h, SwiGLU output
 * f) gain a 4-byte scale per 128 elements; the attention output's input
 * (a d_v) goes from 1 byte to E5M6's 1.5 plus the scale. In the MoE
 * layer the experts' SwiGLU inputs (2 fe per routed token and for the
 * shared expert) go from 2 bytes to 1 + 1/32. */
static void test_fp8_activations(void **state)
{
    tplan_model m;
    tplan_act_ctx ctx;
    tplan_act_bytes base, x;
    double s = 4096, h = 7168, a = 128, fe = 2048, f = 18432;
    double sc = 4.0 / 128.0, dense;

    (void)state;
    assert_int_equal(tplan_model_preset("deepseek-v3", &m, NULL), TPLAN_OK);
    ds_ctx(&ctx);
    tplan_act_per_sample(&m, &ctx, 4096, &base);
    ctx.fp8_act = true;
    tplan_act_per_sample(&m, &ctx, 4096, &x);
    dense = (s * h + s * h + s * f) * sc + s * a * 128 * (0.5 + sc);
    assert_near(x.layer - base.layer, dense, 1.0);
    /* MoE layer: attention and norms as the dense layer's (qkv input,
     * the norm output into router and shared fc1, attention output), the
     * routed (8) and shared (1) experts' SwiGLU inputs and outputs, the
     * permuted tokens (8 s h, 1 byte) */
    assert_near(x.moe_layer - base.moe_layer,
                (2 * s * h) * sc + s * a * 128 * (0.5 + sc) +
                    9 * 2 * s * fe * (1 + sc - 2) + 9 * s * fe * sc +
                    8 * s * h * sc,
                1.0);
}

/* The FLOPs the modules add: one more forward of their matmuls. */
static void test_rc_modules_flops(void **state)
{
    tplan_model m;
    tplan_flops base, x;
    double s = 4096, h = 7168, a = 128, fe = 2048, f = 18432;

    (void)state;
    assert_int_equal(tplan_model_preset("deepseek-v3", &m, NULL), TPLAN_OK);
    tplan_flops_eval(&m, 4096, 1.0, TPLAN_RECOMPUTE_NONE, TPLAN_ATTN_FLASH,
                     true, &base);
    x = base;
    tplan_flops_rc_modules(&m, 4096, 1.0,
                           TPLAN_RC_LAYERNORM | TPLAN_RC_MOE_ACT, &x);
    assert_near(x.hardware, base.hardware, 1e-6);
    x = base;
    tplan_flops_rc_modules(&m, 4096, 1.0, TPLAN_RC_MLA_UP_PROJ, &x);
    /* q_b 1536 x a x 192, kv_b 512 x a x (128 + 128), 61 layers */
    assert_near(x.hardware - base.hardware,
                2 * 61 * (1536 * a * 192 + 512 * a * 256) * s, 1e3);
    x = base;
    tplan_flops_rc_modules(&m, 4096, 1.0, TPLAN_RC_MOE | TPLAN_RC_MLP, &x);
    assert_near(x.hardware - base.hardware,
                2 * s *
                    (58 * (8 * 3 * h * fe + h * 256 + 3 * h * fe) +
                     3 * 3 * h * f),
                1e4);
    assert_near(x.expert_hw - base.expert_hw, 2 * s * 58 * 8 * 3 * h * fe,
                1e4);
    assert_near(x.model, base.model, 1e-6); /* model FLOPs unchanged */
}

/* The rules: Megatron-Core's (transformer_config.py) and fp8 caching. */
static void test_rc_modules_rules(void **state)
{
    tplan_config c;
    tplan_err err;
    unsigned mask;
    char buf[128];

    (void)state;
    assert_true(tplan_recompute_modules_parse("layernorm,mla_up_proj", &mask));
    assert_int_equal(mask, TPLAN_RC_LAYERNORM | TPLAN_RC_MLA_UP_PROJ);
    tplan_recompute_modules_format(mask, buf, sizeof buf);
    assert_string_equal(buf, "layernorm,mla_up_proj");
    assert_false(tplan_recompute_modules_parse("layernorm,attn", &mask));
    assert_false(tplan_recompute_modules_parse("layernorm,", &mask));
    assert_true(tplan_recompute_modules_parse("none", &mask));
    assert_int_equal(mask, 0);
    config_for(&c, "llama3-8b", "h100-sxm");
    c.recompute_modules = TPLAN_RC_MLA_UP_PROJ;
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_EINVAL);
    assert_string_equal(err.msg, "mla_up_proj needs latent attention "
                                 "(kv_lora_rank > 0) "
                                 "(recompute_modules=mla_up_proj)");
    c.recompute_modules = TPLAN_RC_MLP;
    c.recompute = TPLAN_RECOMPUTE_FULL;
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_EINVAL);
    c.recompute = TPLAN_RECOMPUTE_NONE;
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_OK);
    assert_int_equal(tplan_config_rc_modules(&c), TPLAN_RC_MLP);
    c.recompute_modules = 0;
    c.recompute = TPLAN_RECOMPUTE_SELECTIVE;
    assert_int_equal(tplan_config_rc_modules(&c), TPLAN_RC_CORE_ATTN);
    c.fp8_activations = true;
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_EINVAL);
    assert_string_equal(err.msg, "fp8_activations needs precision fp8 "
                                 "(precision=mixed-bf16)");
}

/* DeepSeek-V3's MTP module (report section 2.2, D = 1): one MoE block of
 * the main layers' shapes (attention 187,107,328 + 2 norms 2 x 7168 +
 * router 7168 x 256 + shared 44,040,192 + 256 routed of 44,040,192), the
 * 2h x h projection 2 x 7168^2 and 3 RMSNorms of 7168 (enorm, hnorm and
 * the head's); the total stays the main model's. */
static void test_mtp_params(void **state)
{
    tplan_model m;
    tplan_param_count pc;
    int64_t block = 187107328LL + 2 * 7168 + 7168 * 256 + 44040192LL +
                    256 * 44040192LL;

    (void)state;
    assert_int_equal(tplan_model_preset("deepseek-v3", &m, NULL), TPLAN_OK);
    assert_int_equal(m.mtp_layers, 1);
    tplan_model_params(&m, &pc);
    assert_int_equal(pc.total, 671026404352LL);
    assert_int_equal(pc.mtp, block + 2 * 7168LL * 7168 + 3 * 7168);
    /* the HF checkpoint's layer 61 less its embedding and head copies
     * (docs/MODEL.md section 1.8) */
    assert_int_equal(pc.mtp, 11610067968LL);
    assert_int_equal(pc.mtp_expert, 256 * 44040192LL);
    m.mtp_layers = 2;
    tplan_model_params(&m, &pc);
    assert_int_equal(pc.mtp, 2 * (block + 2 * 7168LL * 7168 + 3 * 7168));
    assert_int_equal(pc.total, 671026404352LL);
}

/* The MTP module's FLOPs per token, worked from Mixtral's shapes with one
 * module added (its last layer is MoE): the projection 2 x 2h x h, the
 * block (attention, router, top 2 of 8 experts), the head h x V once
 * more, forward + backward 3x; the causal core s a (d_qk + d_v) per token.
 * All of it is last-stage work (mtp_hw). */
static void test_mtp_flops(void **state)
{
    tplan_model m;
    tplan_flops a, b;
    double s = 4096, h = 4096, attn = 4096.0 * 6144 + 4096.0 * 4096;
    double blk = 2.0 * (attn + h * 8 + 2 * 3 * h * 14336) + 2.0 * 2 * h * h;
    double head = 2.0 * h * 32000, core = 2.0 * s * 32 * (128 + 128) / 2.0;

    (void)state;
    assert_int_equal(tplan_model_preset("mixtral-8x7b", &m, NULL), TPLAN_OK);
    tplan_flops_eval(&m, 4096, 1.0, TPLAN_RECOMPUTE_NONE, TPLAN_ATTN_FLASH,
                     true, &a);
    m.mtp_layers = 1;
    tplan_flops_eval(&m, 4096, 1.0, TPLAN_RECOMPUTE_NONE, TPLAN_ATTN_FLASH,
                     true, &b);
    /* tolerances: a few ulps of ~1e12-1e17 sums */
    assert_near(b.per_token - a.per_token, 3.0 * (blk + head + core), 1.0);
    assert_near(b.model - a.model, 3.0 * (blk + head + core) * s, 1e3);
    /* flash: 3.5 core passes in the hardware count */
    assert_near(b.mtp_hw, (3.0 * (blk + head) + 3.5 * core) * s, 1e3);
    assert_near(b.hardware - a.hardware, b.mtp_hw, 1e3);
    assert_near(b.expert_hw - a.expert_hw, 3.0 * 2.0 * 2 * 3 * h * 14336 * s,
                1e3);
    assert_near(a.mtp_hw, 0.0, 0.0);
}

/* The MTP module's states sit on the last stage: on one GPU (pp 1, ep 1,
 * zero 0, mixed bf16) they add its parameters, 2 bytes of weights, 2 of
 * gradients, 12 of master copy and Adam moments each; on 2 stages the
 * first stage does not change. */
static void test_mtp_memory(void **state)
{
    tplan_config c;
    tplan_plan a, b;
    tplan_param_count pc;

    (void)state;
    moe_cfg(&c, 1, 1);
    eval_ok(&c, &a);
    c.model.mtp_layers = 1;
    eval_ok(&c, &b);
    tplan_model_params(&c.model, &pc);
    assert_int_equal(b.mtp_params, pc.mtp);
    assert_int_equal(b.params, a.params);
    assert_int_equal(b.mem.params_on_device - a.mem.params_on_device, pc.mtp);
    assert_int_equal(b.mem.experts_on_device - a.mem.experts_on_device,
                     pc.mtp_expert);
    /* llround of each term: 1 byte each */
    assert_near(b.mem.grads_bytes - a.mem.grads_bytes, pc.mtp * 2.0, 1.0);
    assert_near(b.mem.optimizer_bytes - a.mem.optimizer_bytes, pc.mtp * 12.0,
                1.0);
    assert_true(b.mem.activations_bytes > a.mem.activations_bytes);
}

/* The MTP module runs on the last stage: on 2 stages of Mixtral's 32
 * layers (1F1B, 16 each) the last stage's share is half the layers' work
 * plus the head and the module, p x that over the whole the imbalance. */
static void test_mtp_last_stage(void **state)
{
    tplan_config c;
    tplan_plan p;
    tplan_flops fl;
    double layers, want;

    (void)state;
    moe_cfg(&c, 2, 1);
    c.pp = 2;
    c.model.mtp_layers = 1;
    eval_ok(&c, &p);
    tplan_flops_eval(&c.model, c.seq, 1.0, TPLAN_RECOMPUTE_NONE,
                     c.attention, true, &fl);
    assert_true(fl.mtp_hw > 0.0);
    layers = fl.hardware - fl.head_hw - fl.mtp_hw;
    want = 2.0 * (layers / 2.0 + fl.head_hw + fl.mtp_hw) / fl.hardware;
    /* a ratio of the same sums: rounding only */
    assert_near(p.perf.stage_imbalance, want, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deepseek_parts),
        cmocka_unit_test(test_mixtral_by_hand),
        cmocka_unit_test(test_moe_layer_pattern),
        cmocka_unit_test(test_memory_falls_with_ep),
        cmocka_unit_test(test_ep_rules),
        cmocka_unit_test(test_etp),
        cmocka_unit_test(test_etp_activations),
        cmocka_unit_test(test_activations_fall_with_cp),
        cmocka_unit_test(test_active_flops),
        cmocka_unit_test(test_window_flops),
        cmocka_unit_test(test_moe_activations),
        cmocka_unit_test(test_rc_modules_deepseek),
        cmocka_unit_test(test_fp8_activations),
        cmocka_unit_test(test_rc_modules_flops),
        cmocka_unit_test(test_rc_modules_rules),
        cmocka_unit_test(test_mtp_params),
        cmocka_unit_test(test_mtp_flops),
        cmocka_unit_test(test_mtp_memory),
        cmocka_unit_test(test_mtp_last_stage),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
