/* Filter expressions over plan fields, compiled once and evaluated in the
 * sweep's worker threads: `fits and mfu > 0.4 and cost_usd < 2e6`,
 * `precision == "bf16" or (tp * pp <= 8 and not sp)`. Operands are output
 * fields by their contract names (`tplan fields`), numbers, "text" or
 * 'text' (compared with ==, != or ~= against a text field only), true
 * and false; operators, loosest first: or; and; not; == != ~= < <= > >=;
 * + -; * /; unary -. A field with no value (cost without a budget) makes
 * every comparison with it false, as SQL's NULL. Knows nothing of I/O. */
#ifndef TPLAN_EXPR_H
#define TPLAN_EXPR_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"

struct tplan_plan;

#define TPLAN_EXPR_MAX_CODE 128
#define TPLAN_EXPR_MAX_TEXT 512 /* bytes of text literals */
#define TPLAN_EXPR_MAX_LEN  1000

typedef struct tplan_expr_op {
    uint8_t op;
    int16_t field; /* a field id, or a text literal's offset */
    double num;
} tplan_expr_op;

typedef struct tplan_expr {
    int n; /* 0: no expression */
    tplan_expr_op code[TPLAN_EXPR_MAX_CODE];
    char text[TPLAN_EXPR_MAX_TEXT];
    int text_used; /* bytes of text taken, NULs included */
    char source[TPLAN_EXPR_MAX_LEN + 1];
} tplan_expr;

/* Compile src into *e. A bad expression is TPLAN_EINVAL with a message
 * naming the token and its position: "where: 'mfu >> 0.4': unexpected
 * '>' at character 6". */
int tplan_expr_compile(const char *src, tplan_expr *e, tplan_err *err);

/* Whether plan p passes: the expression's value is true (a number other
 * than 0; no value is false). */
bool tplan_expr_eval(const tplan_expr *e, const struct tplan_plan *p);

#endif
