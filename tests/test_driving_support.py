"""Helpers for the ``test_driving*`` modules (no tests here).

The drivers' tests run small worker threads on a scenario bounded by
:data:`~tests.test_primitives_support.BOUND` and name them "A", "B", ...
so that failure messages read like blanket's documentation.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol

import blanket
from blanket import Driver, Transaction

from .test_primitives_support import OK, B, C, D, E, P, named

#: An uncontended ``Lock.acquire`` held at the scheduler pause.
PAUSED_ACQUIRE = [B, C, D, P, E, OK]


class Lockable(Protocol):
    """What a thread takes and gives back: a Lock, an RLock, a Condition."""

    def acquire(self, blocking: bool = ..., timeout: float = ...) -> bool: ...

    def release(self) -> None: ...


def acquire_release(lock: Lockable) -> Callable[[], None]:
    """A thread target that takes *lock* and gives it back (two calls)."""
    def target() -> None:
        lock.acquire()
        lock.release()
    return target


def spawn(sc: blanket.Scenario, name: str, target: Callable[[], object]) -> threading.Thread:
    """A managed thread of *sc* running *target*, named *name*."""
    return named(sc.thread(target), name)


def current(driver: Driver) -> Transaction:
    """The driver's current call, which the test expects to exist."""
    tx = driver.tx
    assert tx is not None, driver
    return tx
