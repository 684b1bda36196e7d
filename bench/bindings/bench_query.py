"""One query shape through the Python package, timed as bench_query.c
times it through the C API (see there; bench/bench_bindings.sh runs all
four languages):

    python bench_query.py PATH QUERY [RULE ...]

A run opens the cursor, iterates every row as a user would
(``for row in cursor``) and closes it. Prints one JSON line.
"""

import json
import sys
import time

import minigraf

WARMUP_RUNS = 3
WARMUP_S = 0.5
MIN_RUNS = 5
BUDGET_S = 1.5
MAX_RUNS = 5000


def run_once(db, query):
    rows = 0
    with db.query(query) as cursor:
        for _row in cursor:
            rows += 1
    return rows


def main(argv):
    if len(argv) < 3:
        sys.exit(f"usage: {argv[0]} PATH QUERY [RULE ...]")
    path, query, rules = argv[1], argv[2], argv[3:]
    # Registering a rule is refused read-only (rules live with the open database).
    with minigraf.open(path, read_only=not rules) as db:
        for rule in rules:
            db.execute(rule)
        rows = run_once(db, query)
        start = time.perf_counter()
        runs = 1
        while runs < WARMUP_RUNS or time.perf_counter() - start < WARMUP_S:
            if run_once(db, query) != rows:
                sys.exit(f"unstable: {query}")
            runs += 1
        times = []
        spent = 0.0
        while len(times) < MAX_RUNS and (len(times) < MIN_RUNS or spent < BUDGET_S):
            t0 = time.perf_counter()
            got = run_once(db, query)
            t = time.perf_counter() - t0
            times.append(t)
            spent += t
            if got != rows:
                sys.exit(f"unstable: {query}")
    times.sort()
    n = len(times)
    print(
        json.dumps(
            {
                "rows": rows,
                "runs": n,
                "p50_us": round(times[n // 2] * 1e6, 2),
                "p99_us": round(times[int((n - 1) * 0.99 + 0.5)] * 1e6, 2),
                "min_us": round(times[0] * 1e6, 2),
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv)
