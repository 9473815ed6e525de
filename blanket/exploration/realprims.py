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

import _thread
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .. import primitives

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
    **_BLANKET}
#: The names of the primitives' methods: a load of one of them from a real
#: primitive loads it from the twin.
METHODS = frozenset({
    "acquire", "release", "locked", "acquire_lock", "release_lock", "locked_lock",
    "wait", "wait_for", "notify", "notify_all", "notifyAll", "set", "clear", "is_set",
    "isSet", "__enter__", "__exit__"})


class Twins:
    """The twins of one run's scenario (its *core* and primitive *kinds*),
    one per real object, made on first use."""

    def __init__(self, core: ScenarioCore, kinds: Mapping[str, Any]) -> None:
        self._core = core
        self._kinds = kinds
        # id of the real object -> (the object, kept so the id is not reused;
        # its twin, or None where it cannot have one or needs none; the real
        # primitive's state when first used, see _state).
        self._made: dict[int, tuple[object, Primitive | None, object]] = {}

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
                    state = None if twin is None else _state(twin._real)
                    made = made_by_id[key] = (value, twin, state)
        return value if made[1] is None else made[1]

    def restore(self) -> None:
        """Put each real primitive twinned back in the state it was in when
        first used (the run is over, its threads joined): what a thread
        given up on took and never gave back (a lock, a semaphore's slot,
        its place among a condition's waiters) would make the next run
        start otherwise. The next run makes new twins."""
        made, self._made = self._made, {}
        for _, twin, state in made.values():
            if twin is not None:
                _restore(twin._real, state)

    def method(self, bound: Any) -> object:
        """What watched code calls instead of the bound method *bound* of
        one of ``REAL_KINDS``: the same method of its twin."""
        owner = bound.__self__
        twin = self.use(owner)
        return bound if twin is owner else getattr(twin, bound.__name__)

    def _twin(self, value: Any) -> Primitive | None:
        """A new twin of *value* (the core's lock held), or ``None``."""
        blanket = type(value) in _BLANKET
        if blanket and value._core is self._core:
            return None  # the scenario's own
        kind = REAL_KINDS[type(value)]
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


def _restore(real: Any, state: object) -> None:
    """Put *state* (see :func:`_state`) back into *real*."""
    kind = type(real)
    if kind is _LOCK:
        if real.locked() and not state:
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
        kept = [waiter for waiter in real._waiters if waiter in state]  # type: ignore[operator]
        real._waiters.clear()
        real._waiters.extend(kept)


_LOCK = type(_thread.allocate_lock())


def _rlock_held(real: Any) -> bool:
    """Whether the real RLock *real* is held (it tells only in its repr)."""
    return " count=0 " not in repr(real)
