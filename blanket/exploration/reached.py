"""What a search for lines gives back: for each line asked about
(``explore(..., reach=...)``), the schedule that runs it and the test that
replays it, and what the summary says of the lines no schedule ran."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .result import Step


@dataclass
class Reach:
    """A schedule under which a line ran."""

    #: The line, as steps name places: ``"pkg/module.py:42"``.
    place: str
    #: The steps of the run that ran it, in order.
    schedule: tuple[Step, ...]
    #: Python source of a ScenarioTestCase that replays the schedule and
    #: asserts the line ran (:meth:`blanket.ScenarioTestCase.assertReached`).
    source: str = ""
    #: What running :attr:`source` as its user will showed, in a sentence
    #: starting ``"tried:"`` when it passed (see
    #: :mod:`blanket.exploration.tried`).
    checked: str = ""

    def __str__(self) -> str:
        steps = "\n".join(f"  {n}. {step}" for n, step in enumerate(self.schedule, 1))
        return f"{self.place} runs under the schedule:\n{steps}"


def summary(reached: Mapping[str, Reach | None], exhausted: bool,
            max_preemptions: int | None) -> str:
    """What a search says of the lines it looked for: reached, or never run
    by any order (only when the search covered every order it could, and
    saw nothing outside its control), or not reached by the schedules run."""
    said = []
    for place, found in reached.items():
        if found is not None:
            said.append(f"reached {place} ({len(found.schedule)} step(s))")
        elif exhausted and max_preemptions is None:
            said.append(f"no order of these threads runs {place}")
        elif exhausted:
            said.append(f"no order with at most {max_preemptions} preemption(s) runs {place} "
                        "(bounded: not every order)")
        else:
            said.append(f"{place} not reached by the schedules run (not every order)")
    return "".join(f"; {text}" for text in said)


@dataclass
class FileLines:
    """The lines of one watched file the explored schedules ran
    (``explore(..., lines=True)``), and the lines of the functions they
    entered that they did not run (``def`` lines aside)."""

    #: The file, as steps name it (``"pkg/module.py"``).
    file: str
    #: The lines some run of the search ran, in any thread.
    ran: frozenset[int]
    #: The lines no run of the search ran, in the functions some run entered.
    missed: frozenset[int]
    #: The lines no order of the threads runs: :attr:`missed` when the
    #: search covered every order (an unbounded depth-first search that
    #: ended, having seen nothing outside its control), else ``None``.
    never: frozenset[int] | None = None

    def __str__(self) -> str:
        missed = ", ".join(map(str, sorted(self.missed))) or "none"
        how = "no order runs" if self.never is not None else \
            "not run by the schedules run (not every order)"
        return f"{self.file}: {len(self.ran)} line(s) ran; {how}: {missed}"
