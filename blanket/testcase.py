"""ScenarioTestCase: a unittest test case with a fresh scenario per test.

``self.scenario`` is made for each test method (named after it, bounded by
the class's :attr:`ScenarioTestCase.stall_timeout`); ``self.thread(...)``
makes managed threads named "A", "B", "C", ... The assertion helpers read the
scenario's log, so they work after the ``with self.scenario:`` block, and
their failure messages show expected against actual and the calls of every
thread as a timeline. Whatever the test did, cleanup exits the scenario,
joins its threads within the bound, and fails the test for a thread still
running or one that died of an exception.
"""

from __future__ import annotations

import threading
import unittest
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import progress, seconds, waiting
from .errors import death_notice
from .exploration.reach import goal
from .exploration.reproduce import replay
from .exploration.result import Exploration, Step
from .exploration.search import explore
from .gate import label
from .holdback import join_threads
from .linearizability.check import Linearizability, check_linearizable
from .scenario import Scenario
from .seconds import check_seconds
from .states import State
from .threads import thread_names
from .timeline import failure_report, format_timeline
from .transaction import Transaction

# unittest leaves the frames of modules marked so out of a failure's
# traceback, as it does its own: the test's line is shown, not this module's
# hook around it (which would cut the traceback short above the test).
__unittest = True

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Sequence


def clean_up(scenario: Scenario, *, never_ran: str | None) -> list[str]:
    """Exit *scenario* if it was left entered, undo its injections, join its
    threads within its timeout: what is wrong, each said in full. Threads
    made and never run are wrong when *never_ran* says how the test should
    have run them (``"enter 'with scenario:' afterwards ..."``); not when
    it is ``None`` (they were not required to run)."""
    core = scenario._core
    try:
        if core.regulated:  # left without its with-block ending
            scenario.__exit__(None, None, None)
    finally:
        scenario.close_injections()
    stuck = join_threads(list(core.managed), core.timeout)
    problems = []
    unrun = [thread for thread in core.managed if thread.ident is None]
    if unrun and never_ran is not None:
        names = ", ".join(repr(thread.name) for thread in unrun)
        problems.append(f"threads {names} never ran: the test made them but did not "
                        f"{never_ran}")
    if stuck:
        problems.append("threads still running at the end of the test:\n" + scenario.report())
    problems.extend(death_notice(thread, error) for thread, error in core.errors.items())
    return problems


class ScenarioTestCase(unittest.TestCase):
    """A ``unittest.TestCase`` whose test methods each get their own scenario."""

    #: The bound, in seconds, on every wait of the scheduler and on joining
    #: the managed threads at the end of a test.
    stall_timeout: float = seconds.DEFAULT

    #: Whether a managed thread that never started fails the test (the test
    #: made it but never entered ``with self.scenario:`` after). Set it to
    #: ``False``, on the class or in a test, for tests that make threads
    #: without meaning to run them (a test of a script's mistakes, say).
    threads_must_run: bool = True

    _blanket_scenario: Scenario | None = None
    _blanket_outcomes: dict[threading.Thread, Any] | None = None
    _blanket_method_returned = False

    @property
    def scenario(self) -> Scenario:
        """This test's scenario, made on first use, cleaned up after the test."""
        if self._blanket_scenario is None:
            bound = check_seconds(self.stall_timeout, f"{type(self).__name__}.stall_timeout")
            self._blanket_scenario = Scenario(self._testMethodName, timeout=bound)
            # Cleanup reports a dead thread, once, as a failure of the test.
            self._blanket_scenario._report_dead_workers = False
            self._blanket_names = thread_names()
            self.addCleanup(self._clean_up_scenario)
        return self._blanket_scenario

    def thread(self, target: Callable[..., Any], *args: Any, **kwargs: Any
               ) -> threading.Thread:
        """A managed thread running ``target(*args, **kwargs)``, named "A",
        "B", "C", ... in creation order (rename it at will)."""
        scenario = self.scenario
        return scenario._thread(target, args, kwargs, next(self._blanket_names))

    def worker(self, call: Callable[..., Any], *args: Any, **kwargs: Any
               ) -> threading.Thread:
        """A managed thread, as :meth:`thread` makes, for code expected to
        raise: what ``call(*args, **kwargs)`` returns, or the exception it
        raises, goes into :attr:`outcome` under the thread's name, and an
        exception does not fail the test."""
        if self._blanket_outcomes is None:
            self._blanket_outcomes = {}
        outcomes = self._blanket_outcomes

        def keep_outcome() -> None:
            thread = threading.current_thread()
            try:
                outcomes[thread] = call(*args, **kwargs)
            except Exception as error:  # noqa: BLE001 - kept for the test to check
                outcomes[thread] = error
        return self.thread(keep_outcome)

    @property
    def outcome(self) -> dict[str, Any]:
        """What the call of each finished :meth:`worker` returned or raised,
        by thread name (a worker still running, or never started, is not in it)."""
        # A copy first: a worker may be adding its outcome meanwhile.
        kept = (self._blanket_outcomes or {}).copy()
        return {thread.name: value for thread, value in kept.items()}

    # -- exploration and deadlocks ----------------------------------------------

    def explore(self, setup: Callable[[Scenario], Callable[[], object] | None],
                **options: Any) -> Exploration:
        """Explore the scenario *setup* describes (see :func:`blanket.explore`,
        which takes the same *options*); fail the test with the failing
        schedule and a ready-to-paste test replaying it if one fails.
        Returns the :class:`~blanket.Exploration` otherwise."""
        options.setdefault("timeout", self.stall_timeout)
        result = explore(setup, **options)
        if result.failure is not None:
            self.fail(failure_report(str(result), result.failure.schedule,
                                     result.failure.source))
        return result

    def assertLinearizable(self, make: Callable[[], Any],  # noqa: N802 - unittest style
                           operations: Sequence[Callable[[Any], Any]],
                           **options: Any) -> Linearizability:
        """Check that the objects *make* builds are linearizable under the
        *operations* (see :func:`blanket.check_linearizable`, which takes the
        same *options*); fail the test with the minimized scenario, its
        schedule, why no order explains it and a test replaying it.
        Returns the :class:`~blanket.Linearizability` otherwise."""
        options.setdefault("timeout", self.stall_timeout)
        result = check_linearizable(make, operations, **options)
        if result.failure is not None:
            self.fail(failure_report(str(result), result.failure.schedule,
                                     result.failure.source))
        return result

    def replay(self, setup: Callable[[Scenario], Callable[[], object] | None],
               schedule: Sequence[Step | str], *, races: str = "off") -> None:
        """Replay *schedule* on the scenario *setup* describes (see
        :func:`blanket.exploration.reproduce.replay`: its steps go while the calls match
        them, then the threads finish by a fixed rule), and fail the test if
        the run fails as an exploration's would: a thread raised, the threads
        deadlocked, or the invariant failed; with ``races="fail"``, also when
        two accesses of the run race. The tests :func:`blanket.explore`
        writes for a failure call this (a race failure's with
        ``races="fail"``), so they pass once the bug is fixed."""
        result = replay(setup, schedule, timeout=self.stall_timeout,
                        name=self._testMethodName, races=races)
        if result.failure is not None:
            self.fail(str(result))

    def assertReached(self, setup: Callable[[Scenario], Callable[[], object] | None],  # noqa: N802
                      schedule: Sequence[Step | str], *targets: object,
                      msg: Any = None) -> None:
        """Replay *schedule* on the scenario *setup* describes (as
        :meth:`replay` does, its failures aside) and fail unless each of
        *targets* ran in it, in any thread: ``"pkg/module.py:42"`` (the file
        by its module's path, as steps name places) or ``(function, 42)``.
        The tests :func:`blanket.explore` writes for ``reach=`` call this."""
        aim = goal(setup, list(targets))
        if aim is None:
            raise TypeError("assertReached: name at least one line, e.g. 'pkg/module.py:42'")
        with aim:
            result = replay(setup, schedule, timeout=self.stall_timeout,
                            name=self._testMethodName)
            ran = aim.probes.take()
        missing = [place for place in aim.targets if place not in ran]
        if missing:
            self.fail(self._formatMessage(
                msg, f"{', '.join(missing)} did not run: {str(result)[len('the replay '):]}"))

    def assertNoDeadlock(self, msg: Any = None) -> None:  # noqa: N802 - unittest style
        """Fail if the scenario's live threads can no longer go on: none of
        their parked calls can be let go without sleeping for ever and no
        sleeper will wake. The message names the wait-for cycle; the stuck
        threads are then abandoned (their calls raise
        :class:`~blanket.Abandoned`) so that cleanup can join them."""
        scenario = self.scenario
        core = scenario._core
        waiting.wait(core, [(None, progress.Settled())], None)
        with core.lock:
            remaining = progress.live(core)
            if not remaining or progress.choices(core):
                return
            # Both reports before the threads are let go: abandoned, they unwind.
            report = f"{progress.stuck_report(core)}\n{core.report()}"
            progress.abandon(core, remaining)
        self.fail(self._formatMessage(msg, report))

    def _clean_up_scenario(self) -> None:
        scenario = self._blanket_scenario
        assert scenario is not None
        self._blanket_scenario = None
        required = self.threads_must_run and self._blanket_method_returned
        problems = clean_up(scenario, never_ran=(
            "enter 'with self.scenario:' afterwards (set threads_must_run = False if it "
            "never meant to run them)") if required else None)
        if problems:
            raise self.failureException("\n\n".join(problems))

    def _callTestMethod(self, method: Callable[[], object]) -> None:  # noqa: N802
        # unittest's hook around the test method. Only a method that returned
        # is told its threads never ran: one that failed, errored out or was
        # skipped before it entered its scenario is reported once, for that.
        super()._callTestMethod(method)  # type: ignore[misc]
        self._blanket_method_returned = True

    # -- assertions over the log ----------------------------------------------------

    def _fail(self, message: str, threads: list[threading.Thread], msg: Any) -> None:
        timeline = format_timeline(self.scenario.log, threads)
        self.fail(self._formatMessage(msg, f"{message}\ncalls, in the order they ended:\n"
                                           f"{timeline}"))

    def _compare(self, what: str, expected: list[threading.Thread],
                 actual: list[threading.Thread], msg: Any) -> None:
        if list(expected) != actual:
            self._fail(f"{what}:\n  expected {[t.name for t in expected]}\n"
                       f"  actual   {[t.name for t in actual]}", list(expected), msg)

    def assertCallOrder(self, method: Callable[..., Any], threads: list[threading.Thread],
                        msg: Any = None) -> None:
        """The threads that finished calls of *method* (e.g. ``event.set``)
        did so in this order (a thread once per call)."""
        primitive, name = getattr(method, "__self__", None), getattr(method, "__name__", None)
        actual = [tx.thread for tx in self.scenario.log
                  if tx.primitive is primitive and tx.spec.name == name]
        self._compare(f"order of {type(primitive).__name__}.{name} calls", threads,
                      actual, msg)

    def assertAcquiredOrder(self, primitive: object, threads: list[threading.Thread],
                            msg: Any = None) -> None:
        """The threads acquired *primitive* (acquires that succeeded) in this order."""
        actual = [tx.thread for tx in self.scenario.log
                  if tx.primitive is primitive and tx.spec.name == "acquire"
                  and tx.succeeded]
        self._compare(f"order of acquisitions of {label(primitive)}",
                      threads, actual, msg)

    def assertTransactionState(self, tx: Transaction, state: State, msg: Any = None) -> None:
        """*tx* is in *state*."""
        if tx.state is not state:
            self._fail(f"{tx.spec.kind}.{tx.spec.name} of thread {tx.thread.name!r}:\n"
                       f"  expected state {state.name}\n  actual state   {tx.state.name}",
                       [tx.thread], msg)

    def _last_call(self, thread: threading.Thread, method: Callable[..., Any],
                   msg: Any) -> Transaction:
        primitive, name = getattr(method, "__self__", None), getattr(method, "__name__", None)
        calls = [tx for tx in self.scenario.log if tx.thread is thread
                 and tx.primitive is primitive and tx.spec.name == name]
        if not calls:
            self._fail(f"thread {thread.name!r} finished no call of "
                       f"{type(primitive).__name__}.{name}", [thread], msg)
        return calls[-1]

    def assertTimedOut(self, thread: threading.Thread, method: Callable[..., Any],
                       msg: Any = None) -> Transaction:
        """*thread*'s last call of *method* timed out; returns that call."""
        tx = self._last_call(thread, method, msg)
        timeout = tx.timeout
        if timeout is None or not timeout.timed_out:
            self._fail(f"{tx.spec.kind}.{tx.spec.name} of thread {thread.name!r}:\n"
                       f"  expected it to time out\n  actual   {tx.state.name} "
                       f"result={tx.result!r} timeout={timeout}", [thread], msg)
        return tx

    def assertCallRaised(self, thread: threading.Thread, method: Callable[..., Any],
                         exception: type[BaseException], msg: Any = None) -> Transaction:
        """*thread*'s last call of *method* raised *exception*; returns that call."""
        tx = self._last_call(thread, method, msg)
        if tx.state is not State.RAISED or not isinstance(tx.result, exception):
            self._fail(f"{tx.spec.kind}.{tx.spec.name} of thread {thread.name!r}:\n"
                       f"  expected it to raise {exception.__name__}\n"
                       f"  actual   {tx.state.name} result={tx.result!r}", [thread], msg)
        return tx
