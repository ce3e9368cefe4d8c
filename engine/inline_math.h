/* fmin, fmax, floor and ceil for the sweep's hot paths, inlined. On the
 * x86-64 baseline (no SSE4.1 rounding) GCC calls libm's fmin and fmax
 * through the PLT (their NaN rules), and floor and ceil too unless it may
 * ignore floating-point exceptions (engine/CMakeLists.txt lets it; clang
 * calls them): with llround, 13% of the GPT-3 sweep's time in a profile
 * (docs/benchmarks.md). Each returns exactly what libm's returns:
 * - tp_fmin/tp_fmax: for numbers, glibc's x86-64 fmin/fmax (minsd/maxsd:
 *   the second argument when the two are equal, -0 against +0 too); a NaN
 *   argument gives the other one, as C's fmin/fmax do.
 * - tp_floor/tp_ceil: positive x below 2^52 through an int64 truncation
 *   (exact there: every such double's integer part fits); zero, negative,
 *   large and NaN x go to libm, so signed zeros stay as floor/ceil give
 *   them. */
#ifndef TPLAN_INLINE_MATH_H
#define TPLAN_INLINE_MATH_H

#include <math.h>
#include <stdint.h>

static inline double tp_fmin(double a, double b)
{
    return a < b || b != b ? a : b;
}

static inline double tp_fmax(double a, double b)
{
    return a > b || b != b ? a : b;
}

static inline double tp_floor(double x)
{
    return x > 0.0 && x < 0x1p52 ? (double)(int64_t)x : floor(x);
}

static inline double tp_ceil(double x)
{
    double t;

    if (!(x > 0.0 && x < 0x1p52))
        return ceil(x);
    t = (double)(int64_t)x;
    return t < x ? t + 1.0 : t;
}

#endif
