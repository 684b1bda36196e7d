"""The value types of rows and binds.

========================  ==========================  =====================
minigraf value            Python (rows and binds)     note
========================  ==========================  =====================
string                    ``str``
integer (64-bit)          ``int``                     exact; binds beyond
                                                      64 bits raise
                                                      OverflowError
float                     ``float``                   NaN and ±inf kept
boolean                   ``bool``
keyword                   :class:`Keyword`            a ``str``: ``":a"``
entity (ref)              :class:`Entity`             wraps ``uuid.UUID``;
                                                      binds also take a
                                                      ``uuid.UUID``
null                      ``None``
collect-set answer        ``list`` of these values    rows only
========================  ==========================  =====================

Binds only: :class:`TxCount` and :class:`Timestamp` for ``:as-of $t``,
:class:`Timestamp` and :data:`ANY_VALID_TIME` for ``:valid-at $t``.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import uuid
from typing import Any, Dict, List, Sequence, Union

from . import _native
from ._errors import from_native

__all__ = [
    "ANY_VALID_TIME",
    "Entity",
    "Keyword",
    "Timestamp",
    "TxCount",
    "dict_row",
]

Entity = _native.Entity


class Keyword(str):
    """A keyword value, e.g. ``Keyword(":person/name")``: a ``str`` whose
    text is the keyword with its colon, so ``Keyword(":a") == ":a"``; but a
    row tells it apart from the string ``":a"`` by its type, and a bind of
    a Keyword matches the keyword (and the entity it names), not the
    string."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Keyword({str.__repr__(self)})"


class TxCount(int):
    """A transaction counter for ``:as-of $t``: ``TxCount(3)`` is the
    database after its third commit (``Database.tx_count`` counts them)."""

    __slots__ = ()

    def __new__(cls, count: int) -> "TxCount":
        if count < 0:
            raise ValueError(f"a transaction count is never negative, got {count}")
        return super().__new__(cls, count)

    def __repr__(self) -> str:
        return f"TxCount({int(self)})"


_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


class Timestamp(int):
    """A wall-clock instant for ``:as-of $t`` or ``:valid-at $t``:
    milliseconds since the Unix epoch (UTC), or a ``datetime`` (a naive
    one is taken as UTC)."""

    __slots__ = ()

    def __new__(cls, when: Union[int, _dt.datetime]) -> "Timestamp":
        if isinstance(when, _dt.datetime):
            if when.tzinfo is None:
                when = when.replace(tzinfo=_dt.timezone.utc)
            delta = when - _EPOCH
            ms = delta.days * 86_400_000 + delta.seconds * 1000 + delta.microseconds // 1000
            return super().__new__(cls, ms)
        if isinstance(when, bool) or not isinstance(when, int):
            raise TypeError(f"Timestamp takes ms (int) or a datetime, not {type(when).__name__}")
        return super().__new__(cls, when)

    def datetime(self) -> _dt.datetime:
        """The instant as an aware UTC ``datetime``."""
        return _EPOCH + _dt.timedelta(milliseconds=int(self))

    def __repr__(self) -> str:
        return f"Timestamp({int(self)})"


class _AnyValidTime:
    """The type of :data:`ANY_VALID_TIME`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "minigraf.ANY_VALID_TIME"

    def __reduce__(self) -> str:
        return "ANY_VALID_TIME"


ANY_VALID_TIME = _AnyValidTime()
"""Bound to ``:valid-at $t``: every fact version, whatever its valid time
(as ``:valid-at :any-valid-time``)."""

_NON_FINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def from_typed(typed: Dict[str, Any]) -> Any:
    """The Python value of the library's typed form ``{"type": T, "value": V}``."""
    kind, value = typed["type"], typed.get("value")
    if kind == "keyword":
        return Keyword(value)
    if kind == "ref":
        return Entity(value)
    if kind == "float":
        return _NON_FINITE[value] if isinstance(value, str) else float(value)
    if kind == "list":
        return [from_typed(item) for item in value]
    return value


def _typed_list(text: str) -> List[Any]:
    # A collect-set column: the typed JSON of its items.
    return [from_typed(item) for item in json.loads(text)]


def dict_row(cursor: Any, row: Sequence[Any]) -> Dict[str, Any]:
    """A row factory: each row as a dict from column header to value,
    ``{"?name": "Alice", "?age": 30}``. Use as ``db.row_factory =
    minigraf.dict_row`` (or on one cursor or prepared query)."""
    return dict(zip(cursor.columns, row))


_native.set_types(Keyword, TxCount, Timestamp, ANY_VALID_TIME, uuid.UUID, from_native, _typed_list)
