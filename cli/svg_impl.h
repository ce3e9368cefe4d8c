/* What the parts of the SVG charts (svg.c, svg_marks.c, svg_label.c)
 * share and no caller needs. */
#ifndef TPLAN_CLI_SVG_IMPL_H
#define TPLAN_CLI_SVG_IMPL_H

#include "svg.h"

#define SVG_STYLES 4
/* 12-px text (report.c's CSS): a character's width, generous for digits
 * and capitals of system-ui (about 0.55 em), and the box above and below
 * the baseline */
#define SVG_CHAR_W  6.8
#define SVG_ASCENT  10.0
#define SVG_DESCENT 3.5

/* An exact number for a data- attribute. */
void svg_num_attr(FILE *f, const char *name, double v);
bool svg_logged(const svg_axis *a);
/* Can (x, y) be drawn (finite, positive on a log axis)? */
bool svg_drawable(const svg_chart *c, double x, double y);

/* The box of text at (x, y) anchored "start", "middle" or "end". */
svg_box svg_text_box(const char *text, double x, double y, const char *anchor);
/* Does b meet a box placed so far? */
bool svg_box_clash(const svg_chart *c, svg_box b);
/* Remember b (a text or a highlighted mark) as taken. */
void svg_box_take(svg_chart *c, svg_box b);
/* A name for the right of the plot, naming what is at plot y ay (x ax). */
void svg_end_label(svg_chart *c, double ax, double ay, const char *text);
/* Lay out and draw the names svg_end_label collected. */
void svg_end_labels(svg_chart *c);
/* Text centred above (px, py) if there is room in the plot. */
void svg_label_above(svg_chart *c, double px, double py, const char *text);
/* A label near (px, py) for a vertical line at px, in the plot. */
void svg_vline_label(svg_chart *c, double px, const char *text);

#endif
