"""blanket.explore names the first thing that went wrong: a thread that
raised is the failure, with its traceback from the code under test, and the
threads left waiting for what it held are told as the consequence, never
reported as a deadlock of their own."""

from __future__ import annotations

import unittest

from blanket import Scenario

from .test_explore import explore, failure_of


def raises_holding_a_lock(scenario: Scenario) -> None:
    """A takes the lock and fails an assertion before letting it go; B
    then waits for the lock for ever."""
    lock = scenario.Lock()

    def careless() -> None:
        lock.acquire()
        assert False, "the code under test failed here"  # noqa: B011, PT015

    def waiting() -> None:
        with lock:
            pass

    scenario.thread(careless)
    scenario.thread(waiting)


def raises_alone(scenario: Scenario) -> None:
    """A raises holding nothing; B goes on and ends."""
    lock = scenario.Lock()

    def fails() -> None:
        raise ValueError("A's own bug")

    def fine() -> None:
        with lock:
            pass

    scenario.thread(fails)
    scenario.thread(fine)


class TheFirstCause(unittest.TestCase):
    def test_a_thread_raising_with_a_lock_held_is_the_failure(self) -> None:
        failure = failure_of(explore(raises_holding_a_lock))
        self.assertEqual(failure.kind, "exception")
        first, _, then = failure.message.partition("then, as a consequence")
        self.assertTrue(first.startswith("thread A raised:"), failure.message)
        self.assertIn("AssertionError: the code under test failed here", first)
        self.assertIn("B waits for Lock 1, which A held when it ended", then)

    def test_the_traceback_starts_in_the_code_under_test(self) -> None:
        message = failure_of(explore(raises_holding_a_lock)).message
        frames = [line for line in message.splitlines() if line.startswith('  File "')]
        self.assertTrue(frames, message)
        self.assertTrue(all(__file__ in line for line in frames), frames)

    def test_the_written_test_is_named_after_the_exception(self) -> None:
        source = failure_of(explore(raises_holding_a_lock)).source
        self.assertIn('"""AssertionError: the code under test failed here"""', source)

    def test_with_nothing_following_from_it_no_consequence_is_told(self) -> None:
        failure = failure_of(explore(raises_alone))
        self.assertEqual(failure.kind, "exception")
        self.assertTrue(failure.message.endswith("ValueError: A's own bug"), failure.message)


if __name__ == "__main__":  # pragma: no cover
    unittest.main()
