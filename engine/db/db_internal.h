/* The database object, shared by db.c (commands) and db_cursor.c. */
#ifndef MG_DB_DB_INTERNAL_H
#define MG_DB_DB_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "base/cancel.h"

#include "datalog/ast.h"
#include "db/db.h"
#include "db/db_shared.h"
#include "db/query_cache.h"
#include "exec/query.h"

struct rules_registry;

struct db {
    /* The single writer, and the cursors streaming on the store with
     * their gate: cursors opening (shared) vs. a change that detaches them
     * (exclusive), so no cursor can start streaming between the detach and
     * the change. Shared by every handle on the same store (db_shared.h). */
    db_shared *sh;
    store *s; /* sh->s */
    struct rules_registry *rules; /* in memory only (spec 9.1) */
    query_cache *queries;         /* parsed query texts */
    db_options opts;
    cancel_source interrupts; /* db_interrupt */
    /* The progress handler (db_set_progress), copied by each call as it
     * begins; `has_progress` spares calls the mutex while there is none. */
    pthread_mutex_t progress_mu;
    atomic_bool has_progress;
    cancel_progress_fn progress;
    void *progress_ctx;
    int64_t progress_every;
};

/* A (query ...) from the database's cache of parsed texts; any other
 * command fails with API-012. */
int db_parse_query(db *d, const char *text, size_t len, parsed_query **out, err *e);
/* The limits and rules a query of `d` runs with. */
query_rules db_query_rules(db *d);
const char *db_command_name(command_kind k);

/* Before a change to the store or the rules (the writer lock held, or in
 * db_close): reads every streaming cursor's rest into memory, so none
 * holds a snapshot, and keeps new ones from streaming until
 * db_cursors_release. */
void db_cursors_hold(db *d);
void db_cursors_release(db *d);

#endif
