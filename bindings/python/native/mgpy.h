/*
 * mgpy.h — the hand-written CPython glue of the minigraf package
 * (module `minigraf._native`), beside the SWIG module `minigraf.capi`.
 *
 * SWIG covers the long tail of calls; this module holds the hot paths and
 * what SWIG cannot express: typed rows read straight from
 * minigraf_cursor_step into Python objects, prepared queries with typed
 * binds, host functions and the progress handler (C function pointers
 * calling Python), Ctrl-C. It calls nothing but minigraf.h.
 *
 * Handles arrive from the Python layer as integers (int(swig_handle), the
 * address): the SWIG objects stay the owners of databases and write
 * transactions; this module owns cursors and statements.
 */
#ifndef MGPY_H
#define MGPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdlib.h>

#include "minigraf.h"

/* The module is built against the Limited API (Py_LIMITED_API, set by
 * CMakeLists.txt): one binary for every CPython from 3.10 on. Its types are
 * heap types made at import from the specs below; buffers used without
 * the GIL come from malloc, as PyMem_Raw* is not in the Limited API. */

/* Py_XSETREF, which the Limited API lacks: dst = src, the old value released. */
#define MGPY_SETREF(dst, src)                    \
    do {                                         \
        PyObject *mgpy_old_ = (PyObject *)(dst); \
        (dst) = (src);                           \
        Py_XDECREF(mgpy_old_);                   \
    } while (0)

/* PyObject_CallOneArg is not in the Limited API of 3.10. */
#define MGPY_CALL1(f, a) PyObject_CallFunctionObjArgs((f), (a), NULL)

/* The Python classes the values map to, given by minigraf/_values.py at
 * import (mgpy_set_types); strong references for the module's life. */
typedef struct {
    PyObject *keyword;        /* minigraf.Keyword, a str subclass */
    PyObject *tx_count;       /* minigraf.TxCount, an int subclass */
    PyObject *timestamp;      /* minigraf.Timestamp, an int subclass */
    PyObject *any_valid_time; /* the minigraf.ANY_VALID_TIME singleton */
    PyObject *uuid;           /* uuid.UUID */
    PyObject *from_native;    /* minigraf._errors.from_native(code, message) */
    PyObject *typed_list;     /* _values.typed_list(json_text): a collect-set list */
} mgpy_types;

extern mgpy_types mgpy;
/* The classes, made from their specs by PyInit__native. */
extern PyTypeObject *mgpy_EntityType;
extern PyTypeObject *mgpy_CursorType;
extern PyTypeObject *mgpy_StatementType;
extern PyType_Spec mgpy_entity_spec;
extern PyType_Spec mgpy_cursor_spec;
extern PyType_Spec mgpy_statement_spec;

/* ---- errors (module.c) ---- */
/* Raises the minigraf.Error subclass for `code` / "[CODE] message". */
void mgpy_raise(int code, const char *message);
/* After a failed engine call made without the GIL: a Python exception set
 * by a callback of this thread (KeyboardInterrupt from the progress
 * handler, an exception of the user's handler) wins over the library's
 * error; otherwise the library's is raised. Always returns NULL. */
PyObject *mgpy_fail(int code, const char *message);
/* The address inside an int handle argument; NULL with TypeError set. */
void *mgpy_pointer(PyObject *handle);
/* Raises TypeError "<what>, not <type name of object>"; returns NULL. */
PyObject *mgpy_type_error(const char *what, PyObject *object);
/* Frees an instance of a heap type and releases its type (tp_dealloc). */
void mgpy_free_instance(PyObject *self);

/* ---- values (values.c) ---- */
/* One value of a typed row, copied out of the cursor without the GIL:
 * texts (STRING, KEYWORD, LIST) live in a byte arena at `off`. */
typedef struct {
    int type;
    size_t len;
    union {
        int64_t integer;
        double real;
        int boolean;
        unsigned char uuid[16];
        size_t off;
    } v;
} mgpy_cell;

/* Growable bytes for the cells' texts (malloc: usable without the GIL). */
typedef struct {
    char *data;
    size_t len, cap;
} mgpy_arena;

/* Copies column `col` of the cursor's current row into `cell`. 0, or -1
 * when out of memory. No GIL needed. */
int mgpy_cell_read(MiniGrafCursor *cursor, int col, mgpy_cell *cell, mgpy_arena *arena);
/* The Python value of a cell: a new reference, NULL with an exception. */
PyObject *mgpy_cell_value(const mgpy_cell *cell, const mgpy_arena *arena);
/* A host-function argument as a new reference. */
PyObject *mgpy_from_value(const minigraf_value *value);
/* Fills `out` from a Python value for a host function's result; `keep`
 * receives a new reference owning out->text (or NULL). 0, or -1 with a
 * Python exception set. */
int mgpy_to_value(PyObject *object, minigraf_value *out, PyObject **keep);
/* Binds `value` to the slot `name`: 0, the library's code (> 0), or -1
 * with a Python exception set (a value no slot takes). */
int mgpy_bind(MiniGrafStmt *stmt, const char *name, PyObject *value);

/* ---- the GIL around engine calls (gil.c) ---- */
/* What a thread that released the GIL needs to take it back. */
typedef struct {
    PyThreadState *state;
} mgpy_released;

/* Releases the GIL (as Py_BEGIN_ALLOW_THREADS). */
void mgpy_gil_release(mgpy_released *r);
/* Takes it back (as Py_END_ALLOW_THREADS), spinning a few µs first while
 * another thread of this module holds it rather than sleeping at once. */
void mgpy_gil_take(mgpy_released *r);

/* ---- blocks of rows (block.c) ---- */
/* A cursor's rows read without the GIL (none of these functions needs
 * it): the values of the last block's `rows` rows, and how stepping ended.
 * The library's cursor is freed when its end or error is met; its column
 * names and error text stay here. */
typedef struct {
    MiniGrafCursor *handle; /* NULL once the end or an error was met */
    int ncols;
    char *names;      /* the ncols column names, each ended by NUL */
    mgpy_cell *cells; /* rows * ncols, room for cap_cells cells */
    size_t cap_cells, rows;
    mgpy_arena arena; /* the texts of this block's cells */
    int done;         /* the end or an error was met */
    int error_code;   /* that error's code (> 0), or 0 */
    char *error_text; /* its "[CODE] message", or NULL */
} mgpy_block;

/* Takes the open cursor `handle` (NULL: an empty block, nothing read) and
 * reads up to `want` rows. `b` is zeroed, or a block whose library cursor
 * is already freed, opened before on an answer of the same prepared query:
 * its buffers and column names are kept. 0, or -1 when out of memory;
 * either way free the block with mgpy_block_free. */
int mgpy_block_open(mgpy_block *b, MiniGrafCursor *handle, size_t want);
/* Reads the next up to `want` rows in place of the block's rows (none
 * once done). 0, or -1 when out of memory (rows is then 0). */
int mgpy_block_fill(mgpy_block *b, size_t want);
/* Frees the block's memory and the library's cursor, if still open. */
void mgpy_block_free(mgpy_block *b);

/* ---- entity (entity.c) ---- */
PyObject *mgpy_entity_from_bytes(const unsigned char bytes[16]);
/* The 37-byte hyphenated text of an Entity or uuid.UUID; 0, or -1 with
 * TypeError set when `object` is neither. */
int mgpy_uuid_text(PyObject *object, char text[37]);

/* ---- cursors (cursor.c) ---- */
/* Rows a query reads before it returns, in the same GIL-free stretch. */
enum { MGPY_FIRST_ROWS = 64 };
/* A new minigraf.Cursor over the block mgpy_block_open returned `opened`
 * for (taking the block's contents, on error too); NULL with an exception
 * when it was out of memory or a callback raised meanwhile (Ctrl-C). */
PyObject *mgpy_cursor_new(mgpy_block *block, int opened, PyObject *row_factory);
/* A prepared query keeps its last cursor whose answer was read whole
 * (stmt.c); when the caller has let go of it, the next run fills that
 * cursor's block again instead of making a cursor and its buffers anew:
 * no allocation but the rows' own objects, with the GIL or without.
 * mgpy_cursor_reusable gives the block of `kept` (NULL: make a new
 * cursor) and marks the cursor busy; mgpy_cursor_renew is then
 * mgpy_cursor_new for it, always called, and returns `kept` reset (a new
 * reference) or NULL with an exception. */
mgpy_block *mgpy_cursor_reusable(PyObject *kept);
PyObject *mgpy_cursor_renew(PyObject *kept, int opened, PyObject *row_factory);
/* 1 when the library's cursor is freed: every row read, or an error met. */
int mgpy_cursor_read_whole(PyObject *cursor);

/* ---- host functions (host.c) ---- */
/* Writes the pending Python exception's text into a callback's error
 * buffer and clears it; KeyboardInterrupt and other non-Exception errors
 * stay set, so the call running the query raises them. Returns 1. */
int mgpy_callback_failed(char *error, size_t error_size);
/* That exception (a new reference, or NULL), forgotten here. */
PyObject *mgpy_take_callback_error(void);

/* ---- module functions defined beside their concept ---- */
PyObject *mgpy_query(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *mgpy_wrap_cursor(PyObject *self, PyObject *args);
PyObject *mgpy_prepare(PyObject *self, PyObject *args);
PyObject *mgpy_register_predicate(PyObject *self, PyObject *args);
PyObject *mgpy_register_aggregate(PyObject *self, PyObject *args);
PyObject *mgpy_progress_new(PyObject *self, PyObject *args);
PyObject *mgpy_set_progress(PyObject *self, PyObject *args);
PyObject *mgpy_interrupt(PyObject *self, PyObject *args);
PyObject *mgpy_bench_c(PyObject *self, PyObject *args);

#endif
