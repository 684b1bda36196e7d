/* A materialised query answer: column names and rows of values. It owns
 * copies of every string, so it outlives the database that produced it. */
#ifndef MG_EXEC_RESULT_H
#define MG_EXEC_RESULT_H

#include <stddef.h>

#include "model/value.h"

typedef struct result_set result_set;

/* NULL when out of memory. */
result_set *result_new(size_t column_count);
/* Copies the name. Returns 0, or -1 when out of memory. */
int result_set_column(result_set *r, size_t column, const char *name, size_t len);
/* Appends one row of `column_count` values, copying string payloads and
 * list items.
 * Returns 0, or -1 when out of memory. */
int result_append_row(result_set *r, const value *row);

size_t result_column_count(const result_set *r);
const char *result_column_name(const result_set *r, size_t column, size_t *len);
size_t result_row_count(const result_set *r);
/* The row's `column_count` values; valid until result_free. */
const value *result_row(const result_set *r, size_t row);
void result_free(result_set *r);

#endif
