"""One search in progress (:class:`Searching`): its result so far, what its
runs met, and how each run is counted into it; which shard a schedule is
(:func:`owner`). The strategies that drive it are
:mod:`blanket.exploration.search`'s."""

from __future__ import annotations

import time
import zlib
from collections.abc import Sequence

from ..seconds import BUDGET, Deadline
from .dfs import DepthFirst
from .guided import Guide
from .processwide import Snapshot
from .races import Race
from .races import report as races_report
from .reach import Goal
from .reporting import Progress, Reporter
from .reproduce import reproduce
from .result import Exploration, Failure, Setup, unchecked
from .run import Chooser, Run, run_once
from .runners import Runners
from .sections import Sections, sections_of
from .sites import Site
from .unseen import Unseen
from .watch import Transitive


def owner(choices: Sequence[str], count: int) -> int:
    """The shard (1..count) a schedule prefix belongs to."""
    return zlib.crc32(",".join(choices).encode()) % count + 1


def failure_of(setup: Setup, run: Run) -> Failure:
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



#: How one run left the search: it ends at the run's failure, or once it
#: ran every line looked for (``reach=``); it starts again, the run having
#: met new data races; it goes on; or (a depth-first search's) it was the
#: last.
FAILED, REACHED, GROWN, GOING, ENDED = "failed", "reached", "grown", "going", "ended"


class Searching:
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
        #: What orders the depth-first search's choices, if anything; the
        #: depth-first search going on (kept, to go on with it later).
        self.guide: Guide | None = None
        self.dfs: DepthFirst | None = None
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
                result.failure = failure_of(self.setup, run)
                return FAILED
            # The threads ran free through accesses that were no steps yet (on
            # a free-threaded build, in parallel): no test could replay this
            # failure. Search on with them as steps; report it only if that
            # search finds nothing. A run that ran code it did not watch (a
            # thread it started stayed outside: a stall) is no evidence. (The
            # run is not kept: what it made would be seen by later setups.)
            if not unwatched and self.loose is None:
                self.loose = failure_of(self.setup, run)
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
        mine = owner(run.marks(self.split_depth), self.count) == self.index
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
