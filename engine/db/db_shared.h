/* What the database handles over one store share (store_open_file gives
 * every open of one file in the process the same store): the single
 * writer, and the cursors streaming on the store with the gate that keeps
 * new ones from starting while a change detaches them (db_cursor.c). A
 * writer on one handle therefore excludes writers on the others, and
 * detaches their cursors too when it must (db.h), so it never waits for a
 * snapshot, whichever handle holds it. */
#ifndef MG_DB_DB_SHARED_H
#define MG_DB_DB_SHARED_H

#include <pthread.h>
#include <stddef.h>

#include "base/error.h"
#include "base/shared_lock.h"
#include "base/thread_slot.h"
#include "db/db_writer.h"
#include "db/reader_room.h"
#include "store/store.h"

struct db_cursor;

#define DB_CURSOR_LISTS 8

typedef struct db_shared db_shared;
struct db_shared {
    store *s;
    size_t refs;      /* handles attached; under the registry's mutex */
    db_shared *next;  /* in the registry */
    db_writer writer; /* db_writer.h: statements, checkpoints, write transactions */
    reader_room room; /* reader_room.h: readers leave a core to a running writer */
    shared_lock gate; /* phase-fair (shared_lock.h): a change waits only for the opens under way */
    /* The streaming cursors, in lists each under its own mutex: a thread
     * lists its cursors in one (thread_slot), so threads querying one
     * store do not all take one lock per query (issue 18); a change takes
     * every list's (db_cursor.c). Padded apart (thread_slot.h), not
     * aligned: calloc'd. */
    struct cursor_list {
        char gap[THREAD_STRIPE_GAP];
        pthread_mutex_t mu;
        struct db_cursor *head;
    } cursors[DB_CURSOR_LISTS];
    char gap[THREAD_STRIPE_GAP];
};

/* The shared part for `s`, made by the first handle and counted. */
int db_shared_attach(store *s, db_shared **out, err *e);
/* The last handle's detach frees it (not the store). NULL: no-op. */
void db_shared_detach(db_shared *sh);

#endif
