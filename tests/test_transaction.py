"""Transactions from the scheduler's side: properties, letting go, pausing,
timeouts, push/pop, repr; CallSpec; and the scenario's log."""

from __future__ import annotations

import re
import threading
import unittest
from collections.abc import Callable, Sequence

import blanket
from blanket import State, TimeoutState
from blanket.transaction import CallSpec

from .support import arrive, keeping, let_go, spawn

#: Every scenario's own bound: a bug fails the test instead of hanging it.
BOUND = 5.0


def states(tx: blanket.Transaction) -> list[State]:
    """The states *tx* has been in, oldest first."""
    return [state for _, state in tx.log]


class Properties(unittest.TestCase):
    """What a transaction says about its call, before and after it ran."""

    def test_call_description(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock = scenario.Lock()
        A = spawn(scenario, "A", lock.acquire, True, 5)
        with scenario:
            tx = arrive(scenario, A)
            self.assertIs(tx.thread, A)
            self.assertIs(tx.primitive, lock)
            self.assertEqual(tx.method, lock.acquire)
            self.assertIs(tx.spec, lock._specs["acquire"])
            self.assertEqual((tx.spec.kind, tx.spec.name), ("Lock", "acquire"))
            self.assertEqual(tx.args, (True, 5))
            self.assertEqual(dict(tx.kwargs), {"blocking": True, "timeout": 5})
            with self.assertRaises(TypeError):
                tx.kwargs["timeout"] = 1  # type: ignore[index]
            self.assertIsNone(tx.parent)
            self.assertEqual(tx.depth, 0)
            self.assertIsInstance(tx, blanket.TransactionAPI)
            tx.unblock()

    def test_before_and_after_a_call_that_returned(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock = scenario.Lock()
        A = spawn(scenario, "A", lock.acquire)
        with scenario:
            tx = arrive(scenario, A)
            self.assertIs(tx.state, State.BLOCKED)
            self.assertFalse(tx.done)
            self.assertIsNone(tx.end_time)
            self.assertIsNone(tx.result)
            self.assertIsNone(tx.succeeded)
            self.assertIsNone(tx.failed)
            self.assertEqual(tx.log, ((tx.start_time, State.BLOCKED),))
            let_go(scenario, tx)
        self.assertIs(tx.state, State.RETURNED)
        self.assertTrue(tx.done)
        self.assertIs(tx.result, True)
        self.assertIs(tx.succeeded, True)
        self.assertIs(tx.failed, False)
        self.assertEqual(states(tx), [State.BLOCKED, State.COMMIT, State.COMMITTED,
                                      State.EXITING, State.RETURNED])
        times = [time for time, _ in tx.log]
        self.assertEqual(times, sorted(times))
        self.assertEqual(tx.start_time, times[0])
        self.assertEqual(tx.end_time, times[-1])
        self.assertIsInstance(tx.log, tuple)

    def test_a_call_that_raised(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock = scenario.Lock()
        errors: list[BaseException] = []
        A = spawn(scenario, "A", keeping(errors, lock.release))  # not held
        with scenario:
            let_go(scenario, arrive(scenario, A))
        tx = scenario.log[0]
        self.assertIs(tx.state, State.RAISED)
        self.assertTrue(tx.done)
        self.assertIsInstance(tx.result, RuntimeError)
        self.assertIs(tx.result, errors[0])
        self.assertIs(tx.succeeded, False)
        self.assertIs(tx.failed, True)
        self.assertEqual(states(tx), [State.BLOCKED, State.COMMITTED, State.EXITING,
                                      State.RAISED])
        self.assertIsNone(tx.timeout)

    def test_a_false_result_fails_only_where_it_reports_failure(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock, event = scenario.Lock(), scenario.Event()
        A = spawn(scenario, "A", lock.acquire, False)     # could not acquire
        B = spawn(scenario, "B", event.is_set)            # simply False
        with scenario:
            scenario.raw(lock).acquire()
            try:
                let_go(scenario, arrive(scenario, A))
                let_go(scenario, arrive(scenario, B))
            finally:
                scenario.raw(lock).release()
        failed, falsy = scenario.log
        self.assertEqual((failed.result, failed.succeeded, failed.failed), (False, False, True))
        self.assertEqual((falsy.result, falsy.succeeded, falsy.failed), (False, True, False))

    def test_a_barrier_wait_that_returned_index_zero_succeeded(self) -> None:
        # Barrier.wait returns the party's index; 0 is not a timeout (a
        # barrier that times out raises BrokenBarrierError instead).
        scenario = blanket.Scenario(timeout=BOUND)
        barrier = scenario.Barrier(1)
        A = spawn(scenario, "A", barrier.wait)
        with scenario:
            tx = arrive(scenario, A)
            let_go(scenario, tx)
        self.assertEqual(tx.result, 0)
        self.assertIs(tx.state, State.RETURNED)
        self.assertIs(tx.succeeded, True)
        self.assertIs(tx.failed, False)

    def test_nested_call_has_parent_and_depth(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        cond, event = scenario.Condition(), scenario.Event()
        A = spawn(scenario, "A", cond.wait_for, event.is_set)
        with scenario:
            outer = arrive(scenario, A)
            outer.unblock()
            scenario.wait(blanket.Nested(outer))
            inner = arrive(scenario, A)
            self.assertIs(inner.parent, outer)
            self.assertEqual(inner.depth, 1)
            self.assertIsNone(outer.parent)
            self.assertEqual(outer.depth, 0)
            self.assertEqual(inner.method, event.is_set)
            scenario.raw(event).set()
            let_go(scenario, inner)
            scenario.wait(outer)
        self.assertEqual(outer.args, (event.is_set, None))
        self.assertEqual(dict(outer.kwargs), {"predicate": event.is_set, "timeout": None})
        self.assertEqual([tx.depth for tx in scenario.log], [1, 0])


class Timeouts(unittest.TestCase):
    """tx.timeout, and expire / disregard / revert while BLOCKED."""

    def test_calls_without_a_timeout_have_none(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock, sem, event = scenario.Lock(), scenario.Semaphore(), scenario.Event()
        calls: list[tuple[str, Callable[..., object], tuple[object, ...]]] = [
            ("no timeout parameter", lock.locked, ()),
            ("Lock.acquire default -1", lock.acquire, ()),
            ("Semaphore.acquire default None", sem.acquire, ()),
            ("Event.wait(None)", event.wait, (None,)),
        ]
        threads = [spawn(scenario, name, call, *args) for name, call, args in calls]
        with scenario:
            scenario.raw(event).set()
            for thread in threads:
                tx = arrive(scenario, thread)
                self.assertIsNone(tx.timeout, thread.name)
                let_go(scenario, tx)
                self.assertIsNone(tx.timeout, thread.name)

    def test_a_timeout_before_during_and_after_a_successful_call(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock = scenario.Lock()
        A = spawn(scenario, "A", lock.acquire, timeout=5)
        with scenario:
            tx = arrive(scenario, A)
            self.assertEqual(tx.timeout, TimeoutState(5, None, False))
            let_go(scenario, tx)
        timeout = tx.timeout
        assert timeout is not None
        self.assertEqual((timeout.value, timeout.timed_out), (5, False))
        assert timeout.time is not None and tx.end_time is not None
        self.assertGreater(timeout.time, tx.end_time)  # the deadline 5 s on
        self.assertLessEqual(timeout.time - 5, tx.end_time)

    def test_a_zero_timeout_on_a_held_lock_times_out(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock = scenario.Lock()
        A = spawn(scenario, "A", lock.acquire, timeout=0)
        with scenario:
            scenario.raw(lock).acquire()
            try:
                let_go(scenario, arrive(scenario, A))
            finally:
                scenario.raw(lock).release()
        tx = scenario.log[0]
        self.assertIs(tx.result, False)
        timeout = tx.timeout
        assert timeout is not None
        self.assertEqual((timeout.value, timeout.timed_out), (0, True))
        self.assertNotIn(State.WAITING, states(tx))

    def test_expire_makes_the_call_time_out_now(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock = scenario.Lock()
        A = spawn(scenario, "A", lock.acquire, timeout=BOUND)
        with scenario:
            scenario.raw(lock).acquire()
            try:
                tx = arrive(scenario, A)
                tx.expire()
                self.assertEqual(tx.timeout, TimeoutState(0, None, False))
                let_go(scenario, tx)
            finally:
                scenario.raw(lock).release()
        self.assertIs(tx.result, False)
        self.assertIs(tx.failed, True)
        timeout = tx.timeout
        assert timeout is not None and timeout.time is not None and tx.end_time is not None
        self.assertEqual((timeout.value, timeout.timed_out), (0, True))
        self.assertLessEqual(timeout.time, tx.end_time)
        self.assertEqual(tx.args, (True, BOUND))  # the caller's arguments are kept

    def test_expire_of_a_non_blocking_acquire_keeps_its_arguments(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock = scenario.Lock()
        A = spawn(scenario, "A", lock.acquire, False)
        with scenario:
            scenario.raw(lock).acquire()
            try:
                tx = arrive(scenario, A)
                tx.expire()
                let_go(scenario, tx)
            finally:
                scenario.raw(lock).release()
        # acquire(False, 0) would raise ValueError; acquire(False) returns False.
        self.assertIs(tx.state, State.RETURNED)
        self.assertIs(tx.result, False)

    def test_disregard_makes_the_call_wait_without_a_timeout(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock = scenario.Lock()
        A = spawn(scenario, "A", lock.acquire, timeout=0)
        with scenario:
            raw = scenario.raw(lock)
            raw.acquire()
            try:
                tx = arrive(scenario, A)
                tx.disregard()
                self.assertIsNone(tx.timeout)
                tx.unblock()
                # With its own zero timeout it would not have gone to sleep.
                scenario.wait(blanket.Waiting(tx))
            finally:
                raw.release()
            scenario.wait(tx)
        self.assertIs(tx.result, True)
        self.assertIsNone(tx.timeout)

    def test_revert_gives_the_callers_timeout_back(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock = scenario.Lock()
        A = spawn(scenario, "A", lock.acquire, timeout=BOUND)
        B = spawn(scenario, "B", lock.acquire, timeout=0)
        with scenario:
            raw = scenario.raw(lock)
            raw.acquire()
            try:
                a = arrive(scenario, A)
                a.expire()
                a.revert()
                self.assertEqual(a.timeout, TimeoutState(BOUND, None, False))
                a.unblock()
                scenario.wait(blanket.Waiting(a))  # it waits: not expired
            finally:
                raw.release()
            scenario.wait(a)
            b = arrive(scenario, B)  # A holds the lock now
            b.disregard()
            b.revert()
            let_go(scenario, b)
        self.assertIs(a.result, True)
        self.assertIs(b.result, False)
        self.assertEqual(b.timeout and b.timeout.value, 0)

    def test_timeout_changes_need_a_timeout_and_the_block(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock = scenario.Lock()

        def work() -> None:
            lock.acquire()
            lock.release()

        A = spawn(scenario, "A", work)
        with scenario:
            acquire = arrive(scenario, A)
            let_go(scenario, acquire)
            release = arrive(scenario, A)
            for verb in ("expire", "disregard", "revert"):
                with self.subTest(verb=verb):
                    with self.assertRaisesRegex(
                            TypeError, rf"cannot {verb} Lock\.release of thread 'A' .*"
                            r"Lock\.release takes no timeout"):
                        getattr(release, verb)()
                    with self.assertRaisesRegex(
                            ValueError, rf"^cannot {verb} Lock\.acquire of thread 'A' "
                            r"in state RETURNED$"):
                        getattr(acquire, verb)()
            let_go(scenario, release)
        self.assertEqual(release.state, State.RETURNED)


class LettingGo(unittest.TestCase):
    """unblock / unstall in the wrong state; pause, pausing and unpause."""

    def test_unblock_and_unstall_in_the_wrong_state(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock = scenario.Lock()
        A = spawn(scenario, "A", lock.acquire)
        with scenario:
            tx = arrive(scenario, A)
            with self.assertRaisesRegex(ValueError, r"^cannot unstall Lock\.acquire of thread "
                                        r"'A' in state BLOCKED \(parked\)$"):
                tx.unstall()
            tx.unblock()
            scenario.wait(tx)
            with self.assertRaisesRegex(ValueError, r"^cannot unblock Lock\.acquire of thread "
                                        r"'A' in state RETURNED$"):
                tx.unblock()
            with self.assertRaisesRegex(ValueError, "cannot unstall Lock.acquire"):
                tx.unstall()

    def test_unstall_lets_a_woken_condition_wait_go(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        cond = scenario.Condition()

        def waiter() -> None:
            with cond:
                cond.wait()

        def notifier() -> None:
            with cond:
                cond.notify()

        W, N = spawn(scenario, "W", waiter), spawn(scenario, "N", notifier)
        with scenario:
            let_go(scenario, arrive(scenario, W))
            wait = arrive(scenario, W)
            wait.unblock()
            scenario.wait(blanket.Waiting(wait))
            for _ in range(3):  # N: acquire, notify, release
                let_go(scenario, arrive(scenario, N))
            scenario.wait(blanket.Stalled(wait))
            with self.assertRaisesRegex(ValueError, "cannot unblock Condition.wait of thread "
                                        "'W' in state STALLED"):
                wait.unblock()
            wait.unstall()
            scenario.wait(wait)
            let_go(scenario, arrive(scenario, W))
        self.assertIs(wait.result, True)
        self.assertEqual(states(wait)[:5], [State.BLOCKED, State.COMMIT, State.WAITING,
                                            State.STALLED, State.RESUMED])

    def test_a_paused_call_parks_after_the_real_call_until_unpaused(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock = scenario.Lock()
        A = spawn(scenario, "A", lock.acquire)
        with scenario:
            tx = arrive(scenario, A)
            self.assertFalse(tx.pause)
            self.assertFalse(tx.pausing)
            tx.pause = True
            self.assertTrue(tx.pause)
            self.assertTrue(tx.pausing)
            tx.unblock()
            scenario.wait(blanket.Paused(tx))
            self.assertTrue(scenario.raw(lock).locked())  # the real call was made
            self.assertIs(tx.result, True)
            self.assertFalse(tx.done)
            tx.pause = True  # asking again while PAUSED is allowed
            tx.unpause()
            self.assertFalse(tx.pause)
            scenario.wait(tx)
        self.assertEqual(states(tx), [State.BLOCKED, State.COMMIT, State.COMMITTED,
                                      State.PAUSED, State.EXITING, State.RETURNED])

    def test_clearing_pause_lets_a_paused_call_go(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        event = scenario.Event()
        A = spawn(scenario, "A", event.is_set)
        with scenario:
            tx = arrive(scenario, A)
            tx.pause = True
            tx.unblock()
            scenario.wait(blanket.Paused(tx))
            tx.pause = False
            self.assertEqual(scenario.wait(tx), {tx})
        self.assertIn(State.PAUSED, states(tx))

    def test_pause_withdrawn_before_the_call_gets_there(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        event = scenario.Event()
        A = spawn(scenario, "A", event.is_set)
        B = spawn(scenario, "B", event.is_set)
        with scenario:
            a = arrive(scenario, A)
            a.pause = True
            a.unpause()
            let_go(scenario, a)
            b = arrive(scenario, B)
            b.pause = False  # not paused: nothing to withdraw, no error
            b.pause = True
            b.pause = False
            let_go(scenario, b)
        for tx in (a, b):
            self.assertNotIn(State.PAUSED, states(tx))

    def test_pause_errors(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        event = scenario.Event()
        A = spawn(scenario, "A", event.is_set)
        with scenario:
            tx = arrive(scenario, A)
            with self.assertRaisesRegex(ValueError, r"^cannot unpause Event\.is_set of thread "
                                        r"'A' in state BLOCKED \(parked\)$"):
                tx.unpause()
            let_go(scenario, tx)
            with self.assertRaisesRegex(ValueError, r"^cannot pause Event\.is_set of thread "
                                        r"'A' in state RETURNED$"):
                tx.pause = True
            self.assertFalse(tx.pause)
            with self.assertRaisesRegex(ValueError, "cannot unpause"):
                tx.unpause()


class PushAndPop(unittest.TestCase):
    """push() takes a root call off its thread's chain until popped."""

    @staticmethod
    def pushing(scenario: blanket.Scenario, inside: Callable[[blanket.Transaction], object]
                ) -> Callable[[], bool]:
        """A ``wait_for`` predicate that calls *inside* with the calling
        thread's call (the ``wait_for``, running), then says True."""
        def predicate() -> bool:
            tx = scenario.transaction(threading.current_thread())
            assert tx is not None
            inside(tx)
            return True
        return predicate

    def test_pop_as_a_callable(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        cond = scenario.Condition()
        seen: list[object] = []

        def inside(tx: blanket.Transaction) -> None:
            pop = tx.push()
            seen.append(scenario.transaction(tx.thread))
            seen.append(scenario.wait(blanket.Action(tx)))
            with self.assertRaisesRegex(ValueError, r"^cannot push Condition\.wait_for of "
                                        r"thread 'A' in state COMMIT: only an active root"):
                tx.push()
            pop()
            seen.append(scenario.transaction(tx.thread) is tx)
            with self.assertRaisesRegex(ValueError, "is not pushed"):
                pop()

        A = spawn(scenario, "A", cond.wait_for, self.pushing(scenario, inside))
        with scenario:
            tx = arrive(scenario, A)
            let_go(scenario, tx)
            with self.assertRaisesRegex(ValueError, "cannot push Condition.wait_for of "
                                        "thread 'A' in state RETURNED"):
                tx.push()
        self.assertEqual(seen, [None, {blanket.Action(tx)}, True])
        self.assertIs(tx.result, True)

    def test_pop_as_a_context_manager(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        cond = scenario.Condition()
        seen: list[object] = []

        def inside(tx: blanket.Transaction) -> None:
            with tx.push() as pop:
                seen.append(callable(pop))
                seen.append(dict(scenario.transactions))
            seen.append(dict(scenario.transactions))

        A = spawn(scenario, "A", cond.wait_for, self.pushing(scenario, inside))
        with scenario:
            tx = arrive(scenario, A)
            let_go(scenario, tx)
        self.assertEqual(seen, [True, {}, {A: tx}])

    def test_another_thread_cannot_push_a_call_and_its_thread_goes_on(self) -> None:
        # Pushed by the scheduler while parked, the acquire used to kill its
        # thread once made: the thread died holding the real lock.
        scenario = blanket.Scenario(timeout=BOUND)
        lock = scenario.Lock()
        A = spawn(scenario, "A", lock.acquire)
        with scenario:
            tx = arrive(scenario, A)
            with self.assertRaisesRegex(
                    ValueError, r"^cannot push Lock\.acquire of thread 'A' in state "
                    r"BLOCKED \(parked\) from thread 'MainThread': only its own thread"):
                tx.push()
            self.assertIs(scenario.transaction(A), tx)
            let_go(scenario, tx)
            scenario.wait(blanket.Terminated(A))
        self.assertIs(tx.result, True)
        self.assertTrue(scenario.raw(lock).locked())
        self.assertNotIn(A, scenario._core.errors)

    def test_another_thread_cannot_pop_a_call(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        cond = scenario.Condition()
        errors: list[BaseException] = []

        def inside(tx: blanket.Transaction) -> None:
            pop = tx.push()
            helper = threading.Thread(target=keeping(errors, pop), name="helper")
            helper.start()
            helper.join(BOUND)
            pop()

        A = spawn(scenario, "A", cond.wait_for, self.pushing(scenario, inside))
        with scenario:
            tx = arrive(scenario, A)
            let_go(scenario, tx)
        self.assertIs(tx.result, True)
        self.assertEqual([str(e) for e in errors], [
            "cannot pop Condition.wait_for of thread 'A' in state COMMIT from thread "
            "'helper': only its own thread can, while the call runs (as in a barrier's "
            "action)"])

    def test_a_call_is_not_popped_under_calls_made_while_it_was_pushed(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        cond, inner_cond = scenario.Condition(), scenario.Condition()
        errors: list[BaseException] = []

        def inside(tx: blanket.Transaction) -> None:
            pop = tx.push()
            inner_cond.wait_for(self.pushing(scenario, lambda _inner: keeping(errors, pop)()))
            pop()

        A = spawn(scenario, "A", cond.wait_for, self.pushing(scenario, inside))
        with scenario:
            outer = arrive(scenario, A)
            outer.unblock()
            scenario.wait(blanket.Call(A, inner_cond.wait_for))
            inner = scenario.transaction(A)
            assert inner is not None
            self.assertIsNone(inner.parent)
            let_go(scenario, inner)
            scenario.wait(outer)
        self.assertIs(outer.result, True)
        self.assertEqual([str(e) for e in errors], [
            "cannot pop Condition.wait_for of thread 'A' in state COMMIT: calls its thread "
            "made while it was pushed are still in flight"])

    def test_a_call_that_ends_pushed_is_put_back(self) -> None:
        # It used to kill its thread as it ended: off its chain, it could not
        # be taken off.
        scenario = blanket.Scenario(timeout=BOUND)
        cond = scenario.Condition()
        pops: list[Callable[[], None]] = []
        A = spawn(scenario, "A", cond.wait_for,
                  self.pushing(scenario, lambda tx: pops.append(tx.push())))
        with scenario:
            tx = arrive(scenario, A)
            let_go(scenario, tx)
            self.assertEqual(scenario.wait(blanket.Not(blanket.Action(tx))),
                             {blanket.Not(blanket.Action(tx))})
            scenario.wait(blanket.Terminated(A))
        self.assertIs(tx.result, True)
        self.assertNotIn(A, scenario._core.errors)
        self.assertEqual(len(pops), 1)

    def test_a_nested_call_cannot_be_pushed(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        cond, event = scenario.Condition(), scenario.Event()
        A = spawn(scenario, "A", cond.wait_for, event.is_set)
        with scenario:
            outer = arrive(scenario, A)
            outer.unblock()
            scenario.wait(blanket.Nested(outer))
            inner = arrive(scenario, A)
            with self.assertRaisesRegex(ValueError, "cannot push Event.is_set of thread 'A'"):
                inner.push()
            scenario.raw(event).set()
            let_go(scenario, inner)
            scenario.wait(outer)
        self.assertIs(outer.result, True)

    def test_the_barrier_pushes_its_wait_around_the_action(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        event = scenario.Event()
        barrier = scenario.Barrier(1, action=event.set)
        A = spawn(scenario, "A", barrier.wait)
        with scenario:
            wait = arrive(scenario, A)
            wait.unblock()
            scenario.wait(blanket.Action(wait))
            with self.assertRaisesRegex(ValueError, "cannot push Barrier.wait"):
                wait.push()  # already pushed
            action = arrive(scenario, A)
            self.assertIsNone(action.parent)
            let_go(scenario, action)
            scenario.wait(wait)
        self.assertEqual([tx.spec.name for tx in scenario.log], ["set", "wait"])


class Repr(unittest.TestCase):
    """repr(tx): kind.method, state, thread, start time, result, arguments,
    depth and the primitive."""

    PATTERN = (r"^<{call} {state} '{thread}' start_time=[0-9.]+(e[-+]?[0-9]+)?"
               r"{rest} for {primitive}>$")

    def assert_repr(self, tx: blanket.Transaction, call: str, state: str, thread: str,
                    rest: str, primitive: str) -> None:
        pattern = self.PATTERN.format(call=re.escape(call), state=state, thread=thread,
                                      rest=rest, primitive=re.escape(primitive))
        self.assertRegex(repr(tx), pattern)
        self.assertIn(f"start_time={tx.start_time}", repr(tx))

    def test_blocked_done_and_arguments(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        lock = scenario.Lock()
        A = spawn(scenario, "A", lock.acquire, timeout=5)
        B = spawn(scenario, "B", lock.acquire, False)
        with scenario:
            a = arrive(scenario, A)
            self.assert_repr(a, "Lock.acquire", "BLOCKED", "A", " timeout=5",
                             f"Lock 1 0X{id(lock):X}")
            let_go(scenario, a)
            self.assert_repr(a, "Lock.acquire", "RETURNED", "A", " result=True timeout=5",
                             f"Lock 1 0X{id(lock):X}")
            b = arrive(scenario, B)
            let_go(scenario, b)
            self.assert_repr(b, "Lock.acquire", "RETURNED", "B", " result=False blocking=False",
                             f"Lock 1 0X{id(lock):X}")

    def test_default_arguments_are_left_out(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        sem = scenario.Semaphore()
        A = spawn(scenario, "A", sem.acquire, True, None)
        with scenario:
            a = arrive(scenario, A)
            self.assert_repr(a, "Semaphore.acquire", "BLOCKED", "A", "",
                             f"Semaphore 1 0X{id(sem):X}")
            let_go(scenario, a)

    def test_raised_result_depth_and_given_name(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        cond, event = scenario.Condition(), scenario.Event()
        scenario.api(event).name = "ready"
        errors: list[BaseException] = []
        A = spawn(scenario, "A", keeping(errors, lambda: cond.wait_for(event.is_set)))
        with scenario:
            outer = arrive(scenario, A)
            outer.unblock()
            scenario.wait(blanket.Nested(outer))
            inner = arrive(scenario, A)
            self.assert_repr(inner, "Event.is_set", "BLOCKED", "A", " depth=1", "'ready'")
            let_go(scenario, inner)  # False: wait_for goes on to wait, not owning the lock
            scenario.wait(blanket.Nested(outer))
            wait = arrive(scenario, A)
            self.assertEqual(wait.spec.name, "wait")
            let_go(scenario, wait)
            scenario.wait(outer)
        self.assertIs(outer.state, State.RAISED)
        self.assertIs(outer.result, errors[0])
        self.assertIsInstance(outer.result, RuntimeError)
        self.assert_repr(wait, "Condition.wait", "RAISED", "A",
                         r" result=RuntimeError\(.*\) depth=1", f"Condition 1 0X{id(cond):X}")
        self.assert_repr(outer, "Condition.wait_for", "RAISED", "A",
                         r" result=RuntimeError\(.*\) predicate=.*",
                         f"Condition 1 0X{id(cond):X}")
        self.assertIn(f"predicate={event.is_set!r}", repr(outer))


class CallSpecs(unittest.TestCase):
    """CallSpec: replacing the timeout argument, and its repr."""

    def test_with_timeout_replaces_the_timeout_argument(self) -> None:
        scenario = blanket.Scenario()
        lock, event, cond = scenario.Lock(), scenario.Event(), scenario.Condition()
        acquire = lock._specs["acquire"]
        self.assertEqual(acquire.with_timeout((True, 5), 0), (True, 0))
        self.assertEqual(acquire.with_timeout((True, 5), -1), (True, -1))
        self.assertEqual(event._specs["wait"].with_timeout((5,), 0), (0,))
        predicate = event.is_set
        self.assertEqual(cond._specs["wait_for"].with_timeout((predicate, 5), None),
                         (predicate, None))

    def test_a_non_blocking_acquire_keeps_its_arguments(self) -> None:
        acquire = blanket.Scenario().Lock()._specs["acquire"]
        self.assertEqual(acquire.with_timeout((False, -1), 0), (False, -1))
        self.assertEqual(acquire.with_timeout((0, -1), 0), (0, -1))

    def test_fields_and_repr(self) -> None:
        spec = CallSpec("Lock", "acquire", ("blocking", "timeout"), (True, -1), 1, -1, True)
        self.assertEqual(repr(spec), "<CallSpec Lock.acquire>")
        self.assertEqual((spec.kind, spec.name, spec.params, spec.defaults, spec.timeout_at,
                          spec.no_timeout, spec.reports_success),
                         ("Lock", "acquire", ("blocking", "timeout"), (True, -1), 1, -1, True))
        plain = CallSpec("Event", "set")
        self.assertEqual(repr(plain), "<CallSpec Event.set>")
        self.assertEqual((plain.params, plain.timeout_at, plain.reports_success), ((), None, False))


class LogView(unittest.TestCase):
    """scenario.log: a read-only sequence kept after exit, emptied on entry and reset."""

    def run_two_calls(self, scenario: blanket.Scenario) -> list[blanket.Transaction]:
        """Inside *scenario*, let two threads' calls go, B's first; return them."""
        event = scenario.Event()
        A = spawn(scenario, "A", event.is_set)
        B = spawn(scenario, "B", event.set)
        with scenario:
            a, b = arrive(scenario, A), arrive(scenario, B)
            let_go(scenario, b)
            let_go(scenario, a)
        return [b, a]

    def test_sequence_protocol(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        order = self.run_two_calls(scenario)
        log = scenario.log
        self.assertIsInstance(log, Sequence)
        self.assertEqual(len(log), 2)
        self.assertIs(log[0], order[0])
        self.assertIs(log[-1], order[1])
        self.assertEqual(log[:], tuple(order))
        self.assertIsInstance(log[0:1], tuple)
        self.assertEqual(log[::-1], tuple(reversed(order)))
        self.assertEqual(list(log), order)
        self.assertIn(order[1], log)
        self.assertEqual(log.index(order[1]), 1)
        self.assertEqual(repr(log), "<blanket log of 2 transactions>")
        with self.assertRaises(IndexError):
            log[2]  # noqa: B018
        with self.assertRaises(TypeError):
            log[0] = order[1]  # type: ignore[index]
        self.assertEqual([tx.result for tx in log], [None, True])

    def test_iteration_is_over_a_snapshot(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND, record_unregulated=True)
        lock = scenario.Lock()
        lock.acquire()
        seen = []
        for tx in scenario.log:
            seen.append(tx)
            lock.release()  # recorded: the log grows while iterated
        self.assertEqual(len(seen), 1)
        self.assertEqual(len(scenario.log), 2)

    def test_kept_after_exit_emptied_on_entry_and_by_reset(self) -> None:
        scenario = blanket.Scenario(timeout=BOUND)
        self.assertEqual(repr(scenario.log), "<blanket log of 0 transactions>")
        first = self.run_two_calls(scenario)
        self.assertEqual(list(scenario.log), first)  # after the with block
        log = scenario.log
        second = self.run_two_calls(scenario)
        self.assertIs(scenario.log, log)
        self.assertEqual(list(scenario.log), second)  # the first run's entries are gone
        scenario.reset()
        self.assertEqual(len(scenario.log), 0)
        self.assertEqual(scenario.log[:], ())


if __name__ == "__main__":  # pragma: no cover
    unittest.main()
