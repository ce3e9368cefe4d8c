/* libFuzzer target: `tplan calc` option parsing. The input is split into
 * arguments at NUL and newline bytes; any exit status is fine, a crash or
 * a sanitizer report is not. scripts/fuzz.sh runs it with -close_fd_mask=3
 * (the tables and messages go nowhere) from a scratch directory. Inputs
 * that ask for --report are skipped, abbreviated too (getopt_long takes
 * --rep for it): they would write files wherever the fuzzer runs. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf;
    static char name[] = "calc";
    char *args[64];
    int n = 0;

    if (size > 4096)
        return 0;
    if (!(buf = malloc(size + 1)))
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    args[n++] = name;
    for (size_t i = 0, start = 0; i <= size && n < 63; i++) {
        if (i == size || buf[i] == '\0' || buf[i] == '\n') {
            buf[i] = '\0';
            args[n++] = buf + start;
            start = i + 1;
        }
    }
    args[n] = NULL;
    /* --report writes a file: not from random input */
    for (int i = 1; i < n; i++)
        if (strncmp(args[i], "--rep", 5) == 0) {
            free(buf);
            return 0;
        }
    cmd_calc(n, args);
    free(buf);
    return 0;
}
