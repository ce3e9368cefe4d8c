/* Inline SVG charts for the HTML reports: axes with ticks and labels in
 * units, line series, points, stacked bars and reference lines. Every
 * mark carries the exact value it draws in data- attributes (the
 * shortest text that reads back to the same double), so a test can check
 * the picture against the plan's JSON. Colours come from CSS classes
 * (light and dark); series also differ by dash and marker shape so the
 * charts read without colour.
 *
 * Text never overlaps text (issue 35): every label placed is remembered
 * as a box (its width estimated from its length), a tick label that would
 * run into its neighbour is left out (its grid line stays), the names at
 * the right of the plot (series ends, reference lines) are spread apart
 * and joined to what they name by a leader line, and a point's label goes
 * where it meets nothing, or is left to the point's tooltip. */
#ifndef TPLAN_CLI_SVG_H
#define TPLAN_CLI_SVG_H

#include <stdbool.h>
#include <stdio.h>

typedef struct svg_axis {
    double lo, hi;     /* data range (tplan picks nice bounds from it) */
    bool log2;         /* a log2 axis (GPU counts, micro-batches) */
    bool log10;        /* a log10 axis (hours, dollars) */
    const char *label; /* with its unit: "memory per GPU (GiB)" */
    double scale;      /* tick labels show value / scale (1 if 0) */
} svg_axis;

#define SVG_MAX_BOXES 160
#define SVG_MAX_ENDS  24
#define SVG_MAX_MARKS 4096

/* A text's box in SVG units. */
typedef struct svg_box {
    double x0, y0, x1, y1;
} svg_box;

typedef struct svg_chart {
    FILE *f;
    svg_axis x, y;
    double vw, vh;                 /* the viewBox */
    double w, h;                   /* the plot area, in SVG units */
    double left, top;              /* its offset in the viewBox */
    double x_lo, x_hi, y_lo, y_hi; /* the bounds after rounding */
    int n_cats;                    /* a categorical x axis: its values */
    const char *const *cats;
    svg_box boxes[SVG_MAX_BOXES];  /* text (and highlighted marks) placed */
    int n_boxes;
    float mark_x[SVG_MAX_MARKS];   /* the points drawn, which a point's */
    float mark_y[SVG_MAX_MARKS];   /* label keeps clear of */
    int n_marks;
    struct {
        double ax, ay; /* what the name names: a series' end, a line */
        char text[64];
    } ends[SVG_MAX_ENDS]; /* names right of the plot, laid out at the end */
    int n_ends;
} svg_chart;

/* Open a chart: the <figure>, its caption, the <svg> with a title for
 * screen readers, the frame, ticks and axis labels. kind names the chart
 * (data-chart="kind"). */
void svg_begin(svg_chart *c, FILE *f, const char *kind, const char *title,
               svg_axis x, svg_axis y);
/* Close the <svg> and the <figure>, with a note under it (may be NULL). */
void svg_end(svg_chart *c, const char *note);

/* A figure of small panels side by side (best-by-axis charts): open it,
 * then svg_panel ... svg_panel_end for each, then svg_figure_end. A panel
 * with n_cats > 0 has a categorical x axis: value i drawn at x = i,
 * labelled cats[i] (x's lo and hi are ignored). */
void svg_figure(FILE *f, const char *kind, const char *title);
void svg_panel(svg_chart *c, FILE *f, const char *title, svg_axis x,
               svg_axis y, int n_cats, const char *const *cats);
void svg_panel_end(svg_chart *c);
void svg_figure_end(FILE *f, const char *note);

/* Plot coordinates of a data point. */
double svg_x(const svg_chart *c, double x);
double svg_y(const svg_chart *c, double y);

/* A line through n points of one series (style 0..3: solid, dashed,
 * dotted, dash-dot, each with its own marker), with a marker and data-x,
 * data-y on every point and the series' name at its end. */
void svg_series(svg_chart *c, const char *series, int style, int n,
                const double *x, const double *y);
/* One marker (style as above); highlight draws it filled and larger.
 * label is its tooltip (may be NULL). */
void svg_point(svg_chart *c, const char *series, int style, double x, double y,
               bool highlight, const char *label);
/* A marker on a categorical axis: data-x is the category's value as the
 * database holds it (xval), data-y the value drawn; extra is more
 * attributes, written as given (may be NULL). hollow: drawn open (a plan
 * that does not fit). */
void svg_cat_point(svg_chart *c, const char *series, int style, int cat,
                   const char *xval, double y, bool hollow,
                   const char *extra, const char *label);
/* At category cat of a panel with no value to draw (no plan fits there):
 * a cross at the foot of the plot (class "mark none", data-x xval) and
 * text saying so (label) where there is room. */
void svg_cat_none(svg_chart *c, int cat, const char *xval, const char *label);
/* Text beside the point (x, y) where it meets no other text and stays in
 * the plot; false (nothing drawn) where there is no such place. */
bool svg_point_label(svg_chart *c, double x, double y, const char *text);
/* A horizontal reference line across the plot at y (capacity, usable),
 * labelled at its right end; data-field names what it is. */
void svg_hline(svg_chart *c, const char *field, double y, const char *label);
/* A vertical marker at x (the largest micro-batch), labelled. */
void svg_vline(svg_chart *c, const char *field, double x, const char *label);

/* One stacked bar from x (data units) of the given parts: parts[i] is
 * drawn from the sum of parts[0..i-1]; fields[i] names each (data-field),
 * labels[i] is the legend text. Bars are horizontal: the y axis is
 * unused (a single bar across the plot). */
void svg_stack(svg_chart *c, int n, const char *const *fields,
               const char *const *labels, const double *parts);

/* A time axis whose data (lo, hi) are in hours: labelled in hours, or in
 * days where the longest is 1,000 hours or more (six weeks: a count of
 * days reads better than 5-digit hours). The data stay in hours. */
void svg_time_axis(svg_axis *a);

/* Text escaped for HTML and SVG. */
void svg_text(FILE *f, const char *s);

/* The <defs> and CSS the charts need, once per document. */
void svg_style(FILE *f);

#endif
