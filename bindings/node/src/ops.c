/*
 * ops.c — the addon's only calls into the library that can fail.
 *
 * The sync functions (JS thread) and the async jobs (libuv pool) both come
 * through here. Database calls take no lock: the library runs them in
 * parallel and keeps a database's last error per thread. A cursor, fact log
 * or log writer is one-thread-at-a-time, so its lock is held across the
 * call *and* the read of its last error.
 *
 * Callers guarantee the handle is open and stays so (see handle.c).
 */
#include "addon.h"

static void db_error(mg_handle *db, mg_error *err) {
    mg_error_set(err, minigraf_last_error_code(db->native), minigraf_last_error(db->native));
}

char *mg_op_execute(mg_handle *db, const char *text, mg_error *err) {
    char *json;
    json = minigraf_execute(db->native, text);
    if (json == NULL)
        db_error(db, err);
    return json;
}

bool mg_op_tx_count(mg_handle *db, uint64_t *out, mg_error *err) {
    int rc;
    rc = minigraf_current_tx_count(db->native, out);
    if (rc != 0)
        db_error(db, err);
    return rc == 0;
}

bool mg_op_checkpoint(mg_handle *db, mg_error *err) {
    int rc;
    rc = minigraf_checkpoint(db->native);
    if (rc != 0)
        db_error(db, err);
    return rc == 0;
}

MiniGrafCursor *mg_op_query(mg_handle *db, const char *text, mg_error *err) {
    MiniGrafCursor *cursor;
    cursor = minigraf_query(db->native, text);
    if (cursor == NULL)
        db_error(db, err);
    return cursor;
}

/* ---- fact logs ------------------------------------------------------------- */

static void fact_log_error(mg_handle *log, mg_error *err) {
    mg_error_set(err, minigraf_fact_log_last_error_code(log->native),
                 minigraf_fact_log_last_error(log->native));
}

MiniGrafFactLog *mg_op_fact_log(mg_handle *db, const char *filter_json, mg_error *err) {
    MiniGrafFactLog *log = minigraf_fact_log(db->native, filter_json);
    if (log == NULL)
        db_error(db, err);
    return log;
}

char *mg_op_fact_log_next_batch(mg_handle *log, size_t max_records, mg_error *err) {
    char *json;
    pthread_mutex_lock(&log->lock);
    json = minigraf_fact_log_next_batch(log->native, max_records);
    if (json == NULL && minigraf_fact_log_last_error_code(log->native) != 0)
        fact_log_error(log, err);
    pthread_mutex_unlock(&log->lock);
    return json;
}

/* ---- log writers ------------------------------------------------------------ */

static void writer_error(mg_handle *w, mg_error *err) {
    mg_error_set(err, minigraf_log_writer_last_error_code(w->native),
                 minigraf_log_writer_last_error(w->native));
}

/* The common shape: rc = call; on failure copy the error under the lock. */
#define MG_WRITER_OP(w, err, call)        \
    do {                                  \
        int rc_;                          \
        pthread_mutex_lock(&(w)->lock);   \
        rc_ = (call);                     \
        if (rc_ != 0)                     \
            writer_error((w), (err));     \
        pthread_mutex_unlock(&(w)->lock); \
        return rc_ == 0;                  \
    } while (0)

bool mg_op_writer_append(mg_handle *w, const char *record_json, mg_error *err) {
    MG_WRITER_OP(w, err, minigraf_log_writer_append(w->native, record_json));
}

bool mg_op_writer_append_batch(mg_handle *w, const char *records_json, mg_error *err) {
    MG_WRITER_OP(w, err, minigraf_log_writer_append_batch(w->native, records_json));
}

bool mg_op_writer_advance_tx_count(mg_handle *w, uint64_t tx_count, mg_error *err) {
    MG_WRITER_OP(w, err, minigraf_log_writer_advance_tx_count(w->native, tx_count));
}

bool mg_op_writer_tx_count(mg_handle *w, uint64_t *out, mg_error *err) {
    MG_WRITER_OP(w, err, minigraf_log_writer_tx_count(w->native, out));
}

bool mg_op_writer_finish(mg_handle *w, mg_error *err) {
    MG_WRITER_OP(w, err, minigraf_log_writer_finish(w->native));
}
