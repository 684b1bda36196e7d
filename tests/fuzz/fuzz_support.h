/* Shared by the libFuzzer targets that drive the public API (minigraf.h):
 * failing loudly, the "[CODE] message" invariant, a private scratch
 * directory, and files written from fuzzed bytes. */
#ifndef MINIGRAF_FUZZ_SUPPORT_H
#define MINIGRAF_FUZZ_SUPPORT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "minigraf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline void fuzz_die(const char *what, const char *text, const char *detail) {
    fprintf(stderr, "fuzz: %s\n  text: %.2000s\n  detail: %.2000s\n", what, text ? text : "",
            detail ? detail : "");
    abort();
}

/* A failure must carry its code both ways: a non-zero code with a name,
 * and a message starting "[NAME] ". */
static inline void fuzz_check_error(int code, const char *message, const char *text) {
    const char *name = minigraf_error_code_name(code);
    size_t n = name ? strlen(name) : 0;
    if (code == 0 || name == NULL || message == NULL || message[0] != '[' ||
        strncmp(message + 1, name, n) != 0 || message[n + 1] != ']')
        fuzz_die("error without a matching [CODE] message", text, message);
}

/* "<dir>/<name>" in a directory of this process (tmpfs when there is one),
 * made on first use. Returns a static buffer. */
static inline const char *fuzz_path(const char *name) {
    static char dir[64], path[160];
    if (dir[0] == '\0') {
        snprintf(dir, sizeof dir, "%s/minigraf-fuzz-XXXXXX",
                 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
        if (mkdtemp(dir) == NULL)
            fuzz_die("mkdtemp", dir, NULL);
    }
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

static inline void fuzz_write_file(const char *path, const uint8_t *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (f == NULL || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        fuzz_die("cannot write", path, NULL);
}

/* Removes a database file and everything beside it that it may have left. */
static inline void fuzz_remove_db(const char *path) {
    char side[200];
    unlink(path);
    snprintf(side, sizeof side, "%s.wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s.lock", path);
    unlink(side);
}

/* The input as a NUL-terminated string (cut at its first NUL). */
static inline char *fuzz_text(const uint8_t *data, size_t size) {
    char *s = malloc(size + 1);
    if (s == NULL)
        fuzz_die("out of memory", NULL, NULL);
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

#endif
