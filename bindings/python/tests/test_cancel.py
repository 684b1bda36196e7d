"""Cancellation: Ctrl-C, interrupt() from another thread, progress handlers."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

import minigraf

# About 10^9 joined rows: minutes of work unless something stops it.
ENDLESS = "(query [:find (count ?x) :where [?a :num ?x] [?b :num ?y] [?c :num ?z]])"


@pytest.fixture
def big(db: minigraf.Database) -> minigraf.Database:
    facts = " ".join(f"[:n{i} :num {i}]" for i in range(1000))
    db.execute(f"(transact [{facts}])")
    return db


def later(seconds: float, action) -> threading.Timer:  # type: ignore[no-untyped-def]
    timer = threading.Timer(seconds, action)
    timer.start()
    return timer


@pytest.mark.skipif(
    threading.current_thread() is not threading.main_thread(),
    reason="signals reach the main thread only",
)
def test_ctrl_c_interrupts_a_running_query(big: minigraf.Database) -> None:
    timer = later(0.2, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        big.query(ENDLESS)
    timer.join()
    # Without the watcher the query would run for minutes, then raise.
    assert time.monotonic() - start < 30
    assert big.query("(query [:find (count ?x) :where [?a :num ?x]])").fetchall() == [(1000,)]


def test_ctrl_c_interrupts_execute_too(big: minigraf.Database) -> None:
    timer = later(0.2, lambda: os.kill(os.getpid(), signal.SIGINT))
    with pytest.raises(KeyboardInterrupt):
        big.execute(ENDLESS)
    timer.join()


def test_interrupt_from_another_thread(big: minigraf.Database) -> None:
    timer = later(0.2, big.interrupt)
    with pytest.raises(minigraf.ApiError) as e:
        big.query(ENDLESS)
    timer.join()
    assert e.value.code == "API-013" and str(e.value) == "[API-013] interrupted"
    assert big.query("(query [:find (count ?x) :where [?a :num ?x]])").fetchall() == [(1000,)]


def test_interrupt_on_a_closed_database_does_nothing(db: minigraf.Database) -> None:
    db.close()
    db.interrupt()


def test_progress_handler_stops_a_query(big: minigraf.Database) -> None:
    calls = []
    big.set_progress_handler(lambda: calls.append(1) or len(calls) >= 3, 1000)
    with pytest.raises(minigraf.ApiError) as e:
        big.query(ENDLESS)
    assert e.value.code == "API-013"
    assert str(e.value) == "[API-013] interrupted by the progress handler"
    assert len(calls) == 3
    big.set_progress_handler(None)
    assert big.query("(query [:find (count ?x) :where [?a :num ?x]])").fetchall() == [(1000,)]


def test_exception_in_progress_handler_is_raised(big: minigraf.Database) -> None:
    def handler() -> bool:
        raise LookupError("stop here")

    big.set_progress_handler(handler, 10)
    with pytest.raises(LookupError, match="stop here"):
        big.query(ENDLESS)


def test_progress_handler_argument_errors(db: minigraf.Database) -> None:
    with pytest.raises(minigraf.ApiError) as e:
        db.set_progress_handler(lambda: False, 0)
    assert e.value.code == "API-017"
    with pytest.raises(TypeError):
        db.set_progress_handler(5, 10)  # type: ignore[arg-type]


def test_query_timeout_option(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with minigraf.open(tmp_path / "t.graph", query_timeout_ms=100) as db:
        facts = " ".join(f"[:n{i} :num {i}]" for i in range(1000))
        db.execute(f"(transact [{facts}])")
        with pytest.raises(minigraf.ApiError) as e:
            db.query(ENDLESS)
        assert e.value.code == "API-013" and "query_timeout_ms" in str(e.value)
