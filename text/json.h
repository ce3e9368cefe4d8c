/* A small streaming JSON writer, to a FILE (the CLI) or into a growing
 * buffer (the browser page, which has no files): the same bytes either
 * way. Keys are borrowed strings; numbers are written in the shortest
 * form that reads back exactly. Engine types only. */
#ifndef TPLAN_TEXT_JSON_H
#define TPLAN_TEXT_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "plan.h"

#define JSON_MAX_DEPTH 16

typedef struct json_w {
    FILE *f; /* borrowed; NULL: into buf */
    int depth;
    bool first[JSON_MAX_DEPTH];
    char *buf; /* owned, NUL-terminated (json_init_buf) */
    size_t n, cap;
    bool oom; /* a growth failed: buf is incomplete */
} json_w;

void json_init(json_w *w, FILE *f);
/* Write into a buffer that grows as needed. */
void json_init_buf(json_w *w);
/* The buffer's text, handed to the caller (free it), or NULL when out of
 * memory (nothing is passed off as complete); w may be reused after
 * json_init_buf. */
char *json_take_buf(json_w *w);
/* key is NULL inside arrays and for the top-level value. */
void json_obj_begin(json_w *w, const char *key);
void json_obj_end(json_w *w);
void json_arr_begin(json_w *w, const char *key);
void json_arr_end(json_w *w);
void json_int(json_w *w, const char *key, int64_t v);
void json_num(json_w *w, const char *key, double v);
/* v NULL: null. */
void json_str(json_w *w, const char *key, const char *v);
void json_bool(json_w *w, const char *key, bool v);

/* Shortest "%.*g" text of v that parses back to exactly v. */
void fmt_double(char *buf, size_t len, double v);

/* Every plan field of p by its contract name (tplan fields), as a CSV
 * row or database row holds it: an object under key. */
void json_plan_fields(json_w *w, const char *key, const tplan_plan *p);

#endif
