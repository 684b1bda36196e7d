/*
 * cancel.c — what stops the library's calls: the progress handler,
 * interrupt and AbortSignal tokens.
 *
 * JS signatures (index.js is the only caller):
 *   dbInterrupt(db) -> undefined
 *   dbSetProgressHandler(db, every: number, fn | null) -> undefined
 *   abortNew() -> token;  abortFire(token) -> undefined
 *
 * Every database gets the addon's own progress handler when it opens. It
 * answers the AbortSignal of the async call running on its thread (a
 * thread-local flag, so aborting one call stops no other) and, on the JS
 * thread, calls the user's handler.
 */
#include "addon.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How often (units of work) the addon's handler runs without a user one:
 * often enough for an abort to land within milliseconds, rare enough to
 * cost nothing. */
#define MG_DEFAULT_PROGRESS_EVERY 1000

static _Thread_local mg_abort *tl_abort;

void mg_abort_enter(mg_abort *flag) {
    tl_abort = flag;
}
void mg_abort_leave(void) {
    tl_abort = NULL;
}

bool mg_on_js_thread(napi_env env) {
    mg_instance *inst = mg_instance_get(env);
    return inst != NULL && pthread_equal(pthread_self(), inst->js_thread);
}

/* ---- progress handler and interrupt ---------------------------------------- */

static int progress_cb(void *user_data) {
    mg_db_state *st = user_data;
    napi_handle_scope scope;
    napi_value fn, global, result;
    bool stop = false;

    if (tl_abort != NULL && atomic_load(&tl_abort->aborted))
        return 1;
    if (atomic_load(&st->closing))
        return 1;
    if (st->progress_fn == NULL || !pthread_equal(pthread_self(), st->js_thread))
        return 0;
    if (napi_open_handle_scope(st->env, &scope) != napi_ok)
        return 1;
    if (napi_get_reference_value(st->env, st->progress_fn, &fn) != napi_ok ||
        napi_get_global(st->env, &global) != napi_ok ||
        napi_call_function(st->env, global, fn, 0, NULL, &result) != napi_ok ||
        napi_coerce_to_bool(st->env, result, &result) != napi_ok ||
        napi_get_value_bool(st->env, result, &stop) != napi_ok)
        stop = true; /* a throw stops the call and propagates */
    napi_close_handle_scope(st->env, scope);
    return stop ? 1 : 0;
}

mg_db_state *mg_db_state_new(napi_env env, MiniGrafDb *db) {
    mg_db_state *st = calloc(1, sizeof *st);
    if (st == NULL)
        return NULL;
    st->env = env;
    st->js_thread = pthread_self();
    st->progress_every = MG_DEFAULT_PROGRESS_EVERY;
    minigraf_progress_handler(db, st->progress_every, progress_cb, st);
    return st;
}

void mg_db_state_free(napi_env env, mg_db_state *st) {
    if (st == NULL)
        return;
    if (st->progress_fn != NULL)
        napi_delete_reference(env, st->progress_fn);
    free(st);
}

napi_value mg_db_interrupt(napi_env env, napi_callback_info info) {
    napi_value argv[1];
    mg_handle *db;
    if (!mg_args(env, info, 1, argv) || (db = mg_handle_unwrap(env, argv[0], MG_KIND_DB)) == NULL)
        return NULL;
    if (db->native != NULL)
        minigraf_interrupt(db->native);
    return NULL;
}

napi_value mg_db_set_progress_handler(napi_env env, napi_callback_info info) {
    napi_value argv[3];
    napi_valuetype type;
    mg_handle *db;
    int32_t every = 0;
    int rc;

    if (!mg_args(env, info, 3, argv) || (db = mg_handle_open(env, argv[0], MG_KIND_DB)) == NULL)
        return NULL;
    MG_CHECK(env, napi_typeof(env, argv[2], &type));
    if (type == napi_function) {
        if (napi_get_value_int32(env, argv[1], &every) != napi_ok || every < 1)
            return mg_throw_code(env, MG_API_017,
                                 "[API-017] the progress handler's interval must be "
                                 "an integer >= 1");
    } else if (type != napi_null && type != napi_undefined) {
        napi_throw_type_error(env, NULL, "the progress handler must be a function or null");
        return NULL;
    }
    if (db->db->progress_fn != NULL)
        napi_delete_reference(env, db->db->progress_fn);
    db->db->progress_fn = NULL;
    if (type == napi_function)
        MG_CHECK(env, napi_create_reference(env, argv[2], 1, &db->db->progress_fn));
    db->db->progress_every = type == napi_function ? every : MG_DEFAULT_PROGRESS_EVERY;
    rc = minigraf_progress_handler(db->native, db->db->progress_every, progress_cb, db->db);
    if (rc != 0)
        return mg_throw_code(env, rc, minigraf_last_error(db->native));
    return NULL;
}

/* ---- abort tokens ------------------------------------------------------------- */

napi_value mg_abort_new(napi_env env, napi_callback_info info) {
    mg_abort *flag = calloc(1, sizeof *flag);
    (void)info;
    if (flag == NULL) {
        napi_throw_error(env, NULL, "minigraf: out of memory");
        return NULL;
    }
    return mg_handle_new(env, MG_KIND_ABORT, flag);
}

napi_value mg_abort_fire(napi_env env, napi_callback_info info) {
    napi_value argv[1];
    mg_handle *h;
    if (!mg_args(env, info, 1, argv) || (h = mg_handle_unwrap(env, argv[0], MG_KIND_ABORT)) == NULL)
        return NULL;
    if (h->native != NULL)
        atomic_store(&((mg_abort *)h->native)->aborted, 1);
    return NULL;
}

bool mg_abort_arg(napi_env env, napi_value value, mg_abort **out) {
    napi_valuetype type;
    mg_handle *h;
    *out = NULL;
    if (napi_typeof(env, value, &type) != napi_ok)
        return false;
    if (type == napi_undefined || type == napi_null)
        return true;
    if ((h = mg_handle_open(env, value, MG_KIND_ABORT)) == NULL)
        return false;
    *out = h->native;
    return true;
}
