/* Hash join: for a pattern whose entity and value positions are neither
 * constant nor bound when it runs, seeking per child row would re-read the
 * same records for every row, so the pattern is read once into a table
 * (exec/hj_table.h) and probed per row. The key is the value or else the
 * attribute when its variable is bound (hashed under E2, the join
 * relation); otherwise every row pairs with every record (a cross product
 * of unrelated clauses). op_build.c chooses the hash join for a bound
 * value when seeking cannot serve it: a value known only as an entity's
 * Ref (stored keywords naming it match too), and in semi-naive delta
 * rounds, where the value seek of a keyword would scan the attribute once
 * per delta row. During rule evaluation the table of a pattern that reads
 * stored records only is kept across rounds (where_ctx.tables), and that
 * of an invocation reading a whole derived relation while the relation
 * does not grow.
 *
 * The other way round: a join opened once (the query's own :where,
 * where_ctx.once) whose rows before it are few beside the pattern's
 * records keeps the rows instead (exec/hj_rows.h) and streams the records
 * through them, a probe per record: no table of the large side. The rows
 * are read first, up to half the records the pattern's constants select
 * (plan/estimate.h); past that, the table is read as above and the rows
 * read so far are joined first. Rows then come in the records' order, so
 * not under a value-ordered first step (where_ctx.ordered). */
#include <stdlib.h>

#include "exec/derived.h"
#include "exec/hj_rows.h"
#include "exec/pattern_join.h"
#include "plan/estimate.h"

/* Records a stream reads ahead of the one it joins: their keys' entities
 * are asked for together (value_prefetch_entity), so the waits for the
 * memory behind them overlap instead of adding up. */
#define STREAM_AHEAD 32

typedef struct streamed {
    value vals[3]; /* the record's positions */
    fact rec;      /* its times, when a pseudo pattern reads them */
} streamed;

typedef struct op_hashjoin {
    op base;
    pattern_join join;
    bool have_row;
    int key_pos;
    hj_table own;      /* when the table is not kept across rounds */
    const hj_table *t; /* the table probed: `own` or a kept one */
    uint64_t run;      /* the where_ctx.body_run `t` was read for */
    size_t cursor;     /* next entry to try for the current row */
    bool opened;       /* opened before: a stream serves the first open only */
    /* The rows kept (streaming, or read before the table: replayed
     * first from `replay`). */
    hj_rows rows;
    size_t replay;
    bool streaming, scanning;
    pattern_scan ps; /* the records streamed */
    streamed ahead[STREAM_AHEAD];
    size_t ahead_count, ahead_pos; /* records read ahead; the next to join */
    const streamed *cur;           /* the record being joined */
    uint64_t hash;                 /* the E2 hash of its key */
    size_t row;                    /* the next kept row to try for it */
} op_hashjoin;

/* Every record of the pattern (its constant attribute only narrows). */
static int read_pattern(op_hashjoin *h, hj_table *t, err *e) {
    const plan_item *it = &h->join.p->items[h->join.item];
    const value *known[3] = {NULL, NULL, NULL};
    if (it->pc.pattern->a.kind == TERM_CONST)
        known[1] = &it->pc.pattern->a.constant;
    return hj_table_read(t, h->join.x, it, known, e);
}

static bool any_value(const term *t) {
    return t->kind == TERM_VAR || t->kind == TERM_WILDCARD;
}

/* A pattern on a stored attribute that no rule derives reads the same
 * records in every round of a rule evaluation: all the attribute's
 * records (the table reads no other constant, and a hash join's entity
 * and value are never constants), the same in every body that reads it. */
bool op_hashjoin_kept(const where_ctx *x, const plan_item *it) {
    const ast_pattern *p = it->pc.pattern;
    return x->tables && it->kind == PK_PATTERN && p->a.kind == TERM_CONST &&
           p->a.constant.type == VT_KEYWORD && any_value(&p->e) && any_value(&p->v) &&
           (!x->derived || derived_find(x->derived, &p->a.constant, false) < 0);
}

/* An invocation reads the same facts in every round until its relation
 * grows (never during a round: the round reads a fixed window of it),
 * unless it reads the round's delta. 1 with the relation's window as
 * `version`, else 0. */
static bool derived_window(const where_ctx *x, const plan_item *it, uint64_t *version) {
    const ast_pattern *p = it->pc.pattern;
    if (!x->tables || !x->derived || it->kind != PK_INVOKE || it->clause == x->delta_clause ||
        p->a.kind != TERM_CONST || p->a.constant.type != VT_KEYWORD || !any_value(&p->e) ||
        !any_value(&p->v))
        return false;
    long r = derived_find(x->derived, &p->a.constant, true);
    if (r < 0)
        return false;
    relation_view w = derived_view(x->derived, (size_t)r);
    *version = (uint64_t)w.lo << 32 | w.hi;
    return true;
}

/* A kept table when there is one; else the pattern is read for this
 * operator, and kept if it may be. */
static int hj_build(op_hashjoin *h, err *e) {
    const plan_item *it = &h->join.p->items[h->join.item];
    const value *attr = &it->pc.pattern->a.constant;
    hj_key dkey = {.attr = attr, .key_pos = h->key_pos, .derived = true};
    h->t = NULL;
    if (derived_window(h->join.x, it, &dkey.version)) {
        const value *known[3] = {NULL, attr, NULL};
        dkey.attr_hash = hj_key_attr_hash(attr);
        int rc = hj_cache_load(h->join.x->tables, h->join.x, it, &dkey, known, &h->t, e);
        if (rc != 0 || h->t)
            return rc;
    }
    bool keep = op_hashjoin_kept(h->join.x, it);
    hj_key key = {.attr = attr, .key_pos = h->key_pos, .attr_hash = hj_key_attr_hash(attr)};
    if (keep && (h->t = hj_cache_find(h->join.x->tables, &key)))
        return 0;
    hj_table_free(&h->own);
    h->own.records = keep || h->join.bind.record; /* a kept table may serve other joins */
    int rc = read_pattern(h, &h->own, e);
    if (rc != 0)
        return rc;
    const hj_table *kept = keep ? hj_cache_put(h->join.x->tables, &key, &h->own) : NULL;
    if (kept)
        hj_table_init(&h->own, h->key_pos, h->join.x->m); /* moved into the cache */
    h->t = kept ? kept : &h->own;
    return 0;
}

/* The join key of a row (key_pos >= 0): a filled slot of its variable. */
static const value *row_key(const op_hashjoin *h, const frame *row) {
    const pattern_join *pj = &h->join;
    const value *key = frame_any_value(row, pj->p->items[pj->item].pc.var[h->key_pos], pj->step);
    MG_ASSERT(key != NULL); /* key_pos is a position whose variable is set at the step */
    return key;
}

/* Can this open stream the records through the rows? Only a stored
 * pattern, joined by a key, in the conjunction opened once, whose table
 * is not one kept for rule evaluation. */
static bool may_stream(const op_hashjoin *h) {
    const pattern_join *pj = &h->join;
    const plan_item *it = &pj->p->items[pj->item];
    return !h->opened && h->key_pos >= 0 && it->kind == PK_PATTERN && pj->x->once == pj->p &&
           !pj->x->ordered && !op_hashjoin_kept(pj->x, it);
}

/* Reads the child's rows into h->rows while they number at most half the
 * pattern's records: 1 all read (stream them), 0 more remain (h->rows
 * holds the first ones), or an error. */
static int read_rows(op_hashjoin *h, err *e) {
    pattern_join *pj = &h->join;
    size_t records = plan_estimate_constants(pj->x->r, NULL, &pj->p->items[pj->item], SIZE_MAX);
    size_t most = records == SIZE_MAX ? 0 : records / 2;
    for (;;) {
        int rc = child_rows_next(&pj->in, BATCH_ROWS, e);
        if (rc == 0)
            return 1;
        if (rc != 1)
            return rc;
        rc = hj_rows_append(&h->rows, &pj->in.row, value_hash_entity(row_key(h, &pj->in.row)), e);
        if (rc != 0)
            return rc;
        if (h->rows.count > most)
            return 0;
    }
}

/* Starts streaming the pattern's records through the rows read. */
static int stream_open(op_hashjoin *h, err *e) {
    h->streaming = true;
    h->row = HJ_ROWS_END;
    h->ahead_count = h->ahead_pos = 0;
    if (h->rows.count == 0)
        return 0; /* no row: no record can join */
    int rc = hj_rows_index(&h->rows, e);
    if (rc != 0)
        return rc;
    const value *known[3] = {NULL, NULL, NULL};
    const plan_item *it = &h->join.p->items[h->join.item];
    if (it->pc.pattern->a.kind == TERM_CONST)
        known[1] = &it->pc.pattern->a.constant;
    rc = pattern_scan_open(&h->ps, h->join.x, it, known, e);
    h->scanning = rc == 1;
    return rc == 1 ? 0 : rc;
}

static void stream_close(op_hashjoin *h) {
    if (h->scanning)
        pattern_scan_close(&h->ps);
    h->scanning = h->streaming = false;
    hj_rows_free(&h->rows);
    h->replay = 0;
}

/* A first open that streams (may_stream) reads the rows first; the
 * table is read (ready_table) only when they are too many. */
static int hj_open(op *o, err *e) {
    op_hashjoin *h = (op_hashjoin *)o;
    bool stream = may_stream(h);
    h->opened = true;
    h->have_row = false;
    stream_close(h);
    child_rows_open(&h->join.in);
    int rc = op_open(h->join.in.child, e);
    if (rc != 0 || !stream)
        return rc;
    rc = read_rows(h, e);
    return rc == 1 ? stream_open(h, e) : rc;
}

/* The table is read when the first row comes (a rule body's first round
 * often gives none: the relation it recurses on is empty), once, and
 * again in a new rule body evaluation (where_ctx.body_run). */
static int ready_table(op_hashjoin *h, err *e) {
    if (h->t && h->run == h->join.x->body_run)
        return 0;
    int rc = hj_build(h, e);
    if (rc == 0)
        h->run = h->join.x->body_run;
    return rc;
}

/* Moves to the next row (the rows read before the table first, then the
 * child's) and the first entry its key finds; 1 a row, 0 the child's end. */
static int next_row(op_hashjoin *h, size_t max, err *e) {
    pattern_join *pj = &h->join;
    int rc = 1;
    if (h->replay < h->rows.count)
        pj->in.row = hj_rows_row(&h->rows, h->replay++);
    else
        rc = child_rows_next(&pj->in, max, e);
    if (rc == 1 && (rc = ready_table(h, e)) == 0)
        rc = 1;
    if (rc != 1)
        return rc;
    h->cursor = hj_table_first(h->t, h->key_pos >= 0 ? row_key(h, &pj->in.row) : NULL);
    return 1;
}

/* Reads up to STREAM_AHEAD records ahead, each key's entity asked for. */
static int stream_read_ahead(op_hashjoin *h, err *e) {
    h->ahead_count = h->ahead_pos = 0;
    while (h->scanning && h->ahead_count < STREAM_AHEAD) {
        streamed *s = &h->ahead[h->ahead_count];
        int rc = pattern_scan_next(&h->ps, s->vals, h->join.bind.record ? &s->rec : NULL, e);
        if (rc == 0) {
            pattern_scan_close(&h->ps);
            h->scanning = false;
        } else if (rc != 1) {
            return rc;
        } else {
            value_prefetch_entity(&s->vals[h->key_pos]);
            h->ahead_count++;
        }
    }
    return 0;
}

/* Moves to the next record and the first kept row its key finds: 1, 0
 * at the end of the records, or an error. */
static int stream_next_record(op_hashjoin *h, err *e) {
    if (h->ahead_pos == h->ahead_count) {
        int rc = stream_read_ahead(h, e);
        if (rc != 0)
            return rc;
        if (h->ahead_count == 0)
            return 0;
    }
    h->cur = &h->ahead[h->ahead_pos++];
    h->hash = value_hash_entity(&h->cur->vals[h->key_pos]);
    h->row = hj_rows_first(&h->rows, h->hash);
    return 1;
}

/* The next batch of a stream: each record read, bound to every kept row
 * whose key it agrees with. */
static int stream_next(op_hashjoin *h, size_t max, batch **out, err *e) {
    pattern_join *pj = &h->join;
    pj->out.count = 0;
    while (pj->out.count < max) {
        if (h->row == HJ_ROWS_END) {
            int rc = stream_next_record(h, e);
            if (rc == 0)
                break;
            if (rc != 1)
                return rc;
        }
        while (h->row != HJ_ROWS_END && pj->out.count < max) {
            size_t i = h->row;
            h->row = h->rows.next[i];
            frame row = hj_rows_row(&h->rows, i);
            if (h->rows.hash[i] == h->hash)
                pattern_bind(&pj->out, &row, &pj->bind, pj->step, h->cur->vals, &h->cur->rec);
        }
    }
    *out = &pj->out;
    return pj->out.count > 0;
}

static int hj_next(op *o, size_t max, batch **out, err *e) {
    op_hashjoin *h = (op_hashjoin *)o;
    if (h->streaming)
        return stream_next(h, max, out, e);
    h->join.out.count = 0;
    while (h->join.out.count < max) {
        if (!h->have_row) {
            int rc = next_row(h, max, e);
            if (rc == 0)
                break;
            if (rc != 1)
                return rc;
            h->have_row = true;
        }
        h->have_row = pattern_join_fill(&h->join, &h->join.bind, h->t, &h->cursor, max);
    }
    *out = &h->join.out;
    return h->join.out.count > 0;
}

static void hj_free(op *o) {
    op_hashjoin *h = (op_hashjoin *)o;
    stream_close(h);
    pattern_scan_release(&h->ps); /* the read-ahead block its opens kept */
    hj_table_free(&h->own);
    pattern_join_free(&h->join);
    free(h);
}

/* The table (its own, or a kept one's address: the cache empties after
 * the evaluation) is read again in the next evaluation anyway. */
static void hj_rest(op *o) {
    op_hashjoin *h = (op_hashjoin *)o;
    stream_close(h);
    hj_table_free(&h->own);
    h->t = NULL;
    op_rest(h->join.in.child);
}

static const op_vtable hj_vt = {hj_open, hj_next, hj_free, hj_rest};

op *op_hashjoin_new(where_ctx *x, const plan_conj *p, size_t item, op *child, err *e) {
    op_hashjoin *h = malloc(sizeof *h); /* set in full below */
    if (!h)
        return NULL;
    *h = (op_hashjoin){.base = {&hj_vt}, .key_pos = -1};
    if (pattern_join_init(&h->join, x, p, item, child, e) != 0) {
        free(h);
        return NULL;
    }
    const plan_item *it = &p->items[item];
    for (int pos = 2; pos >= 1 && h->key_pos < 0; pos--)
        if (it->pc.var[pos] >= 0 && plan_var_set(p, it->pc.var[pos], h->join.step))
            h->key_pos = pos;
    hj_table_init(&h->own, h->key_pos, x->m);
    hj_rows_init(&h->rows, p, h->join.out.record_width, x->m);
    return &h->base;
}
