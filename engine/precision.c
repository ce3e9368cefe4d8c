/* Bytes-per-parameter tables for precision recipes and optimizers. */
#include "precision.h"

#include <string.h>

static const tplan_precision_info precisions[TPLAN_PREC_COUNT] = {
    [TPLAN_PREC_FP32] = {"fp32", 4, 4, 0, 0, 1.0, TPLAN_DTYPE_FP32,
                         TPLAN_ACT_FP32, false, "docs/MODEL.md section 2"},
    /* PyTorch autocast keeps fp32 weights and grads; its cast cache holds
     * 16-bit copies of matmul weights until backward (torch.amp docs;
     * torch_cpu_gpt2.csv layer_param_copy_bytes = 2 bytes x matmul weights). */
    [TPLAN_PREC_AMP_BF16] = {"amp-bf16", 4, 4, 0, 2, 1.0, TPLAN_DTYPE_BF16,
                             TPLAN_ACT_AMP, false,
                             "torch.amp autocast; torch_cpu_gpt2.csv"},
    [TPLAN_PREC_AMP_FP16] = {"amp-fp16", 4, 4, 0, 2, 1.0, TPLAN_DTYPE_FP16,
                             TPLAN_ACT_AMP, true,
                             "torch.amp autocast + GradScaler"},
    /* Rajbhandari et al. 2020 (ZeRO) section 3.1: 2 + 2 + K bytes with
     * K = 12 for Adam (fp32 master 4 + momentum 4 + variance 4). */
    [TPLAN_PREC_MIXED_BF16] = {"mixed-bf16", 2, 2, 4, 0, 1.0, TPLAN_DTYPE_BF16,
                               TPLAN_ACT_PURE16, false,
                               "Rajbhandari et al. 2020 (ZeRO) 3.1"},
    [TPLAN_PREC_MIXED_FP16] = {"mixed-fp16", 2, 2, 4, 0, 1.0, TPLAN_DTYPE_FP16,
                               TPLAN_ACT_PURE16, true,
                               "Rajbhandari et al. 2020 (ZeRO) 3.1; "
                               "Micikevicius et al. 2018"},
    /* Pure bf16: no master copy, states in bf16 too (docs/MODEL.md 2.1). */
    [TPLAN_PREC_BF16] = {"bf16", 2, 2, 0, 0, 0.5, TPLAN_DTYPE_BF16,
                         TPLAN_ACT_PURE16, false, "docs/MODEL.md section 2"},
    /* Transformer Engine fp8 (NVIDIA TE docs, "Using FP8 with Transformer
     * Engine"): bf16 weights with fp32 master and states as mixed-bf16, plus
     * an fp8 copy of each matmul weight cached for the step (1 byte);
     * matmul inputs are saved for backward in fp8. */
    [TPLAN_PREC_FP8] = {"fp8", 2, 2, 4, 1, 1.0, TPLAN_DTYPE_FP8, TPLAN_ACT_FP8,
                        false, "NVIDIA Transformer Engine FP8 recipe"},
};

/* Per-parameter state bytes with fp32 states. docs/MODEL.md section 2; PyTorch
 * CPU measurement there: AdamW 16 = 4 param + 4 grad + 8 state, SGD with
 * momentum 12, SGD 8, Adagrad 12, RMSprop 12. */
static const tplan_optimizer_info optimizers[TPLAN_OPT_COUNT] = {
    [TPLAN_OPT_ADAMW] = {"adamw", 8, false, "Loshchilov & Hutter 2019", false, false},
    [TPLAN_OPT_ADAM] = {"adam", 8, false, "Kingma & Ba 2015", false, false},
    [TPLAN_OPT_SGD] = {"sgd", 0, false, "torch.optim.SGD, momentum=0",
                       false, false},
    [TPLAN_OPT_SGD_MOMENTUM] = {"sgd-momentum", 4, false,
                                "torch.optim.SGD momentum buffer", false,
                                false},
    /* Shazeer & Stern 2018, Algorithm 4 (factored second moment, one
     * statistic per row and per column of each matrix) without a first
     * moment: Hugging Face transformers' Adafactor defaults to beta1=None
     * and factors every parameter of two or more dimensions
     * (_get_options: factored = len(shape) >= 2, first moment only when
     * beta1 is set); vectors keep a full second moment (4 bytes).
     * docs/MODEL.md section 2.2. */
    [TPLAN_OPT_ADAFACTOR] = {"adafactor", 4, false,
                             "Shazeer & Stern 2018 Alg. 4; HF Adafactor "
                             "defaults (factored, beta1=None)",
                             true, false},
    [TPLAN_OPT_LION] = {"lion", 4, false,
                        "Chen et al. 2023 (one momentum)", false, false},
    /* Dettmers et al. 2022: two 8-bit states; block statistics are below
     * 1% and ignored. */
    [TPLAN_OPT_ADAMW_8BIT] = {"adamw-8bit", 2, true, "Dettmers et al. 2022",
                              false, false},
    [TPLAN_OPT_ADAGRAD] = {"adagrad", 4, false, "torch.optim.Adagrad",
                           false, false},
    [TPLAN_OPT_RMSPROP] = {"rmsprop", 4, false, "torch.optim.RMSprop",
                           false, false},
    /* Adafactor without factoring: a full second moment per parameter and
     * no first moment (Shazeer & Stern 2018, Algorithm 2; what Hugging
     * Face's Adafactor keeps for vectors, exp_avg_sq of the parameter's
     * shape) */
    [TPLAN_OPT_ADAFACTOR_UNFACTORED] = {"adafactor-unfactored", 4, false,
                                        "Shazeer & Stern 2018; HF Adafactor "
                                        "with its matrices unfactored",
                                        false, false},
    /* bitsandbytes paged optimizers (Dettmers et al. 2023, QLoRA section
     * 3, "Paged Optimizers"): the states of AdamW8bit or of a 32-bit
     * AdamW live in CUDA unified memory and page to the host when the GPU
     * runs out (memory.c spills them; docs/MODEL.md section 12.3). The
     * 32-bit states stay fp32 whatever the recipe. */
    [TPLAN_OPT_PAGED_ADAMW_8BIT] = {"paged-adamw-8bit", 2, true,
                                    "Dettmers et al. 2023 (QLoRA), paged "
                                    "8-bit AdamW",
                                    false, true},
    [TPLAN_OPT_PAGED_ADAMW_32BIT] = {"paged-adamw-32bit", 8, true,
                                     "Dettmers et al. 2023 (QLoRA), paged "
                                     "32-bit AdamW",
                                     false, true},
};

const tplan_precision_info *tplan_precision_get(tplan_precision p)
{
    return p >= 0 && p < TPLAN_PREC_COUNT ? &precisions[p] : NULL;
}

const tplan_optimizer_info *tplan_optimizer_get(tplan_optimizer o)
{
    return o >= 0 && o < TPLAN_OPT_COUNT ? &optimizers[o] : NULL;
}

int tplan_precision_parse(const char *s, tplan_precision *out, tplan_err *err)
{
    for (int i = 0; i < TPLAN_PREC_COUNT; i++) {
        if (strcmp(precisions[i].name, s) == 0) {
            *out = (tplan_precision)i;
            return TPLAN_OK;
        }
    }
    return tplan_err_set(err, TPLAN_ENOTFOUND, "precision",
                         "unknown precision (precision=%.64s); expected fp32, "
                         "amp-bf16, amp-fp16, mixed-bf16, mixed-fp16, bf16 "
                         "or fp8",
                         s);
}

int tplan_optimizer_parse(const char *s, tplan_optimizer *out, tplan_err *err)
{
    for (int i = 0; i < TPLAN_OPT_COUNT; i++) {
        if (strcmp(optimizers[i].name, s) == 0) {
            *out = (tplan_optimizer)i;
            return TPLAN_OK;
        }
    }
    return tplan_err_set(err, TPLAN_ENOTFOUND, "optimizer",
                         "unknown optimizer (optimizer=%.64s); expected adamw, "
                         "adam, sgd, sgd-momentum, adafactor, lion, "
                         "adamw-8bit, adagrad, rmsprop, "
                         "adafactor-unfactored, paged-adamw-8bit or "
                         "paged-adamw-32bit",
                         s);
}

double tplan_optimizer_bytes_per_param(tplan_precision p, tplan_optimizer o)
{
    const tplan_precision_info *pi = &precisions[p];
    const tplan_optimizer_info *oi = &optimizers[o];
    double states =
        oi->quantized ? oi->state_bytes : oi->state_bytes * pi->state_scale;

    return pi->master_bytes + states;
}
