/* `tplan calibrate`: a framework profile fitted to runs the user measured
 * (docs/MODEL.md section 15). */
#ifndef TPLAN_CLI_CALIB_CMD_H
#define TPLAN_CLI_CALIB_CMD_H

int cmd_calibrate(int argc, char **argv);

#endif
