"""What a script step checks: the refusals it makes at once, before anything
is let go, and the call it expects a thread to be parked at.

Every step of the middle and high levels (a driver, ``skip``, ``relay``, a
cycle, ``scenario.wait``) first calls :func:`check_step`, so that a script
that could only wait out the bound (outside ``with scenario:``, a thread of
another scenario, the scheduler's own thread) fails at the call with an
error that names the step; :func:`expect` then waits for the thread and
raises :class:`~blanket.ThreadOrderingError` if it is somewhere else.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING

from . import waiting
from .core import ScenarioCore
from .errors import CompetingDriversError, ThreadOrderingError
from .gate import Primitive, label, owner_of
from .signals import Parked, Signaled
from .states import State
from .transaction import Transaction

if TYPE_CHECKING:  # pragma: no cover
    from .driving import Driver


def refuse_if_driven(core: ScenarioCore, thread: threading.Thread,
                     claimant: Driver | None = None) -> None:
    """``CompetingDriversError`` if a driver other than *claimant* owns
    *thread* (lock held)."""
    owner = core.drivers[thread] if thread in core.drivers else None
    if owner is not None and owner is not claimant:
        raise CompetingDriversError(
            f"thread {thread.name!r} is already driven by {owner!r}; close "
            "that driver first")


def expect(core: ScenarioCore, thread: threading.Thread, primitive: Primitive,
           name: str | tuple[str, ...], state: State) -> Transaction:
    """Wait until *thread* is parked, and return its call if that is a call
    of *name* (or of one of several names) on *primitive* in *state*;
    ``ThreadOrderingError`` otherwise. (Its callers checked the thread,
    see :func:`check_step`.)"""
    names = (name,) if isinstance(name, str) else name
    with core.lock:
        return parked_call(core, thread, primitive, names, state)


def parked_call(core: ScenarioCore, thread: threading.Thread, primitive: Primitive,
                 names: tuple[str, ...], state: State) -> Transaction:
    """:func:`expect`, with the lock held."""
    parked = Parked(thread)
    if not parked.signalled(core):  # a script mostly finds the thread parked
        waiting.wait_locked(core, [(thread, parked)], None)
    chain = core.chain(thread)
    if chain:
        tx = chain[-1]
        if tx.primitive is primitive and tx.spec.name in names and tx._state is state:
            return tx
    wanted = " or ".join(f"{primitive._kind}.{each}" for each in names)
    if not chain:
        raise ThreadOrderingError(
            f"thread {thread.name!r} terminated; it was expected to call {wanted} "
            f"on {label(primitive)}")
    tx = chain[-1]
    raise ThreadOrderingError(
        f"thread {thread.name!r} was expected to be in {wanted} on "
        f"{label(primitive)} at {state.name}, but it is in "
        f"{tx.spec.kind}.{tx.spec.name} on {label(tx.primitive)} at "
        f"{tx.state.name}")


def settle(core: ScenarioCore, thread: threading.Thread) -> None:
    """Wait until *thread* has gone as far as it can without the scheduler:
    its next call is parked, or it terminated."""
    waiting.wait(core, [(thread, Parked(thread))], None)


# -- what a script step refuses at once ----------------------------------------------

def check_step(core: ScenarioCore, who: str, *, threads: Iterable[threading.Thread] = (),
               primitives: Iterable[object] = (), tokens: Iterable[Signaled] = ()
               ) -> None:
    """Refuse at once a script step that could only wait out the timeout.

    *who* names the step in the messages (``"skip"``, ``"relay"``, ...).
    Refused: the scenario not entered (``RuntimeError``: no call parks
    outside it); a thread or primitive of another scenario, a thread that is
    the scheduler itself, or one blanket did not start and nobody started
    (``ValueError``). *tokens* (what ``scenario.wait`` was given) are looked
    through for the threads, primitives, transactions and scenarios they
    name; a wait that names the scenario itself (``wait(scenario)``,
    ``Not(scenario)``) needs no entry. Takes no lock: it may be called with
    the scenario's lock held or not.
    """
    threads, primitives = list(threads), list(primitives)
    scenarios: list[ScenarioCore] = []
    for token in tokens:
        _named_by(token, threads, primitives, scenarios)
    if not core.regulated and core not in scenarios:
        raise RuntimeError(f"{who} needs the scenario {core.name!r} entered (inside "
                           "'with scenario:'); outside it no call parks, so it could "
                           "only wait out the timeout")
    for thread in threads:
        _check_thread(core, who, thread)
    owners = [(label(p), p._core) for p in primitives]  # type: ignore[attr-defined]
    owners += [(f"scenario {other.name!r}", other) for other in scenarios]
    for what, owner in owners:
        if owner is not core:
            raise ValueError(f"{who}: {what} belongs to scenario {owner.name!r}, "
                             f"not to {core.name!r}")


def _check_thread(core: ScenarioCore, who: str, thread: threading.Thread) -> None:
    """:func:`check_step` for one thread."""
    owner = getattr(thread, "_blanket_core", None)  # a ManagedThread's scenario
    if owner is not None and owner is not core:
        raise ValueError(f"{who}: thread {thread.name!r} belongs to scenario "
                         f"{owner.name!r}, not to {core.name!r}")
    if thread is core.scheduler:
        raise ValueError(f"{who}: thread {thread.name!r} is the scheduler (it entered "
                         f"{core.name!r}); it makes no call the scenario parks")
    if owner is None and thread.ident is None:
        raise ValueError(f"{who}: thread {thread.name!r} is not a thread of "
                         f"{core.name!r} and was never started, so it makes no call")


def _named_by(token: Signaled, threads: list[threading.Thread], primitives: list[object],
              scenarios: list[ScenarioCore]) -> None:
    """Add what *token* is about to the lists: its threads, its primitives
    (a transaction's and a method's too) and the scenario it waits for."""
    for arg in token._args:
        if isinstance(arg, Signaled):  # Not(token)
            _named_by(arg, threads, primitives, scenarios)
        elif isinstance(arg, threading.Thread):
            threads.append(arg)
        elif isinstance(arg, Primitive):
            primitives.append(arg)
        elif isinstance(arg, Transaction):
            threads.append(arg.thread)
            primitives.append(arg.primitive)
        elif isinstance(arg, ScenarioCore):  # wait(scenario)
            scenarios.append(arg)
        elif (owned := owner_of(arg)) is not None:
            primitives.append(owned[0])
