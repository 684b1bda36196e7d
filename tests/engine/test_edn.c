/* The EDN reader against language.md §2. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "edn/edn.h"

/* Reads `text`; on success *out is the root (valid until arena_free). */
static int rd(arena *a, const char *text, edn **out, err *e) {
    return edn_read(text, strlen(text), a, out, e);
}

/* The code of reading `text`, and whether the message starts with `msg`. */
static int expect_error(const char *text, int code, const char *msg) {
    arena a;
    arena_init(&a);
    err e = {0};
    edn *d = NULL;
    int rc = rd(&a, text, &d, &e);
    int ok = code == 0 ? rc == 0 && e.code == 0
                       : rc == code && e.code == code && e.message &&
                             (!msg || strncmp(e.message, msg, strlen(msg)) == 0);
    if (!ok)
        fprintf(stderr, "  input %.60s: got %d %s\n", text, rc, e.message ? e.message : "(none)");
    err_clear(&e);
    arena_free(&a);
    return ok;
}

static void test_scalars(void) {
    arena a;
    arena_init(&a);
    err e = {0};
    edn *d;
    CHECK(rd(&a, "42", &d, &e) == 0 && d->kind == EDN_INTEGER && d->as.i == 42);
    CHECK(rd(&a, "-5", &d, &e) == 0 && d->kind == EDN_INTEGER && d->as.i == -5);
    CHECK(rd(&a, "-0", &d, &e) == 0 && d->kind == EDN_INTEGER && d->as.i == 0);
    CHECK(rd(&a, "9223372036854775807", &d, &e) == 0 && d->as.i == INT64_MAX);
    CHECK(rd(&a, "-9223372036854775808", &d, &e) == 0 && d->as.i == INT64_MIN);
    CHECK(rd(&a, "3.14", &d, &e) == 0 && d->kind == EDN_FLOAT && d->as.f == 3.14);
    CHECK(rd(&a, "3.", &d, &e) == 0 && d->kind == EDN_FLOAT && d->as.f == 3.0);
    CHECK(rd(&a, "-0.5", &d, &e) == 0 && d->kind == EDN_FLOAT && d->as.f == -0.5);
    CHECK(rd(&a, "-0.0", &d, &e) == 0 && d->kind == EDN_FLOAT && d->as.f == 0.0 &&
          signbit(d->as.f));
    char big[400];
    memset(big, '9', 330);
    strcpy(big + 330, ".0");
    CHECK(rd(&a, big, &d, &e) == 0 && d->kind == EDN_FLOAT && isinf(d->as.f) && d->as.f > 0);
    big[0] = '-';
    CHECK(rd(&a, big, &d, &e) == 0 && isinf(d->as.f) && d->as.f < 0);
    CHECK(rd(&a, "true", &d, &e) == 0 && d->kind == EDN_BOOLEAN && d->as.b);
    CHECK(rd(&a, "false", &d, &e) == 0 && d->kind == EDN_BOOLEAN && !d->as.b);
    CHECK(rd(&a, "nil", &d, &e) == 0 && d->kind == EDN_NIL);
    CHECK(rd(&a, "trueish", &d, &e) == 0 && d->kind == EDN_SYMBOL);
    CHECK(rd(&a, "nil?", &d, &e) == 0 && edn_is_symbol(d, "nil?"));
    CHECK(rd(&a, "\"hi\"", &d, &e) == 0 && d->kind == EDN_STRING &&
          strcmp(d->as.text.ptr, "hi") == 0);
    CHECK(rd(&a, "$entity", &d, &e) == 0 && d->kind == EDN_SLOT &&
          strcmp(d->as.text.ptr, "entity") == 0);
    CHECK(rd(&a, "$a-b_1", &d, &e) == 0 && d->kind == EDN_SLOT && d->as.text.len == 5);
    CHECK(e.code == 0);
    arena_free(&a);
}

static void test_keywords_symbols(void) {
    arena a;
    arena_init(&a);
    err e = {0};
    edn *d;
    const char *kws[] = {":person/name", ":alive?", ":?x", ":att?end", ":e1", ":", ":a-b_c"};
    for (size_t i = 0; i < sizeof kws / sizeof kws[0]; i++)
        CHECK(rd(&a, kws[i], &d, &e) == 0 && edn_is_keyword(d, kws[i]));
    /* `.` and other punctuation end a keyword. */
    CHECK(rd(&a, "[:a*b]", &d, &e) == 0 && d->as.seq.count == 3 &&
          edn_is_keyword(&d->as.seq.items[0], ":a") && edn_is_symbol(&d->as.seq.items[1], "*") &&
          edn_is_symbol(&d->as.seq.items[2], "b"));
    CHECK(rd(&a, "[:a:b]", &d, &e) == 0 && d->as.seq.count == 2 &&
          edn_is_keyword(&d->as.seq.items[1], ":b"));
    const char *syms[] = {"?x", "_", "?_x", "foo-bar/baz", "-", "-foo", "é1", "名前"};
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++)
        CHECK(rd(&a, syms[i], &d, &e) == 0 && edn_is_symbol(d, syms[i]));
    const char *ops[] = {"<", "<=", ">", ">=", "=", "!=", "+", "*", "/"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        CHECK(rd(&a, ops[i], &d, &e) == 0 && edn_is_symbol(d, ops[i]));
    CHECK(rd(&a, "(== <x)", &d, &e) == 0 && d->as.seq.count == 4 &&
          edn_is_symbol(&d->as.seq.items[0], "=") && edn_is_symbol(&d->as.seq.items[1], "=") &&
          edn_is_symbol(&d->as.seq.items[2], "<") && edn_is_symbol(&d->as.seq.items[3], "x"));
    CHECK(rd(&a, "[1e5]", &d, &e) == 0 && d->as.seq.count == 2 && d->as.seq.items[0].as.i == 1 &&
          edn_is_symbol(&d->as.seq.items[1], "e5"));
    CHECK(rd(&a, "[- 5]", &d, &e) == 0 && d->as.seq.count == 2 &&
          edn_is_symbol(&d->as.seq.items[0], "-") && d->as.seq.items[1].as.i == 5);
    CHECK(rd(&a, "[+5]", &d, &e) == 0 && d->as.seq.count == 2 &&
          edn_is_symbol(&d->as.seq.items[0], "+") && d->as.seq.items[1].as.i == 5);
    arena_free(&a);
}

static void test_strings(void) {
    arena a;
    arena_init(&a);
    err e = {0};
    edn *d;
    CHECK(rd(&a, "\"a\\nb\\tc\\rd\\\"e\\\\f\"", &d, &e) == 0 &&
          strcmp(d->as.text.ptr, "a\nb\tc\rd\"e\\f") == 0);
    CHECK(rd(&a, "\"\\q\"", &d, &e) == 0 && strcmp(d->as.text.ptr, "q") == 0);
    CHECK(rd(&a, "\"\\u0041\"", &d, &e) == 0 && strcmp(d->as.text.ptr, "u0041") == 0);
    CHECK(rd(&a, "\"line1\nline2\"", &d, &e) == 0 && d->as.text.len == 11);
    /* Unterminated: runs to the end; a final lone backslash is dropped. */
    CHECK(rd(&a, "\"abc", &d, &e) == 0 && strcmp(d->as.text.ptr, "abc") == 0);
    CHECK(rd(&a, "\"abc\\", &d, &e) == 0 && strcmp(d->as.text.ptr, "abc") == 0);
    CHECK(expect_error("[\"abc]", 1004, "[PRS-004] Unclosed vector"));
    CHECK(rd(&a, "\"with\\u0000nul\"", &d, &e) == 0);
    arena_free(&a);
}

static void test_whitespace_comments(void) {
    arena a;
    arena_init(&a);
    err e = {0};
    edn *d;
    CHECK(rd(&a, " ,,[1,2 ,3], ", &d, &e) == 0 && d->kind == EDN_VECTOR && d->as.seq.count == 3);
    CHECK(rd(&a, "; comment\n[1 ; two\n 3] ; end", &d, &e) == 0 && d->as.seq.count == 2);
    CHECK(rd(&a, "\t\r\n(a)\n", &d, &e) == 0 && d->kind == EDN_LIST);
    arena_free(&a);
}

static void test_collections_positions(void) {
    arena a;
    arena_init(&a);
    err e = {0};
    edn *d;
    CHECK(rd(&a, "(transact\n  [[:a :b 1]\n   {:k \"v\" :k 2}])", &d, &e) == 0);
    CHECK(d->kind == EDN_LIST && d->line == 1 && d->column == 1);
    const edn *vec = &d->as.seq.items[1];
    CHECK(vec->kind == EDN_VECTOR && vec->line == 2 && vec->column == 3);
    const edn *map = &vec->as.seq.items[1];
    CHECK(map->kind == EDN_MAP && map->as.seq.count == 4 && map->line == 3 && map->column == 4);
    CHECK(map->as.seq.items[3].line == 3 && map->as.seq.items[3].column == 15);
    CHECK(rd(&a, "{}", &d, &e) == 0 && d->kind == EDN_MAP && d->as.seq.count == 0);
    CHECK(rd(&a, "[]", &d, &e) == 0 && d->kind == EDN_VECTOR && d->as.seq.count == 0);
    /* Many items: the growing array keeps them all in order. */
    char text[4000];
    size_t n = 0;
    text[n++] = '[';
    for (int i = 0; i < 500; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%d ", i);
    text[n++] = ']';
    text[n] = '\0';
    CHECK(rd(&a, text, &d, &e) == 0 && d->as.seq.count == 500 && d->as.seq.items[499].as.i == 499);
    arena_free(&a);
}

static void test_uuid(void) {
    arena a;
    arena_init(&a);
    err e = {0};
    edn *d;
    const char *forms[] = {"#uuid \"550e8400-e29b-41d4-a716-446655440000\"",
                           "#uuid \"550E8400E29B41D4A716446655440000\"",
                           "#uuid \"{550e8400-e29b-41d4-a716-446655440000}\"",
                           "#uuid \"urn:uuid:550e8400-e29b-41d4-a716-446655440000\"",
                           "#uuid\n\"550e8400-e29b-41d4-a716-446655440000\""};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        CHECK(rd(&a, forms[i], &d, &e) == 0 && d->kind == EDN_UUID && d->as.uuid.bytes[0] == 0x55 &&
              d->as.uuid.bytes[15] == 0x00);
    }
    char desc[80];
    edn_describe(d, desc, sizeof desc);
    CHECK(strcmp(desc, "Uuid(550e8400-e29b-41d4-a716-446655440000)") == 0);
    CHECK(expect_error("#uuid", 1071, "[PRS-071] Expected UUID string after #uuid tag"));
    CHECK(expect_error("#uuid 42", 1071, "[PRS-071] Expected UUID string after #uuid tag"));
    CHECK(expect_error("#uuid \"nope\"", 1072, "[PRS-072] Invalid UUID"));
    CHECK(expect_error("#ref \"550e8400-e29b-41d4-a716-446655440000\"", 1073,
                       "[PRS-073] Unknown tagged literal: #ref"));
    CHECK(expect_error("#inst \"2020\"", 1073, "[PRS-073] Unknown tagged literal: #inst"));
    CHECK(expect_error("#{1 2}", 1073, "[PRS-073] Unknown tagged literal: #"));
    CHECK(expect_error("#_ 1", 1073, "[PRS-073] Unknown tagged literal: #"));
    arena_free(&a);
}

static void test_structural_errors(void) {
    CHECK(expect_error("", 1001, "[PRS-001] Unexpected end of input"));
    CHECK(expect_error("  ; only a comment", 1001, "[PRS-001] Unexpected end of input"));
    CHECK(expect_error("#uuid", 1071, NULL));
    CHECK(expect_error("(transact [[:alice :person@name \"A\"]])", 1002,
                       "[PRS-002] Unexpected character: @"));
    CHECK(expect_error("[1 . 2]", 1002, "[PRS-002] Unexpected character: . (at line 1, column 4)"));
    CHECK(expect_error("1.2.3", 1002, "[PRS-002] Unexpected character: ."));
    CHECK(expect_error("[!]", 1002, "[PRS-002] Unexpected character: !"));
    CHECK(expect_error("'a", 1002, "[PRS-002] Unexpected character: '"));
    CHECK(expect_error("\\", 1002, NULL));
    CHECK(expect_error("[\xff]", 1002, "[PRS-002] Unexpected character: \\xFF"));
    CHECK(expect_error(")", 1003, "[PRS-003] Unexpected token: ) (at line 1, column 1)"));
    CHECK(expect_error("(]", 1003, "[PRS-003] Unexpected token: ]"));
    CHECK(expect_error("{:a 1 :b}", 1003, "[PRS-003] Unexpected token: }"));
    CHECK(expect_error("(transact [[:alice :person/name \"Alice\"]", 1004,
                       "[PRS-004] Unclosed vector (opened at line 1, column 11)"));
    CHECK(expect_error("(transact [[:alice :person/name \"Alice\"]]", 1005,
                       "[PRS-005] Unclosed list (opened at line 1, column 1)"));
    CHECK(expect_error("\n  {:a 1", 1006,
                       "[PRS-006] Unterminated map: missing '}' (opened at line 2, column 3)"));
    CHECK(expect_error("(a) (b)", 1076, "[PRS-076] Unexpected trailing input"));
    CHECK(expect_error("1 2", 1076, "[PRS-076] Unexpected trailing input"));
    CHECK(expect_error("(a))", 1076, "[PRS-076] Unexpected trailing input"));
}

/* A name of `n` characters `c` after `prefix`. */
static char *make_name(const char *prefix, char c, size_t n, const char *suffix) {
    size_t p = strlen(prefix), s = strlen(suffix);
    char *t = malloc(p + n + s + 1);
    memcpy(t, prefix, p);
    memset(t + p, c, n);
    memcpy(t + p + n, suffix, s + 1);
    return t;
}

static void test_limits(void) {
    char *t;
    t = make_name(":", 'k', 1023, "");
    CHECK(expect_error(t, 0, NULL)); /* 1024 bytes with ':' is fine */
    arena a;
    arena_init(&a);
    err e = {0};
    edn *d;
    CHECK(rd(&a, t, &d, &e) == 0 && d->as.text.len == 1024);
    free(t);
    t = make_name(":", 'k', 1024, "");
    CHECK(expect_error(t, 1008, "[PRS-008] Keyword exceeds maximum length of 1024 bytes"));
    free(t);
    t = make_name("", 's', 1024, "");
    CHECK(rd(&a, t, &d, &e) == 0 && d->kind == EDN_SYMBOL);
    free(t);
    t = make_name("", 's', 1025, "");
    CHECK(expect_error(t, 1076, "[PRS-076] Symbol exceeds maximum length of 1024 bytes"));
    free(t);
    t = make_name("#", 't', 1025, " \"x\"");
    CHECK(expect_error(t, 1009, "[PRS-009] Tag name exceeds maximum length of 1024 bytes"));
    free(t);
    t = make_name("$", 's', 1024, "");
    CHECK(rd(&a, t, &d, &e) == 0 && d->kind == EDN_SLOT);
    free(t);
    t = make_name("$", 's', 1025, "");
    CHECK(expect_error(t, 1074, "[PRS-074] Bind slot name exceeds maximum length of 1024 bytes"));
    free(t);
    t = make_name("\"", 'x', 1048576, "\"");
    CHECK(rd(&a, t, &d, &e) == 0 && d->as.text.len == 1048576);
    free(t);
    t = make_name("\"", 'x', 1048577, "\"");
    CHECK(expect_error(t, 1007, "[PRS-007] String exceeds maximum length of 1048576 bytes"));
    free(t);
    /* Escapes count once: 1048576 decoded bytes written as 2-byte escapes. */
    t = make_name("\"", 'x', 2 * 1048576, "\"");
    for (size_t i = 1; i < 2 * 1048576; i += 2)
        t[i] = '\\';
    CHECK(rd(&a, t, &d, &e) == 0 && d->as.text.len == 1048576);
    free(t);
    arena_free(&a);
    CHECK(expect_error("[1 $ 2]", 1076,
                       "[PRS-076] Bind slot '$' must be followed by an identifier (e.g. $entity)"));
    CHECK(expect_error("99999999999999999999", 1076,
                       "[PRS-076] Integer literal out of range: 99999999999999999999"));
    CHECK(expect_error("9223372036854775808", 1076,
                       "[PRS-076] Integer literal out of range: 9223372036854775808"));
    CHECK(expect_error("-9223372036854775809", 1076,
                       "[PRS-076] Integer literal out of range: -9223372036854775809"));
}

static void test_depth(void) {
    char text[512];
    for (int depth = 99; depth <= 101; depth++) {
        memset(text, '[', (size_t)depth);
        memset(text + depth, ']', (size_t)depth);
        text[2 * depth] = '\0';
        CHECK(expect_error(text, depth <= 100 ? 0 : 1076,
                           depth <= 100 ? NULL
                                        : "[PRS-076] Exceeded maximum recursion depth of 100"));
    }
    /* Deep unclosed input fails without running away. */
    char *deep = malloc(1000001);
    memset(deep, '(', 1000000);
    deep[1000000] = '\0';
    CHECK(expect_error(deep, 1076, "[PRS-076] Exceeded maximum recursion depth of 100"));
    free(deep);
    arena a;
    arena_init(&a);
    err e = {0};
    edn *d;
    memset(text, '[', 100);
    memset(text + 100, ']', 100);
    text[200] = '\0';
    CHECK(edn_read(text, 200, &a, &d, &e) == 0);
    arena_free(&a);
}

static void test_describe(void) {
    arena a;
    arena_init(&a);
    err e = {0};
    edn *d;
    char out[80];
    struct {
        const char *text, *want;
    } cases[] = {
        {"10", "Integer(10)"},     {"foo", "Symbol(foo)"}, {"[1]", "Vector"},
        {"(1)", "List"},           {"{}", "Map"},          {"\"alice\"", "String(\"alice\")"},
        {":a/b", "Keyword(:a/b)"}, {"1.5", "Float(1.5)"},  {"0.1", "Float(0.1)"},
        {"true", "Boolean(true)"}, {"nil", "Nil"},         {"$x", "BindSlot($x)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK(rd(&a, cases[i].text, &d, &e) == 0);
        edn_describe(d, out, sizeof out);
        CHECK(strcmp(out, cases[i].want) == 0);
    }
    edn_describe(d, out, 4); /* truncates, stays terminated */
    CHECK(strlen(out) == 3);
    arena_free(&a);
}

int main(void) {
    test_scalars();
    test_keywords_symbols();
    test_strings();
    test_whitespace_comments();
    test_collections_positions();
    test_uuid();
    test_structural_errors();
    test_limits();
    test_depth();
    test_describe();
    return CHECK_DONE();
}
