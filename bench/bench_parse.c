/* Parser benchmark: reader + parser + checks, as db_execute runs them
 * (arena set up and freed per command).
 *
 *   bench_parse <out.json> [spec_examples.txt]
 *
 * Measures, over many runs each: every query shape of spec/BENCHMARKS.md §2
 * (p50 / p99 / min / max per parse), the spec's example commands and a
 * generated 10,000-fact transact (throughput in MB/s). Prints a table and
 * writes the figures as JSON. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "base/buf.h"
#include "datalog/parse.h"

#define BENCH_RUNS 20000

typedef struct bench_shape {
    const char *name;
    const char *text;
} bench_shape;

/* The envelope shapes at 1M facts: E = 166666, m = 83333, leaf = 166665. */
static const bench_shape bench_shapes[] = {
    {"point_entity", "(query [:find ?a :where [:p83333 :age ?a]])"},
    {"as_of", "(query [:find ?a :as-of 2500 :where [:p20833 :age ?a]])"},
    {"valid_at",
     "(query [:find ?s :valid-at \"2021-06-01T00:00:00Z\" :where [:p83333 :status ?s]])"},
    {"hot_current", "(query [:find ?v :where [:hot :counter ?v]])"},
    {"hot_as_of", "(query [:find ?v :as-of 4500 :where [:hot :counter ?v]])"},
    {"as_of_ts", "(query [:find ?a :as-of \"2024-05-01T12:00:00.123Z\" :where [:p83333 :age ?a]])"},
    {"attribute_value", "(query [:find ?e :where [?e :name \"p83333\"]])"},
    {"join_2", "(query [:find ?n :where [:p83333 :follows ?f] [?f :name ?n]])"},
    {"join_2_pseudo", "(query [:find ?n :valid-at :any-valid-time :where [:p83333 :follows ?f] [?f "
                      ":name ?n] [?f :db/tx-count ?t]])"},
    {"join_3_selective",
     "(query [:find ?s ?n :where [:p83333 :manager ?b] [?s :manager ?b] [?s :name ?n]])"},
    {"recursive_ancestors", "(query [:find ?b :where (boss :p166665 ?b)])"},
    {"limit", "(query [:find ?e ?a :where [?e :age ?a] :limit 10])"},
    {"top_k", "(query [:find ?e ?a :where [?e :age ?a] :order-by [?a :desc] :limit 10])"},
    {"not_probe", "(query [:find ?e :where [?e :group 7] (not [?e :age ?a] [(< ?a 10)])])"},
    {"not_join",
     "(query [:find ?e :where [?e :group 7] (not-join [?e] [?e :age ?a] [(< ?a 50)])])"},
    {"or_2", "(query [:find ?e :where [?e :group 7] (or [?e :age 7] [?e :age 17])])"},
    {"count_grouped", "(query [:find ?g (count ?e) :where [?e :group ?g]])"},
    {"count", "(query [:find (count ?v) :where [?e ?a ?v]])"},
    {"attribute_scan", "(query [:find ?e ?a :where [?e :age ?a]])"},
    {"as_of_ts_scan",
     "(query [:find ?e ?a :as-of \"2024-05-01T12:00:00.123Z\" :where [?e :age ?a]])"},
    {"window", "(query [:find ?e (rank :over (:order-by ?a)) :where [?e :age ?a]])"},
    {"join_3_scan", "(query [:find ?e ?n :where [?e :follows ?f] [?f :group 7] [?f :name ?n]])"},
    {"recursive", "(query [:find ?x ?b :where (boss ?x ?b)])"},
    {"rule_boss", "(rule [(boss ?x ?b) [?x :manager ?m] (boss ?m ?b)])"},
};

static uint64_t bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One parse as db_execute does it; aborts the benchmark on a parse error. */
static void bench_parse_once(const char *text, size_t len) {
    arena a;
    arena_init(&a);
    err e = {0};
    command *c;
    if (datalog_parse(text, len, &a, &c, &e) != 0) {
        fprintf(stderr, "bench_parse: %s\n  in: %.200s\n", e.message, text);
        exit(1);
    }
    arena_free(&a);
}

static int bench_cmp_u64(const void *x, const void *y) {
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

typedef struct bench_stats {
    double p50, p99, min, max; /* ns */
    size_t runs;
} bench_stats;

static bench_stats bench_time(const char *text, size_t runs) {
    size_t len = strlen(text);
    uint64_t *ns = malloc(runs * sizeof *ns);
    for (size_t i = 0; i < runs / 10; i++) /* warm up */
        bench_parse_once(text, len);
    for (size_t i = 0; i < runs; i++) {
        uint64_t t0 = bench_now_ns();
        bench_parse_once(text, len);
        ns[i] = bench_now_ns() - t0;
    }
    qsort(ns, runs, sizeof *ns, bench_cmp_u64);
    bench_stats s = {(double)ns[runs / 2], (double)ns[runs * 99 / 100], (double)ns[0],
                     (double)ns[runs - 1], runs};
    free(ns);
    return s;
}

/* MB/s (10^6 bytes) over `rounds` passes of parsing every text. */
static double bench_throughput(char **texts, size_t n, size_t rounds, size_t *bytes_out) {
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++)
        bytes += strlen(texts[i]);
    uint64_t t0 = bench_now_ns();
    for (size_t r = 0; r < rounds; r++)
        for (size_t i = 0; i < n; i++)
            bench_parse_once(texts[i], strlen(texts[i]));
    double secs = (double)(bench_now_ns() - t0) / 1e9;
    *bytes_out = bytes;
    return (double)bytes * (double)rounds / secs / 1e6;
}

/* Every line of the examples file that parses (the others are error examples). */
static char **bench_load_examples(const char *path, size_t *n) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "bench_parse: cannot open %s\n", path);
        exit(1);
    }
    char **out = NULL, line[8192];
    *n = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        arena a;
        arena_init(&a);
        err e = {0};
        command *c;
        if (line[0] && datalog_parse(line, strlen(line), &a, &c, &e) == 0) {
            out = realloc(out, (*n + 1) * sizeof *out);
            out[(*n)++] = strdup(line);
        }
        err_clear(&e);
        arena_free(&a);
    }
    fclose(f);
    return out;
}

static char *bench_big_transact(size_t facts) {
    buf b;
    buf_init(&b);
    buf_puts(&b, "(transact [");
    for (size_t i = 0; i < facts; i++) {
        size_t ent = i / 5;
        switch (i % 5) {
        case 0: buf_printf(&b, "[:p%zu :name \"p%zu\"]", ent, ent); break;
        case 1: buf_printf(&b, " [:p%zu :age %zu]", ent, ent % 90); break;
        case 2: buf_printf(&b, " [:p%zu :group %zu]", ent, ent % 100); break;
        case 3:
            buf_printf(&b, " [:p%zu :follows :p%zu]", ent, (7919 * ent + 1) % (facts / 5));
            break;
        default:
            buf_printf(&b, " [:p%zu :status \"b\" {:valid-from \"2023-01-01\"}]\n", ent);
            break;
        }
    }
    buf_puts(&b, "])");
    return buf_detach(&b);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_parse <out.json> [spec_examples.txt]\n");
        return 2;
    }
    FILE *json = fopen(argv[1], "w");
    if (!json) {
        fprintf(stderr, "bench_parse: cannot write %s\n", argv[1]);
        return 1;
    }
    size_t nex, ex_bytes, big_bytes;
    char **examples = bench_load_examples(argc > 2 ? argv[2] : MINIGRAF_SPEC_EXAMPLES, &nex);
    char *big = bench_big_transact(10000);
    double ex_mbs = bench_throughput(examples, nex, 2000, &ex_bytes);
    double big_mbs = bench_throughput(&big, 1, 200, &big_bytes);
    bench_stats big_t = bench_time(big, 200);

    printf("%-22s %10s %10s %10s %10s\n", "shape", "p50 us", "p99 us", "min us", "max us");
    fprintf(json, "{\n  \"shapes\": [\n");
    size_t nshapes = sizeof bench_shapes / sizeof bench_shapes[0];
    for (size_t i = 0; i < nshapes; i++) {
        bench_stats s = bench_time(bench_shapes[i].text, BENCH_RUNS);
        printf("%-22s %10.3f %10.3f %10.3f %10.3f\n", bench_shapes[i].name, s.p50 / 1e3,
               s.p99 / 1e3, s.min / 1e3, s.max / 1e3);
        fprintf(json,
                "    {\"shape\": \"%s\", \"bytes\": %zu, \"runs\": %zu, \"p50_ns\": %.0f, "
                "\"p99_ns\": %.0f, "
                "\"min_ns\": %.0f, \"max_ns\": %.0f}%s\n",
                bench_shapes[i].name, strlen(bench_shapes[i].text), s.runs, s.p50, s.p99, s.min,
                s.max, i + 1 < nshapes ? "," : "");
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("\nspec examples: %zu commands, %zu bytes: %.1f MB/s\n", nex, ex_bytes, ex_mbs);
    printf("10,000-fact transact: %zu bytes: %.1f MB/s (p50 %.3f ms)\n", big_bytes, big_mbs,
           big_t.p50 / 1e6);
    printf("peak RSS: %ld KiB\n", ru.ru_maxrss);
    fprintf(json,
            "  ],\n  \"spec_examples\": {\"commands\": %zu, \"bytes\": %zu, \"mb_per_s\": %.2f},\n"
            "  \"transact_10000\": {\"bytes\": %zu, \"mb_per_s\": %.2f, \"p50_ns\": %.0f, "
            "\"p99_ns\": %.0f},\n"
            "  \"peak_rss_kib\": %ld\n}\n",
            nex, ex_bytes, ex_mbs, big_bytes, big_mbs, big_t.p50, big_t.p99, ru.ru_maxrss);
    fclose(json);
    for (size_t i = 0; i < nex; i++)
        free(examples[i]);
    free(examples);
    free(big);
    return 0;
}
