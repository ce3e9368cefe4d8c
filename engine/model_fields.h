/* The model-shape inputs added for mixtures of experts, latent attention
 * and attention windows, described once: every front end (calc options,
 * tplan.model fields, model CSV columns, `tplan models --json`) reads and
 * writes them through this table. Knows nothing of I/O. */
#ifndef TPLAN_MODEL_FIELDS_H
#define TPLAN_MODEL_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

typedef struct tplan_model_field {
    const char *name;   /* Lua field, CSV column, JSON key ("top_k") */
    const char *option; /* calc option without dashes ("top-k") */
    bool is_bool;       /* a flag; else a count in [0, max] */
    int64_t max;
    const char *doc; /* one line */
} tplan_model_field;

/* The most rows the table holds (front ends size arrays by it). */
#define TPLAN_MODEL_FIELDS_MAX 32

int tplan_model_field_count(void);
const tplan_model_field *tplan_model_field_at(int i); /* borrowed, static */
/* The index of the field called name ("top_k"), or -1. */
int tplan_model_field_find(const char *name);
/* The index of the field whose calc option is option ("top-k"), or -1. */
int tplan_model_field_find_option(const char *option);

/* Read and write field i of *m (bools as 0/1). set checks the range and
 * returns TPLAN_EINVAL naming the field and the value. */
int64_t tplan_model_field_get(const tplan_model *m, int i);
int tplan_model_field_set(tplan_model *m, int i, int64_t v, tplan_err *err);

#endif
