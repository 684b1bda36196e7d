"""Host functions written in Python: predicates, aggregates, errors, leaks."""

from __future__ import annotations

import gc
import math
import sys
import threading

import pytest

import minigraf


@pytest.fixture
def numbers(db: minigraf.Database) -> minigraf.Database:
    db.execute(
        '(transact [[:a :n 1] [:b :n 50] [:c :n 200] [:d :n 4] [:e :s "x@y"] [:f :s :kw/at]])'
    )
    return db


def test_predicate_as_filter_and_binding(numbers: minigraf.Database) -> None:
    numbers.register_predicate("big?", lambda v: isinstance(v, int) and v > 100)
    assert numbers.query("(query [:find ?v :where [?e :n ?v] [(big? ?v)]])").fetchall() == [(200,)]
    rows = numbers.query("(query [:find ?v ?b :where [?e :n ?v] [(big? ?v) ?b]])").fetchall()
    assert sorted(rows) == [(1, False), (4, False), (50, False), (200, True)]


def test_predicates_see_typed_values(numbers: minigraf.Database) -> None:
    seen = []
    numbers.register_predicate("spy?", lambda v: seen.append(v) or True)
    numbers.query("(query [:find ?v :where [?e :s ?v] [(spy? ?v)]])").fetchall()
    assert sorted(map(repr, seen)) == ["'x@y'", "Keyword(':kw/at')"]


def test_aggregate_and_window(numbers: minigraf.Database) -> None:
    numbers.register_aggregate(
        "geo",
        lambda: [0.0, 0],
        lambda acc, v: [acc[0] + math.log(v), acc[1] + 1],
        lambda acc: math.exp(acc[0] / acc[1]),
    )
    ((value,),) = numbers.query("(query [:find (geo ?v) :where [?e :n ?v]])").fetchall()
    assert value == pytest.approx((1 * 50 * 200 * 4) ** 0.25)
    numbers.register_aggregate("running", lambda: 0, lambda acc, v: acc + v, lambda acc: acc)
    rows = numbers.query(
        "(query [:find ?v (running ?v :over (:order-by ?v)) :where [?e :n ?v]])"
    ).fetchall()
    assert sorted(rows) == [(1, 1), (4, 5), (50, 55), (200, 255)]


def test_exception_in_predicate_is_a_query_error_with_its_message(
    numbers: minigraf.Database,
) -> None:
    def boom(value: object) -> bool:
        raise ValueError("no thanks")

    numbers.register_predicate("boom?", boom)
    with pytest.raises(minigraf.QueryError) as e:
        numbers.query("(query [:find ?v :where [?e :n ?v] [(boom? ?v)]])")
    assert isinstance(e.value, minigraf.HostFunctionError)
    assert isinstance(e.value, minigraf.ApiError) and e.value.code == "API-016"
    assert str(e.value) == "[API-016] predicate 'boom?' failed: no thanks"
    assert isinstance(e.value.__cause__, ValueError)  # with the callback's traceback
    assert e.value.__cause__.__traceback__ is not None
    with pytest.raises(minigraf.HostFunctionError) as e:  # through execute (JSON) too
        numbers.execute("(query [:find ?v :where [?e :n ?v] [(boom? ?v)]])")
    assert isinstance(e.value.__cause__, ValueError)
    assert numbers.query("(query [:find ?v :where [?e :n ?v]])").fetchall()  # still usable


@pytest.mark.parametrize("stage", ["init", "step", "finish"])
def test_exception_in_aggregate(numbers: minigraf.Database, stage: str) -> None:
    def fail(*args: object) -> object:
        raise RuntimeError(f"bad {stage}")

    parts = {"init": lambda: 0, "step": lambda a, v: a, "finish": lambda a: a}
    parts[stage] = fail
    numbers.register_aggregate("agg", parts["init"], parts["step"], parts["finish"])
    with pytest.raises(minigraf.HostFunctionError) as e:
        numbers.query("(query [:find (agg ?v) :where [?e :n ?v]])")
    assert str(e.value) == f"[API-016] aggregate function 'agg' failed in {stage}: bad {stage}"


def test_finish_must_return_a_minigraf_value(numbers: minigraf.Database) -> None:
    numbers.register_aggregate("agg", lambda: 0, lambda a, v: a, lambda a: object())
    with pytest.raises(minigraf.HostFunctionError) as e:
        numbers.query("(query [:find (agg ?v) :where [?e :n ?v]])")
    assert "a minigraf value must be" in str(e.value)


def test_finish_returns_every_type(numbers: minigraf.Database) -> None:
    for result in (
        "text",
        minigraf.Keyword(":k"),
        7,
        2.5,
        True,
        None,
        math.inf,
        minigraf.Entity("00000000-0000-4000-8000-000000000001"),
    ):
        name = f"const{abs(hash(repr(result)))}"
        numbers.register_aggregate(name, lambda: 0, lambda a, v: a, lambda a, r=result: r)
        ((value,),) = numbers.query(f"(query [:find ({name} ?v) :where [?e :n ?v]])").fetchall()
        assert repr(value) == repr(result) and type(value) is type(result)


def test_registration_errors(numbers: minigraf.Database) -> None:
    numbers.register_predicate("mine?", lambda v: True)
    with pytest.raises(minigraf.ApiError) as e:
        numbers.register_predicate("mine?", lambda v: True)
    assert e.value.code == "API-021"
    with pytest.raises(minigraf.ApiError) as e:
        numbers.register_predicate("string?", lambda v: True)
    assert e.value.code == "API-021"
    numbers.register_predicate("mine?", None)  # unregister
    with pytest.raises(minigraf.ApiError) as e:
        numbers.register_predicate("mine?", None)
    assert e.value.code == "API-017"
    with pytest.raises(TypeError):
        numbers.register_predicate("x?", 3)  # type: ignore[arg-type]


def test_references_are_released(db: minigraf.Database) -> None:
    def pred(value: object) -> bool:
        return True

    init, step, finish = (lambda: 0), (lambda a, v: a), (lambda a: a)
    before = [sys.getrefcount(f) for f in (pred, init, step, finish)]
    db.register_predicate("p?", pred)
    db.register_aggregate("g", init, step, finish)
    assert [sys.getrefcount(f) for f in (pred, init, step, finish)] == [n + 1 for n in before]
    db.register_predicate("p?", None)
    db.register_predicate("p?", pred)
    db.close()  # destroys the registrations
    gc.collect()
    assert [sys.getrefcount(f) for f in (pred, init, step, finish)] == before


def test_callbacks_run_on_the_querying_thread_with_the_gil(numbers: minigraf.Database) -> None:
    threads = set()
    numbers.register_predicate("where?", lambda v: threads.add(threading.get_ident()) or True)

    def run() -> None:
        numbers.query("(query [:find ?v :where [?e :n ?v] [(where? ?v)]])").fetchall()

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    run()
    assert threads == {worker.ident, threading.get_ident()}


def test_keyboard_interrupt_in_a_callback_is_raised_as_itself(numbers: minigraf.Database) -> None:
    def interrupted(value: object) -> bool:
        raise KeyboardInterrupt

    numbers.register_predicate("ctrl-c?", interrupted)
    with pytest.raises(KeyboardInterrupt):
        numbers.query("(query [:find ?v :where [?e :n ?v] [(ctrl-c? ?v)]])")
    assert len(numbers.query("(query [:find ?v :where [?e :n ?v]])").fetchall()) == 4
