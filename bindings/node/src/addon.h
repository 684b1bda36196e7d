/*
 * addon.h — shared declarations of the Node-API glue for minigraf.
 *
 * The addon is a thin layer: index.js holds the idiomatic API and calls the
 * functions exported here with opaque "handle" objects. Each handle (an
 * external, handle.c) holds one mg_handle (a MiniGrafDb, MiniGrafCursor, MiniGrafFactLog or
 * MiniGrafLogWriter) and carries a type tag per kind, so passing anything
 * else is a TypeError rather than a crash.
 *
 * Threads: every function here runs on the JS thread of one environment
 * (the main thread or a worker), except mg_op_* which also run on the libuv
 * pool for the Promise variants. All per-environment state hangs off the
 * instance data (mg_instance); there are no globals.
 */
#ifndef MINIGRAF_NODE_ADDON_H
#define MINIGRAF_NODE_ADDON_H

#define NAPI_VERSION 8
#include <node_api.h>

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>

#include "minigraf.h"

/* Per-environment state, set with napi_set_instance_data. */
typedef struct mg_instance {
    napi_ref error_class;   /* MinigrafError, registered by index.js; may be NULL */
    napi_ref keyword_of;    /* from index.js (setValueClasses): makers of a */
    napi_ref entity_of;     /* Keyword / Entity from checked text, */
    napi_ref list_decoder;  /* decodeList(json, safe), */
    napi_ref keyword_class; /* and the two classes (for instanceof) */
    napi_ref entity_class;
    pthread_t js_thread;     /* the thread this environment runs JS on */
    struct mg_js_life *life; /* js_call.c */
    struct mg_rows *rows;    /* rows.c: the synchronous fetches' buffer, */
    bool rows_lent;          /* and whether a fetch is using it now */
    napi_ref pack_buffer;    /* packed.c: the ArrayBuffer synchronous */
    void *pack_data;         /* batches are packed into, its bytes */
    size_t pack_cap;         /* and their number */
} mg_instance;

typedef enum mg_kind {
    MG_KIND_DB,
    MG_KIND_CURSOR,
    MG_KIND_FACT_LOG,
    MG_KIND_LOG_WRITER,
    MG_KIND_STMT,
    MG_KIND_TX,
    MG_KIND_ABORT,
    MG_KIND_COUNT
} mg_kind;

/* One wrapped C handle.
 *
 * Lifetime: `native` is freed by close, by the env cleanup hook (worker or
 * process teardown) or by the GC finalizer, whichever comes first — but
 * never while `pending` async jobs may still use it; the last job to finish
 * frees it instead. The struct itself is freed by the finalizer.
 *
 * `lock` serialises the calls on a cursor, fact log or log writer (the ABI
 * wants one thread at a time on those) between the JS thread and the pool.
 * A database needs none: the library keeps its last error per thread and
 * runs calls from several threads in parallel. */
typedef struct mg_handle {
    mg_kind kind;
    void *native; /* the MiniGraf* object of `kind`; NULL once freed */
    pthread_mutex_t lock;
    unsigned pending; /* async jobs queued or running (JS thread only) */
    bool closed;      /* close() was called or the env is going away */
    bool hooked;      /* the env cleanup hook is registered */
    bool torn_down;   /* the env cleanup hook ran */
    napi_env env;
    struct mg_db_state *db; /* MG_KIND_DB: progress handler and host functions */
} mg_handle;

/* An error captured from the library: its numeric code and a malloc'd copy
 * of the "[CODE] message" text. code == 0 means no error. */
typedef struct mg_error {
    int code;
    char *message;
} mg_error;

/* ---- addon.c: errors and argument helpers -------------------------------- */

mg_instance *mg_instance_get(napi_env env);

/* Sets `err` from a code and message (copied); message may be NULL. */
void mg_error_set(mg_error *err, int code, const char *message);
void mg_error_clear(mg_error *err);

/* Builds a MinigrafError value (or a plain Error if index.js did not
 * register the class) for `err`. */
napi_value mg_error_value(napi_env env, const mg_error *err);
/* Throws it. Always returns NULL, for `return mg_throw(...)`. */
napi_value mg_throw(napi_env env, const mg_error *err);
/* Throws a MinigrafError built from a code and a literal message. */
napi_value mg_throw_code(napi_env env, int code, const char *message);

/* Fetches exactly `n` arguments (missing ones are `undefined`). */
bool mg_args(napi_env env, napi_callback_info info, size_t n, napi_value *argv);
/* A JS string as malloc'd NUL-terminated UTF-8; TypeError if not a string,
 * API-017 if it contains U+0000 or a lone surrogate (mg_text_faithful). */
char *mg_string_arg(napi_env env, napi_value value, const char *what);
/* After napi_get_value_string_utf8 gave `utf8` (`len` bytes) for `value`:
 * false with API-017 thrown when V8 replaced a lone surrogate with U+FFFD,
 * which would silently change the caller's text. */
bool mg_text_faithful(napi_env env, napi_value value, const char *utf8, size_t len,
                      const char *what);
/* The test of mg_text_faithful, throwing nothing: 1 if V8 replaced a lone
 * surrogate of `value` in `utf8`, 0 if not, -1 when out of memory. */
int mg_text_replaced(napi_env env, napi_value value, const char *utf8, size_t len);
/* Like mg_string_arg, but null/undefined give *out = NULL and true. */
bool mg_optional_string_arg(napi_env env, napi_value value, const char *what, char **out);
/* A non-negative integer Number (at most 2^53 - 1) or BigInt (at most
 * 2^64 - 1) as uint64_t; TypeError / RangeError otherwise. */
bool mg_uint64_arg(napi_env env, napi_value value, const char *what, uint64_t *out);
/* A uint64_t as a Number while it is at most 2^53 - 1, else a BigInt. NULL
 * with an exception pending on failure. */
napi_value mg_uint64_value(napi_env env, uint64_t value);

/* ---- handle.c: wrapped handles ------------------------------------------- */

/* Wraps `native` in a new tagged JS object. On failure frees `native`. */
napi_value mg_handle_new(napi_env env, mg_kind kind, void *native);
/* The mg_handle of `value`, or NULL with a TypeError pending. */
mg_handle *mg_handle_unwrap(napi_env env, napi_value value, mg_kind kind);
/* The mg_handle of `value` if it is open, else NULL with a TypeError or a
 * MinigrafError API-018 pending. */
mg_handle *mg_handle_open(napi_env env, napi_value value, mg_kind kind);
/* Marks the handle closed and frees the native object once no job uses it.
 * Idempotent. */
void mg_handle_close(mg_handle *h);
/* The exported close(handle) -> undefined of every kind: mg_handle_close on
 * the handle of `kind` in the first argument (TypeError if it is not one). */
napi_value mg_handle_close_call(napi_env env, napi_callback_info info, mg_kind kind);
/* Called by an async job on the JS thread when it ends. */
void mg_handle_job_done(mg_handle *h);

/* ---- ops.c: calls into the library, safe on any thread ------------------ */

/* Each runs one library call on an open handle under its lock and, when the
 * call fails, copies its error into `err` before unlocking. Strings are
 * returned as the library made them (free with minigraf_string_free). */
char *mg_op_execute(mg_handle *db, const char *text, mg_error *err);
bool mg_op_tx_count(mg_handle *db, uint64_t *out, mg_error *err);
bool mg_op_checkpoint(mg_handle *db, mg_error *err);
MiniGrafCursor *mg_op_query(mg_handle *db, const char *text, mg_error *err);
MiniGrafFactLog *mg_op_fact_log(mg_handle *db, const char *filter_json, mg_error *err);
/* NULL with err->code == 0 is the end of the records. */
char *mg_op_fact_log_next_batch(mg_handle *log, size_t max_records, mg_error *err);
bool mg_op_writer_append(mg_handle *w, const char *record_json, mg_error *err);
bool mg_op_writer_append_batch(mg_handle *w, const char *records_json, mg_error *err);
bool mg_op_writer_advance_tx_count(mg_handle *w, uint64_t tx_count, mg_error *err);
bool mg_op_writer_tx_count(mg_handle *w, uint64_t *out, mg_error *err);
bool mg_op_writer_finish(mg_handle *w, mg_error *err);

/* ---- batch.c: what cursors and fact logs share ------------------------- */

/* Reads the next batch of a cursor's rows or a fact log's records
 * (mg_op_next_batch, mg_op_fact_log_next_batch): JSON text, or NULL with
 * err->code == 0 at the end. Safe on any thread. */
typedef char *(*mg_next_batch_op)(mg_handle *h, size_t max_items, mg_error *err);
/* The exported nextBatch(handle, maxItems) -> item[] | null on a handle of
 * `kind`: NULL with an exception pending on a bad argument, a closed handle
 * or a library error. */
napi_value mg_batch_next(napi_env env, napi_callback_info info, mg_kind kind,
                         mg_next_batch_op next_batch);

/* ---- rows.c: typed rows from the step API ------------------------------- */

/* One value of a typed row, copied out of the cursor so that a pool thread
 * can step and the JS thread convert. Texts and UUID bytes live in the
 * buffer's arena at `off`. */
typedef struct mg_cell {
    int32_t type; /* MINIGRAF_TYPE_* */
    uint32_t len; /* STRING / KEYWORD / LIST text bytes */
    union {
        int64_t i;
        double d;
        size_t off;
    } v;
} mg_cell;

/* Rows stepped from a cursor, `ncols` cells each. */
typedef struct mg_rows {
    size_t ncols, nrows, cap_cells;
    mg_cell *cells;
    char *arena;
    size_t arena_len, arena_cap;
    bool end; /* the cursor has no more rows */
} mg_rows;

/* Conversion flags of the JS side. */
#define MG_ROWS_BIGINT 1  /* every INTEGER is a BigInt (safeIntegers) */
#define MG_ROWS_OBJECTS 2 /* rows as objects keyed by column name */
/* Not from JS: the packed batch gets an ArrayBuffer of its own instead of
 * the environment's (packed.c), for a batch JS decodes later (async). */
#define MG_ROWS_OWN_BUFFER 4
/* From JS, to dbQuery, txQuery and stmtQuery: the caller knows the :find
 * headers already (the same text or statement as before), so the opened
 * cursor comes without them (first_batch.c). */
#define MG_ROWS_NO_COLUMNS 8

/* Steps up to `max_rows` rows of `cursor` into `out` (emptied first). Any
 * thread. False with `err` set on a library error or out of memory. */
bool mg_rows_fill(MiniGrafCursor *cursor, size_t max_rows, mg_rows *out, mg_error *err);
void mg_rows_free(mg_rows *rows);
/* A buffer for a fetch on the JS thread (fill, then pack, then give it
 * back): the environment's own, or a fresh one while that one is lent (a
 * progress handler or host function fetching inside a fetch). NULL when
 * out of memory. */
mg_rows *mg_rows_borrow(mg_instance *inst);
void mg_rows_give_back(mg_instance *inst, mg_rows *rows);
/* packed.c: the rows as one packed batch (see there) that index.js turns
 * into row arrays or objects, or null when there are none and the cursor
 * ended. NULL with an exception pending on failure (out of memory). */
napi_value mg_rows_pack(napi_env env, const mg_rows *rows, int flags);
/* The same batch as its two parts, for a caller that puts them in an array
 * of its own: the ArrayBuffer (null when there are no rows and the cursor
 * ended) and the texts (NULL when the batch has none). False with an
 * exception pending. */
bool mg_rows_pack_parts(napi_env env, const mg_rows *rows, int flags, napi_value *buffer,
                        napi_value *texts);
/* first_batch.c: [handle?, columns?, buffer, texts?, failure?] of a cursor just
 * opened (see there), which it owns from here on; NULL with an exception
 * pending. */
napi_value mg_cursor_first_batch(napi_env env, MiniGrafCursor *c, size_t max_rows, int flags);
/* The maxRows and flags arguments of dbQuery, txQuery and stmtQuery. */
bool mg_first_batch_args(napi_env env, napi_value argv[2], size_t *max_rows, int *flags);
/* A JS value of the library's type `type` (Keyword and Entity through the
 * classes index.js registered), by the flags' integer rule. `text` is
 * STRING / KEYWORD / LIST text, `uuid` the 16 bytes of a REF. */
napi_value mg_value_to_js(napi_env env, int type, int64_t i, double d, const char *text, size_t len,
                          const unsigned char *uuid, int flags);
/* The hyphenated lowercase text of 16 UUID bytes into out[37]. */
void mg_uuid_text(const unsigned char *uuid, char out[37]);

/* A flags argument (MG_ROWS_*): an int32 Number. */
bool mg_flags_arg(napi_env env, napi_value value, int *out);

/* The :find headers of `cursor` as a JS array of strings. */
napi_value mg_column_names(napi_env env, MiniGrafCursor *cursor);

napi_value mg_cursor_columns(napi_env env, napi_callback_info info);
napi_value mg_cursor_rows(napi_env env, napi_callback_info info);
napi_value mg_set_value_classes(napi_env env, napi_callback_info info);

/* ---- stmt.c, tx.c: prepared queries and write transactions --------------- */

napi_value mg_db_prepare(napi_env env, napi_callback_info info);
napi_value mg_stmt_bind(napi_env env, napi_callback_info info);
napi_value mg_stmt_bind_json(napi_env env, napi_callback_info info);
napi_value mg_stmt_clear(napi_env env, napi_callback_info info);
napi_value mg_stmt_query(napi_env env, napi_callback_info info);
napi_value mg_stmt_execute(napi_env env, napi_callback_info info);
napi_value mg_stmt_rows(napi_env env, napi_callback_info info);
napi_value mg_stmt_close(napi_env env, napi_callback_info info);
napi_value mg_db_begin_write(napi_env env, napi_callback_info info);
napi_value mg_tx_execute(napi_env env, napi_callback_info info);
napi_value mg_tx_query(napi_env env, napi_callback_info info);
napi_value mg_tx_commit(napi_env env, napi_callback_info info);
napi_value mg_tx_rollback(napi_env env, napi_callback_info info);
napi_value mg_tx_close(napi_env env, napi_callback_info info);
napi_value mg_db_export(napi_env env, napi_callback_info info);

/* ---- cancel.c, host.c: progress handler, interrupt, abort; host functions */

/* Per-database state: created at open, freed with the handle. */
typedef struct mg_db_state {
    napi_env env;
    pthread_t js_thread;
    napi_ref progress_fn; /* the user's handler, or NULL */
    int progress_every;
    /* close() was called: calls still running on the pool stop at their next
     * progress check (API-013) and queued ones do not start (API-018), so
     * the deferred minigraf_close comes at once, as a close in C does. */
    _Atomic int closing;
} mg_db_state;

/* An AbortSignal's native side: a flag a pool job polls through the
 * progress handler. */
typedef struct mg_abort {
    _Atomic int aborted;
} mg_abort;

mg_db_state *mg_db_state_new(napi_env env, MiniGrafDb *db);
void mg_db_state_free(napi_env env, mg_db_state *state);
/* The abort flag the calls on this thread answer to (NULL: none). */
void mg_abort_enter(mg_abort *flag);
void mg_abort_leave(void);
/* True when the calling thread runs this environment's JS. */
bool mg_on_js_thread(napi_env env);

napi_value mg_db_interrupt(napi_env env, napi_callback_info info);
napi_value mg_db_set_progress_handler(napi_env env, napi_callback_info info);
napi_value mg_db_register_predicate(napi_env env, napi_callback_info info);
napi_value mg_db_register_aggregate(napi_env env, napi_callback_info info);
napi_value mg_abort_new(napi_env env, napi_callback_info info);
napi_value mg_abort_fire(napi_env env, napi_callback_info info);
/* The mg_abort of an abort token argument (undefined/null: NULL, true). */
bool mg_abort_arg(napi_env env, napi_value value, mg_abort **out);

/* ---- js_call.c: running a function on the JS thread from another --------- */

/* Per environment: set `closing` when it is torn down. Reference counted
 * (the instance and every runner), as pool threads read it. */
typedef struct mg_js_life {
    _Atomic int closing;
    _Atomic int refs;
} mg_js_life;

typedef void (*mg_js_fn)(napi_env env, void *arg);

/* Runs functions on one environment's JS thread (a thread-safe function). */
typedef struct mg_js_runner {
    napi_env env;
    pthread_t js_thread;
    napi_threadsafe_function tsfn;
    mg_js_life *life;
} mg_js_runner;

mg_js_life *mg_js_life_new(napi_env env);
void mg_js_life_release(mg_js_life *life);
/* The instance's release (JS thread): also drops the cleanup hook. */
void mg_js_life_detach(napi_env env, mg_js_life *life);
/* JS thread. False when out of memory. */
bool mg_js_runner_init(napi_env env, mg_js_runner *run, mg_js_life *life);
/* JS thread; when nothing can call mg_js_run on it any more. */
void mg_js_runner_free(mg_js_runner *run);
/* Runs fn(env, arg) on the JS thread: at once on it, else queued there and
 * waited for. False (fn not run) once the environment is going away. */
bool mg_js_run(mg_js_runner *run, mg_js_fn fn, void *arg);

/* ---- async_query.c: queries off the event loop --------------------------- */

napi_value mg_db_query_async(napi_env env, napi_callback_info info);
napi_value mg_stmt_query_async(napi_env env, napi_callback_info info);
napi_value mg_cursor_rows_async(napi_env env, napi_callback_info info);
napi_value mg_stmt_rows_async(napi_env env, napi_callback_info info);

/* ---- json_to_js.c -------------------------------------------------------- */

/* Decodes the library's JSON text into JS values: integers to Number when
 * |v| <= 2^53 - 1, else BigInt (exact); other numbers to Number; strings,
 * booleans, null, arrays and objects as JSON.parse would. Returns false with
 * an exception pending on malformed input. */
bool mg_json_to_js(napi_env env, const char *json, size_t len, napi_value *out);

/* ---- database.c, cursor.c, async.c: exported functions ------------------ */

napi_value mg_db_open(napi_env env, napi_callback_info info);
napi_value mg_db_close(napi_env env, napi_callback_info info);
napi_value mg_db_execute(napi_env env, napi_callback_info info);
napi_value mg_db_tx_count(napi_env env, napi_callback_info info);
napi_value mg_db_checkpoint(napi_env env, napi_callback_info info);
napi_value mg_db_query(napi_env env, napi_callback_info info);
napi_value mg_cursor_close(napi_env env, napi_callback_info info);
napi_value mg_db_execute_async(napi_env env, napi_callback_info info);

/* ---- fact_log.c, log_writer.c -------------------------------------------- */

napi_value mg_db_fact_log(napi_env env, napi_callback_info info);
napi_value mg_fact_log_next_batch(napi_env env, napi_callback_info info);
napi_value mg_fact_log_next_batch_async(napi_env env, napi_callback_info info);
napi_value mg_fact_log_close(napi_env env, napi_callback_info info);
napi_value mg_log_writer_create(napi_env env, napi_callback_info info);
napi_value mg_log_writer_append(napi_env env, napi_callback_info info);
napi_value mg_log_writer_append_batch(napi_env env, napi_callback_info info);
napi_value mg_log_writer_advance_tx_count(napi_env env, napi_callback_info info);
napi_value mg_log_writer_tx_count(napi_env env, napi_callback_info info);
napi_value mg_log_writer_finish(napi_env env, napi_callback_info info);
napi_value mg_log_writer_close(napi_env env, napi_callback_info info);

/* Shared by the sync and async paths: the value of a JSON result text, or
 * NULL with an exception pending. Frees `json`. */
napi_value mg_result_value(napi_env env, char *json);
/* A max_rows argument: a non-negative integer Number; 0 counts as 1. */
bool mg_max_rows_arg(napi_env env, napi_value value, size_t *out);

/* Throws the exception whose creation failed, if none is pending yet. */
#define MG_CHECK(env, call)            \
    do {                               \
        if ((call) != napi_ok) {       \
            mg_throw_last_status(env); \
            return NULL;               \
        }                              \
    } while (0)

void mg_throw_last_status(napi_env env);

/* Numeric error codes the addon raises itself. */
#define MG_API_017 (MINIGRAF_FAMILY_API * 1000 + 17) /* invalid argument */
#define MG_API_018 (MINIGRAF_FAMILY_API * 1000 + 18) /* closed object */

#endif /* MINIGRAF_NODE_ADDON_H */
