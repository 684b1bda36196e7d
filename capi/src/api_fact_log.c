/* minigraf.h: the fact log, streamed as batches of typed JSON records. */
#include <stdlib.h>

#include "api.h"
#include "base/arena.h"
#include "base/buf.h"
#include "db_calls.h"
#include "handles.h"
#include "json_read.h"
#include "json_write.h"
#include "record_json.h"

static int parse_filter(const char *json, arena *a, fact_log_filter *f, err *e) {
    fact_log_filter_default(f);
    if (!json)
        return 0;
    json_node *n = NULL;
    int rc = api_check_text(json, "filter_json", e);
    if (rc == 0)
        rc = json_parse(json, "fact log filter", a, &n, e);
    if (rc == 0)
        rc = filter_from_json(n, a, f, e);
    return rc;
}

static MiniGrafFactLog *open_log(MiniGrafDb *h, const fact_log_filter *f, err *e) {
    MiniGrafFactLog *l = calloc(1, sizeof *l);
    if (!l) {
        err_set(e, ERR(INT, 0), "out of memory");
        return NULL;
    }
    if (fact_log_open(db_store(h->engine), f, &l->log, e) == 0) {
        if (handles_add(l, HANDLE_FACT_LOG)) {
            l->db = h;
            api_db_retain(h);
            return l;
        }
        fact_log_close(l->log);
        err_set(e, ERR(INT, 0), "out of memory");
    }
    free(l);
    return NULL;
}

MiniGrafFactLog *minigraf_fact_log(MiniGrafDb *h, const char *filter_json) {
    if (api_db_enter(h) != 0)
        return NULL;
    err e = {0};
    arena a;
    arena_init(&a);
    fact_log_filter f;
    MiniGrafFactLog *l = NULL;
    if (parse_filter(filter_json, &a, &f, &e) == 0)
        l = open_log(h, &f, &e);
    arena_free(&a);
    if (e.code)
        thread_errors_set(&h->errors, &e);
    else
        thread_errors_clear(&h->errors);
    api_db_leave(h);
    return l;
}

typedef struct batch {
    buf out;
    size_t records;
} batch;

static int write_record(void *ctx, const fact *f, err *e) {
    batch *b = ctx;
    buf_putc(&b->out, b->records++ ? ',' : '[');
    json_write_fact(&b->out, f);
    return b->out.oom ? err_set(e, ERR(INT, 0), "out of memory") : 0;
}

/* Runs one batch with the database held open; NULL at the end or on error. */
static char *read_batch(MiniGrafFactLog *l, size_t max_records) {
    batch b = {.records = 0};
    buf_init(&b.out);
    size_t produced = 0;
    int rc;
    if (api_db_enter_held(l->db) == 0) { /* close waits for the batch */
        rc = fact_log_next(l->log, max_records, write_record, &b, &produced, &l->last);
        api_db_leave(l->db);
    } else {
        rc = err_set(&l->last, ERR(API, 18), "the database of this fact log was closed");
    }
    if (rc == 0 && produced > 0) {
        buf_putc(&b.out, ']');
        char *json = buf_detach(&b.out);
        if (json)
            return json;
        err_set(&l->last, ERR(INT, 0), "out of memory");
    }
    buf_free(&b.out);
    return NULL;
}

char *minigraf_fact_log_next_batch(MiniGrafFactLog *l, size_t max_records) {
    if (!handles_live(l, HANDLE_FACT_LOG))
        return NULL;
    err_clear(&l->last);
    if (fact_log_done(l->log))
        return NULL;
    return read_batch(l, max_records == 0 ? 1 : max_records);
}

const char *minigraf_fact_log_last_error(const MiniGrafFactLog *l) {
    if (!l)
        return NULL;
    if (!handles_live(l, HANDLE_FACT_LOG))
        return API_DEAD_HANDLE;
    return l->last.message;
}

int minigraf_fact_log_last_error_code(const MiniGrafFactLog *l) {
    if (!l)
        return ERR(API, 17);
    if (!handles_live(l, HANDLE_FACT_LOG))
        return ERR(API, 18);
    return l->last.code;
}

void minigraf_fact_log_free(MiniGrafFactLog *l) {
    if (!l || !handles_remove(l, HANDLE_FACT_LOG))
        return;
    fact_log_close(l->log);
    api_db_release(l->db);
    err_clear(&l->last);
    free(l);
}
