"""Exceptions: the hierarchy, codes, and bad input that must never crash."""

from __future__ import annotations

import pathlib

import pytest

import minigraf
from minigraf import _errors


def test_hierarchy() -> None:
    for family in (
        minigraf.ParseError,
        minigraf.QueryError,
        minigraf.StorageError,
        minigraf.ApiError,
        minigraf.InternalError,
    ):
        assert issubclass(family, minigraf.Error)
    assert issubclass(minigraf.Error, Exception)


def test_parse_error_carries_code_errno_and_message(db: minigraf.Database) -> None:
    with pytest.raises(minigraf.ParseError) as caught:
        db.execute("(frobnicate)")
    error = caught.value
    assert isinstance(error, minigraf.Error)
    assert error.code == "PRS-011"
    assert error.errno == 1011
    assert error.message.startswith("[PRS-011] ")
    assert str(error) == error.message
    assert error.args == (error.message,)


def test_query_errors_also_come_from_query(db: minigraf.Database) -> None:
    with pytest.raises(minigraf.ParseError):
        db.query("(query [:find ?x :where")


def test_database_is_usable_after_an_error(db: minigraf.Database) -> None:
    with pytest.raises(minigraf.Error):
        db.execute("(frobnicate)")
    db.execute("(transact [[:a :b 1]])")
    assert db.tx_count == 1


@pytest.mark.parametrize(
    ("errno", "cls", "code"),
    [
        (1011, minigraf.ParseError, "PRS-011"),
        (2007, minigraf.QueryError, "QRY-007"),
        (3026, minigraf.StorageError, "STG-026"),
        (4003, minigraf.StorageError, "WAL-003"),
        (5017, minigraf.ApiError, "API-017"),
        (6001, minigraf.InternalError, "INT-001"),
    ],
)
def test_every_family_maps_to_its_class(errno: int, cls: type, code: str) -> None:
    error = _errors.from_native(errno, f"[{code}] text")
    assert type(error) is cls
    assert (error.code, error.errno, str(error)) == (code, errno, f"[{code}] text")
    # The error_out of open_with_options has the message only.
    assert type(_errors.from_native(0, f"[{code}] text")) is cls
    assert _errors.from_native(0, f"[{code}] text").errno == errno
    assert minigraf.capi.error_code_name(errno) == code


def test_unknown_codes_give_the_base_class() -> None:
    error = _errors.from_native(0, None)
    assert type(error) is minigraf.Error
    assert error.code is None


@pytest.mark.parametrize(
    "text",
    ["\udc80", '(transact [[:a :b "\ud800"]])', '(query [:find ?x :where [?x :b "\udfff"]])'],
)
def test_lone_surrogates_raise_cleanly(db: minigraf.Database, text: str) -> None:
    with pytest.raises(UnicodeEncodeError):
        db.execute(text)
    with pytest.raises(UnicodeEncodeError):
        db.query(text)
    assert db.tx_count == 0


def test_embedded_nul_is_rejected(db: minigraf.Database) -> None:
    with pytest.raises(ValueError, match="null"):
        db.execute("(transact [[:a :b 1]])\0(frobnicate)")


@pytest.mark.parametrize("bad", [None, b"(query [])", 42])
def test_non_str_text_is_rejected(db: minigraf.Database, bad: object) -> None:
    with pytest.raises((TypeError, minigraf.ApiError)):
        db.execute(bad)  # type: ignore[arg-type]


def test_surrogate_in_path_raises_cleanly(tmp_path: pathlib.Path) -> None:
    with pytest.raises(UnicodeEncodeError):
        minigraf.open(str(tmp_path / "bad\udc80.graph"))


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "(",
        ")",
        "[[[[",
        '"unterminated',
        "(query [:find])",
        "(transact [[]])",
        '#uuid "x"',
        "\u00ff" * 10000,
    ],
)
def test_garbage_input_raises_a_minigraf_error(db: minigraf.Database, text: str) -> None:
    with pytest.raises(minigraf.Error):
        db.execute(text)
