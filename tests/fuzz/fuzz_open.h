/* Shared by the targets that open a fuzzed file (fuzz_file, fuzz_wal): what
 * must hold once a damaged database has opened, or failed to. */
#ifndef MINIGRAF_FUZZ_OPEN_H
#define MINIGRAF_FUZZ_OPEN_H

#include "fuzz_support.h"

#define FUZZ_OPEN_OPTIONS(ro, recover)                                       \
    ((ro) ? ((recover) ? "{\"read_only\":true,\"recover\":\"truncate_wal\"}" \
                       : "{\"read_only\":true}")                             \
          : ((recover) ? "{\"recover\":\"truncate_wal\"}" : "{}"))

/* Runs `text`: an answer, or a coded failure. Returns the answer or NULL. */
static inline char *fuzz_exec(MiniGrafDb *db, const char *text) {
    char *out = minigraf_execute(db, text);
    if (out == NULL)
        fuzz_check_error(minigraf_last_error_code(db), minigraf_last_error(db), text);
    return out;
}

/* Reads everything there is to read: every query shape that touches each
 * index, and the whole fact log. */
static inline void fuzz_read_all(MiniGrafDb *db) {
    static const char *const queries[] = {
        "(query [:find ?e ?a ?v :any-valid-time :where [?e ?a ?v]])",
        "(query [:find ?e ?v :where [?e :fuzz/mark ?v]])",
        "(query [:find ?a (count ?e) :where [?e ?a ?v]])",
        "(query [:find ?e ?t :any-valid-time :where [?e :name ?n] [?e :db/tx-count ?t]])",
        "(query [:find ?x :as-of 1 :where [?x ?a 1]])",
    };
    for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++)
        minigraf_string_free(fuzz_exec(db, queries[i]));
    MiniGrafFactLog *log = minigraf_fact_log(db, NULL);
    if (log == NULL) {
        fuzz_check_error(minigraf_last_error_code(db), minigraf_last_error(db), "fact_log");
        return;
    }
    char *batch;
    while ((batch = minigraf_fact_log_next_batch(log, 64)) != NULL && strcmp(batch, "[]") != 0)
        minigraf_string_free(batch);
    minigraf_string_free(batch);
    if (minigraf_fact_log_last_error_code(log) != 0)
        fuzz_check_error(minigraf_fact_log_last_error_code(log), minigraf_fact_log_last_error(log),
                         "fact_log");
    minigraf_fact_log_free(log);
}

static inline MiniGrafDb *fuzz_open(const char *path, const char *options) {
    MiniGrafDb *db = NULL;
    char *msg = NULL;
    int rc = minigraf_open_v2(path, options, &db, &msg);
    if (rc != 0) {
        fuzz_check_error(rc, msg, path);
        minigraf_string_free(msg);
        return NULL;
    }
    return db;
}

/* Opens `path`; when it opens: reads everything, and (read-write) commits
 * a mark, checkpoints and reopens: the acknowledged mark must be there
 * whenever the reopened file answers at all. */
static inline void fuzz_open_and_use(const char *path, int read_only, int recover) {
    MiniGrafDb *db = fuzz_open(path, FUZZ_OPEN_OPTIONS(read_only, recover));
    if (db == NULL)
        return;
    fuzz_read_all(db);
    char *acked = read_only ? NULL : fuzz_exec(db, "(transact [[:fuzz-mark :fuzz/mark 424242]])");
    if (acked != NULL && minigraf_checkpoint(db) != 0)
        fuzz_check_error(minigraf_last_error_code(db), minigraf_last_error(db), "checkpoint");
    minigraf_close(db);
    if (acked == NULL)
        return;
    minigraf_string_free(acked);
    db = fuzz_open(path, "{}");
    if (db == NULL)
        return;
    char *out = fuzz_exec(db, "(query [:find ?v :where [:fuzz-mark :fuzz/mark ?v]])");
    if (out != NULL && strstr(out, "424242") == NULL)
        fuzz_die("an acknowledged transaction is missing after checkpoint and reopen", path, out);
    minigraf_string_free(out);
    minigraf_close(db);
}

#endif
