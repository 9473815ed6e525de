"""The public :class:`Scenario`: primitives, managed threads, entering and exiting."""

from __future__ import annotations

import itertools
import threading
import types
from collections.abc import Callable, Iterator, Mapping, Set
from typing import Any

from . import checks, driving, entry, primitives, progress, script, waiting
from .api import API_CLASSES, PrimitiveAPI
from .core import ScenarioCore
from .errors import DeadlockError, StallError, WorkerError
from .exploration.adopt import makers
from .exploration.watch import Watch
from .gate import Primitive, label
from .holdback import ExitGuard, interrupts_held_back, join_threads
from .inject import Injection
from .log import Log
from .seconds import check_seconds
from .signals import to_token
from .threads import ManagedThread
from .timeline import format_timeline
from .transaction import Transaction

_numbers = itertools.count(1)


class _Handles(Mapping[Primitive, Any]):
    """A read-only mapping from each of a scenario's primitives to a handle."""

    __slots__ = ("_scenario", "_handle")

    def __init__(self, scenario: Scenario, handle: Callable[[Primitive], Any]) -> None:
        self._scenario = scenario
        self._handle = handle

    def __getitem__(self, primitive: Primitive) -> Any:
        if not self._scenario._owns(primitive):
            raise KeyError(primitive)
        return self._handle(primitive)

    def __iter__(self) -> Iterator[Primitive]:
        return iter(list(self._scenario._core.primitives))

    def __len__(self) -> int:
        return len(self._scenario._core.primitives)


class Scenario:
    """A set of blanket primitives and managed threads, and the scheduler's
    seat: inside ``with scenario:`` every call on its primitives waits for
    the calling thread (the scheduler) to let it go.

    *name* shows in reports; *timeout* bounds every wait of the scheduler and
    the join of managed threads on exit (seconds); *record_unregulated* logs
    calls made outside the scenario too; *adopt* makes the threads and
    primitives the watched code makes with ``threading`` the scenario's
    (:attr:`adopt`).

    Entering is all or nothing: if a managed thread cannot start (or an
    interrupt lands meanwhile), the threads already started are abandoned at
    their first call and joined, and the scenario is left not entered.
    A ``KeyboardInterrupt`` in the scheduler leaves the ``with`` block as
    itself, once the exit has let every parked thread go and joined them;
    see :ref:`ctrl-c` for where Ctrl-C is held back meanwhile, and the one
    case where CPython drops it.

    Exiting raises :class:`WorkerError`, naming each managed thread that
    died of an exception (a thread the scheduler abandoned does not count)
    and carrying its traceback, once per dead thread; if the ``with``
    block raised, that exception leaves instead, with the report added as
    a note. (:class:`ScenarioTestCase` and :func:`explore` report dead
    threads themselves, as a failure.)
    """

    # The seven primitive kinds, bound to this scenario (see primitives.Kind).
    Lock: primitives.Kind[primitives.Lock]
    RLock: primitives.Kind[primitives.RLock]
    Condition: primitives.Kind[primitives.Condition]
    Semaphore: primitives.Kind[primitives.Semaphore]
    BoundedSemaphore: primitives.Kind[primitives.BoundedSemaphore]
    Event: primitives.Kind[primitives.Event]
    Barrier: primitives.Kind[primitives.Barrier]

    def __init__(self, name: str | None = None, *, timeout: float = 10.0,
                 record_unregulated: bool = False, adopt: bool = False) -> None:
        self._core = core = ScenarioCore(f"Scenario {next(_numbers)}")
        if name is not None:
            self.name = name
        self.timeout = timeout
        self.record_unregulated = record_unregulated
        self._injections: list[Injection] = []
        # Whether exiting raises WorkerError for dead workers; off where the
        # caller reports them itself (ScenarioTestCase, explore).
        self._report_dead_workers = True
        self._reported: set[threading.Thread] = set()
        self._watch = Watch(core)
        self._guard = ExitGuard(_EXIT)
        for name, kind in primitives.kinds(core).items():
            setattr(self, name, kind)
        self.adopt = adopt

    # -- settings -------------------------------------------------------------

    @property
    def name(self) -> str:
        """The scenario's name, shown in reports."""
        return self._core.name

    @name.setter
    def name(self, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError(f"a scenario's name is a str, not {value!r}")
        self._core.name = value

    @property
    def timeout(self) -> float:
        """The bound, in seconds, on the scheduler's waits and on joining
        managed threads at exit; hitting it raises :class:`StallError`.

        Finite and more than 0 (at most ``threading.TIMEOUT_MAX``): a
        ``TypeError`` or ``ValueError`` naming it otherwise."""
        return self._core.timeout

    @timeout.setter
    def timeout(self, value: float) -> None:
        self._core.timeout = check_seconds(value, "a scenario's timeout")

    @property
    def record_unregulated(self) -> bool:
        """Whether calls made outside the scenario are logged (as transactions
        that go straight from ``COMMIT`` to ``RETURNED``)."""
        return self._core.recording

    @record_unregulated.setter
    def record_unregulated(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise TypeError(f"record_unregulated is True or False, not {value!r}")
        core = self._core
        with core.lock:
            core.recording = bool(value)
            core.pass_through(not (core.regulated or core.recording))

    @property
    def adopt(self) -> bool:
        """Whether the threads and primitives that watched code makes with
        ``threading`` (``threading.Thread``, ``threading.Lock()``, ...) are
        this scenario's (see :mod:`blanket.exploration.adopt`). Setting it true watches
        the targets of :meth:`thread` too, as an exploration does."""
        return bool(self._watch.makers)

    @adopt.setter
    def adopt(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise TypeError(f"adopt is True or False, not {value!r}")
        self._watch.makers = {}
        if value:
            self._watch.makers = makers(self._core, {
                kind: getattr(self, kind) for kind in primitives.KINDS})
            self._watch.follow_threads = True

    # -- threads --------------------------------------------------------------

    def thread(self, target: Callable[..., Any], *args: Any, **kwargs: Any) -> threading.Thread:
        """A managed thread running ``target(*args, **kwargs)``.

        It starts when the scenario is entered, or at once if it already is,
        and is joined when the scenario exits.
        """
        return self._thread(target, args, kwargs, None)

    def _thread(self, target: Callable[..., Any], args: tuple[Any, ...],
                kwargs: dict[str, Any], name: str | None) -> threading.Thread:
        """``thread``, named *name* before it can start."""
        if not callable(target):
            raise TypeError(f"scenario.thread needs a callable target, not {target!r}")
        core = self._core
        if self._watch.follow_threads:
            self._watch.follow(target)
        thread = ManagedThread(core, target, args, kwargs)
        if name is not None:
            thread.name = name
        with core.lock:
            core.managed[thread] = None
            start = core.regulated
        if start:
            with interrupts_held_back():  # see blanket.holdback
                thread.start()
        return thread

    @property
    def managed(self) -> Set[threading.Thread]:
        """The managed threads (a read-only, live set)."""
        return types.MappingProxyType(self._core.managed).keys()

    # -- transactions and the log ---------------------------------------------

    @property
    def transactions(self) -> Mapping[threading.Thread, Transaction]:
        """Each thread's current transaction, taken now (read-only)."""
        core = self._core
        with core.lock:
            return types.MappingProxyType(
                {thread: record.chain[-1] for thread, record in core.records.items()
                 if record.chain})

    def transaction(self, thread: threading.Thread) -> Transaction | None:
        """*thread*'s current (innermost) transaction, or ``None``."""
        core = self._core
        with core.lock:
            chain = core.chain(thread)
            return chain[-1] if chain else None

    @property
    def log(self) -> Log:
        """The finished transactions, in the order they finished.

        Emptied when the scenario is entered and by :meth:`reset`; readable
        after the scenario exits.
        """
        return self._core.log

    def reset(self) -> None:
        """Forget finished transactions: empty the log."""
        with self._core.lock:
            self._core.reset()

    # -- primitives' handles --------------------------------------------------

    def _owns(self, primitive: object) -> bool:
        return isinstance(primitive, Primitive) and primitive._core is self._core

    def _check(self, primitive: object) -> Primitive:
        if not isinstance(primitive, Primitive):
            raise TypeError(f"expected a blanket primitive, not {primitive!r}")
        if not self._owns(primitive):
            raise ValueError(f"{label(primitive)} belongs to another scenario "
                             f"than {self.name!r}")
        return primitive

    def primitive(self, label: str) -> Primitive:
        """The live primitive of this scenario named *label*, or labelled so
        ("Lock 2": the second ``Lock`` made), as reports show it."""
        with self._core.lock:
            found: list[Primitive] = [p for p in self._core.primitives
                     if label in (p._name, p._label)]
        if len(found) != 1:
            problem = "no primitive" if not found else f"{len(found)} primitives"
            raise LookupError(f"{problem} of scenario {self.name!r} "
                              f"named or labelled {label!r}")
        return found[0]

    def api(self, primitive: Primitive) -> PrimitiveAPI:
        """The API object (the scheduler's controls) of *primitive*."""
        primitive = self._check(primitive)
        with self._core.lock:
            if primitive._api is None:
                primitive._api = API_CLASSES[primitive._kind](primitive)
            api: PrimitiveAPI = primitive._api  # type: ignore[assignment]
            return api

    def raw(self, primitive: Primitive) -> Any:
        """The raw handle of *primitive*: the real ``threading`` object,
        never regulated."""
        return self._check(primitive)._real

    @property
    def apis(self) -> Mapping[Primitive, PrimitiveAPI]:
        """Each primitive's API object (read-only mapping)."""
        return _Handles(self, self.api)

    @property
    def raws(self) -> Mapping[Primitive, Any]:
        """Each primitive's raw handle (read-only mapping)."""
        return _Handles(self, self.raw)

    # -- waiting ----------------------------------------------------------------

    def wait(self, *items: object, timeout: float | None = None) -> set[object]:
        """Block until any item signals; return the set of items that did.

        Items: a thread (it has a transaction), a transaction (it finished),
        a method of a primitive (some thread is inside it), the scenario (it
        is entered), or a signal token (``Call``, ``Terminated``,
        ``Paused``, ...). With *timeout* ``TimeoutError`` is raised when it
        passes; without, the scenario's :attr:`timeout` bounds the wait and
        :class:`StallError` carries a report of every thread (a
        :class:`DeadlockError` at once, when the threads are stuck in a
        wait-for cycle that nothing can end). *timeout* is
        finite, 0 or more (0 only looks) and at most
        ``threading.TIMEOUT_MAX``: ``TypeError`` or ``ValueError`` otherwise.
        A wait that could only time out is refused at once: outside the
        scenario (``RuntimeError``, unless it names the scenario itself), or
        on a thread, primitive or transaction of another scenario, or a
        thread nobody started (``ValueError``).
        """
        if not items:
            raise TypeError("scenario.wait needs at least one item to wait for")
        if timeout is not None:
            timeout = check_seconds(timeout, "scenario.wait's timeout", zero=True)
        pairs = [(item, to_token(item)) for item in items]
        checks.check_step(self._core, "scenario.wait", tokens=[t for _, t in pairs])
        return waiting.wait(self._core, pairs, timeout)

    # -- the middle level ---------------------------------------------------------

    def Driver(self, thread: threading.Thread) -> driving.Driver:  # noqa: N802
        """A :class:`~blanket.Driver` for *thread* (lazy: nothing happens
        until it is driven)."""
        return driving.Driver(self._core, thread)

    def Chain(self, *drivers: driving.Driver) -> driving.Chain:  # noqa: N802
        """A :class:`~blanket.Chain` of *drivers*, driven one after another."""
        return driving.Chain(*drivers)

    def Dispatch(self) -> driving.Dispatch:  # noqa: N802
        """An empty :class:`~blanket.Dispatch`, driving drivers side by side."""
        return driving.Dispatch(self._core)

    def park(self, *args: Any, wait: bool = False) -> dict[threading.Thread, Transaction]:
        """Wait until each thread is parked at the scheduler block of its method.

        Arguments come in pairs: ``park(A, lock.acquire, B, lock.release)``;
        each thread at most once. Returns each thread's transaction. A thread
        parked on another method raises :class:`ThreadOrderingError`. With
        *wait*, the calls are then let go and driven to their ends, side by
        side (a thread a :class:`~blanket.Driver` keeps is refused first,
        :class:`~blanket.CompetingDriversError`).
        """
        return script.park(self._core, args, wait)

    def skip(self, *args: Any, wait: bool = False) -> dict[threading.Thread, Transaction]:
        """Let each thread make the named calls, in order.

        Arguments: a thread, then its methods, then the next thread...:
        ``skip(A, lock.acquire, lock.release, B, lock.acquire)``. Every call
        but each thread's last is driven to its end; the last is let go from
        its scheduler block and goes as far as it can before the next thread's
        turn (it ends, parks again, or sleeps in the real primitive), so the
        log follows the script; with *wait* the last calls are then driven
        to their ends (side by side). Returns each thread's last
        transaction. A method that is not a blanket primitive's
        (``TypeError``) or a thread a :class:`~blanket.Driver` keeps
        (:class:`~blanket.CompetingDriversError`) is refused before any call goes.
        """
        return script.skip(self._core, args, wait)

    def finish(self, *threads: threading.Thread) -> None:
        """Let every call of each thread go until the thread terminates.

        The threads are driven side by side. A call that would sleep for ever
        if let go now (an acquire of a lock another thread holds, ...) waits
        at its scheduler block until it can go, so threads that wait for each
        other in a cycle stay parked: :class:`~blanket.DeadlockError`, naming
        the cycle, is raised at once, once they are abandoned and joined. A
        thread asleep in a real wait nobody ends stalls the scenario (within
        its bound).
        """
        for thread in threads:
            if not isinstance(thread, threading.Thread):
                raise TypeError(f"finish takes threads, not {thread!r}")
        script.finish(self._core, threads)

    # -- entering and exiting ---------------------------------------------------

    def __enter__(self) -> Scenario:
        core = self._core
        entry.refuse_entered(core)
        try:
            entry.enter(core, self._watch.install)
            self._guard.install()
            return self
        except BaseException:
            # All or nothing: see blanket.entry.undo_entry.
            entry.undo_entry(core)
            self._watch.restore()
            self._guard.restore()
            raise

    def __exit__(self, exc_type: object, exc: BaseException | None, tb: object) -> None:
        # Ctrl-C before the guard is entered (at the call's start) waits for
        # the guard's with to end (see blanket.holdback.ExitGuard).
        with self._guard:
            try:
                entry.unregulate(self._core)
                stuck = join_threads(list(self._core.managed), self._core.timeout)
            except BaseException:
                # Interrupted while exiting (Ctrl-C pressed twice, say): finish
                # the exit, so that no thread stays parked, then let it go on.
                entry.unregulate(self._core)
                join_threads(list(self._core.managed), self._core.timeout)
                raise
            finally:
                self._watch.restore()
        core = self._core
        error: Exception | None = None
        if stuck:
            with core.lock:
                report, cycle = core.report(), progress.deadlock(core)
                why = f"; {progress.stuck_report(core)}" if cycle else ""
            # A cycle of sleepers in real primitives never ends by itself:
            # say so, rather than only that the bound ran out.
            error = (DeadlockError if cycle else StallError)(
                f"scenario {self.name!r}: managed threads "
                f"{', '.join(repr(t.name) for t in stuck)} still running "
                f"{core.timeout} s after the scenario exited{why}", report)
        cause, dead = None, self._dead_workers()
        if dead:
            cause = next(iter(dead.values()))
            if error is None:
                error = WorkerError(self.name, dead)
            else:
                error.add_note(str(WorkerError(self.name, dead)))
        if error is None:
            return
        if exc is not None:
            exc.add_note(str(error))
            return
        raise error from cause

    def _dead_workers(self) -> dict[threading.Thread, BaseException]:
        """The managed threads that died of an exception and were not yet
        reported by an exit; from now on they are."""
        if not self._report_dead_workers:
            return {}
        with self._core.lock:
            dead = {thread: error for thread, error in self._core.errors.items()
                    if thread not in self._reported}
        self._reported.update(dead)
        return dead

    # -- watching plain shared state -------------------------------------------------

    def instrument(self, *targets: object) -> None:
        """Watch the accesses *targets* make to shared state (attributes,
        subscripts, globals, ``in``, iteration, calls into C code on a
        mutable object) while the scenario is entered.
        A target is a function, a method, a class (its functions) or a
        module (the functions and classes defined in it); see
        :mod:`blanket.exploration.watch`. The original code is back once the scenario
        exits."""
        self._watch.add(*targets)

    # -- injection ----------------------------------------------------------------

    def inject(self, module: types.ModuleType) -> Injection:
        """Point *module*'s ``threading`` references at this scenario until
        the returned :class:`Injection` is closed (it is a context manager).

        Names bound to ``threading``'s primitive classes (found by value) are
        rebound to this scenario's; a name bound to the ``threading`` module
        becomes a :class:`ThreadingView` of it; a name bound to a real
        primitive (made at import time) is rebound to one of this scenario's
        in the same state. :class:`ValueError` when the
        module has nothing to patch."""
        injection = Injection(self, module)
        self._injections.append(injection)
        return injection

    def close_injections(self) -> None:
        """Close every injection of this scenario still open, latest first."""
        while self._injections:
            self._injections.pop().close()

    def format_log(self, *threads: threading.Thread) -> str:
        """The log as a timeline: one column per thread (*threads* first),
        one row per finished call."""
        return format_timeline(self._core.log, threads)

    def report(self) -> str:
        """Every thread's current call and state, as a stall report shows it."""
        with self._core.lock:
            return self._core.report()

    def __repr__(self) -> str:
        state = "entered" if self._core.regulated else "not entered"
        return f"<blanket.Scenario {self.name!r} {state}>"


#: The exit as defined above, whose start a scenario's ExitGuard watches
#: (taken now: a harness may wrap ``Scenario.__exit__`` later).
_EXIT = Scenario.__exit__
