/*
 * bench.c — the C baseline of bench/bindings/bench_compare_python.py, in
 * the same process as the Python measurement: on a machine shared with
 * other jobs, times taken by separate processes differ by 2x from run to
 * run, while the thread CPU time of two loops run alternately in one
 * process compares well.
 *
 * _native.bench_c(db, text, runs) -> float: the thread CPU seconds per
 * run of `runs` runs of minigraf_query + minigraf_cursor_step over every
 * row, reading every column with its accessor (as bench/bindings/
 * bench_query.c does) + minigraf_cursor_free, timed as one loop (the
 * clock is a system call: timing each run would add it to small queries).
 * The GIL is held: this is a measurement, not an API.
 */
#include "mgpy.h" /* Python.h first: it sets the POSIX feature macros */

#include <time.h>

static double thread_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Reads every column of the current row; returns something that depends
 * on the values so that the reads are not optimised away. */
static size_t read_row(MiniGrafCursor *c, int ncols) {
    size_t sum = 0, len = 0;
    int col;

    for (col = 0; col < ncols; col++) {
        switch (minigraf_cursor_column_type(c, col)) {
        case MINIGRAF_TYPE_INTEGER: sum += (size_t)minigraf_cursor_column_int64(c, col); break;
        case MINIGRAF_TYPE_FLOAT: sum += minigraf_cursor_column_double(c, col) > 0; break;
        case MINIGRAF_TYPE_BOOLEAN: sum += (size_t)minigraf_cursor_column_bool(c, col); break;
        case MINIGRAF_TYPE_REF: sum += minigraf_cursor_column_uuid(c, col)[0]; break;
        case MINIGRAF_TYPE_STRING:
        case MINIGRAF_TYPE_KEYWORD:
        case MINIGRAF_TYPE_LIST:
            minigraf_cursor_column_text(c, col, &len);
            sum += len;
            break;
        default: break;
        }
    }
    return sum;
}

PyObject *mgpy_bench_c(PyObject *self, PyObject *args) {
    PyObject *db_arg;
    const char *text;
    int runs, i;
    MiniGrafDb *db;
    MiniGrafCursor *c;
    volatile size_t sink = 0;
    double start;

    (void)self;
    if (!PyArg_ParseTuple(args, "Osi", &db_arg, &text, &runs) || !(db = mgpy_pointer(db_arg))) {
        return NULL;
    }
    if (runs < 1) {
        PyErr_SetString(PyExc_ValueError, "runs must be at least 1");
        return NULL;
    }
    start = thread_seconds();
    for (i = 0; i < runs; i++) {
        c = minigraf_query(db, text);
        if (!c) {
            return mgpy_fail(minigraf_last_error_code(db), minigraf_last_error(db));
        }
        while (minigraf_cursor_step(c) == 1) {
            sink += read_row(c, minigraf_cursor_column_count(c));
        }
        minigraf_cursor_free(c);
    }
    (void)sink;
    return PyFloat_FromDouble((thread_seconds() - start) / runs);
}
