/* FLOPs accounting: 2 FLOPs per multiply-add; backward costs twice the
 * forward (gradients for inputs and for weights). */
#include "flops.h"

/* rate_of and flops_at are inlined into tplan_flops_eval, where the
 * factors stay in registers (issue 38: a call of each and the factors
 * through memory cost a full evaluation ~60 instructions) */
#define FLOPS_INLINE static inline __attribute__((always_inline))

FLOPS_INLINE void rate_of(const tplan_model *m, int64_t seq, tplan_recompute r,
                          tplan_attention attn, bool causal_model,
                          tplan_flops_rate *out)
{
    double s = (double)seq, h, L, mm_tok, attn_tok, head_tok, mlp_w, moe;
    double attn_model, attn_hw_fwd, core, causal;
    double expert_tok;
    bool decoder = m->arch == TPLAN_ARCH_DECODER;

    /* the factors a figure reads are set below; the rest are read
     * behind a flag set false here */
    out->mtp = out->modules = false;
    out->generic = m->arch == TPLAN_ARCH_GENERIC;
    if (out->generic) {
        /* forward FLOPs per sample given by the model; all dense */
        out->per_token = 3.0 * m->generic_flops_per_sample;
        return;
    }
    h = (double)m->hidden;
    L = (double)m->layers;
    mlp_w = m->mlp == TPLAN_MLP_SWIGLU ? 3.0 : 2.0;
    /* Forward, per token, 2 FLOPs per matmul weight: attention (QKV with
     * k kv heads h(qd + 2kd) and output qd h, or MLA's projections) and
     * the MLP, 2hf (GELU) or 3hf (SwiGLU). An MoE layer runs its router
     * (h x experts), its shared experts and top_k routed experts: the
     * active parameters (docs/MODEL.md section 13.2). */
    moe = (double)tplan_model_moe_layers(m, 0, m->layers);
    mm_tok = 2.0 * (L * (double)tplan_model_attn_matmul(m) +
                    (L - moe) * mlp_w * h * (double)m->ffn);
    expert_tok = 2.0 * moe * (double)m->top_k * mlp_w * h *
                 (double)tplan_model_expert_ffn(m);
    mm_tok += expert_tok +
              2.0 * moe *
                  (h * (double)m->experts +
                   mlp_w * h *
                       (double)(m->shared_experts * tplan_model_shared_ffn(m)));
    head_tok = 2.0 * h * (double)m->vocab;
    /* Attention core: QK^T and AV, 2 s a (d_qk + d_v) per token per layer
     * whatever the kv heads (each query head still meets s keys). A
     * causal decoder's useful share is half the square; a sliding window
     * w < s leaves w - w(w-1)/(2s) keys per query on average, on the
     * windowed layers (every layer but each global_every-th). Flash
     * skips masked blocks; eager computes the whole square. */
    core = 2.0 * s * (double)m->heads *
           (double)(tplan_model_qk_head_dim(m) + tplan_model_v_head_dim(m));
    attn_tok = core * L;
    causal = 0.5 * attn_tok;
    if (decoder && m->window > 0 && m->window < seq) {
        double w = (double)m->window;
        double windowed = m->global_every > 0
                              ? L - (double)(m->layers / m->global_every)
                              : L;
        double keys = w - w * (w - 1.0) / (2.0 * s);

        causal = core * ((L - windowed) * 0.5 + windowed * keys / s);
    }
    attn_model = decoder && causal_model ? causal : attn_tok;
    attn_hw_fwd = decoder && attn == TPLAN_ATTN_FLASH ? causal : attn_tok;

    out->per_token = 3.0 * (mm_tok + attn_model + head_tok);
    out->matmul = 3.0 * (mm_tok + head_tok);
    out->head = 3.0 * head_tok;
    out->expert = 3.0 * expert_tok;
    /* Flash attention's backward recomputes QK^T from the saved log-sum-
     * exp: 2.5x the forward instead of 2x (Dao 2023, FlashAttention-2,
     * section 3.2), so selective recomputation has nothing left to add. */
    out->attn = (attn == TPLAN_ATTN_FLASH ? 3.5 : 3.0) * attn_hw_fwd;
    /* Recomputation: full repeats each layer's forward (not the head);
     * selective repeats the eager attention core's forward (Korthikanti
     * 2022; note their closed form 72BLsh^2(1 + s/(3h) + V/(12hL)) counts
     * the s^2 term twice over, one extra forward is 4Bs^2h per layer). */
    out->rc_full = r == TPLAN_RECOMPUTE_FULL;
    out->rc_attn = r == TPLAN_RECOMPUTE_SELECTIVE && attn == TPLAN_ATTN_EAGER;
    out->rc_matmul = mm_tok;
    out->rc_expert = expert_tok;
    out->rc_attn_fwd = attn_hw_fwd;
    if (decoder && m->mtp_layers > 0) {
        /* DeepSeek-V3 section 2.2: each of the D MTP modules runs, per
         * token, its 2h -> h projection (2 x 2h x h FLOPs), one block of
         * the last layer's kind (attention, and the MoE's router, shared
         * and top_k routed experts or the dense MLP) and the shared
         * output head once more; forward + backward 3x, as the main
         * model's. Full recomputation repeats the block and projection,
         * not the head. Windows are not modelled for it (full causal). */
        double D = (double)m->mtp_layers, blk, blk_exp = 0.0, mtp_tok;
        double mtp_core = decoder && causal_model ? 0.5 * core : core;
        double mtp_core_hw = attn == TPLAN_ATTN_FLASH ? 0.5 * core : core;

        if (tplan_model_mtp_moe(m)) {
            blk_exp = 2.0 * (double)m->top_k * mlp_w * h *
                      (double)tplan_model_expert_ffn(m);
            blk = blk_exp +
                  2.0 * (h * (double)m->experts +
                         mlp_w * h *
                             (double)(m->shared_experts *
                                      tplan_model_shared_ffn(m)));
        } else {
            blk = 2.0 * mlp_w * h * (double)m->ffn;
        }
        blk += 2.0 * (double)tplan_model_attn_matmul(m) + 2.0 * 2.0 * h * h;
        mtp_tok = D * (blk + head_tok);
        out->mtp = true;
        out->mtp_model = 3.0 * (mtp_tok + D * mtp_core);
        out->mtp_hw = 3.0 * (mtp_tok + D * mtp_core_hw);
        out->mtp_hw_flash = (attn == TPLAN_ATTN_FLASH ? 0.5 : 0.0) * D *
                            mtp_core_hw;
        out->mtp_matmul = 3.0 * mtp_tok;
        out->mtp_attn = (attn == TPLAN_ATTN_FLASH ? 3.5 : 3.0) * D *
                        mtp_core_hw;
        out->mtp_expert = 3.0 * D * blk_exp;
        out->mtp_rc_matmul = D * blk;
        out->mtp_rc_expert = D * blk_exp;
        out->mtp_rc_attn = D * mtp_core_hw;
        out->mtp_rc_full = D * (blk + mtp_core_hw);
    }
}

/* One more forward of the recompute modules' matmuls, per token: fwd in
 * all, expert of it the routed experts'. False where none runs. */
FLOPS_INLINE bool rc_modules_rate(const tplan_model *m, unsigned modules,
                            double *fwd_out, double *expert_out)
{
    double h, mlp_w, moe, L, fwd = 0.0;
    double expert = 0.0;

    if (m->arch == TPLAN_ARCH_GENERIC || !modules)
        return false;
    h = (double)m->hidden;
    L = (double)m->layers;
    mlp_w = m->mlp == TPLAN_MLP_SWIGLU ? 3.0 : 2.0;
    moe = (double)tplan_model_moe_layers(m, 0, m->layers);
    /* Megatron-Core's qkv_up_proj_and_rope_apply: linear_q_up_proj (q
     * rank x a d_qk, absent without a q rank) and linear_kv_up_proj (kv
     * rank x a (d_nope + d_v)) */
    if ((modules & TPLAN_RC_MLA_UP_PROJ) && tplan_model_mla(m)) {
        double a = (double)m->heads;
        double q_up = m->q_lora_rank > 0
                          ? (double)m->q_lora_rank * a *
                                (double)tplan_model_qk_head_dim(m)
                          : 0.0;
        double kv_up = (double)m->kv_lora_rank * a *
                       (double)(m->qk_nope_dim + m->v_head_dim);

        fwd += 2.0 * L * (q_up + kv_up);
    }
    /* Megatron-Core recomputes the MLP of dense layers only */
    if (modules & TPLAN_RC_MLP)
        fwd += 2.0 * (L - moe) * mlp_w * h * (double)m->ffn;
    if (moe > 0 && (modules & TPLAN_RC_MOE)) {
        expert = 2.0 * moe * (double)m->top_k * mlp_w * h *
                 (double)tplan_model_expert_ffn(m);
        fwd += expert + 2.0 * moe * h * (double)m->experts;
    }
    if (moe > 0 && (modules & (TPLAN_RC_MOE | TPLAN_RC_SHARED_EXPERTS)))
        fwd += 2.0 * moe * mlp_w * h *
               (double)(m->shared_experts * tplan_model_shared_ffn(m));
    *fwd_out = fwd;
    *expert_out = expert;
    return true;
}

void tplan_flops_rate_rc_modules(const tplan_model *m, unsigned modules,
                                 tplan_flops_rate *rate)
{
    rate->modules = rc_modules_rate(m, modules, &rate->mod_matmul,
                                    &rate->mod_expert);
}

FLOPS_INLINE void flops_at(const tplan_flops_rate *r, int64_t seq,
                           double samples, tplan_flops *out)
{
    double tokens = (double)seq * samples;

    if (r->generic) {
        out->model = r->per_token * samples;
        out->hardware = out->model;
        out->matmul_hw = out->hardware;
        out->attn_hw = 0.0;
        out->head_hw = 0.0;
        out->expert_hw = 0.0;
        out->mtp_hw = 0.0;
        out->per_token = r->per_token;
        return;
    }
    out->per_token = r->per_token;
    out->model = r->per_token * tokens;
    out->matmul_hw = r->matmul * tokens;
    out->head_hw = r->head * tokens;
    out->expert_hw = r->expert * tokens;
    out->attn_hw = r->attn * tokens;
    if (r->rc_full) {
        out->matmul_hw += r->rc_matmul * tokens;
        out->expert_hw += r->rc_expert * tokens;
        out->attn_hw += r->rc_attn_fwd * tokens;
    } else if (r->rc_attn) {
        out->attn_hw += r->rc_attn_fwd * tokens;
    }
    out->hardware = out->matmul_hw + out->attn_hw;
    out->mtp_hw = 0.0;
    if (r->mtp) {
        out->per_token += r->mtp_model;
        out->model += r->mtp_model * tokens;
        out->mtp_hw = r->mtp_hw * tokens + r->mtp_hw_flash * tokens;
        out->matmul_hw += r->mtp_matmul * tokens;
        out->attn_hw += r->mtp_attn * tokens;
        out->expert_hw += r->mtp_expert * tokens;
        if (r->rc_full) {
            out->matmul_hw += r->mtp_rc_matmul * tokens;
            out->expert_hw += r->mtp_rc_expert * tokens;
            out->attn_hw += r->mtp_rc_attn * tokens;
            out->mtp_hw += r->mtp_rc_full * tokens;
        } else if (r->rc_attn) {
            out->attn_hw += r->mtp_rc_attn * tokens;
            out->mtp_hw += r->mtp_rc_attn * tokens;
        }
        out->hardware = out->matmul_hw + out->attn_hw;
    }
    if (r->modules) {
        out->matmul_hw += r->mod_matmul * tokens;
        out->expert_hw += r->mod_expert * tokens;
        out->hardware = out->matmul_hw + out->attn_hw;
    }
}

void tplan_flops_rate_of(const tplan_model *m, int64_t seq, tplan_recompute r,
                         tplan_attention attn, bool causal_model,
                         tplan_flops_rate *out)
{
    rate_of(m, seq, r, attn, causal_model, out);
}

void tplan_flops_at(const tplan_flops_rate *rate, int64_t seq, double samples,
                    tplan_flops *out)
{
    flops_at(rate, seq, samples, out);
}

void tplan_flops_eval(const tplan_model *m, int64_t seq, double samples,
                      tplan_recompute r, tplan_attention attn,
                      bool causal_model, tplan_flops *out)
{
    tplan_flops_rate rate;

    rate_of(m, seq, r, attn, causal_model, &rate);
    flops_at(&rate, seq, samples, out);
}

void tplan_flops_rc_modules(const tplan_model *m, int64_t seq, double samples,
                            unsigned modules, tplan_flops *fl)
{
    double tokens = (double)seq * samples, fwd, expert;

    if (!rc_modules_rate(m, modules, &fwd, &expert))
        return;
    fl->matmul_hw += fwd * tokens;
    fl->expert_hw += expert * tokens;
    fl->hardware = fl->matmul_hw + fl->attn_hw;
}

void tplan_flops_lora(const tplan_model *m, double lora_params, int64_t seq,
                      double samples, tplan_recompute r, tplan_flops *fl)
{
    double tokens = (double)seq * samples;
    /* the weight gradients: a third of the dense matmuls' forward +
     * backward (backward = input gradient + weight gradient) */
    double wgrad = fl->matmul_hw, head_wgrad = fl->head_hw / 3.0;
    double adapters = 2.0 * lora_params * tokens; /* forward */

    if (m->arch == TPLAN_ARCH_GENERIC)
        return;
    /* under full recomputation matmul_hw holds a fourth forward pass */
    wgrad = (r == TPLAN_RECOMPUTE_FULL ? (wgrad - fl->head_hw) / 4.0 +
                                             fl->head_hw / 3.0
                                       : wgrad / 3.0);
    fl->model -= wgrad;
    fl->matmul_hw -= wgrad;
    fl->head_hw -= head_wgrad;
    fl->model += 3.0 * adapters;
    fl->matmul_hw += (r == TPLAN_RECOMPUTE_FULL ? 4.0 : 3.0) * adapters;
    fl->hardware = fl->matmul_hw + fl->attn_hw;
    fl->per_token = tokens > 0 ? fl->model / tokens : fl->per_token;
}

double tplan_megatron_model_flops(double batch, double seq, double layers,
                                  double hidden, double vocab)
{
    /* Narayanan et al. 2021 section 5.1 without recomputation. */
    return 72.0 * batch * seq * layers * hidden * hidden *
           (1.0 + seq / (6.0 * hidden) + vocab / (12.0 * layers * hidden));
}

double tplan_megatron_full_recompute_flops(double batch, double seq,
                                           double layers, double hidden,
                                           double vocab)
{
    /* Narayanan et al. 2021, Eq. 3. */
    return 96.0 * batch * seq * layers * hidden * hidden *
           (1.0 + seq / (6.0 * hidden) + vocab / (16.0 * layers * hidden));
}
