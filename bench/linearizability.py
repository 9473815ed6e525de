"""Figures of linearizability checking (issue 22): scenarios checked per
second by :func:`blanket.check_linearizable` on a ``queue.Queue``,
histories of 2 threads x 3 operations checked per second (the search over
the real-time orders, its specification memoized as in a check), and the
time to find, minimize and report the slowest of the buggy structures of
``tests/lin_structures.py``; and (issue 32) the seconds a check of the
locked LRU caches of ``tests/lru_shapes.py``, in boltons' and cachetools'
shapes, takes with its default 50 scenarios."""

from __future__ import annotations

import queue
import time

import blanket
from blanket.linearizability.history import History, Model, Outcome, Specification
from blanket.linearizability.scenarios import Workload
from tests import lin_structures, lru_shapes

#: queue.Queue's: its mutex and conditions, made in its __init__, are the
#: scenario's, so every call on them is a step.
_OPERATIONS = [blanket.Operation("put", 1), blanket.Operation("get_nowait")]


def scenarios_per_second(scenarios: int) -> float:
    """Scenarios of 2 x 2 operations checked per second, every order of each."""
    started = time.perf_counter()
    result = blanket.check_linearizable(queue.Queue, _OPERATIONS, scenarios=scenarios)
    return result.scenarios / (time.perf_counter() - started)


def history_checks_per_second(count: int, cold: bool = False) -> float:
    """Histories of 2 threads x 3 puts then gets, overlapping pairwise, checked
    per second; *cold*: each with a fresh specification (nothing memoized)."""
    put, get = _OPERATIONS
    workload = Workload([[put, put, get], [put, get, get]])
    model = Model(queue.Queue)
    specification = Specification(model, [op for _, _, op in workload.calls])
    history = History(workload.size)
    # A1 and B1 overlap, then A2 and B2, then A3 and B3; every get gets 1.
    results = [None, None, 1, None, 1, 1]
    for first, second in ((0, 3), (1, 4), (2, 5)):
        history.begin(first)
        history.begin(second)
        history.end(first, Outcome(False, results[first]))
        history.end(second, Outcome(False, results[second]))
    started = time.perf_counter()
    for _ in range(count):
        if cold:  # the specification's memo starts empty each time
            model.forget()
        assert specification.check(history).ok
    elapsed = time.perf_counter() - started
    model.close()
    return count / elapsed


def slowest_buggy() -> float:
    """Seconds the slowest of the buggy structures takes to be found, its
    scenario minimized and its test written."""
    slowest = 0.0
    for make, _, operations in lin_structures.BUGGY.values():
        started = time.perf_counter()
        result = blanket.check_linearizable(make, operations)
        slowest = max(slowest, time.perf_counter() - started)
        assert result.failure is not None
    return slowest


#: The LRU checks measured, by figure: the cache, its operations, the
#: operations per thread.
LRU_CHECKS = {
    "lru_linked_2": (lru_shapes.LinkedLRU, lru_shapes.LINKED_OPERATIONS, 2),
    "lru_linked_3": (lru_shapes.LinkedLRU, lru_shapes.LINKED_OPERATIONS, 3),
    "lru_cached_2": (lru_shapes.Squares, lru_shapes.CACHED_OPERATIONS, 2),
    "lru_cached_3": (lru_shapes.Squares, lru_shapes.CACHED_OPERATIONS, 3),
}


def lru_seconds(name: str, scale: float) -> float:
    """Seconds the check *name* of :data:`LRU_CHECKS` takes: 2 threads, 50
    scenarios (fewer at a smaller *scale*), every order of each."""
    make, operations, per_thread = LRU_CHECKS[name]
    started = time.perf_counter()
    result = blanket.check_linearizable(make, operations, operations_per_thread=per_thread,
                                        scenarios=max(1, int(50 * scale)))
    assert result.ok and all(result.exhausted), result
    return time.perf_counter() - started


def collect(scale: float = 1.0, repeats: int = 3) -> dict[str, float]:
    """The figures, each the best of *repeats* (the LRU checks, long, once)."""
    best: dict[str, float] = {name: lru_seconds(name, scale) for name in LRU_CHECKS}
    for _ in range(repeats):
        for name, value in (
                ("lin_scenarios_per_second", scenarios_per_second(max(1, int(10 * scale)))),
                ("lin_checks_per_second", history_checks_per_second(max(2, int(2000 * scale)))),
                ("lin_check", 1e6 / history_checks_per_second(max(2, int(2000 * scale)))),
                ("lin_cold_check", 1e6 / history_checks_per_second(max(2, int(200 * scale)),
                                                                   cold=True)),
                ("lin_slowest_buggy", slowest_buggy())):
            better = min if name in ("lin_check", "lin_cold_check", "lin_slowest_buggy") else max
            best[name] = better(value, best.get(name, value))
    return best
