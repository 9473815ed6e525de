"""Where watched code reports its accesses: one :class:`Site` per watched
instruction, the record each thread keeps of what it reached, and the
check before each call that makes ``threading``'s makers the scenario's.

A site records an access (``Access``) in a list that only its thread
appends to, flat: five items an access, so that recording allocates
nothing the garbage collector tracks. The sites of loads of methods and of
calls, whose accesses depend on what is called (a C method on a mutable
object is an access of the object), are :mod:`blanket.exploration.ccalls`'s.
A racy site parks the access first, as a step (see :meth:`Watch.park
<blanket.exploration.watch.Watch.park>`).
"""

from __future__ import annotations

import _thread
import functools
import os
import threading
import types
import typing
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .realprims import BOUND, REAL_KINDS

if TYPE_CHECKING:  # pragma: no cover
    from .watch import Watch

_local = threading.local()
#: The watch of each entered scenario that has one, by its core.
watches: dict[object, Watch] = {}

# The callables that make threads and primitives, by id (a callee need not
# be hashable): what a call in watched code makes the scenario's own when
# the scenario adopts (see blanket.exploration.adopt).
_MAKERS: dict[int, str] = {
    id(maker): kind for maker, kind in (
        (_thread.allocate_lock, "Lock"), (_thread.RLock, "RLock"),
        *((getattr(threading, kind), kind) for kind in (
            "Thread", "Lock", "RLock", "Condition", "Semaphore", "BoundedSemaphore",
            "Event", "Barrier")))}


@typing.no_type_check  # (typeguard stays off it: it runs at every call)
def call_target(callee: object, _kind_of: Any = _MAKERS.get, _id: Any = id,
                _type: Any = type, _bound: Any = BOUND, _real: Any = REAL_KINDS) -> object:
    """What a call in watched code calls instead of *callee*: the adopting
    scenario's maker when *callee* is ``threading``'s, the twin's method
    when it is a bound method of a real primitive, else *callee*. (Run
    before every call of watched code: a dictionary look-up and a set's;
    the look-ups of the global names are saved as defaults.)"""
    kind = _kind_of(_id(callee))
    if kind is None:
        return callee if _type(callee) not in _bound or _type(callee.__self__) not in _real \
            else _adopted("method", callee)
    return _maker(kind, callee)


@typing.no_type_check  # (typeguard stays off it: it runs at every with)
def use_target(value: object, _type: Any = type, _real: Any = REAL_KINDS) -> object:
    """What watched code uses instead of *value*, which it is about to
    enter (``with``) or load a primitive's method of: the adopting
    scenario's twin when *value* is a real primitive (see
    :mod:`blanket.exploration.realprims`), else *value*."""
    return value if _type(value) not in _real else _adopted("use", value)


def _adopting() -> Watch | None:
    """The calling thread's watch, if its scenario adopts and is entered."""
    try:
        state = _local.state
    except AttributeError:
        state = _thread_record()
    if state is None:
        return None
    watch = state[1]
    return watch if watch.makers and watch.core.regulated else None


def _maker(kind: str, callee: object) -> object:
    """The maker of *kind* of the calling thread's scenario, if it adopts
    and is entered; else *callee* itself."""
    watch = _adopting()
    return callee if watch is None else watch.makers[kind]


def _adopted(how: str, value: object) -> object:
    """What the calling thread's adopting scenario uses instead of the real
    primitive *value* (*how* is ``"use"``) or its bound method
    (``"method"``); *value* itself outside one."""
    watch = _adopting()
    # Code run inside blanket's own bookkeeping (a weakref callback the
    # garbage collector runs there, say) keeps the real one: its calls
    # cannot park while the thread holds the scenario's lock.
    if watch is None or watch.core.lock._is_owned():  # type: ignore[attr-defined]
        return value
    return watch.makers[how](value)


class Site:
    """One watched instruction: what it does and where it is."""

    __slots__ = ("write", "name", "depth", "function", "file", "line", "racy", "scope")

    def __init__(self, write: bool, name: str | None, depth: int, function: str,
                 file: str, line: int | None, scope: dict[str, Any]) -> None:
        #: Whether the access changes what it reaches.
        self.write = write
        #: The attribute or global name; ``None`` for a container access.
        self.name = name
        self.depth = depth
        #: The qualified name of the function the instruction is in.
        self.function = function
        self.file = file
        self.line = line
        #: Whether the access parks first, as a step of the schedule.
        self.racy = False
        self.scope = scope

    @property
    def where(self) -> str:
        """``file:line`` of the access."""
        return f"{self.file}:{self.line}"

    @property
    def place(self) -> str:
        """``file:line`` of the access as steps name it, the file by its
        module's path (``tests/race_bugs.py:40``, see :func:`module_path`):
        the same wherever the code is installed, yet two files of one name
        in two packages are told apart."""
        return f"{module_path(self.file, self.scope)}:{self.line}"

    def hit(self, target: object) -> None:
        """The access is about to happen to *target*: record it."""
        record(self, target, self.name, self.write)

    def __repr__(self) -> str:
        verb = "write" if self.write else "read"
        return f"<Site {verb} {self.name or 'item'} at {self.where}>"


@functools.cache
def _module_path(file: str, module: str) -> str:
    parts = file.replace(os.sep, "/").split("/")
    # One part of the path per part of the module's name; a package's own
    # module (its __init__.py) one more, for the package's folder.
    count = module.count(".") + 1 + (parts[-1].startswith("__init__."))
    return "/".join(parts[-count:])


def module_path(file: str, scope: dict[str, Any]) -> str:
    """The end of *file*'s path that its module's name (*scope*'s
    ``__name__``) spans: ``tests/race_bugs.py`` for the module
    ``tests.race_bugs``, the file's name for a top-level module or a script
    (``python -m package.module`` keeps the module's name in ``__spec__``)."""
    module = str(scope.get("__name__", ""))
    spec = scope.get("__spec__")
    if module == "__main__" and spec is not None:
        module = str(spec.name)
    return _module_path(file, module)


def record(site: Site, target: object, name: str | None, write: bool) -> None:
    """Record the access in the calling thread's list; park a racy one."""
    try:
        state = _local.state
    except AttributeError:
        state = _thread_record()
    if state is not None:
        state[0].extend((site, target, name, write, state[1].epoch))
        if site.racy:
            state[1].park(site, target, name, write)


#: ``(site, object, name, write, epoch)``: one access as a thread records it.
Access = tuple[Site, object, str | None, bool, int]


def accesses(record: list[Any]) -> Iterator[Access]:
    """The accesses in a thread's flat *record*."""
    items = iter(record)
    return zip(items, items, items, items, items, strict=True)


def _thread_record() -> tuple[list[Any], Watch] | None:
    """The calling thread's record, made on its first access: threads of a
    scenario that watches record, others (the scheduler) do not."""
    thread = threading.current_thread()
    watch = watches.get(getattr(thread, "_blanket_core", None))
    state = None if watch is None else watch.join(thread)
    _local.state = state
    return state


def describe(target: object, name: str | None, site: Site) -> str:
    """What an access reaches, for steps and reports: ``Counter.count``,
    ``module.name`` for a global, ``dict`` for a container, the variable's
    name for a closure's."""
    if name is None or is_item(site):
        return type(target).__name__
    if site.depth < 0:  # a closure's variable
        return name
    if site.depth == 0:
        return f"{site.scope.get('__name__', '?')}.{name}"
    if isinstance(target, (type, types.ModuleType)):
        return f"{target.__name__}.{name}"
    return f"{type(target).__name__}.{name}"


def is_item(site: Site) -> bool:
    """Whether *site* is a subscript's, whose name is a dict's key (see
    :class:`~blanket.exploration.ccalls.ItemSite`), not an attribute's."""
    return site.name is None and site.depth == 2


class Memory:
    """The stand-in a racy access parks on: a primitive for the scheduler,
    named by what the access reaches (``Counter.count``); one per place in
    the code (:attr:`where`)."""

    __slots__ = ("_name", "_label", "_real", "where", "__weakref__")
    _kind = "Memory"

    def __init__(self, label: str, where: str) -> None:
        self._name = self._label = label
        self._real = None
        #: The access's :attr:`Site.place` (``"pkg/cache.py:14"``).
        self.where = where

    def __repr__(self) -> str:
        return f"<blanket.Memory {self._name!r} at {self.where}>"
