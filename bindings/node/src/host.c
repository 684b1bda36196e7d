/*
 * host.c — host functions written in JS: predicates (db.function) and
 * aggregates (db.aggregate).
 *
 * JS signatures (index.js is the only caller):
 *   dbRegisterPredicate(db, name, fn | null, flags) -> undefined
 *   dbRegisterAggregate(db, name, start | null, step, result, flags)
 *
 * JS callbacks run only on the JS thread: a query on the thread pool (an
 * async call) that reaches one has it run there through js_call.c and
 * waits for it. A throw in a callback fails the query with API-016 and the
 * thrown message.
 */
#include "addon.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Writes the pending JS exception's message into `error` and clears it. */
static void take_exception(napi_env env, char *error, size_t size) {
    napi_value exc, message;
    size_t len = 0;
    bool is_error = false;
    if (napi_get_and_clear_last_exception(env, &exc) != napi_ok)
        return;
    napi_is_error(env, exc, &is_error);
    if (is_error && napi_get_named_property(env, exc, "message", &message) == napi_ok &&
        napi_get_value_string_utf8(env, message, error, size, &len) == napi_ok)
        return;
    if (napi_coerce_to_string(env, exc, &message) == napi_ok &&
        napi_get_value_string_utf8(env, message, error, size, &len) == napi_ok)
        return;
    napi_get_and_clear_last_exception(env, &exc);
    snprintf(error, size, "a JS exception");
}

/* ---- host functions ----------------------------------------------------------- */

/* One registered function: its JS callbacks (a predicate uses fns[0]; an
 * aggregate start, step, result) and the integer rule of its values. */
typedef struct mg_host {
    napi_env env;
    pthread_t js_thread;
    mg_js_runner run; /* for calls from pool threads */
    napi_ref fns[3];
    int flags;
    struct mg_host *next; /* on the dead list, below */
} mg_host;

/* Functions whose destroy ran off their JS thread: their references are
 * deleted by the next registration on that environment. */
static pthread_mutex_t dead_lock = PTHREAD_MUTEX_INITIALIZER;
static mg_host *dead_list;

static void host_free(mg_host *h) {
    mg_js_runner_free(&h->run);
    for (int i = 0; i < 3; i++)
        if (h->fns[i] != NULL)
            napi_delete_reference(h->env, h->fns[i]);
    free(h);
}

static void host_destroy(void *user_data) {
    mg_host *h = user_data;
    if (pthread_equal(pthread_self(), h->js_thread)) {
        host_free(h);
        return;
    }
    pthread_mutex_lock(&dead_lock);
    h->next = dead_list;
    dead_list = h;
    pthread_mutex_unlock(&dead_lock);
}

static void reap_dead(napi_env env) {
    mg_host **at, *h;
    pthread_mutex_lock(&dead_lock);
    for (at = &dead_list; (h = *at) != NULL;) {
        if (h->env == env) {
            *at = h->next;
            host_free(h);
        } else {
            at = &h->next;
        }
    }
    pthread_mutex_unlock(&dead_lock);
}

/* A minigraf_value as the JS value the function sees. */
static napi_value host_arg(napi_env env, const minigraf_value *v, int flags) {
    return mg_value_to_js(env, v->type, v->type == MINIGRAF_TYPE_BOOLEAN ? v->boolean : v->integer,
                          v->real, v->text, v->text_len, v->uuid, flags);
}

/* Calls h->fns[which](argv...) on the JS thread; false with the message in
 * `error` when it throws. */
static bool host_call(mg_host *h, int which, size_t argc, napi_value *argv, napi_value *result,
                      char *error, size_t size) {
    napi_value fn, global;
    if (napi_get_reference_value(h->env, h->fns[which], &fn) != napi_ok ||
        napi_get_global(h->env, &global) != napi_ok ||
        napi_call_function(h->env, global, fn, argc, argv, result) != napi_ok) {
        take_exception(h->env, error, size);
        return false;
    }
    return true;
}

static int predicate_cb_js(void *user_data, const minigraf_value *value, int *result, char *error,
                           size_t size) {
    mg_host *h = user_data;
    napi_handle_scope scope;
    napi_value arg, out;
    bool truth = false, ok;
    if (napi_open_handle_scope(h->env, &scope) != napi_ok)
        return 1;
    arg = host_arg(h->env, value, h->flags);
    ok = arg != NULL && host_call(h, 0, 1, &arg, &out, error, size) &&
         napi_coerce_to_bool(h->env, out, &out) == napi_ok &&
         napi_get_value_bool(h->env, out, &truth) == napi_ok;
    if (arg == NULL)
        take_exception(h->env, error, size);
    napi_close_handle_scope(h->env, scope);
    *result = truth;
    return ok ? 0 : 1;
}

/* An aggregate's accumulator: its JS state in holder[0] (a reference needs
 * an object) and the text of its last STRING / KEYWORD result. */
typedef struct mg_acc {
    napi_ref holder;
    char *text;
} mg_acc;

static int agg_init_js(void *user_data, void **acc_out, char *error, size_t size) {
    mg_host *h = user_data;
    napi_handle_scope scope;
    napi_value state, holder;
    mg_acc *acc;
    int rc = 1;
    if ((acc = calloc(1, sizeof *acc)) == NULL) {
        snprintf(error, size, "out of memory");
        return 1;
    }
    if (napi_open_handle_scope(h->env, &scope) != napi_ok) {
        free(acc);
        return 1;
    }
    if (host_call(h, 0, 0, NULL, &state, error, size) &&
        napi_create_array_with_length(h->env, 1, &holder) == napi_ok &&
        napi_set_element(h->env, holder, 0, state) == napi_ok &&
        napi_create_reference(h->env, holder, 1, &acc->holder) == napi_ok)
        rc = 0;
    napi_close_handle_scope(h->env, scope);
    if (rc != 0)
        free(acc);
    else
        *acc_out = acc;
    return rc;
}

static int agg_step_js(void *user_data, void *acc_ptr, const minigraf_value *value, char *error,
                       size_t size) {
    mg_host *h = user_data;
    mg_acc *acc = acc_ptr;
    napi_handle_scope scope;
    napi_value holder, argv[2], next;
    napi_valuetype type;
    int rc = 1;
    if (napi_open_handle_scope(h->env, &scope) != napi_ok)
        return 1;
    if (napi_get_reference_value(h->env, acc->holder, &holder) == napi_ok &&
        napi_get_element(h->env, holder, 0, &argv[0]) == napi_ok) {
        if ((argv[1] = host_arg(h->env, value, h->flags)) == NULL)
            take_exception(h->env, error, size);
        else if (host_call(h, 1, 2, argv, &next, error, size) &&
                 napi_typeof(h->env, next, &type) == napi_ok)
            rc = type == napi_undefined || napi_set_element(h->env, holder, 0, next) == napi_ok ? 0
                                                                                                : 1;
    }
    napi_close_handle_scope(h->env, scope);
    return rc;
}

/* Reads the UUID text of an Entity into 16 bytes. */
static bool parse_uuid(const char *text, uint8_t out[16]) {
    size_t at = 0;
    for (int i = 0; i < 16; i++) {
        unsigned hi, lo;
        if (text[at] == '-')
            at++;
        if (sscanf(text + at, "%1x%1x", &hi, &lo) != 2)
            return false;
        out[i] = (uint8_t)(hi << 4 | lo);
        at += 2;
    }
    return text[at] == '\0';
}

/* A property `name` of `obj` as malloc'd UTF-8. */
static char *string_property(napi_env env, napi_value obj, const char *name, size_t *len) {
    napi_value v;
    char *buf;
    if (napi_get_named_property(env, obj, name, &v) != napi_ok ||
        napi_get_value_string_utf8(env, v, NULL, 0, len) != napi_ok ||
        (buf = malloc(*len + 1)) == NULL)
        return NULL;
    napi_get_value_string_utf8(env, v, buf, *len + 1, len);
    return buf;
}

static bool is_instance(napi_env env, napi_value v, napi_ref class_ref) {
    napi_value ctor;
    bool yes = false;
    return class_ref != NULL && napi_get_reference_value(env, class_ref, &ctor) == napi_ok &&
           napi_instanceof(env, v, ctor, &yes) == napi_ok && yes;
}

/* An aggregate's JS result as a minigraf_value; texts go to acc->text. */
static bool result_value(mg_host *h, mg_acc *acc, napi_value v, minigraf_value *out, char *error,
                         size_t size) {
    napi_env env = h->env;
    napi_valuetype type;
    mg_instance *inst = mg_instance_get(env);
    size_t len = 0;
    free(acc->text);
    acc->text = NULL;
    napi_typeof(env, v, &type);
    switch (type) {
    case napi_undefined:
    case napi_null: out->type = MINIGRAF_TYPE_NULL; return true;
    case napi_boolean: {
        bool b = false;
        napi_get_value_bool(env, v, &b);
        out->type = MINIGRAF_TYPE_BOOLEAN;
        out->boolean = b;
        return true;
    }
    case napi_bigint: {
        bool lossless = false;
        napi_get_value_bigint_int64(env, v, &out->integer, &lossless);
        if (!lossless)
            break;
        out->type = MINIGRAF_TYPE_INTEGER;
        return true;
    }
    case napi_number: {
        double d = 0;
        napi_get_value_double(env, v, &d);
        if (!(h->flags & MG_ROWS_BIGINT) && d == floor(d) && fabs(d) <= 9007199254740991.0) {
            out->type = MINIGRAF_TYPE_INTEGER;
            out->integer = (int64_t)d;
        } else {
            out->type = MINIGRAF_TYPE_FLOAT;
            out->real = d;
        }
        return true;
    }
    case napi_string:
        if (napi_get_value_string_utf8(env, v, NULL, 0, &len) != napi_ok ||
            (acc->text = malloc(len + 1)) == NULL)
            break;
        napi_get_value_string_utf8(env, v, acc->text, len + 1, &len);
        if (mg_text_replaced(env, v, acc->text, len) != 0) {
            snprintf(error, size,
                     "result must be Unicode text: a string holds a lone UTF-16 surrogate");
            return false;
        }
        out->type = MINIGRAF_TYPE_STRING;
        out->text = acc->text;
        out->text_len = len;
        return true;
    case napi_object:
        if (is_instance(env, v, inst->keyword_class) &&
            (acc->text = string_property(env, v, "text", &len)) != NULL) {
            out->type = MINIGRAF_TYPE_KEYWORD;
            out->text = acc->text;
            out->text_len = len;
            return true;
        }
        if (is_instance(env, v, inst->entity_class) &&
            (acc->text = string_property(env, v, "uuid", &len)) != NULL &&
            parse_uuid(acc->text, out->uuid)) {
            out->type = MINIGRAF_TYPE_REF;
            return true;
        }
        break;
    default: break;
    }
    snprintf(error, size,
             "result must be a string, number, bigint (int64), boolean, null, "
             "Keyword or Entity");
    return false;
}

static int agg_finish_js(void *user_data, void *acc_ptr, int64_t n, minigraf_value *result,
                         char *error, size_t size) {
    mg_host *h = user_data;
    mg_acc *acc = acc_ptr;
    napi_handle_scope scope;
    napi_value holder, argv[2], out;
    int rc = 1;
    if (napi_open_handle_scope(h->env, &scope) != napi_ok)
        return 1;
    if (napi_get_reference_value(h->env, acc->holder, &holder) == napi_ok &&
        napi_get_element(h->env, holder, 0, &argv[0]) == napi_ok &&
        napi_create_int64(h->env, n, &argv[1]) == napi_ok &&
        host_call(h, 2, 2, argv, &out, error, size) &&
        result_value(h, acc, out, result, error, size))
        rc = 0;
    napi_close_handle_scope(h->env, scope);
    return rc;
}

static void agg_release_js(void *user_data, void *acc_ptr) {
    mg_host *h = user_data;
    mg_acc *acc = acc_ptr;
    if (acc == NULL)
        return;
    if (acc->holder != NULL)
        napi_delete_reference(h->env, acc->holder);
    free(acc->text);
    free(acc);
}

/* ---- the callbacks the library calls, on the thread running the query ------ */

/* One callback's arguments, run on the JS thread (run_request). */
typedef struct request {
    enum { PREDICATE, INIT, STEP, FINISH, RELEASE } op;
    mg_host *h;
    const minigraf_value *value;
    int *result;
    void **acc_out;
    void *acc;
    int64_t n;
    minigraf_value *out;
    char *error;
    size_t size;
    int rc;
} request;

static void run_request(napi_env env, void *arg) {
    request *q = arg;
    (void)env;
    switch (q->op) {
    case PREDICATE: q->rc = predicate_cb_js(q->h, q->value, q->result, q->error, q->size); break;
    case INIT: q->rc = agg_init_js(q->h, q->acc_out, q->error, q->size); break;
    case STEP: q->rc = agg_step_js(q->h, q->acc, q->value, q->error, q->size); break;
    case FINISH: q->rc = agg_finish_js(q->h, q->acc, q->n, q->out, q->error, q->size); break;
    case RELEASE: agg_release_js(q->h, q->acc); break;
    }
}

/* Runs `q` on the JS thread (at once when this is it); its result code. */
static int dispatch(request *q) {
    if (mg_js_run(&q->h->run, run_request, q))
        return q->rc;
    snprintf(q->error, q->size, "the JS thread is gone (its environment is closing)");
    return 1;
}

static int predicate_cb(void *user_data, const minigraf_value *value, int *result, char *error,
                        size_t size) {
    request q = {.op = PREDICATE,
                 .h = user_data,
                 .value = value,
                 .result = result,
                 .error = error,
                 .size = size};
    return dispatch(&q);
}

static int agg_init(void *user_data, void **acc, char *error, size_t size) {
    request q = {.op = INIT, .h = user_data, .acc_out = acc, .error = error, .size = size};
    return dispatch(&q);
}

static int agg_step(void *user_data, void *acc, const minigraf_value *value, char *error,
                    size_t size) {
    request q =
        {.op = STEP, .h = user_data, .acc = acc, .value = value, .error = error, .size = size};
    return dispatch(&q);
}

static int agg_finish(void *user_data, void *acc, int64_t n, minigraf_value *result, char *error,
                      size_t size) {
    request q = {.op = FINISH,
                 .h = user_data,
                 .acc = acc,
                 .n = n,
                 .out = result,
                 .error = error,
                 .size = size};
    return dispatch(&q);
}

/* Cannot fail: when the JS thread is gone the accumulator goes with it. */
static void agg_release(void *user_data, void *acc) {
    char error[64];
    request q = {.op = RELEASE, .h = user_data, .acc = acc, .error = error, .size = sizeof error};
    dispatch(&q);
}

/* A host from argv[first ... first + n): functions, then the flags. */
static mg_host *host_new(napi_env env, napi_value *fns, size_t n, napi_value flags_value) {
    mg_host *h;
    int flags;
    for (size_t i = 0; i < n; i++) {
        napi_valuetype type;
        if (napi_typeof(env, fns[i], &type) != napi_ok || type != napi_function) {
            napi_throw_type_error(env, NULL, "host function callbacks must be functions");
            return NULL;
        }
    }
    if (!mg_flags_arg(env, flags_value, &flags))
        return NULL;
    if ((h = calloc(1, sizeof *h)) == NULL) {
        napi_throw_error(env, NULL, "minigraf: out of memory");
        return NULL;
    }
    h->env = env;
    h->js_thread = pthread_self();
    h->flags = flags;
    if (!mg_js_runner_init(env, &h->run, mg_instance_get(env)->life)) {
        free(h);
        mg_throw_last_status(env);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        if (napi_create_reference(env, fns[i], 1, &h->fns[i]) != napi_ok) {
            host_free(h);
            mg_throw_last_status(env);
            return NULL;
        }
    }
    return h;
}

static napi_value registered(napi_env env, mg_handle *db, int rc) {
    if (rc != 0)
        return mg_throw_code(env, rc, minigraf_last_error(db->native));
    return NULL;
}

/* The arguments both registrations share: (db, name, fn | start | null,
 * ..., flags) with `nfns` functions from argv[2] and the flags last. Sets
 * `*h` to the new host function, or NULL when argv[2] is null (unregister).
 * Returns the name (the caller frees it), or NULL with a JS exception. */
static char *registration_args(napi_env env, napi_callback_info info, size_t argc, napi_value *argv,
                               int nfns, mg_handle **db, mg_host **h) {
    napi_valuetype type;
    char *name;

    *h = NULL;
    if (!mg_args(env, info, argc, argv) ||
        (*db = mg_handle_open(env, argv[0], MG_KIND_DB)) == NULL ||
        (name = mg_string_arg(env, argv[1], "name")) == NULL)
        return NULL;
    reap_dead(env);
    napi_typeof(env, argv[2], &type);
    if (type != napi_null && type != napi_undefined &&
        (*h = host_new(env, &argv[2], nfns, argv[argc - 1])) == NULL) {
        free(name);
        return NULL;
    }
    return name;
}

/* dbRegisterPredicate(db, name, fn | null, flags) */
napi_value mg_db_register_predicate(napi_env env, napi_callback_info info) {
    napi_value argv[4];
    mg_handle *db;
    mg_host *h;
    char *name = registration_args(env, info, 4, argv, 1, &db, &h);
    if (name == NULL)
        return NULL;
    int rc = minigraf_register_predicate(db->native, name, h ? predicate_cb : NULL, h,
                                         h ? host_destroy : NULL);
    free(name);
    return registered(env, db, rc);
}

/* dbRegisterAggregate(db, name, start | null, step, result, flags); start
 * null unregisters. */
napi_value mg_db_register_aggregate(napi_env env, napi_callback_info info) {
    napi_value argv[6];
    mg_handle *db;
    mg_host *h;
    char *name = registration_args(env, info, 6, argv, 3, &db, &h);
    if (name == NULL)
        return NULL;
    int rc = h ? minigraf_register_aggregate(db->native, name, agg_init, agg_step, agg_finish,
                                             agg_release, h, host_destroy)
               : minigraf_register_aggregate(db->native, name, NULL, NULL, NULL, NULL, NULL, NULL);
    free(name);
    return registered(env, db, rc);
}
