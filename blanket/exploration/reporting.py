"""How far a search has gone, told while it runs: ``explore(...,
progress=callable)`` (and :func:`blanket.check_linearizable`'s) calls
*callable* with a :class:`Progress` at most every :data:`INTERVAL` seconds
of wall clock, and once at the end.

A search reads the clock once per run when it reports, and not at all when
it does not. With ``processes=N`` each process sends its shard's progress
to the caller, which adds them up (:mod:`blanket.exploration.processes`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

#: The shortest wall-clock interval, in seconds, between two reports of a
#: search in progress (the last one, at the end, comes whenever it ends).
INTERVAL = 0.2


@dataclass(frozen=True)
class Progress:
    """A search's progress so far, given to the ``progress=`` callable of
    :func:`blanket.explore` and :func:`blanket.check_linearizable`.
    ``str()`` reads ``"1,234 schedules, 210 runs/s, 2 races, 0 gaps, 8,766
    left"``."""

    #: The schedules counted so far against the budget (a search that
    #: meets a new data race starts again, and counts again from 0).
    schedules: int
    #: The runs made so far, counted or not (see :attr:`blanket.Exploration.runs`).
    runs: int
    #: Seconds since the search started.
    elapsed: float
    #: The data races found so far.
    races: int
    #: The gaps noted so far: what the runs met that blanket does not
    #: schedule (see :attr:`blanket.Exploration.unseen`).
    unseen: int
    #: The budget: ``max_schedules`` (with ``processes=N``, N times it:
    #: each process has its own).
    max_schedules: int
    #: The most schedules the budget still allows (the search may end
    #: sooner, its space run); ``None`` when no one budget bounds the
    #: whole (:func:`~blanket.check_linearizable`: each scenario has its own).
    left: int | None
    #: Whether this is the last report: the search is over.
    done: bool = False
    #: For :func:`~blanket.check_linearizable`: the explorations of its
    #: scenarios made so far, the one going on included (each scenario is
    #: explored in a first pass of a few schedules, then taken on to its
    #: end unless the first ran it whole; a failing one again as it is made
    #: smaller); 0 for
    #: :func:`~blanket.explore`.
    explorations: int = 0

    @property
    def rate(self) -> float:
        """Runs per second so far."""
        return self.runs / self.elapsed if self.elapsed > 0 else 0.0

    def __str__(self) -> str:
        explorations = f"{self.explorations:,} explorations, " if self.explorations else ""
        left = "" if self.left is None else f", {self.left:,} left"
        return (f"{explorations}{self.schedules:,} schedules, {self.rate:,.0f} runs/s, "
                f"{self.races:,} races, {self.unseen:,} gaps{left}")


Report = Callable[[Progress], object]


def check_progress(progress: object) -> None:
    """Refuse a ``progress=`` that is neither ``None`` nor callable."""
    if progress is not None and not callable(progress):
        raise TypeError(f"progress={progress!r}: expected a callable taking a "
                        "blanket.Progress, or None")


class Reporter:
    """Calls *report* at most every :data:`INTERVAL` seconds (:meth:`due`
    says when) and at the end."""

    def __init__(self, report: Report) -> None:
        self.report = report
        self.last = time.monotonic()

    def due(self) -> bool:
        """Whether a report is due now (one clock read); if so, the next
        is due :data:`INTERVAL` seconds from now."""
        now = time.monotonic()
        if now - self.last < INTERVAL:
            return False
        self.last = now
        return True


def budget(strategy: str, max_schedules: int, index: int = 1, count: int = 1) -> int:
    """The schedules shard *index* of *count* of a search may count: a
    depth-first shard counts its own up to *max_schedules*; the random
    strategies split the run numbers 1 to *max_schedules* between them."""
    return max_schedules if strategy == "dfs" else len(range(index, max_schedules + 1, count))


def total(parts: Iterable[Progress], elapsed: float) -> Progress:
    """The progress of a search made of *parts* (the shards of processes,
    each's latest): their schedules, runs, budgets and budgets left added
    up, the most races and gaps any one met (the shards meet the same
    ones)."""
    parts = list(parts)
    return Progress(sum(part.schedules for part in parts), sum(part.runs for part in parts),
                    elapsed, max(part.races for part in parts),
                    max(part.unseen for part in parts),
                    sum(part.max_schedules for part in parts),
                    sum(part.left or 0 for part in parts))
