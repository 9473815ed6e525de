"""One CPU for an exploration's threads.

An exploration lets one thread run at a time: each step wakes one thread
and the one before goes to sleep. Between two CPUs such a hand-off costs a
wake-up of the other CPU, which an idle CPU (a virtual machine's above
all) answers late; on one CPU it is a plain switch of threads. So
:func:`one_cpu` keeps the calling thread, and the threads it starts
meanwhile (they inherit it), on the CPU it runs on, and puts its CPUs
back afterwards. Nothing runs less at once than before: the scheduler
never lets two of a run's threads go together.

Only where the system has ``os.sched_setaffinity`` (Linux); elsewhere, or
when the calling thread may run on one CPU only, or the system refuses,
nothing changes.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator


def current_cpu() -> int | None:
    """The CPU the calling thread runs on, or ``None`` if the system does
    not tell (``/proc/thread-self/stat``'s 39th field)."""
    try:
        with open("/proc/thread-self/stat", "rb") as stat:
            # The name (2nd field) is in parentheses and may hold anything.
            fields = stat.read().rsplit(b")", 1)[1].split()
        return int(fields[36])
    except (OSError, IndexError, ValueError):
        return None


@contextlib.contextmanager
def one_cpu() -> Iterator[None]:
    """Keep the calling thread (and the threads it starts) on one CPU, the
    one it runs on, while the block runs; then put its CPUs back."""
    setaffinity = getattr(os, "sched_setaffinity", None)
    if setaffinity is None:  # pragma: no cover - not Linux
        yield
        return
    allowed = os.sched_getaffinity(0)
    cpu = current_cpu()
    if len(allowed) < 2 or cpu not in allowed:
        yield
        return
    try:
        setaffinity(0, {cpu})
    except OSError:  # pragma: no cover - a system that refuses
        yield
        return
    try:
        yield
    finally:
        setaffinity(0, allowed)
