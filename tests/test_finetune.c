/* Fine-tuning: LoRA trainable counts against PEFT's printed counts,
 * quantized bases against the bitsandbytes layout computed by hand, the
 * QLoRA paper's headline claims, offload against DeepSpeed's estimators,
 * paged optimizers, LoRA FLOPs and activations (docs/MODEL.md section
 * 12). */
#include "tplan_test.h"

#include "activations.h"
#include "finetune.h"
#include "flops.h"
#include "framework.h"
#include "memory.h"
#include "plan.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

static void lora(tplan_config *c, int64_t rank, unsigned targets)
{
    c->lora_rank = rank;
    c->lora_targets = targets;
    c->finetune = true;
}

/* A Llama-shaped model: only the shapes LoRA reads matter here. */
static void llama_shape(tplan_model *m, int64_t layers, int64_t h,
                        int64_t heads, int64_t kv, int64_t f)
{
    tplan_model_init(m);
    m->arch = TPLAN_ARCH_DECODER;
    m->layers = layers;
    m->hidden = h;
    m->heads = heads;
    m->kv_heads = kv;
    m->ffn = f;
    m->vocab = 32000;
    m->max_seq = 2048;
    m->mlp = TPLAN_MLP_SWIGLU;
}

/* PEFT's print_trainable_parameters, as printed (sources in
 * docs/MODEL.md section 12.1); each is r x (in + out) per targeted linear:
 *  - Llama-2-7B, r=8, q_proj+v_proj: "trainable params: 4,194,304 || all
 *    params: 6,742,609,920" = 32 x 2 x 8 x (4096 + 4096)
 *  - LLaMA-7B, r=64, every linear (QLoRA): qlora.py prints 79,953,920, its
 *    own count halved for 4-bit (qlora.py print_trainable_parameters);
 *    32 x [4 x 64 x 8192 + 3 x 64 x (4096 + 11008)] = 159,907,840
 *  - Qwen2.5-3B, r=16, q_proj+v_proj (PEFT README): 3,686,400 =
 *    36 x 16 x [(2048 + 2048) + (2048 + 256)]
 *  - OPT-350m, r=16, q+v (PEFT docs): 1,572,864 = 24 x 2 x 16 x 2048
 *  - Llama-3.2-1B, r=8, q_proj (PEFT quicktour): 524,288 = 16 x 8 x 4096 */
static void test_peft_counts(void **state)
{
    tplan_config c;
    tplan_plan p;
    tplan_model m;

    (void)state;
    config_for(&c, "llama2-7b", "a100-80g");
    lora(&c, 8, TPLAN_LORA_Q | TPLAN_LORA_V);
    c.seq = 512;
    eval_ok(&c, &p);
    assert_int_equal(p.trainable_params, 32LL * 2 * 8 * (4096 + 4096));
    assert_int_equal(p.trainable_params, 4194304);
    assert_int_equal(p.params + p.trainable_params, 6742609920LL);
    /* a head width apart from h/a: Gemma 2 9B's q is 3584 -> 4096, v
     * 3584 -> 2048, so r (in + out) is 8 (3584 + 4096) + 8 (3584 + 2048)
     * per layer, 42 layers */
    config_for(&c, "gemma2-9b", "a100-80g");
    lora(&c, 8, TPLAN_LORA_Q | TPLAN_LORA_V);
    c.seq = 512;
    eval_ok(&c, &p);
    assert_int_equal(p.trainable_params,
                     42LL * 8 * ((3584 + 4096) + (3584 + 2048)));

    config_for(&c, "llama-7b", "rtx4090");
    lora(&c, 64, TPLAN_LORA_ALL);
    c.seq = 512;
    eval_ok(&c, &p);
    assert_int_equal(p.trainable_params,
                     32LL * (4 * 64 * 8192 + 3 * 64 * (4096 + 11008)));
    assert_int_equal(p.trainable_params, 2 * 79953920LL);

    llama_shape(&m, 36, 2048, 16, 2, 11008); /* Qwen2.5-3B */
    assert_int_equal(
        tplan_lora_params(&m, 16, TPLAN_LORA_Q | TPLAN_LORA_V, false),
                     3686400);
    llama_shape(&m, 24, 1024, 16, 16, 4096); /* OPT-350m attention */
    assert_int_equal(
        tplan_lora_params(&m, 16, TPLAN_LORA_Q | TPLAN_LORA_V, false),
                     1572864);
    llama_shape(&m, 16, 2048, 32, 8, 8192); /* Llama-3.2-1B */
    assert_int_equal(tplan_lora_params(&m, 8, TPLAN_LORA_Q, false), 524288);
    /* aliases: attn = q,k,v,o; all-linear = all seven */
    assert_int_equal(tplan_lora_params(&m, 8, TPLAN_LORA_ATTN, false),
                     16LL * 8 * (2 * 4096 + 2 * (2048 + 512)));
}

/* What bitsandbytes quantizes: qlora.py's log for LLaMA-7B prints "all
 * params: 3,660,320,768" counting each 4-bit tensor at half its elements
 * (Params4bit numel of the packed storage): the blocks' linears halved,
 * embeddings, LM head and norms whole, plus the adapters. */
static void test_what_is_quantized(void **state)
{
    tplan_config c;
    tplan_linear lin[TPLAN_LORA_NLINEAR];
    double block = 0.0;
    int n;

    (void)state;
    config_for(&c, "llama-7b", "rtx4090");
    n = tplan_block_linears(&c.model, 1, lin);
    assert_int_equal(n, 7);
    for (int i = 0; i < n; i++)
        block += lin[i].in * lin[i].out;
    assert_near(32.0 * block, 6476005376.0, 0);
    {
        tplan_plan p;

        lora(&c, 64, TPLAN_LORA_ALL);
        c.seq = 512;
        eval_ok(&c, &p);
        assert_near(32.0 * block / 2.0 + ((double)p.params - 32.0 * block) +
                        (double)p.trainable_params,
                    3660320768.0, 0);
    }
}

/* The bitsandbytes layout by hand for LLaMA-7B's block linears: 4 of
 * 4096 x 4096 (q, k, v, o) and 3 of 4096 x 11008 (gate, up, down).
 *  nf4:     n/2 packed + 4 bytes of fp32 absmax per 64
 *           16,777,216 -> 8,388,608 + 1,048,576 = 9,437,184
 *           45,088,768 -> 22,544,384 + 2,818,048 = 25,362,432
 *  nf4+DQ:  n/2 + 1 byte per 64 + 4 per 256 blocks + a 4-byte offset
 *           16,777,216 -> 8,388,608 + 262,144 + 4,096 + 4 = 8,654,852
 *           45,088,768 -> 22,544,384 + 704,512 + 11,008 + 4 = 23,259,908
 *  int8:    n + 4 bytes per output row (LLM.int8() SCB)
 *           q: 16,777,216 + 16,384; gate, up: 45,088,768 + 44,032;
 *           down: 45,088,768 + 16,384
 * Embeddings, head and norms (262,410,240) stay 2 bytes; the adapters
 * (159,907,840 at r = 64) are 2-byte weights under mixed-bf16. */
static void test_bitsandbytes_bytes(void **state)
{
    static const struct {
        tplan_base_precision base;
        bool dq;
        int64_t per_layer;
    } cases[] = {
        {TPLAN_BASE_NF4, false, 4 * 9437184LL + 3 * 25362432LL},
        {TPLAN_BASE_FP4, false, 4 * 9437184LL + 3 * 25362432LL},
        {TPLAN_BASE_NF4, true, 4 * 8654852LL + 3 * 23259908LL},
        {TPLAN_BASE_INT8, false,
         4 * (16777216LL + 16384) + 2 * (45088768LL + 44032) +
             (45088768LL + 16384)},
        {TPLAN_BASE_BF16, false, 2 * (4 * 16777216LL + 3 * 45088768LL)},
    };
    tplan_config c;
    tplan_plan p;

    (void)state;
    assert_near(tplan_base_matrix_bytes(TPLAN_BASE_NF4, true, 16777216.0,
                                        4096.0),
                8654852.0, 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        config_for(&c, "llama-7b", "a100-80g");
        lora(&c, 64, TPLAN_LORA_ALL);
        c.base_precision = cases[i].base;
        c.double_quant = cases[i].dq;
        c.seq = 512;
        eval_ok(&c, &p);
        assert_int_equal(p.mem.weights_bytes, 32 * cases[i].per_layer +
                                                  2 * 262410240LL +
                                                  2 * 159907840LL);
        /* gradients and AdamW states for the adapters only */
        assert_int_equal(p.mem.grads_bytes, 2 * 159907840LL);
        assert_int_equal(p.mem.optimizer_bytes, 12 * 159907840LL);
    }
    /* the paper's bits per parameter of the constants: 32/64 = 0.5 and
     * 8/64 + 32/(64*256) = 0.127 */
    assert_near((tplan_base_elem_bytes(TPLAN_BASE_NF4, false) - 0.5) * 8, 0.5,
                1e-12);
    assert_near((tplan_base_elem_bytes(TPLAN_BASE_NF4, true) - 0.5) * 8,
                8.0 / 64 + 32.0 / (64 * 256), 1e-12);
}

/* A QLoRA run as the paper's scripts set it (r = 64 on every linear, NF4
 * with double quantization, paged 32-bit AdamW, gradient checkpointing,
 * micro-batch 1, OASST1 at 512 tokens). */
static void qlora_cfg(tplan_config *c, const char *model, const char *gpu)
{
    config_for(c, model, gpu);
    lora(c, 64, TPLAN_LORA_ALL);
    c->base_precision = TPLAN_BASE_NF4;
    c->double_quant = true;
    c->optimizer = TPLAN_OPT_PAGED_ADAMW_32BIT;
    c->recompute = TPLAN_RECOMPUTE_FULL;
    c->micro_batch = 1;
    c->seq = 512;
}

/* Dettmers et al. 2023: "finetune a 65B parameter model on a single 48GB
 * GPU" while 16-bit finetuning of LLaMA 65B "requires more than 780 GB";
 * Guanaco 33B trains "on a single consumer GPU" (24 GB); "paged
 * optimizers are critical to do 33B/65B QLoRA tuning on a single
 * 24/48GB GPU". */
static void test_qlora_headlines(void **state)
{
    tplan_config c;
    tplan_plan p;

    (void)state;
    qlora_cfg(&c, "llama-65b", "l40s"); /* a 48 GB GPU */
    eval_ok(&c, &p);
    assert_true(p.mem.fits);
    qlora_cfg(&c, "llama-33b", "rtx4090");
    eval_ok(&c, &p);
    assert_true(p.mem.fits);
    /* 65B does not fit a 24 GB GPU, nor 16-bit LoRA a 48 GB one */
    qlora_cfg(&c, "llama-65b", "rtx4090");
    eval_ok(&c, &p);
    assert_false(p.mem.fits);
    qlora_cfg(&c, "llama-65b", "l40s");
    c.base_precision = TPLAN_BASE_AUTO;
    c.double_quant = false;
    eval_ok(&c, &p);
    assert_false(p.mem.fits);
    /* full 16-bit fine-tuning of 65B: over 780 GB of model states */
    config_for(&c, "llama-65b", "a100-80g");
    c.seq = 512;
    c.micro_batch = 1;
    eval_ok(&c, &p);
    assert_true((double)(p.mem.weights_bytes + p.mem.grads_bytes +
                         p.mem.optimizer_bytes) > 780e9);
    /* 33B on 24 GB needs the paged states to page out */
    qlora_cfg(&c, "llama-33b", "rtx4090");
    c.micro_batch = 2;
    eval_ok(&c, &p);
    assert_true(p.mem.fits);
    assert_true(p.mem.paged_spill_bytes > 0);
    assert_int_equal(p.mem.host_bytes, p.mem.paged_spill_bytes);
    assert_int_equal(p.mem.optimizer_bytes + p.mem.paged_spill_bytes,
                     llround(12.0 * (double)p.trainable_params));
    c.optimizer = TPLAN_OPT_ADAMW; /* the same states, not paged */
    eval_ok(&c, &p);
    assert_false(p.mem.fits);
}

/* DeepSpeed's estimators (deepspeed/runtime/zero/stage_1_and_2.py
 * estimate_zero2_model_states_mem_needs, stage3.py
 * estimate_zero3_model_states_mem_needs) for one node of N GPUs with the
 * default additional_buffer_factor 1.5 on the host side, which tplan adds
 * only under host_buffer_factor (the deepspeed profiles set 1.5; by
 * default it is DeepSpeed's margin, not memory the states use):
 *  ZeRO-2, optimizer offloaded: GPU 2P; host P x max(4N, 16) x 1.5
 *  ZeRO-3, optimizer offloaded: GPU 4L + 2P/N; host 16P x 1.5 (zero_init)
 *  ZeRO-3, both offloaded:      GPU 4L;        host 18P x 1.5 (zero_init)
 * with L DeepSpeed's largest module (the embedding here). tplan gathers a
 * whole transformer block (FSDP's wrapping unit): its 4L is 4 x the
 * block, larger than DeepSpeed's; that difference is the stated
 * tolerance and is checked separately. Model states match exactly. */
static void test_deepspeed_estimators(void **state)
{
    static const int64_t ns[] = {1, 2, 4};
    tplan_config c;
    tplan_plan p;

    (void)state;
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        int64_t n = ns[i];
        double P, ds_host, block, emb;

        config_for(&c, "llama2-7b", "a100-80g");
        c.gpus = n;
        c.seq = 512;
        c.micro_batch = 1;
        c.zero = 2;
        c.offload_optimizer = TPLAN_OFFLOAD_CPU;
        eval_ok(&c, &p);
        P = (double)p.params;
        assert_near((double)(p.mem.weights_bytes + p.mem.grads_bytes +
                             p.mem.optimizer_bytes),
                    2.0 * P, 1.0);
        ds_host = P * fmax(4.0 * (double)n, 16.0) * 1.5;
        assert_near((double)p.mem.host_bytes, ds_host / 1.5, 16.0);

        c.zero = 3;
        eval_ok(&c, &p);
        assert_near((double)(p.mem.weights_bytes + p.mem.grads_bytes +
                             p.mem.optimizer_bytes),
                    2.0 * P / (double)n, 4.0);
        assert_near((double)p.mem.host_bytes, 16.0 * P, 16.0);

        c.offload_params = TPLAN_OFFLOAD_CPU;
        eval_ok(&c, &p);
        assert_int_equal(p.mem.weights_bytes + p.mem.grads_bytes +
                             p.mem.optimizer_bytes,
                         0);
        assert_near((double)p.mem.host_bytes, 18.0 * P, 16.0);
        /* with DeepSpeed's allowance: its estimator's cpu_mem exactly
         * (llround of the per-GPU share times the GPUs of the node: 16
         * bytes of rounding at most) */
        c.host_buffer_factor = 1.5;
        eval_ok(&c, &p);
        assert_near((double)p.mem.host_bytes, 18.0 * P * 1.5, 16.0);
        c.host_buffer_factor = 1.0;
        /* the gathered unit: a block (FSDP) against DeepSpeed's largest
         * module, the 32000 x 4096 embedding */
        block = 4.0 * 4096.0 * 4096.0 + 3.0 * 4096.0 * 11008.0 + 2 * 4096.0;
        emb = 32000.0 * 4096.0;
        assert_near((double)p.mem.gather_bytes, 4.0 * block, 1.0);
        assert_true((double)p.mem.gather_bytes >= 4.0 * emb);
    }
    /* NVMe: the states go to the drive, fp32 gradients stay on the host */
    config_for(&c, "llama2-7b", "a100-80g");
    c.seq = 512;
    c.micro_batch = 1;
    c.zero = 3;
    c.offload_optimizer = TPLAN_OFFLOAD_NVME;
    c.offload_params = TPLAN_OFFLOAD_NVME;
    eval_ok(&c, &p);
    assert_near((double)p.mem.nvme_bytes, 14.0 * (double)p.params, 16.0);
    assert_near((double)p.mem.host_bytes, 4.0 * (double)p.params, 16.0);
    assert_true(p.perf.offload_s > 0);
}

/* Issue 37, item 6: a 7B ZeRO-3 plan with optimizer and weights on the
 * CPU under --framework deepspeed gives DeepSpeed's estimator figure
 * (stage3.py estimate_zero3_model_states_mem_needs, zero_init, one node:
 * cpu_mem = total_params x 18 x 1.5 = 6,738,415,616 x 27 =
 * 181,937,221,632 bytes, the 169.44 "GB" DeepSpeed prints, which are
 * GiB: it divides by 2**30); the default profile keeps the states'
 * 18 x P = 121,291,481,088 (112.96 GiB). Both profiles model the same
 * states: only the allowance differs. */
static void test_deepspeed_host_allowance(void **state)
{
    static const char *const fws[] = {"deepspeed", "deepspeed-2025"};
    tplan_config c;
    tplan_plan p;
    tplan_framework f;
    tplan_err err;

    (void)state;
    config_for(&c, "llama2-7b", "a100-80g");
    c.seq = 512;
    c.micro_batch = 1;
    c.zero = 3;
    c.offload_optimizer = TPLAN_OFFLOAD_CPU;
    c.offload_params = TPLAN_OFFLOAD_CPU;
    eval_ok(&c, &p);
    assert_int_equal(p.params, 6738415616LL);
    assert_near((double)p.mem.host_bytes, 121291481088.0, 1.0);
    for (size_t i = 0; i < sizeof fws / sizeof fws[0]; i++) {
        tplan_config d = c;

        assert_int_equal(tplan_framework_lookup(fws[i], &f, &err), TPLAN_OK);
        tplan_framework_apply(&f, &d);
        assert_true(d.host_buffer_factor == 1.5);
        eval_ok(&d, &p);
        assert_near((double)p.mem.host_bytes, 181937221632.0, 1.0);
        assert_near((double)p.mem.host_bytes / GIB, 169.44, 0.005);
    }
    /* the other frameworks keep the bytes alone */
    assert_int_equal(tplan_framework_lookup("fsdp", &f, &err), TPLAN_OK);
    tplan_framework_apply(&f, &c);
    assert_true(c.host_buffer_factor == 1.0);
}

/* Issue 37, item 1: LoRA on mixtures of experts and latent attention,
 * against PEFT's counting (r x (in + out) per nn.Linear it wraps; DoRA
 * adds a magnitude of out). Counted by hand from the config.json files:
 *  - Mixtral-8x7B (h 4096, 8 kv heads of 128, 8 experts of 14336, 32
 *    layers), r 16 on q,k,v,o: 32 x 16 x [(4096 + 4096) + 2 (4096 +
 *    1024) + (4096 + 4096)] = 13,631,488, PEFT's printed count.
 *  - its all-linear: PEFT's _maybe_include_all_linear_layers takes every
 *    nn.Linear but the output embedding (lm_head): per layer q,k,v,o
 *    425,984, the router gate (Linear(4096, 8)) 16 x 4104 = 65,664, and
 *    8 experts' w1, w3 (4096 -> 14336) and w2 (14336 -> 4096), 8 x 3 x 16
 *    x 18432 = 7,077,888: 32 x 7,569,536 = 242,225,152 (transformers up
 *    to 4.57, whose MixtralBlockSparseTop2MLP holds nn.Linear experts).
 *    The issue asks for 1%; the count is exact.
 *  - DeepSeek-V3's attention (h 7168, 128 heads, q_lora_rank 1536,
 *    kv_lora_rank 512, rope 64, nope 128, v 128), r 16 on q_a_proj (7168
 *    -> 1536), q_b_proj (1536 -> 24576), kv_a_proj_with_mqa (7168 ->
 *    576), kv_b_proj (512 -> 32768) and o_proj (16384 -> 7168): 16 x
 *    (8704 + 26112 + 7744 + 33280 + 23552) = 1,590,272 a layer, x 61 =
 *    97,006,592.
 *  - DoRA on Llama-3-8B q,v r 16: LoRA's 32 x 16 x [(4096 + 4096) +
 *    (4096 + 1024)] = 6,815,744 plus 32 x (4096 + 1024) magnitudes. */
static void test_moe_mla_counts(void **state)
{
    tplan_config c;
    tplan_plan p;

    (void)state;
    config_for(&c, "mixtral-8x7b", "h100-sxm");
    lora(&c, 16, TPLAN_LORA_ATTN);
    c.seq = 512;
    eval_ok(&c, &p);
    assert_int_equal(p.trainable_params, 13631488);
    lora(&c, 16, TPLAN_LORA_ALL);
    eval_ok(&c, &p);
    assert_true(fabs((double)p.trainable_params - 242225152.0) <
                0.01 * 242225152.0);
    assert_int_equal(p.trainable_params, 242225152);
    /* the parts: the router, the experts */
    lora(&c, 16, TPLAN_LORA_ROUTER);
    eval_ok(&c, &p);
    assert_int_equal(p.trainable_params, 32 * 65664);
    lora(&c, 16, TPLAN_LORA_EXPERTS);
    eval_ok(&c, &p);
    assert_int_equal(p.trainable_params, 32 * 7077888);

    config_for(&c, "deepseek-v3", "h200");
    lora(&c, 16, TPLAN_LORA_ATTN);
    c.seq = 512;
    c.gpus = 64;
    c.ep = 64;
    eval_ok(&c, &p);
    assert_int_equal(p.trainable_params, 97006592);
    lora(&c, 16, TPLAN_LORA_MLA);
    eval_ok(&c, &p);
    assert_int_equal(p.trainable_params, 97006592 - 61 * 16 * 23552);

    config_for(&c, "llama3-8b", "h100-sxm");
    lora(&c, 16, TPLAN_LORA_Q | TPLAN_LORA_V);
    c.seq = 512;
    eval_ok(&c, &p);
    assert_int_equal(p.trainable_params, 6815744);
    c.dora = true;
    eval_ok(&c, &p);
    assert_int_equal(p.trainable_params, 6815744 + 32 * (4096 + 1024));
}

/* Expert parallelism shards the frozen experts and their adapters: from
 * ep 1 to ep 2 a GPU of Mixtral's QLoRA keeps half its experts, so its
 * weights fall by half the experts' NF4 bytes (bitsandbytes' layout,
 * tplan_base_matrix_bytes, checked against the paper in
 * test_bitsandbytes_bytes) and half their adapters' 16-bit bytes. A
 * Mixtral QLoRA plan fits on 2 x 80 GB (issue 37). */
static void test_moe_qlora_ep(void **state)
{
    tplan_config c;
    tplan_plan p1, p2;
    double w13, w2, adapters, experts;

    (void)state;
    qlora_cfg(&c, "mixtral-8x7b", "h100-sxm");
    c.gpus = 2;
    eval_ok(&c, &p1);
    assert_true(p1.mem.fits);
    c.ep = 2;
    eval_ok(&c, &p2);
    assert_true(p2.mem.fits);
    w13 = tplan_base_matrix_bytes(TPLAN_BASE_NF4, true, 4096.0 * 14336.0,
                                  14336.0);
    w2 = tplan_base_matrix_bytes(TPLAN_BASE_NF4, true, 4096.0 * 14336.0,
                                 4096.0);
    adapters = 3.0 * 64.0 * (4096.0 + 14336.0) * 2.0; /* bf16 A and B */
    experts = 32.0 * 8.0 * (2.0 * w13 + w2 + adapters);
    /* each figure is rounded to a byte once */
    assert_near((double)(p1.mem.weights_bytes - p2.mem.weights_bytes),
                experts / 2.0, 2.0);
    /* and the experts' adapters' gradients and states with them */
    assert_true(p2.mem.grads_bytes < p1.mem.grads_bytes);
    assert_true(p2.mem.optimizer_bytes + p2.mem.paged_spill_bytes <
                p1.mem.optimizer_bytes + p1.mem.paged_spill_bytes);
}

/* A node whose host memory is too small does not fit, and says so. */
static void test_host_capacity(void **state)
{
    tplan_config c;
    tplan_plan p;

    (void)state;
    config_for(&c, "llama2-7b", "a100-80g");
    c.seq = 512;
    c.micro_batch = 1;
    c.offload_optimizer = TPLAN_OFFLOAD_CPU;
    c.host_memory_bytes = 64.0 * GIB; /* 16 x 6.7B = 100 GiB needed */
    eval_ok(&c, &p);
    assert_false(p.mem.host_fits);
    assert_false(p.mem.fits);
    assert_int_equal(p.max_micro_batch, 0);
    assert_non_null(strstr(p.warnings[0], "host memory per node"));
    c.host_memory_bytes = 128.0 * GIB;
    eval_ok(&c, &p);
    assert_true(p.mem.fits);
    /* the default: the GPU's instance share (p4de: 1152 GiB / 8) */
    c.host_memory_bytes = 0;
    eval_ok(&c, &p);
    assert_int_equal(p.mem.host_capacity_bytes, llround(144.0 * GIB));
}

/* Frozen weights skip their weight-gradient matmul: 4 FLOPs per weight
 * per token instead of 6 (forward 2, input gradient 2); the adapters cost
 * 6 per parameter; the attention core is unchanged. */
static void test_lora_flops(void **state)
{
    tplan_config c;
    tplan_flops full, l;
    double tokens = 4.0 * 2048.0, mm, head, a;

    (void)state;
    config_for(&c, "llama2-7b", "a100-80g");
    tplan_flops_eval(&c.model, 2048, 4.0, TPLAN_RECOMPUTE_NONE,
                     TPLAN_ATTN_FLASH, true, &full);
    l = full;
    a = (double)tplan_lora_params(&c.model, 16, TPLAN_LORA_ALL, false);
    tplan_flops_lora(&c.model, a, 2048, 4.0, TPLAN_RECOMPUTE_NONE, &l);
    mm = 2.0 * 32.0 * (4.0 * 4096.0 * 4096.0 + 3.0 * 4096.0 * 11008.0);
    head = 2.0 * 4096.0 * 32000.0;
    assert_rel(full.model - l.model, (mm + head) * tokens - 6.0 * a * tokens,
               1e-12);
    assert_rel(l.attn_hw, full.attn_hw, 1e-15);
    /* with full recomputation the extra forward stays */
    tplan_flops_eval(&c.model, 2048, 4.0, TPLAN_RECOMPUTE_FULL,
                     TPLAN_ATTN_FLASH, true, &full);
    l = full;
    tplan_flops_lora(&c.model, a, 2048, 4.0, TPLAN_RECOMPUTE_FULL, &l);
    assert_rel(full.hardware - l.hardware,
               (mm + head) * tokens - 8.0 * a * tokens, 1e-12);
}

/* Adapter dropout saves a 1-byte mask and a 16-bit dropped input per
 * targeted linear; A's output (s x r) is saved either way. */
static void test_lora_activations(void **state)
{
    tplan_config c;
    double s = 1024.0, r = 16.0;

    (void)state;
    config_for(&c, "llama2-7b", "a100-80g");
    c.seq = 1024;
    lora(&c, 16, TPLAN_LORA_Q | TPLAN_LORA_V | TPLAN_LORA_DOWN);
    assert_near(tplan_act_lora_layer(&c, false), 3.0 * s * r * 2.0, 0);
    c.lora_dropout = 0.1;
    assert_near(tplan_act_lora_layer(&c, false),
                3.0 * s * r * 2.0 + s * (4096.0 + 4096.0 + 11008.0) * 3.0, 0);
}

static void test_finetune_errors(void **state)
{
    tplan_config c;
    tplan_plan p;
    tplan_err err;

    (void)state;
    config_for(&c, "llama2-7b", "a100-80g");
    c.base_precision = TPLAN_BASE_NF4; /* no adapters */
    assert_int_equal(tplan_plan_eval(&c, &p, &err), TPLAN_EINVAL);
    assert_string_equal(err.field, "base_precision");
    config_for(&c, "llama2-7b", "a100-80g");
    lora(&c, 8, TPLAN_LORA_ALL);
    c.double_quant = true; /* not 4-bit */
    assert_int_equal(tplan_plan_eval(&c, &p, &err), TPLAN_EINVAL);
    assert_string_equal(err.field, "double_quant");
    config_for(&c, "llama2-7b", "a100-80g");
    c.offload_params = TPLAN_OFFLOAD_CPU; /* not ZeRO-3 */
    assert_int_equal(tplan_plan_eval(&c, &p, &err), TPLAN_EINVAL);
    assert_string_equal(err.field, "offload_params");
    config_for(&c, "gpt2", "a100-80g");
    lora(&c, 8, TPLAN_LORA_GATE); /* GELU: no gate */
    assert_int_equal(tplan_plan_eval(&c, &p, &err), TPLAN_EINVAL);
    assert_string_equal(err.field, "lora_targets");
}

/* The targets' text both ways. */
static void test_targets_text(void **state)
{
    unsigned m;
    char buf[64];

    (void)state;
    assert_true(tplan_lora_targets_parse("q,v", &m));
    assert_int_equal(m, TPLAN_LORA_Q | TPLAN_LORA_V);
    tplan_lora_targets_format(m, buf, sizeof buf);
    assert_string_equal(buf, "q,v");
    /* attn and mlp are a dense layer's linears: all-linear also has the
     * router and the experts (issue 37) */
    assert_true(tplan_lora_targets_parse("attn,mlp", &m));
    assert_int_equal(m, TPLAN_LORA_ATTN | TPLAN_LORA_MLP);
    tplan_lora_targets_format(m, buf, sizeof buf);
    assert_string_equal(buf, "attn,mlp");
    assert_true(tplan_lora_targets_parse("attn,mlp,router,shared_experts,"
                                         "experts", &m));
    assert_int_equal(m, TPLAN_LORA_ALL);
    tplan_lora_targets_format(m, buf, sizeof buf);
    assert_string_equal(buf, "all-linear");
    assert_true(tplan_lora_targets_parse("experts,mla,o", &m));
    assert_int_equal(m, TPLAN_LORA_EXPERTS | TPLAN_LORA_MLA | TPLAN_LORA_O);
    tplan_lora_targets_format(m, buf, sizeof buf);
    assert_string_equal(buf, "o,mla,experts");
    assert_true(tplan_lora_targets_parse("attn,router", &m));
    tplan_lora_targets_format(m, buf, sizeof buf);
    assert_string_equal(buf, "attn,router");
    assert_true(tplan_lora_targets_parse("o,k,q,v", &m));
    tplan_lora_targets_format(m, buf, sizeof buf);
    assert_string_equal(buf, "attn");
    assert_false(tplan_lora_targets_parse("q,,v", &m));
    assert_false(tplan_lora_targets_parse("qkv", &m));
    assert_false(tplan_lora_targets_parse("", &m));
    assert_false(tplan_lora_targets_parse("q,", &m));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_peft_counts),
        cmocka_unit_test(test_what_is_quantized),
        cmocka_unit_test(test_bitsandbytes_bytes),
        cmocka_unit_test(test_qlora_headlines),
        cmocka_unit_test(test_deepspeed_estimators),
        cmocka_unit_test(test_host_capacity),
        cmocka_unit_test(test_lora_flops),
        cmocka_unit_test(test_lora_activations),
        cmocka_unit_test(test_finetune_errors),
        cmocka_unit_test(test_targets_text),
        cmocka_unit_test(test_deepspeed_host_allowance),
        cmocka_unit_test(test_moe_mla_counts),
        cmocka_unit_test(test_moe_qlora_ep),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
