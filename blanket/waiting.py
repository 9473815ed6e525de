"""The scheduler's wait: sleep until one of the given signals holds, within
the bound, and name a deadlock at once.

Every wait of a script (``scenario.wait``, a driver, ``relay``, a cycle,
an exploration's step) goes through :func:`wait_locked`, with the
scenario's lock held. It sleeps on a parker of the core's
(:attr:`ScenarioCore.watchers <blanket.core.ScenarioCore.watchers>`),
which every change of state wakes, and looks again; when nothing it waits
for can ever happen because the threads wait for each other, it raises
:class:`~blanket.errors.DeadlockError` naming the cycle
(:mod:`blanket.progress`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

from . import progress
from .errors import StallError
from .parking import Parker, deliver_all

if TYPE_CHECKING:  # pragma: no cover
    from .core import ScenarioCore
    from .signals import Signaled

#: How often, in seconds, a wait looks again at a thread blanket did not
#: start (nothing tells when such a thread ends).
POLL_INTERVAL = 0.005
#: How often, in seconds, a wait lets the scenario look at the threads
#: running (:attr:`ScenarioCore.look_at_running
#: <blanket.core.ScenarioCore.look_at_running>`), when it asks to.
RUNNING_POLL = 0.05


def wait(core: ScenarioCore, items: Iterable[tuple[object, Signaled]], timeout: float | None,
         step: str | None = None, give_up: Iterable[threading.Thread] = ()
         ) -> set[object]:
    """Sleep until any token signals; return the items whose tokens did.

    With *timeout* ``None`` the scenario's default bound applies and
    running out of it raises :class:`StallError` with a report; an
    explicit *timeout* raises plain ``TimeoutError``.

    Within the default bound, a wait that nothing can end because the
    threads are stuck in a wait-for cycle raises
    :class:`~blanket.errors.DeadlockError` at once, naming the cycle,
    its threads (and *give_up*'s) given up (see
    :func:`blanket.progress.give_up`). *step* names the script step in
    its message (by default, the wait and its tokens).
    """
    pairs = list(items)
    with core.lock:
        return wait_locked(core, pairs, timeout, step, give_up)


def wait_locked(core: ScenarioCore, pairs: list[tuple[object, Signaled]], timeout: float | None,
                step: str | None = None, give_up: Iterable[threading.Thread] = ()
                ) -> set[object]:
    """:func:`wait`, with the lock held (and still held on return).

    Wakes the scheduler held back (:meth:`ScenarioCore.defer_release
    <blanket.core.ScenarioCore.defer_release>`) are delivered
    as it goes to sleep, or on return if it does not sleep.
    """
    parker: Parker | None = None
    deadline = 0.0
    cycle: list[threading.Thread] = []
    settling_only = len(pairs) == 1 and type(pairs[0][1]) is progress.Settled
    try:
        while True:
            core.polled = False
            hit = set()
            for item, token in pairs:
                if token.signalled(core):
                    hit.add(item)
            if hit:
                return hit
            # The one check every wait of a script makes: the default
            # bound is the script's; an explicit timeout is the user's
            # own (it may check that a deadlocked call stays put). A
            # thread blanket did not start may end by itself (core.polled).
            # A wait for progress.Settled alone has just been told that
            # not every thread is settled: then none is deadlocked.
            if timeout is None and not core.polled and not settling_only and (
                    cycle := progress.deadlocked(core)):
                break
            if parker is None:
                # Most waits of a script find what they wait for at
                # once; the rest sleep on a parker kept for reuse.
                bound = core.timeout if timeout is None else timeout
                deadline = time.monotonic() + bound
                # (Set only once it is a watcher, for the finally.)
                watcher = core.spare.pop() if core.spare else Parker()
                core.watchers.append(watcher)
                parker = watcher
            remaining = deadline - time.monotonic()
            if remaining <= 0 and settling_only and timeout is None \
                    and core.outsiders.give_up(core, progress.holder(core)):
                continue  # waited for outsiders alone: no longer (blanket.outsiders)
            if remaining <= 0:
                waited = ", ".join(repr(token) for _, token in pairs)
                if timeout is not None:
                    raise TimeoutError(
                        f"scenario {core.name!r}: nothing of {waited} "
                        f"signalled within {timeout} s")
                raise StallError(
                    f"scenario {core.name!r} stalled: nothing of {waited} "
                    f"signalled within {bound} s", core.report())
            if core.polled:
                remaining = min(remaining, POLL_INTERVAL)
            look = core.look_at_running
            if look is not None:
                remaining = min(remaining, RUNNING_POLL)
            parker.sleep(core.lock, remaining, core.deferred)
            if look is not None:
                look()
    finally:
        if parker is not None:
            core.watchers.remove(parker)
            # Left armed (its permit empty): the next wait may reuse it.
            core.spare.append(parker)
        if core.deferred:  # the wait did not sleep
            deliver_all(core.deferred)
    waited = ", ".join(repr(token) for _, token in pairs)
    raise progress.give_up(core, cycle, step or f"the wait for {waited}", give_up)
