/* The charts of one plan in a report (report.h): each figure is the
 * engine's, evaluated again where a chart varies one input (micro-batch,
 * sequence, precision, GPU count). */
#include "ft_text.h"
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"
#include "precision.h"
#include "recipe.h"
#include "scaling.h"
#include "svg.h"

#define GIB      (1024.0 * 1024.0 * 1024.0)
#define MAX_PTS  48
#define MAX_SEQS 16
#define MAX_GPUS 8

/* Memory per GPU as stacked parts against the capacity and the usable
 * memory. */
static void memory_breakdown(report *r, const tplan_plan *p)
{
    const tplan_memory *m = &p->mem;
    static const char *const fields[] = {"weights_bytes", "grads_bytes",
                                         "optimizer_bytes", "activations_bytes",
                                         "overhead_bytes"};
    static const char *const names[] = {
        "weights", "gradients", "optimizer states and master copy",
        "activations", "overhead (context, NCCL, buckets, gathers, step)"};
    double parts[5] = {(double)m->weights_bytes, (double)m->grads_bytes,
                       (double)m->optimizer_bytes, (double)m->activations_bytes,
                       (double)m->overhead_bytes};
    double total = (double)m->total_bytes, cap = (double)m->capacity_bytes;
    svg_axis x = {0.0,   fmax(total, cap) * 1.02, false,
                  false, "memory per GPU (GiB)",  GIB};
    svg_axis y = {0.0, 1.0, false, false, NULL, 0.0};
    svg_chart c;
    char note[160];

    svg_begin(&c, r->f, "memory-breakdown",
              "Memory per GPU by part, against the capacity", x, y);
    svg_stack(&c, 5, fields, names, parts);
    svg_vline(&c, "usable_bytes", (double)m->usable_bytes, "usable");
    svg_vline(&c, "capacity_bytes", cap, "capacity");
    snprintf(note, sizeof note,
             "total %.2f GiB of %.2f GiB usable (capacity less the reserve): "
             "%s, fit confidence %s",
             total / GIB, (double)m->usable_bytes / GIB,
             m->fits ? "fits" : "does not fit",
             tplan_fit_confidence_name(m->fit_confidence));
    svg_end(&c, note);
}

/* Total memory and activations at micro-batches 1..B, with the usable
 * line and the largest micro-batch that fits. */
static void memory_vs_micro_batch(report *r, const tplan_config *base,
                                  const tplan_plan *p)
{
    tplan_config c = *base;
    tplan_memory m_;
    double b[MAX_PTS], tot[MAX_PTS], act[MAX_PTS];
    int64_t bmax = p->mem.max_micro_batch, hi;
    int n = 0;
    svg_chart ch;
    svg_axis x = {1.0, 1.0, false, false, "micro-batch (samples)", 0.0};
    svg_axis y = {0.0, 0.0, false, false, "memory per GPU (GiB)", GIB};
    char label[64];

    if (bmax >= TPLAN_MICRO_BATCH_UNBOUNDED)
        return; /* memory does not grow with the batch */
    hi = bmax > 0 ? bmax + bmax / 4 + 2 : 8;
    if (p->micro_batch > hi)
        hi = p->micro_batch;
    /* every micro-batch up to MAX_PTS, else MAX_PTS - 2 spread
     * geometrically up to hi, with the plan's and the largest that fits
     * among them, in order */
    {
        int64_t want[MAX_PTS];
        int m = 0;

        if (hi <= MAX_PTS) {
            for (int64_t v = 1; v <= hi; v++)
                want[m++] = v;
        } else {
            int64_t extra[2] = {p->micro_batch, bmax};

            for (int i = 0; i < MAX_PTS - 2; i++) {
                int64_t v = (int64_t)llround(
                    pow((double)hi, (double)i / (MAX_PTS - 3)));

                if (m == 0 || v > want[m - 1])
                    want[m++] = v;
            }
            for (int e = 0; e < 2; e++) {
                int j = m;

                if (extra[e] < 1)
                    continue;
                for (int i = 0; i < m; i++)
                    if (want[i] == extra[e])
                        j = -1;
                if (j < 0)
                    continue;
                while (j > 0 && want[j - 1] > extra[e]) {
                    want[j] = want[j - 1];
                    j--;
                }
                want[j] = extra[e];
                m++;
            }
        }
        for (int i = 0; i < m; i++) {
            c.micro_batch = want[i];
            tplan_memory_eval(&c, &m_);
            if (m_.out_of_range)
                break;
            b[n] = (double)want[i];
            tot[n] = (double)m_.total_bytes;
            act[n] = (double)m_.activations_bytes;
            n++;
        }
    }
    if (n < 2)
        return;
    x.hi = b[n - 1];
    y.hi = fmax(tot[n - 1], (double)p->mem.capacity_bytes);
    svg_begin(&ch, r->f, "memory-vs-micro-batch",
              "Memory per GPU against micro-batch", x, y);
    svg_series(&ch, "total_bytes", 0, n, b, tot);
    svg_series(&ch, "activations_bytes", 1, n, b, act);
    svg_hline(&ch, "usable_bytes", (double)p->mem.usable_bytes, "usable");
    svg_hline(&ch, "capacity_bytes", (double)p->mem.capacity_bytes, "capacity");
    if (bmax > 0) {
        snprintf(label, sizeof label, "largest that fits: %lld",
                 (long long)bmax);
        svg_vline(&ch, "max_micro_batch", (double)bmax, label);
    }
    svg_end(&ch, bmax > 0 ? NULL
                          : "Not even one sample fits: the model states "
                            "alone exceed the usable memory.");
}

/* The largest micro-batch at sequence lengths 256 .. 4 x seq, for the
 * plan's precision and the common alternatives. */
static void max_batch_vs_seq(report *r, const tplan_config *base)
{
    static const tplan_precision alts[] = {TPLAN_PREC_MIXED_BF16,
                                           TPLAN_PREC_FP32, TPLAN_PREC_FP8};
    tplan_precision precs[4];
    int np = 0, drawn = 0;
    double seqs[MAX_SEQS];
    int ns = 0;
    double ys[4][MAX_SEQS], top = 1.0;
    svg_chart ch;
    svg_axis x = {0.0, 0.0, true, false, "sequence length (tokens)", 0.0};
    svg_axis y = {0.0, 0.0, false, false, "largest micro-batch (samples)", 0.0};

    if (base->model.arch == TPLAN_ARCH_GENERIC)
        return;
    precs[np++] = base->precision;
    /* a frozen quantized base (QLoRA) trains in its own precision only:
     * fp32 and fp8 lines would be choices the plan cannot make (issue 35) */
    for (size_t i = 0; i < sizeof alts / sizeof *alts &&
                       !tplan_base_quantized(base->base_precision);
         i++)
        if (alts[i] != base->precision)
            precs[np++] = alts[i];
    for (double s = 256.0;
         s <= fmax(4.0 * (double)base->seq, 8192.0) && ns < MAX_SEQS - 1;
         s *= 2.0)
        seqs[ns++] = s;
    /* the plan's own sequence, in order, when it is not a power of two
     * from 256 */
    {
        double own = (double)base->seq;
        int j = ns;
        bool have = false;

        for (int i = 0; i < ns; i++)
            have = have || seqs[i] == own;
        if (!have && own >= 1.0) {
            while (j > 0 && seqs[j - 1] > own) {
                seqs[j] = seqs[j - 1];
                j--;
            }
            seqs[j] = own;
            ns++;
        }
    }
    for (int k = 0; k < np; k++) {
        tplan_config c = *base;
        bool any = false;

        c.precision = precs[k];
        c.micro_batch = 0;
        for (int i = 0; i < ns; i++) {
            tplan_memory m;

            c.seq = (int64_t)seqs[i];
            ys[k][i] = (double)NAN;
            if (tplan_config_validate(&c, NULL) != TPLAN_OK)
                continue;
            tplan_memory_eval(&c, &m);
            if (m.out_of_range ||
                m.max_micro_batch >= TPLAN_MICRO_BATCH_UNBOUNDED)
                continue;
            ys[k][i] = (double)m.max_micro_batch;
            top = fmax(top, ys[k][i]);
            any = true;
        }
        if (!any)
            precs[k] = TPLAN_PREC_COUNT; /* not drawn */
    }
    x.lo = seqs[0];
    x.hi = seqs[ns - 1];
    y.hi = top;
    svg_begin(&ch, r->f, "max-micro-batch-vs-seq",
              "Largest micro-batch that fits against sequence length, by "
              "precision",
              x, y);
    for (int k = 0; k < np; k++)
        if (precs[k] != TPLAN_PREC_COUNT)
            svg_series(&ch, tplan_precision_get(precs[k])->name, drawn++, ns,
                       seqs, ys[k]);
    svg_end(&ch, "0: not even one sample fits. Each line is the plan with "
                 "only the precision and sequence changed.");
}

/* Seconds per step by part, against the step time. */
static void step_breakdown(report *r, const tplan_plan *p)
{
    const tplan_perf *f = &p->perf;
    static const char *const fields[] = {"compute_s",
                                         "bubble_s",
                                         "tp_exposed_s",
                                         "pp_comm_s",
                                         "dp_exposed_s",
                                         "optimizer_s",
                                         "offload_time_s+dequant_s",
                                         "ep_exposed_s+cp_exposed_s"};
    static const char *const names[] = {
        "compute (matmuls, attention)",
        "pipeline bubble",
        "tensor-parallel communication not hidden",
        "pipeline sends",
        "data-parallel communication not hidden",
        "optimizer step",
        "offload and dequantization",
        "expert and context exchange"};
    double parts[8] = {f->compute_s,
                       f->bubble_s,
                       f->tp_exposed_s,
                       f->pp_comm_s,
                       f->dp_exposed_s,
                       f->optimizer_s,
                       f->offload_s + f->dequant_s,
                       f->ep_exposed_s + f->cp_exposed_s};
    double sum = 0.0;
    svg_axis x = {0.0, 0.0, false, false, "seconds per step", 0.0};
    svg_axis y = {0.0, 1.0, false, false, NULL, 0.0};
    svg_chart c;
    char note[160];

    if (!f->timed)
        return;
    for (int i = 0; i < 8; i++)
        sum += parts[i];
    x.hi = fmax(sum, f->step_time_s) * 1.02;
    svg_begin(&c, r->f, "step-time-breakdown",
              "Step time by part (one GPU's view of one optimizer step)", x, y);
    svg_stack(&c, 8, fields, names, parts);
    svg_vline(&c, "step_time_s", f->step_time_s, "step");
    snprintf(note, sizeof note,
             "step %.4g s (band %.4g to %.4g s), MFU %.1f%%, %.4g tokens/s",
             f->step_time_s, f->step_time_s_lo, f->step_time_s_hi,
             f->mfu * 100.0, f->tokens_per_s);
    svg_end(&c, note);
}

/* The plan at other GPU counts with its global batch: cost against time
 * (the Pareto front highlighted), throughput and scaling efficiency. */
static void gpu_scaling(report *r, const tplan_config *base,
                        const tplan_plan *p)
{
    int64_t gpus[MAX_GPUS];
    int n = 0;
    tplan_scaling_row *rows;
    tplan_err err;
    double g[MAX_GPUS], tps[MAX_GPUS], eff[MAX_GPUS], t[MAX_GPUS],
        cost[MAX_GPUS];
    bool front[MAX_GPUS], fits[MAX_GPUS];
    svg_chart ch;

    if (!p->perf.timed)
        return;
    for (int k = -3; k <= 4 && n < MAX_GPUS; k++) {
        double v = (double)base->gpus * exp2((double)k);

        if (v >= 1.0 && v == floor(v) && v <= 1e6)
            gpus[n++] = (int64_t)v;
    }
    if (!(rows = calloc((size_t)n, sizeof *rows)))
        return;
    /* a count the rules refuse (layout, interleaving's accumulation) or
     * that cannot keep the global batch exactly is left out, not the
     * chart: the charts compare runs of one global batch */
    {
        int kept = 0;

        for (int i = 0; i < n; i++)
            if (tplan_scaling_eval(base, &gpus[i], 1, rows, &err) ==
                    TPLAN_OK &&
                rows[0].exact_batch)
                gpus[kept++] = gpus[i];
        n = kept;
    }
    if (n < 2 || tplan_scaling_eval(base, gpus, n, rows, &err) != TPLAN_OK) {
        free(rows);
        return;
    }
    for (int i = 0; i < n; i++) {
        const tplan_plan *q = &rows[i].plan;

        g[i] = (double)gpus[i];
        tps[i] = q->perf.tokens_per_s;
        eff[i] = rows[i].efficiency * 100.0;
        t[i] = q->run.has_budget ? q->run.time_h : (double)NAN;
        fits[i] = q->mem.fits;
        cost[i] = q->run.has_budget ? q->run.cost_usd : (double)NAN;
    }
    {
        svg_axis x = {g[0], g[n - 1], true, false, "GPUs", 0.0};
        /* log-log, as the GPU axis is log2: linear scaling draws as a
         * straight line, not a convex curve that reads super-linear
         * (issue 35) */
        svg_axis y = {(double)INFINITY, 0.0, false, true,
                      "throughput (tokens/s)", 0.0};

        for (int i = 0; i < n; i++) {
            y.hi = fmax(y.hi, tps[i]);
            if (tps[i] > 0.0)
                y.lo = fmin(y.lo, tps[i]);
        }
        svg_begin(&ch, r->f, "throughput-vs-gpus",
                  "Throughput against GPU count, same global batch", x, y);
        svg_series(&ch, "tokens_per_s", 0, n, g, tps);
        svg_end(&ch, NULL);
        /* fitted to the data and the 100% of linear scaling, which is
         * drawn */
        y.lo = y.hi = 100.0;
        y.log10 = false;
        for (int i = 0; i < n; i++) {
            y.lo = fmin(y.lo, eff[i]);
            y.hi = fmax(y.hi, eff[i]);
        }
        y.label = "scaling efficiency (%)";
        svg_begin(&ch, r->f, "efficiency-vs-gpus",
                  "Scaling efficiency against GPU count", x, y);
        svg_hline(&ch, "linear", 100.0, "linear scaling");
        svg_series(&ch, "efficiency", 1, n, g, eff);
        svg_end(&ch, "Per-GPU throughput over the smallest count's. Counts "
                     "that cannot keep the global batch exactly are left "
                     "out.");
    }
    if (p->run.has_budget) {
        svg_axis x = {(double)INFINITY,        0.0, false, true,
                      "time to train (hours)", 0.0};
        svg_axis y = {(double)INFINITY, 0.0, false, true, "cost (USD)", 0.0};

        for (int i = 0; i < n; i++)
            if (isfinite(t[i])) {
                x.lo = fmin(x.lo, t[i]);
                x.hi = fmax(x.hi, t[i]);
                y.lo = fmin(y.lo, cost[i]);
                y.hi = fmax(y.hi, cost[i]);
            }
        report_pareto(n, t, cost, fits, front);
        svg_time_axis(&x);
        svg_begin(&ch, r->f, "cost-vs-time",
                  "Cost against time at each GPU count (filled: the Pareto "
                  "front)",
                  x, y);
        for (int i = 0; i < n; i++) {
            char label[64];

            snprintf(label, sizeof label, "%lld GPU%s", (long long)gpus[i],
                     gpus[i] == 1 ? "" : "s");
            svg_point(&ch, front[i] ? "pareto" : "dominated", front[i] ? 0 : 1,
                      t[i], cost[i], front[i], label);
        }
        /* every point named where there is room (issue 35: "hover a
         * point" is lost in a screenshot or print): the front's first */
        for (int pass = 0; pass < 2; pass++)
            for (int i = 0; i < n; i++)
                if (front[i] == (pass == 0)) {
                    char label[64];

                    snprintf(label, sizeof label, "%lld GPU%s",
                             (long long)gpus[i], gpus[i] == 1 ? "" : "s");
                    svg_point_label(&ch, t[i], cost[i], label);
                }
        svg_end(&ch, "Each point is a GPU count, named where there is room "
                     "(its tooltip names it too).");
    }
    free(rows);
}

/* The learning rate over the run's optimizer steps. */
static void lr_schedule(report *r, const tplan_plan *p)
{
    const tplan_lr_schedule *s = &p->lr.schedule;
    /* 2 MAX_PTS samples and the end of warmup */
    double x[MAX_PTS * 2 + 1], y[MAX_PTS * 2 + 1];
    int n = 0;
    svg_chart ch;
    svg_axis ax = {0.0, 0.0, false, false, "optimizer step", 0.0};
    svg_axis ay = {0.0, 0.0, false, false, "learning rate", 0.0};
    char label[64];

    if (!(s->peak > 0.0) || s->total_steps < 2)
        return;
    for (int i = 0; i < MAX_PTS * 2; i++) {
        int64_t st = (int64_t)llround((double)(s->total_steps - 1) * i /
                                      (MAX_PTS * 2 - 1));

        /* the end of warmup exactly, where the line turns */
        if (n > 0 && x[n - 1] < (double)s->warmup_steps &&
            (double)st > (double)s->warmup_steps) {
            x[n] = (double)s->warmup_steps;
            y[n] = tplan_lr_at(s, s->warmup_steps);
            n++;
        }
        x[n] = (double)st;
        y[n] = tplan_lr_at(s, st);
        n++;
    }
    ax.hi = (double)(s->total_steps - 1);
    ay.hi = s->peak;
    svg_begin(&ch, r->f, "lr-schedule", "Learning-rate schedule with warmup",
              ax, ay);
    svg_series(&ch, tplan_schedule_name(s->kind), 0, n, x, y);
    snprintf(label, sizeof label, "warmup %lld steps",
             (long long)s->warmup_steps);
    if (s->warmup_steps > 0)
        svg_vline(&ch, "warmup_steps", (double)s->warmup_steps, label);
    svg_hline(&ch, "lr_peak", s->peak, "peak");
    svg_end(&ch, NULL);
}

/* The plan's main figures, one row. */
static void plan_table(report *r, const tplan_plan *p)
{
    static const char *const heads[] = {
        "GPUs",        "tp",       "pp",           "dp",        "zero",
        "micro-batch", "accum",    "global batch", "total GiB", "fits",
        "step s",      "tokens/s", "MFU",          "hours",     "USD"};
    char buf[32];

    report_table_begin(r, "plan", "The plan", 15, heads);
    report_row_begin(r);
    report_cell_num(r, "gpus", (double)p->config.gpus, NULL);
    report_cell_num(r, "tp", (double)p->config.tp, NULL);
    report_cell_num(r, "pp", (double)p->config.pp, NULL);
    report_cell_num(r, "dp", (double)p->dp, NULL);
    report_cell_num(r, "zero", (double)p->config.zero, NULL);
    report_cell_num(r, "micro_batch", (double)p->micro_batch, NULL);
    report_cell_num(r, "accum", (double)p->accum, NULL);
    report_cell_num(r, "global_batch", (double)p->global_batch, NULL);
    snprintf(buf, sizeof buf, "%.2f", (double)p->mem.total_bytes / GIB);
    report_cell_num(r, "total_bytes", (double)p->mem.total_bytes, buf);
    report_cell_text(r, "fits", p->mem.fits ? "yes" : "no");
    report_cell_num(r, "step_time_s",
                    p->perf.timed ? p->perf.step_time_s : (double)NAN, NULL);
    report_cell_num(r, "tokens_per_s",
                    p->perf.timed ? p->perf.tokens_per_s : (double)NAN, NULL);
    report_cell_num(r, "mfu", p->perf.timed ? p->perf.mfu : (double)NAN, NULL);
    report_cell_num(r, "time_h",
                    p->run.has_budget ? p->run.time_h : (double)NAN, NULL);
    report_cell_num(r, "cost_usd",
                    p->run.has_budget ? p->run.cost_usd : (double)NAN, NULL);
    report_row_end(r);
    report_table_end(r);
}

/* What a fine-tune trains and how long an epoch takes, under the plan's
 * table (issue 35: a QLoRA plan's report never said LoRA, QLoRA or nf4). */
static void finetune_facts(report *r, const tplan_plan *p)
{
    const tplan_config *c = &p->config;
    char text[300], epoch[200];

    ft_text(text, sizeof text, p);
    if (!text[0] && !c->finetune)
        return;
    if (!text[0])
        snprintf(text, sizeof text, "Full fine-tune: every one of %lld "
                                    "parameters trains",
                 (long long)p->params);
    epoch[0] = '\0';
    if (p->run.has_budget && c->dataset_samples > 0 && p->perf.timed) {
        double epochs = p->run.per_epoch || c->epochs <= 0 ? 1.0 : c->epochs;

        snprintf(epoch, sizeof epoch,
                 "; %g epoch%s of %.0f samples, %.3g h per epoch", epochs,
                 epochs == 1.0 ? "" : "s", c->dataset_samples,
                 p->run.time_h / epochs);
    }
    {
        char all[520];

        snprintf(all, sizeof all, "%s%s.", text, epoch);
        report_section(r, "Fine-tune", all);
    }
}

void report_plan(report *r, const tplan_config *c, const tplan_plan *p)
{
    plan_table(r, p);
    finetune_facts(r, p);
    report_section(r, "Memory", NULL);
    memory_breakdown(r, p);
    memory_vs_micro_batch(r, c, p);
    max_batch_vs_seq(r, c);
    if (p->perf.timed) {
        report_section(r, "Time, cost and scaling", NULL);
        step_breakdown(r, p);
        gpu_scaling(r, c, p);
    }
    if (p->lr.set && p->lr.schedule.peak > 0.0) {
        report_section(r, "Learning rate", NULL);
        lr_schedule(r, p);
    }
}
