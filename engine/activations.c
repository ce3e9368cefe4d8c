/* Saved-tensor inventories and their evaluation. An inventory is three
 * tables (per layer, first stage, last stage); a row is one tensor kept
 * from forward to backward, with a shape, a dtype rule and flags that say
 * when it exists and how tensor/sequence parallelism splits it. A profile
 * is an inventory plus the bytes each dtype rule means in each precision
 * class: `torch` and `torch-cpu` share one inventory under CUDA's and CPU's
 * rules. */
#include "activations.h"

#include <stddef.h>
#include <string.h>

#include "finetune.h"

enum dim {
    SBH,  /* s*b*h */
    SBQ,  /* s*b*a*d: q or the attention output (h unless d != h/a) */
    SBKV, /* s*b*k*d: one of K or V with k kv heads of size d */
    SBF,  /* s*b*f */
    ASSB, /* a*s*s*b: attention scores */
    ASB,  /* a*s*b: per-head statistics (flash log-sum-exp) */
    SB,   /* s*b: per-token statistics (norm mean/rstd, loss targets) */
    SBV,  /* s*b*V: logits */
    SBO,  /* s*b*a*dv: the attention output (SBQ unless MLA) */
    SBQL, /* s*b*q_lora_rank: MLA's compressed query */
    SBKL, /* s*b*(kv_lora_rank + rope): MLA's compressed key-value */
    SBE,  /* s*b*experts: router scores */
    SBK   /* s*b*top_k: routing choices */
};

enum {
    F_TP = 1 << 0,        /* inside the tensor-parallel region: split by t */
    F_SP = 1 << 1,        /* outside it: split by t only with sequence par. */
    F_DROP = 1 << 2,      /* exists only when dropout p > 0 */
    F_CORE = 1 << 3,      /* eager attention core: gone with selective/flash */
    F_FLASH = 1 << 4,     /* exists only with flash attention */
    F_GELU = 1 << 5,      /* GELU MLP only */
    F_SWIGLU = 1 << 6,    /* SwiGLU MLP only */
    F_LN = 1 << 7,        /* LayerNorm only */
    F_RMS = 1 << 8,       /* RMSNorm only */
    F_CKPT = 1 << 9,      /* the checkpoint kept under full recomputation */
    F_ROPE = 1 << 10,     /* rotary positions only (HF Llama attention) */
    F_LEARNED = 1 << 11,  /* learned positions only (HF GPT-2 attention) */
    F_KVNATIVE = 1 << 12, /* K, V at kv heads: flash or no GQA expansion */
    F_KVEXPAND = 1 << 13, /* K, V expanded to all heads (eager repeat_kv) */
    F_DEC = 1 << 14,      /* decoders only (final norm) */
    F_ENC = 1 << 15,      /* encoders only (BERT embedding norm, MLM head) */
    F_UNFUSED = 1 << 16,  /* a loss that materialises its log-softmax */
    F_FUSED = 1 << 17,    /* a fused cross-entropy kernel */
    F_POST = 1 << 18,     /* post-norms after attention and MLP (Gemma 2) */
    F_QKNORM = 1 << 19,   /* per-head norms of q and k (Qwen3, Gemma 3) */
    F_MLP = 1 << 20,      /* inside the MLP: an MoE layer has them per
                             routed token and per shared expert instead */
    F_MLA = 1 << 21,      /* latent attention only (DeepSeek-V2/V3) */
    F_SOFTCAP = 1 << 22,  /* tanh soft-capping only (Gemma 2) */
    F_EAGERNORM = 1 << 23, /* HF's eager RMSNorm (x.float(), x * rstd) */
    F_FUSEDNORM = 1 << 24, /* a fused RMSNorm kernel: input and rstd */
    F_GELUPY = 1 << 25,    /* transformers' gelu_new (a Python formula) */
    /* what Megatron-Core's recompute_modules drop (section 3.9) */
    F_NORMOUT = 1 << 26, /* a block norm's output: gone with layernorm */
    F_NORMINT = 1 << 27, /* a block norm's own saved tensors beyond its
                            input (torch): gone with layernorm */
    F_QKV = 1 << 28,     /* q, k, v after the projections: gone with
                            mla_up_proj on latent attention */
    F_ACTOUT = 1 << 29,  /* the MLP activation's output (fc2 input): gone
                            in routed experts with moe_act */
    F_ACTINT = 1 << 30   /* the activation's own saved tensors (torch):
                            gone in routed experts with moe_act */
};
/* the recomputed norm's input as its checkpoint keeps it (torch eager
 * RMSNorm): only with layernorm (bit 31: outside an int enumerator) */
#define F_NORMRC (1u << 31)

/* Which MLP an F_MLP row belongs to: a dense layer's, the routed
 * experts' or the shared experts' (recompute modules treat them apart) */
enum part { P_DENSE, P_ROUTED, P_SHARED };

/* Dtype rules: what decides a tensor's width. */
enum rule {
    R_ACT,     /* the activation dtype */
    R_LIN,     /* a matmul input: 1 byte under fp8 recipes */
    R_RES,     /* on the residual stream: fp32 under autocast */
    R_F32,     /* fp32 whatever the recipe */
    R_I64,     /* int64 token ids and targets */
    R_MASK,    /* dropout mask */
    R_EMBMASK, /* embedding dropout mask (embeddings are not autocast) */
    R_LNSTAT,  /* layer-norm mean and rstd */
    R_F32OP,   /* output or input of an op on autocast's CUDA fp32 list
                  (softmax output, layer_norm input) */
    R_DROPOUT, /* attention dropout output, saved by attn@v */
    R_PROBS,   /* autocast's 16-bit copy of the probabilities for attn@v */
    R_AMPCOPY, /* autocast's 16-bit copy of an fp32 matmul input */
    R_RMSOUT,  /* RMSNorm output shared by its matmuls (none: autocast) */
    R_PROBS16, /* HF Llama's probs cast back to 16 bits (fp32: same) */
    R_LOGITS,  /* logits a fused loss saves for its backward */
    R_LOGSOFT, /* the loss's log-softmax output */
    R_LOGIT32, /* an fp32 gradient at the log-softmax's backward (the peak) */
    R_GELUPY,  /* what a Python tanh GELU saves beyond the fused kernel */
    R_MEANIN,  /* x^2 of an eager RMSNorm, kept by mean (torch < 2.2 only) */
    R_COMBINE, /* experts' outputs kept by the product with the routing
                  weights after fc2 (transformers' MoE blocks) */
    R_WPROBS,  /* routing weights kept by an activation that applies them
                  before fc2 (Megatron-Core's weighted SwiGLU) */
    R_COUNT
};

typedef unsigned char rule_bytes[TPLAN_ACT_CLASS_COUNT];

typedef struct act_row {
    const char *name;
    unsigned char dim;
    unsigned char count;
    unsigned char rule;
    unsigned flags;
} act_row;

/* Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
 * Transformer Models", section 4.1: attention 11sbh + 5as^2b, MLP 19sbh,
 * norms 4sbh; 16-bit activations, 1-byte dropout masks. GQA shrinks K and
 * V to k heads; SwiGLU keeps the fused gate+up output (2f wide) and the
 * product (Megatron's bias_swiglu); flash keeps Q, K, V, the output and a
 * per-head fp32 log-sum-exp (Dao et al. 2022). Dropout rows vanish at p=0. */
static const act_row megatron_layer[] = {
    {"attn norm input", SBH, 1, R_ACT, F_SP},
    {"qkv input (norm output)", SBH, 1, R_LIN, F_SP | F_NORMOUT},
    {"q latent (norm input and output)", SBQL, 2, R_ACT, F_SP | F_MLA},
    {"kv latent (norm input and output)", SBKL, 2, R_ACT, F_SP | F_MLA},
    {"q", SBQ, 1, R_ACT, F_TP | F_QKV},
    {"k", SBKV, 1, R_ACT, F_TP | F_QKV},
    {"v", SBKV, 1, R_ACT, F_TP | F_QKV},
    {"softmax output", ASSB, 1, R_ACT, F_TP | F_CORE},
    {"attention dropout mask", ASSB, 1, R_MASK, F_TP | F_CORE | F_DROP},
    {"attention dropout output", ASSB, 1, R_ACT, F_TP | F_CORE | F_DROP},
    {"flash log-sum-exp", ASB, 1, R_F32, F_TP | F_FLASH},
    {"attn output (proj input)", SBO, 1, R_LIN, F_TP},
    {"attn residual dropout mask", SBH, 1, R_MASK, F_SP | F_DROP},
    {"post-attn and post-mlp norm inputs", SBH, 2, R_ACT, F_SP | F_POST},
    {"q-norm input", SBQ, 1, R_ACT, F_TP | F_QKNORM},
    {"k-norm input", SBKV, 1, R_ACT, F_TP | F_QKNORM},
    {"mlp norm input", SBH, 1, R_ACT, F_SP},
    {"fc1 input (norm output)", SBH, 1, R_LIN, F_SP | F_NORMOUT},
    {"fc1 output (gelu input)", SBF, 1, R_ACT, F_TP | F_GELU | F_MLP},
    {"gelu output (fc2 input)", SBF, 1, R_LIN,
     F_TP | F_GELU | F_MLP | F_ACTOUT},
    {"fc1 output (gate+up)", SBF, 2, R_ACT, F_TP | F_SWIGLU | F_MLP},
    {"swiglu output (fc2 input)", SBF, 1, R_LIN,
     F_TP | F_SWIGLU | F_MLP | F_ACTOUT},
    {"mlp residual dropout mask", SBH, 1, R_MASK, F_SP | F_DROP},
    {"layer input (checkpoint)", SBH, 1, R_ACT, F_SP | F_CKPT},
};

/* Korthikanti 2022 section 4.3: the embedding dropout mask on the first
 * stage; final norm, head input and fp32 logits/loss (4sbV/t) on the last. */
static const act_row megatron_first[] = {
    {"embedding dropout mask", SBH, 1, R_MASK, F_SP | F_DROP},
};

static const act_row megatron_last[] = {
    {"final norm input", SBH, 1, R_ACT, F_SP},
    {"head input (norm output)", SBH, 1, R_LIN, F_SP},
    {"logits and loss (fp32)", SBV, 1, R_F32, F_TP},
};

/* PyTorch eager, every saved storage counted once (torch 1.13 autograd,
 * measured on CPU: tests/data/torch_cpu_gpt2.csv, whose GPT-2 rows this
 * reproduces exactly). Under autocast the residual stream stays fp32 and
 * each Linear saves its own 16-bit copy of its input. GPT-2-style
 * attention follows HF GPT-2's eager code; rotary models follow HF Llama's
 * (RMSNorm through x.float(), explicit fp32 softmax, repeat_kv, SwiGLU
 * saving gate, SiLU, up and their product), measured the same way for
 * fp32, CPU bf16 autocast and pure bf16, kv heads 1 to 8
 * (tests/data/torch_cpu_llama.csv: every layer row to the byte); their
 * attention dropout is not modelled. HF BERT's layer likewise
 * (tests/data/torch_cpu_bert.csv). 0-dim scalars (a few
 * bytes per layer) and the shared s*s causal mask are left out. With
 * fused_norm, an RMSNorm kernel saves its input and per-row rstd for
 * backward (torch's _fused_rms_norm, pytorch/pytorch PR #153666:
 * derivatives.yaml uses input, rstd and weight; Apex and Transformer
 * Engine's fused norms alike) instead of the eager code's fp32 copy of
 * the input and x * rstd. */
static const act_row torch_layer[] = {
    {"norm inputs (residual)", SBH, 2, R_RES, F_SP | F_LN},
    {"norm mean+rstd", SB, 4, R_LNSTAT, F_SP | F_LN | F_NORMINT},
    {"norm outputs (qkv, fc1 inputs)", SBH, 2, R_LIN,
     F_SP | F_LN | F_NORMOUT},
    {"rmsnorm inputs (fp32)", SBH, 2, R_F32,
     F_SP | F_RMS | F_EAGERNORM | F_NORMINT},
    {"rmsnorm inputs (recomputed norms' checkpoint)", SBH, 2, R_RES,
     F_SP | F_RMS | F_EAGERNORM | F_NORMRC},
    {"rmsnorm inputs (fused kernel)", SBH, 2, R_RES,
     F_SP | F_RMS | F_FUSEDNORM},
    {"rmsnorm rstd", SB, 2, R_F32, F_SP | F_RMS | F_NORMINT},
    {"rmsnorm x*rstd", SBH, 2, R_RES,
     F_SP | F_RMS | F_EAGERNORM | F_NORMINT},
    {"rmsnorm x^2 (mean's input)", SBH, 2, R_MEANIN,
     F_SP | F_RMS | F_EAGERNORM | F_NORMINT},
    {"rmsnorm outputs (matmul inputs)", SBH, 2, R_RMSOUT,
     F_SP | F_RMS | F_NORMOUT},
    {"autocast copies of norm output for q, k, v", SBH, 3, R_AMPCOPY,
     F_SP | F_RMS},
    {"autocast copies of norm output for gate, up", SBH, 2, R_AMPCOPY,
     F_SP | F_RMS | F_SWIGLU | F_MLP},
    {"autocast copy of norm output for fc1", SBH, 1, R_AMPCOPY,
     F_SP | F_RMS | F_GELU | F_MLP},
    /* HF BERT's query, key and value are three Linears where GPT-2 has
     * one c_attn, so under autocast the layer input is cast twice more
     * (measured: tests/data/torch_cpu_bert.csv, bf16 rows) */
    {"autocast copies of layer input for k, v", SBH, 2, R_AMPCOPY,
     F_SP | F_LN | F_ENC},
    /* MLA (transformers DeepseekV3Attention): the compressed q and kv
     * go through an RMSNorm each and feed q_b_proj and kv_b_proj; k and v
     * are then per head (the SBKV rows). Derived, not measured. */
    {"q latent (norm input and output)", SBQL, 2, R_ACT, F_SP | F_MLA},
    {"kv latent (norm input and output)", SBKL, 2, R_ACT, F_SP | F_MLA},
    {"q", SBQ, 1, R_ACT, F_TP | F_QKV},
    {"k, v", SBKV, 2, R_ACT, F_TP | F_KVNATIVE | F_QKV},
    {"k, v expanded to all heads (repeat_kv)", SBQ, 2, R_ACT,
     F_TP | F_KVEXPAND | F_QKV},
    {"softmax output", ASSB, 1, R_F32OP, F_TP | F_CORE | F_LEARNED},
    {"attention dropout mask", ASSB, 1, R_MASK,
     F_TP | F_CORE | F_DROP | F_LEARNED},
    {"attention dropout output", ASSB, 1, R_DROPOUT,
     F_TP | F_CORE | F_DROP | F_LEARNED},
    {"probs 16-bit copy (attn@v input)", ASSB, 1, R_PROBS,
     F_TP | F_CORE | F_LEARNED},
    /* Gemma 2's eager attention: scores / cap, tanh, * cap; tanh saves
     * its output (HF Gemma2 eager_attention_forward) */
    {"soft-capped scores (tanh output)", ASSB, 1, R_ACT,
     F_TP | F_CORE | F_ROPE | F_SOFTCAP},
    {"softmax output (fp32)", ASSB, 1, R_F32, F_TP | F_CORE | F_ROPE},
    {"probs 16-bit copy (attn@v input)", ASSB, 1, R_PROBS16,
     F_TP | F_CORE | F_ROPE},
    {"flash log-sum-exp", ASB, 1, R_F32, F_TP | F_FLASH},
    {"attn output (proj input)", SBO, 1, R_LIN, F_TP},
    {"attn residual dropout mask", SBH, 1, R_MASK, F_SP | F_DROP},
    /* Gemma 2's post-norms: their inputs (the attention and MLP outputs)
     * and statistics, saved as the pre-norms' are */
    {"post-norm inputs", SBH, 2, R_RES, F_SP | F_LN | F_POST},
    {"post-norm mean+rstd", SB, 4, R_LNSTAT, F_SP | F_LN | F_POST},
    {"post-rmsnorm inputs (fp32)", SBH, 2, R_F32,
     F_SP | F_RMS | F_POST | F_EAGERNORM},
    {"post-rmsnorm inputs (fused kernel)", SBH, 2, R_RES,
     F_SP | F_RMS | F_POST | F_FUSEDNORM},
    {"post-rmsnorm rstd", SB, 2, R_F32, F_SP | F_RMS | F_POST},
    {"post-rmsnorm x*rstd", SBH, 2, R_RES,
     F_SP | F_RMS | F_POST | F_EAGERNORM},
    /* q and k norms (HF Qwen3/Gemma 3 RMSNorm over each head): fp32
     * inputs, x*rstd and one rstd per head and token (k's, k/a of q's,
     * left out); the normed q and k are the q, k rows. x*rstd goes back
     * to the input's dtype before the weight multiplies it (weight *
     * x.to(input_dtype)), and under autocast q and k come out of their
     * projections in 16 bits: 2 bytes there, where the block norms' fp32
     * residual keeps 4 (measured: HF Qwen3-0.6B under amp-bf16 allocates
     * 2 bytes per q and k element less than R_RES counted, 70.89 GiB
     * against 73.49 at 4 x 4096 tokens, tests/data/gpu/h200_validate.csv;
     * pure bf16 matched within 0.1%) */
    {"q-norm input (fp32)", SBQ, 1, R_F32, F_TP | F_QKNORM | F_EAGERNORM},
    {"k-norm input (fp32)", SBKV, 1, R_F32, F_TP | F_QKNORM | F_EAGERNORM},
    {"q-norm input (fused kernel)", SBQ, 1, R_ACT,
     F_TP | F_QKNORM | F_FUSEDNORM},
    {"k-norm input (fused kernel)", SBKV, 1, R_ACT,
     F_TP | F_QKNORM | F_FUSEDNORM},
    {"q-norm x*rstd", SBQ, 1, R_ACT, F_TP | F_QKNORM | F_EAGERNORM},
    {"k-norm x*rstd", SBKV, 1, R_ACT, F_TP | F_QKNORM | F_EAGERNORM},
    {"q-norm rstd", ASB, 1, R_F32, F_TP | F_QKNORM},
    {"fc1 output (gelu input)", SBF, 1, R_ACT, F_TP | F_GELU | F_MLP},
    {"gelu output (fc2 input)", SBF, 1, R_LIN,
     F_TP | F_GELU | F_MLP | F_ACTOUT},
    /* transformers' NewGELUActivation (gelu_new: GPT-2, GPT-J, Phi-1/2),
     * 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * pow(x, 3)))): pow
     * saves its input, tanh its output, the last product both factors.
     * Beyond the fused kernel's input: tanh, 1 + tanh and 0.5x in the
     * activation dtype (6 bytes per element at 16 bits, 12 at fp32);
     * under CUDA autocast pow is on the fp32 list, so pow saves an fp32
     * copy of x instead of x and tanh and 1 + tanh are fp32: 4 + 4 + 4 +
     * 2 - 2 = 12. Measured: 12.0 bytes per element on CPU fp32 and 6.0
     * under CPU autocast (tests/data/torch_cpu_gpt2.csv, hf_gelu_new
     * rows); on an H200, HF GPT-2's allocated peak 48h bytes per token
     * and layer above the fused count in fp32 and amp-bf16, 24h in bf16
     * (f = 4h; tests/data/gpu/h200_torch.csv) */
    {"Python GELU: tanh, 1 + tanh, 0.5x", SBF, 1, R_GELUPY,
     F_TP | F_GELU | F_MLP | F_GELUPY | F_ACTINT},
    {"gate out, up out", SBF, 2, R_ACT, F_TP | F_SWIGLU | F_MLP},
    {"silu out", SBF, 1, R_ACT, F_TP | F_SWIGLU | F_MLP | F_ACTINT},
    {"silu*up (down input)", SBF, 1, R_LIN,
     F_TP | F_SWIGLU | F_MLP | F_ACTOUT},
    {"mlp residual dropout mask", SBH, 1, R_MASK, F_SP | F_DROP},
    {"layer input (checkpoint)", SBH, 1, R_RES, F_SP | F_CKPT},
};

/* Token ids, the embedding dropout mask, the final norm, the head input,
 * the loss's log-softmax and int64 targets (all measured), plus on CUDA
 * the logits themselves (see torch_rules). */
static const act_row torch_first[] = {
    {"input ids (int64)", SB, 1, R_I64, 0},
    {"embedding norm input", SBH, 1, R_RES, F_SP | F_ENC},
    {"embedding norm mean+rstd", SB, 2, R_LNSTAT, F_SP | F_ENC},
    {"embedding dropout mask", SBH, 1, R_EMBMASK, F_SP | F_DROP},
};

static const act_row torch_last[] = {
    {"final norm input", SBH, 1, R_RES, F_SP | F_LN | F_DEC},
    {"final norm mean+rstd", SB, 2, R_LNSTAT, F_SP | F_LN | F_DEC},
    {"mlm transform input", SBH, 1, R_LIN, F_SP | F_ENC},
    {"mlm transform gelu input", SBH, 1, R_ACT, F_SP | F_ENC},
    {"mlm norm input", SBH, 1, R_F32OP, F_SP | F_ENC},
    {"mlm norm mean+rstd", SB, 2, R_LNSTAT, F_SP | F_ENC},
    {"final rmsnorm input (fp32)", SBH, 1, R_F32,
     F_SP | F_RMS | F_EAGERNORM},
    {"final rmsnorm input (fused kernel)", SBH, 1, R_RES,
     F_SP | F_RMS | F_FUSEDNORM},
    {"final rmsnorm rstd", SB, 1, R_F32, F_SP | F_RMS},
    {"final rmsnorm x*rstd", SBH, 1, R_RES, F_SP | F_RMS | F_EAGERNORM},
    {"final rmsnorm x^2 (mean's input)", SBH, 1, R_MEANIN,
     F_SP | F_RMS | F_EAGERNORM},
    {"head input (final norm output)", SBH, 1, R_LIN, F_SP},
    {"logits (the fused loss's saved input)", SBV, 1, R_LOGITS,
     F_TP | F_FUSED},
    /* Gemma 2's final soft-capping: tanh saves its output */
    {"soft-capped logits (tanh output)", SBV, 1, R_LOGITS, F_TP | F_SOFTCAP},
    {"loss backward: gradients in and out", SBV, 2,
     R_LOGIT32, F_TP | F_UNFUSED},
    {"loss log-softmax output", SBV, 1, R_LOGSOFT, F_TP | F_UNFUSED},
    {"fused loss log-sum-exp", SB, 1, R_F32, F_FUSED},
    {"loss targets (int64)", SB, 1, R_I64, 0},
};

/* What an MoE layer keeps besides its experts' MLP rows (docs/MODEL.md
 * section 13.3; transformers MixtralSparseMoeBlock, Megatron-LM's router
 * and token dispatcher): the router's fp32 softmax over the experts, the
 * chosen indices, the tokens permuted to their experts (the experts'
 * input), and for the routing weights' product either the experts'
 * outputs (transformers multiplies fc2's output by the weights, so the
 * product keeps it: R_COMBINE, the torch profiles) or the weights alone
 * (Megatron-Core's TEGroupedMLP passes permuted_probs into the activation,
 * weighted_bias_swiglu_impl, before fc2, and unpermutes without probs:
 * megatron/core/transformer/moe/experts.py; R_WPROBS, the megatron
 * profile). All but the first two are per routed token: top_k times the
 * busiest rank's load. Derived from the modules' forward, not measured. */
static const act_row moe_rows[] = {
    {"router probabilities (fp32)", SBE, 1, R_F32, F_SP},
    {"routing choices (int64)", SBK, 1, R_I64, F_SP},
    {"permuted tokens (expert input)", SBH, 1, R_LIN, F_SP | F_MLP},
    {"expert outputs (combine input)", SBH, 1, R_COMBINE, F_SP | F_MLP},
    {"routing weights in the activation (fp32)", SB, 1, R_WPROBS,
     F_SP | F_MLP},
};

/* Bytes per element for each rule in each precision class (fp32,
 * autocast, pure 16-bit, fp8); 0 means the tensor does not exist. */
/* clang-format off */
static const rule_bytes megatron_rules[R_COUNT] = {
    [R_ACT]  = {4, 2, 2, 2},
    [R_LIN]  = {4, 2, 2, 1},
    [R_F32]  = {4, 4, 4, 4},
    [R_MASK] = {1, 1, 1, 1},
    [R_WPROBS] = {4, 4, 4, 4},
};

/* CPU, torch 1.13: autocast casts only matmul inputs, so what it does not
 * cast keeps its input dtype (the softmax is 16-bit, layer-norm statistics
 * follow the fp32 residual); F.dropout saves its mask in the activation
 * dtype; no logits are kept beyond the loss's saved tensors. */
static const rule_bytes torch_cpu_rules[R_COUNT] = {
    [R_ACT]     = {4, 2, 2, 2},
    [R_LIN]     = {4, 2, 2, 1},
    [R_RES]     = {4, 4, 2, 2},
    [R_F32]     = {4, 4, 4, 4},
    [R_I64]     = {8, 8, 8, 8},
    [R_MASK]    = {4, 2, 2, 2},
    [R_EMBMASK] = {4, 4, 2, 2},
    [R_LNSTAT]  = {4, 4, 2, 2},
    [R_F32OP]   = {4, 2, 2, 2},
    [R_DROPOUT] = {4, 2, 2, 2},
    [R_PROBS]   = {0, 0, 0, 0},
    [R_AMPCOPY] = {0, 2, 0, 0},
    [R_RMSOUT]  = {4, 0, 2, 1},
    [R_PROBS16] = {0, 2, 2, 2},
    [R_LOGITS]  = {0, 0, 0, 0},
    [R_LOGSOFT] = {4, 4, 2, 2},
    [R_LOGIT32] = {0, 0, 0, 0},
    [R_GELUPY]  = {12, 6, 6, 6},
    /* torch 1.13's mean saves its input, so eager RMSNorm keeps x^2
     * (fp32: it follows x.float()) besides x; torch 2.2 saves only its
     * sizes (pytorch/pytorch PR #109935). Measured: 8sbh per Llama
     * layer in every recipe, tests/data/torch_cpu_llama.csv */
    [R_MEANIN]  = {4, 4, 4, 4},
    [R_COMBINE] = {4, 2, 2, 2},
};

/* CUDA: native_dropout saves 1-byte masks (the csv's "native" rows); the
 * layer-norm kernel keeps mean/rstd in fp32 (its accumulate type); softmax
 * is on autocast's CUDA fp32 list (PyTorch AMP op reference), so under
 * autocast the softmax output is fp32 and attn@v saves a 16-bit copy of the
 * probabilities even at p = 0 (the dropout then runs on that copy). HF
 * upcasts the logits to fp32 for an unfused loss (logits.float()), and
 * log_softmax saves only its output, so neither the logits nor their fp32
 * copy outlive the forward (the loop keeps the loss, not the outputs);
 * the peak is the loss's backward, where the saved log-softmax output
 * and the fp32 gradients into and out of it are live on top of every
 * stored activation: 12 bytes per logit in every recipe. Measured on an
 * H200 (tests/data/gpu/h200_torch.csv): HF Llama-3.2-1B's peak grows by
 * 13.84 GiB per 4096-token sample under amp-bf16, 2 bytes per logit
 * (0.98 GiB) more than the 10 counted before (16-bit logits held, their
 * fp32 copy, the log-softmax); pure bf16 alike (12.57 against 11.58). A
 * fused loss saves the 16-bit logits instead. At V = 128k these are
 * often the largest tensors. */
static const rule_bytes torch_rules[R_COUNT] = {
    [R_ACT]     = {4, 2, 2, 2},
    [R_LIN]     = {4, 2, 2, 1},
    [R_RES]     = {4, 4, 2, 2},
    [R_F32]     = {4, 4, 4, 4},
    [R_I64]     = {8, 8, 8, 8},
    [R_MASK]    = {1, 1, 1, 1},
    [R_EMBMASK] = {1, 1, 1, 1},
    [R_LNSTAT]  = {4, 4, 4, 4},
    [R_F32OP]   = {4, 4, 2, 2},
    [R_DROPOUT] = {4, 0, 2, 2},
    [R_PROBS]   = {0, 2, 0, 0},
    [R_AMPCOPY] = {0, 2, 0, 0},
    [R_RMSOUT]  = {4, 0, 2, 1},
    [R_PROBS16] = {0, 2, 2, 2},
    [R_LOGITS]  = {4, 2, 2, 2},
    [R_LOGSOFT] = {4, 4, 4, 4},
    [R_LOGIT32] = {4, 4, 4, 4},
    [R_GELUPY]  = {12, 12, 6, 6},
    [R_COMBINE] = {4, 2, 2, 2},
};
/* clang-format on */

typedef struct profile_tables {
    const act_row *layer, *first, *last;
    int n_layer, n_first, n_last;
    const rule_bytes *rules;
} profile_tables;

#define N(t) (int)(sizeof t / sizeof t[0])
#define PROFILE(l, f, la, r)                                                   \
    {                                                                          \
        l, f, la, N(l), N(f), N(la), r                                         \
    }

static const profile_tables profiles[TPLAN_PROFILE_COUNT] = {
    [TPLAN_PROFILE_TORCH] =
        PROFILE(torch_layer, torch_first, torch_last, torch_rules),
    [TPLAN_PROFILE_MEGATRON] =
        PROFILE(megatron_layer, megatron_first, megatron_last, megatron_rules),
    [TPLAN_PROFILE_TORCH_CPU] =
        PROFILE(torch_layer, torch_first, torch_last, torch_cpu_rules),
};

void tplan_act_ctx_from_config(const tplan_config *c, tplan_act_ctx *ctx)
{
    ctx->profile = c->profile;
    ctx->cls = tplan_precision_get(c->precision)->act;
    ctx->recompute = c->recompute;
    ctx->attention = c->attention;
    ctx->dropout = c->model.dropout > 0.0;
    ctx->tp = c->tp;
    ctx->etp = tplan_config_etp(c);
    ctx->sp = c->sp;
    ctx->fused_loss = c->fused_loss;
    ctx->fused_norm = c->fused_norm;
    ctx->moe_load = tplan_config_moe_load(c);
    ctx->rc_modules = tplan_config_rc_modules(c);
    ctx->fp8_act = c->fp8_activations;
}

/* The recompute modules in effect: the context's list, or core_attn
 * under selective (contexts built field by field leave the list 0); none
 * under full recomputation, which keeps layer inputs only. */
static unsigned rc_modules(const tplan_act_ctx *ctx)
{
    if (ctx->recompute == TPLAN_RECOMPUTE_FULL)
        return 0;
    if (ctx->rc_modules)
        return ctx->rc_modules;
    return ctx->recompute == TPLAN_RECOMPUTE_SELECTIVE ? TPLAN_RC_CORE_ATTN
                                                       : 0;
}

/* Does a recompute module drop a row of the given MLP part that would
 * otherwise be kept (docs/MODEL.md section 3.9)? Megatron-Core's
 * layernorm, mla_up_proj and moe_act discard the module's output
 * (CheckpointWithoutOutput) and keep its input; mlp, moe and
 * shared_experts checkpoint the module, keeping only its input (the norm
 * output, a row outside F_MLP). */
static bool row_dropped(const act_row *r, const tplan_model *m,
                        const tplan_act_ctx *ctx, enum part part)
{
    unsigned mods = rc_modules(ctx), f = r->flags;

    if ((mods & TPLAN_RC_LAYERNORM) && (f & (F_NORMOUT | F_NORMINT)))
        return true;
    if ((mods & TPLAN_RC_MLA_UP_PROJ) && (f & F_QKV) && tplan_model_mla(m))
        return true;
    if (!(f & F_MLP))
        return false;
    switch (part) {
    case P_DENSE:
        return (mods & TPLAN_RC_MLP) != 0;
    case P_ROUTED:
        return (mods & TPLAN_RC_MOE) ||
               ((mods & TPLAN_RC_MOE_ACT) && (f & (F_ACTOUT | F_ACTINT)));
    case P_SHARED:
        return (mods & (TPLAN_RC_MOE | TPLAN_RC_SHARED_EXPERTS)) != 0;
    }
    return false;
}

/* Bytes per element of a row. With fp8 caching (DeepSeek-V3 report
 * section 3.3.2, under an fp8 recipe) every fp8 linear input carries a
 * scale per 1 x 128 tile (section 3.3.1: activations are scaled per
 * token per 128 channels; the scale an fp32, an assumption: DeepGEMM
 * takes fp32 scales), the attention output's linear input is E5M6 (12
 * bits, shared with the attention backward) and the MoE SwiGLU inputs
 * (the experts' fc1 outputs, routed and shared) are fp8 as well. */
static double elem_bytes(const act_row *r, const tplan_act_ctx *ctx,
                         enum part part)
{
    double e = profiles[ctx->profile].rules[r->rule][ctx->cls];
    const double tile_scale = 4.0 / 128.0;

    if (!ctx->fp8_act || ctx->cls != TPLAN_ACT_FP8 || e == 0.0)
        return e;
    if (r->rule == R_LIN)
        return (r->dim == SBO ? 1.5 : 1.0) + tile_scale;
    if (part != P_DENSE && (r->flags & F_MLP) && r->dim == SBF &&
        r->rule == R_ACT && !(r->flags & F_ACTINT))
        return 1.0 + tile_scale;
    return e;
}

/* Does a row exist under ctx? ckpt selects the full-recompute checkpoint
 * rows instead of the ordinary ones. */
static bool row_present(const act_row *r, const tplan_model *m,
                        const tplan_act_ctx *ctx, bool ckpt, bool full_set)
{
    const rule_bytes *rules = profiles[ctx->profile].rules;
    unsigned f = r->flags;
    bool flash = ctx->attention == TPLAN_ATTN_FLASH;

    if (ckpt != !!(f & F_CKPT))
        return false;
    if ((f & F_DROP) && !ctx->dropout)
        return false;
    if ((f & F_CORE) &&
        (flash || (!full_set && (rc_modules(ctx) & TPLAN_RC_CORE_ATTN))))
        return false;
    if ((f & F_NORMRC) && (full_set || !(rc_modules(ctx) & TPLAN_RC_LAYERNORM)))
        return false;
    if ((f & F_FLASH) && !flash)
        return false;
    if ((f & F_GELU) && m->mlp != TPLAN_MLP_GELU)
        return false;
    if ((f & F_SWIGLU) && m->mlp != TPLAN_MLP_SWIGLU)
        return false;
    if ((f & F_LN) && m->norm != TPLAN_NORM_LAYERNORM)
        return false;
    if ((f & F_RMS) && m->norm != TPLAN_NORM_RMSNORM)
        return false;
    if ((f & F_ROPE) && m->pos != TPLAN_POS_ROTARY)
        return false;
    if ((f & F_LEARNED) && m->pos != TPLAN_POS_LEARNED)
        return false;
    if ((f & F_KVNATIVE) && !(flash || m->pos != TPLAN_POS_ROTARY))
        return false;
    if ((f & F_KVEXPAND) && (flash || m->pos != TPLAN_POS_ROTARY))
        return false;
    if ((f & F_EAGERNORM) && ctx->fused_norm)
        return false;
    if ((f & F_FUSEDNORM) && !ctx->fused_norm)
        return false;
    if ((f & F_UNFUSED) && ctx->fused_loss)
        return false;
    if ((f & F_FUSED) && !ctx->fused_loss)
        return false;
    if ((f & F_POST) && tplan_model_block_norms(m) != 4)
        return false;
    if ((f & F_GELUPY) && !m->gelu_python)
        return false;
    if ((f & F_QKNORM) && !m->qk_norm)
        return false;
    if ((f & F_MLA) && !tplan_model_mla(m))
        return false;
    if ((f & F_SOFTCAP) && !m->softcap)
        return false;
    if ((f & F_DEC) && m->arch != TPLAN_ARCH_DECODER)
        return false;
    if ((f & F_ENC) && m->arch != TPLAN_ARCH_ENCODER)
        return false;
    return rules[r->rule][ctx->cls] != 0;
}

/* Bytes of one row for one sample. */
static double row_bytes(const act_row *r, const tplan_model *m,
                        const tplan_act_ctx *ctx, int64_t seq, enum part part)
{
    double s = (double)seq, h = (double)m->hidden, a = (double)m->heads;
    double d = (double)tplan_model_head_dim(m), k = (double)m->kv_heads;
    double dqk = (double)tplan_model_qk_head_dim(m);
    double t = (double)ctx->tp;
    double elems = 0.0;
    double split = 1.0;

    switch ((enum dim)r->dim) {
    case SBH:
        elems = s * h;
        break;
    case SBQ:
        elems = s * a * dqk;
        break;
    case SBO:
        elems = s * a * (double)tplan_model_v_head_dim(m);
        break;
    case SBKV:
        /* With t > k the kv heads are replicated: each rank keeps one.
         * MLA: a keys of dn + dr and a values of dv; the rows count K and
         * V together (2 rows or a row of 2), so each is half the sum. */
        if (tplan_model_mla(m))
            elems = s * (double)tplan_model_kv_elems(m) / 2.0;
        else
            elems = s * d * (k < t && (r->flags & F_TP) ? t : k);
        break;
    case SBQL:
        elems = s * (double)m->q_lora_rank;
        break;
    case SBKL:
        elems = s * (double)(m->kv_lora_rank + m->qk_rope_dim);
        break;
    case SBE:
        elems = s * (double)m->experts;
        break;
    case SBK:
        elems = s * (double)m->top_k;
        break;
    case SBF:
        elems = s * (double)m->ffn;
        break;
    case ASSB:
        elems = a * s * s;
        break;
    case ASB:
        elems = a * s;
        break;
    case SB:
        elems = s;
        break;
    case SBV:
        elems = s * (double)m->vocab;
        break;
    }
    if ((r->flags & F_TP) || ((r->flags & F_SP) && ctx->sp))
        split = t;
    /* Expert-tensor parallelism apart from tp: the all-to-all dispatcher
     * gathers the routed tokens over the etp group (Megatron-Core
     * token_dispatcher.py, dispatch_postprocess), so a rank's routed
     * rows hold etp/tp times the tokens of the etp = tp figure; the rows
     * split over the expert's FFN (F_TP) hold the same bytes, their
     * tokens times etp/tp split over etp instead of tp. */
    if (part == P_ROUTED && (r->flags & F_MLP) && !(r->flags & F_TP) &&
        ctx->etp > 0 && ctx->etp != ctx->tp)
        elems *= (double)ctx->etp / t;
    return elems * r->count * elem_bytes(r, ctx, part) / split;
}

static double table_sum(const act_row *rows, int n, const tplan_model *m,
                        const tplan_act_ctx *ctx, int64_t seq, bool ckpt,
                        bool full_set)
{
    double sum = 0.0;

    for (int i = 0; i < n; i++)
        if (row_present(&rows[i], m, ctx, ckpt, full_set) &&
            (full_set || !row_dropped(&rows[i], m, ctx, P_DENSE)))
            sum += row_bytes(&rows[i], m, ctx, seq, P_DENSE);
    return sum;
}

/* One walk of a layer table fills both sums: what is kept to backward
 * and the whole layer (rebuilt once under full recompute). With
 * only_mlp set it sums the F_MLP rows alone, times mult. */
static void layer_sums(const act_row *rows, int n, const tplan_model *m,
                       const tplan_act_ctx *ctx, int64_t seq, bool only_mlp,
                       enum part part, double mult, double *kept,
                       double *whole)
{
    bool full = ctx->recompute == TPLAN_RECOMPUTE_FULL;

    *kept = *whole = 0.0;
    for (int i = 0; i < n; i++) {
        const act_row *r = &rows[i];
        bool in_full, in_kept;

        if (only_mlp && !(r->flags & F_MLP))
            continue;
        in_full = row_present(r, m, ctx, false, true);
        in_kept = row_present(r, m, ctx, full, false) &&
                  !row_dropped(r, m, ctx, part);
        if (in_full || in_kept) {
            double b = row_bytes(r, m, ctx, seq, part) * mult;

            *whole += in_full ? b : 0.0;
            *kept += in_kept ? b : 0.0;
        }
    }
}

/* An MoE layer: the dense layer less its MLP, the experts' MLP rows per
 * routed token (top_k times the busiest rank's load; expert tensor
 * parallelism, tp unless given, splits them as row_bytes says), the shared
 * experts' rows per token (one MLP as wide as all of them: DeepSeek and
 * Qwen2-MoE fuse them) and the router's and dispatcher's tensors. */
static void moe_layer(const profile_tables *p, const tplan_model *m,
                      const tplan_act_ctx *ctx, int64_t seq,
                      tplan_act_bytes *out)
{
    tplan_model e = *m;
    double kept, whole, routed = (double)m->top_k * ctx->moe_load;

    layer_sums(p->layer, p->n_layer, m, ctx, seq, true, P_DENSE, 1.0, &kept,
               &whole);
    out->moe_layer = out->layer - kept;
    out->moe_layer_full = out->layer_full - whole;
    e.ffn = tplan_model_expert_ffn(m);
    layer_sums(p->layer, p->n_layer, &e, ctx, seq, true, P_ROUTED, routed,
               &kept, &whole);
    out->moe_layer += kept;
    out->moe_layer_full += whole;
    if (m->shared_experts > 0) {
        e.ffn = m->shared_experts * tplan_model_shared_ffn(m);
        layer_sums(p->layer, p->n_layer, &e, ctx, seq, true, P_SHARED, 1.0,
                   &kept, &whole);
        out->moe_layer += kept;
        out->moe_layer_full += whole;
    }
    for (int i = 0; i < N(moe_rows); i++) {
        const act_row *r = &moe_rows[i];
        double b;

        if (!row_present(r, m, ctx, false, true))
            continue;
        b = row_bytes(r, m, ctx, seq, P_ROUTED) *
            (r->flags & F_MLP ? routed : 1.0);
        out->moe_layer_full += b;
        /* under full recomputation only the layer input is kept; the moe
         * module's checkpoint keeps only the MoE layer's input */
        if (ctx->recompute != TPLAN_RECOMPUTE_FULL &&
            !(rc_modules(ctx) & TPLAN_RC_MOE))
            out->moe_layer += b;
    }
}

void tplan_act_per_sample(const tplan_model *m, const tplan_act_ctx *ctx,
                          int64_t seq, tplan_act_bytes *out)
{
    const profile_tables *p = &profiles[ctx->profile];

    layer_sums(p->layer, p->n_layer, m, ctx, seq, false, P_DENSE, 1.0,
               &out->layer, &out->layer_full);
    out->moe_layer = out->layer;
    out->moe_layer_full = out->layer_full;
    if (tplan_model_moe(m))
        moe_layer(p, m, ctx, seq, out);
    out->first = table_sum(p->first, p->n_first, m, ctx, seq, false, false);
    out->last = table_sum(p->last, p->n_last, m, ctx, seq, false, false);
}

/* the hash reads the key as whole 64-bit words: the context, seq,
 * hidden, heads, kv_heads, ffn and vocab, the words before head_dim
 * (models that share all of these are rare: a model axis's keys still
 * spread) */
#define ACT_HASH_BYTES offsetof(tplan_act_key, head_dim)
_Static_assert(sizeof(tplan_act_key) % sizeof(uint64_t) == 0 &&
                   ACT_HASH_BYTES % sizeof(uint64_t) == 0,
               "tplan_act_key is hashed as 64-bit words");

void tplan_act_per_sample_cached(const tplan_model *m, const tplan_act_ctx *ctx,
                                 int64_t seq, tplan_act_cache *cache,
                                 tplan_act_bytes *out)
{
    tplan_act_key k;
    uint64_t h = 1469598103934665603ULL, w; /* FNV-1a over 64-bit words */
    size_t j;
    int i, first;

    if (!cache) {
        tplan_act_per_sample(m, ctx, seq, out);
        return;
    }
    /* zeroed first: padding bytes take part in the hash and compare */
    memset(&k, 0, sizeof k);
    k.ctx.profile = ctx->profile;
    k.ctx.cls = ctx->cls;
    k.ctx.recompute = ctx->recompute;
    k.ctx.attention = ctx->attention;
    k.ctx.dropout = ctx->dropout;
    k.ctx.tp = ctx->tp;
    k.ctx.etp = tplan_model_moe(m) ? ctx->etp : 0;
    k.ctx.sp = ctx->sp;
    k.ctx.fused_loss = ctx->fused_loss;
    k.ctx.fused_norm = ctx->fused_norm;
    k.ctx.moe_load = tplan_model_moe(m) ? ctx->moe_load : 0.0;
    k.ctx.rc_modules = ctx->rc_modules;
    k.ctx.fp8_act = ctx->fp8_act;
    k.experts = m->experts;
    k.top_k = m->top_k;
    k.expert_ffn = tplan_model_moe(m) ? tplan_model_expert_ffn(m) : 0;
    k.shared_width = m->shared_experts * tplan_model_shared_ffn(m);
    k.q_lora_rank = m->q_lora_rank;
    k.kv_lora_rank = m->kv_lora_rank;
    k.qk_rope_dim = m->qk_rope_dim;
    k.qk_nope_dim = m->qk_nope_dim;
    k.v_head_dim = m->v_head_dim;
    k.softcap = m->softcap;
    k.seq = seq;
    k.hidden = m->hidden;
    k.heads = m->heads;
    k.kv_heads = m->kv_heads;
    k.head_dim = tplan_model_head_dim(m);
    k.block_norms = tplan_model_block_norms(m);
    k.qk_norm = m->qk_norm;
    k.gelu_python = m->gelu_python;
    k.ffn = m->ffn;
    k.vocab = m->vocab;
    k.mlp = (int)m->mlp;
    k.norm = (int)m->norm;
    k.pos = (int)m->pos;
    k.arch = (int)m->arch;
    /* a sweep's neighbours mostly share the key: the last slot first,
     * before the hash */
    i = cache->last;
    if (cache->slot[i].used && memcmp(&cache->slot[i].key, &k, sizeof k) == 0) {
        cache->hits++;
        *out = cache->slot[i].bytes;
        return;
    }
    /* four words a round, then the rest: the same hash, with a quarter
     * of the loop's own instructions (issue 38). Over the key's first
     * words only (ACT_HASH_BYTES: the context, the sequence and the
     * model's widths), which set the slot; the whole key decides a hit
     * (issue 38: the model's other shapes, equal across a sweep but for
     * its model axis, were half the words hashed) */
    for (j = 0; j + 4 * sizeof w <= ACT_HASH_BYTES; j += 4 * sizeof w)
        for (size_t q = 0; q < 4; q++) {
            memcpy(&w, (const unsigned char *)&k + j + q * sizeof w, sizeof w);
            h = (h ^ w) * 1099511628211ULL;
        }
    for (; j + sizeof w <= ACT_HASH_BYTES; j += sizeof w) {
        memcpy(&w, (const unsigned char *)&k + j, sizeof w);
        h = (h ^ w) * 1099511628211ULL;
    }
    /* the hash's set of ways: a key found there, else the way unused or
     * found longest ago takes it */
    /* FNV-1a's low bits depend only on the words' low bits: MurmurHash3's
     * 64-bit finalizer (fmix64, Appleby's smhasher) mixes every bit into
     * the few the set takes (issue 38: the 24 keys of a sweep over tp,
     * precision and recompute fell into fewer sets, 42 walks for 24) */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    first = (int)(h % (TPLAN_ACT_CACHE_SLOTS / TPLAN_ACT_CACHE_WAYS)) *
            TPLAN_ACT_CACHE_WAYS;
    cache->tick++;
    for (i = first; i < first + TPLAN_ACT_CACHE_WAYS; i++)
        if (cache->slot[i].used &&
            memcmp(&cache->slot[i].key, &k, sizeof k) == 0) {
            cache->last = i;
            cache->slot[i].used_at = cache->tick;
            cache->hits++;
            *out = cache->slot[i].bytes;
            return;
        }
    i = first;
    for (int v = first; v < first + TPLAN_ACT_CACHE_WAYS; v++) {
        if (!cache->slot[v].used) {
            i = v;
            break;
        }
        if (cache->slot[v].used_at < cache->slot[i].used_at)
            i = v;
    }
    cache->last = i;
    cache->slot[i].used_at = cache->tick;
    cache->misses++;
    tplan_act_per_sample(m, ctx, seq, out);
    cache->slot[i].used = true;
    cache->slot[i].key = k;
    cache->slot[i].bytes = *out;
}

void tplan_model_params_cached(const tplan_model *m, tplan_act_cache *cache,
                               tplan_param_count *out)
{
    /* tplan_model_params reads only *m: the same bytes, the same counts
     * (padding or a borrowed pointer that differs only misses) */
    if (cache && cache->params_set &&
        memcmp(&cache->params_model, m, sizeof *m) == 0) {
        *out = cache->params;
        return;
    }
    tplan_model_params(m, out);
    if (cache) {
        cache->params_model = *m;
        cache->params = *out;
        cache->params_set = true;
        cache->params_gen++;
    }
}

/* Field by field: a context built field by field has padding bytes of
 * no value (the double by its bytes, as the tables' key has it: -0.0 is
 * not 0.0 there). */
static bool ctx_same(const tplan_act_ctx *a, const tplan_act_ctx *b)
{
    return a->recompute == b->recompute && a->cls == b->cls &&
           a->tp == b->tp && a->rc_modules == b->rc_modules &&
           a->profile == b->profile && a->attention == b->attention &&
           a->dropout == b->dropout && a->etp == b->etp && a->sp == b->sp &&
           a->fused_loss == b->fused_loss && a->fused_norm == b->fused_norm &&
           memcmp(&a->moe_load, &b->moe_load, sizeof a->moe_load) == 0 &&
           a->fp8_act == b->fp8_act;
}

void tplan_act_per_sample_gen(const tplan_model *m, const tplan_act_ctx *ctx,
                              int64_t seq, uint64_t model_gen,
                              tplan_act_cache *cache, tplan_act_bytes *out)
{
    int i;

    if (!cache || model_gen == 0) {
        tplan_act_per_sample_cached(m, ctx, seq, cache, out);
        return;
    }
    /* every entry, from the one after the last found (no two entries
     * share a key: any that matches is the one) */
    i = cache->near_last;
    for (int k = 0; k < TPLAN_ACT_NEAR; k++) {
        i = (i + 1) % TPLAN_ACT_NEAR;
        if (cache->near[i].model_gen == model_gen &&
            cache->near[i].seq == seq && ctx_same(&cache->near[i].ctx, ctx)) {
            cache->near_last = i;
            *out = cache->near[i].bytes;
            return;
        }
    }
    tplan_act_per_sample_cached(m, ctx, seq, cache, out);
    i = cache->near_next;
    cache->near_last = i;
    cache->near_next = (i + 1) % TPLAN_ACT_NEAR;
    cache->near[i].model_gen = model_gen;
    cache->near[i].seq = seq;
    cache->near[i].ctx = *ctx;
    cache->near[i].bytes = *out;
}

static int list_table(const act_row *rows, int n, const char *where,
                      const tplan_model *m, const tplan_act_ctx *ctx,
                      int64_t seq, bool ckpt, tplan_act_item *items, int cap,
                      int k)
{
    for (int i = 0; i < n; i++) {
        if (!row_present(&rows[i], m, ctx, ckpt, false) ||
            row_dropped(&rows[i], m, ctx, P_DENSE))
            continue;
        if (k < cap) {
            items[k].name = rows[i].name;
            items[k].where = where;
            items[k].bytes = row_bytes(&rows[i], m, ctx, seq, P_DENSE);
            items[k].elem_bytes =
                profiles[ctx->profile].rules[rows[i].rule][ctx->cls];
        }
        k++;
    }
    return k;
}

int tplan_act_list(const tplan_model *m, const tplan_act_ctx *ctx, int64_t seq,
                   tplan_act_item *items, int cap)
{
    const profile_tables *p = &profiles[ctx->profile];
    bool full = ctx->recompute == TPLAN_RECOMPUTE_FULL;
    int k = 0;

    k = list_table(p->layer, p->n_layer, "layer", m, ctx, seq, full, items, cap,
                   k);
    k = list_table(p->first, p->n_first, "first", m, ctx, seq, false, items,
                   cap, k);
    k = list_table(p->last, p->n_last, "last", m, ctx, seq, false, items, cap,
                   k);
    return k;
}

double tplan_act_lora_layer(const tplan_config *c, bool moe)
{
    const tplan_model *m = &c->model;
    tplan_linear lin[TPLAN_LORA_NLINEAR];
    int n;
    double s = (double)(c->seq / c->cp), t = (double)c->tp;
    double r = (double)c->lora_rank;
    /* adapters compute in the recipe's 16-bit dtype (fp32 recipes: fp32) */
    double w = tplan_precision_get(c->precision)->act == TPLAN_ACT_FP32 ? 4.0
                                                                      : 2.0;
    double sum = 0.0;

    if (c->lora_rank <= 0 || m->arch == TPLAN_ARCH_GENERIC)
        return 0.0;
    n = tplan_layer_linears(m, moe, c->tp, tplan_config_etp(c), c->ep, lin);
    for (int i = 0; i < n; i++) {
        /* a column-parallel linear's input is whole on every rank (split
         * by t under sequence parallelism); a row-parallel one's is split */
        double in = lin[i].row_parallel ? lin[i].in
                                        : (c->sp ? lin[i].in / t : lin[i].in);
        /* a routed expert's adapters see the tokens routed to the rank's
         * experts: s x top_k on average over the expert group (balanced
         * routing; the router's imbalance is left out here) */
        double tok = lin[i].expert ? s * (double)m->top_k : s;

        if (!(lin[i].target & c->lora_targets))
            continue;
        sum += tok * r * w; /* A's output, B's input */
        if (c->lora_dropout > 0.0)
            sum += tok * in * (1.0 + w); /* mask + dropped input */
    }
    return sum;
}
