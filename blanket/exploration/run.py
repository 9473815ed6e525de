"""One run of an exploration: a fresh scenario from the setup, with the
scheduler's seat taken by a chooser (a strategy's).

Whenever every thread is parked at a call or asleep for good
(:mod:`blanket.progress`), the run lists the calls that can be let go
(:class:`Option`: a call whose outcome depends on time is two, waited
for in time or expired at once) and lets the chosen one go.

The scheduler's seat is taken by whichever thread settles the run: the
thread whose park leaves every thread parked or asleep for good makes the
choice and lets the chosen call go itself (:meth:`Run.carry_on`), so a
step costs one hand-off between threads at most, and none when a thread
goes on with its own call. The exploring thread lets the first step go,
sleeps while the threads take steps, and takes the seat back when the
settle comes another way (a thread ends, or sleeps in a real primitive),
when no call can go, or when the chooser cuts the run short or raises.

A run fails when a thread raises, when the invariant fails, or when live
threads remain and no call can be let go (a deadlock, reported as its
wait-for cycle). A setup that returns something else than ``None`` or a
callable invariant is refused (:class:`TypeError`) before its threads
start: a mistake of the caller, not a verdict on the code under test.
"""

from __future__ import annotations

import gc
import traceback
import typing
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from .. import progress, waiting
from ..errors import StallError
from ..scenario import Scenario
from ..states import State
from ..threads import thread_names
from . import races
from .places import UNWATCHED
from .races import MEMORY, Race
from .result import Setup, Step
from .runners import Runners
from .spins import FreeSpins, Spins
from .unseen import Unseen
from .watch import Transitive

if TYPE_CHECKING:  # pragma: no cover
    from ..parking import Parker
    from ..transaction import Transaction
    from .sections import Reach, Sections
    from .sites import Site


#: How a failure's message goes on from a thread's exception to what
#: followed from it (threads left waiting for what it held).
CONSEQUENCE = "\nthen, as a consequence, the other threads could not go on:\n"


class Option:
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
Chooser = Callable[[int, list[Option], "Run"], "int | None"]


def key_of(tx: Transaction) -> str:
    """What a step acts on, for telling dependent steps apart; for a racy
    access, ``memory:read:`` or ``memory:write:`` and what it reaches."""
    if tx.spec.kind == "Memory":
        return f"{MEMORY}{tx.spec.name}:{cast(Any, tx.primitive).reach}"
    return progress.name_of(progress.resource(tx.primitive))


@typing.no_type_check  # (typeguard stays off it: it runs for every pair of options)
def dependent(a: str, b: str) -> bool:
    """Whether steps on keys *a* and *b* may not commute: calls on one
    primitive, or accesses to one piece of state (see
    :func:`~blanket.exploration.races.overlap`) but two reads."""
    if a == b:
        return not a.startswith(READ)
    return a.startswith(MEMORY) and b.startswith(MEMORY) and \
        not (a.startswith(READ) and b.startswith(READ)) and \
        races.overlap(a.split(":", 2)[2], b.split(":", 2)[2])


READ = f"{MEMORY}read:"


class Run:
    """One run of the scenario, with the scheduler's seat taken by a chooser."""

    def __init__(self, setup: Setup, name: str, timeout: float, choose: Chooser,
                 unseen: Unseen | None = None, racy: set[Site] | None = None,
                 parks: set[tuple[str, str, str]] | None = None,
                 runners: Runners | None = None) -> None:
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
        if scenario.adopt:  # and the code they call is watched: the exploration's rule
            self.watch.transitive = (unseen.transitive if unseen is not None
                                     and unseen.transitive else Transitive())
        if unseen is None:  # not watched
            self.invariant = setup(scenario)
        else:
            # (the threads the watched code makes too, as they start)
            self.core.watch_thread = unseen.watch
            self.invariant = unseen.setup(lambda: setup(scenario), self.core)
            for thread in scenario.managed:
                unseen.watch(thread)
        if self.invariant is not None and not callable(self.invariant):
            # Checked here, before any thread starts: called after the run,
            # it would fail as the code under test, with a test written for it.
            scenario.close_injections()
            raise TypeError(f"setup returned {self.invariant!r}: expected None or a "
                            "callable invariant (called once the threads have finished)")
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
        #: What each step was to the lock-aware reduction (see :func:`_kind`).
        self.kinds: list[str] = []
        #: What the lock-aware reduction has worked out of the run's records
        #: so far (see :class:`blanket.exploration.sections.Reach`).
        self.reach: Reach | None = None
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
        #: The threads spinning on shared state, withheld (see
        #: :mod:`blanket.exploration.spins`).
        self.spins = Spins(self.watch)
        #: The threads spinning where they do not park, looked at while the
        #: run waits (where something is watched).
        self.free_spins = FreeSpins(self.core, self.watch)
        if racy is not None:
            self.core.look_at_running = self.free_spins.look
        #: The number of steps let go so far.
        self.depth = 0
        #: The step let go and not yet settled: its option, what it says of
        #: its call (see _what), whether expired or disregarded, and where
        #: the threads were before it.
        self.going: tuple[Option, tuple[str, str, str, str, str], bool, bool,
                          dict[int, tuple[object, ...]]] | None = None
        #: The options and the choice (or what the chooser raised) of a thread
        #: that settled everything and left the step to the scheduler.
        self.decided: tuple[list[Option], int | BaseException | None] | None = None

    @property
    def steps(self) -> list[Step]:
        """The steps of the run so far."""
        return [make_step(what, expired, disregarded, tuple(
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
        return make_step(Run._what(tx), expired, disregarded, ())

    def _index(self, thread: Any) -> int:
        numbers = self.numbers  # (not get: see the note at the top of blanket.core)
        if thread in numbers:
            return numbers[thread]
        number = numbers[thread] = len(self.threads)  # one the code under test started
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
            # (not records.get: see the note at the top of blanket.core)
            record = records[thread] if thread in records else None
            if record is not None and record.chain:
                top = record.chain[-1]
                seen[number] = (id(top), top._state, top._parked, core.terminated(thread))
            else:
                seen[number] = (id(None), None, False, core.terminated(thread))
        return seen

    def options(self) -> list[Option]:
        """Wait until nothing moves; the calls that can be let go."""
        core = self.core
        if self.seen is None:  # else the step before waited for it
            waiting.wait(core, [(None, progress.Settled())], None)
        with core.lock:
            return self._options()

    def _options(self) -> list[Option]:
        """The calls that can be let go now (lock held, everything settled)."""
        keys, pending, options, spins = self.keys, {}, [], self.spins
        spins.withheld.clear()
        for tx in progress.parked(self.core):
            index = self._index(tx.thread)
            # (not keys.get: see the note at the top of blanket.core)
            key = keys[tx] if tx in keys else None
            if key is None:
                key = keys[tx] = key_of(tx)
            pending[index] = key
            if spins.spinning(index, tx):  # let go once no other can change what it reads
                continue
            for how in progress.ways(tx):
                options.append(Option(index, key, tx, how))
        self.pending = pending
        if not options and spins.withheld and spins.let_spin(self.depth):
            # Only spinning threads are left: a few turns more may get one
            # out (a loop that tries a few times); if not, a livelock.
            # (A timed try fails at once: its timeout runs out. Waiting is
            # what withholding it did.)
            options = [Option(index, pending[index], tx,
                              "expire" if "expire" in progress.ways(tx) else "go")
                       for index, tx in spins.withheld.items()]
            spins.withheld.clear()
        return options

    def decide(self) -> tuple[list[Option], int | None]:
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

    def step(self, option: Option) -> None:
        """Let *option*'s call go, and wait until nothing moves again (the
        threads may take further steps meanwhile, see :meth:`carry_on`)."""
        core = self.core
        with core.lock:
            self._start(option)
            core.defer_release(option.tx)  # woken as the scheduler goes to sleep
            traced = len(self.trace)
            while True:
                try:
                    waiting.wait_locked(core, [(None, progress.Settled())], None)
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

    def _start(self, option: Option) -> None:
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
        self.spins.took(option.thread, tx)
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
                 # (not before.get: see the note at the top of blanket.core)
                 if index == option.thread or index not in before or seen != before[index]]
        self.trace.append((option.thread, option.key,
                           tuple(index for index, _ in moved if index != option.thread)))
        self.kinds.append(step_kind(option))
        self.taken.append((what, expired, disregarded, moved))

    def finish(self) -> None:
        """Nothing can be let go: tear down, and say what went wrong."""
        core = self.core
        with core.lock:
            core.on_settled = core.look_at_running = None
            remaining = progress.live(core)
            if any(tx in self.disregarded and tx.state is State.WAITING
                   for thread in remaining for tx in core.chain(thread)):
                # Its timeout would have run out: the "expire" run covers this.
                self.redundant = True
            elif remaining and self.spins.withheld:  # only spinning threads were left
                spinning = [tx.thread for tx in self.spins.withheld.values()]
                others = progress.stuck_report(core, leave_out=spinning)
                self.failure = ("livelock", self.spins.report() + (
                    f"\nthe other threads: {others}" if others else ""))
            elif remaining:
                self.failure = ("deadlock", progress.stuck_report(core))
                running = [thread.name for thread in core.outsiders.given_up
                           if thread.is_alive()]
                if running:  # what they wait for, maybe: no proof of a deadlock
                    self.failure = ("stall", f"stuck while {', '.join(running)}, outside "
                                    "blanket, ran on where it cannot see: "
                                    f"{self.failure[1]}")
            # A thread that raised is the first thing that went wrong: the
            # others' waits (for a lock it held, say) followed from it.
            raised = [thread for thread in self.threads if thread in core.errors]
            progress.abandon(core, remaining)
        try:
            self.scenario.__exit__(None, None, None)
        except StallError as error:
            self.failure = self.failure or ("stall", str(error))
            return
        finally:
            self.scenario.close_injections()  # the next run's setup injects afresh
        stuck = None  # a deadlock the invariant judges: it says if it is a failure
        if self.failure is not None and getattr(self.invariant, "judges_deadlocks", False):
            # (a linearizability check: a get of an empty queue may block)
            (_, stuck), self.failure = self.failure, None
        if raised and not self.redundant:
            thread = raised[0]
            message = f"thread {thread.name} raised:\n{user_trace(core.errors[thread])}"
            if self.failure is not None:
                message += f"{CONSEQUENCE}{self.failure[1]}"
            self.failure = ("exception", message)
            return
        if self.failure is None and not self.redundant:
            if self.invariant is not None:
                try:
                    self.invariant()
                except Exception as error:  # noqa: BLE001 - any failure of the check
                    failed = f"the invariant failed:\n{user_trace(error)}"
                    self.failure = ("invariant", failed) if stuck is None else (
                        "deadlock", f"{stuck}\n{failed}")

    def races(self, sections: Sections | None = None) -> tuple[list[Race], set[Site]]:
        """The data races among the run's accesses, and their sites (under
        the happens-before *sections* make, if given: see
        :func:`blanket.exploration.races.clocks`)."""
        names = [thread.name for thread in self.threads]
        return races.find([(number, names[number], accesses)
                           for number, accesses in self.records()], self.trace, sections)

    def records(self) -> list[tuple[int, list[Any]]]:
        """Each thread's number and flat record of accesses (see
        :func:`blanket.exploration.sites.accesses`)."""
        return [(self._index(thread), accesses) for thread, accesses in self.watch.records]

    def abort(self) -> None:
        """Tear down a run stopped half-way (a stall)."""
        core = self.core
        with core.lock:
            core.on_settled = core.look_at_running = None
            progress.abandon(core, progress.live(core))
        try:
            self.scenario.__exit__(None, None, None)
        except StallError:
            pass
        finally:
            self.scenario.close_injections()


#: What a step is to the lock-aware reduction (:mod:`blanket.exploration.sections`):
#: a plain blocking acquire of a ``Lock`` or an ``RLock``, a release of one,
#: or anything else; and what a parked call no option lets go is (it waits).
ACQUIRE, RELEASE, OTHER, BLOCKED = "acquire", "release", "", "blocked"


def step_kind(option: Option) -> str:
    """What *option*'s step is to the lock-aware reduction: a plain blocking
    acquire of a ``Lock`` or an ``RLock`` (no timeout: it goes only once the
    lock is free), a release of one, or anything else."""
    tx = option.tx
    spec = tx.spec
    if spec.kind in ("Lock", "RLock") and option.how == "go":
        if spec.name == "release":
            return RELEASE
        if spec.name == "acquire" and tx.args[0] is True and tx.args[1] == -1:
            return ACQUIRE
    return OTHER


def user_trace(error: BaseException) -> str:
    """The traceback of *error* (a thread's, the invariant's), from the
    first frame of code under test: blanket's and ``threading``'s frames
    that called it are not the user's to read."""
    told = traceback.TracebackException.from_exception(error)
    frames = list(told.stack)
    while frames and frames[0].filename.startswith(UNWATCHED):
        del frames[0]
    told.stack = traceback.StackSummary.from_list(frames)
    return "".join(told.format()).rstrip()


def make_step(what: tuple[str, str, str, str, str], expired: bool, disregarded: bool,
          settled: tuple[tuple[str, str], ...]) -> Step:
    """A :class:`Step` from :meth:`Run._what` of its call and the rest."""
    thread, call, primitive, state, where = what
    return Step(thread, call, primitive, state, expired, settled, disregarded, where)


def run_once(setup: Setup, name: str, timeout: float, choose: Chooser,
         unseen: Unseen | None = None, racy: set[Site] | None = None,
         parks: set[tuple[str, str, str]] | None = None,
         runners: Runners | None = None) -> Run:
    """One run; *choose* picks the index of the option to take at each depth;
    when *unseen* is given, what it cannot see goes there; *racy* are the
    sites of data races that park (``None``: nothing watched); *parks* are
    a replay's racy accesses, by meaning (see :attr:`blanket.exploration.watch.Watch.parks`);
    the managed threads run on *runners* when given (see :mod:`blanket.exploration.runners`).

    The garbage collector waits while the run runs, and collects once it is
    over: a collection in the middle would run finalizers and weakref
    callbacks (``logging``'s, which take its lock) in whichever thread it
    met, at a moment no two runs share, inside blanket's own bookkeeping
    too, where a lock a parked thread holds would hang the run."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _run_once(setup, name, timeout, choose, unseen, racy, parks, runners)
    finally:
        if collecting:
            gc.enable()


def _run_once(setup: Setup, name: str, timeout: float, choose: Chooser,
              unseen: Unseen | None, racy: set[Site] | None,
              parks: set[tuple[str, str, str]] | None, runners: Runners | None) -> Run:
    """:func:`run_once`, with the garbage collector off."""
    run = Run(setup, name, timeout, choose, unseen, racy, parks, runners)
    try:
        return _steps(run)
    finally:
        if unseen is not None:  # (what its outsiders did unseen, see blanket.outsiders)
            unseen.ran_on(run.core.outsiders.given_up, timeout)


def _steps(run: Run) -> Run:
    """*run*'s steps, to its end."""
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
