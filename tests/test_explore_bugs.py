"""Exploration finds five classic bugs, exhausts their fixed versions, and
writes tests that replay each failure every time; shards split a search."""

from __future__ import annotations

import types
import unittest
from collections import Counter
from collections.abc import Callable
from typing import Any

import blanket

from . import explore_bugs as bugs
from .support import quiet_thread_errors

# Each bug: its setup, the strategy that finds it quickly, the kind of
# failure, words the failure names, and its fixed setup with the number of
# distinct orders an exhaustive search of it runs.
BUGS: dict[str, tuple[Callable[..., Any], str, str, str, Callable[..., Any], int]] = {
    "check-then-act": (bugs.check_then_act, "dfs", "invariant", "overdrawn: balance -60",
                       bugs.check_then_act_fixed, 2),
    "ABBA deadlock": (bugs.abba, "dfs", "deadlock",
                      "deadlock: A holds Lock 1 and waits for Lock 2; "
                      "B holds Lock 2 and waits for Lock 1", bugs.abba_fixed, 2),
    "dining philosophers": (bugs.philosophers, "random", "deadlock",
                            "E holds Lock 5 and waits for Lock 1",
                            bugs.philosophers_fixed, 120),
    "if instead of while": (bugs.if_not_while, "dfs", "exception",
                            "IndexError: pop from empty list", bugs.if_not_while_fixed, 24),
    "lost wakeup": (bugs.lost_wakeup, "dfs", "deadlock",
                    "stuck, with nothing left to wake them: A waits in Condition.wait "
                    "on Condition 1", bugs.lost_wakeup_fixed, 2),
}

# What the replaying test fails with, per kind of failure.
REPLAY_SAYS = {"invariant": "overdrawn", "exception": "IndexError",
               "deadlock": "waits"}


def _test_class(source: str) -> type[unittest.TestCase]:
    module = types.ModuleType("replay")
    exec(compile(source, "<generated test>", "exec"), module.__dict__)  # noqa: S102
    classes = [value for value in vars(module).values() if isinstance(value, type)
               and issubclass(value, blanket.ScenarioTestCase)
               and value is not blanket.ScenarioTestCase]
    assert len(classes) == 1, classes
    return classes[0]


class FindsEachBug(unittest.TestCase):
    def test_each_bug_is_found(self) -> None:
        for bug, (setup, strategy, kind, says, _, _) in BUGS.items():
            with self.subTest(bug), quiet_thread_errors():
                result = blanket.explore(setup, strategy=strategy)
                self.assertIsNotNone(result.failure, result)
                assert result.failure is not None
                self.assertEqual(result.failure.kind, kind)
                self.assertIn(says, result.failure.message)
                self.assertTrue(result.failure.schedule)

    def test_each_fixed_version_is_explored_exhaustively(self) -> None:
        for bug, (_, _, _, _, fixed, count) in BUGS.items():
            with self.subTest(bug):
                result = blanket.explore(fixed)
                self.assertIsNone(result.failure, result)
                self.assertTrue(result.exhausted)
                self.assertEqual(result.count, count)
                self.assertIn(f"{count} distinct schedule(s), the whole space", str(result))

    def test_the_generated_test_replays_the_failure_every_time(self) -> None:
        for bug, (setup, strategy, kind, _, _, _) in BUGS.items():
            with self.subTest(bug), quiet_thread_errors():
                failure = blanket.explore(setup, strategy=strategy).failure
                assert failure is not None
                self.assertIn(f"from {bugs.__name__} import {setup.__name__}", failure.source)
                test_class = _test_class(failure.source)
                outcomes = Counter()
                for _ in range(100):
                    result = unittest.TestResult()
                    test_class("test_schedule").run(result)
                    problems = result.failures + result.errors
                    outcomes[len(problems) == 1 and REPLAY_SAYS[kind] in problems[0][1]] += 1
                self.assertEqual(outcomes, Counter({True: 100}))


class Shards(unittest.TestCase):
    def assert_partition(self, strategy: str, setup: Callable[..., Any], count: int,
                         **options: Any) -> None:
        whole = blanket.explore(setup, strategy=strategy, **options)
        parts = [blanket.explore(setup, strategy=strategy, shard=f"{i}/{count}", **options)
                 for i in range(1, count + 1)]
        together = Counter()
        for part in parts:
            together.update(part.schedules)
        self.assertEqual(together, Counter(whole.schedules))
        # Each shard ran a share of its own (none of them all of it).
        self.assertTrue(all(0 < len(part.schedules) < len(whole.schedules) for part in parts),
                        [len(part.schedules) for part in parts])

    def test_depth_first_shards_run_exactly_the_whole_search(self) -> None:
        # At calls on primitives only; with races watched too:
        # test_explore_shards.
        self.assert_partition("dfs", bugs.philosophers_fixed, 3, races="off")
        self.assert_partition("dfs", bugs.if_not_while_fixed, 2, split_depth=2)

    def test_random_shards_split_the_runs(self) -> None:
        self.assert_partition("random", bugs.if_not_while_fixed, 3, max_schedules=12, seed=7)
