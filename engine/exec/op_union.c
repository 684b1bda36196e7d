/* or / or-join (language.md §8.6, D1, D9). For each row of the child,
 * every branch runs with the row's values for the variables it takes from
 * outside; the branches' solutions, projected onto the new variables the
 * `or` introduces, are de-duplicated (the union is a set over the
 * user-visible variables, keyed by record identity E3) and each distinct
 * tuple extends the row, agreeing (E2) with any other clause that holds the
 * same variable. An `or-join` (or an `or` without new variables) only
 * asks whether some branch has a solution: one row out per surviving row;
 * then a one-pattern branch may be read once as a set of entities when
 * enough rows come to pay for it (exec/sub_set.h).
 * The de-duplication set holds one row's union and is charged to the
 * query's meter. */
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/hash.h"
#include "exec/op.h"
#include "exec/sub_set.h"

#define UNION_OP_NAME "or union"

typedef struct op_union {
    op base;
    where_ctx *x;
    const plan_conj *p;
    size_t item, step, width;
    child_rows in; /* its row is the one whose union is held */
    batch out;
    op_sub *branches;
    sub_set *sets; /* per branch, used when width is 0 */
    size_t branch_count;
    value *tuples; /* count * width */
    size_t count, cap, emitted;
    size_t *table, table_cap; /* open addressing: tuple index + 1 */
} op_union;

static uint64_t tuple_hash(const value *t, size_t width) {
    uint64_t h = HASH_FNV_BASIS;
    for (size_t i = 0; i < width; i++)
        h = hash_combine(h, value_hash_identity(&t[i]));
    return h;
}

static bool tuple_equal(const value *a, const value *b, size_t width) {
    for (size_t i = 0; i < width; i++)
        if (!value_identical(&a[i], &b[i]))
            return false;
    return true;
}

static void union_clear(op_union *u) {
    meter_release(u->x->m, u->count * u->width * sizeof(value));
    u->count = u->emitted = 0;
    if (u->table)
        memset(u->table, 0, u->table_cap * sizeof *u->table);
}

static int union_rehash(op_union *u, err *e) {
    size_t cap = u->table_cap ? u->table_cap * 2 : 64;
    size_t *t = calloc(cap, sizeof *t);
    if (!t)
        return err_set(e, ERR(INT, 0), "out of memory");
    free(u->table);
    u->table = t;
    u->table_cap = cap;
    for (size_t i = 0; i < u->count; i++) {
        size_t k = (size_t)tuple_hash(&u->tuples[i * u->width], u->width) & (cap - 1);
        while (t[k])
            k = (k + 1) & (cap - 1);
        t[k] = i + 1;
    }
    return 0;
}

static int union_store(op_union *u, const value *tuple, err *e) {
    int rc = meter_charge(u->x->m, u->width * sizeof(value), UNION_OP_NAME, e);
    if (rc != 0)
        return rc;
    if (!array_reserve(&u->tuples, &u->cap, u->count + 1, u->width * sizeof(value), 16)) {
        meter_release(u->x->m, u->width * sizeof(value));
        return err_set(e, ERR(INT, 0), "out of memory");
    }
    memcpy(&u->tuples[u->count * u->width], tuple, u->width * sizeof *tuple);
    u->count++;
    if (u->count * 2 > u->table_cap)
        return union_rehash(u, e);
    size_t mask = u->table_cap - 1;
    size_t k = (size_t)tuple_hash(tuple, u->width) & mask;
    while (u->table[k])
        k = (k + 1) & mask;
    u->table[k] = u->count;
    return 0;
}

/* Adds a tuple unless the set holds it already. */
static int union_add(op_union *u, const value *tuple, err *e) {
    if (u->table_cap) {
        size_t mask = u->table_cap - 1;
        for (size_t k = (size_t)tuple_hash(tuple, u->width) & mask; u->table[k]; k = (k + 1) & mask)
            if (tuple_equal(&u->tuples[(u->table[k] - 1) * u->width], tuple, u->width))
                return 0;
    }
    return union_store(u, tuple, e);
}

/* Adds the projected solutions in one batch of a branch. */
static int union_add_batch(op_union *u, const plan_sub *ps, const batch *b, value *t, err *e) {
    size_t end = ps->conj->item_count + 1;
    for (size_t i = 0; i < b->count; i++) {
        frame row = batch_row(b, i);
        for (size_t j = 0; j < u->width; j++) {
            const value *v = frame_var_value(&row, ps->out_var[j], end);
            t[j] = v ? *v : value_null();
        }
        int rc = union_add(u, t, e);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Runs branch k for the current row, adding its projected solutions; with
 * no new variables, stops at the first solution. */
static int union_branch(op_union *u, size_t k, bool *found, err *e) {
    const plan_sub *ps = &u->p->items[u->item].subs[k];
    op_sub *s = &u->branches[k];
    bool in_set = false;
    int rc = u->width ? 0
                      : sub_set_test(&u->sets[k], u->x, ps, &u->in.row, u->step, NULL, &in_set, e);
    if (rc != 0) {
        *found = *found || in_set;
        return rc == 1 ? 0 : rc;
    }
    rc = op_sub_open(s, ps, &u->in.row, u->step, e);
    value tuple[16];
    value *t = u->width <= 16 ? tuple : malloc(u->width * sizeof *t);
    if (!t)
        return err_set(e, ERR(INT, 0), "out of memory");
    batch *b;
    while (rc == 0 && (rc = op_next(s->root, u->width ? BATCH_ROWS : 1, &b, e)) == 1) {
        *found = true;
        rc = u->width ? union_add_batch(u, ps, b, t, e) : 0;
        if (u->width == 0)
            break;
    }
    if (t != tuple)
        free(t);
    return rc;
}

/* Collects the union for the child's next row; 1 when it has rows. */
static int union_fill(op_union *u, size_t max, err *e) {
    int rc;
    while ((rc = child_rows_next(&u->in, max, e)) == 1) {
        union_clear(u);
        bool found = false;
        for (size_t k = 0; k < u->branch_count && rc == 1 && !(found && u->width == 0); k++)
            rc = union_branch(u, k, &found, e) == 0 ? 1 : e->code;
        if (rc != 1)
            return rc;
        if (found)
            return 1;
    }
    return rc;
}

/* Appends the row extended with `tuple` when they agree. */
static void union_extend(op_union *u, const value *tuple) {
    const plan_item *it = &u->p->items[u->item];
    for (size_t j = 0; j < u->width; j++)
        if (!frame_agrees(&u->in.row, it->outs[j], &tuple[j], u->step))
            return;
    frame f = batch_push(&u->out, &u->in.row);
    for (size_t j = 0; j < u->width; j++)
        f.slot[it->outs[j]] = tuple[j];
}

static int union_open(op *base, err *e) {
    op_union *u = (op_union *)base;
    union_clear(u);
    u->emitted = SIZE_MAX;
    child_rows_open(&u->in);
    return op_open(u->in.child, e);
}

static int union_next(op *base, size_t max, batch **out, err *e) {
    op_union *u = (op_union *)base;
    u->out.count = 0;
    while (u->out.count < max) {
        if (u->emitted == SIZE_MAX) {
            int rc = union_fill(u, max, e);
            if (rc == 0)
                break;
            if (rc != 1)
                return rc;
            u->emitted = 0;
            if (u->width == 0) {
                batch_push(&u->out, &u->in.row);
                u->emitted = SIZE_MAX;
                continue;
            }
        }
        while (u->emitted < u->count && u->out.count < max)
            union_extend(u, &u->tuples[u->emitted++ * u->width]);
        if (u->emitted == u->count)
            u->emitted = SIZE_MAX;
    }
    *out = &u->out;
    return u->out.count > 0;
}

static void union_free(op *base) {
    op_union *u = (op_union *)base;
    union_clear(u);
    for (size_t k = 0; k < u->branch_count; k++) {
        op_sub_free(&u->branches[k]);
        sub_set_free(&u->sets[k], u->x->m);
    }
    free(u->branches);
    free(u->sets);
    free(u->tuples);
    free(u->table);
    batch_free(&u->out);
    op_free(u->in.child);
    free(u);
}

static const op_vtable union_vt = {union_open, union_next, union_free, NULL};

op *op_union_new(where_ctx *x, const plan_conj *p, size_t item, op *child, err *e) {
    const plan_item *it = &p->items[item];
    op_union *u = calloc(1, sizeof *u);
    op_sub *b = calloc(it->sub_count + 1, sizeof *b);
    sub_set *sets = calloc(it->sub_count + 1, sizeof *sets);
    if (!u || !b || !sets) {
        free(u);
        free(b);
        free(sets);
        err_set(e, ERR(INT, 0), "out of memory");
        return NULL;
    }
    *u = (op_union){.base = {&union_vt},
                    .x = x,
                    .p = p,
                    .item = item,
                    .step = p->step_of[item],
                    .width = it->out_count,
                    .branches = b,
                    .sets = sets,
                    .emitted = SIZE_MAX};
    if (batch_init(&u->out, p, BATCH_ROWS, u->step, x->m, e) != 0) {
        union_free(&u->base);
        return NULL;
    }
    for (size_t k = 0; k < it->sub_count; k++, u->branch_count++) {
        sub_set_init(&sets[k], x, &it->subs[k], NULL, p, u->step);
        if (op_sub_init(x, &b[k], it->subs[k].conj, e) != 0) {
            union_free(&u->base);
            return NULL;
        }
    }
    u->in.child = child;
    return &u->base;
}
