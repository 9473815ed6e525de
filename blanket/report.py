"""The stall report: every thread a scenario knows, its current call and state.

Printed when a bound is hit (see :class:`~blanket.errors.StallError`), so that
a test that would have hung instead says who is stuck where.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from . import sleepers
from .gate import label
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
    text = f"{tx.spec.kind}.{tx.spec.name} {tx.state.name} on {label(tx.primitive)}"
    return f"{text} ({why})" if why else text


def thread_status(core: ScenarioCore, thread: threading.Thread) -> str:
    """What *thread* is doing, as the report says it."""
    chain = core.chain(thread)
    if chain:
        return " <- nested in ".join(describe(core, tx) for tx in reversed(chain))
    if thread.ident is None:
        return "not started"
    if core.terminated(thread):
        return "terminated"
    acquiring = sleepers.acquiring.get(thread.ident or 0)
    if acquiring is not None and acquiring[0] is thread:
        _, kind, lock, where = acquiring
        if kind == "Thread":
            return f"in Thread.join at {where}, outside blanket (only the thread's end wakes it)"
        return (f"in {kind}.acquire of {sleepers.name(kind, lock)} at {where}, "
                "outside blanket (only its release wakes it)")
    return "running, not inside a blanket call"


def holdings(core: ScenarioCore) -> dict[threading.Thread, dict[int, int]]:
    """What each thread holds, by the calls logged since the scenario was
    entered: ``{thread: {id(primitive): count}}``.

    An acquire that succeeded counts one up, a release one down; a
    ``Condition.wait`` gives its lock up (one down) once ``WAITING``, and
    its nested re-acquire takes it back.
    """
    held: dict[threading.Thread, dict[int, int]] = {}
    for tx in list(core.log) + list(core.active):
        name, step = tx.spec.name, 0
        if name == "acquire" and tx.state is State.RETURNED and tx.result:
            step = 1
        elif name == "release" and tx.state is State.RETURNED:
            step = -1
        elif name == "wait" and tx.spec.kind == "Condition" and State.WAITING in tx._history:
            step = -1
        if step:
            counts = held.setdefault(tx.thread, {})
            counts[id(tx.primitive)] = counts.get(id(tx.primitive), 0) + step
    return held


def format_report(core: ScenarioCore) -> str:
    """The report for *core* (its lock held)."""
    threads = list(core.managed)
    threads += [t for t in core.records if t not in core.managed and core.chain(t)]
    state = "entered" if core.regulated else "not entered"
    lines = [f"scenario {core.name!r} ({state}); threads:"]
    labels = {id(p): label(p) for p in core.primitives}
    held = holdings(core)
    for thread in threads:
        lines.append(f"  {thread.name!r}: {thread_status(core, thread)}")
        owned = [labels[key] for key, count in held.get(thread, {}).items()
                 if count > 0 and key in labels]
        if owned:
            lines.append(f"      holds {', '.join(owned)}")
    if not threads:
        lines.append("  (none)")
    return "\n".join(lines)
