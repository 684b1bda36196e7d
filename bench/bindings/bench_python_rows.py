"""The Python package's cost per row (issue 14): attribute_scan
(``:find ?e ?a :where [?e :age ?a]``, an Entity and an integer a row)
iterated with the rows dropped ("iter") or kept by ``fetchall`` ("all"),
and, as the measure of what CPython charges any extension for keeping
rows, the standard library's ``sqlite3`` reading the same rows (each
entity's UUID text and the integer, from an in-memory table) both ways
("sqlite-iter", "sqlite-all"). Timed by the process's CPU time; compare
with bench_rows's "cpu" columns for C's step loop on the same fixture.

    python bench_python_rows.py DIR/envelope-1000000.graph \\
        [iter|all|sqlite-iter|sqlite-all] [RUNS]

Prints the p50, the minimum and the mean CPU ns a row.
"""

import sqlite3
import statistics
import sys
import time

import minigraf

QUERY = "(query [:find ?e ?a :where [?e :age ?a]])"
MODES = ("iter", "all", "sqlite-iter", "sqlite-all")


def drain(cursor, keep):
    """The number of rows, kept by ``fetchall`` or dropped one by one."""
    if keep:
        return len(cursor.fetchall())
    rows = 0
    for _row in cursor:
        rows += 1
    return rows


def minigraf_run(db, keep):
    with db.query(QUERY) as cursor:
        return drain(cursor, keep)


def sqlite_table(db):
    """The scan's rows in an in-memory SQLite table (entity text, integer)."""
    lite = sqlite3.connect(":memory:")
    lite.execute("CREATE TABLE scan (e TEXT, a INTEGER)")
    with db.query(QUERY) as cursor:
        lite.executemany("INSERT INTO scan VALUES (?, ?)", ((str(e), a) for e, a in cursor))
    return lite


def sqlite_run(lite, keep):
    return drain(lite.execute("SELECT e, a FROM scan"), keep)


def main(argv):
    if len(argv) < 2 or (len(argv) > 2 and argv[2] not in MODES):
        sys.exit(f"usage: {argv[0]} FIXTURE.graph [{'|'.join(MODES)}] [RUNS]")
    mode = argv[2] if len(argv) > 2 else "iter"
    runs = int(argv[3]) if len(argv) > 3 else 15
    with minigraf.open(argv[1], read_only=True) as db:
        keep = mode.endswith("all")
        if mode.startswith("sqlite"):
            lite = sqlite_table(db)

            def run():
                return sqlite_run(lite, keep)

        else:

            def run():
                return minigraf_run(db, keep)

        for _ in range(3):
            run()
        per_row = []
        for _ in range(runs):
            start = time.process_time_ns()
            rows = run()
            per_row.append((time.process_time_ns() - start) / rows)
    print(
        f"attribute_scan, {mode}: {rows} rows, CPU ns/row p50 {statistics.median(per_row):.1f} "
        f"min {min(per_row):.1f} mean {statistics.mean(per_row):.1f}"
    )


if __name__ == "__main__":
    main(sys.argv)
