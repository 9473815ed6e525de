"""A module with lazy attributes, as ``six`` has: reading a missing name
(but a dunder), or any attribute of ``Moves.winreg``, imports a module that
is not there."""

from __future__ import annotations

from typing import Any


class MovedModule:
    """Stands for a module imported on first use (six's ``MovedModule``)."""

    def __getattr__(self, name: str) -> Any:
        raise ModuleNotFoundError("No module named 'gone'")


class Moves:
    """Its attributes are lazy (six's ``_MovedItems``)."""

    winreg = MovedModule()

    def first(self) -> int:
        return 1


def __getattr__(name: str) -> Any:
    if name.startswith("__"):  # (as lazy modules do: what asks every module)
        raise AttributeError(name)
    raise ModuleNotFoundError(f"No module named 'gone' (for {name})")


def helper() -> int:
    return 2
