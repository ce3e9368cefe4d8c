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
 * (named): model files, config.json, --params, --qlora
 * and calc's shape flags are not read here yet; an unknown name is an
 * error naming it. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calc_json.h"
#include "config.h"
#include "fields.h"
#include "framework.h"
#include "hardware.h"
#include "model.h"
#include "plan.h"

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#define WEB_EXPORT EMSCRIPTEN_KEEPALIVE
#else
#define WEB_EXPORT
#endif

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
static int build_config(char *q, tplan_config *c, bool *given,
                        tplan_err *err)
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
    if (!fval[TPLAN_FIELD_ID_MODEL]) {
        snprintf(err->field, sizeof err->field, "model");
        snprintf(err->msg, sizeof err->msg, "model: missing (give model=PRESET)");
        rc = TPLAN_EINVAL;
        goto done;
    }
    if ((rc = tplan_model_preset(fval[TPLAN_FIELD_ID_MODEL], &c->model, err)) ||
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

WEB_EXPORT char *tplan_web_calc(const char *query)
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
    if (build_config(q, &c, given, &err) ||
        tplan_plan_eval(&c, &plan, &err) ||
        tplan_assumptions_used(&c, given, assumed, TPLAN_MAX_ASSUMPTIONS,
                               &x.n_assumed, &err))
        put_error(&w, err.field, err.msg);
    else
        tplan_calc_json(&w, &plan, &x);
    free(q);
    return json_take_buf(&w);
}

WEB_EXPORT void tplan_web_free(char *s)
{
    free(s);
}
