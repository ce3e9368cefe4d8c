/* The GPU catalog and the cluster shape a plan runs on. Datasheet figures
 * only; knows nothing of models or I/O. */
#ifndef TPLAN_HARDWARE_H
#define TPLAN_HARDWARE_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"

typedef enum {
    TPLAN_DTYPE_FP32,
    TPLAN_DTYPE_TF32,
    TPLAN_DTYPE_BF16,
    TPLAN_DTYPE_FP16,
    TPLAN_DTYPE_FP8,
    TPLAN_DTYPE_COUNT
} tplan_dtype;

/* fp8 scaling recipes, as Megatron-LM's --fp8-recipe names them (issue
 * 34): per-tensor scales from an amax history (delayed) or from the
 * tensor at hand (tensorwise, "current scaling"); DeepSeek-V3's 1x128
 * activation and 128x128 weight blocks (blockwise); MXFP8's 1x32 blocks
 * with power-of-two scales, Blackwell only (mxfp8). */
typedef enum {
    TPLAN_FP8_TENSORWISE,
    TPLAN_FP8_DELAYED,
    TPLAN_FP8_BLOCKWISE,
    TPLAN_FP8_MXFP8,
    TPLAN_FP8_RECIPE_COUNT
} tplan_fp8_recipe;

/* The GPU architectures fp8 recipe ratios are fitted for. */
typedef enum {
    TPLAN_FP8_ARCH_OTHER, /* none fitted: the family's fp8_ratio */
    TPLAN_FP8_ARCH_HOPPER,
    TPLAN_FP8_ARCH_BLACKWELL
} tplan_fp8_arch;

typedef struct tplan_gpu {
    char name[32];
    int64_t memory_bytes; /* total as the runtime reports it */
    double mem_bw_bytes_per_s;
    double peak_flops[TPLAN_DTYPE_COUNT]; /* dense; 0 = not supported */
    double link_bytes_per_s; /* intra-node GPU-to-GPU, one direction */
    double nic_bytes_per_s;  /* inter-node network per GPU, one direction */
    int gpus_per_node;       /* typical server */
    double tdp_w;
    double price_usd_per_h; /* default on-demand $/GPU-hour */
    /* Achieved-efficiency model (perf.c): dense matmuls reach
     * eff_max * h/(h + eff_h0) * n/(n + eff_tok0) of peak, h the model's
     * hidden size and n the tokens per micro-batch; the
     * attention core reaches attn_eff; fp8 matmuls reach fp8_ratio of the
     * bf16 efficiency (measured against the fp8 peak). */
    double eff_max, eff_h0, eff_tok0, attn_eff, fp8_ratio;
    /* efficiency lost per doubling of the tensor-parallel degree (narrower
     * GEMMs, more kernels per layer) */
    double eff_tp;
    const char *price_source; /* borrowed, static; with its date */
    const char *source;       /* borrowed, static */
    /* the host side (tplan_gpu_host): 0 = not known, the defaults' rule;
     * filled by tplan_gpu_lookup, so GPUs made from a catalog entry keep
     * their base's */
    double host_bytes_per_gpu;
    double pcie_bytes_per_s;
    /* NCCL's NVLink SHARP channels on the GPU's usual server (hardware.c),
     * 0: no NVLS; filled by tplan_gpu_lookup like the host side */
    int nvls_channels;
    /* PyTorch's default BLAS workspace per handle and stream on this GPU
     * family, MiB (hardware.c); filled by tplan_gpu_lookup */
    double blas_ws_mib;
    /* the architecture whose fp8 recipe ratios apply (hardware.c), filled
     * by tplan_gpu_lookup like the host side */
    tplan_fp8_arch fp8_arch;
} tplan_gpu;

/* Copy the catalog entry called name into *out. */
int tplan_gpu_lookup(const char *name, tplan_gpu *out, tplan_err *err);
int tplan_gpu_count(void);
const tplan_gpu *tplan_gpu_at(int i); /* borrowed, static */

/* Do a and b hold the same figures (every field but their sources)? */
bool tplan_gpu_same(const tplan_gpu *a, const tplan_gpu *b);

/* Check a user-made GPU: positive memory and at least one peak. */
int tplan_gpu_validate(const tplan_gpu *g, tplan_err *err);

const char *tplan_dtype_name(tplan_dtype d);

/* fp8 matmul efficiency over the 16-bit one under recipe r on g's
 * architecture, fitted to published runs (hardware.c); the GPU's own
 * fp8_ratio where none is fitted. Negative: the recipe does not run on
 * g (mxfp8 before Blackwell). */
double tplan_fp8_recipe_ratio(const tplan_gpu *g, tplan_fp8_recipe r);
const char *tplan_fp8_recipe_name(tplan_fp8_recipe r);

/* The host side of the instance a GPU is usually rented in (docs/MODEL.md
 * section 12.5): host memory per GPU and the host <-> GPU bandwidth one way
 * that pinned copies reach. GPUs without a sourced instance (and custom
 * GPUs) get twice their memory and PCIe Gen4. */
typedef struct tplan_host {
    double memory_bytes_per_gpu;
    double pcie_bytes_per_s;
    const char *source; /* borrowed, static */
} tplan_host;

void tplan_gpu_host(const tplan_gpu *g, tplan_host *out);

#endif
