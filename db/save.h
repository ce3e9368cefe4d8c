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
    char key[65];      /* SHA-256, hex */
} tplan_sweep_desc;

/* Describe r into d and point m's rank_by, keep, sweep_key and space at
 * it. The caller sets m's name, script, script_sha256, args, ordinal,
 * shard and shards first: the sweep key is a SHA-256 over what defines
 * the space and its ranking within a run (script bytes, arguments, the
 * sweep's name and number in the script, the space size, objectives and
 * keep), so shards of one sweep share it and tplan merge refuses rows
 * whose keys differ. */
void tplan_sweep_describe(const tplan_sweep_result *r, tplan_sweep_meta *m,
                          tplan_sweep_desc *d);

/* The sweep row, its kept plans (rank 1 first) and the front plans that
 * were not kept (rank NULL), in one sweep of db; *rows: plan rows
 * written. On an error the sweep is aborted (its row says incomplete). */
int tplan_save_db(tplan_store *db, const tplan_sweep_meta *m,
                  const tplan_sweep_result *r, int64_t *rows, tplan_err *err);

/* The kept plans, best first, as rows of w under the sweep name. */
int tplan_save_csv(tplan_csv *w, const char *name,
                   const tplan_sweep_result *r, tplan_err *err);

#endif
