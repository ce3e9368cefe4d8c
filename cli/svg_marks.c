/* The marks of the SVG charts (svg.h): points, lines, reference lines
 * and stacked bars, each carrying the values it draws. */
#include <math.h>
#include <string.h>

#include "svg_impl.h"

/* A marker of one of four shapes at (px, py). */
static void marker(FILE *f, int style, double px, double py, double r)
{
    switch (style % SVG_STYLES) {
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

/* The end of a marker's element, with its tooltip if any. */
static void marker_end(FILE *f, int style, const char *label)
{
    if (!label) {
        fputs("/>\n", f);
        return;
    }
    fputs("><title>", f);
    svg_text(f, label);
    fputs("</title></", f);
    fputs(style % SVG_STYLES == 0   ? "circle>\n"
          : style % SVG_STYLES == 1 ? "rect>\n"
                                    : "path>\n",
          f);
}

bool svg_drawable(const svg_chart *c, double x, double y)
{
    return isfinite(x) && isfinite(y) && (!svg_logged(&c->x) || x > 0.0) &&
           (!svg_logged(&c->y) || y > 0.0);
}

void svg_point(svg_chart *c, const char *series, int style, double x, double y,
               bool highlight, const char *label)
{
    double px, py, r = highlight ? 5.0 : 3.5;

    if (!svg_drawable(c, x, y))
        return;
    px = svg_x(c, x);
    py = svg_y(c, y);
    marker(c->f, style, px, py, r);
    fprintf(c->f, " class=\"mark s%d%s\" data-series=\"", style % SVG_STYLES,
            highlight ? " hi" : "");
    svg_text(c->f, series);
    fputc('"', c->f);
    svg_num_attr(c->f, "data-x", x);
    svg_num_attr(c->f, "data-y", y);
    marker_end(c->f, style, label);
    if (c->n_marks < SVG_MAX_MARKS) {
        c->mark_x[c->n_marks] = (float)px;
        c->mark_y[c->n_marks++] = (float)py;
    }
    /* the points a label may name: no label is put over one */
    if (highlight) {
        svg_box b = {px - r, py - r, px + r, py + r};

        svg_box_take(c, b);
    }
}

void svg_cat_point(svg_chart *c, const char *series, int style, int cat,
                   const char *xval, double y, bool hollow, const char *extra,
                   const char *label)
{
    double px, py;

    if (!svg_drawable(c, 1.0, y) || cat < 0 || cat >= c->n_cats)
        return;
    px = svg_x(c, cat);
    py = svg_y(c, y);
    marker(c->f, style, px, py, 5.0);
    fprintf(c->f, " class=\"mark s%d%s\" data-series=\"", style % SVG_STYLES,
            hollow ? " open" : " hi");
    svg_text(c->f, series);
    fputs("\" data-x=\"", c->f);
    svg_text(c->f, xval);
    fputc('"', c->f);
    svg_num_attr(c->f, "data-y", y);
    if (extra)
        fprintf(c->f, " %s", extra);
    marker_end(c->f, style, label);
    {
        svg_box b = {px - 5.0, py - 5.0, px + 5.0, py + 5.0};

        svg_box_take(c, b);
    }
}

void svg_cat_none(svg_chart *c, int cat, const char *xval, const char *label)
{
    double px, py, r = 4.0;

    if (cat < 0 || cat >= c->n_cats)
        return;
    px = svg_x(c, cat);
    py = c->top + c->h - 10.0;
    fprintf(c->f,
            "<path class=\"mark none\" d=\"M%.2f %.2fL%.2f %.2fM%.2f %.2fL%.2f "
            "%.2f\" data-x=\"",
            px - r, py - r, px + r, py + r, px - r, py + r, px + r, py - r);
    svg_text(c->f, xval);
    fputs("\" data-fits=\"0\"><title>", c->f);
    svg_text(c->f, label);
    fputs("</title></path>\n", c->f);
    {
        svg_box b = {px - r, py - r, px + r, py + r};

        svg_box_take(c, b);
    }
    svg_label_above(c, px, py - 10.0, label);
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
    static const char *const dash[SVG_STYLES] = {"", "8 4", "2 3", "8 3 2 3"};
    int last = -1;

    fprintf(c->f, "<g class=\"series s%d\" data-series=\"", style % SVG_STYLES);
    svg_text(c->f, series);
    fputs("\"><polyline fill=\"none\" points=\"", c->f);
    for (int i = 0; i < n; i++)
        if (svg_drawable(c, x[i], y[i])) {
            fprintf(c->f, "%s%.2f,%.2f", last >= 0 ? " " : "", svg_x(c, x[i]),
                    svg_y(c, y[i]));
            last = i;
        }
    fprintf(c->f, "\" stroke-dasharray=\"%s\"/>\n", dash[style % SVG_STYLES]);
    /* a dense line (a schedule) keeps its values on small dots */
    for (int i = 0; i < n; i++)
        if (n <= 24)
            svg_point(c, series, style, x[i], y[i], false, NULL);
        else if (svg_drawable(c, x[i], y[i])) {
            fprintf(c->f,
                    "<circle class=\"mark dot s%d\" cx=\"%.2f\" "
                    "cy=\"%.2f\" r=\"1.2\" data-series=\"",
                    style % SVG_STYLES, svg_x(c, x[i]), svg_y(c, y[i]));
            svg_text(c->f, series);
            fputc('"', c->f);
            svg_num_attr(c->f, "data-x", x[i]);
            svg_num_attr(c->f, "data-y", y[i]);
            fputs("/>\n", c->f);
        }
    fputs("</g>\n", c->f);
    /* named at the right of the plot, with the other names there */
    if (last >= 0)
        svg_end_label(c, svg_x(c, x[last]), svg_y(c, y[last]),
                      series_words(series));
}

void svg_hline(svg_chart *c, const char *field, double y, const char *label)
{
    double py;

    if (!svg_drawable(c, svg_logged(&c->x) ? 1.0 : 0.0, y))
        return;
    py = svg_y(c, y);
    fprintf(c->f,
            "<line class=\"ref\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
            "y2=\"%.2f\" data-field=\"%s\"",
            c->left, py, c->left + c->w, py, field);
    svg_num_attr(c->f, "data-value", y);
    fputs("><title>", c->f);
    svg_text(c->f, label);
    fputs("</title></line>\n", c->f);
    svg_end_label(c, c->left + c->w, py, label);
}

void svg_vline(svg_chart *c, const char *field, double x, const char *label)
{
    double px;

    if (!svg_drawable(c, x, svg_logged(&c->y) ? 1.0 : 0.0))
        return;
    px = svg_x(c, x);
    fprintf(c->f,
            "<line class=\"ref\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
            "y2=\"%.2f\" data-field=\"%s\"",
            px, c->top, px, c->top + c->h, field);
    svg_num_attr(c->f, "data-value", x);
    fputs("><title>", c->f);
    svg_text(c->f, label);
    fputs("</title></line>\n", c->f);
    svg_vline_label(c, px, label);
}

void svg_stack(svg_chart *c, int n, const char *const *fields,
               const char *const *labels, const double *parts)
{
    double at = 0.0, bar_y = c->top + c->h * 0.12, bar_h = c->h * 0.28;
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
        svg_num_attr(c->f, "data-value", parts[i]);
        fputs("><title>", c->f);
        svg_text(c->f, labels[i]);
        fputs("</title></rect>\n", c->f);
        /* the legend under the bar: a swatch of the same fill and its
         * name, one a row (issue 35: in two columns "data-parallel
         * communication not hidden" ran over the frame and the step line) */
        {
            double lx = c->left + 6.0;
            double ly = bar_y + bar_h + 24.0 + shown * 17.0;

            fprintf(c->f,
                    "<rect class=\"part p%d\" x=\"%.2f\" y=\"%.2f\" "
                    "width=\"14\" height=\"12\"/><text class=\"tick\" "
                    "x=\"%.2f\" y=\"%.2f\">",
                    i % 8, lx, ly - 10.0, lx + 20.0, ly);
            svg_text(c->f, labels[i]);
            fputs("</text>\n", c->f);
            svg_box_take(c, svg_text_box(labels[i], lx + 20.0, ly, "start"));
        }
        shown++;
        at += parts[i];
    }
}
