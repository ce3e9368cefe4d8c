/* tplan calibrate MEASURED.csv [--framework BASE] [--framework-file F]
 * --name NAME -o PROFILE.csv: read one measured run per row (plan fields
 * and model shape as calc's options, plus measured_* columns), fit the
 * base framework's terms to them (engine/calibrate.c), print each run's
 * error before, after and left out, and write the profile as a framework
 * row that --framework-file and tplan.frameworks.load read. */
#include "calib_cmd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "args.h"
#include "calc_opts.h"
#include "calibrate.h"
#include "csv_in.h"
#include "csv_out.h"
#include "fields.h"
#include "framework.h"
#include "framework_csv.h"
#include "paths.h"
#include "plan.h"
#include "status.h"

#define MAX_COLS  64
#define MAX_RUNS  1000
#define MAX_ARGS  (2 * MAX_COLS + 8)
#define LABEL_LEN 48
#define MAX_KEPT  256 /* other frameworks kept from an existing -o file */

/* Where the report goes: stdout, or stderr when the profile itself goes
 * to stdout (-o -), so the two never mix (issue 36). */
static FILE *rep;

typedef enum {
    COL_OPTION, /* a calc option taking a value: --NAME=VALUE */
    COL_MFLAG,  /* a model flag taking none: --tied */
    COL_STEP,   /* measured_step_time_s */
    COL_TOKENS, /* measured_tokens_per_s */
    COL_PEAK,   /* measured_peak_bytes */
    COL_RUN     /* a label */
} col_kind;

typedef struct reader {
    const char *path, *base, *base_file;
    int ncol;
    char cols[MAX_COLS][64];  /* as calc spells them: --kv-heads */
    char names[MAX_COLS][64]; /* as the header gives them */
    col_kind kind[MAX_COLS];
    tplan_calib_run *runs;
    char (*labels)[LABEL_LEN];
    int n, cap;
} reader;

static int row_error(const reader *r, int64_t line, const char *col,
                     const char *value, const char *why)
{
    return usage_error("%s:%lld: %s: '%.40s': %s", r->path, (long long)line,
                       col, value, why);
}

static int header(reader *r, int64_t line, int n, const char *const *f)
{
    bool mb = false, measured = false;

    if (n > MAX_COLS)
        return usage_error("%s:%lld: more than %d columns", r->path,
                           (long long)line, MAX_COLS);
    for (int i = 0; i < n; i++) {
        const char *c = f[i];
        calc_opt_kind k;

        if (strlen(c) >= sizeof r->cols[i] - 2)
            return usage_error("%s:%lld: column %d: name too long", r->path,
                               (long long)line, i + 1);
        for (int j = 0; j < i; j++)
            if (strcmp(f[j], c) == 0)
                return usage_error("%s:%lld: column %s given twice", r->path,
                                   (long long)line, c);
        snprintf(r->cols[i], sizeof r->cols[i], "--%s", c);
        snprintf(r->names[i], sizeof r->names[i], "%s", c);
        for (char *p = r->cols[i] + 2; *p; p++)
            if (*p == '_')
                *p = '-';
        if (strcmp(c, "measured_step_time_s") == 0)
            r->kind[i] = COL_STEP;
        else if (strcmp(c, "measured_tokens_per_s") == 0)
            r->kind[i] = COL_TOKENS;
        else if (strcmp(c, "measured_peak_bytes") == 0)
            r->kind[i] = COL_PEAK;
        else if (strcmp(c, "run") == 0)
            r->kind[i] = COL_RUN;
        else if (strcmp(c, "framework") == 0 ||
                 strcmp(c, "framework_file") == 0)
            return usage_error("%s:%lld: column %s: the base framework is "
                               "calibrate's --framework, for every run",
                               r->path, (long long)line, c);
        else if ((k = calc_option_kind(c)) == CALC_OPT_NONE)
            return usage_error("%s:%lld: column %s: not a plan field, a "
                               "model shape column or a measured_* column "
                               "(tplan fields; tplan calc --help)",
                               r->path, (long long)line, c);
        else
            r->kind[i] = k == CALC_OPT_FLAG && tplan_field_find_input(c) < 0
                             ? COL_MFLAG
                             : COL_OPTION;
        mb |= strcmp(c, "micro_batch") == 0;
        measured |= r->kind[i] == COL_STEP || r->kind[i] == COL_TOKENS ||
                    r->kind[i] == COL_PEAK;
    }
    r->ncol = n;
    if (!mb)
        return usage_error("%s:%lld: no micro_batch column: give the "
                           "micro-batch each run used",
                           r->path, (long long)line);
    if (!measured)
        return usage_error("%s:%lld: no measured_step_time_s, "
                           "measured_tokens_per_s or measured_peak_bytes "
                           "column: nothing to calibrate to",
                           r->path, (long long)line);
    return 0;
}

/* A model flag's cell: true adds the flag; false adds its opposite where
 * calc has one (--untied, --no-bias), else nothing. */
static int model_flag(const reader *r, int64_t line, int i, const char *v,
                      const char **argv, int *argc)
{
    static const char *const opposite[][2] = {{"--tied", "--untied"},
                                              {"--untied", "--tied"},
                                              {"--bias", "--no-bias"},
                                              {"--no-bias", "--bias"}};

    if (strcmp(v, "true") == 0 || strcmp(v, "1") == 0) {
        argv[(*argc)++] = r->cols[i];
        return 0;
    }
    if (strcmp(v, "false") != 0 && strcmp(v, "0") != 0)
        return row_error(r, line, r->names[i], v, "true or false");
    for (size_t k = 0; k < sizeof opposite / sizeof opposite[0]; k++)
        if (strcmp(opposite[k][0], r->cols[i]) == 0)
            argv[(*argc)++] = opposite[k][1];
    return 0;
}

static int measured(const reader *r, int64_t line, int i, const char *v,
                    double *out)
{
    if (!read_positive(v, 1e30, out))
        return row_error(r, line, r->names[i], v, "a positive number");
    return 0;
}

/* One run from its row; opts[] receives the "--name=value" options it
 * builds (the caller frees them). */
static int read_run(reader *r, int64_t line, const char *const *f, char **opts)
{
    const char *argv[MAX_ARGS];
    char where[300];
    double step = (double)NAN, tokens = (double)NAN, peak = (double)NAN;
    tplan_calib_run *run;
    calc_out out;
    tplan_plan p;
    tplan_err err;
    int argc = 0, rc;

    if (r->n == MAX_RUNS)
        return usage_error("%s:%lld: more than %d runs", r->path,
                           (long long)line, MAX_RUNS);
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 64;
        tplan_calib_run *nr = realloc(r->runs, sizeof *nr * (size_t)cap);
        char(*nl)[LABEL_LEN];

        if (nr)
            r->runs = nr;
        nl = nr ? realloc(r->labels, sizeof *nl * (size_t)cap) : NULL;
        if (!nl) {
            fputs("tplan: out of memory\n", stderr);
            return 1;
        }
        r->labels = nl;
        r->cap = cap;
    }
    run = &r->runs[r->n];
    snprintf(r->labels[r->n], LABEL_LEN, "line %lld", (long long)line);
    argv[argc++] = "calc";
    if (r->base) {
        argv[argc++] = "--framework";
        argv[argc++] = r->base;
    }
    if (r->base_file) {
        argv[argc++] = "--framework-file";
        argv[argc++] = r->base_file;
    }
    for (int i = 0; i < r->ncol; i++) {
        const char *v = f[i];

        rc = 0;
        if (!v[0])
            continue;
        switch (r->kind[i]) {
        case COL_RUN:
            snprintf(r->labels[r->n], LABEL_LEN, "%s", v);
            break;
        case COL_STEP:
            rc = measured(r, line, i, v, &step);
            break;
        case COL_TOKENS:
            rc = measured(r, line, i, v, &tokens);
            break;
        case COL_PEAK:
            rc = measured(r, line, i, v, &peak);
            break;
        case COL_MFLAG:
            rc = model_flag(r, line, i, v, argv, &argc);
            break;
        case COL_OPTION: {
            size_t len = strlen(r->cols[i]) + strlen(v) + 2;

            if (!(opts[i] = malloc(len))) {
                fputs("tplan: out of memory\n", stderr);
                return 1;
            }
            snprintf(opts[i], len, "%s=%s", r->cols[i], v);
            argv[argc++] = opts[i];
            break;
        }
        }
        if (rc)
            return rc;
    }
    if (!isnan(step) && !isnan(tokens))
        return usage_error("%s:%lld: give measured_step_time_s or "
                           "measured_tokens_per_s, not both",
                           r->path, (long long)line);
    if (isnan(step) && isnan(tokens) && isnan(peak))
        return usage_error("%s:%lld: nothing measured in this run", r->path,
                           (long long)line);
    snprintf(where, sizeof where, "%s:%lld", r->path, (long long)line);
    usage_context(where);
    rc = calc_parse(argc, argv, &run->c, &out);
    usage_context(NULL);
    if (rc)
        return rc;
    /* the fit keeps each run's micro-batch: one solved from memory would
     * move with the memory terms */
    if (run->c.micro_batch == 0)
        return usage_error("%s: micro_batch: max: give the micro-batch the "
                           "run used",
                           where);
    if (tplan_plan_eval(&run->c, &p, &err))
        return usage_error("%s: %s", where, err.msg);
    if ((!isnan(step) || !isnan(tokens)) && !p.perf.timed)
        return usage_error("%s: a step time for a model tplan does not "
                           "time (give its shape or --flops-per-sample)",
                           where);
    /* a measured throughput is a step time: the tokens of a step over it */
    run->step_s = !isnan(tokens) ? (double)p.tokens_per_step / tokens : step;
    run->peak_bytes = peak;
    r->n++;
    return 0;
}

static int add_run(reader *r, int64_t line, const char *const *f)
{
    char *opts[MAX_COLS] = {NULL};
    int rc = read_run(r, line, f, opts);

    for (int i = 0; i < MAX_COLS; i++)
        free(opts[i]);
    return rc;
}

static int on_record(void *ud, int64_t line, bool is_header, int n,
                     const char *const *f, tplan_err *err)
{
    int rc = is_header ? header(ud, line, n, f) : add_run(ud, line, f);

    /* the message is printed; the code says it is bad input */
    if (rc)
        return tplan_err_set(err, TPLAN_EUSAGE, "calibrate", "%s", "");
    return 0;
}

typedef struct kept {
    tplan_framework *fw;
    int n;
    const char *name;
} kept;

static int keep_other(void *ud, const tplan_framework *f, tplan_err *err)
{
    kept *k = ud;

    if (strcasecmp(f->name, k->name) == 0)
        return TPLAN_OK;
    if (k->n == MAX_KEPT)
        return tplan_err_set(err, TPLAN_EINVAL, "calibrate",
                             "more than %d frameworks", MAX_KEPT);
    k->fw[k->n++] = *f;
    return TPLAN_OK;
}

static void usage(void)
{
    fputs("usage: tplan calibrate MEASURED.csv --name NAME -o PROFILE.csv\n"
          "                       [--framework BASE] [--framework-file F]\n"
          "\n"
          "Fits a framework profile to runs you measured: one run per row\n"
          "of MEASURED.csv, described by plan fields (columns named as in\n"
          "tplan fields: micro_batch is required) and the model (model, a\n"
          "preset, or shape columns named as calc's options: layers,\n"
          "hidden, heads, kv_heads, ffn, vocab, mlp, norm, tied ...), with\n"
          "any of measured_step_time_s, measured_tokens_per_s,\n"
          "measured_peak_bytes (peak GPU memory, CUDA context included),\n"
          "and an optional run label. At least 3 runs. Prints each run's\n"
          "error before, after and left out of the fit, and writes the\n"
          "profile NAME to PROFILE.csv (other frameworks there are kept):\n"
          "use it with --framework-file PROFILE.csv --framework NAME, or\n"
          "tplan.frameworks.load in Lua.\n",
          stdout);
}

typedef struct opts {
    const char *measured, *base, *base_file, *name, *out;
} opts;

static int parse_opts(int argc, char **argv, opts *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], **slot = NULL;

        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage();
            return -1;
        }
        if (strcmp(a, "--framework") == 0)
            slot = &o->base;
        else if (strcmp(a, "--framework-file") == 0)
            slot = &o->base_file;
        else if (strcmp(a, "--name") == 0)
            slot = &o->name;
        else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0)
            slot = &o->out;
        else if (a[0] == '-' && a[1])
            return usage_error("calibrate: unknown option %s; see tplan "
                               "calibrate --help",
                               a);
        if (!slot) {
            if (o->measured)
                return usage_error("calibrate takes one MEASURED.csv (got "
                                   "'%s' too)",
                                   a);
            o->measured = a;
            continue;
        }
        if (i + 1 >= argc)
            return usage_error("option %s needs a value", a);
        *slot = argv[++i];
    }
    if (!o->measured)
        return usage_error("calibrate: give MEASURED.csv; see tplan "
                           "calibrate --help");
    if (!o->name)
        return usage_error("calibrate: give --name NAME for the profile");
    if (!o->out)
        return usage_error("calibrate: give -o PROFILE.csv for the profile");
    if (o->base_file && !o->base)
        return usage_error("--framework-file goes with --framework BASE "
                           "naming one of its frameworks (framework-file=%s)",
                           o->base_file);
    if (tplan_same_file(o->out, o->measured))
        return usage_error("-o %s is MEASURED.csv: give the profile a file "
                           "of its own",
                           o->out);
    /* no command writes over one of its inputs, kept rows or not */
    if (o->base_file && tplan_same_file(o->out, o->base_file))
        return usage_error("-o %s is the --framework-file the base comes "
                           "from: give the profile another file",
                           o->out);
    return 0;
}

/* The base framework: built in, from --framework-file, or none. */
static int base_framework(const opts *o, tplan_framework *f)
{
    tplan_err err;
    int rc;

    /* the name is checked whatever the base */
    if (tplan_framework_init(f, o->name, &err))
        return report(&err);
    if (!o->base)
        return 0;
    rc = o->base_file ? tplan_framework_csv_find(o->base_file, o->base, f, &err)
                      : TPLAN_ENOTFOUND;
    if (rc == TPLAN_ENOTFOUND)
        rc = tplan_framework_lookup(o->base, f, &err);
    if (rc)
        return report(&err);
    /* the profile is the base under its new name */
    snprintf(f->name, sizeof f->name, "%s", o->name);
    return 0;
}

static int set_value(tplan_framework *f, const char *field, double v)
{
    tplan_err err;
    char buf[64];

    tplan_fmt_field(buf, sizeof buf, tplan_field_find_input(field), v);
    return tplan_framework_set(f, field, buf, &err) ? report(&err) : 0;
}

static int set_range(tplan_framework *f, const char *min, const char *max,
                     const double r[2])
{
    int rc = set_value(f, min, r[0]);

    return rc ? rc : set_value(f, max, r[1]);
}

/* An existing profile file's other frameworks, read before anything is
 * fitted: a file that is not a profile is refused and left alone. */
static int read_kept(const opts *o, kept *k)
{
    tplan_err err;

    if (!(k->fw = malloc(sizeof *k->fw * (MAX_KEPT + 1)))) {
        fputs("tplan: out of memory\n", stderr);
        return 1;
    }
    if (access(o->out, F_OK) == 0 &&
        tplan_framework_csv_read(o->out, keep_other, k, &err))
        return usage_error("-o %s: not a framework file tplan can add to "
                           "(%s): give another path",
                           o->out, err.msg);
    return 0;
}

/* The band of one kind, when runs measured it. */
static int set_band(tplan_framework *f, const char *lo, const char *hi,
                    const double b[2])
{
    int rc;

    if (isnan(b[0]))
        return 0;
    return (rc = set_value(f, lo, b[0])) ? rc : set_value(f, hi, b[1]);
}

/* A relative error as a percentage of sane width: one decimal up to
 * 999.9%, whole percent up to 99,999%, beyond that ">+99999%" (the fit
 * that gives such numbers is refused anyway); "n/a" when not a number. */
static const char *pct(char *buf, size_t n, double e, bool sign)
{
    double v = e * 100.0;

    if (!isfinite(v))
        snprintf(buf, n, "n/a");
    else if (fabs(v) < 999.95)
        snprintf(buf, n, sign ? "%+.1f%%" : "%.1f%%", v);
    else if (fabs(v) < 99999.5)
        snprintf(buf, n, sign ? "%+.0f%%" : "%.0f%%", v);
    else
        snprintf(buf, n, "%s99999%%", v < 0 ? "<-" : sign ? ">+" : ">");
    return buf;
}

static void print_kind(const reader *r, const char *what, bool memory,
                       const tplan_calib_error *e, int n)
{
    char a[24], b[24], c[24];

    if (n == 0)
        return;
    fprintf(rep, "\n%-24s %14s %9s %9s %9s\n", what, "measured", "before", "after",
           "left out");
    for (int j = 0; j < n; j++) {
        const tplan_calib_run *run = &r->runs[e[j].run];

        if (memory)
            fprintf(rep, "%-24.24s %10.2f GiB", r->labels[e[j].run],
                   run->peak_bytes / (1024.0 * 1024 * 1024));
        else
            fprintf(rep, "%-24.24s %12.4f s", r->labels[e[j].run], run->step_s);
        fprintf(rep, " %9s %9s %9s\n", pct(a, sizeof a, e[j].before, true),
                pct(b, sizeof b, e[j].after, true),
                pct(c, sizeof c, e[j].left_out, true));
    }
    fprintf(rep, "%-24s %14s %9s %9s %9s\n", "median |error|", "",
            pct(a, sizeof a, tplan_calib_median(e, n, 0), false),
            pct(b, sizeof b, tplan_calib_median(e, n, 1), false),
            pct(c, sizeof c, tplan_calib_median(e, n, 2), false));
}

/* The check of a finished fit: refused (tplan_calib_verdict's reason),
 * or warned about where it is a judgement call: left-out runs missed by
 * a median of more than WARN_LEFT_OUT. */
#define WARN_LEFT_OUT 0.15

static int calib_check(const reader *r,
                                 const tplan_calib_result *res,
                                 tplan_err *err)
{
    const char *kinds[2] = {"step time", "peak memory"};
    const tplan_calib_error *e[2] = {res->time, res->memory};
    int ne[2] = {res->n_time, res->n_memory};
    int rc = tplan_calib_verdict(r->runs, r->n, res, err);

    if (rc)
        return rc;
    for (int kind = 0; kind < 2; kind++) {
        double m = ne[kind] ? tplan_calib_median(e[kind], ne[kind], 2) : 0.0;

        if (m > WARN_LEFT_OUT)
            fprintf(stderr,
                    "tplan: warning: calibrate: %s: runs left out of the fit "
                    "are missed by a median %.1f%%: the profile describes "
                    "these runs loosely; read its band, not its point\n",
                    kinds[kind], m * 100);
    }
    return TPLAN_OK;
}

/* The fit's left-out median error of each kind it measured, recorded in
 * the profile (calib_time_err, calib_mem_err: calc shows them). */
static int set_left_out(tplan_framework *f, const tplan_calib_result *res)
{
    int rc = 0;

    /* to 0.01%, as the report prints them to 0.1% */
    if (res->n_time)
        rc = set_value(f, "calib_time_err",
                       round(tplan_calib_median(res->time, res->n_time, 2) *
                             1e4) / 1e4);
    if (!rc && res->n_memory)
        rc = set_value(f, "calib_mem_err",
                       round(tplan_calib_median(res->memory, res->n_memory,
                                                2) *
                             1e4) / 1e4);
    return rc;
}

static int write_profile(const opts *o, kept *k, const tplan_framework *f)
{
    tplan_err err;

    k->fw[k->n++] = *f;
    if (tplan_framework_csv_write(o->out, k->fw, k->n, &err))
        return report(&err);
    if (k->n > 1)
        fprintf(rep, "kept the %d other framework%s of %s\n", k->n - 1,
               k->n > 2 ? "s" : "", o->out);
    return 0;
}

int cmd_calibrate(int argc, char **argv)
{
    opts o;
    reader r;
    tplan_calib_result res;
    tplan_framework f;
    tplan_err err;
    kept kp = {NULL, 0, NULL};
    char ts[96] = "", ms[96] = "";
    int rc;

    memset(&res, 0, sizeof res);
    rep = stdout;
    if ((rc = parse_opts(argc, argv, &o)))
        return rc < 0 ? 0 : rc;
    if (strcmp(o.out, "-") == 0)
        rep = stderr;
    kp.name = o.name;
    if (tplan_framework_builtin(o.name))
        return usage_error("--name %s: a built-in framework's name: give "
                           "yours one of its own",
                           o.name);
    memset(&r, 0, sizeof r);
    if ((rc = base_framework(&o, &f)) || (rc = read_kept(&o, &kp)))
        goto done;
    r.path = o.measured;
    r.base = o.base;
    r.base_file = o.base_file;
    if (tplan_csv_read(o.measured, on_record, &r, &err)) {
        rc =
            err.code == TPLAN_EUSAGE ? exit_status(TPLAN_EUSAGE) : report(&err);
        goto done;
    }
    if (tplan_calibrate(r.runs, r.n, &res, &err)) {
        rc = err.code == TPLAN_EINVAL
                 ? usage_error("%s: %s", o.measured, err.msg)
                 : report(&err);
        goto done;
    }
    fprintf(rep, "calibrating %s from %d runs of %s (base: %s)\n", o.name, r.n,
           o.measured, o.base ? o.base : "none, tplan's defaults");
    for (int i = 0; i < res.k; i++) {
        const char *name = tplan_field_at(res.t[i].field)->input;
        char a[64];

        tplan_fmt_field(a, sizeof a, res.t[i].field, res.t[i].start);
        fprintf(rep, "  %-13s %s -> %.4g\n", name, a, res.x[i]);
        if ((rc = set_value(&f, name, res.x[i])))
            goto done;
    }
    if (res.k < res.candidates)
        fprintf(rep,
                "  (%d of the %d terms these runs move kept: no other "
                "lowered the left-out loss by 1%%, the left-out median "
                "error by a tenth and the left-out error of most runs)\n",
                res.k, res.candidates);
    fprintf(rep, "(left out: each run predicted by a fit %s)\n",
           res.folds == r.n ? "without it"
                            : "without its tenth of the runs (every 10th)");
    print_kind(&r, "step time", false, res.time, res.n_time);
    print_kind(&r, "peak memory", true, res.memory, res.n_memory);
    for (int kind = 0; kind < 2; kind++) {
        char a[24], b[24];

        if (!(kind ? res.n_memory : res.n_time))
            continue;
        fprintf(rep, "left-out median |error| of %s: %s before the fit "
                "(base %s), %s after\n",
                kind ? "peak memory" : "step time",
                pct(a, sizeof a, res.cv_median[kind][0], false),
                o.base ? o.base : "none",
                pct(b, sizeof b, res.cv_median[kind][1], false));
    }
    fflush(rep);
    if (calib_check(&r, &res, &err)) {
        rc = usage_error("%s: %s", o.measured, err.msg);
        goto done;
    }
    for (int i = 0; i < res.k; i++)
        /* a term pinned to its range fits nothing: the runs want what it
         * cannot give (the GPU runs' short, host-bound steps drive
         * eff_scale to its top, docs/MODEL.md section 4.7); at 0 a term
         * is switched off (eff_tok0, alloc_frac), a fit like any other */
        if (res.t[i].start != res.x[i] && res.x[i] != 0.0 &&
            (res.x[i] <= res.t[i].lo || res.x[i] >= res.t[i].hi))
            fprintf(stderr,
                    "tplan: warning: calibrate: %s ends at its bound %.4g: "
                    "these runs differ from the model in a way this term "
                    "does not describe; read the left-out errors\n",
                    tplan_field_at(res.t[i].field)->input, res.x[i]);
    if ((rc = set_band(&f, "time_band_lo", "time_band_hi", res.time_band)) ||
        (rc = set_band(&f, "mem_band_lo", "mem_band_hi", res.mem_band)) ||
        (rc = set_range(&f, "calib_params_min", "calib_params_max",
                        res.params)) ||
        (rc = set_range(&f, "calib_gpus_min", "calib_gpus_max", res.gpus)) ||
        (rc = set_range(&f, "calib_seq_min", "calib_seq_max", res.seq)) ||
        (rc = set_left_out(&f, &res)))
        goto done;
    if (res.n_time)
        snprintf(ts, sizeof ts, "; step time %.1f%% (%d runs)",
                 tplan_calib_median(res.time, res.n_time, 2) * 100, res.n_time);
    if (res.n_memory)
        snprintf(ms, sizeof ms, "; peak memory %.1f%% (%d runs)",
                 tplan_calib_median(res.memory, res.n_memory, 2) * 100,
                 res.n_memory);
    snprintf(f.source, sizeof f.source,
             "tplan calibrate on %d runs of %s (base %s), left-out median "
             "error%s%s",
             r.n, o.measured, o.base ? o.base : "none", ts, ms);
    if ((rc = write_profile(&o, &kp, &f)))
        goto done;
    fprintf(rep, "\nwrote framework %s to %s: use it with --framework-file %s "
           "--framework %s\n",
           o.name, o.out, o.out, o.name);
done:
    tplan_calib_result_free(&res);
    free(kp.fw);
    free(r.runs);
    free(r.labels);
    return rc;
}
