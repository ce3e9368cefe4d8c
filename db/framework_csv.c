/* Reading framework profiles from CSV (framework_csv.h). Names in a file
 * match ignoring case. */
#include "framework_csv.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "csv_in.h"
#include "csv_out.h"
#include "fields.h"

#define MAX_COLUMNS 64
#define MAX_ROWS    256

typedef struct reader {
    const char *path;
    tplan_framework_fn fn;
    void *ud;
    int ncol;
    char cols[MAX_COLUMNS][64];
    int name_col, source_col, rows;
    char seen[MAX_ROWS][TPLAN_FRAMEWORK_NAME_LEN];
} reader;

static int header(reader *r, int64_t line, int n, const char *const *f,
                  tplan_err *err)
{
    tplan_err e;

    r->name_col = r->source_col = -1;
    if (n > MAX_COLUMNS)
        return tplan_err_set(err, TPLAN_EINVAL, "framework_file",
                             "%s:%lld: more than %d columns", r->path,
                             (long long)line, MAX_COLUMNS);
    for (int i = 0; i < n; i++) {
        if (strlen(f[i]) >= sizeof r->cols[i])
            return tplan_err_set(err, TPLAN_EINVAL, "framework_file",
                                 "%s:%lld: column %d: name too long",
                                 r->path, (long long)line, i + 1);
        for (int j = 0; j < i; j++)
            if (strcmp(r->cols[j], f[i]) == 0)
                return tplan_err_set(err, TPLAN_EINVAL, "framework_file",
                                     "%s:%lld: column %s given twice",
                                     r->path, (long long)line, f[i]);
        snprintf(r->cols[i], sizeof r->cols[i], "%s", f[i]);
        if (strcmp(f[i], "name") == 0) {
            r->name_col = i;
        } else if (strcmp(f[i], "source") == 0) {
            r->source_col = i;
        } else if (tplan_framework_term(f[i], &e) < 0) {
            return tplan_err_set(err, TPLAN_EINVAL, "framework_file",
                                 "%s:%lld: column %s", r->path,
                                 (long long)line, e.msg);
        }
    }
    r->ncol = n;
    if (r->name_col < 0)
        return tplan_err_set(err, TPLAN_EINVAL, "framework_file",
                             "%s:%lld: the header has no name column",
                             r->path, (long long)line);
    return TPLAN_OK;
}

static int row(reader *r, int64_t line, const char *const *f, tplan_err *err)
{
    tplan_framework fw;
    tplan_err e;

    if (tplan_framework_init(&fw, f[r->name_col], &e))
        return tplan_err_set(err, TPLAN_EINVAL, "framework_file",
                             "%s:%lld: %s", r->path, (long long)line, e.msg);
    if (tplan_framework_builtin(fw.name))
        return tplan_err_set(err, TPLAN_EINVAL, "framework_file",
                             "%s:%lld: framework %s is built in: give yours "
                             "a name of its own",
                             r->path, (long long)line, fw.name);
    for (int i = 0; i < r->rows; i++)
        if (strcasecmp(r->seen[i], fw.name) == 0)
            return tplan_err_set(err, TPLAN_EINVAL, "framework_file",
                                 "%s:%lld: framework %s is given twice",
                                 r->path, (long long)line, fw.name);
    if (r->rows == MAX_ROWS)
        return tplan_err_set(err, TPLAN_EINVAL, "framework_file",
                             "%s:%lld: more than %d frameworks", r->path,
                             (long long)line, MAX_ROWS);
    snprintf(r->seen[r->rows++], TPLAN_FRAMEWORK_NAME_LEN, "%s", fw.name);
    if (r->source_col >= 0)
        snprintf(fw.source, sizeof fw.source, "%s", f[r->source_col]);
    for (int i = 0; i < r->ncol; i++) {
        if (i == r->name_col || i == r->source_col || !f[i][0])
            continue;
        if (tplan_framework_set(&fw, r->cols[i], f[i], &e))
            return tplan_err_set(err, TPLAN_EINVAL, "framework_file",
                                 "%s:%lld: %s", r->path, (long long)line,
                                 e.msg);
    }
    return r->fn(r->ud, &fw, err);
}

static int on_record(void *ud, int64_t line, bool is_header, int n,
                     const char *const *fields, tplan_err *err)
{
    reader *r = ud;

    if (is_header)
        return header(r, line, n, fields, err);
    return row(r, line, fields, err);
}

int tplan_framework_csv_read(const char *path, tplan_framework_fn fn,
                             void *ud, tplan_err *err)
{
    reader r;

    memset(&r, 0, sizeof r);
    r.path = path;
    r.fn = fn;
    r.ud = ud;
    return tplan_csv_read(path, on_record, &r, err);
}

typedef struct finder {
    const char *name;
    tplan_framework *out;
    bool found;
} finder;

static int on_framework(void *ud, const tplan_framework *f, tplan_err *err)
{
    finder *fd = ud;

    (void)err;
    if (!fd->found && strcasecmp(f->name, fd->name) == 0) {
        *fd->out = *f;
        fd->found = true;
    }
    return TPLAN_OK;
}

int tplan_framework_csv_find(const char *path, const char *name,
                             tplan_framework *out, tplan_err *err)
{
    finder fd = {name, out, false};
    int rc = tplan_framework_csv_read(path, on_framework, &fd, err);

    if (rc)
        return rc;
    if (!fd.found)
        return tplan_err_set(err, TPLAN_ENOTFOUND, "framework",
                             "framework: %s: not in %s", name, path);
    return TPLAN_OK;
}

int tplan_framework_csv_write(const char *path, const tplan_framework *fw,
                              int n, tplan_err *err)
{
    int cols[TPLAN_MAX_FIELDS], ncol = 0;
    tplan_csv *w;
    char buf[64];

    for (int i = 0; i < n; i++)
        for (int k = 0; k < fw[i].n; k++) {
            int c = 0;

            while (c < ncol && cols[c] != fw[i].set[k].field)
                c++;
            if (c == ncol && ncol < TPLAN_MAX_FIELDS)
                cols[ncol++] = fw[i].set[k].field;
        }
    if (!(w = tplan_csv_create(path, err)))
        return err->code;
    tplan_csv_text(w, "name");
    tplan_csv_text(w, "source");
    for (int c = 0; c < ncol; c++)
        tplan_csv_text(w, tplan_field_at(cols[c])->input);
    if (tplan_csv_end_row(w, err))
        goto fail;
    for (int i = 0; i < n; i++) {
        tplan_csv_text(w, fw[i].name);
        tplan_csv_text(w, fw[i].source);
        for (int c = 0; c < ncol; c++) {
            int k = fw[i].n - 1;

            /* the last setting of a field is the one that counts */
            while (k >= 0 && fw[i].set[k].field != cols[c])
                k--;
            if (k < 0) {
                tplan_csv_null(w);
                continue;
            }
            tplan_fmt_field(buf, sizeof buf, cols[c], fw[i].set[k].value);
            tplan_csv_text(w, buf);
        }
        if (tplan_csv_end_row(w, err))
            goto fail;
    }
    return tplan_csv_close(w, err);
fail:
    tplan_csv_abort(w);
    return err->code;
}
