"""Code a thread's target calls, in a module of its own: the branch a
search for a line must reach is here, not in the thread's target
(tests/reach_cases.py)."""

from __future__ import annotations

from typing import Any


def take(box: Any) -> object:
    """The item in *box*, or ``None`` when the producer has not put it yet."""
    with box.lock:
        if box.items:
            return box.items.pop()  # REACH other-module
        return None
