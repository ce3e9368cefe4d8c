/* Inline SVG charts for the HTML reports (svg.h). */
#include "svg.h"

#include <math.h>
#include <string.h>

#include "json.h"

/* The viewBox: plot area and margins for tick labels and axis titles. */
#define VIEW_W 720.0
#define VIEW_H 400.0
#define LEFT   78.0
#define RIGHT  150.0 /* series names and reference-line labels */
#define TOP    16.0
#define BOTTOM 56.0
#define STYLES 4

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

/* An exact number for a data- attribute. */
static void num_attr(FILE *f, const char *name, double v)
{
    char buf[40];

    fmt_double(buf, sizeof buf, v);
    fprintf(f, " %s=\"%s\"", name, buf);
}

static bool logged(const svg_axis *a)
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

/* Nice bounds: a log axis to whole powers, a linear one to a 1-2-5 step
 * (from 0 when the data are all positive and start near it). */
static double nice_step(double span)
{
    double p = pow(10.0, floor(log10(span / 5.0))), r = span / 5.0 / p;

    return p * (r <= 1.0 ? 1.0 : r <= 2.0 ? 2.0 : r <= 5.0 ? 5.0 : 10.0);
}

static void bounds(const svg_axis *a, double *lo, double *hi)
{
    double l = a->lo, h = a->hi;

    if (!(l <= h) || !isfinite(l) || !isfinite(h)) {
        l = 0.0;
        h = 1.0;
    }
    if (logged(a)) {
        if (l <= 0.0)
            l = h > 0.0 ? h / 1024.0 : 1.0;
        if (h <= 0.0)
            h = 1.0;
        *lo = floor(to_axis(a, l));
        *hi = ceil(to_axis(a, h));
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

static void ticks(svg_chart *c, bool horizontal)
{
    const svg_axis *a = horizontal ? &c->x : &c->y;
    double lo = horizontal ? c->x_lo : c->y_lo;
    double hi = horizontal ? c->x_hi : c->y_hi;
    double sc = a->scale > 0.0 ? a->scale : 1.0;
    double st = logged(a) ? fmax(1.0, ceil((hi - lo) / 8.0))
                          : nice_step((hi - lo) / sc) * sc;
    char buf[40];

    /* a log10 axis of two decades or less also gets 2 and 5 */
    static const double mult[3] = {1.0, 2.0, 5.0};
    int sub = a->log10 && hi - lo <= 2.0 ? 3 : 1;

    if (!(st > 0.0) || !isfinite(st) || (hi - lo) / st > 40.0)
        st = (hi - lo) / 8.0; /* a range the 1-2-5 steps cannot cut */
    if (!(st > 0.0) || !isfinite(st))
        return;
    for (int i = 0; i <= 40; i++) {
        double t = lo + st * i;

        if (t > hi + st * 1e-9)
            break;
        for (int k = 0; k < sub && (k == 0 || t < hi); k++) {
            double v = (a->log2    ? exp2(t)
                        : a->log10 ? pow(10.0, t)
                                   : t) *
                       mult[k];
            double px = horizontal ? svg_x(c, v) : 0.0;
            double py = horizontal ? 0.0 : svg_y(c, v);

            tick_label(buf, sizeof buf, a, v);
            if (horizontal)
                fprintf(c->f,
                        "<line class=\"grid\" x1=\"%.2f\" y1=\"%.2f\" "
                        "x2=\"%.2f\" y2=\"%.2f\"/><text class=\"tick\" "
                        "x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%s"
                        "</text>\n",
                        px, c->top, px, c->top + c->h, px, c->top + c->h + 16.0,
                        buf);
            else
                fprintf(c->f,
                        "<line class=\"grid\" x1=\"%.2f\" y1=\"%.2f\" "
                        "x2=\"%.2f\" y2=\"%.2f\"/><text class=\"tick\" "
                        "x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">%s"
                        "</text>\n",
                        c->left, py, c->left + c->w, py, c->left - 6.0,
                        py + 4.0, buf);
        }
    }
}

void svg_begin(svg_chart *c, FILE *f, const char *kind, const char *title,
               svg_axis x, svg_axis y)
{
    memset(c, 0, sizeof *c);
    c->f = f;
    c->x = x;
    c->y = y;
    {
        if (narrow(&x) && !y.log2)
            c->x.log10 = false;
        if (narrow(&y) && !x.log2)
            c->y.log10 = false;
    }
    c->left = LEFT;
    c->top = TOP;
    c->w = VIEW_W - LEFT - RIGHT;
    c->h = VIEW_H - TOP - BOTTOM;
    bounds(&c->x, &c->x_lo, &c->x_hi);
    bounds(&c->y, &c->y_lo, &c->y_hi);
    fprintf(f, "<figure class=\"chart\" data-chart=\"%s\"><figcaption>", kind);
    svg_text(f, title);
    fprintf(f,
            "</figcaption>\n<svg viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
            "xmlns=\"http://www.w3.org/2000/svg\"><title>",
            VIEW_W, VIEW_H);
    svg_text(f, title);
    fputs("</title>\n", f);
    ticks(c, true);
    if (y.label)
        ticks(c, false);
    fprintf(f,
            "<rect class=\"frame\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
            "height=\"%.2f\"/>\n",
            c->left, c->top, c->w, c->h);
    fprintf(f,
            "<text class=\"axis\" x=\"%.2f\" y=\"%.2f\" "
            "text-anchor=\"middle\">",
            c->left + c->w / 2.0, VIEW_H - 12.0);
    svg_text(f, x.label);
    fputs("</text>\n", f);
    if (y.label) {
        fprintf(f,
                "<text class=\"axis\" transform=\"translate(16 %.2f) "
                "rotate(-90)\" text-anchor=\"middle\">",
                c->top + c->h / 2.0);
        svg_text(f, y.label);
        fputs("</text>\n", f);
    }
}

void svg_end(svg_chart *c, const char *note)
{
    fputs("</svg>", c->f);
    if (note) {
        fputs("<p class=\"note\">", c->f);
        svg_text(c->f, note);
        fputs("</p>", c->f);
    }
    fputs("</figure>\n", c->f);
}

/* A label's baseline near (px, py), moved down past labels already
 * placed within 13 units of it. */
static bool label_clash(const svg_chart *c, double px, double py)
{
    for (int i = 0; i < c->n_labels; i++)
        if (fabs(c->label_y[i] - py) < 13.0 && fabs(c->label_x[i] - px) < 90.0)
            return true;
    return false;
}

static double place_label(svg_chart *c, double px, double py)
{
    /* down while inside the plot, then up: never onto the tick labels */
    double y0 = py, bottom = c->top + c->h;

    for (int pass = 0; pass < 32 && label_clash(c, px, py); pass++)
        py += 13.0;
    if (py > bottom && py != y0)
        for (py = y0 - 13.0; py > c->top && label_clash(c, px, py); py -= 13.0)
            ;
    if (c->n_labels < 32) {
        c->label_x[c->n_labels] = px;
        c->label_y[c->n_labels++] = py;
    }
    return py;
}

/* A marker of one of four shapes at (px, py). */
static void marker(FILE *f, int style, double px, double py, double r)
{
    switch (style % STYLES) {
    case 0:
        fprintf(f, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\"", px, py, r);
        break;
    case 1:
        fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"",
                px - r, py - r, 2.0 * r, 2.0 * r);
        break;
    case 2:
        fprintf(f, "<path d=\"M%.2f %.2fL%.2f %.2fL%.2f %.2fZ\"", px,
                py - 1.3 * r, px + 1.2 * r, py + r, px - 1.2 * r, py + r);
        break;
    default:
        fprintf(f, "<path d=\"M%.2f %.2fL%.2f %.2fL%.2f %.2fL%.2f %.2fZ\"", px,
                py - 1.3 * r, px + 1.3 * r, py, px, py + 1.3 * r, px - 1.3 * r,
                py);
    }
}

static bool drawable(const svg_chart *c, double x, double y)
{
    return isfinite(x) && isfinite(y) && (!logged(&c->x) || x > 0.0) &&
           (!logged(&c->y) || y > 0.0);
}

void svg_point(svg_chart *c, const char *series, int style, double x, double y,
               bool highlight, const char *label)
{
    double px, py;

    if (!drawable(c, x, y))
        return;
    px = svg_x(c, x);
    py = svg_y(c, y);
    marker(c->f, style, px, py, highlight ? 5.0 : 3.5);
    fprintf(c->f, " class=\"mark s%d%s\" data-series=\"", style % STYLES,
            highlight ? " hi" : "");
    svg_text(c->f, series);
    fputc('"', c->f);
    num_attr(c->f, "data-x", x);
    num_attr(c->f, "data-y", y);
    if (label) {
        fputs("><title>", c->f);
        svg_text(c->f, label);
        fputs("</title></", c->f);
        fputs(style % STYLES == 0   ? "circle>\n"
              : style % STYLES == 1 ? "rect>\n"
                                    : "path>\n",
              c->f);
    } else {
        fputs("/>\n", c->f);
    }
}

/* The words a series is labelled with at its end: a plan field's name
 * read as a person would (issue 35: lines labelled total_bytes and
 * tokens_per_s); others (precisions, schedules) as they are. data-series
 * keeps the name itself. */
static const char *series_words(const char *series)
{
    static const char *const map[][2] = {
        {"tokens_per_s", "tokens/s"},
        {"total_bytes", "total memory"},
        {"activations_bytes", "activations"},
        {"efficiency", "scaling efficiency"},
    };

    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(series, map[i][0]) == 0)
            return map[i][1];
    return series;
}

void svg_series(svg_chart *c, const char *series, int style, int n,
                const double *x, const double *y)
{
    static const char *const dash[STYLES] = {"", "8 4", "2 3", "8 3 2 3"};
    int last = -1;

    fprintf(c->f, "<g class=\"series s%d\" data-series=\"", style % STYLES);
    svg_text(c->f, series);
    fputs("\"><polyline fill=\"none\" points=\"", c->f);
    for (int i = 0; i < n; i++)
        if (drawable(c, x[i], y[i])) {
            fprintf(c->f, "%s%.2f,%.2f", last >= 0 ? " " : "", svg_x(c, x[i]),
                    svg_y(c, y[i]));
            last = i;
        }
    fprintf(c->f, "\" stroke-dasharray=\"%s\"/>\n", dash[style % STYLES]);
    /* a dense line (a schedule) keeps its values on small dots */
    for (int i = 0; i < n; i++)
        if (n <= 24)
            svg_point(c, series, style, x[i], y[i], false, NULL);
        else if (drawable(c, x[i], y[i])) {
            fprintf(c->f,
                    "<circle class=\"mark dot s%d\" cx=\"%.2f\" "
                    "cy=\"%.2f\" r=\"1.2\" data-series=\"",
                    style % STYLES, svg_x(c, x[i]), svg_y(c, y[i]));
            svg_text(c->f, series);
            fputc('"', c->f);
            num_attr(c->f, "data-x", x[i]);
            num_attr(c->f, "data-y", y[i]);
            fputs("/>\n", c->f);
        }
    if (last >= 0) {
        double lx = svg_x(c, x[last]) + 8.0;

        fprintf(c->f, "<text class=\"label\" x=\"%.2f\" y=\"%.2f\">", lx,
                place_label(c, lx, svg_y(c, y[last]) + 4.0));
        svg_text(c->f, series_words(series));
        fputs("</text>", c->f);
    }
    fputs("</g>\n", c->f);
}

void svg_hline(svg_chart *c, const char *field, double y, const char *label)
{
    double py;

    if (!drawable(c, logged(&c->x) ? 1.0 : 0.0, y))
        return;
    py = svg_y(c, y);
    fprintf(c->f,
            "<line class=\"ref\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
            "y2=\"%.2f\" data-field=\"%s\"",
            c->left, py, c->left + c->w, py, field);
    num_attr(c->f, "data-value", y);
    fprintf(c->f, "/><text class=\"label\" x=\"%.2f\" y=\"%.2f\">",
            c->left + c->w + 6.0,
            place_label(c, c->left + c->w + 6.0, py + 4.0));
    svg_text(c->f, label);
    fputs("</text>\n", c->f);
}

void svg_vline(svg_chart *c, const char *field, double x, const char *label)
{
    double px;

    if (!drawable(c, x, logged(&c->y) ? 1.0 : 0.0))
        return;
    px = svg_x(c, x);
    fprintf(c->f,
            "<line class=\"ref\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
            "y2=\"%.2f\" data-field=\"%s\"",
            px, c->top, px, c->top + c->h, field);
    num_attr(c->f, "data-value", x);
    fprintf(c->f, "/><text class=\"label\" x=\"%.2f\" y=\"%.2f\">", px + 4.0,
            place_label(c, px + 4.0, c->top + 12.0));
    svg_text(c->f, label);
    fputs("</text>\n", c->f);
}

void svg_stack(svg_chart *c, int n, const char *const *fields,
               const char *const *labels, const double *parts)
{
    double at = 0.0, bar_y = c->top + c->h * 0.25, bar_h = c->h * 0.3;
    int shown = 0;

    for (int i = 0; i < n; i++) {
        double x0 = svg_x(c, at), x1;

        if (!(parts[i] > 0.0) || !isfinite(parts[i]))
            continue;
        x1 = svg_x(c, at + parts[i]);
        fprintf(c->f,
                "<rect class=\"part p%d\" x=\"%.2f\" y=\"%.2f\" "
                "width=\"%.2f\" height=\"%.2f\" data-field=\"%s\"",
                i % 8, x0, bar_y, fmax(x1 - x0, 0.5), bar_h, fields[i]);
        num_attr(c->f, "data-value", parts[i]);
        fputs("><title>", c->f);
        svg_text(c->f, labels[i]);
        fputs("</title></rect>\n", c->f);
        /* the legend under the bar: a swatch of the same fill and its
         * name, one a row (issue 35: in two columns "data-parallel
         * communication not hidden" ran over the frame and the step line) */
        {
            double lx = c->left;
            double ly = bar_y + bar_h + 22.0 + shown * 18.0;

            fprintf(c->f,
                    "<rect class=\"part p%d\" x=\"%.2f\" y=\"%.2f\" "
                    "width=\"14\" height=\"12\"/><text class=\"tick\" "
                    "x=\"%.2f\" y=\"%.2f\">",
                    i % 8, lx, ly - 10.0, lx + 20.0, ly);
            svg_text(c->f, labels[i]);
            fputs("</text>\n", c->f);
        }
        shown++;
        at += parts[i];
    }
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
