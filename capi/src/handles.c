#include "handles.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

/* Open addressing over pointer values; removal leaves a tombstone. Only the
 * pointer's integer value is ever used, never what it points to. */
typedef struct slot {
    uintptr_t key; /* 0 = empty, 1 = tombstone */
    handle_kind kind;
} slot;

#define TOMBSTONE ((uintptr_t)1)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static slot *slots;
static size_t capacity; /* power of two */
static size_t used;     /* live + tombstones */

static size_t hash_pointer(uintptr_t p)
{
    uint64_t x = (uint64_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x;
}

static slot *find(uintptr_t key)
{
    if (capacity == 0)
        return NULL;
    for (size_t i = hash_pointer(key) & (capacity - 1);; i = (i + 1) & (capacity - 1)) {
        if (slots[i].key == key)
            return &slots[i];
        if (slots[i].key == 0)
            return NULL;
    }
}

static bool grow(void)
{
    size_t new_capacity = capacity ? capacity * 2 : 64;
    slot *fresh = calloc(new_capacity, sizeof *fresh);
    if (!fresh)
        return false;
    size_t live = 0;
    for (size_t i = 0; i < capacity; i++) {
        if (slots[i].key <= TOMBSTONE)
            continue;
        size_t j = hash_pointer(slots[i].key) & (new_capacity - 1);
        while (fresh[j].key != 0)
            j = (j + 1) & (new_capacity - 1);
        fresh[j] = slots[i];
        live++;
    }
    free(slots);
    slots = fresh;
    capacity = new_capacity;
    used = live;
    return true;
}

bool handles_add(const void *h, handle_kind kind)
{
    uintptr_t key = (uintptr_t)h;
    bool ok = true;
    pthread_mutex_lock(&lock);
    if ((used + 1) * 2 > capacity)
        ok = grow();
    if (ok) {
        size_t i = hash_pointer(key) & (capacity - 1);
        while (slots[i].key > TOMBSTONE)
            i = (i + 1) & (capacity - 1);
        if (slots[i].key == 0)
            used++;
        slots[i].key = key;
        slots[i].kind = kind;
    }
    pthread_mutex_unlock(&lock);
    return ok;
}

bool handles_remove(const void *h, handle_kind kind)
{
    pthread_mutex_lock(&lock);
    slot *s = find((uintptr_t)h);
    bool found = s && s->kind == kind;
    if (found)
        s->key = TOMBSTONE;
    pthread_mutex_unlock(&lock);
    return found;
}

bool handles_live(const void *h, handle_kind kind)
{
    if (!h)
        return false;
    pthread_mutex_lock(&lock);
    slot *s = find((uintptr_t)h);
    bool live = s && s->kind == kind;
    pthread_mutex_unlock(&lock);
    return live;
}
