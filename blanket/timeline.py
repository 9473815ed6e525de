"""The log as a per-thread timeline: one column per thread, one row per call.

Failure messages of :class:`~blanket.ScenarioTestCase` show it, and
``scenario.format_log()`` gives it for print-debugging.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

from .transaction import Transaction


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
    heads = [thread.name for thread in columns]
    widths = [max([len(heads[i])] + [len(row[i]) for row in cells])
              for i in range(len(columns))]

    def line(values: list[str]) -> str:
        return " | ".join(v.ljust(w) for v, w in zip(values, widths, strict=True)).rstrip()

    rows = [line(heads), "-+-".join("-" * w for w in widths)]
    rows += [line(row) for row in cells]
    return "\n".join(f"  {row}" for row in rows)
