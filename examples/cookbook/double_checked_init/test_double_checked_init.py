"""A loads the settings; B asks for one of them while A reads the source."""

import blanket

from . import buggy, fixed


def colour(settings):
    """What a caller of the settings does: look a value up."""
    return settings.get()["colour"]


class ReadWhileLoading:
    """The script, run against either version of the settings."""

    module = None  # set by each test class

    def read_while_loading(self):
        source = self.module.Source(self.scenario.Lock(), {"colour": "blue"})
        settings = self.module.Settings(self.scenario.Lock(), source)
        A = self.worker(colour, settings)
        with self.scenario:
            # A takes the settings lock and goes to read the source...
            self.scenario.skip(A, settings.lock.acquire, wait=True)
            self.scenario.park(A, source.lock.acquire)
            # ...when B asks for the colour. B gets as far as it can: to the
            # settings lock, or to the end.
            B = self.worker(colour, settings)
            self.scenario.wait(B, blanket.Terminated(B))
            self.scenario.finish(A, B)
        return settings, A, B


class TestBuggySettings(ReadWhileLoading, blanket.ScenarioTestCase):
    module = buggy

    def test_the_second_reader_finds_the_settings_empty(self):
        settings, A, B = self.read_while_loading()
        self.assertEqual(self.outcome["A"], "blue")
        self.assertIsInstance(self.outcome["B"], KeyError)
        self.assertAcquiredOrder(settings.lock, [A])  # B never took the lock


class TestFixedSettings(ReadWhileLoading, blanket.ScenarioTestCase):
    module = fixed

    def test_the_second_reader_waits_for_the_settings(self):
        settings, A, B = self.read_while_loading()
        self.assertEqual(self.outcome, {"A": "blue", "B": "blue"})
        self.assertAcquiredOrder(settings.lock, [A, B])
