/* `tplan gpus`, `tplan models`, `tplan frameworks` and `tplan fields`. */
#ifndef TPLAN_CLI_CATALOG_H
#define TPLAN_CLI_CATALOG_H

int cmd_gpus(int argc, char **argv);
int cmd_models(int argc, char **argv);
/* `tplan frameworks [FILTER] [--names] [--json]`: the framework profiles. */
int cmd_frameworks(int argc, char **argv);
/* `tplan fields [--json]`: the plan field table. */
int cmd_fields(int argc, char **argv);

#endif
