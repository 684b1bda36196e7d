/* A registry of live API handles, so that a freed or foreign pointer handed
 * back to the library is detected (API-018) instead of dereferenced. */
#ifndef MG_CAPI_HANDLES_H
#define MG_CAPI_HANDLES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum handle_kind {
    HANDLE_DB = 1,
    HANDLE_CURSOR = 2,
    HANDLE_FACT_LOG = 3,
    HANDLE_LOG_WRITER = 4,
    HANDLE_STMT = 5,
    HANDLE_TX = 6
} handle_kind;

/* Returns false when out of memory. */
bool handles_add(const void *h, handle_kind kind);
/* Removes `h`; false if it was not registered as `kind`. */
bool handles_remove(const void *h, handle_kind kind);

/* The last handle of each kind this thread found live, and its shard's
 * count of removals then: while the shard has removed nothing since, the
 * handle is still live and the lookup is skipped. A typed-row read calls
 * on one cursor three times per row, and a prepared query alternates
 * between its statement and its cursor; this makes the calls after the
 * first cost a few loads, inline in each call. A removal counts after its
 * tombstone is stored, and a lookup reads the count before the slot, so a
 * count that has not moved cannot hide a removal the lookup missed. */
typedef struct handles_seen {
    uintptr_t key;              /* the pointer | its kind; 0: none */
    _Atomic uint64_t *removals; /* its shard's */
    uint64_t count;             /* *removals when it was found live */
} handles_seen;
extern _Thread_local handles_seen handles_seen_by_kind[8];

/* handles_live past the memo: the registry's lookup (remembered when live). */
bool handles_live_lookup(const void *h, handle_kind kind);

/* The memo alone: true when `h` is the handle of its kind this thread
 * found live last and nothing was removed from its shard since; false
 * says nothing (handles_live then looks it up). */
static inline bool handles_remembered(const void *h, handle_kind kind) {
    uintptr_t p = (uintptr_t)h;
    const handles_seen *mine = &handles_seen_by_kind[kind];
    /* p & 7: never added (the kind takes the low bits of a key) */
    return p && !(p & 7) && mine->key == (p | (uintptr_t)kind) &&
           atomic_load_explicit(mine->removals, memory_order_acquire) == mine->count;
}

/* Cursors found live lately, by address (a slot each, HANDLES_RECENT of
 * them): a typed-row read calls on one cursor three times per row, and
 * this set, unlike the memo above, is reached without a thread-local (in
 * a shared library each thread-local access is a call of
 * `__tls_get_addr`). handles_cursor_live puts a live cursor in its slot;
 * a removal clears the slot before the handle is freed. Only
 * cursors: one belongs to one thread at a time (docs/c-api.md), so no
 * call on a cursor can find it live while another thread frees it but by
 * misuse, whereas a database may be closed while other threads are
 * inside calls on it. Storing a cursor, it checks afterwards that
 * its shard has removed nothing meanwhile, and takes it out again if it
 * has. */
#define HANDLES_RECENT 256
extern _Atomic uintptr_t handles_recent[HANDLES_RECENT];

static inline size_t handles_recent_index(uintptr_t p) {
    /* malloc'd cursors lie apart by more than 64 bytes: their addresses
     * differ above bit 6 */
    return (p >> 6) & (HANDLES_RECENT - 1);
}

static inline _Atomic uintptr_t *handles_recent_slot(uintptr_t p) {
    return &handles_recent[handles_recent_index(p)];
}

/* What empty slot i holds: an address of the next slot, so that no
 * pointer (NULL included) matches an empty slot it maps to. */
#define HANDLES_RECENT_EMPTY(i) ((uintptr_t)(((i) + 1) & (HANDLES_RECENT - 1)) << 6)

/* The value of `slot` when empty. */
static inline uintptr_t handles_recent_empty(const _Atomic uintptr_t *slot) {
    return HANDLES_RECENT_EMPTY((size_t)(slot - handles_recent));
}

/* True when `c` is a cursor in the set of recent ones; false says
 * nothing (handles_live then looks it up). A slot holds a cursor's
 * address as it is (only cursors are put there) or its empty value, so
 * no other pointer can match it. */
static inline bool handles_recent_cursor(const void *c) {
    uintptr_t p = (uintptr_t)c;
    return atomic_load_explicit(handles_recent_slot(p), memory_order_acquire) == p;
}

/* handles_live(c, HANDLE_CURSOR), which also puts a live cursor into
 * the set of recent ones. */
bool handles_cursor_live(const void *c);

static inline bool handles_live(const void *h, handle_kind kind) {
    uintptr_t p = (uintptr_t)h;
    if (!p || (p & 7))
        return false;
    return handles_remembered(h, kind) || handles_live_lookup(h, kind);
}
/* In a child process after fork(): `h` was live in the parent at the fork. */
bool handles_inherited(const void *h, handle_kind kind);
/* What a call on `h` may do: 0 (live), ERR(API, 17) for NULL, ERR(API,
 * 22) for a handle of the parent process (after fork()), else ERR(API,
 * 18) (closed, freed or foreign). */
int handles_check(const void *h, handle_kind kind);
/* The `[CODE] message` of a handles_check failure, for last-error calls
 * on a handle that holds none. */
const char *handles_dead_message(int code);

#endif
