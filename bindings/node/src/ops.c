/*
 * ops.c — the addon's only calls into the library that can fail.
 *
 * The sync functions (JS thread) and the async jobs (libuv pool) both come
 * through here. The handle's lock is held across the call *and* the read of
 * its last error, which the library keeps per handle: without it a call
 * from another thread could replace the error before it is copied.
 *
 * Callers guarantee the handle is open and stays so (see handle.c).
 */
#include "addon.h"

static void db_error(mg_handle *db, mg_error *err) {
  mg_error_set(err, minigraf_last_error_code(db->native),
               minigraf_last_error(db->native));
}

static void cursor_error(mg_handle *cursor, mg_error *err) {
  mg_error_set(err, minigraf_cursor_last_error_code(cursor->native),
               minigraf_cursor_last_error(cursor->native));
}

char *mg_op_execute(mg_handle *db, const char *text, mg_error *err) {
  char *json;
  pthread_mutex_lock(&db->lock);
  json = minigraf_execute(db->native, text);
  if (json == NULL) db_error(db, err);
  pthread_mutex_unlock(&db->lock);
  return json;
}

bool mg_op_tx_count(mg_handle *db, uint64_t *out, mg_error *err) {
  int rc;
  pthread_mutex_lock(&db->lock);
  rc = minigraf_current_tx_count(db->native, out);
  if (rc != 0) db_error(db, err);
  pthread_mutex_unlock(&db->lock);
  return rc == 0;
}

bool mg_op_checkpoint(mg_handle *db, mg_error *err) {
  int rc;
  pthread_mutex_lock(&db->lock);
  rc = minigraf_checkpoint(db->native);
  if (rc != 0) db_error(db, err);
  pthread_mutex_unlock(&db->lock);
  return rc == 0;
}

MiniGrafCursor *mg_op_query(mg_handle *db, const char *text, mg_error *err) {
  MiniGrafCursor *cursor;
  pthread_mutex_lock(&db->lock);
  cursor = minigraf_query(db->native, text);
  if (cursor == NULL) db_error(db, err);
  pthread_mutex_unlock(&db->lock);
  return cursor;
}

char *mg_op_cursor_vars(mg_handle *cursor, mg_error *err) {
  char *json;
  pthread_mutex_lock(&cursor->lock);
  json = minigraf_cursor_vars(cursor->native);
  if (json == NULL) cursor_error(cursor, err);
  pthread_mutex_unlock(&cursor->lock);
  return json;
}

char *mg_op_next_batch(mg_handle *cursor, size_t max_rows, mg_error *err) {
  char *json;
  pthread_mutex_lock(&cursor->lock);
  json = minigraf_cursor_next_batch(cursor->native, max_rows);
  if (json == NULL && minigraf_cursor_last_error_code(cursor->native) != 0)
    cursor_error(cursor, err);
  pthread_mutex_unlock(&cursor->lock);
  return json;
}
