/* One query shape through the C API, timed the way bench_query.py,
 * bench_query.mjs and BenchQuery.java time it through their packages
 * (spec/BENCHMARKS.md §4; bench/bench_bindings.sh runs all four):
 *
 *   bench_bindings_c PATH QUERY [RULE ...]
 *
 * Opens PATH read-only (writable when RULEs are given: rules are held by
 * the open database, and registering one is refused read-only), registers
 * the rules, warms up (at least WARMUP_RUNS runs and WARMUP_S seconds),
 * then runs the query until it has MIN_RUNS runs and BUDGET_S seconds (at
 * most MAX_RUNS). A run opens the cursor, reads every row in batches of
 * 1,000 and frees it. Prints one JSON line: rows, runs, p50/p99/min in µs. */
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"
#include "minigraf.h"

#define WARMUP_RUNS 3
#define WARMUP_S 0.5
#define MIN_RUNS 5
#define BUDGET_S 1.5
#define MAX_RUNS 5000

/* The query's row count, or -1 (reported) on error. */
static long run_once(MiniGrafDb *db, const char *query) {
    MiniGrafCursor *cur = minigraf_query(db, query);
    if (!cur) {
        fprintf(stderr, "%s\n", minigraf_last_error(db));
        return -1;
    }
    long rows = 0;
    char *batch;
    while ((batch = minigraf_cursor_next_batch(cur, 1000)) != NULL) {
        rows += bench_batch_rows(batch);
        minigraf_string_free(batch);
    }
    if (minigraf_cursor_last_error(cur)) {
        fprintf(stderr, "%s\n", minigraf_cursor_last_error(cur));
        rows = -1;
    }
    minigraf_cursor_free(cur);
    return rows;
}

static MiniGrafDb *open_db(const char *path, int rule_count, char **rules) {
    char *error = NULL;
    MiniGrafDb *db = minigraf_open_with_options(
        path, rule_count ? "{\"read_only\": false}" : "{\"read_only\": true}", &error);
    if (!db) {
        fprintf(stderr, "%s\n", error);
        minigraf_string_free(error);
        return NULL;
    }
    for (int i = 0; i < rule_count; i++) {
        char *out = minigraf_execute(db, rules[i]);
        if (!out) {
            fprintf(stderr, "%s\n", minigraf_last_error(db));
            minigraf_close(db);
            return NULL;
        }
        minigraf_string_free(out);
    }
    return db;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s PATH QUERY [RULE ...]\n", argv[0]);
        return 2;
    }
    MiniGrafDb *db = open_db(argv[1], argc - 3, argv + 3);
    if (!db)
        return 1;
    const char *query = argv[2];
    long rows = run_once(db, query);
    double start = bench_now_s();
    for (int i = 1; rows >= 0 && (i < WARMUP_RUNS || bench_now_s() - start < WARMUP_S); i++)
        if (run_once(db, query) != rows)
            rows = -1;
    static double t[MAX_RUNS];
    int runs = 0;
    double spent = 0;
    while (rows >= 0 && runs < MAX_RUNS && (runs < MIN_RUNS || spent < BUDGET_S)) {
        double t0 = bench_now_s();
        long got = run_once(db, query);
        t[runs] = bench_now_s() - t0;
        spent += t[runs++];
        if (got != rows)
            rows = -1;
    }
    minigraf_close(db);
    if (rows < 0) {
        fprintf(stderr, "failed or unstable: %s\n", query);
        return 1;
    }
    bench_sort_doubles(t, (size_t)runs);
    printf("{\"rows\": %ld, \"runs\": %d, \"p50_us\": %.2f, \"p99_us\": %.2f, \"min_us\": %.2f}\n",
           rows, runs, t[runs / 2] * 1e6, t[(int)((runs - 1) * 0.99 + 0.5)] * 1e6, t[0] * 1e6);
    return 0;
}
