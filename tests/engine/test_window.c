/* Unit tests for window functions (language.md §11.2). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "exec/window.h"

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

/* window_compute over rows laid out from arrays (NULL: no slot): row i
 * is {part[i], order[i], arg[i], out[i]}, and out[] gets the results. */
static int compute_arrays(window_fn fn, bool desc, size_t n, const value *part, const value *order,
                          const value *arg, value *out, meter *m, err *e) {
    value *cells = malloc((n ? n : 1) * 4 * sizeof *cells);
    value **rows = malloc((n ? n : 1) * sizeof *rows);
    if (!cells || !rows) {
        free(cells);
        free(rows);
        return err_set(e, ERR(INT, 0), "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        rows[i] = cells + 4 * i;
        rows[i][0] = part ? part[i] : value_null();
        rows[i][1] = order ? order[i] : value_null();
        rows[i][2] = arg ? arg[i] : value_null();
        rows[i][3] = value_null();
    }
    window_rows r = {rows, part ? 0 : -1, order ? 1 : -1, arg ? 2 : -1, 3};
    int rc = window_compute(fn, desc, n, &r, m, e);
    for (size_t i = 0; i < n; i++)
        out[i] = rows[i][3];
    free(cells);
    free(rows);
    return rc;
}

/* Runs fn and checks out[] against want[] under E3 (so NaN, -0.0 and the
 * Integer/Float distinction all count). */
static bool window_gives(window_fn fn, bool desc, size_t n, const value *part, const value *order,
                         const value *arg, const value *want) {
    value out[64];
    err e = {0};
    if (compute_arrays(fn, desc, n, part, order, arg, out, NULL, &e) != 0) {
        err_clear(&e);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        if (!value_identical(&out[i], &want[i]))
            return false;
    return true;
}

/* language.md §11.2: salaries 90, 110, 95, 85 in input order. */
static const value *sal(void) {
    static value s[4];
    s[0] = I(90), s[1] = I(110), s[2] = I(95), s[3] = I(85);
    return s;
}

static void test_names(void) {
    const char *names[] = {"row-number", "rank", "count", "sum", "min",
                           "max",        "avg",  "lag",   "lead"};
    for (size_t fn = 0; fn < N(names); fn++) {
        window_fn found;
        CHECK(window_lookup(names[fn], strlen(names[fn]), &found) && found == (window_fn)fn);
        CHECK(window_takes_arg((window_fn)fn) == (fn >= 2));
    }
    window_fn dummy;
    CHECK(!window_lookup("count-distinct", 14, &dummy));
    CHECK(!window_lookup("sum-distinct", 12, &dummy));
}

static void test_b8_row_number(void) {
    value want[] = {I(2), I(4), I(3), I(1)};
    CHECK(window_gives(WINDOW_ROW_NUMBER, false, 4, NULL, sal(), NULL, want));
}

static void test_b8_running_sum(void) {
    value want[] = {I(175), I(380), I(270), I(85)};
    CHECK(window_gives(WINDOW_SUM, false, 4, NULL, sal(), sal(), want));
}

static void test_b8_running_max_desc(void) {
    value want[] = {I(110), I(110), I(110), I(110)};
    CHECK(window_gives(WINDOW_MAX, true, 4, NULL, sal(), sal(), want));
}

static void test_b8_running_avg_desc(void) {
    value want[] = {F(98.33333333333333), F(110.0), F(102.5), F(95.0)};
    CHECK(window_gives(WINDOW_AVG, true, 4, NULL, sal(), sal(), want));
}

static void test_b8_lag_and_lead(void) {
    value lag[] = {I(85), I(95), I(90), value_null()};
    CHECK(window_gives(WINDOW_LAG, false, 4, NULL, sal(), sal(), lag));
    value lead[] = {I(95), value_null(), I(110), I(90)};
    CHECK(window_gives(WINDOW_LEAD, false, 4, NULL, sal(), sal(), lead));
    value lag_desc[] = {I(95), value_null(), I(110), I(90)};
    CHECK(window_gives(WINDOW_LAG, true, 4, NULL, sal(), sal(), lag_desc));
}

/* language.md §11.2: scores 10, 10, 20 rank 1, 1, 3. */
static void test_rank_ties_skip(void) {
    value order[] = {I(10), I(10), I(20)};
    value want[] = {I(1), I(1), I(3)};
    CHECK(window_gives(WINDOW_RANK, false, 3, NULL, order, NULL, want));
    value order2[] = {I(20), I(10), I(10), I(20), I(5)};
    value want2[] = {I(4), I(2), I(2), I(4), I(1)};
    CHECK(window_gives(WINDOW_RANK, false, 5, NULL, order2, NULL, want2));
    value want2d[] = {I(1), I(3), I(3), I(1), I(5)};
    CHECK(window_gives(WINDOW_RANK, true, 5, NULL, order2, NULL, want2d));
}

/* Rank ties are E1: 1 and 1.0 sort as equal under O2 but do not tie; NaN
 * never ties. */
static void test_rank_ties_are_strict(void) {
    value order[] = {I(1), F(1.0), I(1)};
    value want[] = {I(1), I(2), I(3)}; /* stable: 1, 1.0, 1 in input order */
    CHECK(window_gives(WINDOW_RANK, false, 3, NULL, order, NULL, want));
    value nan[] = {F(NAN), F(NAN)};
    value want_nan[] = {I(1), I(2)};
    CHECK(window_gives(WINDOW_RANK, false, 2, NULL, nan, NULL, want_nan));
    value zeros[] = {F(0.0), F(-0.0)};
    value want_z[] = {I(1), I(1)};
    CHECK(window_gives(WINDOW_RANK, false, 2, NULL, zeros, NULL, want_z));
    /* beyond 2^53: equal as doubles (input order kept), unequal as integers */
    const int64_t big = INT64_C(1) << 53;
    value bigs[] = {I(big), I(big + 1), I(big), I(big)};
    value want_big[] = {I(1), I(2), I(3), I(3)};
    CHECK(window_gives(WINDOW_RANK, false, 4, NULL, bigs, NULL, want_big));
}

/* Rows whose rank is not 1 + the rows of its partition (rows i % parts,
 * i % parts + parts, ...) whose integer order value comes strictly before
 * its own. */
static int ranks_misplaced(const value *order, const value *out, int rows, int parts, bool desc) {
    int bad = 0;
    for (int i = 0; i < rows; i++) {
        int64_t before = 0, x = order[i].as.i;
        for (int j = i % parts; j < rows; j += parts)
            before += desc ? order[j].as.i > x : order[j].as.i < x;
        bad += out[i].type != VT_INTEGER || out[i].as.i != before + 1;
    }
    return bad;
}

/* Ranks of many integers (radix-sorted, ties told by their keys), in
 * partitions, both directions: 1 + the rows of the partition strictly
 * before. */
static void test_large_rank(void) {
    enum { ROWS = 3000 };
    static value part[ROWS], order[ROWS], out[ROWS];
    for (int i = 0; i < ROWS; i++) {
        part[i] = I(i % 3);
        order[i] = I((i * 7919) % 1000 % 90 - 40);
    }
    for (int desc = 0; desc < 2; desc++) {
        err e = {0};
        CHECK(compute_arrays(WINDOW_RANK, desc, ROWS, part, order, NULL, out, NULL, &e) == 0);
        CHECK(ranks_misplaced(order, out, ROWS, 3, desc) == 0);
    }
}

/* ROWS frame: tied rows get different running sums, in input order. */
static void test_ties_are_not_grouped(void) {
    value order[] = {I(10), I(10), I(20)};
    value arg[] = {I(1), I(2), I(4)};
    value want[] = {I(1), I(3), I(7)};
    CHECK(window_gives(WINDOW_SUM, false, 3, NULL, order, arg, want));
    value want_desc[] = {I(5), I(7), I(4)}; /* desc keeps tied rows in input order too */
    CHECK(window_gives(WINDOW_SUM, true, 3, NULL, order, arg, want_desc));
}

static void test_partitions_use_strict_equality(void) {
    value part[] = {S("a"), S("b"), S("a"), I(1), F(1.0), value_null(), value_null()};
    value order[] = {I(3), I(1), I(2), I(5), I(6), I(8), I(7)};
    value want[] = {I(2), I(1), I(1), I(1), I(1), I(2), I(1)};
    CHECK(window_gives(WINDOW_ROW_NUMBER, false, 7, part, order, NULL, want));
    value zeros[] = {F(0.0), F(-0.0)};
    value ord2[] = {I(2), I(1)};
    value want2[] = {I(2), I(1)}; /* 0.0 and -0.0: one partition */
    CHECK(window_gives(WINDOW_ROW_NUMBER, false, 2, zeros, ord2, NULL, want2));
    value nans[] = {F(NAN), F(NAN)};
    value want3[] = {I(1), I(1)}; /* NaN equals nothing: two partitions */
    CHECK(window_gives(WINDOW_ROW_NUMBER, false, 2, nans, ord2, NULL, want3));
    uuid128 bob = uuid_of_keyword(":bob", 4);
    value kr[] = {value_keyword(":bob", 4), value_ref(bob)};
    CHECK(window_gives(WINDOW_ROW_NUMBER, false, 2, kr, ord2, NULL, want3));
}

static void test_partitioned_lag_lead_stop_at_edges(void) {
    value part[] = {S("x"), S("y"), S("x"), S("y"), S("x")};
    value order[] = {I(1), I(1), I(2), I(2), I(3)};
    value arg[] = {S("x1"), S("y1"), S("x2"), S("y2"), S("x3")};
    value lag[] = {value_null(), value_null(), S("x1"), S("y1"), S("x2")};
    CHECK(window_gives(WINDOW_LAG, false, 5, part, order, arg, lag));
    value lead[] = {S("x2"), S("y2"), S("x3"), value_null(), value_null()};
    CHECK(window_gives(WINDOW_LEAD, false, 5, part, order, arg, lead));
    value one[] = {I(7)};
    value nul[] = {value_null()};
    CHECK(window_gives(WINDOW_LAG, false, 1, NULL, one, one, nul));
    CHECK(window_gives(WINDOW_LEAD, false, 1, NULL, one, one, nul));
}

static void test_running_sum_types(void) {
    value order[] = {I(1), I(2), I(3), I(4), I(5)};
    value arg[] = {S("x"), I(2), value_null(), F(0.5), I(1)};
    value want[] = {I(0), I(2), I(2), F(2.5), F(3.5)}; /* non-numeric ignored */
    CHECK(window_gives(WINDOW_SUM, false, 5, NULL, order, arg, want));
    value big[] = {I(INT64_MAX), I(INT64_MAX)};
    value ord2[] = {I(1), I(2)};
    value want2[] = {I(INT64_MAX), I(INT64_MAX)}; /* double sum, clamped */
    CHECK(window_gives(WINDOW_SUM, false, 2, NULL, ord2, big, want2));
    value prec[] = {I(9007199254740993), I(0)};
    value want3[] = {I(9007199254740992), I(9007199254740992)}; /* double precision */
    CHECK(window_gives(WINDOW_SUM, false, 2, NULL, ord2, prec, want3));
    value infs[] = {F(INFINITY), F(-INFINITY)};
    value want4[] = {F(INFINITY), F(NAN)};
    CHECK(window_gives(WINDOW_SUM, false, 2, NULL, ord2, infs, want4));
}

static void test_running_count_and_avg(void) {
    value order[] = {I(1), I(2), I(3), I(4)};
    value arg[] = {value_null(), S("x"), I(3), F(4.0)};
    value count[] = {I(0), I(1), I(2), I(3)};
    CHECK(window_gives(WINDOW_COUNT, false, 4, NULL, order, arg, count));
    value avg[] = {value_null(), value_null(), F(3.0), F(3.5)};
    CHECK(window_gives(WINDOW_AVG, false, 4, NULL, order, arg, avg));
}

static void test_running_min_max_o2(void) {
    value order[] = {I(1), I(2), I(3), I(4), I(5), I(6)};
    value arg[] = {value_null(), I(5), S("a"), F(2.5), F(NAN), I(1)};
    value mn[] = {value_null(), I(5), I(5), F(2.5), F(2.5), I(1)};
    CHECK(window_gives(WINDOW_MIN, false, 6, NULL, order, arg, mn));
    value mx[] = {value_null(), I(5), I(5), I(5), I(5), I(5)};
    CHECK(window_gives(WINDOW_MAX, false, 6, NULL, order, arg, mx));
    value eq[] = {I(1), F(1.0)};
    value ord2[] = {I(1), I(2)};
    value want_eq[] = {I(1), I(1)}; /* equal under O2: no replacement */
    CHECK(window_gives(WINDOW_MAX, false, 2, NULL, ord2, eq, want_eq));
    value first_str[] = {S("b"), I(1), S("a")};
    value ord3[] = {I(1), I(2), I(3)};
    value want_str[] = {S("b"), S("b"), S("a")}; /* a number never replaces a string */
    CHECK(window_gives(WINDOW_MIN, false, 3, NULL, ord3, first_str, want_str));
}

/* O2 ordering: numbers interleave, strings by bytes, NaN and incomparable
 * values sort as ties (input order in a merge sort). */
static void test_order_uses_o2(void) {
    value order[] = {F(2.5), I(2), I(3)};
    value want[] = {I(2), I(1), I(3)};
    CHECK(window_gives(WINDOW_ROW_NUMBER, false, 3, NULL, order, NULL, want));
    value strs[] = {S("b"), S("B"), S("a")};
    value want_s[] = {I(3), I(1), I(2)};
    CHECK(window_gives(WINDOW_ROW_NUMBER, false, 3, NULL, strs, NULL, want_s));
    value nulls[] = {value_null(), value_null(), value_null()};
    value want_n[] = {I(1), I(2), I(3)};
    CHECK(window_gives(WINDOW_ROW_NUMBER, false, 3, NULL, nulls, NULL, want_n));
    CHECK(window_gives(WINDOW_ROW_NUMBER, true, 3, NULL, nulls, NULL, want_n));
    value rank_n[] = {I(1), I(1), I(1)}; /* Null is E1-equal to Null */
    CHECK(window_gives(WINDOW_RANK, false, 3, NULL, nulls, NULL, rank_n));
}

/* Order values that are all numbers compare as doubles, exactly as
 * cmp_window does: NaN ties with everything, and an Integer beyond 2^53
 * ties with the Float it rounds to (ties keep input order). */
static void test_numeric_order_compares_as_doubles(void) {
    value order[] = {I(2), F(NAN), F(1.5)};
    value want[] = {I(1), I(2), I(3)};
    CHECK(window_gives(WINDOW_ROW_NUMBER, false, 3, NULL, order, NULL, want));
    CHECK(window_gives(WINDOW_ROW_NUMBER, true, 3, NULL, order, NULL, want));
    value big[] = {I(9007199254740993), F(9007199254740992.0), I(-1)};
    value want_big[] = {I(2), I(3), I(1)};
    CHECK(window_gives(WINDOW_ROW_NUMBER, false, 3, NULL, big, NULL, want_big));
    value zeros[] = {F(0.0), I(0), F(-0.0), I(-5)};
    value want_zeros[] = {I(2), I(3), I(4), I(1)};
    CHECK(window_gives(WINDOW_ROW_NUMBER, false, 4, NULL, zeros, NULL, want_zeros));
}

static void test_empty_input(void) {
    value out[1] = {value_integer(99)};
    err e = {0};
    CHECK(compute_arrays(WINDOW_SUM, false, 0, NULL, NULL, NULL, out, NULL, &e) == 0);
    CHECK(compute_arrays(WINDOW_RANK, true, 0, out, out, NULL, out, NULL, &e) == 0);
    CHECK(out[0].as.i == 99);
}

static void test_large_partitioned_input(void) {
    enum { ROWS = 5000 };
    static value part[ROWS], order[ROWS], out[ROWS];
    for (int i = 0; i < ROWS; i++) {
        part[i] = value_integer(i % 7);
        order[i] = value_integer((i * 7919) % ROWS); /* a permutation */
    }
    err e = {0};
    CHECK(compute_arrays(WINDOW_ROW_NUMBER, false, ROWS, part, order, NULL, out, NULL, &e) == 0);
    int bad = 0;
    for (int i = 0; i < ROWS; i++) {
        int64_t smaller = 0;
        for (int j = i % 7; j < ROWS; j += 7)
            smaller += order[j].as.i < order[i].as.i;
        bad += out[i].as.i != smaller + 1;
    }
    CHECK(bad == 0);
}

/* Numbers without NaN in partitions large enough for the radix sort:
 * row numbers as a stable sort gives them (ties, 0.0 and -0.0 among them,
 * keep input order), checked against a count of the rows before each. */
static void test_large_numeric_partitions(void) {
    enum { ROWS = 3000 };
    static value part[ROWS], order[ROWS], out[ROWS];
    for (int i = 0; i < ROWS; i++) {
        int k = (i * 7919) % 1000 - 500;
        part[i] = I(i % 3);
        order[i] = k % 5 == 0 ? F(k / 4.0) : k == 7 ? F(-0.0) : k == 9 ? F(0.0) : I(k % 97);
    }
    for (int desc = 0; desc < 2; desc++) {
        err e = {0};
        CHECK(compute_arrays(WINDOW_ROW_NUMBER, desc, ROWS, part, order, NULL, out, NULL, &e) == 0);
        int bad = 0;
        for (int i = 0; i < ROWS; i++) {
            double x = order[i].type == VT_INTEGER ? (double)order[i].as.i : order[i].as.f;
            int64_t before = 0;
            for (int j = i % 3; j < ROWS; j += 3) {
                double y = order[j].type == VT_INTEGER ? (double)order[j].as.i : order[j].as.f;
                before += (desc ? y > x : y < x) || (y == x && j < i);
            }
            bad += out[i].as.i != before + 1;
        }
        CHECK(bad == 0);
    }
}

/* Row numbers of integers, as a stable sort under O2 (which compares them
 * as doubles) gives them: each row's count of rows before it in its
 * partition (rows i % parts, i % parts + parts, ...). */
static int integer_rows_misplaced(const value *order, const value *out, int rows, int parts,
                                  bool desc) {
    int bad = 0;
    for (int i = 0; i < rows; i++) {
        double x = (double)order[i].as.i;
        int64_t before = 0;
        for (int j = i % parts; j < rows; j += parts) {
            double y = (double)order[j].as.i;
            before += (desc ? y > x : y < x) || (y == x && j < i);
        }
        bad += out[i].as.i != before + 1;
    }
    return bad;
}

/* Integer order values, sorted as their own keys: within 256 of each other
 * (one radix pass), negative ones across several bytes, and ones beyond
 * 2^53 that O2 ties when their doubles are equal (input order kept). */
static void test_large_integer_partitions(void) {
    enum { ROWS = 3000 };
    static value part[ROWS], order[ROWS], out[ROWS];
    const int64_t big = INT64_C(1) << 53;
    for (int span = 0; span < 3; span++) {
        for (int i = 0; i < ROWS; i++) {
            int k = (i * 7919) % 1000;
            part[i] = I(i % 3);
            order[i] = span == 0   ? I(k % 100)
                       : span == 1 ? I((int64_t)(k - 500) * 7777)
                                   : I(k % 2 ? big + k % 4 : -big - k % 3);
        }
        for (int desc = 0; desc < 2; desc++) {
            err e = {0};
            CHECK(compute_arrays(WINDOW_ROW_NUMBER, desc, ROWS, part, order, NULL, out, NULL, &e) ==
                  0);
            CHECK(integer_rows_misplaced(order, out, ROWS, 3, desc) == 0);
        }
    }
}

/* Without partitions, integer keys spanning fewer values than there are
 * rows are counted per key instead of sorted: ranks, and row numbers as
 * the stable sort gives them, both directions; floats that all tie; the
 * count array charged while the call runs. */
static void test_counted_positions(void) {
    enum { ROWS = 3000 };
    static value order[ROWS], out[ROWS];
    for (int i = 0; i < ROWS; i++)
        order[i] = I((i * 7919) % 1000 % 90 - 40);
    for (int desc = 0; desc < 2; desc++) {
        err e = {0};
        CHECK(compute_arrays(WINDOW_RANK, desc, ROWS, NULL, order, NULL, out, NULL, &e) == 0);
        CHECK(ranks_misplaced(order, out, ROWS, 1, desc) == 0);
        CHECK(compute_arrays(WINDOW_ROW_NUMBER, desc, ROWS, NULL, order, NULL, out, NULL, &e) == 0);
        CHECK(integer_rows_misplaced(order, out, ROWS, 1, desc) == 0);
    }
    value halves[] = {F(2.5), F(2.5), F(2.5)};
    value want_rank[] = {I(1), I(1), I(1)}, want_rows[] = {I(1), I(2), I(3)};
    CHECK(window_gives(WINDOW_RANK, false, 3, NULL, halves, NULL, want_rank));
    CHECK(window_gives(WINDOW_ROW_NUMBER, true, 3, NULL, halves, NULL, want_rows));
    meter m;
    err e = {0};
    meter_init(&m, 0);
    CHECK(compute_arrays(WINDOW_RANK, false, ROWS, NULL, order, NULL, out, &m, &e) == 0);
    CHECK(m.used == 0 && m.peak >= ROWS * sizeof(uint64_t) + 90 * sizeof(uint32_t));
}

static void test_meter(void) {
    meter m;
    err e = {0};
    value order[100], out[100];
    for (int i = 0; i < 100; i++)
        order[i] = I(i);
    meter_init(&m, 64);
    CHECK(compute_arrays(WINDOW_ROW_NUMBER, false, 100, order, order, NULL, out, &m, &e) ==
          ERR(QRY, 12));
    CHECK(e.message && strstr(e.message, "exceeded in window") != NULL);
    CHECK(m.used == 0);
    err_clear(&e);
    meter_init(&m, 0);
    CHECK(compute_arrays(WINDOW_ROW_NUMBER, false, 100, order, order, NULL, out, &m, &e) == 0);
    CHECK(m.used == 0 && m.peak >= 100 * (3 * sizeof(uint32_t) + sizeof(uint64_t)));
}

int main(void) {
    test_names();
    test_b8_row_number();
    test_b8_running_sum();
    test_b8_running_max_desc();
    test_b8_running_avg_desc();
    test_b8_lag_and_lead();
    test_rank_ties_skip();
    test_rank_ties_are_strict();
    test_large_rank();
    test_ties_are_not_grouped();
    test_partitions_use_strict_equality();
    test_partitioned_lag_lead_stop_at_edges();
    test_running_sum_types();
    test_running_count_and_avg();
    test_running_min_max_o2();
    test_order_uses_o2();
    test_numeric_order_compares_as_doubles();
    test_empty_input();
    test_large_partitioned_input();
    test_large_numeric_partitions();
    test_large_integer_partitions();
    test_counted_positions();
    test_meter();
    return CHECK_DONE();
}
