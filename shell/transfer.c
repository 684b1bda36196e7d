/*
 * transfer.c — .export and .import: the database's facts, with their whole
 * history (transaction counts and times, valid windows, retractions), out
 * to a file and back, in the fact log format (minigraf.h, "Fact log").
 *
 *   .export FILE          a new database file FILE answering every query
 *                         as this one does, :as-of included
 *   .export --jsonl FILE  the fact records as JSON lines, then a last line
 *                         {"tx_count":N} (the counter, which empty
 *                         transactions raise too)
 *   .import FILE DB       builds the new database file DB from the JSON
 *                         lines of FILE (as .export --jsonl writes them)
 *                         with the log writer, then opens DB
 */
#include <stdlib.h>
#include <string.h>

#include "shell.h"

enum { RECORDS_PER_BATCH = 256 };

/* A copy of the database in the new file `path`: one consistent snapshot,
 * in the library. */
static void export_database(shell_session *s, const char *path) {
    if (minigraf_export(s->db, path, NULL) != 0)
        shell_fail(s, "%s", minigraf_last_error(s->db));
}

/* Writes each record of one fact-log batch on its own line. */
static void write_batch_lines(FILE *out, const char *batch) {
    scan sc = {batch};
    scan_accept(&sc, '[');
    for (scan_ws(&sc); *sc.p == '{'; scan_ws(&sc)) {
        const char *start = sc.p;
        scan_skip_value(&sc);
        fprintf(out, "%.*s\n", (int)(sc.p - start), start);
        scan_accept(&sc, ',');
    }
}

static void export_jsonl(shell_session *s, const char *path) {
    FILE *out = fopen(path, "wx");
    if (out == NULL) {
        shell_fail(s, "cannot create %s (it must not exist)", path);
        return;
    }
    MiniGrafFactLog *log = minigraf_fact_log(s->db, NULL);
    int ok = log != NULL;
    if (!ok)
        shell_fail(s, "%s", minigraf_last_error(s->db));
    char *batch;
    while (ok && (batch = minigraf_fact_log_next_batch(log, RECORDS_PER_BATCH)) != NULL) {
        write_batch_lines(out, batch);
        minigraf_string_free(batch);
    }
    if (ok && minigraf_fact_log_last_error(log) != NULL) {
        shell_fail(s, "%s", minigraf_fact_log_last_error(log));
        ok = 0;
    }
    minigraf_fact_log_free(log);
    uint64_t count = 0;
    if (ok && minigraf_current_tx_count(s->db, &count) == 0)
        fprintf(out, "{\"tx_count\":%llu}\n", (unsigned long long)count);
    if (fclose(out) != 0 && ok)
        shell_fail(s, "cannot write %s", path);
}

/* The words of a dot-command's arguments (at most `max`), unquoted. */
static size_t split_words(const char *args, char **words, size_t max) {
    size_t n = 0;
    while (n <= max) {
        while (*args == ' ' || *args == '\t')
            args++;
        if (*args == '\0')
            break;
        size_t len = strcspn(args, " \t");
        if (n < max)
            words[n] = strndup(args, len);
        n++;
        args += len;
    }
    return n;
}

static void free_words(char **words, size_t n, size_t max) {
    for (size_t i = 0; i < n && i < max; i++)
        free(words[i]);
}

void dot_export(shell_session *s, const char *args) {
    char *w[2] = {NULL, NULL};
    size_t n = split_words(args, w, 2);
    if (n == 1 && w[0][0] != '-') {
        if (confine_path(s, ".export", w[0]) == 0)
            export_database(s, w[0]);
    } else if (n == 2 && strcmp(w[0], "--jsonl") == 0) {
        if (confine_path(s, ".export", w[1]) == 0)
            export_jsonl(s, w[1]);
    } else {
        shell_fail(s, "usage: .export [--jsonl] FILE");
    }
    free_words(w, n, 2);
}

/* ---- .import ------------------------------------------------------------------ */

/* Appends the collected lines (a JSON array in `batch`) to the writer. */
static int flush_records(shell_session *s, MiniGrafLogWriter *w, text *batch, size_t *count,
                         size_t first_line) {
    if (*count == 0)
        return 0;
    text_putc(batch, ']');
    int rc = minigraf_log_writer_append_batch(w, batch->data);
    if (rc != 0)
        shell_fail(s, "%s (in the %zu records from line %zu)", minigraf_log_writer_last_error(w),
                   *count, first_line);
    text_clear(batch);
    *count = 0;
    return rc;
}

/* Feeds every line of `in` to the writer; 0, or -1 after reporting. */
static int import_lines(shell_session *s, FILE *in, MiniGrafLogWriter *w) {
    char *line = NULL;
    size_t cap = 0, count = 0, number = 0, first = 1;
    text batch = {0};
    text_clear(&batch);
    int rc = 0;
    ssize_t len;
    while (rc == 0 && (len = getline(&line, &cap, in)) != -1) {
        number++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (line[strspn(line, " \t")] == '\0')
            continue;
        if (strncmp(line, "{\"tx_count\":", 12) == 0) {
            rc = flush_records(s, w, &batch, &count, first);
            if (rc == 0 &&
                minigraf_log_writer_advance_tx_count(w, strtoull(line + 12, NULL, 10)) != 0) {
                shell_fail(s, "%s (line %zu)", minigraf_log_writer_last_error(w), number);
                rc = -1;
            }
            continue;
        }
        if (count == 0) {
            first = number;
            text_putc(&batch, '[');
        } else {
            text_putc(&batch, ',');
        }
        text_add(&batch, line, (size_t)len);
        if (++count == RECORDS_PER_BATCH)
            rc = flush_records(s, w, &batch, &count, first);
    }
    if (rc == 0)
        rc = flush_records(s, w, &batch, &count, first);
    if (rc == 0 && minigraf_log_writer_finish(w) != 0) {
        shell_fail(s, "%s", minigraf_log_writer_last_error(w));
        rc = -1;
    }
    free(line);
    text_free(&batch);
    return rc;
}

void dot_import(shell_session *s, const char *args) {
    char *w[2] = {NULL, NULL};
    size_t n = split_words(args, w, 2);
    if (n != 2) {
        shell_fail(
            s,
            "usage: .import FILE DB (FILE: JSON lines of fact records; DB: a new database file)");
        free_words(w, n, 2);
        return;
    }
    if (confine_path(s, ".import", w[0]) != 0 || confine_path(s, ".import", w[1]) != 0) {
        free_words(w, n, 2);
        return;
    }
    FILE *in = fopen(w[0], "r");
    char *error = NULL;
    MiniGrafLogWriter *writer = NULL;
    if (in == NULL) {
        shell_fail(s, "cannot read %s", w[0]);
    } else if ((writer = minigraf_log_writer_create(w[1], NULL, &error)) == NULL) {
        shell_fail(s, "%s", error ? error : "cannot create the database");
        minigraf_string_free(error);
    } else if (import_lines(s, in, writer) == 0) {
        minigraf_log_writer_free(writer);
        writer = NULL;
        session_open(s, w[1], 0);
    }
    minigraf_log_writer_free(writer);
    if (in != NULL)
        fclose(in);
    free_words(w, n, 2);
}
