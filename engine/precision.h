/* Precision recipes and optimizers as bytes per parameter (docs/MODEL.md
 * section 2). Tables only; knows nothing of models, GPUs or I/O. */
#ifndef TPLAN_PRECISION_H
#define TPLAN_PRECISION_H

#include <stdbool.h>

#include "err.h"
#include "hardware.h"

typedef enum {
    TPLAN_PREC_FP32,
    TPLAN_PREC_AMP_BF16,
    TPLAN_PREC_AMP_FP16,
    TPLAN_PREC_MIXED_BF16,
    TPLAN_PREC_MIXED_FP16,
    TPLAN_PREC_BF16,
    TPLAN_PREC_FP8,
    TPLAN_PREC_COUNT
} tplan_precision;

/* How activations are stored, which selects a column of an activation
 * inventory (see activations.h). */
typedef enum {
    TPLAN_ACT_FP32,   /* no autocast: everything fp32 */
    TPLAN_ACT_AMP,    /* autocast: fp32 weights and residual, 16-bit matmuls */
    TPLAN_ACT_PURE16, /* model cast to 16 bits (Megatron, DeepSpeed, pure) */
    TPLAN_ACT_FP8,    /* as PURE16, but matmul inputs saved in fp8 */
    TPLAN_ACT_CLASS_COUNT
} tplan_act_class;

typedef struct tplan_precision_info {
    const char *name;
    double weight_bytes; /* resident weights per parameter */
    double grad_bytes;
    double master_bytes; /* fp32 master copy kept with the optimizer */
    /* low-precision copies of matmul weights alive from forward to backward
     * (autocast's cast cache, Transformer Engine's fp8 weights) */
    double work_copy_bytes;
    double state_scale; /* optimizer states relative to fp32 storage */
    tplan_dtype compute;
    tplan_act_class act;
    bool loss_scaling; /* fp16 needs a loss scaler */
    const char *source;
} tplan_precision_info;

typedef enum {
    TPLAN_OPT_ADAMW,
    TPLAN_OPT_ADAM,
    TPLAN_OPT_SGD,
    TPLAN_OPT_SGD_MOMENTUM,
    TPLAN_OPT_ADAFACTOR,
    TPLAN_OPT_LION,
    TPLAN_OPT_ADAMW_8BIT,
    TPLAN_OPT_ADAGRAD,
    TPLAN_OPT_RMSPROP,
    TPLAN_OPT_ADAFACTOR_UNFACTORED,
    TPLAN_OPT_PAGED_ADAMW_8BIT,
    TPLAN_OPT_PAGED_ADAMW_32BIT,
    TPLAN_OPT_COUNT
} tplan_optimizer;

typedef struct tplan_optimizer_info {
    const char *name;
    double state_bytes; /* per parameter when states are fp32 */
    bool quantized;     /* states already below 16 bits: no further scaling */
    const char *source;
    /* a row and a column statistic per weight matrix (Adafactor), counted
     * from the model's shapes; state_bytes applies to vectors (norms,
     * biases) and to generic models, whose shapes are unknown */
    bool factored;
    /* states in unified memory that page to the host under pressure
     * (bitsandbytes paged optimizers) */
    bool paged;
} tplan_optimizer_info;

const tplan_precision_info *tplan_precision_get(tplan_precision p);
const tplan_optimizer_info *tplan_optimizer_get(tplan_optimizer o);
int tplan_precision_parse(const char *s, tplan_precision *out, tplan_err *err);
int tplan_optimizer_parse(const char *s, tplan_optimizer *out, tplan_err *err);

/* Optimizer bytes per parameter under a recipe: master copy + states. */
double tplan_optimizer_bytes_per_param(tplan_precision p, tplan_optimizer o);

#endif
