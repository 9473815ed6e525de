"""Replaying schedules with steps at data races (issue 15): the test
:func:`blanket.explore` writes for each of the six race bugs fails on every
run, and the same schedule passes on the bug's locked fix; the steps are
matched by what they say (thread, read or write, what, file and line)."""

from __future__ import annotations

import types
import unittest
from typing import Any

import blanket
from blanket import Scenario, reproduce

from . import race_bugs
from .support import quiet_thread_errors

RUNS = 20  # issue 15: the reproducer fails 20 of 20 runs
BOUND = 5.0  # every wait of these tests ends well within it


def _test_class(source: str) -> type[unittest.TestCase]:
    module = types.ModuleType("replay")
    exec(compile(source, "<generated test>", "exec"), module.__dict__)  # noqa: S102
    [case] = [value for value in vars(module).values() if isinstance(value, type)
              and issubclass(value, blanket.ScenarioTestCase)
              and value is not blanket.ScenarioTestCase]
    return case


class EachRaceBugReplays(unittest.TestCase):
    def test_the_reproducer_fails_every_run_and_passes_on_the_fix(self) -> None:
        for bug, (setup, fixed, says) in race_bugs.BUGS.items():
            with self.subTest(bug), quiet_thread_errors():
                failure = blanket.explore(setup, timeout=BOUND).failure
                assert failure is not None
                self.assertTrue(any(step.call.startswith("Memory.")
                                    for step in failure.schedule), failure)
                case = _test_class(failure.source)
                failed = 0
                for _ in range(RUNS):
                    result = unittest.TestResult()
                    case("test_schedule").run(result)
                    self.assertEqual(result.errors, [])
                    failed += len(result.failures)
                    if result.failures:
                        self.assertIn(says, result.failures[0][1])
                self.assertEqual(failed, RUNS, f"{bug}: {failed} of {RUNS} runs failed")
                for _ in range(RUNS):
                    replayed = reproduce.replay(fixed, failure.schedule, timeout=BOUND)
                    self.assertIsNone(replayed.failure, replayed)
                    self.assertIsNotNone(replayed.diverged)  # the fix takes its lock

    def test_the_whole_schedule_is_followed_on_the_bug(self) -> None:
        with quiet_thread_errors():
            failure = blanket.explore(race_bugs.bank, timeout=BOUND).failure
            assert failure is not None
            replayed = reproduce.replay(race_bugs.bank, failure.schedule, timeout=BOUND)
        self.assertIsNone(replayed.diverged)
        self.assertEqual(replayed.followed, len(failure.schedule))
        self.assertEqual(replayed.steps, failure.schedule)
        self.assertIn("the accounts hold", str(replayed))


class Box:
    def __init__(self) -> None:
        self.value = 0


class Other:
    def __init__(self) -> None:
        self.value = 0


def bump(thing: Any) -> None:
    thing.value += 1


BUMP = bump.__code__.co_firstlineno + 1


def box_and_other(scenario: Scenario) -> None:
    box = Box()
    scenario.thread(bump, box)
    scenario.thread(bump, Other())


class ByMeaning(unittest.TestCase):
    def test_only_the_accesses_the_schedule_names_park(self) -> None:
        # One line reaches a Box in A and an Other in B: naming Box.value
        # parks A there, and B's access to Other.value goes on by itself.
        where = f"test_replay_races.py:{BUMP}"
        replayed = reproduce.replay(box_and_other, [
            f"A: read Box.value at {where}", f"A: write Box.value at {where}"],
            timeout=BOUND)
        self.assertIsNone(replayed.failure, replayed)
        self.assertEqual([str(step) for step in replayed.steps], [
            f"A: read Box.value at {where}", f"A: write Box.value at {where}"])

    def test_a_step_at_another_line_diverges(self) -> None:
        where = f"test_replay_races.py:{BUMP + 1}"
        replayed = reproduce.replay(box_and_other, [f"A: read Box.value at {where}"],
                                    timeout=BOUND)
        self.assertEqual(replayed.followed, 0)
        self.assertEqual(replayed.steps, ())
        self.assertEqual(replayed.diverged,
                         f"the threads ended before step 1 (A: read Box.value at {where})")


def fails_in_the_first_run(scenario: Scenario) -> Any:
    """A race, and an invariant that fails in the first run only: as a run
    that met the race by itself (free-threaded) fails, by no schedule."""
    box = Box()
    runs.append(box)
    scenario.thread(bump, box)
    scenario.thread(bump, box)

    def first_run_only() -> None:
        assert len(runs) > 1, "the first run"
    return first_run_only


runs: list[Box] = []


def always_fails(scenario: Scenario) -> Any:
    """A race, and an invariant that fails in every run."""
    box = Box()
    scenario.thread(bump, box)
    scenario.thread(bump, box)

    def never() -> None:
        raise AssertionError("never holds")
    return never


class FailuresNoScheduleMakes(unittest.TestCase):
    def setUp(self) -> None:
        runs.clear()

    def test_a_failure_in_a_run_that_met_new_races_is_searched_again(self) -> None:
        # Its races make new steps: the search starts again with them, and
        # reports the failure only if it finds no other.
        result = blanket.explore(fails_in_the_first_run, timeout=BOUND)
        self.assertGreater(result.runs, 1)
        assert result.failure is not None
        self.assertEqual(result.failure.schedule, ())
        self.assertIn("the first run", result.failure.message)

    def test_a_failure_the_new_search_finds_is_reported_instead(self) -> None:
        result = blanket.explore(always_fails, timeout=BOUND)
        self.assertEqual(result.runs, 2)
        assert result.failure is not None
        where = f"test_replay_races.py:{BUMP}"
        self.assertEqual(str(result.failure.schedule[0]), f"A: read Box.value at {where}")

if __name__ == "__main__":
    unittest.main()
