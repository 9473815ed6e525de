"""Critical sections that commute: the lock-aware part of the depth-first
search's reduction.

Two threads' sections under one lock are ordered by it, but when neither
touches what the other writes, running them the other way round reaches
the same state: the search need not run both orders. (Kokologiannakis et
al., "Effective lock handling in stateless model checking", OOPSLA 2019,
explore up to this equivalence.) Two lookups in a locked cache that both
miss, say, run alike in either order.

A section is *regular* when it is one step of its thread's: a plain
blocking ``acquire`` of a ``Lock`` or ``RLock`` (``with lock:``, no
timeout, no try) that moved no other thread, and the thread's next call the
release of the same lock. Nothing else of the thread's is a step between
(no call on another primitive, no racy access: those make steps of their
own), so no other thread can see the section half-way. What it did is what
its thread recorded while it ran (:mod:`blanket.exploration.sites`: each
access tagged with the step during which it was made): two sections
conflict when one wrote an object the other reached. In one run objects
are told apart by identity (an instance's attribute meets its ``__dict__``
and its classes); between runs, whose objects are not the same ones, by
kind (:func:`_name`). An object of ``threading``'s or ``weakref``'s, whose
methods the watch does not watch, counts as written; a primitive's calls
are steps, not accesses.

What a section did is known only as far as the watch saw it: the search
tells sections apart only while nothing was met unseen
(:mod:`blanket.exploration.unseen`, :class:`~blanket.exploration.watch.Transitive`).
Every other step on the lock (a try, a timed acquire, ``locked()``, a
section with steps inside) is ordered with all the others, as before.
"""

from __future__ import annotations

import sys
import typing
from collections.abc import Iterable, Sequence
from typing import Any, cast

from .races import TraceStep, namespace_of
from .realprims import REAL_KINDS
from .run import ACQUIRE, RELEASE, Option, Run, step_kind
from .sites import Access, accesses, is_item
from .watch import NEVER

#: What :meth:`Sections.races` says.
RACES, APART, ASIDE = "races", "apart", "aside"


class Section:
    """One thread's regular critical section: from its acquire to its release."""

    __slots__ = ("thread", "key", "first", "last", "objects", "kinds", "attribute", "keyed",
                 "items", "names", "named_items")

    def __init__(self, thread: int, key: str, first: int) -> None:
        self.thread = thread
        #: The lock's key, and the indices of the acquire and the release.
        self.key = key
        self.first = first
        self.last = -1
        #: What the section reached: True if it wrote it. An object by its
        #: id; a dict's item by the dict's id and the key (see
        #: :class:`~blanket.exploration.ccalls.ItemSite`), and the dict's
        #: keys (``(id, KEYS)``) where it wrote an item.
        self.objects: dict[object, bool] = {}
        #: The dicts whose items it reached, by id: True if it wrote one. An
        #: access of the whole dict meets every item.
        self.keyed: dict[int, bool] = {}
        #: The same by kind of object (see :func:`_name`), for comparing
        #: sections of two runs, whose objects are not the same: an item by
        #: its dict's kind and its key (see :func:`_item_name`).
        self.kinds: dict[Name, bool] = {}
        #: :attr:`keyed` by kind.
        self.items: dict[Name, bool] = {}
        #: Whether it wrote an instance's attribute (None: it reached none).
        self.attribute: bool | None = None
        #: The same by the attribute's name.
        self.names: dict[str, bool] = {}
        #: The ``str`` keys' items it reached of dicts that may be an
        #: instance's ``__dict__``: each meets every attribute of its name.
        self.named_items: dict[str, bool] = {}

    def conflicts(self, other: Section) -> bool:
        """Whether running this section and *other*, of the same run, the
        other way round may not reach the same state."""
        return _meet(self.objects, other.objects) or _whole(self.keyed, other.objects) \
            or _whole(other.keyed, self.objects)

    def meets(self, other: Section) -> bool:
        """:meth:`conflicts` for a section of another run."""
        return _meet(self.kinds, other.kinds) or _whole(self.items, other.kinds) \
            or _whole(other.items, self.kinds) or _any_instance(self, other) \
            or _any_instance(other, self)


T = typing.TypeVar("T")


def _any_instance(one: Section, other: Section) -> bool:
    """Whether *one* reached a dict that may be an instance's ``__dict__``
    (the whole dict, or an item by a ``str`` key) and *other* an instance's
    attribute (of that name), one of them writing."""
    if other.attribute is None:
        return False
    if _ANY_INSTANCE in one.kinds and (one.kinds[_ANY_INSTANCE] or other.attribute):
        return True
    return _meet(one.named_items, other.names)


def _whole(keyed: dict[T, bool], whole: dict[Any, bool]) -> bool:
    """Whether one section's items of dicts (*keyed*) and another's accesses
    of whole dicts (*whole*) meet: of the same dict, one of them writing."""
    return any(target in whole and (wrote or whole[target]) for target, wrote in keyed.items())


def _meet(mine: dict[T, bool], theirs: dict[T, bool]) -> bool:
    """Whether one wrote what the other reached."""
    if len(theirs) < len(mine):
        mine, theirs = theirs, mine
    return any(target in theirs and (wrote or theirs[target]) for target, wrote in mine.items())


def sections_of(run: Run) -> Sections:
    """*run*'s regular critical sections (its threads' accesses recorded:
    the search tells sections apart only while it watches them)."""
    return Sections(run.trace, run.kinds, run.records(), reach_of(run))


def reach_of(run: Run) -> Reach:
    """What the reduction has worked out of *run* so far."""
    if run.reach is None:
        run.reach = Reach()
    return run.reach


def _opens(kind: str, step: TraceStep) -> bool:
    """Whether a step (of *kind*) may open a regular section: a plain
    blocking acquire that moved no other thread."""
    return kind == ACQUIRE and not step[2]


class Sections:
    """The regular sections of a run, and the step of each that is one of
    theirs."""

    def __init__(self, trace: Sequence[TraceStep], kinds: Sequence[str],
                 records: Sequence[tuple[int, list[Any]]], reach: Reach | None = None) -> None:
        """*reach*: what was worked out of the run as it went (the sections
        :func:`opened` found), if anything."""
        reach = reach or Reach()
        #: The section each step belongs to (its acquire, release, or a nested
        #: acquire or release of an ``RLock``), by the step's index.
        self.of: dict[int, Section] = {}
        #: The locks with two threads' regular sections that do not
        #: conflict: only their steps are read differently by the search
        #: (on the others, every two sections conflict: ordered as ever).
        self.keys: set[str] = set()
        #: Whether two sections conflict, by their acquires' indices, once asked.
        self._conflict: dict[tuple[int, int], bool] = {}
        opens: dict[int, int] = {}  # each regular section's acquire: its release
        last_of: dict[int, int] = {}  # each thread's step before, by index
        for index, (thread, key, _) in enumerate(trace):
            before = last_of.get(thread)
            last_of[thread] = index
            if before is not None and _opens(kinds[before], trace[before]) \
                    and kinds[index] == RELEASE and trace[before][1] == key:
                # The thread's acquire, then at once its release of the same lock.
                opens[before] = index
        # What each section not yet worked out reached: its thread's accesses
        # during its acquire.
        during: dict[int, list[Access]] = {}
        if any(first not in reach.sections for first in opens):
            for thread, record in records:
                for access in accesses(record):
                    step = access[4]
                    if step in opens and step not in reach.sections \
                            and trace[step][0] == thread:
                        during.setdefault(step, []).append(access)
        on: dict[str, list[Section]] = {}  # the sections on each lock
        for first, last in opens.items():
            section = reach.sections[first] if first in reach.sections else None
            if section is None:
                thread, key, _ = trace[first]
                section = reach.section(thread, key, first, during.get(first, ()))
            section.last = last
            on.setdefault(section.key, []).append(section)
        for key, found in on.items():
            if self.apart_somewhere(found):
                self.keys.add(key)
                for section in found:
                    self.of[section.first] = self.of[section.last] = section

    @staticmethod
    def apart_somewhere(sections: list[Section]) -> bool:
        """Whether two threads' *sections* (on one lock) do not conflict: not
        when every one wrote one object (a counter all of them bump), else as
        each two say."""
        written = [{target for target, wrote in one.objects.items() if wrote}
                   for one in sections]
        if set.intersection(*written):
            return False
        return any(one.thread != other.thread and not one.conflicts(other)
                   for n, one in enumerate(sections) for other in sections[n + 1:])

    def races(self, section: Section | None, index: int, waits: bool) -> str:
        """Whether a pending call (that opens the regular *section*, if it
        does; that *waits* for the lock to be free, if it does) races with
        the step at *index*, another thread's on the same lock: :data:`RACES`,
        :data:`APART`, or :data:`ASIDE` (it races, but hides no earlier step).

        Not with another regular section's acquire when the two do not
        conflict. Not with a release that closes a regular section, when the
        call waits for the lock (or is an ``RLock``'s release, which only the
        thread holding it makes): it could not go where the lock is held, so
        the reversal is the section's, with its acquire. A call that can go
        there (a try, a timed acquire, ``locked()``) races with the release,
        and with the acquire too."""
        other = self.of[index] if index in self.of else None
        if other is None or (section is not None and other.thread == section.thread):
            return RACES
        if other.first != index:
            return APART if waits else ASIDE
        return RACES if section is None or self._conflicts(section, other) else APART

    def apart(self, section: Section | None, index: int) -> bool:
        """Whether the regular *section* and the step at *index* are in two
        threads' regular sections that do not conflict."""
        if section is None:
            return False
        other = self.of[index] if index in self.of else None
        return other is not None and other.thread != section.thread \
            and not self._conflicts(section, other)

    def _conflicts(self, one: Section, other: Section) -> bool:
        """:meth:`Section.conflicts`, worked out once for each two."""
        pair = (one.first, other.first)
        if pair not in self._conflict:
            self._conflict[pair] = self._conflict[pair[::-1]] = one.conflicts(other)
        return self._conflict[pair]


@typing.no_type_check  # (see _name)
def _during(record: list[Any], step: int) -> list[Access]:
    """The accesses of a thread's flat *record* made during *step*: the
    record's last ones when that step is the run's last so far (the record
    grows in the order of the steps)."""
    start = len(record)
    while start and record[start - 1] == step:  # (each access's last entry: its step)
        start -= 5
    return list(accesses(record[start:]))


class Reach:
    """What the reduction has worked out of one run's records: its regular
    sections so far, each worked out once (as the node after its acquire is
    made, see :func:`opened`, or once the run is over), and what stands for
    each object met (see :func:`_name`), the same in the whole run."""

    def __init__(self) -> None:
        #: The regular sections worked out, by the index of their acquire.
        self.sections: dict[int, Section] = {}
        #: What each class of object reached stands for (see :meth:`_about`).
        self._kinds: dict[type, tuple[bool, bool, Name | None, tuple[tuple[int, Name], ...]]] = {}
        #: What stands for each class and dict reached, by id (the run's
        #: records hold them: ids are not reused while it lasts).
        self._names: dict[int, Name] = {}

    @typing.no_type_check  # (see _name)
    def section(self, thread: int, key: str, first: int, reached: Iterable[Access]) -> Section:
        """The regular section *thread*'s acquire of *key* at index *first*
        opened, in which the thread *reached* these accesses.

        An item of an instance's ``__dict__`` (``vars(obj)[name]``) is noted
        as the dict's, whether or not its owner is known: an attribute notes
        its object's ``__dict__`` too (by id), and a plain dict's name meets
        every instance's attribute (by kind, see :data:`_ANY_INSTANCE`)."""
        section = self.sections[first] = Section(thread, key, first)
        objects, kinds = section.objects, section.kinds
        for site, target, name, write, _ in reached:
            kind = type(target)
            about = self._kinds[kind] if kind in self._kinds else None
            if about is None:
                about = self._kinds[kind] = self._about(kind)
            skip, unwatched, named, classes = about
            if skip:
                continue  # a primitive (or its twin): its calls are steps
            write = write or unwatched
            if named is None:  # a class or a dict: named by itself
                named = self._names[id(target)] if id(target) in self._names else None
                if named is None:
                    named = self._names[id(target)] = _name(target)
            if name is not None and kind is dict and is_item(site):
                _item(section, target, name, write, named)
                continue
            _note(objects, id(target), write)
            _note(kinds, named, write)
            if name is not None and not is_item(site) and classes:
                # An attribute is an item of the object's __dict__ too (reached
                # as one by ``vars(obj)[name]``), and reading it reads its classes.
                namespace = namespace_of(target)
                if namespace is not None:
                    _note(objects, id(namespace), write)
                section.attribute = section.attribute or write
                _note(section.names, name, write)
                for klass, named in classes:
                    _note(objects, klass, False)
                    _note(kinds, named, False)
        return section

    @staticmethod
    @typing.no_type_check  # (see _name)
    def _about(kind: type) -> tuple[bool, bool, Name | None, tuple[tuple[int, Name], ...]]:
        """What an object of class *kind* stands for: whether it is left out
        (a primitive, whose calls are steps); whether any access of it may
        write it (the methods of threading's or weakref's classes are not
        watched); its name, unless named by itself (a class, a dict: see
        :func:`_name`); and, when its attributes are an instance's, its
        classes' ids and names (reading an attribute reads them too)."""
        module = _module(kind)
        if kind in REAL_KINDS or module.partition(".")[0] == "blanket":
            return True, False, None, ()
        if issubclass(kind, type) or kind is dict:  # (a dict's name is a global's)
            return False, module in _UNWATCHED, None, ()
        classes = tuple((id(klass), _name(klass))
                        for klass in type.__getattribute__(kind, "__mro__"))
        return False, module in _UNWATCHED, _name_of_class(kind), classes


@typing.no_type_check  # (see _name)
def _item(section: Section, target: dict[Any, Any], key: object, write: bool,
          named: Name) -> None:
    """Note in *section* an access of the item *key* of the dict *target*
    (whose kind is *named*), or of its keys (:data:`~blanket.exploration.sites.KEYS`)."""
    _note(section.objects, (id(target), key), write)
    _note(section.keyed, id(target), write)
    _note(section.kinds, _item_name(f"{named[0]} {named[1]}", key), write)
    _note(section.items, named, write)
    if type(key) is str and named == _ANY_INSTANCE:
        _note(section.named_items, key, write)


def _item_name(dict_name: str, key: object) -> Name:
    """What stands for the item *key* of a dict of kind *dict_name* (or
    its keys) when two runs' sections are compared: the key by value
    (``True`` is ``1``)."""
    return ("item of", dict_name, repr(int(key)) if isinstance(key, int) else repr(key))


_UNWATCHED = frozenset({*NEVER, "threading", "_threading_local"})

#: An object as sections of two runs are compared (see :func:`_name`).
Name = tuple[str, str, str]

#: What a dict stands for when it may be an instance's ``__dict__``: it
#: meets every instance's attribute (see :meth:`Section.meets`).
_ANY_INSTANCE: Name = ("any instance", "", "")


# (typeguard stays off these: its check of an object the threads reached would
# ask the object itself, whose own __getattribute__ may be watched code, which
# would record, in the thread making the choice, as its record is read.)
@typing.no_type_check
def _name(target: object) -> Name:
    """What stands for *target*, a class or a dict, when two runs' sections
    are compared: not its id (each run makes its objects anew) but its kind,
    the same in every run: a class by its own name, a module's globals by the
    module's. A plain dict that is no module's globals may be an instance's
    ``__dict__`` (``vars(obj)`` handed over): it is :data:`_ANY_INSTANCE`.
    Any other object stands for its class (:func:`_name_of_class`). (Nothing
    here asks the object itself: its own ``__getattribute__`` is watched
    code, which would record as it is read.)"""
    if type(target) is not dict:
        return ("class", _module(target), _type_attribute(target, "__qualname__"))
    module = dict.get(cast(dict[str, object], target), "__name__")
    # (Its __dict__ as the object holds it: a module's class may have its own
    # __getattribute__, a lazy module's taking a lock the run parks at.)
    if type(module) is str and namespace_of(sys.modules.get(module)) is target:
        return ("globals", module, "")
    return _ANY_INSTANCE


@typing.no_type_check  # (see _name)
def _name_of_class(kind: type) -> Name:
    """What stands for an object of class *kind* (neither a class nor a
    dict, see :func:`_name`): its class (two objects of one class are one,
    which can only make more sections conflict)."""
    return ("of", _module(kind), _type_attribute(kind, "__qualname__"))


@typing.no_type_check  # (see _name)
def _type_attribute(kind: object, name: str) -> str:
    """*kind*'s *name* (a class's), its metaclass's own lookup left out."""
    return str(type.__getattribute__(kind, name))


@typing.no_type_check  # (see _name)
def _module(kind: object) -> str:
    """The module *kind* (a class) was made in."""
    return _type_attribute(kind, "__module__")


def _note(reached: dict[T, bool], target: T, write: bool) -> None:
    reached[target] = write or (target in reached and reached[target])


def opened(run: Run, options: list[Option]) -> Section | None:
    """The regular section *run*'s last step opened, as far as the run has
    gone: that step a plain acquire whose thread's call now is the release
    of the same lock (nothing between), with what the thread reached in it;
    ``None`` otherwise."""
    first = len(run.trace) - 1  # (a step was taken: a node is made after it)
    if not _opens(run.kinds[first], run.trace[first]):
        return None
    thread, key, _ = run.trace[first]
    if not any(o.thread == thread and o.key == key and step_kind(o) == RELEASE
               for o in options):
        return None
    reached = [access for number, record in run.records() if number == thread
               for access in _during(record, first)]
    section: Section = reach_of(run).section(thread, key, first, reached)
    return section
