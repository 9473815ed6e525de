"""Guided search for ``reach=``: the order in which the depth-first search
tries the calls it can let go, so that a line only a rare interleaving
runs is reached in few runs.

At every choice the calls are ordered, first to last, by:

1. a timed call let expire before one let wait in time (a timeout's
   branch is what a plain depth-first search reaches last);
2. a call of a thread inside a function of a target line (read from the
   thread's frames while it is parked): those are the threads to bring
   to the line, the others' calls wait;
3. a call of another thread than the one that went last (a preemption:
   the lines a search looks for are mostly those where one thread came
   in between another's steps);
4. the thread nearest a target line (in lines, in the innermost frame
   that is in a target's function);
5. the option's number, so the order is the same in every run.

This only orders what the search tries first: every call the plain
search tries is still tried, and the partial-order reduction decides from
the runs what else to try, as it does in any order. So a guided search
that ends has run every order (up to the order of independent calls) and
its verdicts are the plain search's: "no order of these threads runs"
stays true. The order depends only on where the threads are, which the
choices before it decide, so shards and processes split the same
search, each prefix the same in every one.

On the ten cases of ``tests/reach_cases.py`` it reaches each line in no
more runs than the plain search, 14 runs in all for 27 (random seeds: 19
to 31); on the nine of ``tests/reach_more.py``, written to check it
(more threads, threads that do something else), 38 for 107, and no more
on any but one (``window``: 13 for 4, where the threads' critical sections
that touch nothing of each other's are apart, see
``blanket.exploration.sections``). The first order tried (other threads
first, then expiries) lost on some of those (24 runs for 16 on five): a
thread doing something else was let in at every switch.
"""

from __future__ import annotations

import sys
import types

from .lines import code_lines, split
from .places import module_path
from .run import Option, Run


class Guide:
    """The order of the calls at each choice, toward the lines *targets*
    (places, ``"pkg/module.py:42"``): called at each new node of the
    depth-first search (``blanket.exploration.dfs.Guide``)."""

    def __init__(self, targets: list[str]) -> None:
        self.targets = [split(target) for target in targets]
        #: For each code object met (by id: probed code is not hashable; the
        #: code kept, so that its id is not another's), the target lines it has.
        self._lines: dict[int, tuple[types.CodeType, list[int]]] = {}

    def __call__(self, options: list[Option], run: Run, previous: int | None) -> list[int]:
        """The options' numbers, the one to try first first; *previous* is
        the thread that went last (``None`` at the first step)."""
        frames = sys._current_frames()  # every thread is parked: where each one is
        distance = {option.thread: self.distance(frames.get(option.tx.thread.ident or -1))
                    for option in options}

        def rank(option: Option) -> tuple[bool, bool, bool, int, int]:
            near = distance[option.thread]
            return (option.how != "expire", near == sys.maxsize, option.thread == previous,
                    near, option.choice)
        return [option.choice for option in sorted(options, key=rank)]

    def distance(self, frame: types.FrameType | None) -> int:
        """How many lines the innermost frame from *frame* out that is in a
        function of a target is from the target (``sys.maxsize`` when none is)."""
        while frame is not None:
            lines = self.lines_in(frame)
            if lines:
                here: int = frame.f_lineno  # (typeshed: int | Any)
                return min(abs(here - line) for line in lines)
            frame = frame.f_back
        return sys.maxsize

    def lines_in(self, frame: types.FrameType) -> list[int]:
        """The target lines in the code *frame* runs (nested code too)."""
        code = frame.f_code
        known = self._lines[id(code)] if id(code) in self._lines else None
        if known is None:
            file = module_path(code.co_filename, frame.f_globals)
            has = code_lines(code)
            known = self._lines[id(code)] = (code, [line for place, line in self.targets
                                                    if place == file and line in has])
        return known[1]
