/* :order-by sorting, bounded top-k and :offset/:limit (language.md §8.15, D3). */
#include "exec/sort.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/compare.h"
#include "model/value.h"

static bool is_key_column(const sort_spec *s, size_t column) {
    for (size_t k = 0; k < s->key_count; k++)
        if (s->keys[k].column == column)
            return true;
    return false;
}

/* The row order on the keys alone. */
static int compare_keys(const sort_spec *s, const value *a, const value *b) {
    for (size_t k = 0; k < s->key_count; k++) {
        size_t col = s->keys[k].column;
        int c = cmp_order_by(&a[col], &b[col]);
        if (c != 0)
            return s->keys[k].descending ? -c : c;
    }
    return 0;
}

int sort_compare_rows(const sort_spec *s, const value *a, const value *b) {
    int c = compare_keys(s, a, b);
    for (size_t col = 0; c == 0 && col < s->column_count; col++)
        if (!is_key_column(s, col))
            c = value_compare_total(&a[col], &b[col]);
    return c;
}

/* ---- full sort ------------------------------------------------------- */

/* Merges the two sorted runs; polls the query's cancel every
 * CANCEL_POLL_TICKS rows (a big sort is long work without a row out). On
 * API-013 `rows` is left as it was (tmp is not copied back). */
static int merge(const sort_spec *s, const value **rows, size_t mid, size_t n, const value **tmp,
                 meter *m, err *e) {
    size_t i = 0, j = mid, k = 0;
    while (i < mid && j < n) {
        tmp[k++] = sort_compare_rows(s, rows[j], rows[i]) < 0 ? rows[j++] : rows[i++];
        if ((k & (CANCEL_POLL_TICKS - 1)) == 0 && meter_tick(m, CANCEL_POLL_TICKS, e) != 0)
            return e->code;
    }
    while (i < mid)
        tmp[k++] = rows[i++];
    while (j < n)
        tmp[k++] = rows[j++];
    memcpy(rows, tmp, n * sizeof *rows);
    return 0;
}

static int merge_sort(const sort_spec *s, const value **rows, size_t n, const value **tmp, meter *m,
                      err *e) {
    if (n < 2)
        return 0;
    size_t mid = n / 2;
    int rc = merge_sort(s, rows, mid, tmp, m, e);
    if (rc == 0)
        rc = merge_sort(s, rows + mid, n - mid, tmp, m, e);
    return rc != 0 ? rc : merge(s, rows, mid, n, tmp, m, e);
}

int sort_rows(const value **rows, size_t n, const sort_spec *s, meter *m, err *e) {
    if (n < 2)
        return 0;
    if (n > SIZE_MAX / sizeof *rows)
        return err_set(e, ERR(INT, 0), "out of memory");
    size_t bytes = n * sizeof *rows;
    int rc = meter_charge(m, bytes, "sort", e);
    if (rc)
        return rc;
    const value **tmp = malloc(bytes);
    if (!tmp) {
        meter_release(m, bytes);
        return err_set(e, ERR(INT, 0), "out of memory");
    }
    rc = merge_sort(s, rows, n, tmp, m, e);
    free(tmp);
    meter_release(m, bytes);
    return rc;
}

/* ---- top-k ----------------------------------------------------------- */

void sort_topk_init(sort_topk *t, const sort_spec *s, size_t k, meter *m) {
    memset(t, 0, sizeof *t);
    t->spec = *s;
    t->k = k;
    t->meter = m;
}

size_t sort_topk_bound(size_t offset, bool has_limit, size_t limit) {
    if (!has_limit || limit > SIZE_MAX - offset)
        return SIZE_MAX;
    return offset + limit;
}

/* The total order of the heap: the row order, then push order. */
static int entry_compare(const sort_spec *s, const sort_topk_entry *a, const sort_topk_entry *b) {
    int c = sort_compare_rows(s, a->row, b->row);
    if (c != 0)
        return c;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

static void sift_up(sort_topk *t, size_t i) {
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (entry_compare(&t->spec, &t->heap[parent], &t->heap[i]) >= 0)
            return;
        sort_topk_entry swap = t->heap[parent];
        t->heap[parent] = t->heap[i];
        t->heap[i] = swap;
        i = parent;
    }
}

/* Restores the heap below `i` within heap[0..n). */
static void sift_down(sort_topk *t, size_t i, size_t n) {
    for (;;) {
        size_t big = i, l = 2 * i + 1, r = l + 1;
        if (l < n && entry_compare(&t->spec, &t->heap[l], &t->heap[big]) > 0)
            big = l;
        if (r < n && entry_compare(&t->spec, &t->heap[r], &t->heap[big]) > 0)
            big = r;
        if (big == i)
            return;
        sort_topk_entry swap = t->heap[big];
        t->heap[big] = t->heap[i];
        t->heap[i] = swap;
        i = big;
    }
}

static bool has_text(const value *v) {
    return v->type == VT_STRING || v->type == VT_KEYWORD;
}

static size_t row_bytes(const sort_spec *s, const value *row) {
    size_t bytes = s->column_count * sizeof(value);
    for (size_t c = 0; c < s->column_count; c++)
        if (has_text(&row[c]))
            bytes += row[c].as.str.len;
    return bytes;
}

/* One allocation: the values, then their string payloads. */
static value *copy_row(const sort_spec *s, const value *row, size_t bytes) {
    value *copy = malloc(bytes ? bytes : 1);
    if (!copy)
        return NULL;
    char *text = (char *)(copy + s->column_count);
    for (size_t c = 0; c < s->column_count; c++) {
        copy[c] = row[c];
        if (has_text(&row[c]) && row[c].as.str.len) {
            memcpy(text, row[c].as.str.ptr, row[c].as.str.len);
            copy[c].as.str.ptr = text;
            text += row[c].as.str.len;
        }
    }
    return copy;
}

static int topk_reserve(sort_topk *t, err *e) {
    if (t->count < t->cap)
        return 0;
    size_t cap = t->cap ? t->cap * 2 : 16;
    if (cap > t->k)
        cap = t->k;
    if (cap > SIZE_MAX / sizeof *t->heap)
        return err_set(e, ERR(INT, 0), "out of memory");
    size_t grow = (cap - t->cap) * sizeof *t->heap;
    int rc = meter_charge(t->meter, grow, "sort", e);
    if (rc)
        return rc;
    sort_topk_entry *heap = realloc(t->heap, cap * sizeof *heap);
    if (!heap) {
        meter_release(t->meter, grow);
        return err_set(e, ERR(INT, 0), "out of memory");
    }
    t->heap = heap;
    t->cap = cap;
    t->charged += grow;
    return 0;
}

static int make_entry(sort_topk *t, const value *row, sort_topk_entry *out, err *e) {
    size_t bytes = row_bytes(&t->spec, row);
    int rc = meter_charge(t->meter, bytes, "sort", e);
    if (rc)
        return rc;
    out->row = copy_row(&t->spec, row, bytes);
    if (!out->row) {
        meter_release(t->meter, bytes);
        return err_set(e, ERR(INT, 0), "out of memory");
    }
    out->bytes = bytes;
    t->charged += bytes;
    return 0;
}

static void drop_entry(sort_topk *t, sort_topk_entry *entry) {
    free(entry->row);
    meter_release(t->meter, entry->bytes);
    t->charged -= entry->bytes;
}

bool sort_topk_closed(const sort_topk *t, const value *row) {
    if (t->count < t->k)
        return false;
    if (t->k == 0)
        return true;
    const sort_key *k = &t->spec.keys[0];
    int c = cmp_order_by(&row[k->column], &t->heap[0].row[k->column]);
    /* With one key a tie cannot enter either: ties keep no particular
     * order (language.md D3), or, with the key the only column, are the same row. */
    return k->descending ? c < 0 || (c == 0 && t->spec.key_count == 1)
                         : c > 0 || (c == 0 && t->spec.key_count == 1);
}

bool sort_topk_full_in_order(const sort_topk *t) {
    return t->count == t->k && (t->k == 0 || t->spec.key_count == 1);
}

bool sort_topk_passes_over(const sort_topk *t, const value *row) {
    /* A tie on every key may be dropped: unless every column is a key its
     * place is unspecified (language.md D3), and if every column is, it ties the last
     * kept row on every column, and that row came first. */
    return t->k == 0 || (t->count == t->k && compare_keys(&t->spec, row, t->heap[0].row) >= 0);
}

int sort_topk_push(sort_topk *t, const value *row, err *e) {
    size_t seq = t->pushed++;
    if (t->k == 0)
        return 0;
    if (t->count == t->k) {
        /* A later row that ties the last kept one comes after it. */
        sort_topk_entry probe = {(value *)row, seq, 0};
        if (entry_compare(&t->spec, &probe, &t->heap[0]) >= 0)
            return 0;
    }
    sort_topk_entry entry;
    int rc = t->count == t->k ? 0 : topk_reserve(t, e);
    if (!rc)
        rc = make_entry(t, row, &entry, e);
    if (rc)
        return rc;
    entry.seq = seq;
    if (t->count == t->k) {
        drop_entry(t, &t->heap[0]);
        t->heap[0] = entry;
        sift_down(t, 0, t->count);
    } else {
        t->heap[t->count++] = entry;
        sift_up(t, t->count - 1);
    }
    return 0;
}

/* Heapsort in place: the max-heap becomes ascending order. */
static void heap_to_sorted(sort_topk *t) {
    for (size_t end = t->count; end > 1; end--) {
        sort_topk_entry swap = t->heap[0];
        t->heap[0] = t->heap[end - 1];
        t->heap[end - 1] = swap;
        sift_down(t, 0, end - 1);
    }
}

size_t sort_topk_finish(sort_topk *t, const value ***rows, err *e) {
    *rows = NULL;
    if (t->count == 0)
        return 0;
    if (!t->sorted) {
        t->sorted = malloc(t->count * sizeof *t->sorted);
        if (!t->sorted) {
            err_set(e, ERR(INT, 0), "out of memory");
            return 0;
        }
        heap_to_sorted(t);
        for (size_t i = 0; i < t->count; i++)
            t->sorted[i] = t->heap[i].row;
    }
    *rows = t->sorted;
    return t->count;
}

void sort_topk_free(sort_topk *t) {
    if (!t)
        return;
    for (size_t i = 0; i < t->count; i++)
        free(t->heap[i].row);
    free(t->heap);
    free(t->sorted);
    meter_release(t->meter, t->charged);
    memset(t, 0, sizeof *t);
}

/* ---- offset / limit -------------------------------------------------- */

void sort_limit_init(sort_limit *l, size_t offset, bool has_limit, size_t limit) {
    l->offset = offset;
    l->end = sort_topk_bound(offset, has_limit, limit);
    l->seen = 0;
}

size_t sort_limit_slice(size_t n, size_t offset, bool has_limit, size_t limit, size_t *start) {
    *start = offset < n ? offset : n;
    size_t rest = n - *start;
    return has_limit && limit < rest ? limit : rest;
}
