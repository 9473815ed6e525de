"""Scenarios of operations on one object: drawing them, running one under
:func:`blanket.explore`, and making a failing one smaller.

A :class:`Workload` is the operations of each thread, with an optional
sequential prefix (run before the threads start) and suffix (run after
they all end). :meth:`Workload.setup <blanket.Workload.setup>` makes it a setup for
:func:`blanket.explore` and :func:`blanket.exploration.reproduce.replay`:
the first thread builds the object (``make()``), runs the prefix and lets
the other threads go (an event named ``ready``), each thread runs its
operations, recording their begins, ends and results in a
:class:`~blanket.linearizability.history.History`, and the invariant runs
the suffix and checks that the history is linearizable.

The object is built inside the scenario, by a thread of it, with its class
and module watched (``scenario.instrument``) as a thread's target is, so
that the locks and conditions its ``__init__`` makes with ``threading``
are the scenario's (:mod:`blanket.exploration.adopt`) and the accesses its
methods make to its state are watched for data races. Which class that is
is learnt once, from an object ``make()`` builds outside any scenario.
"""

from __future__ import annotations

import functools
import random
import sys
import types
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import Abandoned, LinearizabilityError
from .history import History, Model, Outcome, Specification, explain
from .model import Factory
from .operations import describe

if TYPE_CHECKING:  # pragma: no cover
    from ..scenario import Scenario

Op = Callable[[Any], Any]


class Workload:
    """The operations each thread runs on one object, with a sequential
    prefix and suffix: one scenario of a linearizability check."""

    def __init__(self, threads: Sequence[Sequence[Op]], prefix: Sequence[Op] = (),
                 suffix: Sequence[Op] = ()) -> None:
        #: Each thread's operations, in order ("A", "B", ...).
        self.threads = tuple(tuple(ops) for ops in threads if len(ops))
        #: Run before the threads start, by the first.
        self.prefix = tuple(prefix)
        #: Run after every thread ended.
        self.suffix = tuple(suffix)
        if not self.threads:
            raise ValueError("Workload: no thread has an operation")
        #: Every call: its part ("before", "A", "B", ..., "after"), its place
        #: there (from 1), and its operation; numbered in this order.
        self.calls: list[tuple[str, int, Op]] = []
        parts = [("before", self.prefix), *zip(_names(), self.threads, strict=False),
                 ("after", self.suffix)]
        for part, ops in parts:
            self.calls += [(part, place, op) for place, op in enumerate(ops, 1)]

    @property
    def names(self) -> list[str]:
        """Each call as a report names it: ``"A1 increment()"``."""
        return [f"{part}{place} {describe(op)}" for part, place, op in self.calls]

    def key(self, operations: Sequence[Op]) -> Hashable:
        """What tells this workload from another drawn from *operations*
        (threads being alike, their order does not count)."""
        def places(ops: tuple[Op, ...]) -> tuple[int, ...]:
            return tuple(_index(operations, op) for op in ops)
        return (places(self.prefix), tuple(sorted(map(places, self.threads))),
                places(self.suffix))

    def smaller(self) -> Iterator[Workload]:
        """The workloads with fewer calls: a thread fewer first, then a run
        of a thread's operations fewer, the longest runs first (half a
        thread's, then a quarter, ..., then one: as delta debugging, a large
        scenario shrinks in a few steps), the latest first; then runs of the
        prefix's and the suffix's operations."""
        threads = self.threads
        if len(threads) > 1:
            for gone in range(len(threads)):
                yield Workload(threads[:gone] + threads[gone + 1:], self.prefix, self.suffix)
        for length in _halves(max(map(len, threads))):
            for number in reversed(range(len(threads))):
                ops = threads[number]
                if length > max(1, len(ops) // 2):
                    continue
                for start in reversed(range(0, len(ops), length)):
                    fewer = ops[:start] + ops[start + length:]
                    if fewer or len(threads) > 1:
                        yield Workload(threads[:number] + (fewer,) + threads[number + 1:],
                                       self.prefix, self.suffix)
        for length in _halves(len(self.prefix)):
            for start in reversed(range(0, len(self.prefix), length)):
                yield Workload(threads, self.prefix[:start] + self.prefix[start + length:],
                               self.suffix)
        for length in _halves(len(self.suffix)):
            for start in reversed(range(0, len(self.suffix), length)):
                yield Workload(threads, self.prefix,
                               self.suffix[:start] + self.suffix[start + length:])

    @property
    def size(self) -> int:
        """How many calls it makes."""
        return len(self.calls)

    def setup(self, make: Callable[[], Any], model: Callable[[], Any] | Model | None = None,
              *, partition: Callable[[Op], Hashable] | None = None,
              targets: list[object] | None = None) -> WorkloadSetup:
        """The setup that runs this workload on objects *make* builds, and
        checks each history against *model* (by default *make*, one
        operation at a time; a :class:`~blanket.linearizability.model.Model`
        to share its answers with other workloads); *partition*, when given,
        names the part each operation belongs to, parts checked alone
        (P-compositionality). *targets* is what the runs watch, by default
        what :func:`.watched` finds (it makes an object to learn its class)."""
        if targets is None:
            targets = watched(make, [op for _, _, op in self.calls])
        return WorkloadSetup(self, make, model or make, partition, targets)

    def __repr__(self) -> str:
        threads = "; ".join(f"{name}: {', '.join(map(describe, ops))}"
                            for name, ops in zip(_names(), self.threads, strict=False))
        before = [f"before: {', '.join(map(describe, self.prefix))}"] if self.prefix else []
        after = [f"after: {', '.join(map(describe, self.suffix))}"] if self.suffix else []
        return f"<Workload {'; '.join([*before, threads, *after])}>"


def _names() -> Iterator[str]:
    return (chr(ord("A") + n) for n in range(26))


def _halves(count: int) -> Iterator[int]:
    """Half *count*, a quarter, ..., down to 1 (nothing for 0)."""
    length = max(1, count // 2) if count else 0
    while length:
        yield length
        length //= 2


def _index(operations: Sequence[Op], op: Op) -> int:
    return next(n for n, known in enumerate(operations) if known is op)


class WorkloadSetup:
    """A :class:`Workload` run on a fresh object, as a setup for
    :func:`blanket.explore`: its invariant fails when the history of the
    run is not linearizable."""

    def __init__(self, workload: Workload, make: Callable[[], Any],
                 model: Callable[[], Any] | Model,
                 partition: Callable[[Op], Hashable] | None, targets: list[object]) -> None:
        self.workload = workload
        self.make = make
        #: The specification, memoized across the runs of this workload.
        self.specification = Specification(model, [op for _, _, op in workload.calls],
                                           partition, workload.names)
        #: The code watched in each run: see :func:`watched`.
        self.targets = targets
        #: The history of the last run.
        self.history = History(workload.size)
        self.__qualname__ = f"linearizability of {describe(make)}"

    def __call__(self, scenario: Scenario) -> Callable[[], None]:
        for target in self.targets:
            scenario.instrument(target)
        workload = self.workload
        history = self.history = History(workload.size)
        ready = scenario.Event()
        scenario.api(ready).name = "ready"
        built: list[Any] = []
        first = len(workload.prefix)
        counts = [len(ops) for ops in workload.threads]
        starts = [first + sum(counts[:n]) for n in range(len(counts))]

        def leader() -> None:
            try:
                obj = self.make()
            except LinearizabilityError as error:  # a Factory's: the check raises it
                self.specification.model.fail(error)
                raise
            built.append(obj)
            _run(obj, history, workload, 0, first)
            ready.set()
            _run(obj, history, workload, starts[0], starts[0] + counts[0])

        def follower(number: int) -> None:
            ready.wait()
            _run(built[0], history, workload, starts[number], starts[number] + counts[number])

        scenario.thread(leader)
        for number in range(1, len(counts)):
            scenario.thread(follower, number)

        def linearizable() -> None:
            if None not in history.outcomes[:starts[-1] + counts[-1]]:
                # The suffix, unless a call was left blocked: it would not run then.
                _run(built[0], history, workload, starts[-1] + counts[-1], workload.size)
            verdict = self.specification.check(history)
            if not verdict.ok:
                raise AssertionError(explain(verdict, workload.names, history))
        return _Invariant(linearizable)


class _Invariant:
    """A run's check that judges a deadlock too: calls left blocked when
    the run ends are pending, which the specification must explain."""

    #: Read by the run (:mod:`blanket.exploration.run`): a run whose threads
    #: are left blocked is not a failure by itself; this check says.
    judges_deadlocks = True

    def __init__(self, check: Callable[[], None]) -> None:
        self.check = check

    def __call__(self) -> None:
        self.check()


def _run(obj: Any, history: History, workload: Workload, start: int, stop: int) -> None:
    """Make calls *start* to *stop* of *workload* on *obj*, recorded in
    *history*; a call that never returns (the run abandoned its thread)
    stays pending."""
    for number in range(start, stop):
        operation = workload.calls[number][2]
        history.begin(number)
        try:
            outcome = Outcome(False, operation(obj))
        except Exception as error:  # noqa: BLE001 - an exception is a result
            if _abandoned(error):
                raise  # the call's own clean-up failed as the thread unwound
            outcome = Outcome(True, error)
        history.end(number, outcome)


def _abandoned(error: BaseException | None) -> bool:
    """Whether *error* was raised while :class:`~blanket.errors.Abandoned`
    unwound the thread (a ``with lock:`` releasing a lock its abandoned wait
    did not take back)."""
    while error is not None:
        if isinstance(error, Abandoned):
            return True
        error = error.__context__
    return False


def watched(make: Callable[[], Any], operations: Sequence[Op]) -> list[object]:
    """What a run of a workload watches: *make* and the operations when they
    are Python functions, the class of the object *make* builds (every class
    of its MRO written in Python) and the module that defines it."""
    targets: list[object] = []
    for candidate in (make, *operations):
        function = candidate
        while isinstance(function, (functools.partial, Factory)):
            function = function.func if isinstance(function, functools.partial) \
                else function.make
        if isinstance(function, types.FunctionType) and function not in targets:
            targets.append(function)
    kind = type(make())
    classes = [klass for klass in kind.__mro__
               if any(isinstance(value, (types.FunctionType, property, classmethod,
                                         staticmethod)) for value in vars(klass).values())]
    targets += classes
    module = sys.modules.get(kind.__module__)
    if classes and module is not None and vars(module).get(kind.__name__) is kind:
        targets.append(module)
    return targets


def draw(operations: Sequence[Op], threads: int, per_thread: int, count: int, seed: int,
         prefix: int = 0, suffix: int = 0) -> Iterator[Workload]:
    """Up to *count* distinct workloads of *threads* x *per_thread*
    operations drawn from *operations* (seeded by *seed*), with *prefix* and
    *suffix* operations before and after; fewer when there are not as many."""
    rng = random.Random(f"linearizability/{seed}")
    seen: set[Hashable] = set()
    misses = 0
    while len(seen) < count and misses < 20 * min(count, 1000):
        def pick(length: int) -> list[Op]:
            return [rng.choice(operations) for _ in range(length)]
        workload = Workload([pick(per_thread) for _ in range(threads)], pick(prefix),
                            pick(suffix))
        key = workload.key(operations)
        if key in seen:
            misses += 1
            continue
        seen.add(key)
        yield workload
