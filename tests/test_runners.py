"""The threads started ahead of time that an exploration's managed threads
run on (blanket.exploration.runners): what the code under test sees of its thread, and
that nothing is left running after the exploration, however it ends."""

from __future__ import annotations

import importlib
import threading
import unittest
from collections.abc import Callable
from unittest import mock

import blanket
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


class Recorded(Runners):
    """Runners that keep what closing them returned."""

    closed: list[bool] = []

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
        patcher = mock.patch.object(explore_module, "Runners", Recorded)
        patcher.start()
        self.addCleanup(patcher.stop)
        self.before = threading.active_count()

    def sections(self, scenario: blanket.Scenario) -> None:
        lock = scenario.Lock()

        def worker() -> None:
            for _ in range(2):
                with lock:
                    pass

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
            runners.start(thread)  # none reserved: a runner of its own
            self.assertEqual(runners.idle, 0)
            runners.reserve(2)
            runners.reserve(1)  # as many are there already
            self.assertEqual(runners.idle, 4)
            with self.assertRaisesRegex(RuntimeError, "threads can only be started once"):
                runners.start(thread)
            thread.join(10)
            self.assertTrue(ran.is_set())
            self.assertFalse(thread.is_alive())
            other = threading.Thread(target=print, args=("",), kwargs={"end": ""})
            runners.start(other)
            other.join(10)
            self.assertEqual(runners.idle, 3)
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
