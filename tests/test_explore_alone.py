"""One exploration at a time in a process: explorations set process-wide
hooks (``sys.monitoring``'s tool, the threads' profile, the CPU their
threads run on), so a second thread's exploration, while one goes on, is
refused with an error naming both threads; before, on 3.13t, it crashed
(``SystemError``) or failed (``ValueError: tool 4 is not in use``). An
exploration nested in the same thread is not refused."""

from __future__ import annotations

import threading
import unittest

import blanket
from blanket import Scenario

from .test_explore import BOUND, explore, two_sections


class OneAtATime(unittest.TestCase):
    def test_another_thread_s_exploration_is_refused(self) -> None:
        started, asked = threading.Event(), threading.Event()
        refused: list[BaseException] = []

        def waits_in_its_setup(scenario: Scenario) -> None:
            started.set()
            # (the setup runs in the exploring thread, outside any run's threads)
            asked.wait(BOUND)
            two_sections(scenario)

        results: list[blanket.Exploration] = []
        first = threading.Thread(target=lambda: results.append(explore(waits_in_its_setup)),
                                 name="first explorer")
        first.start()
        try:
            self.assertTrue(started.wait(BOUND))
            try:
                explore(two_sections)
            except RuntimeError as error:
                refused.append(error)
        finally:
            asked.set()
            first.join(BOUND)
        self.assertFalse(first.is_alive())
        self.assertEqual(len(refused), 1)
        self.assertIn("cannot explore while thread 'first explorer' does: one exploration "
                      "at a time in a process", str(refused[0]))
        self.assertTrue(results and results[0].ok, results)
        self.assertTrue(explore(two_sections).ok)  # and once it ended, another may

    def test_an_exploration_nested_in_the_same_thread_is_not_refused(self) -> None:
        inner: list[blanket.Exploration] = []

        def explores_first(scenario: Scenario) -> None:
            if not inner:
                inner.append(explore(two_sections))
            two_sections(scenario)

        self.assertTrue(explore(explores_first).ok)
        self.assertTrue(inner[0].ok, inner)


if __name__ == "__main__":  # pragma: no cover
    unittest.main()
