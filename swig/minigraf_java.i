/*
 * minigraf_java.i — the JNI part of minigraf.i.
 *
 * Generates, in package org.minigraf.internal (the package is given on the
 * SWIG command line by bindings/java/CMakeLists.txt):
 *
 *   minigraf_jni            one static method per C function, same names
 *   minigraf_jniJNI         the native declarations (loads the natives)
 *   minigraf_jniConstants   the header's #define constants, as Java literals
 *
 * and the C library libminigraf_jni.so. The C conventions become Java ones:
 *
 *   - handles (MiniGrafDb *, MiniGrafCursor *, MiniGrafFactLog *,
 *     MiniGrafLogWriter *) are plain `long`s; the
 *     idiomatic layer (org.minigraf) owns and closes them;
 *   - text crosses as UTF-8 `byte[]` in both directions (never through
 *     NewStringUTF / GetStringUTFChars, which use modified UTF-8). A Java
 *     null becomes a C NULL; a byte[] holding a NUL byte is rejected
 *     (API-017) instead of being cut short;
 *   - every owned `char *` result is copied into a byte[] and freed with
 *     minigraf_string_free at once;
 *   - a failed call throws the org.minigraf.MinigrafException subclass for
 *     its code (see bindings/java/src/main/c/minigraf_jni_glue.c).
 *
 * Typemaps never return early from a wrapper after an argument has been
 * converted: they leave an exception pending and fall through, so that
 * every `freearg` runs. Calls that take text are skipped (%exception below)
 * when converting an argument already threw.
 */

%module minigraf_jni

%{
#include "minigraf.h"
#include "minigraf_jni_glue.h"
%}

/* The generated classes load the natives before their first native call. */
%pragma(java) jniclasscode=%{
  static {
    NativeLoader.load();
  }
%}
%pragma(java) moduleclassmodifiers="public final class"
%pragma(java) jniclassclassmodifiers="public final class"

/* Constants are compiled into the Java classes (they must be readable
 * before, and without, loading the natives: NativeLoader names its cache
 * directory after the version). */
%javaconst(1);
/* A string constant would take the byte[] typemaps below; the numeric
 * MINIGRAF_VERSION_* constants carry the same information. */
%ignore MINIGRAF_VERSION;
%ignore MINIGRAF_API;
%ignore MINIGRAF_H;

/* ---- handles: opaque pointers as Java longs ---------------------------- */
%define MGJ_HANDLE(TYPE)
%typemap(jni) TYPE *, const TYPE * "jlong"
%typemap(jtype) TYPE *, const TYPE * "long"
%typemap(jstype) TYPE *, const TYPE * "long"
%typemap(javain) TYPE *, const TYPE * "$javainput"
%typemap(javaout) TYPE *, const TYPE * {
    return $jnicall;
  }
%typemap(in) TYPE *, const TYPE * %{
  $1 = ($1_ltype)(intptr_t)$input;
%}
%typemap(out) TYPE * %{
  $result = (jlong)(intptr_t)$1;
%}
%enddef

MGJ_HANDLE(MiniGrafDb)
MGJ_HANDLE(MiniGrafCursor)
MGJ_HANDLE(MiniGrafFactLog)
MGJ_HANDLE(MiniGrafLogWriter)

/* ---- text in: byte[] (UTF-8) -> a NUL-terminated copy ----------------- */
%typemap(jni) const char *, char * "jbyteArray"
%typemap(jtype) const char *, char * "byte[]"
%typemap(jstype) const char *, char * "byte[]"
%typemap(javain) const char * "$javainput"
%typemap(javaout) const char *, char * {
    return $jnicall;
  }

/* On failure mgj_bytes_in leaves an exception pending and returns NULL. */
%typemap(in) const char * %{
  $1 = mgj_bytes_in(jenv, $input);
%}
%typemap(freearg) const char * %{
  free((void *)$1);
%}

/* The call itself is skipped when an argument could not be converted. */
%define MGJ_SKIP_IF_PENDING(NAME)
%exception NAME %{
  if (!(*jenv)->ExceptionCheck(jenv)) {
    $action
  }
%}
%enddef
MGJ_SKIP_IF_PENDING(minigraf_open)
MGJ_SKIP_IF_PENDING(minigraf_open_with_options)
MGJ_SKIP_IF_PENDING(minigraf_execute)
MGJ_SKIP_IF_PENDING(minigraf_query)
MGJ_SKIP_IF_PENDING(minigraf_fact_log)
MGJ_SKIP_IF_PENDING(minigraf_log_writer_create)
/* SWIG leaves an `int result` uninitialised (pointer results start as 0):
 * a skipped status call reads as success and its out typemap throws nothing. */
%define MGJ_SKIP_STATUS_IF_PENDING(NAME)
%exception NAME %{
  result = 0;
  if (!(*jenv)->ExceptionCheck(jenv)) {
    $action
  }
%}
%enddef
MGJ_SKIP_STATUS_IF_PENDING(minigraf_log_writer_append)
MGJ_SKIP_STATUS_IF_PENDING(minigraf_log_writer_append_batch)

/* ---- text out ----------------------------------------------------------- */
/* Borrowed (static or per-handle) strings: copied, never freed; NULL -> null. */
%typemap(out) const char * %{
  $result = mgj_bytes_out(jenv, $1);
%}

/* Owned strings: copied and freed. NULL means the call failed. */
%typemap(out) char *minigraf_execute %{
  if ($1) {
    $result = mgj_bytes_take(jenv, $1);
  } else {
    mgj_throw_db_error(jenv, arg1);
  }
%}
%typemap(out) char *minigraf_cursor_vars %{
  if ($1) {
    $result = mgj_bytes_take(jenv, $1);
  } else {
    mgj_throw_cursor_error(jenv, arg1);
  }
%}
/* next_batch: NULL with no error is the end of the answer (Java null). */
%typemap(out) char *minigraf_cursor_next_batch %{
  if ($1) {
    $result = mgj_bytes_take(jenv, $1);
  } else if (minigraf_cursor_last_error_code(arg1) != 0) {
    mgj_throw_cursor_error(jenv, arg1);
  }
%}

/* ---- handles out --------------------------------------------------------- */
/* minigraf_open / minigraf_open_in_memory cannot say why they failed: they
 * return 0 and the idiomatic layer uses open_with_options instead. */

/* open_with_options reports failure through error_out (out runs first). */
%typemap(in, numinputs=0) char **error_out (char *error_text = NULL) %{
  $1 = &error_text;
%}
%typemap(argout) char **error_out %{
  if (!result && !(*jenv)->ExceptionCheck(jenv)) {
    mgj_throw(jenv, 0, *$1);
  }
%}
%typemap(freearg) char **error_out %{
  minigraf_string_free(*$1);
%}

%typemap(out) MiniGrafCursor *minigraf_query %{
  if (!$1) {
    mgj_throw_db_error(jenv, arg1);
  }
  $result = (jlong)(intptr_t)$1;
%}

/* ---- status results: non-zero throws ------------------------------------ */
%typemap(out) int minigraf_checkpoint %{
  $result = (jint)$1;
  if ($1 != 0) {
    mgj_throw_db_error(jenv, arg1);
  }
%}
%typemap(out) int minigraf_cursor_set_format %{
  $result = (jint)$1;
  if ($1 != 0) {
    mgj_throw_cursor_error(jenv, arg1);
  }
%}

/* current_tx_count returns the counter (a long) instead of a status. */
%typemap(jni) int minigraf_current_tx_count "jlong"
%typemap(jtype) int minigraf_current_tx_count "long"
%typemap(jstype) int minigraf_current_tx_count "long"
%typemap(javaout) int minigraf_current_tx_count {
    return $jnicall;
  }
%typemap(out) int minigraf_current_tx_count %{
  if ($1 != 0) {
    mgj_throw_db_error(jenv, arg1);
  }
%}
%typemap(in, numinputs=0) uint64_t *out (uint64_t count = 0) %{
  $1 = &count;
%}
%typemap(argout) uint64_t *out %{
  $result = (jlong)*$1;
%}

/* ---- fact log ------------------------------------------------------------ */
/* minigraf_fact_log: NULL means failure, reported on the database. When the
 * filter could not be converted the call was skipped and the conversion's
 * exception is the one Java sees (mgj_throw_* never replace a pending one). */
%typemap(out) MiniGrafFactLog *minigraf_fact_log %{
  if (!$1) {
    mgj_throw_db_error(jenv, arg1);
  }
  $result = (jlong)(intptr_t)$1;
%}
/* next_batch: NULL with no error is the end of the log (Java null). */
%typemap(out) char *minigraf_fact_log_next_batch %{
  if ($1) {
    $result = mgj_bytes_take(jenv, $1);
  } else if (minigraf_fact_log_last_error_code(arg1) != 0) {
    mgj_throw_fact_log_error(jenv, arg1);
  }
%}

/* ---- log writer ---------------------------------------------------------- */
/* minigraf_log_writer_create reports failure through `char **error_out`,
 * whose typemaps (above) throw it and always free it. */

/* Status results: non-zero throws the writer's last error. */
%define MGJ_WRITER_STATUS(NAME)
%typemap(out) int NAME %{
  $result = (jint)$1;
  if ($1 != 0) {
    mgj_throw_log_writer_error(jenv, arg1);
  }
%}
%enddef
MGJ_WRITER_STATUS(minigraf_log_writer_append)
MGJ_WRITER_STATUS(minigraf_log_writer_append_batch)
MGJ_WRITER_STATUS(minigraf_log_writer_advance_tx_count)
MGJ_WRITER_STATUS(minigraf_log_writer_finish)

/* The new counter crosses as a Java long holding the uint64_t's 64 bits
 * (the idiomatic layer refuses negative values before the call). */
%typemap(jni) uint64_t tx_count "jlong"
%typemap(jtype) uint64_t tx_count "long"
%typemap(jstype) uint64_t tx_count "long"
%typemap(javain) uint64_t tx_count "$javainput"
%typemap(in) uint64_t tx_count %{
  $1 = (uint64_t)$input;
%}

/* log_writer_tx_count returns the counter (a long; the uint64_t *out
 * typemaps above) instead of a status. */
%typemap(jni) int minigraf_log_writer_tx_count "jlong"
%typemap(jtype) int minigraf_log_writer_tx_count "long"
%typemap(jstype) int minigraf_log_writer_tx_count "long"
%typemap(javaout) int minigraf_log_writer_tx_count {
    return $jnicall;
  }
%typemap(out) int minigraf_log_writer_tx_count %{
  if ($1 != 0) {
    mgj_throw_log_writer_error(jenv, arg1);
  }
%}
