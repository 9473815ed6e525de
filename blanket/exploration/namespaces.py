"""Where the Python functions a name stands for are found: the functions a
thread's target or an ``instrument`` argument names, those a running
frame's code belongs to, and the C wrapper a function is kept in.

Only namespaces are read (a module's globals, a class's ``__dict__``, an
instance's dict), never an attribute: a module's ``__getattr__``, a
property or a lazy attribute (``six.moves``) would run code, or import
what it stands for, for blanket's look.
"""

from __future__ import annotations

import functools
import gc
import types
import typing
from collections.abc import Iterable, Iterator
from typing import Any

from .sites import opaque


def functions_in(target: object) -> Iterator[types.FunctionType]:
    """The Python functions *target* names (a ``functools.partial``'s; a
    callable instance's ``__call__``).

    Only the types of values and namespaces are read, never an attribute a
    class or module could compute: a module's ``__getattr__`` or a lazy
    attribute (``six.moves``) would import what it stands for."""
    while type(target) is functools.partial:  # not a primitive's SwitchedMethod
        target = target.func
    if type(target) in (types.MethodType, staticmethod, classmethod):
        target = target.__func__  # type: ignore[attr-defined]
    if type(target) is types.FunctionType:
        yield target
    elif isinstance(target, type):
        for value in vars(target).values():
            yield from (v for v in _members(value) if type(v) is types.FunctionType)
    elif isinstance(target, types.ModuleType):
        name = vars(target).get("__name__")
        for value in list(vars(target).values()):
            if isinstance(value, type):
                if vars(value).get("__module__") == name:
                    yield from functions_in(value)
                continue
            # (a function, or one a C wrapper keeps: an lru_cache's)
            yield from (f for f in _members(value)
                        if type(f) is types.FunctionType and f.__module__ == name)
    else:  # a callable instance (a Mock, a locked wrapper): its type's __call__ runs
        # (a callable's type or a base has __call__: a C type's slot is there too)
        for owner in type(target).__mro__:  # pragma: no branch
            if "__call__" in vars(owner):
                yield from (f for f in _members(vars(owner)["__call__"])
                            if type(f) is types.FunctionType)
                break


def functions_of(frame: types.FrameType) -> list[types.FunctionType]:
    """The functions whose code *frame* runs: found by the code's qualified
    name in its module (a method, a property's getter), else among the
    caller's variables (a callback), else among every object (the garbage
    collector's referrers of the code: once per code object, and not on
    3.13t, where it does not list functions)."""
    code = frame.f_code
    found: dict[types.FunctionType, None] = {}

    def take(values: Iterable[object]) -> None:
        for value in values:
            if type(value) in (types.FunctionType, types.MethodType, functools.partial):
                found.update((f, None) for f in functions_in(value) if f.__code__ is code)

    take(_members(_by_name(code, frame.f_globals)))
    if not found and frame.f_back is not None:
        take(list(frame.f_back.f_locals.values()))
    if not found:
        take(gc.get_referrers(code))
    return list(found)


def _by_name(code: types.CodeType, scope: dict[str, Any]) -> object:
    """What *scope* (a module's globals) holds under *code*'s qualified
    name: the function, or what wraps it (a property, an ``lru_cache``'s
    wrapper); ``None`` for a function defined in another's body. Only the
    namespaces of the module and its classes are read, never an attribute."""
    names = code.co_qualname.split(".")
    if "<locals>" in names:
        return None
    value = scope.get(names[0])
    for name in names[1:]:
        value = vars(value).get(_mangled(name, value)) if isinstance(value, type) else None
    return value


def wrapper(function: types.FunctionType) -> object:
    """The instance of a C type blanket knows nothing of that *function* is
    found wrapped in, by its name in its module (``functools.lru_cache``'s
    wrapper: ``@functools.cache`` on a function or a method), or ``None``:
    the C code that calls it, and keeps its own state."""
    found = _by_name(function.__code__, function.__globals__)
    if type(found) in (staticmethod, classmethod):
        found = found.__func__  # type: ignore[attr-defined]
    if found is function or found is None or not opaque(found):
        return None
    try:
        namespace = object.__getattribute__(found, "__dict__")
    except AttributeError:  # (slots only)
        return None
    return found if namespace.get("__wrapped__") is function else None


def _mangled(name: str, owner: type) -> str:
    """The key of *owner*'s namespace that holds its member *name*: a
    private name (``__touch``) is kept mangled (``_LRUCache__touch``)."""
    if name.startswith("__") and not name.endswith("__") and owner.__name__.strip("_"):
        return f"_{owner.__name__.lstrip('_')}{name}"
    return name


@typing.no_type_check  # (typeguard stays off it: it runs at every entry of a watched namespace)
def _members(value: object) -> list[object]:
    """What a class's namespace entry holds functions in (a property's
    accessors, a static or class method's function, the functions a
    descriptor of another kind keeps in its instance dict: a cached
    property's), or *value* itself."""
    kind = type(value)
    if kind is property or kind is functools.cached_property:
        return [getattr(value, name, None) for name in ("fget", "fset", "fdel", "func")]
    if kind in (staticmethod, classmethod):  # (of a function, or of an lru_cache's wrapper)
        return _members(value.__func__)
    if kind is not types.FunctionType and hasattr(kind, "__get__"):
        try:
            namespace = object.__getattribute__(value, "__dict__")
        except AttributeError:  # (slots only)
            return [value]
        return [value, *(v for v in list(namespace.values()) if type(v) is types.FunctionType)]
    return [value]
