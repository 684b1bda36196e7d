/* Registering host functions on a database (db.h, language.md §12): the names of
 * the built-ins are refused here, where the executor's tables are known;
 * the registry (host/host_fns.h) refuses names already taken. */
#include "db/db_internal.h"

#include "exec/aggregate.h"
#include "exec/expr_eval.h"
#include "exec/window.h"
#include "host/host_fns.h"

/* A name the parser never hands to a host function of this kind. The
 * arithmetic operators are callable predicates (`(- ?x)`, language.md §8.5.1). */
static bool builtin_name(host_kind kind, const char *name, size_t len) {
    if (kind == HOST_PREDICATE) {
        expr_op op;
        return expr_op_lookup(name, len, &op) && !(op >= OP_ADD && op <= OP_DIV);
    }
    agg_fn fn;
    window_fn win;
    return agg_lookup(name, len, &fn) || window_lookup(name, len, &win);
}

static int builtin_clash(host_kind kind, const char *name, size_t len, err *e) {
    if (kind == HOST_PREDICATE)
        return err_set(e, ERR(API, 21), "predicate '%.*s' is already registered", (int)len, name);
    return err_set(e, ERR(API, 21), "aggregate function '%.*s' is already registered", (int)len,
                   name);
}

int db_register_host(db *d, host_kind kind, const char *name, size_t len, const host_callbacks *cb,
                     err *e) {
    if (!builtin_name(kind, name, len))
        return host_registry_add(d->host_fns, kind, name, len, cb, e);
    if (cb->destroy)
        cb->destroy(cb->ctx);
    return builtin_clash(kind, name, len, e);
}

int db_unregister_host(db *d, host_kind kind, const char *name, size_t len, err *e) {
    if (host_registry_remove(d->host_fns, kind, name, len))
        return 0;
    return err_set(e, ERR(API, 17), "no %s '%.*s' is registered",
                   kind == HOST_PREDICATE ? "predicate" : "aggregate function", (int)len, name);
}
