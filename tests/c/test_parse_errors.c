/* One test per parse error code (language.md §17, docs/errors.md),
 * through minigraf_execute: the code, the start of the message (the spec's
 * text) and, where the error has a place in the input, its position. A
 * failed parse never changes the database. */
#include "support.h"

/* Runs `text` on a fresh database; the error must have the code its message
 * names, the message must start with `want`, and contain `at` if not NULL. */
static void expect_parse_error_at(int line, const char *text, const char *want, const char *at) {
    MiniGrafDb *db = open_memory_db();
    char *got = minigraf_execute(db, text);
    const char *msg = minigraf_last_error(db);
    const char *name = minigraf_error_code_name(minigraf_last_error_code(db));
    char prefix[32] = "";
    if (name)
        snprintf(prefix, sizeof prefix, "[%s] ", name);
    if (got != NULL || msg == NULL || strncmp(msg, want, strlen(want)) != 0)
        check_fail_str(__FILE__, line, text, got ? got : msg, want);
    else if (strncmp(msg, prefix, strlen(prefix)) != 0)
        check_fail_str(__FILE__, line, "code matches the message", prefix, msg);
    else if (at && strstr(msg, at) == NULL)
        check_fail_str(__FILE__, line, "message names the position", msg, at);
    minigraf_string_free(got);
    if (tx_count(db) != 0)
        check_fail(__FILE__, line, "a failed command wrote nothing");
    minigraf_close(db);
}

#define PARSE_ERROR(name, text, want)                      \
    TEST(name) {                                           \
        expect_parse_error_at(__LINE__, text, want, NULL); \
    }
#define PARSE_ERROR_AT(name, text, want, at)             \
    TEST(name) {                                         \
        expect_parse_error_at(__LINE__, text, want, at); \
    }

/* A text of `n` repetitions of `c` between `head` and `tail` (freed by caller). */
static char *long_text(const char *head, char c, size_t n, const char *tail) {
    size_t h = strlen(head), t = strlen(tail);
    char *s = malloc(h + n + t + 1);
    memcpy(s, head, h);
    memset(s + h, c, n);
    memcpy(s + h + n, tail, t + 1);
    return s;
}

/* ---- reader (language.md §2) ------------------------------------------------------ */
PARSE_ERROR_AT(prs_001_empty_input, "  ; nothing", "[PRS-001] Unexpected end of input",
               "(at line 1, column 12)")
PARSE_ERROR_AT(prs_002_unexpected_character, "(transact [[:alice :person@name \"A\"]])",
               "[PRS-002] Unexpected character: @", "(at line 1, column 27)")
PARSE_ERROR_AT(prs_002_bang_without_equals, "(query [:find ?x :where [?x :a ?y] [(! ?y)]])",
               "[PRS-002] Unexpected character: !", "(at line 1, column")
PARSE_ERROR_AT(prs_003_closer_where_value_expected, "(transact [[:a :b 1}])",
               "[PRS-003] Unexpected token: }", "(at line 1, column 20)")
PARSE_ERROR_AT(prs_004_unclosed_vector, "(transact [[:alice :person/name \"Alice\"]",
               "[PRS-004] Unclosed vector", "(opened at line 1, column 11)")
PARSE_ERROR_AT(prs_005_unclosed_list, "(transact [[:alice :person/name \"Alice\"]]",
               "[PRS-005] Unclosed list", "(opened at line 1, column 1)")
PARSE_ERROR_AT(prs_006_unclosed_map, "(transact {:valid-from \"2020-01-01\"",
               "[PRS-006] Unterminated map: missing '}'", "(opened at line 1, column 11)")

TEST(prs_007_string_too_long) {
    char *text = long_text("(transact [[:a :s \"", 'x', 1048577, "\"]])");
    expect_parse_error_at(__LINE__, text,
                          "[PRS-007] String exceeds maximum length of 1048576 bytes",
                          "(at line 1, column 19)");
    free(text);
}

TEST(prs_008_keyword_too_long) {
    char *text = long_text("(transact [[:a :", 'k', 1024, " 1]])");
    expect_parse_error_at(__LINE__, text, "[PRS-008] Keyword exceeds maximum length of 1024 bytes",
                          "(at line 1, column 16)");
    free(text);
}

TEST(prs_009_tag_too_long) {
    char *text = long_text("(transact [[#", 't', 1025, " \"x\" :a 1]])");
    expect_parse_error_at(__LINE__, text, "[PRS-009] Tag name exceeds maximum length of 1024 bytes",
                          "(at line 1, column 13)");
    free(text);
}

TEST(prs_074_slot_name_too_long) {
    char *text = long_text("(query [:find ?x :where [?x :a $", 's', 1025, "]])");
    expect_parse_error_at(__LINE__, text,
                          "[PRS-074] Bind slot name exceeds maximum length of 1024 bytes",
                          "(at line 1, column 32)");
    free(text);
}

PARSE_ERROR_AT(prs_071_uuid_tag_without_string, "(transact [[#uuid 42 :a 1]])",
               "[PRS-071] Expected UUID string after #uuid tag", "(at line 1, column 19)")
PARSE_ERROR_AT(prs_072_invalid_uuid, "(transact [[#uuid \"nope\" :a 1]])",
               "[PRS-072] Invalid UUID: \"nope\"", "(at line 1, column 19)")
PARSE_ERROR_AT(prs_073_unknown_tag, "(transact [[#inst \"2020-01-01\" :a 1]])",
               "[PRS-073] Unknown tagged literal: #inst", "(at line 1, column 13)")
PARSE_ERROR_AT(prs_073_discard_is_not_supported, "(transact [#_ [:a :b 1]])",
               "[PRS-073] Unknown tagged literal: # ", "(at line 1, column 12)")

/* ---- commands (language.md §3-§5) ------------------------------------------------------ */
PARSE_ERROR_AT(prs_010_command_not_a_symbol, "(42 [])", "[PRS-010] Expected command symbol",
               "(at line 1, column 2)")
PARSE_ERROR(prs_011_unknown_command, "(insert [[:a :b 1]])", "[PRS-011] Unknown command: insert")
PARSE_ERROR(prs_011_keyword_command, "(:query [:find ?x :where [?x :a 1]])",
            "[PRS-011] Unknown command: :query")
PARSE_ERROR_AT(prs_012_not_a_list, "[:find ?x]",
               "[PRS-012] Expected a list starting with a command symbol", "(at line 1, column 1)")
PARSE_ERROR(prs_013_query_without_argument, "(query)", "[PRS-013] Query requires a map argument")
PARSE_ERROR_AT(prs_019_valid_from_not_a_string, "(transact {:valid-from 2020} [[:a :b 1]])",
               "[PRS-019] :valid-from must be a timestamp string, got Integer(2020)",
               "(at line 1, column 24)")
PARSE_ERROR_AT(prs_020_valid_to_not_a_string, "(transact [[:a :b 1 {:valid-to :never}]])",
               "[PRS-020] :valid-to must be a timestamp string, got Keyword(:never)",
               "(at line 1, column 32)")
PARSE_ERROR(prs_041_transact_without_facts, "(transact)",
            "[PRS-041] Transact requires a vector of facts")
PARSE_ERROR_AT(prs_042_transact_facts_not_a_vector, "(transact (:a :b 1))",
               "[PRS-042] Transact argument must be a vector of facts", "(at line 1, column 11)")
PARSE_ERROR(prs_043_retract_without_facts, "(retract)",
            "[PRS-043] Retract requires a vector of facts")
PARSE_ERROR_AT(prs_044_retract_argument_not_a_vector, "(retract {} [])",
               "[PRS-044] Retract argument must be a vector", "(at line 1, column 10)")
PARSE_ERROR_AT(prs_045_fact_not_a_vector, "(transact [(:a :b 1)])",
               "[PRS-045] Each fact must be a vector [e a v] or [e a v {opts}]",
               "(at line 1, column 12)")
PARSE_ERROR_AT(prs_046_fact_too_short, "(transact [[:alice :person/name]])",
               "[PRS-046] Fact must have at least 3 elements (E A V), got 2",
               "(at line 1, column 12)")
PARSE_ERROR_AT(prs_047_fourth_element_not_a_map, "(transact [[:a :b 1 2]])",
               "[PRS-047] Optional 4th element of a fact must be a map {:valid-from ... :valid-to "
               "...}, got Integer(2)",
               "(at line 1, column 21)")
PARSE_ERROR_AT(prs_048_options_without_facts, "(transact {:valid-from \"2023-01-01\"})",
               "[PRS-048] Transact with options requires a facts vector after the map",
               "(at line 1, column 11)")

/* ---- query sections (language.md §8.1, §8.15) --------------------------------------------- */
PARSE_ERROR_AT(prs_014_as_of_without_value, "(query [:find ?x :where [?x :a 1] :as-of])",
               "[PRS-014] :as-of requires a value", "(at line 1, column 35)")
PARSE_ERROR_AT(prs_015_as_of_negative, "(query [:find ?x :as-of -1 :where [?x :a 1]])",
               "[PRS-015] :as-of counter must be non-negative, got -1", "(at line 1, column 25)")
PARSE_ERROR_AT(
    prs_016_as_of_wrong_type, "(query [:find ?x :as-of 1.5 :where [?x :a 1]])",
    "[PRS-016] :as-of must be a transaction counter or a timestamp string, got Float(1.5)",
    "(at line 1, column 25)")
PARSE_ERROR_AT(prs_017_valid_at_without_value, "(query [:find ?x :where [?x :a 1] :valid-at])",
               "[PRS-017] :valid-at requires a value", "(at line 1, column 35)")
PARSE_ERROR_AT(prs_018_valid_at_wrong_type, "(query [:find ?x :valid-at 5 :where [?x :a 1]])",
               "[PRS-018] :valid-at must be a timestamp string or :any-valid-time, got Integer(5)",
               "(at line 1, column 28)")
PARSE_ERROR_AT(prs_061_element_after_in, "(query [:find ?x :in ?y :where [?x :a 1]])",
               "[PRS-061] Unexpected element in query: Symbol(?y)", "(at line 1, column 22)")
PARSE_ERROR(prs_075_timestamp_with_offset,
            "(query [:find ?x :valid-at \"2023-03-01T10:00:00+02:00\" :where [?x :a 1]])",
            "[PRS-075] timezone offsets are not supported; use UTC (Z) timestamps only.")
PARSE_ERROR(prs_075_bad_date, "(transact {:valid-from \"2023-02-30\"} [[:a :b 1]])",
            "[PRS-075] invalid date '2023-02-30'")
PARSE_ERROR_AT(prs_076_trailing_input, "(transact [[:e :a 1]]) (transact [[:e :a 2]])",
               "[PRS-076] Unexpected trailing input after the command", "(at line 1, column 24)")
PARSE_ERROR_AT(prs_076_trailing_argument, "(query [:find ?x :where [?x :a 1]] :max-results 5)",
               "[PRS-076] Unexpected trailing argument(s) in (query ...): Keyword(:max-results)",
               "(at line 1, column 36)")
PARSE_ERROR(prs_076_integer_out_of_range, "(transact [[:a :n 99999999999999999999]])",
            "[PRS-076] Integer literal out of range: 99999999999999999999")
PARSE_ERROR_AT(prs_076_bare_slot, "(query [:find ?n :where [?e :a $]])",
               "[PRS-076] Bind slot '$' must be followed by an identifier (e.g. $entity)",
               "(at line 1, column 32)")
PARSE_ERROR_AT(prs_077_pattern_arity, "(query [:find ?e :where [?e :a]])",
               "[PRS-077] Pattern must have exactly 3 elements (E A V), got 2",
               "(at line 1, column 25)")
PARSE_ERROR_AT(prs_077_query_map_form, "(query {:find [?x] :where [[?x :a 1]]})",
               "[PRS-077] Query argument must be a vector", "(at line 1, column 8)")
PARSE_ERROR_AT(prs_077_duplicate_max_results,
               "(query [:find ?x :where [?x :a 1] :max-results 2 :max-results 3])",
               "[PRS-077] duplicate :max-results", "(at line 1, column 50)")
PARSE_ERROR_AT(prs_077_max_results_zero, "(query [:find ?x :where [?x :a :b] :max-results 0])",
               "[PRS-077] :max-results must be >= 1", "(at line 1, column 49)")
PARSE_ERROR_AT(prs_077_pseudo_attribute_in_value, "(query [:find ?e :where [?e :a :db/valid-to]])",
               "[PRS-077] pseudo-attribute :db/valid-to is not valid in value position",
               "(at line 1, column 32)")
PARSE_ERROR_AT(prs_079_negative_limit, "(query [:find ?x :where [?x :a 1] :limit -5])",
               "[PRS-079] :limit must be a non-negative integer, got Integer(-5)",
               "(at line 1, column 42)")
PARSE_ERROR(prs_079_order_by_not_in_find,
            "(query [:find ?x :where [?x :a ?y] :order-by [?y :desc]])",
            "[PRS-079] :order-by variable ?y is not a plain :find variable")

/* ---- :find, aggregates and windows (language.md §8.2, §10, §11)
 * ---------------------------------- */
PARSE_ERROR(prs_021_with_without_aggregate, "(query [:find ?d :with ?e :where [?e :dept ?d]])",
            "[PRS-021] ':with' clause requires at least one aggregate in :find")
PARSE_ERROR(prs_022_with_variable_unbound,
            "(query [:find (count ?e) :with ?z :where [?e :dept ?d]])",
            "[PRS-022] ':with' variable ?z not bound in :where")
PARSE_ERROR(prs_023_aggregate_variable_unbound, "(query [:find (sum ?x) :where [?e :dept ?d]])",
            "[PRS-023] Aggregate variable ?x not bound in :where")
PARSE_ERROR_AT(prs_024_aggregate_element_count, "(query [:find (count ?x ?y) :where [?x :a ?y]])",
               "[PRS-024] Aggregate expression must have exactly 2 elements (func ?var), got 3",
               "(at line 1, column 15)")
PARSE_ERROR_AT(prs_025_aggregate_name_not_symbol, "(query [:find (\"count\" ?x) :where [?x :a 1]])",
               "[PRS-025] Aggregate function name must be a symbol, got String(\"count\")",
               "(at line 1, column 16)")
PARSE_ERROR_AT(prs_026_aggregate_argument_not_variable,
               "(query [:find (count :x) :where [?x :a 1]])",
               "[PRS-026] Aggregate argument must be a variable, got Keyword(:x)",
               "(at line 1, column 22)")
PARSE_ERROR_AT(prs_027_rank_without_over, "(query [:find (rank ?x) :where [?x :a 1]])",
               "[PRS-027] 'rank' is a window function and requires an ':over (...)' clause",
               "(at line 1, column 16)")
PARSE_ERROR_AT(prs_029_window_name_not_symbol,
               "(query [:find (:sum ?x :over (:order-by ?x)) :where [?x :a 1]])",
               "[PRS-029] Window function name must be a symbol, got Keyword(:sum)",
               "(at line 1, column 16)")
PARSE_ERROR_AT(
    prs_031_count_distinct_over,
    "(query [:find (count-distinct ?s :over (:order-by ?s)) :where [?e :sal ?s]])",
    "[PRS-031] 'count-distinct' is not window-compatible and cannot be used with ':over'",
    "(at line 1, column 16)")
PARSE_ERROR_AT(prs_032_window_without_variable,
               "(query [:find (sum :over (:order-by ?s)) :where [?e :sal ?s]])",
               "[PRS-032] Window function 'sum' requires a variable before ':over'",
               "(at line 1, column 15)")
PARSE_ERROR_AT(prs_033_over_not_after_variable,
               "(query [:find (sum ?s 1 :over (:order-by ?s)) :where [?e :sal ?s]])",
               "[PRS-033] Window function 'sum' expects ':over' after its variable",
               "(at line 1, column 15)")
PARSE_ERROR_AT(prs_034_rank_with_variable,
               "(query [:find (row-number ?s :over (:order-by ?s)) :where [?e :sal ?s]])",
               "[PRS-034] 'row-number' takes no variable: ':over' must follow the name",
               "(at line 1, column 15)")
PARSE_ERROR_AT(prs_035_over_without_list,
               "(query [:find (sum ?s :over :order-by) :where [?e :sal ?s]])",
               "[PRS-035] ':over' must be followed by a list of options", "(at line 1, column 23)")
PARSE_ERROR_AT(prs_036_element_after_over,
               "(query [:find (lag ?s :over (:order-by ?s) 2) :where [?e :sal ?s]])",
               "[PRS-036] Unexpected element after the ':over' clause, got Integer(2)",
               "(at line 1, column 44)")
PARSE_ERROR_AT(prs_037_partition_by_without_variable,
               "(query [:find (sum ?s :over (:partition-by :order-by ?s)) :where [?e :sal ?s]])",
               "[PRS-037] ':partition-by' in ':over' must be followed by a variable",
               "(at line 1, column 30)")
PARSE_ERROR_AT(prs_038_order_by_without_variable,
               "(query [:find (sum ?s :over (:order-by 1)) :where [?e :sal ?s]])",
               "[PRS-038] ':order-by' in ':over' must be followed by a variable",
               "(at line 1, column 30)")
PARSE_ERROR_AT(prs_038_order_by_required,
               "(query [:find (sum ?s :over (:partition-by ?s)) :where [?e :sal ?s]])",
               "[PRS-038] ':order-by' is required in the ':over' clause", "(at line 1, column 29)")
PARSE_ERROR_AT(prs_039_unknown_over_option,
               "(query [:find (sum ?s :over (:order-by ?s :rows 3)) :where [?e :sal ?s]])",
               "[PRS-039] Unknown ':over' option :rows", "(at line 1, column 43)")
PARSE_ERROR_AT(prs_040_non_keyword_in_over,
               "(query [:find (sum ?s :over (?s :order-by ?s)) :where [?e :sal ?s]])",
               "[PRS-040] Unexpected element in ':over' clause, got Symbol(?s)",
               "(at line 1, column 30)")
PARSE_ERROR(prs_080_find_variable_unbound, "(query [:find ?y :where [?x :a 1]])",
            "[PRS-080] variable ?y in :find is not bound by any :where clause")
PARSE_ERROR(prs_080_window_variable_unbound,
            "(query [:find ?s (rank :over (:order-by ?t)) :where [?e :sal ?s]])",
            "[PRS-080] variable ?t in :find is not bound by any :where clause")
PARSE_ERROR_AT(
    prs_077_find_element_not_a_spec, "(query [:find \"x\" :where [?x :a 1]])",
    "[PRS-077] Expected variable or aggregate expression in :find clause, got String(\"x\")",
    "(at line 1, column 15)")

/* ---- :where (language.md §8.3-§8.8)
 * --------------------------------------------------------------- */
PARSE_ERROR_AT(prs_050_empty_list_in_where, "(query [:find ?e :where [?e :a 1] ()])",
               "[PRS-050] Empty list in :where clause", "(at line 1, column 35)")
PARSE_ERROR_AT(prs_051_not_inside_not,
               "(query [:find ?n :where [?s :service/name ?n] (not (not [?s :x 1]))])",
               "[PRS-051] (not ...) cannot appear inside another (not ...)",
               "(at line 1, column 52)")
PARSE_ERROR_AT(prs_052_empty_not, "(query [:find ?e :where [?e :a 1] (not)])",
               "[PRS-052] (not) requires at least one clause", "(at line 1, column 35)")
PARSE_ERROR_AT(prs_053_empty_or, "(query [:find ?e :where [?e :a 1] (or)])",
               "[PRS-053] (or) requires at least one branch", "(at line 1, column 35)")
PARSE_ERROR_AT(prs_054_or_join_without_branches,
               "(query [:find ?e :where [?e :a 1] (or-join [?e])])",
               "[PRS-054] (or-join) requires a vector of join variables and at least one branch",
               "(at line 1, column 35)")
PARSE_ERROR_AT(
    prs_055_or_join_first_argument_not_vector,
    "(query [:find ?e :where [?e :a 1] (or-join ?e [?e :b 1])])",
    "[PRS-055] (or-join) first argument must be a vector of join variables, got Symbol(?e)",
    "(at line 1, column 44)")
PARSE_ERROR_AT(prs_056_or_join_entry_not_variable,
               "(query [:find ?e :where [?e :a 1] (or-join [?e 3] [?e :b 1])])",
               "[PRS-056] (or-join) join variables must be logic variables, got Integer(3)",
               "(at line 1, column 48)")
PARSE_ERROR_AT(prs_057_or_branches_differ,
               "(query [:find ?e :where [?e :color ?c] (or [?e :a ?x] [?e :b ?y])])",
               "[PRS-057] all branches of (or ...) must introduce the same set of new variables",
               "(at line 1, column 40)")
PARSE_ERROR_AT(prs_058_empty_and, "(query [:find ?e :where [?e :a 1] (or [?e :b 1] (and))])",
               "[PRS-058] (and) requires at least one clause", "(at line 1, column 49)")
PARSE_ERROR_AT(prs_059_not_join_without_clauses,
               "(query [:find ?e :where [?e :a 1] (not-join [?e])])",
               "[PRS-059] (not-join) requires a vector of join variables and at least one clause",
               "(at line 1, column 35)")
PARSE_ERROR_AT(prs_060_where_element_not_a_clause, "(query [:find ?e :where [?e :a 1] \"x\"])",
               "[PRS-060] Expected a pattern vector or a list in :where clause, got String(\"x\")",
               "(at line 1, column 35)")
PARSE_ERROR_AT(prs_062_empty_expression, "(query [:find ?v :where [?e :a ?v] [() ?w]])",
               "[PRS-062] Empty expression list", "(at line 1, column 37)")
PARSE_ERROR_AT(prs_063_expression_head_not_symbol,
               "(query [:find ?v :where [?e :a ?v] [(\"f\" ?v)]])",
               "[PRS-063] expression head must be a symbol, got String(\"f\")",
               "(at line 1, column 38)")
PARSE_ERROR_AT(prs_064_unary_arity, "(query [:find ?v :where [?e :a ?v] [(string? ?v ?v)]])",
               "[PRS-064] string? takes exactly 1 argument, got 2", "(at line 1, column 37)")
PARSE_ERROR_AT(prs_065_binary_arity, "(query [:find ?v :where [?e :a ?v] [(< ?v)]])",
               "[PRS-065] < takes exactly 2 arguments, got 1", "(at line 1, column 37)")
PARSE_ERROR_AT(prs_066_matches_pattern_not_literal,
               "(query [:find ?v :where [?e :a ?v] [?e :p ?p] [(matches? ?v ?p)]])",
               "[PRS-066] matches? pattern must be a string literal, got Symbol(?p)",
               "(at line 1, column 61)")
PARSE_ERROR_AT(prs_067_unknown_binary_operator,
               "(query [:find ?v :where [?e :a ?v] [(pow ?v 2) ?w]])",
               "[PRS-067] unknown expression operator: pow", "(at line 1, column 37)")
PARSE_ERROR_AT(prs_068_expression_clause_too_long,
               "(query [:find ?v :where [?e :a ?v] [(+ ?v 1) ?w ?z]])",
               "[PRS-068] Expression clause must be [(expr)] or [(expr) ?out], got 3 elements",
               "(at line 1, column 36)")
PARSE_ERROR_AT(prs_069_output_not_variable, "(query [:find ?v :where [?e :a ?v] [(+ ?v 1) 5]])",
               "[PRS-069] Expression output must be a variable, got Integer(5)",
               "(at line 1, column 46)")
PARSE_ERROR_AT(prs_070_unsupported_argument, "(query [:find ?v :where [?e :a ?v] [(= ?v [1 2])]])",
               "[PRS-070] unsupported expression argument: Vector", "(at line 1, column 43)")
PARSE_ERROR_AT(prs_078_invalid_regex, "(query [:find ?x :where [:m :s ?x] [(matches? ?x \"[\")]])",
               "[PRS-078] invalid regex pattern \"[\": unclosed character class",
               "(at line 1, column 50)")
PARSE_ERROR(prs_078_lookahead_is_rejected,
            "(query [:find ?x :where [:m :s ?x] [(matches? ?x \"a(?=b)\")]])",
            "[PRS-078] invalid regex pattern \"a(?=b)\": look-around is not supported")
PARSE_ERROR_AT(int_018_expression_variable_not_bound_earlier,
               "(query [:find ?x :where [(> ?y 1)] [:m :i ?y]])",
               "[INT-018] variable ?y in expression clause is not bound by any earlier clause",
               "(at line 1, column 25)")
PARSE_ERROR(int_018_or_join_variable_not_bound_earlier,
            "(query [:find ?c :where (or-join [?e] [?e :color :red]) [?e :color ?c]])",
            "[INT-018] join variable ?e in (or-join ...) is not bound by any earlier clause")
PARSE_ERROR(int_018_not_join_variable_not_bound,
            "(query [:find ?n :where [?s :name ?n] (not-join [?l] [?l :x 1])])",
            "[INT-018] join variable ?l in (not-join ...) is not bound by any outer clause")
PARSE_ERROR(prs_077_rule_head_not_a_list, "(rule [[?x :a ?y]])",
            "[PRS-077] Rule head must be a list: (predicate ?args)")
PARSE_ERROR(int_018_rule_head_variable_unbound, "(rule [(p ?x ?y) [?x :a 1]])",
            "[INT-018] rule head variable ?y is not bound by the rule body")

CHECK_MAIN(
    TEST_ENTRY(prs_001_empty_input), TEST_ENTRY(prs_002_unexpected_character),
    TEST_ENTRY(prs_002_bang_without_equals), TEST_ENTRY(prs_003_closer_where_value_expected),
    TEST_ENTRY(prs_004_unclosed_vector), TEST_ENTRY(prs_005_unclosed_list),
    TEST_ENTRY(prs_006_unclosed_map), TEST_ENTRY(prs_007_string_too_long),
    TEST_ENTRY(prs_008_keyword_too_long), TEST_ENTRY(prs_009_tag_too_long),
    TEST_ENTRY(prs_074_slot_name_too_long), TEST_ENTRY(prs_071_uuid_tag_without_string),
    TEST_ENTRY(prs_072_invalid_uuid), TEST_ENTRY(prs_073_unknown_tag),
    TEST_ENTRY(prs_073_discard_is_not_supported), TEST_ENTRY(prs_010_command_not_a_symbol),
    TEST_ENTRY(prs_011_unknown_command), TEST_ENTRY(prs_011_keyword_command),
    TEST_ENTRY(prs_012_not_a_list), TEST_ENTRY(prs_013_query_without_argument),
    TEST_ENTRY(prs_019_valid_from_not_a_string), TEST_ENTRY(prs_020_valid_to_not_a_string),
    TEST_ENTRY(prs_041_transact_without_facts), TEST_ENTRY(prs_042_transact_facts_not_a_vector),
    TEST_ENTRY(prs_043_retract_without_facts), TEST_ENTRY(prs_044_retract_argument_not_a_vector),
    TEST_ENTRY(prs_045_fact_not_a_vector), TEST_ENTRY(prs_046_fact_too_short),
    TEST_ENTRY(prs_047_fourth_element_not_a_map), TEST_ENTRY(prs_048_options_without_facts),
    TEST_ENTRY(prs_014_as_of_without_value), TEST_ENTRY(prs_015_as_of_negative),
    TEST_ENTRY(prs_016_as_of_wrong_type), TEST_ENTRY(prs_017_valid_at_without_value),
    TEST_ENTRY(prs_018_valid_at_wrong_type), TEST_ENTRY(prs_061_element_after_in),
    TEST_ENTRY(prs_075_timestamp_with_offset), TEST_ENTRY(prs_075_bad_date),
    TEST_ENTRY(prs_076_trailing_input), TEST_ENTRY(prs_076_trailing_argument),
    TEST_ENTRY(prs_076_integer_out_of_range), TEST_ENTRY(prs_076_bare_slot),
    TEST_ENTRY(prs_077_pattern_arity), TEST_ENTRY(prs_077_query_map_form),
    TEST_ENTRY(prs_077_duplicate_max_results), TEST_ENTRY(prs_077_max_results_zero),
    TEST_ENTRY(prs_077_pseudo_attribute_in_value), TEST_ENTRY(prs_079_negative_limit),
    TEST_ENTRY(prs_079_order_by_not_in_find), TEST_ENTRY(prs_021_with_without_aggregate),
    TEST_ENTRY(prs_022_with_variable_unbound), TEST_ENTRY(prs_023_aggregate_variable_unbound),
    TEST_ENTRY(prs_024_aggregate_element_count), TEST_ENTRY(prs_025_aggregate_name_not_symbol),
    TEST_ENTRY(prs_026_aggregate_argument_not_variable), TEST_ENTRY(prs_027_rank_without_over),
    TEST_ENTRY(prs_029_window_name_not_symbol), TEST_ENTRY(prs_031_count_distinct_over),
    TEST_ENTRY(prs_032_window_without_variable), TEST_ENTRY(prs_033_over_not_after_variable),
    TEST_ENTRY(prs_034_rank_with_variable), TEST_ENTRY(prs_035_over_without_list),
    TEST_ENTRY(prs_036_element_after_over), TEST_ENTRY(prs_037_partition_by_without_variable),
    TEST_ENTRY(prs_038_order_by_without_variable), TEST_ENTRY(prs_038_order_by_required),
    TEST_ENTRY(prs_039_unknown_over_option), TEST_ENTRY(prs_040_non_keyword_in_over),
    TEST_ENTRY(prs_080_find_variable_unbound), TEST_ENTRY(prs_080_window_variable_unbound),
    TEST_ENTRY(prs_077_find_element_not_a_spec), TEST_ENTRY(prs_050_empty_list_in_where),
    TEST_ENTRY(prs_051_not_inside_not), TEST_ENTRY(prs_052_empty_not), TEST_ENTRY(prs_053_empty_or),
    TEST_ENTRY(prs_054_or_join_without_branches),
    TEST_ENTRY(prs_055_or_join_first_argument_not_vector),
    TEST_ENTRY(prs_056_or_join_entry_not_variable), TEST_ENTRY(prs_057_or_branches_differ),
    TEST_ENTRY(prs_058_empty_and), TEST_ENTRY(prs_059_not_join_without_clauses),
    TEST_ENTRY(prs_060_where_element_not_a_clause), TEST_ENTRY(prs_062_empty_expression),
    TEST_ENTRY(prs_063_expression_head_not_symbol), TEST_ENTRY(prs_064_unary_arity),
    TEST_ENTRY(prs_065_binary_arity), TEST_ENTRY(prs_066_matches_pattern_not_literal),
    TEST_ENTRY(prs_067_unknown_binary_operator), TEST_ENTRY(prs_068_expression_clause_too_long),
    TEST_ENTRY(prs_069_output_not_variable), TEST_ENTRY(prs_070_unsupported_argument),
    TEST_ENTRY(prs_078_invalid_regex), TEST_ENTRY(prs_078_lookahead_is_rejected),
    TEST_ENTRY(int_018_expression_variable_not_bound_earlier),
    TEST_ENTRY(int_018_or_join_variable_not_bound_earlier),
    TEST_ENTRY(int_018_not_join_variable_not_bound), TEST_ENTRY(prs_077_rule_head_not_a_list),
    TEST_ENTRY(int_018_rule_head_variable_unbound))
