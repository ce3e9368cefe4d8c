/* Inline SVG charts for the HTML reports (svg.h): the figure, the frame,
 * the axes' bounds and ticks. Marks are in svg_marks.c, text placement in
 * svg_label.c. */
#include "svg.h"

#include <math.h>
#include <string.h>

#include "json.h"
#include "svg_impl.h"

/* The viewBox: plot area and margins for tick labels and axis titles.
 * A small panel (best-by-axis) is narrower, with room on the right for a
 * reference line's name only. */
#define VIEW_W  720.0
#define VIEW_H  400.0
#define LEFT    78.0
#define RIGHT   150.0 /* series names and reference-line labels */
#define TOP     16.0
#define BOTTOM  56.0
#define PANEL_W 420.0
#define PANEL_H 300.0
#define PANEL_R 64.0

void svg_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

void svg_num_attr(FILE *f, const char *name, double v)
{
    char buf[40];

    fmt_double(buf, sizeof buf, v);
    fprintf(f, " %s=\"%s\"", name, buf);
}

bool svg_logged(const svg_axis *a)
{
    return a->log2 || a->log10;
}

static double to_axis(const svg_axis *a, double v)
{
    if (a->log2)
        return log2(v);
    if (a->log10)
        return log10(v);
    return v;
}

static double from_axis(const svg_axis *a, double t)
{
    if (a->log2)
        return exp2(t);
    if (a->log10)
        return pow(10.0, t);
    return t;
}

/* A 1-2-5 step that cuts span in about five. */
static double nice_step(double span)
{
    double p = pow(10.0, floor(log10(span / 5.0))), r = span / 5.0 / p;

    return p * (r <= 1.0 ? 1.0 : r <= 2.0 ? 2.0 : r <= 5.0 ? 5.0 : 10.0);
}

/* The axis's bounds, fitted to the data (issue 35: plans within 868 to
 * 1,028 hours were drawn on 100 to 10,000):
 * - log2 (counts): whole powers of two around the data;
 * - log10: the data's own range and 5% of it either side;
 * - linear: a 1-2-5 step around the data, from 0 where the data are all
 *   positive and start below half their top (a bar or a memory line then
 *   reads from zero). */
static void bounds(const svg_axis *a, double *lo, double *hi)
{
    double l = a->lo, h = a->hi;

    if (!(l <= h) || !isfinite(l) || !isfinite(h)) {
        l = 0.0;
        h = 1.0;
    }
    if (svg_logged(a)) {
        if (l <= 0.0)
            l = h > 0.0 ? h / 1024.0 : 1.0;
        if (h <= 0.0)
            h = 1.0;
        if (a->log2) {
            *lo = floor(log2(l));
            *hi = ceil(log2(h));
        } else {
            double pad = 0.05 * (log10(h) - log10(l));

            if (pad < 0.02)
                pad = 0.02; /* one value: a little either side */
            *lo = log10(l) - pad;
            *hi = log10(h) + pad;
        }
        if (*hi <= *lo)
            *hi = *lo + 1.0;
        return;
    }
    if (l > 0.0 && l < 0.5 * h)
        l = 0.0;
    if (h == l) {
        h = l == 0.0 ? 1.0 : l + fabs(l) * 0.5;
        l = l == 0.0 ? 0.0 : l - fabs(l) * 0.5;
    }
    {
        /* a 1-2-5 step in the unit the ticks show (GiB, not bytes) */
        double sc = a->scale > 0.0 ? a->scale : 1.0;
        double st = nice_step((h - l) / sc) * sc;

        *lo = floor(l / st) * st;
        *hi = ceil(h / st) * st;
        /* near DBL_MAX the rounding overflows: the data's own range */
        if (!isfinite(*lo) || !isfinite(*hi) || !(*hi > *lo)) {
            *lo = l;
            *hi = isfinite(h - l) && h > l ? h : l + 1.0;
            if (!isfinite(*hi) || !(*hi > *lo)) {
                *lo = 0.0;
                *hi = 1.0;
            }
        }
    }
}

double svg_x(const svg_chart *c, double x)
{
    return c->left + (to_axis(&c->x, x) - c->x_lo) / (c->x_hi - c->x_lo) * c->w;
}

double svg_y(const svg_chart *c, double y)
{
    return c->top + c->h -
           (to_axis(&c->y, y) - c->y_lo) / (c->y_hi - c->y_lo) * c->h;
}

/* A tick's label: the value over the axis's scale, short, never in
 * exponent notation (issue 35: "1e+06" on a money axis): millions and up
 * with M, B, T ("2.1M"), money from a thousand up with K too and a dollar
 * sign ("$217K"; an axis in USD), other thousands in full ("16384", a
 * power of two), small values in plain decimals. */
static void tick_label(char *buf, size_t len, const svg_axis *a, double v)
{
    static const char suffix[] = "KMBT";
    double s = a->scale > 0.0 ? a->scale : 1.0, t = v / s;
    const char *cur = a->label && strstr(a->label, "USD") ? "$" : "";
    int k = -1;

    if (fabs(t) >= (cur[0] ? 1e3 : 1e6) && isfinite(t))
        for (k = 0; k < 3 && fabs(t) >= 1e6; k++)
            t /= 1e3;
    if (k >= 0) {
        t /= 1e3;
        snprintf(buf, len, "%s%.10g%c", cur, round(t * 1e3) / 1e3, suffix[k]);
    } else if (t != 0.0 && fabs(t) < 1e-3) {
        char *e;

        snprintf(buf, len, "%s%.9f", cur, t);
        for (e = buf + strlen(buf) - 1; *e == '0'; e--)
            *e = '\0';
    } else {
        snprintf(buf, len, "%s%.10g", cur, round(t * 1e6) / 1e6);
    }
}

/* An axis of less than a decade drawn on a log scale bunches its data in
 * a corner of whole decades (issue 35: 868-1,028 hours on 100-10,000):
 * such an axis is linear, each axis on its own, but where the other is a
 * log2 count (GPUs): those charts show a ratio, scaling, and keep one kind
 * on both axes. */
static bool narrow(const svg_axis *a)
{
    return a->log10 && a->lo > 0.0 && a->hi >= a->lo && a->hi < 10.0 * a->lo;
}

/* The values a tick goes at, in axis units, ascending; their count. */
static int tick_values(const svg_chart *c, bool horizontal, double *t, int max)
{
    const svg_axis *a = horizontal ? &c->x : &c->y;
    double lo = horizontal ? c->x_lo : c->y_lo;
    double hi = horizontal ? c->x_hi : c->y_hi;
    double eps = (hi - lo) * 1e-9;
    int n = 0;

    if (horizontal && c->n_cats > 0) {
        for (int i = 0; i < c->n_cats && n < max; i++)
            t[n++] = i;
        return n;
    }
    if (a->log2) {
        double st = fmax(1.0, ceil((hi - lo) / 8.0));

        for (double e = ceil(lo - eps); e <= hi + eps && n < max; e += st)
            t[n++] = e;
        return n;
    }
    if (a->log10) {
        /* 1, 2, 5 of each decade over up to three decades, whole decades
         * beyond; where fewer than three fall in the range (a narrow log
         * axis beside a GPU count), a 1-2-5 step of the values */
        static const double mult[3] = {1.0, 2.0, 5.0};
        /* in the unit the labels show (days, GiB): 1, 2, 5 of those */
        double sc = a->scale > 0.0 ? a->scale : 1.0, ls = log10(sc);
        int sub = hi - lo <= 3.0 ? 3 : 1;
        double st = fmax(1.0, ceil((hi - lo) / 8.0));

        for (double e = floor(lo - ls); e <= hi - ls && n < max; e += st)
            for (int k = 0; k < sub && n < max; k++) {
                double v = log10(mult[k]) + e + ls;

                if (v >= lo - eps && v <= hi + eps)
                    t[n++] = v;
            }
        if (n >= 3)
            return n;
        {
            double vlo = pow(10.0, lo) / sc, vhi = pow(10.0, hi) / sc;
            double vs = nice_step(vhi - vlo);

            n = 0;
            for (double v = ceil(vlo / vs) * vs; v <= vhi && n < max; v += vs)
                t[n++] = log10(v * sc);
            return n;
        }
    }
    {
        double sc = a->scale > 0.0 ? a->scale : 1.0;
        double st = nice_step((hi - lo) / sc) * sc;

        if (!(st > 0.0) || !isfinite(st) || (hi - lo) / st > 40.0)
            st = (hi - lo) / 8.0; /* a range the 1-2-5 steps cannot cut */
        if (!(st > 0.0) || !isfinite(st))
            return 0;
        /* at multiples of the step (a bound of the data may not be) */
        double first = ceil(lo / st - 1e-9) * st;

        for (int i = 0; i <= 40 && n < max; i++) {
            double v = first + st * i;

            if (v > hi + st * 1e-9)
                break;
            /* 0.30000000000000004 is 0.3 */
            t[n++] = fabs(v) < st * 1e-9 ? 0.0 : v;
        }
        return n;
    }
}

/* The grid lines and tick labels of one axis. A label that would meet
 * the one before it is left out (its grid line stays); a categorical
 * axis whose names are wider than their slots staggers them on two rows. */
static void ticks(svg_chart *c, bool horizontal)
{
    const svg_axis *a = horizontal ? &c->x : &c->y;
    double t[64];
    int n = tick_values(c, horizontal, t, 64);
    bool stagger = false;
    char buf[64];

    if (horizontal && c->n_cats > 1) {
        double slot = c->w / c->n_cats;

        for (int i = 0; i < c->n_cats; i++)
            stagger = stagger ||
                      strlen(c->cats[i]) * SVG_CHAR_W > slot - 4.0;
    }
    for (int i = 0; i < n; i++) {
        double v = horizontal && c->n_cats > 0 ? t[i] : from_axis(a, t[i]);
        double px = horizontal ? svg_x(c, v) : c->left - 6.0;
        double py = horizontal ? c->top + c->h + 20.0 + (stagger && i % 2) * 14.0
                               : svg_y(c, v) + 4.0;
        svg_box b;

        if (horizontal && c->n_cats > 0)
            snprintf(buf, sizeof buf, "%s", c->cats[i]);
        else
            tick_label(buf, sizeof buf, a, v);
        if (horizontal)
            fprintf(c->f,
                    "<line class=\"grid\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
                    "y2=\"%.2f\"/>",
                    px, c->top, px, c->top + c->h);
        else
            fprintf(c->f,
                    "<line class=\"grid\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
                    "y2=\"%.2f\"/>",
                    c->left, py - 4.0, c->left + c->w, py - 4.0);
        b = svg_text_box(buf, px, py, horizontal ? "middle" : "end");
        if (svg_box_clash(c, b)) {
            fputc('\n', c->f);
            continue;
        }
        svg_box_take(c, b);
        fprintf(c->f,
                "<text class=\"tick\" x=\"%.2f\" y=\"%.2f\" "
                "text-anchor=\"%s\">",
                px, py, horizontal ? "middle" : "end");
        svg_text(c->f, buf);
        fputs("</text>\n", c->f);
    }
}

/* The <svg> of a chart or a panel: the frame, the ticks, the axes'
 * titles. */
static void plot_open(svg_chart *c, const char *title)
{
    FILE *f = c->f;

    if (c->n_cats > 0) {
        c->x.log2 = c->x.log10 = false;
        c->x_lo = -0.5;
        c->x_hi = c->n_cats - 0.5;
    } else {
        bounds(&c->x, &c->x_lo, &c->x_hi);
    }
    bounds(&c->y, &c->y_lo, &c->y_hi);
    fprintf(f,
            "<svg viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
            "xmlns=\"http://www.w3.org/2000/svg\"><title>",
            c->vw, c->vh);
    svg_text(f, title);
    fputs("</title>\n", f);
    ticks(c, true);
    if (c->y.label)
        ticks(c, false);
    fprintf(f,
            "<rect class=\"frame\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
            "height=\"%.2f\"/>\n",
            c->left, c->top, c->w, c->h);
    fprintf(f,
            "<text class=\"axis\" x=\"%.2f\" y=\"%.2f\" "
            "text-anchor=\"middle\">",
            c->left + c->w / 2.0, c->vh - 10.0);
    svg_text(f, c->x.label);
    fputs("</text>\n", f);
    if (c->y.label) {
        fprintf(f,
                "<text class=\"axis\" transform=\"translate(16 %.2f) "
                "rotate(-90)\" text-anchor=\"middle\">",
                c->top + c->h / 2.0);
        svg_text(f, c->y.label);
        fputs("</text>\n", f);
    }
}

static void chart_init(svg_chart *c, FILE *f, svg_axis x, svg_axis y)
{
    memset(c, 0, sizeof *c);
    c->f = f;
    c->x = x;
    c->y = y;
    if (narrow(&x) && !y.log2)
        c->x.log10 = false;
    if (narrow(&y) && !x.log2)
        c->y.log10 = false;
}

void svg_figure(FILE *f, const char *kind, const char *title)
{
    fprintf(f, "<figure class=\"chart\" data-chart=\"%s\"><figcaption>", kind);
    svg_text(f, title);
    fputs("</figcaption>\n", f);
}

void svg_figure_end(FILE *f, const char *note)
{
    if (note) {
        fputs("<p class=\"note\">", f);
        svg_text(f, note);
        fputs("</p>", f);
    }
    fputs("</figure>\n", f);
}

void svg_begin(svg_chart *c, FILE *f, const char *kind, const char *title,
               svg_axis x, svg_axis y)
{
    chart_init(c, f, x, y);
    c->vw = VIEW_W;
    c->vh = VIEW_H;
    c->left = LEFT;
    c->top = TOP;
    c->w = VIEW_W - LEFT - RIGHT;
    c->h = VIEW_H - TOP - BOTTOM;
    svg_figure(f, kind, title);
    plot_open(c, title);
}

void svg_panel(svg_chart *c, FILE *f, const char *title, svg_axis x,
               svg_axis y, int n_cats, const char *const *cats)
{
    chart_init(c, f, x, y);
    c->n_cats = n_cats;
    c->cats = cats;
    c->vw = PANEL_W;
    c->vh = PANEL_H;
    c->left = LEFT;
    c->top = TOP;
    c->w = PANEL_W - LEFT - PANEL_R;
    /* room for categories staggered on two rows */
    c->h = PANEL_H - TOP - BOTTOM - 12.0;
    plot_open(c, title);
}

void svg_panel_end(svg_chart *c)
{
    svg_end_labels(c);
    fputs("</svg>\n", c->f);
}

void svg_end(svg_chart *c, const char *note)
{
    svg_panel_end(c);
    svg_figure_end(c->f, note);
}

void svg_time_axis(svg_axis *a)
{
    bool days = isfinite(a->hi) && a->hi >= 1000.0;

    a->label = days ? "time to train (days)" : "time to train (hours)";
    a->scale = days ? 24.0 : 0.0;
}

void svg_style(FILE *f)
{
    /* hatch patterns keep the parts of a stacked bar apart without
     * colour */
    fputs("<svg width=\"0\" height=\"0\" style=\"position:absolute\" "
          "aria-hidden=\"true\"><defs>\n",
          f);
    for (int i = 0; i < 8; i++) {
        static const char *const paths[8] = {
            "",       "M0 8L8 0",         "M0 0L8 8",     "M0 4H8",
            "M4 0V8", "M0 8L8 0M0 0L8 8", "M0 4H8M4 0V8", "M2 2h1v1h-1z"};

        fprintf(f,
                "<pattern id=\"hatch%d\" width=\"8\" height=\"8\" "
                "patternUnits=\"userSpaceOnUse\"><rect width=\"8\" "
                "height=\"8\" class=\"hbg p%d\"/>%s%s%s</pattern>\n",
                i, i, paths[i][0] ? "<path class=\"hfg\" d=\"" : "", paths[i],
                paths[i][0] ? "\"/>" : "");
    }
    fputs("</defs></svg>\n", f);
}
