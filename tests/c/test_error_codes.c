/* MINIGRAF_E_* constants and minigraf_error_code_name: exactly the codes
 * of docs/errors.md (tests/c/check_error_codes.py checks the docs against
 * the header; this test checks the library against the header). */
#include "support.h"

_Static_assert(MINIGRAF_E_PRS_011 == 1011, "PRS-011");
_Static_assert(MINIGRAF_E_API_013 == 5013 && MINIGRAF_E_API_015 == 5015 &&
                   MINIGRAF_E_API_016 == 5016 && MINIGRAF_E_API_020 == 5020 &&
                   MINIGRAF_E_API_021 == 5021 && MINIGRAF_E_INT_003 == 6003,
               "the codes of issue 13");
_Static_assert(MINIGRAF_E_STG_043 == 3043 && MINIGRAF_E_QRY_012 == 2012 &&
                   MINIGRAF_E_WAL_003 == 4003 && MINIGRAF_E_INT_000 == 6000,
               "codes");

static char *read_header(void) {
    FILE *f = fopen(MINIGRAF_SOURCE_DIR "/capi/include/minigraf.h", "rb");
    if (!f)
        return NULL;
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

TEST(every_constant_has_its_name_and_nothing_else_has_one) {
    const char *h = read_header();
    REQUIRE(h != NULL);
    static char is_constant[7000];
    int constants = 0;
    for (const char *p = h; (p = strstr(p, "#define MINIGRAF_E_")) != NULL; p++) {
        char fam[4];
        int num = 0, value = 0;
        if (sscanf(p, "#define MINIGRAF_E_%3[A-Z]_%3d %d", fam, &num, &value) != 3) {
            check_fail(__FILE__, __LINE__, "a MINIGRAF_E_ line of minigraf.h");
            continue;
        }
        char want[16];
        snprintf(want, sizeof want, "%s-%03d", fam, num);
        REQUIRE(value > 0 && value < 7000);
        CHECK_STR_EQ(minigraf_error_code_name(value), want);
        CHECK_INT_EQ(value % 1000, num);
        is_constant[value] = 1;
        constants++;
    }
    CHECK(constants > 100);
    for (int code = -10; code < 7000; code++) {
        int known = code >= 0 && is_constant[code];
        if ((minigraf_error_code_name(code) != NULL) != known)
            check_fail_int(__FILE__, __LINE__, "named iff a constant", code, known);
    }
    CHECK(minigraf_error_code_name(0) == NULL);
    CHECK(minigraf_error_code_name(7001) == NULL);
}

TEST(raised_codes_carry_their_constant) {
    MiniGrafDb *db = open_memory_db();
    CHECK(minigraf_execute(db, "(insert)") == NULL);
    CHECK_INT_EQ(minigraf_last_error_code(db), MINIGRAF_E_PRS_011);
    CHECK(minigraf_query(db, "(transact [])") == NULL);
    CHECK_INT_EQ(minigraf_last_error_code(db), MINIGRAF_E_API_012);
    minigraf_close(db);
}

CHECK_MAIN(TEST_ENTRY(every_constant_has_its_name_and_nothing_else_has_one),
           TEST_ENTRY(raised_codes_carry_their_constant))
