/* The progress bar. */
#include "progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void progress_init(progress *p)
{
    p->on = isatty(STDERR_FILENO) == 1;
    p->start = p->last = 0;
    p->first_done = -1;
    p->width = 0;
}

/* 1234567 -> "1.23M" */
static void human(char *buf, size_t len, double v)
{
    static const char units[] = " kMGTP";
    int u = 0;

    while (v >= 1000.0 && u < 5) {
        v /= 1000.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.2f%c", v, units[u]);
}

/* Draw done of total, counted in `unit`, with a note after the ETA. */
static void draw(progress *p, const char *unit, const char *note,
                 int64_t done, int64_t total)
{
    char line[200], rate_s[16], eta[32];
    double t, frac, rate;
    int filled, n;

    if (!p->on)
        return;
    if (done < 0) { /* finished: clear the bar */
        if (p->width > 0)
            fprintf(stderr, "\r%*s\r", p->width, "");
        p->width = 0;
        p->first_done = -1;
        return;
    }
    t = now_s();
    if (p->first_done < 0) {
        p->first_done = done;
        p->start = t;
        p->last = 0;
        return;
    }
    if (t - p->last < 0.1)
        return;
    p->last = t;
    frac = total > 0 ? (double)done / (double)total : 0.0;
    rate = t > p->start ? (double)(done - p->first_done) / (t - p->start) : 0.0;
    filled = (int)(frac * 30.0);
    human(rate_s, sizeof rate_s, rate);
    if (rate > 0)
        snprintf(eta, sizeof eta, "%.0fs", (double)(total - done) / rate);
    else
        snprintf(eta, sizeof eta, "?");
    n = snprintf(line, sizeof line, "\r[%-30.*s] %5.1f%%  %s %s/s  ETA %s%s%.60s",
                 filled, "##############################", frac * 100.0, rate_s,
                 unit, eta, note[0] ? "  " : "", note);
    if (n >= (int)sizeof line)
        n = (int)sizeof line - 1;
    fputs(line, stderr);
    if (p->width > n - 1)
        fprintf(stderr, "%*s", p->width - (n - 1), "");
    p->width = n - 1;
    fflush(stderr);
}

void progress_update(void *ud, int64_t done, int64_t total)
{
    draw(ud, "configs", "", done, total);
}

void progress_write(progress *p, const char *path, int64_t done, int64_t total)
{
    char note[80];

    snprintf(note, sizeof note, "writing %.60s", path ? path : "");
    draw(p, "plans", note, done, total);
}
