/* File identity by device and inode. */
#include "paths.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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
