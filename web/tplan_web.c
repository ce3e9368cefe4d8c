/* The browser's entry point: calc's options as a URL query string in, the
 * plan as JSON out. Engine only: no Lua, SQLite, CSV or file I/O goes
 * into the wasm (issue 39).
 *
 * The query's names are calc's long flags without "--"; each names a plan
 * field (engine/fields.c's table), and the steps follow calc_parse
 * (cli/calc_opts.c) in its order: model preset, GPU (h100-sxm when none),
 * config defaults, the model's default seq, a built-in framework, then the
 * fields. Assumption (named): model files, config.json, --params, --qlora
 * and calc's shape flags are not read here yet; an unknown name is an
 * error naming it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A growing output buffer: the result the page reads. */
typedef struct wbuf {
    char *s;
    size_t n, cap;
    int oom;
} wbuf;

static void put(wbuf *b, const char *s)
{
    size_t k = strlen(s);

    if (b->oom)
        return;
    if (b->n + k + 1 > b->cap) {
        size_t cap = (b->cap ? b->cap * 2 : 4096) + k;
        char *p = realloc(b->s, cap);

        if (!p) {
            b->oom = 1;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->n, s, k + 1);
    b->n += k;
}

static void put_str(wbuf *b, const char *s)
{
    char e[8];

    put(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            snprintf(e, sizeof e, "\\%c", *p);
            put(b, e);
        } else if (*p < 0x20 || *p == 0x7F) {
            snprintf(e, sizeof e, "\\u%04x", *p);
            put(b, e);
        } else {
            e[0] = (char)*p;
            e[1] = 0;
            put(b, e);
        }
    }
    put(b, "\"");
}

/* "%.17g" reads back exactly (IEEE binary64 needs 17 digits). */
static void put_num(wbuf *b, double v)
{
    char t[40];

    if (!isfinite(v)) {
        put(b, "null");
        return;
    }
    snprintf(t, sizeof t, "%.17g", v);
    put(b, t);
}

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

static void put_error(wbuf *b, const char *field, const char *msg)
{
    put(b, "{\"error\":");
    put_str(b, msg);
    put(b, ",\"field\":");
    put_str(b, field);
    put(b, "}");
}

/* Parse the query into *c (calc_parse's order). 0, or the error in *err. */
static int build_config(char *q, tplan_config *c, tplan_err *err)
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
    {
        const char *fw = fval[tplan_field_find("framework")];
        tplan_framework f;

        if (fw) {
            if ((rc = tplan_framework_lookup(fw, &f, err)))
                goto done;
            tplan_framework_apply(&f, c);
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

/* The plan's fields by contract name, as `tplan calc --json` prints them
 * under "fields". */
static void put_fields(wbuf *b, const tplan_plan *p)
{
    static char buf[TPLAN_MAX_WARNINGS * TPLAN_WARNING_LEN];

    put(b, "{\"fields\":{");
    for (int id = 0; id < tplan_field_count(); id++) {
        const tplan_field *f = tplan_field_at(id);
        tplan_value v = tplan_field_get(id, p, buf, sizeof buf);
        char t[32];

        if (id)
            put(b, ",");
        put_str(b, f->name);
        put(b, ":");
        switch (f->type) {
        case TPLAN_FT_INT:
            snprintf(t, sizeof t, "%lld", (long long)v.i);
            put(b, t);
            break;
        case TPLAN_FT_BOOL:
            put(b, v.i ? "true" : "false");
            break;
        case TPLAN_FT_REAL:
            put_num(b, v.r);
            break;
        default:
            if (v.s)
                put_str(b, v.s);
            else
                put(b, "null");
            break;
        }
    }
    put(b, "}}");
}

WEB_EXPORT char *tplan_web_calc(const char *query)
{
    static tplan_plan plan;
    tplan_config c;
    tplan_err err;
    wbuf b = {0};
    char *q = strdup(query ? query : "");

    memset(&err, 0, sizeof err);
    if (!q)
        return NULL;
    if (q[0] == '?')
        memmove(q, q + 1, strlen(q));
    if (build_config(q, &c, &err) || tplan_plan_eval(&c, &plan, &err))
        put_error(&b, err.field, err.msg);
    else
        put_fields(&b, &plan);
    free(q);
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

WEB_EXPORT void tplan_web_free(char *s)
{
    free(s);
}
