"""explore on library code as it is shipped (issue 21): thirteen thread-safety
bugs of released code, each in a module of :mod:`tests.shipped` that the
setup only calls (nothing is named for blanket to watch), are found by every
strategy within 50 runs, and their fixes are explored to the end with no
failure and no race. On the code before issue 21, nine of the thirteen were
"the whole space; no failure"."""

from __future__ import annotations

import unittest

import blanket

from . import shipped_bugs
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
                self.assertEqual(result.races, [])
                self.assertEqual(result.unseen, [])
                self.assertTrue(result.exhausted, result)


if __name__ == "__main__":
    unittest.main()
