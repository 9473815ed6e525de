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

from . import progress, waiting
from .checks import check_step, refuse_if_driven
from .core import ScenarioCore
from .errors import ThreadOrderingError
from .signals import Active, Not, Parked, Paused, Reached, Signaled, Terminated
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
            waiting.wait(self._core, [(token, token) for token in tokens], None)

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
        refuse_if_driven(self._core, self._thread, self)
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
            return [Active(thread), Terminated(thread)]
        target = self._target
        if target is None:
            if top is None:
                if core.terminated(thread):
                    self._settle(self.TERMINATED)
                    return None
                self._state = self.IDLE
                return [Active(thread), Terminated(thread)]
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
        waiting.wait(self._core, [(token, token) for token in tokens], None)

    def close(self) -> None:
        """Close every driver and chain, and empty the dispatch."""
        items, self._items = self._items, []
        for item in items:
            item.close()

    def __repr__(self) -> str:
        return f"<blanket Dispatch of {len(self._items)}>"
