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
    tplan_csv_rowbuf row; /* the current row's cells */
};

/* Room for n more bytes in b; false (and b->bad) when memory is short. */
static bool rb_room(tplan_csv_rowbuf *b, size_t n)
{
    size_t cap;
    char *s;

    if (b->bad)
        return false;
    if (b->n + n <= b->cap)
        return true;
    cap = b->cap ? b->cap : 1024;
    while (cap < b->n + n)
        cap *= 2;
    if (!(s = realloc(b->s, cap))) {
        b->bad = true;
        return false;
    }
    b->s = s;
    b->cap = cap;
    return true;
}

static void rb_put(tplan_csv_rowbuf *b, const char *s, size_t n)
{
    if (rb_room(b, n)) {
        memcpy(b->s + b->n, s, n);
        b->n += n;
    }
}

static void rb_sep(tplan_csv_rowbuf *b)
{
    if (b->col++ > 0)
        rb_put(b, ",", 1);
}

/* RFC 4180: quote a field only when it holds a separator, a quote, a line
 * break, or leading/trailing space a spreadsheet would trim (libcsv's
 * csv_write quotes and doubles the quotes: at most 2n + 2 bytes). */
static void rb_text(tplan_csv_rowbuf *b, const char *s)
{
    size_t n = strlen(s);
    bool quote = n > 0 && (s[0] == ' ' || s[n - 1] == ' ');

    rb_sep(b);
    if (!(quote || strpbrk(s, ",\"\r\n") != NULL)) {
        rb_put(b, s, n);
        return;
    }
    if (rb_room(b, 2 * n + 2))
        b->n += csv_write(b->s + b->n, b->cap - b->n, s, n);
}

/* v's digits, no separator. */
static void rb_digits(tplan_csv_rowbuf *b, int64_t v)
{
    char num[24];
    size_t i = sizeof num;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

    do {
        num[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        num[--i] = '-';
    rb_put(b, num + i, sizeof num - i);
}

static void rb_int(tplan_csv_rowbuf *b, int64_t v)
{
    rb_sep(b);
    rb_digits(b, v);
}

/* The last value each column formatted on this thread, and its text.
 * Most of a sweep's columns hold one value from row to row (the inputs it
 * left as they are, the model's sizes: 122 of 163 in a typical sweep),
 * and formatting numbers was most of a CSV row's cost, ten times its
 * plan's evaluation (issue 38: --csv at 0.6x --db). A column's text is
 * reused while its value's bits are the same, which give the same text
 * (tplan_fmt_real and the integer digits are functions of them). The
 * longest text is 24 bytes ("-4.9406564584124654e-324"). */
typedef struct col_memo {
    uint64_t bits;
    unsigned char n; /* 0: nothing kept */
    char s[27];
} col_memo;

static _Thread_local col_memo memo[TPLAN_MAX_FIELDS];

/* Column col's kept text for bits, put into b; false where none. */
static bool memo_put(tplan_csv_rowbuf *b, int col, uint64_t bits)
{
    if (col < 0 || col >= TPLAN_MAX_FIELDS || memo[col].n == 0 ||
        memo[col].bits != bits)
        return false;
    rb_put(b, memo[col].s, memo[col].n);
    return true;
}

static void memo_keep(int col, uint64_t bits, const char *s, size_t n)
{
    if (col < 0 || col >= TPLAN_MAX_FIELDS || n == 0 ||
        n >= sizeof memo[0].s)
        return;
    memo[col].bits = bits;
    memo[col].n = (unsigned char)n;
    memcpy(memo[col].s, s, n);
}

static void rb_int_col(tplan_csv_rowbuf *b, int col, int64_t v)
{
    size_t from;

    rb_sep(b);
    if (memo_put(b, col, (uint64_t)v))
        return;
    from = b->n;
    rb_digits(b, v);
    if (!b->bad)
        memo_keep(col, (uint64_t)v, b->s + from, b->n - from);
}

static void rb_real(tplan_csv_rowbuf *b, int col, double v)
{
    char num[40];
    uint64_t bits;

    rb_sep(b);
    if (isnan(v))
        return;
    memcpy(&bits, &v, sizeof bits);
    if (memo_put(b, col, bits))
        return;
    {
        size_t n = (size_t)tplan_fmt_real(num, sizeof num, v);

        if (n >= sizeof num)
            n = sizeof num - 1;
        rb_put(b, num, n);
        memo_keep(col, bits, num, n);
    }
}

void tplan_csv_rowbuf_free(tplan_csv_rowbuf *b)
{
    free(b->s);
    memset(b, 0, sizeof *b);
}

int tplan_csv_format_row(tplan_csv_rowbuf *b, const char *sweep, int64_t rank,
                         const tplan_plan *p)
{
    char buf[TPLAN_MAX_WARNINGS * TPLAN_WARNING_LEN];

    b->n = 0;
    b->col = 0;
    rb_text(b, sweep);
    if (rank > 0)
        rb_int(b, rank);
    else
        rb_sep(b); /* a streamed plan beyond the ranked ones */
    for (int id = 0; id < tplan_field_count(); id++) {
        tplan_value v = tplan_field_get(id, p, buf, sizeof buf);

        switch (tplan_field_at(id)->type) {
        case TPLAN_FT_INT:
        case TPLAN_FT_BOOL:
            rb_int_col(b, id, v.i);
            break;
        case TPLAN_FT_REAL:
            rb_real(b, id, v.r);
            break;
        default: /* NULL: no value, an empty cell */
            rb_text(b, v.s ? v.s : "");
            break;
        }
    }
    rb_put(b, "\r\n", 2);
    b->col = 0;
    return b->bad ? TPLAN_ENOMEM : TPLAN_OK;
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
    tplan_csv_rowbuf_free(&w->row);
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
    fd = tplan_path_fd(path);
    if (strcmp(path, "-") == 0 || fd == 1) { /* standard output, as it goes */
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
    if (fd >= 0) {
        /* another of the process's own streams (/dev/stderr, /dev/fd/3):
         * written through a copy of the descriptor, appending where the
         * caller opened it so (`3>> log`), as "-" is; the file it leads
         * to is never replaced (issue 36) */
        int d = dup(fd);

        if (d < 0 || !(w->f = fdopen(d, "w"))) {
            io_error(err, path, "cannot write to");
            if (d >= 0)
                close(d);
            free(w);
            return NULL;
        }
        if (!(w->path = strdup(path))) {
            tplan_csv_abort(w);
            tplan_err_set(err, TPLAN_ENOMEM, "csv", "out of memory");
            return NULL;
        }
        return w;
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
    /* mkstemp makes the file private; give it the mode of the file it
     * replaces (issue 36: a replaced CSV took a new one), or the mode a
     * plain create would (0666 less the umask) */
    {
        struct stat old;
        mode_t mask = umask(0);

        umask(mask);
        (void)fchmod(fd, stat(path, &old) == 0 ? old.st_mode & 07777
                                               : 0666 & ~mask);
    }
    if (!(w->f = fdopen(fd, "w"))) {
        io_error(err, path, "cannot open");
        close(fd);
        tplan_csv_abort(w);
        return NULL;
    }
    /* rows go out in 1 MiB writes, not stdio's 4 KiB (issue 38: a
     * keep = "all" CSV of 470 MB spent a third of its time in write(2)) */
    (void)setvbuf(w->f, NULL, _IOFBF, (size_t)1 << 20);
    return w;
}

void tplan_csv_text(tplan_csv *w, const char *s)
{
    rb_text(&w->row, s);
}

void tplan_csv_int(tplan_csv *w, int64_t v)
{
    rb_int(&w->row, v);
}

void tplan_csv_real(tplan_csv *w, double v)
{
    rb_real(&w->row, -1, v); /* no column to remember by */
}

void tplan_csv_null(tplan_csv *w)
{
    rb_sep(&w->row);
}

int tplan_csv_put(tplan_csv *w, const char *s, size_t n, tplan_err *err)
{
    if (n > 0 && fwrite(s, 1, n, w->f) != n)
        return io_error(err, w->path, "cannot write");
    return TPLAN_OK;
}

int tplan_csv_end_row(tplan_csv *w, tplan_err *err)
{
    tplan_csv_rowbuf *b = &w->row;
    int rc;

    rb_put(b, "\r\n", 2);
    if (b->bad) {
        b->n = 0;
        b->col = 0;
        b->bad = false;
        return tplan_err_set(err, TPLAN_ENOMEM, "csv", "out of memory");
    }
    rc = tplan_csv_put(w, b->s, b->n, err);
    b->n = 0;
    b->col = 0;
    return rc;
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
    int rc = tplan_csv_format_row(&w->row, sweep, rank, p);

    if (rc == TPLAN_OK)
        rc = tplan_csv_put(w, w->row.s, w->row.n, err);
    else
        tplan_err_set(err, TPLAN_ENOMEM, "csv", "out of memory");
    w->row.n = 0;
    w->row.bad = false;
    return rc;
}

int tplan_csv_close(tplan_csv *w, tplan_err *err)
{
    int rc = TPLAN_OK;

    if (!w->tmp) { /* standard output or another descriptor: no rename */
        if (fflush(w->f) != 0 || ferror(w->f))
            rc = io_error(err, w->path, "cannot write");
        if (w->f != stdout && fclose(w->f) != 0 && rc == TPLAN_OK)
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
