/* `tplan merge OUT.db IN.db...`: combine shards (and whole sweeps) into
 * one result database. The checks and the ranking live in db/merge. */
#include "merge.h"

#include <stdio.h>
#include <string.h>

#include "args.h"
#include "interrupt.h"
#include "status.h"
#include "cli_merge.h"

int cmd_merge(int argc, char **argv)
{
    tplan_merge_report rep;
    tplan_err err;
    int rc;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs("usage: tplan merge OUT.db IN.db...\n"
                  "\n"
                  "Combine result databases: the shards of a sweep (tplan "
                  "run\n--shard K/N) become one sweep ranked as the "
                  "unsharded run\nranks it; whole sweeps are copied. Shards "
                  "must all be present,\ncompleted, and of the same sweep; "
                  "otherwise nothing is written.\n",
                  stdout);
            return 0;
        }
        if (argv[i][0] == '-' && argv[i][1] == '-')
            return usage_error("tplan merge: unknown option '%s'; see tplan "
                               "merge --help",
                               argv[i]);
    }
    if (argc < 3)
        return usage_error("tplan merge: give OUT.db and at least one input; "
                           "see tplan merge --help");
    /* SIGINT/SIGTERM: the merge's statements stop, its transaction rolls
     * back, a new OUT is removed (interrupt.h) */
    interrupt_catch();
    rc = tplan_merge(argv[1], (const char *const *)(argv + 2), argc - 2, &rep,
                     &err);
    interrupt_restore();
    if (interrupt_sig) {
        if (rc)
            fprintf(stderr, "tplan: interrupted: the merge was rolled back; "
                    "%s stays as it was\n", argv[1]);
        else
            fprintf(stderr, "tplan: interrupted after the merge committed: "
                    "%s holds it\n", argv[1]);
        return exit_signal(interrupt_sig);
    }
    if (rc)
        return report(&err);
    if (rep.reruns > 0)
        fprintf(stderr,
                "tplan: %lld sweep rows superseded by a later run of "
                "the same shard in the same file were left out\n",
                (long long)rep.reruns);
    if (rep.duplicates > 0)
        fprintf(stderr,
                "tplan: %lld sweeps already in %s (merged before: the same "
                "sweep_key and run times) were skipped\n",
                (long long)rep.duplicates, argv[1]);
    fprintf(stderr,
            "tplan: merged %lld sweep rows into %lld sweeps, %lld "
            "plans, in %s\n",
            (long long)(rep.shards - rep.reruns), (long long)rep.sweeps,
            (long long)rep.plans, argv[1]);
    return 0;
}
