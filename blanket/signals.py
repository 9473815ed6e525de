"""What ``scenario.wait`` can wait for: signal tokens, and how items signal.

Every item given to ``scenario.wait`` becomes a token whose
:meth:`Signaled.signalled` tells, under the scenario's lock, whether it
signals now. Tokens compare equal when they are of the same type over the
same arguments, so ``Terminated(A) in scenario.wait(Terminated(A))`` holds.
"""

from __future__ import annotations

import threading
from typing import Any

from .core import ScenarioCore
from .gate import Primitive, label, owner_of
from .states import State
from .transaction import Transaction


class Signaled:
    """Base class of the signal tokens ``scenario.wait`` accepts."""

    __slots__ = ("_args",)

    def __init__(self, *args: object) -> None:
        self._args = args

    def signalled(self, core: ScenarioCore) -> bool:
        """Whether the token signals now; *core*'s lock is held."""
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._args == self._args

    def __hash__(self) -> int:
        return hash((type(self), self._args))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(map(_name, self._args))})"


def _name(item: object) -> str:
    if isinstance(item, threading.Thread):
        return repr(item.name)
    owned = owner_of(item)
    if owned is not None:
        return f"{owned[0]._kind}.{owned[1]}"
    if isinstance(item, Primitive):
        return label(item)
    return repr(item)


def _thread(value: object, who: str) -> threading.Thread:
    if not isinstance(value, threading.Thread):
        raise TypeError(f"{who} needs a threading.Thread, not {value!r}")
    return value


def _transaction(value: object, who: str) -> Transaction:
    if not isinstance(value, Transaction):
        raise TypeError(f"{who} needs a transaction, not {value!r}")
    return value


def _method(value: object, who: str) -> Any:
    if owner_of(value) is None:
        raise TypeError(f"{who} needs a method of a blanket primitive "
                        f"(such as lock.acquire), not {value!r}")
    return value


def _calls(tx: Transaction, method: Any) -> bool:
    return tx.primitive is method.__self__ and tx.spec.name == method.__name__


class Call(Signaled):
    """Signals while *thread* is inside a call of *method* (e.g. ``lock.acquire``).

    The arguments may come in either order, as blanket 1.0 documents both.
    """

    __slots__ = ()

    def __init__(self, thread: object, method: object) -> None:
        if isinstance(method, threading.Thread):
            thread, method = method, thread
        super().__init__(_thread(thread, "Call"), _method(method, "Call"))

    def signalled(self, core: ScenarioCore) -> bool:
        thread, method = self._args
        return any(_calls(tx, method) for tx in core.chain(thread))  # type: ignore[arg-type]


class Use(Signaled):
    """Signals while *thread* is inside any call on *primitive*."""

    __slots__ = ()

    def __init__(self, thread: threading.Thread, primitive: object) -> None:
        if not isinstance(primitive, Primitive):
            raise TypeError(f"Use needs a blanket primitive, not {primitive!r}")
        super().__init__(_thread(thread, "Use"), primitive)

    def signalled(self, core: ScenarioCore) -> bool:
        thread, primitive = self._args
        return any(tx.primitive is primitive for tx in core.chain(thread))  # type: ignore[arg-type]


class Terminated(Signaled):
    """Signals once *thread* has finished running."""

    __slots__ = ()

    def __init__(self, thread: threading.Thread) -> None:
        super().__init__(_thread(thread, "Terminated"))

    def signalled(self, core: ScenarioCore) -> bool:
        return core.terminated(self._args[0])  # type: ignore[arg-type]


class Not(Signaled):
    """Signals while *item* does not."""

    __slots__ = ()

    def __init__(self, item: object) -> None:
        super().__init__(to_token(item))

    def signalled(self, core: ScenarioCore) -> bool:
        return not self._args[0].signalled(core)  # type: ignore[attr-defined]


class Nested(Signaled):
    """Signals while *transaction* has a nested transaction in flight."""

    __slots__ = ()

    def __init__(self, transaction: Transaction) -> None:
        super().__init__(_transaction(transaction, "Nested"))

    def signalled(self, core: ScenarioCore) -> bool:
        return bool(self._args[0]._children)  # type: ignore[attr-defined]


class Action(Signaled):
    """Signals while *transaction* is pushed off its thread's chain
    (``Barrier.wait`` running the barrier's action)."""

    __slots__ = ()

    def __init__(self, transaction: Transaction) -> None:
        super().__init__(_transaction(transaction, "Action"))

    def signalled(self, core: ScenarioCore) -> bool:
        return bool(self._args[0]._pushed)  # type: ignore[attr-defined]


class Reached(Signaled):
    """Signals once *transaction* is in *state* or any later state."""

    __slots__ = ()

    def __init__(self, transaction: Transaction, state: State) -> None:
        if not isinstance(state, State):
            raise TypeError(f"Reached needs a State, not {state!r}")
        super().__init__(_transaction(transaction, "Reached"), state)

    def signalled(self, core: ScenarioCore) -> bool:
        tx, state = self._args
        return tx._state._value_ >= state._value_  # type: ignore[attr-defined, no-any-return]


class TransactionState(Signaled):
    """Signals while *transaction* is exactly in *state*.

    The subclasses (:class:`Blocked`, :class:`Commit`, ...) fix the state
    and take the transaction alone.
    """

    __slots__ = ()
    #: The state a subclass signals for (``None`` on this class: given).
    fixed: State | None = None

    def __init__(self, transaction: Transaction, state: State | None = None) -> None:
        state = self.fixed if state is None else state
        if not isinstance(state, State):
            raise TypeError(f"{type(self).__name__} needs a State, not {state!r}")
        super().__init__(_transaction(transaction, type(self).__name__), state)

    def signalled(self, core: ScenarioCore) -> bool:
        tx, state = self._args
        return tx.state is state  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        tx, state = self._args
        if self.fixed is None:
            return f"{type(self).__name__}({tx!r}, {state!r})"
        return f"{type(self).__name__}({tx!r})"


class Blocked(TransactionState):
    """Signals while the transaction is ``BLOCKED`` (at the scheduler block)."""

    __slots__ = ()
    fixed = State.BLOCKED


class Commit(TransactionState):
    """Signals while the transaction is in ``COMMIT``."""

    __slots__ = ()
    fixed = State.COMMIT


class Waiting(TransactionState):
    """Signals while the transaction is ``WAITING`` inside the real primitive."""

    __slots__ = ()
    fixed = State.WAITING


class Stalled(TransactionState):
    """Signals while the transaction is ``STALLED`` (at the scheduler stall)."""

    __slots__ = ()
    fixed = State.STALLED


class Resumed(TransactionState):
    """Signals while the transaction is ``RESUMED``."""

    __slots__ = ()
    fixed = State.RESUMED


class Committed(TransactionState):
    """Signals while the transaction is ``COMMITTED``."""

    __slots__ = ()
    fixed = State.COMMITTED


class Paused(TransactionState):
    """Signals while the transaction is ``PAUSED`` (at the scheduler pause)."""

    __slots__ = ()
    fixed = State.PAUSED


class Exiting(TransactionState):
    """Signals while the transaction is ``EXITING``."""

    __slots__ = ()
    fixed = State.EXITING


class Returned(TransactionState):
    """Signals once the transaction has ``RETURNED``."""

    __slots__ = ()
    fixed = State.RETURNED


class Raised(TransactionState):
    """Signals once the transaction has ``RAISED``."""

    __slots__ = ()
    fixed = State.RAISED


# -- the plain items wait() accepts, as tokens ------------------------------------

class Active(Signaled):
    """A thread item: signals while the thread has a transaction."""

    __slots__ = ()

    def signalled(self, core: ScenarioCore) -> bool:
        return bool(core.chain(self._args[0]))  # type: ignore[arg-type]

    def __repr__(self) -> str:  # as the item was given: no private name
        return f"thread {_name(self._args[0])} (in a call)"


class _Done(Signaled):
    """A transaction item: signals once the transaction has finished."""

    __slots__ = ()

    def signalled(self, core: ScenarioCore) -> bool:
        return self._args[0].done  # type: ignore[attr-defined, no-any-return]

    def __repr__(self) -> str:
        return f"{self._args[0]!r} (its end)"


class _Inside(Signaled):
    """A bound-method item: signals while any thread is inside the method."""

    __slots__ = ()

    def signalled(self, core: ScenarioCore) -> bool:
        method = self._args[0]
        return any(_calls(tx, method) for tx in core.active)

    def __repr__(self) -> str:
        return f"{_name(self._args[0])} (any thread in it)"


class _Entered(Signaled):
    """A scenario item: signals while the scenario is entered."""

    __slots__ = ()

    def signalled(self, core: ScenarioCore) -> bool:
        return core.regulated

    def __repr__(self) -> str:
        return f"scenario {self._args[0].name!r} (entered)"  # type: ignore[attr-defined]


class Parked(Signaled):
    """Signals once *thread*'s current call is parked for the scheduler
    (``BLOCKED``, ``STALLED``, ``PAUSED``, or ``COMMIT`` where a driver
    stopped it), or *thread* has terminated.

    This is what the drivers and the API objects wait for before they act on
    a thread.
    """

    __slots__ = ()

    def __init__(self, thread: threading.Thread) -> None:
        # Signaled.__init__, inline: the drivers make one per call they drive.
        self._args = (_thread(thread, "Parked"),)

    def signalled(self, core: ScenarioCore) -> bool:
        thread: threading.Thread = self._args[0]  # type: ignore[assignment]
        records = core.records
        record = records[thread] if thread in records else None
        if record is not None and record.chain:
            return record.chain[-1]._parked
        return core.terminated(thread)


def to_token(item: object) -> Signaled:
    """The token for one item given to ``scenario.wait``; ``TypeError`` if none."""
    if isinstance(item, Signaled):
        return item
    if isinstance(item, threading.Thread):
        return Active(item)
    if isinstance(item, Transaction):
        return _Done(item)
    if owner_of(item) is not None:
        return _Inside(item)
    core = None if isinstance(item, Primitive) else getattr(item, "_core", None)
    if isinstance(core, ScenarioCore):
        return _Entered(core)
    raise TypeError(f"scenario.wait cannot wait for {item!r}: expected a thread, a "
                    "transaction, a method of a blanket primitive (not the primitive "
                    "itself), a scenario or a signal token")


