"""The operations an audit calls on the object: a method, a property read,
an iteration, a ``with`` block; and what each returns, made a value.

Each is a :class:`blanket.Operation` (so that reports name it as the call it
makes, and a written test spells it with literal arguments:
``Invoke('get', 'a')``). A result is *settled* as the call returns, while
the call is still the one running: an iterator, a generator or a view of
the object (``keys()``) is listed, a list, dict or set the object may go on
changing is copied, and the object itself (``return self``) is
:data:`SELF`. A result compared later must be what the call returned then,
not what the object holds at the end of the run. An exception is compared
by its type only (:func:`typed`): which path raised it, and its message,
do not count, and reports still show it as it was raised.
"""

from __future__ import annotations

import copy
import types
from collections.abc import Iterator, MappingView
from typing import Any

from ..linearizability.operations import Operation


class Self:
    """What a call that returned the object itself returns, as a value."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Self)

    def __hash__(self) -> int:
        return hash(Self)

    def __repr__(self) -> str:
        return "self"


#: The result of a call that returned the object it was called on.
SELF = Self()

#: The containers a result is copied from: the object may go on changing them.
_COPIED = (list, dict, set, bytearray)


def settled(obj: Any, result: Any) -> Any:
    """*result*, returned by a call on *obj*, made a value that the object's
    later calls leave alone."""
    if result is obj:
        return SELF
    if isinstance(result, (Iterator, MappingView, types.GeneratorType)):
        return list(result)  # type: ignore[arg-type]  # (a MappingView is iterable)
    if isinstance(result, _COPIED):
        try:
            return copy.deepcopy(result)
        except Exception:  # noqa: BLE001 - an element that cannot be copied (a lock)
            return copy.copy(result)
    return result


#: Per exception class, the one an audit raises instead (see :func:`typed`).
_TYPED: dict[type[Exception], type[Exception]] = {}


def _shown(error: BaseException) -> str:
    return str(getattr(error, "shown", ""))


def _said(error: BaseException) -> str:
    return str(getattr(error, "said", ""))


def typed(error: Exception) -> Exception:
    """*error* made equal to every exception of its type (as the
    specification compares exceptions: type and arguments): an instance of
    a subclass of its class, of the same name, with no arguments, that
    reads as *error* did. An exception class that cannot be subclassed
    loses its arguments instead."""
    kind = error.__class__
    made = _TYPED.get(kind)
    if made is None:
        try:
            made = type(kind.__name__, (kind,), {
                "__module__": kind.__module__, "__qualname__": kind.__qualname__,
                "__repr__": _shown, "__str__": _said})
        except TypeError:  # (a class written in C that forbids subclasses)
            error.args = ()
            return error
        _TYPED[kind] = made
    twin = made.__new__(made)
    twin.shown = repr(error)  # type: ignore[attr-defined]
    twin.said = str(error)  # type: ignore[attr-defined]
    return twin


class _AuditOperation(Operation):
    """An operation of an audit: its source names its own class, and what
    it raises is compared by its type (:func:`typed`)."""

    __slots__ = ()

    def __call__(self, obj: Any) -> Any:
        try:
            return self.made(obj)
        except Exception as error:  # noqa: BLE001 - compared by its type
            raise typed(error) from error

    def made(self, obj: Any) -> Any:
        """What the operation's call on *obj* returns, settled."""
        raise NotImplementedError

    @property
    def source(self) -> str | None:
        """The expression that makes this operation again
        (``Invoke('get', 'a')``), or ``None``."""
        written = super().source
        if written is None:
            return None
        return type(self).__name__ + written.removeprefix("blanket.Operation")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and super().__eq__(other)

    def __hash__(self) -> int:
        return hash((type(self).__name__, super().__hash__()))


class Invoke(_AuditOperation):
    """``obj.<name>(*args, **kwargs)``, its result settled: reads ``get('a')``."""

    __slots__ = ()

    def made(self, obj: Any) -> Any:
        """The method called, its result settled."""
        return settled(obj, getattr(obj, self.name)(*self.args, **self.kwargs))


class Read(_AuditOperation):
    """``obj.<name>``, a property read, its value settled: reads ``.name``."""

    __slots__ = ()

    def made(self, obj: Any) -> Any:
        """The property read, its value settled."""
        return settled(obj, getattr(obj, self.name))

    def __repr__(self) -> str:
        return f".{self.name}"


class Iterate(_AuditOperation):
    """``list(obj)``: the object iterated to its end; reads ``list(obj)``."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__("__iter__")

    def made(self, obj: Any) -> Any:
        """The object iterated to its end."""
        return list(obj)

    def __repr__(self) -> str:
        return "list(obj)"

    @property
    def source(self) -> str:
        """``Iterate()``."""
        return "Iterate()"


class Enter(_AuditOperation):
    """``with obj: pass``: the object entered and left as a context manager;
    its result is what ``__enter__`` returned, settled."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__("__enter__")

    def made(self, obj: Any) -> Any:
        """The object entered and left, what ``__enter__`` returned settled."""
        with obj as entered:
            return settled(obj, entered)

    def __repr__(self) -> str:
        return "with obj"

    @property
    def source(self) -> str:
        """``Enter()``."""
        return "Enter()"
