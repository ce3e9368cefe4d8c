/* Limits for scripts you did not write: a memory cap on the Lua state, a
 * wall-clock timeout, and --safe (no processes, no native code, no file
 * writes but the run's own outputs). */
#ifndef TPLAN_CLI_SCRIPT_LIMITS_H
#define TPLAN_CLI_SCRIPT_LIMITS_H

#include <stdbool.h>
#include <stddef.h>

#include <lua.h>

typedef struct mem_cap {
    size_t used, cap; /* bytes; cap 0: none */
    bool hit;         /* an allocation was refused */
} mem_cap;

/* A lua_Alloc that refuses to grow past cap (Lua then raises "not enough
 * memory", which the script sees as an error). */
void *limits_alloc(void *ud, void *ptr, size_t osize, size_t nsize);

/* Take away what --safe forbids from a state with the standard libraries
 * open. Returns non-zero (message on the stack) if that failed. */
int limits_sandbox(lua_State *L);

/* Whether path is under /proc or /sys once links are resolved (what
 * --safe keeps scripts from reading: other processes' environment). */
bool limits_proc_path(const char *path);

/* --safe: overwrite the process environment in place, so that neither
 * os.getenv nor /proc/self/environ shows it to the script. Call after
 * reading what tplan itself needs (SLURM_ARRAY_*), before the state. */
void limits_blank_environment(void);

#endif
