"""blanket.explore and timed calls: a call whose outcome depends on its
timeout is two choices, waited for in time or expired at once, and the
depth-first search runs both wherever the call is, so that its verdict of
"the whole space" holds (issue 15).

A run that lets a timed call wait "in time" for what never comes is cut
short, as covered by the run where it expires: each setup here makes its
timed call after a few steps of its own (*busy*), deeper than the search's
split (see :func:`blanket.explore`'s *split_depth*), where before only the
reversals of races chose what else to run and the expiry was never run."""

from __future__ import annotations

import itertools
import threading
import unittest
from collections.abc import Callable
from typing import Any

from blanket import Exploration, Scenario
from blanket.primitives import Event

from .test_explore import explore

# Steps each setup's timed call comes after: none, and more than the split.
PRELUDES = (0, 6)
# No bound on preemptions, and none allowed: the run where another thread
# goes before the timed call (whose reversal asks for both ways of it) is
# then not made, and only the search itself can ask for the expiry.
BOUNDS = (None, 0)


def busy(scenario: Scenario, steps: int) -> Callable[[], None]:
    """A thread's first *steps* steps (acquire, release), on a lock of its own."""
    lock = scenario.Lock()

    def run() -> None:
        for _ in range(steps // 2):
            with lock:
                pass
    return run


def waiter(scenario: Scenario, prelude: int) -> tuple[Event, list[bool]]:
    """Thread A: *prelude* steps, then a wait of 30 s on a new Event; the
    Event, and a list that gets what the wait returned."""
    event = scenario.Event()
    first = busy(scenario, prelude)
    returned: list[bool] = []

    def wait() -> None:
        first()
        returned.append(event.wait(30))

    scenario.thread(wait)
    return event, returned


def ran(result: Exploration) -> None:
    """Check *result* is a whole search without failure."""
    assert result.ok, result
    assert result.exhausted, result


class LoneTimedWaitTest(unittest.TestCase):
    """The only thread waits 30 s on an Event nobody sets: it expires."""

    def test_the_expiry_is_run_and_the_wait_returns_false(self) -> None:
        for prelude in PRELUDES:
            with self.subTest(prelude=prelude):
                self._lone_wait(prelude)

    def _lone_wait(self, prelude: int) -> None:
        outcomes: list[list[bool]] = []

        def setup(scenario: Scenario) -> Callable[[], None]:
            _, returned = waiter(scenario, prelude)
            return lambda: outcomes.append(list(returned))

        result = explore(setup)
        ran(result)
        self.assertEqual(result.count, 1, result)
        self.assertEqual(result.schedules, [("A",) * prelude + ("A*",)])
        self.assertEqual(outcomes, [[False]])  # checked in the counted run only
        self.assertIn("dfs: 1 distinct schedule(s), the whole space", str(result))
        self.assertEqual(result.runs, 2)  # the "in time" run, cut short

    def test_the_run_cut_short_does_not_go_on_as_if_the_event_were_set(self) -> None:
        # Before: the cut-short run woke the wait by setting the real event,
        # and the thread ran on with True, though nothing set the event.
        returns: list[bool] = []

        def setup(scenario: Scenario) -> None:
            event = scenario.Event()
            scenario.thread(lambda: returns.append(event.wait(30)))

        result = explore(setup)
        ran(result)
        self.assertEqual(result.runs, 2)
        self.assertEqual(returns, [False])  # the expiry's; nothing from the cut run

    def test_nor_as_if_the_condition_were_notified(self) -> None:
        # A cut-short run wakes a Condition's waiter as a notify would; the
        # waiter takes its lock back through blanket, where it unwinds.
        for wait in ((lambda cond: cond.wait(30)),
                     (lambda cond: cond.wait_for(lambda: False, 30))):
            returns: list[bool] = []

            def setup(scenario: Scenario, wait: Any = wait, returns: list[bool] = returns
                      ) -> None:
                cond = scenario.Condition()

                def waiter() -> None:
                    with cond:
                        returns.append(wait(cond))

                scenario.thread(waiter)

            with self.subTest(wait=wait):
                result = explore(setup)
                ran(result)
                self.assertEqual(result.runs, 2)
                self.assertEqual(returns, [False])


class TimedWaitWithSetterTest(unittest.TestCase):
    """A waits 30 s on an Event that B sets: the wait is set in time, expires
    before the set, or starts after it."""

    def test_every_order_is_run_and_returns_what_it_says(self) -> None:
        for prelude, bound in itertools.product(PRELUDES, BOUNDS):
            with self.subTest(prelude=prelude, max_preemptions=bound):
                self._orders(prelude, bound)

    def _orders(self, prelude: int, bound: int | None) -> None:
        outcomes: list[bool] = []  # what the wait returned, run by counted run

        def setup(scenario: Scenario) -> Callable[[], None]:
            event, returned = waiter(scenario, prelude)
            scenario.thread(event.set)
            return lambda: outcomes.extend(returned)

        result = explore(setup, max_preemptions=bound)
        ran(result)
        a = ("A",) * prelude
        reached = dict(zip(result.schedules, outcomes, strict=True))
        # The set comes in time, or the wait expires before it.
        self.assertEqual(reached.get((*a, "A", "B")), True, result.schedules)
        self.assertEqual(reached.get((*a, "A*", "B")), False, result.schedules)
        if bound is None:
            # Or the set comes before the wait starts (which goes at
            # once, its timeout playing no part); A's lock commutes with B.
            self.assertEqual(reached.get((*a, "B", "A")), True, result.schedules)
            self.assertEqual(result.count, 3)


class TimedJoinOfAdoptedThreadTest(unittest.TestCase):
    """A starts a thread with ``threading.Thread`` and joins it with a timeout."""

    def test_a_join_of_a_thread_that_cannot_end_expires(self) -> None:
        for prelude in PRELUDES:
            with self.subTest(prelude=prelude):
                self._join_expires(prelude)

    def _join_expires(self, prelude: int) -> None:
        alive: list[bool] = []

        def setup(scenario: Scenario) -> None:
            release = scenario.Event()
            first = busy(scenario, prelude)

            def parent() -> None:
                first()
                helper = threading.Thread(target=release.wait)
                helper.start()
                helper.join(timeout=30)  # the helper waits for what comes after
                alive.append(helper.is_alive())
                release.set()

            scenario.thread(parent)

        result = explore(setup)
        ran(result)
        self.assertEqual(alive, [True])  # only the expired join returned
        self.assertEqual(result.count, 1, result.schedules)
        self.assertIn((*("A",) * prelude, "A", "A*", "A", "A.1", "A.1"), result.schedules)

    def test_a_join_waits_in_time_or_expires(self) -> None:
        for prelude, bound in itertools.product(PRELUDES, BOUNDS):
            with self.subTest(prelude=prelude, max_preemptions=bound):
                self._join_both(prelude, bound)

    def _join_both(self, prelude: int, bound: int | None) -> None:
        alive: list[bool] = []

        def setup(scenario: Scenario) -> None:
            lock = scenario.Lock()
            first = busy(scenario, prelude)

            def parent() -> None:
                first()
                helper = threading.Thread(target=lock.acquire)
                helper.start()
                helper.join(timeout=30)
                alive.append(helper.is_alive())

            scenario.thread(parent)

        result = explore(setup, max_preemptions=bound)
        ran(result)
        self.assertEqual(sorted(set(alive)), [False, True])  # it ended in time, or not
        self.assertTrue(any("A*" in schedule for schedule in result.schedules),
                        result.schedules)


if __name__ == "__main__":
    unittest.main()


def zero_timeout_try(scenario: Scenario) -> Callable[[], None]:
    """A tries a semaphore with a zero timeout while B may give it a slot:
    a try never waits, so it gets the slot only if B gave it first."""
    slot = scenario.Semaphore(0)
    given: list[bool] = []
    got: list[bool] = []

    def tries() -> None:
        before = bool(given)
        got.append(slot.acquire(timeout=0))
        assert got[-1] == before or got[-1], "a try waited for the slot"

    def gives() -> None:
        slot.release()
        given.append(True)

    scenario.thread(tries)
    scenario.thread(gives)

    def invariant() -> None:
        assert got, "the try never returned"
    return invariant


class ZeroTimeoutTest(unittest.TestCase):
    """A zero timeout is a try: the call returns at once with what the state
    says, one choice, never "waited for in time" (the standard library's
    ThreadPoolExecutor tries its idle semaphore so at every submit)."""

    def test_a_try_is_one_choice_never_disregarded_nor_expired(self) -> None:
        result = explore(zero_timeout_try, races="off")
        self.assertTrue(result.ok, result)
        self.assertTrue(result.exhausted, result)
        # The try before the release or after it; never expired ("A*"),
        # and no run cut short as a wait for ever.
        self.assertEqual(sorted(result.schedules), [("A", "B"), ("B", "A")])
        self.assertEqual(result.runs, 2, result)


def lone_timed_slot(scenario: Scenario) -> Callable[[], None]:
    """A waits at most a while for a slot nobody gives: it times out."""
    slot = scenario.Semaphore(0)
    got: list[bool] = []
    scenario.thread(lambda: got.append(slot.acquire(timeout=5)))

    def invariant() -> None:
        assert got == [False], got
    return invariant


class LoneTimedSemaphoreTest(unittest.TestCase):
    """The run that lets a timed semaphore acquire wait "in time" for a slot
    nobody gives is dropped, its sleeper woken so that it unwinds: it was
    left asleep, the run reported a stall of correct code, and its thread
    outlived the search."""

    def test_the_expiry_is_the_one_order_and_no_thread_is_left(self) -> None:
        before = set(threading.enumerate())
        result = explore(lone_timed_slot)
        self.assertTrue(result.ok, result)
        self.assertTrue(result.exhausted, result)
        self.assertEqual(result.schedules, [("A*",)])
        self.assertEqual(set(threading.enumerate()) - before, set())
