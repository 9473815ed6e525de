"""dateutil.rrule: two threads iterate one cached rrule.

Bug: python-dateutil NEWS 4.0.0: "Fixed an issue where iterating over a cached
``rrule`` or ``rruleset`` could hang forever if another iterator over the same rule
had already completed the cache" (reported in dateutil/dateutil#1455, fixed by PR
#1655). In 3.0.0 ``rrulebase._iter_cached`` takes ``self._cache_lock`` with a bare
``acquire()`` and leaves the loop with ``break`` (the cache complete, or the rule's
generator exhausted) without ``release()``: the iterator that fills the cache last
keeps the lock for ever, and another iterator that started before (its ``gen`` not
None yet) and needs the next items blocks on it: both threads' ``list(rule)`` never
ends for one of them. 4.0.0 takes the lock with ``with lock:``.
Each run makes its own ``rrule(..., cache=True)``: no module state to reset.
"""
import datetime

import dateutil
from dateutil.rrule import DAILY, rrule

from realbugs_variant import Variant, everywhere

BUG = "python-dateutil NEWS 4.0.0 (dateutil/dateutil#1455, fix PR #1655): a cached rrule's iterator keeps the cache lock"
VARIANTS = [Variant("python-dateutil 3.0.0", "python-dateutil-3.0.0", everywhere(True)),
            Variant("python-dateutil 4.0.0", "python-dateutil-4.0.0", everywhere(False))]

START = datetime.datetime(2024, 1, 1)


def LIB_FILE():
    return dateutil.__file__


def setup(scenario):
    rule = rrule(DAILY, count=2, dtstart=START, cache=True)
    got = {}

    def iterate(tag):
        got[tag] = list(rule)

    scenario.thread(iterate, "A")
    scenario.thread(iterate, "B")

    def both_listed():
        days = [START, START + datetime.timedelta(days=1)]
        assert got == {"A": days, "B": days}, got
    return both_listed
