/* A damaged index met by the fact log: found by the file fuzzer
 * (tests/fuzz/fuzz_file.c), a file whose commit-log tree hands out records
 * out of order made minigraf_fact_log_next_batch restart its stream at an
 * earlier record, endlessly. The log now ends in STG-008. */
#include "support.h"

#define KEY 62 /* the fact trees' key size (engine/store/fact_key.h) */
#define BRANCH_HEADER 4

/* Swaps the first two children of the commit-log tree's root branch, in
 * the newest header's tree: its leaves are then read out of order. */
static int swap_log_children(const char *path) {
    FILE *f = fopen(path, "r+b");
    if (f == NULL)
        return -1;
    static uint8_t file[1 << 22];
    size_t size = fread(file, 1, sizeof file, f);
    int slot = file_le(file + 16, 8) >= file_le(file + FILE_PAGE + 16, 8) ? 0 : 1;
    uint32_t root = (uint32_t)file_le(file + slot * FILE_PAGE + 56 + 4 * 4,
                                      4); /* roots[TREE_TXLOG] */
    uint8_t *page = file + (size_t)root * FILE_PAGE;
    if (root == 0 || (size_t)(root + 1) * FILE_PAGE > size || page[0] != 2 ||
        file_le(page + 2, 2) < 2) {
        fclose(f);
        return -1;
    }
    uint8_t *c0 = page + BRANCH_HEADER + KEY, *c1 = page + BRANCH_HEADER + (KEY + 4) + KEY;
    uint8_t t[4];
    memcpy(t, c0, 4);
    memcpy(c0, c1, 4);
    memcpy(c1, t, 4);
    file_page_seal(page, root);
    int rc = fseek(f, (long)root * FILE_PAGE, SEEK_SET) == 0 &&
                     fwrite(page, 1, FILE_PAGE, f) == FILE_PAGE
                 ? 0
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
