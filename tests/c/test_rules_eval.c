/* Rules evaluated by queries (language.md §9.2-§9.7, §8.8, §8.13, §9.5), through
 * minigraf.h. Expected rows come from the spec; rows compare as sets
 * (support.h sorts them) unless the query orders them. */
#include <time.h>

#include "support.h"

#define OK "{\"ok\":true}"
#define UUID_A "ddac7794-6537-5d40-a911-e7998b77f717"
#define UUID_B "9f1d2640-cbed-5dbd-8614-24c5d9f2daf7"
#define UUID_C "b46ef719-32f4-5970-9f83-d69c79b7670f"
#define UUID_D "812db7a0-28bf-5c2d-ad1b-d53e91ee2fdf"
#define UUID_E "006be341-8852-59d3-898d-eac77358f13c"

/* The language.md §9.5 graph: a -> b -> c -> d, d blocked; reach and accessible. */
static MiniGrafDb *b6_db(void) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db,
                    "(transact [[:a :edge :b] [:b :edge :c] [:c :edge :d] [:d :blocked true]])");
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) [?x :edge ?y]])", OK);
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) [?x :edge ?z] (reach ?z ?y)])", OK);
    EXPECT_EXEC(db, "(rule [(accessible ?x ?y) (reach ?x ?y) (not [?y :blocked true])])", OK);
    return db;
}

#define ROWS(vars, rows) "{\"variables\":" vars ",\"results\":" rows "}"

TEST(transitive_closure_b6) {
    MiniGrafDb *db = b6_db();
    EXPECT_EXEC(db, "(query [:find ?y :where (reach :a ?y)])",
                ROWS("[\"?y\"]", "[[\":b\"],[\":c\"],[\":d\"]]"));
    EXPECT_EXEC(db, "(query [:find (count ?y) :where (reach :a ?y)])",
                ROWS("[\"(count ?y)\"]", "[[3]]"));
    EXPECT_EXEC(db, "(query [:find (count ?y) :where (reach ?x ?y)])",
                ROWS("[\"(count ?y)\"]", "[[6]]"));
    minigraf_close(db);
}

TEST(negation_across_strata_b6_accessible) {
    MiniGrafDb *db = b6_db();
    EXPECT_EXEC(db, "(query [:find ?y :where (accessible :a ?y)])",
                ROWS("[\"?y\"]", "[[\":b\"],[\":c\"]]"));
    /* a rule negating a rule of a lower stratum */
    EXPECT_EXEC(db, "(rule [(unreached ?x) [?x :edge _] (not (reach :a ?x))])", OK);
    EXPECT_EXEC(db, "(query [:find ?x :where (unreached ?x)])",
                ROWS("[\"?x\"]", "[[\"" UUID_A "\"]]"));
    minigraf_close(db);
}

TEST(derived_values_keep_the_representation_they_were_bound_with) {
    /* language.md §9.5, D12: the first argument is an entity (UUID text), the second
     * keeps the keyword it was bound to. */
    MiniGrafDb *db = b6_db();
    EXPECT_EXEC(db, "(query [:find ?x :where (reach ?x :d)])",
                ROWS("[\"?x\"]", "[[\"" UUID_A "\"],[\"" UUID_B "\"],[\"" UUID_C "\"]]"));
    EXPECT_EXEC(db, "(query [:find ?y :where (reach :a ?y) [?y :blocked true]])",
                ROWS("[\"?y\"]", "[[\":d\"]]"));
    minigraf_close(db);
}

TEST(rules_read_the_records_visible_as_of) {
    MiniGrafDb *db = b6_db();
    EXPECT_EXEC(db, "(query [:find ?y :as-of 0 :where (reach :a ?y)])", ROWS("[\"?y\"]", "[]"));
    EXPECT_TRANSACT(db, "(transact [[:d :edge :e]])");
    EXPECT_EXEC(db, "(query [:find ?y :as-of 1 :where (reach :a ?y)])",
                ROWS("[\"?y\"]", "[[\":b\"],[\":c\"],[\":d\"]]"));
    EXPECT_EXEC(db, "(query [:find ?y :where (reach :a ?y)])",
                ROWS("[\"?y\"]", "[[\":b\"],[\":c\"],[\":d\"],[\":e\"]]"));
    EXPECT_RETRACT(db, "(retract [[:b :edge :c]])");
    EXPECT_EXEC(db, "(query [:find ?y :where (reach :a ?y)])", ROWS("[\"?y\"]", "[[\":b\"]]"));
    EXPECT_EXEC(db, "(query [:find ?y :as-of 2 :where (reach :a ?y)])",
                ROWS("[\"?y\"]", "[[\":b\"],[\":c\"],[\":d\"],[\":e\"]]"));
    minigraf_close(db);
}

TEST(rules_read_the_records_valid_at) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact {:valid-from \"2019-01-01\"} [[:a :edge :b]])");
    EXPECT_TRANSACT(
        db, "(transact {:valid-from \"2020-01-01\" :valid-to \"2021-01-01\"} [[:b :edge :c]])");
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) [?x :edge ?y]])", OK);
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) [?x :edge ?z] (reach ?z ?y)])", OK);
    EXPECT_EXEC(db, "(query [:find ?y :valid-at \"2020-06-01\" :where (reach :a ?y)])",
                ROWS("[\"?y\"]", "[[\":b\"],[\":c\"]]"));
    EXPECT_EXEC(db, "(query [:find ?y :where (reach :a ?y)])", ROWS("[\"?y\"]", "[[\":b\"]]"));
    EXPECT_EXEC(db, "(query [:find ?y :valid-at \"2018-06-01\" :where (reach :a ?y)])",
                ROWS("[\"?y\"]", "[]"));
    EXPECT_EXEC(db, "(query [:find ?y :any-valid-time :where (reach :a ?y)])",
                ROWS("[\"?y\"]", "[[\":b\"],[\":c\"]]"));
    minigraf_close(db);
}

TEST(cycles_terminate) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :edge :b] [:b :edge :c] [:c :edge :a] [:a :name \"a\"] [:b "
                        ":name \"b\"] [:c :name \"c\"]])");
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) [?x :edge ?y]])", OK);
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) (reach ?x ?z) (reach ?z ?y)])", OK);
    EXPECT_EXEC(db, "(query [:find ?y :where (reach :a ?y)])",
                ROWS("[\"?y\"]", "[[\":a\"],[\":b\"],[\":c\"]]"));
    EXPECT_EXEC(db, "(query [:find (count ?y) :where (reach ?x ?y)])",
                ROWS("[\"(count ?y)\"]", "[[9]]"));
    /* a self loop */
    EXPECT_TRANSACT(db, "(transact [[:d :edge :d]])");
    EXPECT_EXEC(db, "(query [:find ?y :where (reach :d ?y)])", ROWS("[\"?y\"]", "[[\":d\"]]"));
    minigraf_close(db);
}

TEST(same_generation) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db,
                    "(transact [[:b :parent :a] [:c :parent :a] [:d :parent :b] [:e :parent :c]])");
    EXPECT_EXEC(db, "(rule [(sg ?x ?y) [?x :parent ?p] [?y :parent ?p]])", OK);
    EXPECT_EXEC(db, "(rule [(sg ?x ?y) [?x :parent ?px] [?y :parent ?py] (sg ?px ?py)])", OK);
    EXPECT_EXEC(db, "(query [:find ?y :where (sg :d ?y)])",
                ROWS("[\"?y\"]", "[[\"" UUID_D "\"],[\"" UUID_E "\"]]"));
    EXPECT_EXEC(db, "(query [:find ?y :where (sg :b ?y)])",
                ROWS("[\"?y\"]", "[[\"" UUID_B "\"],[\"" UUID_C "\"]]"));
    EXPECT_EXEC(db, "(query [:find (count ?x) :where (sg ?x ?y)])",
                ROWS("[\"(count ?x)\"]", "[[8]]"));
    minigraf_close(db);
}

TEST(mutual_recursion) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :start true] [:a :next :b] [:b :next :c] [:c :next :d]"
                        " [:a :name \"a\"] [:b :name \"b\"] [:c :name \"c\"] [:d :name \"d\"]])");
    EXPECT_EXEC(db, "(rule [(even ?x) [?x :start true]])", OK);
    EXPECT_EXEC(db, "(rule [(odd ?y) (even ?x) [?x :next ?y]])", OK);
    EXPECT_EXEC(db, "(rule [(even ?y) (odd ?x) [?x :next ?y]])", OK);
    EXPECT_EXEC(db, "(query [:find ?n :where (even ?x) [?x :name ?n]])",
                ROWS("[\"?n\"]", "[[\"a\"],[\"c\"]]"));
    EXPECT_EXEC(db, "(query [:find ?n :where (odd ?x) [?x :name ?n]])",
                ROWS("[\"?n\"]", "[[\"b\"],[\"d\"]]"));
    /* a one-argument head derives [x :p true] */
    EXPECT_EXEC(db, "(query [:find ?n ?v :where (odd ?x ?v) [?x :name ?n]])",
                ROWS("[\"?n\",\"?v\"]", "[[\"b\",true],[\"d\",true]]"));
    EXPECT_EXEC(db, "(rule [(neither ?x) [?x :name _] (not (even ?x)) (not (odd ?x))])", OK);
    EXPECT_EXEC(db, "(query [:find ?x :where (neither ?x)])", ROWS("[\"?x\"]", "[]"));
    minigraf_close(db);
}

TEST(constants_in_heads_and_bodies) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :k 1] [:b :k 2] [:c :parent :a] [:d :parent :b] [:c :name "
                        "\"c\"] [:d :name \"d\"]])");
    EXPECT_EXEC(db, "(rule [(flag :the-flag) [?x :k 1]])", OK);
    EXPECT_EXEC(db, "(rule [(const ?x :yes) [?x :k 1]])", OK);
    EXPECT_EXEC(db, "(rule [(kid-of-a ?x) [?x :parent :a]])", OK);
    EXPECT_EXEC(db, "(query [:find ?f :where (flag ?f)])",
                ROWS("[\"?f\"]", "[[\"04edd818-5052-5577-bf83-040c7ee73bb7\"]]"));
    EXPECT_EXEC(db, "(query [:find ?v :where (const ?x ?v)])", ROWS("[\"?v\"]", "[[\":yes\"]]"));
    EXPECT_EXEC(db, "(query [:find ?x :where (const ?x :yes)])",
                ROWS("[\"?x\"]", "[[\"" UUID_A "\"]]"));
    EXPECT_EXEC(db, "(query [:find ?x :where (const ?x :no)])", ROWS("[\"?x\"]", "[]"));
    EXPECT_EXEC(db, "(query [:find ?n :where (kid-of-a ?x) [?x :name ?n]])",
                ROWS("[\"?n\"]", "[[\"c\"]]"));
    minigraf_close(db);
}

TEST(rule_bodies_with_expressions_not_and_or) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :age 30] [:b :age 12] [:c :age 18] [:a :friend :b]"
                        " [:a :name \"Ann\"] [:b :name \"Bob\"] [:c :name \"Cy\"]"
                        " [:a :color :red] [:b :color :blue] [:c :color :orange]])");
    EXPECT_EXEC(db, "(rule [(adult ?p) [?p :age ?a] [(>= ?a 18)]])", OK);
    EXPECT_EXEC(db, "(rule [(warm ?c) [?c :name _] (or [?c :color :red] [?c :color :orange])])",
                OK);
    EXPECT_EXEC(db, "(rule [(lone ?p) [?p :name _] (not-join [?p] [?p :friend ?f])])", OK);
    EXPECT_EXEC(db, "(rule [(older ?p ?q) [?p :age ?x] [?q :age ?y] [(> ?x ?y)]])", OK);
    EXPECT_EXEC(db, "(rule [(shout ?p ?s) [?p :age ?a] [(* ?a 2) ?s]])", OK);
    EXPECT_EXEC(db, "(query [:find ?n :where (adult ?p) [?p :name ?n]])",
                ROWS("[\"?n\"]", "[[\"Ann\"],[\"Cy\"]]"));
    EXPECT_EXEC(db, "(query [:find ?n :where (warm ?p) [?p :name ?n]])",
                ROWS("[\"?n\"]", "[[\"Ann\"],[\"Cy\"]]"));
    EXPECT_EXEC(db, "(query [:find ?n :where (lone ?p) [?p :name ?n]])",
                ROWS("[\"?n\"]", "[[\"Bob\"],[\"Cy\"]]"));
    EXPECT_EXEC(db, "(query [:find ?n :where (older :c ?q) [?q :name ?n]])",
                ROWS("[\"?n\"]", "[[\"Bob\"]]"));
    EXPECT_EXEC(db, "(query [:find ?s :where (shout :b ?s)])", ROWS("[\"?s\"]", "[[24]]"));
    /* rules inside the query's own not and or */
    EXPECT_EXEC(db, "(query [:find ?n :where [?p :name ?n] (not (adult ?p))])",
                ROWS("[\"?n\"]", "[[\"Bob\"]]"));
    EXPECT_EXEC(db, "(query [:find ?n :where [?p :name ?n] (or (lone ?p) (adult ?p))])",
                ROWS("[\"?n\"]", "[[\"Ann\"],[\"Bob\"],[\"Cy\"]]"));
    EXPECT_EXEC(db, "(query [:find ?n :where [?p :name ?n] (adult ?p) [(starts-with? ?n \"A\")]])",
                ROWS("[\"?n\"]", "[[\"Ann\"]]"));
    minigraf_close(db);
}

TEST(recursion_through_or_reaches_the_full_fixpoint) {
    /* language.md D9: a mixed rule is evaluated to the fixpoint of its stratum. */
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :edge :b] [:b :edge :c] [:c :edge :d]])");
    EXPECT_EXEC(
        db,
        "(rule [(r ?x ?y) (or (and [?x :edge ?y] [?x :edge ?z]) (and [?x :edge ?z] (r ?z ?y)))])",
        OK);
    EXPECT_EXEC(db, "(query [:find ?y :where (r :a ?y)])",
                ROWS("[\"?y\"]", "[[\":b\"],[\":c\"],[\":d\"]]"));
    minigraf_close(db);
}

TEST(aggregates_windows_order_and_limit_over_rule_results) {
    MiniGrafDb *db = b6_db();
    EXPECT_TRANSACT(db, "(transact [[:a :name \"a\"] [:b :name \"b\"] [:c :name \"c\"]])");
    EXPECT_EXEC(db, "(query [:find ?n (count ?y) :where (reach ?x ?y) [?x :name ?n]])",
                ROWS("[\"?n\",\"(count ?y)\"]", "[[\"a\",3],[\"b\",2],[\"c\",1]]"));
    EXPECT_EXEC(db,
                "(query [:find ?n (count ?y :over (:order-by ?n)) :where (reach ?x ?y) [?x :name "
                "?n] [(= ?y :d)]])",
                ROWS("[\"?n\",\"(count ?y :over ...)\"]", "[[\"a\",1],[\"b\",2],[\"c\",3]]"));
    EXPECT_EXEC(db, "(query [:find ?y :where (reach :a ?y) :order-by [?y :desc] :limit 2])",
                "{\"variables\":[\"?y\"],\"results\":[[\":d\"],[\":c\"]]}");
    EXPECT_EXEC(db, "(query [:find ?y :where (reach :a ?y) :order-by [?y] :offset 1 :limit 1])",
                "{\"variables\":[\"?y\"],\"results\":[[\":c\"]]}");
    minigraf_close(db);
}

TEST(predicate_without_rules_matches_stored_facts) {
    /* language.md §9.5 last example, language.md §9.2 item 2 */
    MiniGrafDb *db = b6_db();
    EXPECT_EXEC(db, "(query [:find ?x ?y :where (edge ?x ?y)])",
                ROWS("[\"?x\",\"?y\"]",
                     "[[\"" UUID_A "\",\":b\"],[\"" UUID_B "\",\":c\"],[\"" UUID_C "\",\":d\"]]"));
    EXPECT_EXEC(db, "(query [:find ?x :where (blocked ?x)])",
                ROWS("[\"?x\"]", "[[\"" UUID_D "\"]]"));
    EXPECT_EXEC(db, "(query [:find ?x :where (nothing ?x)])", ROWS("[\"?x\"]", "[]"));
    minigraf_close(db);
}

TEST(rules_augment_the_stored_attribute_of_their_name) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :friend :b] [:a :knows :c]])");
    EXPECT_EXEC(db, "(rule [(friend ?x ?y) [?x :knows ?y]])", OK);
    EXPECT_EXEC(db, "(query [:find ?y :where (friend :a ?y)])",
                ROWS("[\"?y\"]", "[[\":b\"],[\":c\"]]"));
    /* without an invocation, no rule runs: only the stored fact */
    EXPECT_EXEC(db, "(query [:find ?y :where [:a :friend ?y]])", ROWS("[\"?y\"]", "[[\":b\"]]"));
    minigraf_close(db);
}

TEST(patterns_see_derived_facts_while_rules_are_used) {
    /* language.md §9.2 item 2, D13 */
    MiniGrafDb *db = b6_db();
    EXPECT_EXEC(db, "(query [:find ?y :where (reach :c ?z) [:a :reach ?y]])",
                ROWS("[\"?y\"]", "[[\":b\"],[\":c\"],[\":d\"]]"));
    EXPECT_EXEC(db, "(query [:find ?a :where (reach :a :b) [:a ?a ?v]])",
                ROWS("[\"?a\"]", "[[\":edge\"],[\":reach\"],[\":reach\"],[\":reach\"]]"));
    minigraf_close(db);
}

TEST(invocation_arity_is_int_028) {
    MiniGrafDb *db = b6_db();
    EXPECT_ERROR(db, "(query [:find ?x ?y ?z :where (reach ?x ?y ?z)])", "INT-028");
    CHECK_STR_EQ(minigraf_last_error(db),
                 "[INT-028] Rule invocation 'reach' must have 1 or 2 arguments, got 3");
    EXPECT_ERROR(db, "(query [:find ?x :where [?x :edge _] (not (reach ?x ?y ?z))])", "INT-028");
    EXPECT_EXEC(db, "(rule [(bad ?x) (reach ?x ?y ?z)])", OK);
    EXPECT_ERROR(db, "(query [:find ?x :where (bad ?x)])", "INT-028");
    minigraf_close(db);
}

TEST(limits_are_int_020) {
    MiniGrafDb *db = b6_db();
    /* round 0 derives the three edges */
    EXPECT_ERROR(db, "(query [:find ?x ?y :where (reach ?x ?y) :max-derived-facts 2])", "INT-020");
    CHECK_STR_EQ(minigraf_last_error(db), "[INT-020] Max derived facts per iteration (2) exceeded. "
                                          "Rule may be generating too many facts.");
    EXPECT_EXEC(db, "(query [:find (count ?y) :where (reach ?x ?y) :max-derived-facts 3])",
                ROWS("[\"(count ?y)\"]", "[[6]]"));
    EXPECT_ERROR(db, "(query [:find ?x ?y :where (reach ?x ?y) :max-results 5])", "INT-020");
    EXPECT_EXEC(db, "(query [:find (count ?y) :where (reach ?x ?y) :max-results 6])",
                ROWS("[\"(count ?y)\"]", "[[6]]"));
    /* queries without invocations are never limited (language.md §8.14) */
    EXPECT_EXEC(db, "(query [:find ?y :where [:a :edge ?y] :max-results 1 :max-derived-facts 1])",
                ROWS("[\"?y\"]", "[[\":b\"]]"));
    minigraf_close(db);
}

TEST(limits_come_from_the_database_options) {
    char *error = NULL;
    MiniGrafDb *db = minigraf_open_with_options(NULL, "{\"max_results\": 5}", &error);
    REQUIRE(db != NULL); /* NULL path: in memory, limits still apply */
    EXPECT_TRANSACT(db, "(transact [[:a :edge :b] [:b :edge :c] [:c :edge :d]])");
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) [?x :edge ?y]])", OK);
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) [?x :edge ?z] (reach ?z ?y)])", OK);
    EXPECT_ERROR(db, "(query [:find ?x ?y :where (reach ?x ?y)])", "INT-020");
    EXPECT_EXEC(db, "(query [:find (count ?y) :where (reach ?x ?y) :max-results 6])",
                ROWS("[\"(count ?y)\"]", "[[6]]"));
    minigraf_close(db);
}

TEST(head_entity_conversion) {
    /* language.md §9.2 item 1: a positive rule fails the query; a rule with not / or
     * skips the solution. */
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :name \"a\"] [:a :age 3]])");
    EXPECT_EXEC(db, "(rule [(by-name ?n ?x) [?x :name ?n]])", OK);
    EXPECT_EXEC(db, "(rule [(by-name2 ?n ?x) [?x :name ?n] (not [?x :age 1])])", OK);
    EXPECT_ERROR(db, "(query [:find ?x :where (by-name \"a\" ?x)])", "INT-001");
    CHECK(strstr(minigraf_last_error(db), "Failed to convert entity") != NULL);
    EXPECT_EXEC(db, "(query [:find ?x :where (by-name2 \"a\" ?x)])", ROWS("[\"?x\"]", "[]"));
    minigraf_close(db);
}

TEST(chain_of_1000_edges_closes) {
    /* language.md §9.6: 1000 adding rounds are allowed */
    MiniGrafDb *db = open_memory_db();
    size_t cap = 1000 * 40 + 64, len = 0;
    char *t = malloc(cap);
    len += (size_t)snprintf(t + len, cap - len, "(transact [");
    for (int i = 0; i < 1000; i++)
        len += (size_t)snprintf(t + len, cap - len, "[:n%d :edge :n%d]", i, i + 1);
    snprintf(t + len, cap - len, "])");
    EXPECT_TRANSACT(db, t);
    free(t);
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) [?x :edge ?y]])", OK);
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) [?x :edge ?z] (reach ?z ?y)])", OK);
    EXPECT_EXEC(db, "(query [:find (count ?y) :where (reach :n0 ?y)])",
                ROWS("[\"(count ?y)\"]", "[[1000]]"));
    EXPECT_EXEC(db, "(query [:find ?x :where (reach ?x :n1)])",
                ROWS("[\"?x\"]", "[[\""
                                 "5082ad10-025c-51d1-b88a-e0e938021046"
                                 "\"]]"));
    minigraf_close(db);
}

static MiniGrafDb *chain_db(int edges) {
    MiniGrafDb *db = open_memory_db();
    size_t cap = (size_t)edges * 40 + 64, len = 0;
    char *t = malloc(cap);
    len += (size_t)snprintf(t + len, cap - len, "(transact [");
    for (int i = 0; i < edges; i++)
        len += (size_t)snprintf(t + len, cap - len, "[:n%d :edge :n%d]", i, i + 1);
    snprintf(t + len, cap - len, "])");
    EXPECT_TRANSACT(db, t);
    free(t);
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) [?x :edge ?y]])", OK);
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) [?x :edge ?z] (reach ?z ?y)])", OK);
    return db;
}

TEST(chain_of_1001_edges_exceeds_the_cap_also_for_a_bound_call) {
    /* language.md §9.6: the closure needs 1001 adding rounds as written; the demand
     * for :n0 goes 1001 steps down the chain */
    MiniGrafDb *db = chain_db(1001);
    EXPECT_ERROR(db, "(query [:find (count ?y) :where (reach :n0 ?y)])", "INT-020");
    CHECK_STR_EQ(
        minigraf_last_error(db),
        "[INT-020] Max iterations (1000) exceeded. Possible infinite recursion or cycle in rules.");
    minigraf_close(db);
}

TEST(bodies_share_what_they_read_of_a_stored_attribute) {
    /* Rule bodies read :parent once per evaluation (by entity, by value
     * and in full, with a wildcard); each query reads the records it
     * sees. */
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :parent :b] [:b :parent :c]])");
    EXPECT_TRANSACT(db, "(transact [[:c :parent :d]])");
    EXPECT_RETRACT(db, "(retract [[:a :parent :b]])");
    EXPECT_EXEC(db, "(rule [(up ?x ?y) [?x :parent ?y]])", OK);
    EXPECT_EXEC(db, "(rule [(up ?x ?y) [?x :parent ?z] (up ?z ?y)])", OK);
    EXPECT_EXEC(db, "(rule [(child ?x) [?x :parent _]])", OK);
    EXPECT_EXEC(db, "(rule [(grand ?x ?y) [?x :parent ?z] [?z :parent ?y]])", OK);
    const char *q = "(query [:find ?y :where (up ?x ?y) (child ?x) (grand ?x ?g)])";
    EXPECT_EXEC(db, q, ROWS("[\"?y\"]", "[[\":c\"],[\":d\"]]"));
    EXPECT_EXEC(db, "(query [:find ?y :as-of 1 :where (up ?x ?y) (child ?x) (grand ?x ?g)])",
                ROWS("[\"?y\"]", "[[\":b\"],[\":c\"]]"));
    EXPECT_EXEC(db, "(query [:find (count ?y) :as-of 2 :where (up ?x ?y) (child ?x)])",
                ROWS("[\"(count ?y)\"]", "[[6]]"));
    minigraf_close(db);
}

TEST(kept_entity_records_check_the_bound_value) {
    /* An entity's records under a stored attribute are kept after their
     * first seek; with the value bound too, a few are walked and many are
     * sought. Either way only the bound value joins. */
    MiniGrafDb *db = open_memory_db();
    char t[2048];
    size_t len = (size_t)snprintf(t, sizeof t, "(transact [");
    for (int i = 0; i < 20; i++)
        len += (size_t)snprintf(t + len, sizeof t - len, "[:a :tag :t%d]", i);
    snprintf(
        t + len, sizeof t - len,
        "[:b :tag :t7] [:b :tag :t8] [:w1 :from :a] [:w1 :wants :t5] [:w2 :from :a]"
        " [:w2 :wants :t30] [:w3 :from :b] [:w3 :wants :t7] [:w4 :from :b] [:w4 :wants :t5]])");
    EXPECT_TRANSACT(db, t);
    EXPECT_EXEC(db, "(rule [(match ?w ?t) [?w :from ?o] [?w :wants ?t] [?o :tag ?t]])", OK);
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) (match ?x ?y)])", OK);
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) (match ?x ?z) (reach ?z ?y)])", OK);
    EXPECT_EXEC(db, "(query [:find ?t :where (reach ?w ?t)])",
                ROWS("[\"?t\"]", "[[\":t5\"],[\":t7\"]]"));
    minigraf_close(db);
}

TEST(kept_records_yield_to_the_memory_limit) {
    /* Keeping :link's 3,000 records for the evaluation would take more
     * than a quarter of the limit: the rounds read them as before, and the
     * query fits the same limit with or without the keeping. */
    MiniGrafDb *db = minigraf_open_with_options(NULL, "{\"query_memory_limit\": 1500000}", NULL);
    REQUIRE(db != NULL);
    size_t cap = 3000 * 40 + 200, len = 0;
    char *t = malloc(cap);
    len += (size_t)snprintf(t + len, cap - len,
                            "(transact [[:a :link :b] [:b :link :c] [:c :link :d]");
    for (int i = 0; i < 3000; i++)
        len += (size_t)snprintf(t + len, cap - len, "[:u%d :link :v%d]", i, i);
    snprintf(t + len, cap - len, "])");
    EXPECT_TRANSACT(db, t);
    free(t);
    EXPECT_EXEC(db, "(rule [(r ?x ?y) [?x :link ?y]])", OK);
    EXPECT_EXEC(db, "(rule [(r ?x ?y) [?x :link ?z] (r ?z ?y)])", OK);
    EXPECT_EXEC(db, "(query [:find (count ?y) :where (r ?x ?y)])",
                ROWS("[\"(count ?y)\"]", "[[3006]]"));
    EXPECT_EXEC(db, "(query [:find ?y :where (r :a ?y)])",
                ROWS("[\"?y\"]", "[[\":b\"],[\":c\"],[\":d\"]]"));
    minigraf_close(db);
}

TEST(kept_derived_tables_follow_their_relation) {
    /* A body joins the whole of a derived relation (not the round's
     * delta) through a table kept across rounds; the relation grows every
     * round, so the table is read again whenever its window changed. */
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :next :b] [:b :next :c] [:c :next :d] [:d :next :e]"
                        " [:e :next :f] [:c :next :g]])");
    EXPECT_EXEC(db, "(rule [(tc ?x ?y) [?x :next ?y]])", OK);
    EXPECT_EXEC(db, "(rule [(tc ?x ?y) (tc ?x ?z) (tc ?z ?y)])", OK);
    EXPECT_EXEC(db, "(rule [(up ?x ?y) [?x :next ?y]])", OK);
    EXPECT_EXEC(db, "(rule [(up ?x ?y) [?x :next ?z] (up ?z ?y)])", OK);
    EXPECT_EXEC(db, "(query [:find (count ?y) :where (tc ?x ?y)])",
                ROWS("[\"(count ?y)\"]", "[[18]]"));
    EXPECT_EXEC(db, "(query [:find ?y :where (tc :b ?y)])",
                ROWS("[\"?y\"]", "[[\":c\"],[\":d\"],[\":e\"],[\":f\"],[\":g\"]]"));
    EXPECT_EXEC(db, "(query [:find ?y :where (up :a ?y)])",
                ROWS("[\"?y\"]", "[[\":b\"],[\":c\"],[\":d\"],[\":e\"],[\":f\"],[\":g\"]]"));
    minigraf_close(db);
}

/* A non-linear closure over a chain of `n` nodes, in a database whose
 * query memory limit is `limit` bytes (0: the default). */
static MiniGrafDb *nonlinear_chain(int n, long limit) {
    char opts[64];
    snprintf(opts, sizeof opts, "{\"query_memory_limit\": %ld}", limit);
    MiniGrafDb *db = limit ? minigraf_open_with_options(NULL, opts, NULL) : open_memory_db();
    if (!db)
        return NULL;
    size_t cap = (size_t)n * 32 + 64, len = 0;
    char *t = malloc(cap);
    len += (size_t)snprintf(t + len, cap - len, "(transact [");
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(t + len, cap - len, "[:n%d :next :n%d]", i, i + 1);
    snprintf(t + len, cap - len, "])");
    EXPECT_TRANSACT(db, t);
    free(t);
    EXPECT_EXEC(db, "(rule [(tc ?x ?y) [?x :next ?y]])", OK);
    EXPECT_EXEC(db, "(rule [(tc ?x ?y) (tc ?x ?z) (tc ?z ?y)])", OK);
    EXPECT_EXEC(db, "(rule [(far ?x ?y) (tc ?x ?y) (not [?x :next ?y])])", OK);
    return db;
}

TEST(kept_operators_read_each_round_afresh) {
    /* A rule body's operators are kept from round to round and opened
     * again. Where the derived relation a hash join reads is too large to
     * be kept for the evaluation (a quarter of the memory limit), the
     * operator's own table must be read again each round, as the
     * relation grows: every round's answer must be complete. The same
     * evaluation without the limit gives the same answers. */
    long limits[2] = {0, 900000};
    for (int k = 0; k < 2; k++) {
        MiniGrafDb *db = nonlinear_chain(60, limits[k]);
        REQUIRE(db != NULL);
        EXPECT_EXEC(db, "(query [:find (count ?y) :where (tc ?x ?y)])",
                    ROWS("[\"(count ?y)\"]", "[[1830]]"));
        EXPECT_EXEC(db, "(query [:find (count ?y) :where (tc :n0 ?y)])",
                    ROWS("[\"(count ?y)\"]", "[[60]]"));
        EXPECT_EXEC(db, "(query [:find (count ?y) :where (far ?x ?y)])",
                    ROWS("[\"(count ?y)\"]", "[[1770]]"));
        minigraf_close(db);
    }
    /* The delta read by a hash join (it shares no variable with the
     * selective pattern planned before it): its table holds one round's
     * delta and must be read again in the next round. */
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:cfg :on true] [:a :next :b] [:b :next :c] [:c :next :d]"
                        " [:d :next :e] [:e :next :f]])");
    EXPECT_EXEC(db, "(rule [(r ?x ?y) [?x :next ?y]])", OK);
    EXPECT_EXEC(db, "(rule [(r ?x ?y) [?c :on true] (r ?x ?z) [?z :next ?y]])", OK);
    EXPECT_EXEC(db, "(query [:find (count ?y) :where (r ?x ?y)])",
                ROWS("[\"(count ?y)\"]", "[[15]]"));
    EXPECT_EXEC(db, "(query [:find ?y :where (r :b ?y)])",
                ROWS("[\"?y\"]", "[[\":c\"],[\":d\"],[\":e\"],[\":f\"]]"));
    minigraf_close(db);
}

TEST(queries_run_again_see_every_change) {
    /* A query run again takes the rewrite and plans of the one before
     * (exec/rule_cache.h); each still answers for its own rules, records
     * and view. A file-backed database so that checkpoints happen. */
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    const char *q = "(query [:find ?y :where (reach :a ?y)])";
    EXPECT_TRANSACT(db, "(transact [[:a :edge :b] [:b :edge :c]])");
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) [?x :edge ?y]])", OK);
    for (int i = 0; i < 2; i++)
        EXPECT_EXEC(db, q, ROWS("[\"?y\"]", "[[\":b\"]]"));
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) [?x :edge ?z] (reach ?z ?y)])", OK);
    EXPECT_EXEC(db, q, ROWS("[\"?y\"]", "[[\":b\"],[\":c\"]]"));
    EXPECT_TRANSACT(db, "(transact [[:c :edge :d]])");
    for (int i = 0; i < 2; i++)
        EXPECT_EXEC(db, q, ROWS("[\"?y\"]", "[[\":b\"],[\":c\"],[\":d\"]]"));
    EXPECT_EXEC(db, "(query [:find ?y :as-of 1 :where (reach :a ?y)])",
                ROWS("[\"?y\"]", "[[\":b\"],[\":c\"]]"));
    EXPECT_EXEC(db, q, ROWS("[\"?y\"]", "[[\":b\"],[\":c\"],[\":d\"]]"));
    CHECK(minigraf_checkpoint(db) == 0);
    EXPECT_EXEC(db, q, ROWS("[\"?y\"]", "[[\":b\"],[\":c\"],[\":d\"]]"));
    EXPECT_RETRACT(db, "(retract [[:b :edge :c]])");
    CHECK(minigraf_checkpoint(db) == 0);
    for (int i = 0; i < 2; i++)
        EXPECT_EXEC(db, q, ROWS("[\"?y\"]", "[[\":b\"]]"));
    EXPECT_EXEC(db, "(query [:find ?y :where (reach :c ?y)])", ROWS("[\"?y\"]", "[[\":d\"]]"));
    minigraf_close(db);
    temp_db_remove(&t);
}

/* "YYYY-MM-DDTHH:MM:SS.mmmZ" of `ms` after now. */
static void instant_from_now(long ms, char *out, size_t size) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t at = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + ms;
    time_t sec = (time_t)(at / 1000);
    struct tm tm;
    gmtime_r(&sec, &tm);
    snprintf(out, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(at % 1000));
}

/* (reach :a ?y) run twice, a second apart, twice each time, over the
 * edges `tx_format` transacts with an instant a second from now (its %s):
 * the rows of the runs before and after that instant. */
static void reach_across_an_instant(const char *tx_format, const char *before, const char *after) {
    MiniGrafDb *db = open_memory_db();
    char at[64], tx[256];
    instant_from_now(1000, at, sizeof at);
    snprintf(tx, sizeof tx, tx_format, at);
    EXPECT_TRANSACT(db, tx);
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) [?x :edge ?y]])", OK);
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) [?x :edge ?z] (reach ?z ?y)])", OK);
    const char *q = "(query [:find ?y :where (reach :a ?y)])";
    for (int i = 0; i < 2; i++)
        EXPECT_EXEC(db, q, before);
    struct timespec pause = {1, 100000000};
    nanosleep(&pause, NULL);
    for (int i = 0; i < 2; i++)
        EXPECT_EXEC(db, q, after);
    minigraf_close(db);
}

TEST(a_query_run_again_reads_its_own_now) {
    /* The bodies' operators are kept from one query to the next
     * (exec/rule_cache.h) while nothing is committed; each run still
     * reads the records valid at its own "now": an edge whose :valid-to
     * passes between two runs of the same text is gone from the second. */
    reach_across_an_instant("(transact [[:a :edge :b] [:b :edge :c {:valid-to \"%s\"}]])",
                            ROWS("[\"?y\"]", "[[\":b\"],[\":c\"]]"),
                            ROWS("[\"?y\"]", "[[\":b\"]]"));
}

TEST(a_query_run_again_reads_an_edge_valid_from_its_now) {
    /* The records a body reads of one entity are kept from one query to
     * the next (exec/hj_table.h) with the span of valid times at which
     * they hold: an edge whose :valid-from comes between two runs of the
     * same text is in the second, an edge valid only in the past in
     * neither. */
    reach_across_an_instant(
        "(transact [[:a :edge :b] [:b :edge :c {:valid-from \"%s\"}]"
        " [:b :edge :d {:valid-from \"2001-01-01\" :valid-to \"2002-01-01\"}]])",
        ROWS("[\"?y\"]", "[[\":b\"]]"), ROWS("[\"?y\"]", "[[\":b\"],[\":c\"]]"));
}

TEST(kept_records_serve_only_the_view_they_were_read_in) {
    /* One text after another over the same records, each run twice (the
     * second reads what the first kept): each answers for its own
     * :as-of and :valid-at. */
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact {:valid-from \"2019-01-01\"} [[:a :edge :b]])");
    EXPECT_TRANSACT(db, "(transact {:valid-from \"2020-01-01\" :valid-to \"2021-01-01\"}"
                        " [[:b :edge :c]])");
    EXPECT_TRANSACT(db, "(transact {:valid-from \"2022-01-01\"} [[:b :edge :d]])");
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) [?x :edge ?y]])", OK);
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) [?x :edge ?z] (reach ?z ?y)])", OK);
    static const struct {
        const char *q, *want;
    } runs[] = {
        {"(query [:find ?y :where (reach :a ?y)])", ROWS("[\"?y\"]", "[[\":b\"],[\":d\"]]")},
        {"(query [:find ?y :valid-at \"2020-06-01\" :where (reach :a ?y)])",
         ROWS("[\"?y\"]", "[[\":b\"],[\":c\"]]")},
        {"(query [:find ?y :valid-at \"2021-06-01\" :where (reach :a ?y)])",
         ROWS("[\"?y\"]", "[[\":b\"]]")},
        {"(query [:find ?y :any-valid-time :where (reach :a ?y)])",
         ROWS("[\"?y\"]", "[[\":b\"],[\":c\"],[\":d\"]]")},
        {"(query [:find ?y :as-of 2 :valid-at \"2022-06-01\" :where (reach :a ?y)])",
         ROWS("[\"?y\"]", "[[\":b\"]]")},
        {"(query [:find ?y :where (reach :a ?y)])", ROWS("[\"?y\"]", "[[\":b\"],[\":d\"]]")},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
        for (int k = 0; k < 2; k++)
            EXPECT_EXEC(db, runs[i].q, runs[i].want);
    minigraf_close(db);
}

TEST(rule_bodies_with_expressions_run_again) {
    /* A body of patterns and expressions keeps its operators for the
     * next run of the query; the answers are a first run's. */
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :edge :b] [:b :edge :c] [:c :edge :d] [:a :cost 1]"
                        " [:b :cost 5] [:c :cost 50]])");
    EXPECT_EXEC(db, "(rule [(cheap ?x ?y) [?x :edge ?y] [?x :cost ?c] [(< ?c 10)]])", OK);
    EXPECT_EXEC(db, "(rule [(cheap ?x ?y) [?x :edge ?z] [?x :cost ?c] [(< ?c 10)] (cheap ?z ?y)])",
                OK);
    for (int i = 0; i < 3; i++) {
        EXPECT_EXEC(db, "(query [:find ?y :where (cheap :a ?y)])",
                    ROWS("[\"?y\"]", "[[\":b\"],[\":c\"]]"));
        EXPECT_EXEC(db, "(query [:find (count ?y) :where (cheap ?x ?y)])",
                    ROWS("[\"(count ?y)\"]", "[[3]]"));
    }
    /* a cursor freed before its rows are read, then the same text */
    MiniGrafCursor *cur = minigraf_query(db, "(query [:find ?y :where (cheap :a ?y)])");
    REQUIRE(cur != NULL);
    minigraf_cursor_free(cur);
    EXPECT_EXEC(db, "(query [:find ?y :where (cheap :a ?y)])",
                ROWS("[\"?y\"]", "[[\":b\"],[\":c\"]]"));
    minigraf_close(db);
}

/* ---- linear closures (rules/closure.h: evaluated on relation ids) ---------------- */

/* A diamond a -> b, c -> d, a cycle d -> e -> f -> d, a self loop at g,
 * an edge to a's UUID (a Ref, E2-equal to the keyword :a) and edges to
 * values that are no entity, and a stored fact of each predicate (read
 * by round 0's invocations only). `reach` is the linear closure; `reach3` the
 * same two rules and a third deriving nothing, which keeps it on the
 * general rounds: the two must answer alike. */
static MiniGrafDb *closure_db(void) {
    MiniGrafDb *db = open_memory_db();
    EXPECT_TRANSACT(db, "(transact [[:a :edge :b] [:a :edge :c] [:b :edge :d] [:c :edge :d] "
                        "[:d :edge :e] [:e :edge :f] [:f :edge :d] [:g :edge :g] "
                        "[:h :edge #uuid \"" UUID_A "\"] [:i :edge 5] [:i :edge \"s\"] "
                        "[:f :reach :a] [:f :reach3 :a]])");
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) [?x :edge ?y]])", OK);
    EXPECT_EXEC(db, "(rule [(reach ?x ?y) (reach ?z ?y) [?x :edge ?z]])", OK);
    EXPECT_EXEC(db, "(rule [(reach3 ?x ?y) [?x :edge ?y]])", OK);
    EXPECT_EXEC(db, "(rule [(reach3 ?x ?y) [?x :edge ?z] (reach3 ?z ?y)])", OK);
    EXPECT_EXEC(db, "(rule [(reach3 ?x ?y) [?x :no-edge ?y]])", OK);
    return db;
}

/* Runs the query `:find head :where where` with where's %s as reach3,
 * then as reach, and compares the rows. */
static void expect_closure_rows(MiniGrafDb *db, const char *head, const char *where) {
    char body[256], general[512], closure[512];
    snprintf(body, sizeof body, where, "reach3");
    snprintf(general, sizeof general, "(query [:find %s :where %s])", head, body);
    snprintf(body, sizeof body, where, "reach");
    snprintf(closure, sizeof closure, "(query [:find %s :where %s])", head, body);
    char *want = EXEC(db, general);
    if (want != NULL) {
        EXPECT_EXEC(db, closure, want);
        minigraf_string_free(want);
    }
}

TEST(linear_closures_answer_as_the_general_rounds) {
    MiniGrafDb *db = closure_db();
    /* d, e, f reach d, e, f, a each; b, c d, e, f, a; a 6; g 1; h 7 (a as
     * its UUID and as :a); i 2; and the stored [:f :reach :a] */
    EXPECT_EXEC(db, "(query [:find (count ?y) :where (reach ?x ?y)])",
                ROWS("[\"(count ?y)\"]", "[[37]]"));
    expect_closure_rows(db, "?x ?y", "(%s ?x ?y)");
    expect_closure_rows(db, "?y", "[?x :edge 5] (%s ?x ?y)");
    expect_closure_rows(db, "?x", "(%s ?x ?x)");
    EXPECT_EXEC(db, "(query [:find ?y :where (reach :g ?y)])", ROWS("[\"?y\"]", "[[\":g\"]]"));
    minigraf_close(db);
}

TEST(linear_closures_read_the_view_of_their_query) {
    MiniGrafDb *db = closure_db();
    EXPECT_TRANSACT(db, "(transact {:valid-from \"2020-01-01\" :valid-to \"2021-01-01\"} "
                        "[[:g :edge :a]])");
    EXPECT_RETRACT(db, "(retract [[:e :edge :f]])");
    expect_closure_rows(db, "?x ?y", "(%s ?x ?y)");
    const char *views[] = {":as-of 1", ":as-of 2", ":valid-at \"2020-06-01\"", ":any-valid-time"};
    for (size_t i = 0; i < sizeof views / sizeof *views; i++) {
        char head[64];
        snprintf(head, sizeof head, "?x ?y %s", views[i]);
        expect_closure_rows(db, head, "(%s ?x ?y)");
    }
    /* without e -> f the cycle is gone: d 1, f 2, b 2, c 2, a 4, g 1, h 5,
     * i 2, the stored fact */
    EXPECT_EXEC(db, "(query [:find (count ?y) :where (reach ?x ?y)])",
                ROWS("[\"(count ?y)\"]", "[[20]]"));
    EXPECT_EXEC(db, "(query [:find (count ?y) :as-of 1 :where (reach ?x ?y)])",
                ROWS("[\"(count ?y)\"]", "[[37]]"));
    minigraf_close(db);
}

TEST(linear_closures_keep_the_round_cap_and_limits) {
    MiniGrafDb *db = chain_db(1000);
    EXPECT_EXEC(db, "(query [:find (count ?y) :where (reach ?x ?y) :max-results 600000])",
                ROWS("[\"(count ?y)\"]", "[[500500]]"));
    EXPECT_ERROR(db, "(query [:find (count ?y) :where (reach ?x ?y) :max-results 500499])",
                 "INT-020");
    minigraf_close(db);
    db = chain_db(1001);
    EXPECT_ERROR(db, "(query [:find (count ?y) :where (reach ?x ?y) :max-results 600000])",
                 "INT-020");
    CHECK_STR_EQ(
        minigraf_last_error(db),
        "[INT-020] Max iterations (1000) exceeded. Possible infinite recursion or cycle in rules.");
    minigraf_close(db);
    db = b6_db();
    EXPECT_ERROR(db, "(query [:find ?x ?y :where (reach ?x ?y) :max-results 5])", "INT-020");
    minigraf_close(db);
}

CHECK_MAIN(TEST_ENTRY(transitive_closure_b6), TEST_ENTRY(negation_across_strata_b6_accessible),
           TEST_ENTRY(derived_values_keep_the_representation_they_were_bound_with),
           TEST_ENTRY(rules_read_the_records_visible_as_of),
           TEST_ENTRY(rules_read_the_records_valid_at), TEST_ENTRY(cycles_terminate),
           TEST_ENTRY(same_generation), TEST_ENTRY(mutual_recursion),
           TEST_ENTRY(constants_in_heads_and_bodies),
           TEST_ENTRY(rule_bodies_with_expressions_not_and_or),
           TEST_ENTRY(recursion_through_or_reaches_the_full_fixpoint),
           TEST_ENTRY(aggregates_windows_order_and_limit_over_rule_results),
           TEST_ENTRY(predicate_without_rules_matches_stored_facts),
           TEST_ENTRY(rules_augment_the_stored_attribute_of_their_name),
           TEST_ENTRY(patterns_see_derived_facts_while_rules_are_used),
           TEST_ENTRY(invocation_arity_is_int_028), TEST_ENTRY(limits_are_int_020),
           TEST_ENTRY(limits_come_from_the_database_options), TEST_ENTRY(head_entity_conversion),
           TEST_ENTRY(chain_of_1000_edges_closes),
           TEST_ENTRY(chain_of_1001_edges_exceeds_the_cap_also_for_a_bound_call),
           TEST_ENTRY(bodies_share_what_they_read_of_a_stored_attribute),
           TEST_ENTRY(kept_entity_records_check_the_bound_value),
           TEST_ENTRY(kept_records_yield_to_the_memory_limit),
           TEST_ENTRY(kept_derived_tables_follow_their_relation),
           TEST_ENTRY(kept_operators_read_each_round_afresh),
           TEST_ENTRY(queries_run_again_see_every_change),
           TEST_ENTRY(a_query_run_again_reads_its_own_now),
           TEST_ENTRY(a_query_run_again_reads_an_edge_valid_from_its_now),
           TEST_ENTRY(kept_records_serve_only_the_view_they_were_read_in),
           TEST_ENTRY(rule_bodies_with_expressions_run_again),
           TEST_ENTRY(linear_closures_answer_as_the_general_rounds),
           TEST_ENTRY(linear_closures_read_the_view_of_their_query),
           TEST_ENTRY(linear_closures_keep_the_round_cap_and_limits))
