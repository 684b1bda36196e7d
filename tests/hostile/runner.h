/* The C runner of the hostile-input catalogue (tests/hostile/README.md):
 * what its two files share. */
#ifndef MINIGRAF_HOSTILE_RUNNER_H
#define MINIGRAF_HOSTILE_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include "minigraf.h"
#include "runner_json.h"

/* One case being run. */
typedef struct hostile {
    const char *name;
    char dir[96];     /* the case's scratch directory */
    char path[160];   /* its database file, "<dir>/db.graph" */
    char target[320]; /* the path of the last open ("" in memory) */
    MiniGrafDb *db;   /* may be a closed handle: use after close is a case */
    int open;         /* db is open */
    int read_only;    /* the last open was read-only */
    uint64_t acked;   /* transactions acknowledged by transact_until_error */
    int failures;
} hostile;

void hostile_fail(hostile *h, const char *step, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Text of a step value: a string, or {"concat": [pieces]} where a piece is
 * a string, {"repeat": s, "times": n} or {"hex": "ff00"}. Caller frees;
 * `*len` gets the byte length (the text may hold NUL bytes). NULL when the
 * value has none of these shapes. */
char *hostile_text(const jv *v, size_t *len);

/* The outcome of a call: `code` (0 for success) must be what the step's
 * "expect" names, and a failure's message must start with "[NAME] ". */
void hostile_outcome(hostile *h, const char *what, const jv *step, int code, const char *message);
/* `template` with every "{n}" replaced by n, into b (reset first). */
void hostile_fill(sbuf *b, const char *template, uint64_t n);

/* ---- threads (runner_threads.c) ---- */

/* {"close_during": "query" | "fetch" | "transact" | "checkpoint" | "close",
 *  "text": TEXT, "after_ms": n}: another thread closes the database while
 * this one repeats the call (README.md). */
void hostile_close_during(hostile *h, const jv *step);

/* ---- files (runner_files.c) ---- */

/* Copies a file; returns 0 or -1. A missing source removes the target. */
int hostile_copy(const char *from, const char *to);
/* {"damage": "truncate" | "zero" | "flip", "file": "db" | "wal",
 *  "offset": n, "length": n (zero), "bit": n (flip)}. Truncate keeps
 *  `offset` bytes. Returns 0 or -1. */
int hostile_damage(const char *path, const jv *step);
/* The size of a file, -1 if it does not exist. */
long long hostile_file_size(const char *path);
/* Removes the case directory and everything in it. */
void hostile_remove_dir(const char *dir);

#endif
