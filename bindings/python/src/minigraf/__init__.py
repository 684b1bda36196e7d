"""minigraf: an embedded, single-file, bi-temporal graph database with a
Datalog query language.

    import minigraf

    with minigraf.open("people.graph") as db:
        db.execute('(transact [[:alice :person/name "Alice"]])')
        for row in db.query("(query [:find ?n :where [?e :person/name ?n]])"):
            print(row)                       # ('Alice',)

Rows are tuples of typed values (str, int, float, bool, None,
:class:`Keyword`, :class:`Entity`); :meth:`Database.prepare` runs a query
many times with bind values; :meth:`Database.transaction` groups writes;
:meth:`Database.register_predicate` / :meth:`Database.register_aggregate`
add host functions written in Python. See docs/python.md.

:meth:`Database.fact_log` streams every stored fact version as records;
:class:`LogWriter` builds a new database file from records, and
:meth:`Database.export` copies a whole database with the two.

Errors are :class:`minigraf.Error` subclasses carrying the spec code
(``e.code == "PRS-011"``). :mod:`minigraf.capi` is the raw C API underneath.
"""

from . import capi as _capi

if _capi.abi_version() != _capi.MINIGRAF_ABI_VERSION:
    raise ImportError(
        f"minigraf: the loaded libminigraf has ABI {_capi.abi_version()}, "
        f"but this package was built for ABI {_capi.MINIGRAF_ABI_VERSION}"
    )

from ._values import (  # noqa: E402
    ANY_VALID_TIME,
    Entity,
    Keyword,
    Timestamp,
    TxCount,
    dict_row,
)
from ._database import (  # noqa: E402
    OPEN_OPTIONS,
    Cursor,
    Database,
    PreparedQuery,
    Row,
    Transaction,
    open,
    open_in_memory,
)
from ._log import FactLog, LogWriter, Record  # noqa: E402
from ._errors import (  # noqa: E402
    ApiError,
    Error,
    HostFunctionError,
    InternalError,
    ParseError,
    QueryError,
    StorageError,
)

__version__: str = _capi.MINIGRAF_VERSION
"""The version of minigraf this package was built from, e.g. "0.2.0"."""


# Shown as minigraf.ParseError, not minigraf._errors.ParseError.
for _public in (
    Database,
    Transaction,
    FactLog,
    LogWriter,
    Keyword,
    TxCount,
    Timestamp,
    Error,
    HostFunctionError,
    ParseError,
    QueryError,
    StorageError,
    ApiError,
    InternalError,
):
    _public.__module__ = __name__
del _public


def library_version() -> str:
    """The version of the C library actually loaded, e.g. "0.2.0"."""
    return _capi.version()


__all__ = [
    "ANY_VALID_TIME",
    "ApiError",
    "Cursor",
    "Entity",
    "Keyword",
    "OPEN_OPTIONS",
    "PreparedQuery",
    "Timestamp",
    "Transaction",
    "TxCount",
    "dict_row",
    "Database",
    "Error",
    "FactLog",
    "HostFunctionError",
    "InternalError",
    "LogWriter",
    "ParseError",
    "QueryError",
    "Record",
    "Row",
    "StorageError",
    "library_version",
    "open",
    "open_in_memory",
]
