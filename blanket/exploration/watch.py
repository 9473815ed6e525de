"""Watched code: functions whose accesses to shared state report themselves.

``scenario.instrument(target, ...)`` names the code to watch (functions,
methods, classes, modules); inside an exploration the targets of
``scenario.thread`` are watched too. While the scenario is entered each
watched function runs a rewritten copy of its code object (the original is
put back when the scenario exits): before every attribute, subscript and
global load, store or delete, every ``in`` and every ``iter()``, a call
hands the object about to be accessed to a :class:`~blanket.exploration.sites.Site` (one per
instruction); a closure's variable is its cell. A site records the access
(``Access``) in a list that only its thread appends to, flat: five
items an access, so that recording allocates nothing the garbage collector
tracks. :mod:`blanket.exploration.races` reads the lists once the threads have
finished. A call into C code on a mutable object (a C method, or a C
function given the object) is an access of the object
(:mod:`blanket.exploration.ccalls`).

Before every call, too, the callable is checked (one dictionary look-up
by its id): one of ``threading``'s makers (``Thread``, the primitive
classes, ``_thread.allocate_lock``) becomes the scenario's own when it
adopts (:mod:`blanket.exploration.adopt`).

A site :func:`blanket.explore` found racing is *racy*: there the access first
parks as a call on a :class:`~blanket.exploration.sites.Memory` stand-in, a step the
scheduler chooses like any other (``A: write Counter.count``).

Not watched: local variables, code that is not named,
frames already running when the code was swapped, and threads blanket did
not start.
"""

from __future__ import annotations

import functools
import os
import threading
import types
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ..transaction import CallSpec
from .rewrite import rewrite
from .sites import Memory, Site, describe, watches

if TYPE_CHECKING:  # pragma: no cover
    from ..core import ScenarioCore

#: The folder of blanket's own code (the package, this module's parent's).
BLANKET_FOLDER = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# The files of code never watched: blanket's own, and threading's.
_UNWATCHED = (BLANKET_FOLDER, threading.__file__)


_SPECS = {False: CallSpec("Memory", "read"), True: CallSpec("Memory", "write")}


def _nothing() -> None:
    """The "real call" of a parked access: the access itself runs after."""


class Watch:
    """What one scenario watches, and what its threads recorded."""

    def __init__(self, core: ScenarioCore) -> None:
        self.core = core
        #: The functions to watch while the scenario is entered.
        self.functions: dict[types.FunctionType, None] = {}
        #: Whether the targets of ``scenario.thread`` are watched.
        self.follow_threads = False
        #: The sites where accesses park (set by the exploration).
        self.racy: set[Site] = set()
        #: A replay's racy accesses, by meaning: ``(verb, what, place)``, e.g.
        #: ``("write", "Counter.count", "shop/bank.py:12")``. When given, the sites
        #: at those places park, and only for those accesses.
        self.parks: set[tuple[str, str, str]] = set()
        #: What calls of ``threading``'s makers in watched code make instead,
        #: by kind ("Thread", "Lock", ...); empty unless the scenario adopts
        #: (see :mod:`blanket.exploration.adopt`).
        self.makers: dict[str, Callable[..., Any]] = {}
        #: The exploration's current step, which each access is tagged with.
        self.epoch = -1
        #: Each thread's accesses, in the order threads made their first.
        self.records: list[tuple[threading.Thread, list[Any]]] = []
        self._memory: dict[tuple[str, str], Memory] = {}
        self._installed: list[tuple[types.FunctionType, types.CodeType]] = []
        # The sites made racy while entered, to be put back on exit.
        self._parking: list[Site] = []

    def add(self, *targets: object) -> None:
        """Watch *targets*: functions, methods, classes (their functions) and
        modules (the functions and classes defined in them)."""
        for target in targets:
            functions = list(_functions(target))
            if not functions:
                raise TypeError(
                    f"instrument takes functions, methods, classes and modules; "
                    f"{target!r} has no Python function to watch")
            self._watch(functions)

    def follow(self, target: object) -> None:
        """Watch the Python functions of a thread's *target*, if it has any."""
        self._watch(list(_functions(target)))

    def _watch(self, functions: list[types.FunctionType]) -> None:
        # blanket's own code and threading's are never watched: blanket
        # runs them itself (a thread's target may be a primitive's method).
        new = [f for f in functions if f not in self.functions
               and not f.__code__.co_filename.startswith(_UNWATCHED)]
        self.functions.update(dict.fromkeys(new))
        if watches.get(self.core) is self:  # entered: at once
            self._install(new)

    def install(self) -> None:
        """Swap the rewritten code in (the scenario is being entered)."""
        self.records = []
        self.epoch = -1
        watches[self.core] = self
        self._install(list(self.functions))

    def _install(self, functions: list[types.FunctionType]) -> None:
        for function in functions:
            original = function.__code__
            function.__code__, sites = rewrite(original, function.__globals__)
            self._installed.append((function, original))
            places = {place for _, _, place in self.parks}
            for site in sites:
                site.racy = site in self.racy or site.place in places
                if site.racy:
                    self._parking.append(site)

    def restore(self) -> None:
        """Put every original code object back (the scenario exits)."""
        watches.pop(self.core, None)
        restore = self.makers.get("restore")
        if restore is not None:  # the real primitives twinned, as they were
            restore()  # (see blanket.exploration.realprims)
        while self._installed:
            function, original = self._installed.pop()
            function.__code__ = original
        while self._parking:
            self._parking.pop().racy = False

    def join(self, thread: threading.Thread) -> tuple[list[Any], Watch]:
        """A new list for *thread*'s accesses."""
        record: list[Any] = []
        with self.core.lock:
            self.records.append((thread, record))
        return record, self

    def park(self, site: Site, target: object, name: str | None, write: bool) -> None:
        """Park the access as a call, for the scheduler to let go."""
        label = describe(target, name, site)
        place = site.place
        if self.parks and ("write" if write else "read", label, place) not in self.parks:
            return  # the replay's site, reaching something its schedule does not name
        with self.core.lock:
            memory = self._memory.get((label, place))
            if memory is None:
                memory = self._memory[(label, place)] = Memory(label, place)
        self.core.run(memory, _SPECS[write], (), _nothing)


def _functions(target: object) -> Iterator[types.FunctionType]:
    """The Python functions *target* names (a ``functools.partial``'s)."""
    while type(target) is functools.partial:  # not a primitive's SwitchedMethod
        target = target.func
    target = getattr(target, "__func__", target)
    if isinstance(target, types.FunctionType):
        yield target
    elif isinstance(target, type):
        for value in vars(target).values():
            if isinstance(value, property):
                values = [value.fget, value.fset, value.fdel]
            else:
                values = [getattr(value, "__func__", value)]
            yield from (v for v in values if isinstance(v, types.FunctionType))
    elif isinstance(target, types.ModuleType):
        for value in vars(target).values():
            if getattr(value, "__module__", None) == target.__name__ and \
                    isinstance(value, (type, types.FunctionType)):
                yield from _functions(value)
