"""The one check of every bound in seconds a user gives blanket: a
scenario's ``timeout``, ``scenario.wait(timeout=...)``, a test case's
``stall_timeout`` and exploration's ``timeout``; and the one clock of a
search's wall-clock budget (:class:`Deadline`).

A bound must be finite: blanket promises that a test never hangs, so there is
no "wait for ever" (infinity is refused, as is a NaN, which compares false
with everything and would make a wait end at once or never). It must also
fit what the standard library can sleep for (``threading.TIMEOUT_MAX``):
a larger one would fail only later, with an ``OverflowError``, inside a wait.
"""

from __future__ import annotations

import threading
import time

#: The bound a wait has unless the user gives one: a scenario's ``timeout``,
#: a test case's ``stall_timeout``, an exploration's ``timeout``.
DEFAULT = 10.0
#: The wall-clock budget of a search unless the user gives one
#: (``max_seconds`` of :func:`blanket.explore` and
#: :func:`blanket.check_linearizable`): a search nobody bounded stops within
#: minutes, and says what it covered.
BUDGET = 120.0
#: The least of a budget a search is handed, in seconds, when what is left
#: of a larger one is less (a shard's process started late, a check's last
#: scenario): it still makes one run.
SOONEST = 0.001


def parse_seconds(text: str) -> float:
    """*text*, a number of seconds on a command line, or the
    ``ValueError`` that says what is wrong with it."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{text!r}: expected a number of seconds") from None
    return check_seconds(value, "it")


def check_seconds(value: object, name: str, *, zero: bool = False) -> float:
    """*value* as a number of seconds, or the error that names *name*.

    ``TypeError`` if it is not an ``int`` or ``float`` (``bool`` excluded);
    ``ValueError`` if it is not finite, above ``threading.TIMEOUT_MAX``, or
    not above zero (zero itself allowed with *zero*: a wait that only looks).
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} is a number of seconds, not {value!r}")
    low = "0 or more" if zero else "more than 0"
    if not ((0 <= value if zero else 0 < value) and value <= threading.TIMEOUT_MAX):
        raise ValueError(f"{name} is a finite number of seconds, {low} and at most "
                         f"threading.TIMEOUT_MAX ({threading.TIMEOUT_MAX:.0f}), "
                         f"not {value!r}")
    return float(value)


class Deadline:
    """When a search's wall-clock budget (``max_seconds``) is spent, on the
    system's monotonic clock: the same in every process of a search over
    processes. An exploration, a linearizability check and each process of
    a search ask it between runs; whatever asks makes one run at least."""

    __slots__ = ("at", "given")

    def __init__(self, given: float, at: float | None = None) -> None:
        #: The budget as the user gave it, in seconds.
        self.given = given
        #: When it is spent (``time.monotonic()``): *given* seconds from now
        #: unless *at* says when (the caller's, in a search's process).
        self.at = time.monotonic() + given if at is None else at

    @property
    def label(self) -> str:
        """How a result names it once spent: ``max_seconds=N``."""
        return f"max_seconds={self.given:g}"

    def left(self) -> float:
        """The seconds left, :data:`SOONEST` at least (what is handed that
        makes one run)."""
        return max(SOONEST, self.at - time.monotonic())

    def within(self, seconds: float) -> Deadline:
        """This budget, or *seconds* from now if that ends first."""
        return Deadline(self.given, min(self.at, time.monotonic() + seconds))

    def spent(self) -> bool:
        """Whether the budget is spent."""
        return time.monotonic() >= self.at
