/* Export: a consistent copy of a database into a new file, in one call —
 * the fact log of one snapshot in commit order through a log writer, then
 * the writer's counter raised to the snapshot's (so empty transactions,
 * trailing ones included, are kept). The copy answers every query as the
 * source did at that snapshot, :as-of every counter included. */
#ifndef MG_DB_EXPORT_H
#define MG_DB_EXPORT_H

#include "base/error.h"
#include "store/store.h"

/* Copies the store `s` (kept open by the caller) into a new file at
 * `path` with the log writer options `o`. Errors: STG-043 when `path` or
 * `<path>.wal` exists (nothing is touched), the storage errors of reading
 * `s` and of writing the copy (the partial copy is deleted). */
int db_export_store(store *s, const char *path, const store_options *o, err *e);

#endif
