"""A counter bumped without a lock: its twin in the other package has the
same file name, and the update on the same line."""

from typing import Any


def bump(thing: Any) -> None:
    thing.value += 1
