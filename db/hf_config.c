/* Hugging Face config.json -> tplan_model (hf_config.h): the file read
 * and parsed by jansson, then mapped by engine/hf_map.c over a lookup in
 * jansson's tree (the browser page maps JSON.parse's object with the same
 * code). */
#include "hf_config.h"

#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hf_map.h"

/* config.json files are a few KB; anything far larger is not one */
#define MAX_CONFIG_BYTES (4 << 20)
/* key's value in object obj (a json_t), as hf_map reads it */
static void jansson_get(void *ctx, const void *obj, const char *key,
                        tplan_hv *out)
{
    const json_t *v = json_object_get(obj, key);

    (void)ctx;
    memset(out, 0, sizeof *out);
    out->kind = TPLAN_HV_ABSENT;
    if (!v)
        return;
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        out->kind = TPLAN_HV_OBJECT;
        out->obj = v;
        break;
    case JSON_ARRAY:
        out->kind = TPLAN_HV_ARRAY;
        out->n = json_array_size(v);
        break;
    case JSON_STRING:
        out->kind = TPLAN_HV_STRING;
        out->s = json_string_value(v);
        break;
    case JSON_INTEGER:
        out->kind = TPLAN_HV_INT;
        out->i = (int64_t)json_integer_value(v);
        break;
    case JSON_REAL:
        out->kind = TPLAN_HV_REAL;
        break;
    case JSON_TRUE:
        out->kind = TPLAN_HV_TRUE;
        break;
    case JSON_FALSE:
        out->kind = TPLAN_HV_FALSE;
        break;
    default:
        out->kind = TPLAN_HV_NULL;
        break;
    }
}

int tplan_hf_config_load(const char *path, tplan_model *out, tplan_err *err)
{
    json_error_t jerr;
    json_t *root;
    char *buf;
    size_t n;
    long size;
    struct stat st;
    FILE *f = fopen(path, "rb");
    int rc;

    if (!f)
        return tplan_err_set(err, TPLAN_EIO, "model_config",
                             "model_config: %.200s: %s", path,
                             strerror(errno));
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_size > MAX_CONFIG_BYTES) {
        fclose(f);
        return tplan_err_set(err, TPLAN_EINVAL, "model_config",
                             "model_config: %.200s: not a regular file of "
                             "at most %d bytes",
                             path, MAX_CONFIG_BYTES);
    }
    size = (long)st.st_size;
    buf = malloc((size_t)size + 1);
    if (!buf) {
        fclose(f);
        return tplan_err_set(err, TPLAN_ENOMEM, "model_config",
                             "out of memory");
    }
    n = fread(buf, 1, (size_t)size, f);
    fclose(f);
    root = json_loadb(buf, n, JSON_REJECT_DUPLICATES, &jerr);
    free(buf);
    if (!root) {
        /* jansson's text ends " near 'TOKEN'", the file's own bytes: a
         * file that is not JSON (config="/etc/shadow") would have its
         * first word echoed (issue 36); the position says where */
        char *near = strstr(jerr.text, " near ");

        if (near)
            *near = '\0';
        return tplan_err_set(err, TPLAN_EINVAL, "model_config",
                             "model_config: %.200s:%d:%d: not valid JSON (%s)",
                             path, jerr.line, jerr.column, jerr.text);
    }
    {
        tplan_hf_keys k = {NULL, jansson_get};
        tplan_hv v;

        memset(&v, 0, sizeof v);
        v.kind = json_is_object(root) ? TPLAN_HV_OBJECT : TPLAN_HV_NULL;
        v.obj = root;
        rc = tplan_hf_map(&k, v, path, out, err);
    }
    json_decref(root);
    return rc;
}
