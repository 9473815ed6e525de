"""blanket.explore, what it refuses and what it owns up to: arguments of
the wrong type or value refused at the call, timed waits that end with the
run, and the verdict naming what the run could not see (threads and real
primitives outside blanket's control)."""

from __future__ import annotations

import _thread
import cProfile
import functools
import math
import pstats
import sys
import threading
import time
import unittest
import unittest.mock
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import blanket
from blanket import Scenario
from blanket.exploration import monitor, unseen
from blanket.exploration.unseen import Unseen
from blanket.primitives import _wait_for

from .support import unchecked
from .test_explore import BOUND, explore, two_sections


class Arguments(unittest.TestCase):
    def assert_refused(self, error: type[Exception], says: str, *args: Any,
                       **options: Any) -> None:
        started = time.monotonic()
        with self.assertRaises(error) as caught, unchecked():
            blanket.explore(*(args or (two_sections,)), **options)
        self.assertIn(says, str(caught.exception))
        self.assertLess(time.monotonic() - started, 1.0)  # at the call, no run

    def test_counts_that_are_not_ints_are_refused(self) -> None:
        # nan compares false with everything: it ran nothing and said ok.
        self.assert_refused(TypeError, "max_schedules=nan: expected an int",
                            max_schedules=math.nan)
        self.assert_refused(TypeError, "max_schedules='5': expected an int", max_schedules="5")
        self.assert_refused(TypeError, "max_schedules=True: expected an int",
                            max_schedules=True)
        self.assert_refused(TypeError, "max_preemptions=nan: expected an int or None",
                            max_preemptions=math.nan)
        self.assert_refused(TypeError, "depth=2.0: expected an int", depth=2.0)
        self.assert_refused(TypeError, "split_depth='2': expected an int", split_depth="2")
        self.assert_refused(ValueError, "split_depth=0: expected at least 1", split_depth=0)

    def test_a_setup_that_is_not_callable_is_refused(self) -> None:
        self.assert_refused(TypeError, "explore: setup=5 is not callable", 5)

    def test_strategy_seed_timeout_and_name_of_the_wrong_type_are_refused(self) -> None:
        self.assert_refused(TypeError, "strategy=1: expected one of dfs, random, pct",
                            strategy=1)
        self.assert_refused(TypeError, "seed='1': expected an int", seed="1")
        self.assert_refused(TypeError, "seed=1.5: expected an int", seed=1.5)
        self.assert_refused(TypeError, "explore's timeout is a number of seconds, not '1'",
                            timeout="1")
        self.assert_refused(TypeError, "explore's timeout is a number of seconds, not True",
                            timeout=True)
        for bad in (0, -1.0, math.nan, math.inf, 1e300):
            with self.subTest(timeout=bad):
                self.assert_refused(ValueError, "explore's timeout is a finite number of "
                                    f"seconds, more than 0 and at most threading.TIMEOUT_MAX "
                                    f"({threading.TIMEOUT_MAX:.0f}), not {bad!r}", timeout=bad)
        self.assert_refused(TypeError, "name=3: expected a str or None", name=3)

    def test_shards_of_the_wrong_type_are_refused(self) -> None:
        for shard in (5, (1, "2"), (1, 2, 3), [1, 2], (True, 1), (1.0, 2)):
            with self.subTest(shard=shard):
                self.assert_refused(TypeError, f"shard={shard!r}: expected 'i/n' or a tuple",
                                    shard=shard)


class TimedWaits(unittest.TestCase):
    def test_an_expired_wait_for_returns_false_and_the_search_ends(self) -> None:
        # The standard library's wait_for measured the time left with the
        # clock, which an expired wait does not move: it waited again, and
        # every expiry offered one more choice (50 of 50 schedules before).
        results: list[object] = []

        def wait_for_a_flag(scenario: Scenario) -> None:
            condition = scenario.Condition()
            flag: list[int] = []

            def waiter() -> None:
                with condition:
                    results.append(condition.wait_for(lambda: bool(flag), timeout=BOUND))

            def setter() -> None:
                with condition:
                    flag.append(1)
                    condition.notify()

            scenario.thread(waiter)
            scenario.thread(setter)

        result = explore(wait_for_a_flag, max_schedules=50)
        self.assertTrue(result.exhausted, result)
        self.assertEqual(result.count, 4, result.schedules)
        self.assertIn(("A", "A", "A*", "A", "A", "B", "B", "B"), result.schedules)
        self.assertEqual(sorted(results, key=str), [False, True, True, True])

    def test_a_wait_for_notified_after_its_time_is_up_ends(self) -> None:
        class Notified:  # a condition whose every wait is notified at once
            waits = 0

            def wait(self, timeout: float | None) -> bool:
                self.waits += 1
                return True

        condition = Notified()
        with unchecked():
            self.assertFalse(_wait_for(condition, lambda: False, 0.0))  # type: ignore[arg-type]
        self.assertEqual(condition.waits, 1)
        # Woken in time but the predicate still false: it waits again.
        again = Notified()
        with unchecked():
            self.assertTrue(_wait_for(again, lambda: again.waits == 2, BOUND))  # type: ignore[arg-type]
        self.assertEqual(again.waits, 2)

    def test_an_abandoned_run_wakes_a_disregarded_timed_event_wait(self) -> None:
        DISREGARDED = 60.0  # noqa: N806 - the waiter's timeout, which explore disregards
        def gated(scenario: Scenario) -> None:
            event, lock = scenario.Event(), scenario.Lock()

            def waiter() -> None:
                with lock:
                    pass
                event.wait(DISREGARDED)
                with lock:
                    pass

            def setter() -> None:
                for _ in range(2):
                    with lock:
                        pass
                event.set()

            def section() -> None:
                with lock:
                    pass

            scenario.thread(waiter)
            scenario.thread(setter)
            scenario.thread(section)

        before = set(threading.enumerate())
        started = time.monotonic()
        result = explore(gated)
        # Far below the wait's own timeout (not a bound on blanket's speed:
        # a run that waited it out would take a minute by itself).
        self.assertLess(time.monotonic() - started, DISREGARDED / 2)
        self.assertTrue(result.exhausted, result)
        self.assertGreater(result.runs, result.count)  # some runs were cut short
        self.assertEqual([t for t in threading.enumerate() if t not in before], [])


# Real primitives made at import time, as a module under test would.
REAL = {"Lock": threading.Lock(), "RLock": threading.RLock(),
        "Condition": threading.Condition(), "Semaphore": threading.Semaphore(),
        "BoundedSemaphore": threading.BoundedSemaphore(), "Event": threading.Event()}
HERE = "test_explore_verdict.py"


def line_of(marker: str) -> int:
    """The line of this file holding *marker* in a comment."""
    with open(__file__, encoding="utf-8") as source:
        return next(n for n, line in enumerate(source, 1) if line.rstrip().endswith(marker))


def excluded(function: Any) -> str:
    """The note naming *function* as excluded from watching, met in its
    first line."""
    return (f"excluded from watching: {__name__}.{function.__qualname__} (first "
            f"{function.__qualname__} at tests/{HERE}:{function.__code__.co_firstlineno})")


def sections_and(extra: Any, *, times: int = 1) -> Any:
    """A setup: two threads taking a scenario lock, each calling *extra*
    once *times* among its sections."""
    def setup(scenario: Scenario) -> None:
        lock = scenario.Lock()

        def work() -> None:
            for _ in range(times):
                with lock:
                    pass
            extra()
            with lock:
                pass

        scenario.thread(work)
        scenario.thread(work)
    return setup


def no_thread(scenario: Scenario) -> Callable[[], None]:
    scenario.Lock()

    def invariant() -> None:
        pass
    return invariant


def judged_sections(scenario: Scenario) -> Callable[[], None]:
    two_sections(scenario)

    def invariant() -> None:
        pass
    return invariant


class WhatCouldFail(unittest.TestCase):
    """A verdict that checked nothing says so (issue 33)."""

    def test_a_setup_with_no_thread_ran_nothing(self) -> None:
        result = explore(no_thread)
        self.assertEqual(result.unchecked,
                         "the setup made no thread: nothing ran that could fail")
        self.assertTrue(str(result).endswith(f"; no failure ({result.unchecked})"), result)

    def test_a_setup_with_no_invariant_could_fail_only_by_its_threads(self) -> None:
        for races, could in (("off", "an exception, a deadlock or a stall"),
                             ("fail", "an exception, a deadlock, a stall or a data race")):
            with self.subTest(races=races):
                result = explore(two_sections, races=races)
                self.assertEqual(result.unchecked,
                                 f"no invariant was returned: only {could} could fail")
                self.assertIn(f"; no failure ({result.unchecked})", str(result))

    def test_an_invariant_judged_the_runs(self) -> None:
        result = explore(judged_sections)
        self.assertEqual(result.unchecked, "")
        self.assertTrue(str(result).endswith("; no failure"), result)

    def test_a_failure_is_told_as_it_is(self) -> None:
        def raises(scenario: Scenario) -> None:
            scenario.thread(lambda: 1 / 0)
        result = explore(raises)
        self.assertIsNotNone(result.failure)
        self.assertNotIn("no invariant was returned", str(result))

    def test_every_process_of_a_search_says_it(self) -> None:
        result = explore(two_sections, processes=2)
        self.assertTrue(result.unchecked.startswith("no invariant was returned"),
                        result.unchecked)


class Verdict(unittest.TestCase):
    def assert_not_exhaustive(self, result: blanket.Exploration, *notes: str) -> None:
        self.assertTrue(result.ok, result)
        self.assertFalse(result.exhausted, result)
        self.assertEqual(result.unseen, list(notes))
        self.assertIn(f"; not exhaustive: {'; '.join(notes)}; no failure", str(result))
        self.assertNotIn("the whole space", str(result))

    def test_blanket_primitives_alone_are_the_whole_space(self) -> None:
        result = explore(sections_and(lambda: None))
        self.assertTrue(result.exhausted, result)
        self.assertEqual(result.unseen, [])
        self.assertNotIn("not exhaustive", str(result))

    def test_a_real_lock_used_by_the_threads_is_named(self) -> None:
        def take() -> None:
            with REAL["Lock"]:  # with a real Lock
                pass
            REAL["Lock"].acquire()  # acquire a real Lock
            REAL["Lock"].release()  # release it

        # Each gap once, at the first place met: one note for the three lines
        # (before: one a line).
        result = explore(sections_and(take), exclude=[take])  # (watched, it would be twinned)
        self.assert_not_exhaustive(
            result, f"real Lock used at {HERE}:{line_of('# with a real Lock')}", excluded(take))

    def test_real_rlocks_conditions_semaphores_and_events_are_named(self) -> None:
        for kind in ("RLock", "Condition", "Semaphore", "BoundedSemaphore"):
            with self.subTest(kind=kind):
                def take(kind: str = kind) -> None:
                    with REAL[kind]:  # with a real primitive
                        pass

                result = explore(sections_and(take), exclude=[take])
                self.assert_not_exhaustive(
                    result, f"real {kind} used at {HERE}:{line_of('# with a real primitive')}",
                    excluded(take))
        check = lambda: REAL["Event"].is_set()  # noqa: E731 - not watched
        result = explore(sections_and(check), exclude=[check])
        self.assertEqual(len(result.unseen), 2, result)
        self.assertRegex(result.unseen[0], rf"^real Event used at {HERE}:\d+$")

    def test_a_real_barrier_is_named(self) -> None:
        barrier = threading.Barrier(1)
        result = explore(sections_and(barrier.wait))
        self.assertEqual(len(result.unseen), 1, result)
        self.assertRegex(result.unseen[0], rf"^real Barrier used at {HERE}:\d+$")

    def test_blocking_calls_are_named(self) -> None:
        def nap() -> None:
            time.sleep(0)  # a nap

        result = explore(sections_and(nap))
        self.assert_not_exhaustive(
            result, f"blocking call time.sleep at {HERE}:{line_of('# a nap')}")

        def join_the_main_thread_briefly() -> None:
            threading.main_thread().join(0)  # a join

        result = explore(sections_and(join_the_main_thread_briefly))
        self.assert_not_exhaustive(
            result, f"blocking call Thread.join at {HERE}:{line_of('# a join')}")

    def test_a_thread_the_setup_starts_is_named(self) -> None:
        def setup(scenario: Scenario) -> None:
            sections_and(lambda: None)(scenario)
            helper = threading.Thread(target=lambda: None, name="helper")
            helper.start()  # the setup starts a thread
            helper.join()

        result = explore(setup)
        self.assert_not_exhaustive(
            result, "thread 'helper' started outside blanket at "
            f"{HERE}:{line_of('# the setup starts a thread')}")

    def test_threads_a_managed_thread_starts_are_named(self) -> None:
        done: list[int] = []

        def start() -> None:
            helper = threading.Thread(target=done.append, args=(1,), name="helper")
            helper.start()  # a managed thread starts a thread
            helper.join()  # and joins it
            finished = threading.Lock()
            finished.acquire()
            _thread.start_new_thread(finished.release, ())  # a bare thread
            finished.acquire()  # the end of the bare one

        # Excluded: watched code would make them the scenario's (test_adopt).
        result = explore(sections_and(start), exclude=[start])
        self.assertTrue(done)
        self.assert_not_exhaustive(
            result,
            f"thread 'helper' started outside blanket at {HERE}:"
            f"{line_of('# a managed thread starts a thread')}",
            f"blocking call Thread.join at {HERE}:{line_of('# and joins it')}",
            f"real Lock used at {HERE}:{line_of('# a bare thread') - 1}",
            "thread started outside blanket by _thread.start_new_thread at "
            f"{HERE}:{line_of('# a bare thread')}",
            excluded(start))

    def test_each_thing_is_named_once_whatever_the_runs(self) -> None:
        check = lambda: REAL["Lock"].locked()  # noqa: E731
        result = explore(sections_and(check, times=2), exclude=[check])
        self.assertGreater(result.count, 1)
        self.assertEqual(len(result.unseen), 2, result)

    def test_random_and_pct_say_it_too(self) -> None:
        for strategy in ("random", "pct"):
            with self.subTest(strategy=strategy):
                check = lambda: REAL["Lock"].locked()  # noqa: E731
                result = explore(sections_and(check), strategy=strategy, max_schedules=3,
                                 exclude=[check])
                self.assertEqual(len(result.unseen), 2, result)
                self.assertIn("; not exhaustive: real Lock used at", str(result))

    def test_a_profiler_already_on_keeps_seeing_every_call(self) -> None:
        calls: list[str] = []

        def profiler(frame: Any, event: str, arg: Any) -> None:
            calls.append(frame.f_code.co_name)

        def setup() -> None:
            # The profile functions run untraced: call the one in place
            # by hand, as the interpreter would, so coverage sees it.
            with unchecked():
                sys.getprofile()(frame_in(threading.__file__, "start", back=frame_in("x.py"),
                                          self=threading.Thread(name="t")), "call", None)

        unseen = Unseen()
        sys.setprofile(profiler)
        try:
            unseen.setup(setup)
        finally:
            sys.setprofile(None)
        self.assertIn("setup", calls)  # the real calls
        self.assertIn("start", calls)  # and the one made by hand
        self.assertEqual(unseen.notes, ["thread 't' started outside blanket at x.py:1"])

    @unittest.skipIf(sys.version_info >= (3, 12), "cProfile watches through "
                     "sys.monitoring from 3.12 on: no profile function to meet")
    def test_a_profiler_written_in_c_stays_on_and_the_verdict_says_so(self) -> None:
        # Before: TypeError, 'Profile' object is not callable (the setup's
        # profile function called cProfile's as if it were Python's).
        profiler = cProfile.Profile()
        profiler.enable()
        try:
            result = explore(two_sections)
        finally:
            profiler.disable()
        self.assertFalse(result.exhausted, result)
        self.assertIn("; not exhaustive: nothing watched where a profiler written in C "
                      "(cProfile) was on", str(result))
        profiled = {function for _, _, function in pstats.Stats(profiler).stats}
        self.assertIn("two_sections", profiled)  # the profiler saw the setup

    def assertProbeSilent(self, probe: Callable[[], None]) -> None:  # noqa: N802
        """With *probe* for the probe of each thread's profile, on the path
        of profile functions, the verdict names the profile as silent."""
        with unittest.mock.patch.object(unseen, "_probe", probe), \
                unittest.mock.patch.object(monitor, "available", lambda: False):
            result = explore(two_sections)
        self.assertFalse(result.exhausted, result)
        self.assertIn("a thread's profile saw no call (the interpreter did not start it): "
                      "what it ran unwatched is not known", result.unseen)
        self.assertNotIn("the whole space", str(result))

    def test_a_profile_the_interpreter_leaves_silent_is_named(self) -> None:
        # 3.13t was seen to report no event to a thread's first profile: the
        # first exploration of a process said "the whole space" of a thread
        # it never saw. Here the probe's call turns the profile off from C,
        # unseen, as such an interpreter would leave it. (Profile functions
        # watch the threads on 3.11, and where sys.monitoring's tool id is
        # taken: see blanket.exploration.monitor.)
        self.assertProbeSilent(functools.partial(sys.setprofile, None))

    def test_only_the_probe_s_own_call_shows_a_profile_works(self) -> None:
        # Before: any event counted, and 3.13t sometimes shows a new profile
        # the return of the setprofile call that set it: the test above
        # failed about 1 time in 15 there, "the whole space". Here the
        # profile sees calls, but not the probe's, before it is turned off.
        def elsewhere() -> None:
            """Some other Python call."""

        def not_the_probe() -> None:
            elsewhere()
            sys.setprofile(None)

        self.assertProbeSilent(not_the_probe)

    def test_what_only_a_late_run_meets_is_named(self) -> None:
        # Before: only the first 32 runs (then the 64th, 128th, ...) were
        # watched, and a real Lock met in the 40th run went unnamed.
        real = threading.Lock()
        runs = []

        def take_real() -> None:  # not watched: the real lock
            with real:
                pass

        def setup(scenario: Scenario) -> None:
            lock, log = scenario.Lock(), []
            runs.append(len(runs) + 1)
            late = len(runs) == 40

            def work() -> None:
                for n in range(4):
                    with lock:
                        log.append(n)
                if late:
                    take_real()

            scenario.thread(work)
            scenario.thread(work)

        result = explore(setup, exclude=[take_real])
        self.assertEqual(result.count, 70)
        self.assertFalse(result.exhausted)
        self.assertEqual(len(result.unseen), 2)
        self.assertRegex(result.unseen[0], r"^real Lock used at test_explore_verdict\.py:\d+$")


def frame_in(filename: str, name: str = "f", *, line: int = 1, back: Any = None,
             **local: Any) -> Any:
    """A stand-in for a frame of *name* in *filename*, for the profile
    functions (coverage cannot see them run as profiles)."""
    return SimpleNamespace(f_code=SimpleNamespace(co_filename=filename, co_name=name,
                                                  co_qualname=name),
                           f_lineno=line, f_back=back, f_locals=local)


class ProfileFunctions(unittest.TestCase):
    """What the profile functions note, event by event."""

    def setUp(self) -> None:
        self.unseen = Unseen()
        self.user = frame_in("/src/cache.py", line=14)
        self.blanket = frame_in(blanket.__file__)
        self.threading = threading.__file__

    def uses(self, frame: Any, event: str, arg: Any = None) -> list[str]:
        with unchecked():
            self.unseen._uses(frame, event, arg)
        return self.unseen.notes

    def test_c_primitives_called_from_elsewhere(self) -> None:
        self.assertEqual(self.uses(self.blanket, "c_call", REAL["Lock"].acquire), [])
        self.assertEqual(self.uses(frame_in(self.threading), "c_call", REAL["RLock"].acquire), [])
        self.assertEqual(self.uses(self.user, "c_call", REAL["RLock"].release),
                         ["real RLock used at cache.py:14"])
        self.assertEqual(self.uses(self.user, "c_return", REAL["Lock"].acquire),
                         ["real RLock used at cache.py:14"])

    def test_sleeps_and_other_builtins(self) -> None:
        self.assertEqual(self.uses(self.user, "c_call", len), [])
        self.assertEqual(self.uses(self.blanket, "c_call", time.sleep), [])
        self.assertEqual(self.uses(self.user, "c_call", time.sleep),
                         ["blocking call time.sleep at cache.py:14"])

    def test_python_primitives_called_from_elsewhere(self) -> None:
        condition = REAL["Condition"]
        self.assertEqual(self.uses(frame_in(self.threading, "wait", back=self.blanket,
                                            self=condition), "call"), [])
        self.assertEqual(self.uses(frame_in(self.threading, "_is_owned",
                                            back=frame_in(self.threading), self=condition),
                                   "call"), [])
        self.assertEqual(self.uses(frame_in(self.threading, "current_thread"), "call"), [])
        self.assertEqual(self.uses(frame_in("/src/other.py", "f", back=self.user), "call"), [])
        self.assertEqual(self.uses(frame_in(self.threading, "wait", back=self.user,
                                            self=condition), "call"),
                         ["real Condition used at cache.py:14"])

    def test_a_thread_given_up_on_unwinds_through_real_primitives_unnoted(self) -> None:
        # Its run is over (fasteners' write lock, a generator's finally block
        # leaving the real Condition): before, "real Condition used" made the
        # search after it "not exhaustive" (C primitives were let go already).
        condition = REAL["Condition"]
        with unittest.mock.patch.object(unseen, "_given_up", return_value=True):
            self.assertEqual(self.uses(frame_in(self.threading, "wait", back=self.user,
                                                self=condition), "call"), [])
            self.assertEqual(self.uses(self.user, "c_call", REAL["RLock"].release), [])

    def test_threads_started_and_joined(self) -> None:
        thread = threading.Thread(name="worker")
        self.assertEqual(self.uses(frame_in(self.threading, "is_alive", back=self.user,
                                            self=thread), "call"), [])
        self.assertEqual(self.uses(frame_in(self.threading, "start", back=self.blanket,
                                            self=thread), "call"), [])
        self.assertEqual(self.uses(frame_in(self.threading, "start", back=self.user,
                                            self=thread), "call"),
                         ["thread 'worker' started outside blanket at cache.py:14"])
        self.assertEqual(self.uses(frame_in(self.threading, "join", back=self.user,
                                            self=thread), "call")[1:],
                         ["blocking call Thread.join at cache.py:14"])

    def test_bare_threads(self) -> None:
        start = _thread.start_new_thread
        self.assertEqual(self.uses(self.blanket, "c_call", start), [])
        self.assertEqual(self.uses(self.user, "c_call", start), [
            "thread started outside blanket by _thread.start_new_thread at cache.py:14"])

    def test_the_setup_notes_thread_starts_only(self) -> None:
        with unchecked():
            self.unseen._starts(self.user, "c_call", REAL["Lock"].acquire)
            self.unseen._starts(self.user, "return", None)
            self.unseen._starts(frame_in(self.threading, "start"), "call", None)
            self.unseen._starts(frame_in("/src/other.py", back=self.user), "call", None)
        self.assertEqual(self.unseen.notes, [])
        with unchecked():
            self.unseen._starts(self.user, "c_call", _thread.start_new_thread)
        self.assertEqual(self.unseen.notes, [
            "thread started outside blanket by _thread.start_new_thread at cache.py:14"])

    def test_other_functions_of_threading_called_from_elsewhere(self) -> None:
        self.assertEqual(self.uses(frame_in(self.threading, "current_thread", back=self.user),
                                   "call"), [])


if __name__ == "__main__":
    unittest.main()
