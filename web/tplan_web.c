/* The browser's entry point: calc's options as a URL query string in, the
 * plan as JSON out. Engine only: no Lua, SQLite, CSV or file I/O goes
 * into the wasm (issue 39).
 *
 * The query's names are calc's long flags without "--"; each names a plan
 * field (engine/fields.c's table), and the steps follow calc_parse
 * (cli/calc_opts.c) in its order: model preset, GPU (h100-sxm when none),
 * config defaults, the model's default seq, a built-in framework, then the
 * fields. The result is calc's whole JSON object, written by the same
 * code (text/calc_json.c), with the assumptions calc lists. Assumption
 * (named): model files, --params, --qlora
 * and calc's shape flags are not read here yet; an unknown name is an
 * error naming it. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calc_json.h"
#include "config.h"
#include "fields.h"
#include "framework.h"
#include "hardware.h"
#include "hf_map.h"
#include "model.h"
#include "plan.h"

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#define WEB_EXPORT EMSCRIPTEN_KEEPALIVE
#else
#define WEB_EXPORT
#endif

/* A pasted config.json: the page parses it with the browser's JSON.parse
 * and keeps its objects in Module.tplanObjs (the root first); the
 * mapping (engine/hf_map.c, the one calc --model-config runs) looks keys
 * up through js_cfg_get. Its return values are tplan_hv_kind's, in order.
 * Assumption (named): JSON.parse keeps no integer/real distinction, so a
 * whole number written as a real (4096.0, 1e3) reads as an integer here,
 * where calc says "must be an integer"; a duplicate key keeps its last
 * value, where calc refuses the file. */
_Static_assert(TPLAN_HV_ABSENT == 0 && TPLAN_HV_NULL == 1 &&
                   TPLAN_HV_FALSE == 2 && TPLAN_HV_TRUE == 3 &&
                   TPLAN_HV_INT == 4 && TPLAN_HV_REAL == 5 &&
                   TPLAN_HV_STRING == 6 && TPLAN_HV_ARRAY == 7 &&
                   TPLAN_HV_OBJECT == 8,
               "js_cfg_get returns these codes");
#ifdef __EMSCRIPTEN__
EM_JS(int, js_cfg_get,
      (int obj, const char *key, double *num, int *handle, char *str,
       int cap),
      {
          var objs = Module.tplanObjs, o = objs && objs[obj];
          var k = UTF8ToString(key);
          if (!o || !Object.prototype.hasOwnProperty.call(o, k))
              return 0;
          var v = o[k];
          if (v === null)
              return 1;
          if (v === false)
              return 2;
          if (v === true)
              return 3;
          if (typeof v === 'number') {
              HEAPF64[num >> 3] = v;
              return Number.isSafeInteger(v) ? 4 : 5;
          }
          if (typeof v === 'string') {
              stringToUTF8(v, str, cap);
              return 6;
          }
          if (Array.isArray(v)) {
              HEAPF64[num >> 3] = v.length;
              return 7;
          }
          objs.push(v);
          HEAP32[handle >> 2] = objs.length - 1;
          return 8;
      })
#else
/* built for the wasm only; a stub keeps a host compile of this file
 * honest: no config is there */
static int js_cfg_get(int obj, const char *key, double *num, int *handle,
                      char *str, int cap)
{
    (void)obj, (void)key, (void)num, (void)handle, (void)str, (void)cap;
    return 0;
}
#endif

/* tplan_hf_keys' lookup over the page's objects (handle = index). */
static void js_get(void *ctx, const void *obj, const char *key,
                   tplan_hv *out)
{
    static char str[512];
    double num = 0.0;
    int h = 0;

    (void)ctx;
    memset(out, 0, sizeof *out);
    out->kind = (tplan_hv_kind)js_cfg_get((int)(intptr_t)obj, key, &num, &h,
                                          str, (int)sizeof str);
    if (out->kind == TPLAN_HV_INT)
        out->i = (int64_t)num;
    else if (out->kind == TPLAN_HV_ARRAY)
        out->n = (size_t)num;
    else if (out->kind == TPLAN_HV_STRING)
        out->s = str;
    else if (out->kind == TPLAN_HV_OBJECT)
        out->obj = (const void *)(intptr_t)h;
}

/* The pasted config, when there is one: its label (a file name, for the
 * model's name and messages) and the kind of its root value. */
typedef struct web_cfg {
    const char *label;
    int root_kind;
} web_cfg;

#include "tplan_web.h"

/* %XX and '+' decoded in place. */
static void url_decode(char *s)
{
    char *o = s;

    for (; *s; s++) {
        if (*s == '+') {
            *o++ = ' ';
        } else if (*s == '%' && s[1] && s[2]) {
            char h[3] = {s[1], s[2], 0};
            char *end;
            long v = strtol(h, &end, 16);

            if (*end) {
                *o++ = *s;
                continue;
            }
            *o++ = (char)v;
            s += 2;
        } else {
            *o++ = *s;
        }
    }
    *o = 0;
}

static void put_error(json_w *w, const char *field, const char *msg)
{
    json_obj_begin(w, NULL);
    json_str(w, "error", msg);
    json_str(w, "field", field);
    json_obj_end(w);
}

/* Parse the query into *c (calc_parse's order), the fields given (by
 * the query or the framework, as calc counts them) into given. 0, or the
 * error in *err. */
static int build_config(char *q, const web_cfg *cfg, tplan_config *c,
                        bool *given, tplan_err *err)
{
    int nf = tplan_field_count();
    const char **fval = calloc((size_t)nf, sizeof *fval);
    int rc = TPLAN_OK;

    if (!fval) {
        snprintf(err->field, sizeof err->field, "%s", "");
        snprintf(err->msg, sizeof err->msg, "out of memory");
        return TPLAN_EINVAL;
    }
    for (char *save = NULL, *kv = strtok_r(q, "&", &save); kv;
         kv = strtok_r(NULL, "&", &save)) {
        char *eq = strchr(kv, '=');
        char flag[80];
        int id;

        if (eq)
            *eq = 0;
        url_decode(kv);
        if (eq)
            url_decode(eq + 1);
        if (!kv[0])
            continue;
        snprintf(flag, sizeof flag, "--%s", kv);
        id = tplan_field_find_flag(flag);
        if (id < 0) {
            snprintf(err->field, sizeof err->field, "%s", kv);
            snprintf(err->msg, sizeof err->msg,
                     "%s: not an option the page reads (calc's plan fields: "
                     "`tplan fields`)",
                     kv);
            rc = TPLAN_EINVAL;
            goto done;
        }
        fval[id] = eq ? eq + 1 : "true";
    }
    memset(c, 0, sizeof *c);
    if (cfg && fval[TPLAN_FIELD_ID_MODEL]) {
        /* calc's message for --model with --model-config */
        snprintf(err->field, sizeof err->field, "model");
        snprintf(err->msg, sizeof err->msg,
                 "give one of --model-config, --model and --params "
                 "(model-config=%.200s)",
                 cfg->label);
        rc = TPLAN_EINVAL;
        goto done;
    }
    if (!cfg && !fval[TPLAN_FIELD_ID_MODEL]) {
        snprintf(err->field, sizeof err->field, "model");
        snprintf(err->msg, sizeof err->msg, "model: missing (give model=PRESET)");
        rc = TPLAN_EINVAL;
        goto done;
    }
    if (cfg) {
        tplan_hf_keys k = {NULL, js_get};
        tplan_hv root;

        memset(&root, 0, sizeof root);
        root.kind = (tplan_hv_kind)cfg->root_kind;
        root.obj = NULL; /* handle 0: Module.tplanObjs[0] */
        rc = tplan_hf_map(&k, root, cfg->label, &c->model, err);
    } else {
        rc = tplan_model_preset(fval[TPLAN_FIELD_ID_MODEL], &c->model, err);
    }
    if (rc ||
        (rc = tplan_gpu_lookup(fval[TPLAN_FIELD_ID_GPU]
                                   ? fval[TPLAN_FIELD_ID_GPU]
                                   : "h100-sxm",
                               &c->gpu, err)))
        goto done;
    tplan_config_init(c);
    c->seq = tplan_model_default_seq(&c->model);
    for (int id = 0; id < nf; id++)
        given[id] = fval[id] != NULL;
    {
        const char *fw = fval[tplan_field_find("framework")];
        tplan_framework f;

        if (fw) {
            if ((rc = tplan_framework_lookup(fw, &f, err)))
                goto done;
            tplan_framework_apply(&f, c);
            for (int i = 0; i < f.n; i++)
                given[f.set[i].field] = true;
        }
    }
    for (int id = 0; id < nf; id++) {
        if (!fval[id] || tplan_field_at(id)->kind == TPLAN_FK_NAME)
            continue;
        if ((rc = tplan_field_set_text(id, fval[id], c, err)))
            goto done;
    }
    if (c->model.max_seq == 0)
        c->model.max_seq = c->seq > 0 ? c->seq : 2048;
    if (c->seq == 0)
        c->seq = c->model.max_seq;
    tplan_fields_finish(c);
    rc = tplan_config_validate(c, err);
done:
    free(fval);
    return rc;
}

static char *web_calc(const char *query, const web_cfg *cfg)
{
    static tplan_plan plan;
    static bool given[TPLAN_MAX_FIELDS];
    static tplan_assumed assumed[TPLAN_MAX_ASSUMPTIONS];
    tplan_calc_extra x;
    tplan_config c;
    tplan_err err;
    json_w w;
    char *q = strdup(query ? query : "");

    memset(&err, 0, sizeof err);
    memset(given, 0, sizeof given);
    memset(&x, 0, sizeof x);
    if (!q)
        return NULL;
    if (q[0] == '?')
        memmove(q, q + 1, strlen(q));
    json_init_buf(&w);
    x.assumed = assumed;
    /* calc's order: evaluate, then the assumptions left at defaults */
    if (build_config(q, cfg, &c, given, &err) ||
        tplan_plan_eval(&c, &plan, &err) ||
        tplan_assumptions_used(&c, given, assumed, TPLAN_MAX_ASSUMPTIONS,
                               &x.n_assumed, &err))
        put_error(&w, err.field, err.msg);
    else
        tplan_calc_json(&w, &plan, &x);
    free(q);
    return json_take_buf(&w);
}

WEB_EXPORT char *tplan_web_calc(const char *query)
{
    return web_calc(query, NULL);
}

WEB_EXPORT char *tplan_web_calc_config(const char *query, const char *label,
                                       int root_kind)
{
    web_cfg cfg = {label ? label : "config.json", root_kind};

    return web_calc(query, &cfg);
}

/* The engine's own catalogs for the page's lists (never a hand-copied
 * list): {"models": [preset names], "gpus": [GPU names]}. */
WEB_EXPORT char *tplan_web_lists(void)
{
    json_w w;

    json_init_buf(&w);
    json_obj_begin(&w, NULL);
    json_arr_begin(&w, "models");
    for (int i = 0; i < tplan_model_preset_count(); i++)
        json_str(&w, NULL, tplan_model_preset_at(i)->name);
    json_arr_end(&w);
    json_arr_begin(&w, "gpus");
    for (int i = 0; i < tplan_gpu_count(); i++)
        json_str(&w, NULL, tplan_gpu_at(i)->name);
    json_arr_end(&w);
    json_obj_end(&w);
    return json_take_buf(&w);
}

WEB_EXPORT void tplan_web_free(char *s)
{
    free(s);
}
