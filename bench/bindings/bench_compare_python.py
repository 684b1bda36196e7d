"""One shape of spec/BENCHMARKS.md §2 through Python: minigraf (the package,
typed rows) beside the standard library's sqlite3 on the same facts as an
EAV table (bench/compare builds it: eav(e, a, v, tx, tx_end, vf, vt), indexes
(e, a, v) and (a, v, e)), or the parallel-readers measure.

    python bench_compare_python.py FIXTURE_DIR N SHAPE
    python bench_compare_python.py FIXTURE_DIR N --threads T [SECONDS]

FIXTURE_DIR holds envelope-N.graph (bench_query / bench_compare build it)
and eav-N.sqlite (bench_compare builds it). The rule shape opens a copy of
the fixture (rules are refused read-only). Prints one JSON line. The shape
texts are those of bench/shapes.c, expanded the same way; the row counts of
both engines are checked against each other.

A run: minigraf `for row in db.query(text)` (the query text, parsed once
and cached by the library) or `for row in pq.query()` (prepared);
sqlite3 `for row in con.execute(sql)` (the module's statement cache keeps
the statement prepared).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import sys
import threading
import time
from typing import Any, Callable, Dict, List, Tuple

import minigraf

WARMUP_S = 0.3
BUDGET_S = 1.5
MIN_RUNS = 5
MAX_RUNS = 20000
MAXTX = "9223372036854775807"


def cur(t: str) -> str:
    return f"{t}.tx_end = {MAXTX} AND {t}.vf <= {{now}} AND {t}.vt > {{now}}"


def boss(seed: str) -> str:
    return ("WITH RECURSIVE boss(x, b) AS (SELECT e, v FROM eav m WHERE " + seed + " AND "
            + cur("m") + " UNION SELECT boss.x, m.v FROM boss JOIN eav m ON m.e = boss.b "
            "AND m.a = 'manager' AND " + cur("m") + ")")


# name -> (Datalog, SQL, needs the boss rules): bench/shapes.c's texts.
SHAPES: Dict[str, Tuple[str, str, bool]] = {
    "point_entity": ("[:find ?a :where [:p{m} :age ?a]]",
                     "SELECT v FROM eav f WHERE f.e = {m} AND f.a = 'age' AND " + cur("f"), False),
    "attribute_value": ("[:find ?e :where [?e :name \"p{m}\"]]",
                        "SELECT e FROM eav f WHERE f.a = 'name' AND f.v = 'p{m}' AND " + cur("f"),
                        False),
    "join_2": ("[:find ?n :where [:p{m} :follows ?f] [?f :name ?n]]",
               "SELECT n.v FROM eav f JOIN eav n ON n.e = f.v AND n.a = 'name' AND " + cur("n")
               + " WHERE f.e = {m} AND f.a = 'follows' AND " + cur("f"), False),
    "join_3_selective": (
        "[:find ?s ?n :where [:p{m} :manager ?b] [?s :manager ?b] [?s :name ?n]]",
        "SELECT s.e, n.v FROM eav b JOIN eav s ON s.a = 'manager' AND s.v = b.v AND " + cur("s")
        + " JOIN eav n ON n.e = s.e AND n.a = 'name' AND " + cur("n")
        + " WHERE b.e = {m} AND b.a = 'manager' AND " + cur("b"), False),
    "recursive_ancestors": ("[:find ?b :where (boss :p{leaf} ?b)]",
                            boss("m.e = {leaf} AND m.a = 'manager'") + " SELECT b FROM boss", True),
    "limit": ("[:find ?e ?a :where [?e :age ?a] :limit 10]",
              "SELECT e, v FROM eav f WHERE f.a = 'age' AND " + cur("f") + " LIMIT 10", False),
    "not_probe": ("[:find ?e :where [?e :group 7] (not [?e :age ?a] [(< ?a 10)])]",
                  "SELECT g.e FROM eav g WHERE g.a = 'group' AND g.v = 7 AND " + cur("g")
                  + " AND NOT EXISTS (SELECT 1 FROM eav x WHERE x.e = g.e AND x.a = 'age' "
                  "AND x.v < 10 AND " + cur("x") + ")", False),
    "attribute_scan": ("[:find ?e ?a :where [?e :age ?a]]",
                       "SELECT e, v FROM eav f WHERE f.a = 'age' AND " + cur("f"), False),
}
BOSS_RULES = ("(rule [(boss ?x ?b) [?x :manager ?b]])",
              "(rule [(boss ?x ?b) [?x :manager ?m] (boss ?m ?b)])")


def expand(template: str, n: int) -> str:
    entities = n // 6
    values = {"m": entities // 2, "leaf": entities - 1, "now": int(time.time()) * 1000}
    for name, value in values.items():
        template = template.replace("{" + name + "}", str(value))
    return template


def timed(run: Callable[[], int]) -> Dict[str, Any]:
    rows = run()
    start = time.perf_counter()
    while time.perf_counter() - start < WARMUP_S:
        run()
    times: List[float] = []
    spent = 0.0
    while len(times) < MAX_RUNS and (len(times) < MIN_RUNS or spent < BUDGET_S):
        t0 = time.perf_counter()
        got = run()
        t = time.perf_counter() - t0
        if got != rows:
            sys.exit("unstable row count")
        times.append(t)
        spent += t
    times.sort()
    return {"rows": rows, "runs": len(times), "p50_us": round(times[len(times) // 2] * 1e6, 3),
            "p99_us": round(times[int((len(times) - 1) * 0.99 + 0.5)] * 1e6, 3)}


def count_rows(rows: Any) -> int:
    n = 0
    for _row in rows:
        n += 1
    return n


def open_minigraf(directory: str, n: int, rules: bool) -> minigraf.Database:
    fixture = os.path.join(directory, f"envelope-{n}.graph")
    if not rules:
        return minigraf.open(fixture, read_only=True)
    copy = os.path.join(directory, f"py-rules-{n}.graph")
    if not os.path.exists(copy) or os.path.getmtime(copy) < os.path.getmtime(fixture):
        shutil.copyfile(fixture, copy)
        if os.path.exists(fixture + ".wal"):
            shutil.copyfile(fixture + ".wal", copy + ".wal")
    db = minigraf.open(copy)
    for rule in BOSS_RULES:
        db.execute(rule)
    return db


def open_sqlite(directory: str, n: int) -> sqlite3.Connection:
    path = os.path.join(directory, f"eav-{n}.sqlite")
    if not os.path.exists(path):
        sys.exit(f"missing {path}: run bench_compare {directory} {n} first")
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)


def shape(directory: str, n: int, name: str) -> Dict[str, Any]:
    datalog, sql, rules = SHAPES[name]
    text = "(query " + expand(datalog, n) + ")"
    sql = expand(sql, n)
    con = open_sqlite(directory, n)
    with open_minigraf(directory, n, rules) as db:
        pq = db.prepare(text)
        result = {
            "shape": name,
            "minigraf": timed(lambda: count_rows(db.query(text))),
            "minigraf_prepared": timed(lambda: count_rows(pq.query())),
            "sqlite3": timed(lambda: count_rows(con.execute(sql))),
            "query": text,
        }
    con.close()
    if result["minigraf"]["rows"] != result["sqlite3"]["rows"]:
        result["note"] = "row counts differ"
    return result


def threads(directory: str, n: int, count: int, seconds: float) -> Dict[str, Any]:
    """Queries per second of `count` threads sharing one database, each
    alternating point_entity and join_3_selective (prepared, typed rows)."""
    texts = ["(query " + expand(SHAPES[s][0], n) + ")" for s in ("point_entity", "join_3_selective")]
    done = [0] * count
    stop = threading.Event()
    with minigraf.open(os.path.join(directory, f"envelope-{n}.graph"), read_only=True) as db:

        def work(i: int) -> None:
            prepared = [db.prepare(t) for t in texts]
            k = 0
            while not stop.is_set():
                for _ in prepared[k % 2].query():
                    pass
                k += 1
            done[i] = k

        workers = [threading.Thread(target=work, args=(i,)) for i in range(count)]
        start = time.perf_counter()
        for worker in workers:
            worker.start()
        time.sleep(seconds)
        stop.set()
        for worker in workers:
            worker.join()
        elapsed = time.perf_counter() - start
    return {"threads": count, "queries": sum(done), "qps": round(sum(done) / elapsed, 1)}


def main(argv: List[str]) -> None:
    if len(argv) >= 5 and argv[3] == "--threads":
        seconds = float(argv[5]) if len(argv) > 5 else 3.0
        print(json.dumps(threads(argv[1], int(argv[2]), int(argv[4]), seconds)))
    elif len(argv) == 4 and argv[3] in SHAPES:
        print(json.dumps(shape(argv[1], int(argv[2]), argv[3])))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
