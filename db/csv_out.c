/* realpath (X/Open): outputs follow symbolic links */
#define _XOPEN_SOURCE 700
/* The CSV plan writer. */
#include "csv_out.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csv.h>

#include "fields.h"
#include "paths.h"

struct tplan_csv {
    FILE *f;
    char *path; /* the final name */
    char *tmp;  /* the name while writing */
    int col;    /* cells in the current row */
    bool bad;   /* a write failed */
};

/* One thread writes a file: stdio's per-call lock is skipped for the
 * short pieces (putc_unlocked, POSIX), which took a fifth of the time. */
static void put_chars(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        putc_unlocked(s[i], f);
}

/* RFC 4180: quote a field only when it holds a separator, a quote, a line
 * break, or leading/trailing space a spreadsheet would trim. */
static int put_text(FILE *f, const char *s)
{
    size_t n = strlen(s);
    bool quote = n > 0 && (s[0] == ' ' || s[n - 1] == ' ');

    quote = quote || strpbrk(s, ",\"\r\n") != NULL;
    if (quote)
        return csv_fwrite(f, s, n) == 0 ? 0 : -1;
    put_chars(f, s, n); /* errors: ferror at the row's end */
    return 0;
}

static int io_error(tplan_err *err, const char *path, const char *doing)
{
    return tplan_err_set(err, TPLAN_EIO, "csv", "%s %s: %s", doing, path,
                         strerror(errno));
}

const char *tplan_csv_tmp_path(const tplan_csv *w)
{
    return w ? w->tmp : NULL;
}

void tplan_csv_abort(tplan_csv *w)
{
    if (!w)
        return;
    if (w->f && w->f != stdout)
        fclose(w->f);
    if (w->tmp)
        unlink(w->tmp);
    free(w->path);
    free(w->tmp);
    free(w);
}

/* Remove PATH.tmp.PID.* files whose process PID no longer runs: what a
 * run killed with SIGKILL (or a power cut) left while writing PATH. A
 * live process's file (another run writing the same name) is left alone. */
/* Temporary names keep at most this much of the target's name, so that
 * with ".tmp.PID.XXXXXX" they stay under the 255 bytes a name may have. */
#define TMP_BASE_MAX 200

static void remove_stale(const char *path)
{
    char dir[4096], prefix[512], victim[4608];
    const char *base = tplan_path_split(path, dir, sizeof dir);
    size_t plen;
    struct dirent *e;
    DIR *d;

    plen = (size_t)snprintf(prefix, sizeof prefix, "%.*s.tmp.",
                            TMP_BASE_MAX, base);
    if (plen >= sizeof prefix || !(d = opendir(dir)))
        return;
    while ((e = readdir(d))) {
        char *end;
        long pid;

        if (strncmp(e->d_name, prefix, plen) != 0)
            continue;
        errno = 0;
        pid = strtol(e->d_name + plen, &end, 10);
        if (errno || end == e->d_name + plen || *end != '.' || pid <= 0 ||
            pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        snprintf(victim, sizeof victim, "%s/%s", dir, e->d_name);
        unlink(victim);
    }
    closedir(d);
}

tplan_csv *tplan_csv_create(const char *path, tplan_err *err)
{
    tplan_csv *w = calloc(1, sizeof *w);
    size_t n = strlen(path);
    int fd;

    if (n == 0) {
        free(w);
        tplan_err_set(err, TPLAN_EINVAL, "csv", "csv path is empty");
        return NULL;
    }
    if (strcmp(path, "-") == 0) { /* standard output, as it goes */
        if (!w) {
            tplan_err_set(err, TPLAN_ENOMEM, "csv", "out of memory");
            return NULL;
        }
        w->f = stdout;
        if (!(w->path = strdup("standard output"))) {
            free(w);
            tplan_err_set(err, TPLAN_ENOMEM, "csv", "out of memory");
            return NULL;
        }
        return w;
    }
    if (!w) {
        tplan_err_set(err, TPLAN_ENOMEM, "csv", "out of memory");
        return NULL;
    }
    {
        struct stat st;
        char *real;

        /* a device or a pipe (also through a link: /dev/stdout) would be
         * replaced by a regular file */
        if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
            !S_ISDIR(st.st_mode)) {
            tplan_err_set(err, TPLAN_EINVAL, "csv",
                          "%s is not a regular file (a device or a pipe): "
                          "give - for standard output",
                          path);
            free(w);
            return NULL;
        }
        /* a symbolic link is followed: the file it names is replaced, the
         * link stays (a link to nothing is refused) */
        if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
            if (!(real = realpath(path, NULL))) {
                tplan_err_set(err, TPLAN_EINVAL, "csv",
                              "%s: a symbolic link to a file that does not "
                              "exist: give the file's own path",
                              path);
                free(w);
                return NULL;
            }
            n = strlen(real);
            w->path = real;
        }
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            tplan_err_set(err, TPLAN_EINVAL, "csv", "%s is a directory", path);
            tplan_csv_abort(w);
            return NULL;
        }
    }
    if ((!w->path && !(w->path = strdup(path))) ||
        !(w->tmp = malloc(n + 40))) {
        tplan_csv_abort(w);
        tplan_err_set(err, TPLAN_ENOMEM, "csv", "out of memory");
        return NULL;
    }
    path = w->path;
    /* the temporary lives beside the target so rename() stays atomic, and
     * its name says whose it is: a killed run's is removed by the next */
    remove_stale(path);
    {
        char dir[4096];
        const char *base = tplan_path_split(path, dir, sizeof dir);

        snprintf(w->tmp, n + 40, "%.*s%.*s.tmp.%ld.XXXXXX",
                 (int)(base - path), path, TMP_BASE_MAX, base,
                 (long)getpid());
    }
    if ((fd = mkstemp(w->tmp)) < 0) {
        io_error(err, path, "cannot create");
        free(w->tmp);
        w->tmp = NULL;
        tplan_csv_abort(w);
        return NULL;
    }
    /* mkstemp makes the file private; give it the mode a plain create
     * would (0666 less the umask) */
    {
        mode_t mask = umask(0);

        umask(mask);
        (void)fchmod(fd, 0666 & ~mask);
    }
    if (!(w->f = fdopen(fd, "w"))) {
        io_error(err, path, "cannot open");
        close(fd);
        tplan_csv_abort(w);
        return NULL;
    }
    return w;
}

static void sep(tplan_csv *w)
{
    if (w->col++ > 0)
        putc_unlocked(',', w->f);
}

void tplan_csv_text(tplan_csv *w, const char *s)
{
    sep(w);
    if (put_text(w->f, s))
        w->bad = true;
}

void tplan_csv_int(tplan_csv *w, int64_t v)
{
    char num[24];
    size_t i = sizeof num;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

    sep(w);
    do {
        num[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        num[--i] = '-';
    put_chars(w->f, num + i, sizeof num - i);
}

void tplan_csv_real(tplan_csv *w, double v)
{
    char num[40];

    sep(w);
    if (!isnan(v)) {
        size_t n = (size_t)tplan_fmt_real(num, sizeof num, v);

        put_chars(w->f, num, n < sizeof num ? n : sizeof num - 1);
    }
}

void tplan_csv_null(tplan_csv *w)
{
    sep(w);
}

int tplan_csv_end_row(tplan_csv *w, tplan_err *err)
{
    w->col = 0;
    if (fputs("\r\n", w->f) == EOF || w->bad || ferror(w->f))
        return io_error(err, w->path, "cannot write");
    return TPLAN_OK;
}

tplan_csv *tplan_csv_open(const char *path, tplan_err *err)
{
    tplan_csv *w = tplan_csv_create(path, err);

    if (!w)
        return NULL;
    tplan_csv_text(w, "sweep");
    tplan_csv_text(w, "rank");
    for (int id = 0; id < tplan_field_count(); id++)
        tplan_csv_text(w, tplan_field_at(id)->name);
    if (tplan_csv_end_row(w, err)) {
        tplan_csv_abort(w);
        return NULL;
    }
    return w;
}

int tplan_csv_row(tplan_csv *w, const char *sweep, int64_t rank,
                  const tplan_plan *p, tplan_err *err)
{
    char buf[TPLAN_MAX_WARNINGS * TPLAN_WARNING_LEN];

    tplan_csv_text(w, sweep);
    if (rank > 0)
        tplan_csv_int(w, rank);
    else
        tplan_csv_null(w); /* a streamed plan beyond the ranked ones */
    for (int id = 0; id < tplan_field_count(); id++) {
        tplan_value v = tplan_field_get(id, p, buf, sizeof buf);

        switch (tplan_field_at(id)->type) {
        case TPLAN_FT_INT:
        case TPLAN_FT_BOOL:
            tplan_csv_int(w, v.i);
            break;
        case TPLAN_FT_REAL:
            tplan_csv_real(w, v.r);
            break;
        default: /* NULL: no value, an empty cell */
            tplan_csv_text(w, v.s ? v.s : "");
            break;
        }
    }
    return tplan_csv_end_row(w, err);
}

int tplan_csv_close(tplan_csv *w, tplan_err *err)
{
    int rc = TPLAN_OK;

    if (w->f == stdout) {
        if (fflush(stdout) != 0 || ferror(stdout))
            rc = io_error(err, w->path, "cannot write");
        w->f = NULL;
        tplan_csv_abort(w);
        return rc;
    }
    if (fflush(w->f) != 0 || ferror(w->f) || fsync(fileno(w->f)) != 0)
        rc = io_error(err, w->path, "cannot write");
    if (fclose(w->f) != 0 && rc == TPLAN_OK)
        rc = io_error(err, w->path, "cannot write");
    w->f = NULL;
    if (rc == TPLAN_OK && rename(w->tmp, w->path) != 0)
        rc = io_error(err, w->path, "cannot rename into");
    if (rc == TPLAN_OK) {
        free(w->tmp);
        w->tmp = NULL; /* nothing to unlink */
    }
    tplan_csv_abort(w);
    return rc;
}
