#include "base/spares.h"

#include "base/mg_assert.h"
#include "base/thread_slot.h"

void spares_init(spares *s, size_t n) {
    s->n = n < SPARES_MAX ? n : SPARES_MAX;
    for (size_t i = 0; i < SPARES_MAX; i++)
        atomic_init(&s->slot[i].p, NULL);
}

static size_t first_slot(const spares *s) {
    return s->n ? thread_slot() % s->n : 0;
}

void *spares_take(spares *s) {
    for (size_t k = 0, i = first_slot(s); k < s->n; k++, i = i + 1 == s->n ? 0 : i + 1) {
        void *p = atomic_exchange_explicit(&s->slot[i].p, NULL, memory_order_acquire);
        if (p)
            return p;
    }
    return NULL;
}

bool spares_give(spares *s, void *p) {
    MG_ASSERT(p != NULL); /* NULL marks an empty slot */
    for (size_t k = 0, i = first_slot(s); k < s->n; k++, i = i + 1 == s->n ? 0 : i + 1) {
        void *none = NULL;
        if (atomic_compare_exchange_strong_explicit(&s->slot[i].p, &none, p, memory_order_release,
                                                    memory_order_relaxed))
            return true;
    }
    return false;
}
