"""Process-wide state every run of an exploration starts from alike:
``logging``'s loggers, handlers and configuration, put back after each run
as they were before the first.

Each run calls the setup afresh, but what the process keeps outside the
run survives it: a logger the setup adds a handler to has one more every
run, a ``logging.config.dictConfig`` shuts down the handlers whichever
order an earlier run took left behind. The runs would not start alike,
and the search, replaying a prefix of choices, would meet other calls (it
stops: ``blanket.exploration.dfs.NotDeterministic``) or runs that grow
without end. ``logging`` is the standard library's process-wide registry
that threads' code most often configures, so a search takes a
:class:`Snapshot` of it before its first run and restores it after every
run and at its end: the attributes of the logging module, of its manager,
of every logger and placeholder and of every live handler, lists and dicts
among them by their contents (in place: code holding
``logger.handlers`` sees the list put back). Loggers and handlers made by a
run are dropped from the registry (a handler a run closed is not
reopened: its stream stays closed). Nothing is taken when ``logging`` is
not imported before the search.

Other process-wide state (module globals of the code under test, caches,
registries of other libraries) is the setup's to reset; when it is not,
the depth-first search names the first call that differed.
"""

from __future__ import annotations

import sys
from typing import Any

from ..quiet import POOL_LOGGER, not_given_up


def _contents(value: object) -> list[Any] | dict[Any, Any] | None:
    """A copy of *value*'s contents when it is a list or a dict (put back in
    place), else ``None``."""
    if type(value) is list:
        return list(value)
    if type(value) is dict:
        return dict(value)
    return None


def _put_back(value: Any, contents: list[Any] | dict[Any, Any]) -> None:
    """Give the list or dict *value* its *contents* again."""
    if type(value) is list:
        value[:] = contents
    else:
        value.clear()
        value.update(contents)


class _Attributes:
    """One object's attributes as they were, and the contents of those that
    are lists or dicts. *keep_new*: a name bound since is kept (a module's
    submodule, ``logging.config``), else dropped (an object's)."""

    __slots__ = ("_target", "_saved", "_contents", "_keep_new")

    def __init__(self, target: object, keep_new: bool = False) -> None:
        self._target = target
        self._keep_new = keep_new
        self._saved = {name: value for name, value in vars(target).items()
                       if not name.startswith("__")}
        self._contents = {name: contents for name, value in self._saved.items()
                          if (contents := _contents(value)) is not None}

    def restore(self) -> None:
        attributes = vars(self._target)
        if not self._keep_new:
            for name in [n for n in attributes if n not in self._saved
                         and not n.startswith("__")]:
                del attributes[name]
        attributes.update(self._saved)
        for name, contents in self._contents.items():
            _put_back(self._saved[name], contents)


class Snapshot:
    """``logging``'s state when taken, put back by :meth:`restore` (nothing
    when ``logging`` was not imported)."""

    def __init__(self) -> None:
        self._objects: list[_Attributes] = []
        self._named: dict[str, Any] = {}
        logging = sys.modules.get("logging")
        if logging is None:
            return
        self._logging = logging
        manager = logging.Logger.manager
        objects = [_Attributes(logging, keep_new=True), _Attributes(manager),
                   _Attributes(logging.root)]
        objects += [_Attributes(node) for node in list(manager.loggerDict.values())]
        handlers = [ref() for ref in list(logging._handlerList)]
        objects += [_Attributes(handler) for handler in handlers if handler is not None]
        self._objects = objects
        # A WeakValueDictionary, not a dict: by its items.
        self._named = dict(logging._handlers.items())

    def restore(self) -> None:
        """Put the state taken back (the run's threads are gone), but
        blanket's own filter on the pools' logger (``blanket.quiet``):
        a thread given up on may still be unwinding through a pool's worker."""
        pools: Any = self._logging.Logger.manager.loggerDict.get(POOL_LOGGER) if self._objects \
            else None
        quieted = not_given_up in getattr(pools, "filters", ())
        for attributes in self._objects:
            attributes.restore()
        if quieted:
            pools.addFilter(not_given_up)
        if self._objects:
            named = self._logging._handlers
            named.clear()
            named.update(self._named)
