/* The browser's entry point (web/tplan_web.c). */
#ifndef TPLAN_WEB_H
#define TPLAN_WEB_H

/* calc's options as a URL query ("model=llama3-8b&gpus=8"; a leading '?'
 * is skipped) -> a JSON object the caller frees with tplan_web_free:
 * the whole object `tplan calc --json` prints (text/calc_json.c), or
 * {"error": "the engine's one line", "field": "name"}. NULL: out of
 * memory. */
char *tplan_web_calc(const char *query);
/* The same with the model from a pasted config.json, parsed by the page
 * (JSON.parse) into Module.tplanObjs[0]: label names it (a file name, as
 * calc --model-config's path: the model's name and messages), root_kind
 * is the root value's tplan_hv_kind; the query gives no model. */
char *tplan_web_calc_config(const char *query, const char *label,
                            int root_kind);
/* {"models": [...], "gpus": [...]}: the engine's preset and GPU names,
 * for the page's lists; freed with tplan_web_free. */
char *tplan_web_lists(void);
void tplan_web_free(char *s);

#endif
