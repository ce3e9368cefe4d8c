/* The object `tplan calc --json` prints (docs/cli.md), written by one
 * function for calc and the browser page (web/tplan_web.c), so the two
 * cannot drift. Engine types and text/json.h only. */
#include "calc_json.h"

#include <math.h>
#include <stdio.h>

#include "fields.h"
#include "finetune.h"
#include "precision.h"

const char *tplan_stage_words(tplan_stage s)
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

int tplan_lr_sample_count(void)
{
    return N_LR_POINTS;
}

int64_t tplan_lr_sample_step(const tplan_lr_schedule *s, int i)
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
            int64_t st = tplan_lr_sample_step(&lr->schedule, i);

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
static void print_json_shorthands(json_w *w, const tplan_calc_extra *x)
{
    json_arr_begin(w, "shorthands");
    if (x->qlora && x->qlora[0]) {
        json_obj_begin(w, NULL);
        json_str(w, "flag", "--qlora");
        json_str(w, "expands_to", x->qlora);
        json_str(w, "given", x->qlora_given ? x->qlora_given : "");
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

void tplan_calc_json(json_w *w, const tplan_plan *p,
                     const tplan_calc_extra *x)
{
    static const tplan_calc_extra none;
    const tplan_config *c = &p->config;
    const tplan_memory *m = &p->mem;

    if (!x)
        x = &none;
    json_obj_begin(w, NULL);
    json_obj_begin(w, "model");
    json_str(w, "name", c->model.name);
    json_int(w, "params", p->params);
    json_int(w, "trainable_params", p->trainable_params);
    json_int(w, "active_params", p->active_params);
    json_int(w, "mtp_params", p->mtp_params);
    json_obj_end(w);
    json_obj_begin(w, "parallel");
    json_str(w, "gpu", c->gpu.name);
    json_int(w, "gpus", c->gpus);
    json_int(w, "tp", c->tp);
    json_int(w, "pp", c->pp);
    json_int(w, "dp", p->dp);
    json_int(w, "cp", c->cp);
    json_int(w, "ep", c->ep);
    json_int(w, "etp", tplan_config_etp(c));
    json_int(w, "edp", tplan_config_edp(c));
    json_int(w, "vpp", c->vpp);
    json_int(w, "pp_first_layers", c->pp_first_layers);
    json_int(w, "pp_last_layers", c->pp_last_layers);
    {
        char stages[256];

        tplan_stage_layers_format(c, stages, sizeof stages);
        json_str(w, "pp_stage_layers", stages);
    }
    json_str(w, "pp_schedule",
             tplan_pp_schedule_name(tplan_config_pp_schedule(c)));
    json_bool(w, "sp", c->sp);
    json_int(w, "zero", c->zero);
    json_int(w, "zero_shard_group", tplan_config_zero_group(c));
    json_int(w, "zero_replicas", tplan_config_zero_replicas(c));
    json_bool(w, "reshard_after_forward", c->reshard_after_forward);
    json_int(w, "gpus_per_node", tplan_config_gpus_per_node(c));
    json_num(w, "link_bytes_per_s",
             c->link_bytes_per_s > 0 ? c->link_bytes_per_s
                                     : c->gpu.link_bytes_per_s);
    json_num(w, "nic_bytes_per_s",
             c->nic_bytes_per_s > 0 ? c->nic_bytes_per_s
                                    : c->gpu.nic_bytes_per_s);
    json_obj_end(w);
    json_obj_begin(w, "recipe");
    json_str(w, "precision", tplan_precision_get(c->precision)->name);
    json_str(w, "optimizer", tplan_optimizer_get(c->optimizer)->name);
    json_str(w, "recompute", tplan_recompute_name(c->recompute));
    json_str(w, "attention", tplan_attention_name(c->attention));
    json_str(w, "profile", tplan_profile_name(c->profile));
    json_int(w, "seq", c->seq);
    json_num(w, "dropout", c->model.dropout);
    print_json_finetune(w, c);
    json_obj_end(w);
    json_obj_begin(w, "memory");
    json_int(w, "weights_bytes", m->weights_bytes);
    json_int(w, "grads_bytes", m->grads_bytes);
    json_int(w, "optimizer_bytes", m->optimizer_bytes);
    json_int(w, "activations_bytes", m->activations_bytes);
    json_int(w, "overhead_bytes", m->overhead_bytes);
    json_int(w, "total_bytes", m->total_bytes);
    json_int(w, "capacity_bytes", m->capacity_bytes);
    json_int(w, "usable_bytes", m->usable_bytes);
    json_int(w, "headroom_bytes", m->usable_bytes - m->total_bytes);
    json_bool(w, "fits", m->fits);
    json_int(w, "total_bytes_lo", m->total_bytes_lo);
    json_int(w, "total_bytes_hi", m->total_bytes_hi);
    json_str(w, "fit_confidence",
             tplan_fit_confidence_name(m->fit_confidence));
    json_int(w, "alloc_bytes", m->alloc_bytes);
    json_int(w, "work_copy_bytes", m->work_copy_bytes);
    json_int(w, "context_bytes", m->context_bytes);
    json_int(w, "blas_ws_bytes", m->blas_ws_bytes);
    json_int(w, "gather_bytes", m->gather_bytes);
    json_int(w, "reshard_held_bytes", m->reshard_held_bytes);
    json_int(w, "nccl_bytes", m->nccl_bytes);
    json_int(w, "communicators", m->communicators);
    json_int(w, "nvls_bytes", m->nvls_bytes);
    json_int(w, "bucket_bytes", m->bucket_bytes);
    json_int(w, "step_temp_bytes", m->step_temp_bytes);
    json_int(w, "transient_bytes", m->transient_bytes);
    json_int(w, "off_peak_bytes", m->off_peak_bytes);
    json_int(w, "activations_per_sample_bytes",
             llround(m->act_per_sample_bytes));
    json_int(w, "activations_per_layer_sample_bytes",
             llround(m->act_layer_bytes));
    json_str(w, "stage", tplan_stage_words(m->stage));
    json_int(w, "stage_index", m->stage_index);
    json_int(w, "params_on_device", m->params_on_device);
    json_int(w, "experts_on_device", m->experts_on_device);
    json_int(w, "dequant_bytes", m->dequant_bytes);
    json_int(w, "paged_spill_bytes", m->paged_spill_bytes);
    json_int(w, "host_bytes", m->host_bytes);
    json_int(w, "nvme_bytes", m->nvme_bytes);
    json_int(w, "host_capacity_bytes", m->host_capacity_bytes);
    json_bool(w, "host_fits", m->host_fits);
    json_num(w, "offload_activations", c->offload_activations);
    json_int(w, "act_offload_bytes", m->act_offload_bytes);
    json_num(w, "host_buffer_factor", c->host_buffer_factor);
    json_str(w, "host_basis", host_basis(c));
    json_obj_end(w);
    json_obj_begin(w, "batch");
    json_int(w, "micro_batch", p->micro_batch);
    json_int(w, "max_micro_batch", p->max_micro_batch);
    json_int(w, "accum", p->accum);
    json_int(w, "global_batch", p->global_batch);
    json_int(w, "tokens_per_step", p->tokens_per_step);
    json_int(w, "target_global_batch", p->target_global_batch);
    json_bool(w, "exact", p->batch_exact);
    json_obj_end(w);
    print_json_perf(w, p);
    print_json_recipe(w, p);
    print_json_rows(w, x->rows, x->n_rows, x->brows, x->n_brows);
    print_json_advice(w, p);
    print_json_shorthands(w, x);
    print_json_assumptions(w, x->assumed, x->n_assumed);
    json_arr_begin(w, "warnings");
    for (int i = 0; i < p->n_warnings; i++)
        json_str(w, NULL, p->warnings[i]);
    json_arr_end(w);
    json_plan_fields(w, "fields", p);
    json_obj_end(w);
}
