"""Thread-local data the code under test keeps: whether a run's threads left
some behind.

An exploration runs its managed threads on operating-system threads that
serve one run after another (:mod:`blanket.exploration.runners`). Data a
thread keeps in a ``threading.local`` belongs to the operating-system
thread, so a managed thread of a later run would find what one of an
earlier run left there, where a thread of its own starts with none. So
runners are reused only while no run's threads left data in a
``threading.local`` that outlives the run:

- :class:`Locals` notes every ``threading.local`` (and subclass) object
  alive when the exploration starts reusing runners (after its first runs,
  made on threads of their own), and which threads hold data in each
  (the keys of its per-thread dictionaries, which the garbage collector's
  :func:`gc.get_referents` shows);
- after each run, :meth:`Locals.gained` tells whether one of them holds
  data for a thread that held none at the start: then no runner is reused
  from then on;
- when the search is over, :meth:`Locals.made_since` tells whether a
  ``threading.local`` made since then is still alive: the runs may have
  shared its data, and the search is made again on threads of their own.

A ``threading.local`` made during the search and gone before it ends is
not seen: each run's own (made in the setup or by its threads) is gone with
the run, and so is the data the run's threads put in it. blanket's own
thread-local objects are put back by the runner between two managed
threads, and are not counted here.
"""

from __future__ import annotations

import _thread
import gc
import weakref

from . import monitor, sites, witness

#: blanket's own thread-local objects (the watch's record, the monitor's
#: hook, the witness of the thread), which a runner clears itself between
#: two managed threads.
BLANKETS = (sites._local, monitor._local, witness._local)


def _holders(local: _thread._local) -> set[object]:
    """The keys of *local*'s per-thread dictionaries: one for each thread
    that holds data in it. (Its other dictionary, the keyword arguments of
    a subclass, has names for keys.)"""
    return {key for referent in gc.get_referents(local) if type(referent) is dict
            for key in referent if type(key) is not str}


def _locals() -> list[_thread._local]:
    """Every ``threading.local`` object alive, but blanket's own: those that
    refer to one of the classes ``threading.local`` and its subclasses (an
    instance refers to its class), of one of them by type (``isinstance``
    would ask an object that is no local for its ``__class__``, running the
    code under test). The collector's walk in C of what refers to them
    (``gc.get_referrers``) costs a third of going over every object in
    Python, in a process of tens of thousands."""
    kinds = _local_types()
    return [value for value in gc.get_referrers(*kinds)
            if type(value) in kinds and not any(value is own for own in BLANKETS)]


def _local_types() -> set[type]:
    """``threading.local`` and every subclass of it there is now."""
    found: set[type] = set()
    more: list[type] = [_thread._local]
    while more:  # (a class two of them derive from is met twice: no harm)
        kind = more.pop()
        found.add(kind)
        more += type.__subclasses__(kind)
    return found


class Locals:
    """The ``threading.local`` objects alive when an exploration started
    reusing runners, and who held data in each then."""

    def __init__(self) -> None:
        # Each object, weakly (the search does not keep it alive), with the
        # keys of its holders, strongly (so no new key can take the place
        # of one that was).
        self._known = [(weakref.ref(local), _holders(local)) for local in _locals()]

    def gained(self) -> bool:
        """Whether one of the objects now holds data for a thread that held
        none in it at the start."""
        for ref, holders in self._known:
            local = ref()
            if local is not None and not _holders(local) <= holders:
                return True
        return False

    def made_since(self) -> bool:
        """Whether a ``threading.local`` object made since the start is alive
        (garbage aside: a run's objects in reference cycles, a library's
        console that points back at its display, are gone with the run,
        though no collection has run yet: one is made if a new one is found)."""
        known = [ref() for ref, _ in self._known]

        def new() -> bool:
            return any(all(local is not old for old in known) for local in _locals())
        if not new():
            return False
        gc.collect()
        return new()
