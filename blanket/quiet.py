"""A thread blanket gave up on unwinds quietly through a thread pool: what
a ``concurrent.futures`` worker logs of the
:class:`~blanket.errors.Abandoned` it caught is dropped.

Given up on (a run over, a deadlock torn down), a thread unwinds from its
parked call by :class:`~blanket.errors.Abandoned`. A
``ThreadPoolExecutor``'s worker catches every exception and logs it, with
its traceback, on ``concurrent.futures``' logger ("Exception in worker"):
on stderr, once per run cut short, though that end is blanket's, not the
code's, and no error. From the first time blanket gives a thread up once
``concurrent.futures`` is imported, that logger drops the records of an
``Abandoned`` (a filter, the ``logging`` module's own way to leave records
out), and only those.

A thread outside the scenario that took part in a run (see
:mod:`blanket.outsiders`) is given up on with it too, and ends by that
``Abandoned``: ``threading.excepthook`` would print its traceback. From
the first time blanket gives one up, the hook drops an ``Abandoned`` (and
what was raised as it unwound), and only that; the hook set before gets
every other exception.
"""

from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING, Any

from .errors import Abandoned

if TYPE_CHECKING:  # pragma: no cover
    import logging

#: The logger a ``concurrent.futures`` pool's worker logs what it caught on.
POOL_LOGGER = "concurrent.futures"


def not_given_up(record: logging.LogRecord) -> bool:
    """Whether *record* is to be logged: false for one of an
    :class:`~blanket.errors.Abandoned`."""
    return record.exc_info is None or not isinstance(record.exc_info[1], Abandoned)


def quiet_pools() -> None:
    """Have the pools' logger drop the records of an
    :class:`~blanket.errors.Abandoned` (``addFilter`` adds it once)."""
    # Not before a pool can be made: blanket imports no logging of its own
    # (an exploration keeps logging's state only where it is imported,
    # blanket.exploration.processwide).
    if "concurrent.futures" in sys.modules:
        import logging  # (imported already: concurrent.futures imports it)

        logging.getLogger(POOL_LOGGER).addFilter(not_given_up)


#: The ``threading.excepthook`` that was set when :func:`quiet_threads` set its own.
_previous: Any = threading.excepthook


def quiet_threads() -> None:
    """Have ``threading.excepthook`` drop an
    :class:`~blanket.errors.Abandoned` (set once, over the hook then set)."""
    global _previous  # noqa: PLW0603 - the one hook, for the process
    if threading.excepthook is not _dropping:
        _previous = threading.excepthook
        threading.excepthook = _dropping


def _dropping(args: Any) -> None:
    """``threading.excepthook``: the one set before, but for an
    :class:`~blanket.errors.Abandoned`, or what was raised while one
    unwound the thread (its teardown's, as a lock given back twice)."""
    error = args.exc_value
    while error is not None:
        if isinstance(error, Abandoned):
            return
        error = error.__context__
    _previous(args)
