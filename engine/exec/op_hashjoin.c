/* Hash join: for a pattern whose entity and value positions are neither
 * constant nor bound when it runs, seeking per child row would re-read the
 * same records for every row, so the pattern is read once into a table
 * (charged to the query's meter) and probed per row. The key is the
 * value or else the attribute when its variable is bound (hashed under E2,
 * the join relation); otherwise every row pairs with every record (a cross
 * product of unrelated clauses). op_build.c chooses the hash join for a
 * bound value when seeking cannot serve it: a value known only as an
 * entity's Ref (stored keywords naming it match too), and in semi-naive
 * delta rounds, where the value seek of a keyword would scan the attribute
 * once per delta row. */
#include <stdlib.h>

#include "exec/op_scan.h"

typedef struct hj_entry {
    value vals[3];
    fact rec;
    size_t next; /* chain, SIZE_MAX at the end */
} hj_entry;

typedef struct op_hashjoin {
    op base;
    where_ctx *x;
    frame *f;
    size_t item, step;
    op *child;
    bool built, have_row;
    int key_pos; /* the position hashed: 1 attribute, 2 value, -1 none */
    hj_entry *entries;
    size_t count, cap, charged;
    size_t *heads, head_mask;
    size_t cursor; /* next entry to try for the current row */
} op_hashjoin;

#define HJ_OP_NAME "hash join"

static size_t bucket_of(const op_hashjoin *h, const value *key) {
    return h->key_pos >= 0 ? (size_t)value_hash_entity(key) & h->head_mask : 0;
}

static int hj_append(op_hashjoin *h, const value vals[3], const fact *rec, err *e) {
    int rc = meter_charge(h->x->m, sizeof(hj_entry), HJ_OP_NAME, e);
    if (rc != 0)
        return rc;
    h->charged += sizeof(hj_entry);
    if (h->count == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 64;
        hj_entry *n = realloc(h->entries, cap * sizeof *n);
        if (!n)
            return err_set(e, ERR(INT, 0), "out of memory");
        h->entries = n;
        h->cap = cap;
    }
    h->entries[h->count++] = (hj_entry){.vals = {vals[0], vals[1], vals[2]}, .rec = *rec};
    return 0;
}

/* Chains the entries into 2^k buckets, k from the entry count. */
static int hj_index(op_hashjoin *h, err *e) {
    size_t n = 1;
    while (h->key_pos >= 0 && n < h->count)
        n *= 2;
    h->heads = malloc(n * sizeof *h->heads);
    if (!h->heads)
        return err_set(e, ERR(INT, 0), "out of memory");
    h->head_mask = n - 1;
    for (size_t i = 0; i < n; i++)
        h->heads[i] = SIZE_MAX;
    for (size_t i = h->count; i-- > 0;) {
        size_t b = h->key_pos >= 0 ? bucket_of(h, &h->entries[i].vals[h->key_pos]) : 0;
        h->entries[i].next = h->heads[b];
        h->heads[b] = i;
    }
    return 0;
}

static int hj_build(op_hashjoin *h, err *e) {
    const plan_item *it = &h->f->p->items[h->item];
    const value *known[3] = {NULL, NULL, NULL};
    if (it->pc.pattern->a.kind == TERM_CONST)
        known[1] = &it->pc.pattern->a.constant;
    pattern_scan ps;
    int rc = pattern_scan_open(&ps, h->x, it, known, e);
    value vals[3];
    fact rec;
    while (rc == 1 && (rc = pattern_scan_next(&ps, vals, &rec, e)) == 1)
        rc = hj_append(h, vals, &rec, e) == 0 ? 1 : e->code;
    pattern_scan_close(&ps);
    if (rc != 0)
        return rc;
    h->built = true;
    return hj_index(h, e);
}

static int hj_open(op *o, err *e) {
    op_hashjoin *h = (op_hashjoin *)o;
    h->have_row = false;
    int rc = h->built ? 0 : hj_build(h, e);
    return rc != 0 ? rc : op_open(h->child, e);
}

static int hj_next(op *o, err *e) {
    op_hashjoin *h = (op_hashjoin *)o;
    const plan_item *it = &h->f->p->items[h->item];
    for (;;) {
        if (!h->have_row) {
            int rc = op_next(h->child, e);
            if (rc != 1)
                return rc;
            const value *key =
                h->key_pos >= 0 ? frame_any_value(h->f, it->pc.var[h->key_pos], h->step) : NULL;
            h->cursor = h->heads[key ? bucket_of(h, key) : 0];
            h->have_row = true;
        }
        while (h->cursor != SIZE_MAX) {
            const hj_entry *en = &h->entries[h->cursor];
            h->cursor = en->next;
            if (pattern_bind(h->f, h->item, h->step, en->vals, &en->rec))
                return 1;
        }
        h->have_row = false;
    }
}

static void hj_free(op *o) {
    op_hashjoin *h = (op_hashjoin *)o;
    meter_release(h->x->m, h->charged);
    free(h->entries);
    free(h->heads);
    op_free(h->child);
    free(h);
}

static const op_vtable hj_vt = {hj_open, hj_next, hj_free};

op *op_hashjoin_new(where_ctx *x, frame *f, size_t item, op *child) {
    op_hashjoin *h = malloc(sizeof *h); /* set in full below */
    if (!h)
        return NULL;
    const plan_item *it = &f->p->items[item];
    size_t step = f->p->step_of[item];
    *h = (op_hashjoin){.base = {&hj_vt}, .x = x, .f = f, .item = item, .step = step, .child = child};
    h->key_pos = -1;
    for (int pos = 2; pos >= 1 && h->key_pos < 0; pos--)
        if (it->pc.var[pos] >= 0 && frame_any_value(f, it->pc.var[pos], step) != NULL)
            h->key_pos = pos;
    return &h->base;
}
