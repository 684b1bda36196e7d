/* A damaged index met by the fact log: found by the file fuzzer
 * (tests/fuzz/fuzz_file.c), a file whose commit-log tree hands out records
 * out of order made minigraf_fact_log_next_batch restart its stream at an
 * earlier record, endlessly. The log now ends in STG-008. */
#include "support.h"

#define PAGE 4096
#define KEY 62 /* the fact trees' key size (engine/store/fact_key.h) */
#define BRANCH_HEADER 4

static uint32_t crc32_of(uint32_t crc, const uint8_t *p, size_t n) {
    crc = ~crc;
    while (n--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static uint64_t le(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void put_le(uint8_t *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Rewrites a page's checksum as the writer does (docs/file-format.md). */
static void seal(uint8_t *page, uint32_t pgno) {
    uint8_t no[4];
    put_le(no, pgno, 4);
    put_le(page + PAGE - 4, crc32_of(crc32_of(0, page, PAGE - 4), no, 4), 4);
}

/* Swaps the first two children of the commit-log tree's root branch, in
 * the newest header's tree: its leaves are then read out of order. */
static int swap_log_children(const char *path) {
    FILE *f = fopen(path, "r+b");
    if (f == NULL)
        return -1;
    static uint8_t file[1 << 22];
    size_t size = fread(file, 1, sizeof file, f);
    int slot = le(file + 16, 8) >= le(file + PAGE + 16, 8) ? 0 : 1;
    uint32_t root = (uint32_t)le(file + slot * PAGE + 56 + 4 * 4, 4); /* roots[TREE_TXLOG] */
    uint8_t *page = file + (size_t)root * PAGE;
    if (root == 0 || (size_t)(root + 1) * PAGE > size || page[0] != 2 || le(page + 2, 2) < 2) {
        fclose(f);
        return -1;
    }
    uint8_t *c0 = page + BRANCH_HEADER + KEY, *c1 = page + BRANCH_HEADER + (KEY + 4) + KEY;
    uint8_t t[4];
    memcpy(t, c0, 4);
    memcpy(c0, c1, 4);
    memcpy(c1, t, 4);
    seal(page, root);
    int rc = fseek(f, (long)root * PAGE, SEEK_SET) == 0 && fwrite(page, 1, PAGE, f) == PAGE ? 0
                                                                                            : -1;
    return fclose(f) == 0 ? rc : -1;
}

TEST(fact_log_over_out_of_order_index_fails_coded) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    char text[512];
    for (int i = 0; i < 200; i++) {
        snprintf(text, sizeof text,
                 "(transact [[:e%d :a 1] [:e%d :b 2] [:e%d :c 3] [:e%d :d 4] [:e%d :n %d]])", i, i,
                 i, i, i, i);
        EXPECT_TRANSACT(db, text);
    }
    minigraf_close(db);
    REQUIRE(swap_log_children(t.path) == 0);

    db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    MiniGrafFactLog *log = minigraf_fact_log(db, NULL);
    REQUIRE(log != NULL);
    size_t batches = 0;
    char *b;
    while ((b = minigraf_fact_log_next_batch(log, 5000)) != NULL && strcmp(b, "[]") != 0 &&
           batches < 100)
        minigraf_string_free(b), batches++;
    minigraf_string_free(b);
    CHECK(batches < 100); /* 1,000 records are one batch: more is a loop */
    CHECK_STR_EQ(minigraf_error_code_name(minigraf_fact_log_last_error_code(log)), "STG-008");
    minigraf_fact_log_free(log);
    minigraf_close(db);
    temp_db_remove(&t);
}

CHECK_MAIN(TEST_ENTRY(fact_log_over_out_of_order_index_fails_coded))
