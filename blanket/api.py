"""The scheduler's control surface for one primitive: ``scenario.api(p)``.

Every API object can let named threads' calls on one of the primitive's
methods go (:meth:`PrimitiveAPI.unblock`, ``unstall``, ``unpause``) and change
their timeouts (``expire``, ``disregard``, ``revert``). Each waits, within the
scenario's bound, for every named thread to be parked on that method, and
raises :class:`~blanket.ThreadOrderingError` when a thread is somewhere else.
"""

from __future__ import annotations

import threading
import types
from collections.abc import Callable
from typing import Any

from .core import ScenarioCore
from .errors import ThreadOrderingError
from .primitives import Primitive
from .signals import Parked
from .states import State
from .transaction import Transaction


def expect(core: ScenarioCore, thread: object, primitive: Primitive, name: str,
           state: State) -> Transaction:
    """Wait until *thread* is parked, and return its call if that is a *name*
    call on *primitive* in *state*; ``ThreadOrderingError`` otherwise."""
    if not isinstance(thread, threading.Thread):
        raise TypeError(f"expected a thread, not {thread!r}")
    core.wait([(thread, Parked(thread))], None)
    wanted = f"{primitive._kind}.{name}"
    with core.lock:
        chain = core.chain(thread)
        if not chain:
            raise ThreadOrderingError(
                f"thread {thread.name!r} terminated; it was expected to call {wanted} "
                f"on {core.label(primitive)}")
        tx = chain[-1]
        if tx.primitive is not primitive or tx.spec.name != name or tx.state is not state:
            raise ThreadOrderingError(
                f"thread {thread.name!r} was expected to be in {wanted} on "
                f"{core.label(primitive)} at {state.name}, but it is in "
                f"{tx.spec.kind}.{tx.spec.name} on {core.label(tx.primitive)} at "
                f"{tx.state.name}")
        return tx


class PrimitiveAPI:
    """The API object of one primitive (``scenario.api(primitive)``)."""

    __slots__ = ("_primitive", "__weakref__")

    def __init__(self, primitive: Primitive) -> None:
        self._primitive = primitive

    @property
    def primitive(self) -> Primitive:
        """The primitive this object controls."""
        return self._primitive

    @property
    def name(self) -> str | None:
        """The primitive's name, or ``None``.

        Naming a primitive drops its masquerade: its ``repr`` and every
        report show the name instead. Set ``None`` to masquerade again.
        """
        return self._primitive._name

    @name.setter
    def name(self, value: str | None) -> None:
        if value is not None and not isinstance(value, str):
            raise TypeError(f"a primitive's name is a str or None, not {value!r}")
        self._primitive._name = value

    def _method_name(self, method: object) -> str:
        primitive = self._primitive
        if not (isinstance(method, types.MethodType) and method.__self__ is primitive
                and method.__name__ in primitive._specs):  # type: ignore[attr-defined]
            raise ValueError(f"{method!r} is not a method of {self._primitive._core.label(primitive)}"
                             f" (expected e.g. {primitive._kind.lower()}.wait or .acquire)")
        return method.__name__

    def _each(self, method: Callable[..., Any], threads: tuple[threading.Thread, ...],
              state: State, act: Callable[[Transaction], None]) -> tuple[Transaction, ...]:
        name = self._method_name(method)
        if not threads:
            raise TypeError(f"name at least one thread whose {self._primitive._kind}."
                            f"{name} call to act on")
        done = []
        for thread in threads:
            tx = expect(self._primitive._core, thread, self._primitive, name, state)
            act(tx)
            done.append(tx)
        return tuple(done)

    def unblock(self, method: Callable[..., Any], *threads: threading.Thread,
                pause: bool = False) -> tuple[Transaction, ...]:
        """Let each thread's *method* call go from ``BLOCKED``, in order.

        Waits for each thread to reach the call. With *pause*, each call
        also stops at ``PAUSED`` after the real call. Returns the
        transactions.
        """
        def act(tx: Transaction) -> None:
            if pause:
                tx.pause = True
            tx.unblock()
        return self._each(method, threads, State.BLOCKED, act)

    def unstall(self, method: Callable[..., Any], *threads: threading.Thread
                ) -> tuple[Transaction, ...]:
        """Let each thread's *method* call go from ``STALLED``, in order."""
        return self._each(method, threads, State.STALLED, Transaction.unstall)

    def unpause(self, method: Callable[..., Any], *threads: threading.Thread
                ) -> tuple[Transaction, ...]:
        """Let each thread's *method* call go from ``PAUSED``, in order."""
        return self._each(method, threads, State.PAUSED, Transaction.unpause)

    def expire(self, method: Callable[..., Any], *threads: threading.Thread
               ) -> tuple[Transaction, ...]:
        """Make each thread's blocked *method* call time out at once."""
        return self._each(method, threads, State.BLOCKED, Transaction.expire)

    def disregard(self, method: Callable[..., Any], *threads: threading.Thread
                  ) -> tuple[Transaction, ...]:
        """Make each thread's blocked *method* call ignore its timeout."""
        return self._each(method, threads, State.BLOCKED, Transaction.disregard)

    def revert(self, method: Callable[..., Any], *threads: threading.Thread
               ) -> tuple[Transaction, ...]:
        """Give each thread's blocked *method* call its own timeout back."""
        return self._each(method, threads, State.BLOCKED, Transaction.revert)

    def __repr__(self) -> str:
        return f"<blanket {type(self).__name__} for {self._primitive._core.label(self._primitive)}>"


class LockAPI(PrimitiveAPI):
    """The API object of a ``Lock``."""

    __slots__ = ()


class RLockAPI(PrimitiveAPI):
    """The API object of an ``RLock``."""

    __slots__ = ()


class ConditionAPI(PrimitiveAPI):
    """The API object of a ``Condition``."""

    __slots__ = ()


class SemaphoreAPI(PrimitiveAPI):
    """The API object of a ``Semaphore``."""

    __slots__ = ()


class BoundedSemaphoreAPI(SemaphoreAPI):
    """The API object of a ``BoundedSemaphore``."""

    __slots__ = ()


class EventAPI(PrimitiveAPI):
    """The API object of an ``Event``."""

    __slots__ = ()


class BarrierAPI(PrimitiveAPI):
    """The API object of a ``Barrier``."""

    __slots__ = ()


#: The API class of each primitive kind.
API_CLASSES: dict[str, type[PrimitiveAPI]] = {
    cls.__name__[:-3]: cls for cls in (LockAPI, RLockAPI, ConditionAPI, SemaphoreAPI,
                                       BoundedSemaphoreAPI, EventAPI, BarrierAPI)}
