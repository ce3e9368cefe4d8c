/* Exit statuses, decided in one place from an error's kind (engine/err.h):
 * 0 success, 1 a runtime, script, input or I/O error, 2 a usage error
 * (DESIGN.md), 124 a --timeout (as timeout(1)), 128 + N a signal N. */
#ifndef TPLAN_CLI_STATUS_H
#define TPLAN_CLI_STATUS_H

#include "err.h"

/* The exit status of an error kind (TPLAN_OK: 0). */
int exit_status(int code);

/* The exit status of a run stopped by signal sig (SIGALRM: --timeout). */
int exit_signal(int sig);

/* Print "tplan: MESSAGE" on stderr; return exit_status(err->code). */
int report(const tplan_err *err);

#endif
