"""Seeing a thread's calls through ``sys.monitoring`` (Python 3.12 on), for
``blanket.exploration.unseen``'s profile functions.

A profile function (``sys.setprofile``) runs at every call and return of
its thread, blanket's own bookkeeping included: on the free-threaded build
it was a seventh of an exploration's time. From 3.12 on the same events
come from ``sys.monitoring``, whose callbacks can turn an event off for
good where it fires: in blanket's own code, in ``threading``'s where it
tells nothing (``blanket.exploration.threadingcode``), and in code
already judged (:data:`~blanket.exploration.sites.SETTLED`, or what the
profile function says it has nothing more to do with). While an exploration runs
(:func:`monitoring`) the events go to the profile function of the thread
they happen in (:func:`watching`), as the legacy profile would give them:
``"call"`` when Python code starts or resumes, ``"c_call"`` with the bound
builtin, and ``"c_return"`` or ``"c_exception"`` (a builtin that raised). The profile
function returns true for a call it will never have anything to do with,
and the event is turned off there.

Events are turned back on when an exploration starts monitoring: what an
earlier one judged (its exclusions) is not this one's.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import types
import typing
from collections.abc import Callable, Iterator
from typing import Any

from . import threadingcode
from .places import BLANKET_FOLDER
from .sites import SETTLED

_THREADING = threadingcode.FILE
_NOTED, _SLEEPS = threadingcode.NOTED, threadingcode.SLEEPS

#: A profile function: ``hook(frame, event, arg)``; true: nothing to do there, ever.
Hook = Callable[[types.FrameType, str, Any], object]

#: The tool id blanket asks for (3 and 4 have no name; the profiler's and
#: coverage's are left to them).
TOOL = 4


class _Hooks(threading.local):
    #: The calling thread's profile function while it is watched.
    hook: Hook | None = None


_local = _Hooks()
_users = 0  # the explorations monitoring now (nested ones share the tool)


def available() -> bool:
    """Whether this interpreter has ``sys.monitoring`` and the tool id is
    free (or blanket's)."""
    monitoring = getattr(sys, "monitoring", None)
    return monitoring is not None and monitoring.get_tool(TOOL) in (None, "blanket")


@contextlib.contextmanager
def monitoring() -> Iterator[bool]:
    """Deliver the events while the block runs, if :func:`available`; the
    block is told whether they are."""
    if not available():
        yield False
        return
    with _delivering():  # pragma: no cover - Python 3.12 on (make matrix runs it)
        yield True


@contextlib.contextmanager
def _delivering() -> Iterator[None]:  # pragma: no cover - Python 3.12 on (make matrix runs it)
    """The callbacks registered, the events on, while the block runs
    (nested blocks share them; each start turns every event back on)."""
    global _users
    monitor: Any = sys.monitoring  # type: ignore[attr-defined,unused-ignore]
    events = monitor.events
    if _users == 0:
        monitor.use_tool_id(TOOL, "blanket")
        for name, callback in _CALLBACKS.items():
            monitor.register_callback(TOOL, getattr(events, name), callback)
        mask = 0
        for name in _CALLBACKS:
            mask |= getattr(events, name)
        monitor.set_events(TOOL, mask)
    monitor.restart_events()
    _users += 1
    try:
        yield
    finally:
        _users -= 1
        if _users == 0:
            monitor.set_events(TOOL, 0)
            for name in _CALLBACKS:
                monitor.register_callback(TOOL, getattr(events, name), None)
            monitor.free_tool_id(TOOL)


def watching(hook: Hook, call: Callable[..., Any], *args: Any,
             **kwargs: Any) -> Any:  # pragma: no cover - Python 3.12 on (make matrix runs it)
    """``call(*args, **kwargs)``, the calling thread's events given to *hook*."""
    previous, _local.hook = _local.hook, hook
    try:
        return call(*args, **kwargs)
    finally:
        _local.hook = previous


def paused(call: Callable[..., Any], *args: Any) -> Any:
    """``call(*args)`` with the calling thread's events given to no hook
    (blanket's own work, run in a watched thread)."""
    previous, _local.hook = _local.hook, None
    try:
        return call(*args)
    finally:
        _local.hook = previous


# The callbacks run at every event of every thread where they are not
# turned off: typeguard stays off them.

@typing.no_type_check  # pragma: no cover - Python 3.12 on (make matrix runs it)
def _started(code: types.CodeType, offset: int) -> object:
    # (threading's code is never watched, but some calls into it are noted:
    # see blanket.exploration.threadingcode.)
    filename = code.co_filename
    if filename.startswith(BLANKET_FOLDER) or (
            id(code) not in _NOTED if filename == _THREADING else id(code) in SETTLED):
        return sys.monitoring.DISABLE
    hook = _local.hook
    if hook is not None and hook(sys._getframe(1), "call", None):
        return sys.monitoring.DISABLE
    return None


@typing.no_type_check  # pragma: no cover - Python 3.12 on (make matrix runs it)
def _called(code: types.CodeType, offset: int, callee: Any, first: Any) -> object:
    filename = code.co_filename
    if filename.startswith(BLANKET_FOLDER) or (filename == _THREADING
                                               and id(code) not in _SLEEPS):
        return sys.monitoring.DISABLE
    hook = _local.hook
    if hook is not None:
        builtin = _builtin(callee, first)
        if builtin is not None:
            hook(sys._getframe(1), "c_call", builtin)
    return None


@typing.no_type_check  # pragma: no cover - Python 3.12 on (make matrix runs it)
def _returned(code: types.CodeType, offset: int, callee: Any, first: Any) -> None:
    _ended(code, callee, first, "c_return")


@typing.no_type_check  # pragma: no cover - Python 3.12 on (make matrix runs it)
def _raised(code: types.CodeType, offset: int, callee: Any, first: Any) -> None:
    # Told apart from a return: a get_nowait of an empty queue that raised
    # took no item from it (blanket.sleepers).
    _ended(code, callee, first, "c_exception")


@typing.no_type_check  # pragma: no cover - Python 3.12 on (make matrix runs it)
def _ended(code: types.CodeType, callee: Any, first: Any, event: str) -> None:
    """Tell the hook that a builtin returned or raised (*event*)."""
    # (Turned off with its call, but for the call that turned it off.)
    hook = _local.hook
    if hook is not None and not code.co_filename.startswith(BLANKET_FOLDER):
        builtin = _builtin(callee, first)
        if builtin is not None:
            hook(sys._getframe(2), event, builtin)  # (the frame the callback is for)


@typing.no_type_check  # pragma: no cover - Python 3.12 on (make matrix runs it)
def _builtin(callee: Any, first: Any) -> Any:
    """What a profile's ``c_call`` names for a call of *callee* with first
    argument *first*: a builtin, or a C method bound to *first*; ``None``
    for a call of Python code (its own ``"call"`` comes)."""
    kind = type(callee)
    if kind is types.BuiltinFunctionType:
        return callee
    if kind is types.MethodDescriptorType and first is not sys.monitoring.MISSING:
        try:
            # (The type given too: without it, binding a method of a class
            # with a defining class, SimpleQueue.get_nowait's, crashes
            # 3.11 to 3.13.0.)
            return callee.__get__(first, type(first))
        except TypeError:  # not an instance of the method's class
            return None
    return None


#: The callback of each event.
_CALLBACKS: dict[str, Callable[..., object]] = {
    "PY_START": _started, "PY_RESUME": _started, "CALL": _called,
    "C_RETURN": _returned, "C_RAISE": _raised}
