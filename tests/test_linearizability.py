"""check_linearizable on the structures of tests/lin_structures.py: the
correct ones are linearizable with every scenario exhausted; each buggy one
is found, minimized to 2 threads x 2 operations at most, and the test
written for it fails on every run and passes on its fix (how long each
takes to find is measured in bench/linearizability.py, not here)."""

from __future__ import annotations

import types
import unittest
from unittest import mock

import blanket

from . import lin_structures


def run_source(source: str) -> unittest.TestResult:
    """Run the test case *source* defines."""
    module = types.ModuleType("generated_linearizability_test")
    exec(compile(source, "<generated>", "exec"), module.__dict__)  # noqa: S102
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    outcome = unittest.TestResult()
    suite.run(outcome)
    return outcome


class CorrectStructures(unittest.TestCase):
    def test_each_is_linearizable_with_every_scenario_exhausted(self) -> None:
        for name, (make, operations) in lin_structures.CORRECT.items():
            with self.subTest(name):
                result = blanket.check_linearizable(make, operations)
                self.assertTrue(result.ok, str(result))
                self.assertGreater(result.scenarios, 1)
                self.assertEqual(result.exhausted, [True] * result.scenarios)
                self.assertEqual(result.unseen, [])
                self.assertIn("every one's whole space", str(result))

    def test_the_queues_locks_are_the_scenarios(self) -> None:
        # Built inside the scenario, queue.Queue's mutex and conditions are
        # adopted: their calls are steps, and nothing real is met.
        make, operations = lin_structures.CORRECT["queue.Queue"]
        result = blanket.check_linearizable(make, operations, scenarios=3)
        self.assertGreater(result.schedules, result.scenarios)
        self.assertEqual(result.unseen, [])


class BuggyStructures(unittest.TestCase):
    def test_each_is_found_small_and_fast_and_its_test_replays_it(self) -> None:
        for name, (make, fixed, operations) in lin_structures.BUGGY.items():
            with self.subTest(name):
                result = blanket.check_linearizable(make, operations)
                self.assertFalse(result.ok)
                failure = result.failure
                assert failure is not None
                self.assertIn(failure.kind, ("not linearizable", "deadlock"))
                self.assertLessEqual(len(failure.workload.threads), 2)
                self.assertTrue(all(len(ops) <= 2 for ops in failure.workload.threads))
                self.assertIn("no order of the calls", str(failure))
                self.assertTrue(failure.checked.startswith("tried:"), failure.checked)
                self.assertIn(f"from tests.lin_structures import {make.__name__}",
                              failure.source)
                for _ in range(10):
                    outcome = run_source(failure.source)
                    self.assertEqual((outcome.testsRun, len(outcome.failures),
                                      len(outcome.errors)), (1, 1, 0))
                with mock.patch.object(lin_structures, make.__name__, fixed):
                    outcome = run_source(failure.source)
                self.assertTrue(outcome.wasSuccessful(), outcome.failures + outcome.errors)

    def test_the_fixes_are_linearizable(self) -> None:
        for name, (_, fixed, operations) in lin_structures.BUGGY.items():
            with self.subTest(name):
                result = blanket.check_linearizable(fixed, operations, scenarios=4)
                self.assertTrue(result.ok, str(result))
                self.assertTrue(all(result.exhausted))


class AssertLinearizable(blanket.ScenarioTestCase):
    def test_a_correct_structure_passes(self) -> None:
        result = self.assertLinearizable(lin_structures.LockedCounter,
                                         lin_structures.COUNTER_OPERATIONS, scenarios=2)
        self.assertEqual(result.scenarios, 2)

    def test_a_buggy_one_fails_with_the_report_and_the_test(self) -> None:
        with self.assertRaises(AssertionError) as raised:
            self.assertLinearizable(lin_structures.UnlockedCounter,
                                    lin_structures.COUNTER_OPERATIONS)
        self.assertIn("increment() -> 2 | increment() -> 2", str(raised.exception))
        self.assertIn("a test that replays it:", str(raised.exception))
