/* A sweep report's best-by-axis charts (report_axes.h). */
#include "report_axes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "json.h"
#include "svg.h"

#define MAX_VALUES 48 /* values of one axis drawn */
#define GIB        (1024.0 * 1024.0 * 1024.0)

void report_axis_tag(char *buf, size_t len, const char *axis,
                     const tplan_cell *v)
{
    static const char *const joined[] = {"tp",  "pp",   "ep",  "cp", "dp",
                                         "vpp", "zero", "etp", NULL};
    char val[48];

    /* text values that name themselves ("fp8", "h100-sxm"); others
     * ("none" of recompute) with their axis */
    static const char *const self[] = {"precision", "gpu",       "model",
                                       "framework", "optimizer", "attention",
                                       "schedule",  "profile",   NULL};

    if (v->type == TPLAN_CELL_TEXT) {
        bool named = false;

        for (int i = 0; self[i] && !named; i++)
            named = strcmp(axis, self[i]) == 0;
        if (named)
            snprintf(buf, len, "%s", v->s);
        else
            snprintf(buf, len, "%s %s", axis, v->s);
        return;
    }
    if (v->type == TPLAN_CELL_NULL) {
        snprintf(buf, len, "%s unset", axis);
        return;
    }
    fmt_double(val, sizeof val,
               v->type == TPLAN_CELL_INT ? (double)v->i : v->r);
    for (int i = 0; joined[i]; i++)
        if (strcmp(axis, joined[i]) == 0) {
            snprintf(buf, len, "%s%s", axis, val);
            return;
        }
    if (strcmp(axis, "micro_batch") == 0)
        snprintf(buf, len, "mb%s", val);
    else if (strcmp(axis, "gpus") == 0)
        snprintf(buf, len, "%s GPU%s", val, strcmp(val, "1") ? "s" : "");
    else
        snprintf(buf, len, "%s=%s", axis, val);
}

/* The best plan at each value of one axis, as the query returns them. */
typedef struct by_value {
    int n;
    char val[MAX_VALUES][64]; /* the database's value, exactly */
    double time_h[MAX_VALUES], step_s[MAX_VALUES];
    double total[MAX_VALUES], usable[MAX_VALUES];
    int64_t rank[MAX_VALUES];
    bool fits[MAX_VALUES], ranked[MAX_VALUES];
    bool more; /* values past MAX_VALUES */
} by_value;

static int on_value(void *ud, int ncols, const char *const *names,
                    const tplan_cell *row)
{
    by_value *b = ud;
    int i = b->n;

    (void)names;
    if (!row || ncols < 7)
        return 0;
    if (i == MAX_VALUES) {
        b->more = true;
        return 0;
    }
    if (row[0].type == TPLAN_CELL_TEXT)
        snprintf(b->val[i], sizeof b->val[i], "%s", row[0].s);
    else if (row[0].type == TPLAN_CELL_NULL)
        snprintf(b->val[i], sizeof b->val[i], "unset");
    else
        fmt_double(b->val[i], sizeof b->val[i], tplan_cell_number(&row[0]));
    b->time_h[i] = tplan_cell_number(&row[1]);
    b->step_s[i] = tplan_cell_number(&row[2]);
    b->total[i] = tplan_cell_number(&row[3]);
    b->usable[i] = tplan_cell_number(&row[4]);
    b->fits[i] = row[5].type == TPLAN_CELL_INT && row[5].i != 0;
    b->ranked[i] = row[6].type == TPLAN_CELL_INT;
    b->rank[i] = b->ranked[i] ? row[6].i : 0;
    b->n++;
    return 0;
}

/* The attributes a mark carries beside data-x and data-y: which field y
 * is, the plan's rank and whether it fits. */
static void extra_attrs(char *buf, size_t len, const by_value *b, int i,
                        const char *field)
{
    char rank[32] = "";

    if (b->ranked[i])
        snprintf(rank, sizeof rank, " data-rank=\"%lld\"",
                 (long long)b->rank[i]);
    snprintf(buf, len, "data-field=\"%s\" data-fits=\"%d\"%s", field,
             b->fits[i] ? 1 : 0, rank);
}

/* The time panel: the best plan's time at each value that has one that
 * fits. */
static void time_panel(report *r, const by_value *b, const char *axis,
                       const char *const *cats)
{
    bool hours = true;
    svg_axis x = {0.0, 0.0, false, false, axis, 0.0};
    svg_axis y = {(double)INFINITY, -(double)INFINITY, false, false, NULL, 0.0};
    svg_chart ch;
    char extra[160], tip[160];

    for (int i = 0; i < b->n; i++)
        if (b->fits[i] && !isfinite(b->time_h[i]))
            hours = false; /* no budget: seconds a step */
    for (int i = 0; i < b->n; i++)
        if (b->fits[i]) {
            double v = hours ? b->time_h[i] : b->step_s[i];

            y.lo = fmin(y.lo, v);
            y.hi = fmax(y.hi, v);
        }
    y.label = "step time (s)";
    if (hours)
        svg_time_axis(&y);
    svg_panel(&ch, r->f, "Time of the best plan that fits at each value", x, y,
              b->n, cats);
    for (int i = 0; i < b->n; i++) {
        double v = hours ? b->time_h[i] : b->step_s[i];

        if (!b->fits[i]) {
            svg_cat_none(&ch, i, b->val[i], "none fits");
            continue;
        }
        extra_attrs(extra, sizeof extra, b, i,
                    hours ? "time_h" : "step_time_s");
        snprintf(tip, sizeof tip, "%s: rank %lld, %.4g %s", cats[i],
                 (long long)b->rank[i], v, hours ? "h" : "s");
        svg_cat_point(&ch, "best", 0, i, b->val[i], v, false, extra, tip);
    }
    svg_panel_end(&ch);
}

/* The memory panel: the same plans' memory per GPU against the usable
 * memory (one line where every value has the same, a mark each where
 * they differ, as across GPU kinds). */
static void memory_panel(report *r, const by_value *b, const char *axis,
                         const char *const *cats)
{
    svg_axis x = {0.0, 0.0, false, false, axis, 0.0};
    svg_axis y = {(double)INFINITY,
                  -(double)INFINITY,
                  false,
                  false,
                  "memory per GPU (GiB)",
                  GIB};
    bool same = true;
    svg_chart ch;
    char extra[160], tip[160];

    for (int i = 0; i < b->n; i++) {
        y.lo = fmin(y.lo, fmin(b->total[i], b->usable[i]));
        y.hi = fmax(y.hi, fmax(b->total[i], b->usable[i]));
        same = same && b->usable[i] == b->usable[0];
    }
    svg_panel(&ch, r->f, "Memory per GPU of those plans against the usable", x,
              y, b->n, cats);
    if (same && b->n > 0)
        svg_hline(&ch, "usable_bytes", b->usable[0], "usable");
    for (int i = 0; i < b->n; i++) {
        extra_attrs(extra, sizeof extra, b, i, "total_bytes");
        snprintf(tip, sizeof tip, "%s: %.1f GiB of %.1f GiB usable%s", cats[i],
                 b->total[i] / GIB, b->usable[i] / GIB,
                 b->fits[i] ? "" : "; no plan fits");
        svg_cat_point(&ch, "best", 0, i, b->val[i], b->total[i], !b->fits[i],
                      extra, tip);
        if (!same) {
            snprintf(extra, sizeof extra, "data-field=\"usable_bytes\"");
            svg_cat_point(&ch, "usable", 1, i, b->val[i], b->usable[i], true,
                          extra, "usable");
        }
    }
    svg_panel_end(&ch);
}

/* An axis's title from the field table: its words, its name and unit
 * ("tensor-parallel degree (tp)", "micro-batch per GPU (micro_batch,
 * samples)"); the name alone where the words run long. */
static void axis_title(char *buf, size_t len, const char *axis)
{
    const tplan_field *f = tplan_field_at(tplan_field_find(axis));
    size_t words = f && f->doc ? strcspn(f->doc, "(;,") : 0;
    bool unit = f && f->unit && f->unit[0] && strcmp(f->unit, "-") != 0;

    while (words > 0 && f->doc[words - 1] == ' ')
        words--;
    if (words == 0 || words > 40)
        snprintf(buf, len, "%s%s%s%s", axis, unit ? " (" : "",
                 unit ? f->unit : "", unit ? ")" : "");
    else
        snprintf(buf, len, "%.*s (%s%s%s)", (int)words, f->doc, axis,
                 unit ? ", " : "", unit ? f->unit : "");
}

static void one_axis(report *r, const by_value *b, const char *axis,
                     const char *rank_by)
{
    const char *cats[MAX_VALUES];
    char kind[96], title[160], words[96], note[1200];
    size_t n;
    int none = 0;

    for (int i = 0; i < b->n; i++)
        cats[i] = b->val[i];
    axis_title(words, sizeof words, axis);
    snprintf(kind, sizeof kind, "best-by-%s", axis);
    snprintf(title, sizeof title, "The best plan at each value of %s", axis);
    svg_figure(r->f, kind, title);
    fputs("<div class=\"panels\">\n", r->f);
    time_panel(r, b, words, cats);
    memory_panel(r, b, words, cats);
    fputs("</div>\n", r->f);
    n = (size_t)snprintf(note, sizeof note,
                         "Best: the first by the sweep's rank (%s) among its "
                         "stored plans that fit. ",
                         rank_by[0] ? rank_by : "none");
    for (int i = 0; i < b->n && n < sizeof note; i++)
        if (!b->fits[i])
            n += (size_t)snprintf(note + n, sizeof note - n, "%s%s",
                                  none++ ? ", " : "No plan fits at ", cats[i]);
    if (none && n < sizeof note)
        n += (size_t)snprintf(note + n, sizeof note - n,
                              ": the open mark is the plan there that needs "
                              "least memory. ");
    if (b->more && n < sizeof note)
        snprintf(note + n, sizeof note - n, "The first %d values are drawn.",
                 MAX_VALUES);
    svg_figure_end(r->f, note);
}

int report_best_by_axes(report *r, tplan_store *db, int64_t sweep,
                        const char *axes, const char *rank_by, tplan_err *err)
{
    tplan_cell id = {TPLAN_CELL_INT, sweep, 0.0, NULL};
    char axis[64], sql[1200];
    by_value *b = malloc(sizeof *b);

    if (!b)
        return tplan_err_set(err, TPLAN_ENOMEM, "", "out of memory");
    while (tplan_list_next(&axes, axis, sizeof axis)) {
        /* a field's name only is ever pasted into SQL */
        if (tplan_field_find(axis) < 0)
            continue;
        /* at each value: the plans that fit first, by rank (an unranked
         * row after the ranked), then those that do not by their memory */
        snprintf(sql, sizeof sql,
                 "SELECT v, time_h, step_time_s, total_bytes, usable_bytes, "
                 "fits, rank FROM (SELECT %s AS v, time_h, step_time_s, "
                 "total_bytes, usable_bytes, fits, rank, row_number() OVER "
                 "(PARTITION BY %s ORDER BY fits DESC, CASE WHEN fits THEN "
                 "rank IS NULL ELSE 0 END, CASE WHEN fits THEN rank ELSE "
                 "total_bytes END, rowid) AS k FROM plans WHERE sweep_id = "
                 "?1) WHERE k = 1 ORDER BY v",
                 axis, axis);
        memset(b, 0, sizeof *b);
        if (tplan_store_query(db, sql, &id, 1, on_value, b, err) != TPLAN_OK) {
            free(b);
            return TPLAN_EIO;
        }
        if (b->n >= 2)
            one_axis(r, b, axis, rank_by);
    }
    free(b);
    return TPLAN_OK;
}
