/* How far a plan that does not fit is from fitting, in words. */
#include "fit_note.h"

#include <stdio.h>

#define GIB (1024.0 * 1024.0 * 1024.0)

void fit_gap_text(char *buf, size_t len, int64_t total_bytes,
                  int64_t usable_bytes, int64_t host_bytes,
                  int64_t host_capacity_bytes)
{
    if (total_bytes <= usable_bytes && host_capacity_bytes > 0 &&
        host_bytes > host_capacity_bytes)
        snprintf(buf, len,
                 "needs %.1f GiB of host memory per node where %.1f GiB is "
                 "there",
                 (double)host_bytes / GIB, (double)host_capacity_bytes / GIB);
    else
        snprintf(buf, len, "needs %.1f GiB per GPU where %.1f GiB is usable",
                 (double)total_bytes / GIB, (double)usable_bytes / GIB);
}
