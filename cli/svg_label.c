/* Text placement for the SVG charts (svg.h): no text meets another
 * (issue 35: legends over legends, series names piled where lines meet).
 * Each text's box is estimated from its length (SVG_CHAR_W a character:
 * system-ui at 12 px averages about 0.55 em, and this is wider), so a
 * placement that clears the estimate clears the text. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "svg_impl.h"

/* Characters, not bytes, of UTF-8 text. */
static size_t chars(const char *s)
{
    size_t n = 0;

    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

svg_box svg_text_box(const char *text, double x, double y, const char *anchor)
{
    double w = (double)chars(text) * SVG_CHAR_W;
    double x0 = strcmp(anchor, "middle") == 0 ? x - w / 2.0
                : strcmp(anchor, "end") == 0  ? x - w
                                              : x;
    svg_box b = {x0, y - SVG_ASCENT, x0 + w, y + SVG_DESCENT};

    return b;
}

bool svg_box_clash(const svg_chart *c, svg_box b)
{
    /* a unit apart at least: Chromium's boxes are a little taller than
     * the glyphs */
    for (int i = 0; i < c->n_boxes; i++) {
        const svg_box *o = &c->boxes[i];

        if (b.x0 < o->x1 + 1.0 && o->x0 < b.x1 + 1.0 && b.y0 < o->y1 + 1.0 &&
            o->y0 < b.y1 + 1.0)
            return true;
    }
    return false;
}

void svg_box_take(svg_chart *c, svg_box b)
{
    if (c->n_boxes < SVG_MAX_BOXES)
        c->boxes[c->n_boxes++] = b;
}

/* Does b cover a point drawn (its marker, 4 units about it)? */
static bool over_mark(const svg_chart *c, svg_box b)
{
    for (int i = 0; i < c->n_marks; i++) {
        double x = (double)c->mark_x[i], y = (double)c->mark_y[i];

        if (x > b.x0 - 4.0 && x < b.x1 + 4.0 && y > b.y0 - 4.0 &&
            y < b.y1 + 4.0)
            return true;
    }
    return false;
}

static bool in_plot(const svg_chart *c, svg_box b)
{
    return b.x0 >= c->left + 2.0 && b.x1 <= c->left + c->w - 2.0 &&
           b.y0 >= c->top + 2.0 && b.y1 <= c->top + c->h - 2.0;
}

/* Draw text at (x, y) if its box is free and (inside: in the plot);
 * false where it is not. */
static bool try_text(svg_chart *c, const char *cls, const char *text, double x,
                     double y, const char *anchor, bool inside)
{
    svg_box b = svg_text_box(text, x, y, anchor);

    if (svg_box_clash(c, b) || (inside && (!in_plot(c, b) || over_mark(c, b))))
        return false;
    svg_box_take(c, b);
    fprintf(c->f, "<text class=\"%s\" x=\"%.2f\" y=\"%.2f\"", cls, x, y);
    if (strcmp(anchor, "start") != 0)
        fprintf(c->f, " text-anchor=\"%s\"", anchor);
    fputc('>', c->f);
    svg_text(c->f, text);
    fputs("</text>\n", c->f);
    return true;
}

bool svg_point_label(svg_chart *c, double x, double y, const char *text)
{
    /* right, left, above, below, then the corners: offsets from the
     * point past its marker (radius 5) */
    static const struct {
        double dx, dy;
        const char *anchor;
    } at[] = {{8, 4, "start"},   {-8, 4, "end"},   {0, -9, "middle"},
              {0, 18, "middle"}, {6, -8, "start"}, {6, 17, "start"},
              {-6, -8, "end"},   {-6, 17, "end"},  {8, -20, "start"},
              {8, 30, "start"},  {-8, -20, "end"}, {-8, 30, "end"}};
    double px, py;

    if (!svg_drawable(c, x, y) || !text || !text[0])
        return false;
    px = svg_x(c, x);
    py = svg_y(c, y);
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++)
        if (try_text(c, "label pt", text, px + at[i].dx, py + at[i].dy,
                     at[i].anchor, true))
            return true;
    return false;
}

void svg_label_above(svg_chart *c, double px, double py, const char *text)
{
    (void)try_text(c, "label", text, px, py, "middle", true);
}

void svg_vline_label(svg_chart *c, double px, const char *text)
{
    /* beside the line near the top, right then left, then lower down */
    for (double y = c->top + 14.0; y < c->top + c->h; y += 14.0) {
        if (try_text(c, "label", text, px + 4.0, y, "start", true) ||
            try_text(c, "label", text, px - 4.0, y, "end", true))
            return;
    }
    /* no room in the plot: the line's <title> names it */
}

void svg_end_label(svg_chart *c, double ax, double ay, const char *text)
{
    if (c->n_ends >= SVG_MAX_ENDS || !isfinite(ay))
        return;
    c->ends[c->n_ends].ax = ax;
    c->ends[c->n_ends].ay = ay;
    snprintf(c->ends[c->n_ends].text, sizeof c->ends[0].text, "%s", text);
    c->n_ends++;
}

static int by_ay(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

void svg_end_labels(svg_chart *c)
{
    /* ends sorted by height, then spread a line apart: down from the
     * top, then up from the bottom where they ran past it */
    const double gap = SVG_ASCENT + SVG_DESCENT + 2.0;
    const double lo = c->top + 2.0, hi = c->top + c->h + 2.0;
    double order[SVG_MAX_ENDS][2], y[SVG_MAX_ENDS];
    double lx = c->left + c->w + 8.0;
    int n = c->n_ends;

    for (int i = 0; i < n; i++) {
        order[i][0] = c->ends[i].ay;
        order[i][1] = i;
    }
    qsort(order, (size_t)n, sizeof order[0], by_ay);
    for (int i = 0; i < n; i++) {
        y[i] = fmax(order[i][0], lo);
        if (i > 0 && y[i] < y[i - 1] + gap)
            y[i] = y[i - 1] + gap;
    }
    for (int i = n - 1; i >= 0; i--) {
        if (y[i] > hi)
            y[i] = hi;
        if (i < n - 1 && y[i] > y[i + 1] - gap)
            y[i] = y[i + 1] - gap;
    }
    for (int i = 0; i < n; i++) {
        int k = (int)order[i][1];
        double ax = c->ends[k].ax, ay = c->ends[k].ay;

        /* a name moved off its line, or away from a line that ends
         * inside the plot, is joined to it */
        if (fabs(y[i] - ay) > 3.0 || ax < c->left + c->w - 2.0)
            fprintf(c->f,
                    "<polyline class=\"leader\" points=\"%.2f,%.2f "
                    "%.2f,%.2f %.2f,%.2f\"/>\n",
                    ax + 4.0, ay, c->left + c->w + 2.0, y[i], lx - 2.0, y[i]);
        svg_box_take(c, svg_text_box(c->ends[k].text, lx, y[i] + 4.0, "start"));
        fprintf(c->f, "<text class=\"label\" x=\"%.2f\" y=\"%.2f\">", lx,
                y[i] + 4.0);
        svg_text(c->f, c->ends[k].text);
        fputs("</text>\n", c->f);
    }
    c->n_ends = 0;
}
