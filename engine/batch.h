/* Batch algebra: global batch = micro-batch x data-parallel GPUs x
 * accumulation (docs/MODEL.md section 6.1), and the micro-batch choices
 * that meet a target global batch exactly. Pure arithmetic. */
#ifndef TPLAN_BATCH_H
#define TPLAN_BATCH_H

#include <stdbool.h>
#include <stdint.h>

#define TPLAN_MAX_DIVISORS 4096

/* The micro-batches b <= b_max for which target = b * dp * accum holds
 * exactly for a whole accum, largest first. Returns how many (0 when dp
 * does not divide target or none is <= b_max); at most cap are written. */
int tplan_batch_exact(int64_t target, int64_t dp, int64_t b_max, int64_t *out,
                      int cap);

/* The closest achievable global batch with micro-batch b: accum =
 * max(1, round(target / (b * dp))). */
int64_t tplan_batch_accum(int64_t target, int64_t dp, int64_t b);

#endif
