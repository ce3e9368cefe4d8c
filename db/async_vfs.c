/* A SQLite VFS whose main database files write on a thread of their own.
 *
 * Writing a million plan rows, the writer thread spent about a third of
 * its time inside pwrite (the kernel copying pages into the page cache:
 * perf, ext4 on this project's CI machine). Here a main database file's
 * xWrite copies the page into a bounded queue and returns; an I/O thread
 * per file issues the pwrites in order. Every other operation on that
 * file, and every VFS-level operation (deleting the journal above all),
 * first waits until the queue is empty. So the only change is that a
 * write reaches the kernel a little later, always before anything that
 * could observe it: a sync still covers every write before it, a lock
 * is never released with writes pending, and a process killed with
 * writes queued leaves the file as if it had died before issuing them
 * (the rollback journal, written synchronously, restores the rest).
 * A failed queued write is returned by the next operation on the file.
 * Journals and temporary files go straight to the default VFS, and so do
 * the writes of a database in WAL mode (see afile.direct). */
#include "async_vfs.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

/* Pages queued per file: 64 pages of up to 64 KiB (4 MiB). A write
 * larger than a slot (never a page) is issued in place after a drain. */
#define SLOTS     64
#define SLOT_SIZE 65536

typedef struct slot {
    sqlite3_int64 off;
    int len;
    char *data;
    uint64_t seq; /* the file's seq_in when queued */
} slot;

typedef struct afile {
    sqlite3_file base; /* pMethods = &async_methods */
    sqlite3_file *real;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    slot q[SLOTS];
    int head, count;
    bool stop;
    /* The first failed write's error, until reported (taken). Writes
     * queued before it is reported are dropped: SQLite, told, rolls the
     * transaction back from its journal, as it would have had the write
     * failed in place and nothing after it been issued. */
    int err;
    uint64_t seq_in, drop_upto;
    int sector_size, device_flags; /* the real file's, read at open */
    /* Write in place from now on: the file is a WAL database. There the
     * main file is written only by checkpoints, which SQLite may record
     * as done without a sync (SQLITE_FCNTL_CKPT_DONE), so a failed write
     * must fail in place; and the page writes that matter go to the
     * -wal file, which is not queued anyway. */
    bool direct;
    struct afile *next; /* open_files */
} afile;

static sqlite3_vfs *base_vfs;
static sqlite3_vfs async_vfs;
static const sqlite3_io_methods async_methods;

/* Every open async file: VFS-level calls drain them all. */
static pthread_mutex_t files_mu = PTHREAD_MUTEX_INITIALIZER;
static afile *open_files;

static void *io_main(void *arg)
{
    afile *f = arg;

    pthread_mutex_lock(&f->mu);
    for (;;) {
        slot *s;
        int rc;

        while (f->count == 0 && !f->stop)
            pthread_cond_wait(&f->cv, &f->mu);
        if (f->count == 0)
            break;
        s = &f->q[f->head];
        if (f->err != SQLITE_OK || s->seq <= f->drop_upto) {
            rc = SQLITE_OK; /* dropped */
        } else {
            pthread_mutex_unlock(&f->mu);
            rc = f->real->pMethods->xWrite(f->real, s->data, s->len, s->off);
            pthread_mutex_lock(&f->mu);
        }
        if (rc != SQLITE_OK && f->err == SQLITE_OK)
            f->err = rc;
        f->head = (f->head + 1) % SLOTS;
        f->count--;
        pthread_cond_broadcast(&f->cv);
    }
    pthread_mutex_unlock(&f->mu);
    return NULL;
}

/* Report a failed write (under f->mu): what is queued now is dropped. */
static int take_err(afile *f)
{
    int rc = f->err;

    if (rc != SQLITE_OK) {
        f->err = SQLITE_OK;
        f->drop_upto = f->seq_in;
    }
    return rc;
}

/* Wait until every queued write is issued or dropped. With take, report
 * a failed write: reads, writes, syncs, truncation and close do, where
 * SQLite expects I/O errors; locks, sizes and file controls wait only. */
static int drain(afile *f, bool take)
{
    int rc = SQLITE_OK;

    pthread_mutex_lock(&f->mu);
    while (f->count > 0)
        pthread_cond_wait(&f->cv, &f->mu);
    if (take)
        rc = take_err(f);
    pthread_mutex_unlock(&f->mu);
    return rc;
}

static void drain_all(void)
{
    pthread_mutex_lock(&files_mu);
    for (afile *f = open_files; f; f = f->next)
        drain(f, false);
    pthread_mutex_unlock(&files_mu);
}

/* ---- file methods --------------------------------------------------- */

#define FILE_OF(p) ((afile *)(p))
#define REAL(p)    (FILE_OF(p)->real)
#define DRAIN(p)   drain(FILE_OF(p), false)
/* wait, and return a failed write's error */
#define DRAIN_OR(p)                                                            \
    do {                                                                       \
        int rc_ = drain(FILE_OF(p), true);                                     \
        if (rc_ != SQLITE_OK)                                                  \
            return rc_;                                                        \
    } while (0)

static int a_close(sqlite3_file *p)
{
    afile *f = FILE_OF(p);
    int rc = drain(f, true), rc2;

    pthread_mutex_lock(&files_mu);
    for (afile **pp = &open_files; *pp; pp = &(*pp)->next)
        if (*pp == f) {
            *pp = f->next;
            break;
        }
    pthread_mutex_unlock(&files_mu);
    pthread_mutex_lock(&f->mu);
    f->stop = true;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
    pthread_join(f->thread, NULL);
    for (int i = 0; i < SLOTS; i++)
        free(f->q[i].data);
    pthread_cond_destroy(&f->cv);
    pthread_mutex_destroy(&f->mu);
    rc2 = f->real->pMethods->xClose(f->real);
    return rc != SQLITE_OK ? rc : rc2;
}

/* The database header's read and write versions (bytes 18 and 19) are 2
 * in WAL mode (SQLite file format, section 1.3). */
static void note_wal(afile *f, const void *buf, int amt, sqlite3_int64 off)
{
    const unsigned char *h = buf;

    if (off == 0 && amt >= 20 && (h[18] == 2 || h[19] == 2))
        f->direct = true;
}

static int a_read(sqlite3_file *p, void *buf, int amt, sqlite3_int64 off)
{
    int rc;

    DRAIN_OR(p); /* not the page as it was before a write that failed */
    rc = REAL(p)->pMethods->xRead(REAL(p), buf, amt, off);
    if (rc == SQLITE_OK)
        note_wal(FILE_OF(p), buf, amt, off);
    return rc;
}

static int a_write(sqlite3_file *p, const void *buf, int amt, sqlite3_int64 off)
{
    afile *f = FILE_OF(p);
    int rc;
    slot *s;

    note_wal(f, buf, amt, off);
    if (amt > SLOT_SIZE || f->direct) {
        DRAIN_OR(p);
        return f->real->pMethods->xWrite(f->real, buf, amt, off);
    }
    pthread_mutex_lock(&f->mu);
    while (f->count == SLOTS)
        pthread_cond_wait(&f->cv, &f->mu);
    if ((rc = take_err(f)) != SQLITE_OK) {
        pthread_mutex_unlock(&f->mu);
        return rc;
    }
    s = &f->q[(f->head + f->count) % SLOTS];
    memcpy(s->data, buf, (size_t)amt);
    s->len = amt;
    s->off = off;
    s->seq = ++f->seq_in;
    f->count++;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
    return SQLITE_OK;
}

static int a_truncate(sqlite3_file *p, sqlite3_int64 size)
{
    DRAIN_OR(p);
    return REAL(p)->pMethods->xTruncate(REAL(p), size);
}

static int a_sync(sqlite3_file *p, int flags)
{
    DRAIN_OR(p);
    return REAL(p)->pMethods->xSync(REAL(p), flags);
}

static int a_file_size(sqlite3_file *p, sqlite3_int64 *size)
{
    DRAIN(p);
    return REAL(p)->pMethods->xFileSize(REAL(p), size);
}

static int a_lock(sqlite3_file *p, int level)
{
    DRAIN(p);
    return REAL(p)->pMethods->xLock(REAL(p), level);
}

static int a_unlock(sqlite3_file *p, int level)
{
    DRAIN(p);
    return REAL(p)->pMethods->xUnlock(REAL(p), level);
}

static int a_check_reserved(sqlite3_file *p, int *out)
{
    DRAIN(p);
    return REAL(p)->pMethods->xCheckReservedLock(REAL(p), out);
}

static int a_file_control(sqlite3_file *p, int op, void *arg)
{
    DRAIN(p);
    return REAL(p)->pMethods->xFileControl(REAL(p), op, arg);
}

/* cached at open: the real file is the I/O thread's while it writes */
static int a_sector_size(sqlite3_file *p)
{
    return FILE_OF(p)->sector_size;
}

static int a_device_characteristics(sqlite3_file *p)
{
    return FILE_OF(p)->device_flags;
}

static int a_shm_map(sqlite3_file *p, int pg, int pgsz, int extend,
                     void volatile **out)
{
    FILE_OF(p)->direct = true; /* a WAL index: a WAL database */
    DRAIN(p);
    return REAL(p)->pMethods->xShmMap(REAL(p), pg, pgsz, extend, out);
}

static int a_shm_lock(sqlite3_file *p, int offset, int n, int flags)
{
    DRAIN(p);
    return REAL(p)->pMethods->xShmLock(REAL(p), offset, n, flags);
}

/* a memory barrier on the WAL index: nothing to do with queued pages
 * (the real file's shared-memory state is not what the I/O thread uses) */
static void a_shm_barrier(sqlite3_file *p)
{
    REAL(p)->pMethods->xShmBarrier(REAL(p));
}

static int a_shm_unmap(sqlite3_file *p, int del)
{
    DRAIN(p);
    return REAL(p)->pMethods->xShmUnmap(REAL(p), del);
}

/* Version 2 methods only: no memory-mapped pages (xFetch) through here,
 * so every read goes through a_read and sees the queued writes. */
static const sqlite3_io_methods async_methods = {
    .iVersion = 2,
    .xClose = a_close,
    .xRead = a_read,
    .xWrite = a_write,
    .xTruncate = a_truncate,
    .xSync = a_sync,
    .xFileSize = a_file_size,
    .xLock = a_lock,
    .xUnlock = a_unlock,
    .xCheckReservedLock = a_check_reserved,
    .xFileControl = a_file_control,
    .xSectorSize = a_sector_size,
    .xDeviceCharacteristics = a_device_characteristics,
    .xShmMap = a_shm_map,
    .xShmLock = a_shm_lock,
    .xShmBarrier = a_shm_barrier,
    .xShmUnmap = a_shm_unmap,
};

/* ---- the VFS -------------------------------------------------------- */

static int start(afile *f)
{
    sigset_t all, old;
    int rc;

    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->cv, NULL);
    for (int i = 0; i < SLOTS; i++)
        if (!(f->q[i].data = malloc(SLOT_SIZE)))
            goto fail;
    /* signals stay with the threads that handle them */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&f->thread, NULL, io_main, f);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc == 0)
        return 0;
fail:
    for (int i = 0; i < SLOTS; i++)
        free(f->q[i].data);
    pthread_cond_destroy(&f->cv);
    pthread_mutex_destroy(&f->mu);
    return -1;
}

static int v_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *p,
                  int flags, int *out_flags)
{
    afile *f = FILE_OF(p);
    int rc;

    (void)vfs;
    if (!(flags & SQLITE_OPEN_MAIN_DB)) /* the file is the base VFS's */
        return base_vfs->xOpen(base_vfs, name, p, flags, out_flags);
    memset(f, 0, sizeof *f);
    f->real = (sqlite3_file *)(f + 1);
    rc = base_vfs->xOpen(base_vfs, name, f->real, flags, out_flags);
    if (rc != SQLITE_OK) {
        f->base.pMethods = NULL;
        return rc;
    }
    f->sector_size = f->real->pMethods->xSectorSize(f->real);
    f->device_flags = f->real->pMethods->xDeviceCharacteristics(f->real);
    if (start(f) != 0) { /* no thread: the plain file, synchronous */
        sqlite3_file *real = f->real;

        real->pMethods->xClose(real);
        return base_vfs->xOpen(base_vfs, name, p, flags, out_flags);
    }
    f->base.pMethods = &async_methods;
    pthread_mutex_lock(&files_mu);
    f->next = open_files;
    open_files = f;
    pthread_mutex_unlock(&files_mu);
    return SQLITE_OK;
}

static int v_delete(sqlite3_vfs *vfs, const char *name, int sync_dir)
{
    (void)vfs;
    drain_all();
    return base_vfs->xDelete(base_vfs, name, sync_dir);
}

static int v_access(sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
    (void)vfs;
    drain_all();
    return base_vfs->xAccess(base_vfs, name, flags, out);
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *registered;

static void register_vfs(void)
{
    if (!(base_vfs = sqlite3_vfs_find(NULL)))
        return;
    async_vfs = *base_vfs; /* names, randomness, time, dlopen: the base's */
    async_vfs.iVersion = base_vfs->iVersion < 3 ? base_vfs->iVersion : 3;
    async_vfs.szOsFile = (int)sizeof(afile) + base_vfs->szOsFile;
    async_vfs.zName = "tplan-async";
    async_vfs.pNext = NULL;
    async_vfs.xOpen = v_open;
    async_vfs.xDelete = v_delete;
    async_vfs.xAccess = v_access;
    if (sqlite3_vfs_register(&async_vfs, 0) == SQLITE_OK)
        registered = async_vfs.zName;
}

const char *tplan_async_vfs(void)
{
    pthread_once(&once, register_vfs);
    return registered;
}
