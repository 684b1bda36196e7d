#include "storage/pager.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "storage/page_cache.h"
#include "store/store_lock.h"

struct pager {
    const vfs *io;
    int fd; /* -1: in memory */
    store_lock *lock;
    char *path;
    bool read_only;
    uint32_t committed; /* pages on disk that the header refers to */
    uint32_t next;      /* next page number to allocate */
    uint8_t **dirty;    /* dirty[pgno - committed] */
    size_t dirty_cap;
    uint64_t generation;
    page_cache *cache;
};

static int oom(err *e) {
    return err_set(e, ERR(INT, 0), "out of memory");
}

static int io_error(err *e, int code, const char *what, const pager *p) {
    return err_set(e, code, "%s failed for %s: %s", what, p->path, strerror(errno));
}

static pager *pager_new(const char *path) {
    pager *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->path = strdup(path ? path : ":memory:");
    if (!p->path) {
        free(p);
        return NULL;
    }
    p->io = vfs_default();
    p->fd = -1;
    p->committed = p->next = FORMAT_FIRST_DATA_PAGE;
    return p;
}

static void empty_header(format_header *h) {
    memset(h, 0, sizeof *h);
    h->page_count = FORMAT_FIRST_DATA_PAGE;
}

int pager_open_memory(pager **out, format_header *h, err *e) {
    pager *p = pager_new(NULL);
    if (!p)
        return oom(e);
    empty_header(h);
    *out = p;
    return 0;
}

static void free_dirty(pager *p) {
    for (uint32_t i = 0; i < p->next - p->committed; i++)
        free(p->dirty[i]);
    free(p->dirty);
    p->dirty = NULL;
    p->dirty_cap = 0;
}

void pager_close(pager *p) {
    if (!p)
        return;
    free_dirty(p);
    store_lock_release(p->lock);
    if (p->fd >= 0)
        close(p->fd);
    page_cache_free(p->cache);
    free(p->path);
    free(p);
}

bool pager_is_memory(const pager *p) {
    return p->fd < 0;
}

const char *pager_path(const pager *p) {
    return p->path;
}

uint32_t pager_page_count(const pager *p) {
    return p->next;
}

bool pager_has_dirty(const pager *p) {
    return p->next > p->committed;
}

/* A new file must survive a crash right after creation, so its directory
 * entry is synced too. */
static int sync_parent_dir(const pager *p, err *e) {
    return vfs_sync_dir(p->path) != 0 ? io_error(e, ERR(STG, 13), "directory sync", p) : 0;
}

/* The two header pages of a new, empty database. Generation g always
 * lives in slot g % 2, so a checkpoint (g + 1) overwrites the older slot,
 * never the one the current state hangs from. */
static void initial_headers(uint8_t pages[2 * FORMAT_PAGE_SIZE]) {
    format_header h;
    empty_header(&h);
    format_encode_header(&h, 0, pages);
    h.generation = 1;
    format_encode_header(&h, 1, pages + FORMAT_PAGE_SIZE);
}

static int create_file(pager *p, format_header *h, err *e) {
    static uint8_t pages[2 * FORMAT_PAGE_SIZE];
    initial_headers(pages);
    if (p->io->truncate(p->io->ctx, p->fd, 0) != 0)
        return io_error(e, ERR(STG, 14), "truncate", p);
    if (vfs_write_all(p->io, p->fd, pages, sizeof pages, 0) != 0)
        return io_error(e, ERR(STG, 12), "write", p);
    if (p->io->sync(p->io->ctx, p->fd) != 0)
        return io_error(e, ERR(STG, 13), "sync", p);
    empty_header(h);
    h->generation = 1;
    p->generation = 1;
    return sync_parent_dir(p, e);
}

static int slot_error(const pager *p, format_slot_state st, uint32_t version, err *e) {
    switch (st) {
    case SLOT_BAD_MAGIC: return err_set(e, ERR(STG, 2), "not a minigraf database file: %s", p->path);
    case SLOT_OLD_VERSION:
        return err_set(e, ERR(STG, 28), "database format version %u is no longer readable (this "
                       "release reads version %u): %s", (unsigned)version, FORMAT_VERSION, p->path);
    case SLOT_NEW_VERSION:
        return err_set(e, ERR(STG, 3), "unsupported database format version %u (expected %u): %s",
                       (unsigned)version, FORMAT_VERSION, p->path);
    case SLOT_BAD_PAGE_SIZE:
        return err_set(e, ERR(STG, 6), "unsupported page size in %s", p->path);
    case SLOT_BAD_CHECKSUM:
    case SLOT_VALID: break;
    }
    return err_set(e, ERR(STG, 4), "database file header checksum mismatch: %s", p->path);
}

/* A file shorter than two pages is either one torn while being created (a
 * prefix of what create_file writes: start over) or not ours. */
static int short_file(pager *p, uint64_t size, format_header *h, err *e) {
    static uint8_t want[2 * FORMAT_PAGE_SIZE];
    uint8_t *have = malloc(size ? size : 1);
    if (!have)
        return oom(e);
    initial_headers(want);
    int rc = size && vfs_read_all(p->io, p->fd, have, size, 0) != 0
                 ? io_error(e, ERR(STG, 11), "read", p) : 0;
    bool ours = rc == 0 && memcmp(have, want, size) == 0;
    bool magic = rc == 0 && memcmp(have, want, size < 8 ? size : 8) == 0;
    uint8_t have_version[4] = {0};
    if (rc == 0 && size >= 12)
        memcpy(have_version, have + 8, 4);
    free(have);
    if (rc != 0)
        return rc;
    if (ours && !p->read_only)
        return create_file(p, h, e);
    if (ours) { /* read-only: an empty database */
        empty_header(h);
        return 0;
    }
    if (!magic)
        return err_set(e, ERR(STG, 2), "not a minigraf database file: %s", p->path);
    if (size >= 12 && format_get_le(have_version, 4) != FORMAT_VERSION)
        return slot_error(p, format_get_le(have_version, 4) < FORMAT_VERSION ? SLOT_OLD_VERSION
                                                                          : SLOT_NEW_VERSION,
                          (uint32_t)format_get_le(have_version, 4), e);
    return err_set(e, ERR(STG, 1), "database file header is too short: %s", p->path);
}

/* Which slot's problem to report when neither is valid: a version mismatch
 * says most, a bad magic least. */
static int rank(format_slot_state st) {
    switch (st) {
    case SLOT_OLD_VERSION: return 0;
    case SLOT_NEW_VERSION: return 1;
    case SLOT_BAD_PAGE_SIZE: return 2;
    case SLOT_BAD_CHECKSUM: return 3;
    case SLOT_BAD_MAGIC:
    case SLOT_VALID: break;
    }
    return 4;
}

/* Picks the valid slot with the higher generation. */
static int choose_header(pager *p, uint64_t size, format_header *h, err *e) {
    uint8_t *pages = malloc(2 * FORMAT_PAGE_SIZE);
    if (!pages)
        return oom(e);
    if (vfs_read_all(p->io, p->fd, pages, 2 * FORMAT_PAGE_SIZE, 0) != 0) {
        free(pages);
        return io_error(e, ERR(STG, 11), "read", p);
    }
    format_header slot[2];
    uint32_t version[2];
    format_slot_state st[2];
    for (uint32_t i = 0; i < 2; i++)
        st[i] = format_decode_header(pages + i * FORMAT_PAGE_SIZE, i, &slot[i], &version[i]);
    free(pages);
    int best = -1;
    for (int i = 0; i < 2; i++)
        if (st[i] == SLOT_VALID && (best < 0 || slot[i].generation > slot[best].generation))
            best = i;
    if (best < 0) {
        int worst = rank(st[1]) < rank(st[0]) ? 1 : 0;
        return slot_error(p, st[worst], version[worst], e);
    }
    *h = slot[best];
    if (h->page_count < FORMAT_FIRST_DATA_PAGE || h->page_count > UINT32_MAX ||
        h->page_count * FORMAT_PAGE_SIZE > size)
        return err_set(e, ERR(STG, 7), "database header counts %llu pages but the file holds %llu "
                       "bytes (truncated?): %s", (unsigned long long)h->page_count,
                       (unsigned long long)size, p->path);
    p->generation = h->generation;
    p->committed = p->next = (uint32_t)h->page_count;
    return 0;
}

static int open_checked(pager *p, format_header *h, err *e) {
    uint64_t size;
    if (p->io->size(p->io->ctx, p->fd, &size) != 0)
        return io_error(e, ERR(STG, 15), "stat", p);
    if (size < 2 * FORMAT_PAGE_SIZE)
        return short_file(p, size, h, e);
    return choose_header(p, size, h, e);
}

int pager_open_file(const char *path, bool read_only, bool allow_unlocked, size_t cache_pages,
                    pager **out, format_header *h, err *e) {
    pager *p = pager_new(path);
    if (!p || !(p->cache = page_cache_new(cache_pages))) {
        pager_close(p);
        return oom(e);
    }
    p->read_only = read_only;
    int rc = store_lock_open(path, read_only, allow_unlocked, &p->fd, &p->lock, e);
    if (rc == 0)
        rc = open_checked(p, h, e);
    if (rc != 0) {
        pager_close(p);
        return rc;
    }
    *out = p;
    return 0;
}

static int read_committed(pager *p, uint32_t pgno, uint8_t *dst, err *e) {
    if (p->cache && page_cache_get(p->cache, pgno, dst))
        return 0;
    if (vfs_read_all(p->io, p->fd, dst, FORMAT_PAGE_SIZE, (uint64_t)pgno * FORMAT_PAGE_SIZE) != 0)
        return io_error(e, ERR(STG, 11), "read", p);
    if (!format_page_ok(dst, pgno))
        return err_set(e, ERR(STG, 29), "page %u of %s is damaged (checksum mismatch)",
                       (unsigned)pgno, p->path);
    page_cache_put(p->cache, pgno, dst);
    return 0;
}

int pager_read(pager *p, uint32_t pgno, uint8_t *dst, err *e) {
    if (pgno < FORMAT_FIRST_DATA_PAGE || pgno >= p->next)
        return err_set(e, ERR(STG, 8), "page number %u out of range in %s", (unsigned)pgno, p->path);
    if (pgno >= p->committed) {
        memcpy(dst, p->dirty[pgno - p->committed], FORMAT_PAGE_SIZE);
        return 0;
    }
    return read_committed(p, pgno, dst, e);
}

uint8_t *pager_dirty(pager *p, uint32_t pgno) {
    if (pgno < p->committed || pgno >= p->next)
        return NULL;
    return p->dirty[pgno - p->committed];
}

int pager_alloc(pager *p, uint32_t *pgno, uint8_t **page, err *e) {
    if (p->next == UINT32_MAX)
        return err_set(e, ERR(STG, 17), "database file would exceed 2^32 pages: %s", p->path);
    size_t n = p->next - p->committed;
    if (n == p->dirty_cap) {
        size_t cap = p->dirty_cap ? p->dirty_cap * 2 : 64;
        uint8_t **grown = realloc(p->dirty, cap * sizeof *grown);
        if (!grown)
            return oom(e);
        p->dirty = grown;
        p->dirty_cap = cap;
    }
    uint8_t *buf = calloc(1, FORMAT_PAGE_SIZE);
    if (!buf)
        return oom(e);
    p->dirty[n] = buf;
    *pgno = p->next++;
    *page = buf;
    return 0;
}

static int write_dirty(pager *p, err *e) {
    for (uint32_t pgno = p->committed; pgno < p->next; pgno++) {
        uint8_t *page = p->dirty[pgno - p->committed];
        format_seal_page(page, pgno);
        if (vfs_write_all(p->io, p->fd, page, FORMAT_PAGE_SIZE,
                          (uint64_t)pgno * FORMAT_PAGE_SIZE) != 0)
            return io_error(e, ERR(STG, 12), "write", p);
    }
    return 0;
}

static int write_header(pager *p, format_header *h, err *e) {
    uint8_t *page = malloc(FORMAT_PAGE_SIZE);
    if (!page)
        return oom(e);
    h->generation = p->generation + 1;
    h->page_count = p->next;
    uint32_t slot = (uint32_t)(h->generation % 2);
    format_encode_header(h, slot, page);
    int rc = vfs_write_all(p->io, p->fd, page, FORMAT_PAGE_SIZE, (uint64_t)slot * FORMAT_PAGE_SIZE);
    free(page);
    return rc != 0 ? io_error(e, ERR(STG, 12), "write", p) : 0;
}

/* The dirty pages become committed: they move into the page cache. */
static void promote_dirty(pager *p) {
    for (uint32_t pgno = p->committed; pgno < p->next; pgno++) {
        page_cache_put(p->cache, pgno, p->dirty[pgno - p->committed]);
        free(p->dirty[pgno - p->committed]);
    }
    p->committed = p->next;
}

int pager_checkpoint(pager *p, format_header *h, err *e) {
    if (pager_is_memory(p) || p->read_only)
        return 0;
    int rc = write_dirty(p, e);
    if (rc == 0 && p->io->sync(p->io->ctx, p->fd) != 0)
        rc = io_error(e, ERR(STG, 13), "sync", p);
    if (rc == 0)
        rc = write_header(p, h, e);
    if (rc == 0 && p->io->sync(p->io->ctx, p->fd) != 0)
        rc = io_error(e, ERR(STG, 13), "sync", p);
    if (rc != 0)
        return rc;
    p->generation = h->generation;
    promote_dirty(p);
    return 0;
}
