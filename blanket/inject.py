"""``scenario.inject(module)``: a module's ``threading`` references, pointed at
a scenario.

Code under test usually makes its own locks. An :class:`Injection` rebinds,
in one module's namespace, every name whose value is one of ``threading``'s
primitive classes (``from threading import Lock``, ``Mutex =
threading.Lock``: found by value, not by name) to the scenario's class, and
every name holding the ``threading`` module itself to a
:class:`ThreadingView`, whose primitive classes are the scenario's and whose
other attributes are ``threading``'s. A name holding a real primitive made
at import time (``_lock = threading.Lock()``) is rebound to a scenario
primitive of the same kind in the same state (a ``Condition``'s lock with
it; a primitive in use, a held lock or a barrier with waiters, is refused).
Closing the injection puts the original values back.

Injections into one module nest: an inner one rebinds what the outer one
installed, and they must be closed innermost first, so that no close can
restore a value another open injection still relies on.
"""

from __future__ import annotations

import _thread
import threading
import types
import weakref
from typing import TYPE_CHECKING, Any

from . import primitives

if TYPE_CHECKING:  # pragma: no cover
    from .scenario import Scenario

# Every way the standard library spells a primitive class, by kind.
# (Compared by identity: a module may hold values that cannot be hashed.)
_REAL_CLASSES: tuple[tuple[object, str], ...] = (
    (_thread.allocate_lock, "Lock"),
    (_thread.RLock, "RLock"),
    *((getattr(threading, kind), kind) for kind in primitives.KINDS),
)

# The open injections of each module, innermost last.
_open: weakref.WeakKeyDictionary[types.ModuleType, list[Injection]] = (
    weakref.WeakKeyDictionary())


class ThreadingView(types.ModuleType):
    """What an injected module sees as ``threading``: the scenario's seven
    primitive classes, and ``threading``'s own attributes for everything else
    (``Thread``, ``local``, ``get_ident``, ...)."""

    def __init__(self, scenario: Scenario) -> None:
        super().__init__("threading", threading.__doc__)
        for kind in primitives.KINDS:
            setattr(self, kind, getattr(scenario, kind))

    def __getattr__(self, name: str) -> Any:
        return getattr(threading, name)

    def __repr__(self) -> str:
        return f"<threading as seen by {self.Lock._core.name!r}>"


class Injection:
    """One module's ``threading`` references, rebound to a scenario until
    :meth:`close` (or the end of the ``with`` block)."""

    def __init__(self, scenario: Scenario, module: types.ModuleType) -> None:
        if not isinstance(module, types.ModuleType):
            raise TypeError(f"inject takes a module, not {module!r}")
        if _is_threading_itself(module):
            raise ValueError(
                f"cannot inject into module {module.__name__!r}: blanket's primitives "
                "are made of threading's own, so they would be made of themselves. "
                "Inject into the module under test, which uses threading.")
        self.module = module
        self._originals: dict[str, Any] = {}
        stack = _open.setdefault(module, [])
        namespace = vars(module)
        view = ThreadingView(scenario)
        rebound = {name for outer in stack for name in outer._originals}
        twins: dict[int, Any] = {}  # real primitive's id -> its twin, made once
        replacements: dict[str, Any] = {}
        for name, value in list(namespace.items()):
            replacement = _replacement(value, scenario, view, name in rebound)
            if replacement is None:
                try:
                    replacement = _twin(value, scenario, twins)
                except ValueError as error:
                    if not stack:
                        del _open[module]
                    raise ValueError(f"cannot inject into module {module.__name__!r}: "
                                     f"{module.__name__}.{name} is {error}") from None
            if replacement is not None:
                replacements[name] = replacement
        for name, replacement in replacements.items():
            self._originals[name] = namespace[name]
            namespace[name] = replacement
        if not self._originals:
            if not stack:
                del _open[module]
            raise ValueError(
                f"nothing to inject in module {module.__name__!r}: no name in it "
                "is bound to threading, one of its primitive classes or a real "
                "primitive. Is it "
                "the module that creates the primitives? A module that imports "
                "threading inside a function has nothing to patch until then; "
                "inject into the module it imports from, or import at top level.")
        stack.append(self)

    @property
    def names(self) -> tuple[str, ...]:
        """The names this injection rebound, in the module's order."""
        return tuple(self._originals)

    @property
    def closed(self) -> bool:
        """Whether the original values are back."""
        return self not in _open.get(self.module, ())

    def close(self) -> None:
        """Put back the values this injection replaced. Closing twice does
        nothing; closing while a later injection into the same module is still
        open is a :class:`RuntimeError` (close that one first)."""
        stack = _open.get(self.module, [])
        if self not in stack:
            return
        if stack[-1] is not self:
            raise RuntimeError(
                f"{self!r} closed while a later injection into the same module is "
                f"open ({stack[-1]!r}): close injections innermost first")
        stack.pop()
        if not stack:
            del _open[self.module]
        vars(self.module).update(self._originals)

    def __enter__(self) -> Injection:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"<blanket.Injection into {self.module.__name__!r} {state}: {', '.join(self.names)}>"


def _is_threading_itself(module: types.ModuleType) -> bool:
    """Whether *module* is ``threading``, ``_thread`` or one of blanket's."""
    name = getattr(module, "__name__", "")
    return module is threading or module is _thread or name == "blanket" \
        or name.startswith("blanket.")


def _replacement(value: object, scenario: Scenario, view: ThreadingView,
                 nested: bool) -> Any:
    """What *value* becomes under this injection, or ``None`` to keep it.

    *nested* says the name was rebound by an open injection of the same
    module: what that one installed is replaced in turn."""
    if value is threading or (nested and isinstance(value, ThreadingView)):
        return view
    if nested and isinstance(value, primitives.Kind):
        return getattr(scenario, value.__name__)
    for real, kind in _REAL_CLASSES:
        if value is real:
            return getattr(scenario, kind)
    return None


_LOCK_TYPE = type(_thread.allocate_lock())


def _twin(value: object, scenario: Scenario, twins: dict[int, Any]) -> Any:
    """A primitive of *scenario* in the state of the real primitive *value*
    (each real one gets one twin, kept in *twins*), or ``None`` when
    *value* is not a real primitive. :class:`ValueError` (saying what
    *value* is) for one in use: a twin cannot be in the same state."""
    if id(value) in twins:
        return twins[id(value)]
    kind = type(value)
    if kind is _LOCK_TYPE or kind is _thread.RLock:
        name = "Lock" if kind is _LOCK_TYPE else "RLock"
        # An RLock tells whether it is held only in its repr ("count=0").
        held = value.locked() if kind is _LOCK_TYPE else " count=0 " not in repr(value)  # type: ignore[attr-defined]
        if held:
            raise ValueError(f"a real {name} held at the injection")
        twin: Any = getattr(scenario, name)()
    elif kind is threading.Condition:
        assert isinstance(value, threading.Condition)
        lock = _twin(value._lock, scenario, twins)  # type: ignore[attr-defined]
        if lock is None:  # a lock of its own kind: the condition cannot be copied
            raise ValueError(f"a real Condition over {value._lock!r}")  # type: ignore[attr-defined]
        twin = scenario.Condition(lock)
    elif kind is threading.Semaphore or kind is threading.BoundedSemaphore:
        assert isinstance(value, threading.Semaphore)
        count: int = value._value
        if kind is threading.BoundedSemaphore:
            if count != value._initial_value:  # type: ignore[attr-defined]
                raise ValueError("a real BoundedSemaphore acquired at the injection")
            twin = scenario.BoundedSemaphore(count)
        else:
            twin = scenario.Semaphore(count)
    elif kind is threading.Event:
        assert isinstance(value, threading.Event)
        twin = scenario.Event()
        if value.is_set():
            twin._real.set()  # the flag only: no call on the scenario's event
    elif kind is threading.Barrier:
        assert isinstance(value, threading.Barrier)
        if value.n_waiting or value.broken:
            raise ValueError("a real Barrier in use (waiters, or broken) at the injection")
        twin = scenario.Barrier(value.parties, value._action,  # type: ignore[attr-defined]
                                value._timeout)  # type: ignore[attr-defined]
    else:
        return None
    twins[id(value)] = twin
    return twin
