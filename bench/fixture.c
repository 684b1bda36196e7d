/* Builder of the envelope fixture (spec/BENCHMARKS.md §1). */
#define _POSIX_C_SOURCE 200809L
#include "fixture.h"

#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>

void fixture_text_init(fixture_text *t) {
    t->cap = 1 << 16;
    t->len = 0;
    t->p = malloc(t->cap);
    if (!t->p)
        exit(1);
}

void fixture_text_free(fixture_text *t) {
    free(t->p);
    t->p = NULL;
}

void fixture_put(fixture_text *t, const char *fmt, ...) {
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if ((size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        t->cap = t->cap * 2 + (size_t)n + 64;
        t->p = realloc(t->p, t->cap);
        if (!t->p)
            exit(1);
    }
}

void fixture_run(MiniGrafDb *db, const char *text) {
    char *out = minigraf_execute(db, text);
    if (!out) {
        fprintf(stderr, "failed: %.200s\n%s\n", text, minigraf_last_error(db));
        exit(1);
    }
    minigraf_string_free(out);
}

long fixture_drain(MiniGrafCursor *c, char *first, size_t size) {
    long rows = 0;
    char *b;
    while ((b = minigraf_cursor_next_batch(c, 1000)) != NULL) {
        if (first && rows == 0)
            snprintf(first, size, "%s", b);
        rows += bench_batch_rows(b);
        minigraf_string_free(b);
    }
    if (minigraf_cursor_last_error(c)) {
        fprintf(stderr, "cursor: %s\n", minigraf_cursor_last_error(c));
        exit(1);
    }
    minigraf_cursor_free(c);
    return rows;
}

long fixture_entities(long n) {
    return n / 6;
}

long fixture_entity_txs(long n) {
    return 3 * ((fixture_entities(n) + 199) / 200);
}

long fixture_tx_half(long n) {
    return 3 * (((fixture_entities(n) + 199) / 200) / 2);
}

void fixture_path(char *out, size_t size, const char *dir, long n) {
    snprintf(out, size, "%s/envelope-%ld.graph", dir, n);
}

/* Entities [from, to) of the fixture: three transactions (plain facts,
 * status "a" with its window, status "b"). */
static void write_entities(MiniGrafDb *db, long from, long to, long entities, fixture_text *t) {
    t->len = 0;
    fixture_put(t, "(transact [");
    for (long i = from; i < to; i++) {
        fixture_put(
            t, "[:p%ld :name \"p%ld\"][:p%ld :age %ld][:p%ld :group %ld][:p%ld :follows :p%ld]", i,
            i, i, i % 90, i, i % 100, i, (7919 * i + 1) % entities);
        if (i >= 1)
            fixture_put(t, "[:p%ld :manager :p%ld]", i, i / 10);
    }
    fixture_put(t, "])");
    fixture_run(db, t->p);
    t->len = 0;
    fixture_put(t, "(transact {:valid-from \"2020-01-01\" :valid-to \"2023-01-01\"} [");
    for (long i = from; i < to; i++)
        fixture_put(t, "[:p%ld :status \"a\"]", i);
    fixture_put(t, "])");
    fixture_run(db, t->p);
    t->len = 0;
    fixture_put(t, "(transact {:valid-from \"2023-01-01\"} [");
    for (long i = from; i < to; i++)
        fixture_put(t, "[:p%ld :status \"b\"]", i);
    fixture_put(t, "])");
    fixture_run(db, t->p);
}

/* The hot entity: asserted, then 1,000 times retracted and re-asserted
 * with a new value (2,001 transactions). */
static void write_hot(MiniGrafDb *db) {
    char cmd[128];
    fixture_run(db, "(transact [[:hot :counter 0]])");
    for (int v = 1; v <= 1000; v++) {
        snprintf(cmd, sizeof cmd, "(retract [[:hot :counter %d]])", v - 1);
        fixture_run(db, cmd);
        snprintf(cmd, sizeof cmd, "(transact [[:hot :counter %d]])", v);
        fixture_run(db, cmd);
    }
}

void fixture_write_envelope(MiniGrafDb *db, long n, int checkpoints) {
    long entities = fixture_entities(n);
    fixture_text t;
    fixture_text_init(&t);
    long facts = 0, next_ckpt = 200000;
    for (long i = 0; i < entities; i += 200) {
        long to = i + 200 < entities ? i + 200 : entities;
        write_entities(db, i, to, entities, &t);
        facts += (to - i) * 7 - (i == 0); /* :p0 has no manager */
        if (checkpoints && facts >= next_ckpt) {
            minigraf_checkpoint(db);
            next_ckpt += 200000;
        }
    }
    fixture_text_free(&t);
}

/* A bulk load as docs/c-api.md recommends: synchronous "normal" (no fsync
 * per transaction; every checkpoint syncs) and explicit checkpoints. */
void fixture_build(const char *path, long n) {
    MiniGrafDb *db = minigraf_open_with_options(
        path, "{\"wal_checkpoint_threshold\": 0, \"synchronous\": \"normal\"}", NULL);
    if (!db) {
        fprintf(stderr, "cannot create %s\n", path);
        exit(1);
    }
    fixture_write_envelope(db, n, 1);
    write_hot(db);
    minigraf_checkpoint(db);
    minigraf_close(db);
}
