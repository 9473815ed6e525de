"""The API objects (``scenario.api(p)``): acting on threads' calls by method,
their errors, naming, and one API class per primitive kind."""

from __future__ import annotations

import re
import threading
import unittest
from collections.abc import Callable

import blanket
from blanket import State
from blanket.api import API_CLASSES, PrimitiveAPI
from blanket.primitives import KINDS

from .support import spawn, unchecked

#: Every scenario's own bound: a bug fails the test instead of hanging it.
BOUND = 5.0




def threads_of(txs: tuple[blanket.Transaction, ...]) -> list[threading.Thread]:
    """The thread of each transaction, in order."""
    return [tx.thread for tx in txs]


def calls(scenario: blanket.Scenario, name: str) -> list[str]:
    """The threads' names of the logged calls of method *name*, in log order."""
    return [tx.thread.name for tx in scenario.log if tx.spec.name == name]


class Unblock(unittest.TestCase):
    """unblock(method, *threads, pause=...) lets calls go in the order named."""

    def test_threads_go_in_the_order_named_not_the_order_created(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock = scenario.Lock()
        out: list[str] = []

        def worker(name: str) -> None:
            with lock:
                out.append(name)

        A, B, C = (spawn(scenario, name, worker, name) for name in "ABC")
        api = scenario.api(lock)
        with scenario:
            for thread in (C, A, B):
                acquired = api.unblock(lock.acquire, thread)
                self.assertEqual(threads_of(acquired), [thread])
                self.assertEqual(acquired[0].spec.name, "acquire")
                released = api.unblock(lock.release, thread)
                self.assertEqual(threads_of(released), [thread])
        self.assertEqual(out, ["C", "A", "B"])
        self.assertEqual(calls(scenario, "acquire"), ["C", "A", "B"])

    def test_several_threads_at_once_with_pause(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        sem = scenario.Semaphore(3)
        A, B, C = (spawn(scenario, name, sem.acquire) for name in "ABC")
        api = scenario.api(sem)
        with scenario:
            paused = api.unblock(sem.acquire, C, A, B, pause=True)
            self.assertEqual(threads_of(paused), [C, A, B])
            for tx in paused:
                scenario.wait(blanket.Paused(tx))
                self.assertTrue(tx.pause)
                self.assertIs(tx.result, True)  # the real acquire was made
            self.assertFalse(scenario.raw(sem).acquire(False))  # all three taken
            unpaused = api.unpause(sem.acquire, B, C, A)
            self.assertEqual(threads_of(unpaused), [B, C, A])
            self.assertEqual(set(unpaused), set(paused))
            for tx in unpaused:
                scenario.wait(tx)
                self.assertFalse(tx.pause)
        for tx in paused:
            self.assertIn(State.PAUSED, [state for _, state in tx.log])
            self.assertIs(tx.state, State.RETURNED)

    def test_unblock_without_pause_does_not_pause(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        event = scenario.Event()
        A = spawn(scenario, "A", event.is_set)
        with scenario:
            (tx,) = scenario.api(event).unblock(event.is_set, A)
            self.assertFalse(tx.pause)
            scenario.wait(tx)
        self.assertNotIn(State.PAUSED, [state for _, state in tx.log])


class Unstall(unittest.TestCase):
    """unstall(method, *threads) lets woken Condition waits re-acquire, in order."""

    def test_woken_waiters_take_the_lock_back_in_the_order_named(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        cond = scenario.Condition()
        out: list[str] = []

        def waiter(name: str) -> None:
            with cond:
                cond.wait()
                out.append(name)

        def notifier() -> None:
            with cond:
                cond.notify_all()

        A, B = spawn(scenario, "A", waiter, "A"), spawn(scenario, "B", waiter, "B")
        C = spawn(scenario, "C", notifier)
        api = scenario.api(cond)
        with scenario:
            waits: dict[threading.Thread, blanket.Transaction] = {}
            for thread in (A, B):
                api.unblock(cond.acquire, thread)
                (waits[thread],) = api.unblock(cond.wait, thread)
                scenario.wait(blanket.Waiting(waits[thread]))
            for name in ("acquire", "notify_all", "release"):
                api.unblock(getattr(cond, name), C)
            for thread in (B, A):
                (stalled,) = api.unstall(cond.wait, thread)
                self.assertIs(stalled, waits[thread])
                scenario.wait(stalled)
                api.unblock(cond.release, thread)
        self.assertEqual(out, ["B", "A"])
        self.assertEqual([waits[t].result for t in (A, B)], [True, True])


class Timeouts(unittest.TestCase):
    """expire / disregard / revert by method and threads, while BLOCKED."""

    def test_expire_disregard_and_revert(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock = scenario.Lock()
        got: dict[str, bool] = {}

        def take(name: str, timeout: float) -> None:
            got[name] = lock.acquire(timeout=timeout)
            if got[name]:
                lock.release()

        A = spawn(scenario, "A", take, "A", BOUND)
        B = spawn(scenario, "B", take, "B", BOUND)
        C = spawn(scenario, "C", take, "C", 0)
        api = scenario.api(lock)
        with scenario:
            raw = scenario.raw(lock)
            raw.acquire()
            try:
                expired = api.expire(lock.acquire, B, A)
                self.assertEqual(threads_of(expired), [B, A])
                self.assertEqual([tx.timeout and tx.timeout.value for tx in expired], [0, 0])
                (a,) = api.revert(lock.acquire, A)
                self.assertEqual(a.timeout and a.timeout.value, BOUND)
                (c,) = api.disregard(lock.acquire, C)
                self.assertIsNone(c.timeout)
                (b,) = api.unblock(lock.acquire, B)
                scenario.wait(b)              # timed out at once: the lock is held
                api.unblock(lock.acquire, A)
                scenario.wait(blanket.Waiting(a))  # reverted: it waits its 5 s
            finally:
                raw.release()
            scenario.wait(a)
            api.unblock(lock.acquire, C)
            scenario.wait(blanket.Waiting(c))  # disregarded: a 0 s timeout would not wait
            api.unblock(lock.release, A)
            scenario.wait(c)
            api.unblock(lock.release, C)
        self.assertEqual(got, {"B": False, "A": True, "C": True})
        self.assertIs(b.timeout and b.timeout.timed_out, True)


class BadCalls(unittest.TestCase):
    """Wrong methods, missing or wrong threads, threads elsewhere or gone."""

    VERBS = ("unblock", "unstall", "unpause", "expire", "disregard", "revert")

    def setUp(self) -> None:
        self.scenario = blanket.Scenario(timeout=BOUND)
        self.lock, self.other = self.scenario.Lock(), self.scenario.Lock()
        self.api = self.scenario.api(self.lock)

    def label(self, primitive: object) -> str:
        """How messages name an unnamed lock of this scenario (the n-th made)."""
        n = 1 if primitive is self.lock else 2
        return f"Lock {n} 0X{id(primitive):X}"

    def test_a_method_that_is_not_one_of_the_primitives_calls(self) -> None:
        A = spawn(self.scenario, "A", self.lock.acquire)
        wrong: list[object] = [self.other.acquire, self.scenario.raw(self.lock).acquire,
                               self.lock._status, lambda: None, self.scenario.report]
        for verb in self.VERBS:
            for method in wrong:
                with self.subTest(verb=verb, method=method), \
                        self.assertRaises(ValueError) as caught:
                    getattr(self.api, verb)(method, A)
                self.assertIn(f"is not a method of {self.label(self.lock)}",
                              str(caught.exception))
                self.assertNotIsInstance(caught.exception, blanket.ThreadOrderingError)
        with unchecked(), self.assertRaisesRegex(ValueError, "42 is not a method"):
            self.api.unblock(42, A)  # type: ignore[arg-type]

    def test_no_threads_and_a_non_thread(self) -> None:
        for verb in self.VERBS:
            with self.subTest(verb=verb):
                with self.assertRaisesRegex(TypeError, "name at least one thread whose "
                                            "Lock.acquire call"):
                    getattr(self.api, verb)(self.lock.acquire)
                with unchecked(), self.assertRaisesRegex(TypeError, f"{verb} takes threads, "
                                                         "not 42"):
                    getattr(self.api, verb)(self.lock.acquire, 42)

    def test_refused_at_once_outside_the_scenario_or_for_another_scenarios_thread(self
                                                                                  ) -> None:
        # Before: each waited out the scenario's timeout, then a StallError.
        A = spawn(self.scenario, "A", self.lock.acquire)
        other = blanket.Scenario("other", timeout=BOUND)
        S = spawn(other, "S", lambda: None)
        for verb in self.VERBS:
            with self.subTest(verb=verb), self.assertRaisesRegex(
                    RuntimeError, rf"^{verb} on Lock 1 .* needs the scenario .* entered"):
                getattr(self.api, verb)(self.lock.acquire, A)
        with self.scenario:
            for verb in self.VERBS:
                with self.subTest(verb=verb), self.assertRaisesRegex(
                        ValueError, rf"^{verb} on Lock 1 .*: thread 'S' belongs to scenario "
                                    "'other'"):
                    getattr(self.api, verb)(self.lock.acquire, S)
            self.scenario.finish(A)
        self.assertEqual([tx.thread for tx in self.scenario.log], [A])

    def test_thread_parked_on_another_method_or_primitive(self) -> None:
        scenario, lock, other, api = self.scenario, self.lock, self.other, self.api
        A = spawn(scenario, "A", lock.acquire)
        B = spawn(scenario, "B", other.acquire)
        Case = tuple[Callable[[], object], str, object, str, str, object, str]
        with scenario:
            cases: list[Case] = [
                (lambda: api.unblock(lock.release, A), "Lock.release", lock, "BLOCKED",
                 "Lock.acquire", lock, "BLOCKED"),
                (lambda: api.unstall(lock.acquire, A), "Lock.acquire", lock, "STALLED",
                 "Lock.acquire", lock, "BLOCKED"),
                (lambda: api.unpause(lock.acquire, A), "Lock.acquire", lock, "PAUSED",
                 "Lock.acquire", lock, "BLOCKED"),
                (lambda: api.unblock(lock.acquire, B), "Lock.acquire", lock, "BLOCKED",
                 "Lock.acquire", other, "BLOCKED"),
            ]
            for act, wanted, where, state, actual, actual_where, actual_state in cases:
                thread = "B" if actual_where is other else "A"
                with self.subTest(wanted=wanted, state=state, thread=thread), \
                        self.assertRaises(blanket.ThreadOrderingError) as caught:
                    act()
                self.assertIsInstance(caught.exception, ValueError)
                self.assertEqual(
                    str(caught.exception),
                    f"thread {thread!r} was expected to be in {wanted} on {self.label(where)} "
                    f"at {state}, but it is in {actual} on {self.label(actual_where)} at "
                    f"{actual_state}")
            # Nothing was done to the threads: they go on as scripted.
            (a,) = api.unblock(lock.acquire, A)
            (b,) = scenario.api(other).unblock(other.acquire, B)
            scenario.wait(a)
            scenario.wait(b)
        self.assertEqual((a.result, b.result), (True, True))

    def test_a_thread_that_terminated(self) -> None:
        scenario = self.scenario
        event = scenario.Event()
        A = spawn(scenario, "A", event.is_set)
        api = scenario.api(event)
        with scenario:
            api.unblock(event.is_set, A)
            scenario.wait(blanket.Terminated(A))
            with self.assertRaises(blanket.ThreadOrderingError) as caught:
                api.unblock(event.is_set, A)
        self.assertEqual(str(caught.exception),
                         f"thread 'A' terminated; it was expected to call Event.is_set on "
                         f"Event 1 0X{id(event):X}")

    def test_a_thread_that_never_parks_hits_the_scenario_bound(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock = scenario.Lock()
        A = spawn(scenario, "A", lock.acquire)
        api = scenario.api(lock)
        with scenario:
            raw = scenario.raw(lock)
            raw.acquire()
            try:
                (tx,) = api.unblock(lock.acquire, A)
                scenario.wait(blanket.Waiting(tx))
                scenario.timeout = 0.2  # only the wait that cannot succeed runs into it
                with self.assertRaises(blanket.StallError) as caught:
                    api.unblock(lock.release, A)  # A sleeps inside the real lock
            finally:
                scenario.timeout = BOUND
                raw.release()
            scenario.wait(tx)
        self.assertIn("Parked('A')", str(caught.exception))
        self.assertIn("'A': Lock.acquire WAITING", caught.exception.report)


class Naming(unittest.TestCase):
    """name, primitive and repr of an API object."""

    def test_name_drops_and_restores_the_masquerade(self) -> None:
        scenario = blanket.Scenario()
        event = scenario.Event()
        api = scenario.api(event)
        masquerade = repr(event)
        self.assertIsNone(api.name)
        self.assertIs(api.primitive, event)
        self.assertEqual(repr(api), f"<blanket EventAPI for Event 1 0X{id(event):X}>")
        api.name = "ready"
        self.assertEqual(api.name, "ready")
        self.assertEqual(repr(api), "<blanket EventAPI for 'ready'>")
        self.assertEqual(repr(event), "<blanket.Event 'ready' unset>")
        api.name = None
        self.assertIsNone(api.name)
        self.assertEqual(repr(event), masquerade)
        self.assertRegex(masquerade, r"0X[0-9A-F]+")

    def test_name_must_be_a_str(self) -> None:
        scenario = blanket.Scenario()
        api = scenario.api(scenario.Lock())
        api.name = "kept"
        for bad in (3, b"lock", ["lock"]):
            with self.subTest(bad=bad), unchecked(), \
                    self.assertRaisesRegex(TypeError, re.escape(repr(bad))):
                api.name = bad  # type: ignore[assignment]
        self.assertEqual(api.name, "kept")

    def test_name_shows_in_ordering_errors(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock = scenario.Lock()
        api = scenario.api(lock)
        api.name = "cache lock"
        A = spawn(scenario, "A", lock.acquire)
        with scenario:
            with self.assertRaisesRegex(blanket.ThreadOrderingError,
                                        "in Lock.release on 'cache lock' at BLOCKED, but it "
                                        "is in Lock.acquire on 'cache lock'"):
                api.unblock(lock.release, A)
            (tx,) = api.unblock(lock.acquire, A)
            scenario.wait(tx)
        self.assertIs(tx.result, True)


class ApiClasses(unittest.TestCase):
    """One API class per primitive kind, and scenario.api hands out the right one."""

    def test_one_class_per_kind(self) -> None:
        self.assertEqual(set(API_CLASSES), set(KINDS))
        self.assertEqual(len(set(API_CLASSES.values())), len(KINDS))
        for kind, cls in API_CLASSES.items():
            with self.subTest(kind=kind):
                self.assertEqual(cls.__name__, f"{kind}API")
                self.assertTrue(issubclass(cls, PrimitiveAPI))
                self.assertIs(getattr(blanket, cls.__name__), cls)
        self.assertTrue(issubclass(blanket.BoundedSemaphoreAPI, blanket.SemaphoreAPI))

    def test_scenario_api_is_of_the_kinds_class(self) -> None:
        scenario = blanket.Scenario()
        made = {"Lock": scenario.Lock(), "RLock": scenario.RLock(),
                "Condition": scenario.Condition(), "Semaphore": scenario.Semaphore(),
                "BoundedSemaphore": scenario.BoundedSemaphore(), "Event": scenario.Event(),
                "Barrier": scenario.Barrier(2)}
        self.assertEqual(set(made), set(API_CLASSES))
        for kind, primitive in made.items():
            with self.subTest(kind=kind):
                api = scenario.api(primitive)
                self.assertIs(type(api), API_CLASSES[kind])
                self.assertIs(api.primitive, primitive)
                self.assertEqual(repr(api),
                                 f"<blanket {kind}API for {kind} 1 0X{id(primitive):X}>")


if __name__ == "__main__":  # pragma: no cover
    unittest.main()
