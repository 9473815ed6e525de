"""Replaying schedules with steps at data races (issue 15): the test
:func:`blanket.explore` writes for each of the six race bugs fails on every
run, and the same schedule passes on the bug's locked fix; the steps are
matched by what they say (thread, read or write, what, file and line)."""

from __future__ import annotations

import os
import types
import unittest
from typing import Any

import blanket
from blanket import Scenario
from blanket.exploration import reproduce
from blanket.exploration.places import module_path
from blanket.exploration.tried import untried

from . import race_bugs
from .support import quiet_thread_errors
from .twins.one import counter as counter_one
from .twins.two import counter as counter_two

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
        # The schedule (shrunk) is the replay's first steps; its rule takes the rest.
        self.assertEqual(replayed.steps[:len(failure.schedule)], failure.schedule)
        self.assertIn("the accounts hold", str(replayed))


class RaceFailuresReplay(unittest.TestCase):
    """The test written for a ``races="fail"`` failure fails on the race
    itself (whatever the outcome), and passes on the locked fix."""

    def test_the_reproducer_fails_on_the_race_and_passes_on_the_fix(self) -> None:
        for bug, (setup, fixed, _) in race_bugs.BUGS.items():
            with self.subTest(bug), quiet_thread_errors():
                failure = blanket.explore(setup, races="fail", timeout=BOUND).failure
                assert failure is not None
                self.assertEqual(failure.kind, "race")
                self.assertIn('], races="fail")\n', failure.source)
                case = _test_class(failure.source)
                failed = 0
                for _ in range(RUNS):
                    result = unittest.TestResult()
                    case("test_schedule").run(result)
                    self.assertEqual(result.errors, [])
                    failed += len(result.failures)
                    if result.failures:
                        self.assertIn("the replay failed: race: data race(s):",
                                      result.failures[0][1])
                self.assertEqual(failed, RUNS, f"{bug}: {failed} of {RUNS} runs failed")
                for _ in range(RUNS):
                    replayed = reproduce.replay(fixed, failure.schedule, races="fail",
                                                timeout=BOUND)
                    self.assertIsNone(replayed.failure, replayed)

    def test_the_race_is_the_failure_where_the_outcome_is_right(self) -> None:
        # The schedule runs A's update whole, then B's: the count is right,
        # the race is there all the same.
        failure = blanket.explore(race_bugs.counter, races="fail", timeout=BOUND).failure
        assert failure is not None
        self.assertIsNone(reproduce.replay(race_bugs.counter, failure.schedule,
                                           timeout=BOUND).failure)
        replayed = reproduce.replay(race_bugs.counter, failure.schedule, races="fail",
                                    timeout=BOUND)
        assert replayed.failure is not None
        kind, message = replayed.failure
        self.assertEqual(kind, "race")
        self.assertIn("Counter.count: A writes at", message)

    def test_another_failure_comes_first(self) -> None:
        # Both threads see the one item, then both pop: A's pop raises.
        with quiet_thread_errors():
            failure = blanket.explore(race_bugs.stack, timeout=BOUND).failure
            assert failure is not None
            replayed = reproduce.replay(race_bugs.stack, failure.schedule, races="fail",
                                        timeout=BOUND)
        assert replayed.failure is not None
        self.assertEqual(replayed.failure[0], "exception")

    def test_races_takes_off_or_fail(self) -> None:
        with self.assertRaises(ValueError) as caught:
            reproduce.replay(race_bugs.counter, [], races="report")
        self.assertEqual(str(caught.exception),
                         "races='report': expected one of 'off', 'fail'")


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
        where = f"tests/test_replay_races.py:{BUMP}"
        replayed = reproduce.replay(box_and_other, [
            f"A: read Box.value at {where}", f"A: write Box.value at {where}"],
            timeout=BOUND)
        self.assertIsNone(replayed.failure, replayed)
        self.assertEqual([str(step) for step in replayed.steps], [
            f"A: read Box.value at {where}", f"A: write Box.value at {where}"])

    def test_a_step_at_another_line_diverges(self) -> None:
        where = f"tests/test_replay_races.py:{BUMP + 1}"
        replayed = reproduce.replay(box_and_other, [f"A: read Box.value at {where}"],
                                    timeout=BOUND)
        self.assertEqual(replayed.followed, 0)
        self.assertEqual(replayed.steps, ())
        self.assertEqual(replayed.diverged,
                         f"the threads ended before step 1 (A: read Box.value at {where})")


def twins(scenario: Scenario) -> Any:
    """A bumps the box in tests/twins/one/counter.py, B in .../two/counter.py:
    two files of one name, the update on the same line."""
    box = Box()
    scenario.thread(counter_one.bump, box)
    scenario.thread(counter_two.bump, box)

    def both_counted() -> None:
        assert box.value == 2, f"value is {box.value}"
    return both_counted


TWIN_LINE = counter_one.bump.__code__.co_firstlineno + 1


class TwoFilesOfOneName(unittest.TestCase):
    def test_steps_name_each_file_by_its_module_path(self) -> None:
        # The failing run as the search met it, both threads' updates in it
        # (shrunk, A's alone is left: B's, in the other file, does not park).
        with untried():
            failure = blanket.explore(twins, timeout=BOUND).failure
        assert failure is not None
        self.assertEqual(counter_two.bump.__code__.co_firstlineno + 1, TWIN_LINE)
        places = {step.thread: step.where for step in failure.schedule}
        self.assertEqual(places, {"A": f"tests/twins/one/counter.py:{TWIN_LINE}",
                                  "B": f"tests/twins/two/counter.py:{TWIN_LINE}"})
        case = _test_class(failure.source)
        result = unittest.TestResult()
        case("test_schedule").run(result)
        self.assertEqual(len(result.failures), 1, result.errors)
        self.assertIn("value is 1", result.failures[0][1])

    def test_only_the_named_file_parks(self) -> None:
        # By the file's name alone B's update (two/counter.py, same line)
        # parked too, and the rule let it go after the schedule: two more steps.
        where = f"tests/twins/one/counter.py:{TWIN_LINE}"
        schedule = [f"A: read Box.value at {where}", f"A: write Box.value at {where}"]
        replayed = reproduce.replay(twins, schedule, timeout=BOUND)
        self.assertIsNone(replayed.failure, replayed)
        self.assertEqual([str(step) for step in replayed.steps], schedule)


class ModulePaths(unittest.TestCase):
    def test_the_path_spans_the_module_name(self) -> None:
        file = "/checkout/src/pkg/sub/mod.py".replace("/", os.sep)
        for scope, path in [
                ({"__name__": "pkg.sub.mod"}, "pkg/sub/mod.py"),
                ({"__name__": "mod"}, "mod.py"),
                ({}, "mod.py"),
                ({"__name__": "__main__", "__spec__": None}, "mod.py"),
                ({"__name__": "__main__", "__spec__": types.SimpleNamespace(
                    name="pkg.sub.mod")}, "pkg/sub/mod.py")]:
            with self.subTest(scope=scope):
                self.assertEqual(module_path(file, scope), path)
        package = "/checkout/src/pkg/sub/__init__.py".replace("/", os.sep)
        self.assertEqual(module_path(package, {"__name__": "pkg.sub"}),
                         "pkg/sub/__init__.py")
        self.assertEqual(module_path("<doctest races.rst[3]>", {"__name__": "races"}),
                         "<doctest races.rst[3]>")


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
        with untried():  # (unshrunk: every order fails, so no step is needed)
            result = blanket.explore(always_fails, timeout=BOUND)
        self.assertEqual(result.runs, 2)
        assert result.failure is not None
        where = f"tests/test_replay_races.py:{BUMP}"
        self.assertEqual(str(result.failure.schedule[0]), f"A: read Box.value at {where}")

if __name__ == "__main__":
    unittest.main()
