/* A resealed leaf with a damaged restart array (issue 17, found by
 * tests/fuzz/findings/flip_pages.c): in tests/fuzz/findings/
 * restart_flip.graph one bit of an EAVT leaf's restart array is flipped
 * and the page's checksum rewritten, so restart 29 points into the middle
 * of a block. Seeks decoded the entry there as a block start and lost the
 * keys after it: 7 of the 300 entities had no facts for entity-bound
 * queries, silently. A leaf read from the file is now checked whole, and
 * such a page is STG-008 (docs/file-format.md). */
#include "support.h"

#define ENTITIES 300 /* in the fixture: [:eN :name "nN"] [:eN :age N%50] [:eN :fuzz/other N] */

static int copy_fixture(const char *to) {
    char from[512];
    snprintf(from, sizeof from, "%s/tests/fuzz/findings/restart_flip.graph", MINIGRAF_SOURCE_DIR);
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    int rc = in && out ? 0 : -1;
    char buf[4096];
    size_t n;
    while (rc == 0 && (n = fread(buf, 1, sizeof buf, in)) > 0)
        rc = fwrite(buf, 1, n, out) == n ? 0 : -1;
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        rc = -1;
    return rc;
}

/* Each answer is right or an STG-008 error: never an empty one. */
static void lookup_entity(MiniGrafDb *db, int i, int *coded, int *silent) {
    char q[160], want[32];
    snprintf(q, sizeof q, "(query [:find ?n :where [:e%d :name ?n]])", i);
    snprintf(want, sizeof want, "\"n%d\"", i);
    char *got = minigraf_execute(db, q);
    if (got == NULL) {
        const char *code = minigraf_error_code_name(minigraf_last_error_code(db));
        CHECK_STR_EQ(code, "STG-008");
        (*coded)++;
    } else if (strstr(got, want) == NULL) {
        fprintf(stderr, "    %s -> %s (silently wrong)\n", q, got);
        (*silent)++;
    }
    minigraf_string_free(got);
}

TEST(damaged_restart_array_is_stg_008_never_a_missing_fact) {
    temp_db_path t;
    temp_db_make(&t);
    REQUIRE(copy_fixture(t.path) == 0);
    MiniGrafDb *db = minigraf_open(t.path);
    REQUIRE(db != NULL);
    int coded = 0, silent = 0;
    for (int i = 0; i < ENTITIES; i++)
        lookup_entity(db, i, &coded, &silent);
    CHECK(silent == 0);
    CHECK(coded > 0); /* the damaged leaf holds some entities' facts */
    /* The whole attribute is still read from the other trees. */
    char *all = EXEC(db, "(query [:find (count ?e) :where [?e :fuzz/other ?v]])");
    CHECK(all != NULL && strstr(all, "300") != NULL);
    minigraf_string_free(all);
    /* A write into the damaged leaf is refused, not applied to it. */
    char *acked = minigraf_execute(db, "(transact [[:fuzz-mark :fuzz/mark 424242]])");
    if (acked == NULL) {
        CHECK_STR_EQ(minigraf_error_code_name(minigraf_last_error_code(db)), "STG-008");
    } else {
        EXPECT_EXEC(db, "(query [:find ?v :where [:fuzz-mark :fuzz/mark ?v]])", "[[424242]]");
    }
    minigraf_string_free(acked);
    minigraf_close(db);
    temp_db_remove(&t);
}

CHECK_MAIN(TEST_ENTRY(damaged_restart_array_is_stg_008_never_a_missing_fact))
