"""The stall report: every thread a scenario knows, its current call and state.

Printed when a bound is hit (see :class:`~blanket.errors.StallError`), so that
a test that would have hung instead says who is stuck where.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from .states import State

if TYPE_CHECKING:  # pragma: no cover
    from .core import ScenarioCore
    from .transaction import Transaction

_WHY = {
    State.BLOCKED: "parked at the scheduler block: unblock() lets it go",
    State.COMMIT: "held at COMMIT by a driver: unblock() lets it go",
    State.STALLED: "parked at the scheduler stall: unstall() lets it go",
    State.PAUSED: "parked at the scheduler pause: unpause() lets it go",
    State.WAITING: "asleep inside the real primitive: only the primitive wakes it",
}


def describe(core: ScenarioCore, tx: Transaction) -> str:
    """One line for one transaction: method, state and primitive."""
    why = _WHY.get(tx.state) if tx._parked or tx.state is State.WAITING else None
    text = f"{tx.spec.kind}.{tx.spec.name} {tx.state.name} on {core.label(tx.primitive)}"
    return f"{text} ({why})" if why else text


def thread_status(core: ScenarioCore, thread: threading.Thread) -> str:
    """What *thread* is doing, as the report says it."""
    chain = core.chain(thread)
    if chain:
        return " <- nested in ".join(describe(core, tx) for tx in reversed(chain))
    if thread.ident is None:
        return "not started"
    if thread in core.finished or not thread.is_alive():
        return "terminated"
    return "running, not inside a blanket call"


def format_report(core: ScenarioCore) -> str:
    """The report for *core* (its lock held)."""
    threads = list(core.managed)
    threads += [t for t in core.records if t not in core.managed and core.chain(t)]
    state = "entered" if core.regulated else "not entered"
    lines = [f"scenario {core.name!r} ({state}); threads:"]
    for thread in threads:
        lines.append(f"  {thread.name!r}: {thread_status(core, thread)}")
    if not threads:
        lines.append("  (none)")
    return "\n".join(lines)
