/* `tplan report DB [--sweep NAME|ID] -o FILE.html`: a sweep of a result
 * database as an HTML report: cost against time (the Pareto front
 * highlighted), throughput and scaling efficiency against GPU count, the
 * ranked plans, and the best plan's own charts (report_plan), evaluated
 * again from the inputs its row records. */
#include "report_cmd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "calc_opts.h"
#include "fields.h"
#include "fit_note.h"
#include "framework.h"
#include "json.h"
#include "paths.h"
#include "robust.h"
#include "report.h"
#include "report_axes.h"
#include "store.h"
#include "svg.h"

#define MAX_POINTS 20000 /* cost/time marks drawn (the best by rank) */
#define MAX_ROWS   50    /* ranked plans in the table */
#define MAX_GPUS   64    /* distinct GPU counts on the scaling charts */
#define MAX_ROBUST 20    /* kept plans ranked again under the assumptions */

typedef struct sweep_row {
    int64_t id, kept, space;
    char name[128], finished[40], rank_by[128], axes[640];
    bool found, mixed; /* mixed: fits_first = 0 */
} sweep_row;

static int on_sweep(void *ud, int ncols, const char *const *names,
                    const tplan_cell *row)
{
    sweep_row *s = ud;

    (void)names;
    if (!row || ncols < 8)
        return 0;
    s->found = true;
    s->id = row[0].i;
    snprintf(s->name, sizeof s->name, "%s",
             row[1].type == TPLAN_CELL_TEXT ? row[1].s : "");
    s->kept = row[2].type == TPLAN_CELL_INT ? row[2].i : 0;
    s->space = row[3].type == TPLAN_CELL_INT ? row[3].i : 0;
    snprintf(s->finished, sizeof s->finished, "%s",
             row[4].type == TPLAN_CELL_TEXT ? row[4].s : "");
    snprintf(s->rank_by, sizeof s->rank_by, "%s",
             row[5].type == TPLAN_CELL_TEXT ? row[5].s : "");
    snprintf(s->axes, sizeof s->axes, "%s",
             row[6].type == TPLAN_CELL_TEXT ? row[6].s : "");
    s->mixed = row[7].type == TPLAN_CELL_INT && row[7].i == 0;
    return 0;
}

/* The plans' figures the sweep charts use, best first. */
typedef struct points {
    int64_t n, cap;
    double *time_h, *cost;
    int64_t *rowid;
    bool *fits, *pareto;
} points;

static int on_point(void *ud, int ncols, const char *const *names,
                    const tplan_cell *row)
{
    points *p = ud;

    (void)names;
    if (!row || ncols < 4 || p->n >= p->cap)
        return 0;
    p->time_h[p->n] = tplan_cell_number(&row[0]);
    p->cost[p->n] = tplan_cell_number(&row[1]);
    p->fits[p->n] = tplan_cell_number(&row[2]) != 0.0;
    p->rowid[p->n] = row[3].type == TPLAN_CELL_INT ? row[3].i : -1;
    p->n++;
    return 0;
}

/* The ranked-plans table: every column by its field name. */
typedef struct table_ctx {
    report *r;
    bool head;
} table_ctx;

static int on_table_row(void *ud, int ncols, const char *const *names,
                        const tplan_cell *row)
{
    table_ctx *t = ud;

    if (!row) {
        report_table_begin(t->r, "ranked", "The best plans, by rank", ncols,
                           names);
        t->head = true;
        return 0;
    }
    report_row_begin(t->r);
    for (int i = 0; i < ncols; i++) {
        char buf[32];

        if (row[i].type == TPLAN_CELL_TEXT)
            report_cell_text(t->r, names[i], row[i].s);
        else if (row[i].type == TPLAN_CELL_NULL)
            report_cell_text(t->r, names[i], NULL);
        else if (strcmp(names[i], "total_bytes") == 0) {
            snprintf(buf, sizeof buf, "%.2f GiB",
                     tplan_cell_number(&row[i]) / (1024.0 * 1024.0 * 1024.0));
            report_cell_num(t->r, names[i], tplan_cell_number(&row[i]), buf);
        } else
            report_cell_num(t->r, names[i], tplan_cell_number(&row[i]), NULL);
    }
    report_row_end(t->r);
    return 0;
}

/* The ranked table's SELECT: the rank, every axis the sweep varied
 * (what tells its plans apart), then the figures. Plans that fit first
 * unless the sweep mixed them by name. */
static void table_sql(const sweep_row *sw, char *sql, size_t len)
{
    static const char *const figures[] = {
        "gpus",        "tp",        "pp",           "dp",
        "zero",        "precision", "recompute",    "seq",
        "micro_batch", "accum",     "global_batch", "fits",
        "total_bytes", "step_time_s", "tokens_per_s", "mfu",
        "time_h",      "cost_usd",  NULL};
    size_t n = (size_t)snprintf(sql, len, "SELECT rank");
    const char *p = sw->axes;
    char name[64];

    while (n < len && tplan_list_next(&p, name, sizeof name))
        if (tplan_field_find(name) >= 0) /* never pasted otherwise */
            n += (size_t)snprintf(sql + n, len - n, ", %s", name);
    for (int i = 0; figures[i] && n < len; i++)
        if (!tplan_list_has(sw->axes, figures[i]))
            n += (size_t)snprintf(sql + n, len - n, ", %s", figures[i]);
    if (n < len)
        snprintf(sql + n, len - n,
                 " FROM plans WHERE sweep_id = ?1 AND rank IS NOT NULL "
                 "ORDER BY %srank LIMIT ?2",
                 sw->mixed ? "" : "fits = 0, ");
}

/* The best plan's inputs as calc options, from its row. */
typedef struct rebuild {
    const char *argv[512];
    int argc;
    char store[64 * 1024];
    size_t used;
    const char *axes; /* the sweep's, to name the plan by */
    /* the row's standing: does it fit, how far off, its rank and axes */
    bool fits;
    int64_t rank, total, usable, host, host_cap;
    char named[640];
} rebuild;

/* Inputs a row records that calc derives from others, or that are
 * outputs as well (the budget used): passing both would conflict. */
static bool derived(const char *name)
{
    /* efficiency: the row holds the one used, which as an input would
     * pin attention's too */
    static const char *const skip[] = {"global_batch_tokens", "epochs",
                                       "dataset", "batch_ramp",
                                       "efficiency", NULL};

    for (int i = 0; skip[i]; i++)
        if (strcmp(skip[i], name) == 0)
            return true;
    return false;
}

/* What the best plan's section says of a row: whether it fits, how far
 * off it is, and its values of the sweep's axes. */
static void standing(rebuild *b, const char *name, const tplan_cell *c)
{
    int64_t v = c->type == TPLAN_CELL_INT ? c->i : 0;
    size_t n = strlen(b->named);

    if (strcmp(name, "fits") == 0)
        b->fits = v != 0;
    else if (strcmp(name, "rank") == 0)
        b->rank = v;
    else if (strcmp(name, "total_bytes") == 0)
        b->total = v;
    else if (strcmp(name, "usable_bytes") == 0)
        b->usable = v;
    else if (strcmp(name, "host_bytes") == 0)
        b->host = v;
    else if (strcmp(name, "host_memory_gib") == 0)
        b->host_cap = tplan_store_host_bytes(c);
    if (c->type != TPLAN_CELL_NULL && tplan_list_has(b->axes, name) &&
        n < sizeof b->named) {
        char val[64];

        if (c->type == TPLAN_CELL_TEXT)
            snprintf(val, sizeof val, "%s", c->s);
        else
            fmt_double(val, sizeof val, tplan_cell_number(c));
        snprintf(b->named + n, sizeof b->named - n, "%s%s %s", n ? ", " : "",
                 name, val);
    }
}

static int on_inputs(void *ud, int ncols, const char *const *names,
                     const tplan_cell *row)
{
    rebuild *b = ud;

    if (!row)
        return 0;
    b->argc = 0;
    b->argv[b->argc++] = "calc";
    b->named[0] = '\0';
    for (int i = 0; i < ncols && b->argc < 510; i++) {
        int id = tplan_field_find(names[i]);
        const tplan_field *f = id >= 0 ? tplan_field_at(id) : NULL;
        char val[512], *slot;
        int n;

        standing(b, names[i], &row[i]);

        if (!f || !(f->flags & TPLAN_FIELD_IN) || !f->flag ||
            row[i].type == TPLAN_CELL_NULL || derived(f->input))
            continue;
        if (row[i].type == TPLAN_CELL_TEXT)
            snprintf(val, sizeof val, "%s", row[i].s);
        else if (f->kind == TPLAN_FK_BOOL)
            snprintf(val, sizeof val, "%s", row[i].i ? "true" : "false");
        else
            fmt_double(val, sizeof val, tplan_cell_number(&row[i]));
        n = snprintf(b->store + b->used, sizeof b->store - b->used, "%s=%s",
                     f->flag, val);
        if (n < 0 || (size_t)n >= sizeof b->store - b->used)
            return 1;
        slot = b->store + b->used;
        b->used += (size_t)n + 1;
        b->argv[b->argc++] = slot;
    }
    return 0;
}

static void best_plan(report *r, tplan_store *db, const sweep_row *sw)
{
    int64_t sweep = sw->id;
    rebuild *b = calloc(1, sizeof *b);
    tplan_cell id = {TPLAN_CELL_INT, sweep, 0.0, NULL};
    tplan_config c;
    calc_out out;
    tplan_plan *p = malloc(sizeof *p);
    tplan_err err;

    /* the best plan that fits, whatever order the sweep ranked in (a
     * plan that does not fit is never called best); where none fits,
     * the closest, said so */
    if (!b || !p ||
        (b->axes = sw->axes,
         tplan_store_query(db,
                           "SELECT * FROM plans WHERE sweep_id = ?1 AND "
                           "rank IS NOT NULL ORDER BY fits DESC, rank LIMIT 1",
                           &id, 1, on_inputs, b, &err)) != TPLAN_OK ||
        b->argc < 2) {
        report_section(r, "The best plan", NULL);
        fputs("<p class=\"note\">No ranked plan to show.</p>\n", r->f);
        goto out;
    }
    if (b->fits) {
        char sub[800];

        snprintf(sub, sizeof sub,
                 "Rank %lld%s%s, the first that fits, evaluated again from "
                 "the inputs its row records.",
                 (long long)b->rank, b->named[0] ? ": " : "", b->named);
        report_section(r, "The best plan", sub);
    } else {
        char gap[160], sub[1000];

        fit_gap_text(gap, sizeof gap, b->total, b->usable, b->host,
                     b->host_cap);
        snprintf(sub, sizeof sub,
                 "No plan fits. The closest (rank %lld%s%s) %s; it is shown "
                 "below, evaluated again from the inputs its row records, "
                 "so its memory shows what to change.",
                 (long long)b->rank, b->named[0] ? ": " : "", b->named, gap);
        report_section(r, "No plan fits: the closest", sub);
    }
    /* calc's parser says what it refuses on stderr, as for calc */
    if (calc_parse(b->argc, b->argv, &c, &out) == 0 &&
        tplan_plan_eval(&c, p, &err) == TPLAN_OK) {
        report_plan(r, &c, p);
    } else {
        fputs("tplan: warning: report: the best plan cannot be evaluated "
              "again from its row (a model or GPU from a script or file is "
              "not a preset?): its own charts are left out\n",
              stderr);
        fputs("<p class=\"note\">Its charts need the plan evaluated again "
              "from its row, which failed (a model or GPU from a script or "
              "a file is not a preset): tplan calc with the plan's options "
              "and --report draws them.</p>\n",
              r->f);
    }
out:
    free(b);
    free(p);
}

/* ---- Does the best plan stay best? ----------------------------------- */

/* The kept plans as calc rebuilds them from their rows, with each row's
 * options kept for naming what tells two plans apart. */
typedef struct kept_rows {
    rebuild b;
    tplan_config c[MAX_ROBUST];
    char args[MAX_ROBUST][8192]; /* "--flag=value" strings, NUL-separated */
    size_t len[MAX_ROBUST];
    int n;
    bool failed;
} kept_rows;

static int on_kept(void *ud, int ncols, const char *const *names,
                   const tplan_cell *row)
{
    kept_rows *k = ud;
    calc_out out;
    size_t from;

    if (!row || k->failed || k->n >= MAX_ROBUST)
        return 0;
    k->b.used = 0;
    if (on_inputs(&k->b, ncols, names, row) || k->b.argc < 2) {
        k->failed = true;
        return 0;
    }
    from = (size_t)(k->b.argv[1] - k->b.store);
    if (k->b.used - from > sizeof k->args[0] ||
        calc_parse(k->b.argc, k->b.argv, &k->c[k->n], &out) != 0) {
        k->failed = true;
        return 0;
    }
    memcpy(k->args[k->n], k->b.store + from, k->b.used - from);
    k->len[k->n] = k->b.used - from;
    k->n++;
    return 0;
}

/* Row i's value of option flag ("--ep"), or NULL. */
static const char *row_value(const kept_rows *k, int i, const char *flag)
{
    size_t fl = strlen(flag);

    for (size_t at = 0; at < k->len[i]; at += strlen(k->args[i] + at) + 1)
        if (strncmp(k->args[i] + at, flag, fl) == 0 &&
            k->args[i][at + fl] == '=')
            return k->args[i] + at + fl + 1;
    return NULL;
}

/* "EP 1, zero 3": plan a's values of the options where a and b differ
 * (what the kept rows vary, so the swept axes; the accumulation and
 * global batch follow from them and are left out). */
static void differing(const kept_rows *k, int a, int b, char *buf,
                      size_t len)
{
    static const char *const upper[] = {"tp", "pp", "ep", "cp", "dp", "vpp",
                                        NULL};
    size_t n = 0;

    buf[0] = '\0';
    for (size_t at = 0; at < k->len[a]; at += strlen(k->args[a] + at) + 1) {
        const char *opt = k->args[a] + at, *eq = strchr(opt, '=');
        char flag[64], name[64];
        const char *vb;
        size_t fl;
        int u;

        if (!eq || (fl = (size_t)(eq - opt)) >= sizeof flag)
            continue;
        memcpy(flag, opt, fl);
        flag[fl] = '\0';
        if (strcmp(flag, "--accum") == 0 || strcmp(flag, "--global-batch") == 0)
            continue;
        vb = row_value(k, b, flag);
        if (vb && strcmp(vb, eq + 1) == 0)
            continue;
        snprintf(name, sizeof name, "%s", flag + 2);
        for (u = 0; upper[u] && strcmp(upper[u], name) != 0; u++)
            ;
        for (char *q = name; upper[u] && *q; q++)
            *q = (char)(*q - 'a' + 'A');
        if (n < len)
            n += (size_t)snprintf(buf + n, len - n, "%s%s %s", n ? ", " : "",
                                  name, eq + 1);
    }
    if (!buf[0])
        snprintf(buf, len, "the same options");
}

/* Which assumptions the kept plans do not leave at their defaults: the
 * sweep's axes, those the rows vary, those a built-in framework sets,
 * and those whose
 * value differs from a default config's (the report cannot tell a value
 * given equal to the default from one left there). */
static void fixed_fields(const kept_rows *k, const char *axes, bool *fixed)
{
    tplan_config d = k->c[0];
    tplan_framework f;
    char name[64];

    memset(fixed, 0, (size_t)tplan_field_count());
    /* the sweep's axes (its row's, schema 3), whatever values the kept
     * plans happen to share */
    while (tplan_list_next(&axes, name, sizeof name))
        if (tplan_field_find(name) >= 0)
            fixed[tplan_field_find(name)] = true;
    tplan_config_init(&d);
    if (k->c[0].framework[0] &&
        tplan_framework_lookup(k->c[0].framework, &f, NULL) == TPLAN_OK) {
        tplan_framework_apply(&f, &d);
        for (int i = 0; i < f.n; i++)
            fixed[f.set[i].field] = true;
    }
    for (int i = 0; i < tplan_assumption_count(); i++) {
        const tplan_assumption *a = tplan_assumption_at(i);
        int id = tplan_assumption_field(a);
        double v = tplan_assumption_value(a, &k->c[0]);

        if (v != tplan_assumption_value(a, &d))
            fixed[id] = true;
        for (int j = 1; j < k->n; j++)
            if (tplan_assumption_value(a, &k->c[j]) != v)
                fixed[id] = true;
    }
}

static void robustness(report *r, tplan_store *db, const sweep_row *sw)
{
    int64_t sweep = sw->id;
    const char *rank_by = sw->rank_by;
    kept_rows *k = calloc(1, sizeof *k);
    bool *fixed = calloc((size_t)tplan_field_count(), 1);
    tplan_robust_out *out = malloc(sizeof *out);
    tplan_cell q[2] = {{TPLAN_CELL_INT, sweep, 0.0, NULL},
                       {TPLAN_CELL_INT, MAX_ROBUST, 0.0, NULL}};
    tplan_objective obj[TPLAN_MAX_OBJECTIVES];
    tplan_robust_in in = {0};
    tplan_err err;
    char names[128], *tok, *save = NULL, first[512], other[512];

    report_section(r, "Does the best plan stay best?", NULL);
    if (!k || !fixed || !out)
        goto out;
    snprintf(names, sizeof names, "%s", rank_by);
    for (tok = strtok_r(names, ",", &save); tok && in.n_rank < TPLAN_MAX_OBJECTIVES;
         tok = strtok_r(NULL, ",", &save)) {
        bool max;

        if (tplan_metric_parse(tok, &obj[in.n_rank].metric, &max, &err) ||
            obj[in.n_rank].metric == TPLAN_M_SCORE) {
            fputs("<p class=\"note\">The sweep ranks by a score its script "
                  "computed, which the report cannot compute again.</p>\n",
                  r->f);
            goto out;
        }
        obj[in.n_rank++].maximize = max;
    }
    if (tplan_store_query(db,
                          "SELECT * FROM plans WHERE sweep_id = ?1 AND rank "
                          "IS NOT NULL ORDER BY rank LIMIT ?2",
                          q, 2, on_kept, k, &err) != TPLAN_OK ||
        k->failed || k->n == 0 || in.n_rank == 0) {
        fputs("<p class=\"note\">The kept plans cannot all be evaluated "
              "again from their rows (a model or GPU from a script or file "
              "is not a preset?).</p>\n",
              r->f);
        goto out;
    }
    fixed_fields(k, sw->axes, fixed);
    in.configs = k->c;
    in.n = k->n;
    in.rank = obj;
    in.fixed = fixed;
    if (tplan_robustness(&in, out, &err)) {
        fprintf(r->f, "<p class=\"note\">%s</p>\n", err.msg);
        goto out;
    }
    fprintf(r->f,
            "<p>The first %d kept plans, evaluated again from their rows "
            "with each assumption the sweep left at its default at either "
            "end of its plausible range (<code>tplan fields --json</code> "
            "gives the ranges and their sources), and ranked again: a plan "
            "that fits first, then by %s.</p>\n<ul class=\"robust\">\n",
            k->n, rank_by);
    for (int i = 0; i < out->n_flips; i++) {
        const tplan_robust_flip *f = &out->flips[i];
        char value[40];

        differing(k, out->first, f->top, first, sizeof first);
        differing(k, f->top, out->first, other, sizeof other);
        /* the shortest text that reads back to the value, as every
         * data-value of a report */
        fmt_double(value, sizeof value, f->value);
        fprintf(r->f,
                "<li data-field=\"%s\" data-value=\"%s\">%s first at %s "
                "%g; at %g, %s first (%+.1f%% %s%s)</li>\n",
                f->a->name, value, first, f->a->name, f->base, f->value,
                other, f->delta * 100.0, tplan_metric_name(obj[0].metric),
                out->first_fits && !f->first_fits
                    ? "; the first no longer fits there"
                    : "");
    }
    if (out->n_flips == 0) {
        fprintf(r->f, "<li>The first plan stays first at both ends of ");
        for (int i = 0; i < out->n_checked; i++)
            fprintf(r->f, "%s%s", i ? ", " : "", out->checked[i]->name);
        fprintf(r->f, "%s.</li>\n", out->n_checked ? "" : "every assumption "
                                                         "(none moves these "
                                                         "plans)");
    }
    if (out->band_checked && out->second >= 0) {
        differing(k, out->first, out->second, first, sizeof first);
        differing(k, out->second, out->first, other, sizeof other);
        fprintf(r->f,
                "<li>Step-time band: %s and the runner-up, %s, %s "
                "(docs/MODEL.md 14.3).</li>\n",
                first, other,
                out->band_tie ? "overlap: within the model's measured error "
                                "the two tie"
                              : "do not overlap");
    }
    fputs("</ul>\n", r->f);
out:
    free(k);
    free(fixed);
    free(out);
}

/* The front's points named by the axes that tell them apart (issue 35:
 * "tp2 ep4", not "hover a point", which a screenshot or print loses). */
#define MAX_FRONT_LABELS 16
#define MAX_TAG_AXES     12

typedef struct front_tags {
    int n_axes;
    char axis[MAX_TAG_AXES][64];
    char tag[MAX_TAG_AXES][40]; /* one row's, filled by on_tags */
} front_tags;

static int on_tags(void *ud, int ncols, const char *const *names,
                   const tplan_cell *row)
{
    front_tags *t = ud;

    (void)names;
    if (!row)
        return 0;
    for (int i = 0; i < ncols && i < t->n_axes; i++)
        report_axis_tag(t->tag[i], sizeof t->tag[i], t->axis[i], &row[i]);
    return 0;
}

static void front_labels(svg_chart *ch, tplan_store *db, const points *pt,
                         const char *axes)
{
    front_tags t;
    char tags[MAX_FRONT_LABELS][MAX_TAG_AXES][40];
    int64_t at[MAX_FRONT_LABELS];
    int n = 0;
    char sql[1200], name[64];
    size_t len = (size_t)snprintf(sql, sizeof sql, "SELECT ");
    tplan_err err;

    memset(&t, 0, sizeof t);
    while (t.n_axes < MAX_TAG_AXES && tplan_list_next(&axes, name, sizeof name))
        if (tplan_field_find(name) >= 0 && len < sizeof sql) {
            snprintf(t.axis[t.n_axes++], sizeof t.axis[0], "%s", name);
            len += (size_t)snprintf(sql + len, sizeof sql - len, "%s%s",
                                    t.n_axes > 1 ? ", " : "", name);
        }
    if (t.n_axes == 0 || len >= sizeof sql)
        return;
    snprintf(sql + len, sizeof sql - len, " FROM plans WHERE rowid = ?1");
    /* the front's fastest points first (the points are in rank order) */
    for (int64_t i = 0; i < pt->n && n < MAX_FRONT_LABELS; i++) {
        tplan_cell q = {TPLAN_CELL_INT, pt->rowid[i], 0.0, NULL};

        if (!pt->pareto[i] || pt->rowid[i] < 0)
            continue;
        memset(t.tag, 0, sizeof t.tag);
        if (tplan_store_query(db, sql, &q, 1, on_tags, &t, &err) != TPLAN_OK)
            return;
        memcpy(tags[n], t.tag, sizeof t.tag);
        at[n++] = i;
    }
    for (int k = 0; k < n; k++) {
        char label[200];
        size_t m = 0;

        label[0] = '\0';
        for (int a = 0; a < t.n_axes; a++) {
            bool differ = n == 1;

            for (int j = 0; j < n && !differ; j++)
                differ = strcmp(tags[j][a], tags[k][a]) != 0;
            if (differ && m < sizeof label)
                m += (size_t)snprintf(label + m, sizeof label - m, "%s%s",
                                      m ? " " : "", tags[k][a]);
        }
        svg_point_label(ch, pt->time_h[at[k]], pt->cost[at[k]], label);
    }
}

/* Cost against time for the sweep's plans, the Pareto front filled and
 * named. */
static void cost_time(report *r, tplan_store *db, const points *pt,
                      const char *axes)
{
    svg_axis x = {(double)INFINITY,        0.0, false, true,
                  "time to train (hours)", 0.0};
    svg_axis y = {(double)INFINITY, 0.0, false, true, "cost (USD)", 0.0};
    svg_chart ch;
    int64_t drawn = 0;

    for (int64_t i = 0; i < pt->n; i++)
        if (isfinite(pt->time_h[i]) && isfinite(pt->cost[i]) &&
            pt->time_h[i] > 0.0 && pt->cost[i] > 0.0) {
            x.lo = fmin(x.lo, pt->time_h[i]);
            x.hi = fmax(x.hi, pt->time_h[i]);
            y.lo = fmin(y.lo, pt->cost[i]);
            y.hi = fmax(y.hi, pt->cost[i]);
            drawn++;
        }
    if (drawn == 0)
        return;
    /* the front of these two objectives, whatever the sweep ranked by */
    report_pareto(pt->n, pt->time_h, pt->cost, pt->fits, pt->pareto);
    svg_time_axis(&x);
    svg_begin(&ch, r->f, "kept-cost-vs-time",
              "Cost against time of the kept plans (filled: the Pareto "
              "front)",
              x, y);
    /* the front last, on top */
    for (int pass = 0; pass < 2; pass++)
        for (int64_t i = 0; i < pt->n; i++)
            if (pt->pareto[i] == (pass == 1))
                svg_point(&ch,
                          pt->pareto[i] ? "pareto"
                          : pt->fits[i] ? "kept"
                                        : "no fit",
                          pt->pareto[i] ? 0 : pt->fits[i] ? 1 : 3,
                          pt->time_h[i], pt->cost[i], pt->pareto[i], NULL);
    front_labels(&ch, db, pt, axes);
    svg_end(&ch, pt->n >= MAX_POINTS
                     ? "Squares: plans that fit; diamonds: plans that do not. "
                       "The front's points are named by the axes that tell "
                       "them apart. The best 20,000 plans by rank are drawn."
                     : "Squares: plans that fit; diamonds: plans that do not. "
                       "The front's points are named by the axes that tell "
                       "them apart.");
}

/* The best throughput at each GPU count, as SQL groups it over every
 * kept plan of the sweep that fits (a plan that does not fit is never
 * the best of anything). */
typedef struct best_tps {
    int n;
    double g[MAX_GPUS], tps[MAX_GPUS];
} best_tps;

static int on_best(void *ud, int ncols, const char *const *names,
                   const tplan_cell *row)
{
    best_tps *b = ud;

    (void)names;
    if (!row || ncols < 2 || b->n == MAX_GPUS)
        return 0;
    b->g[b->n] = tplan_cell_number(&row[0]);
    b->tps[b->n++] = tplan_cell_number(&row[1]);
    return 0;
}

/* The best throughput at each GPU count and its scaling efficiency
 * against the smallest count's. */
static int scaling(report *r, tplan_store *db, int64_t sweep, tplan_err *err)
{
    tplan_cell id = {TPLAN_CELL_INT, sweep, 0.0, NULL};
    best_tps b = {0};
    double *g = b.g, *tps = b.tps, eff[MAX_GPUS];
    int n;
    svg_chart ch;

    if (tplan_store_query(db,
                          "SELECT gpus, max(tokens_per_s) FROM plans WHERE "
                          "sweep_id = ?1 AND fits AND gpus > 0 AND "
                          "tokens_per_s > 0 GROUP BY gpus ORDER BY gpus",
                          &id, 1, on_best, &b, err) != TPLAN_OK)
        return TPLAN_EIO;
    if ((n = b.n) < 2)
        return TPLAN_OK;
    for (int i = 0; i < n; i++)
        eff[i] = tps[i] / g[i] / (tps[0] / g[0]) * 100.0;
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
        svg_begin(&ch, r->f, "kept-throughput-vs-gpus",
                  "Best throughput among the kept plans that fit at each GPU "
                  "count",
                  x, y);
        svg_series(&ch, "tokens_per_s", 0, n, g, tps);
        svg_end(&ch, NULL);
        y.lo = y.hi = 100.0;
        y.log10 = false;
        for (int i = 0; i < n; i++) {
            y.lo = fmin(y.lo, eff[i]);
            y.hi = fmax(y.hi, eff[i]);
        }
        y.label = "scaling efficiency (%)";
        svg_begin(&ch, r->f, "kept-efficiency-vs-gpus",
                  "Scaling efficiency of the best plan at each GPU count", x,
                  y);
        svg_hline(&ch, "linear", 100.0, "linear scaling");
        svg_series(&ch, "efficiency", 1, n, g, eff);
        svg_end(&ch, "Per-GPU throughput of the best plan at each count "
                     "over the smallest count's (best plans may differ in "
                     "layout, so it can pass 100%).");
    }
    return TPLAN_OK;
}

static int report_usage(void)
{
    fputs("usage: tplan report DB [--sweep NAME|ID] -o FILE.html\n"
          "  a self-contained HTML report of one sweep (the latest by "
          "default)\n",
          stdout);
    return 0;
}

int cmd_report(int argc, char **argv)
{
    const char *dbpath = NULL, *out = NULL, *which = NULL;
    tplan_store *db = NULL;
    tplan_err err;
    sweep_row sw = {0};
    points pt = {0};
    report r = {0};
    int rc = 1;
    char title[200], sub[400];

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return report_usage();
        if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0 ||
            strcmp(argv[i], "--sweep") == 0) {
            if (i + 1 >= argc)
                return usage_error("%s needs a value", argv[i]);
            if (strcmp(argv[i], "--sweep") == 0)
                which = argv[++i];
            else
                out = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return usage_error("report: unknown option %s (valid: --sweep, "
                               "-o)",
                               argv[i]);
        } else if (!dbpath) {
            dbpath = argv[i];
        } else {
            return usage_error("report: one database (got %s and %s)", dbpath,
                               argv[i]);
        }
    }
    if (!dbpath || !out)
        return usage_error("usage: tplan report DB [--sweep NAME|ID] -o "
                           "FILE.html");
    if (!out[0])
        return usage_error("report: -o: an empty file name");
    if (tplan_same_file(dbpath, out))
        return usage_error("report: -o %s is the database itself: give "
                           "another file",
                           out);
    if (!(db = tplan_store_open_ro(dbpath, &err))) {
        fprintf(stderr, "tplan: %s\n", err.msg);
        return 1;
    }
    {
        tplan_cell p = {TPLAN_CELL_TEXT, 0, 0.0, which};
        char *end = NULL;
        long long id = which ? strtoll(which, &end, 10) : 0;
        char sql[400];

        snprintf(sql, sizeof sql,
                 "SELECT id, name, kept, space, finished_at, rank_by, %s "
                 "FROM sweeps %s",
                 tplan_store_sweep_spec_cols(db),
                 !which ? "ORDER BY id DESC LIMIT 1"
                 : end && *end == '\0' && end != which
                     ? "WHERE id = ?1"
                     : "WHERE name = ?1 ORDER BY id DESC LIMIT 1");

        if (which && end && *end == '\0' && end != which) {
            p.type = TPLAN_CELL_INT;
            p.i = id;
        }
        if (tplan_store_query(db, sql, &p, which ? 1 : 0, on_sweep, &sw,
                              &err) != TPLAN_OK) {
            fprintf(stderr, "tplan: %s\n", err.msg);
            goto done;
        }
        if (!sw.found) {
            fprintf(stderr, "tplan: report: %s: no sweep %s%s\n", dbpath,
                    which ? which : "in the database",
                    which ? " (tplan query DB \"SELECT id, name FROM sweeps\" "
                            "lists them)"
                          : "");
            goto done;
        }
    }
    pt.cap = MAX_POINTS;
    pt.time_h = malloc(sizeof(double) * MAX_POINTS);
    pt.cost = malloc(sizeof(double) * MAX_POINTS);
    pt.pareto = malloc(sizeof(bool) * MAX_POINTS);
    pt.fits = malloc(sizeof(bool) * MAX_POINTS);
    pt.rowid = malloc(sizeof(int64_t) * MAX_POINTS);
    if (!pt.time_h || !pt.cost || !pt.pareto || !pt.fits || !pt.rowid) {
        fputs("tplan: out of memory\n", stderr);
        goto done;
    }
    {
        tplan_cell q[2] = {{TPLAN_CELL_INT, sw.id, 0.0, NULL},
                           {TPLAN_CELL_INT, MAX_POINTS, 0.0, NULL}};

        if (tplan_store_query(db,
                              "SELECT time_h, cost_usd, fits, rowid "
                              "FROM plans WHERE sweep_id = ?1 ORDER BY "
                              "rank IS NULL, fits = 0, rank LIMIT ?2",
                              q, 2, on_point, &pt, &err) != TPLAN_OK) {
            fprintf(stderr, "tplan: %s\n", err.msg);
            goto done;
        }
    }
    snprintf(title, sizeof title, "Sweep %s (%lld)", sw.name, (long long)sw.id);
    snprintf(sub, sizeof sub,
             "%s: %lld plans kept of %lld configurations, ranked by %s; "
             "finished %s",
             dbpath, (long long)sw.kept, (long long)sw.space,
             sw.rank_by[0] ? sw.rank_by : "(none)",
             sw.finished[0] ? sw.finished : "(not completed)");
    if (report_open(&r, out, title, sub, &err)) {
        fprintf(stderr, "tplan: %s\n", err.msg);
        goto done;
    }
    report_section(&r, "The kept plans", NULL);
    cost_time(&r, db, &pt, sw.axes);
    if (scaling(&r, db, sw.id, &err)) {
        report_abort(&r);
        fprintf(stderr, "tplan: %s\n", err.msg);
        goto done;
    }
    report_section(&r, "By axis value",
                   "For each axis the sweep varied: the best plan at each of "
                   "its values, its time, and its memory against the usable "
                   "memory.");
    if (report_best_by_axes(&r, db, sw.id, sw.axes, sw.rank_by, &err)) {
        report_abort(&r);
        fprintf(stderr, "tplan: %s\n", err.msg);
        goto done;
    }
    {
        tplan_cell q[2] = {{TPLAN_CELL_INT, sw.id, 0.0, NULL},
                           {TPLAN_CELL_INT, MAX_ROWS, 0.0, NULL}};
        table_ctx t = {&r, false};

        char sql[2048];

        table_sql(&sw, sql, sizeof sql);
        if (tplan_store_query(db, sql, q, 2, on_table_row, &t, &err) !=
            TPLAN_OK) {
            report_abort(&r);
            fprintf(stderr, "tplan: %s\n", err.msg);
            goto done;
        }
        if (t.head)
            report_table_end(&r);
    }
    best_plan(&r, db, &sw);
    robustness(&r, db, &sw);
    if (report_close(&r, &err)) {
        fprintf(stderr, "tplan: %s\n", err.msg);
        goto done;
    }
    rc = 0;
done:
    free(pt.time_h);
    free(pt.cost);
    free(pt.pareto);
    free(pt.fits);
    free(pt.rowid);
    tplan_store_close(db);
    return rc;
}
