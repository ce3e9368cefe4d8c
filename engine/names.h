/* Names people type: a catalog key that ignores case, punctuation,
 * vendor words, organisation prefixes and variant suffixes, and the
 * closest names for a "did you mean". Pure string work. */
#ifndef TPLAN_NAMES_H
#define TPLAN_NAMES_H

#include <stddef.h>

#include "err.h"

/* The comparison key of a name: the part after the last '/' (a Hugging
 * Face organisation), without trailing variant words (-instruct, -chat,
 * -it, -hf, -uncased, -cased, -vN[.M]), lowercase, without spaces,
 * dashes, underscores and dots, leading vendor words (nvidia, geforce, tesla, amd,
 * instinct) removed. "NVIDIA GeForce RTX 4090" and "rtx4090" share a key;
 * "meta-llama/Llama-3.1-8B-Instruct" and "llama3.1-8b" too. out holds at
 * least cap bytes; longer keys are cut (names are short). */
void tplan_name_key(const char *name, char *out, size_t cap);

/* Another name an entry goes by. */
typedef struct tplan_alias {
    const char *alias, *name;
} tplan_alias;

/* The index in names[] of the entry name denotes: an exact name, else one
 * with the same key, else an alias with the same key. None: -1 and *err
 * says so, naming field, with "did you mean" and the closest names when
 * some are close ("unknown GPU (gpu=h900): did you mean h200? (`tplan
 * gpus` lists all)"); what is "GPU", list_cmd "gpus". */
int tplan_name_lookup(const char *name, const char *const *names, int n,
                      const tplan_alias *aliases, int na, const char *field,
                      const char *what, const char *list_cmd,
                      tplan_err *err);

/* Up to max candidates closest to name (edit distance between keys, or
 * the key contained in theirs), best first, into out; returns how many. */
int tplan_name_suggest(const char *name, const char *const *cands, int n,
                       const char **out, int max);

/* "did you mean a, b or c?": up to three of the candidates closest to
 * name (tplan_name_suggest), each written after prefix ("--" for command
 * line options, "" for names), into buf of cap bytes; buf is "" when
 * none is close. A name contained in a candidate (a prefix: "lora" in
 * "lora_rank") counts as close. cands and prefix are borrowed. */
void tplan_name_hint(const char *name, const char *const *cands, int n,
                     const char *prefix, char *buf, size_t cap);

/* Comma lists of names for bit sets (LoRA targets, recompute modules):
 * the index in names[0..n) of the name p[0..len) (exactly; -1 if none),
 * and the names of mask's bits joined with commas into buf of cap bytes
 * (bit i is names[i]; "" when no bit is set). */
int tplan_name_index(const char *const *names, int n, const char *p,
                     size_t len);
void tplan_names_join(unsigned mask, const char *const *names, int n,
                      char *buf, size_t cap);

#endif
