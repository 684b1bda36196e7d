#include "storage/pager.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/array.h"
#include "base/mg_assert.h"
#include "base/shared_lock.h"
#include "base/spares.h"
#include "storage/freelist.h"
#include "storage/page_cache.h"
#include "storage/store_lock.h"
#include "storage/torn_create.h"
#include "storage/wal.h"

/* One version of a page changed since the last checkpoint. A chain runs
 * from the newest (the writer's) to older ones kept for open views. */
typedef struct pver {
    _Atomic uint64_t tag; /* seen from views >= tag; PAGER_UNPUBLISHED */
    /* The chain. Views walk `older` while the writer takes out a version
     * no view sees (pager_dirty_marked): atomic, and stored with release
     * where a view may follow it. */
    struct pver *_Atomic older;
    struct pver *newer;
    struct pver *next_gc; /* superseded versions, oldest first (or idle ones) */
    /* Only an unpublished version is pending and only a published one is
     * superseded: one link serves both (the header stays 64 bytes, and
     * the page after it as aligned as malloc's blocks). */
    union {
        struct pver *next_pending; /* unpublished versions, to tag at publish */
        struct pver *prev_gc;      /* superseded versions, newest first */
    };
    /* The parts of `page` that may differ from `older`'s (pager_mark). */
    pager_marks changed;
    /* The block of `older` once no view sees it, kept while this is the
     * page's newest version (in `spare_of[spare_at]`): the next copy of
     * the page goes there and copies only the parts `changed`. */
    struct pver *spare;
    size_t spare_at;
    uint8_t page[FORMAT_PAGE_SIZE];
} pver;

/* A page a deferred checkpoint made committed in memory before writing
 * it (pager_checkpoint_write): its image, in a version of its own or in
 * `frozen_images`, sealed only in the copy written (`frozen_seal`). */
typedef struct frozen_page {
    uint32_t pgno;
    const uint8_t *page;
    pver *own; /* NULL: in frozen_images */
} frozen_page;

/* Pages that keep a spare block, at most (the oldest kept gives its up):
 * more than a single-fact commit changes. */
#define PAGER_SPARES 32

/* How far back from a page's newest version a commit looks for one that
 * no open view sees: views span a few commits. */
#define PAGER_REUSE_DEPTH 8

/* Where a page's newest version hangs: views load it while the writer
 * hangs a new (unpublished) one there, without the maps lock. */
typedef pver *_Atomic pver_ref;

struct pager {
    const vfs *io;
    int fd; /* -1: in memory */
    store_lock *lock;
    char *path;
    bool read_only;
    uint32_t committed;    /* pages on disk that the header refers to */
    _Atomic uint32_t next; /* next page number to allocate */
    pver_ref *dirty;       /* dirty[pgno - committed]: its newest version */
    size_t dirty_cap;
    /* Dirty pages below `committed`, free pages taken for reuse: their
     * newest versions by page number (NULL where none; the table is made
     * at the first reuse after a checkpoint, under `maps`), and the
     * numbers taken (the writer's). */
    pver_ref *below;
    uint32_t *reused_pgno;
    size_t reused_n, reused_cap;
    freelist fl;
    uint64_t generation;
    page_cache *cache;
    /* Changes whenever the writer's view of a page may change
     * (pager_scratch_holds). The writer's alone, so a plain counter: only
     * the writer changes pages (pager_dirty_marked, pager_alloc) and only
     * its PAGER_LATEST reads compare it (a view's pages never change), and
     * writers follow each other through the writer slot's mutex, which
     * orders one writer's counts before the next one's. */
    uint64_t epoch;
    /* Read-locked by views reading a page; write-locked by the writer
     * moving what views look pages up in: growing `dirty`, making or
     * dropping `below`, and a checkpoint. Hanging a new version (of a
     * changed, new or reused page), tagging one at publish and unlinking
     * a superseded one need no lock: `dirty`'s and `below`'s entries,
     * `next` and tags are atomic, a view skips what is newer than itself,
     * and no open view walks past the version a superseded one is
     * unlinked from (pager_collect). Page bytes of unpublished versions
     * are the writer's alone; published ones never change. A commit takes
     * the lock only to grow `dirty` or make `below` (once per checkpoint):
     * a reader the system stops while it holds the lock holds every commit
     * up, and the readers arriving meanwhile wait behind the commit
     * (issue 20: a write hold per reused page left a fifth of two cores
     * idle with 4 writers beside 3 readers). A shared_lock, whose read
     * holds are counted per thread stripe: every page a query reads takes
     * one, and a pthread_rwlock's one counter made the readers' cores pass
     * its line between them (issue 18). */
    shared_lock maps;
    pver *pending;            /* unpublished versions */
    pver *gc_first, *gc_last; /* superseded versions, in the order they were */
    pager_views open;         /* the views open at the last publish */
    size_t versions_kept;     /* superseded versions not yet freed (the writer's) */
    /* Freed versions kept for the next ones (the writer's, linked by
     * next_gc): a commit supersedes a version of each page it changes and
     * frees them at the next, and malloc and free of page-sized blocks
     * were a tenth of a single-fact commit. `idle_low`: the fewest kept
     * since the last trim (what was not needed meanwhile); `collects`:
     * pager_collect's calls, which trim every PAGER_IDLE_TRIM_EVERY. */
    pver *idle;
    size_t idle_n, idle_low;
    uint64_t collects;
    /* Versions holding a spare (the writer's), in the order they got it;
     * the next spare replaces the one at `spare_next`. */
    pver *spare_of[PAGER_SPARES];
    size_t spare_next;
    spares scratch; /* cursor scratch blocks (pager_scratch_take) */
    pager *base;    /* a fork's (pager_fork): where its pages below `committed` are read */
    /* The header a checkpoint wrote its pages for, encoded, until
     * pager_checkpoint_sync writes it (NULL: none allocated yet). */
    uint8_t *next_header;
    uint32_t next_slot;
    bool header_due;
    /* A deferred checkpoint's pages, by page number, until
     * pager_checkpoint_sync has written them: read from here (under
     * `maps`) where the page cache has none. `frozen_n` is 0 otherwise. */
    frozen_page *frozen;
    _Atomic size_t frozen_n;
    size_t frozen_cap;
    uint8_t *frozen_images; /* the new free list's pages */
    uint8_t *frozen_seal;   /* a page sealed for writing (the syncer's) */
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
    if (shared_lock_init(&p->maps) != 0) {
        free(p->path);
        free(p);
        return NULL;
    }
    spares_init(&p->scratch, PAGER_SCRATCH_SPARES);
    p->io = vfs_default();
    p->fd = -1;
    p->next = FORMAT_FIRST_DATA_PAGE;
    p->committed = p->next;
    freelist_init(&p->fl, 0, 0);
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

int pager_fork(pager *base, pager **out, err *e) {
    pager *p = pager_new(NULL);
    if (!p)
        return oom(e);
    p->base = base;
    p->next = base->next;
    p->committed = p->next;
    *out = p;
    return 0;
}

/* Versions kept for reuse, at most. Beside readers, a view held for a
 * while (a query under way, a reader off its core) keeps every version
 * the commits meanwhile supersede, each commit takes new blocks for the
 * pages it changes, and the view's close frees them all at once: with 32
 * kept, 1.4 blocks a commit went back to malloc and free, and the kernel
 * zeroed the pages the heap gave back and took again (issue 20). 1,024
 * (4 MiB) serve most bursts (4,096 took a few more malloc calls off but
 * made the readers' queries slower, feat/fair9); every
 * PAGER_IDLE_TRIM_EVERY commits (a few tenths of a second of non-stop
 * commits), those not taken since the last trim go, down to
 * PAGER_IDLE_FLOOR (more than a single-fact commit changes: a page per
 * tree and level, and the dictionary's heap page). */
#define PAGER_IDLE_VERSIONS 1024
#define PAGER_IDLE_FLOOR 32
#define PAGER_IDLE_TRIM_EVERY 65536

static void free_idle(pager *p) {
    while (p->idle) {
        pver *next = p->idle->next_gc;
        free(p->idle);
        p->idle = next;
    }
    p->idle_n = 0;
}

static void free_chain(pver *v) {
    while (v) {
        pver *older = atomic_load_explicit(&v->older, memory_order_relaxed);
        free(v);
        v = older;
    }
}

/* Every superseded version goes (a checkpoint, with no view open). */
static void forget_versions(pager *p) {
    p->gc_first = p->gc_last = NULL;
    p->versions_kept = 0;
}

static void free_dirty(pager *p) {
    for (uint32_t i = 0; i < p->next - p->committed; i++)
        free_chain(p->dirty[i]);
    free(p->dirty);
    p->dirty = NULL;
    p->dirty_cap = 0;
}

/* Under `maps` (or with no view left). */
static void free_reused(pager *p) {
    for (size_t i = 0; i < p->reused_n; i++)
        free_chain(atomic_load(&p->below[p->reused_pgno[i]]));
    p->reused_n = 0;
    free(p->below);
    p->below = NULL;
}

static void drop_spares(pager *p);

/* The `n` frozen pages, once no reader can find them (frozen_n 0) or at
 * the close. */
static void free_frozen(pager *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        free(p->frozen[i].own);
    free(p->frozen_images);
    p->frozen_images = NULL;
}

void pager_close(pager *p) {
    if (!p)
        return;
    drop_spares(p);
    free_dirty(p);
    free_reused(p);
    free_idle(p);
    free_frozen(p, atomic_load(&p->frozen_n));
    free(p->frozen);
    free(p->frozen_seal);
    free(p->reused_pgno);
    free(p->next_header);
    freelist_free(&p->fl);
    store_lock_release(p->lock);
    if (p->fd >= 0)
        close(p->fd);
    page_cache_free(p->cache);
    for (void *s; (s = spares_take(&p->scratch)) != NULL;)
        free(s);
    shared_lock_destroy(&p->maps);
    free(p->path);
    free(p);
}

/* The block header, then the pages and the note (16-byte aligned, as
 * malloc's). */
#define SCRATCH_HEADER (((sizeof(pager_scratch) + 15) / 16) * 16)

/* A block given back is usually the next one taken: it holds the pages
 * the next seek reads again. */
pager_scratch *pager_scratch_take(pager *p) {
    pager_scratch *s = spares_take(&p->scratch);
    if (s)
        return s;
    s = malloc(SCRATCH_HEADER + PAGER_SCRATCH_SIZE + PAGER_SCRATCH_NOTE);
    if (s)
        *s = (pager_scratch){.pages = (uint8_t *)s + SCRATCH_HEADER,
                             .note = (uint8_t *)s + SCRATCH_HEADER + PAGER_SCRATCH_SIZE};
    return s;
}

void pager_scratch_give(pager *p, pager_scratch *s) {
    if (!s)
        return;
    if (!spares_give(&p->scratch, s))
        free(s);
}

/* A published view's pages never change while it can be opened; the
 * writer's change with every epoch. */
bool pager_scratch_holds(pager *p, pager_scratch *s, uint64_t view, size_t slot, uint32_t pgno,
                         const void *as) {
    MG_ASSERT(pgno != 0); /* 0 marks an empty slot */
    uint64_t epoch = view == PAGER_LATEST ? p->epoch : 0;
    if (s->view != view || s->epoch != epoch) {
        memset(s->held, 0, sizeof s->held);
        s->noted = 0;
        s->view = view;
        s->epoch = epoch;
    }
    if (s->held[slot] == pgno && s->held_as[slot] == as)
        return true;
    s->held[slot] = 0;
    return false;
}

bool pager_is_memory(const pager *p) {
    return p->fd < 0;
}

uint32_t pager_page_count(const pager *p) {
    return p->next;
}

page_cache_stats pager_cache_stats(const pager *p) {
    return page_cache_get_stats(p->cache);
}

bool pager_has_dirty(const pager *p) {
    return p->next > p->committed || p->reused_n > 0;
}

/* A new file must survive a crash right after creation, so its directory
 * entry is synced too. */
static int sync_parent_dir(const pager *p, err *e) {
    return vfs_sync_dir(p->path) != 0 ? io_error(e, ERR(STG, 13), "directory sync", p) : 0;
}

/* The two header pages of a new, empty database. Generation g always
 * lives in slot g % 2, so a checkpoint (g + 1) overwrites the older slot,
 * never the one the current state hangs from. */
static void initial_headers(uint8_t pages[2 * FORMAT_PAGE_SIZE], const uint8_t *db_id) {
    format_header h;
    empty_header(&h);
    memcpy(h.db_id, db_id, FORMAT_DB_ID_SIZE);
    format_encode_header(&h, 0, pages);
    h.generation = 1;
    format_encode_header(&h, 1, pages + FORMAT_PAGE_SIZE);
}

/* Writes the header pages of a new file; its own buffer, since threads
 * may create files at once. */
static int write_initial_headers(pager *p, const uint8_t *id, err *e) {
    uint8_t *pages = malloc(2 * FORMAT_PAGE_SIZE);
    if (!pages)
        return oom(e);
    initial_headers(pages, id);
    int rc = 0;
    if (p->io->truncate(p->io->ctx, p->fd, 0) != 0)
        rc = io_error(e, ERR(STG, 14), "truncate", p);
    else if (vfs_write_all(p->io, p->fd, pages, 2 * FORMAT_PAGE_SIZE, 0) != 0)
        rc = io_error(e, ERR(STG, 12), "write", p);
    else if (p->io->sync(p->io->ctx, p->fd) != 0)
        rc = io_error(e, ERR(STG, 13), "sync", p);
    free(pages);
    return rc;
}

static int create_file(pager *p, format_header *h, err *e) {
    uint8_t id[FORMAT_DB_ID_SIZE];
    format_new_db_id(id);
    int rc = write_initial_headers(p, id, e);
    if (rc != 0)
        return rc;
    empty_header(h);
    h->generation = 1;
    memcpy(h->db_id, id, FORMAT_DB_ID_SIZE);
    p->generation = 1;
    return sync_parent_dir(p, e);
}

static int slot_error(const pager *p, format_slot_state st, uint32_t version, err *e) {
    switch (st) {
    case SLOT_BAD_MAGIC:
        return err_set(e, ERR(STG, 2), "not a minigraf database file: %s", p->path);
    case SLOT_OLD_VERSION:
        return err_set(e, ERR(STG, 28),
                       "database format version %u is no longer readable (this "
                       "release reads version %u): %s",
                       (unsigned)version, FORMAT_VERSION, p->path);
    case SLOT_NEW_VERSION:
        return err_set(e, ERR(STG, 3), "unsupported database format version %u (expected %u): %s",
                       (unsigned)version, FORMAT_VERSION, p->path);
    case SLOT_BAD_PAGE_SIZE: return err_set(e, ERR(STG, 6), "unsupported page size in %s", p->path);
    case SLOT_BAD_CHECKSUM:
    case SLOT_VALID: break;
    }
    return err_set(e, ERR(STG, 4), "database file header checksum mismatch: %s", p->path);
}

/* The identifier bytes a short file holds (the rest zero): a torn
 * creation is compared with a fresh file carrying the same identifier. */
static void short_file_id(const uint8_t *have, uint64_t size, uint8_t *id) {
    enum { ID_AT = FORMAT_DB_ID_OFFSET };
    memset(id, 0, FORMAT_DB_ID_SIZE);
    if (size > ID_AT)
        memcpy(id, have + ID_AT,
               size - ID_AT < FORMAT_DB_ID_SIZE ? (size_t)(size - ID_AT) : FORMAT_DB_ID_SIZE);
}

/* The identifier a torn creation's fresh pages are rebuilt with: a whole
 * one from either header sector, else the bytes a prefix holds. */
static void torn_id(const uint8_t *have, uint64_t size, uint8_t *id) {
    const uint8_t *found = torn_create_id(have, size);
    if (found)
        memcpy(id, found, FORMAT_DB_ID_SIZE);
    else
        short_file_id(have, size, id);
}

/* A WAL holding anything was begun after the creation was synced. */
static bool wal_has_bytes(const pager *p) {
    char *log = wal_path_for(p->path);
    struct stat st;
    bool has = log && stat(log, &st) == 0 && st.st_size > 0;
    free(log);
    return has;
}

/* The file (`size` <= two pages, read into `have`) is a creation a crash
 * cut short (storage/torn_create.h): it holds no data, so it starts over. */
static bool torn_creation(const pager *p, const uint8_t *have, uint64_t size) {
    uint8_t *fresh = malloc(2 * FORMAT_PAGE_SIZE);
    if (!fresh)
        return false;
    uint8_t id[FORMAT_DB_ID_SIZE];
    torn_id(have, size, id);
    initial_headers(fresh, id);
    bool torn = torn_create_matches(have, size, fresh);
    free(fresh);
    return torn && !wal_has_bytes(p);
}

/* Starts a torn creation over (read-only: shows it as an empty database). */
static int restart_creation(pager *p, format_header *h, err *e) {
    if (!p->read_only)
        return create_file(p, h, e);
    empty_header(h);
    return 0;
}

/* A file shorter than two pages is either one torn while being created or
 * not ours. */
static int short_file(pager *p, uint64_t size, format_header *h, err *e) {
    uint8_t *have = malloc(size ? size : 1);
    if (!have)
        return oom(e);
    if (size && vfs_read_all(p->io, p->fd, have, size, 0) != 0) {
        free(have);
        return io_error(e, ERR(STG, 11), "read", p);
    }
    bool ours = torn_creation(p, have, size);
    bool magic = memcmp(have, FORMAT_MAGIC, size < 8 ? size : 8) == 0;
    uint8_t have_version[4] = {0};
    if (size >= 12)
        memcpy(have_version, have + 8, 4);
    free(have);
    if (ours)
        return restart_creation(p, h, e);
    if (!magic)
        return err_set(e, ERR(STG, 2), "not a minigraf database file: %s", p->path);
    uint32_t version = (uint32_t)format_get_le(have_version, 4);
    if (size >= 12 && (version < FORMAT_VERSION_NO_HISTORY || version > FORMAT_VERSION))
        return slot_error(p, version < FORMAT_VERSION ? SLOT_OLD_VERSION : SLOT_NEW_VERSION,
                          version, e);
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
    int best = -1;
    for (int i = 0; i < 2; i++)
        if (st[i] == SLOT_VALID && (best < 0 || slot[i].generation > slot[best].generation))
            best = i;
    bool torn = best < 0 && size == 2 * FORMAT_PAGE_SIZE && torn_creation(p, pages, size);
    free(pages);
    if (torn)
        return restart_creation(p, h, e);
    if (best < 0) {
        int worst = rank(st[1]) < rank(st[0]) ? 1 : 0;
        return slot_error(p, st[worst], version[worst], e);
    }
    *h = slot[best];
    if (h->page_count < FORMAT_FIRST_DATA_PAGE || h->page_count > UINT32_MAX ||
        h->page_count * FORMAT_PAGE_SIZE > size)
        return err_set(e, ERR(STG, 7),
                       "database header counts %llu pages but the file holds %llu "
                       "bytes (truncated?): %s",
                       (unsigned long long)h->page_count, (unsigned long long)size, p->path);
    if (h->freelist >= h->page_count || (h->freelist == 0) != (h->free_count == 0) ||
        h->free_count >= h->page_count)
        return err_set(e, ERR(STG, 8), "corrupt free-list reference in the header of %s", p->path);
    p->generation = h->generation;
    p->next = (uint32_t)h->page_count;
    p->committed = p->next;
    freelist_init(&p->fl, h->freelist, h->free_count);
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

static int structure_error(uint32_t pgno, const pager *p, err *e) {
    return err_set(e, ERR(STG, 8), "corrupt B-tree page %u of %s (bad structure)", (unsigned)pgno,
                   p->path);
}

static int frozen_cmp(const void *a, const void *b) {
    uint32_t x = ((const frozen_page *)a)->pgno, y = ((const frozen_page *)b)->pgno;
    return (x > y) - (x < y);
}

/* A committed page not in the file yet (a deferred checkpoint's): true
 * when copied to dst. Once frozen_n is 0 the file holds every page. */
static bool read_frozen(pager *p, uint32_t pgno, uint8_t *dst) {
    if (atomic_load(&p->frozen_n) == 0)
        return false;
    shared_lock_read(&p->maps);
    /* loaded again under the lock: the table is read only while it holds
     * pages (the next checkpoint may be growing it) */
    size_t n = atomic_load(&p->frozen_n);
    frozen_page key = {.pgno = pgno};
    const frozen_page *f = n ? bsearch(&key, p->frozen, n, sizeof key, frozen_cmp) : NULL;
    if (f)
        memcpy(dst, f->page, FORMAT_PAGE_SIZE);
    shared_lock_read_done(&p->maps);
    return f != NULL;
}

/* A page image is checked by `chk` only when the cache does not know it
 * as checked by chk->as already: once per page read from the file, not
 * per copy out of the cache (nor per read back after an eviction). */
static int read_committed(pager *p, uint32_t pgno, uint8_t *dst, const pager_check *chk, err *e) {
    if (p->base)
        return pager_read_checked(p->base, PAGER_LATEST, pgno, dst, chk, e);
    const void *as = NULL;
    if (p->cache && page_cache_get_checked(p->cache, pgno, dst, &as)) {
        if (!chk || as == chk->as)
            return 0;
        if (!chk->ok(dst, chk->as))
            return structure_error(pgno, p, e);
        page_cache_set_checked(p->cache, pgno, dst, chk->as);
        return 0;
    }
    bool in_memory = read_frozen(p, pgno, dst); /* not sealed yet, and not from the file */
    if (!in_memory &&
        vfs_read_all(p->io, p->fd, dst, FORMAT_PAGE_SIZE, (uint64_t)pgno * FORMAT_PAGE_SIZE) != 0)
        return io_error(e, ERR(STG, 11), "read", p);
    if (!in_memory && !page_cache_known_good(p->cache, pgno) && !format_page_ok(dst, pgno))
        return err_set(e, ERR(STG, 29), "page %u of %s is damaged (checksum mismatch)",
                       (unsigned)pgno, p->path);
    as = page_cache_checked_as(p->cache, pgno);
    if (chk && as != chk->as && !chk->ok(dst, chk->as))
        return structure_error(pgno, p, e);
    if (p->cache)
        page_cache_put_checked(p->cache, pgno, dst, chk ? chk->as : as);
    return 0;
}

/* Where the newest version of a page changed since the checkpoint is
 * kept, or NULL for a committed page. Under `maps`, or by the writer. */
static pver_ref *find_slot(const pager *p, uint32_t pgno) {
    if (pgno >= p->committed)
        return &p->dirty[pgno - p->committed];
    if (!p->below || !atomic_load(&p->below[pgno]))
        return NULL;
    return &p->below[pgno];
}

/* 1 when a version of the page seen from `view` was copied to dst, 0
 * when the view sees the committed page, or STG-008. */
static int read_version(pager *p, uint64_t view, uint32_t pgno, uint8_t *dst, err *e) {
    shared_lock_read(&p->maps);
    int rc = 0;
    if (pgno < FORMAT_FIRST_DATA_PAGE || pgno >= p->next) {
        rc = err_set(e, ERR(STG, 8), "page number %u out of range in %s", (unsigned)pgno, p->path);
    } else {
        pver_ref *slot = find_slot(p, pgno);
        const pver *v = slot ? atomic_load(slot) : NULL;
        while (v && atomic_load_explicit(&v->tag, memory_order_relaxed) > view)
            v = atomic_load_explicit(&v->older, memory_order_acquire);
        if (v) {
            memcpy(dst, v->page, FORMAT_PAGE_SIZE);
            rc = 1;
        } else if (pgno >= p->committed) { /* allocated after the view */
            rc = err_set(e, ERR(STG, 8), "page number %u out of range in %s", (unsigned)pgno,
                         p->path);
        }
    }
    shared_lock_read_done(&p->maps);
    return rc;
}

int pager_read(pager *p, uint64_t view, uint32_t pgno, uint8_t *dst, err *e) {
    return pager_read_checked(p, view, pgno, dst, NULL, e);
}

int pager_read_checked(pager *p, uint64_t view, uint32_t pgno, uint8_t *dst, const pager_check *chk,
                       err *e) {
    int rc = read_version(p, view, pgno, dst, e);
    if (rc == 0)
        return read_committed(p, pgno, dst, chk, e);
    return rc == 1 ? 0 : rc;
}

/* `v`, unpublished and not yet in front of its chain, is listed for
 * pager_publish. */
static void pend_version(pager *p, pver *v) {
    v->newer = v->next_gc = v->spare = NULL;
    v->changed = 0;
    v->next_pending = p->pending;
    p->pending = v;
}

/* `v`, whose page is filled, becomes a new unpublished version, listed
 * for pager_publish. */
static void list_version(pager *p, pver *v) {
    atomic_init(&v->tag, PAGER_UNPUBLISHED);
    atomic_init(&v->older, NULL);
    pend_version(p, v);
}

/* `v` becomes a new unpublished version (a copy of `from`, or zeroes). */
static void init_version(pager *p, pver *v, const uint8_t *from) {
    if (from)
        memcpy(v->page, from, FORMAT_PAGE_SIZE);
    else
        memset(v->page, 0, FORMAT_PAGE_SIZE);
    list_version(p, v);
}

/* A version to fill: a kept one, else a new block. */
static pver *take_version(pager *p) {
    pver *v = p->idle;
    if (!v)
        return malloc(sizeof *v);
    p->idle = v->next_gc;
    p->idle_n--;
    if (p->idle_n < p->idle_low)
        p->idle_low = p->idle_n;
    return v;
}

static void drop_version(pager *p, pver *v) {
    if (p->idle_n >= PAGER_IDLE_VERSIONS) {
        free(v);
        return;
    }
    v->next_gc = p->idle;
    p->idle = v;
    p->idle_n++;
}

/* The idle versions no commit took since the last trim go, down to
 * PAGER_IDLE_FLOOR: once the readers are gone, a burst's blocks are not
 * kept for ever. Those are the list's tail (it is a stack: the blocks
 * used last, still in the caches, are taken first). */
static void trim_idle(pager *p) {
    size_t unused = p->idle_low > PAGER_IDLE_FLOOR ? p->idle_low - PAGER_IDLE_FLOOR : 0;
    if (unused > 0) {
        pver **tail = &p->idle;
        for (size_t kept = p->idle_n - unused; kept > 0; kept--)
            tail = &(*tail)->next_gc;
        pver *v = *tail;
        *tail = NULL;
        p->idle_n -= unused;
        while (v) {
            pver *next = v->next_gc;
            free(v);
            v = next;
        }
    }
    p->idle_low = p->idle_n;
}

static pver *new_version(pager *p, const uint8_t *from) {
    pver *v = take_version(p);
    if (v)
        init_version(p, v, from);
    return v;
}

/* `h`, the newest version, keeps `v` (the version it replaced, which no
 * view sees any more) as its spare, in place of the oldest spare kept. */
static void keep_spare(pager *p, pver *h, pver *v) {
    MG_ASSERT(!h->spare && !h->newer);
    size_t at = p->spare_next;
    p->spare_next = (at + 1) % PAGER_SPARES;
    pver *gives = p->spare_of[at];
    if (gives) {
        drop_version(p, gives->spare);
        gives->spare = NULL;
    }
    p->spare_of[at] = h;
    h->spare = v;
    h->spare_at = at;
}

static pver *take_spare(pager *p, pver *h) {
    pver *v = h->spare;
    h->spare = NULL;
    p->spare_of[h->spare_at] = NULL;
    return v;
}

/* Before the versions holding them go (a checkpoint, the close). */
static void drop_spares(pager *p) {
    for (size_t i = 0; i < PAGER_SPARES; i++)
        if (p->spare_of[i])
            drop_version(p, take_spare(p, p->spare_of[i]));
}

/* The parts `marks` names, from `from` to `to`, a chunk at a time: a
 * copy of a constant 64 bytes is a few vector moves, where one of a run's
 * variable length became a `rep movsq` whose start-up cost more than the
 * few chunks a commit marks (about 3% of a single-fact commit's time). */
static void copy_marked(uint8_t *to, const uint8_t *from, pager_marks marks) {
    for (; marks; marks &= marks - 1) {
        size_t at = (size_t)__builtin_ctzll(marks) * PAGER_CHUNK;
        memcpy(to + at, from + at, PAGER_CHUNK);
    }
}

static pver *older_of(pver *v) {
    return atomic_load_explicit(&v->older, memory_order_relaxed);
}

/* Whether a view open at the last publish sees the version tagged `from`
 * that a version tagged `to` superseded: one of them in [from, to). */
static bool seen(const pager *p, uint64_t from, uint64_t to) {
    if (!p->open.all)
        return true;
    for (size_t i = 0; i < p->open.n; i++)
        if (p->open.tag[i] >= from && p->open.tag[i] < to)
            return true;
    return false;
}

/* A superseded version of `h`'s page, a few back, that no open view sees
 * (views opened since the last publish see `h` or newer), and in
 * *behind the parts in which it differs from `h`; NULL when none. */
static pver *unseen_version(pager *p, pver *h, pager_marks *behind) {
    pager_marks m = h->changed;
    pver *newer = h;
    pver *v = older_of(h);
    for (int depth = 0; v && depth < PAGER_REUSE_DEPTH; depth++) {
        if (!seen(p, atomic_load_explicit(&v->tag, memory_order_relaxed),
                  atomic_load_explicit(&newer->tag, memory_order_relaxed))) {
            *behind = m;
            return v;
        }
        m |= v->changed;
        newer = v;
        v = older_of(v);
    }
    return NULL;
}

/* `v`, superseded, leaves the queue of superseded versions. */
static void unqueue_superseded(pager *p, pver *v) {
    if (v->prev_gc)
        v->prev_gc->next_gc = v->next_gc;
    else
        p->gc_first = v->next_gc;
    if (v->next_gc)
        v->next_gc->prev_gc = v->prev_gc;
    else
        p->gc_last = v->prev_gc;
    p->versions_kept--;
}

/* `v`, which no view sees, leaves its page's chain and becomes a new
 * unpublished version (its `older` is set by the caller). Views whose
 * walk is at `v` skip it (its tag is newer than they are, before and
 * after) and go on by whichever `older` they load: the one it had, or the
 * version it is put in front of, from which the chain leads down to
 * theirs again. So its `older` is never left NULL meanwhile. */
static void reuse_version(pager *p, pver *v) {
    pver *newer = v->newer, *older = older_of(v);
    newer->changed |= v->changed; /* now relative to `older` */
    atomic_store_explicit(&newer->older, older, memory_order_release);
    if (older)
        older->newer = newer;
    unqueue_superseded(p, v);
    atomic_store_explicit(&v->tag, PAGER_UNPUBLISHED, memory_order_relaxed);
    pend_version(p, v);
}

/* The next version of `h`, the newest (published), brought up to date by
 * copying what changed since: its spare, else a version a few back that
 * no open view sees (issue 20: beside readers, the one just before `h`
 * usually is), else a copy of the whole page. */
static pver *next_version(pager *p, pver *h) {
    pager_marks behind;
    if (h->spare) {
        behind = h->changed;
        pver *v = take_spare(p, h);
        copy_marked(v->page, h->page, behind);
        list_version(p, v);
        return v;
    }
    pver *v = unseen_version(p, h, &behind);
    if (!v)
        return new_version(p, h->page);
    reuse_version(p, v);
    copy_marked(v->page, h->page, behind);
    return v;
}

#ifdef MG_ASSERTS
/* Whether `v` differs from the version it was copied from only in the
 * parts marked changed (MG_ASSERT: a change not marked would be lost by
 * the copy into a spare). */
static bool marks_cover(pver *v) {
    for (size_t i = 0; i < FORMAT_PAGE_SIZE / PAGER_CHUNK; i++)
        if (!(v->changed >> i & 1) && memcmp(v->page + i * PAGER_CHUNK,
                                             older_of(v)->page + i * PAGER_CHUNK, PAGER_CHUNK) != 0)
            return false;
    return true;
}
#endif

/* `old`, now superseded by `old->newer`, waits for the views that may
 * still see it. */
static void queue_superseded(pager *p, pver *old) {
    old->next_gc = NULL;
    old->prev_gc = p->gc_last;
    if (p->gc_last)
        p->gc_last->next_gc = old;
    else
        p->gc_first = old;
    p->gc_last = old;
    p->versions_kept++;
}

const uint8_t *pager_newest(pager *p, uint32_t pgno) {
    if (pgno >= p->next)
        return NULL;
    pver_ref *slot = find_slot(p, pgno);
    return slot ? atomic_load(slot)->page : NULL;
}

int pager_dirty_marked(pager *p, uint32_t pgno, uint8_t **page, pager_marks **marks, err *e) {
    *page = NULL;
    *marks = NULL;
    if (pgno >= p->next)
        return 0;
    pver_ref *slot = find_slot(p, pgno);
    if (!slot)
        return 0;
    p->epoch++; /* the caller is about to change the page */
    pver *h = atomic_load(slot);
    if (atomic_load(&h->tag) == PAGER_UNPUBLISHED) {
        *page = h->page;
        *marks = &h->changed;
        return 0;
    }
    /* Published: views may be reading it; the change goes to a copy,
     * hung in front (views skip it until it is published). */
    pver *v = next_version(p, h);
    if (!v)
        return oom(e);
    atomic_store_explicit(&v->older, h, memory_order_release);
    h->newer = v;
    /* Release, not seq_cst: an x86 exchange waits for the slot's line,
     * which the views on other cores keep reading (issue 20). */
    atomic_store_explicit(slot, v, memory_order_release);
    queue_superseded(p, h);
    *page = v->page;
    *marks = &v->changed;
    return 0;
}

int pager_dirty(pager *p, uint32_t pgno, uint8_t **page, err *e) {
    pager_marks *marks;
    int rc = pager_dirty_marked(p, pgno, page, &marks, e);
    if (marks)
        *marks = PAGER_ALL;
    return rc;
}

/* The store hands out view `tag` only after this (under its mutex), so
 * a view that can see the tag finds it set. */
void pager_publish(pager *p, uint64_t tag) {
    MG_ASSERT(tag != PAGER_UNPUBLISHED);
    for (pver *v = p->pending; v; v = v->next_pending) {
#ifdef MG_ASSERTS
        MG_ASSERT(!older_of(v) || marks_cover(v));
#endif
        atomic_store_explicit(&v->tag, tag, memory_order_relaxed);
    }
    p->pending = NULL;
}

/* Superseded versions are queued in the order they were superseded, so
 * their successors' tags never decrease along the queue: the first one
 * still seen stops the walk. A version V superseded by N is freed once
 * every open view is at least N's tag: such a view stops at N (or a newer
 * version) and never reads N's link to V, so V is unlinked and freed
 * without the maps lock; views opened later are newer still. (The store
 * computes `oldest_view` under the mutex readers register under, which
 * orders their last reads of V before the free.) */
static bool collectable(const pager *p, uint64_t oldest_view) {
    return p->gc_first && atomic_load(&p->gc_first->newer->tag) <= oldest_view;
}

bool pager_views_add(pager_views *v, uint64_t tag) {
    for (size_t i = 0; i < v->n; i++)
        if (v->tag[i] == tag)
            return true;
    if (v->n == PAGER_VIEWS_KNOWN)
        return false;
    v->tag[v->n++] = tag;
    return true;
}

void pager_views_open(pager *p, const pager_views *open) {
    p->open.n = open->n;
    p->open.all = open->all;
    memcpy(p->open.tag, open->tag, open->n * sizeof *open->tag);
}

void pager_collect(pager *p, uint64_t oldest_view) {
    while (collectable(p, oldest_view)) {
        pver *v = p->gc_first;
        unqueue_superseded(p, v);
        pver *older = older_of(v);
        atomic_store_explicit(&v->newer->older, older, memory_order_release);
        if (older)
            older->newer = v->newer;
        if (v->newer->newer)
            drop_version(p, v);
        else
            keep_spare(p, v->newer, v);
    }
    if (++p->collects % PAGER_IDLE_TRIM_EVERY == 0)
        trim_idle(p);
}

size_t pager_versions_kept(const pager *p) {
    return p->versions_kept;
}

size_t pager_versions_idle(const pager *p) {
    return p->idle_n;
}

/* Reads the next page of the durable free list when the entries read so
 * far are used up (freelist.h). */
static int fill_freelist(pager *p, err *e) {
    uint32_t pgno = freelist_wanted(&p->fl);
    if (pgno == 0)
        return 0;
    uint8_t *page = malloc(FORMAT_PAGE_SIZE);
    if (!page)
        return oom(e);
    int rc = read_committed(p, pgno, page, NULL, e);
    if (rc == 0)
        rc = freelist_load_page(&p->fl, page, p->committed, e);
    free(page);
    return rc;
}

int pager_retire(pager *p, uint32_t pgno, err *e) {
    if (pgno >= p->committed || pager_is_memory(p))
        return 0;
    return freelist_retire(&p->fl, pgno) != 0 ? oom(e) : 0;
}

/* The table of reused pages' versions, made at the first reuse after a
 * checkpoint (under `maps`: views look pages up in it). */
static int make_below(pager *p, err *e) {
    pver_ref *t = malloc((size_t)p->committed * sizeof *t);
    if (!t)
        return oom(e);
    for (uint32_t i = 0; i < p->committed; i++)
        atomic_init(&t[i], NULL);
    shared_lock_write(&p->maps);
    p->below = t;
    shared_lock_write_done(&p->maps);
    return 0;
}

/* A free page becomes a dirty page under its old number (the caller saw
 * one loaded). Views older than this commit that still reach the page
 * (none may: it was freed before their snapshot, or a checkpoint ago)
 * read its committed image, which stays until the next checkpoint. */
static int alloc_reused(pager *p, uint32_t *pgno, uint8_t **page, err *e) {
    if (!p->below && make_below(p, e) != 0)
        return -1;
    if (!array_reserve(&p->reused_pgno, &p->reused_cap, p->reused_n + 1, sizeof *p->reused_pgno,
                       64))
        return oom(e);
    pver *v = take_version(p);
    if (!v)
        return oom(e);
    init_version(p, v, NULL); /* whole before a view can find it */
    uint32_t n = 0;
    freelist_take(&p->fl, &n);
    MG_ASSERT(n >= FORMAT_FIRST_DATA_PAGE && n < p->committed); /* free lists are checked on load */
    p->reused_pgno[p->reused_n++] = n;
    atomic_store_explicit(&p->below[n], v, memory_order_release);
    *pgno = n;
    *page = v->page;
    return 0;
}

static int grow_dirty(pager *p, err *e) {
    size_t n = p->next - p->committed;
    if (n < p->dirty_cap)
        return 0;
    shared_lock_write(&p->maps);
    bool grown = array_reserve(&p->dirty, &p->dirty_cap, n + 1, sizeof *p->dirty, 64);
    shared_lock_write_done(&p->maps);
    return grown ? 0 : oom(e);
}

int pager_alloc(pager *p, uint32_t *pgno, uint8_t **page, err *e) {
    p->epoch++; /* the page handed out (a free one, maybe) is about to change */
    int rc = fill_freelist(p, e);
    if (rc != 0)
        return rc;
    if (p->fl.avail.n > 0)
        return alloc_reused(p, pgno, page, e);
    if (p->next == UINT32_MAX)
        return err_set(e, ERR(STG, 17), "database file would exceed 2^32 pages: %s", p->path);
    if ((rc = grow_dirty(p, e)) != 0)
        return rc;
    pver *v = new_version(p, NULL);
    if (!v)
        return oom(e);
    /* hung before `next` counts it: a view that passes the range check finds it */
    atomic_store_explicit(&p->dirty[p->next - p->committed], v, memory_order_release);
    *pgno = atomic_fetch_add(&p->next, 1);
    *page = v->page;
    return 0;
}

static int write_image(pager *p, const uint8_t *page, uint32_t pgno, err *e) {
    if (vfs_write_all(p->io, p->fd, page, FORMAT_PAGE_SIZE, (uint64_t)pgno * FORMAT_PAGE_SIZE) != 0)
        return io_error(e, ERR(STG, 12), "write", p);
    return 0;
}

/* Sealing changes the version's trailer: marked, for a failed
 * checkpoint leaves it the newest. */
static int write_page(pager *p, pver *v, uint32_t pgno, err *e) {
    format_seal_page(v->page, pgno);
    pager_mark(&v->changed, FORMAT_PAGE_PAYLOAD, FORMAT_PAGE_SIZE - FORMAT_PAGE_PAYLOAD);
    return write_image(p, v->page, pgno, e);
}

/* Dirty pages, reused ones, then the new free list (already sealed). */
static int write_dirty(pager *p, const freelist_plan *plan, err *e) {
    int rc = 0;
    for (uint32_t pgno = p->committed; pgno < p->next && rc == 0; pgno++)
        rc = write_page(p, p->dirty[pgno - p->committed], pgno, e);
    for (size_t i = 0; i < p->reused_n && rc == 0; i++)
        rc = write_page(p, atomic_load(&p->below[p->reused_pgno[i]]), p->reused_pgno[i], e);
    for (size_t i = 0; i < plan->pages.n && rc == 0; i++)
        rc = write_image(p, plan->images + i * FORMAT_PAGE_SIZE, plan->pages.v[i], e);
    return rc;
}

/* Room for a deferred checkpoint's pages, the block they are sealed in
 * and a copy of the new free list's (adopting the plan frees its
 * images), made before anything changes. */
static int reserve_frozen(pager *p, const freelist_plan *plan, err *e) {
    size_t n = (size_t)(p->next - p->committed) + p->reused_n + plan->pages.n;
    if (!array_reserve(&p->frozen, &p->frozen_cap, n, sizeof *p->frozen, 64))
        return oom(e);
    if (!p->frozen_seal && !(p->frozen_seal = malloc(FORMAT_PAGE_SIZE)))
        return oom(e);
    if (plan->pages.n == 0)
        return 0;
    if (!(p->frozen_images = malloc(plan->pages.n * FORMAT_PAGE_SIZE)))
        return oom(e);
    memcpy(p->frozen_images, plan->images, plan->pages.n * FORMAT_PAGE_SIZE);
    return 0;
}

/* `v`, the newest version of a page a deferred checkpoint made
 * committed, stays until written; its older ones go. */
static void freeze(pager *p, size_t *n, uint32_t pgno, pver *v) {
    free_chain(older_of(v));
    atomic_store_explicit(&v->older, NULL, memory_order_relaxed);
    p->frozen[(*n)++] = (frozen_page){pgno, v->page, v};
}

/* Writes a deferred checkpoint's pages, each sealed in a copy (readers
 * may be copying the page itself), then frees them (readers find them in
 * the file from then on). */
static int write_frozen(pager *p, err *e) {
    size_t n = atomic_load(&p->frozen_n);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        memcpy(p->frozen_seal, p->frozen[i].page, FORMAT_PAGE_SIZE);
        format_seal_page(p->frozen_seal, p->frozen[i].pgno);
        rc = write_image(p, p->frozen_seal, p->frozen[i].pgno, e);
    }
    if (rc != 0 || n == 0)
        return rc; /* kept: memory is ahead of the file, and the store breaks */
    shared_lock_write(&p->maps);
    atomic_store(&p->frozen_n, 0);
    shared_lock_write_done(&p->maps);
    free_frozen(p, n);
    return 0;
}

/* The next generation's header, encoded for pager_checkpoint_sync. */
static void encode_header(pager *p, format_header *h, uint32_t page_count) {
    h->generation = p->generation + 1;
    h->page_count = page_count;
    p->next_slot = (uint32_t)(h->generation % 2);
    format_encode_header(h, p->next_slot, p->next_header);
}

/* The dirty pages become committed: they move into the page cache (a
 * reused page replaces its stale cached image), as do the new free-list
 * pages, read again when allocations reach them. Their older versions go
 * too: no view is open during a checkpoint (the store's lock). */
static void promote_dirty(pager *p, const freelist_plan *plan, bool defer) {
    shared_lock_write(&p->maps);
    p->pending = NULL; /* none through the store, which publishes first */
    drop_spares(p);
    size_t n = 0;
    for (uint32_t pgno = p->committed; pgno < p->next; pgno++) {
        pver *v = p->dirty[pgno - p->committed];
        page_cache_put(p->cache, pgno, v->page);
        if (defer)
            freeze(p, &n, pgno, v);
        else
            free_chain(v);
    }
    for (size_t i = 0; i < p->reused_n; i++) {
        pver *v = atomic_load(&p->below[p->reused_pgno[i]]);
        page_cache_put(p->cache, p->reused_pgno[i], v->page);
        if (defer) {
            freeze(p, &n, p->reused_pgno[i], v);
            atomic_store(&p->below[p->reused_pgno[i]], NULL); /* not freed with `below` */
        }
    }
    for (size_t i = 0; i < plan->pages.n; i++) {
        page_cache_put(p->cache, plan->pages.v[i], plan->images + i * FORMAT_PAGE_SIZE);
        if (defer)
            p->frozen[n++] = (frozen_page){plan->pages.v[i],
                                           p->frozen_images + i * FORMAT_PAGE_SIZE, NULL};
    }
    if (n > 1) /* n is 0 (the table maybe not allocated) unless deferred */
        qsort(p->frozen, n, sizeof *p->frozen, frozen_cmp);
    atomic_store(&p->frozen_n, n);
    free_reused(p);
    forget_versions(p);
    p->next = plan->next;
    p->committed = p->next;
    shared_lock_write_done(&p->maps);
}

/* The next free list, or (unchanged) the durable one kept as it is. */
static int plan_freelist(pager *p, freelist_plan *plan, err *e) {
    if (p->fl.changed)
        return freelist_plan_make(&p->fl, p->next, plan, e);
    memset(plan, 0, sizeof *plan);
    plan->head = p->fl.head;
    plan->count = p->fl.count;
    plan->next = p->next;
    return 0;
}

int pager_checkpoint_write(pager *p, format_header *h, bool defer, err *e) {
    if (pager_is_memory(p) || p->read_only)
        return 0;
    MG_ASSERT(!p->header_due);
    if (atomic_load(&p->frozen_n) != 0) /* pager_checkpoint_sync failed: the file is behind */
        return err_set(e, ERR(STG, 12), "an earlier checkpoint of %s was not written", p->path);
    if (!p->next_header && !(p->next_header = malloc(FORMAT_PAGE_SIZE)))
        return oom(e);
    freelist_plan plan;
    int rc = plan_freelist(p, &plan, e);
    if (rc != 0)
        return rc;
    rc = defer ? reserve_frozen(p, &plan, e) : write_dirty(p, &plan, e);
    if (rc != 0) {
        freelist_plan_free(&plan);
        return rc;
    }
    h->freelist = plan.head;
    h->free_count = plan.count;
    encode_header(p, h, plan.next);
    p->generation = h->generation;
    p->header_due = true;
    promote_dirty(p, &plan, defer); /* before the plan is adopted (and emptied) */
    if (p->fl.changed)
        freelist_plan_adopt(&p->fl, &plan);
    return 0;
}

/* Reads nothing the writer changes (the descriptor, the encoded header,
 * the frozen pages), so commits run beside it; another checkpoint may
 * not. */
int pager_checkpoint_sync(pager *p, err *e) {
    if (!p->header_due)
        return 0;
    p->header_due = false;
    int rc = write_frozen(p, e);
    if (rc != 0)
        return rc;
    if (p->io->sync(p->io->ctx, p->fd) != 0)
        return io_error(e, ERR(STG, 13), "sync", p);
    if (vfs_write_all(p->io, p->fd, p->next_header, FORMAT_PAGE_SIZE,
                      (uint64_t)p->next_slot * FORMAT_PAGE_SIZE) != 0)
        return io_error(e, ERR(STG, 12), "write", p);
    if (p->io->sync(p->io->ctx, p->fd) != 0)
        return io_error(e, ERR(STG, 13), "sync", p);
    return 0;
}

int pager_checkpoint(pager *p, format_header *h, err *e) {
    format_header next = *h;
    int rc = pager_checkpoint_write(p, &next, false, e);
    if (rc != 0)
        return rc;
    *h = next;
    return pager_checkpoint_sync(p, e);
}
