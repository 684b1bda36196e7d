"""Fixtures for the minigraf package tests.

These tests run against the INSTALLED package (pip install bindings/python),
never against the source tree: nothing here puts src/ on sys.path.
"""

from __future__ import annotations

import signal
from typing import Iterator

import pytest

import minigraf

# A shell that starts a job in the background (`scripts/test.sh &`, nohup)
# without job control hands it SIGINT ignored, and Python then installs no
# KeyboardInterrupt handler: a Ctrl-C (test_cancel's os.kill) is dropped by
# the kernel and never reaches the package. Give the tests the handler an
# interactive Python has, before the first open chains the package's
# SIGINT watcher in front of it (progress.c).
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

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
