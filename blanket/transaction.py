"""One call on a primitive: the transaction, its lifecycle and its public view.

A :class:`Transaction` is created when a thread calls a method on a regulated
primitive and lives until the call returns or raises. The worker side moves it
forward (see :mod:`blanket.core`); the scheduler side inspects it and lets it
go through the methods here, each of which takes the scenario's one lock.
"""

from __future__ import annotations

import threading
import time
import types
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from .gate import label
from .states import State

if TYPE_CHECKING:  # pragma: no cover
    from .core import ScenarioCore
    from .parking import Parker


class CallSpec:
    """What blanket knows about one method of one primitive kind.

    Shared by every transaction on that method, so a transaction only keeps
    its argument values. ``timeout_at`` is the index of the ``timeout``
    parameter (``None`` for methods without one); ``no_timeout`` is the value
    that means "wait forever" for that parameter.
    """

    __slots__ = ("kind", "name", "params", "defaults", "timeout_at", "no_timeout",
                 "reports_success")

    def __init__(self, kind: str, name: str, params: tuple[str, ...] = (),
                 defaults: tuple[object, ...] = (), timeout_at: int | None = None,
                 no_timeout: object = None, reports_success: bool = False) -> None:
        self.kind = kind
        self.name = name
        self.params = params
        self.defaults = defaults
        self.timeout_at = timeout_at
        self.no_timeout = no_timeout
        # Whether a false result means the call failed (an acquire or a wait
        # that timed out), as opposed to a result that is simply falsy.
        self.reports_success = reports_success

    def with_timeout(self, args: tuple[Any, ...], value: object) -> tuple[Any, ...]:
        """*args* with the timeout replaced by *value*.

        A non-blocking acquire (``blocking`` false) keeps its arguments: it
        has no timeout to change, and passing one would be an error.
        """
        assert self.timeout_at is not None
        if self.params[0] == "blocking" and not args[0]:
            return args
        return args[:self.timeout_at] + (value,) + args[self.timeout_at + 1:]

    def __repr__(self) -> str:
        return f"<CallSpec {self.kind}.{self.name}>"


class TimeoutState(NamedTuple):
    """The timeout a transaction runs (or ran) with.

    ``value`` is the timeout in effect (the caller's, or 0 after
    :meth:`Transaction.expire`); ``time`` the monotonic deadline it works out
    to once the call is attempted (``None`` before); ``timed_out`` whether
    the call ended by timing out.
    """

    value: object
    time: float | None
    timed_out: bool


# How the scheduler may have overridden a transaction's timeout.
_USER, _EXPIRE, _DISREGARD = "user", "expire", "disregard"


class Transaction:
    """A call on a blanket primitive, from the scheduler's side.

    Read its ``thread``, ``method``, ``state`` and outcome; let it go with
    :meth:`unblock`, :meth:`unstall` and :meth:`unpause`; change its timeout
    with :meth:`expire`, :meth:`disregard` and :meth:`revert` while it is
    ``BLOCKED``. blanket 1.0 calls this class ``TransactionAPI``; blanket
    exports it under both names.
    """

    __slots__ = ("_core", "thread", "primitive", "spec", "args", "parent", "depth",
                 "_state", "_history", "_result", "_parked", "_pause", "_holds", "_hold_commit",
                 "_timeout_mode", "_deadline", "_children", "_pushed", "_parker",
                 "__weakref__")

    def __init__(self, core: ScenarioCore, thread: threading.Thread, primitive: object,
                 spec: CallSpec, args: tuple[Any, ...], parent: Transaction | None,
                 parker: Parker | None, state: State) -> None:
        self._core = core
        #: The thread making the call.
        self.thread = thread
        #: The blanket primitive the call was made on.
        self.primitive = primitive
        #: What is known about the method called (kind, name, parameters).
        self.spec = spec
        #: The call's arguments, one per parameter, defaults filled in.
        self.args = args
        #: The transaction this one is nested in, or ``None``.
        self.parent = parent
        #: How many transactions this one is nested in.
        self.depth: int = 0 if parent is None else parent.depth + 1
        self._state = state
        self._history: list[object] = [time.monotonic(), state]
        self._result: object = None
        self._parked = False
        self._pause = False
        self._holds = 0
        self._hold_commit = False
        self._timeout_mode = _USER
        self._deadline: float | None = None
        self._children = 0
        self._pushed = False
        self._parker = parker

    # -- what the call is -------------------------------------------------

    @property
    def method(self) -> Callable[..., Any]:
        """The bound method called, e.g. ``lock.acquire``."""
        method: Callable[..., Any] = getattr(self.primitive, self.spec.name)
        return method

    @property
    def kwargs(self) -> Mapping[str, object]:
        """The call's arguments by parameter name (read-only)."""
        return types.MappingProxyType(dict(zip(self.spec.params, self.args, strict=True)))

    @property
    def state(self) -> State:
        """The current state."""
        return self._state

    @property
    def done(self) -> bool:
        """Whether the call has returned or raised."""
        state = self._state  # not ``in TERMINAL_STATES``: hashing a State is slow
        return state is State.RETURNED or state is State.RAISED

    @property
    def start_time(self) -> float:
        """When the call was made (``time.monotonic()``)."""
        start: float = self._history[0]  # type: ignore[assignment]
        return start

    @property
    def end_time(self) -> float | None:
        """When the call returned or raised, ``None`` before."""
        if not self.done:
            return None
        end: float = self._history[-2]  # type: ignore[assignment]
        return end

    @property
    def log(self) -> tuple[tuple[float, State], ...]:
        """Every ``(time, state)`` this transaction has been in, oldest first."""
        history = self._history
        return tuple(zip(history[::2], history[1::2], strict=True))  # type: ignore[arg-type]

    @property
    def result(self) -> object:
        """What the call returned, or the exception it raised; ``None`` before."""
        return self._result

    @property
    def succeeded(self) -> bool | None:
        """Whether the call returned without failing or timing out.

        ``None`` until the call is done. An acquire or a wait that returned
        a false value (it timed out, or could not acquire) did not succeed.
        """
        if not self.done:
            return None
        if self._state is State.RAISED:
            return False
        return not (self.spec.reports_success and not self._result)

    @property
    def failed(self) -> bool | None:
        """The opposite of :attr:`succeeded` (``None`` until done)."""
        succeeded = self.succeeded
        return None if succeeded is None else not succeeded

    @property
    def timeout(self) -> TimeoutState | None:
        """The timeout in effect, or ``None`` when the call has none."""
        spec = self.spec
        if spec.timeout_at is None:
            return None
        value = self._effective_timeout()
        if value is None or value == spec.no_timeout:
            return None
        end = self.end_time
        timed_out = (end is not None and self._deadline is not None
                     and bool(self.failed) and end >= self._deadline)
        return TimeoutState(value, self._deadline, timed_out)

    def _effective_timeout(self) -> object:
        if self._timeout_mode is _EXPIRE:
            return 0
        if self._timeout_mode is _DISREGARD:
            return self.spec.no_timeout
        assert self.spec.timeout_at is not None
        return self.args[self.spec.timeout_at]

    def call_args(self) -> tuple[Any, ...]:
        """The arguments the real call is made with, timeout overrides applied."""
        if self._timeout_mode is _USER:
            return self.args
        return self.spec.with_timeout(self.args, self._effective_timeout())

    # -- pausing ------------------------------------------------------------

    @property
    def pause(self) -> bool:
        """Whether the scheduler asked this call to stop at ``PAUSED``.

        Set it (before the call gets there) to have the call park after the
        real call has been made; clear it, or call :meth:`unpause`, to let
        it go on.
        """
        return self._pause

    @pause.setter
    def pause(self, value: bool) -> None:
        with self._core.lock:
            if value:
                self._check(self._state <= State.PAUSED, "pause")
                self._pause = True
            else:
                self._pause = False
                self._core.release_pause(self)

    @property
    def pausing(self) -> bool:
        """Whether anyone (the scheduler or blanket itself) wants it to pause."""
        return self._pause or self._holds > 0

    # -- letting it go ------------------------------------------------------

    def unblock(self) -> None:
        """Let the call go from the scheduler block (``BLOCKED``), or from
        ``COMMIT`` where a driver's ``commit()`` stopped it."""
        with self._core.lock:
            self._check(self._state in (State.BLOCKED, State.COMMIT) and self._parked,
                        "unblock")
            self._core.release_park(self)

    def unstall(self) -> None:
        """Let the call go from the scheduler stall (``STALLED``)."""
        with self._core.lock:
            self._check(self._state is State.STALLED and self._parked, "unstall")
            self._core.release_park(self)

    def unpause(self) -> None:
        """Withdraw the scheduler's pause request; the call goes on from
        ``PAUSED`` once nobody else wants it paused."""
        with self._core.lock:
            self._check(self._pause, "unpause")
            self._pause = False
            self._core.release_pause(self)

    # -- timeouts -----------------------------------------------------------

    def expire(self) -> None:
        """Make the call time out now: the real call gets a zero timeout."""
        self._set_timeout_mode(_EXPIRE, "expire")

    def disregard(self) -> None:
        """Make the call wait as if no timeout had been given."""
        self._set_timeout_mode(_DISREGARD, "disregard")

    def revert(self) -> None:
        """Undo :meth:`expire` or :meth:`disregard`: the caller's timeout again."""
        self._set_timeout_mode(_USER, "revert")

    def _set_timeout_mode(self, mode: str, verb: str) -> None:
        with self._core.lock:
            if self.spec.timeout_at is None:
                raise TypeError(f"cannot {verb} {self._describe()}: "
                                f"{self.spec.kind}.{self.spec.name} takes no timeout")
            self._check(self._state is State.BLOCKED, verb)
            self._timeout_mode = mode

    # -- the barrier action ---------------------------------------------------

    def push(self) -> _Pop:
        """Take this transaction off its thread's chain until the result is called.

        While pushed, calls the thread makes start fresh chains (their
        ``parent`` is ``None``) and ``Action(tx)`` signals. The returned
        callable (also a context manager) puts the transaction back.
        ``Barrier.wait`` does this around the barrier's action. Only the
        call's own thread, while the call runs, can push it and put it back
        (``ValueError`` otherwise); a call that ends pushed is put back.
        """
        with self._core.lock:
            self._check_own_thread("push")
            if self.parent is not None or self._pushed or self.done:
                raise ValueError(f"cannot push {self._describe()}: only an active root "
                                 "transaction that is not already pushed can be pushed")
            self._core.push(self)
        return _Pop(self)

    def _check_own_thread(self, verb: str) -> None:
        """Refuse *verb* from any thread but the call's own (lock held): from
        another thread it would move the call while the call is parked, and
        its thread would find its chain changed under it."""
        caller = threading.current_thread()
        if caller is not self.thread:
            raise ValueError(f"cannot {verb} {self._describe()} from thread "
                             f"{caller.name!r}: only its own thread can, while the "
                             "call runs (as in a barrier's action)")

    # -- helpers ----------------------------------------------------------------

    def _check(self, allowed: bool, verb: str) -> None:
        if not allowed:
            raise ValueError(f"cannot {verb} {self._describe()}")

    def _describe(self) -> str:
        return (f"{self.spec.kind}.{self.spec.name} of thread {self.thread.name!r} "
                f"in state {self._state.name}"
                + (" (parked)" if self._parked else ""))

    def __repr__(self) -> str:
        parts = [f"<{self.spec.kind}.{self.spec.name}", self._state.name,
                 repr(self.thread.name), f"start_time={self.start_time}"]
        if self.done:
            parts.append(f"result={self._result!r}")
        for name, value, default in zip(self.spec.params, self.args, self.spec.defaults,
                                        strict=True):
            if value is not default and value != default:
                parts.append(f"{name}={value!r}")
        if self.parent is not None:
            parts.append(f"depth={self.depth}")
        parts.append(f"for {label(self.primitive)}>")
        return " ".join(parts)


class _Pop:
    """Puts a pushed transaction back on its chain (see :meth:`Transaction.push`)."""

    __slots__ = ("_tx",)

    def __init__(self, tx: Transaction) -> None:
        self._tx = tx

    def __call__(self) -> None:
        tx = self._tx
        core = tx._core
        with core.lock:
            tx._check_own_thread("pop")
            if tx._pushed and core.chain(tx.thread):
                raise ValueError(f"cannot pop {tx._describe()}: calls its thread made "
                                 "while it was pushed are still in flight")
            core.pop(tx)

    def __enter__(self) -> _Pop:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self()


__all__ = ["CallSpec", "TimeoutState", "Transaction"]
