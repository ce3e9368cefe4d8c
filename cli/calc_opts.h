/* Option parsing for `tplan calc`: argv -> engine config. */
#ifndef TPLAN_CLI_CALC_OPTS_H
#define TPLAN_CLI_CALC_OPTS_H

#include <stdbool.h>

#include "config.h"
#include "fields.h"

#include <stdint.h>

#define CALC_MAX_COMPARE 32

typedef struct calc_out {
    int64_t compare[CALC_MAX_COMPARE]; /* --compare-gpus */
    int n_compare;
    int64_t batches[CALC_MAX_COMPARE]; /* --compare-batches */
    int n_batches;
    bool json;
    bool inventory; /* list the activation tensors */
    const char *report; /* --report FILE.html (argv's); NULL: none */
    /* the plan inputs given, by field id: on the command line or by the
     * framework (its built-in values or --framework-file's row); the
     * assumptions left at their defaults are the others (assume.h) */
    bool given[TPLAN_MAX_FIELDS];
    bool help;
    /* --web-link: the plan's options as the browser page's URL query
     * (docs/web.md), the plan fields given, percent-encoded */
    bool web_link;
    char web_query[4096];
    /* --qlora's expansion as applied ("" without it): the flags it stands
     * for, and those of them the command line gave itself, which win */
    char qlora[256];
    char qlora_given[256];
} calc_out;

/* Fill *c from argv (argv[0] is "calc"). Returns 0, or 2 after printing
 * one line naming the bad option and value. */
int calc_parse(int argc, const char *const *argv, tplan_config *c,
               calc_out *out);

void calc_usage(void);

/* What `--NAME` is to calc (name without dashes, '-' or '_'): a plan
 * field or model shape option taking a value (CALC_OPT_VALUE), one that
 * takes none (CALC_OPT_FLAG: --tied, --sp; plan-field flags also take
 * =true|false), or anything else (CALC_OPT_NONE: unknown, or calc's own
 * output options). */
typedef enum { CALC_OPT_NONE, CALC_OPT_VALUE, CALC_OPT_FLAG } calc_opt_kind;
calc_opt_kind calc_option_kind(const char *name);

#endif
