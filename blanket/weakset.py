"""A set held weakly, in blanket's own code: a scenario's primitives.

``weakref.WeakSet`` would do, but its methods are Python code of the
standard library's, and an exploration runs them in every run (a
scenario's primitives are counted in, and gone over as it is entered and
exited). From 3.12 on, ``sys.monitoring``'s events stay on in such code
(see ``blanket.exploration.monitor``): each call there costs a call of a
Python callback, and the standard ``WeakSet`` was a third of a run's events
on the 924-order benchmark. This one keeps, in a dict, a weak reference to
each object, made with the dict's own ``pop`` as its callback: the entry
goes when the object does, with no Python code run.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class WeakSet(Generic[T]):
    """The objects added and still alive, in the order added. Its objects
    are told apart by identity (a ``weakref.ref`` hashes and compares as
    its object does: the objects kept here, blanket's primitives, define
    neither)."""

    __slots__ = ("_refs",)

    def __init__(self) -> None:
        self._refs: dict[weakref.ref[T], None] = {}

    def add(self, item: T) -> None:
        """Hold *item*, weakly (once however often it is added)."""
        refs = self._refs
        refs.setdefault(weakref.ref(item, refs.pop))

    def _alive(self) -> list[T]:
        # (list() copies the keys at once: a callback may remove one meanwhile.)
        return [item for ref in list(self._refs) if (item := ref()) is not None]

    def __iter__(self) -> Iterator[T]:
        """The objects alive now, in the order added."""
        return iter(self._alive())

    def __len__(self) -> int:
        return len(self._alive())
