"""One thread loads settings while another reads the timeout: explore every
order of their accesses."""

import unittest

import blanket

from .. import where
from . import buggy, fixed


def load_while_reading(make_registry):
    """A setup for blanket.explore: A loads settings with a timeout of 2.5
    into the registry *make_registry* makes for the scenario, while B reads
    the timeout."""
    def setup(scenario):
        registry = make_registry(scenario)
        # B runs read_timeout, whose call of registry.timeout is not followed:
        # name the class, and all its code is watched.
        scenario.instrument(type(registry))
        read = []

        def read_timeout():
            read.append(registry.timeout())
        scenario.thread(registry.load, 2.5)
        scenario.thread(read_timeout)

        def none_or_whole():
            assert read[0] in (None, 2.5), f"read a timeout of {read[0]}"
        return none_or_whole
    return setup


#: The setup on the buggy code (its page shows the races it has).
BUGGY = load_while_reading(lambda scenario: buggy.Registry())


class TestBuggyRegistry(unittest.TestCase):
    def test_the_reader_sees_the_settings_half_made(self):
        result = blanket.explore(BUGGY)
        self.assertFalse(result.ok)
        self.assertIn("read a timeout of 0.0", result.failure.message)
        races = [str(race) for race in result.races]
        publish = where(buggy, "self.current = settings")
        look = where(buggy, "settings = self.current")
        self.assertIn(f"Registry.current: A writes at {publish}, B reads at {look}", races)
        set_up = where(buggy, "settings.timeout = timeout")
        use = where(buggy, "return settings.timeout")
        self.assertIn(f"Settings.timeout: A writes at {set_up}, B reads at {use}", races)


class TestFixedRegistry(blanket.ScenarioTestCase):
    def test_every_order_reads_none_or_the_whole_settings_and_nothing_races(self):
        # self.explore fails the test, with a replay, if an order fails.
        result = self.explore(load_while_reading(
            lambda scenario: fixed.Registry(scenario.Lock())))
        self.assertTrue(result.exhausted)
        self.assertEqual(result.races, [])
