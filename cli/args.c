/* Strict number parsing for options. */
#include "args.h"
#include "config.h"
#include "status.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where the options being read came from ("runs.csv:3"), or NULL. */
static const char *context;

void usage_context(const char *where)
{
    context = where;
}

int usage_error(const char *fmt, ...)
{
    char buf[600];
    int n = 0;
    va_list ap;

    if (context)
        n = snprintf(buf, sizeof buf, "%s: ", context);
    va_start(ap, fmt);
    vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    va_end(ap);
    /* One line, whatever the user typed: control characters become '?'. */
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    /* a message that names its command ("tplan export: ...") is its own
     * prefix, not "tplan: tplan export: ..." */
    fprintf(stderr, "%s%s\n", strncmp(buf, "tplan ", 6) == 0 ? "" : "tplan: ",
            buf);
    return exit_status(TPLAN_EUSAGE);
}

static int count(const char *opt, const char *text, int64_t min, bool suffix,
                 int64_t *out)
{
    double v;

    if (!tplan_number_parse(text, suffix, &v) || v != floor(v) || v < (double)min)
        return usage_error("%s must be an integer >= %lld (%s=%s)", opt,
                           (long long)min, opt, text);
    if (v > 9e18)
        return usage_error("%s is too large (%s=%s)", opt, opt, text);
    *out = (int64_t)v;
    return 0;
}

int parse_count(const char *opt, const char *text, int64_t min, int64_t *out)
{
    return count(opt, text, min, false, out);
}

int parse_big_count(const char *opt, const char *text, int64_t min,
                    int64_t *out)
{
    return count(opt, text, min, true, out);
}

int parse_real(const char *opt, const char *text, double min, double max,
               double *out)
{
    double v;

    if (!tplan_number_parse(text, false, &v) || v < min || v > max)
        return usage_error("%s must be a number in [%g, %g] (%s=%s)", opt, min,
                           max, opt, text);
    *out = v;
    return 0;
}

bool read_positive(const char *text, double max, double *out)
{
    double v;

    if (!tplan_number_parse(text, true, &v) || !(v > 0.0) || v > max)
        return false;
    *out = v;
    return true;
}

int parse_positive(const char *opt, const char *text, double max, double *out)
{
    double v;

    if (!read_positive(text, max, &v))
        return usage_error("%s must be a number in (0, %g] (%s=%s)", opt, max,
                           opt, text);
    *out = v;
    return 0;
}
