"""The threads started ahead of time that an exploration's managed threads
run on (blanket.exploration.runners): what the code under test sees of its thread, and
that nothing is left running after the exploration, however it ends."""

from __future__ import annotations

import contextvars
import gc
import importlib
import sys
import threading
import unittest
from collections.abc import Callable
from unittest import mock

import blanket
from blanket.exploration import threadlocals
from blanket.exploration.runners import Runners

from .support import quiet_thread_errors

# The module, not the function blanket exports under its name.
explore_module = importlib.import_module("blanket.exploration.search")
runners_module = importlib.import_module("blanket.exploration.runners")

#: Module-level thread-local data, as code under test might keep.
_local = threading.local()


class WhatAThreadSees(unittest.TestCase):
    def test_a_managed_thread_is_its_own_thread_with_fresh_thread_locals(self) -> None:
        seen: list[tuple[str, bool, bool, object, bool]] = []

        def setup(scenario: blanket.Scenario) -> None:
            lock = scenario.Lock()

            def worker() -> None:
                me = threading.current_thread()
                seen.append((me.name, me in scenario.managed, me.ident == threading.get_ident(),
                             getattr(_local, "mark", None), me.is_alive()))
                _local.mark = me.name  # a later run must not see it
                with lock:
                    pass

            scenario.thread(worker)
            scenario.thread(worker)

        result = blanket.explore(setup, races="off")
        self.assertEqual(result.count, 2)
        self.assertEqual(sorted(set(seen)), [("A", True, True, None, True),
                                             ("B", True, True, None, True)])
        self.assertEqual(len(seen), 4)

    def test_a_managed_thread_is_joined_and_not_alive_once_its_run_is_over(self) -> None:
        threads: list[threading.Thread] = []

        def setup(scenario: blanket.Scenario) -> Callable[[], None]:
            lock = scenario.Lock()

            def worker() -> None:
                with lock:
                    pass

            threads.append(scenario.thread(worker))

            def invariant() -> None:  # runs once the run's scenario has exited
                assert not threads[-1].is_alive()
                threads[-1].join(0)
            return invariant

        result = blanket.explore(setup, races="off")
        self.assertTrue(result.ok, result.failure)
        self.assertEqual(len(threads), 1)
        self.assertNotIn(threads[0], threading.enumerate())


#: A context variable, as code under test might set.
_request: contextvars.ContextVar[str] = contextvars.ContextVar("request")

#: A thread-local object code under test makes on first use and keeps.
_lazy: threading.local | None = None


def _lazy_local() -> threading.local:
    global _lazy
    if _lazy is None:
        _lazy = threading.local()
    return _lazy


def _two_sections(worker: Callable[[], None], sections: int = 2
                  ) -> Callable[[blanket.Scenario], None]:
    """Two threads running *worker*, then taking one lock twice (6 orders),
    or *sections* times."""
    def setup(scenario: blanket.Scenario) -> None:
        lock = scenario.Lock()

        def thread() -> None:
            worker()
            for _ in range(sections):
                with lock:
                    pass

        scenario.thread(thread)
        scenario.thread(thread)
    return setup


def _silent_trace(frame: object, event: str, arg: object) -> None:
    """A trace function that traces nothing."""


class ThreadsOfLaterRuns(unittest.TestCase):
    """The runners serve one run after another (see the module): what a
    managed thread of a later run finds of its operating-system thread is
    what a thread of its own would."""

    def setUp(self) -> None:
        self.used = recorded_runners(self)
        # Runners reused from the second run on (a search of a few runs
        # runs on fresh threads).
        patched(self, runners_module, "REUSED_FROM", 1)

    def test_runners_are_kept_from_one_run_to_the_next(self) -> None:
        natives: set[int | None] = set()
        result = blanket.explore(_two_sections(
            lambda: natives.add(threading.current_thread().native_id)), races="off")
        self.assertEqual(result.count, 6)
        self.assertEqual(len(self.used), 1)
        self.assertTrue(self.used[0].reused)
        self.assertLess(len(natives), 12)  # 12 managed threads, fewer OS threads

    def test_a_context_variable_starts_unset(self) -> None:
        seen: list[str | None] = []

        def worker() -> None:
            seen.append(_request.get(None))
            _request.set(threading.current_thread().name)

        result = blanket.explore(_two_sections(worker), races="off")
        self.assertEqual(result.count, 6)
        self.assertTrue(self.used[0].reused)
        self.assertEqual(seen, [None] * 12)

    def test_a_trace_function_a_thread_set_is_gone(self) -> None:
        seen: list[bool] = []

        def worker() -> None:
            seen.append(sys.gettrace() is _silent_trace)
            sys.settrace(_silent_trace)

        result = blanket.explore(_two_sections(worker), races="off")
        self.assertEqual(result.count, 6)
        self.assertTrue(self.used[0].reused)
        self.assertEqual(seen, [False] * 12)

    def test_the_objects_alive_are_not_asked_what_they_are(self) -> None:
        # Looking for thread-local objects among all those alive must not
        # run the code under test (isinstance would ask for __class__).
        class Hostile:
            def __getattribute__(self, name: str) -> object:
                raise LookupError(name)

        hostile = Hostile()
        result = blanket.explore(_two_sections(lambda: None), races="off")
        self.assertEqual(result.count, 6)
        self.assertTrue(self.used[0].reused)
        del hostile

    def test_thread_local_data_of_an_object_alive_before_stops_the_reuse(self) -> None:
        # _local (module-level, made at import) gets data: the runners of
        # that run end, and no runner serves two runs from then on.
        natives: list[int | None] = []

        def worker() -> None:
            natives.append(threading.current_thread().native_id)
            assert getattr(_local, "mark", None) is None, "data of an earlier run"
            _local.mark = "set"

        result = blanket.explore(_two_sections(worker), races="off")
        self.assertTrue(result.ok, result.failure)
        self.assertEqual(result.count, 6)
        self.assertEqual(len(self.used), 1)

    def test_a_search_that_made_a_thread_local_object_is_made_again(self) -> None:
        # The object is made by a thread of the second run, the runners
        # reused then, and kept: the runs after it may have found that run's
        # data (they do: the search fails); the search is made again on
        # runners never reused.
        made: list[None] = []

        def worker() -> None:
            made.append(None)
            if len(made) < 3:  # the second run's on (the runners are reused then)
                return
            local = _lazy_local()
            assert getattr(local, "mark", None) is None, "data of an earlier run"
            local.mark = "set"

        self.addCleanup(setattr, sys.modules[__name__], "_lazy", None)
        with quiet_thread_errors():
            result = blanket.explore(_two_sections(worker), races="off")
        self.assertTrue(result.ok, result.failure)
        self.assertEqual(result.count, 6)
        self.assertEqual([runners.reused for runners in self.used], [True, False])


    def test_a_run_s_thread_local_object_in_garbage_does_not(self) -> None:
        # Each run makes an object holding a thread-local one, in a cycle
        # (a console pointing back at its display): garbage once the run is
        # over, but not collected. No run can reach another's: the search
        # is made once. (The collector is off: it runs when blanket asks.)
        def setup(scenario: blanket.Scenario) -> None:
            held: dict[str, object] = {"local": threading.local()}
            held["self"] = held
            _two_sections(lambda: None)(scenario)

        gc.disable()
        self.addCleanup(gc.enable)
        result = blanket.explore(setup, races="off")
        self.assertEqual(result.count, 6)
        self.assertEqual([runners.reused for runners in self.used], [True])

class FirstRuns(unittest.TestCase):
    """The first runs of a search run each managed thread on a runner of its
    own: a search of a few runs looks for no thread-local object."""

    def setUp(self) -> None:
        self.used = recorded_runners(self)
        self.scans: list[object] = []
        patched(self, threadlocals, "_locals", self.scanned)

    def scanned(self) -> list[threading.local]:
        self.scans.append(None)
        return []

    def test_a_search_of_a_few_runs(self) -> None:
        natives: set[int | None] = set()
        result = blanket.explore(_two_sections(
            lambda: natives.add(threading.current_thread().native_id)), races="off")
        self.assertEqual(result.runs, 6)
        self.assertFalse(self.used[0].reused)
        self.assertEqual(len(natives), 12)  # a thread each
        self.assertEqual(self.scans, [])

    def test_a_longer_one(self) -> None:
        natives: set[int | None] = set()
        result = blanket.explore(_two_sections(
            lambda: natives.add(threading.current_thread().native_id), 4), races="off")
        self.assertEqual(result.runs, 70)
        self.assertTrue(self.used[0].reused)
        first = 2 * runners_module.REUSED_FROM
        self.assertGreaterEqual(len(natives), first)
        self.assertLess(len(natives), 140)
        self.assertEqual(len(self.scans), 2)  # when the reuse began, and at the end


def patched(test: unittest.TestCase, target: object, name: str, value: object) -> None:
    """*target*'s *name* set to *value* until *test* is over."""
    patcher = mock.patch.object(target, name, value)
    patcher.start()
    test.addCleanup(patcher.stop)


def recorded_runners(test: unittest.TestCase) -> list[Recorded]:
    """The runners the explorations of *test* make, each kept as it is
    made (see :class:`Recorded`)."""
    patched(test, explore_module, "Runners", Recorded)
    Recorded.made = []
    return Recorded.made


class Recorded(Runners):
    """Runners that keep what closing them returned."""

    closed: list[bool] = []
    made: list[Recorded] = []

    def __init__(self, keep_profile: bool = True, reuse: bool = True) -> None:
        super().__init__(keep_profile, reuse)
        self.made.append(self)

    def close(self, timeout: float = 10.0) -> bool:
        gone = super().close(timeout)
        self.closed.append(gone)
        return gone


class NothingLeftRunning(unittest.TestCase):
    """Every runner an exploration started is gone once it returns: those it
    ran managed threads on were joined with them, the rest were told to end
    and waited for until the interpreter let go of them."""

    def setUp(self) -> None:
        Recorded.closed = []
        self.threads: list[threading.Thread] = []
        patched(self, explore_module, "Runners", Recorded)
        self.before = threading.active_count()

    def sections(self, scenario: blanket.Scenario) -> None:
        lock, log = scenario.Lock(), []

        def worker() -> None:
            for n in range(2):
                with lock:
                    log.append(n)

        self.threads += [scenario.thread(worker), scenario.thread(worker)]

    def assertNothingLeft(self) -> None:  # noqa: N802 - unittest's style
        self.assertEqual(Recorded.closed, [True])
        self.assertEqual([thread for thread in self.threads if thread.is_alive()], [])
        self.assertEqual(threading.active_count(), self.before)

    def test_after_an_exploration(self) -> None:
        result = blanket.explore(self.sections)
        self.assertEqual(result.count, 6)
        self.assertNothingLeft()

    def test_after_an_exploration_a_keyboard_interrupt_ended(self) -> None:
        runs = 0

        def setup(scenario: blanket.Scenario) -> None:
            nonlocal runs
            runs += 1
            if runs == 3:  # the runs before left runners for this one
                raise KeyboardInterrupt
            self.sections(scenario)

        with self.assertRaises(KeyboardInterrupt):
            blanket.explore(setup)
        self.assertEqual(len(self.threads), 4)
        self.assertNothingLeft()

    def test_after_a_run_whose_thread_raised(self) -> None:
        def setup(scenario: blanket.Scenario) -> None:
            def worker() -> None:
                raise ValueError("boom")

            self.threads.append(scenario.thread(worker))

        with quiet_thread_errors():
            result = blanket.explore(setup)
        assert result.failure is not None
        self.assertEqual(result.failure.kind, "exception")
        self.assertNothingLeft()


class RunnersOnTheirOwn(unittest.TestCase):
    def test_a_thread_starts_once_on_the_runner_that_waited_longest(self) -> None:
        runners = Runners()
        ran = threading.Event()
        thread = threading.Thread(target=ran.set)
        try:
            first = threading.Thread(target=print, args=("",), kwargs={"end": ""})
            runners.start(first)  # in the first runs, on a runner that ends with it
            first.join(10)
            self.assertEqual(runners.idle, 0)
            for _ in range(runners_module.REUSED_FROM):
                runners.run_over()
            runners.start(thread)  # none reserved: a runner of its own
            with self.assertRaisesRegex(RuntimeError, "threads can only be started once"):
                runners.start(thread)
            thread.join(10)
            self.assertTrue(ran.is_set())
            self.assertFalse(thread.is_alive())
            self.assertEqual(runners.idle, 1)  # back, asleep, for another thread
            self.assertFalse(runners.reused)
            runners.reserve(2)
            runners.reserve(1)  # as many are there already
            self.assertEqual(runners.idle, 4)
            other = threading.Thread(target=print, args=("",), kwargs={"end": ""})
            runners.start(other)  # on the runner that ran the first
            other.join(10)
            self.assertTrue(runners.reused)
            self.assertEqual(other.ident, thread.ident)
            self.assertEqual(runners.idle, 4)
        finally:
            self.assertTrue(runners.close())
        self.assertEqual(runners.idle, 0)

    def test_a_profile_function_is_on_while_they_are_open(self) -> None:
        # The keeper (see the module): asleep on a lock, its profile on.
        events: list[tuple[str, object]] = []

        def note(frame: object, event: str, arg: object) -> None:
            events.append((event, getattr(arg, "__name__", None)))

        with mock.patch.object(runners_module, "_silent", note):
            runners = Runners()
            self.assertTrue(runners.close())
        self.assertIn(("c_call", "acquire"), events)  # asleep under the profile
        self.assertEqual(events[-1], ("c_call", "setprofile"))  # and off once closed
        self.assertTrue(runners.close())  # closing again: nothing left to end

    def test_closed_runners_start_nothing(self) -> None:
        runners = Runners()
        self.assertTrue(runners.close())
        with self.assertRaisesRegex(RuntimeError, "runners are closed"):
            runners.start(threading.Thread(target=print))


if __name__ == "__main__":
    unittest.main()
