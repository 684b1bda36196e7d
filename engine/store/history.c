/* The history index: adding records, building it for an older file, and
 * the visible records of one (E, A) at a counter cut (history.h). */
#include "store/history.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/htab.h"
#include "store/fact_codec.h"

/* Offsets in a history key. */
enum { H_EA = 12, H_TXC = 12, H_ORDER = 28, H_V = 28, H_ASSERTED = 37, H_LIVE = 38 };
/* E, A, V, TXC and SEQ: the leading fields of an EAVT key. */
#define EAVT_RECORD_PREFIX 37
#define EAVT_GROUP_PREFIX (12 + FACT_V_SIZE)

static int oom(err *e) {
    return err_set(e, ERR(INT, 0), "out of memory");
}

static void history_key(const fact_ids *f, uint64_t live, uint8_t *key) {
    format_put_be(key, f->e, 6);
    format_put_be(key + 6, f->a, 6);
    format_put_be(key + H_TXC, f->tx_count, 8);
    format_put_be(key + H_TXC + 8, f->seq, 8);
    memcpy(key + H_V, f->v, FACT_V_SIZE);
    key[H_ASSERTED] = f->asserted ? 1 : 0;
    format_put_be(key + H_LIVE, live, 8);
}

/* The last key of tree `root` below prefix[0..len) that shares its first
 * `same` bytes: 1 with it in `key`, 0 when there is none, or an error. */
static int last_below(pager *pg, uint32_t root, const btree_codec *codec, const uint8_t *prefix,
                      size_t len, size_t same, uint8_t *key, err *e) {
    if (root == 0)
        return 0;
    btree_cursor c;
    int rc = btree_cursor_init(&c, pg, root, codec, e);
    if (rc == 0)
        rc = btree_seek_before(&c, prefix, len, key, e);
    btree_cursor_free(&c);
    return rc == 1 && memcmp(key, prefix, same) != 0 ? 0 : rc;
}

int history_add(pager *pg, uint32_t *root, uint32_t eavt, const fact_ids *f, btree_hint *hint,
                err *e) {
    uint8_t key[BTREE_MAX_KEY], below[BTREE_MAX_KEY], prefix[FACT_KEY_SIZE];
    history_key(f, 0, key);
    /* live after the previous record of (E, A) ... */
    int rc = last_below(pg, *root, history_codec(), key, H_ORDER, H_EA, below, e);
    if (rc > 1)
        return rc;
    uint64_t live = rc == 1 ? format_get_be(below + H_LIVE, 8) : 0;
    /* ... less the group's previous record if it was an assertion */
    fact_key_prefix(TREE_EAVT, f, FACT_LEADING, prefix);
    rc = last_below(pg, eavt, fact_codec(TREE_EAVT), prefix, EAVT_RECORD_PREFIX, EAVT_GROUP_PREFIX,
                    below, e);
    if (rc > 1)
        return rc;
    if (rc == 1 && below[FACT_KEY_ASSERTED])
        live--;
    if (f->asserted)
        live++;
    format_put_be(key + H_LIVE, live, 8);
    return btree_insert(pg, root, history_codec(), key, hint, e);
}

int history_build(pager *pg, uint32_t *root, uint32_t txlog, uint32_t eavt, err *e) {
    btree_hint *hint = malloc(sizeof *hint);
    btree_cursor c;
    if (!hint)
        return oom(e);
    btree_hint_reset(hint);
    uint8_t start[FACT_KEY_SIZE] = {0};
    int rc = btree_cursor_init(&c, pg, txlog, fact_codec(TREE_TXLOG), e);
    if (rc == 0 && txlog != 0)
        rc = btree_seek(&c, start, 0, e);
    const uint8_t *key;
    while (rc == 0 && txlog != 0 && (rc = btree_next(&c, &key, e)) == 1) {
        fact_ids f;
        fact_key_decode(TREE_TXLOG, key, &f);
        rc = history_add(pg, root, eavt, &f, hint, e);
    }
    btree_cursor_free(&c);
    free(hint);
    return rc == 1 ? 0 : rc;
}

/* ---- reading ------------------------------------------------------------ */

/* The groups a walk back has met: their V fields, and a hash index. */
typedef struct seen_set {
    uint8_t (*v)[FACT_V_SIZE];
    size_t count, cap;
    htab index;
    const uint8_t *want;
} seen_set;

static bool seen_eq(const void *ctx, uint32_t id) {
    const seen_set *s = ctx;
    return memcmp(s->v[id], s->want, FACT_V_SIZE) == 0;
}

/* Adds V unless met before: 1 added, 0 met before, or an error. */
static int seen_add(seen_set *s, const uint8_t *v, err *e) {
    uint64_t h = hash_bytes(v, FACT_V_SIZE);
    s->want = v;
    if (htab_find(&s->index, h, seen_eq, s) != HTAB_NONE)
        return 0;
    if (s->count == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        void *grown = realloc(s->v, cap * sizeof *s->v);
        if (!grown)
            return oom(e);
        s->v = grown;
        s->cap = cap;
    }
    if (htab_reserve(&s->index, 1) != 0)
        return oom(e);
    memcpy(s->v[s->count], v, FACT_V_SIZE);
    htab_insert(&s->index, h, (uint32_t)s->count++);
    return 1;
}

/* The visible records found so far. */
typedef struct found_list {
    fact_ids *ids;
    size_t count, cap;
} found_list;

/* The whole record of history key `hk` from the EAVT tree, appended. */
static int fetch_record(btree_cursor *eavt, const uint8_t *hk, found_list *out, err *e) {
    fact_ids f = {0};
    uint8_t prefix[FACT_KEY_SIZE];
    f.e = format_get_be(hk, 6);
    f.a = format_get_be(hk + 6, 6);
    f.tx_count = format_get_be(hk + H_TXC, 8);
    f.seq = format_get_be(hk + H_TXC + 8, 8);
    memcpy(f.v, hk + H_V, FACT_V_SIZE);
    fact_key_prefix(TREE_EAVT, &f, FACT_LEADING, prefix);
    const uint8_t *key = NULL;
    int rc = btree_seek(eavt, prefix, EAVT_RECORD_PREFIX, e);
    if (rc == 0)
        rc = btree_next(eavt, &key, e);
    if (rc > 1)
        return rc;
    if (rc != 1 || memcmp(key, prefix, EAVT_RECORD_PREFIX) != 0)
        return err_set(e, ERR(STG, 8), "the history index names a record the EAVT index lacks");
    if (out->count == out->cap) {
        size_t cap = out->cap ? 2 * out->cap : 4;
        void *grown = realloc(out->ids, cap * sizeof *out->ids);
        if (!grown)
            return oom(e);
        out->ids = grown;
        out->cap = cap;
    }
    fact_key_decode(TREE_EAVT, key, &out->ids[out->count++]);
    return 0;
}

/* Walks back from history key `key` (the last at the cut) until `live`
 * deciding assertions are found. */
static int walk_back(btree_cursor *hist, btree_cursor *eavt, uint8_t *key, uint64_t live,
                     found_list *out, err *e) {
    seen_set seen = {0};
    htab_init(&seen.index);
    uint8_t ea[H_EA];
    memcpy(ea, key, H_EA);
    int rc;
    for (;;) {
        int added = seen_add(&seen, key + H_V, e);
        rc = added > 1 ? added : 0;
        if (added == 1 && key[H_ASSERTED])
            rc = fetch_record(eavt, key, out, e);
        if (rc != 0 || out->count >= live)
            break;
        uint8_t at[HIST_KEY_SIZE];
        memcpy(at, key, HIST_KEY_SIZE);
        rc = btree_seek_before(hist, at, HIST_KEY_SIZE, key, e);
        if (rc > 1)
            break;
        if (rc == 0 || memcmp(key, ea, H_EA) != 0) {
            rc = err_set(e, ERR(STG, 8), "the history index counts more live values than it holds");
            break;
        }
    }
    htab_free(&seen.index);
    free(seen.v);
    return rc;
}

static int by_value(const void *a, const void *b) {
    return memcmp(((const fact_ids *)a)->v, ((const fact_ids *)b)->v, FACT_V_SIZE);
}

int history_latest(pager *pg, uint32_t root, uint32_t eavt, uint64_t e_id, uint64_t a_id,
                   uint64_t max_txc, fact_ids **out, size_t *count, err *e) {
    *out = NULL;
    *count = 0;
    if (root == 0)
        return 0;
    uint8_t cut[H_ORDER], key[BTREE_MAX_KEY];
    format_put_be(cut, e_id, 6);
    format_put_be(cut + 6, a_id, 6);
    size_t len = H_ORDER;
    if (max_txc == UINT64_MAX) {
        memset(cut + H_TXC, 0xff, H_ORDER - H_TXC);
    } else {
        format_put_be(cut + H_TXC, max_txc + 1, 8);
        len = H_TXC + 8;
    }
    btree_cursor hist, ev;
    found_list found = {0};
    int rc = btree_cursor_init(&hist, pg, root, history_codec(), e);
    if (rc != 0)
        return rc;
    rc = btree_cursor_init(&ev, pg, eavt, fact_codec(TREE_EAVT), e);
    if (rc == 0)
        rc = btree_seek_before(&hist, cut, len, key, e);
    if (rc == 1 && memcmp(key, cut, H_EA) == 0 && format_get_be(key + H_LIVE, 8) > 0)
        rc = walk_back(&hist, &ev, key, format_get_be(key + H_LIVE, 8), &found, e);
    else if (rc == 1)
        rc = 0;
    btree_cursor_free(&ev);
    btree_cursor_free(&hist);
    if (rc != 0) {
        free(found.ids);
        return rc;
    }
    qsort(found.ids, found.count, sizeof *found.ids, by_value);
    *out = found.ids;
    *count = found.count;
    return 0;
}
