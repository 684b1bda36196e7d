/* Renders engine values and result rows as the JSON of language.md §14.1, in one
 * pass straight into a text buffer. */
#ifndef MG_CAPI_JSON_WRITE_H
#define MG_CAPI_JSON_WRITE_H

#include <stddef.h>

#include "base/buf.h"
#include "exec/result.h"
#include "model/fact.h"
#include "model/value.h"

void json_write_string(buf *out, const char *s, size_t len);
/* typed: the lossless {"type":..,"value":..} form (MINIGRAF_FORMAT_TYPED). */
void json_write_value(buf *out, const value *v, int typed);
/* An integer in decimal, without printf (a commit's answer, rows). */
void json_write_integer(buf *out, int64_t i);
/* One fact log record: {"entity":..,"attribute":..,"value":{typed},
 * "tx_count":..,"tx_id":..,"valid_from":..,"valid_to":..,"asserted":..}. */
void json_write_fact(buf *out, const fact *f);
/* ["?a","?b"] */
void json_write_columns(buf *out, const result_set *r);
/* [v,...] for one row of `columns` values. */
void json_write_row(buf *out, const value *row, size_t columns, int typed);
/* `n` rows of `columns` values, one after another, the first after
 * `lead` (nothing when '\0'), the others after a ',' (a batch's rows, a
 * block at a time). */
void json_write_row_block(buf *out, const value *rows, size_t n, size_t columns, int typed,
                          char lead);
/* [[..],[..]] for rows [first, first + count). */
void json_write_rows(buf *out, const result_set *r, size_t first, size_t count, int typed);

#endif
