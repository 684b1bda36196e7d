/* minigraf.h: explicit write transactions (engine: db/db_tx.h). */
#include <stdlib.h>

#include "api.h"
#include "db_calls.h"
#include "handles.h"

static MiniGrafTx *new_tx(MiniGrafDb *h, err *e) {
    MiniGrafTx *t = calloc(1, sizeof *t);
    if (!t) {
        err_set(e, ERR(INT, 0), "out of memory");
        return NULL;
    }
    int rc = db_tx_begin(h->engine, &t->tx, e);
    if (rc == 0 && handles_add(t, HANDLE_TX)) {
        t->db = h;
        api_db_retain(h);
        return t;
    }
    if (rc == 0) {
        db_tx_free(t->tx);
        err_set(e, ERR(INT, 0), "out of memory");
    }
    free(t);
    return NULL;
}

MiniGrafTx *minigraf_begin_write(MiniGrafDb *h) {
    if (api_db_enter(h) != 0)
        return NULL;
    err e = {0};
    MiniGrafTx *t = new_tx(h, &e);
    if (e.code)
        thread_errors_set(&h->errors, &e);
    else
        thread_errors_clear(&h->errors);
    api_db_leave(h);
    return t;
}

/* Starts a call on a transaction: false (and nothing touched) for a bad
 * handle or a closed database (API-018 then); else the call runs as a
 * call on the database (api_db_enter) until call_end. */
static bool call_begin(MiniGrafTx *t) {
    if (!handles_live(t, HANDLE_TX))
        return false;
    err_clear(&t->last);
    if (api_db_enter_held(t->db) == 0)
        return true;
    err_set(&t->last, ERR(API, 18),
            "the write transaction was rolled back when its database was closed");
    return false;
}

static int call_end(MiniGrafTx *t) {
    api_db_leave(t->db);
    return t->last.code;
}

char *minigraf_tx_execute(MiniGrafTx *t, const char *text) {
    if (!call_begin(t))
        return NULL;
    char *json = NULL;
    db_result r = {0};
    size_t len = 0;
    if (api_check_text_len(text, "text", &len, &t->last) == 0 &&
        db_tx_execute(t->tx, text, len, &r, &t->last) == 0) {
        json = api_render_result(&r);
        result_free(r.rows);
        if (!json)
            err_set(&t->last, ERR(INT, 0), "out of memory");
    }
    call_end(t);
    return json;
}

MiniGrafCursor *minigraf_tx_query(MiniGrafTx *t, const char *text) {
    if (!call_begin(t))
        return NULL;
    MiniGrafCursor *c = NULL;
    db_cursor *rows = NULL;
    size_t len = 0;
    if (api_check_text_len(text, "text", &len, &t->last) == 0 &&
        db_tx_cursor_open(t->tx, text, len, &rows, &t->last) == 0)
        c = api_cursor_new(rows, &t->last);
    call_end(t);
    return c;
}

int minigraf_tx_commit(MiniGrafTx *t) {
    if (!call_begin(t))
        return t ? ERR(API, 18) : ERR(API, 17);
    db_tx_commit(t->tx, &t->last);
    return call_end(t);
}

int minigraf_tx_rollback(MiniGrafTx *t) {
    if (!call_begin(t))
        return t ? ERR(API, 18) : ERR(API, 17);
    db_tx_rollback(t->tx, &t->last);
    return call_end(t);
}

const char *minigraf_tx_last_error(const MiniGrafTx *t) {
    if (!t)
        return NULL; /* as every *_last_error(NULL) */
    if (!handles_live(t, HANDLE_TX))
        return API_DEAD_HANDLE;
    return t->last.message;
}

int minigraf_tx_last_error_code(const MiniGrafTx *t) {
    if (!t)
        return ERR(API, 17);
    if (!handles_live(t, HANDLE_TX))
        return ERR(API, 18);
    return t->last.code;
}

void minigraf_tx_free(MiniGrafTx *t) {
    if (!t || !handles_remove(t, HANDLE_TX))
        return;
    MiniGrafDb *h = t->db;
    if (api_db_enter(h) == 0) {
        db_tx_free(t->tx); /* rolls back an open transaction */
        api_db_leave(h);
    } else {
        api_db_wait_closed(h); /* the close rolled it back: it is ended */
        db_tx_free(t->tx);
    }
    api_db_release(h);
    err_clear(&t->last);
    free(t);
}
