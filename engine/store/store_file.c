#include "store/store_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/crc32.h"
#include "store/store_lock.h"

#define STORE_FILE_VERSION 1u
#define STORE_FILE_HEADER 16

struct store_file {
    int fd;
    store_lock *lock;
    bool read_only;
    char *path;
    uint64_t end; /* offset just past the last intact record */
};

static uint32_t get_u32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static void put_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static int io_error(err *e, int code, const char *what, const store_file *f) {
    return err_set(e, code, "%s failed for %s: %s", what, f->path, strerror(errno));
}

/* pread/pwrite until done: both may transfer less than asked. */
static int read_at(const store_file *f, void *dst, size_t len, uint64_t off, err *e) {
    uint8_t *p = dst;
    while (len > 0) {
        ssize_t n = pread(f->fd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return io_error(e, ERR(STG, 11), "read", f);
        }
        p += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

static int write_at(const store_file *f, const void *src, size_t len, uint64_t off, err *e) {
    const uint8_t *p = src;
    while (len > 0) {
        ssize_t n = pwrite(f->fd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return io_error(e, ERR(STG, 12), "write", f);
        }
        p += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

static void header_bytes(uint8_t out[STORE_FILE_HEADER]) {
    memcpy(out, "MINIGRAF", 8);
    put_u32(out + 8, STORE_FILE_VERSION);
    put_u32(out + 12, crc32_update(0, out, 12));
}

/* A new file must survive a crash right after creation, so its directory
 * entry is synced too. */
static int sync_parent_dir(const store_file *f, err *e) {
    const char *slash = strrchr(f->path, '/');
    char *dir = slash ? strndup(f->path, slash == f->path ? 1 : (size_t)(slash - f->path))
                      : strdup(".");
    if (!dir)
        return err_set(e, ERR(INT, 0), "out of memory");
    int fd = open(dir, O_RDONLY);
    free(dir);
    if (fd < 0)
        return io_error(e, ERR(STG, 10), "opening the directory", f);
    int rc = fsync(fd) != 0 && errno != EINVAL ? io_error(e, ERR(STG, 13), "directory sync", f) : 0;
    close(fd);
    return rc;
}

static int write_header(store_file *f, err *e) {
    uint8_t h[STORE_FILE_HEADER];
    header_bytes(h);
    if (ftruncate(f->fd, 0) != 0)
        return io_error(e, ERR(STG, 14), "truncate", f);
    int rc = write_at(f, h, sizeof h, 0, e);
    if (rc != 0)
        return rc;
    if (fdatasync(f->fd) != 0)
        return io_error(e, ERR(STG, 13), "sync", f);
    f->end = STORE_FILE_HEADER;
    return sync_parent_dir(f, e);
}

static int check_header(const store_file *f, const uint8_t h[STORE_FILE_HEADER], err *e) {
    if (memcmp(h, "MINIGRAF", 8) != 0)
        return err_set(e, ERR(STG, 2), "not a minigraf database file: %s", f->path);
    uint32_t version = get_u32(h + 8);
    if (version != STORE_FILE_VERSION)
        return err_set(e, ERR(STG, 3), "unsupported database format version %u (expected %u): %s",
                       (unsigned)version, STORE_FILE_VERSION, f->path);
    if (get_u32(h + 12) != crc32_update(0, h, 12))
        return err_set(e, ERR(STG, 4), "database file header checksum mismatch: %s", f->path);
    return 0;
}

/* A file shorter than the header is either a header torn while the file
 * was being created (a prefix of what we write: start over) or foreign. */
static int short_header(store_file *f, uint64_t size, err *e) {
    uint8_t want[STORE_FILE_HEADER], have[STORE_FILE_HEADER];
    header_bytes(want);
    int rc = size > 0 ? read_at(f, have, (size_t)size, 0, e) : 0;
    if (rc != 0)
        return rc;
    bool torn_ours = memcmp(have, want, (size_t)size) == 0;
    if (torn_ours && !f->read_only)
        return write_header(f, e);
    if (torn_ours) /* read-only: an empty database */
        return 0;
    if (memcmp(have, want, size < 8 ? (size_t)size : 8) != 0)
        return err_set(e, ERR(STG, 2), "not a minigraf database file: %s", f->path);
    return err_set(e, ERR(STG, 1), "database file header is too short: %s", f->path);
}

static int open_checked(store_file *f, err *e) {
    struct stat st;
    if (fstat(f->fd, &st) != 0)
        return io_error(e, ERR(STG, 15), "stat", f);
    uint64_t size = (uint64_t)st.st_size;
    if (size < STORE_FILE_HEADER)
        return short_header(f, size, e);
    uint8_t h[STORE_FILE_HEADER];
    int rc = read_at(f, h, sizeof h, 0, e);
    if (rc == 0)
        rc = check_header(f, h, e);
    if (rc != 0)
        return rc;
    f->end = STORE_FILE_HEADER;
    return 0;
}

int store_file_open(const char *path, bool read_only, store_file **out, err *e) {
    store_file *f = calloc(1, sizeof *f);
    char *copy = strdup(path);
    if (!f || !copy) {
        free(f);
        free(copy);
        return err_set(e, ERR(INT, 0), "out of memory");
    }
    f->path = copy;
    f->read_only = read_only;
    f->fd = -1;
    int rc = store_lock_open(path, read_only, &f->fd, &f->lock, e);
    if (rc == 0)
        rc = open_checked(f, e);
    if (rc != 0) {
        store_file_close(f);
        return rc;
    }
    *out = f;
    return 0;
}

/* Reads the frame at `off`. Returns 1 with *payload (malloc'd) set when the
 * frame is intact, 0 when it is torn, or an error code. */
static int read_frame(const store_file *f, uint64_t off, uint64_t size, uint8_t **payload,
                      uint32_t *len, err *e) {
    uint8_t h[STORE_FILE_FRAME_HEADER];
    if (size - off < STORE_FILE_FRAME_HEADER)
        return 0;
    int rc = read_at(f, h, sizeof h, off, e);
    if (rc != 0)
        return rc;
    *len = get_u32(h);
    if (*len > size - off - STORE_FILE_FRAME_HEADER)
        return 0;
    uint8_t *p = malloc(*len ? *len : 1);
    if (!p)
        return err_set(e, ERR(INT, 0), "out of memory");
    rc = read_at(f, p, *len, off + STORE_FILE_FRAME_HEADER, e);
    if (rc != 0) {
        free(p);
        return rc;
    }
    if (crc32_update(0, p, *len) != get_u32(h + 4)) {
        free(p);
        return 0;
    }
    *payload = p;
    return 1;
}

static int cut_tail(store_file *f, uint64_t size, err *e) {
    if (f->read_only || f->end == size)
        return 0;
    if (ftruncate(f->fd, (off_t)f->end) != 0)
        return io_error(e, ERR(STG, 14), "truncate", f);
    if (fdatasync(f->fd) != 0)
        return io_error(e, ERR(STG, 13), "sync", f);
    return 0;
}

int store_file_replay(store_file *f, store_file_apply_fn apply, void *ctx, err *e) {
    struct stat st;
    if (fstat(f->fd, &st) != 0)
        return io_error(e, ERR(STG, 15), "stat", f);
    uint64_t size = (uint64_t)st.st_size;
    if (f->end == 0) /* read-only empty file */
        return 0;
    for (;;) {
        uint8_t *payload = NULL;
        uint32_t len = 0;
        int rc = read_frame(f, f->end, size, &payload, &len, e);
        if (rc == 0)
            break;
        if (rc != 1)
            return rc;
        rc = apply(ctx, payload, len, e);
        free(payload);
        if (rc != 0)
            return rc;
        f->end += STORE_FILE_FRAME_HEADER + (uint64_t)len;
    }
    return cut_tail(f, size, e);
}

int store_file_append(store_file *f, uint8_t *frame, size_t frame_len, err *e) {
    size_t len = frame_len - STORE_FILE_FRAME_HEADER;
    if (len > UINT32_MAX)
        return err_set(e, ERR(STG, 16), "transaction too large for one record (%zu bytes)", len);
    put_u32(frame, (uint32_t)len);
    put_u32(frame + 4, crc32_update(0, frame + STORE_FILE_FRAME_HEADER, len));
    int rc = write_at(f, frame, frame_len, f->end, e);
    if (rc != 0) {
        if (ftruncate(f->fd, (off_t)f->end) != 0) {
            /* Harmless: a partial frame is cut away at the next open. */
        }
        return rc;
    }
    if (fdatasync(f->fd) != 0)
        return io_error(e, ERR(STG, 13), "sync", f);
    f->end += frame_len;
    return 0;
}

int store_file_sync(store_file *f, err *e) {
    if (f->read_only)
        return 0;
    if (fsync(f->fd) != 0)
        return io_error(e, ERR(STG, 13), "sync", f);
    return 0;
}

void store_file_close(store_file *f) {
    if (!f)
        return;
    store_lock_release(f->lock);
    if (f->fd >= 0)
        close(f->fd);
    free(f->path);
    free(f);
}
