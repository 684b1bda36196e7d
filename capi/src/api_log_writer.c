/* minigraf.h: the log writer, fed with the fact log's JSON records. */
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "base/arena.h"
#include "handles.h"
#include "json_read.h"
#include "options.h"
#include "record_json.h"

static MiniGrafLogWriter *create_writer(const char *path, const char *options_json, err *e) {
    store_options o;
    store_options_default(&o);
    o.sync = STORE_SYNC_NORMAL; /* nothing is kept before finish, which syncs */
    if (api_check_path(path, e) ||
        (options_json && api_check_text(options_json, "options_json", e)) ||
        options_parse_log_writer(options_json, &o, e))
        return NULL;
    MiniGrafLogWriter *w = calloc(1, sizeof *w);
    if (!w) {
        err_set(e, ERR(INT, 0), "out of memory");
        return NULL;
    }
    if (log_writer_create(path, &o, &w->w, e) == 0) {
        if (handles_add(w, HANDLE_LOG_WRITER))
            return w;
        log_writer_free(w->w);
        err_set(e, ERR(INT, 0), "out of memory");
    }
    free(w);
    return NULL;
}

int minigraf_log_writer_create_v2(const char *path, const char *options_json,
                                  MiniGrafLogWriter **out, char **errmsg) {
    err e = {0};
    MiniGrafLogWriter *w = NULL;
    if (errmsg)
        *errmsg = NULL;
    if (!out)
        err_set(&e, ERR(API, 17), "out must not be NULL");
    else
        w = create_writer(path, options_json, &e);
    if (out)
        *out = w;
    return w ? 0 : api_give_error(&e, errmsg);
}

/* The 0.1 form: the message only, and *error_out untouched on success. */
MiniGrafLogWriter *minigraf_log_writer_create(const char *path, const char *options_json,
                                              char **error_out) {
    MiniGrafLogWriter *w = NULL;
    char *message = NULL;
    if (minigraf_log_writer_create_v2(path, options_json, &w, error_out ? &message : NULL) != 0 &&
        error_out)
        *error_out = message;
    return w;
}

/* Starts a call: 0, or the code for a bad handle (nothing touched) or a
 * finished writer (recorded on it). */
static int writer_begin(MiniGrafLogWriter *w) {
    if (!handles_live(w, HANDLE_LOG_WRITER))
        return w ? ERR(API, 18) : ERR(API, 17);
    err_clear(&w->last);
    if (log_writer_finished(w->w))
        return err_set(&w->last, ERR(API, 18), "the log writer is already finished");
    return 0;
}

static int parse_input(MiniGrafLogWriter *w, const char *json, const char *what, arena *a,
                       json_node **n) {
    int rc = api_check_text(json, what, &w->last);
    return rc ? rc : json_parse(json, what, a, n, &w->last);
}

static int writer_append(MiniGrafLogWriter *w, const char *record_json) {
    int rc = writer_begin(w);
    if (rc != 0)
        return rc;
    arena a;
    arena_init(&a);
    json_node *n = NULL;
    fact f;
    rc = parse_input(w, record_json, "record", &a, &n);
    if (rc == 0)
        rc = record_from_json(n, &f, &w->last);
    if (rc == 0)
        rc = log_writer_append(w->w, &f, 1, &w->last);
    arena_free(&a);
    return rc;
}

/* Names the failing record of a batch in its error message. */
static int in_record(err *e, size_t index) {
    const char *message = e->message ? strchr(e->message, ' ') : NULL;
    char *copy = message ? strdup(message + 1) : NULL;
    if (copy)
        err_set(e, e->code, "record %zu of the batch: %s", index, copy);
    free(copy);
    return e->code;
}

static int read_records(MiniGrafLogWriter *w, const json_node *array, fact *facts) {
    size_t i = 0;
    for (const json_node *item = array->first; item; item = item->next, i++)
        if (record_from_json(item, &facts[i], &w->last))
            return in_record(&w->last, i);
    return 0;
}

static int writer_append_batch(MiniGrafLogWriter *w, const char *records_json) {
    int rc = writer_begin(w);
    if (rc != 0)
        return rc;
    arena a;
    arena_init(&a);
    json_node *n = NULL;
    fact *facts = NULL;
    rc = parse_input(w, records_json, "records", &a, &n);
    if (rc == 0 && n->kind != JSON_ARRAY)
        rc = err_set(&w->last, ERR(API, 17), "invalid records JSON: expected an array of records");
    if (rc == 0 && n->count > 0) {
        facts = arena_calloc(&a, n->count, sizeof *facts);
        rc = facts ? read_records(w, n, facts) : err_set(&w->last, ERR(INT, 0), "out of memory");
    }
    if (rc == 0)
        rc = log_writer_append(w->w, facts, n->count, &w->last);
    arena_free(&a);
    return rc;
}

static int writer_advance_tx_count(MiniGrafLogWriter *w, uint64_t tx_count) {
    int rc = writer_begin(w);
    return rc ? rc : log_writer_advance(w->w, tx_count, &w->last);
}

static int writer_tx_count(MiniGrafLogWriter *w, uint64_t *out) {
    if (!handles_live(w, HANDLE_LOG_WRITER))
        return w ? ERR(API, 18) : ERR(API, 17);
    err_clear(&w->last);
    if (!out)
        return err_set(&w->last, ERR(API, 17), "out must not be NULL");
    *out = log_writer_tx_count(w->w);
    return 0;
}

static int writer_finish(MiniGrafLogWriter *w) {
    int rc = writer_begin(w);
    return rc ? rc : log_writer_finish(w->w, &w->last);
}

/* The 0.1 status functions: 0 or -1, the code on the writer. */
int minigraf_log_writer_append(MiniGrafLogWriter *w, const char *record_json) {
    return API_STATUS(writer_append(w, record_json));
}

int minigraf_log_writer_append_batch(MiniGrafLogWriter *w, const char *records_json) {
    return API_STATUS(writer_append_batch(w, records_json));
}

int minigraf_log_writer_advance_tx_count(MiniGrafLogWriter *w, uint64_t tx_count) {
    return API_STATUS(writer_advance_tx_count(w, tx_count));
}

int minigraf_log_writer_tx_count(MiniGrafLogWriter *w, uint64_t *out) {
    return API_STATUS(writer_tx_count(w, out));
}

int minigraf_log_writer_finish(MiniGrafLogWriter *w) {
    return API_STATUS(writer_finish(w));
}

const char *minigraf_log_writer_last_error(const MiniGrafLogWriter *w) {
    if (!w)
        return NULL;
    if (!handles_live(w, HANDLE_LOG_WRITER))
        return API_DEAD_HANDLE;
    return w->last.message;
}

int minigraf_log_writer_last_error_code(const MiniGrafLogWriter *w) {
    if (!w)
        return ERR(API, 17);
    if (!handles_live(w, HANDLE_LOG_WRITER))
        return ERR(API, 18);
    return w->last.code;
}

void minigraf_log_writer_free(MiniGrafLogWriter *w) {
    if (!w || !handles_remove(w, HANDLE_LOG_WRITER))
        return;
    log_writer_free(w->w);
    err_clear(&w->last);
    free(w);
}
