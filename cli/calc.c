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

static const char *stage_name(tplan_stage s)
{
    return s == TPLAN_STAGE_FIRST    ? "first pipeline stage"
           : s == TPLAN_STAGE_LAST   ? "last pipeline stage"
           : s == TPLAN_STAGE_MIDDLE ? "middle pipeline stage"
                                     : "single stage";
}

/* A figure that exists only with a budget: null otherwise. */
static void json_run_num(json_w *w, const char *key, const tplan_run *r,
                         double v)
{
    json_num(w, key, r->has_budget ? v : (double)NAN);
}

static void print_json_perf(json_w *w, const tplan_plan *p)
{
    const tplan_perf *f = &p->perf;
    const tplan_run *r = &p->run;

    json_obj_begin(w, "perf");
    json_bool(w, "timed", f->timed);
    if (!f->timed) {
        /* every figure null rather than a made-up zero */
        static const char *const keys[] = {
            "flops_per_step", "step_time_s", "step_time_s_lo",
            "step_time_s_hi", "tokens_per_s", "samples_per_s",
            "mfu",            "hfu"};

        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
            json_num(w, keys[i], (double)NAN);
        json_obj_end(w);
        goto run;
    }
    json_num(w, "flops_per_step", f->flops_per_step);
    json_num(w, "hw_flops_per_step", f->hw_flops_per_step);
    json_num(w, "step_time_s", f->step_time_s);
    json_num(w, "step_time_s_lo", f->step_time_s_lo);
    json_num(w, "step_time_s_hi", f->step_time_s_hi);
    json_num(w, "tokens_per_s", f->tokens_per_s);
    json_num(w, "samples_per_s", f->samples_per_s);
    json_num(w, "mfu", f->mfu);
    json_num(w, "hfu", f->hfu);
    json_num(w, "compute_s", f->compute_s);
    json_num(w, "bubble_s", f->bubble_s);
    json_num(w, "tp_comm_s", f->tp_comm_s);
    json_num(w, "tp_exposed_s", f->tp_exposed_s);
    json_num(w, "pp_comm_s", f->pp_comm_s);
    json_num(w, "dp_comm_s", f->dp_comm_s);
    json_num(w, "dp_exposed_s", f->dp_exposed_s);
    json_num(w, "optimizer_s", f->optimizer_s);
    json_num(w, "dequant_s", f->dequant_s);
    json_num(w, "offload_time_s", f->offload_s);
    json_num(w, "cpu_optimizer_s", f->cpu_optimizer_s);
    json_num(w, "act_offload_s", f->act_offload_s);
    json_num(w, "matmul_eff", f->matmul_eff);
    json_num(w, "attn_eff", f->attn_eff);
    json_num(w, "peak_flops", f->peak_flops);
    json_num(w, "bubble_fraction", f->bubble_fraction);
    json_num(w, "compute_fraction", f->compute_fraction);
    json_num(w, "stage_imbalance", f->stage_imbalance);
    json_int(w, "slowest_stage", f->slowest_stage);
    json_num(w, "ep_comm_s", f->ep_comm_s);
    json_num(w, "ep_exposed_s", f->ep_exposed_s);
    json_num(w, "moe_wait_s", f->moe_wait_s);
    json_num(w, "cp_comm_s", f->cp_comm_s);
    json_num(w, "cp_exposed_s", f->cp_exposed_s);
    json_num(w, "pp_exposed_s", f->pp_exposed_s);
    json_num(w, "chunk_fwd_s", f->chunk_fwd_s);
    json_num(w, "chunk_bwd_s", f->chunk_bwd_s);
    json_num(w, "chunk_wgrad_s", f->chunk_wgrad_s);
    json_num(w, "paired_share", f->paired_share);
    json_num(w, "comm_sm_share", f->comm_sm_share);
    json_num(w, "comm_sm_s", f->comm_sm_s);
    json_obj_end(w);
run:
    json_obj_begin(w, "run");
    json_run_num(w, "tokens", r, r->tokens);
    if (r->has_budget)
        json_int(w, "steps", r->steps);
    else
        json_num(w, "steps", (double)NAN);
    json_run_num(w, "time_h", r, r->time_h);
    json_run_num(w, "gpu_hours", r, r->gpu_hours);
    json_num(w, "price_usd_per_h", r->price_usd_per_h);
    json_run_num(w, "cost_usd", r, r->cost_usd);
    json_run_num(w, "energy_kwh", r, r->energy_kwh);
    json_run_num(w, "co2_kg", r, r->co2_kg);
    json_bool(w, "default_budget", r->default_budget);
    json_bool(w, "per_epoch", r->per_epoch);
    json_obj_end(w);
}

/* Fractions of training at which the schedule is sampled for display. */
static const double lr_points[] = {0.0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0};
#define N_LR_POINTS (int)(sizeof lr_points / sizeof lr_points[0])

static int64_t point_step(const tplan_lr_schedule *s, int i)
{
    /* the second point is the end of warmup, where the peak is reached */
    if (i == 1)
        return s->warmup_steps;
    return (int64_t)llround(lr_points[i] * (double)s->total_steps);
}

static void print_json_recipe(json_w *w, const tplan_plan *p)
{
    const tplan_lr *lr = &p->lr;
    const tplan_critical *cb = &p->critical;

    json_obj_begin(w, "lr");
    if (p->config.finetune) {
        const char *src;

        json_num(w, "finetune_suggested",
                 tplan_finetune_lr(&p->config, p->params, &src));
        json_str(w, "finetune_source", src);
    }
    if (!lr->set) {
        json_num(w, "peak", (double)NAN);
        json_num(w, "warmup_steps", (double)NAN);
    } else {
        json_num(w, "peak", lr->peak);
        json_int(w, "warmup_steps", lr->schedule.warmup_steps);
        json_str(w, "rule", tplan_lr_rule_name(lr->rule));
        json_num(w, "base", lr->base);
        json_num(w, "base_batch", lr->base_batch);
        json_num(w, "scale", lr->scale);
        json_num(w, "weight_decay", lr->weight_decay);
        json_str(w, "schedule", tplan_schedule_name(lr->schedule.kind));
        json_num(w, "floor", lr->schedule.floor);
        json_int(w, "total_steps", lr->schedule.total_steps);
        if (lr->suggested_batch_tokens > 0)
            json_num(w, "suggested_batch_tokens", lr->suggested_batch_tokens);
        json_arr_begin(w, "at");
        for (int i = 0; i < N_LR_POINTS && lr->schedule.total_steps > 0; i++) {
            int64_t st = point_step(&lr->schedule, i);

            json_obj_begin(w, NULL);
            json_int(w, "step", st);
            json_num(w, "lr", tplan_lr_at(&lr->schedule, st));
            json_obj_end(w);
        }
        json_arr_end(w);
    }
    json_obj_end(w);
    json_obj_begin(w, "critical");
    json_num(w, "batch_tokens", cb->set ? cb->batch_tokens : (double)NAN);
    json_num(w, "steps_factor", cb->set ? cb->steps_factor : (double)NAN);
    json_num(w, "data_factor", cb->set ? cb->data_factor : (double)NAN);
    json_obj_end(w);
}

static void print_json_rows(json_w *w, const tplan_scaling_row *rows, int n,
                            const tplan_batch_row *brows, int nb)
{
    if (n) {
        json_arr_begin(w, "scaling");
        for (int i = 0; i < n; i++) {
            const tplan_plan *p = &rows[i].plan;

            json_obj_begin(w, NULL);
            json_int(w, "gpus", p->config.gpus);
            json_int(w, "micro_batch", p->micro_batch);
            json_int(w, "accum", p->accum);
            json_int(w, "global_batch", p->global_batch);
            json_num(w, "step_time_s", p->perf.step_time_s);
            json_num(w, "tokens_per_s", p->perf.tokens_per_s);
            json_num(w, "speedup", rows[i].speedup);
            json_num(w, "efficiency", rows[i].efficiency);
            json_num(w, "time_h",
                     p->run.has_budget ? p->run.time_h : (double)NAN);
            json_bool(w, "fits", p->mem.fits);
            json_obj_end(w);
        }
        json_arr_end(w);
    }
    if (nb) {
        json_arr_begin(w, "batches");
        for (int i = 0; i < nb; i++) {
            const tplan_batch_row *r = &brows[i];

            json_obj_begin(w, NULL);
            json_int(w, "global_batch", r->plan.global_batch);
            json_int(w, "micro_batch", r->plan.micro_batch);
            json_int(w, "accum", r->plan.accum);
            json_num(w, "step_time_s", r->plan.perf.step_time_s);
            json_num(w, "tokens_to_target", r->tokens_to_target);
            json_num(w, "steps_to_target", r->steps_to_target);
            json_num(w, "time_h", r->time_h);
            json_num(w, "cost_usd", r->cost_usd);
            json_bool(w, "fits", r->plan.mem.fits);
            json_bool(w, "fastest", r->fastest);
            json_bool(w, "cheapest", r->cheapest);
            json_obj_end(w);
        }
        json_arr_end(w);
    }
}

/* What would make a plan that does not fit fit, in the order the
 * warnings give it: [{change: {field: value}, fits, total_bytes,
 * max_micro_batch, step_time_s, tokens_per_s, time_h, per_epoch, why}]. */
static void print_json_advice(json_w *w, const tplan_plan *p)
{
    static tplan_remedy r[TPLAN_MAX_REMEDIES];
    int n = tplan_plan_remedies(&p->config, p, r, TPLAN_MAX_REMEDIES);

    json_arr_begin(w, "advice");
    for (int i = 0; i < n; i++) {
        json_obj_begin(w, NULL);
        json_obj_begin(w, "change");
        for (int k = 0; k < r[i].n; k++) {
            const tplan_change *ch = &r[i].change[k];
            int id = tplan_field_find(ch->field);
            const tplan_field *f = tplan_field_at(id);

            if (ch->name)
                json_str(w, ch->field, ch->name);
            else if (f && f->type == TPLAN_FT_BOOL)
                json_bool(w, ch->field, ch->num != 0);
            else
                json_num(w, ch->field, ch->num);
        }
        json_obj_end(w);
        json_bool(w, "fits", r[i].fits);
        json_int(w, "total_bytes", r[i].total_bytes);
        json_int(w, "max_micro_batch", r[i].max_micro_batch);
        json_num(w, "step_time_s",
                 r[i].timed ? r[i].step_time_s : (double)NAN);
        /* comparable across micro-batches, sequences and GPU counts;
         * time_h is per epoch where per_epoch, null without a budget */
        json_num(w, "tokens_per_s",
                 r[i].timed ? r[i].tokens_per_s : (double)NAN);
        json_num(w, "time_h", r[i].timed && r[i].has_budget
                                  ? r[i].time_h
                                  : (double)NAN);
        json_bool(w, "per_epoch", r[i].per_epoch);
        json_str(w, "why", r[i].why);
        json_obj_end(w);
    }
    json_arr_end(w);
}

/* The fine-tuning part of "recipe": adapters, base storage, offload. */
static void print_json_finetune(json_w *w, const tplan_config *c)
{
    char targets[96];

    tplan_lora_targets_format(c->lora_targets, targets, sizeof targets);
    json_int(w, "lora_rank", c->lora_rank);
    json_str(w, "lora_targets", targets);
    json_num(w, "lora_dropout", c->lora_dropout);
    json_str(w, "base_precision", tplan_base_precision_name(c->base_precision));
    json_bool(w, "double_quant", c->double_quant);
    json_str(w, "offload_optimizer",
             tplan_offload_name(c->offload_optimizer));
    json_str(w, "offload_params", tplan_offload_name(c->offload_params));
}

/* shorthands: [{flag, expands_to, given}], what each shorthand on the
 * command line stood for ([] for none). */
static void print_json_shorthands(json_w *w, const calc_out *o)
{
    json_arr_begin(w, "shorthands");
    if (o->qlora[0]) {
        json_obj_begin(w, NULL);
        json_str(w, "flag", "--qlora");
        json_str(w, "expands_to", o->qlora);
        json_str(w, "given", o->qlora_given);
        json_obj_end(w);
    }
    json_arr_end(w);
}

/* The assumptions the figures rest on, left at their defaults. */
static void print_json_assumptions(json_w *w, const tplan_assumed *as, int n)
{
    json_arr_begin(w, "assumptions");
    for (int i = 0; i < n; i++) {
        json_obj_begin(w, NULL);
        json_str(w, "name", as[i].a->name);
        json_num(w, "value", as[i].value);
        json_arr_begin(w, "range");
        json_num(w, NULL, as[i].a->lo);
        json_num(w, NULL, as[i].a->hi);
        json_arr_end(w);
        json_str(w, "source", as[i].a->source);
        json_obj_end(w);
    }
    json_arr_end(w);
}

/* What host_bytes counts beyond the offloaded bytes: DeepSpeed's
 * pinned-buffer allowance or nothing (docs/MODEL.md section 12.4). */
static const char *host_basis(const tplan_config *c)
{
    if (c->offload_optimizer == TPLAN_OFFLOAD_NONE &&
        c->offload_params == TPLAN_OFFLOAD_NONE)
        return c->offload_activations > 0
                   ? "offloaded activations alone, pinned (no buffer "
                     "allowance)"
                   : "no offload";
    if (c->host_buffer_factor > 1.0)
        return "offloaded bytes x host_buffer_factor (DeepSpeed's estimators' "
               "pinned-buffer allowance, additional_buffer_factor)";
    return "offloaded bytes alone (DeepSpeed's estimators add 1.5x for "
           "pinned buffers: --host-buffer-factor 1.5)";
}

static void print_json(const tplan_plan *p, const calc_out *o,
                       const tplan_scaling_row *rows, int n,
                       const tplan_batch_row *brows, int nb,
                       const tplan_assumed *as, int nas)
{
    const tplan_config *c = &p->config;
    const tplan_memory *m = &p->mem;
    json_w w;

    json_init(&w, stdout);
    json_obj_begin(&w, NULL);
    json_obj_begin(&w, "model");
    json_str(&w, "name", c->model.name);
    json_int(&w, "params", p->params);
    json_int(&w, "trainable_params", p->trainable_params);
    json_int(&w, "active_params", p->active_params);
    json_int(&w, "mtp_params", p->mtp_params);
    json_obj_end(&w);
    json_obj_begin(&w, "parallel");
    json_str(&w, "gpu", c->gpu.name);
    json_int(&w, "gpus", c->gpus);
    json_int(&w, "tp", c->tp);
    json_int(&w, "pp", c->pp);
    json_int(&w, "dp", p->dp);
    json_int(&w, "cp", c->cp);
    json_int(&w, "ep", c->ep);
    json_int(&w, "etp", tplan_config_etp(c));
    json_int(&w, "edp", tplan_config_edp(c));
    json_int(&w, "vpp", c->vpp);
    json_int(&w, "pp_first_layers", c->pp_first_layers);
    json_int(&w, "pp_last_layers", c->pp_last_layers);
    {
        char stages[256];

        tplan_stage_layers_format(c, stages, sizeof stages);
        json_str(&w, "pp_stage_layers", stages);
    }
    json_str(&w, "pp_schedule",
             tplan_pp_schedule_name(tplan_config_pp_schedule(c)));
    json_bool(&w, "sp", c->sp);
    json_int(&w, "zero", c->zero);
    json_int(&w, "zero_shard_group", tplan_config_zero_group(c));
    json_int(&w, "zero_replicas", tplan_config_zero_replicas(c));
    json_bool(&w, "reshard_after_forward", c->reshard_after_forward);
    json_int(&w, "gpus_per_node", tplan_config_gpus_per_node(c));
    json_num(&w, "link_bytes_per_s",
             c->link_bytes_per_s > 0 ? c->link_bytes_per_s
                                     : c->gpu.link_bytes_per_s);
    json_num(&w, "nic_bytes_per_s",
             c->nic_bytes_per_s > 0 ? c->nic_bytes_per_s
                                    : c->gpu.nic_bytes_per_s);
    json_obj_end(&w);
    json_obj_begin(&w, "recipe");
    json_str(&w, "precision", tplan_precision_get(c->precision)->name);
    json_str(&w, "optimizer", tplan_optimizer_get(c->optimizer)->name);
    json_str(&w, "recompute", tplan_recompute_name(c->recompute));
    json_str(&w, "attention", tplan_attention_name(c->attention));
    json_str(&w, "profile", tplan_profile_name(c->profile));
    json_int(&w, "seq", c->seq);
    json_num(&w, "dropout", c->model.dropout);
    print_json_finetune(&w, c);
    json_obj_end(&w);
    json_obj_begin(&w, "memory");
    json_int(&w, "weights_bytes", m->weights_bytes);
    json_int(&w, "grads_bytes", m->grads_bytes);
    json_int(&w, "optimizer_bytes", m->optimizer_bytes);
    json_int(&w, "activations_bytes", m->activations_bytes);
    json_int(&w, "overhead_bytes", m->overhead_bytes);
    json_int(&w, "total_bytes", m->total_bytes);
    json_int(&w, "capacity_bytes", m->capacity_bytes);
    json_int(&w, "usable_bytes", m->usable_bytes);
    json_int(&w, "headroom_bytes", m->usable_bytes - m->total_bytes);
    json_bool(&w, "fits", m->fits);
    json_int(&w, "total_bytes_lo", m->total_bytes_lo);
    json_int(&w, "total_bytes_hi", m->total_bytes_hi);
    json_str(&w, "fit_confidence",
             tplan_fit_confidence_name(m->fit_confidence));
    json_int(&w, "alloc_bytes", m->alloc_bytes);
    json_int(&w, "work_copy_bytes", m->work_copy_bytes);
    json_int(&w, "context_bytes", m->context_bytes);
    json_int(&w, "blas_ws_bytes", m->blas_ws_bytes);
    json_int(&w, "gather_bytes", m->gather_bytes);
    json_int(&w, "reshard_held_bytes", m->reshard_held_bytes);
    json_int(&w, "nccl_bytes", m->nccl_bytes);
    json_int(&w, "communicators", m->communicators);
    json_int(&w, "nvls_bytes", m->nvls_bytes);
    json_int(&w, "bucket_bytes", m->bucket_bytes);
    json_int(&w, "step_temp_bytes", m->step_temp_bytes);
    json_int(&w, "transient_bytes", m->transient_bytes);
    json_int(&w, "off_peak_bytes", m->off_peak_bytes);
    json_int(&w, "activations_per_sample_bytes",
             llround(m->act_per_sample_bytes));
    json_int(&w, "activations_per_layer_sample_bytes",
             llround(m->act_layer_bytes));
    json_str(&w, "stage", stage_name(m->stage));
    json_int(&w, "stage_index", m->stage_index);
    json_int(&w, "params_on_device", m->params_on_device);
    json_int(&w, "experts_on_device", m->experts_on_device);
    json_int(&w, "dequant_bytes", m->dequant_bytes);
    json_int(&w, "paged_spill_bytes", m->paged_spill_bytes);
    json_int(&w, "host_bytes", m->host_bytes);
    json_int(&w, "nvme_bytes", m->nvme_bytes);
    json_int(&w, "host_capacity_bytes", m->host_capacity_bytes);
    json_bool(&w, "host_fits", m->host_fits);
    json_num(&w, "offload_activations", c->offload_activations);
    json_int(&w, "act_offload_bytes", m->act_offload_bytes);
    json_num(&w, "host_buffer_factor", c->host_buffer_factor);
    json_str(&w, "host_basis", host_basis(c));
    json_obj_end(&w);
    json_obj_begin(&w, "batch");
    json_int(&w, "micro_batch", p->micro_batch);
    json_int(&w, "max_micro_batch", p->max_micro_batch);
    json_int(&w, "accum", p->accum);
    json_int(&w, "global_batch", p->global_batch);
    json_int(&w, "tokens_per_step", p->tokens_per_step);
    json_int(&w, "target_global_batch", p->target_global_batch);
    json_bool(&w, "exact", p->batch_exact);
    json_obj_end(&w);
    print_json_perf(&w, p);
    print_json_recipe(&w, p);
    print_json_rows(&w, rows, n, brows, nb);
    print_json_advice(&w, p);
    print_json_shorthands(&w, o);
    print_json_assumptions(&w, as, nas);
    json_arr_begin(&w, "warnings");
    for (int i = 0; i < p->n_warnings; i++)
        json_str(&w, NULL, p->warnings[i]);
    json_arr_end(&w);
    json_plan_fields(&w, "fields", p);
    json_obj_end(&w);
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
            for (int i = 0; i < N_LR_POINTS; i++) {
                int64_t st = point_step(&lr->schedule, i);

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
        printf("memory per GPU (%s, %lld of %lld)\n", stage_name(m->stage),
               (long long)m->stage_index + 1, (long long)c->pp);
    else
        printf("memory per GPU (%s)\n", stage_name(m->stage));
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
        print_json(&plan, &out, rows, out.n_compare, brows, out.n_batches,
                   assumed, n_assumed);
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
