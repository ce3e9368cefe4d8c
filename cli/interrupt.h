/* SIGINT and SIGTERM for the commands that write one output in one go
 * (export, merge): the first sets a flag that stops the database's
 * statements (tplan_store_set_stop) and the command's own loops; the
 * command then removes its temporary file or rolls its transaction back,
 * keeps the previous output, says so in one line and exits 130 or 143.
 * A second signal ends the process at once (the temporary goes). */
#ifndef TPLAN_CLI_INTERRUPT_H
#define TPLAN_CLI_INTERRUPT_H

#include <signal.h>

/* The signal caught (0: none yet). */
extern volatile sig_atomic_t interrupt_sig;

/* Catch SIGINT and SIGTERM until interrupt_restore; tmp (may be NULL)
 * names a temporary file a second signal removes before the exit. */
void interrupt_catch(void);
void interrupt_set_tmp(const char *tmp);
void interrupt_restore(void);

#endif
