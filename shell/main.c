/*
 * main.c — the `minigraf` shell's entry point (spec section 18).
 *
 *     minigraf [--init FILE] [PATH]        PATH (or --file PATH) opens a
 *                                          file-backed database; none opens
 *                                          an in-memory one
 *     minigraf db.graph < script.edn       script mode (stdin not a TTY)
 *
 * Exit status: 0, or 1 when the database cannot be opened, the arguments are
 * wrong, or (in script mode) any command failed.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shell.h"

typedef struct options {
    const char *path;      /* NULL: in memory */
    const char *init_file; /* NULL: none */
} options;

static void usage(FILE *out)
{
    fputs("usage: minigraf [--init FILE] [--file PATH | PATH]\n"
          "  PATH          open (or create) a file-backed database; default: in memory\n"
          "  --init FILE   run FILE's commands silently before reading stdin\n"
          "  --version     print the library version\n",
          out);
}

/* Parses argv into *o; returns -1 on a usage error, 1 when done (help or
 * version printed), 0 to go on. */
static int parse_args(int argc, char **argv, options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 1;
        } else if (strcmp(a, "--version") == 0) {
            printf("minigraf %s\n", minigraf_version());
            return 1;
        } else if (strcmp(a, "--init") == 0 && i + 1 < argc) {
            o->init_file = argv[++i];
        } else if (strcmp(a, "--file") == 0 && i + 1 < argc && o->path == NULL) {
            o->path = argv[++i];
        } else if (a[0] != '-' && o->path == NULL) {
            o->path = a;
        } else {
            fprintf(stderr, "minigraf: unexpected argument '%s'\n", a);
            usage(stderr);
            return -1;
        }
    }
    return 0;
}

static MiniGrafDb *open_database(const char *path)
{
    char *error = NULL;
    MiniGrafDb *db = minigraf_open_with_options(path, NULL, &error);
    if (db == NULL) {
        fprintf(stderr, "Error: cannot open %s: %s\n", path ? path : "in-memory database",
                error ? error : "(no message)");
        minigraf_string_free(error);
    }
    return db;
}

/* Runs the --init file silently; errors still go to stderr. */
static int run_init_file(shell_session *s, const char *file)
{
    FILE *in = fopen(file, "r");
    if (in == NULL) {
        fprintf(stderr, "Error: cannot read init file %s\n", file);
        return -1;
    }
    s->silent = 1;
    int interactive = s->interactive;
    s->interactive = 0;
    repl_run(s, in);
    s->silent = 0;
    s->interactive = interactive;
    fclose(in);
    return 0;
}

static void banner(void)
{
    printf("minigraf %s \xE2\x80\x94 bi-temporal graph database\n"
           "Commands: (transact ...) (retract ...) (query ...); EXIT to quit.\n\n",
           minigraf_version());
}

int main(int argc, char **argv)
{
    options o = {NULL, NULL};
    int parsed = parse_args(argc, argv, &o);
    if (parsed != 0)
        return parsed < 0 ? 1 : 0;
    shell_session s = {open_database(o.path), isatty(STDIN_FILENO), 0, 0};
    if (s.db == NULL)
        return 1;
    int status = 0;
    if (o.init_file != NULL && run_init_file(&s, o.init_file) != 0)
        status = 1;
    if (status == 0) {
        if (s.interactive)
            banner();
        repl_run(&s, stdin);
    }
    minigraf_close(s.db);
    if (status == 0 && !s.interactive && s.failures > 0)
        status = 1;
    return status;
}
