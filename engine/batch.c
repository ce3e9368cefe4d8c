/* Divisor search for exact batch splits. */
#include "batch.h"

#include <math.h>

int tplan_batch_exact(int64_t target, int64_t dp, int64_t b_max, int64_t *out,
                      int cap)
{
    int64_t n, small[TPLAN_MAX_DIVISORS];
    int ns = 0, k = 0;

    if (dp < 1 || target < dp || target % dp || b_max < 1)
        return 0;
    n = target / dp;
    /* Divisors come in pairs (d, n/d) with d <= sqrt(n): walking d up
     * gives the large partners in decreasing order, the small ones in
     * increasing order. n <= 1e18 keeps the walk under 1e9 steps; callers
     * cap targets far lower. */
    for (int64_t d = 1; d <= n / d && ns < TPLAN_MAX_DIVISORS; d++) {
        if (n % d)
            continue;
        small[ns++] = d;
    }
    for (int i = 0; i < ns; i++) {
        int64_t big = n / small[i];

        if (big <= b_max && big != small[i]) {
            if (k < cap)
                out[k] = big;
            k++;
        }
    }
    for (int i = ns - 1; i >= 0; i--) {
        if (small[i] <= b_max) {
            if (k < cap)
                out[k] = small[i];
            k++;
        }
    }
    return k;
}

/* round(x): half away from zero. For 0 <= x < 2^63 the fractional part
 * x - trunc(x) is exact (a double's digits below its point), so the
 * whole part plus one at a half or more is round's result bit for bit;
 * above 2^52 every double is whole and the part is 0. Issue 38: the
 * libm call was a quarter of a batch-staged solve's accumulation. */
static double round_half_up(double x)
{
    if (x >= 0.0 && x < 9.0e18) {
        double t = (double)(int64_t)x;

        return x - t >= 0.5 ? t + 1.0 : t;
    }
    return round(x);
}

int64_t tplan_batch_accum(int64_t target, int64_t dp, int64_t b)
{
    double k = round_half_up((double)target / ((double)b * (double)dp));

    return k < 1 ? 1 : (int64_t)k;
}
