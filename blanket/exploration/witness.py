"""The witness: what Python code an exploration's managed threads started,
seen by a route of its own, checked against what the watch watched or
named before the search says "the whole space".

The watch (:mod:`blanket.exploration.watch`) rewrites the code the threads
run and learns of the code it did not rewrite yet from the threads' calls
(``blanket.exploration.unseen``: a profile function per thread on 3.11,
``sys.monitoring`` tool 4 from 3.12 on). "The whole space" rests on it
having met every function a thread ran. The witness checks that claim
through a different mechanism: from 3.12 on its own ``sys.monitoring``
tool (:data:`TOOL`), ``PY_START`` only, each code object's event turned off
once it is recorded; on 3.11 (or where that tool id is taken) the
thread's trace function (:func:`sys.settrace`, ``"call"`` events only:
nothing traces lines), set around the managed thread's target, chained to
a trace function already there (coverage's, a debugger's).

It records each code object a managed thread started that is the thread's
own: not blanket's, not ``threading``'s, not the import system's or weak
references' bookkeeping (never watched, see
:mod:`blanket.exploration.watch`), and not library code that blanket or
``threading`` ran for themselves (found by the frames above: the first
that is not library code decides, blanket's own frames that call a
thread's target counting as the thread's). What it recorded in the
search's last pass (each restart forgets) that the watch neither rewrote,
nor judged (excluded, named, or run by blanket itself), is a gap:
``"function f at pkg/mod.py:12 ran unwatched (seen by the witness: the
watch neither watched nor named it)"`` in :attr:`Exploration.unseen
<blanket.Exploration.unseen>`, and the search does not
say "the whole space".

What it does not see: code that runs no Python frame (C code: what C
callables do is for the watch's call sites to name, see
:func:`blanket.exploration.sites.call_target`), and, on 3.11, code run
while blanket's own bookkeeping of a call has the thread's hooks off.

What it costs: each code object once per pass from 3.12 on (the event is
turned off where it fired: recorded, or never a thread's own); code that
is library code is seen again at each start (whether it is the thread's
depends on who called it). A trace function on 3.11 costs more: the
interpreter calls it at every frame's start, and every instruction of its
thread runs slower while one is on. So it is on only while the thread runs
its own code: blanket's bookkeeping of a call (most of the calls of a
step, parking included) turns it off with the profile
(``blanket.core.unwatched``, ``blanket.core.quiet_traces``), and
the code objects it met are passed by after one lookup. (Not where
another trace function is on, coverage's or a debugger's: it sees
blanket's code as ever, and the witness's stays on over it.) The thread's
data the witness keeps (``_local``) is blanket's own, put back between
two managed threads like the watch's (see
``blanket.exploration.threadlocals``): the code under test's would keep
the runners from serving another run. Measured on the 2 x 6 locked
sections of ``bench`` (924 runs), a search with the witness takes 1.1
times the time it takes without (3.11 and 3.13t alike).
"""

from __future__ import annotations

import contextlib
import sys
import threading
import types
import typing
from collections.abc import Callable, Iterator
from typing import Any

from ..core import quiet_traces
from .places import UNWATCHED, module_path
from .sites import SETTLED
from .watch import NEVER, TARGET_CALLERS, Transitive, library

#: The ``sys.monitoring`` tool id the witness asks for (the watch has 4;
#: 0-2 and 5 are the debugger's, coverage's, the profiler's and the
#: optimizer's).
TOOL = 3


class _Local(threading.local):
    #: The witness of the calling thread, while it runs a managed target.
    witness: Witness | None = None


_local = _Local()
_users = 0  # the searches monitoring now (nested ones share the tool)


def available() -> bool:
    """Whether this interpreter has ``sys.monitoring`` and :data:`TOOL`
    is free (or the witness's)."""
    monitoring = getattr(sys, "monitoring", None)
    return monitoring is not None and monitoring.get_tool(TOOL) in (None, "blanket witness")


@contextlib.contextmanager
def witnessing() -> Iterator[bool]:
    """The witness's ``sys.monitoring`` tool on while the block runs, if
    :func:`available`; the block is told whether it is (if not, each
    witnessed thread uses a trace function)."""
    if not available():
        yield False
        return
    with _delivering():  # pragma: no cover - Python 3.12 on (make matrix runs it)
        yield True


@contextlib.contextmanager
def _delivering() -> Iterator[None]:  # pragma: no cover - Python 3.12 on (make matrix runs it)
    global _users
    monitor: Any = sys.monitoring  # type: ignore[attr-defined,unused-ignore]
    if _users == 0:
        monitor.use_tool_id(TOOL, "blanket witness")
        monitor.register_callback(TOOL, monitor.events.PY_START, _started)
        monitor.set_events(TOOL, monitor.events.PY_START)
    _users += 1
    try:
        yield
    finally:
        _users -= 1
        if _users == 0:
            monitor.set_events(TOOL, 0)
            monitor.register_callback(TOOL, monitor.events.PY_START, None)
            monitor.free_tool_id(TOOL)


@typing.no_type_check  # pragma: no cover - Python 3.12 on (make matrix runs it)
def _started(code: types.CodeType, offset: int) -> object:
    """``PY_START``: record the code, if a witnessed thread runs it; off
    for good where there is nothing more to learn."""
    if code.co_filename.startswith(UNWATCHED):
        return sys.monitoring.DISABLE
    witness = _local.witness
    if witness is not None and witness.saw(sys._getframe(1)):
        return sys.monitoring.DISABLE
    return None


class Witness:
    """What the managed threads of one search started, as the witness saw it."""

    def __init__(self, monitored: bool = False) -> None:
        #: Whether the events come from the witness's ``sys.monitoring``
        #: tool (see :func:`witnessing`), not from a trace function per thread.
        self.monitored = monitored
        #: The thread's own code objects started since the pass began, by
        #: id: each with where it starts.
        self.started: dict[int, tuple[types.CodeType, str]] = {}
        #: The code objects met that are never a thread's own (blanket's,
        #: ``threading``'s, the import system's, weak references'), by id.
        self.ignored: dict[int, types.CodeType] = {}
        #: Those of :attr:`started` and :attr:`ignored`: a trace function
        #: passes them by.
        self.known: dict[int, types.CodeType] = {}

    def forget(self) -> None:
        """Forget what was started (the search starts a new pass)."""
        self.started.clear()
        self.known.clear()
        self.known.update(self.ignored)
        if self.monitored:  # pragma: no cover - Python 3.12 on (make matrix runs it)
            monitor: Any = sys.monitoring  # type: ignore[attr-defined,unused-ignore]
            monitor.restart_events()  # (what was turned off is seen again)

    @typing.no_type_check  # (typeguard stays off it: it runs at calls)
    def saw(self, frame: types.FrameType) -> bool:
        """*frame* started in a witnessed thread: record its code if it is
        the thread's own; whether it need not be seen again (recorded,
        or never the thread's)."""
        code = frame.f_code
        if id(code) in self.known:
            return True
        scope = frame.f_globals
        if code.co_filename.startswith(UNWATCHED) or str(scope.get("__name__", "")) in NEVER:
            self.ignored[id(code)] = self.known[id(code)] = code
            return True
        if not _own(frame):
            return False  # (library code blanket runs: the threads may run it too)
        place = f"{module_path(code.co_filename, scope)}:{code.co_firstlineno}"
        self.started[id(code)] = (code, place)
        self.known[id(code)] = code
        return True

    # (typeguard stays off it: its checks would run in the thread, called
    # by the target's caller, and the witness would take them for the thread's own code)
    @typing.no_type_check
    def witnessed(self, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``call(*args, **kwargs)`` (a managed thread's target), what it
        starts seen by the witness."""
        previous, _local.witness = _local.witness, self
        try:
            if self.monitored:  # pragma: no cover - Python 3.12 on (make matrix runs it)
                return call(*args, **kwargs)
            return _traced(self, call, *args, **kwargs)
        finally:
            _local.witness = previous

    def gaps(self, transitive: Transitive) -> list[str]:
        """What was started that the watch neither rewrote nor judged (as
        *transitive*, the search's, says), each once."""
        gaps: dict[str, str] = {}
        for code, place in list(self.started.values()):
            if id(code) in SETTLED or transitive.decided(code):
                continue
            gaps.setdefault(place, f"function {code.co_qualname} at {place} ran unwatched "
                            "(seen by the witness: the watch neither watched nor named it)")
        return list(gaps.values())


# (typeguard stays off it: its checks would run in the thread, called
# by the target's caller, and the witness would take them for the thread's own code)
@typing.no_type_check
def _traced(witness: Witness, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``call(*args, **kwargs)`` with a trace function that shows *witness*
    each frame started, then hands the event to the trace function that
    was on (coverage's, a debugger's), if any.

    Alone, the trace function is off while blanket's own bookkeeping of a
    call runs (``blanket.core.quiet_traces``): a trace function on
    makes every instruction of the thread slower, and most of the calls
    there are blanket's."""
    previous: Any = sys.gettrace()
    saw, known = witness.saw, witness.known

    # (typeguard stays off it: it runs at every call; and no coverage
    # measures a trace function, which the interpreter runs untraced)
    @typing.no_type_check
    def trace(frame: types.FrameType, event: str, arg: Any,
              _id: Any = id) -> Any:  # pragma: no cover
        if _id(frame.f_code) not in known:
            saw(frame)
        if previous is None:
            return None
        local = previous(frame, event, arg)
        if sys.gettrace() is not trace:
            # (coverage's tracer, written in C, called from Python puts
            # itself back as the thread's trace function: the witness's again)
            sys.settrace(trace)
        return local

    if previous is None and _QUIETED:  # pragma: no cover - never under coverage (its tracer is on)
        quiet_traces.add(trace)
    sys.settrace(trace)
    try:
        return call(*args, **kwargs)
    finally:
        sys.settrace(previous)
        quiet_traces.discard(trace)


#: Whether a trace function alone is turned off in blanket's bookkeeping
#: (``blanket.core.quiet_traces``): not from 3.12 on, where a trace
#: function is a ``sys.monitoring`` tool's, and setting one re-instruments
#: every function (the witness has its own tool there, and traces only
#: where its id is taken).
_QUIETED = sys.version_info < (3, 12)

#: The witness's own code that calls a thread's target.
_WITNESSED = frozenset({id(Witness.witnessed.__code__), id(_traced.__code__)})


@typing.no_type_check  # (typeguard stays off it: it runs at calls)
def _own(frame: types.FrameType) -> bool:
    """Whether *frame* runs the thread's own code: code outside the
    libraries, or library code that such code called (the first frame up
    that is not library code tells); blanket's and ``threading``'s are
    not, nor is what they call, unless they are what calls the thread's
    target."""
    if frame.f_code.co_filename.startswith(UNWATCHED):
        return False
    while frame is not None:
        code = frame.f_code
        file = code.co_filename
        if file.startswith(UNWATCHED):
            return id(code) in TARGET_CALLERS or id(code) in _WITNESSED
        if not library(file):
            return True
        frame = frame.f_back
    return False
