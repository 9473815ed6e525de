"""The operations of a class as shipped, inferred: what an audit calls.

Its public methods (each with the arguments :mod:`blanket.audit.domains`
draws), its properties (read), and the protocols it implements:
``__getitem__``, ``__setitem__``, ``__delitem__``, ``__contains__`` and
``__len__`` called, ``__iter__`` as ``list(obj)``, ``__enter__`` and
``__exit__`` as a ``with`` block. The object is built by the class's
constructor with its defaults (its required arguments drawn as a method's
are), or by the factory the user names.

Each operation is tried once alone on a fresh object, and once after the
*fill* (the first operation that adds to the object: a ``__setitem__``,
``add``, ``put``, ``append`` ...), as the sequential specification runs it
(:class:`~blanket.linearizability.model.Model`: its locks sequential, a
wait that nothing could end known at once): one that raises what says it
was called wrong (``TypeError``, ``AttributeError``, ... see
:data:`~blanket.linearizability.model.BROKEN`) or does not return within
:data:`SCREEN_SECONDS` (it waits for what blanket does not see: I/O, a lock
made elsewhere) is set aside, with why. So is a method that depends on the
calling thread (``acquire``/``release``: the specification runs every call
on one thread), a lifecycle or I/O method (``close``, ``run``, ...) unless
included, a classmethod or staticmethod. The same tries say which
operations change the object's state (by its value: its attributes walked
through), so that the pairs of two mutators are checked first.
"""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import LinearizabilityError
from ..linearizability.model import Model
from ..linearizability.operations import Operation
from .domains import choices, signature
from .operations import Enter, Invoke, Iterate, Read

#: The protocol methods an audit calls (other dunders are not operations).
PROTOCOLS = ("__getitem__", "__setitem__", "__delitem__", "__contains__", "__len__",
             "__iter__", "__enter__")
#: The methods that add to an object, the first the class has gives the fill.
FILLERS = ("__setitem__", "add", "put", "append", "push", "insert", "set", "setdefault",
           "put_nowait", "appendleft", "update", "increment", "incr", "inc")
#: Methods not called unless included, and why.
SET_ASIDE = {
    **dict.fromkeys(("acquire", "release"), "depends on the calling thread (the "
                    "specification runs every call on one thread)"),
    **dict.fromkeys(("close", "shutdown", "run", "start", "stop", "serve_forever", "sleep",
                     "fileno", "flush"), "I/O or a lifecycle method: not called unless "
                    "included"),
}
#: Seconds an operation may take when tried alone before it is set aside.
SCREEN_SECONDS = 2.0


@dataclass
class Method:
    """A method (or property, or protocol) of the class, with the operations
    the audit calls it by."""

    #: Its name.
    name: str
    #: Its operations, one per choice of arguments.
    operations: list[Operation]
    #: Whether it is Python code (``False``: written in C, one step to blanket).
    python: bool = True
    #: Whether an operation of it changed the object's state when tried.
    mutates: bool = False


@dataclass
class Inferred:
    """What an audit checks: how the object is built, its operations, and
    what was set aside."""

    #: The factory of the objects (the class, a ``functools.partial`` of it
    #: with the arguments drawn, or the user's).
    make: Callable[[], Any]
    #: The class of the objects.
    kind: type
    #: How the object is built, as a call: ``LRUCache(maxsize=1)``.
    built: str
    #: The methods checked.
    methods: list[Method] = field(default_factory=list)
    #: The methods set aside: name and why.
    skipped: list[tuple[str, str]] = field(default_factory=list)
    #: The operation run before the threads start in half the scenarios.
    fill: Operation | None = None


def _building(target: object, factory: Callable[[], Any] | None,
              bind: Mapping[str, Sequence[Any]]) -> tuple[Callable[[], Any], str]:
    """The factory of the objects *target* (a class or a factory) stands for
    and how it reads; a ``ValueError`` when the constructor needs what
    cannot be guessed."""
    if factory is not None:
        return factory, f"{_name(factory)}()"
    if not isinstance(target, type):
        return target, f"{_name(target)}()"  # type: ignore[return-value]
    found = signature(target)
    parameters = [] if found is None else list(found.parameters.values())
    chosen = choices("__init__", parameters, bind, keywords=True)
    if isinstance(chosen, str):
        raise ValueError(f"audit: {target.__qualname__}() {chosen.replace('(bind it)', '')}"
                         f"- bind it (bind={{'__init__.NAME': [value]}}, --bind NAME=VALUE) "
                         "or name a factory (factory=, --factory MODULE:NAME)")
    args, kwargs = chosen[0] if chosen else ((), {})
    listed = [*map(repr, args), *(f"{k}={v!r}" for k, v in kwargs.items())]
    made = functools.partial(target, *args, **kwargs) if listed else target
    return made, f"{target.__qualname__}({', '.join(listed)})"


def _name(value: object) -> str:
    name = getattr(value, "__qualname__", None)
    return name if isinstance(name, str) else repr(value)


def _names(kind: type, include: Sequence[str], exclude: Sequence[str]) -> list[str]:
    """The names of *kind* an audit looks at."""
    known = set(dir(kind))
    for name in (*include, *exclude):
        if name not in known:
            raise ValueError(f"audit: {kind.__qualname__} has no attribute {name!r} "
                             "(include=/exclude= name its methods and properties)")
    if include:
        return [name for name in dict.fromkeys(include) if name not in exclude]
    return [name for name in sorted(known)
            if (name in PROTOCOLS or not name.startswith("_")) and name not in exclude
            and (name in PROTOCOLS or name not in vars(object))]


def _operations(kind: type, obj: Any, name: str, bind: Mapping[str, Sequence[Any]],
                included: bool) -> tuple[Method | None, str]:
    """The method *name* of *kind* (on *obj*, a built object) with its
    operations, or ``None`` and why it is set aside (``""``: it is no
    operation, nothing to say)."""
    try:
        attribute = inspect.getattr_static(kind, name)
    except AttributeError:  # a name dir() lists that the class does not have
        return None, "listed by dir() but not found on the class"
    if isinstance(attribute, (staticmethod, classmethod)):
        return None, "a classmethod or staticmethod: it does not act on the object"
    if not callable(attribute):
        if hasattr(type(attribute), "__get__"):  # a property, a slot, a cached property
            return Method(name, [Read(name)], _python(attribute)), ""
        return None, ""  # a class constant
    if isinstance(attribute, type):
        return None, ""  # a nested class
    if name in SET_ASIDE and not included:
        return None, SET_ASIDE[name]
    python = _python(attribute)
    if name == "__iter__":
        return Method(name, [Iterate()], python), ""
    if name == "__enter__":
        if not hasattr(kind, "__exit__"):
            return None, "__enter__ without __exit__"
        return Method("with", [Enter()], python), ""
    try:
        found = signature(getattr(obj, name))
    except Exception as error:  # noqa: BLE001 - a descriptor that raises
        return None, f"reading it on the object raised {error!r}"
    if found is None:
        return None, "its signature cannot be read (a method written in C)"
    found = _overridden(kind, name, found)
    made = choices(name, list(found.parameters.values()), bind)
    if isinstance(made, str):
        return None, made
    return Method(name, [Invoke(name, *args, **kwargs) for args, kwargs in made], python), ""


def _passes_through(found: inspect.Signature) -> bool:
    """Whether *found* is ``(*args, **kwargs)``: a method that hands its
    arguments on (to the one it overrides, say), saying nothing of them."""
    kinds = [parameter.kind for parameter in found.parameters.values()]
    return inspect.Parameter.VAR_POSITIONAL in kinds and not any(
        kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        for kind in kinds)


def _overridden(kind: type, name: str, found: inspect.Signature) -> inspect.Signature:
    """The signature of method *name* of *kind*: *found*, or when that
    passes its arguments through, that of the first method of the same name
    it overrides that says what they are (``self`` left out)."""
    if not _passes_through(found):
        return found
    for base in kind.__mro__[1:]:
        inner = vars(base).get(name)
        deeper = signature(inner) if isinstance(inner, types.FunctionType) else None
        if deeper is not None:
            deeper = deeper.replace(parameters=list(deeper.parameters.values())[1:])
            if not _passes_through(deeper):
                return deeper
    return found


def _python(attribute: object) -> bool:
    """Whether *attribute* (a function, a property's or a cached property's
    getter) is Python code."""
    function = getattr(attribute, "fget", None) or getattr(attribute, "func", None) or attribute
    return isinstance(inspect.unwrap(function), types.FunctionType)  # type: ignore[arg-type]


class _Screen:
    """Tries operations alone, as the specification runs them: a fresh
    :class:`~blanket.linearizability.model.Model` after each error."""

    def __init__(self, make: Callable[[], Any], seconds: float) -> None:
        self.make = make
        self.seconds = seconds
        self.model = Model(make, seconds)

    def close(self) -> None:
        self.model.close()

    def after(self, operations: Iterable[Operation]) -> tuple[int, str]:
        """The state *operations* leave a fresh object in (-1 if one
        blocks), or -1 and why one cannot be called."""
        state = self.model.root()
        try:
            for operation in operations:
                _, state = self.model.step(state, operation)
                if state < 0:
                    return -1, ""
        except LinearizabilityError as error:
            self.model.close()
            self.model = Model(self.make, self.seconds)
            cause = error.__cause__
            if cause is None:  # did not return in time
                return -1, (f"did not return within {self.seconds:g} s when called alone: "
                            "it waits for what blanket does not see (I/O, a lock made "
                            "elsewhere)")
            return -1, f"raised {cause!r} when called alone with the arguments guessed"
        except Exception as error:  # noqa: BLE001 - the audit goes on with the others
            self.model.close()
            self.model = Model(self.make, self.seconds)
            return -1, f"blanket could not try it alone: {error!r}"
        return state, ""


def infer(target: object, factory: Callable[[], Any] | None = None,
          include: Sequence[str] = (), exclude: Sequence[str] = (),
          bind: Mapping[str, Sequence[Any]] | None = None,
          seconds: float = SCREEN_SECONDS) -> Inferred:
    """The operations an audit of *target* (a class, or a factory of its
    objects) checks, tried alone (each for at most *seconds*)."""
    bind = dict(bind or {})
    make, built = _building(target, factory, bind)
    try:
        obj = make()
    except Exception as error:  # noqa: BLE001 - the user's constructor
        raise ValueError(f"audit: {built} raised {error!r}: bind its arguments "
                         "(bind=, --bind) or name a factory (factory=, --factory)") from error
    kind = type(obj)
    inferred = Inferred(make, kind, built)
    found: list[Method] = []
    for name in _names(kind, include, exclude):
        method, why = _operations(kind, obj, name, bind, name in include)
        if method is not None:
            found.append(method)
        elif why:
            inferred.skipped.append((name, why))
    screen = _Screen(make, seconds)
    try:
        _screened(inferred, found, screen)
    finally:
        screen.close()
    return inferred


def _screened(inferred: Inferred, found: list[Method], screen: _Screen) -> None:
    """Keep in *inferred* the operations of *found* that can be called,
    and the fill."""
    fresh = screen.after(())[0]
    fill_state = -1
    for name in FILLERS:
        method = next((m for m in found if m.name == name), None)
        for operation in method.operations if method is not None else []:
            state, _ = screen.after([operation])
            if state >= 0 and state != fresh:
                inferred.fill, fill_state = operation, state
                break
        if inferred.fill is not None:
            break
    for method in found:
        kept: list[Operation] = []
        why = ""
        for operation in method.operations:
            state, why_alone = screen.after([operation])
            after, why_filled = (state, "") if inferred.fill is None else \
                screen.after([inferred.fill, operation])
            if why_alone or why_filled:
                why = why or f"{operation!r} {why_alone or why_filled}"
                continue
            kept.append(operation)
            method.mutates |= state != fresh or (inferred.fill is not None
                                                 and after != fill_state)
        if kept:
            method.operations = kept
            inferred.methods.append(method)
        else:
            inferred.skipped.append((method.name, why))
