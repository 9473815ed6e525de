"""Library-like code whose primitives are made outside the threads of a
scenario (at import time, as default arguments, in the setup), each with a
thread-safety bug and its fix, for tests/test_adopt_real.py. Nothing here
knows blanket: it is used as shipped."""

from __future__ import annotations

import logging
import threading
from typing import Any

# -- a reader-writer lock on a condition given as a default argument -----------


class ReaderWriterLock:
    """Readers share, a writer is alone (after fasteners' ReaderWriterLock:
    the condition's class is a default argument, bound at import time).

    The bug: a reader that leaves wakes a waiting writer, but a writer that
    leaves wakes one waiter only (``notify``): with two readers waiting,
    the second sleeps for ever."""

    def __init__(self, condition_cls: Any = threading.Condition) -> None:
        self._cond = condition_cls()
        self._readers = 0
        self._writing = False
        self._writers_waiting = 0

    def acquire_read(self) -> None:
        with self._cond:
            while self._writing:
                self._cond.wait()
            self._readers += 1

    def release_read(self) -> None:
        with self._cond:
            self._readers -= 1
            if not self._readers and self._writers_waiting:
                self._cond.notify()

    def acquire_write(self) -> None:
        with self._cond:
            self._writers_waiting += 1
            while self._writing or self._readers:
                self._cond.wait()
            self._writers_waiting -= 1
            self._writing = True

    def release_write(self) -> None:
        with self._cond:
            self._writing = False
            self._wake()

    def _wake(self) -> None:
        self._cond.notify()


class FixedReaderWriterLock(ReaderWriterLock):
    """The fix: a writer that leaves wakes every waiter."""

    def _wake(self) -> None:
        self._cond.notify_all()


# -- a lazy init guarded by a module-global lock -------------------------------

_lock = threading.Lock()
_config: dict[str, Any] = {}
loads: list[int] = []


def load_config() -> dict[str, Any]:
    """The configuration, loaded once. The bug: the check is made outside
    the lock, so two threads may both load it."""
    if "loaded" not in _config:
        with _lock:
            loads.append(1)
            _config["loaded"] = True
    return _config


def load_config_fixed() -> dict[str, Any]:
    """The fix: the check again under the lock."""
    if "loaded" not in _config:
        with _lock:
            if "loaded" not in _config:
                loads.append(1)
                _config["loaded"] = True
    return _config


def reset_config() -> None:
    _config.clear()
    loads.clear()


# -- a pool whose lock is made by its constructor (in the setup) ---------------


class Pool:
    """Items handed out one each. The bug: whether one is left is asked
    outside the lock, so two threads may go for the last one."""

    def __init__(self, items: list[str]) -> None:
        self._lock = threading.Lock()
        self._items = list(items)

    def take(self) -> str | None:
        if not self._items:
            return None
        self._lock.acquire()
        try:
            return self._items.pop()
        finally:
            self._lock.release()


class FixedPool(Pool):
    """The fix: ask under the lock."""

    def take(self) -> str | None:
        with self._lock:
            return self._items.pop() if self._items else None


# -- two locks made at import time, taken in opposite orders -------------------

accounts_lock = threading.Lock()
audit_lock = threading.Lock()
ledger: list[str] = []


def transfer() -> None:
    """Takes the accounts, then the audit lock."""
    with accounts_lock:
        with audit_lock:
            ledger.append("transfer")


def audit() -> None:
    """The bug: takes the audit lock, then the accounts (opposite order)."""
    with audit_lock:
        with accounts_lock:
            ledger.append("audit")


def audit_fixed() -> None:
    """The fix: the same order as transfer."""
    with accounts_lock:
        with audit_lock:
            ledger.append("audit")


# -- a logging handler that keeps the records ----------------------------------


class KeepingHandler(logging.Handler):
    """Keeps the messages it handles, for :meth:`drain` to hand out. The
    bug: ``drain`` copies and clears them without the handler's lock, so a
    record emitted in between is lost."""

    def __init__(self) -> None:
        super().__init__()
        self.kept: list[str] = []
        self.drained: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.kept.append(record.getMessage())

    def drain(self) -> None:
        taken = list(self.kept)
        self.kept.clear()
        self.drained += taken


class FixedKeepingHandler(KeepingHandler):
    """The fix: drain under the handler's lock."""

    def drain(self) -> None:
        with self.lock:
            super().drain()



def take_in_turn_unwatched(first: Any, second: Any, between: Any) -> None:
    """Take *first*, call *between*, take *second*, in code that is not
    watched (compiled apart: its locks stay real)."""
    exec(_TAKE_IN_TURN, {"first": first, "second": second, "between": between})


_TAKE_IN_TURN = compile("first.acquire()\n"
                        "between()\n"
                        "second.acquire()\n"
                        "second.release()\n"
                        "first.release()\n", "unwatched.py", "exec")


# -- a mailbox whose condition is made in __init__ --------------------------------


class Mailbox:
    """One item handed from a putter to a getter through a ``Condition``
    made in ``__init__`` (so in the setup, by this module, before any thread).

    The bug: ``get`` looks for an item outside the lock, then waits: a
    ``put`` in between notifies nobody, and the getter sleeps for ever."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._items: list[object] = []

    def put(self, item: object) -> None:
        with self._cond:
            self._items.append(item)
            self._cond.notify()

    def get(self) -> object:
        if not self._items:
            with self._cond:
                self._cond.wait()
        with self._cond:
            return self._items.pop(0)
