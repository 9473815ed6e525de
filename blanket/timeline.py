"""Timelines: one column per thread, one row per call or step.

A scenario's log as a timeline is in the failure messages of
:class:`~blanket.ScenarioTestCase`'s assertions, and ``scenario.format_log()``
gives it for print-debugging; a failure's schedule as a timeline is in every
report of a failure a search found (:func:`failure_report`: a test's, the
pytest plugin's, the command line's).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from .transaction import Transaction

if TYPE_CHECKING:  # pragma: no cover
    from .exploration.result import Step


def cell(tx: Transaction) -> str:
    """How one finished call reads in its thread's column."""
    text = f"{'  ' * tx.depth}{tx.spec.kind}.{tx.spec.name} {tx.state.name}"
    if tx.state.name == "RAISED":
        return f"{text} {type(tx.result).__name__}"
    if tx.result is not None:
        return f"{text} -> {tx.result!r}"
    return text


def format_timeline(log: Iterable[Transaction],
                    threads: Iterable[threading.Thread] = ()) -> str:
    """The calls of *log* in order, one column per thread (the *threads*
    given first, then the others as they appear)."""
    entries = list(log)
    columns = list(dict.fromkeys(threads))  # a thread named twice gets one column
    for tx in entries:
        if tx.thread not in columns:
            columns.append(tx.thread)
    if not entries:
        return "(no calls logged)"
    cells = [[cell(tx) if tx.thread is thread else "" for thread in columns]
             for tx in entries]
    return _table([thread.name for thread in columns], cells)


def format_schedule(schedule: Sequence[Step]) -> str:
    """The steps of *schedule* (a failure's), numbered in order, one column
    per thread."""
    if not schedule:
        return "  (no steps)"
    threads = list(dict.fromkeys(step.thread for step in schedule))
    cells = [[f"{number}. {str(step)[len(step.thread) + 2:]}" if step.thread == thread else ""
              for thread in threads] for number, step in enumerate(schedule, 1)]
    return _table(threads, cells)


def _table(heads: list[str], cells: list[list[str]]) -> str:
    """Columns headed *heads*, a row per list of *cells*, indented."""
    widths = [max([len(heads[i])] + [len(row[i]) for row in cells])
              for i in range(len(heads))]

    def line(values: list[str]) -> str:
        return " | ".join(v.ljust(w) for v, w in zip(values, widths, strict=True)).rstrip()

    rows = [line(heads), "-+-".join("-" * w for w in widths)]
    rows += [line(row) for row in cells]
    return "\n".join(f"  {row}" for row in rows)


def schedule_timeline(schedule: Sequence[Step]) -> str:
    """*schedule* as a timeline (:func:`format_schedule`), under its heading."""
    return f"the schedule as a timeline (one column per thread):\n{format_schedule(schedule)}"


def failure_report(verdict: str, schedule: Sequence[Step], source: str) -> str:
    """A search's result with a failure, as a failed test shows it:
    *verdict* (the result in words), the failure's *schedule* as a
    timeline (:func:`schedule_timeline`), and *source*, the test that
    replays it."""
    return (f"{verdict}\n\n{schedule_timeline(schedule)}\n\n"
            f"a test that replays it:\n\n{source}")
