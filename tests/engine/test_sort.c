/* Unit tests for :order-by sorting (language.md §8.15, D3), the bounded
 * top-k and the :offset / :limit helpers. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "exec/sort.h"

#define N(a) (sizeof(a) / sizeof *(a))

static value I(int64_t i) {
    return value_integer(i);
}

static value F(double f) {
    return value_float(f);
}

static value S(const char *s) {
    return value_string(s, strlen(s));
}

/* Sorts rows (2 columns each) and checks the resulting order of row numbers. */
static bool sorts_to(value rows[][2], size_t n, const sort_key *keys, size_t nkeys,
                     const size_t *want) {
    const value *ptr[16];
    for (size_t i = 0; i < n; i++)
        ptr[i] = rows[i];
    sort_spec s = {keys, nkeys, 2};
    err e = {0};
    if (sort_rows(ptr, n, &s, NULL, &e) != 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (ptr[i] != rows[want[i]])
            return false;
    return true;
}

static void test_order_by_interleaves_numbers(void) {
    value rows[][2] = {{I(2), S("a")},   {F(1.5), S("b")}, {I(1), S("c")},        {F(2.0), S("d")},
                       {F(NAN), S("e")}, {S("z"), S("f")}, {value_null(), S("g")}};
    sort_key asc[] = {{0, false}};
    size_t want[] = {5, 2, 1, 0, 3, 4, 6}; /* "z" < 1 < 1.5 < 2 < 2.0 < NaN < nil */
    CHECK(sorts_to(rows, N(rows), asc, 1, want));
    sort_key desc[] = {{0, true}};
    size_t want_desc[] = {6, 4, 3, 0, 1, 2, 5};
    CHECK(sorts_to(rows, N(rows), desc, 1, want_desc));
}

static void test_ties_broken_by_remaining_columns_in_o3(void) {
    value rows[][2] = {{I(1), S("b")},
                       {I(1), F(0.5)},
                       {I(1), I(7)},
                       {I(0), S("z")},
                       {I(1), S("a")}};
    sort_key asc[] = {{0, false}};
    /* Remaining column in O3: strings, then integers, then floats (no
     * interleaving there). */
    size_t want[] = {3, 4, 0, 2, 1};
    CHECK(sorts_to(rows, N(rows), asc, 1, want));
    sort_key desc[] = {{0, true}};
    size_t want_desc[] = {4, 0, 2, 1, 3}; /* tie-break columns stay ascending */
    CHECK(sorts_to(rows, N(rows), desc, 1, want_desc));
}

static void test_several_keys(void) {
    value rows[][2] = {{S("eng"), I(50)}, {S("hr"), I(40)}, {S("eng"), I(70)}, {S("hr"), I(45)}};
    sort_key keys[] = {{0, false}, {1, true}};
    size_t want[] = {2, 0, 3, 1};
    CHECK(sorts_to(rows, N(rows), keys, 2, want));
    sort_key by_second[] = {{1, false}, {0, false}};
    size_t want2[] = {1, 3, 0, 2};
    CHECK(sorts_to(rows, N(rows), by_second, 2, want2));
}

static void test_equal_rows_keep_input_order(void) {
    value rows[][2] = {{I(1), F(0.0)}, {I(1), F(-0.0)}, {I(1), F(0.0)}};
    sort_key asc[] = {{0, false}};
    size_t want[] = {0, 1, 2};
    CHECK(sorts_to(rows, N(rows), asc, 1, want));
    sort_key desc[] = {{0, true}};
    CHECK(sorts_to(rows, N(rows), desc, 1, want));
}

static void test_no_keys_is_o3_over_all_columns(void) {
    value rows[][2] = {{I(2), I(1)}, {S("a"), I(1)}, {I(1), I(9)}};
    size_t want[] = {1, 2, 0};
    CHECK(sorts_to(rows, N(rows), NULL, 0, want));
    CHECK(sorts_to(rows, 0, NULL, 0, want));
}

static void test_sort_meter(void) {
    value rows[8][1];
    const value *ptr[8];
    for (int i = 0; i < 8; i++) {
        rows[i][0] = I(8 - i);
        ptr[i] = rows[i];
    }
    sort_key asc[] = {{0, false}};
    sort_spec s = {asc, 1, 1};
    meter m;
    meter_init(&m, 16);
    err e = {0};
    CHECK(sort_rows(ptr, 8, &s, &m, &e) == ERR(QRY, 12));
    CHECK(e.message && strstr(e.message, "exceeded in sort") != NULL);
    CHECK(ptr[0] == rows[0] && m.used == 0);
    err_clear(&e);
    meter_init(&m, 1024);
    CHECK(sort_rows(ptr, 8, &s, &m, &e) == 0 && ptr[0] == rows[7] && m.used == 0);
    CHECK(m.peak == 8 * sizeof(value *));
}

/* Pseudo-random rows with many ties; top-k must equal sort + truncate. */
static void fill_random(value rows[][2], char text[][4], size_t n, unsigned seed) {
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        unsigned r = (seed >> 16) % 23;
        rows[i][0] = r % 3 == 0 ? F((double)(r % 5) / 2) : I((int64_t)(r % 5));
        text[i][0] = (char)('a' + (seed >> 8) % 3);
        text[i][1] = (char)('a' + (seed >> 4) % 2);
        text[i][2] = '\0';
        rows[i][1] = value_string(text[i], 2);
    }
}

static bool same_row(const value *a, const value *b) {
    return value_identical(&a[0], &b[0]) && value_identical(&a[1], &b[1]);
}

static void check_topk_matches_sort(size_t n, size_t k, bool desc, unsigned seed) {
    static value rows[400][2], fresh[400][2];
    static char text[400][4], fresh_text[400][4];
    static const value *ptr[400];
    fill_random(rows, text, n, seed);
    sort_key keys[] = {{0, desc}};
    sort_spec s = {keys, 1, 2};
    meter m;
    meter_init(&m, 0);
    err e = {0};
    sort_topk t;
    sort_topk_init(&t, &s, k, &m);
    int rc = 0;
    for (size_t i = 0; i < n; i++)
        rc |= sort_topk_push(&t, rows[i], &e);
    memset(text, 'q', sizeof text); /* kept rows must not borrow */
    fill_random(fresh, fresh_text, n, seed);
    for (size_t i = 0; i < n; i++)
        ptr[i] = fresh[i];
    CHECK(rc == 0 && sort_rows(ptr, n, &s, NULL, &e) == 0);
    const value **top;
    size_t got = sort_topk_finish(&t, &top, &e);
    size_t want = k < n ? k : n;
    int bad = got != want;
    for (size_t i = 0; !bad && i < got; i++)
        bad += !same_row(top[i], ptr[i]);
    CHECK(bad == 0);
    CHECK(m.used > 0 || want == 0);
    sort_topk_free(&t);
    CHECK(m.used == 0);
}

static void test_topk_equals_sorted_prefix(void) {
    check_topk_matches_sort(400, 10, false, 1);
    check_topk_matches_sort(400, 10, true, 2);
    check_topk_matches_sort(400, 1, false, 3);
    check_topk_matches_sort(50, 100, true, 4); /* k larger than the input */
    check_topk_matches_sort(400, 400, false, 5);
    check_topk_matches_sort(400, 0, false, 6);
    check_topk_matches_sort(0, 5, false, 7);
}

static void test_topk_keeps_first_of_ties(void) {
    value rows[][1] = {{I(5)}, {I(1)}, {I(1)}, {I(1)}, {I(0)}};
    sort_key asc[] = {{0, false}};
    sort_spec s = {asc, 1, 1};
    sort_topk t;
    err e = {0};
    sort_topk_init(&t, &s, 2, NULL);
    for (size_t i = 0; i < N(rows); i++)
        CHECK(sort_topk_push(&t, rows[i], &e) == 0);
    const value **top;
    CHECK(sort_topk_finish(&t, &top, &e) == 2);
    CHECK(top[0][0].as.i == 0 && top[1][0].as.i == 1);
    CHECK(sort_topk_finish(&t, &top, &e) == 2 && top[0][0].as.i == 0); /* idempotent */
    sort_topk_free(&t);
    sort_topk_free(NULL);
}

static void test_topk_meter_limit(void) {
    static char text[64][100];
    value rows[64][1];
    for (int i = 0; i < 64; i++) {
        memset(text[i], 'a' + i % 26, 99);
        rows[i][0] = value_string(text[i], 99);
    }
    sort_key asc[] = {{0, false}};
    sort_spec s = {asc, 1, 1};
    meter m;
    meter_init(&m, 1000);
    err e = {0};
    sort_topk t;
    sort_topk_init(&t, &s, 50, &m);
    int rc = 0;
    for (int i = 0; !rc && i < 64; i++)
        rc = sort_topk_push(&t, rows[i], &e);
    CHECK(rc == ERR(QRY, 12) && m.used <= 1000);
    err_clear(&e);
    sort_topk_free(&t);
    CHECK(m.used == 0);

    /* A small k stays within a small budget however many rows pass. */
    meter_init(&m, 2000);
    sort_topk_init(&t, &s, 3, &m);
    rc = 0;
    for (int round = 0; round < 20; round++)
        for (int i = 0; !rc && i < 64; i++)
            rc = sort_topk_push(&t, rows[63 - i], &e);
    CHECK(rc == 0 && m.peak <= 2000);
    const value **top;
    CHECK(sort_topk_finish(&t, &top, &e) == 3 && top[0][0].as.str.ptr[0] == 'a');
    sort_topk_free(&t);
}

static void test_topk_bound(void) {
    CHECK(sort_topk_bound(5, true, 10) == 15);
    CHECK(sort_topk_bound(0, true, 0) == 0);
    CHECK(sort_topk_bound(5, false, 0) == SIZE_MAX);
    CHECK(sort_topk_bound(SIZE_MAX - 1, true, 10) == SIZE_MAX);
}

static void test_limit_offset_streaming(void) {
    sort_limit l;
    sort_limit_init(&l, 2, true, 3);
    sort_limit_step steps[7];
    for (int i = 0; i < 7; i++)
        steps[i] = sort_limit_next(&l);
    CHECK(steps[0] == SORT_SKIP && steps[1] == SORT_SKIP);
    CHECK(steps[2] == SORT_EMIT && steps[3] == SORT_EMIT && steps[4] == SORT_EMIT);
    CHECK(steps[5] == SORT_STOP && steps[6] == SORT_STOP);
    CHECK(sort_limit_done(&l));

    sort_limit_init(&l, 0, true, 0);
    CHECK(sort_limit_done(&l) && sort_limit_next(&l) == SORT_STOP); /* :limit 0 reads nothing */

    sort_limit_init(&l, 1, false, 0);
    CHECK(sort_limit_next(&l) == SORT_SKIP);
    for (int i = 0; i < 1000; i++)
        CHECK(sort_limit_next(&l) == SORT_EMIT);
    CHECK(!sort_limit_done(&l));
}

static void test_limit_offset_slice(void) {
    size_t start;
    CHECK(sort_limit_slice(10, 2, true, 3, &start) == 3 && start == 2);
    CHECK(sort_limit_slice(10, 8, true, 5, &start) == 2 && start == 8);
    CHECK(sort_limit_slice(10, 12, true, 5, &start) == 0 && start == 10);
    CHECK(sort_limit_slice(10, 0, false, 0, &start) == 10 && start == 0);
    CHECK(sort_limit_slice(10, 3, false, 0, &start) == 7 && start == 3);
    CHECK(sort_limit_slice(0, 0, true, 5, &start) == 0 && start == 0);
    CHECK(sort_limit_slice(10, 0, true, 0, &start) == 0);
}

int main(void) {
    test_order_by_interleaves_numbers();
    test_ties_broken_by_remaining_columns_in_o3();
    test_several_keys();
    test_equal_rows_keep_input_order();
    test_no_keys_is_o3_over_all_columns();
    test_sort_meter();
    test_topk_equals_sorted_prefix();
    test_topk_keeps_first_of_ties();
    test_topk_meter_limit();
    test_topk_bound();
    test_limit_offset_streaming();
    test_limit_offset_slice();
    return CHECK_DONE();
}
