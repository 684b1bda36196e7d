/* The durability oracle of fuzz_file, brute-forced: a database of 300
 * entities (3 facts each) is checkpointed; then, many times, one random
 * bit of one data page is flipped and the page resealed (CRC and page
 * number rewritten, as the fuzzer's flag bit 0 does), the mark
 * [:fuzz-mark :fuzz/mark 424242] transacted, and looked for by attribute
 * ([?e :fuzz/mark ?v]) and by entity ([:fuzz-mark :fuzz/mark ?v]). A flip
 * after which the first finds it and the second does not is written to
 * findings_N. Not part of the suite: it reproduces an open finding
 * (docs/reliability.md, "Fuzzing"), and fails by design until it is fixed.
 *
 *   cc -O1 -std=c11 -D_POSIX_C_SOURCE=200809L -Icapi/include -Iengine \
 *      tests/fuzz/findings/flip_pages.c engine/storage/format.c engine/base/crc32.c \
 *      -Lbuild -lminigraf -Wl,-rpath,$PWD/build -o /tmp/flip_pages
 *   /tmp/flip_pages [entities [flips]]        (default 300 20000) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "minigraf.h"
#include "storage/format.h"

static char PATH[64], WAL[80];

static void remove_db(void) {
    unlink(PATH);
    unlink(WAL);
}

static void write_flipped(const char *to, const uint8_t *base, size_t size, size_t off, int bit) {
    uint8_t *f = malloc(size);
    memcpy(f, base, size);
    f[off] ^= (uint8_t)(1u << bit);
    size_t page = off / FORMAT_PAGE_SIZE;
    format_seal_page(f + page * FORMAT_PAGE_SIZE, (uint32_t)page);
    FILE *o = fopen(to, "wb");
    if (o) {
        fwrite(f, 1, size, o);
        fclose(o);
    }
    free(f);
}

static bool found(MiniGrafDb *db, const char *query) {
    char *out = minigraf_execute(db, query);
    bool yes = out && strstr(out, "424242");
    minigraf_string_free(out);
    return yes;
}

/* 1 when the mark is seen by attribute and not by entity. */
static int trial(const uint8_t *base, size_t size, size_t off, int bit) {
    remove_db();
    write_flipped(PATH, base, size, off, bit);
    MiniGrafDb *db = minigraf_open_with_options(PATH, "{}", NULL);
    if (!db)
        return 0;
    char *acked = minigraf_execute(db, "(transact [[:fuzz-mark :fuzz/mark 424242]])");
    int broken = acked && found(db, "(query [:find ?v :where [?e :fuzz/mark ?v]])") &&
                 !found(db, "(query [:find ?v :where [:fuzz-mark :fuzz/mark ?v]])");
    minigraf_string_free(acked);
    minigraf_close(db);
    return broken;
}

static uint8_t *make_base(int entities, size_t *size) {
    remove_db();
    MiniGrafDb *db = minigraf_open_with_options(PATH, "{}", NULL);
    for (int i = 0; db && i < entities; i++) {
        char t[200];
        snprintf(t, sizeof t,
                 "(transact [[:e%d :name \"n%d\"] [:e%d :age %d] [:e%d :fuzz/other %d]])", i, i, i,
                 i % 50, i, i);
        minigraf_string_free(minigraf_execute(db, t));
    }
    minigraf_close(db);
    FILE *in = fopen(PATH, "rb");
    if (!in)
        return NULL;
    fseek(in, 0, SEEK_END);
    *size = (size_t)ftell(in);
    fseek(in, 0, SEEK_SET);
    uint8_t *base = malloc(*size);
    if (fread(base, 1, *size, in) != *size)
        *size = 0;
    fclose(in);
    return base;
}

int main(int argc, char **argv) {
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(PATH, sizeof PATH, "%s/flip_pages.graph", dir);
    snprintf(WAL, sizeof WAL, "%s.wal", PATH);
    int entities = argc > 1 ? atoi(argv[1]) : 300;
    long flips = argc > 2 ? atol(argv[2]) : 20000;
    size_t size = 0;
    uint8_t *base = make_base(entities, &size);
    if (!base || size <= 2 * FORMAT_PAGE_SIZE)
        return 1;
    unsigned seed = 1;
    long tried = 0, broken = 0;
    for (long k = 0; k < flips; k++) {
        size_t off = 2 * FORMAT_PAGE_SIZE + (size_t)rand_r(&seed) % (size - 2 * FORMAT_PAGE_SIZE);
        int bit = rand_r(&seed) % 8;
        if (off % FORMAT_PAGE_SIZE >= FORMAT_PAGE_PAYLOAD)
            continue; /* the CRC itself: resealing undoes the flip */
        tried++;
        if (!trial(base, size, off, bit))
            continue;
        printf("page %zu, byte %zu, bit %d\n", off / FORMAT_PAGE_SIZE, off % FORMAT_PAGE_SIZE, bit);
        char name[64];
        snprintf(name, sizeof name, "findings_%ld", ++broken);
        write_flipped(name, base, size, off, bit);
    }
    printf("%ld flips, %ld broke the oracle\n", tried, broken);
    remove_db();
    free(base);
    return broken != 0;
}
