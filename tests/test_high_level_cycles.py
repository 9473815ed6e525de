"""``api.cycle``: one wait / open cycle of an Event, a Condition or a Barrier.

The waiters (every thread named but the last) go into their waits, the last
thread opens (sets, notifies, arrives last), and the woken waiters are held
until the cycle wakes them, by default in the order they were named. Each
worker records what it did after its wait, so the list shows the wake order;
the log, read before the scenario exits, shows every call in order. The
methods of the :class:`~blanket.Cycle` object itself are tested in
``test_high_level_cycle_methods``.
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


class EventCycle(HighLevelTestCase):
    """Event: the waiters wait, the last thread sets; the woken waiters are
    held at ``PAUSED`` until the cycle wakes them."""

    def setUp(self) -> None:
        self.scenario = new_scenario()
        self.event = self.scenario.Event()
        self.api: Any = self.scenario.api(self.event)
        self.out: list[str] = []

    def waiter(self, name: str) -> None:
        self.event.wait()
        self.out.append(name)

    def spawn_all(self) -> list[threading.Thread]:
        """Waiters A and B, then setter C, created in that order."""
        return [*spawn_each(self.scenario, "AB", self.waiter),
                spawn(self.scenario, "C", self.event.set)]

    def test_waiters_wait_and_the_last_thread_sets(self) -> None:
        A, B, C = threads = self.spawn_all()
        with self.scenario:
            with self.api.cycle(B, A, C) as cycle:
                self.assertIsInstance(cycle, blanket.Cycle)
                self.assertEqual(names(cycle.held), ["B", "A", "C"])
                for thread in (B, A):
                    tx = self.assertParkedAt(self.scenario, thread, self.event.wait,
                                             State.PAUSED)
                    self.assertIs(tx.result, True)  # the wait is over, the thread held
                self.assertTrue(self.scenario.raw(self.event).is_set())
                self.assertEnded(self.scenario, C)
                self.assertEqual(self.out, [])
                self.assertLog(self.scenario, ["C:Event.set"])
            self.assertEqual(self.out, ["B", "A"])
            self.assertLog(self.scenario, ["C:Event.set", "B:Event.wait", "A:Event.wait"])
        self.assertAllFinished(threads)

    def test_the_wake_order_is_chosen_in_the_block(self) -> None:
        A, B, C = self.spawn_all()
        with self.scenario:
            with self.api.cycle(B, A, C) as cycle:
                cycle.wake(A)
                self.assertEqual(self.out, ["A"])
                self.assertParkedAt(self.scenario, B, self.event.wait, State.PAUSED)
            self.assertEqual(self.out, ["A", "B"])
            self.assertLog(self.scenario, ["C:Event.set", "A:Event.wait", "B:Event.wait"])

    def test_an_event_already_set_still_holds_its_waiters(self) -> None:
        A, B, C = self.spawn_all()
        self.scenario.raw(self.event).set()
        with self.scenario:
            with self.api.cycle(A, B, C) as cycle:
                self.assertParkedAt(self.scenario, A, self.event.wait, State.PAUSED)
                self.assertEqual(cycle.wake(B, A), (B, A))
            self.assertEqual(self.out, ["B", "A"])

    def test_fewer_than_two_threads_is_a_value_error(self) -> None:
        A, B, C = self.spawn_all()
        with self.scenario:
            for threads in ((), (C,)):
                with self.subTest(threads=names(threads)), \
                        self.assertRaisesRegex(ValueError, "at least one waiter and the opener"):
                    self.api.cycle(*threads)
            self.assertParkedAt(self.scenario, C, self.event.set)  # nothing was let go
            with self.api.cycle(A, B, C):
                pass
        self.assertEqual(self.out, ["A", "B"])

    def test_non_threads_are_a_type_error(self) -> None:
        A, B, C = self.spawn_all()
        with self.scenario:
            with unchecked(), self.assertRaisesRegex(TypeError, "cycle takes threads"):
                self.api.cycle(A, "B", C)
            self.assertParkedAt(self.scenario, A, self.event.wait)  # nothing was let go
            self.assertEqual(len(self.scenario.log), 0)

    def test_an_opener_at_another_method_leaves_no_waiter_held(self) -> None:
        A, B = spawn_each(self.scenario, "AB", self.waiter)
        C = spawn(self.scenario, "C", self.event.clear)
        with self.scenario:
            with self.assertRaisesRegex(blanket.ThreadOrderingError,
                                        "'C'.*Event.set.*Event.clear"):
                self.api.cycle(B, A, C)
            waits = [current(self.scenario, thread) for thread in (B, A)]
            self.scenario.wait(*self.api.unblock(self.event.clear, C))
            # The test opens the event itself: the waits must end, as no
            # cycle is left to wake them.
            self.scenario.raw(self.event).set()
            self.wait_all(self.scenario, waits)
            for tx in waits:
                self.assertIs(tx.state, State.RETURNED, tx)


class ConditionCycle(HighLevelTestCase):
    """Condition: waiters (at their ``with cond:`` acquire or already at
    ``cond.wait``) wait, the opener notifies and stays parked at its release
    (as in blanket 1.0); the woken waiters stall, the first wake lets the
    opener's release go, and the wake order decides who re-acquires first."""

    def setUp(self) -> None:
        self.scenario = new_scenario()
        self.cond = self.scenario.Condition()
        self.api: Any = self.scenario.api(self.cond)
        self.items: list[int] = []
        self.out: list[str] = []

    def use(self, cond: Any) -> None:
        """Make the workers use *cond* instead (a condition over another lock)."""
        self.cond = cond
        self.api = self.scenario.api(cond)

    def consumer(self, name: str) -> None:
        with self.cond:
            while not self.items:
                self.cond.wait()
            self.out.append(f"{name} took {self.items.pop(0)}")

    def predicate_consumer(self, name: str) -> None:
        with self.cond:
            self.cond.wait_for(lambda: self.items)
            self.out.append(f"{name} took {self.items.pop(0)}")

    def producer(self, count: int) -> None:
        with self.cond:
            self.items.extend(range(1, count + 1))
            if count == 1:
                self.cond.notify()
            else:
                self.cond.notify_all()

    def spawn_all(self, consumer: Callable[[str], None] | None = None
                  ) -> list[threading.Thread]:
        """Consumers A and B, then producer P of two items, in that order."""
        return [*spawn_each(self.scenario, "AB", consumer or self.consumer),
                spawn(self.scenario, "P", self.producer, 2)]

    def setup_log(self, *waiters: str) -> list[str]:
        """The log once the cycle is set up and a waiter woken: each waiter's
        acquire, then the producer's acquire, notify_all and release."""
        return ([f"{name}:Condition.acquire" for name in waiters]
                + ["P:Condition.acquire", "P:Condition.notify_all", "P:Condition.release"])

    def release_last(self, waiter: threading.Thread) -> None:
        """The last waiter woken is parked at its release, holding the lock
        (as in blanket 1.0): let that go, as a 1.0 script does."""
        self.assertParkedAt(self.scenario, waiter, self.cond.release)
        self.scenario.wait(*self.api.unblock(self.cond.release, waiter))

    @staticmethod
    def woken_log(*waiters: str) -> list[str]:
        """The log of each woken waiter: its re-acquire (the nested acquire),
        the end of its wait, and its release."""
        return [f"{name}:Condition.{method}" for name in waiters
                for method in ("acquire", "wait", "release")]

    def test_waiters_and_opener_at_their_acquires(self) -> None:
        A, B, P = threads = self.spawn_all()
        with self.scenario:
            with self.api.cycle(B, A, P) as cycle:
                self.assertEqual(names(cycle.held), ["B", "A", "P"])
                for thread in (B, A):
                    self.assertParkedAt(self.scenario, thread, self.cond.wait, State.STALLED)
                # The producer notified, and is parked at its release,
                # holding the lock.
                self.assertParkedAt(self.scenario, P, self.cond.release)
                self.assertTrue(is_held(self.scenario.raw(self.cond)))
                self.assertEqual(self.out, [])
                self.assertLog(self.scenario, self.setup_log("B", "A")[:-1])
            self.assertEqual(self.out, ["B took 1", "A took 2"])
            self.release_last(A)
            self.assertLog(self.scenario, self.setup_log("B", "A") + self.woken_log("B", "A"))
            self.assertEnded(self.scenario, P)
        self.assertAllFinished(threads)

    def test_a_blanket_1_0_script_lets_the_opener_release_itself(self) -> None:
        A, B, P = self.spawn_all()
        with self.scenario:
            with self.api.cycle(B, A, P) as cycle:
                (release,) = self.api.unblock(self.cond.release, P)
                self.scenario.wait(release)
                self.assertEnded(self.scenario, P)
                self.assertFalse(is_held(self.scenario.raw(self.cond)))
                self.assertEqual(cycle.wake(A), (A,))  # the release is not let go again
            self.assertEqual(self.out, ["A took 1", "B took 2"])
            self.release_last(B)
            self.assertLog(self.scenario, self.setup_log("B", "A") + self.woken_log("A", "B"))

    def test_the_wake_order_decides_who_reacquires_first(self) -> None:
        A, B, P = self.spawn_all()
        with self.scenario:
            with self.api.cycle(B, A, P) as cycle:
                self.assertEqual(cycle.wake(A), (A,))
                self.assertEqual(self.out, ["A took 1"])
                # A holds the lock, parked at its release: waking B lets it go.
                self.assertParkedAt(self.scenario, A, self.cond.release)
                self.assertParkedAt(self.scenario, B, self.cond.wait, State.STALLED)
            self.assertEqual(self.out, ["A took 1", "B took 2"])
            self.assertEnded(self.scenario, A)
            self.release_last(B)
            self.assertLog(self.scenario, self.setup_log("B", "A") + self.woken_log("A", "B"))

    def test_a_waiter_already_at_its_wait(self) -> None:
        A, B, P = self.spawn_all()
        with self.scenario:
            # B holds the condition's lock, parked at the start of its wait.
            self.api.unblock(self.cond.acquire, B)
            self.assertParkedAt(self.scenario, B, self.cond.wait)
            with self.api.cycle(B, A, P):
                pass
            self.assertEqual(self.out, ["B took 1", "A took 2"])
            self.release_last(A)
            self.assertLog(self.scenario, self.setup_log("B", "A") + self.woken_log("B", "A"))

    def test_an_opener_already_past_its_acquire_notifies_one(self) -> None:
        P = spawn(self.scenario, "P", self.producer, 1)
        A = spawn(self.scenario, "A", self.consumer, "A")
        with self.scenario:
            self.api.unblock(self.cond.acquire, A)
            self.assertParkedAt(self.scenario, A, self.cond.wait)  # A holds the lock
            acquire = self.api.unblock(self.cond.acquire, P)[0]
            self.scenario.wait(blanket.Reached(acquire, State.WAITING))
            # P takes the lock as soon as A's wait gives it up: the cycle
            # finds P at its notify.
            with self.api.cycle(A, P):
                self.assertEqual(self.out, [])
            self.assertEqual(self.out, ["A took 1"])
            self.release_last(A)
            self.assertLog(self.scenario, [
                "A:Condition.acquire", "P:Condition.acquire", "P:Condition.notify",
                "P:Condition.release", *self.woken_log("A")])

    def test_an_opener_that_takes_the_lock_directly(self) -> None:
        plain = threading.Lock()
        self.use(self.scenario.Condition(plain))

        def producer() -> None:
            with plain:  # not through the condition: nothing for blanket to see
                self.items.append(1)
                self.cond.notify()

        A = spawn(self.scenario, "A", self.consumer, "A")
        with self.scenario:
            self.api.unblock(self.cond.acquire, A)
            self.assertParkedAt(self.scenario, A, self.cond.wait)  # A holds the lock
            # Started now, P waits for the lock natively until A's wait gives it up.
            P = spawn(self.scenario, "P", producer)
            with self.api.cycle(A, P):
                self.assertEnded(self.scenario, P)
            self.assertEqual(self.out, ["A took 1"])
            self.release_last(A)
            self.assertLog(self.scenario, ["A:Condition.acquire", "P:Condition.notify",
                                           *self.woken_log("A")])

    def test_waiters_using_wait_for(self) -> None:
        # blanket 1.0 documents cycle's waiters as "calling a wait or
        # wait_for method".
        A, B, P = self.spawn_all(self.predicate_consumer)
        with self.scenario:
            with self.api.cycle(B, A, P):
                self.assertEqual(self.out, [])
            self.assertEqual(self.out, ["B took 1", "A took 2"])

    def test_fewer_than_two_threads_is_a_value_error(self) -> None:
        A, B, P = self.spawn_all()
        with self.scenario:
            with self.assertRaisesRegex(ValueError, "at least one waiter and the opener"):
                self.api.cycle(P)
            self.assertParkedAt(self.scenario, P, self.cond.acquire)  # nothing was let go
            self.assertEqual(len(self.scenario.log), 0)


class BarrierCycle(HighLevelTestCase):
    """Barrier: every party, the last named arriving last; they are held
    after the barrier opens and leave it in the named order. ``scheduler=``
    drives the calls the barrier's action makes."""

    def setUp(self) -> None:
        self.scenario = new_scenario()
        self.out: list[str] = []

    def barrier(self, parties: int, action: Callable[[], object] | None = None) -> Any:
        self.bar = self.scenario.Barrier(parties, action)
        self.api: Any = self.scenario.api(self.bar)
        return self.bar

    def party(self, name: str) -> None:
        """Wait at the barrier; record the arrival index it returned."""
        index = self.bar.wait()
        self.out.append(f"{name}{index}")

    def test_all_parties_the_last_named_opens(self) -> None:
        self.barrier(3)
        A, B, C = threads = spawn_each(self.scenario, "ABC", self.party)
        with self.scenario:
            with self.api.cycle(C, A, B) as cycle:
                self.assertEqual(names(cycle.held), ["C", "A", "B"])
                # They arrived in the order named: B last, opening the barrier.
                for index, thread in enumerate((C, A, B)):
                    tx = self.assertParkedAt(self.scenario, thread, self.bar.wait,
                                             State.PAUSED)
                    self.assertEqual(tx.result, index)
                self.assertEqual(self.scenario.raw(self.bar).n_waiting, 0)  # open
                self.assertEqual(self.out, [])
                self.assertEqual(len(self.scenario.log), 0)
            self.assertEqual(self.out, ["C0", "A1", "B2"])
            self.assertLog(self.scenario, ["C:Barrier.wait", "A:Barrier.wait",
                                           "B:Barrier.wait"])
        self.assertAllFinished(threads)

    def test_the_parties_leave_in_the_order_woken(self) -> None:
        self.barrier(3)
        A, B, C = spawn_each(self.scenario, "ABC", self.party)
        with self.scenario:
            with self.api.cycle(C, A, B) as cycle:
                self.assertEqual(cycle.wake(B, C), (B, C))
                self.assertEqual(self.out, ["B2", "C0"])
            self.assertEqual(self.out, ["B2", "C0", "A1"])
            self.assertLog(self.scenario, ["B:Barrier.wait", "C:Barrier.wait",
                                           "A:Barrier.wait"])

    def test_scheduler_drives_the_calls_of_the_barrier_action(self) -> None:
        done = self.scenario.Event()
        self.barrier(3, done.set)
        A, B, C = spawn_each(self.scenario, "ABC", self.party)
        seen: list[str] = []

        def scheduler() -> None:
            # The action runs in A, the last to arrive, before anyone leaves.
            tx = self.assertParkedAt(self.scenario, A, done.set)
            self.assertIsNone(tx.parent)  # A's barrier wait is pushed aside
            self.scenario.wait(*self.scenario.api(done).unblock(done.set, A))
            seen.append(f"action ran; out={self.out}")

        with self.scenario:
            with self.api.cycle(B, C, A, scheduler=scheduler):
                self.assertEqual(seen, ["action ran; out=[]"])
                self.assertTrue(self.scenario.raw(done).is_set())
            self.assertEqual(self.out, ["B0", "C1", "A2"])
            self.assertLog(self.scenario, ["A:Event.set", "B:Barrier.wait",
                                           "C:Barrier.wait", "A:Barrier.wait"])

    def test_a_scheduler_for_a_barrier_without_action_is_a_value_error(self) -> None:
        self.barrier(2)
        A, B = spawn_each(self.scenario, "AB", self.party)
        with self.scenario:
            with self.assertRaisesRegex(ValueError, "has no action"):
                self.api.cycle(B, A, scheduler=lambda: None)
            self.assertParkedAt(self.scenario, B, self.bar.wait)  # nothing was let go
            with self.api.cycle(B, A):
                pass
            self.assertEqual(self.out, ["B0", "A1"])

    def test_a_scheduler_that_is_not_callable_is_a_type_error(self) -> None:
        self.barrier(2, action=lambda: None)
        A, B = spawn_each(self.scenario, "AB", self.party)
        with self.scenario:
            with unchecked(), self.assertRaisesRegex(TypeError, "scheduler must be callable"):
                self.api.cycle(B, A, scheduler="run")
            self.assertParkedAt(self.scenario, B, self.bar.wait)
            self.assertEqual(len(self.scenario.log), 0)

    def test_naming_the_wrong_number_of_parties_is_a_value_error(self) -> None:
        self.barrier(3)
        A, B, C = spawn_each(self.scenario, "ABC", self.party)
        D = spawn(self.scenario, "D", lambda: None)
        with self.scenario:
            for threads in ((), (C,), (C, A), (C, A, B, D)):
                with self.subTest(threads=names(threads)), \
                        self.assertRaisesRegex(ValueError, f"its 3 parties, not {len(threads)}"):
                    self.api.cycle(*threads)
            self.assertParkedAt(self.scenario, C, self.bar.wait)  # nothing was let go
            self.assertEqual(len(self.scenario.log), 0)

    def test_non_threads_are_a_type_error(self) -> None:
        self.barrier(2)
        A, _ = spawn_each(self.scenario, "AB", self.party)
        with self.scenario:
            with unchecked(), self.assertRaisesRegex(TypeError, "cycle takes threads"):
                self.api.cycle(A, "B")
            self.assertParkedAt(self.scenario, A, self.bar.wait)
