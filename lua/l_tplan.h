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
#include "plan.h"
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

/* The run's state: its options, the --csv writer (opened at the first
 * sweep), and counters; one per Lua state, in the registry. */
typedef struct lt_state {
    tplan_lua_options o;
    tplan_csv *csv;
    int csv_failed;  /* a --csv write failed (and was reported) */
    tplan_store *db; /* --db */
    int64_t csv_rows, sweeps;
    int interrupted;
} lt_state;

lt_state *lt_get_state(lua_State *L);

/* Write a sweep result's kept plans, best first, to w. */
int lt_result_csv(lua_State *L, int idx, tplan_csv *w, tplan_err *err);

/* Write a sweep result (its row, kept plans and Pareto front) to db;
 * *rows is the plan rows written. */
int lt_result_save(lua_State *L, int idx, tplan_store *db, int64_t *rows,
                   tplan_err *err);

#endif
