/* The I/O seam under the pager and the WAL: every write, sync, truncate
 * and rename of a database file goes through one table of function pointers, so tests
 * can swap in a layer that fails or "crashes" at the Nth operation. Reads
 * go through it too (a test may corrupt what is read).
 *
 * Each function returns 0 or -1 with errno set; partial transfers are
 * retried by the callers in vfs.c, never by the hooks. */
#ifndef MG_STORAGE_VFS_H
#define MG_STORAGE_VFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct vfs {
    ssize_t (*pread)(void *ctx, int fd, void *dst, size_t len, uint64_t off);
    ssize_t (*pwrite)(void *ctx, int fd, const void *src, size_t len, uint64_t off);
    int (*sync)(void *ctx, int fd);
    int (*truncate)(void *ctx, int fd, uint64_t size);
    int (*size)(void *ctx, int fd, uint64_t *out);
    /* A file renamed over another (a new log taking an old one's place);
     * a descriptor closed (a file no path names any more: wal.c). */
    int (*rename)(void *ctx, const char *from, const char *to);
    int (*close)(void *ctx, int fd);
    void *ctx;
} vfs;

/* The plain POSIX layer. */
const vfs *vfs_posix(void);

/* What new stores use; tests install a fault-injecting layer here. Not
 * thread-safe: set it before opening databases. NULL restores POSIX. */
const vfs *vfs_default(void);
void vfs_set_default(const vfs *v);

/* Syncs the directory holding `path`, so that a file just created there
 * survives a crash. 0 or -1 with errno set. */
int vfs_sync_dir(const char *path);

/* Whole transfers: loop over short reads/writes and EINTR. A read past the
 * end of the file fails with errno EIO. */
int vfs_read_all(const vfs *v, int fd, void *dst, size_t len, uint64_t off);
int vfs_write_all(const vfs *v, int fd, const void *src, size_t len, uint64_t off);

#endif
