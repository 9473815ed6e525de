"""blanket.progress driven by hand: which sleepers wake by themselves, the
stuck report's wording, abandoning threads (blanket.Abandoned), and
ScenarioTestCase.assertNoDeadlock."""

from __future__ import annotations

import threading
import unittest
from typing import Any
from unittest import mock

import blanket
from blanket import Parked, Scenario, Stalled, Waiting, progress

from .support import quiet_thread_errors

BOUND = 5.0  # every wait of these tests ends well within it


def sub_run(case: type[unittest.TestCase], name: str) -> unittest.TestResult:
    """Run one test method of *case* in a result of its own."""
    result = unittest.TestResult()
    case(name).run(result)
    return result


def nested(first: Any, second: Any) -> Any:
    """A thread target taking *first*, then *second*, then letting both go."""
    def target() -> None:
        with first, second:
            pass
    return target


def report(scenario: Scenario) -> str:
    core = scenario._core
    with core.lock:
        return progress.stuck_report(core)


def wakes(scenario: Scenario, tx: blanket.Transaction) -> bool:
    core = scenario._core
    with core.lock:
        return progress.wakes(core, tx)


class LookedAtFirst(unittest.TestCase):
    """A script's wait looks at the thread it let go before every other: while
    that thread runs, nothing is settled, and no other thread is looked at
    (the look at every thread made a wait's cost grow with their number)."""

    def test_a_round_robin_looks_at_no_other_thread(self) -> None:
        scenario = Scenario(timeout=BOUND)
        lock = scenario.Lock()

        def worker() -> None:
            for _ in range(3):
                lock.acquire()
                lock.release()

        workers = [scenario.thread(worker) for _ in range(8)]
        with scenario:
            for thread in workers:
                scenario.skip(thread, lock.acquire, lock.release)
            with mock.patch.object(progress, "settled", wraps=progress.settled) as looked:
                for thread in workers:
                    scenario.skip(thread, lock.acquire, lock.release)
            scenario.finish(*workers)
        self.assertEqual(looked.call_count, 0)
        self.assertEqual(len(scenario.log), 8 * 6)

    def test_the_thread_let_go_counts_only_while_it_is_live_and_moving(self) -> None:
        scenario = Scenario(timeout=BOUND)
        lock = scenario.Lock()
        A = scenario.thread(nested(lock, scenario.Lock()))
        core = scenario._core
        with scenario:
            scenario.wait(Parked(A))
            with core.lock:
                self.assertIsNone(core.moved)
                self.assertFalse(progress._moving(core))
                parker = core.let_go(core.chain(A)[-1])  # its wake not delivered yet
                self.assertIs(core.moved, A)
                self.assertTrue(progress._moving(core))
                self.assertFalse(progress.settled(core))
                self.assertEqual(progress.deadlocked(core), [])
            parker.deliver()
            scenario.wait(Parked(A))  # at its next call: let go last, parked since
            with core.lock:
                self.assertFalse(progress._moving(core))
                self.assertTrue(progress.settled(core))
            scenario.finish(A)
            with core.lock:
                self.assertIs(core.moved, A)
                self.assertFalse(progress._moving(core))  # it ended


class StuckReport(blanket.ScenarioTestCase):
    stall_timeout = BOUND

    def abba(self) -> tuple[threading.Thread, threading.Thread, Any, Any]:
        """A holds Lock 1 and B Lock 2, each parked at the other's acquire."""
        first, second = self.scenario.Lock(), self.scenario.Lock()
        a = self.thread(nested(first, second))
        b = self.thread(nested(second, first))
        return a, b, first, second

    def test_the_cycle_comes_first(self) -> None:
        a, b, first, second = self.abba()
        c = self.thread(nested(first, second))
        scenario = self.scenario
        with scenario:
            scenario.skip(a, first.acquire)
            scenario.skip(b, second.acquire)
            for thread in (a, b, c):
                scenario.wait(Parked(thread))
            self.assertEqual(report(scenario),
                             "deadlock: A holds Lock 1 and waits for Lock 2; "
                             "B holds Lock 2 and waits for Lock 1\n"
                             "also stuck: C waits for Lock 1")
            self.assertNoDeadlockFails()

    def assertNoDeadlockFails(self) -> None:  # noqa: N802 - unittest style
        with self.assertRaises(self.failureException) as caught:
            self.assertNoDeadlock()
        self.assertIn("deadlock: A holds", str(caught.exception))

    def test_the_message_shows_the_threads_as_they_were_stuck(self) -> None:
        a, b, first, second = self.abba()
        scenario = self.scenario
        real_report = Scenario.report

        def late_report(this: Scenario) -> str:
            # A report taken once the stuck threads were let go finds them
            # unwound: wait for that, to be sure.
            for thread in (a, b):
                thread.join(BOUND)
            return real_report(this)

        with scenario:
            scenario.skip(a, first.acquire)
            scenario.skip(b, second.acquire)
            scenario.wait(Parked(a))
            scenario.wait(Parked(b))
            with mock.patch.object(Scenario, "report", late_report), \
                    self.assertRaises(self.failureException) as caught:
                self.assertNoDeadlock()
        message = str(caught.exception)
        self.assertIn("'A': Lock.acquire BLOCKED on Lock 2", message)
        self.assertNotIn("terminated", message)

    def test_names_given_to_primitives_are_used(self) -> None:
        a, b, first, second = self.abba()
        scenario = self.scenario
        scenario.api(first).name = "accounts"
        scenario.api(second).name = "ledger"
        with scenario:
            scenario.skip(a, first.acquire)
            scenario.skip(b, second.acquire)
            scenario.wait(Parked(a))
            scenario.wait(Parked(b))
            self.assertEqual(report(scenario),
                             "deadlock: A holds accounts and waits for ledger; "
                             "B holds ledger and waits for accounts")
            self.assertNoDeadlockFails()

    def test_stuck_without_a_cycle(self) -> None:
        lock = self.scenario.Lock()
        a = self.thread(nested(lock, lock))  # a Lock is not re-entrant
        b = self.thread(nested(lock, self.scenario.Lock()))
        scenario = self.scenario
        with scenario:
            scenario.skip(a, lock.acquire)
            scenario.wait(Parked(a))
            scenario.wait(Parked(b))
            tx = scenario.skip(b, lock.acquire)[b]  # sleeps in the real acquire
            scenario.wait(Waiting(tx))
            self.assertFalse(wakes(scenario, tx))
            self.assertEqual(report(scenario),
                             "stuck, with nothing left to wake them: "
                             "A holds Lock 1 and waits for Lock 1; B waits for Lock 1")
            with self.assertRaises(self.failureException) as caught:
                self.assertNoDeadlock("self-deadlock")
            # A unwinds from Abandoned, releasing the lock natively; B gets it.
        message = str(caught.exception)
        self.assertIn("self-deadlock", message)
        self.assertIn("A holds Lock 1 and waits for Lock 1", message)
        self.assertIn("'B': Lock.acquire WAITING on Lock 1", message)

    def test_a_condition_waiter_waits_for_the_lock_under_it(self) -> None:
        lock = self.scenario.Lock()
        ready = self.scenario.Condition(lock)
        scenario = self.scenario

        def wait() -> None:
            with ready:
                ready.wait()

        def notify_and_keep() -> None:
            with ready:
                ready.notify()
                lock.acquire()  # a Lock under a Condition is no more re-entrant

        a = self.thread(wait)
        b = self.thread(notify_and_keep)
        with scenario:
            scenario.skip(a, ready.acquire)
            tx = scenario.skip(a, ready.wait)[a]
            scenario.wait(Waiting(tx))
            scenario.skip(b, ready.acquire, ready.notify)
            scenario.wait(Stalled(tx))
            scenario.wait(Parked(b))
            self.assertEqual(report(scenario),
                             "stuck, with nothing left to wake them: "
                             "A waits for Lock 1; B holds Condition 1 and waits for Lock 1")
            with self.assertRaises(self.failureException):
                self.assertNoDeadlock()

    def test_nothing_to_report_for_threads_outside_calls(self) -> None:
        lock = self.scenario.Lock()
        self.thread(nested(lock, lock))
        self.threads_must_run = False  # made to be looked at before it starts
        self.assertEqual(report(self.scenario), "")  # not started: not inside a call
        core = self.scenario._core
        with core.lock:
            self.assertFalse(progress.settled(core))


class Wakes(blanket.ScenarioTestCase):
    """Which sleepers inside a real primitive will wake without a call."""

    stall_timeout = BOUND

    def test_semaphore_lock_and_event(self) -> None:
        scenario = self.scenario
        slots, lock, event = scenario.Semaphore(0), scenario.Lock(), scenario.Event()
        a = self.thread(slots.acquire)
        b = self.thread(lock.acquire)
        c = self.thread(event.wait)
        raw_lock = scenario.raw(lock)
        raw_lock.acquire()
        with scenario:
            # Asked of the parked calls: would they wake if they slept now?
            calls = scenario.park(a, slots.acquire, b, lock.acquire, c, event.wait)
            parked = [calls[a], calls[b], calls[c]]
            self.assertEqual(len(scenario.wait(progress.Settled())), 1)
            self.assertEqual([wakes(scenario, tx) for tx in parked], [False] * 3)
            scenario.raw(slots).release()
            raw_lock.release()
            scenario.raw(event).set()
            self.assertEqual([wakes(scenario, tx) for tx in parked], [True] * 3)
            scenario.finish(a, b, c)
        self.assertTrue(all(tx.result for tx in parked))

    def test_condition_sleepers(self) -> None:
        scenario = self.scenario
        ready = scenario.Condition()
        core = scenario._core

        def wait(timeout: float | None) -> None:
            with ready:
                ready.wait(timeout)

        a = self.thread(wait, None)
        b = self.thread(wait, BOUND)
        with scenario:
            sleepers = []
            for thread in (a, b):
                scenario.skip(thread, ready.acquire)
                sleepers.append(scenario.skip(thread, ready.wait)[thread])
                scenario.wait(Waiting(sleepers[-1]))
            # B's wait has a deadline: it ends by itself.
            self.assertEqual([wakes(scenario, tx) for tx in sleepers], [False, True])
            # Notified, A stays WAITING until it gets the scenario's lock.
            with core.lock:
                with scenario.raw(ready):
                    scenario.raw(ready).notify()
                self.assertTrue(progress.wakes(core, sleepers[0]))
            scenario.wait(Stalled(sleepers[0]))
            scenario.finish(a)
            with scenario.raw(ready):
                scenario.raw(ready).notify()
            scenario.finish(b)


class AssertNoDeadlock(blanket.ScenarioTestCase):
    stall_timeout = BOUND

    def test_passes_while_a_call_can_be_let_go(self) -> None:
        lock = self.scenario.Lock()
        a = self.thread(nested(lock, self.scenario.Lock()))
        with self.scenario:
            self.assertNoDeadlock()
            self.scenario.finish(a)
            self.assertNoDeadlock()  # nobody left

    def test_passes_while_a_sleeper_will_wake(self) -> None:
        scenario = self.scenario
        event = scenario.Event()
        a = self.thread(event.wait, BOUND)
        with scenario:
            tx = scenario.skip(a, event.wait)[a]
            scenario.wait(Waiting(tx))
            scenario.raw(event).set()
            self.assertNoDeadlock()
            scenario.wait(tx)

    def test_fails_and_abandons_the_stuck_threads(self) -> None:
        seen: list[BaseException] = []
        after: list[bool] = []
        thirds: list[Any] = []
        scenarios: list[Scenario] = []

        class Deadlocked(blanket.ScenarioTestCase):
            stall_timeout = BOUND

            def test_abba(self) -> None:
                first, second = self.scenario.Lock(), self.scenario.Lock()
                third = self.scenario.Lock()
                thirds.append(third)
                scenarios.append(self.scenario)

                def forwards() -> None:
                    try:
                        with first, second:
                            pass
                    except BaseException as error:
                        seen.append(error)
                        # Later calls go straight to the real primitive.
                        after.append(third.acquire(False))
                        raise

                a = self.thread(forwards)
                b = self.thread(nested(second, first))
                with self.scenario:
                    self.scenario.skip(a, first.acquire)
                    self.scenario.skip(b, second.acquire)
                    self.scenario.wait(Parked(a))
                    self.scenario.wait(Parked(b))
                    self.assertNoDeadlock()

        with quiet_thread_errors() as uncaught:
            result = sub_run(Deadlocked, "test_abba")
        self.assertEqual(result.errors, [])
        self.assertEqual(len(result.failures), 1)
        message = result.failures[0][1]
        self.assertIn("deadlock: A holds Lock 1 and waits for Lock 2; "
                      "B holds Lock 2 and waits for Lock 1", message)
        self.assertIn("scenario 'test_abba' (entered); threads:", message)
        # Cleanup joined both threads; neither died of an error.
        self.assertNotIn("still running", message)
        self.assertNotIn("died of an exception", message)
        self.assertEqual(uncaught, [])
        self.assertEqual(len(seen), 1)
        self.assertIsInstance(seen[0], blanket.Abandoned)
        self.assertNotIsInstance(seen[0], Exception)
        self.assertEqual(str(seen[0]), "thread 'A' was abandoned by the scheduler")
        self.assertEqual(after, [True])
        self.assertEqual([tx for tx in scenarios[0].log if tx.primitive is thirds[0]], [])

    def test_a_sleeper_nothing_wakes_is_woken_when_abandoned(self) -> None:
        scenario = self.scenario
        event = scenario.Event()
        a = self.thread(event.wait)
        with scenario:
            tx = scenario.skip(a, event.wait)[a]
            scenario.wait(Waiting(tx))
            with self.assertRaises(self.failureException) as caught:
                self.assertNoDeadlock()
            scenario.wait(tx)
        self.assertIn("stuck, with nothing left to wake them: A waits in Event.wait "
                      "on Event 1", str(caught.exception))
        # Abandon set the event to wake it; the wait unwinds rather than say
        # True (before: it returned True, as if the event had been set).
        self.assertIsInstance(tx.result, blanket.Abandoned)


if __name__ == "__main__":  # pragma: no cover
    unittest.main()
