"""Every wait of a script names a deadlock at once: skip(wait=True),
scenario.wait, a Driver, relay, cycle and unblock fail with DeadlockError
naming the wait-for cycle as soon as the threads are stuck in one, well
before the scenario's bound, and leave no thread alive; a stall that is not
a deadlock still waits out the bound and is a plain StallError.

Before, each of these waited out the whole bound and raised a StallError
that did not say why (and the exit waited out the bound again)."""

from __future__ import annotations

import threading
import time
import unittest
from collections.abc import Callable
from typing import Any

import blanket
from blanket import DeadlockError, StallError

#: The scenario's bound: a deadlock must fail well before it.
BOUND = 5.0

#: The cycle, as the messages name it.
CYCLE = ("deadlock: A holds Lock 1 and waits for Lock 2; "
         "B holds Lock 2 and waits for Lock 1")


def _take(one: Any, other: Any) -> Callable[[], None]:
    def target() -> None:
        with one, other:
            pass
    return target


class _Crossed:
    """A takes Lock 1 then Lock 2, B Lock 2 then Lock 1. Once :meth:`cross`
    ran, each holds its first lock, B is parked at its acquire of Lock 1 and
    A sleeps in the real acquire of Lock 2: nothing can go on."""

    def __init__(self) -> None:
        self.sc = blanket.Scenario("crossed", timeout=BOUND)
        self.first, self.second = self.sc.Lock(), self.sc.Lock()
        self.cond = self.sc.Condition()
        self.A = self.sc.thread(_take(self.first, self.second))
        self.B = self.sc.thread(_take(self.second, self.first))
        self.A.name, self.B.name = "A", "B"

    def hold_first_locks(self) -> None:
        self.sc.skip(self.A, self.first.acquire, self.B, self.second.acquire, wait=True)

    def cross(self) -> blanket.Transaction:
        """Both first locks taken, then A let into its acquire of Lock 2;
        returns that acquire."""
        self.hold_first_locks()
        return self.sc.skip(self.A, self.second.acquire)[self.A]


class DeadlockFailsAtOnce(unittest.TestCase):
    def assert_deadlock(self, step: Callable[[_Crossed], object], says: str) -> None:
        crossed = _Crossed()
        with self.assertRaises(DeadlockError) as caught, crossed.sc:
            step(crossed)
        message = str(caught.exception)
        self.assertIn(says, message)
        self.assertIn(CYCLE, message)
        self.assertEqual(message.count("deadlock"), 1, message)
        self.assertIn("'A': Lock.acquire WAITING on Lock 2", caught.exception.report)
        self.assertFalse(crossed.A.is_alive() or crossed.B.is_alive())

    def test_skip_wait(self) -> None:
        def step(c: _Crossed) -> None:
            c.hold_first_locks()
            c.sc.skip(c.A, c.second.acquire, wait=True)
        self.assert_deadlock(step, "scenario 'crossed': the wait for ")

    def test_park_wait(self) -> None:
        def step(c: _Crossed) -> None:
            c.hold_first_locks()
            c.sc.park(c.A, c.second.acquire, wait=True)
        self.assert_deadlock(step, "cannot go on; deadlock: ")

    def test_scenario_wait(self) -> None:
        def step(c: _Crossed) -> None:
            tx = c.cross()
            c.sc.wait(blanket.Returned(tx))
        self.assert_deadlock(step, "the wait for ")

    def test_a_driver(self) -> None:
        def step(c: _Crossed) -> None:
            c.cross()
            c.sc.Driver(c.A).finish()()
        self.assert_deadlock(step, "cannot go on; ")

    def test_a_dispatch(self) -> None:
        def step(c: _Crossed) -> None:
            c.cross()
            dispatch = c.sc.Dispatch()
            dispatch.add(c.sc.Driver(c.A).finish())
            for _ in dispatch:
                pass
        self.assert_deadlock(step, "cannot go on; ")

    def test_relay(self) -> None:
        def step(c: _Crossed) -> None:
            c.hold_first_locks()
            next(c.sc.api(c.second).relay(c.A))
        self.assert_deadlock(step, "cannot go on; ")

    def test_assign(self) -> None:
        def step(c: _Crossed) -> None:
            c.cross()
            c.sc.api(c.first).assign(c.A, c.B)  # waits for A to reach its release
        self.assert_deadlock(step, "cannot go on; ")

    def test_allocate(self) -> None:
        sc = blanket.Scenario("crossed", timeout=BOUND)
        lock, semaphore = sc.Lock(), sc.Semaphore(1)
        A, B = sc.thread(_take(lock, semaphore)), sc.thread(_take(semaphore, lock))
        A.name, B.name = "A", "B"
        with self.assertRaises(DeadlockError) as caught, sc:
            sc.skip(A, lock.acquire, B, semaphore.acquire, wait=True)
            next(sc.api(semaphore).allocate(A))
        self.assertIn("cannot go on; deadlock: A holds Lock 1 and waits for Semaphore 1; "
                      "B holds Semaphore 1 and waits for Lock 1", str(caught.exception))
        self.assertFalse(A.is_alive() or B.is_alive())

    def test_cycle(self) -> None:
        def step(c: _Crossed) -> None:
            c.cross()
            c.sc.api(c.cond).cycle(c.A, c.B)  # waits for A to reach the condition
        self.assert_deadlock(step, "cannot go on; ")

    def test_unblock(self) -> None:
        def step(c: _Crossed) -> None:
            c.cross()
            c.sc.api(c.second).unblock(c.second.release, c.A)
        self.assert_deadlock(step, "cannot go on; ")

    def test_finish_keeps_its_message(self) -> None:
        def step(c: _Crossed) -> None:
            c.cross()
            c.sc.finish(c.A, c.B)
        self.assert_deadlock(step, "scenario 'crossed': finish('A', 'B') cannot go on; "
                                   + CYCLE + "\n")


class NotADeadlock(unittest.TestCase):
    """Stuck, but not in a wait-for cycle: the bound decides, and the error
    is a plain StallError."""

    def test_a_skip_waiting_for_a_lock_held_by_a_parked_thread(self) -> None:
        sc = blanket.Scenario(timeout=0.3)
        lock = sc.Lock()
        A = sc.thread(_take(lock, sc.Lock()))
        B = sc.thread(_take(lock, sc.Lock()))
        with sc:
            sc.skip(A, lock.acquire, wait=True)  # A then parks at its second lock
            started = time.monotonic()
            with self.assertRaises(StallError) as caught:
                sc.skip(B, lock.acquire, wait=True)  # A holds it: B sleeps
            self.assertGreaterEqual(time.monotonic() - started, 0.3)
            self.assertNotIsInstance(caught.exception, DeadlockError)
            self.assertTrue(B.is_alive())  # not given up: the script may go on
            sc.finish(A, B)

    def test_a_timed_acquire_in_the_cycle(self) -> None:
        # B's acquire of Lock 1 has a timeout: let go, it would end by itself.
        sc = blanket.Scenario(timeout=0.3)
        first, second = sc.Lock(), sc.Lock()

        def timed() -> None:
            with second:
                if first.acquire(timeout=60):
                    first.release()
        A, B = sc.thread(_take(first, second)), sc.thread(timed)
        with sc:
            sc.skip(A, first.acquire, B, second.acquire, wait=True)
            tx = sc.skip(A, second.acquire)[A]
            with self.assertRaises(StallError) as caught:
                sc.wait(blanket.Returned(tx))
            self.assertNotIsInstance(caught.exception, DeadlockError)
            sc.api(first).expire(first.acquire, B)
            sc.finish(B, A)

    def test_an_explicit_timeout_is_a_timeout_error(self) -> None:
        # A timed wait checks that something does not happen in time.
        crossed = _Crossed()
        with crossed.sc:
            tx = crossed.cross()
            with self.assertRaises(TimeoutError) as caught:
                crossed.sc.wait(blanket.Returned(tx), timeout=0.05)
            self.assertNotIsInstance(caught.exception, StallError)
            self.assertTrue(crossed.A.is_alive())
            with self.assertRaises(DeadlockError):
                crossed.sc.finish(crossed.A, crossed.B)


class BothAsleepInRealLocks(unittest.TestCase):
    """A and B both asleep in the real acquires: the wait fails at once all
    the same, but nothing blanket can do wakes a thread asleep in a real
    lock, so the threads stay (the exit names them)."""

    def test_fails_at_once_and_leaves_the_threads(self) -> None:
        sc = blanket.Scenario("real", timeout=0.3)
        first, second = sc.Lock(), sc.Lock()

        def take(one: Any, other: Any) -> Callable[[], None]:
            def target() -> None:
                with one:
                    other.acquire()  # held for good: the test frees it
            return target
        A, B = sc.thread(take(first, second)), sc.thread(take(second, first))
        A.name, B.name = "A", "B"
        with self.assertRaises(DeadlockError) as caught, sc:
            sc.skip(A, first.acquire, B, second.acquire, wait=True)
            tx = sc.skip(A, second.acquire, B, first.acquire)[A]
            sc.wait(blanket.Returned(tx))
        self.assertIn("the wait for ", str(caught.exception))
        self.assertIn(CYCLE, str(caught.exception))
        self.assertTrue(A.is_alive() and B.is_alive())
        sc.raw(second).release()  # B's: A goes on, gives Lock 1 up, so B does
        A.join(BOUND)
        B.join(BOUND)
        self.assertFalse(A.is_alive() or B.is_alive())


class AThreadBlanketDidNotStart(unittest.TestCase):
    def test_a_wait_for_it_to_end_is_left_to_the_bound(self) -> None:
        # It may end by itself, deadlock or not: nothing says when.
        crossed = _Crossed()
        outside = threading.Thread(target=threading.Event().wait, args=(0.5,))
        with crossed.sc:
            crossed.cross()
            outside.start()
            ended = blanket.Terminated(outside)
            self.assertEqual(crossed.sc.wait(ended), {ended})
            with self.assertRaises(DeadlockError):
                crossed.sc.finish(crossed.A, crossed.B)
        self.assertFalse(crossed.A.is_alive() or crossed.B.is_alive())
