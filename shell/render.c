/*
 * render.c — how the shell prints results (spec section 18).
 *
 * Queries are read through a cursor in MINIGRAF_FORMAT_TYPED, so each value
 * arrives as {"type":"keyword","value":":a"} and renders by its type:
 *
 *   string "text" (quotes added, no escaping)   integer 42
 *   float 95 / 10.5 / 0.0000001 / NaN / inf     boolean true
 *   ref #uuid 550e8400-…                        keyword :a      null nil
 *   list (collect-set) ["eng" 42] — its items rendered the same way
 *
 * A small scanner below reads just the JSON the library produces: arrays of
 * rows of such objects, and the column-name array of minigraf_cursor_vars.
 */
#include <stdlib.h>
#include <string.h>

#include "shell.h"

enum { BATCH_ROWS = 256 };

/* ---- a growable string -------------------------------------------------- */

typedef struct text {
    char *data;
    size_t len, cap;
} text;

static void text_add(text *t, const char *bytes, size_t len)
{
    if (t->len + len + 1 > t->cap) {
        t->cap = (t->len + len + 1) * 2;
        t->data = realloc(t->data, t->cap);
    }
    memcpy(t->data + t->len, bytes, len);
    t->len += len;
    t->data[t->len] = '\0';
}

static void text_putc(text *t, char c) { text_add(t, &c, 1); }
static void text_clear(text *t) { t->len = 0; if (t->data) t->data[0] = '\0'; }

/* ---- scanning the library's JSON ------------------------------------------ */

typedef struct scan {
    const char *p;
} scan;

static void skip_ws(scan *s)
{
    while (*s->p == ' ' || *s->p == '\n' || *s->p == '\t' || *s->p == '\r')
        s->p++;
}

/* Consumes `c` (after whitespace) if it is next; returns whether it was. */
static int accept(scan *s, char c)
{
    skip_ws(s);
    if (*s->p != c)
        return 0;
    s->p++;
    return 1;
}

static void put_utf8(text *t, unsigned long cp)
{
    char u[4];
    size_t n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    static const unsigned char lead[] = {0, 0, 0xC0, 0xE0, 0xF0};
    for (size_t i = n - 1; i > 0; i--) {
        u[i] = (char)(0x80 | (cp & 0x3F));
        cp >>= 6;
    }
    u[0] = (char)(n == 1 ? cp : (lead[n] | cp));
    text_add(t, u, n);
}

static unsigned long hex4(const char *p)
{
    char digits[5] = {0};
    memcpy(digits, p, 4);
    return strtoul(digits, NULL, 16);
}

/* Decodes a \uXXXX escape (s->p just after the 'u'), joining surrogates. */
static void scan_unicode_escape(scan *s, text *out)
{
    unsigned long cp = hex4(s->p);
    s->p += 4;
    if (cp >= 0xD800 && cp <= 0xDBFF && s->p[0] == '\\' && s->p[1] == 'u') {
        unsigned long lo = hex4(s->p + 2);
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        s->p += 6;
    }
    put_utf8(out, cp);
}

/* Reads a JSON string (s->p on the quote) into `out`, decoded. */
static void scan_string(scan *s, text *out)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    text_clear(out);
    text_add(out, "", 0);
    s->p++;
    while (*s->p != '"' && *s->p != '\0') {
        if (*s->p != '\\') {
            text_putc(out, *s->p++);
            continue;
        }
        s->p++;
        if (*s->p == 'u') {
            s->p++;
            scan_unicode_escape(s, out);
        } else if (*s->p != '\0') {
            const char *k = strchr(from, *s->p++);
            text_putc(out, k ? to[k - from] : '?');
        }
    }
    if (*s->p == '"')
        s->p++;
}

/* Reads a bare token (number, true, false, null) into `out`. */
static void scan_token(scan *s, text *out)
{
    const char *start = s->p;
    while (*s->p && strchr(",]} \n\t\r", *s->p) == NULL)
        s->p++;
    text_clear(out);
    text_add(out, start, (size_t)(s->p - start));
}

/* One typed value: its "type" and "value" (decoded string or raw token). */
typedef struct cell {
    text type, value;
    int value_is_string;
} cell;

static void render_cell(text *out, const cell *c);
static int scan_cell(scan *s, cell *c, text *key);

/* A list's value (collect-set): an array of typed items, rendered right
 * away into `out` as an EDN-style vector, e.g. ["eng" "hr"]. */
static int scan_list(scan *s, text *out)
{
    cell item = {{0}, {0}, 0};
    text key = {0};
    int rc = 0;
    text_clear(out);
    text_putc(out, '[');
    accept(s, '[');
    for (size_t i = 0; rc == 0 && !accept(s, ']'); i++) {
        rc = scan_cell(s, &item, &key);
        if (rc == 0 && i > 0)
            text_putc(out, ' ');
        if (rc == 0)
            render_cell(out, &item);
        accept(s, ',');
    }
    text_putc(out, ']');
    free(item.type.data);
    free(item.value.data);
    free(key.data);
    return rc;
}

/* Reads {"type":...,"value":...}; returns 0, or -1 on unexpected input. */
static int scan_cell(scan *s, cell *c, text *key)
{
    text_clear(&c->value);
    c->value_is_string = 0;
    if (!accept(s, '{'))
        return -1;
    while (!accept(s, '}')) {
        skip_ws(s);
        if (*s->p != '"')
            return -1;
        scan_string(s, key);
        if (!accept(s, ':'))
            return -1;
        skip_ws(s);
        text *dest = strcmp(key->data, "type") == 0 ? &c->type : &c->value;
        int is_string = *s->p == '"';
        if (is_string) {
            scan_string(s, dest);
        } else if (*s->p == '[') {
            if (scan_list(s, dest) != 0)
                return -1;
        } else {
            scan_token(s, dest);
        }
        if (dest == &c->value)
            c->value_is_string = is_string;
        accept(s, ',');
    }
    return 0;
}

/* ---- values ------------------------------------------------------------------ */

/* A float's JSON token as plain decimal: no exponent, no trailing ".0". */
static void render_float_token(text *out, const char *token)
{
    char digits[800];
    size_t n = 0;
    long frac = 0, exp = 0, in_frac = 0;
    int negative = *token == '-';
    for (const char *p = token + negative; *p && *p != 'e' && *p != 'E'; p++) {
        if (*p == '.') {
            in_frac = 1;
        } else {
            if ((n > 0 || *p != '0') && n < sizeof digits)
                digits[n++] = *p;
            frac += in_frac;
        }
    }
    const char *e = strpbrk(token, "eE");
    if (e != NULL)
        exp = strtol(e + 1, NULL, 10);
    long power = exp - frac;
    while (n > 0 && digits[n - 1] == '0') {
        n--;
        power++;
    }
    if (negative)
        text_putc(out, '-');
    if (n == 0) {
        text_putc(out, '0');
        return;
    }
    long point = (long)n + power; /* digits before the decimal point */
    if (point <= 0) {
        text_add(out, "0.", 2);
        for (long i = point; i < 0; i++)
            text_putc(out, '0');
        text_add(out, digits, n);
    } else if (point >= (long)n) {
        text_add(out, digits, n);
        for (long i = (long)n; i < point; i++)
            text_putc(out, '0');
    } else {
        text_add(out, digits, (size_t)point);
        text_putc(out, '.');
        text_add(out, digits + point, n - (size_t)point);
    }
}

static void render_float(text *out, const cell *c)
{
    if (!c->value_is_string)
        render_float_token(out, c->value.data);
    else if (strcmp(c->value.data, "Infinity") == 0)
        text_add(out, "inf", 3);
    else if (strcmp(c->value.data, "-Infinity") == 0)
        text_add(out, "-inf", 4);
    else
        text_add(out, "NaN", 3);
}

/* Appends the REPL rendering of one typed value. */
static void render_cell(text *out, const cell *c)
{
    const char *type = c->type.data ? c->type.data : "";
    if (strcmp(type, "string") == 0) {
        text_putc(out, '"');
        text_add(out, c->value.data, c->value.len);
        text_putc(out, '"');
    } else if (strcmp(type, "float") == 0) {
        render_float(out, c);
    } else if (strcmp(type, "ref") == 0) {
        text_add(out, "#uuid ", 6);
        text_add(out, c->value.data, c->value.len);
    } else if (strcmp(type, "null") == 0) {
        text_add(out, "nil", 3);
    } else { /* integer, boolean, keyword, list: the value's text as it is */
        text_add(out, c->value.data ? c->value.data : "", c->value.len);
    }
}

/* ---- output ------------------------------------------------------------------ */

void render_execute_result(FILE *out, const char *json)
{
    static const struct { const char *key, *words; } writes[] = {
        {"{\"transacted\":", "Transacted"}, {"{\"retracted\":", "Retracted"}};
    for (size_t i = 0; i < 2; i++) {
        size_t klen = strlen(writes[i].key);
        if (strncmp(json, writes[i].key, klen) == 0) {
            size_t digits = strspn(json + klen, "0123456789");
            fprintf(out, "\xE2\x9C\x93 %s successfully (tx: %.*s)\n", writes[i].words,
                    (int)digits, json + klen);
            return;
        }
    }
    fputs("\xE2\x9C\x93 OK\n", out);
}

/* Prints the header: column names joined by TAB, then 20 dashes a column. */
static void print_header(FILE *out, const char *vars_json)
{
    scan s = {vars_json ? vars_json : "[]"};
    text name = {0};
    size_t columns = 0;
    accept(&s, '[');
    for (skip_ws(&s); *s.p == '"'; skip_ws(&s)) {
        scan_string(&s, &name);
        fprintf(out, "%s%s", columns++ ? "\t" : "", name.data);
        accept(&s, ',');
    }
    fputc('\n', out);
    for (size_t i = 0; i < columns * 20; i++)
        fputc('-', out);
    fputc('\n', out);
    free(name.data);
}

/* Prints every row of one typed batch; returns the number of rows. */
static size_t print_batch(FILE *out, const char *batch)
{
    scan s = {batch};
    cell c = {{0}, {0}, 0};
    text key = {0}, line = {0};
    size_t rows = 0;
    accept(&s, '[');
    while (accept(&s, '[')) {
        text_clear(&line);
        text_add(&line, "", 0);
        for (size_t i = 0; !accept(&s, ']'); i++) {
            if (scan_cell(&s, &c, &key) != 0)
                break;
            if (i > 0)
                text_putc(&line, '\t');
            render_cell(&line, &c);
            accept(&s, ',');
        }
        fprintf(out, "%s\n", line.data);
        rows++;
        accept(&s, ',');
    }
    free(c.type.data);
    free(c.value.data);
    free(key.data);
    free(line.data);
    return rows;
}

int render_cursor(FILE *out, MiniGrafCursor *cursor)
{
    size_t rows = 0;
    char *batch;
    minigraf_cursor_set_format(cursor, MINIGRAF_FORMAT_TYPED);
    while ((batch = minigraf_cursor_next_batch(cursor, BATCH_ROWS)) != NULL) {
        if (rows == 0) {
            char *vars = minigraf_cursor_vars(cursor);
            print_header(out, vars);
            minigraf_string_free(vars);
        }
        rows += print_batch(out, batch);
        minigraf_string_free(batch);
    }
    if (minigraf_cursor_last_error(cursor) != NULL) {
        fprintf(stderr, "Error: %s\n", minigraf_cursor_last_error(cursor));
        return -1;
    }
    if (rows == 0)
        fputs("No results found.\n", out);
    else
        fprintf(out, "\n%zu result(s) found.\n", rows);
    return 0;
}
