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
 * does not grow. */
#include <stdlib.h>

#include "exec/derived.h"
#include "exec/pattern_join.h"

typedef struct op_hashjoin {
    op base;
    pattern_join join;
    bool have_row;
    int key_pos;
    hj_table own;      /* when the table is not kept across rounds */
    const hj_table *t; /* the table probed: `own` or a kept one */
    uint64_t run;      /* the where_ctx.body_run `t` was read for */
    size_t cursor;     /* next entry to try for the current row */
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

static int hj_open(op *o, err *e) {
    op_hashjoin *h = (op_hashjoin *)o;
    h->have_row = false;
    child_rows_open(&h->join.in);
    return op_open(h->join.in.child, e);
}

/* The table is read when the child gives its first row (a rule body's
 * first round often gives none: the relation it recurses on is empty),
 * once, and again in a new rule body evaluation (where_ctx.body_run). */
static int ready_table(op_hashjoin *h, err *e) {
    if (h->t && h->run == h->join.x->body_run)
        return 0;
    int rc = hj_build(h, e);
    if (rc == 0)
        h->run = h->join.x->body_run;
    return rc;
}

/* Moves to the child's next row and the first entry its key finds; 1 a
 * row, 0 the child's end. */
static int next_row(op_hashjoin *h, size_t max, err *e) {
    int rc = child_rows_next(&h->join.in, max, e);
    if (rc == 1 && (rc = ready_table(h, e)) == 0)
        rc = 1;
    if (rc != 1)
        return rc;
    const pattern_join *pj = &h->join;
    const plan_item *it = &pj->p->items[pj->item];
    const value *key = h->key_pos >= 0
                           ? frame_any_value(&pj->in.row, it->pc.var[h->key_pos], pj->step)
                           : NULL;
    h->cursor = hj_table_first(h->t, key);
    return 1;
}

static int hj_next(op *o, size_t max, batch **out, err *e) {
    op_hashjoin *h = (op_hashjoin *)o;
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
        h->have_row = pattern_join_fill(&h->join, h->t, &h->cursor, max);
    }
    *out = &h->join.out;
    return h->join.out.count > 0;
}

static void hj_free(op *o) {
    op_hashjoin *h = (op_hashjoin *)o;
    hj_table_free(&h->own);
    pattern_join_free(&h->join);
    free(h);
}

static const op_vtable hj_vt = {hj_open, hj_next, hj_free};

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
    return &h->base;
}
