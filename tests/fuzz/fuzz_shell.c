/* libFuzzer target: bytes fed to the shell as a script is (shell/session.c,
 * repl.c: lines, multi-line commands, comments, strings, dot-commands),
 * in a session on an in-memory database, built confined (shell/confine.c:
 * files only by plain names in the current directory, bounded queries and
 * .read).
 *
 * Run it in a directory of its own (scripts/fuzz.sh does): the files an
 * input makes there (.export, .import, .open) are removed after it, and
 * two scripts for .read are written before it (SCRIPTS below), so every
 * input starts from the same directory.
 *
 * Invariants checked on every input:
 *  - no crash, leak or undefined behaviour (ASan + UBSan), the session
 *    freed whatever its commands did;
 *  - the shell's error output is empty exactly when no command failed,
 *    and otherwise starts with "Error: ";
 *  - the session's database answers afterwards. */
#include <dirent.h>

#include "fuzz_support.h"
#include "shell.h"

/* What .read can run: a file reading itself twice (without the confined
 * shell's limits, 2^16 runs) and a few commands. */
static const char *const SCRIPTS[][2] = {
    {"self.txt", ".read self.txt\n(transact [[:r :n 1]])\n.read self.txt\n"},
    {"script.txt", "(transact [[:s :n 1] [:s :t \"two\nlines\"]])\n.mode json\n"
                   "(query [:find ?a ?v :where [:s ?a ?v]])\n.changes\n"},
};

static void write_scripts(void) {
    for (size_t i = 0; i < sizeof SCRIPTS / sizeof SCRIPTS[0]; i++)
        fuzz_write_file(SCRIPTS[i][0], (const uint8_t *)SCRIPTS[i][1], strlen(SCRIPTS[i][1]));
}

/* The names in the current directory when the first input ran. */
static char **kept;
static size_t kept_count;

static int is_kept(const char *name) {
    for (size_t i = 0; i < kept_count; i++)
        if (strcmp(kept[i], name) == 0)
            return 1;
    return 0;
}

static void note_kept(void) {
    DIR *d = opendir(".");
    if (d == NULL)
        fuzz_die("cannot list the current directory", NULL, NULL);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        kept = realloc(kept, (kept_count + 1) * sizeof *kept);
        if (kept == NULL || (kept[kept_count++] = strdup(e->d_name)) == NULL)
            fuzz_die("out of memory", NULL, NULL);
    }
    closedir(d);
}

/* Removes what the input made in the current directory. */
static void remove_new_files(const char *input) {
    DIR *d = opendir(".");
    if (d == NULL)
        fuzz_die("cannot list the current directory", NULL, NULL);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (!is_kept(e->d_name) && unlink(e->d_name) != 0)
            fuzz_die("the shell left something that is not a file", input, e->d_name);
    closedir(d);
}

static void check_errors(const shell_session *s, const char *errors, const char *input) {
    if (s->failures == 0 && errors[0] != '\0')
        fuzz_die("error output without a failed command", input, errors);
    if (s->failures > 0 && strncmp(errors, "Error: ", 7) != 0)
        fuzz_die("a failed command without \"Error: \"", input, errors);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static FILE *quiet;
    if (quiet == NULL) {
        quiet = fopen("/dev/null", "w");
        if (quiet == NULL)
            fuzz_die("cannot open /dev/null", NULL, NULL);
        write_scripts();
        note_kept();
    }
    write_scripts();
    char *errors = NULL;
    size_t errors_len = 0;
    FILE *capture = open_memstream(&errors, &errors_len);
    FILE *out = stdout, *err = stderr;
    if (capture == NULL)
        fuzz_die("open_memstream", NULL, NULL);
    stdout = quiet;
    stderr = capture;

    shell_session s;
    session_init(&s, MODE_REFERENCE);
    if (session_open(&s, NULL, 0) != 0)
        fuzz_die("in-memory open failed", NULL, NULL);
    session_run_bytes(&s, (const char *)data, size);
    uint64_t count;
    int answers = minigraf_current_tx_count(s.db, &count) == 0;

    fclose(capture);
    stdout = out;
    stderr = err;
    char *input = fuzz_text(data, size);
    if (!answers)
        fuzz_die("the session's database does not answer", input, minigraf_last_error(s.db));
    check_errors(&s, errors, input);
    session_free(&s);
    remove_new_files(input);
    free(input);
    free(errors);
    return 0;
}
