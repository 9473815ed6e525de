"""Runners: operating-system threads started ahead of time, on which an
exploration's managed threads run.

An exploration runs its scenario hundreds of times, and every run starts
fresh managed threads. Starting a thread makes the starter wait until the
new thread has run for the first time, and on a busy machine the
operating system makes a new thread wait behind everything else that is
ready to run (about a millisecond, often more), where a sleeping thread
that is woken runs at once. So :class:`Runners` keeps threads that were
started earlier and sleep until they are given a managed thread to run:
starting a managed thread wakes one. Before each run the exploration
reserves runners for it, started while the run before it ran.

Each runner runs one managed thread and ends with it, as a thread of its
own would: the managed thread's ``threading.Thread`` object is the one
``threading.current_thread()`` returns, with its name and ``ident``; it
starts with no thread-local data left by an earlier run; and ``join()`` and
``is_alive()`` work as usual (the runner was started the way
``Thread.start`` starts threads, so the interpreter tells when it ends).
Runners left over when the exploration ends are told to end, and waited
for: nothing is left running.

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
import queue
import sys
import threading
from collections.abc import Callable
from typing import Any

from ..holdback import interrupts_held_back

# What a runner is given: a managed thread's bootstrap, or None (end now).
_Task = Callable[[], Any] | None


class _Sentinel:
    """How a runner is started and known to be gone on Python 3.11 and
    3.12: a runner that ends without a task sets up the lock the
    interpreter releases once the thread is gone (as ``Thread.start``'s
    threads do: ``Thread._tstate_lock``)."""

    __slots__ = ("_gone",)

    def __init__(self, serve: Callable[[], None]) -> None:
        self._gone: queue.SimpleQueue[Any] = queue.SimpleQueue()
        _thread.start_new_thread(serve, ())

    def adopt(self, thread: threading.Thread) -> None:
        """*thread* runs on this runner (its bootstrap sets up its own lock)."""

    def ending(self) -> None:
        """Called by the runner as it ends without a task."""
        gone = _thread._set_sentinel()  # type: ignore[attr-defined]
        gone.acquire()
        self._gone.put(gone)

    def wait(self, timeout: float) -> bool:
        """Whether the runner, told to end, is gone within *timeout* seconds."""
        try:
            gone = self._gone.get(True, timeout)
        except queue.Empty:  # pragma: no cover - a runner the system never ran
            return False
        return bool(gone.acquire(True, timeout))


class _Handle:  # pragma: no cover - Python 3.13 and later (make matrix runs it)
    """How a runner is started and joined on Python 3.13 and later: through
    a thread handle, which the managed thread it runs takes over."""

    __slots__ = ("_handle",)

    def __init__(self, serve: Callable[[], None]) -> None:
        self._handle = _thread._ThreadHandle()  # type: ignore[attr-defined]
        _thread.start_joinable_thread(  # type: ignore[attr-defined]
            serve, handle=self._handle, daemon=True)

    def adopt(self, thread: threading.Thread) -> None:
        """*thread* runs on this runner: its join and is_alive ask the handle."""
        thread._handle = self._handle  # type: ignore[attr-defined]

    def ending(self) -> None:
        """Called by the runner as it ends without a task."""

    def wait(self, timeout: float) -> bool:
        """Whether the runner, told to end, is gone within *timeout* seconds."""
        self._handle.join(timeout)
        return bool(self._handle.is_done())


_Exit = _Handle if hasattr(_thread, "start_joinable_thread") else _Sentinel


def _silent(frame: object, event: str, arg: object) -> None:
    """The keeper's profile function: it notes nothing (the keeper only
    sleeps)."""


class _Runner:
    """One started operating-system thread, asleep until it gets its task."""

    __slots__ = ("_tasks", "exit")

    def __init__(self) -> None:
        self._tasks: queue.SimpleQueue[_Task] = queue.SimpleQueue()
        #: How it was started, and how to know it is gone.
        self.exit: _Sentinel | _Handle = _Exit(self._serve)

    def _serve(self) -> None:  # pragma: no cover - traced from _work on only
        # Under the hooks threading gives the threads it starts (a
        # debugger's, coverage's), as the managed thread will be.
        # (None is what a new thread has: on the free-threaded build
        # setting a hook stops every thread, even to set it to None.)
        if threading.gettrace() is not None:
            sys.settrace(threading.gettrace())
        if threading.getprofile() is not None:
            sys.setprofile(threading.getprofile())
        self._work()

    def _work(self) -> None:
        task = self._tasks.get()
        if task is None:
            self.exit.ending()
        else:
            task()

    def run(self, task: Callable[[], Any]) -> None:
        """Wake the runner to do *task*, then end."""
        self._tasks.put(task)

    def end(self) -> None:
        """Wake the runner to end without a task."""
        self._tasks.put(None)


class Runners:
    """The sleeping threads of one exploration (see the module).

    :meth:`reserve` gets runners going ahead of a run, :meth:`start` starts
    a managed thread on one of them, :meth:`close` ends those left over. A
    ``Runners`` that is closed starts no more.
    """

    def __init__(self, keep_profile: bool = True) -> None:
        # Oldest first: the longer a runner has had, the surer it is going.
        self._idle: collections.deque[_Runner] = collections.deque()
        self._closed = False
        # The keeper of a profile function (see the module), asleep on a
        # lock until close() releases it; none where the exploration's
        # threads have no profile function (it sees them through
        # sys.monitoring, and a profile on anywhere slows every thread).
        self._profiling = _thread.allocate_lock()
        self._profiling.acquire()
        self._keeper: _Runner | None = None
        if keep_profile:
            self._keeper = _Runner()
            self._keeper.run(self._keep_profiling)

    def _keep_profiling(self) -> None:
        """The keeper's task: a profile function on until :meth:`close`."""
        sys.setprofile(_silent)
        self._profiling.acquire()
        sys.setprofile(None)
        assert self._keeper is not None
        self._keeper.exit.ending()

    @property
    def idle(self) -> int:
        """How many runners sleep, waiting for a thread to run."""
        return len(self._idle)

    def reserve(self, count: int) -> None:
        """Get ready for a run that starts *count* threads: keep twice as
        many runners, so that this run's threads run on runners started
        for the runs before it (they have had the time to get going), and
        the next run's get going while this one runs."""
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
        runner = self._idle.popleft() if self._idle else _Runner()
        with threading._active_limbo_lock:  # type: ignore[attr-defined]
            threading._limbo[thread] = thread  # type: ignore[attr-defined]
        runner.exit.adopt(thread)
        runner.run(thread._bootstrap)  # type: ignore[attr-defined]
        if wait:
            thread._started.wait()  # type: ignore[attr-defined]

    def close(self, timeout: float = 10.0) -> bool:
        """End the runners left over and the keeper of a profile function,
        and wait (at most *timeout* seconds each) until they are gone;
        return whether all are."""
        with interrupts_held_back():  # every runner is told, or none is lost
            ending, self._idle = list(self._idle), collections.deque()
            for runner in ending:
                runner.end()
            if not self._closed:
                self._profiling.release()
                if self._keeper is not None:
                    ending.append(self._keeper)
            self._closed = True
        return all([runner.exit.wait(timeout) for runner in ending])
