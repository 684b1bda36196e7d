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
 *  - Status results, two rules. The functions of 0.1.0 (the compatibility
 *    set: minigraf_current_tx_count, minigraf_checkpoint,
 *    minigraf_cursor_set_format, minigraf_log_writer_append, _append_batch,
 *    _advance_tx_count, _tx_count, _finish) return 0 or -1, as the earlier
 *    minigraf C API did; the numeric code is then read with the handle's
 *    *_last_error_code call. Functions since 0.2.0 return 0 or the
 *    positive numeric code itself (and also record it on the handle); the
 *    one exception is minigraf_cursor_step (1 row, 0 end, minus the code).
 *  - NULL handles are accepted everywhere: destructors do nothing, every
 *    other function fails (API-017) without touching memory;
 *    minigraf_last_error(NULL) and the other *_last_error(NULL) return
 *    NULL (their *_last_error_code(NULL) return API-017).
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
 *    interrupts them (they fail, or finish normally when past the point of
 *    no return), waits for them to return, then frees; calls that come
 *    after it fail with API-018. An interrupted call that returns its code
 *    returns API-013; read through the handle, which is closed by then,
 *    its code is API-018 (the handle's per-thread errors go with it). Handle structs are never
 * given back to the allocator, only reused for new database handles, so a late call on a closed
 * handle is detected, not a use after free. A MiniGrafCursor, fact log or log writer must be used
 * by one thread at a time. Callbacks (progress handler) run only on the thread that made the call:
 * the library never calls into the application from a thread of its own.
 *  - Fairness: a write waiting for the database waits only for the
 *    queries already running, never for queries that start after it; the
 *    queries waiting for a write then run before the next write (since
 *    0.2.0).
 *
 * Caveats:
 *
 *  - fork(): a child process must not use the handles of its parent. Any
 *    call on a handle opened before the fork (database, cursor) fails in
 *    the child with API-022 and touches nothing: no write, no checkpoint,
 *    no lock; minigraf_close and the *_free calls do nothing there (the
 *    child's copy of the memory is not given back). The parent goes on
 *    unaffected. A child that needs the database opens it itself, after
 *    the fork (a file the parent still has open read-write is refused with
 *    STG-026: one writer process at a time). Handles of other kinds
 *    (statements, transactions, fact logs, log writers) also refuse every
 *    call in the child, with API-018. The library's descriptors are
 *    close-on-exec. Since 0.2.0.
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
#if defined(MINIGRAF_BUILDING)
#define MINIGRAF_API __declspec(dllexport)
#else
#define MINIGRAF_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define MINIGRAF_API __attribute__((visibility("default")))
#else
#define MINIGRAF_API
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
 * minigraf_open_with_options() or minigraf_open_v2() to get it. */
MINIGRAF_API MiniGrafDb *minigraf_open(const char *path);

/* Opens a new, empty in-memory database. NULL only when out of memory. */
MINIGRAF_API MiniGrafDb *minigraf_open_in_memory(void);

/* Opens a database with options.
 *
 * `path` NULL opens an in-memory database (as minigraf_open_in_memory);
 * "" fails with API-017 (since 0.2.0: before, it silently opened an
 * in-memory database, and everything written was lost at close). `options_json` may be NULL
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
 *                               cache; default 4096 (16 MiB at most, filled on demand)
 *   "wal_checkpoint_threshold" int>=0 facts in the WAL (<path>.wal) that
 *                               trigger an automatic checkpoint after a
 *                               commit (so do 4,096,000 bytes of it);
 *                               default 100000; 0 never checkpoints
 *                               automatically. Its fsyncs and header
 *                               switch run on a thread of the
 *                               database's while later commits go on
 *   "synchronous"        "full" (default): each commit's WAL frame is
 *                               fsync'd before the call returns;
 *                               "normal": the WAL is synced at checkpoint
 *                               and close only, so a commit survives a
 *                               crash of the process but maybe not of the
 *                               machine (never a torn state either way)
 *   "recover"            "truncate_wal": open a database whose WAL is
 *                               corrupt (STG-045: a damaged frame that
 *                               frames verifying after it show is not a
 *                               torn tail) by dropping the damaged frame
 *                               and everything after it. Without it that
 *                               open fails, changes nothing, and its
 *                               message names the frame and how many
 *                               commits this option would drop. Since 0.2.0
 *   "history_index"      bool   default false; keep the history index, so
 *                               a read of one entity and attribute costs
 *                               the same at any history depth, at a cost
 *                               to every write and to the file's size. A
 *                               file records the choice it was made with
 *                               and later opens follow it; true on a file
 *                               without the index builds it at a
 *                               read-write open (a read-only open reads
 *                               without it); false never drops it.
 *                               Since 0.2.0
 *   "max_derived_facts"  int>=1 default 1000000 (rules; see language.md §9.6)
 *   "max_results"        int>=1 default 1000000
 *   "query_memory_limit" int>=0 bytes one query may hold (joined solutions,
 *                               aggregate groups, window and sort buffers,
 *                               the result itself) before it fails with
 *                               QRY-012 naming the operator; default
 *                               1073741824 (1 GiB); 0 = unlimited
 *   "busy_timeout_ms"    int>=0 milliseconds a writer waits for another
 *                               thread's write transaction before it fails
 *                               with API-020; default 5000 (since 0.2.0).
 *                               Not for another process: an open of a file
 *                               another process holds (read-write, or
 *                               read-only against a writer) fails at once
 *                               with STG-026 whatever this says
 *   "query_timeout_ms"   int>=0 milliseconds a query call (minigraf_execute,
 *                               minigraf_query, one cursor fetch) may run
 *                               before it fails with API-013; default 0 =
 *                               no limit (since 0.2.0)
 * minigraf_options_describe returns this list as JSON.
 * Options other than the limits are ignored for in-memory databases.
 * Any other key, a wrong type or malformed JSON fails with API-017.
 * A damaged or foreign file fails with its STG code (docs/file-format.md):
 * STG-044 when the WAL beside it (`<real path>.wal`) is another
 * database's, STG-045 when the WAL is corrupt (see "recover").
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
MINIGRAF_API MiniGrafDb *minigraf_open_with_options(const char *path, const char *options_json,
                                                    char **error_out);

/* Closes the database and frees the handle. Committed data is durable
 * already; close also checkpoints a file-backed database (the last handle
 * on the file does). Cursors opened on the database stay readable (their
 * answers are fixed when they open) and must still be freed; one whose
 * fetch is running at that moment is interrupted (API-013). Fact logs of
 * the database fail with API-018 from then on and must still be freed.
 * Thread: any, also while other threads are inside calls on `db` (since
 * 0.2.0: see "Threads" above); a second close, from any thread, is a
 * no-op. An open write transaction (minigraf_begin_write) is rolled back;
 * its handle, like a prepared statement's, then only fails with API-018
 * and must still be freed. NULL is a no-op. */
MINIGRAF_API void minigraf_close(MiniGrafDb *db);

/* Executes exactly one command — (transact ...), (retract ...), (query ...)
 * or (rule ...) — and returns its result as compact JSON:
 *   {"transacted": <tx wall-clock ms>}   {"retracted": <ms>}   {"ok": true}
 *   {"variables": ["?n", ...], "results": [[value, ...], ...]}
 * Values: string → JSON string; integer → exact JSON integer; float →
 * shortest round-trip number, integral values keep ".0", NaN/±Inf → null;
 * boolean; keyword → ":ns/name"; entity/ref → lowercase UUID string;
 * null → null.
 * Size limits (docs/language.md "Size limits"): a string value is at most
 * 1048576 bytes of UTF-8 after its escapes are decoded (PRS-007 beyond),
 * and at most 4068 bytes in a file-backed database (WAL-003 beyond, from
 * transact, a write transaction's commit, the log writer and
 * minigraf_export; nothing of the transaction is written).
 * Returns NULL on error (see minigraf_last_error). Free with
 * minigraf_string_free(). */
MINIGRAF_API char *minigraf_execute(MiniGrafDb *db, const char *text);

/* Writes the transaction counter (what `:as-of N` counts: 0 for a new
 * database, +1 per committed transact/retract) to `*out`.
 * Returns 0, or -1 on error (NULL `db` or `out`; the code from
 * minigraf_last_error_code). */
MINIGRAF_API int minigraf_current_tx_count(MiniGrafDb *db, uint64_t *out);

/* Makes a file-backed database's file self-contained: writes every
 * committed transaction into the main file and empties the log. A no-op
 * for in-memory databases. Returns 0, or -1 on error (the code from
 * minigraf_last_error_code). */
MINIGRAF_API int minigraf_checkpoint(MiniGrafDb *db);

/* The "[CODE] message" of the last failed call on `db`, or NULL if the last
 * call succeeded; NULL for a NULL `db` (an API-018 message for a closed
 * one). Borrowed: valid until the next call on `db`. */
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
 * produced when asked for, from the snapshot of the cursor's opening,
 * while other threads commit; a rule, a write transaction's commit, a
 * checkpoint (including the automatic one a write starts every
 * wal_checkpoint_threshold facts, or when open cursors keep too many old
 * pages) or a close on `db` first reads the cursor's rest into memory.
 * A command other than query fails
 * with API-012. Returns NULL on error (see minigraf_last_error on `db`).
 * Free with minigraf_cursor_free(). */
MINIGRAF_API MiniGrafCursor *minigraf_query(MiniGrafDb *db, const char *text);

/* The :find column headers as a compact JSON array, e.g. ["?n","(count ?e)"].
 * Free with minigraf_string_free(). NULL on error. */
MINIGRAF_API char *minigraf_cursor_vars(MiniGrafCursor *cursor);

/* Row formats for minigraf_cursor_set_format. */
#define MINIGRAF_FORMAT_JSON 0 /* values as in minigraf_execute (default) */
#define MINIGRAF_FORMAT_TYPED                       \
    1 /* lossless: {"type":"keyword","value":":a"}; \
         types: string integer float boolean ref    \
         keyword null list; float NaN/Inf as the    \
         strings "NaN" "Infinity" "-Infinity"; a    \
         list (collect-set) holds typed items:      \
         {"type":"list","value":[{...},...]} */

/* Chooses how the following batches render values. Returns 0, or -1 for
 * an unknown format (API-017, from minigraf_cursor_last_error_code).
 * Since 0.1.0. */
MINIGRAF_API int minigraf_cursor_set_format(MiniGrafCursor *cursor, int format);

/* The next at most `max_rows` rows (0 counts as 1) as a JSON array of rows,
 * `[[v, ...], ...]`. Returns NULL at the end — then
 * minigraf_cursor_last_error() is NULL and later calls keep returning NULL —
 * or on error, when the cursor's last error is set (e.g. QRY-012 met while
 * streaming; the batch is dropped and later calls return NULL). Free with
 * minigraf_string_free(). */
MINIGRAF_API char *minigraf_cursor_next_batch(MiniGrafCursor *cursor, size_t max_rows);

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
 * API-018 after finish. Since 0.2.0 a record is checked as `transact`
 * would have written it: an attribute or keyword value the language cannot
 * write (language.md §2.2: ':' then letters, digits, '/', '-', '_', '?'; so no
 * space, '.', NUL...) is API-017, a pseudo-attribute (:db/tx-count,
 * :db/tx-id, :db/valid-from, :db/valid-to, :db/valid-at) API-004, and a
 * tx_count above 2^63 - 1 STG-046; a gap in tx_count costs one record
 * whatever its size. Numbers with a leading '+' or leading zeros and
 * repeated member names anywhere in the JSON are API-017 (RFC 8259). The
 * record is refused whole; nothing of it is kept. Returns 0, or -1 with
 * the code from minigraf_log_writer_last_error_code (as every int-returning
 * log writer call: append_batch, advance_tx_count, tx_count, finish). */
MINIGRAF_API int minigraf_log_writer_append(MiniGrafLogWriter *w, const char *record_json);

/* Appends a JSON array of records, all or nothing: every record is checked
 * before any is written, and a bad record (the message names its
 * index) leaves the writer unchanged. Errors as for append. */
MINIGRAF_API int minigraf_log_writer_append_batch(MiniGrafLogWriter *w, const char *records_json);

/* Raises the transaction counter to `tx_count` with empty transactions
 * (as a source database's empty transacts and no-op retractions did), so
 * the rebuilt counter matches. A value below the current counter is
 * API-017; one above 2^63 - 1 (the largest `:as-of` takes) is STG-046.
 * Since 0.2.0 any gap is one record in the file: time and size do not
 * depend on it. */
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
 * functions (minigraf_value) see it: the value model of language.md §6.2, plus
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
 *
 * A (query ...) parsed and checked once, then run any number of times with
 * values for its bind slots (`$name`, language.md §13), each run against the
 * database as it is at that moment. Where a slot may stand and what it
 * takes:
 *
 *   pattern entity      [$e :a ?v]          Entity (a UUID)
 *   pattern value       [?e :a $v]          Val (any value, a ref included)
 *   rule argument       (p $x ?y)           Val (Val(ref) for an entity)
 *   expression argument [(>= ?v $min)]      Val
 *   :as-of $t                               TxCount or Timestamp
 *   :valid-at $t                            Timestamp or AnyValidTime
 *
 * A slot is never allowed in attribute position. A bound Val behaves
 * exactly as the same literal written in the text: Val(keyword ":bob")
 * matches the keyword and Bob's ref. One slot may stand in several places;
 * a value must suit each. Binding names a slot without its '$' (a leading
 * '$' is accepted and dropped); binding a name the query does not use is
 * not an error (it is ignored). Bindings stay until re-bound or cleared.
 *
 * Rules registered and host functions added after prepare apply to the
 * next run. A statement holds its database's handle struct, not the
 * database: after minigraf_close(db) every call on the statement fails
 * with API-018 until it is freed.
 *
 * Speed: a statement keeps its query plan and operators from one run to
 * the next and re-opens them with the values bound then, when no value
 * can change the plan (patterns read by index seeks, and expression
 * clauses; not hash joins, rule invocations, host predicates,
 * pseudo-attributes, not / or). It plans
 * again when a slot is bound to another kind or value type, or the
 * database has grown or shrunk far from the size it planned for. A run
 * while the statement's previous cursor is still open plans anew. Each
 * run still reads the database as it is then.
 *
 * Threads: a MiniGrafStmt must be used by one thread at a time (any
 * thread). Its cursors are independent of it once open.
 *
 * Errors: int functions return 0, or the numeric code of the failure
 * (also kept as the statement's last error); API-017 for a NULL handle,
 * API-018 for a freed one or a closed database. API-015 is every bind
 * error of language.md §13: the wrong kind for a slot's position, at bind time
 * ("slot '$e' in entity position requires Entity, got Val"), and a slot
 * left unbound, when run ("missing bind value for slot '$age'").
 * ---------------------------------------------------------------------- */

typedef struct MiniGrafStmt MiniGrafStmt;

/* Parses and checks `text`, which must be one (query ...). Fails (NULL,
 * error on `db` as for minigraf_execute) with the parse error of the text,
 * API-005 / API-006 / API-007 for a transact / retract / rule ("only
 * (query ...) commands can be prepared; got transact"), or API-015 for a
 * slot in attribute position, also inside not / or bodies ("bind slot
 * '$a' is not permitted in attribute position; ..."). Free with
 * minigraf_stmt_free(). Since 0.2.0. */
MINIGRAF_API MiniGrafStmt *minigraf_prepare(MiniGrafDb *db, const char *text);

/* Typed setters: bind the slot `name` (UTF-8, without '$') to one value.
 * Each returns 0, or the error code: API-015 when a place of the slot
 * does not take that kind of value (the binding is then unchanged),
 * API-017 for a bad argument. The statement copies what it needs; the
 * caller's memory is not referred to after the call. Since 0.2.0. */

/* Entity: `uuid_text` is a UUID in text form ("e340ebba-e050-..."). */
MINIGRAF_API int minigraf_stmt_bind_entity(MiniGrafStmt *s, const char *name,
                                           const char *uuid_text);
/* Val(keyword): `text` with its ':' (":person/name"), written as a keyword
 * literal of the language (else API-017). */
MINIGRAF_API int minigraf_stmt_bind_keyword(MiniGrafStmt *s, const char *name, const char *text);
/* Val(string): `len` bytes of UTF-8 at `text` (NUL bytes allowed; `text`
 * may be NULL when `len` is 0). At most 1048576 bytes, the limit of a
 * string literal (PRS-007 beyond, as for minigraf_stmt_bind_json). */
MINIGRAF_API int minigraf_stmt_bind_string(MiniGrafStmt *s, const char *name, const char *text,
                                           size_t len);
/* Val(integer), Val(float), Val(boolean: non-zero is true), Val(null). */
MINIGRAF_API int minigraf_stmt_bind_int64(MiniGrafStmt *s, const char *name, int64_t v);
MINIGRAF_API int minigraf_stmt_bind_double(MiniGrafStmt *s, const char *name, double v);
MINIGRAF_API int minigraf_stmt_bind_bool(MiniGrafStmt *s, const char *name, int v);
MINIGRAF_API int minigraf_stmt_bind_null(MiniGrafStmt *s, const char *name);
/* TxCount (:as-of N; beyond INT64_MAX it means every transaction). */
MINIGRAF_API int minigraf_stmt_bind_tx_count(MiniGrafStmt *s, const char *name, uint64_t tx_count);
/* Timestamp: ms since the Unix epoch (UTC), for :as-of or :valid-at. */
MINIGRAF_API int minigraf_stmt_bind_timestamp_ms(MiniGrafStmt *s, const char *name, int64_t ms);
/* AnyValidTime (:valid-at), as :valid-at :any-valid-time. */
MINIGRAF_API int minigraf_stmt_bind_any_valid_time(MiniGrafStmt *s, const char *name);

/* Binds several slots from one JSON object, each member a slot name and
 * one of
 *   {"entity": "<uuid>"}            Entity
 *   {"val": V}                      Val: V is a plain JSON scalar (string,
 *                                   integer, float (a number with '.' or an
 *                                   exponent), true/false, null) or the
 *                                   typed form of the fact log records
 *                                   ({"type": "keyword", "value": ":a"},
 *                                   "ref", "float" with "NaN", ...)
 *   {"tx_count": N}                 TxCount (N >= 0)
 *   {"timestamp": ms}               Timestamp
 *   {"any_valid_time": true}        AnyValidTime
 * e.g. {"e": {"entity": "e340ebba-..."}, "t": {"tx_count": 1}}. All or
 * nothing: every member is checked before any is bound. Returns 0, or
 * API-017 for malformed JSON or a member of another shape, API-015 for a
 * value of the wrong kind for its slot. Since 0.2.0. */
MINIGRAF_API int minigraf_stmt_bind_json(MiniGrafStmt *s, const char *binds);

/* Unbinds every slot. Returns 0 or the error code. Since 0.2.0. */
MINIGRAF_API int minigraf_stmt_clear_bindings(MiniGrafStmt *s);

/* Runs the query with its bindings and returns the whole answer as
 * minigraf_execute renders a query: {"variables": [...], "results":
 * [[...]]}; the caller frees it with minigraf_string_free(). NULL on
 * error (see minigraf_stmt_last_error): API-015 for an unbound slot, then
 * what the query itself can fail with (QRY-*, INT-*). Since 0.2.0. */
MINIGRAF_API char *minigraf_stmt_execute(MiniGrafStmt *s);

/* Runs the query with its bindings and opens a cursor over its answer,
 * exactly like minigraf_query's (fixed when it opens, streaming, freed
 * with minigraf_cursor_free). Re-binding or freeing the statement does not
 * change or end an open cursor. NULL on error, as minigraf_stmt_execute.
 * Since 0.2.0. */
MINIGRAF_API MiniGrafCursor *minigraf_stmt_query(MiniGrafStmt *s);

/* The "[CODE] message" of the statement's last failed call, or NULL
 * after a successful one. Borrowed: valid until the next call on `s`.
 * NULL for a NULL handle (as every *_last_error), a fixed API-018 message
 * for a freed one. Since 0.2.0. */
MINIGRAF_API const char *minigraf_stmt_last_error(const MiniGrafStmt *s);
/* Its numeric code; 0 after success; API-017 / API-018 for a NULL / freed
 * handle. Since 0.2.0. */
MINIGRAF_API int minigraf_stmt_last_error_code(const MiniGrafStmt *s);

/* Frees the statement (its open cursors stay valid). Works after the
 * database was closed. NULL and a second free are harmless. Since 0.2.0. */
MINIGRAF_API void minigraf_stmt_free(MiniGrafStmt *s);

/* (end of prepared queries) */

/* ------------------------------------------------------------------------
 * An entity bound as a value (since 0.2.0)
 *
 * language.md §13 gives an entity two bind kinds: Entity(uuid), which only the
 * entity position of a pattern takes ([$e :a ?v]), and Val(Ref(uuid)),
 * which the value position ([?e :friend $f]), rule arguments
 * ((reports-to $m ?x)) and expressions take. minigraf_stmt_bind_entity
 * binds the first; this binds the second, as {"val": {"type": "ref",
 * "value": "<uuid>"}} does through minigraf_stmt_bind_json. A Val(Ref)
 * matches as the literal would: the facts whose value is that entity.
 * ---------------------------------------------------------------------- */

/* Val(ref): binds the slot `name` (UTF-8, without '$') to the entity
 * whose UUID is `uuid_text` ("e340ebba-e050-..."), as a value. Returns 0,
 * or the error code: API-015 when a place of the slot does not take a Val
 * (an entity position: "slot '$e' in entity position requires Entity, got
 * Val"; the binding is then unchanged), API-017 for a NULL or malformed
 * UUID text or name, API-017 / API-018 for a NULL / freed statement. The
 * text is not referred to after the call. One thread at a time, as every
 * call on a statement. Since 0.2.0. */
MINIGRAF_API int minigraf_stmt_bind_ref(MiniGrafStmt *s, const char *name, const char *uuid_text);

/* (end of an entity bound as a value) */

/* ------------------------------------------------------------------------
 * Write transactions (since 0.2.0)
 *
 * An explicit write transaction groups several transact / retract
 * statements into one commit: one transaction counter value and one tx
 * time (language.md §15). Its statements are staged in memory and become visible
 * to other readers only at commit, all at once, or never (rollback, free,
 * a crash or exit of the process: nothing staged ever reaches the file
 * before commit, and the commit is one checksummed WAL frame, so a crash
 * during commit leaves either the whole transaction or none of it).
 *
 * One writer at a time: a transaction holds the database's writer from
 * minigraf_begin_write to its commit or rollback. Meanwhile:
 *  - queries (minigraf_execute of a query, minigraf_query, fact logs) on
 *    any thread run as usual and see only committed data: readers are
 *    never blocked;
 *  - a write (transact, retract, rule, minigraf_checkpoint) or a
 *    minigraf_begin_write on ANOTHER thread waits for the transaction to
 *    end, at most "busy_timeout_ms" (open option, default 5000), then
 *    fails with API-020;
 *  - the same on the thread that began the transaction fails at once with
 *    INT-003 (minigraf_execute: "a WriteTransaction is already in
 *    progress on this thread; use tx.execute() instead").
 *
 * A transaction handle is used by one thread at a time; it may be
 * committed, rolled back or freed from another thread than the one that
 * began it. minigraf_close on the database rolls an open transaction back;
 * the handle stays valid (its calls then fail with API-018) and must
 * still be freed with minigraf_tx_free.
 * ---------------------------------------------------------------------- */

typedef struct MiniGrafTx MiniGrafTx;

/* Begins a write transaction on `db`. Returns NULL on failure, with the
 * error on `db` (minigraf_last_error): API-014 a read_only database;
 * INT-003 this thread has a transaction open on `db` already; API-020
 * another thread's transaction stayed open past busy_timeout_ms; API-017
 * / API-018 a NULL or closed `db` (NULL returned, nothing recorded).
 * Free the handle with minigraf_tx_free. Since 0.2.0. */
MINIGRAF_API MiniGrafTx *minigraf_begin_write(MiniGrafDb *db);

/* Runs one command inside the transaction and returns its JSON result (as
 * minigraf_execute; free it with minigraf_string_free):
 *   (transact ...) / (retract ...)  converted and checked now (INT-001,
 *       API-003, API-004, INT-002, API-011, API-019: the statement is then
 *       not staged, the transaction stays open), staged, {"ok":true};
 *   (query ...)  sees the committed data plus the staged statements, each
 *       as if committed with the next counter values (current+1,
 *       current+2, ... for :as-of) and tx times no smaller than the
 *       previous one's; "now" is at least the last staged tx time (spec
 *       language.md §7.5). The first query after staging makes a private view of
 *       the committed data plus the staged statements, without copying
 *       the database (its cost follows what was staged, not the size of
 *       the database; only an in-memory database holding texts longer
 *       than a page is copied); later ones only add what was staged
 *       since;
 *   (rule ...)  registers at once and stays registered after a rollback.
 * Returns NULL on error (minigraf_tx_last_error); API-018 once the
 * transaction has ended. Since 0.2.0. */
MINIGRAF_API char *minigraf_tx_execute(MiniGrafTx *tx, const char *text);

/* Opens a cursor over a (query ...) on the committed data plus the staged
 * statements (as minigraf_tx_execute's queries). The answer is computed in
 * full when the cursor opens, so it is fixed and the cursor outlives the
 * transaction; read and free it as any cursor (minigraf_cursor_*). Other
 * commands fail with API-012. Returns NULL on error
 * (minigraf_tx_last_error). Since 0.2.0. */
MINIGRAF_API MiniGrafCursor *minigraf_tx_query(MiniGrafTx *tx, const char *text);

/* Commits every staged record as ONE transaction: one counter value, one
 * tx time (also the :valid-from of facts given none). When several
 * statements wrote the same (entity, attribute, value), the last one
 * decides (a retract then a transact of it leaves it asserted). A
 * transaction with no staged record commits nothing and consumes no
 * counter value. Size limits are checked here (WAL-003, file-backed
 * databases), as is a window made empty by the commit instant (API-019);
 * on any error nothing is written. Success or failure, the transaction
 * has ended afterwards (the writer is free again). Returns 0 or the
 * error code (then see minigraf_tx_last_error); API-018 when the
 * transaction had ended already. Since 0.2.0. */
MINIGRAF_API int minigraf_tx_commit(MiniGrafTx *tx);

/* Discards the staged statements and ends the transaction (registered
 * rules stay). Returns 0, or API-018 when it had ended already. Since
 * 0.2.0. */
MINIGRAF_API int minigraf_tx_rollback(MiniGrafTx *tx);

/* The "[CODE] message" of the transaction's last failed call, or NULL after
 * a success. Borrowed until the next call on `tx`. NULL for a NULL handle
 * (as every *_last_error), the API-018 text for a freed one. Since 0.2.0. */
MINIGRAF_API const char *minigraf_tx_last_error(const MiniGrafTx *tx);

/* The numeric code of the transaction's last failed call; 0 after success;
 * API-017 / API-018 for a NULL / freed handle. Since 0.2.0. */
MINIGRAF_API int minigraf_tx_last_error_code(const MiniGrafTx *tx);

/* Rolls back the transaction if it is still open, then frees the handle
 * (also after minigraf_close of its database). NULL and a second free are
 * harmless. Since 0.2.0. */
MINIGRAF_API void minigraf_tx_free(MiniGrafTx *tx);

/* (end of write transactions) */

/* ------------------------------------------------------------------------
 * Host functions (since 0.2.0)
 *
 * Predicates and aggregates written by the application and called by
 * queries (language.md §12, §10.5, §11.2): a predicate `email?` as a filter
 * `[(email? ?s)]` or a binding `[(email? ?s) ?ok]` (exactly one argument;
 * the parser refuses any other count: PRS-064, PRS-067), an aggregate
 * `geomean` in `:find` as `(geomean ?x)` or as a window
 * `(geomean ?x :over (:order-by ?t))`.
 *
 * Registrations live in memory on one database handle (a read-only one
 * too; nothing is written) and apply to every query that starts after the
 * call, prepared ones included: each run of a query looks the names it
 * calls up when it is planned and keeps what it found until it ends. So a
 * query that was refused with QRY-007 (an unregistered predicate at the
 * root of an expression clause), QRY-010 or QRY-011 (an unknown aggregate
 * / window function) works on its next run once the name is registered.
 *
 * Threads. Registering and unregistering may happen on any thread, also
 * while other threads run queries on the database: a running query keeps
 * the functions it looked up until it ends. Callbacks run only on the
 * thread that made the call running the query (minigraf_execute,
 * minigraf_query, ...), never on a thread of the library's: a query that
 * calls host functions is computed whole inside minigraf_query (its
 * cursor never streams), so no callback runs during
 * minigraf_cursor_next_batch or on a thread that writes meanwhile. Queries
 * on several threads may call the same function at the same time: its
 * user_data is shared. A callback must not call into the library with
 * the same database handle (or a cursor of it); other databases are fine.
 *
 * Failures. A callback fails by returning non-zero, after writing a
 * NUL-terminated UTF-8 message of at most `error_size` bytes (the NUL
 * included; at least MINIGRAF_HOST_ERROR_SIZE) into `error`, e.g. with
 * snprintf(error, error_size, ...); the buffer belongs to the library
 * and holds "" when the callback starts. The query then stops with API-016
 * and the message "[API-016] predicate '<name>' failed: <message>" (for an
 * aggregate "aggregate function '<name>' failed in init|step|finish:
 * <message>"; without ": <message>" when the callback wrote none; a
 * message without its NUL is cut at the buffer's end, a cut multi-byte
 * character dropped). This holds inside not / not-join too, where an
 * ordinary evaluation failure (a type mismatch) only means "not matched".
 * Nothing leaks: every accumulator an init made is released, and the
 * database stays usable.
 *
 * Ownership of user_data. The library takes it with the registering call:
 * `destroy(user_data)` (when `destroy` is not NULL) runs exactly once —
 * when the function is unregistered, when the database closes, or before
 * the registering call returns if it fails — on the thread making that
 * call, or, if a query on another thread still uses the function then,
 * on that thread when its query ends.
 * ---------------------------------------------------------------------- */

/* A value crossing to or from a host function. A stable, fixed layout: a
 * field never moves, `type` says which field holds the value, the others
 * are zero; `reserved` is zero and kept for later types.
 *
 * Values passed to a callback are borrowed for the call: `text` points at
 * library memory valid until the callback returns, is NUL-terminated
 * (text[text_len] == '\0'; the text itself may hold NUL bytes, so
 * text_len is the length) and is never NULL for STRING and KEYWORD.
 * A list (a collect-set column, which a window after aggregation may
 * read) cannot be passed: the query fails with API-016 "... cannot take a
 * list (collect-set) value". */
typedef struct minigraf_value {
    int32_t type;         /* MINIGRAF_TYPE_* (never LIST here) */
    int32_t boolean;      /* BOOLEAN: 0 or 1 */
    int64_t integer;      /* INTEGER */
    double real;          /* FLOAT: NaN and +-Inf included */
    const char *text;     /* STRING, KEYWORD (with its ':', e.g. ":ns/name"): UTF-8 */
    size_t text_len;      /* bytes of text, the NUL not counted */
    uint8_t uuid[16];     /* REF: the entity's UUID, bytes in RFC 4122 order */
    uint64_t reserved[4]; /* zero */
} minigraf_value;

/* The least `error_size` a callback is given. */
#define MINIGRAF_HOST_ERROR_SIZE 1024

/* A predicate: stores the answer for `value` in *result (non-zero: true;
 * it holds 0 when the callback starts) and returns 0, or fails (above).
 * `value` may be of any type; Null reaches it too (an unbound variable
 * does not: the row is dropped without a call, language.md §8.5.3). */
typedef int (*minigraf_predicate_fn)(void *user_data, const minigraf_value *value, int *result,
                                     char *error, size_t error_size);

/* An aggregate's callbacks. `acc` is the callback's own state for one
 * group or one window partition, made by init (it stores it in *acc; NULL
 * is a valid state) and freed by release.
 *
 *  init     a new accumulator.
 *  step     adds one value. As an aggregate in :find: each non-null value
 *           of the group, in solution order; a group with no non-null
 *           value is Null and calls nothing, not even init (language.md §10.5). As
 *           a window: every row of the partition in window order, Null
 *           values included (language.md §11.2).
 *  finish   the result of the values added so far: *result (type NULL
 *           when the callback stores nothing), `n` = the number of steps
 *           (non-null values for :find, rows so far for a window). A window
 *           calls it after every step (the frame runs from the partition's
 *           first row to the current one); :find once per group. Any type
 *           but LIST; text must be valid UTF-8 (a KEYWORD's starts with
 *           ':') and may point into acc or user_data: it must stay valid
 *           until the next call on this accumulator (the library copies it
 *           before making one). A bad result fails like the callback
 *           (API-016, "finish returned ...").
 *  release  frees acc (may be NULL when there is nothing to free): exactly
 *           once for every accumulator an init made, after its last step
 *           or finish, also when the query fails. Cannot fail.
 *
 * init, step and finish return 0, or fail (above). */
typedef int (*minigraf_aggregate_init_fn)(void *user_data, void **acc, char *error,
                                          size_t error_size);
typedef int (*minigraf_aggregate_step_fn)(void *user_data, void *acc, const minigraf_value *value,
                                          char *error, size_t error_size);
typedef int (*minigraf_aggregate_finish_fn)(void *user_data, void *acc, int64_t n,
                                            minigraf_value *result, char *error, size_t error_size);
typedef void (*minigraf_aggregate_release_fn)(void *user_data, void *acc);

/* Registers the predicate `name` on `db`; later queries may call it.
 *
 * `fn` NULL unregisters the predicate `name` instead (`user_data` and
 * `destroy` are then ignored): its destroy runs (see above) and the name
 * is free to register again; running queries that use it finish with it.
 *
 * Names are compared byte for byte; by convention they end in '?'. A name
 * belongs to one host function of either kind, so replacing one is:
 * unregister, then register. Returns 0, or the error code (the db's last
 * error holds the message):
 *   API-021 the name is a built-in predicate (string? integer? float?
 *           boolean? nil? starts-with? ends-with? contains? matches?, and
 *           the comparisons < <= > >= = !=; + - * / are allowed: called
 *           with one argument they are host predicates, language.md §8.5.1):
 *           "predicate '<name>' is already registered"; or a host
 *           function has it: "predicate '<name>' is already registered" /
 *           "aggregate function '<name>' is already registered" after the
 *           kind of the one that has it
 *   API-017 NULL or empty `name`, not UTF-8; `fn` NULL and no predicate
 *           of that name is registered: "no predicate '<name>' is
 *           registered"
 *   API-017 / API-018 a NULL or closed `db`
 * On failure destroy(user_data) has run. Any thread. Since 0.2.0. */
MINIGRAF_API int minigraf_register_predicate(MiniGrafDb *db, const char *name,
                                             minigraf_predicate_fn fn, void *user_data,
                                             void (*destroy)(void *user_data));

/* Registers the aggregate `name` on `db`, usable in :find and as a window
 * function with :over. `init`, `step` and `finish` are required;
 * `release` may be NULL. All three required ones NULL unregisters the
 * aggregate `name` (`release`, `user_data` and `destroy` ignored), as for
 * predicates. Errors as minigraf_register_predicate's, except the built-in
 * names: count count-distinct sum sum-distinct min max avg collect-set
 * rank row-number lag lead ("aggregate function '<name>' is already
 * registered"); some but not all of init/step/finish NULL is API-017.
 * On failure destroy(user_data) has run. Any thread. Since 0.2.0. */
MINIGRAF_API int minigraf_register_aggregate(MiniGrafDb *db, const char *name,
                                             minigraf_aggregate_init_fn init,
                                             minigraf_aggregate_step_fn step,
                                             minigraf_aggregate_finish_fn finish,
                                             minigraf_aggregate_release_fn release, void *user_data,
                                             void (*destroy)(void *user_data));

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
 *
 * A cursor's rows one at a time, each value in its own type, with no JSON
 * in between (in the manner of sqlite3_step / sqlite3_column_*):
 *
 *     MiniGrafCursor *c = minigraf_query(db, "(query [:find ?e ?age :where [?e :age ?age]])");
 *     int rc;
 *     while ((rc = minigraf_cursor_step(c)) == 1) {
 *         const unsigned char *e = minigraf_cursor_column_uuid(c, 0);
 *         int64_t age = minigraf_cursor_column_int64(c, 1);
 *         ...
 *     }
 *     if (rc < 0) fprintf(stderr, "%s\n", minigraf_cursor_last_error(c));
 *     minigraf_cursor_free(c);
 *
 * Columns are numbered from 0 in :find order. Every accessor reads the
 * current row: the one the last minigraf_cursor_step that returned 1
 * moved to. Pointers an accessor returns (texts, UUID bytes) are borrowed
 * from the cursor and stay valid until its next minigraf_cursor_step or
 * minigraf_cursor_free — whatever happens to the database meanwhile
 * (writes, checkpoints, close): the row is the cursor's own copy.
 *
 * Types (MINIGRAF_TYPE_*, above) are kept exactly: a string and a keyword
 * with the same text differ, an entity is a REF (never its UUID text),
 * NaN and +-Inf are FLOAT doubles, integers keep all 64 bits. A
 * collect-set answer is a LIST; its items are read as the JSON array of
 * their typed forms (MINIGRAF_FORMAT_TYPED) through
 * minigraf_cursor_column_text, e.g. [{"type":"string","value":"eng"}].
 *
 * An accessor given a value of another type returns 0 / 0.0 / NULL and
 * sets the cursor's last error (API-017, naming both types); the one
 * conversion is minigraf_cursor_column_double on an INTEGER (the nearest
 * double). minigraf_cursor_column_text reads STRING, KEYWORD and LIST
 * values. The same result, with API-017, for a column out of range or
 * when there is no current row (before the first step, after the end or
 * an error). A NULL or dead cursor gives the same result and is not
 * touched. A successful accessor clears the last error.
 *
 * Stepping and JSON batches (minigraf_cursor_next_batch) may be mixed on
 * one cursor: they share its position. A batch returns the rows after
 * those already stepped over or batched, and does not change the current
 * row. Both streaming and materialised cursors (minigraf_query) step the
 * same way; step reads a few rows ahead (up to 256, fewer when their
 * texts are long) into the cursor's own memory, so a streaming cursor
 * holds at most those besides the engine's own.
 * ---------------------------------------------------------------------- */

/* Moves to the next row. Returns 1 when there is one (it is now the
 * current row), 0 at the end (and on every later call; there is no
 * current row then), or on error a negative number: minus the numeric
 * code, e.g. -2012 for QRY-012 met while streaming, with the cursor's
 * last error set; every later call returns the same. This is the one
 * 0.2.0 function whose error result is negative, so that 1 / 0 / error
 * read as sqlite3_step's do. A NULL cursor gives -5017, a freed one
 * -5018 (nothing recorded). One thread at a time. Since 0.2.0. */
MINIGRAF_API int minigraf_cursor_step(MiniGrafCursor *cursor);

/* The number of :find columns (at least 1), known before the first step;
 * 0 for a NULL or dead cursor. Since 0.2.0. */
MINIGRAF_API int minigraf_cursor_column_count(MiniGrafCursor *cursor);

/* The :find header of column `col`: "?n" or "(count ?e)", as in
 * minigraf_cursor_vars. Borrowed until minigraf_cursor_free (not only
 * until the next step); needs no current row. NULL, with API-017 set, for
 * a column out of range. Since 0.2.0. */
MINIGRAF_API const char *minigraf_cursor_column_name(MiniGrafCursor *cursor, int col);

/* The MINIGRAF_TYPE_* of column `col` of the current row; -1 (with
 * API-017 set) without a current row or for a column out of range.
 * Since 0.2.0. */
MINIGRAF_API int minigraf_cursor_column_type(MiniGrafCursor *cursor, int col);

/* An INTEGER, exactly (INT64_MIN and INT64_MAX included). Since 0.2.0. */
MINIGRAF_API int64_t minigraf_cursor_column_int64(MiniGrafCursor *cursor, int col);

/* A FLOAT, NaN and +-Inf included, or an INTEGER converted to the nearest
 * double. Since 0.2.0. */
MINIGRAF_API double minigraf_cursor_column_double(MiniGrafCursor *cursor, int col);

/* A BOOLEAN: 1 for true, 0 for false. Since 0.2.0. */
MINIGRAF_API int minigraf_cursor_column_bool(MiniGrafCursor *cursor, int col);

/* The UTF-8 text of a STRING, of a KEYWORD (":ns/name", with its ':'),
 * or of a LIST (its items' typed JSON, see above). `*len` (if `len` is not
 * NULL) gets the length in bytes; the text is also NUL-terminated, but a
 * string may hold NUL bytes (a log writer record can carry "\u0000"), so
 * use the length. Borrowed until the next step. Since 0.2.0. */
MINIGRAF_API const char *minigraf_cursor_column_text(MiniGrafCursor *cursor, int col, size_t *len);

/* The 16 bytes of a REF's UUID (RFC 4122 byte order: the hyphenated text
 * is these bytes in hex). Borrowed until the next step. Since 0.2.0. */
MINIGRAF_API const unsigned char *minigraf_cursor_column_uuid(MiniGrafCursor *cursor, int col);

/* The text of a KEYWORD only (":ns/name"), as minigraf_cursor_column_text
 * gives it; any other type, STRING included, is API-017. Since 0.2.0. */
MINIGRAF_API const char *minigraf_cursor_column_keyword(MiniGrafCursor *cursor, int col,
                                                        size_t *len);

/* (end of typed rows) */

/* ------------------------------------------------------------------------
 * Open with a code, export, open options, error constants (since 0.2.0)
 * ---------------------------------------------------------------------- */

/* Opens a database as minigraf_open_with_options does (same `path` and
 * `options_json`), returning the numeric code: 0 with the handle in
 * `*out`, or the code (API-017 bad options or arguments, STG-025/026/027,
 * a damaged file's STG code, ...) with `*out` NULL and, if `errmsg` is not
 * NULL, the "[CODE] message" in `*errmsg` (the caller frees it with
 * minigraf_string_free; NULL on success). `out` NULL is API-017.
 * minigraf_open, minigraf_open_in_memory and minigraf_open_with_options
 * are this function. Any thread. Since 0.2.0. */
MINIGRAF_API int minigraf_open_v2(const char *path, const char *options_json, MiniGrafDb **out,
                                  char **errmsg);

/* minigraf_log_writer_create with a numeric code, as minigraf_open_v2:
 * 0 and the writer in `*out`, or the code (STG-043 an existing target,
 * API-017 bad options) with `*out` NULL and the message in `*errmsg`.
 * Since 0.2.0. */
MINIGRAF_API int minigraf_log_writer_create_v2(const char *path, const char *options_json,
                                               MiniGrafLogWriter **out, char **errmsg);

/* Copies the database into a new database file at `path` in one call:
 * every fact record of one snapshot, in commit ("tx") order, through a log
 * writer, then the writer's counter raised to the snapshot's transaction
 * counter, so empty transactions (trailing ones too) and retractions are
 * kept. The copy answers every query as `db` did at that moment, :as-of
 * every counter included, and its minigraf_current_tx_count is the same.
 * Commits made while the export runs are not in the copy; writers are not
 * blocked for longer than one batch of records. Works on in-memory and
 * read-only databases. `options_json`: the log writer's options (NULL,
 * or "synchronous", "page_cache_size", "wal_checkpoint_threshold";
 * "synchronous" defaults to "normal", the copy is synced when complete).
 * Returns 0, or the code with the error on `db` (minigraf_last_error):
 * STG-043 when `path` or `<path>.wal` exists (nothing is touched), API-017
 * bad arguments or options, storage errors (the partial copy is deleted).
 * A close of `db` from another thread waits for the export. Since 0.2.0. */
MINIGRAF_API int minigraf_export(MiniGrafDb *db, const char *path, const char *options_json);

/* Every open option, as one JSON array (static storage: never freed, the
 * same text on every call; NULL only if the library ran out of memory on
 * its first call). Each element:
 *   {"name":"page_cache_size","type":"int","min":1,"default":4096,
 *    "for":["open","log_writer"],"meaning":"..."}
 * "type" is "bool", "int" (with its "min") or "string" (with "values");
 * "default" is a JSON value; "log_writer_default" is present where the
 * log writer's default differs; "for" lists the opens that take the
 * option: "open" (minigraf_open_with_options / _v2) and "log_writer"
 * (minigraf_log_writer_create / _v2, minigraf_export). The options are
 * the ones listed at minigraf_open_with_options. Any thread. Since 0.2.0. */
MINIGRAF_API const char *minigraf_options_describe(void);

/* Every error code of docs/errors.md, by name: MINIGRAF_E_PRS_011 is 1011
 * ("PRS-011"). minigraf_error_code_name knows exactly these codes.
 * tests/c/check_error_codes.py checks this list against docs/errors.md. */
#define MINIGRAF_E_PRS_001 1001
#define MINIGRAF_E_PRS_002 1002
#define MINIGRAF_E_PRS_003 1003
#define MINIGRAF_E_PRS_004 1004
#define MINIGRAF_E_PRS_005 1005
#define MINIGRAF_E_PRS_006 1006
#define MINIGRAF_E_PRS_007 1007
#define MINIGRAF_E_PRS_008 1008
#define MINIGRAF_E_PRS_009 1009
#define MINIGRAF_E_PRS_010 1010
#define MINIGRAF_E_PRS_011 1011
#define MINIGRAF_E_PRS_012 1012
#define MINIGRAF_E_PRS_013 1013
#define MINIGRAF_E_PRS_014 1014
#define MINIGRAF_E_PRS_015 1015
#define MINIGRAF_E_PRS_016 1016
#define MINIGRAF_E_PRS_017 1017
#define MINIGRAF_E_PRS_018 1018
#define MINIGRAF_E_PRS_019 1019
#define MINIGRAF_E_PRS_020 1020
#define MINIGRAF_E_PRS_021 1021
#define MINIGRAF_E_PRS_022 1022
#define MINIGRAF_E_PRS_023 1023
#define MINIGRAF_E_PRS_024 1024
#define MINIGRAF_E_PRS_025 1025
#define MINIGRAF_E_PRS_026 1026
#define MINIGRAF_E_PRS_027 1027
#define MINIGRAF_E_PRS_028 1028
#define MINIGRAF_E_PRS_029 1029
#define MINIGRAF_E_PRS_030 1030
#define MINIGRAF_E_PRS_031 1031
#define MINIGRAF_E_PRS_032 1032
#define MINIGRAF_E_PRS_033 1033
#define MINIGRAF_E_PRS_034 1034
#define MINIGRAF_E_PRS_035 1035
#define MINIGRAF_E_PRS_036 1036
#define MINIGRAF_E_PRS_037 1037
#define MINIGRAF_E_PRS_038 1038
#define MINIGRAF_E_PRS_039 1039
#define MINIGRAF_E_PRS_040 1040
#define MINIGRAF_E_PRS_041 1041
#define MINIGRAF_E_PRS_042 1042
#define MINIGRAF_E_PRS_043 1043
#define MINIGRAF_E_PRS_044 1044
#define MINIGRAF_E_PRS_045 1045
#define MINIGRAF_E_PRS_046 1046
#define MINIGRAF_E_PRS_047 1047
#define MINIGRAF_E_PRS_048 1048
#define MINIGRAF_E_PRS_049 1049
#define MINIGRAF_E_PRS_050 1050
#define MINIGRAF_E_PRS_051 1051
#define MINIGRAF_E_PRS_052 1052
#define MINIGRAF_E_PRS_053 1053
#define MINIGRAF_E_PRS_054 1054
#define MINIGRAF_E_PRS_055 1055
#define MINIGRAF_E_PRS_056 1056
#define MINIGRAF_E_PRS_057 1057
#define MINIGRAF_E_PRS_058 1058
#define MINIGRAF_E_PRS_059 1059
#define MINIGRAF_E_PRS_060 1060
#define MINIGRAF_E_PRS_061 1061
#define MINIGRAF_E_PRS_062 1062
#define MINIGRAF_E_PRS_063 1063
#define MINIGRAF_E_PRS_064 1064
#define MINIGRAF_E_PRS_065 1065
#define MINIGRAF_E_PRS_066 1066
#define MINIGRAF_E_PRS_067 1067
#define MINIGRAF_E_PRS_068 1068
#define MINIGRAF_E_PRS_069 1069
#define MINIGRAF_E_PRS_070 1070
#define MINIGRAF_E_PRS_071 1071
#define MINIGRAF_E_PRS_072 1072
#define MINIGRAF_E_PRS_073 1073
#define MINIGRAF_E_PRS_074 1074
#define MINIGRAF_E_PRS_075 1075
#define MINIGRAF_E_PRS_076 1076
#define MINIGRAF_E_PRS_077 1077
#define MINIGRAF_E_PRS_078 1078
#define MINIGRAF_E_PRS_079 1079
#define MINIGRAF_E_PRS_080 1080
#define MINIGRAF_E_QRY_001 2001
#define MINIGRAF_E_QRY_002 2002
#define MINIGRAF_E_QRY_003 2003
#define MINIGRAF_E_QRY_004 2004
#define MINIGRAF_E_QRY_005 2005
#define MINIGRAF_E_QRY_006 2006
#define MINIGRAF_E_QRY_007 2007
#define MINIGRAF_E_QRY_008 2008
#define MINIGRAF_E_QRY_009 2009
#define MINIGRAF_E_QRY_010 2010
#define MINIGRAF_E_QRY_011 2011
#define MINIGRAF_E_QRY_012 2012
#define MINIGRAF_E_QRY_013 2013
#define MINIGRAF_E_STG_001 3001
#define MINIGRAF_E_STG_002 3002
#define MINIGRAF_E_STG_003 3003
#define MINIGRAF_E_STG_004 3004
#define MINIGRAF_E_STG_005 3005
#define MINIGRAF_E_STG_006 3006
#define MINIGRAF_E_STG_007 3007
#define MINIGRAF_E_STG_008 3008
#define MINIGRAF_E_STG_009 3009
#define MINIGRAF_E_STG_010 3010
#define MINIGRAF_E_STG_011 3011
#define MINIGRAF_E_STG_012 3012
#define MINIGRAF_E_STG_013 3013
#define MINIGRAF_E_STG_014 3014
#define MINIGRAF_E_STG_015 3015
#define MINIGRAF_E_STG_016 3016
#define MINIGRAF_E_STG_017 3017
#define MINIGRAF_E_STG_018 3018
#define MINIGRAF_E_STG_025 3025
#define MINIGRAF_E_STG_026 3026
#define MINIGRAF_E_STG_027 3027
#define MINIGRAF_E_STG_028 3028
#define MINIGRAF_E_STG_029 3029
#define MINIGRAF_E_STG_043 3043
#define MINIGRAF_E_STG_044 3044
#define MINIGRAF_E_STG_045 3045
#define MINIGRAF_E_STG_046 3046
#define MINIGRAF_E_WAL_001 4001
#define MINIGRAF_E_WAL_002 4002
#define MINIGRAF_E_WAL_003 4003
#define MINIGRAF_E_API_003 5003
#define MINIGRAF_E_API_004 5004
#define MINIGRAF_E_API_005 5005
#define MINIGRAF_E_API_006 5006
#define MINIGRAF_E_API_007 5007
#define MINIGRAF_E_API_010 5010
#define MINIGRAF_E_API_011 5011
#define MINIGRAF_E_API_012 5012
#define MINIGRAF_E_API_013 5013
#define MINIGRAF_E_API_014 5014
#define MINIGRAF_E_API_015 5015
#define MINIGRAF_E_API_016 5016
#define MINIGRAF_E_API_017 5017
#define MINIGRAF_E_API_018 5018
#define MINIGRAF_E_API_019 5019
#define MINIGRAF_E_API_020 5020
#define MINIGRAF_E_API_021 5021
#define MINIGRAF_E_API_022 5022
#define MINIGRAF_E_INT_000 6000
#define MINIGRAF_E_INT_001 6001
#define MINIGRAF_E_INT_002 6002
#define MINIGRAF_E_INT_003 6003
#define MINIGRAF_E_INT_018 6018
#define MINIGRAF_E_INT_020 6020
#define MINIGRAF_E_INT_028 6028
#define MINIGRAF_E_INT_041 6041
#define MINIGRAF_E_INT_042 6042
#define MINIGRAF_E_INT_043 6043
#define MINIGRAF_E_INT_054 6054

/* (end of open with a code, export, open options, error constants) */

/* ------------------------------------------------------------------------
 * Introspection (since 0.2.0)
 *
 * What a database says about itself, for tools such as the shell's
 * .explain, .stats and .rules. Each returns compact JSON the caller frees
 * with minigraf_string_free(), or NULL on error (see minigraf_last_error;
 * a NULL or closed handle: API-017 / API-018 as everywhere). Any thread,
 * like every call on a MiniGrafDb. The JSON objects may gain keys in later
 * versions; the keys listed stay.
 * ---------------------------------------------------------------------- */

/* The plan the query engine chooses for a (query ...), without running
 * it: the top-level :where clauses in evaluation order,
 *   {"steps":[{"step":1,"kind":"pattern","clause":"[?e :person/name ?n]",
 *              "join":"nested-loop","index":"AEVT","estimated_rows":3},
 *             ...]}
 * "kind": pattern, pseudo, expression, not, or, rule (an invocation);
 * "join": how a pattern step meets the rows before it, "nested-loop"
 * (seeking its records per row) or "hash" (reading them once), null for
 * other steps; "index": the index its records are read from (EAVT, AEVT,
 * AVET), null for a full scan or a step that reads no index;
 * "estimated_rows": the stored records its constants select (a lower
 * bound past 1048576), null when unknown. A not or or body is one step.
 * The plan is the one made with no rule facts derived yet; the answer never
 * depends on it. Errors: the query's parse errors (PRS), API-012 for a
 * command other than query, and the errors a query meets before its first
 * row (QRY-007, QRY-013, ...). Since 0.2.0. */
MINIGRAF_API char *minigraf_explain(MiniGrafDb *db, const char *query);

/* The database's figures as one JSON object:
 *   "in_memory"       bool
 *   "file_size"       bytes of the main file (pages x page_size; 0 in
 *                     memory), not counting the WAL
 *   "pages", "page_size"
 *   "wal_size"        bytes in <path>.wal since the last checkpoint
 *   "wal_facts"       facts in those bytes (the automatic checkpoint
 *                     counts them against wal_checkpoint_threshold)
 *   "facts"           fact records stored (assertions and retractions)
 *   "entities"        distinct entities
 *   "tx_count"        as minigraf_current_tx_count
 *   "history_index"   bool: the database keeps the history index (the
 *                     open option of that name)
 *   "cache_pages", "cache_capacity"   pages in the page cache, its size
 *   "cache_hits", "cache_misses"      page reads answered by the cache or
 *                     not, since the database opened
 *   "cache_hit_rate"  hits / (hits + misses), null before any read
 * It waits for a write transaction in progress to end. Since 0.2.0. */
MINIGRAF_API char *minigraf_stats(MiniGrafDb *db);

/* The registered rules (language.md §9.1) as a JSON array of their canonical
 * texts, in registration order, e.g.
 *   ["(rule [(reach ?a ?b) [?a :edge ?b]])"]
 * Each text registers the same rule again. [] when there are none. Since
 * 0.2.0. */
MINIGRAF_API char *minigraf_rules(MiniGrafDb *db);

/* (end of introspection) */

/* ------------------------------------------------------------------------
 * Memory
 * ---------------------------------------------------------------------- */

/* Frees a string returned by this library. NULL is a no-op. */
MINIGRAF_API void minigraf_string_free(char *s);

#ifdef __cplusplus
}
#endif

#endif /* MINIGRAF_H */
