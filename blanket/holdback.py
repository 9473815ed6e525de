"""Holding back Ctrl-C where an interrupt would leave threads behind.

A ``KeyboardInterrupt`` raised inside ``threading.Thread.start`` (while it
waits for the new thread to signal that it runs) can leave that thread's
bookkeeping half done: the entry then waits out the scenario's timeout, or
``Condition.wait`` fails with ``RuntimeError('release unlocked lock')``.
One raised inside ``Thread.join`` while the thread runs can, on 3.11 and
3.12, mark the thread as ended (CPython gh-90882): the exit then stops
waiting for it and leaves it running. So while the main thread starts or
joins managed threads, a ``SIGINT`` is only recorded, and delivered again,
to the handler that was installed, as soon as the start, or a short stretch
of the join, is over (:func:`interrupts_held_back`). And one that lands at
the very start of a scenario's exit waits for the exit (:class:`ExitGuard`).
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # (no stub: the C half of signal)
import dis
import functools
import signal
import threading
import time
from collections.abc import Callable, Iterable
from types import CodeType, FrameType


class interrupts_held_back:  # noqa: N801 - used as a function: ``with interrupts_held_back():``
    """Within the block, a ``SIGINT`` is recorded instead of handled; after
    it, the handler in place before is back and the signal is raised again.

    Only on the main thread (the only one that handles signals) and only when
    the handler is a Python callable (Python's default one raising
    ``KeyboardInterrupt`` included); otherwise the block runs as it is.

    (A class, not a generator made into a context manager: an exploration
    holds back a few times per run, and contextlib's code is not blanket's,
    so its calls are events of ``sys.monitoring`` that stay on, see
    ``blanket.exploration.monitor``.)
    """

    __slots__ = ("_previous", "_held")

    def __enter__(self) -> None:
        # _signal's own functions: signal's wrappers turn every handler into
        # an enum member on the way, which costs most of a hold-back.
        previous = _signal.getsignal(signal.SIGINT)
        self._previous: Callable[[int, FrameType | None], object] | None = None
        if threading.current_thread() is not threading.main_thread() or not callable(previous):
            return
        held: list[int] = []
        self._held = held

        def hold(signum: int, frame: FrameType | None) -> None:
            held.append(signum)

        self._previous = previous
        _signal.signal(signal.SIGINT, hold)

    def __exit__(self, *exc_info: object) -> None:
        previous = self._previous
        if previous is None:
            return
        _signal.signal(signal.SIGINT, previous)
        if self._held:
            signal.raise_signal(signal.SIGINT)


class ExitGuard:
    """Ctrl-C at the very start of a scenario's exit, held back until the
    guard is put away.

    A signal handler can run at a function's first instruction: an
    interrupt there leaves ``Scenario.__exit__`` before it does anything,
    and the scenario stays entered with its threads parked. So while a
    scenario is entered its SIGINT handler is this guard's, which passes
    every signal on to the handler it replaced, except one that lands in
    *exit* before it enters the guard (``with guard:``, its first
    statement), or while the guard is entered or restored: that one is
    recorded, and raised again once the ``with`` block ends and the
    replaced handler is back (:meth:`restore`).

    Like :func:`interrupts_held_back`, only on the main thread and only when
    the handler in place is a Python callable.
    """

    def __init__(self, exit: Callable[..., object]) -> None:
        self._code = exit.__code__
        # The first with's entry (3.14 spells it LOAD_SPECIAL).
        self._start = first_offset(self._code, "BEFORE_WITH", "LOAD_SPECIAL")
        # The handler the guard replaced, which it passes signals on to.
        self._forward: Callable[[int, FrameType | None], object] = signal.default_int_handler
        self._installed = False
        self._held = False

    def install(self) -> None:
        """Make the guard SIGINT's handler, if it can."""
        previous = _signal.getsignal(signal.SIGINT)  # (see interrupts_held_back)
        if threading.current_thread() is threading.main_thread() and callable(previous):
            self._forward = previous
            self._held = False
            self._installed = True  # first: restore() checks what is in place
            _signal.signal(signal.SIGINT, self._handle)

    def __enter__(self) -> None:
        """Nothing: entered by the exit, so that the exit's end restores it."""

    def __exit__(self, *exc_info: object) -> None:
        """:meth:`restore`."""
        self.restore()

    def restore(self) -> None:
        """Put the replaced handler back (unless another took the guard's
        place meanwhile), then raise a signal held back."""
        if not self._installed:
            return
        self._installed = False
        try:
            if _signal.getsignal(signal.SIGINT) == self._handle:
                _signal.signal(signal.SIGINT, self._forward)
        finally:
            if self._held:
                self._held = False
                signal.raise_signal(signal.SIGINT)

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        own = (ExitGuard.__enter__.__code__, ExitGuard.__exit__.__code__,
               ExitGuard.restore.__code__)
        at = frame
        while at is not None:
            if (at.f_code is self._code and at.f_lasti <= self._start) \
                    or any(at.f_code is code for code in own):
                self._held = True
                return
            at = at.f_back
        self._forward(signum, frame)


@functools.cache
def first_offset(code: CodeType, *opnames: str) -> int:
    """The offset of *code*'s first instruction named one of *opnames*: its
    ``RESUME`` is where a call starts running (a signal handler may run
    there before anything else), its ``BEFORE_WITH`` where it enters its
    first ``with``."""
    return next(instruction.offset for instruction in dis.get_instructions(code)
                if instruction.opname in opnames)


#: The longest stretch, in seconds, that joining a thread waits with Ctrl-C
#: held back (see :func:`join_threads`): how late it may come.
JOIN_STRETCH = 0.05


def join_threads(threads: Iterable[threading.Thread], timeout: float) -> list[threading.Thread]:
    """Join the started *threads* within *timeout* seconds in all; return
    those still alive. (A managed thread is not started when its scenario was
    never entered.)"""
    deadline = time.monotonic() + timeout
    stuck = []
    for thread in threads:
        # Not started -- or launched by a start() an interrupt cut short
        # in a way that keeps it from ever running (its _started event's
        # lock left held): join() would raise RuntimeError.
        if not thread._started.is_set():  # type: ignore[attr-defined]
            continue
        while True:
            # Ctrl-C inside Thread.join or is_alive can make them take a
            # live thread for ended (see blanket.holdback): held back in
            # each stretch, it comes between two, within JOIN_STRETCH.
            with interrupts_held_back():
                thread.join(max(0.0, min(deadline - time.monotonic(), JOIN_STRETCH)))
                alive = thread.is_alive()
            if not alive:
                break
            if time.monotonic() >= deadline:
                stuck.append(thread)
                break
    return stuck
