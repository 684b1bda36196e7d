/* Telling the machine's stops from the program's own waits, for the
 * latency figures of the multi-threaded benchmarks.
 *
 * These shared virtual machines stop a virtual CPU now and then for
 * 20-130 ms (a trace showed no thread switched on either CPU for 68 ms;
 * another, readers' 0.05 ms sleeps lasting 38-46 ms on one CPU while the
 * other ran on), which no locking can shorten. A watch runs one thread
 * per CPU, pinned to it, that sleeps 5 ms at a time and records each
 * oversleep past 5 ms: its CPU ran something else (the benchmark's
 * threads: up to ~9 ms beside seven busy threads on two cores), or did
 * not run at all. (Waking every 1 ms on each CPU gave bench_fairness's
 * slot holder a core sooner: the writers' share rose by ten points.) The benchmark's threads note
 * on which CPU and in which millisecond each of their calls finished; an oversleep in whose whole
 * milliseconds no call finished on its CPU is a stop of that CPU. */
#ifndef MINIGRAF_BENCH_MACHINE_WATCH_H
#define MINIGRAF_BENCH_MACHINE_WATCH_H

#include <stdbool.h>
#include <stddef.h>

typedef struct machine_watch machine_watch;

/* Starts watching until `until` (bench_now_s) for `threads` benchmark
 * threads, numbered from 0; NULL when out of memory or no thread starts. */
machine_watch *machine_watch_start(double until, int threads);
/* Thread `thread` finished a call at `now` (bench_now_s), on the CPU it
 * runs on. Costs a clock-free CPU lookup and, once a millisecond, a store
 * to the thread's own memory. */
void machine_watch_progress(machine_watch *m, int thread, double now);
/* Waits for the watching threads (they end at `until`). */
void machine_watch_join(machine_watch *m);
/* After the join: the longest oversleep, in seconds. */
double machine_watch_longest(const machine_watch *m);
/* After the join: how much of [start, end] a watching thread overslept
 * (all oversleeps), or a CPU stopped (`stops_only`), in seconds, at most
 * end - start. */
double machine_watch_within(const machine_watch *m, double start, double end, bool stops_only);
void machine_watch_free(machine_watch *m);

#endif
