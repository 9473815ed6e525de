"""Two threads ask the cache for the same host: explore every order of their
accesses."""

import unittest

import blanket

from .. import where
from . import buggy, fixed


def two_gets(make_cache):
    """A setup for blanket.explore: two threads get the connection to one
    host from the cache *make_cache* makes for the scenario."""
    def setup(scenario):
        cache = make_cache(scenario)
        scenario.thread(cache.get, "db")
        scenario.thread(cache.get, "db")

        def made_once():
            assert cache.made == 1, f"made {cache.made} connections"
        return made_once
    return setup


#: The setup on the buggy code (its page shows the races it has).
BUGGY = two_gets(lambda scenario: buggy.ConnectionCache())


class TestBuggyCache(unittest.TestCase):
    def test_both_threads_miss_and_make_a_connection(self):
        result = blanket.explore(BUGGY)
        self.assertFalse(result.ok)
        self.assertIn("made 2 connections", result.failure.message)
        check = where(buggy, "if host not in self.connections")
        insert = where(buggy, "self.connections[host] = Connection(host)")
        self.assertIn(f"dict: A reads at {check}, B writes at {insert}",
                      [str(race) for race in result.races])


class TestFixedCache(blanket.ScenarioTestCase):
    def test_every_order_makes_one_connection_and_nothing_races(self):
        # self.explore fails the test, with a replay, if an order fails.
        result = self.explore(two_gets(lambda scenario: fixed.ConnectionCache(scenario.Lock())))
        self.assertTrue(result.exhausted)
        self.assertEqual(result.races, [])
