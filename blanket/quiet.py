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
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

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
