/* Step time: compute + pipeline bubble + exposed communication + optimizer
 * step. Communication that can overlap compute hides behind it up to the
 * config's overlap share; tensor-parallel traffic sits on the critical path
 * unless the stack overlaps it with the GEMMs (tp_overlap). */
#include "perf.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "inline_math.h"

/* Per-collective latency: NCCL small-message all-reduce takes ~10 us inside
 * an NVLink node and a few tens of us across an InfiniBand fabric
 * (nccl-tests); tree algorithms scale it with log2(n). Assumptions. */
#define LAT_INTRA_S 10e-6
#define LAT_INTER_S 30e-6

/* NCCL reaches ~75-80% of the NVLink line rate in all-reduce bus
 * bandwidth (nccl-tests #149: 8x A100-80GB ~200-230 of 300 GB/s) and
 * ~96% of the InfiniBand line rate (NCCL #812: 192 of 200 GB/s on a
 * DGX-A100). */
#define NVLINK_BUS_EFF 0.77
#define IB_BUS_EFF     0.96

/* Generic (non-transformer) models: a fixed share of eff_max, for lack of a
 * shape to reason from; --efficiency overrides it. 0.3 puts an A100 at 23%
 * of its fp16 peak, what ResNet-50 training reaches there: about 2,900
 * images/s per A100 with AMP (NVIDIA DeepLearningExamples ResNet-50 v1.5,
 * PyTorch; approximate) x 3 x 8.2 GFLOPs = 71 TFLOP/s. */
#define GENERIC_EFF_SHARE 0.3

/* Transformer GEMMs in fp32 on CUDA cores (a V100; A100s and later with
 * TF32 off, PyTorch's default for matmul since 1.12) fill the GPU at
 * smaller shapes than tensor-core GEMMs, whose curve (eff_max, eff_h0,
 * eff_tok0) the GPU families carry. Their own: the share of the fp32 peak
 * reached, 0.75, and the micro-batch tokens at half of it, 0.59 of
 * eff_tok0, fitted by least squares on the relative error of NVIDIA's
 * eight BERT-large V100 FP32 pre-training rows
 * (tests/data/bert_v100_nvidia.tsv, scripts/accuracy_bert.sh: median
 * error 56% -> 4%); eff_h0 shrinks by the fp32-to-16-bit peak ratio, an
 * assumption (an fp32 GEMM reaches its roofline's ridge at that much less
 * arithmetic intensity, 15.7/125 on a V100; every row has hidden 1024,
 * so they cannot tell it from the maximum). The attention core gets the
 * matmuls' value, an assumption (2-8% of the BERT rows' FLOPs: too little
 * to fit), and so is one curve for every family (AMD's CDNA runs fp32 on
 * matrix cores). eff_max and attn_eff stay the 16-bit curve's. */
#define FP32_EFF_MAX    0.75
#define FP32_TOK0_SHARE 0.59

/* DeepSpeed's CPU-Adam, shared by the GPUs of a node. Assumption: 1e9
 * parameters per second per node. DeepSpeed states only a relative figure
 * ("5x to 7x speedup over torch.optim.adam(W)", ops/adam/cpu_adam.py);
 * the step moves ~30 bytes per parameter (fp32 weight, gradient, two
 * moments read and written, the 16-bit copy written), so 1e9/s needs
 * ~30 GB/s of a server's DRAM bandwidth. docs/MODEL.md section 12.8. */
#define CPU_ADAM_PARAMS_PER_S 1e9

/* ceil(log2(n)) for n > 1: for a group's rank count, a whole number, the
 * bit width of n - 1, equal to libm's for every n up to 1e8 (checked one
 * by one on 2026-11-26; tests/test_perf.c checks up to 2^22; GPU counts
 * stop at 1e7); sweeps take several per plan and log2 was 3% of a
 * sweep's time */
static double ceil_log2(double n)
{
    if (n <= 1e8 && (double)(long long)n == n)
        return (double)(64 - __builtin_clzll((unsigned long long)n - 1));
    return ceil(log2(n));
}

/* A ring collective's time is its volume over the bandwidth plus its
 * latency term; the two are worked out apart so that a change of the
 * bandwidth alone re-uses them (tplan_ring, comm_volumes): the same
 * expressions, the same figures. */
static tplan_ring ring_allreduce(double bytes, double n, double lat_s)
{
    if (n <= 1)
        return (tplan_ring){false, 0.0, 0.0};
    return (tplan_ring){true, 2.0 * (n - 1.0) / n * bytes,
                        lat_s * ceil_log2(n)};
}

static tplan_ring ring_allgather(double bytes, double n, double lat_s)
{
    if (n <= 1)
        return (tplan_ring){false, 0.0, 0.0};
    return (tplan_ring){true, (n - 1.0) / n * bytes, lat_s * ceil_log2(n)};
}

static double ring_s(tplan_ring r, double bw)
{
    return r.on ? r.vol / bw + r.lat : 0.0;
}

double tplan_allreduce_s(double bytes, double n, double bw, double lat_s)
{
    return ring_s(ring_allreduce(bytes, n, lat_s), bw);
}

double tplan_allgather_s(double bytes, double n, double bw, double lat_s)
{
    return ring_s(ring_allgather(bytes, n, lat_s), bw);
}

double tplan_alltoall_s(double bytes, double n, double per_node, double link,
                        double nic, double lat_s)
{
    double intra, inter;

    if (n <= 1)
        return 0.0;
    per_node = tp_fmin(tp_fmax(per_node, 1.0), n);
    intra = bytes * (per_node - 1.0) / n / link;
    inter = bytes * (n - per_node) / n / nic;
    return tp_fmax(intra, inter) + lat_s * (n > per_node ? 2.0 : 1.0);
}

/* Node-limited dispatch: a token whose top_k copies go to `reach` =
 * min(max_nodes, nodes, copies) nodes crosses the network once per
 * remote one, (nodes - 1)/nodes of them on average (target nodes taken
 * as uniform, an assumption; each token assumed to use all max_nodes,
 * DeepSeek-V3's router picks top_k experts inside topk_group groups).
 * Over the link go the local copies and the forwarded ones: every copy
 * bound for another GPU of its target node, (per_node - 1)/per_node. */
double tplan_alltoall_nodes_s(double bytes, double n, double per_node,
                              double link, double nic, double lat_s,
                              double copies, double max_nodes)
{
    double nodes, reach, intra, inter;

    per_node = tp_fmin(tp_fmax(per_node, 1.0), n);
    if (max_nodes <= 0.0 || n <= per_node || copies <= 0.0)
        return tplan_alltoall_s(bytes, n, per_node, link, nic, lat_s);
    nodes = n / per_node;
    reach = tp_fmin(tp_fmin(max_nodes, nodes), copies);
    intra = bytes * (per_node - 1.0) / per_node / link;
    inter = bytes / copies * reach * (nodes - 1.0) / nodes / nic;
    return tp_fmax(intra, inter) + lat_s * 2.0;
}

static tplan_dtype compute_dtype(const tplan_config *c, bool *fallback)
{
    tplan_dtype d = tplan_precision_get(c->precision)->compute;

    *fallback = false;
    if (c->gpu.peak_flops[d] > 0)
        return d;
    *fallback = true;
    /* fp8 without fp8 units runs in 16 bits (bf16, else fp16: V100);
     * bf16 without bf16 units (V100) at the fp32 rate. */
    if (d == TPLAN_DTYPE_FP8 && c->gpu.peak_flops[TPLAN_DTYPE_BF16] > 0)
        return TPLAN_DTYPE_BF16;
    if (d == TPLAN_DTYPE_FP8 && c->gpu.peak_flops[TPLAN_DTYPE_FP16] > 0)
        return TPLAN_DTYPE_FP16;
    if (c->gpu.peak_flops[TPLAN_DTYPE_FP32] > 0)
        return TPLAN_DTYPE_FP32;
    /* a catalog entry without an fp32 rate: the nearest rate it has
     * (the plan says which, never a step of NaN) */
    {
        static const tplan_dtype order[] = {TPLAN_DTYPE_BF16, TPLAN_DTYPE_FP16,
                                            TPLAN_DTYPE_FP8};

        for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
            if (c->gpu.peak_flops[order[i]] > 0)
                return order[i];
    }
    return TPLAN_DTYPE_FP32;
}

/* Bandwidth of a collective over `size` ranks spaced `stride` apart in
 * the rank order. Inside a node it is the GPU's link. Across nodes NCCL
 * runs one ring per NIC, so the bus bandwidth is the node's NICs used by
 * the group (one per member in the node, DGX-style) up to the link's. */
static double group_bw(double size, double per_node, double link, double nic,
                       bool *inter)
{
    *inter = size > per_node;
    if (!*inter)
        return link * NVLINK_BUS_EFF;
    return tp_fmin(link * NVLINK_BUS_EFF, nic * IB_BUS_EFF * per_node);
}

/* Offload and paging (docs/MODEL.md section 12.8), seconds per step on one
 * GPU, exposed: ZeRO-Offload streams each micro-batch's 16-bit gradient
 * partition to the host under backward, runs the optimizer on the CPU
 * (no delayed update: DeepSpeed's default) and copies the updated 16-bit
 * weights back; ZeRO-Infinity fetches offloaded weights for the forward
 * and the backward of every micro-batch, prefetching under compute; NVMe
 * reads and writes the states once per step; paged states beyond the
 * GPU's room page in and out once per step. */
/* The compute that can hide expert, data-parallel and offload traffic:
 * what hides TP traffic (tp_overlap) hides nothing else. */
static double free_compute_s(const tplan_perf *out)
{
    return tp_fmax(0.0, out->compute_s - (out->tp_comm_s - out->tp_exposed_s));
}

/* Activation offloading (docs/MODEL.md section 12.10), seconds per step
 * exposed: each micro-batch copies its offloaded activations out while
 * its forward runs and back while its backward runs (torchtune and
 * Megatron-Core copy on a stream of their own, so the copy engines run
 * beside the kernels). Each direction hides under its own phase's
 * compute, what TP traffic leaves free of it: the forward is a third of
 * the model FLOPs (2 of 6 per parameter and token), the backward the
 * rest of the work, recomputation included. PCIe is full duplex and
 * pcie_gbs is one way; what else crosses the link (optimizer or weight
 * offload) is counted apart: an assumption, low where both run. */
static double act_offload_time(const tplan_memory *mem, double m,
                               double pcie, const tplan_perf *out)
{
    double one_way, fwd_share, free_s;

    if (!(mem->act_offload_mb_bytes > 0.0))
        return 0.0;
    one_way = m * mem->act_offload_mb_bytes / pcie;
    fwd_share = out->hw_flops_per_step > 0.0
                    ? tp_fmin(out->flops_per_step / 3.0 /
                                  out->hw_flops_per_step,
                              1.0)
                    : 1.0 / 3.0;
    free_s = free_compute_s(out);
    return tp_fmax(0.0, one_way - fwd_share * free_s) +
           tp_fmax(0.0, one_way - (1.0 - fwd_share) * free_s);
}

static void offload_time(const tplan_config *c, const tplan_memory *mem,
                         double m, tplan_perf *out)
{
    const tplan_precision_info *pi = tplan_precision_get(c->precision);
    const tplan_comm_shape *sh = &out->shape;
    double pcie = sh->pcie, nvme = sh->nvme, on_node = sh->on_node;
    double dp = (double)sh->shard; /* the ZeRO group */
    double part = (double)mem->trainable_on_device / (c->zero >= 1 ? dp : 1.0);
    double w = (double)mem->offload_weight_bytes;
    /* what can hide, up to the overlap share: weight fetches run under
     * forward and backward, gradient copies under backward only (2/3 of
     * compute), under the compute TP traffic leaves free */
    double window =
        tp_fmin(c->offload_params != TPLAN_OFFLOAD_NONE
                    ? c->overlap * out->compute_s
                    : tp_fmin(c->overlap, 2.0 / 3.0) * out->compute_s,
                free_compute_s(out));
    double hidden_t = 0.0;
    double exposed = 2.0 * (double)mem->paged_spill_bytes / pcie;

    if (c->offload_optimizer != TPLAN_OFFLOAD_NONE) {
        out->cpu_optimizer_s = part * on_node / CPU_ADAM_PARAMS_PER_S;
        hidden_t += m * part * pi->grad_bytes / pcie;
        exposed += part * pi->weight_bytes / pcie + out->cpu_optimizer_s;
        if (c->offload_optimizer == TPLAN_OFFLOAD_NVME)
            exposed +=
                2.0 * (double)mem->offload_state_bytes * on_node / nvme;
    }
    if (c->offload_params != TPLAN_OFFLOAD_NONE) {
        hidden_t += 2.0 * m * w / pcie;
        if (c->offload_params == TPLAN_OFFLOAD_NVME)
            hidden_t += 2.0 * m * w * on_node / nvme;
    }
    out->act_offload_s = act_offload_time(mem, m, pcie, out);
    out->offload_s = exposed + out->act_offload_s +
                     tp_fmax(0.0, hidden_t - window);
}

/* Data-parallel traffic of w weight bytes and g gradient bytes over n
 * ranks per step (Rajbhandari et al. 2020): stage 0/1 reduce gradients
 * once per step (ZeRO-1 then all-gathers the updated weights), stage 2
 * reduce-scatters every micro-batch, stage 3 also all-gathers the
 * weights for forward and for backward of every micro-batch: 1.5x the
 * volume of plain data parallelism. What runs after the step (ZeRO-1/2's
 * weight gather) goes to *after, not into the result.
 *
 * HSDP (docs/MODEL.md section 12.10): ZeRO's traffic runs within the
 * shard group (bw[0]), and the gradient shards are then all-reduced
 * across the replicas (bw[1]), as often as the gradients are reduced:
 * every micro-batch under ZeRO 2-3, once a step under ZeRO 1 (FSDP2's
 * HSDP reduce-scatters, then all-reduces the shard over the replicate
 * group, in each backward that syncs). One replica is plain ZeRO. The
 * collectives' volumes are worked out beforehand (dp_rings). */
static double hsdp_traffic(const tplan_config *c, const tplan_dp_rings *r,
                           const double bw[2], double m, double *after)
{
    double t;

    switch (c->zero) {
    case 0:
        t = ring_s(r->ar_g, bw[0]);
        break;
    case 1:
        *after += ring_s(r->ag_w, bw[0]);
        t = ring_s(r->ag_g, bw[0]);
        break;
    case 2:
        *after += ring_s(r->ag_w, bw[0]);
        t = m * ring_s(r->ag_g, bw[0]);
        break;
    default:
        /* reshard_after_forward=false: the forward's gather stays for
         * the backward (FSDP2), 2x the volume of plain DP, not 3x */
        t = m * ((c->reshard_after_forward ? 2.0 : 1.0) *
                     ring_s(r->ag_w, bw[0]) +
                 ring_s(r->ag_g, bw[0]));
        break;
    }
    if (r->replicas && c->zero >= 1)
        t += (c->zero >= 2 ? m : 1.0) * ring_s(r->ar_rep, bw[1]);
    return t;
}

/* The rings of hsdp_traffic: w and g bytes over a shard group of `shard`
 * ranks (latency lat[0]) and `rep` replicas (lat[1]). */
static void dp_rings(double w, double g, double shard, double rep,
                     const double lat[2], tplan_dp_rings *r)
{
    r->ag_w = ring_allgather(w, shard, lat[0]);
    r->ag_g = ring_allgather(g, shard, lat[0]);
    r->ar_g = ring_allreduce(g, shard, lat[0]);
    r->replicas = rep > 1.0;
    r->ar_rep = ring_allreduce(g / shard, rep, lat[1]);
}

/* Expert and context parallelism (docs/MODEL.md section 13.4), seconds
 * per step on one GPU. Megatron-LM's rank order is tp-cp-ep-dp-pp: a CP
 * group's ranks are tp apart, an EP group's etp*cp apart (etp = tp
 * unless given: the expert grid etp-ep-edp).
 *
 * Experts: Megatron's all-to-all token dispatcher sends each MoE layer's
 * routed tokens to their experts and back, twice forward (dispatch,
 * combine) and twice backward, again forward under full recomputation.
 * A rank holds b s / (cp t) tokens (sequence parallelism splits them
 * over the tensor-parallel ranks; Megatron asks for it with MoE and tp),
 * sends top_k copies of each, times the busiest rank's load. fp8 recipes
 * dispatch in fp8 and combine in bf16 (DeepSeek-V3 report section 3.3).
 * The traffic can hide under compute up to moe_overlap (DeepSeek's
 * DualPipe overlaps it; Megatron by default does not).
 *
 * Context: ring attention (TransformerEngine's P2P CP, Megatron's
 * default) passes K and V chunks of s/cp tokens around the ring, cp - 1
 * times forward, and K, V and their gradients backward, each step
 * overlapped with the attention on the chunk at hand: what exceeds the
 * attention time is exposed. */
static void ep_cp_time(const tplan_config *c, const tplan_memory *mem,
                       double m, double attn_s, double link, double nic,
                       double gpn, tplan_perf *out)
{
    const tplan_model *mo = &c->model;
    const tplan_precision_info *pi = tplan_precision_get(c->precision);
    double t = (double)c->tp, cp = (double)c->cp, s = (double)c->seq;
    double act = pi->act == TPLAN_ACT_FP32 ? 4.0 : 2.0;
    double fwd = c->recompute == TPLAN_RECOMPUTE_FULL ? 2.0 : 1.0;
    /* the MoE layer's forward runs twice under full recomputation or the
     * moe module (Megatron-Core's checkpoint reruns dispatch and combine) */
    double moe_fwd =
        fwd + ((tplan_config_rc_modules(c) & TPLAN_RC_MOE) ? 1.0 : 0.0);
    double layers = (double)mem->layers_on_stage;
    double b = (double)mem->micro_batch;
    if (c->ep > 1) {
        double ep = (double)c->ep;
        double per_node = out->shape.ep_node;
        /* the busiest stage's MoE layers: a stage of ceil(L/p) layers
         * that are all MoE (a middle one when the first layers are
         * dense), or every MoE layer when there are fewer */
        double moe_layers = out->shape.moe_layers;
        double tokens = b * s / (cp * t) * (double)mo->top_k *
                        tplan_config_moe_load(c) * (double)mo->hidden;
        double disp = tokens * (pi->compute == TPLAN_DTYPE_FP8 ? 1.0 : act);
        double comb = tokens * act;
        double copies = (double)mo->top_k, lim = (double)mo->moe_max_nodes;
        double lat;
        double lk = link * NVLINK_BUS_EFF, nc = nic * IB_BUS_EFF;

        out->ep_inter_node = ep > per_node;
        lat = out->ep_inter_node ? LAT_INTER_S : LAT_INTRA_S;
        out->ep_comm_s =
            m * moe_layers *
            ((moe_fwd + 1.0) *
             (tplan_alltoall_nodes_s(disp, ep, per_node, lk, nc, lat, copies,
                                     lim) +
              tplan_alltoall_nodes_s(comb, ep, per_node, lk, nc, lat, copies,
                                     lim)));
        out->ep_exposed_s =
            out->ep_comm_s -
            tp_fmin(c->moe_overlap * out->ep_comm_s, free_compute_s(out));
    }
    if (c->cp > 1) {
        double chunk = (double)tplan_model_kv_elems(mo) * b * s / cp / t * act;
        bool inter = t * cp > gpn;
        double bw = inter ? nic * IB_BUS_EFF : link * NVLINK_BUS_EFF;
        double lat = inter ? LAT_INTER_S : LAT_INTRA_S;
        /* per layer and micro-batch: K,V forward (again when recomputed),
         * K,V and dK,dV backward */
        double steps = (cp - 1.0) * (fwd + 2.0);
        double per_layer = steps * (chunk / bw + lat);
        double attn_layer = attn_s / (m * tp_fmax(layers, 1.0));

        out->cp_inter_node = inter;
        out->cp_comm_s = m * layers * per_layer;
        out->cp_exposed_s = m * layers * tp_fmax(0.0, per_layer - attn_layer);
    }
}

/* DualPipe overlaps each paired forward and backward chunk's expert
 * all-to-all and pipeline sends with the other chunk's compute
 * (DeepSeek-V3 section 3.2.1, Figure 4): what the paired share of the
 * traffic needs, up to the paired share of the compute TP traffic leaves
 * free, the all-to-all first. moe_overlap, when larger, raises the share
 * of the all-to-all (and of the compute) that hides it. */
static void dualpipe_hide(const tplan_config *c, tplan_perf *out)
{
    double share = tp_fmax(out->paired_share, c->moe_overlap);
    double window = share * free_compute_s(out);
    double ep_hidden = tp_fmin(share * out->ep_comm_s, window);
    double pp_hidden = tp_fmin(out->paired_share * out->pp_comm_s,
                               tp_fmax(window - ep_hidden, 0.0));

    out->ep_exposed_s = out->ep_comm_s - ep_hidden;
    out->pp_exposed_s = out->pp_comm_s - pp_hidden;
}

/* Achieved matmul and attention efficiency. */
static void efficiency(const tplan_config *c, const tplan_memory *mem,
                       tplan_dtype d, double log2_tp, double *mm, double *attn)
{
    const tplan_gpu *g = &c->gpu;
    double x, tok, emax, h0, tok0;

    if (c->efficiency > 0) {
        *mm = *attn = c->efficiency;
        return;
    }
    if (c->model.arch == TPLAN_ARCH_GENERIC) {
        *mm = *attn =
            tp_fmin(g->eff_max * GENERIC_EFF_SHARE * c->eff_scale, 1.0);
        return;
    }
    /* Small models and few tokens per micro-batch make small GEMMs that
     * cannot fill the GPU: both saturate towards eff_max. Tensor
     * parallelism narrows the GEMMs further, which costs less (Megatron
     * keeps 43-52% of peak at t = 8, Narayanan 2021 Table 1): a separate
     * loss per doubling of t. */
    x = (double)c->model.hidden;
    tok = (double)mem->micro_batch * (double)(c->seq / c->cp);
    /* the GPU's 16-bit curve, or fp32's own (FP32_EFF_MAX) */
    emax = g->eff_max;
    h0 = g->eff_h0;
    tok0 = g->eff_tok0;
    if (d == TPLAN_DTYPE_FP32) {
        double tensor = tp_fmax(g->peak_flops[TPLAN_DTYPE_FP16],
                                g->peak_flops[TPLAN_DTYPE_BF16]);

        emax = FP32_EFF_MAX;
        if (tensor > g->peak_flops[TPLAN_DTYPE_FP32])
            h0 *= g->peak_flops[TPLAN_DTYPE_FP32] / tensor;
        tok0 *= FP32_TOK0_SHARE;
    }
    *mm = emax * x / (x + h0) * tok / (tok + tok0) *
          tp_fmax(0.5, 1.0 - g->eff_tp * log2_tp);
    *attn = d == TPLAN_DTYPE_FP32 ? *mm : g->attn_eff;
    if (d == TPLAN_DTYPE_FP8) {
        double r = tplan_config_fp8_ratio(c);

        *mm *= r > 0 ? r : 1.0;
    }
    /* Eager attention materialises the s x s scores: memory-bound softmax
     * and masking. Assumption: half the fused kernel's efficiency. */
    if (c->attention == TPLAN_ATTN_EAGER)
        *attn *= 0.5;
    /* the framework's kernels against the fitted model (section 14) */
    *mm = tp_fmin(*mm * c->eff_scale, 1.0);
    *attn = tp_fmin(*attn * c->eff_scale, 1.0);
}

/* What comm_and_total reads that no communication-class field moves
 * (tplan_comm_shape), of the layout alone: worked out with the compute,
 * kept by a batch-staged evaluation (tplan_perf_eval_staged). */
static void comm_layout(const tplan_config *c, tplan_comm_shape *sh)
{
    int64_t etp = tplan_config_etp(c);

    sh->dp_key[0] = -1; /* no rings yet (comm_volumes) */

    sh->dp = tplan_config_dp(c);
    sh->gpn = (double)tplan_config_gpus_per_node(c);
    sh->tp_node = (double)tplan_config_group_in_node(c, c->tp, 1);
    sh->dp_node = (double)tplan_config_group_in_node(c, sh->dp * c->cp, c->tp);
    sh->layers = (double)tplan_config_stage_layers(c);
    sh->etp = (double)etp;
    /* the groups only some layouts have: worked out where they exist */
    sh->etp_node = sh->moe_layers = sh->ep_node = 0.0;
    sh->shard_node = sh->rep_node = 0.0;
    if (tplan_model_moe(&c->model) || c->ep > 1) {
        sh->etp_node = (double)tplan_config_group_in_node(c, etp, 1);
        sh->moe_layers = tp_fmin(
            sh->layers,
            (double)tplan_model_moe_layers(&c->model, 0, c->model.layers));
        sh->ep_node =
            (double)tplan_config_group_in_node(c, c->ep, etp * c->cp);
    }
    sh->shard = tplan_config_zero_group(c);
    sh->rep = tplan_config_zero_replicas(c);
    if (sh->rep > 1) {
        sh->shard_node =
            (double)tplan_config_group_in_node(c, sh->shard, c->tp);
        sh->rep_node =
            (double)tplan_config_group_in_node(c, sh->rep, c->tp * sh->shard);
    }
    sh->edp = (double)tplan_config_edp(c);
    sh->pcie = tplan_config_pcie(c);
    sh->nvme = tplan_config_nvme(c);
    sh->on_node = (double)tplan_config_gpus_on_node(c);
}

/* The collectives' volumes and latency terms of a step (the shape's
 * rings): what the layout, the memory and the batch decide; their
 * groups' rank counts and whether they cross nodes are the layout's. */
static void comm_volumes(const tplan_config *c, const tplan_memory *mem,
                         tplan_comm_shape *sh)
{
    const tplan_precision_info *pi = tplan_precision_get(c->precision);
    double t = (double)c->tp, m = (double)c->accum, v = (double)c->vpp;
    double b = (double)mem->micro_batch;
    double s_rank = (double)c->seq / (double)c->cp;
    double act_bytes = pi->act == TPLAN_ACT_FP32 ? 4.0 : 2.0;
    double gather_bytes = pi->compute == TPLAN_DTYPE_FP32 ? 4.0 : 2.0;

    /* Tensor parallelism: 4 all-reduces of s b h activations per layer
     * per micro-batch (2 forward, 2 backward; Narayanan 2021 section
     * 3.2), 2 more when full recomputation repeats the forward. Sequence
     * parallelism swaps each for an all-gather + reduce-scatter pair of
     * the same volume. */
    sh->tp_on = (c->tp > 1 || sh->etp > 1.0) &&
                c->model.arch != TPLAN_ARCH_GENERIC;
    sh->etp_on = false;
    if (sh->tp_on) {
        double n_ar = c->recompute == TPLAN_RECOMPUTE_FULL ? 6.0 : 4.0;
        double msg = s_rank * b * (double)c->model.hidden * act_bytes;
        double te = sh->etp;

        sh->tp_k = m * sh->layers * n_ar;
        sh->tp_ring = ring_allreduce(
            msg, t, t > sh->tp_node ? LAT_INTER_S : LAT_INTRA_S);
        /* Expert-tensor parallelism apart from tp: an MoE layer's MLP
         * half of the collectives (half of n_ar) runs over the etp group
         * instead (Megatron-Core token_dispatcher.py, the all-to-all
         * dispatcher's dispatch_postprocess gathers the routed tokens
         * over the expert-tensor group and combine_preprocess
         * reduce-scatters them), etp/tp times the tokens a tp rank holds
         * (the group spans etp/tp of a tp group's tokens). At etp = tp it
         * is the term it replaces; the group is the expert grid's
         * innermost. */
        if (te != t && tplan_model_moe(&c->model)) {
            sh->etp_on = true;
            sh->etp_k = m * sh->moe_layers * n_ar / 2.0;
            sh->etp_ring = ring_allreduce(
                msg * te / t, te,
                te > sh->etp_node ? LAT_INTER_S : LAT_INTRA_S);
        }
    }
    /* Pipeline: each micro-batch sends its activations forward and their
     * gradients back, split over the TP ranks (scatter/gather); the
     * interleaved schedule communicates v times as often. A hop is one
     * GPU-to-GPU transfer: one NIC across nodes. */
    sh->pp_on = c->pp > 1;
    if (sh->pp_on) {
        sh->pp_msg = s_rank * b * (double)c->model.hidden * act_bytes / t;
        sh->pp_lat = (double)c->gpus > sh->gpn ? LAT_INTER_S : LAT_INTRA_S;
        sh->pp_k = 2.0 * m * v;
    }
    /* Data parallelism and ZeRO over the data x context-parallel group
     * (context-parallel ranks hold the same weights). Only trainable
     * parameters have gradients to reduce; routed experts reduce over
     * the expert-data-parallel group, their group less the replicas
     * (validation: these divide it). HSDP: the shard group lies
     * innermost in the data-parallel ranks (FSDP2's mesh (replicate,
     * shard): a shard group of up to a node's GPUs / tp stays in the
     * node), the replicas group's ranks tp x shard apart. */
    sh->dp_on = (double)sh->dp * (double)c->cp > 1;
    /* the rings hold while the weights they move do (a batch-staged run
     * of the same layout: comm_layout clears the key) */
    if (sh->dp_on && sh->dp_key[0] == mem->params_on_device &&
        sh->dp_key[1] == mem->trainable_on_device &&
        sh->dp_key[2] == mem->experts_on_device)
        return;
    sh->dp_key[0] = mem->params_on_device;
    sh->dp_key[1] = mem->trainable_on_device;
    sh->dp_key[2] = mem->experts_on_device;
    sh->dp_experts_on = false;
    if (sh->dp_on) {
        double ex = (double)mem->experts_on_device;
        double shard = (double)sh->shard, rep = (double)sh->rep;
        double lats[2];

        if (sh->rep > 1) {
            lats[0] = shard > sh->shard_node ? LAT_INTER_S : LAT_INTRA_S;
            lats[1] = rep > sh->rep_node ? LAT_INTER_S : LAT_INTRA_S;
        } else {
            lats[0] = lats[1] = (double)(sh->dp * c->cp) > sh->dp_node
                                    ? LAT_INTER_S
                                    : LAT_INTRA_S;
        }
        dp_rings(((double)mem->params_on_device - ex) * gather_bytes,
                 ((double)mem->trainable_on_device - ex) * pi->grad_bytes,
                 shard, rep, lats, &sh->dp_dense);
        if (ex > 0 && sh->edp > 1) {
            sh->dp_experts_on = true;
            dp_rings(ex * gather_bytes, ex * pi->grad_bytes, sh->edp / rep,
                     rep, lats, &sh->dp_experts);
        }
    }
}

/* The rest of the shape: what the memory and the accumulation decide. */
static void comm_shape(const tplan_config *c, const tplan_memory *mem,
                       tplan_comm_shape *sh)
{
    const tplan_precision_info *pi = tplan_precision_get(c->precision);
    double m = (double)c->accum;

    sh->optimizer_s = sh->dequant_s = 0.0;
    /* The optimizer step streams the trainable weights, gradients and
     * states through HBM: read all, write weights and states. Frozen and
     * offloaded weights are not touched. */
    if (c->offload_optimizer == TPLAN_OFFLOAD_NONE) {
        double w = c->lora_rank > 0 || c->offload_params != TPLAN_OFFLOAD_NONE
                       ? (double)mem->trainable_on_device * pi->weight_bytes /
                             (c->zero >= 3 ? (double)sh->shard : 1.0)
                       : (double)mem->weights_bytes;

        sh->optimizer_s = (2.0 * w + (double)mem->grads_bytes +
                           2.0 * (double)mem->optimizer_bytes) /
                          c->gpu.mem_bw_bytes_per_s;
    }
    /* A quantized base is dequantized to 16 bits at every use: forward,
     * backward (the input gradient) and the recomputed forward; each use
     * reads the stored bytes and writes 2 bytes per element (bitsandbytes
     * dequantize_4bit before a 16-bit matmul). Memory-bound. */
    if (mem->quant_elems > 0) {
        double uses = c->recompute == TPLAN_RECOMPUTE_FULL ? 3.0 : 2.0;

        sh->dequant_s =
            m * uses * mem->quant_elems *
            (tplan_base_elem_bytes(c->base_precision, c->double_quant) + 2.0) /
            c->gpu.mem_bw_bytes_per_s;
    }
    sh->offload_on = c->offload_optimizer != TPLAN_OFFLOAD_NONE ||
                     c->offload_params != TPLAN_OFFLOAD_NONE ||
                     mem->paged_spill_bytes != 0 ||
                     mem->act_offload_mb_bytes > 0.0 || !(sh->pcie > 0.0);
    comm_volumes(c, mem, sh);
}

static tplan_comm_knobs comm_knobs(const tplan_config *c)
{
    return (tplan_comm_knobs){c->link_bytes_per_s, c->overlap,
                              c->dp_bw_eff,        c->zero3_bw_eff,
                              c->zero12_overlap,   c->tp_overlap};
}

static bool knobs_same(const tplan_comm_knobs *a, const tplan_comm_knobs *b)
{
    /* by value, field by field: no padding compared */
    return a->link == b->link && a->overlap == b->overlap &&
           a->dp_bw_eff == b->dp_bw_eff && a->zero3_bw_eff == b->zero3_bw_eff &&
           a->zero12_overlap == b->zero12_overlap &&
           a->tp_overlap == b->tp_overlap;
}

/* The pipeline's sends and receives at bw_pp bytes/s (0 without a
 * pipeline: comm_and_total cleared them) */
static void pp_time(const tplan_comm_shape *sh, double bw_pp, tplan_perf *out)
{
    if (sh->pp_on)
        out->pp_comm_s = sh->pp_k * (sh->pp_msg / bw_pp + sh->pp_lat);
}

/* Data-parallel and ZeRO traffic (sh->dp_on) at the bandwidths of
 * dp_time's terms (out->nic's dp_eff, dp_window, dp_hide), bw_dp the DP
 * x CP group's: dp_comm_s and dp_exposed_s written in full, and with
 * HSDP whether its groups cross nodes */
static void dp_time_at(const tplan_config *c, double bw_dp, double link,
                       double nic, double m, tplan_perf *out)
{
    const tplan_comm_shape *sh = &out->shape;
    double eff = out->nic.dp_eff, after = 0.0;
    double bws[2], hidden;

    if (sh->rep > 1) {
        bool in_inter, x_inter;

        bws[0] =
            group_bw((double)sh->shard, sh->shard_node, link, nic, &in_inter) *
            eff;
        bws[1] =
            group_bw((double)sh->rep, sh->rep_node, link, nic, &x_inter) * eff;
        out->dp_inter_node = in_inter || x_inter;
    } else {
        bws[0] = bws[1] = bw_dp * eff;
    }
    out->dp_comm_s = hsdp_traffic(c, &sh->dp_dense, bws, m, &after);
    if (sh->dp_experts_on)
        out->dp_comm_s += hsdp_traffic(c, &sh->dp_experts, bws, m, &after);
    /* a framework may hide less of ZeRO 0-2's traffic (section 14) */
    hidden = tp_fmin(out->nic.dp_hide * out->dp_comm_s, out->nic.dp_window);
    out->dp_exposed_s = out->dp_comm_s - hidden;
    /* ZeRO-1/2 gather the updated weights after the step: exposed. */
    out->dp_comm_s += after;
    out->dp_exposed_s += after;
}

/* Data-parallel and ZeRO traffic (sh->dp_on), bw_dp the DP x CP group's
 * bandwidth: its terms that read no NIC speed (out->nic), then
 * dp_time_at */
static void dp_time(const tplan_config *c, double bw_dp, double link,
                    double nic, double m, tplan_perf *out)
{
    double fwd_bwd_mb = out->compute_s / m, window;

    /* the framework's collectives reach a share of the modelled
     * bandwidth (section 14) */
    out->nic.dp_eff = c->zero >= 3 ? c->zero3_bw_eff : c->dp_bw_eff;
    switch (c->zero) {
    case 0:
    case 1:
        window = fwd_bwd_mb * 2.0 / 3.0; /* the last backward */
        break;
    case 2:
        window = out->compute_s * 2.0 / 3.0; /* every backward */
        break;
    default:
        window = out->compute_s; /* prefetch in forward and backward */
        break;
    }
    out->nic.dp_window = tp_fmin(window, free_compute_s(out));
    /* the hidden share's factor: overlap x (ZeRO 0-2's share), the
     * product's first two terms, multiplied by the traffic in
     * dp_time_at in the same order */
    out->nic.dp_hide = c->overlap * (c->zero >= 3 ? 1.0 : c->zero12_overlap);
    dp_time_at(c, bw_dp, link, nic, m, out);
}

/* The step time from its parts, and what follows from it, at
 * out->nic.samples samples a step */
static void totals_at(const tplan_config *c, tplan_perf *out)
{
    double gpus = (double)c->gpus, samples = out->nic.samples;
    double peak_mm = out->peak_flops;

    out->step_time_s = out->compute_s + out->bubble_s + out->tp_exposed_s +
                       out->pp_exposed_s + out->dp_exposed_s + out->optimizer_s +
                       out->dequant_s + out->offload_s + out->ep_exposed_s +
                       out->cp_exposed_s;
    out->samples_per_s = samples / out->step_time_s;
    out->tokens_per_s = out->samples_per_s * (double)c->seq;
    out->mfu = out->flops_per_step / (out->step_time_s * gpus * peak_mm);
    out->hfu = out->hw_flops_per_step / (out->step_time_s * gpus * peak_mm);
    out->compute_fraction = out->compute_s / out->step_time_s;
    out->step_time_s_lo = out->step_time_s * (1.0 - c->time_band_lo);
    out->step_time_s_hi = out->step_time_s * (1.0 + c->time_band_hi);
}

/* totals_at, the samples a step worked out (kept in out->nic for
 * nic_rerun's totals_at: no NIC speed moves them) */
static void totals(const tplan_config *c, const tplan_memory *mem,
                   tplan_perf *out)
{
    double m = (double)c->accum;

    out->nic.samples = (double)mem->micro_batch * (double)out->shape.dp * m;
    totals_at(c, out);
}

/* comm_and_total's work where the figures it clears are 0 already
 * (perf_eval's memset; issue 38: a staged time cleared them twice) */
static void comm_fresh(const tplan_config *c, const tplan_memory *mem,
                       tplan_perf *out)
{
    const tplan_precision_info *pi = tplan_precision_get(c->precision);
    double gpus = (double)c->gpus, m = (double)c->accum;
    const tplan_comm_shape *sh = &out->shape;
    double link =
        c->link_bytes_per_s > 0 ? c->link_bytes_per_s : c->gpu.link_bytes_per_s;
    double nic =
        c->nic_bytes_per_s > 0 ? c->nic_bytes_per_s : c->gpu.nic_bytes_per_s;
    double bw_tp, bw_dp, bw_pp;
    bool mirror_on;

    out->knobs = comm_knobs(c);
    /* Megatron's rank order puts TP innermost, then CP, EP and DP, then
     * PP (tp-cp-ep-dp-pp). */
    bw_tp = group_bw((double)c->tp, sh->tp_node, link, nic,
                     &out->tp_inter_node);
    bw_dp = group_bw((double)(sh->dp * c->cp), sh->dp_node, link, nic,
                     &out->dp_inter_node);
    out->pp_inter_node = gpus > sh->gpn && c->pp > 1;
    bw_pp = out->pp_inter_node ? nic * IB_BUS_EFF : link * NVLINK_BUS_EFF;
    if (sh->tp_on) {
        out->tp_comm_s = sh->tp_k * ring_s(sh->tp_ring, bw_tp);
        if (sh->etp_on) {
            bool inter = false;
            double bw_etp = group_bw(sh->etp, sh->etp_node, link, nic, &inter);

            out->tp_comm_s += sh->etp_k * (ring_s(sh->etp_ring, bw_etp) -
                                           ring_s(sh->tp_ring, bw_tp));
            out->tp_inter_node = out->tp_inter_node || inter;
        }
    }
    /* A stack that overlaps TP collectives with the GEMMs around them
     * (Transformer Engine userbuffers, tp_comm_overlap in NeMo and
     * Megatron-Bridge's performance recipes) hides up to tp_overlap of
     * them, at most the compute (section 5.7); 0 by default (Megatron-LM's
     * tp_comm_overlap is off). */
    out->tp_exposed_s = out->tp_comm_s -
                        tp_fmin(c->tp_overlap * out->tp_comm_s, out->compute_s);
    pp_time(sh, bw_pp, out);
    if (c->ep > 1 || c->cp > 1)
        ep_cp_time(c, mem, m, out->attn_core_s, link, nic, sh->gpn, out);
    out->pp_exposed_s = out->pp_comm_s;
    if (out->paired_share > 0)
        dualpipe_hide(c, out);
    if (sh->dp_on)
        dp_time(c, bw_dp, link, nic, m, out);
    /* DualPipe: each stage's two copies (on mirrored ranks) sum their
     * gradients after the backward (deepseek-ai/DualPipe
     * examples/example_dualpipe.py), a two-rank all-reduce of the
     * rank's gradients over the pipeline's link; exposed (an
     * assumption) */
    mirror_on = tplan_config_pp_schedule(c) == TPLAN_PP_DUALPIPE && c->pp > 1;
    if (mirror_on) {
        double mirror = tplan_allreduce_s(
            (double)mem->trainable_on_device * pi->grad_bytes, 2.0, bw_pp,
            out->pp_inter_node ? LAT_INTER_S : LAT_INTRA_S);

        out->dp_comm_s += mirror;
        out->dp_exposed_s += mirror;
    }
    out->optimizer_s = sh->optimizer_s;
    out->dequant_s = sh->dequant_s;
    /* nothing offloaded or paged: no host traffic (offload_time's terms
     * are all 0 then, at any finite host-link speed) */
    if (sh->offload_on)
        offload_time(c, mem, m, out);
    else
        out->act_offload_s = 0.0;
    totals(c, mem, out);
    /* where a new NIC speed reaches only the pipeline's hops and the
     * DP/ZeRO traffic (tplan_perf_eval_comm, nic_rerun): no TP group
     * across nodes (its time moves what hides the rest, offload
     * included), no expert or context parallelism, no DualPipe (paired
     * hiding or the mirrors' all-reduce, which read both) */
    out->nic.partial = !out->tp_inter_node && c->ep <= 1 && c->cp <= 1 &&
                       !(out->paired_share > 0) && !mirror_on;
    out->nic.inter = out->tp_inter_node || out->dp_inter_node ||
                     out->pp_inter_node || out->ep_inter_node ||
                     out->cp_inter_node;
}

/* Communication, the optimizer step and the totals: what follows the
 * compute of a step (tplan_perf_eval_comm re-runs it alone): the
 * bandwidths from the communication-class fields, the times of the
 * shape's collectives at them, what hides under compute. */
static void comm_and_total(const tplan_config *c, const tplan_memory *mem,
                           tplan_perf *out)
{
    /* everything this part sets, cleared: a re-run starts where a first
     * evaluation would */
    out->tp_comm_s = out->pp_comm_s = out->dp_comm_s = out->dp_exposed_s = 0;
    out->pp_exposed_s = 0;
    out->tp_exposed_s = 0;
    out->optimizer_s = out->dequant_s = out->offload_s = 0;
    out->cpu_optimizer_s = out->ep_comm_s = out->ep_exposed_s = 0;
    out->cp_comm_s = out->cp_exposed_s = 0;
    out->dp_inter_node = out->tp_inter_node = out->pp_inter_node = false;
    out->ep_inter_node = out->cp_inter_node = false;
    comm_fresh(c, mem, out);
}

/* comm_and_total after only the NIC's speed changed, where out->nic
 * .partial says that reaches the pipeline's hops and the DP/ZeRO traffic
 * alone: those of them that cross nodes again, by the same code, and the
 * totals. What else comm_and_total writes reads no NIC speed and stands
 * (issue 38: a NIC axis's re-evaluations). */
static void nic_rerun(const tplan_config *c, tplan_perf *out)
{
    const tplan_comm_shape *sh = &out->shape;
    double link =
        c->link_bytes_per_s > 0 ? c->link_bytes_per_s : c->gpu.link_bytes_per_s;
    double nic =
        c->nic_bytes_per_s > 0 ? c->nic_bytes_per_s : c->gpu.nic_bytes_per_s;

    if (out->pp_inter_node) {
        pp_time(sh, nic * IB_BUS_EFF, out);
        out->pp_exposed_s = out->pp_comm_s;
    }
    if (out->dp_inter_node) {
        bool inter;
        double bw_dp =
            group_bw((double)(sh->dp * c->cp), sh->dp_node, link, nic, &inter);

        /* dp_time's terms as comm_and_total's dp_time left them, where
         * it ran (dp_on) */
        if (sh->dp_on)
            dp_time_at(c, bw_dp, link, nic, (double)c->accum, out);
        else
            dp_time(c, bw_dp, link, nic, (double)c->accum, out);
    }
    /* comm_and_total's totals worked out the samples */
    totals_at(c, out);
}

bool tplan_perf_eval_comm(const tplan_config *c, const tplan_memory *mem,
                          tplan_perf *out)
{
    tplan_comm_knobs k;
    bool same;

    if (!out->timed)
        return false;
    /* Every NIC read is a group across nodes (group_bw, the pipeline's
     * hop, context parallelism's ring): one inside a node reads the link;
     * the expert all-to-all's NIC share is 0 bytes then (finite NIC
     * speeds only: the field's range). */
    k = comm_knobs(c);
    same = knobs_same(&k, &out->knobs);
    if (!out->nic.inter && same)
        return false;
    if (same && out->nic.partial)
        nic_rerun(c, out);
    else
        comm_and_total(c, mem, out);
    return true;
}

bool tplan_perf_eval_nic(const tplan_config *c, const tplan_memory *mem,
                         tplan_perf *out)
{
    /* tplan_perf_eval_comm with its knobs the same (the premise) */
    if (!out->timed || !out->nic.inter)
        return false;
    if (out->nic.partial)
        nic_rerun(c, out);
    else
        comm_and_total(c, mem, out);
    return true;
}

/* DualPipe's busiest rank: rank r runs half its micro-batches through
 * stage r and half through stage p - 1 - r, the last stage's head
 * included; over the balanced split (p ranks of hw/p each). */
static double dualpipe_imbalance(const tplan_config *c, const tplan_flops *fl,
                                 int64_t *rank)
{
    double layers = fl->hardware - fl->head_hw - fl->mtp_hw;
    double L = (double)c->model.layers, p = (double)c->pp, busiest = 0.0;

    for (int64_t r = 0; r < c->pp / 2; r++) {
        int64_t lo, hi, lo2, hi2;
        double pair;

        tplan_config_stage_range(c, r, &lo, &hi);
        tplan_config_stage_range(c, c->pp - 1 - r, &lo2, &hi2);
        pair = (double)(hi - lo + hi2 - lo2) / L * layers +
               (r == 0 ? fl->head_hw + fl->mtp_hw : 0.0);
        if (pair / 2.0 > busiest) {
            busiest = pair / 2.0;
            *rank = r;
        }
    }
    return p * busiest / fl->hardware;
}

/* The pipeline schedule's bubble and chunks (docs/MODEL.md section
 * 13.5), from the compute of a step (accum x (F + B) on the busiest
 * stage). W, the weight gradients, is one forward of the matmuls (each
 * forward GEMM has one weight-gradient GEMM); the attention core has no
 * weights. F is a forward of the matmuls and the attention core; B the
 * rest (input gradients, W, recomputation). With LoRA only the adapters
 * have weight gradients: W taken as 0. DualPipe's paired chunks share
 * the SMs with its communication kernels, slowing them by
 * 1/(1 - comm_sm_share) (an assumption: GEMMs in proportion to SMs). */
static void schedule_time(const tplan_config *c, double mm_s, double attn_s,
                          tplan_perf *out)
{
    double p = (double)c->pp, v = (double)c->vpp, m = (double)c->accum;
    double mm_passes = c->recompute == TPLAN_RECOMPUTE_FULL ? 4.0 : 3.0;
    double attn_passes = (c->attention == TPLAN_ATTN_FLASH ? 3.5 : 3.0) +
                         (c->recompute == TPLAN_RECOMPUTE_FULL ||
                                  (c->recompute ==
                                       TPLAN_RECOMPUTE_SELECTIVE &&
                                   c->attention == TPLAN_ATTN_EAGER)
                              ? 1.0
                              : 0.0);
    double work = mm_s + attn_s, f = 0.0, w = 0.0, chunk, fb;
    tplan_pp_schedule sched = tplan_config_pp_schedule(c);

    if (work > 0) {
        w = c->lora_rank > 0 ? 0.0 : mm_s / mm_passes / work;
        f = (mm_s / mm_passes + attn_s / attn_passes) / work;
    }
    out->paired_share = tplan_config_paired_share(c, m);
    out->comm_sm_share = tplan_config_comm_sms(c);
    if (out->comm_sm_share > 0 && out->paired_share > 0) {
        out->comm_sm_s = out->compute_s * out->paired_share *
                         out->comm_sm_share / (1.0 - out->comm_sm_share);
        out->compute_s += out->comm_sm_s;
    }
    chunk = out->compute_s / m;
    out->chunk_fwd_s = chunk * f;
    out->chunk_bwd_s = chunk * (1.0 - f);
    out->chunk_wgrad_s = chunk * w;
    fb = out->chunk_fwd_s + out->chunk_bwd_s;
    if (sched == TPLAN_PP_1F1B || sched == TPLAN_PP_INTERLEAVED) {
        /* 1F1B: (PP - 1)(F + B) (DeepSeek-V3 Table 2), (p - 1)/m of the
         * ideal time; interleaved over v chunks: (p - 1)/(v m)
         * (Narayanan 2021) */
        out->bubble_fraction = (p - 1.0) / (v * m);
        out->bubble_s = out->compute_s * out->bubble_fraction;
        return;
    }
    switch (sched) {
    case TPLAN_PP_ZB_H1:
        /* Qi et al. 2024 section 3.1; DeepSeek-V3 Table 2 (ZB1P):
         * (PP - 1)(F + B - 2W) */
        out->bubble_s = (p - 1.0) * (fb - 2.0 * out->chunk_wgrad_s);
        break;
    case TPLAN_PP_DUALPIPE:
        /* DeepSeek-V3 Table 2: (PP/2 - 1)(F&B + B - 3W); F&B, a paired
         * forward and backward, takes F + B (their computation runs one
         * after the other; the pairing hides communication) */
        out->bubble_s = (p / 2.0 - 1.0) * (fb + out->chunk_bwd_s -
                                           3.0 * out->chunk_wgrad_s);
        break;
    default:
        break;
    }
    out->bubble_s = tp_fmax(out->bubble_s, 0.0);
    out->bubble_fraction =
        out->compute_s > 0 ? out->bubble_s / out->compute_s : 0.0;
}

/* The step's time; staged: *out holds a time tplan_perf_memo may keep
 * parts of (tplan_perf_eval_staged). */
static void perf_eval(const tplan_config *c, const tplan_memory *mem,
                      tplan_perf *out, bool staged,
                      const tplan_perf_layout *kept)
{
    double gpus = (double)c->gpus, p = (double)c->pp;
    double m = (double)c->accum;
    double dp, b = (double)mem->micro_batch;
    double samples, peak_mm, peak_attn, mm_s, attn_s;
    tplan_perf_memo *memo = &out->memo;
    const tplan_flops *fl = &memo->fl;
    bool same_fl;
    tplan_dtype d;

    /* Cleared up to the shape: the shape is written again below (its
     * layout part kept when staged, every part a run reads behind a flag
     * the run sets), the knobs by comm_and_total, the memo here. */
    staged = staged && memo->valid;
    memset(out, 0, offsetof(tplan_perf, shape));
    if (!staged)
        memo->valid = false;
    dp = staged ? (double)out->shape.dp : (double)tplan_config_dp(c);
    samples = b * dp * m;
    same_fl = staged && memo->samples == samples;
    if (c->model.arch == TPLAN_ARCH_GENERIC &&
        !(c->model.generic_flops_per_sample > 0)) {
        memo->valid = false;
        return;
    }
    out->timed = true;
    d = compute_dtype(c, &out->dtype_fallback);
    out->dtype = d;
    if (!same_fl) {
        /* the attention core's recomputation is core_attn's (a module
         * list without it recomputes no core); the other modules add
         * theirs */
        unsigned modules = tplan_config_rc_modules(c);
        tplan_recompute rc = c->recompute == TPLAN_RECOMPUTE_FULL
                                 ? TPLAN_RECOMPUTE_FULL
                             : (modules & TPLAN_RC_CORE_ATTN)
                                 ? TPLAN_RECOMPUTE_SELECTIVE
                                 : TPLAN_RECOMPUTE_NONE;

        memo->samples = samples;
        if (!staged) {
            /* a full evaluation: the FLOPs alone (their factors are
             * worked out when a staged one first needs them) */
            memo->rate_valid = false;
            tplan_flops_eval(&c->model, c->seq, samples, rc, c->attention,
                             true, &memo->fl);
            tplan_flops_rc_modules(&c->model, c->seq, samples, modules,
                                   &memo->fl);
        } else {
            /* other samples a step (a rounded accumulation): the same
             * factors, kept while only batch-class fields or cheaper
             * change (they read the model, the sequence length, the
             * recomputation and the attention kernel alone), times
             * their tokens */
            if (!memo->rate_valid) {
                tplan_flops_rate_of(&c->model, c->seq, rc, c->attention,
                                    true, &memo->rate);
                tplan_flops_rate_rc_modules(&c->model, modules, &memo->rate);
                memo->rate_valid = true;
            }
            tplan_flops_at(&memo->rate, c->seq, samples, &memo->fl);
        }
        if (c->lora_rank > 0)
            tplan_flops_lora(&c->model,
                             tplan_lora_active_params(&c->model, c->lora_rank,
                                                      c->lora_targets, c->dora),
                             c->seq, samples, c->recompute, &memo->fl);
    }
    if (!staged)
        memo->log2_tp = kept ? kept->log2_tp : log2((double)c->tp);
    out->flops_per_step = fl->model;
    out->hw_flops_per_step = fl->hardware;
    peak_mm = c->gpu.peak_flops[d];
    /* The attention core runs in 16 bits even under fp8 recipes. */
    peak_attn =
        d == TPLAN_DTYPE_FP8 ? c->gpu.peak_flops[TPLAN_DTYPE_BF16] : peak_mm;
    efficiency(c, mem, d, memo->log2_tp, &out->matmul_eff, &out->attn_eff);
    out->peak_flops = peak_mm;
    mm_s = fl->matmul_hw / gpus / (peak_mm * out->matmul_eff);
    attn_s = fl->attn_hw / gpus / (peak_attn * out->attn_eff);
    out->compute_s = mm_s + attn_s;
    /* Pipeline stages are as fast as the slowest: the last one also runs
     * the LM head (p x its share of the work, over a balanced split). */
    out->stage_imbalance = 1.0;
    out->slowest_stage = 0;
    if (c->pp > 1 && fl->hardware > 0 && same_fl) {
        out->stage_imbalance = memo->stage_imbalance;
        out->slowest_stage = memo->slowest_stage;
        out->compute_s *= out->stage_imbalance;
    } else if (c->pp > 1 && fl->hardware > 0) {
        double layers = fl->hardware - fl->head_hw - fl->mtp_hw;
        double L = (double)c->model.layers;
        /* the busiest stage's layers (an uneven split: the first has
         * ceil(L/p); with pp_embed_loss a middle one (L+2)/p) against the
         * last stage's and the head; the slower sets the pace */
        int64_t lo, hi;
        double busiest = (double)tplan_config_stage_layers(c) / L * layers;
        double last;

        tplan_config_stage_range(c, c->pp - 1, &lo, &hi);
        /* the MTP modules run after the last layer, on the last stage
         * (DeepSeek-V3 section 3.2.3; with dualpipe the rank that also
         * holds the first stage) */
        last = (double)(hi - lo) / L * layers + fl->head_hw + fl->mtp_hw;
        /* the slower named: the last on a tie (it also runs the head) */
        out->slowest_stage =
            last >= busiest ? c->pp - 1 : tplan_config_fullest_stage(c);
        out->stage_imbalance =
            tplan_config_pp_schedule(c) == TPLAN_PP_DUALPIPE
                ? dualpipe_imbalance(c, fl, &out->slowest_stage)
                : p * tp_fmax(busiest, last) / fl->hardware;
        out->compute_s *= out->stage_imbalance;
    }
    /* Expert parallelism: the step waits for the busiest expert rank,
     * which runs moe_load times the average routed tokens. */
    if (c->ep > 1 && fl->expert_hw > 0) {
        out->moe_wait_s = (tplan_config_moe_load(c) - 1.0) * fl->expert_hw /
                          gpus / (peak_mm * out->matmul_eff) *
                          out->stage_imbalance;
        out->compute_s += out->moe_wait_s;
    }

    schedule_time(c, mm_s, attn_s, out);
    out->attn_core_s = fl->attn_hw / gpus / (peak_attn * out->attn_eff);
    /* kept: the layout's part and the rings of a full evaluation
     * (tplan_perf_layout); comm_shape works out the rest, and the rings
     * again unless the memory they read is the same (dp_key) */
    if (!staged && kept)
        out->shape = kept->shape;
    else if (!staged)
        comm_layout(c, &out->shape);
    comm_shape(c, mem, &out->shape);
    comm_fresh(c, mem, out); /* the memset above cleared its figures */
    memo->valid = true;
    memo->stage_imbalance = out->stage_imbalance;
    memo->slowest_stage = out->slowest_stage;
}

void tplan_perf_eval(const tplan_config *c, const tplan_memory *mem,
                     tplan_perf *out)
{
    perf_eval(c, mem, out, false, NULL);
}

void tplan_perf_eval_kept(const tplan_config *c, const tplan_memory *mem,
                          tplan_perf *out, const tplan_perf_layout *kept)
{
    perf_eval(c, mem, out, false, kept);
}

void tplan_perf_eval_staged(const tplan_config *c, const tplan_memory *mem,
                            tplan_perf *out)
{
    perf_eval(c, mem, out, true, NULL);
}

