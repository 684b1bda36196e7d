/* Pattern record streams: seek, visibility, constants (see op_scan.h). */
#include "exec/op_scan.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "exec/derived.h"
#include "exec/match.h"

/* A step every stored record takes: inlined into both of its readers,
 * pattern_scan_next and pattern_scan_fill's loop. */
#define RECORD_STEP static inline __attribute__((always_inline))

value pseudo_value(const where_ctx *x, pseudo_kind k, const fact *rec) {
    switch (k) {
    case PSEUDO_VALID_FROM: return value_integer(rec->valid_from);
    case PSEUDO_VALID_TO: return value_integer(rec->valid_to);
    case PSEUDO_TX_COUNT: return value_integer((int64_t)rec->tx_count);
    case PSEUDO_TX_ID: return value_integer(rec->tx_id);
    case PSEUDO_VALID_AT: return x->valid_at;
    case PSEUDO_NONE: break;
    }
    return value_null();
}

void pattern_known(const frame *f, const plan_item *it, size_t step, const value *known[3]) {
    for (int pos = 0; pos < 3; pos++) {
        const term *t = plan_pattern_term(it->pc.pattern, pos);
        known[pos] = NULL;
        if (t->kind == TERM_CONST)
            known[pos] = &t->constant;
        else if (it->pc.var[pos] >= 0)
            known[pos] = frame_any_value(f, it->pc.var[pos], step);
    }
}

/* Only types whose matching is exact (E1 = E2 = E3, language.md §6.4) seek by
 * value: keywords and refs also match each other, floats within epsilon. */
static bool seeks_by_value(const value *known) {
    return known->type == VT_STRING || known->type == VT_INTEGER || known->type == VT_BOOLEAN;
}

static int seek_value(store_reader *r, const value *known, store_bound *b, err *e) {
    if (!seeks_by_value(known))
        return 1;
    int rc = store_reader_value_key(r, known, b->ids.v, e);
    b->has_v = rc == 1;
    return rc;
}

/* A keyword value matches stored keywords and the refs it names (E4), so
 * with the attribute fixed it is two exact seeks: the keyword's V field,
 * then (ps->alt) the ref of its entity. Their V types differ, so the two
 * ranges never share a record. 1 with at least one seek, 0 when neither
 * form is stored, or an error. */
static int seek_keyword_value(pattern_scan *ps, store_reader *r, const value *known, store_bound *b,
                              err *e) {
    ps->alt = *b;
    value ref = value_ref((uuid128){{0}});
    value_as_entity(known, &ref.as.ref);
    int rc = store_reader_value_key(r, &ref, ps->alt.ids.v, e);
    if (rc < 0 || rc > 1)
        return rc;
    ps->alt.has_v = ps->has_alt = rc == 1;
    rc = store_reader_value_key(r, known, b->ids.v, e);
    if (rc == 1)
        b->has_v = true;
    else if (rc == 0 && ps->has_alt) { /* only the ref form is stored */
        *b = ps->alt;
        ps->has_alt = false;
        rc = 1;
    }
    return rc;
}

/* The attribute's part of the bound: a constant attribute's is kept from
 * the open's lookup (value_resolve and the reader's memo cost every probe
 * of a not body or join ≈ 60 instructions). */
static int bound_attribute(pattern_scan *ps, const value *known, store_bound *b, err *e) {
    if (known == ps->attr_known) {
        b->has_a = ps->attr_has;
        b->ids.a = ps->attr_id;
        return ps->attr_rc;
    }
    int rc = store_bound_attribute(ps->x->r, known, b, e);
    const term *t = plan_pattern_term(ps->it->pc.pattern, 1);
    if ((rc == 0 || rc == 1) && t->kind == TERM_CONST && known == &t->constant) {
        ps->attr_known = known;
        ps->attr_rc = rc;
        ps->attr_has = b->has_a;
        ps->attr_id = b->ids.a;
    }
    return rc;
}

/* The bound of the pattern's seek(s) (a keyword value sets ps->alt) and
 * the positions its records must still be matched on: 1, 0 when none can
 * match, or an error. Inlined into both opens: every join's probe opens. */
static inline __attribute__((always_inline)) int stored_bound(pattern_scan *ps,
                                                              const value *known[3], store_bound *b,
                                                              err *e) {
    memset(b, 0, sizeof *b);
    store_reader *r = ps->x->r;
    bool pseudo = ps->it->kind == PK_PSEUDO; /* only the entity narrows a pseudo scan */
    /* The attribute first: usually a constant the reader has just looked
     * up, and a rule invocation's has no stored fact at all. */
    int rc = known[1] && !pseudo ? bound_attribute(ps, known[1], b, e) : 1;
    if (rc == 1 && known[0])
        rc = store_bound_entity(r, known[0], b, e);
    if (rc == 1 && known[2] && !pseudo && known[2]->type == VT_KEYWORD && b->has_a)
        rc = seek_keyword_value(ps, r, known[2], b, e);
    else if (rc == 1 && known[2] && !pseudo)
        rc = seek_value(r, known[2], b, e);
    if (rc != 1)
        return rc;
    /* A value sought exactly with its attribute (an AEVT or AVET prefix,
     * store_index_for) gives only records of that very value. */
    bool exact_v = b->has_v && b->has_a && !pseudo && seeks_by_value(known[2]);
    ps->stored_check = ps->check &
                       ~((b->has_e ? 1u : 0u) | (b->has_a ? 2u : 0u) | (exact_v ? 4u : 0u));
    return 1;
}

/* The stored records of the pattern: 1 opened, 0 none can match. */
static int stored_open(pattern_scan *ps, const value *known[3], err *e) {
    store_bound b;
    store_reader *r = ps->x->r;
    bool pseudo = ps->it->kind == PK_PSEUDO;
    int rc = stored_bound(ps, known, &b, e);
    if (rc != 1)
        return rc;
    if (ps->range) {
        if (!b.has_a || b.has_e || b.has_v)
            return err_set(e, ERR(INT, 0), "internal: a value range needs the attribute alone");
        rc = store_scan_value_range(r, b.ids.a, ps->range->lo, ps->range->hi, &ps->sc, e);
        return rc == 0 ? 1 : rc;
    }
    uint64_t max_txc;
    if (b.has_e && b.has_a && !b.has_v && !pseudo &&
        visibility_counter_cut(&ps->x->vis, &max_txc) &&
        (rc = store_scan_latest(r, &b, max_txc, &ps->sc, e)) != 1)
        return rc == 0 ? 1 : rc;
    /* Runs read by one position alone are longest in the index it leads. */
    bool reorder = ps->x->collapsed == ps->it && ps->x->collapse_any_order;
    unsigned runs_by = reorder ? ps->x->collapse_read : 0;
    bool nothing_fixed = !b.has_e && !b.has_a && !b.has_v;
    if ((ps->x->ordered == ps->it || runs_by == 4u) && b.has_a && !b.has_e && !b.has_v)
        rc = store_scan_values(r, b.ids.a, ps->x->ordered == ps->it && ps->x->ordered_desc,
                               &ps->x->order_lost, &ps->sc, e);
    else if (runs_by == 2u && nothing_fixed)
        rc = store_scan_order(r, TREE_AEVT, &ps->sc, e);
    else {
        rc = store_scan_open(r, &b, &ps->sc, e);
        ps->fixed = (store_fixed){b.has_e, b.has_a, b.has_v, false};
        /* derived relations are chosen per open (derived_open): none */
        ps->reseek = rc == 0 && !ps->has_alt && !ps->x->derived;
    }
    return rc == 0 ? 1 : rc;
}

/* The derived relations the pattern reads: [rel, rel_end). */
static void derived_relations(pattern_scan *ps, const derived_facts *d, const value *known[3]) {
    if (known[1] && known[1]->type == VT_KEYWORD) {
        ps->rel = derived_find(d, known[1], ps->it->kind == PK_INVOKE);
        ps->rel_end = ps->rel < 0 ? 0 : ps->rel + 1;
        if (ps->rel < 0)
            ps->rel = 0;
    } else {
        ps->rel_end = (long)d->count; /* a variable (or Ref) attribute: all of them */
    }
}

/* Which derived relations the pattern reads, and how it seeks in them.
 * True when there is any to read. The relations come first: a stored
 * attribute's pattern reads none, and a keyword entity costs a UUID
 * (E2) to seek by. */
static bool derived_open(pattern_scan *ps, const value *known[3]) {
    const derived_facts *d = ps->x->derived;
    ps->rel = ps->rel_end = 0;
    ps->row = RELATION_END;
    if (!d || ps->it->kind == PK_PSEUDO)
        return false;
    derived_relations(ps, d, known);
    if (ps->rel < ps->rel_end && known[0] && !value_as_entity(known[0], &ps->entity))
        ps->rel = ps->rel_end = 0; /* derived entities are entities */
    if (ps->rel >= ps->rel_end)
        return false;
    ps->seek = known[0] ? SEEK_ENTITY : SEEK_ALL;
    /* Floats match within an epsilon, which no hash index serves. */
    if (!known[0] && known[2] && known[2]->type != VT_FLOAT) {
        ps->seek = SEEK_VALUE;
        ps->v = *known[2];
    }
    /* One relation named by the attribute holds only that attribute, and
     * the entity seek returns only that entity (E2 equality, as
     * match_term's): their constants need no check per fact. */
    bool one_attr = ps->rel_end - ps->rel == 1 && known[1] && known[1]->type == VT_KEYWORD;
    ps->derived_check = ps->check & ~(one_attr ? 2u : 0u) & ~(ps->seek == SEEK_ENTITY ? 1u : 0u);
    return true;
}

/* The positions whose term can refuse a value (match_term): not the
 * variables and wildcards, nor a pseudo pattern's attribute. */
static unsigned checked_positions(const plan_item *it) {
    unsigned check = 0;
    for (int pos = 0; pos < 3; pos++) {
        term_kind k = plan_pattern_term(it->pc.pattern, pos)->kind;
        if (k != TERM_VAR && k != TERM_WILDCARD && !(pos == 1 && it->kind == PK_PSEUDO))
            check |= 1u << pos;
    }
    return check;
}

static int scan_open(pattern_scan *ps, where_ctx *x, const plan_item *it, const value *known[3],
                     const value_range *range, err *e) {
    memset(ps, 0, offsetof(pattern_scan, big));
    ps->range = range;
    ps->ids = ps->big ? ps->big : ps->few;
    ps->x = x;
    ps->it = it;
    for (int pos = 0; pos < 3; pos++)
        if (plan_pattern_term(it->pc.pattern, pos)->kind == TERM_NEVER)
            return 0;
    ps->check = checked_positions(it);
    ps->delta = x->delta_clause != NULL && it->clause == x->delta_clause;
    bool derived = derived_open(ps, known);
    if (ps->delta)
        return derived ? 1 : 0;
    int rc = stored_open(ps, known, e);
    return rc == 0 && derived ? 1 : rc;
}

int pattern_scan_open(pattern_scan *ps, where_ctx *x, const plan_item *it, const value *known[3],
                      err *e) {
    return scan_open(ps, x, it, known, NULL, e);
}

/* Whether seeking the scan for `known` changes only its bound's entity:
 * the entity fixed then and now, the attribute the constant the open
 * looked up (bound_attribute), no value. (The positions a record is
 * still matched on stay as stored_bound set them.) */
static bool entity_only(const pattern_scan *ps, const value *known[3]) {
    return ps->fixed.e && ps->fixed.a && !ps->fixed.v && known[0] && known[1] && !known[2] &&
           known[1] == ps->attr_known;
}

/* The stored scan of the last open sought again for `known`: 1, 0 when
 * no record can match (the scan kept, read to its end), 2 when it cannot
 * be (another bound), or an error. */
static int reseek(pattern_scan *ps, const value *known[3], err *e) {
    store_bound b;
    int rc;
    if (entity_only(ps, known)) {
        if ((rc = store_bound_entity(ps->x->r, known[0], &b, e)) == 1 &&
            (rc = store_scan_reseek_entity(ps->sc, b.ids.e, e)) == 0)
            rc = 1;
    } else {
        rc = stored_bound(ps, known, &b, e);
        if (rc == 1 && (ps->has_alt || b.has_e != ps->fixed.e || b.has_a != ps->fixed.a ||
                        b.has_v != ps->fixed.v))
            return 2;
        if (rc == 1 && (rc = store_scan_reseek(ps->sc, &b, e)) == 0)
            rc = 1;
    }
    ps->pos = ps->len = ps->want = 0;
    ps->tail_gap = ps->group_gap = 0;
    ps->ids = ps->big ? ps->big : ps->few;
    ps->ids_end = rc == 0;
    return rc;
}

int pattern_scan_reopen(pattern_scan *ps, where_ctx *x, const plan_item *it, const value *known[3],
                        err *e) {
    if (ps->sc && ps->reseek && ps->x == x && ps->it == it) {
        int rc = reseek(ps, known, e);
        if (rc != 2)
            return rc;
    }
    pattern_scan_close(ps);
    return pattern_scan_open(ps, x, it, known, e);
}

int pattern_scan_open_range(pattern_scan *ps, where_ctx *x, const plan_item *it,
                            const value *known[3], const value_range *range, err *e) {
    return scan_open(ps, x, it, known, range, e);
}

/* Checks the positions in `check` (a bit each). */
static bool matches_constants(const plan_item *it, const value vals[3], unsigned check) {
    for (int pos = 0; check >> pos; pos++) {
        const term *t = plan_pattern_term(it->pc.pattern, pos);
        if ((check & (1u << pos)) && !match_term(t, &vals[pos]))
            return false;
    }
    return true;
}

/* The query's view as a leaf summary can decide it (fact_summary_admits):
 * a cut by counter or time, one valid-time point. */
static bool query_view(const visibility *vis, fact_view *v) {
    *v = (fact_view){.max_txc = UINT64_MAX, .max_txid = INT64_MAX, .valid_point = vis->valid_point};
    if (vis->any_valid_time)
        return false;
    if (vis->as_of == AS_OF_TIME) {
        v->by_time = true;
        v->max_txid = vis->as_of_value;
        return true;
    }
    return visibility_counter_cut(vis, &v->max_txc);
}

/* Lets the stored scan mark the records its leaves' summaries show
 * visible under the query's view. */
static void see_leaves(pattern_scan *ps) {
    fact_view v;
    ps->seeing = query_view(&ps->x->vis, &v) && store_scan_see_leaves(ps->sc, &v);
}

/* Reads the next stored records of the seek(s) into ps->ids (those
 * their leaves' summaries show marked visible: ps->shown_end): 1, 0 at
 * the end, or an error. */
static int read_ahead(pattern_scan *ps, err *e) {
    ps->pos = ps->len = ps->shown_end = 0;
    if (ps->ids_end)
        return 0;
    size_t want = ps->want ? ps->want : SCAN_IDS_MIN;
    ps->want = want * 2 < SCAN_IDS_MAX ? want * 2 : SCAN_IDS_MAX;
    if (want > SCAN_IDS_MIN && ps->ids == ps->few) {
        if (!ps->big && !(ps->big = malloc(SCAN_IDS_MAX * sizeof *ps->big)))
            return err_set(e, ERR(INT, 0), "out of memory");
        ps->ids = ps->big;
    }
    if (want == 2 * SCAN_IDS_MIN) /* a scan that reads on (not a point lookup) */
        see_leaves(ps);
    for (;;) {
        int rc = store_scan_fill_ids(ps->sc, ps->ids, want, &ps->len, e);
        if (rc == 1) { /* fewer than asked: the seek's last records, a gap, or a cut */
            bool cut = false;
            if (ps->seeing && store_scan_filled_shown(ps->sc, &cut))
                ps->shown_end = ps->len;
            ps->tail_gap = store_scan_take_gap(ps->sc);
            ps->ids_end = ps->len < want && !ps->has_alt && !ps->tail_gap && !cut;
            /* a scan may read long without a row */
            return meter_tick(ps->x->m, ps->len, e) != 0 ? e->code : 1;
        }
        if (rc != 0 || !ps->has_alt) {
            ps->ids_end = rc == 0;
            return rc;
        }
        store_scan_close(ps->sc);
        ps->sc = NULL;
        ps->has_alt = false;
        if ((rc = store_scan_open(ps->x->r, &ps->alt, &ps->sc, e)) != 0)
            return rc;
    }
}

/* The next stored record, not yet consumed: 1 with *out, 0 at the end,
 * or an error. A read ahead overwrites the records before it. */
RECORD_STEP int peek_ids(pattern_scan *ps, const fact_ids **out, err *e) {
    if (ps->pos == ps->len) {
        int rc = read_ahead(ps, e);
        if (rc != 1)
            return rc;
    }
    *out = &ps->ids[ps->pos];
    return 1;
}

/* The visible record of the next group that has one (visibility.h): a
 * group is read to its end (its next record peeked at, not consumed) and
 * judged on identifiers alone: `last` its latest record, `pick` its
 * latest that passes the cut. They point into ps->ids, or into ps->held
 * when the group goes on past a read ahead. 1 with *out (valid until the
 * next call), 0 at the end, or an error. Without `cut` (a constant
 * where inlined) every record passes the transaction-time cut: the test
 * is left out of the loop. A group that took in the gap of a leaf
 * counted by its summary (store_scan_skip_leaves) stands for
 * 1 + ps->group_gap visible groups (agreeing on what runs read), and is
 * handed out even when hidden itself (then with group_gap one less). */
RECORD_STEP int next_visible_cut(pattern_scan *ps, const fact_ids **out, bool cut, err *e) {
    const visibility *vis = &ps->x->vis;
    for (;;) {
        if (ps->pos < ps->shown_end) { /* the last of its group, and visible */
            *out = &ps->ids[ps->pos++];
            return 1;
        }
        const fact_ids *last, *pick, *next;
        int rc = peek_ids(ps, &last, e);
        if (rc != 1)
            return rc;
        ps->pos++;
        pick = !cut || visibility_passes_cut(vis, last) ? last : NULL;
        for (;;) {
            if (ps->pos == ps->len) { /* the read ahead overwrites ps->ids */
                ps->group_gap += ps->tail_gap;
                ps->tail_gap = 0;
                ps->held[0] = *last;
                last = &ps->held[0];
                if (pick && pick != &ps->held[1]) { /* held since an earlier read ahead */
                    ps->held[1] = *pick;
                    pick = &ps->held[1];
                }
            }
            if ((rc = peek_ids(ps, &next, e)) != 1)
                break;
            if (!visibility_same_group(next, last))
                break;
            ps->pos++;
            last = next;
            if (!cut || visibility_passes_cut(vis, last))
                pick = last;
        }
        if (rc > 1 || rc < 0)
            return rc;
        if (pick && visibility_shows(vis, pick)) {
            *out = pick;
            return 1;
        }
        if (ps->group_gap) {
            *out = last;
            ps->group_gap--;
            return 1;
        }
    }
}

RECORD_STEP int next_visible(pattern_scan *ps, const fact_ids **out, err *e) {
    return next_visible_cut(ps, out, ps->x->vis.as_of != AS_OF_NONE, e);
}

/* The first row of the current relation the seek allows. */
static uint32_t derived_first(pattern_scan *ps) {
    ps->view = ps->delta ? ps->x->delta : derived_view(ps->x->derived, (size_t)ps->rel);
    switch (ps->seek) {
    case SEEK_ENTITY: return relation_seek_entity(&ps->view, &ps->entity);
    case SEEK_VALUE: return relation_seek_value(&ps->view, &ps->v);
    case SEEK_ALL: break;
    }
    return ps->view.lo < ps->view.hi ? ps->view.lo : RELATION_END;
}

static uint32_t derived_after(const pattern_scan *ps, uint32_t row) {
    switch (ps->seek) {
    case SEEK_ENTITY: return relation_next_entity(&ps->view, row);
    case SEEK_VALUE: return relation_next_value(&ps->view, row, &ps->v);
    case SEEK_ALL: break;
    }
    return row + 1 < ps->view.hi ? row + 1 : RELATION_END;
}

/* The next derived fact of the pattern: 1, 0 at the end, or API-013. */
static int derived_next(pattern_scan *ps, value out[3], fact *rec, err *e) {
    const derived_facts *d = ps->x->derived;
    for (;;) {
        if (meter_tick(ps->x->m, 1, e) != 0)
            return e->code;
        while (ps->row == RELATION_END) {
            if (ps->rel >= ps->rel_end)
                return 0;
            if (ps->rel_end - ps->rel > 1 && d->hidden[ps->rel]) {
                ps->rel++; /* magic facts are never visible (language.md D13) */
                continue;
            }
            ps->row = derived_first(ps);
            if (ps->row == RELATION_END)
                ps->rel++;
        }
        size_t cur = (size_t)ps->rel;
        relation_row r = relation_get(&ps->view, ps->row);
        ps->row = derived_after(ps, ps->row);
        if (ps->row == RELATION_END)
            ps->rel++;
        out[0] = value_ref(r.entity);
        out[1] = d->attrs[cur];
        out[2] = r.v;
        if (!matches_constants(ps->it, out, ps->derived_check))
            continue;
        if (rec)
            *rec = (fact){.entity = r.entity, .attribute = out[1], .v = r.v, .asserted = true};
        return 1;
    }
}

/* What pseudo-attributes read of a stored record. */
static fact record_times(const fact_ids *ids) {
    return (fact){.tx_count = ids->tx_count,
                  .tx_id = ids->tx_id,
                  .valid_from = ids->valid_from,
                  .valid_to = ids->valid_to,
                  .asserted = ids->asserted};
}

/* The next visible stored record that matches the constants: 1 with its
 * values in out[3] and *ids its record, 0 at the end of the stored
 * records, or an error. */
RECORD_STEP int stored_next(pattern_scan *ps, value out[3], const fact_ids **ids, err *e) {
    int rc = 0;
    while (ps->sc && (rc = next_visible(ps, ids, e)) == 1) {
        rc = store_reader_values(ps->x->r, *ids, out, e);
        if (rc != 0)
            return rc;
        if (ps->it->kind == PK_PSEUDO) {
            fact times = record_times(*ids);
            out[2] = pseudo_value(ps->x, ps->it->pseudo, &times);
        }
        if (!ps->stored_check || matches_constants(ps->it, out, ps->stored_check))
            return 1;
    }
    return rc;
}

int pattern_scan_next_ids(pattern_scan *ps, const fact_ids **ids, err *e) {
    if (ps->stored_check || ps->it->kind == PK_PSEUDO || ps->rel < ps->rel_end)
        return err_set(e, ERR(INT, 0), "internal: records to check read as identifiers");
    return ps->sc ? next_visible(ps, ids, e) : 0;
}

int pattern_scan_next_ids_run(pattern_scan *ps, const fact_ids **ids, size_t *n, err *e) {
    int rc = pattern_scan_next_ids(ps, ids, e);
    *n = 1;
    /* The rest of a stretch shown visible, when *ids is the record before it. */
    if (rc == 1 && ps->pos < ps->shown_end && *ids + 1 == &ps->ids[ps->pos]) {
        *n += ps->shown_end - ps->pos;
        ps->pos = ps->shown_end;
    }
    return rc;
}

int pattern_scan_sought(const pattern_scan *ps, fact_ids *ids, bool *alone) {
    if (!ps->sc)
        return 0;
    if (ps->has_alt || ps->len > 0)
        return -1;
    return ps->ids_end ? 0 : store_scan_sought(ps->sc, ids, alone);
}

int pattern_scan_next(pattern_scan *ps, value out[3], fact *rec, err *e) {
    const fact_ids *ids;
    int rc = stored_next(ps, out, &ids, e);
    if (rc == 1 && rec)
        *rec = record_times(ids);
    return rc == 0 ? derived_next(ps, out, rec, e) : rc;
}

/* Does a visible record continue the run of `first` (where_ctx.collapsed)? */
static bool same_run(const where_ctx *x, const fact_ids *first, const fact_ids *ids) {
    unsigned read = x->collapse_read;
    if (((read & 1u) && ids->e != first->e) || ((read & 2u) && ids->a != first->a))
        return false;
    if (read & 4u)
        return memcmp(ids->v, first->v, FACT_V_SIZE) == 0;
    return !(x->collapse_null & 4u) || (ids->v[0] == VT_NULL) == (first->v[0] == VT_NULL);
}

/* Lets the scan count the leaves whose records all continue one run
 * (store_scan_skip_leaves) under the query's view, when it is one a
 * summary can decide: a cut by counter or time, one valid-time point. */
static void skip_leaves(pattern_scan *ps) {
    fact_view v;
    ps->skip_asked = true;
    if (!query_view(&ps->x->vis, &v))
        return;
    unsigned read = ps->x->collapse_read;
    bool null_read = (ps->x->collapse_null & 4u) && !(read & 4u);
    store_scan_skip_leaves(ps->sc, &v, read, null_read);
}

/* pattern_scan_fill's stored records as runs (where_ctx.collapsed): a
 * visible record that continues the run of the batch's last row adds to
 * its weight, read and decoded no further; only a run's first record
 * becomes a row. The batch's last row may start another run. */
static int stored_runs(pattern_scan *ps, batch *out, size_t max, const frame *row,
                       const pattern_binding *b, size_t step, err *e) {
    uint64_t *weight = ps->x->weight;
    uint64_t n = 0; /* the records of the last row's run, kept out of
                       `weight`, which may alias the scan's counters */
    const fact_ids *ids;
    value vals[3];
    int rc = 1;
    if (!ps->skip_asked)
        skip_leaves(ps);
    while (out->count < max && (rc = next_visible(ps, &ids, e)) == 1) {
        uint64_t w = 1;
        if (__builtin_expect(ps->group_gap != 0, 0)) {
            w += ps->group_gap;
            ps->group_gap = 0;
        }
        if (n && same_run(ps->x, &ps->run, ids)) {
            n += w;
            continue;
        }
        int vrc = store_reader_values(ps->x->r, ids, vals, e);
        if (vrc != 0)
            return vrc;
        if (n)
            weight[out->count - 1] = n;
        ps->run = *ids;
        pattern_bind(out, row, b, step, vals, NULL);
        n = w;
    }
    if (n)
        weight[out->count - 1] = n;
    return rc;
}

/* Whether the stored records may be read as runs: a row's values are
 * all its records have to pass (no constant to match on each, no
 * repeated or joined variable, no pseudo pattern reading its record). */
static bool runs_allowed(const pattern_scan *ps, const pattern_binding *b) {
    return ps->x->collapsed == ps->it && ps->sc && !ps->stored_check && !b->repeat && !b->agree &&
           !b->record;
}

/* Whether each visible stored record becomes a row as it is: nothing to
 * match on it, no value to compare with the row or within the pattern,
 * no record kept for a pseudo pattern. */
static bool plain_binding(const pattern_scan *ps, const pattern_binding *b) {
    return ps->sc && !ps->stored_check && ps->it->kind != PK_PSEUDO && !b->repeat && !b->agree &&
           !b->record;
}

/* A stored record into the slots of a row under a plain binding: the
 * positions the row binds (slot_of[pos] >= 0) decoded straight into its
 * slots, none into values copied there afterwards, and the others not at
 * all. Each position is written by its own constant case (an entity or
 * attribute cannot fail). 0 or an error. */
RECORD_STEP int bind_plain(store_reader *r, const value_source *src, value *slot,
                           const int slot_of[3], const fact_ids *ids, err *e) {
    if (slot_of[0] >= 0)
        store_reader_value_at(r, src, ids, 0, &slot[slot_of[0]], e);
    if (slot_of[1] >= 0)
        store_reader_value_at(r, src, ids, 1, &slot[slot_of[1]], e);
    return slot_of[2] >= 0 ? store_reader_value_at(r, src, ids, 2, &slot[slot_of[2]], e) : 0;
}

/* The records ps->ids[ps->pos..end) (marked visible) as rows of `out`
 * (bind_plain), pushed at once: what the loop reads of `out` and `ps`
 * stays in locals, which the stores of the values' fields (a bool among
 * them) would otherwise make it read again for each row. 0 or an error
 * (the rows before the failing one kept). */
static int plain_stretch(pattern_scan *ps, size_t end, batch *out, const frame *row,
                         const int slot_of[3], uint64_t *weight, err *e) {
    store_reader *r = ps->x->r;
    const value_source *src = store_reader_source(r);
    size_t first = out->count, n = end - ps->pos, width = out->p->slot_count, k = 0;
    const fact_ids *ids = &ps->ids[ps->pos];
    value *slot = batch_push_rows(out, row, n).slot;
    int vrc = 0, at[3] = {slot_of[0], slot_of[1], slot_of[2]}; /* not reread after each store */
    for (; k < n && (vrc = bind_plain(r, src, slot, at, &ids[k], e)) == 0; k++)
        slot += width;
    if (weight)
        for (size_t i = 0; i < k; i++)
            weight[first + i] = 1;
    out->count = first + k;
    ps->pos += k;
    return vrc;
}

/* The stored scan's next records marked visible, once nothing read ahead
 * is left, as rows of `out` written by the scan itself
 * (store_scan_fill_rows: no identifiers in between): 0 with *got of
 * them (0: the next record is not marked), or an error. */
static int shown_rows(pattern_scan *ps, batch *out, size_t max, const frame *row,
                      const int slot_of[3], uint64_t *weight, size_t *got, err *e) {
    size_t first = out->count, n = max - first, ahead = store_scan_shown_ahead(ps->sc);
    *got = 0;
    if (ahead < n)
        n = ahead;
    if (n == 0)
        return 0;
    run_rows rows = {batch_push_rows(out, row, n).slot,
                     out->p->slot_count,
                     {slot_of[0], slot_of[1], slot_of[2]},
                     store_reader_source(ps->x->r)};
    int rc = store_scan_fill_rows(ps->sc, &rows, n, got, e);
    out->count = first + *got;
    if (weight)
        for (size_t i = 0; i < *got; i++)
            weight[first + i] = 1;
    /* a scan may read long without a row */
    return rc == 0 && meter_tick(ps->x->m, *got, e) != 0 ? e->code : rc;
}

/* pattern_scan_fill's stored records under a plain binding (bind_plain):
 * a stretch of records marked visible at once, read ahead
 * (ps->shown_end) or written as rows by the stored scan (shown_rows),
 * the others one by one through next_visible_cut. */
static int stored_plain(pattern_scan *ps, batch *out, size_t max, const frame *row,
                        const pattern_binding *b, uint64_t *weight, err *e) {
    store_reader *r = ps->x->r;
    const value_source *src = store_reader_source(r);
    int slot_of[3] = {-1, -1, -1};
    for (unsigned i = 0; i < b->fill_count; i++)
        slot_of[b->fill_pos[i]] = b->fill_slot[i];
    const fact_ids *ids;
    int rc = 1, vrc;
    bool cut = ps->x->vis.as_of != AS_OF_NONE;
    while (out->count < max) {
        if (ps->pos < ps->shown_end) { /* each the last of its group, and visible */
            size_t end = ps->pos + (max - out->count);
            if ((vrc = plain_stretch(ps, end < ps->shown_end ? end : ps->shown_end, out, row,
                                     slot_of, weight, e)) != 0)
                return vrc;
            continue;
        }
        if (ps->pos == ps->len && ps->seeing && !ps->tail_gap) {
            size_t got;
            if ((vrc = shown_rows(ps, out, max, row, slot_of, weight, &got, e)) != 0)
                return vrc;
            if (got)
                continue;
        }
        rc = cut ? next_visible_cut(ps, &ids, true, e) : next_visible_cut(ps, &ids, false, e);
        if (rc != 1)
            break;
        frame f = batch_push(out, row);
        if ((vrc = bind_plain(r, src, f.slot, slot_of, ids, e)) != 0) {
            out->count--;
            return vrc;
        }
        if (weight)
            weight[out->count - 1] = 1;
    }
    return rc;
}

int pattern_scan_fill(pattern_scan *ps, batch *out, size_t max, const frame *row,
                      const pattern_binding *b, size_t step, err *e) {
    value vals[3];
    fact rec;
    const fact_ids *ids;
    int rc = 1;
    uint64_t *weight = ps->x->collapsed == ps->it ? ps->x->weight : NULL;
    if (runs_allowed(ps, b))
        rc = stored_runs(ps, out, max, row, b, step, e);
    else if (plain_binding(ps, b))
        rc = stored_plain(ps, out, max, row, b, weight, e);
    else
        while (out->count < max && (rc = stored_next(ps, vals, &ids, e)) == 1) {
            if (b->record)
                rec = record_times(ids);
            if (pattern_bind(out, row, b, step, vals, &rec) && weight)
                weight[out->count - 1] = 1;
        }
    if (rc != 0 || (ps->row == RELATION_END && ps->rel >= ps->rel_end))
        return rc; /* full, failed, or no derived facts to follow */
    while (out->count < max && (rc = derived_next(ps, vals, b->record ? &rec : NULL, e)) == 1)
        if (pattern_bind(out, row, b, step, vals, &rec) && weight)
            weight[out->count - 1] = 1;
    return rc;
}

void pattern_scan_close(pattern_scan *ps) {
    if (ps->sc)
        store_scan_close(ps->sc);
    ps->sc = NULL;
}

void pattern_scan_release(pattern_scan *ps) {
    pattern_scan_close(ps);
    free(ps->big);
    ps->big = NULL;
}

/* Does a slot of `s`'s variable other than `s` hold a value at `step`? */
static bool shares_variable(const plan_conj *p, int s, size_t step) {
    const plan_var *v = &p->vars[p->slots[s].var];
    for (size_t i = 0; i < v->slot_count; i++)
        if (v->slots[i] != s && plan_slot_set(p, v->slots[i], step))
            return true;
    return false;
}

void pattern_binding_init(pattern_binding *b, const plan_conj *p, size_t index, size_t step) {
    const plan_item *it = &p->items[index];
    *b = (pattern_binding){.index = index};
    for (int pos = 0; pos < 3; pos++) {
        int s = it->slot[pos];
        if (s < 0)
            continue;
        b->fill_slot[b->fill_count] = s;
        b->fill_pos[b->fill_count++] = pos;
        for (int prev = 0; prev < pos; prev++)
            if (it->slot[prev] == s)
                b->repeat |= 1u << pos;
        if (shares_variable(p, s, step))
            b->agree |= 1u << pos;
    }
    for (size_t i = 0; i < p->item_count; i++)
        if (p->items[i].kind == PK_PSEUDO && p->items[i].correlate == (int)index)
            b->record = true;
}

/* Whether position `pos` equals (E1) the earlier one sharing its slot. */
static bool repeats_agree(const plan_item *it, int pos, const value vals[3]) {
    for (int prev = 0; prev < pos; prev++)
        if (it->slot[prev] == it->slot[pos])
            return value_equal_strict(&vals[prev], &vals[pos]);
    return true;
}

bool pattern_agrees(const frame *f, const pattern_binding *b, size_t step, const value vals[3]) {
    const plan_item *it = &f->p->items[b->index];
    for (int pos = 0; (b->repeat | b->agree) >> pos; pos++) {
        unsigned bit = 1u << pos;
        if ((b->repeat & bit) && !repeats_agree(it, pos, vals))
            return false;
        if ((b->agree & bit) && !frame_agrees(f, it->slot[pos], &vals[pos], step))
            return false;
    }
    return true;
}
