"""One shape of spec/BENCHMARKS.md §2 through Python: minigraf (the package,
typed rows) beside the standard library's sqlite3 on the same facts as an
EAV table (bench/compare builds it: eav(e, a, v, tx, tx_end, vf, vt), indexes
(e, a, v) and (a, v, e)), or the parallel-readers measure.

    python bench_compare_python.py FIXTURE_DIR N SHAPE
    python bench_compare_python.py FIXTURE_DIR N --threads T [SECONDS] [SHAPE,...]
    python bench_compare_python.py FIXTURE_DIR N --cancel [TRIALS]
    python bench_compare_python.py --table RESULTS.jsonl   (the lines above, as a table)

--cancel: how long a running query takes to stop after Ctrl-C (SIGINT to
this process, the query on the main thread: KeyboardInterrupt) and after
db.interrupt() from another thread (ApiError API-013), in ms; the query and
data of bench/bench_interrupt.c's "cross join count" (compare with it).

FIXTURE_DIR holds envelope-N.graph (bench_query / bench_compare build it)
and eav-N.sqlite (bench_compare builds it). The rule shape opens a copy of
the fixture (rules are refused read-only). Prints one JSON line. The shape
texts are those of bench/shapes.c, expanded the same way; the row counts of
both engines are checked against each other.

A run: minigraf `for row in db.query(text)` (the query text, parsed once
and cached by the library) or `for row in pq.query()` (prepared);
sqlite3 `for row in con.execute(sql)` (the module's statement cache keeps
the statement prepared); and C: the same query through minigraf_query and
minigraf_cursor_step reading every column, in this process
(minigraf._native.bench_c). Times are this thread's CPU time, the four
measured alternately in rounds (median of the rounds' means): on a machine
shared with other jobs, wall times of separate processes drift by 2x, CPU
times of alternating loops in one process hold. The binding's overhead is
Python's time minus C's: per query on the one-row shapes, per row on the
scans.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import sys
import threading
import time
from typing import Any, Callable, Dict, List, Sequence, Tuple

import minigraf

WARMUP_S = 0.3
BUDGET_S = 1.5
MIN_RUNS = 5
MAX_RUNS = 20000
MAXTX = "9223372036854775807"


def cur(t: str) -> str:
    return f"{t}.tx_end = {MAXTX} AND {t}.vf <= {{now}} AND {t}.vt > {{now}}"


def boss(seed: str) -> str:
    return (
        "WITH RECURSIVE boss(x, b) AS (SELECT e, v FROM eav m WHERE "
        + seed
        + " AND "
        + cur("m")
        + " UNION SELECT boss.x, m.v FROM boss JOIN eav m ON m.e = boss.b "
        "AND m.a = 'manager' AND " + cur("m") + ")"
    )


# name -> (Datalog, SQL, needs the boss rules): bench/shapes.c's texts.
SHAPES: Dict[str, Tuple[str, str, bool]] = {
    "point_entity": (
        "[:find ?a :where [:p{m} :age ?a]]",
        "SELECT v FROM eav f WHERE f.e = {m} AND f.a = 'age' AND " + cur("f"),
        False,
    ),
    "attribute_value": (
        '[:find ?e :where [?e :name "p{m}"]]',
        "SELECT e FROM eav f WHERE f.a = 'name' AND f.v = 'p{m}' AND " + cur("f"),
        False,
    ),
    "join_2": (
        "[:find ?n :where [:p{m} :follows ?f] [?f :name ?n]]",
        "SELECT n.v FROM eav f JOIN eav n ON n.e = f.v AND n.a = 'name' AND "
        + cur("n")
        + " WHERE f.e = {m} AND f.a = 'follows' AND "
        + cur("f"),
        False,
    ),
    "join_3_selective": (
        "[:find ?s ?n :where [:p{m} :manager ?b] [?s :manager ?b] [?s :name ?n]]",
        "SELECT s.e, n.v FROM eav b JOIN eav s ON s.a = 'manager' AND s.v = b.v AND "
        + cur("s")
        + " JOIN eav n ON n.e = s.e AND n.a = 'name' AND "
        + cur("n")
        + " WHERE b.e = {m} AND b.a = 'manager' AND "
        + cur("b"),
        False,
    ),
    "recursive_ancestors": (
        "[:find ?b :where (boss :p{leaf} ?b)]",
        boss("m.e = {leaf} AND m.a = 'manager'") + " SELECT b FROM boss",
        True,
    ),
    "limit": (
        "[:find ?e ?a :where [?e :age ?a] :limit 10]",
        "SELECT e, v FROM eav f WHERE f.a = 'age' AND " + cur("f") + " LIMIT 10",
        False,
    ),
    "not_probe": (
        "[:find ?e :where [?e :group 7] (not [?e :age ?a] [(< ?a 10)])]",
        "SELECT g.e FROM eav g WHERE g.a = 'group' AND g.v = 7 AND "
        + cur("g")
        + " AND NOT EXISTS (SELECT 1 FROM eav x WHERE x.e = g.e AND x.a = 'age' "
        "AND x.v < 10 AND " + cur("x") + ")",
        False,
    ),
    "attribute_scan": (
        "[:find ?e ?a :where [?e :age ?a]]",
        "SELECT e, v FROM eav f WHERE f.a = 'age' AND " + cur("f"),
        False,
    ),
}
BOSS_RULES = (
    "(rule [(boss ?x ?b) [?x :manager ?b]])",
    "(rule [(boss ?x ?b) [?x :manager ?m] (boss ?m ?b)])",
)


def expand(template: str, n: int) -> str:
    entities = n // 6
    values = {"m": entities // 2, "leaf": entities - 1, "now": int(time.time()) * 1000}
    for name, value in values.items():
        template = template.replace("{" + name + "}", str(value))
    return template


ROUNDS = 15


def loop(run: Callable[[], int], runs: int) -> Callable[[], float]:
    """`runs` runs timed as one: thread CPU seconds per run."""

    def measure() -> float:
        start = time.thread_time()
        for _ in range(runs):
            run()
        return (time.thread_time() - start) / runs

    return measure


def alternate(engines: Dict[str, Callable[[], float]]) -> Dict[str, float]:
    """Each engine's median, over ROUNDS rounds, of its mean per run (µs)."""
    samples: Dict[str, List[float]] = {name: [] for name in engines}
    for _ in range(ROUNDS):
        for name, measure in engines.items():
            samples[name].append(measure())
    return {name: round(sorted(s)[len(s) // 2] * 1e6, 3) for name, s in samples.items()}


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
        runs = {
            "minigraf": lambda: count_rows(db.query(text)),
            "minigraf_prepared": lambda: count_rows(pq.query()),
            "sqlite3": lambda: count_rows(con.execute(sql)),
        }
        rows = {engine: run() for engine, run in runs.items()}  # also warms up
        slowest = max(loop(run, 1)() for run in runs.values())
        per_loop = max(1, min(2000, int(0.02 / max(slowest, 1e-7))))  # about 20 ms a loop
        engines = {engine: loop(run, per_loop) for engine, run in runs.items()}
        engines["c"] = lambda: minigraf._native.bench_c(db._ptr, text, per_loop)
        us = alternate(engines)
    con.close()
    result: Dict[str, Any] = {"shape": name, "rows": rows["minigraf"], "us": us, "query": text}
    if len(set(rows.values())) != 1:
        result["note"] = f"row counts differ: {rows}"
    return result


PARALLEL_SHAPES = ("point_entity", "join_3_selective")


def threads(
    directory: str, n: int, count: int, seconds: float, shapes: Sequence[str] = PARALLEL_SHAPES
) -> Dict[str, Any]:
    """Queries per second of `count` threads sharing one database, each
    running the shapes in turn (by default point_entity and
    join_3_selective; prepared, typed rows)."""
    texts = ["(query " + expand(SHAPES[s][0], n) + ")" for s in shapes]
    done = [0] * count
    stop = threading.Event()
    with minigraf.open(os.path.join(directory, f"envelope-{n}.graph"), read_only=True) as db:

        def work(i: int) -> None:
            prepared = [db.prepare(t) for t in texts]
            k = 0
            while not stop.is_set():
                for _ in prepared[k % len(prepared)].query():
                    pass
                k += 1
            done[i] = k

        workers = [threading.Thread(target=work, args=(i,)) for i in range(count)]
        cpu = os.times()
        start = time.perf_counter()
        for worker in workers:
            worker.start()
        time.sleep(seconds)
        stop.set()
        for worker in workers:
            worker.join()
        elapsed = time.perf_counter() - start
        after = os.times()
    used = (after.user - cpu.user) + (after.system - cpu.system)
    # cpu_per_wall: how many cores the threads kept busy on average (1 at
    # most if the GIL serialised them); on a machine shared with other
    # jobs it is the share they got, which bounds q/s.
    return {
        "threads": count,
        "shapes": list(shapes),
        "queries": sum(done),
        "qps": round(sum(done) / elapsed, 1),
        "cpu_per_wall": round(used / elapsed, 2),
    }


# bench/bench_interrupt.c's "cross join count", on its 2,000 facts: the
# same query through C and Python, so the difference is the binding's.
ENDLESS = "(query [:find (count ?x) :where [?a :n ?x] [?b :n ?y] [?c :n ?z]])"


def stop_latency(db: minigraf.Database, trigger: Callable[[], None], expected: type) -> float:
    """ms from `trigger` (run by a timer thread after 0.1 s) to the raise."""
    fired: List[float] = []

    def fire() -> None:
        fired.append(time.perf_counter())
        trigger()

    timer = threading.Timer(0.1, fire)
    timer.start()
    try:
        db.query(ENDLESS)
    except expected:
        stopped = time.perf_counter()
    else:
        sys.exit("the endless query ended by itself")
    timer.join()
    return (stopped - fired[0]) * 1e3


def cancel(directory: str, n: int, trials: int) -> Dict[str, Any]:
    import signal

    result: Dict[str, Any] = {"cancel_trials": trials}
    with minigraf.open_in_memory() as db:
        db.execute("(transact [" + " ".join(f"[:e{i} :n {i}]" for i in range(2000)) + "])")
        for name, trigger, expected in (
            ("ctrl_c", lambda: os.kill(os.getpid(), signal.SIGINT), KeyboardInterrupt),
            ("interrupt", db.interrupt, minigraf.ApiError),
        ):
            ms = sorted(stop_latency(db, trigger, expected) for _ in range(trials))
            result[name] = {"p50_ms": round(ms[len(ms) // 2], 3), "max_ms": round(ms[-1], 3)}
    return result


def table(path: str) -> None:
    lines = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    print(
        f"{'shape':20} {'rows':>7} {'C':>11} {'Python':>11} {'prepared':>11} {'sqlite3':>11} "
        f"{'py/sqlite3':>10}  overhead over C (best of Python, prepared)"
    )
    qps = {}
    for r in lines:
        if "cancel_trials" in r:
            print(
                f"stopping a running query ({r['cancel_trials']} trials): Ctrl-C p50 "
                f"{r['ctrl_c']['p50_ms']} ms, max {r['ctrl_c']['max_ms']} ms; db.interrupt() "
                f"p50 {r['interrupt']['p50_ms']} ms, max {r['interrupt']['max_ms']} ms"
            )
            continue
        if "threads" in r:
            qps[r["threads"]] = (r["qps"], r.get("cpu_per_wall", 0.0))
            continue
        us = r["us"]
        best = min(us["minigraf"], us["minigraf_prepared"])
        over = best - us["c"]
        per = f"  {over / r['rows']:+.3f} us/row" if r["rows"] > 1 else ""
        print(
            f"{r['shape']:20} {r['rows']:>7} {us['c']:>9.2f}us {us['minigraf']:>9.2f}us "
            f"{us['minigraf_prepared']:>9.2f}us {us['sqlite3']:>9.2f}us "
            f"{best / us['sqlite3']:>10.2f}  {over:+.2f} us/query{per}"
            + (f"  ({r['note']})" if "note" in r else "")
        )
    if 1 in qps and 4 in qps:
        (q1, c1), (q4, c4) = qps[1], qps[4]
        print(
            f"parallel readers (point_entity + join_3_selective, prepared): 1 thread "
            f"{q1:.0f} q/s ({c1:.2f} cores busy), 4 threads {q4:.0f} q/s ({c4:.2f} cores "
            f"busy): {q4 / q1:.2f}x on {os.cpu_count()} cores"
        )


def main(argv: List[str]) -> None:
    if len(argv) == 3 and argv[1] == "--table":
        table(argv[2])
    elif len(argv) >= 5 and argv[3] == "--threads":
        seconds = float(argv[5]) if len(argv) > 5 else 3.0
        shapes = argv[6].split(",") if len(argv) > 6 else PARALLEL_SHAPES
        if any(name not in SHAPES for name in shapes):
            sys.exit(f"unknown shape in {argv[6]}; shapes: {', '.join(SHAPES)}")
        print(json.dumps(threads(argv[1], int(argv[2]), int(argv[4]), seconds, shapes)))
    elif len(argv) >= 4 and argv[3] == "--cancel":
        print(json.dumps(cancel(argv[1], int(argv[2]), int(argv[4]) if len(argv) > 4 else 10)))
    elif len(argv) == 4 and argv[3] in SHAPES:
        print(json.dumps(shape(argv[1], int(argv[2]), argv[3])))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
