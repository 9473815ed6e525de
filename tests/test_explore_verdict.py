"""blanket.explore, what it refuses and what it owns up to: arguments of
the wrong type or value refused at the call, timed waits that end with the
run, and the verdict naming what the run could not see (threads and real
primitives outside blanket's control)."""

from __future__ import annotations

import math
import threading
import time
import unittest
from typing import Any

import blanket
from blanket import Scenario
from blanket.primitives import _wait_for

from .support import unchecked
from .test_explore import BOUND, explore, two_sections


class Arguments(unittest.TestCase):
    def assert_refused(self, error: type[Exception], says: str, *args: Any,
                       **options: Any) -> None:
        started = time.monotonic()
        with self.assertRaises(error) as caught, unchecked():
            blanket.explore(*(args or (two_sections,)), **options)
        self.assertIn(says, str(caught.exception))
        self.assertLess(time.monotonic() - started, 1.0)  # at the call, no run

    def test_counts_that_are_not_ints_are_refused(self) -> None:
        # nan compares false with everything: it ran nothing and said ok.
        self.assert_refused(TypeError, "max_schedules=nan: expected an int",
                            max_schedules=math.nan)
        self.assert_refused(TypeError, "max_schedules='5': expected an int", max_schedules="5")
        self.assert_refused(TypeError, "max_schedules=True: expected an int",
                            max_schedules=True)
        self.assert_refused(TypeError, "max_preemptions=nan: expected an int or None",
                            max_preemptions=math.nan)
        self.assert_refused(TypeError, "depth=2.0: expected an int", depth=2.0)
        self.assert_refused(TypeError, "split_depth='2': expected an int", split_depth="2")
        self.assert_refused(ValueError, "split_depth=0: expected at least 1", split_depth=0)

    def test_a_setup_that_is_not_callable_is_refused(self) -> None:
        self.assert_refused(TypeError, "explore: setup=5 is not callable", 5)

    def test_strategy_seed_timeout_and_name_of_the_wrong_type_are_refused(self) -> None:
        self.assert_refused(TypeError, "strategy=1: expected one of dfs, random, pct",
                            strategy=1)
        self.assert_refused(TypeError, "seed='1': expected an int", seed="1")
        self.assert_refused(TypeError, "seed=1.5: expected an int", seed=1.5)
        self.assert_refused(TypeError, "timeout='1': expected a number of seconds",
                            timeout="1")
        self.assert_refused(TypeError, "timeout=True: expected a number of seconds",
                            timeout=True)
        for bad in (0, -1.0, math.nan, math.inf):
            with self.subTest(timeout=bad):
                self.assert_refused(ValueError, f"timeout={bad}: expected a finite number",
                                    timeout=bad)
        self.assert_refused(TypeError, "name=3: expected a str or None", name=3)

    def test_shards_of_the_wrong_type_are_refused(self) -> None:
        for shard in (5, (1, "2"), (1, 2, 3), [1, 2], (True, 1), (1.0, 2)):
            with self.subTest(shard=shard):
                self.assert_refused(TypeError, f"shard={shard!r}: expected 'i/n' or a tuple",
                                    shard=shard)


class TimedWaits(unittest.TestCase):
    def test_an_expired_wait_for_returns_false_and_the_search_ends(self) -> None:
        # The standard library's wait_for measured the time left with the
        # clock, which an expired wait does not move: it waited again, and
        # every expiry offered one more choice (50 of 50 schedules before).
        results: list[object] = []

        def wait_for_a_flag(scenario: Scenario) -> None:
            condition = scenario.Condition()
            flag: list[int] = []

            def waiter() -> None:
                with condition:
                    results.append(condition.wait_for(lambda: bool(flag), timeout=BOUND))

            def setter() -> None:
                with condition:
                    flag.append(1)
                    condition.notify()

            scenario.thread(waiter)
            scenario.thread(setter)

        result = explore(wait_for_a_flag, max_schedules=50)
        self.assertTrue(result.exhausted, result)
        self.assertEqual(result.count, 4, result.schedules)
        self.assertIn(("A", "A", "A*", "A", "A", "B", "B", "B"), result.schedules)
        self.assertEqual(sorted(results, key=str), [False, True, True, True])

    def test_a_wait_for_notified_after_its_time_is_up_ends(self) -> None:
        class Notified:  # a condition whose every wait is notified at once
            waits = 0

            def wait(self, timeout: float | None) -> bool:
                self.waits += 1
                return True

        condition = Notified()
        self.assertFalse(_wait_for(condition, lambda: False, 0.0))  # type: ignore[arg-type]
        self.assertEqual(condition.waits, 1)

    def test_an_abandoned_run_wakes_a_disregarded_timed_event_wait(self) -> None:
        def gated(scenario: Scenario) -> None:
            event, lock = scenario.Event(), scenario.Lock()

            def waiter() -> None:
                with lock:
                    pass
                event.wait(BOUND)
                with lock:
                    pass

            def setter() -> None:
                for _ in range(2):
                    with lock:
                        pass
                event.set()

            def section() -> None:
                with lock:
                    pass

            scenario.thread(waiter)
            scenario.thread(setter)
            scenario.thread(section)

        before = set(threading.enumerate())
        started = time.monotonic()
        result = explore(gated)
        self.assertLess(time.monotonic() - started, BOUND)
        self.assertTrue(result.exhausted, result)
        self.assertGreater(result.runs, result.count)  # some runs were cut short
        self.assertEqual([t for t in threading.enumerate() if t not in before], [])


if __name__ == "__main__":
    unittest.main()
