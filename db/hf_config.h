/* Hugging Face config.json files read into model specs (jansson; the
 * mapping is engine/hf_map.c, shared with the browser page). Knows
 * the engine's model type; nothing of Lua or SQLite. */
#ifndef TPLAN_HF_CONFIG_H
#define TPLAN_HF_CONFIG_H

#include "err.h"
#include "hf_map.h" /* tplan_hf_config_types */
#include "model.h"

/* Read the config.json at path into *out (named after the file's
 * directory, or "config"). Supported model_type values:
 * tplan_hf_config_types(). The shape fields a config must give (hidden
 * size, layers, heads, FFN width, vocabulary) are errors when missing;
 * the others take the transformers library's defaults for that type.
 * Errors name the field, the file and, for bad JSON, line and column. */
int tplan_hf_config_load(const char *path, tplan_model *out, tplan_err *err);

#endif
