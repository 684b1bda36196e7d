/*
 * js_call.c — running a function on an environment's JS thread from
 * another thread, and waiting for it: how a query on the libuv pool calls
 * a host function written in JS (host.c).
 *
 * The pool thread queues a request on a thread-safe function and waits;
 * the JS thread runs it from its event loop (the event loop is free: the
 * caller is an async call). While the environment is torn down (worker
 * exit, process exit) the JS thread may never run the request: the cleanup
 * hook sets `closing`, and a waiter that sees it gives up (the request is
 * then dropped, by reference count, by whichever side lets go last).
 */
#include "addon.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

/* How often a waiting pool thread looks at `closing`. */
#define MG_WAIT_SLICE_NS 20000000L

typedef struct request {
    mg_js_fn fn;
    void *arg;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool settled; /* the JS thread is through with it (run or dropped) */
    bool done, abandoned;
    _Atomic int refs; /* the waiter and the JS thread */
} request;

static void request_release(request *r) {
    if (atomic_fetch_sub(&r->refs, 1) != 1)
        return;
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->cond);
    free(r);
}

static void life_closing(void *arg) {
    mg_js_life *life = arg;
    atomic_store(&life->closing, 1);
}

mg_js_life *mg_js_life_new(napi_env env) {
    mg_js_life *life = calloc(1, sizeof *life);
    if (life == NULL)
        return NULL;
    atomic_store(&life->refs, 1);
    if (napi_add_env_cleanup_hook(env, life_closing, life) != napi_ok) {
        free(life);
        return NULL;
    }
    return life;
}

void mg_js_life_detach(napi_env env, mg_js_life *life) {
    if (life == NULL)
        return;
    napi_remove_env_cleanup_hook(env, life_closing, life); /* if it has not run */
    mg_js_life_release(life);
}

void mg_js_life_release(mg_js_life *life) {
    if (life != NULL && atomic_fetch_sub(&life->refs, 1) == 1)
        free(life);
}

/* JS thread (env NULL: the function is being torn down; do not run). */
static void call_js(napi_env env, napi_value js_cb, void *context, void *data) {
    request *r = data;
    (void)js_cb;
    (void)context;
    pthread_mutex_lock(&r->lock);
    if (env != NULL && !r->abandoned)
        r->fn(env, r->arg);
    r->done = env != NULL && !r->abandoned;
    r->settled = true;
    pthread_cond_signal(&r->cond);
    pthread_mutex_unlock(&r->lock);
    request_release(r);
}

bool mg_js_runner_init(napi_env env, mg_js_runner *run, mg_js_life *life) {
    napi_value name;
    run->env = env;
    run->js_thread = pthread_self();
    run->life = life;
    if (napi_create_string_utf8(env, "minigraf.hostFunction", NAPI_AUTO_LENGTH, &name) != napi_ok ||
        napi_create_threadsafe_function(env, NULL, NULL, name, 0, 1, NULL, NULL, NULL, call_js,
                                        &run->tsfn) != napi_ok)
        return false;
    napi_unref_threadsafe_function(env, run->tsfn); /* never keeps the loop alive */
    atomic_fetch_add(&life->refs, 1);
    return true;
}

void mg_js_runner_free(mg_js_runner *run) {
    if (run->tsfn != NULL)
        napi_release_threadsafe_function(run->tsfn, napi_tsfn_release);
    run->tsfn = NULL;
    mg_js_life_release(run->life);
    run->life = NULL;
}

static void deadline_after(struct timespec *t, long ns) {
    clock_gettime(CLOCK_REALTIME, t);
    t->tv_nsec += ns;
    if (t->tv_nsec >= 1000000000L) {
        t->tv_sec += 1;
        t->tv_nsec -= 1000000000L;
    }
}

bool mg_js_run(mg_js_runner *run, mg_js_fn fn, void *arg) {
    request *r;
    bool done;
    if (pthread_equal(pthread_self(), run->js_thread)) {
        fn(run->env, arg);
        return true;
    }
    if (atomic_load(&run->life->closing) || (r = calloc(1, sizeof *r)) == NULL)
        return false;
    r->fn = fn;
    r->arg = arg;
    atomic_store(&r->refs, 2);
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->cond, NULL);
    if (napi_call_threadsafe_function(run->tsfn, r, napi_tsfn_blocking) != napi_ok) {
        request_release(r);
        request_release(r);
        return false;
    }
    pthread_mutex_lock(&r->lock);
    while (!r->settled) {
        struct timespec until;
        deadline_after(&until, MG_WAIT_SLICE_NS);
        if (pthread_cond_timedwait(&r->cond, &r->lock, &until) == ETIMEDOUT && !r->settled &&
            atomic_load(&run->life->closing)) {
            r->abandoned = true;
            break;
        }
    }
    done = r->done;
    pthread_mutex_unlock(&r->lock);
    request_release(r);
    return done;
}
