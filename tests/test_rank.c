/* Rankings: the one order (keys, then configuration index), top-K with
 * ties at its boundary, Pareto membership with ties and duplicates, the
 * sign of objectives, and the sorts. Table-driven; every expected set is
 * written out by hand. */
#include "tplan_test.h"

#include <stdlib.h>

#include "rank.h"

static tplan_ranked rk(int64_t index, double k0, double k1)
{
    tplan_ranked r;

    memset(&r, 0, sizeof r);
    r.index = index;
    r.key[0] = k0;
    r.key[1] = k1;
    r.score = (double)NAN;
    return r;
}

static void test_order(void **state)
{
    static const struct {
        int64_t ia;
        double a0, a1;
        int64_t ib;
        double b0, b1;
        int nobj, want; /* sign of cmp(a, b) */
    } cases[] = {
        {5, 1, 9, 3, 2, 0, 1, -1},  /* first key decides */
        {5, 1, 9, 3, 1, 0, 2, 1},   /* then the second */
        {5, 1, 9, 3, 1, 0, 1, 1},   /* one objective: tie, index 3 first */
        {3, 1, 1, 5, 1, 1, 2, -1},  /* equal keys: the lower index first */
        {4, 1, 1, 4, 1, 1, 2, 0},   /* the same entry */
        {1, 2, 0, 9, INFINITY, 0, 1, -1}, /* a missing value (+inf) is last */
        {1, -3, 0, 2, -2, 0, 1, -1}, /* negative keys (maximised) */
    };

    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tplan_ranked a = rk(cases[i].ia, cases[i].a0, cases[i].a1);
        tplan_ranked b = rk(cases[i].ib, cases[i].b0, cases[i].b1);
        int c = tplan_ranked_cmp(&a, &b, cases[i].nobj);
        int d = tplan_ranked_cmp(&b, &a, cases[i].nobj);

        if ((c > 0) - (c < 0) != cases[i].want || (d > 0) - (d < 0) != -cases[i].want) {
            print_error("case %zu: cmp %d, reversed %d, want %d\n", i, c, d,
                        cases[i].want);
            fail();
        }
        assert_int_equal(tplan_ranked_before(&a, &b, cases[i].nobj),
                         cases[i].want < 0);
    }
}

/* The kept set of a top-K over entries pushed in order. */
static void top(const tplan_ranked *in, int n, int cap, int nobj,
                int64_t *out)
{
    tplan_ranked buf[16];
    tplan_topk t = {buf, cap, 0, nobj};

    for (int i = 0; i < n; i++)
        tplan_topk_push(&t, &in[i]);
    tplan_topk_sort(&t);
    assert_int_equal(t.n, cap < n ? cap : n);
    for (int i = 0; i < t.n; i++)
        out[i] = buf[i].index;
}

static void test_topk_ties(void **state)
{
    /* keys (cost): indexes 0..7; 2, 4, 6 and 7 tie at the boundary */
    tplan_ranked in[8] = {rk(0, 5, 0), rk(1, 1, 0), rk(2, 3, 0), rk(3, 2, 0),
                          rk(4, 3, 0), rk(5, 9, 0), rk(6, 3, 0), rk(7, 3, 0)};
    static const int64_t want[4] = {1, 3, 2, 4}; /* 2 and 4 win the tie */
    tplan_ranked rev[8], shuf[8];
    static const int perm[8] = {6, 0, 7, 3, 5, 2, 4, 1};
    int64_t got[8];

    (void)state;
    for (int i = 0; i < 8; i++) {
        rev[i] = in[7 - i];
        shuf[i] = in[perm[i]];
    }
    top(in, 8, 4, 1, got);
    assert_memory_equal(got, want, sizeof want);
    top(rev, 8, 4, 1, got); /* any arrival order keeps the same plans */
    assert_memory_equal(got, want, sizeof want);
    top(shuf, 8, 4, 1, got);
    assert_memory_equal(got, want, sizeof want);
    top(in, 8, 1, 1, got);
    assert_int_equal(got[0], 1);
    top(in, 8, 16, 1, got); /* cap above n: all, sorted */
    assert_int_equal(got[0], 1);
    assert_int_equal(got[7], 5);
}

static int64_t *front_of(const tplan_ranked *in, int n, const int *order,
                         int *nf)
{
    static tplan_ranked buf[16];
    static int64_t idx[16];
    tplan_front f = {buf, 16, 0, 2, false};

    for (int i = 0; i < n; i++)
        tplan_front_push(&f, &in[order ? order[i] : i]);
    tplan_ranked_sort(buf, f.n, 2);
    for (int i = 0; i < f.n; i++)
        idx[i] = buf[i].index;
    *nf = f.n;
    return idx;
}

static void test_pareto_ties(void **state)
{
    /* (cost, time): 0 (1,5), 1 (2,2), 2 (5,1) are the front; 3 (3,3) is
     * dominated by 1; 4 duplicates 1 and has a higher index (dropped);
     * 5 (2,4) ties 1 in cost and is worse in time (dominated); 6 (1,6)
     * ties 0 in cost, worse in time (dominated); 7 (5,1) duplicates 2 */
    tplan_ranked in[8] = {rk(0, 1, 5), rk(1, 2, 2), rk(2, 5, 1), rk(3, 3, 3),
                          rk(4, 2, 2), rk(5, 2, 4), rk(6, 1, 6), rk(7, 5, 1)};
    static const int64_t want[3] = {0, 1, 2};
    static const int orders[3][8] = {{0, 1, 2, 3, 4, 5, 6, 7},
                                     {7, 6, 5, 4, 3, 2, 1, 0},
                                     {4, 3, 7, 5, 1, 6, 0, 2}};
    int nf;

    (void)state;
    for (int o = 0; o < 3; o++) {
        int64_t *got = front_of(in, 8, orders[o], &nf);

        assert_int_equal(nf, 3);
        assert_memory_equal(got, want, sizeof want);
    }
    /* a lower-index duplicate replaces the member: 9 (2,2) index 0 */
    {
        tplan_ranked two[2] = {rk(9, 2, 2), rk(3, 2, 2)};
        int64_t *got = front_of(two, 2, NULL, &nf);

        assert_int_equal(nf, 1);
        assert_int_equal(got[0], 3);
    }
}

static void test_front_truncated(void **state)
{
    tplan_ranked buf[2];
    tplan_front f = {buf, 2, 0, 2, false};
    tplan_ranked pts[3] = {rk(0, 1, 3), rk(1, 2, 2), rk(2, 3, 1)};

    (void)state;
    for (int i = 0; i < 3; i++)
        tplan_front_push(&f, &pts[i]);
    assert_int_equal(f.n, 2);
    assert_true(f.truncated);
}

/* tplan_rank_keys signs maximised metrics and puts a missing value last. */
static void test_keys_sign(void **state)
{
    tplan_config c;
    tplan_plan p;
    tplan_objective obj[3] = {{TPLAN_M_MFU, true},
                              {TPLAN_M_COST_USD, false},
                              {TPLAN_M_GPUS, false}};
    double key[TPLAN_MAX_OBJECTIVES];

    (void)state;
    config_for(&c, "gpt2", "a100-80g");
    c.gpus = 8;
    eval_ok(&c, &p);
    tplan_rank_keys(obj, 3, &p, 0.0, key);
    assert_true(key[0] == -p.perf.mfu);
    assert_true(key[1] == p.run.cost_usd);
    assert_true(key[2] == 8);
    p.run.has_budget = false; /* no cost: last, whatever the direction */
    tplan_rank_keys(obj + 1, 1, &p, 0.0, key);
    assert_true(isinf(key[0]) && key[0] > 0);
    /* a score hook's NaN is last too, maximised or not; unused keys 0 */
    {
        tplan_objective sc[2] = {{TPLAN_M_SCORE, true}, {TPLAN_M_SCORE, false}};

        key[1] = key[2] = key[3] = 7;
        tplan_rank_keys(sc, 2, &p, (double)NAN, key);
        assert_true(isinf(key[0]) && key[0] > 0);
        assert_true(isinf(key[1]) && key[1] > 0);
        assert_true(key[2] == 0 && key[3] == 0);
        tplan_rank_keys(sc, 2, &p, 3.0, key);
        assert_true(key[0] == -3.0 && key[1] == 3.0);
    }
}

typedef struct rec {
    char pad[3];
    tplan_ranked r;
    int tag;
} rec;

static void test_sorts(void **state)
{
    tplan_ranked a[200];
    rec recs[200];

    (void)state;
    srand(7);
    for (int i = 0; i < 200; i++) {
        a[i] = rk(199 - i, rand() % 5, rand() % 3);
        recs[i].r = a[i];
        recs[i].tag = i;
    }
    tplan_ranked_sort(a, 200, 2);
    tplan_ranked_sort_records(recs, 200, sizeof *recs, offsetof(rec, r), 2);
    for (int i = 1; i < 200; i++) {
        assert_true(tplan_ranked_cmp(&a[i - 1], &a[i], 2) < 0);
        assert_int_equal(recs[i].r.index, a[i].index);
        /* the record moved whole */
        assert_int_equal(recs[i].tag, 199 - (int)recs[i].r.index);
    }
}

/* Introsort at sizes where quicksort's partitions, its insertion sort
 * and (with many equal keys) deep recursion all take part, checked
 * against the order itself and a checksum of the entries; a shuffled copy
 * sorts to the same bytes. (The sweep's merge of its workers' ranked
 * buffers: tests/test_sweep.c, test_keep_all_buffers.) */
static void check_sorted(const tplan_ranked *a, int64_t n, int64_t sum)
{
    int64_t got = 0;

    for (int64_t i = 0; i < n; i++) {
        got += a[i].index;
        if (i > 0)
            assert_true(tplan_ranked_cmp(&a[i - 1], &a[i], 2) < 0);
    }
    assert_true(got == sum);
}

static void test_large_sort(void **state)
{
    static const int64_t sizes[] = {0, 1, 2, 3, 16, 17, 1000, 100003};
    int64_t n = 100003;
    tplan_ranked *a = malloc(sizeof *a * (size_t)n);
    tplan_ranked *b = malloc(sizeof *b * (size_t)n);

    (void)state;
    assert_non_null(a);
    assert_non_null(b);
    srand(11);
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        int64_t m = sizes[z], sum = 0;

        for (int64_t i = 0; i < m; i++) {
            /* few distinct keys: ties go by index */
            a[i] = rk(m - i + (i % 7) * m, rand() % 3, rand() % 100);
            sum += a[i].index;
        }
        memcpy(b, a, sizeof *a * (size_t)m);
        tplan_ranked_sort(a, m, 2);
        check_sorted(a, m, sum);
        /* shuffled and sorted again: the same order (a total order) */
        memcpy(b, a, sizeof *a * (size_t)m);
        for (int64_t i = 0; i < m && m > 1; i++) {
            int64_t j = rand() % m;
            tplan_ranked t = b[i];

            b[i] = b[j];
            b[j] = t;
        }
        tplan_ranked_sort(b, m, 2);
        assert_memory_equal(b, a, sizeof *a * (size_t)m);
    }
    free(a);
    free(b);
}

/* Plans that fit rank first (issue 33): in the order, the top-K, the
 * sorts and the front, whatever their keys; among those that do not, the
 * closest to fitting first; a mixing ranking (fits_first = false) goes by
 * the keys alone. */
static tplan_ranked rk_fit(int64_t index, double k0, bool fits, float over,
                           bool fits_first)
{
    tplan_ranked r = rk(index, k0, 0);

    r.fits = fits;
    tplan_ranked_standing(&r, fits_first, over);
    return r;
}

static void test_fits_first(void **state)
{
    tplan_ranked a = rk_fit(1, 5.0, true, 0.9f, true);   /* fits, slow */
    tplan_ranked b = rk_fit(2, 1.0, false, 1.5f, true);  /* fast, 150% */
    tplan_ranked c = rk_fit(3, 9.0, false, 1.1f, true);  /* slowest, 110% */
    tplan_ranked items[3], buf[2], fbuf[3];
    tplan_topk top = {buf, 2, 0, 1};
    tplan_front front = {fbuf, 3, 0, 2, false};

    (void)state;
    assert_false(a.last);
    assert_true(b.last);
    assert_true(a.over == 0.0f); /* only a plan that does not fit has one */
    assert_true(tplan_ranked_cmp(&a, &b, 1) < 0);
    assert_true(tplan_ranked_cmp(&b, &a, 1) > 0);
    /* fits decides, not the memory figures: a plan that does not fit
     * though its figures read under the usable (a micro-batch over the
     * largest, a host short of memory) still ranks after */
    c = rk_fit(3, 0.5, false, 0.0f, true);
    assert_true(tplan_ranked_cmp(&a, &c, 1) < 0);
    c = rk_fit(3, 9.0, false, 1.1f, true);
    /* the closest to fitting first, before the keys */
    assert_true(tplan_ranked_cmp(&c, &b, 1) < 0);
    items[0] = b;
    items[1] = c;
    items[2] = a;
    tplan_ranked_sort(items, 3, 1);
    assert_int_equal(items[0].index, 1);
    assert_int_equal(items[1].index, 3);
    assert_int_equal(items[2].index, 2);
    tplan_topk_push(&top, &b);
    tplan_topk_push(&top, &c);
    tplan_topk_push(&top, &a);
    tplan_topk_sort(&top);
    assert_int_equal(top.n, 2);
    assert_int_equal(top.items[0].index, 1);
    assert_int_equal(top.items[1].index, 3);
    /* a front: the plan that fits dominates both that do not, though
     * each is better in a key */
    tplan_front_push(&front, &b);
    tplan_front_push(&front, &c);
    tplan_front_push(&front, &a);
    assert_int_equal(front.n, 1);
    assert_int_equal(front.items[0].index, 1);
    /* mixed: the keys alone */
    a = rk_fit(1, 5.0, true, 0.9f, false);
    b = rk_fit(2, 1.0, false, 1.5f, false);
    assert_false(b.last);
    assert_true(tplan_ranked_cmp(&b, &a, 1) < 0);
    /* NaN never breaks the order */
    b = rk_fit(2, 1.0, false, (float)NAN, true);
    assert_true(tplan_ranked_cmp(&c, &b, 1) < 0);
    assert_true(tplan_rank_over(150, 100, 0, 0) == 1.5f);
    assert_true(tplan_rank_over(50, 100, 300, 100) == 3.0f);
}

/* tplan_topk_offer keeps exactly what tplan_ranked_set then
 * tplan_topk_push keep, entry for entry, after every plan: many plans
 * with few distinct figures (ties in the first key and in all of them),
 * some that do not fit, some with no figure (NaN: last), under fits-first
 * and mixed rankings, one and two objectives, heaps of 1 to 8. */
static void test_topk_offer(void **state)
{
    static const double figs[] = {1.0, 2.0, 2.0, 3.0, (double)NAN};
    tplan_objective obj[2] = {{TPLAN_M_TIME_H, false}, {TPLAN_M_MFU, true}};
    tplan_config c;
    tplan_plan p;
    unsigned seed = 12345;

    (void)state;
    config_for(&c, "gpt2", "a100-80g");
    c.gpus = 8;
    eval_ok(&c, &p);
    for (int cap = 1; cap <= 8; cap *= 2)
        for (int nobj = 1; nobj <= 2; nobj++)
            for (int ff = 0; ff < 2; ff++) {
                tplan_ranked a_buf[8], b_buf[8], r;
                tplan_topk a = {a_buf, cap, 0, nobj};
                tplan_topk b = {b_buf, cap, 0, nobj};

                for (int64_t i = 0; i < 200; i++) {
                    seed = seed * 1103515245u + 12345u;
                    p.run.time_h = figs[(seed >> 8) % 5];
                    p.perf.mfu = figs[(seed >> 12) % 4] / 10.0;
                    p.mem.fits = (seed >> 16) % 3 != 0;
                    p.mem.total_bytes = (int64_t)((seed >> 20) % 4 + 1) << 30;
                    tplan_topk_offer(&a, i, obj, nobj, &p, (double)NAN,
                                     ff != 0);
                    tplan_ranked_set(&r, i, obj, nobj, &p, (double)NAN,
                                     ff != 0);
                    tplan_topk_push(&b, &r);
                    assert_int_equal(a.n, b.n);
                    assert_memory_equal(a.items, b.items,
                                        sizeof *a.items * (size_t)a.n);
                }
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),          cmocka_unit_test(test_topk_ties),
        cmocka_unit_test(test_pareto_ties),    cmocka_unit_test(test_front_truncated),
        cmocka_unit_test(test_keys_sign),      cmocka_unit_test(test_sorts),
        cmocka_unit_test(test_large_sort),
        cmocka_unit_test(test_fits_first),
        cmocka_unit_test(test_topk_offer),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
