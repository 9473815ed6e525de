"""blanket.explore watches what a thread's target runs whatever the target
is: a function, a ``functools.partial``, or a callable instance (a
``unittest.mock.Mock``, a locked wrapper), whose type's ``__call__`` is
the code the thread runs, even in a library's module (gh-142651: a Mock's
``call_count`` loses updates when two threads call it)."""

from __future__ import annotations

import functools
import unittest
from unittest import mock

from blanket import Scenario

from .support import unchecked
from .test_explore import explore, failure_of


def mock_called_twice(scenario: Scenario) -> object:
    """Two threads call one Mock: its call count must say 2."""
    called = mock.Mock()
    scenario.thread(called)
    scenario.thread(functools.partial(called))

    def invariant() -> None:
        assert called.call_count == 2, f"call_count is {called.call_count}"
    return invariant


def mock_through_c(scenario: Scenario) -> object:
    """Two threads call a Mock through a C callable (``lru_cache`` keeping
    nothing): the library code it calls back is the thread's own."""
    called = mock.Mock()
    uncached = functools.lru_cache(maxsize=0)(called)
    scenario.thread(uncached)
    scenario.thread(uncached)

    def invariant() -> None:
        assert called.call_count == 2, f"call_count is {called.call_count}"
    return invariant


class Counted:
    """A callable object counting its calls (not thread-safe)."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> None:
        self.calls += 1


class Wrapped(Counted):
    """The same, its __call__ inherited."""


def instance_called_twice(scenario: Scenario) -> object:
    counted = Wrapped()
    scenario.thread(counted)
    scenario.thread(counted)

    def invariant() -> None:
        assert counted.calls == 2, f"calls is {counted.calls}"
    return invariant


class CallableTargets(unittest.TestCase):
    # (typeguard's checks of blanket's own calls, in a typeguard-checked run
    # of the suite, read a Mock's attributes: state the threads share,
    # touched by code blanket runs itself; the user's run has no such checks)
    def test_a_mock_as_the_target_is_watched(self) -> None:
        with unchecked():
            failure = failure_of(explore(mock_called_twice))
        self.assertEqual(failure.kind, "invariant")
        self.assertIn("call_count is 1", failure.message)
        self.assertIn("call_count at unittest/mock.py", str(failure))

    def test_library_code_a_c_target_calls_back_is_watched(self) -> None:
        with unchecked():
            failure = failure_of(explore(mock_through_c))
        self.assertIn("call_count is 1", failure.message)

    def test_an_inherited_call_is_watched(self) -> None:
        failure = failure_of(explore(instance_called_twice))
        self.assertIn("calls is 1", failure.message)
        self.assertIn("write Wrapped.calls at tests/test_explore_targets.py", str(failure))

    def test_the_invariant_s_traceback_starts_in_the_setup(self) -> None:
        message = failure_of(explore(instance_called_twice)).message
        frames = [line for line in message.splitlines() if line.startswith('  File "')]
        self.assertTrue(frames, message)
        self.assertTrue(all(__file__ in line for line in frames), frames)


if __name__ == "__main__":  # pragma: no cover
    unittest.main()
