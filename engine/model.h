/* Model architecture specs, exact parameter counts and the preset catalog.
 * Pure arithmetic: knows nothing of GPUs, precisions or I/O. */
#ifndef TPLAN_MODEL_H
#define TPLAN_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"

typedef enum {
    TPLAN_ARCH_DECODER, /* causal transformer (GPT, Llama, Mistral) */
    TPLAN_ARCH_ENCODER, /* bidirectional transformer (BERT) */
    TPLAN_ARCH_GENERIC  /* parameters + activation bytes per sample only */
} tplan_arch;

typedef enum { TPLAN_MLP_GELU, TPLAN_MLP_SWIGLU } tplan_mlp;
typedef enum { TPLAN_NORM_LAYERNORM, TPLAN_NORM_RMSNORM } tplan_norm;
typedef enum { TPLAN_POS_LEARNED, TPLAN_POS_ROTARY } tplan_pos;

typedef struct tplan_model {
    char name[48];
    tplan_arch arch;
    /* transformer fields (ignored for generic models) */
    int64_t layers;
    int64_t hidden;
    int64_t heads;
    int64_t kv_heads; /* == heads without GQA */
    int64_t ffn;      /* MLP inner width f (per branch for SwiGLU) */
    int64_t vocab;
    int64_t max_seq; /* learned position table rows; default sequence */
    tplan_mlp mlp;
    tplan_norm norm;
    tplan_pos pos;
    bool bias;       /* linear layers carry biases */
    bool qkv_bias;   /* only q, k and v carry biases (Qwen2); bias implies */
    bool qk_norm;    /* RMSNorm over each head of q and of k (Qwen3, Gemma 3) */
    bool gelu_python; /* the GELU is transformers' gelu_new, a Python formula
                         (NewGELUActivation: saves more, docs/MODEL.md 3.4) */
    bool tied;       /* LM head shares the token embedding */
    bool batch_norm; /* normalises over the batch (ResNet): advice only */
    double dropout;  /* attention, residual and embedding dropout p */
    /* parameters outside the decoder formula, on the embedding side (BERT's
     * token types and embedding norm) and on the head side (BERT's pooler
     * and pretraining heads) */
    int64_t extra_params;
    int64_t head_extra_params;
    /* generic models: total parameters, largest layer, activation bytes
     * saved per sample in fp32 (16-bit recipes halve it), forward FLOPs */
    int64_t generic_params;
    int64_t generic_largest_layer_params;
    double generic_act_bytes_fp32;
    double generic_flops_per_sample; /* forward FLOPs of one sample */
    const char *source;              /* borrowed, static string; may be NULL */
    /* attention head width d; 0 = hidden/heads (Gemma's differ) */
    int64_t head_dim;
    /* norms per block; 0 = 2 (pre-norm); Gemma 2 has 4 (a post-norm after
     * attention and after the MLP as well) */
    int64_t block_norms;
    /* Mixture of experts (docs/MODEL.md section 1.8); experts = 0: dense.
     * An MoE layer replaces the MLP by a router (h x experts, no bias),
     * `experts` routed MLPs of width expert_ffn of which top_k run per
     * token, and shared_experts always-on MLPs of width shared_ffn each.
     * Layers 0..moe_first_dense-1 are dense (width ffn); after them every
     * moe_every-th layer is MoE (transformers' decoder_sparse_step). */
    int64_t experts;
    int64_t top_k;
    int64_t expert_ffn;      /* 0 = ffn */
    int64_t shared_experts;
    int64_t shared_ffn;      /* width of each shared expert; 0 = expert_ffn */
    int64_t moe_first_dense;
    int64_t moe_every;       /* 0 = 1: every layer after the dense ones */
    bool shared_gate;        /* sigmoid gate h -> 1 on the shared expert
                                (Qwen2-MoE) */
    /* node-limited routing (DeepSeek-V3 sections 2.1.2 and 3.2.2): each
     * token goes to at most this many nodes of the expert-parallel group
     * (0: no limit); config.json's topk_group, groups taken as nodes */
    int64_t moe_max_nodes;
    /* the router balances experts without an auxiliary loss, by a bias
     * on the routing scores (Wang et al. 2024, arXiv 2408.15664;
     * DeepSeek-V3 report section 2.1.2); config.json topk_method
     * "noaux_tc". It sets the default moe_imbalance (config.h). */
    bool aux_free_router;
    /* multi-token prediction (DeepSeek-V3 report section 2.2): D modules
     * after the last layer, each a transformer block of the last layer's
     * kind, a 2h x h projection and RMSNorms, sharing the embedding and
     * the output head; config.json num_nextn_predict_layers. Not in the
     * parameter total (tplan_param_count.mtp holds them). */
    int64_t mtp_layers;
    /* Multi-head latent attention (DeepSeek-V2/V3) when kv_lora_rank > 0:
     * q through a rank-q_lora_rank bottleneck (0: a full h x a(dn+dr)
     * projection), k and v from a kv_lora_rank latent plus one shared
     * rotary key of qk_rope_dim; q and k heads are qk_nope_dim +
     * qk_rope_dim wide, v heads v_head_dim. */
    int64_t q_lora_rank;
    int64_t kv_lora_rank;
    int64_t qk_rope_dim;
    int64_t qk_nope_dim;
    int64_t v_head_dim;
    /* Sliding-window attention: each query sees the last `window` keys
     * (0: all); with global_every = n every n-th layer attends globally
     * (Gemma 2: 2, Gemma 3: 6; 0: none). */
    int64_t window;
    int64_t global_every;
    /* tanh soft-capping of attention and final logits (Gemma 2) */
    bool softcap;
} tplan_model;

/* Exact parameter counts, by where they live. */
typedef struct tplan_param_count {
    int64_t embed;      /* token embedding V*h (+ extra_params) */
    int64_t pos;        /* learned position table s_max*h */
    int64_t per_layer;  /* one transformer block */
    int64_t layer_attn; /* of which attention (QKV + output projection) */
    int64_t layer_mlp;  /* of which MLP */
    int64_t layer_norm; /* of which the norms */
    int64_t final_norm;
    int64_t head;       /* untied LM head V*h; 0 when tied */
    int64_t head_extra; /* head-side extras (BERT pooler, MLM, NSP) */
    int64_t total;
    /* mixtures of experts (all 0 for dense models): one MoE layer is
     * layer_attn + layer_norm + layer_router + layer_shared +
     * experts * layer_expert */
    int64_t dense_layers, moe_layers;
    int64_t layer_router; /* router weights */
    int64_t layer_shared; /* shared experts and their gate */
    int64_t layer_expert; /* one routed expert */
    int64_t moe_layer;    /* one MoE layer */
    int64_t expert_total; /* every routed expert of the model */
    int64_t active;       /* parameters one token uses: top_k experts */
    /* the multi-token prediction modules' own parameters (D blocks,
     * projections and norms; the embedding and head are shared): not in
     * total, which is the main model's (docs/MODEL.md section 1.9) */
    int64_t mtp;
    int64_t mtp_expert;   /* of mtp: routed experts */
} tplan_param_count;

/* Fill *m with neutral defaults (GELU, LayerNorm, learned positions, biases,
 * tied, no dropout, kv_heads = heads once heads is set). */
void tplan_model_init(tplan_model *m);

/* Check every field; the message names the first bad field and value. */
int tplan_model_validate(const tplan_model *m, tplan_err *err);

/* Attention widths: d (head_dim, or hidden/heads), heads*d (q and the
 * attention output) and kv_heads*d (k, v). */
int64_t tplan_model_head_dim(const tplan_model *m);
int64_t tplan_model_q_dim(const tplan_model *m);
int64_t tplan_model_kv_dim(const tplan_model *m);
/* norms in one block (2 unless block_norms says otherwise) */
int64_t tplan_model_block_norms(const tplan_model *m);
/* Attention widths under MLA too: q and k per head (d, or dn + dr), v
 * and the attention output per head (d, or v_head_dim); the K and V
 * elements one token keeps per layer after projection (2 k d, or
 * a (dn + dr + dv) as MLA expands them per head). */
int64_t tplan_model_qk_head_dim(const tplan_model *m);
int64_t tplan_model_v_head_dim(const tplan_model *m);
int64_t tplan_model_kv_elems(const tplan_model *m);
bool tplan_model_mla(const tplan_model *m);
bool tplan_model_moe(const tplan_model *m);
/* Is the MTP modules' block an MoE block (the last layer's kind)? */
bool tplan_model_mtp_moe(const tplan_model *m);
/* The sequence a plan trains at unless told: the model's max_seq (1 for
 * a generic model, whose sample is no sequence). */
int64_t tplan_model_default_seq(const tplan_model *m);
/* MoE layers among layers [lo, hi) (0 for dense models). */
int64_t tplan_model_moe_layers(const tplan_model *m, int64_t lo, int64_t hi);
/* Widths: one routed expert's, one shared expert's. */
int64_t tplan_model_expert_ffn(const tplan_model *m);
int64_t tplan_model_shared_ffn(const tplan_model *m);
/* Parameters of an MLP of inner width f under the model's MLP kind
 * (with biases when the model has them). */
int64_t tplan_model_mlp_params(const tplan_model *m, int64_t f);
/* Attention weights of one layer, biases included. */
int64_t tplan_model_attn_params(const tplan_model *m);
/* Of them, matmul weights (2 FLOPs per weight per token forward). */
int64_t tplan_model_attn_matmul(const tplan_model *m);

/* Count parameters exactly (docs/MODEL.md section 1). m must be valid. */
void tplan_model_params(const tplan_model *m, tplan_param_count *out);

/* Narayanan et al. 2021, Eq. 2: P = 12 L h^2 (1 + 13/(12h) + (V+s)/(12Lh)). */
double tplan_megatron_params(double layers, double hidden, double vocab,
                             double seq);

/* Presets. Lookup copies the preset into *out. */
int tplan_model_preset(const char *name, tplan_model *out, tplan_err *err);
int tplan_model_preset_count(void);
const tplan_model *tplan_model_preset_at(int i); /* borrowed, static */

const char *tplan_mlp_name(tplan_mlp v);
const char *tplan_norm_name(tplan_norm v);
const char *tplan_pos_name(tplan_pos v);
const char *tplan_arch_name(tplan_arch v);

#endif
