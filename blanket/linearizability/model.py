"""The sequential specification's answers: what its object returns for a
call, from each state it can be in.

A :class:`Model` runs the specification alone, on a thread of its own
(``"blanket-model"``, a daemon, ended by :meth:`Model.close`), one call at a
time, on a fresh object per sequence of calls whose primitives are
sequential (:mod:`blanket.linearizability.sequential`): a call that would
wait for good (a ``get`` of an empty queue) is :data:`BLOCKED` at once, with
no clock, however slow the specification is otherwise. The object's states
are numbered by their key (:func:`~blanket.linearizability.objectstate.state_key`):
two sequences of calls that leave it in one state are one state, from which
each call's outcome and next state are memoized, for the whole check. The
object goes on from the state before while a search goes deeper; another
branch rebuilds one, from a fresh object, by the calls that first made that
state (the specification is deterministic: they return as before, which is
checked).

What the check was given failing is a :class:`~blanket.LinearizabilityError`,
never a verdict: a factory raising (:class:`Factory` numbers its calls), the
specification raising one of :data:`BROKEN` (its other exceptions are
results, as the object under test's are), a call of it not returning within
the check's timeout (its thread is then left to it: a daemon, it ends when
the call does, or with the process).

Going back to a state where the search branches, the model copies the
object it kept there (``copy.deepcopy``, the objects fresh objects share
left shared), once it checked that the copy's key is the state's: a state
that cannot be read, or copied, is made again call by call.
"""

from __future__ import annotations

import copy
import queue
import threading
import time
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from ..errors import LinearizabilityError
from .objectstate import reachable, state_key
from .operations import describe
from .sequential import Blocks, make_sequential

#: The exceptions that say the specification, the factory or the operation
#: is broken, not what the object does: raised by the specification, they
#: are a :class:`~blanket.LinearizabilityError`, not a result.
BROKEN = (TypeError, AttributeError, NameError, AssertionError, NotImplementedError,
          RecursionError, ImportError, SyntaxError, SystemError)
#: The most states a model keeps a copy of, to go back to one at once
#: rather than make it again call by call.
MAX_COPIES = 1024
#: The fewest calls that make a state before the model keeps a copy of it:
#: fewer are made again faster than copied.
COPY_DEPTH = 16


class Outcome:
    """What a call returned, or raised."""

    __slots__ = ("raised", "value", "token")

    def __init__(self, raised: bool, value: Any, token: int | None = None) -> None:
        #: Whether :attr:`value` is an exception the call raised.
        self.raised = raised
        #: The return value or the exception.
        self.value = value
        #: For a value compared by identity (:func:`by_identity`), which one
        #: it is among those the sequence of calls returned: 1 for the first
        #: returned, and so on (the specification's answers only).
        self.token = token

    def matches(self, other: Outcome) -> bool:
        """Whether *other* is the same result: an equal value, or an
        exception of the same type with the same arguments (a comparison
        that raises raises)."""
        if self.raised != other.raised:
            return False
        if self.raised:
            return type(self.value) is type(other.value) and self.value.args == other.value.args
        return bool(self.value == other.value)

    def __str__(self) -> str:
        return f"raised {self.value!r}" if self.raised else f"-> {self.value!r}"


#: The specification's outcome of a call that waits for good there.
BLOCKED = Outcome(False, "<blocked>")


def by_identity(outcome: Outcome) -> bool:
    """Whether *outcome*'s value is compared by which object it is: an
    instance of a class that keeps ``object``'s equality. The
    specification's object is never the run's, so such values match when
    they are the same one of those the calls before returned, or both new
    (a cache that hands two callers two objects for one key is caught)."""
    value = outcome.value
    return (not outcome.raised and value is not None
            and type(value).__eq__ is object.__eq__)  # type: ignore[comparison-overlap]


class Factory:
    """A factory a check calls (``make`` or ``model``), its calls numbered:
    one that raises is a :class:`~blanket.LinearizabilityError` naming the
    call, not a verdict."""

    def __init__(self, make: Callable[[], Any], role: str) -> None:
        #: The factory.
        self.make = make
        #: Its argument's name.
        self.role = role
        #: How many times it was called.
        self.calls = 0

    def __call__(self) -> Any:
        self.calls += 1
        try:
            return self.make()
        except Exception as error:  # noqa: BLE001 - any exception: the check cannot go on
            raise LinearizabilityError(
                f"check_linearizable: {self.role}={describe(self.make)} raised {error!r} on "
                f"its call number {self.calls} (the check calls it for each run and for "
                "the specification: it must make a fresh object every time)") from error


class _Live:
    """The model's object in a state, and the objects compared by identity
    its calls returned, numbered from 1."""

    def __init__(self, obj: Any) -> None:
        self.obj = obj
        self.state = 0
        self.numbers: dict[int, int] = {}
        self.kept: list[Any] = []  # the numbered objects, alive so their ids stay theirs


class Model:
    """The sequential specification's answers, from the objects *factory*
    makes (one per sequence of calls): what a call returns from a state, and
    the state after, memoized; one per check, shared by its scenarios. A
    call that has not returned after *timeout* seconds is an error."""

    def __init__(self, factory: Callable[[], Any], timeout: float = 10.0) -> None:
        self.factory = factory
        self.timeout = timeout
        #: The first error of what the check was given, once met: the check
        #: raises it.
        self.error: LinearizabilityError | None = None
        self._runner: _Runner | None = None
        self._shared: dict[int, Any] | None = None
        self.forget()

    def forget(self) -> None:
        """Drop every answer: the next ones are worked out again."""
        #: Per state (numbered from 0, a fresh object's), the state before
        #: and the call that first made it.
        self._made: list[tuple[int, Callable[[Any], Any]] | None] = [None]
        #: Per state, its key (``None``: it cannot be read), and how many
        #: calls first made it.
        self._keys: list[Hashable | None] = [None]
        self._depths = [0]
        self._states: dict[Hashable, int] = {}
        #: A copy of the object in some states, to go back to (``None``: it
        #: cannot be copied).
        self._copies: dict[int, _Live | None] = {}
        #: Per state and operation (by id), the outcome and the state after
        #: (-1 when it blocks).
        self._answers: dict[tuple[int, int], tuple[Outcome, int]] = {}
        self._operations: dict[int, Callable[[Any], Any]] = {}  # alive, so ids stay theirs
        self._live: _Live | None = None
        self._known: dict[int, Any] = dict(self._shared or {})

    def fail(self, error: LinearizabilityError) -> LinearizabilityError:
        """Keep *error* as the check's if it is the first; *error*."""
        if self.error is None:
            self.error = error
        return error

    def run(self, task: Callable[[], Any]) -> Any:
        """What *task* returns (or raises), run on the model's thread; an
        error if a call of the specification in it does not return within
        the timeout."""
        runner = self._runner
        if runner is not None and threading.current_thread() is runner.thread:
            return task()
        if self.error is not None:
            raise self.error
        if runner is None:
            runner = self._runner = _Runner()
        try:
            return runner.run(task, self.timeout)
        except _Stuck as stuck:
            self._runner = None  # left to its call, which it ends with
            call = stuck.call if isinstance(stuck.call, str) else (
                self._factory_named() if stuck.call is self.factory else describe(stuck.call))
            raise self.fail(LinearizabilityError(
                f"check_linearizable: the specification's {call} did not return "
                f"within {self.timeout:g} s (timeout={self.timeout:g}): it waits for "
                "what its own object's primitives are not (a lock made at import time or "
                "during the call, a C queue), which nothing will end, or it is slower "
                "than that; its thread ('blanket-model', a daemon) is left to "
                "it")) from None

    def close(self) -> None:
        """End the model's thread (another call starts a new one)."""
        if self._runner is not None:
            self._runner.stop(self.timeout)
            self._runner = None

    def outcome(self, operations: Sequence[Callable[[Any], Any]]) -> Outcome:
        """What the specification returns for the last of *operations* after
        the others, from a fresh object (:data:`BLOCKED` if one blocks)."""
        def walk() -> Outcome:
            state, outcome = self.root(), BLOCKED
            for operation in operations:
                outcome, state = self.step(state, operation)
                if state < 0:
                    return BLOCKED
            return outcome
        return self.run(walk)  # type: ignore[no-any-return]

    def root(self) -> int:
        """The state of a fresh object."""
        return 0

    def step(self, state: int, operation: Callable[[Any], Any],
             keep: bool = False) -> tuple[Outcome, int]:
        """What *operation* returns from *state*, and the state after (-1
        if it blocks), on the model's thread (see :meth:`run`); *keep*: the
        search will come back to *state*, keep a copy of it."""
        known = (state, id(operation))
        if known in self._answers:  # (not get: see the note at the top of blanket.core)
            return self._answers[known]
        return self.run(lambda: self._step(state, operation, keep))  # type: ignore[no-any-return]

    def _step(self, state: int, operation: Callable[[Any], Any],
              keep: bool) -> tuple[Outcome, int]:
        """:meth:`step`, not memoized yet, on the model's thread."""
        live = self._live
        if live is None or live.state != state:
            live = self._live = self._rebuilt(state)
        if keep and state not in self._copies and self._keys[state] is not None \
                and self._depths[state] >= COPY_DEPTH:
            self._keep(live)
        outcome = self._call(live, operation)
        after = -1
        if outcome is BLOCKED:
            self._live = None  # half-way through a call: no state
        else:
            # A state that cannot be read is known by the calls that made it.
            key = state_key(live.obj, live.numbers, self._known)
            found = self._states.setdefault(("made", state, id(operation)) if key is None
                                            else key, len(self._made))
            if found == len(self._made):
                self._made.append((state, operation))
                self._keys.append(key)
                self._depths.append(self._depths[state] + 1)
            after = live.state = found
        self._operations[id(operation)] = operation
        self._answers[state, id(operation)] = answer = (outcome, after)
        return answer

    def _rebuilt(self, state: int) -> _Live:
        """The object in *state*: a copy of the nearest state before it that
        has one (or a fresh object), brought there by the calls that first
        made it."""
        path: list[tuple[int, Callable[[Any], Any]]] = []
        at = state
        while True:
            kept = self._copies.get(at)
            live = self._copy(kept) if kept is not None else None
            made = self._made[at]
            if live is not None or made is None:
                break
            path.append(made)
            at = made[0]
        if live is None:
            live = _Live(self._fresh())
            if not self._states:  # the first fresh object: its state is state 0
                key = self._keys[0] = state_key(live.obj, live.numbers, self._known)
                if key is not None:
                    self._states[key] = 0
        for before, operation in reversed(path):
            outcome = self._call(live, operation)
            known, after = self._answers[before, id(operation)]
            if not _same(outcome, known):
                raise self.fail(LinearizabilityError(
                    f"check_linearizable: the specification is not deterministic: "
                    f"{describe(operation)} {outcome} after {len(path)} call(s) on a fresh "
                    f"object, {known} the first time: its results must depend on its calls "
                    "only"))
            live.state = after
        return live

    def _keep(self, live: _Live) -> None:
        """Keep a copy of *live*, if its key is the state's (``None`` if not)."""
        kept = self._copy(live)
        if kept is not None and state_key(kept.obj, kept.numbers,
                                          self._known) != self._keys[live.state]:
            kept = None  # not the same state: made again call by call instead
        self._copies[live.state] = kept
        if len(self._copies) > MAX_COPIES:
            del self._copies[next(iter(self._copies))]

    def _copy(self, live: _Live) -> _Live | None:
        """A copy of *live*'s object, and of the objects it returned, what
        fresh objects share left shared; ``None`` if it cannot be copied."""
        with _Calling(self, "copy.deepcopy of its object"):
            try:
                obj, kept = copy.deepcopy((live.obj, live.kept), dict(self._shared or {}))
            except Exception:  # noqa: BLE001 - not copied: made again call by call
                return None
        copied = _Live(obj)
        copied.state, copied.kept = live.state, kept
        copied.numbers = {id(value): number for number, value in enumerate(kept, 1)}
        return copied

    def _fresh(self) -> Any:
        """A fresh object, its primitives sequential."""
        obj = self._made_by_factory()
        if self._shared is None:
            # What two fresh objects both hold is shared: not either's own.
            other = reachable(self._made_by_factory())
            self._shared = {key: value for key, value in reachable(obj).items()
                            if key in other}
            self._known.update(self._shared)
        return make_sequential(obj, self._shared)

    def _made_by_factory(self) -> Any:
        with _Calling(self, self.factory):
            try:
                return self.factory()
            except LinearizabilityError as error:  # a Factory's
                raise self.fail(error) from error.__cause__
            except Exception as error:  # noqa: BLE001 - any exception: the check cannot go on
                raise self.fail(LinearizabilityError(
                    f"check_linearizable: the specification's {self._factory_named()} raised "
                    f"{error!r}")) from error

    def _factory_named(self) -> str:
        factory = self.factory
        return f"factory {describe(factory.make if isinstance(factory, Factory) else factory)}"

    def _call(self, live: _Live, operation: Callable[[Any], Any]) -> Outcome:
        """``operation(obj)``'s outcome, its value numbered if compared by identity."""
        with _Calling(self, operation):
            try:
                outcome = Outcome(False, operation(live.obj))
            except Blocks:
                return BLOCKED
            except BROKEN as error:
                raise self.fail(LinearizabilityError(
                    f"check_linearizable: the specification's {describe(operation)} raised "
                    f"{error!r}: an exception of this type says that the specification "
                    "(model=, by default make=) or the operation is broken, not what the "
                    "object does")) from error
            except Exception as error:  # noqa: BLE001 - an exception is a result
                return Outcome(True, error)
        if by_identity(outcome):
            value = outcome.value
            if id(value) not in live.numbers:
                live.numbers[id(value)] = len(live.numbers) + 1
                live.kept.append(value)
            outcome.token = live.numbers[id(value)]
        return outcome


def _same(one: Outcome, other: Outcome) -> bool:
    """Whether two answers of the specification to one call are the same."""
    if one.token is not None or other.token is not None or one is BLOCKED \
            or other is BLOCKED:
        return one.token == other.token and (one is BLOCKED) == (other is BLOCKED)
    try:
        return one.matches(other)
    except Exception:  # noqa: BLE001 - not comparable: the search says so
        return True


class _Calling:
    """Says to the model's thread's watcher which call of the specification
    runs (the operation, the factory, or what it does), and since when."""

    def __init__(self, model: Model, call: Callable[..., Any] | str) -> None:
        runner = model._runner
        assert runner is not None  # the specification runs on the model's thread only
        self.runner = runner
        self.call = call

    def __enter__(self) -> None:
        self.runner.current = (self.call, time.monotonic())

    def __exit__(self, *exc: object) -> None:
        self.runner.current = None


class _Stuck(Exception):
    """A call of the specification did not return in time."""

    def __init__(self, call: Callable[..., Any] | str) -> None:
        super().__init__(call)
        self.call = call


def _stop() -> None:
    """The task that ends a runner."""


class _Runner:
    """The model's thread: it runs the tasks it is given, one at a time."""

    def __init__(self) -> None:
        self.tasks: queue.SimpleQueue[Callable[[], Any]] = queue.SimpleQueue()
        self.results: queue.SimpleQueue[tuple[bool, Any]] = queue.SimpleQueue()
        #: The call of the specification running, and since when.
        self.current: tuple[Callable[..., Any] | str, float] | None = None
        #: Set once its caller gave it up: it ends after its task.
        self.abandoned = False
        self.thread = threading.Thread(target=self._serve, daemon=True, name="blanket-model")
        self.thread.start()

    def _serve(self) -> None:
        while (task := self.tasks.get()) is not _stop:
            try:
                result = (True, task())
            except BaseException as error:  # noqa: BLE001 - handed to the caller
                result = (False, error)
            if self.abandoned:
                return
            self.results.put(result)

    def run(self, task: Callable[[], Any], timeout: float) -> Any:
        """What *task* returns, or raises; :class:`_Stuck` once a call of
        the specification in it has run for *timeout* seconds."""
        self.tasks.put(task)
        while True:
            current = self.current
            wait = timeout if current is None else current[1] + timeout - time.monotonic()
            try:
                done, value = self.results.get(timeout=max(wait, 0.0))
            except queue.Empty:
                current = self.current
                if current is not None and time.monotonic() - current[1] >= timeout:
                    self.abandoned = True
                    raise _Stuck(current[0]) from None
                continue
            if not done:
                raise value
            return value

    def stop(self, timeout: float) -> None:
        """End the thread (it is idle: its last task returned) and wait
        until it is gone: nothing is left running."""
        self.tasks.put(_stop)
        self.thread.join(timeout)
