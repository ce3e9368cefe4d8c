/* SIGINT and SIGTERM for export and merge (interrupt.h). */
#include "interrupt.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "status.h"
#include "store.h"

volatile sig_atomic_t interrupt_sig;
static struct sigaction old_int, old_term;
/* a copy of the temporary's name: the writer's own may be freed first */
static char tmp_name[4200];
static const char *volatile tmp_path;

/* The first signal: the flag the statements and loops poll. A second:
 * remove the temporary and end now (unlink, write and _exit are
 * async-signal-safe, POSIX). */
static void on_interrupt(int sig)
{
    static const char msg[] = "tplan: interrupted again: exiting now\n";

    if (!interrupt_sig) {
        interrupt_sig = sig;
        return;
    }
    if (tmp_path)
        unlink(tmp_path);
    if (write(STDERR_FILENO, msg, sizeof msg - 1) < 0)
        _exit(exit_signal(sig));
    _exit(exit_signal(sig));
}

void interrupt_catch(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    interrupt_sig = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    tplan_store_set_stop(&interrupt_sig);
}

void interrupt_set_tmp(const char *tmp)
{
    tmp_path = NULL;
    if (tmp && strlen(tmp) < sizeof tmp_name) {
        strcpy(tmp_name, tmp);
        tmp_path = tmp_name;
    }
}

void interrupt_restore(void)
{
    tmp_path = NULL;
    tplan_store_set_stop(NULL);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
}
