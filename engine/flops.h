/* FLOPs per training step: model FLOPs (the useful work, for MFU) and
 * hardware FLOPs (with recomputation, for HFU and time), split into dense
 * matmuls and the attention core. Pure arithmetic; knows nothing of GPUs. */
#ifndef TPLAN_FLOPS_H
#define TPLAN_FLOPS_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "model.h"

typedef struct tplan_flops {
    double model;     /* forward + backward, no recomputation */
    double hardware;  /* what the GPUs execute, recomputation included */
    double matmul_hw; /* of hardware: dense matmuls (incl. the LM head) */
    double attn_hw;   /* of hardware: the attention core (QK^T, AV) */
    double head_hw;   /* of matmul_hw: the LM head (last stage only) */
    double expert_hw; /* of matmul_hw: routed experts (the share a busy
                         expert rank stretches) */
    double mtp_hw;    /* of hardware: the multi-token prediction modules
                         (blocks, projections, their head; last stage
                         only), matmuls and attention core */
    double per_token; /* model FLOPs per token */
} tplan_flops;

/* FLOPs for `samples` sequences of length seq. causal_model counts the
 * attention core of a decoder at half (only the unmasked half is useful);
 * the hardware count is halved only with flash attention, which skips the
 * masked blocks (eager attention computes and masks the whole square). */
void tplan_flops_eval(const tplan_model *m, int64_t seq, double samples,
                      tplan_recompute r, tplan_attention attn,
                      bool causal_model, tplan_flops *out);

/* The per-token factors of tplan_flops_eval (and of
 * tplan_flops_rc_modules): what the model, the sequence length, the
 * recomputation and the attention kernel decide. Every figure of a step
 * is one of them times its tokens (its samples, for a generic model),
 * summed in tplan_flops_eval's order (tplan_flops_at): the same doubles
 * from the same products, so a caller that keeps the factors while only
 * the samples change (perf.c's memo, issue 38) gets tplan_flops_eval's
 * figures bit for bit. */
typedef struct tplan_flops_rate {
    bool generic;                      /* per_token is 3 x FLOPs per sample */
    double per_token;                  /* model FLOPs per token, MTP aside */
    double matmul, head, expert, attn; /* hardware, forward + backward */
    bool rc_full, rc_attn; /* full recomputation; eager attention's */
    double rc_matmul, rc_expert, rc_attn_fwd; /* the recomputed forward */
    bool mtp; /* multi-token prediction modules */
    double mtp_model, mtp_hw, mtp_hw_flash, mtp_matmul, mtp_attn;
    double mtp_expert, mtp_rc_matmul, mtp_rc_expert, mtp_rc_attn;
    double mtp_rc_full;
    bool modules; /* recompute modules (rc_modules) */
    double mod_matmul, mod_expert;
} tplan_flops_rate;

/* tplan_flops_eval's factors, without the recompute modules' (none). */
void tplan_flops_rate_of(const tplan_model *m, int64_t seq, tplan_recompute r,
                         tplan_attention attn, bool causal_model,
                         tplan_flops_rate *out);

/* Add tplan_flops_rc_modules's factors to *rate. */
void tplan_flops_rate_rc_modules(const tplan_model *m, unsigned modules,
                                 tplan_flops_rate *rate);

/* The FLOPs of `samples` sequences of length seq at those factors: what
 * tplan_flops_eval, then tplan_flops_rc_modules with the modules of
 * tplan_flops_rate_rc_modules, give. */
void tplan_flops_at(const tplan_flops_rate *rate, int64_t seq, double samples,
                    tplan_flops *out);

/* Add what recompute modules (TPLAN_RC_*, other than core_attn, which
 * tplan_flops_eval counts under TPLAN_RECOMPUTE_SELECTIVE) run again: one
 * more forward of each module's matmuls, to the hardware count only
 * (docs/MODEL.md section 3.9). mla_up_proj: MLA's q and kv up
 * projections; mlp: the dense layers' MLPs; moe: router, routed and
 * shared experts; shared_experts: the shared experts. layernorm and
 * moe_act rerun elementwise work, which tplan's FLOPs do not count. */
void tplan_flops_rc_modules(const tplan_model *m, int64_t seq, double samples,
                            unsigned modules, tplan_flops *fl);

/* Turn a full-training count from tplan_flops_eval into LoRA's: frozen
 * weights skip their weight-gradient matmul (each dense matmul, LM head
 * included, costs 4 instead of 6 FLOPs per weight per token) and the
 * adapters' lora_params (whole model) cost 6 per parameter per token, 8
 * with full recomputation (docs/MODEL.md section 12.7). */
void tplan_flops_lora(const tplan_model *m, double lora_params, int64_t seq,
                      double samples, tplan_recompute r, tplan_flops *fl);

/* Narayanan et al. 2021 closed forms for a GPT with f = 4h, full attention
 * counted: model FLOPs 72 B s L h^2 (1 + s/(6h) + V/(12 L h)) and, with full
 * recomputation (Eq. 3), 96 B s L h^2 (1 + s/(6h) + V/(16 L h)). */
double tplan_megatron_model_flops(double batch, double seq, double layers,
                                  double hidden, double vocab);
double tplan_megatron_full_recompute_flops(double batch, double seq,
                                           double layers, double hidden,
                                           double vocab);

#endif
