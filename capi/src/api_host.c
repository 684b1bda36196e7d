/* minigraf.h: host functions. Adapts the application's callbacks
 * (minigraf_value, an error buffer) to the engine's (host/host_fns.h:
 * engine values, err), and back for results. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "base/utf8.h"
#include "db_calls.h"
#include "handles.h"

/* The application's functions of one registration. */
typedef struct api_fns {
    minigraf_predicate_fn test;
    minigraf_aggregate_init_fn init;
    minigraf_aggregate_step_fn step;
    minigraf_aggregate_finish_fn finish;
    minigraf_aggregate_release_fn release;
    void *user_data;
    void (*destroy)(void *user_data);
} api_fns;

/* One registration: its functions and its name, for messages. The
 * engine's ctx; freed by its destroy. */
typedef struct api_host {
    api_fns f;
    char name[]; /* NUL-terminated */
} api_host;

/* ---- values: engine → application ------------------------------------- */

/* Texts up to this size are lent from the stack, NUL-terminated. */
#define SMALL_TEXT 256

typedef struct lent_value {
    minigraf_value v;
    char small[SMALL_TEXT];
    char *big; /* malloc'd when the text does not fit `small` */
} lent_value;

static int lend_text(lent_value *out, const char *text, size_t len, err *e) {
    char *copy = out->small;
    if (len >= SMALL_TEXT && !(copy = out->big = malloc(len + 1)))
        return err_set(e, ERR(INT, 0), "out of memory");
    if (len)
        memcpy(copy, text, len);
    copy[len] = '\0';
    out->v.text = copy;
    out->v.text_len = len;
    return 0;
}

static int lend_value(const api_host *h, lent_value *out, const value *in, err *e) {
    memset(&out->v, 0, sizeof out->v);
    out->big = NULL;
    switch (in->type) {
    case VT_STRING: out->v.type = MINIGRAF_TYPE_STRING; break;
    case VT_KEYWORD: out->v.type = MINIGRAF_TYPE_KEYWORD; break;
    case VT_INTEGER:
        out->v.type = MINIGRAF_TYPE_INTEGER;
        out->v.integer = in->as.i;
        return 0;
    case VT_FLOAT:
        out->v.type = MINIGRAF_TYPE_FLOAT;
        out->v.real = in->as.f;
        return 0;
    case VT_BOOLEAN:
        out->v.type = MINIGRAF_TYPE_BOOLEAN;
        out->v.boolean = in->as.b;
        return 0;
    case VT_REF:
        out->v.type = MINIGRAF_TYPE_REF;
        memcpy(out->v.uuid, in->as.ref.bytes, sizeof out->v.uuid);
        return 0;
    case VT_NULL: out->v.type = MINIGRAF_TYPE_NULL; return 0;
    case VT_LIST: /* collect-set's result, read by a window after aggregation */
        return err_set(e, ERR(API, 16), "%s '%s' cannot take a list (collect-set) value",
                       h->f.test ? "predicate" : "aggregate function", h->name);
    }
    return lend_text(out, in->as.str.ptr, in->as.str.len, e);
}

static void lend_end(lent_value *v) {
    free(v->big);
}

/* ---- failures ------------------------------------------------------------ */

typedef struct error_buf {
    char text[MINIGRAF_HOST_ERROR_SIZE];
} error_buf;

/* The callback's message, made safe: NUL-terminated within the buffer and
 * valid UTF-8 (a cut multi-byte tail is dropped). */
static const char *message_of(error_buf *b, size_t *len) {
    b->text[sizeof b->text - 1] = '\0';
    size_t n = strlen(b->text);
    for (int cut = 0; cut < 4 && n > 0 && !utf8_valid(b->text, n); cut++)
        n--;
    if (!utf8_valid(b->text, n)) {
        static const char bad[] = "(the callback's message is not valid UTF-8)";
        *len = sizeof bad - 1;
        return bad;
    }
    *len = n;
    return b->text;
}

/* API-016 for a failed callback of `h` (`phase` NULL for a predicate). */
static int callback_failed(const api_host *h, const char *phase, error_buf *b, err *e) {
    size_t len;
    const char *msg = message_of(b, &len);
    const char *kind = phase ? "aggregate function" : "predicate";
    const char *in = phase ? " in " : "";
    if (len == 0)
        return err_set(e, ERR(API, 16), "%s '%s' failed%s%s", kind, h->name, in,
                       phase ? phase : "");
    return err_set(e, ERR(API, 16), "%s '%s' failed%s%s: %.*s", kind, h->name, in,
                   phase ? phase : "", (int)len, msg);
}

/* ---- the engine's callbacks ------------------------------------------- */

static int api_test(void *ctx, const value *arg, bool *out, err *e) {
    api_host *h = ctx;
    lent_value v;
    int rc = lend_value(h, &v, arg, e);
    if (rc)
        return rc;
    error_buf b;
    b.text[0] = '\0';
    int result = 0;
    if (h->f.test(h->f.user_data, &v.v, &result, b.text, sizeof b.text) != 0)
        rc = callback_failed(h, NULL, &b, e);
    lend_end(&v);
    *out = result != 0;
    return rc;
}

static int api_init(void *ctx, void **acc, err *e) {
    api_host *h = ctx;
    error_buf b;
    b.text[0] = '\0';
    *acc = NULL;
    if (h->f.init(h->f.user_data, acc, b.text, sizeof b.text) != 0)
        return callback_failed(h, "init", &b, e);
    return 0;
}

static int api_step(void *ctx, void *acc, const value *arg, err *e) {
    api_host *h = ctx;
    lent_value v;
    int rc = lend_value(h, &v, arg, e);
    if (rc)
        return rc;
    error_buf b;
    b.text[0] = '\0';
    if (h->f.step(h->f.user_data, acc, &v.v, b.text, sizeof b.text) != 0)
        rc = callback_failed(h, "step", &b, e);
    lend_end(&v);
    return rc;
}

static int bad_result(const api_host *h, const char *what, err *e) {
    return err_set(e, ERR(API, 16), "aggregate function '%s' failed in finish: finish returned %s",
                   h->name, what);
}

static int text_result(const api_host *h, const minigraf_value *r, value *out, err *e) {
    if (!r->text && r->text_len)
        return bad_result(h, "NULL text", e);
    const char *text = r->text ? r->text : "";
    if (!utf8_valid(text, r->text_len))
        return bad_result(h, "text that is not valid UTF-8", e);
    if (r->type == MINIGRAF_TYPE_KEYWORD && (r->text_len == 0 || text[0] != ':'))
        return bad_result(h, "a keyword that does not start with ':'", e);
    *out = r->type == MINIGRAF_TYPE_KEYWORD ? value_keyword(text, r->text_len)
                                            : value_string(text, r->text_len);
    return 0;
}

/* The engine value of a finish's result (text borrowed from it). */
static int take_result(const api_host *h, const minigraf_value *r, value *out, err *e) {
    switch (r->type) {
    case MINIGRAF_TYPE_NULL: *out = value_null(); return 0;
    case MINIGRAF_TYPE_INTEGER: *out = value_integer(r->integer); return 0;
    case MINIGRAF_TYPE_FLOAT: *out = value_float(r->real); return 0;
    case MINIGRAF_TYPE_BOOLEAN: *out = value_boolean(r->boolean != 0); return 0;
    case MINIGRAF_TYPE_REF: {
        uuid128 u;
        memcpy(u.bytes, r->uuid, sizeof u.bytes);
        *out = value_ref(u);
        return 0;
    }
    case MINIGRAF_TYPE_STRING:
    case MINIGRAF_TYPE_KEYWORD: return text_result(h, r, out, e);
    default: break;
    }
    char what[48];
    snprintf(what, sizeof what, "a value of unsupported type %d", (int)r->type);
    return bad_result(h, what, e);
}

static int api_finish(void *ctx, void *acc, int64_t n, value *out, err *e) {
    api_host *h = ctx;
    error_buf b;
    b.text[0] = '\0';
    minigraf_value r;
    memset(&r, 0, sizeof r);
    if (h->f.finish(h->f.user_data, acc, n, &r, b.text, sizeof b.text) != 0)
        return callback_failed(h, "finish", &b, e);
    return take_result(h, &r, out, e);
}

static void api_release(void *ctx, void *acc) {
    api_host *h = ctx;
    if (h->f.release)
        h->f.release(h->f.user_data, acc);
}

static void api_destroy(void *ctx) {
    api_host *h = ctx;
    if (h->f.destroy)
        h->f.destroy(h->f.user_data);
    free(h);
}

/* ---- registration --------------------------------------------------------- */

/* A call's outcome on `handle`: record the caller's error or clear it. */
static int finish_call(MiniGrafDb *handle, err *e) {
    if (e->code)
        return thread_errors_set(&handle->errors, e);
    thread_errors_clear(&handle->errors);
    return 0;
}

/* The checks every registration makes; on failure destroy(user_data) runs. */
static int check_call(MiniGrafDb *handle, const char *name, size_t *len, void *user_data,
                      void (*destroy)(void *), err *e) {
    int rc = 0;
    if (!handles_live(handle, HANDLE_DB))
        rc = handles_check(handle, HANDLE_DB);
    else if (api_check_text_len(name, "name", len, e) == 0 && *len == 0)
        err_set(e, ERR(API, 17), "name must not be empty");
    if ((rc || e->code) && destroy)
        destroy(user_data);
    return rc ? rc : e->code;
}

static int unregister(MiniGrafDb *handle, host_kind kind, const char *name, size_t len) {
    err e = {0};
    db_unregister_host(handle->engine, kind, name, len, &e);
    return finish_call(handle, &e);
}

/* Registers `proto` (user functions, no name) under `name`. */
static int register_host(MiniGrafDb *handle, host_kind kind, const char *name, size_t len,
                         const api_fns *proto) {
    err e = {0};
    api_host *h = malloc(sizeof *h + len + 1);
    if (!h) {
        if (proto->destroy)
            proto->destroy(proto->user_data);
        err_set(&e, ERR(INT, 0), "out of memory");
        return finish_call(handle, &e);
    }
    h->f = *proto;
    memcpy(h->name, name, len);
    h->name[len] = '\0';
    host_callbacks cb = {.destroy = api_destroy, .ctx = h};
    if (kind == HOST_PREDICATE) {
        cb.test = api_test;
    } else {
        cb.init = api_init;
        cb.step = api_step;
        cb.finish = api_finish;
        cb.release = api_release;
    }
    db_register_host(handle->engine, kind, name, len, &cb, &e);
    return finish_call(handle, &e);
}

static int predicate_call(MiniGrafDb *handle, const char *name, minigraf_predicate_fn fn,
                          void *user_data, void (*destroy)(void *user_data)) {
    err e = {0};
    size_t len = 0;
    int rc = check_call(handle, name, &len, fn ? user_data : NULL, fn ? destroy : NULL, &e);
    if (rc)
        return e.code ? finish_call(handle, &e) : rc;
    if (!fn)
        return unregister(handle, HOST_PREDICATE, name, len);
    api_fns proto = {.test = fn, .user_data = user_data, .destroy = destroy};
    return register_host(handle, HOST_PREDICATE, name, len, &proto);
}

static int aggregate_call(MiniGrafDb *handle, const char *name, minigraf_aggregate_init_fn init,
                          minigraf_aggregate_step_fn step, minigraf_aggregate_finish_fn finish,
                          minigraf_aggregate_release_fn release, void *user_data,
                          void (*destroy)(void *user_data)) {
    err e = {0};
    size_t len = 0;
    bool removing = !init && !step && !finish;
    int rc = check_call(handle, name, &len, removing ? NULL : user_data, removing ? NULL : destroy,
                        &e);
    if (rc)
        return e.code ? finish_call(handle, &e) : rc;
    if (removing)
        return unregister(handle, HOST_AGGREGATE, name, len);
    if (!init || !step || !finish) {
        if (destroy)
            destroy(user_data);
        err_set(&e, ERR(API, 17), "init, step and finish are required (all NULL unregisters)");
        return finish_call(handle, &e);
    }
    api_fns proto = {.init = init,
                     .step = step,
                     .finish = finish,
                     .release = release,
                     .user_data = user_data,
                     .destroy = destroy};
    return register_host(handle, HOST_AGGREGATE, name, len, &proto);
}

/* The registrations run as calls on the database (db_calls.h), so a close
 * waits for them; a closed one takes nothing (destroy runs, as on every
 * failure). */
int minigraf_register_predicate(MiniGrafDb *handle, const char *name, minigraf_predicate_fn fn,
                                void *user_data, void (*destroy)(void *user_data)) {
    int rc = api_db_enter(handle);
    if (rc != 0) {
        if (fn && destroy)
            destroy(user_data);
        return rc;
    }
    rc = predicate_call(handle, name, fn, user_data, destroy);
    api_db_leave(handle);
    return rc;
}

int minigraf_register_aggregate(MiniGrafDb *handle, const char *name,
                                minigraf_aggregate_init_fn init, minigraf_aggregate_step_fn step,
                                minigraf_aggregate_finish_fn finish,
                                minigraf_aggregate_release_fn release, void *user_data,
                                void (*destroy)(void *user_data)) {
    int rc = api_db_enter(handle);
    if (rc != 0) {
        if ((init || step || finish) && destroy)
            destroy(user_data);
        return rc;
    }
    rc = aggregate_call(handle, name, init, step, finish, release, user_data, destroy);
    api_db_leave(handle);
    return rc;
}
