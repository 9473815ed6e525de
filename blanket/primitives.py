"""The seven blanket primitives: ``threading``'s, each behind the gate of
:mod:`blanket.gate`, and :class:`Kind`, what ``scenario.Lock`` and the
others are.
"""

from __future__ import annotations

import functools
import gc
import itertools
import sys
import threading
import time
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .gate import Primitive, attempt_acquire, forever_or_positive, sleep_in
from .states import State
from .transaction import CallSpec

if TYPE_CHECKING:  # pragma: no cover
    from .core import ScenarioCore
    from .transaction import Transaction


def _specs(kind: str, **methods: tuple[Any, ...]) -> dict[str, CallSpec]:
    return {name: CallSpec(kind, name, *spec) for name, spec in methods.items()}


def _timed(params: tuple[str, ...], defaults: tuple[object, ...], forever: object
           ) -> tuple[Any, ...]:
    """The spec arguments of a method with a ``timeout`` parameter."""
    return (params, defaults, params.index("timeout"), forever, True)


_ACQUIRE_LOCK = _timed(("blocking", "timeout"), (True, -1), -1)
_ACQUIRE_SEMAPHORE = _timed(("blocking", "timeout"), (True, None), None)
_WAIT = _timed(("timeout",), (None,), None)


# The attempts of Lock/RLock/Condition and of Semaphore acquires (partials:
# no Python frame of their own on every acquire).
_acquire_lock = functools.partial(attempt_acquire, forever=-1)
_acquire_semaphore = functools.partial(attempt_acquire, forever=None)


class _LockBase(Primitive):
    """What ``Lock``, ``RLock`` and ``Condition`` share: acquire, release and
    the context manager, over the real lock's own."""

    __slots__ = ()
    _specs: dict[str, CallSpec]

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        """Acquire, as the real ``acquire`` does."""
        if self._core.passthrough:
            return self._real.acquire(blocking, timeout)  # type: ignore[no-any-return]
        return self._core.run(self, self._specs["acquire"], (blocking, timeout),  # type: ignore[no-any-return]
                         self._real.acquire, _acquire_lock)

    def release(self) -> None:
        """Release, as the real ``release`` does."""
        if self._core.passthrough:
            return self._real.release()  # type: ignore[no-any-return]
        return self._core.run(self, self._specs["release"], (), self._real.release)  # type: ignore[no-any-return]

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc_info: object) -> None:
        self.release()


L = TypeVar("L", bound=type[_LockBase])


def _own_methods(cls: L) -> L:
    """Give *cls* its own copy of each method it inherits from
    :class:`_LockBase`, named as the class's: a bound method's ``repr``
    reads ``Lock.acquire``, never the private base's name."""
    for name, value in vars(_LockBase).items():
        if isinstance(value, types.FunctionType) and name not in vars(cls):
            copy = types.FunctionType(value.__code__, value.__globals__, name,
                                      value.__defaults__, value.__closure__)
            copy.__kwdefaults__ = value.__kwdefaults__
            copy.__doc__ = value.__doc__
            copy.__annotations__ = value.__annotations__
            copy.__module__ = value.__module__
            copy.__qualname__ = f"{cls.__name__}.{name}"
            setattr(cls, name, copy)
    return cls


@_own_methods
class Lock(_LockBase):
    """A ``threading.Lock`` under blanket's control."""

    __slots__ = ()
    _kind = "Lock"
    _direct = ("acquire", "release", "locked")
    _specs = _specs("Lock", acquire=_ACQUIRE_LOCK, release=(), locked=())

    def __init__(self) -> None:
        self._adopt(threading.Lock())

    def locked(self) -> bool:
        """Whether the lock is held, as the real ``locked`` says."""
        return self._core.run(self, self._specs["locked"], (), self._real.locked)  # type: ignore[no-any-return]

    # The old names a real lock still answers to: reached through
    # __getattr__ they would be the real lock's own, neither regulated nor
    # logged. Each is the call under its current name.

    def acquire_lock(self, blocking: bool = True, timeout: float = -1) -> bool:
        """``acquire`` under its old name (logged as ``acquire``)."""
        return self.acquire(blocking, timeout)

    def release_lock(self) -> None:
        """``release`` under its old name (logged as ``release``)."""
        self.release()

    def locked_lock(self) -> bool:
        """``locked`` under its old name (logged as ``locked``)."""
        return self.locked()

    def _status(self) -> str:
        return "locked" if self._real.locked() else "unlocked"


@_own_methods
class RLock(_LockBase):
    """A ``threading.RLock`` under blanket's control."""

    __slots__ = ()
    _kind = "RLock"
    _direct = ("acquire", "release")
    _specs = _specs("RLock", acquire=_ACQUIRE_LOCK, release=())

    def __init__(self) -> None:
        self._adopt(threading.RLock())


class _WaitLock:
    """The lock under the real ``threading.Condition`` a blanket ``Condition``
    (or the one inside a blanket ``Barrier``) waits on.

    It is the given lock, except for the two calls the real ``wait`` makes
    around its sleep. ``_release_save``: the lock is given up and the waiter
    registered, so the waiting transaction is now ``WAITING`` -- reported
    only after the release, so that whatever the scheduler lets go on seeing
    ``WAITING`` finds the lock free. ``_acquire_restore``: woken; a
    ``Condition.wait`` parks at ``STALLED``, then takes the lock back in a
    nested transaction; a ``Barrier.wait`` just goes on ``RESUMED``.
    Everything else reaches the given lock.
    """

    __slots__ = ("_owner", "_lock", "acquire", "release")

    def __init__(self, owner: Condition | Barrier, lock: Any) -> None:
        self._owner = owner
        self._lock = lock
        self.acquire = lock.acquire
        self.release = lock.release

    def __getattr__(self, name: str) -> Any:
        # threading.Condition takes _is_owned and _at_fork_reinit from the
        # lock when it has them, and falls back to its own when it has not.
        if name.startswith("__") or name in _WaitLock.__slots__:
            raise AttributeError(name)
        return getattr(self._lock, name)

    def __enter__(self) -> Any:
        return self._lock.__enter__()

    def __exit__(self, *exc_info: object) -> Any:
        return self._lock.__exit__(*exc_info)

    def __repr__(self) -> str:
        owner = self._owner
        return repr(owner._user_lock) if isinstance(owner, Condition) else repr(self._lock)

    def _waiting_call(self) -> Transaction | None:
        """The calling thread's regulated ``wait`` on the owner, if any."""
        return self._owner._core.current(self._owner, "wait")

    def _release_save(self) -> Any:
        release_save = getattr(self._lock, "_release_save", None)
        if release_save is not None:
            saved = release_save()
        else:
            self._lock.release()
            saved = None
        tx = self._waiting_call()
        # A barrier may wait twice in one call (draining, then its turn);
        # a transaction only moves forward, so only the first sleep shows.
        if tx is not None and tx.state < State.WAITING:
            self._owner._core.waiting(tx)
        elif tx is not None:
            # Asleep again: whoever watches the sleepers must look again.
            with self._owner._core.lock:
                self._owner._core.changed()
        return saved

    def _acquire_restore(self, saved: Any) -> None:
        owner = self._owner
        core = owner._core
        tx = self._waiting_call()
        take_back = functools.partial(self._take_back, saved)
        if tx is None or tx.state is not State.WAITING:
            take_back()
        elif isinstance(owner, Condition):
            core.stall(tx)
            core.run(owner, Condition._specs["reacquire"], (), take_back,
                     self._reacquire, park=False)
        else:
            core.resumed(tx)
            take_back()

    def _take_back(self, saved: Any) -> bool:
        """Re-acquire the lock as ``threading.Condition`` would."""
        acquire_restore = getattr(self._lock, "_acquire_restore", None)
        if acquire_restore is not None:
            acquire_restore(saved)
        else:
            self._lock.acquire()
        return True

    def _reacquire(self, core: ScenarioCore, tx: Transaction | None,
                   take_back: Callable[[], bool]) -> bool:
        """The re-acquire's attempt: ``WAITING`` only if it must sleep."""
        lock = self._lock
        if tx is None:
            return take_back()
        if not lock.acquire(False):
            return sleep_in(core, tx, take_back)  # type: ignore[no-any-return]
        if hasattr(lock, "_acquire_restore"):
            # An RLock: give the try back and restore its recursion count.
            lock.release()
            return take_back()
        return True


def _wait_for(condition: Condition, predicate: Callable[[], Any],
              timeout: float | None) -> Any:
    """``Condition.wait_for`` over a blanket *condition* (see its docstring)."""
    result = predicate()
    waittime, deadline = timeout, None
    while not result:
        if waittime is not None:
            if deadline is None:
                deadline = time.monotonic() + waittime
            else:
                waittime = deadline - time.monotonic()
                if waittime <= 0:
                    break
        if not condition.wait(waittime):
            return predicate()  # timed out: no time is left to wait again
        result = predicate()
    return result


@_own_methods
class Condition(_LockBase):
    """A ``threading.Condition`` under blanket's control.

    Its ``wait`` visits ``WAITING`` once the lock is given up, then parks at
    ``STALLED`` when woken; the re-acquire of the lock that follows is a
    nested ``acquire`` transaction.
    """

    __slots__ = ("_user_lock",)
    _kind = "Condition"
    _direct = ("wait", "notify", "notify_all", "notifyAll")
    _specs = _specs("Condition", acquire=_ACQUIRE_LOCK, release=(), wait=_WAIT,
                    wait_for=_timed(("predicate", "timeout"), (None, None), None),
                    notify=(("n",), (1,)), notify_all=())
    # The lock re-acquire at the end of a wait, nested in the wait.
    _specs["reacquire"] = CallSpec("Condition", "acquire")

    def __init__(self, lock: Any = None) -> None:
        if lock is None:
            lock = threading.RLock()
        self._user_lock = lock
        real_lock = lock._real if isinstance(lock, Primitive) else lock
        self._adopt(threading.Condition(_WaitLock(self, real_lock)))  # type: ignore[arg-type]

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until notified or *timeout* passes, as ``Condition.wait``."""
        return self._core.run(self, self._specs["wait"], (timeout,), self._real.wait)  # type: ignore[no-any-return]

    def wait_for(self, predicate: Callable[[], Any], timeout: float | None = None) -> Any:
        """Wait until *predicate* is true, as ``Condition.wait_for``.

        It loops as the standard library's ``wait_for`` does over this
        condition, so each ``wait`` inside is a nested transaction, and so is
        every call the predicate makes on a blanket primitive. One difference:
        a ``wait`` inside that times out ends the loop (the predicate is
        checked once more), as its time is up; the standard library would
        measure the time left with the clock, which has not moved when a
        scheduler expired the wait at once, and wait again.
        """
        wait_for = functools.partial(_wait_for, self)
        if self._core.passthrough:
            return wait_for(predicate, timeout)
        return self._core.run(self, self._specs["wait_for"], (predicate, timeout), wait_for)

    def notify(self, n: int = 1) -> None:
        """Wake up to *n* waiters, as ``Condition.notify``."""
        return self._core.run(self, self._specs["notify"], (n,), self._real.notify)  # type: ignore[no-any-return]

    def notify_all(self) -> None:
        """Wake every waiter, as ``Condition.notify_all``."""
        return self._core.run(self, self._specs["notify_all"], (), self._real.notify_all)  # type: ignore[no-any-return]

    def _shown_id(self) -> int:
        # A real Condition prints its lock, with the lock's id.
        return id(self._real._lock._lock)

    def notifyAll(self) -> None:  # noqa: N802 - threading's deprecated name
        """Deprecated alias of :meth:`notify_all`, as in ``threading``."""
        return self._core.run(self, self._specs["notify_all"], (), self._real.notifyAll)  # type: ignore[no-any-return]

    def _status(self) -> str:
        return f"waiters={len(self._real._waiters)}"


class Semaphore(Primitive):
    """A ``threading.Semaphore`` under blanket's control."""

    __slots__ = ()
    _kind = "Semaphore"
    _direct = ("acquire", "release")
    _specs = _specs("Semaphore", acquire=_ACQUIRE_SEMAPHORE, release=(("n",), (1,)))
    _real_class: Callable[[int], Any] = threading.Semaphore

    def __init__(self, value: int = 1) -> None:
        self._adopt(self._real_class(value))

    def acquire(self, blocking: bool = True, timeout: float | None = None) -> bool:
        """Acquire, as ``Semaphore.acquire`` does."""
        return self._core.run(self, self._specs["acquire"], (blocking, timeout),  # type: ignore[no-any-return]
                         self._real.acquire, _acquire_semaphore)

    def release(self, n: int = 1) -> None:
        """Release *n* times, as ``Semaphore.release`` does."""
        return self._core.run(self, self._specs["release"], (n,), self._real.release)  # type: ignore[no-any-return]

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc_info: object) -> None:
        self.release()

    def _status(self) -> str:
        return f"value={self._real._value}"


class BoundedSemaphore(Semaphore):
    """A ``threading.BoundedSemaphore`` under blanket's control."""

    __slots__ = ()
    _kind = "BoundedSemaphore"
    _specs = _specs("BoundedSemaphore", acquire=_ACQUIRE_SEMAPHORE, release=(("n",), (1,)))
    _real_class = threading.BoundedSemaphore


class Event(Primitive):
    """A ``threading.Event`` under blanket's control."""

    __slots__ = ()
    _kind = "Event"
    _direct = ("is_set", "isSet", "set", "clear", "wait")
    _specs = _specs("Event", is_set=(), set=(), clear=(), wait=_WAIT)

    def __init__(self) -> None:
        self._adopt(threading.Event())

    def is_set(self) -> bool:
        """Whether the flag is set, as ``Event.is_set`` says."""
        return self._core.run(self, self._specs["is_set"], (), self._real.is_set)  # type: ignore[no-any-return]

    def isSet(self) -> bool:  # noqa: N802 - threading's deprecated name
        """Deprecated alias of :meth:`is_set`, as in ``threading``."""
        return self._core.run(self, self._specs["is_set"], (), self._real.isSet)  # type: ignore[no-any-return]

    def set(self) -> None:
        """Set the flag, as ``Event.set`` does."""
        return self._core.run(self, self._specs["set"], (), self._real.set)  # type: ignore[no-any-return]

    def clear(self) -> None:
        """Clear the flag, as ``Event.clear`` does."""
        return self._core.run(self, self._specs["clear"], (), self._real.clear)  # type: ignore[no-any-return]

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the flag is set, as ``Event.wait`` does."""
        return self._core.run(self, self._specs["wait"], (timeout,), self._real.wait,  # type: ignore[no-any-return]
                         self._wait_attempt)

    def _wait_attempt(self, core: ScenarioCore, tx: Transaction | None,
                      call: Callable[..., Any], timeout: Any) -> Any:
        if tx is not None and forever_or_positive(timeout, None) \
                and not self._real.is_set():
            woken = sleep_in(core, tx, call, timeout)
            # A thread given up while it slept was woken by setting the
            # event (progress.abandon): it unwinds rather than run on as if
            # the event had been set.
            core.check_abandoned(tx.thread)
            return woken
        return call(timeout)

    def _status(self) -> str:
        return "set" if self._real.is_set() else "unset"


class Barrier(Primitive):
    """A ``threading.Barrier`` under blanket's control.

    The barrier's action runs with the opener's transaction pushed off its
    thread's chain (``Action(tx)`` signals meanwhile), so calls the action
    makes are transactions of their own.
    """

    __slots__ = ("_action",)
    _kind = "Barrier"
    _direct = ("wait", "reset", "abort")
    # A barrier's wait returns an index (0 is no failure) and raises when
    # it times out, so its result says nothing of success.
    _specs = _specs("Barrier", wait=_WAIT[:4], reset=(), abort=())

    def __init__(self, parties: int, action: Callable[[], Any] | None = None,
                 timeout: float | None = None) -> None:
        self._action = action
        real = threading.Barrier(parties, None if action is None else self._run_action,
                                 timeout)
        # The barrier sleeps in its own condition; waiting on it through a
        # _WaitLock reports WAITING once this party is counted, and not for
        # the party that opens the barrier (it never sleeps).
        real._cond = threading.Condition(_WaitLock(self, threading.Lock()))  # type: ignore[attr-defined, arg-type]
        self._adopt(real)

    def _run_action(self) -> None:
        tx = self._core.current(self, "wait")
        if tx is None or tx.parent is not None:
            self._action()  # type: ignore[misc]
            return
        with tx.push():
            self._action()  # type: ignore[misc]

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the other parties, as ``Barrier.wait`` does."""
        return self._core.run(self, self._specs["wait"], (timeout,), self._real.wait)  # type: ignore[no-any-return]

    def reset(self) -> None:
        """Reset the barrier, as ``Barrier.reset`` does."""
        return self._core.run(self, self._specs["reset"], (), self._real.reset)  # type: ignore[no-any-return]

    def abort(self) -> None:
        """Break the barrier, as ``Barrier.abort`` does."""
        return self._core.run(self, self._specs["abort"], (), self._real.abort)  # type: ignore[no-any-return]

    @property
    def parties(self) -> int:
        """The number of threads needed to pass the barrier."""
        return self._real.parties  # type: ignore[no-any-return]

    @property
    def n_waiting(self) -> int:
        """The number of threads waiting at the barrier now."""
        return self._real.n_waiting  # type: ignore[no-any-return]

    @property
    def broken(self) -> bool:
        """Whether the barrier is broken."""
        return self._real.broken  # type: ignore[no-any-return]

    def _status(self) -> str:
        real = self._real
        return f"waiters={real.n_waiting}/{real.parties}" + (" broken" if real.broken else "")


P = TypeVar("P", bound=Primitive)


class Kind(Generic[P]):
    """One kind of primitive of one scenario: ``scenario.Lock`` and friends.

    It stands where a class bound to the scenario would: calling it makes a
    primitive of the scenario (``scenario.Lock()``, with the ``threading``
    class's arguments), and ``isinstance(x, scenario.Lock)`` holds exactly
    for the locks made so. The primitives themselves are instances of the
    seven classes of this module, shared by every scenario: a class made per
    scenario would outlive it on the free-threaded build, where a class is
    made immortal once threads use it.
    """

    __slots__ = ("_class", "_core")

    def __init__(self, cls: type[P], core: ScenarioCore) -> None:
        self._class = cls
        self._core = core

    def __call__(self, *args: Any, **kwargs: Any) -> P:
        primitive = self._class.__new__(self._class)
        primitive._core = self._core
        primitive.__init__(*args, **kwargs)  # type: ignore[misc]
        return primitive

    def around(self, real: Any) -> P:
        """A primitive of this kind standing for the existing real primitive
        *real* (of the kind's ``threading`` class), which it keeps: calls
        through it are the scenario's, and threads that use *real* directly
        see the same state (see :mod:`blanket.exploration.realprims`)."""
        primitive = self._class.__new__(self._class)
        primitive._core = self._core
        primitive._adopt(real)
        return primitive

    def __instancecheck__(self, instance: object) -> bool:
        # type(), not isinstance(): the primitive's __class__ is the real one's.
        return type(instance) is self._class and instance._core is self._core

    def __mro_entries__(self, bases: tuple[object, ...]) -> tuple[type, ...]:
        raise TypeError(f"scenario.{self._class._kind} is not a class and cannot be "
                        "subclassed; subclass blanket.primitives."
                        f"{self._class._kind} is not supported either")

    def __reduce__(self) -> Any:
        raise TypeError(f"cannot pickle scenario.{self._class._kind}: it belongs to "
                        f"scenario {self._core.name!r}")

    @property
    def __name__(self) -> str:  # noqa: PLW3201 - as a class has it
        """The kind's name, as the ``threading`` class's (``"Lock"``)."""
        return self._class._kind

    def __repr__(self) -> str:
        return f"<blanket {self._class._kind} kind of scenario {self._core.name!r}>"


#: The seven primitive classes, by the name ``threading`` gives them.
KINDS: dict[str, type[Primitive]] = {
    cls._kind: cls for cls in (Lock, RLock, Condition, Semaphore, BoundedSemaphore,
                               Event, Barrier)}

#: Every how many scenarios the cyclic garbage collector runs (0: never,
#: blanket leaves it to Python). A primitive and its switched methods hold
#: each other, so a scenario's primitives are freed by the collector. On the
#: free-threaded build (3.13) the objects a collection frees count against
#: the next one, so a loop of scenarios sees collections ever further apart
#: and its garbage, and the process's memory, grow without bound.
COLLECT_EVERY = 100 if "t" in getattr(sys, "abiflags", "") else 0
_scenarios = itertools.count(1)


def kinds(core: ScenarioCore) -> dict[str, Kind[Any]]:
    """The seven kinds of a new scenario (its *core*), by name; every
    :data:`COLLECT_EVERY`-th call collects the garbage of the scenarios
    before."""
    if COLLECT_EVERY and next(_scenarios) % COLLECT_EVERY == 0:
        gc.collect()
    return {name: Kind(cls, core) for name, cls in KINDS.items()}
