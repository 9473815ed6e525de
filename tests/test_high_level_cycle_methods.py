"""The :class:`~blanket.Cycle` that ``api.cycle`` returns: ``held``,
``wake``, ``pause``, iteration, ``close``, calling it, its ``repr``, and
leaving its ``with`` block normally or by an exception.

Threads are created A, B, C and named to the cycle in another order. Most
tests use an Event; the Condition and Barrier tests check what differs for
them (the lock a Condition waiter takes back, the opener a Barrier holds).
"""

from __future__ import annotations

import threading
from typing import Any

import blanket
from blanket import State

from .test_high_level_support import (
    HighLevelTestCase,
    current,
    is_held,
    new_scenario,
    spawn,
    spawn_each,
)


class CycleTestCase(HighLevelTestCase):
    """Workers for an Event, a Condition and a Barrier cycle (no tests)."""

    def setUp(self) -> None:
        self.scenario = new_scenario()
        self.out: list[str] = []

    def event_threads(self) -> list[threading.Thread]:
        """Waiters A and B, then setter C, on a new event (``self.event``)."""
        self.event = event = self.scenario.Event()

        def waiter(name: str) -> None:
            event.wait()
            self.out.append(name)

        return [*spawn_each(self.scenario, "AB", waiter),
                spawn(self.scenario, "C", event.set)]

    def condition_threads(self, waiters: str = "AB") -> list[threading.Thread]:
        """The *waiters*, then notifier C, on a new condition (``self.cond``)."""
        self.cond = cond = self.scenario.Condition()

        def waiter(name: str) -> None:
            with cond:
                cond.wait()
                self.out.append(name)

        def notifier() -> None:
            with cond:
                cond.notify_all()

        return [*spawn_each(self.scenario, waiters, waiter),
                spawn(self.scenario, "C", notifier)]

    def barrier_threads(self) -> list[threading.Thread]:
        """Parties A, B and C of a new barrier (``self.barrier``)."""
        self.barrier = barrier = self.scenario.Barrier(3)

        def party(name: str) -> None:
            barrier.wait()
            self.out.append(name)

        return spawn_each(self.scenario, "ABC", party)

    def cycle(self, primitive: Any, *threads: threading.Thread) -> Any:
        """``scenario.api(primitive).cycle(*threads)``."""
        return self.scenario.api(primitive).cycle(*threads)


class HeldAndWake(CycleTestCase):
    """``held`` lists the threads not yet woken; ``wake()`` wakes the first
    and returns it, ``wake(X, Y)`` wakes those and returns the tuple."""

    def test_held_lists_every_thread_not_yet_woken_opener_included(self) -> None:
        A, B, C = self.event_threads()
        with self.scenario:
            with self.cycle(self.event, B, A, C) as cycle:
                self.assertIsInstance(cycle.held, tuple)
                self.assertEqual(cycle.held, (B, A, C))
                cycle.wake(A)
                self.assertEqual(cycle.held, (B, C))
            self.assertEqual(cycle.held, ())

    def test_wake_without_arguments_wakes_the_first_held_and_returns_it(self) -> None:
        A, B, C = self.event_threads()
        with self.scenario:
            with self.cycle(self.event, B, A, C) as cycle:
                self.assertIs(cycle.wake(), B)
                self.assertEqual(self.out, ["B"])
                self.assertEnded(self.scenario, B)
                self.assertParkedAt(self.scenario, A, self.event.wait, State.PAUSED)
                self.assertIs(cycle.wake(), A)
                self.assertEqual(self.out, ["B", "A"])
            self.assertLog(self.scenario, ["C:Event.set", "B:Event.wait", "A:Event.wait"])

    def test_wake_with_threads_wakes_them_in_that_order_and_returns_the_tuple(self) -> None:
        A, B, C = self.barrier_threads()
        with self.scenario:
            with self.cycle(self.barrier, B, A, C) as cycle:
                self.assertEqual(cycle.wake(C, B), (C, B))
                self.assertEqual(self.out, ["C", "B"])
                self.assertEqual(cycle.held, (A,))
            self.assertEqual(self.out, ["C", "B", "A"])
            self.assertLog(self.scenario, ["C:Barrier.wait", "B:Barrier.wait",
                                           "A:Barrier.wait"])

    def test_waking_the_opener_of_a_condition_cycle_lets_its_release_go(self) -> None:
        A, B, C = self.condition_threads()
        with self.scenario:
            with self.cycle(self.cond, B, A, C) as cycle:
                self.assertParkedAt(self.scenario, C, self.cond.release)
                logged = len(self.scenario.log)
                self.assertEqual(cycle.wake(C), (C,))  # it has notified already
                self.assertEqual(cycle.held, (B, A))
                self.assertEqual(len(self.scenario.log), logged + 1)
                self.assertEnded(self.scenario, C)
                for thread in (B, A):
                    self.assertParkedAt(self.scenario, thread, self.cond.wait, State.STALLED)
                self.assertEqual(self.out, [])
            self.assertEqual(self.out, ["B", "A"])

    def test_pausing_the_opener_of_an_event_cycle_does_nothing(self) -> None:
        A, B, C = self.event_threads()
        with self.scenario:
            with self.cycle(self.event, B, A, C) as cycle:
                logged = len(self.scenario.log)
                self.assertEqual(cycle.pause(C), (C,))  # it has set the event already
                self.assertEqual(cycle.held, (B, A))
                self.assertEqual(len(self.scenario.log), logged)
                for thread in (B, A):
                    self.assertParkedAt(self.scenario, thread, self.event.wait, State.PAUSED)
                self.assertEqual(self.out, [])
            self.assertEqual(self.out, ["B", "A"])


class Pause(CycleTestCase):
    """``pause()`` and ``pause(X, ...)``: the thread ends its wait and stays
    ``PAUSED`` until the test calls ``tx.unpause()``; the cycle forgets it."""

    def test_pause_without_arguments_pauses_the_first_held(self) -> None:
        A, B, C = self.event_threads()
        with self.scenario:
            with self.cycle(self.event, B, A, C) as cycle:
                self.assertIs(cycle.pause(), B)
                tx = self.assertParkedAt(self.scenario, B, self.event.wait, State.PAUSED)
                self.assertTrue(tx.pause)
                self.assertEqual(cycle.held, (A, C))
                cycle.wake(A)  # A goes; B stays paused
                self.assertEqual(self.out, ["A"])
            self.assertEqual(self.out, ["A"])  # leaving the block leaves B paused
            self.assertParkedAt(self.scenario, B, self.event.wait, State.PAUSED)
            tx.unpause()
            self.scenario.wait(blanket.Terminated(B))
            self.assertEqual(self.out, ["A", "B"])
            self.assertLog(self.scenario, ["C:Event.set", "A:Event.wait", "B:Event.wait"])

    def test_pause_named_threads_returns_the_tuple(self) -> None:
        A, B, C = self.barrier_threads()
        with self.scenario:
            with self.cycle(self.barrier, C, A, B) as cycle:
                self.assertEqual(cycle.pause(B, C), (B, C))
                self.assertEqual(cycle.held, (A,))
            self.assertEqual(self.out, ["A"])
            for thread in (C, B):
                tx = self.assertParkedAt(self.scenario, thread, self.barrier.wait,
                                         State.PAUSED)
                tx.unpause()
                self.scenario.wait(blanket.Terminated(thread))
            self.assertEqual(self.out, ["A", "C", "B"])

    def test_a_paused_condition_waiter_has_taken_the_lock_back(self) -> None:
        A, B, C = self.condition_threads()
        raw = self.scenario.raw(self.cond)
        with self.scenario:
            with self.cycle(self.cond, B, A, C) as cycle:
                self.assertEqual(cycle.pause(A), (A,))
                tx = self.assertParkedAt(self.scenario, A, self.cond.wait, State.PAUSED)
                self.assertTrue(is_held(raw))  # A re-acquired before pausing
                self.assertEqual(self.out, [])
                tx.unpause()
                self.assertParkedAt(self.scenario, A, self.cond.release)
                self.assertEqual(self.out, ["A"])
                self.scenario.wait(*self.scenario.api(self.cond).unblock(self.cond.release, A))
                self.assertFalse(is_held(raw))
                self.assertEqual(cycle.held, (B, C))
            self.assertEqual(self.out, ["A", "B"])
            # B, woken last, is parked at its release (as in blanket 1.0).
            self.scenario.wait(*self.scenario.api(self.cond).unblock(self.cond.release, B))
            self.assertLog(self.scenario, [
                "B:Condition.acquire", "A:Condition.acquire", "C:Condition.acquire",
                "C:Condition.notify_all", "C:Condition.release",
                "A:Condition.acquire", "A:Condition.wait", "A:Condition.release",
                "B:Condition.acquire", "B:Condition.wait", "B:Condition.release"])


class NotHeld(CycleTestCase):
    """Naming a thread the cycle does not hold, or asking for the first one
    when every thread is woken, is a ``ValueError``."""

    def test_a_woken_thread_or_a_stranger_is_not_held(self) -> None:
        A, B, C = self.event_threads()
        stranger = spawn(self.scenario, "D", lambda: None)
        with self.scenario:
            with self.cycle(self.event, B, A, C) as cycle:
                cycle.wake(B)
                for verb in ("wake", "pause"):
                    for thread in (B, stranger):
                        with self.subTest(verb=verb, thread=thread.name), \
                                self.assertRaisesRegex(
                                    ValueError, rf"cannot {verb} .*\b{thread.name}\b.*not held"):
                            getattr(cycle, verb)(thread)
                with self.assertRaisesRegex(ValueError, "not held"):
                    cycle.wake(A, B)  # checked before anything is woken
                self.assertEqual(cycle.held, (A, C))
                self.assertEqual(self.out, ["B"])
            self.assertEqual(self.out, ["B", "A"])

    def test_the_errors_name_the_primitive(self) -> None:
        # SPEC 2: a bad-input error names the thread, the primitive and the method.
        A, B, C = self.event_threads()
        self.scenario.api(self.event).name = "ready"
        with self.scenario:
            with self.cycle(self.event, B, A, C) as cycle:
                cycle.wake(B)
                with self.assertRaisesRegex(ValueError, "'ready'"):
                    cycle.wake(B)
                cycle.close()
                with self.assertRaisesRegex(ValueError, "'ready'"):
                    cycle.wake()

    def test_wake_or_pause_when_every_thread_is_woken(self) -> None:
        A, B, C = self.event_threads()
        with self.scenario:
            with self.cycle(self.event, B, A, C) as cycle:
                cycle.close()
                for verb in ("wake", "pause"):
                    with self.subTest(verb), self.assertRaisesRegex(
                            ValueError, f"cannot {verb}: every thread of the cycle is woken"):
                        getattr(cycle, verb)()
            self.assertEqual(self.out, ["B", "A"])


class IterateCloseCall(CycleTestCase):
    """Iterating wakes the held threads one by one; ``close()`` and calling
    the cycle wake them all; the ``repr`` names the primitive and who is held."""

    def test_iteration_wakes_and_yields_each_held_thread_in_order(self) -> None:
        A, B, C = self.event_threads()
        with self.scenario:
            with self.cycle(self.event, B, A, C) as cycle:
                woken = []
                for thread in cycle:
                    woken.append(thread.name)
                    self.assertEqual(self.out, [name for name in woken if name != "C"])
                self.assertEqual(woken, ["B", "A", "C"])
                self.assertEqual(list(cycle), [])
            self.assertLog(self.scenario, ["C:Event.set", "B:Event.wait", "A:Event.wait"])

    def test_close_wakes_every_held_thread_in_order(self) -> None:
        A, B, C = self.barrier_threads()
        with self.scenario:
            cycle = self.cycle(self.barrier, C, B, A)
            cycle.wake(B)
            cycle.close()
            self.assertEqual(cycle.held, ())
            self.assertEqual(self.out, ["B", "C", "A"])
            cycle.close()  # nothing left: nothing happens
            self.assertLog(self.scenario, ["B:Barrier.wait", "C:Barrier.wait",
                                           "A:Barrier.wait"])

    def test_calling_the_cycle_closes_it(self) -> None:
        A, B, C = self.condition_threads()
        with self.scenario:
            cycle = self.cycle(self.cond, B, A, C)
            self.assertIsNone(cycle())
            self.assertEqual(cycle.held, ())
            self.assertEqual(self.out, ["B", "A"])
        self.assertAllFinished([A, B, C])

    def test_repr_names_the_primitive_and_the_held_threads(self) -> None:
        A, B, C = self.event_threads()
        with self.scenario:
            with self.cycle(self.event, B, A, C) as cycle:
                self.assertRegex(repr(cycle), r"^<blanket Cycle on Event \d+ 0X[0-9A-F]+ "
                                              r"holding 'B', 'A', 'C'>$")
                self.scenario.api(self.event).name = "ready"
                cycle.wake()
                self.assertEqual(repr(cycle), "<blanket Cycle on 'ready' holding 'A', 'C'>")
            self.assertEqual(repr(cycle), "<blanket Cycle on 'ready' holding nobody>")


class LeftByAnException(CycleTestCase):
    """An exception in the ``with`` block propagates; the threads still held
    are let go (nobody is woken in order, nothing is waited for), so the
    workers finish and the scenario exits cleanly."""

    def test_event_waiters_are_let_go(self) -> None:
        A, B, C = threads = self.event_threads()
        with self.scenario:
            with self.assertRaises(KeyError), self.cycle(self.event, B, A, C) as cycle:
                waits = [current(self.scenario, thread) for thread in (B, A)]
                raise KeyError("in the block")
            self.assertEqual(cycle.held, ())
            self.wait_all(self.scenario, waits)  # both waits end on their own
        self.assertAllFinished(threads)
        self.assertEqual(sorted(self.out), ["A", "B"])

    def test_barrier_parties_are_let_go_but_not_one_the_test_paused(self) -> None:
        A, B, C = threads = self.barrier_threads()
        with self.scenario:
            with self.assertRaises(KeyError), self.cycle(self.barrier, C, A, B) as cycle:
                cycle.pause(A)
                waits = [current(self.scenario, thread) for thread in (C, B)]
                raise KeyError("in the block")
            self.wait_all(self.scenario, waits)
            self.assertParkedAt(self.scenario, A, self.barrier.wait, State.PAUSED)
            self.assertEqual(sorted(self.out), ["B", "C"])
        self.assertAllFinished(threads)
        self.assertEqual(sorted(self.out), ["A", "B", "C"])

    def test_a_stalled_condition_waiter_is_let_go(self) -> None:
        A, C = threads = self.condition_threads("A")
        with self.scenario:
            with self.assertRaises(KeyError), self.cycle(self.cond, A, C) as cycle:
                wait = current(self.scenario, A)
                self.assertIs(wait.state, State.STALLED)
                raise KeyError("in the block")
            self.assertEqual(cycle.held, ())
            self.scenario.wait(wait)  # C's release went; A re-acquired, its wait ended
            self.assertParkedAt(self.scenario, A, self.cond.release)
            self.assertEqual(self.out, ["A"])
        self.assertAllFinished(threads)

    def test_a_condition_waiter_the_test_let_go_itself_is_left_alone(self) -> None:
        A, B, C = threads = self.condition_threads()
        with self.scenario:
            with self.assertRaises(KeyError), self.cycle(self.cond, A, B, C) as cycle:
                cycle.pause(A)  # A holds the lock again, paused
                wait = current(self.scenario, B)
                wait.unstall()  # B's re-acquire must wait for A
                self.scenario.wait(blanket.Nested(wait))
                reacquire = current(self.scenario, B)
                self.scenario.wait(blanket.Reached(reacquire, State.WAITING))
                raise KeyError("in the block")
            self.assertEqual(cycle.held, ())
            self.assertIs(wait.state, State.RESUMED)
            self.assertIs(reacquire.state, State.WAITING)
        self.assertAllFinished(threads)
        self.assertEqual(self.out, ["A", "B"])
