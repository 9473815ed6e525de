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
tried next only while no call that is left ended before it began (the
begins before the first end still to come, in a list of the begins and ends
that the calls taken leave, and that backtracking puts back), and a
configuration met before (the calls taken, the specification's state, and
which object each call compared by identity returned) is not searched again.
The search is a loop, not a recursion: a history of any length is checked.
The specification's answers are a :class:`~blanket.linearizability.model.Model`'s
(one per check, shared by its scenarios): memoized per state, so a history
met again by another schedule or scenario costs dictionary look-ups only.
With a *partition* (P-compositionality: calls on independent keys commute),
each part is checked alone.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from ..errors import LinearizabilityError
from .model import BLOCKED, Model, Outcome, by_identity
from .operations import describe

__all__ = ["BLOCKED", "MAX_DIVERGENCES", "MAX_LISTED", "History", "Model", "Outcome",
           "Specification", "Verdict", "by_identity", "explain"]

#: The divergences a verdict keeps to explain itself.
MAX_DIVERGENCES = 64


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
    """The sequential specification of one scenario's calls, answered by a
    :class:`~blanket.linearizability.model.Model` (shared by the scenarios
    of a check); *names* name the calls in errors (``"A1 increment()"``)."""

    def __init__(self, model: Callable[[], Any] | Model,
                 operations: Sequence[Callable[[Any], Any]],
                 partition: Callable[[Callable[[Any], Any]], Hashable] | None = None,
                 names: Sequence[str] | None = None) -> None:
        self.model = model if isinstance(model, Model) else Model(model)
        # A model of its own (a replay's) ends its thread after each check;
        # a shared one, its check's (check_linearizable closes it).
        self._own = self.model is not model
        #: The operation of each call, by the call's number.
        self.operations = list(operations)
        #: Each call's name.
        self.names = list(names) if names is not None else [
            f"call {number} {describe(op)}" for number, op in enumerate(self.operations, 1)]
        #: The parts checked alone, by key, each a list of call numbers.
        self.parts: list[list[int]] = [list(range(len(self.operations)))]
        if partition is not None:
            keyed: dict[Hashable, list[int]] = {}
            for number, operation in enumerate(self.operations):
                keyed.setdefault(partition(operation), []).append(number)
            self.parts = list(keyed.values())
        #: How many histories were checked.
        self.checks = 0

    def check(self, history: History) -> Verdict:
        """Whether *history* (of this scenario's calls) is linearizable: an
        order of the calls that ended, keeping the real-time order, in which
        the specification gives each call's result, and after which each
        call still pending (blocked when the run ended) blocks. What the
        check was given failing raises :class:`~blanket.LinearizabilityError`."""
        self.checks += 1
        if self.model.error is not None:
            raise self.model.error
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
            found = search.run()
            if found is None:
                return Verdict(None, search.divergences, search.tried)
            order += found
        return Verdict(order, [], 0)


class _Search:
    """The search for an order of one part's calls that explains them."""

    def __init__(self, specification: Specification, calls: list[int], begins: list[float],
                 ends: list[float], observed: list[Outcome | None]) -> None:
        self.specification = specification
        self.observed = observed
        #: The calls still blocked when the run ended: each must block after the order.
        self.pending = [call for call in calls if observed[call] is None]
        self.divergences: list[tuple[tuple[int, ...], int, Outcome]] = []
        self.tried = 0
        # The begins and ends of the calls that ended, in the order they
        # happened, as a doubly linked list: node 0 is its head and its end,
        # node 2k + 1 the begin of the k-th call, 2k + 2 its end.
        done = [call for call in calls if observed[call] is not None]
        events = sorted([(begins[call], 2 * k + 1) for k, call in enumerate(done)]
                        + [(ends[call], 2 * k + 2) for k, call in enumerate(done)])
        order = [0, *(node for _, node in events), 0]
        self.next = [0] * (2 * len(done) + 1)
        self.previous = [0] * (2 * len(done) + 1)
        for place in range(len(order) - 1):
            self.next[order[place]] = order[place + 1]
            self.previous[order[place + 1]] = order[place]
        self.calls = done

    def diverged(self, taken: list[int], call: int, outcome: Outcome) -> None:
        self.tried += 1
        if len(self.divergences) < MAX_DIVERGENCES:
            self.divergences.append((tuple(taken), call, outcome))

    def _lift(self, node: int) -> None:
        """Take a call's begin (*node*) and end out of the list."""
        after, before = self.next, self.previous
        for gone in (node, node + 1):
            after[before[gone]] = after[gone]
            before[after[gone]] = before[gone]

    def _unlift(self, node: int) -> None:
        """Put them back (the last taken out first)."""
        after, before = self.next, self.previous
        for back in (node + 1, node):
            after[before[back]] = back
            before[after[back]] = back

    def run(self) -> list[int] | None:
        """An order of the calls that explains every one, or ``None``."""
        model, operations = self.specification.model, self.specification.operations
        calls, after = self.calls, self.next
        state = model.root()
        taken: list[int] = []  # the calls, in the order taken
        numbers: dict[int, int] = {}  # an observed object compared by identity -> its number
        done = 0  # the calls taken, as bits (by the call's place in self.calls)
        seen: set[tuple[int, int, tuple[int, ...]]] = set()
        # What to go back to: the begin taken, and the state, numbers before.
        stack: list[tuple[int, int, dict[int, int]]] = []
        node = after[0]
        if not node and self._pending_block(state, taken):  # no call ended
            return taken
        while True:
            if node % 2:  # a begin before the first end left: a call to try
                index = node // 2
                call = calls[index]
                # Another call to try after it: the search comes back to this state.
                outcome, state_after = model.step(state, operations[call], after[node] % 2 == 1)
                found = self._explains(call, outcome, numbers)
                if found is None:
                    self.diverged(taken, call, outcome)
                elif (key := (done | 1 << index, state_after, tuple(found))) not in seen:
                    seen.add(key)
                    stack.append((node, state, numbers))
                    self._lift(node)
                    done |= 1 << index
                    taken.append(call)
                    state, numbers = state_after, found
                    node = after[0]
                    if not node and self._pending_block(state, taken):
                        return taken
                    continue
                node = after[node]
                continue
            # An end, or the list's: no call left to try here; back one call.
            if not stack:
                return None
            node, state, numbers = stack.pop()
            self._unlift(node)
            done &= ~(1 << node // 2)
            taken.pop()
            node = after[node]

    def _explains(self, call: int, outcome: Outcome,
                  numbers: dict[int, int]) -> dict[int, int] | None:
        """Whether the specification's *outcome* is *call*'s, given which
        observed objects compared by identity were returned before
        (*numbers*): the numbers after, or ``None``."""
        seen = self.observed[call]
        assert seen is not None
        if outcome is BLOCKED:
            return None
        if by_identity(seen):
            number = numbers.get(id(seen.value), len(numbers) + 1)
            if outcome.token != number:
                return None
            return numbers if number <= len(numbers) else {**numbers, id(seen.value): number}
        try:
            same = outcome.matches(seen)
        except Exception as error:  # noqa: BLE001 - any exception: the check cannot go on
            name = self.specification.names[call]
            raise self.specification.model.fail(LinearizabilityError(
                f"check_linearizable: comparing {name}'s result {seen} with the "
                f"specification's {outcome} raised {error!r}: results must compare with "
                "== (keep object's __eq__ to compare by identity)")) from error
        return numbers if same else None

    def _pending_block(self, state: int, taken: list[int]) -> bool:
        """Whether every pending call blocks after *taken*, in *state*."""
        model, operations = self.specification.model, self.specification.operations
        for call in self.pending:
            outcome, _ = model.step(state, operations[call])
            if outcome is not BLOCKED:
                self.diverged(taken, call, outcome)
                return False
        return True


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
