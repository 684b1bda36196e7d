/* minigraf.h: interrupt and progress handler. */
#include "api.h"
#include "db_calls.h"

/* Lock-free (db_calls.h, base/cancel.h) except when `h` is being closed
 * at the same moment, where api_db_leave may take the handle's mutex. */
void minigraf_interrupt(MiniGrafDb *h) {
    if (api_db_enter(h) != 0)
        return;
    db_interrupt(h->engine);
    api_db_leave(h);
}

int minigraf_progress_handler(MiniGrafDb *h, int every_n_rows, int (*fn)(void *user_data),
                              void *user_data) {
    int rc = api_db_enter(h);
    if (rc != 0)
        return rc;
    err e = {0};
    if (fn && every_n_rows < 1)
        err_set(&e, ERR(API, 17), "every_n_rows must be >= 1, got %d", every_n_rows);
    else
        db_set_progress(h->engine, every_n_rows, fn, user_data);
    if (e.code)
        rc = thread_errors_set(&h->errors, &e);
    else
        thread_errors_clear(&h->errors);
    api_db_leave(h);
    return rc;
}
