"""The Semaphore and BoundedSemaphore helper: ``api.allocate``.

``allocate(*threads, pause=False)`` lets each named thread's next acquire or
release go, in the order named, and yields the thread once its call is done.
Each test runs on a ``Semaphore`` and on a ``BoundedSemaphore`` (one class per
kind, from a mixin); the workers record what they did right after each call.
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
)


class AllocateTests(HighLevelTestCase):
    """``allocate`` over a pool of slots; the kind comes from the subclass."""

    #: The primitive kind under test: "Semaphore" or "BoundedSemaphore".
    KIND = ""

    def setUp(self) -> None:
        self.scenario = new_scenario()
        self.out: list[str] = []

    def semaphore(self, value: int) -> Any:
        """A semaphore of the kind under test, with *value* slots."""
        self.sem = getattr(self.scenario, self.KIND)(value)
        self.api: Any = self.scenario.api(self.sem)
        return self.sem

    # -- workers ------------------------------------------------------------------

    def user(self, name: str) -> None:
        """Take a slot, record *name*, give the slot back."""
        with self.sem:
            self.out.append(name)

    def taker(self, name: str) -> None:
        """Only take a slot (someone else gives it back)."""
        self.sem.acquire()
        self.out.append(f"{name} took")

    def giver(self, name: str) -> None:
        """Only give a slot back."""
        self.sem.release()
        self.out.append(f"{name} gave")

    def spawn_users(self) -> list[threading.Thread]:
        """Threads A, B, C (created in that order), each a :meth:`user`."""
        return [spawn(self.scenario, name, self.user, name) for name in "ABC"]

    def calls(self, *entries: str) -> list[str]:
        """Log entries: ``"C+"`` is C's acquire, ``"C-"`` its release."""
        method = {"+": "acquire", "-": "release"}
        return [f"{entry[0]}:{self.KIND}.{method[entry[1]]}" for entry in entries]

    # -- tests --------------------------------------------------------------------

    def test_a_pool_of_two_slots_in_the_named_order(self) -> None:
        self.semaphore(2)
        A, B, C = self.spawn_users()
        with self.scenario:
            yielded = []
            for thread in self.api.allocate(C, A, C, B, A, B):
                yielded.append(thread.name)
                # The thread's call is done when it is yielded.
                self.assertEqual(self.scenario.log[-1].thread, thread)
            self.assertEqual(yielded, ["C", "A", "C", "B", "A", "B"])
            self.assertEqual(self.out, ["C", "A", "B"])
            self.assertLog(self.scenario, self.calls("C+", "A+", "C-", "B+", "A-", "B-"))
        self.assertAllFinished([A, B, C])

    def test_both_slots_taken_at_a_yield(self) -> None:
        self.semaphore(2)
        A, B, C = self.spawn_users()
        raw = self.scenario.raw(self.sem)
        with self.scenario:
            allocation = self.api.allocate(B, C, B, A, C, A)
            self.assertEqual(len(self.scenario.log), 0)  # lazy: nothing yet
            self.assertEqual(names([next(allocation), next(allocation)]), ["B", "C"])
            self.assertTrue(is_held(raw))  # both slots are taken
            self.assertParkedAt(self.scenario, A, self.sem.acquire)
            self.assertParkedAt(self.scenario, B, self.sem.release)
            self.assertParkedAt(self.scenario, C, self.sem.release)
            self.assertEqual(names(allocation), ["B", "A", "C", "A"])
            self.assertEqual(self.out, ["B", "C", "A"])

    def test_acquirers_and_a_releaser_mixed(self) -> None:
        self.semaphore(1)
        A = spawn(self.scenario, "A", self.taker, "A")
        B = spawn(self.scenario, "B", self.giver, "B")
        C = spawn(self.scenario, "C", self.taker, "C")
        with self.scenario:
            self.assertEqual(names(self.api.allocate(C, B, A)), ["C", "B", "A"])
            self.assertEqual(self.out, ["C took", "B gave", "A took"])
            self.assertLog(self.scenario, self.calls("C+", "B-", "A+"))
        self.assertAllFinished([A, B, C])

    def test_pause_holds_each_acquire_until_the_thread_is_named_again(self) -> None:
        self.semaphore(2)
        A, B, C = self.spawn_users()
        with self.scenario:
            named: set[threading.Thread] = set()
            for thread in self.api.allocate(C, A, C, B, A, B, pause=True):
                if thread not in named:
                    named.add(thread)
                    # First time named: its acquire is PAUSED after the real call.
                    tx = current(self.scenario, thread)
                    self.assertEqual(tx.method, self.sem.acquire)
                    self.assertIs(tx.state, State.PAUSED)
                    self.assertIs(tx.result, True)
                    self.assertNotIn(thread.name, self.out)
                else:
                    # Named again: let go, it ran its section, then released.
                    tx = self.scenario.log[-1]
                    self.assertIs(tx.thread, thread)
                    self.assertEqual(tx.method, self.sem.release)
                    self.assertIn(thread.name, self.out)
            self.assertEqual(self.out, ["C", "A", "B"])
            # A paused acquire finishes (and is logged) only once it is let go.
            self.assertLog(self.scenario, self.calls("C+", "C-", "A+", "A-", "B+", "B-"))

    def test_pause_leaves_an_acquirer_never_named_again_paused(self) -> None:
        self.semaphore(1)
        A = spawn(self.scenario, "A", self.taker, "A")
        B = spawn(self.scenario, "B", self.giver, "B")
        C = spawn(self.scenario, "C", self.taker, "C")
        with self.scenario:
            self.assertEqual(names(self.api.allocate(C, B, A, pause=True)), ["C", "B", "A"])
            self.assertEqual(self.out, ["B gave"])  # releases are never paused
            paused = [current(self.scenario, thread) for thread in (C, A)]
            for tx in paused:
                self.assertIs(tx.state, State.PAUSED)
                tx.unpause()
                self.scenario.wait(blanket.Terminated(tx.thread))
            self.assertEqual(self.out, ["B gave", "C took", "A took"])
            self.assertLog(self.scenario, self.calls("B-", "C+", "A+"))

    def test_pause_leaves_alone_an_acquire_the_test_unpaused_itself(self) -> None:
        self.semaphore(2)
        A, B, _ = self.spawn_users()
        with self.scenario:
            named: set[threading.Thread] = set()
            for thread in self.api.allocate(B, A, B, A, pause=True):
                if thread not in named:
                    named.add(thread)
                    current(self.scenario, thread).unpause()  # the test lets it go itself
                    self.assertParkedAt(self.scenario, thread, self.sem.release)
            self.assertEqual(self.out, ["B", "A"])
            self.assertLog(self.scenario, self.calls("B+", "A+", "B-", "A-"))

    def test_no_threads_or_non_threads_are_a_type_error_before_anything_runs(self) -> None:
        self.semaphore(1)
        A = spawn(self.scenario, "A", self.user, "A")
        with self.scenario:
            with self.assertRaisesRegex(TypeError, "at least one thread"):
                self.api.allocate()
            bad_calls: dict[str, Callable[[], object]] = {
                "allocate('A')": lambda: self.api.allocate("A"),
                "allocate(A, None)": lambda: self.api.allocate(A, None),
            }
            for label, call in bad_calls.items():
                with self.subTest(label), unchecked(), \
                        self.assertRaisesRegex(TypeError, "allocate takes threads"):
                    call()  # raises here, before it is iterated
            self.assertParkedAt(self.scenario, A, self.sem.acquire)
            self.assertEqual(len(self.scenario.log), 0)
            self.assertEqual(names(self.api.allocate(A, A)), ["A", "A"])
            self.assertEqual(self.out, ["A"])

    def test_a_thread_at_another_primitive_is_a_thread_ordering_error(self) -> None:
        self.semaphore(1)
        other = self.scenario.Event()
        A = spawn(self.scenario, "A", other.set)
        with self.scenario:
            allocation = self.api.allocate(A)
            with self.assertRaisesRegex(blanket.ThreadOrderingError,
                                        f"'A'.*{self.KIND}.acquire or {self.KIND}.release"
                                        ".*Event.set"):
                next(allocation)
            self.assertParkedAt(self.scenario, A, other.set)


class AllocateSemaphore(AllocateTests):
    """``allocate`` on a ``Semaphore``."""

    KIND = "Semaphore"


class AllocateBoundedSemaphore(AllocateTests):
    """``allocate`` on a ``BoundedSemaphore``."""

    KIND = "BoundedSemaphore"


del AllocateTests  # a mixin: only its per-kind subclasses run
