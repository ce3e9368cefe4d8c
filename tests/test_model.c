/* Parameter counts, Megatron's closed form, presets and validation. */
#include "tplan_test.h"

#include "hardware.h"
#include "model.h"
#include "names.h"

/* Published parameter counts (HF model cards / safetensors metadata, less
 * Llama-2's per-layer rotary buffers; GPT-2 paper sizes; BERT counted as
 * BertForPreTraining). */
static const struct {
    const char *preset;
    int64_t params;
} counts[] = {
    {"gpt2", 124439808},         {"gpt2-medium", 354823168},
    {"gpt2-large", 774030080},   {"gpt2-xl", 1557611200},
    {"bert-base", 110106428},    {"bert-large", 336226108},
    {"llama2-7b", 6738415616},   {"llama2-13b", 13015864320},
    {"llama2-70b", 68976648192}, {"llama3-8b", 8030261248},
    {"llama3-70b", 70553706496}, {"llama3-405b", 405853388800},
    {"mistral-7b", 7241732096},  {"resnet50", 25557032},
    /* by hand, V h (embedding) + V h (head) + L (4 h^2 attention with kv =
     * heads, 3 h f SwiGLU, 2 h norms) + h, equal to the published counts:
     * LLaMA 7B 2 x 32000 x 4096 + 32 x (4 x 4096^2 + 3 x 4096 x 11008 +
     * 8192) + 4096; Phi-3-mini with V = 32064, h = 3072, f = 8192, L = 32
     * (HF model card: 3.8B) */
    {"llama-7b", 6738415616},    {"llama-13b", 13015864320},
    {"llama-33b", 32528943616},  {"llama-65b", 65285660672},
    {"llama3.1-8b", 8030261248}, {"llama3.1-70b", 70553706496},
    {"phi3-mini", 3821079552},
    /* Qwen2.5 (q, k, v biases, untied): the safetensors totals as HF
     * reports them (also llama.cpp's general.parameter_count for the
     * GGUF conversions); Gemma 2 (head width 256 and 128, four norms per
     * block, tied): KerasHub's gemma2_9b_en / gemma2_27b_en preset
     * metadata, equal to HF's safetensors totals */
    {"qwen2.5-7b", 7615616512},  {"qwen2.5-14b", 14770033664},
    {"qwen2.5-32b", 32763876352}, {"qwen2.5-72b", 72706203648},
    {"gemma2-9b", 9241705984},   {"gemma2-27b", 27227128320},
};

static void test_preset_counts(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        tplan_model m;
        tplan_param_count pc;

        assert_int_equal(tplan_model_preset(counts[i].preset, &m, NULL),
                         TPLAN_OK);
        assert_int_equal(tplan_model_validate(&m, NULL), TPLAN_OK);
        tplan_model_params(&m, &pc);
        if (pc.total != counts[i].params)
            print_error("%s: %lld, expected %lld\n", counts[i].preset,
                        (long long)pc.total, (long long)counts[i].params);
        assert_int_equal(pc.total, counts[i].params);
    }
}

/* GPT-2 small by parts: 12 layers of 7,087,872, token and position tables,
 * final LayerNorm (docs/MODEL.md section 1). */
static void test_gpt2_breakdown(void **state)
{
    tplan_model m;
    tplan_param_count pc;

    (void)state;
    tplan_model_preset("gpt2", &m, NULL);
    tplan_model_params(&m, &pc);
    assert_int_equal(pc.per_layer, 7087872);
    assert_int_equal(pc.embed, 50257 * 768);
    assert_int_equal(pc.pos, 1024 * 768);
    assert_int_equal(pc.final_norm, 2 * 768);
    assert_int_equal(pc.head, 0);
}

/* Narayanan et al. 2021 Table 1 (V = 51,200, s = 2048): Eq. 2 reproduces
 * the parameter column to 0.1B (the table rounds to one decimal). */
static void test_megatron_eq2_table1(void **state)
{
    static const struct {
        double layers, hidden, billions;
    } rows[] = {
        {24, 2304, 1.7},      {30, 3072, 3.6},    {36, 4096, 7.5},
        {40, 6144, 18.4},     {48, 8192, 39.1},   {60, 10240, 76.1},
        {80, 12288, 145.6},   {96, 16384, 310.1}, {105, 20480, 529.6},
        {128, 25600, 1008.0},
    };

    (void)state;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        assert_near(
            tplan_megatron_params(rows[i].layers, rows[i].hidden, 51200, 2048) /
                1e9,
            rows[i].billions, 0.05 + 1e-9);
}

/* Eq. 2 expands to L(12h^2 + 13h) + (V + s)h: per layer 12h^2 weights,
 * 9h of biases and 4h of LayerNorm. The exact count of the same GPT
 * (biases, LayerNorm, learned positions, tied, f = 4h) adds only the final
 * LayerNorm's 2h. */
static void test_eq2_matches_exact_count(void **state)
{
    tplan_model m;
    tplan_param_count pc;

    (void)state;
    tplan_model_init(&m);
    m.layers = 36;
    m.hidden = 4096;
    m.heads = 32;
    m.kv_heads = 32;
    m.ffn = 4 * 4096;
    m.vocab = 51200;
    m.max_seq = 2048;
    tplan_model_params(&m, &pc);
    assert_near((double)pc.total,
                tplan_megatron_params(36, 4096, 51200, 2048) + 2 * 4096, 0.5);
}

static void test_validation_messages(void **state)
{
    static const struct {
        int64_t layers, hidden, heads, kv, ffn, vocab;
        const char *field, *msg;
    } bad[] = {
        {0, 4096, 32, 32, 1, 1, "layers",
         "layers must be a positive integer (layers=0)"},
        {2, -5, 32, 32, 1, 1, "hidden",
         "hidden must be a positive integer (hidden=-5)"},
        {2, 4096, 30, 30, 1, 1, "heads",
         "heads must divide hidden (hidden=4096, heads=30)"},
        {2, 4096, 32, 5, 1, 1, "kv_heads",
         "kv_heads must divide heads (heads=32, kv_heads=5)"},
        {2, 4096, 32, 32, 0, 1, "ffn",
         "ffn must be a positive integer (ffn=0)"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tplan_model m;
        tplan_err err;

        tplan_model_init(&m);
        m.layers = bad[i].layers;
        m.hidden = bad[i].hidden;
        m.heads = bad[i].heads;
        m.kv_heads = bad[i].kv;
        m.ffn = bad[i].ffn;
        m.vocab = bad[i].vocab;
        m.max_seq = 16;
        assert_int_equal(tplan_model_validate(&m, &err), TPLAN_EINVAL);
        assert_string_equal(err.field, bad[i].field);
        assert_string_equal(err.msg, bad[i].msg);
    }
}

/* The attention widths by hand (docs/MODEL.md section 1): Gemma 2 9B's q
 * and output are a d = 16 x 256 = 4096 wide on h = 3584, with four RMSNorms
 * per block; Qwen2.5 7B adds biases to q, k and v only (kv width 4 x 128);
 * naming head_dim = h/a changes nothing. */
static void test_head_dim_and_qkv_bias(void **state)
{
    tplan_model m, same;
    tplan_param_count pc, pc2;
    int64_t h = 3584;

    (void)state;
    tplan_model_preset("gemma2-9b", &m, NULL);
    tplan_model_params(&m, &pc);
    assert_int_equal(pc.layer_attn, h * (4096 + 2 * 2048) + 4096 * h);
    assert_int_equal(pc.layer_norm, 4 * h);
    assert_int_equal(pc.per_layer,
                     h * (4096 + 2 * 2048) + 4096 * h + 3 * h * 14336 + 4 * h);
    assert_int_equal(pc.head, 0);
    tplan_model_preset("qwen2.5-7b", &m, NULL);
    tplan_model_params(&m, &pc);
    assert_int_equal(pc.layer_attn,
                     h * (h + 2 * 512) + h * h + (h + 2 * 512));
    same = m;
    same.qkv_bias = false;
    tplan_model_params(&same, &pc2);
    assert_int_equal(pc.total - pc2.total, 28 * (h + 2 * 512));
    same = m;
    same.head_dim = 128; /* 3584 / 28 */
    tplan_model_params(&same, &pc2);
    assert_int_equal(pc2.total, pc.total);
    /* head_dim frees heads from dividing hidden */
    same.heads = 30;
    same.kv_heads = 5;
    assert_int_equal(tplan_model_validate(&same, NULL), TPLAN_OK);
    same.head_dim = 0;
    assert_int_equal(tplan_model_validate(&same, NULL), TPLAN_EINVAL);
    same.head_dim = 128;
    same.block_norms = 3;
    {
        tplan_err err;

        assert_int_equal(tplan_model_validate(&same, &err), TPLAN_EINVAL);
        assert_string_equal(err.field, "block_norms");
        assert_string_equal(err.msg,
                            "block_norms must be 2 or 4 (block_norms=3)");
        same.block_norms = 4;
        same.head_dim = -1;
        assert_int_equal(tplan_model_validate(&same, &err), TPLAN_EINVAL);
        assert_string_equal(err.msg, "head_dim must be in [0, 100000], 0 "
                                     "meaning hidden/heads (head_dim=-1)");
    }
}

static void test_unknown_preset(void **state)
{
    tplan_model m;
    tplan_err err;

    (void)state;
    assert_int_equal(tplan_model_preset("gpt5", &m, &err), TPLAN_ENOTFOUND);
    assert_string_equal(err.msg,
                        "unknown model preset (model=gpt5): did you mean "
                        "gpt2? (`tplan models` lists all)");
    /* nothing close: no guess */
    assert_int_equal(tplan_model_preset("zz", &m, &err), TPLAN_ENOTFOUND);
    assert_string_equal(err.msg,
                        "unknown model preset (model=zz); see `tplan models`");
    /* a control character or a quote is not punctuation to ignore */
    assert_int_equal(tplan_model_preset("gpt\n2", &m, &err), TPLAN_ENOTFOUND);
    assert_int_equal(tplan_model_preset("gpt'2", &m, &err), TPLAN_ENOTFOUND);
}

/* Names people type (names.h): case, punctuation, organisations, variant
 * suffixes and vendor words do not matter; aliases cover the rest; the
 * result is the catalog's own name. */
static void test_names_people_type(void **state)
{
    static const struct {
        const char *typed, *model;
    } models[] = {
        {"LLAMA3-8B", "llama3-8b"},
        {"llama-3-8b", "llama3-8b"},
        {"meta-llama/Meta-Llama-3-8B", "llama3-8b"},
        {"meta-llama/Llama-3.1-8B-Instruct", "llama3.1-8b"},
        {"meta-llama/Llama-2-7b-hf", "llama2-7b"},
        {"huggyllama/llama-30b", "llama-33b"},
        {"Qwen/Qwen2.5-72B-Instruct", "qwen2.5-72b"},
        {"google/gemma-2-27b-it", "gemma2-27b"},
        {"mistralai/Mistral-7B-v0.1", "mistral-7b"},
        {"microsoft/Phi-3-mini-4k-instruct", "phi3-mini"},
        {"bert-base-uncased", "bert-base"},
        {"openai-community/gpt2-xl", "gpt2-xl"},
    };
    static const struct {
        const char *typed, *gpu;
    } gpus[] = {
        {"H100", "h100-sxm"},
        {"H100-SXM5-80GB", "h100-sxm"},
        {"NVIDIA H100 80GB HBM3", "h100-sxm"},
        {"NVIDIA H100 PCIe", "h100-pcie"},
        {"A100-80GB", "a100-80g"},
        {"NVIDIA A100-SXM4-40GB", "a100-40g"},
        {"NVIDIA GeForce RTX 4090", "rtx4090"},
        {"RTX 3090", "rtx3090"},
        {"NVIDIA RTX A6000", "rtx-a6000"},
        {"NVIDIA RTX 6000 Ada Generation", "rtx6000-ada"},
        {"NVIDIA L40S", "l40s"},
        {"NVIDIA GH200 480GB", "gh200"},
        {"Tesla V100-SXM2-16GB", "v100-16g"},
        {"AMD Instinct MI300X", "mi300x"},
    };
    tplan_model m;
    tplan_gpu g;
    tplan_err err;
    char key[96];

    (void)state;
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        assert_int_equal(tplan_model_preset(models[i].typed, &m, &err),
                         TPLAN_OK);
        assert_string_equal(m.name, models[i].model);
    }
    for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++) {
        assert_int_equal(tplan_gpu_lookup(gpus[i].typed, &g, &err), TPLAN_OK);
        assert_string_equal(g.name, gpus[i].gpu);
    }
    /* "A100" alone is ambiguous: a guess, not a pick */
    assert_int_equal(tplan_gpu_lookup("A100", &g, &err), TPLAN_ENOTFOUND);
    assert_string_equal(err.msg, "unknown GPU (gpu=A100): did you mean "
                                 "a100-40g, a100-80g or a10g? (`tplan gpus` "
                                 "lists all)");
    assert_int_equal(tplan_gpu_lookup("h900", &g, &err), TPLAN_ENOTFOUND);
    assert_string_equal(err.msg, "unknown GPU (gpu=h900): did you mean h200 or h800? "
                                 "(`tplan gpus` lists all)");
    assert_int_equal(tplan_model_preset("llama3", &m, &err), TPLAN_ENOTFOUND);
    assert_string_equal(err.msg,
                        "unknown model preset (model=llama3): did you mean "
                        "llama3-8b, llama3-70b or llama3-405b? (`tplan "
                        "models` lists all)");
    tplan_name_key("NVIDIA GeForce RTX-4090", key, sizeof key);
    assert_string_equal(key, "rtx4090");
    tplan_name_key("Org/Some_Model-7B-Instruct-v0.2", key, sizeof key);
    assert_string_equal(key, "somemodel7b");
    tplan_name_key("", key, sizeof key);
    assert_string_equal(key, "");
}

/* The hint flags and Lua fields share: a prefix is close, the prefix
 * goes before each name, and nothing close leaves it empty. */
static void test_name_hint(void **state)
{
    static const char *const opts[] = {"seq", "lora-rank", "lora-targets",
                                       "gpus", "micro-batch"};
    char buf[160];

    (void)state;
    tplan_name_hint("lora", opts, 5, "--", buf, sizeof buf);
    assert_string_equal(buf, "did you mean --lora-rank or --lora-targets?");
    tplan_name_hint("micro_batch", opts, 5, "", buf, sizeof buf);
    assert_string_equal(buf, "did you mean micro-batch?");
    tplan_name_hint("gpu", opts, 5, "--", buf, sizeof buf);
    assert_string_equal(buf, "did you mean --gpus?");
    tplan_name_hint("zzzzzz", opts, 5, "--", buf, sizeof buf);
    assert_string_equal(buf, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_preset_counts),
        cmocka_unit_test(test_gpt2_breakdown),
        cmocka_unit_test(test_megatron_eq2_table1),
        cmocka_unit_test(test_eq2_matches_exact_count),
        cmocka_unit_test(test_validation_messages),
        cmocka_unit_test(test_unknown_preset),
        cmocka_unit_test(test_head_dim_and_qkv_bias),
        cmocka_unit_test(test_names_people_type),
        cmocka_unit_test(test_name_hint),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
