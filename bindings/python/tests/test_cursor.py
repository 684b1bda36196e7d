"""Cursors: the iteration protocol, fetch_batch, closing."""

from __future__ import annotations

import gc
from typing import List

import pytest

import minigraf

COUNT = 2500


@pytest.fixture
def numbers(db: minigraf.Database) -> minigraf.Database:
    facts = " ".join(f"[:n{i} :num {i}]" for i in range(COUNT))
    db.execute(f"(transact [{facts}])")
    return db


QUERY = "(query [:find ?e ?v :where [?e :num ?v]])"


def values(rows: List[minigraf.Row]) -> List[int]:
    """The ?v column, sorted."""
    return sorted(row[1] for row in rows)


def test_variables_name_the_columns(numbers: minigraf.Database) -> None:
    with numbers.query(QUERY) as cursor:
        assert cursor.variables == ["?e", "?v"]


def test_iteration_yields_every_row_as_a_tuple(numbers: minigraf.Database) -> None:
    with numbers.query(QUERY) as cursor:
        assert iter(cursor) is cursor
        rows = list(cursor)
    assert all(isinstance(row, tuple) and len(row) == 2 for row in rows)
    assert values(rows) == list(range(COUNT))


def test_iteration_ends_for_good(numbers: minigraf.Database) -> None:
    with numbers.query(QUERY) as cursor:
        list(cursor)
        with pytest.raises(StopIteration):
            next(cursor)
        assert cursor.fetch_batch(10) == []


def test_small_batch_size_changes_nothing_visible(numbers: minigraf.Database) -> None:
    with numbers.query(QUERY) as cursor:
        cursor.batch_size = 7
        assert values(list(cursor)) == list(range(COUNT))


def test_fetch_batch_returns_at_most_n_rows_then_empty(numbers: minigraf.Database) -> None:
    with numbers.query(QUERY) as cursor:
        sizes = []
        rows: List[minigraf.Row] = []
        while batch := cursor.fetch_batch(1000):
            sizes.append(len(batch))
            rows += batch
        assert sizes == [1000, 1000, 500]
        assert cursor.fetch_batch(1000) == []
    assert values(rows) == list(range(COUNT))


def test_fetch_batch_and_iteration_share_one_position(numbers: minigraf.Database) -> None:
    with numbers.query(QUERY) as cursor:
        first = next(cursor)  # buffers a whole batch behind the scenes
        batch = cursor.fetch_batch(10)
        rest = list(cursor)
    assert len(batch) == 10
    assert values([first] + batch + rest) == list(range(COUNT))


def test_fetch_batch_rejects_sizes_below_one(numbers: minigraf.Database) -> None:
    with numbers.query(QUERY) as cursor:
        with pytest.raises(ValueError):
            cursor.fetch_batch(0)


def test_empty_answer(db: minigraf.Database) -> None:
    with db.query("(query [:find ?e :where [?e :nothing _]])") as cursor:
        assert cursor.variables == ["?e"]
        assert list(cursor) == []
        assert cursor.fetch_batch(5) == []


def test_answer_is_fixed_when_the_cursor_opens(numbers: minigraf.Database) -> None:
    with numbers.query(QUERY) as cursor:
        numbers.execute("(transact [[:extra :num -1]])")
        assert len(list(cursor)) == COUNT


def test_writes_mid_stream_leave_the_rest_of_the_answer_alone(numbers: minigraf.Database) -> None:
    with numbers.query(QUERY) as cursor:
        first = cursor.fetch_batch(100)
        numbers.execute("(transact [[:extra :num -1]])")
        numbers.execute("(retract [[:n0 :num 0]])")
        rest = list(cursor)
    assert values(first + rest) == list(range(COUNT))


def test_close_mid_stream_keeps_the_rest_readable(numbers: minigraf.Database) -> None:
    cursor = numbers.query(QUERY)
    first = cursor.fetch_batch(10)
    numbers.close()
    assert values(first + list(cursor)) == list(range(COUNT))
    cursor.close()


def test_cursor_outlives_its_database(numbers: minigraf.Database) -> None:
    cursor = numbers.query(QUERY)
    numbers.close()
    assert len(list(cursor)) == COUNT
    cursor.close()


def test_context_manager_closes_the_cursor(numbers: minigraf.Database) -> None:
    with numbers.query(QUERY) as cursor:
        next(cursor)
    assert cursor.closed
    assert "closed" in repr(cursor)


def test_close_is_idempotent_and_reading_after_it_raises(numbers: minigraf.Database) -> None:
    cursor = numbers.query(QUERY)
    cursor.close()
    cursor.close()
    with pytest.raises(minigraf.ApiError) as caught:
        next(cursor)
    assert caught.value.code == "API-018"
    with pytest.raises(minigraf.ApiError):
        cursor.fetch_batch(1)


def test_non_query_command_is_rejected(db: minigraf.Database) -> None:
    with pytest.raises(minigraf.ApiError) as caught:
        db.query("(transact [[:a :b 1]])")
    assert caught.value.code == "API-012"
    assert db.tx_count == 0


def test_unclosed_cursors_are_freed_by_the_garbage_collector(numbers: minigraf.Database) -> None:
    for _ in range(200):
        cursor = numbers.query(QUERY)
        next(cursor)
        del cursor
    gc.collect()
    assert numbers.tx_count == 1
