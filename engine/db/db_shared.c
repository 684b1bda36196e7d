#include "db/db_shared.h"

#include <stdbool.h>
#include <stdlib.h>

static pthread_mutex_t registry_mu = PTHREAD_MUTEX_INITIALIZER;
static db_shared *registry;

static db_shared *shared_new(store *s) {
    db_shared *sh = calloc(1, sizeof *sh);
    if (!sh)
        return NULL;
    if (db_writer_init(&sh->writer) != 0) {
        free(sh);
        return NULL;
    }
    if (shared_lock_init(&sh->gate) != 0) {
        db_writer_destroy(&sh->writer);
        free(sh);
        return NULL;
    }
    for (int i = 0; i < DB_CURSOR_LISTS; i++)
        if (pthread_mutex_init(&sh->cursors[i].mu, NULL) != 0) {
            while (i-- > 0)
                pthread_mutex_destroy(&sh->cursors[i].mu);
            shared_lock_destroy(&sh->gate);
            db_writer_destroy(&sh->writer);
            free(sh);
            return NULL;
        }
    reader_room_init(&sh->room);
    sh->s = s;
    return sh;
}

int db_shared_attach(store *s, db_shared **out, err *e) {
    pthread_mutex_lock(&registry_mu);
    db_shared *sh = registry;
    while (sh && sh->s != s)
        sh = sh->next;
    if (!sh && (sh = shared_new(s)) != NULL) {
        sh->next = registry;
        registry = sh;
    }
    if (sh)
        sh->refs++;
    pthread_mutex_unlock(&registry_mu);
    if (!sh)
        return err_set(e, ERR(INT, 0), "cannot create the database lock");
    *out = sh;
    return 0;
}

void db_shared_detach(db_shared *sh) {
    if (!sh)
        return;
    pthread_mutex_lock(&registry_mu);
    bool last = --sh->refs == 0;
    if (last)
        for (db_shared **p = &registry; *p; p = &(*p)->next)
            if (*p == sh) {
                *p = sh->next;
                break;
            }
    pthread_mutex_unlock(&registry_mu);
    if (!last)
        return;
    for (int i = 0; i < DB_CURSOR_LISTS; i++)
        pthread_mutex_destroy(&sh->cursors[i].mu);
    shared_lock_destroy(&sh->gate);
    db_writer_destroy(&sh->writer);
    free(sh);
}
