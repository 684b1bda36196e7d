/* libFuzzer target: a sequence of commands (one per line: transact,
 * retract, query, rule) against an in-memory database, through the public
 * API as an application would call it.
 *
 * Invariants checked on every input:
 *  - no crash, leak or undefined behaviour (ASan + UBSan);
 *  - every failure carries a "[CODE] message" naming its code;
 *  - the database answers after any failure (a failed command changes
 *    nothing: the transaction counter is unchanged);
 *  - oracle: the database exported to a file (minigraf_export) and opened
 *    again, with the same rules registered, gives every query that
 *    succeeded the answer the database gives it at the end (rows compared
 *    as a set), and so does that file after a checkpoint and reopen. Queries whose answer may
 * depend on row order, on summation order or on the clock (:limit, :offset, window functions, sum,
 * avg, :db/valid-at) are left out of the comparison. */
#include "../c/support.h"
#include "fuzz_support.h"

#define MAX_COMMANDS 24
#define OPTIONS                                                 \
    "{\"query_timeout_ms\":50,\"query_memory_limit\":33554432," \
    "\"max_derived_facts\":5000,\"max_results\":5000}"

typedef struct answered {
    const char *text;
    char *rows; /* canonical_result of its answer at the end */
} answered;

typedef struct session {
    const char *rules[MAX_COMMANDS];
    size_t rule_count;
    answered queries[MAX_COMMANDS];
    size_t query_count;
} session;

static int starts_with_word(const char *s, const char *word) {
    while (*s == ' ' || *s == '\t' || *s == '\r')
        s++;
    return strncmp(s, word, strlen(word)) == 0;
}

/* An answer that may depend on row order, summation order or the clock. */
static int not_comparable(const char *text) {
    static const char *const words[] = {":limit", ":offset",    ":over", "sum",  "avg",
                                        "rank",   "row-number", "lag",   "lead", ":db/valid-at"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strstr(text, words[i]) != NULL)
            return 1;
    return 0;
}

static uint64_t counter(MiniGrafDb *db, const char *text) {
    uint64_t n = 0;
    if (minigraf_current_tx_count(db, &n) != 0)
        fuzz_die("current_tx_count failed", text, minigraf_last_error(db));
    return n;
}

static void run_one(MiniGrafDb *db, const char *text, session *s) {
    uint64_t before = counter(db, text);
    char *out = minigraf_execute(db, text);
    if (out == NULL) {
        fuzz_check_error(minigraf_last_error_code(db), minigraf_last_error(db), text);
        if (counter(db, text) != before)
            fuzz_die("a failed command moved the transaction counter", text,
                     minigraf_last_error(db));
        return;
    }
    if (starts_with_word(text, "(rule") && s->rule_count < MAX_COMMANDS)
        s->rules[s->rule_count++] = text;
    else if (strstr(out, "\"variables\":") != NULL && !not_comparable(text) &&
             s->query_count < MAX_COMMANDS)
        s->queries[s->query_count++] = (answered){text, NULL};
    minigraf_string_free(out);
}

/* The answers of the database as the commands left it; a query that now
 * hits a timing or memory limit leaves the comparison. */
static void final_answers(MiniGrafDb *db, session *s) {
    size_t kept = 0;
    for (size_t i = 0; i < s->query_count; i++) {
        char *out = minigraf_execute(db, s->queries[i].text);
        if (out == NULL) {
            fuzz_check_error(minigraf_last_error_code(db), minigraf_last_error(db),
                             s->queries[i].text);
            continue;
        }
        s->queries[kept++] = (answered){s->queries[i].text, canonical_result(out)};
        minigraf_string_free(out);
    }
    s->query_count = kept;
}

/* Same answers from `db`; a query may still fail there for a limit that
 * depends on timing or memory layout (API-013, QRY-012), nothing else. */
static void compare_answers(MiniGrafDb *db, const session *s, const char *where) {
    for (size_t i = 0; i < s->rule_count; i++) {
        char *out = minigraf_execute(db, s->rules[i]);
        if (out == NULL)
            fuzz_die("a rule accepted before fails on the copy", s->rules[i],
                     minigraf_last_error(db));
        minigraf_string_free(out);
    }
    for (size_t i = 0; i < s->query_count; i++) {
        char *out = minigraf_execute(db, s->queries[i].text);
        if (out == NULL) {
            const char *code = minigraf_error_code_name(minigraf_last_error_code(db));
            if (code && (strcmp(code, "API-013") == 0 || strcmp(code, "QRY-012") == 0))
                continue;
            fuzz_die("a query that answered fails on the copy", s->queries[i].text,
                     minigraf_last_error(db));
        }
        char *rows = canonical_result(out);
        if (strcmp(rows, s->queries[i].rows) != 0) {
            fprintf(stderr, "fuzz: %s\n  before: %.2000s\n  after:  %.2000s\n", where,
                    s->queries[i].rows, rows);
            fuzz_die("a query answers differently on the copy", s->queries[i].text, where);
        }
        free(rows);
        minigraf_string_free(out);
    }
}

static MiniGrafDb *open_file(const char *path) {
    MiniGrafDb *db = NULL;
    char *msg = NULL;
    if (minigraf_open_v2(path, OPTIONS, &db, &msg) != 0)
        fuzz_die("the copy does not open", path, msg);
    return db;
}

static void check_copy(MiniGrafDb *db, const session *s) {
    const char *path = fuzz_path("copy.graph");
    fuzz_remove_db(path);
    uint64_t n = counter(db, "export");
    if (minigraf_export(db, path, NULL) != 0) {
        const char *code = minigraf_error_code_name(minigraf_last_error_code(db));
        if (code && strcmp(code, "WAL-003") == 0) /* a value too long for a file */
            return;
        fuzz_die("export failed", path, minigraf_last_error(db));
    }
    MiniGrafDb *copy = open_file(path);
    if (counter(copy, "copy") != n)
        fuzz_die("the copy has another transaction counter", path, NULL);
    compare_answers(copy, s, "export");
    if (minigraf_checkpoint(copy) != 0)
        fuzz_die("checkpoint failed", path, minigraf_last_error(copy));
    minigraf_close(copy);
    copy = open_file(path);
    compare_answers(copy, s, "checkpoint and reopen");
    minigraf_close(copy);
    fuzz_remove_db(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    MiniGrafDb *db = NULL;
    char *msg = NULL;
    if (minigraf_open_v2(NULL, OPTIONS, &db, &msg) != 0)
        fuzz_die("in-memory open failed", NULL, msg);
    char *text = fuzz_text(data, size);
    session s = {0};
    size_t commands = 0;
    for (char *line = text, *next; line != NULL && commands < MAX_COMMANDS;
         line = next, commands++) {
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        run_one(db, line, &s);
    }
    final_answers(db, &s);
    if (s.query_count > 0)
        check_copy(db, &s);
    for (size_t i = 0; i < s.query_count; i++)
        free(s.queries[i].rows);
    minigraf_close(db);
    free(text);
    return 0;
}
