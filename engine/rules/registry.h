/* The rules of one database (language.md §9.1): in memory only, gone when the
 * database closes (rules are not persisted, language.md §1).
 *
 * Registration appends: several rules with the same predicate are
 * alternatives; a rule whose canonical text (datalog/print.h) equals a
 * registered rule's is already there and changes nothing; a rule that
 * makes the program unstratifiable fails with INT-054 and is not kept.
 * The registry keeps its own copy of each rule (the caller's parse arena
 * may go away right after).
 *
 * Cost: a registration checks only whether its rule closes a negative
 * cycle (rules/dep_graph.h) and is stratified with the others when a
 * query first needs the program (rules_acquire builds it once per
 * change), so registering N rules takes time linear in N.
 *
 * Threads: registrations are serialised by the caller (the database's
 * writer lock). Queries read a rules_program snapshot, acquired and
 * released under the registry's own short lock, so a query never sees a
 * half-registered rule and never blocks a writer for longer than copying
 * the rule pointers (the stratification runs outside the lock). A snapshot stays valid until
 * released, even across later registrations; every snapshot must be released before the registry is
 * freed. */
#ifndef MG_RULES_REGISTRY_H
#define MG_RULES_REGISTRY_H

#include <stddef.h>

#include "base/error.h"
#include "datalog/ast.h"
#include "rules/stratify.h"

typedef struct rules_registry rules_registry;

/* What a query keeps with a program for the next query over it
 * (exec/rule_cache.h): the registry holds at most one per program, hands
 * it to one query at a time and frees it with the program, through
 * `free`, when nothing has taken it. */
typedef struct rules_kept rules_kept;
struct rules_kept {
    void (*free)(rules_kept *k);
};

/* An immutable view of the rules at one moment. */
typedef struct rules_program {
    const ast_rule *const *rules; /* registration order */
    size_t count;
    const stratify_program *strata; /* built from `rules`, same order */
    size_t refs;                    /* private: guarded by the registry lock */
    rules_kept *kept;               /* private: guarded by the registry lock */
} rules_program;

int rules_registry_new(rules_registry **out, err *e);
void rules_registry_free(rules_registry *r); /* NULL: no-op */

/* Registers `rule` (borrowed for the call only). 0 also when the rule was
 * already registered. INT-054 when unstratifiable; INT-000 out of memory. */
int rules_register(rules_registry *r, const ast_rule *rule, err *e);

/* The current program (possibly with no rules), to pass back to
 * rules_release; built first when rules were registered since the last
 * one. NULL only when out of memory. */
const rules_program *rules_acquire(rules_registry *r);
void rules_release(rules_registry *r, const rules_program *p); /* NULL p: no-op */

/* What p keeps, now the caller's (p keeps nothing until rules_keep), or
 * NULL. p must be acquired. */
rules_kept *rules_take_kept(rules_registry *r, const rules_program *p);
/* Keeps k (NULL: nothing) with p, freeing what p kept meanwhile. */
void rules_keep(rules_registry *r, const rules_program *p, rules_kept *k);

#endif
