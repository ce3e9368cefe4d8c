/* libFuzzer target: `tplan calibrate`'s measured-runs CSV. The input is
 * the file; each row goes through calc's option parsing and the fit. Any
 * exit status is fine, a crash, a hang or a sanitizer report is not.
 * scripts/fuzz.sh runs it with -close_fd_mask=3. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "calib_cmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char name[] = "calibrate", oname[] = "--name", fname[] = "fz",
                oflag[] = "-o";
    char path[64], out[64];
    char *args[7];
    FILE *f;

    /* a few dozen runs exercise every path; thousands only take time */
    if (size > 8192)
        return 0;
    snprintf(path, sizeof path, "/tmp/tplan_fuzz_cal_%d.csv", (int)getpid());
    snprintf(out, sizeof out, "/tmp/tplan_fuzz_cal_%d.out", (int)getpid());
    if (!(f = fopen(path, "wb")))
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    args[0] = name;
    args[1] = path;
    args[2] = oname;
    args[3] = fname;
    args[4] = oflag;
    args[5] = out;
    args[6] = NULL;
    cmd_calibrate(6, args);
    unlink(path);
    unlink(out);
    return 0;
}
