/*
 * repl.c — the shell's read-execute loop (spec section 18).
 *
 * Line handling, exactly as the spec states it:
 *   - each line is trimmed; empty lines and lines starting with '#' or ';'
 *     are skipped (even inside a multi-line command);
 *   - a line equal to EXIT (any case) ends the session;
 *   - other lines are appended (joined with LF) to a buffer, and once the
 *     buffer holds at least one '(' and its parentheses balance — counting
 *     only '(' and ')' outside string literals, honouring '\' escapes — the
 *     buffer runs as one command and is cleared.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "shell.h"

#define API_012 (MINIGRAF_FAMILY_API * 1000 + 12)

/* ---- the command buffer ------------------------------------------------------ */

typedef struct buffer {
    char *data;
    size_t len, cap;
} buffer;

static void buffer_append_line(buffer *b, const char *line, size_t len)
{
    size_t need = b->len + len + 2;
    if (need > b->cap) {
        b->cap = need * 2;
        b->data = realloc(b->data, b->cap);
    }
    if (b->len > 0)
        b->data[b->len++] = '\n';
    memcpy(b->data + b->len, line, len);
    b->len += len;
    b->data[b->len] = '\0';
}

/* Whether the buffer is a complete command: it has a '(' and its
 * parentheses outside strings balance. */
static int buffer_is_complete(const buffer *b)
{
    long depth = 0;
    int opened = 0, in_string = 0;
    for (size_t i = 0; i < b->len; i++) {
        char c = b->data[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = 0;
        } else if (c == '"') {
            in_string = 1;
        } else if (c == '(') {
            depth++;
            opened = 1;
        } else if (c == ')') {
            depth--;
        }
    }
    return opened && depth == 0;
}

/* ---- lines ------------------------------------------------------------------- */

/* Trims ASCII whitespace in place; returns the start and sets *len. */
static char *trim(char *line, size_t *len)
{
    size_t n = strlen(line);
    while (n > 0 && isspace((unsigned char)line[n - 1]))
        n--;
    line[n] = '\0';
    while (*line != '\0' && isspace((unsigned char)*line)) {
        line++;
        n--;
    }
    *len = n;
    return line;
}

static int is_skipped(const char *line)
{
    return line[0] == '\0' || line[0] == '#' || line[0] == ';';
}

/* ---- running a command --------------------------------------------------- */

static void report_error(shell_session *s, const char *message)
{
    fprintf(stderr, "Error: %s\n", message ? message : "(no message)");
    s->failures++;
}

/* Runs a non-query command through minigraf_execute and prints its result. */
static void run_write(shell_session *s, const char *command)
{
    char *result = minigraf_execute(s->db, command);
    if (result == NULL) {
        report_error(s, minigraf_last_error(s->db));
        return;
    }
    if (!s->silent)
        render_execute_result(stdout, result);
    minigraf_string_free(result);
}

/* A query streams through a cursor; anything else (the cursor refuses it
 * with API-012) goes through minigraf_execute. */
void repl_run_command(shell_session *s, const char *command)
{
    MiniGrafCursor *cursor = minigraf_query(s->db, command);
    if (cursor != NULL) {
        if (s->silent) {
            char *batch;
            while ((batch = minigraf_cursor_next_batch(cursor, 1000)) != NULL)
                minigraf_string_free(batch);
        } else if (render_cursor(stdout, cursor) != 0) {
            s->failures++;
        }
        minigraf_cursor_free(cursor);
    } else if (minigraf_last_error_code(s->db) == API_012) {
        run_write(s, command);
    } else {
        report_error(s, minigraf_last_error(s->db));
    }
    if (s->interactive && !s->silent)
        fputc('\n', stdout);
    fflush(stdout);
}

/* ---- the loop ------------------------------------------------------------- */

static void prompt(const shell_session *s, const buffer *b)
{
    if (s->interactive && b->len == 0) {
        fputs("minigraf> ", stdout);
        fflush(stdout);
    }
}

/* Handles one raw input line; returns 1 when it is EXIT. */
static int handle_line(shell_session *s, buffer *b, char *raw)
{
    size_t len;
    char *line = trim(raw, &len);
    if (is_skipped(line))
        return 0;
    if (strcasecmp(line, "EXIT") == 0)
        return 1;
    buffer_append_line(b, line, len);
    if (buffer_is_complete(b)) {
        repl_run_command(s, b->data);
        b->len = 0;
        b->data[0] = '\0';
    }
    return 0;
}

int repl_run(shell_session *s, FILE *in)
{
    buffer b = {0};
    char *raw = NULL;
    size_t raw_cap = 0;
    int exited = 0;
    prompt(s, &b);
    while (!exited && getline(&raw, &raw_cap, in) != -1) {
        exited = handle_line(s, &b, raw);
        if (!exited)
            prompt(s, &b);
    }
    if (s->interactive && !exited)
        fputc('\n', stdout);
    free(raw);
    free(b.data);
    return exited;
}
