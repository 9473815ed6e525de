"""Replaying a schedule found by :func:`blanket.explore`, as a regression test.

:func:`reproduce` writes the source of a :class:`~blanket.ScenarioTestCase`
whose test calls :meth:`ScenarioTestCase.replay
<blanket.ScenarioTestCase.replay>` with the setup and the failing schedule,
one step a line as the failure prints it. :func:`replay` runs it: a fresh
scenario from the setup, the schedule's steps let go in order while the
parked calls match them; from the first step that does not match (the code
changed: it was fixed, say) or once the schedule ends, a fixed rule lets the
threads finish. The run is then judged as the exploration judged it: a
thread that raised, live threads that can no longer go on, or the invariant
failing. So the test fails on the bug, and passes once the code is fixed.

A step at a data race (``A: write Counter.count at shop/bank.py:12``) is
replayed by its meaning, never by counting instructions, so a schedule
found on one Python replays on another: the accesses the schedule names
(the thread's, of that kind, to that object and attribute, at that file and
line) park in the replay as they did in the exploration, and are let go as
steps like the calls. The file is named by its module's path
(``shop/bank.py`` for the module ``shop.bank``,
:func:`blanket.exploration.places.module_path`): the same in any checkout, and two files
of one name in two packages stay apart.

The rule after the schedule: the first parked call in thread order ("A"
before "B") that can go; a call whose outcome depends on its timeout goes
into its wait as if the timeout were long, unless nothing else would ever
wake it, in which case its timeout runs out (a run that ends with such a
call asleep is run again with that call expired).
"""

from __future__ import annotations

import ast
import keyword
import linecache
import re
import sys
import types
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import seconds
from .places import frame_place, parked_frame
from .processwide import Snapshot
from .races import report as races_report
from .result import Setup, Step
from .run import CONSEQUENCE, Option, Run, run_once
from .unseen import Unseen
from .watch import Transitive

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Sequence


#: Runs with a timed call made to expire instead, or with code met running
#: unwatched now watched, at most, after a run that left a disregarded wait
#: asleep or met such code: the rule's search stays bounded.
MAX_REPLAYS = 64


@dataclass
class Replay:
    """What replaying a schedule did."""

    #: ``(kind, message)`` as :class:`~blanket.Failure` has them, or ``None``.
    failure: tuple[str, str] | None
    #: How many steps of the schedule were let go as written.
    followed: int
    #: The first step that did not match, and the calls that could go
    #: instead; ``None`` when the whole schedule was followed.
    diverged: str | None
    #: The steps the run took, the schedule's and the rule's.
    steps: tuple[Step, ...]
    #: How many of the run's steps (the schedule's and the rule's) switched
    #: away from a thread that could have gone on: its preemptions, as
    #: ``blanket.exploration.dfs`` counts them against ``max_preemptions``.
    preemptions: int = 0

    def __str__(self) -> str:
        how = (f"followed all {self.followed} step(s) of the schedule" if self.diverged is None
               else f"followed {self.followed} step(s) of the schedule, then {self.diverged}")
        taken = "\n".join(f"  {n}. {step}" for n, step in enumerate(self.steps, 1))
        if self.failure is None:
            return f"the replay passed: it {how}\nsteps:\n{taken}"
        kind, message = self.failure
        return f"the replay failed: {kind}: {message}\nit {how}\nsteps:\n{taken}"


def _describe(option: Option) -> str:
    """The option as a schedule's step reads (``str(Step)``)."""
    return str(Run.describe(option.tx, option.how == "expire", option.how == "wait"))


#: A step at a data race as it reads: ``A: write Counter.count at shop/bank.py:12``.
_RACY_STEP = re.compile(r"[^:]+: (read|write) (.+?) at (.+:\d+)")


def _parks(wanted: list[str]) -> set[tuple[str, str, str]]:
    """The accesses at data races *wanted* names: ``(verb, what, place)``."""
    return {(match[1], match[2], match[3]) for match in map(_RACY_STEP.fullmatch, wanted)
            if match is not None}


#: What :func:`replay` does with data races on plain shared state.
RACES = ("off", "fail")


def replay(setup: Setup, schedule: Sequence[Step | str], *, timeout: float = 10.0,
           name: str | None = None, races: str = "off", places: bool = False) -> Replay:
    """Run the scenario *setup* describes, letting *schedule*'s steps (each
    a :class:`~blanket.Step` or its text, ``"A: Lock 1 Lock.acquire"``) go
    in order while they match, then the threads finish by a fixed rule (see
    the module's docstring); *timeout* bounds each wait for the threads to
    settle. The same on every run.

    A step at a data race (``"A: write Counter.count at shop/bank.py:12"``) is
    matched by what it says: the accesses the schedule names (read or
    write, what they reach, the file by its module's path and the line)
    park, and only those, so a schedule found on one Python replays on
    another.

    With ``races="fail"`` the threads' targets are watched as an exploration
    watches them, and a data race in the run (:mod:`blanket.exploration.races`) is a
    failure of kind ``"race"`` when nothing else failed: the test written
    for an exploration's ``races="fail"`` failure passes once no access of
    the run races, whether or not the schedule could still be followed.

    With *places*, each step of the replay's run that is a call on a
    primitive says where the code made it (:attr:`Step.at
    <blanket.Step.at>`): it asks for the frame of every thread at every
    step, so it is for a failure's report, not for every replay."""
    if races not in RACES:
        raise ValueError(f"races={races!r}: expected one of {', '.join(map(repr, RACES))}")
    wanted = [str(step) for step in schedule]
    title = name or str(getattr(setup, "__qualname__", "replay"))
    expire_at: set[int] = set()  # depths past the schedule where a wait expires
    parks = _parks(wanted)
    # The code the threads run is watched as the exploration watched it: what
    # a run meets running unwatched (called by C code) is watched in the
    # next, and the run that met it does not count.
    # What the threads use that blanket does not schedule (a real lock, a
    # thread asleep in one) is seen as the exploration saw it. Watched
    # always, as the search was: unwatched, a real Condition a library made
    # in __init__ stayed real in the code that used it (on 3.11 and 3.12
    # the replay of a deadlock on it stalled, following 0 steps).
    unseen = Unseen()
    unseen.transitive = transitive = Transitive()
    # Each run starts from logging's state before the first, as the
    # search's runs did (see blanket.exploration.processwide): the run that
    # met code unwatched filled a logger's cache, and the next one, with no
    # write of it to let go, left the schedule at its first such step.
    before = Snapshot()
    for _ in range(MAX_REPLAYS):
        rule = _Follow(wanted, expire_at, places)
        try:
            run = run_once(setup, title, timeout, rule.choose, unseen,
                           parks=parks, racy=set() if races == "fail" else None)
        finally:
            before.restore()
        if transitive.grown:
            transitive.grown = False
            continue
        if run.redundant and rule.waited:
            # A wait the rule let go with its timeout disregarded was never
            # woken: in a real run its timeout runs out. Expire the last one.
            last = rule.waited[-1]
            expire_at = {depth for depth in expire_at if depth < last} | {last}
            continue
        failure = run.failure
        if races == "fail" and failure is None:
            found, _ = run.races()
            if found:
                failure = ("race", races_report(found))
        if run.redundant:
            failure = ("stall", "a wait the schedule let go with its timeout disregarded "
                                "was never woken")
        diverged = rule.diverged
        if diverged is None and rule.followed < len(wanted):
            diverged = (f"the threads ended before step {rule.followed + 1} "
                        f"({wanted[rule.followed]})")
        steps = tuple(run.steps)
        if rule.places is not None:  # (each step is one the rule chose)
            steps = tuple(replace(step, at=at, named=name)
                          for step, (at, name) in zip(steps, rule.places, strict=True))
        return Replay(failure, rule.followed, diverged, steps, rule.preemptions)
    raise RuntimeError(f"replaying {title}: no end found in {MAX_REPLAYS} runs, each "
                       "expiring one more timed wait")  # pragma: no cover - see MAX_REPLAYS


class _Follow:
    """One replay's chooser: the schedule while it matches, then the rule."""

    def __init__(self, wanted: list[str], expire_at: set[int], places: bool = False) -> None:
        self.wanted = wanted
        self.expire_at = expire_at
        #: Where each step chosen was made (a call on a primitive) and what
        #: the code calls the primitive there, if asked.
        self.places: list[tuple[str, str]] | None = [] if places else None
        self.followed = 0
        self.diverged: str | None = None
        #: The thread of the last step, and the preemptions so far.
        self.previous: int | None = None
        self.preemptions = 0
        #: Depths past the schedule where a timed call went into its wait.
        self.waited: list[int] = []

    def choose(self, depth: int, options: list[Option], run: Run) -> int:
        if self.diverged is None and depth < len(self.wanted):
            described = [_describe(option) for option in options]
            if self.wanted[depth] in described:
                self.followed += 1
                return self._took(options, described.index(self.wanted[depth]))
            self.diverged = (f"step {depth + 1} ({self.wanted[depth]}) could not go; "
                             f"the calls that could: {'; '.join(described)}")
        going = [n for n, option in enumerate(options) if option.how == "go"]
        if going:
            return self._took(options, going[0])
        how = "expire" if depth in self.expire_at else "wait"
        if how == "wait":
            self.waited.append(depth)
        return self._took(options, next(n for n, option in enumerate(options)
                                        if option.how == how))

    def _took(self, options: list[Option], chosen: int) -> int:
        """*chosen*, a preemption counted if it is one."""
        thread = options[chosen].thread
        self.preemptions += self.previous not in (None, thread) and any(
            option.thread == self.previous for option in options)
        self.previous = thread
        if self.places is not None:
            self.places.append(_made_at(options[chosen].tx))
        return chosen


def _made_at(tx: Any) -> tuple[str, str]:
    """Where the code made *tx*'s call, parked there, as ``file:line``, and
    the name it gives the primitive there (see :func:`named`); ``""`` for
    an access (its step says where it is itself), and for the place of code
    with no file (a doctest's, ``<stdin>``)."""
    frame = None if tx.spec.kind == "Memory" else parked_frame(tx)
    if frame is None:
        return "", ""
    place = frame_place(frame)  # (one look at the threads' frames: it stops the world on 3.13t)
    return ("" if place.startswith("<") else place), named(frame, tx.primitive)


def named(frame: Any, primitive: Any) -> str:
    """The name *frame*'s code gives *primitive* (a scenario's, or the real
    object a twin stands for: see :mod:`blanket.exploration.realprims`): a
    local or global variable (``lock``), or an attribute of a local's
    (``self._cond``, ``pool._lock``); ``""`` when none is found. Read from
    the objects' ``__dict__`` as they are, running none of their code."""
    targets = (primitive, getattr(primitive, "_real", primitive))
    scopes = [frame.f_locals, frame.f_globals]
    for scope in scopes:
        for name, value in list(scope.items()):
            if any(value is target for target in targets):
                return str(name)
    for name, value in list(frame.f_locals.items()):
        try:
            attributes = object.__getattribute__(value, "__dict__")
        except Exception:  # noqa: BLE001 - no instance dict, however it says so
            continue
        for attribute, held in list(attributes.items()):
            if any(held is target for target in targets):
                return f"{name}.{attribute}"
    return ""


# -- the test's source ----------------------------------------------------------------

def identifier(qualname: str | None, fallback: str) -> str:
    """The name a written test calls a thing by whose qualified name is
    *qualname*: its last part, made an identifier; *fallback* when that is
    no name Python allows (a lambda's would be the keyword ``lambda``)."""
    name = re.sub(r"\W+", "_", (qualname or fallback).split(".")[-1]).strip("_")
    return name if name.isidentifier() and not keyword.iskeyword(name) else fallback


def lambda_text(function: object) -> str | None:
    """The source of *function* when it is a lambda whose text can be
    found (``lambda c: c.pop()``), on one line; else ``None``. Where a line
    has several lambdas, the positions of its code tell which it is."""
    code = getattr(function, "__code__", None)
    if not isinstance(code, types.CodeType) or code.co_name != "<lambda>":
        return None
    text = "".join(linecache.getlines(code.co_filename))
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):  # (not Python, or not this file's source now)
        return None
    lambdas = [node for node in ast.walk(tree)
               if isinstance(node, ast.Lambda) and node.lineno == code.co_firstlineno]
    starts = [(line, column) for line, _, column, end in code.co_positions()
              if line is not None and column is not None and (column, end) != (0, 0)]
    if starts and len(lambdas) > 1:
        first = min(starts)
        lambdas = [node for node in lambdas if (node.body.lineno, node.body.col_offset)
                   <= first <= (node.body.end_lineno, node.body.end_col_offset)]
    if len(lambdas) != 1:
        return None
    return " ".join((ast.get_source_segment(text, lambdas[0]) or "").split())


def class_name(name: str) -> str:
    """The generated test case's name for a setup called *name*."""
    words = re.findall(r"[A-Za-z0-9]+", name)
    return "Test" + "".join(w[:1].upper() + w[1:] for w in words) + "Schedule"


def _script_module() -> str | None:
    """The name the ``__main__`` module is importable by:
    ``python -m package.module`` keeps it in ``__spec__``; a script run by
    path is the module named by its file, found from its directory (and its
    packages, by their ``__init__.py``)."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None:
        return str(spec.name)
    path = getattr(main, "__file__", None)
    if not path:
        return None
    file = Path(path).resolve()
    parts = [file.stem]
    folder = file.parent
    while (folder / "__init__.py").exists():
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts)


def import_lines(setup: Any, function: str, qualname: str | None,
                 module: str | None = None) -> list[str]:
    """The lines of a generated test that import *setup* (a function, a
    class, anything with a module and a *qualname*; or any value the
    *module* holds by the name *qualname*) by the name *function*: an
    import, or comments saying why it has no name to import it by."""
    if qualname is None:
        # A callable object (a functools.partial, an instance): its
        # __module__ is its type's, where no name holds this setup.
        return [f"# the setup, a {type(setup).__module__}.{type(setup).__qualname__}, has no "
                "name to import it by:",
                f"# bind it to {function} at module level, then import it here, e.g.",
                f"# from mymodule import {function}"]
    module = module or getattr(setup, "__module__", None) or "__main__"
    loaded = sys.modules.get(module)
    note: list[str] = []
    if module == "__main__":
        script = _script_module()
        main = sys.modules.get("__main__")
        where = getattr(main, "__file__", None) or "the interactive session"
        if script is None:
            return [f"# {function} was defined in {where}: move it to a module your tests",
                    "# can import, then import it here, e.g.",
                    f"# from mymodule import {function}"]
        module = script
        note = [f"# {function} is defined in {where}, run as a script: its folder must be",
                "# on sys.path, and its top level guarded by if __name__ == '__main__'."]
    if "<" in qualname or "." in qualname:
        text = lambda_text(setup)
        if text is not None:
            return [f"# {function}: {qualname} is not importable; define it at module level",
                    f"# {function} = {text}", f"# and import it: from {module} import {function}"]
        return [f"# {qualname} is not importable: define it at module level"
                f"{'' if qualname.endswith('.' + function) else f' as {function}'}, then",
                f"# from {module} import {function}"]
    if loaded is None or vars(loaded).get(qualname) is not setup:
        # Defined where no module holds it by that name: in a doctest (whose
        # namespace says "__main__"), an exec, or replaced since.
        return [f"# {qualname} is not {module}.{qualname}: define it at module level in a "
                "module your tests", "# can import, then import it here, e.g.",
                f"# from mymodule import {function}"]
    return [*note, f"from {module} import {function}"]


def reproduce(setup: Setup, steps: tuple[Step, ...], kind: str, message: str,
              timeout: float, reached: str | None = None) -> str:
    """The test source replaying *steps* of a run, which failed with *kind*,
    its waits bounded by *timeout* as the run's were; or, given the place
    *reached*, asserting that line ran
    (:meth:`blanket.ScenarioTestCase.assertReached`)."""
    qualname = getattr(setup, "__qualname__", None)
    if not isinstance(qualname, str):
        qualname = None
    function = identifier(qualname, "setup")
    summary = summary_of(kind, message)
    about = ([f"It fails if {reached} no longer runs: the steps are let go while the",
              "calls match them, then the threads finish."] if reached is not None else
             ["It fails while the bug is there, and passes once the code is fixed: the",
              "steps are let go while the calls match them, then the threads finish."])
    lines = [f'"""Replays a schedule blanket.explore found: {kind}.', "", *about,
             *(["A data race in the run fails it too (races=\"fail\")."]
               if kind == "race" else []),
             '"""', "", "import blanket", *import_lines(setup, function, qualname), "", "",
             f"class {class_name(function)}(blanket.ScenarioTestCase):",
             f"    \"\"\"{docstring(summary)}\"\"\"", "",
             # The replay's waits bounded as the search's were (a stall says
             # how long it waited):
             *([f"    stall_timeout = {timeout!r}", ""] if timeout != seconds.DEFAULT else []),
             "    def test_schedule(self) -> None:"]
    listed = "".join(f"\n            {str(step)!r},{f'  # {step.made}' if step.made else ''}"
                     for step in steps)
    if listed:
        listed += "\n        "
    # A race is the failure: the replay fails while an access races.
    races = ', races="fail"' if kind == "race" else ""
    if reached is not None:
        lines.append(f"        self.assertReached({function}, [{listed}], {reached!r})")
    else:
        lines.append(f"        self.replay({function}, [{listed}]{races})")
    return "\n".join(lines) + "\n"


def summary_of(kind: str, message: str) -> str:
    """What a failure of *kind* says in one line: for threads stuck (a
    deadlock, a stall, a livelock), the first line of its *message* (the
    lines after it list the threads); else the last, of the first thing
    that went wrong (a thread's exception, not the waits that followed
    from it)."""
    lines = message.split(CONSEQUENCE)[0].strip().splitlines()
    return kind if not lines else lines[0] if kind in STUCK else _said(lines)


#: The kinds of failure whose message's first line says it all.
STUCK = frozenset({"deadlock", "stall", "livelock"})


def _said(lines: list[str]) -> str:
    """The last of *lines* (a traceback's), pytest's explanation of a failed
    ``assert`` left out: pytest rewrites the asserts of test modules, and
    their ``AssertionError`` gains lines (``assert 1 == 2``, ``+  where
    ...``) that a run of the written test without pytest does not print."""
    raised = [n for n, line in enumerate(lines) if line.startswith("AssertionError")]
    if not raised:
        return lines[-1]
    last = raised[-1]
    if lines[last].startswith("AssertionError: assert "):  # no message of its own
        return "AssertionError"
    explained = [n for n in range(last + 1, len(lines)) if lines[n].startswith("assert ")]
    return lines[explained[0] - 1] if explained else lines[-1]


def docstring(text: Any) -> str:
    """*text* made safe to put between triple quotes."""
    return str(text).replace("\\", "\\\\").replace('"""', "'''")
