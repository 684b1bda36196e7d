"""The mechanism behind :class:`FactLog`: a library handle read in batches
of JSON arrays (cursors read typed rows in minigraf._native instead).

A subclass names its handle's two native calls (next batch, free) and what
it is called in API-018 errors; the base owns the rest: buffering for
iteration, :meth:`fetch_batch`, the lock, closing (also by the garbage
collector) and the context manager.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Callable, Generic, Iterator, List, Optional, TypeVar

from ._closing import HandleOwner
from ._errors import closed_error

__all__ = ["BatchReader"]

T = TypeVar("T")


class BatchReader(HandleOwner, Generic[T]):
    """Items (rows, records) read from a library handle in batches.

    Not public: :class:`Cursor` and :class:`FactLog` document the behaviour
    as their own. One thread at a time reads: a second thread waits for the
    first one's call to finish.
    """

    batch_size: int = 1000
    """How many items iteration asks the library for at a time."""

    def __init__(
        self,
        handle: Any,
        *,
        what: str,
        next_batch: Callable[[Any, int], Optional[str]],
        free: Callable[[Any], None],
    ) -> None:
        # what: the name in "use of a closed ..." (API-018);
        # next_batch(handle, size): the next JSON array, None at the end;
        # free(handle): frees it, once, at close() or garbage collection.
        self._handle: Any = handle
        self._what = what
        self._next_batch = next_batch
        self._own(free, handle)
        self._lock = threading.Lock()
        self._buffer: List[T] = []  # fetched by iteration, not yet returned
        self._next = 0

    def fetch_batch(self, size: int) -> List[T]:
        """Returns the next at most ``size`` items (``size`` >= 1); an empty
        list means the end."""
        if size < 1:
            raise ValueError(f"batch size must be at least 1, got {size}")
        with self._lock:
            items = self._buffer[self._next : self._next + size]
            self._next += len(items)
            if len(items) < size:
                items += self._fetch(size - len(items))
            return items

    def __iter__(self) -> Iterator[T]:
        return self

    def __next__(self) -> T:
        with self._lock:
            if self._next == len(self._buffer):
                self._buffer = self._fetch(self.batch_size)
                self._next = 0
                if not self._buffer:
                    raise StopIteration
            item = self._buffer[self._next]
            self._next += 1
            return item

    def _fetch_json(self, size: int) -> Optional[str]:
        # The next batch as the library's JSON array text, None at the end.
        # Called with self._lock held; does not touch the iteration buffer.
        if self._handle is None:
            raise closed_error(self._what)
        return self._next_batch(self._handle, size)

    def _fetch(self, size: int) -> List[T]:
        # Called with self._lock held.
        batch = self._fetch_json(size)
        return [] if batch is None else json.loads(batch)

    def _forget(self) -> None:
        with self._lock:
            self._handle = None
            self._buffer = []
            self._next = 0
