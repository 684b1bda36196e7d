/* A query as a cursor (minigraf_query): the :where pipeline and the :find
 * side kept open between calls, so a plain projection hands out its rows
 * as they are found and holds one row, not the answer (exec/finish.h says
 * which queries stream). While it streams the cursor keeps its store
 * snapshot (the store's read lock), so the answer is the one of the
 * moment it opened; the database closes cursors' snapshots before writing
 * (db/db.h). */
#ifndef MG_EXEC_QUERY_STREAM_H
#define MG_EXEC_QUERY_STREAM_H

#include <stdbool.h>

#include "base/cancel.h"
#include "exec/query.h"

typedef struct query_stream query_stream;

/* As query_execute_rules; `q` and `rules->registry` must outlive the
 * stream. Errors of everything computed before the first row appear here. */
int query_stream_open(store *s, query_rules *rules, const ast_query *q, int64_t now_ms,
                      size_t memory_limit, query_stream **out, err *e);
struct query_keep;
/* The same for a parse run again and again (a prepared query): its :where
 * is kept in `k` (exec/query_keep.h) from one run to the next; when
 * another run holds `k`, as query_stream_open. */
int query_stream_open_kept(store *s, query_rules *rules, const ast_query *q, int64_t now_ms,
                           size_t memory_limit, struct query_keep *k, query_stream **out, err *e);
/* Up to `max` rows at once into `out` (exec/finish.h, finish_next_rows;
 * what they borrow is valid until the next call): the number written,
 * with *rc 0 (fewer than `max` only at the end) or an error code (QRY-012,
 * storage errors) after them; after the end or an error the stream has
 * let go of its snapshot and only ends. */
size_t query_stream_next_rows(query_stream *qs, value *out, size_t max, int *rc, err *e);
/* Reads the rest of the answer into memory (charged to the query's meter)
 * and lets go of the snapshot; the stream goes on from there. An error
 * (QRY-012) is reported by the next query_stream_next_rows. */
void query_stream_detach(query_stream *qs);
/* The call the next query_stream_next_rows calls run for (base/cancel.h), or
 * NULL (then nothing stops them): set at open from rules->stop, which is
 * the open call's; a caller sets it for each fetch and clears it after. */
void query_stream_set_cancel(query_stream *qs, cancel *c);
/* True while the stream holds its snapshot. */
bool query_stream_live(const query_stream *qs);
/* The column headers. */
const result_set *query_stream_columns(const query_stream *qs);
void query_stream_close(query_stream *qs);

#endif
