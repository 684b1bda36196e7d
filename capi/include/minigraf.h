/*
 * minigraf.h — the public C API of minigraf, an embedded, single-file,
 * bi-temporal graph database with a Datalog query language.
 *
 * This header is the manual. Every function states what it does, who owns
 * what it returns and until when, and how it fails. Nothing outside this
 * file is a published API.
 *
 * Conventions (apply to every function unless its comment says otherwise):
 *
 *  - Text is UTF-8, NUL-terminated. Invalid UTF-8 is an error (API-017).
 *  - A `char *` returned to the caller is owned by the caller and must be
 *    released with minigraf_string_free(). A `const char *` is borrowed.
 *  - A function that fails returns NULL (pointer results) or a non-zero
 *    status (int results); the handle then holds the error: a numeric code
 *    (minigraf_last_error_code), its spec name ("PRS-011"; see
 *    minigraf_error_code_name) and a message that starts with "[CODE] ".
 *    After a successful call on a handle its last error is NULL / 0.
 *  - NULL handles are accepted everywhere: destructors do nothing, every
 *    other function fails (API-017) without touching memory.
 *  - Handles are checked against a registry of live objects, so using a
 *    handle after it was freed or closed (for example freeing a cursor
 *    twice) is detected and reported as API-018 instead of crashing.
 *    (Detection ends if the allocator reuses the address for a new handle.)
 *  - Threads: a MiniGrafDb may be shared between threads with no lock of
 *    the caller's: queries from several threads run in parallel, each on
 *    its own snapshot; writes and checkpoints take the database's single
 *    writer in turn (shared by every handle on the same file, see
 *    minigraf_open_with_options). Its last error is kept per thread: a
 *    thread reads the error of its own last call on the handle, whatever
 *    other threads do with it meanwhile. minigraf_close may be called while
 *    other threads are inside calls on the database (since 0.2.0): it
 *    interrupts them (they return API-013, or finish normally when past
 *    the point of no return), waits for them to return, then frees; calls
 *    that come after it fail with API-018. Handle structs are never given
 *    back to the allocator, only reused for new database handles, so a
 *    late call on a closed handle is detected, not a use after free.
 *    A MiniGrafCursor, fact log or log writer must be used by one thread at
 *    a time. Callbacks (progress handler) run only on the thread that made
 *    the call: the library never calls into the application from a thread
 *    of its own.
 *
 * Since 0.1.0 unless stated otherwise.
 */
#ifndef MINIGRAF_H
#define MINIGRAF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#  if defined(MINIGRAF_BUILDING)
#    define MINIGRAF_API __declspec(dllexport)
#  else
#    define MINIGRAF_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__)
#  define MINIGRAF_API __attribute__((visibility("default")))
#else
#  define MINIGRAF_API
#endif

/* ------------------------------------------------------------------------
 * Versions
 * ---------------------------------------------------------------------- */

#define MINIGRAF_VERSION_MAJOR 0
#define MINIGRAF_VERSION_MINOR 2
#define MINIGRAF_VERSION_PATCH 0
#define MINIGRAF_VERSION "0.2.0"
/* major * 1000000 + minor * 1000 + patch */
#define MINIGRAF_VERSION_NUMBER 2000
/* Bumped on any incompatible ABI change; it is the SONAME's number. */
#define MINIGRAF_ABI_VERSION 1

/* The library's version string, e.g. "0.2.0". Static storage. */
MINIGRAF_API const char *minigraf_version(void);
/* The library's MINIGRAF_VERSION_NUMBER. */
MINIGRAF_API int minigraf_version_number(void);
/* The library's MINIGRAF_ABI_VERSION. A binding compares it with the value
 * it was compiled against and refuses a mismatch. */
MINIGRAF_API int minigraf_abi_version(void);

/* ------------------------------------------------------------------------
 * Error codes
 *
 * Every error has a spec code "FAM-NNN" (docs/errors.md). Its numeric form
 * is family * 1000 + NNN, with the families below; 0 means no error.
 * ---------------------------------------------------------------------- */

#define MINIGRAF_OK 0
#define MINIGRAF_FAMILY_PRS 1 /* parse errors            PRS-001 = 1001 */
#define MINIGRAF_FAMILY_QRY 2 /* query execution         QRY-007 = 2007 */
#define MINIGRAF_FAMILY_STG 3 /* storage / file format   STG-026 = 3026 */
#define MINIGRAF_FAMILY_WAL 4 /* write-ahead log         WAL-003 = 4003 */
#define MINIGRAF_FAMILY_API 5 /* host API misuse         API-017 = 5017 */
#define MINIGRAF_FAMILY_INT 6 /* other engine errors     INT-001 = 6001 */

#define MINIGRAF_ERROR_FAMILY(code) ((code) / 1000)

/* The spec name of a numeric code ("PRS-011"), or NULL if `code` is not a
 * valid code (0 included). Static storage. */
MINIGRAF_API const char *minigraf_error_code_name(int code);

/* ------------------------------------------------------------------------
 * Database handles
 * ---------------------------------------------------------------------- */

typedef struct MiniGrafDb MiniGrafDb;
typedef struct MiniGrafCursor MiniGrafCursor;

/* Opens (creating if missing) the file-backed database at `path`.
 * Returns NULL on failure; the reason is then not retrievable — use
 * minigraf_open_with_options() to get it. */
MINIGRAF_API MiniGrafDb *minigraf_open(const char *path);

/* Opens a new, empty in-memory database. NULL only when out of memory. */
MINIGRAF_API MiniGrafDb *minigraf_open_in_memory(void);

/* Opens a database with options.
 *
 * `path` NULL or "" opens an in-memory database. `options_json` may be NULL
 * or a JSON object; keys (all optional):
 *   "read_only"          bool   writes fail with API-014; the file lock is
 *                               shared, so several read-only opens (in
 *                               different processes) coexist, never with a
 *                               writer (STG-026)
 *   "allow_unlocked"     bool   default false; where the filesystem cannot
 *                               lock files (STG-027) open without the
 *                               inter-process lock (the caller then keeps
 *                               other processes away)
 *   "page_cache_size"    int>=1 pages of 4096 bytes kept in the LRU page
 *                               cache; default 1024 (4 MiB)
 *   "wal_checkpoint_threshold" int>=0 facts in the WAL (<path>.wal) that
 *                               trigger an automatic checkpoint after a
 *                               commit; default 1000; 0 never checkpoints
 *                               automatically
 *   "synchronous"        "full" (default): each commit's WAL frame is
 *                               fsync'd before the call returns;
 *                               "normal": the WAL is synced at checkpoint
 *                               and close only, so a commit survives a
 *                               crash of the process but maybe not of the
 *                               machine (never a torn state either way)
 *   "max_derived_facts"  int>=1 default 1000000 (rules; see the spec 9.6)
 *   "max_results"        int>=1 default 1000000
 *   "query_memory_limit" int>=0 bytes one query may hold (joined solutions,
 *                               aggregate groups, window and sort buffers,
 *                               the result itself) before it fails with
 *                               QRY-012 naming the operator; default
 *                               1073741824 (1 GiB); 0 = unlimited
 *   "query_timeout_ms"   int>=0 milliseconds a query call (minigraf_execute,
 *                               minigraf_query, one cursor fetch) may run
 *                               before it fails with API-013; default 0 =
 *                               no limit (since 0.2.0)
 * Options other than the limits are ignored for in-memory databases.
 * Any other key, a wrong type or malformed JSON fails with API-017.
 * A damaged or foreign file fails with its STG code (docs/file-format.md).
 *
 * Opening a file this process already has open (since 0.2.0; before, that
 * failed with STG-025) gives a second handle over the same store: each
 * sees the other's commits, writes from both are serialised, each has its
 * own rules, progress handler and limits, closing one leaves the other
 * working and the last close checkpoints. A read-only open may join a
 * read-write one (its handle refuses writes with API-014). STG-025 now
 * means the two opens conflict, and its message names the conflict: a
 * read-write open of a file open read-only here, or a different
 * "synchronous" or "wal_checkpoint_threshold". "page_cache_size" and
 * "allow_unlocked" are the first open's.
 *
 * On failure returns NULL and, if `error_out` is not NULL, stores there a
 * "[CODE] message" string the caller frees with minigraf_string_free(). On
 * success `*error_out` is left untouched. */
MINIGRAF_API MiniGrafDb *minigraf_open_with_options(const char *path,
                                                    const char *options_json,
                                                    char **error_out);

/* Closes the database and frees the handle. Committed data is durable
 * already; close also checkpoints a file-backed database (the last handle
 * on the file does). Cursors opened on the database stay readable (their
 * answers are fixed when they open) and must still be freed; one whose
 * fetch is running at that moment is interrupted (API-013). Fact logs of
 * the database fail with API-018 from then on and must still be freed.
 * Thread: any, also while other threads are inside calls on `db` (since
 * 0.2.0: see "Threads" above); a second close, from any thread, is a
 * no-op. NULL is a no-op. */
MINIGRAF_API void minigraf_close(MiniGrafDb *db);

/* Executes exactly one command — (transact ...), (retract ...), (query ...)
 * or (rule ...) — and returns its result as compact JSON:
 *   {"transacted": <tx wall-clock ms>}   {"retracted": <ms>}   {"ok": true}
 *   {"variables": ["?n", ...], "results": [[value, ...], ...]}
 * Values: string → JSON string; integer → exact JSON integer; float →
 * shortest round-trip number, integral values keep ".0", NaN/±Inf → null;
 * boolean; keyword → ":ns/name"; entity/ref → lowercase UUID string;
 * null → null.
 * Returns NULL on error (see minigraf_last_error). Free with
 * minigraf_string_free(). */
MINIGRAF_API char *minigraf_execute(MiniGrafDb *db, const char *text);

/* Writes the transaction counter (what `:as-of N` counts: 0 for a new
 * database, +1 per committed transact/retract) to `*out`.
 * Returns 0, or non-zero on error (NULL `db` or `out`). */
MINIGRAF_API int minigraf_current_tx_count(MiniGrafDb *db, uint64_t *out);

/* Makes a file-backed database's file self-contained: writes every
 * committed transaction into the main file and empties the log. A no-op
 * for in-memory databases. Returns 0, or non-zero on error. */
MINIGRAF_API int minigraf_checkpoint(MiniGrafDb *db);

/* The "[CODE] message" of the last failed call on `db`, or NULL if the last
 * call succeeded. Borrowed: valid until the next call on `db`. */
MINIGRAF_API const char *minigraf_last_error(const MiniGrafDb *db);

/* The numeric code of the last failed call on `db`; 0 after success. For a
 * NULL or dead handle: API-017 / API-018. */
MINIGRAF_API int minigraf_last_error_code(const MiniGrafDb *db);

/* ------------------------------------------------------------------------
 * Cursors
 * ---------------------------------------------------------------------- */

/* Runs a (query ...) and opens a cursor over its answer. The answer is
 * fixed when the cursor opens; later writes do not change it. A plain
 * projection (no aggregate, window or :order-by) streams: each batch is
 * produced when asked for, and a write, checkpoint or close on `db` first
 * reads the cursor's rest into memory. A command other than query fails
 * with API-012. Returns NULL on error (see minigraf_last_error on `db`).
 * Free with minigraf_cursor_free(). */
MINIGRAF_API MiniGrafCursor *minigraf_query(MiniGrafDb *db, const char *text);

/* The :find column headers as a compact JSON array, e.g. ["?n","(count ?e)"].
 * Free with minigraf_string_free(). NULL on error. */
MINIGRAF_API char *minigraf_cursor_vars(MiniGrafCursor *cursor);

/* Row formats for minigraf_cursor_set_format. */
#define MINIGRAF_FORMAT_JSON 0  /* values as in minigraf_execute (default) */
#define MINIGRAF_FORMAT_TYPED 1 /* lossless: {"type":"keyword","value":":a"};
                                   types: string integer float boolean ref
                                   keyword null list; float NaN/Inf as the
                                   strings "NaN" "Infinity" "-Infinity"; a
                                   list (collect-set) holds typed items:
                                   {"type":"list","value":[{...},...]} */

/* Chooses how the following batches render values. Returns 0, or non-zero
 * for an unknown format (API-017). Since 0.1.0. */
MINIGRAF_API int minigraf_cursor_set_format(MiniGrafCursor *cursor, int format);

/* The next at most `max_rows` rows (0 counts as 1) as a JSON array of rows,
 * `[[v, ...], ...]`. Returns NULL at the end — then
 * minigraf_cursor_last_error() is NULL and later calls keep returning NULL —
 * or on error, when the cursor's last error is set (e.g. QRY-012 met while
 * streaming; the batch is dropped and later calls return NULL). Free with
 * minigraf_string_free(). */
MINIGRAF_API char *minigraf_cursor_next_batch(MiniGrafCursor *cursor,
                                              size_t max_rows);

/* The "[CODE] message" of the cursor's last failed call, or NULL. Borrowed
 * until the next call on the cursor. */
MINIGRAF_API const char *minigraf_cursor_last_error(const MiniGrafCursor *cursor);

/* The numeric code of the cursor's last failed call; 0 after success. */
MINIGRAF_API int minigraf_cursor_last_error_code(const MiniGrafCursor *cursor);

/* Frees the cursor. NULL is a no-op; a second free of the same cursor is
 * detected and ignored. */
MINIGRAF_API void minigraf_cursor_free(MiniGrafCursor *cursor);

/* ------------------------------------------------------------------------
 * Fact log: every stored fact version, as typed records
 *
 * A record is one JSON object:
 *   {"entity":"<uuid>","attribute":":person/age",
 *    "value":{"type":"integer","value":30},
 *    "tx_count":1,"tx_id":1717000000123,
 *    "valid_from":1717000000123,"valid_to":9223372036854775807,
 *    "asserted":true}
 * "value" uses the typed form of MINIGRAF_FORMAT_TYPED, so a record round
 * trips losslessly (keyword vs string vs ref, integer vs float, NaN).
 * Since 0.1.0.
 * ---------------------------------------------------------------------- */

typedef struct MiniGrafFactLog MiniGrafFactLog;

/* Opens a stream over the fact records of `db`, as the database stands now
 * (later commits are not seen). `filter_json` is NULL (every record) or a
 * JSON object with any of these keys:
 *   "attributes"          ["…", …] keep records whose attribute is one of
 *                         these keywords (text with the ':')
 *   "attribute_prefixes"  ["…", …] … or starts with one of these texts
 *                         (with "attributes", a record passes if it matches
 *                         either list)
 *   "entities"            ["<uuid>", …] keep records of these entities
 *   "tx_from", "tx_to"    integers: keep tx_from <= tx_count <= tx_to
 *   "window"              {"from": ms, "to": ms}: keep records whose valid
 *                         window [valid_from, valid_to) overlaps [from, to);
 *                         either bound may be omitted
 *   "order"               "tx" (default): commit order, and statement order
 *                         within a transaction; "storage": the order of the
 *                         entity index (entity, attribute, value, tx), the
 *                         cheapest to produce
 * A list that is present but empty matches nothing; "filter_json" "null"
 * or "{}" is no filter. Unknown or repeated keys, wrong types and malformed
 * JSON fail with API-017. Returns NULL on error (see minigraf_last_error on
 * `db`). Free with minigraf_fact_log_free().
 *
 * The log holds no lock between batches (writers are never blocked by it)
 * and reads the indexes as each batch is written, so memory follows the
 * batch size. Closing `db` ends the log: its next batch fails with API-018,
 * and it must still be freed. A fact log is used by one thread at a time. */
MINIGRAF_API MiniGrafFactLog *minigraf_fact_log(MiniGrafDb *db, const char *filter_json);

/* The next at most `max_records` records (0 counts as 1) as a JSON array of
 * record objects, never empty. NULL at the end (then the last error is NULL
 * and later calls keep returning NULL) or on error (then it is set). Free
 * with minigraf_string_free(). */
MINIGRAF_API char *minigraf_fact_log_next_batch(MiniGrafFactLog *log, size_t max_records);

/* The "[CODE] message" of the log's last failed call, or NULL; borrowed
 * until the next call on the log. NULL / dead handles: API-017 / API-018. */
MINIGRAF_API const char *minigraf_fact_log_last_error(const MiniGrafFactLog *log);
/* The numeric code of the log's last failed call; 0 after success. */
MINIGRAF_API int minigraf_fact_log_last_error_code(const MiniGrafFactLog *log);
/* NULL and a second free are harmless. */
MINIGRAF_API void minigraf_fact_log_free(MiniGrafFactLog *log);

/* ------------------------------------------------------------------------
 * Log writer: builds a new database file from fact records
 *
 * The records of a fact log, appended in its "tx" order, rebuild a database
 * that answers every query identically — including :as-of and the
 * transaction counter. Since 0.1.0.
 * ---------------------------------------------------------------------- */

typedef struct MiniGrafLogWriter MiniGrafLogWriter;

/* Starts writing a new database file at `path`, which must not exist, nor
 * may `<path>.wal` (STG-043 "log writer target already exists: <path>").
 * `options_json`: NULL or an object with "synchronous", "page_cache_size"
 * and "wal_checkpoint_threshold" as for minigraf_open_with_options, except
 * that "synchronous" defaults to "normal" here (nothing survives unless
 * finish succeeds, and finish syncs); other keys are API-017. On failure
 * returns NULL and stores a message in `*error_out` (if not NULL) that the
 * caller frees with minigraf_string_free(); on success `*error_out` is left
 * untouched. A log writer is used by one thread at a time. */
MINIGRAF_API MiniGrafLogWriter *minigraf_log_writer_create(const char *path,
                                                           const char *options_json,
                                                           char **error_out);

/* Appends one record (a JSON object as produced by the fact log, every key
 * required). The record keeps its tx_count, tx_id, valid window and
 * asserted flag exactly. Records must come in non-decreasing tx_count
 * order, at least 1 and greater than the writer's current counter or equal
 * to it; records with the same tx_count form one transaction, which stays
 * open until a record with a greater tx_count, advance_tx_count past it or
 * finish. Errors: API-017 for malformed JSON, a missing, unknown or
 * repeated key, a value that does not fit its type, an attribute that is
 * not a keyword, a decreasing tx_count, or an assertion whose valid_to is
 * not after its valid_from; WAL-003 a text too long for the file format;
 * API-018 after finish. Returns 0 or the error code. */
MINIGRAF_API int minigraf_log_writer_append(MiniGrafLogWriter *w, const char *record_json);

/* Appends a JSON array of records, all or nothing: every record is checked
 * before any is written, and a bad record (the message names its
 * index) leaves the writer unchanged. Errors as for append. */
MINIGRAF_API int minigraf_log_writer_append_batch(MiniGrafLogWriter *w, const char *records_json);

/* Raises the transaction counter to `tx_count` with empty transactions
 * (as a source database's empty transacts and no-op retractions did), so
 * the rebuilt counter matches. A value below the current counter is
 * API-017. */
MINIGRAF_API int minigraf_log_writer_advance_tx_count(MiniGrafLogWriter *w, uint64_t tx_count);

/* Writes the writer's transaction counter so far (the highest tx_count
 * appended or advanced to) to `*out`. Returns 0, or API-017 for NULL
 * `out`. */
MINIGRAF_API int minigraf_log_writer_tx_count(MiniGrafLogWriter *w, uint64_t *out);

/* Commits everything, checkpoints and closes the file; the writer can then
 * only be freed (tx_count and the error calls still answer). A second
 * finish, like any append or advance after it, fails with API-018. On an
 * error the writer stays unfinished. */
MINIGRAF_API int minigraf_log_writer_finish(MiniGrafLogWriter *w);

/* The "[CODE] message" of the writer's last failed call, or NULL; borrowed
 * until the next call on the writer. NULL / dead handles: API-017 /
 * API-018. */
MINIGRAF_API const char *minigraf_log_writer_last_error(const MiniGrafLogWriter *w);
/* The numeric code of the writer's last failed call; 0 after success. */
MINIGRAF_API int minigraf_log_writer_last_error_code(const MiniGrafLogWriter *w);

/* Frees the writer. An unfinished writer is abandoned: the partial file
 * (and its WAL) is deleted. NULL and a second free are harmless. */
MINIGRAF_API void minigraf_log_writer_free(MiniGrafLogWriter *w);

/* ------------------------------------------------------------------------
 * Value types (since 0.2.0)
 *
 * The type of a value as typed rows (minigraf_cursor_column_type) and host
 * functions (minigraf_value) see it: the value model of the spec (6.2), plus
 * LIST for what collect-set returns. Stable numbers.
 * ---------------------------------------------------------------------- */

#define MINIGRAF_TYPE_NULL 0
#define MINIGRAF_TYPE_STRING 1
#define MINIGRAF_TYPE_INTEGER 2 /* int64 */
#define MINIGRAF_TYPE_FLOAT 3   /* double, NaN and +-Inf included */
#define MINIGRAF_TYPE_BOOLEAN 4
#define MINIGRAF_TYPE_KEYWORD 5 /* text ":ns/name" */
#define MINIGRAF_TYPE_REF 6     /* an entity: 16-byte UUID */
#define MINIGRAF_TYPE_LIST 7    /* collect-set's answer (typed rows only) */

/* ------------------------------------------------------------------------
 * Prepared queries (since 0.2.0)
 * ---------------------------------------------------------------------- */

/* (end of prepared queries) */

/* ------------------------------------------------------------------------
 * Write transactions (since 0.2.0)
 * ---------------------------------------------------------------------- */

/* (end of write transactions) */

/* ------------------------------------------------------------------------
 * Host functions (since 0.2.0)
 * ---------------------------------------------------------------------- */

/* (end of host functions) */

/* ------------------------------------------------------------------------
 * Cancellation, progress and shared handles (since 0.2.0)
 * ---------------------------------------------------------------------- */

/* Stops every call running on `db` when it is made: a query
 * (minigraf_execute, minigraf_query), a fetch of one of its streaming
 * cursors (minigraf_cursor_next_batch), a write statement
 * (minigraf_execute of transact / retract). Each stopped call returns within
 * about 10 ms with API-013 (`[API-013] interrupted`); a write stopped
 * this way has written nothing. The database stays usable, and a call
 * that begins after minigraf_interrupt returned is not affected (SQLite's
 * semantics, per call): there is nothing to reset. A cursor whose fetch
 * was stopped is finished: later fetches return NULL with the same error.
 * A call already past the point of no return (a commit being written, a
 * checkpoint) completes normally.
 *
 * Thread: any. Signal handlers: safe (only lock-free atomic operations)
 * as long as `db` is not being closed by minigraf_close at the same
 * moment; block the signal, or stop the handler from using `db`, before
 * closing it. NULL, closed or foreign handles: nothing happens.
 * Since 0.2.0. */
MINIGRAF_API void minigraf_interrupt(MiniGrafDb *db);

/* Installs a progress handler on `db`: `fn(user_data)` is called about
 * every `every_n_rows` units of work (a record read or a row produced by
 * a query, a row sorted), on the thread that made the call, by every
 * later query, cursor fetch and write statement on `db`. A non-zero
 * return stops that call as minigraf_interrupt does (API-013, `[API-013]
 * interrupted by the progress handler`). `fn` NULL removes the handler
 * (then `every_n_rows` is ignored). One handler per database: a new one
 * replaces the old; a call already running keeps the handler it began
 * with, so `user_data` must stay valid until such calls return. `fn` must
 * not call minigraf functions on `db` other than minigraf_interrupt.
 *
 * Returns 0, or API-017 (`every_n_rows` < 1 with a handler), API-018.
 * Thread: any. Since 0.2.0. */
MINIGRAF_API int minigraf_progress_handler(MiniGrafDb *db, int every_n_rows,
                                           int (*fn)(void *user_data), void *user_data);

/* (end of cancellation, progress and shared handles) */

/* ------------------------------------------------------------------------
 * Typed rows (since 0.2.0)
 * ---------------------------------------------------------------------- */

/* (end of typed rows) */

/* ------------------------------------------------------------------------
 * Open with a code, export, open options, error constants (since 0.2.0)
 * ---------------------------------------------------------------------- */

/* (end of open with a code, export, open options, error constants) */

/* ------------------------------------------------------------------------
 * Memory
 * ---------------------------------------------------------------------- */

/* Frees a string returned by this library. NULL is a no-op. */
MINIGRAF_API void minigraf_string_free(char *s);

#ifdef __cplusplus
}
#endif

#endif /* MINIGRAF_H */
