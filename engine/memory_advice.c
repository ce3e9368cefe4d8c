/* When a config does not fit: which part is too large, and which single
 * change would make it fit, each checked by evaluating the changed config
 * (what the reference calculators suggest: next ZeRO stage, recomputation,
 * more GPUs, shorter sequences). */
#include "memory.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define GIB (1024.0 * 1024.0 * 1024.0)

typedef struct advice {
    char (*lines)[TPLAN_ADVICE_LEN];
    int cap, n;
} advice;

static void add(advice *a, const char *what, const tplan_config *c,
                const tplan_memory *m)
{
    if (a->n >= a->cap)
        return;
    snprintf(a->lines[a->n], sizeof a->lines[0],
             "would fit with %s: %.1f GiB at micro-batch %lld, max "
             "micro-batch %lld",
             what, (double)m->total_bytes / GIB,
             (long long)(c->micro_batch > 0 ? c->micro_batch : m->micro_batch),
             (long long)m->max_micro_batch);
    a->n++;
}

/* Evaluate a changed config; true when it is valid and fits. */
static bool try_fit(const tplan_config *c, tplan_memory *m)
{
    if (tplan_config_validate(c, NULL) != TPLAN_OK)
        return false;
    tplan_memory_eval(c, m);
    return m->fits;
}

/* Append ", item" (or "item" first) to buf. */
static void append(char *buf, size_t len, const char *fmt, ...)
{
    size_t n = strlen(buf);
    va_list ap;

    if (n > 0 && n + 2 < len) {
        memcpy(buf + n, ", ", 3);
        n += 2;
    }
    va_start(ap, fmt);
    vsnprintf(buf + n, len - n, fmt, ap);
    va_end(ap);
}

/* No single change fits: stack them, cheapest for the model's quality
 * first (ZeRO-3, full recomputation, flash attention), then more GPUs,
 * then shorter sequences, and report the first combination that fits. */
static void combined(const tplan_config *c, advice *a)
{
    tplan_config t = *c;
    tplan_memory m;
    char what[160];
    int64_t k = 1, s;
    bool fit = false;

    t.zero = 3;
    if (c->model.arch != TPLAN_ARCH_GENERIC) {
        t.recompute = TPLAN_RECOMPUTE_FULL;
        t.attention = TPLAN_ATTN_FLASH;
    }
    for (s = c->seq; s >= 1 && !fit; s = s > 128 ? s / 2 : 0) {
        t.seq = s;
        for (k = 1; k <= 1024 && !fit; k *= 2) {
            t.gpus = c->gpus * k;
            fit = try_fit(&t, &m);
        }
        if (c->model.arch == TPLAN_ARCH_GENERIC)
            break;
    }
    if (!fit) {
        if (a->n < a->cap)
            snprintf(a->lines[a->n++], sizeof a->lines[0],
                     "no change tried fits (zero=3, recompute=full, flash "
                     "attention, up to %lldx GPUs, seq down to 128)",
                     1024LL);
        return;
    }
    /* name only what changes: never a setting that is already on */
    what[0] = '\0';
    if (t.zero != c->zero)
        append(what, sizeof what, "zero=3");
    if (t.recompute != c->recompute)
        append(what, sizeof what, "recompute=full");
    if (t.attention != c->attention)
        append(what, sizeof what, "attention=flash");
    if (t.gpus != c->gpus)
        append(what, sizeof what, "gpus=%lld", (long long)t.gpus);
    if (t.seq != c->seq)
        append(what, sizeof what, "seq=%lld", (long long)t.seq);
    add(a, what, &t, &m);
}

int tplan_memory_advise(const tplan_config *c, const tplan_memory *mem,
                        char (*lines)[TPLAN_ADVICE_LEN], int cap)
{
    advice a = {lines, cap, 0};
    tplan_config t;
    tplan_memory m;
    char what[120];
    double states = (double)(mem->weights_bytes + mem->grads_bytes +
                             mem->optimizer_bytes + mem->overhead_bytes);
    int64_t dp = tplan_config_dp(c);

    if (mem->fits || cap <= 0)
        return 0;
    if (states > (double)mem->usable_bytes)
        snprintf(lines[a.n++], sizeof lines[0],
                 "does not fit: model states and overheads need %.1f GiB "
                 "per GPU but %.1f GiB is usable (%.1f GiB less %.0f%% "
                 "reserve)",
                 states / GIB, (double)mem->usable_bytes / GIB,
                 (double)mem->capacity_bytes / GIB,
                 c->reserve_fraction * 100.0);
    else
        snprintf(lines[a.n++], sizeof lines[0],
                 "does not fit: activations for micro-batch %lld need %.1f "
                 "GiB but %.1f GiB is left after model states",
                 (long long)mem->micro_batch,
                 (double)mem->activations_bytes / GIB,
                 ((double)mem->usable_bytes - states) / GIB);

    if (c->micro_batch > mem->max_micro_batch && mem->max_micro_batch > 0) {
        t = *c;
        t.micro_batch = mem->max_micro_batch;
        if (try_fit(&t, &m)) {
            snprintf(what, sizeof what, "micro-batch %lld (the largest)",
                     (long long)mem->max_micro_batch);
            add(&a, what, &t, &m);
        }
    }
    for (int z = c->zero + 1; z <= 3 && dp > 1; z++) {
        t = *c;
        t.zero = z;
        if (try_fit(&t, &m)) {
            snprintf(what, sizeof what, "zero=%d", z);
            add(&a, what, &t, &m);
            break;
        }
    }
    if (c->model.arch != TPLAN_ARCH_GENERIC) {
        for (int r = (int)c->recompute + 1; r <= TPLAN_RECOMPUTE_FULL; r++) {
            t = *c;
            t.recompute = (tplan_recompute)r;
            if (try_fit(&t, &m)) {
                snprintf(what, sizeof what, "recompute=%s",
                         tplan_recompute_name(t.recompute));
                add(&a, what, &t, &m);
                break;
            }
        }
        if (c->attention == TPLAN_ATTN_EAGER) {
            t = *c;
            t.attention = TPLAN_ATTN_FLASH;
            if (try_fit(&t, &m))
                add(&a, "attention=flash", &t, &m);
        }
    }
    if (c->precision == TPLAN_PREC_FP32) {
        t = *c;
        t.precision = TPLAN_PREC_MIXED_BF16;
        if (try_fit(&t, &m))
            add(&a, "precision=mixed-bf16", &t, &m);
    }
    /* More GPUs with ZeRO-3: the smallest power-of-two multiple. */
    for (int64_t k = 2; k <= 1024; k *= 2) {
        t = *c;
        t.gpus = c->gpus * k;
        t.zero = 3;
        if (try_fit(&t, &m)) {
            snprintf(what, sizeof what, "gpus=%lld%s", (long long)t.gpus,
                     c->zero == 3 ? "" : " and zero=3");
            add(&a, what, &t, &m);
            break;
        }
    }
    if (c->model.arch != TPLAN_ARCH_GENERIC) {
        for (int64_t s = c->seq / 2; s >= 128; s /= 2) {
            t = *c;
            t.seq = s;
            if (try_fit(&t, &m)) {
                snprintf(what, sizeof what, "seq=%lld", (long long)s);
                add(&a, what, &t, &m);
                break;
            }
        }
    }
    if (a.n == 1)
        combined(c, &a);
    return a.n;
}
