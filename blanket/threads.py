"""Managed threads: the threads a scenario starts, and how blanket names them.

A :class:`ManagedThread` is made by ``scenario.thread`` (or adopted, see
:mod:`blanket.exploration.adopt`); it tells its scenario when it ends and
what it died of. :func:`thread_names` gives the names tests and
explorations call them by: "A", "B", "C", ...
"""

from __future__ import annotations

import itertools
import string
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .core import ScenarioCore


def thread_names() -> Iterator[str]:
    """"A", "B", ... "Z", then "A1", "B1", ...: blanket's naming convention."""
    yield from string.ascii_uppercase
    for round_ in itertools.count(1):  # pragma: no branch - endless
        for letter in string.ascii_uppercase:
            yield f"{letter}{round_}"


class ManagedThread(threading.Thread):
    """A thread made by ``scenario.thread``: started on entry, joined on exit.

    Its scenario learns when it ends (``Terminated`` signals at once) and
    which exception, if any, it died of. In an exploration's run (and a
    replay's) that exception is the run's failure, not also printed by
    ``threading.excepthook``.
    """

    def __init__(self, core: ScenarioCore, target: Callable[..., Any],
                 args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        super().__init__(target=target, args=args, kwargs=kwargs, daemon=True)
        self._blanket_core = core

    def start(self) -> None:
        """Start the thread: on one of its exploration's runners when it has
        them (see :mod:`blanket.exploration.runners`), else as ``threading`` does."""
        core = self._blanket_core
        runners = core.runners
        if runners is None:
            super().start()
        else:
            # Started in turn on entry, it is waited for until it parks (see
            # blanket.entry.enter): waiting for it to begin first is one more
            # hand-off for nothing.
            runners.start(self, wait=not (core.start_in_turn and self in core.entering))

    def run(self) -> None:
        """Run the target; tell the scenario how it ended."""
        core = self._blanket_core
        try:
            super().run()
        except BaseException as exc:
            with core.lock:
                if self in core.abandoned:  # torn down on purpose
                    return
                core.errors[self] = exc
            if core.start_in_turn:
                # An exploration's run (or a replay's): what the thread raised
                # is the run's failure, reported with its traceback; printed
                # by threading too, it would be printed again at every run
                # and replay that meets it (shrinking makes hundreds).
                return
            raise
        finally:
            with core.lock:
                core.finished.add(self)
                core.changed()
