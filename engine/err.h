/* Status codes and the caller-owned error record every fallible engine call
 * fills. Reporting never allocates. Knows nothing of I/O. */
#ifndef TPLAN_ERR_H
#define TPLAN_ERR_H

/* What kind of failure: front ends turn a kind into an exit status in one
 * place (cli/status.c), so a code says what went wrong, not how to exit. */
enum {
    TPLAN_OK = 0,
    TPLAN_EINVAL,    /* a field has a value outside what is accepted, or an
                        input file's content is wrong */
    TPLAN_ENOTFOUND, /* a named preset, GPU, precision... does not exist */
    TPLAN_ENOMEM,    /* out of memory */
    TPLAN_ESTOP,     /* a caller hook or sink asked to stop */
    TPLAN_EUSAGE,    /* the command line is wrong (an option, a value) */
    TPLAN_EIO,       /* a file cannot be opened, read, written or renamed */
    TPLAN_EBUSY,     /* a database is locked by another connection */
    TPLAN_EINTR,     /* stopped by a signal (SIGINT, SIGTERM) */
    TPLAN_ESCRIPT,   /* a script raised an error */
    TPLAN_ELIMIT,    /* a resource limit: --timeout, --max-memory, size */
    TPLAN_ECODES     /* how many codes there are */
};

typedef struct tplan_err {
    int code;
    char field[32]; /* the offending field, "" when none applies */
    char msg[512];  /* one line, lowercase, names the field and value */
} tplan_err;

/* Fill *err (which may be NULL) and return code. fmt is printf-style. */
int tplan_err_set(tplan_err *err, int code, const char *field, const char *fmt,
                  ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif
