"""Which calls into C code are accesses, and of what: a method of a C type
called on a mutable object (``shared.append(x)``, ``od.move_to_end(k)``, a
bound method stored earlier), and the C functions that take the object they
access as an argument (``heapq.heappush(heap, x)``, ``next(it)``,
``len(x)``, ``setattr(obj, name, v)``, ``exec(code, namespace)``).

A C method is looked up the way the call finds it: along the type's MRO,
so a subclass (``OrderedDict``, ``defaultdict``, ``Counter``, a class of the
user's) shares its base's entry. The table (``WRITES``) is keyed by the
method itself, the descriptor found on the C type that defines it: a method
of a known type (``list``, ``dict``, ``set``, ``deque``, ``OrderedDict``,
``defaultdict``, ``bytearray``, ``array.array``, ``queue.SimpleQueue``) is a
write when it changes its object and a read otherwise; a method of any other
C type is a write, since blanket cannot know what it does. A method of an
immutable type (``str``, ``int``, ``tuple``, ...) and calls on immutable
objects, classes, modules and primitives (a real ``Lock``'s calls are its
twin's steps, see :mod:`blanket.exploration.realprims`) are never accesses.

Each load of a method for a call (:class:`MethodSite`), each loop's
``iter()`` (:class:`IterSite`: a read of a mutable container at each step)
and each call (:class:`CallSite`) of watched code is a site; a call's site also hands the
call's callable on to ``blanket.exploration.sites.call_target``.
"""

from __future__ import annotations

import _abc  # type: ignore[import-not-found]
import array
import bisect
import collections
import datetime
import functools
import heapq
import operator
import queue
import re
import types
import typing
from collections.abc import Iterator
from typing import Any

from .realprims import REAL_KINDS
from .sites import (
    SETTLED,
    Site,
    call_target,
    changes_keys,
    method_of,
    record,
    record_keys,
    threads_own,
    watched_first,
)

_C_METHODS = (types.MethodDescriptorType, types.WrapperDescriptorType)

#: The types whose objects never change: calls on them are never accesses
#: (classes and modules too: see :func:`shared`).
IMMUTABLE: frozenset[type] = frozenset({
    str, bytes, int, float, complex, bool, tuple, frozenset, type(None), range, slice,
    type(...), type(NotImplemented), types.ModuleType, types.FunctionType,
    types.BuiltinFunctionType, types.MethodType, types.MethodWrapperType, types.CodeType,
    *_C_METHODS, property, staticmethod, classmethod,
    # C types of the standard library whose objects never change either (a
    # datetime's replace() makes another; a compiled pattern's match() too;
    # a slot's or a getset's descriptor, whose __get__ inspect.getattr_static
    # calls at every isinstance() of a runtime-checkable protocol, 3.12 on).
    datetime.date, datetime.time, datetime.datetime, datetime.timedelta, datetime.timezone,
    re.Pattern, re.Match, types.GetSetDescriptorType, types.MemberDescriptorType})
# The values that have no attributes to set: getattr and setattr on a
# module, a class or a function reach attributes that threads may share.
_VALUES: frozenset[type] = frozenset({
    str, bytes, int, float, complex, bool, tuple, frozenset, type(None), range, slice})

# What calls are never accesses of: immutable objects, and the primitives
# (a real one's calls are its twin's steps, see blanket.exploration.realprims).
_NEVER = IMMUTABLE | frozenset(REAL_KINDS)

_COMMON = ("__init__", "__setitem__", "__delitem__", "clear")
_SEQUENCE = (*_COMMON, "append", "extend", "insert", "pop", "remove", "reverse",
             "__iadd__", "__imul__")
_MAPPING = (*_COMMON, "pop", "popitem", "update", "setdefault", "__ior__")
# The methods that change their object, per C type; the type's other
# methods read it.
_CHANGING: dict[type, tuple[str, ...]] = {
    list: (*_SEQUENCE, "sort"),
    dict: _MAPPING,
    collections.OrderedDict: (*_MAPPING, "move_to_end"),
    collections.defaultdict: (*_MAPPING, "__missing__"),
    set: (*_COMMON, "add", "discard", "remove", "pop", "update", "difference_update",
          "intersection_update", "symmetric_difference_update", "__ior__", "__iand__",
          "__isub__", "__ixor__"),
    collections.deque: (*_SEQUENCE, "appendleft", "extendleft", "popleft", "rotate"),
    bytearray: _SEQUENCE,
    array.array: (*_SEQUENCE, "byteswap", "frombytes", "fromfile", "fromlist",
                  "fromunicode"),
    queue.SimpleQueue: ("put", "put_nowait", "get", "get_nowait"),
    object: ("__setattr__", "__delattr__", "__init__"),
}

#: Whether each method of a known C type changes its object, keyed by the
#: method (the descriptor in its type's ``__dict__``).
WRITES: dict[object, bool] = {
    method: name in changing
    for kind, changing in _CHANGING.items()
    for name, method in vars(kind).items() if isinstance(method, _C_METHODS)}
# object's other methods read nothing an object's state holds.
_NOT_ACCESSES = frozenset(method for method, write in WRITES.items()
                          if getattr(method, "__objclass__", None) is object and not write)
_GET_ITEM = vars(dict)["__getitem__"]


@typing.no_type_check  # (typeguard stays off it: it runs at every access)
def shared(target: object) -> bool:
    """Whether a call on *target* can change or see a change of it: not an
    immutable object, a class, a module or a primitive."""
    kind = type(target)
    return kind not in _NEVER and not issubclass(kind, type)


@functools.cache
def method_kind(kind: type, name: str, past_python: bool = False) -> bool | None:
    """Whether calling the method *name* of an object of type *kind* writes
    it (``True``) or reads it (``False``); ``None`` when the method found is
    not a C method of a mutable type (a Python function, say). With
    *past_python*, a Python function of that name is passed over for the C
    method it overrides (the call is known to be a C one: a bound method, or
    ``super()``'s)."""
    if kind in _NEVER or issubclass(kind, type):
        return None
    for klass in kind.__mro__:
        method = vars(klass).get(name)
        if method is None:
            continue
        if not isinstance(method, _C_METHODS):
            if past_python and isinstance(method, types.FunctionType):
                continue
            return None
        if method in _NOT_ACCESSES or method.__objclass__ in IMMUTABLE:
            return None
        if method is _GET_ITEM:  # a defaultdict makes the items it misses
            return issubclass(kind, collections.defaultdict)
        return WRITES.get(method, True)
    return None


class MethodSite(Site):
    """The load of a method to call it (``shared.append``,
    ``super().__setitem__``): a C method's call is an access of the whole
    object (:func:`method_kind`), anything else an attribute read. A Python
    method not watched yet is watched first, so that this very call runs
    watched code: on 3.11 and 3.12 the call's own site sees ``self`` where
    the method's function is (see ``_callees`` in ``blanket.exploration.rewrite``),
    and a library's method a thread met first ran unwatched in that run (a
    real ``Condition`` it waited on, a stall of three timeouts)."""

    __slots__ = ("_cache", "_past_python")

    def __init__(self, name: str, function: str, file: str, line: int | None,
                 scope: dict[str, Any], past_python: bool = False) -> None:
        super().__init__(False, name, 1, function, file, line, scope)
        # The last type met, its method's kind and its Python function: one
        # tuple, replaced whole, so that threads running the site at once
        # read a consistent one.
        self._cache: tuple[type | None, bool | None, Any] = (None, None, None)
        self._past_python = past_python

    @typing.no_type_check  # (typeguard stays off it: it runs at every load)
    def hit(self, target: object, _settled: Any = SETTLED) -> None:
        """Record the access: to the whole object, or to the attribute."""
        kind = type(target)
        cached = self._cache
        if cached[0] is not kind:
            cached = self._cache = (kind, method_kind(kind, self.name, self._past_python),
                                    method_of(kind, self.name))
        if cached[1] is None:
            record(self, target, self.name, False)
            function = cached[2]
            if function is not None and id(function.__code__) not in _settled:
                watched_first(function)
        else:
            record(self, target, None, cached[1])


#: The method of the object's type each subscript instruction runs.
ITEM_HOOKS = {"BINARY_SUBSCR": "__getitem__", "STORE_SUBSCR": "__setitem__",
              "DELETE_SUBSCR": "__delitem__"}


#: The types of the dict keys an access records (see :class:`ItemSite`).
KEYED = frozenset({str, int, bool, bytes})


class ItemSite(Site):
    """``container[key]``, ``container[key] = v``, ``del container[key]``:
    an access of the container (a read of a ``defaultdict``'s item is a
    write: it makes the item it misses). A dict's key is recorded too when
    it is a ``str``, an ``int`` or ``bytes`` (:data:`KEYED`: its hash and
    ``==`` run no code of the program's, in the thread's bookkeeping or the
    search's), so that an instance's ``__dict__`` item meets the attribute,
    and two keys' items are two pieces of state; a write that adds or
    removes a key writes the dict's keys too (see
    :func:`~blanket.exploration.sites.record_keys`,
    :func:`blanket.exploration.races.find` and
    ``blanket.exploration.sections``). Where the object's type runs
    Python code for it instead (its own ``__getitem__``, ``__setitem__`` or
    ``__delitem__``: a cache class's, under its lock), that code, watched
    first, makes the accesses itself: recorded here too, the subscript
    would race with what the code guards."""

    __slots__ = ("_hook", "_cache")

    def __init__(self, hook: str, write: bool, function: str, file: str, line: int | None,
                 scope: dict[str, Any]) -> None:
        super().__init__(write, None, 2, function, file, line, scope)
        self._hook = hook
        # The last type met, whether the access writes, and the Python
        # function the type runs for it, if any: one tuple, replaced whole.
        self._cache: tuple[type | None, bool, Any] = (None, write, None)

    @typing.no_type_check  # (typeguard stays off it: it runs at every subscript)
    def hit(self, target: object, key: object = None, _settled: Any = SETTLED) -> None:
        """Record the read (or the write) of the container."""
        kind = type(target)
        cached = self._cache
        if cached[0] is not kind:
            cached = self._cache = (kind, self.write or method_kind(kind, "__getitem__") is True,
                                    method_of(kind, self._hook))
        function = cached[2]
        if function is None:
            if kind is not dict or type(key) not in KEYED:
                record(self, target, None, cached[1])
                return
            # (asked before the instruction runs)
            if cached[1] and (key in target) is (self._hook == "__delitem__"):
                record_keys(self, target)  # a key added or removed
            record(self, target, key, cached[1])
        elif id(function.__code__) not in _settled:
            watched_first(function)


class ContainsSite(Site):
    """``key in container`` (or ``not in``): a read of the container; of a
    dict's item when its key is :data:`KEYED`, as a subscript's read is
    (:class:`ItemSite`): whether the key is there is the item's, which what
    adds or removes the key writes. (Named as a subscript is: an item's,
    its key the name it records.)"""

    __slots__ = ()

    def __init__(self, function: str, file: str, line: int | None,
                 scope: dict[str, Any]) -> None:
        super().__init__(False, None, 2, function, file, line, scope)

    @typing.no_type_check  # (typeguard stays off it: it runs at every "in")
    def hit(self, target: object, key: object = None) -> None:
        """Record the read of the container (or of the dict's item)."""
        record(self, target, key if type(target) is dict and type(key) in KEYED else None,
               False)


class TruthSite(Site):
    """``if x:``, ``not x``, ``x and y``, ``while x:``: a test of the
    object's truth, a read of it where a C method of a mutable type answers
    it (a container's ``__len__``: ``if not items`` sees another thread's
    ``items.append``). Another object's ``__bool__`` or ``__len__`` is
    Python code, watched, or none (always true)."""

    __slots__ = ("_cache",)

    def __init__(self, function: str, file: str, line: int | None,
                 scope: dict[str, Any]) -> None:
        super().__init__(False, None, 1, function, file, line, scope)
        self._cache: tuple[type | None, bool] = (None, False)

    @typing.no_type_check  # (typeguard stays off it: it runs at every truth test)
    def hit(self, target: object) -> None:
        """Record the read of *target*, if its truth is its state's."""
        kind = type(target)
        cached = self._cache
        if cached[0] is not kind:
            cached = self._cache = (kind, method_kind(kind, "__len__") is False
                                    or method_kind(kind, "__bool__") is False)
        if cached[1]:
            record(self, target, None, False)


# The containers whose iterator reads them again at each step: a ``for``
# loop over one sees what another thread changed between two steps.
_STEPPED = (list, dict, set, collections.deque, bytearray, array.array)


class IterSite(Site):
    """``iter()`` of what a ``for`` loop (or ``in`` a comprehension) goes
    over: a read of it; over a mutable container (``list``, ``dict``,
    ``set``, ``deque``, ``bytearray``, ``array``, or a subclass), a read
    before each step, for the loop sees what another thread changes
    between two steps (a ``remove`` there skips an item: logging's
    ``callHandlers`` against ``removeHandler``)."""

    __slots__ = ("_cache",)

    def __init__(self, function: str, file: str, line: int | None,
                 scope: dict[str, Any]) -> None:
        super().__init__(False, None, 1, function, file, line, scope)
        self._cache: tuple[type | None, bool] = (None, False)

    @typing.no_type_check  # (typeguard stays off it: it runs at every loop)
    def iterate(self, iterable: object) -> object:
        """What the loop goes over instead of *iterable*: its steps, each
        recorded, for a mutable container; else *iterable*, its read
        recorded once."""
        kind = type(iterable)
        cached = self._cache
        if cached[0] is not kind:
            cached = self._cache = (kind, issubclass(kind, _STEPPED))
        if cached[1]:
            return _steps(self, iterable)
        record(self, iterable, None, False)
        return iterable


def _steps(site: IterSite, container: object) -> Iterator[object]:
    """The items of *container*, a read of it recorded before each step
    (the last one, which finds no more, too)."""
    step = iter(container).__next__  # type: ignore[call-overload]
    while True:
        record(site, container, None, False)
        try:
            item = step()
        except StopIteration:
            return
        yield item


_NONE = object()  # an argument the call does not pass


def _whole(write: bool) -> Any:
    @typing.no_type_check  # (typeguard stays off it: it runs at every such call)
    def access(site: CallSite, first: object, second: object) -> None:
        if first is not _NONE and shared(first):
            record(site, first, None, write)
    return access


def _attribute(write: bool, removes: bool = False) -> Any:
    """``getattr(x, name)``, ``setattr(x, name, v)`` (*write*),
    ``delattr(x, name)`` (*removes*): an access of the attribute (a write
    that adds or removes it: of the object's keys too, see
    :func:`~blanket.exploration.sites.record_keys`)."""
    @typing.no_type_check  # (typeguard stays off it: it runs at every such call)
    def access(site: CallSite, first: object, second: object) -> None:
        if type(second) is str and type(first) not in _VALUES and \
                not threads_own(type(first)):
            if write and changes_keys(first, second, removes):
                record_keys(site, first, second)
            else:
                record(site, first, second, write)
    return access


def _class(one: bool) -> Any:
    """``type(x)`` (*one* argument), ``isinstance(x, C)``: a read of ``x.__class__``."""
    @typing.no_type_check  # (typeguard stays off it: it runs at every such call)
    def access(site: CallSite, first: object, second: object) -> None:
        if first is not _NONE and shared(first) and (second is _NONE or not one):
            record(site, first, "__class__", False)
    return access


def _namespace(write: bool) -> Any:
    @typing.no_type_check  # (typeguard stays off it: it runs at every such call)
    def access(site: CallSite, first: object, second: object) -> None:
        namespace = second if issubclass(type(second), dict) else site.scope
        record(site, namespace, None, write)
    return access


_READ_FIRST = (len, sorted, list, tuple, set, frozenset, dict, bytes, bytearray, sum, min,
               max, any, all, bool, reversed, enumerate, iter, repr, str, bisect.bisect,
               bisect.bisect_left, bisect.bisect_right, operator.getitem,
               operator.contains, operator.countOf, operator.indexOf,
               operator.length_hint, collections.deque, collections.OrderedDict, print,
               format, ascii, vars, dir)
# C functions that look at no object's state: not accesses of their arguments.
_NO_ACCESS = frozenset(id(function) for function in (
    id, hash, callable, issubclass, abs, round, divmod, pow, hex, oct, bin, chr, ord,
    _abc._abc_instancecheck, _abc._abc_subclasscheck))
_WRITE_FIRST = (next, heapq.heappush, heapq.heappop, heapq.heapify, heapq.heapreplace,
                heapq.heappushpop, bisect.insort, bisect.insort_left, bisect.insort_right,
                operator.setitem, operator.delitem)
#: The C functions whose arguments are what they access, by id: how each
#: records its access from its first two arguments (the callables kept too,
#: so that their ids stay theirs).
ARGUMENTS: dict[int, tuple[object, Any]] = {
    id(function): (function, handler) for function, handler in (
        *((function, _whole(False)) for function in _READ_FIRST),
        *((function, _whole(True)) for function in _WRITE_FIRST),
        (getattr, _attribute(False)), (hasattr, _attribute(False)),
        (setattr, _attribute(True)), (delattr, _attribute(True, removes=True)),
        (object.__getattribute__, _attribute(False)),
        (object.__setattr__, _attribute(True)),
        (object.__delattr__, _attribute(True, removes=True)),
        (type, _class(True)), (isinstance, _class(False)),
        (exec, _namespace(True)), (eval, _namespace(False)))}
# The callables a call site looks at: C functions and methods, and classes.
_C_CALLABLES = frozenset({types.BuiltinFunctionType, types.MethodWrapperType, type,
                          *_C_METHODS})
#: The C types whose instances' calls access their first argument: how
#: each records it (``operator.itemgetter(0)(x)`` reads ``x``;
#: ``operator.methodcaller("append", 1)(x)`` may change it).
CALLERS: dict[type, Any] = {operator.itemgetter: _whole(False),
                            operator.attrgetter: _whole(False),
                            operator.methodcaller: _whole(True)}


class CallSite(Site):
    """A call of watched code: a call into C code is an access of the object
    the C code works on (a bound C method's, or an argument's: see
    ``ARGUMENTS``). Its :meth:`target` runs before the call, with the
    callable and the call's first two positional arguments when it has them."""

    __slots__ = ()

    def __init__(self, function: str, file: str, line: int | None,
                 scope: dict[str, Any]) -> None:
        super().__init__(False, None, 1, function, file, line, scope)

    @typing.no_type_check  # (typeguard stays off it: it runs at every call)
    def target(self, callee: object, first: object = _NONE, second: object = _NONE,
               _c: Any = _C_CALLABLES, _type: Any = type, _target: Any = call_target
               ) -> object:
        """What the call calls (``blanket.exploration.sites.call_target``'s
        answer), once a call into C code has recorded its access."""
        kind = _type(callee)
        if kind in _c:
            self._c_call(callee, first, second)
        elif kind in CALLERS:
            CALLERS[kind](self, first, second)
        return _target(callee)

    @typing.no_type_check  # (typeguard stays off it: it runs at every access)
    def _c_call(self, callee: Any, first: object, second: object) -> None:
        entry = ARGUMENTS[id(callee)] if id(callee) in ARGUMENTS else None
        if entry is not None and entry[0] is callee:
            entry[1](self, first, second)
            return
        owner = getattr(callee, "__self__", None)
        if owner is None or type(owner) is types.ModuleType:
            # A C function of a module (``_collections._count_elements(self,
            # words)``, what Counter.update calls) not in the table: blanket
            # cannot know what it does with its arguments, so it writes them.
            if type(callee) is types.BuiltinFunctionType and id(callee) not in _NO_ACCESS:
                for argument in (first, second):
                    if argument is not _NONE and shared(argument):
                        record(self, argument, None, True)
            return
        if not shared(owner):
            return
        kind: type = type(owner)
        write = method_kind(kind, callee.__name__, True)
        if write is not None:
            record(self, owner, None, write)
