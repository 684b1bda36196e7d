/* The options JSON of minigraf_open_with_options. */
#ifndef MG_CAPI_OPTIONS_H
#define MG_CAPI_OPTIONS_H

#include "base/error.h"
#include "db/db.h"

/* Parses `json` (NULL or a JSON object) into `o`, which holds the defaults
 * on entry. Unknown keys, wrong types and malformed JSON fail with API-017.
 * Returns 0 or the error code. */
int options_parse(const char *json, db_options *o, err *e);

/* The options of minigraf_log_writer_create: "synchronous",
 * "page_cache_size" and "wal_checkpoint_threshold" only. */
int options_parse_log_writer(const char *json, store_options *o, err *e);

#endif
