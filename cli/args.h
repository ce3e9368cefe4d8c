/* Command-line value parsing shared by the subcommands. Every failure
 * prints one line naming the option and the value, and returns 2. */
#ifndef TPLAN_CLI_ARGS_H
#define TPLAN_CLI_ARGS_H

#include <stdbool.h>
#include <stdint.h>

/* Print "tplan: <message>" on stderr; returns the usage error's exit
 * status (2, cli/status.c). */
int usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Put "WHERE: " before every usage error until called with NULL (tplan
 * calibrate reads calc's options from a CSV row). where is borrowed. */
void usage_context(const char *where);

/* A count in plain decimal notation, an exponent allowed when the value is
 * integral ("8192", "1e6"). min is the smallest accepted. */
int parse_count(const char *opt, const char *text, int64_t min, int64_t *out);

/* The same, also taking a K/M/B/T suffix (10^3..10^12: "7B", "350M") for
 * sizes people write that way (parameters). */
int parse_big_count(const char *opt, const char *text, int64_t min,
                    int64_t *out);

/* A finite real number in [min, max]. */
int parse_real(const char *opt, const char *text, double min, double max,
               double *out);

/* A finite real number in (0, max], a K/M/B/T suffix allowed ("15T"
 * tokens). */
int parse_positive(const char *opt, const char *text, double max, double *out);

/* The same check without printing: true when text is a real in (0, max]. */
bool read_positive(const char *text, double max, double *out);

#endif
