/* Batch algebra, learning-rate rules, warmup, schedules, critical batch,
 * ramps and the guides' warnings. */
#include "tplan_test.h"

#include <math.h>

#include "batch.h"
#include "plan.h"
#include "recipe.h"

static bool has_warning(const tplan_plan *p, const char *needle)
{
    for (int i = 0; i < p->n_warnings; i++)
        if (strstr(p->warnings[i], needle))
            return true;
    return false;
}

/* The GPU workshop guide (docs/MODEL.md section 6.1): b_max = 4, 8 GPUs,
 * target 256 -> accumulate 256 / (4 x 8) = 8. A generic model sized so
 * that exactly 4 samples fit. */
static void test_guide_accumulation(void **state)
{
    tplan_config c;
    tplan_plan p;
    int64_t cand[8];
    double usable, fixed;

    (void)state;
    assert_int_equal(tplan_batch_exact(256, 8, 4, cand, 8), 3);
    assert_int_equal(cand[0], 4);
    assert_int_equal(256 / (cand[0] * 8), 8);

    memset(&c, 0, sizeof c);
    tplan_model_init(&c.model);
    c.model.arch = TPLAN_ARCH_GENERIC;
    c.model.generic_params = 1000;
    tplan_gpu_lookup("a100-80g", &c.gpu, NULL);
    tplan_config_init(&c);
    c.seq = 1;
    c.gpus = 8;
    usable = floor(0.9 * (double)c.gpu.memory_bytes);
    fixed = 1000.0 * 1024 * 1024 + 16.0 * 1000; /* context + states */
    /* mixed-bf16 halves fp32 activations: 4.5 samples' worth of room */
    c.model.generic_act_bytes_fp32 = 2.0 * (usable - fixed) / 4.5;
    eval_ok(&c, &p);
    assert_int_equal(p.max_micro_batch, 4);
    c.global_batch = 256;
    eval_ok(&c, &p);
    assert_int_equal(p.micro_batch, 4);
    assert_int_equal(p.accum, 8);
    assert_int_equal(p.global_batch, 256);
    assert_true(p.batch_exact);
    /* a target no split of 8 GPUs meets: the nearest, said so */
    c.global_batch = 250;
    eval_ok(&c, &p);
    assert_false(p.batch_exact);
    assert_true(has_warning(&p, "misses the target 250"));
}

/* The Tradeoffs guide (docs/MODEL.md section 6.2): batch 256 at lr 0.1 ->
 * batch 1024 at 0.4 (linear); the square-root rule gives 0.1 * sqrt(4) =
 * 0.2. Goyal et al. 2017: 256 at 0.1 -> 8192 at 3.2. */
/* tplan_batch_accum rounds target / (b dp) half away from zero, as
 * libm's round does (batch.c rounds without it): the same count for
 * every quotient near a half, a whole number or 1, and for targets up
 * to 2^62, where the quotient's fraction is gone. */
static void test_accum_rounding(void **state)
{
    static const int64_t big[] = {(int64_t)1 << 52, ((int64_t)1 << 53) + 2,
                                  (int64_t)4e18, (int64_t)1 << 62};

    (void)state;
    for (int64_t g = 1; g <= 4096; g++)
        for (int64_t dp = 1; dp <= 24; dp++)
            for (int64_t b = 1; b <= 8; b++) {
                double k = round((double)g / ((double)b * (double)dp));

                assert_int_equal(tplan_batch_accum(g, dp, b),
                                 k < 1 ? 1 : (int64_t)k);
            }
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
        for (int64_t dp = 1; dp <= 3; dp++)
            assert_int_equal(tplan_batch_accum(big[i], dp, 1),
                             (int64_t)round((double)big[i] / (double)dp));
}

static void test_lr_rules(void **state)
{
    (void)state;
    assert_near(tplan_lr_scale(TPLAN_LR_LINEAR, 0.1, 256, 1024, 0), 0.4, 1e-12);
    assert_near(tplan_lr_scale(TPLAN_LR_SQRT, 0.1, 256, 1024, 0), 0.2, 1e-12);
    assert_near(tplan_lr_scale(TPLAN_LR_LINEAR, 0.1, 256, 8192, 0), 3.2, 1e-12);
    assert_near(tplan_lr_scale(TPLAN_LR_NONE, 0.1, 256, 8192, 0), 0.1, 0);
    /* linear to 2048 (x8 = 0.8), then sqrt(8192/2048) = 2 more: 1.6 */
    assert_near(tplan_lr_scale(TPLAN_LR_LINEAR_SQRT, 0.1, 256, 8192, 2048), 1.6,
                1e-12);
    assert_near(tplan_lr_scale(TPLAN_LR_LINEAR_SQRT, 0.1, 256, 1024, 2048), 0.4,
                1e-12);
}

/* The same through a plan: SGD defaults to linear, AdamW to sqrt; weight
 * decay scales by sqrt(k); a cap holds. */
static void test_lr_in_plan(void **state)
{
    tplan_config c;
    tplan_plan p;

    (void)state;
    config_for(&c, "resnet50", "a100-80g");
    c.seq = 1;
    c.gpus = 32;
    c.precision = TPLAN_PREC_AMP_FP16;
    c.optimizer = TPLAN_OPT_SGD_MOMENTUM;
    c.global_batch = 8192;
    c.lr = 0.1;
    c.lr_base_batch = 256;
    c.weight_decay = 1e-4;
    c.epochs = 90;
    c.dataset_samples = 1281167;
    eval_ok(&c, &p);
    assert_int_equal(p.global_batch, 8192);
    assert_int_equal(p.lr.rule, TPLAN_LR_LINEAR);
    assert_near(p.lr.peak, 3.2, 1e-12);
    assert_near(p.lr.weight_decay, 1e-4 * sqrt(32.0), 1e-15);
    /* Goyal's 5 epochs of warmup by default for an epoch budget */
    assert_int_equal(p.lr.schedule.warmup_steps,
                     (int64_t)ceil(5.0 * 1281167 / 8192));
    c.optimizer = TPLAN_OPT_ADAMW;
    c.lr_cap = 0.3;
    eval_ok(&c, &p);
    assert_int_equal(p.lr.rule, TPLAN_LR_SQRT);
    assert_near(p.lr.peak, 0.3, 0); /* sqrt(32) * 0.1 = 0.566, capped */
}

/* Schedules at chosen steps: peak 1, floor 0.1, 10 warmup steps, 110 in
 * all (100 after warmup). */
static void test_schedules(void **state)
{
    tplan_lr_schedule s = {TPLAN_SCHED_COSINE, 1.0, 0.1, 10, 110, 0.1};

    (void)state;
    assert_near(tplan_lr_at(&s, 0), 0.0, 0);
    assert_near(tplan_lr_at(&s, 5), 0.5, 1e-12);
    assert_near(tplan_lr_at(&s, 10), 1.0, 1e-12);
    assert_near(tplan_lr_at(&s, 60), 0.55, 1e-12); /* halfway: mean */
    assert_near(tplan_lr_at(&s, 35),
                0.1 + 0.9 * 0.5 * (1 + cos(acos(-1.0) / 4)), 1e-12);
    assert_near(tplan_lr_at(&s, 110), 0.1, 1e-12);
    assert_near(tplan_lr_at(&s, 500), 0.1, 1e-12);
    s.kind = TPLAN_SCHED_LINEAR;
    assert_near(tplan_lr_at(&s, 60), 0.55, 1e-12);
    assert_near(tplan_lr_at(&s, 85), 0.325, 1e-12);
    s.kind = TPLAN_SCHED_CONSTANT;
    assert_near(tplan_lr_at(&s, 100), 1.0, 0);
    /* WSD: stable until the last 10% (11 steps), then linear to the floor */
    s.kind = TPLAN_SCHED_WSD;
    assert_near(tplan_lr_at(&s, 98), 1.0, 0);
    assert_near(tplan_lr_at(&s, 99), 1.0, 1e-12);
    assert_near(tplan_lr_at(&s, 104), 1.0 - 0.9 * 5.0 / 11.0, 1e-12);
    assert_near(tplan_lr_at(&s, 110), 0.1, 1e-12);
    /* inverse square root (Vaswani 2017): peak x sqrt(warmup / step) */
    s.kind = TPLAN_SCHED_INVSQRT;
    assert_near(tplan_lr_at(&s, 40), 0.5, 1e-12);
    assert_near(tplan_lr_at(&s, 90), 1.0 / 3.0, 1e-12);
}

/* GPT-3 Table 2.1 at its rows, and log-linear between them. */
static void test_gpt3_table(void **state)
{
    double b, lr;

    (void)state;
    tplan_gpt3_recipe(125e6, &b, &lr);
    assert_near(b, 0.5e6, 0);
    assert_near(lr, 6.0e-4, 1e-15);
    tplan_gpt3_recipe(175e9, &b, &lr);
    assert_near(b, 3.2e6, 0);
    assert_near(lr, 0.6e-4, 1e-15);
    tplan_gpt3_recipe(6.7e9, &b, &lr);
    assert_near(b, 2e6, 1e-6);
    assert_near(lr, 1.2e-4, 1e-15);
    tplan_gpt3_recipe(sqrt(1.3e9 * 2.7e9), &b, &lr); /* geometric middle */
    assert_near(b, 1e6, 1e-6);
    assert_near(lr, sqrt(2.0e-4 * 1.6e-4), 1e-15);
    tplan_gpt3_recipe(1e15, &b, &lr);
    assert_near(lr, 0.6e-4, 1e-15);
}

/* DeepSeek LLM 2024, Table 2: their 7B (30 layers, d 4096, seq 4096, 2T
 * tokens; M = 72 L d^2 + 12 L d s) trained at 2304 x 4096 = 9.44M tokens
 * and lr 4.2e-4; the 67B (95 layers, d 8192) at 4608 x 4096 = 18.9M and
 * 3.2e-4. Their fit reproduces their choices within 3% and 10%. */
static void test_deepseek(void **state)
{
    double m7 = 72.0 * 30 * 4096.0 * 4096 + 12.0 * 30 * 4096 * 4096;
    double m67 = 72.0 * 95 * 8192.0 * 8192 + 12.0 * 95 * 8192 * 4096;

    (void)state;
    assert_rel(tplan_deepseek_batch_tokens(m7 * 2e12), 2304.0 * 4096, 0.03);
    assert_rel(tplan_deepseek_lr(m7 * 2e12), 4.2e-4, 0.03);
    assert_rel(tplan_deepseek_batch_tokens(m67 * 2e12), 4608.0 * 4096, 0.10);
    assert_rel(tplan_deepseek_lr(m67 * 2e12), 3.2e-4, 0.03);
}

/* Kaplan et al. 2020: B_crit(L) = 2e8 / L^(1/0.21) tokens; McCandlish et
 * al. 2018: at B = B_crit both steps and data are twice their minima. */
static void test_critical_batch(void **state)
{
    tplan_config c;
    tplan_plan p;

    (void)state;
    assert_rel(tplan_kaplan_critical_batch_tokens(2.0), 7.37e6, 0.001);
    assert_rel(tplan_kaplan_critical_batch_tokens(3.0), 1.07e6, 0.01);
    assert_near(tplan_steps_factor(1e6, 1e6), 2.0, 0);
    assert_near(tplan_data_factor(1e6, 1e6), 2.0, 0);
    assert_near(tplan_steps_factor(4e6, 1e6), 1.25, 1e-12);
    assert_near(tplan_data_factor(4e6, 1e6), 5.0, 1e-12);
    config_for(&c, "llama2-7b", "h100-sxm");
    c.gpus = 64;
    c.recompute = TPLAN_RECOMPUTE_FULL;
    c.global_batch = 1024; /* 4M tokens */
    c.b_noise_tokens = 1e6;
    eval_ok(&c, &p);
    assert_true(p.critical.set);
    assert_near(p.critical.data_factor, 1.0 + 1024.0 * 4096 / 1e6, 1e-9);
    assert_true(has_warning(&p, "past the critical batch"));
    c.b_noise_tokens = 1e8;
    eval_ok(&c, &p);
    assert_false(has_warning(&p, "past the critical batch"));
}

/* Warmup in steps, tokens, epochs or a fraction; 1% by default for a token
 * budget; longer than training is an error naming warmup. */
static void test_warmup_units(void **state)
{
    tplan_config c;
    tplan_plan p;
    tplan_err err;

    (void)state;
    config_for(&c, "llama2-7b", "h100-sxm");
    c.gpus = 64;
    c.recompute = TPLAN_RECOMPUTE_FULL;
    c.global_batch = 1024; /* 4,194,304 tokens per step */
    c.tokens = 4194304.0 * 10000;
    c.lr = 3e-4;
    eval_ok(&c, &p);
    assert_int_equal(p.run.steps, 10000);
    assert_int_equal(p.lr.schedule.warmup_steps, 100);
    c.warmup_unit = TPLAN_WARMUP_STEPS;
    c.warmup = 2000;
    eval_ok(&c, &p);
    assert_int_equal(p.lr.schedule.warmup_steps, 2000);
    c.warmup_unit = TPLAN_WARMUP_TOKENS;
    c.warmup = 375e6; /* GPT-3's warmup */
    eval_ok(&c, &p);
    assert_int_equal(p.lr.schedule.warmup_steps,
                     (int64_t)ceil(375e6 / 4194304.0));
    c.warmup_unit = TPLAN_WARMUP_FRACTION;
    c.warmup = 0.05;
    eval_ok(&c, &p);
    assert_int_equal(p.lr.schedule.warmup_steps, 500);
    c.warmup_unit = TPLAN_WARMUP_STEPS;
    c.warmup = 20000;
    assert_int_equal(tplan_plan_eval(&c, &p, &err), TPLAN_EINVAL);
    assert_string_equal(err.field, "warmup");
    assert_string_equal(err.msg, "warmup is longer than training "
                                 "(warmup_steps=20000, steps=10000)");
}

/* Llama 3 (2024, section 3.4.1): 4M tokens per step, 8M after 252M tokens,
 * 16M after 2.87T, here on 15T tokens; sequence 8192 so each batch is a
 * whole number of sequences (4M = 512 x 8192). */
static void test_batch_ramp(void **state)
{
    tplan_config c;
    tplan_plan p;
    double b1 = 4194304, b2 = 8388608, b3 = 16777216;
    double s1, s2, s3;

    (void)state;
    config_for(&c, "llama3-8b", "h100-sxm");
    c.gpus = 256;
    c.zero = 1;
    c.recompute = TPLAN_RECOMPUTE_FULL;
    c.tokens = 15e12;
    c.n_ramp = 3;
    c.ramp[0] = (tplan_ramp_phase){b1, 252e6};
    c.ramp[1] = (tplan_ramp_phase){b2, 2.87e12};
    c.ramp[2] = (tplan_ramp_phase){b3, 0};
    c.global_batch_tokens = b3;
    eval_ok(&c, &p);
    s1 = ceil(252e6 / b1);
    s2 = ceil((2.87e12 - s1 * b1) / b2);
    s3 = ceil((15e12 - s1 * b1 - s2 * b2) / b3);
    assert_int_equal(p.run.steps, (int64_t)(s1 + s2 + s3));
    assert_int_equal(p.tokens_per_step, (int64_t)b3);
    /* time is the sum of the phases' steps at their own step times: each
     * phase evaluated alone at its batch (no ramp), by hand */
    {
        double b[3] = {b1, b2, b3}, s[3] = {s1, s2, s3}, hours = 0;
        tplan_config one = c;
        tplan_plan ph;

        one.n_ramp = 0;
        for (int i = 0; i < 3; i++) {
            one.global_batch_tokens = b[i];
            eval_ok(&one, &ph);
            assert_int_equal(ph.tokens_per_step, (int64_t)b[i]);
            hours += s[i] * ph.perf.step_time_s / 3600.0;
        }
        /* the same arithmetic: 1e-9 relative, well inside 1% */
        assert_rel(p.run.time_h, hours, 1e-9);
        assert_rel(p.run.gpu_hours, hours * 256, 1e-9);
        assert_rel(p.run.cost_usd, hours * 256 * p.run.price_usd_per_h, 1e-9);
    }
}

/* Every warning of docs/MODEL.md section 6 fires, and stays quiet when its
 * condition is absent. */
static void test_warnings_fire(void **state)
{
    tplan_config c;
    tplan_plan p;

    (void)state;
    /* accumulation above 16 (data parallel only) */
    config_for(&c, "llama2-7b", "h100-sxm");
    c.gpus = 8;
    c.zero = 1;
    c.recompute = TPLAN_RECOMPUTE_FULL;
    c.micro_batch = 1;
    c.accum = 32;
    eval_ok(&c, &p);
    assert_true(has_warning(&p, "accum=32 > 16"));
    c.accum = 16;
    eval_ok(&c, &p);
    assert_false(has_warning(&p, "> 16"));
    /* batch norm with micro-batches under 16 */
    config_for(&c, "resnet50", "a100-80g");
    c.seq = 1;
    c.micro_batch = 8;
    eval_ok(&c, &p);
    assert_true(has_warning(&p, "with batch norm"));
    c.micro_batch = 32;
    eval_ok(&c, &p);
    assert_false(has_warning(&p, "with batch norm"));
    /* a scaled LR without warmup: k = 8 -> "yes" */
    c.global_batch = 2048;
    c.micro_batch = 0;
    c.gpus = 8;
    c.lr = 0.1;
    c.lr_base_batch = 256;
    c.optimizer = TPLAN_OPT_SGD_MOMENTUM;
    c.epochs = 90;
    c.dataset_samples = 1281167;
    c.warmup_unit = TPLAN_WARMUP_STEPS;
    c.warmup = 0;
    eval_ok(&c, &p);
    assert_true(has_warning(&p, "LR scaled 8x with no warmup: warmup "
                                "needed? yes"));
    c.warmup = 500;
    eval_ok(&c, &p);
    assert_false(has_warning(&p, "no warmup"));
    /* the linear rule past 8192 */
    c.gpus = 64;
    c.global_batch = 16384;
    eval_ok(&c, &p);
    assert_true(has_warning(&p, "linear LR scaling at 16384"));
    c.lr_rule = TPLAN_LR_SQRT;
    c.lr_rule_set = true;
    eval_ok(&c, &p);
    assert_false(has_warning(&p, "linear LR scaling"));
    /* fine-tuning with a large batch */
    config_for(&c, "bert-base", "a100-80g");
    c.finetune = true;
    c.global_batch = 256;
    eval_ok(&c, &p);
    assert_true(has_warning(&p, "fine-tuning with a global batch of 256"));
    c.global_batch = 32;
    eval_ok(&c, &p);
    assert_false(has_warning(&p, "fine-tuning"));
    /* fp16 without loss scaling */
    c.precision = TPLAN_PREC_MIXED_FP16;
    c.loss_scaling = false;
    eval_ok(&c, &p);
    assert_true(has_warning(&p, "fp16 without loss scaling"));
    c.precision = TPLAN_PREC_MIXED_BF16;
    eval_ok(&c, &p);
    assert_false(has_warning(&p, "loss scaling"));
    /* headroom under 10%: only possible with a smaller reserve */
    c.global_batch = 0;
    c.reserve_fraction = 0.02;
    eval_ok(&c, &p);
    assert_true(p.mem.fits);
    assert_true(has_warning(&p, "headroom"));
    c.reserve_fraction = 0.10;
    eval_ok(&c, &p);
    assert_false(has_warning(&p, "headroom"));
}

static void test_recipe_errors(void **state)
{
    tplan_config c;
    tplan_plan p;
    tplan_err err;

    (void)state;
    config_for(&c, "gpt2", "a100-80g");
    c.gpus = 8;
    c.micro_batch = 16;
    c.global_batch = 64;
    assert_int_equal(tplan_plan_eval(&c, &p, &err), TPLAN_EINVAL);
    assert_string_equal(err.msg, "global_batch is below micro_batch x dp "
                                 "(global_batch=64, micro_batch=16, dp=8)");
    c.micro_batch = 0;
    c.global_batch = 4;
    assert_int_equal(tplan_plan_eval(&c, &p, &err), TPLAN_EINVAL);
    assert_string_equal(err.field, "global_batch");
    c.global_batch = 0;
    c.lr = -0.1;
    assert_int_equal(tplan_config_validate(&c, &err), TPLAN_EINVAL);
    assert_string_equal(err.msg, "lr must be in [0, 100] (lr=-0.1)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_guide_accumulation),
        cmocka_unit_test(test_lr_rules),
        cmocka_unit_test(test_lr_in_plan),
        cmocka_unit_test(test_schedules),
        cmocka_unit_test(test_gpt3_table),
        cmocka_unit_test(test_deepseek),
        cmocka_unit_test(test_accum_rounding),
        cmocka_unit_test(test_critical_batch),
        cmocka_unit_test(test_warmup_units),
        cmocka_unit_test(test_batch_ramp),
        cmocka_unit_test(test_warnings_fire),
        cmocka_unit_test(test_recipe_errors),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
