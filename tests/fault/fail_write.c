/* Fault injection for the result writer's tests (tests/test_db.sh), as an
 * LD_PRELOAD library: count pwrite64 calls to one file and, at the Nth,
 * fail with ENOSPC (a full disk) or kill the process (SIGKILL), whichever
 * thread issues it (tplan's I/O thread, async_vfs.c, or SQLite's own).
 *   TPLAN_FAULT_FILE     the file, as its path ends ("/x.db")
 *   TPLAN_FAULT_FAIL_AT  N: the Nth write to it fails, and the ones after
 *                        it while TPLAN_FAULT_FAIL_COUNT (default 1) last
 *   TPLAN_FAULT_KILL_AT  N: SIGKILL at the Nth write, before it is made */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static atomic_long writes;

static int is_target(int fd)
{
    const char *want = getenv("TPLAN_FAULT_FILE");
    char link[64], path[4096];
    ssize_t n;
    size_t lw;

    if (!want)
        return 0;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    if ((n = readlink(link, path, sizeof path - 1)) <= 0)
        return 0;
    path[n] = '\0';
    lw = strlen(want);
    return (size_t)n >= lw && strcmp(path + n - lw, want) == 0;
}

static long env_long(const char *name, long dflt)
{
    const char *s = getenv(name);

    return s ? atol(s) : dflt;
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off)
{
    static ssize_t (*real)(int, const void *, size_t, off_t);

    if (!real) { /* POSIX dlsym: a function pointer through an object one */
        void *sym = dlsym(RTLD_NEXT, "pwrite64");

        memcpy(&real, &sym, sizeof real);
    }
    if (is_target(fd)) {
        long k = atomic_fetch_add(&writes, 1) + 1,
             fail = env_long("TPLAN_FAULT_FAIL_AT", 0),
             count = env_long("TPLAN_FAULT_FAIL_COUNT", 1);

        if (k == env_long("TPLAN_FAULT_KILL_AT", 0))
            raise(SIGKILL);
        if (fail > 0 && k >= fail && k < fail + count) {
            errno = ENOSPC;
            return -1;
        }
    }
    return real(fd, buf, len, off);
}
