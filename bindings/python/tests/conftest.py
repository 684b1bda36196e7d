"""Fixtures for the minigraf package tests.

These tests run against the INSTALLED package (pip install bindings/python),
never against the source tree: nothing here puts src/ on sys.path.
"""

from __future__ import annotations

from typing import Iterator

import pytest

import minigraf

PEOPLE = """(transact [[:alice :person/name "Alice"] [:alice :person/age 30]
                      [:bob :person/name "Bob"] [:bob :person/age 25]
                      [:alice :friend :bob]])"""


@pytest.fixture
def db() -> Iterator[minigraf.Database]:
    with minigraf.open_in_memory() as database:
        yield database


@pytest.fixture
def people(db: minigraf.Database) -> minigraf.Database:
    db.execute(PEOPLE)
    return db
