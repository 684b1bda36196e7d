"""Databases, prepared queries and write transactions: the idiomatic layer
over :mod:`minigraf.capi` (SWIG) and ``minigraf._native`` (hand-written C:
typed rows, binds, host functions, Ctrl-C).

Rows are tuples of typed values (see :mod:`minigraf._values`); the
database handle is shared between threads with no lock of the package's:
queries from several threads run in parallel, each without the GIL.
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable, Dict, Iterable, Mapping, Optional, Tuple, Union
import uuid

from . import _native
from . import capi as _capi
from ._closing import HandleOwner
from ._errors import ApiError, HostFunctionError, closed_error
from ._log import FactLog, _filter_json

__all__ = ["Database", "Transaction", "Cursor", "PreparedQuery", "Row", "open", "open_in_memory"]

Cursor = _native.Cursor
PreparedQuery = _native.PreparedQuery

Row = Tuple[Any, ...]
"""One result row: a tuple with one value per ``:find`` element."""

RowFactory = Optional[Callable[[Any, Row], Any]]
StrPath = Union[str, "os.PathLike[str]"]


def _open_options() -> Tuple[str, ...]:
    described = json.loads(_capi.options_describe())
    return tuple(option["name"] for option in described if "open" in option["for"])


OPEN_OPTIONS: Tuple[str, ...] = _open_options()
"""The names of every option :func:`open` takes (``minigraf_options_describe``)."""


def open(
    path: StrPath,
    *,
    read_only: Optional[bool] = None,
    allow_unlocked: Optional[bool] = None,
    page_cache_size: Optional[int] = None,
    wal_checkpoint_threshold: Optional[int] = None,
    synchronous: Optional[str] = None,
    recover: Optional[str] = None,
    max_derived_facts: Optional[int] = None,
    max_results: Optional[int] = None,
    query_memory_limit: Optional[int] = None,
    busy_timeout_ms: Optional[int] = None,
    query_timeout_ms: Optional[int] = None,
    history_index: Optional[bool] = None,
    row_factory: RowFactory = None,
) -> Database:
    """Opens the database file at ``path``, creating it if missing.

    Every option is the library's open option of the same name (None: the
    library's default); see docs/python.md for each one's meaning:
    ``read_only``, ``allow_unlocked``, ``page_cache_size``,
    ``wal_checkpoint_threshold``, ``synchronous`` ("full" | "normal"),
    ``recover`` ("truncate_wal"), ``max_derived_facts``, ``max_results``,
    ``query_memory_limit``, ``busy_timeout_ms``, ``query_timeout_ms``,
    ``history_index``.
    ``row_factory`` sets :attr:`Database.row_factory`.

    Raises:
        ApiError: API-017 for an empty path (use :func:`open_in_memory`) or
            an invalid option value.
        StorageError: the file cannot be opened (locked: STG-026, not a
            database, a damaged write-ahead log: STG-045, ...).
    """
    given = {
        "read_only": read_only,
        "allow_unlocked": allow_unlocked,
        "page_cache_size": page_cache_size,
        "wal_checkpoint_threshold": wal_checkpoint_threshold,
        "synchronous": synchronous,
        "recover": recover,
        "max_derived_facts": max_derived_facts,
        "max_results": max_results,
        "query_memory_limit": query_memory_limit,
        "busy_timeout_ms": busy_timeout_ms,
        "query_timeout_ms": query_timeout_ms,
        "history_index": history_index,
    }
    options = {name: value for name, value in given.items() if value is not None}
    text_path = os.fsdecode(path)
    if not text_path:
        raise ApiError(
            "[API-017] the path is empty; use minigraf.open_in_memory() for a database in memory",
            "API-017",
            5017,
        )
    handle = _capi.open_with_options(text_path, json.dumps(options) if options else None)
    return Database(handle, text_path, row_factory)


def open_in_memory(*, row_factory: RowFactory = None) -> Database:
    """Opens a new, empty database that lives in memory only."""
    return Database(_capi.open_in_memory(), None, row_factory)


def _chain_callback_error(error: HostFunctionError) -> None:
    # The host function's own exception becomes the cause, as on the
    # minigraf._native paths (query, prepared queries).
    cause = _native.take_callback_error()
    if cause is not None:
        error.__cause__ = cause


def _release(handle: Any, progress: Any) -> None:
    # Closes first: the progress state must outlive every call on the handle.
    _capi.close(handle)
    del progress


class Database(HandleOwner):
    """An open minigraf database; create one with :func:`open` or
    :func:`open_in_memory`.

    Share it between threads freely: every call runs without the GIL, and
    queries from several threads run in parallel. Use it as a context
    manager, or call :meth:`close`; an unclosed database is closed when it
    is garbage-collected or at interpreter exit. Any call after
    :meth:`close` raises :class:`ApiError` API-018.

    Closing interrupts calls running on other threads (API-013) or lets
    them finish, then closes; an open write transaction is rolled back, and
    a file database is checkpointed. Open cursors stay readable.
    """

    row_factory: RowFactory
    """None (rows are tuples) or ``factory(cursor, row)``, e.g.
    :func:`minigraf.dict_row`; given to every cursor and prepared query
    made after it is set."""

    def __init__(self, handle: Any, path: Optional[str], row_factory: RowFactory = None) -> None:
        # Not for direct use: open() and open_in_memory() pass a live handle.
        self._handle = handle
        self._ptr: int = int(handle)
        self._progress = _native.progress_new(self._ptr)
        self._own(_release, handle, self._progress)
        self.row_factory = row_factory
        self.path = path
        """The file this database was opened from; None in memory."""

    def _live(self) -> Any:
        if not self._ptr:
            raise closed_error("database")
        return self._handle

    # ---- queries ------------------------------------------------------------

    def execute(self, text: str) -> Dict[str, Any]:
        """Runs one command and returns its result, decoded from the
        library's JSON (the earlier API; :meth:`query` gives typed rows).

        ``(transact ...)`` → ``{"transacted": <tx wall-clock ms>}``,
        ``(retract ...)`` → ``{"retracted": <ms>}``, ``(rule ...)`` →
        ``{"ok": True}``, ``(query ...)`` → ``{"variables": [...],
        "results": [[...], ...]}`` (keywords and entities as str, NaN and
        infinities as None).

        Raises:
            ParseError: the text is not one valid command.
            QueryError: the query failed while running.
            StorageError: the write could not be made durable.
            ApiError: misuse, e.g. a write on a read-only database
                (API-014), an interrupted call (API-013).
        """
        try:
            result = _capi.execute(self._live(), text)
        except HostFunctionError as e:
            _chain_callback_error(e)
            raise
        decoded: Dict[str, Any] = json.loads(result)
        return decoded

    def query(self, text: str, binds: Optional[Mapping[str, Any]] = None) -> Cursor:
        """Runs a ``(query ...)`` and returns a :class:`Cursor` over its
        typed rows. With ``binds``, the query is prepared and run with those
        bind values (as ``db.prepare(text).query(binds)``).

        The answer is fixed now; later writes do not change it. Other
        commands fail with :class:`ApiError` API-012.
        """
        if binds is None:
            return _native.query(self._ptr, text, self.row_factory)
        with self.prepare(text) as prepared:
            return prepared.query(binds)

    def prepare(self, text: str) -> PreparedQuery:
        """Parses and checks a ``(query ...)`` once, to run it many times
        with bind values for its ``$slots``.

        Raises:
            ParseError: the text is not valid.
            ApiError: API-005/006/007 for a transact/retract/rule; API-015
                for a slot in attribute position.
        """
        return _native.prepare(self._ptr, text, self.row_factory)

    # ---- transactions -------------------------------------------------------

    def begin_write(self) -> Transaction:
        """Begins a write transaction: its statements commit as one
        transaction (one counter value, one tx time), or not at all.

        Raises:
            ApiError: API-014 read-only; API-020 another thread's
                transaction stayed open past busy_timeout_ms.
            InternalError: INT-003 this thread has a transaction open.
        """
        return Transaction(self, _capi.begin_write(self._live()))

    def transaction(self) -> Transaction:
        """``with db.transaction() as tx:`` — a write transaction that
        commits when the block ends normally and rolls back when it raises."""
        return self.begin_write()

    # ---- host functions and cancellation -------------------------------------

    def register_predicate(self, name: str, fn: Optional[Callable[[Any], Any]]) -> None:
        """Makes ``fn(value) -> bool`` callable by later queries as
        ``[(name ?x)]`` (a filter) or ``[(name ?x) ?ok]``. ``fn`` None
        unregisters ``name``. ``fn`` runs on the thread running the query,
        holding the GIL only while it runs; an exception in it stops the
        query with :class:`ApiError` API-016 carrying its message.

        Raises:
            ApiError: API-021 the name is taken (a built-in or a host
                function); API-017 an empty name, or unregistering a name
                that is not registered.
        """
        _native.register_predicate(self._ptr, name, fn)

    def register_aggregate(
        self,
        name: str,
        init: Optional[Callable[[], Any]],
        step: Optional[Callable[[Any, Any], Any]],
        finish: Optional[Callable[[Any], Any]],
    ) -> None:
        """Makes an aggregate callable by later queries in ``:find`` as
        ``(name ?x)`` and as a window function ``(name ?x :over (...))``:
        ``init() -> acc``, ``step(acc, value) -> acc``, ``finish(acc) ->
        value``. As an aggregate, step sees each non-null value of a group
        (a group with none is None without any call); as a window, every
        row, None included, and finish is asked after each. All three None
        unregisters ``name``. Errors as :meth:`register_predicate`.
        """
        _native.register_aggregate(self._ptr, name, init, step, finish)

    def set_progress_handler(self, fn: Optional[Callable[[], Any]], every_n: int = 1000) -> None:
        """Calls ``fn()`` about every ``every_n`` units of work (records
        read, rows produced) of every later query, fetch and write on the
        thread running it. A true result stops that call with
        :class:`ApiError` API-013 ("interrupted by the progress handler");
        an exception stops it and is raised. ``fn`` None removes it."""
        _native.set_progress(self._progress_state(), fn, every_n)

    def interrupt(self) -> None:
        """Stops every call running on this database now (from any thread,
        e.g. a timer): each raises :class:`ApiError` API-013 within about
        10 ms; a stopped write has written nothing. Calls that begin later
        are not affected. Does nothing on a closed database."""
        if self._ptr:
            _native.interrupt(self._ptr)

    def _progress_state(self) -> Any:
        self._live()
        return self._progress

    # ---- the rest -----------------------------------------------------------

    @property
    def tx_count(self) -> int:
        """The transaction counter: 0 for a new database, +1 for each
        committed transact or retract (or write transaction). It is what
        ``:as-of N`` counts."""
        count: int = _capi.current_tx_count(self._live())
        return count

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
        - ``entities``: keep records of these entities (UUID strings,
          :class:`uuid.UUID` or :class:`Entity`);
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
        return FactLog(_capi.fact_log(self._live(), text), batch_size)

    def export(
        self,
        path: StrPath,
        *,
        synchronous: Optional[str] = None,
        page_cache_size: Optional[int] = None,
        wal_checkpoint_threshold: Optional[int] = None,
        history_index: Optional[bool] = None,
    ) -> None:
        """Copies the whole database, history included, into a new database
        file at ``path`` (``minigraf_export``): one snapshot's records in
        commit order, and the same transaction counter, so the copy answers
        every query as this database does, ``:as-of`` included. Works in
        memory and read-only too. The options are the new file's
        (``synchronous`` defaults to "normal"; the copy is synced when
        complete).

        Raises:
            StorageError: STG-043 if ``path`` or ``<path>.wal`` exists
                (nothing is touched), or the file cannot be written (the
                partial copy is deleted).
        """
        given = {
            "synchronous": synchronous,
            "page_cache_size": page_cache_size,
            "wal_checkpoint_threshold": wal_checkpoint_threshold,
            "history_index": history_index,
        }
        options = {name: value for name, value in given.items() if value is not None}
        _capi.export(self._live(), os.fsdecode(path), json.dumps(options) if options else None)

    def checkpoint(self) -> None:
        """Writes every committed transaction into the main file and empties
        the write-ahead log. Does nothing in memory."""
        _capi.checkpoint(self._live())

    def _forget(self) -> None:
        self._ptr = 0

    def __repr__(self) -> str:
        where = "in memory" if self.path is None else repr(self.path)
        state = "closed" if self.closed else "open"
        return f"<minigraf.Database {where} {state}>"


class Transaction(HandleOwner):
    """A write transaction; create one with :meth:`Database.transaction`
    (a context manager) or :meth:`Database.begin_write`.

    Its statements are staged and become visible to other readers only at
    :meth:`commit`, all at once. Queries inside it (:meth:`execute` of a
    query, :meth:`query`) see the committed data plus what it staged.
    After commit or rollback every call raises :class:`ApiError` API-018.
    Left open (neither committed nor rolled back) it is rolled back when
    closed, garbage-collected or its database closes. As a context manager
    it commits when the block ends normally and rolls back on an exception.
    """

    def __init__(self, db: Database, handle: Any) -> None:
        # Not for direct use: Database.begin_write() passes a live handle.
        self._db = db
        self._handle = handle
        self._ended = False
        self._own(_capi.tx_free, handle)

    def execute(self, text: str) -> Dict[str, Any]:
        """Runs one command inside the transaction: a transact or retract is
        checked and staged (``{"ok": True}``); a query answers as
        :meth:`Database.execute` does; a rule registers at once."""
        try:
            result = _capi.tx_execute(self._handle, text)
        except HostFunctionError as e:
            _chain_callback_error(e)
            raise
        decoded: Dict[str, Any] = json.loads(result)
        return decoded

    def query(self, text: str) -> Cursor:
        """A :class:`Cursor` over a query's typed rows, on the committed data
        plus the staged statements; it outlives the transaction."""
        try:
            handle = _capi.tx_query(self._handle, text)
        except HostFunctionError as e:
            _chain_callback_error(e)
            raise
        return _native.wrap_cursor(int(handle), self._db.row_factory)

    def commit(self) -> None:
        """Commits every staged statement as one transaction. Success or
        failure, the transaction has ended afterwards (on failure nothing
        was written)."""
        try:
            _capi.tx_commit(self._handle)
        finally:
            self._ended = True

    def rollback(self) -> None:
        """Discards the staged statements and ends the transaction."""
        try:
            _capi.tx_rollback(self._handle)
        finally:
            self._ended = True

    @property
    def ended(self) -> bool:
        """True once :meth:`commit` or :meth:`rollback` was called."""
        return self._ended

    def _forget(self) -> None:
        self._ended = True

    def _leave(self, ok: bool) -> None:
        if self._ended:
            return
        if ok:
            self.commit()
        else:
            self.rollback()

    def __repr__(self) -> str:
        return f"<minigraf.Transaction {'ended' if self._ended else 'open'}>"
