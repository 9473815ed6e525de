"""Holding back Ctrl-C while managed threads start.

A ``KeyboardInterrupt`` raised inside ``threading.Thread.start`` (while it
waits for the new thread to signal that it runs) can leave that thread's
bookkeeping half done: the entry then waits out the scenario's timeout, or
``Condition.wait`` fails with ``RuntimeError('release unlocked lock')``.
So while the main thread starts managed threads, a ``SIGINT`` is only
recorded, and delivered again, to the handler that was installed, as soon
as the starts are over.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType


@contextlib.contextmanager
def interrupts_held_back() -> Iterator[None]:
    """Within the block, a ``SIGINT`` is recorded instead of handled; after
    it, the handler in place before is back and the signal is raised again.

    Only on the main thread (the only one that handles signals) and only when
    the handler is a Python callable (Python's default one raising
    ``KeyboardInterrupt`` included); otherwise the block runs as it is.
    """
    if threading.current_thread() is not threading.main_thread() \
            or not callable(signal.getsignal(signal.SIGINT)):
        yield
        return
    held: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        held.append(signum)

    previous = signal.getsignal(signal.SIGINT)
    try:
        # Inside the try: an interrupt just before it leaves nothing to undo.
        signal.signal(signal.SIGINT, hold)
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if held:
            signal.raise_signal(signal.SIGINT)
