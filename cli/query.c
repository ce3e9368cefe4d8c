/* `tplan query DB [SQL] [--csv|--json]` and `tplan export DB --csv FILE
 * ...`: read-only connections to a result database. Query prints SQLite's
 * own message for bad SQL (exit 1); export writes RFC 4180 CSV through
 * the same writer as `tplan run --csv`. */
#include "query.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "paths.h"
#include "interrupt.h"
#include "status.h"
#include "csv_out.h"
#include "json.h"
#include "fields.h"
#include "fit_note.h"
#include "store.h"

/* ---- output sinks ----------------------------------------------------- */

typedef enum { OUT_TABLE, OUT_CSV, OUT_JSON } out_mode;


typedef struct sink {
    tplan_err err; /* the sink's own failure (memory, output) */
    out_mode mode;
    tplan_csv *csv;
    json_w json;
    /* table: every cell as text, to align */
    char **cells;
    int ncols;
    size_t n, cap;
    bool *right;
    int64_t rows;
} sink;

static char *cell_text(const tplan_cell *c, bool exact)
{
    char buf[64];

    switch (c->type) {
    case TPLAN_CELL_NULL:
        return strdup("");
    case TPLAN_CELL_INT:
        snprintf(buf, sizeof buf, "%lld", (long long)c->i);
        return strdup(buf);
    case TPLAN_CELL_REAL:
        if (exact)
            tplan_fmt_real(buf, sizeof buf, c->r);
        else
            snprintf(buf, sizeof buf, "%.6g", c->r);
        return strdup(buf);
    default:
        return strdup(c->s);
    }
}

static int out_of_memory(sink *s)
{
    return tplan_err_set(&s->err, TPLAN_ENOMEM, "query", "out of memory");
}

static int push_text(sink *s, char *t)
{
    if (!t)
        return out_of_memory(s);
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        char **grown = realloc(s->cells, sizeof *grown * cap);

        if (!grown) {
            free(t);
            return out_of_memory(s);
        }
        s->cells = grown;
        s->cap = cap;
    }
    s->cells[s->n++] = t;
    return 0;
}

static int on_row(void *ud, int ncols, const char *const *names,
                  const tplan_cell *row)
{
    sink *s = ud;
    int rc;

    if (!row) { /* the header */
        s->ncols = ncols;
        if (s->mode == OUT_CSV) {
            for (int i = 0; i < ncols; i++)
                tplan_csv_text(s->csv, names[i]);
            return tplan_csv_end_row(s->csv, &s->err);
        }
        if (s->mode == OUT_JSON) {
            json_arr_begin(&s->json, NULL);
            return 0;
        }
        s->right = calloc((size_t)(ncols ? ncols : 1), sizeof *s->right);
        for (int i = 0; i < ncols; i++)
            if (!s->right)
                return out_of_memory(s);
            else if ((rc = push_text(s, strdup(names[i]))))
                return rc;
        return 0;
    }
    s->rows++;
    if (s->mode == OUT_CSV) {
        for (int i = 0; i < ncols; i++) {
            const tplan_cell *c = &row[i];

            if (c->type == TPLAN_CELL_INT)
                tplan_csv_int(s->csv, c->i);
            else if (c->type == TPLAN_CELL_REAL)
                tplan_csv_real(s->csv, c->r);
            else if (c->type == TPLAN_CELL_TEXT)
                tplan_csv_text(s->csv, c->s);
            else
                tplan_csv_null(s->csv);
        }
        return tplan_csv_end_row(s->csv, &s->err);
    }
    if (s->mode == OUT_JSON) {
        json_obj_begin(&s->json, NULL);
        for (int i = 0; i < ncols; i++) {
            const tplan_cell *c = &row[i];

            if (c->type == TPLAN_CELL_INT)
                json_int(&s->json, names[i], c->i);
            else if (c->type == TPLAN_CELL_REAL)
                json_num(&s->json, names[i], c->r);
            else if (c->type == TPLAN_CELL_TEXT)
                json_str(&s->json, names[i], c->s);
            else
                json_num(&s->json, names[i], (double)NAN); /* null */
        }
        json_obj_end(&s->json);
        return 0;
    }
    for (int i = 0; i < ncols; i++) {
        if (row[i].type == TPLAN_CELL_INT || row[i].type == TPLAN_CELL_REAL)
            s->right[i] = true;
        if ((rc = push_text(s, cell_text(&row[i], false))))
            return rc;
    }
    return 0;
}

static void print_table(const sink *s)
{
    size_t *w = calloc((size_t)(s->ncols ? s->ncols : 1), sizeof *w);

    if (!w || s->ncols == 0) {
        free(w);
        return;
    }
    for (size_t k = 0; k < s->n; k++) {
        size_t len = strlen(s->cells[k]);

        if (len > w[k % (size_t)s->ncols])
            w[k % (size_t)s->ncols] = len;
    }
    for (size_t k = 0; k < s->n; k++) {
        size_t c = k % (size_t)s->ncols;
        bool last = c + 1 == (size_t)s->ncols;

        if (s->right[c])
            printf("%*s", (int)w[c], s->cells[k]);
        else if (last)
            fputs(s->cells[k], stdout);
        else
            printf("%-*s", (int)w[c], s->cells[k]);
        fputs(last ? "\n" : "  ", stdout);
    }
    free(w);
}

static void sink_free(sink *s)
{
    for (size_t k = 0; k < s->n; k++)
        free(s->cells[k]);
    free(s->cells);
    free(s->right);
}

/* ---- tplan query -------------------------------------------------------- */

/* The latest sweep's best plans, as a readable table: every axis the
 * sweep varied first (read from its row: two plans never look alike for
 * want of the axis that tells them apart), then the usual figures. Plans
 * that fit first, unless the sweep mixed them (fits_first = 0); a file of
 * an older build, whose ranks mixed them, is shown fitting first too. */
static const struct {
    const char *field, *expr;
} default_cols[] = {
    {"gpu", "gpu"},
    {"gpus", "gpus"},
    {"tp", "tp"},
    {"pp", "pp"},
    {"dp", "dp"},
    {"zero", "zero"},
    {"precision", "precision"},
    {"recompute", "recompute"},
    {"seq", "seq"},
    {"micro_batch", "micro_batch AS mb"},
    {"accum", "accum"},
    {"global_batch", "global_batch"},
    {"total_bytes", "round(total_bytes / 1073741824.0, 2) AS gib"},
    {"fits", "fits"},
    {"step_time_s", "round(step_time_s, 3) AS step_s"},
    {"mfu", "round(mfu, 3) AS mfu"},
    {"time_h", "round(time_h / 24.0, 2) AS days"},
    {"cost_usd", "round(cost_usd) AS cost_usd"},
};
#define N_DEFAULT_COLS (sizeof default_cols / sizeof default_cols[0])

typedef struct latest {
    int64_t id;
    char axes[640];
    bool mixed; /* fits_first = 0 */
    bool print; /* say which sweep (the table's first line) */
    char head[400]; /* that line, printed once the query has run */
} latest;

/* A sweep row's axes and fits_first cells (tplan_store_sweep_spec_cols)
 * into l. */
static void spec_cells(latest *l, const tplan_cell *c)
{
    snprintf(l->axes, sizeof l->axes, "%s",
             c[0].type == TPLAN_CELL_TEXT ? c[0].s : "");
    l->mixed = c[1].type == TPLAN_CELL_INT && c[1].i == 0;
}

static int read_latest(void *ud, int ncols, const char *const *names,
                       const tplan_cell *row)
{
    latest *l = ud;

    (void)ncols;
    (void)names;
    if (!row)
        return 0;
    l->id = row[0].i;
    spec_cells(l, &row[5]);
    if (l->print)
        snprintf(l->head, sizeof l->head,
                 "sweep %lld '%s': %lld kept of %lld evaluated (%s)\n",
               (long long)row[0].i, row[1].s,
               (long long)(row[2].type == TPLAN_CELL_INT ? row[2].i : 0),
               (long long)(row[3].type == TPLAN_CELL_INT ? row[3].i : 0),
               row[4].i ? "completed"
                        : "NOT completed: the run stopped before it finished");
    return 0;
}

/* The expression that shows field name in the default view. */
static const char *default_expr(const char *name)
{
    for (size_t i = 0; i < N_DEFAULT_COLS; i++)
        if (strcmp(default_cols[i].field, name) == 0)
            return default_cols[i].expr;
    return NULL;
}

/* The default view's SELECT for sweep l into sql. */
static void default_sql(const latest *l, char *sql, size_t len)
{
    size_t n = (size_t)snprintf(sql, len, "SELECT rank");
    const char *p = l->axes;
    char name[64];

    while (n < len && tplan_list_next(&p, name, sizeof name)) {
        const char *e = default_expr(name);

        if (tplan_field_find(name) < 0)
            continue; /* not a column of this build: never pasted */
        n += (size_t)snprintf(sql + n, len - n, ", %s", e ? e : name);
    }
    for (size_t i = 0; i < N_DEFAULT_COLS && n < len; i++)
        if (!tplan_list_has(l->axes, default_cols[i].field))
            n += (size_t)snprintf(sql + n, len - n, ", %s",
                                  default_cols[i].expr);
    if (n < len)
        snprintf(sql + n, len - n,
                 " FROM plans WHERE sweep_id = %lld AND rank IS NOT NULL "
                 "ORDER BY %srank LIMIT 20",
                 (long long)l->id, l->mixed ? "" : "fits = 0, ");
}

/* The closest plan's line where no kept plan fits: its axes and how far
 * it is from fitting. */
typedef struct closest {
    char line[1024];
} closest;

static int read_closest(void *ud, int ncols, const char *const *names,
                        const tplan_cell *row)
{
    closest *c = ud;
    size_t n = 0;
    char gap[160];

    if (!row || c->line[0])
        return 0;
    if (row[0].type != TPLAN_CELL_INT || row[0].i != 0)
        return 0; /* a kept plan fits */
    for (int i = 5; i < ncols && n < sizeof c->line; i++) {
        char *t = cell_text(&row[i], false);

        n += (size_t)snprintf(c->line + n, sizeof c->line - n, "%s%s %s",
                              n ? ", " : "", names[i], t ? t : "");
        free(t);
    }
    fit_gap_text(gap, sizeof gap, row[1].i, row[2].i, row[3].i,
                 tplan_store_host_bytes(&row[4]));
    if (n < sizeof c->line)
        snprintf(c->line + n, sizeof c->line - n, "%s%s", n ? " " : "", gap);
    return 0;
}

/* Where no kept plan of sweep l fits: "no plan fits; the closest: ..."
 * into c->line (empty when one fits). */
static int find_closest(tplan_store *db, const latest *l, closest *c,
                        tplan_err *err)
{
    char sql[2048];
    size_t n = (size_t)snprintf(sql, sizeof sql,
                                "SELECT fits, total_bytes, usable_bytes, "
                                "host_bytes, host_memory_gib");
    const char *p = l->axes;
    char name[64];

    c->line[0] = '\0';
    while (n < sizeof sql && tplan_list_next(&p, name, sizeof name)) {
        if (tplan_field_find(name) >= 0)
            n += (size_t)snprintf(sql + n, sizeof sql - n, ", %s", name);
    }
    if (n < sizeof sql)
        snprintf(sql + n, sizeof sql - n,
                 " FROM plans WHERE sweep_id = %lld AND rank IS NOT NULL "
                 "ORDER BY fits DESC, rank LIMIT 1",
                 (long long)l->id);
    return tplan_store_query(db, sql, NULL, 0, read_closest, c, err);
}

static void query_usage(void)
{
    fputs("usage: tplan query DB [SQL] [--csv|--json]\n"
          "\n"
          "Run one SQL statement on a result database, read-only. Without\n"
          "SQL: the best plans of the latest sweep. Tables: sweeps, plans;\n"
          "view best_plans (see db/schema.sql).\n",
          stdout);
}

int cmd_query(int argc, char **argv)
{
    const char *path = NULL, *sql = NULL;
    latest last = {-1, "", false, false, ""};
    closest near = {""};
    char def[4096];
    sink s;
    tplan_store *db;
    tplan_err err;
    int rc, rc2;

    memset(&s, 0, sizeof s);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            query_usage();
            return 0;
        }
        if (strcmp(argv[i], "--csv") == 0)
            s.mode = OUT_CSV;
        else if (strcmp(argv[i], "--json") == 0)
            s.mode = OUT_JSON;
        else if (argv[i][0] == '-' && argv[i][1] == '-')
            return usage_error("tplan query: unknown option '%s'; see tplan "
                               "query --help",
                               argv[i]);
        else if (!path)
            path = argv[i];
        else if (!sql)
            sql = argv[i];
        else
            return usage_error("tplan query: one SQL statement, quoted "
                               "('%s' is extra)",
                               argv[i]);
    }
    if (!path)
        return usage_error("tplan query: give a database; see tplan query "
                           "--help");
    if (!(db = tplan_store_open_ro(path, &err)))
        return report(&err);
    if (!sql) {
        char head[256];

        snprintf(head, sizeof head,
                 "SELECT id, name, kept, evaluated, completed, %s FROM "
                 "sweeps ORDER BY id DESC LIMIT 1",
                 tplan_store_sweep_spec_cols(db));
        last.print = s.mode == OUT_TABLE;
        if (tplan_store_query(db, head, NULL, 0, read_latest, &last, &err) ||
            (last.id >= 0 && !last.mixed &&
             find_closest(db, &last, &near, &err))) {
            tplan_store_close(db);
            return report(&err);
        }
        default_sql(&last, def, sizeof def);
        if (near.line[0] && s.mode != OUT_TABLE)
            fprintf(stderr, "tplan: warning: no plan fits; the closest: %s\n",
                    near.line);
    }
    if (s.mode == OUT_CSV && !(s.csv = tplan_csv_create("-", &err))) {
        tplan_store_close(db);
        return report(&err);
    }
    if (s.mode == OUT_JSON)
        json_init(&s.json, stdout);
    rc = tplan_store_query(db, sql ? sql : def, NULL, 0, on_row, &s, &err);
    if (rc == TPLAN_OK) {
        /* the sweep's line and the closest plan only above a table that
         * follows: a query that fails prints nothing on stdout */
        fputs(last.head, stdout);
        if (near.line[0] && s.mode == OUT_TABLE)
            printf("no plan fits; the closest: %s\n", near.line);
        if (s.mode == OUT_TABLE)
            print_table(&s);
        else if (s.mode == OUT_JSON) {
            json_arr_end(&s.json);
            putchar('\n');
        }
    } else {
        fprintf(stderr, "tplan: query: %s\n",
                s.err.code ? s.err.msg : err.msg);
    }
    if (s.csv && (rc2 = tplan_csv_close(s.csv, &err)) && rc == TPLAN_OK) {
        fprintf(stderr, "tplan: %s\n", err.msg);
        rc = rc2;
    }
    sink_free(&s);
    tplan_store_close(db);
    return exit_status(rc);
}

/* ---- tplan export ---------------------------------------------------------
 */

static void export_usage(void)
{
    fputs("usage: tplan export DB --csv FILE [--sweep NAME|ID] [--top N]\n"
          "                    [--where SQL] [--columns a,b,c]\n"
          "\n"
          "Write a sweep's plans (default: the latest sweep, every plan, best\n"
          "first) as RFC 4180 CSV: the header of `tplan run --csv`, numbers\n"
          "that read back exactly. --where filters with an SQL condition on\n"
          "the plan columns; --columns picks and orders columns.\n",
          stdout);
}

static int find_sweep(void *ud, int ncols, const char *const *names,
                      const tplan_cell *row)
{
    (void)ncols;
    (void)names;
    if (row) {
        ((int64_t *)ud)[0] = row[0].i;
        ((int64_t *)ud)[1] = row[1].type == TPLAN_CELL_INT ? row[1].i : 0;
    }
    return 0;
}

static int read_spec(void *ud, int ncols, const char *const *names,
                     const tplan_cell *row)
{
    latest *l = ud;

    (void)ncols;
    (void)names;
    if (row)
        spec_cells(l, row);
    return 0;
}

/* The axes and fits_first of sweep id into l (no axes, fits first for a
 * row of an older build). */
static int sweep_spec(tplan_store *db, int64_t id, latest *l, tplan_err *err)
{
    char sql[160];
    tplan_cell param = {TPLAN_CELL_INT, id, 0, NULL};

    snprintf(sql, sizeof sql, "SELECT %s FROM sweeps WHERE id = ?1",
             tplan_store_sweep_spec_cols(db));
    l->id = id;
    l->axes[0] = '\0';
    l->mixed = false;
    return tplan_store_query(db, sql, &param, 1, read_spec, l, err);
}

/* A column export may name: the plan fields and the row's own. */
static bool known_column(const char *c)
{
    static const char *const own[] = {"sweep", "rank", "config_index", "pareto",
                                      "score", "key1", "key2",         "key3",
                                      "key4",  NULL};

    for (int i = 0; own[i]; i++)
        if (strcmp(c, own[i]) == 0)
            return true;
    return tplan_field_find(c) >= 0;
}

/* The SELECT list: "s.name AS sweep, p.rank, p.model..." */
static int select_list(const char *columns, char *out, size_t len)
{
    size_t n = 0;

    if (!columns) { /* the plan fields follow once the file is open */
        snprintf(out, len, "s.name AS sweep, p.rank");
        return 0;
    }
    out[0] = '\0';
    if (!columns[0] || columns[strlen(columns) - 1] == ',')
        return usage_error("--columns takes names separated by commas "
                           "(--columns '%s')",
                           columns);
    for (const char *c = columns; *c;) {
        const char *end = strchr(c, ',');
        size_t k = end ? (size_t)(end - c) : strlen(c);
        char name[64];

        if (k == 0 || k >= sizeof name)
            return usage_error("--columns takes names separated by commas "
                               "(--columns %s)",
                               columns);
        memcpy(name, c, k);
        name[k] = '\0';
        if (!known_column(name))
            return usage_error("--columns: unknown column '%s'; the plan "
                               "columns are the CSV header's",
                               name);
        n += (size_t)snprintf(out + n, len - n, "%s%s%s", n ? ", " : "",
                              strcmp(name, "sweep") == 0 ? "s.name AS " : "p.",
                              name);
        if (n >= len)
            return usage_error("--columns: too many columns");
        c += k + (end ? 1 : 0);
    }
    return 0;
}

/* --where is pasted into the query: it must stay one condition, so it
 * cannot close the sweep filter's parenthesis or end the statement. */
static bool where_is_one_condition(const char *w)
{
    int depth = 0;
    char quote = 0;

    for (const char *p = w; *p; p++) {
        if (quote) {
            if (*p == quote)
                quote = 0;
        } else if (*p == '\'' || *p == '"') {
            quote = *p;
        } else if (*p == '(') {
            depth++;
        } else if (*p == ')') {
            if (--depth < 0)
                return false;
        } else if (*p == ';' || (p[0] == '-' && p[1] == '-') ||
                   (p[0] == '/' && p[1] == '*')) {
            return false;
        }
    }
    return depth == 0 && !quote;
}

int cmd_export(int argc, char **argv)
{
    const char *path = NULL, *csv = NULL, *sweep = NULL, *where = NULL;
    const char *columns = NULL;
    int64_t top = 0, found[2] = {-1, 0}, id;
    char cols[8192], *sql = NULL;
    latest spec = {-1, "", false, false, ""};
    closest near = {""};
    tplan_cell param;
    tplan_store *db = NULL;
    tplan_err err;
    sink s;
    int rc = 1;

    memset(&s, 0, sizeof s);
    s.mode = OUT_CSV;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **slot = NULL;

        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            export_usage();
            return 0;
        }
        if (strcmp(a, "--csv") == 0)
            slot = &csv;
        else if (strcmp(a, "--sweep") == 0)
            slot = &sweep;
        else if (strcmp(a, "--where") == 0)
            slot = &where;
        else if (strcmp(a, "--columns") == 0)
            slot = &columns;
        if (slot || strcmp(a, "--top") == 0) {
            if (i + 1 >= argc)
                return usage_error("%s needs a value", a);
            if (slot)
                *slot = argv[++i];
            else if (parse_count("--top", argv[++i], 1, &top))
                return 2;
        } else if (a[0] == '-' && a[1] == '-') {
            return usage_error("tplan export: unknown option '%s'; see tplan "
                               "export --help",
                               a);
        } else if (!path) {
            path = a;
        } else {
            return usage_error("tplan export: one database ('%s' is extra)", a);
        }
    }
    if (!path || !csv)
        return usage_error("tplan export: give a database and --csv FILE; "
                           "see tplan export --help");
    if (strcmp(csv, "-") != 0 && tplan_same_file(csv, path))
        return usage_error("tplan export: --csv %s is the database itself: "
                           "refusing to write over it",
                           csv);
    if (select_list(columns, cols, sizeof cols))
        return 2;
    if (where && !where_is_one_condition(where))
        return usage_error("--where takes one SQL condition on the plan "
                           "columns: balanced parentheses and quotes, no ';' "
                           "or comments (--where %s)",
                           where);
    if (!(db = tplan_store_open_ro(path, &err)))
        goto fail;
    /* the sweep: an id, else the latest of that name, else the latest */
    param.type = TPLAN_CELL_TEXT;
    param.s = sweep;
    if (tplan_store_query(db,
                          sweep ? "SELECT id, completed FROM sweeps WHERE "
                                  "CAST(id AS TEXT) = ?1 OR name = ?1 ORDER "
                                  "BY (CAST(id AS TEXT) = ?1) DESC, id DESC "
                                  "LIMIT 1"
                                : "SELECT id, completed FROM sweeps ORDER BY "
                                  "id DESC LIMIT 1",
                          &param, sweep ? 1 : 0, find_sweep, found, &err))
        goto fail;
    id = found[0];
    /* the sweep's axes lead: what tells its plans apart; where no kept
     * plan fits, the closest is named */
    if (id >= 0 && (sweep_spec(db, id, &spec, &err) ||
                    (!spec.mixed && find_closest(db, &spec, &near, &err))))
        goto fail;
    if (!columns && id >= 0 &&
        !tplan_store_plan_select(db, "p.", spec.axes, cols, sizeof cols)) {
        tplan_err_set(&err, TPLAN_EINVAL, "db", "cannot list the columns of %s",
                      path);
        goto fail;
    }
    if (near.line[0])
        fprintf(stderr, "tplan: warning: no plan fits; the closest: %s\n",
                near.line);
    if (id >= 0 && !found[1])
        fprintf(stderr,
                "tplan: warning: sweep %lld did not complete (the run "
                "stopped before it finished): its plans are partial\n",
                (long long)id);
    if (id < 0) {
        tplan_err_set(&err, TPLAN_EINVAL, "sweep",
                      sweep ? "no sweep '%s' in %s" : "no sweeps in %s%s",
                      sweep ? sweep : "", path);
        goto fail;
    }
    {
        size_t len = strlen(cols) + (where ? strlen(where) : 0) + 512;

        if (!(sql = malloc(len))) {
            tplan_err_set(&err, TPLAN_ENOMEM, "export", "out of memory");
            goto fail;
        }
        snprintf(sql, len,
                 "SELECT %s FROM plans p JOIN sweeps s ON s.id = p.sweep_id "
                 "WHERE p.sweep_id = %lld%s%s%s ORDER BY p.rank IS NULL, "
                 "%sp.rank, p.config_index%s%lld",
                 cols, (long long)id, where ? " AND (" : "", where ? where : "",
                 where ? ")" : "", spec.mixed ? "" : "p.fits = 0, ",
                 top ? " LIMIT " : "", (long long)top);
        if (!top) /* no LIMIT: cut the trailing 0 */
            sql[strlen(sql) - 1] = '\0';
    }
    /* SIGINT/SIGTERM from here: the query stops, the temporary goes, the
     * file that was there stays (interrupt.h) */
    interrupt_catch();
    if (!(s.csv = tplan_csv_create(csv, &err)))
        goto fail;
    interrupt_set_tmp(tplan_csv_tmp_path(s.csv));
    if ((rc = tplan_store_query(db, sql, NULL, 0, on_row, &s, &err)) ||
        interrupt_sig) {
        tplan_csv_abort(s.csv); /* no partial file under the name */
        s.csv = NULL;
        if (interrupt_sig)
            goto stopped;
        if (s.err.code)
            err = s.err;
        else if (where) { /* the user's SQL is the likely culprit */
            char msg[sizeof err.msg];

            snprintf(msg, sizeof msg, "%s", err.msg);
            tplan_err_set(&err, TPLAN_EINVAL, "where", "--where %s: %s", where,
                          msg);
        }
        goto fail;
    }
    rc = tplan_csv_close(s.csv, &err);
    s.csv = NULL;
    interrupt_set_tmp(NULL);
    if (rc)
        goto fail;
    fprintf(stderr, "tplan: wrote %lld plans to %s\n", (long long)s.rows, csv);
    free(sql);
    tplan_store_close(db);
    interrupt_restore();
    return 0;
stopped:
    free(sql);
    tplan_store_close(db);
    interrupt_restore();
    fprintf(stderr, "tplan: interrupted: the export stopped; %s%s\n", csv,
            strcmp(csv, "-") ? " stays as it was" : " got part of the rows");
    return exit_signal(interrupt_sig);
fail:
    free(sql);
    tplan_store_close(db);
    interrupt_restore();
    if (interrupt_sig && err.code == TPLAN_EINTR) {
        fprintf(stderr, "tplan: interrupted: the export stopped; %s stays "
                "as it was\n", csv);
        return exit_signal(interrupt_sig);
    }
    return report(&err);
}
