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

import bisect
import itertools
import typing
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .sites import ADDS, KEYS, Site, accesses, describe, is_item

if TYPE_CHECKING:
    from .sections import Sections

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


def clocks(trace: Sequence[TraceStep], sections: Sections | None = None
           ) -> dict[tuple[int, int], dict[int, int]]:
    """The vector clock of each thread after each of its steps, by
    ``(thread, step number)``: for each thread, the last of its steps it
    knows of. With *sections* (the run's regular critical sections, see
    :mod:`blanket.exploration.sections`), a step of one follows no step of
    another thread's that it does not conflict with."""
    current: dict[int, dict[int, int]] = {}
    last: dict[str, dict[int, int]] = {}
    steps_on: dict[str, list[tuple[int, dict[int, int]]]] = {}  # on a lock with sections
    lazy = set() if sections is None else sections.keys
    after: dict[tuple[int, int], dict[int, int]] = {}
    for number, (thread, key, moved) in enumerate(trace):
        clock = dict(current.get(thread, {}))
        syncs = not key.startswith(MEMORY)
        if key in lazy:
            assert sections is not None
            # No longer one order of the lock's steps: each earlier one
            # that is not apart from this step's section.
            mine = sections.of[number] if number in sections.of else None
            earlier = steps_on.setdefault(key, [])
            for index, known in earlier:
                if not sections.apart(mine, index):
                    _join(clock, known)
        elif syncs:
            _join(clock, last.get(key, {}))
        clock[thread] = number
        if key in lazy:
            earlier.append((number, clock))
        elif syncs:
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


Entry = tuple[int, Site, bool, int]


def find(records: Sequence[tuple[int, str, list[Any]]], trace: Sequence[TraceStep],
         sections: Sections | None = None) -> tuple[list[Race], set[Site]]:
    """The races among *records* (each thread's number, name and flat record
    of accesses, see ``blanket.exploration.sites.accesses``)
    under the happens-before of *trace* (and *sections*, see ``clocks``);
    and the sites taking part.

    A dict's item is its key's (see :class:`~blanket.exploration.ccalls.ItemSite`):
    two keys' reads and writes do not meet; a write that adds or removes a
    key writes the dict's keys too (:data:`~blanket.exploration.sites.KEYS`),
    which another such write and every access of the whole dict meet (its
    iteration sees the keys and their order). An object's keys alike (its
    attributes added or removed), but two threads adding attributes are no
    data race reported: their sites only make steps. An
    access of a whole dict meets the accesses of the names it holds: of
    the globals it is (``globals()[name] = v``, ``exec(code, namespace)``),
    and of the attributes of the object whose ``__dict__`` it is
    (``vars(obj)[name] = v``); a write of ``obj.__class__`` or
    ``obj.__dict__`` meets every attribute access of ``obj``."""
    after = clocks(trace, sections)
    # What each thread did to each piece of state, once per site, kind and epoch.
    seen: dict[tuple[int, object], dict[Entry, str]] = {}
    targets: dict[int, object] = {}
    roots = owners(record for _, _, record in records)
    for thread, name, record in records:
        for site, target, attribute, write, epoch in accesses(record):
            if attribute is not None and is_item(site):
                # A dict's item: the attribute of the object whose __dict__ it
                # is (or its keys), else the key's (or the dict's keys).
                owner = roots[id(target)] if id(target) in roots else None
                if owner is not None:
                    if type(attribute) is str or attribute is KEYS:
                        target = owner
                    else:  # (no attribute's name: the whole dict)
                        attribute = None
            targets[id(target)] = target
            entries = seen.setdefault((id(target), attribute), {})
            entries.setdefault((thread, site, write, epoch), name)
    races: dict[tuple[str, Site, str, Site, str], Race] = {}
    sites: set[Site] = set()
    for (target_id, member), entries in seen.items():
        items = list(entries.items())
        met = _met(seen, targets, target_id, member)
        target = targets[target_id]
        # An object's keys (or a module's): two threads adding attributes
        # (globals) make steps (which came first shows in vars(obj)), but no
        # data race is reported (the interpreter keeps the dict whole); its
        # keys and its __dict__ read whole do race, named as the __dict__.
        attributes = member is KEYS and (type(target) is not dict or any(
            entry[1].depth == 0 for entry in entries))  # (a module's globals)
        named = "__dict__" if attributes else member
        for (a, a_name), (b, b_name) in _unordered(items, met, after):
            site = b[1] if is_item(a[1]) else a[1]
            if attributes and b in entries:
                sites.update((a[1], b[1]))
                continue
            # A dict's item or keys, unless a global of that name was met:
            # named as the dict, whatever the key.
            keyed = type(target) is dict and site.depth != 0
            what = describe(target, None if keyed else named, site)
            first, second = sorted([(a_name, a[1], a[2]), (b_name, b[1], b[2])],
                                   key=lambda side: (side[0], side[1].line or 0))
            sites.update((a[1], b[1]))
            key = (*first[:2], *second[:2], what)
            if key not in races:  # (many pairs of runs' epochs make one race)
                races[key] = Race(what, (first[0], _verb(first[2]), first[1].place),
                                  (second[0], _verb(second[2]), second[1].place))
    return list(races.values()), sites


_WHOLE = ("__class__", "__dict__")


@typing.no_type_check  # (typeguard stays off it: it runs at every access)
def _met(seen: dict[tuple[int, object], dict[Entry, str]], targets: dict[int, object],
         target_id: int, attribute: object) -> list[tuple[Entry, str]]:
    """The accesses of other state that the accesses of *attribute* of the
    target meet: those of the whole dict holding it, and writes of the
    object's class or ``__dict__``."""
    if attribute is None:
        return []
    target = targets[target_id]
    met: list[tuple[Entry, str]] = []
    if type(target) is dict:  # a namespace: the globals
        met += seen.get((target_id, None), {}).items()
    namespace = namespace_of(target)
    if namespace is not None:
        met += seen.get((id(namespace), None), {}).items()
    if attribute not in _WHOLE:
        met += [entry for name in _WHOLE for entry in seen.get((target_id, name), {}).items()
                if entry[0][2]]
    return met


# (typeguard stays off it: its check of *target* would ask the object itself,
# whose own __getattribute__ may be watched code, recording as it is read.)
@typing.no_type_check
def namespace_of(target: object) -> dict[str, Any] | None:
    """*target*'s instance dict (a module's: its globals), if it has one."""
    try:
        namespace = object.__getattribute__(target, "__dict__")
    except Exception:  # noqa: BLE001 - no instance dict, however it says so
        return None
    return namespace if type(namespace) is dict else None


def owners(records: Iterable[list[Any]]) -> dict[int, object]:
    """The objects whose attributes the threads accessed, by the id of their
    ``__dict__``, from the threads' flat *records*."""
    found: dict[int, object] = {}
    for record in records:
        for site, target, attribute, _, _ in accesses(record):
            if attribute is not None and not is_item(site) and site.depth > 0:
                namespace = namespace_of(target)
                if namespace is not None:
                    found[id(namespace)] = target
    return found


def overlap(a: str, b: str) -> bool:
    """Whether parked accesses labelled *a* and *b* (see
    :func:`blanket.exploration.sites.describe`) may reach the same state:
    the same label, a whole dict (a namespace, an instance's ``__dict__``)
    and a name, or a class's write and an attribute of that class; or two
    writes that add or remove attributes of objects of one class (marked
    :data:`~blanket.exploration.sites.ADDS`: which came first shows in
    ``vars(obj)``)."""
    if a.endswith(ADDS) or b.endswith(ADDS):
        if a.endswith(ADDS) and b.endswith(ADDS) and \
                a.rsplit(".", 1)[0] == b.rsplit(".", 1)[0]:
            return True
        a, b = a.removesuffix(ADDS), b.removesuffix(ADDS)
    if a == b:
        return True
    for one, other in ((a, b), (b, a)):
        if (one == "dict" and "." in other) or \
                (one.endswith(_WHOLE_SUFFIXES) and other.startswith(one.rsplit(".", 1)[0] + ".")):
            return True
    return False


_WHOLE_SUFFIXES = tuple(f".{name}" for name in _WHOLE)


def _verb(write: bool) -> str:
    return "write" if write else "read"


_UNKNOWING: dict[int, int] = {}  # the clock of a thread that moved at no step

_NEVER = float("inf")


class _Group:
    """The accesses of one piece of state by one thread at one site, of one
    kind, in the order they were made: their epochs rise."""

    __slots__ = ("thread", "write", "indices", "epochs", "clocks", "_least")

    def __init__(self, thread: int, write: bool) -> None:
        self.thread = thread
        self.write = write
        #: Each access's place in the list it came from, its epoch and the
        #: clock of its thread then.
        self.indices: list[int] = []
        self.epochs: list[int] = []
        self.clocks: list[dict[int, int]] = []
        self._least: dict[int, list[float]] = {}

    def least(self, thread: int) -> list[float]:
        """For each access, the least step of *thread* that it or a later
        one of the group knows of (one more entry: none)."""
        if thread not in self._least:
            least: list[float] = [_NEVER]
            for clock in reversed(self.clocks):
                least.append(min(least[-1], clock.get(thread, -1)))
            self._least[thread] = least[::-1]
        return self._least[thread]

    def first_race(self, other: _Group, later_only: bool) -> tuple[int, int] | None:
        """The first of this group's accesses that races with one of
        *other*'s (another thread's), and the first of those, by their
        places; with *later_only*, only accesses of *other* placed after it
        count.

        Of two accesses at epochs e < f, the earlier happens before the
        other when the other's clock knows of a step of its thread past e.
        A thread's clock only grows, so the accesses of *other* that race
        with one at e are a span at or before e (those its clock does not
        know of), and among those after e, the ones that know too little:
        each found by bisection, not pair by pair."""
        theirs, epochs, places = other.thread, other.epochs, other.indices
        least = other.least(self.thread)
        for place, epoch, clock in zip(self.indices, self.epochs, self.clocks, strict=True):
            start = bisect.bisect_right(places, place) if later_only else 0
            low = max(start, bisect.bisect_left(epochs, clock.get(theirs, -1)))
            high = bisect.bisect_right(epochs, epoch)
            if low < high:  # at or before its epoch, and not known to it
                return place, places[low]
            after = max(start, high)
            if least[after] <= epoch:  # after it, and not knowing of it
                return place, next(places[k] for k in range(after, len(epochs))
                                   if other.clocks[k].get(self.thread, -1) <= epoch)
        return None


def _groups(entries: list[tuple[Entry, str]], after: dict[tuple[int, int], dict[int, int]]
            ) -> list[_Group]:
    """*entries* by thread, site and kind, each group's epochs rising (a
    list made of several records may start a group again)."""
    groups: list[_Group] = []
    current: dict[tuple[int, Site, bool], _Group] = {}
    for place, ((thread, site, write, epoch), _) in enumerate(entries):
        group = current.get((thread, site, write))
        if group is None or group.epochs[-1] >= epoch:
            group = current[(thread, site, write)] = _Group(thread, write)
            groups.append(group)
        group.indices.append(place)
        group.epochs.append(epoch)
        group.clocks.append(after.get((thread, epoch), _UNKNOWING))
    return groups


def _unordered(items: list[tuple[Entry, str]], met: list[tuple[Entry, str]],
               after: dict[tuple[int, int], dict[int, int]]
               ) -> Iterator[tuple[tuple[Entry, str], tuple[Entry, str]]]:
    """The pairs of accesses of one piece of state (*items*), and of it and
    the other state it meets (*met*), that race: of two threads, one a
    write (two writes taken once), neither happening before the other.

    Of the many pairs two sites of two threads may make, only the first
    is given (the first access of the one, then of the other, by their
    places in *items*, then *met*), all in that order: each makes one race
    (see :func:`find`), and a run's state may be met thousands of times."""
    if len({entry[0] for entry, _ in items} | {entry[0] for entry, _ in met}) < 2 or \
            not any(entry[2] for entry, _ in itertools.chain(items, met)):
        return  # one thread's alone, or only read (most state a run touches)
    groups, met_groups = _groups(items, after), _groups(met, after)
    firsts: list[tuple[int, int, int]] = []
    for mine in groups:
        for other in groups:
            # (a write with another thread's read, or with its write once)
            if mine.write and other.thread != mine.thread:
                first = mine.first_race(other, later_only=other.write)
                if first is not None:
                    firsts.append((0, *first))
        for other in met_groups:
            if other.thread != mine.thread and (mine.write or other.write):
                first = mine.first_race(other, later_only=False)
                if first is not None:
                    firsts.append((1, *first))
    for kind, a, b in sorted(firsts):
        yield items[a], (items if kind == 0 else met)[b]
