"""Helpers shared by the test modules."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

import blanket

try:
    from typeguard import suppress_type_checks
except ImportError:  # pragma: no cover - the suite run without its dev tools
    suppress_type_checks = contextlib.nullcontext

#: Tests of blanket's own checks of bad input pass values its annotations
#: forbid; under ``make test`` typeguard would reject them first. Inside
#: ``unchecked()`` blanket's own error is what the test sees.
unchecked: Callable[[], AbstractContextManager[object]] = suppress_type_checks


def spawn(scenario: blanket.Scenario, name: str, target: Callable[..., object],
          *args: object, **kwargs: object) -> threading.Thread:
    """A managed thread named *name* running ``target(*args, **kwargs)``."""
    thread = scenario.thread(target, *args, **kwargs)
    thread.name = name
    return thread


def arrive(scenario: blanket.Scenario, thread: threading.Thread) -> blanket.Transaction:
    """Wait until *thread* is inside a call; return its innermost transaction."""
    scenario.wait(thread)
    tx = scenario.transaction(thread)
    assert tx is not None
    return tx


def let_go(scenario: blanket.Scenario, tx: blanket.Transaction) -> None:
    """Unblock *tx* and wait until it has finished."""
    tx.unblock()
    scenario.wait(tx)


def keeping(errors: list[BaseException], call: Callable[[], object]) -> Callable[[], None]:
    """A thread target that makes *call* and keeps what it raises in *errors*."""
    def target() -> None:
        try:
            call()
        except Exception as exc:  # the test inspects it
            errors.append(exc)
    return target


@contextmanager
def quiet_thread_errors() -> Iterator[list[threading.ExceptHookArgs]]:
    """Collect uncaught thread exceptions instead of printing them."""
    seen: list[threading.ExceptHookArgs] = []
    previous = threading.excepthook
    threading.excepthook = seen.append
    try:
        yield seen
    finally:
        threading.excepthook = previous
