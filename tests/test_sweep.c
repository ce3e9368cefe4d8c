/* Sweeps: index <-> configuration in mixed radix (the last axis fastest),
 * the walk evaluating exactly the configurations it names, shards and
 * threads giving the ranking of one unsharded run, the counts, and the
 * declarative limits. */
#include "tplan_test.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"
#include "sweep.h"

/* Axis id of an input name (the tests name axes, never ids). */
static int axis(const char *name)
{
    tplan_axis_id id;
    tplan_err err;

    if (tplan_axis_parse(name, &id, &err) != TPLAN_OK) {
        print_error("%s\n", err.msg);
        fail();
    }
    return id;
}

static void add_axis(tplan_sweep_spec *s, const char *name, int n,
                     const double *v)
{
    tplan_axis *a = &s->axes[s->n_axes++];

    a->id = axis(name);
    a->n = n;
    memcpy(a->values, v, sizeof *v * (size_t)n);
}

/* gpt2 on a100-80g over gpus x zero x precision x micro_batch: 48
 * configurations, some invalid (tp 4 needs 4 GPUs), ranked by cost. */
static tplan_sweep_spec *small_spec(void)
{
    static const double gpus[] = {1, 2, 4, 8}, zero[] = {0, 1, 3},
                        prec[] = {3, 0}, /* mixed-bf16, fp32 */
        mb[] = {0, 4}, tp[] = {1, 4};
    tplan_sweep_spec *s = calloc(1, sizeof *s);

    config_for(&s->base, "gpt2", "a100-80g");
    s->base.tokens = 1e9;
    add_axis(s, "gpus", 4, gpus);
    add_axis(s, "tp", 2, tp);
    add_axis(s, "zero", 3, zero);
    add_axis(s, "precision", 2, prec);
    add_axis(s, "micro_batch", 2, mb);
    s->n_rank = 2;
    s->rank[0].metric = TPLAN_M_COST_USD;
    s->rank[1].metric = TPLAN_M_STEP_TIME_S;
    s->keep_mode = TPLAN_KEEP_TOP;
    s->keep = 1000;
    s->pareto = true;
    return s;
}

static void test_index_round_trip(void **state)
{
    static const int64_t gpus[] = {1, 2, 4, 8};
    static const int zero[] = {0, 1, 3};
    tplan_sweep_spec *s = small_spec();
    tplan_config c;
    tplan_err err;

    (void)state;
    assert_int_equal(tplan_sweep_validate(s, &err), TPLAN_OK);
    assert_int_equal(tplan_sweep_size(s), 4 * 2 * 3 * 2 * 2);
    for (int64_t i = 0; i < tplan_sweep_size(s); i++) {
        /* mixed radix by hand: micro_batch fastest, then precision, zero,
         * tp, gpus */
        int64_t r = i;
        int mb = (int)(r % 2), pr, z, t, g;

        r /= 2;
        pr = (int)(r % 2);
        r /= 2;
        z = (int)(r % 3);
        r /= 3;
        t = (int)(r % 2);
        g = (int)(r / 2);
        assert_int_equal(tplan_sweep_config_at(s, i, &c, &err), TPLAN_OK);
        assert_int_equal(c.gpus, gpus[g]);
        assert_int_equal(c.tp, t ? 4 : 1);
        assert_int_equal(c.zero, zero[z]);
        assert_int_equal(c.precision, pr ? TPLAN_PREC_FP32 : TPLAN_PREC_MIXED_BF16);
        assert_int_equal(c.micro_batch, mb ? 4 : 0);
    }
    assert_int_equal(tplan_sweep_config_at(s, -1, &c, &err), TPLAN_EINVAL);
    assert_int_equal(tplan_sweep_config_at(s, 96, &c, &err), TPLAN_EINVAL);
    free(s);
}

/* The walk's plans: each index's config equals tplan_sweep_config_at's. */
typedef struct seen {
    const tplan_sweep_spec *s;
    int64_t n, last;
    int bad;
} seen;

static int record(void *ud, int64_t index, const tplan_plan *p, double *score,
                  tplan_err *err)
{
    seen *v = ud;
    tplan_config c;

    (void)err;
    *score = (double)index;
    tplan_sweep_config_at(v->s, index, &c, err);
    if (index <= v->last || c.gpus != p->config.gpus || c.tp != p->config.tp ||
        c.zero != p->config.zero || c.precision != p->config.precision ||
        c.micro_batch != p->config.micro_batch)
        v->bad++;
    v->last = index;
    v->n++;
    return 1;
}

static void test_walk_matches_index(void **state)
{
    tplan_sweep_spec *s = small_spec();
    tplan_sweep_run r;
    seen v = {s, 0, -1, 0};
    tplan_err err;

    (void)state;
    s->keep_equivalents = true; /* every valid configuration reaches the hook */
    memset(&r, 0, sizeof r);
    r.spec = s;
    r.threads = 1;
    r.shards = 1;
    r.hook = record;
    r.hook_ud = &v;
    assert_int_equal(tplan_sweep_exec(&r, &err), TPLAN_OK);
    assert_int_equal(v.bad, 0);
    assert_int_equal(r.stats.space, 96);
    assert_int_equal(r.stats.visited, 96);
    /* tp 4 with 1 or 2 GPUs is invalid: 2 gpus x 12 others = 24 */
    assert_int_equal(r.stats.invalid, 24);
    assert_int_equal(r.stats.evaluated, 72);
    assert_int_equal(v.n, 72);
    assert_int_equal(r.stats.passed, 72);
    assert_int_equal(r.n_top, 72);
    tplan_sweep_run_free(&r);
    free(s);
}

/* One run: the top entries (index and keys) and the front's indexes. */
/* Run s on threads, shard of shards, into r (freed by the caller). */
static void exec_run(tplan_sweep_run *r, const tplan_sweep_spec *s,
                     int threads, int64_t shard, int64_t shards)
{
    tplan_err err;

    memset(r, 0, sizeof *r);
    r->spec = s;
    r->threads = threads;
    r->shard = shard;
    r->shards = shards;
    assert_int_equal(tplan_sweep_exec(r, &err), TPLAN_OK);
}

static void run(const tplan_sweep_spec *s, int threads, int64_t shard,
                int64_t shards, tplan_ranked *top, int *n_top,
                tplan_ranked *front, int *n_front)
{
    tplan_sweep_run r;

    exec_run(&r, s, threads, shard, shards);
    if (r.n_top > 0)
        memcpy(top, r.top, sizeof *top * (size_t)r.n_top);
    *n_top = r.n_top;
    if (r.n_front > 0) /* r.front is NULL without a front */
        memcpy(front, r.front, sizeof *front * (size_t)r.n_front);
    *n_front = r.n_front;
    tplan_sweep_run_free(&r);
}

static void test_shards_and_threads(void **state)
{
    tplan_sweep_spec *s = small_spec();
    tplan_ranked want[96], got[96], wf[96], gf[96], all[96], allf[96];
    int nw, ng, nwf, ngf;

    (void)state;
    s->keep = 10;
    run(s, 1, 0, 1, want, &nw, wf, &nwf);
    assert_int_equal(nw, 10);
    assert_true(nwf >= 2);
    run(s, 2, 0, 1, got, &ng, gf, &ngf);
    assert_int_equal(ng, nw);
    assert_memory_equal(got, want, sizeof *want * (size_t)nw);
    assert_int_equal(ngf, nwf);
    assert_memory_equal(gf, wf, sizeof *wf * (size_t)nwf);
    /* 3 shards on 1 and 2 threads: the union of their tops, ranked,
     * is the unsharded top; their fronts' union, pruned, its front */
    for (int threads = 1; threads <= 2; threads++) {
        int n = 0, nf = 0;
        tplan_topk t = {got, 10, 0, 2};
        tplan_front f = {gf, 96, 0, 2, false};

        for (int64_t k = 0; k < 3; k++) {
            int a, b;

            run(s, threads, k, 3, all + n, &a, allf + nf, &b);
            for (int i = 0; i < a; i++)
                assert_int_equal(all[n + i].index % 3, k);
            n += a;
            nf += b;
        }
        for (int i = 0; i < n; i++)
            tplan_topk_push(&t, &all[i]);
        tplan_topk_sort(&t);
        for (int i = 0; i < nf; i++)
            tplan_front_push(&f, &allf[i]);
        tplan_ranked_sort(gf, f.n, 2);
        assert_int_equal(t.n, nw);
        assert_memory_equal(got, want, sizeof *want * (size_t)nw);
        assert_int_equal(f.n, nwf);
        for (int i = 0; i < nwf; i++)
            assert_int_equal(gf[i].index, wf[i].index);
    }
    free(s);
}

/* keep = "all" without a sink: each worker keeps its plans in a buffer of
 * its own and the run merges them ranked. With 200 overlap values and 4
 * PUEs the space (76,800 configurations) spans 19 4096-index chunks and
 * keeps more than three chunks' worth, so on 2 and
 * 3 threads several workers keep plans and their runs are merged: the
 * same entries, bytes and order as keep = N over the whole space on one
 * thread. A sweep that keeps nothing on several threads keeps nothing. */
static void test_keep_all_buffers(void **state)
{
    tplan_sweep_spec *s = small_spec();
    double overlap[200];
    tplan_sweep_run r;
    tplan_err err;
    tplan_ranked *want;
    int64_t nw;

    (void)state;
    for (int i = 0; i < 200; i++)
        overlap[i] = i / 200.0;
    add_axis(s, "overlap", 200, overlap);
    add_axis(s, "pue", 4, (const double[]){1.1, 1.2, 1.3, 1.4});
    s->pareto = false;
    s->keep = 76800;
    memset(&r, 0, sizeof r);
    r.spec = s;
    r.threads = 1;
    r.shards = 1;
    assert_int_equal(tplan_sweep_exec(&r, &err), TPLAN_OK);
    nw = r.n_top;
    assert_true(nw > 3 * 4096);
    want = malloc(sizeof *want * (size_t)nw);
    assert_non_null(want);
    memcpy(want, r.top, sizeof *want * (size_t)nw);
    tplan_sweep_run_free(&r);
    s->keep_mode = TPLAN_KEEP_ALL;
    for (int threads = 1; threads <= 3; threads++) {
        memset(&r, 0, sizeof r);
        r.spec = s;
        r.threads = threads;
        r.shards = 1;
        assert_int_equal(tplan_sweep_exec(&r, &err), TPLAN_OK);
        assert_int_equal(r.n_kept, nw);
        assert_int_equal(r.stats.kept, nw);
        assert_memory_equal(r.kept, want, sizeof *want * (size_t)nw);
        tplan_sweep_run_free(&r);
        assert_null(r.kept);
    }
    /* nothing passes: nothing kept, no buffer */
    s->where.min_mfu = 2.0;
    memset(&r, 0, sizeof r);
    r.spec = s;
    r.threads = 3;
    r.shards = 1;
    assert_int_equal(tplan_sweep_exec(&r, &err), TPLAN_OK);
    assert_int_equal(r.n_kept, 0);
    assert_null(r.kept);
    tplan_sweep_run_free(&r);
    free(want);
    free(s);
}

/* A streamed sweep's two walks (lua/l_sweep.c, db/stream.h): the first
 * counts the kept plans and ranks the best top_also of them exactly as an
 * in-memory keep = "all" ranks them, keeping nothing else; the second
 * hands every kept plan to the sink, evaluated in full but for the
 * remedy search. */
typedef struct sunk {
    const tplan_sweep_spec *s;
    int64_t n, fits, bad;
    unsigned char *seen; /* by configuration index */
} sunk;

static int sink_check(void *ud, int64_t index, const tplan_plan *p,
                      double score, void *prep)
{
    sunk *k = ud;
    tplan_plan *q = malloc(sizeof *q);
    tplan_err err;

    (void)score;
    (void)prep;
    k->n++;
    k->fits += p->mem.fits;
    if (!q || k->seen[index]++ ||
        tplan_sweep_eval_at(k->s, &index, 1, q, 1, TPLAN_EVAL_FULL, &err) != TPLAN_OK ||
        memcmp(&p->mem, &q->mem, sizeof p->mem) != 0 ||
        /* the time's figures: what follows them (the communication
         * shape, knobs and memo, perf.h) is the evaluation's working
         * state, its padding unspecified */
        memcmp(&p->perf, &q->perf, offsetof(tplan_perf, shape)) != 0 ||
        memcmp(&p->run, &q->run, sizeof p->run) != 0) {
        k->bad++;
    } else {
        /* the same warnings, less the remedy search's */
        int j = 0;

        for (int i = 0; i < q->n_warnings; i++) {
            if (strstr(q->warnings[i], "would fit with") ||
                strstr(q->warnings[i], "no change tried fits"))
                continue;
            if (j >= p->n_warnings ||
                strcmp(p->warnings[j++], q->warnings[i]) != 0)
                k->bad++;
        }
        if (j != p->n_warnings)
            k->bad++;
    }
    free(q);
    return 0;
}

static void test_streamed_walks(void **state)
{
    tplan_sweep_spec *s = small_spec();
    double overlap[40];
    tplan_sweep_run r;
    tplan_err err;
    tplan_ranked *want, *front;
    int64_t n, nf, unfit = 0;

    (void)state;
    for (int i = 0; i < 40; i++)
        overlap[i] = i / 40.0;
    add_axis(s, "overlap", 40, overlap);
    /* micro-batch 512 does not fit: plans with a diagnosis */
    assert_int_equal(s->axes[4].id, axis("micro_batch"));
    s->axes[4].values[s->axes[4].n++] = 512;
    s->keep_mode = TPLAN_KEEP_ALL;
    memset(&r, 0, sizeof r);
    r.spec = s;
    r.threads = 1;
    r.shards = 1;
    assert_int_equal(tplan_sweep_exec(&r, &err), TPLAN_OK);
    n = r.n_kept;
    nf = r.n_front;
    assert_true(n > 1000 && nf > 1);
    want = malloc(sizeof *want * (size_t)n);
    front = malloc(sizeof *front * (size_t)nf);
    assert_true(want && front);
    memcpy(want, r.kept, sizeof *want * (size_t)n);
    memcpy(front, r.front, sizeof *front * (size_t)nf);
    for (int64_t i = 0; i < n; i++)
        unfit += !want[i].fits;
    assert_true(unfit > 0 && unfit < n);
    tplan_sweep_run_free(&r);
    for (int threads = 1; threads <= 3; threads++) {
        memset(&r, 0, sizeof r);
        r.spec = s;
        r.threads = threads;
        r.shards = 1;
        r.count_only = true;
        r.top_also = 100;
        assert_int_equal(tplan_sweep_exec(&r, &err), TPLAN_OK);
        assert_null(r.kept);
        assert_int_equal(r.stats.kept, n);
        assert_int_equal(r.stats.kept_unfit, unfit);
        assert_int_equal(r.n_top, 100);
        assert_memory_equal(r.top, want, sizeof *want * 100);
        assert_int_equal(r.n_front, nf);
        assert_memory_equal(r.front, front, sizeof *front * (size_t)nf);
        tplan_sweep_run_free(&r);
    }
    for (int threads = 1; threads <= 2; threads++) {
        sunk k = {s, 0, 0, 0, calloc((size_t)tplan_sweep_size(s), 1)};

        assert_non_null(k.seen);
        memset(&r, 0, sizeof r);
        r.spec = s;
        r.threads = threads;
        r.shards = 1;
        r.sink = sink_check;
        r.sink_ud = &k;
        assert_int_equal(tplan_sweep_exec(&r, &err), TPLAN_OK);
        assert_int_equal(k.n, n);
        assert_int_equal(k.fits, n - unfit);
        assert_int_equal(k.bad, 0);
        for (int64_t i = 0; i < n; i++)
            assert_int_equal(k.seen[want[i].index], 1);
        assert_null(r.kept);
        tplan_sweep_run_free(&r);
        free(k.seen);
    }
    free(want);
    free(front);
    free(s);
}

/* Limits keep exactly the plans that pass them. */
static void test_limits(void **state)
{
    tplan_sweep_spec *s = small_spec();
    tplan_ranked top[96], fr[96];
    int n, nf, n_fit = 0, n_gb = 0, n_64 = 0;
    tplan_err err;

    (void)state;
    /* micro-batches of 8 (global batch 8 x dp: exactly 64 on 8 GPUs) and
     * 512 (does not fit): the limits have plans on both sides and on
     * their boundaries */
    s->axes[4].values[0] = 8;
    s->axes[4].values[1] = 512;
    /* count by hand what passes */
    for (int64_t i = 0; i < 96; i++) {
        tplan_config c;
        tplan_plan *p = test_malloc(sizeof *p);

        tplan_sweep_config_at(s, i, &c, &err);
        if (tplan_plan_eval(&c, p, &err) == TPLAN_OK) {
            n_fit += p->mem.fits;
            n_gb += p->global_batch >= 64;
            n_64 += p->global_batch == 64;
        }
        test_free(p);
    }
    assert_true(n_fit > 0 && n_fit < 72);
    s->keep_equivalents = true; /* counted by hand above over every plan */
    s->where.fits = true;
    run(s, 1, 0, 1, top, &n, fr, &nf);
    assert_int_equal(n, n_fit);
    s->where.fits = false;
    s->where.min_global_batch = 64;
    run(s, 1, 0, 1, top, &n, fr, &nf);
    assert_int_equal(n, n_gb);
    assert_true(n_gb > 0 && n_gb < 72 && n_64 > 0);
    /* kept plans that do not fit are counted: top-K, and keep = "all" */
    s->where.min_global_batch = 0;
    for (int mode = 0; mode < 2; mode++) {
        tplan_sweep_run r;
        tplan_err err2;

        memset(&r, 0, sizeof r);
        r.spec = s;
        r.threads = 2;
        r.shards = 1;
        s->keep_mode = mode ? TPLAN_KEEP_ALL : TPLAN_KEEP_TOP;
        assert_int_equal(tplan_sweep_exec(&r, &err2), TPLAN_OK);
        assert_int_equal(r.stats.kept, 72);
        assert_int_equal(r.stats.kept_unfit, 72 - n_fit);
        tplan_sweep_run_free(&r);
    }
    free(s);
}

/* Equivalent configurations: 16 of gpt2 (gpus {1, 2} x zero {0, 3} x
 * recompute {none, selective} x attention {flash, eager}), all valid. Set
 * aside: zero 3 on 1 GPU (dp 1), 4 of them, and selective under flash
 * among the rest (1 on 1 GPU, 2 on 2 GPUs): 7, leaving 9; with
 * keep_equivalents all 16 are ranked. */
static void test_equivalents_counted(void **state)
{
    static const double gpus[] = {1, 2}, zero[] = {3, 0}, rec[] = {1, 0},
                        attn[] = {1, 0}; /* selective, none; flash, eager */
    tplan_sweep_spec *s = calloc(1, sizeof *s);
    tplan_ranked top[16], fr[16];
    int n, nf;

    (void)state;
    config_for(&s->base, "gpt2", "a100-80g");
    s->base.tokens = 1e9;
    s->base.micro_batch = 1;
    add_axis(s, "gpus", 2, gpus);
    add_axis(s, "zero", 2, zero);
    add_axis(s, "recompute", 2, rec);
    add_axis(s, "attention", 2, attn);
    assert_int_equal(s->base.attention, TPLAN_ATTN_FLASH);
    assert_int_equal((int)attn[0], TPLAN_ATTN_FLASH);
    assert_int_equal((int)rec[0], TPLAN_RECOMPUTE_SELECTIVE);
    s->n_rank = 1;
    s->rank[0].metric = TPLAN_M_COST_USD;
    s->keep_mode = TPLAN_KEEP_TOP;
    s->keep = 16;
    run(s, 1, 0, 1, top, &n, fr, &nf);
    assert_int_equal(n, 9);
    for (int i = 0; i < n; i++) { /* none kept is a set-aside one */
        tplan_config c;
        tplan_err err;

        assert_int_equal(tplan_sweep_config_at(s, top[i].index, &c, &err),
                         TPLAN_OK);
        assert_false(c.gpus == 1 && c.zero == 3);
        assert_false(c.attention == TPLAN_ATTN_FLASH &&
                     c.recompute == TPLAN_RECOMPUTE_SELECTIVE);
    }
    run(s, 3, 0, 1, top, &n, fr, &nf); /* threads: the same set */
    assert_int_equal(n, 9);
    s->keep_equivalents = true;
    run(s, 1, 0, 1, top, &n, fr, &nf);
    assert_int_equal(n, 16);
    free(s);
}

/* Every output field of p and q agrees, but the inputs named and the
 * warnings (a ZeRO stage with pp > 1 is warned about at any dp). */
static void assert_same_plan(const tplan_plan *p, const tplan_plan *q,
                             const char *skip)
{
    char a[2048], b[2048];

    for (int id = 0; id < tplan_field_count(); id++) {
        const tplan_field *f = tplan_field_at(id);
        tplan_value u, v;

        if (!(f->flags & TPLAN_FIELD_OUT) || strstr(skip, f->name) ||
            strcmp(f->name, "warnings") == 0)
            continue;
        u = tplan_field_get(id, p, a, sizeof a);
        v = tplan_field_get(id, q, b, sizeof b);
        if (u.i != v.i || !(u.r == v.r || (u.r != u.r && v.r != v.r)) ||
            (u.s && v.s ? strcmp(u.s, v.s) != 0 : u.s != v.s)) {
            print_error("field %s differs (%s)\n", f->name, skip);
            fail();
        }
    }
}

/* The rules are true to the model: across models (GPT-2, Llama 2 7B, a
 * generic model), GPU counts, tp, pp with sp, sequence lengths and
 * micro-batches, a configuration set aside gives its kept twin's plan in
 * every output field. */
static void test_equivalents_are_equal(void **state)
{
    static const char *const models[] = {"gpt2", "llama2-7b", NULL};
    static const int64_t gpus[] = {1, 2, 8}, tps[] = {1, 2}, pps[] = {1, 2},
                         seqs[] = {512, 4096}, mbs[] = {1, 4};
    tplan_plan *p = malloc(sizeof *p), *q = malloc(sizeof *q);
    int pairs = 0, generic = 0;

    (void)state;
    for (int m = 0; m < 3; m++)
        for (int g = 0; g < 3; g++)
            for (int t = 0; t < 2; t++)
                for (int k = 0; k < 2; k++)
                    for (int sq = 0; sq < 2; sq++)
                        for (int b = 0; b < 2; b++)
                            for (int z = 1; z <= 3; z++) {
                                tplan_config c, twin;
                                tplan_err err;

                                if (models[m])
                                    config_for(&c, models[m], "a100-80g");
                                else {
                                    config_for(&c, "gpt2", "a100-80g");
                                    c.model.arch = TPLAN_ARCH_GENERIC;
                                    c.model.generic_params = 1000000000;
                                    c.model.generic_act_bytes_fp32 = 1e8;
                                    c.model.generic_flops_per_sample = 1e12;
                                }
                                c.tokens = 1e9;
                                c.gpus = gpus[g];
                                c.tp = tps[t];
                                c.pp = pps[k];
                                c.sp = c.tp > 1;
                                c.accum = 4 * c.pp;
                                c.seq = models[m] ? seqs[sq] : 1;
                                c.micro_batch = mbs[b];
                                /* zero z at dp 1 against zero 0 */
                                c.zero = z;
                                twin = c;
                                twin.zero = 0;
                                if (tplan_plan_eval(&c, p, &err) == TPLAN_OK &&
                                    p->dp == 1) {
                                    assert_int_equal(
                                        tplan_plan_eval(&twin, q, &err),
                                        TPLAN_OK);
                                    assert_same_plan(p, q, "zero");
                                    pairs++;
                                }
                                /* selective under flash against none; any
                                 * recompute of a generic model against none */
                                c.zero = 0;
                                c.recompute = (tplan_recompute)(z - 1 ? z - 1 : 1);
                                if (models[m] && c.recompute != TPLAN_RECOMPUTE_SELECTIVE)
                                    continue;
                                twin = c;
                                twin.recompute = TPLAN_RECOMPUTE_NONE;
                                if (tplan_plan_eval(&c, p, &err) == TPLAN_OK) {
                                    assert_int_equal(
                                        tplan_plan_eval(&twin, q, &err),
                                        TPLAN_OK);
                                    assert_same_plan(p, q, "recompute");
                                    pairs++;
                                    generic += !models[m];
                                }
                            }
    print_message("%d pairs, %d of a generic model\n", pairs, generic);
    assert_true(pairs > 150); /* 198 when written: not vacuous */
    assert_true(generic > 30); /* 36 */
    free(p);
    free(q);
}

/* Staged evaluation: a sweep re-using memory (and time) across time- and
 * run-class axes gives every plan the figures a full evaluation gives,
 * bit for bit: one hash of every output field per index, with staging on
 * and off, on 1 and 2 threads and over 3 shards. Axes of every reach,
 * time and run axes both inside and outside the ones that reach all, the
 * largest micro-batch among the micro-batches, a GPU-held term. */
typedef struct hashes {
    uint64_t *h;
    int64_t n;
} hashes;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;

    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static int hash_plan(void *ud, int64_t index, const tplan_plan *p,
                      double score, void *prep)
{
    hashes *hs = ud;
    uint64_t h = 14695981039346656037ull;
    char buf[2048];

    (void)score;
    (void)prep;
    for (int id = 0; id < tplan_field_count(); id++) {
        const tplan_field *f = tplan_field_at(id);
        tplan_value v;

        if (!(f->flags & TPLAN_FIELD_OUT))
            continue;
        v = tplan_field_get(id, p, buf, sizeof buf);
        h = fnv(h, &v.i, sizeof v.i);
        h = fnv(h, &v.r, sizeof v.r);
        if (v.s)
            h = fnv(h, v.s, strlen(v.s));
    }
    hs->h[index] = h;
    hs->n++;
    return 0;
}

static void staged_run(tplan_sweep_spec *s, bool unstaged, int threads,
                       int64_t shards, hashes *hs, tplan_sweep_stats *st)
{
    tplan_sweep_run r;
    tplan_err err;

    s->unstaged = unstaged;
    for (int64_t k = 0; k < shards; k++) {
        memset(&r, 0, sizeof r);
        r.spec = s;
        r.threads = threads;
        r.shard = k;
        r.shards = shards;
        r.sink = hash_plan;
        r.sink_ud = hs;
        r.sink_figures = true; /* the plans as staged, not evaluated again */
        if (tplan_sweep_exec(&r, &err) != TPLAN_OK) {
            print_error("%s\n", err.msg);
            fail();
        }
        st->evaluated += r.stats.evaluated;
        st->reused += r.stats.reused;
        st->invalid += r.stats.invalid;
        st->skipped += r.stats.skipped;
        tplan_sweep_run_free(&r);
    }
}

/* Room for a hash per index of s's space, for a full and a staged run;
 * returns the space's size. */
static int64_t alloc_hashes(const tplan_sweep_spec *s, hashes *want,
                            hashes *got)
{
    int64_t size = tplan_sweep_size(s);

    want->h = calloc((size_t)size, sizeof *want->h);
    got->h = calloc((size_t)size, sizeof *got->h);
    assert_non_null(want->h);
    assert_non_null(got->h);
    return size;
}

/* A staged run on threads x shards gives the full run's plans (want)
 * and counts. */
static void expect_staged(tplan_sweep_spec *s, int64_t size, const hashes *want,
                          hashes *got, int threads, int64_t shards,
                          const tplan_sweep_stats *full, tplan_sweep_stats *st)
{
    memset(got->h, 0, sizeof *got->h * (size_t)size);
    staged_run(s, false, threads, shards, got, st);
    assert_memory_equal(want->h, got->h, sizeof *got->h * (size_t)size);
    assert_int_equal(st->invalid, full->invalid);
    assert_int_equal(st->evaluated, full->evaluated);
}

/* A staged test's end: what its one-thread staged run counted, and its
 * spec and hashes freed. */
static void staged_done(tplan_sweep_spec *s, int64_t size,
                        const tplan_sweep_stats *one, hashes *want,
                        hashes *got)
{
    print_message("%lld configurations, %lld evaluated, %lld staged\n",
                  (long long)size, (long long)one->evaluated,
                  (long long)one->reused);
    free(want->h);
    free(got->h);
    free(s);
}

/* Llama 3 8B on H100s at 4096 tokens, a budget, every valid plan kept
 * (equivalent ones too) and ranked by cost: the staged tests' base. */
static tplan_sweep_spec *staged_spec(void)
{
    tplan_sweep_spec *s = calloc(1, sizeof *s);

    config_for(&s->base, "llama3-8b", "h100-sxm");
    s->base.seq = 4096;
    s->base.tokens = 1e12;
    s->n_rank = 1;
    s->rank[0].metric = TPLAN_M_COST_USD;
    s->keep_mode = TPLAN_KEEP_ALL;
    s->keep_equivalents = true;
    return s;
}

static void test_staged_bit_identical(void **state)
{
    static const double gpus[] = {8, 16, 32, 64}, tp[] = {1, 2, 4, 16},
                        overlap[] = {0, 0.5, 1}, pp[] = {1, 2},
                        zero[] = {0, 1, 3}, prec[] = {3, 6}, /* mixed, fp8 */
        rec[] = {0, 2}, price[] = {2, 3}, mb[] = {0, 1, 2},
                        nic[] = {100, 400}, eff[] = {0.9, 1.1},
                        h0[] = {600, 900}, band[] = {0.05, 0.2},
                        pue[] = {1.1, 1.3};
    tplan_sweep_spec *s = staged_spec();
    hashes want = {NULL, 0}, got = {NULL, 0};
    int64_t size;

    (void)state;
    add_axis(s, "gpus", 4, gpus);
    add_axis(s, "tp", 4, tp);
    add_axis(s, "overlap", 3, overlap);
    add_axis(s, "pp", 2, pp);
    add_axis(s, "zero", 3, zero);
    add_axis(s, "precision", 2, prec);
    add_axis(s, "recompute", 2, rec);
    add_axis(s, "price", 2, price);
    add_axis(s, "micro_batch", 3, mb);
    add_axis(s, "nic_gbps", 2, nic);
    add_axis(s, "eff_scale", 2, eff);
    add_axis(s, "eff_h0", 2, h0);
    add_axis(s, "time_band_hi", 2, band);
    add_axis(s, "pue", 2, pue);
    {
        tplan_err err;

        assert_int_equal(tplan_sweep_validate(s, &err), TPLAN_OK);
    }
    size = alloc_hashes(s, &want, &got);
    assert_true(size >= 100000);
    {
        tplan_sweep_stats full = {0}, one = {0}, two = {0}, sh = {0};

        staged_run(s, true, 1, 1, &want, &full);
        assert_int_equal(full.reused, 0);
        assert_true(want.n > 50000); /* most are valid */
        assert_true(full.invalid > 10000); /* tp 16 on 8 GPUs is not */
        staged_run(s, false, 1, 1, &got, &one);
        assert_memory_equal(want.h, got.h, sizeof *got.h * (size_t)size);
        assert_int_equal(one.evaluated, full.evaluated);
        assert_int_equal(one.invalid, full.invalid);
        assert_true(one.reused * 2 > one.evaluated); /* staging happened */
        memset(got.h, 0, sizeof *got.h * (size_t)size);
        staged_run(s, false, 2, 1, &got, &two);
        assert_memory_equal(want.h, got.h, sizeof *got.h * (size_t)size);
        memset(got.h, 0, sizeof *got.h * (size_t)size);
        staged_run(s, false, 2, 3, &got, &sh);
        assert_memory_equal(want.h, got.h, sizeof *got.h * (size_t)size);
        print_message("%lld configurations, %lld evaluated, %lld staged\n",
                      (long long)size, (long long)one.evaluated,
                      (long long)one.reused);
    }
    free(want.h);
    free(got.h);
    free(s);
}

/* Layouts the rules refuse (tp 3 and pp 3 not dividing the GPUs, tp not
 * dividing the heads, sp without tp, vpp without pp, interleaving over
 * layers it does not divide; a generic model, which only the first rule
 * applies to, beside a transformer) and batches the solve refuses: the
 * walk passes each refused
 * sub-space at once, and visits, refuses and evaluates exactly what
 * one-at-a-time evaluation does, on 1 and 2 threads; sharded walks look at
 * each index. */
static void refused_layouts_walk(bool model_inside)
{
    static const double model[] = {0, 1}, gpus[] = {8, 24, 64},
                        tp[] = {1, 2, 3, 8, 64}, pp[] = {1, 3, 4},
                        vpp[] = {1, 2, 3}, sp[] = {0, 1}, zero[] = {0, 1},
                        mb[] = {1, 2}, gb[] = {24, 36, 64},
                        overlap[] = {0, 0.5}, nic[] = {100, 400},
                        price[] = {2, 3};
    tplan_sweep_spec *s = staged_spec();
    hashes want = {NULL, 0}, got = {NULL, 0};
    tplan_sweep_stats full = {0}, one = {0}, two = {0}, sh = {0};
    tplan_config generic;
    int64_t size;
    tplan_err err;

    config_for(&generic, "resnet50", "h100-sxm");
    s->models[0] = s->base.model;
    s->models[1] = generic.model;
    s->n_models = 2;
    if (!model_inside)
        add_axis(s, "model", 2, model);
    add_axis(s, "gpus", 3, gpus);
    add_axis(s, "tp", 5, tp);
    add_axis(s, "pp", 3, pp);
    add_axis(s, "vpp", 3, vpp);
    add_axis(s, "sp", 2, sp);
    add_axis(s, "zero", 2, zero);
    add_axis(s, "micro_batch", 2, mb);
    /* global batches the solve refuses: below micro_batch x dp (24 on
     * 64 GPUs at dp 64), not whole rounds when interleaved (36 at pp 4,
     * vpp 2 on 24 GPUs, dp 6, micro-batch 1: accum 6) */
    add_axis(s, "global_batch", 3, gb);
    add_axis(s, "overlap", 2, overlap);
    add_axis(s, "nic_gbps", 2, nic);
    add_axis(s, "price", 2, price);
    /* innermost: a rule that reads the model and does not say so skips
     * the next model's configurations */
    if (model_inside)
        add_axis(s, "model", 2, model);
    assert_int_equal(tplan_sweep_validate(s, &err), TPLAN_OK);
    size = alloc_hashes(s, &want, &got);
    staged_run(s, true, 1, 1, &want, &full);
    assert_int_equal(full.skipped, 0);
    assert_true(full.invalid * 2 > size); /* most layouts are refused */
    assert_true(want.n > 1000);
    expect_staged(s, size, &want, &got, 1, 1, &full, &one);
    /* nearly all at once with the model outside */
    assert_true(model_inside ? one.skipped > 0
                             : one.skipped * 10 > one.invalid * 9);
    expect_staged(s, size, &want, &got, 2, 1, &full, &two);
    memset(got.h, 0, sizeof *got.h * (size_t)size);
    staged_run(s, false, 2, 3, &got, &sh);
    assert_memory_equal(want.h, got.h, sizeof *got.h * (size_t)size);
    assert_int_equal(sh.invalid, full.invalid);
    assert_int_equal(sh.skipped, 0);
    print_message("%lld configurations, %lld refused, %lld passed at once\n",
                  (long long)size, (long long)one.invalid,
                  (long long)one.skipped);
    free(want.h);
    free(got.h);
    free(s);
}

static void test_refused_layouts_skipped(void **state)
{
    (void)state;
    refused_layouts_walk(false);
    refused_layouts_walk(true);
}

/* A new target global batch innermost, under pipelines deep and
 * interleaved, micro-batches given and not, tensor and sequence
 * parallelism, ZeRO and recomputation: the accumulation it
 * solves leaves the memory as it was (kept) or changes what a stage
 * holds in flight (evaluated again); staged equals full either way, on
 * 1 and 2 threads (spaces of several 4096-index chunks) and 3 shards,
 * for global_batch and global_batch_tokens, each with the memory reserve
 * innermost. */
static void test_staged_batch(void **state)
{
    static const double gpus[] = {32, 64}, tp[] = {1, 2}, sp[] = {0, 1},
                        pp[] = {1, 2, 4, 8}, vpp[] = {1, 2, 4},
                        mb[] = {0, 1, 2, 4}, rec[] = {0, 2}, zero[] = {0, 1},
                        stn[] = {0, 1},
                        gb[] = {32, 64, 96, 128, 256, 384, 1024, 4096},
                        gbt[] = {1e5, 2.6e5, 5.2e5, 1e6, 4.2e6, 1.6e7},
                        /* the reserve, batch-class too: the same memory in
                         * another room, kept or not with the batch */
                        reserve[] = {0.05, 0.55};

    (void)state;
    for (int tokens = 0; tokens < 2; tokens++) {
        tplan_sweep_spec *s = staged_spec();
        hashes want = {NULL, 0}, got = {NULL, 0};
        tplan_sweep_stats full = {0}, one = {0}, two = {0}, sh = {0};
        int64_t size;

        add_axis(s, "gpus", 2, gpus);
        add_axis(s, "tp", 2, tp);
        add_axis(s, "sp", 2, sp);
        add_axis(s, "pp", 4, pp);
        add_axis(s, "vpp", 3, vpp);
        add_axis(s, "micro_batch", 4, mb);
        add_axis(s, "recompute", 2, rec);
        add_axis(s, "zero", 2, zero);
        /* set_to_none: the memory moves when accum crosses 1 */
        add_axis(s, "set_to_none", 2, stn);
        if (tokens)
            add_axis(s, "global_batch_tokens", 6, gbt);
        else
            add_axis(s, "global_batch", 8, gb);
        add_axis(s, "reserve", 2, reserve);
        size = alloc_hashes(s, &want, &got);
        staged_run(s, true, 1, 1, &want, &full);
        expect_staged(s, size, &want, &got, 1, 1, &full, &one);
        expect_staged(s, size, &want, &got, 2, 1, &full, &two);
        expect_staged(s, size, &want, &got, 2, 3, &full, &sh);
        /* most plans follow a neighbour that differs only in the batch */
        assert_true(one.reused * 2 > one.evaluated && full.evaluated > 1000);
        print_message("%lld configurations, %lld evaluated, %lld staged\n",
                      (long long)size, (long long)one.evaluated,
                      (long long)one.reused);
        free(want.h);
        free(got.h);
        free(s);
    }
}

/* Each field of the time or run class, innermost (so it alone changes
 * between neighbours), under axes that reach everything: staged equals
 * full. The table must name every such field. */
static void test_staged_each_field(void **state)
{
    static const struct {
        const char *name;
        double v[2];
    } vals[] = {
        {"overlap", {0.3, 0.8}},
        {"nic_gbps", {100, 400}},
        {"link_gbs", {300, 900}},
        {"efficiency", {0.3, 0.5}},
        {"eff_max", {0.6, 0.8}},
        {"eff_h0", {500, 900}},
        {"eff_tok0", {256, 1024}},
        {"attn_eff", {0.2, 0.4}},
        {"fp8_ratio", {0.5, 0.8}},
        {"eff_tp", {0.01, 0.05}},
        {"eff_scale", {0.9, 1.1}},
        {"dp_bw_eff", {0.3, 0.9}},
        {"zero3_bw_eff", {0.3, 0.9}},
        {"zero12_overlap", {0, 0.5}},
        {"tp_overlap", {0, 1}},
        {"time_band_lo", {0.05, 0.1}},
        {"time_band_hi", {0.05, 0.2}},
        {"moe_overlap", {0.2, 0.8}},
        {"comm_sm_share", {0.1, 0.3}},
        {"price", {2, 3}},
        {"pue", {1.1, 1.4}},
        {"power_util", {0.5, 0.9}},
        {"grid", {0.2, 0.5}},
        {"micro_batch", {1, 2}},
        {"global_batch", {512, 1024}},
        {"global_batch_tokens", {1e6, 4e6}},
        {"reserve", {0.0, 0.6}}, /* moves the fit and the largest micro-batch */
        {"lr", {1e-4, 3e-4}},
        {"lr_base_batch", {256, 1024}},
        {"lr_rule", {0, 1}},
        {"lr_threshold", {512, 4096}},
        {"lr_cap", {2e-4, 1e-3}},
        {"lr_floor", {0.05, 0.2}},
        {"weight_decay", {0.01, 0.1}},
        {"schedule", {0, 2}},
        {"wsd_decay", {0.1, 0.3}},
        {"critical_batch_tokens", {1e6, 4e7}},
        {"target_loss", {2.0, 2.6}},
    };
    static const double gpus[] = {8, 16}, tp[] = {1, 2, 16}, zero[] = {0, 3},
                        mb[] = {0, 1}, prec[] = {3, 6}, gb[] = {512, 1024};
    int covered = 0;

    (void)state;
    for (int id = 0; id < tplan_field_count(); id++) {
        const tplan_field *f = tplan_field_at(id);
        size_t k = 0;
        tplan_sweep_spec *s;
        hashes want = {NULL, 0}, got = {NULL, 0};
        tplan_sweep_stats full = {0}, st = {0};
        int64_t size;

        if (tplan_field_reach(id) == TPLAN_REACH_ALL)
            continue;
        /* staging skips the layout rules for these fields: every value
         * the field takes must pass them, or a staged sweep would keep a
         * plan a full evaluation refuses */
        for (int end = 0; end < 2; end++) {
            tplan_config c;
            tplan_err err;

            config_for(&c, "llama3-8b", "h100-sxm");
            tplan_field_apply(id, end ? f->max : f->min, &c);
            if (tplan_config_validate_layout(&c, &err) != TPLAN_OK) {
                print_error("%s = %g passes the field but not the layout "
                            "rules: %s\n",
                            f->input, end ? f->max : f->min, err.msg);
                fail();
            }
        }
        while (k < sizeof vals / sizeof vals[0] &&
               strcmp(vals[k].name, f->input) != 0)
            k++;
        if (k == sizeof vals / sizeof vals[0]) {
            print_error("no values for staged field %s\n", f->input);
            fail();
        }
        s = staged_spec();
        s->base.lr = 3e-4; /* the LR recipe's fields have figures to move */
        add_axis(s, "gpus", 2, gpus);
        add_axis(s, "tp", 3, tp);
        add_axis(s, "zero", 2, zero);
        /* the micro-batch, staged itself, with the batch's other axis */
        if (strcmp(f->input, "micro_batch") == 0)
            add_axis(s, "global_batch", 2, gb);
        else
            add_axis(s, "micro_batch", 2, mb);
        add_axis(s, "precision", 2, prec);
        add_axis(s, f->input, 2, vals[k].v);
        size = alloc_hashes(s, &want, &got);
        staged_run(s, true, 1, 1, &want, &full);
        staged_run(s, false, 1, 1, &got, &st);
        if (memcmp(want.h, got.h, sizeof *got.h * (size_t)size) != 0) {
            print_error("staged %s differs from full evaluation\n", f->input);
            fail();
        }
        assert_true(st.reused * 2 >= st.evaluated && st.evaluated > 0);
        covered++;
        free(want.h);
        free(got.h);
        free(s);
    }
    assert_int_equal(covered, (int)(sizeof vals / sizeof vals[0]));
}

/* An LR that a staged neighbour had and this plan has not (issue 38:
 * reeval() clears the LR only where the plan before set one): with no
 * base LR, lr_rule deepseek derives one and linear leaves none, walked
 * in that order innermost, so a stale LR would show in lr_rule and the
 * LR's figures. Staged equals full. */
static void test_staged_lr_unset(void **state)
{
    static const double gpus[] = {8, 16}, tp[] = {1, 2}, mb[] = {0, 1},
                        rule[] = {TPLAN_LR_DEEPSEEK, TPLAN_LR_LINEAR};
    tplan_sweep_spec *s = staged_spec();
    hashes want = {NULL, 0}, got = {NULL, 0};
    tplan_sweep_stats full = {0}, st = {0};
    int64_t size;

    (void)state;
    s->base.lr = 0.0;
    add_axis(s, "gpus", 2, gpus);
    add_axis(s, "tp", 2, tp);
    add_axis(s, "micro_batch", 2, mb);
    add_axis(s, "lr_rule", 2, rule);
    size = alloc_hashes(s, &want, &got);
    staged_run(s, true, 1, 1, &want, &full);
    staged_run(s, false, 1, 1, &got, &st);
    assert_memory_equal(want.h, got.h, sizeof *got.h * (size_t)size);
    /* the linear plans were staged after their deepseek neighbour */
    assert_true(st.reused * 2 >= st.evaluated && st.evaluated > 0);
    free(want.h);
    free(got.h);
    free(s);
}

/* Pipeline schedules (issue 34): a sweep over pp_schedule with vpp, pp,
 * the batch and the fields only dualpipe reads (comm_sm_share,
 * moe_overlap) gives the same plans staged as in full, with the layout
 * rules (interleaved needs vpp, dualpipe an even pp and accum) refusing
 * the same ones. */
static void test_staged_schedules(void **state)
{
    static const double gpus[] = {8, 16}, pp[] = {1, 2, 4}, vpp[] = {1, 2},
                        sched[] = {0, 1, 2, 3}, mb[] = {0, 1, 2},
                        gb[] = {32, 64, 96}, sm[] = {0.1, 0.3},
                        mo[] = {0, 0.5};
    tplan_sweep_spec *s = staged_spec();
    hashes want = {NULL, 0}, got = {NULL, 0};
    tplan_sweep_stats full = {0}, one = {0};
    int64_t size;

    (void)state;
    add_axis(s, "gpus", 2, gpus);
    add_axis(s, "pp", 3, pp);
    add_axis(s, "vpp", 2, vpp);
    add_axis(s, "pp_schedule", 4, sched);
    add_axis(s, "micro_batch", 3, mb);
    add_axis(s, "global_batch", 3, gb);
    add_axis(s, "comm_sm_share", 2, sm);
    add_axis(s, "moe_overlap", 2, mo);
    size = alloc_hashes(s, &want, &got);
    staged_run(s, true, 1, 1, &want, &full);
    expect_staged(s, size, &want, &got, 1, 1, &full, &one);
    /* some of each schedule are valid, some refused */
    assert_true(full.invalid > 0 && full.evaluated > 0);
    print_message("%lld configurations, %lld evaluated, %lld refused\n",
                  (long long)size, (long long)full.evaluated,
                  (long long)full.invalid);
    free(want.h);
    free(got.h);
    free(s);
}

/* The communication part re-run alone (tplan_perf_eval_comm, with the
 * layout's groups kept: perf.h's tplan_comm_shape) under layouts where
 * every group it reads exists: a mixture of experts over expert and
 * expert-tensor parallelism, HSDP's shard groups and their replicas,
 * pipelines, ZeRO 1 and 3 and an offloaded optimizer, with the
 * communication-class fields innermost: staged equals full, bit for bit,
 * on 1 and 2 threads. */
static void test_staged_comm_layouts(void **state)
{
    static const double gpus[] = {16, 64}, tp[] = {1, 2}, sp[] = {0, 1},
                        pp[] = {1, 2}, ep[] = {1, 2, 8}, etp[] = {1, 2},
                        zero[] = {1, 3}, shard[] = {0, 8}, off[] = {0, 1},
                        nic[] = {100, 400}, eff[] = {0.5, 0.9},
                        overlap[] = {0.3, 0.9}, tpo[] = {0, 1},
                        link[] = {300, 900};
    tplan_sweep_spec *s = staged_spec();
    hashes want = {NULL, 0}, got = {NULL, 0};
    tplan_sweep_stats full = {0}, one = {0}, two = {0};
    int64_t size;

    (void)state;
    config_for(&s->base, "mixtral-8x7b", "h100-sxm");
    s->base.seq = 4096;
    s->base.tokens = 1e12;
    s->base.global_batch = 256;
    add_axis(s, "gpus", 2, gpus);
    add_axis(s, "tp", 2, tp);
    add_axis(s, "sp", 2, sp);
    add_axis(s, "pp", 2, pp);
    add_axis(s, "ep", 3, ep);
    add_axis(s, "etp", 2, etp);
    add_axis(s, "zero", 2, zero);
    add_axis(s, "zero_shard_group", 2, shard);
    add_axis(s, "offload_optimizer", 2, off);
    add_axis(s, "nic_gbps", 2, nic);
    add_axis(s, "dp_bw_eff", 2, eff);
    add_axis(s, "overlap", 2, overlap);
    add_axis(s, "tp_overlap", 2, tpo);
    add_axis(s, "link_gbs", 2, link);
    size = alloc_hashes(s, &want, &got);
    staged_run(s, true, 1, 1, &want, &full);
    expect_staged(s, size, &want, &got, 1, 1, &full, &one);
    expect_staged(s, size, &want, &got, 2, 1, &full, &two);
    /* most layouts valid, and most evaluations re-use the compute */
    assert_true(full.evaluated > 2000);
    assert_true(one.reused * 10 > one.evaluated * 9);
    staged_done(s, size, &one, &want, &got);
}

/* Only the NIC's speed changing, innermost and alone of the
 * communication class (the fast paths: plan.c's comm_staged and
 * perf.c's nic_rerun, which redoes the pipeline's and the DP/ZeRO
 * traffic alone where no TP group crosses nodes and neither expert or
 * context parallelism nor DualPipe reads the NIC): layouts where a
 * mixture of experts reduces its experts over the data-parallel group,
 * HSDP's shard groups and replicas, ZeRO 0-3, an offloaded optimizer,
 * LoRA, TP groups across nodes of 4 GPUs, expert and context
 * parallelism and DualPipe (the paths that must redo it all): staged
 * equals full, bit for bit, on 1 and 2 threads. */
static void test_staged_nic_only(void **state)
{
    static const double gpus[] = {16, 64}, gpn[] = {4, 8}, tp[] = {1, 8},
                        pp[] = {1, 2}, sched[] = {0, 3}, /* 1f1b, dualpipe */
        ep[] = {1, 2}, cp[] = {1, 2}, zero[] = {0, 2, 3}, shard[] = {0, 8},
                        off[] = {0, 1}, lora[] = {0, 16},
                        nic[] = {100, 200, 400};
    tplan_sweep_spec *s = staged_spec();
    hashes want = {NULL, 0}, got = {NULL, 0};
    tplan_sweep_stats full = {0}, one = {0}, two = {0};
    int64_t size;

    (void)state;
    config_for(&s->base, "mixtral-8x7b", "h100-sxm");
    s->base.seq = 4096;
    s->base.tokens = 1e12;
    s->base.global_batch = 256;
    add_axis(s, "gpus", 2, gpus);
    add_axis(s, "gpus_per_node", 2, gpn);
    add_axis(s, "tp", 2, tp);
    add_axis(s, "pp", 2, pp);
    add_axis(s, "pp_schedule", 2, sched);
    add_axis(s, "ep", 2, ep);
    add_axis(s, "cp", 2, cp);
    add_axis(s, "zero", 3, zero);
    add_axis(s, "zero_shard_group", 2, shard);
    add_axis(s, "offload_optimizer", 2, off);
    add_axis(s, "lora_rank", 2, lora);
    add_axis(s, "nic_gbps", 3, nic);
    size = alloc_hashes(s, &want, &got);
    staged_run(s, true, 1, 1, &want, &full);
    expect_staged(s, size, &want, &got, 1, 1, &full, &one);
    expect_staged(s, size, &want, &got, 2, 1, &full, &two);
    /* not vacuous: many valid layouts, most evaluations NIC-staged */
    assert_true(full.evaluated > 2000);
    assert_true(one.reused * 2 > one.evaluated);
    print_message("%lld configurations, %lld evaluated, %lld staged\n",
                  (long long)size, (long long)one.evaluated,
                  (long long)one.reused);
    /* keep = N, fitting plans first, on one thread (the heap fills in
     * the indexes' order): the staged walk skips the time of the same
     * plans that do not fit (TPLAN_EVAL_FIT_FIRST) as the unstaged one,
     * and keeps the same top N */
    s->keep_mode = TPLAN_KEEP_TOP;
    s->keep = 20;
    {
        tplan_sweep_run a, b;

        s->unstaged = true;
        exec_run(&a, s, 1, 0, 1);
        s->unstaged = false;
        exec_run(&b, s, 1, 0, 1);
        assert_int_equal(a.n_top, 20);
        assert_int_equal(b.n_top, 20);
        assert_memory_equal(a.top, b.top, sizeof *a.top * 20);
        assert_true(a.stats.unfit_untimed > 100); /* not vacuous */
        assert_int_equal(b.stats.unfit_untimed, a.stats.unfit_untimed);
        assert_int_equal(b.stats.evaluated, a.stats.evaluated);
        tplan_sweep_run_free(&a);
        tplan_sweep_run_free(&b);
    }
    free(want.h);
    free(got.h);
    free(s);
}

/* A keep = N sweep whose innermost axis is the NIC's speed: the plans
 * that a step of it leaves as they are (one node: no group crosses
 * nodes; or not fitting once the heap is full of plans that fit) pass
 * the axis's values at once (sweep.c, nic_stands), each offered as
 * visit offers it. The same top N as the unstaged walk, ties (the same
 * plan at each NIC speed, a later index ranking after) included, and
 * the same counts, on one thread; the same top N on two and in shards. */
static void test_nic_stands(void **state)
{
    static const double gpus[] = {8, 16}, tp[] = {1, 2, 8}, pp[] = {1, 2},
                        zero[] = {0, 3}, mb[] = {1, 4, 16},
                        nic[] = {100, 200, 400, 800};
    enum { N = 24 };
    tplan_sweep_spec *s = staged_spec();
    tplan_sweep_run a, b;
    tplan_ranked part[N], got[3 * N], front[1];
    int n, nf, ties = 0;

    (void)state;
    add_axis(s, "gpus", 2, gpus);
    add_axis(s, "tp", 3, tp);
    add_axis(s, "pp", 2, pp);
    add_axis(s, "zero", 2, zero);
    add_axis(s, "micro_batch", 3, mb);
    add_axis(s, "nic_gbps", 4, nic);
    s->keep_mode = TPLAN_KEEP_TOP;
    s->keep = N;
    s->unstaged = true;
    exec_run(&a, s, 1, 0, 1);
    s->unstaged = false;
    assert_int_equal(a.n_top, N);
    /* not vacuous: plans tied over the NIC's values, plans not timed */
    for (int i = 1; i < N; i++)
        ties += a.top[i].key[0] == a.top[i - 1].key[0];
    assert_true(ties >= N / 2);
    assert_true(a.stats.unfit_untimed > 10);
    for (int threads = 1; threads <= 2; threads++) {
        exec_run(&b, s, threads, 0, 1);
        assert_int_equal(b.n_top, N);
        assert_memory_equal(a.top, b.top, sizeof *a.top * N);
        if (threads == 1) {
            assert_int_equal(b.stats.evaluated, a.stats.evaluated);
            assert_int_equal(b.stats.invalid, a.stats.invalid);
            assert_int_equal(b.stats.passed, a.stats.passed);
            assert_int_equal(b.stats.unfit_untimed, a.stats.unfit_untimed);
            assert_true(b.stats.reused * 2 > b.stats.evaluated);
        }
        tplan_sweep_run_free(&b);
    }
    {
        tplan_topk t = {got, N, 0, 1};

        for (int64_t k = 0; k < 3; k++) {
            run(s, 1, k, 3, part, &n, front, &nf);
            for (int i = 0; i < n; i++)
                tplan_topk_push(&t, &part[i]);
        }
        tplan_topk_sort(&t);
        assert_int_equal(t.n, N);
        assert_memory_equal(got, a.top, sizeof *a.top * N);
    }
    tplan_sweep_run_free(&a);
    /* equivalent layouts dropped (one data-parallel rank: the ZeRO
     * stages alike), which visit's answer for the plan before stands for
     * along the NIC axis; a heap with room for every plan, so that one
     * offered that should not be shows */
    s->keep_equivalents = false;
    s->keep = 400; /* over the 288 configurations */
    s->unstaged = true;
    exec_run(&a, s, 1, 0, 1);
    s->unstaged = false;
    exec_run(&b, s, 1, 0, 1);
    assert_true(a.stats.dropped[TPLAN_DROP_EQUIVALENT] > 0);
    assert_int_equal(b.stats.dropped[TPLAN_DROP_EQUIVALENT],
                     a.stats.dropped[TPLAN_DROP_EQUIVALENT]);
    assert_int_equal(b.stats.passed, a.stats.passed);
    assert_int_equal(b.stats.unfit_untimed, a.stats.unfit_untimed);
    assert_int_equal(a.n_top, a.stats.passed);
    assert_int_equal(b.n_top, a.n_top);
    assert_memory_equal(a.top, b.top, sizeof *a.top * (size_t)a.n_top);
    tplan_sweep_run_free(&a);
    tplan_sweep_run_free(&b);
    free(s);
}

/* A NIC step whose staged evaluation fails (sweep.c, nic_walk): a run
 * time out of range at a slow NIC (a huge budget of short steps), between
 * speeds that pass. Counted as visit counts it, and the next value is
 * evaluated in full: the same top N and counts as the unstaged walk. */
static void test_nic_walk_refused(void **state)
{
    static const double gpus[] = {16, 32}, zero[] = {1, 3}, mb[] = {1, 2},
                        nic[] = {400, 0.1, 200, 0.1, 800};
    enum { N = 8 };
    tplan_sweep_spec *s = staged_spec();
    tplan_sweep_run a, b;

    (void)state;
    s->base.seq = 128;
    s->base.tokens = 1e18;
    add_axis(s, "gpus", 2, gpus);
    add_axis(s, "zero", 2, zero);
    add_axis(s, "micro_batch", 2, mb);
    add_axis(s, "nic_gbps", 5, nic);
    s->keep_mode = TPLAN_KEEP_TOP;
    s->keep = N;
    s->unstaged = true;
    exec_run(&a, s, 1, 0, 1);
    s->unstaged = false;
    exec_run(&b, s, 1, 0, 1);
    print_message("%lld evaluated, %lld refused, %lld staged\n",
                  (long long)b.stats.evaluated, (long long)b.stats.invalid,
                  (long long)b.stats.reused);
    /* not vacuous: the slow NIC refused, the others passed */
    assert_true(a.stats.invalid > 0 && a.stats.passed > a.stats.invalid);
    assert_int_equal(b.n_top, a.n_top);
    assert_memory_equal(a.top, b.top, sizeof *a.top * (size_t)a.n_top);
    assert_int_equal(b.stats.evaluated, a.stats.evaluated);
    assert_int_equal(b.stats.invalid, a.stats.invalid);
    assert_int_equal(b.stats.passed, a.stats.passed);
    assert_true(b.stats.reused > 0);
    tplan_sweep_run_free(&a);
    /* keep = "all" walks by visit alone (not plain_top): where every
     * plan fits (no time skipped) the same evaluations staged and
     * refused, so a refusal ends the staging there too */
    s->keep_mode = TPLAN_KEEP_ALL;
    exec_run(&a, s, 1, 0, 1);
    assert_int_equal(a.stats.kept_unfit, 0);
    assert_int_equal(b.stats.reused, a.stats.reused);
    assert_int_equal(b.stats.invalid, a.stats.invalid);
    tplan_sweep_run_free(&a);
    tplan_sweep_run_free(&b);
    free(s);
}

/* A plan's hash (hash_plan's) */
static uint64_t plan_hash(const tplan_plan *p)
{
    uint64_t h[1];
    hashes hs = {h, 0};

    hash_plan(&hs, 0, p, 0.0, NULL);
    return h[0];
}

/* A NIC-only staged evaluation (TPLAN_EVAL_COMM_ONLY, FIT_FIRST) of a
 * plan that does not fit gives what the plan evaluated alone with
 * FIT_FIRST gives (time skipped) where the plan before was skipped
 * (plan.c, comm_unfit_stands keeps it), with and without an LR; where it
 * was timed (asked before FIT_FIRST) it is skipped too (comm_unfit_stands
 * does not keep it). */
static void test_comm_unfit(void **state)
{
    const unsigned staged = TPLAN_EVAL_FIGURES | TPLAN_EVAL_REUSE_COMPUTE |
                            TPLAN_EVAL_COMM_ONLY | TPLAN_EVAL_FIT_FIRST;
    tplan_plan *p = malloc(sizeof *p), *q = malloc(sizeof *q);
    tplan_config c;
    tplan_err e;

    (void)state;
    assert_non_null(p);
    assert_non_null(q);
    config_for(&c, "llama3-8b", "h100-sxm");
    c.seq = 4096;
    c.tokens = 1e12;
    c.gpus = 16;        /* two nodes: the DP group crosses them */
    c.micro_batch = 16; /* does not fit */
    for (int lr = 0; lr < 2; lr++) {
        c.lr = lr ? 3e-4 : 0.0;
        for (int before = 0; before < 2; before++) {
            /* the plan before: skipped, or timed (no FIT_FIRST) */
            c.nic_bytes_per_s = 100e9 / 8.0;
            p->config = c;
            assert_int_equal(
                tplan_plan_eval_cached(&p->config, NULL, p,
                                       TPLAN_EVAL_FIGURES |
                                           (before ? 0 : TPLAN_EVAL_FIT_FIRST),
                                       &e),
                TPLAN_OK);
            assert_false(p->mem.fits);
            assert_int_equal(p->time_skipped, !before);
            p->config.nic_bytes_per_s = 400e9 / 8.0;
            assert_int_equal(
                tplan_plan_eval_cached(&p->config, NULL, p, staged, &e),
                TPLAN_OK);
            q->config = p->config;
            assert_int_equal(tplan_plan_eval_cached(
                                 &q->config, NULL, q,
                                 TPLAN_EVAL_FIGURES | TPLAN_EVAL_FIT_FIRST, &e),
                             TPLAN_OK);
            assert_true(q->time_skipped);
            assert_int_equal(p->time_skipped, q->time_skipped);
            /* a plan timed before keeps that time's figures beside
             * time_skipped (plan.c, reeval: a sweep turns it away unseen),
             * so only its standing is compared */
            if (!before)
                assert_true(plan_hash(p) == plan_hash(q));
        }
    }
    free(p);
    free(q);
}

/* One step of test_deferred_unfit: p (through the cache) and q (alone,
 * no cache) evaluated for c; where p's memory is whole, the two plans'
 * output fields and memory bytes are the same, else their fit verdicts
 * (tplan_memory.partial). Returns p's partial. */
static bool deferred_step(const tplan_config *c, tplan_act_cache *cache,
                          tplan_plan *p, tplan_plan *q, unsigned staged,
                          unsigned fit_first)
{
    const unsigned base = TPLAN_EVAL_FIGURES | TPLAN_EVAL_TRUSTED_PARTS |
                          TPLAN_EVAL_LAYOUT_CHECKED;
    tplan_err e;

    p->config = *c;
    assert_int_equal(tplan_plan_eval_cached(&p->config, cache, p,
                                            base | staged | fit_first, &e),
                     TPLAN_OK);
    memset(q, 0, sizeof *q);
    assert_int_equal(tplan_plan_eval_cached(c, NULL, q, base | fit_first, &e),
                     TPLAN_OK);
    assert_false(q->mem.partial);
    assert_int_equal(p->mem.fits, q->mem.fits);
    assert_int_equal(p->mem.host_fits, q->mem.host_fits);
    assert_int_equal(p->mem.micro_batch, q->mem.micro_batch);
    assert_int_equal(p->mem.max_micro_batch, q->mem.max_micro_batch);
    assert_int_equal(p->mem.out_of_range, q->mem.out_of_range);
    assert_int_equal(p->time_skipped, q->time_skipped);
    if (!p->mem.partial) {
        assert_true(plan_hash(p) == plan_hash(q));
        assert_memory_equal(&p->mem, &q->mem, sizeof p->mem);
    }
    return p->mem.partial;
}

/* A batch-staged evaluation under TPLAN_EVAL_FIT_FIRST of a plan that
 * does not fit stops its memory after the fit verdict (memory.c
 * defer_fill, tplan_memory.partial); what follows is whole again: the
 * next micro-batch's fill through the memo, a batch-staged change of
 * the global batch alone asked without FIT_FIRST (no kept memory:
 * plan_batch.c still_holds), a run-class change without it (plan.c tail
 * evaluates the memory again), over a dense layout, a pipeline and
 * ZeRO-3. */
static void test_deferred_unfit(void **state)
{
    const unsigned batch = TPLAN_EVAL_REUSE_BATCH;
    const unsigned ff = TPLAN_EVAL_FIT_FIRST;
    static const int64_t layouts[][3] = {{1, 1, 1}, {2, 2, 1}, {1, 1, 3}};
    tplan_act_cache *cache = calloc(1, sizeof *cache);
    tplan_plan *p = calloc(1, sizeof *p), *q = malloc(sizeof *q);
    tplan_config c;
    int partial = 0;

    (void)state;
    assert_non_null(cache);
    assert_non_null(p);
    assert_non_null(q);
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
        config_for(&c, "llama3-8b", "h100-sxm");
        c.seq = 4096;
        c.tokens = 1e12;
        c.gpus = 8;
        c.tp = layouts[l][0];
        c.pp = layouts[l][1];
        c.zero = (int)layouts[l][2];
        c.recompute = TPLAN_RECOMPUTE_FULL;
        c.global_batch = 512;
        c.micro_batch = 1; /* fits */
        assert_false(deferred_step(&c, cache, p, q, 0, ff));
        assert_true(p->mem.fits);
        c.micro_batch = 64; /* does not fit: the verdict alone */
        assert_true(deferred_step(&c, cache, p, q, batch, ff));
        partial++;
        c.micro_batch = 2; /* fits: filled over the verdict */
        assert_false(deferred_step(&c, cache, p, q, batch, ff));
        assert_true(p->mem.fits);
        c.micro_batch = 64;
        assert_true(deferred_step(&c, cache, p, q, batch, ff));
        /* the global batch alone, asked without FIT_FIRST: the memory
         * is evaluated again and timed */
        c.global_batch = 1024;
        assert_false(deferred_step(&c, cache, p, q, batch, 0));
        assert_false(p->time_skipped);
        assert_true(deferred_step(&c, cache, p, q, 0, ff) == false);
        c.micro_batch = 128;
        assert_true(deferred_step(&c, cache, p, q, batch, ff));
        /* a run-class change asked without FIT_FIRST: timed, over the
         * memory in full */
        c.price_usd_per_h = 3.5;
        assert_false(
            deferred_step(&c, cache, p, q, TPLAN_EVAL_REUSE_TIME, 0));
        assert_false(p->time_skipped);
    }
    assert_int_equal(partial, 3);
    free(q);
    free(p);
    free(cache);
}

/* Every plan of s's sweep (staged, on 1 and 2 threads) equals its
 * configuration evaluated alone, with no cache (tplan_plan_eval_ex):
 * what a memo of the worker's cache keeps is checked against nothing
 * kept at all. Returns the plans evaluated. */
static int64_t expect_alone(tplan_sweep_spec *s)
{
    hashes want = {NULL, 0}, got = {NULL, 0};
    tplan_sweep_stats st = {0};
    tplan_plan *p = malloc(sizeof *p);
    int64_t size = tplan_sweep_size(s);
    /* bounded, so that the compiler sees no huge allocation */
    size_t n = size > 0 && size <= (1 << 20) ? (size_t)size : 1;
    tplan_config c;
    tplan_err e;

    assert_int_equal(n, size);
    want.h = calloc(n, sizeof *want.h);
    got.h = calloc(n, sizeof *got.h);
    assert_non_null(want.h);
    assert_non_null(got.h);
    assert_non_null(p);
    for (int64_t i = 0; i < size; i++)
        if (tplan_sweep_config_at(s, i, &c, &e) == TPLAN_OK &&
            tplan_plan_eval_ex(&c, p, TPLAN_EVAL_FIGURES, &e) == TPLAN_OK)
            hash_plan(&want, i, p, 0.0, NULL);
    for (int threads = 1; threads <= 2; threads++) {
        memset(got.h, 0, sizeof *got.h * (size_t)size);
        got.n = 0;
        staged_run(s, false, threads, 1, &got, &st);
        assert_int_equal(got.n, want.n);
        assert_memory_equal(want.h, got.h, sizeof *got.h * (size_t)size);
    }
    free(p);
    free(want.h);
    free(got.h);
    return want.n;
}

/* An axis of the states memo's test. */
typedef struct memo_axis {
    const char *name;
    int n;
    double v[3];
} memo_axis;

/* expect_alone over base's sweep of the fields in xs, each in turn the
 * innermost of them, then the recomputation and the inner axes in[]: a
 * change of that field alone, and one of the recomputation alone, each
 * come after the other. Returns the plans evaluated, over all turns. */
static int64_t expect_alone_turns(const tplan_config *base, const memo_axis *xs,
                                  int nx, const memo_axis *in, int nin)
{
    int64_t n = 0;

    for (int k = 0; k < nx; k++) {
        tplan_sweep_spec *s = staged_spec();

        s->base = *base;
        for (int i = 0; i < nx; i++)
            if (i != k)
                add_axis(s, xs[i].name, xs[i].n, xs[i].v);
        add_axis(s, xs[k].name, xs[k].n, xs[k].v);
        for (int i = 0; i < nin; i++)
            add_axis(s, in[i].name, in[i].n, in[i].v);
        n += expect_alone(s);
        free(s);
    }
    return n;
}

/* The memory's states memo (memory.c, tplan_states_memo) keeps each
 * stage's model states while only recompute, recompute_modules,
 * micro_batch or accum change: under the mixtures of experts' ep and
 * HSDP, ZeRO stages, offload, cp, LoRA and QLoRA, activation offloading,
 * DualPipe and set_to_none (one micro-batch a step frees the gradients),
 * each of them changing alone between two recomputations. Each plan
 * equals the one evaluated alone. */
static void test_states_memo(void **state)
{
    static const memo_axis moe[] = {
        {"gpus", 2, {16, 64}},
        {"ep", 2, {1, 8}},
        {"zero", 2, {1, 3}},
        {"zero_shard_group", 2, {0, 8}},
        {"offload_optimizer", 2, {0, TPLAN_OFFLOAD_CPU}},
        {"cp", 2, {1, 2}},
    };
    static const memo_axis moe_in[] = {
        {"recompute",
         3,
         {TPLAN_RECOMPUTE_NONE, TPLAN_RECOMPUTE_SELECTIVE,
          TPLAN_RECOMPUTE_FULL}},
        {"recompute_modules", 2, {0, TPLAN_RC_MOE_ACT | TPLAN_RC_LAYERNORM}},
        {"micro_batch", 2, {1, 2}},
    };
    static const memo_axis dense[] = {
        {"lora_rank", 2, {0, 16}},
        {"base_precision", 2, {0, TPLAN_BASE_NF4}},
        {"offload_activations", 2, {0, 0.5}},
        {"pp", 2, {1, 4}},
        {"pp_schedule", 2, {0, TPLAN_PP_DUALPIPE}},
        {"set_to_none", 2, {0, 1}},
        {"precision", 2, {3, 0}}, /* mixed-bf16, fp32 */
    };
    static const memo_axis dense_in[] = {
        {"recompute",
         3,
         {TPLAN_RECOMPUTE_NONE, TPLAN_RECOMPUTE_SELECTIVE,
          TPLAN_RECOMPUTE_FULL}},
        {"global_batch", 2, {64, 128}},
        {"micro_batch", 2, {1, 2}},
    };
    tplan_config base;
    int64_t n;

    (void)state;
    config_for(&base, "mixtral-8x7b", "h100-sxm");
    base.seq = 4096;
    base.tokens = 1e12;
    n = expect_alone_turns(&base, moe, 6, moe_in, 3);
    assert_true(n > 1000);
    print_message("mixtral: %lld plans\n", (long long)n);
    config_for(&base, "llama3-8b", "h100-sxm");
    base.seq = 4096;
    base.tokens = 1e12;
    base.gpus = 8;
    n = expect_alone_turns(&base, dense, 7, dense_in, 3);
    assert_true(n > 1000);
    print_message("llama: %lld plans\n", (long long)n);
}

/* A sweep's worker checks the layout rules that read recompute,
 * precision, zero or micro_batch alone where only those axes moved since
 * the last configuration that passed them all (engine/layout_memo.c,
 * config.c tplan_config_recheck): each rule that reads them refuses here
 * right after a configuration that passed (recompute full with
 * recompute_modules; fp8_activations without fp8; zero below 3 without
 * resharding or with offloaded parameters; zero 0 with a shard group),
 * each of the other axes in turn innermost. Each plan, and which
 * configurations are refused, equals the configuration evaluated alone. */
static void test_layout_memo(void **state)
{
    static const memo_axis xs[] = {
        {"tp", 2, {1, 2}},
        {"recompute_modules", 2, {0, TPLAN_RC_CORE_ATTN}},
        {"fp8_activations", 2, {0, 1}},
        {"reshard_after_forward", 2, {1, 0}},
        {"offload_params", 2, {0, TPLAN_OFFLOAD_CPU}},
        {"zero_shard_group", 2, {0, 4}},
        {"zero", 3, {3, 1, 0}},
        {"precision", 2, {6, 3}}, /* fp8, mixed-bf16 */
    };
    static const memo_axis in[] = {
        {"recompute",
         3,
         {TPLAN_RECOMPUTE_NONE, TPLAN_RECOMPUTE_SELECTIVE,
          TPLAN_RECOMPUTE_FULL}},
        {"micro_batch", 2, {1, 2}},
    };
    tplan_config base;
    int64_t n;

    (void)state;
    config_for(&base, "llama3-8b", "h100-sxm");
    base.seq = 4096;
    base.tokens = 1e12;
    base.gpus = 8;
    n = expect_alone_turns(&base, xs, 8, in, 2);
    /* of 8 x 2304 configurations, most refused by one of the rules */
    assert_true(n > 1000);
    print_message("%lld plans\n", (long long)n);
}

/* tplan_config_recheck is sound: a configuration that passed the layout
 * rules, then changed in some of recompute, precision, zero and
 * micro_batch (the fields the layout memo rechecks alone), where the
 * recheck of each passes, passes the whole check too. Its rules are
 * kept in step with check_layout's by hand (config.c): over random
 * configurations of dense, MoE and MLA models on H100 and B200, with
 * the fields those rules combine with (parallelism, ZeRO sharding and
 * offload, LoRA and QLoRA, fp8 options, schedules), a rule that reads
 * one of the four fields but is missing from the recheck shows as a
 * configuration the recheck passes and the whole check refuses. */
typedef struct recheck_axis {
    const char *name;
    int n;
    double v[8];
} recheck_axis;

/* 0..k-1 from a 64-bit LCG (Knuth's MMIX constants): a fixed sequence */
static int pick(uint64_t *rng, int k)
{
    *rng = *rng * 6364136223846793005u + 1442695040888963407u;
    return (int)((*rng >> 33) % (uint64_t)k);
}

static void test_recheck_sound(void **state)
{
    static const char *const models[] = {"llama3-8b", "mixtral-8x7b",
                                         "deepseek-v3", "gpt2"};
    static const char *const gpus[] = {"h100-sxm", "b200"};
    static const recheck_axis outer[] = {
        {"gpus", 3, {8, 16, 64}},
        {"tp", 3, {1, 2, 8}},
        {"pp", 3, {1, 2, 4}},
        {"vpp", 2, {1, 2}},
        {"cp", 2, {1, 2}},
        {"ep", 2, {1, 8}},
        {"sp", 2, {0, 1}},
        {"pp_schedule", 4, {0, 1, 2, 3}},
        {"recompute_modules", 3, {0, TPLAN_RC_CORE_ATTN, TPLAN_RC_MLP}},
        {"fp8_activations", 2, {0, 1}},
        {"fp8_recipe", 4, {0, 1, 2, 3}},
        {"reshard_after_forward", 2, {1, 0}},
        {"offload_params", 2, {0, TPLAN_OFFLOAD_CPU}},
        {"offload_optimizer", 2, {0, TPLAN_OFFLOAD_CPU}},
        {"zero_shard_group", 3, {0, 4, 8}},
        {"lora_rank", 2, {0, 8}},
        {"base_precision", 3, {0, 1, 3}},
        {"optimizer", 3, {0, 6, 10}},
    };
    /* the four the memo rechecks, and their values (precision: the
     * table's every entry) */
    static const recheck_axis inner[] = {
        {"recompute", 3, {0, 1, 2}},
        {"precision", 8, {0, 1, 2, 3, 4, 5, 6, 7}},
        {"zero", 4, {0, 1, 2, 3}},
        {"micro_batch", 4, {0, 1, 2, 8}},
    };
    enum { NO = sizeof outer / sizeof outer[0], NI = 4, SAMPLES = 100000 };
    uint64_t rng = 0x9e3779b97f4a7c15u;
    int64_t passed = 0, refused = 0, rechecked = 0;

    (void)state;
    assert_int_equal(TPLAN_PREC_COUNT <= 8, true);
    for (int n = 0; n < SAMPLES; n++) {
        tplan_config c1, c2;
        bool ok = true;

        int model = pick(&rng, 4);

        config_for(&c1, models[model], gpus[pick(&rng, 2)]);
        c1.seq = 4096;
        c1.tokens = 1e12;
        for (int i = 0; i < NO; i++) {
            int id = tplan_field_find_input(outer[i].name);

            assert_true(id >= 0);
            /* half of them left at the model's defaults: random values
             * for all of them pass the rules one time in a hundred */
            if (pick(&rng, 2))
                tplan_field_apply(id, outer[i].v[pick(&rng, outer[i].n)],
                                  &c1);
        }
        for (int i = 0; i < NI; i++)
            tplan_field_apply(tplan_field_find_input(inner[i].name),
                              inner[i].v[pick(&rng, inner[i].n)], &c1);
        if (tplan_config_validate_layout(&c1, NULL) != TPLAN_OK)
            continue;
        /* some of the four moved, each to any of its values */
        c2 = c1;
        for (int i = 0, moved = 1 + pick(&rng, 15); i < NI; i++) {
            int id = tplan_field_find_input(inner[i].name);

            if (!(moved >> i & 1))
                continue;
            tplan_field_apply(id, inner[i].v[pick(&rng, inner[i].n)], &c2);
        }
        for (int i = 0; i < NI; i++) {
            int id = tplan_field_find_input(inner[i].name);

            ok = ok && tplan_config_recheck(&c2, tplan_field_recheck(id));
        }
        rechecked++;
        if (tplan_config_validate_layout(&c2, NULL) == TPLAN_OK) {
            passed++;
            continue;
        }
        refused++;
        if (ok)
            fail_msg("the recheck passes what check_layout refuses (sample "
                     "%d: recompute %d, precision %d, zero %d, micro_batch "
                     "%lld)",
                     n, (int)c2.recompute, (int)c2.precision, c2.zero,
                     (long long)c2.micro_batch);
    }
    print_message("%lld passed configurations changed: %lld pass, %lld "
                  "refused\n",
                  (long long)rechecked, (long long)passed, (long long)refused);
    /* not vacuous: many changed configurations, both verdicts */
    assert_true(rechecked > 2000);
    assert_true(passed > 500 && refused > 500);
}

/* Paged optimizer states spill to the host at the micro-batches whose
 * activations leave them no room, and not at the others: only the
 * micro-batch changes between neighbours (innermost, up and down: a
 * spill at 2, none at 1 after it), so the memory is filled in place
 * (memory.c, the stage memo's filled) after a fill with a spill and
 * after one without, LoRA or not, ZeRO 0 or 3, on 1 to 4 A100-40GBs.
 * Staged equals full, bit for bit. */
static void test_staged_paged_spill(void **state)
{
    /* optimizer: paged-adamw-8bit, paged-adamw-32bit, adamw (fields.c) */
    static const double gpus[] = {1, 2, 4}, opt[] = {10, 11, 0},
                        lora[] = {0, 16}, zero[] = {0, 3},
                        mb[] = {2, 1, 16, 1, 4};
    tplan_sweep_spec *s = staged_spec();
    hashes want = {NULL, 0}, got = {NULL, 0};
    tplan_sweep_stats full = {0}, one = {0};
    int64_t size;

    (void)state;
    config_for(&s->base, "llama3-8b", "a100-40g");
    s->base.seq = 2048;
    s->base.tokens = 1e9;
    s->base.global_batch = 64;
    add_axis(s, "gpus", 3, gpus);
    add_axis(s, "optimizer", 3, opt);
    add_axis(s, "lora_rank", 2, lora);
    add_axis(s, "zero", 2, zero);
    add_axis(s, "micro_batch", 5, mb);
    size = alloc_hashes(s, &want, &got);
    staged_run(s, true, 1, 1, &want, &full);
    expect_staged(s, size, &want, &got, 1, 1, &full, &one);
    assert_true(one.reused * 2 > one.evaluated);
    staged_done(s, size, &one, &want, &got);
}

/* Only the micro-batch changes between neighbours, at a global batch
 * that leaves the samples a step different from one micro-batch to the
 * next (accum rounded: 60 over 4 or 8 ranks), across what changes the
 * FLOPs: a dense model, a mixture of experts, DeepSeek-V3's MTP modules,
 * a generic model, each recomputation and attention kernel, recompute
 * modules and LoRA. The staged FLOPs come from the factors kept with the
 * time (perf.h's tplan_perf_memo): staged equals full, bit for bit. */
static void test_staged_micro_batch_flops(void **state)
{
    static const double model[] = {0, 1, 2, 3}, pp[] = {1, 2},
                        rec[] = {0, 1, 2}, attn[] = {0, 1},
                        mods[] = {0, TPLAN_RC_MLP | TPLAN_RC_MOE},
                        lora[] = {0, 8}, mb[] = {1, 2, 3, 5};
    static const char *const names[] = {"llama3-8b", "mixtral-8x7b",
                                        "deepseek-v3", "resnet50"};
    tplan_sweep_spec *s = staged_spec();
    hashes want = {NULL, 0}, got = {NULL, 0};
    tplan_sweep_stats full = {0}, one = {0};
    tplan_config c;
    int64_t size;

    (void)state;
    for (int i = 0; i < 4; i++) {
        config_for(&c, names[i], "h100-sxm");
        s->models[i] = c.model;
    }
    s->n_models = 4;
    s->base.gpus = 8;
    s->base.global_batch = 60;
    add_axis(s, "model", 4, model);
    add_axis(s, "pp", 2, pp);
    add_axis(s, "recompute", 3, rec);
    add_axis(s, "attention", 2, attn);
    add_axis(s, "recompute_modules", 2, mods);
    add_axis(s, "lora_rank", 2, lora);
    add_axis(s, "micro_batch", 4, mb);
    size = alloc_hashes(s, &want, &got);
    staged_run(s, true, 1, 1, &want, &full);
    expect_staged(s, size, &want, &got, 1, 1, &full, &one);
    /* most plans valid, most of them staged */
    assert_true(full.evaluated * 2 > size);
    assert_true(one.reused * 2 > one.evaluated);
    staged_done(s, size, &one, &want, &got);
}

/* keep = N, fitting plans first: once a worker's top N all fit, a plan
 * that does not is not timed (TPLAN_EVAL_FIT_FIRST), and the staged
 * evaluations after it (a micro-batch, a time, a communication, a run
 * field and the reserve inside) time theirs afresh. The top N is the
 * keep = "all" run's first N, entry for entry (keys, standing, index),
 * on 1 and 2 threads and over 3 shards, with the same counts. */
static void test_fit_first(void **state)
{
    static const double gpus[] = {8, 16, 32}, tp[] = {1, 2}, pp[] = {1, 2},
                        zero[] = {1, 3}, rec[] = {0, 2}, /* none, full */
        mb[] = {1, 4, 16}, eff[] = {0.9, 1.1}, nic[] = {100, 400},
                        pue[] = {1.1, 1.3}, reserve[] = {0.6, 0.0};
    enum { N = 40 };
    tplan_sweep_spec *s = staged_spec();
    tplan_sweep_run r;
    tplan_ranked want[N], got[3 * N], front[1];
    int64_t evaluated, invalid, unfit;
    int n, nf;

    (void)state;
    add_axis(s, "gpus", 3, gpus);
    add_axis(s, "tp", 2, tp);
    add_axis(s, "pp", 2, pp);
    add_axis(s, "zero", 2, zero);
    add_axis(s, "recompute", 2, rec);
    add_axis(s, "micro_batch", 3, mb);
    add_axis(s, "eff_scale", 2, eff);
    add_axis(s, "nic_gbps", 2, nic);
    add_axis(s, "pue", 2, pue);
    /* a reserve that does not fit, then one that does, at the same
     * micro-batch: the second must not keep the time the first skipped */
    add_axis(s, "reserve", 2, reserve);
    exec_run(&r, s, 1, 0, 1);
    assert_true(r.n_kept > 4 * N && r.stats.kept_unfit > N);
    memcpy(want, r.kept, sizeof want);
    evaluated = r.stats.evaluated;
    invalid = r.stats.invalid;
    unfit = r.stats.kept_unfit;
    assert_int_equal(r.stats.unfit_untimed, 0); /* keep = "all" */
    tplan_sweep_run_free(&r);
    s->keep_mode = TPLAN_KEEP_TOP;
    s->keep = N;
    for (int threads = 1; threads <= 2; threads++) {
        exec_run(&r, s, threads, 0, 1);
        assert_int_equal(r.n_top, N);
        assert_memory_equal(r.top, want, sizeof want);
        assert_int_equal(r.stats.evaluated, evaluated);
        assert_int_equal(r.stats.invalid, invalid);
        /* not vacuous: most plans that do not fit were not timed */
        assert_true(r.stats.unfit_untimed * 2 > unfit);
        print_message("%d threads: %lld evaluated, %lld of the %lld that "
                      "do not fit not timed\n",
                      threads, (long long)r.stats.evaluated,
                      (long long)r.stats.unfit_untimed, (long long)unfit);
        tplan_sweep_run_free(&r);
    }
    {
        tplan_topk t = {got, N, 0, 1};
        tplan_ranked part[N];

        for (int64_t k = 0; k < 3; k++) {
            run(s, 2, k, 3, part, &n, front, &nf);
            for (int i = 0; i < n; i++)
                tplan_topk_push(&t, &part[i]);
        }
        tplan_topk_sort(&t);
        assert_int_equal(t.n, N);
        assert_memory_equal(got, want, sizeof want);
    }
    free(s);
}

/* A ring's padding bytes as a zeroed one's: a ring returned by value
 * (perf.c ring_allreduce) brings whatever its padding held, so two
 * equal rings may differ there (an unoptimized build's stack). */
static void ring_clean(tplan_ring *r)
{
    tplan_ring t;

    memset(&t, 0, sizeof t);
    t.on = r->on;
    t.vol = r->vol;
    t.lat = r->lat;
    memcpy(r, &t, sizeof t);
}

/* The plan's time shape with its rings' padding cleared (the rest of a
 * plan's bytes come from memsets and fields written one by one). */
static void shape_clean(tplan_plan *p)
{
    tplan_comm_shape *sh = &p->perf.shape;
    tplan_dp_rings *d[2] = {&sh->dp_dense, &sh->dp_experts};

    ring_clean(&sh->tp_ring);
    ring_clean(&sh->etp_ring);
    for (int i = 0; i < 2; i++) {
        ring_clean(&d[i]->ag_w);
        ring_clean(&d[i]->ag_g);
        ring_clean(&d[i]->ar_g);
        ring_clean(&d[i]->ar_rep);
    }
}

/* One step of test_full_eval_bytes: a config from the base's model. */
typedef struct full_step {
    const char *model;
    int64_t gpus, tp, pp, zero, ep, micro_batch, global_batch, lora_rank;
    tplan_recompute recompute;
    tplan_pp_schedule schedule;
    unsigned flags; /* beside FIGURES, TRUSTED_PARTS, LAYOUT_CHECKED */
    int rc;         /* expected: 0, or a refusal */
} full_step;

/* Full evaluations one after another into one plan through one cache,
 * as a sweep's worker makes them, against each config evaluated alone
 * into a cleared plan without a cache: every byte from the config to
 * the warning texts the same (issue 38: eval() leaves the memory and
 * the time's figures to the code that writes them whole, and clears
 * them where it does not run: a refusal before the memory, a time
 * skipped; the states memo's probe, its kept figures, the time's kept
 * layout and the activations by the model's gen hold for recompute
 * changes, across refusals and other layouts between them). */
static void test_full_eval_bytes(void **state)
{
    static const full_step steps[] = {
        {"llama3-8b", 8, 2, 2, 1, 1, 1, 0, 0, TPLAN_RECOMPUTE_NONE, 0, 0, 0},
        {"llama3-8b", 8, 2, 2, 1, 1, 1, 0, 0, TPLAN_RECOMPUTE_SELECTIVE, 0, 0,
         0},
        {"llama3-8b", 8, 2, 2, 1, 1, 1, 0, 0, TPLAN_RECOMPUTE_FULL, 0, 0, 0},
        /* refused before any memory: global_batch below micro_batch x dp */
        {"llama3-8b", 8, 1, 1, 1, 1, 4, 8, 0, TPLAN_RECOMPUTE_FULL, 0, 0, -1},
        {"llama3-8b", 8, 2, 2, 1, 1, 1, 0, 0, TPLAN_RECOMPUTE_NONE, 0, 0, 0},
        /* does not fit on one GPU: no time */
        {"llama3-8b", 1, 1, 1, 0, 1, 8, 0, 0, TPLAN_RECOMPUTE_NONE, 0,
         TPLAN_EVAL_FIT_FIRST, 0},
        {"llama3-8b", 8, 2, 2, 1, 1, 1, 0, 0, TPLAN_RECOMPUTE_SELECTIVE, 0,
         TPLAN_EVAL_FIT_FIRST, 0},
        {"llama3-8b", 8, 2, 2, 1, 1, 4, 4, 0, TPLAN_RECOMPUTE_SELECTIVE, 0, 0,
         -1},
        {"llama3-8b", 8, 2, 2, 1, 1, 1, 0, 0, TPLAN_RECOMPUTE_FULL, 0, 0, 0},
        {"llama3-8b", 16, 1, 4, 3, 1, 2, 0, 16, TPLAN_RECOMPUTE_NONE, 0, 0, 0},
        {"llama3-8b", 16, 1, 4, 3, 1, 2, 0, 16, TPLAN_RECOMPUTE_FULL, 0, 0, 0},
        {"llama3-8b", 16, 2, 4, 1, 1, 1, 0, 0, TPLAN_RECOMPUTE_NONE,
         TPLAN_PP_DUALPIPE, 0, 0},
        {"llama3-8b", 16, 2, 4, 1, 1, 1, 0, 0, TPLAN_RECOMPUTE_FULL,
         TPLAN_PP_DUALPIPE, 0, 0},
        {"mixtral-8x7b", 64, 2, 2, 1, 8, 1, 0, 0, TPLAN_RECOMPUTE_NONE, 0, 0,
         0},
        {"mixtral-8x7b", 64, 2, 2, 1, 8, 1, 0, 0, TPLAN_RECOMPUTE_FULL, 0, 0,
         0},
        {"llama3-8b", 8, 2, 2, 1, 1, 1, 0, 0, TPLAN_RECOMPUTE_NONE, 0, 0, 0},
    };
    const size_t n = offsetof(tplan_plan, warnings);
    tplan_act_cache *cache = calloc(1, sizeof *cache);
    tplan_plan *p = calloc(1, sizeof *p), *q = malloc(sizeof *q);

    (void)state;
    assert_non_null(cache);
    assert_non_null(p);
    assert_non_null(q);
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
            const full_step *st = &steps[i];
            unsigned flags = TPLAN_EVAL_FIGURES | TPLAN_EVAL_TRUSTED_PARTS |
                             TPLAN_EVAL_LAYOUT_CHECKED | st->flags;
            tplan_config c;
            int rc;

            config_for(&c, st->model, "h100-sxm");
            c.seq = 4096;
            c.tokens = 1e12;
            c.gpus = st->gpus;
            c.tp = st->tp;
            c.sp = st->tp > 1 && strcmp(st->model, "mixtral-8x7b") == 0;
            c.pp = st->pp;
            c.zero = (int)st->zero;
            c.ep = st->ep;
            c.micro_batch = st->micro_batch;
            c.global_batch = st->global_batch;
            c.lora_rank = st->lora_rank;
            c.recompute = st->recompute;
            c.pp_schedule = st->schedule;
            {
                tplan_err e;

                if (tplan_config_validate(&c, &e) != TPLAN_OK) {
                    print_error("step %zu: %s\n", i, e.msg);
                    fail();
                }
            }
            /* a cleared plan, then what the worker's plan held before */
            memset(q, 0, sizeof *q);
            rc = tplan_plan_eval_cached(&c, NULL, q, flags, NULL);
            if ((rc != TPLAN_OK) != (st->rc != 0)) {
                print_error("step %zu: rc %d\n", i, rc);
                fail();
            }
            assert_int_equal(tplan_plan_eval_cached(&c, cache, p, flags, NULL),
                             rc);
            shape_clean(p);
            shape_clean(q);
            if (memcmp(p, q, n) != 0) {
                size_t at = 0;

                while (((const char *)p)[at] == ((const char *)q)[at])
                    at++;
                print_error("step %zu (pass %d): bytes differ from offset "
                            "%zu (memory at %zu, time at %zu)\n",
                            i, pass, at, offsetof(tplan_plan, mem),
                            offsetof(tplan_plan, perf));
                free(q);
                free(p);
                free(cache);
                fail();
            }
        }
    free(q);
    free(p);
    free(cache);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_index_round_trip),
        cmocka_unit_test(test_walk_matches_index),
        cmocka_unit_test(test_shards_and_threads),
        cmocka_unit_test(test_keep_all_buffers),
        cmocka_unit_test(test_streamed_walks),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_equivalents_counted),
        cmocka_unit_test(test_equivalents_are_equal),
        cmocka_unit_test(test_staged_bit_identical),
        cmocka_unit_test(test_refused_layouts_skipped),
        cmocka_unit_test(test_staged_each_field),
        cmocka_unit_test(test_fit_first),
        cmocka_unit_test(test_comm_unfit),
        cmocka_unit_test(test_deferred_unfit),
        cmocka_unit_test(test_staged_lr_unset),
        cmocka_unit_test(test_staged_batch),
        cmocka_unit_test(test_staged_schedules),
        cmocka_unit_test(test_staged_comm_layouts),
        cmocka_unit_test(test_staged_nic_only),
        cmocka_unit_test(test_layout_memo),
        cmocka_unit_test(test_recheck_sound),
        cmocka_unit_test(test_nic_stands),
        cmocka_unit_test(test_nic_walk_refused),
        cmocka_unit_test(test_states_memo),
        cmocka_unit_test(test_full_eval_bytes),
        cmocka_unit_test(test_staged_paged_spill),
        cmocka_unit_test(test_staged_micro_batch_flops),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
