"""One exploration at a time in a process: explorations set process-wide
hooks (``sys.monitoring``'s tool, the threads' profile, the CPU the threads
run on, the state ``logging`` is put back to), which two at once would take
from each other."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class _Exploring:
    """The thread exploring now, and how deep (its explorations nest: a
    setup of a test may explore), guarded by :attr:`lock`."""

    lock = threading.Lock()
    owner: threading.Thread | None = None
    depth = 0


@contextmanager
def alone() -> Iterator[None]:
    """Make the calling thread's exploration the process's only one:
    another thread's, going on, is refused (RuntimeError). Explorations
    set process-wide hooks (``sys.monitoring``'s tool, the threads'
    profile, the CPU the threads run on, the state ``logging`` is put back
    to), which two at once would take from each other."""
    me = threading.current_thread()
    with _Exploring.lock:
        owner = _Exploring.owner
        if owner is not None and owner is not me:
            raise RuntimeError(f"explore: thread {me.name!r} cannot explore while thread "
                               f"{owner.name!r} does: one exploration at a time in a "
                               "process (run them one after another, or in processes of "
                               "their own)")
        _Exploring.owner, _Exploring.depth = me, _Exploring.depth + 1
    try:
        yield
    finally:
        with _Exploring.lock:
            _Exploring.depth -= 1
            if not _Exploring.depth:
                _Exploring.owner = None
