"""Shrinking a failure's schedule before it is reported: the fewest
preemptions that still fail the same way, then no step that can be dropped.

The run that failed first lists every step it took, most of them beside the
point. ``shrink()`` makes the schedule a person reads, and the test written
for it, the smallest it can find, judging each candidate by its replay
(:func:`~blanket.exploration.reproduce.replay`, which the written test
calls: the schedule's steps, then a fixed rule finishes the threads). A
candidate *fails the same way* when its replay takes every one of its steps
and fails with the same kind of failure (for a thread's exception or the
invariant, the same exception type), with no more preemptions than allowed
(the failing run's own schedule need only fail so: its replay parks only
the accesses its steps name, and may let one of them go unparked).
A preemption is a switch away from a thread that could have gone on,
counted over the whole run the schedule replays to (its steps and the
rule's), as ``blanket.exploration.dfs`` counts them against
``max_preemptions``. In two stages:

1. *Preemptions*: with *p* in the failing schedule's replay, depth-first
   searches of the same setup with the same options, bounded to 0, 1, ...
   *p* - 1 preemptions (iterative bounding), look for the same failure; the
   first found (its replay within its bound) is the schedule to shrink on,
   and its bound the most preemptions allowed from then on.
2. *Steps*: trailing steps are dropped first (the rule finishes the
   threads), halving the tail, then any others by delta debugging (Zeller's
   *ddmin*), until dropping any single step no longer fails the same way:
   the schedule is 1-minimal.

The shrunk failure's message is its replay's, so the report, the schedule
and the written test tell of one run; it is replayed once more before it
is handed over, and if that does not fail the same way the failure is left
as the search found it. So is a failure whose schedule does not replay to
it.

Shrinking is bounded: at most :data:`MAX_SEARCHES` bounded searches and
:data:`MAX_REPLAYS` replays, in as long as the search took (between
:data:`MIN_SECONDS` and :data:`MAX_SECONDS`), within what is left of the
search's own wall-clock budget (``max_seconds``). Cut short, the failure
says so
(:attr:`Failure.shrunk <blanket.Failure.shrunk>`, at the end of its report):
"the schedule may not be the smallest: shrinking stopped by ...", and so
when a bounded search stopped short of telling (at another failure first,
by ``max_schedules``, or finding the setup not deterministic).

What shrinks: every kind of failure but two (:data:`UNSHRUNK`), left as
they are, saying so: a stall, whose every replay would wait the whole
``timeout``, and a livelock, whose replay does not watch the writes the
search's report names (who last wrote what the spinning threads read):
a shrunk one would tell less. A data race (``races="fail"``) shrinks like
the others, its replays watching for races as its written test does (most
need no step at all: the race is there in any order).

It runs once a search is over, in the process that called
:func:`~blanket.explore` (with ``processes=``, once, on the failure the
shards' results give), and not where no test is tried either: in the
process of a shard, in a fresh interpreter running a written test, or in
an exploration that is part of a larger search
(:func:`~blanket.check_linearizable` shrinks its own failures:
``blanket.exploration.tried.untried``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ..seconds import Deadline
from .dfs import NotDeterministic
from .reproduce import Replay, replay, reproduce, summary_of
from .result import Exploration, Failure, Setup, Step
from .tried import trying, untried

#: The most bounded searches stage 1 makes (0 to 7 preemptions).
MAX_SEARCHES = 8
#: The most replays shrinking makes (the last check of the shrunk one aside).
MAX_REPLAYS = 200
#: The seconds shrinking may spend however quickly the search found the
#: failure: shrinking spends as long as the search took, this at least and
#: :data:`MAX_SECONDS` at most, within what is left of the search's budget.
MIN_SECONDS = 2.0
#: The seconds shrinking spends at most (see :data:`MIN_SECONDS`): a
#: failure found in seconds is not held back for minutes while a large
#: space is searched again with fewer preemptions.
MAX_SECONDS = 10.0

#: The kinds of failure left as they are, and why.
UNSHRUNK = {
    "stall": "each replay of a stall would wait the whole timeout",
    "livelock": "the replay of a livelock does not see who last wrote what the spinning "
                "threads read, which its report names"}

#: What runs the search again, given its options: :func:`blanket.explore`.
Explore = Callable[..., Exploration]


def shrink(result: Exploration, setup: Setup, explore: Explore, options: dict[str, Any],
           deadline: Deadline) -> None:
    """Replace *result*'s failure, if any, by one whose schedule is shrunk
    (see the module's docstring): *setup* searched again by *explore* with
    *options* (:func:`blanket.explore`'s, shards and processes aside)
    bounded in preemptions, and replayed, within *deadline*."""
    failure = result.failure
    if failure is None or trying():
        return
    if failure.kind in UNSHRUNK:
        failure.shrunk = f"the schedule was not shrunk: {UNSHRUNK[failure.kind]}"
        return
    seconds = min(MAX_SECONDS, max(MIN_SECONDS, result.elapsed))
    bounded = deadline.within(seconds)
    own = bounded.at < deadline.at  # (its own bound ends first)
    shrinking = _Shrinking(failure, setup, explore, options, bounded if own else deadline)
    if own:
        shrinking.bound = f"after {round(seconds, 1):g} s, its own bound"
    result.failure = shrinking.shrunk()


def exception_type(kind: str, message: str) -> str:
    """What a failure of *kind* with *message* raised: the exception's type
    for a thread's exception or the invariant (``"AssertionError"``), else
    ``""``."""
    if kind not in ("exception", "invariant"):
        return ""
    return summary_of(kind, message).split(":", 1)[0]


class _Spent(Exception):  # noqa: N818 - a budget spent, not an error
    """Shrinking's budget is spent; why, as the failure says it."""


class _Shrinking:
    """One failure being shrunk: what it is, what is spent, the best so far."""

    def __init__(self, failure: Failure, setup: Setup, explore: Explore,
                 options: dict[str, Any], deadline: Deadline) -> None:
        self.failure, self.setup, self.explore = failure, setup, explore
        self.options, self.deadline = options, deadline
        #: How a report names the time bound, once spent.
        self.bound = f"by {deadline.label}"
        self.kind = failure.kind
        self.raised = exception_type(failure.kind, failure.message)
        self.replays = 0
        #: What each schedule tried replayed to.
        self.tried: dict[tuple[str, ...], Replay] = {}
        #: The most preemptions a schedule may have: any, until the failing
        #: schedule is replayed; then what stage 1 found needed.
        self.limit = len(failure.schedule)
        #: The schedule with the fewest steps so far, and its replay.
        self.best: tuple[tuple[Step, ...], Replay] | None = None

    def same(self, found: tuple[str, str] | None) -> bool:
        """Whether *found* (a failure's kind and message) is this failure."""
        return found is not None and found[0] == self.kind and \
            exception_type(*found) == self.raised

    def replay(self, steps: Sequence[Step], every: bool = True) -> Replay | None:
        """The replay of *steps* if it took every one of them (unless not
        *every*) and failed the same way within the preemptions allowed,
        else ``None``; :class:`_Spent` once the budget is."""
        key = tuple(map(str, steps))
        if key not in self.tried:
            if self.replays == MAX_REPLAYS:
                raise _Spent(f"after {MAX_REPLAYS} replays")
            self._in_time()
            self.replays += 1
            self.tried[key] = self._replay(steps)
        again = self.tried[key]
        fits = (again.diverged is None or not every) and again.preemptions <= self.limit
        return again if fits and self.same(again.failure) else None

    def _replay(self, steps: Sequence[Step], places: bool = False) -> Replay:
        """:func:`~blanket.exploration.reproduce.replay` of *steps*, as the
        written test makes it (with *places*, each call saying where it
        was made)."""
        return replay(self.setup, steps, timeout=self.options["timeout"],
                      name=self.options["name"], races="fail" if self.kind == "race" else "off",
                      places=places)

    def _in_time(self) -> None:
        """:class:`_Spent` if the wall-clock budget is."""
        if self.deadline.spent():
            raise _Spent(self.bound)

    def shrunk(self) -> Failure:
        """The failure with its schedule shrunk, or as it was when it
        cannot be (saying why). Whatever the runs shrinking makes raise (a
        setup that finds what the failing run left in process-wide state,
        linecache's cache, not as it expects) leaves the failure found as
        it is: shrinking never costs the user a failure."""
        try:
            return self._shrunk()
        except Exception as error:  # noqa: BLE001 - the failure found stands
            said = f"{type(error).__name__}: {error}".rstrip(": ")
            return replace(self.failure, shrunk="the schedule was not shrunk: a run made to "
                           f"shrink it raised {said} (the failing run may have left state the "
                           "setup does not expect)")

    def _shrunk(self) -> Failure:
        original = self.failure.schedule
        cut = ""  # why the schedule may not be the smallest
        try:
            # The search's schedule, as found: its replay may leave out a step
            # it took (an access the replay does not park), and fail so all
            # the same; a schedule that replaces it must have no such step.
            first = self.replay(original, every=False)
        except _Spent as spent:  # (the search spent the time finding it)
            return replace(self.failure, shrunk=_may_not(str(spent)))
        if first is None:
            return replace(self.failure, shrunk="the schedule was not shrunk: it does not "
                           "replay to this failure (see the written test)")
        self.limit = first.preemptions
        try:
            self.best = self._fewest_preemptions(first.preemptions)
        except _Spent as spent:
            cut, self.limit = str(spent), first.preemptions
        self.best = self.best or (original, first)
        try:
            self._fewer_steps()
        except _Spent as spent:
            cut = cut or str(spent)
        steps, best = self.best
        if steps == original:
            return replace(self.failure, shrunk=_may_not(cut) if cut else _said(steps, best))
        return self._checked(steps, best, _may_not(cut) if cut else _said(steps, best))

    def _fewest_preemptions(self, preemptions: int) -> tuple[tuple[Step, ...], Replay] | None:
        """Stage 1: the failing schedule of the first bounded search, 0
        preemptions up to *preemptions* - 1, that fails the same way, and
        its replay; ``None`` if none does; :class:`_Spent` if one stopped
        short of telling."""
        for bound in range(min(preemptions, MAX_SEARCHES)):
            self._in_time()
            within = f"a search bounded to {bound} preemption(s)"
            try:
                with untried():  # (nor shrunk: this is the shrinking)
                    found = self.explore(self.setup, **{
                        **self.options, "strategy": "dfs", "max_preemptions": bound,
                        "max_seconds": self.deadline.left(), "reach": None, "lines": False,
                        "guided": None})
            except NotDeterministic as error:  # the failure found stands: say why
                raise _Spent(f"at {within}: {error.summary}") from None
            failure = found.failure
            if failure is None and found.stopped.startswith("max_seconds="):
                raise _Spent(f"{self.bound} ({within})")  # (what was left of it)
            if failure is None and found.stopped:
                raise _Spent(f"by {found.stopped} ({within})")
            if failure is None:
                continue  # none fails with so few: one more
            if not self.same((failure.kind, failure.message)):
                said = summary_of(failure.kind, failure.message)
                said = said if said.startswith(f"{failure.kind}: ") else f"{failure.kind}: {said}"
                raise _Spent(f"at {within}, which found another failure first: {said}")
            self.limit = bound
            again = self.replay(failure.schedule)
            if again is None:
                raise _Spent(f"at {within}: its failure's schedule did not replay to it")
            return failure.schedule, again
        if preemptions > MAX_SEARCHES:
            raise _Spent(f"after {MAX_SEARCHES} searches bounded in preemptions")
        return None

    def _fewer_steps(self) -> None:
        """Stage 2: steps dropped from the best schedule while its replay
        fails the same way: trailing ones first, then by delta debugging
        (Zeller's *ddmin*, dropping parts ever smaller) down to 1-minimal."""
        assert self.best is not None
        steps = self.best[0]
        cut = len(steps) // 2
        while cut:  # the rule finishes the threads: drop the tail, halving it
            again = self.replay(steps[:-cut])
            if again is None:
                cut //= 2
            else:
                steps = steps[:-cut]
                self.best = (steps, again)
                cut = min(cut, len(steps))
        parts = 2
        while steps:
            parts = min(parts, len(steps))
            size = -(-len(steps) // parts)  # (rounded up)
            for start in range(0, len(steps), size):
                fewer = steps[:start] + steps[start + size:]
                again = self.replay(fewer)
                if again is not None:
                    steps, parts = fewer, max(parts - 1, 2)
                    self.best = (steps, again)
                    break
            else:
                if parts == len(steps):  # no single step can be dropped
                    return
                parts *= 2

    def _checked(self, steps: tuple[Step, ...], best: Replay, said: str) -> Failure:
        """The failure with the shrunk *steps*, replayed to *best*, once one
        more replay has failed the same way (else the failure as it was)."""
        again = self._replay(steps, places=True)
        if again.diverged is not None or not self.same(again.failure):
            return replace(self.failure, shrunk="the schedule was not shrunk: the shrunk one "
                           f"did not fail so when replayed again ({str(again).splitlines()[0]})")
        assert best.failure is not None  # (it failed the same way)
        kind, message = best.failure
        # As the replay took them, each call with where the code made it.
        shown = again.steps[:len(steps)]
        return Failure(kind, message, shown,
                       reproduce(self.setup, shown, kind, message, self.options["timeout"]),
                       shrunk=said)


def _said(steps: tuple[Step, ...], best: Replay) -> str:
    """What shrinking says of the schedule *steps*, replayed to *best*."""
    return (f"shrunk: {len(steps)} step(s) with {best.preemptions} preemption(s), the "
            "fewest found that fail so")


def _may_not(why: str) -> str:
    """What a failure says when shrinking stopped, *why*."""
    return f"the schedule may not be the smallest: shrinking stopped {why}"
