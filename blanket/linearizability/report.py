"""The failure of a linearizability check, for people: the scenario as a
table (one column per thread, each call with its result), the schedule,
why no order of the calls explains the results, and the source of a
:class:`~blanket.ScenarioTestCase` that replays it.

The generated test builds the scenario (:class:`~blanket.Workload`) from
the operations by name, and hands its setup and the schedule to
:meth:`ScenarioTestCase.replay <blanket.ScenarioTestCase.replay>`
(:mod:`blanket.exploration.reproduce`): the run fails while the results are
not linearizable (or the threads deadlock), and passes once the code is
fixed. The factory, the model and the operations must be importable: a
module-level name holding each (or the list of operations), or an
:class:`~blanket.Operation` with literal arguments, which is written out as
it is; for anything else the test says in a comment that it must be given
a name.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..exploration.reproduce import class_name, docstring, identifier, import_lines
from ..exploration.result import Failure, Step
from ..exploration.tried import remark
from .history import History
from .operations import Operation, describe
from .scenarios import Workload

#: What a failure's :attr:`~LinearizabilityFailure.kind` is when the results
#: were not linearizable.
NOT_LINEARIZABLE = "not linearizable"


@dataclass
class LinearizabilityFailure:
    """A scenario whose results no sequential order explains (or that
    deadlocked, or raised), with the schedule that made it."""

    #: ``"not linearizable"``, or the exploration's failure kind
    #: (``"deadlock"``, ``"exception"``, ``"stall"``).
    kind: str
    #: The minimized scenario.
    workload: Workload
    #: What each call returned, and the real-time order, in the failing run.
    history: History
    #: Why no order explains the results (or the deadlock, the exception).
    explanation: str
    #: The steps of the failing run.
    schedule: tuple[Step, ...]
    #: Python source of a ScenarioTestCase replaying it.
    source: str = ""
    #: After how many tries the minimization stopped at its bound (see
    #: :data:`blanket.linearizability.check.MINIMIZE_TRIES`), smaller
    #: scenarios left untried; ``None`` when it tried them all.
    stopped: int | None = None
    #: What running :attr:`source` as its user will (``python -m unittest``,
    #: a fresh interpreter) showed, as :attr:`Failure.checked
    #: <blanket.Failure.checked>` says it; a test that passed so is not
    #: handed over: :attr:`source` is then a comment saying so.
    checked: str = ""

    @property
    def table(self) -> str:
        """The scenario: one column per thread, each call with its result."""
        return table(self.workload, self.history)

    def __str__(self) -> str:
        steps = "\n".join(f"  {n}. {step}" for n, step in enumerate(self.schedule, 1))
        return (f"{self.kind}:\n{self.table}\nschedule:\n{steps}\n{self.explanation}"
                f"{remark(self.checked)}")


def table(workload: Workload, history: History) -> str:
    """*workload*'s calls with their results in *history*: the prefix's and
    suffix's on lines of their own, the threads' in columns."""
    cells: dict[str, list[str]] = {}
    for number, (part, _, op) in enumerate(workload.calls):
        outcome = history.outcomes[number]
        began = number in history.started()
        result = str(outcome) if outcome is not None else ("pending" if began else "not run")
        cells.setdefault(part, []).append(f"{describe(op)} {result}")
    threads = [part for part in cells if part not in ("before", "after")]
    widths = [max(len(part), *map(len, cells[part])) for part in threads]
    lines = [f"  before: {cell}" for cell in cells.get("before", [])]
    lines.append("  " + " | ".join(f"{part:<{w}}" for part, w in zip(threads, widths,
                                                                      strict=True)).rstrip())
    lines.append("  " + "-+-".join("-" * w for w in widths))
    for row in range(max(len(cells[part]) for part in threads)):
        lines.append("  " + " | ".join(
            f"{(cells[part][row] if row < len(cells[part]) else ''):<{w}}"
            for part, w in zip(threads, widths, strict=True)).rstrip())
    lines += [f"  after: {cell}" for cell in cells.get("after", [])]
    return "\n".join(lines)


def explained(failure: Failure) -> str:
    """What an exploration's failure says, its kind's name at the front once."""
    message = failure.message
    if failure.kind in ("invariant", "deadlock") and "AssertionError: " in message:
        # The check's AssertionError: its message only (after the threads
        # left blocked, for a deadlock).
        stuck = message.split("\nthe invariant failed:", 1)[0]
        verdict = message.rsplit("AssertionError: ", 1)[-1]
        return verdict if failure.kind == "invariant" else f"{stuck}\n{verdict}"
    return message


# -- the test's source ----------------------------------------------------------------

def _holder(value: object, modules: Sequence[str]) -> tuple[str, str] | None:
    """The module among *modules* and the global name there that hold *value*."""
    for module_name in modules:
        module = sys.modules.get(module_name)
        for name, held in vars(module or types.SimpleNamespace()).items():
            if held is value and not name.startswith("__"):
                return module_name, name
    return None


def _named(value: Any, fallback: str, taken: dict[str, object]) -> tuple[str, list[str]]:
    """The name a generated test calls *value* by, and its import lines:
    one no other value has in *taken* (names given so far, each to its
    value), where the name it has is not (two lambdas: ``operation`` and
    ``operation_2``). *taken* is given the name."""
    qualname = getattr(value, "__qualname__", None)
    if not isinstance(qualname, str):
        qualname = None
    name = given = identifier(qualname, fallback)
    number = 1
    while taken.setdefault(name, value) is not value:
        number += 1
        name = f"{given}_{number}"
    return name, import_lines(value, name, qualname)


def source(workload: Workload, schedule: Sequence[Step], kind: str, summary: str,
           make: Callable[[], Any], operations: Sequence[Callable[[Any], Any]],
           model: Callable[[], Any] | None, partition: Callable[..., Any] | None) -> str:
    """The test source replaying *schedule* of *workload*, which failed with *kind*."""
    imports: list[str] = []
    taken: dict[str, object] = {}

    def named(value: Any, fallback: str) -> str:
        name, lines = _named(value, fallback, taken)
        imports.extend(line for line in lines if line not in imports)
        return name

    factory = named(make, "make")
    modules = [getattr(x, "__module__", "") for x in (make, *operations)] + ["__main__"]
    holder = _holder(operations, list(dict.fromkeys(m for m in modules if m)))
    listed = None
    if holder is not None:
        module, listed = holder
        imports.extend(line for line in import_lines(operations, listed, listed, module)
                       if line not in imports)

    def spelled(op: Callable[[Any], Any]) -> str:
        if listed is not None:
            return f"{listed}[{next(n for n, o in enumerate(operations) if o is op)}]"
        if isinstance(op, Operation) and op.source is not None:
            return op.source
        return named(op, "operation")

    def ops(calls: Sequence[Callable[[Any], Any]]) -> str:
        return "[" + ", ".join(map(spelled, calls)) + "]"

    threads = ", ".join(ops(calls) for calls in workload.threads)
    arguments = [f"[{threads}]"]
    arguments += [f"prefix={ops(workload.prefix)}"] if workload.prefix else []
    arguments += [f"suffix={ops(workload.suffix)}"] if workload.suffix else []
    options = [factory]
    options += [f"model={named(model, 'model')}"] if model is not None else []
    options += [f"partition={named(partition, 'partition')}"] if partition is not None else []
    steps = "".join(f"\n            {str(step)!r}," for step in schedule)
    steps += "\n        " if steps else ""
    lines = [f'"""Replays a schedule blanket.check_linearizable found: {kind}.', "",
             "It fails while the bug is there, and passes once the code is fixed: the",
             "scenario's operations run on a fresh object, the steps are let go while the",
             "calls match them, then the threads finish, and the results are checked",
             "against the sequential specification.", '"""', "", "import blanket",
             *imports, "", "",
             f"class {class_name(factory)}(blanket.ScenarioTestCase):",
             f"    \"\"\"{docstring(summary)}\"\"\"", "",
             "    def test_schedule(self) -> None:",
             f"        workload = blanket.Workload({', '.join(arguments)})",
             f"        self.replay(workload.setup({', '.join(options)}), [{steps}])"]
    return "\n".join(lines) + "\n"
