/* Doubles as the shortest decimal that reads back to the same value:
 * exactly what "%.15g", "%.16g" or "%.17g" prints, the first of the three
 * that strtod reads back to the same double (the rule CSV and JSON output
 * follow), without glibc's multi-precision printf for the common range.
 *
 * For 1e-5 <= |v| < 1e38 the value v = m * 2^e (m < 2^53) is scaled by
 * 10^k to 17 significant digits as an exact fraction N / D in 128-bit
 * integers (N < 2^127, D a power of two or of ten). Rounding to n digits
 * is then exact (ties to even, as printf in the default rounding mode),
 * and a candidate reads back to v exactly when it lies inside v's
 * rounding interval, half a unit in the last place either side (a
 * quarter below a power of two), a point on the edge belonging to v when
 * m is even: round to nearest, ties to even, which is how strtod reads
 * (IEEE 754-2008, 5.12.2 and 4.3.1). Zero and whole numbers below 10^15
 * are their integer's digits. Anything else (subnormals,
 * tiny or huge values, infinities, NaN) takes the printf/strtod loop.
 * tests/test_store.c compares the two paths on a million values. */
#include "fmt_real.h"

#include "fields.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 i128;

/* The reference rule, for values outside the exact path's range; tried
 * in a buffer of its own (the longest, "-4.9406564584124654e-324", is
 * 24 bytes), then cut to len as snprintf cuts. */
static int fmt_printf(char *buf, size_t len, double v)
{
    char t[40];

    for (int digits = 15; digits <= 17; digits++) {
        snprintf(t, sizeof t, "%.*g", digits, v);
        if (strtod(t, NULL) == v)
            break;
    }
    return snprintf(buf, len, "%s", t);
}

static const uint64_t pow10_64[20] = {
    1ULL,
    10ULL,
    100ULL,
    1000ULL,
    10000ULL,
    100000ULL,
    1000000ULL,
    10000000ULL,
    100000000ULL,
    1000000000ULL,
    10000000000ULL,
    100000000000ULL,
    1000000000000ULL,
    10000000000000ULL,
    100000000000000ULL,
    1000000000000000ULL,
    10000000000000000ULL,
    100000000000000000ULL,
    1000000000000000000ULL,
    10000000000000000000ULL,
};

/* 10^k for 0 <= k <= 38 */
static u128 pow10_128(int k)
{
    return k < 20 ? pow10_64[k] : (u128)pow10_64[19] * pow10_64[k - 19];
}

/* v * 10^k = N / D exactly, for v = m * 2^e. */
typedef struct scaled {
    u128 q, r;  /* N = q * D + r */
    u128 d;     /* D */
    u128 width; /* 2 * (half an ulp of v) * D: the interval's full width */
} scaled;

/* false when N or D would not fit (the caller falls back) */
static bool scale(uint64_t m, int e, int k, scaled *s)
{
    u128 n;

    if (k >= 0) {
        if (k > 22)
            return false; /* m * 10^k < 2^53 * 10^22 < 2^127 */
        n = (u128)m * pow10_128(k);
        if (e >= 0) { /* an integer below 1e17 / 10^k: tiny shifts */
            if (e > 60)
                return false;
            s->d = 1;
            s->q = n << e;
            s->r = 0;
            s->width = pow10_128(k) << e;
        } else {
            if (-e > 120)
                return false;
            s->d = (u128)1 << -e;
            s->q = n >> -e;
            s->r = n & (s->d - 1);
            s->width = pow10_128(k);
        }
    } else {
        if (-k > 38 || e < 0 || e > 74)
            return false; /* m * 2^e < 2^127 */
        n = (u128)m << e;
        s->d = pow10_128(-k);
        s->q = n / s->d;
        s->r = n % s->d;
        s->width = (u128)1 << e;
    }
    return true;
}

/* Does c (in units of the 17th digit) read back to v? */
static bool reads_back(const scaled *s, uint64_t c, uint64_t m)
{
    i128 diff = ((i128)c - (i128)s->q) * (i128)s->d - (i128)s->r;
    u128 twice = (u128)(diff < 0 ? -diff : diff) * 2;
    bool even = (m & 1) == 0;

    if (diff < 0 && m == (1ULL << 52)) /* the gap below is half as wide */
        twice *= 2;
    return twice < s->width || (twice == s->width && even);
}

/* q: n significant digits, x: the decimal exponent of the first. Write
 * them as "%.{n}g" would: fixed for -4 <= x < n, else d.ddde+XX;
 * trailing zeros dropped, and the point when nothing follows it. */
static int emit(char *buf, size_t len, bool neg, uint64_t q, int n, int x)
{
    char dig[20], out[48];
    int nd = n, o = 0;

    for (int i = n - 1; i >= 0; i--) {
        dig[i] = (char)('0' + q % 10);
        q /= 10;
    }
    while (nd > 1 && dig[nd - 1] == '0')
        nd--;
    if (neg)
        out[o++] = '-';
    if (x < -4 || x >= n) {
        out[o++] = dig[0];
        if (nd > 1) {
            out[o++] = '.';
            memcpy(out + o, dig + 1, (size_t)nd - 1);
            o += nd - 1;
        }
        int ax = abs(x); /* at least two digits, as printf: e+05 */

        out[o++] = 'e';
        out[o++] = x < 0 ? '-' : '+';
        if (ax >= 100)
            out[o++] = (char)('0' + ax / 100);
        out[o++] = (char)('0' + ax / 10 % 10);
        out[o++] = (char)('0' + ax % 10);
    } else if (x >= 0) {
        for (int i = 0; i <= x; i++)
            out[o++] = i < nd ? dig[i] : '0';
        if (nd > x + 1) {
            out[o++] = '.';
            memcpy(out + o, dig + x + 1, (size_t)(nd - x - 1));
            o += nd - x - 1;
        }
    } else {
        out[o++] = '0';
        out[o++] = '.';
        for (int i = 0; i < -x - 1; i++)
            out[o++] = '0';
        memcpy(out + o, dig, (size_t)nd);
        o += nd;
    }
    if (len) { /* as snprintf: cut to fit, the full length returned */
        size_t c = (size_t)o < len ? (size_t)o : len - 1;

        memcpy(buf, out, c);
        buf[c] = '\0';
    }
    return o;
}

int tplan_fmt_real(char *buf, size_t len, double v)
{
    double a = fabs(v);
    scaled s;
    uint64_t m;
    int e, k, x;

    /* Zero and whole numbers below 10^15, a plan's most common reals
     * (issue 38: zero through printf and strtod was a quarter of a CSV
     * row's cost): what %.15g prints, the digits of the integer (15 at
     * most, so they read back exactly) with its sign. */
    if (a < 1e15 && a == floor(a)) {
        char out[24];
        uint64_t u = (uint64_t)a;
        int o = sizeof out;
        size_t c;

        do {
            out[--o] = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        if (signbit(v))
            out[--o] = '-';
        if (len) { /* as snprintf: cut to fit, the full length returned */
            c = sizeof out - (size_t)o < len ? sizeof out - (size_t)o
                                             : len - 1;
            memcpy(buf, out + o, c);
            buf[c] = '\0';
        }
        return (int)(sizeof out) - o;
    }
    if (!(a >= 1e-5 && a < 1e38))
        return fmt_printf(buf, len, v);
    m = (uint64_t)ldexp(frexp(a, &e), 53); /* a = m * 2^(e - 53) */
    e -= 53;
    x = (int)floor(log10(a)); /* may be off by one near powers of ten */
    k = 16 - x;
    if (!scale(m, e, k, &s))
        return fmt_printf(buf, len, v);
    if (s.q >= pow10_64[17]) {
        x++, k--;
        if (!scale(m, e, k, &s))
            return fmt_printf(buf, len, v);
    } else if (s.q < pow10_64[16]) {
        x--, k++;
        if (!scale(m, e, k, &s))
            return fmt_printf(buf, len, v);
    }
    if (s.q < pow10_64[16] || s.q >= pow10_64[17])
        return fmt_printf(buf, len, v);

    for (int n = 15; n <= 17; n++) {
        uint64_t p = pow10_64[17 - n], q = (uint64_t)s.q / p,
                 r = (uint64_t)s.q % p;
        /* the part dropped, against half a unit of the n-th digit */
        u128 dropped = ((u128)r * s.d + s.r) * 2, half = (u128)p * s.d;
        int xn = x;

        if (dropped > half || (dropped == half && (q & 1)))
            q++;
        if (n < 17 && !reads_back(&s, q * p, m))
            continue;
        if (q == pow10_64[n]) { /* 9.99... rounded up to 10.0... */
            q /= 10;
            xn++;
        }
        return emit(buf, len, v < 0, q, n, xn);
    }
    return fmt_printf(buf, len, v); /* not reached: 17 digits read back */
}

void tplan_fmt_field(char *buf, size_t len, int id, double v)
{
    const char *name = tplan_field_value_name(id, v);

    if (name)
        snprintf(buf, len, "%s", name);
    else
        tplan_fmt_real(buf, len, v);
}
