"""Classes for the tests of blanket.audit (tests/test_audit*.py): a locked
class that is linearizable, a racy one that is not, one whose ``get``
blocks, ones with what an audit must set aside, a context manager, a
class written in C, ... Each at module level, so that the tests the audit
writes can import it."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

#: What a blocking call of Unseen waits on: made at import, not the object's.
GATE: queue.SimpleQueue[object] = queue.SimpleQueue()


class RacyCounter:
    """``self.count += 1`` with no lock: an update can be lost."""

    def __init__(self) -> None:
        self.count = 0

    def increment(self) -> int:
        self.count += 1
        return self.count

    @property
    def value(self) -> int:
        return self.count


class LockedCounter:
    """The counter, its update under a lock."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.count = 0

    def increment(self) -> int:
        with self.lock:
            self.count += 1
            return self.count

    @property
    def value(self) -> int:
        with self.lock:
            return self.count


class Mailbox:
    """One slot: ``get`` waits until something was put."""

    def __init__(self) -> None:
        self.ready = threading.Condition()
        self.items: list[Any] = []

    def put(self, item: int) -> None:
        with self.ready:
            self.items.append(item)
            self.ready.notify()

    def get(self) -> Any:
        with self.ready:
            while not self.items:
                self.ready.wait()
            return self.items.pop(0)


class Registry:
    """A locked map with all an audit meets: protocols, a property, a
    context manager, and methods it must set aside."""

    #: A class constant: no operation.
    LIMIT = 10

    class Entry:
        """A nested class: no operation."""

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self.lock = threading.RLock()
        self.entries: dict[str, int] = {}

    def __setitem__(self, key: str, value: int) -> None:
        with self.lock:
            self.entries[key] = value

    def __getitem__(self, key: str) -> int:
        with self.lock:
            return self.entries[key]

    def __contains__(self, key: str) -> bool:
        with self.lock:
            return key in self.entries

    def __iter__(self) -> Any:
        with self.lock:
            return iter(list(self.entries))

    def __enter__(self) -> Registry:
        self.lock.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.lock.release()

    def keys(self) -> Any:
        with self.lock:
            return list(self.entries).__iter__()

    @property
    def size(self) -> int:
        with self.lock:
            return len(self.entries)

    def subscribe(self, callback: Callable[[], None]) -> None:
        """Needs an argument an audit cannot guess."""

    def acquire(self) -> None:
        """Depends on the calling thread."""

    def close(self) -> None:
        """A lifecycle method."""

    def strict(self, count: int) -> int:
        """Raises TypeError with what an audit passes."""
        raise TypeError(f"strict: {count!r} refused")

    @classmethod
    def build(cls) -> Registry:
        return cls(1)

    @staticmethod
    def helper() -> None:
        """Acts on no object."""


class Unseen:
    """A method that waits for what blanket does not see (a queue made at
    import): set aside, as it would block for good."""

    def __init__(self) -> None:
        self.calls = 0

    def wait(self) -> object:
        return GATE.get()

    def touch(self) -> int:
        self.calls += 1
        return self.calls


class NeedsCallback:
    """A constructor that needs what an audit cannot guess."""

    def __init__(self, callback: Callable[[], None]) -> None:
        self.callback = callback


class Broken:
    """A constructor that raises."""

    def __init__(self) -> None:
        raise RuntimeError("no")


class EnterOnly:
    """``__enter__`` without ``__exit__``: no context manager."""

    def __enter__(self) -> None:
        return None

    def ping(self) -> int:
        return 1


class Table(dict):  # type: ignore[type-arg]
    """A dict subclass: its methods are written in C."""


def make_counter() -> RacyCounter:
    """A factory of racy counters."""
    return RacyCounter()


class RacyBounded:
    """A bounded counter whose constructor needs a size: the check and the
    update are not atomic."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.count = 0

    def add(self) -> bool:
        if self.count < self.limit:
            self.count += 1
            return True
        return False


class _Listed(type):
    """A metaclass whose dir() lists a name its classes do not have."""

    def __dir__(cls) -> list[str]:
        return [*super().__dir__(), "ghost"]


class _Refusing:
    """A callable class attribute that raises when read on an object."""

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        raise RuntimeError("not here")

    def __call__(self) -> None:
        """Never called."""


class Odd(metaclass=_Listed):
    """Names an audit cannot look at."""

    refusing = _Refusing()

    def __init__(self) -> None:
        self.count = 0

    def bump(self) -> int:
        self.count += 1
        return self.count


class Store:
    """A map whose subclasses hand their arguments on."""

    def __init__(self) -> None:
        self.data: dict[str, int] = {}

    def put(self, key: str, value: int) -> None:
        self.data[key] = value

    def get(self, key: str) -> int | None:
        return self.data.get(key)

    def echo(self, *args: Any) -> tuple[Any, ...]:
        return args


class Middle(Store):
    def get(self, *args: Any, **kwargs: Any) -> int | None:
        return super().get(*args, **kwargs)


class Timed(Middle):
    """``get(*args, **kwargs)`` over ``Middle.get(*args, **kwargs)`` over
    ``Store.get(key)``: called as ``Store.get`` says."""

    def get(self, *args: Any, **kwargs: Any) -> int | None:
        return super().get(*args, **kwargs)
