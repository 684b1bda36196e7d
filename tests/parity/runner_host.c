/* The parity suite's host functions in C, exactly as README.md defines
 * them (every runner defines the same ones in its own language). */
#include "runner_host.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* email?: a String holding the byte '@'. Never fails. */
static int email_p(void *user_data, const minigraf_value *v, int *result, char *error,
                   size_t size) {
    (void)user_data;
    (void)error;
    (void)size;
    *result = v->type == MINIGRAF_TYPE_STRING && memchr(v->text, '@', v->text_len) != NULL;
    return 0;
}

/* big?: an Integer greater than 100. Never fails. */
static int big_p(void *user_data, const minigraf_value *v, int *result, char *error, size_t size) {
    (void)user_data;
    (void)error;
    (void)size;
    *result = v->type == MINIGRAF_TYPE_INTEGER && v->integer > 100;
    return 0;
}

/* fails?: fails for every value. */
static int fails_p(void *user_data, const minigraf_value *v, int *result, char *error,
                   size_t size) {
    (void)user_data;
    (void)v;
    (void)result;
    snprintf(error, size, "fails? always fails");
    return 1;
}

/* ---- geomean ------------------------------------------------------------- */

typedef struct geo_acc {
    double sum_ln;
    long long k;
} geo_acc;

static int acc_new(void **acc, size_t bytes, char *error, size_t size) {
    *acc = calloc(1, bytes);
    if (*acc)
        return 0;
    snprintf(error, size, "out of memory");
    return 1;
}

static int geo_init(void *user_data, void **acc, char *error, size_t size) {
    (void)user_data;
    return acc_new(acc, sizeof(geo_acc), error, size);
}

static int geo_step(void *user_data, void *acc, const minigraf_value *v, char *error, size_t size) {
    (void)user_data;
    geo_acc *g = acc;
    if (v->type == MINIGRAF_TYPE_NULL)
        return 0;
    double x = v->type == MINIGRAF_TYPE_INTEGER ? (double)v->integer
               : v->type == MINIGRAF_TYPE_FLOAT ? v->real
                                                : -1.0;
    if (!(x > 0.0)) {
        snprintf(error, size, "geomean: expected a positive number");
        return 1;
    }
    g->sum_ln += log(x);
    g->k++;
    return 0;
}

static int geo_finish(void *user_data, void *acc, int64_t n, minigraf_value *r, char *error,
                      size_t size) {
    (void)user_data;
    (void)n;
    (void)error;
    (void)size;
    const geo_acc *g = acc;
    if (g->k == 0)
        return 0; /* Null */
    r->type = MINIGRAF_TYPE_FLOAT;
    r->real = floor(exp(g->sum_ln / (double)g->k) * 1e9 + 0.5) / 1e9;
    return 0;
}

/* ---- sum-int --------------------------------------------------------------- */

static int sum_init(void *user_data, void **acc, char *error, size_t size) {
    (void)user_data;
    return acc_new(acc, sizeof(int64_t), error, size);
}

static int sum_step(void *user_data, void *acc, const minigraf_value *v, char *error, size_t size) {
    (void)user_data;
    if (v->type == MINIGRAF_TYPE_NULL)
        return 0;
    if (v->type != MINIGRAF_TYPE_INTEGER) {
        snprintf(error, size, "sum-int: expected an integer");
        return 1;
    }
    *(int64_t *)acc += v->integer;
    return 0;
}

static int sum_finish(void *user_data, void *acc, int64_t n, minigraf_value *r, char *error,
                      size_t size) {
    (void)user_data;
    (void)n;
    (void)error;
    (void)size;
    r->type = MINIGRAF_TYPE_INTEGER;
    r->integer = *(const int64_t *)acc;
    return 0;
}

static void release_acc(void *user_data, void *acc) {
    (void)user_data;
    free(acc);
}

int register_parity_host_functions(MiniGrafDb *db) {
    int rc = minigraf_register_predicate(db, "email?", email_p, NULL, NULL);
    if (!rc)
        rc = minigraf_register_predicate(db, "big?", big_p, NULL, NULL);
    if (!rc)
        rc = minigraf_register_predicate(db, "fails?", fails_p, NULL, NULL);
    if (!rc)
        rc = minigraf_register_aggregate(db, "geomean", geo_init, geo_step, geo_finish, release_acc,
                                         NULL, NULL);
    if (!rc)
        rc = minigraf_register_aggregate(db, "sum-int", sum_init, sum_step, sum_finish, release_acc,
                                         NULL, NULL);
    return rc;
}
