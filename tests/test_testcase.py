"""ScenarioTestCase: per-test scenarios, thread names, assertion helpers,
cleanup, and the log as a timeline (blanket.timeline, Scenario.format_log)."""

from __future__ import annotations

import itertools
import threading
import time
import unittest
from collections.abc import Callable

import blanket
from blanket import State
from blanket.threads import thread_names
from blanket.timeline import format_schedule, format_timeline

from .support import keeping, quiet_thread_errors

BOUND = 5.0  # every wait of these tests ends well within it



def sub_run(case: type[unittest.TestCase], name: str) -> unittest.TestResult:
    """Run one test method of *case* in a result of its own."""
    result = unittest.TestResult()
    case(name).run(result)
    return result


def locked_section(lock: object) -> Callable[[], None]:
    """A thread target that takes *lock* and lets it go."""
    def target() -> None:
        with lock:  # type: ignore[attr-defined]
            pass
    return target


class Naming(blanket.ScenarioTestCase):
    """Thread names, a fresh scenario per test, the class's bound."""

    stall_timeout = 2.5

    def test_thread_names_go_on_after_z(self) -> None:
        names = list(itertools.islice(thread_names(), 60))
        self.assertEqual(names[:3], ["A", "B", "C"])
        self.assertEqual(names[25], "Z")
        self.assertEqual(names[26:29], ["A1", "B1", "C1"])
        self.assertEqual(names[51], "Z1")
        self.assertEqual(names[52:], ["A2", "B2", "C2", "D2", "E2", "F2", "G2", "H2"])
        self.assertEqual(len(set(names)), 60)

    def test_threads_are_named_in_creation_order(self) -> None:
        event = self.scenario.Event()
        threads = [self.thread(event.is_set) for _ in range(3)]
        self.assertEqual([t.name for t in threads], ["A", "B", "C"])
        threads[1].name = "reader"
        with self.scenario:
            self.scenario.finish(*threads)
        self.assertEqual([t.name for t in threads], ["A", "reader", "C"])
        self.assertEqual([tx.thread.name for tx in self.scenario.log
                          if tx.thread is threads[1]], ["reader"])
        self.assertIn("reader", self.scenario.format_log())

    def test_scenario_is_named_after_the_test_and_bounded(self) -> None:
        scenario = self.scenario
        self.assertIsInstance(scenario, blanket.Scenario)
        self.assertIs(self.scenario, scenario)
        self.assertEqual(scenario.name, "test_scenario_is_named_after_the_test_and_bounded")
        self.assertEqual(scenario.timeout, 2.5)

    def test_each_test_gets_a_fresh_scenario(self) -> None:
        seen: list[blanket.Scenario] = []

        class Case(blanket.ScenarioTestCase):
            def test_one(self) -> None:
                seen.append(self.scenario)

            def test_two(self) -> None:
                seen.append(self.scenario)

        for name in ("test_one", "test_two"):
            self.assertTrue(sub_run(Case, name).wasSuccessful())
        self.assertEqual([s.name for s in seen], ["test_one", "test_two"])
        self.assertIsNot(seen[0], seen[1])
        self.assertEqual(seen[0].timeout, blanket.ScenarioTestCase.stall_timeout)

    def test_names_restart_for_every_test(self) -> None:
        names: list[str] = []

        class Case(blanket.ScenarioTestCase):
            def test_one(self) -> None:
                event = self.scenario.Event()
                names.extend(self.thread(event.is_set).name for _ in range(2))
                with self.scenario:
                    self.scenario.finish(*self.scenario.managed)

        self.assertTrue(sub_run(Case, "test_one").wasSuccessful())
        self.assertTrue(sub_run(Case, "test_one").wasSuccessful())
        self.assertEqual(names, ["A", "B", "A", "B"])


class Helpers(blanket.ScenarioTestCase):
    """The assertion helpers: passing, and failing with a readable message."""

    stall_timeout = BOUND

    def relayed(self) -> tuple[object, threading.Thread, threading.Thread]:
        """A lock taken by B, then by A (each once, released at once)."""
        lock = self.scenario.Lock()
        A = self.thread(locked_section(lock))
        B = self.thread(locked_section(lock))
        with self.scenario:
            list(self.scenario.api(lock).relay(B, A))
            self.scenario.finish(A, B)
        return lock, A, B

    def failure(self, call: Callable[[], object]) -> str:
        with self.assertRaises(self.failureException) as caught:
            call()
        message = str(caught.exception)
        self.assertIn("calls, in the order they ended:", message)
        return message

    def test_acquired_order(self) -> None:
        lock, A, B = self.relayed()
        self.assertAcquiredOrder(lock, [B, A])
        message = self.failure(lambda: self.assertAcquiredOrder(lock, [A, B]))
        self.assertIn("order of acquisitions of Lock", message)
        self.assertIn("expected ['A', 'B']", message)
        self.assertIn("actual   ['B', 'A']", message)
        self.assertIn("Lock.acquire RETURNED -> True", message)
        # expected threads are the first columns of the timeline
        header = message.split("calls, in the order they ended:\n")[1].splitlines()[0]
        self.assertEqual([h.strip() for h in header.split("|")], ["A", "B"])

    def test_acquired_order_names_a_named_lock(self) -> None:
        lock, A, B = self.relayed()
        self.scenario.api(lock).name = "cache lock"  # type: ignore[arg-type]
        message = self.failure(lambda: self.assertAcquiredOrder(lock, [A]))
        self.assertIn("order of acquisitions of 'cache lock'", message)
        self.assertIn("expected ['A']", message)

    def test_acquired_order_counts_only_successful_acquires(self) -> None:
        lock = self.scenario.Lock()
        A = self.thread(lock.acquire, timeout=BOUND)
        with self.scenario, self.scenario.raw(lock):
            (tx,) = self.scenario.api(lock).expire(lock.acquire, A)  # type: ignore[attr-defined]
            tx.unblock()
            self.scenario.wait(tx)
        self.assertAcquiredOrder(lock, [])
        message = self.failure(lambda: self.assertAcquiredOrder(lock, [A]))
        self.assertIn("actual   []", message)

    def test_call_order(self) -> None:
        lock, A, B = self.relayed()
        self.assertCallOrder(lock.release, [B, A])  # type: ignore[attr-defined]
        message = self.failure(
            lambda: self.assertCallOrder(lock.release, [A, B]))  # type: ignore[attr-defined]
        self.assertIn("order of Lock.release calls", message)
        self.assertIn("expected ['A', 'B']", message)
        self.assertIn("actual   ['B', 'A']", message)

    def test_call_order_of_event_set(self) -> None:
        event = self.scenario.Event()
        A, B = self.thread(event.set), self.thread(event.set)
        with self.scenario:
            api = self.scenario.api(event)
            for thread in (B, A):
                (tx,) = api.unblock(event.set, thread)
                self.scenario.wait(tx)
        self.assertCallOrder(event.set, [B, A])
        self.assertCallOrder(event.wait, [])
        message = self.failure(lambda: self.assertCallOrder(event.set, [A]))
        self.assertIn("order of Event.set calls", message)
        self.assertIn("actual   ['B', 'A']", message)

    def test_transaction_state(self) -> None:
        lock, A, B = self.relayed()
        tx = next(tx for tx in self.scenario.log if tx.thread is A)
        self.assertTransactionState(tx, State.RETURNED)
        message = self.failure(lambda: self.assertTransactionState(tx, State.RAISED))
        self.assertIn("Lock.acquire of thread 'A'", message)
        self.assertIn("expected state RAISED", message)
        self.assertIn("actual state   RETURNED", message)
        header = message.split("calls, in the order they ended:\n")[1].splitlines()[0]
        self.assertEqual(header.split("|")[0].strip(), "A")

    def test_timed_out(self) -> None:
        lock = self.scenario.Lock()
        A = self.thread(lock.acquire, timeout=BOUND)
        B = self.thread(lock.acquire, timeout=BOUND)
        C = self.thread(locked_section(lock))
        D = self.thread(lambda: lock.acquire(True, BOUND) and lock.release())
        api = self.scenario.api(lock)
        with self.scenario:
            with self.scenario.raw(lock):
                tx_a = self.scenario.park(A, lock.acquire)[A]
                tx_a.expire()
                tx_a.unblock()
                self.scenario.wait(tx_a)
                (tx_b,) = api.expire(lock.acquire, B)  # type: ignore[attr-defined]
                tx_b.unblock()
                self.scenario.wait(tx_b)
            self.scenario.finish(C, D)
        self.assertIs(self.assertTimedOut(A, lock.acquire), tx_a)
        self.assertIs(self.assertTimedOut(B, lock.acquire), tx_b)
        self.assertIs(tx_a.result, False)
        # a call with a timeout that succeeded
        message = self.failure(lambda: self.assertTimedOut(D, lock.acquire))
        self.assertIn("Lock.acquire of thread 'D'", message)
        self.assertIn("expected it to time out", message)
        self.assertIn("actual   RETURNED result=True timeout=", message)
        # a call without a timeout
        message = self.failure(lambda: self.assertTimedOut(C, lock.acquire))
        self.assertIn("actual   RETURNED result=True timeout=None", message)
        # no such call at all
        message = self.failure(lambda: self.assertTimedOut(C, lock.locked))
        self.assertIn("thread 'C' finished no call of Lock.locked", message)

    def test_call_raised(self) -> None:
        lock = self.scenario.Lock()
        errors: list[BaseException] = []
        A = self.thread(keeping(errors, lock.release))
        B = self.thread(locked_section(lock))
        with self.scenario:
            self.scenario.finish(A)
            self.scenario.finish(B)
        self.assertEqual([type(e) for e in errors], [RuntimeError])
        tx = self.assertCallRaised(A, lock.release, RuntimeError)
        self.assertIs(tx.result, errors[0])
        self.assertIs(tx.state, State.RAISED)
        self.assertIs(self.assertCallRaised(A, lock.release, Exception), tx)
        # the wrong exception
        message = self.failure(lambda: self.assertCallRaised(A, lock.release, ValueError))
        self.assertIn("Lock.release of thread 'A'", message)
        self.assertIn("expected it to raise ValueError", message)
        self.assertIn("actual   RAISED result=RuntimeError(", message)
        self.assertIn("Lock.release RAISED RuntimeError", message)
        # a call that returned
        message = self.failure(lambda: self.assertCallRaised(B, lock.release, RuntimeError))
        self.assertIn("Lock.release of thread 'B'", message)
        self.assertIn("actual   RETURNED result=None", message)
        # no such call
        message = self.failure(lambda: self.assertCallRaised(A, lock.acquire, RuntimeError))
        self.assertIn("thread 'A' finished no call of Lock.acquire", message)

    def test_msg_is_appended(self) -> None:
        lock, A, B = self.relayed()
        with self.assertRaises(self.failureException) as caught:
            self.assertAcquiredOrder(lock, [A, B], msg="the cache filled twice")
        message = str(caught.exception)
        self.assertIn("calls, in the order they ended:", message)
        self.assertTrue(message.endswith(" : the cache filled twice"), message)
        self.longMessage = False
        try:
            with self.assertRaises(self.failureException) as caught:
                self.assertCallOrder(lock.release, [A, B],  # type: ignore[attr-defined]
                                     msg="only this")
        finally:
            self.longMessage = True
        self.assertEqual(str(caught.exception), "only this")

    def test_helpers_on_an_empty_log(self) -> None:
        lock = self.scenario.Lock()
        A = self.thread(lambda: None)
        with self.scenario:
            self.scenario.wait(blanket.Terminated(A))
        self.assertAcquiredOrder(lock, [])
        message = self.failure(lambda: self.assertAcquiredOrder(lock, [A]))
        self.assertIn("(no calls logged)", message)


class Cleanup(unittest.TestCase):
    """Whatever the test did, cleanup exits, joins, and reports."""

    def test_a_thread_that_died_fails_the_test(self) -> None:
        class Case(blanket.ScenarioTestCase):
            stall_timeout = 0.3

            def test_x(self) -> None:
                A = self.thread(lambda: 1 / 0)
                with self.scenario:
                    self.scenario.wait(blanket.Terminated(A))

        with quiet_thread_errors() as seen:
            result = sub_run(Case, "test_x")
        self.assertEqual(result.errors, [])
        self.assertEqual(len(result.failures), 1)
        text = result.failures[0][1]
        self.assertIn("thread 'A' died of an exception", text)
        self.assertIn("Traceback (most recent call last)", text)
        self.assertIn("ZeroDivisionError: division by zero", text)
        self.assertIn("1 / 0", text)
        self.assertEqual([args.exc_type for args in seen], [ZeroDivisionError])

    def test_a_thread_still_running_fails_the_test(self) -> None:
        gate = threading.Event()  # a raw Event: never regulated
        threads: list[threading.Thread] = []

        class Case(blanket.ScenarioTestCase):
            stall_timeout = 0.3

            def test_x(self) -> None:
                threads.append(self.thread(gate.wait, BOUND))
                threads[0].name = "sleeper"
                with self.assertRaises(blanket.StallError):
                    with self.scenario:
                        pass

        try:
            result = sub_run(Case, "test_x")
        finally:
            gate.set()
            for thread in threads:
                thread.join(BOUND)
        self.assertFalse(any(t.is_alive() for t in threads))
        self.assertEqual(result.errors, [])
        self.assertEqual(len(result.failures), 1)
        text = result.failures[0][1]
        self.assertIn("threads still running at the end of the test", text)
        self.assertIn("'sleeper'", text)

    def test_a_stalled_script_errors_within_the_bound(self) -> None:
        class Case(blanket.ScenarioTestCase):
            stall_timeout = 0.3

            def test_x(self) -> None:
                lock = self.scenario.Lock()
                A = self.thread(lock.acquire)
                with self.scenario:
                    self.scenario.wait(A)  # A is parked at its scheduler block
                    self.scenario.wait(blanket.Terminated(A))  # never happens

        start = time.monotonic()
        result = sub_run(Case, "test_x")
        self.assertLess(time.monotonic() - start, BOUND)
        self.assertEqual(result.failures, [])
        self.assertEqual(len(result.errors), 1)
        text = result.errors[0][1]
        self.assertIn("blanket.errors.StallError", text)
        self.assertIn("scenario 'test_x'", text)
        self.assertIn("'A': Lock.acquire BLOCKED", text)

    def test_a_scenario_left_entered_is_exited(self) -> None:
        kept: list[blanket.Scenario] = []
        threads: list[threading.Thread] = []

        class Case(blanket.ScenarioTestCase):
            stall_timeout = BOUND

            def test_x(self) -> None:
                lock = self.scenario.Lock()
                threads.append(self.thread(lock.acquire))
                kept.append(self.scenario.__enter__())
                self.scenario.wait(threads[0])  # parked; nobody lets it go

        result = sub_run(Case, "test_x")
        self.assertTrue(result.wasSuccessful(), result.failures + result.errors)
        self.assertEqual(result.testsRun, 1)
        self.assertEqual(repr(kept[0]), "<blanket.Scenario 'test_x' not entered>")
        self.assertFalse(threads[0].is_alive())

    def test_a_test_without_a_scenario_has_no_cleanup(self) -> None:
        class Case(blanket.ScenarioTestCase):
            def test_x(self) -> None:
                self.assertIsNone(self._blanket_scenario)

        result = sub_run(Case, "test_x")
        self.assertTrue(result.wasSuccessful(), result.failures + result.errors)
        self.assertEqual(result.testsRun, 1)

    def test_threads_made_but_never_run_fail_the_test(self) -> None:
        # The scenario is never entered, so its threads never start: the test
        # checked nothing of what it meant to (it passed before).
        class Case(blanket.ScenarioTestCase):
            stall_timeout = 0.3

            def test_x(self) -> None:
                self.thread(lambda: None)
                self.thread(lambda: None).name = "writer"

        result = sub_run(Case, "test_x")
        self.assertEqual(len(result.failures), 1, result.failures + result.errors)
        self.assertIn("threads 'A', 'writer' never ran: the test made them but did not "
                      "enter 'with self.scenario:'", result.failures[0][1])

    def test_a_thread_made_after_the_scenario_exited_never_ran(self) -> None:
        class Case(blanket.ScenarioTestCase):
            def test_x(self) -> None:
                self.thread(lambda: None)
                with self.scenario:
                    pass
                self.thread(lambda: None)

        result = sub_run(Case, "test_x")
        self.assertEqual(len(result.failures), 1, result.failures + result.errors)
        self.assertIn("threads 'B' never ran", result.failures[0][1])

    def test_threads_must_run_false_says_the_test_never_meant_to(self) -> None:
        class Case(blanket.ScenarioTestCase):
            def test_on_the_class(self) -> None:
                self.thread(lambda: None)

            def test_in_the_test(self) -> None:
                self.thread(lambda: None)
                self.threads_must_run = False

        Case.threads_must_run = False
        result = sub_run(Case, "test_on_the_class")
        self.assertTrue(result.wasSuccessful(), result.failures + result.errors)
        Case.threads_must_run = True
        result = sub_run(Case, "test_in_the_test")
        self.assertTrue(result.wasSuccessful(), result.failures + result.errors)

    def test_a_test_that_failed_or_skipped_first_is_reported_once(self) -> None:
        class Case(blanket.ScenarioTestCase):
            def test_fails(self) -> None:
                self.thread(lambda: None)
                self.fail("the test's own failure")

            def test_skips(self) -> None:
                self.thread(lambda: None)
                self.skipTest("not today")

        result = sub_run(Case, "test_fails")
        self.assertEqual(len(result.failures + result.errors), 1)
        self.assertIn("the test's own failure", result.failures[0][1])
        self.assertNotIn("never ran", result.failures[0][1])
        result = sub_run(Case, "test_skips")
        self.assertEqual((result.failures, result.errors, len(result.skipped)), ([], [], 1))


class Workers(blanket.ScenarioTestCase):
    """self.worker: threads whose call may raise, and self.outcome."""

    stall_timeout = 5.0

    def test_returned_and_raised_values_are_kept_by_name(self) -> None:
        def divide(a: int, b: int = 1) -> float:
            return a / b

        self.worker(divide, 6, b=3)
        self.worker(divide, 1, b=0).name = "zero"
        self.assertEqual(self.outcome, {})  # none has run yet
        with quiet_thread_errors(), self.scenario:
            pass
        outcome = self.outcome
        self.assertEqual(set(outcome), {"A", "zero"})
        self.assertEqual(outcome["A"], 2.0)
        self.assertIsInstance(outcome["zero"], ZeroDivisionError)

    def test_a_worker_still_parked_has_no_outcome(self) -> None:
        lock = self.scenario.Lock()
        A = self.worker(lock.acquire)
        with self.scenario:
            self.scenario.wait(A)
            self.assertEqual(self.outcome, {})
            self.scenario.finish(A)
        self.assertEqual(self.outcome, {"A": True})

    def test_an_outcome_without_workers_is_empty(self) -> None:
        self.assertEqual(self.outcome, {})


class Timeline(unittest.TestCase):
    def test_a_schedule_as_a_timeline(self) -> None:
        from blanket.exploration.result import Step

        schedule = (Step("A", "Lock.acquire", "Lock 1", "BLOCKED"),
                    Step("Beta", "Lock.acquire", "Lock 1", "BLOCKED"),
                    Step("A", "Lock.release", "Lock 1", "BLOCKED"))
        self.assertEqual(format_schedule(schedule).splitlines(), [
            "  A                      | Beta",
            "  -----------------------+-----------------------",
            "  1. Lock 1 Lock.acquire |",
            "                         | 2. Lock 1 Lock.acquire",
            "  3. Lock 1 Lock.release |"])
        self.assertEqual(format_schedule(()), "  (no steps)")

    """format_timeline and Scenario.format_log."""

    def test_empty_log(self) -> None:
        self.assertEqual(format_timeline([]), "(no calls logged)")
        scenario = blanket.Scenario()
        self.assertEqual(scenario.format_log(), "(no calls logged)")
        thread = threading.Thread(target=print)
        self.assertEqual(format_timeline([], [thread]), "(no calls logged)")

    def run_threads(self) -> tuple[blanket.Scenario, list[threading.Thread]]:
        scenario = blanket.Scenario("timeline", timeout=BOUND)
        lock, event = scenario.Lock(), scenario.Event()
        errors: list[BaseException] = []
        threads = [scenario.thread(keeping(errors, lock.release)),
                   scenario.thread(event.set),
                   scenario.thread(lock.acquire)]
        for thread, name in zip(threads, ("A", "B", "C"), strict=True):
            thread.name = name
        with scenario:
            for thread in threads:
                scenario.finish(thread)
        return scenario, threads

    def test_columns_and_cells(self) -> None:
        scenario, (A, B, C) = self.run_threads()
        text = scenario.format_log()
        self.assertEqual(text, format_timeline(scenario.log))
        lines = text.splitlines()
        self.assertTrue(all(line.startswith("  ") for line in lines))
        self.assertEqual([h.strip() for h in lines[0].split("|")], ["A", "B", "C"])
        self.assertEqual(set(lines[1].strip()), {"-", "+"})
        rows = [[c.strip() for c in line.split("|")] for line in lines[2:]]
        self.assertEqual(rows, [["Lock.release RAISED RuntimeError", "", ""],
                                ["", "Event.set RETURNED", ""],
                                ["", "", "Lock.acquire RETURNED -> True"]])
        # the columns line up
        self.assertEqual(len({line.index("|") for line in lines[:3] if "|" in line}), 1)

    def test_given_threads_come_first(self) -> None:
        scenario, (A, B, C) = self.run_threads()
        for given, order in (((C,), ["C", "A", "B"]), ((B, A), ["B", "A", "C"]),
                             ((C, B, A), ["C", "B", "A"])):
            with self.subTest(order=order):
                header = scenario.format_log(*given).splitlines()[0]
                self.assertEqual([h.strip() for h in header.split("|")], order)

    def test_a_given_thread_without_calls_has_a_column(self) -> None:
        scenario, (A, B, C) = self.run_threads()
        idle = threading.Thread(target=print, name="idle")
        lines = format_timeline(scenario.log, [idle]).splitlines()
        self.assertEqual([h.strip() for h in lines[0].split("|")], ["idle", "A", "B", "C"])
        self.assertTrue(all(line.split("|")[0].strip() == "" for line in lines[2:]))

    def test_nested_calls_are_indented(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        cond = scenario.Condition()
        asked: list[int] = []

        def predicate() -> bool:
            asked.append(1)
            return len(asked) > 1

        def waiter() -> None:
            with cond:
                cond.wait_for(predicate)

        def notifier() -> None:
            with cond:
                cond.notify()

        A, B = scenario.thread(waiter), scenario.thread(notifier)
        A.name, B.name = "A", "B"
        with scenario:
            scenario.skip(A, cond.acquire, cond.wait_for)
            nested = scenario.park(A, cond.wait)[A]  # the wait inside wait_for
            nested.unblock()
            scenario.wait(blanket.Waiting(nested))  # asleep: the notify reaches it
            scenario.finish(B)
            scenario.finish(A)
        cells = [line.split("|")[0].rstrip() for line in scenario.format_log(A).splitlines()[2:]]
        cells = [c[2:] for c in cells if c.strip()]
        self.assertIn("  Condition.wait RETURNED -> True", cells)
        self.assertIn("Condition.wait_for RETURNED -> True", cells)
        self.assertIn("    Condition.acquire RETURNED -> True", cells)
        nested = [tx for tx in scenario.log if tx.depth == 1]
        self.assertEqual([tx.spec.name for tx in nested], ["wait"])


if __name__ == "__main__":
    unittest.main()


class Tracebacks(unittest.TestCase):
    """A failing test's traceback shows the test's own line, under
    unittest as under pytest (issue 33): not only blanket's hook around it."""

    def test_the_failing_line_of_the_test_is_shown(self) -> None:
        class Failing(blanket.ScenarioTestCase):
            def test_it(self) -> None:
                self.scenario.Lock()
                self.assertEqual(1, 2)  # the user's line

        result = unittest.TestResult()
        Failing("test_it").run(result)
        [(_, report)] = result.failures
        self.assertIn("self.assertEqual(1, 2)  # the user's line", report)
        self.assertIn(", in test_it\n", report)
        self.assertNotIn("blanket/testcase.py", report)
