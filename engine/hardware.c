/* The built-in GPU catalog. Sources: tests/data/gpu_specs.csv (per-row
 * datasheets) and the runtime/price evidence noted on each entry; see
 * docs/MODEL.md section 8.
 *
 * memory_bytes is what the runtime reports: torch total_memory / CUDA
 * totalGlobalMem where a real log shows it, else the nvidia-smi total
 * (which reads 0.5-1% higher; the 10% reserve absorbs the gap).
 * Peaks are dense (no sparsity) tensor-core figures with fp32 accumulate.
 * link = intra-node GPU-GPU bandwidth per direction; nic = inter-node
 * network per GPU per direction. Prices are on-demand USD per GPU-hour and
 * go stale: every one carries its source and date; --price overrides.
 * The network (nic) is the typical fabric of each part's usual server:
 * DGX-class InfiniBand, one NIC per GPU, for SXM/OAM parts; the cloud
 * instance's Ethernet for PCIe parts. It rarely matches the instance a
 * price comes from (AWS p4d: 400 Gb/s for 8 A100s, 6.25 GB/s per GPU):
 * --nic-gbps sets the cluster's. */
#include "hardware.h"

#include "names.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define T   1e12 /* TFLOP/s */
#define G   1e9  /* GB/s */
#define MIB 1048576LL

/* name, bytes, bw, fp32, tf32, bf16, fp16, fp8, link, nic, per node, W,
 * $/h, efficiency family, price source, source */
#define GPU(n, mem, bw, f32, tf, bf, hf, f8, lk, nc, pn, w, usd, eff, ps, src) \
    {                                                                          \
        n, mem, (bw)*G, {(f32)*T, (tf)*T, (bf)*T, (hf)*T, (f8)*T}, (lk)*G,     \
            (nc)*G, pn, w, usd, eff, EFF_TP, ps, src, 0, 0, 0, 0,              \
            TPLAN_FP8_ARCH_OTHER                                               \
    }

/* Efficiency families: eff_max, eff_h0, eff_tok0, attn_eff, fp8_ratio.
 * EFF_A100 and EFF_H100 are fitted to MosaicML llm-foundry's published
 * throughput table (tests/data/throughput_llmfoundry_half.json; see
 * docs/MODEL.md section 8.2 and scripts/accuracy_llmfoundry.sh); the others are
 * assumptions by analogy, marked as such. */
/* clang-format off */
#define EFF_A100     0.78, 600.0, 512.0, 0.30, 0.0
/* Efficiency lost per doubling of tp beyond the modelled communication:
 * Narayanan et al. 2021's Table 1 (GPT 1.7B-1T on A100s, tp 1-8) is
 * matched best with none (scripts/accuracy_megatron.sh: median error 6.3%
 * at 0, 10.8% at 0.02). A knob (--eff-tp) for other stacks. */
#define EFF_TP       0.0
/* fp8_ratio 0.65, fitted with the rest to llm-foundry's H100 amp_fp8
 * rows (2023 Transformer Engine): Hopper and Blackwell plans take their
 * fp8 recipe's ratio instead (tplan_fp8_recipe_ratio) unless fp8_ratio is
 * given; the fsdp framework gives 0.65 */
#define EFF_H100     0.65, 1000.0, 512.0, 0.20, 0.65
/* assumption: Blackwell software maturity like Hopper's */
#define EFF_B200     EFF_H100
/* assumption: PCIe Ampere/Ada parts sustain GEMMs like A100, smaller dies */
#define EFF_PCIE     0.70, 600.0, 512.0, 0.30, 0.65
/* assumption: Megatron-era V100 runs reached ~30-40% of the fp16 peak */
#define EFF_V100     0.55, 600.0, 512.0, 0.25, 0.0
/* assumption: ROCm GEMM/attention kernels lag CUDA's (published MI300X
 * training MFU is below H100's) */
#define EFF_AMD      0.50, 1000.0, 512.0, 0.20, 0.65
/* clang-format on */

static const tplan_gpu gpus[] = {
    /* A100 SXM4 40GB: CUDA deviceQuery 42,298,834,944 B (bottlerocket-os
     * PR #3873); NVLink 3 600 GB/s bidirectional; DGX A100 8x HDR 200
     * Gb/s. Price: AWS p4d.24xlarge $32.77/h / 8 (reference guide's
     * step 9, Feb 2026: docs/MODEL.md section 8.1). */
    GPU("a100-40g", 42298834944LL, 1555, 19.5, 156, 312, 312, 0, 300, 25, 8,
        400, 4.10, EFF_A100, "AWS p4d.24xlarge $32.77/h / 8, Feb 2026",
        "NVIDIA A100 datasheet (gpu_specs.csv)"),
    /* A100 SXM4 80GB: torch total_memory 85,056,798,720 B (torch 2.7.1,
     * CUDA 12.8 test fixture). Price: AWS p4de.24xlarge $40.97/h / 8
     * (2023-2024 list; unconfirmed since the June 2025 cuts). */
    GPU("a100-80g", 85056798720LL, 2039, 19.5, 156, 312, 312, 0, 300, 25, 8,
        400, 5.12, EFF_A100, "AWS p4de.24xlarge $40.97/h / 8, 2024 list",
        "NVIDIA A100 datasheet (gpu_specs.csv)"),
    /* H100 SXM5: torch total_memory=81089MB (torch 2.7, CUDA 12.8); NVLink 4
     * 900 GB/s bidirectional; DGX H100 8x NDR 400 Gb/s. Price: AWS P5
     * ~$3.90/GPU-h after the June 2025 cut (costnimbus.com, Mar 2026). */
    GPU("h100-sxm", 81089 * MIB, 3350, 66.9, 494.7, 989.4, 989.4, 1978.9, 450,
        50, 8, 700, 3.90, EFF_H100, "AWS P5 ~$3.90/GPU-h, Mar 2026",
        "NVIDIA H100 whitepaper v1.04 (gpu_specs.csv)"),
    /* H100 PCIe: memory as SXM (nvidia-smi 81559 MiB on both); PCIe Gen5
     * x16 63 GB/s per direction; network: assumption, a 200 Gb/s NIC per
     * GPU. Price: Lambda 1x H100 PCIe, 2024. */
    GPU("h100-pcie", 81089 * MIB, 2000, 51, 378, 756, 756, 1513, 63, 25, 8, 350,
        2.49, EFF_H100, "Lambda on-demand 1x H100 PCIe $2.49/h, 2024",
        "NVIDIA H100 whitepaper (gpu_specs.csv)"),
    /* H200 SXM: torch total_memory 150,109,880,320 B (torch 2.11, CUDA
     * 13.0, driver 580.159; nvidia-smi 143771 MiB; measured with
     * tests/data/gpu/measure_torch.py). Price: AWS EC2 Capacity Blocks
     * p5e $43.26/h / 8, late 2024. */
    GPU("h200", 150109880320LL, 4800, 67, 494.5, 989, 989, 1979, 450, 50, 8, 700,
        5.41, EFF_H100, "AWS Capacity Blocks p5e $43.26/h / 8, late 2024",
        "gpu_specs.csv (stas00 table; H200 pages)"),
    /* B200 (HGX, 1000 W): nvidia-smi 183359 MiB (TensorRT-LLM #10278);
     * NVLink 5 1.8 TB/s bidirectional; fp32 75 TF (NVIDIA HGX B200 table).
     * Price: estimate within the 2026 neocloud range $3.75-$10.57. */
    GPU("b200", 183359 * MIB, 8000, 75, 1125, 2250, 2250, 4500, 900, 50, 8,
        1000, 5.99, EFF_B200, "estimate, neocloud range $3.75-10.57/h, 2026",
        "stas00/ml-engineering accelerator table (gpu_specs.csv)"),
    /* L4: nvidia-smi 23034 MiB; PCIe Gen4 x16 31.5 GB/s; network: AWS
     * g6.48xlarge 100 Gb/s for 8 GPUs (instance spec, unverified here).
     * Price: AWS g6.xlarge ~$0.80/h, 2026 (costnimbus.com). */
    GPU("l4", 23034 * MIB, 300, 30.3, 60, 121, 121, 242.5, 31.5, 1.5625, 8, 72,
        0.80, EFF_PCIE, "AWS g6.xlarge ~$0.80/h, Mar 2026",
        "NVIDIA L4 datasheet (gpu_specs.csv)"),
    /* L40S: nvidia-smi 46068 MiB (gpustack #301); network: AWS
     * g6e.48xlarge 400 Gb/s for 8 GPUs (instance spec, unverified here).
     * Price: AWS g6e.xlarge $1.861/h, 2024 launch list. */
    GPU("l40s", 46068 * MIB, 864, 91.6, 183, 362, 362, 733, 31.5, 6.25, 8, 350,
        1.86, EFF_PCIE, "AWS g6e.xlarge $1.861/h, 2024 list",
        "stas00 table + L40S datasheet (gpu_specs.csv)"),
    /* A10G (AWS): nvidia-smi 23028 MiB; A10G datasheet (AWS, 2022): fp32
     * 35, tf32 35, bf16/fp16 70 dense (the A10's 125 is another part).
     * Network: AWS g5.48xlarge 100 Gb/s for 8 GPUs (instance spec,
     * unverified here). Price: AWS g5.xlarge $1.006/h us-east-1, Jun 2026. */
    GPU("a10g", 23028 * MIB, 600, 35, 35, 70, 70, 0, 31.5, 1.5625, 8, 300,
        1.006, EFF_PCIE, "AWS g5.xlarge $1.006/h us-east-1, Jun 2026",
        "NVIDIA A10G datasheet for AWS, 2022"),
    /* V100 SXM2 16GB: nvidia-smi 16160 MiB; no bf16 tensor cores (peak 0:
     * unsupported; measured bf16 GEMM ~10.6 TF); NVLink 2 300 GB/s
     * bidirectional; network: DGX-1's 4x EDR 100 Gb/s for 8 GPUs, 6.25 GB/s
     * per GPU. Price: AWS p3.2xlarge $3.06/h (list, unconfirmed date). */
    GPU("v100-16g", 16160 * MIB, 900, 15.7, 0, 0, 125, 0, 150, 6.25, 8, 300,
        3.06, EFF_V100, "AWS p3.2xlarge $3.06/h, list",
        "NVIDIA V100 datasheet (Lightning _CUDA_FLOPS)"),
    GPU("v100-32g", 32510 * MIB, 900, 15.7, 0, 0, 125, 0, 150, 6.25, 8, 300,
        3.90, EFF_V100, "AWS p3dn.24xlarge $31.212/h / 8, list",
        "NVIDIA V100 datasheet (Lightning _CUDA_FLOPS)"),
    /* RTX 3090: nvidia-smi 24576 MiB (driver 580); GA102 whitepaper: 71 TF
     * fp16/bf16 with fp32 accumulate, tf32 35.6; no NVLink on the usual
     * rented boxes (PCIe Gen4); network: assumption, 10 Gb/s per GPU, 4 per
     * box. Price: RunPod on-demand $0.39/h, Mar 2026 (deploybase.ai). */
    GPU("rtx3090", 24576 * MIB, 936, 35.6, 35.6, 71, 71, 0, 31.5, 1.25, 4, 350,
        0.39, EFF_PCIE, "RunPod RTX 3090 $0.39/h, Mar 2026",
        "NVIDIA GA102 whitepaper appendix A"),
    /* RTX 4090: nvidia-smi 24564 MiB; Ada whitepaper fp32-accumulate
     * figures (bf16 165.2, fp8 330.3); network as the 3090 (assumption).
     * Price: RunPod $0.60/h, Mar 2026. */
    GPU("rtx4090", 24564 * MIB, 1008, 82.6, 82.6, 165.2, 165.2, 330.3, 31.5,
        1.25, 4, 450, 0.60, EFF_PCIE, "RunPod RTX 4090 $0.60/h, Mar 2026",
        "NVIDIA Ada whitepaper (gpu_specs.csv note)"),
    /* RTX A6000 (GA102, 48 GB GDDR6): nvidia-smi 49140 MiB with ECC off,
     * the workstation default (enabling ECC costs about 1/16 of it, as on
     * the L40 below); 768 GB/s, 300 W, PCIe Gen4 (NVIDIA spec table);
     * bf16/fp16 154.8 TF dense with fp32 accumulate (Microway's Ampere
     * comparison: a pro card runs fp32 accumulate at full rate); tf32
     * half of that and fp32 38.7 (NVIDIA). NVLink bridges join pairs only:
     * PCIe links; network as the 3090. Price: RunPod serverless flex
     * $0.00034/s = $1.22/h (docs.runpod.io, 2026); pods rent for less. */
    GPU("rtx-a6000", 49140 * MIB, 768, 38.7, 77.4, 154.8, 154.8, 0, 31.5, 1.25,
        4, 300, 1.22, EFF_PCIE, "RunPod serverless A6000 $0.00034/s, 2026",
        "NVIDIA RTX A6000 spec table; Microway Ampere comparison"),
    /* RTX 6000 Ada (AD102, 48 GB GDDR6): nvidia-smi 49140 MiB (ECC off);
     * 960 GB/s, 300 W, PCIe Gen4, fp32 91.1 TF (spec tables). Tensor
     * peaks derived, not read: NVIDIA's 1,457 TF fp8 with sparsity / 2 =
     * 728.5 fp8 dense, / 4 = 364.2 bf16 dense at full-rate fp32 accumulate
     * (a pro card); tf32 a quarter of fp16 as on the 4090. Price: RunPod
     * serverless flex $0.00053/s = $1.91/h (docs.runpod.io, 2026). */
    GPU("rtx6000-ada", 49140 * MIB, 960, 91.1, 91.1, 364.2, 364.2, 728.5,
        31.5, 1.25, 4, 300, 1.91, EFF_PCIE,
        "RunPod serverless 6000 Ada $0.00053/s, 2026",
        "spec tables; tensor peaks derived from NVIDIA's 1,457 TF fp8 sparse"),
    /* L40 (AD102, 48 GB GDDR6 ECC): nvidia-smi 46068 MiB (ECC on, the
     * datacenter default; 49140 with it off); NVIDIA L40/L40S datasheet
     * table: 864 GB/s, fp32 90.5, tf32 90.5, bf16/fp16 181.05, fp8 362
     * dense, 300 W, PCIe Gen4 x16. Network as the L40S. Price: RunPod
     * on-demand $1.22/h, Mar 2026 (deploybase.ai). */
    GPU("l40", 46068 * MIB, 864, 90.5, 90.5, 181.05, 181.05, 362, 31.5, 6.25,
        8, 300, 1.22, EFF_PCIE, "RunPod L40 $1.22/h, Mar 2026",
        "NVIDIA L40/L40S datasheet table"),
    /* RTX 5090 (GB202, 32 GB GDDR7): nvidia-smi 32607 MiB; 1,792 GB/s,
     * 575 W, PCIe Gen5 (spec tables). Tensor peaks derived, not read:
     * 838 TF is fp16 with fp16 accumulate and sparsity, so 419 dense, and
     * GeForce cards run fp32 accumulate at half rate (known for Ampere and
     * Ada, assumed here): bf16 209.5, fp8 twice that, tf32 a quarter of
     * 419, fp32 104.8. Price: RunPod on-demand $1.22/h, Mar 2026
     * (deploybase.ai). */
    GPU("rtx5090", 32607 * MIB, 1792, 104.8, 104.8, 209.5, 209.5, 419, 63,
        1.25, 4, 575, 1.22, EFF_PCIE, "RunPod RTX 5090 $1.22/h, Mar 2026",
        "spec tables; tensor peaks derived from 838 TF fp16 sparse"),
    /* H100 NVL (94 GB HBM3, PCIe): nvidia-smi 95830 MiB; 3.9 TB/s, bf16
     * 835 dense (1,671 sparse), fp8 1,671, fp32 60, 350-400 W, PCIe Gen5
     * (third-party tables that agree; NVIDIA's datasheet not read here).
     * NVLink bridges join pairs only: PCIe links, network as the H100 PCIe.
     * Price: RunPod $3.07/h as listed by gpu.blog, 2026. */
    GPU("h100-nvl", 95830 * MIB, 3900, 60, 417.5, 835, 835, 1671, 63, 25, 8,
        400, 3.07, EFF_H100, "RunPod H100 NVL $3.07/h (gpu.blog), 2026",
        "H100 NVL spec tables (third-party, consistent)"),
    /* GH200 480GB: the H100 of a Grace Hopper module with 96 GB HBM3,
     * nvidia-smi 97871 MiB; 4 TB/s; tensor peaks as the H100 SXM; power
     * capped at 900 W for the whole module, CPU included (nvidia-smi).
     * Host: 480 GB LPDDR5X behind NVLink-C2C, 900 GB/s both directions
     * (dstack GH200 table; DeepSpeed SuperOffload README): 450 one way,
     * of which copies reach 80% (assumption, as for PCIe). Usually rented
     * one per instance. Price: estimate within the H100 neocloud range
     * ($1.99-2.50/h, Mercatus, May 2026); no list price read here. */
    {"gh200", 97871 * MIB, 4000 * G,
     {66.9 * T, 494.7 * T, 989.4 * T, 989.4 * T, 1978.9 * T}, 450 * G, 50 * G,
     1, 900, 1.99, EFF_H100, EFF_TP,
     "estimate, H100 neocloud range $1.99-2.50/h, May 2026",
     "H100 whitepaper (GPU); dstack GH200 table (memory, C2C)", 480e9,
     450 * G * 0.8, 0, 0, TPLAN_FP8_ARCH_OTHER},
    /* H800 SXM: the H100 SXM's GH100 with NVLink cut to 400 GB/s
     * bidirectional (tumgag/philisun pages); memory, bandwidth and tensor
     * peaks as the H100 SXM (third-party tables that treat them as equal;
     * NVIDIA's H800 datasheet not read here); TDP as the H100 SXM
     * (assumption). Network: DeepSeek-V3's cluster, IB 50 GB/s per GPU
     * (report section 3.2.2, which also measures NVLink at 160 GB/s, what
     * 200 one way at NCCL's 0.77 gives). Price: the $2/GPU-hour the
     * DeepSeek-V3 report assumes (section 1). */
    GPU("h800", 81089 * MIB, 3350, 66.9, 494.7, 989.4, 989.4, 1978.9, 200, 50,
        8, 700, 2.00, EFF_H100,
        "DeepSeek-V3 report's assumed H800 rental $2/GPU-h, Dec 2024",
        "H100 SXM figures (third-party: H800 = H100 but NVLink 400 GB/s)"),
    /* H20 (Hopper, 96 GB HBM3): 4.0 TB/s, 148 TF bf16/fp16 dense, 74 tf32,
     * 44 fp32, 296 INT8 TOPS (fp8 taken at the INT8 rate, as on every
     * Hopper: inferred), NVLink 900 GB/s bidirectional, 400 W
     * (tweaktown news 95224; willitrunai.com; zangshuxian.com). Memory:
     * the 96 GB GH200's nvidia-smi total (assumption). No public
     * on-demand price found: an estimate. */
    GPU("h20", 97871 * MIB, 4000, 44, 74, 148, 148, 296, 450, 50, 8, 400, 1.50,
        EFF_H100, "estimate, no public on-demand price found, 2026",
        "H20 spec pages (third-party; fp8 inferred from INT8)"),
    /* MI325X (CDNA 3, 256 GB HBM3E): 6 TB/s, dense fp32 163.4, tf32 653.7,
     * bf16/fp16 1307.4, fp8 2614.9 TF (sparse twice), ~1000 W
     * (awesomeagents.ai table; wiaix.com); seven Infinity Fabric links to
     * the other 7 GPUs as the MI300X (per-link rate not read: the
     * MI300X's). Memory: 256 GiB, as the MI300X's 192 GB reads 192 GiB in
     * torch (assumption). Price: $2.00-2.25/h (awesomeagents.ai, no
     * provider or date). */
    GPU("mi325x", 262144 * MIB, 6000, 163.4, 653.7, 1307.4, 1307.4, 2614.9,
        448, 50, 8, 1000, 2.00, EFF_AMD,
        "awesomeagents.ai $2.00-2.25/h (no provider or date), 2026",
        "MI325X spec tables (third-party; dense figures)"),
    /* GB200, per GPU of an NVL72 rack (rack figures / 72, aiwiki.ai citing
     * NVIDIA: 13.4 TB HBM3e, 720 PF fp8 sparse, 1.8 TB/s NVLink per GPU):
     * 186 GB, fp8 5 PF and bf16 2.5 PF dense (verda.com lists 4.5 and
     * 2.25: the lower figures would be 10% slower), 8 TB/s (gpu.blog),
     * 1200 W (verda.com). The NVLink domain is the rack: 72 GPUs per
     * "node". Host: a Grace CPU with 480 GB LPDDR5X per 2 GPUs behind
     * NVLink-C2C 900 GB/s both ways (deploybase.ai; 480 GB from NVIDIA's
     * table, not re-read): 240 GB and 225 GB/s one way per GPU, of which
     * copies reach 80% (assumption). Price: an estimate; no per-GPU list
     * price read here. */
    {"gb200", 186000000000LL, 8000 * G,
     {80 * T, 1250 * T, 2500 * T, 2500 * T, 5000 * T}, 900 * G, 50 * G, 72,
     1200, 10.50, EFF_B200, EFF_TP, "estimate, no per-GPU list price, 2026",
     "GB200 NVL72 rack figures / 72 (third-party)", 240e9, 225 * G * 0.8,
     0, 0, TPLAN_FP8_ARCH_OTHER},
    /* MI250X: the runtime sees each of the two GCDs as a device with
     * 68,702,699,520 B (HIP totalGlobalMem); figures here are per GCD, half
     * the module's 383 TF bf16, 3.2 TB/s and 560 W; links: Infinity
     * Fabric 100 GB/s (yobitel.com MI250 page); network: Frontier's 4x
     * Slingshot 200 Gb/s for 8 GCDs, 12.5 GB/s each. No public on-demand
     * price: estimate below the MI300X median. */
    GPU("mi250x", 68702699520LL, 1638, 23.95, 0, 191.5, 191.5, 0, 100, 12.5, 8,
        280, 1.00, EFF_AMD, "estimate per GCD, no public list price, 2026",
        "AMD MI250X launch table (per GCD = half a module)"),
    /* MI300X: torch total_memory=196592MB (ROCm 6.2.4, stas00 2024-12);
     * Infinity Fabric 7 x 64 GB/s per direction; network: 400 Gb/s per
     * GPU as on 8x MI300X cloud nodes (Azure ND MI300X v5; unverified here).
     * Price: median across providers $1.99/h, May 2026. */
    GPU("mi300x", 196592 * MIB, 5300, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 448,
        50, 8, 750, 1.99, EFF_AMD, "median of providers $1.99/h, May 2026",
        "AMD MI300X datasheet (gpu_specs.csv)"),
};

enum { GPU_COUNT = sizeof gpus / sizeof gpus[0] };

int tplan_gpu_count(void)
{
    return GPU_COUNT;
}

const tplan_gpu *tplan_gpu_at(int i)
{
    return i >= 0 && i < GPU_COUNT ? &gpus[i] : NULL;
}

/* Names the GPUs go by beyond what the key rules match (names.h: case,
 * punctuation and vendor words are ignored, so "NVIDIA GeForce RTX 4090",
 * "RTX A6000", "H100 NVL" and "AMD Instinct MI300X" need no row): the
 * names people type and the ones nvidia-smi prints. "A100" alone is left
 * out on purpose: 40 and 80 GB differ. */
static const tplan_alias aliases[] = {
    {"H100", "h100-sxm"},
    {"H100-SXM5", "h100-sxm"},
    {"H100-SXM5-80GB", "h100-sxm"},
    {"H100 80GB HBM3", "h100-sxm"}, /* nvidia-smi */
    {"H100-80GB", "h100-sxm"},
    {"H100 PCIe 80GB", "h100-pcie"},
    {"H800 SXM5", "h800"},
    {"H800-80GB", "h800"},
    {"H20 96GB", "h20"},
    {"GB200 NVL72", "gb200"},
    {"H200 SXM", "h200"},
    {"H200 141GB", "h200"},
    {"A100-80GB", "a100-80g"},
    {"A100-SXM4-80GB", "a100-80g"}, /* nvidia-smi */
    {"A100-SXM-80GB", "a100-80g"},
    {"A100-40GB", "a100-40g"},
    {"A100-SXM4-40GB", "a100-40g"}, /* nvidia-smi */
    {"V100-SXM2-16GB", "v100-16g"}, /* nvidia-smi */
    {"V100-16GB", "v100-16g"},
    {"V100-SXM2-32GB", "v100-32g"}, /* nvidia-smi */
    {"V100-32GB", "v100-32g"},
    {"A6000", "rtx-a6000"},
    {"RTX 6000 Ada Generation", "rtx6000-ada"}, /* nvidia-smi */
    {"GH200 480GB", "gh200"},                   /* nvidia-smi */
    {"4090", "rtx4090"},
    {"3090", "rtx3090"},
    {"5090", "rtx5090"},
};

enum { ALIAS_COUNT = sizeof aliases / sizeof aliases[0] };

/* What the GPU's usual server and PyTorch set aside on it, by catalog
 * name; a GPU not listed has no NVLS and PyTorch's default workspace.
 *
 * NVLS channels (docs/MODEL.md section 4.6). NVLink SHARP (NVLS): NCCL
 * turns it on by default (NCCL_NVLS_ENABLE=2) where the GPUs of a node
 * share third-generation NVSwitches with multicast, Hopper or later (NCCL
 * user guide, NCCL_NVLS_ENABLE: "NVLink SHARP is available in
 * third-generation NVSwitch systems (NVLink4) with Hopper and later GPU
 * architectures"; src/graph/search.cc turns it off
 * without an NVSwitch or below compute capability 9.0). Its channels
 * (src/transport/nvls.cc): NVLS_NCHANNELS_SM90 16; Blackwell from NCCL
 * 2.27 NVLS_NCHANNELS_SM100_NVL 24 in one node or multi-node NVLink
 * domain (GB200 NVL72), 32 for a communicator across nodes (not counted:
 * B200 groups over several nodes are under-counted by a quarter; NCCL
 * 2.26 takes 32 for every Blackwell group). HGX boards: H100 SXM, H200,
 * H800 and H20. None: A100 (second-generation NVSwitch, no multicast),
 * H100 PCIe and NVL (bridges), GH200 (nodes link their GPUs directly),
 * the PCIe cards and AMD.
 *
 * BLAS workspace (docs/MODEL.md section 4.1). The workspace PyTorch gives
 * cuBLAS per handle and stream when CUBLAS_WORKSPACE_CONFIG is not set
 * (aten/src/ATen/cuda/CublasHandlePool.cpp, parseChosenWorkspaceSize):
 * 32 MiB on compute capability 9.0 (Hopper: "32MiB for Hopper"),
 * ":4096:2:16:8" = 2 x 4 MiB + 8 x 16 KiB = 8.125 MiB on every other
 * NVIDIA GPU (Blackwell too: the test is major == 9 && minor == 0); on
 * ROCm hipBLAS(Lt) 32 MiB, 128 MiB for gfx94x/gfx95x (MI300 series and
 * later). One per handle and stream: a training step holds two (memory.c,
 * BLAS_WORKSPACES). */
#define BLAS_WS_DEFAULT_MIB 8.125
#define HOP TPLAN_FP8_ARCH_HOPPER
#define BLW TPLAN_FP8_ARCH_BLACKWELL
#define OTH TPLAN_FP8_ARCH_OTHER
/* The fp8 architecture (issue 34): Hopper (compute capability 9.0) and
 * Blackwell (10.0), whose recipe ratios are fitted below; the others keep
 * their family's fp8_ratio. */
static const struct {
    const char *gpu;
    int nvls_channels;
    double blas_ws_mib;
    tplan_fp8_arch fp8_arch;
} stack_facts[] = {
    {"h100-sxm", 16, 32, HOP},  {"h200", 16, 32, HOP},
    {"h800", 16, 32, HOP},      {"h20", 16, 32, HOP},
    {"h100-pcie", 0, 32, HOP},  {"h100-nvl", 0, 32, HOP},
    {"gh200", 0, 32, HOP},      {"mi250x", 0, 32, OTH},
    {"mi300x", 0, 128, OTH},    {"mi325x", 0, 128, OTH},
    {"b200", 24, BLAS_WS_DEFAULT_MIB, BLW},
    {"gb200", 24, BLAS_WS_DEFAULT_MIB, BLW}};
#undef HOP
#undef BLW
#undef OTH

static void fill_stack_facts(tplan_gpu *g)
{
    g->nvls_channels = 0;
    g->blas_ws_mib = BLAS_WS_DEFAULT_MIB;
    g->fp8_arch = TPLAN_FP8_ARCH_OTHER;
    for (size_t i = 0; i < sizeof stack_facts / sizeof stack_facts[0]; i++)
        if (strcmp(stack_facts[i].gpu, g->name) == 0) {
            g->nvls_channels = stack_facts[i].nvls_channels;
            g->blas_ws_mib = stack_facts[i].blas_ws_mib;
            g->fp8_arch = stack_facts[i].fp8_arch;
        }
}

/* fp8 matmul efficiency over the 16-bit one, per recipe and architecture
 * (docs/MODEL.md section 8.3; scripts/fit_fp8_recipes.sh prints the fits
 * from tests/data/fp8_recipes.tsv and tests/data/nemo_h100_pretrain.tsv).
 * Each was fitted under the nemo framework's other terms (eff_scale 1.11,
 * TP overlap): no published bf16 run of the same configuration on Hopper
 * separates the fp8 ratio from the 16-bit efficiency, so it holds that
 * framework's 16-bit assumption. */
/* Hopper, tensorwise: least squares on the relative error of the 11
 * DGX-H100 fp8 rows of NeMo 24.07-26.04.01 (nemo_h100_pretrain.tsv;
 * Llama 3.1 405B's four held out) over 0.88-1.00 by 0.01: rms 5.67%,
 * median 3.2%. */
#define FP8_HOPPER_TENSOR 0.94
/* delayed: the same GEMMs with a per-tensor scale; the 24.07 rows above
 * ran it (NeMo's default then) with the 25.11-26.x current-scaling rows
 * and the fit cannot tell them apart. Assumption: the same ratio. */
#define FP8_HOPPER_DELAYED FP8_HOPPER_TENSOR
/* Hopper, blockwise: DeepSeek-V3 on 1024 H100s, NeMo 25.09, 338
 * TFLOP/s per GPU per-tensor against 330 blockwise (1x128 activations,
 * 128x128 weights) in the same run (fp8_recipes.tsv): the ratio, by
 * 0.01, whose predicted slow-down matches 330/338 = 0.9763 with the
 * tensorwise one above (0.86: within 0.0012). */
#define FP8_HOPPER_BLOCK 0.86
/* Blackwell (DGX-B200), tensorwise and mxfp8: least squares on the
 * relative error of the B200 rows of Megatron-Bridge 25.11, Llama 3 8B on
 * 8 and Llama 3.1 405B on 128 GPUs, each published under both recipes
 * (fp8_recipes.tsv), over 0.60-1.00 by 0.01: tensorwise 0.92 (rms 5.5%:
 * 8B -6.5%, 405B +4.2%), mxfp8 0.86 (rms 6.0%: -6.7%, +5.3%). */
#define FP8_BLACKWELL_TENSOR 0.92
#define FP8_BLACKWELL_MX     0.86
/* Blackwell, blockwise: no published run. Assumption: Hopper's
 * blockwise-to-tensorwise ratio. */
#define FP8_BLACKWELL_BLOCK                                                  \
    (FP8_BLACKWELL_TENSOR * FP8_HOPPER_BLOCK / FP8_HOPPER_TENSOR)

double tplan_fp8_recipe_ratio(const tplan_gpu *g, tplan_fp8_recipe r)
{
    static const double hopper[TPLAN_FP8_RECIPE_COUNT] = {
        [TPLAN_FP8_TENSORWISE] = FP8_HOPPER_TENSOR,
        [TPLAN_FP8_DELAYED] = FP8_HOPPER_DELAYED,
        [TPLAN_FP8_BLOCKWISE] = FP8_HOPPER_BLOCK,
        [TPLAN_FP8_MXFP8] = -1.0};
    static const double blackwell[TPLAN_FP8_RECIPE_COUNT] = {
        [TPLAN_FP8_TENSORWISE] = FP8_BLACKWELL_TENSOR,
        [TPLAN_FP8_DELAYED] = FP8_BLACKWELL_TENSOR,
        [TPLAN_FP8_BLOCKWISE] = FP8_BLACKWELL_BLOCK,
        [TPLAN_FP8_MXFP8] = FP8_BLACKWELL_MX};

    if ((unsigned)r >= TPLAN_FP8_RECIPE_COUNT)
        return -1.0;
    if (g->fp8_arch == TPLAN_FP8_ARCH_HOPPER)
        return hopper[r];
    if (g->fp8_arch == TPLAN_FP8_ARCH_BLACKWELL)
        return blackwell[r];
    /* MX block scaling is a Blackwell tensor-core format: NVIDIA
     * publishes MXFP8 runs on B200, GB200 and GB300 only (Megatron-Bridge
     * docs/performance-summary*.md) */
    return r == TPLAN_FP8_MXFP8 ? -1.0 : g->fp8_ratio;
}

const char *tplan_fp8_recipe_name(tplan_fp8_recipe r)
{
    static const char *const names[] = {"tensorwise", "delayed", "blockwise",
                                        "mxfp8"};

    return (unsigned)r < TPLAN_FP8_RECIPE_COUNT ? names[r] : "?";
}

int tplan_gpu_lookup(const char *name, tplan_gpu *out, tplan_err *err)
{
    const char *names[GPU_COUNT];
    tplan_host h;
    int i;

    for (i = 0; i < GPU_COUNT; i++)
        names[i] = gpus[i].name;
    i = tplan_name_lookup(name, names, GPU_COUNT, aliases, ALIAS_COUNT, "gpu",
                          "GPU", "gpus", err);
    if (i < 0)
        return TPLAN_ENOTFOUND;
    *out = gpus[i];
    tplan_gpu_host(out, &h);
    out->host_bytes_per_gpu = h.memory_bytes_per_gpu;
    out->pcie_bytes_per_s = h.pcie_bytes_per_s;
    fill_stack_facts(out);
    return TPLAN_OK;
}

bool tplan_gpu_same(const tplan_gpu *a, const tplan_gpu *b)
{
    return strcmp(a->name, b->name) == 0 &&
           a->memory_bytes == b->memory_bytes &&
           a->mem_bw_bytes_per_s == b->mem_bw_bytes_per_s &&
           memcmp(a->peak_flops, b->peak_flops, sizeof a->peak_flops) == 0 &&
           a->link_bytes_per_s == b->link_bytes_per_s &&
           a->nic_bytes_per_s == b->nic_bytes_per_s &&
           a->gpus_per_node == b->gpus_per_node && a->tdp_w == b->tdp_w &&
           a->price_usd_per_h == b->price_usd_per_h &&
           a->eff_max == b->eff_max && a->eff_h0 == b->eff_h0 &&
           a->eff_tok0 == b->eff_tok0 && a->attn_eff == b->attn_eff &&
           a->fp8_ratio == b->fp8_ratio && a->eff_tp == b->eff_tp &&
           a->host_bytes_per_gpu == b->host_bytes_per_gpu &&
           a->pcie_bytes_per_s == b->pcie_bytes_per_s &&
           a->nvls_channels == b->nvls_channels &&
           a->blas_ws_mib == b->blas_ws_mib && a->fp8_arch == b->fp8_arch;
}

int tplan_gpu_validate(const tplan_gpu *g, tplan_err *err)
{
    bool any = false;

    if (g->memory_bytes <= 0)
        return tplan_err_set(err, TPLAN_EINVAL, "memory_bytes",
                             "memory_bytes must be positive (gpu=%s, "
                             "memory_bytes=%lld)",
                             g->name, (long long)g->memory_bytes);
    for (int i = 0; i < TPLAN_DTYPE_COUNT; i++) {
        if (!(g->peak_flops[i] >= 0.0) || isinf(g->peak_flops[i]))
            return tplan_err_set(err, TPLAN_EINVAL, "flops",
                                 "%s_flops must be >= 0 (gpu=%s, %s_flops=%g)",
                                 tplan_dtype_name((tplan_dtype)i), g->name,
                                 tplan_dtype_name((tplan_dtype)i),
                                 g->peak_flops[i]);
        any = any || g->peak_flops[i] > 0.0;
    }
    if (!(g->mem_bw_bytes_per_s > 0 && g->link_bytes_per_s > 0 &&
          g->nic_bytes_per_s > 0 && isfinite(g->mem_bw_bytes_per_s) &&
          isfinite(g->link_bytes_per_s) && isfinite(g->nic_bytes_per_s)))
        return tplan_err_set(err, TPLAN_EINVAL, "bandwidth",
                             "bandwidths must be positive (gpu=%s, "
                             "mem_bw=%g, link=%g, nic=%g bytes/s)",
                             g->name, g->mem_bw_bytes_per_s,
                             g->link_bytes_per_s, g->nic_bytes_per_s);
    if (!(g->tdp_w >= 0 && g->tdp_w < 1e6))
        return tplan_err_set(err, TPLAN_EINVAL, "tdp_w",
                             "tdp_w must be in [0, 1e6) watts (gpu=%s, "
                             "tdp_w=%g)",
                             g->name, g->tdp_w);
    if (!(g->price_usd_per_h >= 0 && g->price_usd_per_h < 1e6))
        return tplan_err_set(err, TPLAN_EINVAL, "price",
                             "price must be in [0, 1e6) USD per GPU-hour "
                             "(gpu=%s, price=%g)",
                             g->name, g->price_usd_per_h);
    if (!(g->eff_max > 0 && g->eff_max <= 1 && g->attn_eff > 0 &&
          g->attn_eff <= 1 && g->eff_h0 >= 0 && g->eff_tok0 >= 0 &&
          g->fp8_ratio >= 0 && g->fp8_ratio <= 1 && g->eff_h0 < 1e9 &&
          g->eff_tp >= 0 && g->eff_tp <= 0.5 && g->eff_tok0 < 1e12))
        return tplan_err_set(err, TPLAN_EINVAL, "efficiency",
                             "efficiency model out of range (gpu=%s, "
                             "eff_max=%g, attn_eff=%g, fp8_ratio=%g)",
                             g->name, g->eff_max, g->attn_eff, g->fp8_ratio);
    if (!(g->blas_ws_mib >= 0 && g->blas_ws_mib <= 4096))
        return tplan_err_set(err, TPLAN_EINVAL, "blas_ws_mib",
                             "blas_ws_mib must be in [0, 4096] (gpu=%s, "
                             "blas_ws_mib=%g)",
                             g->name, g->blas_ws_mib);
    if (g->nvls_channels < 0 || g->nvls_channels > 64)
        return tplan_err_set(err, TPLAN_EINVAL, "nvls_channels",
                             "nvls_channels must be in [0, 64] (gpu=%s, "
                             "nvls_channels=%d)",
                             g->name, g->nvls_channels);
    if (!any)
        return tplan_err_set(err, TPLAN_EINVAL, "flops",
                             "a GPU needs at least one peak FLOP/s figure "
                             "(gpu=%.64s)",
                             g->name);
    return TPLAN_OK;
}

const char *tplan_dtype_name(tplan_dtype d)
{
    static const char *const names[] = {"fp32", "tf32", "bf16", "fp16", "fp8"};

    return d >= 0 && d < TPLAN_DTYPE_COUNT ? names[d] : "?";
}

/* PCIe x16 per direction (PCI-SIG: Gen3 15.75, Gen4 31.5, Gen5 63 GB/s
 * after encoding). Assumption: pinned host <-> device copies reach 80% of
 * it, as CUDA's bandwidthTest typically shows (about 25 of Gen4's 31.5). */
#define PCIE_EFF 0.8
static const double pcie_gen_gbs[] = {0, 0, 0, 15.75, 31.5, 63.0};

/* Instance host memory per GPU (AWS EC2 instance pages: p4d.24xlarge and
 * p4de.24xlarge 1152 GiB for 8 A100, p5.48xlarge and p5e.48xlarge 2048 GiB
 * for 8 H100/H200, p3.2xlarge 61 GiB for 1 V100, p3dn.24xlarge 768 GiB for
 * 8 V100-32GB, g5.xlarge 16 GiB for 1 A10G, g6.xlarge 16 GiB for 1 L4,
 * g6e.xlarge 32 GiB for 1 L40S) and PCIe generation (NVIDIA/AMD
 * datasheets). 0 GiB: no sourced instance, twice the GPU's memory. */
static const struct {
    const char *gpu;
    double gib_per_gpu;
    int gen;
    const char *source;
} hosts[] = {
    {"a100-40g", 144, 4, "AWS p4d.24xlarge: 1152 GiB / 8 GPUs"},
    {"a100-80g", 144, 4, "AWS p4de.24xlarge: 1152 GiB / 8 GPUs"},
    {"h100-sxm", 256, 5, "AWS p5.48xlarge: 2048 GiB / 8 GPUs"},
    {"h100-pcie", 0, 5, "assumption: twice the GPU's memory"},
    {"h200", 256, 5, "AWS p5e.48xlarge: 2048 GiB / 8 GPUs"},
    {"b200", 0, 5, "assumption: twice the GPU's memory"},
    {"l4", 16, 4, "AWS g6.xlarge: 16 GiB, 1 GPU"},
    {"l40s", 32, 4, "AWS g6e.xlarge: 32 GiB, 1 GPU"},
    {"a10g", 16, 4, "AWS g5.xlarge: 16 GiB, 1 GPU"},
    {"v100-16g", 61, 3, "AWS p3.2xlarge: 61 GiB, 1 GPU"},
    {"v100-32g", 96, 3, "AWS p3dn.24xlarge: 768 GiB / 8 GPUs"},
    {"mi300x", 0, 5, "assumption: twice the GPU's memory"},
    {"rtx-a6000", 0, 4, "assumption: twice the GPU's memory"},
    {"rtx6000-ada", 0, 4, "assumption: twice the GPU's memory"},
    {"l40", 0, 4, "assumption: twice the GPU's memory"},
    {"rtx5090", 0, 5, "assumption: twice the GPU's memory"},
    {"h100-nvl", 0, 5, "assumption: twice the GPU's memory"},
};

void tplan_gpu_host(const tplan_gpu *g, tplan_host *out)
{
    int gen = 4;

    out->memory_bytes_per_gpu = 2.0 * (double)g->memory_bytes;
    out->source = "assumption: twice the GPU's memory";
    if (g->host_bytes_per_gpu > 0 && g->pcie_bytes_per_s > 0) {
        out->memory_bytes_per_gpu = g->host_bytes_per_gpu;
        out->pcie_bytes_per_s = g->pcie_bytes_per_s;
        out->source = "the GPU's own";
        return;
    }
    for (size_t i = 0; i < sizeof hosts / sizeof hosts[0]; i++) {
        if (strcmp(hosts[i].gpu, g->name) != 0)
            continue;
        gen = hosts[i].gen;
        out->source = hosts[i].source;
        if (hosts[i].gib_per_gpu > 0)
            out->memory_bytes_per_gpu =
                hosts[i].gib_per_gpu * 1024.0 * 1024.0 * 1024.0;
        break;
    }
    out->pcie_bytes_per_s = pcie_gen_gbs[gen] * G * PCIE_EFF;
}
