/* When a plan does not fit: why, and the changes a practitioner would try,
 * in the order they would try them on the hardware they have (docs/MODEL.md
 * section 4.5): a smaller micro-batch with more accumulation,
 * recomputation, flash attention, a 16-bit recipe, an 8-bit optimizer,
 * then for fine-tunes LoRA and QLoRA, ZeRO stages over the data-parallel
 * GPUs the job already has, ZeRO-Offload to the host, and only then more
 * GPUs and shorter sequences. Each change is
 * checked by evaluating the changed plan; when no single change fits, the
 * same changes are stacked in the same order. */
#include "plan.h"
#include "engine_int.h"
#include "fields.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define GIB (1024.0 * 1024.0 * 1024.0)

/* LoRA rank suggested when none is given: between the LoRA paper's 8 and
 * QLoRA's 64 (an assumption, docs/MODEL.md section 4.5; the rank matters
 * little to memory). */
#define SUGGESTED_LORA_RANK 16

typedef struct remedies {
    tplan_remedy *out;
    int cap, n;
} remedies;

static void set_num(tplan_remedy *r, const char *field, double v)
{
    if (r->n < TPLAN_MAX_CHANGES)
        r->change[r->n++] = (tplan_change){field, v, NULL};
}

static void set_name(tplan_remedy *r, const char *field, const char *name)
{
    if (r->n < TPLAN_MAX_CHANGES)
        r->change[r->n++] = (tplan_change){field, 0.0, name};
}

/* Evaluate t; fill the remedy's figures. True when valid and it fits. */
static bool evaluate(const tplan_config *t, tplan_remedy *r)
{
    tplan_plan p;

    if (tplan_plan_eval_ex(t, &p, TPLAN_EVAL_FIGURES, NULL) != TPLAN_OK)
        return false;
    r->fits = p.mem.fits;
    r->total_bytes = p.mem.total_bytes;
    r->max_micro_batch = p.max_micro_batch;
    r->micro_batch = p.micro_batch;
    r->timed = p.perf.timed;
    r->step_time_s = p.perf.step_time_s;
    r->tokens_per_s = p.perf.tokens_per_s;
    r->has_budget = p.run.has_budget;
    r->per_epoch = p.run.per_epoch;
    r->time_h = p.run.time_h;
    return r->fits;
}

/* Keep r when t fits; true then. */
static bool offer(remedies *a, const tplan_config *t, tplan_remedy *r,
                  const char *why)
{
    if (a->n >= a->cap || !evaluate(t, r))
        return false;
    snprintf(r->why, sizeof r->why, "%s", why);
    a->out[a->n++] = *r;
    return true;
}

/* The fine-tuning steps: LoRA on a full fine-tune, then a 4-bit base. */
static void to_lora(const tplan_config *c, tplan_config *t, tplan_remedy *r)
{
    if (c->lora_rank == 0) {
        t->lora_rank = SUGGESTED_LORA_RANK;
        set_num(r, "lora_rank", SUGGESTED_LORA_RANK);
    }
}

static void to_qlora(const tplan_config *c, tplan_config *t, tplan_remedy *r)
{
    to_lora(c, t, r);
    t->base_precision = TPLAN_BASE_NF4;
    t->double_quant = true;
    set_name(r, "base_precision", "nf4");
    set_num(r, "double_quant", 1);
}

static bool adam_states(const tplan_config *c)
{
    return c->optimizer == TPLAN_OPT_ADAMW || c->optimizer == TPLAN_OPT_ADAM;
}

static bool transformer(const tplan_config *c)
{
    return c->model.arch != TPLAN_ARCH_GENERIC;
}

/* Tries of smaller_micro_batch below the plan's largest micro-batch. */
#define MICRO_BATCH_TRIES 4

/* The micro-batch that fits, with the accumulation that keeps the global
 * batch (a target global batch is solved again by the plan itself). The
 * plan's largest micro-batch was found at its own accumulation; more
 * accumulation can hold more micro-batches in flight (accum below pp,
 * interleaving), so a few smaller ones are tried when it does not fit. */
static void smaller_micro_batch(const tplan_config *c, const tplan_plan *p,
                                remedies *a)
{
    int64_t mb = p->max_micro_batch;
    char why[160];

    if (c->micro_batch <= 0 || mb <= 0 || c->micro_batch <= mb)
        return;
    /* under set_to_none the plan's largest was found at one micro-batch
     * per step, where the gradients are freed; with more they are live:
     * start from the largest at two */
    if (c->set_to_none && c->accum <= 1 && c->pp == 1) {
        tplan_config t = *c;
        tplan_memory m;

        t.micro_batch = 0;
        t.accum = 2;
        tplan_memory_eval(&t, &m);
        mb = m.max_micro_batch < mb ? m.max_micro_batch : mb;
        if (mb <= 0)
            return;
    }
    snprintf(why, sizeof why,
             "the largest micro-batch that fits, with more accumulation "
             "for about the same global batch (%lld samples)",
             (long long)p->global_batch);
    for (int i = 0; i <= MICRO_BATCH_TRIES && mb >= 1; i++, mb--) {
        tplan_config t = *c;
        tplan_remedy r = {0};

        t.micro_batch = mb;
        set_num(&r, "micro_batch", (double)mb);
        if (c->global_batch == 0 && c->global_batch_tokens == 0) {
            int64_t accum = (p->accum * c->micro_batch + mb - 1) / mb;

            /* interleaving takes whole rounds of pp micro-batches */
            if (!tplan_config_whole_rounds(c, accum))
                accum += c->pp - accum % c->pp;
            t.accum = accum;
            set_num(&r, "accum", (double)accum);
        }
        if (offer(a, &t, &r, why) || a->n >= a->cap)
            return;
    }
}

/* One field changed through the field table (a name, or a number when
 * name is NULL); kept when it fits. */
static bool single(remedies *a, const tplan_config *c, const char *field,
                   const char *name, double num, const char *why)
{
    tplan_config t = *c;
    tplan_remedy r = {0};
    int id = tplan_field_find_input(field);

    if (name ? tplan_field_set_text(id, name, &t, NULL)
             : tplan_field_set_number(id, num, &t, NULL))
        return false;
    if (name)
        set_name(&r, field, name);
    else
        set_num(&r, field, num);
    return offer(a, &t, &r, why);
}

/* Each change alone, in the order practitioners try them. */
static void singles(const tplan_config *c, const tplan_plan *p, remedies *a)
{
    tplan_config t;
    tplan_remedy r;
    int64_t dp = tplan_config_dp(c);

    smaller_micro_batch(c, p, a);
    /* free and no slower: the fused step */
    if (p->mem.step_temp_bytes > 0)
        single(a, c, "optim_temp", NULL, 0,
               "a fused AdamW step (torch.optim.AdamW(fused=True)) "
               "allocates no list of temporaries");
    /* the lighter recomputation first; full only if it does not fit */
    if (!(transformer(c) && c->recompute == TPLAN_RECOMPUTE_NONE &&
          single(a, c, "recompute", "selective", 0,
                 "recompute the attention core in backward")) &&
        transformer(c) && c->recompute != TPLAN_RECOMPUTE_FULL)
        single(a, c, "recompute", "full", 0,
               "keep each layer's input only and recompute the rest in "
               "backward (one more forward pass)");
    if (transformer(c) && c->attention == TPLAN_ATTN_EAGER)
        single(a, c, "attention", "flash", 0,
               "flash attention keeps no s x s score matrix");
    if (c->precision == TPLAN_PREC_FP32)
        single(a, c, "precision", "mixed-bf16", 0,
               "16-bit weights, gradients and activations");
    if (adam_states(c) && c->offload_optimizer == TPLAN_OFFLOAD_NONE)
        single(a, c, "optimizer", "adamw-8bit", 0,
               "bitsandbytes 8-bit AdamW: 2 bytes of states per parameter "
               "instead of 8 (Dettmers et al. 2022)");
    if (c->finetune && transformer(c) && c->lora_rank == 0)
        single(a, c, "lora_rank", NULL, SUGGESTED_LORA_RANK,
               "LoRA: the base is frozen, only adapters have gradients and "
               "optimizer states (Hu et al. 2021)");
    if (c->finetune && transformer(c) &&
        !tplan_base_quantized(c->base_precision)) {
        t = *c;
        r = (tplan_remedy){0};
        to_qlora(c, &t, &r);
        offer(a, &t, &r,
              "QLoRA: LoRA on a 4-bit NormalFloat base with double "
              "quantization (Dettmers et al. 2023)");
    }
    /* Expert parallelism splits the experts over GPUs the job has; context
     * parallelism splits a long sequence's activations (Megatron-LM,
     * torchtitan): the smallest degree that fits, within the job. */
    for (int64_t e = c->ep * 2;
         transformer(c) && tplan_model_moe(&c->model) && e <= dp * c->cp &&
         e <= c->model.experts;
         e *= 2)
        if (single(a, c, "ep", NULL, (double)e,
                   "expert parallelism: each GPU holds experts/ep of the "
                   "experts"))
            break;
    for (int64_t k = c->cp * 2; transformer(c) && k <= dp * c->cp &&
                                c->attention == TPLAN_ATTN_FLASH &&
                                c->seq % (2 * k) == 0;
         k *= 2)
        if (single(a, c, "cp", NULL, (double)k,
                   "context parallelism: each GPU keeps seq/cp of every "
                   "sequence's activations (ring attention)"))
            break;
    /* ZeRO over the data-parallel GPUs the job has costs no hardware and
     * less time than the host's PCIe link: before offload */
    for (int z = c->zero + 1; z <= 3 && dp > 1; z++)
        if (single(a, c, "zero", NULL, z,
                   "shard more model states over the data-parallel GPUs "
                   "(Rajbhandari et al. 2020)"))
            break;
    if (c->offload_optimizer == TPLAN_OFFLOAD_NONE)
        single(a, c, "offload_optimizer", "cpu", 0,
               "ZeRO-Offload: master weights, optimizer states and fp32 "
               "gradients in host memory, the step on the CPU (Ren et al. "
               "2021)");
    if (c->offload_params == TPLAN_OFFLOAD_NONE) {
        t = *c;
        r = (tplan_remedy){0};
        if (c->zero != 3) {
            t.zero = 3;
            set_num(&r, "zero", 3);
        }
        t.offload_optimizer = TPLAN_OFFLOAD_CPU;
        t.offload_params = TPLAN_OFFLOAD_CPU;
        if (c->offload_optimizer != TPLAN_OFFLOAD_CPU)
            set_name(&r, "offload_optimizer", "cpu");
        set_name(&r, "offload_params", "cpu");
        offer(a, &t, &r,
              "ZeRO-Infinity: weights in host memory too, fetched layer by "
              "layer (Rajbhandari et al. 2021)");
    }
    /* more GPUs with ZeRO-3: the smallest power-of-two multiple */
    for (int64_t k = 2; k <= 1024; k *= 2) {
        t = *c;
        r = (tplan_remedy){0};
        t.gpus = c->gpus * k;
        set_num(&r, "gpus", (double)t.gpus);
        if (c->zero != 3) {
            t.zero = 3;
            set_num(&r, "zero", 3);
        }
        if (offer(a, &t, &r, "shard the model states over more GPUs"))
            break;
    }
    for (int64_t s = c->seq / 2; transformer(c) && s >= 128; s /= 2)
        if (single(a, c, "seq", NULL, (double)s,
                   "shorter sequences: fewer activations"))
            break;
}

/* No single change fits: stack them in the same order with ZeRO-3 over
 * more GPUs. The search keeps the sequence length if it can, then takes
 * the fewest changes, then the fewest GPUs; it reports the first stack
 * that fits, or what was tried. */
#define MAX_STACK 3

static void stack_prefix(const tplan_config *c, int depth, tplan_config *t,
                         tplan_remedy *r)
{
    int k = 0;

    *t = *c;
    *r = (tplan_remedy){0};
    if (transformer(c) && c->recompute != TPLAN_RECOMPUTE_FULL &&
        k++ < depth) {
        t->recompute = TPLAN_RECOMPUTE_FULL;
        set_name(r, "recompute", "full");
    }
    if (transformer(c) && c->attention != TPLAN_ATTN_FLASH && k++ < depth) {
        t->attention = TPLAN_ATTN_FLASH;
        set_name(r, "attention", "flash");
    }
    if (c->finetune && transformer(c) &&
        !tplan_base_quantized(c->base_precision)) {
        if (k++ < depth)
            to_qlora(c, t, r);
    } else if (adam_states(c) && c->offload_optimizer == TPLAN_OFFLOAD_NONE &&
               k++ < depth) {
        t->optimizer = TPLAN_OPT_ADAMW_8BIT;
        set_name(r, "optimizer", "adamw-8bit");
    }
    if (c->zero != 3) {
        t->zero = 3;
        set_num(r, "zero", 3);
    }
}

static void stacked(const tplan_config *c, remedies *a)
{
    tplan_config t, g;
    tplan_remedy r = {0}, rg;

    if (a->n >= a->cap)
        return;
    for (int64_t s = c->seq; s >= 1; s = s > 128 ? s / 2 : 0) {
        for (int depth = 0; depth <= MAX_STACK; depth++) {
            stack_prefix(c, depth, &t, &r);
            t.seq = s;
            for (int64_t k = 1; k <= 1024; k *= 2) {
                g = t;
                rg = r;
                g.gpus = c->gpus * k;
                if (k > 1)
                    set_num(&rg, "gpus", (double)g.gpus);
                if (s != c->seq)
                    set_num(&rg, "seq", (double)s);
                if (evaluate(&g, &rg)) {
                    snprintf(rg.why, sizeof rg.why,
                             "no single change fits: these together do");
                    a->out[a->n++] = rg;
                    return;
                }
            }
        }
        if (!transformer(c))
            break;
    }
    stack_prefix(c, MAX_STACK, &t, &r);
    r.fits = false;
    snprintf(r.why, sizeof r.why,
             "nothing tried fits (with these, up to 1024x the GPUs and "
             "sequences down to 128)");
    a->out[a->n++] = r;
}

int tplan_plan_remedies(const tplan_config *c, const tplan_plan *p,
                        tplan_remedy *out, int cap)
{
    remedies a = {out, cap, 0};

    if (p->mem.fits || cap <= 0)
        return 0;
    singles(c, p, &a);
    if (a.n == 0)
        stacked(c, &a);
    return a.n;
}

void tplan_remedy_text(const tplan_remedy *r, char *buf, size_t len)
{
    size_t n = 0;

    if (!len)
        return;
    buf[0] = '\0';
    for (int i = 0; i < r->n && n < len; i++) {
        const tplan_change *ch = &r->change[i];

        if (ch->name)
            n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", i ? ", " : "",
                                  ch->field, ch->name);
        else if (strcmp(ch->field, "double_quant") == 0)
            n += (size_t)snprintf(buf + n, len - n, "%sdouble_quant",
                                  i ? ", " : "");
        else
            n += (size_t)snprintf(buf + n, len - n, "%s%s=%.0f", i ? ", " : "",
                                  ch->field, ch->num);
    }
}

/* The diagnosis: which part does not fit. */
static void diagnose(const tplan_config *c, tplan_plan *p)
{
    const tplan_memory *m = &p->mem;
    /* memory.c's own split per phase, so the diagnosis and the largest
     * micro-batch agree. Under set_to_none the forward holds the autocast
     * copies where the step holds the gradients: the states are the
     * larger. The step's phase over the states (allocator share
     * included) is its temporaries or a tied embedding's second
     * gradient. */
    double states = (double)(m->forward_states_bytes > m->states_bytes
                                 ? m->forward_states_bytes
                                 : m->states_bytes);
    double step = (double)(m->step_states_bytes - m->states_bytes);
    double left = (double)(m->usable_bytes - m->states_bytes);
    bool tie = m->tie_temp_bytes > m->step_temp_bytes;
    char fix[64] = "";

    if (!m->host_fits)
        tplan_plan_warn(p,
                        "does not fit: host memory per node needs %.1f GiB "
                        "but the node has %.1f GiB (host_memory)",
                        (double)m->host_bytes / GIB,
                        (double)m->host_capacity_bytes / GIB);
    else if (states > (double)m->usable_bytes)
        tplan_plan_warn(p,
                        "does not fit: model states and overheads need %.1f "
                        "GiB per GPU but %.1f GiB is usable (%.1f GiB less "
                        "%.0f%% reserve)",
                        states / GIB, (double)m->usable_bytes / GIB,
                        (double)m->capacity_bytes / GIB,
                        c->reserve_fraction * 100.0);
    else if (m->step_states_bytes > m->usable_bytes) {
        if (!tie)
            snprintf(fix, sizeof fix,
                     " (optim_temp %g: a fused optimizer has none)",
                     c->optim_temp);
        tplan_plan_warn(p,
                        "does not fit: %s need%s %.1f GiB but %.1f GiB is "
                        "left after model states%s",
                        tie ? "a tied embedding's second gradient at the "
                              "backward's end"
                            : "the optimizer step's temporaries",
                        tie ? "s" : "", step / GIB, left / GIB, fix);
    } else
        tplan_plan_warn(p,
                        "does not fit: activations for micro-batch %lld need "
                        "%.1f GiB but %.1f GiB is left after model states",
                        (long long)m->micro_batch,
                        (double)(m->total_bytes - m->forward_states_bytes) /
                            GIB,
                        ((double)m->usable_bytes -
                         (double)m->forward_states_bytes) /
                            GIB);
}

/* The run's time a remedy gives, in hours whatever its size (the lines
 * are read side by side), days too from two on: "run 1231 h (51 days)",
 * "12.5 h per epoch", or that there is no budget to time. */
static void remedy_run_text(const tplan_remedy *r, char *buf, size_t len)
{
    char h[48];

    if (!r->has_budget) {
        snprintf(buf, len, "no run time (no budget given)");
        return;
    }
    if (r->time_h < 1000.0)
        snprintf(h, sizeof h, "%.3g", r->time_h);
    else
        snprintf(h, sizeof h, "%.0f", r->time_h);
    if (r->time_h >= 48.0)
        snprintf(h + strlen(h), sizeof h - strlen(h), " h (%.0f days)",
                 r->time_h / 24.0);
    else
        snprintf(h + strlen(h), sizeof h - strlen(h), " h");
    if (r->per_epoch)
        snprintf(buf, len, "%s per epoch", h);
    else
        snprintf(buf, len, "run %s", h);
}

void tplan_plan_fit_advice(const tplan_config *c, tplan_plan *p, bool search)
{
    tplan_remedy r[TPLAN_MAX_REMEDIES];
    char what[160];
    int n;

    if (p->mem.fits)
        return;
    diagnose(c, p);
    if (!search)
        return;
    n = tplan_plan_remedies(c, p, r, TPLAN_MAX_REMEDIES);
    for (int i = 0; i < n; i++) {
        tplan_remedy_text(&r[i], what, sizeof what);
        if (!r[i].fits) {
            tplan_plan_warn(p, "no change tried fits (%s, up to 1024x the "
                               "GPUs, seq down to 128)",
                            what);
            continue;
        }
        if (r[i].timed) {
            char run[48];

            remedy_run_text(&r[i], run, sizeof run);
            tplan_plan_warn(p,
                            "would fit with %s: %.1f GiB at micro-batch "
                            "%lld, max micro-batch %lld, %.3g s per step, "
                            "%.0f tokens/s, %s",
                            what, (double)r[i].total_bytes / GIB,
                            (long long)r[i].micro_batch,
                            (long long)r[i].max_micro_batch,
                            r[i].step_time_s, r[i].tokens_per_s, run);
        } else
            tplan_plan_warn(p,
                            "would fit with %s: %.1f GiB at micro-batch "
                            "%lld, max micro-batch %lld",
                            what, (double)r[i].total_bytes / GIB,
                            (long long)r[i].micro_batch,
                            (long long)r[i].max_micro_batch);
    }
}
