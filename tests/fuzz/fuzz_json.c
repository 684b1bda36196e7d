/* libFuzzer target: the JSON inputs of the ABI. The input's first byte
 * picks the reader, the rest is the JSON text:
 *   0  open options (minigraf_open_v2, in memory)
 *   1  open options of a file (minigraf_open_v2 on a fresh path)
 *   2  binds (minigraf_stmt_bind_json on a statement with a slot of every
 *      kind), then the query runs when every slot is bound
 *   3  a fact-log filter (minigraf_fact_log), drained
 *   4  one log-writer record (minigraf_log_writer_append)
 *   5  a log-writer batch (minigraf_log_writer_append_batch)
 *   6  log-writer options (minigraf_log_writer_create_v2)
 * Invariants: no crash, leak or UB; every failure is coded; a log writer
 * that accepted input finishes into a file that opens and reads. */
#include "fuzz_open.h"

#define BIND_QUERY \
    "(query [:find ?n ?x :as-of $t :valid-at $v :where [$e :name ?n] [?x :age $age]])"

static MiniGrafDb *facts; /* a small in-memory database, shared */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    facts = minigraf_open_in_memory();
    const char *setup[] = {
        "(transact [[:alice :name \"Alice\"] [:alice :age 30] [:bob :name \"Bob\"] [:bob :friend "
        ":alice]])",
        "(transact {:valid-from \"2023-01-01\" :valid-to \"2023-06-30\"} [[:carol :status "
        ":active]])",
        "(retract [[:alice :age 30]])",
    };
    for (size_t i = 0; i < sizeof setup / sizeof setup[0]; i++)
        minigraf_string_free(fuzz_exec(facts, setup[i]));
    return 0;
}

static void open_with(const char *path, const char *json) {
    if (path != NULL)
        fuzz_remove_db(path);
    MiniGrafDb *db = fuzz_open(path, json);
    if (db != NULL) {
        minigraf_string_free(fuzz_exec(db, "(transact [[:a :b 1]])"));
        fuzz_read_all(db);
        minigraf_close(db);
    }
    if (path != NULL)
        fuzz_remove_db(path);
}

static void binds(const char *json) {
    MiniGrafStmt *s = minigraf_prepare(facts, BIND_QUERY);
    if (s == NULL)
        fuzz_die("prepare failed", BIND_QUERY, minigraf_last_error(facts));
    int rc = minigraf_stmt_bind_json(s, json);
    if (rc != 0) {
        fuzz_check_error(rc, minigraf_stmt_last_error(s), json);
    } else {
        char *out = minigraf_stmt_execute(s);
        if (out == NULL)
            fuzz_check_error(minigraf_stmt_last_error_code(s), minigraf_stmt_last_error(s), json);
        minigraf_string_free(out);
    }
    minigraf_stmt_free(s);
}

static void filter(const char *json) {
    MiniGrafFactLog *log = minigraf_fact_log(facts, json);
    if (log == NULL) {
        fuzz_check_error(minigraf_last_error_code(facts), minigraf_last_error(facts), json);
        return;
    }
    char *batch;
    while ((batch = minigraf_fact_log_next_batch(log, 2)) != NULL && strcmp(batch, "[]") != 0)
        minigraf_string_free(batch);
    minigraf_string_free(batch);
    if (minigraf_fact_log_last_error_code(log) != 0)
        fuzz_check_error(minigraf_fact_log_last_error_code(log), minigraf_fact_log_last_error(log),
                         json);
    minigraf_fact_log_free(log);
}

static void writer_check(MiniGrafLogWriter *w, int rc, const char *json) {
    if (rc != 0)
        fuzz_check_error(minigraf_log_writer_last_error_code(w), minigraf_log_writer_last_error(w),
                         json);
}

/* Records (mode 4, 5) or options (mode 6); then finish and read the file. */
static void writer(int mode, const char *json) {
    const char *path = fuzz_path("writer.graph");
    fuzz_remove_db(path);
    MiniGrafLogWriter *w = NULL;
    char *msg = NULL;
    int rc = minigraf_log_writer_create_v2(path, mode == 6 ? json : NULL, &w, &msg);
    if (rc != 0) {
        fuzz_check_error(rc, msg, json);
        minigraf_string_free(msg);
        return;
    }
    if (mode == 4)
        writer_check(w, minigraf_log_writer_append(w, json), json);
    else if (mode == 5)
        writer_check(w, minigraf_log_writer_append_batch(w, json), json);
    if (minigraf_log_writer_finish(w) != 0)
        fuzz_die("finish failed", json, minigraf_log_writer_last_error(w));
    minigraf_log_writer_free(w);
    MiniGrafDb *db = fuzz_open(path, "{\"read_only\":true}");
    if (db == NULL)
        fuzz_die("a finished log writer's file does not open", json, NULL);
    fuzz_read_all(db);
    minigraf_close(db);
    fuzz_remove_db(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0)
        return 0;
    char *json = fuzz_text(data + 1, size - 1);
    switch (data[0] % 7) {
    case 0: open_with(NULL, json); break;
    case 1: open_with(fuzz_path("options.graph"), json); break;
    case 2: binds(json); break;
    case 3: filter(json); break;
    default: writer(data[0] % 7, json); break;
    }
    free(json);
    return 0;
}
