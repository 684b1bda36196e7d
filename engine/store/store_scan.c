/* Index scans over a reader's snapshot: the choice of index for a bound
 * set, forward and descending value-order (AVET) scans, range estimates,
 * and the bounds a query's constants put on a scan. */
#include "store/store_reader_internal.h"

#include <stdlib.h>
#include <string.h>

#include "storage/btree.h"
#include "store/fact_codec.h"
#include "store/fact_run.h"
#include "store/history.h"

struct store_scan {
    store_reader *r;
    int order;
    btree_cursor c;
    fact_run run; /* the cursor's entries being read */
    bool bounded; /* run has the order and bound (set when first read:
                     estimates never read runs) */
    bool done;    /* past the prefix: nothing more to read */
    bool kept;    /* a spare whose cursor `c` is still set up (take_cursor) */
    bool holds;   /* `c` holds the leaf the next seek lands in (spare_for) */
    uint8_t prefix[FACT_KEY_SIZE];
    size_t plen;
    bool desc;            /* AVET groups from the last value down (store_scan_values) */
    unsigned desc_groups; /* value groups a descending scan has sought */
    bool has_below;       /* the rest, forwards: values below `below` only */
    uint8_t below[FACT_V_SIZE];
    bool *order_lost;   /* set when a descending scan reads on forwards */
    bool skip;          /* leaves may be counted by their summary (store_scan_skip_leaves) */
    bool skip_null;     /* not when V is Null in some records only */
    unsigned skip_bars; /* nor when it has one of these FSUM_ flags */
    fact_view view;     /* what the records must pass for it, or to be seen */
    bool see;           /* leaves' records may be marked (store_scan_see_leaves) */
    size_t shown_left;  /* the next records of the leaf marked visible */
    bool filled_shown;  /* the last fill's records are marked */
    bool fill_cut;      /* it stopped where marked and unmarked records meet */
    bool has_held;      /* `held` is the next record (a counted leaf's last) */
    uint64_t gap;       /* store_scan_take_gap's */
    fact_ids held;
    bool listed;    /* hands out list[0..list_len) instead (store_scan_latest) */
    fact_ids *list; /* few, or a malloc'd array */
    size_t list_len, list_pos;
    fact_ids few[4];
};

/* An entity with its attribute seeks AEVT, which gives the same records
 * in the same order as EAVT: a join probing one attribute of many
 * entities then stays inside that attribute's part of the tree (at 1M
 * facts the :age records of AEVT fit the page cache, while EAVT's pages
 * of the same entities do not, and each probe read a page from the
 * file). */
static inline __attribute__((always_inline)) int index_for(store_fixed f, int *fields) {
    if (f.e && !f.a) {
        *fields = 1;
        return TREE_EAVT;
    }
    if (f.e) {
        *fields = f.v ? 3 : 2;
        return TREE_AEVT;
    }
    if (f.a) {
        *fields = f.v ? 2 : 1;
        return f.v ? TREE_AVET : TREE_AEVT;
    }
    if (f.v && f.v_ref) {
        *fields = 1;
        return TREE_VAET;
    }
    *fields = 0;
    return TREE_EAVT;
}

int store_index_for(store_fixed f, int *fields) {
    int ignored;
    return index_for(f, fields ? fields : &ignored);
}

/* The reader's spare scan on top (store_scan_close keeps them, each
 * cursor still on the leaf it read last), or a new one (`fresh`, or none
 * kept). */
static int take_scan(store_reader *r, bool fresh, store_scan **out, err *e) {
    store_scan *sc = r->spare_count && !fresh ? r->spares[--r->spare_count] : NULL;
    if (!sc && (sc = malloc(sizeof *sc)) != NULL)
        sc->kept = false;
    if (!sc)
        return err_set(e, ERR(INT, 0), "out of memory");
    sc->r = r;
    sc->holds = false;
    sc->skip = sc->has_held = false; /* a list (store_scan_latest) is never positioned */
    sc->see = false;
    sc->shown_left = 0;
    sc->gap = 0;
    *out = sc;
    return 0;
}

/* The cursor of a scan taken for reading `order`: the spare's own when it
 * has one (a seek inside the leaf it holds then skips the descent: a
 * join's probes in key order, btree_seek), else a new one. */
static int take_cursor(store_scan *sc, int order, err *e) {
    store_reader *r = sc->r;
    if (!sc->kept)
        return btree_cursor_init(&sc->c, r->s->pg, r->view, r->h.roots[order], fact_codec(order),
                                 e);
    sc->kept = false;
    btree_cursor_reuse(&sc->c, r->s->pg, r->view, r->h.roots[order], fact_codec(order));
    return 0;
}

void store_scan_idle(store_reader *r) {
    for (size_t i = 0; i < r->spare_count; i++) {
        store_scan *sc = r->spares[i];
        if (sc->kept)
            btree_cursor_free(&sc->c);
        sc->kept = false;
    }
}

/* Positions sc (its cursor set up for `order`) at sc->prefix[0..len),
 * keeping to keys sharing its first `bound` bytes. */
static int seek_prefix(store_scan *sc, int order, size_t len, size_t bound, err *e) {
    sc->order = order;
    sc->plen = bound;
    sc->done = false;
    sc->desc = false;
    sc->has_below = false;
    sc->listed = false;
    sc->skip = sc->has_held = false;
    sc->see = false;
    sc->shown_left = 0;
    sc->gap = 0;
    sc->list = sc->few;
    fact_run_clear(&sc->run);
    sc->bounded = false;
    btree_stop_at_children(&sc->c, false);
    bool holds = sc->holds;
    sc->holds = false;
    if (holds)
        return btree_seek_held(&sc->c, sc->prefix, len, e);
    return btree_seek(&sc->c, sc->prefix, len, e);
}

/* seek_prefix at from[0..len). */
static int position(store_scan *sc, int order, const uint8_t *from, size_t len, size_t bound,
                    err *e) {
    memcpy(sc->prefix, from, len);
    return seek_prefix(sc, order, len, bound, e);
}

static bool spare_covers(store_reader *r, size_t i, int order, const uint8_t *from, size_t len) {
    store_scan *sc = r->spares[i];
    return sc->kept && btree_cursor_covers(&sc->c, r->s->pg, r->view, r->h.roots[order],
                                           fact_codec(order), from, len);
}

/* Moves spares[i] to the top, the others keeping their order (the last
 * closed above). */
static void raise_spare(store_reader *r, size_t i) {
    store_scan *sc = r->spares[i];
    for (; i + 1 < r->spare_count; i++)
        r->spares[i] = r->spares[i + 1];
    r->spares[i] = sc;
}

/* What a seek takes from the reader's spares (spare_for). */
typedef enum spare_pick { PICK_NEW, PICK_SPARE, PICK_HOLDING } spare_pick;

/* Puts on top of the reader's spares the one a seek of from[0..len)
 * takes: one whose cursor holds the leaf it lands in; else, with room
 * for another spare, none (PICK_NEW: the seek takes a new scan, so that
 * the spares' leaves, another pattern's probe run again, stay); else the
 * least recently closed. (Preferring a spare on the seek's own tree, for
 * its root and branches, kept a spare of another index for good once a
 * query had used it, and a join's two probes then took turns with one
 * scan: join_2 after an attribute_value query 0.8 -> 1.5 us.) */
static spare_pick spare_for(store_reader *r, int order, const uint8_t *from, size_t len) {
    for (size_t i = r->spare_count; i-- > 0;)
        if (spare_covers(r, i, order, from, len)) {
            raise_spare(r, i);
            return PICK_HOLDING;
        }
    if (r->spare_count < STORE_SPARE_SCANS)
        return PICK_NEW;
    raise_spare(r, 0);
    return PICK_SPARE;
}

/* Seeks to from[0..len) and keeps to keys sharing its first `bound` bytes. */
static int scan_seek(store_reader *r, int order, const uint8_t *from, size_t len, size_t bound,
                     store_scan **out, err *e) {
    store_scan *sc = NULL;
    spare_pick pick = spare_for(r, order, from, len);
    int rc = take_scan(r, pick == PICK_NEW, &sc, e);
    if (rc != 0)
        return rc;
    sc->holds = pick == PICK_HOLDING;
    sc->list = sc->few; /* store_scan_close reads it */
    rc = take_cursor(sc, order, e);
    if (rc == 0)
        rc = position(sc, order, from, len, bound, e);
    if (rc != 0) {
        store_scan_close(sc);
        return rc;
    }
    *out = sc;
    return 0;
}

static int scan_start(store_reader *r, int order, const fact_ids *ids, int fields, store_scan **out,
                      err *e) {
    uint8_t prefix[FACT_KEY_SIZE] = {0};
    size_t plen = fields ? fact_key_prefix(order, ids, fields, prefix) : 0;
    return scan_seek(r, order, prefix, plen, plen, out, e);
}

static int bound_index(const store_bound *b, int *fields) {
    store_fixed f = {b->has_e, b->has_a, b->has_v, b->has_v && b->ids.v[0] == VT_REF};
    return index_for(f, fields);
}

int store_scan_open(store_reader *r, const store_bound *b, store_scan **out, err *e) {
    int fields;
    int order = bound_index(b, &fields);
    return scan_start(r, order, &b->ids, fields, out, e);
}

int store_scan_reseek(store_scan *sc, const store_bound *b, err *e) {
    int fields;
    int order = bound_index(b, &fields);
    uint8_t prefix[FACT_KEY_SIZE]; /* only its first plen bytes are read */
    size_t plen = fields ? fact_key_prefix(order, &b->ids, fields, prefix) : 0;
    if (sc->listed || sc->desc || sc->has_below || order != sc->order || plen != sc->plen)
        return err_set(e, ERR(INT, 0), "internal: a scan sought again for another bound");
    return position(sc, order, prefix, plen, plen, e);
}

int store_scan_reseek_entity(store_scan *sc, uint64_t entity, err *e) {
    size_t at = fact_key_field_at(sc->order, FACT_E), n = fact_key_field_size(FACT_E);
    if (sc->listed || sc->desc || sc->has_below || at + n > sc->plen)
        return err_set(e, ERR(INT, 0), "internal: a scan sought again for another entity");
    format_put_be(sc->prefix + at, entity, (int)n);
    return seek_prefix(sc, sc->order, sc->plen, sc->plen, e);
}

int store_scan_sought(const store_scan *sc, fact_ids *ids, bool *alone) {
    const uint8_t *key = btree_sought(&sc->c);
    if (sc->done || sc->desc || sc->has_below || sc->listed || !key)
        return -1;
    if (memcmp(key, sc->prefix, sc->plen) != 0)
        return 0;
    uint8_t lead[BTREE_MAX_KEY];
    size_t n = btree_sought_next_lead(&sc->c, lead);
    *alone = n >= sc->plen && memcmp(lead, sc->prefix, sc->plen) != 0;
    fact_key_decode(sc->order, key, ids);
    return 1;
}

int store_scan_order(store_reader *r, int order, store_scan **out, err *e) {
    if (order < TREE_EAVT || order > TREE_TXLOG)
        return err_set(e, ERR(INT, 0), "internal: no such index order %d", order);
    return scan_start(r, order, NULL, 0, out, e);
}

int store_scan_from(store_reader *r, int order, const uint8_t *from, size_t len, size_t bound,
                    store_scan **out, err *e) {
    if (order < TREE_EAVT || order > TREE_TXLOG || len > FACT_KEY_SIZE || bound > len)
        return err_set(e, ERR(INT, 0), "internal: bad scan range");
    return scan_seek(r, order, from, len, bound, out, e);
}

void store_key_successor(int order, const store_rec *rec, uint8_t key[FACT_KEY_SIZE]) {
    fact_key_encode(order, &rec->ids, key);
    key[FACT_KEY_SIZE - 1]++; /* the asserted byte: 0 or 1, so never a carry */
}

/* Past the scan's prefix: nothing more to read. The cursor keeps its
 * leaf for the next seek of a reopened scan (store_scan_reopen). */
static int scan_end(store_scan *sc) {
    sc->done = true;
    fact_run_clear(&sc->run);
    return 0;
}

/* The next key inside the scan's prefix, for counting (store_estimate):
 * 1, 0 at the end, or an error. */
static int next_key(store_scan *sc, const uint8_t **key, err *e) {
    if (sc->done)
        return 0;
    int rc = btree_next(&sc->c, key, e);
    if (rc == 1 && memcmp(*key, sc->prefix, sc->plen) != 0)
        return scan_end(sc);
    return rc;
}

/* Reads the entries of `run` next; `key` (NULL: none) holds the
 * identifiers of the run's key. */
static void start_entries(store_scan *sc, const btree_run *run, const fact_ids *key) {
    if (!sc->bounded) {
        fact_run_init(&sc->run, sc->order, sc->prefix, sc->plen);
        sc->bounded = true;
    }
    if (run->base && run->base == run->key)
        fact_run_start(&sc->run, key, run->bytes, run->len);
    else
        fact_run_start_key(&sc->run, run->base, run->bytes, run->len);
    fact_run_room(&sc->run, run->room);
}

/* A run that starts with the key a seek found: that key, if inside the
 * prefix. */
static int sought_key(store_scan *sc, const btree_run *run, fact_ids *out) {
    if (memcmp(run->key, sc->prefix, sc->plen) != 0)
        return scan_end(sc);
    fact_key_decode(sc->order, run->key, out);
    start_entries(sc, run, out);
    return 1;
}

static int scan_next_ids(store_scan *sc, fact_ids *out, err *e) {
    int rc;
    while ((rc = fact_run_next(&sc->run, out)) != 1) {
        if (rc == FACT_RUN_PAST)
            return scan_end(sc);
        if (rc < 0)
            return btree_run_corrupt(&sc->c, e);
        if (sc->done)
            return 0;
        btree_run run;
        if ((rc = btree_next_run(&sc->c, &run, e)) != 1)
            return rc;
        if (run.key)
            return sought_key(sc, &run, out);
        start_entries(sc, &run, NULL);
    }
    return 1;
}

/* ---- value order (AVET) ------------------------------------------------------ */

/* AVET key bytes: the attribute, then the attribute and value. */
#define AVET_ATTR_BYTES 6
#define AVET_GROUP_BYTES (AVET_ATTR_BYTES + FACT_V_SIZE)

/* A descending scan seeks this many value groups (each a backward and a
 * forward seek, a few thousand instructions); if the query still reads
 * on, later clauses drop most rows, and the rest of the attribute is
 * read forwards in one pass instead, out of order (*order_lost). */
#define DESC_GROUPS_MAX 32

/* The values below the scan's current group, forwards. */
static int read_rest_forwards(store_scan *sc, err *e) {
    sc->desc = false;
    *sc->order_lost = true;
    sc->has_below = true;
    memcpy(sc->below, sc->prefix + AVET_ATTR_BYTES, FACT_V_SIZE);
    sc->plen = AVET_ATTR_BYTES;
    sc->bounded = false;
    sc->done = false;
    fact_run_clear(&sc->run);
    int rc = btree_seek(&sc->c, sc->prefix, AVET_ATTR_BYTES, e);
    return rc == 0 ? 1 : rc;
}

/* A descending scan moves to the value group before the keys from
 * below[0..len): the last key under them, if of the scan's attribute,
 * names the group, which is then read forwards (visibility is decided
 * over each (E, A, V) group in commit order). 1 moved, 0 the end. */
static int desc_group(store_scan *sc, const uint8_t *below, size_t len, err *e) {
    if (sc->order_lost && ++sc->desc_groups > DESC_GROUPS_MAX)
        return read_rest_forwards(sc, e);
    uint8_t key[BTREE_MAX_KEY];
    int rc = btree_seek_before(&sc->c, below, len, key, e);
    if (rc != 1 || memcmp(key, sc->prefix, AVET_ATTR_BYTES) != 0) {
        sc->desc = false;
        return rc == 1 ? scan_end(sc) : rc;
    }
    memcpy(sc->prefix, key, AVET_GROUP_BYTES);
    sc->plen = AVET_GROUP_BYTES;
    sc->bounded = false;
    sc->done = false;
    fact_run_clear(&sc->run);
    rc = btree_seek(&sc->c, sc->prefix, AVET_GROUP_BYTES, e);
    return rc == 0 ? 1 : rc;
}

int store_scan_values(store_reader *r, uint64_t attr, bool desc, bool *order_lost, store_scan **out,
                      err *e) {
    fact_ids ids = {.a = attr};
    uint8_t prefix[FACT_KEY_SIZE];
    size_t plen = fact_key_prefix(TREE_AVET, &ids, 1, prefix);
    int rc = scan_seek(r, TREE_AVET, prefix, plen, plen, out, e);
    if (rc != 0 || !desc)
        return rc;
    uint8_t above[FACT_KEY_SIZE];
    memset(above, 0xff, sizeof above);
    memcpy(above, prefix, plen);
    (*out)->desc = true;
    (*out)->desc_groups = 0;
    (*out)->order_lost = order_lost;
    rc = desc_group(*out, above, sizeof above, e);
    if (rc > 1) {
        store_scan_close(*out);
        *out = NULL;
        return rc;
    }
    return 0;
}

/* AVET key bytes from attribute `attr` and V field `v`. */
static size_t value_key(uint64_t attr, const uint8_t v[FACT_V_SIZE], uint8_t key[FACT_KEY_SIZE]) {
    fact_ids ids = {.a = attr};
    memcpy(ids.v, v, FACT_V_SIZE);
    return fact_key_prefix(TREE_AVET, &ids, 2, key);
}

int store_scan_value_range(store_reader *r, uint64_t attr, const uint8_t lo[FACT_V_SIZE],
                           const uint8_t hi[FACT_V_SIZE], store_scan **out, err *e) {
    uint8_t from[FACT_KEY_SIZE];
    size_t len = value_key(attr, lo, from);
    int rc = scan_seek(r, TREE_AVET, from, len, AVET_ATTR_BYTES, out, e);
    if (rc == 0) {
        (*out)->has_below = true;
        memcpy((*out)->below, hi, FACT_V_SIZE);
    }
    return rc;
}

/* Read from the keys alone: the first key of the attribute and the last
 * one below the next attribute's, without a run decoded or the group of
 * the last sought again as a descending scan would. */
static int key_value_types(store_reader *r, uint64_t attr, int *lowest, int *highest, err *e) {
    fact_ids ids = {.a = attr};
    uint8_t prefix[FACT_KEY_SIZE], above[FACT_KEY_SIZE], last[BTREE_MAX_KEY];
    size_t plen = fact_key_prefix(TREE_AVET, &ids, 1, prefix);
    store_scan *sc = NULL;
    int rc = scan_seek(r, TREE_AVET, prefix, plen, plen, &sc, e);
    if (rc != 0)
        return rc;
    const uint8_t *first;
    rc = btree_next(&sc->c, &first, e);
    if (rc == 1 && memcmp(first, prefix, plen) != 0)
        rc = 0;
    if (rc == 1) {
        *lowest = first[AVET_ATTR_BYTES];
        memset(above, 0xff, sizeof above);
        memcpy(above, prefix, plen);
        rc = btree_seek_before(&sc->c, above, sizeof above, last, e);
        if (rc == 0 || (rc == 1 && memcmp(last, prefix, plen) != 0))
            rc = btree_run_corrupt(&sc->c, e); /* its first key is below `above` */
        else if (rc == 1)
            *highest = last[AVET_ATTR_BYTES];
    }
    store_scan_close(sc);
    return rc;
}

int store_value_types(store_reader *r, uint64_t attr, int *lowest, int *highest, err *e) {
    types_memo *m = &r->last_types;
    if (!m->known || m->view != r->view || m->attr != attr) {
        int rc = key_value_types(r, attr, lowest, highest, e);
        if (rc != 0 && rc != 1)
            return rc;
        *m = (types_memo){true, r->view, attr, rc, rc == 1 ? *lowest : 0, rc == 1 ? *highest : 0};
    }
    *lowest = m->lowest;
    *highest = m->highest;
    return m->rc;
}

int store_scan_next_ids(store_scan *sc, fact_ids *out, err *e) {
    sc->shown_left = 0; /* marks are for fills */
    if (sc->listed) {
        if (sc->list_pos == sc->list_len)
            return 0;
        *out = sc->list[sc->list_pos++];
        return 1;
    }
    int rc;
    while ((rc = scan_next_ids(sc, out, e)) == 0 && sc->desc)
        if ((rc = desc_group(sc, sc->prefix, sc->plen, e)) != 1)
            return rc;
    if (rc == 1 && sc->has_below && memcmp(out->v, sc->below, FACT_V_SIZE) >= 0)
        return scan_end(sc); /* read before, in order */
    return rc;
}

void store_scan_skip_leaves(store_scan *sc, const fact_view *v, unsigned same, bool same_null) {
    static const unsigned varies[FACT_LEADING] =
        {[FACT_E] = FSUM_E_VARIES, [FACT_A] = FSUM_A_VARIES, [FACT_V] = FSUM_V_VARIES};
    unsigned bars = 0;
    for (int f = FACT_E; f <= FACT_V; f++)
        if (same & (1u << f))
            bars |= varies[f];
    /* the fields of the prefix: every key of a counted leaf has its first
     * key's, which is inside the prefix */
    size_t off = 0;
    for (int i = 0; off < sc->plen; i++) {
        int f = fact_key_field(sc->order, i);
        if (f > FACT_V)
            return;
        bars |= varies[f];
        off += fact_key_field_size(f);
    }
    sc->view = *v;
    sc->skip_bars = bars;
    sc->skip_null = same_null;
    sc->skip = !sc->listed && !sc->desc && sc->order != TREE_TXLOG;
    if (sc->skip)
        btree_stop_at_children(&sc->c, true);
}

bool store_scan_see_leaves(store_scan *sc, const fact_view *v) {
    if (sc->skip)
        return false; /* counting leaves: its view stays */
    sc->view = *v;
    sc->see = !sc->listed && !sc->desc && sc->order != TREE_TXLOG;
    return sc->see;
}

bool store_scan_filled_shown(const store_scan *sc, bool *cut) {
    *cut = sc->fill_cut;
    return sc->filled_shown;
}

uint64_t store_scan_take_gap(store_scan *sc) {
    uint64_t gap = sc->gap;
    sc->gap = 0;
    return gap;
}

/* Whether the summary `s` of a leaf whose first key is `anchor` lets the
 * scan count it. */
static bool summary_counts(const store_scan *sc, const fact_summary *s, const uint8_t *anchor) {
    if (sc->has_below || sc->desc)
        return false;
    bool mixed_null = (s->flags & FSUM_NULL) && (s->flags & FSUM_NOT_NULL);
    return !(s->flags & sc->skip_bars) && !(sc->skip_null && mixed_null) &&
           fact_summary_admits(s, &sc->view) && memcmp(anchor, sc->prefix, sc->plen) == 0;
}

/* Hands on a counted leaf: `first` (its first key's record) standing for
 * its first group's leaf-last, shown or not by `first_shown`, when it
 * has more than one group, then `mid` groups shown between, then `last`
 * (NULL: none, its group is among the mid ones), which the visibility
 * rule joins with the records of the leaves around. */
static void hand_on(store_scan *sc, const fact_summary *s, fact_ids *first, long mid,
                    const fact_ids *last, fact_ids *out, size_t max, size_t *n) {
    if (s->groups > 1) {
        first->asserted = s->flags & FSUM_FIRST_SHOWN;
        first->valid_from = INT64_MIN;
        first->valid_to = INT64_MAX;
        out[(*n)++] = *first;
        sc->gap = (uint64_t)mid;
    }
    if (!last)
        return;
    if (*n < max && !sc->gap) {
        out[(*n)++] = *last;
    } else {
        sc->held = *last;
        sc->has_held = true;
    }
}

/* At the start of a leaf: counts it by its summary when that decides it
 * (store_scan_skip_leaves), its records out[*n...] and sc->held. 1 when
 * it did, 0 when the leaf is to be read, or an error. */
static int count_leaf(store_scan *sc, fact_ids *out, size_t max, size_t *n, err *e) {
    fact_summary s;
    const uint8_t *raw = btree_leaf_summary(&sc->c);
    if (!raw)
        return 0;
    fact_summary_read(raw, &s);
    if (!summary_counts(sc, &s, sc->c.anchor))
        return 0;
    uint8_t key[BTREE_MAX_KEY];
    fact_ids first, last;
    fact_key_decode(sc->order, sc->c.anchor, &first);
    int rc = btree_skip_leaf(&sc->c, key, e);
    if (rc != 0)
        return rc;
    /* the ends its branch keeps (format 6), which a count of the leaf
     * from there would have used; none in a summary of no groups (all
     * zero: unknown since the last checkpoint) */
    const uint8_t *child_first, *next, *child = btree_child(&sc->c, &child_first, &next);
    fact_summary cs;
    unsigned ends;
    if (child && (fact_child_read(child, &cs, &ends), cs.groups > 0) &&
        ends != fact_child_ends(key, next))
        return btree_run_corrupt(&sc->c, e);
    fact_run_clear(&sc->run);
    fact_key_decode(sc->order, key, &last);
    long mid = (long)s.shown - (bool)(s.flags & FSUM_FIRST_SHOWN) - fact_ids_shown(&last);
    if (s.groups > 1 && (mid < 0 || (s.groups == 2 && mid != 0)))
        return btree_run_corrupt(&sc->c, e);
    hand_on(sc, &s, &first, mid, &last, out, max, n);
    return 1;
}

/* At a leaf the cursor stopped before (btree_next_run's 2): counts it
 * from its branch's child summary when that decides it, and passes it
 * unread. Its last record is then the next leaf's first key's group
 * when the last group goes on into that leaf (shown or not by the
 * summary, at the first key's times, which the view admits), else it is
 * one of the groups counted in the gap. 1 when it did, 0 when the leaf
 * is to be read, or an error. */
static int count_child(store_scan *sc, fact_ids *out, size_t max, size_t *n, err *e) {
    const uint8_t *key, *next, *raw = btree_child(&sc->c, &key, &next);
    fact_summary s;
    unsigned ends;
    if (!raw)
        return 0;
    fact_child_read(raw, &s, &ends);
    if (!summary_counts(sc, &s, key) || ((ends & FCHILD_CONTINUES) && !next))
        return 0;
    fact_ids first, last;
    fact_key_decode(sc->order, key, &first);
    bool continues = ends & FCHILD_CONTINUES, last_shown = ends & FCHILD_LAST_SHOWN;
    last = first;
    if (continues && s.groups > 1) {
        fact_key_decode(sc->order, next, &last);
        last.tx_count = first.tx_count;
        last.seq = first.seq;
        last.tx_id = first.tx_id;
    }
    last.asserted = last_shown;
    last.valid_from = INT64_MIN;
    last.valid_to = INT64_MAX;
    long mid = (long)s.shown - (bool)(s.flags & FSUM_FIRST_SHOWN) - (continues && last_shown);
    if (s.groups > 1 && (mid < 0 || mid >= (long)s.groups))
        return btree_run_corrupt(&sc->c, e);
    int rc = btree_pass_child(&sc->c, e);
    if (rc != 0)
        return rc;
    fact_run_clear(&sc->run);
    hand_on(sc, &s, &first, mid, s.groups == 1 || continues ? &last : NULL, out, max, n);
    return 1;
}

/* At a leaf's first entry: how many of its entries (all but its last)
 * its summary marks visible under the scan's view
 * (store_scan_see_leaves). */
static size_t leaf_shown(const store_scan *sc) {
    const uint8_t *raw = sc->see && !sc->skip ? btree_leaf_summary(&sc->c) : NULL;
    if (!raw)
        return 0;
    fact_summary s;
    fact_summary_read(raw, &s);
    size_t n = btree_leaf_entries(&sc->c);
    bool each = n > 1 && s.groups == n && s.shown == n && fact_summary_admits(&s, &sc->view);
    return each ? n - 1 : 0;
}

/* The entries of the scan's runs, decoded a run's stretch at a time
 * (fact_run_fill) until `max`: no call per entry. A leaf counted by its
 * summary with groups between its first and last ends the fill, and so
 * does a change between entries marked visible (leaf_shown) and not. */
static int fill_runs(store_scan *sc, fact_ids *out, size_t max, size_t *n, err *e) {
    sc->filled_shown = sc->shown_left > 0;
    while (*n < max && !sc->gap && !sc->done) {
        if (sc->has_held) {
            out[(*n)++] = sc->held;
            sc->has_held = false;
            continue;
        }
        if ((sc->shown_left || sc->filled_shown) && sc->filled_shown != (sc->shown_left > 0)) {
            if (*n > 0) {
                sc->fill_cut = true;
                break;
            }
            sc->filled_shown = !sc->filled_shown;
        }
        size_t got, room = max - *n;
        if (sc->shown_left && sc->shown_left < room)
            room = sc->shown_left;
        int rc = fact_run_fill(&sc->run, out + *n, room, &got);
        *n += got;
        sc->shown_left -= sc->shown_left ? got : 0;
        if (rc == FACT_RUN_PAST) {
            scan_end(sc);
            break;
        }
        if (rc < 0)
            return btree_run_corrupt(&sc->c, e);
        if (*n == max)
            break;
        if (got == room)
            continue; /* the marked entries of the run ended: the rest is read next */
        if (sc->c.at_child && (rc = count_child(sc, out, max, n, e)) != 0) {
            if (rc != 1)
                return rc;
            continue;
        }
        btree_run run;
        if ((rc = btree_next_run(&sc->c, &run, e)) == 2)
            continue; /* stopped before a leaf: counted from its branch, or read */
        if (rc != 1) {
            if (rc != 0)
                return rc;
            break;
        }
        /* nothing of a leaf read yet: a run from its first entry */
        if (!run.key && !run.base && sc->skip && (rc = count_leaf(sc, out, max, n, e)) != 0) {
            if (rc != 1)
                return rc;
            continue;
        }
        if (!run.key && !run.base)
            sc->shown_left = leaf_shown(sc);
        if (!run.key)
            start_entries(sc, &run, NULL);
        else if (sought_key(sc, &run, &out[*n]) == 1)
            (*n)++;
        else
            break; /* past the prefix */
    }
    return *n > 0;
}

size_t store_scan_shown_ahead(const store_scan *sc) {
    return sc->has_held || sc->gap || sc->done || sc->has_below ? 0 : sc->shown_left;
}

/* The marked records are a leaf's (leaf_shown, all but its last): when
 * a run ends among them, the next is the same leaf's. */
int store_scan_fill_rows(store_scan *sc, const run_rows *rows, size_t max, size_t *n, err *e) {
    run_rows to = *rows;
    *n = 0;
    if (max > store_scan_shown_ahead(sc))
        max = store_scan_shown_ahead(sc);
    while (*n < max) {
        size_t got;
        int rc = fact_run_fill_rows(&sc->run, &to, max - *n, &got);
        *n += got;
        sc->shown_left -= got;
        to.slot += got * to.width;
        if (rc == FACT_RUN_PAST)
            return scan_end(sc);
        if (rc < 0)
            return btree_run_corrupt(&sc->c, e);
        if (*n == max)
            break;
        btree_run run;
        if ((rc = btree_next_run(&sc->c, &run, e)) != 1 && rc != 0 && rc != 2)
            return rc;
        if (rc != 1 || run.key || !run.base) /* the leaf held fewer entries than it counts */
            return btree_run_corrupt(&sc->c, e);
        start_entries(sc, &run, NULL);
    }
    return 0;
}

/* Drops out[0..*n)'s records from the first one at or above the scan's
 * `below` (they come in AVET order): the scan ends there. */
static void trim_below(store_scan *sc, fact_ids *out, size_t *n) {
    for (size_t i = 0; i < *n; i++)
        if (memcmp(out[i].v, sc->below, FACT_V_SIZE) >= 0) {
            *n = i;
            scan_end(sc);
            return;
        }
}

int store_scan_fill_ids(store_scan *sc, fact_ids *out, size_t max, size_t *n, err *e) {
    *n = 0;
    sc->filled_shown = sc->fill_cut = false;
    if (!sc->listed && !sc->desc) {
        int rc = fill_runs(sc, out, max, n, e);
        if (rc == 1 && sc->has_below)
            trim_below(sc, out, n);
        return rc == 1 ? *n > 0 : rc;
    }
    int rc = 1; /* lists and value-order scans: one at a time */
    while (*n < max && (rc = store_scan_next_ids(sc, &out[*n], e)) == 1)
        (*n)++;
    return rc == 0 || rc == 1 ? *n > 0 : rc;
}

int store_scan_next(store_scan *sc, store_rec *out, err *e) {
    int rc = store_scan_next_ids(sc, &out->ids, e);
    if (rc != 1)
        return rc;
    rc = store_reader_decode(sc->r, &out->ids, out, e);
    return rc == 0 ? 1 : rc;
}

/* Frees the least recently closed spare, making room for the scan being
 * closed: the spares stay those of the last queries run (a spare no
 * query lands in any more, e.g. another query's index, does not stay
 * for good while each run's probes take a new scan and free it). */
static void drop_oldest_spare(store_reader *r) {
    store_scan *old = r->spares[0];
    if (old->kept)
        btree_cursor_free(&old->c);
    free(old);
    r->spare_count--;
    memmove(r->spares, r->spares + 1, r->spare_count * sizeof r->spares[0]);
}

void store_scan_close(store_scan *sc) {
    if (!sc)
        return;
    if (sc->list != sc->few)
        free(sc->list);
    sc->list = sc->few;
    store_reader *r = sc->r;
    if (r->spare_count == STORE_SPARE_SCANS)
        drop_oldest_spare(r);
    sc->kept = sc->c.scratch != NULL;
    r->spares[r->spare_count++] = sc;
}

int store_scan_latest(store_reader *r, const store_bound *b, uint64_t max_txc, store_scan **out,
                      err *e) {
    if (!r->h.history || !b->has_e || !b->has_a || b->has_v)
        return 1;
    store_scan *sc = NULL;
    int rc = take_scan(r, false, &sc, e);
    if (rc != 0)
        return rc;
    if (sc->kept)
        btree_cursor_free(&sc->c);
    sc->kept = false;
    sc->c = (btree_cursor){0}; /* no scratch block: nothing to free */
    sc->listed = true;
    sc->list_pos = 0;
    *out = sc;
    rc = history_latest(r->s->pg, r->view, r->h.roots[TREE_HIST], b->ids.e, b->ids.a, max_txc,
                        sc->few, sizeof sc->few / sizeof sc->few[0], &sc->list, &sc->list_len, e);
    if (rc != 0) {
        store_scan_close(*out);
        *out = NULL;
    }
    return rc;
}

/* The smallest key above every key that starts with prefix[0..len): the
 * prefix plus one as a big-endian number. False when there is none (the
 * range runs to the end of the tree). */
static bool prefix_successor(const uint8_t *prefix, size_t len, uint8_t *out) {
    memcpy(out, prefix, len);
    for (size_t i = len; i-- > 0;)
        if (++out[i] != 0)
            return true;
    return false;
}

/* The keys between the scan's start and the end of its prefix, from the
 * branch positions of both ends. Every order holds every record but VAET
 * (refs only), for which the record count is an upper bound. */
static int range_estimate(store_scan *sc, double from, double *out, err *e) {
    uint8_t hi[FACT_KEY_SIZE];
    double to = 1;
    if (prefix_successor(sc->prefix, sc->plen, hi)) {
        int rc = btree_seek(&sc->c, hi, sc->plen, e);
        if (rc != 0)
            return rc;
        to = btree_cursor_position(&sc->c);
    }
    *out = (to - from) * (double)sc->r->h.fact_count;
    return 0;
}

/* Keys a value range's estimate counts one by one before it reads the
 * branch positions of its ends (each key ~300 instructions). */
#define RANGE_ESTIMATE_EXACT 16

int store_estimate_value_range(store_reader *r, uint64_t attr, const uint8_t lo[FACT_V_SIZE],
                               const uint8_t hi[FACT_V_SIZE], size_t cap, size_t *out, err *e) {
    store_scan *sc;
    int rc = store_scan_value_range(r, attr, lo, hi, &sc, e);
    if (rc != 0)
        return rc;
    double from = btree_cursor_position(&sc->c);
    size_t n = 0, exact = cap < RANGE_ESTIMATE_EXACT ? cap : RANGE_ESTIMATE_EXACT;
    const uint8_t *key;
    while (n < exact && (rc = next_key(sc, &key, e)) == 1 &&
           memcmp(key + AVET_ATTR_BYTES, hi, FACT_V_SIZE) < 0)
        n++;
    if (rc == 1 && n == exact && n < cap) {
        uint8_t to_key[FACT_KEY_SIZE];
        size_t len = value_key(attr, hi, to_key);
        rc = btree_seek(&sc->c, to_key, len, e);
        double est = (btree_cursor_position(&sc->c) - from) * (double)r->h.fact_count;
        if (rc == 0 && est > (double)n)
            n = est >= (double)cap ? cap : (size_t)est;
    }
    store_scan_close(sc);
    if (rc > 1 || rc < 0)
        return rc;
    *out = n;
    return 0;
}

/* The groups of the children after the cursor's leaf up to the one
 * whose first key reaches `to`[0..len), the range's last leaf counted
 * half (the range ends anywhere in it), added to *n until it passes
 * `cap`: 1, 0 when a child's summary does not tell, or an error. */
static int count_children(store_scan *sc, const uint8_t *to, size_t len, size_t cap, size_t *n,
                          err *e) {
    btree_run run;
    while (*n <= cap) {
        int rc = sc->c.at_child ? 2 : btree_next_run(&sc->c, &run, e);
        if (rc != 2)
            return rc == 0 ? 1 : rc == 1 ? 0 : rc; /* 1: a leaf read, no summary */
        const uint8_t *first, *next, *raw = btree_child(&sc->c, &first, &next);
        if (memcmp(first, to, len) >= 0)
            return 1;
        fact_summary s;
        unsigned ends;
        fact_child_read(raw, &s, &ends);
        if (s.groups == 0)
            return 0; /* unknown since the last checkpoint */
        bool last = !next || memcmp(next, to, len) >= 0;
        *n += last ? s.groups / 2u : s.groups;
        if (last)
            return 1;
        if ((rc = btree_pass_child(&sc->c, e)) != 0)
            return rc;
    }
    return 1;
}

/* Past the range's first keys (counted exactly): the rest of the
 * cursor's leaf counted as half its entries, then its children. */
static int count_leaves(store_scan *sc, const uint8_t *to, size_t len, size_t cap, size_t *n,
                        err *e) {
    uint8_t last[BTREE_MAX_KEY];
    size_t entries = btree_leaf_entries(&sc->c);
    if (entries == 0 || !btree_leaf_summary(&sc->c))
        return 0; /* a leaf written before summaries: its children keep none */
    *n += entries / 2;
    btree_stop_at_children(&sc->c, true);
    int rc = btree_skip_leaf(&sc->c, last, e);
    if (rc == 0)
        rc = memcmp(last, to, len) >= 0 ? 1 : count_children(sc, to, len, cap, n, e);
    btree_stop_at_children(&sc->c, false);
    return rc;
}

int store_count_value_range(store_reader *r, uint64_t attr, const uint8_t lo[FACT_V_SIZE],
                            const uint8_t hi[FACT_V_SIZE], size_t cap, size_t *out, err *e) {
    store_scan *sc;
    int rc = store_scan_value_range(r, attr, lo, hi, &sc, e);
    if (rc != 0)
        return rc;
    uint8_t to[FACT_KEY_SIZE];
    size_t len = value_key(attr, hi, to), n = 0;
    const uint8_t *key;
    while (n < RANGE_ESTIMATE_EXACT && (rc = btree_next(&sc->c, &key, e)) == 1 &&
           memcmp(key, to, len) < 0)
        n++;
    if (rc == 1 && n == RANGE_ESTIMATE_EXACT)
        rc = count_leaves(sc, to, len, cap, &n, e);
    else if (rc == 0 || rc == 1)
        rc = 1; /* the range ends among its first keys: counted */
    store_scan_close(sc);
    if (rc == 1)
        *out = n;
    return rc;
}

static int count_estimate(store_reader *r, const store_bound *b, size_t cap, size_t *out, err *e) {
    store_scan *sc;
    int rc = store_scan_open(r, b, &sc, e);
    if (rc != 0)
        return rc;
    double from = btree_cursor_position(&sc->c);
    size_t n = 0, exact = cap < STORE_ESTIMATE_EXACT ? cap : STORE_ESTIMATE_EXACT;
    const uint8_t *key;
    while (n < exact && (rc = next_key(sc, &key, e)) == 1)
        n++;
    double est = 0;
    if (rc == 1 && n < cap && (rc = range_estimate(sc, from, &est, e)) == 0 && est > (double)n)
        n = est >= (double)cap ? cap : (size_t)est;
    store_scan_close(sc);
    if (rc > 1)
        return rc;
    *out = n;
    return 0;
}

int store_estimate(store_reader *r, const store_bound *b, size_t cap, size_t *out, err *e) {
    estimate_snapshot snap = {r->h.tx_count, r->h.generation};
    if (estimate_cache_get(&r->s->estimates, snap, b, cap, out) == 1)
        return 0;
    int rc = count_estimate(r, b, cap, out, e);
    if (rc == 0)
        estimate_cache_put(&r->s->estimates, snap, b, cap, *out);
    return rc;
}

int store_bound_entity(store_reader *r, const value *v, store_bound *b, err *e) {
    uuid128 id;
    if (v->type == VT_REF && store_reader_own_id(r, v, &b->ids.e)) {
        b->has_e = true;
        return 1;
    }
    if (!value_as_entity(v, &id))
        return 0;
    int rc = store_reader_entity_id(r, &id, &b->ids.e, e);
    b->has_e = rc == 1;
    return rc;
}

/* The id of attribute keyword text[0..len) through the reader's memo of
 * the last one. A text needs no seeding (seed_decoded), so a hit is what
 * store_reader_text_id would answer in this snapshot. */
static int attribute_id(store_reader *r, const char *text, size_t len, uint64_t *id, err *e) {
    attr_memo *m = &r->last_attr;
    if (m->epoch == r->lookup_epoch && m->len == len && memcmp(m->text, text, len) == 0) {
        *id = m->id;
        return m->rc;
    }
    int rc = store_reader_text_id(r, text, len, id, e);
    if ((rc == 0 || rc == 1) && len <= ATTR_MEMO_TEXT) {
        *m = (attr_memo){.epoch = r->lookup_epoch, .len = len, .id = rc == 1 ? *id : 0, .rc = rc};
        memcpy(m->text, text, len);
    }
    return rc;
}

int store_bound_attribute(store_reader *r, const value *v, store_bound *b, err *e) {
    if (v->type == VT_REF)
        return 1;
    if (v->type != VT_KEYWORD)
        return 0;
    value kw = *v;
    int rc = 1;
    if (!store_reader_own_id(r, v, &b->ids.a) && (rc = value_resolve(&kw, e)) == 0)
        rc = attribute_id(r, kw.as.str.ptr, kw.as.str.len, &b->ids.a, e);
    b->has_a = rc == 1;
    return rc;
}
