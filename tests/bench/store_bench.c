/* Writer benchmark: plan rows per second into a result database and a
 * CSV file, through the same writers `tplan run --db/--csv` use (prepared
 * statement, 50,000-row transactions; buffered RFC 4180 text). The plans
 * are evaluated once beforehand, so this times the writers alone; a sweep
 * also re-evaluates each kept plan in full before writing it.
 * Usage: bench_store [ROWS] [DIR] [sqlite|csv]
 *        (default 1000000 rows, /tmp, both) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "csv_out.h"
#include "plan.h"
#include "fields.h"
#include "store.h"

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    long long rows = argc > 1 ? atoll(argv[1]) : 1000000;
    const char *dir = argc > 2 ? argv[2] : "/tmp";
    const char *only = argc > 3 ? argv[3] : "";
    static tplan_plan plans[4];
    static const char *const gpus[4] = {"a100-80g", "h100-sxm", "h200", "l40s"};
    char db_path[512], csv_path[512];
    double keys[2] = {0, 0}, t;
    tplan_sweep_meta m;
    tplan_sweep_stats st;
    tplan_store *db;
    tplan_csv *csv;
    tplan_err err;
    int64_t id;

    if (rows < 1) {
        fprintf(stderr, "bench_store: ROWS must be >= 1\n");
        return 2;
    }
    for (int i = 0; i < 4; i++) {
        tplan_config c;

        memset(&c, 0, sizeof c);
        tplan_model_preset("llama3-8b", &c.model, NULL);
        tplan_gpu_lookup(gpus[i], &c.gpu, NULL);
        tplan_config_init(&c);
        c.seq = 8192;
        c.gpus = 8 << i;
        c.zero = 3;
        c.micro_batch = 0;
        c.tokens = 1e12;
        if (tplan_plan_eval(&c, &plans[i], &err)) {
            fprintf(stderr, "bench_store: %s\n", err.msg);
            return 1;
        }
    }
    snprintf(db_path, sizeof db_path, "%s/tplan_bench_%d.db", dir,
             (int)getpid());
    snprintf(csv_path, sizeof csv_path, "%s/tplan_bench_%d.csv", dir,
             (int)getpid());

    if (strcmp(only, "csv") == 0)
        goto csv_part;
    memset(&m, 0, sizeof m);
    m.name = "bench";
    m.sweep_key = "bench";
    m.rank_by = "cost_usd,time_h";
    m.keep = "all";
    m.shards = 1;
    m.space = rows;
    memset(&st, 0, sizeof st);
    if (!(db = tplan_store_open(db_path, &err)) ||
        tplan_store_sweep_begin(db, &m, &id, &err)) {
        fprintf(stderr, "bench_store: %s\n", err.msg);
        return 1;
    }
    t = now_s();
    for (long long i = 0; i < rows; i++) {
        keys[0] = (double)i;
        if (tplan_store_plan(db, id, i + 1, i, false, 0.0, keys, 2,
                             &plans[i & 3], &err)) {
            fprintf(stderr, "bench_store: %s\n", err.msg);
            return 1;
        }
    }
    if (tplan_store_sweep_finish(db, id, &st, rows, &err)) {
        fprintf(stderr, "bench_store: %s\n", err.msg);
        return 1;
    }
    t = now_s() - t;
    tplan_store_close(db);
    printf("sqlite  %lld rows in %.2f s: %.0f rows/s (%d columns)\n", rows, t,
           (double)rows / t, 9 + tplan_field_count());

    if (strcmp(only, "sqlite") == 0)
        goto done;
csv_part:
    if (!(csv = tplan_csv_open(csv_path, &err))) {
        fprintf(stderr, "bench_store: %s\n", err.msg);
        return 1;
    }
    t = now_s();
    for (long long i = 0; i < rows; i++)
        if (tplan_csv_row(csv, "bench", i + 1, &plans[i & 3], &err)) {
            fprintf(stderr, "bench_store: %s\n", err.msg);
            return 1;
        }
    if (tplan_csv_close(csv, &err)) {
        fprintf(stderr, "bench_store: %s\n", err.msg);
        return 1;
    }
    t = now_s() - t;
    printf("csv     %lld rows in %.2f s: %.0f rows/s\n", rows, t,
           (double)rows / t);
done:
    unlink(db_path);
    unlink(csv_path);
    return 0;
}
