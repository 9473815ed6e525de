"""The calls that wait for other threads: Condition.wait / wait_for and
Barrier.wait, scripted one step at a time inside ``with scenario:``.

A ``Condition.wait`` goes ``WAITING`` once it gave the lock up, parks at
``STALLED`` when woken, and takes the lock back in a nested ``acquire``
transaction that is ``WAITING`` only if the lock is still held. A barrier
party that is not the last goes ``WAITING``; the last one runs the action
with its own transaction pushed off its thread's chain.
"""

from __future__ import annotations

import threading
import unittest
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import blanket
from blanket import State, Transaction
from blanket.primitives import _WaitLock

from .support import unchecked
from .test_primitives_support import (
    COND_WAIT,
    PLAIN,
    RAISED,
    REACQUIRE_FREE,
    REACQUIRE_HELD,
    SLEPT,
    TIMED,
    B,
    C,
    D,
    E,
    R,
    S,
    ScriptedTestCase,
    W,
    named,
    quietly,
    scenario,
    states,
)

#: What a Condition can be built over: its default RLock, a plain
#: threading.Lock, a blanket Lock or RLock of the same scenario.
LOCKS: dict[str, Callable[[blanket.Scenario], Any]] = {
    "default RLock": lambda sc: None,
    "threading.Lock": lambda sc: threading.Lock(),
    "blanket Lock": lambda sc: sc.Lock(),
    "blanket RLock": lambda sc: sc.RLock(),
}


def waiter(cond: Any, *args: Any) -> Callable[[], None]:
    """A thread target: ``with cond: cond.wait(*args)``."""
    def target() -> None:
        with cond:
            cond.wait(*args)
    return target


def notifier(cond: Any, method: str = "notify", *args: Any) -> Callable[[], None]:
    """A thread target: ``with cond: cond.<method>(*args)``."""
    def target() -> None:
        with cond:
            getattr(cond, method)(*args)
    return target


class FailingLock:
    """A lock of the user's own (Condition takes any lock-like object) whose
    acquire raises ``OSError`` in the thread :attr:`fail_in`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.fail_in: threading.Thread | None = None

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        if threading.current_thread() is self.fail_in:
            raise OSError("lock lost")
        return self._lock.acquire(blocking, timeout)

    def release(self) -> None:
        self._lock.release()

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc_info: object) -> None:
        self.release()


def waiter_keeping_errors(cond: Any) -> Callable[[], None]:
    """A thread target: take the lock and wait; an error from the wait ends it
    (its transaction holds the error)."""
    def target() -> None:
        cond.acquire()
        try:
            cond.wait()
        except OSError:
            return
        cond.release()
    return target


class ConditionScript(ScriptedTestCase):
    """Steps of a Condition script (no tests of its own)."""

    def enter_wait(self, sc: blanket.Scenario, thread: threading.Thread, cond: Any
                   ) -> Transaction:
        """Let *thread* take the lock and start its wait; return the wait,
        ``WAITING`` (the lock given up, the waiter registered)."""
        self.let_go(sc, thread, cond.acquire)
        return self.start(sc, thread, cond.wait)

    def lock_and_notify(self, sc: blanket.Scenario, thread: threading.Thread, cond: Any,
                        method: Callable[..., Any] | None = None) -> Transaction:
        """Let *thread* take the lock and make its notify; the lock stays held
        (its release parked at ``BLOCKED``). Returns the notify."""
        acquire = self.let_go(sc, thread, cond.acquire)
        self.assertStates(acquire, TIMED)  # the waiters gave the lock up
        return self.let_go(sc, thread, method or cond.notify)

    def reacquire_of(self, sc: blanket.Scenario, wait: Transaction) -> Transaction:
        """The lock re-acquire nested in *wait*, from the log."""
        nested = [tx for tx in sc.log if tx.parent is wait]
        self.assertEqual(len(nested), 1, nested)
        return nested[0]

    def assertReacquire(self, tx: Transaction, wait: Transaction, cond: Any,
                        expected: list[State]) -> None:
        """*tx* is *wait*'s nested re-acquire of *cond*'s lock, through *expected*."""
        self.assertIs(tx.parent, wait)
        self.assertEqual(tx.depth, wait.depth + 1)
        self.assertIs(tx.primitive, cond)
        self.assertEqual(tx.method, cond.acquire)
        self.assertIs(tx.thread, wait.thread)
        self.assertCall(tx, expected, True)


class ConditionWait(ConditionScript):
    """wait: WAITING once the lock is given up, STALLED when woken, a nested
    re-acquire of the lock."""

    def test_reacquire_after_the_notifier_released(self) -> None:
        for kind, make_lock in LOCKS.items():
            with self.subTest(lock=kind):
                sc = scenario()
                cond = sc.Condition(make_lock(sc))
                Wt = named(sc.thread(waiter(cond)), "W")
                N = named(sc.thread(notifier(cond)), "N")
                with sc:
                    wait = self.enter_wait(sc, Wt, cond)
                    notify = self.lock_and_notify(sc, N, cond)
                    sc.wait(blanket.Stalled(wait))
                    release = self.let_go(sc, N, cond.release)
                    self.assertIs(wait.state, S)
                    wait.unstall()
                    sc.wait(wait)
                    mine = self.let_go(sc, Wt, cond.release)
                self.assertCall(wait, COND_WAIT, True)
                self.assertCall(notify, PLAIN, None)
                self.assertCall(release, PLAIN, None)
                self.assertCall(mine, PLAIN, None)
                self.assertReacquire(self.reacquire_of(sc, wait), wait, cond, REACQUIRE_FREE)

    def test_reacquire_waits_while_the_notifier_holds_the_lock(self) -> None:
        for kind, make_lock in LOCKS.items():
            with self.subTest(lock=kind):
                sc = scenario()
                cond = sc.Condition(make_lock(sc))
                Wt = named(sc.thread(waiter(cond)), "W")
                N = named(sc.thread(notifier(cond)), "N")
                with sc:
                    wait = self.enter_wait(sc, Wt, cond)
                    self.lock_and_notify(sc, N, cond)
                    sc.wait(blanket.Stalled(wait))
                    wait.unstall()
                    sc.wait(blanket.Nested(wait))
                    reacquire = sc.transaction(Wt)
                    assert reacquire is not None
                    sc.wait(blanket.Reached(reacquire, W))
                    self.assertIs(reacquire.state, W)
                    release = self.blocked(sc, N, cond.release)
                    self.assertEqual(sc.transactions, {Wt: reacquire, N: release})
                    release.unblock()
                    sc.wait(wait)
                    self.let_go(sc, Wt, cond.release)
                self.assertCall(wait, COND_WAIT, True)
                self.assertReacquire(reacquire, wait, cond, REACQUIRE_HELD)

    def test_rlock_recursion_is_restored_after_the_wait(self) -> None:
        sc = scenario()
        cond = sc.Condition()

        def twice() -> None:
            with cond, cond:
                cond.wait()
        Wt = sc.thread(twice)
        with sc:
            self.let_go(sc, Wt, cond.acquire)
            self.let_go(sc, Wt, cond.acquire)
            wait = self.start(sc, Wt, cond.wait)
            raw = sc.raw(cond)
            with raw:  # the scheduler notifies through the raw handle
                raw.notify()
            sc.wait(blanket.Stalled(wait))
            wait.unstall()
            sc.wait(wait)
            releases = [self.let_go(sc, Wt, cond.release) for _ in range(2)]
        self.assertCall(wait, COND_WAIT, True)
        self.assertReacquire(self.reacquire_of(sc, wait), wait, cond, REACQUIRE_FREE)
        for release in releases:
            self.assertCall(release, PLAIN, None)  # a lost count would raise here
        self.assertEqual([tx.thread for tx in sc.log], [Wt] * 6)

    def test_wait_with_a_timeout_notified_in_time(self) -> None:
        sc = scenario()
        cond = sc.Condition()
        Wt, N = sc.thread(waiter(cond, 30)), sc.thread(notifier(cond))
        with sc:
            wait = self.enter_wait(sc, Wt, cond)
            self.lock_and_notify(sc, N, cond)
            self.let_go(sc, N, cond.release)
            sc.wait(blanket.Stalled(wait))
            wait.unstall()
            sc.wait(wait)
            self.let_go(sc, Wt, cond.release)
        self.assertCall(wait, COND_WAIT, True)
        assert wait.timeout is not None
        self.assertEqual(wait.timeout.value, 30)
        self.assertFalse(wait.timeout.timed_out)

    def test_expired_wait_returns_false_through_the_stall(self) -> None:
        sc = scenario()
        cond = sc.Condition()
        Wt = sc.thread(waiter(cond, 30))
        with sc:
            self.let_go(sc, Wt, cond.acquire)
            wait = self.blocked(sc, Wt, cond.wait)
            wait.expire()
            wait.unblock()
            sc.wait(blanket.Stalled(wait))  # timed out at once, not yet back in
            wait.unstall()
            sc.wait(wait)
            self.let_go(sc, Wt, cond.release)
        self.assertCall(wait, COND_WAIT, False)
        self.assertIs(wait.succeeded, False)
        assert wait.timeout is not None
        self.assertTrue(wait.timeout.timed_out)
        self.assertReacquire(self.reacquire_of(sc, wait), wait, cond, REACQUIRE_FREE)

    def test_waiter_is_registered_once_waiting(self) -> None:
        sc = scenario()
        cond = sc.Condition(sc.Lock())
        sc.api(cond).name = "ready"
        Wt = sc.thread(waiter(cond))
        with sc:
            wait = self.enter_wait(sc, Wt, cond)
            self.assertEqual(repr(cond), "<blanket.Condition 'ready' waiters=1>")
            raw = sc.raw(cond)
            with raw:
                raw.notify()
            sc.wait(blanket.Stalled(wait))
            self.assertEqual(repr(cond), "<blanket.Condition 'ready' waiters=0>")
            wait.unstall()
            sc.wait(wait)
            self.let_go(sc, Wt, cond.release)
        self.assertCall(wait, COND_WAIT, True)

    def test_error_in_the_reacquire_ends_both_raised(self) -> None:
        sc = scenario()
        lock = FailingLock()
        cond = sc.Condition(lock)
        Wt = sc.thread(waiter_keeping_errors(cond))
        N = sc.thread(notifier(cond))
        with sc:
            wait = self.enter_wait(sc, Wt, cond)
            self.lock_and_notify(sc, N, cond)
            self.let_go(sc, N, cond.release)
            sc.wait(blanket.Stalled(wait))
            lock.fail_in = Wt
            wait.unstall()
            sc.wait(wait)
        reacquire = self.reacquire_of(sc, wait)
        self.assertRaisedCall(reacquire, [B, D, E, RAISED], OSError)
        self.assertRaisedCall(wait, [B, C, W, S, R, D, E, RAISED], OSError)
        self.assertIs(wait.result, reacquire.result)
        self.assertEqual(sc.transactions, {})


class ConditionNotify(ConditionScript):
    """notify() wakes the first waiter, notify(n) the first n, notify_all all."""

    def finish(self, sc: blanket.Scenario, cond: Any, *waits: Transaction) -> None:
        """Unstall each stalled wait in turn and let its lock release go."""
        for wait in waits:
            sc.wait(blanket.Stalled(wait))
            wait.unstall()
            sc.wait(wait)
            self.let_go(sc, wait.thread, cond.release)

    def test_notify_then_notify_all(self) -> None:
        sc = scenario()
        cond = sc.Condition()
        waiters = [named(sc.thread(waiter(cond)), f"W{i}") for i in (1, 2, 3)]
        N = sc.thread(notifier(cond))
        M = sc.thread(notifier(cond, "notify_all"))
        with sc:
            w1, w2, w3 = (self.enter_wait(sc, thread, cond) for thread in waiters)
            notify = self.lock_and_notify(sc, N, cond)
            sc.wait(blanket.Stalled(w1))
            self.let_go(sc, N, cond.release)
            self.assertEqual((w2.state, w3.state), (W, W))  # still asleep
            self.finish(sc, cond, w1)
            notify_all = self.lock_and_notify(sc, M, cond, cond.notify_all)
            sc.wait(blanket.Stalled(w2))
            sc.wait(blanket.Stalled(w3))
            self.let_go(sc, M, cond.release)
            self.finish(sc, cond, w2, w3)
        self.assertEqual(dict(notify.kwargs), {"n": 1})
        self.assertCall(notify_all, PLAIN, None)
        for wait in (w1, w2, w3):
            self.assertCall(wait, COND_WAIT, True)

    def test_notify_n_wakes_the_first_n(self) -> None:
        sc = scenario()
        cond = sc.Condition(threading.Lock())
        waiters = [named(sc.thread(waiter(cond)), f"W{i}") for i in (1, 2, 3)]
        N = sc.thread(notifier(cond, "notify", 2))
        with sc:
            w1, w2, w3 = (self.enter_wait(sc, thread, cond) for thread in waiters)
            notify = self.lock_and_notify(sc, N, cond)
            sc.wait(blanket.Stalled(w1))
            sc.wait(blanket.Stalled(w2))
            self.let_go(sc, N, cond.release)
            self.assertIs(w3.state, W)
            self.finish(sc, cond, w1, w2)
            raw = sc.raw(cond)
            with raw:
                raw.notify_all()
            self.finish(sc, cond, w3)
        self.assertCall(notify, PLAIN, None)
        self.assertEqual(dict(notify.kwargs), {"n": 2})
        for wait in (w1, w2, w3):
            self.assertCall(wait, COND_WAIT, True)


class ConditionWaitFor(ConditionScript):
    """wait_for: the waits inside, and the predicate's calls, are nested."""

    def test_predicate_true_at_once(self) -> None:
        sc = scenario()
        cond = sc.Condition()

        def worker() -> None:
            with cond:
                cond.wait_for(lambda: "ready")
        A = sc.thread(worker)
        with sc:
            self.let_go(sc, A, cond.acquire)
            wait_for = self.let_go(sc, A, cond.wait_for)
            self.let_go(sc, A, cond.release)
        self.assertCall(wait_for, TIMED, "ready")
        self.assertEqual([tx.parent for tx in sc.log], [None, None, None])

    def test_waits_and_predicate_calls_are_nested(self) -> None:
        sc = scenario()
        cond, event = sc.Condition(), sc.Event()

        def worker() -> None:
            with cond:
                cond.wait_for(event.is_set)

        def setter() -> None:
            event.set()
            with cond:
                cond.notify()
        A, Z = named(sc.thread(worker), "A"), named(sc.thread(setter), "Z")
        with sc:
            self.let_go(sc, A, cond.acquire)
            wait_for = self.blocked(sc, A, cond.wait_for)
            wait_for.unblock()
            first = self.let_go(sc, A, event.is_set, within=wait_for)
            wait = self.blocked(sc, A, cond.wait, within=wait_for)
            wait.unblock()
            sc.wait(blanket.Waiting(wait))
            self.let_go(sc, Z, event.set)
            self.lock_and_notify(sc, Z, cond)
            self.let_go(sc, Z, cond.release)
            sc.wait(blanket.Stalled(wait))
            wait.unstall()
            sc.wait(wait)
            second = self.let_go(sc, A, event.is_set, within=wait_for)
            sc.wait(wait_for)
            self.let_go(sc, A, cond.release)
        self.assertCall(wait_for, TIMED, True)
        self.assertIsNone(wait_for.parent)
        self.assertCall(first, PLAIN, False)
        self.assertCall(second, PLAIN, True)
        self.assertCall(wait, COND_WAIT, True)
        for tx in (first, wait, second):
            self.assertIs(tx.parent, wait_for)
            self.assertEqual(tx.depth, 1)
        reacquire = self.reacquire_of(sc, wait)
        self.assertEqual(reacquire.depth, 2)
        self.assertReacquire(reacquire, wait, cond, REACQUIRE_FREE)

    def test_expired_wait_for_gives_up_after_one_wait(self) -> None:
        sc = scenario()
        cond = sc.Condition()

        def worker() -> None:
            with cond:
                cond.wait_for(lambda: False, 30)
        A = sc.thread(worker)
        with sc:
            self.let_go(sc, A, cond.acquire)
            wait_for = self.blocked(sc, A, cond.wait_for)
            wait_for.expire()
            wait_for.unblock()
            wait = self.blocked(sc, A, cond.wait, within=wait_for)
            self.assertEqual(wait.args, (0,))
            wait.unblock()
            sc.wait(blanket.Stalled(wait))
            wait.unstall()
            sc.wait(wait_for)
            self.let_go(sc, A, cond.release)
        self.assertCall(wait_for, TIMED, False)
        self.assertIs(wait_for.succeeded, False)
        assert wait_for.timeout is not None
        self.assertTrue(wait_for.timeout.timed_out)
        self.assertCall(wait, COND_WAIT, False)
        self.assertEqual([tx.parent for tx in sc.log if tx.spec.name == "wait"], [wait_for])


class ConditionAtExit(ConditionScript):
    """Waits still in flight when the scenario exits finish natively."""

    def test_stalled_wait_finishes_natively(self) -> None:
        sc = scenario()
        cond = sc.Condition()
        Wt = sc.thread(waiter(cond))
        with sc:
            wait = self.enter_wait(sc, Wt, cond)
            raw = sc.raw(cond)
            with raw:
                raw.notify()
            sc.wait(blanket.Stalled(wait))
        self.assertCall(wait, COND_WAIT, True)
        # The re-acquire and the release came after the exit: not regulated.
        self.assertEqual([tx.method for tx in sc.log], [cond.acquire, cond.wait])
        self.assertTrue(sc.raw(cond).acquire(False))  # W let the lock go natively
        sc.raw(cond).release()

    def test_wait_woken_after_exit_does_not_stall(self) -> None:
        sc = scenario(record_unregulated=True)
        cond = sc.Condition()
        Wt, N = sc.thread(waiter(cond)), sc.thread(notifier(cond))
        with sc:
            wait = self.enter_wait(sc, Wt, cond)
            self.let_go(sc, N, cond.acquire)
            notify = self.blocked(sc, N, cond.notify)  # let go by the exit
        self.assertCall(notify, PLAIN, None)
        self.assertCall(wait, [B, C, W, R, D, E, State.RETURNED], True)
        # After the exit, W's re-acquire and release are recorded unregulated.
        mine = [tx for tx in sc.log if tx.thread is Wt]
        self.assertEqual([tx.spec.name for tx in mine], ["acquire", "acquire", "wait", "release"])
        self.assertEqual([states(tx) for tx in mine[1::2]], [[C, State.RETURNED]] * 2)
        self.assertEqual([tx.result for tx in mine], [True, True, True, None])
        self.assertIs(mine[2], wait)

    def test_error_in_the_reacquire_after_exit_ends_the_wait_raised(self) -> None:
        sc = scenario()
        lock = FailingLock()
        cond = sc.Condition(lock)
        Wt = sc.thread(waiter_keeping_errors(cond))
        N = sc.thread(notifier(cond))
        with sc:
            wait = self.enter_wait(sc, Wt, cond)
            self.let_go(sc, N, cond.acquire)
            self.blocked(sc, N, cond.notify)  # let go by the exit
            lock.fail_in = Wt
        # The re-acquire ran unregulated, so it is no transaction; its error
        # still ends the wait.
        self.assertRaisedCall(wait, [B, C, W, R, D, E, RAISED], OSError)
        self.assertEqual([tx for tx in sc.log if tx.parent is wait], [])
        self.assertFalse(lock._lock.locked())


class BarrierWait(ScriptedTestCase):
    """Barrier.wait: parties that are not the last sleep; the last opens."""

    def test_last_party_does_not_sleep(self) -> None:
        sc = scenario()
        barrier = sc.Barrier(3)
        A, Bt, Ct = (named(sc.thread(barrier.wait), name) for name in "ABC")
        with sc:
            first = self.start(sc, A, barrier.wait)
            second = self.start(sc, Bt, barrier.wait)
            last = self.let_go(sc, Ct, barrier.wait)
            sc.wait(first)
            sc.wait(second)
        self.assertCall(first, SLEPT, 0)
        self.assertCall(second, SLEPT, 1)
        self.assertCall(last, TIMED, 2)
        self.assertFalse(sc.raw(barrier).broken)

    def test_single_party_does_not_sleep(self) -> None:
        sc = scenario()
        barrier = sc.Barrier(1)
        A = sc.thread(barrier.wait, 30)
        with sc:
            self.assertEqual((barrier.parties, barrier.n_waiting, barrier.broken),
                             (1, 0, False))  # properties are not calls
            wait = self.let_go(sc, A, barrier.wait)
        self.assertCall(wait, TIMED, 0)

    def test_index_zero_is_a_success(self) -> None:
        # Barrier.wait returns the arrival index; 0 is no time-out (a timed
        # out barrier wait raises instead).
        sc = scenario()
        barrier = sc.Barrier(1)
        A = sc.thread(barrier.wait)
        with sc:
            wait = self.let_go(sc, A, barrier.wait)
        self.assertCall(wait, TIMED, 0)
        self.assertIs(wait.succeeded, True)
        self.assertIs(wait.failed, False)

    def test_reset_breaks_the_wait_of_a_sleeping_party(self) -> None:
        sc = scenario()
        barrier = sc.Barrier(2)
        A, Z = sc.thread(quietly(barrier.wait)), sc.thread(barrier.reset)
        with sc:
            wait = self.start(sc, A, barrier.wait)
            reset = self.let_go(sc, Z, barrier.reset)
            sc.wait(wait)
        self.assertCall(reset, PLAIN, None)
        self.assertRaisedCall(wait, [B, C, W, R, D, E, RAISED], threading.BrokenBarrierError)
        self.assertFalse(sc.raw(barrier).broken)

    def test_abort_breaks_the_barrier(self) -> None:
        sc = scenario()
        barrier = sc.Barrier(2)
        A, Z = sc.thread(quietly(barrier.wait)), sc.thread(barrier.abort)
        with sc:
            wait = self.start(sc, A, barrier.wait)
            abort = self.let_go(sc, Z, barrier.abort)
            sc.wait(wait)
        self.assertCall(abort, PLAIN, None)
        self.assertRaisedCall(wait, [B, C, W, R, D, E, RAISED], threading.BrokenBarrierError)
        self.assertTrue(sc.raw(barrier).broken)

    def test_expired_wait_breaks_the_barrier_after_a_zero_wait(self) -> None:
        # The real barrier counts the party and waits with a zero timeout:
        # WAITING, then RESUMED, then the barrier breaks.
        sc = scenario()
        barrier = sc.Barrier(2)
        A = sc.thread(quietly(barrier.wait))
        with sc:
            wait = self.blocked(sc, A, barrier.wait)
            wait.expire()
            wait.unblock()
            sc.wait(wait)
        self.assertRaisedCall(wait, [B, C, W, R, D, E, RAISED], threading.BrokenBarrierError)
        self.assertTrue(sc.raw(barrier).broken)

    def test_wait_on_a_broken_barrier_raises_without_sleeping(self) -> None:
        sc = scenario()
        barrier = sc.Barrier(2)
        sc.raw(barrier).abort()
        A = sc.thread(quietly(barrier.wait))
        with sc:
            wait = self.let_go(sc, A, barrier.wait)
        self.assertRaisedCall(wait, [B, C, D, E, RAISED], threading.BrokenBarrierError)


class BarrierAction(ScriptedTestCase):
    """The action runs with the opener's wait pushed: its calls are roots."""

    def test_action_calls_are_root_transactions(self) -> None:
        sc = scenario()
        event = sc.Event()
        barrier = sc.Barrier(2, action=event.set)
        A, Z = named(sc.thread(barrier.wait), "A"), named(sc.thread(barrier.wait), "Z")
        with sc:
            waiting = self.start(sc, A, barrier.wait)
            opener = self.blocked(sc, Z, barrier.wait)
            opener.unblock()
            sc.wait(blanket.Action(opener))
            set_ = self.blocked(sc, Z, event.set)
            self.assertIsNone(set_.parent)
            self.assertEqual(set_.depth, 0)
            self.assertIs(opener.state, C)
            self.assertIs(waiting.state, W)  # nobody passes before the action
            self.assertEqual(sc.transactions, {A: waiting, Z: set_})
            set_.unblock()
            sc.wait(opener)
            sc.wait(waiting)
        self.assertCall(set_, PLAIN, None)
        self.assertCall(opener, TIMED, 1)
        self.assertCall(waiting, SLEPT, 0)
        self.assertIs(sc.log[0], set_)
        # Once the barrier opens, A and Z finish in whatever order they run.
        self.assertCountEqual(sc.log[1:], [opener, waiting])
        self.assertTrue(sc.raw(event).is_set())

    def test_failing_action_raises_in_the_opener_and_breaks_the_others(self) -> None:
        sc = scenario()
        lock = sc.Lock()

        def action() -> None:
            lock.release()  # never held: RuntimeError
        barrier = sc.Barrier(2, action=action)
        A, Z = sc.thread(quietly(barrier.wait)), sc.thread(quietly(barrier.wait))
        with sc:
            waiting = self.start(sc, A, barrier.wait)
            opener = self.blocked(sc, Z, barrier.wait)
            opener.unblock()
            sc.wait(blanket.Action(opener))
            release = self.let_go(sc, Z, lock.release)
            sc.wait(opener)
            sc.wait(waiting)
        self.assertRaisedCall(release, [B, D, E, RAISED], RuntimeError)
        self.assertRaisedCall(opener, [B, C, D, E, RAISED], RuntimeError)
        self.assertIs(opener.result, release.result)
        self.assertRaisedCall(waiting, [B, C, W, R, D, E, RAISED], threading.BrokenBarrierError)
        self.assertTrue(sc.raw(barrier).broken)

    def test_action_of_a_nested_wait_runs_nested(self) -> None:
        # A barrier wait inside wait_for's predicate is not a root: its
        # action's calls stay nested under it.
        sc = scenario()
        cond, event = sc.Condition(), sc.Event()
        barrier = sc.Barrier(1, action=event.set)

        def worker() -> None:
            with cond:
                cond.wait_for(lambda: barrier.wait() == 0)
        A = sc.thread(worker)
        with sc:
            self.let_go(sc, A, cond.acquire)
            wait_for = self.blocked(sc, A, cond.wait_for)
            wait_for.unblock()
            wait = self.blocked(sc, A, barrier.wait, within=wait_for)
            wait.unblock()
            set_ = self.let_go(sc, A, event.set, within=wait)
            sc.wait(wait_for)
            self.let_go(sc, A, cond.release)
        self.assertCall(set_, PLAIN, None)
        self.assertEqual(set_.depth, 2)
        self.assertCall(wait, TIMED, 0)
        self.assertCall(wait_for, TIMED, True)

    def test_action_sees_every_party_in(self) -> None:
        sc = scenario()
        seen: list[str] = []
        barrier = sc.Barrier(2, action=lambda: seen.append(repr(barrier)))
        sc.api(barrier).name = "gate"
        A, Z = sc.thread(barrier.wait), sc.thread(barrier.wait)
        with sc:
            waiting = self.start(sc, A, barrier.wait)
            opener = self.let_go(sc, Z, barrier.wait)
            sc.wait(waiting)
        self.assertEqual(seen, ["<blanket.Barrier 'gate' waiters=2/2>"])
        self.assertCall(opener, TIMED, 1)


if __name__ == "__main__":  # pragma: no cover
    unittest.main()


class SecondSleep(unittest.TestCase):
    """A Barrier.wait can sleep twice in one call (the barrier was draining
    when it came, then its own turn): the second sleep changes no state, but
    whoever watches the sleepers (Settled, assertNoDeadlock) must look again.
    Which sleep comes second depends on thread timing, so the hook is driven
    directly here."""

    def test_a_second_sleep_is_announced(self) -> None:
        changes: list[int] = []
        core = SimpleNamespace(lock=threading.Lock(), changed=lambda: changes.append(1),
                               current=lambda owner, name: SimpleNamespace(
                                   state=State.WAITING))
        lock = threading.Lock()
        with unchecked():
            hook = _WaitLock(SimpleNamespace(_core=core), lock)  # type: ignore[arg-type]
        lock.acquire()
        hook._release_save()
        self.assertFalse(lock.locked())
        self.assertEqual(changes, [1])
