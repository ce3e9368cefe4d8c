/* A pipeline stage's memory before rounding, and the memo that keeps a
 * memory evaluation's stages for the next evaluation of the same config at
 * another micro-batch (memory.c). Engine-internal. */
#ifndef TPLAN_STAGE_MEM_H
#define TPLAN_STAGE_MEM_H

#include <stdbool.h>
#include <stdint.h>

#include "memory.h"

/* One pipeline stage's memory, before rounding. fixed + per_sample * b. */
typedef struct tplan_stage_mem {
    double params, weights, work, grads, optim, context, gather;
    double blas_ws; /* of context: the BLAS workspaces */
    double per_sample, act_layer, inflight;
    int64_t layers;
    double trainable;  /* parameters with gradients (before ZeRO) */
    double dequant;    /* of the overhead: one dequantized 16-bit matrix */
    double quant;      /* quantized base elements */
    double paged;      /* of optim: states that may page to the host */
    double host, nvme; /* per GPU: offloaded there */
    double off_states, off_w; /* of host or nvme: states, weights */
    double experts;           /* of params: routed experts */
    int64_t moe_layers;       /* of layers: mixtures of experts */
    double alloc_k;           /* 1 + alloc_frac */
    double opt_params;        /* parameters whose states the device holds */
    double nccl;              /* NCCL's buffers (outside the allocator) */
    double nvls;              /* of nccl: NVLink SHARP buffers */
    double bucket;            /* gradient communication buckets */
    double step_temp;         /* the optimizer step's temporaries */
    int64_t comms;            /* NCCL communicators the GPU joins */
    /* Under set_to_none with one micro-batch per step (grads_at_step):
     * the gradients and the autocast copies are out of the fixed part,
     * each live in one phase only (phase_peak); tie_temp is a tied
     * embedding's second gradient before it is added in. */
    bool grads_at_step;
    double tie_temp;
    double work_fwd; /* of work: the copies live at the forward's peak */
    /* FSDP2 and activation offloading (docs/MODEL.md section 12.10) */
    double weights_full; /* the stage's weights, unsharded (before offload) */
    double held;         /* of the forward's phase: the unsharded weights
                            reshard_after_forward=false keeps to backward */
    double act_host;     /* per sample: activations on the host */
    double act_off_mb;   /* per sample: what one micro-batch copies out */
} tplan_stage_mem;

/* A pipeline stage: its index, its layers [lo, hi), and whether it holds
 * the embedding (the first) and the head (the last; the only stage is
 * both). When p does not divide L the first L mod p stages hold
 * ceil(L/p) layers and the others floor(L/p): the first stage carries the
 * extra layer and the last the head (tplan's choice, docs/MODEL.md
 * section 13.1). */
typedef struct tplan_stage_pos {
    int64_t i, lo, hi;
    bool first, last;
} tplan_stage_pos;

/* What a stage's total at micro-batch b reads that b does not move
 * (memory.c stage_parts: the same sums, kept as doubles): its total is
 * outside + alloc_k (fixed + max(per_sample b + fwd_copies + held,
 * step)). */
typedef struct tplan_stage_parts {
    double outside;    /* outside the allocator: context, NCCL */
    double fixed;      /* allocated through the whole step */
    double step;       /* the optimizer step's phase */
    double fwd_copies; /* under grads_at_step, the forward's copies */
} tplan_stage_parts;

/* The most stages a memory evaluation looks at (memory.c) */
#define TPLAN_MAX_STAGES 10

/* What of a stage's memory the activations, the recomputation, the
 * micro-batch and the accumulation leave (memory.c stage_base): the
 * stage before its set_to_none phases and activations, its matmul
 * weights, and DualPipe's mirrored stage. */
typedef struct tplan_stage_base {
    tplan_stage_mem s;
    double matmul;
    tplan_stage_pos mirror;
    double mirror_inflight;
    bool holds_last;
} tplan_stage_base;

/* The stages' bases of the last memory evaluation through a cache
 * (memory.c eval_stages), for the next one whose config differs at most
 * in recompute, recompute_modules, micro_batch and accum, the fields
 * stage_base and the choice of stages do not read (issue 38: a sweep's
 * recompute axis is the innermost of the fields that change everything,
 * two thirds of its full evaluations, and the model states were the
 * largest part of each). Keyed by the config's bytes but those four
 * fields (memory.c states_same): any other change misses, and an entry
 * is a function of its key alone, as the activation tables are. A
 * config's only pointers are its GPU's static source texts, which no
 * state reads: equal bytes are equal inputs. */
typedef struct tplan_states_memo {
    bool valid;
    int n;
    tplan_config key;
    tplan_stage_pos pos[TPLAN_MAX_STAGES];
    tplan_stage_base base[TPLAN_MAX_STAGES];
    /* Whether this evaluation's config is the key's (TPLAN_STATES_*):
     * plan.c's eval() asks once before its batch solve (tplan_states_probe)
     * and clears it after, so that the solve's memory evaluations, which
     * change only micro_batch and accum, ask no more; 0 outside. */
    int probe;
    /* Bumped at each new key: what the cache keeps for the key elsewhere
     * (plan.c's time layout, tplan_act_cache.layout_gen) holds while it
     * is the same. */
    uint64_t gen;
    /* The key's model's counts (tplan_model_params): a hit needs no
     * compare of the model again (issue 38). */
    tplan_param_count pc;
    /* tplan_act_cache.params_gen when the key was set: its model's */
    uint64_t model_gen;
    /* Each stage's figures that its base alone gives (memory.c
     * fill_states; bit i of fixed_set: filled for stage i, of
     * fixed_in_range: their range verdict), for the worst stage of the
     * next full evaluation of the key (issue 38: they were most of the
     * figures filled after a change of recompute). Dropped with the key. */
    unsigned fixed_set, fixed_in_range;
    tplan_memory fixed[TPLAN_MAX_STAGES];
    /* A sweep's word on the next probe, so that it compares no config
     * (engine/layout_memo.c): ticket, set by the worker's layout memo at
     * each pass of the layout rules (0: none), is taken by the next
     * probe (probe_ticket) and stays the key's (key_ticket) where that
     * full evaluation's solve left its config the key (probe HIT: plan.c
     * eval); a key set otherwise has none (0: eval_stages, a
     * batch-staged evaluation's). same (TPLAN_STATES_*): the layout
     * memo's word on this evaluation's config, from the key's ticket's
     * digits: HIT, the key's but for the fields the key leaves out (only
     * such axes moved since); MISS, another axis moved too (a miss is
     * always safe: the stages are worked out again); UNKNOWN (0), compare
     * the config. Taken by the next probe too. */
    uint64_t ticket, probe_ticket, key_ticket;
    int same;
    /* Set by a probe that took the word MISS where the params memo
     * still holds the key's model (tplan_act_cache.params_gen is
     * model_gen): the layout memo gives a word only where no axis writes
     * the model (tplan_field_writes_alone), so this config's model is
     * the key's, whose counts the params memo holds: plan.c's eval and
     * the solve's first eval_stages take them with no compare of the
     * model. Cleared with probe (plan.c). */
    bool model_same;
} tplan_states_memo;

/* tplan_states_memo.probe */
enum { TPLAN_STATES_UNKNOWN = 0, TPLAN_STATES_HIT, TPLAN_STATES_MISS };

/* Memory is affine in the micro-batch: a stage's states, overheads and
 * per-sample activations do not depend on it, only on the in-flight
 * micro-batches the accumulation decides (tplan_memory_same_accum). So a
 * memory evaluation's stages hold for the next evaluation of the same
 * config at another micro-batch or accumulation with the same in-flight
 * counts: the batch solve's candidate splits, and a sweep's neighbour
 * that differs only in batch-class fields (issue 38: the memory stages
 * were three quarters of such a re-evaluation). Results are bit-identical:
 * the stages are the same doubles either way.
 *
 * Who may use it: tplan_plan_eval_cached arms it around its batch solve,
 * and clears it unless the evaluation is a batch-staged one of the same
 * plan (TPLAN_EVAL_REUSE_BATCH: the caller guarantees that what changed
 * is of the batch class or cheaper, and of those the memory reads only the
 * micro-batch, the accumulation and the reserve, which it checks);
 * memory evaluations outside an armed solve neither read nor fill it. */
typedef struct tplan_stage_memo {
    bool armed;       /* a batch solve of plan is under way */
    bool valid;       /* stages hold for plan's config */
    const void *plan; /* the plan whose evaluation filled it */
    int64_t accum;    /* the accumulation the stages were evaluated at */
    /* every accumulation from this one up leaves the stages as they are
     * (tplan_memory_same_accum(c, accum, k) for all k >= it; memory.c
     * same_from; INT64_MAX: none known): worked out for the stages,
     * which hold c's layout, when first asked (same_known), and dropped
     * with them */
    int64_t same_from;
    bool same_known;
    int n;
    double usable; /* the usable bytes of the last evaluation through it */
    int64_t bmax;  /* the largest micro-batch every stage fits in them */
    tplan_stage_pos pos[TPLAN_MAX_STAGES];
    tplan_stage_mem stages[TPLAN_MAX_STAGES];
    /* each stage's parts (stage_parts), worked out with the stages */
    tplan_stage_parts parts[TPLAN_MAX_STAGES];
    /* The figures of stages[fixed_stage] that neither the micro-batch, the
     * accumulation nor the reserve moves (memory.c fill_fixed; -1: none
     * yet), and whether its host side is in range. They read only the
     * stage and the config's non-batch fields, so they hold while the
     * stages do: reset whenever the stages are evaluated again. */
    int fixed_stage;
    bool fixed_in_range;
    bool fixed_kept; /* fixed holds them (else only the fill that made
                        them did: fill_fixed again when one is needed) */
    tplan_memory fixed;
    /* The figures last written from fixed whose fixed part still stands
     * (fill_batch wrote only its micro-batch's fields: no spill, in
     * range), so that the next fill of the same stage into them skips
     * the copy (issue 38); NULL: none. Cleared with fixed_stage, and by
     * a memory evaluation into them that does not go through the memo. */
    const tplan_memory *filled;
    /* Set by plan.c before each solve (armed): true for a batch-staged
     * one whose plan, if it does not fit, is not timed and cannot be
     * refused after its memory (TPLAN_EVAL_FIT_FIRST with figures only,
     * no ramp, no LR; the fit is all a sweep reads of such a plan): a
     * fill of a stage that does not fit may stop after its verdict
     * (memory.c defer_fill; issue 38: half of a sweep's micro-batch
     * changes do not fit). */
    bool defer;
} tplan_stage_memo;

#endif
