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
    for (int i = 0; i < s->n_axes; i++) {
        if (!tplan_field_writes_alone(s->axes[i].id))
            m->usable = -1;
        m->recheck[i] = tplan_field_recheck(s->axes[i].id);
    }
}

int tplan_layout_memo_check(tplan_layout_memo *m, const tplan_sweep_spec *s,
                            const int *digit, const tplan_config *c,
                            const char *const **deps)
{
    int n = s->n_axes, i, rc;

    if (!m->usable)
        setup(m, s);
    if (m->ok) {
        /* c differs from the configuration that passed in the axes whose
         * digit moved, alone: every rule reading none of them reads what
         * it read then and passes again, so c passes where the rules that
         * read those do (a failure is checked in full: its message and
         * what its rule reads are check_layout's) */
        for (i = 0; i < n; i++)
            if (digit[i] != m->ok_digit[i] &&
                !tplan_config_recheck(c, m->recheck[i]))
                break;
        if (i == n) {
            memcpy(m->ok_digit, digit, sizeof *digit * (size_t)n);
            *deps = NULL;
            return TPLAN_OK;
        }
    }
    rc = tplan_config_layout_deps(c, deps);
    if (rc == TPLAN_OK && m->usable > 0) {
        memcpy(m->ok_digit, digit, sizeof *digit * (size_t)n);
        m->ok = true;
    }
    return rc;
}
