"""A depth-first search stopped at its count of schedules and taken on later
(``search.kept`` and ``Search.resume``, which check_linearizable's second
pass over its scenarios uses): it is the search ``explore`` makes when
asked for all at once."""

from __future__ import annotations

import threading
import unittest
from collections import Counter
from collections.abc import Callable
from typing import Any
from unittest import mock

import blanket
from bench.exploration import locked_sections
from blanket import Scenario
from blanket.exploration import runners, search

from .test_explore_budget import a_goes_first, two_orders
from .test_explore_shards import late_race
from .test_runners import patched, recorded_runners

BOUND = 5.0  # every wait of these tests ends well within it


#: Two threads, three locked sections each: 20 orders.
three_sections = locked_sections(3)


def begun(setup: Callable[[Scenario], object], cap: int, **options: Any
          ) -> tuple[blanket.Exploration, search.Search | None]:
    """*setup* explored up to *cap* schedules, and its search if kept."""
    with search.kept() as keep:
        found = blanket.explore(setup, max_schedules=cap, timeout=BOUND,
                                **options)
    return found, keep.search


class TakenOn(unittest.TestCase):
    def assertSame(self, taken_on: blanket.Exploration,  # noqa: N802 - unittest's style
                   whole: blanket.Exploration) -> None:
        self.assertEqual(Counter(taken_on.schedules), Counter(whole.schedules))
        self.assertEqual((taken_on.runs, taken_on.exhausted, taken_on.races, taken_on.unseen,
                          taken_on.stopped, taken_on.max_preemptions),
                         (whole.runs, whole.exhausted, whole.races, whole.unseen,
                          whole.stopped, whole.max_preemptions))

    def test_it_is_the_search_made_at_once(self) -> None:
        # late_race's race is met after the first runs: the search starts
        # again with it, in the part taken on.
        for setup, cap in ((three_sections, 4), (three_sections, 19), (late_race, 2)):
            with self.subTest(cap=cap):
                whole = blanket.explore(setup, timeout=BOUND)
                first, kept = begun(setup, cap)
                self.assertEqual((first.count, first.exhausted, first.stopped),
                                 (cap, False, f"max_schedules={cap}"))
                assert kept is not None
                schedules = list(first.schedules)
                taken_on = kept.resume(10_000)
                self.assertSame(taken_on, whole)
                self.assertTrue(taken_on.exhausted)
                self.assertEqual(first.schedules, schedules)  # what it said stands
                self.assertEqual(taken_on.schedules[:cap], schedules)

    def test_in_steps(self) -> None:
        whole = blanket.explore(three_sections, timeout=BOUND)
        first, kept = begun(three_sections, 3)
        assert kept is not None
        self.assertEqual(kept.resume(10).stopped, "max_schedules=10")
        self.assertTrue(kept.resumable(kept.resume(12)))
        self.assertSame(kept.resume(10_000), whole)

    def test_within_a_bound_on_preemptions(self) -> None:
        whole = blanket.explore(three_sections, max_preemptions=1, timeout=BOUND)
        _, kept = begun(three_sections, 4, max_preemptions=1)
        assert kept is not None
        self.assertSame(kept.resume(10_000), whole)
        self.assertEqual(whole.max_preemptions, 1)

    def test_its_elapsed_time_is_its_runs_only(self) -> None:
        first, kept = begun(three_sections, 4)
        assert kept is not None
        clock = [1000.0]
        with mock.patch("time.monotonic", lambda: clock[0]):
            taken_on = kept.resume(10_000)
        self.assertEqual(taken_on.elapsed, first.elapsed)  # no time passed in the second part

    def test_a_thread_local_object_it_made_makes_it_again_from_the_start(self) -> None:
        # A thread of a run after the first part makes a thread-local object
        # and keeps it: the part taken on was run on runners reused, which
        # may have shared its data; the search is made again, from the start,
        # on runners never reused.
        kept_alive: list[object] = []
        countdown = [0]

        def keep_one() -> None:
            if countdown[0]:
                countdown[0] -= 1
                if not countdown[0]:
                    kept_alive.append(threading.local())

        def setup(scenario: Scenario) -> None:
            three_sections(scenario)
            scenario.thread(keep_one)

        whole = blanket.explore(setup, timeout=BOUND)
        made = recorded_runners(self)
        patched(self, runners, "REUSED_FROM", 1)
        _, kept = begun(setup, 4)
        assert kept is not None
        countdown[0] = 2  # by the second run taken on (runners reused then)
        taken_on = kept.resume(10_000)
        self.assertEqual([pool.reused for pool in made], [True, True, False])
        self.assertEqual(len(kept_alive), 1)
        self.assertSame(taken_on, whole)


class NothingKept(unittest.TestCase):
    """A search is kept only when it stopped at its count of schedules with
    nothing found."""

    def test_when_it_ended(self) -> None:
        first, kept = begun(two_orders, 4)
        self.assertTrue(first.exhausted)
        self.assertIsNone(kept)

    def test_when_it_failed(self) -> None:
        first, kept = begun(a_goes_first, 4, races="off")
        self.assertFalse(first.ok)
        self.assertIsNone(kept)

    def test_when_it_sampled(self) -> None:
        first, kept = begun(three_sections, 4, strategy="random")
        self.assertEqual(first.stopped, "max_schedules=4")
        self.assertIsNone(kept)

    def test_when_it_looked_for_lines(self) -> None:
        first, kept = begun(three_sections, 4, lines=True)
        self.assertEqual(first.stopped, "max_schedules=4")
        self.assertIsNone(kept)

    def test_outside_the_block(self) -> None:
        with search.kept() as keep:
            pass
        blanket.explore(three_sections, max_schedules=4, timeout=BOUND)
        self.assertIsNone(keep.search)

    def test_for_an_exploration_within_one(self) -> None:
        # The setup explores too (its first run): that search is no search
        # of the block's. The block's ends within its count: nothing kept.
        inner: list[blanket.Exploration] = []

        def setup(scenario: Scenario) -> None:
            if not inner:
                inner.append(blanket.explore(three_sections, max_schedules=2,
                                             timeout=BOUND))
            two_orders(scenario)

        first, kept = begun(setup, 4)
        self.assertEqual(inner[0].stopped, "max_schedules=2")
        self.assertTrue(first.exhausted)
        self.assertIsNone(kept)


if __name__ == "__main__":
    unittest.main()
