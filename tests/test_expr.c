/* Filter expressions (engine/expr.c): each operator against the plan's
 * own figures, SQL's three-valued logic for fields with no value, and the
 * error for each kind of bad expression. */
#include "tplan_test.h"

#include "expr.h"

static tplan_plan plan, nobudget;

static int setup(void **state)
{
    tplan_config c;

    (void)state;
    config_for(&c, "llama3-8b", "h100-sxm");
    c.gpus = 8;
    c.zero = 3;
    c.micro_batch = 1;
    c.recompute = TPLAN_RECOMPUTE_FULL;
    c.tokens = 1e12;
    eval_ok(&c, &plan);
    /* a model of parameters only: no FLOPs, so no step time and no
     * throughput (perf figures have no value) */
    tplan_model_init(&c.model);
    c.model.arch = TPLAN_ARCH_GENERIC;
    c.model.generic_params = 1000000000;
    c.model.generic_act_bytes_fp32 = 1e6;
    c.seq = 1;
    eval_ok(&c, &nobudget);
    return 0;
}

static bool pass(const char *src, const tplan_plan *p)
{
    tplan_expr e;
    tplan_err err;

    if (tplan_expr_compile(src, &e, &err)) {
        print_error("%s: %s\n", src, err.msg);
        fail();
    }
    return tplan_expr_eval(&e, p);
}

static void test_operators(void **state)
{
    char buf[64];

    (void)state;
    snprintf(buf, sizeof buf, "mfu > %.17g", plan.perf.mfu * 0.999);
    assert_true(pass(buf, &plan));
    snprintf(buf, sizeof buf, "mfu > %.17g", plan.perf.mfu * 1.001);
    assert_false(pass(buf, &plan));
    assert_true(pass("fits", &plan) == plan.mem.fits);
    assert_true(pass("not fits", &plan) == !plan.mem.fits);
    assert_true(pass("gpus == 8 and zero == 3", &plan));
    assert_false(pass("gpus == 8 and zero == 2", &plan));
    assert_true(pass("gpus == 16 or zero == 3", &plan));
    assert_true(pass("gpus * micro_batch == 8", &plan));
    assert_true(pass("(gpus + 8) / 2 - 8 == 0", &plan));
    assert_true(pass("-gpus < 0 and gpus ~= 9 and gpus != 9", &plan));
    assert_true(pass("gpus >= 8 and gpus <= 8", &plan));
    assert_true(pass("fits == true or fits == false", &plan));
    assert_true(pass("precision == 'mixed-bf16' and recompute == \"full\"",
                     &plan));
    assert_true(pass("precision != 'bf16' AND NOT sp", &plan));
    assert_true(pass("model == 'llama3-8b' and gpu == 'h100-sxm'", &plan));
    assert_true(pass("'llama3-8b' == model", &plan));
    /* an empty text takes room of its own in the pool */
    assert_true(pass("gpu != \"\" and gpu == \"h100-sxm\"", &plan));
    assert_true(pass("not (model == '') and model == 'llama3-8b' and "
                     "gpu == 'h100-sxm'",
                     &plan));
    assert_true(pass("fit_confidence == 'yes' or fit_confidence == 'likely' "
                     "or not fits",
                     &plan));
    assert_true(pass("gpus / 0 != 1 or true", &plan)); /* no value or true */
    assert_false(pass("gpus / 0 != 1", &plan));        /* no value */
}

/* A field with no value makes a comparison unknown; unknown and false is
 * false, unknown or true is true, not unknown is unknown, and a plan
 * passes only on true. */
static void test_no_value(void **state)
{
    (void)state;
    assert_false(pass("mfu < 1e30", &nobudget));
    assert_false(pass("not (mfu < 1e30)", &nobudget));
    assert_false(pass("mfu < 1e30 and gpus == 8", &nobudget));
    assert_true(pass("mfu < 1e30 or gpus == 8", &nobudget));
    assert_false(pass("mfu < 1e30 or gpus == 9", &nobudget));
    assert_true(pass("mfu < 1e30", &plan));
}

static void bad(const char *src, const char *msg)
{
    tplan_expr e;
    tplan_err err;

    assert_int_equal(tplan_expr_compile(src, &e, &err), TPLAN_EINVAL);
    assert_string_equal(err.field, "where");
    if (strcmp(err.msg, msg) != 0) {
        print_error("%s:\n got  %s\n want %s\n", src, err.msg, msg);
        fail();
    }
    assert_int_equal(e.n, 0);
}

static void test_errors(void **state)
{
    (void)state;
    bad("mfu >> 0.4", "where: 'mfu >> 0.4': expected a field, a number or "
                      "'(' instead of '>' at character 6");
    bad("mfux > 0.4", "where: 'mfux > 0.4': unknown field 'mfux' (tplan "
                      "fields lists them) at character 1");
    bad("fits and", "where: 'fits and': expected a field, a number or '(' "
                    "at the end at character 9");
    bad("(fits", "where: '(fits': expected ')' at the end at character 6");
    bad("fits = true",
        "where: 'fits = true': '=': compare with == at character 6");
    bad("precision", "where: 'precision': a text field alone is not a "
                     "condition at character 1");
    bad("precision > 'bf16'", "where: 'precision > 'bf16'': precision is "
                              "text: compare it with == or != to \"a name\" "
                              "at character 1");
    bad("precision == 'bf61'",
        "where: 'precision == 'bf61'': 'bf61' is none of the field's names "
        "at character 14 (precision: fp32, amp-bf16, amp-fp16, mixed-bf16, "
        "mixed-fp16, bf16, fp8)");
    bad("gpus + 'x' > 1", "where: 'gpus + 'x' > 1': text 'x' where a number "
                          "belongs at character 8");
    bad("warnings == 'x'", "where: 'warnings == 'x'': 'warnings' is made "
                           "for kept plans only: filter on the figures at "
                           "character 1");
    bad("'abc", "where: ''abc': unclosed text at character 1");
    bad("fits fits", "where: 'fits fits': unexpected 'fits' at character 6");
    bad("gpus < tp < 8",
        "where: 'gpus < tp < 8': unexpected '<' at character 11");
    bad("", "where: an empty expression");
    bad("   ", "where: an empty expression");
}

/* Long and deep expressions are refused, never overflow. */
static void test_limits(void **state)
{
    char src[TPLAN_EXPR_MAX_LEN + 2];
    tplan_expr e;
    tplan_err err;
    size_t n = 0;

    (void)state;
    memset(src, '(', sizeof src - 1);
    src[sizeof src - 1] = '\0';
    assert_int_equal(tplan_expr_compile(src, &e, &err), TPLAN_EINVAL);
    /* 200 terms: more operations than the engine keeps */
    for (int i = 0; i < 200 && n + 12 < sizeof src; i++)
        n += (size_t)snprintf(src + n, sizeof src - n, "%sgpus", i ? "+" : "");
    snprintf(src + n, sizeof src - n, ">1");
    assert_int_equal(tplan_expr_compile(src, &e, &err), TPLAN_EINVAL);
    assert_non_null(strstr(err.msg, "more than 128 operations"));
    /* 300 nested parentheses: within the length, past what is kept */
    n = 0;
    for (int i = 0; i < 300; i++)
        src[n++] = '(';
    n += (size_t)snprintf(src + n, sizeof src - n, "fits");
    for (int i = 0; i < 300; i++)
        src[n++] = ')';
    src[n] = '\0';
    assert_int_equal(tplan_expr_compile(src, &e, &err), TPLAN_OK);
    assert_true(tplan_expr_eval(&e, &plan) == plan.mem.fits);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_operators),
        cmocka_unit_test(test_no_value),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_limits),
    };

    return cmocka_run_group_tests(tests, setup, NULL);
}
