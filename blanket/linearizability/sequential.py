"""The specification's object run alone, one call at a time: its
``threading`` primitives made sequential.

A specification runs on one thread: a wait on one of its object's
primitives that nothing else can end (a ``get`` of an empty queue, the
``acquire`` of a lock already held) would block for good. :func:`make_sequential`
replaces each primitive the object holds (in its attributes, lists, dicts and
deques, at any depth) by a twin of the same state that raises
:class:`Blocks` where the real one would wait for good: a call that blocks
is known at once, on the thread that makes it, with no clock. A timed wait
that nothing can end sleeps its timeout out and times out, as the real one
would. What other objects of the same factory share (a module's registry)
is left alone: it is not the object's own.
"""

from __future__ import annotations

import _thread
import collections
import threading
import time
from collections.abc import Callable
from typing import Any

from .objectstate import ATOMS, GLOBALS, layout


class Blocks(BaseException):
    """Raised by a sequential primitive where the real one would wait for
    good. Not an ``Exception``: the specification's ``except Exception``
    does not catch it."""


def _times_out(timeout: float) -> None:
    """A timed wait that nothing can end: the timeout runs out."""
    if timeout > 0:
        time.sleep(timeout)


class SequentialLock:
    """``threading.Lock``, for one thread: acquiring it held blocks for good."""

    __slots__ = ("_held",)

    def __init__(self, held: bool = False) -> None:
        self._held = held

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        """Take the lock; held, raise :class:`Blocks` (or time out)."""
        if not self._held:
            self._held = True
            return True
        if not blocking:
            return False
        if timeout < 0:
            raise Blocks("Lock.acquire")
        _times_out(timeout)
        return False

    def release(self) -> None:
        """Let the lock go."""
        if not self._held:
            raise RuntimeError("release unlocked lock")
        self._held = False

    def locked(self) -> bool:
        """Whether it is held."""
        return self._held

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()

    def _at_fork_reinit(self) -> None:
        self._held = False

    acquire_lock, release_lock, locked_lock = acquire, release, locked


class SequentialRLock:
    """``threading.RLock``, for one thread: it always holds it already."""

    __slots__ = ("_count",)

    def __init__(self, count: int = 0) -> None:
        self._count = count

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        """Take the lock once more."""
        self._count += 1
        return True

    def release(self) -> None:
        """Let one hold of the lock go."""
        if not self._count:
            raise RuntimeError("cannot release un-acquired lock")
        self._count -= 1

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()

    def _is_owned(self) -> bool:
        return self._count > 0

    def _release_save(self) -> int:
        count, self._count = self._count, 0
        return count

    def _acquire_restore(self, count: int) -> None:
        self._count = count

    def _recursion_count(self) -> int:
        return self._count

    def _at_fork_reinit(self) -> None:
        self._count = 0


class SequentialCondition:
    """``threading.Condition``, for one thread: nothing notifies a wait."""

    __slots__ = ("_lock",)

    def __init__(self, lock: SequentialLock | SequentialRLock) -> None:
        self._lock = lock

    def __enter__(self) -> bool:
        return self._lock.acquire()

    def __exit__(self, *exc: object) -> None:
        self._lock.release()

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        """Take the condition's lock."""
        return self._lock.acquire(blocking, timeout)

    def release(self) -> None:
        """Let the condition's lock go."""
        self._lock.release()

    def _is_owned(self) -> bool:
        lock = self._lock
        return lock._is_owned() if isinstance(lock, SequentialRLock) else lock.locked()

    def _owned(self, what: str) -> None:
        if not self._is_owned():
            raise RuntimeError(f"cannot {what} on un-acquired lock")

    def wait(self, timeout: float | None = None) -> bool:
        """Nothing can notify: raise :class:`Blocks` (or time out)."""
        self._owned("wait")
        if timeout is None:
            raise Blocks("Condition.wait")
        _times_out(timeout)
        return False

    def wait_for(self, predicate: Callable[[], Any], timeout: float | None = None) -> Any:
        """*predicate*'s value if true, else as :meth:`wait`."""
        result = predicate()
        if not result:
            self.wait(timeout)
            result = predicate()
        return result

    def notify(self, n: int = 1) -> None:
        """No one waits."""
        self._owned("notify")

    def notify_all(self) -> None:
        """No one waits."""
        self._owned("notify")

    notifyAll = notify_all  # noqa: N815 - threading's own old name


class SequentialSemaphore:
    """``threading.Semaphore``, for one thread: none released, none to take."""

    __slots__ = ("_value",)

    def __init__(self, value: int = 1) -> None:
        self._value = value

    def acquire(self, blocking: bool = True, timeout: float | None = None) -> bool:
        """Take one; none left, raise :class:`Blocks` (or time out)."""
        if not blocking and timeout is not None:
            raise ValueError("can't specify timeout for non-blocking acquire")
        if self._value:
            self._value -= 1
            return True
        if not blocking:
            return False
        if timeout is None:
            raise Blocks("Semaphore.acquire")
        _times_out(timeout)
        return False

    def release(self, n: int = 1) -> None:
        """Give *n* back."""
        if n < 1:
            raise ValueError("n must be one or more")
        self._value += n

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


class SequentialBoundedSemaphore(SequentialSemaphore):
    """``threading.BoundedSemaphore``, for one thread."""

    __slots__ = ("_initial_value",)

    def __init__(self, value: int = 1, initial: int | None = None) -> None:
        super().__init__(value)
        self._initial_value = value if initial is None else initial

    def release(self, n: int = 1) -> None:
        """Give *n* back, never more than it started with."""
        if n >= 1 and self._value + n > self._initial_value:
            raise ValueError("Semaphore released too many times")
        super().release(n)


class SequentialEvent:
    """``threading.Event``, for one thread: nothing else sets it."""

    __slots__ = ("_flag",)

    def __init__(self, flag: bool = False) -> None:
        self._flag = flag

    def is_set(self) -> bool:
        """Whether it is set."""
        return self._flag

    isSet = is_set  # noqa: N815 - threading's own old name

    def set(self) -> None:
        """Set it."""
        self._flag = True

    def clear(self) -> None:
        """Clear it."""
        self._flag = False

    def wait(self, timeout: float | None = None) -> bool:
        """True when set; else raise :class:`Blocks` (or time out)."""
        if self._flag:
            return True
        if timeout is None:
            raise Blocks("Event.wait")
        _times_out(timeout)
        return False


class SequentialBarrier:
    """``threading.Barrier``, for one thread: a party of one passes, more
    wait for good."""

    __slots__ = ("_parties", "_action", "_timeout", "_broken")

    def __init__(self, parties: int, action: Callable[[], Any] | None = None,
                 timeout: float | None = None, broken: bool = False) -> None:
        self._parties, self._action, self._timeout = parties, action, timeout
        self._broken = broken

    def wait(self, timeout: float | None = None) -> int:
        """Pass a barrier of one party; else raise :class:`Blocks` (or time
        out, breaking it)."""
        if self._broken:
            raise threading.BrokenBarrierError
        if self._parties == 1:
            if self._action is not None:
                self._action()
            return 0
        timeout = self._timeout if timeout is None else timeout
        if timeout is None:
            raise Blocks("Barrier.wait")
        _times_out(timeout)
        self._broken = True
        raise threading.BrokenBarrierError

    def reset(self) -> None:
        """Mend it."""
        self._broken = False

    def abort(self) -> None:
        """Break it."""
        self._broken = True

    @property
    def parties(self) -> int:
        """How many must wait."""
        return self._parties

    @property
    def n_waiting(self) -> int:
        """How many wait: none."""
        return 0

    @property
    def broken(self) -> bool:
        """Whether it is broken."""
        return self._broken


_LOCK = type(threading.Lock())
_PY_RLOCK: Any = getattr(threading, "_PyRLock", None)
#: The real primitives: replaced when their twin can be made, never walked into.
_PRIMITIVES = tuple(kind for kind in (
    _LOCK, _thread.RLock, _PY_RLOCK, threading.Condition, threading.Semaphore,
    threading.Event, threading.Barrier) if kind is not None)


def _twin(value: Any, twins: dict[int, tuple[Any, Any]]) -> Any:
    """The sequential twin of the real primitive *value*, in its state (made
    once per primitive, kept in *twins* by its id with the primitive, alive:
    a lock and the condition over it keep sharing it); ``None`` if *value*
    is not one."""
    if id(value) in twins:
        return twins[id(value)][1]
    kind = type(value)
    twin: Any = None
    if kind is _LOCK:
        twin = SequentialLock(value.locked())
    elif kind is _thread.RLock:
        twin = SequentialRLock(value._recursion_count() if value._is_owned() else 0)
    elif kind is _PY_RLOCK:
        twin = SequentialRLock(value._count)
    elif kind is threading.Condition:
        lock = _twin(value._lock, twins)
        if lock is not None:
            twin = SequentialCondition(lock)
    elif kind is threading.BoundedSemaphore:
        twin = SequentialBoundedSemaphore(value._value, value._initial_value)
    elif kind is threading.Semaphore:
        twin = SequentialSemaphore(value._value)
    elif kind is threading.Event:
        twin = SequentialEvent(value.is_set())
    elif kind is threading.Barrier:
        twin = SequentialBarrier(value._parties, value._action, value._timeout,
                                 value._state == -2)
    if twin is not None:
        twins[id(value)] = (value, twin)
    return twin


def make_sequential(obj: Any, shared: dict[int, Any]) -> Any:
    """*obj* with every real primitive it holds replaced by its sequential
    twin (what *shared* names, by id, is left alone, and not walked into);
    *obj* itself, or its twin if it is a primitive."""
    twins: dict[int, tuple[Any, Any]] = {}
    holder = [obj]
    seen: set[int] = set()
    stack: list[Any] = [holder]
    while stack:
        value = stack.pop()
        shape = layout(type(value))
        if shape is None:
            continue
        container, slots, has_dict = shape
        places: list[tuple[Any, Any, Any]] = []  # (where, key, value): replaceable
        if container == "sequence" and not isinstance(value, tuple):
            places += [(value, index, item) for index, item in enumerate(value)]
        elif container == "mapping":
            places += [(value, key, item) for key, item in value.items()]
        for slot in slots:
            try:
                places.append((slot, value, slot.__get__(value)))
            except AttributeError:
                pass
        if has_dict:
            attributes = object.__getattribute__(value, "__dict__")
            places += [(attributes, name, item) for name, item in attributes.items()]
        others = list(value) if isinstance(value, (tuple, set, frozenset)) else []
        for where, key, item in places:
            twin = None if id(item) in shared else _twin(item, twins)
            if twin is None:
                others.append(item)
            elif isinstance(where, (list, dict, collections.deque)):
                where[key] = twin
            else:  # a slot's descriptor
                where.__set__(key, twin)
        for item in others:
            if type(item) not in ATOMS and id(item) not in seen and id(item) not in shared \
                    and not isinstance(item, (*GLOBALS, *_PRIMITIVES)):
                seen.add(id(item))
                stack.append(item)
    return holder[0]


