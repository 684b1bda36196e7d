/* A minimal assert-style harness for the engine unit tests: CHECK records
 * a failure and goes on; CHECK_DONE prints the tally and gives the exit
 * status. */
#ifndef MG_TESTS_ENGINE_CHECK_H
#define MG_TESTS_ENGINE_CHECK_H

#include <stdio.h>

static int check_passed, check_failed;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (cond) {                                                                  \
            check_passed++;                                                          \
        } else {                                                                     \
            check_failed++;                                                          \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)

#define CHECK_DONE() \
    (printf("%d passed, %d failed\n", check_passed, check_failed), check_failed != 0)

#endif
