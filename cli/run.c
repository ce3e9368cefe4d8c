/* `tplan run SCRIPT.lua`: a Lua 5.4 state with the standard libraries
 * and the tplan module preloaded, the script's arguments in `arg`, the
 * whole script under one protected call. A script error prints
 * "tplan: file:line: message" once (--traceback adds the stack) and exits
 * 1. SIGINT or SIGTERM ends the running sweep cleanly, keeping the plans
 * found so far, and the script goes on to print or save them; outside a
 * sweep it stops the Lua code at its next instruction. The exit status is
 * then 130 (143 for SIGTERM). A second signal, a second or more after the
 * first, stops the script itself, or ends the process at once when the
 * script was told to stop already. */
/* realpath (X/Open): the ready scripts' directory named plainly */
#define _XOPEN_SOURCE 700
#include "run.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "args.h"
#include "csv_in.h"
#include "script_limits.h"
#include "progress.h"
#include "run_outputs.h"
#include "status.h"
#include "store.h"
#include "sha256.h"
#include "tplan_lua.h"

/* SQLite heap the run's own --db writer may use beyond --max-memory under
 * --safe (cmd_run) */
#define SQLITE_RUN_ALLOWANCE ((int64_t)64 << 20)

static volatile sig_atomic_t stop_signal;
/* signals that count (not a repeat within a second of the first): one
 * arriving while a file is written cancels that write (run_outputs.c) */
static volatile sig_atomic_t signal_count;
static lua_State *signal_state;
/* 1 while a sweep walks (tplan_lua_options.sweeping) */
static volatile sig_atomic_t sweeping;
/* the --csv file's temporary, removed when a signal ends the process: a
 * copy of its name (the writer's own may be freed by an abort first) */
static char csv_tmp_name[4200];
static const char *volatile csv_tmp;

/* End the process from the signal handler: the --csv temporary goes
 * (unlink and _exit are async-signal-safe), committed sweeps stay. */
static void end_now(const char *msg, size_t len)
{
    if (csv_tmp)
        unlink(csv_tmp);
    if (write(STDERR_FILENO, msg, len) < 0)
        _exit(exit_signal(stop_signal));
    _exit(exit_signal(stop_signal));
}

static void run_usage(void)
{
    fputs("usage: tplan run SCRIPT.lua [OPTIONS] [-- ARGS...]\n"
          "\n"
          "Run a Lua sweep script. The module `tplan` is preloaded; the\n"
          "script's arguments are in `arg` (arg[0] is the script). A NAME\n"
          "that is no file here and has no '/' is a ready script installed\n"
          "with tplan (`tplan run max_batch`: share/tplan/scripts).\n"
          "\n"
          "options:\n"
          "  --threads N       threads for sweeps without a Lua hook "
          "(default: the cores)\n"
          "  --shard K/N       evaluate only configurations whose index % N "
          "== K\n"
          "                    (default: the Slurm array task, when in one)\n"
          "  --csv FILE        also write every sweep's kept plans to FILE\n"
          "  --db FILE         and into a result database (created when new)\n"
          "  --traceback       print the Lua stack with a script error\n"
          "  --timeout S       stop the script and its sweep after S seconds "
          "(exit 124)\n"
          "  --max-memory MIB  cap the Lua state (default 8192 MiB)\n"
          "  --safe            for scripts you did not write: no processes, "
          "no native\n"
          "                    modules, no bytecode, no file writes but "
          "--csv/--db\n"
          "  --yes             run sweeps of more than 1e9 configurations\n"
          "\n"
          "Every option also takes --opt=value.\n"
          "Ctrl-C ends the running sweep and keeps the plans found so far\n"
          "(exit 130); a second Ctrl-C a second later stops the script.\n",
          stdout);
}

/* Everything one `tplan run` holds: its options, outputs, limits and the
 * Lua state's progress bar. */
typedef struct run_ctx {
    const char *script; /* argv's, or found: points into found */
    char found[4096];   /* a ready script found by name (find_script) */
    char looked[4200];  /* where find_script looked in vain ("": nowhere) */
    int first_arg, argc; /* script arguments: argv[first_arg..argc) */
    char **argv;
    bool traceback, shard_given;
    unsigned timeout;
    mem_cap cap;
    tplan_lua_options lo;
    run_outputs out;
    progress bar;
    char sha[65];
    char *args; /* owned: the arguments joined, for provenance */
    char *src;  /* owned: the script's bytes, read once */
    size_t src_len;
    bool ending; /* outputs finished, the state closing: os.exit in a
                    finaliser must not finish them again, and may make a
                    success a failure but never a failure a success */
    int status;  /* the run's status when ending */
    bool out_closed; /* print met a closed standard output (EPIPE) */
} run_ctx;

/* os.exit for scripts: finish the run's output files first (rename the
 * --csv file into place, close the --db), so that exiting early never
 * leaves a temporary file or loses the sweeps that completed. */
static int os_exit(lua_State *L)
{
    run_ctx *ctx = lua_touserdata(L, lua_upvalueindex(1));
    int status = lua_isboolean(L, 1)
                     ? (lua_toboolean(L, 1) ? EXIT_SUCCESS : EXIT_FAILURE)
                     : (int)luaL_optinteger(L, 1, EXIT_SUCCESS);
    tplan_err err;

    if (ctx->ending) {
        /* a finaliser while the run ends: the outputs are finished; a
         * failure it reports stands, it cannot undo the run's own */
        if (ctx->status == EXIT_SUCCESS && status != EXIT_SUCCESS) {
            fflush(stdout);
            exit(status);
        }
        return 0;
    }
    csv_tmp = NULL; /* finishing renames or removes it */
    if (outputs_finish(&ctx->out, status != EXIT_SUCCESS, &err)) {
        fprintf(stderr, "tplan: %s: %s\n", err.field, err.msg);
        if (status == EXIT_SUCCESS)
            status = exit_status(err.code);
    }
    fflush(stdout);
    /* finalisers run by the close meet a finished run */
    ctx->ending = true;
    ctx->status = status;
    if (lua_toboolean(L, 2))
        lua_close(L);
    exit(status);
}

/* print for scripts: Lua's own (upvalue 2), then a check that the line
 * reached standard output. SIGPIPE is ignored during a run (a reader
 * such as `head -1` that closes the pipe must not kill the process before
 * the --csv file is renamed into place), so a closed output shows as a
 * failed write (EPIPE); the script stops there with one line saying so,
 * and cmd_run exits 141 (128 + SIGPIPE, what a shell shows for a process
 * a broken pipe ended) after finishing the outputs. */
static int checked_print(lua_State *L)
{
    run_ctx *ctx = lua_touserdata(L, lua_upvalueindex(1));
    int n = lua_gettop(L);

    lua_pushvalue(L, lua_upvalueindex(2));
    lua_insert(L, 1);
    lua_call(L, n, 0);
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    {
        int e = errno;

        clearerr(stdout);
        ctx->out_closed = ctx->out_closed || e == EPIPE;
        return luaL_error(L, "print: %s: %s; stopping the script",
                          e == EPIPE ? "output closed" : "cannot write",
                          strerror(e));
    }
}

/* A second signal: raise an error at the next Lua instruction. */
static void stop_hook(lua_State *L, lua_Debug *ar)
{
    const char *why =
        stop_signal == SIGALRM ? "stopped: --timeout passed" : "interrupted";

    /* the hook stays: a pcall that catches this error meets it again at
     * its next instruction, so no loop can swallow the stop */
    if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0)
        luaL_error(L, "%s:%d: %s", ar->short_src, ar->currentline, why);
    luaL_error(L, "%s", why);
}

/* Seconds a script gets to reach a Lua instruction after the stop (a C
 * call such as a pathological pattern match cannot be interrupted); then
 * tplan exits at once. Committed database sweeps stay; --csv is lost. */
#define HARD_STOP_S 5

static volatile sig_atomic_t hard_stop;

/* Stop the Lua code: a count hook on every instruction (coroutines made
 * from now on inherit it), and the hard-stop alarm behind it. */
static void stop_lua(void)
{
    if (signal_state)
        lua_sethook(signal_state, stop_hook, LUA_MASKCOUNT, 1);
    hard_stop = 1;
    alarm(HARD_STOP_S);
}

/* The first signal sets the stop flag that sweeps poll. A second one at
 * least a second later (one keypress can reach the process twice, from
 * the terminal and from a parent signalling its process group) also stops
 * the Lua code. --timeout's SIGALRM stops both at once. If the script has
 * not stopped HARD_STOP_S seconds later, the next SIGALRM ends the
 * process. clock_gettime, alarm, write and _exit are async-signal-safe
 * (POSIX). */
static void on_signal(int sig)
{
    static const char msg[] =
        "tplan: the script did not stop within 5 s (a long call in C?): "
        "exiting now; committed database sweeps are kept\n";
    static struct timespec first;
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    if (sig == SIGALRM) {
        if (hard_stop)
            end_now(msg, sizeof msg - 1);
        stop_signal = sig; /* --timeout: stop sweeps and the script now */
        signal_count++;
        stop_lua();
        return;
    }
    if (!stop_signal) {
        first = now;
        stop_signal = sig;
        signal_count++;
        /* a sweep stops at its next poll and returns what it found; Lua
         * code (a loop, a catalog load, a write) stops at its next
         * instruction */
        if (!sweeping)
            stop_lua();
        return;
    }
    if (now.tv_sec - first.tv_sec >= 1 &&
        (now.tv_sec - first.tv_sec > 1 || now.tv_nsec >= first.tv_nsec)) {
        static const char again[] = "tplan: interrupted again: exiting now; "
                                    "committed database sweeps are kept\n";

        signal_count++;
        /* the Lua code was told to stop already: end at once */
        if (hard_stop)
            end_now(again, sizeof again - 1);
        stop_lua();
    }
}

static int message_handler(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);

    if (!msg) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            return 1;
        msg = lua_pushfstring(L, "(error object is a %s value)",
                              luaL_typename(L, 1));
    }
    luaL_traceback(L, L, msg, 1);
    return 1;
}

static int parse_shard(const char *text, int64_t *k, int64_t *n)
{
    char *end;
    long long a, b;

    errno = 0;
    a = strtoll(text, &end, 10);
    if (end == text || *end != '/' || errno)
        return usage_error("--shard takes K/N, as 0/4 (--shard %s)", text);
    b = strtoll(end + 1, &end, 10);
    if (*end || errno || b < 1 || b > 1000000 || a < 0 || a >= b)
        return usage_error("--shard takes K/N with 0 <= K < N <= 1000000 "
                           "(--shard %s)",
                           text);
    *k = a;
    *n = b;
    return 0;
}

/* Without --shard, a Slurm job array names the shard: task
 * SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN of SLURM_ARRAY_TASK_COUNT. */
static int slurm_shard(int64_t *k, int64_t *n)
{
    const char *id = getenv("SLURM_ARRAY_TASK_ID");
    const char *count = getenv("SLURM_ARRAY_TASK_COUNT");
    const char *min = getenv("SLURM_ARRAY_TASK_MIN");
    const char *names[3] = {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT",
                            "SLURM_ARRAY_TASK_MIN"};
    const char *text[3] = {id, count, min ? min : "0"};
    long long v[3];

    if (!id || !count)
        return 0;
    for (int i = 0; i < 3; i++) {
        char *end;

        errno = 0;
        v[i] = strtoll(text[i], &end, 10);
        if (*end || end == text[i] || errno || v[i] < 0 || v[i] > 1000000)
            return usage_error("%s must be a number in [0, 1000000] (%s=%s)",
                               names[i], names[i], text[i]);
    }
    if (v[1] < 1 || v[0] < v[2] || v[0] - v[2] >= v[1])
        return usage_error("the Slurm array does not name a shard (task "
                           "%lld, min %lld, count %lld; stepped arrays are "
                           "not supported); use --shard K/N",
                           v[0], v[2], v[1]);
    *k = v[0] - v[2];
    *n = v[1];
    fprintf(stderr, "tplan: shard %lld/%lld from SLURM_ARRAY_TASK_*\n",
            (long long)*k, (long long)*n);
    return 0;
}

/* Scripts larger than this are refused (a script is text a person wrote;
 * /dev/zero is not one). */
#define MAX_SCRIPT_BYTES (64u << 20)

/* Read the whole script once ("-": standard input), so a pipe or a
 * process substitution (<(...)) is read once and runs once, and the
 * SHA-256 is of the bytes that run. Returns 0, or prints why (with
 * looked: where find_script looked, "" for nowhere) and returns an exit
 * status. */
static int read_script(const char *path, const char *looked, char **buf,
                       size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    size_t cap = 65536, n = 0;
    char *b = NULL;
    int rc = 0;

    if (!f) {
        fprintf(stderr, "tplan: cannot open %s: %s%s%s%s\n", path,
                strerror(errno), looked[0] ? ", nor is it a ready script (" : "",
                looked, looked[0] ? ")" : "");
        return exit_status(TPLAN_EIO);
    }
    for (;;) {
        size_t got;

        if (n == cap || !b) {
            char *grown;

            if (b)
                cap *= 2;
            if (cap > MAX_SCRIPT_BYTES + 1)
                cap = MAX_SCRIPT_BYTES + 1;
            if (!(grown = realloc(b, cap))) {
                fputs("tplan: out of memory reading the script\n", stderr);
                rc = exit_status(TPLAN_ENOMEM);
                break;
            }
            b = grown;
        }
        got = fread(b + n, 1, cap - n, f);
        n += got;
        if (n > MAX_SCRIPT_BYTES) {
            fprintf(stderr, "tplan: %s: the script is larger than %u MiB\n",
                    path, MAX_SCRIPT_BYTES >> 20);
            rc = exit_status(TPLAN_ELIMIT);
            break;
        }
        if (got == 0) {
            if (ferror(f)) {
                fprintf(stderr, "tplan: cannot read %s: %s\n", path,
                        strerror(errno));
                rc = exit_status(TPLAN_EIO);
            }
            break;
        }
    }
    if (f != stdin)
        fclose(f);
    if (rc) {
        free(b);
        return rc;
    }
    *buf = b;
    *len = n;
    return 0;
}

/* The SHA-256 of the script's bytes, for provenance. */
static void script_sha256(const char *src, size_t len, char out[65])
{
    tplan_sha256 h;

    tplan_sha256_init(&h);
    tplan_sha256_update(&h, src, len);
    tplan_sha256_hex(&h, out);
}

/* The script as Lua loads a file: a UTF-8 byte-order mark and a first
 * line starting with '#' (a shebang) are skipped, the line kept so that
 * line numbers stay right. Text only under --safe. */
static int load_script(lua_State *L, const run_ctx *ctx)
{
    const char *b = ctx->src;
    size_t n = ctx->src_len;
    char name[4096];

    if (n >= 3 && memcmp(b, "\xEF\xBB\xBF", 3) == 0) {
        b += 3;
        n -= 3;
    }
    if (n > 0 && b[0] == '#') {
        while (n > 0 && b[0] != '\n') {
            b++;
            n--;
        }
    }
    snprintf(name, sizeof name, "%s%s", strcmp(ctx->script, "-") ? "@" : "=",
             strcmp(ctx->script, "-") ? ctx->script : "stdin");
    return luaL_loadbufferx(L, b, n, name, ctx->out.safe ? "t" : "bt");
}

/* The script's arguments joined by spaces ("" when none). */
static char *join_args(int n, char **argv)
{
    size_t len = 1;
    char *s;

    for (int i = 0; i < n; i++)
        len += strlen(argv[i]) + 1;
    if (!(s = malloc(len)))
        return NULL;
    s[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (i)
            strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}

/* Run the chunk on the stack top with its handler; print the error. */
static int run_protected(lua_State *L, int nargs, int traceback)
{
    int base = lua_gettop(L) - nargs;
    int rc;

    lua_pushcfunction(L, message_handler);
    lua_insert(L, base);
    rc = lua_pcall(L, nargs, 0, base);
    lua_remove(L, base);
    if (rc != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        /* the handler appended the stack: cut there, not at a newline
         * of the message itself */
        const char *nl = msg ? strstr(msg, "\nstack traceback:") : NULL;

        if (!msg)
            msg = "(error object is not a string)";
        if (traceback || !nl)
            fprintf(stderr, "tplan: %s\n", msg);
        else
            fprintf(stderr, "tplan: %.*s\n", (int)(nl - msg), msg);
        lua_pop(L, 1);
        return 1;
    }
    return 0;
}

/* A value option's argument, or a usage error. */
static int need_value(int argc, char **argv, int i)
{
    return i + 1 < argc ? 0 : usage_error("%s needs a value", argv[i]);
}

/* One option at argv[i] into ctx; *i moves past its value. */
static int parse_option(run_ctx *ctx, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    int64_t v;
    int rc;

    if (strcmp(a, "--traceback") == 0) {
        ctx->traceback = true;
    } else if (strcmp(a, "--safe") == 0) {
        ctx->out.safe = true;
    } else if (strcmp(a, "--yes") == 0) {
        ctx->out.yes = true;
    } else if (strcmp(a, "--threads") == 0) {
        if ((rc = need_value(argc, argv, *i)) ||
            (rc = parse_count(a, argv[++*i], 1, &v)))
            return rc;
        if (v > TPLAN_MAX_THREADS)
            return usage_error("--threads takes 1 to %d (--threads %s)",
                               TPLAN_MAX_THREADS, argv[*i]);
        ctx->lo.threads = (int)v;
    } else if (strcmp(a, "--shard") == 0) {
        if ((rc = need_value(argc, argv, *i)) ||
            (rc = parse_shard(argv[++*i], &ctx->lo.shard, &ctx->lo.shards)))
            return rc;
        ctx->shard_given = true;
    } else if (strcmp(a, "--db") == 0 || strcmp(a, "--csv") == 0) {
        if ((rc = need_value(argc, argv, *i)))
            return rc;
        *(a[2] == 'd' ? &ctx->out.db_path : &ctx->out.csv_path) = argv[++*i];
    } else if (strcmp(a, "--timeout") == 0) {
        if ((rc = need_value(argc, argv, *i)) ||
            (rc = parse_count(a, argv[++*i], 1, &v)))
            return rc;
        if (v > 31536000)
            return usage_error("--timeout takes 1 to 31536000 seconds "
                               "(--timeout %s)",
                               argv[*i]);
        ctx->timeout = (unsigned)v;
    } else if (strcmp(a, "--max-memory") == 0) {
        if ((rc = need_value(argc, argv, *i)) ||
            (rc = parse_count(a, argv[++*i], 1, &v)))
            return rc;
        if (v > 1048576)
            return usage_error("--max-memory takes 1 to 1048576 MiB "
                               "(--max-memory %s)",
                               argv[*i]);
        ctx->cap.cap = (size_t)v << 20;
    } else {
        return usage_error("tplan run: unknown option '%s'; see tplan run "
                           "--help",
                           a);
    }
    return 0;
}

/* The command line into ctx: -1 for --help (printed), else 0 or a usage
 * error's status. */
static int parse_args(run_ctx *ctx, int argc, char **argv)
{
    int rc;

    ctx->argc = ctx->first_arg = argc;
    ctx->argv = argv;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (strcmp(a, "--") == 0) {
            ctx->first_arg = i + 1;
            break;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            run_usage();
            return -1;
        }
        if (a[0] == '-' && a[1] != '\0') {
            if ((rc = parse_option(ctx, argc, argv, &i)))
                return rc;
        } else if (!ctx->script) {
            ctx->script = a;
        } else {
            return usage_error("tplan run: one script only ('%s' after '%s'); "
                               "script arguments go after --",
                               a, ctx->script);
        }
    }
    if (!ctx->script)
        return usage_error("tplan run: give a script; see tplan run --help");
    if (!ctx->shard_given && slurm_shard(&ctx->lo.shard, &ctx->lo.shards))
        return exit_status(TPLAN_EUSAGE);
    return 0;
}

#ifndef TPLAN_SCRIPTS_REL
#define TPLAN_SCRIPTS_REL "../share/tplan/scripts"
#endif

/* The ready scripts' directory beside this binary (cli/CMakeLists.txt:
 * <prefix>/bin/tplan -> <prefix>/share/tplan/scripts), into dir; false
 * when the binary's own place is unknown (no /proc/self/exe). */
static bool scripts_dir(char *dir, size_t cap)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash;

    if (n <= 0)
        return false;
    exe[n] = '\0';
    if (!(slash = strrchr(exe, '/')))
        return false;
    *slash = '\0';
    if (snprintf(dir, cap, "%s/%s", exe, TPLAN_SCRIPTS_REL) >= (int)cap)
        return false;
    /* named without the "bin/.." in messages */
    if (realpath(dir, exe) && strlen(exe) < cap)
        strcpy(dir, exe);
    return true;
}

/* `tplan run max_batch`: a name that is no file here and has no '/' is
 * looked up (NAME, then NAME.lua) among the ready scripts installed with
 * this binary; ctx->script is set to the one found. When none is there
 * the script stays as given and ctx->looked names the places, for
 * read_script's error (after the outputs' checks, as for any script). */
static void find_script(run_ctx *ctx)
{
    const char *name = ctx->script;
    size_t len = strlen(name);
    bool lua = len > 4 && strcmp(name + len - 4, ".lua") == 0;
    char dir[4096];

    if (strcmp(name, "-") == 0 || strchr(name, '/') || access(name, F_OK) == 0)
        return;
    if (!scripts_dir(dir, sizeof dir)) {
        snprintf(ctx->looked, sizeof ctx->looked,
                 "the ready scripts' directory is unknown: no "
                 "/proc/self/exe");
        return;
    }
    for (int pass = 0; pass < (lua ? 1 : 2); pass++) {
        int w = snprintf(ctx->found, sizeof ctx->found, "%s/%s%s", dir, name,
                         pass ? ".lua" : "");

        if (w > 0 && w < (int)sizeof ctx->found &&
            access(ctx->found, R_OK) == 0) {
            ctx->script = ctx->found;
            return;
        }
    }
    snprintf(ctx->looked, sizeof ctx->looked, "%.4000s/%s%s", dir, name,
             lua ? "" : "[.lua]");
}

/* Set the state up and run the script, inside the protected call that
 * cmd_run makes (an out-of-memory error in the set-up is caught there).
 * Returns the script's status as an integer. */
static int run_in_state(lua_State *L)
{
    run_ctx *ctx = lua_touserdata(L, 1);
    int nargs = ctx->argc - ctx->first_arg;

    lua_settop(L, 0);
    luaL_openlibs(L);
    if (ctx->out.safe && limits_sandbox(L))
        return luaL_error(L, "--safe: %s", lua_tostring(L, -1));
    tplan_lua_setup(L, &ctx->lo);
    lua_getglobal(L, "os");             /* os */
    lua_pushlightuserdata(L, ctx);      /* os ctx */
    lua_pushcclosure(L, os_exit, 1);    /* os exit */
    lua_setfield(L, -2, "exit");        /* os */
    lua_pop(L, 1);                      /* */
    lua_pushlightuserdata(L, ctx);      /* ctx */
    lua_getglobal(L, "print");          /* ctx print */
    lua_pushcclosure(L, checked_print, 2); /* checked */
    lua_setglobal(L, "print");          /* */
    /* tplan is a global too, as in the examples */
    luaL_requiref(L, "tplan", luaopen_tplan, 1); /* tplan */
    lua_pop(L, 1);                               /* */
    luaL_checkstack(L, nargs + 8, "too many script arguments");
    lua_createtable(L, nargs, 1); /* arg */
    lua_pushstring(L, ctx->script);
    lua_rawseti(L, -2, 0);
    for (int i = 0; i < nargs; i++) {
        lua_pushstring(L, ctx->argv[ctx->first_arg + i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setglobal(L, "arg"); /* */
    if (load_script(L, ctx) != LUA_OK) { /* chunk | msg */
        fprintf(stderr, "tplan: %s\n", lua_tostring(L, -1));
        lua_pushinteger(L, exit_status(TPLAN_ESCRIPT));
        return 1;
    }
    for (int i = 0; i < nargs; i++) /* chunk ... also as `...` */
        lua_pushstring(L, ctx->argv[ctx->first_arg + i]);
    lua_pushinteger(L, run_protected(L, nargs, ctx->traceback)
                           ? exit_status(TPLAN_ESCRIPT)
                           : 0);
    return 1;
}

/* The status of a run that stopped on a signal or a --timeout. */
static int stopped_status(int status, int interrupted, unsigned timeout)
{
    if (stop_signal == SIGALRM) {
        if (status == 0) /* it ended by itself as the time ran out */
            fprintf(stderr, "tplan: stopped: --timeout %u s passed\n",
                    timeout);
    } else if (status != 0) {
        ; /* the script's error already said so */
    } else if (interrupted) {
        fputs("tplan: interrupted: the sweep stopped early; the plans kept "
              "are the best found before the stop\n",
              stderr);
    } else {
        fputs("tplan: interrupted\n", stderr);
    }
    return exit_signal(stop_signal);
}

/* SIGINT, SIGTERM and SIGALRM (--timeout, the hard stop) to on_signal
 * while L runs; old keeps what they were. */
static void signals_catch(lua_State *L, struct sigaction old[4],
                          unsigned timeout)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    signal_state = L;
    sigaction(SIGINT, &sa, &old[0]);
    sigaction(SIGTERM, &sa, &old[1]);
    sigaction(SIGALRM, &sa, &old[2]);
    /* a closed standard output is an error to say (checked_print), not a
     * silent death that loses the --csv file */
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, &old[3]);
    if (timeout)
        alarm(timeout);
}

/* pipe_closed: SIGPIPE stays ignored, for stdio's flush at exit of what
 * a closed standard output could not take */
static void signals_restore(const struct sigaction old[4], bool pipe_closed)
{
    signal_state = NULL;
    sigaction(SIGINT, &old[0], NULL);
    sigaction(SIGTERM, &old[1], NULL);
    alarm(0);
    sigaction(SIGALRM, &old[2], NULL);
    if (!pipe_closed)
        sigaction(SIGPIPE, &old[3], NULL);
}

/* Sweeps without a Lua hook use every core unless told: the results are
 * the same for any thread count (tests/test_lua.sh). */
static int default_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);

    return n < 1 ? 1 : n > TPLAN_MAX_THREADS ? TPLAN_MAX_THREADS : (int)n;
}

/* Everything before the Lua state: provenance, the outputs (checked
 * against the script and each other, opened so an unwritable path fails
 * first) and the script, read once. Returns 0 or an exit status, having
 * said why and released what it took. */
static int prepare(run_ctx *ctx, int argc, char **argv)
{
    tplan_err err;
    int status;

    ctx->lo.script = ctx->script;
    if (!(ctx->args = join_args(argc - ctx->first_arg, argv + ctx->first_arg))) {
        fputs("tplan: out of memory\n", stderr);
        return exit_status(TPLAN_ENOMEM);
    }
    ctx->lo.args = ctx->args;
    if (ctx->out.safe)
        limits_blank_environment();
    progress_init(&ctx->bar);
    if (ctx->bar.on) {
        ctx->lo.progress = progress_update;
        ctx->lo.progress_ud = &ctx->bar;
    }
    outputs_hook(&ctx->out, &ctx->lo);
    ctx->out.script = ctx->script;
    ctx->out.signals = &signal_count;
    ctx->out.bar = &ctx->bar;
    if (outputs_check(&ctx->out, &err) || outputs_open(&ctx->out, &err)) {
        fprintf(stderr, "tplan: %s: %s\n", err.field, err.msg);
        status = exit_status(err.code);
    } else if (!(status = read_script(ctx->script, ctx->looked, &ctx->src,
                                      &ctx->src_len))) {
        script_sha256(ctx->src, ctx->src_len, ctx->sha);
        ctx->lo.script_sha256 = ctx->sha;
        return 0;
    }
    outputs_finish(&ctx->out, true, &err);
    free(ctx->args);
    ctx->args = NULL;
    return status;
}

int cmd_run(int argc, char **argv)
{
    run_ctx ctx;
    struct sigaction old[4];
    int status, interrupted = 0;
    lua_State *L;
    tplan_err err;

    memset(&ctx, 0, sizeof ctx);
    ctx.cap.cap = (size_t)8 << 30; /* 8 GiB unless told */
    ctx.lo.threads = default_threads();
    ctx.lo.shards = 1;
    ctx.lo.stop = &stop_signal;
    ctx.lo.sweeping = &sweeping;
    tplan_csv_set_stop(&stop_signal);
    if ((status = parse_args(&ctx, argc, argv)))
        return status < 0 ? 0 : status;
    find_script(&ctx);
    if ((status = prepare(&ctx, argc, argv)))
        return status;
    /* Under --safe, SQLite's own heap is capped too: a script's
     * db:query("SELECT randomblob(...)") builds its blob there, outside
     * the Lua allocator's --max-memory. The cap is --max-memory plus
     * SQLITE_RUN_ALLOWANCE for the run's own --db writer (a 4 MiB page
     * cache, 64 KiB pages, its statements: an assumption with room). */
    if (ctx.out.safe)
        tplan_store_heap_limit((int64_t)ctx.cap.cap + SQLITE_RUN_ALLOWANCE);
    if (!(L = lua_newstate(limits_alloc, &ctx.cap))) {
        fputs("tplan: cannot create a Lua state (out of memory)\n", stderr);
        outputs_finish(&ctx.out, true, &err);
        free(ctx.args);
        free(ctx.src);
        return exit_status(TPLAN_ENOMEM);
    }

    if (tplan_csv_tmp_path(ctx.out.csv) &&
        strlen(tplan_csv_tmp_path(ctx.out.csv)) < sizeof csv_tmp_name) {
        strcpy(csv_tmp_name, tplan_csv_tmp_path(ctx.out.csv));
        csv_tmp = csv_tmp_name;
    }
    signals_catch(L, old, ctx.timeout);
    lua_pushcfunction(L, run_in_state);
    lua_pushlightuserdata(L, &ctx);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        fprintf(stderr, "tplan: %s\n", lua_tostring(L, -1));
        status = exit_status(TPLAN_ESCRIPT);
    } else {
        status = (int)lua_tointeger(L, -1);
    }
    progress_update(&ctx.bar, -1, 0);
    tplan_lua_sweeps(L, &interrupted);
    /* the plans of completed (or interrupted) sweeps are kept even when
     * the script failed after them */
    csv_tmp = NULL; /* finishing renames or removes it */
    if (outputs_finish(&ctx.out, status != 0 || stop_signal, &err)) {
        fprintf(stderr, "tplan: %s: %s\n", err.field, err.msg);
        status = exit_status(err.code);
        ctx.out_closed = false; /* that failure is the one to report */
    }
    signal_state = NULL;
    ctx.ending = true;
    ctx.status = stop_signal ? exit_signal(stop_signal) : status;
    lua_close(L);
    free(ctx.args);
    free(ctx.src);
    /* what io.write left buffered, while SIGPIPE is still ignored: a
     * closed pipe found here is said as print's is */
    if (fflush(stdout) != 0 && errno == EPIPE && status == 0)
        ctx.out_closed = true;
    signals_restore(old, ctx.out_closed || ferror(stdout));
    if (ctx.cap.hit && status != 0)
        fprintf(stderr,
                "tplan: the script's Lua state reached --max-memory %zu MiB\n",
                ctx.cap.cap >> 20);
    if (ctx.out_closed && !stop_signal) {
        fprintf(stderr, "tplan: standard output was closed (broken pipe)%s\n",
                ctx.out.csv_path || ctx.out.db_path
                    ? "; the sweeps that finished are in --csv/--db"
                    : "");
        return exit_signal(SIGPIPE);
    }
    return stop_signal ? stopped_status(status, interrupted, ctx.timeout)
                       : status;
}
