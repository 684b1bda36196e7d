#include "base/lru.h"

void lru_init(lru_table *t, lru_node **buckets, size_t nbuckets) {
    t->buckets = buckets;
    t->mask = nbuckets - 1;
    t->newest = t->oldest = NULL;
}

static void list_unlink(lru_table *t, lru_node *n) {
    if (n->newer)
        n->newer->older = n->older;
    else
        t->newest = n->older;
    if (n->older)
        n->older->newer = n->newer;
    else
        t->oldest = n->newer;
    n->newer = n->older = NULL;
}

static void list_push(lru_table *t, lru_node *n) {
    n->newer = NULL;
    n->older = t->newest;
    if (t->newest)
        t->newest->newer = n;
    t->newest = n;
    if (!t->oldest)
        t->oldest = n;
}

void lru_insert(lru_table *t, lru_node *n, uint64_t hash) {
    lru_node **head = &t->buckets[hash & t->mask];
    n->hash = hash;
    n->hnext = *head;
    *head = n;
    list_push(t, n);
}

void lru_touch(lru_table *t, lru_node *n) {
    list_unlink(t, n);
    list_push(t, n);
}

void lru_remove(lru_table *t, lru_node *n) {
    list_unlink(t, n);
    lru_node **link = &t->buckets[n->hash & t->mask];
    while (*link != n)
        link = &(*link)->hnext;
    *link = n->hnext;
    n->hnext = NULL;
}
