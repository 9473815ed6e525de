"""Helpers for the ``test_high_level*`` modules (the high-level API helpers).

This module holds no tests. Every scenario here is bounded by :data:`BOUND`,
every thread is a managed thread with a one-letter name (so failure messages
and logs read like blanket's documentation), and what the workers do inside
their critical sections goes into a plain list the test reads afterwards.
"""

from __future__ import annotations

import threading
import unittest
from collections.abc import Callable, Iterable
from typing import Any

import blanket
from blanket import State, Transaction

from .support import spawn

#: The bound, in seconds, on every wait of the scheduler in these tests; a
#: bug makes a test fail with a stall report instead of hanging the run.
BOUND = 5.0


def new_scenario() -> blanket.Scenario:
    """A scenario whose waits (and joins on exit) are bounded by :data:`BOUND`."""
    return blanket.Scenario(timeout=BOUND)




def spawn_each(scenario: blanket.Scenario, names: str,
               target: Callable[[str], object]) -> list[threading.Thread]:
    """One managed thread per letter of *names*, created in that order,
    each running ``target(letter)``."""
    return [spawn(scenario, name, target, name) for name in names]


def log_of(scenario: blanket.Scenario) -> list[str]:
    """The scenario's log as ``"A:Lock.acquire"`` entries, in completion order."""
    return [f"{tx.thread.name}:{tx.spec.kind}.{tx.spec.name}" for tx in scenario.log]


def names(threads: Iterable[threading.Thread]) -> list[str]:
    """The names of *threads*, in order."""
    return [thread.name for thread in threads]


def current(scenario: blanket.Scenario, thread: threading.Thread) -> Transaction:
    """*thread*'s current (innermost) transaction; it must have one."""
    tx = scenario.transaction(thread)
    assert tx is not None, f"thread {thread.name!r} has no transaction"
    return tx


def is_held(raw: Any) -> bool:
    """Whether a raw lock or semaphore is taken (by anyone but the caller)."""
    if raw.acquire(False):
        raw.release()
        return False
    return True


class HighLevelTestCase(unittest.TestCase):
    """Assertions shared by the high-level tests (no tests of its own)."""

    def assertParkedAt(self, scenario: blanket.Scenario, thread: threading.Thread,
                       method: Callable[..., Any], state: State = State.BLOCKED
                       ) -> Transaction:
        """Wait until *thread* is parked for the scheduler, then check that
        it is in a *method* call in *state*; return that call."""
        scenario.wait(blanket.Parked(thread))
        tx = current(scenario, thread)
        self.assertEqual(tx.method, method, tx)
        self.assertIs(tx.state, state, tx)
        return tx

    def assertEnded(self, scenario: blanket.Scenario, thread: threading.Thread) -> None:
        """*thread* has already run to its end (checked without waiting)."""
        scenario.wait(blanket.Terminated(thread), timeout=0)

    def wait_all(self, scenario: blanket.Scenario, items: Iterable[object]) -> None:
        """Wait until every item has signalled (``scenario.wait`` returns on
        the first one), each within the scenario's bound."""
        for item in items:
            scenario.wait(item)

    def assertLog(self, scenario: blanket.Scenario, expected: list[str]) -> None:
        """The scenario's log, as :func:`log_of` shows it, is *expected*."""
        self.assertEqual(log_of(scenario), expected)

    def assertAllFinished(self, threads: list[threading.Thread]) -> None:
        """Every thread has ended (checked after the scenario exited)."""
        for thread in threads:
            self.assertFalse(thread.is_alive(), thread)
