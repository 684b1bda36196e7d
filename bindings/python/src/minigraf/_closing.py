"""How every object that owns a library handle closes: :class:`Database`,
:class:`Transaction`, :class:`LogWriter` and the batch readers
(:class:`FactLog`).

The handle is freed exactly once: by :meth:`~HandleOwner.close`, by leaving
a ``with`` block, or when the object is garbage-collected or the
interpreter exits (``weakref.finalize``). Not public: each class documents
what closing does for it.
"""

from __future__ import annotations

import weakref
from types import TracebackType
from typing import Any, Callable, Optional, TypeVar

__all__ = ["HandleOwner"]

_Self = TypeVar("_Self", bound="HandleOwner")


class HandleOwner:
    """Base of the classes above. A subclass calls :meth:`_own` once it
    holds its handle, and may give :meth:`_forget` (what close does before
    the handle is freed) and :meth:`_leave` (what leaving a ``with`` block
    does before closing)."""

    _finalizer: weakref.finalize

    def _own(self, free: Callable[..., Any], *args: Any) -> None:
        # free(*args) frees the handle; it runs once, whichever way first.
        self._finalizer = weakref.finalize(self, free, *args)

    def _forget(self) -> None:
        # Makes later calls raise API-018; nothing by default.
        pass

    def _leave(self, ok: bool) -> None:
        # ok: the block ended without an exception. Nothing by default.
        pass

    def close(self) -> None:
        """Frees the handle (the class says what else closing does).
        Calling it again does nothing; any other call after it raises
        :class:`ApiError` API-018."""
        self._forget()
        self._finalizer()  # frees the handle the first time only

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return not self._finalizer.alive

    def __enter__(self: _Self) -> _Self:
        return self

    def __exit__(
        self,
        exc_type: Optional[type[BaseException]],
        exc: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        try:
            self._leave(exc_type is None)
        finally:
            self.close()
