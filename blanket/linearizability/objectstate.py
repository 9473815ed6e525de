"""The state of a specification's object, read: what it holds, and the key
of its state.

:func:`state_key` is the key of an object's state: its type and its
attributes' values, walked through (containers in their order, an object
met twice by its first place, an object returned to the caller by its
number), equal for two objects in the same state; ``None`` when the object
holds what cannot be read (an object of a C type other than the common
containers: an iterator, a C queue, a real lock), whose state is then known
only by the calls that made it. :func:`reachable` lists what an object
holds: what two fresh objects of one factory both hold is shared (a
module's registry), neither's own.
"""

from __future__ import annotations

import collections
import types
from collections.abc import Iterable, Iterator
from typing import Any

#: The longest a state's key may grow (in parts) before the state is taken
#: to be unreadable: walking a larger one after every call costs more than
#: it saves.
MAX_KEY = 200_000

#: Values whose state is their value.
ATOMS = frozenset({type(None), bool, int, str, bytes, type(...), type(NotImplemented)})
#: The containers walked through, by class: what kind of container each is.
_CONTAINERS: dict[type, str] = {
    list: "sequence", tuple: "sequence", collections.deque: "sequence",
    dict: "mapping", collections.OrderedDict: "mapping", collections.defaultdict: "mapping",
    set: "set", frozenset: "set", bytearray: "bytes"}
#: Objects known by which they are: shared by every object a factory makes.
GLOBALS = (type, types.ModuleType, types.BuiltinFunctionType, types.FunctionType,
           types.MethodDescriptorType, types.WrapperDescriptorType)
_HEAP_TYPE = 1 << 9

#: What an instance of a class holds (see :func:`layout`).
Shape = tuple[str | None, tuple[Any, ...], bool]


class _Unset:
    """A slot with no value."""


_layouts: dict[type, Shape | None] = {}


def layout(kind: type) -> Shape | None:
    """What an instance of *kind* holds: the container it is (or ``None``),
    its slots' descriptors, whether it has a ``__dict__``; ``None`` when it
    holds what cannot be read (a class written in C, not a container)."""
    if kind in _layouts:
        return _layouts[kind]
    container: str | None = None
    slots: list[Any] = []
    found: Shape | None = None
    for klass in kind.__mro__:
        if klass is object:
            continue
        if klass in _CONTAINERS:
            container = container or _CONTAINERS[klass]
            continue
        own = vars(klass)
        if not klass.__flags__ & _HEAP_TYPE:
            break  # a C class's own state
        if "__slots__" in own:
            names = [own["__slots__"]] if isinstance(own["__slots__"], str) \
                else list(own["__slots__"])
            for name in names:
                if name not in ("__dict__", "__weakref__"):
                    if name.startswith("__") and not name.endswith("__"):
                        name = f"_{klass.__name__.lstrip('_')}{name}"
                    slots.append(own[name])
        elif "__dict__" not in own \
                and klass.__basicsize__ != (klass.__base__ or object).__basicsize__:
            break  # a class of a C extension, with state of its own
    else:
        found = (container, tuple(slots), kind.__dictoffset__ != 0)
    _layouts[kind] = found
    return found


def _items(value: dict[Any, Any]) -> Iterable[tuple[Any, Any]]:
    """The items of *value*, a dict, in its order as the built-in class it
    derives from keeps it: an ``OrderedDict``'s own (which
    ``move_to_end`` changes), else the dict's. (Not the class's own
    ``items()``: a subclass's may do anything, even raise.)"""
    if isinstance(value, collections.OrderedDict):
        return collections.OrderedDict.items(value)
    return dict.items(value)


def parts(value: Any, shape: Shape) -> Iterator[Any]:
    """What *value* holds, in order: its items, its slots' values, its
    attributes' names and values."""
    container, slots, has_dict = shape
    if container == "sequence":
        yield from value
    elif container == "mapping":
        for key, item in _items(value):
            yield key
            yield item
        if isinstance(value, collections.defaultdict):
            yield value.default_factory
    elif container == "set":
        yield from value
    for slot in slots:
        try:
            yield slot.__get__(value)
        except AttributeError:
            yield _Unset
    if has_dict:
        for name, item in object.__getattribute__(value, "__dict__").items():
            yield name
            yield item


def reachable(obj: Any) -> dict[int, Any]:
    """The objects *obj* holds, walked through as :func:`state_key` does, by id
    (*obj* with them): compared with another fresh object's, those that
    both hold are shared, not either's own."""
    found: dict[int, Any] = {}
    stack = [obj]
    while stack:
        value = stack.pop()
        if type(value) in ATOMS or id(value) in found or isinstance(value, GLOBALS):
            continue
        found[id(value)] = value
        shape = layout(type(value))
        if shape is not None:
            stack.extend(parts(value, shape))
    return found


def state_key(obj: Any, numbers: dict[int, int], known: dict[int, Any]) -> tuple[Any, ...] | None:
    """The key of *obj*'s state (see the module's docstring); *numbers*
    numbers the objects the calls returned (by id), *known* holds what is
    known by which it is (classes, functions, what fresh objects share), by
    id, kept alive so that no other object takes its id. ``None`` when the
    state cannot be read, or is larger than :data:`MAX_KEY`."""
    out: list[Any] = [len(numbers)]
    emit = out.append
    places: dict[int, int] = {}
    stack = [obj]
    pop = stack.pop
    while stack:
        value = pop()
        kind = type(value)
        if kind in ATOMS:
            emit(kind)
            emit(value)
            continue
        if kind is float or kind is complex:  # by their bits: -0.0 is not 0.0
            emit(kind)
            emit(repr(value))
            continue
        ident = id(value)
        if ident in places:  # an object met again: the same one, not an equal one
            emit(_Unset)
            emit(places[ident])
            continue
        places[ident] = len(places)
        if ident in numbers:  # returned to a caller: which one it is counts
            emit(_Unset)
            emit(-numbers[ident])
        if kind is types.BuiltinFunctionType \
                and not isinstance(value.__self__, (types.ModuleType, type(None))):
            emit(kind)  # a C method bound to an object: the object's state counts
            emit(value.__name__)
            stack.append(value.__self__)
            continue
        if ident in known or isinstance(value, GLOBALS):
            known.setdefault(ident, value)
            emit(type)
            emit(ident)
            if kind is types.FunctionType:  # what its closure and defaults hold can change
                stack += [cell.cell_contents if _filled(cell) else _Unset
                          for cell in value.__closure__ or ()]
                stack += (value.__defaults__, value.__kwdefaults__)
            continue
        if kind is types.MethodType:
            emit(kind)
            stack += (value.__self__, value.__func__)
            continue
        shape = _layouts[kind] if kind in _layouts else layout(kind)
        if shape is None or len(out) > MAX_KEY:
            return None
        emit(kind)
        container, slots, has_dict = shape
        held: list[Any] = []
        if container == "bytes":
            emit(bytes(value))
        elif container is not None:  # (inlined: this runs after every call)
            emit(len(value))
            if container == "mapping":
                for item in _items(value):
                    held += item
                if kind is not dict and isinstance(value, collections.defaultdict):
                    held.append(value.default_factory)
            else:
                held += value
                if kind is not list and isinstance(value, collections.deque):
                    emit(value.maxlen)
        for slot in slots:
            try:
                held.append(slot.__get__(value))
            except AttributeError:
                held.append(_Unset)
        if has_dict:
            attributes = object.__getattribute__(value, "__dict__")
            emit(len(attributes))
            for item in attributes.items():
                held += item
        held.reverse()
        stack += held
    return tuple(out) if len(out) <= MAX_KEY else None


def _filled(cell: types.CellType) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True
