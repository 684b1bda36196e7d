"""The fact log: records as dicts, iteration, filters, closing."""

from __future__ import annotations

import gc
import math
import uuid
from typing import Any, Dict, List

import pytest

import minigraf

from conftest import PEOPLE

RECORD_KEYS = [
    "entity",
    "attribute",
    "value",
    "tx_count",
    "tx_id",
    "valid_from",
    "valid_to",
    "asserted",
]
FOREVER = 2**63 - 1


def triples(records: List[minigraf.Record]) -> List[Any]:
    return [(r["attribute"], r["value"], r["tx_count"], r["asserted"]) for r in records]


def test_records_are_dicts_shaped_like_the_json(people: minigraf.Database) -> None:
    with people.fact_log() as log:
        records = list(log)
    assert len(records) == 5
    for record in records:
        assert list(record) == RECORD_KEYS
        uuid.UUID(record["entity"])
        assert record["tx_count"] == 1 and record["asserted"] is True
        assert record["tx_id"] > 0 and record["valid_from"] > 0
        assert record["valid_to"] == FOREVER
    # "tx" order: statement order within the transaction
    assert [r["attribute"] for r in records] == [
        ":person/name",
        ":person/age",
        ":person/name",
        ":person/age",
        ":friend",
    ]
    assert records[0]["value"] == {"type": "string", "value": "Alice"}
    assert records[1]["value"] == {"type": "integer", "value": 30}
    assert records[4]["value"] == {"type": "keyword", "value": ":bob"}


def test_retractions_are_records_too(people: minigraf.Database) -> None:
    people.execute("(retract [[:bob :person/age 25]])")
    records = list(people.fact_log())
    assert triples(records)[-1] == (":person/age", {"type": "integer", "value": 25}, 2, False)


@pytest.mark.parametrize(
    ("literal", "typed"),
    [
        ('"😀 𝄞 non-BMP"', {"type": "string", "value": "😀 𝄞 non-BMP"}),
        ("9223372036854775807", {"type": "integer", "value": 2**63 - 1}),
        ("-9223372036854775808", {"type": "integer", "value": -(2**63)}),
        ("9007199254740993", {"type": "integer", "value": 2**53 + 1}),
        ("30.0", {"type": "float", "value": 30.0}),
        ("1" + "0" * 400 + ".0", {"type": "float", "value": "Infinity"}),
        ("-1" + "0" * 400 + ".0", {"type": "float", "value": "-Infinity"}),
        ("true", {"type": "boolean", "value": True}),
        ("nil", {"type": "null", "value": None}),
        (":status/active", {"type": "keyword", "value": ":status/active"}),
        (
            '#uuid "550E8400-E29B-41D4-A716-446655440000"',
            {"type": "ref", "value": "550e8400-e29b-41d4-a716-446655440000"},
        ),
        ('":status/active"', {"type": "string", "value": ":status/active"}),
    ],
)
def test_values_are_typed_and_exact(
    db: minigraf.Database, literal: str, typed: Dict[str, Any]
) -> None:
    db.execute(f"(transact [[:thing :value {literal}]])")
    (record,) = db.fact_log()
    assert record["value"] == typed
    assert type(record["value"]["value"]) is type(typed["value"])


def test_iteration_crosses_batches_and_ends_for_good(db: minigraf.Database) -> None:
    db.execute("(transact [" + " ".join(f"[:n{i} :num {i}]" for i in range(25)) + "])")
    with db.fact_log(batch_size=2) as log:
        assert iter(log) is log
        assert [r["value"]["value"] for r in log] == list(range(25))
        with pytest.raises(StopIteration):
            next(log)
        assert log.fetch_batch(5) == []


def test_fetch_batch_and_iteration_share_the_stream(db: minigraf.Database) -> None:
    db.execute("(transact [" + " ".join(f"[:n{i} :num {i}]" for i in range(10)) + "])")
    with db.fact_log(batch_size=4) as log:
        first = next(log)  # reads 4, returns 1
        batch = log.fetch_batch(5)
        rest = list(log)
    assert [r["value"]["value"] for r in [first, *batch, *rest]] == list(range(10))
    assert len(batch) == 5
    with pytest.raises(ValueError):
        log.fetch_batch(0)


def test_the_log_is_a_snapshot(people: minigraf.Database) -> None:
    with people.fact_log() as log:
        people.execute('(transact [[:carol :person/name "Carol"]])')
        assert len(list(log)) == 5
    assert len(list(people.fact_log())) == 6


def test_empty_database_has_an_empty_log(db: minigraf.Database) -> None:
    assert list(db.fact_log()) == []


def test_keyword_filters(people: minigraf.Database) -> None:
    people.execute("(retract [[:alice :person/age 30]])")
    by_attribute = people.fact_log(attributes=[":person/age"])
    assert [r["value"]["value"] for r in by_attribute] == [30, 25, 30]
    by_prefix = people.fact_log(attribute_prefixes=(":person/",), tx_from=2)
    assert triples(list(by_prefix)) == [(":person/age", {"type": "integer", "value": 30}, 2, False)]
    alice = next(iter(people.fact_log(tx_to=1)))["entity"]
    assert {r["entity"] for r in people.fact_log(entities={uuid.UUID(alice)})} == {alice}
    both = people.fact_log({"attributes": [":friend"]}, attribute_prefixes=[":person/n"])
    assert sorted(r["attribute"] for r in both) == [":friend", ":person/name", ":person/name"]


def test_window_filter_takes_a_pair_or_a_mapping(db: minigraf.Database) -> None:
    db.execute('(transact {:valid-from "2020-01-01" :valid-to "2021-01-01"} [[:x :v 1]])')
    db.execute('(transact {:valid-from "2022-01-01"} [[:x :v 2]])')
    y2021 = 1609459200000
    y2023 = 1672531200000
    assert [r["value"]["value"] for r in db.fact_log(window=(None, y2021))] == [1]
    assert [r["value"]["value"] for r in db.fact_log(window=(y2021, None))] == [2]
    assert [r["value"]["value"] for r in db.fact_log(window={"from": y2021, "to": y2023})] == [2]


def test_storage_order(people: minigraf.Database) -> None:
    in_tx = list(people.fact_log(order="tx"))
    in_storage = list(people.fact_log({"order": "storage"}))
    key = lambda r: (r["entity"], r["attribute"])  # noqa: E731
    assert sorted(in_tx, key=key) == sorted(in_storage, key=key)
    # one entity's records together
    entities = [r["entity"] for r in in_storage]
    assert entities == sorted(entities, key=entities.index)


def test_a_key_given_twice_is_a_type_error(db: minigraf.Database) -> None:
    with pytest.raises(TypeError):
        db.fact_log({"tx_from": 1}, tx_from=2)
    with pytest.raises(TypeError):
        db.fact_log({"order": "tx"}, order="storage")


@pytest.mark.parametrize(
    "filter",
    [{"no_such_key": 1}, {"tx_from": "one"}, {"attributes": ":person/name"}, {"order": "random"}],
)
def test_bad_filters_raise_api_017(db: minigraf.Database, filter: Dict[str, Any]) -> None:
    with pytest.raises(minigraf.ApiError) as raised:
        db.fact_log(filter)
    assert raised.value.code == "API-017"


def test_batch_size_must_be_positive(db: minigraf.Database) -> None:
    with pytest.raises(ValueError):
        db.fact_log(batch_size=0)


def test_closed_log_raises_api_018(people: minigraf.Database) -> None:
    log = people.fact_log()
    with log:
        assert not log.closed
    assert log.closed
    log.close()  # idempotent
    with pytest.raises(minigraf.ApiError) as raised:
        next(log)
    assert raised.value.code == "API-018"


def test_fact_log_on_a_closed_database_raises_api_018(db: minigraf.Database) -> None:
    db.close()
    with pytest.raises(minigraf.ApiError) as raised:
        db.fact_log()
    assert raised.value.code == "API-018"


def test_a_log_dies_with_its_database(people: minigraf.Database) -> None:
    with people.fact_log(batch_size=1) as log:
        next(log)
        people.close()
        with pytest.raises(minigraf.ApiError) as raised:
            list(log)
        assert raised.value.code == "API-018"


def test_unclosed_logs_are_collected(people: minigraf.Database) -> None:
    for _ in range(100):
        log = people.fact_log()
        next(log)
    del log
    gc.collect()


def test_nan_round_trips_as_a_string(tmp_path: Any) -> None:
    with minigraf.open_in_memory() as source:
        source.execute("(transact [[:x :f 1.5]])")
        (record,) = source.fact_log()
    record["value"] = {"type": "float", "value": math.nan}  # a float NaN is accepted
    with minigraf.LogWriter(tmp_path / "nan.graph") as writer:
        writer.append(record)
    with minigraf.open(tmp_path / "nan.graph") as copy:
        assert copy.execute("(query [:find ?v :where [?e :f ?v]])")["results"] == [[None]]
        (back,) = copy.fact_log()
    assert back["value"] == {"type": "float", "value": "NaN"}
