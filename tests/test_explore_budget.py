"""The random strategies and their budget (issue 21): a depth-first pass
runs beside the samples, one run after each; when it ends, every order has
been run and the search stops, saying so; until then the summary says how
much of the space the samples covered is not known."""

from __future__ import annotations

import time
import unittest
import unittest.mock
from collections import Counter
from collections.abc import Callable
from typing import Any

import blanket
from blanket import Scenario, seconds

from .support import quiet_thread_errors, unchecked
from .test_explore_shards import late_race

BOUND = 5.0  # every wait of these tests ends well within it
SAMPLING = ("random", "pct")


def two_orders(scenario: Scenario) -> None:
    """Two threads, one locked section each, adding to one list: two orders."""
    lock, log = scenario.Lock(), []

    def section() -> None:
        with lock:
            log.append(0)

    scenario.thread(section)
    scenario.thread(section)


def many_orders(scenario: Scenario) -> None:
    """Two threads, six locked sections each, adding to one list: 924 orders."""
    lock, log = scenario.Lock(), []

    def sections() -> None:
        for n in range(6):
            with lock:
                log.append(n)

    scenario.thread(sections)
    scenario.thread(sections)


def a_goes_first(scenario: Scenario) -> Callable[[], None]:
    """Fails only when A takes both its sections before B: the first order
    a depth-first search runs, and not the first sample of seed 0."""
    lock = scenario.Lock()
    order: list[str] = []

    def sections(name: str) -> None:
        for _ in range(2):
            with lock:
                order.append(name)

    scenario.thread(sections, "A")
    scenario.thread(sections, "B")

    def check() -> None:
        assert order != ["A", "A", "B", "B"], "A went first"
    return check


def b_first_sleeps(scenario: Scenario) -> None:
    """B makes a blocking call blanket does not schedule (a real
    ``time.sleep``) only when it goes first: in the last order of the
    depth-first pass, not in the samples of seed 0 before it."""
    lock = scenario.Lock()
    went: list[str] = []

    def section(name: str) -> None:
        with lock:
            went.append(name)
        if went == ["B"]:
            time.sleep(0)

    scenario.thread(section, "A")
    scenario.thread(section, "B")


def explore(setup: Callable[[Scenario], Any], **options: Any) -> blanket.Exploration:
    options.setdefault("timeout", BOUND)
    with quiet_thread_errors():
        return blanket.explore(setup, **options)


class SmallSpaces(unittest.TestCase):
    def test_two_orders_stop_after_a_handful_of_runs_and_say_why(self) -> None:
        # Before: 10,000 samples of the two orders, and no word of the space.
        whole = explore(two_orders)
        for strategy in SAMPLING:
            with self.subTest(strategy):
                result = explore(two_orders, strategy=strategy, max_schedules=10_000)
                self.assertTrue(result.exhausted, result)
                self.assertEqual(result.depth_first_runs, 2)
                self.assertEqual(result.runs, 4)  # two samples, each with a pass's run
                self.assertEqual(result.schedules, whole.schedules)
                self.assertEqual(str(result).replace(f"{result.elapsed:.2f}", "T"),
                                 f"{strategy}: 2 distinct schedule(s), the whole space (a "
                                 "depth-first pass of 2 run(s) beside the samples ran every "
                                 "order) in T s; no failure (no invariant was returned: "
                                 "only an exception, a deadlock or a stall could fail)")

    def test_a_bound_on_preemptions_is_not_the_pass_s(self) -> None:
        # The samples keep to no bound: neither does the pass, whose end is
        # then every order.
        result = explore(two_orders, strategy="random", max_preemptions=0)
        self.assertTrue(result.exhausted)
        self.assertIsNone(result.max_preemptions)
        self.assertIn("the whole space (a depth-first pass", str(result))

    def test_races_the_pass_meets_restart_it(self) -> None:
        # The race is met by the pass's second run (the samples of seed 0
        # before it miss it): it becomes a step, and the pass starts again.
        whole = explore(late_race)
        for strategy, seed in (("random", 0), ("pct", 2)):
            with self.subTest(strategy):
                result = explore(late_race, strategy=strategy, seed=seed)
                self.assertTrue(result.exhausted, result)
                self.assertEqual(len(result.races), 1)
                self.assertEqual(Counter(result.schedules), Counter(whole.schedules))
                self.assertEqual(result.depth_first_runs, whole.runs)  # the same search

    def test_races_a_sample_meets_restart_the_pass(self) -> None:
        # The first sample of seed 1 meets the race: the pass starts with it.
        whole = explore(late_race)
        result = explore(late_race, strategy="random", seed=1)
        self.assertTrue(result.exhausted, result)
        self.assertEqual(Counter(result.schedules), Counter(whole.schedules))

    def test_a_failure_the_pass_meets_ends_the_search(self) -> None:
        for strategy in SAMPLING:
            with self.subTest(strategy):
                result = explore(a_goes_first, strategy=strategy, seed=0)
                assert result.failure is not None, result
                self.assertIn("A went first", result.failure.message)
                self.assertEqual((result.runs, result.depth_first_runs), (2, 1))
                self.assertNotIn("not known", str(result))

    def test_what_is_unseen_stops_the_pass(self) -> None:
        # In the pass's last run, or in a sample: no pass could tell the
        # whole space; the samples go on to the budget.
        for seed in (0, 1):
            with self.subTest(seed=seed):
                result = explore(b_first_sleeps, strategy="random", seed=seed,
                                 max_schedules=20)
                self.assertFalse(result.exhausted)
                self.assertEqual(len(result.unseen), 1, result)
                self.assertLessEqual(result.depth_first_runs, 2)
                self.assertEqual(result.runs, 20 + result.depth_first_runs)
                self.assertIn("; not exhaustive: blocking call time.sleep at", str(result))
                self.assertNotIn("not known", str(result))


class BigSpaces(unittest.TestCase):
    def test_the_samples_go_on_and_say_they_cannot_know(self) -> None:
        for strategy in SAMPLING:
            with self.subTest(strategy):
                result = explore(many_orders, strategy=strategy, max_schedules=20)
                self.assertFalse(result.exhausted)
                self.assertEqual(len(result.schedules), 20)
                self.assertEqual((result.runs, result.depth_first_runs), (40, 20))
                self.assertTrue(str(result).endswith(
                    "; how much of the space they cover is not known: a depth-first pass "
                    "of 20 run(s) beside them did not end; no failure (no invariant was "
                    "returned: only an exception, a deadlock or a stall could fail)"), str(result))

    def test_a_depth_first_search_stopped_by_its_budget_says_so(self) -> None:
        result = explore(many_orders, max_schedules=3)
        self.assertFalse(result.exhausted)
        self.assertEqual(result.count, 3)
        self.assertEqual(result.stopped, "max_schedules=3")
        self.assertIn(" s; stopped by max_schedules=3 with orders left; no failure",
                      str(result))
        together = explore(many_orders, max_schedules=3, processes=2)
        self.assertEqual(together.stopped, "max_schedules=3")

    def test_a_search_that_ends_before_its_budget_was_not_stopped(self) -> None:
        for strategy in ("dfs", *SAMPLING):
            with self.subTest(strategy):
                result = explore(two_orders, strategy=strategy)
                self.assertTrue(result.exhausted)
                self.assertEqual(result.stopped, "")
                self.assertNotIn("stopped by", str(result))

    def test_the_samples_say_what_ended_them(self) -> None:
        result = explore(many_orders, strategy="random", max_schedules=5)
        self.assertEqual(result.stopped, "max_schedules=5")

    def test_the_same_seed_gives_the_same_samples(self) -> None:
        for strategy in SAMPLING:
            with self.subTest(strategy):
                first = explore(many_orders, strategy=strategy, seed=5, max_schedules=10)
                again = explore(many_orders, strategy=strategy, seed=5, max_schedules=10)
                self.assertEqual(first.schedules, again.schedules)
                self.assertGreater(len(set(first.schedules)), 1)


class Shards(unittest.TestCase):
    def test_the_pass_of_each_shard_runs_its_part(self) -> None:
        # Each shard's pass runs its part of the depth-first search: ended in
        # every shard, their schedules are disjoint and together the whole's.
        for strategy in SAMPLING:
            for setup in (two_orders, late_race):
                with self.subTest(strategy, setup=setup.__name__):
                    whole = explore(setup, strategy=strategy)
                    self.assertTrue(whole.exhausted)
                    parts = [explore(setup, strategy=strategy, shard=(i, 3))
                             for i in (1, 2, 3)]
                    self.assertTrue(all(part.exhausted for part in parts), parts)
                    together = Counter(s for part in parts for s in part.schedules)
                    self.assertEqual(together, Counter(whole.schedules))

    def test_the_samples_split_by_number_while_no_pass_ends(self) -> None:
        whole = explore(many_orders, strategy="random", max_schedules=12)
        parts = [explore(many_orders, strategy="random", max_schedules=12, shard=(i, 3))
                 for i in (1, 2, 3)]
        self.assertFalse(any(part.exhausted for part in parts))
        for number, part in enumerate(parts):
            self.assertEqual(part.schedules, whole.schedules[number::3])



def three_threads(scenario: Scenario) -> None:
    """Three threads, six locked sections each, adding to one list:
    17,153,136 orders, more than a search can run within any budget a test
    gives it."""
    lock, log = scenario.Lock(), []

    def sections() -> None:
        for n in range(6):
            with lock:
                log.append(n)

    for _ in range(3):
        scenario.thread(sections)


class Clock:
    """A ``time`` module whose clock moves only when told (:meth:`tick`)."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    def ticking(self, setup: Callable[[Scenario], Any]) -> Callable[[Scenario], Any]:
        """*setup*, each run one second later than the last."""
        def ticked(scenario: Scenario) -> Any:
            self.now += 1.0
            return setup(scenario)
        return ticked


class WallClock(unittest.TestCase):
    """``max_seconds``: the search stops at the end of the run that spent
    its budget, makes one run at least, and says what stopped it (issue 32)."""

    def test_a_depth_first_search_stops_once_its_time_is_spent(self) -> None:
        clock = Clock()
        with unittest.mock.patch.object(seconds, "time", clock):
            result = explore(clock.ticking(many_orders), max_seconds=3.5)
        # Runs end at 1, 2, 3 and 4 s: the fourth spent the budget.
        self.assertEqual((result.runs, result.count), (4, 4))
        self.assertFalse(result.exhausted)
        self.assertEqual(result.stopped, "max_seconds=3.5")
        self.assertIn("; stopped by max_seconds=3.5 with orders left; no failure", str(result))

    def test_a_sampling_search_stops_too_and_says_so(self) -> None:
        clock = Clock()
        for strategy in SAMPLING:
            with self.subTest(strategy), unittest.mock.patch.object(seconds, "time", clock):
                clock.now = 0.0
                result = explore(clock.ticking(many_orders), strategy=strategy,
                                 max_seconds=3.5)
                # Each sample is followed by a run of the depth-first pass.
                self.assertEqual((result.runs, len(result.schedules)), (4, 2))
                self.assertEqual(result.stopped, "max_seconds=3.5")
                self.assertIn("; stopped by max_seconds=3.5 with samples left; how much of "
                              "the space they cover is not known", str(result))

    def test_a_search_makes_one_run_however_little_time_it_has(self) -> None:
        clock = Clock()
        with unittest.mock.patch.object(seconds, "time", clock):
            result = explore(clock.ticking(many_orders), max_seconds=0.001)
        self.assertEqual((result.runs, result.count), (1, 1))
        self.assertEqual(result.unchecked, "no invariant was returned: only an exception, "
                                           "a deadlock or a stall could fail")

    def test_a_failure_found_within_the_budget_is_the_verdict(self) -> None:
        clock = Clock()
        with unittest.mock.patch.object(seconds, "time", clock):
            result = explore(clock.ticking(a_goes_first), max_seconds=0.5)
        self.assertIsNotNone(result.failure)
        self.assertEqual(result.stopped, "")

    def test_the_budget_of_a_search_over_processes_is_the_whole_search_s(self) -> None:
        result = explore(three_threads, processes=2, max_seconds=0.001,
                         max_schedules=10**9)
        self.assertEqual(result.stopped, "max_seconds=0.001")
        self.assertGreaterEqual(result.runs, 2)  # each process made one run at least
        self.assertIn("; stopped by max_seconds=0.001 with orders left", str(result))

    def test_a_budget_that_is_no_number_of_seconds_is_refused(self) -> None:
        for value, error in ((0, ValueError), (-1.0, ValueError), (float("inf"), ValueError),
                             (float("nan"), ValueError), ("5", TypeError), (True, TypeError),
                             (None, TypeError)):
            with self.subTest(value=value), self.assertRaisesRegex(
                    error, "^max_seconds is a (finite )?number of seconds"), unchecked():
                blanket.explore(two_orders, max_seconds=value)


if __name__ == "__main__":  # pragma: no cover
    unittest.main()
