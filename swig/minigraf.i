/*
 * minigraf.i — the one SWIG description of minigraf.h, shared by the Python
 * and Java bindings.
 *
 * This file holds what every language shares: the header itself and the
 * functions no binding wraps. Each language keeps its module declaration,
 * typemaps and glue in its own file, included below, so the per-language
 * parts never touch the same lines:
 *
 *   minigraf_python.i   CPython: str results, exceptions, GIL release
 *   minigraf_java.i     JNI
 *
 * A binding calls nothing but the functions declared in minigraf.h.
 */

#if defined(SWIGPYTHON)
%include "minigraf_python.i"
#elif defined(SWIGJAVA)
%include "minigraf_java.i"
#else
#error "minigraf.i supports Python and Java only"
#endif

%{
#include "minigraf.h"
%}

/* Strings the library returns are decoded and freed by each language's
 * typemaps, so no binding exposes the raw free. */
%ignore minigraf_string_free;

/* Function-like and export macros are for C compilers only. */
%ignore MINIGRAF_ERROR_FAMILY;

%include "minigraf.h"
