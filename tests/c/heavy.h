/* A database and queries that run for as long as a test needs (cross
 * products of HEAVY_N facts: minutes of work), for the tests that stop or
 * close calls while they run. */
#ifndef MINIGRAF_TEST_HEAVY_H
#define MINIGRAF_TEST_HEAVY_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "support.h"

#define HEAVY_N 600

/* An aggregate: computed whole before the first row. Four patterns: the
 * count of a triple product (216M) takes under a second since counting
 * scans, and query_timeout_ms's test needs more than its 1 s. */
#define HEAVY_COUNT "(query [:find (count ?x) :where [?a :n ?x] [?b :n ?y] [?c :n ?z] [?d :n ?w]])"
/* A plain projection: streams. */
#define HEAVY_ROWS "(query [:find ?x ?y ?z :where [?a :n ?x] [?b :n ?y] [?c :n ?z]])"
/* Rules: the closure of a HEAVY_N chain, then its cross product. */
#define HEAVY_RULES "(query [:find (count ?x) :where (reach ?x ?y) [?b :n ?z] [?c :n ?w]])"

/* HEAVY_N facts [:eI :n I] (and a chain :eI :next :eI+1), in one transact. */
static inline void heavy_fill(MiniGrafDb *db) {
    size_t cap = (size_t)HEAVY_N * 64 + 64, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text + len, cap - len, "(transact [");
    for (int i = 0; i < HEAVY_N; i++)
        len += (size_t)snprintf(text + len, cap - len, "[:e%d :n %d] [:e%d :next :e%d] ", i, i, i,
                                i + 1);
    snprintf(text + len, cap - len, "])");
    char *out = EXEC(db, text);
    minigraf_string_free(out);
    free(text);
    out = EXEC(db, "(rule [(reach ?x ?y) [?x :next ?y]])");
    minigraf_string_free(out);
    out = EXEC(db, "(rule [(reach ?x ?y) [?x :next ?m] (reach ?m ?y)])");
    minigraf_string_free(out);
}

/* A progress handler that only tells that a call is running. */
static inline int heavy_mark_running(void *flag) {
    atomic_store((atomic_int *)flag, 1);
    return 0;
}

/* Waits until `flag` is set (by heavy_mark_running). */
static inline void heavy_wait(atomic_int *flag) {
    while (!atomic_load(flag))
        sched_yield();
}

#endif
