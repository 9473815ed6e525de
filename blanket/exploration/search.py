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

import random
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
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
from .processwide import Snapshot
from .races import Race
from .races import report as races_report
from .reach import Goal, goal
from .reporting import Progress, Reporter, budget, check_progress
from .reproduce import reproduce, summary_of
from .result import Exploration, Failure, Setup, unchecked
from .run import Chooser, Run, run_once
from .runners import Runners
from .sections import Sections, sections_of
from .shrink import shrink
from .sites import Site
from .tried import try_failure_test, try_reach_test
from .unseen import Unseen
from .watch import Transitive
from .witness import Witness, witnessing


def _owner(choices: Sequence[str], count: int) -> int:
    """The shard (1..count) a schedule prefix belongs to."""
    return zlib.crc32(",".join(choices).encode()) % count + 1


def _failure(setup: Setup, run: Run) -> Failure:
    """The failure of *run*, with a test replaying it."""
    assert run.failure is not None
    kind, message = run.failure
    steps = tuple(run.steps)
    if kind == "livelock" and run.spins.forced_from is not None:
        # The turns the spinning threads took once nothing else could go:
        # the replay's rule takes them alike (see blanket.exploration.spins).
        steps = steps[:run.spins.forced_from]
    return Failure(kind, message, steps,
                   reproduce(setup, steps, kind, message, run.scenario.timeout))


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
    with alone():  # one exploration at a time in a process
        if check_processes(setup, processes) > 1:
            if shard is not None:
                raise ValueError(f"shard={shard!r} with processes={processes}: the processes "
                                 "run the shards themselves")
            merged = search_processes(explore, setup, processes, options, progress)
            _hand_over(merged, setup, options, deadline)
            return merged
        transitive = Transitive(exclude)
        aim = goal(setup, reach, lines, timeout)
        # A run's threads go one at a time (see blanket.exploration.affinity);
        # what the threads call is seen through sys.monitoring where there is
        # one (see blanket.exploration.monitor), else by a profile function per
        # thread, kept cheap to turn off by one that sleeps (see
        # blanket.exploration.runners); the lines looked for are probed for the
        # whole search.
        # The code the threads start is seen by the witness too, through a
        # route of its own (see blanket.exploration.witness).
        with one_cpu(), monitoring() as monitored, witnessing() as witnessed, \
                aim or nullcontext():
            # The threads run on runners kept from one run to the next; if a
            # thread-local object made during the search outlives it, the runs
            # may have shared its data: the search is made again, each thread
            # on a runner of its own (see blanket.exploration.threadlocals).
            for reuse in (True, False):  # pragma: no branch - the second never shares
                runners = Runners(keep_profile=not monitored, reuse=reuse)
                try:
                    result = _search(setup, strategy, max_schedules, max_preemptions, seed, depth,
                                     shard, split_depth, timeout, name, races, runners,
                                     transitive, deadline, aim, guided is not False,
                                     monitored, progress, witnessed)
                finally:
                    runners.close()  # nothing left running, however the search ended
                if not runners.shared:
                    break
        _hand_over(result, setup, options, deadline)
        return result


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


def _search(setup: Setup, strategy: str, max_schedules: int, max_preemptions: int | None,
            seed: int, depth: int, shard: str | tuple[int, int] | None, split_depth: int,
            timeout: float, name: str | None, races: str, runners: Runners,
            transitive: Transitive, deadline: Deadline, aim: Goal | None = None,
            guided: bool = False, monitored: bool = False,
            progress: Callable[[Progress], object] | None = None, witnessed: bool = False
            ) -> Exploration:
    """:func:`explore`, its arguments checked; the runs' managed threads
    run on *runners*; *transitive* says what is watched, *aim* the lines
    looked for, which a depth-first search is *guided* toward; the threads'
    calls are seen through ``sys.monitoring`` when *monitored*, and what
    they start by the witness's tool when *witnessed*; *progress* is told
    how far it went; *deadline* bounds its wall-clock time."""
    index, count = parse_shard(shard)
    title = name or str(getattr(setup, "__qualname__", "exploration"))
    searching = _Searching(setup, strategy, title, timeout, races, runners, index, count,
                           split_depth, transitive, aim)
    searching.unseen.monitored = monitored
    if searching.racy is not None:  # (with nothing watched, there is nothing to check)
        searching.unseen.witness = Witness(witnessed)
    searching.budget = budget(strategy, max_schedules, index, count)
    searching.deadline = deadline
    if progress is not None:
        searching.reporter = Reporter(progress)
    if guided and strategy == "dfs" and aim is not None and aim.targets:
        searching.guide = Guide(aim.targets)
    try:
        if strategy == "dfs":
            searching.result.max_preemptions = max_preemptions
            _depth_first(searching, max_schedules, max_preemptions)
        else:
            _sample(searching, strategy, max_schedules, seed, depth)
        return searching.finish()
    finally:
        searching.before.restore()  # as before the search, however it ended


#: How one run left the search: it ends at the run's failure, or once it
#: ran every line looked for (``reach=``); it starts again, the run having
#: met new data races; it goes on; or (a depth-first search's) it was the
#: last.
FAILED, REACHED, GROWN, GOING, ENDED = "failed", "reached", "grown", "going", "ended"


class _Searching:
    """One search in progress: its result so far, and what its runs met."""

    def __init__(self, setup: Setup, strategy: str, title: str, timeout: float, races: str,
                 runners: Runners, index: int, count: int, split_depth: int,
                 transitive: Transitive, aim: Goal | None) -> None:
        self.setup, self.title, self.timeout, self.races = setup, title, timeout, races
        self.runners, self.index, self.count = runners, index, count
        self.split_depth = split_depth
        #: The sites of the data races found: they park (None: nothing watched).
        self.racy: set[Site] | None = None if races == "off" else set()
        self.seen: set[Race] = set()
        self.result = Exploration(strategy)
        self.unseen = Unseen()
        #: What is watched (see :class:`~blanket.exploration.watch.Transitive`).
        self.transitive = transitive
        if self.racy is not None:
            self.unseen.transitive = transitive
        #: The lines looked for (``reach=``, ``lines=``), if any.
        self.aim = aim
        if aim is not None:
            aim.start(self.result)
        self.started = time.monotonic()
        self.loose: Failure | None = None  # a failure its schedule does not make
        self.late: list[str] = []  # sites of races met after the split, in this shard only
        #: Why the search could not tell the whole space, besides what was unseen.
        self.doubts: list[str] = []
        #: The process-wide state every run starts from (logging's).
        self.before = Snapshot()
        #: What orders the depth-first search's choices, if anything.
        self.guide: Guide | None = None
        #: Whether a run made a thread, and whether one returned an invariant.
        self.threads = self.judged = False
        #: The places threads spun at (see :mod:`blanket.exploration.spins`).
        self.spun: set[str] = set()
        #: Who is told how far the search went, if anyone; the schedules
        #: this shard may count; the samples taken (the random strategies'
        #: budget), None for a depth-first search (its budget is its count).
        self.reporter: Reporter | None = None
        self.budget = 0
        self.sampled: int | None = None
        #: When the wall-clock budget is spent.
        self.deadline = Deadline(BUDGET)
        #: Whether the depth-first search tells critical sections apart
        #: (:mod:`.sections`): while watched, nothing met unseen.
        self.lazy = self.racy is not None

    def out_of_time(self) -> bool:
        """Whether the wall-clock budget is spent, a run made: the search
        stops there, and its result says so."""
        if self.result.runs and self.deadline.spent():
            self.result.stopped = self.deadline.label
            return True
        return False

    @property
    def unknowable(self) -> bool:
        """Whether the runs met what makes their space not the program's
        (:attr:`Exploration.unseen`): no search could tell it whole."""
        return bool(self.unseen.notes or self.late or self.doubts)

    def run(self, choose: Chooser) -> Run:
        """One run of the scenario, *choose* picking its steps; the
        process-wide state put back after it (see
        :mod:`blanket.exploration.processwide`)."""
        try:
            return run_once(self.setup, self.title, self.timeout, choose, self.unseen,
                            self.racy, runners=self.runners)
        finally:
            self.before.restore()
            self.runners.run_over()

    def take(self, run: Run, mine: bool, schedules: list[tuple[str, ...]],
             search: DepthFirst | None, sections: Sections | None = None) -> str:
        """Count *run* (its schedule among *schedules* when it is this shard's,
        *mine*; *search* the depth-first search that made it, if one did):
        :data:`FAILED`, :data:`REACHED`, :data:`GROWN` or :data:`GOING`; say
        how far the search went when a report is due."""
        went = self._take(run, mine, schedules, search, sections)
        if self.reporter is not None and self.reporter.due():
            self.reporter.report(self.progress())
        return went

    def progress(self, done: bool = False) -> Progress:
        """How far the search went (its end, when *done*)."""
        result = self.result
        spent = len(result.schedules) if self.sampled is None else self.sampled
        if done:
            unseen, elapsed = len(result.unseen), result.elapsed
        else:
            unseen = len(self.unseen.notes) + len(self.doubts) + bool(self.late)
            elapsed = time.monotonic() - self.started
        return Progress(len(result.schedules), result.runs, elapsed, len(result.races),
                        unseen, self.budget, max(0, self.budget - spent), done)

    def _take(self, run: Run, mine: bool, schedules: list[tuple[str, ...]],
              search: DepthFirst | None, sections: Sections | None) -> str:
        """:meth:`take`, the report aside."""
        result = self.result
        result.runs += 1
        self.threads = self.threads or bool(run.core.managed)
        self.judged = self.judged or run.invariant is not None
        if mine and not run.redundant:
            schedules.append(run.marks())
        grown = unwatched = False
        if self.racy is not None:
            found, sites = run.races(sections)
            sites |= run.free_spins.sites  # where a thread spun: steps too
            # Code the run did not watch, watched from now on (in a shard too:
            # the other shards' runs meet it themselves where they run it).
            # What that code did (a lock it took) the run did not see: the
            # races it seems to show are no evidence.
            if self.transitive.grown:
                self.transitive.grown, grown, found, unwatched = False, True, [], True
            result.races += [race for race in found if race not in self.seen]
            self.seen.update(found)
            new = sites - self.racy
            grown = grown or bool(new)
            self.racy |= sites
            if new and search is not None and not search.top and self.count > 1:
                self.late += sorted({site.place for site in new})
            if found and self.races == "fail" and run.failure is None:
                run.failure = ("race", races_report(found))
        for where, what in run.spins.noted.items():  # a reduction: say so
            if where not in self.spun:
                self.spun.add(where)
                self.doubts.append(
                    f"a thread spun at {where}, {what}: it was let go again only once "
                    "another thread changed something or none could go (a fair choice), "
                    "so orders where it spins on first were not run")
        reached = self.aim is not None and self.aim.note(run, result, grown)
        if mine and run.failure is not None:
            if not grown or run.failure[0] == "race":
                result.failure = _failure(self.setup, run)
                return FAILED
            # The threads ran free through accesses that were no steps yet (on
            # a free-threaded build, in parallel): no test could replay this
            # failure. Search on with them as steps; report it only if that
            # search finds nothing. A run that ran code it did not watch (a
            # thread it started stayed outside: a stall) is no evidence. (The
            # run is not kept: what it made would be seen by later setups.)
            if not unwatched and self.loose is None:
                self.loose = _failure(self.setup, run)
        if reached:  # every line looked for ran
            return REACHED
        # New scheduling points: the space searched so far is not the
        # scenario's. Search again; the schedules counted are the new search's.
        return GROWN if grown else GOING

    def depth_first(self, search: DepthFirst, schedules: list[tuple[str, ...]]) -> str:
        """One run of the depth-first *search*, counted among *schedules* when
        its prefix is this shard's: as :meth:`take`, or ``"ended"`` when it
        was the search's last."""
        search.lazy = self.lazy
        run = self.run(search.choose)
        # Once anything was met unseen, what a section did may not all have
        # been watched: from then on no two sections on a lock are apart.
        search.lazy = self.lazy = self.lazy and not self.unseen.notes
        sections = sections_of(run) if search.lazy else None
        search.analyse(run.trace, run.pending, sections)
        mine = _owner(run.marks(self.split_depth), self.count) == self.index
        went = self.take(run, mine, schedules, search, sections)
        return went if went != GOING or search.advance(mine) else ENDED

    def finish(self) -> Exploration:
        """The result, the search over."""
        result = self.result
        if result.failure is None:
            result.failure = self.loose
        witness = self.unseen.witness
        # What the threads ran that the watch neither watched nor named, as
        # the witness saw it, makes the space not the program's too.
        gaps = [] if witness is None else witness.gaps(self.transitive)
        result.unseen = self.unseen.notes + self.doubts + gaps
        if self.late:
            result.unseen.append(
                f"shard {self.index}/{self.count}: data race(s) at "
                f"{', '.join(dict.fromkeys(self.late))} met after the split, in this "
                "shard's runs: the other shards do not park there")
        result.exhausted = result.exhausted and not result.unseen
        result.unchecked = unchecked(self.threads, self.judged, self.races)
        result.elapsed = time.monotonic() - self.started
        if self.aim is not None:
            self.aim.finish(result)
        if self.reporter is not None:
            self.reporter.report(self.progress(done=True))
        return result


def _depth_first(searching: _Searching, max_schedules: int, max_preemptions: int | None
                 ) -> None:
    """The ``"dfs"`` strategy, at most *max_schedules* schedules counted."""
    result = searching.result
    search = DepthFirst(max_preemptions, searching.split_depth, searching.guide)
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
            search = DepthFirst(max_preemptions, searching.split_depth, searching.guide)
        elif went == ENDED:
            result.exhausted = True
            if not search.bounded:  # the bound left nothing out: the whole space
                result.max_preemptions = None
            return
    result.stopped = f"max_schedules={max_schedules}"


def _sample(searching: _Searching, strategy: str, max_schedules: int, seed: int,
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
