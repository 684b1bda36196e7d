#include "exec/derived.h"

#include <stdint.h>
#include <string.h>

#include "base/hash.h"
#include "plan/magic.h"

static uint64_t text_hash(const char *s, size_t len) {
    return hash_bytes(s, len);
}

/* Bodies look up the same few attribute constants at every open of a
 * pattern, through the same pointers: a slot per pointer remembers the
 * answer for a copy of the text, so a hit compares a few bytes instead of
 * hashing. The copy, not the pointer, decides a hit (a decoded text's
 * memory may be reused for another). */
#define MEMO_SLOTS 16
#define MEMO_TEXT 23

typedef struct memo_slot {
    char text[MEMO_TEXT];
    uint8_t len; /* 0: empty */
    long rel;    /* the index's answer, -1 none */
} memo_slot;

struct derived_memo {
    memo_slot slot[MEMO_SLOTS];
};

static memo_slot *memo_slot_of(const derived_facts *d, const char *text) {
    /* hashed: texts are arena-aligned, so their low address bits are alike */
    return &d->memo->slot[hash_mix((uintptr_t)text) % MEMO_SLOTS];
}

typedef struct attr_key {
    const derived_facts *d;
    const value *attr;
} attr_key;

static bool attr_eq(const void *ctx, uint32_t id) {
    const attr_key *k = ctx;
    return value_identical(&k->d->attrs[id], k->attr);
}

int derived_init(derived_facts *d, const seminaive *sn, err *e) {
    memset(d, 0, sizeof *d);
    arena_init(&d->mem);
    htab_init(&d->index);
    d->sn = sn;
    d->count = seminaive_relation_count(sn);
    d->attrs = arena_calloc(&d->mem, d->count + 1, sizeof *d->attrs);
    d->hidden = arena_calloc(&d->mem, d->count + 1, sizeof *d->hidden);
    d->memo = arena_calloc(&d->mem, 1, sizeof *d->memo);
    if (!d->attrs || !d->hidden || !d->memo)
        return err_set(e, ERR(INT, 0), "out of memory");
    for (size_t i = 0; i < d->count; i++) {
        const char *name;
        size_t len;
        relation_view w;
        seminaive_relation(sn, i, &name, &len, &w);
        char *kw = arena_alloc(&d->mem, len + 1);
        if (!kw)
            return err_set(e, ERR(INT, 0), "out of memory");
        kw[0] = ':';
        memcpy(kw + 1, name, len);
        d->attrs[i] = value_keyword(kw, len + 1);
        d->hidden[i] = magic_is_magic_name(name, len);
        if (htab_insert(&d->index, text_hash(kw, len + 1), (uint32_t)i) != 0)
            return err_set(e, ERR(INT, 0), "out of memory");
    }
    return 0;
}

void derived_free(derived_facts *d) {
    htab_free(&d->index);
    arena_free(&d->mem);
    memset(d, 0, sizeof *d);
}

static long find_relation(const derived_facts *d, const value *attr) {
    attr_key k = {d, attr};
    uint32_t i = htab_find(&d->index, text_hash(attr->as.str.ptr, attr->as.str.len), attr_eq, &k);
    return i == HTAB_NONE ? -1 : (long)i;
}

/* find_relation through the memo for a text the value holds itself. */
static long find_remembered(const derived_facts *d, const value *attr) {
    const char *text = attr->as.str.ptr;
    size_t len = attr->as.str.len;
    if (attr->stored || len == 0 || len > MEMO_TEXT)
        return find_relation(d, attr);
    memo_slot *s = memo_slot_of(d, text);
    if (s->len == len && memcmp(s->text, text, len) == 0)
        return s->rel;
    s->rel = find_relation(d, attr);
    memcpy(s->text, text, len);
    s->len = (uint8_t)len;
    return s->rel;
}

long derived_find(const derived_facts *d, const value *attr, bool invocation) {
    if (attr->type != VT_KEYWORD)
        return -1;
    long i = find_remembered(d, attr);
    return i >= 0 && (invocation || !d->hidden[i]) ? i : -1;
}

relation_view derived_view(const derived_facts *d, size_t i) {
    const char *name;
    size_t len;
    relation_view w;
    seminaive_relation(d->sn, i, &name, &len, &w);
    return w;
}
