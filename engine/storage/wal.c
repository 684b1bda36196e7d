#include "storage/wal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/crc32.h"
#include "storage/format.h"
#include "storage/vfs.h"

#define WAL_MAGIC "MGRAFWAL"
#define WAL_VERSION 1u
#define WAL_HEADER 32
#define WAL_MIN_PAYLOAD 12 /* tx_count and fact count (store_codec.h) */

struct wal {
    const vfs *io;
    int fd; /* -1: a read-only open of a missing log */
    char *path;
    bool read_only;
    uint64_t end; /* just past the last intact frame */
};

/* Covers the length field too, so a run of zero bytes (what a crash can
 * leave past the old end of a file) is never a valid empty frame. */
static uint32_t frame_crc(const uint8_t *header, const uint8_t *payload, size_t len) {
    return crc32_update(crc32_update(0, header, 4), payload, len);
}

static int io_error(err *e, int code, const char *what, const wal *w) {
    return err_set(e, code, "%s failed for %s: %s", what, w->path, strerror(errno));
}

static void header_bytes(uint8_t *h, uint64_t generation) {
    memset(h, 0, WAL_HEADER);
    memcpy(h, WAL_MAGIC, 8);
    format_put_le(h + 8, WAL_VERSION, 4);
    format_put_le(h + 16, generation, 8);
    format_put_le(h + 24, crc32_update(0, h, 24), 4);
}

/* Unless `sync`, the next sync of the log (a commit's) makes the reset
 * durable, together with the frame appended after it. A crash before that
 * may leave the old header and frames; those frames are all at or below the
 * tx_count of the main file's header, synced before the reset, so replay
 * skips them, and a new frame torn over them ends the log where it starts.
 * That needs every frame synced before the next one is written (frames of
 * two commits could otherwise land without the first, behind an old frame
 * of the same length, and read as a gap): a log whose commits are not
 * synced asks for `sync`. */
int wal_reset(wal *w, uint64_t generation, bool sync, err *e) {
    uint8_t h[WAL_HEADER];
    header_bytes(h, generation);
    if (vfs_write_all(w->io, w->fd, h, sizeof h, 0) != 0)
        return io_error(e, ERR(STG, 12), "write", w);
    if (w->io->truncate(w->io->ctx, w->fd, WAL_HEADER) != 0)
        return io_error(e, ERR(STG, 14), "truncate", w);
    if (sync && w->io->sync(w->io->ctx, w->fd) != 0)
        return io_error(e, ERR(STG, 13), "sync", w);
    w->end = WAL_HEADER;
    return 0;
}

/* A header torn while a reset rewrote it keeps its magic but fails its
 * checksum; its frames (if any) are then older than the main file and are
 * skipped by transaction number, so base 0 is safe. */
static int check_header(wal *w, uint64_t size, uint64_t *base, err *e) {
    uint8_t h[WAL_HEADER] = {0};
    size_t n = size < WAL_HEADER ? (size_t)size : WAL_HEADER;
    if (vfs_read_all(w->io, w->fd, h, n, 0) != 0)
        return io_error(e, ERR(STG, 11), "read", w);
    if (memcmp(h, WAL_MAGIC, n < 8 ? n : 8) != 0)
        return err_set(e, ERR(WAL, 1), "bad WAL magic in %s", w->path);
    uint32_t version = (uint32_t)format_get_le(h + 8, 4);
    bool intact = size >= WAL_HEADER && format_get_le(h + 24, 4) == crc32_update(0, h, 24);
    if (intact && version != WAL_VERSION)
        return err_set(e, ERR(WAL, 2), "unsupported WAL version %u in %s", (unsigned)version,
                       w->path);
    *base = intact ? format_get_le(h + 16, 8) : 0;
    w->end = WAL_HEADER;
    return 0;
}

static int open_fd(wal *w, uint64_t generation, uint64_t *base, err *e) {
    int flags = w->read_only ? O_RDONLY | O_CLOEXEC : O_RDWR | O_CREAT | O_CLOEXEC;
    w->fd = open(w->path, flags, 0644);
    if (w->fd < 0 && w->read_only && errno == ENOENT) {
        *base = 0;
        return 0;
    }
    if (w->fd < 0)
        return io_error(e, ERR(STG, 10), "open", w);
    uint64_t size;
    if (w->io->size(w->io->ctx, w->fd, &size) != 0)
        return io_error(e, ERR(STG, 15), "stat", w);
    if (size == 0 && !w->read_only) {
        *base = generation;
        int rc = wal_reset(w, generation, true, e);
        if (rc == 0 && vfs_sync_dir(w->path) != 0) /* the new log must outlive a crash */
            rc = io_error(e, ERR(STG, 13), "directory sync", w);
        return rc;
    }
    if (size == 0) {
        *base = 0;
        return 0;
    }
    return check_header(w, size, base, e);
}

int wal_open(const char *db_path, bool read_only, uint64_t generation, wal **out, uint64_t *base,
             err *e) {
    wal *w = calloc(1, sizeof *w);
    size_t n = strlen(db_path);
    char *path = malloc(n + 5);
    if (!w || !path) {
        free(w);
        free(path);
        return err_set(e, ERR(INT, 0), "out of memory");
    }
    memcpy(path, db_path, n);
    memcpy(path + n, ".wal", 5);
    w->path = path;
    w->io = vfs_default();
    w->read_only = read_only;
    int rc = open_fd(w, generation, base, e);
    if (rc != 0) {
        wal_close(w);
        return rc;
    }
    *out = w;
    return 0;
}

void wal_close(wal *w) {
    if (!w)
        return;
    if (w->fd >= 0)
        close(w->fd);
    free(w->path);
    free(w);
}

uint64_t wal_size(const wal *w) {
    return w->end > WAL_HEADER ? w->end - WAL_HEADER : 0;
}

/* 1 with *payload (malloc'd) when the frame at `off` is intact, 0 when it
 * is torn, or an error. */
static int read_frame(const wal *w, uint64_t off, uint64_t size, uint8_t **payload,
                      uint32_t *len, err *e) {
    uint8_t h[WAL_FRAME_HEADER];
    if (size < off || size - off < WAL_FRAME_HEADER)
        return 0;
    if (vfs_read_all(w->io, w->fd, h, sizeof h, off) != 0)
        return io_error(e, ERR(STG, 11), "read", w);
    *len = (uint32_t)format_get_le(h, 4);
    if (*len > size - off - WAL_FRAME_HEADER)
        return 0;
    uint8_t *p = malloc(*len ? *len : 1);
    if (!p)
        return err_set(e, ERR(INT, 0), "out of memory");
    if (vfs_read_all(w->io, w->fd, p, *len, off + WAL_FRAME_HEADER) != 0) {
        free(p);
        return io_error(e, ERR(STG, 11), "read", w);
    }
    if (*len < WAL_MIN_PAYLOAD || frame_crc(h, p, *len) != format_get_le(h + 4, 4)) {
        free(p);
        return 0;
    }
    *payload = p;
    return 1;
}

static int cut_tail(wal *w, uint64_t size, err *e) {
    if (w->read_only || w->end >= size)
        return 0;
    if (w->io->truncate(w->io->ctx, w->fd, w->end) != 0)
        return io_error(e, ERR(STG, 14), "truncate", w);
    if (w->io->sync(w->io->ctx, w->fd) != 0)
        return io_error(e, ERR(STG, 13), "sync", w);
    return 0;
}

int wal_replay(wal *w, wal_apply_fn apply, void *ctx, err *e) {
    uint64_t size;
    if (w->fd < 0)
        return 0;
    if (w->io->size(w->io->ctx, w->fd, &size) != 0)
        return io_error(e, ERR(STG, 15), "stat", w);
    for (;;) {
        uint8_t *payload = NULL;
        uint32_t len = 0;
        int rc = read_frame(w, w->end, size, &payload, &len, e);
        if (rc == 0)
            break;
        if (rc != 1)
            return rc;
        rc = apply(ctx, payload, len, e);
        free(payload);
        if (rc != 0)
            return rc;
        w->end += WAL_FRAME_HEADER + (uint64_t)len;
    }
    return cut_tail(w, size, e);
}

int wal_append(wal *w, uint8_t *frame, size_t frame_len, bool sync, err *e) {
    size_t len = frame_len - WAL_FRAME_HEADER;
    if (len > UINT32_MAX)
        return err_set(e, ERR(STG, 16), "transaction too large for one log frame (%zu bytes)", len);
    format_put_le(frame, len, 4);
    format_put_le(frame + 4, frame_crc(frame, frame + WAL_FRAME_HEADER, len), 4);
    if (vfs_write_all(w->io, w->fd, frame, frame_len, w->end) != 0)
        return io_error(e, ERR(STG, 12), "write", w);
    if (sync && w->io->sync(w->io->ctx, w->fd) != 0)
        return io_error(e, ERR(STG, 13), "sync", w);
    w->end += frame_len;
    return 0;
}

int wal_sync(wal *w, err *e) {
    if (w->fd < 0 || w->read_only)
        return 0;
    if (w->io->sync(w->io->ctx, w->fd) != 0)
        return io_error(e, ERR(STG, 13), "sync", w);
    return 0;
}
