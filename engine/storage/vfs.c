#include "storage/vfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static ssize_t posix_pread(void *ctx, int fd, void *dst, size_t len, uint64_t off) {
    (void)ctx;
    return pread(fd, dst, len, (off_t)off);
}

static ssize_t posix_pwrite(void *ctx, int fd, const void *src, size_t len, uint64_t off) {
    (void)ctx;
    return pwrite(fd, src, len, (off_t)off);
}

static int posix_sync(void *ctx, int fd) {
    (void)ctx;
    return fdatasync(fd);
}

static int posix_truncate(void *ctx, int fd, uint64_t size) {
    (void)ctx;
    return ftruncate(fd, (off_t)size);
}

static int posix_size(void *ctx, int fd, uint64_t *out) {
    (void)ctx;
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -1;
    *out = (uint64_t)st.st_size;
    return 0;
}

static int posix_rename(void *ctx, const char *from, const char *to) {
    (void)ctx;
    return rename(from, to);
}

static int posix_close_fd(void *ctx, int fd) {
    (void)ctx;
    return close(fd);
}

static const vfs posix_vfs = {posix_pread, posix_pwrite, posix_sync,     posix_truncate,
                              posix_size,  posix_rename, posix_close_fd, NULL};
static const vfs *current = &posix_vfs;

const vfs *vfs_posix(void) {
    return &posix_vfs;
}

const vfs *vfs_default(void) {
    return current;
}

void vfs_set_default(const vfs *v) {
    current = v ? v : &posix_vfs;
}

/* Reads into `dst` (src NULL) or writes `src` until all `len` bytes are
 * done: a short transfer continues, an interrupted one retries, and no
 * progress is an error (EIO). */
static int transfer_all(const vfs *v, int fd, unsigned char *dst, const unsigned char *src,
                        size_t len, uint64_t off) {
    size_t done = 0;
    while (done < len) {
        ssize_t n = src ? v->pwrite(v->ctx, fd, src + done, len - done, off + done)
                        : v->pread(v->ctx, fd, dst + done, len - done, off + done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}

int vfs_read_all(const vfs *v, int fd, void *dst, size_t len, uint64_t off) {
    return transfer_all(v, fd, dst, NULL, len, off);
}

int vfs_write_all(const vfs *v, int fd, const void *src, size_t len, uint64_t off) {
    return transfer_all(v, fd, NULL, src, len, off);
}

int vfs_sync_dir(const char *path) {
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    if (!dir)
        return -1;
    int fd = open(dir, O_RDONLY);
    free(dir);
    if (fd < 0)
        return -1;
    int rc = fsync(fd) != 0 && errno != EINVAL ? -1 : 0;
    close(fd);
    return rc;
}
