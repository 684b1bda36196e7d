"""Prepared queries: typed binds, every kind of slot, errors."""

from __future__ import annotations

import datetime as dt

import pytest

import minigraf

AGE = "(query [:find ?n :where [?e :person/name ?n] [?e :person/age ?a] [(>= ?a $min)]])"


def names(cursor: minigraf.Cursor) -> list:
    return sorted(row[0] for row in cursor)


def test_prepare_once_run_many(people: minigraf.Database) -> None:
    pq = people.prepare(AGE)
    assert names(pq.query(min=26)) == ["Alice"]
    assert names(pq.query(min=0)) == ["Alice", "Bob"]
    assert names(pq.query()) == ["Alice", "Bob"]  # bindings stay
    result = pq.execute({"min": 30})
    assert result == {"variables": ["?n"], "results": [("Alice",)]}
    pq.clear_bindings()
    with pytest.raises(minigraf.ApiError) as e:
        pq.query()
    assert e.value.code == "API-015" and "missing bind value for slot '$min'" in str(e.value)


def test_query_with_binds_shortcut(people: minigraf.Database) -> None:
    assert names(people.query(AGE, {"min": 26})) == ["Alice"]


def test_float_and_bool_and_null_binds(db: minigraf.Database) -> None:
    db.execute("(transact [[:a :v 1.5] [:b :v true] [:c :v nil] [:d :v 1]])")
    pq = db.prepare("(query [:find ?e :where [?e :v $v]])")
    for value in (1.5, True, None, 1):
        assert len(pq.query(v=value).fetchall()) == 1, value


def test_keyword_bind_matches_keyword_not_string(db: minigraf.Database) -> None:
    db.execute('(transact [[:a :k :x/y] [:b :k ":x/y"]])')
    pq = db.prepare("(query [:find ?e :where [?e :k $v]])")
    keyword_hits = pq.query(v=minigraf.Keyword(":x/y")).fetchall()
    string_hits = pq.query(v=":x/y").fetchall()
    assert len(keyword_hits) == 1 and len(string_hits) == 1 and keyword_hits != string_hits


def test_time_travel_binds(db: minigraf.Database) -> None:
    db.execute("(transact [[:a :v 1]])")
    db.execute("(transact [[:a :v 2]])")
    as_of = db.prepare("(query [:find ?v :as-of $t :where [:a :v ?v]])")
    assert as_of.query(t=minigraf.TxCount(1)).fetchall() == [(1,)]
    assert sorted(as_of.query(t=minigraf.TxCount(2)).fetchall()) == [(1,), (2,)]
    assert as_of.query(t=minigraf.Timestamp(0)).fetchall() == []
    valid = db.prepare("(query [:find ?v :valid-at $t :where [:a :v ?v]])")
    assert len(valid.query(t=minigraf.ANY_VALID_TIME).fetchall()) == 2
    future = minigraf.Timestamp(dt.datetime(2999, 1, 1, tzinfo=dt.timezone.utc))
    assert len(valid.query(t=future).fetchall()) == 2
    assert minigraf.Timestamp(dt.datetime(1970, 1, 1, 0, 0, 1)) == 1000
    assert minigraf.Timestamp(5).datetime() == dt.datetime(
        1970, 1, 1, 0, 0, 0, 5000, tzinfo=dt.timezone.utc
    )


def test_entity_binds_in_entity_and_value_positions(people: minigraf.Database) -> None:
    (alice,) = people.query('(query [:find ?e :where [?e :person/name "Alice"]])').fetchone()
    (bob,) = people.query('(query [:find ?e :where [?e :person/name "Bob"]])').fetchone()
    by_entity = people.prepare("(query [:find ?n :where [$e :person/name ?n]])")
    assert by_entity.query(e=alice).fetchall() == [("Alice",)]
    # A value slot takes the same Entity as the value Val(ref).
    friends_of = people.prepare("(query [:find ?n :where [?x :friend $f] [?x :person/name ?n]])")
    assert friends_of.query(f=bob).fetchall() == [("Alice",)]


def test_bind_errors(people: minigraf.Database) -> None:
    pq = people.prepare("(query [:find ?n :where [$e :person/name ?n]])")
    with pytest.raises(minigraf.ApiError) as e:
        pq.query(e=1)
    assert e.value.code == "API-015"
    with pytest.raises(TypeError):
        pq.query(e=object())
    with pytest.raises(OverflowError):
        people.prepare(AGE).query(min=2**64)
    with pytest.raises(minigraf.ApiError) as e:
        people.prepare(AGE).query(min=minigraf.Keyword("no colon"))
    assert e.value.code == "API-017"


def test_prepare_errors(people: minigraf.Database) -> None:
    with pytest.raises(minigraf.ApiError) as e:
        people.prepare("(transact [[:a :b 1]])")
    assert e.value.code == "API-005"
    with pytest.raises(minigraf.ParseError):
        people.prepare("(query [:find")
    with pytest.raises(minigraf.ApiError) as e:
        people.prepare("(query [:find ?v :where [?e $a ?v]])")
    assert e.value.code == "API-015"


def test_closed_statement_and_database(people: minigraf.Database) -> None:
    pq = people.prepare(AGE)
    with pq:
        assert not pq.closed
    assert pq.closed
    with pytest.raises(minigraf.ApiError) as e:
        pq.query(min=1)
    assert e.value.code == "API-018"
    other = people.prepare(AGE)
    people.close()
    with pytest.raises(minigraf.ApiError) as e:
        other.query(min=1)
    assert e.value.code == "API-018"


def test_bind_json(people: minigraf.Database) -> None:
    pq = people.prepare(AGE)
    pq.bind_json('{"min": {"val": 26}}')
    assert names(pq.query()) == ["Alice"]
    with pytest.raises(minigraf.ApiError) as e:
        pq.bind_json('{"min": 1}')
    assert e.value.code == "API-017"


def test_a_cursor_still_held_keeps_its_rows_when_the_query_runs_again(
    people: minigraf.Database,
) -> None:
    pq = people.prepare(AGE)
    first = pq.query(min=26)
    second = pq.query(min=0)
    assert first is not second
    assert names(first) == ["Alice"] and names(second) == ["Alice", "Bob"]
    again = pq.query(min=26)  # `first` is still held: its rows stay
    assert first is not again and first.fetchall() == [] and names(again) == ["Alice"]


def test_a_run_after_the_last_cursor_was_let_go_answers_as_a_new_cursor(
    people: minigraf.Database,
) -> None:
    pq = people.prepare(AGE)
    cursor = pq.query(min=0)
    cursor.batch_size = 1
    assert names(cursor) == ["Alice", "Bob"]
    cursor.close()
    del cursor
    pq.row_factory = minigraf.dict_row
    cursor = pq.query(min=26)
    assert not cursor.closed and cursor.batch_size == 1024 and cursor.columns == ("?n",)
    assert cursor.fetchall() == [{"?n": "Alice"}]
    del cursor
    pq.clear_bindings()
    with pytest.raises(minigraf.ApiError) as e:
        pq.query()  # fails in the library: the next run is whole
    assert e.value.code == "API-015"
    pq.row_factory = None
    assert pq.query(min=30).fetchall() == [("Alice",)]
