"""The source of a :class:`~blanket.ScenarioTestCase` that replays a schedule
found by :func:`blanket.explore`, written with the public API: each step
lets one parked call go (``scenario.skip``, or the primitive's API object to
expire or resume a call), then waits for every thread that moves because of
it, so the next step starts from the same state the exploration saw.
"""

from __future__ import annotations

import keyword
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .explore import Setup, Step, _Run


def _identifier(text: str, taken: set[str]) -> str:
    """A Python name for a primitive's label ("Lock 2" -> ``lock_2``)."""
    name = re.sub(r"\W+", "_", text).strip("_").lower() or "primitive"
    if name[0].isdigit() or keyword.iskeyword(name):
        name = f"p_{name}"
    candidate, n = name, 2
    while candidate in taken:
        candidate, n = f"{name}_{n}", n + 1
    taken.add(candidate)
    return candidate


def _natural(label: str) -> tuple[object, ...]:
    """Sort key putting "Lock 2" before "Lock 10"."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", label))


def _class_name(name: str) -> str:
    words = re.findall(r"[A-Za-z0-9]+", name)
    return "Test" + "".join(w[:1].upper() + w[1:] for w in words) + "Schedule"


def _step_lines(step: Step, names: dict[str, str]) -> list[str]:
    thread, primitive = step.thread, names[step.primitive]
    method = f"{primitive}.{step.call.split('.')[1]}"
    lines = []
    if step.expired:
        lines.append(f"scenario.api({primitive}).expire({method}, {thread})")
    elif step.disregarded:
        lines.append(f"scenario.api({primitive}).disregard({method}, {thread})")
    waits_here = any(who == thread and where == "waiting" for who, where in step.settled)
    if step.state == "STALLED":
        lines.append(f"scenario.api({primitive}).unstall({method}, {thread})")
    elif waits_here:
        lines.append(f"tx = scenario.skip({thread}, {method})[{thread}]")
    else:
        lines.append(f"scenario.skip({thread}, {method})")
    for who, where in step.settled:
        if where == "parked":
            lines.append(f"scenario.wait(Parked({who}))")
        elif who == thread and step.state != "STALLED":
            lines.append("scenario.wait(Waiting(tx))")
        else:
            lines.append(f"scenario.wait(Waiting(scenario.transaction({who})))")
    return lines


def reproduce(setup: Setup, steps: tuple[Step, ...], kind: str, message: str,
              run: _Run) -> str:
    """The test source replaying *steps* of *run*, which failed with *kind*."""
    module = getattr(setup, "__module__", None) or "__main__"
    qualname = getattr(setup, "__qualname__", getattr(setup, "__name__", "setup"))
    if "<" in qualname or "." in qualname:
        function = re.sub(r"\W+", "_", qualname.split(".")[-1]).strip("_") or "setup"
        importing = (f"# {qualname} is not importable: define it at module level, then\n"
                     f"# from {module} import {function}")
    else:
        function = qualname
        importing = f"from {module} import {function}"
    managed = [t.name for t in run.scenario.managed]
    labels: dict[str, str] = {}
    taken = set(managed) | {"scenario", "invariant", "tx", "self", function}
    for label in sorted({step.primitive for step in steps}, key=_natural):
        labels[label] = _identifier(label, taken)
    body = ["scenario = self.scenario",
            f"invariant = {function}(scenario)"]
    if managed:
        trailing = "," if len(managed) == 1 else ""
        body.append(f"{', '.join(managed)}{trailing} = scenario.managed")
        body.append(f"{', '.join(f'{n}.name' for n in managed)} = "
                    f"{', '.join(repr(n) for n in managed)}")
    body += [f"{name} = scenario.primitive({label!r})" for label, name in labels.items()]
    body.append("with scenario:")
    inside = [line for step in steps for line in _step_lines(step, labels)]
    if kind == "deadlock":
        inside.append("self.assertNoDeadlock()")
    body += ["    " + line for line in inside or ["pass"]]
    if kind == "invariant":
        body += ["if invariant is not None:", "    invariant()"]
    used = sorted({word for word in ("Parked", "Waiting")
                   if any(f"{word}(" in line for line in inside)})
    summary = message.strip().splitlines()[-1] if message.strip() else kind
    lines = [f'"""Replays a schedule blanket.explore found: {kind}."""', "",
             "import blanket"]
    if used:
        lines.append(f"from blanket import {', '.join(used)}")
    lines += [importing, "", "",
              f"class {_class_name(function)}(blanket.ScenarioTestCase):",
              f"    \"\"\"{_docstring(summary)}\"\"\"", "",
              "    def test_schedule(self) -> None:"]
    lines += ["        " + line for line in body]
    return "\n".join(lines) + "\n"


def _docstring(text: Any) -> str:
    return str(text).replace("\\", "\\\\").replace('"""', "'''")
