/*
 * stmt.c — minigraf.PreparedQuery: a (query ...) parsed once and run many
 * times with typed bind values (minigraf_stmt_bind_*).
 *
 * Binds are given as keyword arguments and/or one mapping, by slot name
 * without '$': pq.query(name="Alice") for [?e :person/name $name]. They
 * stay until re-bound or clear_bindings(). One thread at a time uses a
 * statement (a second one gets API-017); its cursors are independent.
 *
 * It keeps a reference to its last cursor whose answer was read whole, so
 * that a run after the caller let go of it refills that cursor instead of
 * making one (mgpy_cursor_reusable): the cursor object lives on until the
 * next run or close(), which is visible only to a weak reference.
 */
#include <string.h>

#include "mgpy.h"
#include "structmember.h"

typedef struct {
    PyObject_HEAD MiniGrafStmt *stmt; /* NULL once closed */
    int busy;
    PyObject *row_factory;
    PyObject *kept; /* the last cursor read whole, or NULL (mgpy_cursor_reusable) */
    PyObject *weakrefs;
} Statement;

static MiniGrafStmt *usable(Statement *s) {
    if (!s->stmt) {
        mgpy_raise(MINIGRAF_E_API_018, "[API-018] prepared query is closed");
        return NULL;
    }
    if (s->busy) {
        mgpy_raise(MINIGRAF_E_API_017, "[API-017] prepared query is in use by another thread");
        return NULL;
    }
    return s->stmt;
}

static PyObject *stmt_error(MiniGrafStmt *stmt) {
    return mgpy_fail(minigraf_stmt_last_error_code(stmt), minigraf_stmt_last_error(stmt));
}

static int bind_mapping(MiniGrafStmt *stmt, PyObject *binds) {
    PyObject *items, *key, *value;
    Py_ssize_t i, n;
    const char *name;
    int rc = 0;

    if (!binds || binds == Py_None) {
        return 0;
    }
    if (!PyDict_Check(binds) && !PyMapping_Check(binds)) {
        mgpy_type_error("binds must be a mapping", binds);
        return -1;
    }
    items = PyMapping_Items(binds);
    if (!items) {
        return -1;
    }
    n = PyList_Size(items);
    for (i = 0; i < n && rc == 0; i++) {
        key = PyTuple_GetItem(PyList_GetItem(items, i), 0);
        value = PyTuple_GetItem(PyList_GetItem(items, i), 1);
        if (!PyUnicode_Check(key)) {
            PyErr_SetString(PyExc_TypeError, "bind names must be str");
            rc = -1;
            break;
        }
        name = PyUnicode_AsUTF8AndSize(key, NULL);
        rc = name ? mgpy_bind(stmt, name, value) : -1;
    }
    Py_DECREF(items);
    if (rc > 0) {
        stmt_error(stmt);
        return -1;
    }
    return rc;
}

/* The keyword arguments of a vectorcall: names in `kwnames`, values
 * after the positional ones. */
static int bind_keywords(MiniGrafStmt *stmt, PyObject *const *values, PyObject *kwnames) {
    Py_ssize_t i, n = kwnames ? PyTuple_Size(kwnames) : 0;
    const char *name;
    int rc = 0;

    for (i = 0; i < n && rc == 0; i++) {
        name = PyUnicode_AsUTF8AndSize(PyTuple_GetItem(kwnames, i), NULL);
        rc = name ? mgpy_bind(stmt, name, values[i]) : -1;
    }
    if (rc > 0) {
        stmt_error(stmt);
        return -1;
    }
    return rc;
}

/* Binds the optional positional mapping, then the keyword arguments
 * (METH_FASTCALL | METH_KEYWORDS: no argument tuple or dict to build). */
static MiniGrafStmt *bind_args(Statement *s, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames) {
    MiniGrafStmt *stmt = usable(s);

    if (!stmt) {
        return NULL;
    }
    if (nargs > 1) {
        PyErr_Format(PyExc_TypeError, "takes at most 1 positional argument (%zd given)", nargs);
        return NULL;
    }
    if (nargs == 1 && bind_mapping(stmt, args[0]) < 0) {
        return NULL;
    }
    return bind_keywords(stmt, args + nargs, kwnames) < 0 ? NULL : stmt;
}

static PyObject *stmt_bind(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames) {
    return bind_args((Statement *)self, args, nargs, kwnames) ? (Py_INCREF(Py_None), Py_None)
                                                              : NULL;
}

static PyObject *stmt_bind_json(PyObject *self, PyObject *arg) {
    MiniGrafStmt *stmt = usable((Statement *)self);
    Py_ssize_t len;
    const char *text;

    if (!stmt) {
        return NULL;
    }
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "bind_json() takes a str");
        return NULL;
    }
    text = PyUnicode_AsUTF8AndSize(arg, &len);
    if (!text) {
        return NULL;
    }
    if (strlen(text) != (size_t)len) {
        PyErr_SetString(PyExc_ValueError, "embedded null character");
        return NULL;
    }
    if (minigraf_stmt_bind_json(stmt, text) != 0) {
        return stmt_error(stmt);
    }
    Py_RETURN_NONE;
}

static PyObject *stmt_clear(PyObject *self, PyObject *unused) {
    MiniGrafStmt *stmt = usable((Statement *)self);

    (void)unused;
    if (!stmt) {
        return NULL;
    }
    if (minigraf_stmt_clear_bindings(stmt) != 0) {
        return stmt_error(stmt);
    }
    Py_RETURN_NONE;
}

/* The cursor of the answer in `block`: the kept one taken up again, or a
 * new one, kept in turn when its answer was read whole. */
static PyObject *answer(Statement *s, mgpy_block *block, int opened, int reused) {
    PyObject *cursor;

    if (reused) {
        return mgpy_cursor_renew(s->kept, opened, s->row_factory);
    }
    cursor = mgpy_cursor_new(block, opened, s->row_factory);
    if (cursor && mgpy_cursor_read_whole(cursor)) {
        Py_INCREF(cursor);
        MGPY_SETREF(s->kept, cursor);
    }
    return cursor;
}

static PyObject *run(Statement *s, MiniGrafStmt *stmt) {
    mgpy_block fresh, *block = mgpy_cursor_reusable(s->kept);
    int reused = block != NULL, opened;
    MiniGrafCursor *cursor;
    mgpy_released gil;

    if (!reused) {
        memset(&fresh, 0, sizeof fresh);
        block = &fresh;
    }
    s->busy = 1;
    mgpy_gil_release(&gil);
    cursor = minigraf_stmt_query(stmt);
    opened = mgpy_block_open(block, cursor, MGPY_FIRST_ROWS);
    mgpy_gil_take(&gil);
    s->busy = 0;
    if (!cursor) {
        if (reused) {
            Py_XDECREF(mgpy_cursor_renew(s->kept, 0, s->row_factory));
        }
        return stmt_error(stmt);
    }
    return answer(s, block, opened, reused);
}

static PyObject *stmt_query(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames) {
    Statement *s = (Statement *)self;
    MiniGrafStmt *stmt = bind_args(s, args, nargs, kwnames);
    return stmt ? run(s, stmt) : NULL;
}

/* {"variables": [...], "results": [row, ...]}, as Database.execute gives a
 * query, with typed rows. */
static PyObject *stmt_execute(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames) {
    PyObject *cursor = stmt_query(self, args, nargs, kwnames), *rows = NULL, *vars = NULL,
             *result = NULL;

    if (!cursor) {
        return NULL;
    }
    rows = PyObject_CallMethod(cursor, "fetchall", NULL);
    vars = rows ? PyObject_GetAttrString(cursor, "variables") : NULL;
    if (vars) {
        result = Py_BuildValue("{sOsO}", "variables", vars, "results", rows);
    }
    Py_XDECREF(PyObject_CallMethod(cursor, "close", NULL));
    Py_DECREF(cursor);
    Py_XDECREF(rows);
    Py_XDECREF(vars);
    return result;
}

static PyObject *stmt_close(PyObject *self, PyObject *unused) {
    Statement *s = (Statement *)self;
    MiniGrafStmt *stmt = s->stmt;

    (void)unused;
    if (s->busy) {
        mgpy_raise(MINIGRAF_E_API_017, "[API-017] prepared query is in use by another thread");
        return NULL;
    }
    s->stmt = NULL;
    minigraf_stmt_free(stmt);
    Py_CLEAR(s->kept);
    Py_RETURN_NONE;
}

static PyObject *stmt_enter(PyObject *self, PyObject *unused) {
    (void)unused;
    Py_INCREF(self);
    return self;
}

static PyObject *stmt_exit(PyObject *self, PyObject *args) {
    (void)args;
    return stmt_close(self, NULL);
}

static PyObject *get_closed(PyObject *self, void *closure) {
    (void)closure;
    return PyBool_FromLong(((Statement *)self)->stmt == NULL);
}

static PyObject *get_row_factory(PyObject *self, void *closure) {
    (void)closure;
    Py_INCREF(((Statement *)self)->row_factory);
    return ((Statement *)self)->row_factory;
}

static int set_row_factory(PyObject *self, PyObject *value, void *closure) {
    (void)closure;
    if (!value || (value != Py_None && !PyCallable_Check(value))) {
        PyErr_SetString(PyExc_TypeError, "row_factory must be None or a callable");
        return -1;
    }
    Py_INCREF(value);
    MGPY_SETREF(((Statement *)self)->row_factory, value);
    return 0;
}

static int stmt_traverse(PyObject *self, visitproc visit, void *arg) {
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(((Statement *)self)->row_factory);
    Py_VISIT(((Statement *)self)->kept);
    return 0;
}

static int stmt_clear_refs(PyObject *self) {
    Py_CLEAR(((Statement *)self)->row_factory);
    Py_CLEAR(((Statement *)self)->kept);
    return 0;
}

static void stmt_dealloc(PyObject *self) {
    Statement *s = (Statement *)self;

    PyObject_GC_UnTrack(self);
    if (s->weakrefs) {
        PyObject_ClearWeakRefs(self);
    }
    minigraf_stmt_free(s->stmt);
    Py_XDECREF(s->row_factory);
    Py_XDECREF(s->kept);
    mgpy_free_instance(self);
}

static PyMethodDef stmt_methods[] = {
    {"query", (PyCFunction)(void (*)(void))stmt_query, METH_FASTCALL | METH_KEYWORDS,
     "query(binds=None, /, **binds) -> Cursor: binds the values given, runs the query."},
    {"execute", (PyCFunction)(void (*)(void))stmt_execute, METH_FASTCALL | METH_KEYWORDS,
     "execute(binds=None, /, **binds) -> {'variables': [...], 'results': [row, ...]}."},
    {"bind", (PyCFunction)(void (*)(void))stmt_bind, METH_FASTCALL | METH_KEYWORDS,
     "bind(binds=None, /, **binds): binds slots; they stay until re-bound or cleared."},
    {"bind_json", stmt_bind_json, METH_O,
     "bind_json(text): binds slots from the library's JSON form, all or nothing:\n"
     "'{\"e\": {\"entity\": \"<uuid>\"}, \"v\": {\"val\": 25}, \"t\": {\"tx_count\": 1}}'."},
    {"clear_bindings", stmt_clear, METH_NOARGS, "clear_bindings(): unbinds every slot."},
    {"close", stmt_close, METH_NOARGS, "close(): frees the statement (its cursors stay)."},
    {"__enter__", stmt_enter, METH_NOARGS, NULL},
    {"__exit__", stmt_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef stmt_getset[] = {
    {"closed", get_closed, NULL, "True once close() was called.", NULL},
    {"row_factory", get_row_factory, set_row_factory,
     "None (rows are tuples) or factory(cursor, row), given to the cursors it opens.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef stmt_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(Statement, weakrefs), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot stmt_slots[] = {
    {Py_tp_doc, "A (query ...) parsed once, run with bind values; create one with\n"
                "Database.prepare. Bind values: None, bool, int, float, str, Keyword, Entity\n"
                "(or uuid.UUID), TxCount, Timestamp, ANY_VALID_TIME."},
    {Py_tp_dealloc, stmt_dealloc},
    {Py_tp_traverse, stmt_traverse},
    {Py_tp_clear, stmt_clear_refs},
    {Py_tp_methods, stmt_methods},
    {Py_tp_getset, stmt_getset},
    {Py_tp_members, stmt_members},
    {0, NULL},
};

PyType_Spec mgpy_statement_spec = {
    "minigraf.PreparedQuery",
    sizeof(Statement),
    0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE |
        Py_TPFLAGS_DISALLOW_INSTANTIATION,
    stmt_slots,
};

PyObject *mgpy_prepare(PyObject *self, PyObject *args) {
    PyObject *db_arg, *row_factory;
    const char *text;
    Py_ssize_t len;
    MiniGrafDb *db;
    MiniGrafStmt *stmt;
    Statement *s;

    (void)self;
    if (!PyArg_ParseTuple(args, "Os#O", &db_arg, &text, &len, &row_factory)) {
        return NULL;
    }
    if (strlen(text) != (size_t)len) {
        PyErr_SetString(PyExc_ValueError, "embedded null character");
        return NULL;
    }
    db = mgpy_pointer(db_arg);
    if (!db) {
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS stmt = minigraf_prepare(db, text);
    Py_END_ALLOW_THREADS if (!stmt) {
        return mgpy_fail(minigraf_last_error_code(db), minigraf_last_error(db));
    }
    s = PyObject_GC_New(Statement, mgpy_StatementType);
    if (!s) {
        minigraf_stmt_free(stmt);
        return NULL;
    }
    s->stmt = stmt;
    s->busy = 0;
    s->row_factory = row_factory;
    Py_INCREF(row_factory);
    s->kept = NULL;
    s->weakrefs = NULL;
    PyObject_GC_Track(s);
    return (PyObject *)s;
}
