/* A hash join's kept rows (see hj_rows.h). */
#include "exec/hj_rows.h"

#include <stdlib.h>

#include "base/array.h"

#define HJ_ROWS_OP_NAME "hash join"

void hj_rows_init(hj_rows *r, const plan_conj *p, size_t record_width, meter *m) {
    *r = (hj_rows){.p = p, .record_width = record_width, .m = m};
}

void hj_rows_free(hj_rows *r) {
    meter_release(r->m, r->charged);
    free(r->slot);
    free(r->record);
    free(r->hash);
    free(r->next);
    free(r->heads);
    hj_rows_init(r, r->p, r->record_width, r->m);
}

static size_t row_bytes(const hj_rows *r) {
    return r->p->slot_count * sizeof *r->slot + r->record_width * sizeof *r->record +
           sizeof *r->hash + sizeof *r->next;
}

static int charge(hj_rows *r, size_t bytes, err *e) {
    int rc = meter_charge(r->m, bytes, HJ_ROWS_OP_NAME, e);
    if (rc == 0)
        r->charged += bytes;
    return rc;
}

/* Room for one more row in every per-row array (they share `cap`). */
static bool reserve(hj_rows *r) {
    if (r->count < r->cap)
        return true;
    size_t cap;
    size_t width = r->p->slot_count ? r->p->slot_count : 1;
    if (!array_capacity(r->cap, r->count + 1, width * sizeof *r->slot, 64, &cap))
        return false;
    value *slot = realloc(r->slot, cap * width * sizeof *slot);
    if (slot)
        r->slot = slot;
    fact *record = r->record_width ? realloc(r->record, cap * r->record_width * sizeof *record)
                                   : NULL;
    if (record)
        r->record = record;
    uint64_t *hash = realloc(r->hash, cap * sizeof *hash);
    if (hash)
        r->hash = hash;
    size_t *next = realloc(r->next, cap * sizeof *next);
    if (next)
        r->next = next;
    if (!slot || (r->record_width && !record) || !hash || !next)
        return false;
    r->cap = cap;
    return true;
}

int hj_rows_append(hj_rows *r, const frame *row, uint64_t hash, err *e) {
    int rc = charge(r, row_bytes(r), e);
    if (rc != 0)
        return rc;
    if (!reserve(r))
        return err_set(e, ERR(INT, 0), "out of memory");
    frame to = hj_rows_row(r, r->count);
    memcpy(to.slot, row->slot, r->p->slot_count * sizeof *to.slot);
    if (r->record_width)
        memcpy(to.record, row->record, r->record_width * sizeof *to.record);
    r->hash[r->count++] = hash;
    return 0;
}

/* Twice as many buckets as rows (at least 2): a record whose key no row
 * has mostly finds an empty bucket, which is most records when the rows
 * are few. */
int hj_rows_index(hj_rows *r, err *e) {
    size_t n = 2;
    while (n < 2 * r->count && n < SIZE_MAX / 4)
        n *= 2;
    int rc = charge(r, n * sizeof *r->heads, e);
    if (rc != 0)
        return rc;
    free(r->heads);
    if (!(r->heads = hj_heads_new(n)))
        return err_set(e, ERR(INT, 0), "out of memory");
    r->head_mask = n - 1;
    for (size_t i = r->count; i-- > 0;) {
        size_t b = (size_t)r->hash[i] & r->head_mask;
        r->next[i] = r->heads[b];
        r->heads[b] = i;
    }
    return 0;
}
