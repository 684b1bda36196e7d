/* Counting and timing this process's fdatasync calls, for commits per
 * sync (bench_writes). A program linking sync_count.c defines fdatasync
 * itself, so the library's calls reach that definition (an executable's
 * symbol comes first in the dynamic lookup), which counts and makes the
 * system call: no statistic in the library's interface. */
#ifndef MINIGRAF_BENCH_SYNC_COUNT_H
#define MINIGRAF_BENCH_SYNC_COUNT_H

/* fdatasync calls made so far by every thread of this process. */
long sync_count(void);
/* Their total duration in seconds (overlapping calls each counted). */
double sync_seconds(void);

#endif
