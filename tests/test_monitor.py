"""What the threads of an exploration call, seen through sys.monitoring
(blanket.exploration.monitor, Python 3.12 on), and by profile functions
where it cannot be had (3.11, a tool id taken)."""

from __future__ import annotations

import importlib
import queue
import sys
import threading
import time
import unittest
from typing import Any
from unittest import mock

import blanket
from blanket.exploration import monitor, threadingcode, unseen
from blanket.exploration.places import BLANKET_FOLDER
from blanket.exploration.runners import Runners

from .test_explore import BOUND

runners_module = importlib.import_module("blanket.exploration.runners")
MONITORING = hasattr(sys, "monitoring")


def sleeps(scenario: blanket.Scenario) -> None:
    lock = scenario.Lock()

    def worker() -> None:
        with lock:
            pass
        time.sleep(0)  # a blocking call (a builtin's "c_call")

    scenario.thread(worker)
    scenario.thread(worker)


def tool() -> object:
    return sys.monitoring.get_tool(monitor.TOOL)  # type: ignore[attr-defined,unused-ignore]


class EitherWay(unittest.TestCase):
    def assert_named(self, result: blanket.Exploration) -> None:
        self.assertFalse(result.exhausted, result)
        self.assertTrue(any(note.startswith("blocking call time.sleep at test_monitor.py:")
                            for note in result.unseen), result.unseen)

    def test_a_blocking_call_is_named_by_profile_functions(self) -> None:
        with mock.patch.object(monitor, "available", lambda: False):
            self.assert_named(blanket.explore(sleeps, timeout=BOUND))

    def test_a_blocking_call_is_named_through_monitoring(self) -> None:
        self.assert_named(blanket.explore(sleeps, timeout=BOUND))

    def test_runners_keep_no_profile_where_none_is_wanted(self) -> None:
        events: list[str] = []

        def note(frame: object, event: str, arg: object) -> None:
            events.append(event)

        with mock.patch.object(runners_module, "_silent", note):
            runners = Runners(keep_profile=False)
            self.assertTrue(runners.close())
        self.assertEqual(events, [])  # no keeper: nothing ran under the profile


class ThreadingCode(unittest.TestCase):
    def test_the_code_whose_start_is_noted(self) -> None:
        # What Unseen._threading_call notes: a method of a primitive written
        # in Python (its self is one), a thread's start or join; nothing else.
        noted = [threading.Condition.wait, threading.BoundedSemaphore.release,
                 threading.Semaphore.acquire, threading.Event.set,
                 threading.Barrier.parties.fget,  # type: ignore[attr-defined]
                 threading.Thread.start, threading.Thread.join]
        silent = [threading.current_thread, threading.Thread.__init__, threading.Timer.run,
                  threading.Thread.name.fget,  # type: ignore[attr-defined]
                  threading.Thread.is_alive, threading.RLock]
        for function in noted:
            self.assertIn(id(function.__code__), threadingcode.NOTED, function)
        for function in silent:
            self.assertNotIn(id(function.__code__), threadingcode.NOTED, function)

    def test_the_code_whose_calls_are_heard(self) -> None:
        self.assertEqual(set(threadingcode.SLEEPS.values()), {
            threading.Thread.join.__code__,
            *([threading.Thread._wait_for_tstate_lock.__code__]  # type: ignore[attr-defined]
              if sys.version_info < (3, 13) else [])})


@unittest.skipUnless(MONITORING, "sys.monitoring: Python 3.12 on")
class Monitoring(unittest.TestCase):
    def test_the_tool_is_blanket_s_while_an_exploration_runs(self) -> None:
        seen: list[object] = []

        def setup(scenario: blanket.Scenario) -> None:
            scenario.thread(lambda: seen.append(tool()))

        blanket.explore(setup, timeout=BOUND)
        self.assertEqual(seen, ["blanket"])
        self.assertIsNone(tool())  # given back

    def test_nested_explorations_share_it(self) -> None:
        with monitor.monitoring() as outer:
            with monitor.monitoring() as inner:
                self.assertTrue(outer and inner)
            self.assertEqual(tool(), "blanket")  # the outer one's still
        self.assertIsNone(tool())

    def test_a_tool_id_taken_leaves_it_to_profile_functions(self) -> None:
        sys.monitoring.use_tool_id(monitor.TOOL, "another")  # type: ignore[attr-defined,unused-ignore]
        try:
            self.assertFalse(monitor.available())
            with monitor.monitoring() as monitored:
                self.assertFalse(monitored)
            result = blanket.explore(sleeps, timeout=BOUND)
        finally:
            sys.monitoring.free_tool_id(monitor.TOOL)  # type: ignore[attr-defined,unused-ignore]
        EitherWay.assert_named(self, result)  # type: ignore[arg-type]

    def test_a_method_of_a_class_with_a_defining_class_is_bound_safely(self) -> None:
        # SimpleQueue.get_nowait.__get__(queue), without the type, crashed
        # 3.12.1 and 3.13.0 (a segmentation fault in tests.test_c_accesses).
        jobs: queue.SimpleQueue[int] = queue.SimpleQueue()
        jobs.put(1)
        builtin = monitor._builtin(queue.SimpleQueue.get_nowait, jobs)
        self.assertEqual(builtin(), 1)
        self.assertIsNone(monitor._builtin(queue.SimpleQueue.get_nowait, 1))  # not its own
        missing = sys.monitoring.MISSING  # type: ignore[attr-defined,unused-ignore]
        self.assertIs(monitor._builtin(print, missing), print)  # a builtin function
        self.assertIsNone(monitor._builtin(sleeps, None))  # Python code: its own "call" comes

    def test_a_builtin_that_raised_is_told_apart_from_one_that_returned(self) -> None:
        # Before: both came as "c_return", and a get_nowait of an empty
        # queue would have counted as taking an item (blanket.sleepers).
        jobs: queue.SimpleQueue[int] = queue.SimpleQueue()
        events: list[tuple[str, str, str]] = []

        def hook(frame: Any, event: str, arg: Any) -> bool:
            if event != "call" and getattr(arg, "__self__", None) is jobs:
                events.append((event, arg.__name__, frame.f_code.co_name))
            return False

        def calls() -> None:
            jobs.put(1)
            jobs.get_nowait()
            try:
                jobs.get_nowait()
            except queue.Empty:
                pass

        with monitor.monitoring():
            monitor.watching(hook, calls)
        self.assertEqual(events, [
            ("c_call", "put", "calls"), ("c_return", "put", "calls"),
            ("c_call", "get_nowait", "calls"), ("c_return", "get_nowait", "calls"),
            ("c_call", "get_nowait", "calls"), ("c_exception", "get_nowait", "calls")])

    def test_threading_s_own_bookkeeping_is_not_handed_to_the_profile_function(self) -> None:
        # Before: every start of threading's code and every call it made
        # was (a third of the events of a run of the 924-order benchmark,
        # each a call of a Python function), though only a call into a
        # primitive, a thread's start or join, or a join's sleep is noted
        # (blanket.exploration.threadingcode).
        events: list[tuple[str, str]] = []

        def hook(frame: Any, event: str, arg: Any) -> bool:
            if frame.f_code.co_filename == threading.__file__:
                events.append((event, frame.f_code.co_name))
            return False

        def calls() -> None:
            for _ in range(2):
                threading.current_thread()
                threading.Event().set()
                thread = threading.Thread(target=int)
                thread.start()
                thread.join()

        with monitor.monitoring():
            monitor.watching(hook, calls)
        names = {name for _, name in events}
        self.assertFalse(names & {"current_thread", "_newname"}, events)
        for noted in ("set", "start", "join"):
            self.assertEqual(events.count(("call", noted)), 2, events)
        # A join's sleep is heard (3.12: the lock's acquire and release in
        # _wait_for_tstate_lock; 3.13: the handle's join in Thread.join).
        sleep = ("c_call", "_wait_for_tstate_lock" if sys.version_info < (3, 13) else "join")
        self.assertGreaterEqual(events.count(sleep), 2, events)

    def test_blanket_s_own_code_is_never_handed_to_the_profile_function(self) -> None:
        # Its events are turned off where they fire: the saving (a seventh of
        # the 924-order benchmark on 3.13t).
        places: list[str] = []
        uses = unseen.Unseen._uses

        def noting(self: unseen.Unseen, frame: object, event: str, arg: object) -> object:
            places.append(frame.f_code.co_filename)  # type: ignore[attr-defined]
            return uses(self, frame, event, arg)  # type: ignore[arg-type]

        with mock.patch.object(unseen.Unseen, "_uses", noting):
            result = blanket.explore(sleeps, timeout=BOUND)
        self.assertFalse(result.exhausted)
        self.assertIn(__file__, places)  # the thread's own code is
        self.assertFalse([place for place in places if place.startswith(BLANKET_FOLDER)])


if __name__ == "__main__":
    unittest.main()
