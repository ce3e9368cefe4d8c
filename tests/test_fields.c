/* The plan field table: its rows are consistent, enum names are each
 * module's own, and parsing gives the values and messages every front end
 * shows (table-driven). */
#include "tplan_test.h"

#include <math.h>
#include <string.h>

#include "config.h"
#include "fields.h"
#include "plan.h"
#include "precision.h"
#include "recipe.h"

static void test_rows_consistent(void **state)
{
    int n = tplan_field_count();

    (void)state;
    assert_true(n > 0 && n <= TPLAN_MAX_FIELDS);
    assert_null(tplan_field_at(-1));
    assert_null(tplan_field_at(n));
    for (int i = 0; i < n; i++) {
        const tplan_field *f = tplan_field_at(i);
        bool in = f->flags & TPLAN_FIELD_IN;

        assert_int_equal(tplan_field_find(f->name), i);
        assert_true(f->flags & TPLAN_FIELD_OUT); /* every input is a column */
        assert_non_null(f->doc);
        assert_non_null(f->unit);
        if (!in) {
            assert_int_equal(f->kind, TPLAN_FK_NONE);
            assert_false(f->flags & TPLAN_FIELD_AXIS);
            continue;
        }
        assert_true(f->kind != TPLAN_FK_NONE);
        assert_non_null(f->input);
        assert_non_null(f->def);
        assert_int_equal(tplan_field_find_input(f->input), i);
        assert_non_null(f->flag);
        assert_true(strncmp(f->flag, "--", 2) == 0);
        assert_int_equal(tplan_field_find_flag(f->flag), i);
        if (f->kind == TPLAN_FK_INT || f->kind == TPLAN_FK_REAL)
            assert_true(f->min <= f->max && f->min >= 0);
        if (f->kind == TPLAN_FK_ENUM || f->kind == TPLAN_FK_TEXT ||
            f->kind == TPLAN_FK_NAME)
            assert_non_null(f->values);
        if (f->flags & TPLAN_FIELD_FLAG)
            assert_int_equal(f->kind, TPLAN_FK_BOOL);
    }
    assert_int_equal(tplan_field_find("nosuch"), -1);
    assert_int_equal(tplan_field_find_input("nosuch"), -1);
    assert_int_equal(tplan_field_find_flag("--nosuch"), -1);
    assert_int_equal(tplan_field_find("gpu"), TPLAN_FIELD_ID_GPU);
    assert_int_equal(tplan_field_find("model"), TPLAN_FIELD_ID_MODEL);
}

/* An enum field's names, index by index, are its module's names. */
static void check_names(const char *field, int count,
                        const char *(*name)(int code))
{
    const tplan_field *f = tplan_field_at(tplan_field_find(field));
    int i = 0;

    assert_non_null(f);
    for (; f->values[i]; i++)
        assert_string_equal(f->values[i], name(i));
    assert_int_equal(i, count);
}

static const char *precision_name(int i)
{
    return tplan_precision_get((tplan_precision)i)->name;
}
static const char *optimizer_name(int i)
{
    return tplan_optimizer_get((tplan_optimizer)i)->name;
}
static const char *recompute_name(int i)
{
    return tplan_recompute_name((tplan_recompute)i);
}
static const char *attention_name(int i)
{
    return tplan_attention_name((tplan_attention)i);
}
static const char *profile_name(int i)
{
    return tplan_profile_name((tplan_profile)i);
}
static const char *rule_name(int i)
{
    return tplan_lr_rule_name((tplan_lr_rule)i);
}
static const char *schedule_name(int i)
{
    return tplan_schedule_name((tplan_schedule)i);
}

static void test_enum_names(void **state)
{
    (void)state;
    check_names("precision", TPLAN_PREC_COUNT, precision_name);
    check_names("optimizer", TPLAN_OPT_COUNT, optimizer_name);
    check_names("recompute", TPLAN_RECOMPUTE_FULL + 1, recompute_name);
    check_names("attention", TPLAN_ATTN_FLASH + 1, attention_name);
    check_names("profile", TPLAN_PROFILE_COUNT, profile_name);
    check_names("lr_rule", TPLAN_LR_RULE_COUNT, rule_name);
    check_names("schedule", TPLAN_SCHED_COUNT, schedule_name);
}

/* text -> value, or the exact message */
static const struct {
    const char *field, *text;
    double value;
    const char *msg; /* NULL: accepted */
} parse_cases[] = {
    {"zero", "3", 3, NULL},
    {"zero", "4", 0,
     "zero: 4: out of range (valid: an integer from 0 to 3)"},
    {"seq", "2.5", 0,
     "seq: 2.5: not an integer (valid: an integer from 1 to 100000000)"},
    {"seq", "8k", 0,
     "seq: 8k: not an integer (valid: an integer from 1 to 100000000)"},
    {"seq", "0x400", 0,
     "seq: 0x400: not an integer (valid: an integer from 1 to 100000000)"},
    {"seq", "1e3", 1000, NULL},
    {"tokens", "15T", 15e12, NULL},
    {"tokens", "nan", 0,
     "tokens: nan: not a number (valid: a number from 1 to 1e+18)"},
    {"global_batch", "2K", 2000, NULL},
    {"micro_batch", "max", 0, NULL},
    {"accum", "max", 0,
     "accum: max: not an integer (valid: an integer from 1 to 100000000)"},
    {"sp", "true", 1, NULL},
    {"sp", "0", 0, NULL},
    {"sp", "yes", 0, "sp: yes: not a boolean (valid: true, false)"},
    {"precision", "fp8", 6, NULL},
    {"precision", "FP8", 0,
     "precision: FP8: unknown name (valid: fp32, amp-bf16, amp-fp16, "
     "mixed-bf16, mixed-fp16, bf16, fp8)"},
    {"price", "-4", 0,
     "price: -4: out of range (valid: a number from 1e-09 to 1000000)"},
    {"overlap", "1.01", 0,
     "overlap: 1.01: out of range (valid: a number from 0 to 1)"},
};

static void test_parse(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof parse_cases / sizeof parse_cases[0]; i++) {
        int id = tplan_field_find_input(parse_cases[i].field);
        tplan_err err = {0, "", ""};
        double v = -1;
        int rc = tplan_field_parse(id, parse_cases[i].text, &v, &err);

        if (!parse_cases[i].msg) {
            assert_int_equal(rc, TPLAN_OK);
            assert_true(v == parse_cases[i].value);
        } else {
            assert_int_equal(rc, TPLAN_EINVAL);
            assert_string_equal(err.msg, parse_cases[i].msg);
            assert_string_equal(err.field, parse_cases[i].field);
        }
    }
}

/* A number checks as its text parses: one message for both. */
static void test_check_matches_parse(void **state)
{
    static const struct {
        const char *field;
        double v;
        const char *text;
    } cases[] = {{"zero", 4, "4"},   {"gpus", 0, "0"},
                 {"reserve", 0.995, "0.995"}, {"vpp", 2.5, "2.5"},
                 {"dropout", -0.1, "-0.1"}};

    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int id = tplan_field_find_input(cases[i].field);
        tplan_err a, b;
        double v;

        assert_int_equal(tplan_field_check(id, cases[i].v, &a), TPLAN_EINVAL);
        assert_int_equal(tplan_field_parse(id, cases[i].text, &v, &b),
                         TPLAN_EINVAL);
        assert_string_equal(a.msg, b.msg);
    }
}

/* Set through the table, read back through the table. */
static void test_set_and_get(void **state)
{
    static const struct {
        const char *input, *text, *name;
        double want;
    } cases[] = {
        {"nic_gbps", "100", "nic_gbps", 100},
        {"link_gbs", "200", "link_gbs", 200},
        {"context_mib", "500", "context_mib", 500},
        {"price", "3.5", "price_usd_per_h", 3.5},
        {"overlap", "0.25", "overlap", 0.25},
        {"pue", "1.3", "pue", 1.3},
    };
    tplan_config c;
    tplan_plan *p = test_malloc(sizeof *p);
    tplan_err err;
    char buf[64];

    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int id = tplan_field_find_input(cases[i].input);
        tplan_value v;

        config_for(&c, "gpt2", "a100-80g");
        assert_int_equal(tplan_field_set_text(id, cases[i].text, &c, &err),
                         TPLAN_OK);
        eval_ok(&c, p);
        v = tplan_field_get(tplan_field_find(cases[i].name), p, buf,
                            sizeof buf);
        assert_rel(v.r, cases[i].want, 1e-12);
    }
    /* warmup and a ramp come back as text that parses to the same */
    assert_int_equal(
        tplan_field_set_text(tplan_field_find("warmup"), "5epochs", &c, &err),
        TPLAN_OK);
    assert_int_equal(tplan_field_set_text(tplan_field_find("batch_ramp"),
                                          "4M:252M,8M", &c, &err),
                     TPLAN_OK);
    tplan_fields_finish(&c);
    assert_true(c.global_batch_tokens == 8e6);
    c.tokens = 1e9;
    c.epochs = 0;
    assert_int_equal(tplan_plan_eval(&c, p, &err), TPLAN_OK);
    assert_string_equal(
        tplan_field_get(tplan_field_find("warmup"), p, buf, sizeof buf).s,
        "5epochs");
    assert_string_equal(
        tplan_field_get(tplan_field_find("batch_ramp"), p, buf, sizeof buf).s,
        "4000000:252000000,8000000");
    test_free(p);
}

/* tplan_field_double_at: where it names a double, tplan_field_apply
 * writes that double and no other byte of the config (at the input's
 * range's two ends, so that one of them moves it from the default) */
static void test_double_at(void **state)
{
    tplan_config c, d, e;
    int found = 0;

    (void)state;
    config_for(&c, "gpt2", "a100-80g");
    for (int id = 0; id < tplan_field_count(); id++) {
        const tplan_field *f = tplan_field_at(id);
        long at = tplan_field_double_at(id);
        bool moved = false;

        if (at < 0)
            continue;
        found++;
        assert_int_equal(f->kind, TPLAN_FK_REAL);
        assert_true(at + (long)sizeof(double) <= (long)sizeof c);
        for (int end = 0; end < 2; end++) {
            d = c;
            tplan_field_apply(id, end ? f->max : f->min, &d);
            e = c;
            memcpy((char *)&e + at, (const char *)&d + at, sizeof(double));
            assert_memory_equal(&e, &d, sizeof d);
            moved = moved || memcmp(&c, &d, sizeof d) != 0;
        }
        assert_true(moved);
    }
    assert_true(found > 0);
    /* the fields that write more than one (or not a double) say so */
    assert_int_equal(tplan_field_double_at(tplan_field_find_input("gpus")), -1);
    assert_int_equal(
        tplan_field_double_at(tplan_field_find_input("global_batch_tokens")),
        -1);
}

/* The bytes of a config tplan_field_apply(id, ...) writes, at the
 * input's range's ends and at 0 and 1, over a config of zero bytes and
 * one of 0xff bytes (a byte it writes differs from one of the two) */
static void bytes_written(int id, unsigned char *w)
{
    const tplan_field *f = tplan_field_at(id);
    const double vals[4] = {f->min, f->max, 0.0, 1.0};
    tplan_config c;

    memset(w, 0, sizeof c);
    for (int fill = 0; fill < 2; fill++)
        for (int k = 0; k < 4; k++) {
            memset(&c, fill ? 0xff : 0, sizeof c);
            tplan_field_apply(id, vals[k], &c);
            for (size_t b = 0; b < sizeof c; b++)
                w[b] |= ((const unsigned char *)&c)[b] !=
                        (fill ? 0xff : 0);
        }
}

/* tplan_field_writes_alone: an axis that says so writes bytes of the
 * config that no other axis writes (nor the model or gpu axis, which
 * replace their structs and the model's seq), so that a sweep's digits
 * stand for its config (engine/layout_memo.c); the axes it excludes
 * write some other's */
static void test_writes_alone(void **state)
{
    static unsigned char w[sizeof(tplan_config)];
    static int owner[sizeof(tplan_config)];
    const size_t model = offsetof(tplan_config, model),
                 gpu = offsetof(tplan_config, gpu),
                 seq = offsetof(tplan_config, seq);
    int alone = 0;

    (void)state;
    for (size_t b = 0; b < sizeof(tplan_config); b++)
        owner[b] = -1;
    for (int id = 0; id < tplan_field_count(); id++) {
        bool any = false;

        if (!(tplan_field_at(id)->flags & TPLAN_FIELD_AXIS) ||
            !tplan_field_writes_alone(id))
            continue;
        alone++;
        bytes_written(id, w);
        for (size_t b = 0; b < sizeof(tplan_config); b++) {
            if (!w[b])
                continue;
            any = true;
            if (owner[b] >= 0)
                fail_msg("%s and %s both write byte %zu",
                         tplan_field_at(owner[b])->input,
                         tplan_field_at(id)->input, b);
            owner[b] = id;
            assert_false(b >= model && b < model + sizeof(tplan_model));
            assert_false(b >= gpu && b < gpu + sizeof(tplan_gpu));
            assert_false(b >= seq && b < seq + sizeof(int64_t));
        }
        assert_true(any);
    }
    assert_true(alone > 50);
    /* fit_attention writes attention too, global_batch the tokens */
    assert_false(
        tplan_field_writes_alone(tplan_field_find_input("fit_attention")));
    assert_false(
        tplan_field_writes_alone(tplan_field_find_input("global_batch")));
    assert_true(tplan_field_writes_alone(tplan_field_find_input("recompute")));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_consistent),
        cmocka_unit_test(test_enum_names),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_check_matches_parse),
        cmocka_unit_test(test_set_and_get),
        cmocka_unit_test(test_double_at),
        cmocka_unit_test(test_writes_alone),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
