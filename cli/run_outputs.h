/* What `tplan run`'s options do with a script's sweeps: --csv and --db
 * receive every sweep's kept plans (streamed as the sweep walks when a
 * keep = "fits"/"all" sweep keeps more than its `ranked`), --yes lets huge sweeps start, --safe
 * keeps scripts from writing files of their own. The Lua layer calls
 * these through tplan_lua_options (before_sweep, after_sweep, may_write
 * with ud = the run_outputs). */
#ifndef TPLAN_CLI_RUN_OUTPUTS_H
#define TPLAN_CLI_RUN_OUTPUTS_H

#include <signal.h>
#include <stdbool.h>

#include "csv_out.h"
#include "progress.h"
#include "store.h"
#include "stream.h"
#include "tplan_lua.h"

/* Sweeps above this many configurations (in this shard) need --yes. */
#define RUN_SWEEP_CONFIRM 1e9

typedef struct run_outputs {
    const char *script;             /* borrowed: an input never written */
    const char *csv_path, *db_path; /* borrowed from argv; NULL: none */
    bool safe, yes;
    tplan_csv *csv;   /* open from the start; renamed into place at the end */
    bool csv_failed;  /* a write failed (and was said): dropped */
    tplan_store *db;
    tplan_stream *stream; /* the sweep streaming into them, if any */
    int sweeps_written; /* into --csv: none, and a failed run keeps the
                           file that was there */
    /* signals counted by the run's handler (a repeat within a second
     * not): one arriving while a file is written cancels that write */
    volatile sig_atomic_t *signals;
    sig_atomic_t signals_at; /* the count when the write began */
    progress *bar;           /* the run's bar (drawn on terminals only) */
} run_outputs;

/* Refuse outputs that are the script or each other (by device and inode,
 * not by name): a usage error naming them, before anything is opened. */
int outputs_check(const run_outputs *o, tplan_err *err);

/* Open the outputs before the script runs, so that an unwritable path
 * fails first; err's field names the option. */
int outputs_open(run_outputs *o, tplan_err *err);

/* The run ended (even in an error: completed sweeps are kept): close the
 * database and rename the CSV file into place; failed (an error or a
 * signal) with no sweep written, leave the file that was there as it was. */
int outputs_finish(run_outputs *o, bool failed, tplan_err *err);

/* Point the options' callbacks (and the watch over every write) at o. */
void outputs_hook(run_outputs *o, tplan_lua_options *lo);

#endif
