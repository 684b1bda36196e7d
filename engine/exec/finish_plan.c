/* The :find plan: each spec resolved against the solution stream's
 * variables, functions looked up before any row is read (QRY-010, QRY-011),
 * the grouping key and the window inputs laid out in the work row. */
#include <string.h>

#include "base/array.h"
#include "exec/finish_internal.h"

void *finish_alloc(finish_plan *p, size_t size, const char *op, err *e, int *rc) {
    size_t taken = arena_size(size); /* with the arena's alignment */
    *rc = taken ? meter_charge(p->m, taken, op, e) : err_set(e, ERR(INT, 0), "out of memory");
    if (*rc)
        return NULL;
    void *mem = arena_alloc(&p->mem, size);
    if (!mem) {
        meter_release(p->m, taken);
        *rc = err_set(e, ERR(INT, 0), "out of memory");
        return NULL;
    }
    p->charged += taken;
    return mem;
}

int finish_copy_value(finish_plan *p, value *dst, const value *v, const char *op, err *e) {
    *dst = *v;
    if ((v->type != VT_STRING && v->type != VT_KEYWORD) || v->stored || v->as.str.len == 0)
        return 0;
    int rc = 0;
    char *text = finish_alloc(p, v->as.str.len, op, e, &rc);
    if (!text)
        return rc;
    memcpy(text, v->as.str.ptr, v->as.str.len);
    dst->as.str.ptr = text;
    return 0;
}

int finish_own_values(finish_plan *p, value *v, size_t n, unsigned types, const char *op, err *e) {
    size_t done;
    const unsigned texts = 1u << VT_STRING | 1u << VT_KEYWORD;
    int rc = value_resolve_all(v, n, &done, e);
    for (size_t i = 0; i < n && !rc && (types & texts); i++)
        if ((texts >> v[i].type) & 1u)
            rc = finish_copy_value(p, &v[i], &v[i], op, e);
    return rc;
}

/* The meter's version of arena_grow_array: the outgrown array stays in
 * the arena (and charged), and doubling bounds that waste by the live
 * size. */
void *finish_grow(finish_plan *p, void *items, size_t count, size_t need, size_t *cap, size_t size,
                  size_t first, const char *op, err *e, int *rc) {
    *rc = 0;
    if (need <= *cap)
        return items;
    size_t n;
    void *grown = array_capacity(*cap, need, size, first, &n) ? finish_alloc(p, n * size, op, e, rc)
                                                              : NULL;
    if (!grown) {
        if (*rc == 0)
            *rc = err_set(e, ERR(INT, 0), "out of memory");
        return NULL;
    }
    if (count)
        memcpy(grown, items, count * size);
    *cap = n;
    return grown;
}

int finish_rows_reserve(finish_plan *p, finish_rows *r, size_t more, const char *op, err *e) {
    int rc = 0;
    value **rows = more <= SIZE_MAX - r->count ? finish_grow(p, r->rows, r->count, r->count + more,
                                                             &r->cap, sizeof *rows, 64, op, e, &rc)
                                               : NULL;
    if (!rows)
        return rc ? rc : err_set(e, ERR(INT, 0), "out of memory");
    r->rows = rows;
    return 0;
}

int finish_rows_push(finish_plan *p, finish_rows *r, value *row, const char *op, err *e) {
    int rc = finish_rows_reserve(p, r, 1, op, e);
    if (!rc)
        r->rows[r->count++] = row;
    return rc;
}

int finish_pull(finish_plan *p, solution_block *b, err *e) {
    return p->in->next(p->in, b, e);
}

static long stream_var(const finish_plan *p, const term *t) {
    if (t->kind != TERM_VAR)
        return -1;
    return solution_var_index(p->in, t->name, t->name_len);
}

static bool same_name(const term *a, const term *b) {
    return a->kind == TERM_VAR && b->kind == TERM_VAR && a->name_len == b->name_len &&
           memcmp(a->name, b->name, a->name_len) == 0;
}

/* A registered host aggregate of the name (language.md §10.5, §11.2), or NULL. */
static int lookup_host(finish_plan *p, finish_col *c, err *e) {
    return host_scope_find(p->host, HOST_AGGREGATE, c->spec->fn, c->spec->fn_len, &c->host, e);
}

static int lookup_function(finish_plan *p, finish_col *c, err *e) {
    const ast_find *f = c->spec;
    int rc = 0;
    if (f->kind == FIND_AGGREGATE && !agg_lookup(f->fn, f->fn_len, &c->agg)) {
        c->agg = AGG_HOST;
        rc = lookup_host(p, c, e);
        if (!rc && !c->host)
            rc = err_set(e, ERR(QRY, 10), "unknown aggregate function: '%.*s'", (int)f->fn_len,
                         f->fn);
        return rc;
    }
    if (f->kind != FIND_WINDOW || window_lookup(f->fn, f->fn_len, &c->win))
        return 0;
    c->win = WINDOW_HOST;
    rc = lookup_host(p, c, e);
    if (!rc && !c->host)
        return err_set(e, ERR(QRY, 11),
                       "unknown window function '%.*s' — register it with register_aggregate() "
                       "before querying",
                       (int)f->fn_len, f->fn);
    return rc;
}

/* After aggregation a window sees the grouping variables and the aggregate
 * values (language.md §11.2): a variable names the first plain column that outputs
 * it, else the first aggregate over it; anything else reads as Null. */
static long group_row_slot(const finish_plan *p, const term *t) {
    for (int pass = 0; pass < 2; pass++)
        for (size_t c = 0; c < p->col_count; c++) {
            const ast_find *f = p->cols[c].spec;
            find_kind want = pass == 0 ? FIND_VAR : FIND_AGGREGATE;
            if (f->kind == want && same_name(&f->var, t))
                return (long)c;
        }
    return -1;
}

/* Without aggregates a window reads any solution variable: each input gets
 * an extra work-row slot filled from the stream. */
static long extra_slot(finish_plan *p, const term *t) {
    long var = stream_var(p, t);
    if (var < 0)
        return -1;
    p->extra_vars[p->extra_count] = var;
    return (long)(p->col_count + p->extra_count++);
}

static long window_input(finish_plan *p, bool present, const term *t) {
    if (!present)
        return -1;
    return p->agg_count ? group_row_slot(p, t) : extra_slot(p, t);
}

static void place_windows(finish_plan *p) {
    for (size_t c = 0; c < p->col_count; c++) {
        finish_col *col = &p->cols[c];
        const ast_find *f = col->spec;
        if (f->kind != FIND_WINDOW)
            continue;
        col->partition = window_input(p, f->has_partition, &f->partition_by);
        col->order = window_input(p, true, &f->order_by);
        col->arg = window_input(p, f->has_var && window_takes_arg(col->win), &f->var);
    }
    p->width = p->col_count + p->extra_count;
    for (size_t c = 0; c < p->col_count; c++)
        p->work_vars[c] = p->cols[c].spec->kind == FIND_VAR ? p->cols[c].var : -1;
}

/* The grouping key: plain :find variables in column order, then :with
 * (language.md §10.1; :with is ignored when there are windows, language.md §11.3). */
static void place_group_key(finish_plan *p) {
    const ast_query *q = p->q;
    for (size_t c = 0; c < p->col_count; c++)
        if (p->cols[c].spec->kind == FIND_VAR)
            p->group_vars[p->group_count++] = p->cols[c].var;
    if (p->win_count == 0)
        for (size_t w = 0; w < q->with_count; w++)
            p->group_vars[p->group_count++] = stream_var(p, &q->with[w]);
}

static int resolve_columns(finish_plan *p, err *e) {
    for (size_t c = 0; c < p->col_count; c++) {
        finish_col *col = &p->cols[c];
        col->spec = &p->q->specs[c];
        col->var = col->spec->kind != FIND_WINDOW || col->spec->has_var
                       ? stream_var(p, &col->spec->var)
                       : -1;
        col->partition = col->order = col->arg = -1;
        int rc = lookup_function(p, col, e);
        if (rc)
            return rc;
        p->plain_count += col->spec->kind == FIND_VAR;
        if (col->spec->kind == FIND_AGGREGATE)
            p->agg_vars[p->agg_count++] = col->var;
        p->win_count += col->spec->kind == FIND_WINDOW;
    }
    return 0;
}

/* Whether column `c` outputs an :order-by key's variable. */
static bool order_key(const finish_plan *p, const ast_find *c) {
    for (size_t k = 0; k < p->q->order_count; k++)
        if (same_name(&c->var, &p->q->order_by[k].var))
            return true;
    return false;
}

/* The stream variables whose bytes the :find side reads: output columns,
 * aggregate arguments and window inputs. Count reads only that its
 * argument is bound, and grouping keys are compared (stored values
 * by id) and decoded once per group, when its row is built (finish_group);
 * a top-k (:order-by with :limit) decodes the columns that are not keys
 * only for the rows its keys do not drop, a plain projection without
 * :order-by decodes each row's columns in its own row buffer as it hands
 * the row out, and windows without aggregates decode their work rows a
 * block at a time as they take them (finish.c), so that the stream need
 * not copy its rows to decode them: the stream may hand the others out
 * as stored values. */
static void allow_stored(finish_plan *p) {
    bool *ok = p->in->stored_ok;
    if (!ok)
        return;
    bool plain = p->agg_count == 0 && p->win_count == 0;
    bool top_k = plain && p->q->order_count > 0 && p->q->has_limit;
    bool decoded_later = (plain && p->q->order_count == 0) ||
                         (p->agg_count == 0 && p->win_count > 0);
    for (size_t v = 0; v < p->in->var_count; v++)
        ok[v] = true;
    for (size_t c = 0; c < p->col_count; c++) {
        const finish_col *col = &p->cols[c];
        bool counted = col->spec->kind == FIND_AGGREGATE && col->agg == AGG_COUNT;
        bool grouped = col->spec->kind == FIND_VAR && p->agg_count > 0;
        bool kept_later = (top_k && !order_key(p, col->spec)) || decoded_later;
        if (col->var >= 0 && !counted && !grouped && !kept_later)
            ok[col->var] = false;
    }
}

/* Aggregation takes a row standing for several solutions (agg_step_n),
 * of which count's argument, when nothing else reads it, need only say
 * whether it is Null. */
static void allow_weights(finish_plan *p) {
    bool *presence = p->in->presence_only;
    if (!presence || p->agg_count == 0)
        return;
    p->in->weights_ok = true;
    p->in->any_order = true;
    for (size_t v = 0; v < p->in->var_count; v++)
        presence[v] = true;
    for (size_t c = 0; c < p->col_count; c++) {
        const finish_col *col = &p->cols[c];
        bool aggregate = col->spec->kind == FIND_AGGREGATE;
        if (col->var >= 0 && !(aggregate && col->agg == AGG_COUNT))
            presence[col->var] = false;
        if (col->spec->kind == FIND_WINDOW ||
            (aggregate && col->agg != AGG_COUNT && col->agg != AGG_COUNT_DISTINCT &&
             col->agg != AGG_COLLECT_SET))
            p->in->any_order = false;
    }
    for (size_t g = 0; g < p->group_count; g++)
        if (p->group_vars[g] >= 0)
            presence[p->group_vars[g]] = false;
    for (size_t i = 0; i < p->extra_count; i++)
        presence[p->extra_vars[i]] = false;
}

int finish_plan_init(finish_plan *p, const ast_query *q, solution_stream *in, meter *m,
                     host_scope *host, err *e) {
    memset(p, 0, sizeof *p);
    arena_init(&p->mem);
    p->q = q;
    p->in = in;
    p->m = m;
    p->host = host;
    p->col_count = q->spec_count;
    size_t n = q->spec_count + q->with_count + 1;
    p->cols = arena_calloc(&p->mem, n, sizeof *p->cols);
    p->group_vars = arena_calloc(&p->mem, 2 * n, sizeof *p->group_vars);
    p->work_vars = arena_calloc(&p->mem, p->col_count + 3 * n, sizeof *p->work_vars);
    if (!p->cols || !p->group_vars || !p->work_vars)
        return err_set(e, ERR(INT, 0), "out of memory");
    p->extra_vars = p->work_vars + p->col_count;
    p->agg_vars = p->group_vars + n;
    int rc = resolve_columns(p, e);
    if (rc)
        return rc;
    place_group_key(p);
    place_windows(p);
    allow_stored(p);
    allow_weights(p);
    return 0;
}

void finish_plan_free(finish_plan *p) {
    arena_free(&p->mem);
    meter_release(p->m, p->charged);
    p->charged = 0;
}
