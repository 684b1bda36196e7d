/* Cursors of a database (db.h): a query stream plus the parsed query it
 * refers to, listed on its database while it streams so that a change can
 * detach it first.
 *
 * Locks, in the order they are taken: the database's writer lock, its
 * gate, the mutex of one of the store's cursor lists (that list and its
 * cursors' links; a change takes them all, in order), a cursor's own
 * mutex (one read or one detach at a time). A read takes only the
 * cursor's mutex. Freeing a cursor takes its own mutex first, to know
 * whether it is still listed (the list, and the database, live while it
 * is), and only tries its list's: a change holding that list waits for
 * this cursor's mutex. */
#include "db/db_internal.h"

#include <sched.h>
#include <stdlib.h>

#include "base/clock.h"
#include "base/thread_slot.h"
#include "exec/query_stream.h"

struct db_cursor {
    pthread_mutex_t mu;
    db *d; /* while listed; under `mu` and its list's mutex */
    struct cursor_list *list;
    db_cursor *prev, *next;
    parsed_query *pq;              /* the parsed query the stream refers to */
    void (*release)(void *holder); /* or what holds it (db_cursor_open_query) */
    void *holder;
    query_rules rules;
    query_stream *qs;
};

static void unlink_cursor(db_cursor *c) {
    if (c->prev)
        c->prev->next = c->next;
    else
        c->list->head = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->d = NULL;
    c->prev = c->next = NULL;
}

static void list_cursor(db *d, db_cursor *c) {
    struct cursor_list *l = &d->sh->cursors[thread_slot() % DB_CURSOR_LISTS];
    pthread_mutex_lock(&l->mu);
    c->d = d;
    c->list = l;
    c->next = l->head;
    if (l->head)
        l->head->prev = c;
    l->head = c;
    pthread_mutex_unlock(&l->mu);
}

/* Until it is off its list (a change may be taking it off meanwhile). */
static void unlist_cursor(db_cursor *c) {
    for (;;) {
        pthread_mutex_lock(&c->mu);
        if (!c->d) {
            pthread_mutex_unlock(&c->mu);
            return;
        }
        if (pthread_mutex_trylock(&c->list->mu) == 0) {
            struct cursor_list *l = c->list;
            unlink_cursor(c);
            pthread_mutex_unlock(&l->mu);
            pthread_mutex_unlock(&c->mu);
            return;
        }
        pthread_mutex_unlock(&c->mu);
        sched_yield();
    }
}

void db_cursors_hold(db *d) {
    shared_lock_write(&d->sh->gate);
    for (int i = 0; i < DB_CURSOR_LISTS; i++) { /* every handle's on the store */
        struct cursor_list *l = &d->sh->cursors[i];
        pthread_mutex_lock(&l->mu);
        while (l->head) {
            db_cursor *c = l->head;
            pthread_mutex_lock(&c->mu);
            query_stream_detach(c->qs);
            unlink_cursor(c);
            pthread_mutex_unlock(&c->mu);
        }
        pthread_mutex_unlock(&l->mu);
    }
}

void db_cursors_release(db *d) {
    shared_lock_write_done(&d->sh->gate);
}

static int open_query_stream(db *d, db_cursor *c, const ast_query *q, query_keep *keep, err *e) {
    c->rules = db_query_rules(d);
    cancel stop;
    db_cancel_begin(d, &stop);
    c->rules.stop = &stop; /* for the open only */
    bool counted = reader_room_enter(&d->sh->room, &d->sh->writer);
    shared_lock_read(&d->sh->gate);
    size_t limit = (size_t)d->opts.query_memory_limit;
    int rc = keep ? query_stream_open_kept(d->s, &c->rules, q, clock_now_ms(), limit, keep, &c->qs,
                                           e)
                  : query_stream_open(d->s, &c->rules, q, clock_now_ms(), limit, &c->qs, e);
    c->rules.stop = NULL;
    if (c->qs)
        query_stream_set_cancel(c->qs, NULL);
    if (rc == 0 && query_stream_live(c->qs))
        list_cursor(d, c);
    shared_lock_read_done(&d->sh->gate);
    reader_room_leave(&d->sh->room, counted);
    return rc;
}

static int open_stream(db *d, db_cursor *c, const char *text, size_t len, err *e) {
    int rc = db_parse_query(d, text, len, &c->pq, e);
    if (rc != 0)
        return rc;
    return open_query_stream(d, c, &parsed_query_command(c->pq)->as.query, parsed_query_keep(c->pq),
                             e);
}

static int new_cursor(db_cursor **out, err *e) {
    db_cursor *c = malloc(sizeof *c);
    if (!c)
        return err_set(e, ERR(INT, 0), "out of memory");
    /* malloc and assign, not calloc: glibc's calloc skips its thread cache */
    *c = (db_cursor){0};
    if (pthread_mutex_init(&c->mu, NULL) != 0) {
        free(c);
        return err_set(e, ERR(INT, 0), "cannot create the cursor lock");
    }
    *out = c;
    return 0;
}

int db_cursor_open(db *d, const char *text, size_t len, db_cursor **out, err *e) {
    db_cursor *c = NULL;
    int rc = new_cursor(&c, e);
    if (rc == 0 && (rc = open_stream(d, c, text, len, e)) != 0)
        db_cursor_free(c);
    if (rc == 0)
        *out = c;
    return rc;
}

int db_cursor_open_query(db *d, const ast_query *q, query_keep *keep, void (*release)(void *holder),
                         void *holder, db_cursor **out, err *e) {
    db_cursor *c = NULL;
    int rc = new_cursor(&c, e);
    if (rc != 0) {
        release(holder);
        return rc;
    }
    c->release = release;
    c->holder = holder;
    if ((rc = open_query_stream(d, c, q, keep, e)) != 0)
        db_cursor_free(c);
    else
        *out = c;
    return rc;
}

const result_set *db_cursor_columns(const db_cursor *c) {
    return query_stream_columns(c->qs);
}

/* reader_room_enter for a cursor, under its mutex: waits with the mutex
 * let go, so that a change detaching the cursor never waits for this. */
static bool enter_room(db_cursor *c) {
    if (!c->d || !db_writer_running(&c->d->sh->writer))
        return false;
    reader_room_wait s = {0};
    while (c->d) {
        reader_room_step step = reader_room_try(&c->d->sh->room, &c->d->sh->writer, &s);
        if (step != READER_ROOM_WAIT)
            return step == READER_ROOM_IN;
        pthread_mutex_unlock(&c->mu);
        reader_room_pause(&s);
        pthread_mutex_lock(&c->mu);
    }
    return false;
}

/* One lock and one cancel around every block of the call (an interrupt or
 * the timeout applies to the whole call). */
size_t db_cursor_read_blocks(db_cursor *c, value *out, size_t block, size_t max_rows,
                             db_rows_fn keep, void *ctx, int *rc, err *e) {
    pthread_mutex_lock(&c->mu);
    bool counted = enter_room(c);
    cancel stop;
    if (c->d) {
        db_cancel_begin(c->d, &stop);
        query_stream_set_cancel(c->qs, &stop);
    }
    size_t total = 0;
    *rc = 0;
    while (total < max_rows) {
        size_t ask = max_rows - total < block ? max_rows - total : block;
        size_t n = query_stream_next_rows(c->qs, out, ask, rc, e);
        if (n > 0)
            keep(ctx, out, n);
        total += n;
        if (*rc != 0 || n < ask)
            break;
    }
    if (c->d)
        query_stream_set_cancel(c->qs, NULL);
    if (counted) /* c->d stayed: it changes only under c->mu */
        reader_room_leave(&c->d->sh->room, true);
    pthread_mutex_unlock(&c->mu);
    return total;
}

size_t db_cursor_read_rows(db_cursor *c, value *out, size_t max_rows, db_rows_fn keep, void *ctx,
                           int *rc, err *e) {
    return db_cursor_read_blocks(c, out, max_rows, max_rows, keep, ctx, rc, e);
}

void db_cursor_free(db_cursor *c) {
    if (!c)
        return;
    unlist_cursor(c);
    query_stream_close(c->qs);
    parsed_query_release(c->pq);
    if (c->release)
        c->release(c->holder);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

int db_cursor_open_read(db *d, store *s, int64_t now_ms, const char *text, size_t len,
                        db_cursor **out, err *e) {
    db_cursor *c = NULL;
    int rc = new_cursor(&c, e);
    if (rc != 0)
        return rc;
    rc = db_parse_query(d, text, len, &c->pq, e);
    if (rc == 0) {
        c->rules = db_query_rules(d);
        rc = query_stream_open(s, &c->rules, &parsed_query_command(c->pq)->as.query, now_ms,
                               (size_t)d->opts.query_memory_limit, &c->qs, e);
    }
    if (rc == 0)
        query_stream_detach(c->qs);
    if (rc != 0) {
        db_cursor_free(c);
        return rc;
    }
    *out = c;
    return 0;
}
