"""``api.cycle(...)``: one wait / open cycle of a Condition, Event or Barrier.

The waiters (every thread but the last) are let go into their waits; the last
thread, the *opener*, notifies, sets, or arrives last at the barrier. (On a
Condition, whoever holds the lock -- the opener once it notified, then each
woken waiter -- stays parked at its release, as in blanket 1.0, until the
script lets it go or the next waiter is woken.) The woken waiters are then
held -- at ``PAUSED`` (Event, Barrier) or at the
scheduler stall (Condition) -- until the cycle wakes them, one at a time, in
the order the user chooses (by default the order they were named in).
Waking a thread lets it run until it next needs the scheduler (its next call
parks, or it ends), so what it does after the wait happens in that order too.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from . import waiting
from .checks import expect, settle
from .gate import label
from .script import run_to_end
from .signals import Action, Reached
from .states import State

if TYPE_CHECKING:  # pragma: no cover
    from .core import ScenarioCore
    from .gate import Primitive
    from .transaction import Transaction


def let_go(core: ScenarioCore, tx: Transaction, pause: bool = False) -> None:
    """Unblock *tx*; then, with *pause*, wait until it is ``PAUSED`` after
    the real call; else drive it to its end and let its thread run until it
    next needs the scheduler, so that what it does next happens now."""
    if pause:
        tx.pause = True
    tx.unblock()
    if pause:
        waiting.wait(core, [(tx, Reached(tx, State.PAUSED))], None)
    else:
        run_to_end(core, [tx])
        settle(core, tx.thread)


def hold(core: ScenarioCore, tx: Transaction, held: bool) -> None:
    """Ask blanket's own pause of *tx* (*held*), or withdraw it."""
    with core.lock:
        if held:
            tx._holds += 1
        else:
            tx._holds -= 1
            core.release_pause(tx)


class Cycle:
    """One cycle over a Condition, Event or Barrier (made by ``api.cycle``).

    When it is made, every waiter is in its wait and woken by the opener,
    and held there. Use it as a context manager: leaving the block wakes
    whoever is still held, in order. :meth:`wake` and :meth:`pause` act on
    the named threads (or the first one still held); iterating wakes the
    held threads one by one, yielding each.
    """

    def __init__(self, core: ScenarioCore, primitive: Primitive,
                 threads: tuple[threading.Thread, ...],
                 scheduler: Callable[[], Any] | None = None) -> None:
        self._core = core
        self._primitive = primitive
        self._kind = primitive._kind
        self._held: dict[threading.Thread, Transaction | None] = {}
        # A waiter in wait_for: the wait_for, around the held nested wait.
        self._outer: dict[threading.Thread, Transaction] = {}
        # Condition: the release of the lock its holder is parked at -- the
        # opener's once it notified, then each woken waiter's. As in blanket
        # 1.0 it stays parked (the script may let it go itself); the next
        # waiter woken or paused lets it go first, as it needs the lock back.
        self._release: Transaction | None = None
        *waiters, opener = threads
        try:
            if self._kind == "Condition":
                self._start_condition(waiters, opener)
            else:
                self._start_waits(waiters, opener, scheduler)
        except BaseException:
            self._let_everyone_go()  # a cycle that failed to start holds nobody
            raise

    # -- setting the cycle up -----------------------------------------------------

    def _start_waits(self, waiters: list[threading.Thread], opener: threading.Thread,
                     scheduler: Callable[[], Any] | None) -> None:
        """Event and Barrier: waiters wait, the opener sets (or arrives last);
        everyone woken is held at ``PAUSED``."""
        core, primitive = self._core, self._primitive
        for thread in waiters:
            tx = expect(core, thread, primitive, "wait", State.BLOCKED)
            hold(core, tx, True)
            self._held[thread] = tx  # held from here: a failure lets it go
            tx.unblock()
            waiting.wait(core, [(tx, Reached(tx, State.WAITING))], None)
        if self._kind == "Barrier":
            tx = expect(core, opener, primitive, "wait", State.BLOCKED)
            hold(core, tx, True)
            tx.unblock()
            self._held[opener] = tx
            if scheduler is not None:
                # The action runs inside the opener's wait, before anyone
                # leaves the barrier; the scheduler callback drives its calls.
                waiting.wait(core, [(Action(tx), Action(tx)), (tx, Reached(tx, State.COMMITTED))],
                          None)
                scheduler()
        else:
            let_go(core, expect(core, opener, primitive, "set", State.BLOCKED))
            self._held[opener] = None
        self._await_held(State.PAUSED)

    def _start_condition(self, waiters: list[threading.Thread],
                         opener: threading.Thread) -> None:
        """Condition: waiters (taking the lock first if they are at it) wait;
        the opener notifies and gives the lock back; the woken waiters stall."""
        core, primitive = self._core, self._primitive
        for thread in waiters:
            tx = expect(core, thread, primitive, ("acquire", "wait", "wait_for"),
                        State.BLOCKED)
            if tx.spec.name == "acquire":
                let_go(core, tx)
                tx = expect(core, thread, primitive, ("wait", "wait_for"), State.BLOCKED)
            if tx.spec.name == "wait_for":
                self._outer[thread] = tx
                tx.unblock()
                tx = expect(core, thread, primitive, "wait", State.BLOCKED)
            self._held[thread] = tx
            tx.unblock()
            waiting.wait(core, [(tx, Reached(tx, State.WAITING))], None)
        tx = expect(core, opener, primitive, ("acquire", "notify", "notify_all"),
                    State.BLOCKED)
        if tx.spec.name == "acquire":
            let_go(core, tx)
            tx = expect(core, opener, primitive, ("notify", "notify_all"), State.BLOCKED)
        let_go(core, tx)  # the opener runs on to its next call, and parks there
        self._release = self._next_release(opener)
        self._held[opener] = None
        self._await_held(State.STALLED)

    def _await_held(self, state: State) -> None:
        """Wait until every held call has reached *state* (or gone past it)."""
        for tx in self._held.values():
            if tx is not None:
                waiting.wait(self._core, [(tx, Reached(tx, state))], None)

    def _next_release(self, thread: threading.Thread) -> Transaction | None:
        """*thread*'s next call, once it is parked, if that releases the
        condition; else ``None``."""
        settle(self._core, thread)
        with self._core.lock:
            chain = self._core.chain(thread)
            tx = chain[-1] if chain else None
        if tx is not None and tx.primitive is self._primitive and tx.spec.name == "release":
            return tx
        return None

    def _holder_lets_go(self, thread: threading.Thread | None = None) -> None:
        """Let the lock holder's release go if it is still parked at it (a
        woken waiter takes the lock back only once it is free); with
        *thread*, only if that is the holder."""
        tx = self._release
        if tx is None or (thread is not None and tx.thread is not thread):
            return
        self._release = None
        if tx.state is State.BLOCKED and tx._parked:
            let_go(self._core, tx)

    # -- waking -------------------------------------------------------------------

    @property
    def held(self) -> tuple[threading.Thread, ...]:
        """The threads not yet woken, in order."""
        return tuple(self._held)

    def _pick(self, threads: tuple[threading.Thread, ...], verb: str
              ) -> list[threading.Thread]:
        if not threads:
            if not self._held:
                raise ValueError(f"cannot {verb}: every thread of the cycle is woken "
                             f"(the cycle on {self._label()})")
            return [next(iter(self._held))]
        for thread in threads:
            if thread not in self._held:
                name = thread.name if isinstance(thread, threading.Thread) else repr(thread)
                raise ValueError(f"cannot {verb} thread {name!r}: it is not held by "
                                 f"the cycle on {self._label()}")
        return list(threads)

    def _label(self) -> str:
        return label(self._primitive)

    def wake(self, *threads: threading.Thread) -> Any:
        """Let the named held threads (or the first one) go, in order; each
        runs until it next needs the scheduler. Returns the tuple of threads
        (the thread, when none was named)."""
        picked = self._pick(threads, "wake")
        for thread in picked:
            self._wake(thread)
        return tuple(picked) if threads else picked[0]

    def _wake(self, thread: threading.Thread) -> None:
        core = self._core
        tx = self._held.pop(thread)
        if tx is not None:
            if self._kind == "Condition":
                self._holder_lets_go()
                tx.unstall()
            else:
                hold(core, tx, False)
            run_to_end(core, [self._outer.pop(thread, tx)])
            if self._kind == "Condition":
                self._release = self._next_release(thread)
        else:  # the opener: it runs on
            self._holder_lets_go(thread)
        settle(core, thread)

    def pause(self, *threads: threading.Thread) -> Any:
        """Hand the named held threads (or the first one) to the scheduler:
        each ends its wait and stays ``PAUSED`` until ``tx.unpause()``.
        Returns like :meth:`wake`."""
        picked = self._pick(threads, "pause")
        core = self._core
        for thread in picked:
            tx = self._held.pop(thread)
            if tx is None:
                continue
            end = self._outer.pop(thread, tx)
            end.pause = True
            if self._kind == "Condition":
                self._holder_lets_go()
                tx.unstall()
            else:
                hold(core, tx, False)
            waiting.wait(core, [(end, Reached(end, State.PAUSED))], None)
        return tuple(picked) if threads else picked[0]

    def __iter__(self) -> Iterator[threading.Thread]:
        """Wake the held threads one by one, in order, yielding each."""
        while self._held:
            yield self.wake()

    def close(self) -> None:
        """Wake every thread still held, in order."""
        for _ in self:
            pass

    def __call__(self) -> None:
        """Shorthand for :meth:`close`."""
        self.close()

    def __enter__(self) -> Cycle:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self.close()
        else:
            self._let_everyone_go()

    def _let_everyone_go(self) -> None:
        """Something went wrong: leave nothing held, and wait for nothing."""
        core = self._core
        # A condition's waiters take the lock back: its opener lets it go.
        release, self._release = self._release, None
        for tx in (*self._held.values(), release):
            if tx is not None and not tx.done:
                if self._kind == "Condition":
                    with core.lock:
                        if tx._parked:
                            core.release_park(tx)
                else:
                    hold(core, tx, False)
        self._held.clear()
        self._outer.clear()

    def __repr__(self) -> str:
        held = ", ".join(repr(t.name) for t in self._held)
        return f"<blanket Cycle on {self._label()} holding {held or 'nobody'}>"
