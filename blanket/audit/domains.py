"""The arguments an audit calls a method with: small domains that collide.

A parameter's domain is what the user bound (``bind={"key": ["x"]}``, or
``{"get.key": [...]}`` for one method's, ``{"__init__.maxsize": [1]}`` for
the constructor's), else guessed from its name (``key``, ``value``,
``index``, ``maxsize``, ...), else from its annotation (``int``, ``str``,
...), else from the protocol (``__getitem__``'s first parameter is a key).
The domains are small and shared, so that two threads' calls meet: every
key is ``'a'`` or ``'b'``, every value ``1`` or ``2``. A required parameter
with none of these (a callback, a file) cannot be guessed: the method is
set aside and the report says why. An optional parameter is left to its
default unless bound.
"""

from __future__ import annotations

import ast
import inspect
import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

#: The keys every method is called with: two, so that calls collide.
KEYS: tuple[Any, ...] = ("a", "b")
#: The values.
VALUES: tuple[Any, ...] = (1, 2)
#: The positions in a sequence.
INDEXES: tuple[Any, ...] = (0, -1)
#: The counts and sizes (a constructor's ``maxsize`` is the first: 1,
#: so that a second key evicts the first).
COUNTS: tuple[Any, ...] = (1, 2)
#: The durations in seconds (a cache's ``ttl``): long enough that nothing
#: expires while a run lasts.
SECONDS: tuple[Any, ...] = (3600,)
#: The most argument choices a method is called with (the first ones:
#: the first key with each value, then the second key).
MAX_CHOICES = 4

#: The names each domain is guessed from (a list: two domains may be equal).
_NAMES: list[tuple[tuple[Any, ...], frozenset[str]]] = [
    (KEYS, frozenset({"key", "k", "name", "field", "attr", "label", "tag", "ident"})),
    (VALUES, frozenset({"value", "val", "v", "item", "element", "elem", "x", "obj", "member",
                       "data", "entry", "payload", "o", "default", "object"})),
    (INDEXES, frozenset({"index", "i", "idx", "pos", "position", "start", "stop"})),
    (COUNTS, frozenset({"n", "count", "size", "maxsize", "max_size", "capacity", "limit",
                       "number", "amount", "delta", "by", "step", "increment", "maxlen",
                       "length"})),
    (SECONDS, frozenset({"ttl", "timeout", "seconds", "interval", "expire", "expires",
                        "expiry", "delay", "period", "maxage", "max_age", "lifetime"})),
]

#: A protocol method's parameters by position, when their names say nothing.
_PROTOCOL: dict[str, tuple[tuple[Any, ...], ...]] = {
    "__getitem__": (KEYS,), "__delitem__": (KEYS,), "__contains__": (KEYS,),
    "__setitem__": (KEYS, VALUES),
}

_TYPES: dict[str, tuple[Any, ...]] = {
    "str": KEYS, "float": (1.0, 2.0), "bool": (True, False), "bytes": (b"a", b"b"),
}


def _annotated(annotation: object) -> str:
    """An annotation as text: ``int``, ``str | None``, ``Hashable``, ..."""
    if isinstance(annotation, str):
        return annotation
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def guess(method: str, parameter: inspect.Parameter, position: int,
          bind: Mapping[str, Sequence[Any]]) -> tuple[Any, ...] | None:
    """The domain of *parameter*, the *position*-th of *method* (``self``
    not counted), or ``None`` when it cannot be guessed."""
    for bound in (f"{method}.{parameter.name}", parameter.name):
        if bound in bind:
            return tuple(bind[bound])
    name = parameter.name.lower()
    annotation = parameter.annotation
    text = "" if annotation is inspect.Parameter.empty else _annotated(annotation)
    kind = text.split("|")[0].strip().removeprefix("Optional[").removesuffix("]")
    if kind in _TYPES:
        return _TYPES[kind]
    for domain, names in _NAMES:
        if name in names:
            return domain if kind != "int" or domain is not KEYS else VALUES
    if kind == "int":
        return VALUES
    protocol = _PROTOCOL.get(method, ())
    if position < len(protocol):
        return protocol[position]
    if kind in ("Any", "object", "Hashable", "collections.abc.Hashable") or \
            kind.startswith("~"):  # a TypeVar: any value
        return VALUES
    return None


def signature(function: Callable[..., Any]) -> inspect.Signature | None:
    """The signature of *function*, or ``None`` when it cannot be read (some
    methods written in C say none)."""
    try:
        return inspect.signature(function)
    except (TypeError, ValueError):
        return None


Choice = tuple[tuple[Any, ...], dict[str, Any]]


def choices(method: str, parameters: Sequence[inspect.Parameter],
            bind: Mapping[str, Sequence[Any]], keywords: bool = False) -> list[Choice] | str:
    """The arguments *method* (its *parameters*, ``self`` left out) is called
    with: at most :data:`MAX_CHOICES` ``(args, kwargs)``, by keyword where
    they can be with *keywords*; or why it cannot be called (a required
    parameter that cannot be guessed)."""
    names: list[tuple[str, bool]] = []  # (name, positional)
    domains: list[tuple[Any, ...]] = []
    for position, parameter in enumerate(parameters):
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        required = parameter.default is parameter.empty
        bound = f"{method}.{parameter.name}" in bind or parameter.name in bind
        if not required and not bound:
            continue
        domain = guess(method, parameter, position, bind)
        if domain is None:
            return f"needs an argument it cannot guess: {parameter.name} (bind it)"
        if not domain:
            return f"the domain bound to {parameter.name} is empty"
        positional = required and parameter.kind != parameter.KEYWORD_ONLY and \
            not (keywords and parameter.kind == parameter.POSITIONAL_OR_KEYWORD)
        if not positional and parameter.kind == parameter.POSITIONAL_ONLY:
            return f"an optional positional-only argument cannot be bound: {parameter.name}"
        names.append((parameter.name, positional))
        domains.append(domain)
    made: list[Choice] = []
    for values in itertools.islice(itertools.product(*domains), MAX_CHOICES):
        args = tuple(v for (_, positional), v in zip(names, values, strict=True) if positional)
        kwargs = {name: v for (name, positional), v in zip(names, values, strict=True)
                  if not positional}
        made.append((args, kwargs))
    return made


def binding(text: str) -> tuple[str, tuple[Any, ...]]:
    """A ``NAME=VALUES`` of the command line (``--bind key="['x','y']"``,
    ``--bind __init__.maxsize=2``): the name and its values, a Python
    literal (a list or tuple of them, or one); a ``ValueError`` saying what
    is wrong."""
    name, equals, values = text.partition("=")
    if not equals or not all(part.isidentifier() for part in name.split(".")) \
            or name.count(".") > 1:
        raise ValueError(f"{text!r}: expected NAME=VALUES, e.g. key=\"['a', 'b']\" or "
                         "__init__.maxsize=2")
    try:
        value = ast.literal_eval(values)
    except (ValueError, SyntaxError):
        raise ValueError(f"{text!r}: {values!r} is not a Python literal (quote a string: "
                         f"{name}=\"'{values}'\")") from None
    return name, tuple(value) if isinstance(value, (list, tuple)) else (value,)
