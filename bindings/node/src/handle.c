/*
 * handle.c — JS objects that own a MiniGrafDb, MiniGrafCursor,
 * MiniGrafFactLog or MiniGrafLogWriter.
 *
 * A handle object is a napi_external holding the C handle, with a type tag
 * saying which kind it is. (An external, not an object with napi_wrap:
 * unwrapping one is a field read, where napi_unwrap and the tag check of
 * an object each look up a private symbol — ~0.1 µs of every addon call;
 * Node >= 20.12 keeps an external's tag beside it, not in a property.)
 * The native handle is freed by the first of:
 *   - close() from JS (index.js calls it from Database.close / Cursor.close);
 *   - the environment's cleanup hook (process exit, worker termination);
 *   - the GC finalizer of an object nobody closed;
 * except that while async jobs are queued or running on it (`pending`), the
 * free is left to the last job to finish (a database's close() stops its
 * running jobs and keeps queued ones from starting: see mg_db_state). A job holds a reference to
 * the handle object, so the finalizer cannot run before it ends; only teardown can find a busy
 * handle, and then the handle is leaked on purpose rather than freed under a running pool thread.
 */
#include "addon.h"

#include <stdio.h>
#include <stdlib.h>

/* Random 128-bit tags; a fresh pair per kind. */
static const napi_type_tag kind_tags[MG_KIND_COUNT] = {
    [MG_KIND_DB] = {0x8a1f3c52d7e64b09ULL, 0x3e5b9d0c71a24f86ULL},
    [MG_KIND_CURSOR] = {0x5c07e2b94a1d8f63ULL, 0xb2946e1f0d3c7a58ULL},
    [MG_KIND_FACT_LOG] = {0xd3916a0e5f2c48b7ULL, 0x71c8e04b9a36f25dULL},
    [MG_KIND_LOG_WRITER] = {0x2e84b7f1c90a6d35ULL, 0xa65f13d8e2b7094cULL},
    [MG_KIND_STMT] = {0x4f0b6d2a93e1c857ULL, 0x9c3e7a5d01b8f246ULL},
    [MG_KIND_TX] = {0xe16a4c8f27d90b35ULL, 0x58d2f91b6c3a0e74ULL},
    [MG_KIND_ABORT] = {0x7b95e3018fa6d2c4ULL, 0x0d4a6e2f9b7c1853ULL},
};

static const char *const kind_names[MG_KIND_COUNT] = {
    [MG_KIND_DB] = "database",         [MG_KIND_CURSOR] = "cursor",
    [MG_KIND_FACT_LOG] = "fact log",   [MG_KIND_LOG_WRITER] = "log writer",
    [MG_KIND_STMT] = "prepared query", [MG_KIND_TX] = "transaction",
    [MG_KIND_ABORT] = "abort token",
};

/* Frees a native object of `kind`. For a log writer that was not finished
 * this abandons it: the library deletes the partial file. */
static void free_native_object(mg_kind kind, void *native) {
    switch (kind) {
    case MG_KIND_DB: minigraf_close(native); break;
    case MG_KIND_CURSOR: minigraf_cursor_free(native); break;
    case MG_KIND_FACT_LOG: minigraf_fact_log_free(native); break;
    case MG_KIND_LOG_WRITER: minigraf_log_writer_free(native); break;
    case MG_KIND_STMT: minigraf_stmt_free(native); break;
    case MG_KIND_TX: minigraf_tx_free(native); break;
    case MG_KIND_ABORT: free(native); break;
    case MG_KIND_COUNT: break;
    }
}

static void free_native(mg_handle *h) {
    if (h->native == NULL)
        return;
    free_native_object(h->kind, h->native);
    h->native = NULL;
    /* After minigraf_close: no call uses the progress handler's state now. */
    mg_db_state_free(h->env, h->db);
    h->db = NULL;
}

/* Runs when the environment goes away with the handle still open. */
static void cleanup_hook(void *arg) {
    mg_handle *h = arg;
    h->hooked = false;
    h->torn_down = true;
    h->closed = true;
    if (h->pending == 0)
        free_native(h);
}

static void release_if_idle(mg_handle *h) {
    if (!h->closed || h->pending != 0)
        return;
    free_native(h);
    if (h->hooked) {
        napi_remove_env_cleanup_hook(h->env, cleanup_hook, h);
        h->hooked = false;
    }
}

static void finalize(napi_env env, void *data, void *hint) {
    mg_handle *h = data;
    (void)env;
    (void)hint;
    if (h->pending != 0)
        return; /* teardown with a job still running: leak */
    h->closed = true;
    release_if_idle(h);
    pthread_mutex_destroy(&h->lock);
    free(h);
}

napi_value mg_handle_new(napi_env env, mg_kind kind, void *native) {
    napi_value obj;
    mg_handle *h = calloc(1, sizeof *h);

    if (h == NULL || pthread_mutex_init(&h->lock, NULL) != 0) {
        free(h);
        free_native_object(kind, native);
        napi_throw_error(env, NULL, "minigraf: out of memory");
        return NULL;
    }
    h->kind = kind;
    h->native = native;
    h->env = env;
    if (kind == MG_KIND_DB && (h->db = mg_db_state_new(env, native)) == NULL) {
        pthread_mutex_destroy(&h->lock);
        free(h);
        free_native_object(kind, native);
        napi_throw_error(env, NULL, "minigraf: out of memory");
        return NULL;
    }
    if (napi_create_external(env, h, finalize, NULL, &obj) != napi_ok) {
        h->closed = true;
        finalize(env, h, NULL);
        mg_throw_last_status(env);
        return NULL;
    }
    if (napi_type_tag_object(env, obj, &kind_tags[kind]) != napi_ok) {
        h->closed = true; /* the finalizer frees `h` */
        mg_throw_last_status(env);
        return NULL;
    }
    /* From here on the finalizer owns `h`. */
    if (napi_add_env_cleanup_hook(env, cleanup_hook, h) == napi_ok)
        h->hooked = true;
    return obj;
}

mg_handle *mg_handle_unwrap(napi_env env, napi_value value, mg_kind kind) {
    napi_valuetype type;
    bool tagged = false;
    void *data = NULL;
    char message[64];

    if (napi_typeof(env, value, &type) == napi_ok && type == napi_external &&
        napi_check_object_type_tag(env, value, &kind_tags[kind], &tagged) == napi_ok && tagged &&
        napi_get_value_external(env, value, &data) == napi_ok && data != NULL)
        return data;
    snprintf(message, sizeof message, "expected a minigraf %s handle", kind_names[kind]);
    napi_throw_type_error(env, NULL, message);
    return NULL;
}

mg_handle *mg_handle_open(napi_env env, napi_value value, mg_kind kind) {
    char message[64];
    mg_handle *h = mg_handle_unwrap(env, value, kind);
    if (h == NULL)
        return NULL;
    if (h->closed || h->native == NULL) {
        snprintf(message, sizeof message, "[API-018] the %s is closed", kind_names[kind]);
        mg_throw_code(env, MG_API_018, message);
        return NULL;
    }
    return h;
}

void mg_handle_close(mg_handle *h) {
    h->closed = true;
    if (h->kind == MG_KIND_DB && h->db != NULL)
        atomic_store(&h->db->closing, 1);
    release_if_idle(h);
}

napi_value mg_handle_close_call(napi_env env, napi_callback_info info, mg_kind kind) {
    napi_value argv[1];
    mg_handle *h;
    if (!mg_args(env, info, 1, argv) || (h = mg_handle_unwrap(env, argv[0], kind)) == NULL)
        return NULL;
    mg_handle_close(h);
    return NULL;
}

void mg_handle_job_done(mg_handle *h) {
    h->pending--;
    release_if_idle(h);
}
