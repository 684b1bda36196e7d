"""The log writer and Database.export: finishing, abandoning, round trips."""

from __future__ import annotations

import gc
import json
import pathlib
import threading
from typing import Any, Dict, List

import pytest

import minigraf

from conftest import PEOPLE

AS_OF = "(query [:find ?n ?a :as-of {n} :where [?e :person/name ?n] [?e :person/age ?a]])"


def history(db: minigraf.Database) -> List[Dict[str, Any]]:
    return list(db.fact_log())


def build_history(db: minigraf.Database) -> None:
    db.execute(PEOPLE)
    db.execute("(transact [])")  # an empty transaction: no records, but a count
    db.execute("(retract [[:bob :person/age 25]])")
    db.execute('(transact [[:bob :person/age 26] [:carol :person/name "Carol 😀"]])')
    db.execute("(retract [[:nobody :person/age 1]])")  # a no-op retraction
    db.execute("(transact [[:carol :person/age 9223372036854775807]])")


def answers(db: minigraf.Database) -> List[Any]:
    return [sorted(db.execute(AS_OF.format(n=n))["results"]) for n in range(1, db.tx_count + 1)]


def files(directory: pathlib.Path) -> List[str]:
    return sorted(path.name for path in directory.iterdir())


@pytest.fixture
def source(db: minigraf.Database) -> minigraf.Database:
    build_history(db)
    return db


def test_with_block_finishes_the_file(source: minigraf.Database, tmp_path: pathlib.Path) -> None:
    target = tmp_path / "copy.graph"
    with minigraf.LogWriter(target) as writer:
        assert writer.path == str(target)
        assert writer.tx_count == 0
        for record in source.fact_log():
            writer.append(record)
        writer.advance_tx_count(source.tx_count)
        assert writer.tx_count == source.tx_count == 6
        assert not writer.finished
    assert writer.finished and writer.closed
    with minigraf.open(target) as copy:
        assert copy.tx_count == 6
        assert history(copy) == history(source)
        assert answers(copy) == answers(source)


def test_exception_in_the_block_abandons_the_file(
    source: minigraf.Database, tmp_path: pathlib.Path
) -> None:
    with pytest.raises(KeyError):
        with minigraf.LogWriter(tmp_path / "copy.graph") as writer:
            writer.append_batch(source.fact_log())
            raise KeyError("boom")
    assert writer.closed and not writer.finished
    assert files(tmp_path) == []  # the file and its WAL are gone


def test_close_without_finish_abandons(source: minigraf.Database, tmp_path: pathlib.Path) -> None:
    writer = minigraf.LogWriter(tmp_path / "copy.graph")
    writer.append_batch(list(source.fact_log()))
    writer.close()
    writer.close()  # idempotent
    assert files(tmp_path) == []
    with pytest.raises(minigraf.ApiError) as raised:
        writer.append(next(iter(source.fact_log())))
    assert raised.value.code == "API-018"


def test_closing_inside_the_block_abandons_without_finishing(tmp_path: pathlib.Path) -> None:
    with minigraf.LogWriter(tmp_path / "copy.graph") as writer:
        writer.close()
    assert not writer.finished
    assert files(tmp_path) == []


def test_an_unfinished_writer_collected_by_gc_is_abandoned(tmp_path: pathlib.Path) -> None:
    writer = minigraf.LogWriter(tmp_path / "copy.graph")
    writer.advance_tx_count(3)
    del writer
    gc.collect()
    assert files(tmp_path) == []


def test_finish_then_only_close(source: minigraf.Database, tmp_path: pathlib.Path) -> None:
    with minigraf.LogWriter(tmp_path / "copy.graph") as writer:
        writer.finish()
        for call in (writer.finish, lambda: writer.append(next(iter(source.fact_log())))):
            with pytest.raises(minigraf.ApiError) as raised:
                call()
            assert raised.value.code == "API-018"
    assert writer.finished
    with minigraf.open(tmp_path / "copy.graph") as copy:
        assert copy.tx_count == 0


def test_an_existing_path_is_stg_043(tmp_path: pathlib.Path) -> None:
    target = tmp_path / "taken.graph"
    target.write_bytes(b"not mine")
    with pytest.raises(minigraf.StorageError) as raised:
        minigraf.LogWriter(target)
    assert raised.value.code == "STG-043"
    assert raised.value.message.startswith("[STG-043] ")
    assert target.read_bytes() == b"not mine"


def test_bad_options_are_api_017(tmp_path: pathlib.Path) -> None:
    with pytest.raises(minigraf.ApiError) as raised:
        minigraf.LogWriter(tmp_path / "copy.graph", synchronous="sometimes")
    assert raised.value.code == "API-017"
    with minigraf.LogWriter(tmp_path / "ok.graph", synchronous="normal", page_cache_size=8):
        pass
    with minigraf.open(tmp_path / "ok.graph") as copy:
        assert copy.tx_count == 0


def test_counter_rules(source: minigraf.Database, tmp_path: pathlib.Path) -> None:
    records = history(source)
    with minigraf.LogWriter(tmp_path / "copy.graph") as writer:
        writer.append_batch(records[:5])
        assert writer.tx_count == 1
        with pytest.raises(minigraf.ApiError) as raised:
            writer.advance_tx_count(0)
        assert raised.value.code == "API-017"
        with pytest.raises(ValueError):
            writer.advance_tx_count(-1)
        with pytest.raises(OverflowError):
            writer.advance_tx_count(2**64)
        writer.advance_tx_count(4)
        with pytest.raises(minigraf.ApiError) as raised:
            writer.append(records[0])  # tx_count 1 < 4
        assert raised.value.code == "API-017"
        assert writer.tx_count == 4


def test_append_batch_is_all_or_nothing(source: minigraf.Database, tmp_path: pathlib.Path) -> None:
    records = history(source)
    broken = dict(records[1], value={"type": "no-such-type", "value": 1})
    with minigraf.LogWriter(tmp_path / "copy.graph") as writer:
        with pytest.raises(minigraf.ApiError) as raised:
            writer.append_batch([records[0], broken])
        assert raised.value.code == "API-017"
        assert writer.tx_count == 0
        writer.append_batch(records)
        writer.advance_tx_count(source.tx_count)
    with minigraf.open(tmp_path / "copy.graph") as copy:
        assert history(copy) == records


def test_records_may_be_json_text(source: minigraf.Database, tmp_path: pathlib.Path) -> None:
    records = history(source)
    with minigraf.LogWriter(tmp_path / "copy.graph") as writer:
        writer.append(json.dumps(records[0]))
        writer.append_batch(json.dumps(records[1:]))
    with minigraf.open(tmp_path / "copy.graph") as copy:
        assert history(copy) == records


def test_records_must_be_mappings(tmp_path: pathlib.Path) -> None:
    with minigraf.LogWriter(tmp_path / "copy.graph") as writer:
        with pytest.raises(TypeError):
            writer.append(["not", "a", "record"])  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            writer.append_batch({"entity": "one record, not a batch"})


def test_non_finite_floats_round_trip(db: minigraf.Database, tmp_path: pathlib.Path) -> None:
    db.execute("(transact [[:x :f 1.5] [:y :f 2.5] [:z :f 3.5]])")
    records = history(db)
    records[0]["value"]["value"] = float("nan")
    records[1]["value"]["value"] = float("-inf")
    records[2]["value"]["value"] = "Infinity"
    with minigraf.LogWriter(tmp_path / "copy.graph") as writer:
        writer.append_batch(records)
    with minigraf.open(tmp_path / "copy.graph") as copy:
        values = [r["value"] for r in copy.fact_log()]
    assert values == [{"type": "float", "value": text} for text in ("NaN", "-Infinity", "Infinity")]


def test_export_round_trip(source: minigraf.Database, tmp_path: pathlib.Path) -> None:
    source.export(tmp_path / "copy.graph")
    assert files(tmp_path) == ["copy.graph", "copy.graph.wal"]  # the WAL as any closed file
    with minigraf.open(tmp_path / "copy.graph") as copy:
        assert copy.tx_count == source.tx_count
        assert history(copy) == history(source)
        assert answers(copy) == answers(source)
        assert copy.execute(
            '(query [:find ?a :where [?e :person/name "Carol 😀"] [?e :person/age ?a]])'
        )["results"] == [[2**63 - 1]]
        # and the copy exports again, identically
        copy.export(str(tmp_path / "copy2.graph"))
    with minigraf.open(tmp_path / "copy2.graph") as copy2:
        assert history(copy2) == history(source)


def test_export_keeps_every_type_exact(db: minigraf.Database, tmp_path: pathlib.Path) -> None:
    db.execute(
        '(transact [[:v :s "😀 𝄞 \\"q\\" \\n"] [:v :s ":not/keyword"] [:v :k :a/keyword] '
        '[:v :r #uuid "550e8400-e29b-41d4-a716-446655440000"] [:v :r :bob] '
        "[:v :i 9223372036854775807] [:v :i -9223372036854775808] [:v :i 30] "
        "[:v :f 30.0] [:v :f 0.1] [:v :f -0.00000025] [:v :b true] [:v :n nil]])"
    )
    db.execute("(transact [[:v :f " + "1" + "0" * 400 + ".0]])")
    db.export(tmp_path / "copy.graph")
    with minigraf.open(tmp_path / "copy.graph") as copy:
        assert history(copy) == history(db)
        query = "(query [:find ?a ?x :where [:v ?a ?x]])"
        assert sorted(map(repr, copy.execute(query)["results"])) == sorted(
            map(repr, db.execute(query)["results"])
        )
    types = {(r["value"]["type"], type(r["value"]["value"]).__name__) for r in history(db)}
    assert types == {
        ("string", "str"),
        ("keyword", "str"),
        ("ref", "str"),
        ("integer", "int"),
        ("float", "float"),
        ("float", "str"),
        ("boolean", "bool"),
        ("null", "NoneType"),
    }


def test_export_of_a_file_and_of_an_empty_database(tmp_path: pathlib.Path) -> None:
    with minigraf.open(tmp_path / "a.graph") as file_db:
        build_history(file_db)
        file_db.export(tmp_path / "b.graph")
        expected = history(file_db)
    with minigraf.open(tmp_path / "b.graph", read_only=True) as copy:
        assert history(copy) == expected
        copy.export(tmp_path / "c.graph")  # read-only databases export too
    with minigraf.open_in_memory() as empty:
        empty.export(tmp_path / "d.graph")
    with minigraf.open(tmp_path / "d.graph") as copy:
        assert copy.tx_count == 0 and history(copy) == []


def test_export_to_an_existing_path_fails_and_keeps_it(
    source: minigraf.Database, tmp_path: pathlib.Path
) -> None:
    (tmp_path / "taken.graph").write_bytes(b"keep me")
    with pytest.raises(minigraf.StorageError) as raised:
        source.export(tmp_path / "taken.graph")
    assert raised.value.code == "STG-043"
    assert (tmp_path / "taken.graph").read_bytes() == b"keep me"


def test_export_of_a_closed_database_is_api_018(tmp_path: pathlib.Path) -> None:
    db = minigraf.open_in_memory()
    db.close()
    with pytest.raises(minigraf.ApiError) as raised:
        db.export(tmp_path / "copy.graph")
    assert raised.value.code == "API-018"
    assert files(tmp_path) == []


def test_export_while_another_thread_writes(db: minigraf.Database, tmp_path: pathlib.Path) -> None:
    stop = threading.Event()

    def write() -> None:
        i = 0
        while not stop.is_set():
            db.execute(f"(transact [[:n{i} :num {i}]])")
            if i % 3 == 0:
                db.execute("(transact [])")
            i += 1

    writer = threading.Thread(target=write)
    writer.start()
    copies = []
    try:
        for n in range(4):
            copies.append(tmp_path / f"copy{n}.graph")
            db.export(copies[-1])
    finally:
        stop.set()
        writer.join()
    everything = history(db)
    counts = []
    for target in copies:
        with minigraf.open(target) as copy:
            counts.append(copy.tx_count)
            # a consistent snapshot: exactly the records up to its counter
            assert history(copy) == [r for r in everything if r["tx_count"] <= counts[-1]]
    assert counts == sorted(counts)
