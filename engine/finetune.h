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

/* The linear layers of a transformer block an adapter can target, with
 * PEFT's names for Llama-style models (q_proj ... down_proj). A GELU MLP
 * has `up` (fc1) and `down` (fc2) and no `gate`. */
enum {
    TPLAN_LORA_Q = 1u << 0,
    TPLAN_LORA_K = 1u << 1,
    TPLAN_LORA_V = 1u << 2,
    TPLAN_LORA_O = 1u << 3,
    TPLAN_LORA_GATE = 1u << 4,
    TPLAN_LORA_UP = 1u << 5,
    TPLAN_LORA_DOWN = 1u << 6,
    TPLAN_LORA_ATTN = 0x0fu, /* q, k, v, o */
    TPLAN_LORA_ALL = 0x7fu   /* PEFT's "all-linear": every block linear */
};

#define TPLAN_LORA_NLINEAR 7

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
                          output (q, k, v, gate, up) */
} tplan_linear;

/* The linears of one block of a transformer m on a rank of tp ranks, in
 * target order; returns how many (6 for a GELU MLP, 7 for SwiGLU). */
int tplan_block_linears(const tplan_model *m, int64_t tp,
                        tplan_linear out[TPLAN_LORA_NLINEAR]);

/* LoRA (Hu et al. 2021) parameters of one block on one rank: A (r x in)
 * and B (out x r) per targeted linear; on a rank, the factor on the split
 * side is split with its base and the other replicated. */
double tplan_lora_block_params(const tplan_model *m, int64_t rank,
                               unsigned targets, int64_t tp);

/* Trainable parameters of a whole model under LoRA: exactly PEFT's
 * count, r x (in + out) per targeted linear of every block. */
int64_t tplan_lora_params(const tplan_model *m, int64_t rank,
                          unsigned targets);

/* Bytes of one frozen matrix of n elements and `rows` output rows stored
 * as base (AUTO and 16-bit: 2 bytes per element); dq: bitsandbytes'
 * nested (double) quantization of the 4-bit block statistics. */
double tplan_base_matrix_bytes(tplan_base_precision base, bool dq, double n,
                               double rows);

/* Bytes of a tensor's elements as the dequantization kernel reads them
 * (for the time model): 0 for unquantized bases. */
double tplan_base_elem_bytes(tplan_base_precision base, bool dq);

bool tplan_base_quantized(tplan_base_precision base);

/* "q,v", "attn", "all-linear" (any of q,k,v,o,gate,up,down, attn, mlp,
 * all-linear, joined by commas) into a mask; false for anything else. */
bool tplan_lora_targets_parse(const char *text, unsigned *mask);

/* The canonical text of a mask: "all-linear", "attn" or "q,v". */
void tplan_lora_targets_format(unsigned mask, char *buf, size_t len);

const char *tplan_base_precision_name(tplan_base_precision b);
const char *tplan_offload_name(tplan_offload o);

#endif
