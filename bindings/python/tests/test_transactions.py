"""Write transactions: context manager, commit, rollback, errors."""

from __future__ import annotations

import pytest

import minigraf

COUNT = "(query [:find (count ?e) :where [?e :n ?v]])"


def count(db: minigraf.Database) -> int:
    rows = db.query(COUNT).fetchall()
    return rows[0][0] if rows else 0


def test_commits_when_the_block_ends(db: minigraf.Database) -> None:
    with db.transaction() as tx:
        assert tx.execute("(transact [[:a :n 1]])") == {"ok": True}
        tx.execute("(transact [[:b :n 2]])")
        assert count(db) == 0  # staged: invisible to other readers
        assert tx.query(COUNT).fetchall() == [(2,)]  # but seen inside
    assert count(db) == 2
    assert db.tx_count == 1  # one commit, one counter value
    assert tx.ended and tx.closed  # the block's end also freed it


def test_rolls_back_when_the_block_raises(db: minigraf.Database) -> None:
    with pytest.raises(RuntimeError):
        with db.transaction() as tx:
            tx.execute("(transact [[:a :n 1]])")
            raise RuntimeError("boom")
    assert count(db) == 0 and db.tx_count == 0
    assert tx.ended and tx.closed


def test_explicit_commit_and_rollback(db: minigraf.Database) -> None:
    tx = db.begin_write()
    tx.execute("(transact [[:a :n 1]])")
    tx.rollback()
    with pytest.raises(minigraf.ApiError) as e:
        tx.execute("(transact [[:a :n 1]])")
    assert e.value.code == "API-018"
    assert tx.ended and not tx.closed  # ended, not yet freed
    tx.close()
    tx.close()  # again: nothing
    assert tx.closed
    with db.transaction() as tx:
        tx.execute("(transact [[:a :n 1]])")
        tx.commit()  # the block's end then does nothing more
    assert count(db) == 1


def test_one_transaction_per_thread(db: minigraf.Database) -> None:
    with db.transaction():
        with pytest.raises(minigraf.InternalError) as e:
            db.begin_write()
        assert e.value.code == "INT-003"
        with pytest.raises(minigraf.InternalError):
            db.execute("(transact [[:a :n 1]])")


def test_staged_errors_keep_the_transaction_open(db: minigraf.Database) -> None:
    with db.transaction() as tx:
        with pytest.raises(minigraf.ParseError):
            tx.execute("(transact [[:a]])")
        tx.execute("(transact [[:a :n 1]])")
    assert count(db) == 1


def test_read_only_cannot_begin(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "ro.graph"
    minigraf.open(path).close()
    with minigraf.open(path, read_only=True) as db:
        with pytest.raises(minigraf.ApiError) as e:
            db.begin_write()
        assert e.value.code == "API-014"


def test_a_transaction_left_open_is_rolled_back_by_close(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "open.graph"
    db = minigraf.open(path)
    tx = db.begin_write()
    tx.execute("(transact [[:a :n 1]])")
    db.close()
    with pytest.raises(minigraf.ApiError) as e:
        tx.commit()
    assert e.value.code == "API-018"
    with minigraf.open(path) as again:
        assert count(again) == 0
