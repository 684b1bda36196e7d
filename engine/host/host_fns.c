/* The host function registry and per-query scopes (host_fns.h). */
#include "host/host_fns.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"

struct host_fn {
    atomic_size_t refs;
    host_kind kind;
    host_callbacks cb;
    size_t len;
    host_fn *next; /* the registry's list */
    char name[];   /* len bytes + NUL */
};

struct host_registry {
    pthread_mutex_t lock;
    host_fn *fns;
};

const host_callbacks *host_fn_callbacks(const host_fn *f) {
    return &f->cb;
}

static void host_fn_retain(host_fn *f) {
    atomic_fetch_add_explicit(&f->refs, 1, memory_order_relaxed);
}

/* The last reference runs destroy, outside every lock: it may call back
 * into the library. */
void host_fn_release(host_fn *f) {
    if (atomic_fetch_sub_explicit(&f->refs, 1, memory_order_acq_rel) != 1)
        return;
    if (f->cb.destroy)
        f->cb.destroy(f->cb.ctx);
    free(f);
}

int host_registry_new(host_registry **out, err *e) {
    host_registry *r = malloc(sizeof *r);
    if (!r)
        return err_set(e, ERR(INT, 0), "out of memory");
    r->fns = NULL;
    if (pthread_mutex_init(&r->lock, NULL) != 0) {
        free(r);
        return err_set(e, ERR(INT, 0), "cannot create the host function registry lock");
    }
    *out = r;
    return 0;
}

void host_registry_free(host_registry *r) {
    if (!r)
        return;
    host_fn *f = r->fns;
    r->fns = NULL;
    while (f) {
        host_fn *next = f->next;
        host_fn_release(f);
        f = next;
    }
    pthread_mutex_destroy(&r->lock);
    free(r);
}

/* The function named so, of either kind; the lock is held. */
static host_fn **find_named(host_registry *r, const char *name, size_t len) {
    host_fn **at = &r->fns;
    while (*at && !((*at)->len == len && memcmp((*at)->name, name, len) == 0))
        at = &(*at)->next;
    return at;
}

static int clash(err *e, host_kind existing, const char *name, size_t len) {
    if (existing == HOST_PREDICATE)
        return err_set(e, ERR(API, 21), "predicate '%.*s' is already registered", (int)len, name);
    return err_set(e, ERR(API, 21), "aggregate function '%.*s' is already registered", (int)len,
                   name);
}

int host_registry_add(host_registry *r, host_kind kind, const char *name, size_t len,
                      const host_callbacks *cb, err *e) {
    host_fn *f = malloc(sizeof *f + len + 1);
    if (!f) {
        if (cb->destroy)
            cb->destroy(cb->ctx);
        return err_set(e, ERR(INT, 0), "out of memory");
    }
    atomic_init(&f->refs, 1);
    f->kind = kind;
    f->cb = *cb;
    f->len = len;
    memcpy(f->name, name, len);
    f->name[len] = '\0';
    pthread_mutex_lock(&r->lock);
    host_fn **at = find_named(r, name, len);
    host_fn *taken = *at;
    if (!taken) {
        f->next = r->fns;
        r->fns = f;
    }
    host_kind taken_kind = taken ? taken->kind : kind;
    pthread_mutex_unlock(&r->lock);
    if (!taken)
        return 0;
    host_fn_release(f);
    return clash(e, taken_kind, name, len);
}

bool host_registry_remove(host_registry *r, host_kind kind, const char *name, size_t len) {
    pthread_mutex_lock(&r->lock);
    host_fn **at = find_named(r, name, len);
    host_fn *f = *at && (*at)->kind == kind ? *at : NULL;
    if (f)
        *at = f->next;
    pthread_mutex_unlock(&r->lock);
    if (f)
        host_fn_release(f);
    return f != NULL;
}

/* A reference to the function of `kind` named so, or NULL. */
static host_fn *registry_get(host_registry *r, host_kind kind, const char *name, size_t len) {
    pthread_mutex_lock(&r->lock);
    host_fn *f = *find_named(r, name, len);
    if (f && f->kind == kind)
        host_fn_retain(f);
    else
        f = NULL;
    pthread_mutex_unlock(&r->lock);
    return f;
}

/* ---- scopes ----------------------------------------------------------------- */

void host_scope_init(host_scope *s, host_registry *reg) {
    *s = (host_scope){.reg = reg};
}

static host_use *scope_lookup(host_scope *s, host_kind kind, const char *name, size_t len) {
    for (size_t i = 0; i < s->count; i++) {
        host_use *u = &s->uses[i];
        if (u->kind == kind && u->len == len && memcmp(u->name, name, len) == 0)
            return u;
    }
    return NULL;
}

int host_scope_find(host_scope *s, host_kind kind, const char *name, size_t len,
                    const host_fn **out, err *e) {
    *out = NULL;
    if (!s || !s->reg)
        return 0;
    host_use *u = scope_lookup(s, kind, name, len);
    if (u) {
        *out = u->fn;
        return 0;
    }
    if (!array_reserve(&s->uses, &s->cap, s->count + 1, sizeof *s->uses, 4))
        return err_set(e, ERR(INT, 0), "out of memory");
    u = &s->uses[s->count++];
    *u = (host_use){kind, name, len, registry_get(s->reg, kind, name, len)};
    s->held += u->fn != NULL;
    *out = u->fn;
    return 0;
}

void host_scope_end(host_scope *s) {
    if (!s)
        return;
    for (size_t i = 0; i < s->count; i++)
        if (s->uses[i].fn)
            host_fn_release(s->uses[i].fn);
    free(s->uses);
    host_registry *reg = s->reg;
    *s = (host_scope){.reg = reg};
}
