/* libFuzzer target: sweep `where` expressions (engine/expr.c). The input
 * is the expression; it is compiled and, when it compiles, evaluated on
 * one plan. Errors are expected; crashes, overflows and sanitizer reports
 * are not. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "hardware.h"
#include "model.h"
#include "plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static tplan_plan plan;
    static int ready;
    static tplan_expr e;
    char src[1100];
    tplan_err err;

    if (!ready) {
        tplan_config c;

        memset(&c, 0, sizeof c);
        if (tplan_model_preset("llama3-8b", &c.model, &err) ||
            tplan_gpu_lookup("h100-sxm", &c.gpu, &err))
            abort();
        tplan_config_init(&c);
        c.seq = 4096;
        c.gpus = 8;
        if (tplan_plan_eval(&c, &plan, &err))
            abort();
        ready = 1;
    }
    if (size >= sizeof src)
        return 0;
    memcpy(src, data, size);
    src[size] = '\0';
    if (tplan_expr_compile(src, &e, &err) == TPLAN_OK)
        (void)tplan_expr_eval(&e, &plan);
    return 0;
}
