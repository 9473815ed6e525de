"""The ``"dfs"`` strategy: every distinct order, depth first, with dynamic
partial-order reduction (calls on different primitives commute, so one
order of them is run: the reversals of the run's races and sleep sets
decide which), an optional bound on preemptions, and exact shards; a
replayed prefix that meets other calls than before stops it
(:class:`NotDeterministic`, naming the call that differed and where)."""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from .places import parked_at
from .races import MEMORY
from .result import Step
from .run import ACQUIRE, BLOCKED, READ, RELEASE, Option, Run, dependent, make_step, step_kind
from .sections import APART, RACES, Section, Sections, opened

#: What the search says of a setup that is not deterministic, after naming
#: the call that differed: how to make it so.
HOW_TO_BE_DETERMINISTIC = (
    "A setup must build the same scenario in every run: make the objects the threads "
    "share afresh in the setup, not at import time; reset the module-level state the "
    "code keeps (counters, caches, registries); do not let time, randomness, id() or "
    "the hash order of objects (a set of them, a dict keyed by them) choose what the "
    "threads do; and give process-wide registries (other than logging's, which the "
    "search puts back after every run) a fresh state in the setup: they keep what an "
    "earlier run left in them.")


class NotDeterministic(RuntimeError):
    """Replaying a prefix of choices met other calls to choose from than the
    run that first took it: the setup does not build the same scenario in
    every run, so the search cannot go on."""

    def __init__(self, message: str, summary: str) -> None:
        super().__init__(message)
        #: The first line of the message: at which step, which call differed.
        self.summary = summary


#: What orders the calls a node can let go (see :mod:`blanket.exploration.guided`):
#: given the options, the run and the thread that went last, the options'
#: numbers, first the one to try first. It only orders: every option the
#: plain search tries is still tried.
Guide = Callable[[list[Option], Run, "int | None"], list[int]]

#: A parked call as a node keeps it, for :class:`NotDeterministic`'s
#: message: its option's number, what the step letting it go says of it
#: (see ``Run._what``) and how it goes (see :attr:`Option.how`), and where in
#: the code it was made (``""`` when not recorded). (Made into a Step only
#: for the message: a node is made at every new step.)
Call = tuple[int, tuple[str, str, str, str, str], str, str]


def _calls(options: list[Option], places: bool) -> tuple[Call, ...]:
    """*options* as a node keeps them; where each call was made too when
    *places* (that asks for every thread's frame: see :func:`parked_at`)."""
    return tuple((o.choice, Run._what(o.tx), o.how, parked_at(o.tx) if places else "")
                 for o in options)


def _step(call: Call) -> Step:
    """The step letting *call* go."""
    _, what, how, _ = call
    return make_step(what, how == "expire", how == "wait", ())


def _said(call: Call) -> str:
    """A call as the message names it: ``B: Lock 2 Lock.acquire at shop.py:14``."""
    step, place = _step(call), call[3]
    if step.where:  # an access: the step names its place itself
        return str(step)
    return f"{step} at {place}" if place else f"{step} (where in the code: not known)"


def differed(node: Node, depth: int, options: list[Option], number: int) -> NotDeterministic:
    """The error for run *number* of the search meeting *options* at
    *depth*, where *node* (made by an earlier run) had others."""
    met = _calls(options, places=True)
    enabled = [(o.choice, o.key) for o in options]
    threads = sorted({choice // 2 for choice, _ in node.enabled + enabled})
    # The first thread whose calls are not the same (by option and primitive).
    thread = next(t for t in threads if [e for e in node.enabled if e[0] // 2 == t]
                  != [e for e in enabled if e[0] // 2 == t])
    name = next(_step(call).thread for call in node.calls + met if call[0] // 2 == thread)

    def of_thread(calls: tuple[Call, ...]) -> str:
        return " or ".join(_said(c) for c in calls if c[0] // 2 == thread) or \
            f"no call of {name}'s"

    def listed(calls: tuple[Call, ...]) -> str:
        return "; ".join(map(_said, calls))

    summary = (f"the scenario is not deterministic: replaying the same choices met other "
               f"calls to choose from at step {depth + 1}; the first that differed, "
               f"{name}'s: run {node.run} had {of_thread(node.calls)}, "
               f"run {number} met {of_thread(met)}")
    return NotDeterministic(
        f"{summary}\n  the calls run {node.run} had: {listed(node.calls)}"
        f"\n  the calls run {number} met: {listed(met)}\n{HOW_TO_BE_DETERMINISTIC}", summary)


@dataclass
class Node:
    """A state of the depth-first search, where one call was chosen."""

    enabled: list[tuple[int, str]]  # (option number, primitive)
    pending: dict[int, str]  # every parked thread's call, enabled or not
    sleep: dict[int, str]  # option number -> primitive
    previous: int | None  # the thread that went last
    preemptions: int
    #: The search's run that made the node (1 for its first run).
    run: int = 0
    #: The parked calls the node was made with, for :func:`differed`.
    calls: tuple[Call, ...] = ()
    choice: int = -1
    backtrack: list[int] = field(default_factory=list)
    done: list[int] = field(default_factory=list)
    #: The options' numbers in the order a guide prefers them (None: as enabled).
    order: list[int] | None = None
    #: The regular section each option taken here opened (None: it opened none).
    effects: dict[int, Section | None] = field(default_factory=dict)
    #: The sections of the sleeping options that open regular ones.
    sleep_sections: dict[int, Section] = field(default_factory=dict)
    #: What each parked thread's call is (see :func:`_kind`; ``BLOCKED``
    #: when nothing lets it go), when sections are told apart.
    kinds: dict[int, str] = field(default_factory=dict)

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


#: What a node's :attr:`~Node.kinds` call the release of an ``RLock``: only
#: the thread that holds the lock makes it, so, like an acquire that waits,
#: it cannot go where another thread's section holds the lock (a ``Lock``
#: any thread may release).
OWNED = "owned release"


def _kind(option: Option) -> str:
    """What *option*'s call is to the lock-aware reduction (see
    :func:`~blanket.exploration.run.step_kind`, and :data:`OWNED`)."""
    kind = step_kind(option)
    return OWNED if kind == RELEASE and option.tx.spec.kind == "RLock" else kind


def _covers(earlier: str, key: str) -> bool:
    """Whether every step dependent on *key* is dependent on *earlier*, a
    step dependent on it, so that what happens before *earlier* need not be
    looked for further back: not so for a read (two reads are independent),
    nor for an access of other state that overlaps (a whole ``dict`` and one
    of its names: see :func:`~blanket.exploration.races.overlap`)."""
    return earlier == key or (not earlier.startswith(READ) and earlier.startswith(MEMORY)
                              and earlier.split(":", 2)[2] == key.split(":", 2)[2])


def _after(clock: dict[int, int], firsts: dict[int, int]) -> bool:
    """Whether a step with *clock* happens after one of the steps *firsts*
    (each thread's first step of a set, by index: its later ones happen
    after it)."""
    return any(clock.get(thread, -1) >= index for thread, index in firsts.items())


class _Earlier:
    """The steps of a run so far, by what they act on: a step depends only
    on steps on its own primitive, or on accesses (see
    :func:`~blanket.exploration.run.dependent`), so the analysis of a long
    run looks back only through those, not through every step."""

    def __init__(self) -> None:
        self._on: dict[str, list[int]] = {}
        self._accesses: list[int] = []

    def add(self, index: int, key: str) -> None:
        """Step *index* acted on *key*."""
        if key.startswith(MEMORY):
            self._accesses.append(index)
        else:
            self._on.setdefault(key, []).append(index)

    def latest_first(self, key: str) -> Iterator[int]:
        """The steps so far that a step on *key* may depend on, the latest first."""
        return reversed(self._accesses if key.startswith(MEMORY) else self._on.get(key, []))


class _Upcoming:
    """Which step of a run let go the call a thread had pending at a depth."""

    def __init__(self, steps: list[tuple[int, str, tuple[int, ...]]]) -> None:
        self.steps = steps
        self._own: dict[int, list[int]] = {}  # each thread's steps
        self._moved: dict[int, list[int]] = {}  # the steps that moved it
        for index, (thread, _, moved) in enumerate(steps):
            self._own.setdefault(thread, []).append(index)
            for woken in moved:
                self._moved.setdefault(woken, []).append(index)

    def step_of(self, thread: int, key: str, depth: int) -> int | None:
        """The index of *thread*'s next step from *depth* on, if it let go the
        call on *key* pending there: nothing moved the thread in between."""
        own = self._own.get(thread, [])
        at = bisect.bisect_left(own, depth)
        if at == len(own) or self.steps[own[at]][1] != key:
            return None
        index = own[at]
        moved = self._moved.get(thread, [])
        woken = bisect.bisect_left(moved, depth)
        return index if woken == len(moved) or moved[woken] >= index else None


class DepthFirst:
    """Depth-first search with dynamic partial-order reduction (Flanagan and
    Godefroid's, with sleep sets; a race is reversed from a thread that can
    start the reversal, as in Abdulla et al.'s source sets) and an optional
    preemption bound.

    Two steps depend on each other when they act on the same primitive; a
    run explores one order of independent steps, and each pair of dependent
    steps not ordered by the run's happens-before adds the other order to
    the search where the first of them was chosen."""

    def __init__(self, bound: int | None, split_depth: int, guide: Guide | None = None,
                 lazy: bool = False) -> None:
        self.bound = bound
        #: Whether two threads' regular critical sections that do not
        #: conflict are independent (:mod:`blanket.exploration.sections`).
        self.lazy = lazy
        #: What orders each node's options, if anything (see :data:`Guide`).
        self.guide = guide
        self.split_depth = split_depth
        self.stack: list[Node] = []
        #: Whether the search is in its first pass: the first run of each
        #: prefix of *split_depth* choices.
        self.top = True
        #: The second pass: the search's state after the first run of each
        #: prefix this shard owns, the last one first.
        self.subtrees: list[list[Node]] = []
        self.final: dict[int, str] = {}
        #: The runs the search has made (begun) so far.
        self.runs = 0
        #: Whether the bound left out an order the search would have run:
        #: until it does, the search is the unbounded one.
        self.bounded = False

    def _closes(self, thread: int, key: str) -> bool:
        """Whether *thread*'s step on *key* just taken (a release) closes the
        regular section its last step before opened."""
        for node in reversed(self.stack[:-1]):
            if node.choice // 2 == thread:
                return node.choice in node.effects and node.effects[node.choice] is not None \
                    and node.key(node.choice) == key
        return False

    def _allowed(self, node: Node, thread: int) -> bool:
        return self.bound is None or node.preemptions + node.cost(thread) <= self.bound

    def _left_out(self, node: Node, choice: int) -> bool:
        """Whether the bound leaves out *choice* at *node* (noted if so)."""
        if self._allowed(node, choice):
            return False
        self.bounded = True
        return True

    def choose(self, depth: int, options: list[Option], run: Run) -> int | None:
        enabled = [(o.choice, o.key) for o in options]
        stack = self.stack
        if depth == 0:
            self.runs += 1
        if depth < len(stack):
            node = stack[depth]
            if node.enabled != enabled:
                raise differed(node, depth, options, self.runs)
        else:
            sleep: dict[int, str] = {}
            sections: dict[int, Section] = {}
            previous, preemptions = None, 0
            if stack:
                parent = stack[-1]
                went = parent.choice // 2
                chosen = parent.pending[went]
                carried = parent.sleep
                if parent.done:
                    carried = {**carried, **{t: parent.key(t) for t in parent.done}}
                section = opened(run, options) if self.lazy else None
                parent.effects[parent.choice] = section
                closing = self.lazy and run.kinds[-1] == RELEASE and self._closes(went, chosen)
                for c, key in carried.items():
                    if c // 2 == went:
                        continue
                    noted = parent.sleep_sections if c in parent.sleep else parent.effects
                    asleep = noted[c] if c in noted else None
                    if not dependent(key, chosen):
                        sleep[c] = key
                    elif asleep is None or key != chosen:
                        continue
                    elif closing or (section is not None and not section.meets(asleep)):
                        sleep[c] = key
                    else:
                        continue
                    if asleep is not None:
                        sections[c] = asleep
                previous = went
                preemptions = parent.preemptions + parent.cost(parent.choice)
            # Where each call was made only in the first run, whose nodes most
            # replays meet: it stops the world on a free-threaded build. (The
            # containers given, not made by the fields' default factories: a
            # call there, in a dataclass's generated code, is not blanket's,
            # and sys.monitoring's events stay on there, see .monitor.)
            node = Node(enabled, dict(run.pending), sleep, previous, preemptions, self.runs,
                        _calls(options, places=self.runs == 1), backtrack=[], done=[],
                        effects={}, sleep_sections=sections, kinds={})
            if self.lazy:
                node.kinds = {o.thread: _kind(o) for o in options}
                for thread in run.pending:
                    node.kinds.setdefault(thread, BLOCKED)
            choice = None
            if self.guide is not None:  # the guide's first that may go
                node.order = self.guide(options, run, previous)
                choice = next((c for c in node.order
                               if c not in sleep and self._allowed(node, c)), None)
            else:
                for c, _ in enabled:
                    if c not in sleep and self._allowed(node, c):
                        if c // 2 == previous:  # going on: no preemption
                            choice = c
                            break
                        if choice is None:
                            choice = c
            if choice is None:  # every order from here was run already, or is bounded
                self.bounded = self.bounded or any(c not in sleep for c, _ in enabled)
                return None
            node.choice = choice
            # Both ways of a timed call: a run that lets it wait "in time" is
            # cut short when nothing comes, as covered by the expiry (see
            # Run.finish), and one where something came does not make the
            # expiry's outcome; no race reversal need ask for it.
            node.want(choice // 2)
            stack.append(node)
        return [choice for choice, _ in enabled].index(node.choice)

    def analyse(self, steps: list[tuple[int, str, tuple[int, ...]]],
                final: dict[int, str], sections: Sections | None = None) -> None:
        """Add the reversals of the run's races to the backtrack sets: of
        each pending step with every earlier step of another thread it
        depends on and is not ordered after, unless through another such
        step (two reads being independent, a step ordered before it does
        not hide an earlier one that is not, see :func:`_covers`).

        *steps* holds each step's thread, primitive and the threads it moved
        besides its own (a notified waiter depends on its notifier).
        *sections*, the run's regular critical sections, makes the steps of
        two threads' sections under one lock independent when the sections
        do not conflict (:mod:`blanket.exploration.sections`); on such a
        lock no step hides an earlier one, each is looked at."""
        lazy = sections.keys if sections is not None else set()
        upcoming = _Upcoming(steps) if lazy else None
        clocks: dict[int, dict[int, int]] = {}
        step_clocks: list[dict[int, int]] = []
        earlier = _Earlier()
        for k in range(len(steps) + 1):
            pending = self.stack[k].pending if k < len(steps) else final
            kinds = self.stack[k].kinds if k < len(steps) else {}
            for thread, key, own, mine in self._pending(pending, clocks, k, key_in=lazy,
                                                        upcoming=upcoming, sections=sections):
                raced: list[int] = []  # the later steps it races with
                for i in earlier.latest_first(key):
                    other, other_key, _ = steps[i]
                    if not dependent(other_key, key):
                        continue
                    verdict = RACES if sections is None else sections.races(
                        mine, i, thread in kinds and kinds[thread] in (ACQUIRE, BLOCKED, OWNED))
                    if verdict == APART:
                        continue
                    # A race (not ordered), unless through a later one.
                    if other != thread and own.get(other, -1) < i and not any(
                            step_clocks[j].get(other, -1) >= i for j in raced):
                        self._reverse(steps, step_clocks, i, k, thread, key, own)
                        if verdict == RACES:
                            raced.append(i)
                    if _covers(other_key, key) and key not in lazy:
                        # Every earlier dependent step happens before it (its
                        # own thread's too: they happen before the pending step).
                        break
            if k < len(steps):
                thread, key, moved = steps[k]
                clock = dict(clocks.get(thread, {}))
                mine = sections.of[k] if sections is not None and key in lazy \
                    and k in sections.of else None
                for j in earlier.latest_first(key):
                    if dependent(steps[j][1], key) and not (
                            mine is not None and sections is not None
                            and sections.apart(mine, j)):
                        for t, v in step_clocks[j].items():
                            clock[t] = max(clock.get(t, -1), v)
                        if not steps[j][1].startswith(READ) and key not in lazy:
                            break  # every earlier dependent step is in its clock
                clock[thread] = k
                clocks[thread] = clock
                step_clocks.append(clock)
                earlier.add(k, key)
                for woken in moved:
                    merged = dict(clocks.get(woken, {}))
                    for t, v in clock.items():
                        merged[t] = max(merged.get(t, -1), v)
                    clocks[woken] = merged

    @staticmethod
    def _pending(pending: dict[int, str], clocks: dict[int, dict[int, int]], k: int, *,
                 key_in: set[str], upcoming: _Upcoming | None, sections: Sections | None
                 ) -> Iterator[tuple[int, str, dict[int, int], Section | None]]:
        """Each pending call at depth *k*: its thread, key, the thread's clock,
        and the regular section it opens or is part of (on a lock in
        *key_in*, when the run let it go later: the step that did is its)."""
        for thread, key in pending.items():
            mine = None
            if upcoming is not None and sections is not None and key in key_in:
                index = upcoming.step_of(thread, key, k)
                if index is not None:
                    mine = sections.of[index] if index in sections.of else None
            yield thread, key, clocks.get(thread, {}), mine

    def _reverse(self, steps: list[tuple[int, str, tuple[int, ...]]],
                 step_clocks: list[dict[int, int]], i: int, k: int, thread: int,
                 key: str, own: dict[int, int]) -> None:
        """Add to the backtrack set where step *i* was chosen a thread that
        can start the reversal of its race with *thread*'s pending step
        *key* (at *k*, with the clock *own*): an initial of the steps after
        *i* that do not happen after it, followed by the pending step (a
        thread whose first of them nothing among them happens before; the
        pending step's thread only when its step depends on none of them).
        Nothing when one is there already: running it from there covers the
        reversal, and so does one asleep there. (Wanting the pending step's
        thread itself, as Flanagan and Godefroid do, is not enough with
        sleep sets: asleep there, while a step it must follow is not, the
        reversal is lost.)"""
        node = self.stack[i]
        enabled = [c // 2 for c, _ in node.enabled]
        first = steps[i][0]
        lowest: dict[int, int] = {}  # each thread's first step among them
        initials: list[int] = []
        follows = False  # whether the pending step depends on one of them
        for j in range(i + 1, k):
            q = steps[j][0]
            if step_clocks[j].get(first, -1) >= i:
                continue  # it happens after step i
            follows = follows or dependent(steps[j][1], key)
            if q in lowest:
                continue
            if not _after(step_clocks[j], lowest):
                initials.append(q)
            lowest[q] = j
        if thread not in lowest and not follows and not _after(own, lowest):
            initials.append(thread)
        starts = [q for q in initials if q in enabled]
        if any(c // 2 in starts for c in node.backtrack):
            return
        for q in starts[:1] or enabled:
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
                if node.order is not None:
                    tried = sorted(tried, key=node.order.index)
                for choice in tried:
                    if choice not in node.done and choice not in node.sleep \
                            and not self._left_out(node, choice):
                        node.choice = choice
                        return True
            self.stack.pop()
        return False
