"""The Scenario: settings, managed threads, handles, entering and exiting."""

from __future__ import annotations

import gc
import math
import threading
import unittest
from typing import Any

import blanket
from blanket import State
from blanket.gate import label

from .support import quiet_thread_errors, unchecked


class Settings(unittest.TestCase):
    """Name, timeout, recording: checked on the way in."""

    def test_default_and_given_names(self) -> None:
        self.assertRegex(blanket.Scenario().name, r"^Scenario \d+$")
        scenario = blanket.Scenario("cache")
        self.assertEqual(scenario.name, "cache")
        scenario.name = "renamed"
        self.assertEqual(repr(scenario), "<blanket.Scenario 'renamed' not entered>")
        with unchecked(), self.assertRaises(TypeError):
            scenario.name = 3  # type: ignore[assignment]

    def test_timeout_must_be_a_positive_number(self) -> None:
        scenario = blanket.Scenario(timeout=2)
        self.assertEqual(scenario.timeout, 2)
        for bad in (0, -1, math.inf, math.nan, 1e10, -math.inf):
            with self.subTest(bad=bad), self.assertRaisesRegex(
                    ValueError, f"a scenario's timeout is a finite number .* not {bad!r}"):
                scenario.timeout = bad
        for bad in ("1", True, None):
            with self.subTest(bad=bad), unchecked(), \
                    self.assertRaisesRegex(TypeError, "a scenario's timeout"):
                scenario.timeout = bad  # type: ignore[assignment]
        # At the call, not at exit (before: an OverflowError when exiting).
        with self.assertRaisesRegex(ValueError, "timeout"):
            blanket.Scenario(timeout=math.inf)
        self.assertEqual(blanket.Scenario(timeout=threading.TIMEOUT_MAX).timeout,
                         threading.TIMEOUT_MAX)

    def test_wait_timeout_is_checked_at_the_call(self) -> None:
        # Before: inf and 1e10 failed inside the wait with an OverflowError,
        # and a NaN with a message that did not name the argument.
        scenario = blanket.Scenario(timeout=5)
        lock = scenario.Lock()
        worker = scenario.thread(lock.acquire)
        with scenario:
            for bad in (math.inf, math.nan, 1e10, -1):
                with self.subTest(bad=bad), self.assertRaisesRegex(
                        ValueError, "scenario.wait's timeout is a finite number"):
                    scenario.wait(blanket.Terminated(worker), timeout=bad)
            for timeout in (0, 0.001):
                with self.subTest(timeout=timeout), self.assertRaises(TimeoutError):
                    scenario.wait(blanket.Terminated(worker), timeout=timeout)
            scenario.finish(worker)

    def test_stall_timeout_of_a_test_case_is_checked(self) -> None:
        class Unbounded(blanket.ScenarioTestCase):
            stall_timeout = math.inf

            def test_nothing(self) -> None:
                pass  # pragma: no cover - only its scenario is made

        case = Unbounded("test_nothing")
        with self.assertRaisesRegex(ValueError, r"Unbounded\.stall_timeout is a finite"):
            case.scenario  # noqa: B018 - the property makes the scenario

    def test_record_unregulated_flag(self) -> None:
        scenario = blanket.Scenario()
        self.assertFalse(scenario.record_unregulated)
        scenario.record_unregulated = True
        self.assertTrue(scenario.record_unregulated)
        scenario.Lock().acquire()
        self.assertEqual(len(scenario.log), 1)


class ManagedThreads(unittest.TestCase):
    """scenario.thread: started on entry (or at once inside), joined on exit."""

    def test_started_on_entry_and_joined_on_exit(self) -> None:
        scenario = blanket.Scenario(timeout=5)
        ran: list[str] = []
        thread = scenario.thread(ran.append, "ran")
        self.assertIsInstance(thread, threading.Thread)
        self.assertIsNone(thread.ident)
        self.assertIn(thread, scenario.managed)
        self.assertEqual(len(scenario.managed), 1)
        with scenario:
            scenario.wait(blanket.Terminated(thread))
        self.assertFalse(thread.is_alive())
        self.assertEqual(ran, ["ran"])

    def test_created_inside_starts_at_once(self) -> None:
        scenario = blanket.Scenario(timeout=5)
        event = scenario.Event()
        with scenario:
            thread = scenario.thread(event.set)
            tx = scenario.api(event).unblock(event.set, thread)[0]
            scenario.wait(tx)
        self.assertTrue(scenario.raw(event).is_set())

    def test_keyword_arguments_reach_the_target(self) -> None:
        scenario = blanket.Scenario(timeout=5)
        got: dict[str, object] = {}
        scenario.thread(got.update, name="A")
        with scenario:
            pass
        self.assertEqual(got, {"name": "A"})

    def test_target_must_be_callable(self) -> None:
        with unchecked(), self.assertRaises(TypeError):
            blanket.Scenario().thread(42)  # type: ignore[arg-type]

    def test_exception_of_a_managed_thread_is_kept(self) -> None:
        scenario = blanket.Scenario(timeout=5)

        def fail() -> None:
            raise KeyError("boom")

        thread = scenario.thread(fail)
        with quiet_thread_errors() as seen, self.assertRaises(blanket.WorkerError):
            with scenario:
                scenario.wait(blanket.Terminated(thread))
        self.assertIsInstance(scenario._core.errors[thread], KeyError)
        self.assertEqual([args.thread for args in seen], [thread])


class DeadWorkers(unittest.TestCase):
    """Exiting a scenario raises WorkerError for each worker that died of an
    exception (before: the exit passed silently)."""

    @staticmethod
    def fail(error: BaseException) -> None:
        raise error

    def test_exit_names_each_dead_worker_with_its_traceback(self) -> None:
        scenario = blanket.Scenario("dead", timeout=5)
        first = KeyError("first")
        A = scenario.thread(self.fail, first)
        A.name = "A"
        B = scenario.thread(lambda: None)
        C = scenario.thread(self.fail, ValueError("second"))
        C.name = "C"
        with quiet_thread_errors(), self.assertRaises(blanket.WorkerError) as caught:
            with scenario:
                pass
        error = caught.exception
        self.assertIsInstance(error, RuntimeError)
        self.assertEqual(list(error.errors), [A, C])
        self.assertIs(error.__cause__, first)
        message = str(error)
        self.assertIn("scenario 'dead': managed threads 'A', 'C' died of an exception",
                      message)
        self.assertIn("thread 'A' died of an exception:\nTraceback", message)
        self.assertIn("KeyError: 'first'", message)
        self.assertIn("ValueError: second", message)
        self.assertNotIn(B.name, message)
        # Reported once: entering again and exiting does not raise it again.
        with scenario:
            pass

    def test_an_error_of_the_block_wins_and_carries_a_note(self) -> None:
        scenario = blanket.Scenario("noted", timeout=5)
        scenario.thread(self.fail, KeyError("boom"))
        with quiet_thread_errors(), self.assertRaisesRegex(ZeroDivisionError, "zero") as caught:
            with scenario:
                1 / 0  # noqa: B018 - the block's own error
        notes = "\n".join(caught.exception.__notes__)
        self.assertIn("died of an exception", notes)
        self.assertIn("KeyError: 'boom'", notes)

    def test_an_abandoned_worker_does_not_count(self) -> None:
        scenario = blanket.Scenario(timeout=5)
        one, two = scenario.Lock(), scenario.Lock()

        def both(first: blanket.primitives.Lock, second: blanket.primitives.Lock) -> None:
            with first, second:
                pass
        A = scenario.thread(both, one, two)
        B = scenario.thread(both, two, one)
        with self.assertRaises(blanket.DeadlockError):
            with scenario:
                scenario.skip(A, one.acquire, B, two.acquire, wait=True)
                scenario.finish(A, B)
        self.assertEqual(scenario._core.errors, {})

    def test_a_stuck_worker_reports_the_dead_ones_too(self) -> None:
        scenario = blanket.Scenario("both", timeout=0.2)
        release = threading.Event()
        scenario.thread(release.wait, 5)
        scenario.thread(self.fail, KeyError("boom"))
        try:
            with quiet_thread_errors(), self.assertRaises(blanket.StallError) as caught:
                with scenario:
                    pass
        finally:
            release.set()
        self.assertNotIsInstance(caught.exception, blanket.WorkerError)
        self.assertIsInstance(caught.exception.__cause__, KeyError)
        self.assertIn("KeyError: 'boom'", "\n".join(caught.exception.__notes__))


class TransactionsAndLog(unittest.TestCase):
    """Current transactions while inside; the log kept after exit."""

    def test_transactions_mapping_and_log_after_exit(self) -> None:
        scenario = blanket.Scenario(timeout=5)
        lock = scenario.Lock()
        A = scenario.thread(lambda: lock.acquire())
        with scenario:
            scenario.wait(A)
            tx = scenario.transaction(A)
            assert tx is not None
            self.assertEqual(dict(scenario.transactions), {A: tx})
            tx.unblock()
            scenario.wait(tx)
            self.assertIsNone(scenario.transaction(A))
            self.assertEqual(dict(scenario.transactions), {})
        self.assertEqual(list(scenario.log), [tx])
        scenario.reset()
        self.assertEqual(len(scenario.log), 0)

    def test_log_is_emptied_on_entry(self) -> None:
        scenario = blanket.Scenario(timeout=5, record_unregulated=True)
        scenario.Event().set()
        self.assertEqual(len(scenario.log), 1)
        with scenario:
            self.assertEqual(len(scenario.log), 0)

    def test_reentry(self) -> None:
        scenario = blanket.Scenario(timeout=5)
        event = scenario.Event()
        for _ in range(2):
            with scenario:
                thread = scenario.thread(event.is_set)
                tx = scenario.api(event).unblock(event.is_set, thread)[0]
                scenario.wait(tx)
            self.assertEqual([t.result for t in scenario.log], [False])

    def test_entering_twice_is_an_error(self) -> None:
        scenario = blanket.Scenario()
        with scenario:
            with self.assertRaises(RuntimeError):
                scenario.__enter__()


class Handles(unittest.TestCase):
    """api(), raw() and their mappings."""

    def test_api_and_raw(self) -> None:
        scenario = blanket.Scenario()
        lock = scenario.Lock()
        api = scenario.api(lock)
        self.assertIs(scenario.api(lock), api)
        self.assertIsInstance(api, blanket.LockAPI)
        self.assertIs(api.primitive, lock)
        self.assertIs(scenario.raw(lock), lock._real)
        self.assertIs(scenario.apis[lock], api)
        self.assertIs(scenario.raws[lock], lock._real)
        self.assertEqual(list(scenario.apis), [lock])
        self.assertEqual(len(scenario.raws), 1)

    def test_foreign_and_non_primitives(self) -> None:
        scenario, other = blanket.Scenario(), blanket.Scenario()
        foreign = other.Lock()
        with unchecked(), self.assertRaises(TypeError):
            scenario.api(threading.Lock())  # type: ignore[arg-type]
        with self.assertRaisesRegex(ValueError, "another scenario"):
            scenario.raw(foreign)
        with self.assertRaises(KeyError):
            scenario.apis[foreign]

    def test_primitives_are_not_kept_alive(self) -> None:
        scenario = blanket.Scenario()
        lock = scenario.Lock()
        scenario.api(lock)
        del lock
        gc.collect()
        self.assertEqual(len(scenario.apis), 0)


class Exiting(unittest.TestCase):
    """Exit lets parked calls finish natively and joins within the bound."""

    def test_exit_releases_blocked_stalled_and_paused_calls(self) -> None:
        scenario = blanket.Scenario(timeout=5)
        cond = scenario.Condition()
        lock = scenario.Lock()
        woken = threading.Event()

        def waiter() -> None:
            with cond:
                woken.set()
                cond.wait()

        def notifier() -> None:
            with cond:
                cond.notify()

        W = scenario.thread(waiter)
        N = scenario.thread(notifier)
        P = scenario.thread(lock.acquire)
        B = scenario.thread(lock.locked)
        with scenario:
            api = scenario.api(cond)
            api.unblock(cond.acquire, W)
            api.unblock(cond.wait, W)
            wait_tx = scenario.transaction(W)
            assert wait_tx is not None
            scenario.wait(blanket.Waiting(wait_tx))
            api.unblock(cond.acquire, N)
            api.unblock(cond.notify, N)
            api.unblock(cond.release, N)
            scenario.wait(blanket.Stalled(wait_tx))
            paused = scenario.api(lock).unblock(lock.acquire, P, pause=True)[0]
            scenario.wait(blanket.Paused(paused))
            scenario.wait(B)  # B stays at BLOCKED
        self.assertEqual(wait_tx.state, State.RETURNED)
        self.assertIn(State.STALLED, [state for _, state in wait_tx.log])
        self.assertEqual(paused.state, State.RETURNED)
        locked = [tx for tx in scenario.log if tx.thread is B]
        self.assertEqual([tx.result for tx in locked], [True])
        self.assertFalse(any(t.is_alive() for t in scenario.managed))

    def test_stuck_thread_is_reported_not_waited_for(self) -> None:
        scenario = blanket.Scenario(timeout=0.2)
        event = scenario.Event()
        raw = scenario.raw(event)
        stuck = scenario.thread(raw.wait)      # never regulated
        waiting = scenario.thread(event.wait)  # asleep inside the real Event
        stuck.name, waiting.name = "stuck", "waiting"
        try:
            with self.assertRaises(blanket.StallError) as caught:
                with scenario:
                    tx = scenario.api(event).unblock(event.wait, waiting)[0]
                    scenario.wait(blanket.Waiting(tx))
            report = caught.exception.report
            self.assertIn("'stuck': running, not inside a blanket call", report)
            self.assertIn("'waiting': Event.wait WAITING", report)
            self.assertIn("asleep inside the real primitive", report)
            self.assertIn("'stuck', 'waiting'", str(caught.exception))
            self.assertNotIsInstance(caught.exception, blanket.DeadlockError)
        finally:
            raw.set()
            stuck.join(5)
            waiting.join(5)
        self.assertFalse(stuck.is_alive() or waiting.is_alive())

    def test_threads_left_in_a_deadlock_are_named_as_one_at_the_exit(self) -> None:
        # Before: a plain StallError ("still running"), the cycle unsaid.
        scenario = blanket.Scenario(timeout=0.2)
        first, second = scenario.Lock(), scenario.Lock()

        def both(outer: Any, inner: Any) -> None:
            with outer:
                # Timed, so that the test's threads end after the check.
                if inner.acquire(timeout=1.0):
                    inner.release()
        A, B = scenario.thread(both, first, second), scenario.thread(both, second, first)
        A.name, B.name = "A", "B"
        with self.assertRaises(blanket.DeadlockError) as caught:
            with scenario:
                scenario.skip(A, first.acquire)
                scenario.skip(B, second.acquire)
                scenario.skip(A, second.acquire)
                scenario.skip(B, first.acquire)
        self.assertIn("'A', 'B' still running 0.2 s after the scenario exited; deadlock: "
                      "A holds Lock 1 and waits for Lock 2; B holds Lock 2 and waits for "
                      "Lock 1", str(caught.exception))
        self.assertIn("'A': Lock.acquire WAITING on Lock 2", caught.exception.report)
        A.join(5)
        B.join(5)
        self.assertFalse(A.is_alive() or B.is_alive())

    def test_stuck_thread_noted_on_the_exception_that_left_the_block(self) -> None:
        scenario = blanket.Scenario(timeout=0.1)
        raw = scenario.raw(scenario.Event())
        stuck = scenario.thread(raw.wait)
        try:
            with self.assertRaises(ZeroDivisionError) as caught:
                with scenario:
                    1 / 0  # noqa: B018
            self.assertIn("still running", caught.exception.__notes__[0])
        finally:
            raw.set()
            stuck.join(5)

    def test_report_lists_threads(self) -> None:
        scenario = blanket.Scenario("reported", timeout=5)
        self.assertEqual(scenario.report(),
                         "scenario 'reported' (not entered); threads:\n  (none)")
        lock = scenario.Lock()
        scenario.api(lock).name = "the lock"
        A = scenario.thread(lock.acquire)
        A.name = "A"
        self.assertIn("'A': not started", scenario.report())
        with scenario:
            scenario.wait(A)
            self.assertIn("'A': Lock.acquire BLOCKED on 'the lock' (parked at the "
                          "scheduler block", scenario.report())
        self.assertIn("'A': terminated", scenario.report())

    def test_report_shows_nested_calls_and_unmanaged_threads(self) -> None:
        scenario = blanket.Scenario(timeout=5)
        cond = scenario.Condition()
        event = scenario.Event()
        plain = threading.Thread(target=cond.wait_for, args=(event.is_set, 0), name="plain")
        with scenario:
            plain.start()
            outer = scenario.api(cond).unblock(cond.wait_for, plain)[0]
            scenario.wait(blanket.Nested(outer))  # the predicate's is_set
            report = scenario.report()
            scenario.raw(event).set()  # so the predicate holds once let go
        plain.join(5)
        self.assertEqual(outer.result, True)
        self.assertIn("'plain': Event.is_set BLOCKED on Event 1 0X", report)
        self.assertIn("<- nested in Condition.wait_for COMMIT on Condition 1", report)


class StallReports(unittest.TestCase):
    """A step that can never complete fails within the bound, saying who
    holds what."""

    def test_reacquire_behind_a_holder_parked_at_release(self) -> None:
        scenario = blanket.Scenario(timeout=5)
        cond = scenario.Condition()
        semaphore = scenario.Semaphore(2)

        def waiter() -> None:
            with semaphore, cond:
                cond.wait()

        def notifier() -> None:
            with cond:
                cond.notify()

        W, N = scenario.thread(waiter), scenario.thread(notifier)
        W.name, N.name = "W", "N"
        with scenario:
            api = scenario.api(cond)
            scenario.api(semaphore).unblock(semaphore.acquire, W)
            api.unblock(cond.acquire, W)
            wait = api.unblock(cond.wait, W)[0]
            scenario.wait(blanket.Waiting(wait))
            api.unblock(cond.acquire, N)
            api.unblock(cond.notify, N)
            scenario.wait(blanket.Stalled(wait))
            wait.unstall()
            scenario.timeout = 0.2
            with self.assertRaises(blanket.StallError) as caught:
                scenario.wait(blanket.Terminated(W))
            scenario.timeout = 5
        report = caught.exception.report
        cond_label = label(cond)
        self.assertIn(f"'W': Condition.acquire WAITING on {cond_label}", report)
        self.assertIn("<- nested in Condition.wait RESUMED", report)
        self.assertIn(f"'N': Condition.release BLOCKED on {cond_label}", report)
        lines = report.splitlines()
        w_line = next(line for line in lines if line.startswith("  'W'"))
        w_holds = lines[lines.index(w_line) + 1]
        self.assertEqual(w_holds.strip(), f"holds {label(semaphore)}")
        self.assertEqual(lines[-1].strip(), f"holds {cond_label}")
        self.assertEqual(wait.state, State.RETURNED)  # exit let N release


class Holdings(unittest.TestCase):
    """The report counts acquires up and releases down."""

    def test_released_lock_is_not_held(self) -> None:
        scenario = blanket.Scenario(timeout=5)
        lock = scenario.Lock()

        def worker() -> None:
            with lock:
                pass
            lock.acquire()
            lock.locked()

        A = scenario.thread(worker)
        with scenario:
            api = scenario.api(lock)
            api.unblock(lock.acquire, A)
            api.unblock(lock.release, A)
            scenario.wait(blanket.Call(A, lock.acquire))
            self.assertNotIn("holds", scenario.report())
            api.unblock(lock.acquire, A)
            scenario.wait(blanket.Call(A, lock.locked))
            self.assertIn(f"holds {label(lock)}", scenario.report())


class SchedulerCalls(unittest.TestCase):
    """The scheduler may not call regulated primitives; raw handles it may."""

    def test_scheduler_call_raises(self) -> None:
        scenario = blanket.Scenario()
        lock = scenario.Lock()
        with scenario:
            with self.assertRaisesRegex(blanket.SchedulerError, "Lock.acquire"):
                lock.acquire()
            self.assertTrue(scenario.raw(lock).acquire(False))
        self.assertEqual(len(scenario.log), 0)


    def test_a_call_inside_blanket_s_bookkeeping_raises_instead_of_parking(self) -> None:
        # A thread holding the scenario's lock (blanket's own bookkeeping, a
        # choice made where it parks) that called program code reaching a
        # primitive parked with the lock held: nothing could take it again,
        # the scheduler's bounded wait included (lazy_loader 0.4 on 3.13t).
        scenario = blanket.Scenario(timeout=5)
        lock = scenario.Lock()
        raised: list[BaseException] = []

        def worker() -> None:
            with scenario._core.lock:
                try:
                    lock.acquire()
                except RuntimeError as error:
                    raised.append(error)

        A = scenario.thread(worker)
        with scenario:
            scenario.finish(A)
        self.assertEqual(len(raised), 1)
        self.assertIn("Lock.acquire", str(raised[0]))
        self.assertIn("inside blanket's own bookkeeping", str(raised[0]))
        self.assertEqual(len(scenario.log), 0)

if __name__ == "__main__":  # pragma: no cover
    unittest.main()
