/* The `tplan` program: dispatch to subcommands. A thin front: no
 * modelling logic lives here. */
#include <stdio.h>
#include <stdbool.h>
#include <string.h>

#include "args.h"
#include "calc.h"
#include "calib_cmd.h"
#include "catalog.h"
#include "cli_merge.h"
#include "query.h"
#include "report_cmd.h"
#include "run.h"

static void usage(void)
{
    fputs("usage: tplan COMMAND [OPTIONS]\n"
          "\n"
          "Plan neural-network training runs: memory, batch, parallelism.\n"
          "\n"
          "commands:\n"
          "  run       run a Lua sweep script (tplan run SCRIPT.lua)\n"
          "  calc      one plan from options, as a table or --json\n"
          "  query     SQL on a result database (read-only)\n"
          "  export    a sweep's plans from a result database as CSV\n"
          "  merge     combine shards of sweeps into one database\n"
          "  report    an HTML report of a sweep (charts and the best plans)\n"
          "  gpus      the GPU catalog\n"
          "  models    the model presets\n"
          "  frameworks  the framework profiles (Megatron, DeepSpeed, FSDP, HF)\n"
          "  calibrate a framework profile fitted to runs you measured\n"
          "  fields    every plan field: name, unit, flag, valid values\n"
          "\n"
          "tplan COMMAND --help for a command's options; tplan --version.\n",
          stdout);
}

/* "--opt=value" as "--opt value" for the subcommands that parse options
 * one word at a time (calc reads both itself); nothing after "--" (a
 * script's own arguments) is touched. argv keeps its strings (split in
 * place at '='); the new array is static, sized by the old. */
static char **split_equals(int argc, char **argv, int *out_argc)
{
    static char *split[4096];
    int n = 0;
    bool rest = false;

    if (argc * 2 > (int)(sizeof split / sizeof split[0]))
        return *out_argc = argc, argv;
    for (int i = 0; i < argc; i++) {
        char *eq = rest || strncmp(argv[i], "--", 2) != 0
                       ? NULL
                       : strchr(argv[i], '=');

        rest = rest || strcmp(argv[i], "--") == 0;
        split[n++] = argv[i];
        if (eq && eq > argv[i] + 2) {
            *eq = '\0';
            split[n++] = eq + 1;
        }
    }
    split[n] = NULL;
    *out_argc = n;
    return split;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "calc") != 0)
        argv = split_equals(argc, argv, &argc);
    if (argc < 2) {
        usage();
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage();
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("tplan %s\n", TPLAN_VERSION);
        return 0;
    }
    if (strcmp(argv[1], "run") == 0)
        return cmd_run(argc - 1, argv + 1);
    if (strcmp(argv[1], "query") == 0)
        return cmd_query(argc - 1, argv + 1);
    if (strcmp(argv[1], "export") == 0)
        return cmd_export(argc - 1, argv + 1);
    if (strcmp(argv[1], "merge") == 0)
        return cmd_merge(argc - 1, argv + 1);
    if (strcmp(argv[1], "calc") == 0)
        return cmd_calc(argc - 1, argv + 1);
    if (strcmp(argv[1], "gpus") == 0)
        return cmd_gpus(argc - 1, argv + 1);
    if (strcmp(argv[1], "fields") == 0)
        return cmd_fields(argc - 1, argv + 1);
    if (strcmp(argv[1], "models") == 0)
        return cmd_models(argc - 1, argv + 1);
    if (strcmp(argv[1], "frameworks") == 0)
        return cmd_frameworks(argc - 1, argv + 1);
    if (strcmp(argv[1], "calibrate") == 0)
        return cmd_calibrate(argc - 1, argv + 1);
    if (strcmp(argv[1], "report") == 0)
        return cmd_report(argc - 1, argv + 1);
    return usage_error("unknown command '%s'; see tplan --help", argv[1]);
}
