"""The scenario core: one lock over all of a scenario's state, and the
worker's path through a regulated call.

A call on a regulated primitive goes through :meth:`ScenarioCore.run`:

1. the transaction is created ``BLOCKED`` and parks (the scheduler block);
2. a timeout-bearing call moves to ``COMMIT`` with its timeout decided;
3. the primitive makes the real call, reporting ``WAITING`` before it may
   sleep inside the real primitive, and ``STALLED`` (a park) where it has
   been woken but not yet let back in (``Condition.wait``);
4. the call is ``COMMITTED``, parks at ``PAUSED`` if a pause was asked for,
   then goes ``EXITING`` to ``RETURNED`` or ``RAISED`` and into the log.

Every state change wakes whoever waits in ``scenario.wait``; every park
sleeps on the thread's own :class:`~blanket.parking.Parker`, so letting one
call go wakes only its thread.
"""

from __future__ import annotations

import itertools
import sys
import threading
import time
import types
import typing
from _thread import get_ident
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .errors import Abandoned, SchedulerError
from .gate import label
from .holdback import interrupts_held_back
from .log import Log
from .outsiders import Outsiders
from .parking import Parker, deliver_all
from .quiet import quiet_pools, quiet_threads
from .report import format_report
from .states import State
from .transaction import CallSpec, Transaction
from .weakset import WeakSet

if TYPE_CHECKING:  # pragma: no cover
    from .exploration.runners import Runners

# threading's table of the threads it knows, by ident.
_active: dict[int, threading.Thread] = threading._active  # type: ignore[attr-defined]

# On the path of every call, and in an exploration's bookkeeping of each step
# and run, a dict is read with ``k in d`` and ``d[k]``, not ``d.get(k)``: on the
# free-threaded build (3.13) the first get of a dict or value another thread
# made takes 20 us, the subscript nothing (a tenth of the 924-order benchmark).

# The profile functions that blanket's own bookkeeping of a call turns off
# while it runs (see unwatched): Python ones (an exploration's, see
# blanket.exploration.unseen), not a profiler written in C, which could not
# be put back as it was. (From 3.12 on, turning the last thread's profile
# off and on re-instruments every function: an exploration that watches
# with profile functions keeps one on in a thread of its own, see
# blanket.exploration.runners; where it can, it watches through
# sys.monitoring instead, and the threads have no profile to turn off.)
_QUIETED: tuple[type, ...] = (types.FunctionType, types.MethodType)
_getprofile = sys.getprofile
_gettrace = sys.gettrace

#: The trace functions that blanket's own bookkeeping of a call turns off
#: with the profile: the witness's where it traces alone (Python 3.11, see
#: blanket.exploration.witness), whose every event there would be blanket's
#: code, and which makes every instruction of the thread slower while it is
#: on. Another tracer (coverage's, a debugger's), alone or with the witness's
#: over it, stays on: it sees blanket's code as ever.
quiet_traces: set[Callable[..., Any]] = set()


@typing.no_type_check  # (typeguard stays off it: it runs at every call on a primitive)
def unwatched(profile: Callable[..., Any], call: Callable[..., Any], *args: Any) -> Any:
    """``call(*args)`` with the calling thread's *profile* function off.

    Used for blanket's own bookkeeping of a call (parking included), where
    an exploration's profile function has nothing to note but would run at
    every call and return: about 60 of the 80 it sees per step; and for
    the rewriting of a function a thread meets (what it runs is no code of
    the thread's, see :meth:`Watch.reached
    <blanket.exploration.watch.Watch.reached>`). A quiet trace function
    (:data:`quiet_traces`) is off too.
    """
    trace = _gettrace()
    quiet = trace in quiet_traces
    if quiet:
        sys.settrace(None)
    sys.setprofile(None)
    try:
        return call(*args)
    finally:
        sys.setprofile(profile)
        if quiet:
            sys.settrace(trace)  # pragma: no cover - (no coverage sees it: it runs untraced)


#: What a primitive does to make the real call of a transaction.
Attempt = Callable[..., Any]


class ThreadRecord:
    """What the core keeps per thread: its parker and its chain of calls.

    ``chain`` holds the thread's transactions in flight, outermost first
    (a ``Condition.wait`` and the lock re-acquire nested in it, say).
    """

    __slots__ = ("parker", "chain", "approved", "admitted")

    def __init__(self) -> None:
        self.parker = Parker()
        self.chain: list[Transaction] = []
        #: The call, as ``(primitive, method name)``, that the thread lets
        #: through its scheduler block itself when it makes it next, as the
        #: scheduler would (``scenario.skip``, see blanket.driving).
        self.approved: tuple[object, str] | None = None
        #: The call that went through on that approval.
        self.admitted: Transaction | None = None


class ScenarioCore:
    """The state of one scenario, guarded by :attr:`lock`.

    The public :class:`~blanket.Scenario`, the primitives, their API objects
    and every transaction reach the state through this object, and only with
    :attr:`lock` held.
    """

    def __init__(self, name: str) -> None:
        #: The one lock over everything below. (An RLock only so that a sleep
        #: interrupted by a KeyboardInterrupt can tell whether it holds it
        #: again; it is never taken twice. See blanket.parking.)
        self.lock = threading.RLock()
        #: The scenario's name, for reports.
        self.name = name
        #: Whether the scenario is entered: calls on primitives are transactions.
        self.regulated = False
        #: Whether calls outside the scenario are recorded in the log.
        self.recording = False
        #: The primitives' fast check: neither regulated nor recording.
        self.passthrough = True
        #: The thread that entered the scenario, while it is entered.
        self.scheduler: threading.Thread | None = None
        #: The default bound, in seconds, on the scheduler's waits and on joins.
        self.timeout = 10.0
        #: Per-thread parkers and chains.
        self.records: dict[threading.Thread, ThreadRecord] = {}
        #: Every transaction in flight, in the order they started.
        self.active: dict[Transaction, None] = {}
        #: The finished transactions.
        self.log = Log()
        #: The driver that owns each thread being driven.
        self.drivers: dict[threading.Thread, Any] = {}
        #: The managed threads, in creation order.
        self.managed: dict[threading.Thread, None] = {}
        #: The threads outside the scenario that take part in it (see
        #: :mod:`blanket.outsiders`).
        self.outsiders = Outsiders()
        #: Managed threads whose target has returned or raised.
        self.finished: set[threading.Thread] = set()
        #: The exception each managed thread died of.
        self.errors: dict[threading.Thread, BaseException] = {}
        #: The scenario's primitives, held weakly: a scenario keeps none alive.
        self.primitives: WeakSet[Any] = WeakSet()
        #: Threads the scheduler gave up on: their parks raise Abandoned.
        self.abandoned: set[threading.Thread] = set()
        #: The releases those threads made as they unwound, by thread and the id of
        #: the primitive: the log has none of them, and a real lock twinned is put
        #: back by what its run holds of it (see blanket.exploration.realprims).
        self.unwound: dict[threading.Thread, dict[int, int]] = {}
        self._counters: dict[str, itertools.count[int]] = {}
        #: The parkers of the waits asleep in :mod:`blanket.waiting`: every
        #: change wakes them.
        self.watchers: list[Parker] = []
        #: Parkers of finished waits, kept for the next ones.
        self.spare: list[Parker] = []
        #: Wakes the scheduler let go of and delivers as it next sleeps.
        self.deferred: list[Parker] = []
        #: The thread the scheduler let go from a park last (a script's waits look at it first).
        self.moved: threading.Thread | None = None
        # A change the watchers have not been woken for yet. The worker's path sets
        # it while it keeps the lock a while longer and calls changed() before letting
        # the lock go: woken earlier, a watcher would only wait for it on another core.
        self._pending = False
        #: Whether the wait being evaluated asked about a thread blanket did
        #: not start (see :meth:`terminated`): it must look again before long.
        self.polled = False
        #: The managed threads the latest entry started (see :func:`blanket.entry.undo_entry`).
        self.entering: list[threading.Thread] = []
        #: Whether entry starts the threads one at a time, each once the one
        #: before it is parked at its first call or has ended. An exploration
        #: asks for it: its runs must not depend on how the threads' first
        #: steps overlap (on the free-threaded build they truly run at once).
        self.start_in_turn = False
        #: Threads started ahead of time that the managed threads run on (an
        #: exploration's, see blanket.exploration.runners), or None: threads of their own.
        self.runners: Runners | None = None
        #: Called with each thread the watched code made (an adopted thread,
        #: see blanket.exploration.adopt) before it starts: an exploration's
        #: run watches it as its own threads (blanket.exploration.unseen).
        self.watch_thread: Callable[[threading.Thread], None] | None = None
        #: Whether the scheduler only ever waits for every thread to settle
        #: (an exploration, see blanket.progress.Settled): then a call that
        #: ends wakes nobody, for its thread goes on running; the scheduler
        #: is woken when the thread parks, sleeps in a real primitive or ends.
        self.settling = False
        #: An exploration's next step, taken by the thread whose park leaves
        #: every thread settled (see blanket.exploration.run.Run.carry_on), or None.
        #: Called with the lock held and the parking call; returns the wakes
        #: to deliver as that thread sleeps, or None: the scheduler decides.
        self.on_settled: Callable[[Transaction], list[Parker] | None] | None = None
        #: Called (lock held) every :data:`blanket.waiting.RUNNING_POLL`
        #: seconds while the scheduler waits, or None: an exploration's run
        #: looks for a thread spinning where it does not park (see
        #: blanket.exploration.spins.FreeSpins).
        self.look_at_running: Callable[[], None] | None = None

    # -- bookkeeping ------------------------------------------------------------

    def adopt(self, primitive: Any) -> str:
        """Count a new primitive in; return its label ("Lock 1", "Lock 2", ...)."""
        kind = primitive._kind
        with self.lock:
            self.primitives.add(primitive)
            primitive._pass_through(self.passthrough)
            counter = self._counters.setdefault(kind, itertools.count(1))
            return f"{kind} {next(counter)}"

    def pass_through(self, passthrough: bool) -> None:
        """Let calls on the primitives pass straight through to the real ones
        (neither regulated nor recorded), or stop (lock held)."""
        if passthrough is not self.passthrough:
            self.passthrough = passthrough
            for primitive in list(self.primitives):
                primitive._pass_through(passthrough)

    def chain(self, thread: threading.Thread) -> list[Transaction]:
        """*thread*'s transactions in flight, outermost first."""
        records = self.records  # (not get: see the note at the top)
        return records[thread].chain if thread in records else []

    def terminated(self, thread: threading.Thread) -> bool:
        """Whether *thread* has finished (lock held).

        A managed thread says so itself as its target ends
        (:class:`~blanket.threads.ManagedThread`). A thread blanket did not
        start tells nobody when it ends, so a wait that asks about one looks
        again every :data:`~blanket.waiting.POLL_INTERVAL` seconds (see
        :func:`~blanket.waiting.wait_locked`)
        instead of keeping a thread to join it.
        """
        if thread in self.finished:
            return True
        if thread in self.managed:
            # A managed thread says when it ends, with the lock held, before
            # it stops being alive (ManagedThread.run).
            return False
        # Ctrl-C inside is_alive can make it take a live thread for ended,
        # as inside join (see blanket.holdback).
        with interrupts_held_back():
            ended = thread.ident is not None and not thread.is_alive()
        if not ended:
            self.polled = True
        return ended

    def changed(self) -> None:
        """Something changed: wake everyone in ``scenario.wait``."""
        self._pending = False
        for parker in self.watchers:
            if parker._sleeping:  # what wake() checks first, without the call
                parker.wake()

    def _claim(self) -> list[Parker]:
        """changed(), but the wakes are taken to be delivered once the lock
        is let go (lock held): the woken then find it free, instead of
        waiting for it on another core."""
        self._pending = False
        # Parker.claim() on each, inline: this runs on every park.
        claimed = [parker for parker in self.watchers if parker._sleeping]
        for parker in claimed:
            parker._sleeping = False
        return claimed

    def _wakes(self, record: ThreadRecord) -> list[Parker] | None:
        """The wakes a worker's change calls for, claimed (lock held; the
        caller calls it only for a change, and never when the scheduler is
        :attr:`settling`: a call that goes on running does not settle).

        None while the scheduler waits for the worker's approved call (see
        ThreadRecord.approved): it is woken when that call is made, or when
        the thread parks, sleeps in a real primitive (:meth:`waiting`) or
        ends instead, not on every step before.
        """
        if record.approved is not None:
            return None
        return self._claim()

    def reset(self) -> None:
        """Forget finished transactions and threads with nothing in flight."""
        self.log._clear()
        for thread in [t for t, r in self.records.items() if not r.chain]:
            del self.records[thread]

    # -- the worker's side of a call ------------------------------------------

    # (typeguard stays off it: it runs at every call on a primitive, which
    # blanket's own primitives make, and its check cost more than the call)
    @typing.no_type_check
    def run(self, primitive: object, spec: CallSpec, args: tuple[Any, ...],
            call: Callable[..., Any], attempt: Attempt | None = None, *,
            park: bool = True) -> Any:
        """Make one call on *primitive* as a transaction; return its result.

        *call* is the real method. *attempt*, when given, makes the real call
        instead of plain ``call(*args)``: ``attempt(core, tx, call, *args)``,
        where *tx* is ``None`` if the call turned out not to be regulated.
        With *park* false the call does not stop at the scheduler block (a
        re-acquire the scheduler already allowed by un-stalling its wait).
        """
        profile: Any = _getprofile()
        quiet = profile is not None and type(profile) in _QUIETED
        if quiet:
            thread, tx, worker_tx, args = unwatched(profile, self._begin, primitive, spec,
                                                     args, park)
        else:
            thread, tx, worker_tx, args = self._begin(primitive, spec, args, park)
        try:
            # Parked just now: abandoned meanwhile? A release is made first: the
            # thread unwinds giving back what it holds, and this it was giving
            # back (else a lock kept in process-wide state, a logging
            # handler's, would stay held by a thread that is gone).
            if worker_tx is not None and thread in self.abandoned:
                if spec.name == "release":
                    try:
                        call(*args)
                    except RuntimeError:  # given back already (the teardown's)
                        pass
                    else:
                        with self.lock:
                            self._unwound(thread, primitive)
                self.check_abandoned(thread)
            if attempt is None:
                result = call(*args)
            else:
                result = attempt(self, worker_tx, call, *args)
        except BaseException as exc:
            if tx is not None:
                self.close(tx, exc, State.RAISED)
            raise
        if tx is not None:
            if quiet:
                unwatched(profile, self.close, tx, result, State.RETURNED)
            else:
                self.close(tx, result, State.RETURNED)
        return result

    def _begin(self, primitive: object, spec: CallSpec, args: tuple[Any, ...], park: bool
               ) -> tuple[threading.Thread, Transaction | None, Transaction | None,
                          tuple[Any, ...]]:
        """:meth:`run`'s start: the calling thread, its transaction (``None``
        if not recorded), the same if regulated (it parked), and the
        arguments the real call is made with."""
        # threading.current_thread(), without its Python frame: this runs
        # on every call (a thread threading does not know takes the long way).
        ident = get_ident()  # (not get: see the note at the top)
        thread = _active[ident] if ident in _active else threading.current_thread()
        claimed: list[Parker] | None = None
        worker_tx: Transaction | None = None
        # Program code run by blanket's bookkeeping (the lock held): parked, the
        # thread would keep the lock from every other, the scheduler's bounded wait too.
        if self.lock._is_owned():  # type: ignore[attr-defined]
            raise RuntimeError(f"{spec.kind}.{spec.name} on {label(primitive)} was called in "
                               f"thread {thread.name!r} inside blanket's own bookkeeping")
        with self.lock:
            if not self.regulated or thread in self.abandoned:
                tx = None
                if thread in self.abandoned and spec.name == "release":
                    self._unwound(thread, primitive)
                if self.recording:
                    tx = Transaction(self, thread, primitive, spec, args, None, None,
                                     State.COMMIT)
            else:
                if thread is self.scheduler:
                    raise SchedulerError(
                        f"the scheduler thread {thread.name!r} called {spec.kind}."
                        f"{spec.name} on {label(primitive)} inside the scenario; "
                        "it would wait for itself. Use scenario.raw(primitive) to "
                        "call it unregulated.")
                if thread in self.records:  # (not get: see the note at the top)
                    record = self.records[thread]
                else:
                    record = self.records[thread] = ThreadRecord()
                    if thread not in self.managed:  # (see blanket.outsiders)
                        self.outsiders.add(thread)
                try:
                    tx = worker_tx = self.open(record, thread, primitive, spec, args,
                                               park=park)
                finally:
                    if self._pending and not self.settling:  # see _wakes
                        claimed = self._wakes(record)
                args = tx.call_args()
        if claimed:  # the wakes, delivered once the lock is let go
            deliver_all(claimed)
        return thread, tx, worker_tx, args

    def _unwound(self, thread: threading.Thread, primitive: object) -> None:
        """*thread*, given up on, gave *primitive* back as it unwound (lock
        held): no call logged says so (see :attr:`unwound`)."""
        counts = self.unwound.setdefault(thread, {})
        counts[id(primitive)] = counts.get(id(primitive), 0) + 1

    def check_abandoned(self, thread: threading.Thread) -> None:
        """Raise :class:`Abandoned` in *thread* if the scheduler gave up on it."""
        if thread in self.abandoned:
            quiet_pools()  # a pool's worker logs what it catches
            if thread not in self.managed:
                quiet_threads()  # threading prints how an outsider ended
            raise Abandoned(f"thread {thread.name!r} was abandoned by the scheduler")

    def current(self, primitive: object, name: str) -> Transaction | None:
        """The calling thread's innermost transaction, if it is a *name* call
        on *primitive*."""
        with self.lock:
            chain = self.chain(threading.current_thread())
            if chain and chain[-1].primitive is primitive and chain[-1].spec.name == name:
                return chain[-1]
            return None

    def open(self, record: ThreadRecord, thread: threading.Thread, primitive: object,
             spec: CallSpec, args: tuple[Any, ...], *, park: bool) -> Transaction:
        """Start a transaction of *thread* (its *record*; lock held):
        ``BLOCKED``, parked if *park*, then ``COMMIT`` for a timeout-bearing
        call."""
        parent = record.chain[-1] if record.chain else None
        tx = Transaction(self, thread, primitive, spec, args, parent, record.parker,
                         State.BLOCKED)
        record.chain.append(tx)
        self.active[tx] = None
        if parent is not None:
            parent._children += 1
        self._pending = True
        if park:
            approved = record.approved
            if approved is not None and parent is None and approved[0] is primitive \
                    and approved[1] == spec.name:
                # Let go from the block at once, as the scheduler would.
                record.approved = None
                record.admitted = tx
            else:
                self.park(tx)
        if spec.timeout_at is not None:
            value = tx._effective_timeout()
            if isinstance(value, (int, float)) and value != spec.no_timeout \
                    and value >= 0:
                tx._deadline = time.monotonic() + value
            self.advance(tx, State.COMMIT)
            if tx._hold_commit and self.regulated:
                self.park(tx)
        return tx

    def close(self, tx: Transaction, outcome: object, end: State) -> None:
        """Finish a transaction: ``COMMITTED``, ``PAUSED`` if asked, ``EXITING``,
        then *end*; into the log."""
        claimed: list[Parker] | None = None
        with self.lock:
            tx._result = outcome
            if tx._parker is None:  # recorded outside the scenario
                self.advance(tx, end)
                self.log._append(tx)
                self.changed()
            else:
                if (tx._pause or tx._holds > 0) and self.regulated:  # tx.pausing
                    self.advance(tx, State.COMMITTED)
                    self.advance(tx, State.PAUSED)
                    self.park(tx)
                    now = time.monotonic()
                    tx._history += (now, State.EXITING, now, end)
                else:
                    # advance() three times, inline: this runs once per call.
                    now = time.monotonic()
                    tx._history += (now, State.COMMITTED, now, State.EXITING, now, end)
                tx._state = end
                record = self.records[tx.thread]
                if tx._pushed:  # never put back: it ends off the chain
                    tx._pushed = False
                else:
                    record.chain.remove(tx)
                del self.active[tx]
                if tx.parent is not None:
                    tx.parent._children -= 1
                self.log._entries.append(tx)
                self._pending = True
                if not self.settling:  # see _wakes
                    claimed = self._wakes(record)
        if claimed:  # the wakes, delivered once the lock is let go
            deliver_all(claimed)

    def advance(self, tx: Transaction, state: State) -> None:
        """Move *tx* forward to *state* (lock held) and tell the scheduler."""
        assert tx._state._value_ < state._value_, (tx, state)
        tx._state = state
        tx._history += (time.monotonic(), state)
        self._pending = True

    def park(self, tx: Transaction) -> None:
        """Sleep until the scheduler lets *tx* go from its current state, or
        the scenario is exited (lock held)."""
        tx._parked = True
        # In an exploration the thread that settles everything takes the
        # scheduler's next step itself: one hand-off per step at most, none
        # when it lets its own call go.
        settle = self.on_settled
        claimed = settle(tx) if settle is not None else None
        if claimed is None:
            claimed = self._claim()  # delivered as the sleep lets the lock go
        parker = tx._parker
        # Every caller parks only while regulated, so the loop runs and the
        # claimed wakes are delivered, unless the call was let go at once
        # (then nothing was claimed).
        assert parker is not None and self.regulated
        while tx._parked and self.regulated:
            parker.sleep(self.lock, -1, claimed)
        tx._parked = False

    def waiting(self, tx: Transaction) -> None:
        """*tx* is about to sleep inside the real primitive."""
        with self.lock:
            self.advance(tx, State.WAITING)
            self.changed()

    def resumed(self, tx: Transaction) -> None:
        """*tx* is back from sleeping inside the real primitive."""
        with self.lock:
            self.advance(tx, State.RESUMED)
            self.changed()

    def stall(self, tx: Transaction) -> None:
        """*tx* has been woken inside the real primitive: park at ``STALLED``
        until the scheduler lets it back in, then go on ``RESUMED``."""
        with self.lock:
            if self.regulated and tx.thread not in self.abandoned:
                self.advance(tx, State.STALLED)
                self.park(tx)
            self.advance(tx, State.RESUMED)
            self.changed()
        self.check_abandoned(tx.thread)

    # -- the scheduler's side ---------------------------------------------------

    def release_park(self, tx: Transaction) -> None:
        """Let *tx* go from the park it is in (lock held)."""
        tx._parked, self.moved = False, tx.thread
        assert tx._parker is not None
        tx._parker.wake()

    def release_pause(self, tx: Transaction) -> None:
        """Let *tx* go from ``PAUSED`` if nobody wants it paused (lock held)."""
        if tx._state is State.PAUSED and tx._parked and not tx.pausing:
            self.release_park(tx)

    def push(self, tx: Transaction) -> None:
        """Take root transaction *tx* off its thread's chain (lock held)."""
        self.records[tx.thread].chain.remove(tx)
        tx._pushed = True
        self.changed()

    def pop(self, tx: Transaction) -> None:
        """Put a pushed *tx* back at the root of its chain (lock held)."""
        if not tx._pushed:
            raise ValueError(f"{tx!r} is not pushed")
        tx._pushed = False
        self.records[tx.thread].chain.insert(0, tx)
        self.changed()

    def defer_release(self, tx: Transaction) -> None:
        """Let *tx* go from its park, but deliver the wake only when the
        scheduler next sleeps in :func:`~blanket.waiting.wait_locked` (lock held).

        With the GIL, a thread woken while the scheduler still runs would
        only wake again when the scheduler lets the GIL go; woken as the
        scheduler goes to sleep, it runs at once.
        """
        self.deferred.append(self.let_go(tx))

    def let_go(self, tx: Transaction) -> Parker:
        """Let *tx* go from its park; return its thread's parker, its wake
        claimed, for the caller to deliver once it lets the lock go (lock held)."""
        tx._parked, self.moved = False, tx.thread
        parker = tx._parker
        assert parker is not None
        claimed = parker.claim()
        assert claimed, "a parked call's thread sleeps on its parker until woken"
        return parker

    def report(self) -> str:
        """Every thread's current call and state (lock held)."""
        return format_report(self)
