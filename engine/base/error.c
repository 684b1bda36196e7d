/* The engine's error value. See error.h. */
#include "base/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every name is a string literal, so err_code_name can hand out static
 * storage without building anything at run time. */
#define ERR_D10(f, t)                                                                   \
    f "-0" t "0", f "-0" t "1", f "-0" t "2", f "-0" t "3", f "-0" t "4", f "-0" t "5", \
        f "-0" t "6", f "-0" t "7", f "-0" t "8", f "-0" t "9"
#define ERR_D100(f)                                                                      \
    ERR_D10(f, "0"), ERR_D10(f, "1"), ERR_D10(f, "2"), ERR_D10(f, "3"), ERR_D10(f, "4"), \
        ERR_D10(f, "5"), ERR_D10(f, "6"), ERR_D10(f, "7"), ERR_D10(f, "8"), ERR_D10(f, "9")

static const char *const err_names_prs[100] = {ERR_D100("PRS")};
static const char *const err_names_qry[100] = {ERR_D100("QRY")};
static const char *const err_names_stg[100] = {ERR_D100("STG")};
static const char *const err_names_wal[100] = {ERR_D100("WAL")};
static const char *const err_names_api[100] = {ERR_D100("API")};
static const char *const err_names_int[100] = {ERR_D100("INT")};

typedef struct err_family {
    const char *const *names;
    int first, last; /* valid numbers, inclusive */
} err_family;

static const err_family err_families[] = {
    [FAM_PRS] = {err_names_prs, 1, 80}, [FAM_QRY] = {err_names_qry, 1, 13},
    [FAM_STG] = {err_names_stg, 1, 46}, [FAM_WAL] = {err_names_wal, 1, 6},
    [FAM_API] = {err_names_api, 1, 22}, [FAM_INT] = {err_names_int, 0, 99},
};

const char *err_code_name(int code) {
    if (code < FAM_PRS * 1000 || code >= (FAM_INT + 1) * 1000)
        return NULL;
    const err_family *f = &err_families[code / 1000];
    int n = code % 1000;
    if (n < f->first || n > f->last)
        return NULL;
    return f->names[n];
}

int err_setv(err *e, int code, const char *fmt, va_list ap) {
    if (!e)
        return code;
    err_clear(e);
    e->code = code;
    const char *name = err_code_name(code);
    if (!name)
        name = "INT-000";

    va_list copy;
    va_copy(copy, ap);
    int body = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (body < 0)
        body = 0;

    size_t prefix = strlen(name) + 3; /* "[" name "] " */
    char *msg = malloc(prefix + (size_t)body + 1);
    if (!msg)
        return code; /* the code survives; the text is lost */
    snprintf(msg, prefix + 1, "[%s] ", name);
    vsnprintf(msg + prefix, (size_t)body + 1, fmt, ap);
    e->message = msg;
    return code;
}

int err_set(err *e, int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    err_setv(e, code, fmt, ap);
    va_end(ap);
    return code;
}

void err_clear_set(err *e) {
    free(e->message);
    e->message = NULL;
    e->code = 0;
}

void err_move(err *dst, err *src) {
    if (!dst || !src || dst == src)
        return;
    err_clear(dst);
    *dst = *src;
    src->code = 0;
    src->message = NULL;
}
