/* Numbers as text that reads back exactly (text/fmt_real.c): the one rule
 * CSV, JSON and the browser page share. Engine types only. */
#ifndef TPLAN_TEXT_FMT_REAL_H
#define TPLAN_TEXT_FMT_REAL_H

#include <stddef.h>

/* Format a double so that strtod reads back the same value, in the fewest
 * significant digits (15 to 17). Returns the length. */
int tplan_fmt_real(char *buf, size_t len, double v);

/* Input id's value v (as tplan_field_apply takes it) as the text calc
 * reads back: its name (enums, booleans) or tplan_fmt_real's decimal. */
void tplan_fmt_field(char *buf, size_t len, int id, double v);

#endif
