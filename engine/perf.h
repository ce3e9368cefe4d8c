/* Time per training step: compute from peak FLOP/s and an achieved-
 * efficiency model, communication (data-parallel/ZeRO, tensor-parallel,
 * pipeline), the pipeline bubble and the optimizer step; throughput, MFU
 * and HFU (docs/MODEL.md section 5). Knows nothing of cost or I/O. */
#ifndef TPLAN_PERF_H
#define TPLAN_PERF_H

#include <stdbool.h>

#include "config.h"
#include "flops.h"
#include "memory.h"

/* A ring collective of a step (perf.c): its time at bw bytes/s is
 * vol / bw + lat; off (a group of one rank) it takes none. */
typedef struct tplan_ring {
    bool on;
    double vol, lat;
} tplan_ring;

/* ZeRO's collectives over a shard group, and the replicas' all-reduce
 * (HSDP): weights and gradients gathered, gradients all-reduced. */
typedef struct tplan_dp_rings {
    tplan_ring ag_w, ag_g, ar_g, ar_rep;
    bool replicas; /* more than one replica */
} tplan_dp_rings;

/* What the communication part (perf.c's comm_and_total) reads of the
 * layout, the memory and the hardware, none of it of the communication
 * class: worked out with the compute and kept while only communication-
 * class fields change, so that tplan_perf_eval_comm recomputes the
 * bandwidths and times alone (issue 38; bit-identical, the same values
 * from the same expressions). Engine-internal: not a contract figure. */
typedef struct tplan_comm_shape {
    int64_t dp;                /* tplan_config_dp */
    double gpn;                /* GPUs per node */
    double tp_node, dp_node;   /* of the TP and DP x CP groups, on a node */
    double layers;             /* the fullest stage's layers */
    double etp, etp_node;      /* expert-tensor group, and on a node */
    double moe_layers;         /* MoE layers on the fullest stage (MoE) */
    double ep_node;            /* of the EP group, on a node */
    int64_t shard, rep;        /* ZeRO's shard group and its replicas */
    double shard_node, rep_node;
    double edp;                /* the expert-data-parallel group */
    double pcie, nvme, on_node; /* offload: the host links, GPUs a node */
    double optimizer_s, dequant_s; /* no communication in them */
    /* the collectives' volumes and latencies of a step (comm_volumes):
     * the bandwidths, from communication-class fields, come at each run */
    bool tp_on, etp_on, pp_on, dp_on, dp_experts_on;
    bool offload_on; /* host traffic: offloading, paging, a host link of 0 */
    double tp_k, etp_k;        /* all-reduces a step: m x layers x n_ar, and
                                  the expert-TP group's correction */
    tplan_ring tp_ring, etp_ring;
    double pp_k, pp_msg, pp_lat; /* 2 m v hops of pp_msg bytes */
    tplan_dp_rings dp_dense, dp_experts; /* ZeRO: dense, routed experts */
    /* the memory's params_on_device, trainable_on_device and
     * experts_on_device they were worked out for; -1: none */
    int64_t dp_key[3];
} tplan_comm_shape;

/* The communication-class fields (fields.c, TPLAN_REACH_COMM) but the
 * NIC's, as comm_and_total last read them: a re-run where they are the
 * same and no group crosses nodes (no NIC read) gives the same figures,
 * so tplan_perf_eval_comm skips it (issue 38). A new communication-class
 * field goes here too (tests/test_sweep.c test_staged_each_field varies
 * each on single-node layouts). Engine-internal. */
typedef struct tplan_comm_knobs {
    double link, overlap, dp_bw_eff, zero3_bw_eff, zero12_overlap;
    double tp_overlap;
} tplan_comm_knobs;

/* What a change of the NIC's speed alone reaches (comm_and_total works
 * it out; tplan_perf_eval_comm reads it): inter, anything (a group that
 * crosses nodes: the *_inter_node flags, or'd); partial, only the
 * pipeline's hops and the DP/ZeRO traffic of the groups that cross
 * nodes, and the totals (issue 38). Engine-internal. */
typedef struct tplan_comm_nic {
    bool inter, partial;
    /* dp_time's terms that no NIC speed moves where partial holds (the
     * collectives' efficiency, the compute that can hide the traffic,
     * the overlap's factor) and the samples a step, for nic_rerun's
     * dp_time_at and totals_at (perf.c). Invalidated by nothing else:
     * every comm_and_total writes them again (dp_time where dp_on, then
     * totals), and nic_rerun runs only after one, for the same knobs,
     * layout, compute and batch (only the NIC's speed moved) */
    double dp_eff, dp_window, dp_hide;
    double samples;
} tplan_comm_nic;

/* What tplan_perf_eval works out of the model and the layout alone, and
 * the FLOPs of the samples a step: a batch-staged re-evaluation (only
 * batch-, time-, communication- or run-class fields changed, as the
 * micro-batch does in a sweep) keeps them, the FLOPs and what follows
 * from them while the samples a step are the same, and the layout's part
 * of the communication's shape (issue 38; bit-identical: the same values,
 * used by the same expressions). Engine-internal. */
typedef struct tplan_perf_memo {
    bool valid;                /* a timed evaluation filled it */
    double samples;            /* the FLOPs' samples a step */
    bool rate_valid;           /* rate holds for this config's model */
    tplan_flops_rate rate;     /* the FLOPs' factors, of the model alone */
    tplan_flops fl;
    double stage_imbalance;    /* and the slowest stage, from fl */
    int64_t slowest_stage;
    double log2_tp;            /* the efficiency's TP term */
} tplan_perf_memo;

typedef struct tplan_perf {
    bool timed; /* false: a generic model without FLOPs; all else is 0 */
    double flops_per_step;    /* model FLOPs of one step, whole job */
    double hw_flops_per_step; /* hardware FLOPs, recomputation included */
    /* seconds per step on one GPU, by part */
    double compute_s;    /* matmuls + attention of every micro-batch */
    double bubble_s;     /* pipeline fill and drain */
    double tp_comm_s;    /* tensor-parallel all-reduces, all of them */
    double tp_exposed_s; /* of which not hidden under the GEMMs (tp_overlap:
                            Transformer Engine's userbuffers overlap) */
    double pp_comm_s;    /* pipeline sends and receives */
    double pp_exposed_s; /* of which not hidden (DualPipe's paired chunks
                            hide them; others none) */
    double dp_comm_s;    /* data-parallel / ZeRO traffic, all of it */
    double dp_exposed_s; /* of which not hidden under compute */
    double optimizer_s;  /* the optimizer step on the GPU, memory-bound */
    double dequant_s;    /* dequantizing a quantized base, every use */
    double offload_s;    /* host/NVMe traffic and CPU step not hidden */
    double cpu_optimizer_s; /* of offload_s: the CPU optimizer step */
    double act_offload_s;   /* of offload_s: activation copies not hidden */
    double ep_comm_s;    /* expert all-to-all (dispatch and combine) */
    double ep_exposed_s; /* of which not hidden under compute */
    double cp_comm_s;    /* context-parallel K/V exchange */
    double cp_exposed_s; /* of which not hidden under attention */
    double moe_wait_s;   /* of compute_s: the busiest expert rank's extra */
    double step_time_s;
    /* the band the framework's reference runs put the measured step time
     * in: step_time_s x (1 - time_band_lo .. 1 + time_band_hi) */
    double step_time_s_lo, step_time_s_hi;
    double tokens_per_s; /* whole job */
    double samples_per_s;
    double mfu, hfu; /* model / hardware FLOPs over peak of the recipe */
    double matmul_eff, attn_eff; /* fractions of peak used */
    double peak_flops;           /* per GPU, the recipe's compute dtype */
    double bubble_fraction;      /* (p-1)/(v m) */
    double compute_fraction;     /* compute_s / step_time_s */
    double stage_imbalance;      /* slowest pipeline stage over the average */
    int64_t slowest_stage;       /* its index, 0 .. pp - 1 (dualpipe: the
                                    busiest rank's first stage) */
    bool dp_inter_node, tp_inter_node, pp_inter_node, ep_inter_node,
        cp_inter_node;
    bool dtype_fallback; /* the GPU lacks the recipe's dtype */
    tplan_dtype dtype;   /* the dtype the matmuls are timed at */
    double attn_core_s;  /* the attention core alone (context parallelism
                            hides its K/V exchange under it) */
    /* pipeline schedules (docs/MODEL.md section 13.5): one micro-batch's
     * forward chunk F, full backward chunk B (input and weight gradients,
     * recomputation included) and of B the weight-gradient part W on the
     * busiest stage, seconds; compute_s = accum x (F + B) */
    double chunk_fwd_s, chunk_bwd_s, chunk_wgrad_s;
    double paired_share; /* DualPipe: micro-batches run as overlapped
                            forward-backward pairs (0: none) */
    double comm_sm_share; /* SMs taken from compute by communication */
    double comm_sm_s;     /* of compute_s: what losing them costs */
    tplan_comm_shape shape; /* internal: kept for tplan_perf_eval_comm */
    tplan_comm_knobs knobs; /* internal: the same */
    tplan_comm_nic nic;     /* internal: the same */
    tplan_perf_memo memo;   /* internal: for tplan_perf_eval_staged */
} tplan_perf;

/* What a full evaluation's time works out of the layout alone and keeps
 * in its shape: comm_layout's groups, the data-parallel rings (with the
 * memory figures they were worked out for, dp_key) and the efficiency's
 * log2(tp). A sweep's worker keeps the last one beside its states memo
 * (plan.c, tplan_layout_memo) for the next config that differs only in
 * recompute, recompute_modules, micro_batch or accum, none of which they
 * read (issue 38). Engine-internal. */
typedef struct tplan_perf_layout {
    tplan_comm_shape shape;
    double log2_tp;
} tplan_perf_layout;

/* tplan_perf_eval with *kept (NULL: none) taken from the time of a
 * config that differs from c only in recompute, recompute_modules,
 * micro_batch and accum: the same figures, bit for bit. */
void tplan_perf_eval_kept(const tplan_config *c, const tplan_memory *mem,
                          tplan_perf *out, const tplan_perf_layout *kept);

/* Time one step of a validated config whose memory was evaluated (the
 * micro-batch is mem->micro_batch). The memory fields it reads are listed
 * in plan.c (perf_inputs): a batch-staged evaluation keeps the time when
 * none of them moved, so a new read of mem goes on that list too. */
void tplan_perf_eval(const tplan_config *c, const tplan_memory *mem,
                     tplan_perf *out);

/* The same, where *out holds the time of a config that differs from c
 * only in fields of the batch, time, communication or run class
 * (fields.h) and was timed by one of these two: what the model and
 * the layout alone decide is kept (tplan_perf_memo). The same figures,
 * bit for bit. */
void tplan_perf_eval_staged(const tplan_config *c, const tplan_memory *mem,
                            tplan_perf *out);

/* Only the communication, the optimizer step and the totals of *out,
 * which holds the time of a config that differs from c only in fields of
 * the communication class (fields.h, TPLAN_REACH_COMM): the same figures
 * tplan_perf_eval gives, bit for bit. False when none can have changed
 * (only the NIC's speed moved and no group crosses nodes): *out is left
 * as it was. */
bool tplan_perf_eval_comm(const tplan_config *c, const tplan_memory *mem,
                          tplan_perf *out);

/* tplan_perf_eval_comm where the caller knows that only the NIC's speed
 * (nic_bytes_per_s) changed since *out was worked out: the other
 * communication-class fields are out->knobs already, so their
 * comparison is skipped (issue 38: a sweep's NIC axis innermost). The
 * same figures and answer as tplan_perf_eval_comm under that premise. */
bool tplan_perf_eval_nic(const tplan_config *c, const tplan_memory *mem,
                         tplan_perf *out);

/* Ring collectives (docs/MODEL.md section 5): seconds to all-reduce, or to
 * all-gather / reduce-scatter, `bytes` (the full buffer) over n ranks at
 * bw bytes/s per rank plus a latency per call. */
double tplan_allreduce_s(double bytes, double n, double bw, double lat_s);
double tplan_allgather_s(double bytes, double n, double bw, double lat_s);
/* An all-to-all in which each of n ranks sends bytes in all (bytes/n to
 * every rank, itself included), `per_node` of the ranks sharing a node:
 * the node-local share over the link, the rest over the rank's NIC, the
 * two concurrently; one latency inside a node, two across (assumption:
 * the cross-node exchange is a second round after the local one, as in
 * hierarchical all-to-all). */
double tplan_alltoall_s(double bytes, double n, double per_node, double link,
                        double nic, double lat_s);
/* The same under node-limited routing (DeepSeek-V3 sections 2.1.2 and
 * 3.2.2): bytes are `copies` copies of each token (top_k), each token
 * goes to at most max_nodes nodes, once over the NIC per target node and
 * from there over the link to the GPUs that hold its experts.
 * max_nodes <= 0 or a group inside one node: tplan_alltoall_s. */
double tplan_alltoall_nodes_s(double bytes, double n, double per_node,
                              double link, double nic, double lat_s,
                              double copies, double max_nodes);

#endif
