/* Measuring helpers shared by the benchmark programs. */
#define _POSIX_C_SOURCE 200809L
#include "bench_util.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* The bytes bench_batch_rows acts on outside strings; the others are
 * skipped in a tight loop. */
static const bool structural[256] = {[0] = true, ['"'] = true, ['['] = true, [']'] = true};

/* The closing quote of the string whose contents start at `c`, or NULL when
 * the text ends first. memchr jumps over the contents (UUIDs and texts are
 * most of a batch's bytes); a quote after an odd run of backslashes is
 * escaped and the search goes on past it. */
static const char *string_end(const char *c, const char *end) {
    for (;;) {
        const char *q = memchr(c, '"', (size_t)(end - c));
        if (!q)
            return NULL;
        const char *b = q;
        while (b > c && b[-1] == '\\')
            b--;
        if ((q - b) % 2 == 0)
            return q;
        c = q + 1;
    }
}

/* Rows of a JSON batch `[[...],...]`: the brackets that open at depth 1,
 * outside strings. The count is the benchmark's check on every run, so it is
 * inside what a run measures: it must cost little beside the library's work. */
long bench_batch_rows(const char *json) {
    const char *end = json + strlen(json);
    long rows = 0;
    int depth = 0;
    for (const char *c = json;; c++) {
        while (!structural[(unsigned char)*c])
            c++;
        if (c == end)
            return rows;
        if (*c == '"') {
            c = string_end(c + 1, end);
            if (!c)
                return rows;
        } else if (*c == '[') {
            rows += depth++ == 1; /* a row opens at depth 1 */
        } else {
            depth--;
        }
    }
}
