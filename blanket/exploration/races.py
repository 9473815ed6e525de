"""Data races in one run: accesses to the same state by two threads, at
least one a write, that no order blanket enforced keeps apart.

The threads record their accesses on their own (:mod:`blanket.exploration.watch`),
each tagged with the *epoch*: the number of the exploration step after which
its thread ran (-1 before the first). The run's steps give happens-before as
vector clocks: program order; the calls on one primitive in the order they
were let go; a step before whatever it woke. Steps at racy accesses
(``Memory`` calls) order nothing: the race they stand for stays a race.

An access *a* of thread T at epoch e happens before an access of thread U
at epoch f when U, after its step f, knows of a step of T later than e.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .sites import Site, accesses, describe

#: One step of a run: its thread's number, its key (what it acted on), and
#: the threads it moved besides its own.
TraceStep = tuple[int, str, tuple[int, ...]]

#: The key prefix of a parked access (``memory:write:Counter.count``).
MEMORY = "memory:"


@dataclass(frozen=True)
class Race:
    """Two accesses to the same state, at least one a write, that no order
    of blanket's calls keeps apart."""

    #: What both reach: ``Counter.count``, ``module.name``, ``dict``.
    what: str
    #: Each side: ``(thread, "read" or "write", "file:line")``, the file by
    #: its module's path as steps name it (``shop/bank.py:12``, see
    #: :attr:`blanket.exploration.sites.Site.place`): the same on every machine.
    first: tuple[str, str, str]
    second: tuple[str, str, str]

    def __str__(self) -> str:
        (t1, k1, w1), (t2, k2, w2) = self.first, self.second
        return f"{self.what}: {t1} {k1}s at {w1}, {t2} {k2}s at {w2}"


def report(found: Sequence[Race]) -> str:
    """The message of a failure of kind ``"race"``: each race on a line."""
    return "data race(s):\n" + "\n".join(f"  {race}" for race in found)


def clocks(trace: Sequence[TraceStep]) -> dict[tuple[int, int], dict[int, int]]:
    """The vector clock of each thread after each of its steps, by
    ``(thread, step number)``: for each thread, the last of its steps it
    knows of."""
    current: dict[int, dict[int, int]] = {}
    last: dict[str, dict[int, int]] = {}
    after: dict[tuple[int, int], dict[int, int]] = {}
    for number, (thread, key, moved) in enumerate(trace):
        clock = dict(current.get(thread, {}))
        syncs = not key.startswith(MEMORY)
        if syncs:
            _join(clock, last.get(key, {}))
        clock[thread] = number
        if syncs:
            last[key] = clock
        current[thread] = after[(thread, number)] = clock
        for woken in moved:
            merged = _join(dict(current.get(woken, {})), clock)
            merged[woken] = number
            current[woken] = after[(woken, number)] = merged
    return after


def _join(clock: dict[int, int], other: dict[int, int]) -> dict[int, int]:
    for thread, value in other.items():
        if value > clock.get(thread, -1):
            clock[thread] = value
    return clock


def find(records: Sequence[tuple[int, str, list[Any]]], trace: Sequence[TraceStep]
         ) -> tuple[list[Race], set[Site]]:
    """The races among *records* (each thread's number, name and flat record
    of accesses, see :func:`blanket.exploration.sites.accesses`)
    under the happens-before of *trace*; and the sites taking part."""
    after = clocks(trace)
    # What each thread did to each piece of state, once per site, kind and epoch.
    seen: dict[tuple[int, str | None], dict[tuple[int, Site, bool, int], str]] = {}
    targets: dict[int, object] = {}
    for thread, name, record in records:
        for site, target, attribute, write, epoch in accesses(record):
            targets[id(target)] = target
            entries = seen.setdefault((id(target), attribute), {})
            entries.setdefault((thread, site, write, epoch), name)
    races: dict[tuple[str, Site, str, Site, str], Race] = {}
    sites: set[Site] = set()
    for (target_id, attribute), entries in seen.items():
        items = list(entries.items())
        for i, (a, a_name) in enumerate(items):
            if not a[2]:
                continue  # two reads never race: each pair has a write first
            for j, (b, b_name) in enumerate(items):
                # Two writes are one pair, taken once.
                if a[0] == b[0] or (b[2] and j < i):
                    continue
                # Only the access at the earlier epoch can happen before the
                # other (a clock after step f knows of no step past f; at one
                # epoch neither does).
                earlier, later = (a, b) if a[3] < b[3] else (b, a)
                if _ordered(after, earlier, later):
                    continue
                what = describe(targets[target_id], attribute, a[1])
                first, second = sorted([(a_name, a[1], a[2]), (b_name, b[1], b[2])],
                                       key=lambda side: (side[0], side[1].line or 0))
                sites.update((a[1], b[1]))
                races.setdefault((*first[:2], *second[:2], what), Race(
                    what, (first[0], _verb(first[2]), first[1].place),
                    (second[0], _verb(second[2]), second[1].place)))
    return list(races.values()), sites


def _verb(write: bool) -> str:
    return "write" if write else "read"


def _ordered(after: dict[tuple[int, int], dict[int, int]],
             a: tuple[int, Site, bool, int], b: tuple[int, Site, bool, int]) -> bool:
    """Whether access *a* happens before access *b*."""
    clock = after.get((b[0], b[3]), {})
    return clock.get(a[0], -1) > a[3]
