/* Fine-tuning's parts of a plan (docs/MODEL.md section 12): LoRA
 * adapters and what they train, frozen base weights stored in 16 bits or
 * quantized as bitsandbytes stores them, and where ZeRO-Offload puts
 * optimizer states and weights. Shapes and bytes only; knows nothing of
 * GPUs, time or I/O. */
#ifndef TPLAN_FINETUNE_H
#define TPLAN_FINETUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* The linear layers of a transformer layer an adapter can target, with
 * PEFT's names for Llama-style models (q_proj ... down_proj). A GELU MLP
 * has `up` (fc1) and `down` (fc2) and no `gate`. gate, up and down are a
 * dense layer's MLP; in a mixture-of-experts layer (issue 37) `router` is
 * the router's linear (Mixtral's block_sparse_moe.gate), `shared_experts`
 * the shared experts' gate, up and down (and Qwen2-MoE's shared expert
 * gate), `experts` every routed expert's gate, up and down (Mixtral's w1,
 * w3, w2). `mla` is latent attention's q_a_proj, q_b_proj (q_proj without
 * a query rank), kv_a_proj_with_mqa and kv_b_proj; its output is `o`
 * (DeepSeek-V3's o_proj). q, k and v select nothing on latent attention,
 * mla nothing on standard attention. */
enum {
    TPLAN_LORA_Q = 1u << 0,
    TPLAN_LORA_K = 1u << 1,
    TPLAN_LORA_V = 1u << 2,
    TPLAN_LORA_O = 1u << 3,
    TPLAN_LORA_GATE = 1u << 4,
    TPLAN_LORA_UP = 1u << 5,
    TPLAN_LORA_DOWN = 1u << 6,
    TPLAN_LORA_MLA = 1u << 7,
    TPLAN_LORA_ROUTER = 1u << 8,
    TPLAN_LORA_SHARED = 1u << 9,
    TPLAN_LORA_EXPERTS = 1u << 10,
    TPLAN_LORA_ATTN = 0x8fu, /* q, k, v, o, mla: the attention's linears */
    TPLAN_LORA_MLP = 0x70u,  /* gate, up, down of a dense layer */
    TPLAN_LORA_ALL = 0x7ffu  /* PEFT's "all-linear": every layer linear */
};

/* target names (bits 0 .. TPLAN_LORA_NTARGETS - 1) */
#define TPLAN_LORA_NTARGETS 11
/* the most linear kinds of one layer: 5 of latent attention, the router,
 * the shared experts' 3 and gate, a routed expert's 3 */
#define TPLAN_LORA_NLINEAR 13

/* How frozen base weights are stored. AUTO: as the recipe stores weights. */
typedef enum {
    TPLAN_BASE_AUTO,
    TPLAN_BASE_BF16,
    TPLAN_BASE_FP16,
    TPLAN_BASE_INT8, /* LLM.int8(): int8 values + an fp32 scale per row */
    TPLAN_BASE_NF4,  /* QLoRA 4-bit NormalFloat, block 64 */
    TPLAN_BASE_FP4,  /* bitsandbytes 4-bit float, same layout as nf4 */
    TPLAN_BASE_COUNT
} tplan_base_precision;

/* Where ZeRO-Offload / ZeRO-Infinity / FSDP keep what leaves the GPU. */
typedef enum {
    TPLAN_OFFLOAD_NONE,
    TPLAN_OFFLOAD_CPU,
    TPLAN_OFFLOAD_NVME,
    TPLAN_OFFLOAD_COUNT
} tplan_offload;

/* One linear layer of a block as a tensor-parallel rank holds it. */
typedef struct tplan_linear {
    unsigned target; /* TPLAN_LORA_* bit */
    double in, out;  /* on this rank */
    double full_in, full_out;
    bool row_parallel; /* Megatron splits its input (o, down), else its
                          output (q, k, v, gate, up); MLA's down
                          projections and the router are whole */
    double count;      /* copies on this rank: experts / ep for a routed
                          expert's linear, else 1 */
    bool expert;       /* a routed expert's: sharded over ep, its states
                          over the expert-data-parallel group */
} tplan_linear;

/* The linears of one layer of a transformer m on a rank of tp ranks (and
 * ep expert ranks, each routed expert split over etp), a
 * mixture-of-experts layer's when moe, in target order; returns how many
 * kinds (6 for a dense GELU layer, 7 for SwiGLU). */
int tplan_layer_linears(const tplan_model *m, bool moe, int64_t tp, int64_t etp,
                        int64_t ep, tplan_linear out[TPLAN_LORA_NLINEAR]);

/* A dense layer's: tplan_layer_linears(m, false, tp, tp, 1, out). */
int tplan_block_linears(const tplan_model *m, int64_t tp,
                        tplan_linear out[TPLAN_LORA_NLINEAR]);

/* Adapter parameters of one linear: LoRA's A (r x in) and B (out x r),
 * and with DoRA (Liu et al. 2024) the magnitude vector of out. */
double tplan_lora_linear_params(const tplan_linear *l, int64_t rank,
                                bool dora);

/* LoRA (Hu et al. 2021) parameters of one dense block on one rank: A (r x
 * in) and B (out x r) per targeted linear; on a rank, the factor on the
 * split side is split with its base and the other replicated. */
double tplan_lora_block_params(const tplan_model *m, int64_t rank,
                               unsigned targets, int64_t tp);

/* The same for one layer (moe: a mixture-of-experts layer) on a rank of
 * tp and ep ranks, with DoRA's magnitudes when dora; *experts (may be
 * NULL) gets the routed experts' share. */
double tplan_lora_layer_params(const tplan_model *m, bool moe, int64_t rank,
                               unsigned targets, bool dora, int64_t tp,
                               int64_t ep, double *experts);

/* Trainable parameters of a whole model under LoRA: exactly PEFT's
 * count, r x (in + out) per targeted linear of every layer (every expert
 * of an MoE layer), plus out per linear under DoRA. The MTP modules
 * (transformers does not load them) get none. */
int64_t tplan_lora_params(const tplan_model *m, int64_t rank,
                          unsigned targets, bool dora);

/* Of those, the ones a token runs through: a routed expert's adapters
 * count top_k / experts (for FLOPs). */
double tplan_lora_active_params(const tplan_model *m, int64_t rank,
                                unsigned targets, bool dora);

/* Does targets select a linear of m? *why names the target m lacks when
 * a set names one (q on latent attention, experts on a dense model):
 * NULL when all is well. */
bool tplan_lora_targets_fit(const tplan_model *m, unsigned targets,
                            const char **why);

/* Bytes of one frozen matrix of n elements and `rows` output rows stored
 * as base (AUTO and 16-bit: 2 bytes per element); dq: bitsandbytes'
 * nested (double) quantization of the 4-bit block statistics. */
double tplan_base_matrix_bytes(tplan_base_precision base, bool dq, double n,
                               double rows);

/* Bytes of a tensor's elements as the dequantization kernel reads them
 * (for the time model): 0 for unquantized bases. */
double tplan_base_elem_bytes(tplan_base_precision base, bool dq);

bool tplan_base_quantized(tplan_base_precision base);

/* "q,v", "attn", "all-linear" (any of q, k, v, o, gate, up, down, mla,
 * router, shared_experts, experts, attn, mlp, all-linear, joined by
 * commas) into a mask; false for anything else. */
bool tplan_lora_targets_parse(const char *text, unsigned *mask);

/* The canonical text of a mask: "all-linear", "attn" or "q,v". */
void tplan_lora_targets_format(unsigned mask, char *buf, size_t len);

const char *tplan_base_precision_name(tplan_base_precision b);
const char *tplan_offload_name(tplan_offload o);

#endif
