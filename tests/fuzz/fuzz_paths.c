/* libFuzzer target: the CSV writer's output paths (db/csv_out.c, issue
 * 36). Each input builds a small directory: regular files with known
 * contents, symbolic links (to them, to nothing, to a directory), hard
 * links, a directory, a pipe; then it writes a few rows to one of its
 * names, or to a descriptor by /dev/fd/N or /proc/self/fd/N, and closes
 * or abandons the write. Checked after each: a file the write did not
 * target has its contents; a finished write's target holds exactly what
 * was written (through a link: the file it names, the link kept); an
 * abandoned or refused one left the target as it was; no temporary
 * (NAME.tmp.PID.*) is left; a descriptor got the bytes, appended. */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csv_out.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NAMES 8
static const char *const names[NAMES] = {"a", "b", "la", "ln", "ld",
                                         "h",  "d", "new"};

static void put(const char *path, const char *s)
{
    FILE *f = fopen(path, "w");

    if (!f)
        abort();
    fputs(s, f);
    fclose(f);
}

static size_t slurp(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    size_t n;

    if (!f)
        return (size_t)-1;
    n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = '\0';
    return n;
}

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_paths: %s\n", what);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char dir[64];
    char path[128], want[4096], got[4096], before[4096];
    uint8_t b[6] = {0};
    tplan_csv *w;
    tplan_err err;
    int pfd[2] = {-1, -1}, rows, target, mode, finish;
    size_t n = 0;
    DIR *dh;
    struct dirent *e;

    memcpy(b, data, size < sizeof b ? size : sizeof b);
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "fuzz_paths.%ld", (long)getpid());
        if (mkdir(dir, 0700) != 0 || chdir(dir) != 0)
            abort();
    }
    /* the directory: a, b regular; la -> a; ln -> nothing; ld -> d; h a
     * hard link of b; d a directory; new absent */
    for (int i = 0; i < NAMES; i++)
        (void)unlink(names[i]);
    (void)rmdir("d");
    put("a", "alpha\n");
    put("b", "bravo\n");
    if (symlink("a", "la") || symlink("nothing", "ln") || mkdir("d", 0700) ||
        symlink("d", "ld") || link("b", "h"))
        abort();
    target = b[0] % (NAMES + 3); /* a name, /dev/fd/N, /proc/self/fd/N, "-" */
    mode = b[1] % 3;             /* rows of text, numbers, a quoted cell */
    rows = b[2] % 5;
    finish = b[3] % 2;           /* close, or abandon */
    if (target >= NAMES && target < NAMES + 2) {
        if (pipe(pfd) != 0)
            abort();
        snprintf(path, sizeof path, target == NAMES ? "/dev/fd/%d"
                                                    : "/proc/self/fd/%d",
                 pfd[1]);
    } else if (target == NAMES + 2) {
        snprintf(path, sizeof path, "-");
        rows = 0; /* nothing on the fuzzer's own stdout */
    } else {
        snprintf(path, sizeof path, "%s", names[target]);
    }
    before[0] = '\0';
    if (target < NAMES)
        (void)slurp(path, before, sizeof before);
    want[0] = '\0';
    if ((w = tplan_csv_create(path, &err))) {
        for (int r = 0; r < rows; r++) {
            if (mode == 0)
                tplan_csv_text(w, "x");
            else if (mode == 1)
                tplan_csv_real(w, (double)b[4] / 7.0 + r);
            else
                tplan_csv_text(w, "a \"q\", b");
            tplan_csv_int(w, r);
            if (tplan_csv_end_row(w, &err))
                abort();
        }
        if (finish == 0) {
            int rc = tplan_csv_close(w, &err);

            check(rc == 0, "close failed");
            n = (size_t)rows;
        } else {
            tplan_csv_abort(w);
        }
    }
    /* files not targeted keep their contents */
    check(strcmp((slurp("b", got, sizeof got), got), "bravo\n") == 0 ||
              target == 1 || target == 5,
          "b changed");
    if (target != 0 && target != 2)
        check(slurp("a", got, sizeof got) != (size_t)-1 &&
                  strcmp(got, "alpha\n") == 0,
              "a changed");
    /* links stay links */
    {
        struct stat st;

        check(lstat("la", &st) == 0 && S_ISLNK(st.st_mode), "la replaced");
        check(lstat("ln", &st) == 0 && S_ISLNK(st.st_mode), "ln replaced");
        check(lstat("ld", &st) == 0 && S_ISLNK(st.st_mode), "ld replaced");
        check(stat("d", &st) == 0 && S_ISDIR(st.st_mode), "d replaced");
    }
    /* a finished write: the target holds the rows; else as it was */
    if (target < NAMES && target != 3 && target != 4 && target != 6) {
        const char *real = target == 2 ? "a" : names[target];
        size_t len = slurp(real, got, sizeof got);

        if (w && finish == 0) {
            size_t lines = 0;

            for (size_t i = 0; i < len && len != (size_t)-1; i++)
                lines += got[i] == '\n';
            check(lines == n, "the target lacks rows");
        } else {
            check(strcmp(len == (size_t)-1 ? "" : got, before) == 0,
                  "an abandoned write changed its target");
        }
    }
    /* a descriptor got the bytes */
    if (pfd[0] >= 0) {
        ssize_t r;

        close(pfd[1]);
        (void)fcntl(pfd[0], F_SETFL, O_NONBLOCK);
        r = read(pfd[0], got, sizeof got - 1);
        if (w && finish == 0)
            check(rows == 0 || r > 0, "the pipe got nothing");
        close(pfd[0]);
    }
    /* no temporary left */
    if (!(dh = opendir(".")))
        abort();
    while ((e = readdir(dh)))
        check(!strstr(e->d_name, ".tmp."), "a temporary was left");
    closedir(dh);
    return 0;
}
