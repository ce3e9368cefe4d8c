/* The assumption table: each modelling term a user would not know to set,
 * its plausible range and the range's source (docs/MODEL.md section 16
 * has the same table with the longer story), and the test of which of
 * them a plan's figures depend on. */
#include "assume.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "plan.h"

#define MIB (1024.0 * 1024.0)

/* An entry: the field, where its value lives in a config and in what unit
 * (the input's unit is the config's over scale), the range and source. */
typedef struct entry {
    tplan_assumption a;
    size_t offset; /* of the double in tplan_config */
    double scale;  /* config value = input value x scale */
} entry;

#define E(nm, member, sc, lo, hi, src)                                        \
    {{nm, lo, hi, src}, offsetof(tplan_config, member), sc}

static const entry table[] = {
    /* MODEL.md 13.3: the default by router, 1 + MaxVio_global of Wang et
     * al. 2024 (arXiv 2408.15664, Table 2) */
    E("moe_imbalance", moe_imbalance, 1.0, 1.0, 1.72,
      "default by router, 1 + MaxVio_global (Wang et al. 2024, arXiv "
      "2408.15664, Table 2): 1.04 aux-loss-free (1B, 3B), 1.52 aux-loss "
      "(3B); 1.0 perfect balance to 1.72 aux-loss (1B); MODEL.md 13.3, 16"),
    /* MODEL.md 13.4, 14.2: Megatron's alltoall dispatcher does not
     * overlap; DeepSeek-V3's DualPipe is built to hide it all */
    E("moe_overlap", moe_overlap, 1.0, 0.0, 1.0,
      "0 Megatron-LM's alltoall dispatcher; 1 all hidden (DeepSeek-V3's "
      "DualPipe overlaps the all-to-all with compute); MODEL.md 13.4, 16"),
    /* MODEL.md 14.2: the built-in frameworks' fitted values */
    E("eff_scale", eff_scale, 1.0, 0.75, 1.11,
      "the frameworks' fits: 0.75 DeepSpeed 2021 (Narayanan et al. 2021 "
      "Table 2) to 1.11 NeMo (NVIDIA's DGX-H100 fp8 runs); MODEL.md 14.2"),
    /* MODEL.md 10 (0.9 judged from llm-foundry), 14.2 (megatron: 0) */
    E("overlap", overlap, 1.0, 0.0, 1.0,
      "0 Megatron-LM (overlap_grad_reduce off by default); 0.9 judged from "
      "llm-foundry's multi-node runs; 1 all hidden; MODEL.md 10, 14.2"),
    /* MODEL.md 14.2: deepspeed's overlap_comm is on for ZeRO-3 only */
    E("zero12_overlap", zero12_overlap, 1.0, 0.0, 1.0,
      "0 DeepSpeed ZeRO 0-2 (overlap_comm on for ZeRO-3 only); 1 PyTorch "
      "DDP/FSDP bucketed overlap; MODEL.md 14.2"),
    /* MODEL.md 14.2: nemo's TP communication overlap */
    E("tp_overlap", tp_overlap, 1.0, 0.0, 1.0,
      "0 Megatron-LM's default; 1 NeMo's TP communication overlap "
      "(Transformer Engine userbuffers); MODEL.md 14.2"),
    /* MODEL.md 14.2: deepspeed's ZeRO-3 fit against FSDP's pace */
    E("zero3_bw_eff", zero3_bw_eff, 1.0, 0.086, 1.0,
      "0.086 DeepSpeed ZeRO-3 in 2021 (Narayanan et al. 2021 Table 2 fit); "
      "1 FSDP and DeepSpeed since 2023; MODEL.md 14.2"),
    /* MODEL.md 4.2, 14.2: tests/data/gpu/h200_torch.csv, 97 runs */
    E("alloc_frac", alloc_frac, 1.0, 0.0, 0.244,
      "PyTorch's caching allocator on an H200, reserved over allocated - 1 "
      "at the peak: median 0.103, 90th percentile 0.244 over 97 runs "
      "(tests/data/gpu/h200_torch.csv); 0 near capacity; MODEL.md 4.2"),
    /* MODEL.md 4.1: measured outside the allocator; the 1000 default */
    E("context_mib", context_bytes, MIB, 767.0, 1000.0,
      "767-783 MiB measured outside the allocator after training steps on "
      "an H200 and an H100 (tests/data/gpu); 1000 pre-lazy-loading "
      "stacks; MODEL.md 4.1"),
    /* MODEL.md 4.6: NVIDIA/nccl#964 */
    E("nccl_mib", nccl_bytes, MIB, 0.0, 688.0,
      "NCCL buffers per communicator: 688 MB measured on 4 A100s "
      "(NVIDIA/nccl#964); 0 not counted; MODEL.md 4.6"),
    /* MODEL.md 4.6: NVIDIA/nccl#1685 */
    E("nccl_a2a_mib", nccl_a2a_bytes, MIB, 0.0, 480.0,
      "NCCL buffers per expert all-to-all peer: 480 MiB measured on 8 "
      "H100s (NVIDIA/nccl#1685); 0 not counted; MODEL.md 4.6"),
    /* MODEL.md 4.6: FSDP's backward prefetch */
    E("gather_sets", gather_sets, 1.0, 2.0, 3.0,
      "ZeRO-3 layer sets live at once: 2 FSDP BACKWARD_POST (composer) and "
      "DeepSpeed's estimator, 3 torch's default BACKWARD_PRE; MODEL.md 4.6"),
    /* MODEL.md 4.6: fused or per-tensor Adam against torch's foreach */
    E("optim_temp", optim_temp, 1.0, 0.0, 1.0,
      "optimizer step temporaries: 0 fused or per-tensor Adam (FusedAdam, "
      "composer), 1 torch's foreach Adam; MODEL.md 4.6"),
};

enum { N_TABLE = sizeof table / sizeof table[0] };

_Static_assert(N_TABLE <= TPLAN_MAX_ASSUMPTIONS, "TPLAN_MAX_ASSUMPTIONS");

int tplan_assumption_count(void)
{
    return N_TABLE;
}

const tplan_assumption *tplan_assumption_at(int i)
{
    return i >= 0 && i < N_TABLE ? &table[i].a : NULL;
}

static const entry *entry_of(const tplan_assumption *a)
{
    /* a is &table[i].a, the first member */
    return (const entry *)(const void *)a;
}

int tplan_assumption_field(const tplan_assumption *a)
{
    return tplan_field_find(a->name);
}

const tplan_assumption *tplan_assumption_of(int field)
{
    const tplan_field *f = tplan_field_at(field);

    for (int i = 0; f && i < N_TABLE; i++)
        if (strcmp(table[i].a.name, f->name) == 0)
            return &table[i].a;
    return NULL;
}

double tplan_assumption_value(const tplan_assumption *a, const tplan_config *c)
{
    const entry *e = entry_of(a);
    double v;

    /* moe_imbalance 0 stands for the router's default: the value used */
    if (e->offset == offsetof(tplan_config, moe_imbalance))
        return tplan_config_moe_imbalance(c);
    memcpy(&v, (const char *)c + e->offset, sizeof v);
    return v / e->scale;
}

bool tplan_figures_moved(double step_a, int64_t bytes_a, bool fits_a,
                         double step_b, int64_t bytes_b, bool fits_b)
{
    if (bytes_a != bytes_b || fits_a != fits_b)
        return true;
    if (step_a != step_a || step_b != step_b)
        return (step_a != step_a) != (step_b != step_b);
    return fabs(step_a - step_b) > 1e-12 * fmax(fabs(step_a), fabs(step_b));
}

int tplan_assumptions_used(const tplan_config *c, const bool *given,
                           tplan_assumed *out, int cap, int *n,
                           tplan_err *err)
{
    tplan_plan *p = malloc(2 * sizeof *p), *q;
    tplan_config *v = malloc(sizeof *v);
    int rc = TPLAN_OK;

    *n = 0;
    if (!p || !v) {
        rc = tplan_err_set(err, TPLAN_ENOMEM, "assumptions", "out of memory");
        goto done;
    }
    q = p + 1;
    if ((rc = tplan_plan_eval_ex(c, p, TPLAN_EVAL_FIGURES, err)))
        goto done;
    for (int i = 0; i < N_TABLE && *n < cap; i++) {
        const tplan_assumption *a = &table[i].a;
        int id = tplan_assumption_field(a);
        double now = tplan_assumption_value(a, c);
        bool dep = false;

        if (id < 0 || (given && given[id]))
            continue;
        for (int side = 0; side < 2 && !dep; side++) {
            double x = side ? a->hi : a->lo;

            if (x == now)
                continue;
            *v = *c;
            tplan_field_apply(id, x, v);
            /* a value the config refuses in combination (none today)
             * cannot move the plan: it is not one the figures rest on */
            if (tplan_plan_eval_ex(v, q, TPLAN_EVAL_FIGURES, NULL))
                continue;
            dep = tplan_figures_moved(p->perf.step_time_s,
                                      p->mem.total_bytes, p->mem.fits,
                                      q->perf.step_time_s,
                                      q->mem.total_bytes, q->mem.fits);
        }
        if (dep)
            out[(*n)++] = (tplan_assumed){a, now};
    }
done:
    free(p);
    free(v);
    return rc;
}
