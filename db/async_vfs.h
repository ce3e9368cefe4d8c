/* A SQLite VFS for the result writer: main database files write on an
 * I/O thread of their own, everything else waits for those writes
 * (async_vfs.c). */
#ifndef TPLAN_ASYNC_VFS_H
#define TPLAN_ASYNC_VFS_H

/* Register it once; its name for sqlite3_open_v2, or NULL when it could
 * not be registered (use the default VFS). */
const char *tplan_async_vfs(void);

#endif
