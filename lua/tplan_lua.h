/* The tplan Lua module as the CLI sees it: open it into a state, set the
 * run's options, and finish the run's output files. */
#ifndef TPLAN_LUA_H
#define TPLAN_LUA_H

#include <signal.h>
#include <stdint.h>

#include <lua.h>

#include "err.h"
#include "save.h"
#include "store.h"
#include "sweep.h"

typedef struct tplan_lua_options {
    int threads;                 /* default for sweeps without threads = N */
    int64_t shard, shards;       /* evaluate index % shards == shard */
    volatile sig_atomic_t *stop; /* set (by a signal) to end sweeps early */
    /* set to 1 while a sweep walks, 0 otherwise (may be NULL): a signal
     * then ends the sweep, elsewhere the Lua code */
    volatile sig_atomic_t *sweeping;
    /* progress: done < 0 means the sweep finished (clear the bar) */
    void (*progress)(void *ud, int64_t done, int64_t total);
    void *progress_ud;
    /* The run's policies (the CLI's options: --yes, --csv, --db,
     * --safe), called with ud; each may be NULL. A non-zero return
     * raises err in the script, "FIELD: message" with err's field. */
    /* before a sweep walks `configs` configurations (this shard's), with
     * Lua hooks or not, on `threads` threads, keeping every plan that
     * passes (keep = "fits"/"all") or not: go ahead or refuse */
    int (*before_sweep)(void *ud, const char *name, double configs,
                        bool hooks, int threads, bool keeps_all,
                        tplan_err *err);
    /* after each sweep: keep its plans where the run says */
    int (*after_sweep)(void *ud, const tplan_sweep_meta *m,
                       const tplan_sweep_result *r, tplan_err *err);
    /* keep = "fits"/"all" sweeps that keep more plans than their
     * `ranked` (default TPLAN_STREAM_RANKED, db/stream.h): called after
     * a first walk that kept none, with its best plans and front in
     * first: set run's sink and sink_ud (and its sink_prep, optional) for
     * the second walk's plans, or fail.
     * stream_end follows the second walk (failed: it did not finish
     * well; undo then). NULL: never stream (the plans stay in memory). */
    int (*stream_begin)(void *ud, const tplan_sweep_meta *m,
                        const tplan_sweep_result *first,
                        tplan_sweep_run *run, tplan_err *err);
    int (*stream_end)(void *ud, const tplan_sweep_result *r, bool failed,
                      tplan_err *err);
    /* may the script write path itself (res:csv, res:save)? */
    int (*may_write)(void *ud, const char *path, tplan_err *err);
    /* may it read path as an input (a catalog)? not the run's outputs */
    int (*may_read)(void *ud, const char *path, tplan_err *err);
    void *ud;
    /* watches every write, the script's own (res:csv, res:save) and the
     * run's: progress and cancel on an interrupt (path is set per file;
     * poll may be NULL) */
    tplan_save_watch watch;
    /* provenance for result databases (may be NULL) */
    const char *script, *script_sha256, *args;
} tplan_lua_options;

/* The module loader: require "tplan". */
int luaopen_tplan(lua_State *L);

/* Put the module in package.preload and set the options (copied; the
 * strings must outlive L). */
void tplan_lua_setup(lua_State *L, const tplan_lua_options *o);

/* Find name in the custom catalog at path (GPUs when gpus, else models;
 * the CSV format of tplan.gpus.load and tplan.models.load, as strict) or
 * among the built-ins, into out (a tplan_gpu or a tplan_model). */
int tplan_catalog_find(const char *path, bool gpus, const char *name,
                       void *out, tplan_err *err);

/* Sweeps run so far in L, and whether any was interrupted. */
int64_t tplan_lua_sweeps(lua_State *L, int *interrupted);

#endif
