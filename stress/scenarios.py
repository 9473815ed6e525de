"""The scenarios ``python -m stress`` repeats, each with its documented order.

Each function builds a fresh scenario, runs its script and returns the order
of events: what the workers recorded and, where the script decides it fully,
the log as ``(thread, method)`` pairs.
"""

from __future__ import annotations

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
    for thread, name in zip(threads, "ABC"):
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


_BAC = [f"worker {name} got the lock" for name in "BAC"]

#: name -> (scenario, the order every run must give)
SCENARIOS: dict[str, tuple[Callable[[], list[str]], list[str]]] = {
    "low_level_wait_loop": (low_level_wait_loop, _BAC + [
        f"{name}:Lock.{method}" for name in "BAC" for method in ("acquire", "release")]),
    "api_unblock_loop": (api_unblock_loop, _BAC),
}
