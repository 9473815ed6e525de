"""An audit's result, for people and machines: the verdict, per pair of
operations whether it is linearizable (each failure with its table, its
schedule and a written regression test), what was not checked and why, the
time and the budget; and the progress said while it runs.

The verdict never says more than was seen: a class is *linearizable* only
when every pair of its operations was checked, each scenario's whole space
run, with nothing met that blanket does not see; a pair the budget stopped
says so, as does an operation written in C (blanket sees each of its calls
as one step).

Each failure's test replays its schedule
(:meth:`ScenarioTestCase.replay <blanket.ScenarioTestCase.replay>`); it is
run the way its user will run it (``python -m unittest``, in a fresh
interpreter) before it is handed over, and one that passes is not: its
source becomes a comment saying so.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..exploration.reporting import Progress
from ..exploration.reproduce import class_name, docstring, identifier, import_lines
from ..exploration.result import Step
from ..exploration.tried import HOW, importable, run_test
from ..linearizability.check import Linearizability
from ..linearizability.scenarios import Workload

#: What a pair's :attr:`PairResult.verdict` can be.
VERDICTS = ("linearizable", "not linearizable", "not exhaustive", "not run", "error")


@dataclass
class PairResult:
    """One pair of operations checked (or not) by an audit."""

    #: The two methods' names (the same twice for a method against itself).
    names: tuple[str, str]
    #: ``"linearizable"`` (every scenario's whole space run, nothing unseen),
    #: ``"not linearizable"`` (a failure: see :attr:`result`),
    #: ``"not exhaustive"`` (no failure in what was run: the budget stopped
    #: it, or blanket did not see everything), ``"not run"`` (no budget was
    #: left) or ``"error"`` (what it was given failed: :attr:`error`).
    verdict: str
    #: How many scenarios the pair was given.
    scenarios: int = 0
    #: What :func:`~blanket.check_linearizable` said, when it ran.
    result: Linearizability | None = None
    #: Why the check could not judge (``verdict == "error"``).
    error: str = ""
    #: The failure's regression test (see :attr:`checked`).
    test: str = ""
    #: What running :attr:`test` as its user will showed.
    checked: str = ""

    @property
    def label(self) -> str:
        """``get × put``."""
        return " × ".join(self.names)

    def __str__(self) -> str:
        if self.result is None:
            return f"{self.label}: {self.verdict}{f': {self.error}' if self.error else ''}"
        result = self.result
        said = (f"{self.label}: {self.verdict} ({result.scenarios} of {self.scenarios} "
                f"scenario(s), {sum(result.exhausted)} exhausted, {result.schedules} "
                f"schedule(s), {result.elapsed:.2f} s")
        stopped = f"; stopped by {result.stopped}" if result.stopped else ""
        return f"{said}{stopped})"


@dataclass
class Audit:
    """The result of :func:`blanket.audit`."""

    #: The class audited.
    kind: type
    #: How its objects were built: ``LRUCache(maxsize=1)``.
    built: str
    #: The methods checked, by name (``with`` for a context manager).
    methods: list[str] = field(default_factory=list)
    #: Every pair, in the order checked.
    pairs: list[PairResult] = field(default_factory=list)
    #: The methods set aside: name and why.
    skipped: list[tuple[str, str]] = field(default_factory=list)
    #: What blanket did not see: methods written in C, the explorations' gaps.
    unseen: list[str] = field(default_factory=list)
    #: The operation run before the threads in half the scenarios, as it reads.
    fill: str = ""
    #: The budget, in seconds.
    max_seconds: float = 0.0
    #: Seconds the audit took.
    elapsed: float = 0.0

    @property
    def ok(self) -> bool:
        """Whether no pair failed."""
        return not self.failures

    @property
    def failures(self) -> list[PairResult]:
        """The pairs found not linearizable."""
        return [pair for pair in self.pairs if pair.verdict == "not linearizable"]

    @property
    def verdict(self) -> str:
        """``"not linearizable"``, ``"linearizable"`` (every pair's every
        scenario run whole, nothing unseen), or ``"no failure found"`` with
        what the check did not cover."""
        if self.failures:
            return "not linearizable"
        open_pairs = [pair for pair in self.pairs if pair.verdict != "linearizable"]
        if self.pairs and not open_pairs and not self.unseen:
            return "linearizable"
        left = [f"{len(open_pairs)} of {len(self.pairs)} pair(s) not exhausted"] \
            if open_pairs or not self.pairs else []
        left += ["some of it unseen"] if self.unseen else []
        return f"no failure found (not exhaustive: {', '.join(left)})"

    def summary(self) -> str:
        """One line: the class, the verdict, the pairs and the time."""
        counts = {verdict: sum(pair.verdict == verdict for pair in self.pairs)
                  for verdict in VERDICTS}
        listed = ", ".join(f"{n} {verdict}" for verdict, n in counts.items() if n)
        return (f"{self.kind.__module__}.{self.kind.__qualname__}: {self.verdict}; "
                f"{len(self.pairs)} pair(s) of {len(self.methods)} operation(s)"
                f"{f' ({listed})' if listed else ''}, {len(self.skipped)} set aside, in "
                f"{self.elapsed:.1f} s of max_seconds={self.max_seconds:g}")

    def __str__(self) -> str:
        lines = [self.summary(), f"built as {self.built}" +
                 (f"; half the scenarios start after {self.fill}" if self.fill else "")]
        lines += ["pairs:", *(f"  {pair}" for pair in self.pairs)]
        if self.skipped:
            lines += ["not checked:", *(f"  {name}: {why}" for name, why in self.skipped)]
        if self.unseen:
            lines += ["not seen by blanket:", *(f"  {note}" for note in self.unseen)]
        for pair in self.failures:
            assert pair.result is not None and pair.result.failure is not None
            lines += ["", f"{pair.label}: {pair.result.failure}", f"the test: {pair.checked}"]
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        """The audit as JSON-ready data."""
        def pair_data(pair: PairResult) -> dict[str, Any]:
            result, failure = pair.result, pair.result and pair.result.failure
            return {
                "pair": list(pair.names), "verdict": pair.verdict, "scenarios": pair.scenarios,
                "explored": result.scenarios if result else 0,
                "exhausted": sum(result.exhausted) if result else 0,
                "schedules": result.schedules if result else 0,
                "elapsed": result.elapsed if result else 0.0,
                "stopped": result.stopped if result else "", "error": pair.error,
                "table": failure.table if failure else None,
                "schedule": [str(step) for step in failure.schedule] if failure else [],
                "explanation": failure.explanation if failure else None,
                "checked": pair.checked or None}
        return {"class": f"{self.kind.__module__}.{self.kind.__qualname__}",
                "built": self.built, "verdict": self.verdict, "ok": self.ok,
                "methods": self.methods, "fill": self.fill,
                "pairs": [pair_data(pair) for pair in self.pairs],
                "skipped": [{"name": n, "why": w} for n, w in self.skipped],
                "unseen": self.unseen, "max_seconds": self.max_seconds,
                "elapsed": self.elapsed}


@dataclass(frozen=True)
class AuditProgress(Progress):
    """How far an audit went: the pair being checked, with its check's
    :class:`~blanket.Progress`. ``str()`` reads ``"pair 3 of 21 (get ×
    put), 1 not linearizable: 120 schedules, 210 runs/s, ..."``."""

    #: The pair being checked, as it reads.
    pair: str = ""
    #: Its number, from 1, and how many pairs there are.
    number: int = 0
    pairs: int = 0
    #: How many pairs failed so far.
    failed: int = 0

    def __str__(self) -> str:
        failed = f", {self.failed} not linearizable" if self.failed else ""
        return f"pair {self.number} of {self.pairs} ({self.pair}){failed}: " + \
            super().__str__()


# -- the regression test ----------------------------------------------------------------

def _factory(make: Callable[[], Any], kind: type) -> tuple[str, list[str]]:
    """How a written test builds the object, and its import lines."""
    function = make.func if isinstance(make, functools.partial) else make
    qualname = getattr(function, "__qualname__", None)
    name = identifier(qualname if isinstance(qualname, str) else None, "make")
    lines = import_lines(function, name, qualname if isinstance(qualname, str) else None)
    if not isinstance(make, functools.partial):
        return name, lines
    listed = [*map(repr, make.args), *(f"{k}={v!r}" for k, v in make.keywords.items())]
    return f"functools.partial({name}, {', '.join(listed)})", ["import functools", *lines]


def written_test(make: Callable[[], Any], kind: type, names: tuple[str, str],
                 workload: Workload, schedule: Sequence[Step], summary: str) -> str:
    """The source of a test replaying *schedule* of *workload* (the pair
    *names* of the audit of *kind*, built by *make*), which failed as
    *summary* says."""
    factory, imports = _factory(make, kind)
    calls = [op for _, _, op in workload.calls]
    used = sorted({type(op).__name__ for op in calls})
    spelled = {id(op): getattr(op, "source", None) or repr(op) for op in calls}

    def ops(part: Sequence[Any]) -> str:
        return "[" + ", ".join(spelled[id(op)] for op in part) + "]"

    arguments = ["[" + ", ".join(map(ops, workload.threads)) + "]"]
    arguments += [f"prefix={ops(workload.prefix)}"] if workload.prefix else []
    arguments += [f"suffix={ops(workload.suffix)}"] if workload.suffix else []
    steps = "".join(f"\n            {str(step)!r}," for step in schedule)
    lines = [f'"""Replays a schedule blanket.audit found: {docstring(names[0])} and '
             f'{docstring(names[1])} of {kind.__qualname__} together.', "",
             "It fails while the bug is there, and passes once the class is fixed: the",
             "calls run on a fresh object, the steps are let go while the calls match",
             "them, then the threads finish, and the results are checked against the",
             "class run one call at a time.", '"""', "", "import blanket",
             f"from blanket.audit.operations import {', '.join(used)}", *imports, "", "",
             f"class {class_name(' '.join((kind.__name__, *names)))}(blanket.ScenarioTestCase):",
             f'    """{docstring(summary)}"""', "",
             "    def test_schedule(self) -> None:",
             f"        workload = blanket.Workload({', '.join(arguments)})",
             f"        self.replay(workload.setup({factory}), [{steps}\n        ])"]
    return "\n".join(lines) + "\n"


#: What separates the failures unittest reports.
_SEPARATOR = "=" * 70


def _combined(sources: Sequence[str]) -> str:
    """One test module with the test cases of every source in *sources*."""
    imports: list[str] = []
    cases: list[str] = []
    for source in sources:
        header, case = source.split("\n\n\nclass ", 1)
        lines = header.split('"""\n', 2)[-1].splitlines()
        imports += [line for line in lines if line and line not in imports]
        cases.append("class " + case)
    return "\n".join(['"""The tests an audit wrote, tried together."""', "", *imports, "", "",
                      "\n\n".join(cases)])


def _verdict(source: str, output: str) -> tuple[str, str]:
    """What the run of the test module whose *output* is given says of the
    test *source* (one of its cases), and the source to hand over."""
    name = source.split("\n\n\nclass ", 1)[1].split("(", 1)[0]
    blocks = [block.strip() for block in output.split(_SEPARATOR)]
    block = next((b for b in blocks if re.match(rf"(FAIL|ERROR): \S+ \(\S*\b{name}\b", b)),
                 None)
    if block is not None and block.startswith("FAIL") and "the replay failed:" in block:
        return f"tried: the test fails as the audit's run did ({HOW})", source
    if block is not None:
        tail = "\n".join(f"#   {line}" for line in block.splitlines()[-12:])
        return (f"the test fails when run as a user runs it ({HOW}), but not as the "
                f"audit's run did:\n{tail}"), source
    commented = "\n".join(f"# {line}" if line else "#" for line in source.splitlines())
    said = (f"the test written for it passed when run as a user runs it ({HOW}): it "
            "does not make the failure happen again")
    return said, (f"# blanket could not write a test that fails for this failure:\n"
                  f"# {said}.\n# The test it wrote, which passes:\n#\n{commented}\n")


def tried(sources: Sequence[str], bound: float) -> list[tuple[str, str]]:
    """Run the tests *sources* as their user will (together, in one fresh
    interpreter, within *bound* seconds): what that showed of each, and the
    source to hand over (a comment for one that passed)."""
    said: dict[int, tuple[str, str]] = {}
    runnable = []
    for number, source in enumerate(sources):
        try:
            compile(source, "<written test>", "exec")
        except SyntaxError:
            said[number] = ("not tried: an argument has no literal form a test can spell "
                            "(see the test)"), source
            continue
        if importable(source.replace("from blanket.audit.operations import", "#")):
            runnable.append(number)
        else:
            said[number] = ("not tried: the factory has no name a test can import it by "
                            "(see the test's comments)"), source
    if runnable:
        status, output = run_test(_combined([sources[n] for n in runnable]), bound)
        for number in runnable:
            source = sources[number]
            if status is None or not re.search(r"^Ran \d+ tests? in", output, re.M):
                said[number] = (f"not tried to its end: the tests ran past {bound:.0f} s or "
                                f"did not import ({HOW})"), source
            else:
                said[number] = _verdict(source, output)
    return [said[number] for number in range(len(sources))]
