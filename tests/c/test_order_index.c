/* Index-ordered limits (language.md §8.15, D3): `:order-by` on a variable bound
 * by a pattern's value position, with `:limit` / `:offset`, reads the
 * attribute's values in order and stops after offset + limit rows. Each
 * answer is compared with the same query sorted whole (no :limit, which
 * never takes that path) cut to the same rows, and the work a query does
 * is counted through the progress handler. */
#include <stdio.h>

#include "support.h"

/* `q` with `:offset offset :limit limit` equals the rows [offset, offset +
 * limit) of `q` sorted whole, in order (the row order is deterministic:
 * ties break on the other columns, language.md §8.15). `q` ends with its
 * :order-by section, without the closing "])". */
static void expect_slice(MiniGrafDb *db, const char *q, long offset, long limit)
{
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
    /* rebuild the expected text from the whole answer's rows */
    const char *rows = strstr(all, "\"results\":[");
    char want[8192];
    size_t head = (size_t)(rows - all) + strlen("\"results\":[");
    memcpy(want, all, head);
    size_t len = head;
    const char *p = rows + strlen("\"results\":[");
    long i = 0;
    while (*p == '[') {
        size_t n = json_value_len(p);
        if (i >= offset && i < offset + limit) {
            if (len > head)
                want[len++] = ',';
            memcpy(want + len, p, n);
            len += n;
        }
        i++;
        p += n;
        if (*p == ',')
            p++;
    }
    snprintf(want + len, sizeof want - len, "]}");
    CHECK_STR_EQ(got, want);
    minigraf_string_free(all);
    minigraf_string_free(got);
}

/* 300 entities :e0 … :e299 with :score (i * 37) % 1000 - 500 (distinct,
 * negatives included) and :rank i % 7 (ties). */
static MiniGrafDb *scores_db(void)
{
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

TEST(desc_and_asc_limits_match_the_full_sort)
{
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

TEST(offsets_count_before_the_limit)
{
    MiniGrafDb *db = scores_db();
    expect_slice(db, "[:find ?s :where [?e :score ?s] :order-by [?s :desc]", 7, 5);
    expect_slice(db, "[:find ?s :where [?e :score ?s] :order-by [?s]", 64, 70);
    EXPECT_EXACT(db, "(query [:find ?s :where [?e :score ?s] :order-by [?s :desc] :offset 2 :limit 2])",
                 "{\"variables\":[\"?s\"],\"results\":[[497],[496]]}");
    minigraf_close(db);
}

/* Rows equal on the keys are ordered by the other columns (language.md §8.15),
 * as the whole sort orders them, also where the limit cuts a tie group:
 * 42 entities have rank 6 (i % 7 == 6), 43 rank 5. */
TEST(ties_break_on_the_other_columns)
{
    MiniGrafDb *db = scores_db();
    expect_slice(db, "[:find ?r :where [?e :rank ?r] :order-by [?r :desc]", 0, 50);
    expect_slice(db, "[:find ?e ?r :where [?e :rank ?r] :order-by [?r :desc]", 0, 45);
    expect_slice(db, "[:find ?r ?e :where [?e :rank ?r] :order-by [?r :desc ?e]", 0, 45);
    expect_slice(db, "[:find ?r ?e :where [?e :rank ?r] :order-by [?r ?e :desc]", 40, 5);
    expect_slice(db, "[:find ?e ?r ?s :where [?e :rank ?r] [?e :score ?s] :order-by [?r]", 41, 3);
    minigraf_close(db);
}

/* :e27 holds the top score 499, :e54 the next, 498. */
TEST(retractions_as_of_and_valid_at)
{
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
    EXPECT_EXACT(db, "(query [:find ?s :as-of 1 :where [?e :score ?s] :order-by [?s :desc] :limit 2])",
                 "{\"variables\":[\"?s\"],\"results\":[[499],[498]]}");
    EXPECT_EXACT(db, "(query [:find ?s :as-of 2 :where [?e :score ?s] :order-by [?s] :limit 1])",
                 "{\"variables\":[\"?s\"],\"results\":[[-500]]}");
    /* valid only in 2020: hidden now, the top at a time inside 2020 */
    EXPECT_TRANSACT(db, "(transact {:valid-from \"2020-01-01T00:00:00Z\" :valid-to \"2021-01-01T00:00:00Z\"} "
                        "[[:old :score 9000] [:old :score -9000]])");
    EXPECT_EXACT(db, top, "{\"variables\":[\"?s\"],\"results\":[[2000],[498]]}");
    EXPECT_EXACT(db, "(query [:find ?s :valid-at \"2020-06-01T00:00:00Z\" :where [?e :score ?s] "
                     ":order-by [?s :desc] :limit 1])",
                 "{\"variables\":[\"?s\"],\"results\":[[9000]]}");
    EXPECT_EXACT(db, "(query [:find ?s :valid-at :any-valid-time :where [?e :score ?s] "
                     ":order-by [?s] :limit 2])",
                 "{\"variables\":[\"?s\"],\"results\":[[-9000],[-600]]}");
    minigraf_close(db);
}

/* Values of several types follow language.md D3: Integer and Float interleave, every
 * String first, then the numbers, Booleans, Keywords. */
TEST(mixed_types_follow_d3)
{
    MiniGrafDb *db = minigraf_open_in_memory();
    EXPECT_TRANSACT(db, "(transact [[:a :v 1] [:b :v 2.5] [:c :v 3] [:d :v \"z\"] [:f :v true] [:g :v -1.5]])");
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
TEST(joins_and_filters_after_the_ordered_pattern)
{
    MiniGrafDb *db = scores_db();
    expect_slice(db, "[:find ?s ?r :where [?e :score ?s] [?e :rank ?r] [(= ?r 3)] :order-by [?s :desc ?r]", 0, 4);
    expect_slice(db, "[:find ?s :where [?e :score ?s] (not [?e :rank 0]) :order-by [?s]", 3, 6);
    expect_slice(db, "[:find ?s :where [?e :score ?s] [?e :rank 6] :order-by [?s :desc]", 0, 1);
    minigraf_close(db);
}

/* A descending read that meets few rows its later clauses keep goes on
 * forwards after a few dozen values: the rows found before and after
 * still make the right answer. */
TEST(a_long_descending_read_goes_on_forwards)
{
    MiniGrafDb *db = scores_db();
    expect_slice(db, "[:find ?s :where [?e :score ?s] [(< ?s -400)] :order-by [?s :desc]", 0, 5);
    expect_slice(db, "[:find ?s ?e :where [?e :score ?s] [?e :rank 0] :order-by [?s :desc]", 0, 10);
    expect_slice(db, "[:find ?s ?e :where [?e :score ?s] [?e :rank 0] :order-by [?s :desc]", 3, 40);
    expect_slice(db, "[:find ?s :where [?e :score ?s] [(< ?s -10000)] :order-by [?s :desc]", 0, 5);
    minigraf_close(db);
}

static int count_call(void *n)
{
    ++*(int *)n;
    return 0;
}

/* The point of the index order: a top 3 of 20,000 values reads a few
 * records, where sorting reads them all (the progress handler is called
 * every 1,000 units of work: records read, rows produced or sorted). */
TEST(a_limit_reads_only_what_it_returns)
{
    MiniGrafDb *db = minigraf_open_in_memory();
    static char tx[2000 * 32 + 32];
    for (int t = 0; t < 10; t++) {
        strcpy(tx, "(transact [");
        for (int i = t * 2000; i < (t + 1) * 2000; i++)
            snprintf(tx + strlen(tx), sizeof tx - strlen(tx), "[:x%d :w %d] ", i, (i * 7919) % 20000);
        strcat(tx, "])");
        EXPECT_TRANSACT(db, tx);
    }
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

CHECK_MAIN(TEST_ENTRY(desc_and_asc_limits_match_the_full_sort), TEST_ENTRY(offsets_count_before_the_limit),
           TEST_ENTRY(ties_break_on_the_other_columns), TEST_ENTRY(retractions_as_of_and_valid_at),
           TEST_ENTRY(mixed_types_follow_d3), TEST_ENTRY(joins_and_filters_after_the_ordered_pattern),
           TEST_ENTRY(a_long_descending_read_goes_on_forwards), TEST_ENTRY(a_limit_reads_only_what_it_returns))
