/* Error kinds to exit statuses: the only place that decides them. */
#include "status.h"

#include <signal.h>
#include <stdio.h>

int exit_status(int code)
{
    switch (code) {
    case TPLAN_OK:
        return 0;
    case TPLAN_EUSAGE:
        return 2;
    case TPLAN_EINTR:
        return exit_signal(SIGINT);
    default: /* bad input, I/O, a busy database, a script, a limit */
        return 1;
    }
}

int exit_signal(int sig)
{
    return sig == SIGALRM ? 124 : 128 + sig;
}

int report(const tplan_err *err)
{
    fprintf(stderr, "tplan: %s\n", err->msg);
    return exit_status(err->code);
}
