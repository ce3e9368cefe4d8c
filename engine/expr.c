/* Filter expressions (expr.h): a recursive-descent compiler to postfix
 * code and a stack machine over doubles, NaN standing for "no value"
 * with SQL's three-valued logic. */
#include "expr.h"

#include <ctype.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fields.h"
#include "plan.h"

enum {
    OP_NUM,   /* push num */
    OP_FIELD, /* push a numeric field */
    OP_TEQ,   /* push text field == literal */
    OP_TNE,
    OP_NEG,
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_LT,
    OP_LE,
    OP_GT,
    OP_GE,
    OP_EQ,
    OP_NE,
    OP_NOT,
    OP_AND,
    OP_OR
};

#define STACK_MAX TPLAN_EXPR_MAX_CODE

typedef enum {
    T_END,
    T_NUM,
    T_TEXT,
    T_NAME,
    T_OP, /* punctuation: text in tok */
    T_LP,
    T_RP
} tok_kind;

typedef struct parser {
    const char *src, *p;
    tok_kind kind;
    const char *start; /* the token's first character */
    size_t len;
    double num;
    tplan_expr *e;
    tplan_err *err;
    int rc;
} parser;

static int fail(parser *ps, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The first error wins: "where: 'SRC': MESSAGE at character N", N the
 * position of the token ps->start points at. */
static int fail(parser *ps, const char *fmt, ...)
{
    char msg[200];
    va_list ap;

    if (ps->rc)
        return ps->rc;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ps->rc = tplan_err_set(ps->err, TPLAN_EINVAL, "where",
                           "where: '%.200s': %s at character %d", ps->src, msg,
                           (int)(ps->start - ps->src) + 1);
    return ps->rc;
}

static void next(parser *ps)
{
    const char *p = ps->p;

    while (isspace((unsigned char)*p))
        p++;
    ps->start = p;
    if (!*p) {
        ps->kind = T_END;
        ps->len = 0;
    } else if (isdigit((unsigned char)*p) ||
               (*p == '.' && isdigit((unsigned char)p[1]))) {
        char *end;

        ps->num = strtod(p, &end);
        ps->kind = T_NUM;
        p = end;
    } else if (isalpha((unsigned char)*p) || *p == '_') {
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        ps->kind = T_NAME;
    } else if (*p == '"' || *p == '\'') {
        const char *q = strchr(p + 1, *p);

        if (!q) {
            ps->len = 1;
            ps->p = p + 1;
            fail(ps, "unclosed text");
            ps->kind = T_END;
            return;
        }
        ps->kind = T_TEXT;
        p = q + 1;
    } else if (*p == '(' || *p == ')') {
        ps->kind = *p == '(' ? T_LP : T_RP;
        p++;
    } else if (strchr("=!~<>", *p) && p[1] == '=') {
        ps->kind = T_OP;
        p += 2;
    } else {
        ps->kind = T_OP;
        p++;
    }
    ps->len = (size_t)(p - ps->start);
    ps->p = p;
}

static bool is_op(const parser *ps, const char *op)
{
    return ps->kind == T_OP && strlen(op) == ps->len &&
           strncmp(ps->start, op, ps->len) == 0;
}

static bool is_word(const parser *ps, const char *w)
{
    return ps->kind == T_NAME && strlen(w) == ps->len &&
           strncasecmp(ps->start, w, ps->len) == 0;
}

static void emit(parser *ps, int op, int field, double num)
{
    if (ps->rc)
        return;
    if (ps->e->n == TPLAN_EXPR_MAX_CODE) {
        fail(ps, "more than %d operations", TPLAN_EXPR_MAX_CODE);
        return;
    }
    ps->e->code[ps->e->n++] = (tplan_expr_op){(uint8_t)op, (int16_t)field, num};
}

/* An operand's kind, for the checks a compiler can make: a number, or a
 * text field (which may only meet a text literal). */
typedef enum { V_NUM, V_TEXTFIELD, V_TEXT } vkind;

typedef struct operand {
    vkind kind;
    int field;       /* V_TEXTFIELD */
    const char *at;  /* where it starts */
    const char *lit; /* V_TEXT: its characters */
    size_t lit_len;
} operand;

static operand parse_or(parser *ps);

static operand number_operand(parser *ps, operand o)
{
    if (o.kind == V_TEXTFIELD) {
        const tplan_field *f = tplan_field_at(o.field);

        ps->start = o.at;
        fail(ps, "%.*s is text: compare it with == or != to \"a name\"",
             (int)(strlen(f->name)), f->name);
    } else if (o.kind == V_TEXT) {
        ps->start = o.at;
        fail(ps, "text %.*s where a number belongs", (int)(o.lit_len + 2),
             o.at);
    }
    return (operand){V_NUM, -1, o.at, NULL, 0};
}

static operand parse_primary(parser *ps)
{
    operand o = {V_NUM, -1, ps->start, NULL, 0};

    if (ps->rc)
        return o;
    if (ps->kind == T_NUM) {
        emit(ps, OP_NUM, 0, ps->num);
        next(ps);
    } else if (ps->kind == T_TEXT) {
        o.kind = V_TEXT;
        o.lit = ps->start + 1;
        o.lit_len = ps->len - 2;
        next(ps);
    } else if (is_word(ps, "true") || is_word(ps, "false")) {
        emit(ps, OP_NUM, 0, is_word(ps, "true") ? 1.0 : 0.0);
        next(ps);
    } else if (ps->kind == T_NAME && !is_word(ps, "and") &&
               !is_word(ps, "or") && !is_word(ps, "not")) {
        char name[64];
        int id;
        const tplan_field *f;

        snprintf(name, sizeof name, "%.*s", (int)ps->len, ps->start);
        id = ps->len < sizeof name ? tplan_field_find(name) : -1;
        f = id >= 0 ? tplan_field_at(id) : NULL;
        if (!f || !(f->flags & TPLAN_FIELD_OUT)) {
            fail(ps, "unknown field '%.*s' (tplan fields lists them)",
                 (int)(ps->len), ps->start);
            return o;
        }
        if (strcmp(f->name, "warnings") == 0) {
            fail(ps,
                 "'%.*s' is made for kept plans only: filter on the "
                 "figures",
                 (int)(ps->len), ps->start);
            return o;
        }
        if (f->type == TPLAN_FT_TEXT) {
            o.kind = V_TEXTFIELD;
            o.field = id;
        } else {
            emit(ps, OP_FIELD, id, 0.0);
        }
        next(ps);
    } else if (ps->kind == T_LP) {
        next(ps);
        o = parse_or(ps);
        o.at = o.at ? o.at : ps->start;
        if (ps->kind != T_RP)
            fail(ps,
                 ps->kind == T_END ? "expected ')' at the end%.*s"
                                   : "expected ')' instead of '%.*s'",
                 (int)ps->len, ps->start);
        next(ps);
    } else {
        fail(ps,
             ps->kind == T_END
                 ? "expected a field, a number or '(' at the end%.*s"
                 : "expected a field, a number or '(' instead of '%.*s'",
             (int)ps->len, ps->start);
    }
    return o;
}

/* A prefix operator (unary -, not) over the operand rule that follows it
 * (itself again), or the next rule when the token is not that operator. */
static operand prefix(parser *ps, bool here, int op, operand (*self)(parser *),
                      operand (*rest)(parser *))
{
    const char *at = ps->start;
    operand o;

    if (!here)
        return rest(ps);
    next(ps);
    o = number_operand(ps, self(ps));
    emit(ps, op, 0, 0.0);
    o.at = at;
    return o;
}

static operand parse_unary(parser *ps)
{
    return prefix(ps, is_op(ps, "-"), OP_NEG, parse_unary, parse_primary);
}

/* * and / (level 1), + and - (level 0) */
static operand parse_binary(parser *ps, int level)
{
    static const char *const ops[2][2] = {{"+", "-"}, {"*", "/"}};
    static const int codes[2][2] = {{OP_ADD, OP_SUB}, {OP_MUL, OP_DIV}};
    operand l = level == 1 ? parse_unary(ps) : parse_binary(ps, 1);

    for (;;) {
        int k = is_op(ps, ops[level][0])   ? 0
                : is_op(ps, ops[level][1]) ? 1
                                           : -1;

        if (k < 0 || ps->rc)
            return l;
        l = number_operand(ps, l);
        next(ps);
        number_operand(ps, level == 1 ? parse_unary(ps) : parse_binary(ps, 1));
        emit(ps, codes[level][k], 0, 0.0);
    }
}

/* A text field against a literal: the literal must be one of an enum's
 * names. */
static void text_compare(parser *ps, const operand *f, const operand *t,
                         bool eq)
{
    const tplan_field *fd = tplan_field_at(f->field);
    size_t off;

    if (fd->kind == TPLAN_FK_ENUM && fd->values) {
        bool found = false;

        for (int i = 0; fd->values[i] && !found; i++)
            found = strlen(fd->values[i]) == t->lit_len &&
                    strncmp(fd->values[i], t->lit, t->lit_len) == 0;
        if (!found) {
            char valid[256];

            tplan_field_valid(f->field, valid, sizeof valid);
            ps->start = t->at;
            fail(ps, "'%.*s' is none of the field's names", (int)(t->lit_len),
                 t->lit);
            if (ps->rc) {
                size_t n = strlen(ps->err->msg);

                snprintf(ps->err->msg + n, sizeof ps->err->msg - n, " (%s: %s)",
                         fd->name, valid);
            }
            return;
        }
    }
    /* counted, not found by scanning: an empty literal is one NUL */
    off = (size_t)ps->e->text_used;
    if (off + t->lit_len + 1 > TPLAN_EXPR_MAX_TEXT) {
        ps->start = t->at;
        fail(ps, "more than %d bytes of text", TPLAN_EXPR_MAX_TEXT);
        return;
    }
    memcpy(ps->e->text + off, t->lit, t->lit_len);
    ps->e->text[off + t->lit_len] = '\0';
    ps->e->text_used = (int)(off + t->lit_len + 1);
    emit(ps, eq ? OP_TEQ : OP_TNE, f->field, (double)off);
}

static operand parse_compare(parser *ps)
{
    static const char *const ops[] = {"<", "<=", ">", ">=", "==", "!=", "~="};
    static const int codes[] = {OP_LT, OP_LE, OP_GT, OP_GE,
                                OP_EQ, OP_NE, OP_NE};
    operand l = parse_binary(ps, 0), r;
    int k = -1;

    for (int i = 0; i < 7 && k < 0; i++)
        if (is_op(ps, ops[i]))
            k = i;
    if (is_op(ps, "="))
        fail(ps, "'%.*s': compare with ==", (int)(ps->len), ps->start);
    if (k < 0 || ps->rc) {
        if (l.kind != V_NUM && !ps->rc) {
            ps->start = l.at;
            fail(ps, "%s alone is not a condition",
                 l.kind == V_TEXT ? "a text" : "a text field");
        }
        return l;
    }
    next(ps);
    r = parse_binary(ps, 0);
    if (ps->rc)
        return l;
    if (l.kind == V_TEXTFIELD || r.kind == V_TEXTFIELD) {
        const operand *f = l.kind == V_TEXTFIELD ? &l : &r;
        const operand *t = l.kind == V_TEXTFIELD ? &r : &l;

        if (k < 4 || t->kind != V_TEXT) {
            ps->start = f->at;
            fail(ps, "%.*s is text: compare it with == or != to \"a name\"",
                 (int)(strlen(tplan_field_at(f->field)->name)),
                 tplan_field_at(f->field)->name);
        } else {
            text_compare(ps, f, t, k == 4);
        }
    } else {
        number_operand(ps, l);
        number_operand(ps, r);
        emit(ps, codes[k], 0, 0.0);
    }
    return (operand){V_NUM, -1, l.at, NULL, 0};
}

static operand parse_not(parser *ps)
{
    return prefix(ps, is_word(ps, "not"), OP_NOT, parse_not, parse_compare);
}

/* A left-associative chain of a word operator (and, or) over the next
 * rule. */
static operand chain(parser *ps, const char *word, int op,
                     operand (*rest)(parser *))
{
    operand l = rest(ps);

    while (is_word(ps, word) && !ps->rc) {
        number_operand(ps, l);
        next(ps);
        number_operand(ps, rest(ps));
        emit(ps, op, 0, 0.0);
    }
    return l;
}

static operand parse_and(parser *ps)
{
    return chain(ps, "and", OP_AND, parse_not);
}

static operand parse_or(parser *ps)
{
    return chain(ps, "or", OP_OR, parse_and);
}

/* The deepest the stack gets (each op's net effect is known). */
static int depth(const tplan_expr *e)
{
    int d = 0, most = 0;

    for (int i = 0; i < e->n; i++) {
        int op = e->code[i].op;

        d += op <= OP_TNE ? 1 : op == OP_NEG || op == OP_NOT ? 0 : -1;
        if (d > most)
            most = d;
    }
    return most;
}

int tplan_expr_compile(const char *src, tplan_expr *e, tplan_err *err)
{
    parser ps;
    size_t n = strlen(src);

    memset(e, 0, sizeof *e);
    if (n > TPLAN_EXPR_MAX_LEN)
        return tplan_err_set(err, TPLAN_EINVAL, "where",
                             "where: an expression of %zu characters (at "
                             "most %d)",
                             n, TPLAN_EXPR_MAX_LEN);
    memcpy(e->source, src, n + 1);
    memset(&ps, 0, sizeof ps);
    ps.src = ps.p = src;
    ps.e = e;
    ps.err = err;
    next(&ps);
    if (ps.kind == T_END && !ps.rc)
        return tplan_err_set(err, TPLAN_EINVAL, "where",
                             "where: an empty expression");
    number_operand(&ps, parse_or(&ps));
    if (!ps.rc && ps.kind != T_END)
        fail(&ps, "unexpected '%.*s'", (int)(ps.len), ps.start);
    if (!ps.rc && depth(e) > STACK_MAX)
        fail(&ps, "nested deeper than %d", STACK_MAX);
    if (ps.rc)
        e->n = 0;
    return ps.rc;
}

static bool truthy(double v)
{
    return !isnan(v) && v != 0.0;
}

bool tplan_expr_eval(const tplan_expr *e, const tplan_plan *p)
{
    double st[STACK_MAX];
    int sp = 0;
    char buf[64];

    for (int i = 0; i < e->n; i++) {
        const tplan_expr_op *o = &e->code[i];
        double a, b;

        switch (o->op) {
        case OP_NUM:
            st[sp++] = o->num;
            continue;
        case OP_FIELD: {
            const tplan_field *f = tplan_field_at(o->field);
            tplan_value v = tplan_field_get(o->field, p, buf, sizeof buf);

            st[sp++] = f->type == TPLAN_FT_REAL ? v.r : (double)v.i;
            continue;
        }
        case OP_TEQ:
        case OP_TNE: {
            tplan_value v = tplan_field_get(o->field, p, buf, sizeof buf);
            bool eq;

            if (!v.s) {
                st[sp++] = (double)NAN;
                continue;
            }
            eq = strcmp(v.s, e->text + (int)o->num) == 0;
            st[sp++] = eq == (o->op == OP_TEQ) ? 1.0 : 0.0;
            continue;
        }
        case OP_NEG:
            st[sp - 1] = -st[sp - 1];
            continue;
        case OP_NOT:
            a = st[sp - 1];
            st[sp - 1] = isnan(a) ? a : truthy(a) ? 0.0 : 1.0;
            continue;
        default:
            break;
        }
        b = st[--sp];
        a = st[sp - 1];
        switch (o->op) {
        case OP_ADD:
            a += b;
            break;
        case OP_SUB:
            a -= b;
            break;
        case OP_MUL:
            a *= b;
            break;
        case OP_DIV:
            a = b != 0.0 ? a / b : (double)NAN;
            break;
        case OP_AND: /* false wins over no value, no value over true */
            a = (!isnan(a) && a == 0.0) || (!isnan(b) && b == 0.0) ? 0.0
                : isnan(a) || isnan(b)                             ? (double)NAN
                                                                   : 1.0;
            break;
        case OP_OR: /* true wins over no value, no value over false */
            a = truthy(a) || truthy(b) ? 1.0
                : isnan(a) || isnan(b) ? (double)NAN
                                       : 0.0;
            break;
        default: /* comparisons: no value compares as no value */
            if (isnan(a) || isnan(b)) {
                a = (double)NAN;
                break;
            }
            a = o->op == OP_LT   ? a < b
                : o->op == OP_LE ? a <= b
                : o->op == OP_GT ? a > b
                : o->op == OP_GE ? a >= b
                : o->op == OP_EQ ? a == b
                                 : a != b;
            break;
        }
        st[sp - 1] = a;
    }
    return e->n > 0 && sp == 1 && truthy(st[0]);
}
