/*
 * check.h — the tiny test harness of the C suite.
 *
 * A test is a `static void name(void)` function declared with TEST(name); a
 * file lists its tests in a table and hands it to CHECK_MAIN:
 *
 *     TEST(version_string_matches_macro) {
 *         CHECK_STR_EQ(minigraf_version(), MINIGRAF_VERSION);
 *     }
 *     CHECK_MAIN(TEST_ENTRY(version_string_matches_macro))
 *
 * A failed CHECK prints file:line and the expression (and both values for the
 * _EQ forms), marks the running test as failed and carries on, so one run
 * shows every broken expectation. The program prints one line per failed test
 * and a closing "N passed, N failed" line, and exits non-zero on any failure.
 * `./test_x name` runs only the test called `name`.
 */
#ifndef MINIGRAF_TEST_CHECK_H
#define MINIGRAF_TEST_CHECK_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct check_test {
    const char *name;
    void (*fn)(void);
} check_test;

/* Failures seen in the running test; reset before each test. */
static int check_failures_now;

static inline void check_fail(const char *file, int line, const char *what) {
    fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what ? what : "?");
    check_failures_now++;
}

static inline void check_fail_str(const char *file, int line, const char *expr, const char *got,
                                  const char *want) {
    check_fail(file, line, expr);
    fprintf(stderr, "    got:  %s%s%s\n", got ? "\"" : "", got ? got : "NULL", got ? "\"" : "");
    fprintf(stderr, "    want: %s%s%s\n", want ? "\"" : "", want ? want : "NULL", want ? "\"" : "");
}

static inline void check_fail_int(const char *file, int line, const char *expr, long long got,
                                  long long want) {
    check_fail(file, line, expr);
    fprintf(stderr, "    got:  %lld\n    want: %lld\n", got, want);
}

static inline int check_str_equal(const char *a, const char *b) {
    if (a == NULL || b == NULL)
        return a == b;
    return strcmp(a, b) == 0;
}

#define CHECK(cond)                                \
    do {                                           \
        if (!(cond))                               \
            check_fail(__FILE__, __LINE__, #cond); \
    } while (0)

/* Compares two C strings (either may be NULL: NULL equals only NULL). */
#define CHECK_STR_EQ(got, want)                                                        \
    do {                                                                               \
        const char *check_g_ = (got), *check_w_ = (want);                              \
        if (!check_str_equal(check_g_, check_w_))                                      \
            check_fail_str(__FILE__, __LINE__, #got " == " #want, check_g_, check_w_); \
    } while (0)

#define CHECK_INT_EQ(got, want)                                                        \
    do {                                                                               \
        long long check_g_ = (long long)(got), check_w_ = (long long)(want);           \
        if (check_g_ != check_w_)                                                      \
            check_fail_int(__FILE__, __LINE__, #got " == " #want, check_g_, check_w_); \
    } while (0)

/* Stops the running test when `cond` is false (use before dereferencing). */
#define REQUIRE(cond)                              \
    do {                                           \
        if (!(cond)) {                             \
            check_fail(__FILE__, __LINE__, #cond); \
            return;                                \
        }                                          \
    } while (0)

#define TEST(name) static void name(void)
#define TEST_ENTRY(name) {#name, name}

static inline int check_run_all(const check_test *tests, size_t count, int argc, char **argv) {
    int passed = 0, failed = 0;
    for (size_t i = 0; i < count; i++) {
        if (argc > 1 && strcmp(argv[1], tests[i].name) != 0)
            continue;
        check_failures_now = 0;
        tests[i].fn();
        if (check_failures_now == 0) {
            passed++;
        } else {
            failed++;
            fprintf(stderr, "FAIL %s\n", tests[i].name);
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 && passed > 0 ? 0 : 1;
}

/* Defines main() running the listed TEST_ENTRY()s in order. */
#define CHECK_MAIN(...)                                                          \
    int main(int argc, char **argv) {                                            \
        static const check_test tests[] = {__VA_ARGS__};                         \
        return check_run_all(tests, sizeof tests / sizeof tests[0], argc, argv); \
    }

#endif
