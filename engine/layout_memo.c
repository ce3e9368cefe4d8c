/* The layout rules' last pass, for a sweep's worker (layout_memo.h). */
#include "layout_memo.h"

#include <string.h>

#include "fields.h"

/* Once a run: can the digits stand for the config? Where every axis's
 * apply writes members no other writes (tplan_field_writes_alone), the
 * config is the base with each axis's value at its digit, however the
 * walk got there (odometer steps, skips, a chunk's decode): two
 * configurations with the same digit for an axis agree on what it
 * writes. */
static void setup(tplan_layout_memo *m, const tplan_sweep_spec *s)
{
    m->usable = 1;
    m->key_free = 0;
    for (int i = 0; i < s->n_axes; i++) {
        if (!tplan_field_writes_alone(s->axes[i].id))
            m->usable = -1;
        m->recheck[i] = tplan_field_recheck(s->axes[i].id);
        if (tplan_field_states_free(s->axes[i].id))
            m->key_free |= 1u << i;
    }
}

/* A pass at digit, whose axes in moved (bits) differ from ok_digit (the
 * last pass's): those digits taken, and the states memo's word. Its key
 * is the config at ok_digit (but for the fields it leaves out) where its
 * ticket is the last one issued (the full evaluation after that pass
 * left it so, and nothing set another key since: stage_mem.h); so it is
 * this config's where only such axes moved, and a miss otherwise (an
 * axis's two digits may hold one value: a miss only works the stages
 * out again). Then a ticket for this pass. */
static void passed(tplan_layout_memo *m, const int *digit, unsigned moved,
                   tplan_act_cache *cache)
{
    tplan_states_memo *sm;

    if (cache) {
        sm = &cache->states;
        sm->same = m->ticket == 0 || sm->key_ticket != m->ticket
                       ? TPLAN_STATES_UNKNOWN
                   : moved & ~m->key_free ? TPLAN_STATES_MISS
                                          : TPLAN_STATES_HIT;
        sm->ticket = ++m->ticket;
    }
    for (; moved; moved &= moved - 1) {
        int i = __builtin_ctz(moved);

        m->ok_digit[i] = digit[i];
    }
}

/* The axes whose digit differs from ok_digit (bits): two digits at a
 * time, most pairs the same at a full evaluation (issue 38: one compare
 * an axis cost ~8 instructions) */
static unsigned moved_axes(const tplan_layout_memo *m, const int *digit, int n)
{
    unsigned moved = 0;
    int i;

    for (i = 0; i + 2 <= n; i += 2) {
        uint64_t a, b;

        memcpy(&a, digit + i, sizeof a);
        memcpy(&b, m->ok_digit + i, sizeof b);
        if (a != b)
            moved |= ((unsigned)(digit[i] != m->ok_digit[i]) |
                      (unsigned)(digit[i + 1] != m->ok_digit[i + 1]) << 1)
                     << i;
    }
    if (i < n)
        moved |= (unsigned)(digit[i] != m->ok_digit[i]) << i;
    return moved;
}

/* noinline: called at full evaluations only, and kept out of the walk's
 * loop (sweep.c work), whose staged steps it would otherwise slow */
__attribute__((noinline)) int
tplan_layout_memo_check(tplan_layout_memo *m, const tplan_sweep_spec *s,
                        const int *digit, const tplan_config *c,
                        tplan_act_cache *cache, const char *const **deps)
{
    int n = s->n_axes, rc;
    unsigned moved = 0, left;

    if (!m->usable)
        setup(m, s);
    if (m->ok) {
        /* c differs from the configuration that passed in the axes whose
         * digit moved, alone: every rule reading none of them reads what
         * it read then and passes again, so c passes where the rules that
         * read those do (a failure is checked in full: its message and
         * what its rule reads are check_layout's) */
        moved = moved_axes(m, digit, n);
        for (left = moved; left; left &= left - 1)
            if (!tplan_config_recheck(c, m->recheck[__builtin_ctz(left)]))
                break;
        if (!left) {
            *deps = NULL;
            passed(m, digit, moved, cache);
            return TPLAN_OK;
        }
    }
    rc = tplan_config_layout_deps(c, deps);
    if (rc == TPLAN_OK && m->usable > 0) {
        /* every digit taken: none known before the first pass */
        passed(m, digit, m->ok ? moved : (1u << n) - 1, cache);
        m->ok = true;
    }
    return rc;
}
