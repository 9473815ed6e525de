"""The specification run alone (blanket.linearizability.model): its
primitives made sequential (a wait nothing can end is known at once), the
key of its object's state, the copies it goes back to, its thread."""

from __future__ import annotations

import collections
import copy
import itertools
import queue
import threading
import unittest
from typing import Any
from unittest import mock

import blanket
from blanket.linearizability import model as model_module
from blanket.linearizability.history import History, Outcome, Specification
from blanket.linearizability.model import BLOCKED, Model
from blanket.linearizability.objectstate import layout, reachable, state_key
from blanket.linearizability.sequential import (
    Blocks,
    SequentialBarrier,
    SequentialBoundedSemaphore,
    SequentialCondition,
    SequentialEvent,
    SequentialLock,
    SequentialRLock,
    SequentialSemaphore,
    make_sequential,
)

from . import lin_structures

SHORT = 0.01  # a timed wait that nothing can end runs out: this long


class SequentialPrimitives(unittest.TestCase):
    """Each does what the real one does on one thread, but raises Blocks
    where the real one would wait for good."""

    def test_lock(self) -> None:
        lock = SequentialLock()
        self.assertTrue(lock.acquire())
        self.assertTrue(lock.locked())
        self.assertFalse(lock.acquire(False))
        self.assertFalse(lock.acquire(timeout=SHORT))
        self.assertFalse(lock.acquire(timeout=0))
        self.assertRaises(Blocks, lock.acquire)
        lock.release()
        self.assertRaises(RuntimeError, lock.release)
        with lock:
            self.assertTrue(lock.locked_lock())
        lock.acquire_lock()
        lock._at_fork_reinit()
        self.assertFalse(lock.locked())

    def test_rlock(self) -> None:
        lock = SequentialRLock()
        self.assertRaises(RuntimeError, lock.release)
        with lock:
            self.assertTrue(lock.acquire())
            self.assertEqual((lock._recursion_count(), lock._is_owned()), (2, True))
            held = lock._release_save()
            self.assertEqual((held, lock._is_owned()), (2, False))
            lock._acquire_restore(held)
            lock.release()
        self.assertFalse(lock._is_owned())
        lock.acquire()
        lock._at_fork_reinit()
        self.assertEqual(lock._recursion_count(), 0)

    def test_condition(self) -> None:
        for lock in (SequentialLock(), SequentialRLock()):
            condition = SequentialCondition(lock)
            self.assertRaises(RuntimeError, condition.wait)
            self.assertRaises(RuntimeError, condition.notify)
            with condition:
                self.assertRaises(Blocks, condition.wait)
                self.assertFalse(condition.wait(SHORT))
                self.assertEqual(condition.wait_for(lambda: 5), 5)
                self.assertEqual(condition.wait_for(lambda: 0, SHORT), 0)
                self.assertRaises(Blocks, condition.wait_for, lambda: 0)
                condition.notify()
                condition.notify_all()
                condition.notifyAll()
            self.assertTrue(condition.acquire())
            condition.release()

    def test_semaphores(self) -> None:
        semaphore = SequentialSemaphore(1)
        self.assertRaises(ValueError, semaphore.acquire, False, 1)
        with semaphore:
            self.assertFalse(semaphore.acquire(False))
            self.assertFalse(semaphore.acquire(timeout=SHORT))
            self.assertRaises(Blocks, semaphore.acquire)
        self.assertRaises(ValueError, semaphore.release, 0)
        semaphore.release(2)
        self.assertEqual(semaphore._value, 3)
        bounded = SequentialBoundedSemaphore(1)
        self.assertRaises(ValueError, bounded.release)
        bounded.acquire()
        bounded.release()

    def test_event(self) -> None:
        event = SequentialEvent()
        self.assertRaises(Blocks, event.wait)
        self.assertFalse(event.wait(SHORT))
        event.set()
        self.assertTrue(event.is_set() and event.isSet() and event.wait())
        event.clear()
        self.assertFalse(event.is_set())

    def test_barrier(self) -> None:
        actions: list[int] = []
        alone = SequentialBarrier(1, lambda: actions.append(1))
        self.assertEqual((alone.wait(), actions, alone.parties, alone.n_waiting), (0, [1], 1, 0))
        self.assertEqual(SequentialBarrier(1).wait(), 0)
        pair = SequentialBarrier(2)
        self.assertRaises(Blocks, pair.wait)
        self.assertRaises(threading.BrokenBarrierError, pair.wait, SHORT)
        self.assertTrue(pair.broken)
        self.assertRaises(threading.BrokenBarrierError, pair.wait)
        pair.reset()
        self.assertRaises(threading.BrokenBarrierError, SequentialBarrier(2, None, SHORT).wait)
        pair.abort()
        self.assertTrue(pair.broken)


class Holder:
    """Holds primitives in every kind of place."""

    __slots__ = ("lock", "__private", "__dict__")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.__private = threading.Event()
        self.unset = None


class MadeSequential(unittest.TestCase):
    def test_every_real_primitive_held_is_replaced_in_its_state(self) -> None:
        held, reentrant = threading.Lock(), threading.RLock()
        held.acquire()
        reentrant.acquire()
        reentrant.acquire()
        condition = threading.Condition(held)
        barrier = threading.Barrier(2)
        barrier.abort()
        event = threading.Event()
        event.set()
        semaphore = threading.Semaphore(3)
        obj = Holder()
        obj.things = [held, {"condition": condition, "rlock": reentrant},
                      collections.deque([threading.BoundedSemaphore(2)]),
                      (semaphore, {"inside a tuple": semaphore}), barrier, event,
                      threading.Condition()]
        made = make_sequential(obj, {})
        self.assertIs(made, obj)
        self.assertIsInstance(obj.lock, SequentialLock)
        self.assertIsInstance(obj._Holder__private, SequentialEvent)  # type: ignore[attr-defined]
        lock, mapping, deque, pair, barrier_twin, event_twin, fresh = obj.things
        self.assertTrue(lock.locked())
        self.assertIs(mapping["condition"]._lock, lock)  # one twin per primitive
        self.assertEqual(mapping["rlock"]._recursion_count(), 2)
        self.assertEqual(deque[0]._initial_value, 2)
        self.assertIs(pair[0], semaphore)  # a tuple cannot be changed: left, and walked
        self.assertIsInstance(pair[1]["inside a tuple"], SequentialSemaphore)
        self.assertTrue(barrier_twin.broken and event_twin.is_set())
        self.assertIsInstance(fresh._lock, SequentialRLock)
        reentrant.release()
        reentrant.release()
        held.release()

    def test_a_slot_with_no_value_is_passed_by(self) -> None:
        empty = Slotted()
        self.assertIs(make_sequential(empty, {}), empty)

    def test_a_primitive_itself_is_its_twin(self) -> None:
        self.assertIsInstance(make_sequential(threading.Semaphore(), {}), SequentialSemaphore)

    def test_what_fresh_objects_share_or_cannot_be_made_sequential_is_left(self) -> None:
        shared = {"lock": threading.Lock()}
        odd = threading.Condition(mock.MagicMock())  # a lock it has no twin for
        obj = lin_structures.LockedCounter()
        obj.registry = shared  # type: ignore[attr-defined]
        obj.odd = odd  # type: ignore[attr-defined]
        make_sequential(obj, {id(shared): shared})
        self.assertIsInstance(shared["lock"], type(threading.Lock()))
        self.assertIs(obj.odd, odd)  # type: ignore[attr-defined]
        self.assertIsInstance(odd._lock, mock.MagicMock)  # not walked into

    def test_python_s_own_rlock(self) -> None:
        python_rlock = threading._PyRLock()  # type: ignore[attr-defined]
        python_rlock.acquire()
        twin = make_sequential([python_rlock], {})[0]
        self.assertEqual(twin._recursion_count(), 1)
        python_rlock.release()

    def test_a_queue_s_get_blocks_at_once(self) -> None:
        jobs = make_sequential(queue.Queue(), {})
        jobs.put(1)
        self.assertEqual(jobs.get(), 1)
        self.assertRaises(Blocks, jobs.get)
        self.assertRaises(queue.Empty, jobs.get, timeout=SHORT)


class Slotted:
    __slots__ = "only"


class Unreadable(queue.SimpleQueue):  # type: ignore[type-arg]
    """State kept in C."""


class Bumping:
    """A counter."""

    def __init__(self) -> None:
        self.count = 0

    def bump(self) -> int:
        self.count += 1
        return self.count


class Copied(Bumping):
    """Its copies are not what it is."""

    def __deepcopy__(self, memo: dict[int, Any]) -> Copied:
        return Copied()


class Uncopied(Copied):
    """It cannot be copied."""

    def __deepcopy__(self, memo: dict[int, Any]) -> Copied:
        raise TypeError("no copies")


def closure() -> Any:
    cell: list[int] = []

    def inner(x: int = 1, *, y: int = 2) -> list[int]:
        return cell

    def unbound() -> Any:
        return later  # noqa: F821 - an empty cell

    later = None
    del later
    return inner, unbound


class StateKeys(unittest.TestCase):
    def key(self, value: object, numbers: dict[int, int] | None = None) -> Any:
        return state_key(value, numbers or {}, {})

    def test_equal_states_have_equal_keys_and_others_not(self) -> None:
        inner, unbound = closure()
        for make in (lambda: [1.0, -0.0, 2j, b"x", bytearray(b"y"), None, ...],
                     lambda: collections.defaultdict(list, a=[1]),
                     lambda: collections.deque([1, 2], maxlen=3),
                     lambda: ({1, 2}, frozenset({3})),
                     lambda: collections.OrderedDict(b=1, a=2),
                     lambda: [inner, unbound, str.upper, len, collections],
                     lambda: lin_structures.UnlockedCounter().get):
            with self.subTest(make()):
                self.assertEqual(self.key(make()), self.key(make()))
                self.assertIsNotNone(self.key(make()))
        self.assertNotEqual(self.key([0.0]), self.key([-0.0]))
        self.assertNotEqual(self.key(collections.deque([1], maxlen=3)),
                            self.key(collections.deque([1], maxlen=4)))
        inner.__defaults__ = (5,)
        self.assertNotEqual(self.key([inner]), self.key([closure()[0]]))

    def test_an_ordered_dict_s_order_and_a_subclass_s_items_left_alone(self) -> None:
        moved = collections.OrderedDict(a=1, b=2)
        moved.move_to_end("a")  # (the dict underneath keeps a, b)
        self.assertNotEqual(self.key(moved), self.key(collections.OrderedDict(a=1, b=2)))
        self.assertEqual(self.key(moved), self.key(collections.OrderedDict(b=2, a=1)))

        class Raising(dict):  # type: ignore[type-arg]
            def items(self) -> Any:
                raise KeyError("its own items() is not read")

        self.assertNotEqual(self.key(Raising(a=1)), self.key(Raising(a=2)))
        self.assertEqual(self.key(Raising(a=1)), self.key(Raising(a=1)))

    def test_a_c_method_is_read_through_to_its_object(self) -> None:
        numbers = [1]
        before = self.key([numbers.append])
        numbers.append(2)
        self.assertNotEqual(self.key([numbers.append]), before)
        self.assertIsNone(self.key([itertools.count().__next__]))  # its state is C's

    def test_one_object_twice_is_not_two_equal_ones(self) -> None:
        one: list[int] = []
        self.assertNotEqual(self.key([one, one]), self.key([[], []]))

    def test_objects_returned_are_known_by_their_number(self) -> None:
        connection = lin_structures.Connection("db")
        self.assertNotEqual(self.key([connection], {id(connection): 1}),
                            self.key([connection], {id(connection): 2}))

    def test_slots_set_and_unset(self) -> None:
        filled, empty = Slotted(), Slotted()
        filled.only = 1
        self.assertNotEqual(self.key(filled), self.key(empty))
        self.assertEqual(self.key(empty), self.key(Slotted()))

    def test_what_cannot_be_read(self) -> None:
        self.assertIsNone(layout(Unreadable))
        self.assertIsNone(layout(queue.SimpleQueue))
        self.assertIsNone(self.key([threading.Lock()]))
        self.assertIsNone(self.key([Unreadable()]))
        with mock.patch("blanket.linearizability.objectstate.MAX_KEY", 10):
            self.assertIsNone(self.key([list(range(20))]))

    def test_what_is_reachable(self) -> None:
        inner, in_set, by_default = [1], (2,), collections.defaultdict(list)
        holder = lin_structures.LockedCounter()
        holder.items = {"a": inner, "b": {in_set}, "c": Slotted(),  # type: ignore[attr-defined]
                        "d": by_default}
        found = reachable(holder)
        for value in (inner, in_set, holder.lock, by_default):
            self.assertIn(id(value), found)


class Copies(unittest.TestCase):
    """A state the search comes back to is copied, not made again."""

    def history(self, count: int) -> tuple[list[object], History]:
        """*count* increments one after the other, then one more and a get
        at once: the increment is tried first, and the get needs the state
        before it."""
        inc, get = blanket.Operation("bump"), blanket.Operation("count_now")
        record = History(count + 2)
        for call in range(count):
            record.begin(call)
            record.end(call, Outcome(False, call + 1))
        record.begin(count)
        record.begin(count + 1)
        record.end(count, Outcome(False, count + 1))
        record.end(count + 1, Outcome(False, count))
        return [inc] * (count + 1) + [get], record

    def check(self, kind: type, count: int = 20) -> Model:
        class Counting(kind):  # type: ignore[misc, valid-type]
            def count_now(self) -> int:
                return int(self.count)

        operations, record = self.history(count)
        model = Model(Counting)
        self.assertTrue(Specification(model, operations).check(record).ok)
        model.close()
        return model

    def test_a_state_gone_back_to_is_copied(self) -> None:
        with mock.patch.object(copy, "deepcopy", wraps=copy.deepcopy) as copying:
            model = self.check(Bumping)
        self.assertEqual(copying.call_count, 2)  # kept, then copied back
        self.assertIsNotNone(model._copies[20])

    def test_a_copy_that_is_not_the_state_or_cannot_be_made_is_not_kept(self) -> None:
        for kind in (Copied, Uncopied):
            with self.subTest(kind.__name__):
                self.assertIsNone(self.check(kind)._copies[20])

    def test_a_short_history_is_made_again_not_copied(self) -> None:
        with mock.patch.object(copy, "deepcopy") as copying:
            self.check(Bumping, count=3)
        copying.assert_not_called()

    def test_the_copies_kept_are_bounded(self) -> None:
        with mock.patch.object(model_module, "MAX_COPIES", 0):
            self.assertEqual(self.check(Bumping)._copies, {})


class ModelParts(unittest.TestCase):
    def test_a_sequence_that_blocks_half_way_blocks(self) -> None:
        model = Model(lin_structures.BlockingQueue)
        get, put = blanket.Operation("get"), blanket.Operation("put", 1)
        self.assertIs(model.outcome([get, put]), BLOCKED)
        self.assertEqual(model.outcome([put, get]).value, 1)
        model.close()

    def test_the_first_error_is_the_one_raised(self) -> None:
        model = Model(list)
        first = blanket.LinearizabilityError("first")
        self.assertIs(model.fail(first), first)
        model.fail(blanket.LinearizabilityError("second"))
        with self.assertRaises(blanket.LinearizabilityError) as raised:
            model.outcome([blanket.Operation("pop")])
        self.assertIs(raised.exception, first)

    def test_answers_that_cannot_be_compared_are_the_same(self) -> None:
        incomparable = Outcome(False, mock.MagicMock(__eq__=mock.Mock(side_effect=KeyError)))
        self.assertTrue(model_module._same(incomparable, Outcome(False, 1)))
        self.assertFalse(model_module._same(BLOCKED, Outcome(False, 1)))

    def test_a_task_slow_between_calls_of_the_specification_is_waited_for(self) -> None:
        runner = model_module._Runner()
        gate = threading.Event()
        self.assertFalse(runner.run(lambda: gate.wait(5 * SHORT), SHORT))
        runner.stop(1.0)
        self.assertFalse(runner.thread.is_alive())

    def test_a_thread_left_to_its_call_ends_with_it(self) -> None:
        runner = model_module._Runner()
        gate = threading.Event()
        calling = model_module._Calling(mock.Mock(_runner=runner), "a call")

        def stuck() -> bool:
            with calling:
                return gate.wait(10)

        with self.assertRaises(model_module._Stuck):
            runner.run(stuck, SHORT)
        gate.set()
        runner.thread.join(10)
        self.assertFalse(runner.thread.is_alive())
        self.assertTrue(runner.results.empty())  # its caller is gone: nothing handed back

    def test_an_error_in_a_task_is_raised_to_its_caller(self) -> None:
        model = Model(list)
        with self.assertRaises(ZeroDivisionError):
            model.run(lambda: 1 / 0)
        model.close()

    def test_a_model_factory_stuck_is_named(self) -> None:
        gate = threading.Event()
        model = Model(lambda: gate.wait(10), timeout=SHORT)
        with self.assertRaises(blanket.LinearizabilityError) as raised:
            model.outcome([blanket.Operation("get")])
        self.assertIn("the specification's factory gate.wait(10) did not return within "
                      "0.01 s", str(raised.exception))
        gate.set()
