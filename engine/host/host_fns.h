/* Host functions (language.md §12, §10.5, §11.2): the predicates and aggregates an
 * application registers on a database, called back while its queries run.
 *
 * The engine sees a host function as a table of callbacks over engine
 * values (host_callbacks); the C API adapts them to minigraf.h's types
 * (capi/src/api_host.c). Three objects:
 *
 *   host_fn        one registration: a name, a kind, its callbacks.
 *                  Reference counted: the registry holds one reference,
 *                  every query that resolved the name holds one more, so
 *                  unregistering while another thread's query runs is
 *                  safe; the callbacks' destroy runs when the last goes.
 *   host_registry  a database's registrations (in memory only, language.md §12),
 *                  one namespace for both kinds, behind a mutex.
 *   host_scope     one query's view: each name is looked up once, at plan
 *                  time, and the answer (a function or "none") is kept
 *                  until the query ends, so a query sees one resolution
 *                  however the registry changes meanwhile, and the next
 *                  query looks again (nothing is cached across queries).
 *
 * Callbacks run on the thread that runs the query (the engine has no
 * threads of its own). Their failures are errors of the query: the
 * callback sets `e` (the adapter's code; the C API uses API-016). */
#ifndef MG_HOST_HOST_FNS_H
#define MG_HOST_HOST_FNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "model/value.h"

typedef enum host_kind { HOST_PREDICATE, HOST_AGGREGATE } host_kind;

/* Values passed in are resolved (never stored values) and borrowed for
 * the call. */
typedef struct host_callbacks {
    /* PREDICATE: the truth of the predicate for `arg`. */
    int (*test)(void *ctx, const value *arg, bool *out, err *e);
    /* AGGREGATE: a new accumulator; values added one by one; the result
     * of the values so far (callable again after more steps: a window
     * asks after every row), whose text `out` borrows until the next
     * call on `acc`; release frees the accumulator (exactly once per
     * init that succeeded, also when the query fails; may be NULL). */
    int (*init)(void *ctx, void **acc, err *e);
    int (*step)(void *ctx, void *acc, const value *v, err *e);
    int (*finish)(void *ctx, void *acc, int64_t n, value *out, err *e);
    void (*release)(void *ctx, void *acc);
    /* Both: frees ctx when the last reference to the function goes. */
    void (*destroy)(void *ctx);
    void *ctx;
} host_callbacks;

typedef struct host_fn host_fn;

const host_callbacks *host_fn_callbacks(const host_fn *f);
/* Drops a reference taken by host_scope_find (through host_scope_end). */
void host_fn_release(host_fn *f);

typedef struct host_registry host_registry;

int host_registry_new(host_registry **out, err *e);
/* Drops the registry's references (a function still used by a query is
 * destroyed when that query ends). NULL is a no-op. */
void host_registry_free(host_registry *r);

/* Adds `name` (its `len` bytes) of `kind`. The registry takes `cb` in
 * every case: on failure cb->destroy(cb->ctx) has run before it returns.
 * Errors: API-021 when a host function of either kind has the name
 * (`predicate '<name>' is already registered` or `aggregate function
 * '<name>' is already registered`, after the existing one's kind);
 * INT-000 out of memory. Built-in names are the caller's to refuse. */
int host_registry_add(host_registry *r, host_kind kind, const char *name, size_t len,
                      const host_callbacks *cb, err *e);
/* Removes the function of `kind` named so; its destroy runs now, or when
 * the last query using it ends. Returns false when there is none. */
bool host_registry_remove(host_registry *r, host_kind kind, const char *name, size_t len);

/* ---- one query's resolutions --------------------------------------------- */

typedef struct host_use {
    host_kind kind;
    const char *name; /* borrowed from the query's AST */
    size_t len;
    host_fn *fn; /* a reference, or NULL: not registered */
} host_use;

typedef struct host_scope {
    host_registry *reg; /* NULL: no host functions */
    host_use *uses;
    size_t count, cap;
    size_t held; /* uses with a function */
} host_scope;

void host_scope_init(host_scope *s, host_registry *reg);
/* The function of `kind` named so for this query, or NULL in *out when
 * none is registered (a function of the other kind does not count).
 * `name` must live as long as the scope. Returns 0, or INT-000. `s` may
 * be NULL (no functions). */
int host_scope_find(host_scope *s, host_kind kind, const char *name, size_t len,
                    const host_fn **out, err *e);
/* Whether the query resolved some function (then it calls back). */
static inline bool host_scope_calls(const host_scope *s) {
    return s && s->held > 0;
}
/* Lets go of every resolution (destroys what was unregistered meanwhile);
 * the scope may be used again. */
void host_scope_end(host_scope *s);

#endif
