"""Exploration: run a scenario under many orders of its calls, and stop at
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

Real time never passes: a call whose outcome depends on its timeout is two
choices, waited for in time or expired at once.

The scheduler's seat is taken by whichever thread settles the run: the
thread whose park leaves every thread parked or asleep for good makes the
choice and lets the chosen call go itself (:meth:`_Run.carry_on`), so a
step costs one hand-off between threads at most, and none when a thread
goes on with its own call. The exploring thread lets the first step go,
sleeps while the threads take steps, and takes the seat back when the
settle comes another way (a thread ends, or sleeps in a real primitive),
when no call can go, or when the chooser cuts the run short or raises.
The threads of a run take turns on one CPU (:mod:`blanket.affinity`).

A run fails when a thread raises, when the invariant fails, or when live
threads remain and no call can be let go (a deadlock, reported as its
wait-for cycle). The failure carries the schedule and the source of a
:class:`~blanket.ScenarioTestCase` that replays it (:mod:`blanket.reproduce`).
``shard=(i, n)`` splits a search deterministically: the shards 1..n of one
search run disjoint sets of schedules that together are the whole search.
The depth-first search splits exactly with data races watched too: its
first pass, which every shard makes alike, runs each prefix of the split
once, and the races it meets restart the search in every shard alike.
"""

from __future__ import annotations

import dataclasses
import random
import time
import traceback
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from . import progress, races
from .affinity import one_cpu
from .errors import StallError
from .races import MEMORY, Race
from .races import report as races_report
from .runners import Runners
from .seconds import check_seconds
from .states import State
from .testcase import thread_names
from .unseen import Unseen

if TYPE_CHECKING:  # pragma: no cover
    from .parking import Parker
    from .scenario import Scenario
    from .transaction import Transaction
    from .watch import Site

#: What a setup function looks like: it fills a scenario, and returns the
#: invariant to check after the threads finish (or ``None``).
Setup = Callable[["Scenario"], "Callable[[], object] | None"]

STRATEGIES = ("dfs", "random", "pct")
#: What :func:`explore` does with data races on plain shared state.
RACES = ("report", "fail", "off")


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
    #: module's path: ``"shop/bank.py:12"`` (:attr:`blanket.watch.Site.place`).
    where: str = ""

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

    #: ``"invariant"``, ``"exception"``, ``"deadlock"``, ``"stall"`` or
    #: ``"race"`` (with ``races="fail"``).
    kind: str
    #: The error, the traceback or the deadlock report.
    message: str
    #: The steps of the failing run, in order.
    schedule: tuple[Step, ...]
    #: Python source of a ScenarioTestCase replaying the schedule, steps at
    #: data races too (by what they access and where: see
    #: :func:`blanket.reproduce.replay`).
    source: str = ""

    def __str__(self) -> str:
        steps = "\n".join(f"  {n}. {step}" for n, step in enumerate(self.schedule, 1))
        # A deadlock's report says "deadlock: ..." itself: the kind once.
        said = self.message.startswith(f"{self.kind}: ")
        head = self.message if said else f"{self.kind}: {self.message}"
        return f"{head}\nschedule:\n{steps}"


@dataclass
class Exploration:
    """The result of :func:`explore`."""

    #: The strategy used.
    strategy: str
    #: Each schedule run to its end (and counted), as the order of threads
    #: let go, e.g. ``("A", "A", "B", ...)``.
    schedules: list[tuple[str, ...]] = field(default_factory=list)
    #: Whether the search covered its whole space (``"dfs"`` only), having
    #: seen nothing outside its control (:attr:`unseen` is empty).
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
    #: outside blanket, real primitives used by the threads, blocking calls;
    #: each with where it happened, e.g. ``"real Lock used at cache.py:14"``;
    #: and for a shard of a depth-first search, data races met only below
    #: its split, where the other shards do not park.
    unseen: list[str] = field(default_factory=list)
    #: The data races seen, in the order first seen (see :mod:`blanket.races`).
    races: list[Race] = field(default_factory=list)
    #: The bound on preemptions the search kept to (``max_preemptions``), or
    #: ``None``. A bounded search that ends has covered what its bound let
    #: it reach, which leaves orders out: its summary never says "the whole
    #: space".
    max_preemptions: int | None = None

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
        space = ""
        if self.exhausted:
            space = (", the whole space" if self.max_preemptions is None else
                     f", all it reached with at most {self.max_preemptions} preemption(s) "
                     "(bounded: not every order)")
        unseen = f"; not exhaustive: {'; '.join(self.unseen)}" if self.unseen else ""
        races = f", {len(self.races)} data race(s)" if self.races else ""
        return (f"{self.strategy}: {self.count} distinct schedule(s){space}{races} in "
                f"{self.elapsed:.2f} s{unseen}; {found}")


# -- one run ------------------------------------------------------------------------

class _Option:
    """A parked call the scheduler may let go, and how: ``"go"``, or for a
    call whose outcome depends on time, ``"wait"`` (as if it had no
    timeout: what it waits for comes in time) or ``"expire"`` (its timeout
    runs out now). (A plain class: every step makes one or two.)"""

    __slots__ = ("thread", "key", "tx", "how", "choice")

    def __init__(self, thread: int, key: str, tx: Transaction, how: str = "go") -> None:
        self.thread = thread
        self.key = key
        self.tx = tx
        self.how = how
        #: The option's number in the search: two per thread.
        self.choice = 2 * thread + (how == "expire")


#: What picks the option to take at each depth of a run: its index in the
#: options, or None to cut the run short as one already covered.
Chooser = Callable[[int, list[_Option], "_Run"], "int | None"]


def _key(tx: Transaction) -> str:
    """What a step acts on, for telling dependent steps apart; for a racy
    access, ``memory:read:`` or ``memory:write:`` and what it reaches."""
    if tx.spec.kind == "Memory":
        return f"{MEMORY}{tx.spec.name}:{progress.name_of(tx.primitive)}"
    return progress.name_of(progress.resource(tx.primitive))


def _dependent(a: str, b: str) -> bool:
    """Whether steps on keys *a* and *b* may not commute: calls on one
    primitive, or accesses to one piece of state but two reads."""
    if a == b:
        return not a.startswith(_READ)
    return a.startswith(MEMORY) and b.startswith(MEMORY) and \
        a.split(":", 2)[2] == b.split(":", 2)[2]


_READ = f"{MEMORY}read:"


class _Run:
    """One run of the scenario, with the scheduler's seat taken by a chooser."""

    def __init__(self, setup: Setup, name: str, timeout: float, choose: Chooser,
                 unseen: Unseen | None = None, racy: set[Site] | None = None,
                 parks: set[tuple[str, str, str]] | None = None,
                 runners: Runners | None = None) -> None:
        from .scenario import Scenario
        self.scenario = scenario = Scenario(name, timeout=timeout)
        scenario._report_dead_workers = False  # a failure of the run, see finish()
        self.core = scenario._core
        self.core.start_in_turn = True
        self.core.runners = runners
        self.core.settling = True  # the scheduler waits for progress.Settled only
        #: The watch of plain shared state (threads' targets followed when
        #: *racy* is given: the sites that park).
        self.watch = scenario._watch
        if racy is not None:
            self.watch.follow_threads = True
            self.watch.racy = racy
        if parks:  # a replay's accesses at data races, by meaning
            self.watch.follow_threads = True
            self.watch.parks = parks
        # The threads and primitives the watched code makes are the run's.
        scenario.adopt = racy is not None or parks is not None
        if unseen is None:  # not watched
            self.invariant = setup(scenario)
        else:
            self.invariant = unseen.setup(lambda: setup(scenario))
            for thread in scenario.managed:
                unseen.watch(thread)
        self.threads = list(scenario.managed)
        #: Each thread's number: its place in :attr:`threads`.
        self.numbers = {thread: n for n, thread in enumerate(self.threads)}
        if runners is not None:
            runners.reserve(len(self.threads))
        for thread, thread_name in zip(self.threads, thread_names(), strict=False):
            thread.name = thread_name
        #: What each step said of its call (see _what), whether it expired or
        #: was disregarded, and the other threads it moved with where they
        #: were then (see _observe): made into Steps only when asked for.
        self.taken: list[tuple[tuple[str, str, str, str, str], bool, bool,
                               list[tuple[int, tuple[object, ...]]]]] = []
        self.failure: tuple[str, str] | None = None
        #: Each step's thread, primitive and the other threads it moved.
        self.trace: list[tuple[int, str, tuple[int, ...]]] = []
        #: Every parked thread's call, by thread number, at the last settle.
        self.pending: dict[int, str] = {}
        #: Whether the run was cut short as one already covered, or as one
        #: that cannot happen (a call let go to wait "in time" waits for ever).
        self.redundant = False
        self.disregarded: set[Transaction] = set()
        #: Where each thread was when the last step settled (see _observe).
        self.seen: dict[int, tuple[object, ...]] | None = None
        #: Each parked call's key (see _key), worked out once.
        self.keys: dict[Transaction, str] = {}
        #: Picks the option to take at each depth (None: cut the run short).
        self.choose = choose
        #: The number of steps let go so far.
        self.depth = 0
        #: The step let go and not yet settled: its option, what it says of
        #: its call (see _what), whether expired or disregarded, and where
        #: the threads were before it.
        self.going: tuple[_Option, tuple[str, str, str, str, str], bool, bool,
                          dict[int, tuple[object, ...]]] | None = None
        #: The options and the choice (or what the chooser raised) of a thread
        #: that settled everything and left the step to the scheduler.
        self.decided: tuple[list[_Option], int | BaseException | None] | None = None

    @property
    def steps(self) -> list[Step]:
        """The steps of the run so far."""
        return [_step(what, expired, disregarded, tuple(
                    (self.threads[index].name,
                     "waiting" if seen[1] is State.WAITING and not seen[2] else "parked")
                    for index, seen in moved))
                for what, expired, disregarded, moved in self.taken]

    def marks(self, count: int | None = None) -> tuple[str, ...]:
        """The marks of the first *count* steps (all by default): see :attr:`Step.mark`."""
        return tuple(what[0] + "*" * expired for what, expired, _, _ in self.taken[:count])

    @staticmethod
    def _what(tx: Transaction) -> tuple[str, str, str, str, str]:
        """What a step letting *tx* go says of it, before anything moved:
        the thread, the call, the primitive, the state, where."""
        spec, primitive = tx.spec, cast(Any, tx.primitive)
        # Only an access has a place (a primitive would look its attributes
        # up on the real one first).
        where = primitive.where if spec.kind == "Memory" else ""
        return (tx.thread.name, f"{spec.kind}.{spec.name}", progress.name_of(primitive),
                tx._state._name_, where)

    @staticmethod
    def describe(tx: Transaction, expired: bool = False, disregarded: bool = False) -> Step:
        """The step letting *tx* go (made to time out, or its timeout
        disregarded), before anything moved."""
        return _step(_Run._what(tx), expired, disregarded, ())

    def _index(self, thread: Any) -> int:
        number = self.numbers.get(thread)
        if number is None:  # a thread the code under test started
            number = self.numbers[thread] = len(self.threads)
            self.threads.append(thread)
        return number

    def _observe(self) -> dict[int, tuple[object, ...]]:
        """Where each thread is (lock held), to tell which ones moved."""
        core = self.core
        # Threads started since (adopted ones) too: moved by the step that started them.
        for thread in core.managed:
            if thread not in self.numbers:
                self._index(thread)
        seen: dict[int, tuple[object, ...]] = {}
        records = core.records
        for number, thread in enumerate(self.threads):
            record = records.get(thread)
            if record is not None and record.chain:
                top = record.chain[-1]
                seen[number] = (id(top), top._state, top._parked, core.terminated(thread))
            else:
                seen[number] = (id(None), None, False, core.terminated(thread))
        return seen

    def options(self) -> list[_Option]:
        """Wait until nothing moves; the calls that can be let go."""
        core = self.core
        if self.seen is None:  # else the step before waited for it
            core.wait([(None, progress.Settled())], None)
        with core.lock:
            return self._options()

    def _options(self) -> list[_Option]:
        """The calls that can be let go now (lock held, everything settled)."""
        keys, pending, options = self.keys, {}, []
        for tx in progress.parked(self.core):
            index = self._index(tx.thread)
            key = keys.get(tx)
            if key is None:
                key = keys[tx] = _key(tx)
            pending[index] = key
            for how in progress.ways(tx):
                options.append(_Option(index, key, tx, how))
        self.pending = pending
        return options

    def decide(self) -> tuple[list[_Option], int | None]:
        """The calls that can be let go and the chooser's pick among them,
        once everything has settled: the scheduler's, or those of the thread
        that settled it last, when it left the decision to the scheduler."""
        decided, self.decided = self.decided, None
        if decided is None:
            options = self.options()
            return options, (self.choose(self.depth, options, self) if options else None)
        options, chosen = decided
        if isinstance(chosen, BaseException):
            raise chosen  # the chooser's, in the worker that took the step
        return options, chosen

    def step(self, option: _Option) -> None:
        """Let *option*'s call go, and wait until nothing moves again (the
        threads may take further steps meanwhile, see :meth:`carry_on`)."""
        core = self.core
        with core.lock:
            self._start(option)
            core.defer_release(option.tx)  # woken as the scheduler goes to sleep
            traced = len(self.trace)
            while True:
                try:
                    core.wait_locked([(None, progress.Settled())], None)
                    break
                except StallError:
                    if len(self.trace) != traced:  # steps taken meanwhile: not stalled
                        traced = len(self.trace)
                        continue
                    # The step after which a thread ran off.
                    assert self.going is not None
                    what, expired, disregarded = self.going[1:4]
                    self.taken.append((what, expired, disregarded, []))
                    raise
            if self.going is not None:  # else the thread that settled it ended it
                self._end()

    def carry_on(self, tx: Transaction) -> list[Parker] | None:
        """The step a thread parking at *tx* takes in the scheduler's seat
        when everything is settled (lock held; see
        :attr:`blanket.core.ScenarioCore.on_settled`): the wakes to deliver
        as it sleeps (none when it lets its own call go), or ``None`` when
        the scheduler is to be woken: nothing is settled yet, or the run is
        over or cut short, or the chooser raised."""
        if self.going is None or not progress.settled(self.core):
            return None
        self._end()
        options = self._options()
        if not options:
            self.decided = (options, None)
            return None
        try:
            chosen = self.choose(self.depth, options, self)
        except Exception as error:  # noqa: BLE001 - raised again by the scheduler
            self.decided = (options, error)
            return None
        if chosen is None:
            self.decided = (options, None)
            return None
        option = options[chosen]
        self._start(option)
        if option.tx is tx:
            tx._parked = False
            return []
        return [self.core.let_go(option.tx)]

    def _start(self, option: _Option) -> None:
        """Let *option*'s call go but for the wake (lock held)."""
        tx = option.tx
        # Where the threads were when the step before settled, unless a
        # thread the code under test started has been met since.
        before = self.seen
        if before is None or len(before) != len(self.threads):
            before = self._observe()
        # A real timeout never runs: the run would depend on time.
        expired, disregarded = option.how == "expire", option.how == "wait"
        what = self._what(tx)
        if expired:
            tx.expire()
        elif disregarded:
            tx.disregard()
            self.disregarded.add(tx)
        self.watch.epoch = len(self.trace)
        self.going = (option, what, expired, disregarded, before)
        self.depth += 1

    def _end(self) -> None:
        """The step going on has settled: note it (lock held)."""
        assert self.going is not None
        option, what, expired, disregarded, before = self.going
        self.going = None
        self.seen = after = self._observe()
        moved = [(index, seen) for index, seen in after.items()
                 if index == option.thread or seen != before.get(index)]
        self.trace.append((option.thread, option.key,
                           tuple(index for index, _ in moved if index != option.thread)))
        self.taken.append((what, expired, disregarded, moved))

    def finish(self) -> None:
        """Nothing can be let go: tear down, and say what went wrong."""
        core = self.core
        with core.lock:
            core.on_settled = None
            remaining = progress.live(core)
            if any(tx in self.disregarded and tx.state is State.WAITING
                   for thread in remaining for tx in core.chain(thread)):
                # Its timeout would have run out: the "expire" run covers this.
                self.redundant = True
            elif remaining:
                self.failure = ("deadlock", progress.stuck_report(core))
            progress.abandon(core, remaining)
        try:
            self.scenario.__exit__(None, None, None)
        except StallError as error:
            self.failure = self.failure or ("stall", str(error))
            return
        finally:
            self.scenario.close_injections()  # the next run's setup injects afresh
        if self.failure is None and not self.redundant:
            for thread in self.threads:
                if thread in core.errors:
                    trace = "".join(traceback.format_exception(core.errors[thread])).rstrip()
                    self.failure = ("exception", f"thread {thread.name} raised:\n{trace}")
                    return
            if self.invariant is not None:
                try:
                    self.invariant()
                except Exception as error:  # noqa: BLE001 - any failure of the check
                    trace = "".join(traceback.format_exception(error)).rstrip()
                    self.failure = ("invariant", f"the invariant failed:\n{trace}")

    def races(self) -> tuple[list[Race], set[Site]]:
        """The data races among the run's accesses, and their sites."""
        records = [(self._index(thread), thread.name, accesses)
                   for thread, accesses in self.watch.records]
        return races.find(records, self.trace)

    def abort(self) -> None:
        """Tear down a run stopped half-way (a stall)."""
        core = self.core
        with core.lock:
            core.on_settled = None
            progress.abandon(core, progress.live(core))
        try:
            self.scenario.__exit__(None, None, None)
        except StallError:
            pass
        finally:
            self.scenario.close_injections()


def _step(what: tuple[str, str, str, str, str], expired: bool, disregarded: bool,
          settled: tuple[tuple[str, str], ...]) -> Step:
    """A :class:`Step` from :meth:`_Run._what` of its call and the rest."""
    thread, call, primitive, state, where = what
    return Step(thread, call, primitive, state, expired, settled, disregarded, where)


def _run(setup: Setup, name: str, timeout: float, choose: Chooser,
         unseen: Unseen | None = None, racy: set[Site] | None = None,
         parks: set[tuple[str, str, str]] | None = None,
         runners: Runners | None = None) -> _Run:
    """One run; *choose* picks the index of the option to take at each depth;
    when *unseen* is given, what it cannot see goes there; *racy* are the
    sites of data races that park (``None``: nothing watched); *parks* are
    a replay's racy accesses, by meaning (see :attr:`blanket.watch.Watch.parks`);
    the managed threads run on *runners* when given (see :mod:`blanket.runners`)."""
    run = _Run(setup, name, timeout, choose, unseen, racy, parks, runners)
    run.scenario.__enter__()
    run.core.on_settled = run.carry_on  # the threads are parked: none can call it yet
    try:
        while True:
            options, chosen = run.decide()
            if not options:
                break
            if chosen is None:
                run.redundant = True
                run.abort()
                return run
            run.step(options[chosen])
    except StallError as error:
        run.failure = ("stall", str(error))
        run.abort()
        return run
    except BaseException:  # the search gave up (a setup not deterministic): tear down
        run.abort()
        raise
    run.finish()
    return run


# -- the strategies ---------------------------------------------------------------

@dataclass
class _Node:
    """A state of the depth-first search, where one call was chosen."""

    enabled: list[tuple[int, str]]  # (option number, primitive)
    pending: dict[int, str]  # every parked thread's call, enabled or not
    sleep: dict[int, str]  # option number -> primitive
    previous: int | None  # the thread that went last
    preemptions: int
    choice: int = -1
    backtrack: list[int] = field(default_factory=list)
    done: list[int] = field(default_factory=list)

    def cost(self, choice: int) -> int:
        """1 if taking option *choice* preempts the thread that went last."""
        return int(self.previous != choice // 2
                   and any(c // 2 == self.previous for c, _ in self.enabled))

    def key(self, choice: int) -> str:
        return self.pending[choice // 2]

    def want(self, thread: int) -> None:
        """Explore *thread*'s options here too."""
        for choice, _ in self.enabled:
            if choice // 2 == thread and choice not in self.backtrack:
                self.backtrack.append(choice)


class _DepthFirst:
    """Depth-first search with dynamic partial-order reduction (Flanagan and
    Godefroid's, with sleep sets) and an optional preemption bound.

    Two steps depend on each other when they act on the same primitive; a
    run explores one order of independent steps, and each pair of dependent
    steps not ordered by the run's happens-before adds the other order to
    the search where the first of them was chosen."""

    def __init__(self, bound: int | None, split_depth: int) -> None:
        self.bound = bound
        self.split_depth = split_depth
        self.stack: list[_Node] = []
        #: Whether the search is in its first pass: the first run of each
        #: prefix of *split_depth* choices.
        self.top = True
        #: The second pass: the search's state after the first run of each
        #: prefix this shard owns, the last one first.
        self.subtrees: list[list[_Node]] = []
        self.final: dict[int, str] = {}

    def _allowed(self, node: _Node, thread: int) -> bool:
        return self.bound is None or node.preemptions + node.cost(thread) <= self.bound

    def choose(self, depth: int, options: list[_Option], run: _Run) -> int | None:
        enabled = [(o.choice, o.key) for o in options]
        stack = self.stack
        if depth < len(stack):
            node = stack[depth]
            if node.enabled != enabled:
                raise RuntimeError(
                    "the scenario is not deterministic: replaying the same choices "
                    f"gave other calls to choose from at step {depth + 1}")
        else:
            sleep: dict[int, str] = {}
            previous, preemptions = None, 0
            if stack:
                parent = stack[-1]
                went = parent.choice // 2
                chosen = parent.pending[went]
                carried = parent.sleep
                if parent.done:
                    carried = {**carried, **{t: parent.key(t) for t in parent.done}}
                sleep = {c: key for c, key in carried.items()
                         if c // 2 != went and not _dependent(key, chosen)}
                previous = went
                preemptions = parent.preemptions + parent.cost(parent.choice)
            node = _Node(enabled, dict(run.pending), sleep, previous, preemptions)
            choice = None
            for c, _ in enabled:
                if c not in sleep and self._allowed(node, c):
                    if c // 2 == previous:  # going on: no preemption
                        choice = c
                        break
                    if choice is None:
                        choice = c
            if choice is None:
                return None  # every order from here was run already
            node.choice = choice
            # Both ways of a timed call: a run that lets it wait "in time" is
            # cut short when nothing comes, as covered by the expiry (see
            # _Run.finish), and one where something came does not make the
            # expiry's outcome; no race reversal need ask for it.
            node.want(choice // 2)
            stack.append(node)
        return [choice for choice, _ in enabled].index(node.choice)

    def analyse(self, steps: list[tuple[int, str, tuple[int, ...]]],
                final: dict[int, str]) -> None:
        """Add the reversals of the run's races to the backtrack sets.

        *steps* holds each step's thread, primitive and the threads it moved
        besides its own (a notified waiter depends on its notifier)."""
        clocks: dict[int, dict[int, int]] = {}
        step_clocks: list[dict[int, int]] = []
        for k in range(len(steps) + 1):
            pending = self.stack[k].pending if k < len(steps) else final
            for thread, key in pending.items():
                own = clocks.get(thread, {})
                for i in range(k - 1, -1, -1):
                    other, other_key, _ = steps[i]
                    if other == thread or not _dependent(other_key, key):
                        continue
                    if own.get(other, -1) < i:  # a race: not ordered
                        self._reverse(steps, i, k, thread, own)
                    break
            if k < len(steps):
                thread, key, moved = steps[k]
                clock = dict(clocks.get(thread, {}))
                for j in range(k - 1, -1, -1):
                    if _dependent(steps[j][1], key):
                        for t, v in step_clocks[j].items():
                            clock[t] = max(clock.get(t, -1), v)
                        if not steps[j][1].startswith(_READ):
                            break  # every earlier dependent step is in its clock
                clock[thread] = k
                clocks[thread] = clock
                step_clocks.append(clock)
                for woken in moved:
                    merged = dict(clocks.get(woken, {}))
                    for t, v in clock.items():
                        merged[t] = max(merged.get(t, -1), v)
                    clocks[woken] = merged

    def _reverse(self, steps: list[tuple[int, str, tuple[int, ...]]], i: int, k: int,
                 thread: int, own: dict[int, int]) -> None:
        node = self.stack[i]
        enabled = [c // 2 for c, _ in node.enabled]
        if thread in enabled:
            node.want(thread)
            return
        for j in range(i + 1, k):
            q = steps[j][0]
            if q in enabled and own.get(q, -1) >= j:
                node.want(q)
                return
        for q in enabled:
            node.want(q)

    def advance(self, mine: bool) -> bool:
        """Move to the next run after one whose prefix is this shard's
        (*mine*) or another's; ``False`` when the space is exhausted.

        The search runs in two passes, so that shards split it exactly. The
        first runs each prefix of *split_depth* choices once, completed by
        its first choices: every shard makes these runs alike, so the data
        races they meet, which add steps and restart the search, are the
        same in every shard. Above *split_depth* every call not asleep is
        tried, not only those the reversals of races want: those come from
        the runs below, which only the prefix's owner makes. The second pass
        runs the rest of each prefix this shard owns, in the order a plain
        depth-first search would."""
        if self.top:
            if mine:
                self.subtrees.append([dataclasses.replace(
                    node, backtrack=list(node.backtrack), done=list(node.done))
                    for node in self.stack])
            if self._backtrack(0, self.split_depth):
                return True
            self.top = False
            self.subtrees.reverse()
        elif self._backtrack(self.split_depth, None):
            return True
        while self.subtrees:
            self.stack = self.subtrees.pop()
            if self._backtrack(self.split_depth, None):
                return True
        return False

    def _backtrack(self, floor: int, ceiling: int | None) -> bool:
        """Move to the next run, by a choice at a depth from *floor* up to
        (not including) *ceiling*."""
        while len(self.stack) > floor:
            depth = len(self.stack) - 1
            node = self.stack[depth]
            node.done.append(node.choice)
            if ceiling is None or depth < ceiling:
                wide = depth < self.split_depth
                tried = [c for c, _ in node.enabled] if wide else node.backtrack
                for choice in tried:
                    if choice not in node.done and choice not in node.sleep \
                            and self._allowed(node, choice):
                        node.choice = choice
                        return True
            self.stack.pop()
        return False


def _random_chooser(rng: random.Random) -> Callable[[int, list[_Option], _Run], int]:
    def choose(depth: int, options: list[_Option], run: _Run) -> int:
        return rng.randrange(len(options))
    return choose


def _pct_chooser(rng: random.Random, depth: int, length: int
                 ) -> Callable[[int, list[_Option], _Run], int]:
    priorities: dict[int, int] = {}
    changes = {step: n for n, step in
               enumerate(rng.sample(range(1, max(length, depth) + 1), depth - 1))}

    def choose(step: int, options: list[_Option], run: _Run) -> int:
        for option in options:
            if option.thread not in priorities:
                priorities[option.thread] = depth + rng.randrange(1_000_000)
        best = max(range(len(options)), key=lambda n: priorities[options[n].thread])
        if step in changes:
            priorities[options[best].thread] = changes[step]
            best = max(range(len(options)), key=lambda n: priorities[options[n].thread])
        # A call that depends on time: waiting and expiring are equally likely.
        ways = [n for n, option in enumerate(options) if option.thread == options[best].thread]
        return ways[rng.randrange(len(ways))]
    return choose


# -- the search ---------------------------------------------------------------------

def _parse_shard(shard: str | tuple[int, int] | None) -> tuple[int, int]:
    if shard is None:
        return 1, 1
    if isinstance(shard, str):
        try:
            index, count = (int(part) for part in shard.split("/"))
        except ValueError:
            raise ValueError(f"shard {shard!r}: expected 'i/n', e.g. '1/4'") from None
    elif isinstance(shard, tuple) and len(shard) == 2 \
            and all(_is_int(part) for part in shard):
        index, count = shard
    else:
        raise TypeError(f"shard={shard!r}: expected 'i/n' or a tuple (i, n) of two ints")
    if not 1 <= index <= count:
        raise ValueError(f"shard {index}/{count}: expected 1 <= i <= n")
    return index, count


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_count(name: str, value: object, least: int, *, optional: bool = False) -> None:
    """Refuse *value* for the argument *name* unless it is an int of at
    least *least* (or ``None`` when *optional*): a float, even ``nan``, or
    a string would stop the search at once or never."""
    if optional and value is None:
        return
    if not _is_int(value):
        expected = "an int or None" if optional else "an int"
        raise TypeError(f"{name}={value!r}: expected {expected}")
    if value < least:  # type: ignore[operator]
        more = "0 or more" if least == 0 else f"at least {least}"
        raise ValueError(f"{name}={value}: expected {more}")


def _check_arguments(setup: object, strategy: object, seed: object, timeout: object,
                     name: object) -> None:
    """Refuse, at the call, the arguments of :func:`explore` that are not
    counts (those are :func:`_check_count`'s)."""
    if not callable(setup):
        raise TypeError(f"explore: setup={setup!r} is not callable: expected a "
                        "function that fills a Scenario")
    if not isinstance(strategy, str):
        raise TypeError(f"strategy={strategy!r}: expected one of {', '.join(STRATEGIES)}")
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy {strategy!r}: expected one of {', '.join(STRATEGIES)}")
    if not _is_int(seed):
        raise TypeError(f"seed={seed!r}: expected an int")
    check_seconds(timeout, "explore's timeout")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name={name!r}: expected a str or None")


def _owner(choices: Sequence[str], count: int) -> int:
    """The shard (1..count) a schedule prefix belongs to."""
    return zlib.crc32(",".join(choices).encode()) % count + 1


def _failure(setup: Setup, run: _Run) -> Failure:
    """The failure of *run*, with a test replaying it."""
    from .reproduce import reproduce
    assert run.failure is not None
    kind, message = run.failure
    steps = tuple(run.steps)
    return Failure(kind, message, steps, reproduce(setup, steps, kind, message, run))


def explore(setup: Setup, *, strategy: str = "dfs", max_schedules: int = 10_000,
            max_preemptions: int | None = None, seed: int = 0, depth: int = 3,
            shard: str | tuple[int, int] | None = None, split_depth: int = 4,
            timeout: float = 10.0, name: str | None = None, races: str = "report"
            ) -> Exploration:
    """Run the scenario *setup* describes under many orders of its calls;
    stop at the first failure.

    *strategy* is ``"dfs"`` (every order, with partial-order reduction and at
    most *max_preemptions* preemptions when given), ``"random"`` or ``"pct"``
    (seeded by *seed*; *depth* is PCT's bug depth). At most *max_schedules*
    schedules are counted. *shard* (``"i/n"`` or ``(i, n)``) runs only the
    i-th of n disjoint parts of the search, split by the first *split_depth*
    choices of each schedule (by run number for the random strategies).
    The depth-first search first runs each such prefix once, in every
    shard alike (see :doc:`/exploration`), then the rest of its own: a data
    race met only in that rest, which the other shards do not park at, is
    named in :attr:`Exploration.unseen`.
    *timeout* bounds each wait for the threads to settle.

    The threads' targets (and whatever ``scenario.instrument`` names) are
    watched for data races on plain shared state (:mod:`blanket.watch`):
    each race found makes its accesses steps of the following runs (a new
    one restarts the search), and is listed on the result. *races* is
    ``"report"`` (that), ``"fail"`` (a race is also a failure) or ``"off"``
    (nothing watched: steps at calls on primitives only). What watched code
    makes with ``threading`` (threads, locks, ...) is the run's own
    (:mod:`blanket.adopt`).
    """
    _check_arguments(setup, strategy, seed, timeout, name)
    _check_count("max_schedules", max_schedules, 1)
    _check_count("max_preemptions", max_preemptions, 0, optional=True)
    _check_count("depth", depth, 1)
    _check_count("split_depth", split_depth, 1)
    if races not in RACES:
        raise ValueError(f"races={races!r}: expected one of {', '.join(map(repr, RACES))}")
    with one_cpu():  # a run's threads go one at a time: see blanket.affinity
        runners = Runners()
        try:
            return _search(setup, strategy, max_schedules, max_preemptions, seed, depth, shard,
                           split_depth, timeout, name, races, runners)
        finally:
            runners.close()  # nothing left running, however the search ended


def _search(setup: Setup, strategy: str, max_schedules: int, max_preemptions: int | None,
            seed: int, depth: int, shard: str | tuple[int, int] | None, split_depth: int,
            timeout: float, name: str | None, races: str, runners: Runners) -> Exploration:
    """:func:`explore`, its arguments checked; the runs' managed threads
    run on *runners*."""
    racy: set[Site] | None = None if races == "off" else set()
    seen: set[Race] = set()
    index, count = _parse_shard(shard)
    title = name or str(getattr(setup, "__qualname__", "exploration"))
    result = Exploration(strategy, max_preemptions=max_preemptions)
    unseen = Unseen()
    started = time.monotonic()
    search = _DepthFirst(max_preemptions, split_depth) if strategy == "dfs" else None
    length = 1
    number = 0
    loose: _Run | None = None  # a failure its schedule does not make
    late: list[str] = []  # sites of races met after the split, in this shard only
    while len(result.schedules) < max_schedules:
        if search is None:
            if number >= max_schedules:  # the run numbers are split, not the count
                break
            mine = number % count == index - 1
            number += 1
            if not mine:
                continue
            rng = random.Random(f"{seed}/{number}")
            chooser = (_random_chooser(rng) if strategy == "random"
                       else _pct_chooser(rng, depth, length))
            run = _run(setup, title, timeout, chooser, unseen,
                       racy, runners=runners)
        else:
            run = _run(setup, title, timeout, search.choose, unseen,
                       racy, runners=runners)
            search.analyse(run.trace, run.pending)
            prefix = run.marks(split_depth)
            mine = _owner(prefix, count) == index
        result.runs += 1
        length = max(length, len(run.taken))
        if mine and not run.redundant:
            result.schedules.append(run.marks())
        grown = False
        if racy is not None:
            found, sites = run.races()
            result.races += [race for race in found if race not in seen]
            seen.update(found)
            new = sites - racy
            grown = bool(new)
            racy |= sites
            if new and search is not None and not search.top and count > 1:
                late += sorted({site.place for site in new})
            if found and races == "fail" and run.failure is None:
                run.failure = ("race", races_report(found))
        if mine and run.failure is not None:
            if not grown or run.failure[0] == "race":
                result.failure = _failure(setup, run)
                break
            # The threads ran free through accesses that were no steps yet (on
            # a free-threaded build, in parallel): the schedule does not make
            # this failure, so no test could replay it. Search on with them as
            # steps; report it only if that search finds nothing.
            loose = loose or run
        if grown:
            # New scheduling points: the space searched so far is not the
            # scenario's. Search again; the schedules counted are the new search's.
            result.schedules.clear()
            if search is not None:
                search = _DepthFirst(max_preemptions, split_depth)
                continue
        if search is not None and not search.advance(mine):
            result.exhausted = True
            break
    if result.failure is None and loose is not None:
        result.failure = _failure(setup, loose)
    result.unseen = unseen.notes
    if late:
        result.unseen.append(
            f"shard {index}/{count}: data race(s) at {', '.join(dict.fromkeys(late))} met "
            "after the split, in this shard's runs: the other shards do not park there")
    result.exhausted = result.exhausted and not result.unseen
    result.elapsed = time.monotonic() - started
    return result
