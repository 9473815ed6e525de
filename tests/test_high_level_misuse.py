"""Script mistakes the high-level helpers refuse at once.

``assign``, ``relay``, ``allocate`` and ``cycle`` check the threads they are
given before letting anything go: the scenario must be entered, every thread
must be of this scenario and not the scheduler itself, and a cycle names
each thread once. Each mistake raises at the call (even ``relay`` and
``allocate``, whose iterators run later), with nothing let go; the scenario's
bound is short, so a check that is missing fails as a stall, not a hang.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import blanket

from .test_high_level_support import HighLevelTestCase, spawn

#: Every helper, as a call on the API object of the primitive it drives,
#: given the threads to name.
HELPERS: dict[str, Callable[[Any, tuple[threading.Thread, ...]], object]] = {
    "assign": lambda api, threads: api.assign(*threads),
    "relay": lambda api, threads: api.relay(*threads),
    "allocate": lambda api, threads: api.allocate(*threads),
    "cycle": lambda api, threads: api.cycle(*threads),
}


class Refused(HighLevelTestCase):
    """Each helper, on a primitive it drives, with a bad thread named."""

    def setUp(self) -> None:
        self.scenario = blanket.Scenario("script", timeout=0.5)
        lock = self.scenario.Lock()
        semaphore = self.scenario.Semaphore()
        event = self.scenario.Event()
        self.primitives = {"assign": lock, "relay": lock, "allocate": semaphore,
                           "cycle": event}
        self.waiter = spawn(self.scenario, "A", event.wait)
        self.opener = spawn(self.scenario, "B", event.set)
        self.taker = spawn(self.scenario, "C", self.take_each, lock, semaphore)

    @staticmethod
    def take_each(lock: Any, semaphore: Any) -> None:
        with lock:
            pass
        with semaphore:
            pass

    def threads(self, helper: str, bad: threading.Thread) -> tuple[threading.Thread, ...]:
        """The threads to name to *helper*, *bad* among them."""
        if helper == "cycle":
            return (bad, self.opener)
        return (bad,) if helper == "assign" else (self.taker, bad)

    def call(self, helper: str, bad: threading.Thread) -> object:
        api = self.scenario.api(self.primitives[helper])
        return HELPERS[helper](api, self.threads(helper, bad))

    def assertNothingLetGo(self) -> None:
        self.assertEqual(len(self.scenario.log), 0)
        self.assertParkedAt(self.scenario, self.waiter, self.primitives["cycle"].wait)

    def test_outside_the_scenario(self) -> None:
        for helper in HELPERS:
            with self.subTest(helper), self.assertRaisesRegex(
                    RuntimeError, rf"^{helper} on .* needs the scenario 'script' entered"):
                self.call(helper, self.waiter)
        with self.scenario:
            self.assertNothingLetGo()
            self.scenario.finish(self.waiter, self.opener, self.taker)

    def test_a_thread_of_another_scenario(self) -> None:
        other = blanket.Scenario("other")
        stranger = spawn(other, "S", lambda: None)
        with self.scenario:
            for helper in HELPERS:
                with self.subTest(helper), self.assertRaisesRegex(
                        ValueError, rf"^{helper} on .*: thread 'S' belongs to scenario "
                                    rf"'other', not to 'script'"):
                    self.call(helper, stranger)
            self.assertNothingLetGo()
            self.scenario.finish(self.waiter, self.opener, self.taker)

    def test_the_scheduler(self) -> None:
        scheduler = threading.current_thread()
        with self.scenario:
            for helper in HELPERS:
                with self.subTest(helper), self.assertRaisesRegex(
                        ValueError, rf"^{helper} on .*: thread {scheduler.name!r} is the "
                                    rf"scheduler \(it entered 'script'\)"):
                    self.call(helper, scheduler)
            self.assertNothingLetGo()
            self.scenario.finish(self.waiter, self.opener, self.taker)

    def test_a_cycle_naming_a_thread_twice(self) -> None:
        event = self.primitives["cycle"]
        second = spawn(self.scenario, "D", event.wait)
        api = self.scenario.api(event)
        with self.scenario:
            for threads in ((self.waiter, self.waiter, self.opener),
                            (self.waiter, second, self.waiter),
                            (self.waiter, self.opener, self.opener)):
                with self.subTest(threads=[t.name for t in threads]), \
                        self.assertRaisesRegex(
                            ValueError, r"^thread '[AB]' is named twice \(cycle on Event 1 "):
                    api.cycle(*threads)
            self.assertNothingLetGo()
            api.cycle(self.waiter, second, self.opener).close()
            self.scenario.finish(self.taker)
