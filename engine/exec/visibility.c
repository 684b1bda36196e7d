#include "exec/visibility.h"

#include <stdlib.h>

void visibility_init(visibility *v, store_reader *r, const ast_query *q, int64_t now_ms) {
    v->r = r;
    v->as_of = q->as_of;
    v->as_of_value = q->as_of_value;
    v->any_valid_time = q->valid == VALID_ANY;
    v->valid_point = q->valid == VALID_AT ? q->valid_at : now_ms;
    v->seqs = NULL;
    v->verdict = NULL;
    v->cap = v->count = 0;
}

void visibility_free(visibility *v) {
    free(v->seqs);
    free(v->verdict);
    v->seqs = NULL;
    v->verdict = NULL;
}

static size_t slot_of(const visibility *v, uint64_t seq) {
    uint64_t h = (seq + 1) * UINT64_C(0x9e3779b97f4a7c15);
    size_t mask = v->cap - 1;
    size_t i = (size_t)(h ^ (h >> 32)) & mask;
    while (v->seqs[i] != 0 && v->seqs[i] != seq + 1)
        i = (i + 1) & mask;
    return i;
}

static uint8_t memo_get(const visibility *v, uint64_t seq) {
    if (v->cap == 0)
        return 0;
    size_t i = slot_of(v, seq);
    return v->seqs[i] ? v->verdict[i] : 0;
}

static int memo_grow(visibility *v) {
    size_t cap = v->cap ? v->cap * 2 : 256;
    uint64_t *seqs = calloc(cap, sizeof *seqs);
    uint8_t *verdict = calloc(cap, 1);
    if (!seqs || !verdict) {
        free(seqs);
        free(verdict);
        return -1;
    }
    visibility old = *v;
    v->seqs = seqs;
    v->verdict = verdict;
    v->cap = cap;
    for (size_t i = 0; i < old.cap; i++) {
        if (old.seqs[i]) {
            size_t j = slot_of(v, old.seqs[i] - 1);
            v->seqs[j] = old.seqs[i];
            v->verdict[j] = old.verdict[i];
        }
    }
    free(old.seqs);
    free(old.verdict);
    return 0;
}

static int memo_put(visibility *v, uint64_t seq, uint8_t verdict) {
    if ((v->count + 1) * 2 > v->cap && memo_grow(v) != 0)
        return -1;
    size_t i = slot_of(v, seq);
    if (!v->seqs[i])
        v->count++;
    v->seqs[i] = seq + 1;
    v->verdict[i] = verdict;
    return 0;
}

static bool passes_tx_cut(const visibility *v, const fact *f) {
    switch (v->as_of) {
    case AS_OF_COUNTER: return v->as_of_value >= 0 && f->tx_count <= (uint64_t)v->as_of_value;
    case AS_OF_TIME: return f->tx_id <= v->as_of_value;
    case AS_OF_NONE: return true;
    case AS_OF_SLOT: return false; /* rejected before execution */
    }
    return true;
}

static bool in_valid_time(const visibility *v, const fact *f) {
    return v->any_valid_time || (f->valid_from <= v->valid_point && v->valid_point < f->valid_to);
}

/* Reads the record's group and memoises a verdict for every member: only
 * the last one passing the cut (tx_id need not grow with commit order, so
 * the whole group is read) can be visible. */
static int judge_group(visibility *v, const store_rec *rec, err *e) {
    store_bound b = {.has_e = true, .has_a = true, .has_v = true, .ids = rec->ids};
    store_scan *sc;
    int rc = store_scan_open(v->r, &b, &sc, e);
    if (rc != 0)
        return rc;
    store_rec m, last;
    bool any = false;
    while ((rc = store_scan_next(sc, &m, e)) == 1) {
        if (memo_put(v, m.ids.seq, 2) != 0) {
            rc = err_set(e, ERR(INT, 0), "out of memory");
            break;
        }
        if (passes_tx_cut(v, &m.f)) {
            last = m;
            any = true;
        }
    }
    store_scan_close(sc);
    if (rc != 0)
        return rc;
    if (any && last.f.asserted && in_valid_time(v, &last.f) && memo_put(v, last.ids.seq, 1) != 0)
        return err_set(e, ERR(INT, 0), "out of memory");
    return 0;
}

int visibility_check(visibility *v, const store_rec *rec, bool *visible, err *e) {
    if (!rec->f.asserted || !passes_tx_cut(v, &rec->f)) {
        *visible = false;
        return 0;
    }
    uint8_t known = memo_get(v, rec->ids.seq);
    if (known == 0) {
        int rc = judge_group(v, rec, e);
        if (rc != 0)
            return rc;
        known = memo_get(v, rec->ids.seq);
    }
    *visible = known == 1;
    return 0;
}
