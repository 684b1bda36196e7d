/* The fault-injecting I/O layer (fault_vfs.h). */
#include "fault_vfs.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage/vfs.h"

fault fault_now;

/* One write or truncate since its file's last sync: the bytes and size it
 * replaced (to undo it) and what it did (to replay it in part). */
typedef struct undo {
    int fd;
    bool is_truncate;
    uint64_t off, old_size, new_size;
    uint8_t *old, *new_bytes;
    size_t old_len, len;
} undo;

static undo *undos;
static size_t undo_count, undo_cap;

static const vfs *os(void) {
    return vfs_posix();
}

static uint64_t size_of(int fd) {
    uint64_t n = 0;
    os()->size(NULL, fd, &n);
    return n;
}

static void undo_free(undo *u) {
    free(u->old);
    free(u->new_bytes);
}

/* Saves what [off, off + len) holds now (the part inside the file), and
 * the bytes about to be written there (`src` NULL: a truncate to off). */
static void remember(int fd, uint64_t off, size_t len, const void *src) {
    if (undo_count == undo_cap) {
        size_t cap = undo_cap ? undo_cap * 2 : 256;
        undo *grown = realloc(undos, cap * sizeof *grown);
        if (!grown)
            abort(); /* a test harness: losing the log would fake a pass */
        undos = grown;
        undo_cap = cap;
    }
    undo *u = &undos[undo_count++];
    *u = (undo){.fd = fd, .is_truncate = src == NULL, .off = off, .old_size = size_of(fd)};
    u->new_size = src ? 0 : off;
    u->old_len = off >= u->old_size ? 0
                                    : (size_t)(u->old_size - off < len ? u->old_size - off : len);
    u->old = malloc(u->old_len ? u->old_len : 1);
    if (u->old_len)
        os()->pread(NULL, fd, u->old, u->old_len, off);
    if (src) {
        u->len = len;
        u->new_bytes = malloc(len ? len : 1);
        memcpy(u->new_bytes, src, len);
    }
}

static void forget(int fd) {
    size_t out = 0;
    for (size_t i = 0; i < undo_count; i++) {
        if (undos[i].fd == fd)
            undo_free(&undos[i]);
        else
            undos[out++] = undos[i];
    }
    undo_count = out;
}

/* Back to what the last syncs made durable. */
static void restore_synced(void) {
    for (size_t i = undo_count; i-- > 0;) {
        undo *u = &undos[i];
        if (u->old_len)
            os()->pwrite(NULL, u->fd, u->old, u->old_len, u->off);
        os()->truncate(NULL, u->fd, u->old_size);
    }
}

static uint64_t rng_state;

static bool coin(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state & 1;
}

#define SECTOR 512

/* Replays, in order, a random part of what was undone. */
static void replay_some(void) {
    rng_state = 0x9E3779B97F4A7C15ULL ^ (uint64_t)fault_now.crash_at * 2654435761ULL;
    for (size_t i = 0; i < undo_count; i++) {
        undo *u = &undos[i];
        if (u->is_truncate) {
            if (coin())
                os()->truncate(NULL, u->fd, u->new_size);
            continue;
        }
        for (size_t at = 0; at < u->len; at += SECTOR) {
            size_t n = u->len - at < SECTOR ? u->len - at : SECTOR;
            if (coin())
                os()->pwrite(NULL, u->fd, u->new_bytes + at, n, u->off + at);
        }
    }
}

static void drop_log(void) {
    while (undo_count > 0)
        undo_free(&undos[--undo_count]);
}

static void power_loss(void) {
    restore_synced();
    if (fault_now.scramble)
        replay_some();
    drop_log();
}

static bool hit(void) {
    if (fault_now.crashed)
        return true;
    fault_now.ops++;
    if (fault_now.crash_at && fault_now.ops == fault_now.crash_at) {
        fault_now.crashed = true;
        return true;
    }
    return false;
}

static bool crash_now(void) {
    bool was = fault_now.crashed;
    if (!hit())
        return false;
    if (!was && (fault_now.lose || fault_now.scramble))
        power_loss();
    return true;
}

static ssize_t f_pread(void *ctx, int fd, void *dst, size_t len, uint64_t off) {
    return os()->pread(ctx, fd, dst, len, off);
}

/* A WAL reset writes the 48-byte log header at 0 and truncates to 48; the
 * next frame goes at 48. (Main-file writes are whole pages.) */
#define WAL_HEADER_BYTES 48

static bool tracking(void) {
    return fault_now.lose || fault_now.scramble;
}

/* Counted operations one at a time: group commit syncs the log outside
 * the writer's lock, beside another thread's append. */
static pthread_mutex_t op_lock = PTHREAD_MUTEX_INITIALIZER;

static ssize_t pwrite_locked(void *ctx, int fd, const void *src, size_t len, uint64_t off) {
    bool first = !fault_now.crashed;
    if (crash_now()) {
        if (first)
            fault_now.at_reset = (off == 0 && len == WAL_HEADER_BYTES) || off == WAL_HEADER_BYTES;
        if (fault_now.torn && fault_now.ops == fault_now.crash_at && len > 1)
            os()->pwrite(ctx, fd, src, len / 2, off);
        errno = EIO;
        return -1;
    }
    if (tracking())
        remember(fd, off, len, src);
    return os()->pwrite(ctx, fd, src, len, off);
}

static ssize_t f_pwrite(void *ctx, int fd, const void *src, size_t len, uint64_t off) {
    pthread_mutex_lock(&op_lock);
    ssize_t n = pwrite_locked(ctx, fd, src, len, off);
    int saved = errno;
    pthread_mutex_unlock(&op_lock);
    errno = saved;
    return n;
}

static int sync_locked(void *ctx, int fd) {
    if (crash_now()) {
        errno = EIO;
        return -1;
    }
    (void)ctx;
    forget(fd); /* durability is what the undo log models: no real fsync */
    return 0;
}

static void (*before_sync)(int fd);

void fault_before_sync(void (*fn)(int fd)) {
    before_sync = fn;
}

static int f_sync(void *ctx, int fd) {
    if (before_sync)
        before_sync(fd);
    pthread_mutex_lock(&op_lock);
    int rc = sync_locked(ctx, fd);
    int saved = errno;
    pthread_mutex_unlock(&op_lock);
    errno = saved;
    return rc;
}

static int truncate_locked(void *ctx, int fd, uint64_t size) {
    bool first = !fault_now.crashed;
    if (crash_now()) {
        if (first)
            fault_now.at_reset = size == WAL_HEADER_BYTES;
        errno = EIO;
        return -1;
    }
    if (tracking()) {
        uint64_t now = size_of(fd);
        remember(fd, size < now ? size : now, size < now ? (size_t)(now - size) : 0, NULL);
        undos[undo_count - 1].new_size = size;
    }
    return os()->truncate(ctx, fd, size);
}

static int f_truncate(void *ctx, int fd, uint64_t size) {
    pthread_mutex_lock(&op_lock);
    int rc = truncate_locked(ctx, fd, size);
    int saved = errno;
    pthread_mutex_unlock(&op_lock);
    errno = saved;
    return rc;
}

static int f_size(void *ctx, int fd, uint64_t *out) {
    return os()->size(ctx, fd, out);
}

/* A rename is counted (a crash at it leaves it undone) and taken as
 * durable at once: the engine syncs what the renamed file must hold
 * first (wal.c), and a rename a power loss undoes leaves the old file,
 * which the engine keeps whole until then. */
static int f_rename(void *ctx, const char *from, const char *to) {
    pthread_mutex_lock(&op_lock);
    int rc = crash_now() ? -1 : os()->rename(ctx, from, to);
    if (rc != 0 && fault_now.crashed)
        errno = EIO;
    int saved = errno;
    pthread_mutex_unlock(&op_lock);
    errno = saved;
    return rc;
}

/* Its unsynced writes are no longer undone: its descriptor may be reused
 * (a file closed while still named was synced first). */
static int f_close(void *ctx, int fd) {
    pthread_mutex_lock(&op_lock);
    forget(fd);
    pthread_mutex_unlock(&op_lock);
    return os()->close(ctx, fd);
}

static const vfs fault_layer = {f_pread, f_pwrite, f_sync,  f_truncate,
                                f_size,  f_rename, f_close, NULL};

bool fault_lost_power(void) {
    pthread_mutex_lock(&op_lock);
    bool lost = fault_now.crashed && (fault_now.lose || fault_now.scramble);
    pthread_mutex_unlock(&op_lock);
    return lost;
}

void fault_begin(fault f) {
    fault_now = f;
    vfs_set_default(&fault_layer);
}

void fault_end(void) {
    vfs_set_default(NULL);
    before_sync = NULL;
    drop_log();
}

fault fault_mode(int mode, long crash_at) {
    return (fault){.crash_at = crash_at,
                   .torn = mode == 1 || mode == 3,
                   .lose = mode == 2,
                   .scramble = mode == 3};
}

const char *fault_mode_name(int mode) {
    static const char *const names[] = {"clean stop", "torn write", "power loss",
                                        "scrambled power loss"};
    return mode >= 0 && mode < FAULT_MODES ? names[mode] : "?";
}

int fault_tmpdir(const char *prefix, char *out, size_t cap) {
    struct stat st;
    const char *base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";
    if (snprintf(out, cap, "%s/%s_XXXXXX", base, prefix) >= (int)cap)
        return -1;
    return mkdtemp(out) ? 0 : -1;
}

void fault_remove_db(const char *path) {
    char wal[600];
    snprintf(wal, sizeof wal, "%s.wal", path);
    unlink(path);
    unlink(wal);
}

static bool copy_file(const char *from, const char *to) {
    FILE *in = fopen(from, "rb");
    if (!in)
        return unlink(to) == 0 || errno == ENOENT;
    FILE *out = fopen(to, "wb");
    bool ok = out != NULL;
    char chunk[8192];
    size_t n;
    while (ok && (n = fread(chunk, 1, sizeof chunk, in)) > 0)
        ok = fwrite(chunk, 1, n, out) == n;
    fclose(in);
    if (out)
        ok = fclose(out) == 0 && ok;
    return ok;
}

bool fault_copy_db(const char *from, const char *to) {
    char a[600], b[600];
    snprintf(a, sizeof a, "%s.wal", from);
    snprintf(b, sizeof b, "%s.wal", to);
    bool ok = copy_file(from, to);
    return copy_file(a, b) && ok;
}
