/*
 * value.c — reading the library's typed JSON and writing values as text.
 *
 * Queries are read through a cursor in MINIGRAF_FORMAT_TYPED, so each value
 * arrives as {"type":"keyword","value":":a"}; a small scanner reads just the
 * JSON the library produces (arrays of rows of such objects, the column-name
 * array of minigraf_cursor_vars, the introspection objects). Each output
 * mode then writes a value in one of these notations:
 *
 *   VALUE_REFERENCE  language.md §18: "text" (no escaping), 95, 0.0000001, NaN, inf,
 *                    #uuid 550e…, :kw, nil, lists as ["eng" 42]
 *   VALUE_ESCAPED    the same with string escapes (\n \t \" \\ \uXXXX), so a
 *                    value never breaks a table's lines or columns
 *   VALUE_EDN        valid EDN: #uuid "…", 95.0, ##NaN, ##Inf
 *   VALUE_PLAIN      csv/tsv: the bare text of a string, keyword or UUID,
 *                    floats in their JSON form
 * and value_json writes the JSON of minigraf_execute (lossy: :kw is a
 * string) or the lossless typed object.
 */
#include <stdlib.h>
#include <string.h>

#include "shell.h"

/* ---- a growable string -------------------------------------------------- */

/* The shell is a program, not a library: running out of memory ends it
 * with a message, and every growth goes through here. */
void *shell_realloc(void *block, size_t size) {
    void *grown = realloc(block, size ? size : 1);
    if (grown == NULL) {
        fputs("minigraf: out of memory\n", stderr);
        exit(1);
    }
    return grown;
}

void text_add(text *t, const char *bytes, size_t len) {
    if (t->len + len + 1 > t->cap) {
        size_t cap = (t->len + len + 1) * 2;
        t->data = shell_realloc(t->data, cap);
        t->cap = cap;
    }
    memcpy(t->data + t->len, bytes, len);
    t->len += len;
    t->data[t->len] = '\0';
}

void text_puts(text *t, const char *s) {
    text_add(t, s, strlen(s));
}
void text_putc(text *t, char c) {
    text_add(t, &c, 1);
}

void text_clear(text *t) {
    t->len = 0;
    text_add(t, "", 0);
}

void text_free(text *t) {
    free(t->data);
    t->data = NULL;
    t->len = t->cap = 0;
}

/* ---- scanning the library's JSON ------------------------------------------ */

void scan_ws(scan *s) {
    while (*s->p == ' ' || *s->p == '\n' || *s->p == '\t' || *s->p == '\r')
        s->p++;
}

int scan_accept(scan *s, char c) {
    scan_ws(s);
    if (*s->p != c)
        return 0;
    s->p++;
    return 1;
}

static void put_utf8(text *t, unsigned long cp) {
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

static unsigned long hex4(const char *p) {
    char digits[5] = {0};
    for (int i = 0; i < 4 && p[i] != '\0'; i++)
        digits[i] = p[i];
    return strtoul(digits, NULL, 16);
}

/* Decodes a \uXXXX escape (s->p just after the 'u'), joining surrogates. */
static void scan_unicode_escape(scan *s, text *out) {
    unsigned long cp = hex4(s->p);
    for (int i = 0; i < 4 && *s->p != '\0'; i++)
        s->p++;
    if (cp >= 0xD800 && cp <= 0xDBFF && s->p[0] == '\\' && s->p[1] == 'u') {
        unsigned long lo = hex4(s->p + 2);
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        s->p += 6;
    }
    put_utf8(out, cp);
}

void scan_string(scan *s, text *out) {
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    text_clear(out);
    scan_ws(s);
    if (*s->p != '"')
        return;
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
static void scan_token(scan *s, text *out) {
    const char *start = s->p;
    while (*s->p && strchr(",]} \n\t\r", *s->p) == NULL)
        s->p++;
    text_clear(out);
    text_add(out, start, (size_t)(s->p - start));
}

void scan_skip_value(scan *s) {
    scan_ws(s);
    if (*s->p == '"') {
        text junk = {0};
        scan_string(s, &junk);
        text_free(&junk);
    } else if (*s->p == '[' || *s->p == '{') {
        int depth = 0, in_string = 0;
        for (; *s->p != '\0'; s->p++) {
            char c = *s->p;
            if (in_string) {
                if (c == '\\' && s->p[1] != '\0')
                    s->p++;
                else if (c == '"')
                    in_string = 0;
            } else if (c == '"') {
                in_string = 1;
            } else if (c == '[' || c == '{') {
                depth++;
            } else if ((c == ']' || c == '}') && --depth == 0) {
                s->p++;
                return;
            }
        }
    } else {
        while (*s->p && strchr(",]} \n\t\r", *s->p) == NULL)
            s->p++;
    }
}

static value_type type_of(const char *name) {
    static const char *const names[] = {"null",    "string",  "integer", "float",
                                        "boolean", "keyword", "ref",     "list"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return (value_type)i;
    return VT_UNKNOWN;
}

int scan_cell(scan *s, cell *c) {
    text key = {0};
    int rc = 0;
    text_clear(&c->value);
    c->type = VT_UNKNOWN;
    c->value_is_string = 0;
    c->raw = NULL;
    c->raw_len = 0;
    if (!scan_accept(s, '{'))
        return -1;
    while (rc == 0 && !scan_accept(s, '}')) {
        scan_ws(s);
        if (*s->p != '"') {
            rc = -1;
            break;
        }
        scan_string(s, &key);
        if (!scan_accept(s, ':')) {
            rc = -1;
            break;
        }
        scan_ws(s);
        if (strcmp(key.data, "type") == 0) {
            text name = {0};
            scan_string(s, &name);
            c->type = type_of(name.data);
            text_free(&name);
        } else if (*s->p == '"') {
            c->value_is_string = 1;
            scan_string(s, &c->value);
        } else if (*s->p == '[' || *s->p == '{') {
            c->raw = s->p;
            scan_skip_value(s);
            c->raw_len = (size_t)(s->p - c->raw);
        } else {
            scan_token(s, &c->value);
        }
        scan_accept(s, ',');
    }
    text_free(&key);
    return rc;
}

void cell_free(cell *c) {
    text_free(&c->value);
}

/* ---- floats --------------------------------------------------------------- */

/* A float's JSON token as plain decimal: no exponent, no trailing ".0". */
static void float_decimal(text *out, const char *token) {
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

/* NaN / Infinity / -Infinity arrive as strings; `names` gives their
 * spelling in the notation (NaN, inf, -inf or ##NaN, ##Inf, ##-Inf). */
static void float_special(text *out, const char *v, const char *const names[3]) {
    text_puts(out, strcmp(v, "Infinity") == 0    ? names[1]
                   : strcmp(v, "-Infinity") == 0 ? names[2]
                                                 : names[0]);
}

/* ---- strings -------------------------------------------------------------- */

/* A string with EDN/JSON escapes for quotes, backslashes and control
 * characters (so a table cell stays on one line). */
static void string_escaped(text *out, const char *v, size_t len) {
    text_putc(out, '"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)v[i];
        const char *esc = c == '"'    ? "\\\""
                          : c == '\\' ? "\\\\"
                          : c == '\n' ? "\\n"
                          : c == '\t' ? "\\t"
                          : c == '\r' ? "\\r"
                                      : NULL;
        if (esc != NULL) {
            text_puts(out, esc);
        } else if (c < 0x20 || c == 0x7F) {
            char u[8];
            snprintf(u, sizeof u, "\\u%04x", c);
            text_puts(out, u);
        } else {
            text_putc(out, (char)c);
        }
    }
    text_putc(out, '"');
}

/* ---- one value ------------------------------------------------------------ */

static void list_render(text *out, const cell *c, value_notation how, const char *nullvalue);

void value_render(text *out, const cell *c, value_notation how, const char *nullvalue) {
    static const char *const ref_names[3] = {"NaN", "inf", "-inf"};
    static const char *const edn_names[3] = {"##NaN", "##Inf", "##-Inf"};
    const char *v = c->value.data ? c->value.data : "";
    size_t len = c->value.len;
    switch (c->type) {
    case VT_STRING:
        if (how == VALUE_REFERENCE) {
            text_putc(out, '"');
            text_add(out, v, len);
            text_putc(out, '"');
        } else if (how == VALUE_PLAIN) {
            text_add(out, v, len);
        } else {
            string_escaped(out, v, len);
        }
        break;
    case VT_FLOAT:
        if (c->value_is_string)
            float_special(out, v, how == VALUE_EDN ? edn_names : ref_names);
        else if (how == VALUE_REFERENCE || how == VALUE_ESCAPED)
            float_decimal(out, v);
        else
            text_add(out, v, len);
        break;
    case VT_REF:
        if (how == VALUE_PLAIN)
            text_add(out, v, len);
        else if (how == VALUE_EDN)
            text_puts(out, "#uuid "), string_escaped(out, v, len);
        else
            text_puts(out, "#uuid "), text_add(out, v, len);
        break;
    case VT_NULL: text_puts(out, how == VALUE_EDN || nullvalue == NULL ? "nil" : nullvalue); break;
    case VT_LIST: list_render(out, c, how, nullvalue); break;
    case VT_TEXT:
        if (how == VALUE_EDN)
            string_escaped(out, v, len);
        else
            text_add(out, v, len);
        break;
    case VT_KEYWORD:
        if (how == VALUE_EDN && (len == 0 || v[0] != ':'))
            text_putc(out, ':');
        /* fall through */
    default: /* integer, boolean, keyword: the value's text as it is */
        text_add(out, v, len);
        break;
    }
}

/* A list (collect-set) in EDN-style brackets, its items in the same
 * notation: ["eng" 42]. */
static void list_render(text *out, const cell *c, value_notation how, const char *nullvalue) {
    if (c->raw == NULL) {
        text_puts(out, "[]");
        return;
    }
    char *copy = malloc(c->raw_len + 1);
    if (copy == NULL)
        return;
    memcpy(copy, c->raw, c->raw_len);
    copy[c->raw_len] = '\0';
    scan s = {copy};
    cell item = {0};
    text_putc(out, '[');
    scan_accept(&s, '[');
    for (size_t i = 0; !scan_accept(&s, ']') && scan_cell(&s, &item) == 0; i++) {
        if (i > 0)
            text_putc(out, ' ');
        value_render(out, &item, how == VALUE_PLAIN ? VALUE_ESCAPED : how, nullvalue);
        scan_accept(&s, ',');
    }
    text_putc(out, ']');
    cell_free(&item);
    free(copy);
}

/* JSON forms: plain (as minigraf_execute renders values) or typed. */
void value_json(text *out, const cell *c, int typed) {
    static const char *const type_names[] = {"null",    "string",  "integer", "float",
                                             "boolean", "keyword", "ref",     "list"};
    const char *v = c->value.data ? c->value.data : "";
    if (typed && c->type < VT_UNKNOWN) {
        text_puts(out, "{\"type\":\"");
        text_puts(out, type_names[c->type]);
        text_puts(out, "\",\"value\":");
    }
    if (c->type == VT_LIST) {
        if (!typed) {
            /* the items in plain JSON: re-read them */
            char *copy = malloc(c->raw_len + 1);
            if (copy != NULL) {
                memcpy(copy, c->raw ? c->raw : "[]", c->raw ? c->raw_len : 2);
                copy[c->raw ? c->raw_len : 2] = '\0';
                scan s = {copy};
                cell item = {0};
                text_putc(out, '[');
                scan_accept(&s, '[');
                for (size_t i = 0; !scan_accept(&s, ']') && scan_cell(&s, &item) == 0; i++) {
                    if (i > 0)
                        text_putc(out, ',');
                    value_json(out, &item, 0);
                    scan_accept(&s, ',');
                }
                text_putc(out, ']');
                cell_free(&item);
                free(copy);
            }
        } else {
            text_add(out, c->raw ? c->raw : "[]", c->raw ? c->raw_len : 2);
        }
    } else if (c->type == VT_NULL || (c->type == VT_FLOAT && c->value_is_string && !typed)) {
        text_puts(out, "null");
    } else if (c->value_is_string) {
        string_escaped(out, v, c->value.len);
    } else {
        text_add(out, v, c->value.len);
    }
    if (typed && c->type < VT_UNKNOWN)
        text_putc(out, '}');
}

size_t text_width(const char *s, size_t len) {
    size_t w = 0;
    for (size_t i = 0; i < len; i++)
        w += ((unsigned char)s[i] & 0xC0) != 0x80;
    return w;
}
