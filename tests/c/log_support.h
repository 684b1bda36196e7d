/*
 * log_support.h — helpers of the fact log and log writer tests: drain a
 * fact log into one JSON array, summarise records, export a database.
 */
#ifndef MINIGRAF_TEST_LOG_SUPPORT_H
#define MINIGRAF_TEST_LOG_SUPPORT_H

#include <stdio.h>
#include <sys/stat.h>

#include "support.h"

#define API_017 5017
#define API_018 5018
#define STG_043 3043

/* Appends the records of a batch "[{..},{..}]" to the array being built. */
static inline void append_batch_text(char **all, size_t *len, size_t *cap, const char *b) {
    size_t blen = strlen(b);
    if (*len + blen + 2 > *cap) {
        *cap = (*len + blen + 2) * 2;
        *all = realloc(*all, *cap);
    }
    if (*len > 1)
        (*all)[(*len)++] = ',';
    memcpy(*all + *len, b + 1, blen - 2);
    *len += blen - 2;
}

/* Drains `log` in batches of `batch` records into one JSON array; NULL
 * (after reporting) when a batch fails. Frees the log. */
static inline char *drain_log_at(const char *file, int line, MiniGrafFactLog *log, size_t batch) {
    if (log == NULL) {
        check_fail(file, line, "fact log opened");
        return NULL;
    }
    size_t cap = 64, len = 1;
    char *all = malloc(cap);
    all[0] = '[';
    char *b;
    while ((b = minigraf_fact_log_next_batch(log, batch)) != NULL) {
        if (strcmp(b, "[]") == 0)
            check_fail(file, line, "a batch is never empty");
        append_batch_text(&all, &len, &cap, b);
        minigraf_string_free(b);
    }
    if (minigraf_fact_log_last_error(log) != NULL) {
        check_fail_str(file, line, "drain", minigraf_fact_log_last_error(log), NULL);
        free(all);
        all = NULL;
    } else {
        all[len++] = ']';
        all[len] = '\0';
    }
    minigraf_fact_log_free(log);
    return all;
}
#define DRAIN_LOG(log, batch) drain_log_at(__FILE__, __LINE__, (log), (batch))

/* The text after `key` in `s` up to (not including) the first of `stops`. */
static inline const char *field_after(const char *s, const char *key, const char *stops, char *out,
                                      size_t cap) {
    const char *p = strstr(s, key);
    size_t n = 0;
    if (p != NULL) {
        p += strlen(key);
        while (*p && !strchr(stops, *p) && n + 1 < cap)
            out[n++] = *p++;
    }
    out[n] = '\0';
    return p;
}

/* A readable summary of a drained log, one token per record:
 * <attribute>=<value text>@<tx_count>, with "-" after a retraction, e.g.
 * ":age=30@1 :age=30@2-". Values must not contain '}' or '"' apart from
 * a string's quotes (which are dropped). */
static inline char *summarize(const char *records) {
    size_t cap = strlen(records) + 1;
    char *out = calloc(1, cap);
    const char *rec = records;
    while (rec && (rec = strstr(rec, "{\"entity\":")) != NULL) {
        char attr[128], val[256], tx[32], asserted[8];
        field_after(rec, "\"attribute\":\"", "\"", attr, sizeof attr);
        const char *v = strstr(rec, "\"value\":{");
        field_after(v, ",\"value\":", "}", val, sizeof val);
        field_after(rec, "\"tx_count\":", ",", tx, sizeof tx);
        field_after(rec, "\"asserted\":", "}", asserted, sizeof asserted);
        char *q;
        while ((q = strchr(val, '"')) != NULL)
            memmove(q, q + 1, strlen(q));
        snprintf(out + strlen(out), cap - strlen(out), "%s%s=%s@%s%s", out[0] ? " " : "", attr, val,
                 tx, strcmp(asserted, "true") == 0 ? "" : "-");
        rec++;
    }
    return out;
}

/* Summary of the whole fact log of `db` under `filter`. Caller frees. */
static inline char *log_summary_at(const char *file, int line, MiniGrafDb *db, const char *filter) {
    MiniGrafFactLog *log = minigraf_fact_log(db, filter);
    if (log == NULL) {
        check_fail_str(file, line, filter ? filter : "NULL filter", minigraf_last_error(db), NULL);
        return strdup("<error>");
    }
    char *all = drain_log_at(file, line, log, 2);
    char *s = summarize(all ? all : "");
    free(all);
    return s;
}

static inline void expect_log_at(const char *file, int line, MiniGrafDb *db, const char *filter,
                                 const char *want) {
    char *got = log_summary_at(file, line, db, filter);
    if (strcmp(got, want) != 0)
        check_fail_str(file, line, filter ? filter : "NULL filter", got, want);
    free(got);
}
#define EXPECT_LOG(db, filter, want) expect_log_at(__FILE__, __LINE__, (db), (filter), (want))

static inline int file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* Exports every record of `db` (tx order, batches of `batch`) into a new
 * file at `path`, advancing the counter to the database's. 0 on success. */
static inline int export_db_at(const char *file, int line, MiniGrafDb *db, const char *path,
                               size_t batch) {
    char *error = NULL;
    MiniGrafLogWriter *w = minigraf_log_writer_create(path, NULL, &error);
    if (w == NULL) {
        check_fail_str(file, line, "log writer created", error, NULL);
        minigraf_string_free(error);
        return -1;
    }
    MiniGrafFactLog *log = minigraf_fact_log(db, NULL);
    char *b;
    int rc = 0;
    while (rc == 0 && (b = minigraf_fact_log_next_batch(log, batch)) != NULL) {
        rc = minigraf_log_writer_append_batch(w, b);
        minigraf_string_free(b);
    }
    minigraf_fact_log_free(log);
    uint64_t count = 0;
    if (rc == 0)
        rc = minigraf_current_tx_count(db, &count);
    if (rc == 0)
        rc = minigraf_log_writer_advance_tx_count(w, count);
    if (rc == 0)
        rc = minigraf_log_writer_finish(w);
    if (rc != 0)
        check_fail_str(file, line, "export", minigraf_log_writer_last_error(w), NULL);
    minigraf_log_writer_free(w);
    return rc;
}
#define EXPORT_DB(db, path, batch) export_db_at(__FILE__, __LINE__, (db), (path), (batch))

#endif
