/* Streaming a sweep's kept plans (keep = "fits"/"all") into a result
 * database and a CSV file while the sweep walks, with bounded memory: no
 * buffer of every plan and no sort of them. Rows go out in the order the
 * sweep's workers hand them over. A first walk that writes nothing finds
 * the best plans (tplan_sweep_run.top_also) and the Pareto front; those
 * plans carry their rank (and pareto flag) when the second walk writes
 * them, every other row a NULL rank (an empty cell in CSV). Knows the
 * engine and the writers; nothing of Lua. */
#ifndef TPLAN_STREAM_H
#define TPLAN_STREAM_H

#include <stdbool.h>
#include <stdint.h>

#include "csv_out.h"
#include "err.h"
#include "store.h"
#include "sweep.h"

/* How many of a streamed sweep's plans get a rank by default (a sweep's
 * `ranked` field sets it): the rest are stored in walk order (ORDER BY
 * an objective's column ranks them in SQL). 1M ranked entries take
 * 56 MB per thread; a spreadsheet holds about as many rows. */
#define TPLAN_STREAM_RANKED 1000000

typedef struct tplan_stream tplan_stream;

/* Start writing sweep m (described by tplan_sweep_describe) into db
 * and/or csv (either may be NULL): first is the first walk's result,
 * its ranked best plans in kept (best first) and its front. Both are
 * copied. NULL on failure (err set; nothing written). */
tplan_stream *tplan_stream_begin(tplan_store *db, tplan_csv *csv,
                                 const tplan_sweep_meta *m,
                                 const tplan_sweep_result *first,
                                 tplan_err *err);

/* The second walk's sink (tplan_sweep_run.sink): one kept plan, its
 * warnings evaluated. Non-zero on a write failure (see
 * tplan_stream_end for the message). */
int tplan_stream_sink(void *ud, int64_t index, const tplan_plan *p,
                      double score, void *prep);
/* Its sink_prep and sink_prep_free: the plan's CSV row formatted on the
 * sweep's thread, outside the sink's lock (the sink then writes it). */
int tplan_stream_prep(void *ud, int64_t index, const tplan_plan *p,
                      double score, void **slot);
void tplan_stream_prep_free(void *slot);

/* Finish: the front plans that were not kept (keep = "fits": they do
 * not fit) into the database, as tplan_save_db stores them, and the
 * sweep row with the second walk's counts. *rows: plan rows written (0
 * on failure); *csv_rows: rows handed to the CSV file, whatever
 * happened. On failure (or failed: the walk itself failed; TPLAN_ESTOP
 * then, err untouched) the database write is undone
 * (tplan_store_abort) and err says why. Frees st. */
int tplan_stream_end(tplan_stream *st, const tplan_sweep_stats *stats,
                     bool failed, int64_t *rows, int64_t *csv_rows,
                     tplan_err *err);

#endif
