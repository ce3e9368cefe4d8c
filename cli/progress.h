/* A one-line progress bar on stderr with rate and ETA: drawn only when
 * stderr is a terminal, at most ten times a second, without colour. */
#ifndef TPLAN_CLI_PROGRESS_H
#define TPLAN_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct progress {
    bool on;
    double start, last; /* seconds, monotonic */
    int64_t first_done; /* done at start (a new sweep resets) */
    int width;          /* characters drawn last, to clear */
} progress;

/* Set p up; on is false when stderr is not a terminal. */
void progress_init(progress *p);

/* The engine's callback: done < 0 clears the line (the sweep ended). */
void progress_update(void *ud, int64_t done, int64_t total);

/* A file being written: done of total plans, the path after the ETA;
 * done < 0 clears the line. */
void progress_write(progress *p, const char *path, int64_t done,
                    int64_t total);

#endif
