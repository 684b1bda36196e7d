"""Every close order: no crash, no leak, nothing lost."""

from __future__ import annotations

import gc
import itertools
import subprocess
import sys
import textwrap

import pytest

import minigraf

Q = "(query [:find ?v :where [?e :n ?v]])"


@pytest.fixture
def filled(db: minigraf.Database) -> minigraf.Database:
    facts = " ".join(f"[:e{i} :n {i}]" for i in range(2000))
    db.execute(f"(transact [{facts}])")
    return db


def test_database_closed_before_its_cursor(filled: minigraf.Database) -> None:
    cursor = filled.query(Q)
    first = cursor.fetch_batch(10)
    filled.close()
    rest = cursor.fetchall()  # the answer was fixed when the cursor opened
    assert sorted(r[0] for r in first + rest) == list(range(2000))
    cursor.close()
    cursor.close()


def test_cursor_never_closed(filled: minigraf.Database) -> None:
    for _ in range(50):
        cursor = filled.query(Q)
        cursor.fetch_batch(3)
    del cursor
    gc.collect()


@pytest.mark.parametrize("order", list(itertools.permutations(["db", "cursor", "prepared", "tx"])))
def test_garbage_collection_in_any_order(order: tuple) -> None:
    db = minigraf.open_in_memory()
    db.execute("(transact [[:a :n 1] [:b :n 2]])")
    db.register_predicate("p?", lambda v: True)
    objects = {"db": db, "cursor": db.query(Q), "prepared": db.prepare(Q), "tx": db.begin_write()}
    objects["cursor"].fetch_batch(1)
    objects["tx"].execute("(transact [[:c :n 3]])")
    del db
    for name in order:
        del objects[name]
        gc.collect()


def test_closed_database_raises_api_018(filled: minigraf.Database) -> None:
    filled.close()
    filled.close()
    for call in (
        lambda: filled.query(Q),
        lambda: filled.execute(Q),
        lambda: filled.prepare(Q),
        lambda: filled.begin_write(),
        lambda: filled.tx_count,
        lambda: filled.register_predicate("p?", lambda v: True),
        lambda: filled.set_progress_handler(None),
    ):
        with pytest.raises(minigraf.ApiError) as e:
            call()
        assert e.value.code == "API-018"


def test_cursor_after_close_raises_api_018(filled: minigraf.Database) -> None:
    cursor = filled.query(Q)
    cursor.close()
    for call in (
        cursor.fetchall,
        cursor.fetchone,
        lambda: next(cursor),
        lambda: cursor.fetch_batch(1),
    ):
        with pytest.raises(minigraf.ApiError) as e:
            call()
        assert e.value.code == "API-018"


def test_interpreter_exit_with_everything_open(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "exit.graph"
    script = textwrap.dedent(f"""
        import minigraf
        db = minigraf.open({str(path)!r})
        db.execute("(transact [[:a :n 1] [:b :n 2] [:c :n 3]])")
        db.register_predicate("p?", lambda v: True)
        db.register_aggregate("g", lambda: 0, lambda a, v: a + v, lambda a: a)
        cursor = db.query("(query [:find ?v :where [?e :n ?v]])")
        cursor.fetch_batch(1)
        prepared = db.prepare("(query [:find ?e :where [?e :n $v]])")
        tx = db.begin_write()
        tx.execute("(transact [[:staged :n 4]])")
        other = minigraf.open_in_memory()
        cycle = [db, cursor, prepared, tx]
        cycle.append(cycle)
        print("ready")
    """)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ready"
    with minigraf.open(path) as db:  # committed data kept, the staged write rolled back
        assert sorted(db.query(Q)) == [(1,), (2,), (3,)]


def test_exit_during_a_query_on_another_thread(tmp_path) -> None:  # type: ignore[no-untyped-def]
    script = textwrap.dedent("""
        import threading, minigraf
        db = minigraf.open_in_memory()
        facts = " ".join(f"[:n{i} :num {i}]" for i in range(1000))
        db.execute(f"(transact [{facts}])")
        started = threading.Event()
        def run():
            started.set()
            try:
                db.query("(query [:find (count ?x) :where [?a :num ?x] [?b :num ?y] [?c :num ?z]])")
            except minigraf.Error:
                pass
        threading.Thread(target=run, daemon=True).start()
        started.wait()
        print("leaving")
    """)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
