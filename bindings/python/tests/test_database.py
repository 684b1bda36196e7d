"""Opening, executing, closing: the Database object."""

from __future__ import annotations

import gc
import pathlib
import re
from typing import Any, Callable, Dict

import pytest

import minigraf

from conftest import PEOPLE


def test_versions_match_the_loaded_library() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+", minigraf.__version__)
    assert minigraf.library_version() == minigraf.__version__
    assert minigraf.capi.abi_version() == minigraf.capi.MINIGRAF_ABI_VERSION


def test_execute_returns_decoded_results(db: minigraf.Database) -> None:
    written = db.execute(PEOPLE)
    assert list(written) == ["transacted"]
    assert isinstance(written["transacted"], int) and written["transacted"] > 0

    result = db.execute("(query [:find ?n :where [?e :person/name ?n]])")
    assert result["variables"] == ["?n"]
    assert sorted(result["results"]) == [["Alice"], ["Bob"]]

    retracted = db.execute("(retract [[:bob :person/age 25]])")
    assert list(retracted) == ["retracted"] and retracted["retracted"] > 0


def test_tx_count_counts_committed_writes(db: minigraf.Database) -> None:
    assert db.tx_count == 0
    db.execute(PEOPLE)
    db.execute("(retract [[:alice :person/age 30]])")
    assert db.tx_count == 2
    with pytest.raises(minigraf.ParseError):
        db.execute("(transact [[:alice]])")
    assert db.tx_count == 2


def test_checkpoint_in_memory_is_a_no_op(people: minigraf.Database) -> None:
    assert people.checkpoint() is None


def test_context_manager_closes(tmp_path: pathlib.Path) -> None:
    with minigraf.open(tmp_path / "a.graph") as db:
        assert not db.closed
        db.execute(PEOPLE)
    assert db.closed


def test_context_manager_closes_when_the_block_raises() -> None:
    with pytest.raises(KeyError):
        with minigraf.open_in_memory() as db:
            raise KeyError("boom")
    assert db.closed


def test_file_database_survives_reopen(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "people.graph"
    with minigraf.open(path) as db:  # a pathlib.Path is fine
        db.execute(PEOPLE)
        db.checkpoint()
    with minigraf.open(str(path)) as db:
        assert db.path == str(path)
        assert db.tx_count == 1
        rows = db.execute("(query [:find ?n :where [?e :person/name ?n]])")["results"]
        assert sorted(rows) == [["Alice"], ["Bob"]]


def test_read_only_rejects_writes(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "ro.graph"
    with minigraf.open(path) as db:
        db.execute(PEOPLE)
    with minigraf.open(path, read_only=True) as db:
        result = db.execute("(query [:find ?n :where [:bob :person/name ?n]])")
        assert result["results"] == [["Bob"]]
        with pytest.raises(minigraf.ApiError) as caught:
            db.execute('(transact [[:carol :person/name "Carol"]])')
        assert caught.value.code == "API-014"


@pytest.mark.parametrize(
    "options",
    [
        {"max_results": 0},
        {"max_derived_facts": -5},
        {"max_results": "many"},
        {"max_derived_facts": True},
    ],
)
def test_invalid_option_raises_from_open(tmp_path: pathlib.Path, options: Dict[str, Any]) -> None:
    with pytest.raises(minigraf.ApiError) as caught:
        minigraf.open(tmp_path / "x.graph", **options)
    assert caught.value.code == "API-017"
    assert caught.value.errno == 5017
    assert str(caught.value).startswith("[API-017] ")


def test_limit_options_are_accepted(tmp_path: pathlib.Path) -> None:
    # They bound rule evaluation only (language.md §8.14); plain queries are never cut.
    with minigraf.open(tmp_path / "limits.graph", max_results=1, max_derived_facts=1) as db:
        db.execute(PEOPLE)
        assert len(db.execute("(query [:find ?n :where [?e :person/name ?n]])")["results"]) == 2


def test_close_is_idempotent(db: minigraf.Database) -> None:
    db.close()
    db.close()
    assert db.closed
    assert "closed" in repr(db)


@pytest.mark.parametrize(
    "use",
    [
        lambda db: db.execute("(query [:find ?e :where [?e :a _]])"),
        lambda db: db.query("(query [:find ?e :where [?e :a _]])"),
        lambda db: db.tx_count,
        lambda db: db.checkpoint(),
    ],
    ids=["execute", "query", "tx_count", "checkpoint"],
)
def test_use_after_close_raises_api_018(use: Callable[[minigraf.Database], object]) -> None:
    db = minigraf.open_in_memory()
    db.close()
    with pytest.raises(minigraf.ApiError) as caught:
        use(db)
    assert caught.value.code == "API-018"
    assert caught.value.errno == 5018
    assert str(caught.value).startswith("[API-018] ")


def test_unclosed_database_is_freed_by_the_garbage_collector() -> None:
    for _ in range(100):
        db = minigraf.open_in_memory()
        db.execute(PEOPLE)
        del db
    gc.collect()
