/* File identity by device and inode. */
#include "paths.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int tplan_path_fd(const char *path)
{
    static const char *const named[] = {"/dev/stdin", "/dev/stdout",
                                        "/dev/stderr"};
    static const char *const dirs[] = {"/dev/fd/", "/proc/self/fd/"};

    for (int i = 0; i < 3; i++)
        if (strcmp(path, named[i]) == 0)
            return i;
    for (int i = 0; i < 2; i++) {
        size_t n = strlen(dirs[i]);
        const char *p = path + n;
        long fd = 0;

        if (strncmp(path, dirs[i], n) != 0 || !*p)
            continue;
        for (; *p >= '0' && *p <= '9' && fd < 1000000; p++)
            fd = fd * 10 + (*p - '0');
        if (!*p && p > path + n)
            return (int)fd;
    }
    return -1;
}

const char *tplan_path_split(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');

    if (!slash) {
        snprintf(dir, len, ".");
        return path;
    }
    snprintf(dir, len, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    return slash + 1;
}

bool tplan_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    char da[4096], db[4096];
    const char *na, *nb;
    bool ea, eb;

    if (strcmp(a, b) == 0)
        return true;
    ea = stat(a, &sa) == 0;
    eb = stat(b, &sb) == 0;
    if (ea || eb)
        return ea && eb && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    na = tplan_path_split(a, da, sizeof da);
    nb = tplan_path_split(b, db, sizeof db);
    return strcmp(na, nb) == 0 && stat(da, &sa) == 0 && stat(db, &sb) == 0 &&
           sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
