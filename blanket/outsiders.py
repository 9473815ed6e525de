"""Threads outside a scenario that take part in its run: whether the
scheduler waits for them.

A thread blanket did not start may still act on a scenario's primitives:
an actor's thread the setup starts (it replies to the managed threads
through queues they made), a library's worker started at import, a thread
code that is not watched starts. Such a thread is an *outsider* of the run
once it calls one of the scenario's primitives, or once code outside
blanket starts it during the setup or the run (an exploration's profile
sees the start: ``blanket.exploration.unseen``).

The scheduler decides only once nothing moves (``blanket.progress.settled``).
A managed thread says where it is; an outsider does not: woken by a
step (a twin of its queue's condition notified, see
:mod:`blanket.exploration.realprims`), it runs toward its next call on
the scenario while the scheduler may already take the managed threads
for stuck (a deadlock reported of correct code). So an outsider not in a
call counts as settled only when it has ended, or sleeps where only
another thread can wake it (see :func:`asleep`); until then the scheduler
waits, looking again every ``blanket.waiting.POLL_INTERVAL`` seconds.

An outsider that does neither within the scenario's bound (it computes,
sleeps in time, or waits where blanket cannot tell that it sleeps) is
given up on: no longer waited for in this run, and named, for what it does
next is not ordered with the steps (:attr:`Outsiders.given_up`).
"""

from __future__ import annotations

import _thread
import sys
import threading
import types
import typing
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import sleepers

if TYPE_CHECKING:  # pragma: no cover
    from .core import ScenarioCore

#: Who of a scenario holds a real lock, if one does (see :func:`asleep`).
Holder = Callable[[Any], "threading.Thread | None"]

# Where a thread sleeps until another wakes it, in threading's own code:
# (a lock's own acquire is C code, called from these frames).
_CONDITION_WAIT: types.CodeType = threading.Condition.wait.__code__
_SLEEPS = frozenset({_CONDITION_WAIT, threading.Condition.__enter__.__code__,
                     threading.Condition._acquire_restore.__code__})  # type: ignore[attr-defined]


class Outsiders:
    """The outsiders of one scenario's run (see the module), and those given
    up on."""

    __slots__ = ("given_up", "threads")

    def __init__(self) -> None:
        #: The outsiders, in the order first met.
        self.threads: dict[threading.Thread, None] = {}
        #: The outsiders no longer waited for: they ran on past the bound.
        self.given_up: dict[threading.Thread, None] = {}

    def add(self, thread: threading.Thread) -> None:
        """*thread*, not one of the scenario's, takes part in the run."""
        if thread not in self.threads:  # (not setdefault: see the note in blanket.core)
            self.threads[thread] = None

    def settled(self, core: ScenarioCore, holder: Holder) -> bool:
        """Whether no outsider of *core* (lock held) will move before the
        scheduler acts: each is in a call (the scheduler sees those), has
        ended, sleeps for good (:func:`asleep`; *holder* tells who of the
        scenario holds a real lock), or was given up on. If not, *core* is
        told to look again soon (nothing tells it when an outsider falls
        asleep)."""
        return not self._running(core, holder)

    def give_up(self, core: ScenarioCore, holder: Holder) -> bool:
        """Stop waiting for the outsiders of *core* (lock held) that still
        run outside its calls; whether there were any."""
        running = self._running(core, holder, every=True)
        for thread in running:
            self.given_up[thread] = None
        return bool(running)

    def _running(self, core: ScenarioCore, holder: Holder, every: bool = False
                 ) -> list[threading.Thread]:
        """The outsiders that may still move by themselves: the first one
        found, or *every* one."""
        frames: dict[int, types.FrameType] | None = None
        running: list[threading.Thread] = []
        for thread in list(self.threads):
            if thread in self.given_up or core.chain(thread) or not thread.is_alive():
                continue
            if frames is None:
                frames = sys._current_frames()
            ident = thread.ident or 0
            frame = frames.get(ident)
            if frame is not None and asleep(frame, ident, holder):
                continue
            core.polled = True
            running.append(thread)
            if not every:
                break
        return running


@typing.no_type_check  # (typeguard stays off it: the scheduler asks at every look)
def asleep(frame: types.FrameType, ident: int, holder: Holder) -> bool:
    """Whether the thread *ident*, whose innermost frame is *frame*, sleeps
    until another thread acts: in ``Condition.wait`` with no timeout, its
    waiter still on the condition's list (a ``notify`` takes it off before
    waking it), or taking back or entering a condition whose lock another
    thread holds: an ``RLock``'s owner, or the thread of the scenario that
    *holder* finds holding a ``Lock`` (which names no owner: held by none
    known, it may be the sleeper's own, just taken, and it runs on).
    ``queue.Queue``'s ``get`` and ``put``, ``Event.wait`` and a
    ``Condition``'s own calls sleep there."""
    code = frame.f_code
    if code not in _SLEEPS:
        return False
    local = frame.f_locals
    if not isinstance(local.get("self"), threading.Condition):
        return False
    condition: Any = local["self"]
    waiter = local.get("waiter")
    if code is _CONDITION_WAIT and waiter is not None and waiter in condition._waiters:
        return local.get("timeout") is None and bool(waiter.locked())
    # Notified (or entering): it sleeps while the condition's lock is another's.
    lock = condition._lock
    if type(lock) is _thread.RLock:
        owner = sleepers.owner(lock)
        return owner is not None and owner != ident
    held = holder(lock)
    return held is not None and held.ident != ident


def waiters(listed: object) -> list[object]:
    """The waiters (locks) of the threads asleep now in ``Condition.wait``
    of a condition whose list of waiters is *listed*."""
    found = []
    for frame in sys._current_frames().values():
        if frame.f_code is _CONDITION_WAIT:
            local = frame.f_locals
            condition, waiter = local.get("self"), local.get("waiter")
            if getattr(condition, "_waiters", None) is listed and waiter is not None:
                found.append(waiter)
    return found
