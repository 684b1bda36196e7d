#include "handles.h"

#include "api.h"
#include "base/error.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"

/* Open addressing over pointer values; removal leaves a tombstone. The
 * registry is split into SHARDS by a hash of the pointer, each with its
 * own table and lock on its own cache line: every query adds and removes a
 * cursor, and one lock for all of them made concurrent readers queue on it
 * (issue 18). Add and remove take their shard's lock; handles_live, which
 * every call on a handle makes, reads without it: a slot is one atomic
 * word (the pointer, with its kind in the low bits that the alignment of a
 * malloc'd handle leaves free), and a table replaced by a larger one is
 * kept (a reader may still be probing it; together they take less than
 * the current one). Only the pointer's integer value is ever used, never
 * what it points to. */
#define KIND_MASK ((uintptr_t)7)
#define EMPTY ((uintptr_t)0)
#define TOMBSTONE ((uintptr_t)1)
#define SHARD_BITS 4
#define SHARDS (1u << SHARD_BITS)

typedef struct table table;
struct table {
    size_t capacity; /* power of two */
    table *older;    /* the table this one replaced */
    _Atomic uintptr_t slot[];
};

/* After fork() the child starts with an empty registry: the handles the
 * parent opened are not live there (their files, locks and threads are
 * the parent's), and `inherited`, the parent's table, tells them apart
 * from closed ones (API-022). The locks are made anew: another thread of
 * the parent may have held one at the fork. */
typedef struct shard {
    _Alignas(64) pthread_mutex_t lock;
    _Atomic(table *) current;
    _Atomic(table *) inherited;
    size_t used;               /* live + tombstones, under lock */
    _Atomic uint64_t removals; /* handles removed, ever (handles.h: handles_seen) */
} shard;

/* The per-thread memo of handles_live (handles.h), by kind. */
_Thread_local handles_seen handles_seen_by_kind[KIND_MASK + 1];

#define EMPTY4(i)                                                                      \
    HANDLES_RECENT_EMPTY(i), HANDLES_RECENT_EMPTY(i + 1), HANDLES_RECENT_EMPTY(i + 2), \
        HANDLES_RECENT_EMPTY(i + 3)
#define EMPTY16(i) EMPTY4(i), EMPTY4(i + 4), EMPTY4(i + 8), EMPTY4(i + 12)
#define EMPTY64(i) EMPTY16(i), EMPTY16(i + 16), EMPTY16(i + 32), EMPTY16(i + 48)
_Static_assert(HANDLES_RECENT == 256, "the initializer below lists every slot");
_Atomic uintptr_t handles_recent[HANDLES_RECENT] = {EMPTY64(0), EMPTY64(64), EMPTY64(128),
                                                    EMPTY64(192)};

static shard shards[SHARDS];
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void forget_in_child(void) {
    for (unsigned i = 0; i < SHARDS; i++) {
        shard *sh = &shards[i];
        table *parents = atomic_load_explicit(&sh->current, memory_order_relaxed);
        if (parents)
            atomic_store_explicit(&sh->inherited, parents, memory_order_relaxed);
        atomic_store_explicit(&sh->current, NULL, memory_order_relaxed);
        sh->used = 0;
        atomic_store_explicit(&sh->removals, 0, memory_order_relaxed);
        pthread_mutex_init(&sh->lock, NULL);
    }
    /* the one thread of the child: the parent's handles are not live */
    memset(handles_seen_by_kind, 0, sizeof handles_seen_by_kind);
    for (unsigned i = 0; i < HANDLES_RECENT; i++)
        atomic_store_explicit(&handles_recent[i], HANDLES_RECENT_EMPTY(i), memory_order_relaxed);
}

static void init_shards(void) {
    for (unsigned i = 0; i < SHARDS; i++)
        pthread_mutex_init(&shards[i].lock, NULL);
    pthread_atfork(NULL, NULL, forget_in_child);
}

static uint64_t hash_pointer(uintptr_t p) {
    return hash_mix((uint64_t)p);
}

/* The top bits of the hash pick the shard, the low bits the slot: one
 * hash per lookup (handles_live runs on every call, three times per row
 * of a typed-row read). */
static shard *shard_of_hash(uint64_t hash) {
    return &shards[hash >> (64 - SHARD_BITS)];
}

static shard *shard_of(uintptr_t p) {
    return shard_of_hash(hash_pointer(p));
}

/* The slot holding `key` (whose hash_pointer is `hash`) as `kind`, or NULL. */
static _Atomic uintptr_t *find_hashed(table *t, uintptr_t key, uint64_t hash, handle_kind kind) {
    if (!t || key == 0 || (key & KIND_MASK)) /* never added: not an empty slot or tombstone */
        return NULL;
    for (size_t i = (size_t)hash & (t->capacity - 1);; i = (i + 1) & (t->capacity - 1)) {
        uintptr_t s = atomic_load_explicit(&t->slot[i], memory_order_acquire);
        if ((s & ~KIND_MASK) == key)
            return (s & KIND_MASK) == (uintptr_t)kind ? &t->slot[i] : NULL;
        if (s == EMPTY)
            return NULL;
    }
}

static _Atomic uintptr_t *find(table *t, uintptr_t key, handle_kind kind) {
    return find_hashed(t, key, hash_pointer(key), kind);
}

/* Under the shard's lock: a table twice the size with the live entries,
 * published. */
static bool grow(shard *sh) {
    table *old = atomic_load_explicit(&sh->current, memory_order_relaxed);
    size_t capacity = old ? old->capacity * 2 : 64;
    table *fresh = malloc(sizeof *fresh + capacity * sizeof fresh->slot[0]);
    if (!fresh)
        return false;
    fresh->capacity = capacity;
    fresh->older = old;
    for (size_t i = 0; i < capacity; i++)
        atomic_init(&fresh->slot[i], EMPTY);
    size_t live = 0;
    for (size_t i = 0; old && i < old->capacity; i++) {
        uintptr_t s = atomic_load_explicit(&old->slot[i], memory_order_relaxed);
        if (s <= TOMBSTONE)
            continue;
        size_t j = hash_pointer(s & ~KIND_MASK) & (capacity - 1);
        while (atomic_load_explicit(&fresh->slot[j], memory_order_relaxed) != EMPTY)
            j = (j + 1) & (capacity - 1);
        atomic_store_explicit(&fresh->slot[j], s, memory_order_relaxed);
        live++;
    }
    atomic_store_explicit(&sh->current, fresh, memory_order_release);
    sh->used = live;
    return true;
}

bool handles_add(const void *h, handle_kind kind) {
    uintptr_t key = (uintptr_t)h;
    if (key & KIND_MASK) /* not a malloc'd handle */
        return false;
    pthread_once(&init_once, init_shards);
    shard *sh = shard_of(key);
    pthread_mutex_lock(&sh->lock);
    table *t = atomic_load_explicit(&sh->current, memory_order_relaxed);
    bool ok = t && (sh->used + 1) * 2 <= t->capacity;
    if (!ok && (ok = grow(sh)))
        t = atomic_load_explicit(&sh->current, memory_order_relaxed);
    if (ok) {
        size_t i = hash_pointer(key) & (t->capacity - 1);
        uintptr_t s;
        while ((s = atomic_load_explicit(&t->slot[i], memory_order_relaxed)) > TOMBSTONE)
            i = (i + 1) & (t->capacity - 1);
        if (s == EMPTY)
            sh->used++;
        atomic_store_explicit(&t->slot[i], key | (uintptr_t)kind, memory_order_release);
    }
    pthread_mutex_unlock(&sh->lock);
    return ok;
}

bool handles_remove(const void *h, handle_kind kind) {
    pthread_once(&init_once, init_shards);
    shard *sh = shard_of((uintptr_t)h);
    pthread_mutex_lock(&sh->lock);
    _Atomic uintptr_t *s = find(atomic_load_explicit(&sh->current, memory_order_relaxed),
                                (uintptr_t)h, kind);
    if (s) {
        atomic_store_explicit(s, TOMBSTONE, memory_order_release);
        /* seq_cst, as remember_cursor's store and load: either it sees
         * this count, or this load sees its cursor in the slot */
        atomic_fetch_add(&sh->removals, 1);
        uintptr_t key = (uintptr_t)h;
        _Atomic uintptr_t *slot = handles_recent_slot(key);
        if (kind == HANDLE_CURSOR && atomic_load(slot) == key)
            atomic_compare_exchange_strong(slot, &key, handles_recent_empty(slot));
    }
    pthread_mutex_unlock(&sh->lock);
    return s != NULL;
}

/* Puts a cursor found live into the set of recent ones (handles.h): in
 * place of the slot's cursor when `take`, else only into an empty slot.
 * Out again if its shard removed a handle since it was found live (that
 * removal may have cleared the slot before this store). */
static void remember_cursor(_Atomic uint64_t *removals, uint64_t count, uintptr_t p, bool take) {
    _Atomic uintptr_t *slot = handles_recent_slot(p);
    uintptr_t key = p, empty = handles_recent_empty(slot);
    if (take)
        atomic_store(slot, key);
    else if (atomic_load_explicit(slot, memory_order_relaxed) != empty ||
             !atomic_compare_exchange_strong(slot, &empty, key))
        return;
    if (atomic_load(removals) != count)
        atomic_compare_exchange_strong(slot, &key, handles_recent_empty(slot));
}

bool handles_live_lookup(const void *h, handle_kind kind) {
    uintptr_t p = (uintptr_t)h;
    uint64_t hash = hash_pointer(p);
    shard *sh = shard_of_hash(hash);
    uint64_t removals = atomic_load_explicit(&sh->removals, memory_order_acquire);
    if (!find_hashed(atomic_load_explicit(&sh->current, memory_order_acquire), p, hash, kind))
        return false;
    handles_seen_by_kind[kind & KIND_MASK] = (handles_seen){p | (uintptr_t)kind, &sh->removals,
                                                            removals};
    return true;
}

/* Only the typed-row calls put cursors in the set (a cursor read by JSON
 * batches pays nothing for it). A cursor that had to be looked up takes
 * its slot; one the memo vouches for takes only an empty slot: two
 * threads whose cursors share a slot would otherwise take it from each
 * other on every call. */
bool handles_cursor_live(const void *c) {
    uintptr_t p = (uintptr_t)c;
    bool remembered = handles_remembered(c, HANDLE_CURSOR);
    if (!remembered && (!p || (p & 7) || !handles_live_lookup(c, HANDLE_CURSOR)))
        return false;
    const handles_seen *mine = &handles_seen_by_kind[HANDLE_CURSOR];
    remember_cursor(mine->removals, mine->count, p, !remembered);
    return true;
}

bool handles_inherited(const void *h, handle_kind kind) {
    if (!h)
        return false;
    shard *sh = shard_of((uintptr_t)h);
    return find(atomic_load_explicit(&sh->inherited, memory_order_acquire), (uintptr_t)h, kind) !=
           NULL;
}

int handles_check(const void *h, handle_kind kind) {
    if (!h)
        return ERR(API, 17);
    if (handles_live(h, kind))
        return 0;
    return handles_inherited(h, kind) ? ERR(API, 22) : ERR(API, 18);
}

const char *handles_dead_message(int code) {
    return code == ERR(API, 22) ? API_FORKED_HANDLE : API_DEAD_HANDLE;
}
