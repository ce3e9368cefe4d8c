/* Merging result databases: shards of one sweep (tplan run --shard K/N)
 * become one sweep, re-ranked exactly as the unsharded run ranks it;
 * whole sweeps are copied. Knows SQLite and the engine's ranking. */
#ifndef TPLAN_MERGE_H
#define TPLAN_MERGE_H

#include <stdint.h>

#include "err.h"

typedef struct tplan_merge_report {
    int64_t sweeps; /* sweeps written to the output */
    int64_t plans;  /* plan rows written */
    int64_t shards; /* input sweep rows read */
    int64_t reruns; /* rows left out: superseded by a rerun in one file */
    int64_t duplicates; /* sweeps left out: out holds them already (the
                           same sweep_key, times and completion) */
} tplan_merge_report;

/* Merge the sweeps of n input databases into out (created when new;
 * existing sweeps there are kept). Shards of a sweep must all be present,
 * once each, completed, and agree on the sweep (same sweep_key); anything
 * else is refused with nothing written. */
int tplan_merge(const char *out, const char *const *in, int n,
                tplan_merge_report *rep, tplan_err *err);

#endif
