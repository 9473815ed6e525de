"""Is Seats thread-safe? check_linearizable draws the buyers' scenarios."""

import unittest

import blanket

from . import buggy, fixed


class TestBuggySeats(unittest.TestCase):
    def test_one_seat_is_sold_twice(self):
        result = blanket.check_linearizable(buggy.Seats, buggy.OPERATIONS)
        self.assertFalse(result.ok)
        failure = result.failure
        self.assertEqual(failure.kind, "not linearizable")
        # Both buyers were told they have the seat.
        self.assertEqual(failure.history.outcomes[0].value, True)
        self.assertEqual(failure.history.outcomes[1].value, True)
        self.assertIn("from cookbook.oversold.buggy import Seats", failure.source)
        self.assertIn("from cookbook.oversold.buggy import OPERATIONS", failure.source)


class TestFixedSeats(blanket.ScenarioTestCase):
    def test_every_scenario_is_linearizable_in_every_order(self):
        # assertLinearizable fails the test, with a replay, if one is not.
        result = self.assertLinearizable(fixed.Seats, fixed.OPERATIONS)
        self.assertTrue(all(result.exhausted))
