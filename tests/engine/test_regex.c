/* The matches? regex engine: regex-lite syntax, unanchored search,
 * parse-time rejection of what it does not support. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "regex/regex.h"

/* 1 / 0 for match / no match, 2 when the pattern does not compile. */
static int rx(const char *pattern, const char *subject) {
    arena a;
    arena_init(&a);
    regex_prog *p;
    char why[128];
    int rc = regex_compile(pattern, strlen(pattern), &a, &p, why, sizeof why)
                 ? 2
                 : regex_match(p, subject, strlen(subject));
    arena_free(&a);
    return rc;
}

static int rx_error(const char *pattern, const char *want) {
    arena a;
    arena_init(&a);
    regex_prog *p;
    char why[128] = "";
    int rc = regex_compile(pattern, strlen(pattern), &a, &p, why, sizeof why);
    arena_free(&a);
    int ok = rc != 0 && strstr(why, want) != NULL;
    if (!ok)
        fprintf(stderr, "  pattern %s: got '%s'\n", pattern, why);
    return ok;
}

static void test_literals_and_search(void) {
    CHECK(rx("abc", "xxabcxx") == 1);
    CHECK(rx("abc", "ab") == 0);
    CHECK(rx("", "") == 1);
    CHECK(rx("", "anything") == 1);
    CHECK(rx("^a.c$", "abc") == 1);
    CHECK(rx("^a.c$", "abcd") == 0);
    CHECK(rx("a.c", "a\nc") == 0);
    CHECK(rx("(?s)a.c", "a\nc") == 1);
    CHECK(rx("h.llo", "h\xc3\xa9llo") == 1); /* . is one code point */
    CHECK(rx("\xc3\xa9", "caf\xc3\xa9") == 1);
    CHECK(rx("a\\.b", "a.b") == 1 && rx("a\\.b", "axb") == 0);
    CHECK(rx("\\x41\\x{42}", "AB") == 1);
    CHECK(rx("a\\tb", "a\tb") == 1);
}

static void test_classes(void) {
    CHECK(rx("[a-c]+x", "zzbcax") == 1);
    CHECK(rx("^[^0-9]+$", "abc") == 1 && rx("^[^0-9]+$", "a1c") == 0);
    CHECK(rx("\\d{3}-\\d{4}", "call 555-1234 now") == 1);
    CHECK(rx("^\\w+$", "snake_case9") == 1 && rx("^\\w+$", "a b") == 0);
    CHECK(rx("\\s", "a b") == 1 && rx("\\S", "   ") == 0);
    CHECK(rx("^\\D+$", "abc") == 1 && rx("^\\W$", "_") == 0);
    CHECK(rx("[]a]", "]") == 1 && rx("[^]a]", "]a") == 0);
    CHECK(rx("[\\d.]+", "3.14") == 1);
    CHECK(rx("[a-]", "-") == 1);
}

static void test_operators(void) {
    CHECK(rx("^(ab|cd)+$", "abcdab") == 1 && rx("^(ab|cd)+$", "abc") == 0);
    CHECK(rx("^a{2,3}$", "aa") == 1 && rx("^a{2,3}$", "aaaa") == 0);
    CHECK(rx("^a{2}$", "aa") == 1 && rx("^a{2,}$", "aaaaa") == 1 && rx("^a{2,}$", "a") == 0);
    CHECK(rx("^a*?b$", "aaab") == 1 && rx("^a+?$", "aaa") == 1 && rx("^a??$", "") == 1);
    CHECK(rx("^(?:x|y)z$", "yz") == 1);
    CHECK(rx("^(?P<n>a)(?<m>b)$", "ab") == 1);
    CHECK(rx("(?i)HELLO", "say hello") == 1 && rx("HELLO", "hello") == 0);
    CHECK(rx("(?i:a)B", "AB") == 1 && rx("(?i:a)B", "Ab") == 0);
    CHECK(rx("(?i)[a-c]", "B") == 1);
    CHECK(rx("(?m)^b$", "a\nb\nc") == 1 && rx("^b$", "a\nb\nc") == 0);
    CHECK(rx("\\bcat\\b", "a cat!") == 1 && rx("\\bcat\\b", "concat") == 0);
    CHECK(rx("\\Bcat", "concat") == 1);
    CHECK(rx("\\Aab\\z", "ab") == 1);
    CHECK(rx("(a*)*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac") == 0); /* no blow-up */
    CHECK(rx("a|", "zzz") == 1 && rx("()", "") == 1);
}

static void test_errors(void) {
    CHECK(rx_error("[", "unclosed character class"));
    CHECK(rx_error("(ab", "unclosed group"));
    CHECK(rx_error("ab)", "unopened group"));
    CHECK(rx_error("*a", "repetition operator missing expression"));
    CHECK(rx_error("a**", "repetition operator missing expression"));
    CHECK(rx_error("(a)\\1", "backreferences are not supported"));
    CHECK(rx_error("a(?=b)", "look-around is not supported"));
    CHECK(rx_error("a(?!b)", "look-around"));
    CHECK(rx_error("(?<=a)b", "look-around"));
    CHECK(rx_error("(?<!a)b", "look-around"));
    CHECK(rx_error("a{3,2}", "invalid repetition count"));
    CHECK(rx_error("a{1001}", "invalid repetition count"));
    CHECK(rx_error("a{x}", "invalid repetition count"));
    CHECK(rx_error("[z-a]", "invalid range"));
    CHECK(rx_error("\\q", "unrecognized escape"));
    CHECK(rx_error("\\p{L}", "Unicode classes"));
    CHECK(rx_error("a\\", "incomplete escape"));
    CHECK(rx_error("(?x)a", "invalid flag group"));
    CHECK(rx_error("[[:alpha:]]", "nested character classes"));
    CHECK(rx_error("(a{1000}){1000}", "pattern too large"));
}

/* Long patterns stay flat (n-ary concatenation and alternation): no deep
 * recursion, only the size limit. */
static void test_long_patterns(void) {
    size_t n = 300000;
    char *p = malloc(n + 1);
    memset(p, 'a', n);
    p[n] = '\0';
    CHECK(rx_error(p, "pattern too large"));
    for (size_t i = 1; i < n; i += 2)
        p[i] = '|';
    CHECK(rx_error(p, "pattern too large"));
    p[20001] = '\0'; /* 10,001 alternatives: fits */
    CHECK(rx(p, "xxa") == 1);
    char deep[512] = "";
    for (int i = 0; i < 101; i++)
        strcat(deep, "(");
    CHECK(rx_error(deep, "groups nested too deeply"));
    free(p);
}

int main(void) {
    test_long_patterns();
    test_literals_and_search();
    test_classes();
    test_operators();
    test_errors();
    return CHECK_DONE();
}
