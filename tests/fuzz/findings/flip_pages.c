/* The durability oracle of fuzz_file, brute-forced: a database of 300
 * entities (3 facts each) is checkpointed; then, many times, one random
 * bit of one data page is flipped and the page resealed (CRC and page
 * number rewritten, as the fuzzer's flag bit 0 does), the mark
 * [:fuzz-mark :fuzz/mark 424242] transacted, and looked for by attribute
 * ([?e :fuzz/mark ?v]) and by entity ([:fuzz-mark :fuzz/mark ?v]); every
 * other flip is aimed at a page's tail (a leaf's restart array). A flip
 * after which the first finds it and the second does not is written to
 * findings_N, and the run fails. Before B+tree pages were checked whole
 * on read (issue 17, docs/reliability.md "Fuzzing") 2 to 3 of 20,000
 * flips did (restart_flip.graph is one); now a damaged leaf is STG-008.
 * A ctest (engine_flip_pages, about 10 s); by hand, for other sizes:
 *
 *   build/tests/engine/engine_flip_pages [entities [flips [seed]]]
 *                                              (default 300 20000 1) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "minigraf.h"
#include "storage/format.h"

/* Half of the flips land in the last TAIL bytes of a page's payload. */
#define TAIL 128

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
    snprintf(PATH, sizeof PATH, "%s/flip_pages-%ld.graph", dir, (long)getpid());
    snprintf(WAL, sizeof WAL, "%s.wal", PATH);
    int entities = argc > 1 ? atoi(argv[1]) : 300;
    long flips = argc > 2 ? atol(argv[2]) : 20000;
    size_t size = 0;
    uint8_t *base = make_base(entities, &size);
    if (!base || size <= 2 * FORMAT_PAGE_SIZE)
        return 1;
    unsigned seed = argc > 3 ? (unsigned)atol(argv[3]) : 1;
    long tried = 0, broken = 0;
    for (long k = 0; k < flips; k++) {
        size_t off = 2 * FORMAT_PAGE_SIZE + (size_t)rand_r(&seed) % (size - 2 * FORMAT_PAGE_SIZE);
        if (k % 2) /* the tail of a page, where a leaf keeps its restart array */
            off = off / FORMAT_PAGE_SIZE * FORMAT_PAGE_SIZE + FORMAT_PAGE_PAYLOAD - 1 -
                  (size_t)rand_r(&seed) % TAIL;
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
