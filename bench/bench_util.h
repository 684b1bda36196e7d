/* Measuring helpers shared by the benchmark programs. */
#ifndef MINIGRAF_BENCH_UTIL_H
#define MINIGRAF_BENCH_UTIL_H

#include <stddef.h>

/* Seconds on the monotonic clock. */
double bench_now_s(void);
/* Peak resident set size of this process so far, in KiB (getrusage). */
long bench_peak_rss_kib(void);
/* Current resident set size in KiB (/proc/self/statm; 0 if unreadable). */
long bench_rss_kib(void);
/* Sorts `n` doubles ascending, for taking percentiles. */
void bench_sort_doubles(double *v, size_t n);
/* Rows in one JSON batch `[[...],[...]]` (brackets inside strings skipped). */
long bench_batch_rows(const char *json);

#endif
