"""minigraf.open takes every open option of the library as a keyword."""

from __future__ import annotations

import inspect
import json

import pytest

import minigraf


def test_every_described_option_is_a_keyword_of_open() -> None:
    described = json.loads(minigraf.capi.options_describe())
    names = {option["name"] for option in described if "open" in option["for"]}
    assert set(minigraf.OPEN_OPTIONS) == names
    parameters = inspect.signature(minigraf.open).parameters
    for name in names:
        assert parameters[name].kind is inspect.Parameter.KEYWORD_ONLY, name


@pytest.mark.parametrize("path", ["", b""])
def test_an_empty_path_is_refused(path: object) -> None:
    with pytest.raises(minigraf.ApiError) as e:
        minigraf.open(path)  # type: ignore[arg-type]
    assert e.value.code == "API-017" and "open_in_memory" in str(e.value)


def test_options_reach_the_library(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "o.graph"
    with minigraf.open(
        path,
        page_cache_size=16,
        wal_checkpoint_threshold=0,
        synchronous="normal",
        busy_timeout_ms=10,
        max_results=1000,
        max_derived_facts=2,
        query_memory_limit=0,
        query_timeout_ms=0,
        allow_unlocked=False,
    ) as db:
        db.execute("(transact [[:a :next :b] [:b :next :c] [:c :next :d] [:d :next :e]])")
        db.execute("(rule [(reach ?x ?y) [?x :next ?y]])")
        db.execute("(rule [(reach ?x ?y) [?x :next ?z] (reach ?z ?y)])")
        with pytest.raises(minigraf.InternalError) as e:  # max_derived_facts=2
            db.query("(query [:find ?y :where (reach :a ?y)])").fetchall()
        assert e.value.code == "INT-020"
    with minigraf.open(path, read_only=True) as db:
        with pytest.raises(minigraf.ApiError) as e:
            db.execute("(transact [[:d :n 4]])")
        assert e.value.code == "API-014"


@pytest.mark.parametrize(
    ("name", "value"),
    [("synchronous", "sometimes"), ("page_cache_size", 0), ("recover", "everything")],
)
def test_bad_option_values(tmp_path, name: str, value: object) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(minigraf.ApiError) as e:
        minigraf.open(tmp_path / "bad.graph", **{name: value})
    assert e.value.code == "API-017"


def test_unknown_option_is_a_type_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TypeError):
        minigraf.open(tmp_path / "x.graph", no_such_option=1)  # type: ignore[call-arg]


def test_export_through_the_library(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with minigraf.open_in_memory() as db:
        db.execute("(transact [[:a :n 1]])")
        db.execute("(retract [[:a :n 1]])")
        db.export(tmp_path / "copy.graph")
        with pytest.raises(minigraf.StorageError) as e:
            db.export(tmp_path / "copy.graph")
        assert e.value.code == "STG-043"
    with minigraf.open(tmp_path / "copy.graph") as copy:
        assert copy.tx_count == 2
        assert copy.query("(query [:find ?v :as-of 1 :where [:a :n ?v]])").fetchall() == [(1,)]


def _history_flag(path) -> int:  # type: ignore[no-untyped-def]
    """Bit 0 of the newest header slot's flags (docs/file-format.md §2)."""
    data = path.read_bytes()[:8192]
    slots = [data[:4096], data[4096:]]
    newest = max(slots, key=lambda s: int.from_bytes(s[16:24], "little"))
    return int.from_bytes(newest[112:116], "little") & 1


def test_history_index_reaches_the_library(tmp_path) -> None:  # type: ignore[no-untyped-def]
    plain, indexed, written = (tmp_path / n for n in ("p.graph", "i.graph", "w.graph"))
    for path, option in ((plain, None), (indexed, True)):
        with minigraf.open(path, history_index=option) as db:
            db.execute("(transact [[:k :n 1]])")
            db.execute("(transact [[:k :n 2]])")
    assert (_history_flag(plain), _history_flag(indexed)) == (0, 1)
    writer = minigraf.LogWriter(written, history_index=True)
    writer.finish()
    assert _history_flag(written) == 1
    with minigraf.open(plain) as db:
        db.export(tmp_path / "e.graph", history_index=True)
    assert _history_flag(tmp_path / "e.graph") == 1
    with minigraf.open(indexed) as db:
        assert db.query("(query [:find ?v :as-of 1 :where [:k :n ?v]])").fetchall() == [(1,)]
