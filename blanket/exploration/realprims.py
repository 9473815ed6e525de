"""Real primitives made the scenario's where watched code uses them.

A lock the code under test made before the run (at import time, as a
module global or a default argument value, ``def __init__(self,
condition_cls=threading.Condition)``; in the setup, by library code; in an
earlier run, by a ``logging`` handler) is a real ``threading`` object: its
calls would be no steps. In an adopting scenario (every run of
:func:`blanket.explore` that watches), watched code uses instead a *twin*:
a primitive of the run's scenario standing for that very real object
(``blanket.primitives.Kind.around``), made on its first use in the run
and kept for the rest of it, so that each run starts alike and a thread
outside the scenario still sees the real object's state. The rewritten code
(:mod:`blanket.exploration.rewrite`) hands the object to
``blanket.exploration.sites.use_target`` before every load of a
primitive's method name (``lock.acquire``, ``event.wait``, ...) and before
every ``with``; ``blanket.exploration.sites.call_target`` hands it a
bound method of one (``acquire = lock.acquire`` taken outside).

A ``multiprocessing`` lock, semaphore or condition is made of
``_multiprocessing.SemLock`` s, which threads of one process share as they
share a ``threading`` lock. Watched code uses a :class:`SemLockTwin`
instead: the SemLock's methods, each called on the calling thread's run's
:class:`StandIn` for it (an ``RLock`` for a recursive one, a ``Lock`` for
a ``multiprocessing.Lock``, a ``Semaphore`` or ``BoundedSemaphore``), made
afresh for every run and free, so that a thread given up on while it held
the real one (only its holder could release it, and a library's
``acquire`` rarely gives back what it took when a later step raises)
leaves nothing held for the next run. The real SemLock is left as it is:
another process, or code not watched, that takes it is not excluded by the
stand-in's holder (code not watched that uses it is named, as below).

Twinned: real ``Lock``, ``RLock`` (``_thread.allocate_lock()``,
``_thread.RLock()`` too), ``Semaphore``, ``BoundedSemaphore``, ``Event``,
and ``Condition`` over a real ``Lock`` or ``RLock`` or a primitive of the
scenario (its twin waits on the same lock and the same list of waiters, so
a ``notify`` through either wakes both), and primitives of another
scenario (an earlier run's, kept in process-wide state). Not twinned, and
named by :attr:`Exploration.unseen <blanket.Exploration.unseen>` as real
primitives used (``blanket.exploration.unseen``): a ``Barrier`` (its
waiting sleeps in a condition of its own that a twin would have to swap
under threads that may be in it), a ``Condition`` over a lock of another
kind, and any real primitive used by code that is not watched.
"""

from __future__ import annotations

import _multiprocessing  # type: ignore[import-not-found]
import _thread
import threading
import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .. import outsiders, primitives, sleepers
from ..progress import over_real
from ..report import holdings

if TYPE_CHECKING:  # pragma: no cover
    from ..core import ScenarioCore
    from ..gate import Primitive

# The scenario's own primitive classes: one of another scenario is twinned.
_BLANKET: dict[type, str] = {
    cls: kind for kind, cls in primitives.KINDS.items() if kind != "Barrier"}
#: The objects watched code uses through a twin, by type: the kind of
#: primitive that stands for one.
REAL_KINDS: dict[type, str] = {
    type(_thread.allocate_lock()): "Lock", _thread.RLock: "RLock",
    threading.Condition: "Condition", threading.Semaphore: "Semaphore",
    threading.BoundedSemaphore: "BoundedSemaphore", threading.Event: "Event",
    _multiprocessing.SemLock: "SemLock", **_BLANKET}
#: The names of the primitives' methods: a load of one of them from a real
#: primitive loads it from the twin.
METHODS = frozenset({
    "acquire", "release", "locked", "acquire_lock", "release_lock", "locked_lock",
    "wait", "wait_for", "notify", "notify_all", "notifyAll", "set", "clear", "is_set",
    "isSet", "__enter__", "__exit__",
    # (a SemLock's: blanket.exploration.realprims.SemLockTwin)
    "_count", "_is_mine", "_get_value", "_is_zero"})


#: The twins of each adopting scenario, by the id of its core (while its
#: watch keeps them, the core lives too: its id is its own).
_TWINS: weakref.WeakValueDictionary[int, Twins] = weakref.WeakValueDictionary()


class Twins:
    """The twins of one run's scenario (its *core* and primitive *kinds*),
    one per real object, made on first use."""

    def __init__(self, core: ScenarioCore, kinds: Mapping[str, Any]) -> None:
        self._core = core
        self._kinds = kinds
        _TWINS[id(core)] = self
        # id of the real object -> (the object, kept so the id is not reused;
        # its twin, or None where it cannot have one or needs none; what the
        # run keeps of it, see _kept).
        self._made: dict[int, tuple[object, Primitive | SemLockTwin | None, object]] = {}

    def use(self, value: object) -> object:
        """What watched code uses instead of *value* (one of
        ``REAL_KINDS``): its twin, or *value* itself when it is the
        scenario's own or cannot have one."""
        key, made_by_id = id(value), self._made
        # (not get: see the note at the top of blanket.core)
        made = made_by_id[key] if key in made_by_id else None
        if made is None:
            with self._core.lock:  # two threads' first uses make one twin
                made = made_by_id[key] if key in made_by_id else None
                if made is None:
                    twin = self._twin(value)
                    made = made_by_id[key] = (value, twin, self._kept(value, twin))
        return value if made[1] is None else made[1]

    def _kept(self, value: Any, twin: Primitive | SemLockTwin | None) -> object:
        """What the run keeps of *value*, twinned by *twin*: the real
        primitive's state at its first use, which :meth:`restore` puts back
        (see :func:`_state`), or a SemLock's stand-in."""
        if isinstance(twin, SemLockTwin):
            return StandIn(value, self._kinds)
        return None if twin is None else _state(twin._real)

    def restore(self) -> None:
        """Put each real primitive twinned back in the state it was in when
        first used (the run is over, its threads joined): what a thread
        given up on took and never gave back (a lock, a semaphore's slot,
        its place among a condition's waiters) would make the next run
        start otherwise. The next run makes new twins."""
        made, self._made = self._made, {}
        for _, twin, state in made.values():
            if twin is not None and not isinstance(twin, SemLockTwin):
                _restore(twin._real, state, self._core)  # (a SemLock's stand-in is made anew)

    def method(self, bound: Any) -> object:
        """What watched code calls instead of the bound method *bound* of
        one of ``REAL_KINDS``: the same method of its twin."""
        owner = bound.__self__
        twin = self.use(owner)
        return bound if twin is owner else getattr(twin, bound.__name__)

    def _twin(self, value: Any) -> Primitive | SemLockTwin | None:
        """A new twin of *value* (the core's lock held), or ``None``."""
        blanket = type(value) in _BLANKET
        if blanket and value._core is self._core:
            return None  # the scenario's own
        kind = REAL_KINDS[type(value)]
        if kind == "SemLock":
            return SemLockTwin.of(value)
        if kind != "Condition":
            twin: Primitive = self._kinds[kind].around(value._real if blanket else value)
            return twin
        if blanket:
            lock, waiters = value._user_lock, value._real._waiters
        else:
            lock, waiters = value._lock, value._waiters
        if type(lock) not in REAL_KINDS or REAL_KINDS[type(lock)] not in ("Lock", "RLock"):
            return None  # a lock of its own kind: its calls stay real, and are named
        twin = self._kinds["Condition"](self.use(lock))
        # The same list of waiters: a notify through the real condition or
        # the twin wakes a waiter of either.
        twin._real._waiters = waiters
        return twin


    def stand_in(self, semlock: Any) -> StandIn:
        """The run's stand-in for *semlock*, made on first use."""
        self.use(semlock)
        stand_in: StandIn = self._made[id(semlock)][2]  # type: ignore[assignment]
        return stand_in


class SemLockTwin:
    """What watched code uses instead of a ``_multiprocessing.SemLock``: its
    methods, each on the calling thread's run's :class:`StandIn` for it, or
    on the SemLock itself outside a run. One per SemLock, for good: code
    keeps its methods (``multiprocessing.synchronize.SemLock`` stores
    ``self._semlock.acquire`` as its own ``acquire``), and a method kept
    from one run is called in the next."""

    __slots__ = ("_semlock",)
    _made: dict[int, SemLockTwin] = {}  # (each keeps its SemLock: the id stays its)

    def __init__(self, semlock: Any) -> None:
        self._semlock = semlock

    @classmethod
    def of(cls, semlock: Any) -> SemLockTwin:
        """The twin of *semlock*."""
        made = cls._made[id(semlock)] if id(semlock) in cls._made else None
        if made is None:
            made = cls._made[id(semlock)] = cls(semlock)
        return made

    def _now(self) -> Any:
        """The calling thread's run's stand-in, or the SemLock itself (a
        thread of no adopting scenario's, a run not going on, blanket's own
        bookkeeping: see ``blanket.exploration.sites``)."""
        core: Any = getattr(threading.current_thread(), "_blanket_core", None)
        twins = _TWINS.get(id(core)) if core is not None else None  # (weak: get only)
        if twins is None or not core.regulated or core.lock._is_owned():
            return self._semlock
        return twins.stand_in(self._semlock)

    def acquire(self, block: bool = True, timeout: float | None = None) -> bool:
        """Acquire, as ``SemLock.acquire`` does."""
        return bool(self._now().acquire(block, timeout))

    def release(self) -> None:
        """Release, as ``SemLock.release`` does."""
        self._now().release()

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc_info: object) -> None:
        self.release()

    def _count(self) -> int:
        return int(self._now()._count())

    def _is_mine(self) -> bool:
        return bool(self._now()._is_mine())

    def _get_value(self) -> int:
        return int(self._now()._get_value())

    def _is_zero(self) -> bool:
        return self._get_value() == 0

    def __getattr__(self, name: str) -> Any:
        # (what the SemLock is: kind, maxvalue, name, handle)
        return getattr(self._semlock, name)


class StandIn:
    """A primitive of one run standing for a SemLock (see the module's
    docstring): a lock's free, whatever the real one's state, since the
    run's own threads alone use it (a thread of an earlier run given up on
    while it held the real one, which only its holder can release, leaves
    nothing held for this one); a semaphore's at the real one's value. What
    the SemLock keeps of its holder (the count of its acquires, the thread
    of the last) is kept as the SemLock keeps it."""

    __slots__ = ("_primitive", "_held", "_last")

    def __init__(self, semlock: Any, kinds: Mapping[str, Any]) -> None:
        if semlock.kind == _RECURSIVE_MUTEX:
            primitive = kinds["RLock"]()
        elif semlock.maxvalue == 1:  # a multiprocessing.Lock
            primitive = kinds["Lock"]()
        else:  # a semaphore, as it is: it has no holder to be left held by
            value = semlock._get_value()
            if semlock.maxvalue == _multiprocessing.SemLock.SEM_VALUE_MAX:
                primitive = kinds["Semaphore"](value)
            else:
                primitive = kinds["BoundedSemaphore"](value)
                primitive._real._initial_value = semlock.maxvalue  # (its bound)
        self._primitive: Any = primitive
        self._held = 0
        self._last = 0  # the ident of the thread that last acquired it

    def acquire(self, block: bool, timeout: float | None) -> bool:
        """Acquire (no timeout: wait for ever; one below zero: none; not
        blocking: the timeout is not looked at)."""
        if not block or timeout is None:
            taken = bool(self._primitive.acquire(block))
        else:
            taken = bool(self._primitive.acquire(True, max(timeout, 0)))
        if taken:
            self._held += 1
            self._last = threading.get_ident()
        return taken

    def release(self) -> None:
        """Release."""
        self._primitive.release()
        self._held -= 1

    def _count(self) -> int:
        return self._held

    def _is_mine(self) -> bool:
        return self._held > 0 and self._last == threading.get_ident()

    def _get_value(self) -> int:
        real = self._primitive._real
        if isinstance(real, threading.Semaphore):
            return int(real._value)
        return 0 if self._held else 1


# multiprocessing.synchronize.RECURSIVE_MUTEX: a SemLock that is an RLock's.
_RECURSIVE_MUTEX = 0


def _state(real: Any) -> object:
    """What :func:`_restore` puts back of the real primitive *real* (a
    twin's): whether a lock is held, a semaphore's count, whether an event
    is set, a condition's waiters."""
    kind = type(real)
    if kind is _LOCK:
        return real.locked()
    if kind is _thread.RLock:
        return _rlock_held(real)
    if isinstance(real, threading.Semaphore):
        return real._value
    if kind is threading.Event:
        return real.is_set()
    return list(real._waiters)  # a Condition


def _restore(real: Any, state: object, core: ScenarioCore) -> None:
    """Put *state* (see :func:`_state`) back into *real*, a primitive
    *core*'s run twinned."""
    kind = type(real)
    if kind is _LOCK:
        if real.locked() and not state and _taken_in(core, real):
            real.release()
    elif kind is _thread.RLock:
        if _rlock_held(real) and not state:
            real._release_save()  # whichever thread holds it, all its counts
    elif isinstance(real, threading.Semaphore):
        assert isinstance(state, int)
        with real._cond:  # type: ignore[attr-defined]
            real._value = state
    elif kind is threading.Event:
        (real.set if state else real.clear)()
    else:  # a Condition: a waiter given up on left its lock in the list
        # (but a thread outside the run still asleep in it keeps its own:
        # taken off, it would never be woken, see blanket.outsiders)
        added = [waiter for waiter in real._waiters if waiter not in state]  # type: ignore[operator]
        if added:
            asleep = outsiders.waiters(real._waiters)
            kept = [waiter for waiter in real._waiters
                    if waiter in state or waiter in asleep]  # type: ignore[operator]
            real._waiters.clear()
            real._waiters.extend(kept)


_LOCK = type(_thread.allocate_lock())


def _taken_in(core: ScenarioCore, real: Any) -> bool:
    """Whether a thread of *core*'s run that has ended holds the real
    ``Lock`` *real*: through a twin (of it, or of a condition over it: what
    the log says the thread took, less what it gave back as it unwound,
    given up on), or as the profile saw (``blanket.sleepers``). A lock that
    names no owner, held by none of them, is another's: a thread outside
    the run that took it in code not watched (an actor's, in its queue's
    ``get``: see :mod:`blanket.outsiders`) keeps it; so does a thread still
    alive, the run's or not (an actor running on past the run's end: its
    own release is to come)."""
    over = {id(primitive) for primitive in over_real(core, real)}
    for thread, counts in holdings(core).items():
        unwound = core.unwound.get(thread, {})
        if not thread.is_alive() and \
                sum(counts.get(key, 0) - unwound.get(key, 0) for key in over) > 0:
            return True
    known = sleepers.holders.get(id(real))  # (get: see blanket.sleepers)
    return known is not None and known[1] in core.managed and not known[1].is_alive()


def _rlock_held(real: Any) -> bool:
    """Whether the real RLock *real* is held (it tells only in its repr)."""
    return " count=0 " not in repr(real)
