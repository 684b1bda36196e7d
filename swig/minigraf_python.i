/*
 * minigraf_python.i — the CPython part of minigraf.i.
 *
 * Generates the module `minigraf.capi` (proxy `capi.py`, extension
 * `_capi.abi3.so`, built against CPython's Limited API): one Python
 * function per C function, named without the `minigraf_` prefix, with
 * the C conventions turned into Python ones:
 *
 *   - text arguments are `str` (UTF-8 taken from the str itself, no copy);
 *     a str that cannot be UTF-8 (lone surrogates) raises
 *     UnicodeEncodeError, an embedded NUL raises ValueError;
 *   - every `char *` result is returned as a `str`, and the C string is
 *     freed right after decoding;
 *   - a failed call raises the minigraf.Error subclass for its code, built
 *     by minigraf._errors.from_native(code, message), from the handle's
 *     last error (db, cursor, fact log, log writer) or from error_out;
 *   - int status results become None (non-zero raises), and uint64_t
 *     out-parameters become the return value;
 *   - every call that can take time or wait for the database's lock runs
 *     with the GIL released.
 *
 * The idiomatic layer (minigraf/__init__.py and friends) is the public API;
 * this module is its thin, mechanical base.
 */

%module(package="minigraf", threads="1") capi

%{
#include <string.h>
#include "minigraf.h"

/* Raises TypeError "<what>, not <type name>": the module is built against
 * the Limited API (no tp_name), so the name is the type's __name__. */
static void mgpy_not_str(const char *what, PyObject *object) {
    PyObject *name = PyObject_GetAttrString((PyObject *)Py_TYPE(object), "__name__");

    if (name && PyUnicode_Check(name)) {
        PyErr_Format(PyExc_TypeError, "%s, not %.100U", what, name);
    } else if (!PyErr_Occurred()) {
        PyErr_Format(PyExc_TypeError, "%s", what);
    }
    Py_XDECREF(name);
}

/* Raises the minigraf.Error subclass for `code` and the "[CODE] message"
 * text `message` (either may be missing: code 0 is read from the message,
 * and a NULL message is allowed). The message is borrowed and read at once,
 * before any other call into the library. */
static void mgpy_raise(int code, const char *message) {
    PyObject *text = NULL, *errors = NULL, *exc = NULL;

    /* A Python exception set during the call (Ctrl-C seen by the progress
     * handler of minigraf._native, or the user's handler raising) is what
     * the call raises: the library's API-013 is its consequence. */
    if (PyErr_Occurred()) {
        return;
    }

    if (message) {
        text = PyUnicode_DecodeUTF8(message, (Py_ssize_t)strlen(message), "replace");
    } else {
        text = Py_None;
        Py_INCREF(text);
    }
    if (text) {
        errors = PyImport_ImportModule("minigraf._errors");
    }
    if (errors) {
        exc = PyObject_CallMethod(errors, "from_native", "iO", code, text);
    }
    if (exc) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    }
    /* Otherwise the failure above (MemoryError, ImportError) is raised. */
    Py_XDECREF(exc);
    Py_XDECREF(errors);
    Py_XDECREF(text);
}

static void mgpy_raise_db(const MiniGrafDb *db) {
    mgpy_raise(minigraf_last_error_code(db), minigraf_last_error(db));
}

static void mgpy_raise_cursor(const MiniGrafCursor *cursor) {
    mgpy_raise(minigraf_cursor_last_error_code(cursor), minigraf_cursor_last_error(cursor));
}

static void mgpy_raise_fact_log(const MiniGrafFactLog *log) {
    mgpy_raise(minigraf_fact_log_last_error_code(log), minigraf_fact_log_last_error(log));
}

static void mgpy_raise_log_writer(const MiniGrafLogWriter *writer) {
    mgpy_raise(minigraf_log_writer_last_error_code(writer), minigraf_log_writer_last_error(writer));
}

static void mgpy_raise_tx(const MiniGrafTx *tx) {
    mgpy_raise(minigraf_tx_last_error_code(tx), minigraf_tx_last_error(tx));
}

/* Turns a string the library returned into a str and frees it; NULL (with
 * a Python exception set) if decoding fails. */
static PyObject *mgpy_take_string(char *s) {
    PyObject *result = PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "strict");
    minigraf_string_free(s);
    return result;
}
%}

/* ---- threads: release the GIL around every call into the library, except
 * the constant-time lookups of static data. -------------------------------- */
%thread;
%nothread minigraf_version;
%nothread minigraf_version_number;
%nothread minigraf_abi_version;
%nothread minigraf_error_code_name;

/* ---- names: minigraf_execute -> capi.execute ------------------------------- */
%rename("%(strip:[minigraf_])s", %$isfunction) "";

/* ---- not wrapped ----------------------------------------------------------- */
/* minigraf_open cannot say why it failed; open_with_options can. */
%ignore minigraf_open;
/* Errors arrive as exceptions, read by the typemaps below. */
%ignore minigraf_last_error;
%ignore minigraf_last_error_code;
%ignore minigraf_cursor_last_error;
%ignore minigraf_cursor_last_error_code;
%ignore minigraf_fact_log_last_error;
%ignore minigraf_fact_log_last_error_code;
%ignore minigraf_log_writer_last_error;
%ignore minigraf_log_writer_last_error_code;
%ignore minigraf_tx_last_error;
%ignore minigraf_tx_last_error_code;

/* ---- text in --------------------------------------------------------------
 * str -> its cached UTF-8 (owned by the str, which the caller keeps alive
 * for the whole call); None -> NULL, which the library rejects (API-017)
 * except as open_with_options' path/options. */
%typemap(in) const char * (Py_ssize_t size = 0) {
    if ($input == Py_None) {
        $1 = NULL;
    } else if (PyUnicode_Check($input)) {
        $1 = ($1_ltype)PyUnicode_AsUTF8AndSize($input, &size);
        if (!$1) SWIG_fail;
        if (strlen($1) != (size_t)size) {
            PyErr_SetString(PyExc_ValueError, "embedded null character");
            SWIG_fail;
        }
    } else {
        mgpy_not_str("$symname() argument '$1_name' must be str", $input);
        SWIG_fail;
    }
}
%typemap(freearg) const char * "";

/* ---- text out ---------------------------------------------------------------
 * Owned strings: NULL means the call failed (for next_batch, NULL with no
 * error means the end: None). */
%typemap(out) char *minigraf_execute {
    if (!$1) {
        mgpy_raise_db(arg1);
        SWIG_fail;
    }
    if (PyErr_Occurred()) { /* Ctrl-C came after the answer was complete */
        minigraf_string_free($1);
        SWIG_fail;
    }
    $result = mgpy_take_string($1);
    if (!$result) SWIG_fail;
}

%typemap(out) char *minigraf_tx_execute {
    if (!$1) {
        mgpy_raise_tx(arg1);
        SWIG_fail;
    }
    if (PyErr_Occurred()) {
        minigraf_string_free($1);
        SWIG_fail;
    }
    $result = mgpy_take_string($1);
    if (!$result) SWIG_fail;
}

%typemap(out) char *minigraf_cursor_vars {
    if (!$1) {
        mgpy_raise_cursor(arg1);
        SWIG_fail;
    }
    $result = mgpy_take_string($1);
    if (!$result) SWIG_fail;
}

%typemap(out) char *minigraf_cursor_next_batch {
    if ($1) {
        $result = mgpy_take_string($1);
        if (!$result) SWIG_fail;
    } else if (minigraf_cursor_last_error_code(arg1) != 0) {
        mgpy_raise_cursor(arg1);
        SWIG_fail;
    } else {
        $result = SWIG_Py_Void();
    }
}

%typemap(out) char *minigraf_fact_log_next_batch {
    if ($1) {
        $result = mgpy_take_string($1);
        if (!$result) SWIG_fail;
    } else if (minigraf_fact_log_last_error_code(arg1) != 0) {
        mgpy_raise_fact_log(arg1);
        SWIG_fail;
    } else {
        $result = SWIG_Py_Void();
    }
}

/* Static strings: borrowed, NULL -> None. */
%typemap(out) const char * {
    if ($1) {
        $result = PyUnicode_DecodeUTF8($1, (Py_ssize_t)strlen($1), "strict");
        if (!$result) SWIG_fail;
    } else {
        $result = SWIG_Py_Void();
    }
}

/* ---- handles out --------------------------------------------------------- */
%typemap(out) MiniGrafDb *minigraf_open_in_memory {
    if (!$1) {
        PyErr_NoMemory();
        SWIG_fail;
    }
    $result = SWIG_NewPointerObj($1, $1_descriptor, 0);
}

/* open_with_options and log_writer_create report their failure through
 * error_out; the `argout` below raises it (the `out` typemap runs first and
 * cannot see it), and the `freearg` frees it on every path. */
%typemap(out) MiniGrafDb *minigraf_open_with_options,
              MiniGrafLogWriter *minigraf_log_writer_create {
    $result = $1 ? SWIG_NewPointerObj($1, $1_descriptor, 0) : NULL;
}
%typemap(in, numinputs=0) char **error_out (char *error_text = NULL) {
    $1 = &error_text;
}
%typemap(argout) char **error_out {
    if (!$result) {
        if (*$1) {
            mgpy_raise(0, *$1);
        } else {
            PyErr_NoMemory(); /* the library's only silent failure */
        }
        SWIG_fail;
    }
}
%typemap(freearg) char **error_out {
    minigraf_string_free(*$1);
}

%typemap(out) MiniGrafCursor *minigraf_query, MiniGrafFactLog *minigraf_fact_log {
    if (!$1) {
        mgpy_raise_db(arg1);
        SWIG_fail;
    }
    $result = SWIG_NewPointerObj($1, $1_descriptor, 0);
}

/* Write transactions (the typed-row cursors and prepared queries are in
 * the hand-written module minigraf._native). */
%typemap(out) MiniGrafTx *minigraf_begin_write {
    if (!$1) {
        mgpy_raise_db(arg1);
        SWIG_fail;
    }
    $result = SWIG_NewPointerObj($1, $1_descriptor, 0);
}

%typemap(out) MiniGrafCursor *minigraf_tx_query {
    if (!$1) {
        mgpy_raise_tx(arg1);
        SWIG_fail;
    }
    if (PyErr_Occurred()) {
        minigraf_cursor_free($1);
        SWIG_fail;
    }
    $result = SWIG_NewPointerObj($1, $1_descriptor, 0);
}

/* 0.2.0 status results: 0 or the code itself. */
%typemap(out) int minigraf_tx_commit, int minigraf_tx_rollback {
    if ($1 != 0 || PyErr_Occurred()) {
        mgpy_raise_tx(arg1);
        SWIG_fail;
    }
    $result = SWIG_Py_Void();
}

%typemap(out) int minigraf_export {
    if ($1 != 0 || PyErr_Occurred()) {
        mgpy_raise_db(arg1);
        SWIG_fail;
    }
    $result = SWIG_Py_Void();
}

/* ---- status results: non-zero raises; success returns None -------------- */
%typemap(out) int minigraf_checkpoint, int minigraf_current_tx_count {
    if ($1 != 0 || PyErr_Occurred()) {
        mgpy_raise_db(arg1);
        SWIG_fail;
    }
    $result = SWIG_Py_Void();
}

%typemap(out) int minigraf_cursor_set_format {
    if ($1 != 0) {
        mgpy_raise_cursor(arg1);
        SWIG_fail;
    }
    $result = SWIG_Py_Void();
}

%typemap(out) int minigraf_log_writer_append, int minigraf_log_writer_append_batch,
              int minigraf_log_writer_advance_tx_count, int minigraf_log_writer_tx_count,
              int minigraf_log_writer_finish {
    if ($1 != 0) {
        mgpy_raise_log_writer(arg1);
        SWIG_fail;
    }
    $result = SWIG_Py_Void();
}

/* A uint64_t argument (log_writer_advance_tx_count) is a non-negative int,
 * or any object with __index__; out of range raises OverflowError. */
%typemap(in) uint64_t {
    PyObject *number = PyNumber_Index($input);
    unsigned long long value;
    if (!number) SWIG_fail;
    value = PyLong_AsUnsignedLongLong(number);
    Py_DECREF(number);
    if (value == (unsigned long long)-1 && PyErr_Occurred()) SWIG_fail;
    $1 = (uint64_t)value;
}

/* The uint64_t out-parameters of current_tx_count and log_writer_tx_count
 * become the return value. */
%typemap(in, numinputs=0) uint64_t *out (uint64_t count = 0) {
    $1 = &count;
}
%typemap(argout) uint64_t *out {
    Py_DECREF($result);
    $result = PyLong_FromUnsignedLongLong((unsigned long long)*$1);
    if (!$result) SWIG_fail;
}

/* ---- the raw handles are opaque: a handle object of the wrong type (or
 * None, passed as NULL) is rejected by SWIG or by the library (API-017). */
