/* The browser's entry point (web/tplan_web.c). */
#ifndef TPLAN_WEB_H
#define TPLAN_WEB_H

/* calc's options as a URL query ("model=llama3-8b&gpus=8"; a leading '?'
 * is skipped) -> a JSON object the caller frees with tplan_web_free:
 * the whole object `tplan calc --json` prints (text/calc_json.c), or
 * {"error": "the engine's one line", "field": "name"}. NULL: out of
 * memory. */
char *tplan_web_calc(const char *query);
void tplan_web_free(char *s);

#endif
