"""Adoption: the threads and primitives the code under test makes itself
become the scenario's.

A scenario that *adopts* (``Scenario(adopt=True)``; every run of
:func:`blanket.explore` does) rewrites each call of its watched code
(:mod:`blanket.exploration.watch`) so that, when the callee turns out at run time to be
one of ``threading``'s makers, the scenario's own is called instead:

- ``threading.Lock``, ``RLock``, ``Condition``, ``Semaphore``,
  ``BoundedSemaphore``, ``Event``, ``Barrier``, and ``_thread.allocate_lock``
  and ``_thread.RLock``, make the scenario's primitive of that kind
  (``scenario.Lock()``, ...), whose calls park like any other;
- ``threading.Thread(...)`` makes an :class:`AdoptedThread`: a managed
  thread of the scenario, started by its ``start()`` while the scenario
  runs, joined when it exits, whose ``join()`` is a regulated call.

Only calls made by watched code, in threads of the scenario, while it is
entered, are adopted; ``threading`` itself is never patched, so every other
thread, and the code that is not watched, sees the real classes, and
``threading.Lock`` is the real one before, during and after the scenario.
An adopted lock is a blanket primitive, which masquerades as the real one:
``isinstance(lock, threading.Lock)`` is true where ``threading.Lock`` is a
class (3.13), as for ``scenario.Lock()``. A subclass of ``threading.Thread``
(``class Worker(Thread)``) is not adopted: its threads run outside blanket,
and an exploration names them as not seen.

In an exploration an adopted thread's ``start()`` is a step (``A:
A.1 Thread.start``) and so is its end (``A.1: A.1 Thread.exit``), so that
what the thread that started it did before is ordered before what the new
thread does, and what the new thread did before anything a ``join()`` of
it lets go on; a ``join()`` goes once the thread has ended, or, with a
timeout, waits for it in time or expires at once. In a plain scenario
``start()`` starts the thread at once and only ``join()`` parks.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from .. import entry
from ..gate import forever_or_positive, sleep_in
from ..threads import ManagedThread
from ..transaction import CallSpec
from .realprims import Twins
from .sites import watches

if TYPE_CHECKING:  # pragma: no cover
    from ..core import ScenarioCore
    from ..transaction import Transaction

_START = CallSpec("Thread", "start")
_EXIT = CallSpec("Thread", "exit")
_JOIN = CallSpec("Thread", "join", ("timeout",), (None,), 0, None)


class ThreadHandle:
    """What an adopted thread's ``start``, ``join`` and end are calls on, for
    the scheduler: a primitive of kind ``Thread`` named as the thread is."""

    __slots__ = ("_core", "_real", "__weakref__")
    _kind = "Thread"
    _name = None

    def __init__(self, core: ScenarioCore, thread: AdoptedThread) -> None:
        self._core = core
        #: The thread.
        self._real = thread

    @property
    def _label(self) -> str:
        return self._real.name

    def __repr__(self) -> str:
        return f"<blanket.ThreadHandle of {self._real.name!r}>"


def _nothing() -> None:
    """The "real call" of a thread's end: the thread ends after it."""


class AdoptedThread(ManagedThread):
    """A ``threading.Thread`` made by watched code of a scenario that adopts:
    a managed thread, started when its ``start()`` is called.

    It takes ``threading.Thread``'s arguments. Without a *name*, and in an
    exploration whatever *name* says, it is named after the thread that made
    it and how many that thread made: ``"A.1"``, ``"A.2"``, ... (the same in
    every run of an exploration). It is a daemon
    thread whatever *daemon* says: the scenario joins it when it exits.
    """

    def __init__(self, core: ScenarioCore, group: object = None,
                 target: Callable[..., object] | None = None, name: str | None = None,
                 args: Iterable[Any] = (), kwargs: Mapping[str, Any] | None = None, *,
                 daemon: bool | None = None) -> None:
        def body(*args: Any, **kwargs: Any) -> None:
            try:
                if target is not None:
                    target(*args, **kwargs)
            finally:
                if _exploring(core):
                    core.run(self._blanket_handle, _EXIT, (), _nothing)

        super().__init__(core, body, tuple(args), dict(kwargs or {}))
        if group is not None:
            raise ValueError("group argument must be None for now")  # as threading says
        if name is None or _exploring(core):
            # In an exploration, whatever name the code gave: one taken from
            # a process-wide counter (ThreadPoolExecutor's "...-2_0") would
            # differ from run to run, and the steps name their threads.
            parent = threading.current_thread()
            made = getattr(parent, "_blanket_children", 0) + 1
            parent._blanket_children = made  # type: ignore[attr-defined]
            name = f"{parent.name}.{made}"
        self.name = name
        self._blanket_handle = ThreadHandle(core, self)
        if target is not None:
            watch = watches.get(core)  # the watch of the scenario, if entered
            if watch is not None:
                watch.follow(target)

    def start(self) -> None:
        """Start the thread; in an exploration, as a step."""
        core = self._blanket_core
        if _exploring(core) and threading.current_thread() is not core.scheduler:
            core.run(self._blanket_handle, _START, (), self._launch)
        else:
            self._launch()

    def _launch(self) -> None:
        watch = self._blanket_core.watch_thread
        if watch is not None:
            watch(self)
        entry.launch(self._blanket_core, self, super().start)

    def join(self, timeout: float | None = None) -> None:
        """Wait until the thread ends, as ``Thread.join`` does; inside the
        scenario, in a thread other than the scheduler, a regulated call."""
        core = self._blanket_core
        if threading.current_thread() in (core.scheduler, self) \
                or not self._started.is_set():  # type: ignore[attr-defined]
            super().join(timeout)  # (the errors threading raises, at once)
            return
        core.run(self._blanket_handle, _JOIN, (timeout,), super().join, self._join_attempt)

    def _join_attempt(self, core: ScenarioCore, tx: Transaction | None,
                      call: Callable[..., Any], timeout: Any) -> Any:
        if tx is not None and forever_or_positive(timeout, None) and self.is_alive():
            sleep_in(core, tx, call, timeout)
            # Woken by an exit that gave the joiner up: it unwinds.
            core.check_abandoned(tx.thread)
            return None
        return call(timeout)


def _exploring(core: ScenarioCore) -> bool:
    """Whether *core* is an exploration's (it starts its threads in turn):
    there the start and the end of an adopted thread are steps."""
    return core.start_in_turn


def makers(core: ScenarioCore, kinds: Mapping[str, Callable[..., Any]]
           ) -> dict[str, Callable[..., Any]]:
    """What an adopting scenario (its *core* and primitive *kinds*) makes
    instead of each of ``threading``'s makers, by kind."""
    def thread(*args: Any, **kwargs: Any) -> AdoptedThread:
        return AdoptedThread(core, *args, **kwargs)

    # The twins of the real primitives the watched code uses, and of their
    # bound methods (see blanket.exploration.realprims).
    twins = Twins(core, kinds)
    return {**kinds, "Thread": thread, "use": twins.use, "method": twins.method,
            "restore": twins.restore}
