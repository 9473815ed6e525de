"""The middle level's one-line steps: ``scenario.park``, ``scenario.skip``
and ``scenario.finish``.

Each names threads and the calls they are to make
(``skip(A, lock.acquire, lock.release, B, ...)``); the calls are let go,
in order, from their parks, as a driver would, each thread's own
(:mod:`blanket.driving` does the driving; :mod:`blanket.checks` the
checks).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

from . import progress, waiting
from .checks import check_step, expect, parked_call, refuse_if_driven
from .core import ScenarioCore
from .driving import Dispatch, Driver
from .gate import Primitive, owner_of
from .signals import Parked, Signaled
from .states import State
from .transaction import Transaction

#: A call as a script names it: the primitive and the method's name.
CallName = tuple[Primitive, str]


def _groups(args: tuple[object, ...], who: str, *, repeats: bool = False
            ) -> list[tuple[threading.Thread, list[CallName]]]:
    """Split ``thread, method, ..., thread, method, ...`` into groups, each
    method as the call it names (a thread may come back in a later group
    only with *repeats*)."""
    groups: list[tuple[threading.Thread, list[CallName]]] = []
    calls: list[CallName] | None = None
    for arg in args:
        if isinstance(arg, threading.Thread):
            if not repeats and any(thread is arg for thread, _ in groups):
                raise ValueError(f"{who}: thread {arg.name!r} is named twice")
            calls = []
            groups.append((arg, calls))
        elif calls is None:
            raise TypeError(f"{who}: the arguments start with a thread, not {arg!r}")
        else:
            calls.append(_call_of(arg, who))
    for thread, calls in groups:
        if not calls:
            raise TypeError(f"{who}: thread {thread.name!r} has no method to call")
    return groups


def _call_of(method: object, who: str) -> CallName:
    """The primitive and name of a regulated method; ``TypeError`` for
    anything else."""
    owned = owner_of(method)
    if owned is None or owned[1] not in owned[0]._specs:
        raise TypeError(f"{who}: {method!r} is not a method of a blanket primitive")
    return owned


def _check_groups(core: ScenarioCore, groups: list[tuple[threading.Thread, list[CallName]]],
                  who: str) -> None:
    """:func:`check_step` for the threads and calls of a script step."""
    check_step(core, who, threads=[thread for thread, _ in groups],
               primitives=[call[0] for _, calls in groups for call in calls])


def _refuse_drivers(core: ScenarioCore, groups: list[tuple[threading.Thread, list[CallName]]]
                    ) -> None:
    """``CompetingDriversError`` if a driver owns a thread of *groups*: a
    script step drives the threads it names."""
    with core.lock:
        for thread, _ in groups:
            refuse_if_driven(core, thread)


def _let_go(core: ScenarioCore, thread: threading.Thread, call: CallName,
            approve: CallName | None = None) -> Transaction:
    """Wait until *thread* is parked at the scheduler block of *call*, and
    let the call go; return it.

    *approve* is the call the thread may let through its block itself next
    (see :func:`_next_skipped`); when the approval is given, the wake is
    delivered as the scheduler next sleeps (the caller waits for that next
    call at once).
    """
    with core.lock:
        tx = parked_call(core, thread, call[0], (call[1],), State.BLOCKED)
        if approve is not None:
            core.records[thread].approved = approve
            core.defer_release(tx)
        else:
            core.release_park(tx)
    return tx


def run_to_end(core: ScenarioCore, txs: Iterable[Transaction]) -> None:
    """Drive the given calls to their ends, side by side."""
    txs = list(txs)
    if len(txs) == 1:
        # One call (every skipped call but the last): its driver alone.
        driver = Driver(core, txs[0].thread)
        driver._target = txs[0]
        try:
            driver.finish()()
        finally:  # a stall or an interrupt leaves no driver claiming the thread
            driver.close()
        return
    dispatch = Dispatch(core)
    try:
        for tx in txs:
            driver = Driver(core, tx.thread)
            driver._target = tx
            dispatch.add(driver.finish())
        for _ in dispatch:
            pass
    finally:  # a stall leaves no driver claiming its thread
        dispatch.close()


class _Admitted(Signaled):
    """Signals once the thread of *record* let an approved call through its
    block, or *parked* signals."""

    __slots__ = ()

    def signalled(self, core: ScenarioCore) -> bool:
        record, parked = self._args
        return record.admitted is not None or parked.signalled(core)  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        parked: Parked = self._args[1]  # type: ignore[assignment]
        return f"the approved next call of {parked._args[0].name!r}, or {parked!r}"  # type: ignore[attr-defined]


class _AsFarAsItGoes(Signaled):
    """Signals once *transaction* has gone as far as it can without the
    scheduler: it ended, its thread is parked (the call at a later park, or
    a call nested in it), or it sleeps in the real primitive with nothing
    yet to wake it but the script (or its timeout)."""

    __slots__ = ()

    def signalled(self, core: ScenarioCore) -> bool:
        tx: Transaction = self._args[0]  # type: ignore[assignment]
        if tx.done:
            return True
        chain = core.chain(tx.thread)
        if chain and chain[-1]._parked:
            return True
        return tx._state is State.WAITING and (tx._deadline is not None
                                               or not progress.wakes(core, tx))

    def __repr__(self) -> str:
        return f"the end of {self._args[0]!r}, or its next park or sleep"


def _as_far_as_it_goes(core: ScenarioCore, tx: Transaction) -> None:
    """Wait until the skipped *tx* has gone as far as it can without the
    scheduler, so that the next thread's calls are logged after it: the log
    follows the script."""
    with core.lock:
        state = tx._state  # mostly it has ended already: no wait
        if state is not State.RETURNED and state is not State.RAISED:
            waiting.wait_locked(core, [(tx, _AsFarAsItGoes(tx))], None)


def _next_skipped(core: ScenarioCore, tx: Transaction, call: CallName) -> Transaction:
    """Drive the skipped *tx* to its end, then let its thread's next call,
    *call*, go from its scheduler block; return that call.

    The quick way: the thread has been told (``ThreadRecord.approved``) to
    let that call through its block itself when it makes it next, so it runs
    from *tx* into the next call without a round trip to the scheduler in
    between. (The next call without a parent is made once *tx* is done, or
    by a barrier action while *tx* is pushed.)
    Anything else -- a call that parks again, a nested call, another call,
    a thread that ends -- goes the long way, exactly as without the
    approval: a driver runs *tx* to its end and :func:`_let_go` checks and
    lets go the next call. (No other driver owns the thread: skip refused
    that before letting anything go.)
    """
    thread = tx.thread
    with core.lock:
        record = core.records[thread]
        record.approved = call  # (already, when _let_go approved it)
        try:
            waiting.wait_locked(core, [(thread, _Admitted(record, Parked(thread)))], None)
        finally:
            admitted, record.approved, record.admitted = record.admitted, None, None
        # A call the barrier action made on the thread (tx pushed off its
        # chain) went through too, as the driver below would have let it go;
        # it is not the next call.
        if admitted is not None and tx.done:
            return admitted
    if not tx.done:
        run_to_end(core, [tx])
    return _let_go(core, thread, call)


def park(core: ScenarioCore, args: tuple[object, ...], wait: bool
         ) -> dict[threading.Thread, Transaction]:
    """``scenario.park``: see :meth:`blanket.Scenario.park`."""
    groups = _groups(args, "park")
    _check_groups(core, groups, "park")
    if wait:  # the calls are driven: refused before any is let go
        _refuse_drivers(core, groups)
    parked = {}
    for thread, calls in groups:
        if len(calls) != 1:
            raise TypeError(f"park: thread {thread.name!r} needs exactly one method, "
                            f"not {len(calls)}")
        parked[thread] = expect(core, thread, calls[0][0], calls[0][1], State.BLOCKED)
    if wait:
        for tx in parked.values():
            tx.unblock()
        run_to_end(core, parked.values())
    return parked


def skip(core: ScenarioCore, args: tuple[object, ...], wait: bool
         ) -> dict[threading.Thread, Transaction]:
    """``scenario.skip``: see :meth:`blanket.Scenario.skip`."""
    groups = _groups(args, "skip", repeats=True)
    _check_groups(core, groups, "skip")
    _refuse_drivers(core, groups)  # before any call is let go
    last: dict[threading.Thread, Transaction] = {}
    for thread, calls in groups:
        if thread in last:  # named again: its last call runs to its end first
            tx = _next_skipped(core, last[thread], calls[0])
        else:
            tx = _let_go(core, thread, calls[0], calls[1] if len(calls) > 1 else None)
        for call in calls[1:]:
            tx = _next_skipped(core, tx, call)
        last[thread] = tx
        _as_far_as_it_goes(core, tx)
    if wait:
        run_to_end(core, last.values())
    return last


def finish(core: ScenarioCore, threads: tuple[threading.Thread, ...]) -> None:
    """``scenario.finish``: see :meth:`blanket.Scenario.finish`."""
    check_step(core, "finish", threads=threads)
    dispatch = _Finishing(core, threads)
    try:
        for thread in threads:
            driver = Driver(core, thread)
            driver._hold = True
            dispatch.add(driver.finish())
        for driver in dispatch:
            if driver.state != Driver.TERMINATED:
                driver.finish()
    finally:  # a stall leaves no driver claiming its thread
        dispatch.close()


class _Finishing(Dispatch):
    """The dispatch of ``scenario.finish``. Its threads stuck in a wait-for
    cycle fail it at once as any wait of a script (see
    :func:`blanket.waiting.wait`), its message naming ``finish``, and every
    thread it drives is given up with the cycle's."""

    def __init__(self, core: ScenarioCore, threads: tuple[threading.Thread, ...]) -> None:
        super().__init__(core)
        self._threads = threads
        names = ", ".join(repr(thread.name) for thread in threads)
        self._step = f"finish({names})"

    def _wait(self, tokens: list[Signaled]) -> None:
        waiting.wait(self._core, [(token, token) for token in tokens], None, self._step,
                     self._threads)
