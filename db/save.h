/* Writing a finished sweep: its row, kept plans and Pareto front into a
 * result database, or its kept plans into a CSV file. Kept plans are
 * stored as indexes; they are evaluated again in full (warnings and
 * advice) on the sweep's threads, a chunk at a time, and written best
 * first. Knows the engine and the writers; nothing of Lua. */
#ifndef TPLAN_SAVE_H
#define TPLAN_SAVE_H

#include <stdint.h>

#include "csv_out.h"
#include "err.h"
#include "store.h"
#include "sweep.h"

/* The text a sweep row carries about its ranking, and the sweep key. */
typedef struct tplan_sweep_desc {
    char rank_by[128]; /* "cost_usd,time_h" */
    char keep[24];     /* "1000", "fits" or "all" */
    char axes[640];    /* "tp,pp,ep": the axes of two or more values */
    char key[65];      /* SHA-256, hex */
} tplan_sweep_desc;

/* Describe r into d and point m's rank_by, keep, axes, sweep_key and
 * space at it (and set m's mix_unfit). The caller sets m's name, script,
 * script_sha256, args, ordinal, shard and shards first: the sweep key is
 * a SHA-256 over what defines the space and its ranking within a run
 * (script bytes, arguments, the sweep's name and number in the script,
 * the space size, objectives, fits_first and keep), so shards of one
 * sweep share it and tplan merge refuses rows whose keys differ. */
void tplan_sweep_describe(const tplan_sweep_result *r, tplan_sweep_meta *m,
                          tplan_sweep_desc *d);

/* Who watches a write: poll is called with done = 0 before the first
 * row, after every chunk of rows (done of total), and with done = -1
 * when the write ends either way. A non-zero return from a call with
 * done >= 0 cancels the write (an interrupt): the save returns
 * TPLAN_EINTR and what it wrote is undone. path names the file. */
typedef struct tplan_save_watch {
    int (*poll)(void *ud, const char *path, int64_t done, int64_t total);
    void *ud;
    const char *path;
} tplan_save_watch;

/* The sweep row, its kept plans (rank 1 first) and the front plans that
 * were not kept (rank NULL), in one transaction of db; *rows: plan rows
 * written. On an error or a cancel the transaction is rolled back and
 * the file holds nothing of the sweep. watch may be NULL. */
int tplan_save_db(tplan_store *db, const tplan_sweep_meta *m,
                  const tplan_sweep_result *r, const tplan_save_watch *watch,
                  int64_t *rows, tplan_err *err);

/* The kept plans, best first, as rows of w under the sweep name. After
 * an error or a cancel the caller aborts w. watch may be NULL. */
int tplan_save_csv(tplan_csv *w, const char *name,
                   const tplan_sweep_result *r, const tplan_save_watch *watch,
                   tplan_err *err);

#endif
