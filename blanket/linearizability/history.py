"""A history of calls on a concurrent object, and whether it is
linearizable: some order of its calls, one at a time, that keeps the
real-time order and in which a sequential specification returns what each
call returned.

The threads record each call's begin and end in one list (:class:`History`):
a call precedes another when it ended before the other began, by their
places in that list, which blanket knows exactly (no clock). A call still
blocked when the run ended is *pending*: it may or may not have taken
effect, so an order may leave it out, or take it with any result.

The check (:meth:`Specification.check`) is Wing and Gong's search over the
orders the real-time order allows, made just in time as Lowe's: a call is
tried next only while no call that is left ended before it began. What the
specification returns is memoized by the sequence of calls it was given
(:class:`Specification`, one per scenario), so a history met again by
another schedule costs dictionary look-ups only, and the specification runs
each sequence once, going on from the object of the sequence before while
the search goes deeper. With a *partition* (P-compositionality: calls on
independent keys commute), each part is checked alone.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Sequence
from typing import Any

#: How long the specification may take over a pending call before that
#: call is taken to block there (it cannot take effect at that point).
PENDING_BOUND = 1.0
#: The divergences a verdict keeps to explain itself.
MAX_DIVERGENCES = 64


class Outcome:
    """What a call returned, or raised."""

    __slots__ = ("raised", "value")

    def __init__(self, raised: bool, value: Any) -> None:
        #: Whether :attr:`value` is an exception the call raised.
        self.raised = raised
        #: The return value or the exception.
        self.value = value

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


class Specification:
    """The sequential specification of one scenario's calls: what *model*
    (a fresh object per sequence) returns for each sequence of them,
    memoized by the sequence."""

    def __init__(self, model: Callable[[], Any], operations: Sequence[Callable[[Any], Any]],
                 partition: Callable[[Callable[[Any], Any]], Hashable] | None = None) -> None:
        self.model = model
        #: The operation of each call, by the call's number.
        self.operations = list(operations)
        self.cache: dict[tuple[int, ...], Outcome] = {}
        #: The object of the last sequence run, and that sequence.
        self._live: Any = None
        self._at: tuple[int, ...] | None = None
        #: The parts checked alone, by key, each a list of call numbers.
        self.parts: list[list[int]] = [list(range(len(self.operations)))]
        if partition is not None:
            keyed: dict[Hashable, list[int]] = {}
            for number, operation in enumerate(self.operations):
                keyed.setdefault(partition(operation), []).append(number)
            self.parts = list(keyed.values())
        #: How many histories were checked.
        self.checks = 0

    def outcome(self, sequence: tuple[int, ...], pending: bool) -> Outcome:
        """What the specification returns for the last call of *sequence*
        after the others; a *pending* call is given :data:`PENDING_BOUND`
        seconds (it may block there: :data:`BLOCKED`)."""
        known = self.cache.get(sequence)
        if known is not None:
            return known
        if self._at != sequence[:-1]:
            # Another branch of the search: a fresh object, given the calls
            # before (the specification is deterministic: they return as before).
            self._live = self.model()
            for earlier in sequence[:-1]:
                _call(self.operations[earlier], self._live)
        call = sequence[-1]
        operation, live = self.operations[call], self._live
        if pending:
            outcome = _bounded(lambda: _call(operation, live))
        else:
            outcome = _call(operation, live)
        self.cache[sequence] = outcome
        self._at = None if outcome is BLOCKED else sequence
        return outcome

    def check(self, history: History) -> Verdict:
        """Whether *history* (of this scenario's calls) is linearizable."""
        self.checks += 1
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
        self.calls = calls
        self.begins = begins
        self.ends = ends
        self.observed = observed
        #: The calls every order must take: those that ended.
        self.required = sum(1 << call for call in calls if observed[call] is not None)
        self.divergences: list[tuple[tuple[int, ...], int, Outcome]] = []
        self.tried = 0

    def visit(self, sequence: tuple[int, ...], done: int) -> tuple[int, ...] | None:
        """An order that explains every call, taking *sequence* (the calls
        in *done*) first; ``None`` when there is none."""
        if done & self.required == self.required:
            return sequence
        left = [call for call in self.calls if not done >> call & 1]
        horizon = min(self.ends[call] for call in left)
        for call in left:
            if self.begins[call] > horizon:  # a call left ended before it began
                continue
            taken = (*sequence, call)
            seen = self.observed[call]
            outcome = self.specification.outcome(taken, seen is None)
            if outcome is BLOCKED or (seen is not None and not outcome.matches(seen)):
                if seen is not None:
                    self.tried += 1
                    if len(self.divergences) < MAX_DIVERGENCES:
                        self.divergences.append((sequence, call, outcome))
                continue
            found = self.visit(taken, done | 1 << call)
            if found is not None:
                return found
        return None


def _call(operation: Callable[[Any], Any], obj: Any) -> Outcome:
    """What ``operation(obj)`` returns or raises."""
    try:
        return Outcome(False, operation(obj))
    except Exception as error:  # noqa: BLE001 - an exception is a result
        return Outcome(True, error)


def _bounded(call: Callable[[], Outcome]) -> Outcome:
    """*call*'s outcome, or :data:`BLOCKED` if it takes longer than
    :data:`PENDING_BOUND` (it is left to finish on a daemon thread)."""
    kept: list[Outcome] = []
    helper = threading.Thread(target=lambda: kept.append(call()), daemon=True,
                              name="blanket-pending-call")
    helper.start()
    helper.join(PENDING_BOUND)
    return kept[0] if kept else BLOCKED


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
        got = "blocks" if outcome is BLOCKED else (
            f"raises {outcome.value!r}" if outcome.raised else f"returns {outcome.value!r}")
        lines.append(f"  {', '.join([*taken, names[call]])}: the specification {got}, "
                     f"{names[call].split(' ', 1)[0]} {_saw(seen)}")
    if verdict.tried > MAX_LISTED:
        lines.append(f"  ... and {verdict.tried - MAX_LISTED} more")
    return "\n".join(lines)


def _saw(outcome: Outcome | None) -> str:
    assert outcome is not None  # a pending call never diverges
    return f"raised {outcome.value!r}" if outcome.raised else f"returned {outcome.value!r}"
