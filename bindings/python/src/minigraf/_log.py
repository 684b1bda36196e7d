"""The fact log and the log writer: every stored fact version as records,
and a new database file built from records.

A record is a dict, exactly the library's JSON record::

    {"entity": "<uuid>", "attribute": ":person/age",
     "value": {"type": "integer", "value": 30},
     "tx_count": 1, "tx_id": 1717000000123,
     "valid_from": 1717000000123, "valid_to": 9223372036854775807,
     "asserted": True}

``value`` is typed, so a record round trips losslessly: its ``type`` is one
of ``"string" "integer" "float" "boolean" "ref" "keyword" "null"``; a
non-finite float's value is the string ``"NaN"``, ``"Infinity"`` or
``"-Infinity"``.
"""

from __future__ import annotations

import json
import math
import os
import threading
import uuid
from typing import Any, Dict, Iterable, Mapping, Optional, Union

from . import _native
from . import capi as _capi
from ._batches import BatchReader
from ._closing import HandleOwner
from ._errors import closed_error

__all__ = ["FactLog", "LogWriter", "Record"]

Record = Dict[str, Any]
"""One fact record: a dict shaped like the library's JSON record."""

StrPath = Union[str, "os.PathLike[str]"]

_LIST_KEYS = ("attributes", "attribute_prefixes", "entities")


def _dumps(value: Any) -> str:
    # Raw UTF-8 (no \u escapes), compact, exact integers; NaN is refused
    # (records spell it "NaN", see _encode_record).
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _filter_json(filter: Optional[Mapping[str, Any]], keywords: Mapping[str, Any]) -> Optional[str]:
    """The filter object for minigraf_fact_log: ``filter`` merged with the
    keyword arguments that are not None (a key given both ways is a
    TypeError). Lists may be any iterable; entities may be uuid.UUIDs; a
    window may be a (from, to) pair with None for an open bound."""
    merged: Dict[str, Any] = dict(filter) if filter is not None else {}
    for key, value in keywords.items():
        if value is None:
            continue
        if key in merged:
            raise TypeError(f"fact_log() got '{key}' both in the filter and as a keyword")
        merged[key] = value
    for key in _LIST_KEYS:
        items: Any = merged.get(key)
        if hasattr(items, "__iter__") and not isinstance(items, (str, bytes, Mapping)):
            merged[key] = [
                str(item) if isinstance(item, (uuid.UUID, _native.Entity)) else item
                for item in items
            ]
    window = merged.get("window")
    if isinstance(window, (tuple, list)) and len(window) == 2:
        start, end = window
        merged["window"] = {
            name: bound for name, bound in (("from", start), ("to", end)) if bound is not None
        }
    return _dumps(merged) if merged else None


def _encode_value(typed: Any) -> Any:
    """A typed value ready for JSON: a non-finite float becomes its string."""
    if isinstance(typed, Mapping):
        inner = typed.get("value")
        if isinstance(inner, float) and not math.isfinite(inner):
            text = "NaN" if math.isnan(inner) else "Infinity" if inner > 0 else "-Infinity"
            typed = dict(typed)
            typed["value"] = text
    return typed


def _encode_record(record: Union[Mapping[str, Any], str]) -> str:
    if isinstance(record, str):
        return record
    if not isinstance(record, Mapping):
        raise TypeError(f"a record must be a mapping or a JSON str, not {type(record).__name__}")
    value = record.get("value")
    encoded = _encode_value(value)
    if encoded is not value:
        record = dict(record)
        record["value"] = encoded
    return _dumps(record)


def _encode_records(records: Union[Iterable[Union[Mapping[str, Any], str]], str]) -> str:
    if isinstance(records, str):
        return records
    if isinstance(records, Mapping):
        raise TypeError("append_batch() takes an iterable of records, not one record")
    return "[" + ",".join(_encode_record(record) for record in records) + "]"


class FactLog(BatchReader[Record]):
    """The fact records of a database as it stood when the log was opened,
    read from the library in batches; create one with
    :meth:`Database.fact_log`.

    Iterate it (``for record in log``) or call :meth:`fetch_batch`; both
    read the same records, in order. Unlike a cursor, a log reads from its
    database: once the database is closed, reading raises
    :class:`ApiError` API-018. Close it (or use it as a context manager) to
    free it promptly; an unclosed log is freed when it is
    garbage-collected. One thread at a time uses a log: a second thread
    waits for the first one's call to finish.
    """

    batch_size: int
    """How many records iteration asks the library for at a time."""

    def __init__(self, handle: Any, batch_size: int = 1000) -> None:
        # Not for direct use: Database.fact_log() passes a live handle.
        if batch_size < 1:
            _capi.fact_log_free(handle)
            raise ValueError(f"batch size must be at least 1, got {batch_size}")
        super().__init__(
            handle,
            what="fact log",
            next_batch=_capi.fact_log_next_batch,
            free=_capi.fact_log_free,
        )
        self.batch_size = batch_size

    def _next_json(self, size: int) -> Optional[str]:
        # The next batch as the library's JSON array text, None at the end
        # (Database.export passes it on undecoded). Not mixed with iteration.
        with self._lock:
            return self._fetch_json(size)

    def __repr__(self) -> str:
        return f"<minigraf.FactLog {'closed' if self.closed else 'open'}>"


class LogWriter(HandleOwner):
    """Builds a new database file from fact records.

    The records of a fact log, appended in its ``"tx"`` order, rebuild a
    database that answers every query identically, including ``:as-of``
    and the transaction counter (see :meth:`Database.export`)::

        with minigraf.LogWriter("copy.graph") as writer:
            for record in db.fact_log():
                writer.append(record)
            writer.advance_tx_count(db.tx_count)
        # leaving the block normally finished the file

    Records must come in non-decreasing ``tx_count`` order, at or above the
    writer's counter; records with the same ``tx_count`` form one
    transaction (even across calls).

    :meth:`close` frees the writer; an unfinished writer is abandoned then:
    the partial file and its WAL are deleted. As a context manager: leaving
    the ``with`` block normally calls :meth:`finish` (unless the writer was
    already finished or closed), then :meth:`close`; leaving it with an
    exception only closes, which abandons the unfinished file. A writer
    that is garbage-collected unfinished is abandoned too. One thread at a time
    uses a writer: a second thread waits for the first one's call.

    Args:
        path: the new database file; it must not exist
            (:class:`StorageError` STG-043).
        synchronous: ``"full"`` or ``"normal"``, as for opening a database
            (the library's default is ``"full"``).
        page_cache_size: pages of 4096 bytes in the page cache.
        history_index: make the file with the history index (the open
            option of that name).

    Raises:
        minigraf.Error: the file cannot be created or an option is invalid
            (:class:`ApiError` API-017).
    """

    def __init__(
        self,
        path: StrPath,
        *,
        synchronous: Optional[str] = None,
        page_cache_size: Optional[int] = None,
        history_index: Optional[bool] = None,
    ) -> None:
        options: Dict[str, Any] = {}
        if synchronous is not None:
            options["synchronous"] = synchronous
        if page_cache_size is not None:
            options["page_cache_size"] = page_cache_size
        if history_index is not None:
            options["history_index"] = history_index
        self.path: str = os.fsdecode(path)
        """The file being written."""
        handle = _capi.log_writer_create(self.path, _dumps(options) if options else None)
        self._handle: Any = handle
        self._own(_capi.log_writer_free, handle)
        self._lock = threading.Lock()
        self._finished = False

    def _call(self, function: Any, *args: Any) -> Any:
        with self._lock:
            if self._handle is None:
                raise closed_error("log writer")
            return function(self._handle, *args)

    def append(self, record: Union[Mapping[str, Any], str]) -> None:
        """Appends one record: a dict as a :class:`FactLog` yields it (a
        float value may also be ``float("nan")`` or an infinity), or its
        JSON text.

        Raises:
            ApiError: API-017 for a malformed record, a tx_count below the
                writer's counter or an empty valid window; API-018 after
                :meth:`finish` or :meth:`close`.
        """
        self._call(_capi.log_writer_append, _encode_record(record))

    def append_batch(self, records: Union[Iterable[Union[Mapping[str, Any], str]], str]) -> None:
        """Appends records (an iterable of records, or a JSON array as
        text), all or nothing: on error none of them was appended."""
        self._call(_capi.log_writer_append_batch, _encode_records(records))

    def advance_tx_count(self, tx_count: int) -> None:
        """Raises the transaction counter to ``tx_count`` with empty
        transactions, so the copy's counter matches its source's (empty
        transacts and no-op retractions leave no records). A value below
        the current counter raises :class:`ApiError` API-017."""
        if tx_count < 0:
            raise ValueError(f"tx_count must not be negative, got {tx_count}")
        self._call(_capi.log_writer_advance_tx_count, tx_count)

    @property
    def tx_count(self) -> int:
        """The writer's transaction counter so far."""
        count: int = self._call(_capi.log_writer_tx_count)
        return count

    def finish(self) -> None:
        """Commits everything, checkpoints and closes the file, which is
        then a complete database. The writer can then only be closed; a
        second finish raises :class:`ApiError` API-018."""
        self._call(_capi.log_writer_finish)
        self._finished = True

    @property
    def finished(self) -> bool:
        """True once :meth:`finish` succeeded."""
        return self._finished

    def _forget(self) -> None:
        with self._lock:
            self._handle = None

    def _leave(self, ok: bool) -> None:
        if ok and not self._finished and not self.closed:
            self.finish()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "finished" if self._finished else "open"
        return f"<minigraf.LogWriter {self.path!r} {state}>"
