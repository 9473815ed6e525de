"""Where the log is kept: the finished transactions of a scenario, in order."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import overload

from .transaction import Transaction


class Log(Sequence[Transaction]):
    """A read-only sequence of finished transactions, in completion order.

    The scenario appends to it as calls finish; it is emptied when the
    scenario is entered and by ``scenario.reset()``, and stays readable after
    the scenario exits.
    """

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: list[Transaction] = []

    def __len__(self) -> int:
        return len(self._entries)

    @overload
    def __getitem__(self, index: int) -> Transaction: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Transaction, ...]: ...

    def __getitem__(self, index: int | slice) -> Transaction | tuple[Transaction, ...]:
        if isinstance(index, slice):
            return tuple(self._entries[index])
        return self._entries[index]

    def __iter__(self) -> Iterator[Transaction]:
        return iter(tuple(self._entries))

    def __repr__(self) -> str:
        return f"<blanket log of {len(self._entries)} transactions>"

    def _append(self, tx: Transaction) -> None:
        self._entries.append(tx)

    def _clear(self) -> None:
        self._entries.clear()
