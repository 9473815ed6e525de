"""blanket.explore, what it refuses and what it owns up to: arguments of
the wrong type or value refused at the call, timed waits that end with the
run, and the verdict naming what the run could not see (threads and real
primitives outside blanket's control)."""

from __future__ import annotations

import math
import time
import unittest
from typing import Any

import blanket

from .support import unchecked
from .test_explore import two_sections


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


if __name__ == "__main__":
    unittest.main()
