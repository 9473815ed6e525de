"""A "library": classes the threads use through their methods, a property
and a ``with`` block, as a program uses a package it installed."""

from __future__ import annotations

import abc
import contextlib
import threading
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import Any


class Cache:
    """Check-then-act: each value made once, unless two threads check at once."""

    def __init__(self, lock: Any) -> None:
        self._table: dict[str, object] = {}
        self._lock = lock
        self.made = 0

    def get(self, key: str, make: Callable[[], object]) -> object:
        with self._lock:
            if key not in self._table:
                self.made += 1
                self._table[key] = make()
            return self._table[key]


class Sequence:
    """Numbers handed out by a property."""

    def __init__(self, lock: Any) -> None:
        self._last = 0
        self._lock = lock

    @property
    def next_number(self) -> int:
        with self._lock:
            self._last += 1
            return self._last


class Occupancy:
    """A context manager counting who is inside."""

    def __init__(self, lock: Any) -> None:
        self.inside = 0
        self.entered = 0
        self._lock = lock

    def __enter__(self) -> Occupancy:
        with self._lock:
            self.inside += 1
            self.entered += 1
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        with self._lock:
            self.inside -= 1


class Registered(abc.ABC):  # noqa: B024 - a class whose metaclass is ABCMeta
    """Counts one as it is made."""

    def __init__(self, tally: Any) -> None:
        tally.count += 1


class Ledger:
    """Entries written under a lock a ``contextlib.contextmanager`` method
    holds (fasteners' ``write_lock`` is one): the generator it makes is
    resumed at the ``with``'s exit."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # a real one, made in the setup
        self.entries: list[object] = []

    @contextlib.contextmanager
    def locked(self) -> Iterator[Ledger]:
        with self._lock:
            yield self
