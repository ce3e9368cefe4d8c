/* `tplan gpus`, `tplan models` and `tplan fields`: the built-in catalogs
 * and the plan field table. */
#include "catalog.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "csv_out.h"
#include "assume.h"
#include "fields.h"
#include "framework.h"
#include "hardware.h"
#include "json.h"
#include "model_fields.h"
#include "model.h"

#define GIB (1024.0 * 1024.0 * 1024.0)
/* room for the built-in catalogs (21 GPUs, 36 models today) */
enum { CATALOG_MAX = 256 };

typedef struct list_opts {
    int json;           /* --json */
    int names;          /* --names: the names alone, one per line */
    const char *filter; /* a name or part of one; NULL: all */
} list_opts;

/* Options of gpus/models (a filter allowed) and fields (none); -1: --help
 * was answered. */
static int list_args(int argc, char **argv, const char *cmd, list_opts *o)
{
    bool catalog = strcmp(cmd, "fields") != 0;

    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            o->json = 1;
        } else if (catalog && strcmp(argv[i], "--names") == 0) {
            o->names = 1;
        } else if (strcmp(argv[i], "--help") == 0) {
            if (!catalog)
                printf("usage: tplan fields [--json]\n\nEvery plan field: "
                       "its name (CSV header, database column,\nLua plan "
                       "key), type, unit, whether it is an input (calc flag, "
                       "Lua\nfield, sweep axis) and an output, its valid "
                       "values and default.\n");
            else
                printf("usage: tplan %s [FILTER] [--names] [--json]\n\nList "
                       "the built-in %s catalog with sources. FILTER keeps\n"
                       "the entries whose name contains it or that it names "
                       "(case, punctuation\nand vendor words ignored: H100, "
                       "llama-3-8b). --names prints the names\nalone, one "
                       "per line.\n",
                       cmd, cmd);
            return -1;
        } else if (catalog && argv[i][0] != '-' && !o->filter) {
            o->filter = argv[i];
        } else {
            return usage_error("unknown option %s; see tplan %s --help",
                               argv[i], cmd);
        }
    }
    return 0;
}

/* Does the filter keep the entry called name? The filter inside the name
 * (any case), or naming it (names.h: "NVIDIA H100 80GB HBM3", "RTX
 * A6000"). */
static bool kept(const list_opts *o, const char *name, const char *resolved)
{
    char f[96], n[96];
    size_t i;

    if (!o->filter)
        return true;
    if (resolved && strcmp(resolved, name) == 0)
        return true;
    for (i = 0; o->filter[i] && i + 1 < sizeof f; i++)
        f[i] = (char)tolower((unsigned char)o->filter[i]);
    f[i] = '\0';
    for (i = 0; name[i] && i + 1 < sizeof n; i++)
        n[i] = (char)tolower((unsigned char)name[i]);
    n[i] = '\0';
    return strstr(n, f) != NULL;
}

/* --names: the kept names, plain or as a JSON array. */
static void print_names(const list_opts *o, const char *const *names, int n)
{
    json_w w;

    if (o->json) {
        json_init(&w, stdout);
        json_arr_begin(&w, NULL);
        for (int i = 0; i < n; i++)
            json_str(&w, NULL, names[i]);
        json_arr_end(&w);
        return;
    }
    for (int i = 0; i < n; i++)
        puts(names[i]);
}

static const char *gpu_name_at(int i)
{
    return tplan_gpu_at(i)->name;
}

static const char *framework_name_at(int i)
{
    return tplan_framework_name_at(i);
}

static const char *model_name_at(int i)
{
    return tplan_model_preset_at(i)->name;
}

/* The catalog entries the filter keeps, as indices and names (room for
 * CATALOG_MAX); resolved is the entry the filter names, if any. Returns
 * how many, or -(exit status) after printing the error; with --names it
 * prints them and returns 0. */
static int select_entries(const list_opts *o, const char *what,
                          const char *cmd, int count,
                          const char *(*name_at)(int), const char *resolved,
                          int *idx, const char **names)
{
    int n = 0;

    if (count > CATALOG_MAX)
        return -usage_error("the %s catalog has more than %d entries",
                            what, CATALOG_MAX);
    for (int i = 0; i < count; i++)
        if (kept(o, name_at(i), resolved)) {
            idx[n] = i;
            names[n++] = name_at(i);
        }
    if (n == 0)
        return -usage_error("no %s matches %s; `tplan %s` lists them all",
                            what, o->filter, cmd);
    if (o->names) {
        print_names(o, names, n);
        return 0;
    }
    return n;
}

int cmd_gpus(int argc, char **argv)
{
    list_opts o;
    int rc = list_args(argc, argv, "gpus", &o), n, idx[CATALOG_MAX];
    const char *names[CATALOG_MAX], *resolved = NULL;
    tplan_gpu found;
    bool json = o.json;

    if (rc)
        return rc < 0 ? 0 : rc;
    if (o.filter && tplan_gpu_lookup(o.filter, &found, NULL) == TPLAN_OK)
        resolved = found.name;
    n = select_entries(&o, "GPU", "gpus", tplan_gpu_count(), gpu_name_at,
                       resolved, idx, names);
    if (n <= 0)
        return -n;
    if (json) {
        json_w w;

        json_init(&w, stdout);
        json_arr_begin(&w, NULL);
        for (int i = 0; i < n; i++) {
            const tplan_gpu *g = tplan_gpu_at(idx[i]);
            tplan_gpu full; /* with what the lookup adds: its server's */

            if (tplan_gpu_lookup(g->name, &full, NULL) != TPLAN_OK)
                full = *g;
            json_obj_begin(&w, NULL);
            json_str(&w, "name", g->name);
            json_int(&w, "memory_bytes", g->memory_bytes);
            json_num(&w, "mem_bw_bytes_per_s", g->mem_bw_bytes_per_s);
            for (int d = 0; d < TPLAN_DTYPE_COUNT; d++) {
                char key[32];

                snprintf(key, sizeof key, "%s_flops",
                         tplan_dtype_name((tplan_dtype)d));
                json_num(&w, key, g->peak_flops[d]);
            }
            json_num(&w, "link_bytes_per_s", g->link_bytes_per_s);
            json_num(&w, "nic_bytes_per_s", g->nic_bytes_per_s);
            json_int(&w, "gpus_per_node", g->gpus_per_node);
            json_int(&w, "nvls_channels", full.nvls_channels);
            json_num(&w, "blas_ws_mib", full.blas_ws_mib);
            json_num(&w, "tdp_w", g->tdp_w);
            json_num(&w, "price_usd_per_h", g->price_usd_per_h);
            json_str(&w, "price_source", g->price_source);
            json_str(&w, "source", g->source);
            json_obj_end(&w);
        }
        json_arr_end(&w);
        return 0;
    }
    printf("%-11s %8s %7s %8s %8s %8s %7s %6s %6s  %s\n", "gpu", "mem GiB",
           "TB/s", "bf16 TF", "fp8 TF", "fp32 TF", "link", "TDP W", "$/h",
           "price source");
    for (int i = 0; i < n; i++) {
        const tplan_gpu *g = tplan_gpu_at(idx[i]);

        printf("%-11s %8.2f %7.2f %8.1f %8.1f %8.1f %5.0fGB %6.0f %6.2f  "
               "%s\n",
               g->name, (double)g->memory_bytes / GIB,
               g->mem_bw_bytes_per_s / 1e12,
               g->peak_flops[TPLAN_DTYPE_BF16] / 1e12,
               g->peak_flops[TPLAN_DTYPE_FP8] / 1e12,
               g->peak_flops[TPLAN_DTYPE_FP32] / 1e12,
               g->link_bytes_per_s / 1e9, g->tdp_w, g->price_usd_per_h,
               g->price_source);
    }
    return 0;
}

int cmd_frameworks(int argc, char **argv)
{
    list_opts o;
    int rc = list_args(argc, argv, "frameworks", &o), n, idx[CATALOG_MAX];
    const char *names[CATALOG_MAX], *resolved = NULL;
    tplan_framework found;
    json_w w;

    if (rc)
        return rc < 0 ? 0 : rc;
    if (o.filter && tplan_framework_lookup(o.filter, &found, NULL) == TPLAN_OK)
        resolved = found.name;
    n = select_entries(&o, "framework", "frameworks", tplan_framework_count(),
                       framework_name_at, resolved, idx, names);
    if (n <= 0)
        return -n;
    if (o.json) {
        json_init(&w, stdout);
        json_arr_begin(&w, NULL);
    }
    for (int i = 0; i < n; i++) {
        tplan_framework f;
        char v[64];

        tplan_framework_lookup(names[i], &f, NULL);
        if (o.json) {
            json_obj_begin(&w, NULL);
            json_str(&w, "name", f.name);
            json_obj_begin(&w, "fields");
            for (int k = 0; k < f.n; k++) {
                const tplan_field *fd = tplan_field_at(f.set[k].field);

                if (fd->kind == TPLAN_FK_ENUM || fd->kind == TPLAN_FK_BOOL) {
                    tplan_fmt_field(v, sizeof v, f.set[k].field, f.set[k].value);
                    if (fd->kind == TPLAN_FK_BOOL)
                        json_bool(&w, fd->input, f.set[k].value != 0.0);
                    else
                        json_str(&w, fd->input, v);
                } else {
                    json_num(&w, fd->input, f.set[k].value);
                }
            }
            json_obj_end(&w);
            json_str(&w, "source", f.source);
            json_obj_end(&w);
            continue;
        }
        printf("%s\n ", f.name);
        for (int k = 0; k < f.n; k++) {
            tplan_fmt_field(v, sizeof v, f.set[k].field, f.set[k].value);
            printf(" %s=%s", tplan_field_at(f.set[k].field)->input, v);
        }
        printf("\n  %s\n", f.source);
    }
    if (o.json)
        json_arr_end(&w);
    return 0;
}

int cmd_models(int argc, char **argv)
{
    list_opts o;
    int rc = list_args(argc, argv, "models", &o), n, idx[CATALOG_MAX];
    const char *names[CATALOG_MAX], *resolved = NULL;
    tplan_model found;
    bool json = o.json;
    json_w w;

    if (rc)
        return rc < 0 ? 0 : rc;
    if (o.filter && tplan_model_preset(o.filter, &found, NULL) == TPLAN_OK)
        resolved = found.name;
    n = select_entries(&o, "model", "models", tplan_model_preset_count(),
                       model_name_at, resolved, idx, names);
    if (n <= 0)
        return -n;
    if (json) {
        json_init(&w, stdout);
        json_arr_begin(&w, NULL);
    } else {
        printf("%-16s %16s %16s %6s %6s %5s %3s %6s %7s %-7s %-9s %s\n",
               "model", "params", "active", "layers", "hidden", "heads", "kv",
               "ffn", "vocab", "mlp", "norm", "source");
    }
    for (int i = 0; i < n; i++) {
        const tplan_model *m = tplan_model_preset_at(idx[i]);
        tplan_param_count pc;

        tplan_model_params(m, &pc);
        if (json) {
            json_obj_begin(&w, NULL);
            json_str(&w, "name", m->name);
            json_str(&w, "arch", tplan_arch_name(m->arch));
            json_int(&w, "params", pc.total);
            json_int(&w, "active_params", pc.active);
            if (m->arch != TPLAN_ARCH_GENERIC) {
                json_int(&w, "layers", m->layers);
                json_int(&w, "hidden", m->hidden);
                json_int(&w, "heads", m->heads);
                json_int(&w, "kv_heads", m->kv_heads);
                json_int(&w, "ffn", m->ffn);
                json_int(&w, "vocab", m->vocab);
                json_int(&w, "max_seq", m->max_seq);
                json_str(&w, "mlp", tplan_mlp_name(m->mlp));
                json_str(&w, "norm", tplan_norm_name(m->norm));
                json_str(&w, "pos", tplan_pos_name(m->pos));
                json_bool(&w, "tied", m->tied);
                json_bool(&w, "bias", m->bias);
                json_bool(&w, "qkv_bias", m->bias || m->qkv_bias);
                json_int(&w, "head_dim", tplan_model_head_dim(m));
                json_int(&w, "block_norms", tplan_model_block_norms(m));
                json_bool(&w, "qk_norm", m->qk_norm);
                for (int k = 0; k < tplan_model_field_count(); k++) {
                    const tplan_model_field *f = tplan_model_field_at(k);

                    if (f->is_bool)
                        json_bool(&w, f->name, tplan_model_field_get(m, k));
                    else
                        json_int(&w, f->name, tplan_model_field_get(m, k));
                }
            } else {
                json_num(&w, "act_bytes_per_sample", m->generic_act_bytes_fp32);
            }
            json_num(&w, "dropout", m->dropout);
            json_str(&w, "source", m->source ? m->source : "");
            json_obj_end(&w);
        } else if (m->arch == TPLAN_ARCH_GENERIC) {
            printf("%-16s %16lld %16lld %6s %6s %5s %3s %6s %7s %-7s %-9s "
                   "%s\n",
                   m->name, (long long)pc.total, (long long)pc.active, "-",
                   "-", "-", "-", "-", "-", "generic", "-",
                   m->source ? m->source : "");
        } else {
            printf("%-16s %16lld %16lld %6lld %6lld %5lld %3lld %6lld %7lld "
                   "%-7s %-9s %s\n",
                   m->name, (long long)pc.total, (long long)pc.active,
                   (long long)m->layers,
                   (long long)m->hidden, (long long)m->heads,
                   (long long)m->kv_heads, (long long)m->ffn,
                   (long long)m->vocab, tplan_mlp_name(m->mlp),
                   tplan_norm_name(m->norm), m->source ? m->source : "");
        }
    }
    if (json)
        json_arr_end(&w);
    return 0;
}

static const char *type_name(tplan_field_type t)
{
    static const char *const names[] = {"int", "real", "text", "bool"};

    return names[t];
}

static void fields_json(void)
{
    json_w w;

    json_init(&w, stdout);
    json_arr_begin(&w, NULL);
    for (int id = 0; id < tplan_field_count(); id++) {
        const tplan_field *f = tplan_field_at(id);
        bool in = f->flags & TPLAN_FIELD_IN;
        bool range = f->kind == TPLAN_FK_INT || f->kind == TPLAN_FK_REAL;
        const tplan_assumption *a = tplan_assumption_of(id);

        json_obj_begin(&w, NULL);
        json_str(&w, "name", f->name);
        json_str(&w, "type", type_name(f->type));
        json_str(&w, "unit", f->unit);
        json_bool(&w, "input", in);
        json_bool(&w, "output", f->flags & TPLAN_FIELD_OUT);
        json_bool(&w, "axis", f->flags & TPLAN_FIELD_AXIS);
        json_str(&w, "flag", in ? f->flag : NULL);
        json_str(&w, "lua", in ? f->input : NULL);
        /* names (a SET's joined by commas); other forms in "doc" */
        if (f->kind == TPLAN_FK_ENUM || f->kind == TPLAN_FK_SET) {
            json_arr_begin(&w, "values");
            for (int i = 0; f->values[i]; i++)
                json_str(&w, NULL, f->values[i]);
            json_arr_end(&w);
        } else {
            json_str(&w, "values", NULL);
        }
        json_num(&w, "min", range ? f->min : (double)NAN);
        json_num(&w, "max", range ? f->max : (double)NAN);
        json_str(&w, "default", in ? f->def : NULL);
        json_str(&w, "doc", f->doc);
        /* a modelling assumption's plausible range and its source
         * (engine/assume.c, docs/MODEL.md section 16); null: not one */
        json_num(&w, "assume_lo", a ? a->lo : (double)NAN);
        json_num(&w, "assume_hi", a ? a->hi : (double)NAN);
        json_str(&w, "assume_source", a ? a->source : NULL);
        json_obj_end(&w);
    }
    json_arr_end(&w);
}

int cmd_fields(int argc, char **argv)
{
    list_opts o;
    int rc = list_args(argc, argv, "fields", &o), json = o.json;

    if (rc)
        return rc < 0 ? 0 : rc;
    if (json) {
        fields_json();
        return 0;
    }
    printf("%-22s %-5s %-10s %-3s %-24s %s\n", "field", "type", "unit", "io",
           "calc flag", "valid values; doc");
    for (int id = 0; id < tplan_field_count(); id++) {
        const tplan_field *f = tplan_field_at(id);
        bool in = f->flags & TPLAN_FIELD_IN;
        char valid[200];

        tplan_field_valid(id, valid, sizeof valid);
        printf("%-22s %-5s %-10s %-3s %-24s %s%s%s\n", f->name,
               type_name(f->type), f->unit[0] ? f->unit : "-",
               !in ? "out" : f->flags & TPLAN_FIELD_AXIS ? "ax" : "in",
               in ? f->flag : "-", in ? valid : "", in ? "; " : "", f->doc);
    }
    printf("\nio: out = output only; in = input and output; ax = also a "
           "sweep axis.\nInputs are named as the fields in Lua, but "
           "price (price_usd_per_h) and lr (lr_base).\n");
    return 0;
}
