/* Helpers for the Lua binding: strict named arguments (an unknown or
 * mistyped field is an error naming it), engine errors raised at the
 * caller's line. Knows Lua and the engine; no modelling logic. */
#ifndef TPLAN_L_UTIL_H
#define TPLAN_L_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include <lauxlib.h>
#include <lua.h>

#include "err.h"

/* Raise a Lua error "where: what: msg" at the caller's line. */
int lu_error(lua_State *L, const char *what, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Raise an engine error record. */
int lu_engine_error(lua_State *L, const char *what, const tplan_err *err);

/* Check that the table at idx has only string keys from allowed (a NULL-
 * terminated list); what names the constructor in the message. */
void lu_check_fields(lua_State *L, int idx, const char *what,
                     const char *const *allowed);
/* The same, also taking the keys for which also(key) is true (allowed
 * may then be NULL); also_at(i) lists those keys for a "did you mean"
 * (NULL past the last; also_at itself may be NULL); hint ends the
 * unknown-field message ("" for none): "unknown field 'seqq': did you
 * mean seq? (tplan fields lists them)". */
void lu_check_fields_by(lua_State *L, int idx, const char *what,
                        const char *const *allowed,
                        bool (*also)(const char *key),
                        const char *(*also_at)(int i), const char *hint);

/* Field getters: leave *out unchanged when the field is absent (nil);
 * raise naming the field when it has the wrong type or range. Return
 * whether it was present. */
bool lu_int(lua_State *L, int idx, const char *what, const char *field,
            int64_t min, int64_t max, int64_t *out);
bool lu_num(lua_State *L, int idx, const char *what, const char *field,
            double min, double max, double *out);
bool lu_bool(lua_State *L, int idx, const char *what, const char *field,
             bool *out);
/* A string field; *out borrows from the table, valid while it lives. */
bool lu_str(lua_State *L, int idx, const char *what, const char *field,
            const char **out);

#endif
