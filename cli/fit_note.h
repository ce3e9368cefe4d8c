/* The words a ranking uses where no plan fits: how far the closest plan
 * is from fitting, from the figures a plan carries and a result database
 * stores, so `tplan run`, `tplan query`, `tplan export` and the report say
 * it the same way. Knows nothing of Lua or SQLite. */
#ifndef TPLAN_FIT_NOTE_H
#define TPLAN_FIT_NOTE_H

#include <stddef.h>
#include <stdint.h>

/* "needs 105.5 GiB per GPU where 71.3 GiB is usable" (or the host's
 * memory, where the GPU's is not what is short) into buf. host_capacity
 * 0: unknown. */
void fit_gap_text(char *buf, size_t len, int64_t total_bytes,
                  int64_t usable_bytes, int64_t host_bytes,
                  int64_t host_capacity_bytes);

#endif
