"""The operations of a linearizability check: what calls them, and how a
report names them.

An operation is any callable ``op(obj)``. :class:`Operation` is one that
names a method and its arguments (``Operation("put", 1)`` calls
``obj.put(1)``), reads as the call it makes, and can be written into a
generated test as it is; :meth:`Operation.choices` makes one per choice of
arguments. :func:`describe` names any operation for a report: a lambda by
the source of its body (``q.put(1)``), a ``functools.partial`` by its
function and arguments.
"""

from __future__ import annotations

import ast
import functools
import itertools
import linecache
import types
from collections.abc import Callable, Iterable
from typing import Any


class Operation:
    """The operation ``obj.<name>(*args, **kwargs)``: ``Operation("put", 1)``
    calls ``obj.put(1)`` and reads ``put(1)``."""

    __slots__ = ("name", "args", "kwargs")

    def __init__(self, name: str, *args: Any, **kwargs: Any) -> None:
        if not isinstance(name, str) or not name.isidentifier():
            raise TypeError(f"Operation: name={name!r}: expected a method's name")
        #: The method's name.
        self.name = name
        #: The positional arguments.
        self.args = args
        #: The keyword arguments.
        self.kwargs = kwargs

    def __call__(self, obj: Any) -> Any:
        return getattr(obj, self.name)(*self.args, **self.kwargs)

    @classmethod
    def choices(cls, name: str, *arguments: Iterable[Any]) -> list[Operation]:
        """One operation per choice of arguments: ``Operation.choices("put",
        [1, 2])`` is ``[put(1), put(2)]``; with two iterables, each pair."""
        return [cls(name, *chosen) for chosen in itertools.product(*arguments)]

    def __repr__(self) -> str:
        listed = [*map(repr, self.args), *(f"{k}={v!r}" for k, v in self.kwargs.items())]
        return f"{self.name}({', '.join(listed)})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Operation) and (self.name, self.args, self.kwargs) == (
            other.name, other.args, other.kwargs)

    def __hash__(self) -> int:
        return hash((self.name, repr(self.args), repr(self.kwargs)))

    @property
    def source(self) -> str | None:
        """The expression that makes this operation again,
        ``blanket.Operation('put', 1)``, or ``None`` when an argument's repr
        is not a literal that makes it."""
        listed = [repr(self.name), *map(repr, self.args),
                  *(f"{k}={v!r}" for k, v in self.kwargs.items())]
        for argument in (*self.args, *self.kwargs.values()):
            try:
                if ast.literal_eval(repr(argument)) != argument:
                    return None
            except (ValueError, SyntaxError):
                return None
        return f"blanket.Operation({', '.join(listed)})"


def describe(operation: Callable[..., Any]) -> str:
    """How a report names *operation*: an :class:`Operation` as its call, a
    lambda as the source of its body, a ``functools.partial`` as its
    function and arguments, a function by its name."""
    if isinstance(operation, Operation):
        return repr(operation)
    if isinstance(operation, functools.partial):
        listed = [*map(repr, operation.args),
                  *(f"{k}={v!r}" for k, v in operation.keywords.items())]
        return f"{describe(operation.func)}({', '.join(listed)})"
    if isinstance(operation, types.FunctionType) and operation.__name__ == "<lambda>":
        body = _lambda_body(operation.__code__)
        if body is not None:
            return body
    name = getattr(operation, "__qualname__", None)
    return name if isinstance(name, str) else repr(operation)


def _lambda_body(code: types.CodeType) -> str | None:
    """The source of a one-line lambda's body, from its instructions' columns."""
    spans = [(line, start, end) for line, last, start, end in code.co_positions()
             if line is not None and line == last and start is not None and end is not None
             and end > start and line == code.co_firstlineno]
    text = linecache.getline(code.co_filename, code.co_firstlineno)
    if not spans or not text:
        return None
    body = text.encode()[min(s for _, s, _ in spans):max(e for _, _, e in spans)]
    return body.decode(errors="replace").strip() or None
