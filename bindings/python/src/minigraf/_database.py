"""Databases and cursors: the idiomatic layer over :mod:`minigraf.capi`.

Values in results are decoded from the library's JSON: strings, exact
integers (all 64 bits), floats (NaN and infinities arrive as None),
booleans, keywords as ``":ns/name"`` strings, entity ids as UUID strings,
and None.
"""

from __future__ import annotations

import json
import os
import threading
import uuid
import weakref
from types import TracebackType
from typing import Any, Callable, Iterable, List, Mapping, Optional, Tuple, Union

from . import capi as _capi
from ._errors import closed_error
from ._batches import BatchReader
from ._log import FactLog, LogWriter, _filter_json

__all__ = ["Database", "Cursor", "Row", "open", "open_in_memory"]

Row = List[Any]
"""One result row: a list with one value per ``:find`` element."""

StrPath = Union[str, "os.PathLike[str]"]


def open(
    path: StrPath,
    *,
    read_only: bool = False,
    max_derived_facts: Optional[int] = None,
    max_results: Optional[int] = None,
) -> Database:
    """Opens the database file at ``path``, creating it if missing.

    Args:
        path: the database file (``.graph``); its write-ahead log lives
            beside it as ``<path>.wal``.
        read_only: open for reading only; writes then fail with
            :class:`ApiError` API-014.
        max_derived_facts: the most facts rules may derive in one query
            (the library's default is 1,000,000).
        max_results: the most rows one query may return (default 1,000,000).

    Raises:
        minigraf.Error: the file cannot be opened (for example
            :class:`StorageError` when it is locked or not a database) or an
            option is invalid (:class:`ApiError` API-017).
    """
    options: dict[str, Any] = {}
    if read_only:
        options["read_only"] = True
    if max_derived_facts is not None:
        options["max_derived_facts"] = max_derived_facts
    if max_results is not None:
        options["max_results"] = max_results
    text_path = os.fsdecode(path)
    handle = _capi.open_with_options(text_path, json.dumps(options) if options else None)
    return Database(handle, text_path)


def open_in_memory() -> Database:
    """Opens a new, empty database that lives in memory only."""
    return Database(_capi.open_in_memory(), None)


class _SharedHandle:
    """A native database handle that threads may call at once.

    ``with shared as handle:`` yields the handle for one call and counts the
    call; :meth:`close` stops new calls, waits for the running ones, then
    frees the handle. So a thread closing the database never frees it under
    another thread's feet. If the owner is garbage-collected unclosed, the
    handle is freed then (or at interpreter exit).
    """

    def __init__(self, owner: object, handle: Any, free: Callable[[Any], None], what: str) -> None:
        self._handle = handle
        self._what = what
        self._calls = 0
        self._idle = threading.Condition(threading.Lock())
        self._finalizer = weakref.finalize(owner, free, handle)

    @property
    def closed(self) -> bool:
        return self._handle is None

    def __enter__(self) -> Any:
        with self._idle:
            if self._handle is None:
                raise closed_error(self._what)
            self._calls += 1
            return self._handle

    def __exit__(self, *exc_info: object) -> None:
        with self._idle:
            self._calls -= 1
            if self._calls == 0:
                self._idle.notify_all()

    def close(self) -> None:
        with self._idle:
            self._handle = None
            while self._calls:
                self._idle.wait()
        self._finalizer()  # frees the handle the first time only


class Database:
    """An open minigraf database; create one with :func:`open` or
    :func:`open_in_memory`.

    A database may be shared between threads: calls run without the GIL,
    and the library serialises them. Use it as a context manager, or call
    :meth:`close`, to close it promptly; an unclosed database is closed when
    it is garbage-collected. Any call after :meth:`close` raises
    :class:`ApiError` API-018.
    """

    def __init__(self, handle: Any, path: Optional[str]) -> None:
        # Not for direct use: open() and open_in_memory() pass a live handle.
        self._handle = _SharedHandle(self, handle, _capi.close, "database")
        self.path = path
        """The file this database was opened from; None in memory."""

    def execute(self, text: str) -> dict[str, Any]:
        """Runs one command and returns its result.

        ``(transact ...)`` → ``{"transacted": <tx wall-clock ms>}``,
        ``(retract ...)`` → ``{"retracted": <ms>}``, ``(rule ...)`` →
        ``{"ok": True}``, ``(query ...)`` → ``{"variables": [...],
        "results": [[...], ...]}``.

        Raises:
            ParseError: the text is not one valid command.
            QueryError: the query failed while running.
            StorageError: the write could not be made durable.
            ApiError: misuse, e.g. a write on a read-only database.
        """
        with self._handle as handle:
            result = _capi.execute(handle, text)
        decoded: dict[str, Any] = json.loads(result)
        return decoded

    def query(self, text: str) -> Cursor:
        """Runs a ``(query ...)`` and returns a :class:`Cursor` over its rows.

        The answer is fixed now; later writes do not change it. Other
        commands fail with :class:`ApiError` API-012.
        """
        with self._handle as handle:
            cursor = _capi.query(handle, text)
        return Cursor(cursor)

    @property
    def tx_count(self) -> int:
        """The transaction counter: 0 for a new database, +1 for each
        committed transact or retract. It is what ``:as-of N`` counts."""
        with self._handle as handle:
            return _capi.current_tx_count(handle)

    def fact_log(
        self,
        filter: Optional[Mapping[str, Any]] = None,
        *,
        order: Optional[str] = None,
        batch_size: int = 1000,
        attributes: Optional[Iterable[str]] = None,
        attribute_prefixes: Optional[Iterable[str]] = None,
        entities: Optional[Iterable[Union[str, uuid.UUID]]] = None,
        tx_from: Optional[int] = None,
        tx_to: Optional[int] = None,
        window: Optional[Union[Mapping[str, int], Tuple[Optional[int], Optional[int]]]] = None,
    ) -> FactLog:
        """Opens a :class:`FactLog` over every stored fact version (each
        assertion and retraction) as records, as the database stands now:
        later commits are not seen.

        The filter is the library's filter object, given as ``filter`` (a
        mapping of the keys below), as keyword arguments, or both (a key
        given both ways is a TypeError; None means "not given"):

        - ``attributes``: keep records whose attribute is one of these
          keywords (``":person/name"``, with the colon);
        - ``attribute_prefixes``: ... or starts with one of these texts (a
          record passes if it matches either list);
        - ``entities``: keep records of these entities (UUID strings or
          :class:`uuid.UUID`);
        - ``tx_from``, ``tx_to``: keep ``tx_from <= tx_count <= tx_to``;
        - ``window``: ``{"from": ms, "to": ms}`` or a ``(from, to)`` pair:
          keep records whose valid window ``[valid_from, valid_to)``
          overlaps ``[from, to)``; a bound may be omitted (or None);
        - ``order``: ``"tx"`` (the default: commit order, statement order
          within a transaction) or ``"storage"`` (entity, attribute, value,
          tx: the cheapest to produce).

        ``batch_size`` is how many records iteration reads at a time.

        Raises:
            ApiError: API-017 for an unknown key, a wrong type or a bad
                ``order``.
        """
        text = _filter_json(
            filter,
            {
                "attributes": attributes,
                "attribute_prefixes": attribute_prefixes,
                "entities": entities,
                "tx_from": tx_from,
                "tx_to": tx_to,
                "window": window,
                "order": order,
            },
        )
        if batch_size < 1:
            raise ValueError(f"batch size must be at least 1, got {batch_size}")
        with self._handle as handle:
            log = _capi.fact_log(handle, text)
        return FactLog(log, batch_size)

    def export(self, path: StrPath) -> None:
        """Copies the whole database, history included, into a new database
        file at ``path``, which must not exist: the fact log in ``"tx"``
        order goes through a :class:`LogWriter`, whose counter is then
        advanced to :attr:`tx_count`. The copy answers every query as this
        database does, ``:as-of`` included. Works in memory and read-only
        too. On an error the partial copy is deleted; an existing file at
        ``path`` is never touched.

        Raises:
            StorageError: STG-043 if ``path`` exists, or the file cannot be
                written.
        """
        with LogWriter(path) as writer:
            while True:
                # The counter read before and after opening the log brackets
                # its snapshot: equal, no commit came in between.
                count = self.tx_count
                log = self.fact_log(order="tx")
                if self.tx_count == count:
                    break
                log.close()
            with log:
                while True:
                    batch = log._next_json(1000)
                    if batch is None:
                        break
                    writer.append_batch(batch)
            writer.advance_tx_count(count)

    def checkpoint(self) -> None:
        """Writes every committed transaction into the main file and empties
        the write-ahead log. Does nothing in memory."""
        with self._handle as handle:
            _capi.checkpoint(handle)

    def close(self) -> None:
        """Closes the database, after any calls still running on other
        threads. Checkpoints a file database. Calling it again does nothing.
        Open cursors stay readable."""
        self._handle.close()

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return self._handle.closed

    def __enter__(self) -> Database:
        return self

    def __exit__(
        self,
        exc_type: Optional[type[BaseException]],
        exc: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        where = "in memory" if self.path is None else repr(self.path)
        state = "closed" if self.closed else "open"
        return f"<minigraf.Database {where} {state}>"


class Cursor(BatchReader[Row]):
    """The rows of one query, read from the library in batches.

    Iterate it (``for row in cursor``) or call :meth:`fetch_batch`; both
    read the same rows, in order. :attr:`variables` names the columns.

    A cursor stays readable after its database closes. Close it (or use it
    as a context manager) to free it promptly; an unclosed cursor is freed
    when it is garbage-collected. One thread at a time uses a cursor: a
    second thread waits for the first one's call to finish.
    """

    batch_size: int = 1000
    """How many rows iteration asks the library for at a time."""

    variables: List[str]
    """The ``:find`` headers, e.g. ``["?name", "(count ?e)"]``."""

    def __init__(self, handle: Any) -> None:
        # Not for direct use: Database.query() passes a live cursor handle.
        super().__init__(
            handle, what="cursor", next_batch=_capi.cursor_next_batch, free=_capi.cursor_free
        )
        self.variables = json.loads(_capi.cursor_vars(handle))

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"<minigraf.Cursor {self.variables!r} {state}>"
