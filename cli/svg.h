/* Inline SVG charts for the HTML reports: axes with ticks and labels in
 * units, line series, points, stacked bars and reference lines. Every
 * mark carries the exact value it draws in data- attributes (the
 * shortest text that reads back to the same double), so a test can check
 * the picture against the plan's JSON. Colours come from CSS classes
 * (light and dark); series also differ by dash and marker shape so the
 * charts read without colour. */
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

typedef struct svg_chart {
    FILE *f;
    svg_axis x, y;
    double w, h;                   /* the plot area, in SVG units */
    double left, top;              /* its offset in the viewBox */
    double x_lo, x_hi, y_lo, y_hi; /* the bounds after rounding */
    double label_y[32];            /* labels placed so far, to keep */
    double label_x[32];            /* them from overlapping */
    int n_labels;
} svg_chart;

/* Open a chart: the <figure>, its caption, the <svg> with a title for
 * screen readers, the frame, ticks and axis labels. kind names the chart
 * (data-chart="kind"). */
void svg_begin(svg_chart *c, FILE *f, const char *kind, const char *title,
               svg_axis x, svg_axis y);
/* Close the <svg> and the <figure>, with a note under it (may be NULL). */
void svg_end(svg_chart *c, const char *note);

/* Plot coordinates of a data point. */
double svg_x(const svg_chart *c, double x);
double svg_y(const svg_chart *c, double y);

/* A line through n points of one series (style 0..3: solid, dashed,
 * dotted, dash-dot, each with its own marker), with a marker and data-x,
 * data-y on every point and the series' name at its end. */
void svg_series(svg_chart *c, const char *series, int style, int n,
                const double *x, const double *y);
/* One marker (style as above); highlight draws it filled and larger. */
void svg_point(svg_chart *c, const char *series, int style, double x, double y,
               bool highlight, const char *label);
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

/* Text escaped for HTML and SVG. */
void svg_text(FILE *f, const char *s);

/* The <defs> and CSS the charts need, once per document. */
void svg_style(FILE *f);

#endif
