/* Writes the seed inputs of fuzz_file and fuzz_wal into a tests/fuzz
 * directory (scripts/fuzz.sh seeds, run once; the output is checked in):
 *   corpus/file/    database files of several shapes, each followed by the
 *                   flag byte 1 (reseal pages) as fuzz_file reads it
 *   wal_base.graph  the database fuzz_wal opens
 *   corpus/wal/     flag byte 1 (reseal) then a WAL of wal_base.graph
 * Regenerating wal_base.graph gives it a new database id: regenerate the
 * WAL seeds with it (this program does both). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "minigraf.h"

static void die(const char *what, const char *detail) {
    fprintf(stderr, "fuzz_seeds: %s: %s\n", what, detail ? detail : "");
    exit(1);
}

static void run(MiniGrafDb *db, const char *text) {
    char *out = minigraf_execute(db, text);
    if (out == NULL)
        die(text, minigraf_last_error(db));
    minigraf_string_free(out);
}

static unsigned char *slurp(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        die("open", path);
    unsigned char *b = malloc(1 << 22);
    *size = fread(b, 1, 1 << 22, f);
    fclose(f);
    return b;
}

static void spit(const char *path, int prefix, const unsigned char *b, size_t n, int suffix) {
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        die("create", path);
    if (prefix >= 0)
        fputc(prefix, f);
    fwrite(b, 1, n, f);
    if (suffix >= 0)
        fputc(suffix, f);
    fclose(f);
}

static void scrub(const char *path) {
    char wal[600];
    snprintf(wal, sizeof wal, "%s.wal", path);
    unlink(path);
    unlink(wal);
}

/* Workloads of increasing size: each a list of commands, NULL-ended. */
static const char *const shapes[][8] = {
    {NULL},
    {"(transact [[:alice :name \"Alice\"] [:alice :age 30] [:bob :name \"Bob\"] [:bob :friend "
     ":alice]])",
     NULL},
    {"(transact [[:alice :name \"Alice\"] [:alice :age 30]])", "(retract [[:alice :age 30]])",
     "(transact {:valid-from \"2023-01-01\" :valid-to \"2023-06-30\"} [[:carol :status :active]])",
     "(transact [[:x :f 2.5] [:x :t true] [:x :n nil] [:x :k :kw] [:x :r #uuid "
     "\"550e8400-e29b-41d4-a716-446655440000\"]])",
     NULL},
};

static void fill_many(MiniGrafDb *db, int n) {
    char text[256];
    for (int i = 0; i < n; i++) {
        snprintf(text, sizeof text,
                 "(transact [[:e%d :name \"entity number %d\"] [:e%d :age %d] [:e%d :next :e%d]])",
                 i, i, i, i % 90, i, i + 1);
        run(db, text);
    }
}

static void file_seeds(const char *dir, const char *tmp) {
    char out[600];
    size_t count = sizeof shapes / sizeof shapes[0];
    for (size_t s = 0; s <= count; s++) {
        scrub(tmp);
        MiniGrafDb *db = minigraf_open(tmp);
        if (db == NULL)
            die("open", tmp);
        if (s < count)
            for (size_t i = 0; shapes[s][i] != NULL; i++)
                run(db, shapes[s][i]);
        else
            fill_many(db, 300); /* several leaf and branch pages per tree */
        minigraf_close(db);
        size_t n;
        unsigned char *b = slurp(tmp, &n);
        snprintf(out, sizeof out, "%s/corpus/file/db_%zu", dir, s);
        spit(out, -1, b, n, 1);
        free(b);
    }
    scrub(tmp);
}

/* wal_base.graph, then WALs of a few commits on a copy of it, read while
 * the database is open (close would checkpoint them away). */
static void wal_seeds(const char *dir, const char *tmp) {
    char base[600], out[600], wal[600];
    snprintf(base, sizeof base, "%s/wal_base.graph", dir);
    snprintf(wal, sizeof wal, "%s.wal", tmp);
    scrub(tmp);
    MiniGrafDb *db = minigraf_open(tmp);
    if (db == NULL)
        die("open", tmp);
    for (size_t i = 0; shapes[2][i] != NULL; i++)
        run(db, shapes[2][i]);
    minigraf_close(db);
    size_t n;
    unsigned char *b = slurp(tmp, &n);
    spit(base, -1, b, n, -1);
    const char *const commits[][4] = {
        {"(transact [[:dave :name \"Dave\"]])", NULL},
        {"(transact [[:dave :name \"Dave\"] [:dave :age 41]])", "(retract [[:dave :age 41]])",
         "(transact {:valid-from \"2024-01-01\"} [[:dave :status :new]])", NULL},
        {"(transact [])", "(transact [[:e :v 1.5]])", "(retract [[:alice :name \"Alice\"]])", NULL},
    };
    for (size_t c = 0; c < sizeof commits / sizeof commits[0]; c++) {
        scrub(tmp);
        spit(tmp, -1, b, n, -1);
        db = minigraf_open(tmp);
        if (db == NULL)
            die("open copy", tmp);
        for (size_t i = 0; commits[c][i] != NULL; i++)
            run(db, commits[c][i]);
        size_t wn;
        unsigned char *w = slurp(wal, &wn);
        snprintf(out, sizeof out, "%s/corpus/wal/wal_%zu", dir, c);
        spit(out, 1, w, wn, -1);
        free(w);
        minigraf_close(db);
    }
    free(b);
    scrub(tmp);
}

int main(int argc, char **argv) {
    if (argc != 2)
        die("usage", "fuzz_seeds <tests/fuzz directory>");
    char path[600], tmp[600];
    snprintf(path, sizeof path, "%s/corpus/file", argv[1]);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/corpus/wal", argv[1]);
    mkdir(path, 0755);
    snprintf(tmp, sizeof tmp, "/tmp/minigraf-seeds-%d.graph", (int)getpid());
    file_seeds(argv[1], tmp);
    wal_seeds(argv[1], tmp);
    return 0;
}
