/* The strict CSV reader. */
#include "csv_in.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <csv.h>

#define MAX_FIELDS      256
#define MAX_FIELD_BYTES 4096

typedef struct reader {
    const char *path;
    char *field[MAX_FIELDS];
    int n;
    int64_t line; /* the physical line being parsed */
    int header_n;
    tplan_csv_record_fn fn;
    void *ud;
    tplan_err *err;
    int rc;
} reader;

static void on_field(void *s, size_t len, void *ud)
{
    reader *r = ud;

    if (r->rc)
        return;
    if (r->n >= MAX_FIELDS) {
        r->rc = tplan_err_set(r->err, TPLAN_EINVAL, "csv",
                              "%s:%lld: more than %d columns", r->path,
                              (long long)r->line, MAX_FIELDS);
        return;
    }
    if (len > MAX_FIELD_BYTES) {
        r->rc =
            tplan_err_set(r->err, TPLAN_EINVAL, "csv",
                          "%s:%lld: column %d is longer than %d bytes", r->path,
                          (long long)r->line, r->n + 1, MAX_FIELD_BYTES);
        return;
    }
    if (!(r->field[r->n] = malloc(len + 1))) {
        r->rc = tplan_err_set(r->err, TPLAN_ENOMEM, "csv", "out of memory");
        return;
    }
    memcpy(r->field[r->n], s ? s : "", len);
    r->field[r->n][len] = '\0';
    if (strlen(r->field[r->n]) != len)
        r->rc = tplan_err_set(r->err, TPLAN_EINVAL, "csv",
                              "%s:%lld: column %d holds a NUL byte", r->path,
                              (long long)r->line, r->n + 1);
    r->n++;
}

static void clear(reader *r)
{
    for (int i = 0; i < r->n; i++)
        free(r->field[i]);
    r->n = 0;
}

static void on_record(int c, void *ud)
{
    reader *r = ud;

    (void)c;
    /* a blank line is no record */
    if (!r->rc && !(r->n == 0 || (r->n == 1 && r->field[0][0] == '\0'))) {
        bool header = r->header_n == 0;

        if (header)
            r->header_n = r->n;
        else if (r->n != r->header_n)
            r->rc =
                tplan_err_set(r->err, TPLAN_EINVAL, "csv",
                              "%s:%lld: %d columns, the header has %d", r->path,
                              (long long)r->line, r->n, r->header_n);
        if (!r->rc)
            r->rc = r->fn(r->ud, r->line, header, r->n,
                          (const char *const *)r->field, r->err);
    }
    clear(r);
}

static volatile sig_atomic_t *stop_flag;

void tplan_csv_set_stop(volatile sig_atomic_t *stop)
{
    stop_flag = stop;
}

/* One line into *buf (grown as needed, at most TPLAN_CSV_MAX_LINE bytes
 * with its newline): its length, 0 at the end of the file, -1 when it is
 * longer or memory runs out (*too_long says which). */
static ssize_t read_line(FILE *f, char **buf, size_t *cap, bool *too_long)
{
    size_t n = 0;
    int ch;

    *too_long = false;
    while ((ch = getc_unlocked(f)) != EOF) {
        if (n + 2 > *cap) {
            size_t want = *cap ? *cap * 2 : 256;
            char *nb;

            if (n >= TPLAN_CSV_MAX_LINE) {
                *too_long = true;
                return -1;
            }
            if (want > TPLAN_CSV_MAX_LINE + 1)
                want = TPLAN_CSV_MAX_LINE + 1;
            if (!(nb = realloc(*buf, want)))
                return -1;
            *buf = nb;
            *cap = want;
        }
        (*buf)[n++] = (char)ch;
        if (ch == '\n')
            break;
    }
    if (n > 0)
        (*buf)[n] = '\0';
    return (ssize_t)n;
}

int tplan_csv_read(const char *path, tplan_csv_record_fn fn, void *ud,
                   tplan_err *err)
{
    struct csv_parser p;
    reader r;
    FILE *f;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    bool too_long = false;

    memset(&r, 0, sizeof r);
    r.path = path;
    r.fn = fn;
    r.ud = ud;
    r.err = err;
    if (!(f = fopen(path, "rb")))
        return tplan_err_set(err, TPLAN_EIO, "csv", "cannot open %s: %s",
                             path, strerror(errno));
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) {
        fclose(f);
        return tplan_err_set(err, TPLAN_ENOMEM, "csv", "out of memory");
    }
    /* a line at a time, so that every message knows its line */
    while (!r.rc && (n = read_line(f, &line, &cap, &too_long)) > 0) {
        const char *text = line;
        size_t len = (size_t)n;

        r.line++;
        if (stop_flag && *stop_flag) {
            r.rc = tplan_err_set(err, TPLAN_EINTR, "csv",
                                 "interrupted while reading %s", path);
            break;
        }
        if (r.line == 1 && len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
            text += 3; /* a UTF-8 byte-order mark */
            len -= 3;
        }
        if (csv_parse(&p, text, len, on_field, on_record, &r) != len && !r.rc)
            r.rc = tplan_err_set(
                err, TPLAN_EINVAL, "csv", "%s:%lld: malformed CSV: %s", path,
                (long long)r.line, csv_strerror(csv_error(&p)));
    }
    /* a read the signal cut short, or the line after it */
    if (!r.rc && stop_flag && *stop_flag)
        r.rc = tplan_err_set(err, TPLAN_EINTR, "csv",
                             "interrupted while reading %s", path);
    if (!r.rc && n < 0)
        r.rc = too_long
                   ? tplan_err_set(err, TPLAN_EINVAL, "csv",
                                   "%s:%lld: a line of more than %d bytes "
                                   "(not a CSV catalog?)",
                                   path, (long long)r.line + 1,
                                   TPLAN_CSV_MAX_LINE)
                   : tplan_err_set(err, TPLAN_ENOMEM, "csv", "out of memory");
    free(line);
    if (!r.rc && ferror(f))
        r.rc = tplan_err_set(err, TPLAN_EIO, "csv", "cannot read %s: %s",
                             path, strerror(errno));
    if (!r.rc && csv_fini(&p, on_field, on_record, &r) != 0 && !r.rc)
        r.rc =
            tplan_err_set(err, TPLAN_EINVAL, "csv",
                          "%s:%lld: malformed CSV (an unclosed quote?): "
                          "%s",
                          path, (long long)r.line, csv_strerror(csv_error(&p)));
    if (!r.rc && r.header_n == 0)
        r.rc = tplan_err_set(err, TPLAN_EINVAL, "csv",
                             "%s: no header row (the file is empty)", path);
    clear(&r);
    csv_free(&p);
    fclose(f);
    return r.rc;
}
