/* Time: the transaction counter, :as-of, retraction and valid time
 * (language.md §4.2, §5, §7; scenarios language.md §7.4 without pseudo-attributes). */
#include <time.h>

#include "support.h"

#define R(...) "{\"variables\":[\"?v\"],\"results\":[" __VA_ARGS__ "]}"
#define S(...) "{\"variables\":[\"?s\"],\"results\":[" __VA_ARGS__ "]}"

/* "YYYY-MM-DDTHH:MM:SS.mmmZ" for a wall-clock ms. */
static void iso_from_ms(uint64_t ms, char out[32]) {
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    size_t n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, 32 - n, ".%03dZ", (int)(ms % 1000));
}

static void sleep_ms(long ms) {
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

TEST(counter_starts_at_zero_and_counts_every_write) {
    MiniGrafDb *db = open_memory_db();
    CHECK_INT_EQ(tx_count(db), 0);
    EXPECT_TRANSACT(db, "(transact [[:a :n 1]])");
    CHECK_INT_EQ(tx_count(db), 1);
    EXPECT_TRANSACT(db, "(transact [])");
    CHECK_INT_EQ(tx_count(db), 2);
    EXPECT_RETRACT(db, "(retract [[:a :n 99]])"); /* nothing to retract: still counts */
    CHECK_INT_EQ(tx_count(db), 3);
    EXPECT_RETRACT(db, "(retract [])");
    CHECK_INT_EQ(tx_count(db), 4);
    minigraf_close(db);
}

TEST(queries_and_failed_commands_do_not_advance_the_counter) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :n 1]])");
    char *q = EXEC(db, "(query [:find ?v :where [:a :n ?v]])");
    minigraf_string_free(q);
    MiniGrafCursor *c = minigraf_query(db, "(query [:find ?v :where [:a :n ?v]])");
    minigraf_cursor_free(c);
    EXPECT_ERROR(db, "(transact [[1 :n 1]])", "INT-001");
    EXPECT_ERROR(db, "(retract [[:a :n 1]", "PRS-004");
    CHECK_INT_EQ(tx_count(db), 1);
    minigraf_close(db);
}

TEST(commit_wall_clock_never_goes_backwards) {
    MiniGrafDb *db = open_memory_db();
    uint64_t t1 = EXPECT_TRANSACT(db, "(transact [[:a :n 1]])");
    uint64_t t2 = EXPECT_RETRACT(db, "(retract [[:a :n 1]])");
    uint64_t t3 = EXPECT_TRANSACT(db, "(transact [[:a :n 2]])");
    CHECK(t1 <= t2 && t2 <= t3);
    minigraf_close(db);
}

TEST(as_of_counter_shows_the_database_at_that_transaction) {
    /* language.md §7.4 */
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:k :v 1]])");
    EXPECT_RETRACT(db, "(retract  [[:k :v 1]])");
    EXPECT_TRANSACT(db, "(transact [[:k :v 2]])");
    EXPECT_EXEC(db, "(query [:find ?v :where [:k :v ?v]])", R("[2]"));
    EXPECT_EXEC(db, "(query [:find ?v :as-of 1 :where [:k :v ?v]])", R("[1]"));
    EXPECT_EXEC(db, "(query [:find ?v :as-of 2 :where [:k :v ?v]])", R());
    EXPECT_EXEC(db, "(query [:find ?v :as-of 0 :where [:k :v ?v]])", R());
    EXPECT_EXEC(db, "(query [:find ?v :as-of 3 :where [:k :v ?v]])", R("[2]"));
    EXPECT_EXEC(db, "(query [:find ?v :as-of 999 :where [:k :v ?v]])", R("[2]"));
    EXPECT_ERROR(db, "(query [:find ?v :as-of -1 :where [:k :v ?v]])", "PRS-015");
    EXPECT_RETRACT(db, "(retract [[:k :v 99]])");
    CHECK_INT_EQ(tx_count(db), 4);
    minigraf_close(db);
}

TEST(as_of_section_errors_have_spec_codes) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_ERROR(db, "(query [:find ?v :where [:k :v ?v] :as-of])", "PRS-014");
    EXPECT_ERROR(db, "(query [:find ?v :as-of :foo :where [:k :v ?v]])", "PRS-016");
    EXPECT_ERROR(db, "(query [:find ?v :as-of 1.5 :where [:k :v ?v]])", "PRS-016");
    EXPECT_ERROR(db, "(query [:find ?v :where [:k :v ?v] :valid-at])", "PRS-017");
    EXPECT_ERROR(db, "(query [:find ?v :valid-at 5 :where [:k :v ?v]])", "PRS-018");
    minigraf_close(db);
}

TEST(last_as_of_wins_when_repeated) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:k :v 1]])");
    EXPECT_TRANSACT(db, "(transact [[:k :v 2]])");
    EXPECT_EXEC(db, "(query [:find ?v :as-of 2 :as-of 1 :where [:k :v ?v]])", R("[1]"));
    minigraf_close(db);
}

TEST(as_of_timestamp_cuts_by_commit_wall_clock) {
    MiniGrafDb *db = open_memory_db();
    uint64_t t1 = EXPECT_TRANSACT(db, "(transact [[:k :v 1]])");
    sleep_ms(5);
    EXPECT_TRANSACT(db, "(transact [[:k :v 2]])");
    char iso[32], q[160];
    iso_from_ms(t1, iso);
    snprintf(q, sizeof q, "(query [:find ?v :as-of \"%s\" :where [:k :v ?v]])", iso);
    EXPECT_EXEC(db, q, R("[1]"));
    EXPECT_EXEC(db, "(query [:find ?v :as-of \"1970-01-01\" :where [:k :v ?v]])", R());
    EXPECT_EXEC(db, "(query [:find ?v :as-of \"2999-01-01\" :where [:k :v ?v]])", R("[1],[2]"));
    minigraf_close(db);
}

TEST(retraction_hides_only_that_exact_triple) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :n 30] [:a :n 30.0] [:a :n 31] [:a :f :bob] "
                        "[:a :f #uuid \"2340101d-cda1-5ebe-a64b-0d27506374ef\"]])");
    EXPECT_RETRACT(db, "(retract [[:a :n 30.0] [:a :f :bob]])");
    EXPECT_EXEC(db, "(query [:find ?v :where [:a :n ?v]])", R("[30],[31]"));
    EXPECT_EXEC(db, "(query [:find ?v :where [:a :f ?v]])",
                R("[\"2340101d-cda1-5ebe-a64b-0d27506374ef\"]"));
    minigraf_close(db);
}

TEST(reassertion_after_retraction_is_visible_again) {
    /* language.md §7.4 worked example */
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:alice :person/age 30]])");
    EXPECT_RETRACT(db, "(retract  [[:alice :person/age 30]])");
    EXPECT_TRANSACT(db, "(transact [[:alice :person/age 31]])");
    EXPECT_TRANSACT(db, "(transact [[:alice :person/age 30]])");
    EXPECT_EXEC(db, "(query [:find ?v :where [:alice :person/age ?v]])", R("[30],[31]"));
    EXPECT_EXEC(db, "(query [:find ?v :as-of 3 :where [:alice :person/age ?v]])", R("[31]"));
    minigraf_close(db);
}

TEST(new_value_does_not_replace_old_one) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:alice :age 30]])");
    EXPECT_TRANSACT(db, "(transact [[:alice :age 31]])");
    EXPECT_EXEC(db, "(query [:find ?v :where [:alice :age ?v]])", R("[30],[31]"));
    minigraf_close(db);
}

TEST(duplicate_facts_in_one_transact_collapse) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:x :a 1] [:x :a 1]])");
    EXPECT_EXEC(db, "(query [:find ?v :where [:x :a ?v]])", R("[1]"));
    minigraf_close(db);
}

/* language.md §7.4: employment windows of :carol. */
static MiniGrafDb *carol_db(void) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact {:valid-from \"2023-01-01\" :valid-to \"2023-06-30\"} "
                        "[[:carol :emp/status :active]])");
    EXPECT_TRANSACT(db, "(transact {:valid-from \"2023-06-30\"} [[:carol :emp/status :alumni]])");
    return db;
}

TEST(valid_at_selects_the_window_holding_the_instant) {
    MiniGrafDb *db = carol_db();
    EXPECT_EXEC(db, "(query [:find ?s :valid-at \"2023-03-01\" :where [:carol :emp/status ?s]])",
                S("[\":active\"]"));
    EXPECT_EXEC(db, "(query [:find ?s :valid-at \"2023-01-01\" :where [:carol :emp/status ?s]])",
                S("[\":active\"]"));
    EXPECT_EXEC(db, "(query [:find ?s :valid-at \"2022-12-31\" :where [:carol :emp/status ?s]])",
                S());
    EXPECT_EXEC(db,
                "(query [:find ?s :valid-at \"2024-01-15T10:00:00Z\" :where "
                "[:carol :emp/status ?s]])",
                S("[\":alumni\"]"));
    minigraf_close(db);
}

TEST(valid_to_is_exclusive) {
    MiniGrafDb *db = carol_db();
    EXPECT_EXEC(db, "(query [:find ?s :valid-at \"2023-06-30\" :where [:carol :emp/status ?s]])",
                S("[\":alumni\"]"));
    EXPECT_EXEC(db,
                "(query [:find ?s :valid-at \"2023-06-29T23:59:59.999Z\" :where "
                "[:carol :emp/status ?s]])",
                S("[\":active\"]"));
    minigraf_close(db);
}

TEST(plain_query_sees_facts_valid_now) {
    MiniGrafDb *db = carol_db();
    EXPECT_EXEC(db, "(query [:find ?s :where [:carol :emp/status ?s]])", S("[\":alumni\"]"));
    minigraf_close(db);
}

TEST(any_valid_time_sees_every_window) {
    MiniGrafDb *db = carol_db();
    EXPECT_EXEC(db, "(query [:find ?s :any-valid-time :where [:carol :emp/status ?s]])",
                S("[\":active\"],[\":alumni\"]"));
    EXPECT_EXEC(db, "(query [:find ?s :valid-at :any-valid-time :where [:carol :emp/status ?s]])",
                S("[\":active\"],[\":alumni\"]"));
    minigraf_close(db);
}

TEST(as_of_and_valid_at_combine) {
    MiniGrafDb *db = carol_db();
    EXPECT_EXEC(db,
                "(query [:find ?s :as-of 1 :valid-at \"2024-01-01\" :where "
                "[:carol :emp/status ?s]])",
                S());
    EXPECT_EXEC(db,
                "(query [:find ?s :as-of 2 :valid-at \"2024-01-01\" :where "
                "[:carol :emp/status ?s]])",
                S("[\":alumni\"]"));
    EXPECT_EXEC(db,
                "(query [:find ?s :as-of 1 :valid-at \"2023-03-01\" :where "
                "[:carol :emp/status ?s]])",
                S("[\":active\"]"));
    minigraf_close(db);
}

TEST(timezone_offsets_are_rejected) {
    MiniGrafDb *db = carol_db();
    CHECK(minigraf_execute(db, "(query [:find ?s :valid-at \"2023-03-01T10:00:00+02:00\" "
                               ":where [:carol :emp/status ?s]])") == NULL);
    const char *msg = minigraf_last_error(db);
    CHECK(msg != NULL && strstr(msg, "timezone offsets are not supported") != NULL);
    CHECK(minigraf_execute(db, "(query [:find ?s :valid-at \"2023-02-30\" "
                               ":where [:carol :emp/status ?s]])") == NULL);
    CHECK(minigraf_execute(db, "(query [:find ?s :valid-at \"2023-03-01T10:00:00\" "
                               ":where [:carol :emp/status ?s]])") == NULL);
    minigraf_close(db);
}

TEST(future_valid_from_is_invisible_now) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact {:valid-from \"2999-01-01\"} [[:x :s :planned]])");
    EXPECT_EXEC(db, "(query [:find ?s :where [:x :s ?s]])", S());
    EXPECT_EXEC(db, "(query [:find ?s :any-valid-time :where [:x :s ?s]])", S("[\":planned\"]"));
    EXPECT_EXEC(db, "(query [:find ?s :valid-at \"2999-06-01\" :where [:x :s ?s]])",
                S("[\":planned\"]"));
    minigraf_close(db);
}

TEST(fact_map_overrides_command_map_key_by_key) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact {:valid-from \"2020-01-01\" :valid-to \"2030-01-01\"} "
                        "[[:x :s 1 {:valid-to \"2021-01-01\"}] [:x :s 2]])");
    EXPECT_EXEC(db, "(query [:find ?s :valid-at \"2020-06-01\" :where [:x :s ?s]])", S("[1],[2]"));
    EXPECT_EXEC(db, "(query [:find ?s :valid-at \"2021-06-01\" :where [:x :s ?s]])", S("[2]"));
    EXPECT_EXEC(db, "(query [:find ?s :valid-at \"2019-12-31\" :where [:x :s ?s]])", S());
    minigraf_close(db);
}

TEST(empty_or_inverted_window_fails_with_api_019) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_ERROR(db, "(transact {:valid-from \"2023-06-30\" :valid-to \"2023-01-01\"} [[:x :s 1]])",
                 "API-019");
    EXPECT_ERROR(db, "(transact [[:x :s 1 {:valid-from \"2023-01-01\" :valid-to \"2023-01-01\"}]])",
                 "API-019");
    EXPECT_ERROR(db, "(transact [[:x :s 1 {:valid-to \"2000-01-01\"}]])", "API-019");
    CHECK_INT_EQ(tx_count(db), 0);
    EXPECT_EXEC(db, "(query [:find ?s :any-valid-time :where [:x :s ?s]])", S());
    minigraf_close(db);
}

TEST(one_fact_with_two_windows_in_one_transact_fails_with_api_011) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_ERROR(db,
                 "(transact [[:x :s 1 {:valid-from \"2020-01-01\"}] "
                 "[:x :s 1 {:valid-from \"2021-01-01\"}]])",
                 "API-011");
    CHECK_INT_EQ(tx_count(db), 0);
    minigraf_close(db);
}

TEST(reasserting_with_a_new_window_replaces_the_old_window) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db,
                    "(transact {:valid-from \"2020-01-01\" :valid-to \"2021-01-01\"} [[:x :s 1]])");
    EXPECT_TRANSACT(db, "(transact {:valid-from \"2022-01-01\"} [[:x :s 1]])");
    EXPECT_EXEC(db, "(query [:find ?s :any-valid-time :where [:x :s ?s]])", S("[1]"));
    EXPECT_EXEC(db, "(query [:find ?s :valid-at \"2020-06-01\" :where [:x :s ?s]])", S());
    EXPECT_EXEC(db, "(query [:find ?s :valid-at \"2023-01-01\" :where [:x :s ?s]])", S("[1]"));
    EXPECT_EXEC(db, "(query [:find ?s :as-of 1 :valid-at \"2020-06-01\" :where [:x :s ?s]])",
                S("[1]"));
    minigraf_close(db);
}

TEST(retraction_hides_every_window_of_the_triple) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db,
                    "(transact {:valid-from \"2020-01-01\" :valid-to \"2021-01-01\"} [[:x :s 1]])");
    EXPECT_RETRACT(db, "(retract [[:x :s 1]])");
    EXPECT_EXEC(db, "(query [:find ?s :any-valid-time :where [:x :s ?s]])", S());
    EXPECT_EXEC(db, "(query [:find ?s :as-of 1 :any-valid-time :where [:x :s ?s]])", S("[1]"));
    minigraf_close(db);
}

TEST(timestamps_before_1970_are_allowed) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact {:valid-from \"1960-01-01\" :valid-to \"1965-01-01\"} "
                        "[[:x :era :sixties]])");
    EXPECT_EXEC(db, "(query [:find ?s :valid-at \"1962-05-05\" :where [:x :era ?s]])",
                S("[\":sixties\"]"));
    minigraf_close(db);
}

CHECK_MAIN(TEST_ENTRY(counter_starts_at_zero_and_counts_every_write),
           TEST_ENTRY(queries_and_failed_commands_do_not_advance_the_counter),
           TEST_ENTRY(commit_wall_clock_never_goes_backwards),
           TEST_ENTRY(as_of_counter_shows_the_database_at_that_transaction),
           TEST_ENTRY(as_of_section_errors_have_spec_codes),
           TEST_ENTRY(last_as_of_wins_when_repeated),
           TEST_ENTRY(as_of_timestamp_cuts_by_commit_wall_clock),
           TEST_ENTRY(retraction_hides_only_that_exact_triple),
           TEST_ENTRY(reassertion_after_retraction_is_visible_again),
           TEST_ENTRY(new_value_does_not_replace_old_one),
           TEST_ENTRY(duplicate_facts_in_one_transact_collapse),
           TEST_ENTRY(valid_at_selects_the_window_holding_the_instant),
           TEST_ENTRY(valid_to_is_exclusive), TEST_ENTRY(plain_query_sees_facts_valid_now),
           TEST_ENTRY(any_valid_time_sees_every_window), TEST_ENTRY(as_of_and_valid_at_combine),
           TEST_ENTRY(timezone_offsets_are_rejected),
           TEST_ENTRY(future_valid_from_is_invisible_now),
           TEST_ENTRY(fact_map_overrides_command_map_key_by_key),
           TEST_ENTRY(empty_or_inverted_window_fails_with_api_019),
           TEST_ENTRY(one_fact_with_two_windows_in_one_transact_fails_with_api_011),
           TEST_ENTRY(reasserting_with_a_new_window_replaces_the_old_window),
           TEST_ENTRY(retraction_hides_every_window_of_the_triple),
           TEST_ENTRY(timestamps_before_1970_are_allowed))
