"""What an exploration could not see: threads blanket did not start, real
primitives it does not regulate, blocking calls it cannot cut short.

blanket schedules only calls on a scenario's primitives. A thread started
with ``threading.Thread`` runs free of the scheduler; a real
``threading.Lock`` (one made at import time, say) is taken without a choice
being offered; a ``time.sleep`` lets real time pass. A search that met any of
them has not seen every order of the program, however many schedules it
ran, and must not say it has.

An :class:`Unseen` watches for them with a profile function: in the main
thread while the setup runs (threads it starts), and in each managed
thread while its target runs (threads started, real primitives used,
blocking calls). An exploration gives it the events from
``sys.monitoring`` (:mod:`blanket.exploration.monitor`, from 3.12 on:
turned off for good where they fire in blanket's own code); elsewhere it
is the thread's :func:`sys.setprofile`, per thread, so that threads
outside the exploration pay nothing. Calls made by blanket itself and by the
``threading`` module on its own behalf are left alone: what is named is the
first call that comes from elsewhere, at its file and line.

A thread the watched code makes with ``threading.Thread`` is the
scenario's (:mod:`blanket.exploration.adopt`), and watched like the others once
started; one of a subclass of ``Thread`` is not, and is named.

What it does not catch: a thread started by code running in a thread it
does not watch (a thread started outside is named already), and blocking
calls other than the real primitives' methods and ``time.sleep`` (sockets,
``select``, ...).
"""

from __future__ import annotations

import _thread
import functools
import os
import queue
import sys
import threading
import time
import types
import typing
from collections.abc import Callable, Iterable
from types import FrameType
from typing import TYPE_CHECKING, Any

from .. import sleepers
from . import monitor
from .places import BLANKET_FOLDER
from .sites import SETTLED, opaque
from .threadingcode import FILE as _THREADING
from .threadingcode import JOIN, PY_PRIMITIVES, THREAD_HANDLE, TSTATE_WAIT
from .watch import TARGET_CALLERS, Transitive
from .witness import Witness

if TYPE_CHECKING:  # pragma: no cover
    from ..core import ScenarioCore

# The C primitives, by type: their methods are builtins (a profile's
# "c_call"), including __exit__, which a ``with`` block calls.
_C_PRIMITIVES: dict[type, str] = {type(_thread.allocate_lock()): "Lock", _thread.RLock: "RLock",
                                   **({sleepers.SEMLOCK: "SemLock"} if sleepers.SEMLOCK
                                      else {})}
# The other builtins that are noted: what is met, and the note.
_C_CALLS = {
    id(time.sleep): ("time.sleep", "blocking call time.sleep"),
    id(_thread.start_new_thread):
        ("_thread.start_new_thread",
         "thread started outside blanket by _thread.start_new_thread"),
}
_THREAD_START = id(_thread.start_new_thread)
_PUTS = frozenset({"put", "put_nowait"})
# The callables that are C code (a builtin, a C type's method).
_C_CODE = frozenset({types.BuiltinFunctionType, types.MethodWrapperType,
                     types.MethodDescriptorType, types.WrapperDescriptorType})

Profile = Callable[[FrameType, str, Any], object]


def _probe() -> None:
    """A call for a thread's new profile to see."""


_PROBE = _probe.__code__


def _profiling(hook: Profile) -> bool:
    """Make *hook* the calling thread's profile; whether the interpreter
    reports calls to it (a probe is set first, to see one call).

    CPython 3.13t (3.13.5) can leave a thread's profile silent, no event at
    all while the thread runs: seen in the first run of a process, in the
    first thread a runner ran (a search said "the whole space" of a thread
    it did not see). Set a second time, the probe has always seen its call;
    a probe silent twice is a gap. Only the probe's own call counts: 3.13t
    sometimes shows a new profile the return of the very ``setprofile``
    call that set it (about 1 search in 15 said "the whole space" of
    threads whose probe had been silent)."""
    seen: list[str] = []
    for _ in range(2):
        sys.setprofile(lambda frame, event, arg:
                       seen.extend((event,) if frame.f_code is _PROBE else ()))
        _probe()
        sys.setprofile(None)
        if seen:
            break
    sys.setprofile(hook)
    return bool(seen)


def _ours(filename: str) -> bool:
    """Whether code in *filename* is blanket's or threading's own."""
    return filename.startswith(BLANKET_FOLDER) or filename == _THREADING


def _given_up() -> bool:
    """Whether the calling thread is one its scenario gave up on: it
    unwinds, its calls going straight to the real primitives (not a gap in
    what the run saw: the run is over)."""
    thread = threading.current_thread()
    core = getattr(thread, "_blanket_core", None)
    return core is not None and thread in core.abandoned


def _site(frame: FrameType) -> str:
    return f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}"


@typing.no_type_check  # (typeguard stays off it: a profile function calls it)
def _join(frame: FrameType, wait: Any) -> None:
    """*frame*, threading's, calls *wait* (a builtin): if it is the sleep of
    a ``Thread.join`` with no timeout that code not blanket's called, the
    joiner is asleep until the thread joined ends (told to
    :func:`blanket.sleepers.real_join`): a thread blanket did not start
    (one the code made before its code was watched) may be parked, and
    nothing then moves until the scheduler acts."""
    local = frame.f_locals
    if frame.f_code is TSTATE_WAIT:  # 3.11, 3.12: join -> _wait_for_tstate_lock
        forever = local["block"] and local["timeout"] == -1 and wait.__name__ == "acquire"
    else:  # 3.13: join -> _ThreadHandle.join
        forever = frame.f_code is JOIN and local["timeout"] is None
    caller = frame.f_back
    while caller is not None and caller.f_code.co_filename == _THREADING:
        caller = caller.f_back
    if forever and caller is not None and not _ours(caller.f_code.co_filename) \
            and not _given_up():
        sleepers.real_join(wait, local["self"], _site(caller))


class Unseen:
    """What the runs of one exploration met outside blanket's control, as
    sentences in the order first met (each once)."""

    def __init__(self) -> None:
        # Keyed by what was met and the function it was met in (a thread's
        # name differs run to run): each gap once, at the first place met.
        self._notes: dict[tuple[str, ...], str] = {}
        #: What the exploration watches: the code a thread runs that is not
        #: watched yet is met there (``None``: nothing is watched).
        self.transitive: Transitive | None = None
        #: Whether the events come from ``sys.monitoring`` (while an
        #: exploration monitors, see :mod:`blanket.exploration.monitor`),
        #: not from a profile function per thread.
        self.monitored = False
        #: What sees, by a route of its own, the code the threads start
        #: (:mod:`blanket.exploration.witness`), if anything.
        self.witness: Witness | None = None
        #: The scenario core of the run whose setup runs, if one does: the
        #: threads it starts outside blanket are the run's outsiders
        #: (:mod:`blanket.outsiders`).
        self.core: ScenarioCore | None = None

    @property
    def notes(self) -> list[str]:
        """What was met, e.g. ``"real Lock used at cache.py:14"``."""
        reached = [] if self.transitive is None else list(self.transitive.notes.values())
        return list(self._notes.values()) + reached

    def forget(self) -> None:
        """Forget what was met (the search starts again, with more of the
        code watched), and so does the :attr:`witness`; what
        :attr:`transitive` noted stays."""
        self._notes.clear()
        if self.witness is not None:
            self.witness.forget()

    def _note(self, what: str, frame: FrameType, note: str) -> None:
        code = frame.f_code
        key = (what, code.co_filename, code.co_qualname)
        if key not in self._notes:
            self._notes[key] = f"{note} at {_site(frame)}"

    # -- the profile functions ---------------------------------------------

    # The profile functions are not type-checked at run time (typing's
    # no_type_check keeps typeguard off them): they run at every call.

    @typing.no_type_check
    def _starts(self, frame: FrameType, event: str, arg: Any) -> None:
        """Note threads started (the setup's profile)."""
        if event == "call":
            if frame.f_code.co_filename == _THREADING and frame.f_code.co_name == "start":
                self._threading_call(frame)
        elif event == "c_call" and id(arg) == _THREAD_START:
            self._c_call(frame, _C_CALLS[_THREAD_START])

    @typing.no_type_check
    def _uses(self, frame: FrameType, event: str, arg: Any) -> bool:
        """Note threads started, real primitives used and blocking calls (a
        managed thread's profile); true for a call of code it will never
        note anything of (see :mod:`blanket.exploration.monitor`).

        It runs at every call and return of the thread, blanket's own
        included, so the events that note nothing (returns, most calls)
        leave after a comparison or two."""
        if event == "c_call":
            owner = getattr(arg, "__self__", None)
            kind = _C_PRIMITIVES[type(owner)] if type(owner) in _C_PRIMITIVES else None
            if type(owner) is queue.SimpleQueue:
                # A get of an empty queue sleeps until a put: named, and its
                # thread is asleep for good while no other can put.
                name = arg.__name__
                if name == "get" and owner.empty() and self._c_call(
                        frame, ("SimpleQueue.get", "blocking call SimpleQueue.get")):
                    sleepers.real_call("SimpleQueue", arg, _site(frame))
                elif name in _PUTS and sleepers.acquiring:
                    sleepers.put(owner)  # it wakes a sleeper there, if any
            elif kind is not None:
                if self._c_call(frame, (kind, f"real {kind} used")):
                    # Who waits for and holds which real lock: the deadlock
                    # report names them (blanket.sleepers).
                    sleepers.real_call(kind, arg, _site(frame))
                elif frame.f_code is TSTATE_WAIT:
                    _join(frame, arg)
            elif type(owner) is THREAD_HANDLE:
                _join(frame, arg)
            else:
                noted = _C_CALLS[id(arg)] if id(arg) in _C_CALLS else None
                if noted is not None:
                    self._c_call(frame, noted)
        elif event == "call":
            code = frame.f_code
            if code.co_filename == _THREADING:
                self._threading_call(frame)
                return False
            transitive = self.transitive
            if id(code) in SETTLED or transitive is None:
                return True
            if id(code) not in transitive.judged:
                transitive.met(frame)  # Python code the run does not watch
            return id(code) in transitive.judged
        elif (sleepers.acquiring or sleepers.woken) and event[0] == "c":  # c_return, c_exception
            sleepers.real_return(arg, event == "c_return")
        return False

    def _c_call(self, frame: FrameType, noted: tuple[str, str]) -> bool:
        """A builtin that is noted was called in *frame*: note it unless
        blanket or threading called it, or a thread given up on unwinds;
        whether it was noted."""
        if not _ours(frame.f_code.co_filename) and not _given_up():
            self._note(noted[0], frame, noted[1])
            return True
        return False

    def _threading_call(self, frame: FrameType) -> None:
        """*frame* runs a function of the threading module: note a real
        primitive used, a thread started or joined, unless blanket or
        threading itself called it, or a thread given up on unwinds."""
        caller = frame.f_back
        if caller is None or _ours(caller.f_code.co_filename):
            # (an adopted thread, blanket.exploration.adopt, is watched as the
            # run's own threads are: the run's core.watch_thread)
            return
        if _given_up():
            return
        this = frame.f_locals.get("self")
        if isinstance(this, PY_PRIMITIVES):
            kind = type(this).__name__
            self._note(kind, caller, f"real {kind} used")
        elif isinstance(this, threading.Thread):
            name = frame.f_code.co_name
            if name == "join":
                self._note("join", caller, "blocking call Thread.join")
            elif name == "start":
                self._note("thread", caller,
                           f"thread {this.name!r} started outside blanket")
                # The scheduler waits for it as it may act on the run's
                # primitives (blanket.outsiders).
                core = getattr(threading.current_thread(), "_blanket_core", self.core)
                if core is not None:
                    core.outsiders.add(this)

    def ran_on(self, threads: Iterable[threading.Thread], timeout: float) -> None:
        """Note *threads*, outsiders of a run (:mod:`blanket.outsiders`)
        that ran on unseen: the run stopped waiting for them after
        *timeout* seconds."""
        for thread in threads:
            target = getattr(thread, "_target", None)  # (a thread's name has its number)
            key = ("outsider", getattr(target, "__qualname__", thread.name))
            if key not in self._notes:
                self._notes[key] = (
                    f"thread {thread.name!r}, outside blanket, ran on unseen: it neither "
                    "called the scenario's primitives nor slept where blanket sees it "
                    f"within {timeout:g} s, and was not waited for after")

    # -- watching -------------------------------------------------------------

    def setup(self, call: Callable[[], Any], core: ScenarioCore | None = None) -> Any:
        """Run *call* (a setup of the scenario *core*), noting the threads
        it starts."""
        self.core = core
        try:
            return self._watching(self._starts, call)
        finally:
            self.core = None

    def watch(self, thread: threading.Thread) -> None:
        """Watch what *thread* (a managed thread not yet started) does."""
        target: Callable[..., Any] = thread._target  # type: ignore[attr-defined]
        called = target
        while type(called) is functools.partial:
            called = called.func
        if self.transitive is not None and (type(called) in _C_CODE or opaque(called)):
            # Its own access (getattr(obj, "name"), shared.append) is made by
            # no watched code, so nothing records it.
            name = getattr(called, "__qualname__", repr(called))
            self._notes.setdefault(("target", name), f"thread target {name} is C code: "
                                   "what it does itself is not watched (call it from a "
                                   "function)")

        witness = self.witness

        def watched(*args: Any, **kwargs: Any) -> Any:
            if witness is not None:
                return witness.witnessed(self._watching, self._uses, target, *args, **kwargs)
            return self._watching(self._uses, target, *args, **kwargs)

        thread._target = watched  # type: ignore[attr-defined]

    # (typeguard stays off it: its checks would run in the thread, called
    # by the target's caller, and the witness would take them for the thread's own code)
    @typing.no_type_check
    def _watching(self, hook: Profile, call: Callable[..., Any], *args: Any,
                  **kwargs: Any) -> Any:
        if self.monitored:  # pragma: no cover - Python 3.12 on (make matrix runs it)
            return monitor.watching(hook, call, *args, **kwargs)
        previous: Any = sys.getprofile()  # typeshed narrows the events to literals
        if previous is not None and not callable(previous):
            # A profiler written in C (cProfile's, before 3.12, when it
            # became a sys.monitoring tool): Python cannot call it along with
            # the hook, nor put it back once replaced. It stays; what the
            # hook would have seen goes unseen, and is said so.
            self._notes.setdefault(("profiler", ""), "nothing watched where a profiler "
                                   "written in C (cProfile) was on")
            return call(*args, **kwargs)
        if previous is None:
            if not _profiling(hook):
                self._notes.setdefault(("profile", ""), "a thread's profile saw no call (the "
                                       "interpreter did not start it): what it ran unwatched "
                                       "is not known")
        else:  # a profiler is on (cProfile, ...): it sees every event still
            @typing.no_type_check
            def both(frame: FrameType, event: str, arg: Any) -> None:
                hook(frame, event, arg)
                previous(frame, event, arg)
            sys.setprofile(both)
        try:
            return call(*args, **kwargs)
        finally:
            sys.setprofile(previous)


for _caller in (Unseen._watching, monitor.watching):
    TARGET_CALLERS[id(_caller.__code__)] = _caller.__code__
