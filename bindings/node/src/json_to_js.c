/*
 * json_to_js.c — the library's JSON text straight into JS values.
 *
 * One recursive-descent pass, no intermediate tree. It differs from
 * JSON.parse in one way only: an integer token (no fraction, no exponent)
 * whose magnitude exceeds Number.MAX_SAFE_INTEGER (2^53 - 1) becomes a
 * BigInt holding it exactly, where JSON.parse would round it. Other numbers
 * become Numbers (strtod: correctly rounded); object members are defined,
 * not assigned, so a "__proto__" key is an ordinary property.
 *
 * Every array element and object member is built inside its own handle
 * scope, so a batch of a million values does not hold a million handles.
 * The input comes from the library and is expected to be valid; anything
 * else throws an Error instead of crashing.
 */
#include "addon.h"

#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MG_JSON_MAX_DEPTH 256
#define MG_MAX_SAFE_INTEGER 9007199254740991ULL /* 2^53 - 1 */

typedef struct reader {
    napi_env env;
    const char *start, *p, *end;
    int depth;
    char *buf; /* scratch for strings with escapes */
    size_t len, cap;
} reader;

static bool parse_value(reader *r, napi_value *out);

static bool fail(reader *r, const char *what) {
    char message[128];
    bool pending = false;
    napi_is_exception_pending(r->env, &pending);
    if (pending)
        return false; /* a Node-API call failed first: keep its error */
    snprintf(message, sizeof message,
             "minigraf: malformed JSON from the library (%s at offset %ld)", what,
             (long)(r->p - r->start));
    napi_throw_error(r->env, NULL, message);
    return false;
}

static void skip_space(reader *r) {
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

static bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

/* ---- strings --------------------------------------------------------------- */

static bool buf_push(reader *r, const char *bytes, size_t n) {
    if (r->len + n > r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 256;
        char *grown;
        while (cap < r->len + n)
            cap *= 2;
        grown = realloc(r->buf, cap);
        if (grown == NULL)
            return fail(r, "out of memory");
        r->buf = grown;
        r->cap = cap;
    }
    memcpy(r->buf + r->len, bytes, n);
    r->len += n;
    return true;
}

static bool push_code_point(reader *r, uint32_t cp) {
    char b[4];
    if (cp < 0x80) {
        b[0] = (char)cp;
        return buf_push(r, b, 1);
    }
    if (cp < 0x800) {
        b[0] = (char)(0xC0 | (cp >> 6));
        b[1] = (char)(0x80 | (cp & 0x3F));
        return buf_push(r, b, 2);
    }
    if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12));
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        return buf_push(r, b, 3);
    }
    b[0] = (char)(0xF0 | (cp >> 18));
    b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    b[3] = (char)(0x80 | (cp & 0x3F));
    return buf_push(r, b, 4);
}

/* Reads the 4 hex digits of a \u escape; r->p is after the 'u'. */
static bool read_hex4(reader *r, uint32_t *out) {
    uint32_t v = 0;
    if (r->end - r->p < 4)
        return fail(r, "short \\u escape");
    for (int i = 0; i < 4; i++) {
        char c = *r->p++;
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (uint32_t)(c - 'A' + 10);
        else
            return fail(r, "bad \\u escape");
    }
    *out = v;
    return true;
}

/* A \u escape, r->p after the 'u'. Surrogate pairs combine; a lone
 * surrogate becomes U+FFFD, as it would in any valid UTF-8. */
static bool read_unicode_escape(reader *r) {
    uint32_t cp, low;
    if (!read_hex4(r, &cp))
        return false;
    if (cp >= 0xD800 && cp <= 0xDBFF && r->end - r->p >= 6 && r->p[0] == '\\' && r->p[1] == 'u') {
        const char *save = r->p;
        r->p += 2;
        if (!read_hex4(r, &low))
            return false;
        if (low >= 0xDC00 && low <= 0xDFFF)
            return push_code_point(r, 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00));
        r->p = save; /* not a pair: the next escape stands alone */
    }
    if (cp >= 0xD800 && cp <= 0xDFFF)
        cp = 0xFFFD;
    return push_code_point(r, cp);
}

/* Reads a string token (r->p on the opening quote) into (*s, *n): a slice
 * of the input when it has no escapes, else r->buf. */
static bool read_string(reader *r, const char **s, size_t *n) {
    const char *run = ++r->p; /* start of the bytes not yet copied */
    bool escaped = false;
    r->len = 0;
    for (;;) {
        if (r->p >= r->end)
            return fail(r, "unterminated string");
        unsigned char c = (unsigned char)*r->p;
        if (c == '"')
            break;
        if (c < 0x20)
            return fail(r, "control character in string");
        if (c != '\\') {
            r->p++;
            continue;
        }
        escaped = true;
        if (!buf_push(r, run, (size_t)(r->p - run)))
            return false;
        if (r->end - r->p < 2)
            return fail(r, "unterminated escape");
        r->p += 2;
        switch (r->p[-1]) {
        case '"':
            if (!buf_push(r, "\"", 1))
                return false;
            break;
        case '\\':
            if (!buf_push(r, "\\", 1))
                return false;
            break;
        case '/':
            if (!buf_push(r, "/", 1))
                return false;
            break;
        case 'b':
            if (!buf_push(r, "\b", 1))
                return false;
            break;
        case 'f':
            if (!buf_push(r, "\f", 1))
                return false;
            break;
        case 'n':
            if (!buf_push(r, "\n", 1))
                return false;
            break;
        case 'r':
            if (!buf_push(r, "\r", 1))
                return false;
            break;
        case 't':
            if (!buf_push(r, "\t", 1))
                return false;
            break;
        case 'u':
            if (!read_unicode_escape(r))
                return false;
            break;
        default: return fail(r, "bad escape");
        }
        run = r->p;
    }
    if (!escaped) {
        *s = run;
        *n = (size_t)(r->p - run);
    } else {
        if (!buf_push(r, run, (size_t)(r->p - run)))
            return false;
        *s = r->buf;
        *n = r->len;
    }
    r->p++; /* the closing quote */
    return true;
}

static bool parse_string(reader *r, napi_value *out) {
    const char *s;
    size_t n;
    return read_string(r, &s, &n) && napi_create_string_utf8(r->env, s, n, out) == napi_ok;
}

/* ---- numbers ----------------------------------------------------------------- */

/* An integer too large for 64 bits, from its decimal digits, as a BigInt:
 * base-10^9 digits folded into 32-bit limbs, then packed into words. */
static bool big_integer(reader *r, bool negative, const char *digits, size_t n, napi_value *out) {
    size_t max_limbs = n / 9 + 2, limbs = 1;
    uint32_t *limb = calloc(max_limbs, sizeof *limb);
    uint64_t *words;
    bool ok;

    if (limb == NULL)
        return fail(r, "out of memory");
    for (size_t i = 0; i < n; i++) {
        uint64_t carry = (uint64_t)(digits[i] - '0');
        for (size_t k = 0; k < limbs; k++) {
            uint64_t v = (uint64_t)limb[k] * 10 + carry;
            limb[k] = (uint32_t)v;
            carry = v >> 32;
        }
        if (carry != 0)
            limb[limbs++] = (uint32_t)carry;
    }
    words = calloc((limbs + 1) / 2, sizeof *words);
    if (words == NULL) {
        free(limb);
        return fail(r, "out of memory");
    }
    for (size_t k = 0; k < limbs; k++)
        words[k / 2] |= (uint64_t)limb[k] << (32 * (k % 2));
    ok = napi_create_bigint_words(r->env, negative ? 1 : 0, (limbs + 1) / 2, words, out) == napi_ok;
    free(words);
    free(limb);
    return ok || fail(r, "BigInt creation failed");
}

static bool parse_integer(reader *r, bool negative, const char *digits, size_t n, napi_value *out) {
    uint64_t m = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned)(digits[i] - '0');
        if (m > (UINT64_MAX - d) / 10)
            return big_integer(r, negative, digits, n, out);
        m = m * 10 + d;
    }
    if (m <= MG_MAX_SAFE_INTEGER)
        return napi_create_double(r->env, negative ? -(double)m : (double)m, out) == napi_ok;
    return napi_create_bigint_words(r->env, negative ? 1 : 0, 1, &m, out) == napi_ok;
}

/* strtod follows LC_NUMERIC; JSON always uses '.'. */
static bool parse_float(reader *r, const char *token, size_t n, napi_value *out) {
    char small[64], *copy = n < sizeof small ? small : malloc(n + 1);
    const char *point = localeconv()->decimal_point;
    double d;

    if (copy == NULL)
        return fail(r, "out of memory");
    memcpy(copy, token, n);
    copy[n] = '\0';
    if (point != NULL && point[0] != '.' && point[0] != '\0' && point[1] == '\0') {
        char *dot = strchr(copy, '.');
        if (dot != NULL)
            *dot = point[0];
    }
    d = strtod(copy, NULL);
    if (copy != small)
        free(copy);
    return napi_create_double(r->env, d, out) == napi_ok;
}

static bool parse_number(reader *r, napi_value *out) {
    const char *token = r->p, *digits;
    bool negative = false, integral = true;
    size_t n;

    if (*r->p == '-') {
        negative = true;
        r->p++;
    }
    digits = r->p;
    if (r->p >= r->end || !is_digit(*r->p))
        return fail(r, "bad number");
    if (*r->p == '0')
        r->p++;
    else
        while (r->p < r->end && is_digit(*r->p))
            r->p++;
    n = (size_t)(r->p - digits);
    if (r->p < r->end && *r->p == '.') {
        integral = false;
        r->p++;
        if (r->p >= r->end || !is_digit(*r->p))
            return fail(r, "bad fraction");
        while (r->p < r->end && is_digit(*r->p))
            r->p++;
    }
    if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
        integral = false;
        r->p++;
        if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
            r->p++;
        if (r->p >= r->end || !is_digit(*r->p))
            return fail(r, "bad exponent");
        while (r->p < r->end && is_digit(*r->p))
            r->p++;
    }
    if (integral)
        return parse_integer(r, negative, digits, n, out);
    return parse_float(r, token, (size_t)(r->p - token), out);
}

/* ---- containers ------------------------------------------------------------ */

/* Parses one element of a container into `container`: an array's value
 * (at `index`) or an object's "key": value member. */
typedef bool (*element_parser)(reader *r, napi_value container, uint32_t index);

/* The body of an array or object after its opening bracket, up to and
 * including `close`: elements separated by commas, each parsed by `parse`
 * in a handle scope of its own (a large batch must not hold every
 * intermediate value alive). `expected` is the error for a bad separator. */
static bool parse_elements(reader *r, napi_value container, char close, element_parser parse,
                           const char *expected) {
    uint32_t index = 0;
    skip_space(r);
    if (r->p < r->end && *r->p == close) {
        r->p++;
        return true;
    }
    for (;;) {
        napi_handle_scope scope;
        bool ok;
        if (napi_open_handle_scope(r->env, &scope) != napi_ok)
            return false;
        ok = parse(r, container, index++);
        napi_close_handle_scope(r->env, scope);
        if (!ok)
            return false;
        skip_space(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == close) {
            r->p++;
            return true;
        }
        return fail(r, expected);
    }
}

static bool parse_element(reader *r, napi_value array, uint32_t index) {
    napi_value element;
    return parse_value(r, &element) && napi_set_element(r->env, array, index, element) == napi_ok;
}

static bool parse_array(reader *r, napi_value *out) {
    r->p++; /* [ */
    if (napi_create_array(r->env, out) != napi_ok)
        return false;
    return parse_elements(r, *out, ']', parse_element, "expected ',' or ']'");
}

static bool parse_member(reader *r, napi_value object, uint32_t index) {
    napi_property_descriptor member = {0};
    const char *key;
    size_t key_len;

    (void)index;
    skip_space(r);
    if (r->p >= r->end || *r->p != '"')
        return fail(r, "expected a key");
    if (!read_string(r, &key, &key_len) ||
        napi_create_string_utf8(r->env, key, key_len, &member.name) != napi_ok)
        return false;
    skip_space(r);
    if (r->p >= r->end || *r->p != ':')
        return fail(r, "expected ':'");
    r->p++;
    if (!parse_value(r, &member.value))
        return false;
    member.attributes = napi_default_jsproperty;
    return napi_define_properties(r->env, object, 1, &member) == napi_ok;
}

static bool parse_object(reader *r, napi_value *out) {
    r->p++; /* { */
    if (napi_create_object(r->env, out) != napi_ok)
        return false;
    return parse_elements(r, *out, '}', parse_member, "expected ',' or '}'");
}

/* ---- values ---------------------------------------------------------------- */

static bool parse_word(reader *r, const char *word, size_t n) {
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
        return fail(r, "bad literal");
    r->p += n;
    return true;
}

static bool parse_value(reader *r, napi_value *out) {
    bool ok;
    skip_space(r);
    if (r->p >= r->end)
        return fail(r, "unexpected end");
    switch (*r->p) {
    case '{':
    case '[':
        if (++r->depth > MG_JSON_MAX_DEPTH)
            return fail(r, "nested too deeply");
        ok = *r->p == '{' ? parse_object(r, out) : parse_array(r, out);
        r->depth--;
        return ok;
    case '"': return parse_string(r, out);
    case 't': return parse_word(r, "true", 4) && napi_get_boolean(r->env, true, out) == napi_ok;
    case 'f': return parse_word(r, "false", 5) && napi_get_boolean(r->env, false, out) == napi_ok;
    case 'n': return parse_word(r, "null", 4) && napi_get_null(r->env, out) == napi_ok;
    default:
        if (*r->p == '-' || is_digit(*r->p))
            return parse_number(r, out);
        return fail(r, "unexpected character");
    }
}

bool mg_json_to_js(napi_env env, const char *json, size_t len, napi_value *out) {
    reader r = {env, json, json, json + len, 0, NULL, 0, 0};
    bool ok = parse_value(&r, out);
    if (ok) {
        skip_space(&r);
        if (r.p != r.end)
            ok = fail(&r, "trailing characters");
    }
    if (!ok)
        fail(&r, "invalid value"); /* no-op when an error is pending */
    free(r.buf);
    return ok;
}
