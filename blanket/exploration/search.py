"""The search: run a scenario under many orders of its calls, and stop at
the first order that breaks it.

A scenario is described once by a *setup* function: given a fresh
:class:`~blanket.Scenario`, it creates the primitives and the threads
(``scenario.thread``) and returns the invariant to check once the threads
have finished (or ``None``). :func:`explore` then runs it again and again.
In each run it is the scheduler: whenever every thread is parked at a call
or asleep for good (:mod:`blanket.progress`), it lets one parked call go;
which one is the strategy's choice:

``"dfs"``
    every distinct order, depth first, with dynamic partial-order reduction
    (calls on different primitives commute, so one order of them is run:
    the reversals of the run's races and sleep sets decide which) and an
    optional bound on preemptions;
``"random"``
    a seeded random choice at every step;
``"pct"``
    probabilistic concurrency testing: random thread priorities with
    *depth* - 1 priority change points.

With ``reach=`` the ``"dfs"`` search is guided toward the lines: it tries
first the orders likely to run them (:mod:`blanket.exploration.guided`),
and still every order.

Beside the random strategies' samples a depth-first pass runs, one run
after each, so that a space smaller than the budget is known to be whole
once the pass ends (the search then stops).

Real time never passes: a call whose outcome depends on its timeout is two
choices, waited for in time or expired at once.

The threads of a run take turns on one CPU (:mod:`blanket.exploration.affinity`);
each run is :mod:`blanket.exploration.run`'s.

A run fails when a thread raises, when the invariant fails, or when live
threads remain and no call can be let go (a deadlock, reported as its
wait-for cycle). The failure carries the schedule and the source of a
:class:`~blanket.ScenarioTestCase` that replays it (:mod:`blanket.exploration.reproduce`).
``shard=(i, n)`` splits a search deterministically: the shards 1..n of one
search run disjoint sets of schedules that together are the whole search.
The depth-first search splits exactly with data races watched too: its
first pass, which every shard makes alike, runs each prefix of the split
once, and the races it meets restart the search in every shard alike.
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import random
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import nullcontext
from typing import Any

from ..interpreters import refuse_untested
from ..seconds import BUDGET, Deadline
from . import pct, uniform
from .affinity import one_cpu
from .alone import alone
from .arguments import RACES, check_arguments, check_count, check_guided, parse_shard
from .dfs import DepthFirst, NotDeterministic
from .guided import Guide
from .monitor import monitoring
from .processes import check as check_processes
from .processes import search as search_processes
from .reach import goal
from .reporting import Progress, Reporter, budget, check_progress
from .reproduce import summary_of
from .result import Exploration, Setup
from .runners import Runners
from .searching import ENDED, FAILED, GOING, GROWN, REACHED, Searching
from .shrink import shrink
from .tried import try_failure_test, try_reach_test
from .watch import Transitive
from .witness import Witness, witnessing


def explore(setup: Setup, *, strategy: str = "dfs", max_schedules: int = 10_000,
            max_seconds: float = BUDGET, max_preemptions: int | None = None, seed: int = 0,
            depth: int = 3, shard: str | tuple[int, int] | None = None, split_depth: int = 4,
            timeout: float = 10.0, name: str | None = None, races: str = "report",
            exclude: Iterable[object] = (), reach: object = None, lines: bool = False,
            processes: int = 1, guided: bool | None = None,
            progress: Callable[[Progress], object] | None = None) -> Exploration:
    """Run the scenario *setup* describes under many orders of its calls;
    stop at the first failure.

    *strategy* is ``"dfs"`` (every order, with partial-order reduction and at
    most *max_preemptions* preemptions when given), ``"random"`` or ``"pct"``
    (seeded by *seed*; *depth* is PCT's bug depth). At most *max_schedules*
    schedules are counted. Each sampled run is followed by one run of a
    depth-first pass of the same scenario: when it ends (nothing unseen) the
    search stops, every order run, and says so; until then its summary says
    how much of the space the samples covered is not known.
    *max_seconds* bounds the search's wall-clock time: once it is spent,
    the search stops at the end of the run going on (it makes one run at
    least) and says so (:attr:`Exploration.stopped`), with what it found.
    *shard* (``"i/n"`` or ``(i, n)``) runs only the
    i-th of n disjoint parts of the search, split by the first *split_depth*
    choices of each schedule (by run number for the random strategies).
    The depth-first search first runs each such prefix once, in every
    shard alike (see :doc:`/exploration`), then the rest of its own: a data
    race met only in that rest, which the other shards do not park at, is
    named in :attr:`Exploration.unseen`.
    *timeout* bounds each wait for the threads to settle.

    The Python code the threads run is watched for data races on plain
    shared state (:mod:`blanket.exploration.watch`): their targets, what
    ``scenario.instrument`` names, and every function they call,
    transitively, but blanket's own, ``threading``'s, the import system's
    and what *exclude* names (module names, each standing for its
    submodules too, modules and functions; excluded code that runs is named
    in :attr:`Exploration.unseen`: it was not watched). A function first
    met running unwatched (called by C code: a property, a ``with`` block's
    ``__enter__``, a callback of ``sorted``) is watched from then on, and
    the search restarts. A call of a C callable blanket knows nothing of
    (``functools.lru_cache``'s wrapper: its cache is C code's) is named in
    :attr:`Exploration.unseen`. A witness independent of the watching
    (:mod:`blanket.exploration.witness`) sees the code the threads start
    through a mechanism of its own: what the watch neither watched nor
    named is named too, and the search does not say "the whole space".
    Each race found makes its accesses steps of the following runs (a new
    one restarts the search), and is listed on the result. *races* is
    ``"report"`` (that), ``"fail"`` (a race is also a failure) or ``"off"``
    (nothing watched: steps at calls on primitives only). What watched code
    makes with ``threading`` (threads, locks, ...) is the run's own
    (:mod:`blanket.exploration.adopt`). ``logging``'s loggers and handlers
    are put back after every run as they were before the first
    (:mod:`blanket.exploration.processwide`).

    *reach* names lines to run (``"pkg/module.py:42"``, ``(function, 42)``
    or a list of them: see :mod:`blanket.exploration.reach`): the search
    also stops once a run has run each of them, and
    :attr:`Exploration.reached` gives the schedule and the test. The
    ``"dfs"`` search then tries first the orders likely to run them
    (:mod:`blanket.exploration.guided`: timeouts expired first, then the
    threads in a target's function, switching between them): it still runs
    every order when it ends, so what it says of a line no order runs
    holds. *guided* ``False`` keeps the plain order; ``True`` asks for
    the guidance (it needs *reach* and ``"dfs"``); ``None``, the default,
    is guided whenever it can be. With
    *lines*, :attr:`Exploration.lines` says which lines of the watched
    files the runs ran, and which no order runs when the search covered
    every order.

    The test a failure carries (and each reached line's) is run as its
    user will run it, ``python -m unittest`` in a fresh interpreter, before
    it is handed over (:mod:`blanket.exploration.tried`):
    :attr:`Failure.checked` says what that showed, and a failure's test
    that passes is replaced by a comment saying so.

    *processes* > 1 runs the shards of the search in that many local
    processes and merges them (:mod:`blanket.exploration.processes`): the
    same schedules; the setup must be importable.

    *progress*, a callable, is given a :class:`~blanket.Progress` (the
    schedules counted and the runs made so far, the seconds elapsed, the
    data races and the gaps found, the budget and what is left of it) at
    most every :data:`~blanket.exploration.reporting.INTERVAL` seconds
    (0.2) while the search runs, and once at its end (``done``), before the
    written test is tried; with *processes* the processes send theirs to
    the caller, which adds them up. What it raises ends the search.

    On an interpreter the searches are not tested on it refuses,
    :class:`~blanket.UnsupportedInterpreter` (:mod:`blanket.interpreters`).
    """
    refuse_untested("explore")
    check_arguments(setup, strategy, seed, timeout, name, max_seconds)
    deadline = Deadline(max_seconds)
    check_count("max_schedules", max_schedules, 1)
    check_count("max_preemptions", max_preemptions, 0, optional=True)
    check_count("depth", depth, 1)
    check_count("split_depth", split_depth, 1)
    check_guided(guided, strategy, reach)
    check_progress(progress)
    if races not in RACES:
        raise ValueError(f"races={races!r}: expected one of {', '.join(map(repr, RACES))}")
    if isinstance(exclude, str):
        exclude = (exclude,)
    options = {"strategy": strategy, "max_schedules": max_schedules,
               "max_seconds": max_seconds, "max_preemptions": max_preemptions, "seed": seed,
               "depth": depth, "split_depth": split_depth, "timeout": timeout, "name": name,
               "races": races, "exclude": exclude, "reach": reach, "lines": lines,
               "guided": guided}
    keep, token = _KEPT.get(), _KEPT.set(None)  # (an exploration within keeps nothing)
    try:
        with alone():  # one exploration at a time in a process
            if check_processes(setup, processes) > 1:
                if shard is not None:
                    raise ValueError(f"shard={shard!r} with processes={processes}: the "
                                     "processes run the shards themselves")
                merged = search_processes(explore, setup, processes, options, progress)
                _hand_over(merged, setup, options, deadline)
                return merged
            search = Search(setup, options, shard)
            result = search.go(max_schedules, deadline, progress)
            _hand_over(result, setup, options, deadline)
            if keep is not None and search.resumable(result):
                keep.search = search
                result = copy.copy(result)  # as it is now: the search goes on with its own
                result.schedules, result.races = list(result.schedules), list(result.races)
            return result
    finally:
        _KEPT.reset(token)


class Search:
    """The search :func:`explore` makes of *setup* with its *options* (its
    *shard*, if one): the first call of :meth:`go` starts it, a later one
    takes it on from where it stopped (:func:`kept`)."""

    def __init__(self, setup: Setup, options: dict[str, Any],
                 shard: str | tuple[int, int] | None = None) -> None:
        self.setup, self.options, self.shard = setup, options, shard
        #: What is watched, and the lines looked for, if any.
        self.transitive = Transitive(options["exclude"])
        self.aim = goal(setup, options["reach"], options["lines"], options["timeout"])
        #: The search going on, once started.
        self.searching: Searching | None = None
        # Whether the runs' threads run on runners kept from one run to the
        # next (see blanket.exploration.threadlocals).
        self._reuse = True

    def go(self, max_schedules: int, deadline: Deadline,
           progress: Callable[[Progress], object] | None) -> Exploration:
        """The search, on until it counted *max_schedules* schedules, ended,
        failed, or *deadline* passed; *progress* told how far it went."""
        # A run's threads go one at a time (see blanket.exploration.affinity);
        # what the threads call is seen through sys.monitoring where there is
        # one (see blanket.exploration.monitor), else by a profile function per
        # thread, kept cheap to turn off by one that sleeps (see
        # blanket.exploration.runners); the lines looked for are probed for the
        # whole search.
        # The code the threads start is seen by the witness too, through a
        # route of its own (see blanket.exploration.witness).
        with one_cpu(), monitoring() as monitored, witnessing() as witnessed, \
                self.aim or nullcontext():
            while True:
                runners = Runners(keep_profile=not monitored, reuse=self._reuse)
                try:
                    result = self._search(runners, max_schedules, deadline, progress,
                                          monitored, witnessed)
                finally:
                    runners.close()  # nothing left running, however the search ended
                if not self._reuse or not runners.shared:
                    return result
                # A thread-local object made during the search outlives it: the
                # runs may have shared its data. The search is made again, from
                # the start, each thread on a runner of its own.
                self._reuse, self.searching = False, None

    def resumable(self, result: Exploration) -> bool:
        """Whether the depth-first search that gave *result* stopped at its
        count of schedules, nothing found: :meth:`resume` takes it on."""
        options = self.options
        return (options["strategy"] == "dfs" and self.aim is None and result.failure is None
                and result.stopped == f"max_schedules={options['max_schedules']}")

    def resume(self, max_schedules: int, max_seconds: float = BUDGET,
               progress: Callable[[Progress], object] | None = None) -> Exploration:
        """The search (:meth:`resumable`) taken on until *max_schedules*
        schedules are counted in all, or it ends, within *max_seconds*; as
        :func:`explore` would have given it had it been asked so at first
        (its runs and elapsed time counted from the start)."""
        self.options = {**self.options, "max_schedules": max_schedules,
                        "max_seconds": max_seconds}
        deadline = Deadline(max_seconds)
        with alone():
            result = self.go(max_schedules, deadline, progress)
            _hand_over(result, self.setup, self.options, deadline)
        return result

    def _search(self, runners: Runners, max_schedules: int, deadline: Deadline,
                progress: Callable[[Progress], object] | None, monitored: bool,
                witnessed: bool) -> Exploration:
        """:meth:`go`, its threads run on *runners*; their calls are seen
        through ``sys.monitoring`` when *monitored*, and what they start by
        the witness's tool when *witnessed*."""
        options = self.options
        strategy = options["strategy"]
        searching = self.searching
        if searching is None:
            searching = self.searching = self._start(runners, monitored, witnessed)
        else:  # on from where it stopped
            searching.runners = runners
            searching.result.stopped = ""
            searching.started = time.monotonic() - searching.result.elapsed
        searching.budget = budget(strategy, max_schedules, searching.index, searching.count)
        searching.deadline = deadline
        searching.reporter = None if progress is None else Reporter(progress)
        try:
            if strategy == "dfs":
                _depth_first(searching, max_schedules, options["max_preemptions"])
            else:
                _sample(searching, strategy, max_schedules, options["seed"], options["depth"])
            return searching.finish()
        finally:
            searching.before.restore()  # as before the search, however it ended

    def _start(self, runners: Runners, monitored: bool, witnessed: bool) -> Searching:
        """The search, started (see :meth:`_search`)."""
        options, setup, aim = self.options, self.setup, self.aim
        strategy = options["strategy"]
        index, count = parse_shard(self.shard)
        title = options["name"] or str(getattr(setup, "__qualname__", "exploration"))
        searching = Searching(setup, strategy, title, options["timeout"], options["races"],
                              runners, index, count, options["split_depth"], self.transitive,
                              aim)
        searching.unseen.monitored = monitored
        if searching.racy is not None:  # (with nothing watched, there is nothing to check)
            searching.unseen.witness = Witness(witnessed)
        if options["guided"] is not False and strategy == "dfs" and aim is not None \
                and aim.targets:
            searching.guide = Guide(aim.targets)
        if strategy == "dfs":
            searching.result.max_preemptions = options["max_preemptions"]
        return searching


class Kept:
    """Where :func:`kept` puts the search of the exploration made within it."""

    #: The search, if it can be taken on (:meth:`Search.resumable`).
    search: Search | None = None


_KEPT: contextvars.ContextVar[Kept | None] = contextvars.ContextVar("blanket_kept",
                                                                   default=None)


@contextlib.contextmanager
def kept() -> Iterator[Kept]:
    """Within it, the exploration the calling thread makes keeps its
    depth-first search when it stopped at *max_schedules*, nothing found,
    in what the block is given: :meth:`Search.resume` takes it on
    (:func:`blanket.check_linearizable`'s passes over its scenarios)."""
    keep = Kept()
    token = _KEPT.set(keep)
    try:
        yield keep
    finally:
        _KEPT.reset(token)


def _hand_over(result: Exploration, setup: Setup, options: dict[str, Any],
               deadline: Deadline) -> None:
    """Shrink the failure *result* carries, searching *setup* again with
    the search's *options* within *deadline* (:mod:`blanket.exploration.shrink`),
    then run the tests it carries as their user will, and say what they did
    (:mod:`blanket.exploration.tried`); in an interpreter that runs a
    written test for another, nothing is shrunk nor tried again."""
    shrink(result, setup, explore, options, deadline)
    timeout = options["timeout"]
    failure = result.failure
    if failure is not None:
        failure.checked, failure.source = try_failure_test(
            failure.source, failure.kind, summary_of(failure.kind, failure.message), timeout)
    for found in result.reached.values():
        if found is not None:
            found.checked = try_reach_test(found.source, timeout)


def _depth_first(searching: Searching, max_schedules: int, max_preemptions: int | None
                 ) -> None:
    """The ``"dfs"`` strategy, at most *max_schedules* schedules counted."""
    result = searching.result
    search = searching.dfs
    if search is None:
        search = searching.dfs = DepthFirst(max_preemptions, searching.split_depth,
                                            searching.guide)
    while len(result.schedules) < max_schedules:
        if searching.out_of_time():
            return
        went = searching.depth_first(search, result.schedules)
        if went in (FAILED, REACHED):
            return
        if went == GROWN:
            result.schedules.clear()
            # What the earlier runs met is met again by the new search if it
            # is there still; what code then unwatched met (a real lock it
            # took, now the scenario's) is not.
            searching.unseen.forget()
            search = searching.dfs = DepthFirst(max_preemptions, searching.split_depth,
                                                searching.guide)
        elif went == ENDED:
            result.exhausted = True
            if not search.bounded:  # the bound left nothing out: the whole space
                result.max_preemptions = None
            return
    result.stopped = f"max_schedules={max_schedules}"


def _sample(searching: Searching, strategy: str, max_schedules: int, seed: int,
            depth: int) -> None:
    """The ``"random"`` and ``"pct"`` strategies: the runs numbered 1 to
    *max_schedules* that are this shard's, each followed by one run of a
    depth-first pass of the same scenario (this shard's part of it). When
    the pass ends, nothing unseen, every order has been run: the search
    stops, its schedules the pass's. Until then, how much of the space the
    samples covered is not known."""
    result = searching.result
    index, count = searching.index, searching.count
    passing = DepthFirst(None, searching.split_depth)
    passed: list[tuple[str, ...]] = []  # the pass's schedules, this shard's
    length, sampled = 1, 0
    for number in range(1, max_schedules + 1):
        if (number - 1) % count != index - 1:  # the run numbers are split, not the count
            continue
        if searching.out_of_time():
            return
        sampled += 1
        searching.sampled = sampled
        rng = random.Random(f"{seed}/{number}")
        chooser = (uniform.chooser(rng) if strategy == "random"
                   else pct.chooser(rng, depth, length))
        run = searching.run(chooser)
        length = max(length, len(run.taken))
        went = searching.take(run, True, result.schedules, None)
        # Once something is unseen no pass could tell the whole space: it stops.
        if went == GOING and not searching.unknowable:
            result.depth_first_runs += 1
            try:
                went = searching.depth_first(passing, passed)
            except NotDeterministic as error:
                result.runs += 1  # torn down half-way, but run
                searching.doubts.append(f"{error.summary} (the depth-first pass beside "
                                        "the samples stopped there)")
        if went in (FAILED, REACHED):
            return
        if went == GROWN:  # the pass's steps are not the scenario's any more
            result.schedules.clear()
            passed.clear()
            searching.unseen.forget()  # (as the depth-first search does)
            passing = DepthFirst(None, searching.split_depth)
        elif went == ENDED and not searching.unknowable:
            result.schedules[:] = passed
            result.exhausted = True
            return
    result.stopped = f"max_schedules={max_schedules}"
