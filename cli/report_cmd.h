/* `tplan report DB [--sweep NAME|ID] -o FILE.html`. */
#ifndef TPLAN_CLI_REPORT_CMD_H
#define TPLAN_CLI_REPORT_CMD_H

int cmd_report(int argc, char **argv);

#endif
