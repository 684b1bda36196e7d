/* A stored record's positions as the values a scan binds into a row:
 * the entity, the attribute and Ref, String and Keyword values left as
 * stored values of the reader's source (model/value.h), the other types
 * decoded from the V field's payload. One definition for the two paths
 * that bind them: store_reader_value_at (from a record's identifiers)
 * and fact_run_fill_rows (from a decoder's columns, no identifiers). */
#ifndef MG_STORE_ROW_VALUES_H
#define MG_STORE_ROW_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model/value.h"
#include "storage/format.h"

/* Where a fill writes records as rows (fact_run_fill_rows,
 * store_scan_fill_rows): record i's E, A and V into slots at[0..3) (-1:
 * not written) of the row at slot + i * width, stored values of `src`. */
typedef struct run_rows {
    value *slot;
    size_t width;
    int at[3];
    const value_source *src;
} run_rows;

/* The V field of type `type` and payload number `payload` (the key's
 * big-endian bytes after the type) into *out: false when no value has
 * that type (a corrupt record). Inline: a scan makes one per record. */
static inline __attribute__((always_inline)) bool field_value_set(value *out, unsigned type,
                                                                  uint64_t payload,
                                                                  const value_source *src) {
    if (type == VT_REF || type == VT_STRING || type == VT_KEYWORD) {
        value_set_stored(out, (value_type)type, src, payload);
        return true;
    }
    if (type == VT_INTEGER) { /* the most common scalar */
        value_set_integer(out, format_from_sortable(payload));
        return true;
    }
    double f;
    switch (type) {
    case VT_FLOAT:
        memcpy(&f, &payload, sizeof f);
        *out = value_float(f);
        return true;
    case VT_BOOLEAN: *out = value_boolean(payload != 0); return true;
    case VT_NULL: *out = value_null(); return true;
    default: return false;
    }
}

#endif
