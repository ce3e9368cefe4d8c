/* argv -> engine config for `tplan calc`. Options are gathered first and
 * applied in a fixed order (model, then GPU, then the rest), so their order
 * on the command line does not matter and preset fields can be overridden. */
#include "calc_opts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "fields.h"
#include "framework_csv.h"
#include "hf_config.h"
#include "model_fields.h"
#include "names.h"
#include "tplan_lua.h"

/* calc's own options: a model's shape (tplan.model's fields in Lua),
 * lists of plans to compare, and the output. Every plan field (--seq,
 * --zero, --price...) comes from the engine's field table. */
enum opt_id {
    O_PARAMS,
    O_ACT_BYTES,
    O_FLOPS,
    O_LAYERS,
    O_HIDDEN,
    O_HEADS,
    O_KV_HEADS,
    O_FFN,
    O_VOCAB,
    O_MAX_SEQ,
    O_MLP,
    O_NORM,
    O_POS,
    O_TIED,
    O_UNTIED,
    O_BIAS,
    O_NO_BIAS,
    O_QKV_BIAS,
    O_QK_NORM,
    O_HEAD_DIM,
    O_BLOCK_NORMS,
    O_MAX_BATCH,
    O_GPU_FILE,
    O_MODEL_FILE,
    O_MODEL_CONFIG,
    O_FRAMEWORK_FILE,
    O_COMPARE_GPUS,
    O_COMPARE_BATCHES,
    O_REPORT,
    O_JSON,
    O_INVENTORY,
    O_QLORA,
    O_HSDP_REPLICAS,
    O_WEB_LINK,
    O_HELP,
    O_COUNT
};

typedef struct opt_def {
    const char *name; /* without the leading dashes */
    bool value;
} opt_def;

static const opt_def defs[O_COUNT] = {
    [O_PARAMS] = {"params", true},
    [O_ACT_BYTES] = {"act-bytes", true},
    [O_FLOPS] = {"flops-per-sample", true},
    [O_LAYERS] = {"layers", true},
    [O_HIDDEN] = {"hidden", true},
    [O_HEADS] = {"heads", true},
    [O_KV_HEADS] = {"kv-heads", true},
    [O_FFN] = {"ffn", true},
    [O_VOCAB] = {"vocab", true},
    [O_MAX_SEQ] = {"max-seq", true},
    [O_MLP] = {"mlp", true},
    [O_NORM] = {"norm", true},
    [O_POS] = {"pos", true},
    [O_TIED] = {"tied", false},
    [O_UNTIED] = {"untied", false},
    [O_BIAS] = {"bias", false},
    [O_NO_BIAS] = {"no-bias", false},
    [O_QKV_BIAS] = {"qkv-bias", false},
    [O_QK_NORM] = {"qk-norm", false},
    [O_HEAD_DIM] = {"head-dim", true},
    [O_BLOCK_NORMS] = {"block-norms", true},
    [O_MAX_BATCH] = {"max-batch", false},
    [O_GPU_FILE] = {"gpu-file", true},
    [O_MODEL_FILE] = {"model-file", true},
    [O_MODEL_CONFIG] = {"model-config", true},
    [O_FRAMEWORK_FILE] = {"framework-file", true},
    [O_COMPARE_GPUS] = {"compare-gpus", true},
    [O_COMPARE_BATCHES] = {"compare-batches", true},
    [O_REPORT] = {"report", true},
    [O_JSON] = {"json", false},
    [O_INVENTORY] = {"inventory", false},
    [O_QLORA] = {"qlora", false},
    [O_HSDP_REPLICAS] = {"hsdp-replicas", true},
    [O_WEB_LINK] = {"web-link", false},
    [O_HELP] = {"help", false},
};

/* The options as given: calc's own by opt_id, plan fields by field id
 * (text as typed; a bool flag without a value reads "true", or "false"
 * for --no-loss-scaling). */
typedef struct gathered {
    const char *val[O_COUNT];
    bool set[O_COUNT];
    const char **fval; /* [tplan_field_count()] */
    const char *mval[TPLAN_MODEL_FIELDS_MAX]; /* model_fields.h, by index */
} gathered;

/* The field an option names: its calc flag, or its input name with '-'
 * for '_' (so every bool also takes --name=true|false). -1: none. */
static int field_option(const char *name, size_t len)
{
    for (int id = 0; id < tplan_field_count(); id++) {
        const tplan_field *f = tplan_field_at(id);
        size_t k;

        if (!(f->flags & TPLAN_FIELD_IN))
            continue;
        if (strlen(f->flag) == len + 2 && strncmp(f->flag + 2, name, len) == 0)
            return id;
        for (k = 0; k < len && f->input[k]; k++)
            if (name[k] != (f->input[k] == '_' ? '-' : f->input[k]))
                break;
        if (k == len && !f->input[k])
            return id;
    }
    return -1;
}

calc_opt_kind calc_option_kind(const char *name)
{
    char dashed[64];
    size_t len = strlen(name);
    int fld, mf;

    if (len >= sizeof dashed)
        return CALC_OPT_NONE;
    for (size_t i = 0; i <= len; i++)
        dashed[i] = name[i] == '_' ? '-' : name[i];
    /* the model's shape and the catalog files: calc's own options up to
     * --block-norms, and --gpu-file, --model-file, --model-config */
    for (int k = 0; k < O_COUNT; k++)
        if ((k <= O_BLOCK_NORMS || k == O_GPU_FILE || k == O_MODEL_FILE ||
             k == O_MODEL_CONFIG) &&
            strcmp(defs[k].name, dashed) == 0)
            return defs[k].value ? CALC_OPT_VALUE : CALC_OPT_FLAG;
    if ((mf = tplan_model_field_find_option(dashed)) >= 0)
        return tplan_model_field_at(mf)->is_bool ? CALC_OPT_FLAG
                                                 : CALC_OPT_VALUE;
    if ((fld = field_option(dashed, len)) >= 0)
        return tplan_field_at(fld)->flags & TPLAN_FIELD_FLAG ? CALC_OPT_FLAG
                                                             : CALC_OPT_VALUE;
    return CALC_OPT_NONE;
}

/* A field's id by input name (the table always has it). */
static int fid(const char *input)
{
    return tplan_field_find_input(input);
}

/* Per plan field: the flag and what it takes, its doc and unit; then the
 * names it takes (enums) and its default. */
static void usage_fields(void)
{
    for (int id = 0; id < tplan_field_count(); id++) {
        const tplan_field *f = tplan_field_at(id);
        char valid[200], opt[64];

        if (!(f->flags & TPLAN_FIELD_IN) || f->kind == TPLAN_FK_NAME)
            continue;
        snprintf(opt, sizeof opt, "%s%s", f->flag,
                 f->flags & TPLAN_FIELD_FLAG  ? ""
                 : f->kind == TPLAN_FK_ENUM ? " NAME"
                 : f->kind == TPLAN_FK_TEXT ? " TEXT"
                 : f->kind == TPLAN_FK_INT  ? " N"
                                            : " X");
        printf("  %-26s %s%s%s%s\n", opt, f->doc, f->unit[0] ? " (" : "",
               f->unit, f->unit[0] ? ")" : "");
        if (f->kind == TPLAN_FK_ENUM) {
            tplan_field_valid(id, valid, sizeof valid);
            printf("  %-26s %s; default %s\n", "", valid, f->def);
        } else {
            printf("  %-26s default %s\n", "", f->def);
        }
    }
}

void calc_usage(void)
{
    fputs(
        "usage: tplan calc [OPTIONS] [--json]\n"
        "\n"
        "One training plan: per-GPU memory, largest micro-batch, time, cost,\n"
        "LR recipe and fit advice. Every option also takes --opt=value.\n"
        "\n"
        "model (one of):\n"
        "  --model PRESET             a preset from `tplan models`\n"
        "  --params N [--act-bytes B] [--flops-per-sample F]\n"
        "                             generic model: N parameters, B fp32 "
        "activation\n"
        "                             bytes and F forward FLOPs per sample\n"
        "  --layers L --hidden H --heads A [--kv-heads K] [--ffn F] "
        "[--vocab V]\n"
        "      [--mlp gelu|swiglu] [--norm layernorm|rmsnorm] [--pos "
        "learned|rotary]\n"
        "      [--tied|--untied] [--bias|--no-bias] [--qkv-bias] "
        "[--max-seq S]\n"
        "      [--head-dim D] [--block-norms 2|4] [--qk-norm] [--gelu-python]\n"
        "      [--experts E --top-k K] [--expert-ffn F] [--shared-experts N]\n"
        "      [--shared-ffn F] [--shared-gate] [--moe-first-dense N] "
        "[--moe-every N]\n"
        "      [--moe-max-nodes M]\n"
        "      [--kv-lora-rank R --qk-nope-dim D --qk-rope-dim D "
        "--v-head-dim D]\n"
        "      [--q-lora-rank R] [--window W] [--global-every N] "
        "[--softcap]\n"
        "                             a decoder transformer (these also "
        "override a preset)\n"
        "  --gpu NAME                 from `tplan gpus` (default h100-sxm)\n"
        "  --gpu-file F.csv           custom GPUs (the CSV of tplan.gpus.load);\n"
        "                             --gpu names one of them or a built-in\n"
        "  --model-config F.json      a Hugging Face config.json (llama, "
        "mistral, mixtral,\n"
        "                             qwen2/3 and their _moe, gemma/2/3, "
        "phi3,\n"
        "                             deepseek_v2/v3, gpt2, gpt_neox, bert)\n"
        "  --model-file F.csv         custom models (tplan.models.load's CSV);\n"
        "                             --model names one of them or a preset\n"
        "  --framework NAME           a training stack's values, from `tplan "
        "frameworks`\n"
        "                             (fsdp, hf, megatron, nemo, deepspeed,\n"
        "                             deepspeed-2025); flags "
        "override them\n"
        "  --framework-file F.csv     custom frameworks (tplan.frameworks."
        "load's CSV);\n"
        "                             --framework names one of them or a "
        "built-in\n"
        "\n"
        "plan fields (`tplan fields` gives each one's unit and range):\n",
        stdout);
    usage_fields();
    fputs("\n"
          "calc only:\n"
          "  --max-batch                the largest micro-batch that fits "
          "(the default)\n"
          "  --compare-gpus N,N,...     the same plan at other GPU counts, "
          "same global batch\n"
          "  --compare-batches G,G,...  the plan at other global batches "
          "(samples)\n"
          "  --report F.html            also write an HTML report with charts\n"
          "  --qlora                    QLoRA's recipe: --finetune --lora-rank 64\n"
          "                             --lora-targets all-linear --lora-dropout 0.1\n"
          "                             --base-precision nf4 --double-quant\n"
          "                             --optimizer paged-adamw-32bit --recompute full\n"
          "                             (flags given override these; shown in the output)\n"
          "  --hsdp-replicas R          HSDP by replicas: --zero-shard-group dp*cp/R\n"
          "  --json                     one JSON object (keys: docs/formats.md)\n"
          "  --web-link                 print the browser page's link for this plan\n"
          "  --inventory                list the activation tensors counted\n",
          stdout);
}

/* Every option calc takes, without its dashes, in the order a "did you
 * mean" prefers on a tie: the plan fields' flags, the model's shape, then
 * calc's own. Returns how many (at most cap). */
static int option_names(const char **out, int cap)
{
    int n = 0;

    for (int id = 0; id < tplan_field_count() && n < cap; id++) {
        const tplan_field *f = tplan_field_at(id);

        if ((f->flags & TPLAN_FIELD_IN) && strncmp(f->flag, "--", 2) == 0)
            out[n++] = f->flag + 2;
    }
    for (int i = 0; i < tplan_model_field_count() && n < cap; i++)
        out[n++] = tplan_model_field_at(i)->option;
    for (int k = 0; k < O_COUNT && n < cap; k++)
        out[n++] = defs[k].name;
    return n;
}

/* --name is no option: say so, with the closest ones ("--lora": did you
 * mean --lora-rank?). */
static int unknown_option(const char *name)
{
    const char *names[512];
    char hint[200];

    tplan_name_hint(name, names, option_names(names, 512), "--", hint,
                    sizeof hint);
    if (hint[0])
        return usage_error("unknown option --%s: %s (tplan calc --help "
                           "lists them)",
                           name, hint);
    return usage_error("unknown option --%s; see tplan calc --help", name);
}

static int gather(int argc, const char *const *argv, gathered *g)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *eq, *name;
        size_t len;
        int id = -1, fld = -1;
        bool value;

        if (strncmp(a, "--", 2) != 0)
            return usage_error("calc takes no positional arguments (got "
                               "'%s'); see tplan calc --help",
                               a);
        name = a + 2;
        eq = strchr(name, '=');
        len = eq ? (size_t)(eq - name) : strlen(name);
        for (int k = 0; k < O_COUNT && id < 0; k++)
            if (strlen(defs[k].name) == len &&
                strncmp(name, defs[k].name, len) == 0)
                id = k;
        if (id < 0 && (fld = field_option(name, len)) < 0) {
            char key[64];
            int mf;

            snprintf(key, sizeof key, "%.*s", (int)len, name);
            if ((mf = tplan_model_field_find_option(key)) < 0)
                return unknown_option(key);
            if (tplan_model_field_at(mf)->is_bool) {
                if (eq)
                    return usage_error("option --%s takes no value (%s)", key,
                                       a);
                g->mval[mf] = "1";
            } else if (eq || i + 1 < argc) {
                g->mval[mf] = eq ? eq + 1 : argv[++i];
            } else {
                return usage_error("option %s needs a value", a);
            }
            continue;
        }
        value = id >= 0 ? defs[id].value
                        : !(tplan_field_at(fld)->flags & TPLAN_FIELD_FLAG);
        if (!value && eq && id >= 0)
            return usage_error("option --%.*s takes no value (%s)", (int)len,
                               name, a);
        if (value && !eq && i + 1 >= argc)
            return usage_error("option %s needs a value", a);
        if (id >= 0) {
            g->set[id] = true;
            if (value)
                g->val[id] = eq ? eq + 1 : argv[++i];
        } else if (eq || value) {
            g->fval[fld] = eq ? eq + 1 : argv[++i];
        } else { /* a bool flag: --sp, --no-loss-scaling */
            g->fval[fld] =
                strncmp(tplan_field_at(fld)->flag, "--no-", 5) == 0 ? "false"
                                                                    : "true";
        }
    }
    return 0;
}

/* Report an engine error record as a usage error (bad input: exit 2). */
static int engine_error(const tplan_err *err)
{
    return usage_error("%s", err->msg);
}

/* A name looked up in a catalog file: a name missing from both says so
 * under its field; a bad or unreadable file under the file's option. */
static int find_in(const gathered *g, int opt, bool gpus, const char *name,
                   void *out)
{
    tplan_err err;

    if (tplan_catalog_find(g->val[opt], gpus, name, out, &err) == TPLAN_OK)
        return 0;
    if (strcmp(err.field, gpus ? "gpu" : "model") == 0)
        return engine_error(&err);
    return usage_error("--%s: %s", defs[opt].name, err.msg);
}

static int count_opt(const gathered *g, int id, int64_t min, int64_t *out)
{
    if (!g->set[id])
        return 0;
    return parse_count(defs[id].name, g->val[id], min, out);
}

static int choice(const gathered *g, int id, const char *a, const char *b,
                  int *out)
{
    if (!g->set[id])
        return 0;
    if (strcmp(g->val[id], a) == 0)
        *out = 0;
    else if (strcmp(g->val[id], b) == 0)
        *out = 1;
    else
        return usage_error("%s must be %s or %s (%s=%s)", defs[id].name, a, b,
                           defs[id].name, g->val[id]);
    return 0;
}

static int build_model(const gathered *g, tplan_model *m)
{
    const char *model = g->fval[TPLAN_FIELD_ID_MODEL];
    tplan_err err;
    int64_t v;
    int c, rc;
    bool dims = g->set[O_LAYERS] || g->set[O_HIDDEN] || g->set[O_HEADS];

    if (model && g->set[O_PARAMS])
        return usage_error("give either --model or --params, not both "
                           "(model=%s, params=%s)",
                           model, g->val[O_PARAMS]);
    if (g->set[O_ACT_BYTES] && !g->set[O_PARAMS])
        return usage_error("--act-bytes goes with --params (act-bytes=%s); "
                           "transformers derive their activations",
                           g->val[O_ACT_BYTES]);
    if (g->set[O_FLOPS] && !g->set[O_PARAMS])
        return usage_error("--flops-per-sample goes with --params "
                           "(flops-per-sample=%s); transformers derive "
                           "their FLOPs",
                           g->val[O_FLOPS]);
    if (g->set[O_MODEL_FILE] && !model)
        return usage_error("--model-file goes with --model NAME naming one of "
                           "its models (model-file=%s)",
                           g->val[O_MODEL_FILE]);
    if (g->set[O_MODEL_CONFIG] && (model || g->set[O_PARAMS]))
        return usage_error("give one of --model-config, --model and --params "
                           "(model-config=%s)",
                           g->val[O_MODEL_CONFIG]);
    tplan_model_init(m);
    if (g->set[O_MODEL_CONFIG]) {
        if (tplan_hf_config_load(g->val[O_MODEL_CONFIG], m, &err))
            return engine_error(&err);
        model = m->name; /* shape flags override it, as a preset's */
    } else if (model && g->set[O_MODEL_FILE]) {
        if ((rc = find_in(g, O_MODEL_FILE, false, model, m)))
            return rc;
    } else if (model) {
        if (tplan_model_preset(model, m, &err))
            return engine_error(&err);
    } else if (g->set[O_PARAMS]) {
        static const int shape[] = {O_LAYERS, O_HIDDEN, O_HEADS,   O_KV_HEADS,
                                    O_FFN,    O_VOCAB,  O_MAX_SEQ, O_MLP,
                                    O_NORM,   O_POS,    O_TIED,    O_UNTIED,
                                    O_BIAS,   O_NO_BIAS, O_QKV_BIAS, O_HEAD_DIM,
                                    O_BLOCK_NORMS, O_QK_NORM};
        double act = 0.0;

        for (size_t i = 0; i < sizeof shape / sizeof shape[0]; i++)
            if (g->set[shape[i]])
                return usage_error("--%s describes a transformer, but --params "
                                   "makes a generic model (params=%s)",
                                   defs[shape[i]].name, g->val[O_PARAMS]);
        for (int i = 0; i < tplan_model_field_count(); i++)
            if (g->mval[i])
                return usage_error("--%s describes a transformer, but --params "
                                   "makes a generic model (params=%s)",
                                   tplan_model_field_at(i)->option,
                                   g->val[O_PARAMS]);
        m->arch = TPLAN_ARCH_GENERIC;
        snprintf(m->name, sizeof m->name, "generic");
        if ((rc = parse_big_count("params", g->val[O_PARAMS], 1,
                                  &m->generic_params)))
            return rc;
        if (g->set[O_ACT_BYTES] &&
            (rc =
                 parse_real("act-bytes", g->val[O_ACT_BYTES], 0.0, 1e15, &act)))
            return rc;
        m->generic_act_bytes_fp32 = act;
        if (g->set[O_FLOPS] &&
            (rc = parse_positive("flops-per-sample", g->val[O_FLOPS], 1e18,
                                 &m->generic_flops_per_sample)))
            return rc;
        return 0;
    } else if (!dims) {
        return usage_error("no model: give --model PRESET, --params N or "
                           "--layers/--hidden/--heads");
    } else {
        const char *miss = !g->set[O_LAYERS]   ? "layers"
                           : !g->set[O_HIDDEN] ? "hidden"
                           : !g->set[O_HEADS]  ? "heads"
                                               : NULL;

        if (miss)
            return usage_error("%s is required for a custom model (give "
                               "--layers, --hidden and --heads)",
                               miss);
        snprintf(m->name, sizeof m->name, "custom");
        m->vocab = 50257; /* GPT-2's tokenizer, the common default */
        m->max_seq = 0;   /* sized to --seq below unless --max-seq */
    }
    if ((rc = count_opt(g, O_LAYERS, 1, &m->layers)) ||
        (rc = count_opt(g, O_HIDDEN, 1, &m->hidden)) ||
        (rc = count_opt(g, O_VOCAB, 1, &m->vocab)) ||
        (rc = count_opt(g, O_MAX_SEQ, 1, &m->max_seq)))
        return rc;
    if (g->set[O_HEADS]) {
        if ((rc = count_opt(g, O_HEADS, 1, &v)))
            return rc;
        m->heads = v;
        if (!model)
            m->kv_heads = v;
    }
    if ((rc = count_opt(g, O_KV_HEADS, 1, &m->kv_heads)))
        return rc;
    c = (int)m->mlp;
    if ((rc = choice(g, O_MLP, "gelu", "swiglu", &c)))
        return rc;
    m->mlp = (tplan_mlp)c;
    c = (int)m->norm;
    if ((rc = choice(g, O_NORM, "layernorm", "rmsnorm", &c)))
        return rc;
    m->norm = (tplan_norm)c;
    c = (int)m->pos;
    if ((rc = choice(g, O_POS, "learned", "rotary", &c)))
        return rc;
    m->pos = (tplan_pos)c;
    if (g->set[O_TIED] && g->set[O_UNTIED])
        return usage_error("give --tied or --untied, not both");
    if (g->set[O_TIED] || g->set[O_UNTIED])
        m->tied = g->set[O_TIED];
    if (g->set[O_BIAS] && g->set[O_NO_BIAS])
        return usage_error("give --bias or --no-bias, not both");
    if (g->set[O_BIAS] || g->set[O_NO_BIAS])
        m->bias = g->set[O_BIAS];
    if (g->set[O_QKV_BIAS])
        m->qkv_bias = true;
    if (g->set[O_QK_NORM])
        m->qk_norm = true;
    if ((rc = count_opt(g, O_HEAD_DIM, 1, &m->head_dim)))
        return rc;
    for (int i = 0; i < tplan_model_field_count(); i++) {
        const tplan_model_field *f = tplan_model_field_at(i);
        int64_t mv = 1;

        if (!g->mval[i])
            continue;
        if (!f->is_bool && (rc = parse_count(f->option, g->mval[i], 0, &mv)))
            return rc;
        if (tplan_model_field_set(m, i, mv, &err))
            return engine_error(&err);
    }
    if (g->set[O_BLOCK_NORMS]) {
        const char *bn = g->val[O_BLOCK_NORMS];

        if (strcmp(bn, "2") != 0 && strcmp(bn, "4") != 0)
            return usage_error("block-norms must be 2 or 4 (block-norms=%s)",
                               bn);
        m->block_norms = bn[0] - '0';
    }
    if (g->set[O_FFN]) {
        if ((rc = count_opt(g, O_FFN, 1, &m->ffn)))
            return rc;
    } else if (!model && m->hidden > 0 && m->hidden <= 1000000) {
        /* GELU: 4h (Vaswani et al. 2017). SwiGLU: 2/3 of 4h rounded up to
         * a multiple of 256, as Llama's reference code does. */
        m->ffn = 4 * m->hidden;
        if (m->mlp == TPLAN_MLP_SWIGLU)
            m->ffn = (8 * m->hidden / 3 + 255) / 256 * 256;
    }
    return 0;
}

/* "8,16,32": up to CALC_MAX_COMPARE counts. */
static int parse_list(const gathered *g, int id, int64_t *list, int *n)
{
    char buf[512], *save = NULL;
    const char *name = defs[id].name;
    int rc;

    *n = 0;
    if (!g->set[id])
        return 0;
    if (strlen(g->val[id]) >= sizeof buf)
        return usage_error("%s is too long", name);
    snprintf(buf, sizeof buf, "%s", g->val[id]);
    for (char *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (*n >= CALC_MAX_COMPARE)
            return usage_error("%s takes at most %d values (%s=%s)", name,
                               CALC_MAX_COMPARE, name, g->val[id]);
        if ((rc = parse_big_count(name, tok, 1, &list[*n])))
            return rc;
        (*n)++;
    }
    if (*n == 0)
        return usage_error("%s needs values like 8,16,32 (%s=%s)", name, name,
                           g->val[id]);
    return 0;
}

/* Every plan field given, through the table, in the table's order. */
static int set_fields(const gathered *g, tplan_config *c)
{
    tplan_err err;

    for (int id = 0; id < tplan_field_count(); id++) {
        const tplan_field *f = tplan_field_at(id);

        if (!g->fval[id] || f->kind == TPLAN_FK_NAME)
            continue;
        if (tplan_field_set_text(id, g->fval[id], c, &err))
            return engine_error(&err);
    }
    return 0;
}

/* --framework NAME, from --framework-file F when given, else built in. */
static int apply_framework(const gathered *g, tplan_config *c, bool *given)
{
    const char *name = g->fval[tplan_field_find("framework")];
    tplan_framework f;
    tplan_err err;

    if (g->set[O_FRAMEWORK_FILE] && !name)
        return usage_error("--framework-file goes with --framework NAME "
                           "naming one of its frameworks "
                           "(framework-file=%s)",
                           g->val[O_FRAMEWORK_FILE]);
    if (!name)
        return 0;
    if (g->set[O_FRAMEWORK_FILE]) {
        int rc = tplan_framework_csv_find(g->val[O_FRAMEWORK_FILE], name, &f,
                                          &err);

        /* a name the file lacks may be a built-in */
        if (rc == TPLAN_ENOTFOUND && strcmp(err.field, "framework") == 0 &&
            tplan_framework_lookup(name, &f, NULL) == TPLAN_OK)
            rc = TPLAN_OK;
        if (rc && strcmp(err.field, "framework") == 0)
            return usage_error("framework: %s: neither in %s nor built in "
                               "(`tplan frameworks` lists those)",
                               name, g->val[O_FRAMEWORK_FILE]);
        if (rc)
            return usage_error("--framework-file: %s", err.msg);
    } else if (tplan_framework_lookup(name, &f, &err)) {
        return engine_error(&err);
    }
    tplan_framework_apply(&f, c);
    for (int i = 0; i < f.n; i++)
        given[f.set[i].field] = true;
    return 0;
}

/* --qlora: the QLoRA paper's fine-tuning recipe (Dettmers et al. 2023,
 * "QLoRA: Efficient Finetuning of Quantized LLMs", §3-4 and qlora.py's
 * scripts for 7B/13B): a frozen NF4 base with double quantization, LoRA
 * r = 64 on every linear layer of a block, dropout 0.1 (0.05 at 33B/65B),
 * paged 32-bit AdamW, gradient checkpointing; compute in bf16, calc's
 * default recipe (mixed-bf16). value NULL: a flag taking none. */
static const struct {
    const char *input, *value;
} qlora[] = {
    {"finetune", NULL},
    {"lora_rank", "64"},
    {"lora_targets", "all-linear"},
    {"lora_dropout", "0.1"},
    {"base_precision", "nf4"},
    {"double_quant", NULL},
    {"optimizer", "paged-adamw-32bit"},
    {"recompute", "full"},
};

/* Append " --flag[ value]" to buf (cap bytes). */
static void add_flag(char *buf, size_t cap, const char *flag,
                     const char *value)
{
    size_t used = strlen(buf);

    snprintf(buf + used, cap - used, "%s%s%s%s", used ? " " : "", flag,
             value ? " " : "", value ? value : "");
}

/* Fill in --qlora's flags the command line left unset; say what it
 * stood for in out, and which flags given overrode it. */
static void expand_qlora(gathered *g, calc_out *out)
{
    for (size_t i = 0; i < sizeof qlora / sizeof qlora[0]; i++) {
        int id = fid(qlora[i].input);
        const char *flag = tplan_field_at(id)->flag;

        add_flag(out->qlora, sizeof out->qlora, flag, qlora[i].value);
        if (g->fval[id]) {
            char eq[96];

            /* a flag as given: --double-quant, --double-quant=false */
            if (!(tplan_field_at(id)->flags & TPLAN_FIELD_FLAG))
                add_flag(out->qlora_given, sizeof out->qlora_given, flag,
                         g->fval[id]);
            else if (strcmp(g->fval[id], "true") == 0)
                add_flag(out->qlora_given, sizeof out->qlora_given, flag,
                         NULL);
            else {
                snprintf(eq, sizeof eq, "%s=%.64s", flag, g->fval[id]);
                add_flag(out->qlora_given, sizeof out->qlora_given, eq, NULL);
            }
            continue;
        }
        g->fval[id] = qlora[i].value ? qlora[i].value : "true";
    }
}

/* --hsdp-replicas R: the shard group dp x cp / R (FSDP2's HSDP mesh is
 * (replicate, shard)); R must divide dp x cp. Once the layout is set. */
static int hsdp_replicas(const gathered *g, tplan_config *c)
{
    const char *r = g->val[O_HSDP_REPLICAS];
    char *end;
    long long n, rep;

    if (!g->set[O_HSDP_REPLICAS])
        return 0;
    if (g->fval[fid("zero_shard_group")])
        return usage_error("give --zero-shard-group or --hsdp-replicas, not "
                           "both (hsdp-replicas=%s)",
                           r);
    errno = 0;
    rep = strtoll(r, &end, 10);
    if (errno || end == r || *end || rep < 1 || rep > 10000000)
        return usage_error("hsdp-replicas: %s: not a positive integer (valid: "
                           "an integer from 1 to 10000000)",
                           r);
    /* a layout whose degrees do not divide the GPUs is validation's to
     * report */
    if (c->tp < 1 || c->cp < 1 || c->pp < 1 ||
        c->gpus % (c->tp * c->cp * c->pp))
        return 0;
    n = (long long)(tplan_config_dp(c) * c->cp);
    if (n % rep)
        return usage_error("hsdp-replicas must divide the data-parallel group "
                           "dp x cp (hsdp-replicas=%lld, dp=%lld, cp=%lld)",
                           rep, (long long)tplan_config_dp(c),
                           (long long)c->cp);
    c->zero_shard_group = n / rep;
    return 0;
}

/* Options that only make sense together, or not together. */
static int check_pairs(const gathered *g)
{
    const char *const *v = g->fval;
    const char *gb = v[fid("global_batch")], *gbt = v[fid("global_batch_tokens")];
    const char *accum = v[fid("accum")], *tokens = v[fid("tokens")];
    const char *epochs = v[fid("epochs")], *dataset = v[fid("dataset")];

    if (v[fid("micro_batch")] && g->set[O_MAX_BATCH])
        return usage_error("give --micro-batch or --max-batch, not both "
                           "(micro-batch=%s)",
                           v[fid("micro_batch")]);
    if (gb && gbt)
        return usage_error("give --global-batch or --global-batch-tokens, "
                           "not both (global-batch=%s)",
                           gb);
    /* with a global batch, --accum must agree (the engine checks the
     * triple); a ramp sets it phase by phase */
    if (v[fid("batch_ramp")] && accum)
        return usage_error("a batch ramp sets the accumulation phase by "
                           "phase; drop --accum (accum=%s)",
                           accum);
    if (v[fid("lr_base_batch")] && !v[fid("lr")])
        return usage_error("--lr-base-batch goes with --lr (lr-base-batch=%s)",
                           v[fid("lr_base_batch")]);
    if (tokens && epochs)
        return usage_error("give --tokens or --epochs, not both (tokens=%s, "
                           "epochs=%s)",
                           tokens, epochs);
    /* a fine-tune given only its dataset is planned per epoch */
    if (!epochs != !dataset &&
        !(dataset && v[fid("finetune")] && strcmp(v[fid("finetune")], "false")))
        return usage_error("--epochs and --dataset go together (%s=%s)",
                           epochs ? "epochs" : "dataset",
                           epochs ? epochs : dataset);
    return 0;
}

/* --web-link's query: every plan field given, as flag=value with the
 * value percent-encoded (RFC 3986 unreserved characters kept). The page
 * reads plan fields only: calc's other inputs are an error naming one. */
static int web_query(const gathered *g, calc_out *out)
{
    static const int page_lacks[] = {
        O_PARAMS,    O_ACT_BYTES,  O_FLOPS,     O_LAYERS,       O_HIDDEN,
        O_HEADS,     O_KV_HEADS,   O_FFN,       O_VOCAB,        O_MAX_SEQ,
        O_MLP,       O_NORM,       O_POS,       O_TIED,         O_UNTIED,
        O_BIAS,      O_NO_BIAS,    O_QKV_BIAS,  O_QK_NORM,      O_HEAD_DIM,
        O_BLOCK_NORMS, O_GPU_FILE, O_MODEL_FILE, O_MODEL_CONFIG,
        O_FRAMEWORK_FILE, O_QLORA};
    size_t n = 0, cap = sizeof out->web_query;

    for (size_t i = 0; i < sizeof page_lacks / sizeof page_lacks[0]; i++)
        if (g->set[page_lacks[i]])
            return usage_error("--web-link: the page reads plan fields only, "
                               "not --%s (%s=%s)",
                               defs[page_lacks[i]].name,
                               defs[page_lacks[i]].name,
                               g->val[page_lacks[i]] ? g->val[page_lacks[i]]
                                                     : "true");
    for (int i = 0; i < tplan_model_field_count(); i++)
        if (g->mval[i])
            return usage_error("--web-link: the page reads plan fields only, "
                               "not --%s (%s=%s)",
                               tplan_model_field_at(i)->option,
                               tplan_model_field_at(i)->option, g->mval[i]);
    out->web_query[0] = '\0';
    for (int id = 0; id < tplan_field_count(); id++) {
        const char *v = g->fval[id];
        int k;

        if (!v)
            continue;
        k = snprintf(out->web_query + n, cap - n, "%s%s=", n ? "&" : "",
                     tplan_field_at(id)->flag + 2);
        if (k < 0 || (size_t)k >= cap - n)
            goto long_query;
        n += (size_t)k;
        for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
            bool keep = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
                        (*p >= '0' && *p <= '9') || strchr("-._~", *p);

            k = snprintf(out->web_query + n, cap - n, keep ? "%c" : "%%%02X",
                         *p);
            if (k < 0 || (size_t)k >= cap - n)
                goto long_query;
            n += (size_t)k;
        }
    }
    return 0;
long_query:
    return usage_error("--web-link: the options make a query over %zu bytes",
                       cap - 1);
}

int calc_parse(int argc, const char *const *argv, tplan_config *c,
               calc_out *out)
{
    const char **fval = calloc((size_t)tplan_field_count(), sizeof *fval);
    gathered g;
    tplan_err err;
    int rc;

    memset(out, 0, sizeof *out);
    memset(&g, 0, sizeof g);
    if (!(g.fval = fval)) {
        fputs("tplan: out of memory\n", stderr);
        return 1;
    }
    if ((rc = gather(argc, argv, &g)))
        goto done;
    if (g.set[O_QLORA])
        expand_qlora(&g, out);
    out->help = g.set[O_HELP];
    out->json = g.set[O_JSON];
    out->web_link = g.set[O_WEB_LINK];
    out->inventory = g.set[O_INVENTORY];
    out->report = g.set[O_REPORT] ? g.val[O_REPORT] : NULL;
    if (out->report && !out->report[0]) {
        rc = usage_error("--report: an empty file name");
        goto done;
    }
    if (out->help)
        goto done;
    if (out->json && out->inventory) {
        rc = usage_error("give --json or --inventory, not both");
        goto done;
    }
    memset(c, 0, sizeof *c);
    if ((rc = build_model(&g, &c->model)))
        goto done;
    if (g.set[O_GPU_FILE] && !fval[TPLAN_FIELD_ID_GPU]) {
        rc = usage_error("--gpu-file goes with --gpu NAME naming one of its "
                         "GPUs (gpu-file=%s)",
                         g.val[O_GPU_FILE]);
        goto done;
    }
    if (g.set[O_GPU_FILE]) {
        if ((rc = find_in(&g, O_GPU_FILE, true, fval[TPLAN_FIELD_ID_GPU],
                          &c->gpu)))
            goto done;
    } else if (tplan_gpu_lookup(fval[TPLAN_FIELD_ID_GPU]
                                    ? fval[TPLAN_FIELD_ID_GPU]
                                    : "h100-sxm",
                                &c->gpu, &err)) {
        rc = engine_error(&err);
        goto done;
    }
    tplan_config_init(c);
    c->seq = tplan_model_default_seq(&c->model);
    /* the framework first: the flags given override its values */
    for (int id = 0; id < tplan_field_count(); id++)
        out->given[id] = fval[id] != NULL;
    if ((rc = apply_framework(&g, c, out->given)) || (rc = set_fields(&g, c)) ||
        (rc = check_pairs(&g)) || (rc = hsdp_replicas(&g, c)))
        goto done;
    /* a custom model's learned positions are sized to --seq */
    if (c->model.max_seq == 0)
        c->model.max_seq = c->seq > 0 ? c->seq : 2048;
    if (c->seq == 0)
        c->seq = c->model.max_seq;
    tplan_fields_finish(c);
    if ((rc = parse_list(&g, O_COMPARE_GPUS, out->compare, &out->n_compare)) ||
        (rc = parse_list(&g, O_COMPARE_BATCHES, out->batches,
                         &out->n_batches)))
        goto done;
    if (tplan_config_validate(c, &err))
        rc = engine_error(&err);
    else if (out->web_link)
        rc = web_query(&g, out);
done:
    free(fval);
    return rc;
}
