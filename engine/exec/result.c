/* Result sets: rows live in one growing array of values (row i starts at
 * i * column_count); every string payload is copied into the set's arena. */
#include "exec/result.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/array.h"

struct result_set {
    arena mem;
    size_t columns;
    const char **names;
    size_t *name_lens;
    value *values;
    size_t rows, row_cap;
};

result_set *result_new(size_t column_count) {
    result_set *r = malloc(sizeof *r);
    if (!r)
        return NULL;
    /* malloc and assign, not calloc: glibc's calloc skips its thread cache */
    *r = (result_set){0};
    arena_init(&r->mem);
    r->columns = column_count;
    if (column_count > 0) {
        r->names = arena_calloc(&r->mem, column_count, sizeof *r->names);
        r->name_lens = arena_calloc(&r->mem, column_count, sizeof *r->name_lens);
        if (!r->names || !r->name_lens) {
            result_free(r);
            return NULL;
        }
    }
    return r;
}

int result_set_column(result_set *r, size_t column, const char *name, size_t len) {
    char *copy = arena_strndup(&r->mem, name, len);
    if (!copy)
        return -1;
    r->names[column] = copy;
    r->name_lens[column] = len;
    return 0;
}

static int result_copy_value(result_set *r, value *dst, const value *src);

/* A collect-set list: its items are copied one level deep (items are never
 * lists themselves, but the copy would recurse correctly if they were). */
static int result_copy_list(result_set *r, value *dst, const value *src) {
    size_t n = src->as.list.count;
    value *items = n ? arena_calloc(&r->mem, n, sizeof *items) : NULL;
    if (n && !items)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (result_copy_value(r, &items[i], &src->as.list.items[i]) != 0)
            return -1;
    dst->as.list.items = items;
    return 0;
}

static int result_copy_value(result_set *r, value *dst, const value *src) {
    *dst = *src;
    if (src->type == VT_LIST)
        return result_copy_list(r, dst, src);
    if (src->type != VT_STRING && src->type != VT_KEYWORD)
        return 0;
    char *copy = arena_strndup(&r->mem, src->as.str.ptr, src->as.str.len);
    if (!copy)
        return -1;
    dst->as.str.ptr = copy;
    return 0;
}

int result_append_row(result_set *r, const value *row) {
    if (r->columns == 0) { /* rows of an empty :find: nothing to store (values may be NULL) */
        r->rows++;
        return 0;
    }
    if (!array_reserve(&r->values, &r->row_cap, r->rows + 1, r->columns * sizeof(value), 16))
        return -1;
    value *dst = r->values + r->rows * r->columns;
    for (size_t c = 0; c < r->columns; c++)
        if (result_copy_value(r, &dst[c], &row[c]) != 0)
            return -1;
    r->rows++;
    return 0;
}

size_t result_column_count(const result_set *r) {
    return r->columns;
}

const char *result_column_name(const result_set *r, size_t column, size_t *len) {
    if (len)
        *len = r->name_lens[column];
    return r->names[column] ? r->names[column] : "";
}

size_t result_row_count(const result_set *r) {
    return r->rows;
}

const value *result_row(const result_set *r, size_t row) {
    return r->values ? r->values + row * r->columns : NULL;
}

void result_free(result_set *r) {
    if (!r)
        return;
    arena_free(&r->mem);
    free(r->values);
    free(r);
}
