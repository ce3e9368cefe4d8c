/* Framework profiles: what a training stack (Megatron-LM, DeepSpeed,
 * PyTorch FSDP, the Hugging Face Trainer) does differently, as values of
 * plan fields, each with its source (docs/MODEL.md section 14). Applying
 * a framework sets its fields on a config; fields set after it override
 * them. Custom frameworks are built field by field from text (a CSV row).
 * Knows nothing of I/O. */
#ifndef TPLAN_FRAMEWORK_H
#define TPLAN_FRAMEWORK_H

#include <stdbool.h>

#include "config.h"
#include "err.h"

#define TPLAN_FRAMEWORK_MAX_SETTINGS 32
#define TPLAN_FRAMEWORK_SOURCE_LEN   512

typedef struct tplan_framework {
    char name[TPLAN_FRAMEWORK_NAME_LEN];
    char source[TPLAN_FRAMEWORK_SOURCE_LEN]; /* where its values come from */
    int n;
    struct {
        int field;    /* a plan input (fields.h) */
        double value; /* as tplan_field_apply takes it */
    } set[TPLAN_FRAMEWORK_MAX_SETTINGS];
} tplan_framework;

/* Built-in frameworks. */
int tplan_framework_count(void);
const char *tplan_framework_name_at(int i);
/* A built-in by name (any case); an unknown name errors naming the
 * known ones. */
int tplan_framework_lookup(const char *name, tplan_framework *out,
                           tplan_err *err);

/* An empty framework of this name (1 to 31 bytes of letters, digits, '-',
 * '_' and '.'). */
int tplan_framework_init(tplan_framework *f, const char *name,
                         tplan_err *err);
/* Set an input field, named as Lua and sweep axes name it, from text as
 * tplan calc reads it. Fields that need a front end (model, gpu,
 * framework) or their own parser (warmup, batch_ramp, lora_targets) are
 * refused. Setting a field twice keeps the last value. */
int tplan_framework_set(tplan_framework *f, const char *field,
                        const char *text, tplan_err *err);
/* The field id of a framework term named as Lua names it; -1 with the
 * reason in err ("FIELD: not a framework term (valid: ...)"). */
int tplan_framework_term(const char *field, tplan_err *err);
/* Is name a built-in framework's (any case)? */
bool tplan_framework_builtin(const char *name);

/* Set f's fields on c and record its name there. */
void tplan_framework_apply(const tplan_framework *f, tplan_config *c);

#endif
