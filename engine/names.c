/* Catalog keys and "did you mean" (names.h). */
#include "names.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define KEY_MAX 96

/* Variant words a name may end with that change no shape: instruction
 * and chat tunes, Hugging Face's -hf conversions, BERT's casing, version
 * tags (Mistral-7B-v0.1). Not "base": bert-base is a name. */
static bool variant_word(const char *w, size_t n)
{
    static const char *const words[] = {"instruct", "chat",  "it",
                                        "hf",       "cased", "uncased"};

    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strlen(words[i]) == n && strncasecmp(w, words[i], n) == 0)
            return true;
    if (n >= 2 && (w[0] == 'v' || w[0] == 'V') && isdigit((unsigned char)w[1])) {
        for (size_t i = 1; i < n; i++)
            if (!isdigit((unsigned char)w[i]) && w[i] != '.')
                return false;
        return true;
    }
    return false;
}

void tplan_name_key(const char *name, char *out, size_t cap)
{
    static const char *const vendors[] = {"nvidia", "geforce", "tesla", "amd",
                                          "instinct"};
    const char *s = strrchr(name, '/');
    size_t len, k = 0;
    bool again = true;

    s = s ? s + 1 : name;
    len = strlen(s);
    /* drop trailing variant words, each after a '-', '_' or ' ' */
    while (len > 0) {
        size_t j = len;

        while (j > 0 && s[j - 1] != '-' && s[j - 1] != '_' && s[j - 1] != ' ')
            j--;
        if (j == 0 || !variant_word(s + j, len - j))
            break;
        len = j - 1;
    }
    /* spaces, dashes, underscores and dots go; anything else stays, so a
     * name with a control character or a quote matches nothing */
    for (size_t i = 0; i < len && k + 1 < cap; i++)
        if (!strchr(" -_.", s[i]))
            out[k++] = (char)tolower((unsigned char)s[i]);
    out[k] = '\0';
    while (again) {
        again = false;
        for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; i++) {
            size_t n = strlen(vendors[i]);

            if (strncmp(out, vendors[i], n) == 0 && out[n] != '\0') {
                memmove(out, out + n, strlen(out + n) + 1);
                again = true;
            }
        }
    }
}

static int find(const char *name, const char *const *names, int n,
                const tplan_alias *aliases, int na)
{
    char key[KEY_MAX], k2[KEY_MAX];

    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    tplan_name_key(name, key, sizeof key);
    if (!key[0])
        return -1;
    for (int i = 0; i < n; i++) {
        tplan_name_key(names[i], k2, sizeof k2);
        if (strcmp(key, k2) == 0)
            return i;
    }
    for (int a = 0; a < na; a++) {
        tplan_name_key(aliases[a].alias, k2, sizeof k2);
        if (strcmp(key, k2) != 0)
            continue;
        for (int i = 0; i < n; i++)
            if (strcmp(names[i], aliases[a].name) == 0)
                return i;
    }
    return -1;
}

/* Levenshtein distance, capped at KEY_MAX-long keys. */
static int distance(const char *a, const char *b)
{
    int row[KEY_MAX + 1];
    int la = (int)strlen(a), lb = (int)strlen(b);

    for (int j = 0; j <= lb; j++)
        row[j] = j;
    for (int i = 1; i <= la; i++) {
        int diag = row[0];

        row[0] = i;
        for (int j = 1; j <= lb; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);

            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

int tplan_name_suggest(const char *name, const char *const *cands, int n,
                       const char **out, int max)
{
    char key[KEY_MAX], ck[KEY_MAX];
    int score[8], found = 0, limit;

    if (max > 8)
        max = 8;
    tplan_name_key(name, key, sizeof key);
    /* a typo per three characters, at least one */
    limit = (int)strlen(key) / 3 > 1 ? (int)strlen(key) / 3 : 1;
    for (int i = 0; i < n; i++) {
        int d;

        tplan_name_key(cands[i], ck, sizeof ck);
        d = distance(key, ck);
        if (key[0] && strstr(ck, key))
            d = 1; /* "llama3" names every llama3 preset */
        if (d > limit)
            continue;
        /* insert by score, ties in catalog order; drop past max */
        {
            int at = found;

            while (at > 0 && score[at - 1] > d)
                at--;
            if (at >= max)
                continue;
            for (int j = (found < max ? found : max - 1); j > at; j--) {
                out[j] = out[j - 1];
                score[j] = score[j - 1];
            }
            out[at] = cands[i];
            score[at] = d;
            if (found < max)
                found++;
        }
    }
    return found;
}

void tplan_name_hint(const char *name, const char *const *cands, int n,
                     const char *prefix, char *buf, size_t cap)
{
    const char *best[3];
    int k = tplan_name_suggest(name, cands, n, best, 3);
    size_t used;

    buf[0] = '\0';
    if (k == 0)
        return;
    snprintf(buf, cap, "did you mean %s%s", prefix, best[0]);
    for (int i = 1; i < k; i++) {
        used = strlen(buf);
        snprintf(buf + used, cap - used, "%s%s%s",
                 i == k - 1 ? " or " : ", ", prefix, best[i]);
    }
    used = strlen(buf);
    snprintf(buf + used, cap - used, "?");
}

int tplan_name_lookup(const char *name, const char *const *names, int n,
                      const tplan_alias *aliases, int na, const char *field,
                      const char *what, const char *list_cmd, tplan_err *err)
{
    char h[160];
    int i = find(name, names, n, aliases, na);

    if (i >= 0)
        return i;
    tplan_name_hint(name, names, n, "", h, sizeof h);
    if (h[0])
        tplan_err_set(err, TPLAN_ENOTFOUND, field,
                      "unknown %s (%s=%.64s): %s (`tplan %s` lists all)", what,
                      field, name, h, list_cmd);
    else
        tplan_err_set(err, TPLAN_ENOTFOUND, field,
                      "unknown %s (%s=%.64s); see `tplan %s`", what, field,
                      name, list_cmd);
    return -1;
}

int tplan_name_index(const char *const *names, int n, const char *p,
                     size_t len)
{
    for (int i = 0; i < n; i++)
        if (strlen(names[i]) == len && strncmp(p, names[i], len) == 0)
            return i;
    return -1;
}

void tplan_names_join(unsigned mask, const char *const *names, int n,
                      char *buf, size_t cap)
{
    size_t used = 0;

    if (!cap)
        return;
    buf[0] = '\0';
    for (int i = 0; i < n && used < cap; i++)
        if (mask & (1u << i))
            used += (size_t)snprintf(buf + used, cap - used, "%s%s",
                                     used ? "," : "", names[i]);
}
