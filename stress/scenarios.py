"""The scenarios ``python -m stress`` repeats, each with its documented order.

Each function builds a fresh scenario, runs its script and returns the order
of events: what the workers recorded and, where the script decides it fully,
the log as ``(thread, method)`` pairs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import blanket


def _log(scenario: blanket.Scenario) -> list[str]:
    return [f"{tx.thread.name}:{tx.spec.kind}.{tx.spec.name}" for tx in scenario.log]


def _three_workers() -> tuple[blanket.Scenario, object, list[str], list[object]]:
    scenario = blanket.Scenario()
    lock = scenario.Lock()
    out: list[str] = []

    def worker(name: str) -> None:
        with lock:
            out.append(f"worker {name} got the lock")

    threads = [scenario.thread(worker, name) for name in "ABC"]
    for thread, name in zip(threads, "ABC", strict=True):
        thread.name = name
    return scenario, lock, out, threads


def low_level_wait_loop() -> list[str]:
    """The article's first "Low to high" example: wait / transaction / unblock."""
    scenario, _, out, (A, B, C) = _three_workers()
    with scenario:
        for thread in (B, A, C):
            for _ in range(2):
                scenario.wait(thread)
                tx = scenario.transaction(thread)
                tx.unblock()
                scenario.wait(tx)
    return out + _log(scenario)


def api_unblock_loop() -> list[str]:
    """The article's second example: lock_api.unblock and wait(lock.release)."""
    scenario, lock, out, (A, B, C) = _three_workers()
    lock_api = scenario.api(lock)
    with scenario:
        for thread in (B, A, C):
            lock_api.unblock(lock.acquire, thread)
            scenario.wait(lock.release)
            lock_api.unblock(lock.release, thread)
    return out


def driver_loop() -> list[str]:
    """The article's Driver example."""
    scenario, _, out, (A, B, C) = _three_workers()
    with scenario:
        for thread in (B, A, C):
            d = scenario.Driver(thread)
            d()
            d.skip()
            d()
            d.finish()
            d()
    return out + _log(scenario)


def scenario_skip_loop() -> list[str]:
    """The article's scenario.skip example."""
    scenario, lock, out, (A, B, C) = _three_workers()
    with scenario:
        for thread in (B, A, C):
            scenario.skip(thread, lock.acquire, lock.release)
    return out


def relay_loop() -> list[str]:
    """The article's last example: lock_api.relay."""
    scenario, lock, out, (A, B, C) = _three_workers()
    lock_api = scenario.api(lock)
    with scenario:
        for _ in lock_api.relay(B, A, C):
            pass
    return out


def quickstart() -> list[str]:
    """blanket 1.0's quickstart: relay a lock, then cycle a barrier."""
    scenario = blanket.Scenario()
    lock = scenario.Lock()
    barrier = scenario.Barrier(3)
    out: list[str] = []

    def worker(name: str) -> None:
        with lock:
            out.append(f"worker {name} got the lock")
        barrier.wait()
        out.append(f"worker {name} is past the barrier")

    A, B, C = (threading.Thread(target=worker, args=(name,)) for name in "ABC")
    lock_api = scenario.api(lock)
    barrier_api = scenario.api(barrier)
    with scenario:
        for thread in (C, A, B):
            thread.start()
        list(lock_api.relay(B, A, C))
        lock_api.unblock(lock.release, C)
        with barrier_api.cycle(C, A, B):
            pass
    for thread in (A, B, C):
        thread.join()
    return out


def condition_handoff() -> list[str]:
    """Two consumers wait on a condition; a producer notifies both; they
    take the item in the scripted order."""
    scenario = blanket.Scenario()
    cond = scenario.Condition()
    items: list[int] = []
    out: list[str] = []

    def consumer(name: str) -> None:
        with cond:
            while not items:
                cond.wait()
            out.append(f"{name} took {items.pop()}")

    def producer() -> None:
        with cond:
            items.extend([1, 2])
            cond.notify_all()

    A = scenario.thread(consumer, "A")
    B = scenario.thread(consumer, "B")
    P = scenario.thread(producer)
    with scenario:
        with scenario.api(cond).cycle(B, A, P):
            pass
    return out


def semaphore_pool() -> list[str]:
    """Three workers share a pool of two slots; the script picks who waits."""
    scenario = blanket.Scenario()
    slots = scenario.Semaphore(2)
    out: list[str] = []

    def worker(name: str) -> None:
        with slots:
            out.append(name)

    A, B, C = (scenario.thread(worker, name) for name in "ABC")
    with scenario:
        for _ in scenario.api(slots).allocate(C, A, C, B, A, B):
            pass
    return out


_BAC = [f"worker {name} got the lock" for name in "BAC"]

#: name -> (scenario, the order every run must give)
def exploration() -> list[str]:
    """An exhaustive search of the if/while consumers' fix (its count and
    every schedule), and the failing schedule the search of the bug finds,
    shrunk: the same on every run, or DFS would have refused the setup."""
    from tests import explore_bugs

    fixed = blanket.explore(explore_bugs.if_not_while_fixed)
    previous = threading.excepthook
    threading.excepthook = lambda args: None  # the bug's IndexError, expected
    try:
        failure = blanket.explore(explore_bugs.if_not_while).failure
    finally:
        threading.excepthook = previous
    assert failure is not None
    return ([f"fixed: {fixed.count} orders, exhausted {fixed.exhausted}"]
            + [" ".join(schedule) for schedule in fixed.schedules]
            + [f"bug: {failure.kind}: {' '.join(step.mark for step in failure.schedule)}"])


_EXPLORATION = [
    'fixed: 24 orders, exhausted True',
    'A A B B C C C C C C A A B B',
    'A A C C C C C C A A B B',
    'B B A A C C C C C C A A B B',
    'B B C C C C C C A A B B',
    'C C C C C C A A B B',
    'C C C A A B B C C C B B',
    'C C C B B A A C C C A A',
    'A A B B C C C C C C B B A A',
    'A A B B C C C A A C C C B B',
    'A A C C C C C C B B A A',
    'A A C C C A A B B C C C B B',
    'A A C C C A A C C C B B',
    'A A C C C B B A A C C C A A',
    'A A C C C B B C C C A A',
    'B B A A C C C C C C B B A A',
    'B B A A C C C B B C C C A A',
    'B B C C C C C C B B A A',
    'B B C C C A A B B C C C B B',
    'B B C C C A A C C C B B',
    'B B C C C B B A A C C C A A',
    'B B C C C B B C C C A A',
    'C C C C C C B B A A',
    'C C C A A C C C B B',
    'C C C B B C C C A A',
    'bug: exception: A A C C C B',
]


SCENARIOS: dict[str, tuple[Callable[[], list[str]], list[str]]] = {
    "low_level_wait_loop": (low_level_wait_loop, _BAC + [
        f"{name}:Lock.{method}" for name in "BAC" for method in ("acquire", "release")]),
    "api_unblock_loop": (api_unblock_loop, _BAC),
    "driver_loop": (driver_loop, _BAC + [
        f"{name}:Lock.{method}" for name in "BAC" for method in ("acquire", "release")]),
    "scenario_skip_loop": (scenario_skip_loop, _BAC),
    "relay_loop": (relay_loop, _BAC),
    "quickstart": (quickstart, _BAC + [f"worker {name} is past the barrier" for name in "CAB"]),
    "condition_handoff": (condition_handoff, ["B took 2", "A took 1"]),
    "semaphore_pool": (semaphore_pool, ["C", "A", "B"]),
    "exploration": (exploration, _EXPLORATION),
}

#: Scenarios that are many scenarios' worth of work (an exploration is 32
#: runs of its setup) run this many times fewer.
COST = {"exploration": 10,
        "readme_exploration": 10,
        # Its stall example waits out the scenario's timeout (0.5 s): the
        # exit then has as long to join the thread it let go, which under
        # load took more than the 0.1 s the page used to give it.
        "docs/tutorial/low-level.rst": 5}
