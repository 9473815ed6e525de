"""park, skip and finish: a thread named again in skip, refusals outside the
scenario, no claim left after a stall; names and columns of threads."""

from __future__ import annotations

import re
import threading
import time
import unittest
from collections.abc import Callable
from typing import Any
from unittest import mock

import blanket
from blanket import CompetingDriversError, StallError, State, driving, progress, script, waiting

from .support import unchecked
from .test_driving_support import acquire_release, spawn
from .test_primitives_support import BOUND, scenario


class SkipNamingAThreadAgain(unittest.TestCase):
    def test_a_thread_named_again_goes_on_from_its_last_call(self) -> None:
        sc = scenario()
        first, second = sc.Lock(), sc.Lock()
        A = spawn(sc, "A", acquire_release(first))
        B = spawn(sc, "B", acquire_release(second))
        with sc:
            last = sc.skip(A, first.acquire, B, second.acquire, A, first.release)
            self.assertEqual(list(last), [A, B])
            self.assertEqual(last[A].method, first.release)
            self.assertEqual(last[B].method, second.acquire)
            # A's acquire ran to its end before its release was let go.
            self.assertIn((A, first.acquire), [(tx.thread, tx.method) for tx in sc.log])
            sc.finish(A, B)
        self.assertEqual([(tx.thread, tx.method) for tx in sc.log if tx.thread is A],
                         [(A, first.acquire), (A, first.release)])


class OutsideTheScenario(unittest.TestCase):
    def test_park_skip_and_finish_refuse_at_once(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = spawn(sc, "A", acquire_release(lock))
        for step in (lambda: sc.park(A, lock.acquire), lambda: sc.skip(A, lock.acquire),
                     lambda: sc.finish(A)):
            with self.subTest(step=step), self.assertRaisesRegex(
                    RuntimeError, "needs the scenario .* entered"):
                step()


class RefusedAtOnce(unittest.TestCase):
    """Mistakes a script step can see before it waits: each refused at once
    (before, most of them waited out the scenario's timeout, a StallError,
    or passed silently)."""

    def setUp(self) -> None:
        self.sc = scenario("this")
        self.lock = self.sc.Lock()
        self.A = spawn(self.sc, "A", acquire_release(self.lock))
        self.other = scenario("other")
        self.their_lock = self.other.Lock()
        self.Z = spawn(self.other, "Z", acquire_release(self.their_lock))

    def steps(self, thread: threading.Thread, method: object
              ) -> dict[str, Callable[[], object]]:
        sc = self.sc
        return {"park": lambda: sc.park(thread, method),
                "skip": lambda: sc.skip(thread, method),
                "finish": lambda: sc.finish(thread),
                "Driver": lambda: sc.Driver(thread).finish()(),
                "Dispatch": lambda: list(_dispatch(sc, thread)),
                "scenario.wait": lambda: sc.wait(thread)}

    def assert_refused(self, steps: dict[str, Callable[[], object]],
                       error: type[Exception], pattern: str) -> None:
        for name, step in steps.items():
            who = "Driver" if name == "Dispatch" else name  # a dispatch's driver says it
            with self.subTest(name), self.assertRaisesRegex(error, f"^{who}: {pattern}"):
                step()

    def test_every_step_outside_the_scenario(self) -> None:
        for name, step in self.steps(self.A, self.lock.acquire).items():
            who = "Driver" if name == "Dispatch" else name
            with self.subTest(name), self.assertRaisesRegex(
                    RuntimeError, f"^{who} needs the scenario 'this' entered"):
                step()
        # What names the scenario itself may be waited for outside it.
        self.assertEqual(self.sc.wait(blanket.Not(self.sc)), {blanket.Not(self.sc)})

    def test_a_thread_of_another_scenario(self) -> None:
        with self.sc:
            self.assert_refused(self.steps(self.Z, self.lock.acquire), ValueError,
                                "thread 'Z' belongs to scenario 'other', not to 'this'")
            self.assertEqual(list(self.sc.log), [])  # A was never let go

    def test_a_primitive_or_call_of_another_scenario(self) -> None:
        with self.other:
            tx = self.other.park(self.Z, self.their_lock.acquire)[self.Z]
            with self.sc:
                steps = self.steps(self.A, self.their_lock.acquire)
                for name in ("finish", "Driver", "Dispatch", "scenario.wait"):
                    del steps[name]  # they take no method
                self.assert_refused(steps, ValueError, "Lock 1 0X[0-9A-F]+ belongs to "
                                    "scenario 'other', not to 'this'")
                with self.assertRaisesRegex(ValueError, "^scenario.wait: thread 'Z' "
                                            "belongs to scenario 'other', not to 'this'"):
                    self.sc.wait(tx)
                with self.assertRaisesRegex(ValueError, "^scenario.wait: Lock 1 0X[0-9A-F]+ "
                                            "belongs to scenario 'other'"):
                    self.sc.wait(self.their_lock.acquire)
                with self.assertRaisesRegex(ValueError, "^scenario.wait: scenario 'other' "
                                            "belongs to scenario 'other', not to 'this'"):
                    self.sc.wait(self.other)
            self.other.finish(self.Z)

    def test_the_scheduler_itself(self) -> None:
        me = threading.current_thread()
        with self.sc:
            steps = self.steps(me, self.lock.acquire)
            del steps["scenario.wait"]  # Not(thread) is a fair thing to wait for
            self.assert_refused(steps, ValueError, f"thread {me.name!r} is the scheduler")

    def test_a_thread_nobody_started(self) -> None:
        plain = threading.Thread(target=print, name="plain")
        with self.sc:
            self.assert_refused(self.steps(plain, self.lock.acquire), ValueError,
                                "thread 'plain' is not a thread of 'this' and was never "
                                "started")


def _dispatch(sc: blanket.Scenario, thread: threading.Thread) -> blanket.Dispatch:
    dispatch = sc.Dispatch()
    dispatch.add(sc.Driver(thread).finish())
    return dispatch


def _crossed(sc: blanket.Scenario) -> tuple[threading.Thread, threading.Thread,
                                             blanket.Scenario]:
    """A takes Lock 1 then Lock 2, B Lock 2 then Lock 1; each has taken its
    first lock when the scenario returns (a deadlock once both go on)."""
    first, second = sc.Lock(), sc.Lock()

    def take(one: object, other: object) -> Callable[[], None]:
        def target() -> None:
            with one, other:  # type: ignore[attr-defined]
                pass
        return target

    A = spawn(sc, "A", take(first, second))
    B = spawn(sc, "B", take(second, first))
    return A, B, sc


class FinishOfADeadlock(unittest.TestCase):
    """finish(A, B) of threads that deadlock fails at once, naming the cycle,
    with the threads abandoned and joined (before: a StallError after the
    whole bound, and two threads asleep in real locks left behind)."""

    def test_fails_at_once_naming_the_cycle(self) -> None:
        A, B, sc = _crossed(blanket.Scenario("crossed", timeout=60))
        started = time.monotonic()
        with self.assertRaises(blanket.DeadlockError) as caught, sc:
            first, second = sc.primitive("Lock 1"), sc.primitive("Lock 2")
            sc.skip(A, first.acquire, B, second.acquire, wait=True)
            sc.finish(A, B)
        self.assertLess(time.monotonic() - started, 30)  # not the bound (60 s)
        message = str(caught.exception)
        self.assertTrue(message.startswith(
            "scenario 'crossed': finish('A', 'B') cannot go on; deadlock: A holds Lock 1 "
            "and waits for Lock 2; B holds Lock 2 and waits for Lock 1\n"), message)
        self.assertEqual(message.count("deadlock"), 1)
        self.assertIn("'A': Lock.acquire BLOCKED", caught.exception.report)
        self.assertFalse(A.is_alive() or B.is_alive())  # abandoned and joined
        self.assertIsInstance(caught.exception, StallError)

    def test_fails_once_in_a_scenario_test_case(self) -> None:
        class Crossed(blanket.ScenarioTestCase):
            stall_timeout = 60

            def test_crossed(self) -> None:
                A, B, sc = _crossed(self.scenario)
                with sc:
                    sc.skip(A, sc.primitive("Lock 1").acquire, wait=True)
                    sc.skip(B, sc.primitive("Lock 2").acquire, wait=True)
                    sc.finish(B, A)

        result = unittest.TestResult()
        started = time.monotonic()
        Crossed("test_crossed").run(result)
        self.assertLess(time.monotonic() - started, 30)
        self.assertEqual(result.failures, [])
        self.assertEqual(len(result.errors), 1, result.errors)
        self.assertIn("DeadlockError: scenario 'test_crossed': finish('B', 'A') cannot "
                      "go on; deadlock: A holds Lock 1", result.errors[0][1])

    def test_stuck_without_a_cycle_still_waits_for_the_bound(self) -> None:
        sc = blanket.Scenario(timeout=0.3)
        event = sc.Event()
        A = spawn(sc, "A", event.wait)
        with sc:
            with self.assertRaises(StallError) as caught:
                sc.finish(A)
            self.assertNotIsInstance(caught.exception, blanket.DeadlockError)
            self.assertTrue(A.is_alive())  # not given up: the script may go on
            sc.raw(event).set()
            sc.finish(A)

    def test_a_call_held_back_goes_once_it_can(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = spawn(sc, "A", acquire_release(lock))
        B = spawn(sc, "B", acquire_release(lock))
        with sc:
            sc.skip(A, lock.acquire, wait=True)
            tx = sc.park(B, lock.acquire)[B]
            sc.finish(B, A)  # B's acquire waits at its block for A's release
        self.assertNotIn(State.WAITING, [state for _, state in tx.log])
        self.assertEqual([(t.thread.name, t.spec.name) for t in sc.log],
                         [("A", "acquire"), ("A", "release"), ("B", "acquire"),
                          ("B", "release")])


class _GatedLock:
    """A lock for a Condition whose release, once the lock is free, waits
    for :attr:`gate` before it returns: a last call skip lets go that is
    slow to end."""

    def __init__(self) -> None:
        self.real = threading.Lock()
        self.gate = threading.Event()

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        return self.real.acquire(blocking, timeout)

    def release(self) -> None:
        self.real.release()
        self.gate.wait(BOUND)

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


class SkipKeepsTheScriptsOrder(unittest.TestCase):
    """skip returns once each thread's last call went as far as it can, so
    the next thread's calls are logged after it (before, the last call was
    let go and not waited for: on 3.13t, 10 of 10,000 runs of the README's
    middle-level example logged B's release after A's acquire)."""

    def test_the_last_call_has_ended_when_the_next_thread_goes(self) -> None:
        sc = scenario()
        gated = _GatedLock()
        cond = sc.Condition(gated)  # type: ignore[arg-type]

        def take() -> None:
            with cond:
                pass

        A, B = spawn(sc, "A", take), spawn(sc, "B", take)
        core = sc._core
        wait_locked = waiting.wait_locked

        def open_the_gate_once_skip_waits(*args: Any) -> set[object]:
            # The scheduler waits while A's release is under way: skip is
            # waiting for it to end, so let it end. (A skip that does not
            # wait goes on with the gate shut.)
            if any(tx.spec.name == "release" for tx in core.chain(A)):
                gated.gate.set()
            return wait_locked(*args)

        try:
            with sc, mock.patch.object(waiting, "wait_locked", open_the_gate_once_skip_waits):
                release = sc.skip(A, cond.acquire, cond.release)[A]
                ended = release.done
                gated.gate.set()  # (the old skip left A inside the release)
                sc.skip(B, cond.acquire, cond.release, wait=True)
        finally:
            gated.gate.set()
        self.assertTrue(ended)
        self.assertEqual([(tx.thread.name, tx.spec.name) for tx in sc.log],
                         [("A", "acquire"), ("A", "release"), ("B", "acquire"),
                          ("B", "release")])

    def test_a_last_call_asleep_in_the_real_primitive_lets_skip_return(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = spawn(sc, "A", acquire_release(lock))
        B = spawn(sc, "B", acquire_release(lock))
        with sc:
            sc.skip(A, lock.acquire, wait=True)
            acquire = sc.skip(B, lock.acquire)[B]  # A holds the lock
            self.assertIs(acquire.state, State.WAITING)
            sc.skip(A, lock.release, wait=True)
            sc.finish(B)
        self.assertEqual([tx.thread.name for tx in sc.log if tx.spec.name == "acquire"],
                         ["A", "B"])

    def test_a_last_call_that_parks_again_lets_skip_return(self) -> None:
        sc = scenario()
        cond = sc.Condition()

        def wait() -> None:
            with cond:
                cond.wait()

        def notify() -> None:
            with cond:
                cond.notify()

        A, B = spawn(sc, "A", wait), spawn(sc, "B", notify)
        with sc:
            sc.skip(A, cond.acquire)
            waiting = sc.skip(A, cond.wait)[A]  # asleep, nothing to wake it yet
            self.assertIs(waiting.state, State.WAITING)
            sc.skip(B, cond.acquire, cond.notify, cond.release)
            sc.wait(blanket.Stalled(waiting))  # woken, it parks at the stall
            sc.finish(A, B)


class FinishTokens(unittest.TestCase):
    """What finish waits for, as a stall message names it."""

    def test_a_parked_call_that_can_go_has_a_way_on(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = spawn(sc, "A", acquire_release(lock))
        with sc:
            tx = sc.park(A, lock.acquire)[A]
            can_go = driving._CanGo(tx)
            with sc._core.lock:
                self.assertTrue(can_go.signalled(sc._core))
            sc.finish(A)
        self.assertRegex(repr(can_go), r"^a way on for <Lock.acquire RETURNED 'A'")


class MessagesNameWhatTheUserGave(unittest.TestCase):
    """What a wait was for, as timeout and stall messages say it: the items
    as the user gave them, no private name (before: "_Active('A')",
    "_Inside(Lock.release)", a ThreadRecord or ScenarioCore object)."""

    PRIVATE = re.compile(r"\b_[A-Z]\w*\(|object at 0x")

    def test_the_items_wait_takes(self) -> None:
        sc = scenario("s")
        lock, other = sc.Lock(), sc.Lock()
        A = spawn(sc, "A", acquire_release(lock))
        with sc:
            tx = sc.park(A, lock.acquire)[A]
            said = {}
            for item, text in ((A, None), (tx, "<Lock.acquire BLOCKED 'A' .* \\(its end\\)"),
                               (lock.release, "Lock.release \\(any thread in it\\)"),
                               (blanket.Not(sc), "Not\\(scenario 's' \\(entered\\)\\)"),
                               (blanket.Use(A, other), "Use\\('A', Lock 2 0X[0-9A-F]+\\)")):
                if item is A:
                    item = blanket.Not(A)
                    text = "Not\\(thread 'A' \\(in a call\\)\\)"
                with self.assertRaises(TimeoutError) as caught:
                    sc.wait(item, timeout=0.01)
                said[text] = str(caught.exception)
            sc.finish(A)
        for text, message in said.items():
            with self.subTest(text):
                self.assertRegex(message, f"^scenario 's': nothing of {text} signalled")
                self.assertNotRegex(message, self.PRIVATE)

    def test_the_waits_of_the_drivers(self) -> None:
        sc = scenario("s")
        lock = sc.Lock()
        A = spawn(sc, "A", acquire_release(lock))
        with sc:
            tx = sc.park(A, lock.acquire)[A]
            record = sc._core.records[A]
            tokens = (driving._NestedOrAction(tx), script._Admitted(record, blanket.Parked(A)),
                      progress.Settled(), script._AsFarAsItGoes(tx))
            sc.finish(A)
        said = [repr(token) for token in tokens]
        self.assertRegex(said[0], r"^a call nested in <Lock.acquire RETURNED 'A' .*>, or "
                                  "its barrier action$")
        self.assertEqual(said[1], "the approved next call of 'A', or Parked('A')")
        self.assertEqual(said[2], "every live thread parked or asleep for good")
        self.assertRegex(said[3], r"^the end of <Lock.acquire RETURNED 'A' .*>, or its "
                                  "next park or sleep$")
        for text in said:
            self.assertNotRegex(text, self.PRIVATE)


class NoClaimAfterAStall(unittest.TestCase):
    def test_a_stalled_finish_leaves_its_threads_free_to_drive(self) -> None:
        sc = blanket.Scenario(timeout=0.2)
        gate = threading.Event()
        event = sc.Event()

        def target() -> None:
            gate.wait(10)  # outside blanket: finish cannot drive it
            event.set()

        A = sc.thread(target)
        with sc:
            with self.assertRaises(StallError):
                sc.finish(A)
            gate.set()
            try:
                sc.finish(A)  # not CompetingDriversError
            except CompetingDriversError as error:  # pragma: no cover - the bug
                self.fail(f"a stalled finish kept its claim: {error}")
        self.assertTrue(sc.raw(event).is_set())


class Names(unittest.TestCase):
    def test_a_primitive_can_be_named_directly(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        lock.name = "account"
        self.assertEqual(sc.api(lock).name, "account")
        self.assertEqual(repr(lock), "<blanket.Lock 'account' unlocked>")
        lock.name = None
        self.assertIsNone(lock.name)
        with unchecked(), self.assertRaisesRegex(TypeError, "a str or None, not 42"):
            lock.name = 42  # type: ignore[assignment]

    def test_the_timeline_shows_a_thread_named_twice_once(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = spawn(sc, "A", acquire_release(lock))
        with sc:
            sc.finish(A)
        header = sc.format_log(A, A).splitlines()[0]
        self.assertEqual(header.split(), ["A"])


class TestCaseThreadNames(blanket.ScenarioTestCase):
    def test_a_thread_made_inside_the_scenario_starts_with_its_name(self) -> None:
        seen: list[str] = []
        with self.scenario:
            thread = self.thread(lambda: seen.append(threading.current_thread().name))
            thread.join(10)
        self.assertEqual(seen, ["A"])


if __name__ == "__main__":  # pragma: no cover
    unittest.main()
