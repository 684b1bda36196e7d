#include "support.h"
TEST(placeholder) { CHECK(1); }
CHECK_MAIN(TEST_ENTRY(placeholder))
