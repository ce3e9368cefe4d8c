/* A Hugging Face config.json's keys mapped into a model spec, over a
 * lookup the caller supplies (no JSON library here): calc --model-config
 * looks keys up in jansson's tree (db/hf_config.c), the browser page in
 * JSON.parse's object (web/tplan_web.c). */
#ifndef TPLAN_HF_MAP_H
#define TPLAN_HF_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "model.h"

typedef enum {
    TPLAN_HV_ABSENT, /* the key is not there */
    TPLAN_HV_NULL,
    TPLAN_HV_FALSE,
    TPLAN_HV_TRUE,
    TPLAN_HV_INT,
    TPLAN_HV_REAL, /* a number with a fraction or exponent part */
    TPLAN_HV_STRING,
    TPLAN_HV_ARRAY,
    TPLAN_HV_OBJECT
} tplan_hv_kind;

/* One value as the mapping reads it. */
typedef struct tplan_hv {
    tplan_hv_kind kind;
    int64_t i;       /* TPLAN_HV_INT */
    size_t n;        /* TPLAN_HV_ARRAY: its length */
    const char *s;   /* TPLAN_HV_STRING: valid until the next get */
    const void *obj; /* TPLAN_HV_OBJECT: a handle get takes */
} tplan_hv;

/* The lookup: *out := key's value in object obj (a handle from a
 * TPLAN_HV_OBJECT value); out comes zeroed. */
typedef struct tplan_hf_keys {
    void *ctx;
    void (*get)(void *ctx, const void *obj, const char *key, tplan_hv *out);
} tplan_hf_keys;

/* root (the parsed file) into *out, named after path's directory or file
 * (path also names the config in messages). Supported model_type values:
 * tplan_hf_config_types(). The shape fields a config must give (hidden
 * size, layers, heads, FFN width, vocabulary) are errors when missing; the
 * others take the transformers library's defaults for that type. */
int tplan_hf_map(const tplan_hf_keys *k, tplan_hv root, const char *path,
                 tplan_model *out, tplan_err *err);

/* "llama, mistral, ..." (static). */
const char *tplan_hf_config_types(void);

#endif
