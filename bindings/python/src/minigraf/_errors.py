"""The exceptions minigraf raises, one class per error family.

Every error the C library reports has a spec code such as ``"PRS-011"``,
a numeric form (family * 1000 + number, here 1011) and a message that
starts with ``"[PRS-011] "``. :class:`Error` carries all three; its
subclasses name the family, so callers can catch broadly or narrowly::

    try:
        db.execute(text)
    except minigraf.ParseError as e:
        print(e.code, e)        # PRS-011 [PRS-011] Unknown command: ...
"""

from __future__ import annotations

import re

__all__ = [
    "Error",
    "ParseError",
    "QueryError",
    "StorageError",
    "ApiError",
    "InternalError",
    "HostFunctionError",
]


class Error(Exception):
    """Base class of every error minigraf reports.

    Attributes:
        code: the spec code, e.g. ``"PRS-011"`` (None only if the library
            failed without saying why, which it is not meant to do).
        errno: the numeric code, e.g. ``1011`` (0 when ``code`` is None).
        message: the library's text, ``"[PRS-011] ..."``; also ``str(e)``.
    """

    code: str | None
    errno: int
    message: str

    def __init__(self, message: str, code: str | None = None, errno: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.errno = errno


class ParseError(Error):
    """The text is not a valid command (PRS family)."""


class QueryError(Error):
    """A query or rule failed while running (QRY family)."""


class StorageError(Error):
    """The database file or its write-ahead log failed (STG and WAL families)."""


class ApiError(Error):
    """The API was misused: bad argument, closed object, read-only (API family)."""


class InternalError(Error):
    """Any other engine error (INT family)."""


class HostFunctionError(QueryError, ApiError):
    """A host function (a predicate or aggregate written in Python) raised:
    code API-016, message ``"[API-016] predicate 'name' failed: <text of
    the exception>"``. Both a :class:`QueryError` (the query failed while
    running) and an :class:`ApiError` (its code's family)."""


_FAMILIES: dict[str, tuple[int, type[Error]]] = {
    "PRS": (1, ParseError),
    "QRY": (2, QueryError),
    "STG": (3, StorageError),
    "WAL": (4, StorageError),
    "API": (5, ApiError),
    "INT": (6, InternalError),
}
_NAMES_BY_FAMILY = {number: name for name, (number, _) in _FAMILIES.items()}
_CODE_PREFIX = re.compile(r"\[([A-Z]{3})-(\d{3})\]")


def from_native(errno: int, message: str | None) -> Error:
    """Builds the exception for a failed C call.

    Called by the C glue (swig/minigraf_python.i) with the handle's numeric
    code and message; ``errno`` is 0 when only the message is known (the
    ``error_out`` of ``minigraf_open_with_options``), and then the code is
    read from the message's ``[CODE]`` prefix.
    """
    text = message or ""
    if errno == 0:
        match = _CODE_PREFIX.match(text)
        if match and match.group(1) in _FAMILIES:
            errno = _FAMILIES[match.group(1)][0] * 1000 + int(match.group(2))
    family = _NAMES_BY_FAMILY.get(errno // 1000)
    if family is None:
        return Error(text or "minigraf call failed without an error code", None, errno)
    code = f"{family}-{errno % 1000:03d}"
    if not text:
        text = f"[{code}]"
    if code == "API-016":
        return HostFunctionError(text, code, errno)
    return _FAMILIES[family][1](text, code, errno)


def closed_error(what: str) -> ApiError:
    """The API-018 error for using ``what`` after it was closed.

    Raised by the Python layer itself: the C handle is gone, so there is
    nothing to ask.
    """
    return ApiError(f"[API-018] {what} is closed", "API-018", 5018)
