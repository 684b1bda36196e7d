/* query_stream: where_open → finish_open, sharing one heap-held meter. */
#include "exec/query_stream.h"

#include <stdlib.h>
#include <string.h>

#include "exec/finish.h"
#include "base/meter.h"
#include "exec/query.h"
#include "exec/query_keep.h"
#include "exec/where.h"
#include "host/host_fns.h"

struct query_stream {
    meter own;        /* the query's meter, unless a kept :where's (query_keep.h) */
    meter *m;         /* the operators keep pointers to it */
    query_keep *keep; /* held until close, or NULL */
    bool drop_keep;   /* what `keep` holds is dropped at close */
    host_scope host;  /* the host functions it resolved, until computed */
    finish_cursor *rows;
    const value *first; /* the row read at open, not handed out yet */
    err failed;         /* a detach's error, for the next call */
};

/* The first row is read at open, so that whatever fails before it (a hash
 * join's build, rule evaluation) fails minigraf_query, as it did when
 * every answer was computed at open. */
static int read_first(query_stream *qs, err *e) {
    int rc = finish_next(qs->rows, &qs->first, e);
    if (rc != 1)
        qs->first = NULL;
    return rc == 1 ? 0 : rc;
}

/* A query that calls host functions is read whole now, so that no
 * callback runs later: on another thread (a cursor is read wherever the
 * application reads it, and a writer drains streaming cursors, db.h) or
 * after its registration went. */
static int compute_host_calls(query_stream *qs, err *e) {
    if (!host_scope_calls(&qs->host) || !finish_streaming(qs->rows))
        return 0;
    int rc = finish_detach(qs->rows, qs->first != NULL, e);
    qs->first = NULL; /* now the result set's first row */
    return rc;
}

/* The rest of an open once the :find side is open (rc its outcome). */
static int open_rest(query_stream *qs, query_rules *rules, int rc, query_stream **out, err *e) {
    if (rc == 0)
        rc = read_first(qs, e);
    if (rc == 0)
        rc = compute_host_calls(qs, e);
    if (rules)
        rules->host = NULL;
    if (rc != 0) {
        qs->drop_keep = true;   /* a run that failed half-way leaves nothing kept */
        query_stream_close(qs); /* ends the scope after the operators */
        return rc;
    }
    /* Nothing is resolved after open (the operators are built) and no
     * callback runs (compute_host_calls). */
    host_scope_end(&qs->host);
    host_scope_init(&qs->host, NULL);
    *out = qs;
    return 0;
}

/* The :find side of a kept run: the kept cursor started again over the
 * re-opened :where, or a new one, kept when it can run again (it streams
 * over the kept :where and calls no host function). */
static int open_kept_finish(query_stream *qs, const ast_query *q, solution_stream *in, err *e) {
    query_keep *k = qs->keep;
    if (k->rows) {
        finish_rerun(k->rows);
        qs->rows = k->rows;
        return 0;
    }
    int rc = finish_open(q, in, qs->m, &qs->host, &qs->rows, e);
    if (rc == 0 && k->where == in && finish_streaming(qs->rows) && !host_scope_calls(&qs->host))
        query_keep_rows(k, qs->rows);
    return rc;
}

/* `spare`: a stream's memory to use again, or NULL. */
static int new_stream(query_rules *rules, size_t memory_limit, void *spare, query_stream **out,
                      err *e) {
    query_stream *qs = spare ? spare : malloc(sizeof *qs);
    if (!qs)
        return err_set(e, ERR(INT, 0), "out of memory");
    /* malloc and assign, not calloc: glibc's calloc skips its thread cache */
    *qs = (query_stream){0};
    meter_init(&qs->own, memory_limit);
    qs->m = &qs->own;
    host_scope_init(&qs->host, rules ? rules->host_fns : NULL);
    if (rules)
        rules->host = &qs->host;
    if (rules)
        meter_set_cancel(qs->m, rules->stop);
    *out = qs;
    return 0;
}

int query_stream_open(store *s, query_rules *rules, const ast_query *q, int64_t now_ms,
                      size_t memory_limit, query_stream **out, err *e) {
    *out = NULL;
    int rc = query_check(q, e);
    query_stream *qs = NULL;
    if (rc == 0)
        rc = new_stream(rules, memory_limit, NULL, &qs, e);
    if (rc != 0)
        return rc;
    solution_stream *in = NULL;
    rc = where_open(s, q, now_ms, qs->m, rules, &in, e);
    if (rc == 0)
        rc = finish_open(q, in, qs->m, &qs->host, &qs->rows, e);
    return open_rest(qs, rules, rc, out, e);
}

int query_stream_open_kept(store *s, query_rules *rules, const ast_query *q, int64_t now_ms,
                           size_t memory_limit, query_keep *k, query_stream **out, err *e) {
    if (!query_keep_take(k))
        return query_stream_open(s, rules, q, now_ms, memory_limit, out, e);
    *out = NULL;
    int rc = query_keep_check(k, q, e);
    query_stream *qs = NULL;
    if (rc == 0)
        rc = new_stream(rules, memory_limit, k->spare, &qs, e);
    if (rc != 0) {
        query_keep_give(k);
        return rc;
    }
    k->spare = NULL;
    qs->keep = k;
    qs->m = &k->m;
    solution_stream *in = NULL;
    rc = query_keep_where(k, s, q, now_ms, memory_limit, rules, &in, e);
    if (rc == 0)
        rc = open_kept_finish(qs, q, in, e);
    return open_rest(qs, rules, rc, out, e);
}

size_t query_stream_next_rows(query_stream *qs, value *out, size_t max, int *rc, err *e) {
    *rc = 0;
    if (qs->failed.code) {
        err_move(e, &qs->failed);
        *rc = e->code;
        return 0;
    }
    size_t n = 0, width = result_column_count(finish_columns(qs->rows));
    if (qs->first && max > 0) {
        if (width)
            memcpy(out, qs->first, width * sizeof *out);
        qs->first = NULL;
        n = 1;
    }
    return n + finish_next_rows(qs->rows, out + n * width, max - n, rc, e);
}

void query_stream_detach(query_stream *qs) {
    if (!finish_streaming(qs->rows))
        return; /* the rows (and `first`) are in memory already */
    finish_detach(qs->rows, qs->first != NULL, &qs->failed);
    qs->first = NULL; /* now the result set's first row */
}

void query_stream_set_cancel(query_stream *qs, cancel *c) {
    meter_set_cancel(qs->m, c);
}

bool query_stream_live(const query_stream *qs) {
    return finish_streaming(qs->rows);
}

const result_set *query_stream_columns(const query_stream *qs) {
    return finish_columns(qs->rows);
}

void query_stream_close(query_stream *qs) {
    if (!qs)
        return;
    query_keep *k = qs->keep;
    if (!k || !qs->rows || qs->rows != k->rows)
        finish_close(qs->rows);
    else if (!finish_park(qs->rows)) /* its rows were read into memory */
        qs->drop_keep = true;
    host_scope_end(&qs->host);
    err_clear(&qs->failed);
    if (!k) {
        free(qs);
        return;
    }
    if (qs->drop_keep)
        query_keep_reset(k);
    k->spare = qs; /* for the next run's stream */
    query_keep_give(k);
}
