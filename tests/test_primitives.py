"""The seven primitives outside a scenario, their masquerade, recording of
unregulated calls, and what the scheduler may (raw handles) and may not call.

The regulated side (every method as a transaction) is in
``test_primitives_regulated.py``; ``Condition`` and ``Barrier`` waits in
``test_primitives_waits.py``.
"""

from __future__ import annotations

import contextlib
import gc
import pickle
import re
import sysconfig
import threading
import unittest
import weakref
from typing import Any
from unittest import mock

import blanket
from blanket import State

from .support import unchecked
from .test_primitives_support import BOUND, scenario, states

KINDS = ("Lock", "RLock", "Condition", "Semaphore", "BoundedSemaphore", "Event", "Barrier")


def make(where: Any, kind: str) -> Any:
    """A *kind* primitive made by *where* (a scenario or the threading module)."""
    factory = getattr(where, kind)
    return factory(2) if kind == "Barrier" else factory()


def notify_under(cond: Any) -> None:
    """``with cond: cond.notify()``."""
    with cond:
        cond.notify()


def in_thread(target: Any, *args: Any) -> threading.Thread:
    """Start a plain (unmanaged) thread on ``target(*args)``."""
    thread = threading.Thread(target=target, args=args)
    thread.start()
    return thread


class UnregulatedLocks(unittest.TestCase):
    """Outside a scenario Lock and RLock calls pass straight through."""

    def test_lock_acquire_release_locked(self) -> None:
        lock = scenario().Lock()
        self.assertFalse(lock.locked())
        self.assertTrue(lock.acquire())
        self.assertTrue(lock.locked())
        self.assertFalse(lock.acquire(False))
        self.assertFalse(lock.acquire(True, 0))
        self.assertFalse(lock.acquire(timeout=0.001))
        self.assertIsNone(lock.release())
        self.assertFalse(lock.locked())

    def test_lock_errors_are_threadings(self) -> None:
        lock = scenario().Lock()
        with self.assertRaises(RuntimeError):
            lock.release()
        with self.assertRaises(ValueError):
            lock.acquire(False, 1)
        with self.assertRaises(ValueError):
            lock.acquire(True, -5)
        self.assertFalse(lock.locked())

    def test_lock_context_manager(self) -> None:
        lock = scenario().Lock()
        with lock as got:
            self.assertIs(got, True)
            self.assertTrue(lock.locked())
        self.assertFalse(lock.locked())

    def test_lock_released_by_another_thread(self) -> None:
        lock = scenario().Lock()
        lock.acquire()
        in_thread(lock.release).join(BOUND)
        self.assertFalse(lock.locked())

    def test_rlock_is_reentrant_and_owned(self) -> None:
        rlock = scenario().RLock()
        self.assertFalse(rlock._is_owned())
        self.assertTrue(rlock.acquire())
        self.assertTrue(rlock.acquire(False))
        self.assertTrue(rlock._is_owned())
        rlock.release()
        rlock.release()
        self.assertFalse(rlock._is_owned())
        with self.assertRaises(RuntimeError):
            rlock.release()

    def test_rlock_held_elsewhere(self) -> None:
        rlock = scenario().RLock()
        got: list[bool] = []
        with rlock as entered:
            self.assertIs(entered, True)
            in_thread(lambda: got.append(rlock.acquire(timeout=0.001))).join(BOUND)
        self.assertEqual(got, [False])

    def test_rlock_release_save_and_acquire_restore(self) -> None:
        rlock = scenario().RLock()
        rlock.acquire()
        rlock.acquire()
        saved = rlock._release_save()
        self.assertFalse(rlock._is_owned())
        rlock._acquire_restore(saved)
        self.assertTrue(rlock._is_owned())
        rlock.release()
        rlock.release()
        self.assertFalse(rlock._is_owned())

    def test_at_fork_reinit_resets_a_held_lock(self) -> None:
        sc = scenario()
        for kind in ("Lock", "RLock"):
            with self.subTest(kind=kind):
                lock = make(sc, kind)
                lock.acquire()
                lock._at_fork_reinit()
                self.assertTrue(lock.acquire(False))
                lock.release()


class UnregulatedCondition(unittest.TestCase):
    """Outside a scenario Condition calls pass straight through."""

    def test_acquire_release_and_ownership(self) -> None:
        cond = scenario().Condition()
        self.assertFalse(cond._is_owned())
        with cond as got:
            self.assertIs(got, True)
            self.assertTrue(cond._is_owned())
            self.assertTrue(cond.acquire(False))  # the default lock is an RLock
            cond.release()
        self.assertFalse(cond._is_owned())
        self.assertTrue(cond.acquire(timeout=1))
        cond.release()

    def test_calls_without_the_lock_raise(self) -> None:
        cond = scenario().Condition()
        for call in (cond.wait, cond.notify, cond.notify_all, cond.release,
                     lambda: cond.wait_for(bool)):
            with self.subTest(call=call), self.assertRaises(RuntimeError):
                call()

    def test_wait_times_out(self) -> None:
        cond = scenario().Condition(threading.Lock())
        with cond:
            self.assertFalse(cond.wait(0))
            self.assertFalse(cond.wait(0.001))
            self.assertFalse(cond.wait_for(lambda: False, 0))
            self.assertEqual(cond.wait_for(lambda: 7), 7)
            self.assertTrue(cond._is_owned())

    def test_wait_woken_by_notify(self) -> None:
        sc = scenario()
        for lock in (None, threading.Lock(), sc.Lock()):
            with self.subTest(lock=lock):
                cond = sc.Condition(lock)
                with cond:
                    # The notifier gets the lock once the waiter gave it up.
                    thread = in_thread(notify_under, cond)
                    self.assertTrue(cond.wait(BOUND))
                    self.assertTrue(cond._is_owned())
                thread.join(BOUND)
                self.assertFalse(thread.is_alive())

    def test_wait_for_woken_by_notify_all(self) -> None:
        cond = scenario().Condition()
        flag: list[int] = []

        def notify_all() -> None:
            with cond:
                flag.append(1)
                cond.notify_all()
        with cond:
            thread = in_thread(notify_all)
            self.assertTrue(cond.wait_for(lambda: flag, BOUND))
        thread.join(BOUND)
        self.assertEqual(flag, [1])

    def test_notify_counts(self) -> None:
        cond = scenario().Condition()
        with cond:
            cond.notify()
            cond.notify(3)
            cond.notify_all()
            self.assertEqual(len(cond._waiters), 0)

    def test_condition_over_a_blanket_lock_shares_it(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        cond = sc.Condition(lock)
        with cond:
            self.assertTrue(lock.locked())
            self.assertTrue(cond._is_owned())
        self.assertFalse(lock.locked())
        self.assertFalse(cond._is_owned())

    def test_at_fork_reinit(self) -> None:
        cond = scenario().Condition()
        cond.acquire()
        cond._at_fork_reinit()
        self.assertFalse(cond._is_owned())


class UnregulatedSemaphores(unittest.TestCase):
    """Outside a scenario Semaphore and BoundedSemaphore calls pass through."""

    def test_acquire_release_counts(self) -> None:
        sc = scenario()
        for kind in ("Semaphore", "BoundedSemaphore"):
            with self.subTest(kind=kind):
                sem = getattr(sc, kind)(2)
                self.assertTrue(sem.acquire())
                self.assertTrue(sem.acquire(timeout=1))
                self.assertFalse(sem.acquire(False))
                self.assertFalse(sem.acquire(timeout=0))
                self.assertEqual(sem._value, 0)
                sem.release(2)
                self.assertEqual(sem._value, 2)
                with sem as got:
                    self.assertIs(got, True)
                    self.assertEqual(sem._value, 1)
                self.assertEqual(sem._value, 2)

    def test_timeout_on_non_blocking_acquire_is_a_value_error(self) -> None:
        sem = scenario().Semaphore()
        with self.assertRaises(ValueError):
            sem.acquire(False, 1)
        self.assertEqual(sem._value, 1)

    def test_semaphore_value_checks(self) -> None:
        sc = scenario()
        with self.assertRaises(ValueError):
            sc.Semaphore(-1)
        sem = sc.Semaphore(0)
        sem.release()  # a plain Semaphore is not bounded
        self.assertEqual(sem._value, 1)

    def test_bounded_semaphore_over_release(self) -> None:
        sem = scenario().BoundedSemaphore(1)
        with self.assertRaisesRegex(ValueError, "released too many times"):
            sem.release()
        sem.acquire()
        with self.assertRaises(ValueError):
            sem.release(2)
        sem.release()
        self.assertEqual(sem._value, 1)

    def test_release_wakes_an_acquirer(self) -> None:
        sem = scenario().Semaphore(0)
        got: list[bool] = []
        thread = in_thread(lambda: got.append(sem.acquire(timeout=BOUND)))
        sem.release()
        thread.join(BOUND)
        self.assertEqual(got, [True])


class UnregulatedEvent(unittest.TestCase):
    """Outside a scenario Event calls pass straight through."""

    def test_set_clear_wait(self) -> None:
        event = scenario().Event()
        self.assertFalse(event.is_set())
        self.assertFalse(event.wait(0))
        self.assertFalse(event.wait(0.001))
        self.assertIsNone(event.set())
        self.assertTrue(event.is_set())
        self.assertTrue(event.wait())
        self.assertTrue(event.wait(0))
        self.assertIsNone(event.clear())
        self.assertFalse(event.is_set())

    def test_wait_woken_by_set_in_another_thread(self) -> None:
        event = scenario().Event()
        got: list[bool] = []
        thread = in_thread(lambda: got.append(event.wait(BOUND)))
        event.set()
        thread.join(BOUND)
        self.assertEqual(got, [True])

    def test_private_condition_and_fork_reinit(self) -> None:
        sc = scenario()
        event = sc.Event()
        self.assertIsInstance(event._cond, threading.Condition)
        self.assertIs(event._cond, sc.raw(event)._cond)
        event._at_fork_reinit()  # the real Event's: a fresh condition, same flag
        event.set()
        self.assertTrue(event.wait(0))


class UnregulatedBarrier(unittest.TestCase):
    """Outside a scenario Barrier calls pass straight through."""

    def test_properties(self) -> None:
        barrier = scenario().Barrier(3)
        self.assertEqual(barrier.parties, 3)
        self.assertEqual(barrier.n_waiting, 0)
        self.assertFalse(barrier.broken)

    def test_single_party_passes(self) -> None:
        barrier = scenario().Barrier(1)
        self.assertEqual(barrier.wait(), 0)
        self.assertEqual(barrier.wait(BOUND), 0)

    def test_two_parties_and_the_action(self) -> None:
        seen: list[str] = []
        barrier = scenario().Barrier(2, action=lambda: seen.append(repr(barrier.n_waiting)))
        indices: list[int] = []
        thread = in_thread(lambda: indices.append(barrier.wait(BOUND)))
        indices.append(barrier.wait(BOUND))
        thread.join(BOUND)
        self.assertEqual(sorted(indices), [0, 1])
        self.assertEqual(seen, ["2"])  # the action runs once, all parties in
        self.assertFalse(barrier.broken)

    def test_timeout_breaks_the_barrier(self) -> None:
        barrier = scenario().Barrier(2, timeout=0.001)
        with self.assertRaises(threading.BrokenBarrierError):
            barrier.wait()
        self.assertTrue(barrier.broken)
        with self.assertRaises(threading.BrokenBarrierError):
            barrier.wait(0)

    def test_abort_and_reset(self) -> None:
        barrier = scenario().Barrier(2)
        barrier.abort()
        self.assertTrue(barrier.broken)
        with self.assertRaises(threading.BrokenBarrierError):
            barrier.wait(BOUND)
        barrier.reset()
        self.assertFalse(barrier.broken)
        self.assertEqual(barrier.n_waiting, 0)

    def test_failing_action_breaks_the_barrier(self) -> None:
        def action() -> None:
            raise KeyError("action")
        barrier = scenario().Barrier(1, action)
        with self.assertRaises(KeyError):
            barrier.wait()
        self.assertTrue(barrier.broken)


class PrivateAttributes(unittest.TestCase):
    """``__getattr__`` reaches the real primitive's private names, nothing else."""

    def test_unknown_names_and_dunders_are_attribute_errors(self) -> None:
        sc = scenario()
        for kind in KINDS:
            primitive = make(sc, kind)
            for name in ("no_such_name", "_no_such_private", "__no_such_dunder__"):
                with self.subTest(kind=kind, name=name), self.assertRaises(AttributeError):
                    getattr(primitive, name)

    def test_dunders_are_not_forwarded(self) -> None:
        # A real Event has a __dict__; the blanket one's own holds its
        # switched methods, and __getattr__ does not hand out the real one's.
        sc = scenario()
        event = sc.Event()
        self.assertTrue(hasattr(threading.Event(), "__dict__"))
        self.assertIsNot(event.__dict__, sc.raw(event).__dict__)
        self.assertNotIn("_flag", event.__dict__)

    def test_unset_slots_are_not_looked_up_on_the_real_primitive(self) -> None:
        sc = scenario()
        cls = type(sc.Lock())
        bare = cls.__new__(cls)  # before __init__ made the real lock
        self.assertIs(bare.__class__, cls)
        for name in ("_real", "_name", "_label", "_api", "_core"):
            with self.subTest(name=name), self.assertRaises(AttributeError):
                getattr(bare, name)

    def test_the_condition_lock_wrapper_forwards_plain_names_only(self) -> None:
        sc = scenario()
        lock = threading.RLock()
        wrapper = sc.raw(sc.Condition(lock))._lock
        self.assertEqual(wrapper._is_owned(), False)
        self.assertEqual(repr(wrapper), repr(lock))
        with self.assertRaises(AttributeError):
            wrapper.__no_such_dunder__  # noqa: B018
        with self.assertRaises(AttributeError):
            wrapper.no_such_name  # noqa: B018


class Masquerade(unittest.TestCase):
    """A primitive looks like the real one: repr (with the 0X tell), isinstance."""

    @staticmethod
    def without_ids(text: str) -> str:
        return re.sub(r"0[xX][0-9a-fA-F]+", "ID", text)

    def test_repr_is_the_real_one_with_the_tell(self) -> None:
        sc = scenario()
        for kind in ("Lock", "RLock", "Semaphore", "BoundedSemaphore", "Event", "Barrier"):
            with self.subTest(kind=kind):
                primitive, real = make(sc, kind), make(threading, kind)
                text = repr(primitive)
                self.assertIn(f" 0X{id(primitive):X}", text)
                self.assertNotIn("0x", text)
                self.assertEqual(self.without_ids(text), self.without_ids(repr(real)))

    def test_bound_methods_name_the_kind_never_a_private_base(self) -> None:
        # Lock, RLock and Condition share their acquire, release and context
        # manager: their bound methods read "_LockBase.acquire" before.
        sc = scenario()
        names = ("acquire", "release", "__enter__", "__exit__", "locked", "wait",
                 "wait_for", "notify", "notify_all", "set", "clear", "is_set", "reset",
                 "abort")
        for inside in (False, True):
            with sc if inside else contextlib.nullcontext():
                for kind in KINDS:
                    primitive = make(sc, kind)
                    # BoundedSemaphore inherits Semaphore's, as threading's does.
                    owners = {kind, "Semaphore"} if kind == "BoundedSemaphore" else {kind}
                    for name in names:
                        method = getattr(primitive, name, None)
                        if method is None:
                            continue
                        with self.subTest(kind=kind, name=name, inside=inside):
                            text = repr(method)
                            self.assertRegex(text, rf"^<bound method (\w+)\.{name} of ")
                            self.assertIn(text.split()[2].split(".")[0], owners)
                            self.assertIn(f"0X{id(primitive):X}", text)

    def test_repr_follows_the_state(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        lock.acquire()
        self.assertEqual(repr(lock), f"<locked _thread.lock object at 0X{id(lock):X}>")
        lock.release()
        self.assertEqual(repr(lock), f"<unlocked _thread.lock object at 0X{id(lock):X}>")

    def test_condition_repr_is_that_of_a_real_condition_with_the_tell(self) -> None:
        # A real Condition prints its lock's id; a blanket one prints its own
        # id in the tell's form there (a blanket lock prints its own tell).
        sc = scenario()
        plain, blanket_lock = threading.Lock(), sc.Lock()
        over_plain = sc.Condition(plain)
        self.assertEqual(repr(over_plain),
                         repr(threading.Condition(plain)).replace(
                             f"0x{id(plain):x}", f"0X{id(over_plain):X}"))
        over_blanket = sc.Condition(blanket_lock)
        self.assertEqual(repr(over_blanket), repr(threading.Condition(blanket_lock)))
        self.assertIn(f"0X{id(blanket_lock):X}", repr(over_blanket))
        default = sc.Condition()
        self.assertEqual(repr(default),
                         "<Condition(<unlocked _thread.RLock object owner=0 count=0 "
                         f"at 0X{id(default):X}>, 0)>")

    def test_isinstance_of_threading_classes(self) -> None:
        sc = scenario()
        checked = 0
        for kind in KINDS:
            cls = getattr(threading, kind)
            if not isinstance(cls, type):  # Lock before 3.13, RLock: factories
                continue
            with self.subTest(kind=kind):
                self.assertIsInstance(make(sc, kind), cls)
                checked += 1
        self.assertGreaterEqual(checked, 5)
        self.assertIsInstance(sc.RLock(), type(threading.RLock()))
        self.assertIsInstance(sc.Lock(), type(threading.Lock()))

    def test_isinstance_tells_scenarios_apart(self) -> None:
        sc, other = scenario(), scenario()
        for kind in KINDS:
            with self.subTest(kind=kind):
                primitive = make(sc, kind)
                self.assertIsInstance(primitive, getattr(sc, kind))
                self.assertNotIsInstance(primitive, getattr(other, kind))
                self.assertNotIsInstance(make(threading, kind), getattr(sc, kind))
        self.assertNotIsInstance(sc.Lock(), sc.RLock)

    def test_named_repr_of_each_kind(self) -> None:
        sc = scenario()
        lock, rlock, cond = sc.Lock(), sc.RLock(), sc.Condition()
        sem, bounded, event = sc.Semaphore(2), sc.BoundedSemaphore(), sc.Event()
        barrier = sc.Barrier(3)
        expected = [
            (lock, "<blanket.Lock 'x' unlocked>"),
            (rlock, "<blanket.RLock 'x' unlocked>"),
            (cond, "<blanket.Condition 'x' waiters=0>"),
            (sem, "<blanket.Semaphore 'x' value=2>"),
            (bounded, "<blanket.BoundedSemaphore 'x' value=1>"),
            (event, "<blanket.Event 'x' unset>"),
            (barrier, "<blanket.Barrier 'x' waiters=0/3>"),
        ]
        for primitive, text in expected:
            masquerade = repr(primitive)
            api = sc.api(primitive)
            api.name = "x"
            with self.subTest(kind=primitive._kind):
                self.assertEqual(api.name, "x")
                self.assertEqual(repr(primitive), text)
                api.name = None
                self.assertEqual(repr(primitive), masquerade)
                api.name = "x"
        lock.acquire()
        rlock.acquire()
        sem.acquire()
        bounded.acquire()
        event.set()
        barrier.abort()
        self.assertEqual(repr(lock), "<blanket.Lock 'x' locked>")
        self.assertEqual(repr(rlock), "<blanket.RLock 'x' locked>")
        self.assertEqual(repr(sem), "<blanket.Semaphore 'x' value=1>")
        self.assertEqual(repr(bounded), "<blanket.BoundedSemaphore 'x' value=0>")
        self.assertEqual(repr(event), "<blanket.Event 'x' set>")
        self.assertEqual(repr(barrier), "<blanket.Barrier 'x' waiters=0/3 broken>")

    def test_named_barrier_counts_waiters(self) -> None:
        sc = scenario()
        seen: list[str] = []
        barrier = sc.Barrier(2, action=lambda: seen.append(repr(barrier)))
        sc.api(barrier).name = "gate"
        thread = in_thread(barrier.wait, BOUND)
        barrier.wait(BOUND)
        thread.join(BOUND)
        self.assertEqual(seen, ["<blanket.Barrier 'gate' waiters=2/2>"])

    def test_named_condition_counts_waiters(self) -> None:
        sc = scenario()
        cond = sc.Condition()
        sc.api(cond).name = "ready"
        seen: list[str] = []

        def notify() -> None:
            with cond:  # the waiter is registered once it gave the lock up
                seen.append(repr(cond))
                cond.notify()
        with cond:
            thread = in_thread(notify)
            cond.wait(BOUND)
        thread.join(BOUND)
        self.assertEqual(seen, ["<blanket.Condition 'ready' waiters=1>"])


class ScenarioKinds(unittest.TestCase):
    """``scenario.Lock`` and friends make the scenario's primitives without a
    class per scenario (a class made per scenario is immortal on 3.13t)."""

    def test_no_class_is_made_per_scenario(self) -> None:
        def classes() -> int:
            gc.collect()
            return sum(1 for o in gc.get_objects() if isinstance(o, type))

        before = classes()
        made = [(sc, [make(sc, kind) for kind in KINDS])
                for sc in (scenario() for _ in range(5))]
        self.assertEqual(classes(), before)
        (first, of_first), (second, of_second) = made[:2]
        for kind, one, other in zip(KINDS, of_first, of_second, strict=True):
            with self.subTest(kind=kind):
                self.assertIs(type(one), type(other))
                self.assertIs(type(one), getattr(blanket.primitives, kind))
                self.assertIsInstance(one, getattr(first, kind))
                self.assertNotIsInstance(one, getattr(second, kind))

    def test_a_kind_passes_the_constructor_arguments_on(self) -> None:
        sc = scenario()
        self.assertEqual(sc.Semaphore(value=3)._real._value, 3)
        self.assertEqual(sc.Barrier(4, timeout=2.0).parties, 4)
        with self.assertRaises(TypeError):
            sc.Event(1)

    def test_a_kind_reads_as_what_it_makes(self) -> None:
        sc = blanket.Scenario("kinds")
        self.assertEqual(sc.Lock.__name__, "Lock")
        self.assertEqual(repr(sc.BoundedSemaphore),
                         "<blanket BoundedSemaphore kind of scenario 'kinds'>")

    def test_a_kind_is_neither_subclassed_nor_pickled(self) -> None:
        sc = blanket.Scenario("kinds")
        with self.assertRaisesRegex(TypeError, r"scenario\.Lock is not a class"):
            class MyLock(sc.Lock):  # type: ignore[misc, name-defined]
                pass
        with self.assertRaisesRegex(TypeError, "cannot pickle scenario.Event: it belongs "
                                    "to scenario 'kinds'"):
            pickle.dumps(sc.Event)

    def test_every_so_many_scenarios_the_garbage_of_those_before_is_collected(self) -> None:
        # Without it, 3.13t collects ever more rarely (stress.memory measures).
        free_threaded = sysconfig.get_config_var("Py_GIL_DISABLED")
        expected = 100 if free_threaded else 0
        self.assertEqual(blanket.primitives.COLLECT_EVERY, expected)
        gc.disable()
        try:
            for every, collected in ((0, False), (1, True)):
                with self.subTest(every=every), \
                        mock.patch.object(blanket.primitives, "COLLECT_EVERY", every):
                    lock = weakref.ref(scenario().Lock())  # held by its own methods
                    scenario()
                    self.assertIs(lock() is None, collected)
        finally:
            gc.enable()


class RecordingUnregulated(unittest.TestCase):
    """``record_unregulated``: calls outside the scenario go COMMIT -> RETURNED/RAISED."""

    def test_the_setting_is_a_bool(self) -> None:
        for bad in ("no", 0, None):
            with self.subTest(bad=bad), unchecked(), self.assertRaisesRegex(
                    TypeError, f"^record_unregulated is True or False, not {bad!r}$"):
                blanket.Scenario(record_unregulated=bad)  # type: ignore[arg-type]
        sc = scenario()
        with unchecked(), self.assertRaisesRegex(TypeError, "record_unregulated"):
            sc.record_unregulated = 1  # type: ignore[assignment]
        self.assertFalse(sc.record_unregulated)

    def test_each_kind_is_recorded(self) -> None:
        sc = scenario(record_unregulated=True)
        lock, rlock, cond = sc.Lock(), sc.RLock(), sc.Condition()
        sem, bounded, event, barrier = (sc.Semaphore(), sc.BoundedSemaphore(), sc.Event(),
                                        sc.Barrier(1))
        # A false result of an acquire or a wait is a failure (a time-out);
        # a false result of is_set is not.
        calls: list[tuple[Any, tuple[Any, ...], object]] = [
            (lock.acquire, (), True), (lock.locked, (), True), (lock.release, (), None),
            (rlock.acquire, (True, 1), True), (rlock.release, (), None),
            (cond.acquire, (), True), (cond.notify, (2,), None), (cond.notify_all, (), None),
            (cond.wait, (0,), False), (cond.wait_for, (lambda: "yes",), "yes"),
            (cond.release, (), None),
            (sem.acquire, (), True), (sem.release, (1,), None),
            (bounded.acquire, (False,), True), (bounded.release, (), None),
            (event.is_set, (), False), (event.set, (), None), (event.wait, (), True),
            (event.clear, (), None), (event.wait, (0,), False), (barrier.reset, (), None),
        ]
        timed_out = {8, 19}
        for method, args, result in calls:
            self.assertEqual(method(*args), result, method)
        self.assertEqual([tx.method for tx in sc.log], [method for method, _, _ in calls])
        for index, (tx, (_, args, result)) in enumerate(zip(sc.log, calls, strict=True)):
            with self.subTest(tx=tx):
                self.assertEqual(states(tx), [State.COMMIT, State.RETURNED])
                self.assertEqual(tx.args[:len(args)], args)
                self.assertEqual(tx.result, result)
                self.assertIs(tx.succeeded, index not in timed_out)
                self.assertIs(tx.thread, threading.current_thread())
                self.assertIsNone(tx.parent)
                self.assertEqual(tx.depth, 0)
                self.assertIsNotNone(tx.end_time)

    def test_wait_inside_wait_for_is_recorded_too(self) -> None:
        sc = scenario(record_unregulated=True)
        cond = sc.Condition()
        with sc.raw(cond):
            self.assertFalse(cond.wait_for(lambda: False, 0))
        self.assertEqual([(tx.method, tx.result) for tx in sc.log],
                         [(cond.wait, False), (cond.wait_for, False)])
        self.assertEqual([tx.succeeded for tx in sc.log], [False, False])

    def test_raising_calls_are_recorded_raised(self) -> None:
        sc = scenario(record_unregulated=True)
        lock, bounded, barrier = sc.Lock(), sc.BoundedSemaphore(), sc.Barrier(2)
        calls: list[tuple[Any, tuple[Any, ...], type[BaseException]]] = [
            (lock.release, (), RuntimeError), (lock.acquire, (False, 1), ValueError),
            (bounded.release, (), ValueError), (sc.Semaphore().acquire, (False, 1), ValueError),
            (barrier.wait, (0,), threading.BrokenBarrierError),
        ]
        for method, args, error in calls:
            with self.assertRaises(error):
                method(*args)
        self.assertEqual(len(sc.log), len(calls))
        for tx, (method, _, error) in zip(sc.log, calls, strict=True):
            with self.subTest(tx=tx):
                self.assertEqual(tx.method, method)
                self.assertEqual(states(tx), [State.COMMIT, State.RAISED])
                self.assertIsInstance(tx.result, error)
                self.assertIs(tx.failed, True)

    def test_barrier_action_runs_when_recorded(self) -> None:
        sc = scenario(record_unregulated=True)
        ran: list[int] = []
        barrier = sc.Barrier(1, action=lambda: ran.append(1))
        self.assertEqual(barrier.wait(), 0)
        self.assertEqual(ran, [1])
        self.assertEqual([states(tx) for tx in sc.log], [[State.COMMIT, State.RETURNED]])

    def test_calls_in_other_threads_are_recorded(self) -> None:
        sc = scenario(record_unregulated=True)
        event = sc.Event()
        thread = in_thread(event.set)
        thread.join(BOUND)
        self.assertEqual([(tx.thread, tx.method) for tx in sc.log], [(thread, event.set)])

    def test_not_recorded_by_default_or_once_switched_off(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        with lock:
            pass
        self.assertEqual(len(sc.log), 0)
        sc.record_unregulated = True
        with lock:
            pass
        self.assertEqual(len(sc.log), 2)
        sc.record_unregulated = False
        with lock:
            pass
        self.assertEqual(len(sc.log), 2)


class SchedulerAndRawHandles(unittest.TestCase):
    """The scheduler may not call a regulated primitive; raw handles are never
    regulated."""

    def test_scheduler_call_names_thread_and_method(self) -> None:
        sc = scenario()
        calls = [(make(sc, kind), name) for kind, name in (
            ("Lock", "acquire"), ("Lock", "release"), ("Lock", "locked"),
            ("RLock", "acquire"), ("Condition", "notify"), ("Condition", "wait"),
            ("Semaphore", "release"), ("BoundedSemaphore", "acquire"),
            ("Event", "set"), ("Event", "wait"), ("Barrier", "wait"), ("Barrier", "abort"))]
        scheduler = threading.current_thread().name
        with sc:
            for primitive, name in calls:
                with self.subTest(kind=primitive._kind, method=name):
                    with self.assertRaises(blanket.SchedulerError) as caught:
                        getattr(primitive, name)()
                    message = str(caught.exception)
                    self.assertIn(repr(scheduler), message)
                    self.assertIn(f"{primitive._kind}.{name}", message)
                    self.assertIn(f"0X{id(primitive):X}", message)
                    self.assertIsNone(sc.transaction(threading.current_thread()))
        self.assertEqual(len(sc.log), 0)
        self.assertTrue(calls[0][0].acquire(False))  # nothing was left half-done

    def test_scheduler_error_names_a_named_primitive(self) -> None:
        sc = scenario()
        event = sc.Event()
        sc.api(event).name = "ready"
        with sc, self.assertRaisesRegex(blanket.SchedulerError, "Event.is_set on 'ready'"):
            event.is_set()

    def test_raw_calls_are_never_transactions(self) -> None:
        sc = scenario(record_unregulated=True)
        lock, sem, event, barrier = sc.Lock(), sc.Semaphore(0), sc.Event(), sc.Barrier(1)
        with sc:
            raw_lock = sc.raw(lock)
            self.assertIsInstance(raw_lock, type(threading.Lock()))
            self.assertTrue(raw_lock.acquire(False))
            raw_lock.release()
            sc.raw(sem).release()
            self.assertTrue(sc.raw(sem).acquire(timeout=0))
            sc.raw(event).set()
            self.assertTrue(sc.raw(event).wait(0))
            self.assertEqual(sc.raw(barrier).wait(), 0)
            self.assertIsNone(sc.transaction(threading.current_thread()))
        self.assertEqual(len(sc.log), 0)
        sc.raw(lock).acquire()
        self.assertTrue(lock.locked())  # recorded: the primitive's own call
        self.assertEqual([tx.method for tx in sc.log], [lock.locked])


if __name__ == "__main__":  # pragma: no cover
    unittest.main()


class SwitchedMethods(unittest.TestCase):
    """Outside a scenario a method is switched to the real primitive's own;
    a method taken at any time is regulated inside the scenario."""

    def test_outside_a_scenario_a_call_is_the_real_methods(self) -> None:
        sc = scenario()
        for kind in KINDS:
            primitive = make(sc, kind)
            real = sc.raw(primitive)
            for name in primitive._direct:
                with self.subTest(kind=kind, name=name):
                    method = getattr(primitive, name)
                    self.assertIsInstance(method, blanket.gate.SwitchedMethod)
                    self.assertEqual(method.func, getattr(real, name))
                    self.assertIs(method.__self__, primitive)
                    self.assertEqual(method.__name__, name)

    def test_inside_a_scenario_a_call_is_the_classs(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        with sc:
            self.assertEqual(lock.acquire.func, blanket.primitives.Lock.acquire.__get__(lock))
            made_inside = sc.Lock()
            self.assertIs(made_inside.release.__func__, blanket.primitives.Lock.release)
            self.assertNotEqual(made_inside.release.func, sc.raw(made_inside).release)
        self.assertEqual(made_inside.release.func, sc.raw(made_inside).release)
        self.assertEqual(repr(lock.acquire), f"<bound method Lock.acquire of {lock!r}>")

    def test_a_method_taken_before_entering_is_regulated_inside(self) -> None:
        sc = scenario()
        lock = sc.Lock()
        acquire = lock.acquire
        # threading.Condition keeps the lock's acquire and release as its own.
        condition = threading.Condition(lock)

        def through_condition() -> None:
            condition.acquire()
            condition.release()

        A = sc.thread(acquire)
        B = sc.thread(through_condition)
        with sc:
            (tx,) = sc.api(lock).unblock(acquire, A)
            sc.wait(tx)
            sc.raw(lock).release()
            sc.skip(B, lock.acquire, lock.release, wait=True)
        self.assertEqual([(t.thread, t.spec.name) for t in sc.log],
                         [(A, "acquire"), (B, "acquire"), (B, "release")])
        self.assertIs(acquire.func.__self__, sc.raw(lock))
