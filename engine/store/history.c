/* The history index: adding records, building it for an older file, and
 * the visible records of one (E, A) at a counter cut (history.h). */
#include "store/history.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/htab.h"
#include "store/fact_codec.h"

/* Offsets in a history key. */
enum {
    H_EA = 12,
    H_TXC = 12,
    H_ORDER = 28,
    H_V = 28,
    H_ASSERTED = 37,
    H_LIVE = 38,
    H_TXID = 46,
    H_VALID_FROM = 54,
    H_VALID_TO = 62
};
/* E, A, V, TXC and SEQ: the leading fields of an EAVT key. */
#define EAVT_RECORD_PREFIX 37
#define EAVT_GROUP_PREFIX (12 + FACT_V_SIZE)

static int oom(err *e) {
    return err_set(e, ERR(INT, 0), "out of memory");
}

/* TXC and SEQ are stored complemented: the newest record of an (E, A)
 * comes first, so a read seeks once and reads forwards. */
static void history_key(const fact_ids *f, uint64_t live, uint8_t *key) {
    format_put_be(key, f->e, 6);
    format_put_be(key + 6, f->a, 6);
    format_put_be(key + H_TXC, ~f->tx_count, 8);
    format_put_be(key + H_TXC + 8, ~f->seq, 8);
    memcpy(key + H_V, f->v, FACT_V_SIZE);
    key[H_ASSERTED] = f->asserted ? 1 : 0;
    format_put_be(key + H_LIVE, live, 8);
    format_put_be(key + H_TXID, format_sortable_i64(f->tx_id), 8);
    format_put_be(key + H_VALID_FROM, format_sortable_i64(f->valid_from), 8);
    format_put_be(key + H_VALID_TO, format_sortable_i64(f->valid_to), 8);
}

static void history_ids(const uint8_t *key, fact_ids *f) {
    f->e = format_get_be(key, 6);
    f->a = format_get_be(key + 6, 6);
    f->tx_count = ~format_get_be(key + H_TXC, 8);
    f->seq = ~format_get_be(key + H_TXC + 8, 8);
    memcpy(f->v, key + H_V, FACT_V_SIZE);
    f->asserted = key[H_ASSERTED] != 0;
    f->tx_id = format_from_sortable(format_get_be(key + H_TXID, 8));
    f->valid_from = format_from_sortable(format_get_be(key + H_VALID_FROM, 8));
    f->valid_to = format_from_sortable(format_get_be(key + H_VALID_TO, 8));
}

/* The first key of tree `root` at or after prefix[0..len) if it shares
 * the prefix's first `same` bytes (1), 0 when there is none, or an error;
 * `before`: the last key below the prefix instead. */
static int key_near(pager *pg, uint32_t root, const btree_codec *codec, const uint8_t *prefix,
                    size_t len, size_t same, bool before, uint8_t *key, err *e) {
    if (root == 0)
        return 0;
    btree_cursor c;
    const uint8_t *at = NULL;
    int rc = btree_cursor_init(&c, pg, PAGER_LATEST, root, codec, e);
    if (rc == 0 && before)
        rc = btree_seek_before(&c, prefix, len, key, e);
    else if (rc == 0 && (rc = btree_seek(&c, prefix, len, e)) == 0 &&
             (rc = btree_next(&c, &at, e)) == 1)
        memcpy(key, at, codec->key_size);
    btree_cursor_free(&c);
    return rc == 1 && memcmp(key, prefix, same) != 0 ? 0 : rc;
}

/* Whether the group of `f` had an assertion as its latest record before
 * it, given the pair's previous record `near` (found: rc 1). That record
 * answers when nothing of the pair is live or it is of the same group;
 * otherwise the EAVT order does (the group's record before `f`'s place).
 * 1 yes, 0 no, or an error. */
static int group_asserted(pager *pg, uint32_t eavt, const fact_ids *f, int rc, const uint8_t *near,
                          err *e) {
    if (rc == 0 || format_get_be(near + H_LIVE, 8) == 0)
        return 0;
    if (memcmp(near + H_V, f->v, FACT_V_SIZE) == 0)
        return near[H_ASSERTED];
    uint8_t prefix[FACT_KEY_SIZE], below[BTREE_MAX_KEY];
    fact_key_prefix(TREE_EAVT, f, FACT_LEADING, prefix);
    rc = key_near(pg, eavt, fact_codec(TREE_EAVT), prefix, EAVT_RECORD_PREFIX, EAVT_GROUP_PREFIX,
                  true, below, e);
    return rc == 1 ? below[FACT_KEY_ASSERTED] : rc;
}

void history_writer_reset(history_writer *w) {
    btree_hint_reset(&w->hint);
    w->has_last = false;
}

/* The pair's record before `key` (1 with it in `prev`, 0 none, or an
 * error): the writer's last key when of the same pair (commits add
 * records in commit order, so it is the pair's newest), else the first
 * key after this one's place in the tree. */
static int pair_before(pager *pg, uint32_t root, const history_writer *w, const uint8_t *key,
                       uint8_t *prev, err *e) {
    if (w->has_last && memcmp(w->last, key, H_EA) == 0) {
        memcpy(prev, w->last, HIST_KEY_SIZE);
        return 1;
    }
    return key_near(pg, root, history_codec(), key, H_ORDER, H_EA, false, prev, e);
}

int history_add(pager *pg, uint32_t *root, uint32_t eavt, const fact_ids *f, history_writer *w,
                err *e) {
    uint8_t key[BTREE_MAX_KEY], prev[BTREE_MAX_KEY];
    /* The tree starts with an all-zero key (no entity is 0): each new
     * record goes first in its pair's range, and a key before the first
     * of the tree's first leaf would re-encode that whole leaf. */
    static const uint8_t first[HIST_KEY_SIZE];
    if (*root == 0 && btree_insert(pg, root, history_codec(), first, NULL, e) != 0)
        return e->code;
    history_key(f, 0, key);
    /* live after the pair's previous record, less the group's previous
     * record if it asserted, plus this one if it does */
    int rc = pair_before(pg, *root, w, key, prev, e);
    if (rc > 1)
        return rc;
    uint64_t live = rc == 1 ? format_get_be(prev + H_LIVE, 8) : 0;
    rc = group_asserted(pg, eavt, f, rc, prev, e);
    if (rc > 1)
        return rc;
    live = live - (uint64_t)rc + (f->asserted ? 1 : 0);
    format_put_be(key + H_LIVE, live, 8);
    w->has_last = false;
    rc = btree_insert(pg, root, history_codec(), key, &w->hint, e);
    if (rc == 0) {
        memcpy(w->last, key, HIST_KEY_SIZE);
        w->has_last = true;
    }
    return rc;
}

int history_build(pager *pg, uint32_t *root, uint32_t txlog, uint32_t eavt, err *e) {
    history_writer *w = malloc(sizeof *w);
    btree_cursor c;
    if (!w)
        return oom(e);
    history_writer_reset(w);
    uint8_t start[FACT_KEY_SIZE] = {0};
    int rc = btree_cursor_init(&c, pg, PAGER_LATEST, txlog, fact_codec(TREE_TXLOG), e);
    if (rc == 0 && txlog != 0)
        rc = btree_seek(&c, start, 0, e);
    const uint8_t *key;
    while (rc == 0 && txlog != 0 && (rc = btree_next(&c, &key, e)) == 1) {
        fact_ids f;
        fact_key_decode(TREE_TXLOG, key, &f);
        rc = history_add(pg, root, eavt, &f, w, e);
    }
    btree_cursor_free(&c);
    free(w);
    return rc == 1 ? 0 : rc;
}

/* ---- reading ------------------------------------------------------------ */

/* The groups a walk back has met: their V fields, searched in turn while
 * they are few (a walk usually stops at its first record) and through a
 * hash index beyond that. */
#define SEEN_INLINE 8
typedef struct seen_set {
    uint8_t (*v)[FACT_V_SIZE]; /* inline_v or the heap */
    uint8_t inline_v[SEEN_INLINE][FACT_V_SIZE];
    size_t count, cap;
    bool indexed;
    htab index;
    const uint8_t *want;
} seen_set;

static void seen_init(seen_set *s) {
    s->v = s->inline_v;
    s->count = 0;
    s->cap = SEEN_INLINE;
    s->indexed = false;
    htab_init(&s->index);
}

static void seen_free(seen_set *s) {
    htab_free(&s->index);
    if (s->v != s->inline_v)
        free(s->v);
}

static bool seen_eq(const void *ctx, uint32_t id) {
    const seen_set *s = ctx;
    return memcmp(s->v[id], s->want, FACT_V_SIZE) == 0;
}

static bool seen_has(seen_set *s, const uint8_t *v) {
    if (s->indexed) {
        s->want = v;
        return htab_find(&s->index, hash_bytes(v, FACT_V_SIZE), seen_eq, s) != HTAB_NONE;
    }
    for (size_t i = 0; i < s->count; i++)
        if (memcmp(s->v[i], v, FACT_V_SIZE) == 0)
            return true;
    return false;
}

static int seen_grow(seen_set *s, err *e) {
    size_t cap = 2 * s->cap;
    uint8_t (*grown)[FACT_V_SIZE] = s->v == s->inline_v ? malloc(cap * sizeof *s->v)
                                                        : realloc(s->v, cap * sizeof *s->v);
    if (!grown)
        return oom(e);
    if (s->v == s->inline_v)
        memcpy(grown, s->inline_v, sizeof s->inline_v);
    s->v = grown;
    s->cap = cap;
    return 0;
}

/* Adds V unless met before: 1 added, 0 met before, or an error. */
static int seen_add(seen_set *s, const uint8_t *v, err *e) {
    if (seen_has(s, v))
        return 0;
    if (s->count == s->cap && seen_grow(s, e) != 0)
        return e->code;
    memcpy(s->v[s->count++], v, FACT_V_SIZE);
    bool index_all = !s->indexed && s->count > SEEN_INLINE;
    size_t from = index_all ? 0 : s->count - 1;
    if (!s->indexed && !index_all)
        return 1;
    if (htab_reserve(&s->index, s->count - from) != 0)
        return oom(e);
    for (size_t i = from; i < s->count; i++)
        htab_insert(&s->index, hash_bytes(s->v[i], FACT_V_SIZE), (uint32_t)i);
    s->indexed = true;
    return 1;
}

/* The visible records found so far: in the caller's buffer while they
 * fit (a pair usually has one or a few), then on the heap. */
typedef struct found_list {
    fact_ids *ids, *buf;
    size_t count, cap;
} found_list;

/* The record of history key `hk`, appended. */
static int add_record(const uint8_t *hk, found_list *out, err *e) {
    if (out->count == out->cap) {
        size_t cap = 2 * out->cap;
        fact_ids *grown = out->ids == out->buf ? malloc(cap * sizeof *grown)
                                               : realloc(out->ids, cap * sizeof *grown);
        if (!grown)
            return oom(e);
        if (out->ids == out->buf)
            memcpy(grown, out->buf, out->count * sizeof *grown);
        out->ids = grown;
        out->cap = cap;
    }
    history_ids(hk, &out->ids[out->count++]);
    return 0;
}

/* Reads on from history key `key` (the newest at the cut), older and
 * older, until `live` deciding assertions are found. */
static int walk_back(btree_cursor *hist, const uint8_t *key, uint64_t live, found_list *out,
                     err *e) {
    seen_set seen;
    seen_init(&seen);
    uint8_t ea[H_EA];
    memcpy(ea, key, H_EA);
    int rc;
    for (;;) {
        int added = seen_add(&seen, key + H_V, e);
        rc = added > 1 ? added : 0;
        if (added == 1 && key[H_ASSERTED])
            rc = add_record(key, out, e);
        if (rc != 0 || out->count >= live)
            break;
        rc = btree_next(hist, &key, e);
        if (rc > 1)
            break;
        if (rc == 0 || memcmp(key, ea, H_EA) != 0) {
            rc = err_set(e, ERR(STG, 8), "the history index counts more live values than it holds");
            break;
        }
    }
    seen_free(&seen);
    return rc;
}

static int by_value(const void *a, const void *b) {
    return memcmp(((const fact_ids *)a)->v, ((const fact_ids *)b)->v, FACT_V_SIZE);
}

int history_latest(pager *pg, uint64_t view, uint32_t root, uint64_t e_id, uint64_t a_id,
                   uint64_t max_txc, fact_ids *buf, size_t buf_cap, fact_ids **out, size_t *count,
                   err *e) {
    *out = buf;
    *count = 0;
    if (root == 0)
        return 0;
    uint8_t cut[H_TXC + 8];
    format_put_be(cut, e_id, 6);
    format_put_be(cut + 6, a_id, 6);
    format_put_be(cut + H_TXC, ~max_txc, 8);
    btree_cursor hist;
    found_list found = {buf, buf, 0, buf_cap};
    const uint8_t *key = NULL;
    int rc = btree_cursor_init(&hist, pg, view, root, history_codec(), e);
    if (rc != 0)
        return rc;
    if ((rc = btree_seek(&hist, cut, sizeof cut, e)) == 0)
        rc = btree_next(&hist, &key, e);
    if (rc == 1 && memcmp(key, cut, H_EA) == 0 && format_get_be(key + H_LIVE, 8) > 0)
        rc = walk_back(&hist, key, format_get_be(key + H_LIVE, 8), &found, e);
    else if (rc == 1)
        rc = 0;
    btree_cursor_free(&hist);
    if (rc != 0) {
        if (found.ids != buf)
            free(found.ids);
        return rc;
    }
    if (found.count > 1)
        qsort(found.ids, found.count, sizeof *found.ids, by_value);
    *out = found.ids;
    *count = found.count;
    return 0;
}
