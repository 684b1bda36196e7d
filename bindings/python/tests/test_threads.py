"""Threads: calls release the GIL, and a shared database stays correct."""

from __future__ import annotations

import threading
import time
from typing import Callable, List

import pytest

import minigraf

COUNT = 600
CROSS_JOIN = "(query [:find ?x ?y :where [?a :num ?x] [?b :num ?y]])"
NAMES_QUERY = "(query [:find ?v :where [?e :num ?v]])"


@pytest.fixture
def numbers(db: minigraf.Database) -> minigraf.Database:
    facts = " ".join(f"[:n{i} :num {i}]" for i in range(COUNT))
    db.execute(f"(transact [{facts}])")
    return db


def run_threads(count: int, target: Callable[[int], None], timeout: float = 60.0) -> None:
    """Runs target(i) on `count` threads; re-raises the first failure."""
    errors: List[BaseException] = []

    def guarded(i: int) -> None:
        try:
            target(i)
        except BaseException as e:  # noqa: BLE001 - handed to the main thread
            errors.append(e)

    threads = [threading.Thread(target=guarded, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
        assert not thread.is_alive(), "a thread hung (deadlock?)"
    if errors:
        raise errors[0]


def test_the_gil_is_released_during_a_long_call() -> None:
    # The raw module, so that the timing holds only the C call (the JSON
    # decoding of Database.execute needs the GIL, rightly).
    capi = minigraf.capi
    handle = capi.open_in_memory()
    try:
        facts = " ".join(f"[:n{i} :num {i}]" for i in range(800))
        capi.execute(handle, f"(transact [{facts}])")
        done = threading.Event()
        timing = {}

        def slow() -> None:
            try:
                start = time.perf_counter()
                capi.execute(handle, CROSS_JOIN)  # 640,000 rows of JSON
                timing["call"] = time.perf_counter() - start
            finally:
                done.set()

        worker = threading.Thread(target=slow)
        longest_gap = 0.0
        last = time.perf_counter()
        worker.start()
        while not done.is_set():  # Python work that needs the GIL
            now = time.perf_counter()
            longest_gap = max(longest_gap, now - last)
            last = now
        worker.join()
    finally:
        capi.close(handle)
    assert "call" in timing, "the query failed"
    if timing["call"] < 0.05:
        pytest.skip(f"the call took only {timing['call']:.3f}s: too fast to tell")
    # Holding the GIL would stall this loop for the whole call.
    assert longest_gap < timing["call"] / 2, (longest_gap, timing["call"])


def test_threads_share_one_database(numbers: minigraf.Database) -> None:
    expected = list(range(COUNT))

    def reader(i: int) -> None:
        for _ in range(20):
            if i % 2:
                rows = numbers.execute(NAMES_QUERY)["results"]
            else:
                with numbers.query(NAMES_QUERY) as cursor:
                    rows = list(cursor)
            assert sorted(row[0] for row in rows) == expected

    run_threads(8, reader)


def test_readers_and_a_writer(numbers: minigraf.Database) -> None:
    def work(i: int) -> None:
        for j in range(30):
            if i == 0:
                numbers.execute(f"(transact [[:w{j} :written {j}]])")
            else:
                rows = numbers.execute("(query [:find ?v :where [?e :written ?v]])")["results"]
                assert len(rows) <= 30

    run_threads(6, work)
    assert numbers.tx_count == 31


def test_closing_while_other_threads_call(numbers: minigraf.Database) -> None:
    started = threading.Barrier(5)

    def caller(i: int) -> None:
        started.wait()
        while True:
            try:
                numbers.execute(NAMES_QUERY)
            except minigraf.ApiError as e:
                # API-013: the close interrupted this call; API-018: it came after
                assert e.code in ("API-013", "API-018")
                if e.code == "API-018":
                    return

    def closer(i: int) -> None:
        if i == 4:
            started.wait()
            time.sleep(0.05)
            numbers.close()
        else:
            caller(i)

    run_threads(5, closer)
    assert numbers.closed


def test_one_cursor_shared_by_threads_hands_out_each_row_once(numbers: minigraf.Database) -> None:
    # One thread at a time reads a cursor: a second one that comes while
    # the first is inside the library gets API-017 (never a wait, never a
    # row twice); here each thread simply tries again.
    seen: List[int] = []
    lock = threading.Lock()
    with numbers.query(NAMES_QUERY) as cursor:
        cursor.batch_size = 3

        def drain(i: int) -> None:
            while True:
                try:
                    if i % 2:
                        batch = cursor.fetch_batch(7)
                    else:  # iteration and fetch_batch may be mixed, even across threads
                        row = next(cursor, None)
                        batch = [] if row is None else [row]
                except minigraf.ApiError as e:
                    assert e.code == "API-017", e
                    continue
                if not batch:
                    return
                with lock:
                    seen.extend(row[0] for row in batch)

        run_threads(4, drain)
    assert sorted(seen) == list(range(COUNT))


def test_four_threads_share_typed_row_queries(numbers: minigraf.Database) -> None:
    # Each thread runs typed-row queries and prepared queries on the one
    # shared database, with no lock of the package's: every answer is whole.
    prepared_query = "(query [:find ?v :where [?e :num ?v] [(>= ?v $min)]])"

    def reader(i: int) -> None:
        pq = numbers.prepare(prepared_query)
        for j in range(10):
            assert len(numbers.query(CROSS_JOIN).fetchall()) == COUNT * COUNT
            assert sorted(pq.query(min=j)) == [(v,) for v in range(j, COUNT)]

    run_threads(4, reader, timeout=300)


def test_a_typed_row_query_runs_without_the_gil(numbers: minigraf.Database) -> None:
    # A query far longer than the test, stopped by interrupt() after 0.5 s;
    # meanwhile this thread runs Python code, which would stall for the
    # whole 0.5 s if the query held the GIL.
    endless = "(query [:find (count ?x) :where [?a :num ?x] [?b :num ?y] [?c :num ?z]])"
    outcome: List[BaseException] = []

    def run() -> None:
        try:
            numbers.query(endless)
        except minigraf.ApiError as e:
            outcome.append(e)

    worker = threading.Thread(target=run)
    timer = threading.Timer(0.5, numbers.interrupt)
    longest_gap = 0.0
    worker.start()
    timer.start()
    last = time.perf_counter()
    while worker.is_alive():
        now = time.perf_counter()
        longest_gap = max(longest_gap, now - last)
        last = now
    worker.join()
    timer.join()
    assert outcome and getattr(outcome[0], "code", None) == "API-013"
    assert longest_gap < 0.4, longest_gap


def test_queries_go_on_while_a_querying_thread_waits_elsewhere(
    numbers: minigraf.Database,
) -> None:
    # A thread that last took the GIL back from a query, then released it
    # outside the package (waiting on an Event) leaves the package's guess
    # of who holds the GIL wrong (gil.c): the other threads' queries must
    # still take it back (a spin on the guess is bounded), give whole
    # answers, and the parked thread's next queries too.
    parked, resume = threading.Event(), threading.Event()
    expected = [(v,) for v in range(COUNT)]

    def work(i: int) -> None:
        pq = numbers.prepare(NAMES_QUERY)
        if i == 0:
            assert sorted(pq.query()) == expected
            parked.set()
            assert resume.wait(60)
            for _ in range(50):
                assert sorted(pq.query()) == expected
        else:
            assert parked.wait(60)
            for _ in range(200):
                assert sorted(pq.query()) == expected
            resume.set()

    run_threads(2, work)


def test_a_writer_is_not_blocked_by_readers(numbers: minigraf.Database) -> None:
    def work(i: int) -> None:
        if i == 0:
            for j in range(20):
                with numbers.transaction() as tx:
                    tx.execute(f"(transact [[:w{j} :written {j}]])")
        else:
            for _ in range(5):
                numbers.query(CROSS_JOIN).fetchall()

    run_threads(4, work)
    assert numbers.query("(query [:find (count ?v) :where [?e :written ?v]])").fetchall() == [(20,)]
