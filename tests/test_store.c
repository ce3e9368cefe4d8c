/* The db layer: CSV plan files read back exactly through a strict libcsv
 * parse, the SQLite store keeps every value bit for bit, the schema's
 * plan columns are the plan field table, SHA-256 test vectors. */
#include "tplan_test.h"

#include <stdlib.h>
#include <unistd.h>

#include "csv_in.h"
#include "csv_out.h"
#include "plan.h"
#include "fields.h"
#include "sha256.h"
#include "store.h"

#define NPLANS 6

/* Plans that exercise every kind of value: budgets and none (empty
 * cells), warnings with commas and quotes, fits and not. */
static void make_plans(tplan_plan *p)
{
    static const struct {
        const char *model, *gpu;
        int64_t gpus, zero, micro;
        double tokens;
    } cases[NPLANS] = {
        {"gpt2", "a100-80g", 1, 0, 8, 1e9},
        {"llama3-8b", "a100-80g", 1, 0, 1, 0},    /* does not fit: warnings */
        {"llama3-8b", "h100-sxm", 8, 3, 0, 1e12}, /* max micro-batch */
        {"llama2-70b", "h100-sxm", 64, 3, 1, 2e12},
        {"bert-base", "l4", 2, 1, 16, 0},
        {"mistral-7b", "h200", 16, 1, 2, 1e11},
    };

    for (int i = 0; i < NPLANS; i++) {
        tplan_config c;
        tplan_err err;

        memset(&c, 0, sizeof c);
        assert_int_equal(tplan_model_preset(cases[i].model, &c.model, NULL),
                         TPLAN_OK);
        assert_int_equal(tplan_gpu_lookup(cases[i].gpu, &c.gpu, NULL),
                         TPLAN_OK);
        tplan_config_init(&c);
        c.seq = c.model.max_seq > 4096 ? 4096 : c.model.max_seq;
        c.gpus = cases[i].gpus;
        c.zero = (int)cases[i].zero;
        c.micro_batch = cases[i].micro;
        c.tokens = cases[i].tokens;
        if (tplan_plan_eval(&c, &p[i], &err) != TPLAN_OK) {
            print_error("plan %d: %s\n", i, err.msg);
            fail();
        }
    }
    assert_true(p[1].n_warnings > 0);
}

typedef struct readback {
    const tplan_plan *plans;
    int rows;
    int checked;
} readback;

/* Every cell equals the plan's value: integers and text exactly, reals
 * through strtod to the same double, NaN as an empty cell. */
static int check_record(void *ud, int64_t line, bool header, int n,
                        const char *const *f, tplan_err *err)
{
    readback *rb = ud;
    char buf[TPLAN_MAX_WARNINGS * TPLAN_WARNING_LEN];
    const tplan_plan *p;

    (void)err;
    assert_int_equal(n, 2 + tplan_field_count());
    assert_int_equal(header, line == 1);
    if (header) {
        assert_string_equal(f[0], "sweep");
        assert_string_equal(f[1], "rank");
        for (int i = 0; i < tplan_field_count(); i++)
            assert_string_equal(f[2 + i], tplan_field_at(i)->name);
        return 0;
    }
    p = &rb->plans[rb->rows++];
    assert_string_equal(f[0], "test, \"quoted\" sweep");
    assert_int_equal(strtoll(f[1], NULL, 10), rb->rows);
    for (int i = 0; i < tplan_field_count(); i++) {
        tplan_value v = tplan_field_get(i, p, buf, sizeof buf);
        const char *cell = f[2 + i];

        switch (tplan_field_at(i)->type) {
        case TPLAN_FT_INT:
        case TPLAN_FT_BOOL:
            assert_int_equal(strtoll(cell, NULL, 10), v.i);
            break;
        case TPLAN_FT_REAL:
            if (isnan(v.r)) {
                assert_string_equal(cell, "");
            } else {
                char *end;
                double back = strtod(cell, &end);

                assert_true(*end == '\0');
                if (memcmp(&back, &v.r, sizeof back) != 0) {
                    print_error("%s: %s reads back as %.17g, not %.17g\n",
                                tplan_field_at(i)->name, cell, back, v.r);
                    fail();
                }
            }
            break;
        default: /* NULL text: an empty cell */
            assert_string_equal(cell, v.s ? v.s : "");
            break;
        }
        rb->checked++;
    }
    return 0;
}

static void test_csv_reads_back_exactly(void **state)
{
    tplan_plan *p = calloc(NPLANS, sizeof *p);
    char path[] = "/tmp/tplan_test_csv_XXXXXX";
    int fd = mkstemp(path);
    tplan_csv *w;
    tplan_err err;
    readback rb = {p, 0, 0};

    (void)state;
    assert_true(fd >= 0 && p);
    close(fd);
    make_plans(p);
    w = tplan_csv_open(path, &err);
    assert_non_null(w);
    for (int i = 0; i < NPLANS; i++)
        assert_int_equal(
            tplan_csv_row(w, "test, \"quoted\" sweep", i + 1, &p[i], &err),
            TPLAN_OK);
    assert_int_equal(tplan_csv_close(w, &err), TPLAN_OK);
    /* strict libcsv: a quoting mistake is a parse error */
    if (tplan_csv_read(path, check_record, &rb, &err) != TPLAN_OK) {
        print_error("%s\n", err.msg);
        fail();
    }
    assert_int_equal(rb.rows, NPLANS);
    assert_int_equal(rb.checked, NPLANS * tplan_field_count());
    unlink(path);
    free(p);
}

static void test_fmt_real_shortest(void **state)
{
    static const double v[] = {
        0.1,    1.0 / 3.0,          1e300, 5e-324, 123456789.125,
        2.5e-7, 0.30000000000000004};
    char buf[40];

    (void)state;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        tplan_fmt_real(buf, sizeof buf, v[i]);
        assert_true(strtod(buf, NULL) == v[i]);
    }
    tplan_fmt_real(buf, sizeof buf, 0.1);
    assert_string_equal(buf, "0.1");
}

/* The rule tplan_fmt_real follows, as glibc computes it: the first of
 * "%.15g", "%.16g", "%.17g" that strtod reads back to the same double. */
static void fmt_reference(char *buf, size_t len, double v)
{
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, len, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
}

static int fmt_mismatches;

static void fmt_same(double v)
{
    char got[48], want[48];

    tplan_fmt_real(got, sizeof got, v);
    fmt_reference(want, sizeof want, v);
    if (strcmp(got, want) != 0 && fmt_mismatches++ < 10)
        print_error("%a: %s, want %s\n", v, got, want);
}

/* x and its neighbours, both signs */
static void fmt_around(double x)
{
    double lo = x, hi = x;

    for (int i = 0; i < 3; i++) {
        fmt_same(lo);
        fmt_same(-lo);
        fmt_same(hi);
        fmt_same(-hi);
        lo = nextafter(lo, 0);
        hi = nextafter(hi, INFINITY);
    }
}

static uint64_t fmt_rand(uint64_t *s)
{ /* splitmix64 (Steele, Lea and Flood 2014): any fixed stream will do */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The exact path against the reference, text for text: every power of
 * ten and of two in and around its range with their neighbours, ties
 * (k + 1/2 at every scale), and a million random doubles: uniform bits
 * over the exponents of 1e-7..1e40 and ratios of random integers, the
 * kind a plan's figures are. */
static void test_fmt_real_reference(void **state)
{
    uint64_t seed = 20261124;
    double p10 = 1e-8;

    (void)state;
    fmt_mismatches = 0;
    for (int i = -8; i <= 40; i++, p10 *= 10) {
        fmt_around(p10);
        fmt_around(strtod("1e-8", NULL) * pow(10, i + 8)); /* other roundings */
        for (int j = 1; j <= 9; j++)
            fmt_around(j * p10 * 0.999999999999999);
    }
    for (int i = -30; i <= 130; i++)
        fmt_around(ldexp(1.0, i));
    /* zero and whole numbers, the integer path: up to 10^15 and past it
     * (where %.15g turns to an exponent) */
    fmt_same(0.0);
    fmt_same(-0.0);
    for (int i = 0; i <= 17; i++) {
        double p = pow(10, i);

        fmt_around(p);
        fmt_same(p - 1);
        fmt_same(-(p + 1));
        fmt_same(p * 7 + 3);
    }
    fmt_around(1e15 - 1);
    for (int i = 0; i < 2000; i++)
        fmt_same((double)i * 12345 - 7000000);
    for (int i = 0; i < 60; i++) /* ties: k + 1/2 with 16 to 18 digits */
        fmt_around((double)(1ULL << 53) / 8 + 0.5 + (double)i * 1024);
    for (int i = 0; i < 1000000; i++) {
        uint64_t r = fmt_rand(&seed);
        double v;

        if (i & 1) { /* bits: sign, exponent in [-24, 133], mantissa */
            int ex = (int)(r >> 52 & 0xff) % 158 - 24;

            v = ldexp(1.0 + (double)(r & ((1ULL << 52) - 1)) / 0x1p52, ex);
            v = (r >> 63) ? -v : v;
        } else { /* a ratio of integers, as figures are */
            v = (double)(r >> 20) / (double)((fmt_rand(&seed) >> 40) + 1);
        }
        fmt_same(v);
    }
    assert_int_equal(fmt_mismatches, 0);
}

/* A short buffer is cut as snprintf cuts, and the full length returned,
 * on every path (5e-324 and -1e-300 take printf; zero and whole numbers
 * the integer path). */
static void test_fmt_real_short_buffer(void **state)
{
    static const double v[] = {5e-324, -1e-300, 0.1,      1.0 / 3.0,
                               -2.5e30, 0.0,     -0.0,    -123456.0,
                               999999999999999.0};
    static const size_t lens[] = {1, 2, 5, 8};
    char full[48], buf[48];

    (void)state;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        int n;

        fmt_reference(full, sizeof full, v[i]);
        n = (int)strlen(full);
        assert_int_equal(tplan_fmt_real(NULL, 0, v[i]), n);
        for (size_t j = 0; j < sizeof lens / sizeof lens[0]; j++) {
            size_t cut = (size_t)n < lens[j] ? (size_t)n : lens[j] - 1;

            memset(buf, 'x', sizeof buf);
            assert_int_equal(tplan_fmt_real(buf, lens[j], v[i]), n);
            assert_int_equal(strlen(buf), cut);
            assert_memory_equal(buf, full, cut);
        }
    }
}

/* row: the plan fields in field order, as the store gave them back: the
 * plan's values bit for bit, with their storage classes. */
static void check_fields(const tplan_cell *row, int ncols, const tplan_plan *p)
{
    char buf[TPLAN_MAX_WARNINGS * TPLAN_WARNING_LEN];

    for (int i = 0; i < ncols; i++) {
        tplan_value v = tplan_field_get(i, p, buf, sizeof buf);

        switch (tplan_field_at(i)->type) {
        case TPLAN_FT_INT:
        case TPLAN_FT_BOOL:
            assert_int_equal(row[i].type, TPLAN_CELL_INT);
            assert_int_equal(row[i].i, v.i);
            break;
        case TPLAN_FT_REAL:
            if (isnan(v.r)) {
                assert_int_equal(row[i].type, TPLAN_CELL_NULL);
            } else {
                assert_int_equal(row[i].type, TPLAN_CELL_REAL);
                assert_memory_equal(&row[i].r, &v.r, sizeof v.r);
            }
            break;
        default:
            if (!v.s) { /* no value */
                assert_int_equal(row[i].type, TPLAN_CELL_NULL);
                break;
            }
            assert_int_equal(row[i].type, TPLAN_CELL_TEXT);
            assert_string_equal(row[i].s, v.s);
            break;
        }
    }
}

typedef struct dbback {
    const tplan_plan *plans;
    int rows;
} dbback;

static int check_db_row(void *ud, int ncols, const char *const *names,
                        const tplan_cell *row)
{
    dbback *b = ud;
    const tplan_plan *p;

    if (!row) {
        assert_int_equal(ncols, tplan_field_count());
        for (int i = 0; i < ncols; i++)
            assert_string_equal(names[i], tplan_field_at(i)->name);
        return 0;
    }
    p = &b->plans[b->rows++];
    check_fields(row, ncols, p);
    return 0;
}

static void test_store_keeps_values(void **state)
{
    tplan_plan *p = calloc(NPLANS, sizeof *p);
    char path[] = "/tmp/tplan_test_db_XXXXXX", sql[4096];
    int fd = mkstemp(path);
    tplan_store *db;
    tplan_sweep_meta m;
    tplan_sweep_stats st;
    tplan_err err;
    int64_t id;
    size_t n;
    dbback b = {p, 0};
    double keys[2] = {1.5, (double)INFINITY};

    (void)state;
    assert_true(fd >= 0 && p);
    close(fd);
    unlink(path); /* a new file */
    make_plans(p);
    memset(&m, 0, sizeof m);
    m.name = "unit";
    m.sweep_key = "k";
    m.rank_by = "cost_usd,time_h";
    m.keep = "10";
    m.shards = 1;
    m.space = NPLANS;
    memset(&st, 0, sizeof st);
    db = tplan_store_open(path, &err);
    assert_non_null(db);
    assert_int_equal(tplan_store_sweep_begin(db, &m, &id, &err), TPLAN_OK);
    for (int i = 0; i < NPLANS; i++)
        assert_int_equal(tplan_store_plan(db, id, i + 1, i, i == 0, (double)NAN,
                                          keys, 2, &p[i], &err),
                         TPLAN_OK);
    assert_int_equal(tplan_store_sweep_finish(db, id, &st, NPLANS, &err),
                     TPLAN_OK);
    tplan_store_close(db);

    db = tplan_store_open_ro(path, &err);
    assert_non_null(db);
    n = (size_t)snprintf(sql, sizeof sql, "SELECT %s", tplan_field_at(0)->name);
    for (int i = 1; i < tplan_field_count(); i++)
        n += (size_t)snprintf(sql + n, sizeof sql - n, ", %s",
                              tplan_field_at(i)->name);
    snprintf(sql + n, sizeof sql - n, " FROM plans ORDER BY rank");
    assert_int_equal(
        tplan_store_query(db, sql, NULL, 0, check_db_row, &b, &err), TPLAN_OK);
    assert_int_equal(b.rows, NPLANS);
    tplan_store_close(db);
    unlink(path);
    free(p);
}

/* ---- the writer thread: blocks, batches, a query mid-sweep, abort ---- */

/* Rows through the writer: not a multiple of its 512-row blocks, past
 * two 50,000-row commits (store_writer.c). */
#define MANY 120003

typedef struct manyback {
    const tplan_plan *plans;
    int64_t rows;
} manyback;

static double many_score(int64_t i)
{
    return i % 2 ? (double)NAN : (double)i * 0.5;
}

/* rank, config_index, pareto, score, key1, key2, key3, then the fields */
static int check_many_row(void *ud, int ncols, const char *const *names,
                          const tplan_cell *row)
{
    manyback *b = ud;
    int64_t i = b->rows;
    double sc = many_score(i), k1 = (double)i, k2 = -(double)i;

    (void)names;
    if (!row)
        return 0;
    assert_int_equal(row[0].type, TPLAN_CELL_INT);
    assert_int_equal(row[0].i, i + 1);
    assert_int_equal(row[1].i, i * 7);
    assert_int_equal(row[2].i, i % 3 == 0);
    if (isnan(sc)) {
        assert_int_equal(row[3].type, TPLAN_CELL_NULL);
    } else {
        assert_int_equal(row[3].type, TPLAN_CELL_REAL);
        assert_memory_equal(&row[3].r, &sc, sizeof sc);
    }
    assert_int_equal(row[4].type, TPLAN_CELL_REAL);
    assert_memory_equal(&row[4].r, &k1, sizeof k1);
    assert_memory_equal(&row[5].r, &k2, sizeof k2);
    assert_int_equal(row[6].type, TPLAN_CELL_NULL); /* key3: not used */
    check_fields(row + 7, ncols - 7, &b->plans[i % NPLANS]);
    b->rows++;
    return 0;
}

static int count_row(void *ud, int ncols, const char *const *names,
                     const tplan_cell *row)
{
    (void)ncols;
    (void)names;
    if (row)
        *(int64_t *)ud = row[0].i;
    return 0;
}

static int text_row(void *ud, int ncols, const char *const *names,
                    const tplan_cell *row)
{
    (void)ncols;
    (void)names;
    if (row)
        snprintf(ud, 64, "%s", row[0].s);
    return 0;
}

static void put_many(tplan_store *db, int64_t id, const tplan_plan *p,
                     int64_t from, int64_t to)
{
    tplan_err err;

    for (int64_t i = from; i < to; i++) {
        double keys[2] = {(double)i, -(double)i};

        if (tplan_store_plan(db, id, i + 1, i * 7, i % 3 == 0, many_score(i),
                             keys, 2, &p[i % NPLANS], &err) != TPLAN_OK) {
            print_error("row %lld: %s\n", (long long)i, err.msg);
            fail();
        }
    }
}

static void test_store_writer_thread(void **state)
{
    tplan_plan *p = calloc(NPLANS, sizeof *p);
    char path[] = "/tmp/tplan_test_many_XXXXXX", sql[4096], text[64];
    int fd = mkstemp(path);
    tplan_store *db;
    tplan_sweep_meta m;
    tplan_sweep_stats st;
    tplan_err err;
    int64_t id, n = -1;
    size_t len;
    manyback b = {p, 0};

    (void)state;
    assert_true(fd >= 0 && p);
    close(fd);
    unlink(path);
    make_plans(p);
    memset(&m, 0, sizeof m);
    m.name = "many";
    m.sweep_key = "k";
    m.rank_by = "cost_usd,time_h";
    m.keep = "all";
    m.shards = 1;
    m.space = MANY;
    memset(&st, 0, sizeof st);
    db = tplan_store_open(path, &err);
    assert_non_null(db);
    assert_int_equal(tplan_store_sweep_begin(db, &m, &id, &err), TPLAN_OK);
    put_many(db, id, p, 0, 60001);
    /* a query on the writing store first writes what is queued: the
     * open transaction's rows are all there */
    assert_int_equal(tplan_store_query(db, "SELECT count(*) FROM plans", NULL,
                                       0, count_row, &n, &err),
                     TPLAN_OK);
    assert_int_equal(n, 60001);
    put_many(db, id, p, 60001, MANY);
    assert_int_equal(tplan_store_sweep_finish(db, id, &st, MANY, &err),
                     TPLAN_OK);

    /* a second sweep, abandoned: neither its row nor its rows reach the
     * file (one transaction from sweep_begin to sweep_finish) */
    m.name = "dropped";
    assert_int_equal(tplan_store_sweep_begin(db, &m, &id, &err), TPLAN_OK);
    put_many(db, id, p, 0, 3000);
    tplan_store_abort(db);
    tplan_store_close(db);

    db = tplan_store_open_ro(path, &err);
    assert_non_null(db);
    len = (size_t)snprintf(sql, sizeof sql,
                           "SELECT rank, config_index, pareto, score, key1, "
                           "key2, key3");
    for (int i = 0; i < tplan_field_count(); i++)
        len += (size_t)snprintf(sql + len, sizeof sql - len, ", %s",
                                tplan_field_at(i)->name);
    snprintf(sql + len, sizeof sql - len,
             " FROM plans WHERE sweep_id = 1 ORDER BY rank");
    assert_int_equal(
        tplan_store_query(db, sql, NULL, 0, check_many_row, &b, &err),
        TPLAN_OK);
    assert_int_equal(b.rows, MANY);
    assert_int_equal(tplan_store_query(db,
                                       "SELECT count(*) FROM plans WHERE "
                                       "sweep_id = 2",
                                       NULL, 0, count_row, &n, &err),
                     TPLAN_OK);
    assert_int_equal(n, 0);
    assert_int_equal(tplan_store_query(db,
                                       "SELECT group_concat(completed) FROM "
                                       "sweeps",
                                       NULL, 0, text_row, text, &err),
                     TPLAN_OK);
    assert_string_equal(text, "1");
    assert_int_equal(tplan_store_query(db, "PRAGMA integrity_check", NULL, 0,
                                       text_row, text, &err),
                     TPLAN_OK);
    assert_string_equal(text, "ok");
    tplan_store_close(db);
    unlink(path);
    free(p);
}

/* The schema's plans columns: the row's own, then every plan field in the
 * field table's order (the CSV header's), nothing else. */
static int collect_names(void *ud, int ncols, const char *const *names,
                         const tplan_cell *row)
{
    char *out = ud;

    (void)ncols;
    (void)names;
    if (row) {
        strcat(out, row[0].s);
        strcat(out, ",");
    }
    return 0;
}

static void test_schema_matches_fields(void **state)
{
    char path[] = "/tmp/tplan_test_schema_XXXXXX";
    int fd = mkstemp(path);
    char got[4096] = "", want[4096] = "";
    tplan_store *db;
    tplan_err err;

    (void)state;
    close(fd);
    unlink(path);
    db = tplan_store_open(path, &err);
    assert_non_null(db);
    assert_int_equal(tplan_store_query(db,
                                       "SELECT name FROM pragma_table_info("
                                       "'plans') ORDER BY cid",
                                       NULL, 0, collect_names, got, &err),
                     TPLAN_OK);
    strcpy(want, "sweep_id,rank,config_index,pareto,score,key1,key2,key3,"
                 "key4,");
    for (int i = 0; i < tplan_field_count(); i++) {
        strcat(want, tplan_field_at(i)->name);
        strcat(want, ",");
    }
    assert_string_equal(got, want);
    tplan_store_close(db);
    unlink(path);
}

static void test_sha256_vectors(void **state)
{
    /* FIPS 180-4 examples (NIST CSRC "SHA256.pdf") */
    static const struct {
        const char *in, *out;
    } v[] = {
        {"",
         "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc",
         "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    };
    char hex[65];

    (void)state;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        tplan_sha256 h;

        tplan_sha256_init(&h);
        tplan_sha256_update(&h, v[i].in, strlen(v[i].in));
        tplan_sha256_hex(&h, hex);
        assert_string_equal(hex, v[i].out);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_reads_back_exactly),
        cmocka_unit_test(test_fmt_real_shortest),
        cmocka_unit_test(test_fmt_real_reference),
        cmocka_unit_test(test_fmt_real_short_buffer),
        cmocka_unit_test(test_store_keeps_values),
        cmocka_unit_test(test_store_writer_thread),
        cmocka_unit_test(test_schema_matches_fields),
        cmocka_unit_test(test_sha256_vectors),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
