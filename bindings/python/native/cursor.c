/*
 * cursor.c — minigraf.Cursor: a query's rows, read with minigraf_cursor_step
 * and the column accessors straight into Python tuples.
 *
 * Rows are read in blocks (block.c): without the GIL, up to BLOCK rows are
 * stepped over and their values copied into cells; then, with the GIL,
 * each row becomes a tuple when it is asked for. The query itself reads
 * the first MGPY_FIRST_ROWS rows before it returns, in its own GIL-free
 * stretch, and the library's cursor is freed there when they are all: a
 * point or join query hands the GIL over once, and other threads run
 * while the engine works. Two threads using one cursor at once: the
 * second gets API-017, never a wait. Closing while another thread reads
 * frees the cursor when that read returns.
 */
#include <string.h>

#include "mgpy.h"
#include "structmember.h"

enum { BLOCK = 1024, BIG_BLOCK = 1024 };

typedef struct {
    PyObject_HEAD mgpy_block block;
    PyObject *columns;     /* tuple of str, made when first asked for */
    PyObject *row_factory; /* None, or factory(cursor, row) */
    Py_ssize_t batch_size; /* rows per block when iterating */
    size_t next;           /* the next buffered row to give */
    int busy;              /* a thread is stepping without the GIL */
    int close_requested;   /* close() came while busy */
    int closed;            /* close() was called */
    PyObject *weakrefs;
} Cursor;

static PyObject *closed_error(void) {
    mgpy_raise(MINIGRAF_E_API_018, "[API-018] cursor is closed");
    return NULL;
}

/* Frees the block, the library's cursor (if still open) without the GIL:
 * ending a read snapshot may meet other threads' readers. */
static void free_block(mgpy_block *block) {
    mgpy_released gil;

    if (block->handle) {
        mgpy_gil_release(&gil);
        mgpy_block_free(block);
        mgpy_gil_take(&gil);
    } else {
        mgpy_block_free(block);
    }
}

PyObject *mgpy_cursor_new(mgpy_block *block, int opened, PyObject *row_factory) {
    Cursor *c;

    if (opened < 0 || PyErr_Occurred()) { /* or Ctrl-C, met after the answer was complete */
        free_block(block);
        return opened < 0 && !PyErr_Occurred() ? PyErr_NoMemory() : NULL;
    }
    c = PyObject_GC_New(Cursor, mgpy_CursorType);
    if (!c) {
        free_block(block);
        return NULL;
    }
    c->block = *block;
    c->columns = NULL;
    c->row_factory = row_factory ? row_factory : Py_None;
    Py_INCREF(c->row_factory);
    c->batch_size = BLOCK;
    c->next = 0;
    c->busy = c->close_requested = c->closed = 0;
    c->weakrefs = NULL;
    PyObject_GC_Track(c);
    return (PyObject *)c;
}

static void close_now(Cursor *c) {
    c->closed = 1;
    c->next = 0;
    free_block(&c->block);
}

/* ---- a prepared query's cursor taken up again (stmt.c) ---- */

/* The block of `kept` when it can take a new answer: a cursor whose
 * answer was read whole (no library cursor left) and that nothing but the
 * statement holds, so no one can see it change. Marked busy meanwhile. */
mgpy_block *mgpy_cursor_reusable(PyObject *kept) {
    Cursor *c = (Cursor *)kept;

    if (!c || Py_REFCNT(kept) != 1 || c->busy || c->weakrefs || c->block.handle) {
        return NULL;
    }
    c->busy = 1;
    return &c->block;
}

/* mgpy_cursor_new for the cursor whose block mgpy_cursor_reusable gave:
 * the same object, reset for its new answer. */
PyObject *mgpy_cursor_renew(PyObject *kept, int opened, PyObject *row_factory) {
    Cursor *c = (Cursor *)kept;

    c->busy = 0;
    c->next = 0;
    c->close_requested = 0;
    c->closed = 0;
    c->batch_size = BLOCK; /* its columns stay: the same query's */
    if (opened < 0 || PyErr_Occurred()) {
        close_now(c);
        return opened < 0 && !PyErr_Occurred() ? PyErr_NoMemory() : NULL;
    }
    Py_INCREF(row_factory);
    MGPY_SETREF(c->row_factory, row_factory);
    Py_INCREF(kept);
    return kept;
}

/* 1 when the cursor's answer was read whole from the library. */
int mgpy_cursor_read_whole(PyObject *cursor) {
    return ((Cursor *)cursor)->block.handle == NULL;
}

/* Steps over up to `want` rows into the block, without the GIL. Returns
 * 0 (rows may be 0 at the end), or -1 with an exception (out of memory,
 * or a callback raised: Ctrl-C). */
static int fill(Cursor *c, size_t want) {
    mgpy_released gil;
    int rc;

    c->busy = 1;
    mgpy_gil_release(&gil);
    rc = mgpy_block_fill(&c->block, want);
    mgpy_gil_take(&gil);
    c->busy = 0;
    c->next = 0;
    if (c->close_requested) {
        close_now(c);
    }
    if (rc < 0) {
        PyErr_NoMemory();
        return -1;
    }
    if (PyErr_Occurred()) { /* KeyboardInterrupt or the progress handler's exception */
        c->block.rows = 0;
        c->block.done = 1;
        return -1;
    }
    return 0;
}

/* The pending error of a finished cursor, raised; NULL. */
static PyObject *raise_pending(Cursor *c) {
    mgpy_raise(c->block.error_code, c->block.error_text);
    return NULL;
}

/* The next buffered row as a tuple (or what the row factory makes of it). */
static PyObject *take_row(Cursor *c) {
    const mgpy_cell *cell = c->block.cells + c->next * (size_t)c->block.ncols;
    PyObject *row = PyTuple_New(c->block.ncols), *value, *made;
    int col;

    if (!row) {
        return NULL;
    }
    c->next++;
    for (col = 0; col < c->block.ncols; col++) {
        value = mgpy_cell_value(cell + col, &c->block.arena);
        if (!value) {
            Py_DECREF(row);
            return NULL;
        }
        PyTuple_SetItem(row, col, value);
    }
    if (c->row_factory == Py_None) {
        return row;
    }
    made = PyObject_CallFunctionObjArgs(c->row_factory, (PyObject *)c, row, NULL);
    Py_DECREF(row);
    return made;
}

/* 1 when a row is buffered, 0 at the end; with an exception set, -1, or
 * -2 when it is the cursor's own error (which may wait behind rows). */
static int ensure_row(Cursor *c, size_t block) {
    if (c->busy) { /* its block is being refilled */
        mgpy_raise(MINIGRAF_E_API_017, "[API-017] cursor is in use by another thread");
        return -1;
    }
    if (c->next < c->block.rows) {
        return 1;
    }
    if (c->closed) {
        closed_error();
        return -1;
    }
    if (!c->block.done && fill(c, block) < 0) {
        return -1;
    }
    if (c->next < c->block.rows) {
        return 1;
    }
    if (c->block.error_code) {
        raise_pending(c);
        return -2;
    }
    return 0;
}

static size_t iteration_block(const Cursor *c) {
    return c->batch_size < 1 ? 1 : c->batch_size > BIG_BLOCK ? BIG_BLOCK : (size_t)c->batch_size;
}

static PyObject *cursor_next(PyObject *self) {
    Cursor *c = (Cursor *)self;
    return ensure_row(c, iteration_block(c)) == 1 ? take_row(c) : NULL;
}

/* Up to `limit` rows (all of them for a negative limit) as a list; rows
 * read before the cursor's error are returned, the error comes at the
 * next call. */
static PyObject *fetch(Cursor *c, Py_ssize_t limit) {
    PyObject *list = PyList_New(0), *row;
    Py_ssize_t size = 0;
    size_t block;
    int rc;

    while (list && (limit < 0 || size < limit)) {
        block = limit >= 0 && (size_t)(limit - size) < BIG_BLOCK ? (size_t)(limit - size)
                                                                 : BIG_BLOCK;
        rc = ensure_row(c, block);
        if (rc == 0) {
            break;
        }
        if (rc == -2 && size > 0) {
            PyErr_Clear();
            break;
        }
        if (rc < 0) {
            Py_CLEAR(list);
            break;
        }
        row = take_row(c);
        if (!row || PyList_Append(list, row) < 0) {
            Py_XDECREF(row);
            Py_CLEAR(list);
            break;
        }
        Py_DECREF(row);
        size++;
    }
    return list;
}

static PyObject *cursor_fetch_batch(PyObject *self, PyObject *arg) {
    Py_ssize_t size = PyLong_AsSsize_t(arg);

    if (size == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (size < 1) {
        PyErr_Format(PyExc_ValueError, "batch size must be at least 1, got %zd", size);
        return NULL;
    }
    return fetch((Cursor *)self, size);
}

static PyObject *cursor_fetchall(PyObject *self, PyObject *unused) {
    (void)unused;
    return fetch((Cursor *)self, -1);
}

static PyObject *cursor_fetchone(PyObject *self, PyObject *unused) {
    Cursor *c = (Cursor *)self;
    int rc = ensure_row(c, iteration_block(c));

    (void)unused;
    if (rc < 0) {
        return NULL;
    }
    if (rc == 0) {
        Py_RETURN_NONE;
    }
    return take_row(c);
}

static PyObject *cursor_close(PyObject *self, PyObject *unused) {
    Cursor *c = (Cursor *)self;

    (void)unused;
    if (c->busy) {
        c->close_requested = 1; /* the reading thread frees it */
    } else if (!c->closed) {
        close_now(c);
    }
    Py_RETURN_NONE;
}

static PyObject *cursor_enter(PyObject *self, PyObject *unused) {
    (void)unused;
    Py_INCREF(self);
    return self;
}

static PyObject *cursor_exit(PyObject *self, PyObject *args) {
    (void)args;
    return cursor_close(self, NULL);
}

static PyObject *cursor_iter(PyObject *self) {
    Py_INCREF(self);
    return self;
}

static PyObject *get_columns(PyObject *self, void *closure) {
    Cursor *c = (Cursor *)self;
    const char *name = c->block.names;
    int col;

    (void)closure;
    if (!c->columns) {
        PyObject *columns;
        if (c->closed) {
            return closed_error();
        }
        columns = PyTuple_New(c->block.ncols);
        for (col = 0; columns && col < c->block.ncols; col++, name += strlen(name) + 1) {
            PyObject *text = PyUnicode_FromString(name);
            if (!text) {
                Py_CLEAR(columns);
                break;
            }
            PyTuple_SetItem(columns, col, text);
        }
        c->columns = columns;
    }
    Py_XINCREF(c->columns);
    return c->columns;
}

static PyObject *get_variables(PyObject *self, void *closure) {
    PyObject *columns = get_columns(self, closure), *list;

    if (!columns) {
        return NULL;
    }
    list = PySequence_List(columns);
    Py_DECREF(columns);
    return list;
}

static PyObject *get_closed(PyObject *self, void *closure) {
    (void)closure;
    return PyBool_FromLong(((Cursor *)self)->closed);
}

static PyObject *get_row_factory(PyObject *self, void *closure) {
    (void)closure;
    Py_INCREF(((Cursor *)self)->row_factory);
    return ((Cursor *)self)->row_factory;
}

static int set_row_factory(PyObject *self, PyObject *value, void *closure) {
    Cursor *c = (Cursor *)self;

    (void)closure;
    if (!value || (value != Py_None && !PyCallable_Check(value))) {
        PyErr_SetString(PyExc_TypeError, "row_factory must be None or a callable");
        return -1;
    }
    Py_INCREF(value);
    MGPY_SETREF(c->row_factory, value);
    return 0;
}

static PyObject *cursor_repr(PyObject *self) {
    Cursor *c = (Cursor *)self;
    return PyUnicode_FromFormat("<minigraf.Cursor %d columns %s>", c->block.ncols,
                                c->closed ? "closed" : "open");
}

static int cursor_traverse(PyObject *self, visitproc visit, void *arg) {
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(((Cursor *)self)->row_factory);
    return 0;
}

static int cursor_clear(PyObject *self) {
    Py_CLEAR(((Cursor *)self)->row_factory);
    return 0;
}

static void cursor_dealloc(PyObject *self) {
    Cursor *c = (Cursor *)self;

    PyObject_GC_UnTrack(self);
    if (c->weakrefs) {
        PyObject_ClearWeakRefs(self);
    }
    free_block(&c->block);
    Py_XDECREF(c->columns);
    Py_XDECREF(c->row_factory);
    mgpy_free_instance(self);
}

static PyMethodDef cursor_methods[] = {
    {"fetch_batch", cursor_fetch_batch, METH_O,
     "fetch_batch(size) -> list: the next at most `size` rows; [] at the end."},
    {"fetchmany", cursor_fetch_batch, METH_O, "fetchmany(size): as fetch_batch."},
    {"fetchall", cursor_fetchall, METH_NOARGS, "fetchall() -> list: every remaining row."},
    {"fetchone", cursor_fetchone, METH_NOARGS, "fetchone() -> row or None at the end."},
    {"close", cursor_close, METH_NOARGS,
     "close(): frees the cursor; again does nothing; reading after it raises API-018."},
    {"__enter__", cursor_enter, METH_NOARGS, NULL},
    {"__exit__", cursor_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef cursor_members[] = {
    {"batch_size", T_PYSSIZET, offsetof(Cursor, batch_size), 0,
     "How many rows iteration reads from the library at a time, after the first 64 the\n"
     "query read (1 to 1024; default 1024)."},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(Cursor, weakrefs), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef cursor_getset[] = {
    {"columns", get_columns, NULL, "The :find headers as a tuple, e.g. ('?name', '(count ?e)').",
     NULL},
    {"variables", get_variables, NULL, "The :find headers as a list (the earlier name).", NULL},
    {"closed", get_closed, NULL, "True once close() was called.", NULL},
    {"row_factory", get_row_factory, set_row_factory,
     "None (rows are tuples) or a callable factory(cursor, row) -> any, e.g. minigraf.dict_row.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot cursor_slots[] = {
    {Py_tp_doc, "The rows of one query, as tuples of typed values; create one with\n"
                "Database.query, PreparedQuery.query or Transaction.query.\n\n"
                "Iterate it or call fetch_batch / fetchone / fetchall; all read the same rows\n"
                "in order. The answer is fixed when the query runs; the cursor stays readable\n"
                "after its database closes. One thread at a time reads a cursor (a second one\n"
                "gets ApiError API-017). Close it, or use it as a context manager, to free it\n"
                "promptly; an unclosed cursor is freed by the garbage collector."},
    {Py_tp_dealloc, cursor_dealloc},
    {Py_tp_traverse, cursor_traverse},
    {Py_tp_clear, cursor_clear},
    {Py_tp_repr, cursor_repr},
    {Py_tp_iter, cursor_iter},
    {Py_tp_iternext, cursor_next},
    {Py_tp_methods, cursor_methods},
    {Py_tp_getset, cursor_getset},
    {Py_tp_members, cursor_members},
    {0, NULL},
};

PyType_Spec mgpy_cursor_spec = {
    "minigraf.Cursor",
    sizeof(Cursor),
    0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE |
        Py_TPFLAGS_DISALLOW_INSTANTIATION,
    cursor_slots,
};

/* ---- opening cursors ---- */

/* The UTF-8 of a text argument, refusing embedded NULs. */
static const char *text_arg(PyObject *text) {
    Py_ssize_t len;
    const char *utf8;

    if (!PyUnicode_Check(text)) {
        mgpy_type_error("the text must be str", text);
        return NULL;
    }
    utf8 = PyUnicode_AsUTF8AndSize(text, &len);
    if (utf8 && strlen(utf8) != (size_t)len) {
        PyErr_SetString(PyExc_ValueError, "embedded null character");
        return NULL;
    }
    return utf8;
}

PyObject *mgpy_query(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    MiniGrafDb *db;
    MiniGrafCursor *cursor;
    mgpy_block block;
    mgpy_released gil;
    const char *text;
    int opened;

    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "query() takes 3 arguments (%zd given)", nargs);
        return NULL;
    }
    db = mgpy_pointer(args[0]);
    text = db ? text_arg(args[1]) : NULL;
    if (!text) {
        return NULL;
    }
    memset(&block, 0, sizeof block);
    mgpy_gil_release(&gil);
    cursor = minigraf_query(db, text);
    opened = mgpy_block_open(&block, cursor, MGPY_FIRST_ROWS);
    mgpy_gil_take(&gil);
    if (!cursor) {
        return mgpy_fail(minigraf_last_error_code(db), minigraf_last_error(db));
    }
    return mgpy_cursor_new(&block, opened, args[2]);
}

PyObject *mgpy_wrap_cursor(PyObject *self, PyObject *args) {
    PyObject *handle, *row_factory;
    MiniGrafCursor *cursor;
    mgpy_block block;
    mgpy_released gil;
    int opened;

    (void)self;
    if (!PyArg_ParseTuple(args, "OO", &handle, &row_factory)) {
        return NULL;
    }
    cursor = mgpy_pointer(handle);
    if (!cursor) {
        return NULL;
    }
    memset(&block, 0, sizeof block);
    mgpy_gil_release(&gil);
    opened = mgpy_block_open(&block, cursor, MGPY_FIRST_ROWS);
    mgpy_gil_take(&gil);
    return mgpy_cursor_new(&block, opened, row_factory);
}
