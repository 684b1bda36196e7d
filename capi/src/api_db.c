/* minigraf.h: database handles, execute, counters, errors. */
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "base/buf.h"
#include "base/utf8.h"
#include "handles.h"
#include "json_write.h"
#include "options.h"

int api_check_text_len(const char *text, const char *what, size_t *len, err *e)
{
    if (!text)
        return err_set(e, ERR(API, 17), "%s must not be NULL", what);
    *len = strlen(text);
    if (!utf8_valid(text, *len))
        return err_set(e, ERR(API, 17), "%s is not valid UTF-8", what);
    return 0;
}

int api_check_text(const char *text, const char *what, err *e)
{
    size_t len = 0;
    return api_check_text_len(text, what, &len, e);
}

static MiniGrafDb *open_db(const char *path, const db_options *o, err *e)
{
    MiniGrafDb *h = calloc(1, sizeof *h);
    if (!h) {
        err_set(e, ERR(INT, 0), "out of memory");
        return NULL;
    }
    if (pthread_rwlock_init(&h->use, NULL) != 0) {
        free(h);
        err_set(e, ERR(INT, 0), "cannot create the handle lock");
        return NULL;
    }
    if (db_open(path, o, &h->engine, e) == 0) {
        thread_errors_init(&h->errors);
        if (handles_add(h, HANDLE_DB))
            return h;
        thread_errors_destroy(&h->errors);
        db_close(h->engine);
        err_set(e, ERR(INT, 0), "out of memory");
    }
    pthread_rwlock_destroy(&h->use);
    free(h);
    return NULL;
}

/* Hands a constructor's error to the caller: the message (which the caller
 * frees) into *errmsg when it asked for it; returns the code. */
int api_give_error(err *e, char **errmsg)
{
    int code = e->code;
    if (errmsg) {
        *errmsg = e->message;
        e->message = NULL;
    }
    err_clear(e);
    return code;
}

int minigraf_open_v2(const char *path, const char *options_json, MiniGrafDb **out, char **errmsg)
{
    err e = {0};
    db_options o;
    db_options_default(&o);
    MiniGrafDb *h = NULL;
    if (errmsg)
        *errmsg = NULL;
    if (!out)
        err_set(&e, ERR(API, 17), "out must not be NULL");
    else if (!(path && api_check_text(path, "path", &e)) &&
             !(options_json && api_check_text(options_json, "options_json", &e)) &&
             !options_parse(options_json, &o, &e))
        h = open_db(path && *path ? path : NULL, &o, &e);
    if (out)
        *out = h;
    return h ? 0 : api_give_error(&e, errmsg);
}

/* The 0.1 form: the message only, and *error_out untouched on success. */
MiniGrafDb *minigraf_open_with_options(const char *path, const char *options_json,
                                       char **error_out)
{
    MiniGrafDb *h = NULL;
    char *message = NULL;
    if (minigraf_open_v2(path, options_json, &h, error_out ? &message : NULL) != 0 && error_out)
        *error_out = message;
    return h;
}

MiniGrafDb *minigraf_open(const char *path)
{
    if (!path || !*path)
        return NULL;
    return minigraf_open_with_options(path, NULL, NULL);
}

MiniGrafDb *minigraf_open_in_memory(void)
{
    return minigraf_open_with_options(NULL, NULL, NULL);
}

static void db_handle_free(MiniGrafDb *h)
{
    thread_errors_destroy(&h->errors);
    pthread_rwlock_destroy(&h->use);
    free(h);
}

void api_db_retain(MiniGrafDb *h)
{
    pthread_rwlock_wrlock(&h->use);
    h->fact_logs++;
    pthread_rwlock_unlock(&h->use);
}

void api_db_release(MiniGrafDb *h)
{
    pthread_rwlock_wrlock(&h->use);
    bool last = --h->fact_logs == 0 && !h->engine;
    pthread_rwlock_unlock(&h->use);
    if (last)
        db_handle_free(h);
}

void minigraf_close(MiniGrafDb *h)
{
    if (!h || !handles_remove(h, HANDLE_DB))
        return;
    pthread_rwlock_wrlock(&h->use);
    db_close(h->engine);
    h->engine = NULL;
    bool last = h->fact_logs == 0;
    pthread_rwlock_unlock(&h->use);
    if (last)
        db_handle_free(h);
}

/* A call's outcome on `h`: record the caller's error or clear it. */
static int finish(MiniGrafDb *h, err *e)
{
    if (e->code)
        return thread_errors_set(&h->errors, e);
    thread_errors_clear(&h->errors);
    return 0;
}

static char *render_result(const db_result *r)
{
    buf out;
    buf_init(&out);
    switch (r->kind) {
    case DB_RESULT_TRANSACTED:
        buf_printf(&out, "{\"transacted\":%lld}", (long long)r->tx_id);
        break;
    case DB_RESULT_RETRACTED:
        buf_printf(&out, "{\"retracted\":%lld}", (long long)r->tx_id);
        break;
    case DB_RESULT_OK:
        buf_puts(&out, "{\"ok\":true}");
        break;
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

char *api_render_result(const db_result *r)
{
    return render_result(r);
}

char *minigraf_execute(MiniGrafDb *h, const char *text)
{
    if (!handles_live(h, HANDLE_DB))
        return NULL;
    err e = {0};
    char *json = NULL;
    db_result r = {0};
    size_t len = 0;
    if (api_check_text_len(text, "text", &len, &e) == 0 && db_execute(h->engine, text, len, &r, &e) == 0) {
        json = render_result(&r);
        result_free(r.rows);
        if (!json)
            err_set(&e, ERR(INT, 0), "out of memory");
    }
    finish(h, &e);
    return json;
}

/* 0.1 status functions return 0 or -1 (api.h: API_STATUS); the code is
 * on the handle. */
int minigraf_current_tx_count(MiniGrafDb *h, uint64_t *out)
{
    if (!handles_live(h, HANDLE_DB))
        return -1;
    err e = {0};
    if (!out)
        err_set(&e, ERR(API, 17), "out must not be NULL");
    else
        *out = db_tx_count(h->engine);
    return API_STATUS(finish(h, &e));
}

int minigraf_checkpoint(MiniGrafDb *h)
{
    if (!handles_live(h, HANDLE_DB))
        return -1;
    err e = {0};
    db_checkpoint(h->engine, &e);
    return API_STATUS(finish(h, &e));
}

const char *minigraf_last_error(const MiniGrafDb *h)
{
    if (!h)
        return NULL;
    if (!handles_live(h, HANDLE_DB))
        return API_DEAD_HANDLE;
    const err *e = thread_errors_get(&((MiniGrafDb *)h)->errors);
    return e ? e->message : NULL;
}

int minigraf_last_error_code(const MiniGrafDb *h)
{
    if (!h)
        return ERR(API, 17);
    if (!handles_live(h, HANDLE_DB))
        return ERR(API, 18);
    const err *e = thread_errors_get(&((MiniGrafDb *)h)->errors);
    return e ? e->code : 0;
}

void minigraf_string_free(char *s)
{
    free(s);
}
