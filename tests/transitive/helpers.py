"""Helpers in a module of their own: a counter's increment, a closure
factory, a key function for ``sorted``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any


class Tally:
    """A count of calls, shared by the threads."""

    def __init__(self) -> None:
        self.count = 0


def bump(tally: Tally, lock: Any) -> None:
    """Count one (under *lock*, which may do nothing)."""
    with lock:
        tally.count += 1


def counting(lock: Any) -> tuple[Callable[[], None], Callable[[], int]]:
    """An increment closed over its count, and a reader of the count."""
    count = 0

    def increment() -> None:
        nonlocal count
        with lock:
            count += 1

    def total() -> int:
        return count

    return increment, total


class Item:
    """A value to sort, which counts how often its key is asked for."""

    def __init__(self, value: int, tally: Tally, lock: Any) -> None:
        self.value = value
        self.tally = tally
        self.lock = lock


def counted_key(item: Item) -> int:
    """``sorted``'s key: counts the call in the item's tally."""
    with item.lock:
        item.tally.count += 1
    return item.value


def add(tally: Tally) -> None:
    """Count one, unlocked (the threads' callers decide how it is called)."""
    tally.count += 1


class Adder:
    """Counts one as it is made, and again as its method is called."""

    def __init__(self, tally: Tally) -> None:
        tally.count += 1

    def again(self, tally: Tally) -> None:
        tally.count += 1


class CallableAdder:
    """Counts one at each call of an instance."""

    def __call__(self, tally: Tally) -> None:
        tally.count += 1


class Made:
    """Counts one in ``__new__``."""

    def __new__(cls, tally: Tally) -> Made:
        tally.count += 1
        return super().__new__(cls)


def key_for(tally: Tally) -> Callable[[int], int]:
    """A key function for ``sorted`` closed over *tally*."""
    def key(item: int) -> int:
        tally.count += 1
        return item
    return key


#: A key made once, at import, and kept by nothing a thread's frame holds.
SHARED_TALLY = Tally()
SHARED = {"key": key_for(SHARED_TALLY)}


def countdown(n: int) -> Iterator[int]:
    """A generator: resumed at each step."""
    while n:
        yield n
        n -= 1
