"""The real locks the scenarios' threads are acquiring and hold outside
blanket's control, as an exploration's profile function sees them; and the
``queue.SimpleQueue`` gets they sleep in (``concurrent.futures``' workers
wait for work so), which only another thread's put wakes.

A thread asleep in a real ``Lock`` or ``RLock`` (one code that is not
watched takes) is in no blanket call: without this, the scheduler could
only see it "running" until its bound ran out. The profile function of
:mod:`blanket.exploration.unseen` tells :func:`real_call` and
:func:`real_return` of each call on a real lock the thread makes from code
that is not blanket's; :mod:`blanket.progress` and :mod:`blanket.report`
read what they kept: which lock a thread is acquiring and where, and who
holds a plain ``Lock`` (an ``RLock`` names its owner itself). A
``Thread.join`` with no timeout of a thread blanket did not start (one
code not yet watched made) sleeps so too, in what the thread's end
releases: it is told as a sleep of kind ``"Thread"``, whose holder is the
thread joined.

A queue's emptiness alone does not tell that its getters still sleep: from
3.13 on a put hands its item straight to a thread asleep in the get, and
the queue stays empty. So the puts seen into a queue while threads sleep
in its get are counted (:data:`woken`), each until a get of the queue
returns an item; while one is, its sleepers are not taken for asleep.
"""

from __future__ import annotations

import _multiprocessing  # type: ignore[import-not-found]
import _thread
import queue
import re
import threading
import typing
from _thread import get_ident
from typing import Any

# The threads of every scenario change these dicts with no lock in common:
# they are read with get, which is atomic, not with ``k in d`` and ``d[k]``
# (another thread may take the key out in between), whatever a first get
# costs on the free-threaded build (see the note at the top of blanket.core).

#: The real lock each thread is acquiring, by its ident: ``(thread, kind,
#: lock, where)``, from the call until it returns.
acquiring: dict[int, tuple[threading.Thread, str, Any, str]] = {}
#: Who holds each real ``Lock`` taken outside blanket, by the lock's id:
#: ``(lock, thread, where)``.
holders: dict[int, tuple[Any, threading.Thread, str]] = {}

#: The ``SimpleQueue`` s a put was seen into while threads slept in their
#: get, by the queue's id: ``(queue, puts)``, the puts no get has taken
#: the item of yet (each wakes a sleeper, which on 3.13 gets the item
#: with the queue still empty).
woken: dict[int, tuple[Any, int]] = {}
_counting = _thread.allocate_lock()  # (a put and a get may count at once)

#: The thread each real join with no timeout waits for, by the id of what
#: its joiner sleeps in: the thread's ``_tstate_lock`` (3.11, 3.12), its
#: ``_ThreadHandle`` (3.13); until the join returns.
joining: dict[int, threading.Thread] = {}

#: The lock a ``multiprocessing.Lock`` or ``RLock`` is made of: threads of
#: one process that share one sleep in it as in a ``threading`` lock.
SEMLOCK: type | None = getattr(_multiprocessing, "SemLock", None)

_GETS = frozenset({"get", "get_nowait"})
_TOLD_WHOLE = frozenset({"SimpleQueue", "Thread"})  # (only a get, a join, is told)
_ACQUIRES = frozenset({"acquire", "acquire_lock", "__enter__"})
_RELEASES = frozenset({"release", "release_lock", "__exit__"})
_OWNER = re.compile(r"owner=(\d+)")


def real_call(kind: str, method: Any, where: str) -> None:
    """The calling thread of a scenario calls *method*, a bound method of a
    real lock of *kind* (``"Lock"``, ``"RLock"`` or ``"SemLock"``), at *where*."""
    thread = threading.current_thread()
    core: Any = getattr(thread, "_blanket_core", None)
    if core is None:
        return
    lock, name = method.__self__, method.__name__
    if name in _ACQUIRES or kind in _TOLD_WHOLE:
        acquiring[get_ident()] = (thread, kind, lock, where)
        with core.lock:  # the scheduler looks again: asleep for good, maybe
            core.changed()
    elif name in _RELEASES:
        holders.pop(id(lock), None)


def real_join(method: Any, joined: threading.Thread, where: str) -> None:
    """The calling thread of a scenario joins *joined*, with no timeout, at
    *where*: it sleeps in *method*, a builtin bound to what the thread's
    end releases, until the thread ends (it is acquiring that, kind
    ``"Thread"``)."""
    if getattr(threading.current_thread(), "_blanket_core", None) is not None:
        joining[id(method.__self__)] = joined
        real_call("Thread", method, where)


def put(work: queue.SimpleQueue[Any]) -> None:
    """A thread is about to put into *work*: if threads sleep in its get,
    one of them wakes with the item, perhaps before it is in the queue."""
    if any(entry[2] is work for entry in list(acquiring.values())):
        with _counting:
            puts = woken[id(work)][1] if id(work) in woken else 0
            woken[id(work)] = (work, puts + 1)


def _taken(work: queue.SimpleQueue[Any]) -> None:
    """A get returned an item of *work*: one put counted in :data:`woken`
    is taken (the one it woke a sleeper with, or another)."""
    with _counting:
        if id(work) in woken:
            puts = woken[id(work)][1]
            if puts > 1:
                woken[id(work)] = (work, puts - 1)
            else:
                del woken[id(work)]


@typing.no_type_check  # (typeguard stays off it: it runs at every C return while acquiring)
def real_return(method: Any, returned: bool = True) -> None:
    """A builtin *method* the calling thread called returned (or, not
    *returned*, raised): if it is the acquire :func:`real_call` kept, the
    thread is no longer acquiring, and holds the lock if it is locked and
    held by nobody known; if it is a get that returned an item of a queue
    in :data:`woken`, one put there is taken."""
    owner = getattr(method, "__self__", None)
    ident = get_ident()
    entry = acquiring.get(ident)
    if entry is not None and owner is entry[2]:
        del acquiring[ident]
        thread, kind, lock, where = entry
        if kind == "Thread":
            joining.pop(id(lock), None)
        if kind in ("Lock", "SemLock") and held(lock):
            known = holders.get(id(lock))
            if known is None or not known[1].is_alive():
                holders[id(lock)] = (lock, thread, where)
    # Only then: with the put taken first, a thread that got its item would
    # look asleep in the empty queue still, for a moment the scheduler may see.
    if woken and returned and type(owner) is queue.SimpleQueue and method.__name__ in _GETS:
        _taken(owner)


def held(lock: Any) -> bool:
    """Whether the real lock *lock* is held (what a real join sleeps in:
    whether its thread is alive)."""
    joined = joining.get(id(lock))
    if joined is not None:
        return joined.is_alive()
    if type(lock) is _thread.RLock:
        return " count=0 " not in repr(lock)  # it tells only in its repr
    if type(lock) is queue.SimpleQueue:  # a get sleeps while it is empty, and no put woke it
        return lock.empty() and id(lock) not in woken
    if type(lock) is SEMLOCK:  # a multiprocessing Lock's or RLock's: taken at 0
        try:
            return bool(lock._get_value() == 0)  # type: ignore[attr-defined]
        except NotImplementedError:  # pragma: no cover - macOS has no sem_getvalue
            return False  # not known to be held: a thread in it is running
    return bool(lock.locked())


def owner(lock: Any) -> int | None:
    """The ident of the thread holding the real ``RLock`` *lock*, or None."""
    match = _OWNER.search(repr(lock))
    return int(match.group(1)) if match and match.group(1) != "0" else None


def name(kind: str, lock: Any) -> str:
    """How reports name a real lock: ``real Lock 0X7F...``."""
    return f"real {kind} 0X{id(lock):X}"
