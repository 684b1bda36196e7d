/*
 * support.h — helpers shared by the C tests: run a command and compare its
 * JSON with the spec's text, expect an error code, drain a cursor.
 *
 * Row order of a query is unspecified (language.md §8.12.2), so every comparison of a
 * query result sorts the rows of both sides by their JSON text first; the
 * expected text is otherwise compared byte for byte (language.md §14.1: compact JSON).
 */
#ifndef MINIGRAF_TEST_SUPPORT_H
#define MINIGRAF_TEST_SUPPORT_H

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "minigraf.h"

/* ---- JSON text helpers -------------------------------------------------- */

/* Length of the JSON value starting at `s` (string, array, object or bare
 * token), honouring strings and escapes; stops at the end of the text. */
static inline size_t json_value_len(const char *s) {
    size_t i = 0;
    int depth = 0, in_string = 0;
    for (; s[i] != '\0'; i++) {
        char c = s[i];
        if (in_string) {
            if (c == '\\' && s[i + 1] != '\0')
                i++;
            else if (c == '"')
                in_string = 0;
            if (!in_string && depth == 0)
                return i + 1;
            continue;
        }
        if (c == '"') {
            in_string = 1;
        } else if (c == '[' || c == '{') {
            depth++;
        } else if (c == ']' || c == '}') {
            if (depth == 0)
                return i;
            if (--depth == 0)
                return i + 1;
        } else if (c == ',' && depth == 0) {
            return i;
        }
    }
    return i;
}

typedef struct json_span {
    const char *start;
    size_t len;
} json_span;

static inline int json_span_cmp(const void *a, const void *b) {
    const json_span *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->start, y->start, n);
    if (c != 0)
        return c;
    return (x->len > y->len) - (x->len < y->len);
}

/* The JSON array at `array` (compact) with its elements sorted by their
 * text; also returns, through `*consumed`, the array's length in `array`.
 * Caller frees. */
static inline char *json_sorted_array(const char *array, size_t *consumed) {
    size_t total = json_value_len(array), count = 0;
    json_span *items = calloc(total + 1, sizeof *items);
    char *out = malloc(total + 1);
    size_t i = 1, o = 0;
    while (i < total && array[i] != ']') {
        size_t len = json_value_len(array + i);
        items[count].start = array + i;
        items[count++].len = len;
        i += len;
        if (array[i] == ',')
            i++;
    }
    qsort(items, count, sizeof *items, json_span_cmp);
    out[o++] = '[';
    for (size_t k = 0; k < count; k++) {
        if (k > 0)
            out[o++] = ',';
        memcpy(out + o, items[k].start, items[k].len);
        o += items[k].len;
    }
    out[o++] = ']';
    out[o] = '\0';
    free(items);
    if (consumed)
        *consumed = total;
    return out;
}

/* A result text with the rows of a "results" array sorted (any other text
 * is copied unchanged). Caller frees. */
static inline char *canonical_result(const char *json) {
    const char *key = strstr(json, "\"results\":[");
    if (key == NULL)
        return strdup(json);
    size_t prefix = (size_t)(key - json) + strlen("\"results\":");
    size_t used = 0;
    char *rows = json_sorted_array(json + prefix, &used);
    const char *rest = json + prefix + used;
    char *out = malloc(prefix + strlen(rows) + strlen(rest) + 1);
    memcpy(out, json, prefix);
    strcpy(out + prefix, rows);
    strcat(out, rest);
    free(rows);
    return out;
}

/* ---- running commands --------------------------------------------------- */

static inline MiniGrafDb *open_memory_db(void) {
    MiniGrafDb *db = minigraf_open_in_memory();
    if (db == NULL)
        check_fail(__FILE__, __LINE__, "minigraf_open_in_memory() != NULL");
    return db;
}

/* Runs `text`; on failure reports the db's error at file:line. Caller frees
 * the result. */
static inline char *exec_at(const char *file, int line, MiniGrafDb *db, const char *text) {
    char *out = minigraf_execute(db, text);
    if (out == NULL) {
        check_fail(file, line, text);
        fprintf(stderr, "    error: %s\n", minigraf_last_error(db));
    }
    return out;
}

/* Runs `text` and compares its result (rows sorted) with `want`. */
/* Compares the result `got` of `text` (rows sorted) with `want`, then
 * frees it. */
static inline void expect_result_at(const char *file, int line, const char *text, char *got,
                                    const char *want) {
    char *g = canonical_result(got), *w = canonical_result(want);
    if (strcmp(g, w) != 0)
        check_fail_str(file, line, text, got, want);
    free(g);
    free(w);
    minigraf_string_free(got);
}

static inline void expect_exec_at(const char *file, int line, MiniGrafDb *db, const char *text,
                                  const char *want) {
    char *got = exec_at(file, line, db, text);
    if (got != NULL)
        expect_result_at(file, line, text, got, want);
}

/* Runs `text` in the transaction and compares its result (rows sorted)
 * with `want`. */
static inline void expect_tx_exec_at(const char *file, int line, MiniGrafTx *tx, const char *text,
                                     const char *want) {
    char *got = minigraf_tx_execute(tx, text);
    if (got == NULL) {
        check_fail(file, line, text);
        fprintf(stderr, "    error: %s\n", minigraf_tx_last_error(tx));
        return;
    }
    expect_result_at(file, line, text, got, want);
}
#define EXPECT_TX_EXEC(tx, text, want) expect_tx_exec_at(__FILE__, __LINE__, (tx), (text), (want))

/* Checks that `got` is {"<key>":N} with N a positive integer; returns N. */
static inline uint64_t expect_tx_result_at(const char *file, int line, const char *got,
                                           const char *key) {
    char prefix[32];
    snprintf(prefix, sizeof prefix, "{\"%s\":", key);
    size_t plen = strlen(prefix);
    if (got == NULL || strncmp(got, prefix, plen) != 0) {
        check_fail_str(file, line, key, got, "{\"<key>\":<ms>}");
        return 0;
    }
    char *end = NULL;
    unsigned long long ms = strtoull(got + plen, &end, 10);
    if (ms == 0 || end == got + plen || strcmp(end, "}") != 0)
        check_fail_str(file, line, key, got, "{\"<key>\":<positive ms>}");
    return ms;
}

/* Runs a transact (or retract, with key "retracted") and checks the shape of
 * its result. Returns the commit's wall-clock ms (0 on failure). */
static inline uint64_t expect_write_at(const char *file, int line, MiniGrafDb *db, const char *text,
                                       const char *key) {
    char *got = exec_at(file, line, db, text);
    if (got == NULL)
        return 0;
    uint64_t ms = expect_tx_result_at(file, line, got, key);
    minigraf_string_free(got);
    return ms;
}

/* Checks that `text` fails with `code` ("PRS-011"), that the message starts
 * with "[PRS-011] " and that the numeric code names the same code. */
static inline void expect_error_at(const char *file, int line, MiniGrafDb *db, const char *text,
                                   const char *code) {
    char *got = minigraf_execute(db, text);
    if (got != NULL) {
        check_fail_str(file, line, text, got, code);
        minigraf_string_free(got);
        return;
    }
    const char *name = minigraf_error_code_name(minigraf_last_error_code(db));
    const char *msg = minigraf_last_error(db);
    char prefix[32];
    snprintf(prefix, sizeof prefix, "[%s] ", code);
    if (!check_str_equal(name, code))
        check_fail_str(file, line, text, name, code);
    if (msg == NULL || strncmp(msg, prefix, strlen(prefix)) != 0)
        check_fail_str(file, line, "message starts with [CODE]", msg, prefix);
}

/* Current transaction counter (UINT64_MAX when the call fails). */
static inline uint64_t tx_count(MiniGrafDb *db) {
    uint64_t n = UINT64_MAX;
    if (minigraf_current_tx_count(db, &n) != 0)
        check_fail(__FILE__, __LINE__, "minigraf_current_tx_count() == 0");
    return n;
}

#define EXEC(db, text) exec_at(__FILE__, __LINE__, (db), (text))
#define EXPECT_EXEC(db, text, want) expect_exec_at(__FILE__, __LINE__, (db), (text), (want))
#define EXPECT_TRANSACT(db, text) expect_write_at(__FILE__, __LINE__, (db), (text), "transacted")
#define EXPECT_RETRACT(db, text) expect_write_at(__FILE__, __LINE__, (db), (text), "retracted")
#define EXPECT_ERROR(db, text, code) expect_error_at(__FILE__, __LINE__, (db), (text), (code))

/* Runs `text` and compares its JSON byte for byte (row order included). */
static inline void expect_exact_at(const char *file, int line, MiniGrafDb *db, const char *text,
                                   const char *want) {
    char *got = exec_at(file, line, db, text);
    if (got != NULL && strcmp(got, want) != 0)
        check_fail_str(file, line, text, got, want);
    minigraf_string_free(got);
}
#define EXPECT_EXACT(db, text, want) expect_exact_at(__FILE__, __LINE__, (db), (text), (want))

/* Drains `cursor` in batches of `batch` rows into one JSON array (rows in
 * cursor order). Returns NULL, after reporting, when a batch fails. */
static inline char *drain_cursor(MiniGrafCursor *cursor, size_t batch) {
    size_t cap = 64, len = 1;
    char *all = malloc(cap);
    all[0] = '[';
    char *b;
    while ((b = minigraf_cursor_next_batch(cursor, batch)) != NULL) {
        size_t blen = strlen(b);
        if (len + blen + 2 > cap) {
            cap = (len + blen + 2) * 2;
            all = realloc(all, cap);
        }
        if (blen > 2) { /* skip "[]" */
            if (len > 1)
                all[len++] = ',';
            memcpy(all + len, b + 1, blen - 2);
            len += blen - 2;
        }
        minigraf_string_free(b);
    }
    if (minigraf_cursor_last_error(cursor) != NULL) {
        check_fail(__FILE__, __LINE__, minigraf_cursor_last_error(cursor));
        free(all);
        return NULL;
    }
    all[len++] = ']';
    all[len] = '\0';
    return all;
}

/* ---- temporary database files ------------------------------------------ */

typedef struct temp_db_path {
    char dir[64];
    char path[96]; /* dir + "/test.graph" */
} temp_db_path;

/* Creates a fresh directory under /tmp for one test's database file. */
static inline void temp_db_make(temp_db_path *t) {
    strcpy(t->dir, "/tmp/minigraf-test-XXXXXX");
    if (mkdtemp(t->dir) == NULL)
        check_fail(__FILE__, __LINE__, "mkdtemp");
    snprintf(t->path, sizeof t->path, "%s/test.graph", t->dir);
}

/* The same under /dev/shm when it exists: for tests that commit many
 * times or kill processes, where real fsyncs on a shared disk would only
 * slow them down (a process kill does not need them). */
static inline void temp_db_make_in_memory_fs(temp_db_path *t) {
    struct stat st;
    const char *base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";
    snprintf(t->dir, sizeof t->dir, "%s/minigraf-test-XXXXXX", base);
    if (mkdtemp(t->dir) == NULL)
        check_fail(__FILE__, __LINE__, "mkdtemp");
    snprintf(t->path, sizeof t->path, "%s/test.graph", t->dir);
}

/* Copies file `from` to `to` (created or truncated). */
static inline void copy_file(const char *from, const char *to) {
    int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(in >= 0 && out >= 0);
    char buf[4096];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        REQUIRE(write(out, buf, (size_t)n) == n);
    close(in);
    close(out);
}

/* Database file pages, for tests that damage one (docs/file-format.md
 * §1): little-endian fields, and a page's checksum rewritten as the
 * writer does (CRC-32 of the payload, then of the page number). */
#define FILE_PAGE 4096
static inline uint64_t file_le(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static inline void file_put_le(uint8_t *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint32_t file_crc32(uint32_t crc, const uint8_t *p, size_t n) {
    crc = ~crc;
    while (n--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static inline void file_page_seal(uint8_t *page, uint32_t pgno) {
    uint8_t no[4];
    file_put_le(no, pgno, 4);
    file_put_le(page + FILE_PAGE - 4, file_crc32(file_crc32(0, page, FILE_PAGE - 4), no, 4), 4);
}

/* Deletes every file of the directory (database, log, lock) and the dir. */
static inline void temp_db_remove(temp_db_path *t) {
    DIR *d = opendir(t->dir);
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char file[400];
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(file, sizeof file, "%s/%s", t->dir, e->d_name);
        unlink(file);
    }
    closedir(d);
    rmdir(t->dir);
}

#endif
