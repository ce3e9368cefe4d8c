/* realpath (X/Open): report paths follow symbolic links */
#define _XOPEN_SOURCE 700
/* The HTML document of a report (report.h): head, style, sections,
 * tables; written to a temporary and renamed into place. */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fields.h"
#include "json.h"
#include "paths.h"
#include "rank.h"
#include "svg.h"

#define GENERATOR "tplan report"

/* Light and dark, by the reader's setting; marks and parts differ by
 * shape, dash and hatch as well as colour. */
static const char css[] =
    ":root{--fg:#1b1f24;--bg:#ffffff;--muted:#5b6570;--grid:#d8dde3;"
    "--c0:#1f5fbf;--c1:#b8432f;--c2:#2e7d32;--c3:#7b3fa0;--c4:#a86b00;"
    "--c5:#00838f;--c6:#6d4c41;--c7:#546e7a}\n"
    "@media (prefers-color-scheme:dark){:root{--fg:#e6e9ed;--bg:#15181c;"
    "--muted:#9aa4ae;--grid:#333a42;--c0:#7fb0ff;--c1:#ff8a73;--c2:#81c784;"
    "--c3:#ce93d8;--c4:#ffcc66;--c5:#4dd0e1;--c6:#bcaaa4;--c7:#b0bec5}}\n"
    "body{font:15px/1.45 system-ui,sans-serif;color:var(--fg);"
    "background:var(--bg);margin:2em auto;max-width:980px;padding:0 1em}\n"
    "h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.2em;"
    "margin-top:2em;border-bottom:1px solid var(--grid)}\n"
    ".sub,.note{color:var(--muted)}figure{margin:1.5em 0}"
    "figcaption{font-weight:600;margin-bottom:.3em}\n"
    "svg{width:100%;height:auto;color:var(--fg)}\n"
    "svg text{fill:var(--fg);font-size:12px}svg .tick{fill:var(--muted)}"
    "svg .axis{font-size:13px}\n"
    "svg .grid{stroke:var(--grid);stroke-width:1}"
    "svg .frame{fill:none;stroke:var(--muted)}\n"
    "svg .ref{stroke:var(--fg);stroke-width:1.5;stroke-dasharray:6 3}\n"
    "svg .leader{fill:none;stroke:var(--muted);stroke-width:.8}"
    ".mark.open{fill:none;stroke-width:1.8}"
    ".mark.none{fill:none;stroke:var(--c1);stroke-width:2}\n"
    /* a best-by-axis figure's two panels side by side, one above the
     * other on a narrow screen */
    ".panels{display:flex;flex-wrap:wrap;gap:0 1em}"
    ".panels>svg{flex:1 1 360px;width:auto;min-width:0}\n"
    "svg .series polyline{stroke-width:2}svg .series text{stroke:none}\n"
    ".s0{stroke:var(--c0);fill:var(--c0)}.s1{stroke:var(--c1);fill:var(--c1)}"
    ".s2{stroke:var(--c2);fill:var(--c2)}.s3{stroke:var(--c3);fill:var(--c3)}\n"
    "svg .series polyline.s0,svg .series polyline{fill:none}"
    "g.s0 polyline{stroke:var(--c0)}g.s1 polyline{stroke:var(--c1)}"
    "g.s2 polyline{stroke:var(--c2)}g.s3 polyline{stroke:var(--c3)}\n"
    ".mark{fill-opacity:.25;stroke-width:1.2}.mark.hi{fill-opacity:1;"
    "stroke:var(--fg);stroke-width:1.5}\n"
    ".hbg{stroke:none}.hfg{stroke:var(--bg);stroke-width:1.3}\n"
    ".hbg.p0{fill:var(--c0)}.hbg.p1{fill:var(--c1)}.hbg.p2{fill:var(--c2)}"
    ".hbg.p3{fill:var(--c3)}.hbg.p4{fill:var(--c4)}.hbg.p5{fill:var(--c5)}"
    ".hbg.p6{fill:var(--c6)}.hbg.p7{fill:var(--c7)}\n"
    "rect.part{stroke:var(--fg);stroke-width:.8}"
    "rect.part.p0{fill:url(#hatch0)}rect.part.p1{fill:url(#hatch1)}"
    "rect.part.p2{fill:url(#hatch2)}rect.part.p3{fill:url(#hatch3)}"
    "rect.part.p4{fill:url(#hatch4)}rect.part.p5{fill:url(#hatch5)}"
    "rect.part.p6{fill:url(#hatch6)}rect.part.p7{fill:url(#hatch7)}\n"
    "table{border-collapse:collapse;font-size:13px;margin:1em 0}"
    "th,td{padding:.25em .6em;border-bottom:1px solid var(--grid);"
    "text-align:right;white-space:nowrap}th{position:sticky;top:0;"
    "background:var(--bg);white-space:normal;vertical-align:bottom;"
    "min-width:2.5em}th .u{display:block;font-weight:400;"
    "color:var(--muted)}td.t{text-align:left}\n"
    /* a wide table may use the page's width beyond the text column's
     * (a 1400-px window holds 1368 px of it), scrolling only past that */
    ".wide{overflow-x:auto;margin-left:calc(50% - 50vw + 1em);"
    "margin-right:calc(50% - 50vw + 1em)}"
    "@media (max-width:1012px){.wide{margin-left:0;margin-right:0}}\n"
    /* printed (to PDF, A4 or Letter, the printer's choice of size): tables
     * wrap and shrink to the page instead of being clipped, charts fit its
     * width and never split across pages, colours as on a light screen
     * (issue 35) */
    "@page{margin:12mm}\n"
    "@media print{body{max-width:none;margin:0;font-size:9pt}"
    ".wide{overflow:visible;margin:0}table{width:100%;font-size:7pt;"
    "table-layout:auto}th,td{white-space:normal;padding:.15em .3em}"
    "th{position:static}figure,tr{break-inside:avoid}"
    "svg{max-width:100%;height:auto}}\n";

/* A report may replace an earlier tplan report, never another file: a
 * typo in -o must not cost a user a script or a database. */
static int replaceable(const char *path, tplan_err *err)
{
    char head[1024];
    size_t n;
    FILE *f = fopen(path, "rb");

    if (!f)
        return errno == ENOENT
                   ? TPLAN_OK
                   : tplan_err_set(err, TPLAN_EIO, "report", "report: %s: %s",
                                   path, strerror(errno));
    n = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    head[n] = '\0';
    if (!strstr(head, "<meta name=\"generator\" content=\"" GENERATOR "\">"))
        return tplan_err_set(err, TPLAN_EINVAL, "report",
                             "report: %s exists and is not a tplan report: "
                             "give a new file name or remove it",
                             path);
    return TPLAN_OK;
}

/* The head of the document, once r->f is open. */
static void head(report *r, const char *title, const char *subtitle);

int report_open(report *r, const char *path, const char *title,
                const char *subtitle, tplan_err *err)
{
    struct stat st;
    char dir[4096], *real = NULL;
    int rc, fd = tplan_path_fd(path);

    memset(r, 0, sizeof *r);
    /* "-" and the process's own streams (/dev/stdout, /dev/fd/N) are
     * written as they go, as --csv writes them (issue 36: "-" made a file
     * named "-", /dev/stdout >> log replaced the log) */
    if (strcmp(path, "-") == 0 || fd >= 0) {
        int d = strcmp(path, "-") == 0 ? 1 : fd;

        snprintf(r->path, sizeof r->path, "%s", path);
        if (d == 1) {
            r->f = stdout;
        } else if ((d = dup(d)) < 0 || !(r->f = fdopen(d, "w"))) {
            if (d >= 0)
                close(d);
            return tplan_err_set(err, TPLAN_EIO, "report", "report: %s: %s",
                                 path, strerror(errno));
        }
        head(r, title, subtitle);
        return TPLAN_OK;
    }
    /* a link is followed, as --csv follows one: the file it names is
     * replaced and the link stays (issue 36: refused, where the docs said
     * outputs follow links); a link to nothing is refused */
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        if (!(real = realpath(path, NULL)))
            return tplan_err_set(err, TPLAN_EINVAL, "report",
                                 "report: %s is a symbolic link to a file "
                                 "that does not exist: give the file's own "
                                 "path",
                                 path);
        path = real;
    }
    if ((rc = replaceable(path, err))) {
        free(real);
        return rc;
    }
    if (strlen(path) >= sizeof r->path) {
        free(real);
        return tplan_err_set(err, TPLAN_EINVAL, "report",
                             "report: path too long");
    }
    if (strlen(path) >= sizeof r->path)
        return tplan_err_set(err, TPLAN_EINVAL, "report",
                             "report: path too long");
    snprintf(r->path, sizeof r->path, "%s", path);
    free(real);
    path = r->path;
    /* the temporary beside the target, under a short name of its own */
    tplan_path_split(path, dir, sizeof dir);
    snprintf(r->tmp, sizeof r->tmp, "%s/.tplan-report-XXXXXX", dir);
    if ((fd = mkstemp(r->tmp)) < 0 || !(r->f = fdopen(fd, "w"))) {
        int e = errno;

        if (fd >= 0) {
            close(fd);
            unlink(r->tmp);
        }
        return tplan_err_set(err, TPLAN_EIO, "report", "report: %s: %s", path,
                             strerror(e));
    }
    /* mkstemp makes it 0600; a report is for reading, as any new file
     * under the user's umask, or as the report it replaces (issue 36) */
    {
        mode_t mask = umask(0);

        umask(mask);
        (void)fchmod(fd, stat(path, &st) == 0 ? st.st_mode & 07777
                                              : 0666 & ~mask);
    }
    head(r, title, subtitle);
    return TPLAN_OK;
}

static void head(report *r, const char *title, const char *subtitle)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<meta name=\"viewport\" content=\"width=device-width\">"
          "<meta name=\"color-scheme\" content=\"light dark\">"
          "<meta name=\"generator\" content=\"" GENERATOR "\"><title>",
          r->f);
    svg_text(r->f, title);
    fprintf(r->f, "</title><style>\n%s</style></head>\n<body>\n", css);
    svg_style(r->f);
    fputs("<h1>", r->f);
    svg_text(r->f, title);
    fputs("</h1>\n<p class=\"sub\">", r->f);
    svg_text(r->f, subtitle);
    fputs("</p>\n", r->f);
}

void report_section(report *r, const char *heading, const char *text)
{
    fputs("<h2>", r->f);
    svg_text(r->f, heading);
    fputs("</h2>\n", r->f);
    if (text) {
        fputs("<p>", r->f);
        svg_text(r->f, text);
        fputs("</p>\n", r->f);
    }
}

void report_abort(report *r)
{
    if (r->f) {
        if (r->f != stdout)
            fclose(r->f);
        r->f = NULL;
        if (r->tmp[0])
            unlink(r->tmp);
    }
}

int report_close(report *r, tplan_err *err)
{
    int bad;

    fputs("<p class=\"note\">Made by tplan. Every mark carries the value it "
          "draws in data- attributes; the figures are the plan's own (tplan "
          "calc --json, the result database).</p>\n</body></html>\n",
          r->f);
    bad = ferror(r->f) | fflush(r->f);
    if (!r->tmp[0]) { /* a stream: written as it went */
        if (r->f != stdout)
            bad |= fclose(r->f) != 0;
        r->f = NULL;
        return bad ? tplan_err_set(err, TPLAN_EIO, "report",
                                   "report: %s: cannot write", r->path)
                   : TPLAN_OK;
    }
    bad |= fsync(fileno(r->f)) != 0;
    bad |= fclose(r->f) != 0;
    r->f = NULL;
    if (bad || rename(r->tmp, r->path) != 0) {
        int e = errno;

        unlink(r->tmp);
        return tplan_err_set(err, TPLAN_EIO, "report", "report: %s: %s",
                             r->path, strerror(e ? e : EIO));
    }
    return TPLAN_OK;
}

/* A field name less the unit it ends in (names carry units: step_time_s,
 * cost_usd, tokens_per_s), which the heading shows beneath. */
static void cut_unit(char *name)
{
    static const char *const ends[] = {"_per_s", "_bytes", "_usd", "_kwh",
                                       "_s",     "_h",     NULL};
    size_t n = strlen(name);

    for (int i = 0; ends[i]; i++) {
        size_t k = strlen(ends[i]);

        if (n > k && strcmp(name + n - k, ends[i]) == 0) {
            name[n - k] = '\0';
            return;
        }
    }
}

void report_table_begin(report *r, const char *kind, const char *caption, int n,
                        const char *const *heads)
{
    fprintf(r->f, "<div class=\"wide\"><table data-table=\"%s\"><caption>",
            kind);
    svg_text(r->f, caption);
    fputs("</caption><thead><tr>", r->f);
    for (int i = 0; i < n; i++) {
        int id = tplan_field_find(heads[i]);
        const char *unit = id >= 0 ? tplan_field_at(id)->unit : "";
        char label[64];

        /* the field's name as words (its column name in data-field),
         * less the unit it ends in, and its unit beneath: total_bytes
         * is shown in GiB */
        snprintf(label, sizeof label, "%s", heads[i]);
        if (unit && unit[0])
            cut_unit(label);
        for (char *c = label; *c; c++)
            if (*c == '_')
                *c = ' ';
        if (strcmp(heads[i], "total_bytes") == 0)
            unit = "GiB";
        if (id >= 0)
            fprintf(r->f, "<th data-field=\"%s\">", heads[i]);
        else
            fputs("<th>", r->f);
        svg_text(r->f, label);
        if (unit && unit[0] && strcmp(unit, "-") != 0) {
            fputs("<span class=\"u\">", r->f);
            svg_text(r->f, unit);
            fputs("</span>", r->f);
        }
        fputs("</th>", r->f);
    }
    fputs("</tr></thead><tbody>\n", r->f);
}

void report_row_begin(report *r)
{
    fputs("<tr>", r->f);
}

void report_cell_num(report *r, const char *field, double v, const char *shown)
{
    char buf[40];

    if (!isfinite(v)) {
        fprintf(r->f, "<td data-field=\"%s\">-</td>", field);
        return;
    }
    fmt_double(buf, sizeof buf, v);
    fprintf(r->f, "<td data-field=\"%s\" data-value=\"%s\">", field, buf);
    if (shown) {
        svg_text(r->f, shown);
    } else {
        snprintf(buf, sizeof buf, "%.4g", v);
        fputs(buf, r->f);
    }
    fputs("</td>", r->f);
}

void report_cell_text(report *r, const char *field, const char *s)
{
    fprintf(r->f, "<td class=\"t\" data-field=\"%s\">", field);
    svg_text(r->f, s ? s : "-");
    fputs("</td>", r->f);
}

void report_row_end(report *r)
{
    fputs("</tr>\n", r->f);
}

void report_table_end(report *r)
{
    fputs("</tbody></table></div>\n", r->f);
}

void report_pareto(int64_t n, const double *t, const double *cost,
                   const bool *fits, bool *front)
{
    /* the sweeps' own front (engine/rank.c): equal points keep the first */
    tplan_ranked *items = malloc(sizeof *items * (size_t)(n > 0 ? n : 1));
    tplan_front f = {items, (int)n, 0, 2, false};

    for (int64_t i = 0; i < n; i++) {
        tplan_ranked r;

        front[i] = false;
        if (!items || !isfinite(t[i]) || !isfinite(cost[i]))
            continue;
        memset(&r, 0, sizeof r);
        r.index = i;
        r.key[0] = t[i];
        r.key[1] = cost[i];
        r.fits = !fits || fits[i];
        tplan_ranked_standing(&r, true, 0.0f);
        tplan_front_push(&f, &r);
    }
    for (int k = 0; k < f.n; k++)
        front[f.items[k].index] = true;
    free(items);
}
