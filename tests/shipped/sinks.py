"""A process-wide logger in the shape of loguru's (0.7.2; fixed in 0.7.3:
https://github.com/Delgan/loguru/issues/1183). Handlers are added and
removed under the logger's lock, each change publishing a new table, while
``log`` iterates the table it finds without the lock. In 0.7.2 ``remove()``
of every handler published its copy after the first handler it dropped and
went on popping from it: a thread logging meanwhile iterates a dict that
changes size. One logger of each kind is made at import, as loguru's is;
:func:`removed_while_logging` is the setup a user writes for it (typed, as
``make bench`` measures it)."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable

from blanket import Scenario


class _Handler:
    def __init__(self, sink: Callable[[str], object]) -> None:
        self._sink = sink
        self._lock = threading.Lock()
        self._stopped = False

    def emit(self, message: str) -> None:
        with self._lock:
            if not self._stopped:
                self._sink(message)

    def stop(self) -> None:
        with self._lock:
            self._stopped = True


class Logger:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._handlers: dict[int, _Handler] = {}
        self._numbers = itertools.count()

    def add(self, sink: Callable[[str], object]) -> int:
        with self._lock:
            handlers = dict(self._handlers)
            number = next(self._numbers)
            handlers[number] = _Handler(sink)
            self._handlers = handlers
        return number

    def remove(self, number: int | None = None) -> None:
        with self._lock:
            handlers = dict(self._handlers)
            for key in list(handlers) if number is None else [number]:
                handler = handlers.pop(key)
                self._handlers = handlers  # published while it still changes
                handler.stop()

    def log(self, message: str) -> None:
        for handler in self._handlers.values():
            handler.emit(message)


class FixedLogger(Logger):
    """0.7.3: the new table is published once every handler is out of it."""

    def remove(self, number: int | None = None) -> None:
        with self._lock:
            handlers = dict(self._handlers)
            removed = [handlers.pop(key) for key in (list(handlers) if number is None
                                                     else [number])]
            self._handlers = handlers
        for handler in removed:
            handler.stop()


logger = Logger()
fixed_logger = FixedLogger()


def removed_while_logging(logger: Logger) -> Callable[[Scenario], Callable[[], None]]:
    """Every handler of the process-wide *logger* removed while another
    thread logs."""
    def setup(scenario: Scenario) -> Callable[[], None]:
        logger.remove()
        first: list[str] = []
        second: list[str] = []
        logger.add(first.append)
        logger.add(second.append)
        scenario.thread(logger.remove)
        scenario.thread(logger.log, "hello")

        def logged_at_most_once() -> None:
            assert len(first) <= 1 and len(second) <= 1, (first, second)
        return logged_at_most_once
    return setup
