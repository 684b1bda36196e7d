/* A registry of live API handles, so that a freed or foreign pointer handed
 * back to the library is detected (API-018) instead of dereferenced. */
#ifndef MG_CAPI_HANDLES_H
#define MG_CAPI_HANDLES_H

#include <stdbool.h>

typedef enum handle_kind {
    HANDLE_DB = 1,
    HANDLE_CURSOR = 2,
    HANDLE_FACT_LOG = 3,
    HANDLE_LOG_WRITER = 4,
    HANDLE_STMT = 5,
    HANDLE_TX = 6
} handle_kind;

/* Returns false when out of memory. */
bool handles_add(const void *h, handle_kind kind);
/* Removes `h`; false if it was not registered as `kind`. */
bool handles_remove(const void *h, handle_kind kind);
bool handles_live(const void *h, handle_kind kind);
/* In a child process after fork(): `h` was live in the parent at the fork. */
bool handles_inherited(const void *h, handle_kind kind);
/* What a call on `h` may do: 0 (live), ERR(API, 17) for NULL, ERR(API,
 * 22) for a handle of the parent process (after fork()), else ERR(API,
 * 18) (closed, freed or foreign). */
int handles_check(const void *h, handle_kind kind);
/* The `[CODE] message` of a handles_check failure, for last-error calls
 * on a handle that holds none. */
const char *handles_dead_message(int code);

#endif
