/* Prepared queries (language.md §13): a (query ...) parsed and checked once, run
 * any number of times with values for its $slots.
 *
 * A prepared query owns a private parse of its text (not the database's
 * cache of parsed texts, whose entries are shared and read-only). Prepare
 * lists every use of every slot with its position (entity, value,
 * rule argument, expression argument, :as-of, :valid-at), so a value of
 * the wrong kind is refused when it is bound. Binding writes the value
 * straight into the places of the parse that the slot stands for, so the
 * executor sees a query with literals there, exactly as if they had been
 * written in the text, and runs the code a plain query runs.
 *
 * A cursor keeps the parse it streams over (prepared_cursor). Binding
 * while such a cursor lives parses the text again into a new copy first
 * (copy on write), so the cursor's answer never changes under it.
 *
 * A parse keeps its plan and operators from one run to the next
 * (exec/query_keep.h): a run re-opens them on a new snapshot, and since
 * operators read constants from the AST when they open, with the values
 * bound then. Only plans whose shape no value can change are kept: the
 * :where's nested-loop patterns and filters (exec/where.h: where_keep),
 * no rule invocation (rules run per run, and the rule cache keys on the
 * printed text, bound values included), no host predicate (resolved when
 * the operators are built; they may be replaced), no pseudo-attribute
 * unless the query has no slots (language.md D16 pairs patterns by equal
 * constants, which a binding could change). The kept plan is dropped when
 * a slot's kind or value type changes, when the store's size moves far
 * from the one it was planned for (its join order is a cost choice,
 * never an answer's), when a run fails half-way, and when a copy is made
 * for a new binding. A second run while a cursor still streams the kept
 * one plans afresh, as a text query does.
 *
 * Not thread-safe: one thread at a time per prepared query. It holds no
 * pointer to its database; each call that runs it is given one. */
#ifndef MG_DB_PREPARED_H
#define MG_DB_PREPARED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "db/db.h"
#include "model/value.h"

typedef struct prepared prepared;

/* The kinds of bind value of language.md §13. */
typedef enum bind_kind {
    BIND_NONE = 0,      /* unbound */
    BIND_ENTITY,        /* an entity's UUID */
    BIND_VAL,           /* any value: string, integer, float, boolean, keyword, ref, null */
    BIND_TX_COUNT,      /* a transaction counter, for :as-of */
    BIND_TIMESTAMP,     /* ms since the epoch, for :as-of and :valid-at */
    BIND_ANY_VALID_TIME /* :valid-at: every valid time */
} bind_kind;

typedef struct bind_value {
    bind_kind kind;
    value val;      /* ENTITY: a Ref; VAL: the value (payload copied when bound) */
    int64_t number; /* TX_COUNT, TIMESTAMP */
} bind_value;

/* "Entity", "Val", "TxCount", "Timestamp", "AnyValidTime". */
const char *bind_kind_name(bind_kind k);

/* Parses and checks text[0..len): a parse error as db_execute gives it;
 * API-005 / 006 / 007 for a transact / retract / rule; API-015 for a slot
 * in attribute position. */
int prepared_new(const char *text, size_t len, prepared **out, err *e);
void prepared_free(prepared *p);

/* Binds the slot `name` (without the '$'; `len` bytes) to `v`: API-015
 * when a use of the slot does not accept v's kind; a name the query does
 * not use is ignored (0). A keyword must be written as the language
 * writes keywords (API-017). Copies what `v` points to. */
int prepared_bind(prepared *p, const char *name, size_t len, const bind_value *v, err *e);
/* The checks of prepared_bind alone: whether it would take `v`. */
int prepared_check(const prepared *p, const char *name, size_t len, const bind_value *v, err *e);
/* Every slot unbound again. */
int prepared_clear(prepared *p, err *e);

/* Runs the query with its bindings against `d` as it is now (API-015
 * `missing bind value for slot '$n'` for an unbound slot; then the errors
 * of db_query). */
int prepared_execute(prepared *p, db *d, result_set **out, err *e);
/* The same as a cursor (db_cursor_open). */
int prepared_cursor(prepared *p, db *d, db_cursor **out, err *e);

#endif
