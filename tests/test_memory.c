/* Per-device memory: ZeRO, parallel division, pipeline in-flight
 * micro-batches, overheads, the largest micro-batch and fit advice. */
#include "tplan_test.h"

#include "engine_int.h"
#include "memory.h"
#include "plan.h"

#define GB  1e9
#define GIB (1024.0 * 1024.0 * 1024.0)

/* The ZeRO paper's example (Rajbhandari et al. 2020, Figure 1): a 7.5B
 * model, mixed precision with Adam, 64 A100s, activations nil (seq 1,
 * micro-batch 1). */
static void zero_paper_config(tplan_config *c)
{
    memset(c, 0, sizeof *c);
    tplan_model_init(&c->model);
    c->model.arch = TPLAN_ARCH_GENERIC;
    c->model.generic_params = 7500000000LL;
    tplan_gpu_lookup("a100-80g", &c->gpu, NULL);
    tplan_config_init(c);
    c->seq = 1;
    c->micro_batch = 1;
    c->gpus = 64;
    c->precision = TPLAN_PREC_MIXED_FP16;
    c->optimizer = TPLAN_OPT_ADAM;
}

/* Rajbhandari et al. 2020 (ZeRO), Figure 1: Psi = 7.5B, d_p = 64, mixed
 * precision Adam (K = 12): 120 / 31.4 / 16.6 / 1.9 GB for stages 0-3. */
static void test_zero_paper(void **state)
{
    static const double gb[] = {120.0, 31.4, 16.6, 1.9};
    tplan_config c;
    tplan_plan p;

    (void)state;
    zero_paper_config(&c);
    for (int z = 0; z <= 3; z++) {
        double states;

        c.zero = z;
        eval_ok(&c, &p);
        states = (double)(p.mem.weights_bytes + p.mem.grads_bytes +
                          p.mem.optimizer_bytes);
        assert_near(round(states / GB * 10) / 10, gb[z], 1e-9);
    }
}

/* The GPU workshop guide (docs/MODEL.md section 4.4): Llama 3.1 8B in fp32
 * with Adam needs 16N of model states (119.2 GiB at N = 8.0B) and cannot
 * fit one 80 GB A100 at any batch size. */
static void test_reference_case_one_gpu(void **state)
{
    tplan_config c;
    tplan_plan p;
    int64_t n;

    (void)state;
    config_for(&c, "llama3-8b", "a100-80g");
    c.precision = TPLAN_PREC_FP32;
    c.optimizer = TPLAN_OPT_ADAM;
    c.seq = 2048;
    eval_ok(&c, &p);
    n = p.params;
    assert_int_equal(p.mem.weights_bytes, 4 * n);
    assert_int_equal(p.mem.grads_bytes, 4 * n);
    assert_int_equal(p.mem.optimizer_bytes, 8 * n);
    /* the usable memory is the capacity less the 10% reserve */
    assert_int_equal(p.mem.usable_bytes,
                     (int64_t)floor(0.9 * (double)c.gpu.memory_bytes));
    assert_false(p.mem.fits);
    assert_int_equal(p.max_micro_batch, 0);
    assert_true(p.n_warnings >= 2);
    assert_non_null(strstr(p.warnings[0], "does not fit: model states"));
    /* The advice names the changes that make it fit, on this GPU first
     * (ZeRO-Offload: 8 + 4 bytes per parameter leave the GPU), then more
     * GPUs with ZeRO-3. */
    assert_true(strncmp(p.warnings[1], "would fit with offload_optimizer=cpu:",
                        37) == 0);
    {
        bool more_gpus = false;

        for (int i = 2; i < p.n_warnings; i++)
            more_gpus = more_gpus ||
                        strncmp(p.warnings[i], "would fit with gpus=4, zero=3:",
                                30) == 0;
        assert_true(more_gpus);
    }
}

/* The same run with ZeRO-3 over 8 GPUs fits; its largest micro-batch is
 * the guide's b_max = floor((M*0.9 - 16N/D - overheads) / per-sample
 * activations), with the torch profile's Llama inventory written out here
 * by hand (fp32, flash, no dropout; see activations.c). */
static void test_reference_case_zero3(void **state)
{
    tplan_config c;
    tplan_plan p;
    double s = 2048, h = 4096, f = 14336, a = 32, kd = 8 * 128, V = 128256;
    double L = 32, n, layer, first, last, usable, fixed, gather;

    (void)state;
    config_for(&c, "llama3-8b", "a100-80g");
    c.precision = TPLAN_PREC_FP32;
    c.optimizer = TPLAN_OPT_ADAM;
    c.seq = 2048;
    c.gpus = 8;
    c.zero = 3;
    eval_ok(&c, &p);
    n = (double)p.params;
    /* per layer: norm inputs 8sh, x*rstd 8sh, outputs 8sh, q 4sh, k and v
     * 8s*kd, attention output 4sh, SwiGLU 16sf, log-sum-exp 4as, rstd 8s */
    layer = s * (32 * h + 8 * kd + 16 * f + 4 * a + 8);
    first = 8 * s;                       /* token ids */
    last = s * (12 * h + 4 + 12 * V + 8); /* norm, loss */
    gather = 2 * 4 * V * h; /* DeepSpeed: largest layer (the embedding) */
    usable = floor((double)c.gpu.memory_bytes * 0.9);
    fixed = 16 * n / 8 + 1000.0 * 1024 * 1024 + gather;
    assert_near(p.mem.act_per_sample_bytes, L * layer + first + last, 1.0);
    assert_true(p.mem.fits);
    assert_int_equal(
        p.max_micro_batch,
        (int64_t)floor((usable - fixed) / (L * layer + first + last)));
    assert_true(p.max_micro_batch >= 1);
    assert_int_equal(p.micro_batch, p.max_micro_batch);
    assert_int_equal(p.n_warnings, 0);
}

/* The largest micro-batch fits and one more does not, across shapes. */
static void test_max_batch_is_tight(void **state)
{
    static const struct {
        const char *model, *gpu;
        int64_t gpus, tp, pp, accum;
        int zero;
        tplan_recompute r;
    } cases[] = {
        {"gpt2", "a100-40g", 1, 1, 1, 1, 0, TPLAN_RECOMPUTE_NONE},
        {"llama2-7b", "h100-sxm", 8, 1, 1, 1, 3, TPLAN_RECOMPUTE_SELECTIVE},
        {"llama3-70b", "h100-sxm", 64, 8, 4, 16, 1, TPLAN_RECOMPUTE_FULL},
        {"bert-large", "v100-16g", 4, 1, 1, 1, 2, TPLAN_RECOMPUTE_NONE},
        {"gpt3-175b", "a100-80g", 1024, 8, 16, 64, 1,
         TPLAN_RECOMPUTE_SELECTIVE},
    };

    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tplan_config c;
        tplan_plan p;
        int64_t bmax;

        config_for(&c, cases[i].model, cases[i].gpu);
        c.gpus = cases[i].gpus;
        c.tp = cases[i].tp;
        c.pp = cases[i].pp;
        c.accum = cases[i].accum;
        c.zero = cases[i].zero;
        c.recompute = cases[i].r;
        eval_ok(&c, &p);
        bmax = p.max_micro_batch;
        assert_true(bmax >= 1);
        c.micro_batch = bmax;
        eval_ok(&c, &p);
        assert_true(p.mem.fits);
        assert_true(p.mem.total_bytes <= p.mem.usable_bytes);
        c.micro_batch = bmax + 1;
        eval_ok(&c, &p);
        assert_false(p.mem.fits);
    }
}

/* 1F1B: the first stage holds min(p, m) micro-batches of its L/p layers;
 * interleaving multiplies by 1 + (p-1)/(p v) (Korthikanti 2022 4.2.3). */
static void test_pipeline_inflight(void **state)
{
    static const struct {
        int64_t pp, vpp, accum;
        double inflight;
    } cases[] = {
        {8, 1, 16, 8.0},
        {8, 1, 4, 4.0},
        {8, 2, 16, 8.0 * (1.0 + 7.0 / 16.0)},
        {4, 3, 32, 4.0 * (1.0 + 3.0 / 12.0)},
    };

    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tplan_config c;
        tplan_plan p;

        config_for(&c, "gpt3-175b", "a100-80g");
        c.profile = TPLAN_PROFILE_MEGATRON;
        c.attention = TPLAN_ATTN_EAGER;
        c.gpus = 8 * cases[i].pp;
        c.tp = 8;
        c.pp = cases[i].pp;
        c.vpp = cases[i].vpp;
        c.accum = cases[i].accum;
        c.sp = true;
        c.recompute = TPLAN_RECOMPUTE_SELECTIVE;
        c.micro_batch = 1;
        eval_ok(&c, &p);
        assert_int_equal(p.mem.stage, TPLAN_STAGE_FIRST);
        assert_near(p.mem.inflight, cases[i].inflight, 1e-12);
        /* per layer 34sbh/t (TP+SP+selective) plus the embedding's 1-byte
         * dropout mask sbh/t, both times the micro-batches in flight */
        assert_near(p.mem.act_per_sample_bytes,
                    cases[i].inflight * 2048.0 * 12288 / 8 *
                        (34.0 * 96 / (double)cases[i].pp + 1),
                    1.0);
    }
}

/* Tensor parallelism splits matmuls and the vocabulary, replicates norms. */
static void test_tensor_parallel_params(void **state)
{
    tplan_config c;
    tplan_plan p;
    double h = 4096, f = 11008, V = 32000, L = 32, t = 2;

    (void)state;
    config_for(&c, "llama2-7b", "h100-sxm");
    c.gpus = 2;
    c.tp = 2;
    c.micro_batch = 1;
    eval_ok(&c, &p);
    assert_int_equal(p.mem.params_on_device,
                     (int64_t)(L * ((4 * h * h + 3 * h * f) / t + 2 * h) +
                               2 * V * h / t + h));
    /* mixed-bf16 AdamW: 2 + 2 + (4 + 8) bytes per parameter held */
    assert_int_equal(p.mem.weights_bytes, 2 * p.mem.params_on_device);
    assert_int_equal(p.mem.optimizer_bytes, 12 * p.mem.params_on_device);
}

/* Precision recipes and optimizers as bytes per parameter (docs/MODEL.md 2). */
static void test_bytes_per_param(void **state)
{
    static const struct {
        tplan_precision prec;
        tplan_optimizer opt;
        double w, g, o;
    } cases[] = {
        {TPLAN_PREC_FP32, TPLAN_OPT_ADAMW, 4, 4, 8},
        {TPLAN_PREC_FP32, TPLAN_OPT_SGD, 4, 4, 0},
        {TPLAN_PREC_FP32, TPLAN_OPT_SGD_MOMENTUM, 4, 4, 4},
        {TPLAN_PREC_FP32, TPLAN_OPT_ADAGRAD, 4, 4, 4},
        {TPLAN_PREC_FP32, TPLAN_OPT_RMSPROP, 4, 4, 4},
        {TPLAN_PREC_MIXED_BF16, TPLAN_OPT_ADAM, 2, 2, 12},
        {TPLAN_PREC_MIXED_FP16, TPLAN_OPT_LION, 2, 2, 8},
        {TPLAN_PREC_BF16, TPLAN_OPT_ADAMW, 2, 2, 4},
        {TPLAN_PREC_MIXED_BF16, TPLAN_OPT_ADAMW_8BIT, 2, 2, 6},
        {TPLAN_PREC_BF16, TPLAN_OPT_ADAMW_8BIT, 2, 2, 2},
        {TPLAN_PREC_AMP_BF16, TPLAN_OPT_ADAMW, 4, 4, 8},
        {TPLAN_PREC_FP8, TPLAN_OPT_ADAMW, 2, 2, 12},
        {TPLAN_PREC_FP32, TPLAN_OPT_ADAFACTOR, 4, 4, 4},
        {TPLAN_PREC_MIXED_BF16, TPLAN_OPT_ADAGRAD, 2, 2, 8},
    };

    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const tplan_precision_info *pi = tplan_precision_get(cases[i].prec);

        assert_near(pi->weight_bytes, cases[i].w, 0);
        assert_near(pi->grad_bytes, cases[i].g, 0);
        assert_near(
            tplan_optimizer_bytes_per_param(cases[i].prec, cases[i].opt),
            cases[i].o, 0);
    }
}

/* Autocast keeps 16-bit copies of the matmul weights (2 bytes each; the
 * csv's layer_param_copy_bytes = 2(4h^2 + 2hf) per GPT-2 layer). */
static void test_autocast_weight_copies(void **state)
{
    tplan_config c;
    tplan_plan p;
    double h = 768, f = 3072, V = 50257;

    (void)state;
    config_for(&c, "gpt2", "a100-40g");
    c.precision = TPLAN_PREC_AMP_BF16;
    c.micro_batch = 1;
    eval_ok(&c, &p);
    assert_int_equal(p.mem.work_copy_bytes,
                     (int64_t)(2 * (12 * (4 * h * h + 2 * h * f) + V * h)));
    assert_int_equal(p.mem.weights_bytes, 4 * p.params + p.mem.work_copy_bytes);
}

/* ZeRO-3 keeps the largest gathered layer live: DeepSpeed's estimator
 * counts 4 bytes per parameter of it (16-bit weights and gradients). */
static void test_zero3_gather(void **state)
{
    tplan_config c;
    tplan_plan p;

    (void)state;
    config_for(&c, "llama2-7b", "h100-sxm");
    c.gpus = 8;
    c.zero = 3;
    c.micro_batch = 1;
    eval_ok(&c, &p);
    /* the largest unit is a block: 4h^2 + 3hf + 2h > V*h */
    assert_int_equal(p.mem.gather_bytes,
                     4 * (4 * 4096LL * 4096 + 3 * 4096LL * 11008 + 2 * 4096));
    c.gpus = 1;
    eval_ok(&c, &p);
    assert_int_equal(p.mem.gather_bytes, 0);
}

/* A generic model: parameters plus activation bytes per sample. */
static void test_generic_model(void **state)
{
    tplan_config c;
    tplan_plan p;

    (void)state;
    config_for(&c, "resnet50", "v100-16g");
    c.seq = 1;
    c.precision = TPLAN_PREC_AMP_FP16;
    c.optimizer = TPLAN_OPT_SGD_MOMENTUM;
    c.micro_batch = 64;
    eval_ok(&c, &p);
    assert_near(p.mem.act_per_sample_bytes, 85909504.0 / 2, 0);
    assert_int_equal(p.mem.activations_bytes, 64 * 85909504LL / 2);
    assert_int_equal(p.mem.optimizer_bytes, 4 * 25557032LL);
}

/* Adafactor as Hugging Face runs it (factored, no first moment): a row
 * and a column statistic per matrix as the device holds it, a full one
 * per vector element, 4 bytes each (halved by the pure-bf16 recipe, as
 * every state); written out by hand from the shapes. */
static void test_adafactor_factored(void **state)
{
    tplan_config c;
    tplan_plan p;
    double h = 4096, f = 11008, V = 32000, L = 32, t = 2, kvd = 4096;

    (void)state;
    config_for(&c, "llama2-7b", "a100-80g");
    c.precision = TPLAN_PREC_BF16;
    c.optimizer = TPLAN_OPT_ADAFACTOR;
    c.micro_batch = 1;
    eval_ok(&c, &p);
    /* q, k, v, o: h + h each; gate, up, down: f + h; two norms; the
     * embedding and the untied head V + h; the final norm: 2,836,992 */
    assert_int_equal(p.mem.optimizer_bytes,
                     (int64_t)(2 * (L * (4 * (h + h) + 3 * (f + h) + 2 * h) +
                                    2 * (V + h) + h)));
    assert_int_equal(p.mem.optimizer_bytes, 2 * 2836992LL);
    /* tp 2: column-parallel q, k, v, gate, up hold half their outputs,
     * row-parallel o and down half their inputs, the vocabulary halves */
    c.gpus = 2;
    c.tp = 2;
    eval_ok(&c, &p);
    assert_int_equal(
        p.mem.optimizer_bytes,
        (int64_t)(2 * (L * ((h / t + h) + 2 * (kvd / t + h) + (h + h / t) +
                            2 * (f / t + h) + (h + f / t) + 2 * h) +
                       2 * (V / t + h) + h)));
    /* mixed-bf16 adds the fp32 master copy of every parameter held; ZeRO-1
     * over dp 2 halves both */
    c.tp = 1;
    c.zero = 1;
    c.precision = TPLAN_PREC_MIXED_BF16;
    eval_ok(&c, &p);
    assert_int_equal(p.mem.optimizer_bytes,
                     (4 * 6738415616LL + 4 * 2836992LL) / 2);
    /* GPT-2 in fp32: learned positions are a matrix (1024 + 768), the head
     * is tied, and the biases and LayerNorms are vectors: 12 layers of
     * 4 (768 + 768) + 2 (3072 + 768) statistics, the token and position
     * tables, and 124,439,808 - 124,318,464 = 121,344 vector elements */
    config_for(&c, "gpt2", "a100-80g");
    c.precision = TPLAN_PREC_FP32;
    c.optimizer = TPLAN_OPT_ADAFACTOR;
    c.micro_batch = 1;
    eval_ok(&c, &p);
    assert_int_equal(p.mem.optimizer_bytes,
                     4 * (12 * (4 * 1536 + 2 * 3840) + (50257 + 768) +
                          (1024 + 768) + 121344));
    /* unfactored: 4 bytes per parameter; a generic model, whose shapes are
     * unknown, keeps that bound under the factored one too */
    c.optimizer = TPLAN_OPT_ADAFACTOR_UNFACTORED;
    eval_ok(&c, &p);
    assert_int_equal(p.mem.optimizer_bytes, 4 * 124439808LL);
    config_for(&c, "resnet50", "a100-80g");
    c.seq = 1;
    c.precision = TPLAN_PREC_FP32;
    c.optimizer = TPLAN_OPT_ADAFACTOR;
    c.micro_batch = 1;
    eval_ok(&c, &p);
    assert_int_equal(p.mem.optimizer_bytes, 4 * 25557032LL);
}

/* ZeRO shards over the data-parallel degree, not over all GPUs: llama2-70b
 * with tp 8, pp 2 on 64 GPUs has dp 4. The first stage holds 40 layers of
 * (GQA attention + SwiGLU)/t + norms and the vocabulary-parallel
 * embedding. */
static void test_zero_over_dp_with_tp_pp(void **state)
{
    tplan_config c;
    tplan_memory m;
    double h = 8192, f = 28672, V = 32000, kd = 8 * 128, t = 8;
    double layer = (h * (h + 2 * kd) + h * h + 3 * h * f) / t + 2 * h;
    double first = 40 * layer + V * h / t;
    double last = 40 * layer + h + V * h / t; /* final norm, untied head */

    (void)state;
    config_for(&c, "llama2-70b", "h100-sxm");
    c.gpus = 64;
    c.tp = 8;
    c.pp = 2;
    c.accum = 8;
    for (int z = 0; z <= 3; z++) {
        c.zero = z;
        tplan_memory_eval_stage(&c, TPLAN_STAGE_FIRST, 1, &m);
        assert_int_equal(m.params_on_device, (int64_t)first);
        assert_near((double)m.weights_bytes, 2 * first / (z >= 3 ? 4 : 1), 1);
        assert_near((double)m.grads_bytes, 2 * first / (z >= 2 ? 4 : 1), 1);
        assert_near((double)m.optimizer_bytes, 12 * first / (z >= 1 ? 4 : 1),
                    1);
        tplan_memory_eval_stage(&c, TPLAN_STAGE_LAST, 1, &m);
        assert_int_equal(m.params_on_device, (int64_t)last);
    }
}

/* A tied head keeps its own copy of the embedding on the last stage when
 * the embedding is on another (Megatron); one stage holds it once. */
static void test_tied_head_copy(void **state)
{
    tplan_config c;
    tplan_memory m;
    double h = 768, V = 50257, layer = 7087872;

    (void)state;
    config_for(&c, "gpt2", "a100-40g");
    c.gpus = 2;
    c.pp = 2;
    c.accum = 2;
    tplan_memory_eval_stage(&c, TPLAN_STAGE_LAST, 1, &m);
    assert_int_equal(m.params_on_device, (int64_t)(6 * layer + 2 * h + V * h));
    tplan_memory_eval_stage(&c, TPLAN_STAGE_FIRST, 1, &m);
    assert_int_equal(m.params_on_device,
                     (int64_t)(6 * layer + V * h + 1024 * h));
    c.gpus = 1;
    c.pp = 1;
    c.accum = 1;
    tplan_memory_eval_stage(&c, TPLAN_STAGE_ONLY, 1, &m);
    assert_int_equal(m.params_on_device, 124439808);
}

/* The last stage runs each micro-batch's backward at once (one in flight)
 * and holds the logits; the first holds min(p, m) micro-batches. */
static void test_last_stage_inflight(void **state)
{
    tplan_config c;
    tplan_memory m;
    double s = 2048, h = 12288, t = 8, V = 50257;

    (void)state;
    config_for(&c, "gpt3-175b", "a100-80g");
    c.profile = TPLAN_PROFILE_MEGATRON;
    c.attention = TPLAN_ATTN_EAGER;
    c.gpus = 64;
    c.tp = 8;
    c.pp = 8;
    c.sp = true;
    c.accum = 16;
    c.recompute = TPLAN_RECOMPUTE_SELECTIVE;
    tplan_memory_eval_stage(&c, TPLAN_STAGE_LAST, 1, &m);
    assert_near(m.inflight, 1.0, 0);
    /* 12 layers of 34sbh/t, final norm input and head input 2sbh/t each
     * (split by SP), fp32 logits 4sbV/t (vocabulary-parallel) */
    assert_near(m.act_per_sample_bytes,
                12 * 34 * s * h / t + 4 * s * h / t + 4 * s * V / t, 1);
    tplan_memory_eval_stage(&c, TPLAN_STAGE_FIRST, 1, &m);
    assert_near(m.inflight, 8.0, 0);
}

/* Stage i of a 1F1B pipeline holds min(p - i, m) micro-batches; with v
 * interleaved chunks 2(p - i - 1) + (v - 1)p + 1 chunk micro-batches of
 * L/(pv) layers (Megatron-LM get_pp_rank_microbatches: warm-up forwards
 * plus the one in 1F1B). At p = 8, v = 3: stage 0 holds (14 + 16 + 1)/3 =
 * 31/3 = 8 (1 + 7/24) stage-loads (Korthikanti 4.2.3), stage 4 holds
 * (6 + 16 + 1)/3 = 23/3 and the last (16 + 1)/3 = 17/3. */
static void test_stage_inflight(void **state)
{
    tplan_config c;
    tplan_memory m;

    (void)state;
    config_for(&c, "gpt3-175b", "a100-80g");
    c.gpus = 64;
    c.tp = 8;
    c.pp = 8;
    c.accum = 16;
    tplan_memory_eval_stage_at(&c, 3, 1, &m);
    assert_near(m.inflight, 5.0, 0);
    assert_int_equal(m.stage, TPLAN_STAGE_MIDDLE);
    assert_int_equal(m.stage_index, 3);
    c.accum = 4; /* fewer micro-batches than stages: all of them */
    tplan_memory_eval_stage_at(&c, 1, 1, &m);
    assert_near(m.inflight, 4.0, 0);
    c.accum = 16;
    c.vpp = 3;
    tplan_memory_eval_stage_at(&c, 0, 1, &m);
    assert_near(m.inflight, 31.0 / 3.0, 1e-12);
    assert_near(m.inflight, 8.0 * (1.0 + 7.0 / 24.0), 1e-12);
    tplan_memory_eval_stage_at(&c, 4, 1, &m);
    assert_near(m.inflight, 23.0 / 3.0, 1e-12);
    tplan_memory_eval_stage_at(&c, 7, 1, &m);
    assert_near(m.inflight, 17.0 / 3.0, 1e-12);
}

/* Counting the embedding and the loss as layers (Megatron-Core's
 * account_for_*_in_pipeline_split, pp_embed_loss): Llama 3.1 405B's 126
 * layers and those two over 8 stages, 16 each: 15 layers on the first
 * and last stage, 16 between; interleaved 8 deep only with it. The
 * second stage is then the fullest (a layer more than the first). */
static void test_pp_embed_loss(void **state)
{
    tplan_config c;
    tplan_memory m;
    tplan_plan p;
    tplan_err err;

    (void)state;
    config_for(&c, "llama3.1-405b", "h100-sxm");
    c.seq = 8192;
    c.gpus = 512;
    c.tp = 8;
    c.pp = 8;
    c.vpp = 8;
    c.accum = 32;
    c.zero = 1;
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_EINVAL);
    assert_string_equal(err.field, "vpp");
    c.pp_embed_loss = true;
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_OK);
    for (int64_t i = 0; i < 8; i++) {
        tplan_memory_eval_stage_at(&c, i, 1, &m);
        assert_int_equal(m.layers_on_stage, i == 0 || i == 7 ? 15 : 16);
    }
    assert_int_equal(tplan_config_stage_layers(&c), 16);
    c.micro_batch = 1;
    eval_ok(&c, &p);
    assert_int_equal(p.mem.stage_index, 1);
    /* the last stage's 15 layers and head against the middle's 16: as
     * the uneven split without the flag (16 first, 15 and the head last) */
    {
        tplan_plan q;

        c.pp_embed_loss = false;
        c.vpp = 1;
        eval_ok(&c, &q);
        assert_true(p.perf.stage_imbalance > 1.0);
        assert_rel(p.perf.stage_imbalance, q.perf.stage_imbalance, 1e-12);
        c.pp_embed_loss = true;
        c.vpp = 8;
    }
    /* two stages: 64 units each, 63 layers and the embedding or loss */
    c.gpus = 128;
    c.pp = 2;
    c.vpp = 1;
    assert_int_equal(tplan_config_stage_layers(&c), 63);
    tplan_memory_eval_stage_at(&c, 1, 1, &m);
    assert_int_equal(m.layers_on_stage, 63);
    /* pp must divide layers + 2 (128: not 6) */
    c.gpus = 96;
    c.pp = 6;
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_EINVAL);
    assert_string_equal(err.field, "pp");
}

/* Uneven stages (issue 37, Megatron's decoder_first/last_pipeline_num_
 * layers): Llama-3-8B's 32 layers on 4 stages. Moving 6 layers off the
 * last stage lowers its memory by those layers' states and activations
 * (the middle stages take them); the first stage's own count moves the
 * fullest stage; Megatron-Core's refusals. */
static void test_uneven_stages(void **state)
{
    tplan_config c;
    tplan_memory even, light, mid;
    tplan_plan p;
    tplan_err err;
    char buf[64];

    (void)state;
    config_for(&c, "llama3-8b", "h100-sxm");
    c.seq = 4096;
    c.gpus = 4;
    c.pp = 4;
    c.zero = 0;
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_OK);
    tplan_memory_eval_stage_at(&c, 3, 1, &even);
    c.pp_last_layers = 2; /* 30 over 3: 10 a middle stage */
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_OK);
    tplan_memory_eval_stage_at(&c, 3, 1, &light);
    tplan_memory_eval_stage_at(&c, 1, 1, &mid);
    assert_int_equal(even.layers_on_stage, 8);
    assert_int_equal(light.layers_on_stage, 2);
    assert_int_equal(mid.layers_on_stage, 10);
    /* the last stage holds 6 layers' weights, gradients and Adam states
     * fewer: 16 bytes a parameter under mixed-bf16 at ZeRO 0 (2 + 2 + 12),
     * a Llama-3-8B layer 218,112,000 parameters; and fewer activations */
    assert_near(
        (double)(even.weights_bytes + even.grads_bytes + even.optimizer_bytes) -
            (double)(light.weights_bytes + light.grads_bytes +
                     light.optimizer_bytes),
        6.0 * 218112000.0 * 16.0, 64.0);
    assert_true(light.activations_bytes < even.activations_bytes);
    assert_true(light.total_bytes < even.total_bytes);
    tplan_stage_layers_format(&c, buf, sizeof buf);
    assert_string_equal(buf, "10x3,2x1");
    /* the plan reports a middle stage of 10 now, not the first of 8 */
    c.micro_batch = 1;
    eval_ok(&c, &p);
    assert_int_equal(p.mem.layers_on_stage, 10);
    assert_int_equal(tplan_config_stage_layers(&c), 10);
    /* first and last: 4 + 12 + 12 + 4 */
    c.pp_first_layers = 4;
    c.pp_last_layers = 4;
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_OK);
    tplan_stage_layers_format(&c, buf, sizeof buf);
    assert_string_equal(buf, "4x1,12x2,4x1");
    assert_int_equal(tplan_config_fullest_stage(&c), 1);
    /* Megatron-Core's refusals (transformer_config.py __post_init__) */
    c.pp_last_layers = 3; /* 25 middle layers over 2 stages */
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_EINVAL);
    assert_string_equal(err.field, "pp");
    c.pp_last_layers = 28; /* nothing left for the middle stages */
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_EINVAL);
    assert_string_equal(err.field, "pp");
    c.pp_last_layers = 4;
    c.pp_embed_loss = true;
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_EINVAL);
    assert_string_equal(err.field, "pp_embed_loss");
    c.pp_embed_loss = false;
    c.vpp = 3; /* vpp must divide 4 */
    c.accum = 8;
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_EINVAL);
    assert_string_equal(err.field, "vpp");
    c.vpp = 2; /* 4 and 12 a stage: 2 chunks each */
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_OK);
    c.vpp = 1;
    c.pp = 1;
    c.gpus = 1;
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_EINVAL);
    assert_string_equal(err.field, "pp_first_layers");
}

/* When p does not divide L the first L mod p stages hold ceil(L/p)
 * layers: 61 layers on 16 stages are 13 stages of 4 and 3 of 3. With
 * DeepSeek-V3's three dense layers first, stage 1 is the first stage
 * of four MoE layers: with 15 micro-batches in flight it holds more than
 * stage 0 (three dense and one MoE layer, 16 in flight) and is the one
 * reported. */
static void test_middle_stage_worst(void **state)
{
    tplan_config c;
    tplan_memory m, s0, s1, worst;

    (void)state;
    config_for(&c, "deepseek-v3", "h800");
    c.gpus = 2048;
    c.pp = 16;
    c.ep = 64;
    c.zero = 1;
    c.seq = 4096;
    c.micro_batch = 1;
    c.accum = 120;
    tplan_memory_eval_stage_at(&c, 12, 1, &m);
    assert_int_equal(m.layers_on_stage, 4);
    tplan_memory_eval_stage_at(&c, 13, 1, &m);
    assert_int_equal(m.layers_on_stage, 3);
    tplan_memory_eval_stage_at(&c, 0, 1, &s0);
    tplan_memory_eval_stage_at(&c, 1, 1, &s1);
    assert_near(s0.inflight, 16.0, 0);
    assert_near(s1.inflight, 15.0, 0);
    /* one MoE layer's activations against one dense layer's: 4 x 15
     * MoE layer-loads beat 3 x 16 dense and 16 MoE */
    assert_true(s1.total_bytes > s0.total_bytes);
    tplan_memory_eval(&c, &worst);
    assert_int_equal(worst.stage, TPLAN_STAGE_MIDDLE);
    assert_int_equal(worst.stage_index, 1);
    assert_int_equal(worst.total_bytes, s1.total_bytes);
    assert_int_equal(worst.max_micro_batch,
                     s1.max_micro_batch < s0.max_micro_batch
                         ? s1.max_micro_batch
                         : s0.max_micro_batch);
    /* experts sit on stages 1.. four layers at a time: 4 x 256/64 x
     * 3 x 7168 x 2048 routed parameters */
    assert_int_equal(s1.experts_on_device, 4LL * 4 * 44040192);
    assert_int_equal(s0.experts_on_device, 1LL * 4 * 44040192);
}

/* A dense model's middle stages never hold the most: the first holds as
 * many layers, the embedding and more micro-batches. */
static void test_dense_first_stage_worst(void **state)
{
    tplan_config c;
    tplan_memory m, s0;

    (void)state;
    config_for(&c, "llama2-70b", "h100-sxm");
    c.gpus = 64;
    c.tp = 8;
    c.pp = 8;
    c.accum = 8;
    c.micro_batch = 1;
    tplan_memory_eval(&c, &m);
    tplan_memory_eval_stage_at(&c, 0, 1, &s0);
    assert_int_equal(m.stage, TPLAN_STAGE_FIRST);
    assert_int_equal(m.total_bytes, s0.total_bytes);
    for (int i = 1; i < 7; i++) {
        tplan_memory mid;

        tplan_memory_eval_stage_at(&c, i, 1, &mid);
        assert_true(mid.total_bytes < s0.total_bytes);
    }
}

/* Full recomputation keeps each layer's input and rebuilds one layer in
 * backward: L x 2sbh + one full layer (Korthikanti's 34sbh + 5as^2b),
 * which on the last stage counts instead of the head's tensors when
 * larger: the loss's backward frees those before any layer is rebuilt. */
static void test_full_recompute_rebuilds_a_layer(void **state)
{
    tplan_config c;
    tplan_memory m;
    double s = 2048, h = 12288, a = 96, V = 50257;

    (void)state;
    config_for(&c, "gpt3-175b", "a100-80g");
    c.profile = TPLAN_PROFILE_MEGATRON;
    c.attention = TPLAN_ATTN_EAGER;
    c.recompute = TPLAN_RECOMPUTE_FULL;
    tplan_memory_eval_stage(&c, TPLAN_STAGE_ONLY, 1, &m);
    assert_near(m.act_per_sample_bytes,
                96 * 2 * s * h + s * h /* embedding dropout mask */ +
                    fmax(s * h * (34 + 5 * a * s / h),
                         4 * s * h + 4 * s * V /* norm, head input, logits */),
                1);
}

/* With t > k the K and V projections are replicated (one kv head per
 * rank): llama3-8b (k = 8) at tp 16. */
static void test_kv_replication(void **state)
{
    tplan_config c;
    tplan_memory m;
    double h = 4096, d = 128, f = 14336, V = 128256, t = 16;
    double layer = (2 * h * h + 3 * h * f) / t + 2 * h * d + 2 * h;

    (void)state;
    config_for(&c, "llama3-8b", "h100-sxm");
    c.gpus = 16;
    c.tp = 16;
    tplan_memory_eval_stage(&c, TPLAN_STAGE_ONLY, 1, &m);
    assert_int_equal(m.params_on_device,
                     (int64_t)(32 * layer + 2 * V * h / t + h));
}

/* Working copies: autocast's 16-bit matmul weights are sharded with the
 * weights under ZeRO-3; fp8 keeps a 1-byte copy of each. */
static void test_working_copies(void **state)
{
    tplan_config c;
    tplan_memory m;
    double h = 4096, f = 11008, V = 32000;
    double matmul = 32 * (4 * h * h + 3 * h * f) + V * h;

    (void)state;
    config_for(&c, "llama2-7b", "h100-sxm");
    c.gpus = 8;
    c.zero = 3;
    c.precision = TPLAN_PREC_AMP_BF16;
    tplan_memory_eval_stage(&c, TPLAN_STAGE_ONLY, 1, &m);
    assert_near((double)m.work_copy_bytes, 2 * matmul / 8, 1);
    c.zero = 1;
    c.precision = TPLAN_PREC_FP8;
    tplan_memory_eval_stage(&c, TPLAN_STAGE_ONLY, 1, &m);
    assert_near((double)m.work_copy_bytes, matmul, 1);
}

/* Megatron keeps fp32 gradients (main_grad): 18 bytes per parameter with
 * Adam, and 6 + 12/d_p with its distributed optimizer (docs/MODEL.md 2). */
static void test_megatron_fp32_grads(void **state)
{
    tplan_config c;
    tplan_memory m;
    double n;

    (void)state;
    config_for(&c, "llama2-7b", "h100-sxm");
    c.fp32_grads = true;
    c.gpus = 8;
    tplan_memory_eval_stage(&c, TPLAN_STAGE_ONLY, 1, &m);
    n = (double)m.params_on_device;
    assert_near((double)(m.weights_bytes + m.grads_bytes + m.optimizer_bytes),
                18 * n, 1);
    c.zero = 1;
    tplan_memory_eval_stage(&c, TPLAN_STAGE_ONLY, 1, &m);
    assert_near((double)(m.weights_bytes + m.grads_bytes + m.optimizer_bytes),
                (6 + 12.0 / 8) * n, 1);
}

/* What the training stack allocates besides the model's tensors
 * (docs/MODEL.md section 4.6). NCCL's buffers sit outside the caching
 * allocator like the CUDA context: nccl_mib on 3 communicators moves the
 * largest micro-batch exactly as 3 x nccl_mib more context does. */
static void test_nccl_buffers(void **state)
{
    tplan_config c;
    tplan_plan p, q;

    (void)state;
    config_for(&c, "llama3-8b", "a100-80g");
    c.seq = 2048;
    c.gpus = 8;
    c.tp = 2;
    c.pp = 2;
    c.zero = 1;
    c.recompute = TPLAN_RECOMPUTE_SELECTIVE;
    eval_ok(&c, &p);
    assert_int_equal(p.mem.communicators, 3); /* dp 2, tp 2, pp 2 */
    assert_int_equal(p.mem.nccl_bytes, 0);     /* 0 without a framework */
    c.nccl_bytes = 2000.0 * 1024 * 1024;
    eval_ok(&c, &q);
    assert_int_equal(q.mem.nccl_bytes, 3 * 2000LL * 1024 * 1024);
    /* in max mode, 5 of 6 micro-batches fit (8.1 GiB each) */
    assert_true(q.mem.max_micro_batch < p.mem.max_micro_batch);
    c.micro_batch = 1;
    eval_ok(&c, &q);
    c.nccl_bytes = 0.0;
    eval_ok(&c, &p);
    assert_int_equal(q.mem.total_bytes - p.mem.total_bytes,
                     3 * 2000LL * 1024 * 1024);
    c.micro_batch = 0;
    c.nccl_bytes = 2000.0 * 1024 * 1024;
    eval_ok(&c, &q);
    c.nccl_bytes = 0.0;
    c.context_bytes += 3 * 2000.0 * 1024 * 1024;
    eval_ok(&c, &p);
    assert_int_equal(p.mem.max_micro_batch, q.mem.max_micro_batch);
    /* an MoE model joins the expert and expert-data-parallel groups too:
     * dp 16, ep 2 (experts over 8) */
    config_for(&c, "mixtral-8x7b", "h100-sxm");
    c.seq = 4096;
    c.gpus = 16;
    c.ep = 2;
    c.zero = 3;
    c.nccl_bytes = 1024.0 * 1024;
    eval_ok(&c, &p);
    assert_int_equal(p.mem.communicators, 3);
    assert_int_equal(p.mem.nccl_bytes, 3 * 1024 * 1024);
    /* the all-to-all's buffers per peer of the expert group in the node
     * (NVIDIA/nccl#1685), outside the allocator like the context: with
     * an allocator share, the total still moves by exactly them */
    c.nccl_a2a_bytes = 480.0 * 1024 * 1024;
    c.alloc_frac = 0.1;
    c.ep = 8;
    eval_ok(&c, &q);
    assert_int_equal(q.mem.communicators, 3);
    assert_int_equal(q.mem.nccl_bytes,
                     3 * 1024 * 1024 + 7 * 480LL * 1024 * 1024);
    c.nccl_a2a_bytes = 0.0;
    eval_ok(&c, &p);
    assert_int_equal(q.mem.total_bytes - p.mem.total_bytes,
                     7 * 480LL * 1024 * 1024);
    /* an expert group over two nodes (ep 16, 8 GPUs a node): the 7 peers
     * in the node; with tp 2 its ranks lie 2 apart, 4 to a node: 3 */
    c.nccl_a2a_bytes = 480.0 * 1024 * 1024;
    c.gpus = 16;
    c.ep = 16;
    c.model.experts = 16;
    eval_ok(&c, &q);
    assert_int_equal(q.mem.nccl_bytes - 2 * 1024 * 1024,
                     7 * 480LL * 1024 * 1024);
    c.tp = 2;
    c.ep = 8;
    eval_ok(&c, &q);
    assert_int_equal(q.mem.nccl_bytes - 3 * 1024 * 1024,
                     3 * 480LL * 1024 * 1024);
    c.tp = 1;
    c.model.experts = 8;
    c.alloc_frac = 0.0;
    config_for(&c, "mixtral-8x7b", "h100-sxm");
    c.seq = 4096;
    c.nccl_a2a_bytes = 480.0 * 1024 * 1024;
    c.nccl_bytes = 1024.0 * 1024;
    c.gpus = 1;
    c.ep = 1;
    c.zero = 0;
    eval_ok(&c, &p);
    assert_int_equal(p.mem.communicators, 0);
    assert_int_equal(p.mem.nccl_bytes, 0); /* ep 1: no all-to-all */
}

/* NVLink SHARP buffers (docs/MODEL.md section 4.6): nccl_nvls_mib x the
 * GPU's NVLS channels x the communicator's GPUs in the node (at most 32),
 * for the tensor, data x context and expert data-parallel groups with
 * more than two GPUs in the node, on GPUs whose servers have NVLS only.
 * Every other term is off (config_for: nccl_mib 0), so nccl_bytes is the
 * NVLS buffers alone. */
/* model on gpus GPUs of type gpu, ZeRO-3, micro-batch 1 */
static void nvls_case(tplan_config *c, const char *model, const char *gpu,
                      int64_t seq, int64_t gpus)
{
    config_for(c, model, gpu);
    c->seq = seq;
    c->micro_batch = 1;
    c->gpus = gpus;
    c->zero = 3;
}

static int64_t nvls_mib(tplan_config *c)
{
    tplan_plan p;

    c->nccl_nvls_bytes = 2.0 * 1024 * 1024;
    eval_ok(c, &p);
    assert_int_equal(p.mem.nvls_bytes, p.mem.nccl_bytes);
    return p.mem.nccl_bytes / (1024 * 1024);
}

/* PyTorch's default cuBLAS/hipBLAS workspace by GPU family
 * (CublasHandlePool.cpp), two of them (the forward's thread and
 * autograd's) added to the context under blas_ws: the frameworks' 428
 * MiB make 492 on Hopper, 444.25 on other NVIDIA GPUs. */
static void test_blas_workspace(void **state)
{
    static const struct {
        const char *gpu;
        double mib;
    } want[] = {{"h100-sxm", 32}, {"h100-pcie", 32},   {"h100-nvl", 32},
                {"h200", 32},     {"h800", 32},        {"h20", 32},
                {"gh200", 32},    {"a100-80g", 8.125}, {"b200", 8.125},
                {"gb200", 8.125}, {"v100-32g", 8.125}, {"l40s", 8.125},
                {"mi250x", 32},   {"mi300x", 128},     {"mi325x", 128}};
    tplan_config c;
    tplan_plan p, q;

    (void)state;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        config_for(&c, "llama3-8b", want[i].gpu);
        assert_true(c.gpu.blas_ws_mib == want[i].mib);
        c.micro_batch = 1;
        c.seq = 2048;
        c.context_bytes = 428.0 * 1024 * 1024;
        eval_ok(&c, &q); /* blas_ws off: the context as given */
        assert_int_equal(q.mem.context_bytes, 428LL * 1024 * 1024);
        assert_int_equal(q.mem.blas_ws_bytes, 0);
        c.blas_ws = true;
        eval_ok(&c, &p);
        assert_int_equal(p.mem.blas_ws_bytes,
                         (int64_t)(2 * want[i].mib * 1024 * 1024));
        assert_int_equal(p.mem.context_bytes,
                         q.mem.context_bytes + p.mem.blas_ws_bytes);
        assert_int_equal(p.mem.total_bytes - q.mem.total_bytes,
                         p.mem.blas_ws_bytes);
    }
    /* a GPU made by a caller: the workspace is range-checked */
    {
        tplan_err err;

        c.gpu.blas_ws_mib = -1;
        assert_int_equal(tplan_gpu_validate(&c.gpu, &err), TPLAN_EINVAL);
        assert_string_equal(err.field, "blas_ws_mib");
        c.gpu.blas_ws_mib = NAN;
        assert_int_equal(tplan_gpu_validate(&c.gpu, &err), TPLAN_EINVAL);
        c.gpu.blas_ws_mib = 8.125;
        c.gpu.nvls_channels = 65;
        assert_int_equal(tplan_gpu_validate(&c.gpu, &err), TPLAN_EINVAL);
        assert_string_equal(err.field, "nvls_channels");
        c.gpu.nvls_channels = 16;
        assert_int_equal(tplan_gpu_validate(&c.gpu, &err), TPLAN_OK);
    }
}

static void test_nvls_buffers(void **state)
{
    tplan_config c;
    tplan_plan p, q;

    (void)state;
    nvls_case(&c, "llama3-8b", "h100-sxm", 2048, 8);
    assert_int_equal(c.gpu.nvls_channels, 16); /* NVLS_NCHANNELS_SM90 */
    /* one data-parallel group of 8 in the node: 2 x 16 x 8 = 256 MiB,
     * outside the allocator (the total moves by exactly that) */
    assert_int_equal(nvls_mib(&c), 256);
    eval_ok(&c, &p);
    c.nccl_nvls_bytes = 0.0;
    eval_ok(&c, &q);
    assert_int_equal(q.mem.nccl_bytes, 0);
    assert_int_equal(p.mem.total_bytes - q.mem.total_bytes,
                     256LL * 1024 * 1024);
    /* tp 8 on 16 GPUs: the tensor group has 8 in the node, the data group
     * (ranks 8 apart) one: 256 MiB */
    c.gpus = 16;
    c.tp = 8;
    c.zero = 1;
    assert_int_equal(nvls_mib(&c), 256);
    /* tp 4 on 16: a tensor group of 4 (128 MiB); the data group's ranks
     * lie 4 apart, two in the node: none */
    c.tp = 4;
    assert_int_equal(nvls_mib(&c), 128);
    /* tp 2 on 8: a tensor group of two (NVLS off), a data group of 4 in
     * the node (ranks 2 apart): 2 x 16 x 4 = 128 MiB */
    c.gpus = 8;
    c.tp = 2;
    assert_int_equal(nvls_mib(&c), 128);
    /* tp 2 and pp 4 on 8: no data group, a tensor group of two and a
     * pipeline group of 4 that sends point to point: none */
    c.pp = 4;
    assert_int_equal(nvls_mib(&c), 0);
    /* an A100's NVSwitch has no NVLS */
    nvls_case(&c, "llama3-8b", "a100-80g", 2048, 8);
    assert_int_equal(c.gpu.nvls_channels, 0);
    assert_int_equal(nvls_mib(&c), 0);
    /* HGX B200: 24 channels, 2 x 24 x 8 = 384 MiB; GB200 NVL72: 24
     * channels and 64 GPUs of one NVLink domain, 32 heads at most:
     * 2 x 24 x 32 = 1536 MiB */
    nvls_case(&c, "llama3-8b", "b200", 2048, 8);
    assert_int_equal(nvls_mib(&c), 384);
    nvls_case(&c, "llama3-8b", "gb200", 2048, 64);
    assert_int_equal(nvls_mib(&c), 1536);
    /* an MoE model's expert data-parallel group (Megatron's expert grid:
     * ranks tp x ep apart): mixtral on 16 H100s, ep 2: the data group (16
     * over two nodes, 8 in each) and the expert data group (8, ranks 2
     * apart: 4 in the node) */
    nvls_case(&c, "mixtral-8x7b", "h100-sxm", 4096, 16);
    c.ep = 2;
    assert_int_equal(nvls_mib(&c), 2 * 16 * 8 + 2 * 16 * 4);
    /* with cp 2 on 8: the data x context group of 8 (256 MiB) and the
     * expert data group of dp x cp / ep = 4, ranks 2 apart, all 4 in the
     * node (128 MiB) */
    c.gpus = 8;
    c.cp = 2;
    assert_int_equal(nvls_mib(&c), 2 * 16 * 8 + 2 * 16 * 4);
}

/* DDP without gradient_as_bucket_view holds a second copy of the
 * gradients; DeepSpeed's ZeRO-1/2 reduce bucket is reduce_bucket
 * elements of the gradient dtype. Neither exists without data
 * parallelism or where the other applies. */
static void test_gradient_buckets(void **state)
{
    tplan_config c;
    tplan_plan p;

    (void)state;
    config_for(&c, "gpt2", "a100-80g");
    c.seq = 1024;
    c.gpus = 4;
    c.grad_bucket_copy = true;
    c.reduce_bucket = 5e8;
    eval_ok(&c, &p);
    assert_true(p.mem.grads_bytes > 0);
    assert_int_equal(p.mem.bucket_bytes, p.mem.grads_bytes);
    c.zero = 2; /* mixed-bf16: 16-bit gradients */
    eval_ok(&c, &p);
    assert_int_equal(p.mem.bucket_bytes, 1000000000LL);
    c.fp32_grads = true;
    eval_ok(&c, &p);
    assert_int_equal(p.mem.bucket_bytes, 2000000000LL);
    c.zero = 3;
    eval_ok(&c, &p);
    assert_int_equal(p.mem.bucket_bytes, 0);
    c.zero = 0;
    c.gpus = 1;
    eval_ok(&c, &p);
    assert_int_equal(p.mem.bucket_bytes, 0);
}

/* torch's foreach AdamW allocates a list of exp_avg_sq's size in the
 * step, after backward has freed the activations: the peak is the larger
 * of the two, and the step's excess is reported as transient. */
static void test_optimizer_step_temporaries(void **state)
{
    tplan_config c;
    tplan_plan p, q;
    int64_t fixed;

    (void)state;
    config_for(&c, "llama3-8b", "h100-sxm");
    c.seq = 512;
    c.micro_batch = 1;
    c.gpus = 8;
    c.zero = 3;
    c.recompute = TPLAN_RECOMPUTE_FULL;
    eval_ok(&c, &p);
    /* fp32 states over 8 GPUs: 4 bytes x N / 8 */
    assert_near((double)p.mem.step_temp_bytes,
                4.0 * (double)p.params / 8.0, 1.0);
    assert_true(p.mem.step_temp_bytes > p.mem.activations_bytes);
    assert_int_equal(p.mem.transient_bytes,
                     p.mem.step_temp_bytes - p.mem.activations_bytes);
    c.optim_temp = 0.0;
    eval_ok(&c, &q);
    assert_int_equal(q.mem.step_temp_bytes, 0);
    assert_int_equal(q.mem.transient_bytes, 0);
    fixed = q.mem.total_bytes - q.mem.activations_bytes;
    assert_int_equal(p.mem.total_bytes, fixed + p.mem.step_temp_bytes);
    /* at a micro-batch whose activations exceed it, the step adds
     * nothing */
    c.optim_temp = 1.0;
    c.micro_batch = 64;
    eval_ok(&c, &p);
    assert_true(p.mem.activations_bytes > p.mem.step_temp_bytes);
    assert_int_equal(p.mem.transient_bytes, 0);
    /* fused and offloaded optimizers have none */
    c.optimizer = TPLAN_OPT_ADAMW_8BIT;
    eval_ok(&c, &p);
    assert_int_equal(p.mem.step_temp_bytes, 0);
    c.optimizer = TPLAN_OPT_ADAMW;
    c.offload_optimizer = TPLAN_OFFLOAD_CPU;
    eval_ok(&c, &p);
    assert_int_equal(p.mem.step_temp_bytes, 0);
    /* a step that alone does not fit leaves no micro-batch: GPT-2 XL in
     * fp32 with Adam (16 bytes per parameter, 23.2 GiB) fits a 32 GB V100
     * with full recomputation, but not with the step's 4 bytes more */
    config_for(&c, "gpt2-xl", "v100-32g");
    c.precision = TPLAN_PREC_FP32;
    c.recompute = TPLAN_RECOMPUTE_FULL;
    c.seq = 1024;
    c.optim_temp = 0.0;
    eval_ok(&c, &p);
    c.optim_temp = 1.0;
    eval_ok(&c, &q);
    assert_true(p.mem.max_micro_batch > 0);
    assert_int_equal(q.mem.max_micro_batch, 0);
}

/* ZeRO-3's layer-sized 16-bit sets: DeepSpeed's estimator keeps 2 (the
 * default), FSDP's backward prefetch 3. */
static void test_gather_sets(void **state)
{
    tplan_config c;
    tplan_plan p, q;

    (void)state;
    config_for(&c, "llama3-8b", "a100-80g");
    c.seq = 2048;
    c.gpus = 8;
    c.zero = 3;
    eval_ok(&c, &p);
    c.gather_sets = 3.0;
    eval_ok(&c, &q);
    assert_true(p.mem.gather_bytes > 0);
    assert_near((double)q.mem.gather_bytes, 1.5 * (double)p.mem.gather_bytes,
                1.0);
}

/* A fused RMSNorm saves its input at the residual stream's width and the
 * rstd; HF's eager code also saves an fp32 copy of the input and
 * x * rstd. Pure bf16: 4 + 2 bytes per element become 2, for each of a
 * layer's two norms: 8 s h bytes per layer and sample. */
static void test_fused_norm(void **state)
{
    tplan_config c;
    tplan_plan p, q;
    double s, h;

    (void)state;
    config_for(&c, "llama3-8b", "a100-80g");
    c.seq = 2048;
    c.micro_batch = 1;
    eval_ok(&c, &p);
    c.fused_norm = true;
    eval_ok(&c, &q);
    s = 2048.0;
    h = (double)c.model.hidden;
    assert_near(p.mem.act_layer_bytes - q.mem.act_layer_bytes, 8.0 * s * h,
                1e-6);
    /* and the final norm's: 4 s h more on the only stage */
    assert_near(p.mem.act_per_sample_bytes - q.mem.act_per_sample_bytes,
                8.0 * s * h * (double)c.model.layers + 4.0 * s * h, 1e-3);
}

/* The advice names the next ZeRO stage when that alone makes it fit, and a
 * smaller micro-batch when the states fit. */
static void test_advice_names_the_fix(void **state)
{
    tplan_config c;
    tplan_plan p;

    (void)state;
    config_for(&c, "llama2-13b", "a100-80g");
    c.gpus = 8;
    c.seq = 2048;
    c.recompute = TPLAN_RECOMPUTE_FULL;
    c.micro_batch = 1;
    eval_ok(&c, &p);
    assert_false(p.mem.fits);
    assert_true(p.n_warnings >= 2);
    /* 16 bytes per parameter of 13B = 194 GiB: the states are too large.
     * Sharding the optimizer over 8 (ZeRO-1) leaves 66.7 GiB of states,
     * and torch's foreach AdamW step adds a list of the second moment's
     * size (4 bytes x 13B / 8 = 6.1 GiB) once the activations are freed:
     * 73.7 GiB of 71.3 usable. Sharding the gradients too (ZeRO-2) is
     * the first fix. */
    assert_true(strncmp(p.warnings[0], "does not fit: model states", 26) == 0);
    assert_true(strncmp(p.warnings[1], "would fit with zero=2:", 22) == 0);
    /* with a fused optimizer step ZeRO-1 is enough */
    c.optim_temp = 0.0;
    eval_ok(&c, &p);
    assert_true(strncmp(p.warnings[1], "would fit with zero=1:", 22) == 0);
    /* the allocator's share of the activations is not the step's: with
     * alloc_frac 0.3 a micro-batch of 3 is what does not fit, as the
     * largest micro-batch (1) says */
    config_for(&c, "llama3-8b", "h100-sxm");
    c.gpus = 8;
    c.zero = 3;
    c.seq = 4096;
    c.micro_batch = 3;
    c.alloc_frac = 0.3;
    eval_ok(&c, &p);
    assert_int_equal(p.mem.max_micro_batch, 1);
    assert_true(strncmp(p.warnings[0], "does not fit: activations", 25) == 0);
    config_for(&c, "gpt2", "a100-40g");
    c.micro_batch = 100;
    eval_ok(&c, &p);
    assert_false(p.mem.fits);
    /* the largest micro-batch, with the accumulation that keeps the
     * global batch of 100 */
    assert_true(strncmp(p.warnings[1], "would fit with micro_batch=", 27) == 0);
    assert_non_null(strstr(p.warnings[1], ", accum="));
}

/* The parts less what is not live at the peak sum to the total. */
static void assert_parts_sum(const tplan_memory *m)
{
    assert_int_equal(m->weights_bytes + m->grads_bytes + m->optimizer_bytes +
                         m->activations_bytes + m->overhead_bytes -
                         m->off_peak_bytes,
                     m->total_bytes);
}

/* zero_grad(set_to_none=True) with one micro-batch per step (measured on
 * an H200, tests/data/gpu/h200_torch.csv): the forward's peak holds no
 * gradient; the step's holds them all and a tied embedding's second
 * gradient (GPT-2 is tied; amp keeps fp32 gradients). Accumulation keeps
 * them live through the forwards, as before. */
static void test_set_to_none(void **state)
{
    tplan_config c;
    tplan_plan off, on, q;
    double tie;

    (void)state;
    config_for(&c, "gpt2", "h100-sxm");
    c.precision = TPLAN_PREC_AMP_BF16;
    c.optim_temp = 0.0;
    c.seq = 1024;
    c.micro_batch = 16;
    eval_ok(&c, &off);
    c.set_to_none = true;
    eval_ok(&c, &on);
    /* the forward's peak: everything but the gradients */
    assert_true(on.mem.activations_bytes > on.mem.grads_bytes);
    assert_int_equal(on.mem.grads_bytes, off.mem.grads_bytes);
    assert_int_equal(on.mem.off_peak_bytes, on.mem.grads_bytes);
    assert_int_equal(on.mem.total_bytes,
                     off.mem.total_bytes - off.mem.grads_bytes);
    assert_int_equal(off.mem.off_peak_bytes, 0);
    assert_parts_sum(&on.mem);
    assert_parts_sum(&off.mem);
    /* the step's peak, with tiny activations: the gradients and the
     * embedding's second gradient, no autocast copies or activations */
    c.seq = 16;
    c.micro_batch = 1;
    eval_ok(&c, &on);
    tie = 50257.0 * 768.0 * 4.0;
    assert_near((double)on.mem.transient_bytes, tie, 1.0);
    assert_int_equal(on.mem.off_peak_bytes,
                     on.mem.work_copy_bytes + on.mem.activations_bytes);
    assert_int_equal(on.mem.total_bytes,
                     on.mem.weights_bytes - on.mem.work_copy_bytes +
                         on.mem.grads_bytes + on.mem.optimizer_bytes +
                         on.mem.context_bytes + llround(tie));
    assert_parts_sum(&on.mem);
    /* accumulation keeps the gradients: as without set_to_none */
    c.seq = 1024;
    c.micro_batch = 16;
    c.accum = 2;
    eval_ok(&c, &on);
    c.set_to_none = false;
    eval_ok(&c, &q);
    assert_int_equal(on.mem.total_bytes, q.mem.total_bytes);
    assert_int_equal(on.mem.off_peak_bytes, 0);
    /* the memory of a batch change is reused only where it cannot move */
    c.set_to_none = true;
    assert_false(tplan_memory_same_accum(&c, 1, 2));
    assert_true(tplan_memory_same_accum(&c, 2, 3));
    c.set_to_none = false;
    assert_true(tplan_memory_same_accum(&c, 1, 2));
    /* the largest micro-batch is tight: it fits and one more does not */
    c.set_to_none = true;
    c.accum = 1;
    c.micro_batch = 0;
    eval_ok(&c, &on);
    assert_true(on.mem.fits && on.max_micro_batch > 1);
    c.micro_batch = on.max_micro_batch + 1;
    eval_ok(&c, &q);
    assert_false(q.mem.fits);
    assert_true(on.mem.total_bytes <= on.mem.usable_bytes &&
                q.mem.total_bytes > q.mem.usable_bytes);
    /* a generic model with no activation bytes: its autocast copies alone
     * can be what does not fit (ZeRO-2 leaves the step's phase small) */
    config_for(&c, "resnet50", "h100-sxm");
    c.seq = 1;
    c.model.generic_params = 12000000000;
    c.model.generic_act_bytes_fp32 = 0;
    c.precision = TPLAN_PREC_AMP_BF16;
    c.zero = 2;
    c.gpus = 8;
    c.micro_batch = 0;
    c.set_to_none = true;
    eval_ok(&c, &q);
    assert_true(q.mem.total_bytes > q.mem.usable_bytes);
    assert_false(q.mem.fits);
    assert_int_equal(q.max_micro_batch, 0);
}

static void test_config_errors(void **state)
{
    static const struct {
        int64_t gpus, tp, pp, vpp;
        int zero;
        const char *msg;
    } bad[] = {
        {3, 3, 1, 1, 0, "tp must divide heads (heads=32, tp=3)"},
        {33, 1, 33, 1, 0, "pp must be at most layers (layers=32, pp=33)"},
        {6, 4, 1, 1, 0, "tp*pp must divide gpus (gpus=6, tp=4, pp=1)"},
        {0, 1, 1, 1, 0, "gpus must be a positive integer (gpus=0)"},
        {8, 1, 1, 1, 4, "zero must be 0, 1, 2 or 3 (zero=4)"},
        {8, 1, 1, 2, 0, "vpp needs pipeline parallelism (vpp=2, pp=1)"},
        {8, 1, 4, 3, 0, "pp*vpp must divide layers (layers=32, pp=4, vpp=3)"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tplan_config c;
        tplan_err err;

        config_for(&c, "llama2-7b", "h100-sxm");
        c.gpus = bad[i].gpus;
        c.tp = bad[i].tp;
        c.pp = bad[i].pp;
        c.vpp = bad[i].vpp;
        c.zero = bad[i].zero;
        c.accum = bad[i].vpp == 2 ? 6 : 8;
        assert_int_equal(tplan_config_validate(&c, &err), TPLAN_EINVAL);
        assert_string_equal(err.msg, bad[i].msg);
    }
}

/* The schedules' layout rules: interleaved is vpp > 1, DualPipe wants an
 * even pp and an even accum of at least 2 pp (deepseek-ai/DualPipe
 * dualpipe.py asserts), vpp > 1 with 1f1b runs interleaved. */
static void test_schedule_errors(void **state)
{
    static const struct {
        tplan_pp_schedule sched;
        int64_t pp, vpp, accum;
        const char *msg;
    } bad[] = {
        {TPLAN_PP_INTERLEAVED, 4, 1, 8,
         "pp_schedule interleaved needs vpp >= 2 (pp_schedule=interleaved, "
         "vpp=1)"},
        {TPLAN_PP_DUALPIPE, 4, 2, 8,
         "vpp > 1 is the interleaved schedule, not dualpipe "
         "(pp_schedule=dualpipe, vpp=2)"},
        {TPLAN_PP_ZB_H1, 4, 2, 8,
         "vpp > 1 is the interleaved schedule, not zb-h1 "
         "(pp_schedule=zb-h1, vpp=2)"},
        {TPLAN_PP_DUALPIPE, 1, 1, 8,
         "pp_schedule dualpipe needs an even pp (pp=1)"},
        {TPLAN_PP_DUALPIPE, 4, 1, 6,
         "dualpipe needs an even accum of at least 2 x pp (accum=6, pp=4)"},
        {TPLAN_PP_DUALPIPE, 4, 1, 9,
         "dualpipe needs an even accum of at least 2 x pp (accum=9, pp=4)"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tplan_config c;
        tplan_err err;

        config_for(&c, "llama2-7b", "h100-sxm");
        c.gpus = 8;
        c.pp = bad[i].pp;
        c.vpp = bad[i].vpp;
        c.accum = bad[i].accum;
        c.pp_schedule = bad[i].sched;
        assert_int_equal(tplan_config_validate(&c, &err), TPLAN_EINVAL);
        assert_string_equal(err.msg, bad[i].msg);
    }
    {
        tplan_config c;
        tplan_err err;

        config_for(&c, "llama2-7b", "h100-sxm");
        c.gpus = 8;
        c.pp = 4;
        c.vpp = 2;
        c.accum = 8;
        assert_int_equal(tplan_config_validate(&c, &err), TPLAN_OK);
        assert_int_equal(tplan_config_pp_schedule(&c), TPLAN_PP_INTERLEAVED);
        c.vpp = 1;
        c.pp_schedule = TPLAN_PP_DUALPIPE;
        assert_int_equal(tplan_config_validate(&c, &err), TPLAN_OK);
    }
}

/* Pipeline schedules' memory (DeepSeek-V3 Table 2: parameters 1x, 1x,
 * 2x; activations PP, PP, PP + 1 for 1F1B, ZB1P, DualPipe). GPT-3 175B at
 * pp 8, 12 layers a stage, 16 micro-batches: 1F1B's first stage holds p
 * micro-batches, ZB-H1 the same; DualPipe's rank r holds stage r with p
 * - r in flight and stage p - 1 - r with r + 1, p + 1 chunks: its weights,
 * gradients and activations are the two 1F1B stages' (stage p - 1 - r
 * holds r + 1 under 1F1B too), its parameters twice a pipeline's over all
 * ranks; its optimizer states half the two stages' at ZeRO-1 (the two
 * copies of a stage are data-parallel replicas, ZeRO shards over both;
 * docs/MODEL.md section 13.5) and the two stages' at ZeRO-0. Rounding:
 * each part is rounded to a byte per stage, so sums agree to 2 bytes. */
/* MTP modules count as pipeline units with pp_embed_loss (Megatron-Core's
 * pipeline_model_parallel_layout "m" units): DeepSeek-V3's 61 layers, the
 * embedding, one MTP module and the loss are 64 units, 4 a stage over 16:
 * 3 layers on the first stage, 4 between, 2 on the last (which holds the
 * MTP module and the loss); every layer is on exactly one stage. Without
 * the MTP unit 63 units do not divide over 16 stages. */
static void test_pp_embed_loss_mtp(void **state)
{
    tplan_config c;
    tplan_err err;
    int64_t total = 0;

    (void)state;
    config_for(&c, "deepseek-v3", "h800");
    assert_int_equal(c.model.mtp_layers, 1);
    c.seq = 4096;
    c.gpus = 2048;
    c.pp = 16;
    c.ep = 64;
    c.zero = 1;
    c.precision = TPLAN_PREC_FP8;
    c.pp_embed_loss = true;
    c.accum = 120;
    c.micro_batch = 1;
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_OK);
    for (int64_t i = 0; i < 16; i++) {
        int64_t lo, hi;

        tplan_config_stage_range(&c, i, &lo, &hi);
        assert_int_equal(hi - lo, i == 0 ? 3 : i == 15 ? 2 : 4);
        assert_int_equal(lo, total);
        total += hi - lo;
    }
    assert_int_equal(total, 61);
    c.model.mtp_layers = 0;
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_EINVAL);
    assert_string_equal(err.field, "pp");
}

static void test_pipeline_schedule_memory(void **state)
{
    tplan_config c, dual;
    tplan_memory one0, zb0, d;
    int64_t p = 8, params_1f1b = 0, params_dual = 0;

    (void)state;
    config_for(&c, "gpt3-175b", "h100-sxm");
    c.tp = 8;
    c.pp = p;
    c.gpus = 64;
    c.micro_batch = 1;
    c.accum = 16;
    c.zero = 1;
    dual = c;
    dual.pp_schedule = TPLAN_PP_DUALPIPE;
    tplan_memory_eval_stage_at(&c, 0, 1, &one0);
    assert_near(one0.inflight, (double)p, 0.0);
    c.pp_schedule = TPLAN_PP_ZB_H1;
    tplan_memory_eval_stage_at(&c, 0, 1, &zb0);
    assert_near(zb0.inflight, (double)p, 0.0);
    assert_int_equal(zb0.total_bytes, one0.total_bytes);
    c.pp_schedule = TPLAN_PP_1F1B;
    for (int64_t r = 0; r < p; r++) {
        tplan_memory a, b;

        tplan_memory_eval_stage_at(&c, r, 1, &a);
        tplan_memory_eval_stage_at(&c, p - 1 - r, 1, &b);
        tplan_memory_eval_stage_at(&dual, r, 1, &d);
        assert_near(a.inflight, (double)(p - r), 0.0);
        assert_near(b.inflight, (double)(r + 1), 0.0);
        assert_near(d.inflight, (double)(p + 1), 0.0);
        assert_near(d.weights_bytes, a.weights_bytes + b.weights_bytes, 2);
        assert_near(d.grads_bytes, a.grads_bytes + b.grads_bytes, 2);
        assert_near(d.optimizer_bytes,
                    (a.optimizer_bytes + b.optimizer_bytes) / 2.0, 2);
        assert_near(d.activations_bytes,
                    a.activations_bytes + b.activations_bytes, 2);
        assert_int_equal(d.params_on_device,
                         a.params_on_device + b.params_on_device);
        params_1f1b += a.params_on_device;
        params_dual += d.params_on_device;
    }
    assert_int_equal(params_dual, 2 * params_1f1b);
    /* without ZeRO each copy keeps its own states */
    c.zero = dual.zero = 0;
    for (int64_t r = 0; r < p; r++) {
        tplan_memory a, b;

        tplan_memory_eval_stage_at(&c, r, 1, &a);
        tplan_memory_eval_stage_at(&c, p - 1 - r, 1, &b);
        tplan_memory_eval_stage_at(&dual, r, 1, &d);
        assert_near(d.optimizer_bytes, a.optimizer_bytes + b.optimizer_bytes,
                    2);
    }
    c.zero = dual.zero = 1;
    /* the worst rank sets the plan's figure: rank 0 (embedding, head and
     * the most chunks of its first stage) */
    tplan_memory_eval(&dual, &d);
    tplan_memory_eval_stage_at(&dual, 0, 1, &one0);
    assert_int_equal(d.total_bytes, one0.total_bytes);
}

/* HSDP (issue 37, docs/MODEL.md section 12.10): ZeRO shards over the shard
 * group, not the data-parallel group. The ZeRO paper's per-GPU states at
 * N_d = 8 (Rajbhandari et al. 2020, Figure 1: (2 + 2 + K) Psi / N_d at
 * stage 3, 2 Psi + 2 Psi + K Psi / N_d at stage 1, K = 12) hold for 64
 * GPUs in 8 groups of 8; a group of all 64 is plain ZeRO. */
static void test_hsdp_states(void **state)
{
    const double psi = 7.5e9;
    tplan_config c;
    tplan_plan p, q;

    (void)state;
    zero_paper_config(&c);
    c.zero = 3;
    c.zero_shard_group = 8;
    eval_ok(&c, &p);
    /* whole bytes: llround of exact quotients */
    assert_near((double)(p.mem.weights_bytes + p.mem.grads_bytes +
                         p.mem.optimizer_bytes),
                16.0 * psi / 8.0, 2.0);
    c.zero = 1;
    eval_ok(&c, &p);
    assert_near((double)(p.mem.weights_bytes + p.mem.grads_bytes +
                         p.mem.optimizer_bytes),
                4.0 * psi + 12.0 * psi / 8.0, 2.0);
    /* N = dp is plain ZeRO, field for field */
    c.zero = 3;
    c.zero_shard_group = 64;
    eval_ok(&c, &p);
    c.zero_shard_group = 0;
    eval_ok(&c, &q);
    assert_true(p.mem.total_bytes == q.mem.total_bytes);
    assert_near((double)(p.mem.weights_bytes + p.mem.grads_bytes +
                         p.mem.optimizer_bytes),
                16.0 * psi / 64.0, 2.0);
}

/* Llama-3-8B on 64 H100s, ZeRO-3 in HSDP groups of 8: the 16-bit weights
 * and gradients per GPU are the parameters x 2 bytes / 8, the master
 * copy and Adam's states x 12 / 8; bad groups are refused by name. */
static void test_hsdp_llama(void **state)
{
    tplan_config c;
    tplan_plan p;
    tplan_err err;
    double n;

    (void)state;
    config_for(&c, "llama3-8b", "h100-sxm");
    c.gpus = 64;
    c.zero = 3;
    c.seq = 4096;
    c.micro_batch = 1;
    c.zero_shard_group = 8;
    eval_ok(&c, &p);
    n = (double)p.params;
    assert_near((double)p.mem.weights_bytes, n * 2.0 / 8.0, 1.0);
    assert_near((double)p.mem.grads_bytes, n * 2.0 / 8.0, 1.0);
    assert_near((double)p.mem.optimizer_bytes, n * 12.0 / 8.0, 1.0);
    assert_true(tplan_config_zero_replicas(&c) == 8);
    c.zero_shard_group = 7;
    assert_true(tplan_plan_eval(&c, &p, &err) == TPLAN_EINVAL);
    assert_string_equal(err.field, "zero_shard_group");
    c.zero_shard_group = 8;
    c.zero = 0;
    assert_true(tplan_plan_eval(&c, &p, &err) == TPLAN_EINVAL);
    assert_string_equal(err.field, "zero_shard_group");
}

/* reshard_after_forward=false (FSDP2): the forward's end holds every
 * layer's gathered 16-bit weights, the parameters x 2 bytes on one
 * pipeline stage, over what resharding holds; ZeRO-3 only. */
static void test_no_reshard(void **state)
{
    tplan_config c;
    tplan_plan p, q;
    tplan_err err;

    (void)state;
    config_for(&c, "llama3-8b", "h100-sxm");
    c.gpus = 8;
    c.zero = 3;
    c.seq = 4096;
    c.micro_batch = 1;
    eval_ok(&c, &p);
    c.reshard_after_forward = false;
    eval_ok(&c, &q);
    assert_near((double)q.mem.reshard_held_bytes, (double)p.params * 2.0, 1.0);
    /* the forward's phase is the peak here (activations over the step's
     * temporaries): the total rises by exactly the held weights */
    assert_near((double)(q.mem.total_bytes - p.mem.total_bytes),
                (double)p.params * 2.0, 2.0);
    c.zero = 2;
    assert_true(tplan_plan_eval(&c, &p, &err) == TPLAN_EINVAL);
    assert_string_equal(err.field, "reshard_after_forward");
}

/* Activation offloading (issue 37, docs/MODEL.md section 12.10) on a
 * Llama-3-8B LoRA fine-tune at 32k tokens with full recomputation: each
 * layer keeps its input, 2 s h bytes in 16 bits (Korthikanti et al.
 * 2022, Table 2's full recomputation row), L = 32 of them, and the
 * embedding its int64 token ids, 8 s bytes (torchtune offloads every
 * saved tensor of 1 KiB or more). A share f offloads f of the ids and
 * of L - 1 layers (the last stays) and stages f of one layer: the GPU's
 * activations fall by f (8 s + (L - 2) layers) and the host holds
 * f (8 s + (L - 1) layers). Without it the plan does not fit one H100;
 * all of it fits. */
static void test_act_offload(void **state)
{
    static const double share[] = {0.25, 0.5, 1.0};
    const double layer = 2.0 * 32768.0 * 4096.0, L = 32.0, ids = 8 * 32768.0;
    tplan_config c;
    tplan_plan p0, p;
    tplan_err err;

    (void)state;
    config_for(&c, "llama3-8b", "h100-sxm");
    c.seq = 32768;
    c.micro_batch = 1;
    c.lora_rank = 16;
    c.finetune = true;
    c.recompute = TPLAN_RECOMPUTE_FULL;
    eval_ok(&c, &p0);
    assert_near(p0.mem.act_layer_bytes, layer, 0.5);
    assert_false(p0.mem.fits);
    assert_true(p0.mem.host_bytes == 0);
    for (size_t i = 0; i < sizeof share / sizeof share[0]; i++) {
        c.offload_activations = share[i];
        eval_ok(&c, &p);
        /* llround of each figure: a byte each */
        assert_near((double)(p0.mem.activations_bytes -
                             p.mem.activations_bytes),
                    share[i] * (ids + (L - 2.0) * layer), 1.0);
        assert_near((double)(p0.mem.total_bytes - p.mem.total_bytes),
                    share[i] * (ids + (L - 2.0) * layer), 2.0);
        assert_near((double)p.mem.act_offload_bytes,
                    share[i] * (ids + (L - 1.0) * layer), 1.0);
        assert_true(p.mem.host_bytes == p.mem.act_offload_bytes);
    }
    assert_true(p.mem.fits);
    /* the host's room bounds the micro-batch: where the GPU alone
     * allows more than 3, 3.5 samples' worth of offloaded activations at
     * seq 4096 allows 3 */
    c.seq = 4096;
    c.micro_batch = 0;
    c.offload_activations = 1.0;
    eval_ok(&c, &p);
    assert_true(p.mem.max_micro_batch > 3);
    c.host_memory_bytes =
        3.5 * (8.0 * 4096.0 + (L - 1.0) * 2.0 * 4096.0 * 4096.0);
    eval_ok(&c, &p);
    assert_true(p.mem.max_micro_batch == 3);
    assert_true(p.mem.host_fits);
    c.micro_batch = 4;
    eval_ok(&c, &p);
    assert_false(p.mem.host_fits);
    assert_false(p.mem.fits);
    c.offload_activations = 1.5;
    assert_true(tplan_plan_eval(&c, &p, &err) == TPLAN_EINVAL);
    assert_string_equal(err.field, "offload_activations");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_paper),
        cmocka_unit_test(test_hsdp_states),
        cmocka_unit_test(test_hsdp_llama),
        cmocka_unit_test(test_no_reshard),
        cmocka_unit_test(test_act_offload),
        cmocka_unit_test(test_reference_case_one_gpu),
        cmocka_unit_test(test_reference_case_zero3),
        cmocka_unit_test(test_uneven_stages),
        cmocka_unit_test(test_max_batch_is_tight),
        cmocka_unit_test(test_pipeline_inflight),
        cmocka_unit_test(test_tensor_parallel_params),
        cmocka_unit_test(test_bytes_per_param),
        cmocka_unit_test(test_autocast_weight_copies),
        cmocka_unit_test(test_zero3_gather),
        cmocka_unit_test(test_generic_model),
        cmocka_unit_test(test_adafactor_factored),
        cmocka_unit_test(test_zero_over_dp_with_tp_pp),
        cmocka_unit_test(test_tied_head_copy),
        cmocka_unit_test(test_last_stage_inflight),
        cmocka_unit_test(test_stage_inflight),
        cmocka_unit_test(test_pp_embed_loss),
        cmocka_unit_test(test_pp_embed_loss_mtp),
        cmocka_unit_test(test_middle_stage_worst),
        cmocka_unit_test(test_dense_first_stage_worst),
        cmocka_unit_test(test_full_recompute_rebuilds_a_layer),
        cmocka_unit_test(test_kv_replication),
        cmocka_unit_test(test_working_copies),
        cmocka_unit_test(test_megatron_fp32_grads),
        cmocka_unit_test(test_advice_names_the_fix),
        cmocka_unit_test(test_nccl_buffers),
        cmocka_unit_test(test_nvls_buffers),
        cmocka_unit_test(test_blas_workspace),
        cmocka_unit_test(test_gradient_buckets),
        cmocka_unit_test(test_optimizer_step_temporaries),
        cmocka_unit_test(test_gather_sets),
        cmocka_unit_test(test_fused_norm),
        cmocka_unit_test(test_set_to_none),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_pipeline_schedule_memory),
        cmocka_unit_test(test_schedule_errors),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
