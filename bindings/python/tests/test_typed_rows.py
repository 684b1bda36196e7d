"""Typed rows: every value arrives in its own Python type, and binds back."""

from __future__ import annotations

import math
import pickle
import uuid

import pytest

import minigraf

ONE = "(query [:find ?v :where [:thing :value ?v]])"


def only_value(db: minigraf.Database, literal: str) -> object:
    db.execute(f"(transact [[:thing :value {literal}]])")
    rows = db.query(ONE).fetchall()
    assert len(rows) == 1 and isinstance(rows[0], tuple)
    return rows[0][0]


@pytest.mark.parametrize(
    ("literal", "expected", "kind"),
    [
        ('"text"', "text", str),
        ("42", 42, int),
        ("9223372036854775807", 2**63 - 1, int),
        ("-9223372036854775808", -(2**63), int),
        ("1.5", 1.5, float),
        ("30.0", 30.0, float),
        ("true", True, bool),
        ("false", False, bool),
        ("nil", None, type(None)),
    ],
)
def test_plain_values_keep_their_type(
    db: minigraf.Database, literal: str, expected: object, kind: type
) -> None:
    value = only_value(db, literal)
    assert type(value) is kind and value == expected


def test_keyword_is_a_str_that_knows_it_is_a_keyword(db: minigraf.Database) -> None:
    db.execute('(transact [[:a :k :status/active] [:b :k ":status/active"]])')
    values = sorted(
        db.query("(query [:find ?v :where [?e :k ?v]])"), key=lambda r: type(r[0]).__name__
    )
    keyword, string = values[0][0], values[1][0]
    assert type(keyword) is minigraf.Keyword and type(string) is str
    assert keyword == string == ":status/active"  # same text, told apart by type
    assert str(keyword) == ":status/active" and repr(keyword) == "Keyword(':status/active')"


def test_entities_wrap_uuids(people: minigraf.Database) -> None:
    (alice,) = people.query('(query [:find ?e :where [?e :person/name "Alice"]])').fetchone()
    assert isinstance(alice, minigraf.Entity)
    assert isinstance(alice.uuid, uuid.UUID) and alice == alice.uuid
    assert hash(alice) == hash(alice.uuid)
    assert str(alice) == str(alice.uuid) == "e340ebba-e050-5d3b-8c2e-5388ce184a79"
    assert minigraf.Entity(str(alice)) == alice == minigraf.Entity(alice.uuid)
    assert minigraf.Entity(alice.bytes) == alice
    assert pickle.loads(pickle.dumps(alice)) == alice
    with pytest.raises(TypeError):
        minigraf.Entity(12)
    with pytest.raises(ValueError):
        minigraf.Entity("not a uuid")


def test_non_finite_floats_are_kept(db: minigraf.Database) -> None:
    db.execute("(transact [[:x :v 1.0] [:y :v 0.0]])")
    rows = db.query("(query [:find ?r :where [:x :v ?a] [:y :v ?b] [(/ ?a ?b) ?r]])").fetchall()
    # Float division by zero drops the row (spec); NaN and infinities come
    # from the log writer, which can store any float.
    assert rows == []


def test_nan_and_infinity_from_stored_records(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "floats.graph"
    entity = "00000000-0000-4000-8000-000000000001"
    with minigraf.LogWriter(path) as writer:
        for n, special in enumerate(("NaN", "Infinity", "-Infinity")):
            writer.append(
                {
                    "entity": entity,
                    "attribute": f":f/v{n}",
                    "value": {"type": "float", "value": special},
                    "tx_count": 1,
                    "tx_id": 1,
                    "valid_from": 1,
                    "valid_to": 2**63 - 1,
                    "asserted": True,
                }
            )
    with minigraf.open(path) as db:
        rows = dict(db.query("(query [:find ?a ?v :where [?e ?a ?v]])").fetchall())
    assert math.isnan(rows[":f/v0"])
    assert rows[":f/v1"] == math.inf and rows[":f/v2"] == -math.inf


def test_collect_set_is_a_list_of_typed_values(db: minigraf.Database) -> None:
    db.execute('(transact [[:a :tag :x] [:a :tag "x"] [:a :tag 3]])')
    ((tags,),) = db.query("(query [:find (collect-set ?t) :where [:a :tag ?t]])").fetchall()
    assert sorted(map(repr, tags)) == sorted(["Keyword(':x')", "'x'", "3"])


def test_columns_and_variables(people: minigraf.Database) -> None:
    cursor = people.query("(query [:find ?n (count ?e) :where [?e :person/name ?n]])")
    assert cursor.columns == ("?n", "(count ?e)")
    assert cursor.variables == ["?n", "(count ?e)"]


def test_dict_rows(people: minigraf.Database) -> None:
    people.row_factory = minigraf.dict_row
    rows = people.query("(query [:find ?n ?a :where [?e :person/name ?n] [?e :person/age ?a]])")
    assert sorted(rows, key=lambda r: r["?n"]) == [
        {"?n": "Alice", "?a": 30},
        {"?n": "Bob", "?a": 25},
    ]
    cursor = people.query("(query [:find ?n :where [?e :person/name ?n]])")
    cursor.row_factory = None
    assert sorted(cursor) == [("Alice",), ("Bob",)]
    prepared = people.prepare("(query [:find ?n :where [?e :person/name ?n]])")
    assert prepared.row_factory is minigraf.dict_row
    prepared.row_factory = lambda cursor, row: row[0]
    assert sorted(prepared.query()) == ["Alice", "Bob"]
    with pytest.raises(TypeError):
        prepared.row_factory = 3


def test_row_values_bind_back_unchanged(db: minigraf.Database) -> None:
    db.execute(
        '(transact [[:a :v "s"] [:b :v 7] [:c :v 2.5] [:d :v true] [:e :v :kw/x] '
        "[:f :v :a] [:g :v nil]])"
    )
    lookup = db.prepare("(query [:find ?e :where [?e :v $v]])")
    for entity, value in db.query("(query [:find ?e ?v :where [?e :v ?v]])"):
        (found,) = lookup.query(v=value).fetchall()
        assert found == (entity,), (value, found)
    (f,) = db.query("(query [:find ?e :where [?e :v :a]])").fetchone()  # the entity :f
    by_entity = db.prepare("(query [:find ?v :where [$e :v ?v]])")  # an entity slot
    assert by_entity.query(e=f).fetchall() == [(minigraf.Keyword(":a"),)]
    assert by_entity.query(e=f.uuid).fetchall() == [(minigraf.Keyword(":a"),)]
