/* MG_ASSERT(cond): an invariant the code relies on and a comment states
 * (a caller's promise, a bound a data structure keeps). It checks in Debug,
 * sanitizer and fuzzing builds, where MG_ASSERTS is defined (CMakeLists.txt),
 * and compiles to nothing in release builds, where `cond` is not evaluated:
 * never give it an expression with a side effect.
 *
 * Only for the engine's own mistakes: bad input of any kind gets an error
 * value with its code (err_set), never an assertion. */
#ifndef MG_BASE_MG_ASSERT_H
#define MG_BASE_MG_ASSERT_H

#ifdef MG_ASSERTS
#include <stdio.h>
#include <stdlib.h>

#define MG_ASSERT(cond)                                                                           \
    ((cond) ? (void)0                                                                             \
            : (fprintf(stderr, "%s:%d: %s: invariant failed: %s\n", __FILE__, __LINE__, __func__, \
                       #cond),                                                                    \
               abort()))
#else
/* sizeof keeps `cond` type-checked without evaluating it. */
#define MG_ASSERT(cond) ((void)sizeof((cond) ? 1 : 0))
#endif

#endif
