/* Interrupt latency: how long a heavy query takes to return API-013 after
 * minigraf_interrupt (the target is 10 ms). Each shape runs on a thread;
 * the main thread waits a random 20-80 ms, interrupts, and times the
 * interval from the interrupt to the thread's return.
 *
 *   bench_interrupt [RUNS]   (default 40 per shape) */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "minigraf.h"

#define N 2000

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

typedef struct job {
    MiniGrafDb *db;
    const char *text;
    atomic_int done;
    double returned_ms;
    int code;
} job;

static void *run(void *arg) {
    job *j = arg;
    char *out = minigraf_execute(j->db, j->text);
    j->returned_ms = now_ms();
    j->code = out ? 0 : minigraf_last_error_code(j->db);
    minigraf_string_free(out);
    atomic_store(&j->done, 1);
    return NULL;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void fill(MiniGrafDb *db) {
    size_t cap = (size_t)N * 80, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text + len, cap - len, "(transact [");
    for (int i = 0; i < N; i++)
        len += (size_t)snprintf(text + len, cap - len,
                                "[:e%d :n %d] [:e%d :s \"s%d\"] [:e%d :next :e%d] ", i, i, i,
                                (i * 7919) % N, i, i + 1);
    snprintf(text + len, cap - len, "])");
    free(minigraf_execute(db, text));
    free(text);
    free(minigraf_execute(db, "(rule [(reach ?x ?y) [?x :next ?y]])"));
    free(minigraf_execute(db, "(rule [(reach ?x ?y) [?x :next ?m] (reach ?m ?y)])"));
}

static const struct shape {
    const char *name, *text;
} shapes[] = {
    {"cross join count", "(query [:find (count ?x) :where [?a :n ?x] [?b :n ?y] [?c :n ?z]])"},
    {"cross join filter",
     "(query [:find ?x :where [?a :n ?x] [?b :n ?y] [?c :n ?z] [(+ ?x ?y) ?s] [(< ?s -1)]])"},
    {"rule recursion", "(query [:find (count ?y) :where (reach ?x ?y)])"},
    {"sort 4M rows",
     "(query [:find ?x ?y :where [?a :n ?x] [?b :s ?y] :order-by [?y ?x] :limit 1])"},
};

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 40;
    MiniGrafDb *db = minigraf_open_with_options(
        NULL,
        "{\"max_results\": 1000000000000, \"max_derived_facts\": 1000000000000, "
        "\"query_memory_limit\": 0}",
        NULL);
    fill(db);
    srand(7);
    printf("%-20s %8s %8s %8s %8s  (ms from minigraf_interrupt to API-013, %d runs)\n", "shape",
           "p50", "p99", "max", "done", runs);
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        double *lat = malloc((size_t)runs * sizeof *lat);
        int n = 0, finished = 0;
        for (int r = 0; r < runs; r++) {
            job j = {.db = db, .text = shapes[s].text};
            pthread_t t;
            pthread_create(&t, NULL, run, &j);
            struct timespec wait = {0, (20 + rand() % 60) * 1000000L};
            nanosleep(&wait, NULL);
            double t0 = now_ms();
            minigraf_interrupt(db);
            pthread_join(t, NULL);
            if (j.code == 5013)
                lat[n++] = j.returned_ms - t0;
            else
                finished++; /* the query ended before the interrupt */
        }
        qsort(lat, (size_t)n, sizeof *lat, cmp);
        if (n)
            printf("%-20s %8.3f %8.3f %8.3f %8d\n", shapes[s].name, lat[n / 2],
                   lat[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1], lat[n - 1], finished);
        else
            printf("%-20s (every run finished before the interrupt)\n", shapes[s].name);
        free(lat);
    }
    minigraf_close(db);
    return 0;
}
