"""Is my class thread-safe? :func:`check_linearizable` and its result.

Scenarios of operations are drawn (:mod:`blanket.linearizability.scenarios`)
and each is explored by :func:`blanket.explore`, data races watched in the
object's class and module; every run's history is checked against the
sequential specification (:mod:`blanket.linearizability.history`). The
first scenario that fails is made smaller, a thread or an operation at a
time while it still fails the same way, and its schedule is the one with
the fewest preemptions a bounded search finds; the failure is reported with
a test replaying it (:mod:`blanket.linearizability.report`).

The verdict is never stronger than what was seen: a scenario is
*exhausted* only when the depth-first search covered it and met nothing it
could not see (:attr:`blanket.Exploration.unseen`), whose notes the result
carries. What the check was given failing (a factory, the specification, a
result that cannot be compared) raises :class:`~blanket.LinearizabilityError`
instead of a verdict. The minimization is bounded (:data:`MINIMIZE_TRIES`
scenarios explored, :data:`MINIMIZE_SECONDS`): a failure found is always
reported, and says when it may not be the smallest.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..exploration.arguments import STRATEGIES
from ..exploration.races import Race
from ..exploration.reporting import Progress, Report, Reporter, check_progress
from ..exploration.reproduce import replay, summary_of
from ..exploration.result import Exploration
from ..exploration.search import Search, explore, kept
from ..exploration.tried import try_failure_test, untried
from ..interpreters import refuse_untested
from ..seconds import BUDGET, Deadline, check_seconds
from .model import Factory, Model
from .report import NOT_LINEARIZABLE, LinearizabilityFailure, explained, source
from .scenarios import Op, Workload, WorkloadSetup, draw, watched

#: The schedules of each scenario the first pass over the scenarios runs
#: (with strategy "dfs" and no bound given): the first orders of each one's
#: depth-first search, which find most bugs, for every scenario before the
#: whole space of any. The second pass takes each search on from there; a
#: scenario searched whole within them is not run again.
FIRST_PASS = 4
#: The most smaller scenarios a minimization explores: it stops there, and
#: reports the smallest failure found so far.
MINIMIZE_TRIES = 100
#: The longest a minimization runs, in seconds (the explorations of its
#: scenarios get fewer schedules as the time runs out).
MINIMIZE_SECONDS = 60.0
#: The fewest schedules the exploration of a smaller scenario gets (more if
#: the failure took more to find).
MINIMIZE_SCHEDULES = 100
#: The most threads a scenario has: they are named "A" to "Z".
MAX_THREADS = 26
#: The most operations a thread, the prefix or the suffix makes, and the
#: most scenarios a check draws.
MAX_COUNT = 100_000


@dataclass
class Linearizability:
    """The result of :func:`check_linearizable`."""

    #: The exploration strategy used.
    strategy: str
    #: How many scenarios were explored.
    scenarios: int = 0
    #: How many distinct schedules were run, in all the scenarios.
    schedules: int = 0
    #: For each scenario explored, whether the search covered its whole space
    #: (``"dfs"`` only, and nothing met that blanket does not see).
    exhausted: list[bool] = field(default_factory=list)
    #: The first failure, minimized, or ``None``.
    failure: LinearizabilityFailure | None = None
    #: What the explorations met that blanket does not schedule (see
    #: :attr:`blanket.Exploration.unseen`), each once.
    unseen: list[str] = field(default_factory=list)
    #: The data races seen in the object's code, each once.
    races: list[Race] = field(default_factory=list)
    #: How many histories were checked.
    checks: int = 0
    #: Seconds the check took.
    elapsed: float = 0.0
    #: The bound on preemptions of the searches, or ``None``.
    max_preemptions: int | None = None
    #: The budget that ended the check with scenarios left, as it was given
    #: (``"max_seconds=120"``); ``""`` when the check ended otherwise.
    stopped: str = ""

    @property
    def ok(self) -> bool:
        """Whether no failure was found."""
        return self.failure is None

    def __str__(self) -> str:
        covered = sum(self.exhausted)
        if self.scenarios and covered == self.scenarios:
            space = (", every one's whole space" if self.max_preemptions is None else
                     f", all each reached with at most {self.max_preemptions} "
                     "preemption(s) (bounded: not every order)")
        else:
            space = f", {covered} of them exhausted"
        races = f", {len(self.races)} data race(s)" if self.races else ""
        unseen = f"; not exhaustive: {'; '.join(self.unseen)}" if self.unseen else ""
        if self.stopped:
            unseen = f"; stopped by {self.stopped} with scenarios left{unseen}"
        found = ("linearizable" if self.failure is None else
                 f"a failure: {self.failure}")
        return (f"{self.strategy}: {self.scenarios} scenario(s){space}, {self.schedules} "
                f"schedule(s), {self.checks} histories checked{races} in {self.elapsed:.2f} s"
                f"{unseen}; {found}")


@dataclass
class _Options:
    """What every exploration of one check is given."""

    #: The factory, its calls numbered (:class:`~blanket.linearizability.model.Factory`).
    make: Callable[[], Any]
    #: The factory as given, and the model, for the test written.
    given: Callable[[], Any]
    model: Callable[[], Any] | None
    partition: Callable[[Op], Hashable] | None
    strategy: str
    max_schedules: int
    max_preemptions: int | None
    seed: int
    timeout: float
    #: The specification's answers, shared by every scenario of the check.
    answers: Model
    #: What every run watches (:func:`~blanket.linearizability.scenarios.watched`).
    targets: list[object]
    #: When the check's wall-clock budget is spent.
    deadline: Deadline
    #: Who is told how far the check went, if anyone.
    told: _Told | None = None

    def out_of_time(self, result: Linearizability) -> bool:
        """Whether the check's budget is spent, a scenario explored: it
        stops, and *result* says so."""
        if result.scenarios and self.deadline.spent():
            result.stopped = self.deadline.label
            return True
        return False

    def setup(self, workload: Workload) -> WorkloadSetup:
        return workload.setup(self.make, self.answers, partition=self.partition,
                              targets=self.targets)

    def explore(self, workload: Workload, **bounds: Any) -> tuple[Exploration, WorkloadSetup]:
        """*workload* explored (with *bounds* instead of the check's); what
        the check was given failing there is raised."""
        setup = self.setup(workload)
        options: dict[str, Any] = {
            "strategy": self.strategy, "max_schedules": self.max_schedules,
            "max_preemptions": self.max_preemptions, "seed": self.seed,
            "timeout": self.timeout, "max_seconds": self.deadline.left(), **bounds}
        if self.told is not None:
            self.told.explorations += 1
            options["progress"] = self.told.exploring
        with untried():  # the check's failure carries a test of its own
            exploration = explore(setup, name=setup.__qualname__, **options)
        self.raise_error()
        return exploration, setup

    def begin(self, workload: Workload, cap: int) -> tuple[Exploration, WorkloadSetup,
                                                            Search | None]:
        """*workload* explored up to *cap* schedules; its search, when it
        stopped there, to go on with (:meth:`resume`)."""
        with kept() as keep:
            exploration, setup = self.explore(workload, max_schedules=cap)
        return exploration, setup, keep.search

    def resume(self, search: Search, before: Exploration) -> Exploration:
        """*search*, stopped with *before*, taken on to the check's bounds."""
        progress = None
        if self.told is not None:
            self.told.explorations += 1
            progress = self.told.resumed(before)
        with untried():
            exploration = search.resume(self.max_schedules, self.deadline.left(), progress)
        self.raise_error()
        return exploration

    def raise_error(self) -> None:
        """Raise the first error of what the check was given, if one was met
        (the run that met it failed, but that is no verdict)."""
        if self.answers.error is not None:
            raise self.answers.error


class _Told:
    """Tells a check's ``progress=`` how far it went: its explorations
    done added up, with the one going on."""

    def __init__(self, progress: Report, max_schedules: int) -> None:
        self.reporter = Reporter(progress)
        self.max_schedules = max_schedules
        self.started = time.monotonic()
        self.explorations = self.schedules = self.runs = self.races = self.unseen = 0
        # What the exploration going on had counted before, told already:
        # its schedules and runs (see resumed).
        self.before = (0, 0)

    def resumed(self, before: Exploration) -> Callable[[Progress], None]:
        """What is told how far a search taken on goes: from where it
        stopped, *before* (told then)."""
        self.before = (len(before.schedules), before.runs)
        return self.exploring

    def exploring(self, progress: Progress) -> None:
        """The exploration going on went as far as *progress*."""
        schedules = self.schedules + progress.schedules - self.before[0]
        runs = self.runs + progress.runs - self.before[1]
        races, unseen = max(self.races, progress.races), max(self.unseen, progress.unseen)
        if progress.done:
            self.schedules, self.runs, self.races, self.unseen = schedules, runs, races, unseen
            self.before = (0, 0)
        elif self.reporter.due():
            self.reporter.report(Progress(schedules, runs, time.monotonic() - self.started,
                                          races, unseen, self.max_schedules, None,
                                          explorations=self.explorations))

    def finish(self, result: Linearizability) -> None:
        """The last report: the check over, *result* its verdict."""
        self.reporter.report(Progress(self.schedules, self.runs, result.elapsed,
                                      len(result.races), len(result.unseen), self.max_schedules,
                                      None, True, self.explorations))


def check_operations(operations: object) -> None:
    """Refuse *operations* unless a non-empty sequence of callables."""
    if not isinstance(operations, Sequence) or isinstance(operations, str) \
            or not operations or not all(map(callable, operations)):
        raise TypeError(f"operations={operations!r}: expected a non-empty sequence of "
                        "callables op(obj)")


def _check(make: object, operations: object, counts: Mapping[str, object],
           model: object, partition: object, bounds: Mapping[str, object]) -> None:
    """Refuse what :func:`check_linearizable` cannot run."""
    if not callable(make):
        raise TypeError(f"check_linearizable: make={make!r} is not callable: expected a "
                        "factory of the object under test")
    check_operations(operations)
    for name, value in counts.items():
        least = 1 if name in ("threads", "operations_per_thread", "scenarios") else 0
        most = MAX_THREADS if name == "threads" else MAX_COUNT
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"{name}={value!r}: expected an int")
        if not least <= value <= most:
            raise ValueError(f"{name}={value}: expected at least {least} and at most {most}")
    for name, value in (("model", model), ("partition", partition)):
        if value is not None and not callable(value):
            raise TypeError(f"{name}={value!r}: expected a callable or None")
    check_seconds(bounds["timeout"], "timeout")
    check_seconds(bounds["max_seconds"], "max_seconds")
    lowest: dict[str, int | None] = {"max_schedules": 1, "max_preemptions": 0, "seed": None}
    for name, floor in lowest.items():
        bound = bounds[name]
        if bound is None and name == "max_preemptions":
            continue
        if not isinstance(bound, int) or isinstance(bound, bool):
            optional = " or None" if name == "max_preemptions" else ""
            raise TypeError(f"{name}={bound!r}: expected an int{optional}")
        if floor is not None and bound < floor:
            raise ValueError(f"{name}={bound}: expected at least {floor}")


def check_linearizable(make: Callable[[], Any], operations: Sequence[Op], *,
                       threads: int = 2, operations_per_thread: int = 2,
                       scenarios: int = 50, seed: int = 0,
                       model: Callable[[], Any] | None = None, strategy: str = "dfs",
                       max_schedules: int = 10_000, max_preemptions: int | None = None,
                       timeout: float = 10.0, prefix: int = 0, suffix: int = 0,
                       partition: Callable[[Op], Hashable] | None = None,
                       max_seconds: float = BUDGET,
                       progress: Callable[[Progress], object] | None = None,
                       workloads: Sequence[Workload] | None = None
                       ) -> Linearizability:
    """Check that the objects *make* builds are linearizable under the
    *operations* (callables ``op(obj)``; what one returns or raises is its
    result).

    Up to *scenarios* distinct scenarios of *threads* x
    *operations_per_thread* operations are drawn from *operations*, seeded
    by *seed*, with *prefix* operations run before the threads start and
    *suffix* after they end; each is explored with :func:`blanket.explore`
    (*strategy*, *max_schedules*, *max_preemptions*, *timeout* as there,
    data races watched in the object's class and module), and each run's
    results must be those of some order of its calls, one at a time, that
    keeps the real-time order, run on *model* (by default *make*).
    *partition*, when given, maps an operation to the independent part it
    acts on (a key of a map, say): each part is checked alone.

    *max_seconds* bounds the check's wall-clock time: once it is spent,
    the check stops (an exploration going on stops at the end of its run)
    and says so (:attr:`Linearizability.stopped`); a failure found is
    still reported, its minimization cut short.

    The first scenario that fails stops the check; it is minimized (within
    :data:`~blanket.linearizability.check.MINIMIZE_TRIES` explorations and
    :data:`~blanket.linearizability.check.MINIMIZE_SECONDS`) and
    reported with a test that replays it (:class:`LinearizabilityFailure
    <blanket.linearizability.report.LinearizabilityFailure>`).

    *progress*, a callable, is told how far the check went, as
    :func:`blanket.explore`'s is (a :class:`~blanket.Progress`, at most
    every 0.2 s and once at the end): the schedules and runs of its
    explorations added up, how many explorations were made
    (:attr:`~blanket.Progress.explorations`), the most races and gaps one
    found (at the end, the check's); each scenario has its own budget, so
    nothing is said ``left``.

    *workloads*, when given, are the scenarios explored instead of drawn
    ones (each of its calls one of *operations*): :func:`blanket.audit`
    chooses its own.

    What the check was given failing raises
    :class:`~blanket.LinearizabilityError` instead of a verdict: *make* or
    *model* raising, the specification raising an exception that says it is
    broken (:data:`~blanket.linearizability.model.BROKEN`), a result whose
    ``==`` raises, a specification not deterministic, or one of its calls
    not returning within *timeout* seconds. Counts out of range (more than
    26 threads, more than 100,000 of anything) raise ``ValueError``.
    """
    refuse_untested("check_linearizable")
    counts = {"threads": threads, "operations_per_thread": operations_per_thread,
              "scenarios": scenarios, "prefix": prefix, "suffix": suffix}
    bounds = {"max_schedules": max_schedules, "max_preemptions": max_preemptions,
              "seed": seed, "timeout": timeout, "max_seconds": max_seconds}
    _check(make, operations, counts, model, partition, bounds)
    if workloads is not None and not all(
            isinstance(workload, Workload) and all(any(op is known for known in operations)
                                                    for _, _, op in workload.calls)
            for workload in workloads):
        raise TypeError(f"workloads={workloads!r}: expected Workloads of the operations")
    check_progress(progress)
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy {strategy!r}: expected one of {', '.join(STRATEGIES)}")
    factory = Factory(make, "make")
    answers = Model(factory if model is None else Factory(model, "model"), timeout)
    options = _Options(factory, make, model, partition, strategy, max_schedules,
                       max_preemptions, seed, timeout, answers, watched(factory, operations),
                       Deadline(max_seconds))
    if progress is not None:
        options.told = _Told(progress, max_schedules)
    try:
        drawn = draw(operations, threads, operations_per_thread, scenarios, seed, prefix,
                     suffix) if workloads is None else workloads
        result = _checked(options, operations, list(drawn))
        if options.told is not None:
            options.told.finish(result)
        return result
    finally:
        options.answers.close()


def _checked(options: _Options, operations: Sequence[Op],
             workloads: list[Workload]) -> Linearizability:
    """:func:`check_linearizable`, its arguments checked, of *workloads*."""
    strategy, max_preemptions = options.strategy, options.max_preemptions
    result = Linearizability(strategy, max_preemptions=max_preemptions)
    started = time.monotonic()
    # Most bugs show in the first orders of a scenario's search: a first pass
    # over the scenarios runs those of each, and a second the rest.
    passes: list[int | None] = [FIRST_PASS, None] if strategy == "dfs" \
        and max_preemptions is None and options.max_schedules > FIRST_PASS else [None]
    # The scenarios the first pass ran whole: the second does not run them
    # again; those it stopped: the second takes their searches on (with
    # the checks of histories counted then).
    whole: dict[int, Exploration] = {}
    stopped: dict[int, tuple[Search, Exploration, WorkloadSetup, int]] = {}
    for cap in passes:
        checks = result.checks
        result = Linearizability(strategy, max_preemptions=max_preemptions, checks=checks)
        for number, workload in enumerate(workloads):
            if options.out_of_time(result):
                break
            if number in whole:
                _count(result, whole[number], 0)
                continue
            if cap is not None:
                exploration, setup, search = options.begin(workload, cap)
                if exploration.exhausted:
                    whole[number] = exploration
                elif search is not None:
                    stopped[number] = (search, exploration, setup,
                                       setup.specification.checks)
                counted = 0
            elif number in stopped:
                search, before, setup, counted = stopped.pop(number)
                exploration = options.resume(search, before)
            else:
                exploration, setup = options.explore(workload)
                counted = 0
            _count(result, exploration, setup.specification.checks - counted)
            if exploration.failure is not None:
                result.failure = _minimized(options, operations, workload, exploration,
                                            result)
                break
            if exploration.stopped.startswith("max_seconds="):  # the time ran out in it
                result.stopped = options.deadline.label
                break
        if result.failure is not None or result.stopped:
            if max_preemptions is not None:
                result.exhausted = [False] * result.scenarios  # bounded: not every order
            break
    result.elapsed = time.monotonic() - started
    return result


def _count(result: Linearizability, exploration: Exploration, checks: int) -> None:
    """Add one scenario's exploration to *result*, with the *checks* of
    histories it made that were not counted yet."""
    result.scenarios += 1
    result.schedules += exploration.count
    result.exhausted.append(exploration.exhausted)
    result.checks += checks
    result.unseen += [note for note in exploration.unseen if note not in result.unseen]
    result.races += [race for race in exploration.races if race not in result.races]


def _preemptions(exploration: Exploration) -> int:
    """How many times the failing schedule switched away from a thread that
    still had steps to take (an upper bound on its preemptions)."""
    assert exploration.failure is not None
    threads = [step.thread for step in exploration.failure.schedule]
    return sum(1 for n in range(1, len(threads))
               if threads[n] != threads[n - 1] and threads[n - 1] in threads[n:])


def _minimized(options: _Options, operations: Sequence[Op], workload: Workload,
               found: Exploration, result: Linearizability) -> LinearizabilityFailure:
    """The failure of *workload*, made smaller while it fails the same way,
    with the fewest preemptions found, within :data:`MINIMIZE_TRIES`
    explorations and :data:`MINIMIZE_SECONDS`; the searches counted in
    *result*'s checks."""
    assert found.failure is not None
    kind = found.failure.kind
    budget = _Budget(found, options.deadline)
    smaller = True
    tried = {workload.key(operations)}
    while smaller:
        smaller = False
        for candidate in workload.smaller():
            if candidate.key(operations) in tried:  # another way to the same one
                continue
            if budget.spent:
                budget.stopped = True
                break
            tried.add(candidate.key(operations))
            # A depth-first search of a smaller scenario needs no more
            # preemptions than the failure found: it stops there.
            most = _preemptions(found)
            if options.max_preemptions is not None:
                most = min(most, options.max_preemptions)
            limits = {"max_preemptions": most} if options.strategy == "dfs" else {}
            exploration = budget.explore(options, candidate, result, **limits)
            if exploration.failure is not None and exploration.failure.kind == kind:
                workload, found, smaller = candidate, exploration, True
                break
    for bound in range(_preemptions(found)):
        if budget.spent:
            budget.stopped = True
            break
        exploration = budget.explore(options, workload, result, strategy="dfs",
                                     max_preemptions=bound)
        if exploration.failure is not None and exploration.failure.kind == kind:
            found = exploration
            break
    failure = found.failure
    assert failure is not None
    # The history to show: the schedule replayed, as the generated test does.
    setup = options.setup(workload)
    again = replay(setup, failure.schedule, timeout=options.timeout, name=setup.__qualname__)
    options.raise_error()
    history = setup.history
    explanation = explained(failure)
    if again.failure is None:
        explanation += f"\n(the replay of this schedule did not fail: {again.diverged})"
    if budget.stopped:
        explanation += (f"\n(minimization stopped after {budget.tries} tries: the failure "
                        "may not be the smallest)")
    shown = NOT_LINEARIZABLE if kind == "invariant" else kind
    results = [f"{name} {outcome or 'pending'}"
               for name, outcome in zip(workload.names, history.outcomes, strict=True)]
    summary = f"{shown}: {', '.join(results)}"
    written = source(workload, failure.schedule, shown, summary, options.given, operations,
                     options.model, options.partition)
    # The test must fail as the replay just did, run the way its user will.
    replayed, message = again.failure or (failure.kind, failure.message)
    checked, written = try_failure_test(written, replayed, summary_of(replayed, message),
                                        options.timeout)
    return LinearizabilityFailure(shown, workload, history, explanation, failure.schedule,
                                  written, budget.tries if budget.stopped else None, checked)


class _Budget:
    """What a minimization may still spend: explorations, and time; each
    exploration gets the schedules the time left allows, at the pace of
    the last (a smaller scenario's runs are no slower)."""

    def __init__(self, found: Exploration, deadline: Deadline) -> None:
        self.tries = 0
        #: Whether it stopped with scenarios left to try.
        self.stopped = False
        self.deadline = deadline.within(MINIMIZE_SECONDS)
        self.schedules = max(MINIMIZE_SCHEDULES, 2 * found.count)
        self.pace = found.elapsed / max(1, found.count)  # seconds per schedule

    @property
    def spent(self) -> bool:
        """Whether no exploration is left to make."""
        return self.tries >= MINIMIZE_TRIES or self.deadline.spent()

    def explore(self, options: _Options, workload: Workload, result: Linearizability,
                **bounds: Any) -> Exploration:
        """*workload* explored within what is left; its checks counted in *result*."""
        self.tries += 1
        left = self.deadline.left()
        schedules = min(options.max_schedules, self.schedules,
                        max(1, int(left / max(self.pace, 1e-6))))
        started = time.monotonic()
        exploration, setup = options.explore(workload, max_schedules=schedules, **bounds)
        self.pace = (time.monotonic() - started) / max(1, exploration.count)
        result.checks += setup.specification.checks
        return exploration
