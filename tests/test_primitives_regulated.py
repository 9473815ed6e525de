"""Every method of every primitive inside ``with scenario:``, one call at a time.

Each test has a managed thread make the call, checks it parked at
``BLOCKED``, lets it go and asserts the exact states it went through:
``BLOCKED COMMITTED EXITING RETURNED`` for a call without a timeout,
``COMMIT`` after ``BLOCKED`` for a timeout-bearing one, ``WAITING RESUMED``
after ``COMMIT`` when the real call had to sleep, ``RAISED`` at the end of a
call that raised. Also: the timeout overrides (expire, disregard, revert),
the scheduler pause, and calls left parked when the scenario exits.
"""

from __future__ import annotations

import contextlib
import threading
import unittest
import warnings
from typing import Any

import blanket
from blanket import State

from .test_primitives_support import (
    PLAIN,
    RAISED,
    SLEPT,
    TIMED,
    B,
    C,
    D,
    E,
    P,
    ScriptedTestCase,
    held,
    quietly,
    scenario,
    states,
)


class RegulatedLock(ScriptedTestCase):
    """Lock: acquire, release, locked and the context manager as transactions."""

    def test_acquire_locked_release(self) -> None:
        sc = scenario()
        lock = sc.Lock()

        def worker() -> None:
            lock.acquire()
            lock.locked()
            lock.release()
            lock.locked()
        A = sc.thread(worker)
        with sc:
            acquire = self.let_go(sc, A, lock.acquire)
            locked = self.let_go(sc, A, lock.locked)
            release = self.let_go(sc, A, lock.release)
            unlocked = self.let_go(sc, A, lock.locked)
        self.assertCall(acquire, TIMED, True)
        self.assertIs(acquire.succeeded, True)
        self.assertIsNone(acquire.timeout)
        self.assertCall(locked, PLAIN, True)
        self.assertCall(release, PLAIN, None)
        self.assertCall(unlocked, PLAIN, False)
        self.assertIs(unlocked.succeeded, True)  # a false locked() is no failure
        self.assertEqual(list(sc.log), [acquire, locked, release, unlocked])
        for tx in sc.log:
            self.assertIs(tx.thread, A)
            self.assertIsNone(tx.parent)
            self.assertEqual(tx.depth, 0)

    def test_the_old_names_of_the_methods_are_regulated_too(self) -> None:
        # Before: acquire_lock & co. reached the real lock through __getattr__,
        # so the worker ran through them without parking.
        sc = scenario()
        lock = sc.Lock()

        def worker() -> None:
            lock.acquire_lock()
            lock.locked_lock()
            lock.release_lock()
        A = sc.thread(worker)
        with sc:
            acquire = self.let_go(sc, A, lock.acquire)
            locked = self.let_go(sc, A, lock.locked)
            release = self.let_go(sc, A, lock.release)
        self.assertCall(acquire, TIMED, True)
        self.assertCall(locked, PLAIN, True)
        self.assertCall(release, PLAIN, None)
        self.assertFalse(lock.locked_lock())

    def test_contended_acquire_sleeps_in_the_real_lock(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = sc.thread(lock.acquire)
        with sc, held(sc.raw(lock)) as release:
            acquire = self.start(sc, A, lock.acquire)
            self.assertTrue(sc.raw(lock).locked())
            release()
            sc.wait(acquire)
        self.assertCall(acquire, SLEPT, True)

    def test_non_blocking_acquire_of_a_held_lock_fails_without_sleeping(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = sc.thread(lock.acquire, False)
        with sc, held(sc.raw(lock)):
            acquire = self.let_go(sc, A, lock.acquire)
        self.assertCall(acquire, TIMED, False)
        self.assertEqual(dict(acquire.kwargs), {"blocking": False, "timeout": -1})
        self.assertIs(acquire.succeeded, False)

    def test_acquire_with_a_timeout_that_is_not_needed(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = sc.thread(lock.acquire, True, 30)
        with sc:
            acquire = self.let_go(sc, A)
        self.assertCall(acquire, TIMED, True)
        assert acquire.timeout is not None
        self.assertEqual(acquire.timeout.value, 30)
        self.assertIsNotNone(acquire.timeout.time)
        self.assertFalse(acquire.timeout.timed_out)

    def test_contended_acquire_with_a_timeout(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = sc.thread(lock.acquire, True, 30.0)
        with sc, held(sc.raw(lock)) as release:
            acquire = self.start(sc, A)
            release()
            sc.wait(acquire)
        self.assertCall(acquire, SLEPT, True)

    def test_contended_acquire_with_timeout_minus_one_float_waits(self) -> None:
        # threading treats timeout=-1.0 like -1: wait forever. The call must
        # report WAITING before it sleeps in the real lock, as with -1.
        sc = scenario()
        lock = sc.Lock()
        A = sc.thread(lock.acquire, True, -1.0)
        with sc, held(sc.raw(lock)) as release:
            acquire = self.blocked(sc, A)
            acquire.unblock()
            try:
                sc.wait(blanket.Reached(acquire, State.WAITING), timeout=1)
            except TimeoutError:
                self.fail(f"asleep in the real lock without saying WAITING: {acquire!r}")
            finally:
                release()
            sc.wait(acquire)
        self.assertCall(acquire, SLEPT, True)

    def test_bad_timeouts_raise_as_threading_does(self) -> None:
        # No non-blocking try first may hide these errors, even when the
        # lock is free.
        sc = scenario()
        lock = sc.Lock()
        bad = [((True, -5), ValueError), ((False, 1), ValueError),
               ((True, threading.TIMEOUT_MAX * 2), OverflowError)]
        threads = [sc.thread(quietly(lock.acquire, *args)) for args, _ in bad]
        with sc:
            calls = [self.let_go(sc, thread, lock.acquire) for thread in threads]
        for tx, (args, error) in zip(calls, bad, strict=True):
            with self.subTest(args=args):
                self.assertRaisedCall(tx, [B, C, D, E, RAISED], error)
        self.assertFalse(sc.raw(lock).locked())

    def test_release_of_an_unheld_lock_raises(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = sc.thread(quietly(lock.release))
        with sc:
            release = self.let_go(sc, A, lock.release)
        self.assertRaisedCall(release, [B, D, E, RAISED], RuntimeError)

    def test_context_manager_is_acquire_then_release(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        inside: list[object] = []

        def worker() -> None:
            with lock as got:
                inside.append(got)
        A = sc.thread(worker)
        with sc:
            acquire = self.let_go(sc, A, lock.acquire)
            release = self.let_go(sc, A, lock.release)
        self.assertEqual(inside, [True])
        self.assertCall(acquire, TIMED, True)
        self.assertCall(release, PLAIN, None)

    def test_lock_released_by_another_managed_thread(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A, Z = sc.thread(lock.acquire), sc.thread(lock.release)
        with sc:
            self.let_go(sc, A, lock.acquire)
            release = self.let_go(sc, Z, lock.release)
        self.assertCall(release, PLAIN, None)
        self.assertFalse(sc.raw(lock).locked())


class RegulatedRLock(ScriptedTestCase):
    """RLock: re-entrant acquire, release, ownership across threads."""

    def test_reentrant_acquire_and_release(self) -> None:
        sc = scenario()
        rlock = sc.RLock()

        def worker() -> None:
            with rlock:
                rlock.acquire(False)
                rlock.release()
        A = sc.thread(worker)
        with sc:
            calls = [self.let_go(sc, A, method) for method in
                     (rlock.acquire, rlock.acquire, rlock.release, rlock.release)]
        self.assertCall(calls[0], TIMED, True)
        self.assertCall(calls[1], TIMED, True)
        self.assertEqual(calls[1].args, (False, -1))
        self.assertCall(calls[2], PLAIN, None)
        self.assertCall(calls[3], PLAIN, None)

    def test_contended_acquire(self) -> None:
        sc = scenario()
        rlock = sc.RLock()
        A = sc.thread(rlock.acquire)
        with sc, held(sc.raw(rlock)) as release:  # owned by the scheduler
            acquire = self.start(sc, A, rlock.acquire)
            release()
            sc.wait(acquire)
        self.assertCall(acquire, SLEPT, True)

    def test_acquire_timing_out_and_release_by_a_non_owner(self) -> None:
        sc = scenario()
        rlock = sc.RLock()
        A = sc.thread(rlock.acquire, True, 0)
        Z = sc.thread(quietly(rlock.release))
        with sc, held(sc.raw(rlock)):
            acquire = self.let_go(sc, A, rlock.acquire)
            release = self.let_go(sc, Z, rlock.release)
        self.assertCall(acquire, TIMED, False)
        assert acquire.timeout is not None
        self.assertTrue(acquire.timeout.timed_out)
        self.assertRaisedCall(release, [B, D, E, RAISED], RuntimeError)


class RegulatedCondition(ScriptedTestCase):
    """Condition's lock calls and notify; its waits are in test_primitives_waits."""

    def test_acquire_notify_notify_all_release(self) -> None:
        sc = scenario()
        cond = sc.Condition()

        def worker() -> None:
            with cond:
                cond.notify()
                cond.notify(3)
                cond.notify_all()
        A = sc.thread(worker)
        with sc:
            acquire = self.let_go(sc, A, cond.acquire)
            notify = self.let_go(sc, A, cond.notify)
            notify3 = self.let_go(sc, A, cond.notify)
            notify_all = self.let_go(sc, A, cond.notify_all)
            release = self.let_go(sc, A, cond.release)
        self.assertCall(acquire, TIMED, True)
        for tx in (notify, notify3, notify_all, release):
            self.assertCall(tx, PLAIN, None)
        self.assertEqual(dict(notify.kwargs), {"n": 1})
        self.assertEqual(dict(notify3.kwargs), {"n": 3})

    def test_calls_without_the_lock_raise(self) -> None:
        sc = scenario()
        cond = sc.Condition(threading.Lock())

        def worker() -> None:
            for call in (cond.notify, cond.notify_all, cond.wait, cond.release):
                quietly(call)()
        A = sc.thread(worker)
        with sc:
            notify = self.let_go(sc, A, cond.notify)
            notify_all = self.let_go(sc, A, cond.notify_all)
            wait = self.let_go(sc, A, cond.wait)
            release = self.let_go(sc, A, cond.release)
        self.assertRaisedCall(notify, [B, D, E, RAISED], RuntimeError)
        self.assertRaisedCall(notify_all, [B, D, E, RAISED], RuntimeError)
        self.assertRaisedCall(wait, [B, C, D, E, RAISED], RuntimeError)
        self.assertRaisedCall(release, [B, D, E, RAISED], RuntimeError)

    def test_contended_acquire_of_a_condition_over_a_blanket_lock(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        cond = sc.Condition(lock)
        A = sc.thread(cond.acquire)
        with sc, held(sc.raw(lock)) as release:
            acquire = self.start(sc, A, cond.acquire)
            self.assertEqual(sc.transactions, {A: acquire})  # no Lock transaction
            release()
            sc.wait(acquire)
        self.assertCall(acquire, SLEPT, True)
        self.assertTrue(sc.raw(lock).locked())


class RegulatedSemaphores(ScriptedTestCase):
    """Semaphore and BoundedSemaphore: acquire, release(n), the context manager."""

    def test_acquire_release_and_context_manager(self) -> None:
        def worker(sem: Any) -> None:
            sem.acquire()
            sem.acquire(False)
            sem.release(2)
            with sem:
                pass
        sc = scenario()
        for kind in ("Semaphore", "BoundedSemaphore"):
            with self.subTest(kind=kind):
                sem = getattr(sc, kind)(2)
                A = sc.thread(worker, sem)
                with sc:
                    calls = [self.let_go(sc, A, method) for method in (
                        sem.acquire, sem.acquire, sem.release, sem.acquire, sem.release)]
                self.assertEqual([(states(tx), tx.result) for tx in calls], [
                    (TIMED, True), (TIMED, True), (PLAIN, None), (TIMED, True),
                    (PLAIN, None)])
                self.assertEqual(dict(calls[2].kwargs), {"n": 2})
                self.assertEqual(sc.raw(sem)._value, 2)

    def test_contended_acquire_sleeps_until_a_release(self) -> None:
        sc = scenario()
        sem = sc.Semaphore(0)
        A = sc.thread(sem.acquire)
        Z = sc.thread(sem.release)
        with sc:
            acquire = self.start(sc, A, sem.acquire)
            release = self.let_go(sc, Z, sem.release)
            sc.wait(acquire)
        self.assertCall(acquire, SLEPT, True)
        self.assertCall(release, PLAIN, None)

    def test_empty_semaphore_with_a_zero_timeout_does_not_sleep(self) -> None:
        sc = scenario()
        sem = sc.Semaphore(0)
        A, Z = sc.thread(sem.acquire, True, 0), sc.thread(sem.acquire, False)
        with sc:
            timed = self.let_go(sc, A, sem.acquire)
            non_blocking = self.let_go(sc, Z, sem.acquire)
        self.assertCall(timed, TIMED, False)
        self.assertCall(non_blocking, TIMED, False)
        self.assertIs(non_blocking.failed, True)

    def test_timeout_on_a_non_blocking_acquire_raises_value_error(self) -> None:
        sc = scenario()
        sem = sc.Semaphore()
        A = sc.thread(quietly(sem.acquire, False, 1))
        with sc:
            acquire = self.let_go(sc, A, sem.acquire)
        self.assertRaisedCall(acquire, [B, C, D, E, RAISED], ValueError)
        self.assertEqual(sc.raw(sem)._value, 1)

    def test_bounded_semaphore_over_release_raises(self) -> None:
        sc = scenario()
        sem = sc.BoundedSemaphore()
        A = sc.thread(quietly(sem.release))
        with sc:
            release = self.let_go(sc, A, sem.release)
        self.assertRaisedCall(release, [B, D, E, RAISED], ValueError)


class RegulatedEvent(ScriptedTestCase):
    """Event: is_set, set, clear and wait as transactions."""

    def test_set_is_set_clear_and_wait_on_a_set_event(self) -> None:
        sc = scenario()
        event = sc.Event()

        def worker() -> None:
            event.is_set()
            event.set()
            event.wait()
            event.clear()
        A = sc.thread(worker)
        with sc:
            calls = [self.let_go(sc, A, method) for method in
                     (event.is_set, event.set, event.wait, event.clear)]
        self.assertEqual([(states(tx), tx.result) for tx in calls], [
            (PLAIN, False), (PLAIN, None), (TIMED, True), (PLAIN, None)])
        self.assertFalse(sc.raw(event).is_set())

    def test_wait_on_an_unset_event_sleeps_until_set(self) -> None:
        sc = scenario()
        event = sc.Event()
        A, Z = sc.thread(event.wait), sc.thread(event.set)
        with sc:
            wait = self.start(sc, A, event.wait)
            set_ = self.let_go(sc, Z, event.set)
            sc.wait(wait)
        self.assertCall(wait, SLEPT, True)
        self.assertCall(set_, PLAIN, None)

    def test_wait_with_a_timeout_woken_by_the_scheduler(self) -> None:
        sc = scenario()
        event = sc.Event()
        A = sc.thread(event.wait, 30)
        with sc:
            wait = self.start(sc, A, event.wait)
            sc.raw(event).set()
            sc.wait(wait)
        self.assertCall(wait, SLEPT, True)
        assert wait.timeout is not None
        self.assertFalse(wait.timeout.timed_out)

    def test_wait_with_zero_timeout_on_an_unset_event(self) -> None:
        sc = scenario()
        event = sc.Event()
        A = sc.thread(event.wait, 0)
        with sc:
            wait = self.let_go(sc, A, event.wait)
        self.assertCall(wait, TIMED, False)
        self.assertIs(wait.succeeded, False)


class Timeouts(ScriptedTestCase):
    """expire(), disregard() and revert() on a call parked at BLOCKED."""

    def test_expire_makes_a_contended_acquire_fail_at_once(self) -> None:
        sc = scenario()
        # The locks are held by the scheduler; the semaphore is empty.
        for primitive in (sc.Lock(), sc.RLock(), sc.Condition(), sc.Semaphore(0)):
            with self.subTest(kind=primitive._kind):
                A = sc.thread(primitive.acquire)
                taken = (contextlib.nullcontext() if primitive._kind == "Semaphore"
                         else held(sc.raw(primitive)))
                with sc, taken:
                    acquire = self.blocked(sc, A, primitive.acquire)
                    self.assertIsNone(acquire.timeout)
                    acquire.expire()
                    assert acquire.timeout is not None
                    self.assertEqual(acquire.timeout.value, 0)
                    self.assertIsNone(acquire.timeout.time)
                    acquire.unblock()
                    sc.wait(acquire)
                self.assertCall(acquire, TIMED, False)
                self.assertEqual(acquire.args, (True, acquire.spec.defaults[1]))
                self.assertIs(acquire.succeeded, False)
                assert acquire.timeout is not None
                self.assertTrue(acquire.timeout.timed_out)
                self.assertIsNotNone(acquire.timeout.time)

    def test_expire_keeps_the_arguments_of_a_non_blocking_acquire(self) -> None:
        sc = scenario()
        lock, sem = sc.Lock(), sc.Semaphore(0)
        A, Z = sc.thread(lock.acquire, False), sc.thread(quietly(sem.acquire, False, 1))
        with sc, held(sc.raw(lock)):
            acquire = self.blocked(sc, A, lock.acquire)
            acquire.expire()
            self.assertEqual(acquire.call_args(), (False, -1))
            acquire.unblock()
            sc.wait(acquire)
            semaphore = self.blocked(sc, Z, sem.acquire)
            semaphore.expire()
            semaphore.unblock()
            sc.wait(semaphore)
        self.assertCall(acquire, TIMED, False)
        self.assertRaisedCall(semaphore, [B, C, D, E, RAISED], ValueError)

    def test_expire_makes_an_event_wait_time_out(self) -> None:
        sc = scenario()
        event = sc.Event()
        A = sc.thread(event.wait)
        with sc:
            wait = self.blocked(sc, A, event.wait)
            wait.expire()
            wait.unblock()
            sc.wait(wait)
        self.assertCall(wait, TIMED, False)
        assert wait.timeout is not None
        self.assertTrue(wait.timeout.timed_out)

    def test_disregard_drops_the_timeout(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = sc.thread(lock.acquire, True, 0.001)
        with sc, held(sc.raw(lock)) as release:
            acquire = self.blocked(sc, A, lock.acquire)
            acquire.disregard()
            self.assertIsNone(acquire.timeout)
            self.assertEqual(acquire.call_args(), (True, -1))
            acquire.unblock()
            sc.wait(blanket.Waiting(acquire))
            release()
            sc.wait(acquire)
        self.assertCall(acquire, SLEPT, True)
        self.assertIsNone(acquire.timeout)
        self.assertEqual(dict(acquire.kwargs), {"blocking": True, "timeout": 0.001})

    def test_disregard_an_event_wait(self) -> None:
        sc = scenario()
        event = sc.Event()
        A = sc.thread(event.wait, 0)
        with sc:
            wait = self.blocked(sc, A, event.wait)
            wait.disregard()
            self.assertEqual(wait.call_args(), (None,))
            wait.unblock()
            sc.wait(blanket.Waiting(wait))
            sc.raw(event).set()
            sc.wait(wait)
        self.assertCall(wait, SLEPT, True)

    def test_revert_after_expire_restores_the_callers_timeout(self) -> None:
        sc = scenario()
        sem = sc.Semaphore(0)
        A = sc.thread(sem.acquire, True, 30)
        with sc:
            acquire = self.blocked(sc, A, sem.acquire)
            acquire.expire()
            acquire.revert()
            assert acquire.timeout is not None
            self.assertEqual(acquire.timeout.value, 30)
            self.assertEqual(acquire.call_args(), (True, 30))
            acquire.unblock()
            sc.wait(blanket.Waiting(acquire))
            sc.raw(sem).release()
            sc.wait(acquire)
        self.assertCall(acquire, SLEPT, True)
        assert acquire.timeout is not None
        self.assertFalse(acquire.timeout.timed_out)

    def test_timeout_changes_need_a_timeout_and_the_block(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        A = sc.thread(lock.locked)
        Z = sc.thread(lock.acquire)
        with sc:
            locked = self.blocked(sc, A, lock.locked)
            for change in (locked.expire, locked.disregard, locked.revert):
                with self.subTest(change=change), self.assertRaisesRegex(
                        TypeError, "Lock.locked takes no timeout"):
                    change()
            locked.unblock()
            acquire = self.let_go(sc, Z, lock.acquire)
            with self.assertRaisesRegex(ValueError, "cannot expire Lock.acquire"):
                acquire.expire()
        self.assertCall(acquire, TIMED, True)


class PauseAndExit(ScriptedTestCase):
    """The scheduler pause after the real call, and what exiting does to
    calls still parked."""

    def test_pause_parks_after_the_real_call(self) -> None:
        sc = scenario()
        event = sc.Event()
        A = sc.thread(event.set)
        with sc:
            set_ = self.blocked(sc, A, event.set)
            set_.pause = True
            set_.unblock()
            sc.wait(blanket.Paused(set_))
            self.assertTrue(sc.raw(event).is_set())  # the real call was made
            self.assertEqual(states(set_), [B, D, P])
            set_.unpause()
            sc.wait(set_)
        self.assertCall(set_, [B, D, P, E, State.RETURNED], None)

    def test_call_blocked_at_exit_finishes_natively(self) -> None:
        sc = scenario()
        lock, event = sc.Lock(), sc.Event()
        A, Z = sc.thread(lock.acquire), sc.thread(event.set)
        with sc:
            acquire = self.blocked(sc, A, lock.acquire)
            set_ = self.blocked(sc, Z, event.set)
            set_.pause = True  # asked for, but the scenario exits first
        self.assertCall(acquire, TIMED, True)
        self.assertCall(set_, PLAIN, None)
        self.assertCountEqual(sc.log, [acquire, set_])
        self.assertTrue(sc.raw(lock).locked())
        self.assertTrue(sc.raw(event).is_set())

    def test_call_paused_at_exit_finishes_natively(self) -> None:
        sc = scenario()
        sem = sc.Semaphore()
        A = sc.thread(sem.acquire)
        with sc:
            acquire = self.blocked(sc, A, sem.acquire)
            acquire.pause = True
            acquire.unblock()
            sc.wait(blanket.Paused(acquire))
        self.assertCall(acquire, [B, C, D, P, E, State.RETURNED], True)
        self.assertEqual(list(sc.log), [acquire])

    def test_call_asleep_in_the_real_primitive_at_exit_finishes(self) -> None:
        sc = scenario()
        event = sc.Event()
        A = sc.thread(event.wait)
        Z = sc.thread(event.set)
        with sc:
            wait = self.start(sc, A, event.wait)
            set_ = self.blocked(sc, Z, event.set)
        self.assertCall(set_, PLAIN, None)
        self.assertCall(wait, SLEPT, True)


class TransactionView(ScriptedTestCase):
    """A regulated call's transaction names its primitive and method."""

    def test_transaction_refers_to_the_primitive(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        sc.api(lock).name = "guard"
        A = sc.thread(lock.acquire, True, 5)
        with sc:
            acquire = self.blocked(sc, A, lock.acquire)
            self.assertIs(acquire.primitive, lock)
            self.assertEqual(sc.transactions, {A: acquire})
            inside = blanket.Call(A, lock.acquire)
            self.assertEqual(sc.wait(lock.acquire, inside), {lock.acquire, inside})
            self.assertRegex(repr(acquire), r"^<Lock\.acquire BLOCKED .* timeout=5 "
                                            r"for 'guard'>$")
            acquire.unblock()
            sc.wait(acquire)
        self.assertRegex(repr(acquire), r"result=True")


class DeprecatedAliases(ScriptedTestCase):
    """threading's deprecated aliases (``Event.isSet``, ``Condition.notifyAll``)
    are methods too: outside a scenario they pass through with threading's
    warning; inside, they wait for the scheduler like the names they alias."""

    def test_aliases_pass_through_outside(self) -> None:
        sc = scenario()
        event, cond = sc.Event(), sc.Condition()
        with self.assertWarns(DeprecationWarning):
            self.assertFalse(event.isSet())
        with cond, self.assertWarns(DeprecationWarning):
            cond.notifyAll()

    def test_aliases_wait_for_the_scheduler_inside(self) -> None:
        sc = scenario()
        event, cond = sc.Event(), sc.Condition()

        def notify_all() -> None:
            with cond:
                cond.notifyAll()
        A, Z = sc.thread(event.isSet), sc.thread(notify_all)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            with sc:
                got = sc.wait(A, blanket.Terminated(A))
                self.assertEqual(got, {A}, "event.isSet() ran past the scheduler block")
                self.let_go(sc, A)
                self.let_go(sc, Z, cond.acquire)
                alias = self.blocked(sc, Z)
                self.assertNotEqual(alias.method, cond.release,
                                    "cond.notifyAll() ran past the scheduler block")
                alias.unblock()
                sc.wait(alias)
                self.let_go(sc, Z, cond.release)


def kinds_and_calls(sc: blanket.Scenario) -> list[tuple[Any, str, tuple[Any, ...]]]:
    """One plain call on each kind (used below to check every kind is gated)."""
    return [(sc.Lock(), "locked", ()), (sc.RLock(), "acquire", ()),
            (sc.Condition(), "acquire", ()), (sc.Semaphore(), "release", ()),
            (sc.BoundedSemaphore(), "acquire", ()), (sc.Event(), "is_set", ()),
            (sc.Barrier(1), "reset", ())]


class EveryKindIsGated(ScriptedTestCase):
    """No call on any kind gets past BLOCKED until the scheduler lets it."""

    def test_each_kind_waits_for_unblock(self) -> None:
        sc = scenario()
        calls = kinds_and_calls(sc)
        threads = [sc.thread(getattr(p, name), *args) for p, name, args in calls]
        with sc:
            blocked = [self.blocked(sc, thread, getattr(p, name))
                       for thread, (p, name, _) in zip(threads, calls, strict=True)]
            self.assertEqual(len(sc.log), 0)
            self.assertTrue(all(tx.state is B for tx in blocked))
            for tx in reversed(blocked):
                tx.unblock()
                sc.wait(tx)
        self.assertEqual(list(sc.log), blocked[::-1])
        self.assertTrue(all(tx.state is State.RETURNED for tx in blocked))


if __name__ == "__main__":  # pragma: no cover
    unittest.main()
