"""Helpers for the ``test_primitives*`` modules: scripting one call at a time.

This module holds no tests. The primitives' tests drive each call of a
worker the low-level way the article shows: wait for the thread's call, check
that it is parked at ``BLOCKED``, let it go, wait for it to finish, then read
the states it went through from its ``(time, state)`` history.
"""

from __future__ import annotations

import threading
import unittest
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import blanket
from blanket import State, Transaction

#: The bound, in seconds, on every wait of the scheduler in these tests; a
#: bug makes a test fail with a stall report instead of hanging the run.
BOUND = 5.0

B, C, W, S = State.BLOCKED, State.COMMIT, State.WAITING, State.STALLED
R, D, P, E = State.RESUMED, State.COMMITTED, State.PAUSED, State.EXITING
OK, RAISED = State.RETURNED, State.RAISED

#: A call without a timeout parameter, let go and returned.
PLAIN = [B, D, E, OK]
#: A timeout-bearing call that did not have to sleep.
TIMED = [B, C, D, E, OK]
#: A timeout-bearing call that slept inside the real primitive.
SLEPT = [B, C, W, R, D, E, OK]
#: A ``Condition.wait`` that gave the lock up, was woken and stalled.
COND_WAIT = [B, C, W, S, R, D, E, OK]
#: The lock re-acquire nested in a ``Condition.wait``, lock free / still held.
REACQUIRE_FREE = [B, D, E, OK]
REACQUIRE_HELD = [B, W, R, D, E, OK]


def states(tx: Transaction) -> list[State]:
    """The states *tx* has been in, oldest first."""
    return [state for _, state in tx.log]


def scenario(name: str | None = None, **options: Any) -> blanket.Scenario:
    """A scenario whose waits are bounded by :data:`BOUND`."""
    return blanket.Scenario(name, timeout=BOUND, **options)


def quietly(method: Callable[..., Any], *args: Any) -> Callable[[], None]:
    """A thread target calling ``method(*args)`` that keeps a raised exception
    out of ``threading.excepthook`` (the transaction records it anyway)."""
    def target() -> None:
        try:
            method(*args)
        except Exception:  # noqa: BLE001 - the transaction's result holds it
            pass
    return target


def named(thread: threading.Thread, name: str) -> threading.Thread:
    """*thread*, renamed *name* (for readable failure messages)."""
    thread.name = name
    return thread


@contextmanager
def held(raw: Any) -> Iterator[Any]:
    """Hold a raw lock or semaphore in the scheduler; release it on the way out
    unless the test did already (so a failing test cannot leave a worker
    asleep in the real primitive)."""
    raw.acquire()
    state = {"held": True}

    def release() -> None:
        if state["held"]:
            state["held"] = False
            raw.release()
    try:
        yield release
    finally:
        release()


class ScriptedTestCase(unittest.TestCase):
    """Assertions and steps shared by the regulated tests (no tests of its own)."""

    def blocked(self, scenario: blanket.Scenario, thread: threading.Thread,
                method: Callable[..., Any] | None = None, *,
                within: Transaction | None = None) -> Transaction:
        """Wait for *thread*'s next call (nested in *within* if given) and
        return it, checked parked at ``BLOCKED`` (and a *method* call)."""
        scenario.wait(thread if within is None else blanket.Nested(within))
        tx = scenario.transaction(thread)
        assert tx is not None
        self.assertIs(tx.state, State.BLOCKED, tx)
        if within is not None:
            self.assertIs(tx.parent, within)
        if method is not None:
            self.assertEqual(tx.method, method)
        return tx

    def let_go(self, scenario: blanket.Scenario, thread: threading.Thread,
               method: Callable[..., Any] | None = None, *,
               within: Transaction | None = None) -> Transaction:
        """Let *thread*'s next call go from ``BLOCKED`` and wait until it has
        finished; return its transaction."""
        tx = self.blocked(scenario, thread, method, within=within)
        tx.unblock()
        scenario.wait(tx)
        return tx

    def start(self, scenario: blanket.Scenario, thread: threading.Thread,
              method: Callable[..., Any] | None = None,
              until: State = State.WAITING) -> Transaction:
        """Let *thread*'s next call go and wait until it is in *until*
        (``WAITING``: asleep inside the real primitive)."""
        tx = self.blocked(scenario, thread, method)
        tx.unblock()
        scenario.wait(blanket.Reached(tx, until))
        self.assertIs(tx.state, until, tx)
        return tx

    def assertStates(self, tx: Transaction, expected: list[State]) -> None:
        """*tx* went through exactly *expected*."""
        self.assertEqual(states(tx), expected, tx)

    def assertCall(self, tx: Transaction, expected: list[State], result: object) -> None:
        """*tx* went through *expected* and returned *result*."""
        self.assertStates(tx, expected)
        self.assertEqual(tx.result, result, tx)

    def assertRaisedCall(self, tx: Transaction, expected: list[State],
                         exception: type[BaseException]) -> None:
        """*tx* went through *expected* and raised *exception*."""
        self.assertStates(tx, expected)
        self.assertIs(tx.state, State.RAISED)
        self.assertIsInstance(tx.result, exception)
        self.assertIs(tx.failed, True)
