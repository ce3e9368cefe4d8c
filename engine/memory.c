/* Per-device memory: model states, activations, overheads, max micro-batch
 * and fit advice. */
#include "memory.h"

#include "engine_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "activations.h"
#include "inline_math.h"
#include "stage_mem.h"

typedef tplan_stage_mem stage_mem;
typedef tplan_stage_pos stage_pos;

#define GIB             (1024.0 * 1024.0 * 1024.0)
#define MAX_MICRO_BATCH TPLAN_MICRO_BATCH_UNBOUNDED

/* BLAS workspaces a training step holds: the forward's thread's and
 * autograd's (stage_eval; docs/MODEL.md section 4.1) */
#define BLAS_WORKSPACES 2.0

/* What the caching allocator hands out besides activations: the model
 * states and buffers. */
static double states_alloc(const stage_mem *s)
{
    return s->weights + s->work + s->grads + s->optim + s->gather +
           s->dequant + s->bucket;
}

/* Of those, what is live through the whole step. */
static double fixed_alloc(const stage_mem *s)
{
    return states_alloc(s) - (s->grads_at_step ? s->work + s->grads : 0.0);
}

/* Outside PyTorch's caching allocator: the CUDA context and NCCL's
 * buffers (NCCL allocates its own with cudaMalloc). */
static double outside_alloc(const stage_mem *s)
{
    return s->context + s->nccl;
}

/* The forward's end: the activations at micro-batch b, and under
 * grads_at_step the autocast copies they hold (no gradient yet). */
static double forward_phase(const stage_mem *s, double b)
{
    return s->per_sample * b + (s->grads_at_step ? s->work_fwd : 0.0) +
           s->held;
}

/* The optimizer step: its temporaries, and under grads_at_step the
 * gradients, with a tied embedding's second gradient at the backward's
 * end (the activations and copies are gone by then). */
static double step_phase(const stage_mem *s)
{
    return s->grads_at_step ? s->grads + tp_fmax(s->tie_temp, s->step_temp)
                            : s->step_temp;
}

/* What varies with the phase of the step at micro-batch b, whichever
 * phase is larger (docs/MODEL.md section 4.6). */
static double phase_peak(const stage_mem *s, double b)
{
    return tp_fmax(forward_phase(s, b), step_phase(s));
}

/* The stage's memory at micro-batch b: the context, and the allocated
 * bytes with the allocator's share on top (docs/MODEL.md section 4.3). */
static double stage_total(const stage_mem *s, double b)
{
    return outside_alloc(s) + s->alloc_k * (fixed_alloc(s) + phase_peak(s, b));
}

/* The parts of stage_total that the micro-batch does not move (issue
 * 38: a batch-staged evaluation's memory summed them again for every
 * stage it looked at); parts_total is stage_total from them, the same
 * doubles from the same sums. */
static void stage_parts(const stage_mem *s, tplan_stage_parts *p)
{
    p->outside = outside_alloc(s);
    p->fixed = fixed_alloc(s);
    p->step = step_phase(s);
    p->fwd_copies = s->grads_at_step ? s->work_fwd : 0.0;
}

/* forward_phase and phase_peak from the parts */
static double parts_forward(const stage_mem *s, const tplan_stage_parts *p,
                            double b)
{
    return s->per_sample * b + p->fwd_copies + s->held;
}

static double parts_total(const stage_mem *s, const tplan_stage_parts *p,
                          double b)
{
    return p->outside +
           s->alloc_k * (p->fixed + tp_fmax(parts_forward(s, p, b), p->step));
}

static stage_pos stage_at(const tplan_config *c, int64_t i)
{
    stage_pos s;

    s.i = i;
    tplan_config_stage_range(c, i, &s.lo, &s.hi);
    s.first = i == 0;
    s.last = i == c->pp - 1;
    return s;
}

/* Micro-batches of activations stage i holds at once, in units of its
 * own layers (Megatron-LM's schedules, get_pp_rank_microbatches; chunks
 * taken as equal: with pp_embed_loss the first chunk of stage 0 and the
 * last of the last stage are a layer short, which this counts as full,
 * about 5% on those stages at p = v = 8): 1F1B
 * runs p - i - 1 warm-up forwards before its first backward, so it holds
 * min(p - i, m); interleaved over v chunks of L/(p v) layers it runs
 * 2(p - i - 1) + (v - 1) p warm-up chunk forwards, of m v in all. On the
 * first stage that is p (1 + (p - 1)/(p v)), Korthikanti et al. 2022
 * section 4.2.3. accum 0 (automatic) counts p micro-batches. */
/* Stage i's warm-up count, in chunks (v of them a micro-batch) */
static double stage_warmup(const tplan_config *c, int64_t i)
{
    double p = (double)c->pp, v = (double)c->vpp, d = (double)i;

    return c->vpp > 1 ? 2.0 * (p - d - 1.0) + (v - 1.0) * p + 1.0 : p - d;
}

/* Micro-batches per optimizer step on each stage (accum 0: pp, 2 pp
 * under DualPipe). */
static double micro_batches(const tplan_config *c)
{
    if (c->accum > 0)
        return (double)c->accum;
    return (double)c->pp *
           (c->pp_schedule == TPLAN_PP_DUALPIPE && c->pp > 1 ? 2.0 : 1.0);
}

static bool dualpipe(const tplan_config *c)
{
    return tplan_config_pp_schedule(c) == TPLAN_PP_DUALPIPE && c->pp > 1;
}

/* ZB-H1 holds what 1F1B holds: its deferred weight-gradient passes keep
 * no more micro-batches in flight (Qi et al. 2024 section 3.1, "the same
 * peak memory as 1F1B"). DualPipe: rank r runs p - r forward chunks of
 * its own stage and r + 1 of the mirrored one (p - 1 - r) before the
 * first backward of each, p + 1 chunks in all on every rank
 * (deepseek-ai/DualPipe dualpipe.py steps 1-4; DeepSeek-V3 Table 2:
 * activations PP + 1); DualPipe runs at least 2 p micro-batches, so
 * none is cut short. */
static double stage_inflight(const tplan_config *c, int64_t i)
{
    double v = c->vpp > 1 ? (double)c->vpp : 1.0;
    double m = micro_batches(c);

    if (dualpipe(c))
        return (double)(c->pp - i);
    return tp_fmin(stage_warmup(c, i), m * v) / v;
}

bool tplan_memory_same_accum(const tplan_config *c, int64_t a, int64_t b)
{
    /* stage 0 warms up the most: at or above its count, no stage holds
     * more (an accumulation of 0 counts pp, as stage_inflight takes it) */
    double v, full;
    double ma = a > 0 ? (double)a : (double)c->pp;
    double mb = b > 0 ? (double)b : (double)c->pp;

    /* the same count holds the same (each test below passes then), and
     * without a pipeline every count fills the one stage (full = v or
     * 1, counts at least 1); issue 38: the test runs at every staged
     * evaluation */
    if (ma == mb)
        return true;
    if (c->pp <= 1)
        return !(c->set_to_none && (ma == 1.0) != (mb == 1.0));
    v = c->vpp > 1 ? (double)c->vpp : 1.0;
    full = stage_warmup(c, 0);
    /* under set_to_none one micro-batch per step frees the gradients */
    if (c->set_to_none && (ma == 1.0) != (mb == 1.0))
        return false;
    /* DualPipe's in-flight chunks do not depend on the count */
    if (dualpipe(c))
        return ma == mb || (ma >= 2.0 * (double)c->pp &&
                            mb >= 2.0 * (double)c->pp);
    return ma == mb || (ma * v >= full && mb * v >= full);
}

/* The least accumulation k0 such that tplan_memory_same_accum(c, a, k)
 * holds for every k >= k0, or INT64_MAX where the rule gives none: its
 * tests for a given a, solved for the other count (issue 38: the test ran
 * at each batch-staged evaluation; a stage memo asks this once, with its
 * stages). k >= 1 here, so the other count is k itself. */
static int64_t same_from(const tplan_config *c, int64_t a)
{
    double ma = a > 0 ? (double)a : (double)c->pp, v, full;
    int64_t k;

    if (c->pp <= 1) /* set_to_none: one micro-batch a step or more both */
        return !c->set_to_none ? 1 : ma == 1.0 ? INT64_MAX : 2;
    if (c->set_to_none && ma == 1.0)
        return INT64_MAX;
    if (dualpipe(c))
        return ma >= 2.0 * (double)c->pp ? 2 * c->pp : INT64_MAX;
    v = c->vpp > 1 ? (double)c->vpp : 1.0;
    full = stage_warmup(c, 0);
    if (!(ma * v >= full) || !(full < 1e15))
        return INT64_MAX;
    /* the least k with k v >= full, as the rule compares it; at least 2
     * (set_to_none: one micro-batch a step is apart) */
    k = (int64_t)(full / v);
    while (k > 2 && (double)(k - 1) * v >= full)
        k--;
    while ((double)k * v < full)
        k++;
    return k < 2 ? 2 : k;
}

/* tplan_memory_same_accum for the memo's accumulation and c's, where
 * c->accum is below memo->same_from: the first time for these stages,
 * same_from is worked out (a full evaluation's solve, which asks none,
 * pays nothing for it) */
static __attribute__((noinline)) bool
same_accum_memo(const tplan_config *c, tplan_stage_memo *memo)
{
    if (!memo->same_known) {
        memo->same_from = same_from(c, memo->accum);
        memo->same_known = true;
        if (c->accum >= memo->same_from)
            return true;
    }
    return tplan_memory_same_accum(c, memo->accum, c->accum);
}

/* One layer's attention on a device: its parameters and matmul weights.
 * Megatron splits matmuls (and their biases) over t and replicates the
 * norms. With t > k the K and V projections are replicated: each rank
 * keeps one kv head's, not k/t of one. MLA's down projections (and their
 * norms) are replicated, its up and output projections split by head. */
static void attn_on_device(const tplan_config *c, double *params,
                           double *matmul)
{
    const tplan_model *m = &c->model;
    double t = (double)c->tp, h = (double)m->hidden, a = (double)m->heads;
    double k = (double)m->kv_heads, qd, kvd, kv_rep, attn_w;

    if (tplan_model_mla(m)) {
        double ql = (double)m->q_lora_rank, kl = (double)m->kv_lora_rank;
        double dqk = (double)tplan_model_qk_head_dim(m);
        double dv = (double)m->v_head_dim;
        double down = (ql > 0 ? h * ql : 0.0) +
                      h * (kl + (double)m->qk_rope_dim);
        double up = (ql > 0 ? ql : h) * a * dqk +
                    kl * a * ((double)m->qk_nope_dim + dv) + a * dv * h;

        *matmul = down + up / t;
        *params = *matmul + ql + kl;
        return;
    }
    qd = (double)tplan_model_q_dim(m);
    kvd = (double)tplan_model_kv_dim(m);
    attn_w = h * (qd + 2.0 * kvd) + qd * h;
    kv_rep = t > k ? 2.0 * h * (kvd / k) - 2.0 * h * kvd / t : 0.0;
    *params = (double)tplan_model_attn_params(m) / t + kv_rep;
    *matmul = attn_w / t + kv_rep;
}

/* Parameters a device on stage st holds (before ZeRO), of which routed
 * experts (sharded over ep x etp: Megatron's expert tensor parallelism,
 * tp unless given), its matmul weights (for working copies) and the
 * largest gathered unit (for ZeRO-3). The vocabulary is split over t
 * (vocab-parallel embedding). pc: the model's counts
 * (tplan_model_params). */
static void stage_params(const tplan_config *c, const tplan_param_count *pc,
                         const stage_pos *st, double *params, double *experts,
                         double *matmul, double *largest)
{
    const tplan_model *m = &c->model;
    double t = (double)c->tp, h = (double)m->hidden, e = (double)c->ep;
    double te = (double)tplan_config_etp(c);
    double attn_p, attn_mm, dense_dev, moe_dev, exp_dev, exp_mm, vh, nd, nm;
    double mlp_w = (m->mlp == TPLAN_MLP_SWIGLU ? 3.0 : 2.0) * h;
    int64_t moe;
    bool first = st->first, last = st->last;

    *experts = 0.0;
    if (m->arch == TPLAN_ARCH_GENERIC) {
        *params = *matmul = (double)m->generic_params;
        *largest = (double)m->generic_largest_layer_params;
        return;
    }
    moe = tplan_model_moe_layers(m, st->lo, st->hi);
    nm = (double)moe;
    nd = (double)(st->hi - st->lo - moe);
    attn_on_device(c, &attn_p, &attn_mm);
    dense_dev = attn_p + (double)pc->layer_mlp / t + (double)pc->layer_norm;
    /* router replicated on every rank; shared experts split like an MLP;
     * routed experts over ep x etp (etp = tp unless given) */
    exp_dev = (double)m->experts * (double)pc->layer_expert / (e * te);
    exp_mm = mlp_w * (double)m->experts * (double)tplan_model_expert_ffn(m) /
             (e * te);
    moe_dev = attn_p + (double)pc->layer_norm + (double)pc->layer_router +
              (double)pc->layer_shared / t + exp_dev;
    vh = (double)m->vocab * h / t;
    *params = nd * dense_dev + nm * moe_dev;
    *experts = nm * exp_dev;
    *matmul = nd * (attn_mm + mlp_w * (double)m->ffn / t);
    if (moe)
        *matmul +=
            nm *
            (attn_mm + h * (double)m->experts +
             mlp_w * (double)(m->shared_experts * tplan_model_shared_ffn(m)) /
                 t +
             exp_mm);
    if (first)
        *params += vh + (double)m->extra_params + (double)pc->pos;
    if (last) {
        *params += (double)pc->final_norm + (double)pc->head_extra;
        /* A tied head still needs its own copy of the embedding on the
         * last stage when the embedding lives on another (Megatron). */
        if (!m->tied || c->pp > 1)
            *params += vh;
        *matmul += vh;
        /* the MTP modules (DeepSeek-V3 section 2.2) follow the last layer
         * on the last stage, sharing its embedding and head (section
         * 3.2.3: under DualPipe the rank that holds the first stage, so
         * the embedding is there too; on another schedule an assumption:
         * the last stage keeps a copy of the embedding, not counted). A
         * block of the last layer's kind split as the main blocks are,
         * the 2h x h projection column-parallel over t, 3 norms of h. */
        if (m->mtp_layers > 0) {
            double d = (double)m->mtp_layers;
            bool mtp_moe = tplan_model_mtp_moe(m);

            *params += d * ((mtp_moe ? moe_dev : dense_dev) +
                            2.0 * h * h / t + 3.0 * h);
            if (mtp_moe) {
                *experts += d * exp_dev;
                *matmul += d * (attn_mm + h * (double)m->experts +
                                mlp_w *
                                    (double)(m->shared_experts *
                                             tplan_model_shared_ffn(m)) /
                                    t +
                                exp_mm);
            } else {
                *matmul += d * (attn_mm + mlp_w * (double)m->ffn / t);
            }
            *matmul += d * 2.0 * h * h / t;
        }
    }
    *largest =
        tp_fmax(tp_fmax(nd > 0 ? dense_dev : 0.0, nm > 0 ? moe_dev : 0.0), vh);
}

/* Row plus column statistics of one layer's attention matrices on a
 * device (*mats) and their elements (*elems): q, k, v column-parallel, o
 * row-parallel; MLA's down projections whole, its up projections
 * column-parallel. */
static void attn_stats(const tplan_config *c, double *mats, double *elems)
{
    const tplan_model *m = &c->model;
    double t = (double)c->tp, h = (double)m->hidden, a = (double)m->heads;
    double k = (double)m->kv_heads, kvd = (double)tplan_model_kv_dim(m);
    double qd = (double)tplan_model_q_dim(m), kv_out;

    if (tplan_model_mla(m)) {
        double ql = (double)m->q_lora_rank, kl = (double)m->kv_lora_rank;
        double kr = kl + (double)m->qk_rope_dim;
        double q_out = a * (double)tplan_model_qk_head_dim(m) / t;
        double kv_up = a * ((double)m->qk_nope_dim + (double)m->v_head_dim) / t;
        double o_in = a * (double)m->v_head_dim / t;

        *mats = (ql > 0 ? (h + ql) + (ql + q_out) : h + q_out) + (h + kr) +
                (kl + kv_up) + (o_in + h);
        *elems = (ql > 0 ? h * ql + ql * q_out : h * q_out) + h * kr +
                 kl * kv_up + o_in * h;
        return;
    }
    kv_out = t > k ? kvd / k : kvd / t; /* replicated past k */
    *mats = (qd / t + h) + 2.0 * (kv_out + h) + (h + qd / t);
    *elems = h * qd / t + 2.0 * kv_out * h + qd * h / t;
}

/* The same for an MLP of width f split over `split` ranks: up (and gate)
 * column-parallel, down row-parallel. */
static void mlp_stats(const tplan_model *m, double f, double *mats,
                      double *elems)
{
    double h = (double)m->hidden;
    double n_in = m->mlp == TPLAN_MLP_SWIGLU ? 2.0 : 1.0;

    *mats = n_in * (f + h) + (h + f);
    *elems = (n_in + 1.0) * h * f;
}

/* Adafactor's factored statistics on one device of stage st (Shazeer &
 * Stern 2018, Algorithm 4): rows + columns of each weight matrix as the
 * device holds it (Megatron splits the output dimension of QKV and the
 * first MLP matrices over t, the input dimension of the attention output
 * and the last MLP matrix, and the vocabulary of the embedding and head),
 * and a full statistic per element of every vector (norms, biases).
 * Learned position tables are matrices too; so are the router and every
 * expert on the device. docs/MODEL.md section 2.2. */
static double factored_stats(const tplan_config *c, const stage_pos *st,
                             double params)
{
    const tplan_model *m = &c->model;
    double t = (double)c->tp, h = (double)m->hidden;
    double vh = (double)m->vocab / t, am, ae, fm, fe, nd, nm;
    double mats, mat_params;
    int64_t moe;
    bool first = st->first, head = st->last && (!m->tied || c->pp > 1);

    moe = tplan_model_moe_layers(m, st->lo, st->hi);
    nm = (double)moe;
    nd = (double)(st->hi - st->lo - moe);
    attn_stats(c, &am, &ae);
    mlp_stats(m, (double)m->ffn / t, &fm, &fe);
    mats = nd * (am + fm);
    mat_params = nd * (ae + fe);
    if (moe) {
        double per = (double)m->experts / (double)c->ep;
        double sm, se, xm, xe;

        mlp_stats(m,
                  (double)(m->shared_experts * tplan_model_shared_ffn(m)) / t,
                  &sm, &se);
        mlp_stats(
            m, (double)tplan_model_expert_ffn(m) / (double)tplan_config_etp(c),
            &xm, &xe);
        if (!m->shared_experts)
            sm = se = 0.0;
        mats += nm * (am + (h + (double)m->experts) + sm + per * xm);
        mat_params += nm * (ae + h * (double)m->experts + se + per * xe);
    }
    if (first) {
        mats += vh + h;
        mat_params += vh * h;
        if (m->pos == TPLAN_POS_LEARNED) {
            mats += (double)m->max_seq + h;
            mat_params += (double)m->max_seq * h;
        }
    }
    if (head) {
        mats += vh + h;
        mat_params += vh * h;
    }
    /* every other parameter of the stage is a vector or an extra (BERT's
     * token types and heads, counted in full: conservative) */
    return mats + tp_fmax(params - mat_params, 0.0);
}

/* Optimizer bytes of `trainable` parameters, factored (Adafactor) from
 * `stats` row and column statistics when the optimizer factors. */
static double optim_bytes(const tplan_config *c, double trainable,
                          double stats)
{
    const tplan_precision_info *pi = tplan_precision_get(c->precision);

    if (tplan_optimizer_get(c->optimizer)->factored &&
        c->model.arch != TPLAN_ARCH_GENERIC)
        return trainable * pi->master_bytes + stats * 4.0 * pi->state_scale;
    return trainable *
           tplan_optimizer_bytes_per_param(c->precision, c->optimizer);
}

/* One layer's linears on a device for lora_states, split into the
 * routed experts' (ex) and the rest (rs): elements, stored bytes,
 * adapters and their factored statistics. */
typedef struct lora_part {
    double elems, base, train, stats;
} lora_part;

static void lora_layer(const tplan_config *c, bool moe, lora_part *rs,
                       lora_part *ex, double *largest)
{
    tplan_linear lin[TPLAN_LORA_NLINEAR];
    int n = tplan_layer_linears(&c->model, moe, c->tp, tplan_config_etp(c),
                                c->ep, lin);
    double r = (double)c->lora_rank;

    memset(rs, 0, sizeof *rs);
    memset(ex, 0, sizeof *ex);
    for (int i = 0; i < n; i++) {
        lora_part *p = lin[i].expert ? ex : rs;
        double e = lin[i].in * lin[i].out, k = lin[i].count;

        p->elems += k * e;
        p->base += k * tplan_base_matrix_bytes(c->base_precision,
                                               c->double_quant, e, lin[i].out);
        *largest = tp_fmax(*largest, e);
        if (!(lin[i].target & c->lora_targets))
            continue;
        p->train += tplan_lora_linear_params(&lin[i], c->lora_rank, c->dora);
        /* A and B are matrices; DoRA's magnitude a vector */
        p->stats += k * ((r + lin[i].in) + (lin[i].out + r) +
                         (c->dora ? lin[i].out : 0.0));
    }
}

/* LoRA (Hu et al. 2021) on a frozen base, one device of a stage with
 * `layers` blocks (moe_layers of them mixtures of experts) and `params`
 * parameters: adapters train under the recipe, the base is stored as
 * base_precision says and has no gradients, master copy or states.
 * Autocast caches 16-bit copies of leaf weights that require grad only
 * (torch autocast_mode.cpp, cached_cast), so the frozen base keeps no
 * working copies. Routed experts and their adapters are sharded over ep
 * (tplan_layer_linears), and ZeRO shards them over the
 * expert-data-parallel group (ew, eg, eo) as in full training.
 * docs/MODEL.md section 12.1. */
static void lora_states(const tplan_config *c, stage_mem *s, double wdiv,
                        double gdiv, double odiv, double ew, double eg,
                        double eo)
{
    const tplan_precision_info *pi = tplan_precision_get(c->precision);
    double nm = (double)s->moe_layers, nd = (double)s->layers - nm;
    double largest = 0.0, other_w, frozen_rs, frozen_ex, gb;
    lora_part drs, dex, mrs = {0}, mex = {0}, rs, ex;

    lora_layer(c, false, &drs, &dex, &largest);
    if (nm > 0)
        lora_layer(c, true, &mrs, &mex, &largest);
#define SUM(f) rs.f = nd * drs.f + nm * mrs.f, ex.f = nm * mex.f
    SUM(elems);
    SUM(base);
    SUM(train);
    SUM(stats);
#undef SUM
    s->trainable = rs.train + ex.train;
    /* bitsandbytes quantizes the layers' linears only (every expert's
     * too: transformers replaces each nn.Linear): embeddings, the LM head
     * (llm_int8_skip_modules) and norms stay at the load width */
    other_w = c->base_precision == TPLAN_BASE_BF16 ||
                      c->base_precision == TPLAN_BASE_FP16
                  ? 2.0
                  : pi->weight_bytes;
    if (tplan_base_quantized(c->base_precision)) {
        frozen_rs = rs.base + (s->params - s->experts - rs.elems) * other_w;
        frozen_ex = ex.base + (s->experts - ex.elems) * other_w;
        s->quant = rs.elems + ex.elems;
        /* the kernel dequantizes one matrix at a time to 16 bits */
        s->dequant = 2.0 * largest;
    } else {
        frozen_rs = (s->params - s->experts) * other_w;
        frozen_ex = s->experts * other_w;
    }
    gb = c->fp32_grads ? 4.0 : pi->grad_bytes;
    s->weights = (frozen_rs + rs.train * pi->weight_bytes) / wdiv +
                 (frozen_ex + ex.train * pi->weight_bytes) / ew;
    s->weights_full = frozen_rs + frozen_ex +
                      (rs.train + ex.train) * pi->weight_bytes;
    s->work = rs.train * pi->work_copy_bytes / wdiv +
              ex.train * pi->work_copy_bytes / ew;
    s->grads = rs.train * gb / gdiv + ex.train * gb / eg;
    s->optim = optim_bytes(c, rs.train, rs.stats) / odiv +
               optim_bytes(c, ex.train, ex.stats) / eo;
    s->opt_params = rs.train / odiv + ex.train / eo;
}

/* ZeRO-Offload and ZeRO-Infinity (Ren et al. 2021; Rajbhandari et al.
 * 2021), as DeepSpeed's estimators count them
 * (estimate_zero2/zero3_model_states_mem_needs): offloading the optimizer
 * moves the master copy and states off the GPU together with an fp32
 * gradient partition, and streams the 16-bit gradients out bucket by
 * bucket (none stay on the GPU); offloading parameters (ZeRO-3) keeps
 * the 16-bit weights there too, the GPU holding only the layers being
 * gathered. On NVMe the states (or weights) go to the drive; the fp32
 * gradients stay in host memory. docs/MODEL.md section 12.4. */
static void offload(const tplan_config *c, stage_mem *s)
{
    /* the fp32 gradient partition of the states the device holds
     * (routed experts' over the expert-data-parallel group) */
    double fp32_grads = s->opt_params * 4.0;

    if (c->offload_optimizer != TPLAN_OFFLOAD_NONE) {
        s->off_states = s->optim;
        s->host += fp32_grads;
        if (c->offload_optimizer == TPLAN_OFFLOAD_NVME)
            s->nvme += s->optim;
        else
            s->host += s->optim;
        s->optim = 0.0;
        s->grads = 0.0;
    }
    if (c->offload_params != TPLAN_OFFLOAD_NONE) {
        s->off_w = s->weights;
        if (c->offload_params == TPLAN_OFFLOAD_NVME)
            s->nvme += s->weights;
        else
            s->host += s->weights;
        s->weights = 0.0;
    }
}

/* NCCL_MAX_NVLS_ARITY: NVLS heads per communicator (NVIDIA/nccl
 * src/graph/search.cc: maxChannels = min(NCCL_MAX_NVLS_ARITY, nGPUs);
 * docs/MODEL.md section 4.6) */
#define NVLS_MAX_HEADS 32

/* NVLink SHARP buffers (framework.c: nccl_nvls_mib per channel and per
 * head, a head per GPU of the communicator in the node up to 32), where
 * the GPU's system has NVLS (hardware.c), for the communicators that
 * reduce and gather through it: tensor, data x context and expert
 * data-parallel. The pipeline, the context ring and the expert all-to-all
 * send point to point. The expert data group is counted in Megatron's
 * expert grid (etp-ep-edp: its ranks etp x ep apart; with etp = tp the
 * same count as in the tp-cp-ep-dp order). NCCL up to 2.28.3 leaves NVLS off
 * for two GPUs or fewer in the node (src/transport/nvls.cc: gpuCount <=
 * 2; PyTorch 2.7-2.9 ship 2.26-2.27). The buffers are allocated at a
 * communicator's first NVLS collective (NCCL_RUNTIME_CONNECT, on by
 * default): counted for every such group. */
static double nvls_bytes(const tplan_config *c, int64_t dp, int64_t edp,
                         bool moe)
{
    int64_t heads[3];
    double sum = 0.0;

    if (!(c->nccl_nvls_bytes > 0) || c->gpu.nvls_channels <= 0)
        return 0.0;
    heads[0] = c->tp > 1 ? tplan_config_group_in_node(c, c->tp, 1) : 0;
    heads[1] = dp > 1 ? tplan_config_group_in_node(c, dp, c->tp) : 0;
    heads[2] =
        moe && c->ep > 1 && edp > 1
            ? tplan_config_group_in_node(c, edp, tplan_config_etp(c) * c->ep)
            : 0;
    for (int i = 0; i < 3; i++)
        if (heads[i] > 2)
            sum += c->nccl_nvls_bytes * (double)c->gpu.nvls_channels *
                   (double)(heads[i] < NVLS_MAX_HEADS ? heads[i]
                                                      : NVLS_MAX_HEADS);
    return sum;
}

/* What the training stack allocates besides the model's tensors
 * (docs/MODEL.md section 4.6), each a framework term (0 or off unless a
 * framework or flag sets it, but optim_temp).
 *
 * NCCL keeps buffers per channel and peer for each communicator it
 * initialises (NVIDIA/nccl src/transport/p2p.cc: the SIMPLE, LL and LL128
 * buffers of 4 MiB, 512 KiB and 4.69 MiB per connection); a GPU joins one
 * per parallel group of more than one GPU: data (dp x cp, Megatron's
 * gradient group), tensor, pipeline, context, expert, and the expert
 * data-parallel group of an MoE model. The expert group's all-to-all
 * also connects each of its peers in the node directly (nccl_a2a_mib
 * each).
 *
 * DDP copies gradients into its all-reduce buckets unless
 * gradient_as_bucket_view is set, "where the saved memory size will be
 * equal to the total gradients size" (torch DistributedDataParallel docs;
 * accelerate's DistributedDataParallelKwargs and transformers' Trainer
 * leave it False). DeepSpeed's ZeRO-1/2 allocates its reduce bucket,
 * reduce_bucket_size elements of the gradient dtype (deepspeed/runtime/
 * zero/stage_1_and_2.py: torch.empty(int(self.reduce_bucket_size))).
 *
 * torch.optim's foreach Adam and AdamW allocate one list of the second
 * moment's size in the step (_foreach_sqrt(exp_avg_sqs)); fused kernels
 * (fused=True, Apex and DeepSpeed FusedAdam, bitsandbytes) and offloaded
 * optimizers none. The step comes after backward has freed the
 * activations, so the peak is the larger of the two. */
static void stack_overheads(const tplan_config *c, stage_mem *s, int64_t dp,
                            int64_t edp)
{
    const tplan_precision_info *pi = tplan_precision_get(c->precision);
    const tplan_optimizer_info *oi = tplan_optimizer_get(c->optimizer);
    double gb = c->fp32_grads ? 4.0 : pi->grad_bytes;
    bool moe = c->model.arch != TPLAN_ARCH_GENERIC &&
               tplan_model_moe(&c->model);

    s->comms = (dp > 1) + (c->tp > 1) + (c->pp > 1) + (c->cp > 1) +
               (c->ep > 1) + (moe && c->ep > 1 && edp > 1);
    /* HSDP: the shard group and the replicate group each have their own
     * (FSDP2's 2-D DeviceMesh), beside the whole data-parallel one */
    if (c->zero >= 1 && tplan_config_zero_replicas(c) > 1 &&
        tplan_config_zero_group(c) > 1)
        s->comms += 2;
    s->nccl = c->nccl_bytes * (double)s->comms;
    /* an MoE all-to-all adds P2P buffers per expert-group peer in the
     * node (NVIDIA/nccl#1685, measured over NVLink; framework.c): the
     * group's ranks lie tp x cp apart (Megatron's order), as perf.c's
     * all-to-all counts them. Peers across nodes connect through the
     * network with fewer channels: not counted (docs/MODEL.md 4.6). */
    if (moe && c->ep > 1) {
        int64_t in_node = tplan_config_group_in_node(c, c->ep, c->tp * c->cp);

        s->nccl += c->nccl_a2a_bytes * (double)(in_node - 1);
    }
    s->nvls = nvls_bytes(c, dp, edp, moe);
    s->nccl += s->nvls;
    if (dp > 1 && c->zero == 0 && c->grad_bucket_copy)
        s->bucket = s->grads;
    else if (dp > 1 && (c->zero == 1 || c->zero == 2))
        s->bucket = c->reduce_bucket * gb;
    if ((c->optimizer == TPLAN_OPT_ADAM || c->optimizer == TPLAN_OPT_ADAMW) &&
        !oi->paged && c->offload_optimizer == TPLAN_OFFLOAD_NONE)
        s->step_temp = c->optim_temp * s->opt_params * 4.0 * pi->state_scale;
}

/* What set_to_none phases (docs/MODEL.md section 4.6), once the states
 * are known; matmul is the stage's matmul weights (work copies). */
static void phase_terms(const tplan_config *c, const stage_pos *st,
                        double matmul, stage_mem *s)
{
    const tplan_precision_info *pi = tplan_precision_get(c->precision);
    /* the head's rows on a device: the vocabulary split over t */
    double vh = (double)c->model.vocab * (double)c->model.hidden / (double)c->tp;
    bool transformer = c->model.arch != TPLAN_ARCH_GENERIC;

    /* zero_grad(set_to_none=True), torch's default from 2.0, frees the
     * gradients after each step: with one micro-batch per step the
     * forward runs without them (measured on an H200: the peak of HF
     * Llama-3.2-1B under amp-bf16 is the weights, optimizer states,
     * autocast copies and activations, 16.15 GiB at b = 0 against
     * 16.1, tests/data/gpu/h200_torch.csv). Accumulation keeps them
     * from the first micro-batch's backward on. */
    s->grads_at_step = c->set_to_none && micro_batches(c) == 1.0;
    s->work_fwd = s->work;
    if (!s->grads_at_step || !transformer)
        return;
    /* A tied embedding gets its gradient twice, from the head first; the
     * embedding's own arrives as a new tensor that autograd adds in
     * (AccumulateGrad: grad += new), at the backward's end. The same
     * run's peak with no activations to speak of (full recomputation,
     * b = 1) is the gradients, weights and states plus 0.98 GiB, one
     * fp32 128256 x 2048 matrix. */
    if (c->model.tied && c->pp == 1 && c->lora_rank == 0 && s->grads > 0.0)
        s->tie_temp = vh * (c->fp32_grads ? 4.0 : pi->grad_bytes);
    /* Under full recomputation the layers' autocast copies are not saved:
     * autocast drops its cache when the forward leaves it, so at the
     * loss's backward only the head's copy is live (its matmul saves it),
     * and later one layer's, rebuilt with it (measured on an H200: HF
     * Llama-3.2-1B under amp-bf16 and full recomputation allocates the
     * layers' copies less, 1.8 GiB, than with them at 4 x 4096 tokens,
     * tests/data/gpu/h200_torch.csv). */
    if (c->recompute == TPLAN_RECOMPUTE_FULL && s->layers > 0 &&
        matmul > 0.0) {
        double hw = st->last && c->lora_rank == 0
                        ? s->work * tp_fmin(vh / matmul, 1.0)
                        : 0.0;

        s->work_fwd = hw + (s->work - hw) / (double)s->layers;
    }
}

/* Per-sample activation bytes of a transformer (zeros for generic models,
 * whose activations come from the model itself). */
static void act_bytes_gen(const tplan_config *c, tplan_act_cache *cache,
                          uint64_t model_gen, tplan_act_bytes *act);

static void act_bytes(const tplan_config *c, tplan_act_cache *cache,
                      tplan_act_bytes *act)
{
    act_bytes_gen(c, cache, 0, act);
}

/* act_bytes of a model whose cache gen is model_gen (0: unknown;
 * tplan_act_per_sample_gen) */
static void act_bytes_gen(const tplan_config *c, tplan_act_cache *cache,
                          uint64_t model_gen, tplan_act_bytes *act)
{
    tplan_act_ctx ctx;

    memset(act, 0, sizeof *act);
    if (c->model.arch == TPLAN_ARCH_GENERIC)
        return;
    tplan_act_ctx_from_config(c, &ctx);
    /* context parallelism splits every activation along the sequence
     * (flash attention only: no s x s tensor; Korthikanti-style rows are
     * linear in s) */
    tplan_act_per_sample_gen(&c->model, &ctx, c->seq / c->cp, model_gen,
                             cache, act);
    /* adapters' tensors: kept per layer, or rebuilt with the layer under
     * full recomputation */
    if (c->lora_rank > 0) {
        double lora = tplan_act_lora_layer(c, false);
        double lora_moe = tplan_model_moe(&c->model)
                              ? tplan_act_lora_layer(c, true)
                              : 0.0;

        act->layer_full += lora;
        act->moe_layer_full += lora_moe;
        if (c->recompute != TPLAN_RECOMPUTE_FULL) {
            act->layer += lora;
            act->moe_layer += lora_moe;
        }
    }
}

/* The model states of stage st on one device (before the stack's
 * overheads): its matmul weights and largest gathered unit go to
 * *matmul and *largest; pc: the model's counts. */
static void stage_states(const tplan_config *c, const tplan_param_count *pc,
                         const stage_pos *st, stage_mem *s,
                         double *matmul_out, double *largest_out)
{
    const tplan_precision_info *pi = tplan_precision_get(c->precision);
    /* HSDP (FSDP2's 2-D mesh, replicate x shard): ZeRO shards over the
     * shard group and replicates across the others; plain ZeRO is one
     * group of dp x cp. Routed experts' group, gpus / (pp x etp x ep),
     * shrinks by the replicas (validation: they divide it). */
    double group = (double)tplan_config_zero_group(c);
    double edp =
        (double)tplan_config_edp(c) / (double)tplan_config_zero_replicas(c);
    double matmul, largest, wdiv, gdiv, odiv;

    memset(s, 0, sizeof *s);
    stage_params(c, pc, st, &s->params, &s->experts, &matmul, &largest);
    /* ZeRO shards over the data-parallel group (Rajbhandari et al. 2020):
     * stage 1 optimizer states, 2 also gradients, 3 also weights. Context
     * parallel ranks hold the same weights: Megatron shards over dp x cp.
     * Routed experts shard over the expert-data-parallel group, gpus /
     * (pp x etp x ep), dp x cp / ep when etp = tp (Megatron-LM's
     * expert_data_parallel group). */
    wdiv = c->zero >= 3 ? group : 1.0;
    gdiv = c->zero >= 2 ? group : 1.0;
    odiv = c->zero >= 1 ? group : 1.0;
    if (c->model.arch == TPLAN_ARCH_GENERIC) {
        s->layers = 1;
    } else {
        s->layers = st->hi - st->lo;
        s->moe_layers = tplan_model_moe_layers(&c->model, st->lo, st->hi);
    }
    if (c->lora_rank > 0) {
        lora_states(c, s, wdiv, gdiv, odiv,
                    c->zero >= 3 ? edp : 1.0, c->zero >= 2 ? edp : 1.0,
                    c->zero >= 1 ? edp : 1.0);
    } else {
        /* Routed experts shard over edp instead of dp; their weights are
         * all matmul weights. Working copies of sharded weights exist only
         * for the gathered layer (FSDP/ZeRO-3 gather 16-bit parameters and
         * free them after use). Factored states are counted from the
         * shapes; a generic model's shapes are unknown and keep the
         * per-parameter bound. */
        double ex = s->experts, rest = s->params - ex;
        double ew = c->zero >= 3 ? edp : 1.0;
        double eg = c->zero >= 2 ? edp : 1.0;
        double eo = c->zero >= 1 ? edp : 1.0;
        double gb = c->fp32_grads ? 4.0 : pi->grad_bytes;

        s->trainable = s->params;
        s->opt_params = rest / odiv + ex / eo;
        s->weights = rest * pi->weight_bytes / wdiv +
                     ex * pi->weight_bytes / ew;
        s->weights_full = s->params * pi->weight_bytes;
        s->work = (matmul - ex) * pi->work_copy_bytes / wdiv +
                  ex * pi->work_copy_bytes / ew;
        s->grads = rest * gb / gdiv + ex * gb / eg;
        s->optim = optim_bytes(c, rest,
                               c->model.arch == TPLAN_ARCH_GENERIC
                                   ? 0.0
                                   : factored_stats(c, st, s->params)) /
                       odiv +
                   optim_bytes(c, ex, 0.0) / eo;
    }
    offload(c, s);
    if (tplan_optimizer_get(c->optimizer)->paged)
        s->paged = s->optim;
    *matmul_out = matmul;
    *largest_out = largest;
}

/* Activations of `inflight` micro-batches of stage st's layers (the
 * embedding's with the first stage's). */
static double stage_layer_acts(const tplan_config *c,
                               const tplan_act_bytes *act,
                               const stage_pos *st, double inflight)
{
    int64_t moe = tplan_model_moe_layers(&c->model, st->lo, st->hi);
    double acts = (act->layer * (double)(st->hi - st->lo - moe) +
                   act->moe_layer * (double)moe) *
                  inflight;

    /* the last stage's MTP modules: each keeps a block's activations of
     * the last layer's kind (its 2h-wide projection input, 4h bytes a
     * token in 16 bits against a block's tens of h, is left out: an
     * assumption); their head's logits are the head's, transient */
    if (st->last && c->model.mtp_layers > 0)
        acts += (double)c->model.mtp_layers *
                (tplan_model_mtp_moe(&c->model) ? act->moe_layer
                                                : act->layer) *
                inflight;

    return st->first ? acts + act->first * inflight : acts;
}

/* Activation offloading (docs/MODEL.md section 12.10): a share f of the
 * layers' saved activations goes to pinned host memory as the forward
 * saves them and comes back before the backward needs them (torchtune's
 * OffloadActivations, a saved_tensors_hooks over the model's forward;
 * Megatron-Core's fine-grained activation offloading, module inputs).
 * One layer of one micro-batch stays: the last, whose backward comes
 * first (Megatron-Core's fine_grained_activation_offload.py keeps "the
 * last group with the same name" on the GPU; torchtune's forward stash
 * keeps the latest tensors until their copies end), and one layer's
 * share is staged on the GPU at a time while it is copied (the reload
 * of the next layer under the backward of this one). The head's tensors
 * (torchtune's NoOpManager on the output layer), a rebuilt layer under
 * full recomputation and ring attention's K/V buffers stay. The share is
 * of bytes; Megatron's --activation-offload-fraction counts groups
 * (layers' modules) in forward order, the same for equal layers. */
static void act_offload(const tplan_config *c, const tplan_act_bytes *act,
                        const stage_pos *st, const stage_pos *mirror,
                        double mirror_inflight, stage_mem *s)
{
    double f = c->offload_activations, all, one, off, keep;

    if (!(f > 0.0))
        return;
    all = stage_layer_acts(c, act, st, s->inflight - mirror_inflight);
    one = stage_layer_acts(c, act, st, 1.0);
    if (mirror_inflight > 0) {
        all += stage_layer_acts(c, act, mirror, mirror_inflight);
        one += stage_layer_acts(c, act, mirror, 1.0);
    }
    keep = s->act_layer;
    off = f * tp_fmax(all - keep, 0.0);
    s->per_sample -= off - tp_fmin(off, f * keep);
    s->act_host = off;
    s->act_off_mb = f * tp_fmax(one - keep, 0.0);
}

/* The part of stage st's memory that neither the activations, the
 * recomputation, the micro-batch nor the accumulation moves (issue 38:
 * a sweep's change of recompute keeps it, stage_base_cached): the model
 * states (with DualPipe's second stage), the stack's overheads, the
 * context and ZeRO-3's gathered units; pc: the model's counts
 * (tplan_model_params). Reads no recompute, recompute_modules,
 * micro_batch or accum (states_key, keep the two in step). */
static void stage_base(const tplan_config *c, const tplan_param_count *pc,
                       const stage_pos *st, tplan_stage_base *b)
{
    const tplan_precision_info *pi = tplan_precision_get(c->precision);
    int64_t dp = tplan_config_dp(c) * c->cp, edp = tplan_config_edp(c);
    stage_mem *s = &b->s;
    double matmul, largest;
    bool holds_last = st->last;
    stage_pos mirror = *st;
    double mirror_inflight = 0.0;

    stage_states(c, pc, st, s, &matmul, &largest);
    /* DualPipe: rank r holds stage r and, for the reverse direction, a
     * second copy of stage p - 1 - r (deepseek-ai/DualPipe
     * examples/example_dualpipe.py; DeepSeek-V3 Table 2: parameters 2x).
     * Each copy keeps its own gradients (summed with the mirrored rank's
     * after the backward). The two copies of a stage are data-parallel
     * replicas of it (each runs half the micro-batches), so ZeRO shards
     * what it shards over both: an assumption (the report says only that
     * the parameters are doubled, and that this costs little under a
     * large EP size), docs/MODEL.md section 13.5. The sum of the two
     * stages' sharded parts is halved: optimizer states from ZeRO-1,
     * gradients from ZeRO-2, weights at ZeRO-3. */
    if (dualpipe(c) && c->model.arch != TPLAN_ARCH_GENERIC) {
        stage_mem m2;
        double mm2, lg2;

        mirror = stage_at(c, c->pp - 1 - st->i);
        mirror_inflight = (double)(st->i + 1);
        holds_last = holds_last || mirror.last;
        stage_states(c, pc, &mirror, &m2, &mm2, &lg2);
        s->params += m2.params;
        s->experts += m2.experts;
        s->trainable += m2.trainable;
        s->opt_params += m2.opt_params;
        s->weights += m2.weights;
        s->weights_full += m2.weights_full;
        s->work += m2.work;
        s->grads += m2.grads;
        s->optim += m2.optim;
        s->paged += m2.paged;
        s->host += m2.host;
        s->nvme += m2.nvme;
        s->off_states += m2.off_states;
        s->off_w += m2.off_w;
        s->quant += m2.quant;
        s->dequant = tp_fmax(s->dequant, m2.dequant);
        if (c->zero >= 1) {
            s->optim *= 0.5;
            s->paged *= 0.5;
            s->off_states *= 0.5;
            s->opt_params *= 0.5;
        }
        if (c->zero >= 2)
            s->grads *= 0.5;
        if (c->zero >= 3)
            s->weights *= 0.5;
        matmul += mm2;
        largest = tp_fmax(largest, lg2);
    }
    stack_overheads(c, s, dp, edp);
    /* PyTorch keys its BLAS workspaces by (handle, stream) and reserves
     * handles per thread (CublasHandlePool.cpp: a thread_local
     * PoolWindow; key = (handle, stream)), and autograd runs a CUDA
     * backward on a device thread of its own (torch/csrc/autograd/
     * engine.cpp, start_device_threads): the forward's and the
     * backward's, two on the step's stream (read from the source, not
     * measured). They come from the caching allocator and stay; counted
     * with the context they sit beside (no allocator share: alloc_frac
     * of them is a MiB or two) */
    s->blas_ws = c->blas_ws
                     ? BLAS_WORKSPACES * c->gpu.blas_ws_mib * 1024.0 * 1024.0
                     : 0.0;
    s->context = c->context_bytes + s->blas_ws;
    s->alloc_k = 1.0 + c->alloc_frac;
    /* DeepSpeed's ZeRO-3 estimator (estimate_zero3_model_states_mem_needs)
     * keeps 4 bytes per parameter of the largest layer live: its 16-bit
     * gathered weights and gradients, gather_sets = 2 such sets. FSDP's
     * default BACKWARD_PRE prefetch "at the peak ... holds the current set
     * of parameters, next set of parameters, and current set of
     * gradients" (torch FSDP docs, BackwardPrefetch): 3. Scaled for wider
     * weights. Offloaded parameters are gathered from the host even
     * without data parallelism. */
    if (c->zero >= 3 && (tplan_config_zero_group(c) > 1 ||
                         c->offload_params != TPLAN_OFFLOAD_NONE))
        s->gather = c->gather_sets * tp_fmax(pi->weight_bytes, 2.0) * largest;
    /* FSDP2's reshard_after_forward=False "keeps the unsharded parameters
     * in memory after forward and avoids the all-gather in backward"
     * (torch.distributed.fsdp.fully_shard's docstring): each layer's gathered
     * weights stay until its backward, so at the forward's end the stage
     * holds all of them unsharded, beside its shard. The gathered-layer
     * sets above stay as counted (the backward's unsharded gradients and
     * the next layer's prefetch): an assumption, at most one layer's
     * weights high (docs/MODEL.md section 12.10). */
    if (c->zero >= 3 && !c->reshard_after_forward &&
        tplan_config_zero_group(c) > 1)
        s->held = s->weights_full;
    b->matmul = matmul;
    b->mirror = mirror;
    b->mirror_inflight = mirror_inflight;
    b->holds_last = holds_last;
}

/* Stage st's memory from its base (stage_base): the set_to_none phases
 * and the activations. */
static void stage_finish(const tplan_config *c, const tplan_act_bytes *act,
                         const stage_pos *st, const tplan_stage_base *b,
                         stage_mem *s)
{
    const tplan_precision_info *pi = tplan_precision_get(c->precision);
    bool holds_last = b->holds_last;
    const stage_pos mirror = b->mirror;
    double mirror_inflight = b->mirror_inflight;

    *s = b->s;
    /* it writes grads_at_step, tie_temp and work_fwd, which nothing in
     * stage_base's context, gather or held terms reads */
    phase_terms(c, st, b->matmul, s);
    if (c->model.arch == TPLAN_ARCH_GENERIC) {
        double scale = pi->act == TPLAN_ACT_FP32 ? 1.0 : 0.5;

        s->per_sample = c->model.generic_act_bytes_fp32 * scale;
        s->act_layer = s->per_sample;
        s->inflight = 1.0;
        return;
    }

    s->act_layer =
        s->moe_layers > 0 ||
                (mirror_inflight > 0 &&
                 tplan_model_moe_layers(&c->model, mirror.lo, mirror.hi) > 0)
            ? tp_fmax(act->layer, act->moe_layer)
            : act->layer;
    /* The first stage holds the most micro-batches (up to L layers'
     * worth under 1F1B); the head's tensors are used at once by the
     * backward that follows: one micro-batch's. */
    s->inflight = stage_inflight(c, st->i);
    s->per_sample = stage_layer_acts(c, act, st, s->inflight);
    if (mirror_inflight > 0) {
        s->per_sample += stage_layer_acts(c, act, &mirror, mirror_inflight);
        s->inflight += mirror_inflight;
    }
    /* Full recomputation rebuilds one layer's activations during backward
     * on top of the stored checkpoints. The loss's backward runs first and
     * frees the head's tensors before any layer is rebuilt, so on the last
     * stage the larger of the two counts, not both (measured on an H200,
     * tests/data/gpu/h200_torch.csv: HF GPT-2 under full recomputation
     * allocates one rebuilt layer less than the sum, 10% of its peak at
     * 16 x 1024 tokens). */
    if (c->recompute == TPLAN_RECOMPUTE_FULL) {
        double rebuilt = s->moe_layers > 0
                             ? tp_fmax(act->layer_full, act->moe_layer_full)
                             : act->layer_full;

        s->per_sample += holds_last ? tp_fmax(act->last, rebuilt) : rebuilt;
    } else if (holds_last) {
        s->per_sample += act->last;
    }
    act_offload(c, act, st, &mirror, mirror_inflight, s);
    /* Ring attention (Megatron-LM/TransformerEngine context parallelism)
     * double-buffers the K and V chunk it receives while it computes on
     * the one it holds: two chunks of s/cp tokens, per layer in turn. */
    if (c->cp > 1) {
        double w = pi->act == TPLAN_ACT_FP32 ? 4.0 : 2.0;

        s->per_sample += 2.0 * (double)tplan_model_kv_elems(&c->model) *
                         (double)(c->seq / c->cp) / (double)c->tp * w;
    }
}

/* Stage st's memory; pc: the model's parameter counts
 * (tplan_model_params). */
static void stage_eval(const tplan_config *c, const tplan_param_count *pc,
                       const tplan_act_bytes *act, const stage_pos *st,
                       stage_mem *s)
{
    tplan_stage_base b;

    stage_base(c, pc, st, &b);
    stage_finish(c, act, st, &b, s);
}

const char *tplan_fit_confidence_name(tplan_fit_confidence f)
{
    static const char *const names[] = {"yes", "likely", "unlikely", "no"};

    return f >= TPLAN_FIT_YES && f <= TPLAN_FIT_NO ? names[f] : "?";
}

/* The memory band and how sure the verdict is (docs/MODEL.md section
 * 14.4): the band's ends against the usable memory, with memory.fits
 * deciding between likely and unlikely so the two never disagree. False
 * when out of range (the band's figures unwritten). */
static bool band(const tplan_config *c, tplan_memory *out)
{
    double t = (double)out->total_bytes, usable = (double)out->usable_bytes;

    /* the band's high end must fit the int64 contract too */
    if (!(t * (1.0 + c->mem_band_hi) < 1e18)) {
        out->out_of_range = true;
        return false;
    }
    out->total_bytes_lo = llround(t * (1.0 - c->mem_band_lo));
    out->total_bytes_hi = llround(t * (1.0 + c->mem_band_hi));
    if (out->fits)
        out->fit_confidence = (double)out->total_bytes_hi <= usable
                                  ? TPLAN_FIT_YES
                                  : TPLAN_FIT_LIKELY;
    else
        out->fit_confidence = out->host_fits &&
                                      (double)out->total_bytes_lo <= usable
                                  ? TPLAN_FIT_UNLIKELY
                                  : TPLAN_FIT_NO;
    return true;
}

/* The parts the phases move: what the optimizer step's peak adds over
 * the activations (transient_bytes), and under grads_at_step what the
 * listed parts hold that is not live at the peak (off_peak_bytes): the
 * gradients at the forward's end, or the activations and autocast
 * copies at the step. The parts less off_peak sum to the peak. */
static void phases(const stage_mem *s, const tplan_stage_parts *p, int64_t b,
                   tplan_memory *out)
{
    /* with the unsharded weights no-reshard holds at the forward's end */
    double act = s->per_sample * (double)b + s->held;

    out->peak_at_step = parts_forward(s, p, (double)b) < p->step;
    if (!s->grads_at_step) {
        out->transient_bytes = llround(tp_fmax(s->step_temp - act, 0.0));
        out->off_peak_bytes = 0;
    } else if (!out->peak_at_step) {
        out->transient_bytes = 0;
        out->off_peak_bytes = llround(s->grads) + llround(s->work) -
                              llround(s->work_fwd);
    } else {
        out->transient_bytes = llround(step_phase(s) - s->grads);
        out->off_peak_bytes = llround(s->work) + llround(act);
    }
}

static int64_t stage_max_batch(const tplan_config *c, const stage_mem *s,
                               double usable)
{
    /* paged optimizer states may all page out to make room */
    double room =
        usable - outside_alloc(s) - s->alloc_k * (fixed_alloc(s) - s->paged);
    double b_host = MAX_MICRO_BATCH;

    if (room < 0.0 || room < s->alloc_k * step_phase(s))
        return 0;
    /* offloaded activations must fit the node's host memory beside the
     * offloaded states (paged-out states, which the GPU's room decides,
     * left out) */
    if (s->act_host > 0.0) {
        double on_node = (double)tplan_config_gpus_on_node(c);
        double host_room = tplan_config_host_memory(c) -
                           s->host * c->host_buffer_factor * on_node;

        if (host_room < s->act_host * on_node)
            return 0;
        b_host = tp_floor(host_room / (s->act_host * on_node));
    }
    /* what the forward's phase has left for activations */
    room = room / s->alloc_k - forward_phase(s, 0.0);
    if (room < 0.0)
        return 0;
    if (s->per_sample <= 0.0)
        return (int64_t)tp_fmin(b_host, MAX_MICRO_BATCH);
    return (int64_t)tp_fmin(tp_fmin(tp_floor(room / s->per_sample), b_host),
                            MAX_MICRO_BATCH);
}

/* Of fill_fixed's figures, those of the stage's base alone (stage_base:
 * neither the set_to_none phases nor the activations, which stage_finish
 * adds, move them), into a zeroed out. Returns fill_fixed's range
 * verdict, which reads the base alone too. */
static bool fill_states(const tplan_config *c, const stage_mem *s,
                        const stage_pos *st, tplan_memory *out)
{
    double on_node = (double)tplan_config_gpus_on_node(c);

    out->stage = c->pp == 1  ? TPLAN_STAGE_ONLY
                 : st->first ? TPLAN_STAGE_FIRST
                 : st->last  ? TPLAN_STAGE_LAST
                             : TPLAN_STAGE_MIDDLE;
    out->stage_index = st->i;
    out->work_copy_bytes = llround(s->work);
    out->weights_bytes = llround(s->weights) + out->work_copy_bytes;
    out->grads_bytes = llround(s->grads);
    out->context_bytes = llround(s->context);
    out->blas_ws_bytes = llround(s->blas_ws);
    out->gather_bytes = llround(s->gather + s->held);
    out->reshard_held_bytes = llround(s->held);
    out->dequant_bytes = llround(s->dequant);
    out->nccl_bytes = llround(s->nccl);
    out->nvls_bytes = llround(s->nvls);
    out->communicators = s->comms;
    out->bucket_bytes = llround(s->bucket);
    out->step_temp_bytes = llround(s->step_temp);
    out->trainable_on_device = llround(s->trainable);
    out->experts_on_device = llround(s->experts);
    out->quant_elems = s->quant;
    out->offload_state_bytes = llround(s->off_states);
    out->offload_weight_bytes = llround(s->off_w);
    /* every GPU of the job on a node holds its share there */
    out->nvme_bytes = llround(s->nvme * on_node);
    out->host_capacity_bytes = llround(tplan_config_host_memory(c));
    out->capacity_bytes = c->gpu.memory_bytes;
    out->params_on_device = llround(s->params);
    out->layers_on_stage = s->layers;
    /* what a spill of 0 gives (x - 0.0 is x: the same doubles) */
    out->optimizer_bytes = llround(s->optim);
    /* host_buffer_factor: DeepSpeed's pinned-buffer allowance on what
     * is offloaded (framework.c), not on paged states */
    out->host_bytes = llround(s->host * c->host_buffer_factor * on_node);
    return (s->host + s->nvme) * on_node < 1e18;
}

/* The rest of fill_fixed's figures: what the phases (grads_at_step,
 * tie_temp, work_fwd) and the activations move. */
static void fill_phases(const stage_mem *s, tplan_memory *out)
{
    out->tie_temp_bytes = llround(s->tie_temp);
    out->act_per_sample_bytes = s->per_sample;
    out->act_layer_bytes = s->act_layer;
    out->inflight = s->inflight;
    out->states_bytes =
        llround(outside_alloc(s) +
                s->alloc_k * (states_alloc(s) -
                              (s->grads_at_step ? s->work : 0.0)));
    out->forward_states_bytes =
        llround(outside_alloc(s) +
                s->alloc_k * (fixed_alloc(s) +
                              (s->grads_at_step ? s->work_fwd : 0.0) +
                              s->held));
    out->step_states_bytes = llround(
        outside_alloc(s) + s->alloc_k * (fixed_alloc(s) + step_phase(s)));
}

/* The contract figures of one stage that do not depend on the
 * micro-batch, the accumulation or the reserve: what the stage's states
 * and the config's non-batch fields give (stage_mem.h's memo keeps them
 * beside the stages; issue 38: they were half of a batch-staged
 * evaluation's memory). out is zeroed; written as fill_batch expects
 * them. A paged optimizer's spill is taken as 0 here, and fill_batch
 * redoes what it moves when it is not. False when the host and NVMe
 * side is out of range (fill_batch then reports the plan out of
 * range). */
static bool fill_fixed(const tplan_config *c, const stage_mem *s,
                       const stage_pos *st, tplan_memory *out)
{
    bool in_range = fill_states(c, s, st, out);

    fill_phases(s, out);
    return in_range;
}

/* The rest of one stage's figures at micro-batch b, with bmax the
 * largest micro-batch that fits (over the stages that count) and total
 * its stage_total at b: out holds fill_fixed's for the same stage and
 * config (in_range: what it returned). */
static bool fill_batch(const tplan_config *c, const stage_mem *s,
                       const tplan_stage_parts *p, int64_t b, int64_t bmax,
                       double total, bool in_range, tplan_memory *out)
{
    double usable = (double)c->gpu.memory_bytes * (1.0 - c->reserve_fraction);
    double spill = tp_fmin(tp_fmax(total - usable, 0.0) / s->alloc_k, s->paged);

    /* Beyond an exabyte per device the figures no longer fit the int64
     * contract; the caller reports the plan as out of range. */
    if (!(total < 1e18 && in_range)) {
        memset(out, 0, sizeof *out);
        out->out_of_range = true;
        return false;
    }
    out->out_of_range = false;
    out->partial = false; /* out may hold a verdict alone (defer_fill) */
    /* paged states beyond the GPU's room live on the host (unified
     * memory pages them in for the optimizer step); without a spill
     * fill_fixed's figures stand */
    if (spill != 0.0) {
        out->paged_spill_bytes = llround(spill);
        out->optimizer_bytes = llround(s->optim - spill);
        out->states_bytes =
            llround(outside_alloc(s) +
                    s->alloc_k * (states_alloc(s) - spill -
                                  (s->grads_at_step ? s->work : 0.0)));
        out->forward_states_bytes =
            llround(outside_alloc(s) +
                    s->alloc_k * (fixed_alloc(s) - spill +
                                  (s->grads_at_step ? s->work_fwd : 0.0) +
                                  s->held));
        out->step_states_bytes =
            llround(outside_alloc(s) +
                    s->alloc_k * (fixed_alloc(s) - spill + step_phase(s)));
    }
    out->activations_bytes = llround(s->per_sample * (double)b);
    /* nothing offloaded: 0 (llround(0.0 x b)), as fill_fixed left it */
    if (s->act_host != 0.0)
        out->act_offload_bytes = llround(s->act_host * (double)b);
    out->act_offload_mb_bytes = s->act_off_mb * (double)b;
    out->alloc_bytes =
        llround((s->alloc_k - 1.0) *
                (p->fixed - spill +
                 tp_fmax(parts_forward(s, p, (double)b), p->step)));
    phases(s, p, b, out);
    out->overhead_bytes = out->context_bytes + out->gather_bytes +
                          out->dequant_bytes + out->alloc_bytes +
                          out->nccl_bytes + out->bucket_bytes +
                          out->transient_bytes;
    /* every GPU of the job on a node holds its share there; without a
     * spill or offloaded activations fill_fixed's figure stands */
    if (spill != 0.0 || s->act_host != 0.0)
        out->host_bytes =
            llround((s->host * c->host_buffer_factor + spill +
                     s->act_host * (double)b) *
                    (double)tplan_config_gpus_on_node(c));
    out->host_fits = out->host_bytes <= out->host_capacity_bytes;
    out->total_bytes = out->weights_bytes + out->grads_bytes +
                       out->optimizer_bytes + out->activations_bytes +
                       out->overhead_bytes - out->off_peak_bytes;
    out->usable_bytes = (int64_t)floor(usable);
    out->reserve_bytes = out->capacity_bytes - out->usable_bytes;
    out->micro_batch = b;
    out->max_micro_batch = bmax;
    /* b <= bmax holds exactly when every stage fits; comparing totals
     * would let the rounding of the parts decide edge cases. A plan
     * whose host side does not fit fits at no micro-batch. */
    if (!out->host_fits && !(s->act_host > 0.0))
        out->max_micro_batch = 0; /* with offloaded activations bmax has
                                     the host's room already */
    out->fits = out->host_fits && bmax > 0 && b <= bmax;
    /* the rest of fill_fixed's figures stand unless a spill moved them or
     * band found the plan out of range (and left its own unwritten) */
    return band(c, out) && spill == 0.0;
}

/* Of fill_batch's range checks, the band's reads total_bytes, the
 * stage's parts rounded: the same sum as its total (stage_total) to a
 * byte a part. Below this the band is in range with a factor of ten to
 * spare (defer_fill); above it, fill_batch decides. */
#define DEFER_RANGE 1e17

/* fill_batch's verdict alone, where that is all the caller needs of a
 * stage that does not fit (memo->defer, stage_mem.h): out holds
 * fill_fixed's figures of the worst stage, s, whose total at micro-batch
 * b is total. Only where fill_batch would write nothing else the verdict
 * reads and find the plan in range: no paged spill (its host figure and
 * optimizer bytes move), no offloaded activations (their host bytes
 * move), the host side in range and the total far from the band's
 * limit, and b above bmax (b <= bmax with the host side too full is
 * left to fill_batch). Writes fits, host_fits, micro_batch,
 * max_micro_batch and out_of_range as fill_batch does, and marks out
 * partial; false, writing nothing, where a condition fails. */
static bool defer_fill(const tplan_config *c, tplan_stage_memo *memo,
                       const stage_mem *s, int64_t b, int64_t bmax,
                       double total, double usable, tplan_memory *out)
{
    bool host_fits;

    /* most stages fit (and one whose host side does not is rare): the
     * micro-batch alone first */
    if (b <= bmax || s->act_host != 0.0 || !memo->fixed_in_range ||
        !(total * (1.0 + c->mem_band_hi) < DEFER_RANGE) ||
        tp_fmin(tp_fmax(total - usable, 0.0) / s->alloc_k, s->paged) != 0.0)
        return false;
    /* without a spill or offloaded activations fill_fixed's host figure
     * stands (fill_batch) */
    host_fits = out->host_bytes <= out->host_capacity_bytes;
    out->out_of_range = false;
    out->host_fits = host_fits;
    out->micro_batch = b;
    out->max_micro_batch = host_fits ? bmax : 0;
    out->fits = false;
    out->partial = true;
    /* the fixed figures stand in out, as after a fill without a spill */
    memo->filled = out;
    return true;
}

/* The contract figures of one stage at micro-batch b into a zeroed out;
 * bmax is the largest micro-batch that fits (over the stages that
 * count). */
static void fill(const tplan_config *c, const stage_mem *s,
                 const stage_pos *st, int64_t b, int64_t bmax,
                 tplan_memory *out)
{
    bool in_range = fill_fixed(c, s, st, out);
    tplan_stage_parts p;

    stage_parts(s, &p);
    fill_batch(c, s, &p, b, bmax, parts_total(s, &p, (double)b), in_range,
               out);
}

void tplan_memory_eval(const tplan_config *c, tplan_memory *out)
{
    tplan_memory_eval_cached(c, NULL, out);
}

/* The most stages evaluated. The first and the last, and of the stages
 * between only those no earlier stage dominates: one with no more dense
 * and no more MoE layers than an earlier stage holds no more parameters
 * or activations per micro-batch (the first stage also holds the
 * embedding) and no more micro-batches. A middle stage holds q or q+1
 * layers (q = floor(L/p); (L+2)/p with pp_embed_loss, stage 1 evaluated
 * then); at most one straddles the dense layers at the
 * front, and the others hold none, floor(n/e) or ceil(n/e) MoE layers of
 * their n (every e-th layer): at most 2 x 4 compositions. */
#define MAX_STAGES TPLAN_MAX_STAGES

/* DualPipe: ranks r and p - 1 - r hold the same two stages and the same
 * chunks in flight (stage_eval), so ranks 0 .. p/2 - 1 are every case;
 * each is evaluated twice (for the largest micro-batch, then for the
 * fullest at the one chosen) rather than kept. */
static void dualpipe_eval(const tplan_config *c, const tplan_param_count *pc,
                          const tplan_act_bytes *act, double usable,
                          tplan_memory *out)
{
    stage_mem s;
    stage_pos sp;
    int64_t bmax = MAX_MICRO_BATCH, b, worst = 0, half = c->pp / 2;
    double worst_total = -1.0;

    for (int64_t r = 0; r < half; r++) {
        int64_t br;

        sp = stage_at(c, r);
        stage_eval(c, pc, act, &sp, &s);
        br = stage_max_batch(c, &s, usable);
        if (br < bmax)
            bmax = br;
    }
    b = c->micro_batch > 0                   ? c->micro_batch
        : bmax > 0 && bmax < MAX_MICRO_BATCH ? bmax
                                             : 1;
    for (int64_t r = 0; r < half; r++) {
        double total;

        sp = stage_at(c, r);
        stage_eval(c, pc, act, &sp, &s);
        total = stage_total(&s, (double)b);
        if (total > worst_total) {
            worst_total = total;
            worst = r;
        }
    }
    sp = stage_at(c, worst);
    stage_eval(c, pc, act, &sp, &s);
    fill(c, &s, &sp, b, bmax, out);
}

/* Does stage a hold no more dense and no more MoE layers than stage b? */
static bool stage_within(const tplan_model *m, const stage_pos *a,
                         const stage_pos *b)
{
    int64_t ma = tplan_model_moe_layers(m, a->lo, a->hi);
    int64_t mb = tplan_model_moe_layers(m, b->lo, b->hi);

    return ma <= mb && a->hi - a->lo - ma <= b->hi - b->lo - mb;
}

/* The largest micro-batch n stages all fit in usable bytes. */
static int64_t stages_max_batch(const tplan_config *c, const stage_mem *stages,
                                int n, double usable)
{
    int64_t bmax = MAX_MICRO_BATCH;

    for (int i = 0; i < n; i++) {
        int64_t bi = stage_max_batch(c, &stages[i], usable);

        if (bi < bmax)
            bmax = bi;
    }
    return bmax;
}

/* Is c the config the states memo's bases were evaluated for, as far as
 * they read? Neither stage_base nor the choice of stages (stage_at,
 * stage_within) reads recompute, recompute_modules, micro_batch or accum:
 * the key takes c's values of those four, then every byte is compared
 * (one memcmp, not one a stretch between them). */
static bool states_same(const tplan_config *c, tplan_config *key)
{
    /* the four fields: fields.c's tplan_field_states_free too */
    key->recompute = c->recompute;
    key->recompute_modules = c->recompute_modules;
    key->micro_batch = c->micro_batch;
    key->accum = c->accum;
    return memcmp(c, key, sizeof *c) == 0;
}

void tplan_states_params(const tplan_config *c, tplan_act_cache *cache,
                         tplan_param_count *pc)
{
    /* a full evaluation's first, where the probe found the params memo
     * holds c's model (tplan_states_memo.model_same): its counts */
    if (cache && cache->states.probe == TPLAN_STATES_MISS &&
        cache->states.model_same)
        *pc = cache->params;
    else
        tplan_model_params_cached(&c->model, cache, pc);
}

bool tplan_states_probe(const tplan_config *c, tplan_act_cache *cache,
                        tplan_param_count *pc)
{
    tplan_states_memo *sm = &cache->states;
    /* the sweep's word for it (sm->same) or the config's bytes */
    int word = sm->same;
    bool hit = sm->valid && word != TPLAN_STATES_MISS &&
               (word == TPLAN_STATES_HIT || states_same(c, &sm->key));

    sm->same = TPLAN_STATES_UNKNOWN;
    sm->model_same = word == TPLAN_STATES_MISS && sm->valid &&
                     cache->params_set && cache->params_gen == sm->model_gen;
    sm->probe_ticket = sm->ticket;
    sm->ticket = 0;
    sm->probe = hit ? TPLAN_STATES_HIT : TPLAN_STATES_MISS;
    if (hit)
        *pc = sm->pc;
    return hit;
}

/* The stages that decide the memory: each evaluated, and the largest
 * micro-batch they all fit (*bmax). Returns their count. With a cache,
 * the stages' bases (stage_base) of a config that differs from the last
 * one only in the fields states_same leaves out are kept
 * (tplan_states_memo). */
static int eval_stages(const tplan_config *c, tplan_act_cache *cache,
                       double usable, stage_pos *pos, stage_mem *stages,
                       int64_t *bmax)
{
    tplan_act_bytes act;
    tplan_param_count pc;
    tplan_states_memo *sm = cache ? &cache->states : NULL;
    int n = 0;
    bool hit = false;

    /* plan.c's eval() asked already for this config (tplan_states_probe;
     * the batch solve changes only micro_batch and accum, which the key
     * leaves out) */
    if (sm)
        hit = sm->probe ? sm->probe == TPLAN_STATES_HIT
                        : sm->valid && states_same(c, &sm->key);
    if (hit) {
        /* the key's model, the one the params memo held then */
        act_bytes_gen(c, cache, sm->model_gen, &act);
        n = sm->n;
        for (int i = 0; i < n; i++) {
            pos[i] = sm->pos[i];
            stage_finish(c, &act, &pos[i], &sm->base[i], &stages[i]);
        }
        *bmax = stages_max_batch(c, stages, n, usable);
        return n;
    }
    tplan_states_params(c, cache, &pc);
    /* the params memo holds c's model now */
    act_bytes_gen(c, cache, cache ? cache->params_gen : 0, &act);
    pos[n++] = stage_at(c, 0);
    /* a dense model's first stage holds the most layers: no middle stage
     * can hold more, unless the embedding counts as one (pp_embed_loss:
     * the loop then keeps stage 1, a layer more than the first) or the
     * first stage is given its own count (pp_first_layers) */
    if ((c->model.arch != TPLAN_ARCH_GENERIC && tplan_model_moe(&c->model)) ||
        c->pp_embed_loss || tplan_config_uneven_stages(c)) {
        for (int64_t i = 1; i < c->pp - 1 && n < MAX_STAGES - 1; i++) {
            stage_pos sp = stage_at(c, i);
            bool seen = false;

            for (int j = 0; j < n && !seen; j++)
                seen = stage_within(&c->model, &sp, &pos[j]);
            if (!seen)
                pos[n++] = sp;
        }
    }
    if (c->pp > 1)
        pos[n++] = stage_at(c, c->pp - 1);
    if (sm) {
        sm->valid = false;
        sm->gen++;
        sm->fixed_set = 0;
        sm->model_gen = cache->params_gen;
        sm->key = *c;
        sm->key_ticket = 0; /* a full evaluation's solve gives it its own */
        sm->pc = pc;
        for (int i = 0; i < n; i++) {
            sm->pos[i] = pos[i];
            stage_base(c, &pc, &pos[i], &sm->base[i]);
            stage_finish(c, &act, &pos[i], &sm->base[i], &stages[i]);
        }
        sm->n = n;
        sm->valid = true;
        /* the rest of the solve's evaluations are of this key */
        if (sm->probe)
            sm->probe = TPLAN_STATES_HIT;
    } else {
        for (int i = 0; i < n; i++)
            stage_eval(c, &pc, &act, &pos[i], &stages[i]);
    }
    *bmax = stages_max_batch(c, stages, n, usable);
    return n;
}

void tplan_memory_eval_cached(const tplan_config *c, tplan_act_cache *cache,
                              tplan_memory *out)
{
    stage_mem own[MAX_STAGES];
    stage_pos own_pos[MAX_STAGES];
    tplan_stage_parts own_parts[MAX_STAGES];
    const tplan_stage_parts *parts = own_parts;
    const stage_mem *stages = own;
    const stage_pos *pos = own_pos;
    tplan_stage_memo *memo = cache && cache->stages.armed ? &cache->stages
                                                           : NULL;
    int n, worst = 0;
    double usable = (double)c->gpu.memory_bytes * (1.0 - c->reserve_fraction);
    int64_t bmax, b;
    double worst_total = -1.0;
    bool fresh = false; /* the stages come from eval_stages just now */

    if (dualpipe(c) && c->model.arch != TPLAN_ARCH_GENERIC) {
        tplan_act_bytes act;
        tplan_param_count pc;

        if (cache && cache->stages.filled == out)
            cache->stages.filled = NULL;
        memset(out, 0, sizeof *out);
        tplan_model_params_cached(&c->model, cache, &pc);
        act_bytes(c, cache, &act);
        dualpipe_eval(c, &pc, &act, usable, out);
        return;
    }
    if (memo && memo->valid &&
        (c->accum >= memo->same_from || same_accum_memo(c, memo))) {
        n = memo->n;
        /* the reserve changed: the same stages in another room */
        if (memo->usable != usable) {
            memo->bmax = stages_max_batch(c, memo->stages, n, usable);
            memo->usable = usable;
        }
        bmax = memo->bmax;
    } else if (memo) {
        memo->n = n = eval_stages(c, cache, usable, memo->pos, memo->stages,
                                  &memo->bmax);
        fresh = true;
        bmax = memo->bmax;
        memo->accum = c->accum;
        memo->same_from = INT64_MAX; /* worked out when first asked */
        memo->same_known = false;
        memo->usable = usable;
        memo->valid = true;
        memo->fixed_stage = -1;
        memo->filled = NULL;
        for (int i = 0; i < n; i++)
            stage_parts(&memo->stages[i], &memo->parts[i]);
    } else {
        n = eval_stages(c, cache, usable, own_pos, own, &bmax);
        for (int i = 0; i < n; i++)
            stage_parts(&own[i], &own_parts[i]);
    }
    if (memo) {
        stages = memo->stages;
        pos = memo->pos;
        parts = memo->parts;
    }
    /* In max mode take the largest that fits; with no per-sample cost
     * (a generic model without activation bytes) that is meaningless, so
     * evaluate one sample. */
    b = c->micro_batch > 0                   ? c->micro_batch
        : bmax > 0 && bmax < MAX_MICRO_BATCH ? bmax
                                             : 1;
    for (int i = 0; i < n; i++) {
        double total = parts_total(&stages[i], &parts[i], (double)b);

        if (total > worst_total) {
            worst_total = total;
            worst = i;
        }
    }
    /* fill_batch takes the worst stage's total; none was above the
     * start (NaN): stage 0's, as it was */
    if (!(worst_total > -1.0))
        worst_total = parts_total(&stages[0], &parts[0], (double)b);
    if (!memo) {
        /* figures the memo may take as filled from it are not now */
        if (cache && cache->stages.filled == out)
            cache->stages.filled = NULL;
        memset(out, 0, sizeof *out);
        fill_batch(c, &stages[worst], &parts[worst], b, bmax, worst_total,
                   fill_fixed(c, &stages[worst], &pos[worst], out), out);
        return;
    }
    /* the worst stage's figures that the micro-batch does not move, kept
     * with the stages (dropped with them): filled into out at once, and
     * into the memo only when a later fill needs them (issue 38: most
     * full evaluations fill once, no spill, and the next fill of the
     * same stage finds them in out) */
    if (memo->fixed_stage != worst && fresh) {
        /* stages evaluated just now through the states memo: its key is
         * c but for fields fill_states does not read, and its stage
         * worst is this one (eval_stages keeps their order) */
        tplan_states_memo *sm = &cache->states;
        unsigned bit = 1u << worst;

        if (sm->fixed_set & bit) {
            *out = sm->fixed[worst];
        } else {
            memset(out, 0, sizeof *out);
            if (fill_states(c, &stages[worst], &pos[worst], out))
                sm->fixed_in_range |= bit;
            else
                sm->fixed_in_range &= ~bit;
            sm->fixed[worst] = *out;
            sm->fixed_set |= bit;
        }
        fill_phases(&stages[worst], out);
        memo->fixed_in_range = (sm->fixed_in_range & bit) != 0;
        memo->fixed_stage = worst;
        memo->fixed_kept = false;
        memo->filled = out;
    } else if (memo->fixed_stage != worst) {
        memset(out, 0, sizeof *out);
        memo->fixed_in_range =
            fill_fixed(c, &stages[worst], &pos[worst], out);
        memo->fixed_stage = worst;
        memo->fixed_kept = false;
        memo->filled = out;
    }
    /* out holds the same stage's fixed figures from the last fill
     * through the memo (nothing else writes a plan's memory between two
     * evaluations of it): fill_batch rewrites what it moved */
    if (memo->filled != out) {
        /* the same figures as the fill above: fill_fixed reads the stage
         * and the config's non-batch fields */
        if (!memo->fixed_kept) {
            memset(&memo->fixed, 0, sizeof memo->fixed);
            fill_fixed(c, &stages[worst], &pos[worst], &memo->fixed);
            memo->fixed_kept = true;
        }
        *out = memo->fixed;
    }
    /* (the stages that fit, and full evaluations, which never defer,
     * go on at once) */
    if (memo->defer && b > bmax &&
        defer_fill(c, memo, &stages[worst], b, bmax, worst_total, usable,
                   out))
        return;
    memo->filled = fill_batch(c, &stages[worst], &parts[worst], b, bmax,
                              worst_total, memo->fixed_in_range, out)
                       ? out
                       : NULL;
}

void tplan_memory_eval_stage_at(const tplan_config *c, int64_t index,
                                int64_t micro_batch, tplan_memory *out)
{
    stage_mem s;
    stage_pos sp = stage_at(c, index);
    tplan_act_bytes act;
    tplan_param_count pc;
    double usable = (double)c->gpu.memory_bytes * (1.0 - c->reserve_fraction);

    memset(out, 0, sizeof *out);
    tplan_model_params(&c->model, &pc);
    act_bytes(c, NULL, &act);
    stage_eval(c, &pc, &act, &sp, &s);
    fill(c, &s, &sp, micro_batch, stage_max_batch(c, &s, usable), out);
}

void tplan_memory_eval_stage(const tplan_config *c, tplan_stage st,
                             int64_t micro_batch, tplan_memory *out)
{
    tplan_memory_eval_stage_at(c, st == TPLAN_STAGE_LAST ? c->pp - 1 : 0,
                               micro_batch, out);
}
