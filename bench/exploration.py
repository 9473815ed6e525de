"""Figures of exploration (issue 15): the cost of a watched access that is
not a scheduling point, and how fast :func:`blanket.explore` runs a few
reference scenarios (schedules per second, and the time to exhaust two
threads of six locked sections each: 924 orders); and (issue 23) the runs
``reach=`` takes to reach the lines of ``tests/reach_cases.py``, guided
and not.

Only this checkout's blanket has exploration, so these figures are measured
by ``python -m bench`` itself, never in blanket 1.0's environment.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import time
import types
import unittest.mock
from collections.abc import Callable
from pathlib import Path
from typing import Any

import blanket
from blanket.exploration import rewrite, search, sites
from blanket.exploration.tried import TRYING
from tests import reach_cases
from tests.shipped import sinks


class _Counter:
    def __init__(self) -> None:
        self.count = 0


def _bump(counter: _Counter, n: int) -> None:
    for _ in range(n):
        counter.count += 1  # two accesses: a read and a write


class _Epoch:
    """What a thread's record points at: the step its accesses are tagged with."""

    epoch = 0


def watched_access(n: int) -> float:
    """Nanoseconds a watched access that is not a scheduling point adds,
    recorded as it is inside an exploration."""
    code, _ = rewrite.rewrite(_bump.__code__, _bump.__globals__)
    watched = types.FunctionType(code, _bump.__globals__)
    saved = sites._local.__dict__.copy()
    record: list[Any] = []
    try:
        sites._local.state = (record, _Epoch)
        started = time.perf_counter_ns()
        watched(_Counter(), n)
        spent = time.perf_counter_ns() - started
    finally:
        sites._local.__dict__.clear()
        sites._local.__dict__.update(saved)
    started = time.perf_counter_ns()
    _bump(_Counter(), n)
    plain = time.perf_counter_ns() - started
    # range's iteration is watched too (one GET_ITER, once): n reads + n writes.
    return (spent - plain) / (2 * n)


def locked_sections(sections: int) -> Callable[[blanket.Scenario], None]:
    """Two threads, each taking one lock *sections* times: C(2s, s) orders."""
    def setup(scenario: blanket.Scenario) -> None:
        lock = scenario.Lock()
        counter = _Counter()

        def worker() -> None:
            for _ in range(sections):
                with lock:
                    counter.count += 1

        scenario.thread(worker)
        scenario.thread(worker)
    return setup


class Sections:
    """Two threads, each taking one lock *sections* times, as a setup
    another process can import (``explore(processes=2)``)."""

    def __init__(self, sections: int) -> None:
        self.sections = sections

    def __call__(self, scenario: blanket.Scenario) -> None:
        locked_sections(self.sections)(scenario)


class _Versioned:
    def __init__(self, scenario: blanket.Scenario) -> None:
        self.lock = scenario.Lock()
        self.version = 0

    def bump(self) -> None:
        while True:
            with self.lock:
                seen = self.version
            with self.lock:
                if self.version == seen:
                    self.version += 1
                    return
            self.retried = True  # the line to reach: another bump came between


def _optimistic(scenario: blanket.Scenario) -> None:
    versioned = _Versioned(scenario)
    for _ in range(3):
        scenario.thread(versioned.bump)


#: The line explore(reach=...) looks for: the retry of _Versioned.bump.
RETRY = (_Versioned.bump, _Versioned.bump.__code__.co_firstlineno + 8)


def _racy_counter(scenario: blanket.Scenario) -> None:
    counter = _Counter()

    def increment() -> None:
        counter.count += 1

    for _ in range(3):
        scenario.thread(increment)


def lost_update(scenario: blanket.Scenario) -> Callable[[], None]:
    """Two threads add one each to a counter, unlocked: a failure, whose
    written test is tried before it is handed over."""
    counter = _Counter()

    def increment() -> None:
        counter.count += 1

    scenario.thread(increment)
    scenario.thread(increment)

    def invariant() -> None:
        assert counter.count == 2, f"count is {counter.count}"
    return invariant


def trying_cost() -> float:
    """Seconds trying a failure's written test adds to a search: the
    search with the try, less the same search in an interpreter that does
    not try (see blanket.exploration.tried)."""
    tried, _ = explored(lost_update)
    with unittest.mock.patch.dict(os.environ, {TRYING: "1"}):
        untried, _ = explored(lost_update)
    return tried - untried


def unwitnessed(setup: Callable[[blanket.Scenario], object]) -> float:
    """Seconds the exploration of *setup* takes without the witness (see
    blanket.exploration.witness): neither its hook nor its check."""
    with unittest.mock.patch.object(search, "Witness", lambda monitored: None), \
            unittest.mock.patch.object(search, "witnessing",
                                       lambda: contextlib.nullcontext(False)):
        return explored(setup)[0]


def runs_to_reach(guided: bool) -> int:
    """The runs explore(reach=...) takes to reach the lines of
    ``tests/reach_cases.py``, all ten, *guided* or in the plain order
    (counted, not timed: the same on every machine)."""
    total = 0
    for name, setup in reach_cases.CASES.items():
        # The one line in another module, as tests/test_reach.py names it.
        path = Path(reach_cases.__file__)
        place = reach_cases.place(name, path.with_name("reach_other.py")
                                  if name == "other-module" else path)
        total += blanket.explore(setup, reach=place, guided=guided).runs
    return total


def explored(setup: Callable[[blanket.Scenario], object], **options: Any
             ) -> tuple[float, int]:
    """Seconds an exploration took, and the schedules it counted."""
    started = time.perf_counter()
    result = blanket.explore(setup, **options)  # type: ignore[arg-type]
    return time.perf_counter() - started, result.count


class _Actor:
    """A thread of its own, started outside blanket, that answers each
    request put in its inbox (as an actor library's does)."""

    def __init__(self) -> None:
        self.inbox: queue.Queue[queue.Queue[int] | None] = queue.Queue()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        answered = 0
        while (reply := self.inbox.get()) is not None:
            answered += 1
            reply.put(answered)

    def ask(self) -> int:
        reply: queue.Queue[int] = queue.Queue()
        self.inbox.put(reply)
        return reply.get()


_ACTORS: list[_Actor] = []


def _askers(scenario: blanket.Scenario) -> None:
    """Three threads ask one actor the setup starts (each run's own)."""
    actor = _Actor()
    _ACTORS.append(actor)
    for _ in range(3):
        scenario.thread(actor.ask)


def actor_runs(schedules: int) -> tuple[float, int]:
    """Seconds a search of *schedules* schedules of :func:`_askers` took,
    and its runs; each actor is told to end after."""
    started = time.perf_counter()
    result = blanket.explore(_askers, max_schedules=schedules)
    seconds = time.perf_counter() - started
    for actor in _ACTORS:
        actor.inbox.put(None)
    _ACTORS.clear()
    return seconds, result.runs


def three_threads(scenario: blanket.Scenario) -> None:
    """Three threads, each taking one lock six times to add to one list:
    17,153,136 orders, far more than any budget lets a search run."""
    lock, log = scenario.Lock(), []

    def worker() -> None:
        for n in range(6):
            with lock:
                log.append(n)

    for _ in range(3):
        scenario.thread(worker)


def budgeted(max_seconds: float) -> tuple[float, str]:
    """Seconds a depth-first search of :func:`three_threads` bounded by
    *max_seconds* took to give its verdict, and what stopped it."""
    started = time.perf_counter()
    result = blanket.explore(three_threads, max_schedules=10**9, max_seconds=max_seconds)
    return time.perf_counter() - started, result.stopped


def collect(scale: float = 1.0, repeats: int = 3) -> dict[str, float]:
    """The figures, each the best of *repeats* (scale shrinks them for a
    quick check)."""
    sections = max(1, round(6 * min(scale, 1.0)))
    best: dict[str, float] = {}

    def keep(name: str, value: float) -> None:
        best[name] = min(value, best.get(name, value))

    for _ in range(repeats):
        keep("watched_access", watched_access(max(2, int(200_000 * scale))))
        seconds, count = explored(locked_sections(sections))
        keep("sections_seconds", seconds)
        best["sections_count"] = count
        keep("sections_per_second", -count / seconds)
        keep("sections_unwitnessed_seconds", unwitnessed(locked_sections(sections)))
        seconds, count = explored(_racy_counter)
        keep("racy_per_second", -count / seconds)
        seconds, count = explored(_racy_counter, strategy="random",
                                  max_schedules=max(2, int(200 * scale)))
        keep("random_per_second", -count / seconds)
        parallel = Sections(max(1, round(7 * min(scale, 1.0))))
        seconds, count = explored(parallel)
        keep("one_process_seconds", seconds)
        best["parallel_count"] = count
        seconds, _ = explored(parallel, processes=2)
        keep("two_processes_seconds", seconds)
        seconds, _ = explored(_optimistic, reach=RETRY)
        keep("reach_seconds", seconds)
        keep("trying_seconds", trying_cost())
        seconds, count = explored(sinks.removed_while_logging(sinks.fixed_logger))
        keep("logger_seconds", seconds)
        best["logger_count"] = count
    # Once: each takes the budget it is given.
    budget = 5.0 * min(scale, 1.0)
    seconds, stopped = budgeted(budget)
    assert stopped == f"max_seconds={budget:g}", stopped
    best["budget_seconds"], best["budget_given"] = seconds, budget
    best["actor_seconds"], best["actor_runs"] = actor_runs(max(2, int(100 * scale)))
    best["reach_runs_guided"] = runs_to_reach(guided=True)
    best["reach_runs_plain"] = runs_to_reach(guided=False)
    # Rates were kept negated, so that "best" is the highest.
    return {name: abs(value) for name, value in best.items()}
