"""blanket.exploration.adopt: the threads and primitives watched code makes with
``threading`` are the scenario's inside an exploration (and in a scenario
that adopts); nothing is patched outside, a Thread subclass and code not
watched are still named as not seen, and injection works beside it."""

from __future__ import annotations

import _thread
import concurrent.futures
import concurrent.futures.thread  # noqa: F401 - see one_task
import logging
import queue
import sys
import threading
import time
import types
import unittest
from collections.abc import Callable
from typing import Any
from unittest import mock

from blanket import Abandoned, Scenario, entry, progress, quiet, report, sleepers
from blanket.exploration import sites, threadingcode, unseen
from blanket.exploration.adopt import AdoptedThread
from blanket.exploration.reproduce import replay
from blanket.exploration.unseen import Unseen
from blanket.signals import Terminated
from blanket.states import State

from .support import unchecked
from .test_explore import BOUND, explore
from .test_explore_verdict import frame_in

HERE = "test_adopt.py"
REAL_LOCK = threading.Lock
LOCK_TYPE = type(_thread.allocate_lock())


def line_of(marker: str) -> int:
    with open(__file__, encoding="utf-8") as source:
        return next(n for n, line in enumerate(source, 1)
                    if marker in line and "line_of" not in line)


class Counter:
    def __init__(self) -> None:
        self.count = 0


def lost_update(locked: bool) -> Callable[[Scenario], Callable[[], None]]:
    """A setup: thread A makes a lock with ``threading.Lock()`` and starts a
    ``threading.Thread``; both bump a counter, under that lock if *locked*."""
    def setup(scenario: Scenario) -> Callable[[], None]:
        counter = Counter()

        def bump(lock: Any) -> None:
            if locked:
                with lock:
                    counter.count += 1
            else:
                counter.count += 1

        def main() -> None:
            lock = threading.Lock()
            helper = threading.Thread(target=bump, args=(lock,))
            helper.start()
            bump(lock)
            helper.join()

        scenario.thread(main)

        def check() -> None:
            assert counter.count == 2, f"count is {counter.count}"
        return check
    return setup


class Exploring(unittest.TestCase):
    def test_a_race_with_a_thread_the_code_starts_is_found(self) -> None:
        # Before: the helper ran outside blanket, its race unseen, and the
        # verdict said "not exhaustive: thread 'Thread-N' started outside
        # blanket; real Lock used at ..." with no failure.
        setup = lost_update(locked=False)
        result = explore(setup)
        self.assertIsNotNone(result.failure, result)
        assert result.failure is not None
        self.assertEqual(result.failure.kind, "invariant")
        steps = [str(step) for step in result.failure.schedule]
        self.assertEqual(steps[0], "A: A.1 Thread.start")
        # Shrunk: A's write and its join are left to the replay's rule.
        self.assertEqual(steps[-1], "A.1: A.1 Thread.exit")
        again = [str(step) for step in replay(setup, result.failure.schedule).steps]
        where = steps[1].split(" at ")[1]  # (A's read's place: its write's too)
        self.assertEqual(again[len(steps):], [f"A: write Counter.count at {where}",
                                              "A: A.1 Thread.join"])
        self.assertEqual(result.unseen, [])
        self.assertIn("'A: A.1 Thread.start'", result.failure.source)

    def test_the_locked_version_is_the_whole_space(self) -> None:
        result = explore(lost_update(locked=True))
        self.assertTrue(result.ok, result)
        self.assertTrue(result.exhausted, result)
        self.assertEqual(result.unseen, [])
        self.assertEqual(result.races, [])  # start and join order the accesses
        self.assertNotIn("not exhaustive", str(result))
        self.assertGreater(result.count, 1)

    def test_the_replay_of_the_failure_fails(self) -> None:
        result = explore(lost_update(locked=False))
        assert result.failure is not None
        replayed = replay(lost_update(locked=False), result.failure.schedule,
                                  timeout=BOUND)
        self.assertIsNotNone(replayed.failure, replayed)
        self.assertIsNone(replayed.diverged, replayed)
        fixed = replay(lost_update(locked=True), result.failure.schedule,
                               timeout=BOUND)
        self.assertIsNone(fixed.failure, fixed)

    def test_what_the_starter_did_before_and_a_join_order_the_accesses(self) -> None:
        def setup(scenario: Scenario) -> Callable[[], None]:
            box = Counter()
            seen: list[int] = []

            def child() -> None:
                box.count += 1  # after the parent's write, before its read

            def parent() -> None:
                box.count = 5
                helper = threading.Thread(target=child, name="child")
                helper.start()
                helper.join()
                seen.append(box.count)

            scenario.thread(parent)
            return lambda: self.assertEqual(seen, [6])

        result = explore(setup, races="fail")
        self.assertTrue(result.ok, result)
        self.assertTrue(result.exhausted, result)
        self.assertEqual(result.count, 1)

    def test_a_timed_join_waits_for_the_thread_in_time(self) -> None:
        alive: list[bool] = []

        def setup(scenario: Scenario) -> None:
            lock = scenario.Lock()

            def parent() -> None:
                helper = threading.Thread(target=lock.acquire)
                helper.start()
                helper.join(timeout=30)  # asleep in the real join, then woken
                alive.append(helper.is_alive())

            scenario.thread(parent)

        result = explore(setup)
        self.assertTrue(result.ok, result)
        self.assertTrue(result.exhausted, result)
        self.assertIn(False, alive)
        self.assertIn(("A", "A", "A.1", "A.1"), result.schedules)

    def test_a_thread_of_a_thread_and_its_error_are_the_runs(self) -> None:
        def setup(scenario: Scenario) -> None:
            def fail() -> None:
                raise ValueError("the grandchild failed")

            def child() -> None:
                grandchild = threading.Thread(target=fail)
                grandchild.start()
                grandchild.join()

            def parent() -> None:
                helper = threading.Thread(target=child)
                helper.start()
                helper.join()

            scenario.thread(parent)

        result = explore(setup)
        assert result.failure is not None, result
        self.assertEqual(result.failure.kind, "exception")
        self.assertIn("thread A.1.1 raised:", result.failure.message)
        self.assertIn("ValueError: the grandchild failed", result.failure.message)
        self.assertEqual(result.unseen, [])

    def test_every_maker_is_adopted(self) -> None:
        made: dict[str, bool] = {}

        def setup(scenario: Scenario) -> None:
            def make() -> None:
                kinds = {"Lock": threading.Lock(), "RLock": threading.RLock(),
                         "Condition": threading.Condition(),
                         "Semaphore": threading.Semaphore(2),
                         "BoundedSemaphore": threading.BoundedSemaphore(value=2),
                         "Event": threading.Event(), "Barrier": threading.Barrier(1),
                         "allocate_lock": _thread.allocate_lock(),
                         "_thread.RLock": _thread.RLock()}
                for name, made_one in kinds.items():
                    kind = name if hasattr(scenario, name) else \
                        ("Lock" if name == "allocate_lock" else "RLock")
                    made[name] = isinstance(made_one, getattr(scenario, kind))
                args: tuple[Any, ...] = ()
                keywords = {"target": made.clear}
                helper = threading.Thread(*args, **keywords)  # called with * and **
                made["Thread"] = isinstance(helper, AdoptedThread)

            scenario.thread(make)

        result = explore(setup, max_schedules=1)
        self.assertTrue(result.ok, result)
        self.assertEqual(made, dict.fromkeys(made, True))
        self.assertEqual(len(made), 10)


class NotAdopted(unittest.TestCase):
    def test_a_thread_subclass_is_still_named(self) -> None:
        class Worker(threading.Thread):
            pass

        def setup(scenario: Scenario) -> None:
            def main() -> None:
                worker = Worker(target=lambda: None, name="worker")
                worker.start()  # a subclass starts
                worker.join()

            scenario.thread(main)

        result = explore(setup)
        self.assertFalse(result.exhausted, result)
        self.assertEqual(result.unseen, [
            f"thread 'worker' started outside blanket at {HERE}:"
            f"{line_of('# a subclass starts')}",
            f"blocking call Thread.join at {HERE}:{line_of('worker.join()')}"])

    def test_code_not_watched_still_uses_the_real_classes(self) -> None:
        def unwatched() -> None:
            with threading.Lock():  # not watched: a real lock
                pass

        def setup(scenario: Scenario) -> None:
            scenario.thread(lambda: unwatched())

        result = explore(setup, exclude=[unwatched])
        self.assertFalse(result.exhausted, result)
        line = unwatched.__code__.co_firstlineno
        self.assertEqual(result.unseen, [
            f"real Lock used at {HERE}:{line_of('# not watched: a real lock')}",
            f"excluded from watching: {__name__}.{unwatched.__qualname__} (first "
            f"{unwatched.__qualname__} at tests/test_adopt.py:{line})"])

    def test_without_watching_nothing_is_adopted(self) -> None:
        def setup(scenario: Scenario) -> None:
            def main() -> None:
                with threading.Lock():  # races off: not watched
                    pass

            scenario.thread(main)

        result = explore(setup, races="off")
        self.assertEqual(result.unseen, [
            f"real Lock used at {HERE}:{line_of('# races off: not watched')}"])

    def test_a_setup_can_turn_it_off(self) -> None:
        def setup(scenario: Scenario) -> None:
            scenario.adopt = False

            def main() -> None:
                with threading.Lock():  # adoption turned off: a real lock
                    pass

            scenario.thread(main)

        result = explore(setup)
        self.assertEqual(result.unseen, [
            f"real Lock used at {HERE}:{line_of('# adoption turned off: a real lock')}"])

    def test_nothing_stays_patched(self) -> None:
        made: list[Any] = []

        def main() -> None:
            made.append(threading.Lock())

        original = main.__code__

        def setup(scenario: Scenario) -> None:
            scenario.thread(main)

        result = explore(setup)
        self.assertTrue(result.exhausted, result)
        self.assertIs(threading.Lock, REAL_LOCK)
        self.assertIs(main.__code__, original)
        main()  # outside any scenario
        self.assertIs(type(made[-1]), LOCK_TYPE)
        adopted = made[0]
        self.assertIsNot(type(adopted), LOCK_TYPE)  # a blanket Lock ...
        self.assertIs(adopted.__class__, LOCK_TYPE)  # ... masquerading as the real one
        if isinstance(threading.Lock, type):  # a class from 3.13 on
            self.assertIsInstance(adopted, threading.Lock)
        else:  # a function before: isinstance refuses it, for a real lock too
            with self.assertRaises(TypeError):
                isinstance(adopted, threading.Lock)  # type: ignore[arg-type]

    def test_an_injection_works_beside(self) -> None:
        module = types.ModuleType("cache_module")
        exec(compile(
            "import threading\n"
            "_lock = threading.Lock()\n"
            "total = [0]\n"
            "def add():\n"
            "    with _lock:\n"
            "        total[0] += 1\n"
            "def work():\n"
            "    helper = threading.Thread(target=add)\n"
            "    helper.start()\n"
            "    add()\n"
            "    helper.join()\n", "cache_module.py", "exec"), vars(module))
        real = module._lock

        def setup(scenario: Scenario) -> Callable[[], None]:
            module.total[0] = 0
            scenario.inject(module)
            scenario.thread(module.work)

            def check() -> None:
                assert module.total[0] == 2
            return check

        result = explore(setup)
        self.assertTrue(result.ok, result)
        self.assertTrue(result.exhausted, result)
        self.assertEqual(result.unseen, [])
        self.assertIs(module._lock, real)
        self.assertIs(module.threading, threading)


class PlainScenario(unittest.TestCase):
    def test_adopting_is_asked_for(self) -> None:
        self.assertFalse(Scenario().adopt)
        self.assertTrue(Scenario(adopt=True).adopt)
        scenario = Scenario(adopt=True)
        scenario.adopt = False
        self.assertFalse(scenario.adopt)
        with self.assertRaises(TypeError) as caught, unchecked():
            Scenario(adopt="yes")  # type: ignore[arg-type]
        self.assertIn("adopt is True or False, not 'yes'", str(caught.exception))

    def test_a_thread_started_mid_run_is_managed_and_its_join_parks(self) -> None:
        scenario = Scenario(adopt=True, timeout=BOUND)
        made: list[Any] = []

        def child() -> None:
            made.append(threading.Lock())

        def main() -> None:
            helper = threading.Thread(target=child, name="child")
            made.append(helper)
            helper.start()
            helper.join()
            empty = threading.Thread()
            empty.start()
            empty.join(0)

        a = scenario.thread(main)
        a.name = "A"
        with scenario:
            scenario.wait(a, timeout=BOUND)  # at its join
            tx = scenario.transaction(a)
            assert tx is not None
            helper = made[0]
            self.assertIn(helper, scenario.managed)
            self.assertEqual(repr(tx.primitive), "<blanket.ThreadHandle of 'child'>")
            self.assertIs(tx.state, State.BLOCKED)
            scenario.wait(Terminated(helper), timeout=BOUND)
            helper.join(BOUND)  # the scheduler's join: the real one
            self.assertFalse(helper.is_alive())
            tx.unblock()
            scenario.wait(tx, timeout=BOUND)
            scenario.wait(a, timeout=BOUND)  # at the join of the thread with no target
            empty = scenario.transaction(a)
            assert empty is not None
            self.assertEqual(repr(empty.primitive), "<blanket.ThreadHandle of 'A.1'>")
            empty.unblock()
            scenario.wait(Terminated(a), timeout=BOUND)
        self.assertIsInstance(made[1], scenario.Lock)
        self.assertEqual(len(scenario.managed), 3)

    def test_a_join_misused_raises_at_once(self) -> None:
        scenario = Scenario(adopt=True, timeout=BOUND)
        errors: list[str] = []

        def main() -> None:
            helper = threading.Thread(target=lambda: None)
            for join in (helper.join, threading.current_thread().join):
                try:
                    join()
                except RuntimeError as error:
                    errors.append(str(error))
            try:
                threading.Thread(group=object())
            except ValueError as error:
                errors.append(str(error))

        a = scenario.thread(main)
        with scenario:
            scenario.wait(Terminated(a), timeout=BOUND)  # nothing parks
        self.assertEqual(errors, ["cannot join thread before it is started",
                                  "cannot join current thread",
                                  "group argument must be None for now"])

    def test_a_thread_that_fails_to_start_is_not_waited_for(self) -> None:
        scenario = Scenario(adopt=True, timeout=BOUND)
        core = scenario._core

        def cannot_start() -> None:
            raise RuntimeError("can't start new thread")

        with scenario:
            thread = AdoptedThread(core, name="never")
            with self.assertRaises(RuntimeError):
                entry.launch(core, thread, cannot_start)
            self.assertNotIn(thread, scenario.managed)
            thread.start()
            with self.assertRaisesRegex(RuntimeError, "threads can only be started once"):
                thread.start()
            self.assertIn(thread, scenario.managed)

    def test_an_adopted_thread_outside_the_scenario_runs_as_a_thread(self) -> None:
        scenario = Scenario(adopt=True, timeout=BOUND)
        ran: list[str] = []
        thread = AdoptedThread(scenario._core, target=ran.append, args=("ran",),
                               name="loose")
        thread.start()
        thread.join(BOUND)
        self.assertEqual(ran, ["ran"])
        self.assertNotIn(thread, scenario.managed)
        self.assertEqual(thread._join_attempt(scenario._core, None, lambda t: t, 0), 0)
        # An exploration's scheduler starting one: not a step (it cannot park).
        scenario._core.start_in_turn = True
        with scenario:
            late = AdoptedThread(scenario._core, name="late")
            late.start()
        self.assertIn(late, scenario.managed)
        self.assertFalse(late.is_alive())


class Hooks(unittest.TestCase):
    """The call-site hook, in the cases no run of a scenario reaches."""

    def test_a_call_is_left_alone_outside_an_adopting_scenario(self) -> None:
        saved = sites._local.__dict__.copy()
        try:
            sites._local.__dict__.clear()  # the main thread: not a scenario's
            self.assertIs(sites.call_target(threading.Lock), threading.Lock)
            scenario = Scenario()
            sites._local.state = ([], scenario._watch)  # watching, not adopting
            self.assertIs(sites.call_target(threading.Lock), threading.Lock)
            scenario.adopt = True  # adopting, but not entered
            self.assertIs(sites.call_target(threading.Event), threading.Event)
            self.assertIs(sites.call_target(len), len)
        finally:
            sites._local.__dict__.clear()
            sites._local.__dict__.update(saved)

    def test_an_adopted_thread_is_watched_once_started(self) -> None:
        # Before: a thread the watched code made ran on a runner unwatched
        # (its blocking calls, its real primitives unseen; a worker asleep
        # in a queue "running" until the bound).
        def sleeper() -> None:
            time.sleep(0)

        def starts_a_sleeper(scenario: Scenario) -> None:
            def starter() -> None:
                made = threading.Thread(target=sleeper)
                made.start()
                made.join()
            scenario.thread(starter)

        result = explore(starts_a_sleeper)
        line = sleeper.__code__.co_firstlineno + 1
        self.assertIn(f"blocking call time.sleep at test_adopt.py:{line}", result.unseen)


def one_task(scenario: Scenario) -> None:
    """A submits one task to a thread pool of the standard library, takes
    its result and shuts the pool down: correct code. (The pool's module,
    which concurrent.futures imports at its first use, is imported with
    this module: in the first run, under typeguard on a loaded machine, the
    import alone outlasted the test's 1 s bound.)"""
    def submits() -> None:
        pool = concurrent.futures.ThreadPoolExecutor(1)
        assert pool.submit(int).result() == 0
        pool.shutdown()

    scenario.thread(submits)


def waits_for_work(scenario: Scenario) -> None:
    """A and C wait for work in a SimpleQueue nobody puts into; B takes a lock."""
    work: queue.SimpleQueue[object] = queue.SimpleQueue()
    lock = scenario.Lock()

    def worker() -> None:
        work.get()

    def other() -> None:
        with lock:
            pass

    scenario.thread(worker)
    scenario.thread(other)
    scenario.thread(worker)


class ThreadPools(unittest.TestCase):
    """A ThreadPoolExecutor's worker is the scenario's: named in every run
    alike (its own name comes from a process-wide counter), watched, and
    asleep for good waiting for work in its SimpleQueue while no other
    thread can put. Before: a deadlock reported of this correct code (a try
    of a semaphore with a zero timeout slept for ever holding the pool's
    global lock), then a stall (the worker unwatched, "running"); then, on
    3.13 and 3.13t, a deadlock again: shutdown's put handed its None
    straight to the worker asleep in its get, the queue stayed empty, and
    the worker was taken for asleep still while its join waited."""

    def test_correct_use_is_no_failure_and_the_blocking_get_is_named(self) -> None:
        # (Before: the worker given up on at the end of a run cut short
        # logged the Abandoned it caught, "Exception in worker" and its
        # traceback, on stderr.)
        logging.getLogger(quiet.POOL_LOGGER).removeFilter(quiet.not_given_up)
        with self.assertNoLogs(quiet.POOL_LOGGER):
            result = explore(one_task, timeout=1.0)
        self.assertTrue(result.ok, result)
        self.assertFalse(result.exhausted)
        self.assertTrue(any(note.startswith("blocking call SimpleQueue.get at thread.py:")
                            for note in result.unseen), result.unseen)
        self.assertGreater(result.count, 1)

    def test_the_pool_s_logger_drops_what_a_worker_given_up_on_caught_only(self) -> None:
        logger = logging.getLogger(quiet.POOL_LOGGER)
        logger.removeFilter(quiet.not_given_up)
        with mock.patch.dict(sys.modules, {"concurrent.futures": None}):
            del sys.modules["concurrent.futures"]
            quiet.quiet_pools()  # no pool can have been made: logging left alone
        self.assertNotIn(quiet.not_given_up, logger.filters)
        quiet.quiet_pools()  # (as when a thread is first given up on)
        with self.assertLogs(logger) as logs:
            for error in (Abandoned("given up"), ValueError("the code's own")):
                try:
                    raise error
                except BaseException:
                    logger.critical("Exception in worker", exc_info=True)
            logger.critical("no exception")
        self.assertEqual([(record.getMessage(), record.exc_info and record.exc_info[0])
                          for record in logs.records],
                         [("Exception in worker", ValueError), ("no exception", None)])

    def test_a_get_nothing_will_feed_is_stuck_and_woken_after(self) -> None:
        before = set(threading.enumerate())
        result = explore(waits_for_work)
        assert result.failure is not None, result
        self.assertEqual(result.failure.kind, "deadlock")
        self.assertRegex(result.failure.message, r"stuck, with nothing left to wake them: A "
                         r"waits in real SimpleQueue 0X[0-9A-F]+\.get \(at .+, outside "
                         r"blanket\) for a put; C waits in real SimpleQueue")
        self.assertEqual(set(threading.enumerate()) - before, set())  # woken with a None

    def test_a_get_of_an_empty_queue_is_named_and_told_to_the_sleepers(self) -> None:
        unseen, work = Unseen(), queue.SimpleQueue()  # type: ignore[var-annotated]
        with unchecked():
            unseen._uses(frame_in("/src/pool.py", line=7), "c_call", work.get)
            unseen._uses(frame_in("/src/pool.py", line=8), "c_call", work.put)  # no get
            work.put(1)
            unseen._uses(frame_in("/src/pool.py", line=9), "c_call", work.get)  # not empty
        self.assertEqual(unseen.notes, ["blocking call SimpleQueue.get at pool.py:7"])

    def test_a_put_wakes_a_sleeper_of_the_queue_until_a_get_takes_an_item(self) -> None:
        # Before: a thread asleep in the get of an empty queue was asleep
        # for good whatever was put, but from 3.13 on a put hands its item
        # straight to the sleeper, and the queue stays empty.
        unseen, work = Unseen(), queue.SimpleQueue()  # type: ignore[var-annotated]
        other = queue.SimpleQueue()  # type: ignore[var-annotated]
        here = frame_in("/src/pool.py", line=7)
        sleepers.acquiring[-1] = (threading.current_thread(), "SimpleQueue", work, "pool.py:7")
        try:
            with unchecked():
                unseen._uses(here, "c_call", other.put)  # nobody sleeps in it
                self.assertEqual(sleepers.woken, {})
                self.assertTrue(sleepers.held(work))
                unseen._uses(here, "c_call", work.put)
                unseen._uses(here, "c_call", work.put_nowait)
                self.assertEqual(sleepers.woken, {id(work): (work, 2)})
                self.assertFalse(sleepers.held(work))  # empty, yet its sleepers wake
                unseen._uses(here, "c_exception", work.get_nowait)  # it took nothing
                unseen._uses(here, "c_return", other.get)  # not its get
                unseen._uses(here, "c_return", work.put)  # not a get
                self.assertEqual(sleepers.woken, {id(work): (work, 2)})
                unseen._uses(here, "c_return", work.get)
                self.assertEqual(sleepers.woken, {id(work): (work, 1)})
                unseen._uses(here, "c_return", work.get_nowait)
                self.assertEqual(sleepers.woken, {})
                self.assertTrue(sleepers.held(work))  # asleep again
                unseen._uses(here, "c_return", work.get)  # nothing counted: nothing taken
                self.assertEqual(sleepers.woken, {})
                del sleepers.acquiring[-1]
                unseen._uses(here, "c_call", work.put)  # nobody acquiring anything
                self.assertEqual(sleepers.woken, {})
        finally:
            sleepers.acquiring.pop(-1, None)
            sleepers.woken.clear()

    def test_a_sleeper_that_got_its_item_is_no_longer_acquiring_before_the_put_is_taken(
            self) -> None:
        # Before: the put was taken first, and for a moment (seen on 3.13t,
        # about a search in ten) the thread that got the item looked asleep
        # still in the empty queue: a deadlock of the correct pool.
        work = queue.SimpleQueue()  # type: ignore[var-annotated]
        me = threading.get_ident()
        sleepers.acquiring[me] = (threading.current_thread(), "SimpleQueue", work, "pool.py:7")
        sleepers.put(work)
        acquiring_when_taken: list[bool] = []
        taken = sleepers._taken

        def taking(taken_from: Any) -> None:
            acquiring_when_taken.append(me in sleepers.acquiring)
            taken(taken_from)

        try:
            with unchecked(), mock.patch.object(sleepers, "_taken", taking):
                sleepers.real_return(work.get)
            self.assertEqual(acquiring_when_taken, [False])
            self.assertEqual(sleepers.woken, {})
        finally:
            sleepers.acquiring.pop(me, None)
            sleepers.woken.clear()

    def test_the_wake_of_a_sleeper_given_up_on_is_counted(self) -> None:
        # free_real's put of a None hands it to the sleeper (3.13) as any put.
        work = queue.SimpleQueue()  # type: ignore[var-annotated]
        sleepers.acquiring[-1] = (threading.current_thread(), "SimpleQueue", work, "pool.py:7")
        try:
            progress.free_real("SimpleQueue", work)
            self.assertEqual(sleepers.woken, {id(work): (work, 1)})
            self.assertIsNone(work.get_nowait())
        finally:
            sleepers.acquiring.pop(-1, None)
            sleepers.woken.clear()

def joins_a_parked_thread(holding: bool) -> Callable[[Scenario], None]:
    """A starts a thread of a subclass of Thread (not adopted: it runs
    outside blanket) that takes a lock of the scenario, and joins it; with
    *holding*, A holds the lock meanwhile: a deadlock."""
    def setup(scenario: Scenario) -> None:
        lock = scenario.Lock()

        class Worker(threading.Thread):
            def run(self) -> None:
                with lock:
                    pass

        def main() -> None:
            worker = Worker(name="W")
            if holding:
                with lock:
                    worker.start()
                    worker.join()  # (deadlock)
            else:
                worker.start()
                worker.join()  # (join)

        scenario.thread(main)
    return setup


def join_frame(code: Any, caller: str, local: dict[str, Any]) -> Any:
    """A stand-in for threading's frame *code* (with *local* variables) of a
    join called at *caller* (a file), through threading's own join."""
    user = frame_in(caller, line=5)
    join = types.SimpleNamespace(f_code=threadingcode.JOIN, f_back=user, f_lineno=1, f_locals={})
    back = join if code is not threadingcode.JOIN else user
    return types.SimpleNamespace(f_code=code, f_back=back, f_lineno=1, f_locals=local)


class RealJoins(unittest.TestCase):
    """A Thread.join with no timeout of a thread blanket did not start (one
    the code made before its code was watched, as a pool's worker in the
    first runs) sleeps until that thread ends: when it is parked, nothing
    moves until the scheduler acts. Before: the joiner was taken for
    running, and the run waited its bound out (twice, the first run of a
    ThreadPoolExecutor's search) and said it stalled."""

    def test_a_join_of_a_parked_thread_lets_the_scheduler_go_on(self) -> None:
        result = explore(joins_a_parked_thread(False))
        self.assertTrue(result.ok, result)
        self.assertIn(f"blocking call Thread.join at {HERE}:{line_of('(join)')}", result.unseen)

    def test_a_join_of_a_thread_waiting_for_the_joiner_is_a_deadlock(self) -> None:
        result = explore(joins_a_parked_thread(True))
        assert result.failure is not None, result
        self.assertEqual(result.failure.kind, "deadlock", result.failure.message)
        self.assertIn(f"deadlock: A holds Lock 1 and waits in Thread.join of W (at "
                      f"{HERE}:{line_of('(deadlock)')}, outside blanket); W waits for Lock 1",
                      result.failure.message)

    def test_the_profile_tells_of_a_join_with_no_timeout_by_code_not_blanket_s(self) -> None:
        joined, lock = threading.Thread(), threading.Lock()
        tstate_wait = types.SimpleNamespace(co_filename=unseen._THREADING, co_name="wait",
                                            co_qualname="wait")
        shutdown = types.SimpleNamespace(co_filename=unseen._THREADING, co_name="_shutdown",
                                         co_qualname="_shutdown")

        class Handle:  # what 3.13's Thread.join sleeps in
            def join(self, timeout: object = None) -> None:
                """(never called)"""

        handle, me = Handle(), threading.get_ident()
        waits = [  # (the frame, the builtin, whether told)
            (join_frame(tstate_wait, "/src/x.py", {"self": joined, "block": True,
                                                   "timeout": -1}),
             lock.acquire, True),
            (join_frame(tstate_wait, "/src/x.py", {"self": joined, "block": True,
                                                   "timeout": 0}),
             lock.acquire, False),  # a timeout: it wakes by itself
            (join_frame(tstate_wait, "/src/x.py", {"self": joined, "block": True,
                                                   "timeout": -1}),
             lock.release, False),  # not its sleep
            (join_frame(threadingcode.JOIN, "/src/x.py", {"self": joined, "timeout": None}),
             handle.join, True),
            (join_frame(threadingcode.JOIN, "/src/x.py", {"self": joined, "timeout": 1}),
             handle.join, False),
            (join_frame(shutdown, "/src/x.py", {}), handle.join, False),  # not a join's
            (join_frame(threadingcode.JOIN, unseen._THREADING, {"self": joined, "timeout": None}),
             handle.join, False),  # threading's own, all the way
            (join_frame(threadingcode.JOIN, unseen.BLANKET_FOLDER + "adopt.py",
                        {"self": joined, "timeout": None}), handle.join, False),  # blanket's
        ]
        thread = threading.current_thread()
        thread._blanket_core = Scenario()._core  # type: ignore[attr-defined]
        told = []
        try:
            with unchecked(), mock.patch.object(unseen, "TSTATE_WAIT", tstate_wait), \
                    mock.patch.object(unseen, "THREAD_HANDLE", Handle):
                for frame, wait, _ in waits:
                    unseen.Unseen()._uses(frame, "c_call", wait)
                    told.append(me in sleepers.acquiring)
                    if told[-1]:
                        self.assertEqual(sleepers.acquiring[me],
                                         (thread, "Thread", wait.__self__, "x.py:5"))
                        self.assertIs(sleepers.joining[id(wait.__self__)], joined)
                        sleepers.real_return(wait)
                        self.assertEqual((sleepers.acquiring, sleepers.joining), ({}, {}))
                thread._blanket_core.abandoned.add(thread)  # type: ignore[attr-defined]
                unseen.Unseen()._uses(waits[0][0], "c_call", lock.acquire)  # it unwinds
                self.assertEqual(sleepers.acquiring, {})
        finally:
            del thread._blanket_core  # type: ignore[attr-defined]
            sleepers.acquiring.clear()
            sleepers.joining.clear()
        self.assertEqual(told, [expected for _, _, expected in waits])
        sleepers.real_join(lock.acquire, joined, "x.py:5")  # not a scenario's thread
        self.assertEqual((sleepers.acquiring, sleepers.joining), ({}, {}))

    def test_a_joiner_sleeps_while_the_thread_joined_is_alive(self) -> None:
        scenario = Scenario()
        core = scenario._core
        lock, release = threading.Lock(), threading.Event()
        joined = threading.Thread(target=release.wait, args=(BOUND,))
        joiner = threading.current_thread()
        sleepers.joining[id(lock)] = joined
        sleepers.acquiring[threading.get_ident()] = (joiner, "Thread", lock, "x.py:5")
        try:
            self.assertFalse(sleepers.held(lock))  # not started yet
            joined.start()
            self.assertTrue(sleepers.held(lock))
            with core.lock:  # the thread joined is not the scenario's: not known
                self.assertIsNone(progress._real_holder(core, "Thread", lock))
            self.assertEqual(report.thread_status(core, joiner), "in Thread.join at x.py:5, "
                             "outside blanket (only the thread's end wakes it)")
            progress.free_real("Thread", lock)  # nothing to release: its end wakes it
            self.assertFalse(lock.locked())
        finally:
            release.set()
            joined.join(BOUND)
            sleepers.acquiring.clear()
            sleepers.joining.clear()


if __name__ == "__main__":  # pragma: no cover
    unittest.main()
