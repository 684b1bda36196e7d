/* minigraf.h: database handles, execute, counters, errors. */
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "base/buf.h"
#include "db_calls.h"
#include "base/utf8.h"
#include "handles.h"
#include "json_write.h"
#include "options.h"

int api_check_text_len(const char *text, const char *what, size_t *len, err *e) {
    if (!text)
        return err_set(e, ERR(API, 17), "%s must not be NULL", what);
    *len = strlen(text);
    if (!utf8_valid(text, *len))
        return err_set(e, ERR(API, 17), "%s is not valid UTF-8", what);
    return 0;
}

int api_check_text(const char *text, const char *what, err *e) {
    size_t len = 0;
    return api_check_text_len(text, what, &len, e);
}

/* An empty path once meant an in-memory database, and everything written
 * to it was lost at close unnoticed (issue 20). */
int api_check_path(const char *path, err *e) {
    int rc = api_check_text(path, "path", e);
    if (rc == 0 && !*path)
        rc = err_set(e, ERR(API, 17),
                     "path must not be empty (an in-memory database is "
                     "minigraf_open_in_memory)");
    return rc;
}

static MiniGrafDb *open_db(const char *path, const db_options *o, err *e) {
    MiniGrafDb *h = api_db_alloc();
    if (!h) {
        err_set(e, ERR(INT, 0), "out of memory");
        return NULL;
    }
    if (db_open(path, o, &h->engine, e) == 0) {
        thread_errors_init(&h->errors);
        if (api_db_publish(h))
            return h;
        thread_errors_destroy(&h->errors);
        db_close(h->engine);
        err_set(e, ERR(INT, 0), "out of memory");
    }
    api_db_recycle(h);
    return NULL;
}

/* Hands a constructor's error to the caller: the message (which the caller
 * frees) into *errmsg when it asked for it; returns the code. */
int api_give_error(err *e, char **errmsg) {
    int code = e->code;
    if (errmsg) {
        *errmsg = e->message;
        e->message = NULL;
    }
    err_clear(e);
    return code;
}

int minigraf_open_v2(const char *path, const char *options_json, MiniGrafDb **out, char **errmsg) {
    err e = {0};
    db_options o;
    db_options_default(&o);
    MiniGrafDb *h = NULL;
    if (errmsg)
        *errmsg = NULL;
    if (!out)
        err_set(&e, ERR(API, 17), "out must not be NULL");
    else if (!(path && api_check_path(path, &e)) &&
             !(options_json && api_check_text(options_json, "options_json", &e)) &&
             !options_parse(options_json, &o, &e))
        h = open_db(path, &o, &e);
    if (out)
        *out = h;
    return h ? 0 : api_give_error(&e, errmsg);
}

/* The 0.1 form: the message only, and *error_out untouched on success. */
MiniGrafDb *minigraf_open_with_options(const char *path, const char *options_json,
                                       char **error_out) {
    MiniGrafDb *h = NULL;
    char *message = NULL;
    if (minigraf_open_v2(path, options_json, &h, error_out ? &message : NULL) != 0 && error_out)
        *error_out = message;
    return h;
}

MiniGrafDb *minigraf_open(const char *path) {
    if (!path || !*path)
        return NULL;
    return minigraf_open_with_options(path, NULL, NULL);
}

MiniGrafDb *minigraf_open_in_memory(void) {
    return minigraf_open_with_options(NULL, NULL, NULL);
}

void minigraf_close(MiniGrafDb *h) {
    api_db_close(h);
}

/* A call's outcome on `h`: record the caller's error or clear it. */
static int finish(MiniGrafDb *h, err *e) {
    if (e->code)
        return thread_errors_set(&h->errors, e);
    thread_errors_clear(&h->errors);
    return 0;
}

static char *render_result(const db_result *r) {
    buf out;
    buf_init(&out);
    switch (r->kind) {
    case DB_RESULT_TRANSACTED:
        buf_puts(&out, "{\"transacted\":");
        json_write_integer(&out, r->tx_id);
        buf_putc(&out, '}');
        break;
    case DB_RESULT_RETRACTED:
        buf_puts(&out, "{\"retracted\":");
        json_write_integer(&out, r->tx_id);
        buf_putc(&out, '}');
        break;
    case DB_RESULT_OK: buf_puts(&out, "{\"ok\":true}"); break;
    case DB_RESULT_QUERY:
        buf_puts(&out, "{\"variables\":");
        json_write_columns(&out, r->rows);
        buf_puts(&out, ",\"results\":");
        json_write_rows(&out, r->rows, 0, result_row_count(r->rows), 0);
        buf_putc(&out, '}');
        break;
    }
    return buf_detach(&out);
}

char *api_render_result(const db_result *r) {
    return render_result(r);
}

char *minigraf_execute(MiniGrafDb *h, const char *text) {
    if (api_db_enter(h) != 0)
        return NULL;
    err e = {0};
    char *json = NULL;
    db_result r = {0};
    size_t len = 0;
    if (api_check_text_len(text, "text", &len, &e) == 0 &&
        db_execute(h->engine, text, len, &r, &e) == 0) {
        json = render_result(&r);
        result_free(r.rows);
        if (!json)
            err_set(&e, ERR(INT, 0), "out of memory");
    }
    finish(h, &e);
    api_db_leave(h);
    return json;
}

/* 0.1 status functions return 0 or -1 (api.h: API_STATUS); the code is
 * on the handle. */
int minigraf_current_tx_count(MiniGrafDb *h, uint64_t *out) {
    if (api_db_enter(h) != 0)
        return -1;
    err e = {0};
    if (!out)
        err_set(&e, ERR(API, 17), "out must not be NULL");
    else
        *out = db_tx_count(h->engine);
    int rc = finish(h, &e);
    api_db_leave(h);
    return API_STATUS(rc);
}

int minigraf_checkpoint(MiniGrafDb *h) {
    if (api_db_enter(h) != 0)
        return -1;
    err e = {0};
    db_checkpoint(h->engine, &e);
    int rc = finish(h, &e);
    api_db_leave(h);
    return API_STATUS(rc);
}

const char *minigraf_last_error(const MiniGrafDb *h) {
    if (!h)
        return NULL; /* the 0.1 convention */
    int rc = api_db_enter(h);
    if (rc != 0)
        return handles_dead_message(rc);
    const err *e = thread_errors_get(&((MiniGrafDb *)h)->errors);
    api_db_leave(h);
    return e ? e->message : NULL;
}

int minigraf_last_error_code(const MiniGrafDb *h) {
    int rc = api_db_enter(h);
    if (rc != 0)
        return rc;
    const err *e = thread_errors_get(&((MiniGrafDb *)h)->errors);
    rc = e ? e->code : 0;
    api_db_leave(h);
    return rc;
}

void minigraf_string_free(char *s) {
    free(s);
}
