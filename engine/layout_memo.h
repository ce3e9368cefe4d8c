/* A sweep worker's memo of the layout rules' last pass (issue 38): the
 * rules are most of a full evaluation's checks, and a sweep's
 * configurations differ from the last one that passed them in a few
 * axes, most often one (recomputation). The same digits tell the
 * memory's states memo (stage_mem.h) when a configuration is its key's,
 * but for the fields the key leaves out, without comparing the config. */
#ifndef TPLAN_LAYOUT_MEMO_H
#define TPLAN_LAYOUT_MEMO_H

#include <stdbool.h>
#include <stdint.h>

#include "activations.h"
#include "config.h"
#include "sweep.h"

/* Zeroed: nothing known yet. Keyed by the digits of a walk over one
 * spec (a worker's; tplan_layout_memo_check's s and digit): a config
 * that passed the rules at ok_digit, where the states memo's last
 * ticket was issued too. Invalidated by nothing within a run
 * (the base and the axes' values are the run's); a new run starts from
 * zero. */
typedef struct tplan_layout_memo {
    int usable; /* 0: not asked yet; 1: every axis writes alone; -1: not */
    bool ok;    /* ok_digit holds a configuration that passed */
    tplan_recheck recheck[TPLAN_MAX_AXES]; /* each axis's rules alone */
    unsigned key_free; /* bit i: axis i's field the states key leaves out */
    /* the digits of the last pass: of the configuration that passed, and
     * of the pass that issued the last ticket (with a cache) */
    int ok_digit[TPLAN_MAX_AXES];
    uint64_t ticket; /* the last ticket issued (0: none yet) */
} tplan_layout_memo;

/* tplan_config_layout_deps(c, deps) for the configuration at digit of a
 * walk over s (c: the base with each axis at its digit), the same answer
 * always: where c differs from the last configuration that passed only
 * in axes whose rules tplan_config_recheck runs alone, and those pass,
 * it passes (every other rule reads what it read then); otherwise the
 * whole layout is checked. On a pass, with a cache (the one the full
 * evaluation of c that follows goes through; NULL: none), gives the
 * states memo its ticket and word (tplan_states_memo.ticket, same). */
int tplan_layout_memo_check(tplan_layout_memo *m, const tplan_sweep_spec *s,
                            const int *digit, const tplan_config *c,
                            tplan_act_cache *cache, const char *const **deps);

#endif
