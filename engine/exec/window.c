/* Window functions (language.md §11.2): partition, sort, running frame. */
#include "exec/window.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "base/htab.h"
#include "exec/compare.h"

static const char *const window_names[] = {
    [WINDOW_ROW_NUMBER] = "row-number",
    [WINDOW_RANK] = "rank",
    [WINDOW_COUNT] = "count",
    [WINDOW_SUM] = "sum",
    [WINDOW_MIN] = "min",
    [WINDOW_MAX] = "max",
    [WINDOW_AVG] = "avg",
    [WINDOW_LAG] = "lag",
    [WINDOW_LEAD] = "lead",
};

bool window_lookup(const char *name, size_t len, window_fn *out) {
    for (size_t fn = 0; fn < sizeof window_names / sizeof *window_names; fn++) {
        const char *n = window_names[fn];
        if (strlen(n) == len && memcmp(n, name, len) == 0) {
            *out = (window_fn)fn;
            return true;
        }
    }
    return false;
}

bool window_takes_arg(window_fn fn) {
    return fn != WINDOW_ROW_NUMBER && fn != WINDOW_RANK;
}

/* A row's index: calls take fewer than UINT32_MAX rows, and half the
 * bytes of a size_t keep the scratch arrays in cache. */
typedef uint32_t row_id;

/* Scratch for one call: `part` holds each row's dense partition number
 * (NULL without :partition-by), `perm` the rows in window order, `tmp` the
 * merge buffer, `key` each row's order value as an unsigned integer in
 * window order when every value is a number and none is NaN (else NULL:
 * the merge sort compares values); `exact_keys` when equal keys are E1-
 * equal values too (all integers within ±2^53, or all floats). */
typedef struct window_scratch {
    arena mem; /* the arrays below (arena.c keeps its blocks for the next call) */
    row_id *part, *perm, *tmp;
    uint64_t *key;
    uint64_t key_lo, key_span; /* the least key, the greatest less it */
    bool exact_keys;
    size_t partitions;
    htab table;
    size_t charged;
} window_scratch;

static const value null_value = {.type = VT_NULL};

/* Row i's value at `slot`; Null for slot -1. */
static inline const value *cell(const window_rows *r, long slot, size_t i) {
    return slot < 0 ? &null_value : &r->rows[i][slot];
}

typedef struct partition_probe {
    const window_rows *rows;
    const row_id *first_row; /* partition number → its first row */
    const value *probe;
} partition_probe;

static bool partition_equal(const void *ctx, uint32_t id) {
    const partition_probe *p = ctx;
    return value_equal_strict(cell(p->rows, p->rows->partition, p->first_row[id]), p->probe);
}

/* Numbers partitions 0, 1, ... in order of first appearance. `perm` serves
 * as the partition → first-row map while numbering. */
static int number_partitions(window_scratch *w, size_t n, const window_rows *r) {
    partition_probe probe = {r, w->perm, NULL};
    for (size_t i = 0; i < n; i++) {
        probe.probe = cell(r, r->partition, i);
        uint64_t h = value_hash_entity(probe.probe);
        uint32_t id = htab_find(&w->table, h, partition_equal, &probe);
        if (id == HTAB_NONE) {
            id = (uint32_t)w->partitions;
            w->perm[w->partitions++] = (row_id)i;
            if (htab_insert(&w->table, h, id) != 0)
                return -1;
        }
        w->part[i] = (row_id)id;
    }
    return 0;
}

/* A stable counting sort of the rows by partition number into `perm`
 * (`tmp`, n + 1 entries, holds the running starts). */
static void group_by_partition(window_scratch *w, size_t n) {
    row_id *start = w->tmp;
    memset(start, 0, (w->partitions + 1) * sizeof *start);
    for (size_t i = 0; i < n; i++)
        start[w->part[i] + 1]++;
    for (size_t p = 0; p < w->partitions; p++)
        start[p + 1] += start[p];
    for (size_t i = 0; i < n; i++)
        w->perm[start[w->part[i]]++] = (row_id)i;
}

/* Stable: takes from the right run only when strictly before. */
static void merge(const window_rows *r, bool descending, row_id *rows, size_t mid, size_t n,
                  row_id *tmp) {
    size_t i = 0, j = mid, k = 0;
    while (i < mid && j < n) {
        int c = cmp_window(cell(r, r->order, rows[j]), cell(r, r->order, rows[i]));
        tmp[k++] = (descending ? c > 0 : c < 0) ? rows[j++] : rows[i++];
    }
    while (i < mid)
        tmp[k++] = rows[i++];
    while (j < n)
        tmp[k++] = rows[j++];
    memcpy(rows, tmp, n * sizeof *rows);
}

static void merge_sort(const window_rows *r, bool descending, row_id *rows, size_t n, row_id *tmp) {
    if (n < 2)
        return;
    size_t mid = n / 2;
    merge_sort(r, descending, rows, mid, tmp);
    merge_sort(r, descending, rows + mid, n - mid, tmp);
    merge(r, descending, rows, mid, n, tmp);
}

/* Integers this large or larger in magnitude may round as doubles. */
#define EXACT_DOUBLE_INT (INT64_C(1) << 53)

/* Keys of every row, or false when some order value is not a number or is
 * NaN (numbers without NaN are totally ordered up to ties under O2, which
 * compares them as doubles). Integers a double holds exactly are their
 * own keys (no conversion); otherwise the key is the double's bits (0.0
 * and -0.0 alike). Greater values get greater keys, reversed for :desc.
 * Sets w->exact_keys, key_lo and key_span (window_scratch). */
static bool order_keys(window_scratch *w, const window_rows *r, size_t n, bool descending) {
    bool doubles = false, floats = false, integers = false;
    uint64_t flip = descending ? UINT64_MAX : 0, *key = w->key, lo = UINT64_MAX, hi = 0;
    /* one pass over the rows, their integer keys taken as they are read */
    for (size_t i = 0; i < n; i++) {
        const value *v = cell(r, r->order, i);
        if (v->type == VT_INTEGER)
            doubles |= v->as.i >= EXACT_DOUBLE_INT || v->as.i <= -EXACT_DOUBLE_INT;
        else if (v->type == VT_FLOAT && !isnan(v->as.f))
            floats = true;
        else
            return false;
        integers |= v->type == VT_INTEGER;
        key[i] = ((uint64_t)v->as.i ^ UINT64_C(1) << 63) ^ flip;
        lo = key[i] < lo ? key[i] : lo;
        hi = key[i] > hi ? key[i] : hi;
    }
    w->exact_keys = !doubles && !(floats && integers);
    doubles |= floats;
    if (doubles)
        lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < n && doubles; i++) {
        const value *v = cell(r, r->order, i);
        double x = v->type == VT_INTEGER ? (double)v->as.i : v->as.f;
        uint64_t u;
        x = x == 0 ? 0.0 : x;
        memcpy(&u, &x, sizeof u);
        key[i] = (u >> 63 ? ~u : u | UINT64_C(1) << 63) ^ flip;
        lo = key[i] < lo ? key[i] : lo;
        hi = key[i] > hi ? key[i] : hi;
    }
    w->key_lo = lo;
    w->key_span = n ? hi - lo : 0;
    return true;
}

/* Below this many rows the merge sort takes fewer instructions than the
 * radix sort's histograms of 256 buckets. */
#define RADIX_MIN_ROWS 256

/* A stable counting sort per byte of (key - the least key), lowest byte
 * first, for as many bytes as the span of the keys needs: one pass for
 * values within 256 of each other. Every stable sort gives the merge
 * sort's order, as the keys are totally ordered up to ties. */
static void radix_sort(const uint64_t *key, row_id *rows, size_t n, row_id *tmp) {
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = key[rows[i]];
        lo = k < lo ? k : lo;
        hi = k > hi ? k : hi;
    }
    for (unsigned shift = 0; shift < 64 && (hi - lo) >> shift; shift += 8) {
        size_t start[257] = {0};
        for (size_t i = 0; i < n; i++)
            start[((key[rows[i]] - lo) >> shift & 0xff) + 1]++;
        for (size_t b = 0; b < 256; b++)
            start[b + 1] += start[b];
        for (size_t i = 0; i < n; i++)
            tmp[start[(key[rows[i]] - lo) >> shift & 0xff]++] = rows[i];
        memcpy(rows, tmp, n * sizeof *rows);
    }
}

static void sort_partition(const window_scratch *w, const window_rows *r, bool descending,
                           row_id *rows, size_t n) {
    if (w->key && n >= RADIX_MIN_ROWS)
        radix_sort(w->key, rows, n, w->tmp);
    else
        merge_sort(r, descending, rows, n, w->tmp);
}

/* ---- running values -------------------------------------------------- */

typedef struct running {
    int64_t count; /* non-null args (count) or numeric args (sum, avg) */
    double sum;
    bool saw_float;
    value best; /* min/max so far, Null before the first */
} running;

static bool is_number(const value *v) {
    return v->type == VT_INTEGER || v->type == VT_FLOAT;
}

static int64_t clamp_to_int(double d) {
    if (d >= 9223372036854775808.0)
        return INT64_MAX;
    if (d < -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)d;
}

static value running_sum(running *r, const value *v) {
    if (is_number(v)) {
        r->sum += v->type == VT_INTEGER ? (double)v->as.i : v->as.f;
        r->saw_float |= v->type == VT_FLOAT;
        r->count++;
    }
    return r->saw_float ? value_float(r->sum) : value_integer(clamp_to_int(r->sum));
}

static value running_avg(running *r, const value *v) {
    running_sum(r, v);
    return r->count ? value_float(r->sum / (double)r->count) : value_null();
}

static value running_extreme(running *r, const value *v, bool want_max) {
    if (v->type != VT_NULL) {
        int c = r->best.type == VT_NULL ? 0 : cmp_window(v, &r->best);
        if (r->best.type == VT_NULL || (want_max ? c > 0 : c < 0))
            r->best = *v;
    }
    return r->best;
}

/* Whether rows a and b tie on their order values (E1). */
static bool order_tie(const window_scratch *w, const window_rows *r, row_id a, row_id b) {
    if (w->key && w->exact_keys)
        return w->key[a] == w->key[b];
    return value_equal_strict(cell(r, r->order, a), cell(r, r->order, b));
}

/* Writes the value of row `perm[k]`, whose partition spans
 * perm[lo..hi), into its `out` slot; integers in place (value_set_integer:
 * a value built on the stack and copied stalls on every row). */
static void window_value(window_fn fn, running *run, const window_scratch *w, size_t lo, size_t k,
                         size_t hi, const window_rows *r) {
    const row_id *perm = w->perm;
    const value *arg = cell(r, r->arg, perm[k]);
    value *out = &r->rows[perm[k]][r->out];
    switch (fn) {
    case WINDOW_COUNT:
        run->count += arg->type != VT_NULL;
        value_set_integer(out, run->count);
        return;
    case WINDOW_SUM: *out = running_sum(run, arg); return;
    case WINDOW_AVG: *out = running_avg(run, arg); return;
    case WINDOW_MIN: *out = running_extreme(run, arg, false); return;
    case WINDOW_MAX: *out = running_extreme(run, arg, true); return;
    case WINDOW_LAG: *out = k > lo ? *cell(r, r->arg, perm[k - 1]) : value_null(); return;
    case WINDOW_LEAD: *out = k + 1 < hi ? *cell(r, r->arg, perm[k + 1]) : value_null(); return;
    case WINDOW_ROW_NUMBER:
    case WINDOW_RANK:        /* compute_positional */
    case WINDOW_HOST: break; /* window_compute_running */
    }
    *out = value_null();
}

/* How many rows ahead fill_partition asks for the row it will write,
 * and for the pointer to it. */
#define FILL_AHEAD 16

/* In window order the rows are written in no order of their addresses
 * (the pointer to a row and its slot two cache misses): each pointer is
 * fetched 2 * FILL_AHEAD rows early, each row FILL_AHEAD rows early. */
static void fill_partition(window_fn fn, const window_scratch *w, size_t lo, size_t hi,
                           const window_rows *r) {
    running run = {.best = value_null()};
    for (size_t k = lo; k < hi; k++) {
        if (k + 2 * FILL_AHEAD < hi)
            __builtin_prefetch(&r->rows[w->perm[k + 2 * FILL_AHEAD]]);
        if (k + FILL_AHEAD < hi)
            __builtin_prefetch(&r->rows[w->perm[k + FILL_AHEAD]][r->out], 1);
        window_value(fn, &run, w, lo, k, hi, r);
    }
}

/* ---- driver ------------------------------------------------------------ */

static void scratch_free(window_scratch *w, meter *m) {
    arena_free(&w->mem);
    htab_free(&w->table);
    meter_release(m, w->charged);
}

static int scratch_init(window_scratch *w, size_t n, bool partitioned, bool descending,
                        const window_rows *r, meter *m, err *e) {
    memset(w, 0, sizeof *w);
    arena_init(&w->mem);
    htab_init(&w->table);
    if (n >= UINT32_MAX || n > SIZE_MAX / sizeof(uint64_t) - 1)
        return err_set(e, ERR(INT, 0), "out of memory");
    size_t ids = partitioned ? 3 : 2;
    size_t bytes = (ids * sizeof(row_id) + sizeof(uint64_t)) * (n + 1);
    w->part = partitioned ? arena_alloc(&w->mem, (n + 1) * sizeof(row_id)) : NULL;
    w->perm = arena_alloc(&w->mem, (n + 1) * sizeof(row_id));
    w->tmp = arena_alloc(&w->mem, (n + 1) * sizeof(row_id));
    w->key = arena_alloc(&w->mem, (n + 1) * sizeof(uint64_t));
    if ((partitioned && !w->part) || !w->perm || !w->tmp || !w->key ||
        (partitioned && htab_reserve(&w->table, n) != 0))
        return err_set(e, ERR(INT, 0), "out of memory");
    if (!order_keys(w, r, n, descending))
        w->key = NULL;
    bytes += w->table.cap * (sizeof(uint64_t) + sizeof(uint32_t));
    int rc = meter_charge(m, bytes, "window", e);
    if (!rc)
        w->charged = bytes;
    return rc;
}

/* Puts the rows in `perm` grouped by partition, each partition's rows in
 * input order; without partitions, all of them in input order. */
static int assign_partitions(window_scratch *w, size_t n, const window_rows *r, err *e) {
    if (r->partition < 0) {
        for (size_t i = 0; i < n; i++)
            w->perm[i] = (row_id)i;
        w->partitions = n ? 1 : 0;
        return 0;
    }
    if (number_partitions(w, n, r) != 0)
        return err_set(e, ERR(INT, 0), "out of memory");
    group_by_partition(w, n);
    return 0;
}

/* The end of the partition that starts at perm[lo]. */
static size_t partition_end(const window_scratch *w, size_t lo, size_t n) {
    size_t hi = lo + 1;
    while (w->part && hi < n && w->part[w->perm[hi]] == w->part[w->perm[lo]])
        hi++;
    return w->part ? hi : n;
}

/* The caller's running function over one partition's rows in window
 * order. */
static int run_partition(const window_running *run, const row_id *perm, size_t lo, size_t hi,
                         const window_rows *r, err *e) {
    int rc = run->start(run->ctx, e);
    if (rc)
        return rc;
    for (size_t k = lo; !rc && k < hi; k++)
        rc = run->add(run->ctx, cell(r, r->arg, perm[k]), (int64_t)(k - lo + 1),
                      &r->rows[perm[k]][r->out], e);
    run->stop(run->ctx);
    return rc;
}

/* row-number or rank over the partition perm[lo..hi) into at[row] (the
 * rows' indexes: 4 bytes a row, where the rows themselves are written in
 * no order of their addresses). */
static void rank_partition(window_fn fn, const window_scratch *w, size_t lo, size_t hi,
                           const window_rows *r, row_id *at) {
    row_id rank = 1;
    for (size_t k = lo; k < hi; k++) {
        if (fn == WINDOW_ROW_NUMBER || k == lo || !order_tie(w, r, w->perm[k], w->perm[k - 1]))
            rank = (row_id)(k - lo + 1);
        at[w->perm[k]] = rank;
    }
}

/* Sorts every partition, then computes positional fn over them into
 * w->tmp (free once all are sorted) and writes the rows in their order. */
static int compute_positional(window_fn fn, window_scratch *w, bool descending, size_t n,
                              const window_rows *r, meter *m, err *e) {
    for (size_t lo = 0, hi; lo < n; lo = hi) {
        hi = partition_end(w, lo, n);
        sort_partition(w, r, descending, w->perm + lo, hi - lo);
    }
    int rc = 0;
    for (size_t lo = 0, hi; !rc && lo < n; lo = hi) {
        hi = partition_end(w, lo, n);
        rank_partition(fn, w, lo, hi, r, w->tmp);
        rc = meter_tick(m, hi - lo, e); /* one poll per partition */
    }
    for (size_t i = 0; !rc && i < n; i++)
        value_set_integer(&r->rows[i][r->out], w->tmp[i]);
    return rc;
}

/* row-number or rank of one partition whose keys span fewer values than
 * it has rows, without sorting: a count of the rows per key gives each
 * key the number of rows before it in window order, i.e. its rank less
 * one (ties are equal keys: exact_keys); a row's number is that plus the
 * rows of its key before it in input order, which is where a stable sort
 * puts it. One pass to count, one to write, both in row order. *counted
 * false when the keys do not allow it (nothing written). */
static int count_positional(window_fn fn, window_scratch *w, size_t n, const window_rows *r,
                            meter *m, bool *counted, err *e) {
    uint64_t lo = w->key_lo, span = w->key_span;
    *counted = span < n && (fn == WINDOW_ROW_NUMBER || w->exact_keys);
    if (!*counted)
        return 0;
    size_t bytes = ((size_t)span + 1) * sizeof(row_id);
    row_id *before = arena_alloc(&w->mem, bytes);
    if (!before)
        return err_set(e, ERR(INT, 0), "out of memory");
    int rc = meter_charge(m, bytes, "window", e);
    if (rc)
        return rc;
    w->charged += bytes;
    memset(before, 0, bytes);
    for (size_t i = 0; i < n; i++)
        before[w->key[i] - lo]++;
    row_id rows = 0;
    for (uint64_t k = 0; k <= span; k++) {
        row_id count = before[k];
        before[k] = rows;
        rows += count;
    }
    for (size_t i = 0; i < n; i++) {
        row_id *at = &before[w->key[i] - lo];
        value_set_integer(&r->rows[i][r->out], (int64_t)*at + 1);
        *at += fn == WINDOW_ROW_NUMBER;
    }
    return meter_tick(m, n, e);
}

/* Partitions and sorts, then fills each partition with `fn` or `run`. */
static int compute(window_fn fn, const window_running *run, bool descending, size_t n,
                   const window_rows *r, meter *m, err *e) {
    window_scratch w;
    int rc = scratch_init(&w, n, r->partition >= 0, descending, r, m, e);
    bool positional = !run && !window_takes_arg(fn); /* row-number, rank */
    bool counted = false;
    if (!rc && positional && w.key && r->partition < 0)
        rc = count_positional(fn, &w, n, r, m, &counted, e);
    if (rc || counted) {
        scratch_free(&w, m);
        return rc;
    }
    rc = assign_partitions(&w, n, r, e);
    if (!rc && positional) {
        rc = compute_positional(fn, &w, descending, n, r, m, e);
        scratch_free(&w, m);
        return rc;
    }
    for (size_t lo = 0, hi; !rc && lo < n; lo = hi) {
        hi = partition_end(&w, lo, n);
        sort_partition(&w, r, descending, w.perm + lo, hi - lo);
        if (run)
            rc = run_partition(run, w.perm, lo, hi, r, e);
        else
            fill_partition(fn, &w, lo, hi, r);
        if (rc == 0 && (rc = meter_tick(m, hi - lo, e)) != 0) /* one poll per partition */
            break;
    }
    scratch_free(&w, m);
    return rc;
}

int window_compute(window_fn fn, bool descending, size_t n, const window_rows *r, meter *m,
                   err *e) {
    return compute(fn, NULL, descending, n, r, m, e);
}

int window_compute_running(const window_running *run, bool descending, size_t n,
                           const window_rows *r, meter *m, err *e) {
    return compute(WINDOW_HOST, run, descending, n, r, m, e);
}
