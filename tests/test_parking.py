"""The parker: a thread sleeps on its own permit until another wakes it; and
the scheduler's wakes held back until it sleeps."""

from __future__ import annotations

import threading
import unittest

import blanket
from blanket import State, waiting
from blanket.parking import Parker


class ParkerTests(unittest.TestCase):
    """Sleep, wake, time out, and a wake that races the timeout."""

    def test_wake_without_sleeper_is_not_kept(self) -> None:
        parker, lock = Parker(), threading.Lock()
        parker.wake()
        with lock:
            self.assertFalse(parker.sleep(lock, 0))

    def test_no_wake_to_claim_without_a_sleeper(self) -> None:
        parker, lock = Parker(), threading.Lock()
        self.assertFalse(parker.claim())
        with lock:
            self.assertFalse(parker.sleep(lock, 0))  # nothing was delivered

    def test_sleep_times_out_and_keeps_the_lock(self) -> None:
        parker, lock = Parker(), threading.Lock()
        with lock:
            self.assertFalse(parker.sleep(lock, 0.01))
            self.assertTrue(lock.locked())

    def test_wake_from_another_thread(self) -> None:
        parker, lock = Parker(), threading.Lock()
        woken: list[bool] = []
        asleep = threading.Event()

        def sleeper() -> None:
            with lock:
                asleep.set()
                woken.append(parker.sleep(lock, 10))

        thread = threading.Thread(target=sleeper)
        thread.start()
        self.assertTrue(asleep.wait(10))
        with lock:  # taken only once the sleeper gave it up
            parker.wake()
        thread.join(10)
        self.assertEqual(woken, [True])

    def test_wake_between_timeout_and_retaking_the_lock(self) -> None:
        parker = Parker()
        real = threading.Lock()

        class WakeOnAcquire:
            """A lock that lets a wake in just as the sleeper takes it back."""

            def release(self) -> None:
                real.release()

            def acquire(self) -> None:
                parker.wake()
                real.acquire()

        real.acquire()
        self.assertTrue(parker.sleep(WakeOnAcquire(), 0))  # type: ignore[arg-type]
        # The permit is armed again: the next sleep, with nobody waking it,
        # times out.
        self.assertFalse(parker.sleep(real, 0))


class DeferredRelease(unittest.TestCase):
    """The scheduler lets a parked call go with its wake held back until it
    sleeps (ScenarioCore.defer_release); a wait that does not sleep still
    delivers it."""

    def test_delivered_by_a_wait_that_does_not_sleep(self) -> None:
        scenario = blanket.Scenario()
        lock = scenario.Lock()

        def worker() -> None:
            with lock:
                pass

        thread = scenario.thread(worker)
        with scenario:
            tx = scenario.park(thread, lock.acquire)[thread]
            core = scenario._core
            with core.lock:
                core.defer_release(tx)
                # Signals at once: the call is still BLOCKED, just not parked.
                hit = waiting.wait_locked(core, [(tx, blanket.Reached(tx, State.BLOCKED))], None)
            self.assertEqual(hit, {tx})
            # Woken: the acquire runs to its end without anything else letting it go.
            self.assertIn(tx, scenario.wait(tx, timeout=10))
            scenario.finish(thread)
