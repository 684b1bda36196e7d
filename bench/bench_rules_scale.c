/* Rules at scale (issue 20): registering a chain of N rules
 *   (r0 ?x) :- [?x :n _];  (r{i} ?x) :- (r{i-1} ?x)
 * and querying its far end. Registration (each `rule` command validates
 * and stratifies the registry) should grow linearly with N: target 10^4
 * rules in under 1 s. The query answers or fails with its limit's code;
 * its time should grow linearly with the rules' size.
 *
 * A second shape chains through negation, one stratum per rule
 *   (n0 ?x) :- [?x :n _];  (n{i} ?x) :- [?x :n _], not (n{i-1} ?x)
 * registered top down (the order a relaxation over the edges likes
 * least) to show what stratifying many strata costs.
 *
 *   bench_rules_scale [N ...]     (default: 1000 3000 10000)
 *
 * Prints one line per N: registration seconds, per-rule microseconds, and
 * the query's seconds and outcome. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "minigraf.h"

static int run(long n) {
    MiniGrafDb *db = minigraf_open_in_memory();
    if (!db)
        return 1;
    char *r = minigraf_execute(db, "(transact [[:a :n 1] [:b :n 2]])");
    minigraf_string_free(r);
    char text[160];
    double t0 = bench_now_s();
    for (long i = 0; i < n; i++) {
        if (i == 0)
            snprintf(text, sizeof text, "(rule [(r0 ?x) [?x :n _]])");
        else
            snprintf(text, sizeof text, "(rule [(r%ld ?x) (r%ld ?x)])", i, i - 1);
        r = minigraf_execute(db, text);
        if (!r) {
            fprintf(stderr, "rule %ld: %s\n", i, minigraf_last_error(db));
            minigraf_close(db);
            return 1;
        }
        minigraf_string_free(r);
    }
    double reg = bench_now_s() - t0;
    t0 = bench_now_s(); /* the first query over the rules stratifies them all */
    r = minigraf_execute(db, "(query [:find ?x :where (r0 ?x)])");
    double strat = bench_now_s() - t0;
    minigraf_string_free(r);
    snprintf(text, sizeof text, "(query [:find (count ?x) :where (r%ld ?x)])", n - 1);
    t0 = bench_now_s();
    r = minigraf_execute(db, text);
    double q = bench_now_s() - t0;
    const char *outcome = r ? r : minigraf_last_error(db);
    printf("%-7ld register %7.3f s (%6.2f us/rule)  + stratify %7.3f s   query %8.3f s  %.60s\n", n,
           reg, reg * 1e6 / (double)n, strat, q, outcome ? outcome : "?");
    minigraf_string_free(r);
    minigraf_close(db);
    return 0;
}

static int run_negated(long n) {
    MiniGrafDb *db = minigraf_open_in_memory();
    if (!db)
        return 1;
    char text[160];
    double t0 = bench_now_s();
    for (long i = n - 1; i >= 0; i--) {
        if (i == 0)
            snprintf(text, sizeof text, "(rule [(n0 ?x) [?x :n _]])");
        else
            snprintf(text, sizeof text, "(rule [(n%ld ?x) [?x :n _] (not (n%ld ?x))])", i, i - 1);
        char *r = minigraf_execute(db, text);
        if (!r) {
            fprintf(stderr, "rule %ld: %s\n", i, minigraf_last_error(db));
            minigraf_close(db);
            return 1;
        }
        minigraf_string_free(r);
    }
    double reg = bench_now_s() - t0;
    t0 = bench_now_s();
    char *r = minigraf_execute(db, "(query [:find ?x :where (n0 ?x)])");
    double strat = bench_now_s() - t0;
    printf("%-7ld negated chain, top down: register %7.3f s  + stratify %7.3f s  %s\n", n, reg,
           strat, r ? "ok" : minigraf_last_error(db));
    minigraf_string_free(r);
    minigraf_close(db);
    return 0;
}

int main(int argc, char **argv) {
    static const long defaults[] = {1000, 3000, 10000};
    int rc = 0;
    if (argc > 1)
        for (int i = 1; i < argc; i++)
            rc |= run(strtol(argv[i], NULL, 10)) | run_negated(strtol(argv[i], NULL, 10));
    else
        for (size_t i = 0; i < sizeof defaults / sizeof *defaults; i++)
            rc |= run(defaults[i]) | run_negated(defaults[i]);
    printf("peak RSS %ld KiB\n", bench_peak_rss_kib());
    return rc;
}
