"""A setup that is not deterministic (issue 21): the depth-first search
stops, naming the first call that differed, where in the code each side's
call was made and which runs had them, and how to make a setup
deterministic; the random strategies' depth-first pass stops the same way,
and their result says it is not exhaustive."""

from __future__ import annotations

import gc
import inspect
import itertools
import re
import threading
import unittest
import weakref
from collections.abc import Callable
from typing import Any
from unittest import mock

import blanket
from blanket import Scenario
from blanket.exploration.dfs import HOW_TO_BE_DETERMINISTIC, NotDeterministic, _said

from .support import quiet_thread_errors

BOUND = 5.0  # every wait of these tests ends well within it
HERE = "tests/test_explore_determinism.py"


def line_of(function: Callable[..., Any], text: str) -> int:
    """The line of *function*'s source holding *text*."""
    lines, first = inspect.getsourcelines(function)
    return first + next(n for n, line in enumerate(lines) if text in line)


#: How many runs the module-level setups below have made: state the
#: module keeps from one run to the next (what a setup must not depend on).
RUNS = itertools.count()
THREADS: list[threading.Thread] = []


def counted(scenario: Scenario) -> None:
    """B takes another lock from the second run on: a module-level counter
    decides."""
    first, second = scenario.Lock(), scenario.Lock()

    def section(lock: Any) -> None:
        with lock:  # the call that differs
            pass

    THREADS.append(scenario.thread(section, first))
    THREADS.append(scenario.thread(section, first if next(RUNS) == 0 else second))


class Handler:
    """A handler, as logging's keep one: each with a lock of its own."""

    def __init__(self, lock: Any) -> None:
        self.lock = lock

    def emit(self) -> None:
        with self.lock:  # each handler's lock
            pass


#: A process-wide registry, as logging's handlers of a logger are.
HANDLERS: list[Handler] = []


def registering(scenario: Scenario) -> None:
    """Each run adds a handler to the process-wide list (and gives every
    handler in it a lock of this run's), and the threads log through every
    handler, the newest first: the second run's first call is on the second
    handler's lock, where the first run's was on the first's."""
    HANDLERS.append(Handler(None))
    for handler in HANDLERS:
        handler.lock = scenario.Lock()

    def log() -> None:
        for handler in reversed(HANDLERS):
            handler.emit()

    scenario.thread(log)
    scenario.thread(log)


class TheDepthFirstSearch(unittest.TestCase):
    def setUp(self) -> None:
        global RUNS
        RUNS = itertools.count()
        THREADS.clear()
        HANDLERS.clear()

    def explore(self, setup: Callable[[Scenario], Any], **options: Any) -> str:
        with self.assertRaises(NotDeterministic) as caught, quiet_thread_errors():
            # Bounded: a difference the search missed would grow every run.
            blanket.explore(setup, timeout=BOUND, max_schedules=50, **options)
        # The run it gave up on is torn down: no thread is left parked.
        for thread in THREADS:
            thread.join(BOUND)
            self.assertFalse(thread.is_alive(), thread)
        return str(caught.exception)

    def test_it_names_the_call_that_differed_and_where(self) -> None:
        # Before: "... gave other calls to choose from at step 1", and nothing
        # of which call, where, or why.
        message = self.explore(counted)
        line = line_of(counted, "# the call that differs")
        self.assertEqual(message.splitlines(), [
            "the scenario is not deterministic: replaying the same choices met other calls "
            "to choose from at step 1; the first that differed, B's: run 1 had B: Lock 1 "
            f"Lock.acquire at {HERE}:{line}, run 2 met B: Lock 2 Lock.acquire at {HERE}:{line}",
            f"  the calls run 1 had: A: Lock 1 Lock.acquire at {HERE}:{line}; "
            f"B: Lock 1 Lock.acquire at {HERE}:{line}",
            f"  the calls run 2 met: A: Lock 1 Lock.acquire at {HERE}:{line}; "
            f"B: Lock 2 Lock.acquire at {HERE}:{line}",
            HOW_TO_BE_DETERMINISTIC])
        self.assertIn("not at import time", message)
        self.assertIn("process-wide registries (other than logging's", message)

    def test_a_process_wide_registry(self) -> None:
        message = self.explore(registering)
        line = line_of(Handler.emit, "# each handler's lock")
        # (The lock's number is the run's: a run before the search restarted,
        # to watch code it met, made one too.)
        self.assertRegex(message, re.escape("at step 1; the first that differed, A's: run 1 had "
                                            "A: Lock ") + r"(\d+)" + re.escape(
            f" Lock.acquire at {HERE}:{line}, run 2 met A: Lock ") + r"(?!\1)\d+" + re.escape(
            f" Lock.acquire at {HERE}:{line}"))

    def test_a_thread_with_no_call_there(self) -> None:
        # From the second run on, B ends before its first call.
        def leaving(scenario: Scenario) -> None:
            lock = scenario.Lock()
            run = next(RUNS)

            def section(leave: bool) -> None:
                if leave:
                    return
                with lock:
                    pass

            scenario.thread(section, False)
            scenario.thread(section, run > 0)

        message = self.explore(leaving)
        self.assertIn("the first that differed, B's: run 1 had B: Lock 1 Lock.acquire at "
                      f"{HERE}:", message)
        self.assertIn(", run 2 met no call of B's\n", message)

    def test_a_call_the_thread_made_from_blanket_s_own_code(self) -> None:
        # B's target is the primitive's method: no frame of the thread is the
        # caller's, so where its call was made is not known.
        def direct(scenario: Scenario) -> None:
            lock, slots = scenario.Lock(), scenario.Semaphore(0)
            scenario.thread(lock.acquire)
            scenario.thread(slots.release if next(RUNS) == 0 else lock.acquire)

        message = self.explore(direct)
        self.assertIn("run 1 had B: Semaphore 1 Semaphore.release (where in the code: not "
                      "known), run 2 met B: Lock 1 Lock.acquire (where in the code: not known)",
                      message)

    def test_a_call_first_met_after_the_first_run(self) -> None:
        # Where each call was made is recorded in the search's first run
        # only (it stops the world on a free-threaded build): a node made by
        # a later run names its calls without their place.
        def later(scenario: Scenario) -> None:
            first, second = scenario.Lock(), scenario.Lock()
            run, log = next(RUNS), []

            def sections() -> None:
                for k in range(2):
                    with second if run >= 3 and k == 1 else first:
                        log.append(k)

            scenario.thread(sections)
            scenario.thread(sections)

        message = self.explore(later)
        self.assertIn("run 3 had B: Lock 1 Lock.acquire (where in the code: not known), "
                      "run 4 met B: Lock 2 Lock.acquire at ", message)

    def test_an_access_names_its_place_itself(self) -> None:
        # (what a call's step says of it: thread, call, primitive, state, where)
        access = ("A", "Memory.write", "Box.value", "BLOCKED", "shop.py:3")
        self.assertEqual(_said((0, access, "go", "")), "A: write Box.value at shop.py:3")
        expiring = ("B", "Lock.acquire", "Lock 1", "BLOCKED", "")
        self.assertEqual(_said((3, expiring, "expire", "shop.py:9")),
                         "B: Lock 1 Lock.acquire (expired) at shop.py:9")

    def test_it_is_a_runtime_error(self) -> None:
        self.assertTrue(issubclass(NotDeterministic, RuntimeError))


def every_third(scenario: Scenario) -> None:
    """B takes another lock in every third run (the samples' and the pass's
    runs alternate: the pass meets both)."""
    first, second = scenario.Lock(), scenario.Lock()

    def section(lock: Any) -> None:
        with lock:
            pass

    scenario.thread(section, first)
    scenario.thread(section, first if next(RUNS) % 3 else second)


class Made:
    """An object a run's thread makes, known to a process-wide registry
    that holds it weakly (as tqdm's class keeps its bars in a WeakSet)."""

    registry: weakref.WeakSet[Made] = weakref.WeakSet()

    def __init__(self) -> None:
        Made.registry.add(self)


def noting_what_is_left(setup: Callable[[Scenario], Any]
                        ) -> tuple[Callable[[Scenario], Any], list[int]]:
    """*setup*, which notes before each run how many objects earlier runs
    left in :attr:`Made.registry` once the garbage is collected (none, when
    each run's objects go with it); and the list of those counts."""
    left: list[int] = []

    def noted(scenario: Scenario) -> Any:
        gc.collect()
        left.append(len(Made.registry))
        return setup(scenario)
    return noted, left


class WhatIsLeft(unittest.TestCase):
    def assertNothingLeft(self, left: list[int], runs: int) -> None:
        """More than *runs* runs were made, and none found an earlier run's
        object left."""
        self.assertGreater(len(left), runs)
        self.assertEqual(left, [0] * len(left))


def waiter(scenario: Scenario) -> None:
    """A thread makes an object, then waits for an event nobody sets, with
    a timeout: one run leaves it waiting (its timeout disregarded, that
    run is cut short: the run where it expires covers it), given up on
    while it holds what it made."""
    event = scenario.Event()

    def make_and_wait() -> None:
        made = Made()
        event.wait(timeout=5.0)
        del made

    scenario.thread(make_and_wait)
    scenario.thread(make_and_wait)


class EachRunsObjectsGoWithIt(WhatIsLeft):
    """Before, the runner a managed thread ran on kept it (and its run's
    log, the calls' arguments, a thread given up's traceback and frames)
    until it was given another: an object a run made was still in a weak
    registry when a later run's setup looked (tqdm 4.32.1's bars: the
    search met other calls, "not deterministic")."""

    def test_a_later_run_s_setup_finds_nothing_an_earlier_run_made(self) -> None:
        setup, left = noting_what_is_left(waiter)
        result = blanket.explore(setup, timeout=BOUND)
        self.assertTrue(result.exhausted, result)
        self.assertNothingLeft(left, 2)


class Shown(Made):
    """A registered object with a property: its getter is entered from C
    code, so the first run meets it running unwatched."""

    @property
    def size(self) -> int:
        return 1


def reader(scenario: Scenario) -> None:
    """Two threads each make a registered object and read its property."""
    sizes = []

    def make_and_read() -> None:
        sizes.append(Shown().size)

    scenario.thread(make_and_read)
    scenario.thread(make_and_read)


class TheFirstRunsWatchGoesWithIt(WhatIsLeft):
    """Before, the exploration kept the watch of the run where it first met
    a function running unwatched (here the property's getter), and with it
    what that run's threads recorded: the objects they accessed. Each later
    run's setup found the first run's objects in a weak registry (rich's
    consoles: their thread-local objects, alive at the end, made the whole
    search run again)."""

    def test_a_later_run_s_setup_finds_nothing_it_made(self) -> None:
        setup, left = noting_what_is_left(reader)
        result = blanket.explore(setup, timeout=BOUND)
        self.assertTrue(result.exhausted, result)
        self.assertNothingLeft(left, 2)


class Box:
    """What two threads of :func:`raiser` update without a lock."""

    value = 0


def raiser(scenario: Scenario) -> None:
    """Each thread makes an object, updates a shared attribute and raises:
    the first run meets the attribute's race (its accesses are no steps
    yet), so its failure is kept while the search goes on with them as
    steps."""
    box = Box()

    def make_and_raise() -> None:
        made = Made()  # in the frame the exception's traceback holds
        box.value += 1
        raise ValueError(f"made {type(made).__name__}")

    scenario.thread(make_and_raise)
    scenario.thread(make_and_raise)


class AFailureKeptDoesNotKeepItsRun(WhatIsLeft):
    """Before, the first run's failure, met while its accesses were no
    steps yet, was kept as the run itself until the search ended: its
    threads' exceptions, their frames, what they made. The next runs'
    setups found it in a weak registry (tqdm 4.32.1: a bar of a run over,
    met by the next run's ``close``, made a failure no written test
    replays)."""

    def test_the_next_run_s_setup_finds_nothing_it_made(self) -> None:
        setup, left = noting_what_is_left(raiser)
        # (Thread errors dropped, not collected: collected, they keep frames.)
        with mock.patch.object(threading, "excepthook", lambda args: None):
            result = blanket.explore(setup, timeout=BOUND)
        self.assertIsNotNone(result.failure)
        assert result.failure is not None
        self.assertIn("ValueError: made Made", result.failure.message)
        self.assertNothingLeft(left, 1)


class TheRandomStrategies(unittest.TestCase):
    def test_their_pass_stops_and_they_say_it(self) -> None:
        # The samples go on (each run is a run of the program), but the pass
        # beside them stops: the result is not exhaustive, and says why.
        for strategy in ("random", "pct"):
            with self.subTest(strategy):
                global RUNS
                RUNS = itertools.count()
                with quiet_thread_errors():
                    result = blanket.explore(every_third, strategy=strategy, max_schedules=10,
                                             timeout=BOUND)
                self.assertFalse(result.exhausted)
                self.assertEqual(len(result.schedules), 10)
                self.assertLess(result.depth_first_runs, 10)
                # Every run counted, the pass's last (torn down half-way) too.
                self.assertEqual(result.runs, 10 + result.depth_first_runs)
                self.assertEqual(len(result.unseen), 1, result)
                self.assertTrue(result.unseen[0].startswith(
                    "the scenario is not deterministic: replaying the same choices"))
                self.assertTrue(result.unseen[0].endswith(
                    "(the depth-first pass beside the samples stopped there)"))
                self.assertIn("; not exhaustive: the scenario is not deterministic", str(result))


if __name__ == "__main__":  # pragma: no cover
    unittest.main()
