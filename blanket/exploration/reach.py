"""Reaching a line: ``explore(setup, reach=...)`` searches the schedules for
one under which a given line runs, in any thread, and writes the test that
replays it.

A target is ``"pkg/module.py:42"`` (the file by its module's path, as steps
and data races name places, or by its path: absolute, as coverage.py
records it, or relative to the current directory), ``(function, 42)``
(line 42 of the function's file, inside the function), or a sequence of
those. Each is named as steps name places from then on (the keys of
:attr:`~blanket.Exploration.reached`): a path is resolved to the loaded
module whose file it is (:func:`~blanket.exploration.lines.resolve_file`),
and a path of no loaded module's file, a line no function of the file has
or a function's ``def`` line is refused (a :class:`ValueError`), never
said to be a line no order runs. The lines are watched
by probes (:mod:`blanket.exploration.lines`) for the whole search; after
each run the places that ran are read, and the first run to run a target
gives its :class:`~blanket.exploration.reached.Reach`: the schedule, and a
:class:`~blanket.ScenarioTestCase` that replays it and asserts the line ran
(:meth:`~blanket.ScenarioTestCase.assertReached`). The search stops once
every target is reached, as it stops at a failure.

A run whose threads ran free through accesses that were not steps yet (a
data race met for the first time) does not count: its schedule does not
make what it did, and the search goes on with those accesses as steps.
"""

from __future__ import annotations

import types
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from ..interpreters import refuse_untested
from .lines import Probes, code_lines, file_of, place_of, resolve_file, split
from .reached import FileLines, Reach
from .reproduce import reproduce
from .run import run_once

if TYPE_CHECKING:  # pragma: no cover
    from .result import Exploration, Setup
    from .run import Option, Run

def places(reach: object) -> list[str]:
    """The places *reach* names, as steps name them, in order, each once
    (see the module's docstring)."""
    if reach is None:
        return []
    if isinstance(reach, str) or _is_function_line(reach):
        targets: Sequence[object] = [reach]
    elif isinstance(reach, (list, tuple)):
        targets = reach
    else:
        raise TypeError(f"reach={reach!r}: expected 'file:line', (function, line) or a "
                        "list of them")
    found: dict[str, None] = {}
    files: dict[str, str] = {}  # each file named once resolved (a scan of what is loaded)
    for target in targets:
        if isinstance(target, str):
            file, line = split(target)
            if file not in files:
                files[file] = resolve_file(file)
            found[f"{files[file]}:{line}"] = None
        elif _is_function_line(target):
            function, line = cast("tuple[Any, int]", target)
            found[_function_place(function, line)] = None
        else:
            raise TypeError(f"reach: {target!r}: expected 'file:line' or (function, line)")
    return list(found)


def _is_function_line(target: object) -> bool:
    return isinstance(target, tuple) and len(target) == 2 and callable(target[0]) \
        and isinstance(target[1], int) and not isinstance(target[1], bool)


def _function_place(function: Any, line: int) -> str:
    """The place of *line* (of its file) inside *function*."""
    code_of = getattr(function, "__func__", function)
    if not isinstance(code_of, types.FunctionType):
        raise TypeError(f"reach: {function!r} is no Python function: name its line as "
                        "'file:line'")
    lines = code_lines(code_of.__code__)
    if line not in lines:
        raise ValueError(f"reach: line {line} is no line of {code_of.__qualname__}'s code "
                         f"(lines {min(lines)} to {max(lines)} of its file have code)")
    return place_of(code_of, line)


class Goal:
    """The lines one search looks for, and with *every* the lines it runs
    in the files it watches, with their probes (a context manager: the
    probes are in the code while it is entered)."""

    def __init__(self, setup: Setup, targets: list[str], every: bool = False,
                 timeout: float = 10.0) -> None:
        self.setup = setup
        self.targets = targets
        self.every = every
        self.timeout = timeout
        self.lines: dict[str, set[int]] = {}
        for target in targets:
            file, line = split(target)
            self.lines.setdefault(file, set()).add(line)
        self.probes = Probes(self.lines)
        #: Every place run so far.
        self.ran: set[str] = set()

    def __enter__(self) -> Goal:
        if self.every:
            self.probes = Probes(self.lines, watched_files(self.setup, self.timeout))
        self.probes.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.probes.__exit__()

    def start(self, result: Exploration) -> None:
        """Before the first run: no target reached yet."""
        result.reached = dict.fromkeys(self.targets)

    def note(self, run: Run, result: Exploration, grown: bool) -> bool:
        """Read what *run* ran (its threads ran free through new steps when
        *grown*); whether every target has been reached."""
        ran = self.probes.take()
        self.ran |= ran
        if not grown:
            for place in self.targets:
                if result.reached[place] is None and place in ran:
                    steps = tuple(run.steps)
                    source = reproduce(self.setup, steps, f"a run of {place}", f"{place} runs",
                                       run.scenario.timeout, reached=place)
                    result.reached[place] = Reach(place, steps, source)
        return bool(self.targets) and None not in result.reached.values()

    def finish(self, result: Exploration) -> None:
        """After the last run: the lines of the watched files, run or not."""
        covered = result.exhausted and result.max_preemptions is None
        for file in sorted(self.probes.every):
            ran = frozenset(int(place.rpartition(":")[2]) for place in self.ran
                            if place.rpartition(":")[0] == file)
            # The lines not run of the functions that ran: the branches the
            # threads did not take (not the functions nobody called).
            missed = frozenset().union(*(lines - ran for lines in self.probes.probed[file]
                                         if lines & ran))
            result.lines[file] = FileLines(file, ran, missed, missed if covered else None)


def watched_files(setup: Setup, timeout: float) -> set[str]:
    """The files of the code an exploration of *setup* watches (the
    threads' targets, what ``scenario.instrument`` names): one run, cut
    short before its first step (refused where the searches are not
    tested, as :func:`~blanket.explore` is)."""
    refuse_untested("listing the files a search watches")
    def stop(depth: int, options: list[Option], run: Run) -> None:
        return None
    run = run_once(setup, "lines", timeout, stop, racy=set())
    return {file_of(function) for function in run.watch.functions}


def goal(setup: Setup, reach: object, lines: bool = False, timeout: float = 10.0
         ) -> Goal | None:
    """The goal of a search for the lines *reach* names, and for the lines
    the watched files run when *lines*; ``None`` for neither."""
    targets = places(reach)
    return Goal(setup, targets, lines, timeout) if targets or lines else None

