"""Who can go on: the calls the scheduler can let go without their thread
sleeping for ever, the sleeps that will end by themselves, and, when nothing
can go on, who waits for whom.

Everything here reads the real primitives' state with the scenario's lock
held, while the workers that could change it are parked or asleep, so the
answers do not race with them. The exploration (:mod:`blanket.exploration`)
uses it to know when a step is over and what may come next, and the
deadlock report names the cycle from it.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import TYPE_CHECKING, Any

from . import sleepers
from .errors import DeadlockError
from .holdback import join_threads
from .report import holdings
from .signals import Signaled
from .states import State

if TYPE_CHECKING:  # pragma: no cover
    from .core import ScenarioCore
    from .transaction import Transaction

_OWNER = re.compile(r"owner=(\d+)")
_LOCK = type(threading.Lock())


def resource(primitive: Any) -> Any:
    """What a call on *primitive* contends for: a ``Condition``'s lock when
    that lock is a blanket primitive (acquiring either is the same thing),
    else the primitive itself."""
    user_lock = getattr(primitive, "_user_lock", None) if primitive._kind == "Condition" else None
    return primitive if user_lock is None or not hasattr(user_lock, "_kind") else user_lock


def name_of(primitive: Any) -> str:
    """A primitive as schedules and deadlock reports name it: the name it
    was given, else its label ("Lock 2": the scenario's second ``Lock``)."""
    return str(primitive._name if primitive._name is not None else primitive._label)


def _real_lock(primitive: Any) -> Any:
    """The real lock an acquire of *primitive* takes."""
    if primitive._kind == "Condition":
        return primitive._real._lock._lock
    return primitive._real


def _free_for(lock: Any, thread: threading.Thread) -> bool:
    """Whether *thread* would get the real *lock* without sleeping."""
    if isinstance(lock, _LOCK):
        return not lock.locked()
    # An RLock tells its owner only in its repr (the same on 3.11 to 3.13).
    match = _OWNER.search(repr(lock))
    owner = int(match.group(1)) if match else 0
    return owner in (0, thread.ident)


def available(tx: Transaction) -> bool:
    """Whether the parked call *tx*, let go now, would go through without
    sleeping for ever (an acquire of something taken, an ``Event.wait`` on a
    clear event, a re-acquire after ``Condition.wait`` of a taken lock)."""
    primitive: Any = tx.primitive
    name = tx.spec.name
    kind = primitive._kind
    if kind == "Thread":  # an adopted thread's: a join goes once it ended
        return name != "join" or primitive._core.terminated(primitive._real)
    if tx._state is State.STALLED:
        return _free_for(_real_lock(primitive), tx.thread)
    if name == "acquire" and not tx.call_args()[0]:  # blocking=False never sleeps
        return True
    return _there(tx)


def _there(tx: Transaction) -> bool:
    """Whether what the parked call *tx* takes or waits for is there now:
    the lock free for its thread, a semaphore's slot, an event's flag."""
    primitive: Any = tx.primitive
    name = tx.spec.name
    kind = primitive._kind
    if name == "acquire":
        if kind in ("Semaphore", "BoundedSemaphore"):
            return bool(primitive._real._value > 0)
        return _free_for(_real_lock(primitive), tx.thread)
    if kind == "Event" and name == "wait":
        return bool(primitive._real.is_set())
    return True


#: The kinds whose acquire or wait can fail, changing nothing.
_TRIED = frozenset({"Lock", "RLock", "Condition", "Semaphore", "BoundedSemaphore", "Event"})


def looks_only(tx: Transaction) -> bool:
    """Whether the parked call *tx*, let go now, changes nothing: it only
    looks (``Lock.locked``, ``Event.is_set``), or it is a try that fails (an
    acquire of something taken, an ``Event.wait`` of a clear event: each
    returns false, at once or when its timeout runs out; the one way such
    a call can be let go but to fail, to sleep till what it waits for comes,
    also waits for another thread's change). A thread that makes such calls
    again and again spins (see :mod:`blanket.exploration.spins`)."""
    name = tx.spec.name
    if name in ("locked", "is_set"):
        return True
    return (tx._state is State.BLOCKED and name in ("acquire", "wait")
            and tx.spec.kind in _TRIED and not _there(tx))


def timed(tx: Transaction) -> bool:
    """Whether *tx* has a finite timeout, so it cannot sleep for ever."""
    timeout = tx.timeout
    return timeout is not None and timeout.value is not None


def ways(tx: Transaction) -> tuple[str, ...]:
    """How the parked *tx* can be let go without its thread sleeping for
    ever: ``("go",)``; for a call whose outcome depends on its timeout,
    ``("wait", "expire")`` (what it waits for comes in time, or its timeout
    runs out now); none while it cannot go on."""
    state = tx._state
    if state is not State.BLOCKED:
        return ("go",) if state is not State.STALLED or available(tx) else ()
    can_go = available(tx)
    if not timed(tx):
        return ("go",) if can_go else ()
    if tx.timeout.value <= 0:  # type: ignore[union-attr, operator]
        # A zero timeout never waits (acquire(timeout=0) is a try): the
        # state now decides, and it cannot be let go "in time" for ever.
        return ("go",)
    sleeps = tx.spec.name == "wait" and tx.spec.kind in ("Condition", "Barrier")
    return ("go",) if can_go and not sleeps else ("wait", "expire")


def _sleepers(core: ScenarioCore, primitive: Any, name: str) -> int:
    return sum(1 for tx in core.active if tx.primitive is primitive
               and tx.spec.name == name and tx.state is State.WAITING)


def wakes(core: ScenarioCore, tx: Transaction) -> bool:
    """Whether *tx*, asleep inside the real primitive (``WAITING``), will
    wake without another call: it has a deadline, or what it waits for has
    happened (a ``Condition`` notified it, its lock was released, ...)."""
    if tx._deadline is not None:
        return True
    primitive: Any = tx.primitive
    name = tx.spec.name
    kind = primitive._kind
    if kind == "Thread":  # a join of an adopted thread
        return core.terminated(primitive._real)
    if kind in ("Semaphore", "BoundedSemaphore"):
        return bool(primitive._real._value > 0)
    if name == "acquire":
        return _free_for(_real_lock(primitive), tx.thread)
    if kind == "Event":
        return bool(primitive._real.is_set())
    # Condition.wait and Barrier.wait sleep in a real Condition; notify takes
    # a sleeper's lock off its list of waiters before waking it.
    condition = primitive._real if kind == "Condition" else primitive._real._cond
    return len(condition._waiters) < _sleepers(core, primitive, name)


def live(core: ScenarioCore) -> list[threading.Thread]:
    """The threads still to finish: managed ones, then others in a call."""
    return list(_live(core))


def _live(core: ScenarioCore) -> Iterator[threading.Thread]:
    """:func:`live`, one at a time: a look that stops early scans no further."""
    for thread, _ in _live_chains(core):
        yield thread


def _live_chains(core: ScenarioCore) -> Iterator[tuple[threading.Thread, list[Transaction]]]:
    """Each live thread (see :func:`live`) with its calls in flight, each
    thread's record looked up once: every wait of a script and every step of
    an exploration asks."""
    records, finished, managed = core.records, core.finished, core.managed
    for thread in managed:
        if thread not in finished:  # core.terminated(), for a managed thread
            # (not records.get: see the note at the top of blanket.core)
            yield thread, records[thread].chain if thread in records else []
    for thread, record in records.items():
        if record.chain and thread not in managed:
            yield thread, record.chain


def settled(core: ScenarioCore) -> bool:
    """Whether every live thread is parked or asleep for good: nothing will
    change until the scheduler acts."""
    for thread, chain in _live_chains(core):  # every wait of a script asks: stop early
        if not _still(core, thread, chain):
            return False
    # (the holder made only when there are outsiders: asked at every look)
    return not core.outsiders.threads or core.outsiders.settled(core, holder(core))


def _still(core: ScenarioCore, thread: threading.Thread, chain: list[Transaction]) -> bool:
    """Whether the live *thread*, with its calls in flight *chain*, is
    parked or asleep for good."""
    if not chain:
        # (else running between calls, or not started yet)
        return _real_sleep(core, thread, set()) is not None
    top = chain[-1]
    return top._parked or (top._state is State.WAITING and not wakes(core, top))


def _moving(core: ScenarioCore) -> bool:
    """Whether the thread the scheduler let go last is live and neither
    parked nor asleep for good: then nothing is :func:`settled`. (A script
    waits for the thread it let go: looked at first, it spares a look at
    every thread at every wait.)"""
    thread = core.moved
    if thread is None or thread in core.finished:
        return False
    chain = core.chain(thread)
    # (live as _live_chains says: managed, or in a call)
    return bool(chain or thread in core.managed) and not _still(core, thread, chain)


def holder(core: ScenarioCore) -> Callable[[Any], threading.Thread | None]:
    """Who of *core* holds a real ``Lock`` (see :func:`_real_holder`)."""
    return partial(_real_holder, core, "Lock")


class AsleepForGood(Signaled):
    """Signals once the thread, in no blanket call, sleeps in a real lock
    its holder will not release before the scheduler acts (see
    :mod:`blanket.sleepers`): it will not park at a call by itself."""

    __slots__ = ()

    def signalled(self, core: ScenarioCore) -> bool:
        thread: threading.Thread = self._args[0]  # type: ignore[assignment]
        return not core.chain(thread) and _real_sleep(core, thread, set()) is not None


class Settled(Signaled):
    """Signals once every live thread of the scenario is parked or asleep
    for good (see :func:`settled`)."""

    __slots__ = ()

    def signalled(self, core: ScenarioCore) -> bool:
        return settled(core)

    def __repr__(self) -> str:
        return "every live thread parked or asleep for good"


def over_real(core: ScenarioCore, real: Any) -> list[Any]:
    """The primitives of *core* through which a thread holds the real lock
    *real*: its twins, and the conditions made over it (over a twin of it,
    or over the real lock itself)."""
    return [primitive for primitive in list(core.primitives)
            if primitive._real is real or (primitive._kind == "Condition" and getattr(
                primitive._user_lock, "_real", primitive._user_lock) is real)]


def _real_holder(core: ScenarioCore, kind: str, lock: Any) -> threading.Thread | None:
    """The thread of *core* holding the real lock *lock* (of *kind*), if known:
    by a twin's calls (blanket.exploration.realprims), an RLock's owner, or
    the acquire the profile function saw return (see blanket.sleepers)."""
    live_threads = live(core)
    if kind == "Thread":  # a real join: the thread joined, till it ends
        joined = sleepers.joining.get(id(lock))  # (get: see blanket.sleepers)
        return joined if joined in live_threads else None
    for primitive in over_real(core, lock):
        for thread, counts in holdings(core).items():
            if counts.get(id(primitive), 0) > 0 and thread in live_threads:
                return thread
    if kind == "RLock":
        ident = sleepers.owner(lock)
        return next((t for t in live_threads if t.ident == ident), None)
    known = sleepers.holders.get(id(lock))
    return known[1] if known is not None and known[1] in live_threads else None


def _real_sleep(core: ScenarioCore, thread: threading.Thread,
                seen: set[threading.Thread]) -> tuple[str, Any, str,
                                                      threading.Thread] | None:
    """What *thread* (in no blanket call) is asleep in for good, if it is:
    the real lock's kind, the lock, where it is acquired and its holder, a
    thread of *core* that will not move before the scheduler acts (parked,
    or asleep for good itself; *seen* are those asked about already)."""
    entry = sleepers.acquiring.get(thread.ident or 0)  # (get: see blanket.sleepers)
    if entry is None or entry[0] is not thread or not sleepers.held(entry[2]):
        return None
    _, kind, lock, where = entry
    if kind == "SimpleQueue":  # any thread may put: none will, if none moves
        seen.add(thread)
        for other, chain in _live_chains(core):
            if other in seen:
                continue
            if chain:
                top = chain[-1]
                if not (top._parked or (top._state is State.WAITING and not wakes(core, top))):
                    return None
            elif _real_sleep(core, other, seen) is None:
                return None
        return (kind, lock, where, thread)
    holder = _real_holder(core, kind, lock)
    if holder is None or holder is thread:
        return None
    chain = core.chain(holder)
    if chain:
        top = chain[-1]
        still = top._parked or (top._state is State.WAITING and not wakes(core, top))
    else:
        seen.add(thread)
        still = holder in seen or _real_sleep(core, holder, seen) is not None
    return (kind, lock, where, holder) if still else None


def parked(core: ScenarioCore) -> list[Transaction]:
    """The live threads' parked calls, in thread order."""
    return [chain[-1] for _, chain in _live_chains(core) if chain and chain[-1]._parked]


def choices(core: ScenarioCore) -> list[Transaction]:
    """The parked calls the scheduler can let go, in thread order."""
    return [tx for tx in parked(core) if ways(tx)]


def _wait_for(core: ScenarioCore) -> tuple[
        dict[threading.Thread, dict[int, int]],
        dict[threading.Thread, tuple[str, threading.Thread | None]]]:
    """What each thread holds, and what each live thread in a call waits
    for: ``(text, the thread holding it or None)``."""
    held = holdings(core)
    owners: dict[int, threading.Thread] = {}
    for thread, counts in held.items():
        for key, count in counts.items():
            if count > 0:
                owners[key] = thread
    resource_of = {id(p): id(resource(p)) for p in core.primitives}
    holders = {resource_of.get(key, key): thread for key, thread in owners.items()}
    waits: dict[threading.Thread, tuple[str, threading.Thread | None]] = {}
    for thread in live(core):
        chain = core.chain(thread)
        if not chain:
            sleep = _real_sleep(core, thread, set())
            if sleep is not None:
                kind, lock, where, holding = sleep
                if kind == "SimpleQueue":  # for a put, by no one in particular
                    waits[thread] = (f"waits in {sleepers.name(kind, lock)}.get (at {where}, "
                                     "outside blanket) for a put", None)
                    continue
                if kind == "Thread":
                    waits[thread] = (f"waits in Thread.join of {holding.name} (at {where}, "
                                     "outside blanket)", holding)
                    continue
                waits[thread] = (f"waits for {sleepers.name(kind, lock)} (acquired at "
                                 f"{where}, outside blanket)", holding)
            continue
        tx = chain[-1]
        holder = holders.get(id(resource(tx.primitive)))
        if tx.spec.name == "acquire" or tx.state is State.STALLED:
            what = f"waits for {name_of(resource(tx.primitive))}"
        else:
            what = f"waits in {tx.spec.kind}.{tx.spec.name} on {name_of(tx.primitive)}"
            holder = None
        waits[thread] = (what, holder if holder is not thread else None)
    return held, waits


def deadlock(core: ScenarioCore) -> list[threading.Thread]:
    """The threads of the first wait-for cycle (each waits for what the
    next one holds), or none; meaningful once nothing can go on."""
    return _cycle(_wait_for(core)[1])


def deadlocked(core: ScenarioCore) -> list[threading.Thread]:
    """The threads of a wait-for cycle nothing will break while the
    scheduler waits, or none: every live thread is parked or asleep for good
    (:func:`settled`), and no parked call of the cycle could go on if let go
    (a timed one would end by itself: that is a stall, not a deadlock)."""
    if _moving(core) or not settled(core):
        return []
    cycle = deadlock(core)
    for thread in cycle:
        chain = core.chain(thread)
        if chain and chain[-1]._parked and ways(chain[-1]):
            return []
    return cycle


def give_up(core: ScenarioCore, cycle: list[threading.Thread], step: str,
            also: Iterable[threading.Thread] = ()) -> DeadlockError:
    """The :class:`~blanket.errors.DeadlockError` of *step* (a script step,
    or the wait it is in), which cannot go on because the *cycle*'s threads
    wait for each other (lock held; let go during the join).

    Before it is returned, the cycle's threads (and those of *also* still
    alive: the step's own) are abandoned, and joined if that frees them:
    abandoned, a parked thread unwinds and gives its locks back, and the
    thread asleep in the real acquire of one of them gets it and runs on,
    its later calls going straight through (within the bound: one that
    then sleeps for good is left to the exit). A cycle whose threads all
    sleep in real acquires has nobody to start that (nothing wakes a real
    lock but its release): they stay, and the scenario's exit names them.
    """
    why, report = stuck_report(core), core.report()
    given_up = cycle + [t for t in also if t not in cycle and not core.terminated(t)]
    frees = any(chain and chain[-1]._parked for chain in map(core.chain, cycle))
    abandon(core, given_up)
    if frees:
        core.lock.release()
        try:
            join_threads(given_up, core.timeout)
        finally:
            core.lock.acquire()
    return DeadlockError(f"scenario {core.name!r}: {step} cannot go on; {why}", report)


def stuck_report(core: ScenarioCore, leave_out: Iterable[threading.Thread] = ()) -> str:
    """Why the live threads cannot go on, for a scenario where nothing can:
    the wait-for cycle first ("A holds Lock 1 and waits for Lock 2; B holds
    Lock 2 and waits for Lock 1"), then every other stuck thread but those
    of *leave_out* (said otherwise: threads spinning, say)."""
    held, waits = _wait_for(core)
    for thread in leave_out:
        waits.pop(thread, None)
    labels = {id(p): name_of(p) for p in core.primitives}

    def says(thread: threading.Thread) -> str:
        owned = [labels[key] for key, count in held.get(thread, {}).items()
                 if count > 0 and key in labels]
        owned += [sleepers.name("Lock", lock) for lock, holder, _ in
                  list(sleepers.holders.values()) if holder is thread]
        owned += [sleepers.name("RLock", lock) for other, _, lock, _ in
                  list(sleepers.acquiring.values()) if other is not thread
                  and type(lock) is not _LOCK and sleepers.owner(lock) == thread.ident]
        holds = f"holds {', '.join(owned)} and " if owned else ""
        what, holder = waits[thread]
        if holder is not None and holder in core.finished:  # it cannot let go now
            what += f", which {holder.name} held when it ended"
        return f"{thread.name} {holds}{what}"

    cycle = _cycle(waits)
    lines = []
    if cycle:
        lines.append("deadlock: " + "; ".join(says(t) for t in cycle))
    rest = [says(t) for t in waits if t not in cycle]
    if rest:
        lines.append(("also stuck: " if cycle else "stuck, with nothing left to "
                      "wake them: ") + "; ".join(rest))
    return "\n".join(lines)


def _cycle(waits: dict[threading.Thread, tuple[str, threading.Thread | None]]
           ) -> list[threading.Thread]:
    """The first cycle of the wait-for graph, from its earliest thread."""
    for start in waits:
        path: list[threading.Thread] = []
        thread: threading.Thread | None = start
        while thread is not None and thread not in path:
            path.append(thread)
            thread = waits.get(thread, ("", None))[1]
        if thread is not None:
            return path[path.index(thread):]
    return []


def abandon(core: ScenarioCore, threads: list[threading.Thread]) -> None:
    """Give up on *threads* (lock held): their parked calls raise
    :class:`~blanket.errors.Abandoned` and later calls go straight through,
    and sleepers nothing will wake are woken so that they unwind too."""
    # Asleep for good in a real lock outside blanket (looked at before any
    # thread is let go): nothing but a release wakes it, and the lock (a
    # module's, say) would stay held for ever, after the scenario too. Its
    # holder, given up on too, finds it released if it releases it in turn.
    sleeps = [sleep for sleep in (_real_sleep(core, thread, set()) for thread in threads
                                  if not core.chain(thread)) if sleep is not None]
    core.abandoned.update(threads)
    for thread in threads:
        for tx in core.chain(thread):
            if tx._parked:
                core.release_park(tx)
            elif tx.state is State.WAITING and not wakes(core, tx):
                _wake(core, tx)
    for kind, lock, _, _ in sleeps:
        free_real(kind, lock)
    core.changed()


def free_real(kind: str, lock: Any) -> None:
    """Release the real lock *lock* (of *kind*), whichever thread holds it,
    unless it was released meanwhile (on the free-threaded build a sleeper
    freed before may have gone on and given it back)."""
    sleepers.holders.pop(id(lock), None)
    if kind in ("SemLock", "Thread"):
        # Only its holder can release it; given up on, it does. (A join:
        # the thread joined, given up on too, unwinds and ends.)
        return
    if kind == "SimpleQueue":  # a get woken as a put wakes it: None, a worker's "stop"
        sleepers.put(lock)
        lock.put(None)
        return
    try:
        if kind == "Lock":
            lock.release()
        else:
            lock._release_save()
    except RuntimeError:
        pass


def _wake(core: ScenarioCore, tx: Transaction) -> None:
    """Wake a sleeper inside a real primitive as its own wake-up would; in
    a lock, only when every thread holding it has ended (one given up on but
    alive keeps it: a script's deadlock leaves its threads as they are)."""
    primitive: Any = tx.primitive
    kind = primitive._kind
    if kind == "Condition" or kind == "Barrier":
        condition = primitive._real if kind == "Condition" else primitive._real._cond
        if kind == "Barrier":
            primitive._real._state = -2  # broken: its waiters raise BrokenBarrierError
        while condition._waiters:
            condition._waiters.popleft().release()
    elif kind == "Event":
        primitive._real.set()
    elif kind in ("Lock", "RLock"):
        # Held by threads that ended: released for them, so that the
        # sleeper takes it and unwinds.
        holders = [thread for thread, held in holdings(core).items()
                   if held.get(id(primitive), 0) > 0]
        if holders and all(core.terminated(thread) for thread in holders):
            free_real(kind, primitive._real)
    elif kind in ("Semaphore", "BoundedSemaphore"):
        # A slot for it, given as release() gives one (a bounded one's
        # bound aside: the run is over, and its sleeper must unwind).
        real = primitive._real
        with real._cond:
            real._value += 1
            real._cond.notify()
