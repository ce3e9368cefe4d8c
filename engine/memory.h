/* Per-device memory of one configuration: model states under ZeRO and
 * tensor/pipeline division, activations on the most loaded pipeline stage,
 * overheads, and the largest micro-batch that fits (docs/MODEL.md
 * sections 2-4).
 * Knows nothing of time, cost or I/O. */
#ifndef TPLAN_MEMORY_H
#define TPLAN_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"

typedef enum {
    TPLAN_STAGE_ONLY,  /* no pipeline: one stage holds everything */
    TPLAN_STAGE_FIRST, /* embedding + layers, most micro-batches in flight */
    TPLAN_STAGE_LAST,  /* layers + final norm, head, logits and loss */
    TPLAN_STAGE_MIDDLE /* layers only (uneven or MoE layers can make one
                          the most loaded) */
} tplan_stage;

/* The largest micro-batch reported when memory does not limit it. */
#define TPLAN_MICRO_BATCH_UNBOUNDED (1 << 30)

/* How sure the verdict is: where the memory band [total_bytes_lo,
 * total_bytes_hi] lies against the usable memory (docs/MODEL.md section
 * 14.4). YES and LIKELY fit (memory.fits), UNLIKELY and NO do not. */
typedef enum {
    TPLAN_FIT_YES,      /* even the high end fits */
    TPLAN_FIT_LIKELY,   /* the estimate fits, the high end does not */
    TPLAN_FIT_UNLIKELY, /* the estimate does not fit, the low end does */
    TPLAN_FIT_NO        /* not even the low end fits */
} tplan_fit_confidence;

const char *tplan_fit_confidence_name(tplan_fit_confidence f);

typedef struct tplan_memory {
    /* the contract (bytes per device, integers) */
    int64_t weights_bytes; /* incl. low-precision working copies */
    int64_t grads_bytes;
    int64_t optimizer_bytes; /* master copy + optimizer states */
    int64_t activations_bytes;
    int64_t overhead_bytes; /* CUDA context + ZeRO-3 gathered layers */
    int64_t total_bytes;
    int64_t capacity_bytes; /* as the runtime reports it */
    bool fits;              /* total <= usable */
    /* detail */
    int64_t usable_bytes; /* capacity minus the reserve */
    int64_t reserve_bytes;
    int64_t work_copy_bytes;     /* of weights_bytes */
    int64_t context_bytes;       /* of overhead_bytes */
    int64_t blas_ws_bytes;       /* of context_bytes: the BLAS workspaces */
    int64_t gather_bytes;        /* of overhead_bytes: ZeRO-3 live layers */
    int64_t params_on_device;    /* held by the device before ZeRO sharding */
    double act_per_sample_bytes; /* activations per sample of micro-batch */
    double act_layer_bytes;      /* one layer, one sample, kept to backward */
    double inflight;             /* micro-batches' activations held at once */
    int64_t layers_on_stage;
    tplan_stage stage;       /* the most loaded stage, reported here */
    int64_t stage_index;     /* its index, 0 .. pp - 1 */
    int64_t micro_batch;     /* evaluated micro-batch (the max in max mode) */
    int64_t max_micro_batch; /* largest that fits on every stage; 0: none;
                                TPLAN_MICRO_BATCH_UNBOUNDED: memory does
                                not grow with it (a generic model with no
                                activation bytes) */
    bool out_of_range;       /* over 1e18 bytes: nothing else is filled in */
    /* fine-tuning and offload (docs/MODEL.md section 12) */
    int64_t trainable_on_device; /* parameters with gradients, before ZeRO */
    int64_t experts_on_device;   /* of params_on_device: routed experts */
    int64_t host_bytes;          /* per node: offloaded and paged-out */
    int64_t nvme_bytes;          /* per node: offloaded to NVMe */
    int64_t host_capacity_bytes; /* per node, as the job uses it */
    bool host_fits;
    int64_t offload_state_bytes;  /* per GPU: offloaded master copy and
                                     optimizer states */
    int64_t offload_weight_bytes; /* per GPU: offloaded weights */
    int64_t paged_spill_bytes;   /* per GPU: paged states on the host */
    /* activation offloading (offload_activations, docs/MODEL.md 12.10) */
    int64_t act_offload_bytes;   /* per GPU: activations on the host at the
                                    peak (of host_bytes, per GPU) */
    double act_offload_mb_bytes; /* per GPU: bytes one micro-batch copies
                                    out in forward (and back in backward) */
    int64_t reshard_held_bytes;  /* of gather_bytes: the unsharded weights
                                    reshard_after_forward=false keeps from
                                    forward to backward */
    int64_t dequant_bytes;       /* of overhead_bytes: a dequantized matrix */
    double quant_elems;          /* quantized base elements on the device */
    int64_t alloc_bytes;         /* of overhead_bytes: alloc_frac of the
                                    allocated bytes */
    /* the band: total x (1 - mem_band_lo) .. total x (1 + mem_band_hi) */
    int64_t total_bytes_lo, total_bytes_hi;
    tplan_fit_confidence fit_confidence;
    /* what the stack allocates besides the model's tensors (docs/MODEL.md
     * section 4.6) */
    int64_t nccl_bytes;      /* of overhead_bytes: NCCL's buffers */
    int64_t communicators;   /* NCCL communicators the GPU joins */
    int64_t nvls_bytes;      /* of nccl_bytes: NVLink SHARP buffers */
    int64_t bucket_bytes;    /* of overhead_bytes: gradient buckets */
    int64_t step_temp_bytes; /* the optimizer step's temporaries */
    int64_t transient_bytes; /* of overhead_bytes: the step's peak over the
                                backward's (step_temp - activations, >= 0) */
    int64_t off_peak_bytes;  /* of the parts above, not live at the peak
                                (set_to_none: the gradients, or the
                                activations and autocast copies) */
    int64_t states_bytes;    /* the context, NCCL and the allocated states
                                (the gradients included, under set_to_none
                                not the autocast copies) with the
                                allocator's share: what any plan must hold
                                at the optimizer step (fit diagnosis) */
    /* not in the field table: the fit diagnosis and calc's text */
    int64_t forward_states_bytes; /* what the forward's peak holds besides
                                     the activations */
    int64_t step_states_bytes;    /* what the optimizer step's peak holds */
    int64_t tie_temp_bytes;       /* of it: a tied embedding's second
                                     gradient (set_to_none) */
    bool peak_at_step;            /* the step's phase is the peak */
    /* internal: only the fit verdict is this plan's (fits, host_fits,
     * micro_batch, max_micro_batch, out_of_range); the rest of the
     * figures the micro-batch moves are an earlier fill's. A sweep's
     * plan that does not fit and is not timed (plan.h,
     * TPLAN_EVAL_FIT_FIRST; memory.c defer_fill); whatever times it
     * evaluates its memory again (plan.c tail) */
    bool partial;
} tplan_memory;

/* Evaluate a validated config. micro_batch 0 means "the largest that
 * fits"; when not even one sample fits, the figures are for b = 1. */
void tplan_memory_eval(const tplan_config *c, tplan_memory *out);

/* One pipeline stage of a validated config at micro_batch (>= 1), with
 * that stage's own largest micro-batch. With pp = 1 every stage is the
 * only one. */
void tplan_memory_eval_stage(const tplan_config *c, tplan_stage st,
                             int64_t micro_batch, tplan_memory *out);
/* The same for the stage with this index (0 .. pp - 1). */
void tplan_memory_eval_stage_at(const tplan_config *c, int64_t index,
                                int64_t micro_batch, tplan_memory *out);

/* Bytes of one line of advice or warning text. */
#define TPLAN_ADVICE_LEN 256

#endif
