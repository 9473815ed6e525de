"""The threads started ahead of time that an exploration's managed threads
run on (blanket.runners): what the code under test sees of its thread, and
that nothing is left running after the exploration, however it ends."""

from __future__ import annotations

import os
import threading
import unittest
from collections.abc import Callable

import blanket
from blanket.runners import Runners

from .support import quiet_thread_errors

_TASKS = "/proc/self/task"  # one entry per operating-system thread (Linux)


def os_threads() -> int:
    """How many operating-system threads the process has."""
    return len(os.listdir(_TASKS))


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


@unittest.skipUnless(os.path.isdir(_TASKS), "counts the process's threads in /proc")
class NothingLeftRunning(unittest.TestCase):
    def sections(self, scenario: blanket.Scenario) -> None:
        lock = scenario.Lock()

        def worker() -> None:
            for _ in range(2):
                with lock:
                    pass

        scenario.thread(worker)
        scenario.thread(worker)

    def test_after_an_exploration(self) -> None:
        before = os_threads(), threading.active_count()
        result = blanket.explore(self.sections)
        self.assertEqual(result.count, 6)
        self.assertEqual((os_threads(), threading.active_count()), before)

    def test_after_an_exploration_a_keyboard_interrupt_ended(self) -> None:
        before = os_threads(), threading.active_count()
        runs = 0

        def setup(scenario: blanket.Scenario) -> None:
            nonlocal runs
            runs += 1
            if runs == 3:  # the runs before left runners for this one
                raise KeyboardInterrupt
            self.sections(scenario)

        with self.assertRaises(KeyboardInterrupt):
            blanket.explore(setup)
        self.assertEqual((os_threads(), threading.active_count()), before)

    def test_after_a_run_whose_thread_raised(self) -> None:
        before = os_threads(), threading.active_count()

        def setup(scenario: blanket.Scenario) -> None:
            def worker() -> None:
                raise ValueError("boom")

            scenario.thread(worker)

        with quiet_thread_errors():
            result = blanket.explore(setup)
        assert result.failure is not None
        self.assertEqual(result.failure.kind, "exception")
        self.assertEqual((os_threads(), threading.active_count()), before)


class RunnersOnTheirOwn(unittest.TestCase):
    def test_a_thread_starts_once_and_a_spare_runner_waits_for_the_next(self) -> None:
        runners = Runners()
        ran = threading.Event()
        thread = threading.Thread(target=ran.set)
        try:
            runners.start(thread)
            self.assertEqual(runners.idle, 1)
            with self.assertRaisesRegex(RuntimeError, "threads can only be started once"):
                runners.start(thread)
            thread.join(10)
            self.assertTrue(ran.is_set())
            self.assertFalse(thread.is_alive())
        finally:
            self.assertTrue(runners.close())
        self.assertEqual(runners.idle, 0)

    def test_closed_runners_start_nothing(self) -> None:
        runners = Runners()
        self.assertTrue(runners.close())
        with self.assertRaisesRegex(RuntimeError, "runners are closed"):
            runners.start(threading.Thread(target=print))


if __name__ == "__main__":
    unittest.main()
