/* Fact records and fact log filters read from JSON (minigraf.h's record
 * format and filter keys). Decoded texts point into the JSON tree. Every
 * failure is API-017 naming the offending key. */
#ifndef MG_CAPI_RECORD_JSON_H
#define MG_CAPI_RECORD_JSON_H

#include "base/arena.h"
#include "base/error.h"
#include "db/fact_log.h"
#include "json_read.h"
#include "model/fact.h"

/* One record object: every key required, no others. */
int record_from_json(const json_node *n, fact *out, err *e);

/* A value in the typed encoding {"type": "keyword", "value": ":a"} (the
 * record's "value"); false when `n` is not one. Texts point into `n`. */
bool typed_value_from_json(const json_node *n, value *out);

/* A filter object (or JSON null: no filter) into `out`; the lists it
 * points to are allocated in `a`. */
int filter_from_json(const json_node *n, arena *a, fact_log_filter *out, err *e);

#endif
