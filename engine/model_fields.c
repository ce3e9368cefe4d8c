/* The model-shape field table (model_fields.h). Meanings and sources are
 * in model.h and docs/MODEL.md sections 1.8 and 13. */
#include "model_fields.h"

#include <string.h>

typedef struct row {
    tplan_model_field f;
    size_t offset;
} row;

#define COUNT(nm, opt, mx, dc)                                                 \
    {{#nm, opt, false, mx, dc}, offsetof(tplan_model, nm)}
#define FLAG(nm, opt, dc)                                                      \
    {{#nm, opt, true, 1, dc}, offsetof(tplan_model, nm)}

static const row rows[] = {
    COUNT(experts, "experts", 100000, "routed experts per MoE layer (0: dense)"),
    COUNT(top_k, "top-k", 100000, "routed experts per token"),
    COUNT(expert_ffn, "expert-ffn", 10000000,
          "one routed expert's inner width (0: ffn)"),
    COUNT(shared_experts, "shared-experts", 1000,
          "always-on experts per MoE layer"),
    COUNT(shared_ffn, "shared-ffn", 10000000,
          "one shared expert's width (0: expert_ffn)"),
    COUNT(moe_first_dense, "moe-first-dense", 100000,
          "the first layers that stay dense"),
    COUNT(moe_every, "moe-every", 100000,
          "every n-th layer after them is MoE (0: every layer)"),
    FLAG(shared_gate, "shared-gate",
         "a sigmoid gate on the shared expert (Qwen2-MoE)"),
    COUNT(moe_max_nodes, "moe-max-nodes", 100000,
          "node-limited routing: nodes a token reaches at most (0: no "
          "limit; config.json topk_group)"),
    FLAG(aux_free_router, "aux-free-router",
         "experts balanced by a routing bias, no auxiliary loss (sets the "
         "default moe_imbalance; config.json topk_method noaux_tc)"),
    COUNT(mtp_layers, "mtp-layers", 100,
          "multi-token prediction modules after the last layer (config.json "
          "num_nextn_predict_layers; not in params)"),
    COUNT(q_lora_rank, "q-lora-rank", 1000000,
          "latent attention: query rank (0: a full projection)"),
    COUNT(kv_lora_rank, "kv-lora-rank", 1000000,
          "latent attention: key-value rank (0: no MLA)"),
    COUNT(qk_rope_dim, "qk-rope-dim", 100000,
          "latent attention: rotary part of a q/k head"),
    COUNT(qk_nope_dim, "qk-nope-dim", 100000,
          "latent attention: non-rotary part of a q/k head"),
    COUNT(v_head_dim, "v-head-dim", 100000, "latent attention: value head"),
    COUNT(window, "window", 100000000,
          "sliding attention window in tokens (0: none)"),
    COUNT(global_every, "global-every", 100000,
          "every n-th layer attends globally (0: none)"),
    FLAG(softcap, "softcap", "tanh soft-capping of scores and logits"),
    FLAG(gelu_python, "gelu-python",
         "the GELU is transformers' gelu_new, a Python formula (GPT-2's)"),
};

enum { ROW_COUNT = sizeof rows / sizeof rows[0] };

_Static_assert(ROW_COUNT <= TPLAN_MODEL_FIELDS_MAX, "TPLAN_MODEL_FIELDS_MAX");

int tplan_model_field_count(void)
{
    return ROW_COUNT;
}

const tplan_model_field *tplan_model_field_at(int i)
{
    return i >= 0 && i < ROW_COUNT ? &rows[i].f : NULL;
}

int tplan_model_field_find(const char *name)
{
    for (int i = 0; i < ROW_COUNT; i++)
        if (strcmp(rows[i].f.name, name) == 0)
            return i;
    return -1;
}

int tplan_model_field_find_option(const char *option)
{
    for (int i = 0; i < ROW_COUNT; i++)
        if (strcmp(rows[i].f.option, option) == 0)
            return i;
    return -1;
}

int64_t tplan_model_field_get(const tplan_model *m, int i)
{
    const char *p = (const char *)m + rows[i].offset;
    int64_t v;
    bool b;

    if (rows[i].f.is_bool) {
        memcpy(&b, p, sizeof b);
        return b;
    }
    memcpy(&v, p, sizeof v);
    return v;
}

int tplan_model_field_set(tplan_model *m, int i, int64_t v, tplan_err *err)
{
    char *p = (char *)m + rows[i].offset;
    const tplan_model_field *f = &rows[i].f;

    if (f->is_bool && (v < 0 || v > 1))
        return tplan_err_set(err, TPLAN_EINVAL, f->name,
                             "%s must be true or false (%s=%lld)", f->name,
                             f->name, (long long)v);
    if (v < 0 || v > f->max)
        return tplan_err_set(err, TPLAN_EINVAL, f->name,
                             "%s must be in [0, %lld] (%s=%lld)", f->name,
                             (long long)f->max, f->name, (long long)v);
    if (f->is_bool) {
        bool b = v != 0;

        memcpy(p, &b, sizeof b);
    } else {
        memcpy(p, &v, sizeof v);
    }
    return TPLAN_OK;
}
