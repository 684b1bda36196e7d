/* What the public handles are, behind minigraf.h's opaque types. */
#ifndef MG_CAPI_API_H
#define MG_CAPI_API_H

#include <stdbool.h>

#include "minigraf.h"
#include "base/error.h"
#include "db/db.h"
#include "exec/result.h"
#include "thread_errors.h"

struct MiniGrafDb {
    db *engine;
    thread_errors errors;
};

struct MiniGrafCursor {
    result_set *rows;
    size_t next_row;
    int format;
    err last;
};

/* Checks an input text argument: NULL or invalid UTF-8 → API-017. */
int api_check_text(const char *text, const char *what, err *e);

/* The fixed messages for bad handles. */
#define API_NULL_HANDLE "[API-017] handle is NULL"
#define API_DEAD_HANDLE "[API-018] handle was already closed or freed"

#endif
