/* realpath(3) is XSI, beyond the project-wide _POSIX_C_SOURCE. */
#define _XOPEN_SOURCE 700

#include "storage/wal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/crc32.h"
#include "storage/vfs.h"

#define WAL_MAGIC "MGRAFWAL"
#define WAL_VERSION 3u
/* Version 2 (0.2.0): the same layout without a salt (zero at offset 12).
 * Version 3 marks logs that may hold frames of several generations (a
 * background checkpoint's), so that releases which would end such a log
 * at its older frames refuse it (WAL-002) instead. */
#define SALTLESS_VERSION 2u
#define WAL_MIN_PAYLOAD 12 /* tx_count and fact count (store_codec.h) */
/* The earlier release's layout (version 1), read only. */
#define LEGACY_VERSION 1u
#define LEGACY_HEADER 32
#define LEGACY_FRAME_HEADER 8

struct wal {
    const vfs *io;
    int fd; /* -1: a read-only open of a missing log */
    char *path;
    bool read_only;
    bool recover;
    uint8_t db_id[FORMAT_DB_ID_SIZE];
    uint64_t generation; /* the main file's: frames replayed and appended carry it */
    uint64_t base;       /* the header's (0: unknown) */
    uint32_t salt;       /* the header's: random at each reset (0: unknown, or older) */
    uint32_t continued;  /* the main file's header's wal_salt */
    bool legacy;         /* a version-1 log to replay by the old rules */
    bool legacy_stale;   /* a version-1 log beside a file with an identity */
    uint64_t end;        /* just past the last frame replayed or appended */
};

static int io_error(err *e, int code, const char *what, const wal *w) {
    return err_set(e, code, "%s failed for %s: %s", what, w->path, strerror(errno));
}

static uint64_t header_size(const wal *w) {
    return w->legacy ? LEGACY_HEADER : WAL_HEADER_SIZE;
}

/* ---- the path ------------------------------------------------------------ */

static char *join(const char *a, const char *sep, const char *b, const char *suffix) {
    size_t la = strlen(a), ls = strlen(sep), lb = strlen(b), lx = strlen(suffix);
    char *s = malloc(la + ls + lb + lx + 1);
    if (!s)
        return NULL;
    memcpy(s, a, la);
    memcpy(s + la, sep, ls);
    memcpy(s + la + ls, b, lb);
    memcpy(s + la + ls + lb, suffix, lx + 1);
    return s;
}

/* A file not created yet: its resolved directory and its own name. */
static char *resolve_missing(const char *db_path) {
    const char *slash = strrchr(db_path, '/');
    const char *name = slash ? slash + 1 : db_path;
    size_t dir_len = slash ? (size_t)(slash - db_path) : 0;
    char *dir = malloc(dir_len + 2);
    if (!dir)
        return NULL;
    if (!slash)
        memcpy(dir, ".", 2);
    else if (dir_len == 0)
        memcpy(dir, "/", 2);
    else {
        memcpy(dir, db_path, dir_len);
        dir[dir_len] = '\0';
    }
    char *real = realpath(dir, NULL);
    free(dir);
    if (!real || !*name) {
        free(real);
        return join(db_path, "", "", ".wal");
    }
    char *s = join(real, strcmp(real, "/") == 0 ? "" : "/", name, ".wal");
    free(real);
    return s;
}

char *wal_path_for(const char *db_path) {
    char *real = realpath(db_path, NULL);
    if (!real)
        return resolve_missing(db_path);
    char *s = join(real, "", "", ".wal");
    free(real);
    return s;
}

/* ---- header ---------------------------------------------------------- */

static void header_bytes(uint8_t *h, uint64_t generation, const uint8_t *db_id, uint32_t salt) {
    memset(h, 0, WAL_HEADER_SIZE);
    memcpy(h, WAL_MAGIC, 8);
    format_put_le(h + 8, WAL_VERSION, 4);
    format_put_le(h + 12, salt, 4);
    format_put_le(h + 16, generation, 8);
    memcpy(h + 24, db_id, FORMAT_DB_ID_SIZE);
    format_put_le(h + 40, crc32_update(0, h, 40), 4);
}

/* A log's salt tells it from another log of the same file (two hard
 * links) whose frames have the same generations. */
static uint32_t new_salt(void) {
    uint8_t r[FORMAT_DB_ID_SIZE];
    format_new_db_id(r);
    uint32_t salt = (uint32_t)format_get_le(r, 4) ^ (uint32_t)format_get_le(r + 4, 4);
    return salt ? salt : 1;
}

/* Unless `sync`, the next sync of the log (a commit's) makes the reset
 * durable, together with the frame appended after it. A crash before that
 * may leave the old header and frames; those frames carry an older
 * generation, which ends the log, and a new frame torn over them is a
 * torn tail (nothing of this generation verifies after it). That needs
 * every frame synced before the next one is written (frames of two
 * commits could otherwise land without the first): a log whose commits
 * are not synced asks for `sync`. */
int wal_reset(wal *w, uint64_t generation, const uint8_t *db_id, bool sync, err *e) {
    uint8_t h[WAL_HEADER_SIZE];
    uint32_t salt = new_salt();
    header_bytes(h, generation, db_id, salt);
    if (vfs_write_all(w->io, w->fd, h, sizeof h, 0) != 0)
        return io_error(e, ERR(STG, 12), "write", w);
    if (w->io->truncate(w->io->ctx, w->fd, WAL_HEADER_SIZE) != 0)
        return io_error(e, ERR(STG, 14), "truncate", w);
    if (sync && w->io->sync(w->io->ctx, w->fd) != 0)
        return io_error(e, ERR(STG, 13), "sync", w);
    memcpy(w->db_id, db_id, FORMAT_DB_ID_SIZE);
    w->generation = w->base = generation;
    w->salt = salt;
    w->legacy = w->legacy_stale = false;
    w->end = WAL_HEADER_SIZE;
    return 0;
}

static bool crc_at(const uint8_t *h, uint64_t size, size_t at) {
    return size >= at + 8 && format_get_le(h + at, 4) == crc32_update(0, h, at);
}

/* Which layout an intact header has, or (torn while a reset rewrote it:
 * the magic kept, the checksum failed) which one to assume: a file without
 * an identity was last reset by the earlier release. Its frames, if any,
 * are older than the main file, so base 0 is safe. */
static int check_header(wal *w, uint64_t size, uint64_t *base, err *e) {
    uint8_t h[WAL_HEADER_SIZE] = {0};
    size_t n = size < WAL_HEADER_SIZE ? (size_t)size : WAL_HEADER_SIZE;
    if (vfs_read_all(w->io, w->fd, h, n, 0) != 0)
        return io_error(e, ERR(STG, 11), "read", w);
    if (memcmp(h, WAL_MAGIC, n < 8 ? n : 8) != 0)
        return err_set(e, ERR(WAL, 1), "bad WAL magic in %s", w->path);
    uint32_t version = (uint32_t)format_get_le(h + 8, 4);
    bool v1 = crc_at(h, size, 24), v2 = crc_at(h, size, 40);
    bool has_id = format_has_db_id(w->db_id);
    *base = 0;
    if (v2 && (version == WAL_VERSION || version == SALTLESS_VERSION)) {
        *base = format_get_le(h + 16, 8);
        w->salt = version == WAL_VERSION ? (uint32_t)format_get_le(h + 12, 4) : 0;
        /* A file without an identity whose log continues a later checkpoint
         * lost the header that gave it one: STG-004 (store.c), not STG-044. */
        bool lost_upgrade = !has_id && *base > w->generation;
        if (memcmp(h + 24, w->db_id, FORMAT_DB_ID_SIZE) != 0 && !lost_upgrade)
            return err_set(e, ERR(STG, 44),
                           "the WAL %s belongs to another database (its "
                           "identifier is not the file's): it was not replayed",
                           w->path);
    } else if (v1 && version == LEGACY_VERSION) {
        w->legacy = !has_id;
        w->legacy_stale = has_id;
        *base = format_get_le(h + 16, 8);
    } else if (v1 || v2) {
        return err_set(e, ERR(WAL, 2), "unsupported WAL version %u in %s", (unsigned)version,
                       w->path);
    } else {
        w->legacy = !has_id;
    }
    w->base = *base;
    w->end = header_size(w);
    return 0;
}

static int open_fd(wal *w, uint64_t *base, err *e) {
    int flags = w->read_only ? O_RDONLY | O_CLOEXEC : O_RDWR | O_CREAT | O_CLOEXEC;
    w->fd = open(w->path, flags, 0644);
    *base = 0;
    if (w->fd < 0 && w->read_only && errno == ENOENT)
        return 0;
    if (w->fd < 0)
        return io_error(e, ERR(STG, 10), "open", w);
    uint64_t size;
    if (w->io->size(w->io->ctx, w->fd, &size) != 0)
        return io_error(e, ERR(STG, 15), "stat", w);
    if (size == 0 && !w->read_only) {
        *base = w->generation;
        int rc = wal_reset(w, w->generation, w->db_id, true, e);
        if (rc == 0 && vfs_sync_dir(w->path) != 0) /* the new log must outlive a crash */
            rc = io_error(e, ERR(STG, 13), "directory sync", w);
        return rc;
    }
    if (size == 0)
        return 0;
    return check_header(w, size, base, e);
}

int wal_open(const char *db_path, bool read_only, const wal_ident *id, wal **out, uint64_t *base,
             err *e) {
    wal *w = calloc(1, sizeof *w);
    char *path = wal_path_for(db_path);
    if (!w || !path) {
        free(w);
        free(path);
        return err_set(e, ERR(INT, 0), "out of memory");
    }
    w->path = path;
    w->io = vfs_default();
    w->read_only = read_only;
    w->recover = id->recover;
    memcpy(w->db_id, id->db_id, FORMAT_DB_ID_SIZE);
    w->generation = id->generation;
    w->continued = id->salt;
    w->end = WAL_HEADER_SIZE;
    int rc = open_fd(w, base, e);
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
        w->io->close(w->io->ctx, w->fd);
    free(w->path);
    free(w);
}

uint64_t wal_size(const wal *w) {
    return w->end > header_size(w) ? w->end - header_size(w) : 0;
}

/* ---- frames ---------------------------------------------------------- */

/* Covers the length field too, so a run of zero bytes (what a crash can
 * leave past the old end of a file) is never a valid empty frame; and the
 * database id, so another database's frame never verifies. */
static uint32_t frame_crc(const wal *w, const uint8_t *header, const uint8_t *payload, size_t len) {
    if (w->legacy)
        return crc32_update(crc32_update(0, header, 4), payload, len);
    uint32_t c = crc32_update(0, w->db_id, FORMAT_DB_ID_SIZE);
    c = crc32_update(c, header, 4);
    c = crc32_update(c, header + 8, WAL_FRAME_HEADER - 8);
    return crc32_update(c, payload, len);
}

typedef struct wal_frame {
    uint32_t len;
    uint64_t generation;
    uint32_t flags;
    uint8_t *payload; /* malloc'd */
} wal_frame;

static size_t frame_header_size(const wal *w) {
    return w->legacy ? LEGACY_FRAME_HEADER : WAL_FRAME_HEADER;
}

/* Whether a frame's header, payload and flags verify. */
static bool frame_ok(const wal *w, const uint8_t *h, const uint8_t *payload, uint32_t len) {
    if (len < WAL_MIN_PAYLOAD || frame_crc(w, h, payload, len) != format_get_le(h + 4, 4))
        return false;
    return w->legacy || (format_get_le(h + 16, 4) & ~(WAL_FRAME_ORDERED | WAL_FRAME_JUMP)) == 0;
}

/* 1 with *f when the frame at `off` verifies, 0 when it does not (short,
 * or failing its checksum), or an error. */
static int read_frame(const wal *w, uint64_t off, uint64_t size, wal_frame *f, err *e) {
    uint8_t h[WAL_FRAME_HEADER] = {0};
    size_t hs = frame_header_size(w);
    if (size < off || size - off < hs)
        return 0;
    if (vfs_read_all(w->io, w->fd, h, hs, off) != 0)
        return io_error(e, ERR(STG, 11), "read", w);
    f->len = (uint32_t)format_get_le(h, 4);
    if (f->len > size - off - hs)
        return 0;
    uint8_t *p = malloc(f->len ? f->len : 1);
    if (!p)
        return err_set(e, ERR(INT, 0), "out of memory");
    if (vfs_read_all(w->io, w->fd, p, f->len, off + hs) != 0) {
        free(p);
        return io_error(e, ERR(STG, 11), "read", w);
    }
    if (!frame_ok(w, h, p, f->len)) {
        free(p);
        return 0;
    }
    f->generation = w->legacy ? 0 : format_get_le(h + 8, 8);
    f->flags = w->legacy ? 0 : (uint32_t)format_get_le(h + 16, 4);
    f->payload = p;
    return 1;
}

/* How far past a damaged frame the next intact one is looked for (at every
 * byte offset, so a damaged length field does not hide it): a bound on the
 * memory that search takes; frames beyond it are followed by length. */
#define WAL_SEARCH_WINDOW ((size_t)64 << 20)

/* The oldest generation whose frames replay: the log's base (every frame
 * written before the reset to it is older), or, with the base unknown (a
 * header torn by a reset, which came when every frame was folded in),
 * the main file's. */
static uint64_t oldest_live(const wal *w) {
    return w->base != 0 && w->base < w->generation ? w->base : w->generation;
}

/* A frame written since the log's last reset: one a checkpoint folded in
 * (skipped by its tx_count) or one to apply (wal.h). Older generations
 * than the main file's only in the log its header names. */
static bool live_generation(const wal *w, uint64_t generation) {
    if (generation == w->generation)
        return true;
    return w->salt != 0 && w->salt == w->continued && generation >= oldest_live(w) &&
           generation < w->generation;
}

/* The offset in rest[0..n) (from 1) where a frame of a live generation
 * that verifies starts, or 0. */
static size_t next_intact(const wal *w, const uint8_t *rest, size_t n) {
    for (size_t i = 1; i + WAL_FRAME_HEADER <= n; i++) {
        const uint8_t *h = rest + i;
        uint32_t len = (uint32_t)format_get_le(h, 4);
        if (live_generation(w, format_get_le(h + 8, 8)) && format_get_le(h + 20, 4) == 0 &&
            len <= n - i - WAL_FRAME_HEADER && frame_ok(w, h, h + WAL_FRAME_HEADER, len))
            return i;
    }
    return 0;
}

/* Frames of live generations that verify from `off` on, one after the
 * other; *ordered tells whether one was written after the damaged frame
 * before them was durable. */
static int intact_run(const wal *w, uint64_t off, uint64_t size, uint64_t *count, bool *ordered,
                      bool *to_end, err *e) {
    *count = 0;
    *ordered = false;
    for (;;) {
        wal_frame f = {0};
        int got = read_frame(w, off, size, &f, e);
        *to_end = off == size;
        if (got != 1)
            return got == 0 ? 0 : got;
        free(f.payload);
        if (!live_generation(w, f.generation))
            return 0;
        ++*count;
        *ordered = *ordered || (f.flags & WAL_FRAME_ORDERED);
        off += WAL_FRAME_HEADER + (uint64_t)f.len;
    }
}

/* The frame at w->end (number `index`, 1-based) does not verify: 0 when it
 * is a torn tail (to cut), else STG-045 (or, recovering, 0: the damaged
 * frame and every later one are cut). */
static int damaged_frame(wal *w, uint64_t index, uint64_t size, err *e) {
    if (w->legacy || size <= w->end)
        return 0;
    size_t n = size - w->end < WAL_SEARCH_WINDOW ? (size_t)(size - w->end) : WAL_SEARCH_WINDOW;
    uint8_t *rest = malloc(n);
    if (!rest)
        return err_set(e, ERR(INT, 0), "out of memory");
    if (vfs_read_all(w->io, w->fd, rest, n, w->end) != 0) {
        free(rest);
        return io_error(e, ERR(STG, 11), "read", w);
    }
    size_t at = next_intact(w, rest, n);
    free(rest);
    uint64_t later = 0;
    bool ordered = false, to_end = false;
    int rc = at ? intact_run(w, w->end + at, size, &later, &ordered, &to_end, e) : 0;
    if (rc != 0 || !ordered)
        return rc;
    if (w->recover)
        return 0;
    return err_set(e, ERR(STG, 45),
                   "WAL frame %llu of %s (at byte %llu) is damaged but %llu "
                   "later frames verify: the log is corrupt, not torn; nothing was changed. "
                   "Opening with the option recover: \"truncate_wal\" drops the damaged frame "
                   "and everything after it: %s%llu commits",
                   (unsigned long long)index, w->path, (unsigned long long)w->end,
                   (unsigned long long)later, to_end ? "" : "at least ",
                   (unsigned long long)later + 1);
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

/* After replay, a writable log takes frames of this generation: frames
 * replayed are made durable first (a later ORDERED frame promises it),
 * and a log holding nothing to keep is reset to this generation. */
static int ready_to_append(wal *w, uint64_t size, err *e) {
    if (w->read_only)
        return 0;
    if (w->legacy_stale)
        return wal_reset(w, w->generation, w->db_id, true, e);
    int rc = cut_tail(w, size, e);
    if (rc != 0 || w->legacy)
        return rc;
    if (w->end > WAL_HEADER_SIZE)
        return wal_sync(w, e);
    return w->base != w->generation ? wal_reset(w, w->generation, w->db_id, true, e) : 0;
}

/* Whether frame `index` is to replay: *replay false for a generation
 * older than the log's base (left behind by a reset: the end of the log). */
static int frame_generation(const wal *w, const wal_frame *f, uint64_t index, bool *replay,
                            err *e) {
    *replay = w->legacy || live_generation(w, f->generation);
    if (w->legacy || f->generation <= w->generation)
        return 0;
    return err_set(e, ERR(STG, 4),
                   "the newest database header is damaged (WAL frame %llu of %s "
                   "continues checkpoint %llu, the file shows %llu)",
                   (unsigned long long)index, w->path, (unsigned long long)f->generation,
                   (unsigned long long)w->generation);
}

static int replay_frames(wal *w, uint64_t size, wal_apply_fn apply, void *ctx, err *e) {
    for (uint64_t index = 1;; index++) {
        wal_frame f = {0};
        bool replay = false;
        int got = read_frame(w, w->end, size, &f, e);
        if (got == 0)
            return damaged_frame(w, index, size, e);
        if (got != 1)
            return got;
        int rc = frame_generation(w, &f, index, &replay, e);
        if (rc == 0 && replay)
            rc = apply(ctx, f.payload, f.len, (f.flags & WAL_FRAME_JUMP) != 0, e);
        free(f.payload);
        if (rc != 0 || !replay)
            return rc;
        w->end += frame_header_size(w) + (uint64_t)f.len;
    }
}

int wal_replay(wal *w, wal_apply_fn apply, void *ctx, err *e) {
    uint64_t size;
    if (w->fd < 0)
        return 0;
    if (w->io->size(w->io->ctx, w->fd, &size) != 0)
        return io_error(e, ERR(STG, 15), "stat", w);
    int rc = w->legacy_stale ? 0 : replay_frames(w, size, apply, ctx, e);
    return rc != 0 ? rc : ready_to_append(w, size, e);
}

int wal_append(wal *w, uint8_t *frame, size_t frame_len, bool jump, bool ordered, err *e) {
    size_t len = frame_len - WAL_FRAME_HEADER;
    if (len > UINT32_MAX)
        return err_set(e, ERR(STG, 16), "transaction too large for one log frame (%zu bytes)", len);
    format_put_le(frame, len, 4);
    format_put_le(frame + 8, w->generation, 8);
    format_put_le(frame + 16, (ordered ? WAL_FRAME_ORDERED : 0) | (jump ? WAL_FRAME_JUMP : 0), 4);
    format_put_le(frame + 20, 0, 4);
    format_put_le(frame + 4, frame_crc(w, frame, frame + WAL_FRAME_HEADER, len), 4);
    if (vfs_write_all(w->io, w->fd, frame, frame_len, w->end) != 0)
        return io_error(e, ERR(STG, 12), "write", w);
    w->end += frame_len;
    return 0;
}

uint32_t wal_salt(const wal *w) {
    return w->salt;
}

void wal_continue(wal *w, uint64_t generation) {
    w->generation = generation;
}

int wal_sync(wal *w, err *e) {
    if (w->fd < 0 || w->read_only)
        return 0;
    if (w->io->sync(w->io->ctx, w->fd) != 0)
        return io_error(e, ERR(STG, 13), "sync", w);
    return 0;
}

/* ---- a new log taking the tail over ------------------------------------ */

struct wal_next {
    int fd;
    char *path;          /* `<log>.next` until it is renamed over the log */
    uint32_t salt;       /* its header's */
    uint64_t generation; /* its base, and its frames' */
    uint64_t copied;     /* the old log's frames copied: [from, copied) (wal_size terms) */
    uint64_t end;        /* just past its last frame */
};

#define COPY_CHUNK ((size_t)1 << 20)

/* Restamps the whole frames at the start of buf[0..len) for `n` (its
 * generation; not ORDERED: a copy is not synced as it is written); the
 * bytes they take. A frame cut by the end of buf is left for the next. */
static size_t restamp(const wal *w, const wal_next *n, uint8_t *buf, size_t len) {
    size_t at = 0;
    while (len - at >= WAL_FRAME_HEADER) {
        uint8_t *h = buf + at;
        size_t payload = (size_t)format_get_le(h, 4);
        if (payload > len - at - WAL_FRAME_HEADER)
            break;
        format_put_le(h + 8, n->generation, 8);
        format_put_le(h + 16, format_get_le(h + 16, 4) & ~(uint64_t)WAL_FRAME_ORDERED, 4);
        format_put_le(h + 4, frame_crc(w, h, h + WAL_FRAME_HEADER, payload), 4);
        at += WAL_FRAME_HEADER + payload;
    }
    return at;
}

/* Grows *buf to `want` bytes. */
static int reserve(uint8_t **buf, size_t *cap, size_t want, err *e) {
    if (want <= *cap)
        return 0;
    uint8_t *grown = realloc(*buf, want);
    if (!grown)
        return err_set(e, ERR(INT, 0), "out of memory");
    *buf = grown;
    *cap = want;
    return 0;
}

/* Copies the old log's frames from n->copied to `to`, a chunk at a time
 * (a frame longer than a chunk is read whole). */
static int copy_chunks(const wal *w, wal_next *n, uint64_t to, err *e) {
    uint8_t *buf = NULL;
    size_t cap = 0, need = 0;
    int rc = 0;
    while (rc == 0 && n->copied < to) {
        uint64_t left = to - n->copied;
        size_t want = left < COPY_CHUNK ? (size_t)left : COPY_CHUNK;
        want = want < need ? need : want;
        if ((rc = reserve(&buf, &cap, want, e)) != 0)
            break;
        if (vfs_read_all(w->io, w->fd, buf, want, WAL_HEADER_SIZE + n->copied) != 0) {
            rc = io_error(e, ERR(STG, 11), "read", w);
            break;
        }
        size_t whole = restamp(w, n, buf, want);
        if (whole == 0) {
            need = want < WAL_FRAME_HEADER ? 0 : WAL_FRAME_HEADER + (size_t)format_get_le(buf, 4);
            if (need <= want || need > left)
                rc = err_set(e, ERR(INT, 0), "a WAL frame to copy is cut at byte %llu of %s",
                             (unsigned long long)(WAL_HEADER_SIZE + n->copied), w->path);
            continue;
        }
        need = 0;
        if (vfs_write_all(w->io, n->fd, buf, whole, n->end) != 0)
            rc = io_error(e, ERR(STG, 12), "write", w);
        n->end += whole;
        n->copied += whole;
    }
    free(buf);
    return rc;
}

int wal_next_copy(const wal *w, wal_next *n, uint64_t to, bool sync, err *e) {
    int rc = copy_chunks(w, n, to, e);
    if (rc == 0 && sync && w->io->sync(w->io->ctx, n->fd) != 0)
        rc = io_error(e, ERR(STG, 13), "sync", w);
    return rc;
}

void wal_next_drop(const wal *w, wal_next *n) {
    if (!n)
        return;
    if (n->fd >= 0) {
        w->io->close(w->io->ctx, n->fd);
        unlink(n->path);
    }
    free(n->path);
    free(n);
}

int wal_next_open(const wal *w, uint64_t from, uint64_t generation, wal_next **out, err *e) {
    wal_next *n = calloc(1, sizeof *n);
    char *path = join(w->path, "", "", ".next");
    if (!n || !path) {
        free(n);
        free(path);
        return err_set(e, ERR(INT, 0), "out of memory");
    }
    *n = (wal_next){.path = path,
                    .salt = new_salt(),
                    .generation = generation,
                    .copied = from,
                    .end = WAL_HEADER_SIZE};
    n->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (n->fd < 0) {
        int rc = err_set(e, ERR(STG, 10), "open failed for %s: %s", path, strerror(errno));
        wal_next_drop(w, n);
        return rc;
    }
    uint8_t h[WAL_HEADER_SIZE];
    header_bytes(h, generation, w->db_id, n->salt);
    if (vfs_write_all(w->io, n->fd, h, sizeof h, 0) != 0) {
        int rc = io_error(e, ERR(STG, 12), "write", w);
        wal_next_drop(w, n);
        return rc;
    }
    *out = n;
    return 0;
}

int wal_next_take(wal *w, wal_next *n, err *e) {
    if (w->io->rename(w->io->ctx, n->path, w->path) != 0) {
        int rc = io_error(e, ERR(STG, 12), "rename over", w);
        wal_next_drop(w, n);
        return rc;
    }
    w->io->close(w->io->ctx, w->fd); /* no path names the old log now */
    w->fd = n->fd;
    w->salt = n->salt;
    w->generation = w->base = n->generation;
    w->end = n->end;
    free(n->path);
    free(n);
    return 0;
}

int wal_sync_dir(const wal *w, err *e) {
    return vfs_sync_dir(w->path) == 0 ? 0 : io_error(e, ERR(STG, 13), "directory sync", w);
}
