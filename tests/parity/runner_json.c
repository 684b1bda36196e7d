/* runner_json.c — JSON reader and canonical writer of the C parity runner. */
#include "runner_json.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- buffers -------------------------------------------------------------- */

void sb_add(sbuf *b, const char *bytes, size_t len) {
    if (b->len + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + len + 1)
            cap *= 2;
        b->data = realloc(b->data, cap);
        b->cap = cap;
    }
    memcpy(b->data + b->len, bytes, len);
    b->len += len;
    b->data[b->len] = '\0';
}

void sb_puts(sbuf *b, const char *s) {
    sb_add(b, s, strlen(s));
}
void sb_putc(sbuf *b, char c) {
    sb_add(b, &c, 1);
}

void sb_free(sbuf *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

/* ---- reader ---------------------------------------------------------------- */

typedef struct reader {
    const char *p;
} reader;

static void skip_ws(reader *r) {
    while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')
        r->p++;
}

static int parse_value(reader *r, jv *out, int depth);

static int hex4(const char *p, unsigned *out) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

static void put_utf8(sbuf *b, unsigned cp) {
    char u[4];
    if (cp < 0x80) {
        sb_putc(b, (char)cp);
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3F));
        sb_add(b, u, 2);
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
        sb_add(b, u, 3);
    } else {
        u[0] = (char)(0xF0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (char)(0x80 | (cp & 0x3F));
        sb_add(b, u, 4);
    }
}

/* Decodes \uXXXX (with a following low surrogate when needed). */
static int parse_unicode_escape(reader *r, sbuf *b) {
    unsigned cp, lo;
    if (hex4(r->p, &cp) != 0)
        return -1;
    r->p += 4;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        if (r->p[0] != '\\' || r->p[1] != 'u' || hex4(r->p + 2, &lo) != 0 || lo < 0xDC00 ||
            lo > 0xDFFF)
            return -1;
        r->p += 6;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    }
    put_utf8(b, cp);
    return 0;
}

static int parse_escape(reader *r, sbuf *b) {
    char c = *r->p++;
    switch (c) {
    case '"': sb_putc(b, '"'); return 0;
    case '\\': sb_putc(b, '\\'); return 0;
    case '/': sb_putc(b, '/'); return 0;
    case 'b': sb_putc(b, '\b'); return 0;
    case 'f': sb_putc(b, '\f'); return 0;
    case 'n': sb_putc(b, '\n'); return 0;
    case 'r': sb_putc(b, '\r'); return 0;
    case 't': sb_putc(b, '\t'); return 0;
    case 'u': return parse_unicode_escape(r, b);
    default: return -1;
    }
}

/* Parses a string at r->p (on the opening quote) into *out / *len. */
static int parse_string_raw(reader *r, char **out, size_t *len) {
    sbuf b = {0};
    r->p++;
    sb_add(&b, "", 0);
    while (*r->p != '"') {
        if (*r->p == '\0' || (unsigned char)*r->p < 0x20) {
            sb_free(&b);
            return -1;
        }
        if (*r->p == '\\') {
            r->p++;
            if (parse_escape(r, &b) != 0) {
                sb_free(&b);
                return -1;
            }
        } else {
            sb_putc(&b, *r->p++);
        }
    }
    r->p++;
    *out = b.data;
    *len = b.len;
    return 0;
}

static int parse_number(reader *r, jv *out) {
    const char *start = r->p;
    if (*r->p == '-')
        r->p++;
    if (*r->p < '0' || *r->p > '9')
        return -1;
    while ((*r->p >= '0' && *r->p <= '9') || *r->p == '.' || *r->p == 'e' || *r->p == 'E' ||
           *r->p == '+' || *r->p == '-')
        r->p++;
    out->kind = JV_NUMBER;
    out->len = (size_t)(r->p - start);
    out->text = malloc(out->len + 1);
    memcpy(out->text, start, out->len);
    out->text[out->len] = '\0';
    return 0;
}

static int parse_literal(reader *r, jv *out) {
    static const struct {
        const char *word;
        jv_kind kind;
    } words[] = {{"null", JV_NULL}, {"true", JV_TRUE}, {"false", JV_FALSE}};
    for (size_t i = 0; i < 3; i++) {
        size_t n = strlen(words[i].word);
        if (strncmp(r->p, words[i].word, n) == 0) {
            r->p += n;
            out->kind = words[i].kind;
            return 0;
        }
    }
    return -1;
}

/* Appends one more slot to an array/object and returns it. */
static jv *grow(jv *v, int with_key) {
    v->items = realloc(v->items, (v->count + 1) * sizeof *v->items);
    if (with_key)
        v->keys = realloc(v->keys, (v->count + 1) * sizeof *v->keys);
    memset(&v->items[v->count], 0, sizeof *v->items);
    return &v->items[v->count];
}

static int parse_members(reader *r, jv *out, int depth, int object) {
    char close = object ? '}' : ']';
    r->p++;
    skip_ws(r);
    if (*r->p == close) {
        r->p++;
        return 0;
    }
    for (;;) {
        jv *slot = grow(out, object);
        if (object) {
            size_t klen;
            skip_ws(r);
            if (*r->p != '"' || parse_string_raw(r, &out->keys[out->count], &klen) != 0)
                return -1;
            skip_ws(r);
            if (*r->p++ != ':') {
                out->count++;
                return -1;
            }
        }
        out->count++;
        if (parse_value(r, slot, depth + 1) != 0)
            return -1;
        skip_ws(r);
        if (*r->p == close) {
            r->p++;
            return 0;
        }
        if (*r->p++ != ',')
            return -1;
    }
}

static int parse_value(reader *r, jv *out, int depth) {
    skip_ws(r);
    if (depth > 200)
        return -1;
    switch (*r->p) {
    case '{': out->kind = JV_OBJECT; return parse_members(r, out, depth, 1);
    case '[': out->kind = JV_ARRAY; return parse_members(r, out, depth, 0);
    case '"': out->kind = JV_STRING; return parse_string_raw(r, &out->text, &out->len);
    case 'n':
    case 't':
    case 'f': return parse_literal(r, out);
    default: return parse_number(r, out);
    }
}

int jv_parse(const char *text, jv *out) {
    reader r = {text};
    memset(out, 0, sizeof *out);
    if (parse_value(&r, out, 0) != 0) {
        jv_free(out);
        return -1;
    }
    skip_ws(&r);
    if (*r.p != '\0') {
        jv_free(out);
        return -1;
    }
    return 0;
}

void jv_free(jv *v) {
    for (size_t i = 0; i < v->count; i++) {
        jv_free(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->text);
    memset(v, 0, sizeof *v);
}

const jv *jv_get(const jv *object, const char *key) {
    if (object == NULL || object->kind != JV_OBJECT)
        return NULL;
    for (size_t i = 0; i < object->count; i++)
        if (object->keys[i] && strcmp(object->keys[i], key) == 0)
            return &object->items[i];
    return NULL;
}

/* ---- canonical writer --------------------------------------------------- */

void canon_string(sbuf *b, const char *s, size_t len) {
    static const char hex[] = "0123456789abcdef";
    sb_putc(b, '"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            sb_putc(b, '\\');
            sb_putc(b, (char)c);
        } else if (c < 0x20) {
            char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            sb_add(b, esc, 6);
        } else {
            sb_putc(b, (char)c);
        }
    }
    sb_putc(b, '"');
}

/* A number token split into significant digits and a power of ten:
 * value = sign × digits × 10^power, digits without leading/trailing zeros. */
typedef struct decimal {
    int negative;
    char digits[800];
    size_t n;
    long power;
} decimal;

static void decimal_from_token(const char *t, decimal *d) {
    long frac = 0, exp = 0;
    int in_frac = 0;
    memset(d, 0, sizeof *d);
    if (*t == '-') {
        d->negative = 1;
        t++;
    }
    for (; *t && *t != 'e' && *t != 'E'; t++) {
        if (*t == '.') {
            in_frac = 1;
            continue;
        }
        if ((d->n > 0 || *t != '0') && d->n < sizeof d->digits - 1)
            d->digits[d->n++] = *t;
        frac += in_frac;
    }
    if (*t == 'e' || *t == 'E')
        exp = strtol(t + 1, NULL, 10);
    d->power = exp - frac;
    while (d->n > 0 && d->digits[d->n - 1] == '0') {
        d->n--;
        d->power++;
    }
    d->digits[d->n] = '\0';
}

/* Whether the (integral, power >= 0) decimal fits a signed 64-bit integer. */
static int decimal_fits_int64(const decimal *d) {
    const char *limit = d->negative ? "9223372036854775808" : "9223372036854775807";
    size_t width = d->n + (size_t)d->power;
    if (width != 19)
        return width < 19;
    char full[20];
    memcpy(full, d->digits, d->n);
    memset(full + d->n, '0', (size_t)d->power);
    full[19] = '\0';
    return strcmp(full, limit) <= 0;
}

void canon_number(sbuf *b, const char *token) {
    decimal d;
    decimal_from_token(token, &d);
    if (d.n == 0) {
        sb_putc(b, '0');
        return;
    }
    if (d.negative)
        sb_putc(b, '-');
    if (d.power >= 0 && d.power < 20 && decimal_fits_int64(&d)) {
        sb_add(b, d.digits, d.n);
        for (long i = 0; i < d.power; i++)
            sb_putc(b, '0');
        return;
    }
    char exp[32];
    sb_putc(b, d.digits[0]);
    if (d.n > 1) {
        sb_putc(b, '.');
        sb_add(b, d.digits + 1, d.n - 1);
    }
    snprintf(exp, sizeof exp, "e%ld", d.power + (long)d.n - 1);
    sb_puts(b, exp);
}

void canon_value(sbuf *b, const jv *v) {
    switch (v->kind) {
    case JV_NULL: sb_puts(b, "null"); return;
    case JV_TRUE: sb_puts(b, "true"); return;
    case JV_FALSE: sb_puts(b, "false"); return;
    case JV_NUMBER: canon_number(b, v->text); return;
    case JV_STRING: canon_string(b, v->text, v->len); return;
    case JV_ARRAY:
    case JV_OBJECT:
        sb_putc(b, v->kind == JV_ARRAY ? '[' : '{');
        for (size_t i = 0; i < v->count; i++) {
            if (i > 0)
                sb_putc(b, ',');
            if (v->kind == JV_OBJECT) {
                canon_string(b, v->keys[i], strlen(v->keys[i]));
                sb_putc(b, ':');
            }
            canon_value(b, &v->items[i]);
        }
        sb_putc(b, v->kind == JV_ARRAY ? ']' : '}');
        return;
    }
}
