/* The :find side (language.md §8.2, §8.11, §8.12, §8.15, §10, §11): column headers,
 * projection, aggregates, :with, empty inputs, collect-set, windows,
 * :order-by / :limit / :offset, QRY-010 / QRY-011 / QRY-012. */
#include "support.h"

#define EMP_DATA                                                                            \
    "(transact [[:e1 :dept \"eng\"] [:e1 :salary 50] [:e2 :dept \"eng\"] [:e2 :salary 50] " \
    "[:e3 :dept \"hr\"] [:e3 :salary 40]])"
#define SAL_DATA "(transact [[:e1 :sal 90] [:e2 :sal 110] [:e3 :sal 95] [:e4 :sal 85]])"

static MiniGrafDb *db_with(const char *data) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, data);
    return db;
}

/* ---- headers and projection --------------------------------------------- */

TEST(headers_follow_spec_8_2) {
    MiniGrafDb *db = db_with(EMP_DATA);
    EXPECT_EXEC(
        db,
        "(query [:find ?d (count ?e) (sum ?s :over (:order-by ?s)) (rank :over (:order-by ?s)) "
        ":where [?e :dept ?d] [?e :salary ?s]])",
        "{\"variables\":[\"?d\",\"(count ?e)\",\"(sum ?s :over ...)\",\"(rank :over ...)\"],"
        "\"results\":[[\"eng\",2,0,1],[\"hr\",1,0,1]]}");
    MiniGrafCursor *c = minigraf_query(
        db, "(query [:find (count-distinct ?s) :where [?e :salary ?s]])");
    CHECK(c != NULL);
    char *vars = minigraf_cursor_vars(c);
    CHECK_STR_EQ(vars, "[\"(count-distinct ?s)\"]");
    minigraf_string_free(vars);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

TEST(projection_is_a_bag) {
    MiniGrafDb *db = db_with(EMP_DATA);
    EXPECT_EXEC(db, "(query [:find ?d :where [?e :dept ?d]])",
                "{\"variables\":[\"?d\"],\"results\":[[\"eng\"],[\"eng\"],[\"hr\"]]}");
    minigraf_close(db);
}

/* ---- aggregates ----------------------------------------------------------- */

TEST(every_builtin_aggregate_ungrouped) {
    MiniGrafDb *db = db_with(EMP_DATA);
    EXPECT_EXEC(
        db,
        "(query [:find (count ?s) (count-distinct ?s) (sum ?s) (sum-distinct ?s) (min ?s) (max ?s) "
        "(avg ?s) (collect-set ?s) :where [?e :salary ?s]])",
        "{\"variables\":[\"(count ?s)\",\"(count-distinct ?s)\",\"(sum ?s)\",\"(sum-distinct ?s)\","
        "\"(min ?s)\",\"(max ?s)\",\"(avg ?s)\",\"(collect-set ?s)\"],"
        "\"results\":[[3,2,140,90,40,50,46.666666666666664,[40,50]]]}");
    minigraf_close(db);
}

TEST(grouped_aggregates_and_with) {
    MiniGrafDb *db = db_with(EMP_DATA);
    EXPECT_EXEC(db, "(query [:find ?d (sum ?s) :where [?e :dept ?d] [?e :salary ?s]])",
                "{\"variables\":[\"?d\",\"(sum ?s)\"],\"results\":[[\"eng\",100],[\"hr\",40]]}");
    EXPECT_EXEC(db, "(query [:find ?d (sum ?s) :with ?e :where [?e :dept ?d] [?e :salary ?s]])",
                "{\"variables\":[\"?d\",\"(sum "
                "?s)\"],\"results\":[[\"eng\",50],[\"eng\",50],[\"hr\",40]]}");
    EXPECT_EXEC(db, "(query [:find (min ?d) (max ?d) :where [?e :dept ?d]])",
                "{\"variables\":[\"(min ?d)\",\"(max ?d)\"],\"results\":[[\"eng\",\"hr\"]]}");
    minigraf_close(db);
}

TEST(group_equality_is_o3) {
    /* 1 and 1.0 are two groups; every NaN would be one. */
    MiniGrafDb *db = db_with("(transact [[:a :k 1] [:b :k 1.0] [:c :k 1]])");
    EXPECT_EXEC(db, "(query [:find ?k (count ?e) :where [?e :k ?k]])",
                "{\"variables\":[\"?k\",\"(count ?e)\"],\"results\":[[1,2],[1.0,1]]}");
    minigraf_close(db);
}

/* The UUID of the single row of `text`, as JSON ("\"...\""). */
static void only_uuid(MiniGrafDb *db, const char *text, char out[40]) {
    char *got = exec_at(__FILE__, __LINE__, db, text);
    const char *at = got ? strstr(got, "[[\"") : NULL;
    CHECK(at != NULL && strlen(at) >= 40);
    snprintf(out, 40, "%.38s", at ? at + 2 : "");
    minigraf_string_free(got);
}

/* Refs read from the store stay in their stored form through joins,
 * grouping keys and count's argument: the answers are those of the
 * decoded values (E2 with keywords, O3 grouping, output as UUIDs). */
TEST(stored_references_join_group_and_count) {
    MiniGrafDb *db = db_with("(transact [[:a :name \"A\"] [:b :name \"B\"] [:c :name \"C\"] "
                             "[:d :likes :c]])");
    char a[40], b[40], c[40], text[512];
    only_uuid(db, "(query [:find ?e :where [?e :name \"A\"]])", a);
    only_uuid(db, "(query [:find ?e :where [?e :name \"B\"]])", b);
    only_uuid(db, "(query [:find ?e :where [?e :name \"C\"]])", c);
    snprintf(text, sizeof text,
             "(transact [[:a :friend #uuid %s] [:a :friend #uuid %s] [:b :friend #uuid %s] "
             "[:c :friend #uuid %s]])",
             b, c, c, a);
    EXPECT_TRANSACT(db, text);
    EXPECT_EXACT(
        db, "(query [:find ?n (count ?e) :where [?e :friend ?f] [?f :name ?n] :order-by [?n]])",
        "{\"variables\":[\"?n\",\"(count ?e)\"],\"results\":[[\"A\",1],[\"B\",1],[\"C\",2]]}");
    /* ?k is the keyword :c in one clause, a stored Ref in the other (E2). */
    EXPECT_EXACT(
        db, "(query [:find ?n :where [?d :likes ?k] [?e :friend ?k] [?e :name ?n] :order-by [?n]])",
        "{\"variables\":[\"?n\"],\"results\":[[\"A\"],[\"B\"]]}");
    EXPECT_EXACT(db, "(query [:find ?n :where [?e :name ?n] [?d :likes ?e]])",
                 "{\"variables\":[\"?n\"],\"results\":[[\"C\"]]}");
    EXPECT_EXACT(db, "(query [:find (count ?f) (count-distinct ?f) :where [?e :friend ?f]])",
                 "{\"variables\":[\"(count ?f)\",\"(count-distinct ?f)\"],\"results\":[[4,3]]}");
    char want[256];
    snprintf(want, sizeof want, "{\"variables\":[\"?f\",\"(count ?e)\"],\"results\":[[%s,2]]}", c);
    EXPECT_EXACT(db, "(query [:find ?f (count ?e) :where [?e :friend ?f] [?f :name \"C\"]])", want);
    minigraf_close(db);
}

/* 150 groups of two, as Integer and as String keys: enough groups that
 * the grouping memo grows and its slots collide. */
TEST(many_groups_count_each_key_once) {
    MiniGrafDb *db = open_memory_db();
    static char tx[300 * 48 + 32], want[150 * 16 + 64];
    strcpy(tx, "(transact [");
    for (int i = 0; i < 300; i++)
        snprintf(tx + strlen(tx), sizeof tx - strlen(tx), "[:e%d :k %d] [:e%d :s \"g%03d\"] ", i,
                 i % 150, i, i % 150);
    strcat(tx, "])");
    EXPECT_TRANSACT(db, tx);
    strcpy(want, "{\"variables\":[\"?k\",\"(count ?e)\"],\"results\":[");
    for (int g = 0; g < 150; g++)
        snprintf(want + strlen(want), sizeof want - strlen(want), "%s[%d,2]", g ? "," : "", g);
    strcat(want, "]}");
    EXPECT_EXACT(db, "(query [:find ?k (count ?e) :where [?e :k ?k] :order-by [?k]])", want);
    strcpy(want, "{\"variables\":[\"?s\",\"(count ?e)\"],\"results\":[");
    for (int g = 0; g < 150; g++)
        snprintf(want + strlen(want), sizeof want - strlen(want), "%s[\"g%03d\",2]", g ? "," : "",
                 g);
    strcat(want, "]}");
    EXPECT_EXACT(db, "(query [:find ?s (count ?e) :where [?e :s ?s] :order-by [?s]])", want);
    minigraf_close(db);
}

TEST(empty_input_rules_10_4) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_EXEC(db, "(query [:find (count ?x) :where [?e :nothing ?x]])",
                "{\"variables\":[\"(count ?x)\"],\"results\":[[0]]}");
    EXPECT_EXEC(db,
                "(query [:find (count ?x) (count-distinct ?x) :with ?e :where [?e :nothing ?x]])",
                "{\"variables\":[\"(count ?x)\",\"(count-distinct ?x)\"],\"results\":[[0,0]]}");
    EXPECT_EXEC(db, "(query [:find (sum ?x) :where [?e :nothing ?x]])",
                "{\"variables\":[\"(sum ?x)\"],\"results\":[]}");
    EXPECT_EXEC(db, "(query [:find (count ?x) (min ?x) :where [?e :nothing ?x]])",
                "{\"variables\":[\"(count ?x)\",\"(min ?x)\"],\"results\":[]}");
    EXPECT_EXEC(db, "(query [:find ?d (count ?x) :where [?x :dept ?d]])",
                "{\"variables\":[\"?d\",\"(count ?x)\"],\"results\":[]}");
    minigraf_close(db);
}

TEST(all_null_min_max_group_is_omitted) {
    MiniGrafDb *db = db_with("(transact [[:a :g \"x\"] [:a :v nil] [:b :g \"y\"] [:b :v 3]])");
    EXPECT_EXEC(db, "(query [:find ?g (min ?v) :where [?e :g ?g] [?e :v ?v]])",
                "{\"variables\":[\"?g\",\"(min ?v)\"],\"results\":[[\"y\",3]]}");
    EXPECT_EXEC(db, "(query [:find ?g (count ?v) (avg ?v) :where [?e :g ?g] [?e :v ?v]])",
                "{\"variables\":[\"?g\",\"(count ?v)\",\"(avg "
                "?v)\"],\"results\":[[\"x\",0,null],[\"y\",1,3.0]]}");
    minigraf_close(db);
}

TEST(aggregate_type_errors) {
    MiniGrafDb *db = db_with(
        "(transact [[:a :v 1] [:b :v 1.5] [:c :s \"lots\"] [:d :f true] [:e :k :kw]])");
    EXPECT_ERROR(db, "(query [:find (sum ?v) :where [?e :s ?v]])", "INT-041");
    CHECK_STR_EQ(minigraf_last_error(db),
                 "[INT-041] sum: expected Integer, Float, or Null, got String");
    EXPECT_ERROR(db, "(query [:find (sum-distinct ?v) :where [?e :k ?v]])", "INT-041");
    EXPECT_ERROR(db, "(query [:find (min ?v) :where [?e :v ?v]])", "INT-042");
    EXPECT_ERROR(db, "(query [:find (max ?v) :where [?e :f ?v]])", "INT-043");
    CHECK_STR_EQ(minigraf_last_error(db),
                 "[INT-043] max: expected Integer, Float, String, or Null, got Boolean");
    EXPECT_ERROR(db, "(query [:find (min ?v) :where [?e :k ?v]])", "INT-043");
    minigraf_close(db);
}

TEST(sum_saturates_and_floats_take_over) {
    MiniGrafDb *db = db_with(
        "(transact [[:a :n 9223372036854775807] [:b :n 2] [:c :m -9223372036854775808] "
        "[:d :m -1] [:e :x 10] [:f :x 0.5]])");
    EXPECT_EXEC(db, "(query [:find (sum ?n) :where [?e :n ?n]])",
                "{\"variables\":[\"(sum ?n)\"],\"results\":[[9223372036854775807]]}");
    EXPECT_EXEC(db, "(query [:find (sum ?n) :where [?e :m ?n]])",
                "{\"variables\":[\"(sum ?n)\"],\"results\":[[-9223372036854775808]]}");
    EXPECT_EXEC(db, "(query [:find (sum ?n) :where [?e :x ?n]])",
                "{\"variables\":[\"(sum ?n)\"],\"results\":[[10.5]]}");
    minigraf_close(db);
}

TEST(collect_set_is_a_list_value) {
    MiniGrafDb *db = db_with(
        "(transact [[:a :v \"b\"] [:b :v 2] [:c :v 1.5] [:d :v true] [:f :v :k] [:g :v 2]])");
    EXPECT_EXEC(db, "(query [:find (collect-set ?v) :where [?e :v ?v]])",
                "{\"variables\":[\"(collect-set ?v)\"],\"results\":[[[\"b\",2,1.5,true,\":k\"]]]}");
    MiniGrafCursor *c = minigraf_query(db, "(query [:find (collect-set ?v) :where [?e :v ?v]])");
    CHECK(c != NULL && minigraf_cursor_set_format(c, MINIGRAF_FORMAT_TYPED) == 0);
    char *b = minigraf_cursor_next_batch(c, 10);
    CHECK_STR_EQ(
        b, "[[{\"type\":\"list\",\"value\":[{\"type\":\"string\",\"value\":\"b\"},"
           "{\"type\":\"integer\",\"value\":2},{\"type\":\"float\",\"value\":1.5},"
           "{\"type\":\"boolean\",\"value\":true},{\"type\":\"keyword\",\"value\":\":k\"}]}]]");
    minigraf_string_free(b);
    minigraf_cursor_free(c);
    minigraf_close(db);
}

TEST(unknown_functions_fail_before_any_row) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_ERROR(db, "(query [:find (median ?x) :where [?e :v ?x]])", "QRY-010");
    CHECK_STR_EQ(minigraf_last_error(db), "[QRY-010] unknown aggregate function: 'median'");
    EXPECT_ERROR(db, "(query [:find ?x (ntile ?x :over (:order-by ?x)) :where [?e :v ?x]])",
                 "QRY-011");
    minigraf_close(db);
}

/* ---- windows ---------------------------------------------------------------- */

TEST(windows_every_function) {
    MiniGrafDb *db = db_with(SAL_DATA);
    EXPECT_EXEC(db,
                "(query [:find ?s (row-number :over (:order-by ?s)) (rank :over (:order-by ?s)) "
                "(count ?s :over (:order-by ?s)) (sum ?s :over (:order-by ?s)) (min ?s :over "
                "(:order-by ?s :desc)) "
                "(max ?s :over (:order-by ?s)) (avg ?s :over (:order-by ?s :desc)) (lag ?s :over "
                "(:order-by ?s)) "
                "(lead ?s :over (:order-by ?s)) :where [?e :sal ?s]])",
                "{\"variables\":[\"?s\",\"(row-number :over ...)\",\"(rank :over ...)\",\"(count "
                "?s :over ...)\","
                "\"(sum ?s :over ...)\",\"(min ?s :over ...)\",\"(max ?s :over ...)\",\"(avg ?s "
                ":over ...)\","
                "\"(lag ?s :over ...)\",\"(lead ?s :over ...)\"],\"results\":["
                "[85,1,1,1,85,85,85,95.0,null,90],[90,2,2,2,175,90,90,98.33333333333333,85,95],"
                "[95,3,3,3,270,95,95,102.5,90,110],[110,4,4,4,380,110,110,110.0,95,null]]}");
    minigraf_close(db);
}

TEST(window_rank_ties_and_partitions) {
    MiniGrafDb *db = db_with(
        "(transact [[:a :score 10] [:a :team \"r\"] [:b :score 10] [:b :team \"r\"] "
        "[:c :score 20] [:c :team \"r\"] [:d :score 5] [:d :team \"b\"]])");
    EXPECT_EXEC(
        db, "(query [:find ?x (rank :over (:order-by ?x)) :where [?e :score ?x]])",
        "{\"variables\":[\"?x\",\"(rank :over ...)\"],\"results\":[[10,2],[10,2],[20,4],[5,1]]}");
    EXPECT_EXEC(db,
                "(query [:find ?t ?x (rank :over (:partition-by ?t :order-by ?x :desc)) "
                ":where [?e :score ?x] [?e :team ?t]])",
                "{\"variables\":[\"?t\",\"?x\",\"(rank :over ...)\"],"
                "\"results\":[[\"b\",5,1],[\"r\",10,2],[\"r\",10,2],[\"r\",20,1]]}");
    minigraf_close(db);
}

/* 600 rows, two partitions of 300: enough for the radix sort of integer
 * keys. Values from -400 to 497, each twice (ties, within a partition or
 * across), span two key bytes; ranks checked against a count of the
 * values before each. */
#define RADIX_ROWS 600

static int64_t radix_value(int i) {
    return (int64_t)((i * 7919) % RADIX_ROWS / 2 * 3) - 400;
}

static int64_t radix_rank(int i, int partitioned, int desc) {
    int64_t before = 0;
    for (int j = 0; j < RADIX_ROWS; j++)
        if (!partitioned || j % 2 == i % 2)
            before += desc ? radix_value(j) > radix_value(i) : radix_value(j) < radix_value(i);
    return before + 1;
}

TEST(window_rank_of_many_integers) {
    MiniGrafDb *db = open_memory_db();
    static char tx[RADIX_ROWS * 40 + 32], want[RADIX_ROWS * 24 + 96];
    strcpy(tx, "(transact [");
    for (int i = 0; i < RADIX_ROWS; i++)
        snprintf(tx + strlen(tx), sizeof tx - strlen(tx), "[:e%d :k %lld] [:e%d :p %d] ", i,
                 (long long)radix_value(i), i, i % 2);
    strcat(tx, "])");
    EXPECT_TRANSACT(db, tx);
    for (int partitioned = 0; partitioned < 2; partitioned++) {
        strcpy(want, "{\"variables\":[\"?p\",\"?k\",\"(rank :over ...)\"],\"results\":[");
        for (int i = 0; i < RADIX_ROWS; i++)
            snprintf(want + strlen(want), sizeof want - strlen(want), "%s[%d,%lld,%lld]",
                     i ? "," : "", i % 2, (long long)radix_value(i),
                     (long long)radix_rank(i, partitioned, partitioned));
        strcat(want, "]}");
        EXPECT_EXEC(db,
                    partitioned ? "(query [:find ?p ?k (rank :over (:partition-by ?p :order-by ?k "
                                  ":desc)) :where [?e :k ?k] [?e :p ?p]])"
                                : "(query [:find ?p ?k (rank :over (:order-by ?k)) "
                                  ":where [?e :k ?k] [?e :p ?p]])",
                    want);
    }
    minigraf_close(db);
}

/* Rank and row-number of many rows whose integer keys span fewer values
 * than there are rows (counted per key, not sorted), current and :as-of
 * before a retraction, both directions: a row's rank is 1 + the visible
 * rows whose key comes strictly before its own; the rows of one key are
 * numbered from there on. */
#define COUNTED_ROWS 400

static int counted_key(int i) {
    return (i * 7919) % COUNTED_ROWS % 13 - 6;
}

/* tx 1 writes every row; tx 2 retracts the keys of every fifth. */
static int counted_visible(int i, int tx) {
    return tx < 2 || i % 5 != 0;
}

static int counted_before(int key, int tx, int desc) {
    int before = 0;
    for (int j = 0; j < COUNTED_ROWS; j++)
        before += counted_visible(j, tx) && (desc ? counted_key(j) > key : counted_key(j) < key);
    return before;
}

static void counted_want(char *want, size_t cap, int rank, int tx, int desc) {
    int seen[13] = {0};
    snprintf(want, cap, "{\"variables\":[%s\"?k\",\"(%s :over ...)\"],\"results\":[",
             rank ? "\"?i\"," : "", rank ? "rank" : "row-number");
    for (int i = 0, first = 1; i < COUNTED_ROWS; i++) {
        if (!counted_visible(i, tx))
            continue;
        int k = counted_key(i), at = counted_before(k, tx, desc) + 1 + (rank ? 0 : seen[k + 6]++);
        size_t len = strlen(want);
        if (rank)
            snprintf(want + len, cap - len, "%s[%d,%d,%d]", first ? "" : ",", i, k, at);
        else
            snprintf(want + len, cap - len, "%s[%d,%d]", first ? "" : ",", k, at);
        first = 0;
    }
    strcat(want, "]}");
}

TEST(window_positions_counted_by_key) {
    MiniGrafDb *db = open_memory_db();
    static char tx[COUNTED_ROWS * 40 + 32], want[COUNTED_ROWS * 24 + 96], q[160];
    strcpy(tx, "(transact [");
    for (int i = 0; i < COUNTED_ROWS; i++)
        snprintf(tx + strlen(tx), sizeof tx - strlen(tx), "[:e%d :k %d] [:e%d :i %d] ", i,
                 counted_key(i), i, i);
    strcat(tx, "])");
    EXPECT_TRANSACT(db, tx);
    strcpy(tx, "(retract [");
    for (int i = 0; i < COUNTED_ROWS; i += 5)
        snprintf(tx + strlen(tx), sizeof tx - strlen(tx), "[:e%d :k %d] ", i, counted_key(i));
    strcat(tx, "])");
    EXPECT_RETRACT(db, tx);
    for (int t = 1; t <= 2; t++)
        for (int desc = 0; desc < 2; desc++)
            for (int rank = 0; rank < 2; rank++) {
                snprintf(q, sizeof q,
                         "(query [:find %s?k (%s :over (:order-by ?k%s)) %s:where [?e :k ?k]%s])",
                         rank ? "?i " : "", rank ? "rank" : "row-number", desc ? " :desc" : "",
                         t == 1 ? ":as-of 1 " : "", rank ? " [?e :i ?i]" : "");
                counted_want(want, sizeof want, rank, t, desc);
                EXPECT_EXEC(db, q, want);
            }
    minigraf_close(db);
}

TEST(windows_after_aggregation) {
    MiniGrafDb *db = db_with(EMP_DATA);
    EXPECT_EXEC(db,
                "(query [:find ?d (count ?e) (rank :over (:order-by ?d)) :where [?e :dept ?d]])",
                "{\"variables\":[\"?d\",\"(count ?e)\",\"(rank :over "
                "...)\"],\"results\":[[\"eng\",2,1],[\"hr\",1,2]]}");
    /* Decision: a window variable that is an aggregate's variable reads that
     * aggregate's value; any other non-grouping variable reads Null. */
    EXPECT_EXEC(db,
                "(query [:find ?d (sum ?s) (rank :over (:order-by ?s :desc)) :where [?e :dept ?d] "
                "[?e :salary ?s]])",
                "{\"variables\":[\"?d\",\"(sum ?s)\",\"(rank :over "
                "...)\"],\"results\":[[\"eng\",100,1],[\"hr\",40,2]]}");
    EXPECT_EXEC(db,
                "(query [:find ?d (count ?e) (max ?s :over (:order-by ?d)) :where [?e :dept ?d] "
                "[?e :salary ?s]])",
                "{\"variables\":[\"?d\",\"(count ?e)\",\"(max ?s :over "
                "...)\"],\"results\":[[\"eng\",2,null],[\"hr\",1,null]]}");
    minigraf_close(db);
}

/* ---- :order-by, :limit, :offset ----------------------------------------------- */

TEST(order_by_asc_desc_and_ties) {
    MiniGrafDb *db = db_with("(transact [[:a :n \"b\"] [:a :age 1] [:b :n \"a\"] [:b :age 1] [:c "
                             ":n \"c\"] [:c :age 0]])");
    EXPECT_EXACT(db, "(query [:find ?a ?n :where [?e :n ?n] [?e :age ?a] :order-by [?a]])",
                 "{\"variables\":[\"?a\",\"?n\"],\"results\":[[0,\"c\"],[1,\"a\"],[1,\"b\"]]}");
    EXPECT_EXACT(db, "(query [:find ?a ?n :where [?e :n ?n] [?e :age ?a] :order-by [?a :desc]])",
                 "{\"variables\":[\"?a\",\"?n\"],\"results\":[[1,\"a\"],[1,\"b\"],[0,\"c\"]]}");
    EXPECT_EXACT(
        db, "(query [:find ?a ?n :where [?e :n ?n] [?e :age ?a] :order-by [?a :desc ?n :desc]])",
        "{\"variables\":[\"?a\",\"?n\"],\"results\":[[1,\"b\"],[1,\"a\"],[0,\"c\"]]}");
    minigraf_close(db);
}

TEST(order_by_mixed_types) {
    MiniGrafDb *db = db_with(
        "(transact [[:a :v 2] [:b :v 1.5] [:c :v 1] [:d :v \"z\"] [:f :v true] [:g :v 1.0]])");
    EXPECT_EXACT(db, "(query [:find ?v :where [?e :v ?v] :order-by [?v]])",
                 "{\"variables\":[\"?v\"],\"results\":[[\"z\"],[1],[1.0],[1.5],[2],[true]]}");
    minigraf_close(db);
}

TEST(limit_offset_and_top_k) {
    MiniGrafDb *db = db_with(SAL_DATA);
    EXPECT_EXACT(db, "(query [:find ?s :where [?e :sal ?s] :order-by [?s :desc] :limit 2])",
                 "{\"variables\":[\"?s\"],\"results\":[[110],[95]]}");
    EXPECT_EXACT(db, "(query [:find ?s :where [?e :sal ?s] :order-by [?s] :offset 1 :limit 2])",
                 "{\"variables\":[\"?s\"],\"results\":[[90],[95]]}");
    EXPECT_EXACT(db, "(query [:find ?s :where [?e :sal ?s] :order-by [?s] :offset 3])",
                 "{\"variables\":[\"?s\"],\"results\":[[110]]}");
    char *r = EXEC(db, "(query [:find ?s :where [?e :sal ?s] :limit 3])");
    const char *head = "{\"variables\":[\"?s\"],\"results\":[[";
    CHECK(r != NULL && strncmp(r, head, strlen(head)) == 0);
    size_t rows = 0;
    for (const char *p = r ? r : ""; (p = strstr(p, "],[")) != NULL; p++)
        rows++;
    CHECK_INT_EQ(rows + 1, 3);
    minigraf_string_free(r);
    EXPECT_EXEC(db, "(query [:find ?s :where [?e :sal ?s] :offset 4])",
                "{\"variables\":[\"?s\"],\"results\":[]}");
    EXPECT_EXEC(db, "(query [:find ?s :where [?e :sal ?s] :limit 0])",
                "{\"variables\":[\"?s\"],\"results\":[]}");
    EXPECT_EXACT(db, "(query [:find (count ?s) :where [?e :sal ?s] :limit 5])",
                 "{\"variables\":[\"(count ?s)\"],\"results\":[[4]]}");
    minigraf_close(db);
}

/* ---- the memory meter ---------------------------------------------------------- */

/* 200 facts with 100-byte strings: any plan holds well over 4 KiB to
 * answer the projection, while one solution fits easily. */
static void add_wide_facts(MiniGrafDb *db) {
    static char tx[200 * 140 + 32];
    char pad[101];
    memset(pad, 'x', 100);
    pad[100] = '\0';
    strcpy(tx, "(transact [");
    for (int i = 0; i < 200; i++)
        snprintf(tx + strlen(tx), sizeof tx - strlen(tx), "[:e%d :v \"%03d%s\"] ", i, i, pad);
    strcat(tx, "])");
    EXPECT_TRANSACT(db, tx);
}

TEST(query_memory_limit_fails_with_qry_012) {
    char *error = NULL;
    MiniGrafDb *db = minigraf_open_with_options(NULL, "{\"query_memory_limit\": 4096}", &error);
    CHECK(db != NULL);
    if (db == NULL) {
        minigraf_string_free(error);
        return;
    }
    add_wide_facts(db);
    EXPECT_EXEC(db, "(query [:find (count ?v) :where [:e7 :v ?v]])",
                "{\"variables\":[\"(count ?v)\"],\"results\":[[1]]}");
    EXPECT_ERROR(db, "(query [:find ?e ?v :where [?e :v ?v]])", "QRY-012");
    const char *msg = minigraf_last_error(db);
    CHECK(msg != NULL && strstr(msg, "query memory limit of 4096 bytes exceeded in ") != NULL);
    EXPECT_ERROR(db, "(query [:find ?v :where [?e :v ?v] :order-by [?v]])", "QRY-012");
    EXPECT_ERROR(db, "(query [:find (collect-set ?v) :where [?e :v ?v]])", "QRY-012");
    minigraf_close(db);

    db = minigraf_open_with_options(NULL, "{\"query_memory_limit\": 0}", NULL);
    add_wide_facts(db);
    EXPECT_EXEC(db, "(query [:find (count ?v) :where [?e :v ?v]])",
                "{\"variables\":[\"(count ?v)\"],\"results\":[[200]]}");
    minigraf_close(db);
}

TEST(query_memory_limit_option_validation) {
    char *error = NULL;
    MiniGrafDb *db = minigraf_open_with_options(NULL, "{\"query_memory_limit\": -1}", &error);
    CHECK(db == NULL);
    CHECK(error != NULL && strncmp(error, "[API-017]", 9) == 0);
    minigraf_string_free(error);
    db = minigraf_open_with_options(NULL, "{\"query_memory_limit\": 0}", NULL);
    CHECK(db != NULL);
    minigraf_close(db);
}

CHECK_MAIN(TEST_ENTRY(headers_follow_spec_8_2), TEST_ENTRY(projection_is_a_bag),
           TEST_ENTRY(every_builtin_aggregate_ungrouped), TEST_ENTRY(grouped_aggregates_and_with),
           TEST_ENTRY(group_equality_is_o3), TEST_ENTRY(stored_references_join_group_and_count),
           TEST_ENTRY(many_groups_count_each_key_once), TEST_ENTRY(empty_input_rules_10_4),
           TEST_ENTRY(all_null_min_max_group_is_omitted), TEST_ENTRY(aggregate_type_errors),
           TEST_ENTRY(sum_saturates_and_floats_take_over), TEST_ENTRY(collect_set_is_a_list_value),
           TEST_ENTRY(unknown_functions_fail_before_any_row), TEST_ENTRY(windows_every_function),
           TEST_ENTRY(window_rank_ties_and_partitions), TEST_ENTRY(window_rank_of_many_integers),
           TEST_ENTRY(window_positions_counted_by_key), TEST_ENTRY(windows_after_aggregation),
           TEST_ENTRY(order_by_asc_desc_and_ties), TEST_ENTRY(order_by_mixed_types),
           TEST_ENTRY(limit_offset_and_top_k), TEST_ENTRY(query_memory_limit_fails_with_qry_012),
           TEST_ENTRY(query_memory_limit_option_validation))
