/* Streaming JSON writer: indentation, commas, escaping. */
#include "json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "fmt_real.h"

void json_init(json_w *w, FILE *f)
{
    memset(w, 0, sizeof *w);
    w->f = f;
    w->first[0] = true;
}

void json_init_buf(json_w *w)
{
    json_init(w, NULL);
}

char *json_take_buf(json_w *w)
{
    char *s = w->buf;

    if (w->oom || !s) {
        free(s);
        s = w->oom ? NULL : calloc(1, 1);
    }
    w->buf = NULL;
    w->n = w->cap = 0;
    w->oom = false;
    return s;
}

/* n bytes of s to the FILE or the buffer. */
static void put(json_w *w, const char *s, size_t n)
{
    if (w->f) {
        fwrite(s, 1, n, w->f);
        return;
    }
    if (w->oom)
        return;
    if (w->n + n + 1 > w->cap) {
        size_t cap = (w->cap ? w->cap * 2 : 4096) + n;
        char *p = realloc(w->buf, cap);

        if (!p) {
            w->oom = true;
            return;
        }
        w->buf = p;
        w->cap = cap;
    }
    memcpy(w->buf + w->n, s, n);
    w->n += n;
    w->buf[w->n] = 0;
}

static void puts_(json_w *w, const char *s)
{
    put(w, s, strlen(s));
}

static void putc_(json_w *w, char c)
{
    put(w, &c, 1);
}

static void indent(json_w *w)
{
    for (int i = 0; i < w->depth; i++)
        puts_(w, "  ");
}

/* Bytes in the well-formed UTF-8 sequence at p (RFC 3629), 0 if none. */
static int utf8_len(const unsigned char *p)
{
    int n = p[0] >= 0xF0 && p[0] <= 0xF4   ? 4
            : p[0] >= 0xE0 && p[0] <= 0xEF ? 3
            : p[0] >= 0xC2 && p[0] <= 0xDF ? 2
                                           : 0;

    for (int i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    if ((n == 3 && p[0] == 0xE0 && p[1] < 0xA0) ||
        (n == 3 && p[0] == 0xED && p[1] >= 0xA0) ||
        (n == 4 && p[0] == 0xF0 && p[1] < 0x90) ||
        (n == 4 && p[0] == 0xF4 && p[1] >= 0x90))
        return 0; /* overlong, surrogate or past U+10FFFF */
    return n;
}

/* A JSON string: escapes, and U+FFFD for bytes that are not UTF-8 (text
 * from a database may be anything), so the output always parses. */
static void put_string(json_w *w, const char *s)
{
    char e[8];

    putc_(w, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            snprintf(e, sizeof e, "\\%c", *p);
            puts_(w, e);
        } else if (*p == '\n') {
            puts_(w, "\\n");
        } else if (*p < 0x20 || *p == 0x7F) {
            snprintf(e, sizeof e, "\\u%04x", *p);
            puts_(w, e);
        } else if (*p < 0x80) {
            putc_(w, (char)*p);
        } else {
            int n = utf8_len(p);

            if (n == 0) {
                puts_(w, "\\ufffd");
            } else {
                put(w, (const char *)p, (size_t)n);
                p += n - 1;
            }
        }
    }
    putc_(w, '"');
}

/* Comma, newline and indentation before a member, then its key. */
static void member(json_w *w, const char *key)
{
    if (w->depth > 0) {
        if (!w->first[w->depth])
            putc_(w, ',');
        putc_(w, '\n');
        indent(w);
    }
    w->first[w->depth] = false;
    if (key) {
        put_string(w, key);
        puts_(w, ": ");
    }
}

static void open(json_w *w, const char *key, char c)
{
    member(w, key);
    putc_(w, c);
    if (w->depth + 1 < JSON_MAX_DEPTH)
        w->depth++;
    w->first[w->depth] = true;
}

static void close_(json_w *w, char c)
{
    bool empty = w->first[w->depth];

    if (w->depth > 0)
        w->depth--;
    if (!empty) {
        putc_(w, '\n');
        indent(w);
    }
    putc_(w, c);
    if (w->depth == 0)
        putc_(w, '\n');
}

void json_obj_begin(json_w *w, const char *key)
{
    open(w, key, '{');
}

void json_obj_end(json_w *w)
{
    close_(w, '}');
}

void json_arr_begin(json_w *w, const char *key)
{
    open(w, key, '[');
}

void json_arr_end(json_w *w)
{
    close_(w, ']');
}

void json_int(json_w *w, const char *key, int64_t v)
{
    char buf[24];

    member(w, key);
    snprintf(buf, sizeof buf, "%lld", (long long)v);
    puts_(w, buf);
}

void fmt_double(char *buf, size_t len, double v)
{
    /* Integral values below 2^53 print as integers, exactly. */
    if (v == floor(v) && fabs(v) < 9007199254740992.0) {
        snprintf(buf, len, "%.0f", v);
        return;
    }
    tplan_fmt_real(buf, len, v); /* the CSV writer's: one rule for both */
}

void json_num(json_w *w, const char *key, double v)
{
    char buf[32];

    member(w, key);
    if (!isfinite(v)) {
        puts_(w, "null");
        return;
    }
    fmt_double(buf, sizeof buf, v);
    puts_(w, buf);
}

void json_str(json_w *w, const char *key, const char *v)
{
    member(w, key);
    if (v)
        put_string(w, v);
    else
        puts_(w, "null");
}

void json_bool(json_w *w, const char *key, bool v)
{
    member(w, key);
    puts_(w, v ? "true" : "false");
}

void json_plan_fields(json_w *w, const char *key, const tplan_plan *p)
{
    char buf[TPLAN_MAX_WARNINGS * TPLAN_WARNING_LEN];

    json_obj_begin(w, key);
    for (int id = 0; id < tplan_field_count(); id++) {
        const tplan_field *f = tplan_field_at(id);
        tplan_value v = tplan_field_get(id, p, buf, sizeof buf);

        switch (f->type) {
        case TPLAN_FT_INT:
            json_int(w, f->name, v.i);
            break;
        case TPLAN_FT_BOOL:
            json_bool(w, f->name, v.i != 0);
            break;
        case TPLAN_FT_REAL:
            json_num(w, f->name, v.r);
            break;
        default:
            json_str(w, f->name, v.s);
            break;
        }
    }
    json_obj_end(w);
}
