"""Values crossing the binding: unicode, 64-bit integers, floats."""

from __future__ import annotations

import pytest

import minigraf


def roundtrip(db: minigraf.Database, literal: str) -> object:
    db.execute(f"(transact [[:thing :value {literal}]])")
    rows = db.execute("(query [:find ?v :where [:thing :value ?v]])")["results"]
    with db.query("(query [:find ?v :where [:thing :value ?v]])") as cursor:
        assert [list(row) for row in cursor] == rows  # a Keyword equals its text
    assert len(rows) == 1
    return rows[0][0]


@pytest.mark.parametrize(
    "text",
    ["plain", "naïve café", "日本語", "😀 𝄞 𐍈 non-BMP", "mixed 😀 é \t tab", ""],
)
def test_unicode_round_trips(db: minigraf.Database, text: str) -> None:
    assert roundtrip(db, f'"{text}"') == text


def test_unicode_in_keywords(db: minigraf.Database) -> None:
    db.execute("(transact [[:人 :名前 :値/東京]])")
    result = db.execute("(query [:find ?v :where [:人 :名前 ?v]])")
    assert result["results"] == [[":値/東京"]]


@pytest.mark.parametrize("number", [2**63 - 1, -(2**63), 0, -1, 2**53 + 1])
def test_integers_are_exact(db: minigraf.Database, number: int) -> None:
    value = roundtrip(db, str(number))
    assert type(value) is int
    assert value == number


@pytest.mark.parametrize(("literal", "number"), [("1.5", 1.5), ("-0.25", -0.25), ("30.0", 30.0)])
def test_floats_stay_floats(db: minigraf.Database, literal: str, number: float) -> None:
    value = roundtrip(db, literal)
    assert type(value) is float
    assert value == number


@pytest.mark.parametrize(
    ("literal", "value"),
    [("true", True), ("false", False), ("nil", None), (":status/active", ":status/active")],
)
def test_booleans_nil_and_keywords(db: minigraf.Database, literal: str, value: object) -> None:
    back = roundtrip(db, literal)
    assert back == value and type(back) is type(value)
