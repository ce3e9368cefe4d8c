/* FLOPs, step time, scaling, cost and energy. */
#include "tplan_test.h"

#include "fields.h"
#include "flops.h"
#include "framework.h"
#include "plan.h"
#include "run.h"
#include "scaling.h"

/* A Megatron GPT: GELU, f = 4h, LayerNorm, learned positions, biases,
 * V = 51,200 (Narayanan et al. 2021). */
static void megatron_gpt(tplan_model *m, int64_t layers, int64_t hidden,
                         int64_t heads)
{
    tplan_model_init(m);
    m->layers = layers;
    m->hidden = hidden;
    m->heads = heads;
    m->kv_heads = heads;
    m->ffn = 4 * hidden;
    m->vocab = 51200;
    m->max_seq = 2048;
}

/* Narayanan Table 1 architectures: our per-matmul count reproduces their
 * closed forms exactly when attention is counted in full (as they do):
 * model FLOPs 72BsLh^2(1 + s/6h + V/12Lh) and, with full recomputation,
 * Eq. 3 96BsLh^2(1 + s/6h + V/16Lh). */
static void test_megatron_closed_forms(void **state)
{
    static const struct {
        int64_t layers, hidden, heads, batch;
    } rows[] = {
        {24, 2304, 24, 512},     {30, 3072, 32, 512},
        {36, 4096, 32, 512},     {40, 6144, 48, 1024},
        {48, 8192, 64, 1536},    {60, 10240, 80, 1792},
        {80, 12288, 96, 2304},   {96, 16384, 128, 2160},
        {105, 20480, 128, 2520}, {128, 25600, 160, 3072},
    };

    (void)state;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        tplan_model m;
        tplan_flops f;
        double B = (double)rows[i].batch, L = (double)rows[i].layers;
        double h = (double)rows[i].hidden;

        megatron_gpt(&m, rows[i].layers, rows[i].hidden, rows[i].heads);
        tplan_flops_eval(&m, 2048, B, TPLAN_RECOMPUTE_NONE, TPLAN_ATTN_EAGER,
                         false, &f);
        assert_rel(f.model, tplan_megatron_model_flops(B, 2048, L, h, 51200),
                   1e-12);
        assert_rel(f.hardware, f.model, 1e-12);
        tplan_flops_eval(&m, 2048, B, TPLAN_RECOMPUTE_FULL, TPLAN_ATTN_EAGER,
                         false, &f);
        assert_rel(f.hardware,
                   tplan_megatron_full_recompute_flops(B, 2048, L, h, 51200),
                   1e-12);
    }
}

/* The closed form written out for one row, independently of the helper:
 * 1.7B (L=24, h=2304), B=512, s=2048, V=51200. */
static void test_megatron_eq3_by_hand(void **state)
{
    tplan_model m;
    tplan_flops f;
    double B = 512, s = 2048, L = 24, h = 2304, V = 51200;

    (void)state;
    megatron_gpt(&m, 24, 2304, 24);
    tplan_flops_eval(&m, 2048, B, TPLAN_RECOMPUTE_FULL, TPLAN_ATTN_EAGER, false,
                     &f);
    assert_rel(f.hardware,
               96 * B * s * L * h * h * (1 + s / (6 * h) + V / (16 * L * h)),
               1e-12);
}

/* GQA shrinks only K and V projections; SwiGLU has three f-wide matmuls;
 * causal attention counts half of the core in model FLOPs; flash's
 * backward costs 2.5 forwards; selective recompute adds one core forward. */
static void test_flops_architectures(void **state)
{
    tplan_model m;
    tplan_flops a, b;
    double s = 4096, h = 4096, L = 32, f = 14336, V = 128256, kd = 1024;

    (void)state;
    tplan_model_preset("llama3-8b", &m, NULL);
    tplan_flops_eval(&m, 4096, 1, TPLAN_RECOMPUTE_NONE, TPLAN_ATTN_FLASH, true,
                     &a);
    /* per token: 3 x 2 x (h(h+2kd) + h^2 + 3hf) L + 3 x 2 s h L (causal)
     * + 3 x 2 h V */
    assert_rel(a.per_token,
               6 * L * (h * (h + 2 * kd) + h * h + 3 * h * f) + 6 * s * h * L +
                   6 * h * V,
               1e-12);
    assert_rel(a.model, a.per_token * s, 1e-12);
    /* flash: hardware core = 3.5 x the causal forward 2 s h L per token */
    assert_rel(a.attn_hw, 3.5 * 2 * s * h * L * s, 1e-12);
    tplan_flops_eval(&m, 4096, 1, TPLAN_RECOMPUTE_SELECTIVE, TPLAN_ATTN_FLASH,
                     true, &b);
    assert_rel(b.hardware, a.hardware, 1e-12);
    tplan_flops_eval(&m, 4096, 1, TPLAN_RECOMPUTE_SELECTIVE, TPLAN_ATTN_EAGER,
                     true, &b);
    /* eager: full square computed (4 s h L per token forward), x3, + one */
    assert_rel(b.attn_hw, 4 * 4 * s * h * L * s, 1e-12);
    assert_rel(b.model, a.model, 1e-12);
    /* Gemma 2 9B: q and the output projection are a d = 4096 wide on h =
     * 3584, and the core works on a d, not h */
    tplan_model_preset("gemma2-9b", &m, NULL);
    tplan_flops_eval(&m, 4096, 1, TPLAN_RECOMPUTE_NONE, TPLAN_ATTN_FLASH, true,
                     &a);
    h = 3584, L = 42, f = 14336, V = 256000, kd = 2048;
    assert_rel(a.per_token,
               6 * L * (h * (4096 + 2 * kd) + 4096 * h + 3 * h * f) +
                   6 * s * 4096 * L + 6 * h * V,
               1e-12);
}

/* The step adds up, MFU is model FLOPs over time x GPUs x peak, and tokens
 * per second is the global batch over the step. */
static void test_step_identities(void **state)
{
    tplan_config c;
    tplan_plan p;
    const tplan_perf *f = &p.perf;

    (void)state;
    config_for(&c, "llama2-7b", "h100-sxm");
    c.gpus = 64;
    c.tp = 2;
    c.pp = 2;
    c.zero = 1;
    c.micro_batch = 2;
    c.accum = 8;
    c.recompute = TPLAN_RECOMPUTE_SELECTIVE;
    eval_ok(&c, &p);
    assert_rel(f->step_time_s,
               f->compute_s + f->bubble_s + f->tp_comm_s + f->pp_comm_s +
                   f->dp_exposed_s + f->optimizer_s,
               1e-12);
    assert_rel(f->mfu, f->flops_per_step / (f->step_time_s * 64 * 989.4e12),
               1e-12);
    assert_rel(f->tokens_per_s, 2.0 * 16 * 8 * 4096 / f->step_time_s, 1e-12);
    assert_rel(f->bubble_fraction, 1.0 / 8.0, 1e-12);
    assert_true(f->mfu > 0.2 && f->mfu < 0.6);
    assert_true(f->hfu >= f->mfu);
    assert_true(f->tp_comm_s > 0 && f->pp_comm_s > 0 && f->dp_comm_s > 0);
}

/* Efficiency falls for small per-GPU matrix work: narrow TP shards,
 * micro-batch 1 at short sequences. */
static void test_efficiency_falls_for_small_work(void **state)
{
    tplan_config c;
    tplan_plan p1, p2;

    (void)state;
    config_for(&c, "llama2-7b", "a100-80g");
    c.gpus = 8;
    c.micro_batch = 1;
    c.seq = 4096;
    eval_ok(&c, &p1);
    /* narrow TP shards: the achieved MFU falls (TP traffic); with an
     * explicit per-doubling loss the matmuls slow down too */
    c.tp = 8;
    eval_ok(&c, &p2);
    assert_true(p2.perf.mfu < p1.perf.mfu);
    c.gpu.eff_tp = 0.05;
    eval_ok(&c, &p2);
    assert_rel(p2.perf.matmul_eff, p1.perf.matmul_eff * (1 - 0.05 * 3), 1e-12);
    c.gpu.eff_tp = 0;
    c.tp = 1;
    c.seq = 256;
    eval_ok(&c, &p2);
    assert_true(p2.perf.matmul_eff < p1.perf.matmul_eff);
    c.efficiency = 0.5;
    eval_ok(&c, &p2);
    assert_near(p2.perf.matmul_eff, 0.5, 0);
}

/* ZeRO-3 at a fixed global batch: per-GPU throughput falls as GPUs grow
 * (the (n-1)/n share of 1.5x the data-parallel traffic grows, and past one
 * node it crosses the network: here a cloud-style 100 Gb/s per GPU). */
static void test_zero3_scaling_falls(void **state)
{
    static const int64_t counts[] = {8, 16, 32, 64, 128};
    static tplan_scaling_row rows[5];
    tplan_config c;

    (void)state;
    config_for(&c, "llama2-13b", "a100-80g");
    c.gpus = 8;
    c.zero = 3;
    c.seq = 2048;
    c.micro_batch = 1;
    c.accum = 32;
    c.recompute = TPLAN_RECOMPUTE_FULL;
    c.nic_bytes_per_s = 100e9 / 8;
    assert_int_equal(tplan_scaling_eval(&c, counts, 5, rows, NULL), TPLAN_OK);
    assert_near(rows[0].efficiency, 1.0, 1e-12);
    for (int i = 1; i < 5; i++) {
        assert_int_equal(rows[i].plan.global_batch, 256);
        assert_true(rows[i].exact_batch);
        assert_true(rows[i].efficiency < rows[i - 1].efficiency);
        assert_true(rows[i].speedup > rows[i - 1].speedup);
    }
    assert_true(rows[4].efficiency < 0.97);
}

/* Tensor parallelism across nodes is slower than within one. */
static void test_tp_across_nodes(void **state)
{
    tplan_config c;
    tplan_plan in, across;

    (void)state;
    config_for(&c, "llama2-70b", "h100-sxm");
    c.gpus = 16;
    c.tp = 8;
    c.zero = 1;
    c.micro_batch = 1;
    c.accum = 16;
    c.gpus_per_node = 8;
    eval_ok(&c, &in);
    assert_false(in.perf.tp_inter_node);
    c.gpus_per_node = 4;
    eval_ok(&c, &across);
    assert_true(across.perf.tp_inter_node);
    /* 4 GPUs' NICs (4 x 50 GB/s) instead of NVLink (450 GB/s) */
    assert_true(across.perf.tp_comm_s > 1.5 * in.perf.tp_comm_s);
    assert_true(across.perf.step_time_s > in.perf.step_time_s);
}

/* More pipeline stages with few micro-batches raise the bubble: (p-1)/m,
 * and interleaving divides it by v. */
static void test_pipeline_bubble(void **state)
{
    tplan_config c;
    tplan_plan p2, p4, p8, p8v;

    (void)state;
    config_for(&c, "gpt3-175b", "a100-80g");
    c.tp = 8;
    c.micro_batch = 1;
    c.accum = 8;
    c.pp = 2;
    c.gpus = 16;
    eval_ok(&c, &p2);
    c.pp = 4;
    c.gpus = 32;
    eval_ok(&c, &p4);
    c.pp = 8;
    c.gpus = 64;
    eval_ok(&c, &p8);
    c.vpp = 4;
    eval_ok(&c, &p8v);
    assert_near(p2.perf.bubble_fraction, 1.0 / 8.0, 1e-12);
    assert_near(p4.perf.bubble_fraction, 3.0 / 8.0, 1e-12);
    assert_near(p8.perf.bubble_fraction, 7.0 / 8.0, 1e-12);
    assert_near(p8v.perf.bubble_fraction, 7.0 / 32.0, 1e-12);
    assert_true(p4.perf.bubble_s > p2.perf.bubble_s);
    assert_true(p8.perf.bubble_s > p4.perf.bubble_s);
    assert_true(p8.perf.mfu < p4.perf.mfu && p4.perf.mfu < p2.perf.mfu);
}

/* The Choosing guide's step 9 (docs/MODEL.md section 7.2): 10 h x 1 GPU x
 * $4 = $40 against 3 h x 4 GPUs x $4 = $48, through the run evaluation. */
static void test_cost_reference(void **state)
{
    tplan_config c;
    tplan_perf perf = {0};
    tplan_run r;

    (void)state;
    config_for(&c, "gpt2", "a100-80g");
    c.price_usd_per_h = 4.0;
    c.tokens = 36000.0 * 1024; /* 36,000 steps of 1024 tokens */
    perf.timed = true;
    perf.step_time_s = 1.0; /* 36,000 s = 10 h */
    c.gpus = 1;
    tplan_run_eval(&c, &perf, 124439808, 1024, &r);
    assert_int_equal(r.steps, 36000);
    assert_near(r.time_h, 10.0, 1e-9);
    assert_near(r.cost_usd, 40.0, 1e-9);
    perf.step_time_s = 0.3; /* the same steps on 4 GPUs: 3 h */
    c.gpus = 4;
    tplan_run_eval(&c, &perf, 124439808, 1024, &r);
    assert_near(r.time_h, 3.0, 1e-9);
    assert_near(r.gpu_hours, 12.0, 1e-9);
    assert_near(r.cost_usd, 48.0, 1e-9);
    assert_near(tplan_cost_usd(10, 1, 4), 40.0, 0);
    assert_near(tplan_cost_usd(3, 4, 4), 48.0, 0);
}

/* Energy = GPUs x power x utilisation x hours x PUE; CO2 = energy x grid;
 * the default budget is 20 tokens per parameter (Hoffmann 2022). */
static void test_energy_and_budget(void **state)
{
    tplan_config c;
    tplan_plan p;

    (void)state;
    assert_near(tplan_energy_kwh(10, 8, 700, 1.0, 1.1), 61.6, 1e-9);
    config_for(&c, "llama2-7b", "h100-sxm");
    c.gpus = 8;
    c.zero = 1;
    c.recompute = TPLAN_RECOMPUTE_FULL;
    eval_ok(&c, &p);
    assert_true(p.run.default_budget);
    assert_near(p.run.tokens, 20.0 * 6738415616.0, 0);
    assert_int_equal(p.run.steps,
                     (int64_t)ceil(p.run.tokens / (double)p.tokens_per_step));
    assert_rel(p.run.time_h, p.run.steps * p.perf.step_time_s / 3600, 1e-12);
    assert_rel(p.run.energy_kwh, 8 * 700 * p.run.time_h * 1.1 / 1000, 1e-12);
    assert_rel(p.run.co2_kg, p.run.energy_kwh * 0.429, 1e-12);
    assert_rel(p.run.cost_usd, p.run.gpu_hours * 3.90, 1e-12);
    c.epochs = 2;
    c.dataset_samples = 1000000;
    eval_ok(&c, &p);
    assert_false(p.run.default_budget);
    assert_near(p.run.tokens, 2.0 * 1e6 * 4096, 0);
}

static void test_run_errors(void **state)
{
    static const struct {
        double price, pue, tokens, nic, overlap;
        const char *msg;
    } bad[] = {
        {-1, 1.1, 0, 0, 0.9, "price must be in [0, 1e+06] (price=-1)"},
        {0, 0.9, 0, 0, 0.9, "pue must be in [1, 10] (pue=0.9)"},
        {0, 1.1, -5, 0, 0.9, "tokens must be in [0, 1e+18] (tokens=-5)"},
        {0, 1.1, 0, -1, 0.9,
         "nic_bytes_per_s must be in [0, 1e+15] (nic_bytes_per_s=-1)"},
        {0, 1.1, 0, 0, 1.5, "overlap must be in [0, 1] (overlap=1.5)"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tplan_config c;
        tplan_err err;

        config_for(&c, "gpt2", "a100-80g");
        c.price_usd_per_h = bad[i].price;
        c.pue = bad[i].pue;
        c.tokens = bad[i].tokens;
        c.nic_bytes_per_s = bad[i].nic;
        c.overlap = bad[i].overlap;
        assert_int_equal(tplan_config_validate(&c, &err), TPLAN_EINVAL);
        assert_string_equal(err.msg, bad[i].msg);
    }
}

/* Collective volumes and counts, by hand. Ring all-reduce of the gradients
 * over 8 NVLink GPUs: 2 (n-1)/n S / (450 GB/s x 0.77) + 3 x 10 us. */
static void test_collectives_by_hand(void **state)
{
    tplan_config c;
    tplan_plan p, q;
    double s, bw = 450e9 * 0.77, lat = 10e-6 * 3;

    (void)state;
    config_for(&c, "llama2-7b", "h100-sxm");
    c.gpus = 8;
    c.recompute = TPLAN_RECOMPUTE_FULL;
    c.micro_batch = 1;
    c.accum = 4;
    eval_ok(&c, &p);
    s = (double)p.mem.params_on_device * 2; /* bf16 gradients */
    assert_rel(p.perf.dp_comm_s, 2 * 7.0 / 8 * s / bw + lat, 1e-12);
    /* ZeRO-2: a reduce-scatter every micro-batch, one all-gather after */
    c.zero = 2;
    eval_ok(&c, &p);
    assert_rel(p.perf.dp_comm_s, 5 * (7.0 / 8 * s / bw + lat), 1e-12);
    /* ZeRO-3: two all-gathers and a reduce-scatter every micro-batch */
    c.zero = 3;
    eval_ok(&c, &p);
    assert_rel(p.perf.dp_comm_s, 4 * 3 * (7.0 / 8 * s / bw + lat), 1e-12);
    /* the overlap hides at most overlap x comm, and only under compute */
    assert_rel(p.perf.dp_exposed_s,
               p.perf.dp_comm_s -
                   fmin(0.9 * p.perf.dp_comm_s, p.perf.compute_s),
               1e-12);
    /* tensor parallelism: 4 all-reduces per layer per micro-batch, 6 when
     * full recomputation repeats the forward */
    c.zero = 0;
    c.tp = 8;
    eval_ok(&c, &p);
    c.recompute = TPLAN_RECOMPUTE_SELECTIVE;
    eval_ok(&c, &q);
    assert_rel(p.perf.tp_comm_s, q.perf.tp_comm_s * 6.0 / 4.0, 1e-12);
    assert_rel(q.perf.tp_comm_s,
               4.0 * 32 * 4 * (2 * 7.0 / 8 * 4096.0 * 4096 * 2 / bw + lat),
               1e-12);
}

/* The overlap window is the compute that can hide the traffic: with a tiny
 * compute the exposed part is the traffic less that compute. */
static void test_overlap_window(void **state)
{
    tplan_config c;
    tplan_plan p;

    (void)state;
    config_for(&c, "gpt2", "a100-80g");
    c.gpus = 64;
    c.zero = 3;
    c.micro_batch = 1;
    c.seq = 128;
    c.nic_bytes_per_s = 1e9;
    eval_ok(&c, &p);
    assert_true(p.perf.dp_comm_s * 0.9 > p.perf.compute_s);
    assert_rel(p.perf.dp_exposed_s, p.perf.dp_comm_s - p.perf.compute_s, 1e-12);
}

/* The collectives' latency term counts ceil(log2(n)) hops: exactly libm's
 * for every group size up to 2^22 and at powers of two and their
 * neighbours beyond. */
static void test_collective_hops(void **state)
{
    (void)state;
    for (int64_t n = 2; n <= (1 << 22); n++)
        assert_true(tplan_allreduce_s(0.0, (double)n, 1.0, 1.0) ==
                    ceil(log2((double)n)));
    for (int k = 22; k < 40; k++)
        for (int d = -1; d <= 1; d++) {
            double n = ldexp(1.0, k) + d;

            assert_true(tplan_allgather_s(0.0, n, 1.0, 1.0) ==
                        ceil(log2(n)));
        }
    assert_true(tplan_allreduce_s(0.0, 2.5, 1.0, 1.0) == 2.0);
}

/* tp_overlap hides that share of the TP traffic, at most the compute; the
 * step counts what is left. */
static void test_tp_overlap(void **state)
{
    tplan_config c;
    tplan_plan p, q;

    (void)state;
    config_for(&c, "llama3-70b", "h100-sxm");
    c.gpus = 64;
    c.tp = 4;
    c.pp = 8;
    c.micro_batch = 1;
    c.accum = 32;
    eval_ok(&c, &p);
    assert_true(p.perf.tp_comm_s > 0.0);
    assert_rel(p.perf.tp_exposed_s, p.perf.tp_comm_s, 1e-12);
    c.tp_overlap = 0.5;
    eval_ok(&c, &q);
    assert_rel(q.perf.tp_comm_s, p.perf.tp_comm_s, 1e-12);
    assert_rel(q.perf.tp_exposed_s, 0.5 * p.perf.tp_comm_s, 1e-12);
    assert_rel(p.perf.step_time_s - q.perf.step_time_s,
               0.5 * p.perf.tp_comm_s, 1e-9);
    /* at most the compute: a tiny compute window hides no more than
     * itself */
    c.tp_overlap = 1.0;
    c.efficiency = 1.0;
    c.seq = 128;
    c.nic_bytes_per_s = 1e9;
    c.link_bytes_per_s = 1e9;
    eval_ok(&c, &q);
    assert_true(q.perf.tp_comm_s > q.perf.compute_s);
    assert_rel(q.perf.tp_exposed_s, q.perf.tp_comm_s - q.perf.compute_s,
               1e-12);
    /* the compute hides TP and data-parallel traffic once, not twice:
     * with ZeRO-3 (whose window is all of the compute) and overlap 1 */
    c.zero = 3;
    c.gpus = 256;
    c.overlap = 1.0;
    eval_ok(&c, &q);
    assert_true(q.perf.dp_comm_s > 0.0);
    assert_true((q.perf.tp_comm_s - q.perf.tp_exposed_s) +
                    (q.perf.dp_comm_s - q.perf.dp_exposed_s) <=
                q.perf.compute_s * (1.0 + 1e-12));
}

/* The compute that hides TP traffic hides no expert all-to-all and no
 * offload transfer either: TP and EP hidden together stay within the
 * compute, and an offloaded run whose compute all hides TP traffic
 * exposes its whole PCIe traffic. */
static void test_tp_overlap_shares_compute(void **state)
{
    tplan_config c;
    tplan_plan p, q;

    (void)state;
    config_for(&c, "mixtral-8x7b", "h100-sxm");
    c.gpus = 64;
    c.tp = 2;
    c.ep = 8;
    c.zero = 1;
    c.micro_batch = 1;
    c.seq = 512;
    c.tp_overlap = 1.0;
    c.moe_overlap = 1.0;
    c.link_bytes_per_s = 2e9;
    c.nic_bytes_per_s = 2e9;
    eval_ok(&c, &p);
    assert_true(p.perf.tp_comm_s > 0.0 && p.perf.ep_comm_s > 0.0);
    assert_true(p.perf.tp_comm_s + p.perf.ep_comm_s > p.perf.compute_s);
    assert_true((p.perf.tp_comm_s - p.perf.tp_exposed_s) +
                    (p.perf.ep_comm_s - p.perf.ep_exposed_s) <=
                p.perf.compute_s * (1.0 + 1e-12));
    assert_true(p.perf.ep_exposed_s <= p.perf.ep_comm_s);

    config_for(&c, "llama3-8b", "h100-sxm");
    c.gpus = 2;
    c.tp = 2;
    c.micro_batch = 1;
    c.seq = 512;
    c.offload_params = TPLAN_OFFLOAD_CPU;
    c.zero = 3;
    c.overlap = 1.0;
    c.link_bytes_per_s = 1e9;
    eval_ok(&c, &p);
    c.tp_overlap = 1.0;
    eval_ok(&c, &q);
    assert_true(q.perf.tp_comm_s > q.perf.compute_s); /* all of it hides TP */
    assert_true(p.perf.offload_s > 0.0);
    assert_true(q.perf.offload_s > p.perf.offload_s);
}

/* zero12_overlap scales the overlap under ZeRO 0-2 only: DeepSpeed's
 * ZeRO-1/2 (overlap_comm off) expose all of their traffic, its ZeRO-3
 * keeps the overlap. */
static void test_zero12_overlap(void **state)
{
    tplan_config c;
    tplan_plan p, q;

    (void)state;
    config_for(&c, "llama2-7b", "a100-80g");
    c.gpus = 16;
    c.micro_batch = 1;
    c.accum = 4;
    for (int z = 0; z <= 3; z++) {
        c.zero = z;
        c.zero12_overlap = 1.0;
        eval_ok(&c, &p);
        c.zero12_overlap = 0.0;
        eval_ok(&c, &q);
        assert_rel(q.perf.dp_comm_s, p.perf.dp_comm_s, 1e-12);
        if (z < 3) {
            assert_true(p.perf.dp_exposed_s < p.perf.dp_comm_s);
            assert_rel(q.perf.dp_exposed_s, q.perf.dp_comm_s, 1e-12);
            assert_true(q.perf.step_time_s > p.perf.step_time_s);
        } else {
            assert_rel(q.perf.dp_exposed_s, p.perf.dp_exposed_s, 1e-12);
        }
    }
}

/* fp8: matmuls at the fp8 peak times fp8_ratio of the bf16 efficiency, the
 * attention core at the bf16 peak. */
static void test_fp8_timing(void **state)
{
    tplan_config c;
    tplan_plan p8, p16;
    tplan_flops f;
    double peak8 = 1978.9e12, peak16 = 989.4e12;

    (void)state;
    config_for(&c, "llama2-7b", "h100-sxm");
    c.gpus = 8;
    c.micro_batch = 1;
    eval_ok(&c, &p16);
    c.precision = TPLAN_PREC_FP8;
    eval_ok(&c, &p8);
    /* the default recipe, tensorwise, at its Hopper ratio (hardware.c) */
    assert_int_equal(c.fp8_recipe, TPLAN_FP8_TENSORWISE);
    assert_rel(p8.perf.matmul_eff,
               p16.perf.matmul_eff *
                   tplan_fp8_recipe_ratio(&c.gpu, TPLAN_FP8_TENSORWISE),
               1e-12);
    tplan_flops_eval(&c.model, c.seq, 8, c.recompute, c.attention, true, &f);
    assert_rel(p8.perf.compute_s,
               f.matmul_hw / 8 / (peak8 * p8.perf.matmul_eff) +
                   f.attn_hw / 8 / (peak16 * p8.perf.attn_eff),
               1e-12);
}

static bool warned(const tplan_plan *p, const char *needle)
{
    for (int i = 0; i < p->n_warnings; i++)
        if (strstr(p->warnings[i], needle))
            return true;
    return false;
}

/* Era terms (issue 34): a framework's fit_attention is the plan's
 * attention unless a later field sets it; another kernel is warned
 * about, the fitted one is not. */
static void test_fit_attention(void **state)
{
    static const char *const needle = "was fitted under eager attention";
    tplan_config c;
    tplan_framework f;
    tplan_plan p;

    (void)state;
    config_for(&c, "gpt2", "a100-80g");
    c.micro_batch = 1;
    assert_int_equal(c.attention, TPLAN_ATTN_FLASH); /* the engine's default */
    assert_int_equal(tplan_framework_lookup("megatron-2021", &f, NULL),
                     TPLAN_OK);
    tplan_framework_apply(&f, &c);
    assert_int_equal(c.fit_attention, TPLAN_FIT_ATTN_EAGER);
    assert_int_equal(c.attention, TPLAN_ATTN_EAGER);
    eval_ok(&c, &p);
    assert_false(warned(&p, needle));
    /* the user's kernel after the framework: kept, and warned about */
    assert_int_equal(tplan_field_set_text(tplan_field_find("attention"),
                                          "flash", &c, NULL),
                     TPLAN_OK);
    assert_int_equal(c.attention, TPLAN_ATTN_FLASH);
    eval_ok(&c, &p);
    assert_true(warned(&p, needle));
    /* a profile fitted under flash says nothing of flash */
    config_for(&c, "gpt2", "a100-80g");
    c.micro_batch = 1;
    assert_int_equal(tplan_framework_lookup("fsdp", &f, NULL), TPLAN_OK);
    tplan_framework_apply(&f, &c);
    assert_int_equal(c.fit_attention, TPLAN_FIT_ATTN_FLASH);
    eval_ok(&c, &p);
    assert_false(warned(&p, "was fitted under"));
    /* every built-in records the kernel it was fitted under */
    for (int i = 0; i < tplan_framework_count(); i++) {
        config_for(&c, "gpt2", "a100-80g");
        assert_int_equal(tplan_framework_lookup(tplan_framework_name_at(i),
                                                &f, NULL),
                         TPLAN_OK);
        tplan_framework_apply(&f, &c);
        assert_true(c.fit_attention != TPLAN_FIT_ATTN_ANY);
    }
}

/* fp8 recipes (issue 34): each picks its fitted ratio on Hopper and
 * Blackwell; mxfp8 before Blackwell is an error naming the field; a
 * given fp8_ratio replaces the recipe's. */
static void test_fp8_recipes(void **state)
{
    tplan_config c;
    tplan_plan p16, p8;
    tplan_err err;
    double r;

    (void)state;
    config_for(&c, "llama2-7b", "h100-sxm");
    c.gpus = 8;
    c.micro_batch = 1;
    eval_ok(&c, &p16);
    c.precision = TPLAN_PREC_FP8;
    for (int k = 0; k < TPLAN_FP8_RECIPE_COUNT; k++) {
        c.fp8_recipe = (tplan_fp8_recipe)k;
        r = tplan_fp8_recipe_ratio(&c.gpu, c.fp8_recipe);
        if (k == TPLAN_FP8_MXFP8) {
            assert_true(r < 0);
            assert_int_equal(tplan_plan_eval(&c, &p8, &err), TPLAN_EINVAL);
            assert_string_equal(err.field, "fp8_recipe");
            continue;
        }
        /* a ratio at most 1 (fp8 no better than 16-bit), above the
         * family's guess it replaced */
        assert_true(r > c.gpu.fp8_ratio && r <= 1.0);
        eval_ok(&c, &p8);
        assert_rel(p8.perf.matmul_eff, p16.perf.matmul_eff * r, 1e-12);
    }
    /* blockwise's finer scales cost against tensorwise (fitted pair) */
    assert_true(tplan_fp8_recipe_ratio(&c.gpu, TPLAN_FP8_BLOCKWISE) <
                tplan_fp8_recipe_ratio(&c.gpu, TPLAN_FP8_TENSORWISE));
    /* mxfp8 runs on Blackwell, below tensorwise there (fitted pairs) */
    config_for(&c, "llama2-7b", "b200");
    c.gpus = 8;
    c.micro_batch = 1;
    c.precision = TPLAN_PREC_FP8;
    c.fp8_recipe = TPLAN_FP8_MXFP8;
    eval_ok(&c, &p8);
    r = tplan_fp8_recipe_ratio(&c.gpu, TPLAN_FP8_MXFP8);
    assert_true(r > 0 && r < tplan_fp8_recipe_ratio(&c.gpu,
                                                    TPLAN_FP8_TENSORWISE));
    assert_rel(tplan_config_fp8_ratio(&c), r, 1e-15);
    /* a given fp8_ratio wins over the recipe */
    assert_int_equal(tplan_field_set_text(tplan_field_find("fp8_ratio"), "0.5",
                                          &c, NULL),
                     TPLAN_OK);
    assert_rel(tplan_config_fp8_ratio(&c), 0.5, 1e-15);
    /* no fp8 units (A100): the recipe does not matter, nothing fails */
    config_for(&c, "llama2-7b", "a100-80g");
    c.precision = TPLAN_PREC_FP8;
    c.fp8_recipe = TPLAN_FP8_MXFP8;
    c.micro_batch = 1;
    eval_ok(&c, &p8);
    /* parsing: the names, and a bad one naming the field */
    assert_int_equal(tplan_field_set_text(tplan_field_find("fp8_recipe"),
                                          "blockwise", &c, NULL),
                     TPLAN_OK);
    assert_int_equal(c.fp8_recipe, TPLAN_FP8_BLOCKWISE);
    assert_int_equal(tplan_field_set_text(tplan_field_find("fp8_recipe"),
                                          "mx", &c, &err),
                     TPLAN_EINVAL);
    assert_non_null(strstr(err.msg, "fp8_recipe: mx: unknown name"));
    for (int k = 0; k < TPLAN_FP8_RECIPE_COUNT; k++)
        assert_string_equal(
            tplan_field_value_name(tplan_field_find("fp8_recipe"), k),
            tplan_fp8_recipe_name((tplan_fp8_recipe)k));
}

/* fp32 on CUDA cores has a curve of its own (engine/perf.c FP32_EFF_MAX,
 * fitted to NVIDIA's BERT-large V100 rows): 0.75 of the fp32 peak at
 * most, eff_h0 shrunk by the fp32-to-16-bit peak ratio, eff_tok0 by
 * 0.59; attention as the matmuls; 16-bit compute keeps the family's. */
static void test_fp32_curve(void **state)
{
    tplan_config c;
    tplan_plan p, q;
    double r = 15.7 / 125.0, h = 1024.0, tok = 32.0 * 128.0;

    (void)state;
    config_for(&c, "bert-large", "v100-32g");
    c.seq = 128;
    c.micro_batch = 32;
    c.precision = TPLAN_PREC_FP32;
    eval_ok(&c, &p);
    assert_rel(p.perf.matmul_eff,
               0.75 * h / (h + 600.0 * r) * tok / (tok + 512.0 * 0.59), 1e-12);
    assert_rel(p.perf.attn_eff, p.perf.matmul_eff, 1e-12);
    c.precision = TPLAN_PREC_MIXED_FP16;
    eval_ok(&c, &q);
    assert_rel(q.perf.matmul_eff,
               0.55 * h / (h + 600.0) * tok / (tok + 512.0), 1e-12);
    assert_rel(q.perf.attn_eff, 0.25, 1e-12);
}

/* The last pipeline stage also runs the LM head; the slowest stage sets
 * the pace: p x (layers/p + head) / total, here llama3-8b at pp 4. */
static void test_stage_imbalance(void **state)
{
    tplan_config c;
    tplan_plan p;
    tplan_flops f;
    double layers;

    (void)state;
    config_for(&c, "llama3-8b", "h100-sxm");
    c.gpus = 4;
    c.pp = 4;
    c.micro_batch = 1;
    c.accum = 8;
    eval_ok(&c, &p);
    tplan_flops_eval(&c.model, c.seq, 8, c.recompute, c.attention, true, &f);
    layers = f.hardware - f.head_hw;
    assert_rel(f.head_hw, 3 * 2 * 4096.0 * 128256 * 8192 * 8, 1e-12);
    assert_rel(p.perf.stage_imbalance,
               4 * (layers / 4 + f.head_hw) / f.hardware, 1e-12);
    assert_true(p.perf.stage_imbalance > 1.15); /* 128k vocabulary */
}

/* Each schedule's bubble against the paper's formula (DeepSeek-V3 Table
 * 2; Qi et al. 2024 for ZB-H1; Narayanan et al. 2021 for interleaving),
 * with F, B and W worked out here from the FLOPs: one efficiency for
 * matmuls and attention makes time proportional to FLOPs; without
 * recomputation the matmuls run 3 passes (forward, input gradient,
 * weight gradient W) and flash attention 1 + 2.5 (FlashAttention-2's
 * backward), so per micro-batch F = mm/3 + attn/3.5, W = mm/3, B = the
 * rest, scaled to the busiest stage's compute per micro-batch. Exact to
 * rounding (1e-12). */
static void test_pipeline_schedules(void **state)
{
    static const tplan_pp_schedule sched[] = {
        TPLAN_PP_1F1B, TPLAN_PP_INTERLEAVED, TPLAN_PP_ZB_H1,
        TPLAN_PP_DUALPIPE};
    double p = 8.0, m = 16.0, v = 2.0;

    (void)state;
    for (int recompute = 0; recompute < 2; recompute++) {
        for (size_t i = 0; i < sizeof sched / sizeof sched[0]; i++) {
            tplan_config c;
            tplan_plan pl;
            tplan_flops f;
            double chunk, F, B, W, mm_fwd, attn_fwd, want;

            config_for(&c, "gpt3-175b", "a100-80g");
            c.tp = 8;
            c.pp = 8;
            c.gpus = 64;
            c.micro_batch = 1;
            c.accum = 16;
            c.efficiency = 0.5;
            c.recompute =
                recompute ? TPLAN_RECOMPUTE_FULL : TPLAN_RECOMPUTE_NONE;
            c.pp_schedule = sched[i];
            c.vpp = sched[i] == TPLAN_PP_INTERLEAVED ? 2 : 1;
            eval_ok(&c, &pl);
            tplan_flops_eval(&c.model, c.seq, 1.0, c.recompute, c.attention,
                             true, &f);
            /* full recomputation runs one more forward of each */
            mm_fwd = f.matmul_hw / (recompute ? 4.0 : 3.0);
            attn_fwd = f.attn_hw / (recompute ? 4.5 : 3.5);
            chunk = pl.perf.compute_s / m; /* F + B */
            F = chunk * (mm_fwd + attn_fwd) / f.hardware;
            W = chunk * mm_fwd / f.hardware;
            B = chunk - F;
            switch (sched[i]) {
            case TPLAN_PP_1F1B:
                want = (p - 1.0) * (F + B);
                break;
            case TPLAN_PP_INTERLEAVED:
                want = (p - 1.0) * (F + B) / v;
                break;
            case TPLAN_PP_ZB_H1:
                want = (p - 1.0) * (F + B - 2.0 * W);
                break;
            default: /* F&B: the pair's compute, F + B */
                want = (p / 2.0 - 1.0) * ((F + B) + B - 3.0 * W);
                break;
            }
            assert_rel(pl.perf.chunk_fwd_s, F, 1e-12);
            assert_rel(pl.perf.chunk_bwd_s, B, 1e-12);
            assert_rel(pl.perf.chunk_wgrad_s, W, 1e-12);
            assert_rel(pl.perf.bubble_s, want, 1e-12);
            /* every schedule with a weight pass beats 1F1B's (p-1)/m */
            if (sched[i] != TPLAN_PP_1F1B)
                assert_true(pl.perf.bubble_fraction < (p - 1.0) / m);
        }
    }
}

/* DualPipe on an MoE model across nodes: the paired chunks, (m - 3p/2 +
 * 1)/m on the end ranks (deepseek-ai/DualPipe step()), hide that share
 * of the all-to-all and of the pipeline sends; their compute runs on
 * 1 - 20/132 of the SMs (DeepSeek-V3 section 3.2.2). Against the same
 * plan under 1F1B with moe_overlap 0 (nothing hidden). */
static void test_dualpipe_overlap(void **state)
{
    tplan_config c;
    tplan_plan one, dual, dual0, dual_mo;
    double paired, sm = 20.0 / 132.0, free_s;

    (void)state;
    config_for(&c, "mixtral-8x7b", "h100-sxm");
    c.seq = 4096;
    c.gpus = 64;
    c.pp = 4;
    c.ep = 8;
    c.micro_batch = 1;
    c.accum = 16;
    c.gpus_per_node = 4; /* the expert group spans two nodes */
    eval_ok(&c, &one);
    c.pp_schedule = TPLAN_PP_DUALPIPE;
    eval_ok(&c, &dual);
    c.comm_sm_share = 0.0;
    eval_ok(&c, &dual0);
    c.comm_sm_share = -1.0;
    c.moe_overlap = 0.9;
    eval_ok(&c, &dual_mo);
    paired = (16.0 - 1.5 * 4.0 + 1.0) / 16.0;
    assert_rel(dual.perf.paired_share, paired, 1e-12);
    assert_rel(dual.perf.comm_sm_share, sm, 1e-12);
    assert_near(dual0.perf.comm_sm_share, 0.0, 0.0);
    assert_near(one.perf.paired_share, 0.0, 0.0);
    /* the SMs: compute of the paired share slowed by 1/(1 - sm) */
    assert_rel(dual.perf.compute_s,
               dual0.perf.compute_s * (1.0 + paired * sm / (1.0 - sm)),
               1e-12);
    assert_rel(dual.perf.comm_sm_s, dual.perf.compute_s - dual0.perf.compute_s,
               1e-9);
    /* nothing hides under 1F1B by default */
    assert_true(one.perf.ep_comm_s > 0);
    assert_near(one.perf.ep_exposed_s, one.perf.ep_comm_s, 0.0);
    assert_near(one.perf.pp_exposed_s, one.perf.pp_comm_s, 0.0);
    /* the paired share of both hides when compute leaves room */
    free_s = dual0.perf.compute_s - (dual0.perf.tp_comm_s -
                                     dual0.perf.tp_exposed_s);
    assert_true(paired * (dual0.perf.ep_comm_s + dual0.perf.pp_comm_s) <
                paired * free_s);
    assert_rel(dual0.perf.ep_exposed_s, (1.0 - paired) * dual0.perf.ep_comm_s,
               1e-12);
    assert_rel(dual0.perf.pp_exposed_s, (1.0 - paired) * dual0.perf.pp_comm_s,
               1e-12);
    /* an explicit moe_overlap above the paired share raises it */
    assert_rel(dual_mo.perf.ep_exposed_s, 0.1 * dual_mo.perf.ep_comm_s,
               1e-9);
    assert_true(dual.perf.step_time_s < one.perf.step_time_s);
}

/* Node-limited routing by hand: 64 ranks, 8 a node (8 nodes), top 8
 * copies of each token, at most 4 nodes: over the NIC a token goes to 4
 * nodes, 7/8 of them remote, once each; over NVLink 7/8 of all copies
 * (local ones and those forwarded from the NIC). Without a limit, or
 * inside one node, the plain all-to-all. */
static void test_node_limited_alltoall(void **state)
{
    double bytes = 8e9, link = 150e9, nic = 48e9, lat = 30e-6;
    double inter = bytes / 8.0 * 4.0 * 7.0 / 8.0 / nic;
    double intra = bytes * 7.0 / 8.0 / link;

    (void)state;
    assert_rel(tplan_alltoall_nodes_s(bytes, 64, 8, link, nic, lat, 8, 4),
               fmax(inter, intra) + 2 * lat, 1e-12);
    assert_rel(tplan_alltoall_nodes_s(bytes, 64, 8, link, nic, lat, 8, 0),
               tplan_alltoall_s(bytes, 64, 8, link, nic, lat), 1e-12);
    assert_rel(tplan_alltoall_nodes_s(bytes, 8, 8, link, nic, lat, 8, 4),
               tplan_alltoall_s(bytes, 8, 8, link, nic, lat), 1e-12);
    /* a limit past the group's nodes reaches them all: 2 nodes */
    assert_rel(tplan_alltoall_nodes_s(bytes, 16, 8, link, nic, lat, 8, 4),
               fmax(bytes / 8.0 * 2.0 * 0.5 / nic, intra) + 2 * lat, 1e-12);
    /* the limit halves the NIC bytes of the unlimited exchange here */
    assert_true(tplan_alltoall_nodes_s(bytes, 64, 8, link, nic, lat, 8, 4) <
                tplan_alltoall_s(bytes, 64, 8, link, nic, lat));
}

/* HSDP's two levels by hand (docs/MODEL.md section 12.10): Llama-2-7B on
 * 64 H100s (8 a node), ZeRO-3 in shard groups of 8, 4 micro-batches.
 * Within a group (one node, NVLink 450 GB/s x 0.77, 10 us a hop): two
 * all-gathers and a reduce-scatter of the 16-bit weights every
 * micro-batch; across the 8 replicas (one a node: the NIC, 50 GB/s x
 * 0.96, 30 us a hop): an all-reduce of the gradient shard, S / 8, every
 * micro-batch. Without resharding one all-gather goes: 3x -> 2x. */
static void test_hsdp_traffic_by_hand(void **state)
{
    tplan_config c;
    tplan_plan p, q;
    double s, in = 450e9 * 0.77, x = 50e9 * 0.96;
    double lat_in = 10e-6 * 3, lat_x = 30e-6 * 3, ag, ar;

    (void)state;
    config_for(&c, "llama2-7b", "h100-sxm");
    c.gpus = 64;
    c.zero = 3;
    c.recompute = TPLAN_RECOMPUTE_FULL;
    c.micro_batch = 1;
    c.accum = 4;
    c.zero_shard_group = 8;
    eval_ok(&c, &p);
    s = (double)p.mem.params_on_device * 2; /* bf16 weights and grads */
    ag = 7.0 / 8 * s / in + lat_in;
    ar = 2 * 7.0 / 8 * (s / 8) / x + lat_x;
    assert_rel(p.perf.dp_comm_s, 4 * (3 * ag + ar), 1e-12);
    c.reshard_after_forward = false;
    eval_ok(&c, &q);
    assert_rel(q.perf.dp_comm_s, 4 * (2 * ag + ar), 1e-12);
    /* plain ZeRO-3 over all 64, with and without resharding: 3x -> 2x */
    c.zero_shard_group = 0;
    eval_ok(&c, &q);
    c.reshard_after_forward = true;
    eval_ok(&c, &p);
    assert_rel(q.perf.dp_comm_s, p.perf.dp_comm_s * 2.0 / 3.0, 1e-12);
}

/* Activation offloading's copies (docs/MODEL.md section 12.10): out under
 * the forward, back under the backward, each hidden up to its phase's
 * compute. Llama-3-8B LoRA at 32k with full recomputation offloads 31
 * layer inputs of 2 s h bytes and the int64 token ids: at the GPU's
 * PCIe (H100 SXM: Gen5 x16) they hide; over a 0.5 GB/s link both
 * directions exceed their windows, so 2 x bytes / bandwidth - compute is
 * exposed, and the step grows by it. */
static void test_act_offload_time(void **state)
{
    tplan_config c;
    tplan_plan p, q;
    double bytes = 31.0 * 2.0 * 32768.0 * 4096.0 + 8.0 * 32768.0;

    (void)state;
    config_for(&c, "llama3-8b", "h100-sxm");
    c.seq = 32768;
    c.micro_batch = 1;
    c.lora_rank = 16;
    c.recompute = TPLAN_RECOMPUTE_FULL;
    eval_ok(&c, &p);
    c.offload_activations = 1.0;
    eval_ok(&c, &q);
    assert_rel(q.mem.act_offload_mb_bytes, bytes, 1e-12);
    assert_true(q.perf.act_offload_s == 0.0);
    assert_true(q.perf.step_time_s == p.perf.step_time_s);
    c.pcie_bytes_per_s = 0.5e9;
    eval_ok(&c, &q);
    assert_true(bytes / 0.5e9 > q.perf.compute_s);
    assert_rel(q.perf.act_offload_s, 2.0 * bytes / 0.5e9 - q.perf.compute_s,
               1e-12);
    assert_rel(q.perf.step_time_s, p.perf.step_time_s + q.perf.act_offload_s,
               1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_megatron_closed_forms),
        cmocka_unit_test(test_megatron_eq3_by_hand),
        cmocka_unit_test(test_flops_architectures),
        cmocka_unit_test(test_step_identities),
        cmocka_unit_test(test_efficiency_falls_for_small_work),
        cmocka_unit_test(test_zero3_scaling_falls),
        cmocka_unit_test(test_tp_across_nodes),
        cmocka_unit_test(test_pipeline_bubble),
        cmocka_unit_test(test_cost_reference),
        cmocka_unit_test(test_energy_and_budget),
        cmocka_unit_test(test_run_errors),
        cmocka_unit_test(test_collectives_by_hand),
        cmocka_unit_test(test_hsdp_traffic_by_hand),
        cmocka_unit_test(test_act_offload_time),
        cmocka_unit_test(test_overlap_window),
        cmocka_unit_test(test_zero12_overlap),
        cmocka_unit_test(test_collective_hops),
        cmocka_unit_test(test_tp_overlap),
        cmocka_unit_test(test_tp_overlap_shares_compute),
        cmocka_unit_test(test_fp8_timing),
        cmocka_unit_test(test_fit_attention),
        cmocka_unit_test(test_fp8_recipes),
        cmocka_unit_test(test_fp32_curve),
        cmocka_unit_test(test_stage_imbalance),
        cmocka_unit_test(test_pipeline_schedules),
        cmocka_unit_test(test_dualpipe_overlap),
        cmocka_unit_test(test_node_limited_alltoall),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
