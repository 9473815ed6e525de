"""explore(processes=N): the exact shards of a search run in N processes
(blanket.exploration.processes), merged into the one process's result."""

from __future__ import annotations

import os
import unittest
import unittest.mock
from typing import Any

import blanket
from blanket.exploration import processes
from blanket.exploration.races import Race
from blanket.exploration.reached import FileLines, Reach

from . import explore_bugs as bugs
from . import reach_cases as cases
from .support import quiet_thread_errors, unchecked

BOUND = 5.0


class SameAsOneProcess(unittest.TestCase):
    def test_the_same_schedules_and_verdict(self) -> None:
        for setup in (cases.trylock_drain, bugs.check_then_act_fixed):
            with self.subTest(setup.__name__):
                one = blanket.explore(setup, timeout=BOUND)
                two = blanket.explore(setup, processes=2, timeout=BOUND)
                self.assertEqual(sorted(two.schedules), sorted(one.schedules))
                self.assertTrue(one.exhausted and two.exhausted)
                self.assertGreaterEqual(two.runs, one.runs)

    def test_a_failure_a_line_and_the_lines_of_every_shard(self) -> None:
        with quiet_thread_errors():
            result = blanket.explore(bugs.check_then_act, processes=2, timeout=BOUND)
        assert result.failure is not None
        self.assertEqual(result.failure.kind, "invariant")
        place = cases.place("never")
        result = blanket.explore(cases.never, processes=2, reach=place, lines=True,
                                 timeout=BOUND)
        self.assertEqual(result.reached, {place: None})
        self.assertIn(f"no order of these threads runs {place}", str(result))
        line = int(place.rsplit(":", 1)[1])
        self.assertEqual(result.lines["tests/reach_cases.py"].never, {line})


    def test_the_sampling_strategies_split_their_runs_too(self) -> None:
        # random and pct split their run numbers among the processes: a
        # space their depth-first pass ends is exhausted alike, a bug found.
        for strategy in ("random", "pct"):
            with self.subTest(strategy):
                one = blanket.explore(bugs.check_then_act_fixed, strategy=strategy,
                                      timeout=BOUND)
                two = blanket.explore(bugs.check_then_act_fixed, strategy=strategy,
                                      processes=2, timeout=BOUND)
                self.assertTrue(one.exhausted and two.exhausted, (one, two))
                self.assertEqual(sorted(two.schedules), sorted(one.schedules))
                with quiet_thread_errors():
                    found = blanket.explore(bugs.check_then_act, strategy=strategy,
                                            processes=2, timeout=BOUND)
                assert found.failure is not None, found
                self.assertEqual(found.failure.kind, "invariant")

class Refused(unittest.TestCase):
    def test_what_processes_refuses(self) -> None:
        for options, error, text in [
                ({"processes": 0}, ValueError, "processes=0: expected at least 1"),
                ({"processes": "2"}, TypeError, "processes='2': expected an int"),
                ({"processes": True}, TypeError, "processes=True: expected an int"),
                ({"processes": 2, "shard": "1/2"}, ValueError, "run the shards themselves"),
        ]:
            with self.subTest(options), unchecked(), self.assertRaisesRegex(error, text):
                blanket.explore(cases.never, **options)

    def test_a_setup_another_process_cannot_import(self) -> None:
        def nested(scenario: blanket.Scenario) -> None:
            cases.never(scenario)
        with self.assertRaisesRegex(TypeError, "cannot be sent to another process"):
            blanket.explore(nested, processes=2)


class Merge(unittest.TestCase):
    """How the shards' results add up (processes.merge)."""

    def part(self, **fields: Any) -> blanket.Exploration:
        result = blanket.Exploration("dfs")
        for name, value in fields.items():
            setattr(result, name, value)
        return result

    def test_the_first_of_each_and_everything_once(self) -> None:
        race = Race("Counter.count", ("A", "read", "x.py:1"), ("B", "write", "x.py:1"))
        reach = Reach("x.py:3", ())
        first = self.part(schedules=[("A",)], runs=2, exhausted=True, unseen=["u"],
                          races=[race], reached={"x.py:3": None},
                          lines={"x.py": FileLines("x.py", frozenset({1}),
                                                   frozenset({2, 3}), frozenset({2, 3}))})
        second = self.part(schedules=[("B",)], runs=3, exhausted=False, unseen=["u", "v"],
                           races=[race], reached={"x.py:3": reach},
                           lines={"x.py": FileLines("x.py", frozenset({2}),
                                                    frozenset({3}), None)})
        merged = processes.merge([first, second])
        self.assertEqual((merged.schedules, merged.runs, merged.exhausted, merged.unseen,
                          merged.races, merged.reached),
                         ([("A",), ("B",)], 5, False, ["u", "v"], [race], {"x.py:3": reach}))
        self.assertEqual(merged.lines["x.py"], FileLines("x.py", frozenset({1, 2}),
                                                         frozenset({3}), None))
        again = processes.merge([second, first])
        self.assertIs(again.reached["x.py:3"], reach)  # the first found stays

    def test_a_shard_keeps_to_its_cpu(self) -> None:
        calls: list[Any] = []

        def explore(setup: Any, **options: Any) -> blanket.Exploration:
            calls.append(options)
            return self.part()
        with unittest.mock.patch.object(os, "sched_setaffinity") as pin:
            processes._shard(explore, cases.never, 2, 3, 1, {"seed": 4})
            processes._shard(explore, cases.never, 1, 3, None, {})
        pin.assert_called_once_with(0, {1})
        self.assertEqual(calls, [{"shard": (2, 3), "seed": 4}, {"shard": (1, 3)}])

    def test_without_cpus_to_name(self) -> None:
        with unittest.mock.patch.object(os, "sched_getaffinity", lambda _: set()):
            result = blanket.explore(cases.never, processes=2, timeout=BOUND)
        self.assertTrue(result.exhausted)
