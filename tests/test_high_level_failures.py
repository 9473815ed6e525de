"""The high-level helpers when something goes wrong half-way.

A helper (``assign``, ``relay``, ``allocate``, ``cycle``) that raises -- a
stall, an interrupt, a thread found somewhere else -- or whose iterator or
block is left early must leave no driver claiming a thread: the script can
go on with ``finish`` (which drives the threads itself) and the scenario
exits with every thread done.

To make a helper stall on purpose, the test holds the *real* primitive
(``scenario.raw``) so that the worker's call, once let go, sleeps inside it;
the scenario's bound is made short for that one step only.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import blanket
from blanket import waiting
from blanket.driving import Driver

from .test_high_level_support import BOUND, HighLevelTestCase, new_scenario, spawn, spawn_each

#: The short bound of the one step that is meant to stall.
SHORT = 0.2


@contextmanager
def stalling(scenario: blanket.Scenario, raw: Any) -> Iterator[None]:
    """Hold the real primitive *raw* and shorten the scenario's bound; the
    step inside must raise StallError. Afterwards *raw* is released and
    the bound restored."""
    raw.acquire()
    scenario.timeout = SHORT
    try:
        yield
    finally:
        scenario.timeout = BOUND
        raw.release()


@contextmanager
def interrupted(thread: threading.Thread) -> Iterator[None]:
    """Raise KeyboardInterrupt in the scheduler the first time a driver of
    *thread* has claimed it and looked at its call (the claim is made; the
    interrupt comes where a real one could: while the driver drives)."""
    step = Driver._step
    fired: list[bool] = []

    def interrupting_step(driver: Driver) -> Any:
        tokens = step(driver)
        if driver.thread is thread and not fired:
            fired.append(True)
            raise KeyboardInterrupt
        return tokens
    with mock.patch.object(Driver, "_step", interrupting_step):
        yield
    assert fired, f"no driver of thread {thread.name!r} ran"


@contextmanager
def interrupted_wait(scenario: blanket.Scenario) -> Iterator[None]:
    """Raise KeyboardInterrupt in the scheduler's first wait on *scenario*
    (the call it waits for was let go)."""
    with mock.patch.object(waiting, "wait", side_effect=KeyboardInterrupt) as wait:
        yield
    wait.assert_called_once()


class DriversReleased(HighLevelTestCase):
    """After a failed helper the threads are free to be driven again."""

    def setUp(self) -> None:
        self.scenario = new_scenario()
        self.out: list[str] = []

    def holder(self, lock: Any) -> Callable[[str], None]:
        def work(name: str) -> None:
            with lock:
                self.out.append(name)
        return work

    def assertFree(self, *threads: threading.Thread) -> None:
        """No driver claims any of *threads*, and ``finish`` drives each to
        its end, one after the other, in that order."""
        for thread in threads:
            self.assertNotIn(thread, self.scenario._core.drivers)
        for thread in threads:
            self.scenario.finish(thread)
            self.assertEnded(self.scenario, thread)

    def test_an_interrupted_assign(self) -> None:
        lock = self.scenario.Lock()
        A, B = spawn_each(self.scenario, "AB", self.holder(lock))
        with self.scenario:
            api = self.scenario.api(lock)
            with interrupted(A), self.assertRaises(KeyboardInterrupt):
                api.assign(A)
            self.scenario.wait(blanket.Parked(A))
            with interrupted(B), self.assertRaises(KeyboardInterrupt):
                api.assign(A, B)
            self.assertFree(A, B)
        self.assertEqual(self.out, ["A", "B"])

    def test_relay_that_stalls(self) -> None:
        lock = self.scenario.Lock()
        A, B = spawn_each(self.scenario, "AB", self.holder(lock))
        with self.scenario:
            with stalling(self.scenario, self.scenario.raw(lock)), \
                    self.assertRaises(blanket.StallError):
                next(self.scenario.api(lock).relay(A, B))  # A's acquire sleeps
            self.assertFree(A, B)
        self.assertEqual(self.out, ["A", "B"])

    def test_allocate_that_stalls(self) -> None:
        semaphore = self.scenario.Semaphore(1)
        (A,) = spawn_each(self.scenario, "A", self.holder(semaphore))
        with self.scenario:
            with stalling(self.scenario, self.scenario.raw(semaphore)), \
                    self.assertRaises(blanket.StallError):
                list(self.scenario.api(semaphore).allocate(A))
            self.assertFree(A)
        self.assertEqual(self.out, ["A"])

    def test_cycle_whose_waiter_stalls_at_the_lock(self) -> None:
        condition = self.scenario.Condition()
        out = self.out

        def waiter() -> None:
            with condition:
                condition.wait()
                out.append("A")

        def notifier() -> None:
            with condition:
                condition.notify()
        A = spawn(self.scenario, "A", waiter)
        B = spawn(self.scenario, "B", notifier)
        with self.scenario:
            with stalling(self.scenario, self.scenario.raw(condition)), \
                    self.assertRaises(blanket.StallError):
                self.scenario.api(condition).cycle(A, B)  # A's acquire sleeps
            self.assertNotIn(A, self.scenario._core.drivers)
            self.scenario.wait(blanket.Parked(A))  # A took the lock, and is at its wait
            self.scenario.api(condition).cycle(A, B).close()
            self.assertEnded(self.scenario, B)
            self.assertFree(A)  # parked at its release
        self.assertEqual(self.out, ["A"])

    def test_cycle_whose_waiter_stalls_when_woken(self) -> None:
        condition = self.scenario.Condition()
        out = self.out

        def waiter(name: str) -> None:
            with condition:
                condition.wait()
                out.append(name)

        def notifier() -> None:
            with condition:
                condition.notify_all()
        A, B = spawn_each(self.scenario, "AB", waiter)
        C = spawn(self.scenario, "C", notifier)
        with self.scenario:
            with self.scenario.api(condition).cycle(A, B, C) as cycle:
                self.scenario.api(condition).unblock(condition.release, C)  # C lets go
                with stalling(self.scenario, self.scenario.raw(condition)), \
                        self.assertRaises(blanket.StallError):
                    cycle.wake(A)  # A's wait takes the lock back: it sleeps
                self.assertFree(A)
                self.assertEqual(cycle.held, (B, C))
            self.assertFree(B, C)
        self.assertEqual(sorted(self.out), ["A", "B"])

    def test_an_event_cycle_whose_opener_stalls(self) -> None:
        event = self.scenario.Event()
        A = spawn(self.scenario, "A", event.wait)
        B = spawn(self.scenario, "B", event.set)
        with self.scenario:
            with stalling(self.scenario, self.scenario.raw(event)._cond), \
                    self.assertRaises(blanket.StallError):
                self.scenario.api(event).cycle(A, B)  # B's set sleeps
            self.assertFree(B, A)  # B's set goes on; A, woken, is not held

    def test_a_cycle_interrupted_while_a_waiter_goes_into_its_wait(self) -> None:
        event = self.scenario.Event()
        A = spawn(self.scenario, "A", event.wait)
        B = spawn(self.scenario, "B", event.set)
        with self.scenario:
            with interrupted_wait(self.scenario), self.assertRaises(KeyboardInterrupt):
                self.scenario.api(event).cycle(A, B)
            self.assertFree(B, A)  # B sets; A, woken, is not held by the cycle

    def test_an_interrupted_relay(self) -> None:
        lock = self.scenario.Lock()
        A, B = spawn_each(self.scenario, "AB", self.holder(lock))
        with self.scenario:
            with interrupted(A), self.assertRaises(KeyboardInterrupt):
                list(self.scenario.api(lock).relay(A, B))
            self.assertFree(A, B)
        self.assertEqual(self.out, ["A", "B"])

    def test_an_interrupted_cycle(self) -> None:
        event = self.scenario.Event()
        A = spawn(self.scenario, "A", event.wait)
        B = spawn(self.scenario, "B", event.set)
        with self.scenario:
            with self.scenario.api(event).cycle(A, B) as cycle:
                with interrupted(A), self.assertRaises(KeyboardInterrupt):
                    cycle.wake(A)
            self.assertFree(A, B)

    def test_a_relay_left_half_way(self) -> None:
        lock = self.scenario.Lock()
        A, B, C = spawn_each(self.scenario, "ABC", self.holder(lock))
        with self.scenario:
            for pause in (True, False):
                relay = self.scenario.api(lock).relay(A, B, C, pause=pause)
                self.assertIs(next(relay), A)
                relay.close()  # as when it is garbage collected
                if pause:
                    self.assertFree(A)  # A, paused in its acquire, goes on
                    A, B, C = B, C, spawn(self.scenario, "D", self.holder(lock), "D")
            self.assertFree(A, B, C)
        self.assertEqual(self.out, ["A", "B", "C", "D"])

    def test_a_cycle_block_left_by_an_exception(self) -> None:
        event = self.scenario.Event()
        A, B = (spawn(self.scenario, name, event.wait) for name in "AB")
        C = spawn(self.scenario, "C", event.set)
        with self.scenario:
            with self.assertRaises(ZeroDivisionError), \
                    self.scenario.api(event).cycle(A, B, C) as cycle:
                cycle.wake(A)
                1 / 0  # noqa: B018 - the block fails with B still held
            self.assertEqual(cycle.held, ())
            self.assertFree(A, B, C)
