"""Runners: operating-system threads on which an exploration's managed
threads run, started ahead of time and kept from one run to the next.

An exploration runs its scenario hundreds of times, and every run starts
fresh managed threads. Starting an operating-system thread makes the
starter wait until the new thread has run for the first time, and on a
busy machine the operating system makes a new thread wait behind
everything else that is ready to run (about a millisecond, often more),
where a sleeping thread that is woken runs at once. On the free-threaded
build a thread's start and end cost more: each sets up and then hands
over its memory allocator's heaps, and every thread that ends walks what
the threads before it left (the 924-order benchmark of ``make bench``
went from 2.95 s to 2.36 s there when runners were kept). So
:class:`Runners` keeps threads that sleep until they are given a managed
thread to run, and go back to sleep once it is over, for a managed
thread of a later run (from the :data:`REUSED_FROM`-th run on: a short
search is quicker on fresh threads). Before each run the exploration
reserves runners for it.

What the code under test sees is a thread of its own: the managed
thread's ``threading.Thread`` object is the one
``threading.current_thread()`` returns, with its name and ``ident``;
``join()`` and ``is_alive()`` work as usual (the runner tells when the
managed thread is over, through the lock ``Thread.join`` waits for on
Python 3.11 and 3.12, through a handle of its own from 3.13 on); it starts
with an empty :mod:`contextvars` context and the trace and profile
functions ``threading`` gives the threads it starts; and it finds no
thread-local data left by an earlier run: runners are reused only while
no run's threads left data in a ``threading.local`` that outlives the run
(see :mod:`blanket.exploration.threadlocals`; blanket's own thread-local
data is cleared between two managed threads). Runners left over when the
exploration ends are told to end, and waited for: nothing is left
running.

Where the threads are watched by profile functions (3.11, or where
``sys.monitoring``'s tool id is taken: see
:mod:`blanket.exploration.monitor`), one more runner keeps a profile
function set, asleep, for as long as the exploration runs
(:meth:`Runners.close` ends it). From Python 3.12 on a
thread's profile function is a ``sys.monitoring`` tool of the whole
interpreter: when the last thread that has one turns it off, the
instrumentation of every function is taken out (each at its next call),
and put back when one turns it on again. A managed thread's profile goes
off around blanket's bookkeeping of each of its calls
(:func:`blanket.core.unwatched`), and the runs' threads come and go; with
the keeper's on, the count never falls to zero, and turning a profile off
and on costs two assignments, as on 3.11 (on the free-threaded build the
924-order benchmark of ``make bench`` went from 5.8 s to 4.5 s with it).
"""

from __future__ import annotations

import _thread
import collections
import contextvars
import queue
import sys
import threading
from collections.abc import Callable
from typing import Any

from ..holdback import interrupts_held_back
from .threadlocals import BLANKETS, Locals

# What a runner is given: a task, which says whether the runner waits for
# another once it is done (the keeper's says nothing: false), or None (end
# now).
_Task = Callable[[], Any] | None


class _Sentinel:
    """How a runner is started and known to be gone on Python 3.11 and
    3.12: a runner that ends sets up the lock the interpreter releases
    once the thread is gone (as ``Thread.start``'s threads do:
    ``Thread._tstate_lock``; a managed thread's own was released by the
    runner, see :class:`_Released`)."""

    __slots__ = ("_gone",)

    def __init__(self, serve: Callable[[], None]) -> None:
        self._gone: queue.SimpleQueue[Any] = queue.SimpleQueue()
        _thread.start_new_thread(serve, ())

    def ending(self) -> None:
        """Called by the runner as it ends."""
        gone = _thread._set_sentinel()  # type: ignore[attr-defined]
        gone.acquire()
        self._gone.put(gone)

    def wait(self, timeout: float) -> bool:
        """Whether the runner, ending, is gone within *timeout* seconds."""
        try:
            gone = self._gone.get(True, timeout)
        except queue.Empty:  # pragma: no cover - a runner the system never ran
            return False
        return bool(gone.acquire(True, timeout))


class _Handle:  # pragma: no cover - Python 3.13 and later (make matrix runs it)
    """How a runner is started and joined on Python 3.13 and later: through
    a thread handle (its managed threads have handles of their own, see
    :class:`_Ended`)."""

    __slots__ = ("_handle",)

    def __init__(self, serve: Callable[[], None]) -> None:
        self._handle = _thread._ThreadHandle()  # type: ignore[attr-defined]
        _thread.start_joinable_thread(  # type: ignore[attr-defined]
            serve, handle=self._handle, daemon=True)

    def ending(self) -> None:
        """Called by the runner as it ends."""

    def wait(self, timeout: float) -> bool:
        """Whether the runner, ending, is gone within *timeout* seconds."""
        self._handle.join(timeout)
        return bool(self._handle.is_done())


class _Released:
    """How a managed thread is known to be over on Python 3.11 and 3.12:
    ``Thread.join`` waits for the lock its bootstrap sets up
    (``Thread._tstate_lock``), which the interpreter releases when the
    thread ends; on a runner, the runner releases it once the managed
    thread is over."""

    __slots__ = ("_thread",)

    def __init__(self, thread: threading.Thread) -> None:
        self._thread: threading.Thread | None = thread

    def started(self) -> None:
        """Called by the runner as the managed thread starts."""

    def over(self) -> None:
        """Called by the runner once the managed thread is over (it keeps
        the thread no longer)."""
        thread, self._thread = self._thread, None
        thread._tstate_lock.release()  # type: ignore[union-attr]


class _Ended:  # pragma: no cover - Python 3.13 and later (make matrix runs it)
    """How a managed thread is known to be over on Python 3.13 and later:
    what its ``join`` and ``is_alive`` ask in place of the handle of a
    thread of its own (``Thread._handle``)."""

    __slots__ = ("_running", "ident")

    def __init__(self, thread: threading.Thread) -> None:
        self._running = _thread.allocate_lock()
        self._running.acquire()
        self.ident = 0
        thread._handle = self  # type: ignore[attr-defined]

    def started(self) -> None:
        """Called by the runner as the managed thread starts."""
        self.ident = threading.get_ident()

    def over(self) -> None:
        """Called by the runner once the managed thread is over."""
        self._running.release()

    def join(self, timeout: float | None = None) -> None:
        """Wait until the managed thread is over (at most *timeout* seconds)."""
        if self._running.acquire(True, -1 if timeout is None else timeout):
            self._running.release()

    def is_done(self) -> bool:
        """Whether the managed thread is over."""
        return not self._running.locked()


_JOINABLE = hasattr(_thread, "start_joinable_thread")  # Python 3.13 on
_Exit = _Handle if _JOINABLE else _Sentinel
_Over = _Ended if _JOINABLE else _Released


def _forget() -> None:
    """Put back what a managed thread over may have changed of its
    runner's thread that blanket or ``threading`` set: blanket's
    thread-local data (the watch's record, the monitor's hook), and the
    trace and profile functions ``threading`` gives the threads it starts.
    (A hook is set only if it changed: on the free-threaded build setting
    one stops every thread.)"""
    for own in BLANKETS:
        own.__dict__.clear()
    hooks: tuple[tuple[Any, Callable[[Any], object], Any], ...] = (
        (sys.gettrace(), sys.settrace, threading.gettrace()),
        (sys.getprofile(), sys.setprofile, threading.getprofile()))
    for now, put, wanted in hooks:
        if now is not wanted:
            put(wanted)


def _silent(frame: object, event: str, arg: object) -> None:
    """The keeper's profile function: it notes nothing (the keeper only
    sleeps)."""


class _Runner:
    """One started operating-system thread, asleep until it gets a task."""

    __slots__ = ("_tasks", "exit", "run")

    def __init__(self) -> None:
        self._tasks: queue.SimpleQueue[_Task] = queue.SimpleQueue()
        #: The number of the run whose managed thread it was given last
        #: (-1: none yet).
        self.run = -1
        #: How it was started, and how to know it is gone.
        self.exit: _Sentinel | _Handle = _Exit(self._serve)

    def _serve(self) -> None:  # pragma: no cover - not traced: see below
        # Under the hooks threading gives the threads it starts (a
        # debugger's, coverage's), as the managed thread will be.
        # (None is what a new thread has: on the free-threaded build
        # setting a hook stops every thread, even to set it to None.)
        # Coverage sees none of this frame: the hook is set here, and set
        # anew by each managed thread's start.
        if threading.gettrace() is not None:
            sys.settrace(threading.gettrace())
        if threading.getprofile() is not None:
            sys.setprofile(threading.getprofile())
        while (task := self._tasks.get()) is not None and task():
            pass
        self.exit.ending()

    def give(self, task: Callable[[], Any]) -> None:
        """Wake the runner to do *task*; then it sleeps again if the task
        returns true, else it ends."""
        self._tasks.put(task)

    def end(self) -> None:
        """Wake the runner to end without a task."""
        self._tasks.put(None)


#: The runs of an exploration whose threads run on runners of their own:
#: runners are reused from the next run on. Before reusing them, and again
#: once the search ends, the exploration looks over every object alive for
#: thread-local ones (see blanket.exploration.threadlocals), which costs
#: more than the threads of a few runs cost to start: a search of a few
#: runs (a linearizability check makes many) is quicker on fresh threads.
REUSED_FROM = 16


class Runners:
    """The sleeping threads of one exploration (see the module).

    :meth:`reserve` gets runners going ahead of a run, :meth:`start` starts
    a managed thread on one of them, :meth:`run_over` says a run is over,
    :meth:`close` ends those left over. With *reuse* false, in the first
    :data:`REUSED_FROM` runs, or once a run's threads left thread-local
    data, each runner runs one managed thread and ends with it. A
    ``Runners`` that is closed starts no more.
    """

    def __init__(self, keep_profile: bool = True, reuse: bool = True) -> None:
        # Guards what runners coming back and the exploring thread share:
        # the idle ones, those leaving, the run's number, whether to reuse.
        self._lock = _thread.allocate_lock()
        # Oldest first: the longer a runner has had, the surer it is going.
        self._idle: collections.deque[_Runner] = collections.deque()
        # Runners that ran a managed thread and end: close() waits for them.
        self._leaving: list[_Runner] = []
        self._closed = False
        #: The number of the run going on (counted by :meth:`run_over`).
        self.runs = 0
        # The thread-local objects alive when runners began to be reused
        # (see the module), and whether they are: from the run numbered
        # REUSED_FROM on, when asked to.
        self._locals: Locals | None = None
        self._reuse = reuse
        self._reusing = False
        #: Whether a managed thread ran on a runner that had run one before.
        self.reused = False
        # The keeper of a profile function (see the module), asleep on a
        # lock until close() releases it; none where the exploration's
        # threads have no profile function (it sees them through
        # sys.monitoring, and a profile on anywhere slows every thread).
        self._keeper: tuple[_Runner, Any] | None = None
        if keep_profile:
            profiling = _thread.allocate_lock()
            profiling.acquire()
            self._keeper = (_Runner(), profiling)
            self._keeper[0].give(lambda: _keep_profiling(profiling))

    @property
    def idle(self) -> int:
        """How many runners sleep, waiting for a thread to run."""
        return len(self._idle)

    def reserve(self, count: int) -> None:
        """Get ready for a run that starts *count* threads: keep twice as
        many runners, so that this run's threads run on runners that have
        had the time to get going, and the next run's are ready too."""
        while len(self._idle) < 2 * count:
            self._idle.append(_Runner())

    def start(self, thread: threading.Thread, wait: bool = True) -> None:
        """Start *thread* (``Thread.start``, with its checks) on the runner
        that has waited longest (or on a new one if none waits); with *wait*
        false, return without waiting for it to begin (the caller waits for
        something it does later)."""
        if self._closed:
            raise RuntimeError("the exploration's runners are closed")
        if thread._started.is_set():  # type: ignore[attr-defined]
            raise RuntimeError("threads can only be started once")
        with self._lock:
            runner = self._idle.popleft() if self._idle else _Runner()
            self.reused = self.reused or runner.run >= 0
            runner.run = self.runs
        with threading._active_limbo_lock:  # type: ignore[attr-defined]
            threading._limbo[thread] = thread  # type: ignore[attr-defined]
        # The runner takes the thread out of its task: a task is kept until
        # the next, and what it kept (the thread, its run's scenario and
        # log, a given-up thread's frames) would outlive the run, seen by
        # the next run's setup (an object in a weak registry).
        job = [(thread, _Over(thread))]
        runner.give(lambda: self._run(runner, job))
        if wait:
            thread._started.wait()  # type: ignore[attr-defined]

    def _run(self, runner: _Runner,  # pragma: no cover - see below
             job: list[tuple[threading.Thread, _Released | _Ended]]) -> bool:
        """*runner*'s task: run the thread *job* holds (taking it out), and
        say whether the runner waits for another (it does if reuse is on
        and the thread's run is not over yet: a thread given up by its run
        never serves another)."""
        # (Coverage sees this frame up to the thread's start only: the
        # start sets the trace function anew, see _serve.)
        thread, over = job.pop()
        over.started()
        try:
            contextvars.Context().run(thread._bootstrap)  # type: ignore[attr-defined]
            # (nor this frame: a given-up thread's traceback keeps it)
            del thread
            return self._back(runner)
        finally:
            over.over()

    def _back(self, runner: _Runner) -> bool:
        """*runner*'s managed thread is over: whether it goes back to sleep
        for another, or ends."""
        _forget()
        with self._lock:
            back = self._reusing and runner.run == self.runs and not self._closed
            (self._idle if back else self._leaving).append(runner)
        return back

    def run_over(self) -> None:
        """A run is over: its threads are joined or given up. If they left
        data in a ``threading.local`` (see the module), no runner is
        reused from now on: those asleep are told to end."""
        with self._lock:
            self.runs += 1
            if self._reuse and self.runs == REUSED_FROM:
                self._locals, self._reusing = Locals(), True
            if self._locals is None or not self._reusing or not self._locals.gained():
                return
            self._reusing = False
            ending, self._idle = list(self._idle), collections.deque()
            self._leaving += ending
        for runner in ending:
            runner.end()

    @property
    def shared(self) -> bool:
        """Whether the runs may have shared thread-local data: runners were
        reused, and a ``threading.local`` made during the search is alive
        (see :meth:`blanket.exploration.threadlocals.Locals.made_since`)."""
        return self.reused and self._locals is not None and self._locals.made_since()

    def close(self, timeout: float = 10.0) -> bool:
        """End the runners left over and the keeper of a profile function,
        and wait (at most *timeout* seconds each) until they and those that
        ran a managed thread and end are gone; return whether all are."""
        with interrupts_held_back():  # every runner is told, or none is lost
            with self._lock:
                ending, self._idle = list(self._idle), collections.deque()
                gone, self._leaving = self._leaving + ending, []
                first, self._closed = not self._closed, True
            for runner in ending:
                runner.end()
            if first and self._keeper is not None:
                self._keeper[1].release()
                gone.append(self._keeper[0])
        return all([runner.exit.wait(timeout) for runner in gone])


def _keep_profiling(profiling: Any) -> None:
    """The keeper's task: a profile function on until *profiling* (a lock
    it waits for) is released by :meth:`Runners.close`."""
    sys.setprofile(_silent)
    profiling.acquire()
    sys.setprofile(None)
