/* --csv, --db, --yes and --safe for `tplan run`. */
#include "run_outputs.h"
#include "script_limits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit_note.h"
#include "paths.h"
#include "save.h"

/* Say err again under the option's name ("--csv: ..."). */
static int as_option(tplan_err *err, const char *opt)
{
    char msg[sizeof err->msg];

    snprintf(msg, sizeof msg, "%s", err->msg);
    return tplan_err_set(err, err->code, opt, "%s", msg);
}

/* A script read from a pipe ("-", /dev/fd/N) is no file to protect. */
static bool is_file(const char *path)
{
    return path && strcmp(path, "-") != 0;
}

/* Which of the run's outputs path is, by device and inode: its option
 * ("--csv" first, then "--db") with *given the path as the option named
 * it, or NULL. */
static const char *output_option(const run_outputs *o, const char *path,
                                 const char **given)
{
    if (o->csv_path && tplan_same_file(path, o->csv_path)) {
        *given = o->csv_path;
        return "--csv";
    }
    if (o->db_path && tplan_same_file(path, o->db_path)) {
        *given = o->db_path;
        return "--db";
    }
    return NULL;
}

int outputs_check(const run_outputs *o, tplan_err *err)
{
    const char *given, *opt;

    if (is_file(o->script) && (opt = output_option(o, o->script, &given)))
        return tplan_err_set(err, TPLAN_EUSAGE, opt,
                             "%.200s is the script itself: refusing to "
                             "write over it",
                             given);
    if (o->csv_path && o->db_path && tplan_same_file(o->csv_path, o->db_path))
        return tplan_err_set(err, TPLAN_EUSAGE, "--db",
                             "--csv and --db name one file (%.200s): give "
                             "each its own",
                             o->db_path);
    return TPLAN_OK;
}

int outputs_open(run_outputs *o, tplan_err *err)
{
    if (o->csv_path && !(o->csv = tplan_csv_open(o->csv_path, err)))
        return as_option(err, "--csv");
    if (o->db_path && !(o->db = tplan_store_open(o->db_path, err)))
        return as_option(err, "--db");
    return TPLAN_OK;
}

int outputs_finish(run_outputs *o, bool failed, tplan_err *err)
{
    tplan_csv *w = o->csv;

    tplan_store_close(o->db); /* every sweep committed as it ended */
    o->db = NULL;
    o->csv = NULL;
    if (!w || o->csv_failed)
        return TPLAN_OK;
    if (failed && o->sweeps_written == 0) {
        tplan_csv_abort(w); /* nothing new: the old file stays */
        return TPLAN_OK;
    }
    return tplan_csv_close(w, err) ? as_option(err, "--csv") : TPLAN_OK;
}

/* The size and the expected time, said before a long walk. Rates from
 * tests/bench/sweep_bench.lua on 2 cores: plan evaluations per second
 * per thread without hooks, one thread with a Lua hook. A sweep that
 * keeps every plan and writes them (--db, --csv): the time to write every
 * configuration as a row at the streaming rate, walks included
 * (docs/benchmarks.md: 161k rows/s into SQLite on 2 cores; CSV is
 * slower), said when it is 10 s or more: long enough to wonder. */
#define STREAM_ROWS_PER_S 1.6e5
#define WRITE_SAY_S       10.0

static int before_sweep(void *ud, const char *name, double configs,
                        bool hooks, int threads, bool keeps_all,
                        tplan_err *err)
{
    const run_outputs *o = ud;
    double rate = hooks ? 1.5e6 : 2.5e6 * threads;
    bool writes = keeps_all && (o->csv_path || o->db_path);
    double secs = writes ? configs / STREAM_ROWS_PER_S : configs / rate;

    if (configs > RUN_SWEEP_CONFIRM && !o->yes)
        return tplan_err_set(err, TPLAN_ELIMIT, "yes",
                             "sweep '%s' has %.3g configurations (about "
                             "%.2g hours here); run with --yes to go ahead, "
                             "or narrow the axes",
                             name, configs, secs / 3600.0);
    if (configs >= 1e8 || (writes && secs >= WRITE_SAY_S))
        fprintf(stderr,
                "tplan: sweep '%s': %.3g configurations, about %.0f s%s\n",
                name, configs, secs,
                writes ? " if every one is kept and written" : "");
    return TPLAN_OK;
}

/* A write's progress on the run's bar, and its cancel: a signal since
 * the write began (one that stopped a sweep before it does not count).
 * Said on stderr at once, even off a terminal: undoing a large write
 * takes a moment. */
static int watch_write(void *ud, const char *path, int64_t done,
                       int64_t total)
{
    run_outputs *o = ud;

    if (done < 0) {
        if (o->bar)
            progress_update(o->bar, -1, 0);
        return 0;
    }
    if (done == 0)
        o->signals_at = o->signals ? *o->signals : 0;
    if (o->signals && *o->signals != o->signals_at) {
        if (o->bar)
            progress_update(o->bar, -1, 0);
        fprintf(stderr,
                "tplan: interrupted while writing %s: undoing the write; "
                "the file stays as it was\n",
                path);
        return 1;
    }
    if (o->bar)
        progress_write(o->bar, path, done, total);
    return 0;
}

/* A sweep none of whose kept plans fits says so, and how close the
 * closest came. Plans that fit
 * rank before those that do not, so a kept plan that does not fit after
 * some that do needs no word; a script that mixed them (fits_first =
 * false) asked for it by name. Said only: a sweep that found none is
 * still a result. */
static void no_plan_fits(const tplan_sweep_meta *m,
                         const tplan_sweep_result *r)
{
    int64_t kept = r->streamed ? r->stats.kept : r->n_kept;
    char axes[640], gap[160];
    tplan_plan *p;
    tplan_err e;

    if (r->spec->mix_unfit || kept == 0 || r->stats.kept_unfit < kept ||
        r->n_kept == 0 || !(p = malloc(sizeof *p)))
        return;
    if (tplan_sweep_eval_at(r->spec, &r->kept[0].index, 1, p, 1,
                            TPLAN_EVAL_NO_REMEDY, &e) ==
        TPLAN_OK) {
        tplan_sweep_axes_text(r->spec, r->kept[0].index, axes, sizeof axes);
        fit_gap_text(gap, sizeof gap, p->mem.total_bytes, p->mem.usable_bytes,
                     p->mem.host_bytes, p->mem.host_capacity_bytes);
        fprintf(stderr,
                "tplan: warning: sweep '%s': no plan fits; the closest: "
                "%s%s%s\n",
                m->name, axes, axes[0] ? " " : "", gap);
    }
    free(p);
}

static int after_sweep(void *ud, const tplan_sweep_meta *m,
                       const tplan_sweep_result *r, tplan_err *err)
{
    run_outputs *o = ud;
    tplan_save_watch watch = {watch_write, o, o->csv_path};
    int64_t rows;

    no_plan_fits(m, r);
    if (r->streamed) { /* written as it walked */
        o->sweeps_written += o->csv != NULL;
        return TPLAN_OK;
    }
    if (o->csv_failed)
        return tplan_err_set(err, TPLAN_EIO, "--csv",
                             "the file failed earlier in this run");
    if (o->csv && tplan_save_csv(o->csv, m->name, r, &watch, err)) {
        /* said once, here: the file is dropped, not half-kept */
        tplan_csv_abort(o->csv);
        o->csv = NULL;
        o->csv_failed = true;
        return as_option(err, "--csv");
    }
    if (o->csv)
        o->sweeps_written++;
    watch.path = o->db_path;
    if (o->db && tplan_save_db(o->db, m, r, &watch, &rows, err))
        return as_option(err, "--db");
    return TPLAN_OK;
}

/* A keep = "fits"/"all" sweep too large to keep in memory: its plans go
 * to --db and --csv as it walks (db/stream.h). Installed only when the
 * run names either (outputs_hook); without them it stays in memory. */
static int stream_begin(void *ud, const tplan_sweep_meta *m,
                        const tplan_sweep_result *first,
                        tplan_sweep_run *run, tplan_err *err)
{
    run_outputs *o = ud;

    run->sink = NULL;
    if (o->csv_failed)
        return tplan_err_set(err, TPLAN_EIO, "--csv",
                             "the file failed earlier in this run");
    fprintf(stderr,
            "tplan: sweep '%s' keeps %lld plans: streaming them into %s%s%s "
            "as it walks; the best %lld carry a rank\n",
            m->name, (long long)first->stats.kept,
            o->db ? o->db_path : "", o->db && o->csv ? " and " : "",
            o->csv ? o->csv_path : "", (long long)first->n_kept);
    if (!(o->stream = tplan_stream_begin(o->db, o->csv, m, first, err)))
        return as_option(err, o->db ? "--db" : "--csv");
    run->sink = tplan_stream_sink;
    run->sink_prep = tplan_stream_prep;
    run->sink_prep_free = tplan_stream_prep_free;
    run->sink_ud = o->stream;
    return TPLAN_OK;
}

static int stream_end(void *ud, const tplan_sweep_result *r, bool failed,
                      tplan_err *err)
{
    run_outputs *o = ud;
    int64_t rows, csv_rows;
    int rc = tplan_stream_end(o->stream, &r->stats, failed, &rows,
                              &csv_rows, err);

    o->stream = NULL;
    if (rc && o->csv && csv_rows > 0) {
        /* part of this sweep is in it: dropped, not half-kept (a sweep
         * that failed before its first row leaves the file as it was) */
        tplan_csv_abort(o->csv);
        o->csv = NULL;
        o->csv_failed = true;
        if (rc == TPLAN_ESTOP || strcmp(err->field, "csv") != 0)
            fprintf(stderr,
                    "tplan: --csv %s is dropped: it held part of a sweep "
                    "that did not finish\n",
                    o->csv_path);
    }
    /* said under the option, as after_sweep says a save's failure; the
     * walk's own failure (TPLAN_ESTOP) is the sweep's to say */
    if (rc && rc != TPLAN_ESTOP)
        return as_option(err, strcmp(err->field, "csv") == 0 || !o->db
                                  ? "--csv"
                                  : "--db");
    return rc;
}

/* Under --safe a script writes only the files named on the command line
 * (and res:csv/res:save to those would clobber the run's own output). */
static int may_write(void *ud, const char *path, tplan_err *err)
{
    const run_outputs *o = ud;
    const char *given;
    bool own = output_option(o, path, &given) != NULL;

    if (is_file(o->script) && tplan_same_file(path, o->script))
        return tplan_err_set(err, TPLAN_EUSAGE, "script",
                             "%.200s is the running script: refusing to "
                             "write over it",
                             path);
    if (!o->safe)
        return TPLAN_OK;
    return tplan_err_set(err, TPLAN_EUSAGE, "safe",
                         "--safe: a script may not write files (%.128s); "
                         "name outputs with tplan run --csv/--db",
                         own ? "that is the run's own output" : path);
}

/* A catalog the script loads may not be one of the run's outputs: the
 * run would write over it at the end. */
static int may_read(void *ud, const char *path, tplan_err *err)
{
    const run_outputs *o = ud;
    const char *given, *opt = output_option(o, path, &given);

    if (opt)
        return tplan_err_set(err, TPLAN_EUSAGE, "catalog",
                             "%.200s is this run's %s output: a file the "
                             "script reads must be a file of its own",
                             path, opt);
    if (o->safe && limits_proc_path(path))
        return tplan_err_set(err, TPLAN_EUSAGE, "safe",
                             "--safe: a script may not read %.200s (/proc "
                             "and /sys hold other processes' secrets)",
                             path);
    return TPLAN_OK;
}

void outputs_hook(run_outputs *o, tplan_lua_options *lo)
{
    lo->before_sweep = before_sweep;
    lo->after_sweep = after_sweep;
    if (o->csv_path || o->db_path) { /* something to stream into */
        lo->stream_begin = stream_begin;
        lo->stream_end = stream_end;
    }
    lo->may_write = may_write;
    lo->may_read = may_read;
    lo->ud = o;
    lo->watch.poll = watch_write;
    lo->watch.ud = o;
}
