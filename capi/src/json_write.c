#include "json_write.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json_number.h"

void json_write_string(buf *out, const char *s, size_t len) {
    static const char hex[] = "0123456789abcdef";
    buf_putc(out, '"');
    size_t run = 0; /* bytes copied verbatim, flushed in one append */
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        buf_append(out, s + run, i - run);
        run = i + 1;
        switch (c) {
        case '"': buf_append(out, "\\\"", 2); break;
        case '\\': buf_append(out, "\\\\", 2); break;
        case '\n': buf_append(out, "\\n", 2); break;
        case '\r': buf_append(out, "\\r", 2); break;
        case '\t': buf_append(out, "\\t", 2); break;
        case '\b': buf_append(out, "\\b", 2); break;
        case '\f': buf_append(out, "\\f", 2); break;
        default: {
            char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            buf_append(out, esc, sizeof esc);
        }
        }
    }
    buf_append(out, s + run, len - run);
    buf_putc(out, '"');
}

static void write_float(buf *out, double f, int typed) {
    if (isfinite(f)) {
        char text[JSON_DOUBLE_MAX];
        size_t n = json_format_double(f, text);
        buf_append(out, text, n);
    } else if (!typed) {
        buf_puts(out, "null");
    } else {
        buf_puts(out, isnan(f) ? "\"NaN\"" : f > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    }
}

/* The least number of n + 1 digits, for n in [0, 19]: 10^n, but 0 for
 * n = 0 (0 has a digit too); 10^19 is the largest power below 2^64. */
static const uint64_t least_with_digits[20] = {0,
                                               10,
                                               100,
                                               1000,
                                               10000,
                                               100000,
                                               1000000,
                                               10000000,
                                               100000000,
                                               1000000000,
                                               10000000000,
                                               100000000000,
                                               1000000000000,
                                               10000000000000,
                                               100000000000000,
                                               1000000000000000,
                                               10000000000000000,
                                               100000000000000000,
                                               1000000000000000000,
                                               UINT64_C(10000000000000000000)};

/* The number of decimal digits of u: n from its bit length (log10(2) is
 * about 1233 / 4096) is that or one fewer, which one comparison tells. */
static size_t decimal_digits(uint64_t u) {
    size_t bits = 64 - (size_t)__builtin_clzll(u | 1);
    size_t n = (bits * 1233) >> 12;
    return n + (u >= least_with_digits[n]);
}

/* The longest integer: "-9223372036854775808". */
#define INTEGER_TEXT_MAX 20

static const char digit_pairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233"
    "34353637383940414243444546474849505152535455565758596061626364656667"
    "6869707172737475767778798081828384858687888990919293949596979899";

/* Writes u of `digits` digits at `at`, two digits a division from the
 * end: returns the end. */
static inline char *put_digits(char *at, uint64_t u, size_t digits) {
    char *end = at + digits;
    at = end;
    for (; u > UINT32_MAX; u /= 100) {
        at -= 2;
        memcpy(at, digit_pairs + 2 * (u % 100), 2);
    }
    uint32_t v = (uint32_t)u; /* 32-bit divisions are the cheaper */
    for (; v >= 100; v /= 100) {
        at -= 2;
        memcpy(at, digit_pairs + 2 * (v % 100), 2);
    }
    if (v >= 10)
        memcpy(at - 2, digit_pairs + 2 * v, 2);
    else
        at[-1] = (char)('0' + v);
    return end;
}

/* Writes i in decimal at `text` (room for INTEGER_TEXT_MAX): returns the
 * end. Exact, without printf: integers are most of what large answers
 * hold. */
static inline char *put_integer(char *text, int64_t i) {
    uint64_t u = i < 0 ? 0 - (uint64_t)i : (uint64_t)i;
    *text = '-';
    text += i < 0;
    return put_digits(text, u, decimal_digits(u));
}

void json_write_integer(buf *out, int64_t i) {
    char *text = buf_space(out, INTEGER_TEXT_MAX);
    if (text)
        buf_commit(out, (size_t)(put_integer(text, i) - text));
}

/* A UUID's text needs no escaping: quoted as it is. Returns the end. */
static char *put_uuid(char *text, const uuid128 *u) {
    text[0] = '"';
    uuid_format(u, text + 1); /* its NUL lands where the quote goes */
    text[UUID_TEXT_LEN + 1] = '"';
    return text + UUID_TEXT_LEN + 2;
}

static void write_uuid(buf *out, const uuid128 *u) {
    char *text = buf_space(out, UUID_TEXT_LEN + 2);
    if (text)
        buf_commit(out, (size_t)(put_uuid(text, u) - text));
}

static void write_list(buf *out, const value *v, int typed) {
    buf_putc(out, '[');
    for (size_t i = 0; i < v->as.list.count; i++) {
        if (i)
            buf_putc(out, ',');
        json_write_value(out, &v->as.list.items[i], typed);
    }
    buf_putc(out, ']');
}

static void write_plain(buf *out, const value *v, int typed) {
    switch (v->type) {
    case VT_STRING:
    case VT_KEYWORD: json_write_string(out, v->as.str.ptr, v->as.str.len); break;
    case VT_INTEGER: json_write_integer(out, v->as.i); break;
    case VT_FLOAT: write_float(out, v->as.f, typed); break;
    case VT_BOOLEAN: buf_puts(out, v->as.b ? "true" : "false"); break;
    case VT_REF: write_uuid(out, &v->as.ref); break;
    case VT_NULL: buf_puts(out, "null"); break;
    case VT_LIST: /* collect-set (language.md D4): an array; typed, of typed items */
        write_list(out, v, typed);
        break;
    }
}

static const char *typed_name(value_type t) {
    static const char *const names[] = {"string", "integer", "float", "boolean",
                                        "ref",    "keyword", "null",  "list"};
    return names[t];
}

void json_write_value(buf *out, const value *v, int typed) {
    if (!typed) {
        write_plain(out, v, 0);
        return;
    }
    buf_puts(out, "{\"type\":\"");
    buf_puts(out, typed_name(v->type));
    buf_puts(out, "\",\"value\":");
    write_plain(out, v, 1);
    buf_putc(out, '}');
}

void json_write_fact(buf *out, const fact *f) {
    buf_puts(out, "{\"entity\":");
    write_uuid(out, &f->entity);
    buf_puts(out, ",\"attribute\":");
    json_write_string(out, f->attribute.as.str.ptr, f->attribute.as.str.len);
    buf_puts(out, ",\"value\":");
    json_write_value(out, &f->v, 1);
    buf_printf(out,
               ",\"tx_count\":%" PRIu64 ",\"tx_id\":%" PRId64 ",\"valid_from\":%" PRId64
               ",\"valid_to\":%" PRId64 ",\"asserted\":%s}",
               f->tx_count, f->tx_id, f->valid_from, f->valid_to, f->asserted ? "true" : "false");
}

void json_write_columns(buf *out, const result_set *r) {
    buf_putc(out, '[');
    for (size_t c = 0; c < result_column_count(r); c++) {
        size_t len;
        const char *name = result_column_name(r, c, &len);
        if (c)
            buf_putc(out, ',');
        json_write_string(out, name, len);
    }
    buf_putc(out, ']');
}

/* The most a plain cell of a fixed-width type takes (a quoted UUID). */
#define FIXED_CELL_MAX (UUID_TEXT_LEN + 2)

/* The types whose plain JSON fits in FIXED_CELL_MAX bytes. */
#define FIXED_TYPES (1u << VT_INTEGER | 1u << VT_REF | 1u << VT_BOOLEAN | 1u << VT_NULL)

/* "true" or "false" at `text`: returns the end. */
static char *put_boolean(char *text, bool b) {
    memcpy(text, b ? "true" : "false", 5); /* "true" with its NUL: one copy of 5 */
    return text + 5 - b;
}

/* Writes a fixed-width value's plain JSON at `text`: returns the end. */
static char *put_fixed(char *text, const value *v) {
    if (v->type == VT_INTEGER) /* the commonest first */
        return put_integer(text, v->as.i);
    if (v->type == VT_REF)
        return put_uuid(text, &v->as.ref);
    if (v->type == VT_BOOLEAN)
        return put_boolean(text, v->as.b);
    memcpy(text, "null", 4);
    return text + 4;
}

/* Rows are most of a large answer: room for the rest of the block is
 * taken at once, as if every cell were of fixed width, and such cells
 * are written into it without the per-value dispatch; another cell is
 * appended as a value, and room taken again for the cells after it. The
 * cells are walked as one run, a row's end known by a count. */
void json_write_row_block(buf *out, const value *rows, size_t n, size_t columns, int typed,
                          char lead) {
    size_t room = 3 + columns * (FIXED_CELL_MAX + 1);
    unsigned fixed = typed ? 0 : FIXED_TYPES;
    char *text = buf_space(out, room * n), *at = text;
    if (!text || n == 0)
        return;
    *at = lead;
    at += lead != '\0';
    *at++ = '[';
    if (columns == 0) { /* an empty :find: empty rows */
        for (size_t i = 1; i < n; i++, at += 3)
            memcpy(at, "],[", 3);
        *at++ = ']';
        buf_commit(out, (size_t)(at - text));
        return;
    }
    const value *v = rows, *end = rows + n * columns;
    for (size_t c = 1;; c++, v++) {
        if ((fixed >> v->type) & 1u) {
            at = put_fixed(at, v);
        } else {
            buf_commit(out, (size_t)(at - text));
            json_write_value(out, v, typed);
            if (!(text = at = buf_space(out, room * (size_t)(end - v) / columns + room)))
                return;
        }
        if (c < columns) {
            *at++ = ',';
            continue;
        }
        *at++ = ']';
        if (v + 1 == end)
            break;
        memcpy(at, ",[", 2);
        at += 2;
        c = 0;
    }
    buf_commit(out, (size_t)(at - text));
}

void json_write_row(buf *out, const value *row, size_t columns, int typed) {
    json_write_row_block(out, row, 1, columns, typed, '\0');
}

void json_write_rows(buf *out, const result_set *r, size_t first, size_t count, int typed) {
    buf_putc(out, '[');
    for (size_t i = 0; i < count; i++) {
        if (i)
            buf_putc(out, ',');
        json_write_row(out, result_row(r, first + i), result_column_count(r), typed);
    }
    buf_putc(out, ']');
}
