/* finish_query: the :find side of a query (language.md §8.2, §8.12, §8.15, §10, §11).
 *
 *   plain :find, no :order-by
 *                    stream → project → decode → the cursor, one row per
 *                    finish_next (:offset/:limit count rows as they stream
 *                    and close the input once the limit is reached)
 *   plain :find with :order-by
 *                    stream → project → sort or top-k → result
 *   aggregates and/or windows
 *                    stream → work rows (groups, or one per solution) →
 *                    windows → [:order-by sort] → :offset/:limit → result
 *
 * The last two are computed whole when the cursor opens (their input is
 * closed then); the cursor hands out the rows where they were computed
 * (work rows, held rows, a top-k's), in place: the result set holds rows
 * only for a streaming cursor read whole (finish_detach, finish_query).
 *
 * Every row held on the way is charged to the meter: group tables and
 * keys ("aggregate"), window rows and buffers ("window"), sort buffers and
 * top-k rows ("sort") and the result set ("result"). */
#include "exec/finish.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "exec/finish_internal.h"
#include "exec/sort.h"

/* ---- column headers (language.md §8.2) ---------------------------------------- */

static int header(const ast_find *f, buf *out) {
    out->len = 0;
    if (f->kind == FIND_VAR) {
        buf_append(out, f->var.name, f->var.name_len);
    } else {
        buf_putc(out, '(');
        buf_append(out, f->fn, f->fn_len);
        if (f->has_var) {
            buf_putc(out, ' ');
            buf_append(out, f->var.name, f->var.name_len);
        }
        buf_puts(out, f->kind == FIND_WINDOW ? " :over ...)" : ")");
    }
    return out->oom ? -1 : 0;
}

static int make_result(const ast_query *q, result_set **out, err *e) {
    result_set *r = result_new(q->spec_count);
    buf name;
    buf_init(&name);
    int rc = r ? 0 : -1;
    for (size_t c = 0; !rc && c < q->spec_count; c++) {
        rc = header(&q->specs[c], &name);
        if (!rc)
            rc = result_set_column(r, c, name.data, name.len);
    }
    buf_free(&name);
    if (rc) {
        result_free(r);
        return err_set(e, ERR(INT, 0), "out of memory");
    }
    *out = r;
    return 0;
}

/* ---- the result set, charged as "result" -------------------------------- */

static size_t value_bytes(const value *v) {
    size_t bytes = sizeof *v;
    if (v->type == VT_STRING || v->type == VT_KEYWORD)
        bytes += v->as.str.len;
    for (size_t i = 0; v->type == VT_LIST && i < v->as.list.count; i++)
        bytes += value_bytes(&v->as.list.items[i]);
    return bytes;
}

static size_t row_bytes(const finish_plan *p, const value *row) {
    size_t bytes = 0;
    for (size_t c = 0; c < p->col_count; c++)
        bytes += value_bytes(&row[c]);
    return bytes;
}

/* Appends a row, charged. Kept charged: the result outlives the query's
 * other buffers, and the meter belongs to this query only. */
static int append(finish_plan *p, result_set *r, const value *row, err *e) {
    int rc = meter_charge(p->m, row_bytes(p, row), "result", e);
    if (!rc && result_append_row(r, row) != 0)
        rc = err_set(e, ERR(INT, 0), "out of memory");
    return rc;
}

/* ---- :order-by, :offset, :limit ------------------------------------------ */

typedef struct finish_order {
    sort_key *keys;
    sort_spec spec;
    size_t offset, limit;
    bool has_limit;
} finish_order;

static size_t to_size(int64_t n) {
    return n < 0 ? 0 : (uint64_t)n > SIZE_MAX ? SIZE_MAX : (size_t)n;
}

/* Keys are plain :find variables (checked by the parser); each names the
 * first column that outputs it. */
static int order_init(finish_plan *p, finish_order *o, err *e) {
    const ast_query *q = p->q;
    int rc = 0;
    memset(o, 0, sizeof *o);
    o->keys = finish_alloc(p, (q->order_count + 1) * sizeof *o->keys, "sort", e, &rc);
    if (!o->keys)
        return rc;
    for (size_t k = 0; k < q->order_count; k++) {
        const term *key = &q->order_by[k].var;
        size_t c = 0;
        while (c + 1 < p->col_count &&
               !(p->cols[c].spec->kind == FIND_VAR &&
                 p->cols[c].spec->var.name_len == key->name_len &&
                 memcmp(p->cols[c].spec->var.name, key->name, key->name_len) == 0))
            c++;
        o->keys[k] = (sort_key){c, q->order_by[k].desc};
    }
    o->spec = (sort_spec){o->keys, q->order_count, p->col_count};
    o->offset = q->has_offset ? to_size(q->offset) : 0;
    o->has_limit = q->has_limit;
    o->limit = q->has_limit ? to_size(q->limit) : 0;
    return 0;
}

/* The rows a materialised cursor hands out, in place: rows[start, start
 * + count) of a sorted or unordered sequence, :offset and :limit applied. */
typedef struct finish_slice {
    const value *const *rows;
    size_t count;
} finish_slice;

static finish_slice slice_of(const finish_order *o, const value *const *rows, size_t n) {
    size_t start;
    size_t count = sort_limit_slice(n, o->offset, o->has_limit, o->limit, &start);
    return (finish_slice){count ? rows + start : NULL, count};
}

/* Sorts the held rows by :order-by (if any) and slices them. */
static int output_rows(finish_plan *p, finish_order *o, finish_rows *rows, finish_slice *out,
                       err *e) {
    int rc = o->spec.key_count
                 ? sort_rows((const value **)rows->rows, rows->count, &o->spec, p->m, e)
                 : 0;
    if (!rc)
        *out = slice_of(o, (const value *const *)rows->rows, rows->count);
    return rc;
}

/* ---- plain projection (language.md §8.12.1, D1) ----------------------------------- */

static void project(const finish_plan *p, const value *solution, value *row) {
    for (size_t c = 0; c < p->col_count; c++)
        row[c] = solution[p->cols[c].var];
}

/* Decodes the stored values of a projected row. */
static int resolve_row(const finish_plan *p, value *row, err *e) {
    int rc = 0;
    for (size_t c = 0; !rc && c < p->col_count; c++)
        rc = value_resolve(&row[c], e);
    return rc;
}

/* The solutions come in the first key's order (an index read them so). */
static bool key_ordered_input(const finish_plan *p, const finish_order *o) {
    const solution_stream *in = p->in;
    return in->ordered && p->cols[o->keys[0].column].var == (long)in->order_var &&
           in->order_desc == o->keys[0].descending;
}

/* Offers each solution of `b`; the columns that are not keys come stored
 * (allow_stored) and are decoded only for a row the keys do not drop.
 * With key-ordered input, sets *closed once no later row can enter (k
 * rows held with one key; else at the first row past the last held), and
 * stops. */
static int push_top_k(finish_plan *p, sort_topk *t, const solution_block *b, value *row,
                      bool ordered, bool *closed, err *e) {
    int rc = 0;
    for (size_t i = 0; !rc && i < b->count; i++) {
        project(p, solution_row(b, i), row);
        if (ordered && (*closed = sort_topk_closed(t, row)))
            break;
        if (sort_topk_passes_over(t, row))
            continue;
        rc = resolve_row(p, row, e);
        if (!rc)
            rc = sort_topk_push(t, row, e);
        if (ordered && (*closed = sort_topk_full_in_order(t)))
            break;
    }
    return rc;
}

/* :order-by with :limit: a bounded top-k of offset + limit rows in `t`
 * (freed by the caller), `out` its slice. */
static int stream_top_k(finish_plan *p, const finish_order *o, value *row, sort_topk *t,
                        finish_slice *out, err *e) {
    size_t k = sort_topk_bound(o->offset, true, o->limit);
    sort_topk_init(t, &o->spec, k, p->m);
    bool ordered = key_ordered_input(p, o);
    bool closed = ordered && sort_topk_full_in_order(t); /* :limit 0 */
    /* With one key the k-th row closes; with more, the row after it. */
    if (ordered && k < SIZE_MAX - 1)
        p->in->rows_wanted = o->spec.key_count == 1 ? k : k + 1;
    solution_block b;
    int rc = 0;
    while (!closed && (rc = finish_pull(p, &b, e)) == 1)
        if (finish_has_plain_values(p, b.bound) &&
            (rc = push_top_k(p, t, &b, row, ordered && p->in->ordered, &closed, e)) != 0)
            break;
    if (rc == 0) {
        const value **kept;
        size_t n = sort_topk_finish(t, &kept, e);
        if (n == 0 && t->count > 0)
            return e->code;
        *out = slice_of(o, kept, n);
    }
    return rc;
}

/* Projects each solution of `b` and holds a copy of the row ("sort"). */
static int hold_block(finish_plan *p, const solution_block *b, value *row, finish_rows *rows,
                      err *e) {
    int rc = 0;
    for (size_t i = 0; !rc && i < b->count; i++) {
        project(p, solution_row(b, i), row);
        value *kept = finish_alloc(p, p->col_count * sizeof *kept, "sort", e, &rc);
        for (size_t c = 0; kept && !rc && c < p->col_count; c++)
            rc = finish_copy_value(p, &kept[c], &row[c], "sort", e);
        if (!rc)
            rc = finish_rows_push(p, rows, kept, "sort", e);
    }
    return rc;
}

/* :order-by without :limit: every row is held ("sort"), then sorted. */
static int stream_sorted(finish_plan *p, finish_order *o, value *row, finish_slice *out, err *e) {
    finish_rows rows = {0};
    solution_block b;
    int rc;
    while ((rc = finish_pull(p, &b, e)) == 1)
        if (finish_has_plain_values(p, b.bound) && (rc = hold_block(p, &b, row, &rows, e)) != 0)
            return rc;
    return rc ? rc : output_rows(p, o, &rows, out, e);
}

/* Sorted plain rows (:order-by): held (in `t` for a top-k), then sliced. */
static int finish_ordered(finish_plan *p, finish_order *o, sort_topk *t, finish_slice *out,
                          err *e) {
    int rc = 0;
    value *row = finish_alloc(p, (p->col_count + 1) * sizeof *row, "sort", e, &rc);
    if (!row)
        return rc;
    return o->has_limit ? stream_top_k(p, o, row, t, out, e) : stream_sorted(p, o, row, out, e);
}

/* ---- windows without aggregates: one work row per solution ---------------- */

/* The output variables, Null in the window columns, then the window
 * inputs; stored values stay stored (collect_block decodes them). Returns
 * the mask of the types copied (1 << value_type). */
static unsigned window_row(const finish_plan *p, const value *solution, value *row) {
    unsigned types = 0;
    for (size_t s = 0; s < p->width; s++) {
        long var = p->work_vars[s];
        if (var >= 0) {
            value_copy_fields(&row[s], &solution[var]);
            types |= 1u << row[s].type;
        } else {
            value_set_null(&row[s]); /* in place (value.h) */
        }
    }
    return types;
}

/* Appends a work row per solution of `b`, all taken (and charged) at once. */
static int collect_block(finish_plan *p, const solution_block *b, finish_rows *rows, err *e) {
    int rc = 0;
    value *row = b->count ? finish_alloc(p, b->count * p->width * sizeof *row, "window", e, &rc)
                          : NULL;
    if (row)
        rc = finish_rows_reserve(p, rows, b->count, "window", e);
    if (!row || rc)
        return rc;
    unsigned types = 0;
    for (size_t i = 0; i < b->count; i++) {
        types |= window_row(p, solution_row(b, i), row + i * p->width);
        rows->rows[rows->count + i] = row + i * p->width;
    }
    rows->count += b->count;
    return finish_own_values(p, row, b->count * p->width, types, "window", e);
}

static int collect_solutions(finish_plan *p, finish_rows *rows, err *e) {
    solution_block b;
    int rc;
    while ((rc = finish_pull(p, &b, e)) == 1)
        if (finish_has_plain_values(p, b.bound) && (rc = collect_block(p, &b, rows, e)) != 0)
            return rc;
    return rc;
}

static int finish_materialised(finish_plan *p, finish_order *o, finish_slice *out, err *e) {
    finish_rows rows = {0};
    int rc = order_init(p, o, e);
    if (!rc)
        rc = p->agg_count ? finish_group(p, &rows, e) : collect_solutions(p, &rows, e);
    if (!rc)
        rc = finish_windows(p, &rows, e);
    return rc ? rc : output_rows(p, o, &rows, out, e);
}

/* ---- the cursor ------------------------------------------------------------ */

struct finish_cursor {
    finish_plan p;
    result_set *rs; /* the headers; the rows of a detached stream */
    bool streaming; /* plain :find without :order-by */
    bool in_open;   /* p.in not closed yet */
    /* Inside finish_next_rows: the input's end or error closes it only at
     * the next call, for the rows already handed out borrow its texts
     * until then (finish.h). */
    bool defer_close;
    bool close_due;
    bool ended;
    size_t next_row;   /* not streaming: the next row to hand out */
    finish_slice held; /* materialised: the rows, in place */
    sort_topk top;     /* a top-k's rows */
    finish_order o;    /* :order-by, :offset / :limit */
    sort_limit lim;
    solution_block in; /* streaming: the block being handed out */
    size_t in_row;     /* its next row */
    bool in_order;     /* streaming: column c is the stream's variable c */
    value *row;        /* streaming: the projected row handed out */
};

static void close_input(finish_cursor *c) {
    if (c->in_open)
        c->p.in->close(c->p.in);
    c->in_open = false;
    c->close_due = false;
}

/* The input reached its end or failed. */
static void end_input(finish_cursor *c) {
    if (c->defer_close)
        c->close_due = c->in_open;
    else
        close_input(c);
}

/* A close deferred by the previous finish_next_rows call. */
static void close_if_due(finish_cursor *c) {
    if (c->close_due)
        close_input(c);
}

/* A plain :find variable no solution can bind (language.md §8.2): never a row. */
static bool never_bound(const finish_plan *p) {
    for (size_t c = 0; c < p->col_count; c++)
        if (p->cols[c].var < 0)
            return true;
    return false;
}

/* Whether the projected row is the first col_count variables of a
 * solution, in order (then a block laid out with as many values per row
 * holds the rows already projected: copy_run). */
static bool projects_in_order(const finish_plan *p) {
    for (size_t c = 0; c < p->col_count; c++)
        if (p->cols[c].var != (long)c)
            return false;
    return true;
}

/* Everything but plain unordered projections is computed here, whole. */
static int cursor_start(finish_cursor *c, err *e) {
    finish_plan *p = &c->p;
    if (p->agg_count || p->win_count)
        return finish_materialised(p, &c->o, &c->held, e);
    if (never_bound(p))
        return 0;
    int rc = order_init(p, &c->o, e);
    if (!rc && c->o.spec.key_count)
        return finish_ordered(p, &c->o, &c->top, &c->held, e);
    if (!rc)
        c->row = finish_alloc(p, (p->col_count + 1) * sizeof *c->row, "result", e, &rc);
    if (!rc) {
        c->streaming = true;
        c->in_order = projects_in_order(p);
        sort_limit_init(&c->lim, c->o.offset, c->o.has_limit, c->o.limit);
        if (c->o.has_limit)
            p->in->rows_wanted = c->o.limit > SIZE_MAX - c->o.offset ? 0 : c->o.offset + c->o.limit;
    }
    return rc;
}

int finish_open(const ast_query *q, solution_stream *in, meter *m, struct host_scope *host,
                finish_cursor **out, err *e) {
    *out = NULL;
    finish_cursor *c = malloc(sizeof *c);
    if (!c) {
        in->close(in);
        return err_set(e, ERR(INT, 0), "out of memory");
    }
    /* malloc and assign, not calloc: glibc's calloc skips its thread cache */
    *c = (finish_cursor){0};
    c->in_open = true;
    int rc = finish_plan_init(&c->p, q, in, m, host, e);
    if (!rc)
        rc = make_result(q, &c->rs, e);
    if (!rc)
        rc = cursor_start(c, e);
    if (!c->streaming)
        close_input(c);
    if (rc) {
        finish_close(c);
        return rc;
    }
    *out = c;
    return 0;
}

/* The next projected solution, into `dst` (col_count values), its
 * columns stored (allow_stored) when `stored`, else decoded; at the
 * limit or the end the input closes, so upstream operators stop reading
 * (and let go of their snapshot). */
static inline __attribute__((always_inline)) int stream_next_as(finish_cursor *c, value *dst,
                                                                bool stored, err *e) {
    finish_plan *p = &c->p;
    int rc = 0;
    while (!sort_limit_done(&c->lim)) {
        if (c->in_row == c->in.count) {
            if ((rc = finish_pull(p, &c->in, e)) != 1)
                break;
            /* a block that leaves a plain variable unbound yields no row */
            c->in_row = finish_has_plain_values(p, c->in.bound) ? 0 : c->in.count;
            continue;
        }
        const value *solution = solution_row(&c->in, c->in_row++);
        if (sort_limit_next(&c->lim) != SORT_EMIT)
            continue;
        project(p, solution, dst);
        /* the columns come stored (allow_stored): decoded here, in place */
        if (!stored && (rc = resolve_row(p, dst, e)) != 0) {
            end_input(c);
            return rc;
        }
        return 1;
    }
    end_input(c);
    return sort_limit_done(&c->lim) ? 0 : rc;
}

static inline __attribute__((always_inline)) int stream_next_into(finish_cursor *c, value *dst,
                                                                  err *e) {
    return stream_next_as(c, dst, false, e);
}

static inline __attribute__((always_inline)) int stream_next(finish_cursor *c, const value **row,
                                                             err *e) {
    int rc = stream_next_into(c, c->row, e);
    if (rc == 1)
        *row = c->row;
    return rc;
}

/* The next row of a cursor that does not stream: held in place, or in
 * the result set after a detach (a cursor has one or the other). */
static bool next_computed(finish_cursor *c, const value **row) {
    size_t i = c->next_row;
    if (i < c->held.count)
        *row = c->held.rows[i];
    else if (i < result_row_count(c->rs))
        *row = result_row(c->rs, i);
    else
        return false;
    c->next_row++;
    return true;
}

int finish_next(finish_cursor *c, const value **row, err *e) {
    close_if_due(c);
    if (c->ended)
        return 0;
    int rc = c->streaming ? stream_next(c, row, e) : next_computed(c, row);
    c->ended = rc != 1;
    return rc;
}

/* Up to `room` rows of the current block copied to `dst` at once, when
 * its rows are laid out as the projected rows (in_order, no more values
 * per row than columns): 0 when not. The offset is behind: the block's
 * first row came through stream_next_as, which skips it. */
static size_t copy_run(finish_cursor *c, value *dst, size_t room) {
    size_t width = c->p.col_count, left = c->in.count - c->in_row;
    if (!c->in_order || !left || c->in.stride != width)
        return 0;
    assert(sort_limit_past_offset(&c->lim));
    size_t n = sort_limit_take(&c->lim, left < room ? left : room);
    if (n && width)
        memcpy(dst, solution_row(&c->in, c->in_row), n * width * sizeof *dst);
    c->in_row += n;
    return n;
}

/* Up to `room` of the computed rows held in place (c->held) copied to
 * `dst` at once, value by value (no call per row): 0 when none is left
 * there. Whole structs: the rows were written before the first was
 * handed out, so no load waits on a store (value_copy_fields). */
static size_t copy_held(finish_cursor *c, value *dst, size_t room) {
    size_t width = c->p.col_count, next = c->next_row;
    size_t n = next < c->held.count ? c->held.count - next : 0;
    n = n < room ? n : room;
    for (size_t i = 0; i < n; i++)
        for (size_t col = 0; col < width; col++)
            dst[i * width + col] = c->held.rows[next + i][col];
    c->next_row += n;
    return n;
}

/* The streamed rows out[0..n) decoded in one pass (value_resolve_all):
 * the rows before the first that fails, which ends the answer. */
static size_t resolve_rows(finish_cursor *c, value *out, size_t n, int *rc, err *e) {
    size_t width = c->p.col_count, done;
    int got = value_resolve_all(out, n * width, &done, e);
    if (got == 0)
        return n;
    end_input(c);
    c->ended = true;
    *rc = got;
    return done / width;
}

size_t finish_next_rows(finish_cursor *c, value *out, size_t max, int *rc, err *e) {
    size_t n = 0, width = c->p.col_count;
    *rc = 0;
    close_if_due(c);
    c->defer_close = true;
    for (; n < max && !c->ended; n++) {
        value *dst = out + n * width;
        int got;
        size_t run;
        run = c->streaming ? copy_run(c, dst, max - n) : copy_held(c, dst, max - n);
        if (run) {
            n += run - 1;
            continue;
        }
        if (c->streaming) {
            got = stream_next_as(c, dst, true, e); /* decoded below, all at once */
        } else {
            const value *row;
            got = next_computed(c, &row);
            if (got && width)
                memcpy(dst, row, width * sizeof *dst);
        }
        if (got != 1) {
            c->ended = true;
            *rc = got;
            break;
        }
    }
    if (c->streaming && n)
        n = resolve_rows(c, out, n, rc, e);
    c->defer_close = false;
    return n;
}

int finish_detach(finish_cursor *c, bool keep_current, err *e) {
    if (c->ended)
        close_if_due(c); /* its last rows were taken under the caller's lock */
    if (!c->streaming || c->ended)
        return 0;
    int rc = keep_current ? append(&c->p, c->rs, c->row, e) : 0;
    const value *row = NULL;
    while (!rc && (rc = stream_next(c, &row, e)) == 1)
        rc = append(&c->p, c->rs, row, e);
    close_input(c);
    c->streaming = false;
    c->ended = rc != 0;
    return rc;
}

bool finish_streaming(const finish_cursor *c) {
    return c->in_open;
}

const result_set *finish_columns(const finish_cursor *c) {
    return c->rs;
}

void finish_close(finish_cursor *c) {
    if (!c)
        return;
    close_input(c);
    sort_topk_free(&c->top);
    finish_plan_free(&c->p);
    result_free(c->rs);
    free(c);
}

/* ---- a streaming cursor run again (exec/finish.h) -------------------------- */

/* Nothing of a run is left but the plan, the headers and the row buffer
 * (a detach would have moved rows into the result set). */
bool finish_park(finish_cursor *c) {
    close_input(c);
    return c->streaming && result_row_count(c->rs) == 0;
}

void finish_rerun(finish_cursor *c) {
    c->p.host = NULL; /* the scope it was opened with has ended; a kept cursor calls none */
    c->in_open = true;
    c->ended = false;
    c->in = (solution_block){0};
    c->in_row = 0;
    sort_limit_init(&c->lim, c->o.offset, c->o.has_limit, c->o.limit);
    c->p.in->rows_wanted = 0;
    if (c->o.has_limit)
        c->p.in->rows_wanted = c->o.limit > SIZE_MAX - c->o.offset ? 0 : c->o.offset + c->o.limit;
}

/* The whole answer as one result set, charged as "result". */
int finish_query(const ast_query *q, solution_stream *in, meter *m, struct host_scope *host,
                 result_set **out, err *e) {
    finish_cursor *c;
    *out = NULL;
    int rc = finish_open(q, in, m, host, &c, e);
    const value *row;
    while (!rc && (rc = finish_next(c, &row, e)) == 1)
        rc = append(&c->p, c->rs, row, e);
    if (!rc) {
        *out = c->rs;
        c->rs = NULL;
    }
    finish_close(c);
    return rc;
}
