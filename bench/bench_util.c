/* Measuring helpers shared by the benchmark programs. */
#define _POSIX_C_SOURCE 200809L
#include "bench_util.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

double bench_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

long bench_peak_rss_kib(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

long bench_rss_kib(void) {
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void bench_sort_doubles(double *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_double);
}

/* The bytes bench_batch_rows acts on; the others are skipped in a tight
 * loop (a byte at a time through the whole state machine, the count cost
 * as many instructions as the library spent writing the JSON). */
static const bool structural[256] = {
    [0] = true, ['"'] = true, ['\\'] = true, ['['] = true, [']'] = true};

long bench_batch_rows(const char *json) {
    long rows = 0;
    int depth = 0, in_str = 0;
    for (const char *c = json;; c++) {
        while (!structural[(unsigned char)*c])
            c++;
        if (!*c)
            return rows;
        if (in_str) {
            if (*c == '\\' && c[1])
                c++;
            else if (*c == '"')
                in_str = 0;
        } else if (*c == '"') {
            in_str = 1;
        } else if (*c == '[') {
            rows += depth++ == 1; /* a row opens at depth 1 */
        } else if (*c == ']') {
            depth--;
        }
    }
}
