/* The object `tplan calc --json` prints, for calc and the browser page:
 * both write it through tplan_calc_json, byte for byte the same. */
#ifndef TPLAN_TEXT_CALC_JSON_H
#define TPLAN_TEXT_CALC_JSON_H

#include <stdint.h>

#include "assume.h"
#include "batch.h"
#include "json.h"
#include "plan.h"
#include "scaling.h"

/* What the object holds beyond the plan: --compare-gpus' rows,
 * --compare-batches' rows, the assumptions left at their defaults, and
 * --qlora's expansion (NULL or "": none; qlora_given: the flags of it the
 * command line gave itself). Zeroed: none of them. */
typedef struct tplan_calc_extra {
    const tplan_scaling_row *rows;
    int n_rows;
    const tplan_batch_row *brows;
    int n_brows;
    const tplan_assumed *assumed;
    int n_assumed;
    const char *qlora;
    const char *qlora_given;
} tplan_calc_extra;

/* p as calc's JSON object into w (x NULL: no extras). */
void tplan_calc_json(json_w *w, const tplan_plan *p,
                     const tplan_calc_extra *x);

/* "single stage", "first pipeline stage", ...: the stage memory is
 * reported for, in words. */
const char *tplan_stage_words(tplan_stage s);

/* The points of training calc samples the learning-rate schedule at
 * (0 .. count-1): the step of point i (the second is the end of warmup). */
int tplan_lr_sample_count(void);
int64_t tplan_lr_sample_step(const tplan_lr_schedule *s, int i);

#endif
