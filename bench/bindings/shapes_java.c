/* The shapes of spec/BENCHMARKS.md §2 with their placeholders filled in for
 * one fixture, for BenchJava.java (bench/bindings/bench_java.sh): one line
 * per shape, tab-separated,
 *
 *   name  datalog  sql  expected_rows  rules
 *
 * (expected_rows -1: only checked for stability; rules 1: the shape calls
 * the boss rules). The texts are bench/shapes.c's, expanded as
 * bench_compare expands them, so Java times exactly what C and SQLite do.
 *
 *   bench_shapes_java FIXTURE.graph N */
#include <stdio.h>
#include <stdlib.h>

#include "shapes.h"

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s FIXTURE.graph N\n", argv[0]);
        return 2;
    }
    params p;
    shape_params(atol(argv[2]), &p);
    long long ms = shape_read_tx_half_ms(argv[1], &p);
    if (ms < 0) {
        fprintf(stderr, "cannot read the time of transaction %ld from %s\n", p.tx_half, argv[1]);
        return 1;
    }
    shape_set_tx_half_ms(&p, ms);
    static char query[8192], sql[8192];
    for (size_t i = 0; i < SHAPE_COUNT; i++) {
        const shape *sh = &SHAPES[i];
        shape_expand(sh->query, &p, 1, query, sizeof query);
        shape_expand(sh->sql, &p, 0, sql, sizeof sql);
        printf("%s\t%s\t%s\t%ld\t%d\n", sh->name, query, sql, shape_expected_rows(sh, &p),
               sh->rules);
    }
    return 0;
}
