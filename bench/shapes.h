/* The query shapes of spec/BENCHMARKS.md §2 on the envelope fixture (§1),
 * shared by bench_query (minigraf alone) and bench_compare (minigraf beside
 * SQLite): each shape's Datalog text, its SQL over an EAV table, and the
 * answer the fixture must give. */
#ifndef MINIGRAF_BENCH_SHAPES_H
#define MINIGRAF_BENCH_SHAPES_H

#include <stddef.h>

/* The values a shape's text is built from (BENCHMARKS.md §1). */
typedef struct params {
    long n, entities, m, leaf, tx_half, hot_half;
    long long tx_half_ms; /* the commit time of transaction tx_half */
    char tx_half_iso[40]; /* the same as an ISO-8601 text */
} params;

/* A shape: its query (placeholders, see shape_expand), the target p50 in µs
 * at every scale (0: none; at 1M only when target_1m_only), the reference
 * p50 in µs at 10M (§5; 0: none), and its SQL for bench/compare. */
typedef struct shape {
    const char *name;
    const char *query;
    double target_us;
    int target_1m_only;
    double reference_us;
    const char *sql;
    int rules; /* needs the boss rules of §1 (bench_rules runs these) */
} shape;

extern const shape SHAPES[];
extern const size_t SHAPE_COUNT;

/* The shape called `name`, or NULL. */
const shape *shape_named(const char *name);

/* Fills everything but the tx_half time (shape_set_tx_half_ms). */
void shape_params(long n, params *p);
/* Sets tx_half_ms and tx_half_iso. */
void shape_set_tx_half_ms(params *p, long long ms);
/* The rules the recursive shapes call (BENCHMARKS.md §1). */
extern const char *const BOSS_RULES[2];

/* The commit time of transaction p->tx_half in the fixture file at `path`,
 * from its fact log; -1 if it cannot be read. */
long long shape_read_tx_half_ms(const char *path, const params *p);

/* Copies `tmpl` into `out` as "(query ...)" (`wrap`) or as it is,
 * replacing {m} (middle entity), {m4} (m/4), {leaf}, {txh} (tx_half),
 * {hoth} (halfway through the hot entity's history), {ts} (ISO time of
 * tx_half) and {tsms} (the same in ms). */
void shape_expand(const char *tmpl, const params *p, int wrap, char *out, size_t size);

/* The rows the shape must give on the fixture (-1: "about", only stable). */
long shape_expected_rows(const shape *sh, const params *p);
/* The row count BENCHMARKS.md's table prints at this scale (0: none). */
long shape_table_rows(const shape *sh, long n);
/* The exact first batch of the one-row shapes whose answer is known ("" when
 * not checked), as minigraf_cursor_next_batch renders it. */
void shape_expected_text(const shape *sh, const params *p, char *out, size_t size);

/* The command line of the shape benchmarks: CACHE_DIR [N ...] [-s SHAPE]...
 * [-c] (default N: 100000 1000000). -c (bench_query): every timed run on
 * a freshly opened database, its page cache empty (a cold cache). */
typedef struct shape_args {
    const char *dir;
    long scales[8];
    int scale_count;
    char *only[64];
    int only_count;
    int cold;
} shape_args;

/* Parses argv; prints the usage and returns non-zero when it is wrong. */
int shape_parse_args(int argc, char **argv, shape_args *out);
/* Whether the command line asks for `sh` (every shape when it names none). */
int shape_selected(const shape *sh, const shape_args *a);

#endif
