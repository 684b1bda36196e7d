/*
 * repl.c — the shell's read-execute loop.
 *
 * Lines are appended (joined with LF) to a command buffer; once the buffer
 * holds at least one '(' and its parentheses balance — counting only '('
 * and ')' outside string literals, honouring '\' escapes — the buffer runs
 * as one command and is cleared (language.md §18). Around that:
 *
 *   - Where a command may start (the buffer is empty): an empty line, or a
 *     line whose first non-blank character is '#' or ';', is skipped; a
 *     line EXIT (any case) ends the session; a line starting with '.' is a
 *     dot-command (dot.c).
 *   - Inside a command, outside a string literal: empty lines and lines
 *     starting with ';' or with '#' followed by a blank, '#', '!' or
 *     nothing are comments; any other '#' line is data (a "#uuid ..."
 *     continuation line is kept). Lines are trimmed.
 *   - Inside a string literal (a line that starts, or ends, within one) the
 *     text is data, kept as typed: never a comment, never trimmed inside
 *     the string, never EXIT.
 *
 * This deviates from the earlier shell, which skipped every '#' / ';' line
 * and trimmed every line, even inside a multi-line string (silently changing stored
 * text): docs/shell.md, "Comments".
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>

#include "shell.h"

#define CODE(fam, n) (MINIGRAF_FAMILY_##fam * 1000 + (n))

void shell_fail(shell_session *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("Error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fflush(stderr);
    s->failures++;
    if (s->bail)
        s->stop = 1;
}

/* ---- the command buffer ------------------------------------------------------ */

typedef struct command_buffer {
    text t;
    command_state st;
} command_buffer;

void command_state_feed(command_state *st, const char *bytes, size_t len) {
    for (size_t i = 0; i < len; i++) {
        char c = bytes[i];
        if (st->in_string) {
            if (st->escaped)
                st->escaped = 0;
            else if (c == '\\')
                st->escaped = 1;
            else if (c == '"')
                st->in_string = 0;
        } else if (c == '"') {
            st->in_string = 1;
        } else if (c == '(') {
            st->depth++;
            st->opened = 1;
        } else if (c == ')') {
            st->depth--;
        }
    }
}

static void buffer_append(command_buffer *b, const char *line, size_t len) {
    if (b->t.len > 0) {
        text_putc(&b->t, '\n');
        command_state_feed(&b->st, "\n", 1);
    }
    text_add(&b->t, line, len);
    command_state_feed(&b->st, line, len);
}

static void buffer_reset(command_buffer *b) {
    text_clear(&b->t);
    b->st = (command_state){0};
}

static int buffer_complete(const command_buffer *b) {
    return b->st.opened && b->st.depth == 0 && !b->st.in_string;
}

/* ---- running a command ------------------------------------------------------- */

typedef struct stopwatch {
    struct timespec wall;
    struct rusage cpu;
} stopwatch;

static void stopwatch_start(stopwatch *w) {
    clock_gettime(CLOCK_MONOTONIC, &w->wall);
    getrusage(RUSAGE_SELF, &w->cpu);
}

static double seconds(struct timeval t) {
    return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

static void stopwatch_print(const stopwatch *w) {
    struct timespec now;
    struct rusage cpu;
    clock_gettime(CLOCK_MONOTONIC, &now);
    getrusage(RUSAGE_SELF, &cpu);
    double real = (double)(now.tv_sec - w->wall.tv_sec) +
                  (double)(now.tv_nsec - w->wall.tv_nsec) / 1e9;
    printf("Run Time: real %.3f user %.6f sys %.6f\n", real,
           seconds(cpu.ru_utime) - seconds(w->cpu.ru_utime),
           seconds(cpu.ru_stime) - seconds(w->cpu.ru_stime));
}

static void run_write(shell_session *s, const char *command) {
    char *result = minigraf_execute(s->db, command);
    if (result == NULL) {
        shell_fail(s, "%s", minigraf_last_error(s->db));
        return;
    }
    if (!s->silent)
        render_execute_result(s, result);
    minigraf_string_free(result);
    s->attributes_stale = 1;
}

static void drain(MiniGrafCursor *cursor) {
    char *batch;
    while ((batch = minigraf_cursor_next_batch(cursor, 1000)) != NULL)
        minigraf_string_free(batch);
}

/* A query streams through a cursor; anything else (the cursor refuses it
 * with API-012) goes through minigraf_execute; a query with $slots
 * (API-010) runs as a prepared query with the .param values. */
void repl_run_command(shell_session *s, const char *command) {
    stopwatch w;
    stopwatch_start(&w);
    interrupt_begin_query(s->db);
    MiniGrafCursor *cursor = minigraf_query(s->db, command);
    if (cursor != NULL) {
        if (s->silent)
            drain(cursor);
        else
            render_cursor(s, cursor);
        minigraf_cursor_free(cursor);
    } else if (minigraf_last_error_code(s->db) == CODE(API, 12)) {
        run_write(s, command);
    } else if (minigraf_last_error_code(s->db) == CODE(API, 10)) {
        params_run_prepared(s, command);
    } else {
        shell_fail(s, "%s", minigraf_last_error(s->db));
    }
    interrupt_end_query();
    if (s->timer && !s->silent)
        stopwatch_print(&w);
    if (s->interactive && !s->silent && s->mode == MODE_REFERENCE)
        fputc('\n', stdout);
    fflush(stdout);
}

/* ---- lines ------------------------------------------------------------------- */

static int is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

/* Whether a trimmed line inside a command (outside a string) is a comment. */
static int is_inner_comment(const char *line) {
    if (line[0] == ';')
        return 1;
    return line[0] == '#' &&
           (line[1] == '\0' || is_blank(line[1]) || line[1] == '#' || line[1] == '!');
}

/* Handles one line (without its '\n'). */
static void handle_line(shell_session *s, command_buffer *b, char *raw) {
    size_t n = strlen(raw);
    if (n > 0 && raw[n - 1] == '\r') /* CRLF scripts */
        raw[--n] = '\0';
    if (b->st.in_string) { /* data: exactly as typed */
        buffer_append(b, raw, n);
    } else {
        char *line = raw;
        while (is_blank(*line))
            line++;
        n = strlen(line);
        command_state probe = b->st;
        command_state_feed(&probe, line, n);
        if (!probe.in_string) /* trailing blanks inside a string are data */
            while (n > 0 && is_blank(line[n - 1]))
                line[--n] = '\0';
        if (n == 0)
            return;
        if (strcasecmp(line, "EXIT") == 0) {
            s->stop = 1;
            return;
        }
        if (b->t.len == 0) {
            if (line[0] == '#' || line[0] == ';')
                return;
            if (line[0] == '.') {
                dot_run(s, line);
                return;
            }
        } else if (is_inner_comment(line)) {
            return;
        }
        buffer_append(b, line, n);
    }
    if (buffer_complete(b)) {
        repl_run_command(s, b->t.data);
        buffer_reset(b);
    }
}

/* ---- the loop ------------------------------------------------------------- */

void repl_run(shell_session *s, line_source *in) {
    command_buffer b = {{0}, {0}};
    text_clear(&b.t);
    int idle_interrupts = 0;
    const char *got = NULL;
    int was_interrupted = 0;
    while (!s->stop && (got = line_source_next(in, b.t.len > 0, &was_interrupted)) != NULL) {
        if (was_interrupted) {
            if (b.t.len > 0) {
                buffer_reset(&b);
                idle_interrupts = 0;
            } else if (++idle_interrupts >= 2) {
                s->stop = 1;
            } else {
                fputs("(Ctrl-C again at an empty prompt, or .quit, to exit)\n", stdout);
            }
            continue;
        }
        idle_interrupts = 0;
        char *line = strdup(got);
        if (line == NULL)
            break;
        handle_line(s, &b, line);
        free(line);
    }
    if (!s->stop && b.t.len > 0 && b.t.data[strspn(b.t.data, " \t\n")] != '\0')
        shell_fail(s, "incomplete command at end of input: %.60s%s", b.t.data,
                   b.t.len > 60 ? "..." : "");
    if (s->interactive && got == NULL)
        fputc('\n', stdout);
    text_free(&b.t);
}
