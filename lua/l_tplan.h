/* The tplan Lua module's internal interface: its parts register
 * themselves into the module table, and share the config parser and plan
 * pushers. Not for other layers (cli uses tplan_lua.h). */
#ifndef TPLAN_L_TPLAN_H
#define TPLAN_L_TPLAN_H

#include <signal.h>
#include <stdbool.h>

#include <lauxlib.h>
#include <lua.h>

#include "csv_out.h"
#include "framework.h"
#include "plan.h"
#include "save.h"
#include "store.h"
#include "sweep.h"
#include "tplan_lua.h"

#define TPLAN_MODEL_MT  "tplan.model"
#define TPLAN_GPU_MT    "tplan.gpu"
#define TPLAN_VIEW_MT   "tplan.view"
#define TPLAN_RESULT_MT "tplan.result"

/* Each adds its functions to the module table on the stack top. */
void lt_open_models(lua_State *L);
void lt_open_plan(lua_State *L);
void lt_open_sweep(lua_State *L);
void lt_open_result(lua_State *L);
void lt_open_db(lua_State *L);
void lt_open_catalogs(lua_State *L);
void lt_open_fields(lua_State *L);

/* The constructors: tplan.model and tplan.gpu. */
int lt_model_new(lua_State *L);
int lt_gpu_new(lua_State *L);

/* The constructors' fields (NULL-terminated), for catalog headers. */
extern const char *const lt_model_fields[];
extern const char *const lt_gpu_fields[];

/* A model preset or GPU by name: those loaded from CSV catalogs in this
 * state first (tplan.models.load, tplan.gpus.load), then the built-in
 * ones. Non-zero (err set) when there is none. */
int lt_model_lookup(lua_State *L, const char *name, tplan_model *out,
                    tplan_err *err);
int lt_gpu_lookup(lua_State *L, const char *name, tplan_gpu *out,
                  tplan_err *err);
/* A framework by name: one loaded with tplan.frameworks.load, else a
 * built-in. */
int lt_framework_lookup(lua_State *L, const char *name, tplan_framework *out,
                        tplan_err *err);

/* Check that the table at idx names only input fields (engine/fields.h)
 * and the names in extra (NULL-terminated, may be NULL). */
void lt_check_config_fields(lua_State *L, int idx, const char *what,
                            const char *const *extra);

/* The value at the stack top as input field id's value (a number, a name
 * or text as tplan calc reads it, a boolean); raises the field's message
 * ("FIELD: VALUE: why (valid: ...)") for anything else. */
double lt_field_value(lua_State *L, int id, const char *what);

/* Set input field id of c from the value at the stack top (TEXT fields
 * too); raises as lt_field_value. */
void lt_field_set(lua_State *L, int id, const char *what, tplan_config *c);

/* Fill *c from the table at idx: model (userdata or preset name) and gpu
 * (userdata or name) unless already set (need_model/need_gpu false), then
 * every config field present. Raises naming the field. */
void lt_parse_config(lua_State *L, int idx, const char *what, tplan_config *c,
                     bool need_model, bool need_gpu);

/* Push a plan as a plain table (a snapshot): the DB columns, warnings as
 * an array, and, when index >= 0, its sweep index and score. */
void lt_push_plan(lua_State *L, const tplan_plan *p, int64_t index,
                  double score, bool has_score);

/* The plan view a where/score hook sees: push an empty one; point the
 * one at idx at p, the sweep's index-th plan (NULL: none, reads raise).
 * Sweeps evaluate figures only; the view re-evaluates in full from spec
 * when a hook reads the warnings or takes a snapshot. */
void lt_push_view(lua_State *L);
void lt_view_set(lua_State *L, int idx, const tplan_sweep_spec *spec,
                 const tplan_plan *p, int64_t index);

/* The run's state: its options (callbacks into the CLI) and counters;
 * one per Lua state, in the registry. */
typedef struct lt_state {
    tplan_lua_options o;
    int64_t sweeps;
    int interrupted;
} lt_state;

lt_state *lt_get_state(lua_State *L);

/* Whether the run lets a script write path itself (res:csv, res:save):
 * non-zero (err says why) when it does not. */
int lt_may_write(lua_State *L, const char *path, tplan_err *err);

/* Whether path is a file the script read (a catalog, a module, a
 * config.json, a file it opened for reading: the same file by device and
 * inode): res:csv and res:save refuse to write over one. */
bool lt_catalog_loaded(lua_State *L, const char *path);

/* May the script read path? Not one of the run's outputs, which the run
 * would write over, nor under --safe /proc or /sys (err says why). A file
 * it may read is remembered as an input (lt_catalog_loaded). */
int lt_may_read(lua_State *L, const char *path, tplan_err *err);

/* Route every way a script reads a file (require's Lua searcher, dofile,
 * loadfile, io.open for reading, io.lines, io.input) through
 * lt_may_read, after --safe's own limits (issue 36). */
void lt_track_inputs(lua_State *L);

/* The run's watch over a write of path by the script (res:csv, res:save). */
tplan_save_watch lt_save_watch(lua_State *L, const char *path);

/* tplan.sweep's spec from the table at idx (config, axes, limits, rank,
 * keep, pareto); raises naming the field. */
void lt_sweep_spec(lua_State *L, int idx, tplan_sweep_spec *s, bool has_score);

/* A sweep's result ("tplan.result"): the kept plans (best first) and the
 * Pareto front as ranked sweep indexes, with the sweep row's provenance. */
typedef struct lt_result {
    tplan_sweep_spec *spec; /* owned; NULL once closed */
    tplan_ranked *items;    /* owned: kept plans, best first */
    int64_t n, cap;
    tplan_ranked *front; /* owned: the Pareto front, when asked for */
    int64_t n_front;
    tplan_sweep_stats stats;
    char name[64];
    bool has_score;
    int threads; /* the sweep's: kept plans are evaluated again on them */
    /* its plans went to the run's outputs as it walked: items holds the
     * best `ranked` (the sweep's field, default TPLAN_STREAM_RANKED) */
    bool streamed;
    int ranked;
    tplan_sweep_meta meta; /* strings borrowed from name, desc, options */
    tplan_sweep_desc desc;
} lt_result;

/* Push an empty result (its gc frees what it owns). */
lt_result *lt_result_new(lua_State *L);
/* The open result at idx, or raise. */
lt_result *lt_check_result(lua_State *L, int idx);
/* The result as writers see it (borrowed from r). */
tplan_sweep_result lt_result_view(const lt_result *r);

#endif
