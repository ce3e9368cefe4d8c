/* `tplan calc`: evaluate one config and print it as a table or JSON. */
/* realpath (POSIX XSI), for --web-link */
#define _XOPEN_SOURCE 700
#include "calc.h"

#include <math.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "activations.h"
#include "assume.h"
#include "calc_opts.h"
#include "fields.h"
#include "args.h"
#include "ft_text.h"
#include "calc_json.h"
#include "json.h"
#include "plan.h"
#include "precision.h"
#include "report.h"
#include "scaling.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

static double gib(int64_t bytes)
{
    return (double)bytes / GIB;
}

static void row(const char *name, int64_t bytes, const char *note)
{
    printf("  %-13s %9.2f GiB%s%s\n", name, gib(bytes), note[0] ? "   " : "",
           note);
}

/* 15.0T, 160.6B, 115.3M, 56.3K: the count people read. */
static const char *si(char *buf, size_t len, double v)
{
    static const char units[] = " KMBT";
    int u = 0;

    while (fabs(v) >= 1000.0 && u < 4) {
        v /= 1000.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.1f%c", v, units[u]);
    return buf;
}

static void trow(const char *name, double seconds, const char *note)
{
    printf("  %-13s %9.4f s%s%s\n", name, seconds, note[0] ? "     " : "",
           note);
}

static void print_time(const tplan_plan *p)
{
    const tplan_config *c = &p->config;
    const tplan_perf *f = &p->perf;
    const tplan_run *r = &p->run;
    /* the dtype the matmuls are timed at: the recipe's, or the one the GPU
     * falls back to (fp8 on an A100 runs at the bf16 peak) */
    const char *dt = tplan_dtype_name(f->dtype);
    char note[160], n1[32], n2[32];

    if (!f->timed) {
        printf("\ntime: not modelled (give --flops-per-sample)\n");
        return;
    }
    printf("\ntime per step (%lld micro-batch%s of %lld per pipeline)\n",
           (long long)p->accum, p->accum == 1 ? "" : "es",
           (long long)p->micro_batch);
    snprintf(note, sizeof note,
             "matmuls at %.0f%% of %s peak%s, attention at %.0f%%",
             f->matmul_eff * 100.0, dt,
             f->dtype_fallback ? " (the GPU lacks the recipe's dtype)" : "",
             f->attn_eff * 100.0);
    trow("compute", f->compute_s, note);
    if (f->comm_sm_s > 0) {
        snprintf(note, sizeof note,
                 "%.0f%% of SMs to communication in %.0f%% paired chunks",
                 f->comm_sm_share * 100.0, f->paired_share * 100.0);
        trow("  of compute", f->comm_sm_s, note);
    }
    {
        /* each schedule's formula (docs/MODEL.md section 13.5) */
        static const char *const form[] = {
            "1f1b: (p-1)/m", "interleaved: (p-1)/(v m)",
            "zb-h1: (p-1)(F+B-2W)", "dualpipe: (p/2-1)(F&B+B-3W)"};

        snprintf(note, sizeof note, "%s = %.1f%%",
                 form[tplan_config_pp_schedule(c)],
                 f->bubble_fraction * 100.0);
    }
    /* a row per parallelism in use: the others are zero by construction */
    if (c->pp > 1)
        trow("bubble", f->bubble_s, note);
    snprintf(note, sizeof note, "of %.4f s, %.0f%% exposed, %s",
             f->tp_comm_s,
             f->tp_comm_s > 0 ? f->tp_exposed_s / f->tp_comm_s * 100.0 : 0.0,
             f->tp_inter_node ? "across nodes" : "inside a node");
    if (c->tp > 1 && c->tp_overlap > 0.0)
        trow("tp exposed", f->tp_exposed_s, note);
    else if (c->tp > 1)
        trow("tp comm", f->tp_comm_s,
             f->tp_inter_node ? "across nodes" : "inside a node");
    snprintf(note, sizeof note, "of %.4f s, %s", f->pp_comm_s,
             f->pp_inter_node ? "across nodes" : "inside a node");
    if (c->pp > 1 && f->pp_exposed_s < f->pp_comm_s)
        trow("pp exposed", f->pp_exposed_s, note);
    else if (c->pp > 1)
        trow("pp comm", f->pp_comm_s,
             f->pp_inter_node ? "across nodes" : "inside a node");
    /* what is exposed, not the overlap asked for: a short compute window
     * hides less than --overlap allows */
    snprintf(note, sizeof note, "of %.4f s, %.0f%% exposed, %s",
             f->dp_comm_s,
             f->dp_comm_s > 0 ? f->dp_exposed_s / f->dp_comm_s * 100.0 : 0.0,
             f->dp_inter_node ? "across nodes" : "inside a node");
    if (p->dp * c->cp > 1)
        trow("dp exposed", f->dp_exposed_s, note);
    if (c->ep > 1) {
        snprintf(note, sizeof note, "all-to-all, of %.4f s, %s",
                 f->ep_comm_s, f->ep_inter_node ? "across nodes"
                                                : "inside a node");
        trow("ep exposed", f->ep_exposed_s, note);
        if (f->moe_wait_s > 0)
            trow("  of compute", f->moe_wait_s,
                 "waiting for the busiest expert rank");
    }
    if (c->cp > 1) {
        snprintf(note, sizeof note, "K/V ring, of %.4f s, %s", f->cp_comm_s,
                 f->cp_inter_node ? "across nodes" : "inside a node");
        trow("cp exposed", f->cp_exposed_s, note);
    }
    if (c->offload_optimizer == TPLAN_OFFLOAD_NONE)
        trow("optimizer", f->optimizer_s, "");
    if (f->dequant_s > 0)
        trow("dequantize", f->dequant_s,
             "the quantized base to 16 bits, at every use");
    if (f->offload_s > 0 || c->offload_optimizer != TPLAN_OFFLOAD_NONE ||
        c->offload_params != TPLAN_OFFLOAD_NONE ||
        c->offload_activations > 0) {
        if (f->cpu_optimizer_s > 0)
            snprintf(note, sizeof note,
                     "exposed host/NVMe traffic + CPU optimizer %.4f s",
                     f->cpu_optimizer_s);
        else
            snprintf(note, sizeof note, "exposed host/NVMe traffic");
        if (c->offload_activations > 0)
            snprintf(note + strlen(note), sizeof note - strlen(note),
                     ", activations %.4f s", f->act_offload_s);
        trow("offload", f->offload_s, note);
    }
    snprintf(note, sizeof note, "MFU %.1f%%, HFU %.1f%%", f->mfu * 100.0,
             f->hfu * 100.0);
    trow("step", f->step_time_s, note);
    /* 10th to 90th percentile of the profile's runs; a calibration from
     * fewer than 10 runs takes its extremes (docs/MODEL.md 14.3, 15) */
    printf("  step band     %.4f to %.4f s (-%.1f%% to +%.1f%%: where the "
           "profile's measured steps fell)\n",
           f->step_time_s_lo, f->step_time_s_hi, c->time_band_lo * 100.0,
           c->time_band_hi * 100.0);
    if (c->model.arch == TPLAN_ARCH_GENERIC && c->seq == 1)
        printf("  throughput    %.2f samples/s, %.2f samples/s per GPU\n",
               f->samples_per_s, f->samples_per_s / (double)c->gpus);
    else
        printf("  throughput    %.0f tokens/s, %.2f samples/s, %.0f tokens/s "
               "per GPU\n",
               f->tokens_per_s, f->samples_per_s,
               f->tokens_per_s / (double)c->gpus);
    if (!r->has_budget && c->finetune) {
        printf("\nrun: a fine-tune has no default budget (20 tokens per "
               "parameter is a pre-training rule): give --dataset N for "
               "figures per epoch, with --epochs E for the run, or --tokens "
               "T; the figures above are per step\n");
        return;
    }
    if (!r->has_budget) {
        printf("run: no budget (give --tokens, or --epochs and "
               "--dataset)\n");
        return;
    }
    printf("\nrun: %s tokens%s, %s steps\n", si(n1, sizeof n1, r->tokens),
           r->default_budget ? " (20 per parameter)"
           : r->per_epoch    ? " (one epoch: no --epochs given, figures per "
                               "epoch)"
                             : "",
           si(n2, sizeof n2, (double)r->steps));
    printf("  time          %.1f h (%.1f days) on %lld GPU%s = %.0f "
           "GPU-hours\n",
           r->time_h, r->time_h / 24.0, (long long)c->gpus,
           c->gpus == 1 ? "" : "s", r->gpu_hours);
    printf("  cost          $%s at $%.2f per GPU-hour%s%s%s\n",
           si(n1, sizeof n1, r->cost_usd), r->price_usd_per_h,
           c->price_usd_per_h > 0 ? "" : " (",
           c->price_usd_per_h > 0 ? "" : c->gpu.price_source,
           c->price_usd_per_h > 0 ? "" : ")");
    printf("  energy        %s kWh (%.0f W x %.2f x PUE %.2f), %s kg CO2e at "
           "%.3f kg/kWh\n",
           si(n1, sizeof n1, r->energy_kwh), c->gpu.tdp_w, c->power_util,
           c->pue, si(n2, sizeof n2, r->co2_kg), c->grid_kg_per_kwh);
}

static void print_recipe(const tplan_plan *p)
{
    const tplan_lr *lr = &p->lr;
    const tplan_critical *cb = &p->critical;
    char n1[32], n2[32];

    if (p->target_global_batch > 0)
        printf("\nbatch: target %lld samples -> micro-batch %lld x dp %lld x "
               "accum %lld = %lld samples (%s tokens)%s\n",
               (long long)p->target_global_batch, (long long)p->micro_batch,
               (long long)p->dp, (long long)p->accum,
               (long long)p->global_batch,
               si(n1, sizeof n1, (double)p->tokens_per_step),
               p->batch_exact ? "" : ", not exact");
    if (lr->set) {
        printf("\nlearning rate: rule %s", tplan_lr_rule_name(lr->rule));
        if (lr->rule == TPLAN_LR_DEEPSEEK || lr->rule == TPLAN_LR_GPT3)
            printf(" -> peak %.4g (their batch: %s tokens)\n", lr->peak,
                   si(n1, sizeof n1, lr->suggested_batch_tokens));
        else
            printf(", %.4g at %.0f samples, k = %.4g -> peak %.4g\n", lr->base,
                   lr->base_batch, lr->scale, lr->peak);
        if (lr->weight_decay > 0)
            printf("  weight decay %.4g (x sqrt(k))\n", lr->weight_decay);
        printf("  warmup %s steps, %s to %.4g over %s steps\n",
               si(n1, sizeof n1, (double)lr->schedule.warmup_steps),
               tplan_schedule_name(lr->schedule.kind), lr->schedule.floor,
               si(n2, sizeof n2, (double)lr->schedule.total_steps));
        if (lr->schedule.total_steps > 0) {
            printf("  lr at step");
            for (int i = 0; i < tplan_lr_sample_count(); i++) {
                int64_t st = tplan_lr_sample_step(&lr->schedule, i);

                printf("  %s: %.3g", si(n1, sizeof n1, (double)st),
                       tplan_lr_at(&lr->schedule, st));
            }
            printf("\n");
        }
    }
    if (!lr->set && p->config.finetune) {
        const char *src;
        double lr0 = tplan_finetune_lr(&p->config, p->params, &src);

        printf("\nlearning rate: none given; fine-tunes like this one use "
               "%.0e (%s)\n",
               lr0, src);
    }
    if (cb->set)
        printf("\ncritical batch %s tokens: this batch takes %.2fx the "
               "minimum steps and %.2fx the minimum data\n",
               si(n1, sizeof n1, cb->batch_tokens), cb->steps_factor,
               cb->data_factor);
}

/* What trains and how the base is kept, when that is not "everything". */
static void print_finetune(const tplan_plan *p)
{
    const tplan_config *c = &p->config;
    char text[300];

    ft_text(text, sizeof text, p);
    if (text[0])
        printf("  %s\n", text);
    if (c->offload_optimizer != TPLAN_OFFLOAD_NONE ||
        c->offload_params != TPLAN_OFFLOAD_NONE)
        printf("  offload: optimizer to %s, parameters to %s\n",
               tplan_offload_name(c->offload_optimizer),
               tplan_offload_name(c->offload_params));
}

/* What a shorthand stood for: "--qlora: --finetune ... (overridden by
 * the flags given: --lora-rank 16)". */
static void print_shorthand(const calc_out *o)
{
    if (!o->qlora[0])
        return;
    printf("  --qlora: %s", o->qlora);
    if (o->qlora_given[0])
        printf(" (overridden by the flags given: %s)", o->qlora_given);
    printf("\n");
}

static void print_table(const tplan_plan *p, const calc_out *o)
{
    const tplan_config *c = &p->config;
    const tplan_memory *m = &p->mem;
    char note[320];

    printf("%s on %lld x %s: tp %lld, pp %lld, dp %lld, zero %d%s",
           c->model.name, (long long)c->gpus, c->gpu.name, (long long)c->tp,
           (long long)c->pp, (long long)p->dp, c->zero, c->sp ? ", sp" : "");
    if (c->cp > 1)
        printf(", cp %lld", (long long)c->cp);
    if (c->ep > 1)
        printf(", ep %lld", (long long)c->ep);
    if (tplan_config_etp(c) != c->tp)
        printf(", etp %lld", (long long)tplan_config_etp(c));
    if (c->pp > 1 && tplan_config_pp_schedule(c) != TPLAN_PP_1F1B)
        printf(", %s", tplan_pp_schedule_name(tplan_config_pp_schedule(c)));
    if (tplan_config_zero_replicas(c) > 1)
        printf(", HSDP: shards over %lld, %lld replicas",
               (long long)tplan_config_zero_group(c),
               (long long)tplan_config_zero_replicas(c));
    if (!c->reshard_after_forward)
        printf(", no reshard after forward");
    printf("\n");
    if (tplan_config_uneven_stages(c) && c->pp > 1) {
        char stages[256];

        tplan_stage_layers_format(c, stages, sizeof stages);
        printf("  pipeline stages' layers: %s; the slowest stage %lld of "
               "%lld, the fullest in memory %lld\n",
               stages, (long long)p->perf.slowest_stage + 1, (long long)c->pp,
               (long long)m->stage_index + 1);
    }
    if (p->active_params != p->params) {
        printf("  mixture of experts: %lld experts, %lld per token; %.3f B "
               "active parameters per token",
               (long long)c->model.experts, (long long)c->model.top_k,
               (double)p->active_params / 1e9);
        if (c->model.moe_max_nodes > 0)
            printf("; at most %lld nodes per token",
                   (long long)c->model.moe_max_nodes);
        printf("\n");
    }
    if (p->mtp_params > 0) {
        printf("  multi-token prediction: %lld module%s, %.3f B parameters "
               "(%lld) besides the model's, on the last stage\n",
               (long long)c->model.mtp_layers,
               c->model.mtp_layers == 1 ? "" : "s",
               (double)p->mtp_params / 1e9, (long long)p->mtp_params);
    }
    {
        /* the modules recomputed where a list was given (recompute keeps
         * the value the user set, which may read "none") */
        char rc[128];

        if (c->recompute_modules && c->recompute != TPLAN_RECOMPUTE_FULL) {
            char mods[112];

            tplan_recompute_modules_format(c->recompute_modules, mods,
                                           sizeof mods);
            snprintf(rc, sizeof rc, "modules %s", mods);
        } else {
            snprintf(rc, sizeof rc, "%s", tplan_recompute_name(c->recompute));
        }
        printf("  %.3f B params (%lld), seq %lld, %s%s, %s, recompute %s, %s "
               "attention, profile %s\n",
               (double)p->params / 1e9, (long long)p->params,
               (long long)c->seq, tplan_precision_get(c->precision)->name,
               c->fp8_activations ? " (fp8 activations cached)" : "",
               tplan_optimizer_get(c->optimizer)->name, rc,
               tplan_attention_name(c->attention),
               tplan_profile_name(c->profile));
    }
    if (c->framework[0] && c->efficiency > 0)
        printf("  framework %s: efficiency fixed at %g by --efficiency, "
               "data-parallel bandwidth x%g, ZeRO-3 bandwidth x%g\n",
               c->framework, c->efficiency, c->dp_bw_eff, c->zero3_bw_eff);
    else if (c->framework[0])
        printf("  framework %s: efficiency x%g, data-parallel bandwidth x%g, "
               "ZeRO-3 bandwidth x%g\n",
               c->framework, c->eff_scale, c->dp_bw_eff, c->zero3_bw_eff);
    /* a calibrated profile's left-out error (tplan calibrate, issue 34) */
    if (c->calib.time_err > 0 || c->calib.mem_err > 0) {
        printf("  calibrated: runs left out of the fit missed by a median");
        if (c->calib.time_err > 0)
            printf(" %.1f%% (step time)", c->calib.time_err * 100.0);
        if (c->calib.mem_err > 0)
            printf("%s %.1f%% (peak memory)",
                   c->calib.time_err > 0 ? "," : "", c->calib.mem_err * 100.0);
        printf("\n");
    }
    print_shorthand(o);
    print_finetune(p);
    if (p->max_micro_batch >= TPLAN_MICRO_BATCH_UNBOUNDED)
        snprintf(note, sizeof note, "no memory limit: activations unknown");
    else if (p->max_micro_batch == 0)
        snprintf(note, sizeof note, "no micro-batch fits");
    else
        snprintf(note, sizeof note, "max that fits %lld",
                 (long long)p->max_micro_batch);
    printf("  micro-batch %lld (%s), accum %lld, global batch %lld samples",
           (long long)p->micro_batch, note, (long long)p->accum,
           (long long)p->global_batch);
    /* a sample of a generic model (an image) is no tokens */
    if (c->model.arch != TPLAN_ARCH_GENERIC || c->seq > 1)
        printf(" = %lld tokens", (long long)p->tokens_per_step);
    printf("\n\n");
    if (c->pp > 1)
        printf("memory per GPU (%s, %lld of %lld)\n", tplan_stage_words(m->stage),
               (long long)m->stage_index + 1, (long long)c->pp);
    else
        printf("memory per GPU (%s)\n", tplan_stage_words(m->stage));
    note[0] = '\0';
    if (m->work_copy_bytes)
        snprintf(note, sizeof note, "incl. %.2f GiB low-precision copies",
                 gib(m->work_copy_bytes));
    row("weights", m->weights_bytes, note);
    row("gradients", m->grads_bytes, "");
    if (m->paged_spill_bytes > 0)
        snprintf(note, sizeof note, "master copy + states; %.2f GiB more "
                 "paged out to the host",
                 gib(m->paged_spill_bytes));
    else if (c->offload_optimizer != TPLAN_OFFLOAD_NONE)
        snprintf(note, sizeof note, "offloaded to %s",
                 tplan_offload_name(c->offload_optimizer));
    else
        snprintf(note, sizeof note, "master copy + states");
    row("optimizer", m->optimizer_bytes, note);
    /* the per-sample figure includes the micro-batches a pipeline stage
     * holds at once: say so rather than call the product "per sample" */
    if (m->inflight > 1.0)
        snprintf(note, sizeof note,
                 "%.3f GiB per sample x %.3g micro-batches in flight",
                 m->act_per_sample_bytes / m->inflight / GIB, m->inflight);
    else
        snprintf(note, sizeof note, "%.3f GiB per sample",
                 m->act_per_sample_bytes / GIB);
    if (m->act_offload_bytes > 0)
        snprintf(note + strlen(note), sizeof note - strlen(note),
                 "; %.2f GiB more on the host (offload %g)",
                 gib(m->act_offload_bytes), c->offload_activations);
    row("activations", m->activations_bytes, note);
    /* the gather buffer only where ZeRO-3 shards weights (dp > 1) */
    if (m->reshard_held_bytes > 0)
        snprintf(note, sizeof note,
                 "CUDA context %.2f, ZeRO-3 gathers %.2f (%.2f unsharded "
                 "weights held to backward: no reshard)",
                 gib(m->context_bytes), gib(m->gather_bytes),
                 gib(m->reshard_held_bytes));
    else if (m->gather_bytes > 0)
        snprintf(note, sizeof note, "CUDA context %.2f, ZeRO-3 gathers %.2f",
                 gib(m->context_bytes), gib(m->gather_bytes));
    else
        snprintf(note, sizeof note, "CUDA context %.2f",
                 gib(m->context_bytes));
    if (m->dequant_bytes > 0)
        snprintf(note + strlen(note), sizeof note - strlen(note),
                 ", dequantized matrix %.2f", gib(m->dequant_bytes));
    if (m->nccl_bytes > 0) {
        snprintf(note + strlen(note), sizeof note - strlen(note),
                 ", NCCL %.2f (%lld communicator%s", gib(m->nccl_bytes),
                 (long long)m->communicators,
                 m->communicators == 1 ? "" : "s");
        if (m->nvls_bytes > 0)
            snprintf(note + strlen(note), sizeof note - strlen(note),
                     ", NVLS %.2f", gib(m->nvls_bytes));
        snprintf(note + strlen(note), sizeof note - strlen(note), ")");
    }
    if (m->bucket_bytes > 0)
        snprintf(note + strlen(note), sizeof note - strlen(note),
                 ", gradient buckets %.2f", gib(m->bucket_bytes));
    if (m->transient_bytes > 0)
        snprintf(note + strlen(note), sizeof note - strlen(note),
                 ", optimizer step %.2f over the activations",
                 gib(m->transient_bytes));
    if (m->alloc_bytes > 0)
        snprintf(note + strlen(note), sizeof note - strlen(note),
                 ", allocator %.2f", gib(m->alloc_bytes));
    row("overhead", m->overhead_bytes, note);
    if (m->off_peak_bytes > 0)
        row("not at peak", -m->off_peak_bytes,
            m->peak_at_step ? "activations and autocast copies, freed "
                              "before the optimizer step"
                            : "gradients, freed after each step "
                              "(set_to_none): none during the forward");
    row("total", m->total_bytes, "");
    printf("  total band    %.2f to %.2f GiB (-%.1f%% to +%.1f%%)\n",
           gib(m->total_bytes_lo), gib(m->total_bytes_hi),
           c->mem_band_lo * 100.0, c->mem_band_hi * 100.0);
    snprintf(note, sizeof note, "capacity %.2f GiB less %.0f%% reserve",
             gib(m->capacity_bytes), c->reserve_fraction * 100.0);
    row("usable", m->usable_bytes, note);
    row("headroom", m->usable_bytes - m->total_bytes, "");
    if (m->host_bytes > 0 || m->nvme_bytes > 0) {
        printf("host memory per node: %.2f GiB of %.2f GiB%s", gib(m->host_bytes),
               gib(m->host_capacity_bytes),
               m->host_fits ? "" : " (does NOT fit)");
        if (m->nvme_bytes > 0)
            printf(", NVMe %.2f GiB", gib(m->nvme_bytes));
        printf("\n");
        if (c->offload_optimizer != TPLAN_OFFLOAD_NONE ||
            c->offload_params != TPLAN_OFFLOAD_NONE) {
            if (c->host_buffer_factor > 1.0)
                printf("  host basis: offloaded bytes x %g, DeepSpeed's "
                       "pinned-buffer allowance (host_buffer_factor%s%s)\n",
                       c->host_buffer_factor,
                       c->framework[0] ? ", framework " : "", c->framework);
            else
                printf("  host basis: offloaded bytes alone; DeepSpeed's "
                       "estimators add 1.5x for pinned buffers "
                       "(--host-buffer-factor 1.5)\n");
        }
    }
    printf("fits: %s (confidence: %s)\n", m->fits ? "yes" : "NO",
           tplan_fit_confidence_name(m->fit_confidence));
    print_time(p);
    print_recipe(p);
    for (int i = 0; i < p->n_warnings; i++)
        printf("warning: %s\n", p->warnings[i]);
}

/* "assumed ...": --flag value (lo-hi), wrapped; the sources are in
 * --json and tplan fields --json. */
static void print_assumptions(const tplan_assumed *as, int n)
{
    int col = 0;

    if (n == 0)
        return;
    printf("assumed (defaults the figures rest on; ranges' sources in "
           "--json):\n");
    for (int i = 0; i < n; i++) {
        const tplan_field *f = tplan_field_at(tplan_assumption_field(as[i].a));
        char item[96];
        int len = snprintf(item, sizeof item, "%s %g (%g-%g)%s",
                           f ? f->flag : as[i].a->name, as[i].value, as[i].a->lo,
                           as[i].a->hi, i + 1 < n ? "," : "");

        if (col > 0 && col + 1 + len > 78) {
            printf("\n");
            col = 0;
        }
        col += printf("%s%s", col ? " " : "  ", item);
    }
    printf("\n");
}

static void print_inventory(const tplan_config *c)
{
    tplan_act_ctx ctx;
    tplan_act_item items[64];
    int n;

    if (c->model.arch == TPLAN_ARCH_GENERIC) {
        printf("\ngeneric model: %.0f activation bytes per sample (fp32)\n",
               c->model.generic_act_bytes_fp32);
        return;
    }
    tplan_act_ctx_from_config(c, &ctx);
    n = tplan_act_list(&c->model, &ctx, c->seq, items, 64);
    printf("\nactivation tensors per sample (profile %s, seq %lld)\n",
           tplan_profile_name(c->profile), (long long)c->seq);
    for (int i = 0; i < n && i < 64; i++)
        printf("  %-6s %-44s %d B/elem %12.0f bytes\n", items[i].where,
               items[i].name, items[i].elem_bytes, items[i].bytes);
}

static void print_compare(const tplan_plan *base, const tplan_scaling_row *rows,
                          int n)
{
    int ref = rows[0].reference;

    printf("\nscaling at a global batch of %lld, against %lld GPUs\n",
           (long long)base->global_batch,
           ref >= 0 ? (long long)rows[ref].plan.config.gpus : 0LL);
    printf("  %6s %6s %6s %10s %12s %12s %8s %10s %8s %s\n", "gpus", "micro",
           "accum", "step s", "tokens/s", "tok/s/GPU", "speedup", "efficiency",
           "time h", "fits");
    for (int i = 0; i < n; i++) {
        const tplan_plan *p = &rows[i].plan;

        printf("  %6lld %6lld %6lld %10.4f %12.0f %12.0f",
               (long long)p->config.gpus, (long long)p->micro_batch,
               (long long)p->accum, p->perf.step_time_s, p->perf.tokens_per_s,
               p->perf.tokens_per_s / (double)p->config.gpus);
        if (rows[i].exact_batch)
            printf(" %8.2f %9.1f%%", rows[i].speedup,
                   rows[i].efficiency * 100.0);
        else
            printf(" %8s %10s", "-", "-");
        printf(" %8.1f %s%s\n", p->run.time_h, p->mem.fits ? "yes" : "NO",
               rows[i].exact_batch
                   ? ""
                   : " (cannot keep the global batch: not compared)");
    }
}

static void print_batches(const tplan_batch_row *rows, int n)
{
    char n1[32], n2[32], n3[32];

    printf("\nglobal batches, %s tokens to the target at this plan's batch%s\n",
           si(n1, sizeof n1, rows[0].plan.run.tokens),
           rows[0].plan.critical.set ? " (critical batch applied)" : "");
    printf("  %8s %6s %6s %10s %12s %10s %10s %s\n", "samples", "micro",
           "accum", "step s", "steps", "time h", "cost $", "");
    for (int i = 0; i < n; i++) {
        const tplan_batch_row *r = &rows[i];

        printf("  %8lld %6lld %6lld %10.4f %12s %10.1f %10s %s%s%s\n",
               (long long)r->plan.global_batch, (long long)r->plan.micro_batch,
               (long long)r->plan.accum, r->plan.perf.step_time_s,
               si(n2, sizeof n2, r->steps_to_target), r->time_h,
               si(n3, sizeof n3, r->cost_usd),
               r->plan.mem.fits ? "" : "does not fit ",
               r->fastest ? "fastest " : "", r->cheapest ? "cheapest" : "");
    }
}

/* --report F: the plan's HTML report, written whole or not at all. */
static int write_report(const char *path, const tplan_config *c,
                        const tplan_plan *p)
{
    report r;
    tplan_err err;
    char title[200], sub[300];

    snprintf(title, sizeof title, "%s on %lld x %s", c->model.name,
             (long long)c->gpus, c->gpu.name);
    snprintf(sub, sizeof sub,
             "tp %lld, pp %lld, dp %lld, ZeRO %d, %s, seq %lld, micro-batch "
             "%lld, accum %lld: tplan calc --report",
             (long long)c->tp, (long long)c->pp, (long long)p->dp, c->zero,
             tplan_precision_get(c->precision)->name, (long long)c->seq,
             (long long)p->micro_batch, (long long)p->accum);
    if (report_open(&r, path, title, sub, &err)) {
        fprintf(stderr, "tplan: %s\n", err.msg);
        return 1;
    }
    report_plan(&r, c, p);
    if (report_close(&r, &err)) {
        fprintf(stderr, "tplan: %s\n", err.msg);
        return 1;
    }
    return 0;
}

/* --web-link: the browser page beside the binary (docs/web.md): as
 * installed, <prefix>/bin -> <prefix>/share/tplan/web/tplan.html, or in
 * the build tree, build/cli -> build/web/tplan.html; its file:// URL with
 * the plan's query. No absolute path is compiled in. */
static int print_web_link(const char *query)
{
    static const char *const rel[] = {"../share/tplan/web/tplan.html",
                                      "../web/tplan.html"};
    char exe[PATH_MAX], path[PATH_MAX + 64], real[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash;

    if (n <= 0)
        return usage_error("--web-link: the binary's own place is unknown "
                           "(no /proc/self/exe)");
    exe[n] = '\0';
    if ((slash = strrchr(exe, '/')))
        *slash = '\0';
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        if (snprintf(path, sizeof path, "%s/%s", exe, rel[i]) >=
            (int)sizeof path)
            continue;
        if (realpath(path, real)) {
            printf("file://%s?%s\n", real, query);
            return 0;
        }
    }
    return usage_error("--web-link: no tplan.html at %s/%s (build it: cmake "
                       "--build build --target web)",
                       exe, rel[0]);
}

int cmd_calc(int argc, char **argv)
{
    tplan_config c;
    calc_out out;
    tplan_plan plan;
    tplan_assumed assumed[TPLAN_MAX_ASSUMPTIONS];
    int n_assumed = 0;
    tplan_err err;
    int rc;

    if ((rc = calc_parse(argc, (const char *const *)argv, &c, &out)))
        return rc;
    if (out.help) {
        calc_usage();
        return 0;
    }
    static tplan_scaling_row rows[CALC_MAX_COMPARE];
    static tplan_batch_row brows[CALC_MAX_COMPARE];

    /* Evaluate everything before printing anything: an error leaves no
     * partial output. */
    if (tplan_plan_eval(&c, &plan, &err) ||
        (out.n_compare &&
         tplan_scaling_eval(&c, out.compare, out.n_compare, rows, &err)) ||
        (out.n_batches &&
         tplan_batch_compare(&c, out.batches, out.n_batches, brows, &err)))
        return usage_error("%s", err.msg);
    if (tplan_assumptions_used(&c, out.given, assumed, TPLAN_MAX_ASSUMPTIONS,
                               &n_assumed, &err))
        return usage_error("%s", err.msg);
    if (out.report && (rc = write_report(out.report, &c, &plan)))
        return rc;
    if (out.web_link)
        return print_web_link(out.web_query);
    if (out.json) {
        tplan_calc_extra x = {rows, out.n_compare, brows, out.n_batches,
                              assumed, n_assumed, out.qlora, out.qlora_given};
        json_w w;

        json_init(&w, stdout);
        tplan_calc_json(&w, &plan, &x);
        return 0;
    }
    print_table(&plan, &out);
    print_assumptions(assumed, n_assumed);
    if (out.inventory)
        print_inventory(&c);
    if (out.n_compare)
        print_compare(&plan, rows, out.n_compare);
    if (out.n_batches)
        print_batches(brows, out.n_batches);
    return 0;
}
