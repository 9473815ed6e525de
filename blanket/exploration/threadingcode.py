"""The ``threading`` module's own code, as a thread's profile function
(``blanket.exploration.unseen``) hears of it: which of its functions a call
into is noted, where a join sleeps, and the rest, which says nothing.

The profile function notes a call into ``threading`` made by code that is
not blanket's: a method of a primitive written in Python
(:data:`PY_PRIMITIVES`: a real primitive used), a ``Thread``'s ``start`` (a
thread started outside blanket) or ``join`` (a blocking call). Of the calls
``threading``'s code makes, it needs only those of a join's sleep
(:data:`SLEEPS`); the others are ``threading``'s bookkeeping on its own
behalf. Every other start of ``threading``'s code, and every call it makes
elsewhere, tells it nothing, so from 3.12 on
(:mod:`blanket.exploration.monitor`) their events are turned off where they
fire: blanket's own bookkeeping runs such code in every run of a search (a
thread's ``__init__``, ``current_thread``), and an event costs a call of a
Python function.
"""

from __future__ import annotations

import _thread
import threading
import types
from collections.abc import Iterator
from typing import Any

#: The file of the ``threading`` module.
FILE = threading.__file__

#: The primitives written in Python in the ``threading`` module: calls into
#: them are a profile's ``"call"`` with ``self`` the primitive.
PY_PRIMITIVES = (threading.Condition, threading.Semaphore, threading.Event, threading.Barrier)

# Where threading's Thread.join sleeps: 3.11 and 3.12 acquire the thread's
# _tstate_lock in _wait_for_tstate_lock, 3.13 calls its _ThreadHandle's join
# (these names, read in no other way, are the interpreters' own).
#: The code of ``Thread._wait_for_tstate_lock`` (3.11, 3.12; else ``None``).
TSTATE_WAIT: Any = getattr(getattr(threading.Thread, "_wait_for_tstate_lock", None),
                           "__code__", None)
#: The code of ``Thread.join``.
JOIN = threading.Thread.join.__code__
#: The type of a thread's handle whose ``join`` a ``Thread.join`` sleeps in (3.13).
THREAD_HANDLE: Any = getattr(_thread, "_ThreadHandle", None)


def _code_of(cls: type) -> Iterator[types.CodeType]:
    """The code of the methods *cls* defines itself, its properties'
    accessors included. (A static or class method has no ``self`` to be
    noted by: it never is.)"""
    for value in vars(cls).values():
        accessors = (value.fget, value.fset, value.fdel) if isinstance(value, property) \
            else (value,)
        for function in accessors:
            if isinstance(function, types.FunctionType):
                yield function.__code__


def _noted() -> dict[int, types.CodeType]:
    """The code of :data:`NOTED`: every method of a primitive class of the
    module (a subclass of :data:`PY_PRIMITIVES`: its ``self`` is one), and
    the ``start`` and ``join`` of every ``Thread`` class."""
    noted: dict[int, types.CodeType] = {}
    for cls in vars(threading).values():
        if not isinstance(cls, type) or cls.__module__ != threading.__name__:
            continue
        for code in _code_of(cls):
            if issubclass(cls, PY_PRIMITIVES) or (
                    issubclass(cls, threading.Thread) and code.co_name in ("start", "join")):
                noted[id(code)] = code
    return noted


#: The code of ``threading`` whose start the profile function may note, by
#: id (the code kept, so that the id stays its own).
NOTED: dict[int, types.CodeType] = _noted()

#: The code of ``threading`` whose calls the profile function hears, by id:
#: where a ``Thread.join`` sleeps (see ``blanket.exploration.unseen``).
SLEEPS: dict[int, types.CodeType] = {
    id(JOIN): JOIN, **({} if TSTATE_WAIT is None else {id(TSTATE_WAIT): TSTATE_WAIT})}
