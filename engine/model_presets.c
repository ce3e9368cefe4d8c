/* The built-in model catalog. Every preset names where its shape comes from.
 * Dropout follows the reference implementations: GPT-2/BERT/GPT-3 0.1,
 * Llama/Mistral 0. */
#include "model.h"

#include "names.h"

#include <stdio.h>
#include <string.h>

/* BERT's parameters outside the encoder stack (Devlin et al. 2019; Hugging
 * Face BertForPreTraining). Embedding side: token-type table 2h, embedding
 * LayerNorm 2h. Head side: pooler h*h+h, MLM transform h*h+h and its
 * LayerNorm 2h, MLM output bias V (decoder weight tied to the embedding),
 * next-sentence head 2h+2. */
#define BERT_EXTRA(h) (2 * (h) + 2 * (h))
#define BERT_HEAD_EXTRA(h, v)                                                  \
    (2 * ((h) * (h) + (h)) + 2 * (h) + (v) + 2 * (h) + 2)

#define GPT2(nm, l, hd, a, src)                                                \
    {                                                                          \
        .name = nm, .arch = TPLAN_ARCH_DECODER, .layers = l, .hidden = hd,     \
        .heads = a, .kv_heads = a, .ffn = 4 * (hd), .vocab = 50257,            \
        .max_seq = 1024, .mlp = TPLAN_MLP_GELU, .norm = TPLAN_NORM_LAYERNORM,  \
        .pos = TPLAN_POS_LEARNED, .bias = true, .tied = true, .dropout = 0.1,  \
        .source = src                                                          \
    }

#define BERT(nm, l, hd, a, src)                                                \
    {                                                                          \
        .name = nm, .arch = TPLAN_ARCH_ENCODER, .layers = l, .hidden = hd,     \
        .heads = a, .kv_heads = a, .ffn = 4 * (hd), .vocab = 30522,            \
        .max_seq = 512, .mlp = TPLAN_MLP_GELU, .norm = TPLAN_NORM_LAYERNORM,   \
        .pos = TPLAN_POS_LEARNED, .bias = true, .tied = true, .dropout = 0.1,  \
        .extra_params = BERT_EXTRA(hd),                                        \
        .head_extra_params = BERT_HEAD_EXTRA(hd, 30522), .source = src         \
    }

#define LLAMA(nm, l, hd, a, k, f, v, s, src)                                   \
    {                                                                          \
        .name = nm, .arch = TPLAN_ARCH_DECODER, .layers = l, .hidden = hd,     \
        .heads = a, .kv_heads = k, .ffn = f, .vocab = v, .max_seq = s,         \
        .mlp = TPLAN_MLP_SWIGLU, .norm = TPLAN_NORM_RMSNORM,                   \
        .pos = TPLAN_POS_ROTARY, .bias = false, .tied = false, .dropout = 0.0, \
        .source = src                                                          \
    }

/* Qwen2 (Qwen2.5): the Llama shape with biases on q, k and v alone
 * (HF Qwen2Attention: q/k/v_proj bias=True, o_proj bias=False). */
#define QWEN2(nm, l, hd, a, k, f, v, s, tie, src)                              \
    {                                                                          \
        .name = nm, .arch = TPLAN_ARCH_DECODER, .layers = l, .hidden = hd,     \
        .heads = a, .kv_heads = k, .ffn = f, .vocab = v, .max_seq = s,         \
        .mlp = TPLAN_MLP_SWIGLU, .norm = TPLAN_NORM_RMSNORM,                   \
        .pos = TPLAN_POS_ROTARY, .bias = false, .qkv_bias = true,              \
        .tied = tie, .dropout = 0.0, .source = src                             \
    }

/* Gemma 2 (HF Gemma2 modelling): head width d set apart from h/a, four
 * RMSNorms per block (pre- and post-norm around attention and the MLP),
 * a gated MLP with tanh-GELU (GeGLU: the gate/up/down shapes and saved
 * tensors of SwiGLU), tied embeddings, no biases; a 4096-token sliding
 * window on every other layer and tanh soft-capping of the attention
 * scores (50) and final logits (30) (Gemma2Config defaults). */
#define GEMMA2(nm, l, hd, a, k, d, f, src)                                     \
    {                                                                          \
        .name = nm, .arch = TPLAN_ARCH_DECODER, .layers = l, .hidden = hd,     \
        .heads = a, .kv_heads = k, .head_dim = d, .block_norms = 4,            \
        .ffn = f, .vocab = 256000, .max_seq = 8192, .mlp = TPLAN_MLP_SWIGLU,   \
        .norm = TPLAN_NORM_RMSNORM, .pos = TPLAN_POS_ROTARY, .bias = false,    \
        .tied = true, .dropout = 0.0, .window = 4096, .global_every = 2,       \
        .softcap = true, .source = src                                         \
    }

/* Mixtures of experts (docs/MODEL.md section 1.8): the Llama shape with
 * an MoE MLP in every layer; untied, no biases. */
#define MOE(nm, l, hd, a, k, d, f, v, s, e, topk, ef, qkn, src)                \
    {                                                                          \
        .name = nm, .arch = TPLAN_ARCH_DECODER, .layers = l, .hidden = hd,     \
        .heads = a, .kv_heads = k, .head_dim = d, .ffn = f, .vocab = v,        \
        .max_seq = s, .mlp = TPLAN_MLP_SWIGLU, .norm = TPLAN_NORM_RMSNORM,     \
        .pos = TPLAN_POS_ROTARY, .bias = false, .tied = false,                 \
        .dropout = 0.0, .experts = e, .top_k = topk, .expert_ffn = ef,         \
        .qk_norm = qkn, .source = src                                          \
    }

static const tplan_model presets[] = {
    GPT2("gpt2", 12, 768, 12,
         "Radford et al. 2019; HF openai-community/gpt2 config.json"),
    GPT2("gpt2-medium", 24, 1024, 16,
         "Radford et al. 2019; HF openai-community/gpt2-medium config.json"),
    GPT2("gpt2-large", 36, 1280, 20,
         "Radford et al. 2019; HF openai-community/gpt2-large config.json"),
    GPT2("gpt2-xl", 48, 1600, 25,
         "Radford et al. 2019; HF openai-community/gpt2-xl config.json"),
    BERT("bert-base", 12, 768, 12,
         "Devlin et al. 2019 Table (BERT-base); HF bert-base-uncased "
         "config.json, counted as BertForPreTraining"),
    BERT("bert-large", 24, 1024, 16,
         "Devlin et al. 2019 (BERT-large); HF bert-large-uncased "
         "config.json, counted as BertForPreTraining"),
    LLAMA("llama2-7b", 32, 4096, 32, 32, 11008, 32000, 4096,
          "Touvron et al. 2023 (Llama 2) Table 1; HF meta-llama/Llama-2-7b-hf "
          "config.json"),
    LLAMA("llama2-13b", 40, 5120, 40, 40, 13824, 32000, 4096,
          "Touvron et al. 2023 (Llama 2); HF meta-llama/Llama-2-13b-hf "
          "config.json"),
    LLAMA("llama2-70b", 80, 8192, 64, 8, 28672, 32000, 4096,
          "Touvron et al. 2023 (Llama 2, GQA); HF meta-llama/Llama-2-70b-hf "
          "config.json"),
    LLAMA("llama3-8b", 32, 4096, 32, 8, 14336, 128256, 8192,
          "Llama 3 Herd of Models 2024 Table 3; HF meta-llama/Meta-Llama-3-8B "
          "config.json"),
    LLAMA("llama3-70b", 80, 8192, 64, 8, 28672, 128256, 8192,
          "Llama 3 Herd of Models 2024 Table 3; HF meta-llama/Meta-Llama-3-70B "
          "config.json"),
    LLAMA("llama3-405b", 126, 16384, 128, 8, 53248, 128256, 8192,
          "Llama 3 Herd of Models 2024 Table 3 (pre-training sequence 8192); "
          "HF meta-llama/Llama-3.1-405B config.json"),
    /* Llama 3.1: the Llama 3 shapes with a 128K context (RoPE scaling,
     * which changes no parameter). The default sequence is the 8192 of
     * pre-training; rotary positions take any --seq up to the context. */
    LLAMA("llama3.1-8b", 32, 4096, 32, 8, 14336, 128256, 8192,
          "Llama 3 Herd of Models 2024 Table 3; HF meta-llama/Llama-3.1-8B "
          "config.json (context 131072; default sequence 8192)"),
    LLAMA("llama3.1-70b", 80, 8192, 64, 8, 28672, 128256, 8192,
          "Llama 3 Herd of Models 2024 Table 3; HF meta-llama/Llama-3.1-70B "
          "config.json (context 131072; default sequence 8192)"),
    /* 405,853,388,800 parameters (HF safetensors). Its last pre-training
     * phase grows the context to 128K tokens (Llama 3 paper section
     * 3.4.2): --seq 131072 plans it, with context parallelism (the paper's
     * Table 4 runs it at cp 16). */
    LLAMA("llama3.1-405b", 126, 16384, 128, 8, 53248, 128256, 8192,
          "Llama 3 Herd of Models 2024 Table 3; HF meta-llama/Llama-3.1-405B "
          "config.json (context 131072; default sequence 8192)"),
    /* LLaMA 1, the models the QLoRA paper fine-tunes (Dettmers et al.
     * 2023): dims, heads and layers from Touvron et al. 2023 (LLaMA)
     * Table 2, FFN widths from HF huggyllama/llama-{7b,13b,30b,65b}
     * config.json; the 33B is HF's "30b" */
    LLAMA("llama-7b", 32, 4096, 32, 32, 11008, 32000, 2048,
          "Touvron et al. 2023 (LLaMA) Table 2; HF huggyllama/llama-7b "
          "config.json"),
    LLAMA("llama-13b", 40, 5120, 40, 40, 13824, 32000, 2048,
          "Touvron et al. 2023 (LLaMA) Table 2; HF huggyllama/llama-13b "
          "config.json"),
    LLAMA("llama-33b", 60, 6656, 52, 52, 17920, 32000, 2048,
          "Touvron et al. 2023 (LLaMA) Table 2 (33B); HF huggyllama/llama-30b "
          "config.json"),
    LLAMA("llama-65b", 80, 8192, 64, 64, 22016, 32000, 2048,
          "Touvron et al. 2023 (LLaMA) Table 2; HF huggyllama/llama-65b "
          "config.json"),
    /* Phi-3-mini: a Llama-shaped decoder (fused gate/up and QKV, the same
     * parameters), multi-head attention, untied */
    LLAMA("phi3-mini", 32, 3072, 32, 32, 8192, 32064, 4096,
          "Abdin et al. 2024 (Phi-3 technical report); HF "
          "microsoft/Phi-3-mini-4k-instruct config.json"),
    LLAMA("mistral-7b", 32, 4096, 32, 8, 14336, 32000, 8192,
          "Jiang et al. 2023 (Mistral 7B) Table 1; HF "
          "mistralai/Mistral-7B-v0.1 config.json (sliding window 4096 not "
          "modelled)"),
    /* Qwen2.5 (Qwen Team 2024, Qwen2.5 technical report Table 1: layers,
     * heads, kv heads, tied embeddings; FFN widths and vocabulary from HF
     * Qwen/Qwen2.5-{7B,14B,32B,72B} config.json). Context 32768 (131072
     * with YaRN); default sequence the 4096 of the first pre-training
     * stage. Sliding window attention is off in these configs. */
    QWEN2("qwen2.5-7b", 28, 3584, 28, 4, 18944, 152064, 4096, false,
          "Qwen2.5 technical report 2024 Table 1; HF Qwen/Qwen2.5-7B "
          "config.json (q, k, v biases)"),
    QWEN2("qwen2.5-14b", 48, 5120, 40, 8, 13824, 152064, 4096, false,
          "Qwen2.5 technical report 2024 Table 1; HF Qwen/Qwen2.5-14B "
          "config.json (q, k, v biases)"),
    QWEN2("qwen2.5-32b", 64, 5120, 40, 8, 27648, 152064, 4096, false,
          "Qwen2.5 technical report 2024 Table 1; HF Qwen/Qwen2.5-32B "
          "config.json (q, k, v biases)"),
    QWEN2("qwen2.5-72b", 80, 8192, 64, 8, 29568, 152064, 4096, false,
          "Qwen2.5 technical report 2024 Table 1; HF Qwen/Qwen2.5-72B "
          "config.json (q, k, v biases)"),
    /* Gemma 2 (Gemma Team 2024, "Gemma 2" Table 1; HF google/gemma-2-9b
     * and gemma-2-27b config.json): 9B d=256 (a*d = 4096 > h = 3584),
     * 27B d=128. */
    GEMMA2("gemma2-9b", 42, 3584, 16, 8, 256, 14336,
           "Gemma 2 report 2024 Table 1; HF google/gemma-2-9b config.json"),
    GEMMA2("gemma2-27b", 46, 4608, 32, 16, 128, 36864,
           "Gemma 2 report 2024 Table 1; HF google/gemma-2-27b config.json"),
    /* Mixtral (Jiang et al. 2024, "Mixtral of Experts"; HF
     * mistralai/Mixtral-8x7B-v0.1 config.json: 8 experts, top 2, the
     * expert width is intermediate_size, no sliding window). Totals
     * 46,702,792,704 (HF safetensors) and 140,620,634,112
     * (mistral-community/Mixtral-8x22B-v0.1), pinned in tests. Default
     * sequence: the 32k context Mixtral was trained at (paper section 2);
     * 8x22B's config gives 65536 positions. */
    MOE("mixtral-8x7b", 32, 4096, 32, 8, 0, 14336, 32000, 32768, 8, 2, 0,
        false,
        "Jiang et al. 2024 (Mixtral); HF mistralai/Mixtral-8x7B-v0.1 "
        "config.json"),
    MOE("mixtral-8x22b", 56, 6144, 48, 8, 0, 16384, 32000, 65536, 8, 2, 0,
        false,
        "HF mistralai/Mixtral-8x22B-v0.1 config.json (total 140.6B, "
        "mistral-community mirror)"),
    /* Qwen3 MoE (HF Qwen/Qwen3-30B-A3B and Qwen3-235B-A22B config.json:
     * head_dim 128 apart from h/a, q/k norms, 128 experts of
     * moe_intermediate_size, top 8, no shared expert, every layer MoE).
     * Totals 30,532,122,624 and 235,093,634,560 (HF safetensors). Default
     * sequence: the 4096 of pre-training stage S1 (Qwen3 technical
     * report). */
    MOE("qwen3-30b-a3b", 48, 2048, 32, 4, 128, 6144, 151936, 4096, 128, 8,
        768, true,
        "Qwen3 technical report 2025; HF Qwen/Qwen3-30B-A3B config.json"),
    MOE("qwen3-235b-a22b", 94, 4096, 64, 4, 128, 12288, 151936, 4096, 128,
        8, 1536, true,
        "Qwen3 technical report 2025; HF Qwen/Qwen3-235B-A22B config.json"),
    /* DeepSeek-V3 (DeepSeek-AI 2024, arXiv 2412.19437, section 4.2; HF
     * deepseek-ai/DeepSeek-V3 config.json): 61 layers, h 7168, MLA with
     * 128 heads (q rank 1536, kv rank 512, nope 128, rope 64, v 128); the
     * first 3 layers dense (18432), then 1 shared and 256 routed experts
     * of 2048, 8 per token. 671,026,404,352 parameters without the MTP
     * module (transformers does not build it; 671B in the report); 37B
     * activated. Sequence 4096 in pre-training. */
    {.name = "deepseek-v3",
     .arch = TPLAN_ARCH_DECODER,
     .layers = 61,
     .hidden = 7168,
     .heads = 128,
     .kv_heads = 128,
     .ffn = 18432,
     .vocab = 129280,
     .max_seq = 4096,
     .mlp = TPLAN_MLP_SWIGLU,
     .norm = TPLAN_NORM_RMSNORM,
     .pos = TPLAN_POS_ROTARY,
     .bias = false,
     .tied = false,
     .experts = 256,
     .top_k = 8,
     .expert_ffn = 2048,
     .shared_experts = 1,
     .moe_first_dense = 3,
     /* node-limited routing, M = 4 (report sections 2.1.2 and 3.2.2;
      * config.json topk_group 4 of n_group 8) */
     .moe_max_nodes = 4,
     /* auxiliary-loss-free load balancing (report section 2.1.2;
      * config.json topk_method "noaux_tc") */
     .aux_free_router = true,
     /* multi-token prediction depth D = 1 (report section 2.2;
      * config.json num_nextn_predict_layers 1) */
     .mtp_layers = 1,
     .q_lora_rank = 1536,
     .kv_lora_rank = 512,
     .qk_rope_dim = 64,
     .qk_nope_dim = 128,
     .v_head_dim = 128,
     .source = "DeepSeek-V3 technical report 2024 section 4.2; HF "
               "deepseek-ai/DeepSeek-V3 config.json (the MTP module apart: mtp_params)"},
    {.name = "gpt3-175b",
     .arch = TPLAN_ARCH_DECODER,
     .layers = 96,
     .hidden = 12288,
     .heads = 96,
     .kv_heads = 96,
     .ffn = 4 * 12288,
     .vocab = 50257,
     .max_seq = 2048,
     .mlp = TPLAN_MLP_GELU,
     .norm = TPLAN_NORM_LAYERNORM,
     .pos = TPLAN_POS_LEARNED,
     .bias = true,
     .tied = true,
     .dropout = 0.1,
     .source = "Brown et al. 2020 (GPT-3) Table 2.1"},
    /* torchvision resnet50 at 224x224: 25,557,032 parameters; largest layer
     * the fc 2048x1000 + bias. Activations: 85,909,504 bytes per sample
     * saved for backward in fp32 (84,303,872 float32 + 1,605,632 int64
     * max-pool indices), measured with torch 1.13.1 autograd hooks on CPU:
     * tests/data/resnet50_activations.py. */
    {.name = "resnet50",
     .arch = TPLAN_ARCH_GENERIC,
     .batch_norm = true,
     .generic_params = 25557032,
     .generic_largest_layer_params = 2049000,
     .generic_act_bytes_fp32 = 85909504.0,
     /* torchvision's ResNet50_Weights docs: 4.09 GFLOPS at 224x224, counted
      * as multiply-adds (fvcore): 8.18e9 FLOPs forward. */
     .generic_flops_per_sample = 8.18e9,
     .source = "He et al. 2016; torchvision resnet50; activations measured "
               "(tests/data/resnet50_activations.py)"},
};

enum { PRESET_COUNT = sizeof presets / sizeof presets[0] };

int tplan_model_preset_count(void)
{
    return PRESET_COUNT;
}

const tplan_model *tplan_model_preset_at(int i)
{
    return i >= 0 && i < PRESET_COUNT ? &presets[i] : NULL;
}

/* Names the presets go by beyond what the key rules already match
 * (names.h: case, punctuation, organisation prefixes and -instruct/-hf/-it
 * style suffixes are ignored, so "meta-llama/Llama-2-7b-hf",
 * "Qwen/Qwen2.5-7B-Instruct", "google/gemma-2-9b-it" and "llama-3-8b"
 * need no row): Hugging Face repository names that differ from ours. */
static const tplan_alias aliases[] = {
    {"Meta-Llama-3-8B", "llama3-8b"},
    {"Meta-Llama-3-70B", "llama3-70b"},
    {"Meta-Llama-3.1-8B", "llama3.1-8b"},
    {"Meta-Llama-3.1-70B", "llama3.1-70b"},
    {"Meta-Llama-3.1-405B", "llama3.1-405b"},
    {"Mixtral-8x7B-v0.1", "mixtral-8x7b"},
    {"Mixtral-8x22B-v0.1", "mixtral-8x22b"},
    {"DeepSeek-V3-Base", "deepseek-v3"},
    {"llama-30b", "llama-33b"}, /* huggyllama's name for LLaMA 33B */
    {"Phi-3-mini-4k", "phi3-mini"},
    {"Phi-3-mini", "phi3-mini"},
    {"gpt3", "gpt3-175b"},
};

enum { ALIAS_COUNT = sizeof aliases / sizeof aliases[0] };

int tplan_model_preset(const char *name, tplan_model *out, tplan_err *err)
{
    const char *names[PRESET_COUNT];
    int i;

    for (i = 0; i < PRESET_COUNT; i++)
        names[i] = presets[i].name;
    i = tplan_name_lookup(name, names, PRESET_COUNT, aliases, ALIAS_COUNT,
                          "model", "model preset", "models", err);
    if (i < 0)
        return TPLAN_ENOTFOUND;
    *out = presets[i];
    return TPLAN_OK;
}
