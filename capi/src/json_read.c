#include "json_read.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
    const char *p;
    const char *what;
    arena *a;
    err *e;
    int depth;
} parser;

static int fail(parser *ps, const char *why) {
    return err_set(ps->e, ERR(API, 17), "invalid %s JSON: %s", ps->what, why);
}

static int out_of_memory(parser *ps) {
    return err_set(ps->e, ERR(INT, 0), "out of memory");
}

static void skip_space(parser *ps) {
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
        ps->p++;
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Reads the 4 hex digits after "\u". */
static int read_hex4(parser *ps, uint32_t *out) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        int d = hex_digit(ps->p[i]);
        if (d < 0)
            return fail(ps, "bad \\u escape");
        v = v * 16 + (uint32_t)d;
    }
    ps->p += 4;
    *out = v;
    return 0;
}

static size_t put_utf8(char *out, uint32_t cp) {
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* A \uXXXX escape (ps->p after the 'u'), pairing surrogates. */
static int read_unicode_escape(parser *ps, uint32_t *cp) {
    int rc = read_hex4(ps, cp);
    if (rc != 0 || *cp < 0xD800 || *cp > 0xDFFF)
        return rc;
    if (*cp >= 0xDC00 || ps->p[0] != '\\' || ps->p[1] != 'u')
        return fail(ps, "unpaired surrogate in \\u escape");
    ps->p += 2;
    uint32_t low = 0;
    rc = read_hex4(ps, &low);
    if (rc == 0 && (low < 0xDC00 || low > 0xDFFF))
        return fail(ps, "unpaired surrogate in \\u escape");
    *cp = 0x10000 + ((*cp - 0xD800) << 10) + (low - 0xDC00);
    return rc;
}

static int read_escape(parser *ps, char *out, size_t *n) {
    static const char plain[] = "\"\\/bfnrt", decoded[] = "\"\\/\b\f\n\r\t";
    char c = *ps->p++;
    const char *at = c ? strchr(plain, c) : NULL;
    if (at) {
        out[(*n)++] = decoded[at - plain];
        return 0;
    }
    if (c != 'u')
        return fail(ps, "bad escape in string");
    uint32_t cp = 0;
    int rc = read_unicode_escape(ps, &cp);
    if (rc == 0)
        *n += put_utf8(out + *n, cp);
    return rc;
}

/* A string at ps->p (on the opening quote), decoded into the arena. A
 * decoded string is never longer than its source, which sizes the copy. */
static int read_string(parser *ps, const char **text, size_t *len) {
    const char *end = ++ps->p;
    while (*end && *end != '"')
        end += *end == '\\' && end[1] ? 2 : 1;
    if (*end != '"')
        return fail(ps, "unterminated string");
    char *out = arena_alloc(ps->a, (size_t)(end - ps->p) + 1);
    if (!out)
        return out_of_memory(ps);
    size_t n = 0;
    while (*ps->p != '"') {
        unsigned char c = (unsigned char)*ps->p;
        if (c < 0x20)
            return fail(ps, "control character in string");
        ps->p++;
        if (c != '\\') {
            out[n++] = (char)c;
            continue;
        }
        int rc = read_escape(ps, out, &n);
        if (rc != 0)
            return rc;
    }
    ps->p++;
    out[n] = '\0';
    *text = out;
    *len = n;
    return 0;
}

static const char *skip_digits(const char *p) {
    while (*p >= '0' && *p <= '9')
        p++;
    return p;
}

static int read_number(parser *ps, json_node *n) {
    const char *start = ps->p, *p = ps->p;
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        p = skip_digits(p);
    else
        return fail(ps, "unexpected character");
    if (*p == '.') {
        if (skip_digits(p + 1) == p + 1)
            return fail(ps, "digits expected after '.'");
        p = skip_digits(p + 1);
    }
    if (*p == 'e' || *p == 'E') {
        p += p[1] == '+' || p[1] == '-' ? 2 : 1;
        if (skip_digits(p) == p)
            return fail(ps, "digits expected in exponent");
        p = skip_digits(p);
    }
    n->kind = JSON_NUMBER;
    n->len = (size_t)(p - start);
    n->text = arena_strndup(ps->a, start, n->len);
    ps->p = p;
    return n->text ? 0 : out_of_memory(ps);
}

static int read_literal(parser *ps, json_node *n) {
    static const struct {
        const char *word;
        json_kind kind;
        bool value;
    } words[] = {{"true", JSON_BOOL, true},
                 {"false", JSON_BOOL, false},
                 {"null", JSON_NULL, false}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t len = strlen(words[i].word);
        if (strncmp(ps->p, words[i].word, len) == 0) {
            n->kind = words[i].kind;
            n->boolean = words[i].value;
            ps->p += len;
            return 0;
        }
    }
    return read_number(ps, n);
}

static int read_value(parser *ps, json_node *n);

static json_node *new_node(parser *ps) {
    return arena_calloc(ps->a, 1, sizeof(json_node));
}

/* The members or items of an array or object, up to `close`. */
static int read_children(parser *ps, json_node *n, char close) {
    json_node **tail = &n->first;
    skip_space(ps);
    if (*ps->p == close) {
        ps->p++;
        return 0;
    }
    for (;;) {
        json_node *child = new_node(ps);
        if (!child)
            return out_of_memory(ps);
        int rc = 0;
        if (close == '}') {
            if (*ps->p != '"')
                return fail(ps, "member name expected");
            rc = read_string(ps, &child->key, &child->key_len);
            skip_space(ps);
            if (rc == 0 && *ps->p++ != ':')
                return fail(ps, "':' expected");
        }
        if (rc == 0)
            rc = read_value(ps, child);
        if (rc != 0)
            return rc;
        *tail = child;
        tail = &child->next;
        n->count++;
        skip_space(ps);
        if (*ps->p == close) {
            ps->p++;
            return 0;
        }
        if (*ps->p++ != ',')
            return fail(ps, close == '}' ? "',' or '}' expected" : "',' or ']' expected");
        skip_space(ps);
    }
}

static int key_order(const void *a, const void *b) {
    const json_node *x = *(const json_node *const *)a, *y = *(const json_node *const *)b;
    if (x->key_len != y->key_len)
        return x->key_len < y->key_len ? -1 : 1;
    return memcmp(x->key, y->key, x->key_len);
}

/* RFC 8259 leaves duplicate names undefined; a reader that kept the first
 * or the last would hide a mistake, so they are refused (sorted: objects
 * may be large). */
static int check_unique_keys(parser *ps, const json_node *object) {
    if (object->count < 2)
        return 0;
    const json_node **members = arena_alloc(ps->a, object->count * sizeof *members);
    if (!members)
        return out_of_memory(ps);
    size_t n = 0;
    for (const json_node *m = object->first; m; m = m->next)
        members[n++] = m;
    qsort(members, n, sizeof *members, key_order);
    for (size_t i = 1; i < n; i++)
        if (key_order(&members[i - 1], &members[i]) == 0)
            return err_set(ps->e, ERR(API, 17), "invalid %s JSON: duplicate member \"%.*s\"",
                           ps->what, (int)members[i]->key_len, members[i]->key);
    return 0;
}

static int read_value(parser *ps, json_node *n) {
    skip_space(ps);
    char c = *ps->p;
    if (c == '"') {
        n->kind = JSON_STRING;
        return read_string(ps, &n->text, &n->len);
    }
    if (c != '[' && c != '{')
        return c ? read_literal(ps, n) : fail(ps, "unexpected end of text");
    if (++ps->depth > JSON_MAX_DEPTH)
        return fail(ps, "nested too deeply");
    ps->p++;
    n->kind = c == '[' ? JSON_ARRAY : JSON_OBJECT;
    int rc = read_children(ps, n, c == '[' ? ']' : '}');
    if (rc == 0 && n->kind == JSON_OBJECT)
        rc = check_unique_keys(ps, n);
    ps->depth--;
    return rc;
}

int json_parse(const char *text, const char *what, arena *a, json_node **out, err *e) {
    parser ps = {text, what, a, e, 0};
    json_node *root = new_node(&ps);
    if (!root)
        return out_of_memory(&ps);
    int rc = read_value(&ps, root);
    if (rc != 0)
        return rc;
    skip_space(&ps);
    if (*ps.p != '\0')
        return fail(&ps, "trailing characters after the value");
    *out = root;
    return 0;
}

const json_node *json_member(const json_node *object, const char *key) {
    size_t len = strlen(key);
    for (const json_node *m = object->first; m; m = m->next)
        if (m->key_len == len && memcmp(m->key, key, len) == 0)
            return m;
    return NULL;
}

static bool is_integer_text(const json_node *n) {
    return n->kind == JSON_NUMBER && !strpbrk(n->text, ".eE");
}

bool json_as_int64(const json_node *n, int64_t *out) {
    if (!is_integer_text(n))
        return false;
    errno = 0;
    long long v = strtoll(n->text, NULL, 10);
    if (errno == ERANGE)
        return false;
    *out = v;
    return true;
}

bool json_as_uint64(const json_node *n, uint64_t *out) {
    if (!is_integer_text(n) || n->text[0] == '-')
        return false;
    errno = 0;
    unsigned long long v = strtoull(n->text, NULL, 10);
    if (errno == ERANGE)
        return false;
    *out = v;
    return true;
}

bool json_as_double(const json_node *n, double *out) {
    if (n->kind != JSON_NUMBER)
        return false;
    double v = strtod(n->text, NULL);
    if (isinf(v))
        return false;
    *out = v;
    return true;
}
