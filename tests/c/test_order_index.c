/* Index-ordered limits (language.md §8.15, D3): `:order-by` on a variable bound
 * by a pattern's value position, with `:limit` / `:offset`, reads the
 * attribute's values in order and stops after offset + limit rows. Each
 * answer is checked against the same query sorted whole (no :limit,
 * which never takes that path) cut to the same rows, and the work a query
 * does is counted through the progress handler. */
#include <stdbool.h>
#include <stdio.h>

#include "support.h"

#define MAX_ROWS 1200
#define MAX_COLS 4

/* The rows of a result's "results" array; returns how many. */
static size_t result_rows(const char *json, json_span *rows) {
    const char *p = strstr(json, "\"results\":[") + strlen("\"results\":[");
    size_t n = 0;
    while (*p == '[' && n < MAX_ROWS) {
        rows[n] = (json_span){p, json_value_len(p)};
        p += rows[n++].len;
        if (*p == ',')
            p++;
    }
    return n;
}

/* The text of the columns of `row` whose bit is set in `keys`. */
static void key_text(json_span row, unsigned keys, char *out, size_t size) {
    const char *p = row.start + 1;
    size_t len = 0;
    for (unsigned c = 0; *p != ']'; c++) {
        size_t n = json_value_len(p);
        if ((keys >> c & 1u) && len + n + 2 < size) {
            memcpy(out + len, p, n);
            len += n;
            out[len++] = ';';
        }
        p += n;
        if (*p == ',')
            p++;
    }
    out[len] = '\0';
}

/* `q` with `:offset offset :limit limit` gives what language.md D3 specifies of rows
 * [offset, offset + limit) of `q` sorted whole: the same number of rows,
 * the same key columns (bits of `keys`) row by row, and each row one of
 * the whole answer's (ties on every key keep no particular order, so a
 * limit that cuts a tie group may keep any of its rows; with every
 * column a key this is the exact slice). `q` ends with its :order-by
 * section, without the closing "])". */
static void expect_slice_keys(MiniGrafDb *db, const char *q, unsigned keys, long offset,
                              long limit) {
    char whole[1024], cut[1024];
    snprintf(whole, sizeof whole, "(query %s])", q);
    snprintf(cut, sizeof cut, "(query %s :offset %ld :limit %ld])", q, offset, limit);
    char *all = EXEC(db, whole);
    char *got = EXEC(db, cut);
    CHECK(all != NULL && got != NULL);
    if (!all || !got) {
        minigraf_string_free(all);
        minigraf_string_free(got);
        return;
    }
    static json_span all_rows[MAX_ROWS], got_rows[MAX_ROWS];
    static bool used[MAX_ROWS];
    size_t n_all = result_rows(all, all_rows), n_got = result_rows(got, got_rows);
    size_t start = (size_t)offset < n_all ? (size_t)offset : n_all;
    size_t want = n_all - start < (size_t)limit ? n_all - start : (size_t)limit;
    if (n_got != want)
        check_fail_str(__FILE__, __LINE__, cut, got, all);
    memset(used, 0, sizeof used);
    for (size_t i = 0; i < n_got && i < want; i++) {
        char a[256], b[256];
        key_text(got_rows[i], keys, a, sizeof a);
        key_text(all_rows[start + i], keys, b, sizeof b);
        if (strcmp(a, b) != 0)
            check_fail_str(__FILE__, __LINE__, cut, a, b);
        size_t j = 0;
        while (j < n_all && (used[j] || all_rows[j].len != got_rows[i].len ||
                             memcmp(all_rows[j].start, got_rows[i].start, got_rows[i].len) != 0))
            j++;
        if (j == n_all)
            check_fail_str(__FILE__, __LINE__, cut, got, "each row one of the whole answer's");
        else
            used[j] = true;
    }
    minigraf_string_free(all);
    minigraf_string_free(got);
}

/* A query whose only column is its key. */
static void expect_slice(MiniGrafDb *db, const char *q, long offset, long limit) {
    expect_slice_keys(db, q, 1u, offset, limit);
}

/* 300 entities :e0 … :e299 with :score (i * 37) % 1000 - 500 (distinct,
 * negatives included) and :rank i % 7 (ties). */
static MiniGrafDb *scores_db(void) {
    MiniGrafDb *db = minigraf_open_in_memory();
    static char tx[300 * 48 + 32];
    strcpy(tx, "(transact [");
    for (int i = 0; i < 300; i++)
        snprintf(tx + strlen(tx), sizeof tx - strlen(tx), "[:e%d :score %d] [:e%d :rank %d] ", i,
                 (i * 37) % 1000 - 500, i, i % 7);
    strcat(tx, "])");
    EXPECT_TRANSACT(db, tx);
    return db;
}

TEST(desc_and_asc_limits_match_the_full_sort) {
    MiniGrafDb *db = scores_db();
    expect_slice(db, "[:find ?s :where [?e :score ?s] :order-by [?s :desc]", 0, 10);
    expect_slice(db, "[:find ?s :where [?e :score ?s] :order-by [?s]", 0, 10);
    expect_slice(db, "[:find ?s :where [?e :score ?s] :order-by [?s :desc]", 295, 10);
    expect_slice(db, "[:find ?s :where [?e :score ?s] :order-by [?s]", 0, 1000);
    EXPECT_EXACT(db, "(query [:find ?s :where [?e :score ?s] :order-by [?s :desc] :limit 3])",
                 "{\"variables\":[\"?s\"],\"results\":[[499],[498],[497]]}");
    EXPECT_EXACT(db, "(query [:find ?s :where [?e :score ?s] :order-by [?s] :limit 2])",
                 "{\"variables\":[\"?s\"],\"results\":[[-500],[-474]]}");
    EXPECT_EXEC(db, "(query [:find ?s :where [?e :score ?s] :order-by [?s :desc] :limit 0])",
                "{\"variables\":[\"?s\"],\"results\":[]}");
    minigraf_close(db);
}

TEST(offsets_count_before_the_limit) {
    MiniGrafDb *db = scores_db();
    expect_slice(db, "[:find ?s :where [?e :score ?s] :order-by [?s :desc]", 7, 5);
    expect_slice(db, "[:find ?s :where [?e :score ?s] :order-by [?s]", 64, 70);
    EXPECT_EXACT(db,
                 "(query [:find ?s :where [?e :score ?s] :order-by [?s :desc] :offset 2 :limit 2])",
                 "{\"variables\":[\"?s\"],\"results\":[[497],[496]]}");
    minigraf_close(db);
}

/* Rows equal on every key keep no particular order unless every column
 * is a key (language.md D3): where the limit cuts a tie group, any of its rows may
 * come; with every column a key, exactly the whole sort's rows. 42
 * entities have rank 6 (i % 7 == 6), 43 rank 5. */
TEST(ties_at_the_limit_are_any_of_the_tied_rows) {
    MiniGrafDb *db = scores_db();
    expect_slice(db, "[:find ?r :where [?e :rank ?r] :order-by [?r :desc]", 0, 50);
    expect_slice_keys(db, "[:find ?e ?r :where [?e :rank ?r] :order-by [?r :desc]", 2u, 0, 45);
    expect_slice_keys(db, "[:find ?e ?r :where [?e :rank ?r] :order-by [?r :desc]", 2u, 40, 5);
    expect_slice_keys(db, "[:find ?e ?r :where [?e :rank ?r] :order-by [?r]", 2u, 3, 50);
    expect_slice_keys(db, "[:find ?r ?e :where [?e :rank ?r] :order-by [?r :desc ?e]", 3u, 0, 45);
    expect_slice_keys(db, "[:find ?r ?e :where [?e :rank ?r] :order-by [?r ?e :desc]", 3u, 40, 5);
    expect_slice_keys(db, "[:find ?e ?r ?s :where [?e :rank ?r] [?e :score ?s] :order-by [?r]", 2u,
                      41, 3);
    expect_slice_keys(db,
                      "[:find ?e ?r ?s :where [?e :rank ?r] [?e :score ?s] :order-by [?r :desc ?s]",
                      6u, 30, 20);
    minigraf_close(db);
}

/* The tie group at the limit holds retracted facts and facts valid only
 * later: they are never rows, before or after the limit. */
TEST(ties_at_the_limit_skip_what_is_not_visible) {
    MiniGrafDb *db = scores_db();
    EXPECT_RETRACT(db, "(retract [[:e6 :rank 6] [:e13 :rank 6] [:e20 :rank 6]])");
    EXPECT_TRANSACT(db, "(transact {:valid-from \"2999-01-01T00:00:00Z\"} "
                        "[[:late1 :rank 6] [:late2 :rank 6] [:late3 :rank 9]])");
    expect_slice_keys(db, "[:find ?e ?r :where [?e :rank ?r] :order-by [?r :desc]", 2u, 0, 3);
    expect_slice_keys(db, "[:find ?e ?r :where [?e :rank ?r] :order-by [?r :desc]", 2u, 38, 4);
    EXPECT_EXACT(db, "(query [:find ?r :where [?e :rank ?r] :order-by [?r :desc] :limit 1])",
                 "{\"variables\":[\"?r\"],\"results\":[[6]]}");
    /* 42 - 3 retracted: a limit of 39 is the whole visible group */
    char *top = EXEC(db,
                     "(query [:find ?e ?r :where [?e :rank ?r] :order-by [?r :desc] :limit 39])");
    char *group = EXEC(db, "(query [:find ?e ?r :where [?e :rank ?r] [(= ?r 6)]])");
    CHECK(top != NULL && group != NULL);
    if (top && group) {
        char *a = canonical_result(top), *b = canonical_result(group);
        CHECK_STR_EQ(a, b);
        free(a);
        free(b);
    }
    minigraf_string_free(top);
    minigraf_string_free(group);
    minigraf_close(db);
}

/* :e27 holds the top score 499, :e54 the next, 498. */
TEST(retractions_as_of_and_valid_at) {
    MiniGrafDb *db = scores_db();
    const char *top = "(query [:find ?s :where [?e :score ?s] :order-by [?s :desc] :limit 2])";
    EXPECT_EXACT(db, top, "{\"variables\":[\"?s\"],\"results\":[[499],[498]]}");
    EXPECT_RETRACT(db, "(retract [[:e27 :score 499]])");
    EXPECT_EXACT(db, top, "{\"variables\":[\"?s\"],\"results\":[[498],[497]]}");
    EXPECT_TRANSACT(db, "(transact [[:e27 :score -600] [:e54 :score 2000]])");
    /* :e54 now holds 498 and 2000 (a new value adds a fact) */
    EXPECT_EXACT(db, top, "{\"variables\":[\"?s\"],\"results\":[[2000],[498]]}");
    EXPECT_EXACT(db, "(query [:find ?s :where [?e :score ?s] :order-by [?s] :limit 2])",
                 "{\"variables\":[\"?s\"],\"results\":[[-600],[-500]]}");
    EXPECT_EXACT(db,
                 "(query [:find ?s :as-of 1 :where [?e :score ?s] :order-by [?s :desc] :limit 2])",
                 "{\"variables\":[\"?s\"],\"results\":[[499],[498]]}");
    EXPECT_EXACT(db, "(query [:find ?s :as-of 2 :where [?e :score ?s] :order-by [?s] :limit 1])",
                 "{\"variables\":[\"?s\"],\"results\":[[-500]]}");
    /* valid only in 2020: hidden now, the top at a time inside 2020 */
    EXPECT_TRANSACT(
        db, "(transact {:valid-from \"2020-01-01T00:00:00Z\" :valid-to \"2021-01-01T00:00:00Z\"} "
            "[[:old :score 9000] [:old :score -9000]])");
    EXPECT_EXACT(db, top, "{\"variables\":[\"?s\"],\"results\":[[2000],[498]]}");
    EXPECT_EXACT(db,
                 "(query [:find ?s :valid-at \"2020-06-01T00:00:00Z\" :where [?e :score ?s] "
                 ":order-by [?s :desc] :limit 1])",
                 "{\"variables\":[\"?s\"],\"results\":[[9000]]}");
    EXPECT_EXACT(db,
                 "(query [:find ?s :valid-at :any-valid-time :where [?e :score ?s] "
                 ":order-by [?s] :limit 2])",
                 "{\"variables\":[\"?s\"],\"results\":[[-9000],[-600]]}");
    minigraf_close(db);
}

/* Values of several types follow language.md D3: Integer and Float interleave, every
 * String first, then the numbers, Booleans, Keywords. */
TEST(mixed_types_follow_d3) {
    MiniGrafDb *db = minigraf_open_in_memory();
    EXPECT_TRANSACT(
        db, "(transact [[:a :v 1] [:b :v 2.5] [:c :v 3] [:d :v \"z\"] [:f :v true] [:g :v -1.5]])");
    EXPECT_EXACT(db, "(query [:find ?v :where [?e :v ?v] :order-by [?v :desc] :limit 3])",
                 "{\"variables\":[\"?v\"],\"results\":[[true],[3],[2.5]]}");
    EXPECT_EXACT(db, "(query [:find ?v :where [?e :v ?v] :order-by [?v] :limit 3])",
                 "{\"variables\":[\"?v\"],\"results\":[[\"z\"],[-1.5],[1]]}");
    EXPECT_TRANSACT(db, "(transact [[:a :flag true] [:b :flag false] [:c :flag true]])");
    EXPECT_EXACT(db, "(query [:find ?f :where [?e :flag ?f] :order-by [?f] :limit 2])",
                 "{\"variables\":[\"?f\"],\"results\":[[false],[true]]}");
    EXPECT_EXACT(db, "(query [:find ?f :where [?e :flag ?f] :order-by [?f :desc] :limit 2])",
                 "{\"variables\":[\"?f\"],\"results\":[[true],[true]]}");
    /* an attribute with only integers, until one float joins them */
    EXPECT_TRANSACT(db, "(transact [[:a :n 10] [:b :n 20]])");
    EXPECT_EXACT(db, "(query [:find ?n :where [?e :n ?n] :order-by [?n :desc] :limit 1])",
                 "{\"variables\":[\"?n\"],\"results\":[[20]]}");
    EXPECT_TRANSACT(db, "(transact [[:c :n 15.5] [:d :n 25.5]])");
    EXPECT_EXACT(db, "(query [:find ?n :where [?e :n ?n] :order-by [?n :desc] :limit 3])",
                 "{\"variables\":[\"?n\"],\"results\":[[25.5],[20],[15.5]]}");
    minigraf_close(db);
}

/* Later clauses keep the order: a join and a not filter the rows read in
 * value order, so the query reads on until it has its rows. */
TEST(joins_and_filters_after_the_ordered_pattern) {
    MiniGrafDb *db = scores_db();
    expect_slice_keys(
        db, "[:find ?s ?r :where [?e :score ?s] [?e :rank ?r] [(= ?r 3)] :order-by [?s :desc ?r]",
        3u, 0, 4);
    expect_slice(db, "[:find ?s :where [?e :score ?s] (not [?e :rank 0]) :order-by [?s]", 3, 6);
    expect_slice(db, "[:find ?s :where [?e :score ?s] [?e :rank 6] :order-by [?s :desc]", 0, 1);
    /* ties on the key, most of them dropped by the later clauses */
    expect_slice_keys(
        db, "[:find ?e ?r :where [?e :rank ?r] [?e :score ?s] [(> ?s 300)] :order-by [?r :desc]",
        2u, 0, 9);
    expect_slice_keys(
        db, "[:find ?e ?r :where [?e :rank ?r] (not [?e :score ?s] [(< ?s 0)]) :order-by [?r]", 2u,
        5, 30);
    minigraf_close(db);
}

/* Integers and floats interleave (language.md D3; such an attribute takes the
 * bounded top-k, not the index order): ties on the key at the limit are
 * any of the tied rows there too, and 3.0 and 3 are not ties (3 first
 * ascending, language.md D3). */
TEST(mixed_numbers_with_ties) {
    MiniGrafDb *db = minigraf_open_in_memory();
    static char tx[120 * 40 + 32];
    strcpy(tx, "(transact [");
    for (int i = 0; i < 120; i++)
        snprintf(tx + strlen(tx), sizeof tx - strlen(tx),
                 i % 2 ? "[:m%d :v %d.5] " : "[:m%d :v %d] ", i, i % 5);
    strcat(tx, "[:x :v 3.0] [:y :v 3]])");
    EXPECT_TRANSACT(db, tx);
    expect_slice_keys(db, "[:find ?e ?v :where [?e :v ?v] :order-by [?v :desc]", 2u, 0, 15);
    expect_slice_keys(db, "[:find ?e ?v :where [?e :v ?v] :order-by [?v :desc]", 2u, 7, 20);
    expect_slice_keys(db, "[:find ?v ?e :where [?e :v ?v] :order-by [?v]", 1u, 10, 25);
    expect_slice_keys(db, "[:find ?v ?e :where [?e :v ?v] :order-by [?v ?e]", 3u, 10, 25);
    EXPECT_EXACT(db,
                 "(query [:find ?v :where [?e :v ?v] [(< ?v 3.5)] :order-by [?v :desc] :limit 14])",
                 "{\"variables\":[\"?v\"],\"results\":[[3.0],[3],[3],[3],[3],[3],[3],[3],[3],[3],["
                 "3],[3],[3],[3]]}");
    minigraf_close(db);
}

/* A descending read that meets few rows its later clauses keep goes on
 * forwards after a few dozen values: the rows found before and after
 * still make the right answer. */
TEST(a_long_descending_read_goes_on_forwards) {
    MiniGrafDb *db = scores_db();
    expect_slice(db, "[:find ?s :where [?e :score ?s] [(< ?s -400)] :order-by [?s :desc]", 0, 5);
    expect_slice_keys(db, "[:find ?s ?e :where [?e :score ?s] [?e :rank 0] :order-by [?s :desc]",
                      1u, 0, 10);
    expect_slice_keys(db, "[:find ?s ?e :where [?e :score ?s] [?e :rank 0] :order-by [?s :desc]",
                      1u, 3, 40);
    expect_slice(db, "[:find ?s :where [?e :score ?s] [(< ?s -10000)] :order-by [?s :desc]", 0, 5);
    minigraf_close(db);
}

static int count_call(void *n) {
    ++*(int *)n;
    return 0;
}

static int spread(int i) {
    return (i * 7919) % 20000;
}

static int mostly_sevens(int i) {
    return i < 19990 ? 7 : 9;
}

/* 20,000 entities :x0 … :x19999, :w value(i), in ten transactions. */
static MiniGrafDb *w_db(int (*value)(int)) {
    MiniGrafDb *db = minigraf_open_in_memory();
    static char tx[2000 * 32 + 32];
    for (int t = 0; t < 10; t++) {
        strcpy(tx, "(transact [");
        for (int i = t * 2000; i < (t + 1) * 2000; i++)
            snprintf(tx + strlen(tx), sizeof tx - strlen(tx), "[:x%d :w %d] ", i, value(i));
        strcat(tx, "])");
        EXPECT_TRANSACT(db, tx);
    }
    return db;
}

/* The point of the index order: a top 3 of 20,000 values reads a few
 * records, where sorting reads them all (the progress handler is called
 * every 1,000 units of work: records read, rows produced or sorted). */
TEST(a_limit_reads_only_what_it_returns) {
    MiniGrafDb *db = w_db(spread);
    int calls = 0;
    CHECK_INT_EQ(minigraf_progress_handler(db, 1000, count_call, &calls), 0);
    EXPECT_EXACT(db, "(query [:find ?w :where [?e :w ?w] :order-by [?w :desc] :limit 3])",
                 "{\"variables\":[\"?w\"],\"results\":[[19999],[19998],[19997]]}");
    EXPECT_EXACT(db, "(query [:find ?w :where [?e :w ?w] :order-by [?w] :offset 10 :limit 3])",
                 "{\"variables\":[\"?w\"],\"results\":[[10],[11],[12]]}");
    CHECK_INT_EQ(calls, 0);
    /* without a :limit every record is read and sorted */
    char *all = EXEC(db, "(query [:find ?w :where [?e :w ?w] :order-by [?w :desc]])");
    minigraf_string_free(all);
    CHECK(calls >= 20);
    minigraf_close(db);
}

/* A tie group at the limit is not read past the limit: 20,000 entities
 * with one value, a top 3 of them reads three (it read the whole group,
 * decoding each entity, when ties broke on the other columns). */
TEST(a_limit_inside_a_tie_group_stops_there) {
    MiniGrafDb *db = w_db(mostly_sevens);
    int calls = 0;
    CHECK_INT_EQ(minigraf_progress_handler(db, 1000, count_call, &calls), 0);
    char *got = EXEC(
        db, "(query [:find ?e ?w :where [?e :w ?w] :order-by [?w :desc] :offset 8 :limit 5])");
    CHECK(got != NULL && strstr(got, ",9],") != NULL && strstr(got, ",7]]") != NULL);
    minigraf_string_free(got);
    got = EXEC(db, "(query [:find ?e ?w :where [?e :w ?w] :order-by [?w] :limit 3])");
    CHECK(got != NULL && strstr(got, ",9]") == NULL);
    minigraf_string_free(got);
    CHECK_INT_EQ(calls, 0);
    /* every column a key: the tie group is read to order it */
    got = EXEC(db, "(query [:find ?e ?w :where [?e :w ?w] :order-by [?w ?e] :limit 3])");
    minigraf_string_free(got);
    CHECK(calls >= 10);
    minigraf_close(db);
}

/* Whether the attribute's values are of one type is judged on its first
 * and last AVET keys, retracted records among them (store_value_types),
 * across the leaves of 20,000 records: a float below or above the
 * integers, even retracted, keeps the query off the value order and so
 * reading every record; the answers stay language.md D3's. */
TEST(one_type_judged_on_every_key_across_leaves) {
    MiniGrafDb *db = w_db(spread);
    int calls = 0;
    CHECK_INT_EQ(minigraf_progress_handler(db, 1000, count_call, &calls), 0);
    const char *desc = "(query [:find ?w :where [?e :w ?w] :order-by [?w :desc] :limit 2])";
    const char *asc = "(query [:find ?w :where [?e :w ?w] :order-by [?w] :limit 2])";
    EXPECT_EXACT(db, desc, "{\"variables\":[\"?w\"],\"results\":[[19999],[19998]]}");
    EXPECT_EXACT(db, asc, "{\"variables\":[\"?w\"],\"results\":[[0],[1]]}");
    CHECK_INT_EQ(calls, 0);
    EXPECT_TRANSACT(db, "(transact [[:hi :w 25000.5] [:lo :w -0.5]])");
    EXPECT_EXACT(db, desc, "{\"variables\":[\"?w\"],\"results\":[[25000.5],[19999]]}");
    EXPECT_EXACT(db, asc, "{\"variables\":[\"?w\"],\"results\":[[-0.5],[0]]}");
    CHECK(calls >= 20);
    calls = 0;
    EXPECT_RETRACT(db, "(retract [[:hi :w 25000.5] [:lo :w -0.5]])");
    EXPECT_EXACT(db, desc, "{\"variables\":[\"?w\"],\"results\":[[19999],[19998]]}");
    EXPECT_EXACT(db, asc, "{\"variables\":[\"?w\"],\"results\":[[0],[1]]}");
    CHECK(calls >= 20);
    /* inside a write transaction: each query sees what was staged before it */
    MiniGrafTx *tx = minigraf_begin_write(db);
    CHECK(tx != NULL);
    const char *tx_asc = "(query [:find ?w :where [?e :w ?w] :order-by [?w] :limit 1])";
    EXPECT_TX_EXEC(tx, tx_asc, "{\"variables\":[\"?w\"],\"results\":[[0]]}");
    EXPECT_TX_EXEC(tx, "(transact [[:t1 :w 7]])", "{\"ok\":true}");
    EXPECT_TX_EXEC(tx, tx_asc, "{\"variables\":[\"?w\"],\"results\":[[0]]}");
    EXPECT_TX_EXEC(tx, "(transact [[:t2 :w -3.5]])", "{\"ok\":true}");
    EXPECT_TX_EXEC(tx, tx_asc, "{\"variables\":[\"?w\"],\"results\":[[-3.5]]}");
    CHECK(minigraf_tx_rollback(tx) == 0);
    minigraf_tx_free(tx);
    EXPECT_EXACT(db, tx_asc, "{\"variables\":[\"?w\"],\"results\":[[0]]}");
    /* an attribute no record has */
    EXPECT_EXACT(db, "(query [:find ?v :where [?e :nothing ?v] :order-by [?v :desc] :limit 2])",
                 "{\"variables\":[\"?v\"],\"results\":[]}");
    minigraf_close(db);
}

CHECK_MAIN(TEST_ENTRY(desc_and_asc_limits_match_the_full_sort),
           TEST_ENTRY(offsets_count_before_the_limit),
           TEST_ENTRY(ties_at_the_limit_are_any_of_the_tied_rows),
           TEST_ENTRY(ties_at_the_limit_skip_what_is_not_visible),
           TEST_ENTRY(retractions_as_of_and_valid_at), TEST_ENTRY(mixed_types_follow_d3),
           TEST_ENTRY(mixed_numbers_with_ties),
           TEST_ENTRY(joins_and_filters_after_the_ordered_pattern),
           TEST_ENTRY(a_long_descending_read_goes_on_forwards),
           TEST_ENTRY(a_limit_reads_only_what_it_returns),
           TEST_ENTRY(a_limit_inside_a_tie_group_stops_there),
           TEST_ENTRY(one_type_judged_on_every_key_across_leaves))
