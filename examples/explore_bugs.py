"""Explore five classic concurrency bugs and four data races on plain shared
state: how long blanket takes to find each one, and how many distinct orders
an exhaustive search of its fix runs.

Run from the repository root: ``python examples/explore_bugs.py``.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import blanket  # noqa: E402
from tests import explore_bugs as bugs  # noqa: E402
from tests import race_bugs as races  # noqa: E402

CASES = [
    ("check-then-act", bugs.check_then_act, "dfs", bugs.check_then_act_fixed),
    ("ABBA deadlock", bugs.abba, "dfs", bugs.abba_fixed),
    ("five dining philosophers", bugs.philosophers, "random", bugs.philosophers_fixed),
    ("if instead of while", bugs.if_not_while, "dfs", bugs.if_not_while_fixed),
    ("lost wakeup", bugs.lost_wakeup, "dfs", bugs.lost_wakeup_fixed),
    ("race: self.count += 1", races.counter, "dfs", races.counter_fixed),
    ("race: not in d, d[k] = v", races.cache, "dfs", races.cache_fixed),
    ("race: len(s), s.pop()", races.stack, "dfs", races.stack_fixed),
    ("race: published, then set", races.publish, "dfs", races.publish_fixed),
]


def main() -> None:
    threading.excepthook = lambda args: None  # the bugs' own tracebacks
    print(f"python {sys.version.split()[0]}, GIL "
          f"{'on' if getattr(sys, '_is_gil_enabled', lambda: True)() else 'off'}")
    print(f"{'bug':26} {'strategy':8} {'found in':>9} {'runs':>5}   "
          f"{'fix: orders':>11} {'exhausted':>9} {'in':>7}")
    for name, buggy, strategy, fixed in CASES:
        started = time.perf_counter()
        found = blanket.explore(buggy, strategy=strategy)
        found_in = time.perf_counter() - started
        assert found.failure is not None, name
        started = time.perf_counter()
        clean = blanket.explore(fixed)
        clean_in = time.perf_counter() - started
        assert clean.failure is None, clean
        print(f"{name:26} {strategy:8} {found_in:8.3f}s {found.runs:5}   "
              f"{clean.count:11} {str(clean.exhausted):>9} {clean_in:6.2f}s")
        said = found.failure.message.splitlines()[-1]
        if not said.startswith(found.failure.kind):
            said = f"{found.failure.kind}: {said}"
        print(f"    {said[:100]}")


if __name__ == "__main__":
    main()
