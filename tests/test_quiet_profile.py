"""blanket's own bookkeeping of a call runs with the thread's Python profile
function off on Python 3.11 (an exploration's, see blanket.exploration.unseen, would
otherwise run at every call and return of it); the profile function sees
the code under test, and is back after every call."""

from __future__ import annotations

import sys
import unittest
from types import FrameType
from typing import Any

import blanket


def marker() -> None:
    """A function of the code under test, for the profile to see."""


class Calls:
    """A profile function that is an object, not a Python function."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            self.names.append(frame.f_code.co_name)


@unittest.skipUnless(sys.version_info < (3, 12), "turned off on Python 3.11 only")
class BookkeepingUnprofiled(unittest.TestCase):
    def run_profiled(self, profile: Any) -> list[object]:
        """Run a thread that takes a lock twice under *profile*; return what
        sys.getprofile() was after each call on the lock."""
        scenario = blanket.Scenario()
        lock = scenario.Lock()
        after: list[object] = []

        def work() -> None:
            sys.setprofile(profile)
            try:
                for _ in range(2):
                    with lock:
                        marker()
                    after.append(sys.getprofile())
            finally:
                sys.setprofile(None)

        thread = scenario.thread(work)
        with scenario:
            scenario.finish(thread)
        return after

    def test_a_python_profile_function_is_off_in_the_bookkeeping_only(self) -> None:
        names: list[str] = []

        def profile(frame: FrameType, event: str, arg: Any) -> None:
            if event == "call":
                names.append(frame.f_code.co_name)

        self.assertEqual(self.run_profiled(profile), [profile, profile])
        self.assertEqual(names.count("marker"), 2)
        self.assertIn("acquire", names)  # the primitive's method, called by the code
        self.assertNotIn("_begin", names)
        self.assertNotIn("park", names)
        self.assertNotIn("close", names)

    def test_any_other_profile_function_is_left_on(self) -> None:
        calls = Calls()
        self.assertEqual(self.run_profiled(calls), [calls, calls])
        self.assertEqual(calls.names.count("marker"), 2)
        self.assertIn("_begin", calls.names)
        self.assertIn("close", calls.names)


if __name__ == "__main__":
    unittest.main()
