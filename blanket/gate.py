"""The gate every blanket primitive's calls pass: :class:`Primitive`, the
switch between passing calls straight through and regulating them, and
the helpers the primitives' real calls share.

Each primitive holds the real ``threading`` object it stands for. Outside a
scenario a call goes straight to it: while the scenario neither regulates nor
records, the primitive's methods are the real primitive's own bound methods,
set on the instance over the class's (see :meth:`Primitive._pass_through`),
so such a call runs no Python code of blanket's at all. Inside, the call
becomes a transaction run by :meth:`blanket.core.ScenarioCore.run`, and the
real call is made when the scheduler lets it. Nothing here re-implements what a
primitive does: where a call may sleep inside the real primitive, blanket only
says so (``WAITING``) before making it.

A primitive masquerades as the real one: its ``repr`` is the real ``repr``
with the id printed as ``0X`` and upper-case hex (the tell), and
``isinstance(p, threading.Condition)`` holds (through ``__class__``).
"""

from __future__ import annotations

import functools
import threading
import types
import typing
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .core import ScenarioCore
    from .transaction import Transaction

def forever_or_positive(timeout: object, forever: object) -> bool:
    """Whether a real call given *timeout* may sleep, and a non-blocking try
    first cannot hide an error the real call would raise for *timeout*."""
    if timeout is None or type(timeout) not in (int, float):
        return timeout is forever
    return timeout == forever or 0 < timeout <= threading.TIMEOUT_MAX  # type: ignore[operator]


def sleep_in(core: ScenarioCore, tx: Transaction, call: Callable[..., Any],
              *args: Any) -> Any:
    """Make a real call that sleeps, between ``WAITING`` and ``RESUMED``."""
    core.waiting(tx)
    try:
        return call(*args)
    finally:
        core.resumed(tx)


def attempt_acquire(core: ScenarioCore, tx: Transaction | None, call: Callable[..., Any],
             blocking: Any, timeout: Any, forever: object) -> Any:
    """An acquire: try without blocking first, and report ``WAITING`` only
    when the real acquire is going to sleep."""
    if tx is not None and blocking and (
            timeout is forever or forever_or_positive(timeout, forever)):
        if call(False):
            return True
        return sleep_in(core, tx, call, blocking, timeout)
    return call(blocking, timeout)


class SwitchedMethod(functools.partial):  # type: ignore[type-arg]
    """A bound method of a blanket primitive, as ``lock.acquire`` gives it.

    A call goes straight to its target: the real primitive's own bound
    method while the scenario lets calls pass through, the class's method
    (which regulates or records the call) otherwise. The scenario switches
    the target in place (see :meth:`Primitive._pass_through`), so a method
    taken before ``with scenario:`` (a thread's target, a
    ``threading.Condition`` over a blanket lock) is regulated inside it,
    and a passing call runs no Python code of blanket's at all.
    """

    __slots__ = ()
    __self__: Primitive
    __name__: str
    __func__: Callable[..., Any]

    def __repr__(self) -> str:
        return f"<bound method {self.__self__._kind}.{self.__name__} of {self.__self__!r}>"


def owner_of(value: object) -> tuple[Primitive, str] | None:
    """The blanket primitive and the method name *value* is a bound method
    of, or ``None``."""
    if isinstance(value, SwitchedMethod) or (
            isinstance(value, types.MethodType) and isinstance(value.__self__, Primitive)):
        return value.__self__, value.__name__  # type: ignore[return-value]
    return None


class Primitive:
    """Base of the blanket primitives.

    Every scenario's primitives are instances of the seven classes of
    ``blanket.primitives``; the scenario each belongs to is the
    primitive's own (``scenario.Lock`` is a
    :class:`~blanket.primitives.Kind` that makes them, so ``isinstance(x, scenario.Lock)`` still
    tells that scenario's locks apart).
    """

    # __dict__ holds the direct methods and their targets (see _pass_through).
    __slots__ = ("_real", "_label", "_name", "_api", "_core", "__weakref__", "__dict__")

    #: The core of the scenario the primitive belongs to (set by its Kind
    #: before ``__init__`` runs).
    _core: ScenarioCore
    #: The primitive's kind, as in ``threading`` ("Lock", "Condition", ...).
    _kind: str = "Primitive"
    #: The methods that are the real primitive's own while calls pass
    #: straight through: each passes its arguments on to ``self._real.<name>``.
    _direct: tuple[str, ...] = ()

    def _adopt(self, real: Any) -> None:
        #: The real ``threading`` primitive (also the raw handle).
        self._real: Any = real
        self._name: str | None = None
        self._api: object = None
        self._label = self._core.adopt(self)

    def _pass_through(self, direct: bool) -> None:
        """Switch the direct methods to the real primitive's own bound
        methods, or back to the class's (lock held: the scenario switches
        every primitive when it starts or stops letting calls pass).

        Both targets stay referenced by the primitive, so a thread calling
        a method while it is switched never calls a freed one.
        """
        bound = self.__dict__
        # (not get: see the note at the top of blanket.core)
        targets = bound["_targets"] if "_targets" in bound else None
        if targets is None:
            real, cls = self._real, type(self)
            targets = bound["_targets"] = {
                name: (getattr(real, name), types.MethodType(getattr(cls, name), self))
                for name in self._direct}
            for name, (_native, regulated) in targets.items():
                method = bound[name] = SwitchedMethod(regulated)
                method.__self__, method.__name__ = self, name
                method.__func__ = regulated.__func__
        for name, (native, regulated) in targets.items():
            bound[name].__setstate__((native if direct else regulated, (), None,
                                      bound[name].__dict__))

    @property
    @typing.no_type_check  # a checker asking for self.__class__ here would recurse
    def __class__(self) -> type:
        # The masquerade: isinstance(p, threading.X) holds wherever X is a
        # class. Until the real primitive exists (in __init__) the class is
        # the true one; object.__getattribute__ keeps __getattr__ out of it.
        try:
            real = object.__getattribute__(self, "_real")
        except AttributeError:
            return type(self)
        return type(real)

    @property
    def name(self) -> str | None:
        """The name reports use for this primitive (``None``: its label).
        Setting one trades the masquerade's ``repr`` for
        ``<blanket.Lock 'name' unlocked>``; the same as
        ``scenario.api(p).name``."""
        return self._name

    @name.setter
    def name(self, value: str | None) -> None:
        if value is not None and not isinstance(value, str):
            raise TypeError(f"a primitive's name is a str or None, not {value!r}")
        self._name = value

    def __getattr__(self, name: str) -> Any:
        # What the standard library reaches for behind a primitive's back
        # (_at_fork_reinit, _is_owned, _cond, ...) is the real primitive's.
        if name.startswith("__") or name in Primitive.__slots__:
            raise AttributeError(name)
        return getattr(self._real, name)

    def __repr__(self) -> str:
        if self._name is not None:
            return f"<blanket.{self._kind} {self._name!r} {self._status()}>"
        return repr(self._real).replace(f"0x{self._shown_id():x}", f"0X{id(self):X}")

    def _shown_id(self) -> int:
        """The id the real ``repr`` prints, which the masquerade replaces."""
        return id(self._real)

    def _status(self) -> str:
        """A few words on the primitive's state, for the named ``repr``."""
        text = repr(self._real)
        return text[1:text.index(" ")]


def label(primitive: Any) -> str:
    """How reports name *primitive* (a primitive, or a stand-in such as a
    racy access's): the name it was given, or its label and id."""
    if primitive._name is not None:
        return repr(primitive._name)
    return f"{primitive._label} 0X{id(primitive):X}"
