"""The ``"random"`` strategy: a seeded random choice at every step."""

from __future__ import annotations

import random
from collections.abc import Callable

from .run import Option, Run


def chooser(rng: random.Random) -> Callable[[int, list[Option], Run], int]:
    """A chooser taking one of the options at random, from *rng*."""
    def choose(depth: int, options: list[Option], run: Run) -> int:
        return rng.randrange(len(options))
    return choose
