/* A small streaming JSON writer for the CLI. Keys are borrowed strings;
 * numbers are written in the shortest form that reads back exactly. */
#ifndef TPLAN_CLI_JSON_H
#define TPLAN_CLI_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "plan.h"

#define JSON_MAX_DEPTH 16

typedef struct json_w {
    FILE *f; /* borrowed */
    int depth;
    bool first[JSON_MAX_DEPTH];
} json_w;

void json_init(json_w *w, FILE *f);
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
