/* Versions: compile-time macros and run-time functions agree (minigraf.h). */
#include <stdio.h>

#include "check.h"
#include "minigraf.h"

TEST(version_string_matches_macro) {
    CHECK_STR_EQ(minigraf_version(), MINIGRAF_VERSION);
    CHECK_STR_EQ(minigraf_version(), "0.2.0");
}

TEST(version_string_is_built_from_the_parts) {
    char built[32];
    snprintf(built, sizeof built, "%d.%d.%d", MINIGRAF_VERSION_MAJOR, MINIGRAF_VERSION_MINOR,
             MINIGRAF_VERSION_PATCH);
    CHECK_STR_EQ(minigraf_version(), built);
}

TEST(version_number_is_major_minor_patch) {
    CHECK_INT_EQ(minigraf_version_number(), MINIGRAF_VERSION_NUMBER);
    CHECK_INT_EQ(MINIGRAF_VERSION_NUMBER, MINIGRAF_VERSION_MAJOR * 1000000 +
                                              MINIGRAF_VERSION_MINOR * 1000 +
                                              MINIGRAF_VERSION_PATCH);
}

TEST(abi_version_matches_macro) {
    CHECK_INT_EQ(minigraf_abi_version(), MINIGRAF_ABI_VERSION);
    CHECK_INT_EQ(minigraf_abi_version(), 1);
}

TEST(version_string_is_static_and_stable) {
    CHECK(minigraf_version() == minigraf_version());
}

CHECK_MAIN(TEST_ENTRY(version_string_matches_macro),
           TEST_ENTRY(version_string_is_built_from_the_parts),
           TEST_ENTRY(version_number_is_major_minor_patch), TEST_ENTRY(abi_version_matches_macro),
           TEST_ENTRY(version_string_is_static_and_stable))
