/* Every plan field, described once: its contract name (CSV header, database
 * column, Lua plan key, JSON "fields" key), type, unit, whether it is an
 * input (a `tplan calc` flag, a Lua constructor field, a sweep axis) and an
 * output (a column), its valid range or names, default and one line of
 * documentation. Every front end reads inputs and writes outputs through
 * this table, so one bad value gets one message everywhere:
 * "FIELD: VALUE: why (valid: ...)". Knows nothing of I/O. */
#ifndef TPLAN_FIELDS_H
#define TPLAN_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "err.h"

struct tplan_plan;

/* How an output is stored. REAL NaN and TEXT NULL mean "no value" (SQL
 * NULL, an empty CSV cell, Lua nil, JSON null). */
typedef enum {
    TPLAN_FT_INT,
    TPLAN_FT_REAL,
    TPLAN_FT_TEXT,
    TPLAN_FT_BOOL
} tplan_field_type;

/* How an input's value is read. */
typedef enum {
    TPLAN_FK_NONE, /* output only */
    TPLAN_FK_INT,  /* an integer in [min, max] */
    TPLAN_FK_REAL, /* a real number in [min, max] */
    TPLAN_FK_BOOL, /* true/false (text: true, false, 1, 0) */
    TPLAN_FK_ENUM, /* one of values[]; the value is its index */
    TPLAN_FK_TEXT, /* text with a parser of its own (warmup, batch_ramp) */
    TPLAN_FK_NAME, /* a preset or catalog name the front end resolves */
    TPLAN_FK_SET   /* names of values[] joined by commas; the value is the
                      bit mask of the names (aliases: the parser's) */
} tplan_field_kind;

enum {
    TPLAN_FIELD_IN = 1u << 0,   /* an input */
    TPLAN_FIELD_OUT = 1u << 1,  /* an output column */
    TPLAN_FIELD_AXIS = 1u << 2, /* an input a sweep can vary */
    TPLAN_FIELD_SUFFIX = 1u << 3, /* text may end in K/M/B/T (1e3..1e12) */
    TPLAN_FIELD_MAX = 1u << 4,  /* text "max" means 0: the largest that fits */
    TPLAN_FIELD_FLAG = 1u << 5  /* a bool calc flag that takes no value */
};

/* The most fields the table may hold (callers size arrays by it). */
#define TPLAN_MAX_FIELDS 256

/* Ids of the two NAME fields, which callers resolve themselves. */
enum { TPLAN_FIELD_ID_MODEL = 0, TPLAN_FIELD_ID_GPU = 1 };

typedef struct tplan_field {
    const char *name;       /* contract name */
    tplan_field_type type;  /* as an output */
    tplan_field_kind kind;  /* as an input; NONE for outputs only */
    unsigned flags;
    const char *unit;       /* "" for plain numbers and names */
    const char *flag;       /* tplan calc option ("--seq"); NULL: none */
    const char *input;      /* Lua constructor field and axis name (the
                               name messages use); NULL for outputs */
    double min, max;        /* INT and REAL inputs, in the input's unit */
    const char *const *values; /* ENUM names, NULL-terminated */
    const char *def;        /* the default, in words */
    const char *doc;        /* one line */
} tplan_field;

/* A field's value in a plan. */
typedef struct tplan_value {
    int64_t i;     /* INT, BOOL */
    double r;      /* REAL */
    const char *s; /* TEXT: borrowed from the plan or from buf; NULL: none */
} tplan_value;

int tplan_field_count(void);
/* The field with this id (0 .. count-1), or NULL. Borrowed, static. */
const tplan_field *tplan_field_at(int id);
/* The id of the field whose contract name is name, or -1. */
int tplan_field_find(const char *name);
/* The id of the input whose input name (Lua field, axis) is name, or -1. */
int tplan_field_find_input(const char *name);
/* The id of the input whose calc option is flag ("--seq"), or -1. */
int tplan_field_find_flag(const char *flag);

/* The value of output field id in p; text that must be built (the joined
 * warnings, a warmup) goes into buf of len bytes. */
tplan_value tplan_field_get(int id, const struct tplan_plan *p, char *buf,
                            size_t len);

/* Inputs. A value is a double: the number for INT/REAL, 0/1 for BOOL, the
 * index into values[] for ENUM (what sweep axes hold). */

/* Read text as input id's value into *v (INT, REAL, BOOL, ENUM). */
int tplan_field_parse(int id, const char *text, double *v, tplan_err *err);
/* Check a number given as input id's value (INT, REAL, BOOL as 0/1). */
int tplan_field_check(int id, double v, tplan_err *err);
/* Set input id to a value that passed parse or check. */
void tplan_field_apply(int id, double v, tplan_config *c);
/* Where tplan_field_apply(id, v, c) writes one double of c from v alone
 * and nothing else: that double's offset in tplan_config; -1 for every
 * other input (tests/test_fields.c checks each). A sweep's walk stores
 * an axis's values there itself (engine/sweep.c, issue 38). */
long tplan_field_double_at(int id);
/* Whether tplan_field_apply(id, v, c) writes only members of c that no
 * other input's apply (nor a model or gpu axis's struct) writes: a
 * sweep over such axes alone holds a config that is the base with each
 * axis's value at its digit, whatever order they were applied in
 * (engine/layout_memo.c; tests/test_fields.c checks the members each
 * apply writes). */
bool tplan_field_writes_alone(int id);
/* The layout rules that read input id alone (config.h,
 * tplan_config_recheck); TPLAN_RECHECK_NONE for most. */
tplan_recheck tplan_field_recheck(int id);
/* Whether input id is one the memory's states memo leaves out of its key
 * (memory.c states_same: recompute, recompute_modules, micro_batch,
 * accum; engine/layout_memo.c). */
bool tplan_field_states_free(int id);

/* Parse text and apply it; TEXT fields (warmup, batch_ramp) too. NAME
 * fields are the front end's: an error. */
int tplan_field_set_text(int id, const char *text, tplan_config *c,
                         tplan_err *err);
/* Check a number and apply it; a number for a TEXT field is read as its
 * text ("2000" warmup steps). */
int tplan_field_set_number(int id, double v, tplan_config *c, tplan_err *err);

/* What a front end does after setting fields: a batch ramp without a
 * global batch trains the plan at the ramp's last batch. */
void tplan_fields_finish(tplan_config *c);

/* The error every front end gives for a bad value of input id: "FIELD:
 * VALUE: why (valid: ...)". Returns TPLAN_EINVAL. */
int tplan_field_error(int id, const char *value, const char *why,
                      tplan_err *err);

/* What a change of input id reaches in an evaluation (staged sweeps,
 * plan.h's TPLAN_EVAL_REUSE_*): everything; the batch solve and what
 * follows it (the target global batch: the memory stays unless the
 * accumulation changes what the pipeline holds); only the time and what
 * follows it (efficiency terms, step-time bands); of the time only the
 * communication (overlap, bandwidths, collective efficiencies); or only
 * the run's totals (price, PUE, power, grid) and the LR recipe and
 * critical batch (lr, its rule and cap, schedule...). Ordered: a change of
 * several fields reaches the lowest of theirs. */
typedef enum {
    TPLAN_REACH_ALL,
    TPLAN_REACH_BATCH, /* the target global batch: the batch solve on */
    TPLAN_REACH_TIME,
    TPLAN_REACH_COMM, /* of the time, only communication (perf.h) */
    TPLAN_REACH_RUN
} tplan_reach;
tplan_reach tplan_field_reach(int id);

/* The name input id's value v (as tplan_field_apply takes it) has: an
 * enum's name, or true or false; NULL for a number (db's tplan_fmt_field
 * writes either as calc reads it back). */
const char *tplan_field_value_name(int id, double v);

/* The valid values of input id, in words ("0 to 3", "true, false",
 * "fp32, amp-bf16, ..."), into buf. */
void tplan_field_valid(int id, char *buf, size_t len);

#endif
