/* Activation memory as an inventory of tensors saved for backward, per
 * implementation profile (docs/MODEL.md section 3). Each tensor has a shape in
 * s, b, h, f, a, k and a dtype rule per precision class; the sum is the
 * activation memory. Knows nothing of GPUs, ZeRO or I/O. */
#ifndef TPLAN_ACTIVATIONS_H
#define TPLAN_ACTIVATIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "model.h"
#include "perf.h"
#include "precision.h"
#include "stage_mem.h"

/* What decides which tensors are saved and how wide they are. */
typedef struct tplan_act_ctx {
    tplan_profile profile;
    tplan_act_class cls;
    tplan_recompute recompute;
    tplan_attention attention;
    bool dropout; /* the model's dropout p > 0 */
    int64_t tp;
    int64_t etp; /* expert-tensor parallelism (0: tp) */
    bool sp;
    bool fused_loss; /* a fused cross-entropy: no fp32 logits, no
                        log-softmax, a log-sum-exp per token */
    bool fused_norm; /* fused RMSNorm kernels: no fp32 input copy */
    double moe_load; /* tokens on the busiest expert rank over the
                        average (tplan_config_moe_load) */
    unsigned rc_modules; /* TPLAN_RC_* recompute modules (0: core_attn
                            under selective, none otherwise) */
    bool fp8_act;        /* DeepSeek-V3's fp8 caching (fp8 recipes) */
} tplan_act_ctx;

/* Bytes for ONE sample (all terms scale with the micro-batch b). */
typedef struct tplan_act_bytes {
    double layer;      /* one layer, kept from forward to backward */
    double layer_full; /* one layer as if nothing were recomputed: the
                          working set rebuilt during backward */
    double first;      /* embedding-side tensors (first pipeline stage) */
    double last;       /* final norm, LM head, logits and loss (last stage) */
    /* one mixture-of-experts layer, as layer and layer_full (equal to them
     * for dense models) */
    double moe_layer, moe_layer_full;
} tplan_act_bytes;

/* One line of the inventory, for display. */
typedef struct tplan_act_item {
    const char *name;  /* borrowed, static */
    const char *where; /* "layer", "first" or "last" */
    double bytes;      /* for one sample */
    int elem_bytes;    /* bytes per element under the context's rules */
} tplan_act_item;

/* Fill the context from a validated config. */
void tplan_act_ctx_from_config(const tplan_config *c, tplan_act_ctx *ctx);

/* Per-sample activation bytes of a transformer model at sequence seq. */
void tplan_act_per_sample(const tplan_model *m, const tplan_act_ctx *ctx,
                          int64_t seq, tplan_act_bytes *out);

/* A memo of per-sample activation bytes, owned by one caller (a sweep
 * worker) and passed down by tplan_plan_eval_cached (engine_int.h). A
 * sweep evaluates the same model, sequence and parallel layout over and over while other
 * axes (GPU count, ZeRO, micro-batch, overlap...) vary; the inventory walk
 * is the costliest part of an evaluation. Results are bit-identical with
 * or without it. 256 slots (about 80 KB): a written sweep's plans come in
 * rank order, across every sequence, layout, recomputation and precision
 * of its space at once (issue 38: 96 of them in tests/bench/
 * keep_all_paths.lua, which thrashed 64 slots). Two ways a set, and a
 * finalized hash (activations.c): keys that share a slot evicted each
 * other at every turn (issue 38: the bench's nic space, 24 keys over tp
 * x precision x recompute, walked its inventories 42 times, ~6,500
 * instructions each, where 25 do now). */
#define TPLAN_ACT_CACHE_SLOTS 256
#define TPLAN_ACT_CACHE_WAYS  2
/* lookups by a model's gen kept (tplan_act_cache.near): tp x precision
 * x recompute of a sweep's innermost whole-plan axes */
#define TPLAN_ACT_NEAR 8

typedef struct tplan_act_key {
    tplan_act_ctx ctx;
    int64_t seq, hidden, heads, kv_heads, ffn, vocab, head_dim, block_norms;
    int64_t experts, top_k, expert_ffn, shared_width;
    int64_t q_lora_rank, kv_lora_rank, qk_rope_dim, qk_nope_dim, v_head_dim;
    int mlp, norm, pos, arch, qk_norm, softcap, gelu_python;
} tplan_act_key;

typedef struct tplan_act_cache {
    struct {
        bool used;
        uint64_t used_at; /* tick of the last lookup that found it */
        tplan_act_key key;
        tplan_act_bytes bytes;
    } slot[TPLAN_ACT_CACHE_SLOTS];
    int last; /* the slot the last lookup found or filled */
    uint64_t tick; /* lookups through the hash; a miss evicts the way
                      found longest ago */
    int64_t hits, misses;
    tplan_stage_memo stages; /* memory.c's, armed by plan.c */
    tplan_states_memo states; /* memory.c's, for any evaluation */
    /* plan.c's: the time's layout part of the last full evaluation of
     * the states memo's key (gen: states.gen then), for the next one
     * (tplan_perf_layout). Dropped by a new key (gen). */
    bool layout_set;
    uint64_t layout_gen;
    tplan_perf_layout layout;
    bool layout_key;  /* the evaluation under way is of the states memo's
                         key, with no layout kept: keep its own */
    bool layout_used; /* it was given the kept one (its shape is not
                         cleared: eval() clears it if it is not timed) */
    /* tplan_model_params_cached's memo: the counts of the model whose
     * bytes params_model holds (params_set: filled). Keyed by the whole
     * struct, every field, so any change of the model misses (issue 38:
     * the counts were computed once per evaluation and once per stage) */
    bool params_set;
    tplan_model params_model;
    tplan_param_count params;
    /* Bumped at each refill of params_model: one gen, one model's bytes
     * (0: none yet). A model known to be params_model's (the states
     * memo's key's, tplan_states_memo.model_gen) is named by it. */
    uint64_t params_gen;
    /* tplan_act_per_sample_gen's: the last lookups by a model's gen, the
     * sequence and the context (issue 38: a full evaluation's lookup
     * through the tables' key and hash cost ~230 instructions, though
     * a sweep's few contexts come round again within a few
     * evaluations). Keyed by all three: an entry is the tables' bytes
     * for them. */
    struct {
        uint64_t model_gen; /* 0: unused */
        int64_t seq;
        tplan_act_ctx ctx;
        tplan_act_bytes bytes;
    } near[TPLAN_ACT_NEAR];
    int near_next; /* the entry the next miss takes */
    /* the entry the last lookup found or filled: the search starts after
     * it (a sweep's contexts come round in the order they were first
     * met, which is the entries' order) */
    int near_last;
} tplan_act_cache;

/* tplan_act_per_sample_cached for a model whose cache gen is model_gen
 * (tplan_act_cache.params_gen; 0: not known, the tables' lookup alone). */
void tplan_act_per_sample_gen(const tplan_model *m, const tplan_act_ctx *ctx,
                              int64_t seq, uint64_t model_gen,
                              tplan_act_cache *cache, tplan_act_bytes *out);

/* tplan_act_per_sample through the memo (cache may be NULL). */
void tplan_act_per_sample_cached(const tplan_model *m, const tplan_act_ctx *ctx,
                                 int64_t seq, tplan_act_cache *cache,
                                 tplan_act_bytes *out);

/* tplan_model_params through the memo (cache may be NULL): the same
 * counts. */
void tplan_model_params_cached(const tplan_model *m, tplan_act_cache *cache,
                               tplan_param_count *out);

/* What LoRA adapters add to one layer's saved tensors, for one sample
 * (docs/MODEL.md section 12.6): per targeted linear, A's output (s x r,
 * saved for B's weight gradient) and, with adapter dropout, its mask (1
 * byte) and the dropped copy of the input A saves; without dropout A saves
 * the base linear's input, counted already. 0 without adapters. moe: a
 * mixture-of-experts layer's, whose routed experts' adapters see top_k
 * copies of each token. */
double tplan_act_lora_layer(const tplan_config *c, bool moe);

/* List the tensors counted, up to cap items; returns how many exist. */
int tplan_act_list(const tplan_model *m, const tplan_act_ctx *ctx, int64_t seq,
                   tplan_act_item *items, int cap);

#endif
