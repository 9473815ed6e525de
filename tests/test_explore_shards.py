"""Shards split a depth-first search exactly, with data races watched too:
the shards 1..n of one search run, together, the schedules the search runs
unsharded, each once, and a bug is found by the shard its schedule belongs
to (issue 15)."""

from __future__ import annotations

import unittest
from collections import Counter
from collections.abc import Callable
from typing import Any

import blanket
from blanket import Scenario
from blanket.exploration import tried
from blanket.exploration.searching import owner as _owner

from . import explore_bugs, race_bugs
from .support import quiet_thread_errors

BOUND = 5.0  # every wait of these tests ends well within it


def _shards(setup: Callable[..., Any], count: int, **options: Any
            ) -> tuple[blanket.Exploration, list[blanket.Exploration]]:
    # (What is compared is the schedules: the written tests are not tried,
    # a fresh interpreter for each of the 36 failures of one test;
    # test_explore_tried tries them.)
    with tried.untried():
        whole = blanket.explore(setup, timeout=BOUND, **options)
        parts = [blanket.explore(setup, shard=(i, count), timeout=BOUND, **options)
                 for i in range(1, count + 1)]
    return whole, parts


def _prefix(schedule: tuple[str, ...], split_depth: int = 4) -> list[str]:
    return list(schedule[:split_depth])


def four_philosophers(scenario: Scenario) -> Any:
    """The fixed dinner with four seats: 0 and 2 share no fork, nor 1 and 3."""
    return explore_bugs._dinner(scenario, fixed=True, seats=4)


class ExactWithRaces(unittest.TestCase):
    def assert_exact(self, setup: Callable[..., Any], count: int, **options: Any) -> None:
        whole, parts = _shards(setup, count, **options)
        self.assertTrue(whole.exhausted, whole)
        together: Counter[tuple[str, ...]] = Counter()
        for number, part in enumerate(parts, 1):
            self.assertTrue(part.exhausted, part)
            self.assertEqual(part.races, whole.races)  # every shard parks at the same sites
            split_depth = options.get("split_depth", 4)
            self.assertTrue(all(_owner(_prefix(s, split_depth), count) == number
                                for s in part.schedules))
            together.update(part.schedules)
        self.assertEqual(together, Counter(whole.schedules))

    def test_the_philosophers_appends_race_and_the_shards_split_exactly(self) -> None:
        # Their appends race only when two of them eat at once, which the
        # first run (one after the other) does not show. Each shard used to
        # meet those races in runs of its own and park there from then on:
        # the 3 shards ran 103 of the 120 schedules, and 5 of their own.
        whole = blanket.explore(explore_bugs.philosophers_fixed, timeout=BOUND)
        self.assertEqual(len(whole.races), 5)
        self.assertEqual(whole.count, 120)
        self.assert_exact(explore_bugs.philosophers_fixed, 3)

    def test_any_split_depth(self) -> None:
        # Above split_depth every call is tried: the reversals of races found
        # below it come from runs only the prefix's owner makes (with races
        # off the old split lost 3 of the 30 schedules at split_depth=2).
        # With split_depth=1 each prefix's first run has the philosophers eat
        # one after the other: their races are met below the split.
        self.assert_exact(explore_bugs.philosophers_fixed, 3, split_depth=2, races="off")
        self.assert_exact(four_philosophers, 3, split_depth=1, races="off")
        for split_depth in (2, 3, 6):
            with self.subTest(split_depth=split_depth):
                self.assert_exact(four_philosophers, 3, split_depth=split_depth)

    def test_each_race_bugs_fix(self) -> None:
        for bug, (_, fixed, _) in race_bugs.BUGS.items():
            with self.subTest(bug):
                self.assert_exact(fixed, 2)


class EachBugInItsShard(unittest.TestCase):
    def test_the_shard_that_owns_the_failing_schedule_finds_it(self) -> None:
        for bug, (setup, _, says) in race_bugs.BUGS.items():
            for count in (2, 3):
                with self.subTest(bug, count=count), quiet_thread_errors():
                    whole, parts = _shards(setup, count)
                    assert whole.failure is not None
                    failing = tuple(step.mark for step in whole.failure.schedule)
                    self.assertTrue(any(step.call.startswith("Memory.")
                                        for step in whole.failure.schedule))
                    owner = _owner(_prefix(failing), count)
                    found = parts[owner - 1].failure
                    assert found is not None
                    self.assertEqual(found.schedule, whole.failure.schedule)
                    self.assertIn(says, found.message)
                    for number, part in enumerate(parts, 1):
                        # Another shard stops at a failure of its own, later
                        # in the search, or at none.
                        if part.failure is not None:
                            marks = tuple(step.mark for step in part.failure.schedule)
                            self.assertEqual(_owner(_prefix(marks), count), number)
                        # The schedules the search ran before its failure
                        # are each run by the shard they belong to.
                        for schedule in whole.schedules:
                            if _owner(_prefix(schedule), count) == number:
                                self.assertIn(schedule, part.schedules)


class Box:
    def __init__(self) -> None:
        self.stage = 0
        self.value = 0


def late_race(scenario: Scenario) -> None:
    """B touches the box unlocked only when it took the lock between A's two
    sections: a race no first run of a prefix of one choice shows."""
    lock = scenario.Lock()
    box = Box()

    def first() -> None:
        with lock:
            box.stage = 1
        with lock:
            box.stage = 2
        box.value = 1

    def second() -> None:
        with lock:
            seen = box.stage
        if seen == 1:
            box.value = 2

    scenario.thread(first)
    scenario.thread(second)


class RacesMetAfterTheSplit(unittest.TestCase):
    def test_the_shard_that_meets_one_says_the_split_is_not_exact(self) -> None:
        whole = blanket.explore(late_race, split_depth=1, timeout=BOUND)
        self.assertTrue(whole.exhausted, whole)
        self.assertEqual(whole.unseen, [])
        self.assertEqual(len(whole.races), 1)
        owner = _owner(["A"], 2)  # the race is below the prefix "A"
        parts = [blanket.explore(late_race, split_depth=1, shard=(i, 2), timeout=BOUND)
                 for i in (1, 2)]
        met = parts[owner - 1]
        self.assertFalse(met.exhausted)
        line = late_race.__code__.co_firstlineno
        self.assertEqual(met.unseen, [
            f"shard {owner}/2: data race(s) at tests/test_explore_shards.py:{line + 11}, "
            f"tests/test_explore_shards.py:{line + 17} met after the split, in this "
            "shard's runs: the other shards do not park there"])
        self.assertIn("not exhaustive: shard", str(met))


if __name__ == "__main__":
    unittest.main()
