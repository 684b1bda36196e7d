/* The fact log (fact_log.h). Opening resolves the filter against the
 * snapshot once: entity UUIDs and attribute texts become dictionary ids
 * (an id absent from the dictionary matches nothing), the counter range is
 * clipped to the snapshot, and the first key to read is chosen:
 *
 *  - commit order (TXLOG, keyed by record number first): a binary search
 *    over record numbers finds the first record of `tx_from`, because
 *    tx_count never decreases along the log; the stream ends at the first
 *    record past `tx_to` or past the snapshot.
 *  - storage order (EAVT) with an entity filter: one prefix range per
 *    entity, in dictionary-id order (the order EAVT keeps them in).
 *
 * Every other filter is a test on each record read. */
#include "db/fact_log.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "store/fact_key.h"

struct fact_log {
    store *s;
    int order;                  /* TREE_TXLOG or TREE_EAVT */
    uint64_t snapshot_facts;    /* records numbered below this are visible */
    uint64_t snapshot_tx_count; /* the counter of the snapshot */
    uint64_t tx_from, tx_to;
    bool has_window_from, has_window_to;
    int64_t window_from, window_to;
    bool attr_filter, entity_filter;
    uint64_t *attr_ids; /* sorted */
    size_t attr_count;
    fact_log_text *prefixes; /* copies in `mem` */
    size_t prefix_count;
    uint64_t *entity_ids; /* sorted, distinct */
    size_t entity_count;
    size_t entity_at; /* storage order with entities: the range being read */
    uint8_t resume[FACT_KEY_SIZE];
    size_t resume_len, bound; /* store_scan_from's `len` and `bound` */
    bool done;
    arena mem;
};

static int oom(err *e) {
    return err_set(e, ERR(INT, 0), "out of memory");
}

void fact_log_filter_default(fact_log_filter *f) {
    memset(f, 0, sizeof *f);
    f->order = FACT_LOG_TX;
    f->tx_to = UINT64_MAX;
}

static int compare_ids(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static bool has_id(const uint64_t *ids, size_t count, uint64_t id) {
    return bsearch(&id, ids, count, sizeof id, compare_ids) != NULL;
}

/* Sorts ids[0..*count) and drops repeats. */
static void sort_distinct(uint64_t *ids, size_t *count) {
    if (*count == 0)
        return;
    qsort(ids, *count, sizeof *ids, compare_ids);
    size_t kept = 1;
    for (size_t i = 1; i < *count; i++)
        if (ids[i] != ids[kept - 1])
            ids[kept++] = ids[i];
    *count = kept;
}

static uint64_t *alloc_ids(fact_log *l, size_t count) {
    return arena_alloc(&l->mem, (count ? count : 1) * sizeof(uint64_t));
}

static int resolve_attributes(fact_log *l, store_reader *r, const fact_log_filter *f, err *e) {
    l->attr_ids = alloc_ids(l, f->attribute_count);
    size_t prefixes = f->prefix_count ? f->prefix_count : 1;
    l->prefixes = arena_alloc(&l->mem, prefixes * sizeof *l->prefixes);
    if (!l->attr_ids || !l->prefixes)
        return oom(e);
    for (size_t i = 0; i < f->attribute_count; i++) {
        uint64_t id;
        int rc = store_reader_text_id(r, f->attributes[i].ptr, f->attributes[i].len, &id, e);
        if (rc == 1)
            l->attr_ids[l->attr_count++] = id;
        else if (rc != 0)
            return rc;
    }
    sort_distinct(l->attr_ids, &l->attr_count);
    for (size_t i = 0; i < f->prefix_count; i++) {
        char *copy = arena_strndup(&l->mem, f->prefixes[i].ptr, f->prefixes[i].len);
        if (!copy)
            return oom(e);
        l->prefixes[l->prefix_count++] = (fact_log_text){copy, f->prefixes[i].len};
    }
    return 0;
}

static int resolve_entities(fact_log *l, store_reader *r, const fact_log_filter *f, err *e) {
    l->entity_ids = alloc_ids(l, f->entity_count);
    if (!l->entity_ids)
        return oom(e);
    for (size_t i = 0; i < f->entity_count; i++) {
        uint64_t id;
        int rc = store_reader_entity_id(r, &f->entities[i], &id, e);
        if (rc == 1)
            l->entity_ids[l->entity_count++] = id;
        else if (rc != 0)
            return rc;
    }
    sort_distinct(l->entity_ids, &l->entity_count);
    return 0;
}

/* The tx_count of record number `seq` (which exists in the snapshot). */
static int tx_count_at(store_reader *r, uint64_t seq, uint64_t *out, err *e) {
    uint8_t key[8];
    format_put_be(key, seq, 8);
    store_scan *sc;
    int rc = store_scan_from(r, TREE_TXLOG, key, sizeof key, sizeof key, &sc, e);
    if (rc != 0)
        return rc;
    store_rec rec;
    rc = store_scan_next(sc, &rec, e);
    store_scan_close(sc);
    if (rc == 0)
        return err_set(e, ERR(STG, 8), "the commit log has no record %llu",
                       (unsigned long long)seq);
    if (rc == 1)
        *out = rec.ids.tx_count;
    return rc == 1 ? 0 : rc;
}

/* The number of the first record with tx_count >= l->tx_from. */
static int first_record_of(fact_log *l, store_reader *r, uint64_t *out, err *e) {
    uint64_t lo = 0, hi = l->snapshot_facts;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2, tx_count = 0;
        int rc = tx_count_at(r, mid, &tx_count, e);
        if (rc != 0)
            return rc;
        if (tx_count < l->tx_from)
            lo = mid + 1;
        else
            hi = mid;
    }
    *out = lo;
    return 0;
}

static void start_entity_range(fact_log *l) {
    fact_ids ids = {0};
    ids.e = l->entity_ids[l->entity_at];
    l->resume_len = l->bound = fact_key_prefix(TREE_EAVT, &ids, 1, l->resume);
}

static int choose_start(fact_log *l, store_reader *r, err *e) {
    if (l->order == TREE_TXLOG) {
        uint64_t seq = 0;
        int rc = l->tx_from > 1 ? first_record_of(l, r, &seq, e) : 0;
        format_put_be(l->resume, seq, 8);
        l->resume_len = 8;
        return rc;
    }
    if (l->entity_filter)
        start_entity_range(l);
    return 0;
}

static bool matches_nothing(const fact_log *l) {
    return l->tx_from > l->tx_to || (l->entity_filter && l->entity_count == 0) ||
           (l->attr_filter && l->attr_count == 0 && l->prefix_count == 0);
}

static int resolve(fact_log *l, store_reader *r, const fact_log_filter *f, err *e) {
    l->snapshot_facts = store_reader_fact_count(r);
    l->snapshot_tx_count = store_reader_tx_count(r);
    if (l->tx_to > store_reader_tx_count(r))
        l->tx_to = store_reader_tx_count(r);
    int rc = resolve_attributes(l, r, f, e);
    if (rc == 0)
        rc = resolve_entities(l, r, f, e);
    l->done = matches_nothing(l);
    if (rc == 0 && !l->done)
        rc = choose_start(l, r, e);
    return rc;
}

static void copy_scalars(fact_log *l, const fact_log_filter *f) {
    l->order = f->order == FACT_LOG_STORAGE ? TREE_EAVT : TREE_TXLOG;
    l->tx_from = f->tx_from;
    l->tx_to = f->tx_to;
    l->has_window_from = f->has_window_from;
    l->has_window_to = f->has_window_to;
    l->window_from = f->window_from;
    l->window_to = f->window_to;
    l->attr_filter = f->has_attributes || f->has_prefixes;
    l->entity_filter = f->has_entities;
}

int fact_log_open(store *s, const fact_log_filter *f, fact_log **out, err *e) {
    fact_log *l = calloc(1, sizeof *l);
    if (!l)
        return oom(e);
    arena_init(&l->mem);
    l->s = s;
    copy_scalars(l, f);
    store_reader *r;
    int rc = store_reader_open(s, &r, e);
    if (rc == 0) {
        rc = resolve(l, r, f, e);
        store_reader_close(r);
    }
    if (rc != 0) {
        fact_log_close(l);
        return rc;
    }
    *out = l;
    return 0;
}

static bool has_prefix(const fact_log *l, const value *attribute) {
    for (size_t i = 0; i < l->prefix_count; i++)
        if (l->prefixes[i].len <= attribute->as.str.len &&
            memcmp(attribute->as.str.ptr, l->prefixes[i].ptr, l->prefixes[i].len) == 0)
            return true;
    return false;
}

static bool keeps(const fact_log *l, const store_rec *rec) {
    const fact_ids *ids = &rec->ids;
    if (ids->seq >= l->snapshot_facts || ids->tx_count < l->tx_from || ids->tx_count > l->tx_to)
        return false;
    if (l->entity_filter && l->order == TREE_TXLOG &&
        !has_id(l->entity_ids, l->entity_count, ids->e))
        return false;
    if (l->attr_filter && !has_id(l->attr_ids, l->attr_count, ids->a) &&
        !has_prefix(l, &rec->f.attribute))
        return false;
    if (l->has_window_to && ids->valid_from >= l->window_to)
        return false;
    return !l->has_window_from || ids->valid_to > l->window_from;
}

/* The commit log is in tx_count order, so its stream ends at the first
 * record past the range or the snapshot. */
static bool past_end(const fact_log *l, const store_rec *rec) {
    return l->order == TREE_TXLOG &&
           (rec->ids.seq >= l->snapshot_facts || rec->ids.tx_count > l->tx_to);
}

/* Every record comes after the resume key: a damaged index handing out
 * one before it would restart the stream there, endlessly. */
static int in_order(const fact_log *l, const store_rec *rec, err *e) {
    uint8_t key[FACT_KEY_SIZE];
    fact_key_encode(l->order, &rec->ids, key);
    if (memcmp(key, l->resume, l->resume_len) >= 0)
        return 0;
    return err_set(e, ERR(STG, 8), "corrupt index: the fact log met a record out of order");
}

static int take(fact_log *l, const store_rec *rec, fact_log_sink sink, void *ctx, size_t *produced,
                err *e) {
    int rc = in_order(l, rec, e);
    if (rc != 0)
        return rc;
    if (past_end(l, rec)) {
        l->done = true;
        return 0;
    }
    if (keeps(l, rec)) {
        rc = sink(ctx, &rec->f, e);
        if (rc != 0)
            return rc;
        (*produced)++;
    }
    store_key_successor(l->order, rec, l->resume);
    l->resume_len = FACT_KEY_SIZE;
    return 0;
}

static void next_range(fact_log *l) {
    if (l->entity_filter && ++l->entity_at < l->entity_count)
        start_entity_range(l);
    else
        l->done = true;
}

/* Reads the current range from the resume key until `max` records are out,
 * the range ends (then moves to the next one) or the stream is done. */
static int stream_range(fact_log *l, store_reader *r, size_t max, fact_log_sink sink, void *ctx,
                        size_t *produced, err *e) {
    store_scan *sc;
    int rc = store_scan_from(r, l->order, l->resume, l->resume_len, l->bound, &sc, e);
    if (rc != 0)
        return rc;
    store_rec rec;
    int got = 1;
    while (*produced < max && !l->done && (got = store_scan_next(sc, &rec, e)) == 1) {
        rc = take(l, &rec, sink, ctx, produced, e);
        if (rc != 0)
            break;
    }
    store_scan_close(sc);
    if (rc != 0)
        return rc;
    if (got == 0)
        next_range(l);
    return got > 1 ? got : 0;
}

int fact_log_next(fact_log *l, size_t max, fact_log_sink sink, void *ctx, size_t *produced,
                  err *e) {
    *produced = 0;
    if (l->done || max == 0)
        return 0;
    store_reader *r;
    int rc = store_reader_open(l->s, &r, e);
    if (rc != 0)
        return rc;
    while (rc == 0 && !l->done && *produced < max)
        rc = stream_range(l, r, max, sink, ctx, produced, e);
    store_reader_close(r);
    return rc;
}

uint64_t fact_log_tx_count(const fact_log *l) {
    return l->snapshot_tx_count;
}

bool fact_log_done(const fact_log *l) {
    return l->done;
}

void fact_log_close(fact_log *l) {
    if (!l)
        return;
    arena_free(&l->mem);
    free(l);
}
