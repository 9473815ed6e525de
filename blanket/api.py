"""The scheduler's control surface for one primitive: ``scenario.api(p)``.

Every API object can let named threads' calls on one of the primitive's
methods go (:meth:`PrimitiveAPI.unblock`, ``unstall``, ``unpause``) and change
their timeouts (``expire``, ``disregard``, ``revert``). Each waits, within the
scenario's bound, for every named thread to be parked on that method, and
raises :class:`~blanket.ThreadOrderingError` when a thread is somewhere else.

The helpers (``assign``, ``relay``, ``allocate``, ``cycle``) refuse at the
call, before anything is let go, a script that could only stall: outside
``with scenario:``, a thread of another scenario, the scheduler's own thread,
a thread named twice in a cycle (``script_threads``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

from .checks import check_step, expect
from .cycle import Cycle, let_go
from .gate import Primitive, label, owner_of
from .states import State
from .transaction import Transaction


class PrimitiveAPI:
    """The API object of one primitive (``scenario.api(primitive)``)."""

    __slots__ = ("_primitive", "__weakref__")

    def __init__(self, primitive: Primitive) -> None:
        self._primitive = primitive

    @property
    def primitive(self) -> Primitive:
        """The primitive this object controls."""
        return self._primitive

    @property
    def name(self) -> str | None:
        """The primitive's name, or ``None``.

        Naming a primitive drops its masquerade: its ``repr`` and every
        report show the name instead. Set ``None`` to masquerade again.
        """
        return self._primitive.name

    @name.setter
    def name(self, value: str | None) -> None:
        self._primitive.name = value

    def _label(self) -> str:
        return label(self._primitive)

    def _method_name(self, method: object) -> str:
        primitive = self._primitive
        owned = owner_of(method)
        if not (owned is not None and owned[0] is primitive and owned[1] in primitive._specs):
            raise ValueError(f"{method!r} is not a method of "
                             f"{label(primitive)} (expected e.g. "
                             f"{primitive._kind.lower()}.wait or .acquire)")
        return owned[1]

    def _each(self, who: str, method: Callable[..., Any], threads: tuple[threading.Thread, ...],
              state: State, act: Callable[[Transaction], None]) -> tuple[Transaction, ...]:
        name = self._method_name(method)
        if not threads:
            raise TypeError(f"name at least one thread whose {self._primitive._kind}."
                            f"{name} call to act on")
        done = []
        for thread in script_threads(self, threads, who):
            tx = expect(self._primitive._core, thread, self._primitive, name, state)
            act(tx)
            done.append(tx)
        return tuple(done)

    def unblock(self, method: Callable[..., Any], *threads: threading.Thread,
                pause: bool = False) -> tuple[Transaction, ...]:
        """Let each thread's *method* call go from ``BLOCKED``, in order.

        Waits for each thread to reach the call. With *pause*, each call
        also stops at ``PAUSED`` after the real call. Returns the
        transactions.
        """
        def act(tx: Transaction) -> None:
            if pause:
                tx.pause = True
            tx.unblock()
        return self._each("unblock", method, threads, State.BLOCKED, act)

    def unstall(self, method: Callable[..., Any], *threads: threading.Thread
                ) -> tuple[Transaction, ...]:
        """Let each thread's *method* call go from ``STALLED``, in order."""
        return self._each("unstall", method, threads, State.STALLED, Transaction.unstall)

    def unpause(self, method: Callable[..., Any], *threads: threading.Thread
                ) -> tuple[Transaction, ...]:
        """Let each thread's *method* call go from ``PAUSED``, in order."""
        return self._each("unpause", method, threads, State.PAUSED, Transaction.unpause)

    def expire(self, method: Callable[..., Any], *threads: threading.Thread
               ) -> tuple[Transaction, ...]:
        """Make each thread's blocked *method* call time out at once."""
        return self._each("expire", method, threads, State.BLOCKED, Transaction.expire)

    def disregard(self, method: Callable[..., Any], *threads: threading.Thread
                  ) -> tuple[Transaction, ...]:
        """Make each thread's blocked *method* call ignore its timeout."""
        return self._each("disregard", method, threads, State.BLOCKED, Transaction.disregard)

    def revert(self, method: Callable[..., Any], *threads: threading.Thread
               ) -> tuple[Transaction, ...]:
        """Give each thread's blocked *method* call its own timeout back."""
        return self._each("revert", method, threads, State.BLOCKED, Transaction.revert)

    def __repr__(self) -> str:
        return f"<blanket {type(self).__name__} for {label(self._primitive)}>"


def script_threads(api: PrimitiveAPI, threads: tuple[object, ...], who: str, *,
                   repeats: bool = True) -> tuple[threading.Thread, ...]:
    """The threads a script step on *api*'s primitive names, refused at once
    when the step could only stall or fail later: anything but a thread,
    the scenario not entered, a thread another scenario manages, the
    scheduler itself (it parks no call), a thread named twice (unless
    *repeats*)."""
    core = api._primitive._core
    where = f"{who} on {api._label()}"
    checked: list[threading.Thread] = []
    for each in threads:
        if not isinstance(each, threading.Thread):
            raise TypeError(f"{who} takes threads, not {each!r} ({where})")
        checked.append(each)
    check_step(core, where, threads=checked)
    seen: set[threading.Thread] = set()
    for thread in checked:
        if thread in seen and not repeats:
            raise ValueError(f"thread {thread.name!r} is named twice ({where})")
        seen.add(thread)
    return tuple(checked)


class _LockHelpers(PrimitiveAPI):
    """``assign`` and ``relay``, for ``Lock`` and ``RLock``."""

    __slots__ = ()

    def assign(self, thread: threading.Thread, acquirer: threading.Thread | None = None, *,
               pause: bool = False) -> Transaction:
        """Give the lock to a thread; return the acquiring transaction.

        ``assign(A)``: A's acquire (the lock must be free) goes through.
        ``assign(A, B)``: A's release goes through, then B's acquire. With
        *pause* the acquire stops at ``PAUSED`` after taking the lock.
        """
        core, primitive = self._primitive._core, self._primitive
        script_threads(self, (thread,) if acquirer is None else (thread, acquirer), "assign")
        if acquirer is None:
            if self._held():
                raise ValueError(f"{label(primitive)} is held; name its holder "
                                 f"first: assign(holder, {thread.name!r})")
        else:
            let_go(core, expect(core, thread, primitive, "release", State.BLOCKED))
            thread = acquirer
        tx = expect(core, thread, primitive, "acquire", State.BLOCKED)
        let_go(core, tx, pause)
        return tx

    def _held(self) -> bool:
        raw = self._primitive._real
        if raw.acquire(False):
            raw.release()
            return False
        return True

    def relay(self, initial: threading.Thread, *acquirers: threading.Thread,
              pause: bool = False) -> Iterator[threading.Thread]:
        """Pass the lock from thread to thread; yield each once it holds it.

        *initial* is either at its acquire (of the free lock) or, holding
        the lock, at its release; each acquirer in turn takes the lock once
        the previous holder released it. The last acquirer keeps it. With
        *pause* each acquire stops at ``PAUSED``, and is let go when its
        thread's turn to release comes.
        """
        script_threads(self, (initial, *acquirers), "relay")
        return self._relay(initial, acquirers, pause)

    def _relay(self, holder: threading.Thread, acquirers: tuple[threading.Thread, ...],
               pause: bool) -> Iterator[threading.Thread]:
        core, primitive = self._primitive._core, self._primitive
        held = expect(core, holder, primitive, ("acquire", "release"), State.BLOCKED)
        if held.spec.name == "acquire":
            let_go(core, held, pause)
            yield holder
        for thread in acquirers:
            if held.pause:
                held.unpause()
            let_go(core, expect(core, holder, primitive, "release", State.BLOCKED))
            held = expect(core, thread, primitive, "acquire", State.BLOCKED)
            let_go(core, held, pause)
            holder = thread
            yield thread


class LockAPI(_LockHelpers):
    """The API object of a ``Lock``."""

    __slots__ = ()


class RLockAPI(_LockHelpers):
    """The API object of an ``RLock``."""

    __slots__ = ()


class _CycleHelper(PrimitiveAPI):
    """``cycle``, for ``Condition``, ``Event`` and ``Barrier``."""

    __slots__ = ()

    def cycle(self, *threads: threading.Thread) -> Cycle:
        """Run one wait / open cycle: every thread but the last waits, the
        last opens (notifies, sets, or arrives last at the barrier); the
        woken threads are held until the returned :class:`Cycle` wakes them.
        On a Condition, whoever holds the lock (the opener, then each woken
        waiter) stays parked at its release (``unblock(cond.release,
        thread)`` lets it go) until the next waiter is woken or paused.
        """
        script_threads(self, threads, "cycle", repeats=False)
        if len(threads) < 2:
            raise ValueError(f"a cycle on {self._label()} needs at least one waiter "
                             "and the opener")
        return Cycle(self._primitive._core, self._primitive, threads)


class ConditionAPI(_CycleHelper):
    """The API object of a ``Condition``."""

    __slots__ = ()


class SemaphoreAPI(PrimitiveAPI):
    """The API object of a ``Semaphore``."""

    __slots__ = ()

    def allocate(self, *threads: threading.Thread, pause: bool = False
                 ) -> Iterator[threading.Thread]:
        """Let each thread's next acquire or release go, in order; yield each
        thread once its call is done.

        A thread may be named more than once (it acquires, then later
        releases). With *pause* each acquire stops at ``PAUSED``, and is let
        go when the thread is named again.
        """
        script_threads(self, threads, "allocate")
        if not threads:
            raise TypeError(f"allocate needs at least one thread (allocate on "
                            f"{self._label()})")
        return self._allocate(threads, pause)

    def _allocate(self, threads: tuple[threading.Thread, ...], pause: bool
                  ) -> Iterator[threading.Thread]:
        core, primitive = self._primitive._core, self._primitive
        paused: dict[threading.Thread, Transaction] = {}
        for thread in threads:
            earlier = paused.pop(thread, None)
            if earlier is not None and earlier.pause:
                earlier.unpause()
            tx = expect(core, thread, primitive, ("acquire", "release"), State.BLOCKED)
            acquire = tx.spec.name == "acquire"
            let_go(core, tx, pause and acquire)
            if pause and acquire:
                paused[thread] = tx
            yield thread


class BoundedSemaphoreAPI(SemaphoreAPI):
    """The API object of a ``BoundedSemaphore``."""

    __slots__ = ()


class EventAPI(_CycleHelper):
    """The API object of an ``Event``."""

    __slots__ = ()


class BarrierAPI(PrimitiveAPI):
    """The API object of a ``Barrier``."""

    __slots__ = ()

    def cycle(self, *threads: threading.Thread,
              scheduler: Callable[[], Any] | None = None) -> Cycle:
        """Run one cycle of the barrier: all its parties, the last to arrive
        named last; they are held after the barrier opens until the returned
        :class:`Cycle` wakes them.

        *scheduler*, for a barrier with an action, is called while the
        action runs (before anyone leaves the barrier) to drive the calls
        the action makes.
        """
        script_threads(self, threads, "cycle", repeats=False)
        barrier = self._primitive
        if len(threads) != barrier._real.parties:
            raise ValueError(f"a cycle of {label(barrier)} names "
                             f"its {barrier._real.parties} parties, not {len(threads)}")
        if scheduler is not None:
            if not callable(scheduler):
                raise TypeError(f"scheduler must be callable, not {scheduler!r}")
            if barrier._action is None:
                raise ValueError(f"{label(barrier)} has no action "
                                 "for a scheduler to drive")
        return Cycle(barrier._core, barrier, threads, scheduler)


#: The API class of each primitive kind.
API_CLASSES: dict[str, type[PrimitiveAPI]] = {
    cls.__name__[:-3]: cls for cls in (LockAPI, RLockAPI, ConditionAPI, SemaphoreAPI,
                                       BoundedSemaphoreAPI, EventAPI, BarrierAPI)}
