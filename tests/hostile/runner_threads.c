/* runner_threads.c — the "close_during" step of the hostile-input catalogue
 * (README.md): another thread closes the database while this one repeats a
 * call on it, until the call fails (API-013 when the close interrupted it,
 * API-018 once the close is done). The ABI makes this safe (minigraf.h,
 * "Threads"); this proves it, under ASan and TSan too. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runner.h"

/* A run that never fails means the close did not stop the calls. */
#define MAX_SECONDS 30

typedef struct closer {
    MiniGrafDb *db;
    long after_ms;
} closer;

static void *close_later(void *arg) {
    closer *c = arg;
    struct timespec t = {c->after_ms / 1000, (c->after_ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
    minigraf_close(c->db);
    return NULL;
}

/* One query read to its end: 0, or the failing call's code. */
static int read_all(MiniGrafDb *db, const char *query, const char **message,
                    MiniGrafCursor **failed) {
    MiniGrafCursor *c = minigraf_query(db, query);
    if (c == NULL) {
        *message = minigraf_last_error(db);
        return minigraf_last_error_code(db);
    }
    int rc;
    while ((rc = minigraf_cursor_step(c)) == 1)
        ;
    if (rc == 0) {
        minigraf_cursor_free(c);
        return 0;
    }
    *message = minigraf_cursor_last_error(c);
    *failed = c; /* freed by the caller once the message is read */
    return minigraf_cursor_last_error_code(c);
}

/* One round of the call: 0, or the failing call's code and message. */
static int one_call(hostile *h, const char *call, const char *text, sbuf *b, const char **message,
                    MiniGrafCursor **failed) {
    int counted = strcmp(call, "transact") == 0 || strcmp(call, "checkpoint") == 0;
    if (strcmp(call, "fetch") == 0)
        return read_all(h->db, text, message, failed);
    hostile_fill(b, text, h->acked);
    char *out = minigraf_execute(h->db, b->data);
    if (out == NULL) {
        *message = minigraf_last_error(h->db);
        return minigraf_last_error_code(h->db);
    }
    minigraf_string_free(out);
    if (counted)
        h->acked++;
    if (strcmp(call, "checkpoint") == 0 && minigraf_checkpoint(h->db) != 0) {
        *message = minigraf_last_error(h->db);
        return minigraf_last_error_code(h->db);
    }
    return 0;
}

void hostile_close_during(hostile *h, const jv *step) {
    const jv *call = jv_get(step, "close_during"), *text = jv_get(step, "text"),
             *after = jv_get(step, "after_ms");
    if (!h->open || call == NULL || call->kind != JV_STRING) {
        hostile_fail(h, "close_during", "no open database or no call");
        return;
    }
    closer c = {h->db, after && after->kind == JV_NUMBER ? strtol(after->text, NULL, 10) : 0};
    pthread_t thread;
    if (pthread_create(&thread, NULL, close_later, &c) != 0) {
        hostile_fail(h, "close_during", "pthread_create");
        return;
    }
    if (strcmp(call->text, "close") == 0) {
        minigraf_close(h->db); /* both threads at once */
    } else {
        sbuf b = {0};
        time_t start = time(NULL);
        int code = 0;
        const char *message = NULL;
        MiniGrafCursor *failed = NULL;
        while (code == 0 && time(NULL) - start < MAX_SECONDS)
            code = one_call(h, call->text, text && text->kind == JV_STRING ? text->text : "", &b,
                            &message, &failed);
        if (code == 0)
            hostile_fail(h, "close_during", "the calls never failed: the close did not stop them");
        else
            hostile_outcome(h, "close_during", step, code, message);
        minigraf_cursor_free(failed);
        sb_free(&b);
    }
    pthread_join(thread, NULL);
    h->open = 0;
}
