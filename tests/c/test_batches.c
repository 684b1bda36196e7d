/* Answers that cross the row counts where a batched executor splits its
 * work: result sizes around multiples of 64, one outer row expanding to
 * hundreds of matches between rows with few, filters that keep every 7th
 * row or none, not/or over 1000 rows, :limit/:offset across 64, aggregates,
 * windows, pseudo-attributes, rules, cursor batches and snapshots. Every
 * expected answer is computed here, by a formula or a loop over the data
 * the test wrote, never by another query. Through minigraf.h only. */
#include <stdarg.h>

#include "support.h"

#define OK "{\"ok\":true}"

/* ---- building commands and expected answers ----------------------------- */

/* A growing text: a command being written or the rows of an answer. */
typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void text_vadd(text *t, const char *fmt, va_list ap) {
    va_list again;
    va_copy(again, ap);
    int need = vsnprintf(NULL, 0, fmt, ap);
    if (t->len + (size_t)need + 1 > t->cap) {
        t->cap = (t->len + (size_t)need + 1) * 2;
        t->s = realloc(t->s, t->cap);
    }
    vsnprintf(t->s + t->len, t->cap - t->len, fmt, again);
    va_end(again);
    t->len += (size_t)need;
}

static void text_add(text *t, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    text_vadd(t, fmt, ap);
    va_end(ap);
}

/* Appends one row of an answer ("[1,2]"), with the comma between rows. */
static void row_add(text *rows, const char *fmt, ...) {
    if (rows->len > 0)
        text_add(rows, ",");
    va_list ap;
    va_start(ap, fmt);
    text_vadd(rows, fmt, ap);
    va_end(ap);
}

static void text_free(text *t) {
    free(t->s);
    *t = (text){0};
}

/* Closes "(transact [" ... with "])", commits it and frees the text. */
static void transact_text_at(const char *file, int line, MiniGrafDb *db, text *tx) {
    text_add(tx, "])");
    expect_write_at(file, line, db, tx->s, "transacted");
    text_free(tx);
}
#define TRANSACT_TEXT(db, tx) transact_text_at(__FILE__, __LINE__, (db), (tx))

/* Runs `query` and compares it with the variables `vars` ("\"?v\",\"?w\"")
 * and the rows built in `rows` (freed here): as multisets, or byte for byte
 * when `ordered`. */
static void expect_rows_at(const char *file, int line, MiniGrafDb *db, const char *query,
                           const char *vars, text *rows, int ordered) {
    text want = {0};
    text_add(&want, "{\"variables\":[%s],\"results\":[%s]}", vars, rows->s ? rows->s : "");
    if (ordered) {
        char *got = exec_at(file, line, db, query);
        if (got != NULL && strcmp(got, want.s) != 0)
            check_fail_str(file, line, query, got, want.s);
        minigraf_string_free(got);
    } else {
        expect_exec_at(file, line, db, query, want.s);
    }
    text_free(&want);
    text_free(rows);
}
#define EXPECT_ROWS(db, query, vars, rows) \
    expect_rows_at(__FILE__, __LINE__, (db), (query), (vars), (rows), 0)
#define EXPECT_ORDERED_ROWS(db, query, vars, rows) \
    expect_rows_at(__FILE__, __LINE__, (db), (query), (vars), (rows), 1)

/* The values of an answer or batch of one-integer rows ("[[3],[1]]"), in
 * row order; the number of rows, -1 when the text has another shape or more
 * than `max` rows. */
static int int_rows(const char *json, long long *out, int max) {
    const char *p = strstr(json, "\"results\":[");
    p = p ? p + strlen("\"results\":[") : json + 1;
    int n = 0;
    while (*p == '[') {
        char *end;
        long long v = strtoll(p + 1, &end, 10);
        if (*end != ']' || n == max)
            return -1;
        out[n++] = v;
        p = end + 1;
        if (*p == ',')
            p++;
    }
    return *p == ']' ? n : -1;
}

/* Checks that `values` holds each of 0..n-1 at most once, and only values
 * for which `keep(v)` holds; returns how many distinct values it saw. */
static int check_distinct_in_range(const long long *values, int count, int n, int (*keep)(int)) {
    char *seen = calloc((size_t)n, 1);
    int distinct = 0;
    for (int i = 0; i < count; i++) {
        long long v = values[i];
        if (v < 0 || v >= n || !keep((int)v)) {
            check_fail_int(__FILE__, __LINE__, "row value in range and kept", v, n);
            continue;
        }
        if (seen[v]++)
            check_fail_int(__FILE__, __LINE__, "row value seen once", v, v);
        else
            distinct++;
    }
    free(seen);
    return distinct;
}

static int any_value(int v) {
    (void)v;
    return 1;
}

static int third_is_one(int v) {
    return v % 3 == 1;
}

/* [:<prefix>K :n K] and [:<prefix>K :sq K*K] for K in [0, n). */
static void add_numbers(MiniGrafDb *db, const char *prefix, int n) {
    text tx = {0};
    text_add(&tx, "(transact [");
    for (int k = 0; k < n; k++)
        text_add(&tx, "[:%s%d :n %d] [:%s%d :sq %d]", prefix, k, k, prefix, k, k * k);
    TRANSACT_TEXT(db, &tx);
}

/* ---- result sizes ------------------------------------------------------- */

/* n entities :sK with :v K, :w 3K, :h K for even K, :next :s(K+1). */
static void check_result_size(int n) {
    MiniGrafDb *db = open_memory_db();
    text tx = {0}, rows = {0};
    text_add(&tx, "(transact [[:other :x 1]");
    for (int k = 0; k < n; k++) {
        text_add(&tx, "[:s%d :v %d] [:s%d :w %d]", k, k, k, 3 * k);
        if (k % 2 == 0)
            text_add(&tx, "[:s%d :h %d]", k, k);
        if (k + 1 < n)
            text_add(&tx, "[:s%d :next :s%d]", k, k + 1);
    }
    TRANSACT_TEXT(db, &tx);

    for (int k = 0; k < n; k++)
        row_add(&rows, "[%d]", k);
    EXPECT_ROWS(db, "(query [:find ?v :where [?e :v ?v]])", "\"?v\"", &rows);
    for (int k = 0; k < n; k++)
        row_add(&rows, "[%d,%d]", k, 3 * k);
    EXPECT_ROWS(db, "(query [:find ?v ?w :where [?e :v ?v] [?e :w ?w]])", "\"?v\",\"?w\"", &rows);
    for (int k = 0; k < n; k += 2)
        row_add(&rows, "[%d,%d]", k, k);
    EXPECT_ROWS(db, "(query [:find ?v ?h :where [?e :v ?v] [?e :h ?h]])", "\"?v\",\"?h\"", &rows);
    for (int k = 0; k + 1 < n; k++)
        row_add(&rows, "[%d,%d]", k, k + 1);
    EXPECT_ROWS(db, "(query [:find ?v ?u :where [?e :v ?v] [?e :next ?f] [?f :v ?u]])",
                "\"?v\",\"?u\"", &rows);
    minigraf_close(db);
}

TEST(scan_and_join_sizes_around_multiples_of_64) {
    static const int sizes[] = {0, 1, 63, 64, 65, 127, 128, 129, 1000, 5000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        check_result_size(sizes[i]);
}

TEST(file_scan_across_checkpointed_pages_and_the_log) {
    /* 3000 rows checkpointed into the file, 130 more in the log, every
     * 9th of the first retracted afterwards. */
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    add_numbers(db, "n", 3000);
    CHECK_INT_EQ(minigraf_checkpoint(db), 0);
    text tx = {0}, rows = {0};
    text_add(&tx, "(transact [");
    for (int k = 3000; k < 3130; k++)
        text_add(&tx, "[:n%d :n %d] [:n%d :sq %d]", k, k, k, k * k);
    TRANSACT_TEXT(db, &tx);
    text_add(&tx, "(retract [");
    for (int k = 0; k < 3000; k += 9)
        text_add(&tx, "[:n%d :n %d]", k, k);
    text_add(&tx, "])");
    EXPECT_RETRACT(db, tx.s);
    text_free(&tx);
    for (int k = 0; k < 3130; k++)
        if (k >= 3000 || k % 9 != 0)
            row_add(&rows, "[%d,%d]", k, k * k);
    EXPECT_ROWS(db, "(query [:find ?v ?s :where [?e :n ?v] [?e :sq ?s]])", "\"?v\",\"?s\"", &rows);
    row_add(&rows, "[%d]", 2 * 3130 - 3000 / 9 - 1);
    EXPECT_ROWS(db, "(query [:find (count ?v) :where [?e ?a ?v]])", "\"(count ?v)\"", &rows);
    minigraf_close(db);
    temp_db_remove(&t);
}

/* ---- one outer row with many matches ------------------------------------ */

/* Tags per entity :fK: a large expansion between small ones, and sizes
 * around 64, so expansions start and end in the middle of a batch. */
static const int FAN[] = {3, 300, 1, 0, 64, 65, 2, 129, 5, 63, 128, 7};
#define FAN_N ((int)(sizeof FAN / sizeof FAN[0]))

static MiniGrafDb *fan_db(void) {
    MiniGrafDb *db = open_memory_db();
    text tx = {0};
    text_add(&tx, "(transact [");
    for (int k = 0; k < FAN_N; k++) {
        text_add(&tx, "[:f%d :name \"f%d\"] [:f%d :kind \"x\"] [:f%d :kind \"y\"]", k, k, k, k);
        for (int j = 0; j < FAN[k]; j++)
            text_add(&tx, "[:f%d :tag %d]", k, k * 1000 + j);
    }
    TRANSACT_TEXT(db, &tx);
    return db;
}

TEST(large_expansion_between_small_ones) {
    MiniGrafDb *db = fan_db();
    text rows = {0};
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < FAN_N; k++)
            for (int j = 0; j < FAN[k]; j++)
                row_add(&rows, "[\"f%d\",%d]", k, k * 1000 + j);
        EXPECT_ROWS(db,
                    pass == 0 ? "(query [:find ?n ?t :where [?e :name ?n] [?e :tag ?t]])"
                              : "(query [:find ?n ?t :where [?e :tag ?t] [?e :name ?n]])",
                    "\"?n\",\"?t\"", &rows);
    }
    for (int k = 0; k < FAN_N; k++)
        for (int j = 0; j < FAN[k]; j++) {
            row_add(&rows, "[\"f%d\",%d,\"x\"]", k, k * 1000 + j);
            row_add(&rows, "[\"f%d\",%d,\"y\"]", k, k * 1000 + j);
        }
    EXPECT_ROWS(db, "(query [:find ?n ?t ?k :where [?e :name ?n] [?e :tag ?t] [?e :kind ?k]])",
                "\"?n\",\"?t\",\"?k\"", &rows);
    for (int j = 0; j < FAN[1]; j++)
        row_add(&rows, "[%d]", 1000 + j);
    EXPECT_ROWS(db, "(query [:find ?t :where [:f1 :tag ?t]])", "\"?t\"", &rows);
    minigraf_close(db);
}

TEST(many_outer_rows_with_mixed_expansions) {
    /* 100 groups :gK with (37K mod 70) items each: 0 to 69 matches. */
    MiniGrafDb *db = open_memory_db();
    text tx = {0}, rows = {0};
    text_add(&tx, "(transact [");
    for (int k = 0; k < 100; k++) {
        text_add(&tx, "[:g%d :gid %d]", k, k);
        for (int j = 0; j < (37 * k) % 70; j++)
            text_add(&tx, "[:g%d :item %d]", k, k * 100 + j);
    }
    TRANSACT_TEXT(db, &tx);
    for (int k = 0; k < 100; k++)
        for (int j = 0; j < (37 * k) % 70; j++)
            row_add(&rows, "[%d,%d]", k, k * 100 + j);
    EXPECT_ROWS(db, "(query [:find ?k ?i :where [?g :gid ?k] [?g :item ?i]])", "\"?k\",\"?i\"",
                &rows);
    minigraf_close(db);
}

/* ---- filters ------------------------------------------------------------ */

TEST(filter_keeps_every_seventh_row) {
    MiniGrafDb *db = open_memory_db();
    add_numbers(db, "n", 1000);
    text rows = {0};
    for (int k = 0; k < 1000; k += 7)
        row_add(&rows, "[%d]", k);
    EXPECT_ROWS(db, "(query [:find ?v :where [?e :n ?v] [(= (* (/ ?v 7) 7) ?v)]])", "\"?v\"",
                &rows);
    for (int k = 0; k < 1000; k += 7)
        row_add(&rows, "[%d,%d]", k, k * k);
    EXPECT_ROWS(db, "(query [:find ?v ?s :where [?e :n ?v] [(= (* (/ ?v 7) 7) ?v)] [?e :sq ?s]])",
                "\"?v\",\"?s\"", &rows);
    minigraf_close(db);
}

TEST(filter_keeps_none_one_or_a_band) {
    MiniGrafDb *db = open_memory_db();
    add_numbers(db, "n", 1000);
    text rows = {0};
    EXPECT_ROWS(db, "(query [:find ?v :where [?e :n ?v] [(> ?v 5000)]])", "\"?v\"", &rows);
    EXPECT_ROWS(db, "(query [:find ?v ?s :where [?e :n ?v] [(< ?v 0)] [?e :sq ?s]])",
                "\"?v\",\"?s\"", &rows);
    row_add(&rows, "[999]");
    EXPECT_ROWS(db, "(query [:find ?v :where [?e :n ?v] [(= ?v 999)]])", "\"?v\"", &rows);
    for (int k = 501; k <= 510; k++)
        row_add(&rows, "[%d,%d]", k, k * k);
    EXPECT_ROWS(db,
                "(query [:find ?v ?s :where [?e :n ?v] [(> ?v 500)] [(<= ?v 510)] [?e :sq ?s]])",
                "\"?v\",\"?s\"", &rows);
    minigraf_close(db);
}

TEST(binding_expression_output_joins_a_pattern) {
    MiniGrafDb *db = open_memory_db();
    add_numbers(db, "n", 1000);
    text tx = {0}, rows = {0};
    text_add(&tx, "(transact [");
    for (int k = 0; k < 1000; k++)
        text_add(&tx, "[:m%d :m %d]", k, k);
    TRANSACT_TEXT(db, &tx);
    for (int k = 0; 2 * k < 1000; k++)
        row_add(&rows, "[%d,%d]", k, 2 * k);
    EXPECT_ROWS(db, "(query [:find ?v ?w :where [?e :n ?v] [(* ?v 2) ?w] [?g :m ?w]])",
                "\"?v\",\"?w\"", &rows);
    for (int k = 0; k + 1 < 1000; k++)
        row_add(&rows, "[%d]", k);
    EXPECT_ROWS(db, "(query [:find ?v :where [?e :n ?v] [(+ ?v 1) ?w] [?g :m ?w]])", "\"?v\"",
                &rows);
    minigraf_close(db);
}

/* ---- not and or --------------------------------------------------------- */

/* :xK :n K for K < 1000, with flags: :bad when K mod 10 != 0, :rare when
 * K mod 97 == 0, :two / :three on multiples of 2 / 3, :tagged (three values)
 * on multiples of 4; blockers :bK :blocked K for multiples of 3. */
static MiniGrafDb *flags_db(void) {
    MiniGrafDb *db = open_memory_db();
    add_numbers(db, "x", 1000);
    text tx = {0};
    text_add(&tx, "(transact [");
    for (int k = 0; k < 1000; k++) {
        if (k % 10 != 0)
            text_add(&tx, "[:x%d :bad true]", k);
        if (k % 97 == 0)
            text_add(&tx, "[:x%d :rare true]", k);
        if (k % 2 == 0)
            text_add(&tx, "[:x%d :two true]", k);
        if (k % 3 == 0)
            text_add(&tx, "[:x%d :three true] [:b%d :blocked %d]", k, k, k);
        if (k % 4 == 0)
            text_add(&tx, "[:x%d :tagged 1] [:x%d :tagged 2] [:x%d :tagged 3]", k, k, k);
    }
    TRANSACT_TEXT(db, &tx);
    return db;
}

/* The rows [K] of K < 1000 for which `keep(K)` holds. */
static void rows_where(text *rows, int (*keep)(int)) {
    for (int k = 0; k < 1000; k++)
        if (keep(k))
            row_add(rows, "[%d]", k);
}

static int tenth(int k) {
    return k % 10 == 0;
}
static int not_rare(int k) {
    return k % 97 != 0;
}
static int not_third(int k) {
    return k % 3 != 0;
}
static int from_990(int k) {
    return k >= 990;
}
static int tenth_not_rare(int k) {
    return k % 10 == 0 && k % 97 != 0;
}
static int square_from_1000(int k) {
    return k * k >= 1000;
}
static int two_or_three(int k) {
    return k % 2 == 0 || k % 3 == 0;
}
static int small_two_or_three(int k) {
    return (k % 2 == 0 && k < 500) || k % 3 == 0;
}
static int fourth_or_late_third(int k) {
    return k % 4 == 0 || (k % 3 == 0 && k > 900);
}
static int odd(int k) {
    return k % 2 != 0;
}
static int third(int k) {
    return k % 3 == 0;
}

/* Adds 200 :hub/member values: a negated or disjoined body joined with
 * them has 200 solutions for each outer row it matches. */
static void add_hub(MiniGrafDb *db) {
    text tx = {0};
    text_add(&tx, "(transact [");
    for (int m = 0; m < 200; m++)
        text_add(&tx, "[:hub :member %d]", m);
    TRANSACT_TEXT(db, &tx);
}

TEST(not_excludes_most_or_few_of_1000_rows) {
    MiniGrafDb *db = flags_db();
    text rows = {0};
    rows_where(&rows, tenth);
    EXPECT_ROWS(db, "(query [:find ?v :where [?e :n ?v] (not [?e :bad true])])", "\"?v\"", &rows);
    rows_where(&rows, not_rare);
    EXPECT_ROWS(db, "(query [:find ?v :where [?e :n ?v] (not [?e :rare true])])", "\"?v\"", &rows);
    rows_where(&rows, tenth_not_rare);
    EXPECT_ROWS(db,
                "(query [:find ?v :where [?e :n ?v] (not [?e :bad true]) (not [?e :rare true])])",
                "\"?v\"", &rows);
    rows_where(&rows, from_990);
    EXPECT_ROWS(db, "(query [:find ?v :where [?e :n ?v] (not [(< ?v 990)])])", "\"?v\"", &rows);
    rows_where(&rows, square_from_1000);
    EXPECT_ROWS(db, "(query [:find ?v :where [?e :n ?v] (not [?e :sq ?s] [(< ?s 1000)])])",
                "\"?v\"", &rows);
    minigraf_close(db);
}

TEST(not_join_excludes_by_a_value_of_another_entity) {
    MiniGrafDb *db = flags_db();
    text rows = {0};
    rows_where(&rows, not_third);
    EXPECT_ROWS(db, "(query [:find ?v :where [?e :n ?v] (not-join [?v] [?b :blocked ?v])])",
                "\"?v\"", &rows);
    rows_where(&rows, tenth);
    EXPECT_ROWS(db, "(query [:find ?v :where [?e :n ?v] (not-join [?e] [?e :bad ?x])])", "\"?v\"",
                &rows);
    minigraf_close(db);
}

TEST(or_unions_branches_of_many_rows_once) {
    MiniGrafDb *db = flags_db();
    text rows = {0};
    rows_where(&rows, two_or_three);
    EXPECT_ROWS(db, "(query [:find ?v :where [?e :n ?v] (or [?e :two true] [?e :three true])])",
                "\"?v\"", &rows);
    rows_where(&rows, small_two_or_three);
    EXPECT_ROWS(db,
                "(query [:find ?v :where [?e :n ?v] "
                "(or (and [?e :two true] [(< ?v 500)]) [?e :three true])])",
                "\"?v\"", &rows);
    rows_where(&rows, fourth_or_late_third);
    EXPECT_ROWS(
        db,
        "(query [:find ?v :where [?e :n ?v] "
        "(or-join [?e] [?e :tagged ?t] (and [?e :three true] [?e :sq ?s] [(> ?s 810000)]))])",
        "\"?v\"", &rows);
    minigraf_close(db);
}

TEST(bodies_with_many_solutions_per_outer_row) {
    MiniGrafDb *db = flags_db();
    add_hub(db);
    text rows = {0};
    rows_where(&rows, odd);
    EXPECT_ROWS(db, "(query [:find ?v :where [?e :n ?v] (not [?e :two true] [?h :member ?m])])",
                "\"?v\"", &rows);
    rows_where(&rows, third);
    EXPECT_ROWS(db,
                "(query [:find ?v :where [?e :n ?v] (or-join [?e] (and [?e :three true] [?h "
                ":member ?m]))])",
                "\"?v\"", &rows);
    for (int k = 0; k < 1000; k += 3)
        for (int m = 0; m < 200; m += 50)
            row_add(&rows, "[%d,%d]", k, m);
    EXPECT_ROWS(db,
                "(query [:find ?v ?m :where [?e :n ?v] "
                "(or (and [?e :three true] [:hub :member ?m] [(= ?m (* (/ ?m 50) 50))]) "
                "(and [?e :rare true] [?e :three true] [:hub :member ?m] [(= ?m 0)]))])",
                "\"?v\",\"?m\"", &rows);
    minigraf_close(db);
}

TEST(or_deduplicates_new_variable_across_branches) {
    /* :p K mod 4 on every K; :q the same value on even K (a duplicate of
     * the first branch) and 7 on multiples of 5. */
    MiniGrafDb *db = open_memory_db();
    text tx = {0}, rows = {0};
    text_add(&tx, "(transact [");
    for (int k = 0; k < 1000; k++) {
        text_add(&tx, "[:y%d :n %d] [:y%d :p %d]", k, k, k, k % 4);
        if (k % 2 == 0)
            text_add(&tx, "[:y%d :q %d]", k, k % 4);
        if (k % 5 == 0)
            text_add(&tx, "[:y%d :q 7]", k);
    }
    TRANSACT_TEXT(db, &tx);
    for (int k = 0; k < 1000; k++) {
        row_add(&rows, "[%d,%d]", k, k % 4);
        if (k % 5 == 0)
            row_add(&rows, "[%d,7]", k);
    }
    EXPECT_ROWS(db, "(query [:find ?v ?x :where [?e :n ?v] (or [?e :p ?x] [?e :q ?x])])",
                "\"?v\",\"?x\"", &rows);
    minigraf_close(db);
}

/* ---- :limit and :offset ------------------------------------------------- */

/* :lK :n K and :lK :g (K mod 3) for K < 1000. */
static MiniGrafDb *limit_db(void) {
    MiniGrafDb *db = open_memory_db();
    text tx = {0};
    text_add(&tx, "(transact [");
    for (int k = 0; k < 1000; k++)
        text_add(&tx, "[:l%d :n %d] [:l%d :g %d]", k, k, k, k % 3);
    TRANSACT_TEXT(db, &tx);
    return db;
}

TEST(ordered_limit_and_offset_cross_64) {
    static const int limits[] = {0, 1, 63, 64, 65, 127, 128, 129};
    static const int slices[][2] = {{60, 10}, {64, 64}, {63, 65}, {995, 64}, {1000, 10}, {1200, 1}};
    MiniGrafDb *db = limit_db();
    text rows = {0};
    char q[160];
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        for (int k = 0; k < limits[i]; k++)
            row_add(&rows, "[%d]", k);
        snprintf(q, sizeof q, "(query [:find ?v :where [?e :n ?v] :order-by [?v] :limit %d])",
                 limits[i]);
        EXPECT_ORDERED_ROWS(db, q, "\"?v\"", &rows);
    }
    for (size_t i = 0; i < sizeof slices / sizeof slices[0]; i++) {
        int offset = slices[i][0], limit = slices[i][1];
        for (int k = offset; k < offset + limit && k < 1000; k++)
            row_add(&rows, "[%d]", k);
        snprintf(q, sizeof q,
                 "(query [:find ?v :where [?e :n ?v] :order-by [?v] :offset %d :limit %d])", offset,
                 limit);
        EXPECT_ORDERED_ROWS(db, q, "\"?v\"", &rows);
        for (int k = 999 - offset; k > 999 - offset - limit && k >= 0; k--)
            row_add(&rows, "[%d]", k);
        snprintf(q, sizeof q,
                 "(query [:find ?v :where [?e :n ?v] :order-by [?v :desc] :offset %d :limit %d])",
                 offset, limit);
        EXPECT_ORDERED_ROWS(db, q, "\"?v\"", &rows);
    }
    for (int k = 1000 - 5; k < 1000; k++)
        row_add(&rows, "[%d]", k);
    EXPECT_ORDERED_ROWS(db, "(query [:find ?v :where [?e :n ?v] :order-by [?v] :offset 995])",
                        "\"?v\"", &rows);
    minigraf_close(db);
}

TEST(ordered_limit_after_join_and_two_keys) {
    MiniGrafDb *db = limit_db();
    text rows = {0};
    int taken = 0;
    for (int k = 1; taken < 65; k += 3, taken++)
        row_add(&rows, "[%d]", k);
    EXPECT_ORDERED_ROWS(db,
                        "(query [:find ?v :where [?e :n ?v] [?e :g 1] :order-by [?v] :limit 65])",
                        "\"?v\"", &rows);
    /* :g descending, then :n ascending: position p of that order. */
    int position = 0;
    for (int g = 2; g >= 0; g--)
        for (int k = g; k < 1000; k += 3, position++)
            if (position >= 300 && position < 370)
                row_add(&rows, "[%d,%d]", g, k);
    EXPECT_ORDERED_ROWS(db,
                        "(query [:find ?g ?v :where [?e :n ?v] [?e :g ?g] "
                        ":order-by [?g :desc ?v] :offset 300 :limit 70])",
                        "\"?g\",\"?v\"", &rows);
    minigraf_close(db);
}

/* A top-k whose second key is a text: rows tied on the first key are
 * ordered by the text's bytes, whose order here is the reverse of the
 * order the texts were stored in (with every column a key the order is
 * fully specified, language.md D3). */
TEST(top_k_orders_ties_by_a_text_key) {
    MiniGrafDb *db = open_memory_db();
    text tx = {0};
    text_add(&tx, "(transact [");
    for (int k = 0; k < 300; k++)
        text_add(&tx, "[:t%d :k %d] [:t%d :name \"n%03d\"]", k, k % 3, k, 999 - k);
    TRANSACT_TEXT(db, &tx);
    text rows = {0};
    for (int k = 299, taken = 0; taken < 70; k -= 3, taken++)
        if (taken >= 5)
            row_add(&rows, "[2,\"n%03d\"]", 999 - k);
    EXPECT_ORDERED_ROWS(db,
                        "(query [:find ?k ?n :where [?e :k ?k] [?e :name ?n] "
                        ":order-by [?k :desc ?n] :offset 5 :limit 65])",
                        "\"?k\",\"?n\"", &rows);
    minigraf_close(db);
}

/* Runs an unordered query of one-integer rows: `want` rows, each a value
 * below 1000 that `keep` accepts, none twice. */
static void check_unordered_slice(MiniGrafDb *db, const char *query, int want, int (*keep)(int)) {
    long long values[1000];
    char *got = EXEC(db, query);
    if (got == NULL)
        return;
    int count = int_rows(got, values, 1000);
    if (count < 0)
        check_fail_str(__FILE__, __LINE__, query, got, "one-integer rows");
    else
        CHECK_INT_EQ(check_distinct_in_range(values, count, 1000, keep), want);
    CHECK_INT_EQ(count, want);
    minigraf_string_free(got);
}

TEST(unordered_limit_and_offset_count_distinct_rows) {
    static const int slices[][2] = {{0, 63},   {0, 64},    {0, 65},   {60, 10}, {64, 64},
                                    {990, 64}, {1000, 10}, {0, 2000}, {0, 0}};
    MiniGrafDb *db = limit_db();
    char q[160];
    for (size_t i = 0; i < sizeof slices / sizeof slices[0]; i++) {
        int offset = slices[i][0], limit = slices[i][1];
        int want = 1000 - offset < limit ? 1000 - offset : limit;
        snprintf(q, sizeof q, "(query [:find ?v :where [?e :n ?v] :offset %d :limit %d])", offset,
                 limit);
        check_unordered_slice(db, q, want > 0 ? want : 0, any_value);
    }
    check_unordered_slice(db, "(query [:find ?v :where [?e :n ?v] [?e :g 1] :limit 65])", 65,
                          third_is_one);
    check_unordered_slice(db,
                          "(query [:find ?v :where [?e :n ?v] [?e :g 1] :offset 300 :limit 65])",
                          33, third_is_one);
    check_unordered_slice(db, "(query [:find ?v :where [?e :n ?v] :offset 936])", 64, any_value);
    minigraf_close(db);
}

/* ---- aggregates and windows --------------------------------------------- */

/* :aK :grp (K mod 7), :val K, :dec K/10 for K < 1200. */
#define AGG_N 1200

static MiniGrafDb *agg_db(void) {
    MiniGrafDb *db = open_memory_db();
    text tx = {0};
    text_add(&tx, "(transact [");
    for (int k = 0; k < AGG_N; k++)
        text_add(&tx, "[:a%d :grp %d] [:a%d :val %d] [:a%d :dec %d]", k, k % 7, k, k, k, k / 10);
    TRANSACT_TEXT(db, &tx);
    return db;
}

TEST(aggregates_grouped_over_1200_rows) {
    MiniGrafDb *db = agg_db();
    text rows = {0};
    for (int g = 0; g < 7; g++) {
        long long count = 0, sum = 0, max = 0;
        for (int k = g; k < AGG_N; k += 7, count++)
            sum += k, max = k;
        row_add(&rows, "[%d,%lld,%lld,%d,%lld]", g, count, sum, g, max);
    }
    EXPECT_ROWS(
        db,
        "(query [:find ?g (count ?v) (sum ?v) (min ?v) (max ?v) :where [?e :grp ?g] [?e :val ?v]])",
        "\"?g\",\"(count ?v)\",\"(sum ?v)\",\"(min ?v)\",\"(max ?v)\"", &rows);
    for (int g = 0; g < 7; g++) {
        char seen[AGG_N / 10] = {0};
        int distinct = 0;
        for (int k = g; k < AGG_N; k += 7)
            distinct += !seen[k / 10]++;
        row_add(&rows, "[%d,%d]", g, distinct);
    }
    EXPECT_ROWS(db, "(query [:find ?g (count-distinct ?d) :where [?e :grp ?g] [?e :dec ?d]])",
                "\"?g\",\"(count-distinct ?d)\"", &rows);
    long long total = 0;
    for (int k = 0; k < AGG_N; k++)
        total += k;
    row_add(&rows, "[%d,%lld,7]", AGG_N, total);
    EXPECT_ROWS(
        db,
        "(query [:find (count ?v) (sum ?v) (count-distinct ?g) :where [?e :val ?v] [?e :grp ?g]])",
        "\"(count ?v)\",\"(sum ?v)\",\"(count-distinct ?g)\"", &rows);
    minigraf_close(db);
}

/* With at most one aggregate that can fail (count and avg cannot), a
 * block's solutions find their groups first and then step each aggregate
 * in turn: the same answers, and the error a solution at a time would
 * report. */
TEST(aggregates_stepped_one_at_a_time_over_1200_rows) {
    MiniGrafDb *db = agg_db();
    text rows = {0};
    for (int d = 0; d < AGG_N / 10; d++)
        row_add(&rows, "[%d,10,%d,10]", d, 10 * d + 9);
    EXPECT_ROWS(
        db, "(query [:find ?d (count ?v) (max ?v) (count ?e) :where [?e :dec ?d] [?e :val ?v]])",
        "\"?d\",\"(count ?v)\",\"(max ?v)\",\"(count ?e)\"", &rows);
    row_add(&rows, "[%d,%.1f,%d,%d]", AGG_N, (AGG_N - 1) / 2.0, AGG_N - 1, AGG_N);
    EXPECT_ROWS(db, "(query [:find (count ?v) (avg ?v) (max ?v) (count ?e) :where [?e :val ?v]])",
                "\"(count ?v)\",\"(avg ?v)\",\"(max ?v)\",\"(count ?e)\"", &rows);
    EXPECT_TRANSACT(db, "(transact [[:text :val \"oops\"]])");
    EXPECT_ERROR(db, "(query [:find (count ?v) (sum ?v) :where [?e :val ?v]])", "INT-041");
    CHECK_STR_EQ(minigraf_last_error(db),
                 "[INT-041] sum: expected Integer, Float, or Null, got String");
    minigraf_close(db);
}

TEST(aggregate_with_more_groups_than_a_batch) {
    MiniGrafDb *db = agg_db();
    text rows = {0};
    for (int d = 0; d < AGG_N / 10; d++)
        row_add(&rows, "[%d,10,%d,%d]", d, 100 * d + 45, 10 * d);
    EXPECT_ROWS(db,
                "(query [:find ?d (count ?e) (sum ?v) (min ?v) :where [?e :dec ?d] [?e :val ?v]])",
                "\"?d\",\"(count ?e)\",\"(sum ?v)\",\"(min ?v)\"", &rows);
    minigraf_close(db);
}

/* Grouping by one column looks a key up by its representation first
 * (a stored value's id, a number's bits) and by its value (O3) after:
 * 0.0 and -0.0 are one group, 1 and 1.0 two; texts computed by an
 * expression (not stored) group with nothing stored; 20,000 groups
 * outgrow the lookup's memo. */
TEST(grouping_by_one_column_keeps_o3_equality) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:g1 :gk 1] [:g2 :gk 1.0] [:g3 :gk 0.0] [:g4 :gk -0.0] "
                        "[:g5 :gk 0.0] [:g6 :gk :a] [:g7 :gk :a] [:g8 :gk \"a\"] [:g9 :gk true] "
                        "[:g10 :gk 1]])");
    /* one row per group, the key left out (:with): which zero names the
     * zeros' group is the first one read */
    static const char *const groups = "[2],[1],[3],[2],[1],[1]";
    text rows = {0};
    text_add(&rows, "%s", groups);
    EXPECT_ROWS(db, "(query [:find (count ?e) :with ?v :where [?e :gk ?v]])", "\"(count ?e)\"",
                &rows);
    /* computed floats: -1.0 once, and 0.0 * -1.0, -0.0 * -1.0, 0.0 * -1.0 */
    text_add(&rows, "[1],[3]");
    EXPECT_ROWS(db,
                "(query [:find (count ?e) :with ?w :where [?e :gk ?v] [(float? ?v)] "
                "[(* ?v -1.0) ?w]])",
                "\"(count ?e)\"", &rows);
    /* the values a rule derives, as the stored ones */
    EXPECT_EXEC(db, "(rule [(gv ?e ?v) [?e :gk ?v]])", OK);
    text_add(&rows, "%s", groups);
    EXPECT_ROWS(db, "(query [:find (count ?e) :with ?v :where (gv ?e ?v)])", "\"(count ?e)\"",
                &rows);
    row_add(&rows, "[1,2]");
    row_add(&rows, "[\":a\",2]");
    row_add(&rows, "[\"a\",1]");
    row_add(&rows, "[true,1]");
    EXPECT_ROWS(db, "(query [:find ?v (count ?e) :where [?e :gk ?v] (not [(float? ?v)])])",
                "\"?v\",\"(count ?e)\"", &rows);
    minigraf_close(db);

    db = open_memory_db();
    enum { GROUPS = 20000 };
    text tx = {0};
    text_add(&tx, "(transact [");
    for (int i = 0; i < 3 * GROUPS; i++)
        text_add(&tx, "[:m%d :mk %d]", i, (i * 7919) % GROUPS);
    TRANSACT_TEXT(db, &tx);
    for (int g = 0; g < GROUPS; g++)
        row_add(&rows, "[%d,3]", g);
    EXPECT_ROWS(db, "(query [:find ?k (count ?e) :where [?e :mk ?k]])", "\"?k\",\"(count ?e)\"",
                &rows);
    minigraf_close(db);
}

/* A variable that occurs once and that nothing reads is planned as `_`
 * (it is neither bound nor exported): answers keep one row per matched
 * record, a variable repeated in one pattern still compares its
 * positions, and a pseudo-attribute still reads its pattern's record. */
TEST(variables_read_nowhere_match_like_wildcards) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db,
                    "(transact [[:n1 :name \"Alice\"] [:n2 :name \"Alice\"] [:n3 :name \"Bob\"] "
                    "[:s1 :self :self] [:s2 :self :s1]])");
    EXPECT_EXEC(db, "(query [:find ?n :where [?e :name ?n]])",
                "{\"variables\":[\"?n\"],\"results\":[[\"Alice\"],[\"Alice\"],[\"Bob\"]]}");
    EXPECT_EXEC(db, "(query [:find (count ?n) :where [?e ?a ?n] [(string? ?n)]])",
                "{\"variables\":[\"(count ?n)\"],\"results\":[[3]]}");
    EXPECT_EXEC(db, "(query [:find (count ?e) :where [?e ?x ?x]])",
                "{\"variables\":[\"(count ?e)\"],\"results\":[[1]]}");
    EXPECT_EXEC(db,
                "(query [:find (count ?t) :any-valid-time :where [?e :name ?n] "
                "[?e :db/tx-count ?t]])",
                "{\"variables\":[\"(count ?t)\"],\"results\":[[3]]}");
    EXPECT_EXEC(db, "(query [:find (count ?v) :with ?e :where [?e :name ?v]])",
                "{\"variables\":[\"(count ?v)\"],\"results\":[[1],[1],[1]]}");
    minigraf_close(db);
}

/* :wK :s 10K and :p (K mod 3) for K in 1..200. */
static MiniGrafDb *window_db(void) {
    MiniGrafDb *db = open_memory_db();
    text tx = {0};
    text_add(&tx, "(transact [");
    for (int k = 1; k <= 200; k++)
        text_add(&tx, "[:w%d :s %d] [:w%d :p %d]", k, 10 * k, k, k % 3);
    TRANSACT_TEXT(db, &tx);
    return db;
}

TEST(window_functions_over_200_rows) {
    MiniGrafDb *db = window_db();
    text rows = {0};
    for (int k = 1; k <= 200; k++)
        row_add(&rows, "[%d,%d,%d]", 10 * k, k, 5 * k * (k + 1));
    EXPECT_ROWS(db,
                "(query [:find ?s (row-number :over (:order-by ?s)) (sum ?s :over (:order-by ?s)) "
                ":where [?e :s ?s]])",
                "\"?s\",\"(row-number :over ...)\",\"(sum ?s :over ...)\"", &rows);
    for (int k = 1; k <= 200; k++) {
        int above = 0, upto = 0;
        for (int j = 1; j <= 200; j++)
            if (j % 3 == k % 3) {
                above += j > k;
                upto += j <= k;
            }
        row_add(&rows, "[%d,%d,%d,%d]", 10 * k, k % 3, above + 1, upto);
    }
    EXPECT_ROWS(db,
                "(query [:find ?s ?p (rank :over (:partition-by ?p :order-by ?s :desc)) "
                "(count ?s :over (:partition-by ?p :order-by ?s)) :where [?e :s ?s] [?e :p ?p]])",
                "\"?s\",\"?p\",\"(rank :over ...)\",\"(count ?s :over ...)\"", &rows);
    minigraf_close(db);
}

/* ---- pseudo-attributes -------------------------------------------------- */

#define DAY_MS 86400000LL
#define MS_2020_01_01 1577836800000LL
#define MS_2025_01_01 1735689600000LL
#define FOREVER 9223372036854775807LL

/* Transactions 1..5 write :pK :pv K for 50 entities each, valid from
 * 2020-01-0<tx>; transaction 6 writes :pK :pw 2K for all 250. */
static MiniGrafDb *pseudo_db(void) {
    MiniGrafDb *db = open_memory_db();
    for (int t = 1; t <= 5; t++) {
        text tx = {0};
        text_add(&tx, "(transact {:valid-from \"2020-01-0%d\"} [", t);
        for (int k = 50 * (t - 1); k < 50 * t; k++)
            text_add(&tx, "[:p%d :pv %d]", k, k);
        TRANSACT_TEXT(db, &tx);
    }
    text tx = {0};
    text_add(&tx, "(transact [");
    for (int k = 0; k < 250; k++)
        text_add(&tx, "[:p%d :pw %d]", k, 2 * k);
    TRANSACT_TEXT(db, &tx);
    CHECK_INT_EQ(tx_count(db), 6);
    return db;
}

TEST(pseudo_attributes_follow_the_preceding_pattern_over_250_records) {
    MiniGrafDb *db = pseudo_db();
    text rows = {0};
    for (int k = 0; k < 250; k++)
        row_add(&rows, "[%d,%d]", k, k / 50 + 1);
    EXPECT_ROWS(db, "(query [:find ?v ?t :any-valid-time :where [?e :pv ?v] [?e :db/tx-count ?t]])",
                "\"?v\",\"?t\"", &rows);
    for (int k = 0; k < 250; k++)
        row_add(&rows, "[%d,%lld,%lld]", k, MS_2020_01_01 + (k / 50) * DAY_MS, FOREVER);
    EXPECT_ROWS(db,
                "(query [:find ?v ?f ?to :any-valid-time "
                ":where [?e :pv ?v] [?e :db/valid-from ?f] [?e :db/valid-to ?to]])",
                "\"?v\",\"?f\",\"?to\"", &rows);
    for (int k = 0; k < 250; k++)
        row_add(&rows, "[%d,6]", k);
    EXPECT_ROWS(
        db,
        "(query [:find ?v ?t :any-valid-time :where [?e :pv ?v] [?e :pw ?w] [?e :db/tx-count ?t]])",
        "\"?v\",\"?t\"", &rows);
    for (int k = 0; k < 250; k++)
        row_add(&rows, "[%d,%lld]", k, MS_2025_01_01);
    EXPECT_ROWS(
        db,
        "(query [:find ?v ?at :valid-at \"2025-01-01\" :where [?e :pv ?v] [?e :db/valid-at ?at]])",
        "\"?v\",\"?at\"", &rows);
    minigraf_close(db);
}

TEST(uncorrelated_pseudo_attribute_ranges_over_every_record) {
    MiniGrafDb *db = pseudo_db();
    text rows = {0};
    for (int t = 1; t <= 5; t++)
        row_add(&rows, "[%d,50]", t);
    row_add(&rows, "[6,250]");
    EXPECT_ROWS(db, "(query [:find ?t (count ?e) :any-valid-time :where [?e :db/tx-count ?t]])",
                "\"?t\",\"(count ?e)\"", &rows);
    row_add(&rows, "[1]");
    row_add(&rows, "[6]");
    EXPECT_ROWS(db, "(query [:find ?t :any-valid-time :where [:p3 :db/tx-count ?t]])", "\"?t\"",
                &rows);
    minigraf_close(db);
}

/* ---- rules -------------------------------------------------------------- */

TEST(recursive_rule_over_a_500_node_chain) {
    MiniGrafDb *db = open_memory_db();
    text tx = {0}, rows = {0};
    text_add(&tx, "(transact [");
    for (int k = 0; k + 1 < 500; k++)
        text_add(&tx, "[:c%d :edge :c%d]", k, k + 1);
    TRANSACT_TEXT(db, &tx);
    EXPECT_EXEC(db, "(rule [(anc ?x ?y) [?x :edge ?y]])", OK);
    EXPECT_EXEC(db, "(rule [(anc ?x ?y) [?x :edge ?z] (anc ?z ?y)])", OK);
    row_add(&rows, "[%d]", 500 * 499 / 2);
    EXPECT_ROWS(db, "(query [:find (count ?y) :where (anc ?x ?y)])", "\"(count ?y)\"", &rows);
    for (int k = 101; k < 500; k++)
        row_add(&rows, "[\":c%d\"]", k);
    EXPECT_ROWS(db, "(query [:find ?y :where (anc :c100 ?y)])", "\"?y\"", &rows);
    row_add(&rows, "[499]");
    EXPECT_ROWS(db, "(query [:find (count ?x) :where (anc ?x :c499)])", "\"(count ?x)\"", &rows);
    minigraf_close(db);
}

TEST(non_recursive_rule_body_with_many_rows) {
    MiniGrafDb *db = open_memory_db();
    add_numbers(db, "n", 1000);
    EXPECT_EXEC(db, "(rule [(big ?e ?v) [?e :n ?v] [(> ?v 100)]])", OK);
    EXPECT_EXEC(db, "(rule [(low-square ?e ?s) [?e :n ?v] [?e :sq ?s] [(< ?v 300)]])", OK);
    text rows = {0};
    for (int k = 101; k < 1000; k++)
        row_add(&rows, "[%d,%d]", k, k * k);
    EXPECT_ROWS(db, "(query [:find ?v ?s :where (big ?e ?v) [?e :sq ?s]])", "\"?v\",\"?s\"", &rows);
    for (int k = 0; k < 300; k++)
        row_add(&rows, "[%d]", k * k);
    EXPECT_ROWS(db, "(query [:find ?s :where (low-square ?e ?s)])", "\"?s\"", &rows);
    for (int k = 0; k <= 100; k++)
        row_add(&rows, "[%d]", k);
    EXPECT_ROWS(db, "(query [:find ?v :where [?e :n ?v] (not (big ?e ?v))])", "\"?v\"", &rows);
    minigraf_close(db);
}

/* ---- cursor batches ----------------------------------------------------- */

/* Drains `query` through a cursor in batches of `batch` rows: no batch is
 * larger, and the rows are exactly the `want` values below 1000 that `keep`
 * accepts. */
static void check_cursor_batches(MiniGrafDb *db, const char *query, size_t batch, int want,
                                 int (*keep)(int)) {
    MiniGrafCursor *c = minigraf_query(db, query);
    REQUIRE(c != NULL);
    long long *values = malloc(1000 * sizeof *values);
    int count = 0, n;
    char *b;
    while ((b = minigraf_cursor_next_batch(c, batch)) != NULL) {
        n = int_rows(b, values + count, 1000 - count);
        if (n < 0 || (size_t)n > batch)
            check_fail_str(__FILE__, __LINE__, query, b,
                           "a batch of at most `batch` one-integer rows");
        count += n > 0 ? n : 0;
        minigraf_string_free(b);
    }
    CHECK_STR_EQ(minigraf_cursor_last_error(c), NULL);
    CHECK_INT_EQ(count, want);
    CHECK_INT_EQ(check_distinct_in_range(values, count, 1000, keep), want);
    free(values);
    minigraf_cursor_free(c);
}

static int from_500(int k) {
    return k >= 500;
}

TEST(cursor_batches_return_every_row_once) {
    static const size_t batches[] = {1, 7, 63, 64, 65, 1000};
    MiniGrafDb *db = open_memory_db();
    add_numbers(db, "n", 1000);
    for (size_t i = 0; i < sizeof batches / sizeof batches[0]; i++) {
        check_cursor_batches(db, "(query [:find ?v :where [?e :n ?v]])", batches[i], 1000,
                             any_value);
        check_cursor_batches(db, "(query [:find ?v :where [?e :n ?v] [?e :sq ?s] [(>= ?v 500)]])",
                             batches[i], 500, from_500);
    }
    minigraf_close(db);
}

TEST(cursor_keeps_the_order_across_batches) {
    static const size_t batches[] = {1, 7, 64, 65};
    MiniGrafDb *db = open_memory_db();
    add_numbers(db, "n", 1000);
    text want = {0};
    for (int k = 999 - 100; k >= 999 - 100 - 130 + 1; k--)
        text_add(&want, "%s[%d]", want.len ? "," : "[", k);
    text_add(&want, "]");
    for (size_t i = 0; i < sizeof batches / sizeof batches[0]; i++) {
        MiniGrafCursor *c = minigraf_query(
            db, "(query [:find ?v :where [?e :n ?v] :order-by [?v :desc] :offset 100 :limit 130])");
        REQUIRE(c != NULL);
        char *got = drain_cursor(c, batches[i]);
        CHECK_STR_EQ(got, want.s);
        free(got);
        minigraf_cursor_free(c);
    }
    text_free(&want);
    minigraf_close(db);
}

/* ---- snapshots ---------------------------------------------------------- */

/* Visible at :as-of `tx` of the :s facts written by snapshot_db. */
static int s_visible(int k, int tx) {
    if (tx < 1)
        return 0;
    int shown = tx < 2 || k % 5 != 0;
    if (tx >= 3 && k % 7 == 0)
        shown = 0;
    return shown || (tx >= 4 && k % 10 == 0);
}

/* tx 1: :tK :s K (K < 500); tx 2: retract multiples of 5; tx 3: retract
 * multiples of 7; tx 4: re-assert multiples of 10; tx 5: :u K valid
 * 2020-2022 for K < 250; tx 6: :u K valid from 2021 for K >= 250; tx 7:
 * retract :u of multiples of 4. */
static MiniGrafDb *snapshot_db(void) {
    MiniGrafDb *db = open_memory_db();
    text tx = {0};
    text_add(&tx, "(transact [");
    for (int k = 0; k < 500; k++)
        text_add(&tx, "[:t%d :s %d]", k, k);
    TRANSACT_TEXT(db, &tx);
    for (int step = 0; step < 2; step++) {
        int every = step == 0 ? 5 : 7;
        text_add(&tx, "(retract [");
        for (int k = 0; k < 500; k += every)
            text_add(&tx, "[:t%d :s %d]", k, k);
        text_add(&tx, "])");
        EXPECT_RETRACT(db, tx.s);
        text_free(&tx);
    }
    text_add(&tx, "(transact [");
    for (int k = 0; k < 500; k += 10)
        text_add(&tx, "[:t%d :s %d]", k, k);
    TRANSACT_TEXT(db, &tx);
    text_add(&tx, "(transact {:valid-from \"2020-01-01\" :valid-to \"2022-01-01\"} [");
    for (int k = 0; k < 250; k++)
        text_add(&tx, "[:t%d :u %d]", k, k);
    TRANSACT_TEXT(db, &tx);
    text_add(&tx, "(transact {:valid-from \"2021-01-01\"} [");
    for (int k = 250; k < 500; k++)
        text_add(&tx, "[:t%d :u %d]", k, k);
    TRANSACT_TEXT(db, &tx);
    text_add(&tx, "(retract [");
    for (int k = 0; k < 500; k += 4)
        text_add(&tx, "[:t%d :u %d]", k, k);
    text_add(&tx, "])");
    EXPECT_RETRACT(db, tx.s);
    text_free(&tx);
    CHECK_INT_EQ(tx_count(db), 7);
    return db;
}

TEST(as_of_counts_follow_retractions_of_500_entities) {
    MiniGrafDb *db = snapshot_db();
    text rows = {0};
    char q[160];
    for (int t = 0; t <= 4; t++) {
        for (int k = 0; k < 500; k++)
            if (s_visible(k, t))
                row_add(&rows, "[%d]", k);
        snprintf(q, sizeof q, "(query [:find ?v :as-of %d :where [?e :s ?v]])", t);
        EXPECT_ROWS(db, q, "\"?v\"", &rows);
    }
    for (int k = 0; k < 500; k++)
        if (s_visible(k, 4))
            row_add(&rows, "[%d]", k);
    EXPECT_ROWS(db, "(query [:find ?v :where [?e :s ?v]])", "\"?v\"", &rows);
    int visible = 0;
    for (int k = 0; k < 500; k++)
        visible += s_visible(k, 2);
    row_add(&rows, "[%d]", visible);
    EXPECT_ROWS(db, "(query [:find (count ?v) :as-of 2 :where [?e :s ?v]])", "\"(count ?v)\"",
                &rows);
    minigraf_close(db);
}

/* One :u snapshot: rows K < 500 with lo <= K < hi and, when `skip4`, K not
 * a multiple of 4. */
static void expect_u_at(const char *file, int line, MiniGrafDb *db, const char *query, int lo,
                        int hi, int skip4) {
    text rows = {0};
    for (int k = lo; k < hi; k++)
        if (!skip4 || k % 4 != 0)
            row_add(&rows, "[%d]", k);
    expect_rows_at(file, line, db, query, "\"?v\"", &rows, 0);
}
#define EXPECT_U(db, query, lo, hi, skip4) \
    expect_u_at(__FILE__, __LINE__, (db), (query), (lo), (hi), (skip4))

TEST(valid_at_and_as_of_combine_over_500_entities) {
    MiniGrafDb *db = snapshot_db();
    EXPECT_U(db, "(query [:find ?v :as-of 6 :valid-at \"2020-06-01\" :where [?e :u ?v]])", 0, 250,
             0);
    EXPECT_U(db, "(query [:find ?v :as-of 6 :valid-at \"2021-06-01\" :where [?e :u ?v]])", 0, 500,
             0);
    EXPECT_U(db, "(query [:find ?v :as-of 6 :valid-at \"2023-01-01\" :where [?e :u ?v]])", 250, 500,
             0);
    EXPECT_U(db, "(query [:find ?v :as-of 5 :valid-at \"2021-06-01\" :where [?e :u ?v]])", 0, 250,
             0);
    EXPECT_U(db, "(query [:find ?v :valid-at \"2021-06-01\" :where [?e :u ?v]])", 0, 500, 1);
    EXPECT_U(db, "(query [:find ?v :valid-at \"2020-06-01\" :where [?e :u ?v]])", 0, 250, 1);
    EXPECT_U(db, "(query [:find ?v :where [?e :u ?v]])", 250, 500, 1);
    EXPECT_U(db, "(query [:find ?v :as-of 6 :any-valid-time :where [?e :u ?v]])", 0, 500, 0);
    EXPECT_U(db, "(query [:find ?v :any-valid-time :where [?e :u ?v]])", 0, 500, 1);
    EXPECT_U(db, "(query [:find ?v :as-of 4 :any-valid-time :where [?e :u ?v]])", 0, 0, 0);
    minigraf_close(db);
}

/* One triple's history read across a scan's read-ahead (4, 8, 16, 32,
 * then 64 records at a time): entity :h<i> asserts and retracts
 * [:h<i> :hv 1] in turn, hist[i] times, so its (E, A, V) group is that
 * many records long and ends at every alignment with the read-ahead.
 * Each entity also holds :hw (one record) before and after it in EAVT.
 * The triple is visible (:as-of N) when the last of its records up to N
 * is an assertion; count, count with a constant value (E4: the keyword
 * and the Ref of :k, two seeks one after the other) and the full scan
 * must all say so. */
#define HIST_ENTITIES 12
static const int hist[HIST_ENTITIES] = {1, 2, 3, 4, 5, 7, 8, 9, 63, 64, 65, 130};

/* The triples of :hv visible at :as-of `upto` (0: now), by the write
 * order of hist_db: entity i's k-th record is written in round k. */
static int hist_visible(const int *first_tx, int upto) {
    int n = 0;
    for (int i = 0; i < HIST_ENTITIES; i++) {
        int last = -1; /* the index of its last record up to `upto` */
        for (int k = 0; k < hist[i]; k++)
            if (!upto || first_tx[k] + i <= upto)
                last = k;
        n += last >= 0 && last % 2 == 0;
    }
    return n;
}

TEST(long_histories_cross_the_scans_read_ahead) {
    MiniGrafDb *db = open_memory_db();
    char cmd[256];
    int first_tx[130]; /* round k's first transaction (entity 0's) */
    EXPECT_TRANSACT(db, "(transact [[:ka :kv :k] [:kb :kv :k] [:kc :kv :other]])");
    int tx = (int)tx_count(db);
    for (int k = 0; k < 130; k++) {
        first_tx[k] = tx + 1;
        for (int i = 0; i < HIST_ENTITIES; i++) {
            snprintf(cmd, sizeof cmd, "(%s [[:h%d :hv 1] [:h%d :hw %d]])",
                     k % 2 == 0 ? "transact" : "retract", i, i, k);
            if (k >= hist[i]) /* its history is over: a transaction of nothing */
                snprintf(cmd, sizeof cmd, "(transact [])");
            if (k == 0 || k >= hist[i] || k % 2 == 0)
                expect_write_at(__FILE__, __LINE__, db, cmd, "transacted");
            else
                expect_write_at(__FILE__, __LINE__, db, cmd, "retracted");
            tx++;
        }
    }
    /* the Ref of :k beside the keyword :k: [?e :kv :k] seeks both */
    EXPECT_TRANSACT(db, "(transact [[:k :marker true]])");
    char *k = exec_at(__FILE__, __LINE__, db, "(query [:find ?e :where [?e :marker true]])");
    char *uuid = k ? strstr(k, "[[\"") : NULL;
    CHECK(uuid != NULL && strlen(uuid) > 39);
    if (uuid) {
        snprintf(cmd, sizeof cmd, "(transact [[:kd :kv #uuid \"%.36s\"]])", uuid + 3);
        EXPECT_TRANSACT(db, cmd);
    }
    minigraf_string_free(k);
    char want[128];
    int points[] = {0,
                    first_tx[3],
                    first_tx[4] + 5,
                    first_tx[63] + 8,
                    first_tx[64] + 9,
                    first_tx[65] + 11,
                    first_tx[129]};
    for (size_t p = 0; p < sizeof points / sizeof *points; p++) {
        char as_of[32] = "";
        if (points[p])
            snprintf(as_of, sizeof as_of, ":as-of %d ", points[p]);
        int n = hist_visible(first_tx, points[p]);
        snprintf(cmd, sizeof cmd, "(query [:find (count ?e) %s:where [?e :hv ?v]])", as_of);
        snprintf(want, sizeof want, "{\"variables\":[\"(count ?e)\"],\"results\":[[%d]]}", n);
        EXPECT_EXEC(db, cmd, want);
        snprintf(cmd, sizeof cmd, "(query [:find (count ?e) %s:where [?e :hv 1]])", as_of);
        EXPECT_EXEC(db, cmd, want);
        snprintf(cmd, sizeof cmd, "(query [:find (count ?e) %s:where [?e ?a ?v] [(= ?a :hv)]])",
                 as_of);
        EXPECT_EXEC(db, cmd, want);
    }
    /* :hw k is asserted in the even rounds (the odd ones retract a
     * value never asserted) */
    int hw = 0;
    for (int i = 0; i < HIST_ENTITIES; i++)
        hw += (hist[i] + 1) / 2;
    snprintf(want, sizeof want, "{\"variables\":[\"(count ?v)\"],\"results\":[[%d]]}", hw);
    EXPECT_EXEC(db, "(query [:find (count ?v) :where [?e :hw ?v]])", want);
    EXPECT_EXEC(db, "(query [:find (count ?e) :where [?e :kv :k]])",
                "{\"variables\":[\"(count ?e)\"],\"results\":[[3]]}");
    minigraf_close(db);
}

CHECK_MAIN(TEST_ENTRY(scan_and_join_sizes_around_multiples_of_64),
           TEST_ENTRY(file_scan_across_checkpointed_pages_and_the_log),
           TEST_ENTRY(large_expansion_between_small_ones),
           TEST_ENTRY(many_outer_rows_with_mixed_expansions),
           TEST_ENTRY(filter_keeps_every_seventh_row), TEST_ENTRY(filter_keeps_none_one_or_a_band),
           TEST_ENTRY(binding_expression_output_joins_a_pattern),
           TEST_ENTRY(not_excludes_most_or_few_of_1000_rows),
           TEST_ENTRY(not_join_excludes_by_a_value_of_another_entity),
           TEST_ENTRY(or_unions_branches_of_many_rows_once),
           TEST_ENTRY(bodies_with_many_solutions_per_outer_row),
           TEST_ENTRY(or_deduplicates_new_variable_across_branches),
           TEST_ENTRY(ordered_limit_and_offset_cross_64),
           TEST_ENTRY(ordered_limit_after_join_and_two_keys),
           TEST_ENTRY(top_k_orders_ties_by_a_text_key),
           TEST_ENTRY(unordered_limit_and_offset_count_distinct_rows),
           TEST_ENTRY(aggregates_grouped_over_1200_rows),
           TEST_ENTRY(aggregates_stepped_one_at_a_time_over_1200_rows),
           TEST_ENTRY(aggregate_with_more_groups_than_a_batch),
           TEST_ENTRY(window_functions_over_200_rows),
           TEST_ENTRY(pseudo_attributes_follow_the_preceding_pattern_over_250_records),
           TEST_ENTRY(uncorrelated_pseudo_attribute_ranges_over_every_record),
           TEST_ENTRY(recursive_rule_over_a_500_node_chain),
           TEST_ENTRY(non_recursive_rule_body_with_many_rows),
           TEST_ENTRY(cursor_batches_return_every_row_once),
           TEST_ENTRY(cursor_keeps_the_order_across_batches),
           TEST_ENTRY(as_of_counts_follow_retractions_of_500_entities),
           TEST_ENTRY(valid_at_and_as_of_combine_over_500_entities),
           TEST_ENTRY(long_histories_cross_the_scans_read_ahead),
           TEST_ENTRY(grouping_by_one_column_keeps_o3_equality),
           TEST_ENTRY(variables_read_nowhere_match_like_wildcards))
