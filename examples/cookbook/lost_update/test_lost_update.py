"""Two threads count a hit each: explore every order of their accesses."""

import unittest

import blanket

from .. import where
from . import buggy, fixed


def two_hits(make_counter):
    """A setup for blanket.explore: two threads count a hit each on the
    counter *make_counter* makes for the scenario."""
    def setup(scenario):
        counter = make_counter(scenario)
        scenario.thread(counter.hit)
        scenario.thread(counter.hit)

        def both_counted():
            assert counter.count == 2, f"count is {counter.count}"
        return both_counted
    return setup


#: The setup on the buggy code (its page shows the races it has).
BUGGY = two_hits(lambda scenario: buggy.HitCounter())


class TestBuggyCounter(unittest.TestCase):
    def test_a_hit_is_lost_where_both_threads_update_the_count(self):
        result = blanket.explore(BUGGY)
        self.assertFalse(result.ok)
        self.assertIn("count is 1", result.failure.message)
        update = where(buggy, "self.count += 1")
        self.assertIn(f"HitCounter.count: A writes at {update}, B writes at {update}",
                      [str(race) for race in result.races])


class TestFixedCounter(blanket.ScenarioTestCase):
    def test_every_order_counts_both_hits_and_nothing_races(self):
        # self.explore fails the test, with a replay, if an order fails.
        result = self.explore(two_hits(lambda scenario: fixed.HitCounter(scenario.Lock())))
        self.assertTrue(result.exhausted)
        self.assertEqual(result.races, [])
