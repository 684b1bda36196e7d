/* The printer: parse → print → parse → print gives the same text twice,
 * over every example command of the spec (spec_examples.txt, extracted by
 * scripts/extract_spec_examples.py) and over hand-written edge cases. */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "check.h"
#include "datalog/parse.h"
#include "datalog/print.h"

/* Prints `text` parsed; NULL (and a message) when it does not parse. */
static char *print_of(const char *text, size_t len, char **error) {
    arena a;
    arena_init(&a);
    err e = {0};
    command *c;
    char *out = NULL;
    if (datalog_parse(text, len, &a, &c, &e) == 0) {
        buf b;
        buf_init(&b);
        datalog_print(c, &b);
        out = buf_detach(&b);
    } else if (error) {
        *error = e.message;
        e.message = NULL;
    }
    err_clear(&e);
    arena_free(&a);
    return out;
}

/* Returns 1 when text parses and round-trips, 0 when it does not parse
 * (error in *error), -1 when the round trip breaks. */
static int round_trip(const char *text, char **error) {
    char *first = print_of(text, strlen(text), error);
    if (!first)
        return 0;
    char *second = print_of(first, strlen(first), NULL);
    int ok = second && strcmp(first, second) == 0;
    if (!ok)
        fprintf(stderr, "  round trip of %s\n    first:  %s\n    second: %s\n", text, first,
                second ? second : "(does not parse)");
    free(first);
    free(second);
    return ok ? 1 : -1;
}

static void check_prints_as(const char *text, const char *want) {
    char *got = print_of(text, strlen(text), NULL);
    int ok = got && strcmp(got, want) == 0;
    if (!ok)
        fprintf(stderr, "  %s\n    printed: %s\n    wanted:  %s\n", text, got ? got : "(error)",
                want);
    CHECK(ok);
    free(got);
}

static void test_spec_examples(const char *path) {
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f)
        return;
    char line[8192];
    int parsed = 0, rejected = 0, broken = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '\0')
            continue;
        char *error = NULL;
        int rc = round_trip(line, &error);
        parsed += rc == 1, broken += rc < 0;
        if (rc == 0) {
            rejected++;
            if (getenv("SHOW_REJECTED"))
                fprintf(stderr, "  rejected: %s\n    %s\n", line, error);
        }
        free(error);
    }
    fclose(f);
    printf("spec examples: %d round-trip, %d rejected (error examples)\n", parsed, rejected);
    CHECK(broken == 0);
    CHECK(parsed >= 120);
}

static void test_canonical_forms(void) {
    check_prints_as("(query [:where [?e :a ?x] :find ?x])", "(query [:find ?x :where [?e :a ?x]])");
    check_prints_as("(query [:where [?e :a ?x]])", "(query [:where [?e :a ?x]])");
    check_prints_as("(query [])", "(query [])");
    check_prints_as("(transact {} [[:a :b -0.0] [:a :c 1.50]])",
                    "(transact [[:a :b -0.0] [:a :c 1.5]])");
    check_prints_as(
        "(query [:find ?x :valid-at \"2024-01-15\" :where [?x :a 0.001]])",
        "(query [:find ?x :where [?x :a 0.001] :valid-at \"2024-01-15T00:00:00.000Z\"])");
    check_prints_as("(query [:find ?x :as-of \"1969-12-31T23:59:59.5Z\" :where [?x :a 3.]])",
                    "(query [:find ?x :where [?x :a 3.0] :as-of \"1969-12-31T23:59:59.500Z\"])");
    check_prints_as("(transact [[:a :s \"q\\\"\\\\\\n\\t\\r\"]])",
                    "(transact [[:a :s \"q\\\"\\\\\\n\\t\\r\"]])");
    check_prints_as(
        "(query [:find ?e (rank :over (:desc :order-by ?e)) :where (or [?e :a 1] (and [?e :b 2])) "
        ":order-by [?e :desc] :limit 5 :offset 0 :max-results 3])",
        "(query [:find ?e (rank :over (:order-by ?e :desc)) :where (or [?e :a 1] [?e :b 2]) "
        ":max-results 3 :order-by [?e :desc] :limit 5 :offset 0])");
    check_prints_as("(transact [[:a :f 100000000000000000000000.0] [:a :g 123.456]])",
                    "(transact [[:a :f 100000000000000000000000.0] [:a :g 123.456]])");
}

static void test_edge_round_trips(void) {
    static const char *const cases[] = {
        "(transact [[:a :inf "
        "999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999"
        "999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999"
        "999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999"
        "9999999999999999999999999999999999999999999.0]])",
        "(transact [[:a :min -9223372036854775808] [#uuid \"550E8400-E29B-41D4-A716-446655440000\" "
        ":u nil]])",
        "(query [:find ?x :where [?x :a $v] [(matches? ?x \"^(?i)a\\\\d+$\")] :as-of $t :valid-at "
        "$w])",
        "(query [:find ?x :where [?x _ ?_y] [?x :k foo] [?x :k [1 {:a 2}]] (p ?x \"s\")])",
        "(query [:find ?x :where [?x :a ?y] (not-join [?x] [?x :b ?z] [(> ?z (+ ?y 1))])])",
        "(rule [(p ?x) [?x :a ?y] (not (q ?y)) [(adult? ?y)]])",
        "(rule [(p) [:a :b 1]])",
        ("(query [:find (sum ?s :over (:partition-by ?d :order-by ?s :asc)) (count-distinct ?s) "
         ":with ?e "
         ":where [?e :s ?s] [?e :d ?d] :max-derived-facts 10])"),
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *error = NULL;
        int rc = round_trip(cases[i], &error);
        if (rc != 1)
            fprintf(stderr, "  %s: %s\n", cases[i], error ? error : "round trip broken");
        CHECK(rc == 1);
        free(error);
    }
}

int main(int argc, char **argv) {
    test_spec_examples(argc > 1 ? argv[1] : "spec_examples.txt");
    test_canonical_forms();
    test_edge_round_trips();
    return CHECK_DONE();
}
