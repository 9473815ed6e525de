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
import operator
import sys
import threading
import types
import typing
import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from .places import UNWATCHED, module_path
from .realprims import REAL_KINDS

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


#: The code objects that need no watching by the time they run, by id
#: (each kept alive, so that its id is not reused): the rewritten ones
#: (:class:`~blanket.exploration.watch.Watch` adds each as it installs it)
#: and those never watched (blanket's own, ...).
SETTLED: dict[int, types.CodeType] = {}


@typing.no_type_check
def watched_first(function: types.FunctionType, _settled: Any = SETTLED, _id: Any = id) -> object:
    """A Python function about to be called: watched first, unless its
    code is rewritten already (by the code object's id: the function is
    kept by whoever calls it, and the code by :data:`SETTLED`)."""
    if _id(function.__code__) not in _settled:
        _reach(function)
    return function


@typing.no_type_check
def _method(method: types.MethodType, _real: Any = REAL_KINDS) -> object:
    """A bound method about to be called: a real primitive's is its twin's
    (see :mod:`blanket.exploration.realprims`); else its function is
    watched first."""
    if type(method.__self__) in _real:
        return _adopted("method", method)
    function = method.__func__
    if type(function) is types.FunctionType:
        watched_first(function)
    return method


@typing.no_type_check
def _builtin(builtin: types.BuiltinMethodType, _real: Any = REAL_KINDS) -> object:
    """A builtin about to be called: a real lock's method is its twin's."""
    return builtin if type(builtin.__self__) not in _real else _adopted("method", builtin)


@typing.no_type_check
def _partial(partial: functools.partial[Any]) -> object:
    call_target(partial.func)
    return partial


_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement or type()


@typing.no_type_check
def _class(kind: type) -> object:
    """A class about to be called: its Python ``__new__`` and ``__init__``
    watched first (looked up in its classes' namespaces, not through
    attributes a metaclass might compute)."""
    if not kind.__flags__ & _HEAP_TYPE:  # a builtin type: C code only
        return kind
    for name in ("__new__", "__init__"):
        found = _lookup(kind, name)
        if type(found) is staticmethod:  # __new__
            found = found.__func__
        if type(found) is types.FunctionType:
            watched_first(found)
    return kind


@typing.no_type_check
def _instance(instance: object) -> object:
    """An instance of a class with a Python ``__call__``, about to be called."""
    found = _lookup(type(instance), "__call__")
    if type(found) is types.FunctionType:  # (unless the class changed it since)
        watched_first(found)
    return instance


@typing.no_type_check  # (typeguard stays off it: it runs at every access)
def _same(callee: object) -> object:
    """A callee with no Python code to watch (a builtin, ...)."""
    return callee


def opaque(callee: object) -> bool:
    """Whether *callee* is an instance of a C type blanket knows nothing of
    (see ``_opaque``)."""
    kind = type(callee)
    return (FOLLOW[kind] if kind in FOLLOW else _handler(kind)) is _opaque


@typing.no_type_check
def _unwrapped(callee: staticmethod[Any, Any]) -> object:
    """A static method called as it is: its function is watched first."""
    call_target(callee.__func__)
    return callee


@typing.no_type_check  # (typeguard stays off it: it runs at every such call)
def _opaque(callee: object) -> object:
    """An instance of a C type blanket knows nothing of, about to be
    called (``functools.lru_cache``'s wrapper, ``operator.itemgetter``'s,
    an extension's callable): what its C code does (its own state, the
    objects it reads and changes, the Python code it calls back) is no
    watched code's; the calling thread's watch names it (see
    :meth:`Watch.opaque <blanket.exploration.watch.Watch.opaque>`)."""
    state = _thread_state()
    if state is not None:
        state[1].opaque(callee)
    return callee


def _lookup(kind: type, name: str) -> object:
    """*name* in the namespace of the first of *kind*'s classes that has it."""
    for klass in kind.__mro__:
        found = klass.__dict__.get(name)
        if found is not None:
            return found
    return None


def method_of(kind: type, name: str) -> types.FunctionType | None:
    """The Python function a call of the method *name* of an instance of
    *kind* runs, as its class holds it; None for anything else (a C
    method, a static method, no such attribute)."""
    found = _lookup(kind, name)
    return found if type(found) is types.FunctionType else None


class WrapperEntered:
    """The hook a function wrapped by an instance of a C type blanket knows
    nothing of (``functools.lru_cache``'s wrapper) calls as it starts (see
    :meth:`Watch.install <blanket.exploration.watch.Watch.install>`): C code
    called the wrapper, and whoever called that C code, a watched call site
    (which named it, see ``_opaque``) or C code (``map``, ``sorted``'s
    key), the calling thread's watch names it. (A call of the function
    itself, ``f.__wrapped__()``, is named too: the hook cannot tell it from
    the wrapper's, and a gap named in excess makes no verdict wrong.)"""

    __slots__ = ("wrapper",)

    def __init__(self, wrapper: object) -> None:
        #: The instance of the C type.
        self.wrapper = wrapper

    @typing.no_type_check  # (typeguard stays off it: it runs in the wrapped function)
    def __call__(self) -> None:
        state = _thread_state()
        caller = sys._getframe(2)  # (1: the wrapped function)
        # The target of a managed thread, called by blanket's code, is
        # named as C code by the thread's watch (blanket.exploration.unseen).
        if state is not None and not caller.f_code.co_filename.startswith(UNWATCHED):
            state[1].opaque(self.wrapper, caller)


#: What :func:`call_target` does with a callee, by its exact type: each
#: handler returns what to call instead (the callee itself, its code
#: watched, ...). A type not listed gets one on its callee's first call:
#: a metaclass's classes are classes, an instance's class may have a Python
#: ``__call__``. Other checks before a call add a line here.
FOLLOW: dict[type, Callable[[Any], object]] = {
    types.FunctionType: watched_first, types.MethodType: _method, functools.partial: _partial,
    type: _class, types.BuiltinMethodType: _builtin, types.MethodWrapperType: _same,
    types.WrapperDescriptorType: _same, types.MethodDescriptorType: _same,
    staticmethod: _unwrapped,
    # (weak references: a call reads the reference only; cmp_to_key's keys
    # keep the function, which the comparisons call, watched as it runs)
    weakref.ref: _same, type(functools.cmp_to_key(min)): _same,
    # (operator's getters and method callers: their calls are accesses of
    # their argument, which blanket.exploration.ccalls's call sites record)
    operator.itemgetter: _same, operator.attrgetter: _same, operator.methodcaller: _same}
#: The C types whose callable instances are known: a subclass's are
#: handled as theirs.
_C_KNOWN = frozenset(FOLLOW)


@typing.no_type_check  # (typeguard stays off it: it runs at every call)
def call_target(callee: object, _kind_of: Any = _MAKERS.get, _id: Any = id,
                _follow: Any = FOLLOW.get, _type: Any = type) -> object:
    """What a call in watched code calls instead of *callee*: the adopting
    scenario's maker when *callee* is ``threading``'s, the twin's method
    when it is a bound method of a real primitive, else *callee*, its
    Python code watched first (see :data:`FOLLOW`). (Run before every call
    of watched code: two dictionary look-ups and the callee's type's
    handler; the look-ups of the global names are saved as defaults.)"""
    kind = _kind_of(_id(callee))
    if kind is not None:
        return _maker(kind, callee)
    handler = _follow(_type(callee))
    if handler is None:
        handler = _handler(_type(callee))
    return handler(callee)


def _handler(kind: type) -> Callable[[Any], object]:
    """The handler of callees of type *kind* (a metaclass, a class of
    callable instances, a C type's callable instances, ...), kept in
    :data:`FOLLOW`."""
    if issubclass(kind, type):
        handler: Callable[[Any], object] = _class
    elif type(_lookup(kind, "__call__")) is types.FunctionType:
        handler = _instance
    elif _lookup(kind, "__call__") is None:  # not callable: the call raises
        handler = _same
    else:  # C code: known (a subclass shares its base's handler), or opaque
        handler = next((FOLLOW[base] for base in kind.__mro__[1:] if base in _C_KNOWN), _opaque)
    FOLLOW[kind] = handler
    return handler


@typing.no_type_check  # (typeguard stays off it: it runs at every with)
def use_target(value: object, _type: Any = type, _real: Any = REAL_KINDS) -> object:
    """What watched code uses instead of *value*, which it is about to
    enter (``with``) or load a primitive's method of: the adopting
    scenario's twin when *value* is a real primitive (see
    :mod:`blanket.exploration.realprims`), else *value*."""
    return value if _type(value) not in _real else _adopted("use", value)


@typing.no_type_check  # (typeguard stays off it: it runs at calls of code not watched yet)
def _reach(function: types.FunctionType) -> None:
    """*function*, not watched yet, is about to run in the calling thread:
    its scenario's watch decides (see :meth:`Watch.reached
    <blanket.exploration.watch.Watch.reached>`)."""
    state = _thread_state()
    if state is not None:
        state[1].reached(function)


def _adopting() -> Watch | None:
    """The calling thread's watch, if its scenario adopts and is entered."""
    state = _thread_state()
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

    __slots__ = ("write", "name", "depth", "function", "file", "line", "racy", "scope",
                 "_place")

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
        self._place: str | None = None

    @property
    def where(self) -> str:
        """``file:line`` of the access."""
        return f"{self.file}:{self.line}"

    @property
    @typing.no_type_check  # (typeguard stays off it: it is asked at every parked access)
    def place(self) -> str:
        """``file:line`` of the access as steps name it, the file by its
        module's path (``tests/race_bugs.py:40``, see
        :func:`~blanket.exploration.places.module_path`):
        the same wherever the code is installed, yet two files of one name
        in two packages are told apart."""
        if self._place is None:  # (asked of every site at every run's start)
            self._place = f"{module_path(self.file, self.scope)}:{self.line}"
        return self._place

    @typing.no_type_check  # (typeguard stays off it: it runs at every access)
    def hit(self, target: object) -> None:
        """The access is about to happen to *target*: record it."""
        record(self, target, self.name, self.write)

    def __repr__(self) -> str:
        verb = "write" if self.write else "read"
        return f"<Site {verb} {self.name or 'item'} at {self.where}>"


#: The method of the object's type each attribute instruction runs.
ATTRIBUTE_HOOKS = {"LOAD_ATTR": "__getattribute__", "STORE_ATTR": "__setattr__",
                   "DELETE_ATTR": "__delattr__"}
# What a data descriptor runs for each hook.
_DESCRIPTOR_HOOKS = {"__getattribute__": "__get__", "__setattr__": "__set__",
                     "__delattr__": "__delete__"}


class AttributeSite(Site):
    """``obj.name`` read, set or deleted: an access of the attribute, unless
    the object's type runs Python code for it instead (its own
    ``__getattribute__``, ``__setattr__`` or ``__delattr__``, a property, a
    data descriptor written in Python). That code is watched and makes the
    accesses itself (a lazy module's ``__getattribute__`` taking its lock
    first); recorded here too, the access would race with what the code
    guards. What the instruction itself reads then is the object's type: a
    read of its ``__class__`` (which a lazy module swaps). The attributes
    of a ``threading.local`` are each thread's own: no access is recorded
    (their names may even differ from run to run: a flag named by an
    ``id()``)."""

    __slots__ = ("_hook", "_cache", "_removes")

    def __init__(self, hook: str, name: str, function: str, file: str, line: int | None,
                 scope: dict[str, Any]) -> None:
        super().__init__(hook != "__getattribute__", name, 1, function, file, line, scope)
        self._hook = hook
        self._removes = hook == "__delattr__"
        # The last type met, what the access reaches (the attribute, the
        # type, nothing shared), and whether a write may add or remove a key
        # of the object's __dict__ (it has one): one tuple, replaced whole
        # (threads may run the site at once).
        self._cache: tuple[type | None, str, bool] = (None, _ATTRIBUTE, False)

    @typing.no_type_check  # (typeguard stays off it: it runs at every access)
    def hit(self, target: object) -> None:
        """Record the access: to the attribute (and, a write that adds or
        removes it, to the keys of the object's ``__dict__``: see
        :func:`record_keys`), or to *target*'s type."""
        kind = type(target)
        cached = self._cache
        if cached[0] is not kind:
            keyed = self.write and not issubclass(kind, type) and \
                type.__getattribute__(kind, "__dictoffset__") != 0
            cached = self._cache = (kind, _THREADS_OWN if threads_own(kind)
                                    else _TYPE if _runs_python(kind, self.name, self._hook)
                                    else _ATTRIBUTE, keyed)
        if cached[1] is _ATTRIBUTE:
            # (asked before the instruction runs)
            if cached[2] and changes_keys(target, self.name, self._removes):
                record_keys(self, target, self.name)
                return
            record(self, target, self.name, self.write)
        elif cached[1] is _TYPE:
            record(self, target, "__class__", False)


@typing.no_type_check  # (typeguard stays off it: it runs at every attribute's write)
def changes_keys(target: object, name: str, removes: bool,
                 _namespace: Any = object.__getattribute__) -> bool:
    """Whether writing *target*'s attribute *name* (deleting it, if
    *removes*) adds (removes) a key of the object's ``__dict__``: asked
    before the write; no when the object has no ``__dict__`` to ask (a
    class's namespace is a read-only proxy, its own ``__dict__`` raises or is
    no dict)."""
    try:
        namespace = _namespace(target, "__dict__")
    except Exception:  # noqa: BLE001 - no instance dict, however it says so
        return False
    return type(namespace) is dict and (name in namespace) is removes


class GlobalSite(Site):
    """``global name; name = v`` or ``del name``: a write of the module's
    global; one that adds or removes the name writes the module's keys too
    (see :func:`record_keys`: which global came first shows in the order of
    the module's ``__dict__``)."""

    __slots__ = ("_removes",)

    def __init__(self, removes: bool, name: str, function: str, file: str,
                 line: int | None, scope: dict[str, Any]) -> None:
        super().__init__(True, name, 0, function, file, line, scope)
        self._removes = removes

    @typing.no_type_check  # (typeguard stays off it: it runs at every global's write)
    def hit(self, target: dict[str, Any]) -> None:
        """Record the write of the global in *target*, the module's globals
        (asked before the instruction runs)."""
        if (self.name in target) is self._removes:
            record_keys(self, target, self.name)
        else:
            record(self, target, self.name, True)


# What an attribute instruction reaches, by the object's type.
_ATTRIBUTE, _TYPE, _THREADS_OWN = "attribute", "type", "the thread's own"


def threads_own(kind: type) -> bool:
    """Whether the attributes of an object of type *kind* are each
    thread's own: a ``threading.local``'s (or a subclass's)."""
    return issubclass(kind, _thread._local)


def _runs_python(kind: type, name: str, hook: str) -> bool:
    """Whether *hook* of an object of type *kind*, for the attribute
    *name*, is Python code: the type's own hook, or a property or another
    data descriptor (a type's, whose instances' attributes live elsewhere)."""
    found = _lookup(kind, hook)
    if type(found) is types.FunctionType:
        return True
    if issubclass(kind, type):  # a class's attributes: its own namespace's
        return False
    descriptor = _lookup(kind, name)
    if type(descriptor) is property:
        return True
    action = _lookup(type(descriptor), _DESCRIPTOR_HOOKS[hook])
    return type(action) is types.FunctionType and (
        _lookup(type(descriptor), "__set__") is not None
        or _lookup(type(descriptor), "__delete__") is not None)


class Keys:
    """What :data:`KEYS` is."""

    def __repr__(self) -> str:
        return "KEYS"


#: What a write of a dict's item that adds or removes a key reaches besides
#: the item: which keys the dict holds, and in what order (see
#: :func:`record_keys`).
KEYS = Keys()

#: What an access reaches in its object: an attribute's name, a dict's key
#: (see :class:`~blanket.exploration.ccalls.ItemSite`) or :data:`KEYS`, or
#: ``None``: the whole object.
Member = str | int | bytes | Keys | None


@typing.no_type_check  # (typeguard stays off it: it runs at every access)
def record(site: Site, target: object, name: Member, write: bool) -> None:
    """Record the access in the calling thread's list; park a racy one."""
    try:
        state = _local.state
    except AttributeError:
        state = _thread_record()
    if state is not None:
        state[0].extend((site, target, name, write, state[1].epoch))
        if site.racy:
            state[1].park(site, target, name, write)


@typing.no_type_check  # (typeguard stays off it: it runs at every new key)
def record_keys(site: Site, target: object, name: Member = None) -> None:
    """Record that *site*'s write of an item of the dict *target* adds or
    removes a key: a write of :data:`KEYS` (the item's own access, recorded
    next, parks if the site does). With *name*, *target* is an object whose
    attribute *name* the write adds or removes: the attribute's write is
    recorded too, and parks (if the site does) as a step that meets, besides
    the attribute's accesses, every other such write on an object of the
    class (which attribute came first shows in the order of ``vars(obj)``;
    see :data:`ADDS`)."""
    try:
        state = _local.state
    except AttributeError:
        state = _thread_record()
    if state is not None:
        epoch = state[1].epoch
        state[0].extend((site, target, KEYS, True, epoch))
        if name is not None:
            state[0].extend((site, target, name, True, epoch))
            if site.racy:
                state[1].park(site, target, name, True, keys=True)


#: ``(site, object, name, write, epoch)``: one access as a thread records it.
Access = tuple[Site, object, Member, bool, int]


def accesses(record: list[Any]) -> Iterator[Access]:
    """The accesses in a thread's flat *record*."""
    items = iter(record)
    return zip(items, items, items, items, items, strict=True)


@typing.no_type_check  # (typeguard stays off it: it runs at every call and with)
def _thread_state() -> tuple[list[Any], Watch] | None:
    """The calling thread's record and watch (``None``: it records nothing)."""
    try:
        return _local.state
    except AttributeError:
        return _thread_record()


def _thread_record() -> tuple[list[Any], Watch] | None:
    """The calling thread's record, made on its first access: threads of a
    scenario that watches record, others (the scheduler) do not."""
    thread = threading.current_thread()
    core = getattr(thread, "_blanket_core", None)
    watch = watches[core] if core in watches else None  # (not get: see blanket.core)
    state = None if watch is None else watch.join(thread)
    _local.state = state
    return state


@typing.no_type_check  # (typeguard's check of *target* would ask the object itself)
def describe(target: object, name: object, site: Site) -> str:
    """What an access reaches, for steps and reports: ``Counter.count``,
    ``module.name`` for a global, ``dict`` for a container, the variable's
    name for a closure's."""
    if name is None or is_item(site):
        return type(target).__name__
    if site.depth < 0:  # a closure's variable
        return name
    if site.depth == 0:
        return f"{site.scope.get('__name__', '?')}.{name}"
    kind = type(target)
    # Asked of the type, never of the object: a module's or an instance's
    # own __getattribute__ (a lazy module's, say) is code under test, and
    # would run inside blanket's bookkeeping.
    if issubclass(kind, type):
        return f"{type.__dict__['__name__'].__get__(target, kind)}.{name}"
    if issubclass(kind, types.ModuleType):
        return f"{object.__getattribute__(target, '__dict__').get('__name__', '?')}.{name}"
    return f"{kind.__name__}.{name}"


@typing.no_type_check  # (typeguard stays off it: it runs at every access recorded)
def is_item(site: Site) -> bool:
    """Whether *site* is a subscript's, whose name is a dict's key (see
    :class:`~blanket.exploration.ccalls.ItemSite`), not an attribute's."""
    return site.name is None and site.depth == 2


#: What marks the :attr:`~blanket.exploration.watch.Memory.reach` of a write that adds or removes an
#: attribute: it meets every other such write on an object of its class.
ADDS = " (added or removed)"
