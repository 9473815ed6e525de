"""Entering and exiting a scenario: the managed threads started under
regulation, and at the end every parked call let go and the threads joined.

``with scenario:`` calls :func:`enter` (and :func:`undo_entry` if the entry
fails part way); the exit calls :func:`unregulate`, then joins the threads
(:func:`~blanket.holdback.join_threads`).
While entering or joining, Ctrl-C is held back (:mod:`blanket.holdback`):
an interrupt inside ``Thread.start`` or ``Thread.join`` could leave a thread
half started, or taken for ended while it runs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from .errors import StallError
from .holdback import interrupts_held_back, join_threads
from .progress import AsleepForGood
from .signals import Active, Terminated
from .waiting import wait_locked

if TYPE_CHECKING:  # pragma: no cover
    from .core import ScenarioCore


def refuse_entered(core: ScenarioCore) -> None:
    """``RuntimeError`` if the scenario is entered."""
    with core.lock:
        if core.regulated:
            raise RuntimeError(f"scenario {core.name!r} is already entered")


def enter(core: ScenarioCore, before_start: Callable[[], None]) -> None:
    """Become regulated with the calling thread as scheduler, call
    *before_start* (the watched code goes in once calls park, before any
    thread runs it), and start the managed threads not started yet. If
    this fails part way, the caller undoes it with :func:`undo_entry`."""
    with core.lock:
        refuse_entered(core)
        core.reset()
        core.entering = [thread for thread in core.managed if thread.ident is None]
        core.scheduler = threading.current_thread()
        core.regulated = True
        core.pass_through(False)
        core.changed()
    before_start()
    for thread in core.entering:
        with interrupts_held_back():  # see blanket.holdback
            thread.start()
        if core.start_in_turn:
            with core.lock:
                _settle_started(core, [thread])


def launch(core: ScenarioCore, thread: threading.Thread, start: Callable[[], None]) -> None:
    """Start *thread* (a managed thread made while the scenario may be
    running: an adopted one) by calling *start*; counted among the
    managed threads, so waited for and joined at exit, if the scenario
    is entered."""
    with core.lock:
        new = core.regulated and thread not in core.managed
        if new:
            core.managed[thread] = None
    try:
        with interrupts_held_back():  # see blanket.holdback
            start()
    except BaseException:
        if new:  # never to run: nothing to wait for
            with core.lock:
                del core.managed[thread]
        raise


def undo_entry(core: ScenarioCore) -> None:
    """Undo an :func:`enter` of the calling thread that failed part way
    (a thread could not start, an interrupt): the threads it started are
    abandoned at their first call (it raises :class:`Abandoned`) and
    joined, and the scenario is left not entered."""
    _give_back_lock(core)
    with core.lock:
        if core.scheduler is not threading.current_thread():
            return  # it did not get as far, or another thread entered
        started = [thread for thread in core.entering if _launched(thread)]
        _settle_started(core, started)
        core.abandoned.update(started)
    unregulate(core)
    join_threads(started, core.timeout)


def _launched(thread: threading.Thread) -> bool:
    """Whether *thread* was started, even by a ``start()`` interrupted
    before it saw the thread run (it is then waited for like the rest,
    see :func:`_settle_started`)."""
    # threading's own bookkeeping: start() puts the thread in _limbo
    # before launching it. (Not its _started event: an interrupt in
    # start()'s wait on it can leave that event's lock held for good.)
    return thread.ident is not None or thread in threading._limbo  # type: ignore[attr-defined]


def _settle_started(core: ScenarioCore, started: list[threading.Thread]) -> None:
    """Wait (within the bound) until each of *started* is parked at its
    first call, has ended, or sleeps for good in a real lock a parked
    thread holds (lock held), so that, abandoned, it stops there instead of
    going on unregulated."""
    for thread in started:
        try:
            wait_locked(core, [(thread, Active(thread)), (thread, Terminated(thread)),
                               (thread, AsleepForGood(thread))], None)
        except StallError:  # a thread that makes no call: the join bounds it
            pass


def _give_back_lock(core: ScenarioCore) -> None:
    """Release the lock if the calling thread still holds it, which it
    does on entering or exiting only if an interrupt kept a ``with``
    from giving it back (on 3.11 an exception at a ``try`` statement's
    own line skips the enclosing ``with``'s exit; on 3.13 one in a
    comprehension inside the block can)."""
    while core.lock._is_owned():  # type: ignore[attr-defined]
        core.lock.release()


def unregulate(core: ScenarioCore) -> None:
    """Close the drivers, stop regulating, and let every parked call go
    (it finishes natively)."""
    _give_back_lock(core)
    with core.lock:
        try:
            for driver in list(core.drivers.values()):
                driver._settle(driver.ACTIVE)
        finally:
            core.drivers.clear()
            core.regulated = False
            # Threads given up on unwind through the primitives, not around
            # them: what they give back is counted (see ScenarioCore.unwound).
            core.pass_through(not (core.recording or core.abandoned))
            core.scheduler = None
            for tx in core.active:
                tx._parked = False
            # Every parked thread goes, even one whose wake an interrupted
            # scheduler took on and never gave (see Parker.free); the
            # wakes still held back are given by free() already.
            core.deferred.clear()
            for record in core.records.values():
                record.parker.free()
            core.changed()
