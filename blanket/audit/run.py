"""Running an audit: :func:`blanket.audit`, every pair of the inferred operations
checked within one budget.

For each pair of methods (a method with itself too), the scenarios are one
call on each of two threads, one of each method, with the arguments that
collide first (the same key), each once from a fresh object and once after
the *fill* (:mod:`blanket.audit.infer`), at most :data:`PAIR_SCENARIOS`.
Each pair is a :func:`~blanket.check_linearizable` of those scenarios: the
specification is the class itself, one call at a time; results are
compared by value, exceptions by type (not their messages); a call left
blocked is pending. The pairs of two methods that change the object's state go first,
then those of one, then the readers'. The budget (``max_seconds``) is
shared fairly: each pair gets what is left divided by the pairs left, and
one that ends early leaves its time to the others; a pair the budget
stopped is *not exhaustive*, one it never reached *not run*.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..errors import LinearizabilityError
from ..exploration.reporting import Progress, check_progress
from ..exploration.tried import untried
from ..interpreters import refuse_untested
from ..linearizability.check import check_linearizable
from ..linearizability.operations import Operation
from ..linearizability.scenarios import Workload
from ..seconds import Deadline, check_seconds
from .infer import SCREEN_SECONDS, Inferred, Method, infer
from .report import Audit, AuditProgress, PairResult, tried, written_test

#: An audit's budget unless given, in seconds: it answers within a minute.
MAX_SECONDS = 45.0
#: The share of the budget the pairs' checks get: the rest is left for
#: trying the failures' tests (together, in one fresh interpreter).
CHECKS_SHARE = 0.8
#: How many times the pairs are checked: the pairs the budget stopped are
#: checked again, from the start, with the time the others left.
ROUNDS = 10
#: The most scenarios a pair is given.
PAIR_SCENARIOS = 6
#: The kinds of failure that are the class's: results no order explains, or
#: threads left blocked where the class run alone would not block.
FAILURES = ("not linearizable", "deadlock")
#: The fewest seconds the written tests may run, together, when tried (more
#: when the budget has more left).
TEST_SECONDS = 10.0


def _collide(first: Operation, second: Operation) -> bool:
    """Whether two calls share their first argument (the same key)."""
    return bool(first.args and second.args and first.args[0] == second.args[0])


def pair_workloads(first: Method, second: Method, fill: Operation | None,
                   seed: int) -> list[Workload]:
    """The scenarios of the pair *first* and *second*: one call of each on
    two threads, colliding ones first, each from a fresh object and after
    *fill*; at most :data:`PAIR_SCENARIOS`."""
    combos = list(itertools.product(first.operations, second.operations))
    if first is second:  # the threads are alike: (a, b) is (b, a)
        combos = [(a, b) for n, a in enumerate(first.operations)
                  for b in first.operations[n:]]
    random.Random(f"audit/{seed}/{first.name}/{second.name}").shuffle(combos)
    combos.sort(key=lambda combo: not _collide(*combo))
    prefixes: list[tuple[Operation, ...]] = [(fill,), ()] if fill is not None else [()]
    workloads = [Workload([[a], [b]], prefix) for a, b in combos for prefix in prefixes]
    return workloads[:PAIR_SCENARIOS]


def _pairs(methods: Sequence[Method]) -> list[tuple[Method, Method]]:
    """Every pair of *methods* (each with itself too), the mutators' first."""
    pairs = list(itertools.combinations_with_replacement(methods, 2))
    return sorted(pairs, key=lambda pair: -(pair[0].mutates + pair[1].mutates))


def _check(options: dict[str, Any]) -> None:
    """Refuse what :func:`audit` cannot run."""
    for name in ("include", "exclude"):
        value = options[name]
        if isinstance(value, str) or not isinstance(value, Sequence) or \
                not all(isinstance(item, str) for item in value):
            raise TypeError(f"audit: {name}={value!r}: expected a sequence of names")
    bind = options["bind"]
    if bind is not None and (not isinstance(bind, Mapping) or not all(
            isinstance(key, str) and isinstance(values, Sequence) and
            not isinstance(values, str) for key, values in bind.items())):
        raise TypeError(f"audit: bind={bind!r}: expected a mapping of parameter names "
                        "(or 'method.name') to sequences of values")
    factory = options["factory"]
    if factory is not None and not callable(factory):
        raise TypeError(f"audit: factory={factory!r}: expected a callable or None")
    seed = options["seed"]
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"audit: seed={seed!r}: expected an int")
    check_seconds(options["max_seconds"], "max_seconds")
    check_seconds(options["timeout"], "timeout")
    check_progress(options["progress"])


def audit(target: Callable[..., Any], *, factory: Callable[[], Any] | None = None,
          include: Sequence[str] = (), exclude: Sequence[str] = (),
          bind: Mapping[str, Sequence[Any]] | None = None,
          max_seconds: float = MAX_SECONDS, seed: int = 0, timeout: float = 5.0,
          progress: Callable[[Progress], object] | None = None) -> Audit:
    """Audit the thread safety of the class *target* (or of the objects the
    factory *target* builds), with no test code: is each pair of its
    operations linearizable?

    The operations are inferred from the class (:mod:`blanket.audit.infer`):
    its public methods, its properties and the protocols it implements,
    their arguments drawn from small domains that collide
    (:mod:`blanket.audit.domains`); *include* names the only ones to check
    (private ones and those set aside by name included), *exclude* ones not
    to; *bind* maps a parameter's name (``"key"``, or ``"get.key"`` for one
    method's, ``"__init__.maxsize"`` for the constructor's) to the values
    it is drawn from. The object is built by the constructor with its
    defaults (its required arguments drawn as a method's are), or by
    *factory*. What cannot be called safely is set aside and named in
    :attr:`Audit.skipped <blanket.audit.report.Audit.skipped>`.

    Every pair is checked by :func:`~blanket.check_linearizable` on
    scenarios of one call of each on two threads (:mod:`blanket.audit.run`),
    *seed* ordering them, *timeout* bounding each run's waits, within
    *max_seconds* for the whole audit (shared fairly among the pairs);
    each failure is minimized, and comes with a test that replays it,
    tried as its user runs it. *progress*, a callable, is told how far the
    audit went (an :class:`~blanket.audit.report.AuditProgress`).

    A *target* or factory that cannot build an object, or names that the
    class does not have, raise ``ValueError``; arguments of the wrong type,
    ``TypeError``.
    """
    refuse_untested("audit")
    if not callable(target):
        raise TypeError(f"audit: {target!r} is not callable: expected a class, or a "
                        "factory of the objects to audit")
    _check({"include": include, "exclude": exclude, "bind": bind, "factory": factory,
            "seed": seed, "max_seconds": max_seconds, "timeout": timeout,
            "progress": progress})
    started = time.monotonic()
    deadline = Deadline(max_seconds * CHECKS_SHARE)
    inferred = infer(target, factory, include, exclude, bind,
                     min(SCREEN_SECONDS, timeout))
    found = Audit(inferred.kind, inferred.built, [m.name for m in inferred.methods],
                  skipped=list(inferred.skipped), max_seconds=max_seconds,
                  fill=repr(inferred.fill) if inferred.fill is not None else "")
    found.unseen += [f"{method.name} is written in C: blanket sees each of its calls as one "
                     "step" for method in inferred.methods if not method.python]
    pairs = _pairs(inferred.methods)
    todo = list(range(len(pairs)))
    found.pairs = [PairResult((first.name, second.name), "not run", 0,
                              error="the budget was spent") for first, second in pairs]
    for _ in range(ROUNDS):  # the pairs the budget stopped, again with what is left
        for done, number in enumerate(todo):
            first, second = pairs[number]
            told = None if progress is None else _Told(
                progress, found, number + 1, len(pairs), found.pairs[number].label)
            if told is not None:
                told(Progress(0, 0, 0.0, 0, 0, 0, None))
            found.pairs[number] = _pair(inferred, first, second, seed, timeout, deadline,
                                        len(todo) - done, told)
        todo = [number for number, pair in enumerate(found.pairs) if pair.result is not None
                and pair.result.stopped and pair.verdict != "not linearizable"]
        if deadline.spent():
            break
    for pair in found.pairs:
        found.unseen += [note for note in (pair.result.unseen if pair.result else [])
                         if note not in found.unseen]
    failures = found.failures
    if failures:  # their tests, tried together in one interpreter
        bound = max(TEST_SECONDS, max_seconds - (time.monotonic() - started))
        said = tried([pair.test for pair in failures], bound)
        for pair, (checked, test) in zip(failures, said, strict=True):
            pair.checked, pair.test = checked, test
    found.elapsed = time.monotonic() - started
    if progress is not None:
        progress(AuditProgress(0, 0, found.elapsed, 0, 0, 0, None, True, pairs=len(pairs),
                               number=len(pairs), failed=len(found.failures)))
    return found


class _Told:
    """Tells the audit's *progress* how far a pair's check went: never
    ``done`` until the audit is."""

    def __init__(self, progress: Callable[[Progress], object], found: Audit, number: int,
                 pairs: int, pair: str) -> None:
        self.progress, self.found = progress, found
        self.number, self.pairs, self.pair = number, pairs, pair

    def __call__(self, said: Progress) -> None:
        values = {f.name: getattr(said, f.name) for f in dataclasses.fields(Progress)}
        self.progress(AuditProgress(**{**values, "done": False}, pair=self.pair,
                                    number=self.number, pairs=self.pairs,
                                    failed=len(self.found.failures)))


def _pair(inferred: Inferred, first: Method, second: Method, seed: int, timeout: float,
          deadline: Deadline, left: int, told: _Told | None) -> PairResult:
    """The pair *first* and *second* checked, with its share of what is left
    of *deadline* (*left* pairs to go, this one included)."""
    names = (first.name, second.name)
    workloads = pair_workloads(first, second, inferred.fill, seed)
    if deadline.spent():
        return PairResult(names, "not run", len(workloads), error="the budget was spent")
    operations: list[Callable[[Any], Any]] = []
    for workload in workloads:
        operations += [op for _, _, op in workload.calls
                       if not any(op is known for known in operations)]
    share = deadline.left() / left
    try:
        with untried():  # the audit writes and tries its own tests
            result = check_linearizable(inferred.make, operations, workloads=workloads,
                                        max_seconds=share, timeout=timeout, seed=seed,
                                        progress=told)
    except LinearizabilityError as error:
        return PairResult(names, "error", len(workloads), error=str(error))
    except Exception as error:  # noqa: BLE001 - the audit goes on with the other pairs
        return PairResult(names, "error", len(workloads),
                          error=f"blanket could not check it: {error!r}")
    pair = PairResult(names, "not exhaustive", len(workloads), result)
    failure = result.failure
    if failure is not None and failure.kind not in FAILURES:
        # (a run that stalled: the object waits for what blanket does not see)
        return PairResult(names, "error", len(workloads), result,
                          error=f"{failure.kind}: {failure.explanation.splitlines()[0]}")
    if failure is None:
        if result.scenarios == len(workloads) and all(result.exhausted) and \
                not result.unseen and not result.stopped:
            pair.verdict = "linearizable"
        return pair
    pair.verdict = "not linearizable"
    results = [f"{name} {outcome or 'pending'}" for name, outcome in
               zip(failure.workload.names, failure.history.outcomes, strict=True)]
    summary = f"{failure.kind}: {', '.join(results)}"
    pair.test = written_test(inferred.make, inferred.kind, names, failure.workload,
                             failure.schedule, summary)
    return pair
