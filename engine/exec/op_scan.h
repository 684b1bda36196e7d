/* Reading the records of one pattern item (language.md §7.4, §8.3.2): the seek the
 * known positions allow, visibility, constant matching (E4), and binding a
 * matched record into a row. The join operators read records only
 * through here. In a query that uses rules, the derived facts of the
 * pattern's attribute (every derived fact, for a variable attribute)
 * follow the stored records (language.md §9.2 item 2); they carry no temporal
 * metadata (item 5: their record has zero times and counters). */
#ifndef MG_EXEC_OP_SCAN_H
#define MG_EXEC_OP_SCAN_H

#include "exec/op.h"

/* Where a scan stands in the derived relations (exec/derived.h), which
 * it reads after the stored records. */
typedef enum derived_seek { SEEK_ALL, SEEK_ENTITY, SEEK_VALUE } derived_seek;

/* The most stored records a scan decodes at once, and the fewest. */
#define SCAN_IDS_MAX 64
#define SCAN_IDS_MIN 4

/* A stretch [lo, hi) of V fields (store_scan_value_range). */
typedef struct value_range {
    uint8_t lo[FACT_V_SIZE], hi[FACT_V_SIZE];
} value_range;

typedef struct pattern_scan {
    where_ctx *x;
    const value_range *range; /* NULL: the seek the known positions allow */
    const plan_item *it;
    store_scan *sc;
    bool has_alt;           /* a second seek follows the first (keyword values) */
    unsigned check;         /* bit per position a record must be matched on */
    unsigned stored_check;  /* the same less the positions the seek fixed */
    unsigned derived_check; /* the same for derived facts */
    store_bound alt;
    long rel, rel_end;  /* relations still to read: [rel, rel_end) */
    bool delta;         /* the delta invocation: reads x->delta only */
    relation_view view; /* of relation `rel` */
    uint32_t row;       /* next row of `view`, RELATION_END when done */
    derived_seek seek;
    uuid128 entity; /* SEEK_ENTITY */
    value v;        /* SEEK_VALUE */
    /* The stored records read ahead (store_scan_fill_ids): ids[pos..len)
     * not judged yet. A scan's first reads are small (a point lookup or a
     * :limit needs few records: `few`), then each twice the last, up to
     * SCAN_IDS_MAX (in `big`). */
    fact_ids *ids;
    size_t pos, len, want;
    size_t shown_end; /* ids[pos..shown_end) are visible (store_scan_filled_shown) */
    bool seeing;      /* the stored scan may mark them (store_scan_see_leaves) */
    bool ids_end;     /* the stored records are all read */
    /* Visible groups ids[len - 1] stands for besides its own (a leaf
     * counted by its summary, store_scan_take_gap): until judged. */
    uint64_t tail_gap;
    uint64_t group_gap; /* next_visible's: the gap the group handed out took in */
    bool skip_asked;    /* stored_runs has let the scan count leaves */
    /* The stored scan is store_scan_open's for a bound fixing the
     * positions `fixed` fixes: pattern_scan_reopen seeks it again. */
    bool reseek;
    store_fixed fixed;
    /* The attribute's bound when the pattern names it by a constant:
     * looked up once an open, the same for every reseek (one snapshot). */
    const value *attr_known; /* the constant it was looked up for; NULL: none */
    int attr_rc;
    bool attr_has;
    uint64_t attr_id;
    /* Not cleared on open: */
    fact_ids *big;    /* SCAN_IDS_MAX records once a scan has read more than
                         `few`, kept for the next opens; NULL: none yet */
    fact_ids held[2]; /* a group's last and pick records across a read ahead */
    fact_ids run;     /* the first record of the batch's last row (stored_runs) */
    fact_ids few[SCAN_IDS_MIN];
} pattern_scan;

/* Before the first open: nothing read ahead yet. */
static inline void pattern_scan_init(pattern_scan *ps) {
    ps->sc = NULL;
    ps->big = NULL;
}
/* Opens the records of `it` given the values known for its positions
 * (NULL: unknown). 1 opened, 0 nothing can match, or an error. A scan
 * may be opened again after pattern_scan_close. */
int pattern_scan_open(pattern_scan *ps, where_ctx *x, const plan_item *it, const value *known[3],
                      err *e);
/* pattern_scan_open for a scan that may still be open from the last
 * open of `it`: when the known values fix the same positions as then, its
 * stored scan is sought again, keeping its cursor and what it has set up
 * (a not body probed once per outer row: exec/sub_probe.c). */
int pattern_scan_reopen(pattern_scan *ps, where_ctx *x, const plan_item *it, const value *known[3],
                        err *e);
/* pattern_scan_open for the records of a pattern whose attribute alone
 * is known (a constant) and whose V field lies in `range` (kept by the
 * caller until the scan closes): an AVET range read. */
int pattern_scan_open_range(pattern_scan *ps, where_ctx *x, const plan_item *it,
                            const value *known[3], const value_range *range, err *e);
/* The next visible stored record as identifiers only (*ids valid until
 * the next call): 1, 0 at the end, or an error (INT-000 when the scan
 * has constants to check or derived facts: pattern_scan_next). */
int pattern_scan_next_ids(pattern_scan *ps, const fact_ids **ids, err *e);
/* The same for a stretch of records at once: 1 with ids[0..*n) visible
 * (*n >= 1; more than one when the leaves' summaries showed a read-ahead
 * visible as a whole), 0 at the end, or an error. Valid until the next
 * call. */
int pattern_scan_next_ids_run(pattern_scan *ps, const fact_ids **ids, size_t *n, err *e);
/* The first stored record of a scan just opened or sought again, as its
 * seek found it, before anything is read (visible or not: what
 * pattern_scan_next_ids would read first or pass over): 1 with *ids and
 * *alone whether it is known to be the scan's only one, 0 when the scan
 * has no stored record, -1 when that is not known without reading. */
int pattern_scan_sought(const pattern_scan *ps, fact_ids *ids, bool *alone);
/* 1 with the next visible matching record, 0 at the end, or an error.
 * out[3]: its position values, all but numbers, booleans and Null as
 * stored values (value.h) when the record is stored; *rec (NULL: not wanted): its times and flags,
 * which pseudo-attributes read (the positions are in out[3] only). */
int pattern_scan_next(pattern_scan *ps, value out[3], fact *rec, err *e);
void pattern_scan_close(pattern_scan *ps);
/* Closes it and frees its read-ahead buffer: after the last open. */
void pattern_scan_release(pattern_scan *ps);

/* The known values of item `it` at `step`: constants, else a filled slot
 * of the position's variable. */
void pattern_known(const frame *f, const plan_item *it, size_t step, const value *known[3]);
/* What binding a record into item `index` at `step` must check and keep,
 * fixed by the plan (a bit per position). */
typedef struct pattern_binding {
    size_t index;
    unsigned fill_count; /* positions that fill a slot: fill_pos[i] into fill_slot[i] */
    int fill_slot[3], fill_pos[3];
    unsigned repeat; /* the slot of an earlier position: E1 within the pattern */
    unsigned agree;  /* another slot of the variable is filled: frame_agrees */
    bool record;     /* a pseudo pattern reads the record (language.md D16) */
} pattern_binding;

void pattern_binding_init(pattern_binding *b, const plan_conj *p, size_t index, size_t step);
/* Whether a record's values agree with the row (E1 inside the pattern,
 * frame_agrees across clauses). */
bool pattern_agrees(const frame *f, const pattern_binding *b, size_t step, const value vals[3]);

/* Appends `row` bound to a matched record to `out` when the record's
 * values agree with the row (always inlined: every record a join reads
 * comes through here, in the join's or the scan's tight loop). */
static inline __attribute__((always_inline)) bool pattern_bind(batch *out, const frame *row,
                                                               const pattern_binding *b,
                                                               size_t step, const value vals[3],
                                                               const fact *rec) {
    if ((b->repeat | b->agree) && !pattern_agrees(row, b, step, vals))
        return false;
    frame f = batch_push(out, row);
    for (unsigned i = 0; i < b->fill_count; i++)
        value_copy_fields(&f.slot[b->fill_slot[i]], &vals[b->fill_pos[i]]);
    if (b->record)
        f.record[b->index] = *rec;
    return true;
}

/* Appends `row` bound to each next record of the scan (pattern_bind) to
 * `out` until it holds `max` rows: one tight loop where a join would call
 * pattern_scan_next per record. 1 when `out` is full (records may
 * remain), 0 at the end of the records, or an error. */
int pattern_scan_fill(pattern_scan *ps, batch *out, size_t max, const frame *row,
                      const pattern_binding *b, size_t step, err *e);

/* The value a pseudo-attribute reads from a record (language.md §8.9). */
value pseudo_value(const where_ctx *x, pseudo_kind k, const fact *rec);

#endif
