"""A history of calls on a concurrent object, and whether it is
linearizable: some order of its calls, one at a time, that keeps the
real-time order and in which a sequential specification returns what each
call returned.

The threads record each call's begin and end in one list (:class:`History`):
a call precedes another when it ended before the other began, by their
places in that list, which blanket knows exactly (no clock). A call still
blocked when the run ended (the run's threads could go no further) is
*pending*: it did not return, so the specification must block on it too,
after the calls that did (a ``get`` of an empty queue); one that the
specification answers was lost (a missed wake-up, a deadlock).

The check (:meth:`Specification.check`) is Wing and Gong's search over the
orders the real-time order allows, made just in time as Lowe's: a call is
tried next only while no call that is left ended before it began. What the
specification returns is memoized by the sequence of operations it was
given (:class:`Model`, one per check, shared by its scenarios), so a
history met again by another schedule or scenario costs dictionary
look-ups only, and the specification runs each sequence once, going on from
the object of the sequence before while the search goes deeper. With a
*partition* (P-compositionality: calls on independent keys commute), each
part is checked alone.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Hashable, Sequence
from typing import Any

#: How long the specification may take over one call before the call is
#: taken to block there (a sequential call that does not return in this
#: long waits for another thread, which a sequential run has none of).
PENDING_BOUND = 0.5
#: The divergences a verdict keeps to explain itself.
MAX_DIVERGENCES = 64


class Outcome:
    """What a call returned, or raised."""

    __slots__ = ("raised", "value", "token")

    def __init__(self, raised: bool, value: Any, token: int | None = None) -> None:
        #: Whether :attr:`value` is an exception the call raised.
        self.raised = raised
        #: The return value or the exception.
        self.value = value
        #: For a value compared by identity (:func:`by_identity`), which one
        #: it is among those the sequence of calls returned: 1 for the first
        #: returned, and so on (the specification's answers only).
        self.token = token

    def matches(self, other: Outcome) -> bool:
        """Whether *other* is the same result: an equal value, or an
        exception of the same type with the same arguments."""
        if self.raised != other.raised:
            return False
        if self.raised:
            return type(self.value) is type(other.value) and self.value.args == other.value.args
        try:
            return bool(self.value == other.value)
        except Exception:  # noqa: BLE001 - values that cannot be compared differ
            return False

    def __str__(self) -> str:
        return f"raised {self.value!r}" if self.raised else f"-> {self.value!r}"


#: The specification's outcome of a call that did not finish in time there.
BLOCKED = Outcome(False, "<blocked>")


def by_identity(outcome: Outcome) -> bool:
    """Whether *outcome*'s value is compared by which object it is: an
    instance of a class that keeps ``object``'s equality. The
    specification's object is never the run's, so such values match when
    they are the same one of those the calls before returned, or both new
    (a cache that hands two callers two objects for one key is caught)."""
    value = outcome.value
    return (not outcome.raised and value is not None
            and type(value).__eq__ is object.__eq__)  # type: ignore[comparison-overlap]


class _Live:
    """The model's object after a sequence of calls, and the objects
    compared by identity those calls returned, numbered from 1."""

    def __init__(self, obj: Any) -> None:
        self.obj = obj
        self.numbers: dict[int, int] = {}
        self.kept: list[Any] = []  # the numbered objects, alive so their ids stay theirs

    def call(self, operation: Callable[[Any], Any]) -> Outcome:
        """``operation(obj)``'s outcome, its value numbered if compared by identity."""
        outcome = _call(operation, self.obj)
        if by_identity(outcome):
            value = outcome.value
            if id(value) not in self.numbers:
                self.numbers[id(value)] = len(self.numbers) + 1
                self.kept.append(value)
            outcome.token = self.numbers[id(value)]
        return outcome


class History:
    """The calls of one run: the order their begins and ends were recorded
    in, and what each returned (``None`` for a call still pending)."""

    def __init__(self, count: int) -> None:
        #: Each begin (the call's number) and end (``-1 - number``), in order.
        self.events: list[int] = []
        #: Each call's outcome, by number; ``None`` while it has not ended.
        self.outcomes: list[Outcome | None] = [None] * count

    def begin(self, call: int) -> None:
        """Call number *call* begins."""
        self.events.append(call)

    def end(self, call: int, outcome: Outcome) -> None:
        """Call number *call* ended with *outcome*."""
        self.outcomes[call] = outcome
        self.events.append(-1 - call)

    def spans(self) -> tuple[list[float], list[float]]:
        """Each call's begin and end, as places in :attr:`events` (a call
        never begun begins and a pending one ends at infinity)."""
        count = len(self.outcomes)
        begins: list[float] = [float("inf")] * count
        ends: list[float] = [float("inf")] * count
        for place, event in enumerate(self.events):
            if event >= 0:
                begins[event] = place
            else:
                ends[-1 - event] = place
        return begins, ends

    def started(self) -> list[int]:
        """The calls that began, in the order they did."""
        return [event for event in self.events if event >= 0]


class Verdict:
    """Whether a history is linearizable: an order that explains it, or the
    orders tried and where each diverged."""

    def __init__(self, order: list[int] | None,
                 divergences: list[tuple[tuple[int, ...], int, Outcome]], tried: int) -> None:
        #: Calls in an order that explains every result, or ``None``.
        self.order = order
        #: Where orders diverged: the calls taken before, the call whose
        #: result the specification did not give, and what it gave instead.
        self.divergences = divergences
        #: How many divergences there were (more than are kept, maybe).
        self.tried = tried

    @property
    def ok(self) -> bool:
        """Whether the history is linearizable."""
        return self.order is not None


class Model:
    """The sequential specification's answers: what *factory* (a fresh
    object per sequence) returns for each sequence of operations, memoized
    by the sequence; one per check, shared by its scenarios.

    Each call is made on a thread of the model's own, waited for at most
    :data:`PENDING_BOUND` seconds: a call that takes longer blocks there
    (:data:`BLOCKED`), the thread is given up on, and the next call starts
    another. The model goes on from the object of the sequence before while
    a search goes deeper, and builds a fresh one for another branch."""

    def __init__(self, factory: Callable[[], Any]) -> None:
        self.factory = factory
        #: What each sequence's last call gave, by the ids of its operations.
        self.cache: dict[tuple[int, ...], Outcome] = {}
        #: The object of the last sequence run, and that sequence.
        self._live: _Live | None = None
        self._at: tuple[int, ...] | None = None
        self._runner: _Runner | None = None

    def outcome(self, operations: Sequence[Callable[[Any], Any]]) -> Outcome:
        """What the specification returns for the last of *operations* after
        the others (:data:`BLOCKED` if it does not return)."""
        key = tuple(map(id, operations))
        known = self.cache.get(key)
        if known is not None:
            return known
        fresh = self._at != key[:-1]
        live = self._live
        last = operations[-1]

        def call() -> tuple[_Live, Outcome]:
            state = live
            if fresh or state is None:
                # Another branch of the search: a fresh object, given the calls
                # before (the specification is deterministic: they return as before).
                state = _Live(self.factory())
                for earlier in operations[:-1]:
                    state.call(earlier)
            return state, state.call(last)

        if self._runner is None:
            self._runner = _Runner()
        made = self._runner.run(call)
        if made is None:  # it blocks: the runner is left to it
            self._runner, outcome = None, BLOCKED
            self._live, self._at = None, None
        else:
            (self._live, outcome), self._at = made, key
        self.cache[key] = outcome
        return outcome

    def forget(self) -> None:
        """Drop every answer: the next sequences are run again."""
        self.cache.clear()
        self._live, self._at = None, None

    def close(self) -> None:
        """End the model's thread (another call starts a new one)."""
        if self._runner is not None:
            self._runner.stop()
            self._runner = None


def _stop() -> None:
    """The task that ends a runner."""


class _Runner:
    """A daemon thread that makes the model's calls, one at a time."""

    def __init__(self) -> None:
        self.tasks: queue.SimpleQueue[Callable[[], Any]] = queue.SimpleQueue()
        self.results: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, daemon=True, name="blanket-model")
        self._thread.start()

    def _serve(self) -> None:
        while (task := self.tasks.get()) is not _stop:
            self.results.put(task())

    def stop(self) -> None:
        """End the thread (it is idle: its last task returned) and wait
        until it is gone: nothing is left running."""
        self.tasks.put(_stop)
        self._thread.join(PENDING_BOUND)

    def run(self, task: Callable[[], Any]) -> Any:
        """What *task* returns, or ``None`` if it has not returned after
        :data:`PENDING_BOUND` seconds."""
        self.tasks.put(task)
        try:
            return self.results.get(timeout=PENDING_BOUND)
        except queue.Empty:
            return None


class Specification:
    """The sequential specification of one scenario's calls, answered by a
    :class:`Model` (shared by the scenarios of a check)."""

    def __init__(self, model: Callable[[], Any] | Model,
                 operations: Sequence[Callable[[Any], Any]],
                 partition: Callable[[Callable[[Any], Any]], Hashable] | None = None) -> None:
        self.model = model if isinstance(model, Model) else Model(model)
        # A model of its own (a replay's) ends its thread after each check;
        # a shared one, its check's (check_linearizable closes it).
        self._own = self.model is not model
        #: The operation of each call, by the call's number.
        self.operations = list(operations)
        #: The parts checked alone, by key, each a list of call numbers.
        self.parts: list[list[int]] = [list(range(len(self.operations)))]
        if partition is not None:
            keyed: dict[Hashable, list[int]] = {}
            for number, operation in enumerate(self.operations):
                keyed.setdefault(partition(operation), []).append(number)
            self.parts = list(keyed.values())
        #: How many histories were checked.
        self.checks = 0

    def outcome(self, sequence: tuple[int, ...]) -> Outcome:
        """What the specification returns for the last call of *sequence*
        after the others (:data:`BLOCKED` if it does not return)."""
        return self.model.outcome([self.operations[call] for call in sequence])

    def check(self, history: History) -> Verdict:
        """Whether *history* (of this scenario's calls) is linearizable: an
        order of the calls that ended, keeping the real-time order, in which
        the specification gives each call's result, and after which each
        call still pending (blocked when the run ended) blocks."""
        self.checks += 1
        try:
            return self._check(history)
        finally:
            if self._own:
                self.model.close()

    def _check(self, history: History) -> Verdict:
        begins, ends = history.spans()
        order: list[int] = []
        for part in self.parts:
            search = _Search(self, [call for call in part if begins[call] != float("inf")],
                             begins, ends, history.outcomes)
            found = search.visit((), 0)
            if found is None:
                return Verdict(None, search.divergences, search.tried)
            order += found
        return Verdict(order, [], 0)


class _Search:
    """The search for an order of one part's calls that explains them."""

    def __init__(self, specification: Specification, calls: list[int], begins: list[float],
                 ends: list[float], observed: list[Outcome | None]) -> None:
        self.specification = specification
        self.begins = begins
        self.ends = ends
        self.observed = observed
        #: The calls that ended: every order takes them all.
        self.calls = [call for call in calls if observed[call] is not None]
        #: The calls still blocked when the run ended: each must block after the order.
        self.pending = [call for call in calls if observed[call] is None]
        self.required = sum(1 << call for call in self.calls)
        self.divergences: list[tuple[tuple[int, ...], int, Outcome]] = []
        self.tried = 0

    def diverged(self, sequence: tuple[int, ...], call: int, outcome: Outcome) -> None:
        self.tried += 1
        if len(self.divergences) < MAX_DIVERGENCES:
            self.divergences.append((sequence, call, outcome))

    def visit(self, sequence: tuple[int, ...], done: int,
              numbers: dict[int, int] | None = None) -> tuple[int, ...] | None:
        """An order that explains every call, taking *sequence* (the calls
        in *done*) first, whose values compared by identity are *numbers*
        (by id, as :class:`Outcome`'s token); ``None`` when there is none."""
        numbers = numbers or {}
        if done == self.required:
            for call in self.pending:
                outcome = self.specification.outcome((*sequence, call))
                if outcome is not BLOCKED:
                    self.diverged(sequence, call, outcome)
                    return None
            return sequence
        left = [call for call in self.calls if not done >> call & 1]
        horizon = min(self.ends[call] for call in left)
        for call in left:
            if self.begins[call] > horizon:  # a call left ended before it began
                continue
            taken = (*sequence, call)
            seen = self.observed[call]
            assert seen is not None
            outcome = self.specification.outcome(taken)
            after = numbers
            if outcome is BLOCKED or not by_identity(seen) and not outcome.matches(seen):
                self.diverged(sequence, call, outcome)
                continue
            if by_identity(seen):
                number = numbers.get(id(seen.value), len(numbers) + 1)
                if outcome.token != number:
                    self.diverged(sequence, call, outcome)
                    continue
                after = {**numbers, id(seen.value): number}
            found = self.visit(taken, done | 1 << call, after)
            if found is not None:
                return found
        return None


def _call(operation: Callable[[Any], Any], obj: Any) -> Outcome:
    """What ``operation(obj)`` returns or raises."""
    try:
        return Outcome(False, operation(obj))
    except Exception as error:  # noqa: BLE001 - an exception is a result
        return Outcome(True, error)


#: The orders an explanation lists, at most.
MAX_LISTED = 12


def explain(verdict: Verdict, names: Sequence[str], history: History) -> str:
    """Why no order explains *history*: each order tried, up to the call
    whose result the specification did not give (*names* name the calls,
    ``"A1 increment()"``)."""
    observed = history.outcomes
    lines = ["no order of the calls, one at a time, gives the results seen "
             f"({verdict.tried} order(s) tried, each up to where it diverged):"]
    for sequence, call, outcome in verdict.divergences[:MAX_LISTED]:
        taken = [f"{names[c]} {observed[c] or 'pending'}" for c in sequence]
        seen = observed[call]
        # Objects compared by identity are named by the call that returned them first.
        firsts: dict[int, str] = {}
        for earlier in sequence:
            was = observed[earlier]
            if was is not None and by_identity(was):
                firsts.setdefault(id(was.value), names[earlier].split(" ", 1)[0])
        got = "blocks" if outcome is BLOCKED else (
            f"raises {outcome.value!r}" if outcome.raised else
            f"returns {_which(outcome, list(firsts.values()))}")
        lines.append(f"  {', '.join([*taken, names[call]])}: the specification {got}, "
                     f"{names[call].split(' ', 1)[0]} {_saw(seen, firsts)}")
    if verdict.tried > MAX_LISTED:
        lines.append(f"  ... and {verdict.tried - MAX_LISTED} more")
    return "\n".join(lines)


def _which(outcome: Outcome, firsts: list[str]) -> str:
    """The specification's value, an object compared by identity named by
    the call (of *firsts*, in order) that returned it first."""
    token = outcome.token
    if token is None:
        return repr(outcome.value)
    return (f"what {firsts[token - 1]} returned" if token <= len(firsts) else
            f"a new {type(outcome.value).__name__}")


def _saw(outcome: Outcome | None, firsts: dict[int, str]) -> str:
    if outcome is None:
        return "was blocked when the run ended"
    if outcome.raised:
        return f"raised {outcome.value!r}"
    if by_identity(outcome):
        first = firsts.get(id(outcome.value))
        return (f"returned what {first} returned" if first is not None else
                f"returned a new {type(outcome.value).__name__}")
    return f"returned {outcome.value!r}"
