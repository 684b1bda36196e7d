/* The engine's error value: a spec code and a "[CODE] message" text. */
#ifndef MG_BASE_ERROR_H
#define MG_BASE_ERROR_H

#include <stdarg.h>

/* Families; the numeric code is family * 1000 + number (see minigraf.h). */
enum { FAM_PRS = 1, FAM_QRY = 2, FAM_STG = 3, FAM_WAL = 4, FAM_API = 5, FAM_INT = 6 };

/* ERR(PRS, 11) == 1011 */
#define ERR(fam, n) (FAM_##fam * 1000 + (n))

typedef struct err {
    int code;      /* 0 when there is no error */
    char *message; /* "[PRS-011] Unknown command: insert", heap-owned, or NULL */
} err;

/* Records an error and returns its code, so callers can `return err_set(...)`.
 * The message is formatted with printf rules and prefixed with "[CODE] ".
 * An existing error in `e` is replaced. `e` may be NULL (then only returns). */
int err_set(err *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int err_setv(err *e, int code, const char *fmt, va_list ap);

/* err_clear's work when there is some: out of line. */
void err_clear_set(err *e);

/* Frees the message and resets to "no error". `e` may be NULL. Inline:
 * every API call clears its handle's error first, and most find none. */
static inline void err_clear(err *e) {
    if (e && (e->code || e->message))
        err_clear_set(e);
}

/* Moves `src` into `dst` (clearing dst first); `src` is left empty. */
void err_move(err *dst, err *src);

/* "PRS-011" for 1011; NULL when `code` is not a valid code. Static storage. */
const char *err_code_name(int code);

#endif
