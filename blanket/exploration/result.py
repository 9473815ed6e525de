"""What an exploration gives back: the steps of a schedule, the failure
found with the test that replays it, and the summary of the search."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .races import Race
from .reached import FileLines, Reach, summary
from .tried import remark

if TYPE_CHECKING:  # pragma: no cover
    from ..scenario import Scenario

#: What a setup function looks like: it fills a scenario, and returns the
#: invariant to check after the threads finish (or ``None``).
Setup = Callable[["Scenario"], "Callable[[], object] | None"]


@dataclass(frozen=True)
class Step:
    """One scheduling decision: *thread*'s call, parked at *state*, let go."""

    #: The thread's name ("A", "B", ...).
    thread: str
    #: The primitive's kind and the method, e.g. ``"Lock.acquire"``.
    call: str
    #: The primitive as reports name it: its name if it has one, else its
    #: label ("Lock 2").
    primitive: str
    #: ``"BLOCKED"`` (the call starts) or ``"STALLED"`` (a woken
    #: ``Condition.wait`` takes its lock back).
    state: str
    #: Whether the call was made to time out at once (it could not succeed).
    expired: bool = False
    #: Threads that went on by themselves after this step, with where they
    #: stopped: ``"parked"`` (or finished) or ``"waiting"``.
    settled: tuple[tuple[str, str], ...] = ()
    #: Whether the call's timeout was disregarded (it could succeed): the
    #: exploration never waits for a timeout to run out.
    disregarded: bool = False
    #: For a step at a data race, where the access is, the file by its
    #: module's path: ``"shop/bank.py:12"`` (:attr:`blanket.exploration.sites.Site.place`).
    where: str = ""
    #: For a call on a primitive, where the code made it, the file by its
    #: module's path, when known (the steps of a failure's shrunk schedule,
    #: see :mod:`blanket.exploration.shrink`): ``"shop/pool.py:31"``. Not
    #: part of the step's text: a schedule replays whatever line a call is
    #: on.
    at: str = ""
    #: For a call on a primitive, the name the code that made it gives the
    #: primitive there, when found (with :attr:`at`): a variable (``lock``)
    #: or an attribute of one (``self._cond``, ``pool._lock``).
    named: str = ""

    @property
    def made(self) -> str:
        """Where the call was made, as a report says it: ``"self._cond at
        shop/pool.py:31"``, ``"at shop/pool.py:31"``, ``"self._cond"``, or
        ``""`` when neither is known."""
        return " ".join(part for part in (self.named, self.at and f"at {self.at}") if part)

    @property
    def mark(self) -> str:
        """The step in a schedule: the thread's name, with ``*`` when the call
        was made to time out."""
        return self.thread + "*" * self.expired

    def __str__(self) -> str:
        if self.call.startswith("Memory."):  # "A: write Counter.count at shop/bank.py:12"
            return f"{self.thread}: {self.call[7:]} {self.primitive} at {self.where}"
        expired = " (expired)" if self.expired else ""
        disregarded = " (timeout disregarded)" if self.disregarded else ""
        resume = " resumes" if self.state == "STALLED" else ""
        return f"{self.thread}: {self.primitive} {self.call}{resume}{expired}{disregarded}"


@dataclass
class Failure:
    """What went wrong in one run, and how to make it happen again."""

    #: ``"invariant"``, ``"exception"``, ``"deadlock"``, ``"stall"``,
    #: ``"livelock"`` (threads spinning on shared state, with data races
    #: watched) or ``"race"`` (with ``races="fail"``).
    kind: str
    #: The error, the traceback or the deadlock report.
    message: str
    #: The steps of the failing run, in order, shrunk before they are
    #: reported (see :mod:`blanket.exploration.shrink` and :attr:`shrunk`).
    schedule: tuple[Step, ...]
    #: Python source of a ScenarioTestCase replaying the schedule, steps at
    #: data races too (by what they access and where: see
    #: :func:`blanket.exploration.reproduce.replay`).
    source: str = ""
    #: What running :attr:`source` as its user will (``python -m
    #: unittest``, a fresh interpreter) showed, in a sentence starting
    #: ``"tried:"`` when it failed as the search's run did (see
    #: :mod:`blanket.exploration.tried`); a test that passed so is not
    #: handed over: :attr:`source` is then a comment saying so. The report
    #: (``str()``) ends with it when the test was run and did not fail so.
    checked: str = ""
    #: What shrinking the schedule did, in a sentence: ``"shrunk: ..."``
    #: (the fewest preemptions, then steps, that fail so: see
    #: :mod:`blanket.exploration.shrink`), or why the schedule may not be
    #: the smallest (shrinking stopped by its budget) or was not shrunk;
    #: ``""`` where nothing was shrunk (a shard's process). The report
    #: (``str()``) says it after the schedule unless it starts ``"shrunk:"``.
    shrunk: str = ""

    def __str__(self) -> str:
        steps = "\n".join(f"  {n}. {step}{f'  ({step.made})' if step.made else ''}"
                          for n, step in enumerate(self.schedule, 1))
        # A deadlock's report says "deadlock: ..." itself: the kind once.
        said = self.message.startswith(f"{self.kind}: ")
        head = self.message if said else f"{self.kind}: {self.message}"
        shrunk = "" if self.shrunk.startswith("shrunk:") or not self.shrunk else (
            f"\n{self.shrunk}")
        return f"{head}\nschedule:\n{steps}{shrunk}{remark(self.checked)}"


@dataclass
class Exploration:
    """The result of :func:`explore`."""

    #: The strategy used.
    strategy: str
    #: Each schedule run to its end (and counted), as the order of threads
    #: let go, e.g. ``("A", "A", "B", ...)``.
    schedules: list[tuple[str, ...]] = field(default_factory=list)
    #: Whether the search covered its whole space, having seen nothing
    #: outside its control (:attr:`unseen` is empty). For ``"random"`` and
    #: ``"pct"``: the depth-first pass run beside the samples ended (see
    #: :attr:`depth_first_runs`), and :attr:`schedules` are its.
    exhausted: bool = False
    #: The first failure found, or ``None``.
    failure: Failure | None = None
    #: Seconds the search took.
    elapsed: float = 0.0
    #: Runs made, counted or not (replays to reach other shards' schedules,
    #: runs that partial-order reduction found redundant).
    runs: int = 0
    #: What the runs met that blanket does not schedule, so that their
    #: schedules are not every order of the program: threads started
    #: outside blanket, real primitives used by the threads, blocking calls,
    #: C callables blanket knows nothing of, Python code the threads ran
    #: that the watch neither watched nor named (seen by the witness, see
    #: :mod:`blanket.exploration.witness`);
    #: each with where it happened, e.g. ``"real Lock used at cache.py:14"``;
    #: and for a shard of a depth-first search, data races met only below
    #: its split, where the other shards do not park.
    unseen: list[str] = field(default_factory=list)
    #: The data races seen, in the order first seen (see :mod:`blanket.exploration.races`).
    races: list[Race] = field(default_factory=list)
    #: The bound on preemptions the search kept to (``max_preemptions``), or
    #: ``None``. A bounded search that ends has covered what its bound let
    #: it reach, which leaves orders out: its summary never says "the whole
    #: space". (If the bound left no order out, the search that ended was
    #: the unbounded one: ``None``, and the whole space.)
    max_preemptions: int | None = None
    #: For ``"random"`` and ``"pct"``: the runs of the depth-first pass made
    #: beside the sampled ones, one after each, to tell whether the space is
    #: smaller than the budget (then the search stops once the pass ends,
    #: :attr:`exhausted`); included in :attr:`runs`. 0 for ``"dfs"``.
    depth_first_runs: int = 0
    #: For each line asked about (``reach=``), as steps name places
    #: (``"pkg/module.py:42"``): the schedule that ran it with the test
    #: replaying it, or ``None`` (see :mod:`blanket.exploration.reach`).
    reached: dict[str, Reach | None] = field(default_factory=dict)
    #: With ``lines=True``, for each watched file (as steps name it), the
    #: lines the runs ran and those they did not.
    lines: dict[str, FileLines] = field(default_factory=dict)
    #: When no failure was found: what could not have failed, if the setup
    #: made that so. A setup that made no thread ran nothing; one that
    #: returned no invariant judged no result (only a thread's exception, a
    #: deadlock or a stall could fail). ``""`` otherwise.
    unchecked: str = ""
    #: The budget that ended the search while orders were left, as it was
    #: given (``"max_schedules=10000"``, ``"max_seconds=120"``); ``""`` when
    #: the search ended otherwise (its space run, a failure found, a line
    #: reached).
    stopped: str = ""

    @property
    def count(self) -> int:
        """How many distinct schedules were run to their end."""
        return len(set(self.schedules))

    @property
    def ok(self) -> bool:
        """Whether no failure was found."""
        return self.failure is None

    def __str__(self) -> str:
        found = "no failure" if self.failure is None else f"a failure: {self.failure}"
        if self.failure is None and self.unchecked:
            found += f" ({self.unchecked})"
        space = ""
        if self.exhausted:
            space = (", the whole space" if self.max_preemptions is None else
                     f", all it reached with at most {self.max_preemptions} preemption(s) "
                     "(bounded: not every order)")
            if self.strategy != "dfs":
                space += (f" (a depth-first pass of {self.depth_first_runs} run(s) beside "
                          "the samples ran every order)")
        unseen = f"; not exhaustive: {'; '.join(self.unseen)}" if self.unseen else ""
        if self.strategy != "dfs" and not (self.exhausted or self.unseen or self.failure):
            unseen = ("; how much of the space they cover is not known: a depth-first "
                      f"pass of {self.depth_first_runs} run(s) beside them did not end")
        races = f", {len(self.races)} data race(s)" if self.races else ""
        if self.stopped and self.strategy == "dfs":
            unseen = f"; stopped by {self.stopped} with orders left{unseen}"
        elif self.stopped.startswith("max_seconds="):  # (a sampling search's count is its end)
            unseen = f"; stopped by {self.stopped} with samples left{unseen}"
        return (f"{self.strategy}: {self.count} distinct schedule(s){space}{races} in "
                f"{self.elapsed:.2f} s{unseen}; {found}"
                f"{summary(self.reached, self.exhausted, self.max_preemptions)}")


def unchecked(threads: bool, judged: bool, races: str) -> str:
    """What a search's runs (its data races failing them or not, *races*)
    could not have found, when some made threads (*threads*) and some
    returned an invariant (*judged*): see :attr:`Exploration.unchecked`."""
    if not threads:
        return "the setup made no thread: nothing ran that could fail"
    if not judged:
        could = "an exception, a deadlock, a stall or a data race" if races == "fail" else (
            "an exception, a deadlock or a stall")
        return f"no invariant was returned: only {could} could fail"
    return ""
