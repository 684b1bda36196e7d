/*
 * input.c — where the shell's lines come from, and Ctrl-C.
 *
 * A file (a script, a pipe, .read) is read with getline. The terminal is
 * read through libedit's readline interface when the shell was built with
 * it (MINIGRAF_SHELL_LIBEDIT, set by CMake when pkg-config finds libedit):
 * line editing, history kept in ~/.minigraf_history, completion of
 * commands, dot-commands and known attributes. Without libedit the
 * terminal is read like a file, with prompts but no editing or history.
 *
 * SIGINT sets a flag (the handler does nothing else that is not
 * async-signal-safe). While a line is being read, the read returns and the
 * partial command is discarded. While a query runs, minigraf_interrupt
 * stops it (API-013) and a streaming answer stops at its next batch
 * (interrupt_query below).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shell.h"

#ifdef MINIGRAF_SHELL_LIBEDIT
#include <editline/readline.h>
#endif

/* ---- Ctrl-C ----------------------------------------------------------------- */

static volatile sig_atomic_t interrupted;   /* pressed, not yet taken */
static volatile sig_atomic_t query_running; /* a query is running */
static MiniGrafDb *volatile query_db;       /* its database */

/* Asks the running query to stop. Called from the signal handler: only
 * async-signal-safe work, and nothing that can block (a write to a full
 * terminal would). minigraf_interrupt is, while the database is not being
 * closed (the shell closes it only between commands): the query fails with
 * API-013 and the prompt comes back at once. */
static void interrupt_query(void) {
    MiniGrafDb *db = query_db;
    if (db != NULL)
        minigraf_interrupt(db);
}

static void on_sigint(int signo) {
    (void)signo;
    interrupted = 1;
    if (query_running)
        interrupt_query();
}

void interrupt_install(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: a blocked read returns EINTR */
    sigaction(SIGINT, &sa, NULL);
}

void interrupt_begin_query(MiniGrafDb *db) {
    query_db = db;
    interrupted = 0;
    query_running = 1;
}

void interrupt_end_query(void) {
    query_running = 0;
    query_db = NULL;
}

int interrupt_pending(void) {
    return interrupted != 0;
}

int interrupt_take(void) {
    int was = interrupted != 0;
    interrupted = 0;
    return was;
}

/* ---- line sources ---------------------------------------------------------- */

struct line_source {
    FILE *file;       /* NULL: the terminal through libedit */
    shell_session *s; /* for the terminal: prompts, completion */
    char *line;
    size_t cap;
    int terminal; /* print prompts */
};

line_source *line_source_file(FILE *f) {
    line_source *in = calloc(1, sizeof *in);
    if (in != NULL)
        in->file = f;
    return in;
}

static const char *file_next(line_source *in, const char *prompt, int *was_interrupted) {
    if (prompt != NULL) {
        fputs(prompt, stdout);
        fflush(stdout);
    }
    for (;;) {
        errno = 0;
        ssize_t n = getline(&in->line, &in->cap, in->file);
        if (n >= 0) {
            if (n > 0 && in->line[n - 1] == '\n')
                in->line[--n] = '\0';
            return in->line;
        }
        if (errno == EINTR && interrupt_take()) {
            clearerr(in->file);
            *was_interrupted = 1;
            return "";
        }
        return NULL;
    }
}

#ifdef MINIGRAF_SHELL_LIBEDIT

static shell_session *completion_session;
static char history_path[4096];

static const char *const datalog_words[] = {"(transact",    "(retract",
                                            "(query",       "(rule",
                                            ":find",        ":where",
                                            ":with",        ":as-of",
                                            ":valid-at",    ":any-valid-time",
                                            ":order-by",    ":limit",
                                            ":offset",      "not",
                                            "not-join",     "or",
                                            "or-join",      "and",
                                            "count",        "count-distinct",
                                            "sum",          "min",
                                            "max",          "avg",
                                            "collect-set",  ":db/valid-from",
                                            ":db/valid-to", ":db/tx-count",
                                            ":db/tx-id",    ":db/valid-at",
                                            "EXIT",         NULL};

/* Completion candidates: dot-commands at the start of a line, Datalog
 * words and the database's attributes elsewhere. */
static char *complete_next(const char *prefix, int state) {
    static size_t list, index;
    size_t len = strlen(prefix);
    if (state == 0) {
        list = index = 0;
        if (completion_session && completion_session->attributes_stale)
            attributes_refresh(completion_session);
    }
    for (; list < 3; list++, index = 0) {
        for (;;) {
            const char *w = NULL;
            if (list == 0)
                w = rl_point == (int)len ? dot_command_names[index] : NULL;
            else if (list == 1)
                w = datalog_words[index];
            else if (completion_session && index < completion_session->attribute_count)
                w = completion_session->attributes[index];
            if (w == NULL)
                break;
            index++;
            if (strncmp(w, prefix, len) == 0)
                return strdup(w);
        }
    }
    return NULL;
}

static char **complete(const char *prefix, int start, int end) {
    (void)start;
    (void)end;
    rl_attempted_completion_over = 1; /* never file names */
    return rl_completion_matches(prefix, complete_next);
}

static void history_open(void) {
    const char *home = getenv("HOME");
    const char *override = getenv("MINIGRAF_HISTORY");
    if (override != NULL)
        snprintf(history_path, sizeof history_path, "%s", override);
    else if (home != NULL)
        snprintf(history_path, sizeof history_path, "%s/.minigraf_history", home);
    using_history();
    stifle_history(2000);
    if (history_path[0] != '\0')
        read_history(history_path);
}

static const char *terminal_next(line_source *in, const char *prompt, int *was_interrupted) {
    free(in->line);
    in->line = NULL;
    interrupt_take();
    errno = 0;
    char *got = readline(prompt);
    /* libedit may return with SIGINT still blocked: a Ctrl-C during the
     * command would then wait for the next prompt. */
    sigset_t sigint;
    sigemptyset(&sigint);
    sigaddset(&sigint, SIGINT);
    sigprocmask(SIG_UNBLOCK, &sigint, NULL);
    if (interrupt_take()) {
        free(got);
        fputc('\n', stdout);
        *was_interrupted = 1;
        return "";
    }
    if (got == NULL)
        return NULL;
    in->line = got;
    if (got[strspn(got, " \t")] != '\0') {
        add_history(got);
        /* the whole (stifled) history each time: a crash loses nothing */
        if (history_path[0] != '\0')
            write_history(history_path);
    }
    return got;
}

int input_has_line_editing(void) {
    return 1;
}

#else

int input_has_line_editing(void) {
    return 0;
}

#endif

line_source *line_source_terminal(shell_session *s) {
    line_source *in = calloc(1, sizeof *in);
    if (in == NULL)
        return NULL;
    in->s = s;
    in->terminal = 1;
#ifdef MINIGRAF_SHELL_LIBEDIT
    completion_session = s;
    rl_readline_name = "minigraf";
    rl_attempted_completion_function = complete;
    rl_completer_word_break_characters = " \t\n\"()[]{},";
    history_open();
#else
    in->file = stdin;
#endif
    return in;
}

const char *line_source_next(line_source *in, int continuation, int *was_interrupted) {
    const char *prompt = !in->terminal ? NULL : continuation ? "   ...> " : "minigraf> ";
    *was_interrupted = 0;
#ifdef MINIGRAF_SHELL_LIBEDIT
    if (in->file == NULL)
        return terminal_next(in, prompt, was_interrupted);
#endif
    return file_next(in, prompt, was_interrupted);
}

void line_source_free(line_source *in) {
    if (in == NULL)
        return;
#ifdef MINIGRAF_SHELL_LIBEDIT
    if (in->file == NULL && history_path[0] != '\0')
        history_truncate_file(history_path, 2000);
#endif
    free(in->line);
    free(in);
}
