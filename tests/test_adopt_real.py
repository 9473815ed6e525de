"""blanket.exploration.realprims: real primitives made outside the threads
(at import time, as a default argument, in the setup by library code, by a
logging handler) are the scenario's where watched code uses them, so the
bugs under them are found and their fixes are the whole space; runs start
alike; a deadlock on two of them is a deadlock naming both.

Before, such a primitive stayed real: its calls were no steps, the verdict
said "not exhaustive: real Lock used at ...", a deadlock on it was a stall
of the whole timeout ("running, not inside a blanket call"), and a setup
using logging stalled or stopped with "the scenario is not deterministic"."""

from __future__ import annotations

import gc
import logging
import multiprocessing
import threading
import time
import unittest
from collections.abc import Callable
from typing import Any

from blanket import Scenario, progress, sleepers
from blanket.core import ScenarioCore
from blanket.exploration import realprims, sites
from blanket.exploration.realprims import Twins
from blanket.exploration.reproduce import replay
from blanket.exploration.result import Exploration
from blanket.exploration.unseen import Unseen

from . import adopt_real_bugs as bugs
from .support import unchecked
from .test_explore import explore
from .test_explore_verdict import frame_in

#: A short bound: a deadlock must be named well within it.
SHORT = 2.0
# A stall's bound the deadlock tests must stay well under: named at once, not
# after waiting it out (generous: a loaded machine under typeguard is slow).
BOUND = 20.0


def assert_whole_space(case: unittest.TestCase, result: Exploration) -> None:
    case.assertTrue(result.ok, result)
    case.assertTrue(result.exhausted, result)
    case.assertEqual(result.unseen, [])
    case.assertIn("the whole space", str(result))


def readers_and_writer(cls: type[bugs.ReaderWriterLock]) -> Callable[[Scenario], None]:
    def setup(scenario: Scenario) -> None:
        scenario.instrument(bugs)
        lock = cls()  # made in the setup: its Condition is the real class's

        def read() -> None:
            lock.acquire_read()
            lock.release_read()

        def write() -> None:
            lock.acquire_write()
            lock.release_write()

        scenario.thread(write)
        scenario.thread(read)
        scenario.thread(read)
    return setup


def lost_mail(scenario: Scenario) -> None:
    """A library's mailbox, its Condition made in __init__ (in the setup),
    its get called by a lambda: met as the thread runs."""
    box = bugs.Mailbox()
    got: list[object] = []
    scenario.thread(lambda: got.append(box.get()))
    scenario.thread(box.put, 1)


class MetFirstInTheRun(unittest.TestCase):
    def test_a_library_s_method_runs_watched_in_the_run_that_meets_it(self) -> None:
        # On 3.11 and 3.12 a method call's site saw `self`, not the method:
        # get ran unwatched in the first run, asleep in the real Condition,
        # and the run waited out a stall of three timeouts before the search
        # started again with it watched.
        started = time.monotonic()
        result = explore(lost_mail, timeout=BOUND)
        self.assertLess(time.monotonic() - started, BOUND / 2)
        assert result.failure is not None, result
        self.assertEqual(result.failure.kind, "deadlock")
        self.assertIn("A waits in Condition.wait on Condition 1", result.failure.message)


class DefaultArgument(unittest.TestCase):
    def test_the_lost_wakeup_is_a_deadlock_on_the_condition(self) -> None:
        # Before: the readers slept in the real Condition: a stall of the
        # whole bound, or "not exhaustive: real Condition used" and no failure.
        started = time.monotonic()
        result = explore(readers_and_writer(bugs.ReaderWriterLock), timeout=BOUND)
        self.assertLess(time.monotonic() - started, BOUND / 2)
        assert result.failure is not None, result
        self.assertEqual(result.failure.kind, "deadlock")
        self.assertIn("waits in Condition.wait on Condition 1", result.failure.message)

    def test_the_fix_is_the_whole_space(self) -> None:
        assert_whole_space(self, explore(readers_and_writer(bugs.FixedReaderWriterLock)))


def lazy_init(load: Callable[[], object]) -> Callable[[Scenario], Callable[[], None]]:
    def setup(scenario: Scenario) -> Callable[[], None]:
        bugs.reset_config()
        scenario.instrument(bugs)
        scenario.thread(load)
        scenario.thread(load)

        def check() -> None:
            assert bugs.loads == [1], f"loaded {len(bugs.loads)} times"
        return check
    return setup


class ModuleGlobal(unittest.TestCase):
    def test_the_double_load_is_found(self) -> None:
        result = explore(lazy_init(bugs.load_config))
        assert result.failure is not None, result
        self.assertEqual(result.failure.kind, "invariant")
        self.assertIn("loaded 2 times", result.failure.message)
        # Shrunk to no step: both threads check before either takes the
        # lock (the real one, the scenario's), in the replay's own order.
        self.assertEqual(result.failure.schedule, ())
        taken = replay(lazy_init(bugs.load_config), ()).steps
        self.assertIn("A: Lock 1 Lock.acquire", [str(s) for s in taken])

    def test_the_fix_is_the_whole_space(self) -> None:
        # Before: "not exhaustive: real Lock used at adopt_real_bugs.py:..."
        result = explore(lazy_init(bugs.load_config_fixed))
        assert_whole_space(self, result)
        self.assertGreater(result.count, 1)
        self.assertFalse(bugs._lock.locked())


def pool(cls: type[bugs.Pool]) -> Callable[[Scenario], Callable[[], None]]:
    def setup(scenario: Scenario) -> Callable[[], None]:
        scenario.instrument(bugs)
        items = cls(["last"])  # its lock made by library code, in the setup
        taken: list[list[object]] = [[], []]  # one list a thread: no race of the test's
        for mine in taken:
            scenario.thread(lambda mine=mine: mine.append(items.take()))

        def check() -> None:
            got = [each[0] for each in taken]
            assert sorted(got, key=str) == [None, "last"], got
        return check
    return setup


class MadeInTheSetup(unittest.TestCase):
    def test_the_race_for_the_last_item_is_found(self) -> None:
        result = explore(pool(bugs.Pool))
        assert result.failure is not None, result
        self.assertEqual(result.failure.kind, "exception")
        self.assertIn("IndexError: pop from empty list", result.failure.message)

    def test_the_fix_is_the_whole_space(self) -> None:
        assert_whole_space(self, explore(pool(bugs.FixedPool)))


def crossed(second: Callable[[], None]) -> Callable[[Scenario], None]:
    def setup(scenario: Scenario) -> None:
        bugs.ledger.clear()
        scenario.instrument(bugs)
        scenario.thread(bugs.transfer)
        scenario.thread(second)
    return setup


class ImportTimeLocks(unittest.TestCase):
    def test_lock_order_inversion_is_a_deadlock_naming_both_locks(self) -> None:
        # Before: a StallError after the whole bound: "'A': running, not
        # inside a blanket call".
        started = time.monotonic()
        result = explore(crossed(bugs.audit), timeout=BOUND)
        self.assertLess(time.monotonic() - started, BOUND / 2)
        assert result.failure is not None, result
        self.assertEqual(result.failure.kind, "deadlock")
        self.assertIn("deadlock: A holds Lock 1 and waits for Lock 2; "
                      "B holds Lock 2 and waits for Lock 1", result.failure.message)
        # Nothing left held for the next test: the run put the real locks back.
        self.assertFalse(bugs.accounts_lock.locked() or bugs.audit_lock.locked())

    def test_the_fix_is_the_whole_space(self) -> None:
        assert_whole_space(self, explore(crossed(bugs.audit_fixed)))
        self.assertEqual(sorted(bugs.ledger), ["audit", "transfer"])


LOGGER = logging.getLogger("tests.adopt_real")


def logs(cls: type[bugs.KeepingHandler]) -> Callable[[Scenario], Callable[[], None]]:
    def setup(scenario: Scenario) -> Callable[[], None]:
        scenario.instrument(logging, bugs)
        handler = cls()  # a new handler, and its lock, every run
        for old in list(LOGGER.handlers):
            LOGGER.removeHandler(old)
        LOGGER.addHandler(handler)
        LOGGER.setLevel(logging.INFO)
        LOGGER.propagate = False

        def drain() -> None:
            LOGGER.info("one")
            handler.drain()

        scenario.thread(drain)
        scenario.thread(lambda: LOGGER.info("two"))

        def check() -> None:
            handler.drain()
            assert sorted(handler.drained) == ["one", "two"], handler.drained
        return check
    return setup


class Logging(unittest.TestCase):
    def tearDown(self) -> None:
        for old in list(LOGGER.handlers):
            LOGGER.removeHandler(old)

    def test_a_lost_record_is_found(self) -> None:
        result = explore(logs(bugs.KeepingHandler))
        assert result.failure is not None, result
        self.assertEqual(result.failure.kind, "invariant")
        self.assertIn("AssertionError: ['one']", result.failure.message)

    def test_the_fix_is_the_whole_space_and_every_run_starts_alike(self) -> None:
        # Before: a stall (a thread asleep in logging's real lock), or "the
        # scenario is not deterministic ... at step 1" (a handler's lock
        # left held by a run given up on).
        result = explore(logs(bugs.FixedKeepingHandler))
        assert_whole_space(self, result)
        self.assertGreater(result.count, 1)
        self.assertNotIn("count=1", repr(logging._lock))  # type: ignore[attr-defined]



def counted_under_a_process_lock(scenario: Scenario) -> Callable[[], None]:
    """Two threads count under a multiprocessing.RLock (made of a SemLock,
    as tqdm's write lock is): correct, but the lock is none of blanket's."""
    lock = multiprocessing.RLock()
    box = {"count": 0}

    def count() -> None:
        with lock:
            seen = box["count"]
            box["count"] = seen + 1

    scenario.thread(count)
    scenario.thread(count)

    def invariant() -> None:
        assert box["count"] == 2, box
    return invariant


def crossed_with_a_process_lock(scenario: Scenario) -> None:
    """A takes a multiprocessing.Lock, then the scenario's; B the other way."""
    outer, inner = multiprocessing.Lock(), scenario.Lock()

    def one() -> None:
        with outer, inner:
            pass

    def other() -> None:
        with inner, outer:
            pass

    scenario.thread(one)
    scenario.thread(other)


class TwoLocks:
    """tqdm's write lock (4.32.2): a multiprocessing.RLock made on first
    use, by the threads' own code (its SemLock's methods stored as the
    lock's own), and a threading.RLock, taken in a loop, released in
    reverse. A thread given up on between the two acquires keeps the
    first: only its holder could release the real one."""

    process_lock: Any = None
    thread_lock = threading.RLock()

    def __init__(self) -> None:
        if TwoLocks.process_lock is None:
            TwoLocks.process_lock = multiprocessing.RLock()
        self.locks = [TwoLocks.process_lock, TwoLocks.thread_lock]

    def __enter__(self) -> None:
        for lock in self.locks:
            lock.acquire()

    def __exit__(self, *exc: object) -> None:
        for lock in self.locks[::-1]:
            lock.release()


def counted_under_two_locks(scenario: Scenario) -> Callable[[], None]:
    box = {"count": 0}

    def count() -> None:
        with TwoLocks():
            with TwoLocks():  # (both reentrant)
                seen = box["count"]
                box["count"] = seen + 1

    scenario.thread(count)
    scenario.thread(count)

    def invariant() -> None:
        assert box["count"] == 2, box
    return invariant


def take_process_lock(lock: Any) -> None:
    """Code not watched (excluded) taking a multiprocessing lock: its
    SemLock is the real one."""
    lock.acquire()


def give_process_lock(lock: Any) -> None:
    lock.release()


def crossed_with_a_process_lock_unwatched(scenario: Scenario) -> None:
    """A takes a multiprocessing.Lock in code not watched, then the
    scenario's; B the other way."""
    outer, inner = multiprocessing.Lock(), scenario.Lock()

    def one() -> None:
        take_process_lock(outer)
        try:
            with inner:
                pass
        finally:
            give_process_lock(outer)

    def other() -> None:
        with inner:
            take_process_lock(outer)
            give_process_lock(outer)

    scenario.thread(one)
    scenario.thread(other)


class ProcessLocks(unittest.TestCase):
    """The SemLock a multiprocessing lock or semaphore is made of is
    scheduled as a threading one is, through a stand-in made for each run
    (blanket.exploration.realprims.StandIn): before, its calls were real, a
    thread asleep in one was told asleep for good by its holder, and the
    lock named as unseen; a run given up on left it held for ever, and the
    next run stalled."""

    def setUp(self) -> None:
        TwoLocks.process_lock = None  # (made anew by the first run's threads)

    def test_correct_code_is_the_whole_space(self) -> None:
        started = time.monotonic()
        result = explore(counted_under_a_process_lock, timeout=BOUND)
        self.assertLess(time.monotonic() - started, BOUND / 2)
        assert_whole_space(self, result)

    def test_a_lock_made_in_a_run_and_taken_with_another_is_no_stall(self) -> None:
        # Before: "stalled", A in SemLock.acquire of the real SemLock that
        # a thread of the first run kept (the search does not stop at the
        # first run, whose code is met unwatched).
        result = explore(counted_under_two_locks, timeout=BOUND)
        assert_whole_space(self, result)
        self.assertFalse(TwoLocks.process_lock._semlock._is_zero())  # (the real one, untouched)

    def test_a_cycle_through_one_is_a_deadlock_and_no_thread_is_left(self) -> None:
        before = set(threading.enumerate())
        result = explore(crossed_with_a_process_lock, timeout=BOUND)
        assert result.failure is not None, result
        self.assertEqual(result.failure.kind, "deadlock")
        self.assertRegex(result.failure.message,
                         r"deadlock: A holds Lock \d and waits for Lock \d; "
                         r"B holds Lock \d and waits for Lock \d")
        self.assertEqual(set(threading.enumerate()) - before, set())

    def test_one_code_not_watched_takes_is_real_and_a_sleep_in_it_is_seen(self) -> None:
        before = set(threading.enumerate())
        result = explore(crossed_with_a_process_lock_unwatched, timeout=BOUND,
                         exclude=[take_process_lock, give_process_lock])
        assert result.failure is not None, result
        self.assertEqual(result.failure.kind, "deadlock")
        self.assertIn("waits for real SemLock", result.failure.message)
        self.assertTrue(any(note.startswith("real SemLock used at test_adopt_real.py:")
                            for note in result.unseen), result.unseen)
        self.assertEqual(set(threading.enumerate()) - before, set())

    def test_a_semaphore_s_stand_in_has_its_value_and_its_methods(self) -> None:
        semaphores = {"plain": multiprocessing.Semaphore(2),
                      "bounded": multiprocessing.BoundedSemaphore(2),
                      "lock": multiprocessing.Lock()}
        semaphores["plain"].acquire()  # (value 1 at the run's first use)
        seen: dict[str, object] = {}

        def setup(scenario: Scenario) -> None:
            def use() -> None:
                plain, bounded = semaphores["plain"]._semlock, semaphores["bounded"]._semlock
                lock = semaphores["lock"]._semlock
                seen["plain"] = (plain.acquire(), plain._get_value(), plain._is_zero(),
                                 plain.acquire(False), plain.acquire(True, -1))
                plain.release()
                seen["bounded"] = (bounded.acquire(True, 5), bounded._count(),
                                   bounded._is_mine(), bounded.maxvalue)
                bounded.release()
                try:
                    bounded.release()  # (beyond its bound)
                except ValueError as error:
                    seen["beyond"] = str(error)
                with lock:
                    seen["lock"] = (lock._get_value(), lock._count(), lock._is_mine())
                seen["after"] = lock._get_value()
            scenario.thread(use)
        result = explore(setup)
        assert_whole_space(self, result)
        self.assertEqual(seen, {"plain": (True, 0, True, False, False),
                                "bounded": (True, 1, True, 2),
                                "beyond": "Semaphore released too many times",
                                "lock": (0, 1, True), "after": 1})
        self.assertEqual(semaphores["plain"]._semlock._get_value(), 1)  # (untouched)

    def test_no_run_s_scenario_is_kept_alive(self) -> None:
        # (the twins of each scenario were kept, and its core with them: a
        # linearizability check went three times slower)
        def cores() -> int:
            gc.collect()
            return sum(type(o) is ScenarioCore for o in gc.get_objects())
        explore(counted_under_two_locks)
        before = cores()
        result = explore(counted_under_two_locks)
        self.assertGreaterEqual(result.runs, 3)
        # (3.13t keeps the last run's a while: fewer than one a run, then)
        self.assertLessEqual(cores() - before, 1)

    def test_outside_a_run_its_twin_calls_the_sem_lock(self) -> None:
        lock = multiprocessing.RLock()
        twin = realprims.SemLockTwin.of(lock._semlock)
        self.assertIs(realprims.SemLockTwin.of(lock._semlock), twin)
        with twin:
            self.assertEqual((twin._count(), twin._is_mine(), twin._get_value()), (1, True, 0))
        self.assertEqual((twin._count(), twin.kind), (0, lock._semlock.kind))


if __name__ == "__main__":  # pragma: no cover
    unittest.main()


def crossed_unwatched(scenario: Scenario) -> None:
    """A and B take the two import-time locks in opposite orders, in code
    that is not watched (so the locks stay real), with a step between."""
    gate = scenario.Lock()

    def between() -> None:
        gate.acquire()
        gate.release()

    scenario.thread(bugs.take_in_turn_unwatched, bugs.accounts_lock, bugs.audit_lock, between)
    scenario.thread(bugs.take_in_turn_unwatched, bugs.audit_lock, bugs.accounts_lock, between)


def real(lock: Any) -> str:
    return f"real Lock 0X{id(lock):X}"


class RealLocksOutsideWatchedCode(unittest.TestCase):
    def test_a_cycle_of_real_acquires_is_a_deadlock_naming_both(self) -> None:
        # Before: a StallError after the whole bound, "'A': running, not
        # inside a blanket call", and both locks left held for ever.
        started = time.monotonic()
        result = explore(crossed_unwatched, timeout=BOUND)
        self.assertLess(time.monotonic() - started, BOUND / 2)
        assert result.failure is not None, result
        self.assertEqual(result.failure.kind, "deadlock")
        accounts, audit = real(bugs.accounts_lock), real(bugs.audit_lock)
        self.assertEqual(result.failure.message, (
            f"deadlock: A holds {accounts} and waits for {audit} (acquired at "
            f"unwatched.py:3, outside blanket); B holds {audit} and waits for "
            f"{accounts} (acquired at unwatched.py:3, outside blanket)"))
        self.assertFalse(bugs.accounts_lock.locked() or bugs.audit_lock.locked())

    def test_a_thread_asleep_in_a_real_lock_is_named_in_the_stall(self) -> None:
        outside = threading.Lock()
        outside.acquire()  # held by the test's thread: nothing in the run frees it

        def setup(scenario: Scenario) -> None:
            scenario.thread(bugs.take_in_turn_unwatched, outside, threading.Lock(),
                            lambda: None)

        try:
            result = explore(setup, timeout=0.2)
        finally:
            outside.release()
        assert result.failure is not None, result
        self.assertEqual(result.failure.kind, "stall")
        self.assertIn(f"'A': in Lock.acquire of {real(outside)} at unwatched.py:1, "
                      "outside blanket (only its release wakes it)", result.failure.message)


class RealRLocksOutsideWatchedCode(unittest.TestCase):
    def test_a_cycle_of_real_rlock_acquires_is_a_deadlock_naming_both(self) -> None:
        first, second = threading.RLock(), threading.RLock()

        def setup(scenario: Scenario) -> None:
            gate = scenario.Lock()

            def between() -> None:
                gate.acquire()
                gate.release()

            scenario.thread(bugs.take_in_turn_unwatched, first, second, between)
            scenario.thread(bugs.take_in_turn_unwatched, second, first, between)

        result = explore(setup, timeout=SHORT)
        assert result.failure is not None, result
        self.assertEqual(result.failure.kind, "deadlock")
        self.assertIn(f"A holds real RLock 0X{id(first):X} and waits for real RLock "
                      f"0X{id(second):X}", result.failure.message)
        self.assertNotIn("count=1", repr(first) + repr(second))

    def test_a_real_lock_a_twin_holds_is_waited_for_in_turn(self) -> None:
        shared = threading.Lock()
        with open(__file__, encoding="utf-8") as source:
            between_line = next(n for n, line in enumerate(source, 1)
                                if line.rstrip().endswith("# made anew in every run"))

        def setup(scenario: Scenario) -> None:
            gate = scenario.Lock()

            def watched() -> None:
                with shared:  # the twin
                    gate.acquire()
                    gate.release()

            def between() -> None:  # made anew in every run
                gate.acquire()
                gate.release()

            scenario.thread(watched)
            scenario.thread(bugs.take_in_turn_unwatched, threading.Lock(), shared, between)

        result = explore(setup, timeout=SHORT)
        self.assertTrue(result.ok, result)
        between_name = f"{type(self).__name__}.{self._testMethodName}.<locals>.setup.<locals>" \
            ".between"
        # Each gap once (before: one real Lock a line); the code exec runs and
        # the closure it calls, made anew in every run, are gaps too.
        self.assertEqual(result.unseen, [
            "real Lock used at unwatched.py:1",
            "code outside any function ran unwatched: <module> at unwatched.py:1",
            f"function {between_name} at tests/test_adopt_real.py:{between_line} ran unwatched: "
            "made anew in every run and called by code not watched (scenario.instrument it in "
            "the setup)"])
        self.assertFalse(shared.locked())


class EveryKind(unittest.TestCase):
    """Each kind of real primitive, used by watched code, is the scenario's,
    and is put back as it was when the run ends."""

    def test_every_kind_used_by_watched_code_is_the_whole_space(self) -> None:
        made = {"Lock": threading.Lock(), "RLock": threading.RLock(),
                "Condition": threading.Condition(threading.Lock()),
                "Semaphore": threading.Semaphore(1),
                "BoundedSemaphore": threading.BoundedSemaphore(1)}
        event = threading.Event()
        acquire = made["Lock"].acquire  # a bound method taken outside
        release = made["Lock"].release

        def setup(scenario: Scenario) -> None:
            def work() -> None:
                for primitive in made.values():
                    with primitive:
                        pass
                acquire()
                release()
                event.set()
                event.wait()

            scenario.thread(work)
            scenario.thread(work)

        result = explore(setup)
        assert_whole_space(self, result)
        self.assertGreater(result.count, 10)
        self.assertFalse(event.is_set())  # put back: it was clear at its first use

    def test_what_a_thread_given_up_on_left_is_put_back(self) -> None:
        semaphore, lock = threading.Semaphore(1), threading.Lock()
        rlock, event = threading.RLock(), threading.Event()
        condition = threading.Condition()

        def setup(scenario: Scenario) -> None:
            def hold() -> None:
                semaphore.acquire()
                lock.acquire()
                rlock.acquire()
                with condition:
                    condition.wait()  # nobody notifies: a deadlock, given up on

            scenario.thread(hold)

        result = explore(setup, timeout=SHORT)
        assert result.failure is not None, result
        self.assertEqual(result.failure.kind, "deadlock")
        self.assertEqual(semaphore._value, 1)  # type: ignore[attr-defined]
        self.assertFalse(lock.locked())
        self.assertNotIn("count=1", repr(rlock))
        self.assertEqual(len(condition._waiters), 0)  # type: ignore[attr-defined]
        self.assertFalse(event.is_set())

    def test_a_primitive_of_an_earlier_scenario_is_twinned(self) -> None:
        kept: dict[str, Any] = {}
        runs: list[int] = []

        def setup(scenario: Scenario) -> None:
            runs.append(1)

            def work() -> None:
                if "condition" not in kept:  # made in the first run, kept after
                    kept["condition"] = threading.Condition(threading.Lock())
                    kept["event"] = threading.Event()
                with kept["condition"]:
                    kept["condition"].notify_all()
                kept["event"].is_set()

            scenario.thread(work)
            scenario.thread(work)

        result = explore(setup)
        self.assertTrue(result.ok, result)
        self.assertGreater(len(runs), 1)
        self.assertEqual(result.unseen, [])

    def test_a_barrier_and_a_condition_over_another_lock_stay_real_and_named(self) -> None:
        class OwnLock:
            def __init__(self) -> None:
                self._lock = threading.Lock()

            def acquire(self, *args: Any) -> bool:
                return self._lock.acquire(*args)

            def release(self) -> None:
                self._lock.release()

            def __enter__(self) -> None:
                self._lock.acquire()

            def __exit__(self, *exc_info: object) -> None:
                self._lock.release()

        barrier = threading.Barrier(1)
        condition = threading.Condition(OwnLock())  # type: ignore[arg-type]

        def setup(scenario: Scenario) -> None:
            def work() -> None:
                barrier.wait()
                with condition:
                    condition.notify()

            scenario.thread(work)

        result = explore(setup)
        self.assertTrue(result.ok, result)
        self.assertFalse(result.exhausted, result)
        # (OwnLock's code, which the real condition calls, is watched from the
        # second run on: the real lock it takes is the scenario's. Before the
        # search forgot what its first runs met, that run's "real Lock used"
        # stayed.)
        self.assertEqual({note.split(" at ")[0] for note in result.unseen},
                         {"real Barrier used", "real Condition used"})


class Hooks(unittest.TestCase):
    """What the profile function's and the call hook's helpers do, called by
    hand (coverage cannot see a profile function run)."""

    def test_the_sleepers_are_kept_for_managed_threads_only(self) -> None:
        lock = threading.Lock()
        sleepers.real_call("Lock", lock.acquire, "x.py:1")  # the main thread: no scenario
        self.assertEqual(sleepers.acquiring, {})
        thread = threading.current_thread()
        scenario = Scenario()
        thread._blanket_core = scenario._core  # type: ignore[attr-defined]
        try:
            with unchecked():
                sleepers.real_call("Lock", lock.acquire, "x.py:1")
                self.assertIn(threading.get_ident(), sleepers.acquiring)
                sleepers.real_return(len)  # another builtin's return: still acquiring
                self.assertIn(threading.get_ident(), sleepers.acquiring)
                lock.acquire()
                sleepers.real_return(lock.acquire)
                self.assertEqual(sleepers.acquiring, {})
                self.assertEqual(sleepers.holders[id(lock)], (lock, thread, "x.py:1"))
                sleepers.real_call("Lock", lock.acquire, "x.py:2")  # again: known holder kept
                sleepers.real_return(lock.acquire)
                self.assertEqual(sleepers.holders[id(lock)][2], "x.py:1")
                sleepers.real_return(lock.acquire)  # acquiring nothing: ignored
                sleepers.real_call("Lock", lock.release, "x.py:3")
                self.assertNotIn(id(lock), sleepers.holders)
                sleepers.real_call("Lock", lock.locked, "x.py:4")  # neither
                lock.release()
        finally:
            del thread._blanket_core  # type: ignore[attr-defined]
            sleepers.acquiring.clear()
            sleepers.holders.clear()
        rlock = threading.RLock()
        self.assertIsNone(sleepers.owner(rlock))
        self.assertFalse(sleepers.held(rlock))
        with rlock:
            self.assertEqual(sleepers.owner(rlock), threading.get_ident())
            self.assertTrue(sleepers.held(rlock))

    def test_the_profile_tells_of_returns_while_a_thread_is_acquiring(self) -> None:
        unseen = Unseen()
        lock = threading.Lock()
        sleepers.acquiring[threading.get_ident()] = (threading.current_thread(), "RLock",
                                                     lock, "x.py:1")
        try:
            with unchecked():
                unseen._uses(frame_in("/src/x.py"), "c_return", lock.acquire)
            self.assertEqual(sleepers.acquiring, {})
        finally:
            sleepers.acquiring.clear()

    def test_bookkeeping_keeps_the_real_primitive(self) -> None:
        scenario = Scenario(adopt=True)
        lock = threading.Lock()
        saved = sites._local.__dict__.copy()
        try:
            sites._local.state = ([], scenario._watch)
            with scenario._core.lock:
                scenario._core.regulated = True
                try:
                    self.assertIs(sites.use_target(lock), lock)  # the lock held
                finally:
                    scenario._core.regulated = False
        finally:
            sites._local.__dict__.clear()
            sites._local.__dict__.update(saved)

    def test_two_first_uses_at_once_make_one_twin(self) -> None:
        scenario = Scenario()
        twins = Twins(scenario._core, {"Lock": scenario.Lock})
        lock = threading.Lock()
        twin = twins.use(lock)

        class Late(dict):  # type: ignore[type-arg]
            """The other thread made it while this one waited for the lock."""
            asked = 0

            def __contains__(self, key: object) -> bool:
                Late.asked += 1
                return Late.asked > 1 and super().__contains__(key)

        twins._made = Late(twins._made)
        self.assertIs(twins.use(lock), twin)
        self.assertEqual(Late.asked, 2)  # looked up again under the lock


class Freeing(unittest.TestCase):
    def test_a_real_lock_released_meanwhile_is_left_alone(self) -> None:
        lock, rlock = threading.Lock(), threading.RLock()
        progress.free_real("Lock", lock)  # not held: nothing raised
        progress.free_real("RLock", rlock)
        lock.acquire()
        progress.free_real("Lock", lock)
        self.assertFalse(lock.locked())

    def test_a_twin_nobody_holds_names_no_holder(self) -> None:
        scenario = Scenario(record_unregulated=True)
        lock = threading.Lock()
        twin = scenario.Lock.around(lock)
        twin.acquire()
        twin.release()  # logged, held by nobody now
        other = scenario.Lock()
        with scenario._core.lock:
            self.assertIsNone(progress._real_holder(scenario._core, "Lock", lock))
        self.assertIsNotNone(other)
