"""The Lock and RLock helpers: ``api.assign`` and ``api.relay``.

Every worker takes the lock with ``with lock:`` and records its name inside
the critical section, so the list of names is the order in which the lock
was held; the scenario's log shows the same order call by call. Each test
runs on a ``Lock`` and on an ``RLock`` (one class per kind, from a mixin).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import blanket
from blanket import State

from .support import unchecked
from .test_high_level_support import (
    HighLevelTestCase,
    current,
    is_held,
    names,
    new_scenario,
    spawn,
    spawn_each,
)


class LockHelpersMixin(HighLevelTestCase):
    """Builds the lock under test (the kind comes from the subclass) and the
    workers that take it; no tests of its own."""

    #: The primitive kind under test: "Lock" or "RLock".
    KIND = ""

    def setUp(self) -> None:
        self.scenario = new_scenario()
        self.lock: Any = getattr(self.scenario, self.KIND)()
        self.api: Any = self.scenario.api(self.lock)
        self.out: list[str] = []

    def holder(self, name: str) -> None:
        """A worker: hold the lock and record *name* while holding it."""
        with self.lock:
            self.out.append(name)

    def workers(self, letters: str = "ABC") -> list[threading.Thread]:
        """One :meth:`holder` thread per letter, created in that order."""
        return spawn_each(self.scenario, letters, self.holder)

    def acquire_release_log(self, *letters: str, last_releases: bool = False) -> list[str]:
        """The log of a lock passed through *letters* in order: each
        acquires then releases, the last only acquires unless *last_releases*."""
        entries = []
        for index, letter in enumerate(letters):
            entries.append(f"{letter}:{self.KIND}.acquire")
            if index < len(letters) - 1 or last_releases:
                entries.append(f"{letter}:{self.KIND}.release")
        return entries


class AssignTests(LockHelpersMixin):
    """``assign(thread, acquirer=None, *, pause=False)``: one acquire, and
    with two threads the first one's release before it."""

    def test_assign_one_thread_acquires_the_free_lock(self) -> None:
        A, B, C = self.workers()
        with self.scenario:
            tx = self.api.assign(B)
            self.assertIsInstance(tx, blanket.Transaction)
            self.assertIs(tx.thread, B)
            self.assertEqual(tx.method, self.lock.acquire)
            self.assertIs(tx.state, State.RETURNED)
            self.assertIs(tx.result, True)
            # B ran its critical section and now waits to release.
            self.assertEqual(self.out, ["B"])
            self.assertParkedAt(self.scenario, B, self.lock.release)
            self.assertTrue(is_held(self.scenario.raw(self.lock)))
            for other in (A, C):
                self.assertParkedAt(self.scenario, other, self.lock.acquire)
            self.assertLog(self.scenario, [f"B:{self.KIND}.acquire"])

    def test_assign_two_threads_hands_the_lock_from_the_first_to_the_second(self) -> None:
        A, B, C = self.workers()
        with self.scenario:
            self.api.assign(C)
            tx = self.api.assign(C, A)
            self.assertIs(tx.thread, A)
            self.assertEqual(tx.method, self.lock.acquire)
            self.assertIs(tx.result, True)
            self.assertEqual(self.out, ["C", "A"])
            self.assertEnded(self.scenario, C)  # C released and ran to its end
            self.assertParkedAt(self.scenario, A, self.lock.release)
            self.api.assign(A, B)
            self.assertEqual(self.out, ["C", "A", "B"])
            self.scenario.wait(*self.api.unblock(self.lock.release, B))
            self.assertLog(self.scenario, self.acquire_release_log("C", "A", "B",
                                                                   last_releases=True))

    def test_assign_one_thread_to_a_held_lock_is_a_value_error(self) -> None:
        A, B, C = self.workers()
        with self.scenario:
            self.api.assign(C)
            with self.assertRaises(ValueError) as caught:
                self.api.assign(A)
            message = str(caught.exception)
            self.assertIn("is held", message)
            self.assertIn("assign(holder, 'A')", message)
            # Nothing was let go: A still waits at its acquire, C holds.
            self.assertParkedAt(self.scenario, A, self.lock.acquire)
            self.assertParkedAt(self.scenario, C, self.lock.release)
            self.assertEqual(self.out, ["C"])
            self.api.assign(C, A)
            self.api.assign(A, B)
            self.assertEqual(self.out, ["C", "A", "B"])
            self.assertLog(self.scenario, self.acquire_release_log("C", "A", "B"))

    def test_assign_with_pause_stops_the_acquire_at_paused(self) -> None:
        A, B = self.workers("AB")
        with self.scenario:
            tx = self.api.assign(B, pause=True)
            self.assertIs(tx.thread, B)
            self.assertIs(tx.state, State.PAUSED)
            self.assertTrue(tx.pause)
            self.assertIs(tx.result, True)  # the real acquire was made
            self.assertTrue(is_held(self.scenario.raw(self.lock)))
            self.assertEqual(self.out, [])  # B has not run its critical section
            tx.unpause()
            self.assertParkedAt(self.scenario, B, self.lock.release)
            self.assertIs(tx.state, State.RETURNED)
            self.assertEqual(self.out, ["B"])
            handed = self.api.assign(B, A, pause=True)
            self.assertIs(handed.thread, A)
            self.assertIs(handed.state, State.PAUSED)
            self.assertEqual(self.out, ["B"])
            handed.unpause()
            self.assertParkedAt(self.scenario, A, self.lock.release)
            self.assertEqual(self.out, ["B", "A"])
            self.assertLog(self.scenario, self.acquire_release_log("B", "A"))


class AssignLock(AssignTests):
    """``assign`` on a ``Lock``."""

    KIND = "Lock"


class AssignRLock(AssignTests):
    """``assign`` on an ``RLock``."""

    KIND = "RLock"


del AssignTests  # a mixin: only its per-kind subclasses run


class RelayTests(LockHelpersMixin):
    """``relay(initial, *acquirers, pause=False)``: the lock passes from
    thread to thread in the order named; the last acquirer keeps it."""

    def test_relay_from_an_initial_acquirer(self) -> None:
        A, B, C = self.workers()
        with self.scenario:
            yielded = list(self.api.relay(C, A, B))
            self.assertEqual(names(yielded), ["C", "A", "B"])
            self.assertParkedAt(self.scenario, B, self.lock.release)  # B keeps it
            self.assertEqual(self.out, ["C", "A", "B"])
            self.assertLog(self.scenario, self.acquire_release_log("C", "A", "B"))

    def test_relay_from_the_holder_at_its_release(self) -> None:
        A, B, C = self.workers()
        with self.scenario:
            self.api.assign(B)
            yielded = list(self.api.relay(B, C, A))
            self.assertEqual(names(yielded), ["C", "A"])  # the holder is not yielded
            self.assertEqual(self.out, ["B", "C", "A"])
            self.assertLog(self.scenario, self.acquire_release_log("B", "C", "A"))

    def test_relay_of_a_single_acquirer_yields_it(self) -> None:
        A, B = self.workers("AB")
        with self.scenario:
            self.assertEqual(list(self.api.relay(B)), [B])
            self.assertParkedAt(self.scenario, A, self.lock.acquire)
            self.assertEqual(self.out, ["B"])
            self.assertLog(self.scenario, [f"B:{self.KIND}.acquire"])

    def test_relay_is_lazy_and_each_yielded_thread_holds_the_lock(self) -> None:
        threads = self.workers()
        by_name = {thread.name: thread for thread in threads}
        A, B, C = threads
        raw = self.scenario.raw(self.lock)
        with self.scenario:
            relay = self.api.relay(B, C, A)
            for thread in threads:
                self.assertParkedAt(self.scenario, thread, self.lock.acquire)
            self.assertEqual(len(self.scenario.log), 0)  # nothing happened yet
            expected = ["B", "C", "A"]
            for step, thread in enumerate(relay, 1):
                self.assertEqual(thread.name, expected[step - 1])
                self.assertEqual(self.out, expected[:step])
                self.assertParkedAt(self.scenario, thread, self.lock.release)
                self.assertTrue(is_held(raw))
                for later in expected[step:]:
                    self.assertParkedAt(self.scenario, by_name[later], self.lock.acquire)
            self.assertEqual(step, 3)
            self.assertLog(self.scenario, self.acquire_release_log("B", "C", "A"))

    def test_relay_with_pause_holds_each_acquire_until_its_release_is_due(self) -> None:
        threads = A, B, C = self.workers()
        with self.scenario:
            seen = []
            for thread in self.api.relay(B, C, A, pause=True):
                tx = self.assertParkedAt(self.scenario, thread, self.lock.acquire,
                                         State.PAUSED)
                self.assertTrue(tx.pause)
                self.assertIs(tx.result, True)
                # The critical section runs only once the relay moves on.
                self.assertEqual(self.out, seen)
                seen.append(thread.name)
            self.assertEqual(seen, ["B", "C", "A"])
            # The last acquirer stays paused: the test lets it go.
            current(self.scenario, A).unpause()
            self.assertParkedAt(self.scenario, A, self.lock.release)
            self.assertEqual(self.out, ["B", "C", "A"])
            self.api.unblock(self.lock.release, A)
            self.scenario.wait(blanket.Terminated(A))
            self.assertLog(self.scenario, self.acquire_release_log("B", "C", "A",
                                                                   last_releases=True))
        self.assertAllFinished(threads)

    def test_relay_with_pause_leaves_a_holder_the_test_unpaused_alone(self) -> None:
        A, B = self.workers("AB")
        with self.scenario:
            for thread in self.api.relay(B, A, pause=True):
                current(self.scenario, thread).unpause()  # the test lets it go itself
                self.assertParkedAt(self.scenario, thread, self.lock.release)
            self.assertEqual(self.out, ["B", "A"])
            self.assertLog(self.scenario, self.acquire_release_log("B", "A"))


class RelayLock(RelayTests):
    """``relay`` on a ``Lock``."""

    KIND = "Lock"


class RelayRLock(RelayTests):
    """``relay`` on an ``RLock``."""

    KIND = "RLock"


del RelayTests  # a mixin: only its per-kind subclasses run


class LockHelperErrors(HighLevelTestCase):
    """Bad arguments are refused at once; a thread somewhere else than the
    script says raises ``ThreadOrderingError`` naming it and both calls."""

    def setUp(self) -> None:
        self.scenario = new_scenario()
        self.lock = self.scenario.Lock()
        self.api: Any = self.scenario.api(self.lock)
        self.out: list[str] = []

    def holder(self, name: str) -> None:
        with self.lock:
            self.out.append(name)

    def checker(self, name: str) -> None:
        """A worker that looks at the lock (``locked``) before taking it."""
        self.lock.locked()
        self.holder(name)

    def test_non_threads_are_a_type_error_before_anything_runs(self) -> None:
        A, B = spawn_each(self.scenario, "AB", self.holder)
        with self.scenario:
            bad_calls: dict[str, Callable[[], object]] = {
                "relay(A, 'B')": lambda: self.api.relay(A, "B"),
                "relay(None)": lambda: self.api.relay(None),
                "assign('A')": lambda: self.api.assign("A"),
                "assign(A, 2)": lambda: self.api.assign(A, 2),
            }
            for label, call in bad_calls.items():
                with self.subTest(label), unchecked(), \
                        self.assertRaisesRegex(TypeError, "takes threads"):
                    call()  # relay raises here, before it is iterated
            for thread in (A, B):
                self.assertParkedAt(self.scenario, thread, self.lock.acquire)
            self.assertEqual(len(self.scenario.log), 0)
            list(self.api.relay(B, A))
        self.assertEqual(self.out, ["B", "A"])

    def test_relay_to_an_acquirer_at_another_method(self) -> None:
        A = spawn(self.scenario, "A", self.checker, "A")
        B = spawn(self.scenario, "B", self.holder, "B")
        with self.scenario:
            relay = self.api.relay(B, A)
            self.assertIs(next(relay), B)
            with self.assertRaises(blanket.ThreadOrderingError) as caught:
                next(relay)
            message = str(caught.exception)
            for part in ("'A'", "Lock.acquire", "Lock.locked"):
                self.assertIn(part, message)
            self.assertParkedAt(self.scenario, A, self.lock.locked)
        self.assertEqual(self.out, ["B", "A"])  # A finished natively on exit

    def test_relay_from_an_initial_thread_at_another_method(self) -> None:
        A = spawn(self.scenario, "A", self.checker, "A")
        B = spawn(self.scenario, "B", self.holder, "B")
        with self.scenario:
            relay = self.api.relay(A, B)
            with self.assertRaisesRegex(blanket.ThreadOrderingError,
                                        "'A'.*Lock.acquire or Lock.release.*Lock.locked"):
                next(relay)
            self.assertParkedAt(self.scenario, B, self.lock.acquire)
        self.assertEqual(sorted(self.out), ["A", "B"])

    def test_assign_to_a_thread_that_terminated(self) -> None:
        A = spawn(self.scenario, "A", self.out.append, "A")
        with self.scenario:
            self.scenario.wait(blanket.Terminated(A))
            with self.assertRaisesRegex(blanket.ThreadOrderingError, "'A' terminated"):
                self.api.assign(A)
        self.assertEqual(self.out, ["A"])
