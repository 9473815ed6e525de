"""The middle level: drivers that push threads through their calls.

A :class:`Driver` takes one thread and one staged *imperative* at a time
(``skip()``, ``finish()``, ``block()``, ``commit()``, ``wait()``,
``stall()``, ``pause()``, ``nested()``); driving it (calling it, or iterating
a :class:`Chain` or :class:`Dispatch` that holds it) lets the thread's calls go
from their parks until the imperative is met, then hands control back.

Every driver works in steps: :meth:`Driver._step`, with the scenario's lock
held, does all it can without waiting and returns either ``None`` (the driver
needs the scheduler's attention) or the tokens to wait on before the next
step. A lone driver waits on its own tokens; a dispatch waits on the union of
all its drivers' tokens, so independent threads make progress side by side.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator

from . import progress
from .core import ScenarioCore
from .errors import CompetingDriversError, ThreadOrderingError
from .primitives import Primitive, owner_of
from .signals import Not, Parked, Paused, Reached, Signaled, Terminated, _Active
from .states import State
from .transaction import Transaction

# What each park-type imperative drives the current call to.
_GOALS = {"block": State.BLOCKED, "commit": State.COMMIT, "wait": State.WAITING,
          "stall": State.STALLED, "pause": State.PAUSED}


class Driver:
    """Drives one thread's calls; see the module documentation.

    The driver's :attr:`state` is one of the strings below. Driving states
    (the driver is working on an imperative): ``skipping``, ``parking``,
    ``nesting``, ``finishing``. Waiting for instructions: ``idle`` (the
    thread has no call) and ``active`` (it has one). Terminal: ``parked``,
    ``finished``, ``raised``, ``terminated``; a terminal driver may be given
    a new imperative and driven again.
    """

    IDLE, ACTIVE = "idle", "active"
    SKIPPING, PARKING, NESTING, FINISHING = "skipping", "parking", "nesting", "finishing"
    PARKED, FINISHED, RAISED, TERMINATED = "parked", "finished", "raised", "terminated"
    #: States in which the driver is working on an imperative.
    driving_states = frozenset({SKIPPING, PARKING, NESTING, FINISHING})
    #: States in which the driver waits for an imperative.
    active_states = frozenset({IDLE, ACTIVE})
    #: States in which the driver has met (or can no longer meet) its imperative.
    terminal_states = frozenset({PARKED, FINISHED, RAISED, TERMINATED})

    def __init__(self, core: ScenarioCore, thread: threading.Thread) -> None:
        if not isinstance(thread, threading.Thread):
            raise TypeError(f"a Driver drives a thread, not {thread!r}")
        self._core = core
        self._thread = thread
        self._state: str | None = None
        self._imperative: str | None = None
        self._target: Transaction | None = None
        self._txs: list[Transaction] = []
        # Whether a parked call that would sleep for ever if let go now (an
        # acquire of a taken lock, ...) is held at its park until it can go:
        # scenario.finish sets it, so that its threads stuck in a deadlock
        # stay parked, where abandoning them lets them unwind.
        self._hold = False

    # -- what the driver knows ----------------------------------------------------

    @property
    def thread(self) -> threading.Thread:
        """The thread this driver drives."""
        return self._thread

    @property
    def state(self) -> str | None:
        """The driver's state (``None`` until it is first driven)."""
        return self._state

    @property
    def tx(self) -> Transaction | None:
        """The call being driven, else the thread's current call, else ``None``."""
        if self._target is not None:
            return self._target
        with self._core.lock:
            chain = self._core.chain(self._thread)
            return chain[-1] if chain else None

    @property
    def txs(self) -> tuple[Transaction, ...]:
        """Every call this driver has driven or seen, oldest first."""
        return tuple(self._txs)

    @property
    def done(self) -> bool:
        """Whether the driver is in a terminal state."""
        return self._state in self.terminal_states

    @property
    def imperative(self) -> str | None:
        """The staged imperative not yet met (``"skip"``, ``"pause"``, ...)."""
        return self._imperative

    # -- imperatives (lazy: nothing happens until the driver is driven) --------

    def skip(self) -> Driver:
        """Let the current call run to its end; the driver goes back to ``idle``."""
        return self._stage("skip")

    def finish(self) -> Driver:
        """Let the current call run to its end; the driver ends ``finished``
        (``raised`` if the call raised)."""
        return self._stage("finish")

    def block(self) -> Driver:
        """Stop at the scheduler block of the current (or next) call."""
        return self._stage("block")

    def commit(self) -> Driver:
        """Let a timeout-bearing call go from ``BLOCKED`` and hold it at ``COMMIT``."""
        return self._stage("commit")

    def wait(self) -> Driver:
        """Let the call go until it sleeps inside the real primitive (``WAITING``)."""
        return self._stage("wait")

    def stall(self) -> Driver:
        """Let the call go until it parks at the scheduler stall (``STALLED``)."""
        return self._stage("stall")

    def pause(self) -> Driver:
        """Let the call go until it parks at the scheduler pause (``PAUSED``)."""
        return self._stage("pause")

    def nested(self) -> Driver:
        """Let the call go until a call nests in it (or it runs a barrier
        action); the nested call becomes the driver's current call."""
        return self._stage("nested")

    def _stage(self, imperative: str) -> Driver:
        if self._imperative is not None:
            raise ValueError(f"the driver of thread {self._thread.name!r} already has "
                             f"{self._imperative!r} staged; drive it before staging "
                             f"{imperative!r}")
        self._imperative = imperative
        return self

    # -- driving ------------------------------------------------------------------

    def __call__(self) -> Driver:
        """Drive until the driver needs instructions; return the driver."""
        while True:
            with self._core.lock:
                self._claim()
                tokens = self._step()
            if tokens is None:
                return self
            self._core.wait([(token, token) for token in tokens], None)

    def close(self) -> None:
        """Stop driving the thread: drop the staged imperative and the claim."""
        with self._core.lock:
            self._imperative = None
            self._target = None
            self._release_claim()

    def _claim(self) -> None:
        """Own the thread while driving it (lock held); the first claim checks
        the thread (:func:`check_step`)."""
        if self._core.drivers.get(self._thread) is self:
            return
        check_step(self._core, "Driver", threads=(self._thread,))
        _refuse_if_driven(self._core, self._thread, self)
        self._core.drivers[self._thread] = self

    def _release_claim(self) -> None:
        if self._core.drivers.get(self._thread) is self:
            del self._core.drivers[self._thread]

    def _settle(self, state: str) -> None:
        """Meet (or give up) the imperative: *state*, nothing staged."""
        self._state = state
        self._imperative = None
        self._target = None
        if state in self.terminal_states:
            self._release_claim()

    def _step(self) -> list[Signaled] | None:
        """Do what can be done now (lock held); ``None`` when the driver needs
        attention, else the tokens to wait on before the next step."""
        core, thread = self._core, self._thread
        chain = core.chain(thread)
        top = chain[-1] if chain else None
        if top is not None and top not in self._txs:
            self._txs.append(top)
        imperative = self._imperative
        if imperative is None:
            if top is not None:
                self._settle(self.ACTIVE)
                return None
            if core.terminated(thread):
                self._settle(self.TERMINATED)
                return None
            self._state = self.IDLE
            return [_Active(thread), Terminated(thread)]
        target = self._target
        if target is None:
            if top is None:
                if core.terminated(thread):
                    self._settle(self.TERMINATED)
                    return None
                self._state = self.IDLE
                return [_Active(thread), Terminated(thread)]
            target = self._target = top
        if imperative in ("skip", "finish"):
            return self._run_to_end(target, top, imperative)
        if imperative == "nested":
            return self._nest(target, top)
        return self._park_at(target, top, _GOALS[imperative])

    def _nest(self, target: Transaction, top: Transaction | None) -> list[Signaled] | None:
        self._state = self.NESTING
        if target._children or target._pushed:
            self._settle(self.IDLE)
            return None
        if target.done:
            self._settle(self.ACTIVE)
            raise ThreadOrderingError(
                f"thread {self._thread.name!r}: {target.spec.kind}.{target.spec.name} "
                f"{target.state.name} without a nested call")
        return self._release(target, top, [_NestedOrAction(target)])

    def _run_to_end(self, target: Transaction, top: Transaction | None,
                    imperative: str) -> list[Signaled] | None:
        self._state = self.SKIPPING if imperative == "skip" else self.FINISHING
        if target.done:
            if target.state is State.RAISED:
                self._settle(self.RAISED)
            else:
                self._settle(self.IDLE if imperative == "skip" else self.FINISHED)
            return None
        return self._release(target, top, [Reached(target, State.RETURNED)])

    def _park_at(self, target: Transaction, top: Transaction | None,
                 goal: State) -> list[Signaled] | None:
        self._state = self.PARKING
        if goal is State.COMMIT and target.spec.timeout_at is None:
            self._settle(self.ACTIVE)
            raise ValueError(f"{target.spec.kind}.{target.spec.name} takes no timeout, so "
                             "it never stops at COMMIT")
        history = target._history[1::2]
        if target.state is goal or (goal is State.WAITING and goal in history):
            self._settle(self.PARKED)
            return None
        if target.state > goal or target.done:
            self._settle(self.ACTIVE)
            raise ThreadOrderingError(
                f"thread {self._thread.name!r}: {target.spec.kind}.{target.spec.name} went "
                f"to {target.state.name} without stopping at {goal.name}")
        if goal is State.COMMIT:
            target._hold_commit = True
        elif goal is State.PAUSED:
            target._pause = True
        return self._release(target, top, [Reached(target, goal)])

    def _release(self, target: Transaction, top: Transaction | None,
                 tokens: list[Signaled]) -> list[Signaled]:
        """Let the thread's parked call go unless it is where the driver
        wants it; return what to wait on next."""
        core = self._core
        if top is None or not top._parked:
            return tokens + [Parked(self._thread)]
        if self._hold and not progress.ways(top):
            return tokens + [_CanGo(top)]
        if top.state is State.PAUSED:
            top._pause = False
            core.release_pause(top)
            if top._parked:  # someone else (a cycle) still holds it paused
                return tokens + [Not(Paused(top))]
        else:
            core.release_park(top)
        return tokens + [Parked(self._thread)]

    def __repr__(self) -> str:
        staged = f" staging {self._imperative!r}" if self._imperative else ""
        return f"<blanket Driver of {self._thread.name!r} {self._state}{staged}>"


class _NestedOrAction(Signaled):
    """Signals once *transaction* has a nested call, runs a barrier action,
    or is done."""

    __slots__ = ()

    def signalled(self, core: ScenarioCore) -> bool:
        tx: Transaction = self._args[0]  # type: ignore[assignment]
        return bool(tx._children or tx._pushed or tx.done)

    def __repr__(self) -> str:
        return f"a call nested in {self._args[0]!r}, or its barrier action"


class _CanGo(Signaled):
    """Signals once the parked *transaction* can be let go without its
    thread sleeping for ever, or is no longer parked."""

    __slots__ = ()

    def signalled(self, core: ScenarioCore) -> bool:
        tx: Transaction = self._args[0]  # type: ignore[assignment]
        return not tx._parked or bool(progress.ways(tx))

    def __repr__(self) -> str:
        return f"a way on for {self._args[0]!r}"


def _refuse_if_driven(core: ScenarioCore, thread: threading.Thread,
                      claimant: Driver | None = None) -> None:
    """``CompetingDriversError`` if a driver other than *claimant* owns
    *thread* (lock held)."""
    owner = core.drivers.get(thread)
    if owner is not None and owner is not claimant:
        raise CompetingDriversError(
            f"thread {thread.name!r} is already driven by {owner!r}; close "
            "that driver first")


def _head(item: Driver | Chain) -> Driver | None:
    return item if isinstance(item, Driver) else item._head()


class Chain:
    """Drivers driven one after another: each runs until it has nothing
    staged, then the next takes its place."""

    def __init__(self, *drivers: Driver) -> None:
        self._pending: list[Driver] = []
        for driver in drivers:
            self.append(driver)

    @property
    def pending(self) -> tuple[Driver, ...]:
        """The drivers still to run, head first."""
        return tuple(self._pending)

    def append(self, driver: Driver) -> None:
        """Add *driver* at the end."""
        if not isinstance(driver, Driver):
            raise TypeError(f"a Chain holds drivers, not {driver!r}")
        self._pending.append(driver)

    def remove(self, driver: Driver) -> None:
        """Take *driver* out (``ValueError`` if it is not in the chain)."""
        self._pending.remove(driver)

    def promote(self) -> Driver | None:
        """Take the head driver out without driving it, and return it."""
        return self._pending.pop(0) if self._pending else None

    def _head(self) -> Driver | None:
        return self._pending[0] if self._pending else None

    def _done_with(self, driver: Driver) -> None:
        """The head was handed out and nothing was staged on it: next."""
        if self._pending and self._pending[0] is driver:
            self._pending.pop(0)
            driver.close()

    def __iter__(self) -> Iterator[Driver]:
        """Drive the head until it needs attention and yield it; a head left
        with nothing staged gives way to the next driver."""
        while self._pending:
            head = self._pending[0]
            head()
            yield head
            if head._imperative is None:
                self._done_with(head)

    def __contains__(self, driver: object) -> bool:
        return driver in self._pending

    def __len__(self) -> int:
        return len(self._pending)

    def __bool__(self) -> bool:
        return bool(self._pending)

    def close(self) -> None:
        """Close every driver still in the chain, and empty it."""
        pending, self._pending = self._pending, []
        for driver in pending:
            driver.close()

    def __repr__(self) -> str:
        return f"<blanket Chain of {len(self._pending)} drivers>"


class Dispatch:
    """Drivers and chains driven side by side; iterating yields whichever
    driver needs attention next, until none is left."""

    def __init__(self, core: ScenarioCore) -> None:
        self._core = core
        self._items: list[Driver | Chain] = []

    def add(self, item: Driver | Chain) -> None:
        """Add a driver or a chain (once)."""
        if not isinstance(item, (Driver, Chain)):
            raise TypeError(f"a Dispatch holds drivers and chains, not {item!r}")
        if item not in self._items:
            self._items.append(item)

    def update(self, items: Iterable[Driver | Chain]) -> None:
        """Add several drivers or chains."""
        for item in items:
            self.add(item)

    def remove(self, item: Driver | Chain) -> None:
        """Take *item* out; ``KeyError`` if it is not there."""
        if item not in self._items:
            raise KeyError(item)
        self._items.remove(item)

    def discard(self, item: Driver | Chain) -> None:
        """Take *item* out if it is there."""
        if item in self._items:
            self._items.remove(item)

    def __contains__(self, item: object) -> bool:
        return item in self._items

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Driver]:
        """Yield drivers as they need attention. A driver left with nothing
        staged after its turn leaves the dispatch (a chain moves on to its
        next driver); iteration ends when nothing is left."""
        core = self._core
        while self._items:
            tokens: list[Signaled] = []
            ready = None
            with core.lock:
                for item in list(self._items):
                    driver = _head(item)
                    if driver is None:  # an emptied chain
                        self._items.remove(item)
                        continue
                    driver._claim()
                    step = driver._step()
                    if step is None:
                        ready = (item, driver)
                        break
                    tokens += step
            if ready is None:
                if self._items:
                    self._wait(tokens)
                continue
            item, driver = ready
            yield driver
            if driver._imperative is None:
                if isinstance(item, Chain):
                    item._done_with(driver)
                else:
                    self.discard(item)
                    driver.close()

    def _wait(self, tokens: list[Signaled]) -> None:
        """Sleep until one of the drivers' *tokens* signals."""
        self._core.wait([(token, token) for token in tokens], None)

    def close(self) -> None:
        """Close every driver and chain, and empty the dispatch."""
        items, self._items = self._items, []
        for item in items:
            item.close()

    def __repr__(self) -> str:
        return f"<blanket Dispatch of {len(self._items)}>"


def expect(core: ScenarioCore, thread: threading.Thread, primitive: Primitive,
           name: str | tuple[str, ...], state: State) -> Transaction:
    """Wait until *thread* is parked, and return its call if that is a call
    of *name* (or of one of several names) on *primitive* in *state*;
    ``ThreadOrderingError`` otherwise. (Its callers checked the thread,
    see :func:`check_step`.)"""
    names = (name,) if isinstance(name, str) else name
    with core.lock:
        return _parked_call(core, thread, primitive, names, state)


def _parked_call(core: ScenarioCore, thread: threading.Thread, primitive: Primitive,
                 names: tuple[str, ...], state: State) -> Transaction:
    """:func:`expect`, with the lock held."""
    parked = Parked(thread)
    if not parked.signalled(core):  # a script mostly finds the thread parked
        core.wait_locked([(thread, parked)], None)
    chain = core.chain(thread)
    if chain:
        tx = chain[-1]
        if tx.primitive is primitive and tx.spec.name in names and tx._state is state:
            return tx
    wanted = " or ".join(f"{primitive._kind}.{each}" for each in names)
    if not chain:
        raise ThreadOrderingError(
            f"thread {thread.name!r} terminated; it was expected to call {wanted} "
            f"on {core.label(primitive)}")
    tx = chain[-1]
    raise ThreadOrderingError(
        f"thread {thread.name!r} was expected to be in {wanted} on "
        f"{core.label(primitive)} at {state.name}, but it is in "
        f"{tx.spec.kind}.{tx.spec.name} on {core.label(tx.primitive)} at "
        f"{tx.state.name}")


def settle(core: ScenarioCore, thread: threading.Thread) -> None:
    """Wait until *thread* has gone as far as it can without the scheduler:
    its next call is parked, or it terminated."""
    core.wait([(thread, Parked(thread))], None)


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
    owners = [(core.label(p), p._core) for p in primitives]  # type: ignore[attr-defined]
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


# -- park, skip and finish ---------------------------------------------------------


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
            _refuse_if_driven(core, thread)


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
        tx = _parked_call(core, thread, call[0], (call[1],), State.BLOCKED)
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
            core.wait_locked([(tx, _AsFarAsItGoes(tx))], None)


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
            core.wait_locked([(thread, _Admitted(record, Parked(thread)))], None)
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
    :meth:`ScenarioCore.wait`), its message naming ``finish``, and every
    thread it drives is given up with the cycle's."""

    def __init__(self, core: ScenarioCore, threads: tuple[threading.Thread, ...]) -> None:
        super().__init__(core)
        self._threads = threads
        names = ", ".join(repr(thread.name) for thread in threads)
        self._step = f"finish({names})"

    def _wait(self, tokens: list[Signaled]) -> None:
        self._core.wait([(token, token) for token in tokens], None, self._step, self._threads)
