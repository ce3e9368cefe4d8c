/* File identity for commands that read and write files: no command may
 * write over one of its inputs or write two outputs to one file. */
#ifndef TPLAN_PATHS_H
#define TPLAN_PATHS_H

#include <stdbool.h>
#include <stddef.h>

/* Whether a and b name one file: the same device and inode when both
 * exist (links, "./x" and "x" alike); when neither exists yet, the same
 * directory (by its device and inode) and name. A file that exists and
 * one that does not are different. */
bool tplan_same_file(const char *a, const char *b);

/* The descriptor path names, by its spelling: /dev/stdin, /dev/stdout,
 * /dev/stderr (0, 1, 2), /dev/fd/N and /proc/self/fd/N (N); -1 for any
 * other path. Such an output is the process's own stream, opened by its
 * caller (`>> log`): written through the descriptor, never replaced by a
 * file renamed over whatever it leads to (issue 36). */
int tplan_path_fd(const char *path);

/* The directory part of path into dir (len bytes: "." when it has none,
 * "/" for a file at the root); returns its last name. */
const char *tplan_path_split(const char *path, char *dir, size_t len);

#endif
