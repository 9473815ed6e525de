"""explore on library code as it is shipped (issue 21): twelve thread-safety
bugs of released code, each in a module of :mod:`tests.shipped` that the
setup only calls (nothing is named for blanket to watch), are found by every
strategy within 50 runs, and their fixes are explored to the end with no
failure and no race. On the code before issue 21, nine of them were "the
whole space; no failure". What blanket cannot see there yet is named, never
"the whole space": a thread whose target is C code, a generator made in the
setup."""

from __future__ import annotations

import functools
import unittest

import blanket

from . import shipped_bugs
from .shipped import jobs, sinks
from .support import quiet_thread_errors


class ShippedBugs(unittest.TestCase):
    def test_each_bug_is_found_within_50_runs_by_every_strategy(self) -> None:
        for bug, (setup, _, says) in shipped_bugs.BUGS.items():
            for strategy in ("dfs", "random", "pct"):
                with self.subTest(bug=bug, strategy=strategy), quiet_thread_errors():
                    result = blanket.explore(setup, strategy=strategy, max_schedules=50)
                    self.assertLessEqual(result.runs, 50)
                    assert result.failure is not None, result
                    self.assertIn(says, result.failure.message)

    def test_each_fix_is_the_whole_space_with_no_failure_and_no_race(self) -> None:
        for bug, (_, fixed, _) in shipped_bugs.BUGS.items():
            with self.subTest(bug):
                result = blanket.explore(fixed)
                self.assertIsNone(result.failure, result)
                self.assertEqual(result.unseen, [])
                self.assertTrue(result.exhausted, result)
                # (The lazy module's fix: module.VALUE was recorded as a
                # read before the module's own __getattribute__ took the lock,
                # a race with the loader's write that the lock rules out.)
                self.assertEqual(result.races, [])

    def test_a_thread_whose_target_is_c_code_is_named(self) -> None:
        # getattr runs the property itself: nothing watched records that
        # first read (before, "the whole space; no failure").
        def setup(scenario: blanket.Scenario) -> None:
            settings = shipped_bugs.Settings()
            settings.computed = []
            scenario.thread(getattr, settings, "value")
            scenario.thread(functools.partial(getattr, settings), "value")  # named once

        result = blanket.explore(setup)
        self.assertFalse(result.exhausted)
        self.assertEqual(result.unseen[:1], [
            "thread target getattr is C code: what it does itself is not watched (call it "
            "from a function)"])
        self.assertEqual(len(result.unseen), 1, result.unseen)

    def test_a_generator_made_in_the_setup_is_named(self) -> None:
        # Two workers resume one generator the setup made: its code is the
        # unwatched one, made before the run (before, "the whole space").
        for made in (jobs.take, jobs.Jobs):
            with self.subTest(made.__name__), quiet_thread_errors():
                result = blanket.explore(shipped_bugs.shared_generator(made))
                self.assertFalse(result.exhausted)
                self.assertTrue(any("function take at tests/shipped/jobs.py:" in note
                                    and "ran unwatched" in note for note in result.unseen),
                                result.unseen)



class ProcessWideLogger(unittest.TestCase):
    """A logger made at import, in loguru's shape (tests/shipped/sinks.py):
    its handlers' table is published without a lock by design, so its fix
    has races (a read of the table, the writes that made it) and no
    failure. (The search's speed on it is a figure of ``make bench``.)"""

    def test_the_removal_while_logging_is_found_by_every_strategy(self) -> None:
        for strategy in ("dfs", "random", "pct"):
            with self.subTest(strategy), quiet_thread_errors():
                result = blanket.explore(sinks.removed_while_logging(sinks.logger),
                                         strategy=strategy, max_schedules=50)
                assert result.failure is not None, result
                self.assertIn("RuntimeError: dictionary changed size during iteration",
                              result.failure.message)

    def test_its_fix_is_the_whole_space_with_races_and_no_failure(self) -> None:
        result = blanket.explore(sinks.removed_while_logging(sinks.fixed_logger))
        self.assertIsNone(result.failure, result)
        self.assertEqual(result.unseen, [])
        self.assertTrue(result.exhausted, result)
        self.assertEqual(sorted(race.what for race in result.races),
                         ["FixedLogger._handlers", "dict"])

if __name__ == "__main__":
    unittest.main()
